package verify

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// TestHarm: any difference from what was written, or not knowing what
// was, is harm; a table returning every entry as written is not harmed.
func TestHarm(t *testing.T) {
	for _, tc := range []struct {
		d    Damage
		want bool
	}{
		{Damage{Known: true}, false},
		{Damage{Known: false}, true},
		{Damage{Known: true, WrongValues: 1}, true},
		{Damage{Known: true, Missing: 1}, true},
		{Damage{Known: true, Extra: 1}, true},
		{Damage{Known: true, GetsMissing: 1}, true},
		{Damage{Known: true, GetsWrong: 1}, true},
	} {
		if got := tc.d.Harm(); got != tc.want {
			t.Errorf("%+v: harm %v, want %v", tc.d, got, tc.want)
		}
	}
}

// TestUserKey: an internal key is the user key and an 8-byte tag
// (db/dbformat.h ExtractUserKey); a shorter key is shown whole.
func TestUserKey(t *testing.T) {
	for k, want := range map[string]string{
		"abc":        "abc",
		"12345678":   "",
		"ab12345678": "ab",
	} {
		if got := string(userKey([]byte(k))); got != want {
			t.Errorf("userKey(%q) = %q, want %q", k, got, want)
		}
	}
}

// TestDamageJSON: a damaged block's flipped bit, with the entry and the
// restart point it hits when it hits one (index 0 included).
func TestDamageJSON(t *testing.T) {
	d := &Damage{Known: true, Blocks: []table.ChecksumFailure{
		{What: "data block 0", Handle: table.BlockHandle{Offset: 0, Size: 100}, Stored: 1, Computed: 2,
			Site: &table.FlipSite{Offset: 12, Bit: 3, Field: table.FlipValue, Entry: 0, Key: []byte("k\x01\x00\x00\x00\x00\x00\x00\x00"), Restart: -1}},
		{What: "data block 1", Handle: table.BlockHandle{Offset: 105, Size: 50},
			Site: &table.FlipSite{Offset: 140, Bit: 0, Field: table.FlipRestart, Entry: -1, Restart: 0}},
		{What: "index block", Handle: table.BlockHandle{Offset: 160, Size: 20}},
	}}
	j := damageOf(d)
	if len(j.Blocks) != 3 {
		t.Fatalf("%+v", j)
	}
	f := j.Blocks[0].FlippedBit
	if f == nil || f.Offset != 12 || f.Bit != 3 || f.Entry == nil || *f.Entry != 0 || f.Key != "6b" || f.Restart != nil {
		t.Errorf("block 0: %+v", f)
	}
	f = j.Blocks[1].FlippedBit
	if f == nil || f.Entry != nil || f.Key != "" || f.Restart == nil || *f.Restart != 0 {
		t.Errorf("block 1: %+v", f)
	}
	if b := j.Blocks[2]; b.FlippedBit != nil || b.Block != "index block" || b.Offset != 160 || b.Size != 20 {
		t.Errorf("block 2: %+v", b)
	}
	if damageOf(nil) != nil {
		t.Error("damageOf(nil) is not nil")
	}
}
