package verify

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// flippedTable is a table of 50 entries (no filter, no compression, data
// blocks of about 300 bytes), each value unique, with bit 2 of the value
// of key k0020's first byte flipped: that data block's checksum fails and
// one flipped bit explains it.
func flippedTable(t *testing.T) (file []byte, at int) {
	t.Helper()
	var es []table.Entry
	for i := 0; i < 50; i++ {
		es = append(es, table.Entry{Key: table.InternalKey{UserKey: []byte(fmt.Sprintf("k%04d", i)), Seq: uint64(100 + i), Kind: table.KindValue},
			Value: []byte(fmt.Sprintf("value-%04d-written", i))})
	}
	file = tabletest.Build(es, tabletest.Options{BlockSize: 300})
	at = bytes.Index(file, []byte("value-0020-written"))
	if at < 0 {
		t.Fatal("value not found")
	}
	file[at] ^= 1 << 2 // 'v' (0x76) becomes 'r' (0x72)
	return file, at
}

// TestDamageWrongValue: with LevelDB's default options (no checksum
// verification) upstream's scan and Get both return the damaged value:
// harm, silent-corruption; the table as written is known from the flip.
func TestDamageWrongValue(t *testing.T) {
	file, _ := flippedTable(t)
	for _, keep := range []bool{false, true} { // mapped, and read with pread
		path := writeTemp(t, "000005.ldb", file)
		rep := Examine(&Target{Path: path}, Options{Keep: keep})
		d := rep.Damage
		if d == nil {
			t.Fatalf("no damage: %+v", rep)
		}
		if !d.Known || d.Written != 50 || d.Entries != 50 || d.WrongValues != 1 || d.Missing != 0 || d.Extra != 0 || d.GetsMissing != 0 || d.GetsWrong != 1 {
			t.Errorf("keep %v: %+v", keep, d)
		}
		if !strings.Contains(d.First, "wrong value (18 bytes, 18 written)") || rep.Verdict != SilentCorruption {
			t.Errorf("keep %v: first %q, verdict %s", keep, d.First, rep.Verdict)
		}
		if len(d.Blocks) != 1 || d.Blocks[0].Site == nil || d.Blocks[0].Site.Field != table.FlipValue {
			t.Errorf("keep %v: blocks %+v", keep, d.Blocks)
		}
	}
}

// TestDamageWrongKey: bit 0 of key k0020's last byte flipped ('0' to
// '1'): the scan returns k0021 with k0020's sequence number, an internal
// key never written, and not k0020, which a lookup then misses.
func TestDamageWrongKey(t *testing.T) {
	var es []table.Entry
	for i := 0; i < 50; i++ {
		es = append(es, table.Entry{Key: table.InternalKey{UserKey: []byte(fmt.Sprintf("k%04d", i)), Seq: uint64(100 + i), Kind: table.KindValue},
			Value: []byte(fmt.Sprintf("value-%04d-written", i))})
	}
	// A restart interval of 1: every key is stored whole.
	file := tabletest.Build(es, tabletest.Options{BlockSize: 300, RestartInterval: 1})
	at := bytes.Index(file, []byte("k0020"))
	if at < 0 {
		t.Fatal("key not found")
	}
	file[at+4] ^= 1
	rep := Examine(&Target{Path: writeTemp(t, "000005.ldb", file)}, Options{})
	d := rep.Damage
	if d == nil || !d.Known || d.Written != 50 || d.Entries != 50 || d.Extra != 1 || d.Missing != 1 || d.WrongValues != 0 || d.GetsMissing < 1 || rep.Verdict != SilentCorruption {
		t.Fatalf("%+v, verdict %s", d, rep.Verdict)
	}
	if !strings.Contains(d.First, "which was not written") {
		t.Errorf("first %q", d.First)
	}
}

// TestDamageEmptyKey: the empty user key (an 8-byte internal key, its
// tag alone) is looked up too: its flipped value is a wrong Get.
func TestDamageEmptyKey(t *testing.T) {
	es := []table.Entry{{Key: table.InternalKey{UserKey: []byte{}, Seq: 7, Kind: table.KindValue}, Value: []byte("the-empty-keys-value")}}
	for i := 0; i < 20; i++ {
		es = append(es, table.Entry{Key: table.InternalKey{UserKey: []byte(fmt.Sprintf("k%04d", i)), Seq: uint64(100 + i), Kind: table.KindValue}, Value: []byte("v")})
	}
	file := tabletest.Build(es, tabletest.Options{BlockSize: 300})
	at := bytes.Index(file, []byte("the-empty-keys-value"))
	if at < 0 {
		t.Fatal("value not found")
	}
	file[at] ^= 1 << 2
	d := Examine(&Target{Path: writeTemp(t, "000005.ldb", file)}, Options{}).Damage
	if d == nil || !d.Known || d.WrongValues != 1 || d.GetsWrong != 1 || d.GetsMissing != 0 {
		t.Fatalf("%+v", d)
	}
}
