package tabletest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// WriteSeed writes vals as a `go test fuzz v1` seed of target in the
// package's testdata/fuzz/<target>/<name>.
func WriteSeed(t *testing.T, target, name string, vals ...any) {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("go test fuzz v1\n")
	for _, v := range vals {
		switch v := v.(type) {
		case []byte:
			fmt.Fprintf(&b, "[]byte(%q)\n", v)
		case byte:
			fmt.Fprintf(&b, "byte(%q)\n", v)
		default:
			fmt.Fprintf(&b, "%T(%v)\n", v, v)
		}
	}
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
