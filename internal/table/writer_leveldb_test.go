//go:build leveldb

package table_test

import (
	"bytes"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// writeCase writes c with the reference writer.
func writeCase(t *testing.T, c cases.TableCase) []byte {
	t.Helper()
	if c.BitsPerKey > 0 && upstream.LegacyBloom() {
		// Releases before v1.18 name their filter otherwise and hash
		// tail bytes as plain char.
		return writeTableCase(t, c, bloom.NewLegacyPolicy(c.BitsPerKey, upstream.CharIsSigned()))
	}
	return writeVectorCase(t, c)
}

// TestWriterUpstream writes every table case with the reference writer
// and with upstream's TableBuilder: without compression the bytes are
// the same; with snappy (whose encoders may differ) each side's reader
// reads every entry of the other's table.
func TestWriterUpstream(t *testing.T) {
	for _, c := range cases.TableCases() {
		want, err := upstream.BuildTable(c.Keys, c.Values, upstream.BuildOptions{BlockSize: c.BlockSize,
			RestartInterval: c.RestartInterval, Snappy: c.Snappy, BitsPerKey: c.BitsPerKey})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		got := writeCase(t, c)
		if !c.Snappy {
			if !bytes.Equal(got, want) {
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Errorf("%s: upstream %d bytes, writer %d; first difference at byte %d", c.Name, len(want), len(got), i)
			}
			continue
		}
		s, err := upstream.ScanTable(got, c.BitsPerKey)
		if err != nil {
			t.Fatal(err)
		}
		if s.Status() != "" || len(s.Entries) != len(c.Keys) {
			t.Errorf("%s: upstream reads the writer's table: status %q, %d of %d entries", c.Name, s.Status(), len(s.Entries), len(c.Keys))
			continue
		}
		for i, e := range s.Entries {
			if !bytes.Equal(e[0], c.Keys[i]) || !bytes.Equal(e[1], c.Values[i]) {
				t.Errorf("%s: upstream reads entry %d of the writer's table otherwise", c.Name, i)
				break
			}
		}
		if bytes.Equal(got, want) {
			t.Logf("%s: snappy table byte for byte upstream's", c.Name)
		}
	}
}
