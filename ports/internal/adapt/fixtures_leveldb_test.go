//go:build leveldb

package adapt

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"sort"
	"testing"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/verify/upstreamdb"
)

// TestLiveKeysUpstream: LiveKeys of each database upstream wrote are the
// keys whose newest version, in the entries upstream's own iterator
// yields for each live table (through cgo), is a value.
func TestLiveKeysUpstream(t *testing.T) {
	dbs, err := Committed()
	if err != nil {
		t.Fatal(err)
	}
	for _, db := range dbs {
		dir := filepath.Join(t.TempDir(), db.Dir)
		if err := fixtures.CopyDir(dir, db.FS); err != nil {
			t.Fatal(err)
		}
		d, err := upstreamdb.Ask(dir, upstream.Comparator{})
		if err != nil {
			t.Fatal(err)
		}
		newest := map[string]uint64{}
		for _, tb := range d.Tables {
			for _, e := range tb.Entries {
				tag := binary.LittleEndian.Uint64(e.Key[len(e.Key)-8:])
				uk := string(e.Key[:len(e.Key)-8])
				if old, ok := newest[uk]; !ok || tag>>8 > old>>8 {
					newest[uk] = tag
				}
			}
		}
		var want [][]byte
		for uk, tag := range newest {
			if tag&0xff == 1 {
				want = append(want, []byte(uk))
			}
		}
		sort.Slice(want, func(i, j int) bool { return bytes.Compare(want[i], want[j]) < 0 })
		got, err := LiveKeys(db.FS)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%s: LiveKeys gives %d keys, upstream's scan %d", db.Dir, len(got), len(want))
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Errorf("%s: key %d: LiveKeys %x, upstream %x", db.Dir, i, got[i], want[i])
				break
			}
		}
	}
}
