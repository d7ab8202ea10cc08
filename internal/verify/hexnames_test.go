package verify_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// TestOtherFiltersHex: another policy's filter whose name is not valid
// UTF-8 keeps its bytes in the JSON, in hex beside the names.
func TestOtherFiltersHex(t *testing.T) {
	plain := tabletest.Build(entries(), tabletest.Options{BlockSize: 300})
	r := checkFile(t, withMeta(t, plain, []metaEntry{{name: "a.Filter", contents: []byte("x")}, {name: "b\xffFilter", contents: []byte("y")}}, false))
	var j verify.VerifyJSON
	j.Add(verify.Item{Table: &verify.Target{Path: r.Path}, Path: r.Path}, r)
	var b bytes.Buffer
	if err := j.Write(&b, "test", verify.Summary{}, 0); err != nil {
		t.Fatal(err)
	}
	var out struct {
		Tables []struct {
			OtherFiltersHex []string `json:"other_filters_hex"`
		} `json:"tables"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil || len(out.Tables) != 1 {
		t.Fatalf("%v\n%s", err, b.String())
	}
	want := []string{hex.EncodeToString([]byte("a.Filter")), hex.EncodeToString([]byte("b\xffFilter"))}
	if got := out.Tables[0].OtherFiltersHex; len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("other_filters_hex %q, want %q", got, want)
	}
}
