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

// Prog hands out a fuzz program's bytes one at a time, zeros past its end.
type Prog struct {
	b []byte
	i int
}

// NewProg returns a Prog reading b.
func NewProg(b []byte) *Prog { return &Prog{b: b} }

// More reports whether any of the program is left.
func (p *Prog) More() bool { return p.i < len(p.b) }

// Byte returns the program's next byte, 0 past its end.
func (p *Prog) Byte() byte {
	if p.i >= len(p.b) {
		return 0
	}
	p.i++
	return p.b[p.i-1]
}

// U16 returns the next two bytes, little-endian.
func (p *Prog) U16() int { return int(p.Byte()) | int(p.Byte())<<8 }
