package users

import (
	"strings"
	"testing"
)

// gomod is a go.mod in the forms the facts read: a require block with an
// indirect entry, a one-line require, a replace of every version and one
// of a single version.
const gomod = `module example.com/user

go 1.22

require (
	github.com/syndtr/goleveldb v1.0.1-0.20210819022825-2ae1ddf74ef7
	github.com/cockroachdb/pebble v1.1.5 // indirect
)

require github.com/golang/snappy v0.0.4

replace github.com/syndtr/goleveldb => github.com/vechain/goleveldb v1.0.1-0.20220809091043-51eb019c8655

replace github.com/golang/snappy v0.0.4 => github.com/golang/snappy v0.0.3
`

const (
	syndtr  = "github.com/syndtr/goleveldb"
	s2ae    = "v1.0.1-0.20210819022825-2ae1ddf74ef7"
	vechain = "github.com/vechain/goleveldb"
	v51e    = "v1.0.1-0.20220809091043-51eb019c8655"
)

// TestCheck: a fact holds when the go.mod has that directive at that
// line, and fails, saying why, when any part of it differs. Line numbers
// are counted in gomod above: its first line is 1.
func TestCheck(t *testing.T) {
	user := "example.com/user@v1.0.0"
	for _, c := range []struct {
		name string
		f    Fact
		want string // "" when the fact holds, else part of the error
	}{
		{"require", Fact{User: user, Directive: Require, Module: syndtr, Version: s2ae, Line: 6}, ""},
		{"require indirect", Fact{User: user, Directive: Require, Module: "github.com/cockroachdb/pebble", Version: "v1.1.5", Indirect: true, Line: 7}, ""},
		{"one-line require", Fact{User: user, Directive: Require, Module: "github.com/golang/snappy", Version: "v0.0.4", Line: 10}, ""},
		{"replace", Fact{User: user, Directive: Replace, Module: syndtr, By: vechain, Version: v51e, Line: 12}, ""},
		{"require, other version", Fact{User: user, Directive: Require, Module: syndtr, Version: v51e, Line: 6}, "requires github.com/syndtr/goleveldb " + s2ae},
		{"require, not indirect", Fact{User: user, Directive: Require, Module: "github.com/cockroachdb/pebble", Version: "v1.1.5", Line: 7}, "indirect true"},
		{"require, other line", Fact{User: user, Directive: Require, Module: syndtr, Version: s2ae, Line: 7}, "line 6"},
		{"require, absent", Fact{User: user, Directive: Require, Module: "github.com/kezhuw/leveldb", Version: "v0.0.0-20200221131720-39763608f29b", Line: 6}, "does not require"},
		{"replace, other target", Fact{User: user, Directive: Replace, Module: syndtr, By: syndtr, Version: s2ae, Line: 12}, "replaces"},
		{"replace of one version only", Fact{User: user, Directive: Replace, Module: "github.com/golang/snappy", By: "github.com/golang/snappy", Version: "v0.0.3", Line: 14}, "replaces github.com/golang/snappy v0.0.4"},
		{"replace, absent", Fact{User: user, Directive: Replace, Module: "github.com/cockroachdb/pebble", By: vechain, Version: v51e, Line: 12}, "does not replace"},
		{"no-replace holds", Fact{User: user, Directive: NoReplace, Module: "github.com/cockroachdb/pebble"}, ""},
		{"no-replace fails", Fact{User: user, Directive: NoReplace, Module: syndtr}, "line 12 replaces"},
		{"other module", Fact{User: "example.com/other@v1.0.0", Directive: NoReplace, Module: syndtr}, "does not declare module example.com/other"},
		{"declared elsewhere", Fact{User: "example.com/old@v1.0.0", Declares: "example.com/user", Directive: Require, Module: syndtr, Version: s2ae, Line: 6}, ""},
	} {
		err := Check(c.f, []byte(gomod))
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v; want the fact to hold", c.name, err)
		case c.want != "" && err == nil:
			t.Errorf("%s: the fact holds; want an error saying %q", c.name, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s: %v; want it to say %q", c.name, err, c.want)
		}
	}
}

// TestParse: users.json's facts are checked for their form when read.
func TestParse(t *testing.T) {
	good := `{"about": "a", "how": "h", "facts": [{"user": "example.com/user@v1.0.0", "directive": "require", "module": "github.com/syndtr/goleveldb", "version": "v1.0.0", "line": 3}]}`
	if _, err := Parse([]byte(good)); err != nil {
		t.Fatalf("Parse of a valid file: %v", err)
	}
	for _, bad := range []string{
		`{"facts": [{"user": "example.com/user", "directive": "require", "module": "m.example/x", "version": "v1.0.0"}]}`,
		`{"facts": [{"user": "example.com/user@v1.0.0", "directive": "require", "module": "m.example/x", "version": "1.0"}]}`,
		`{"facts": [{"user": "example.com/user@v1.0.0", "directive": "replace", "module": "m.example/x", "version": "v1.0.0"}]}`,
		`{"facts": [{"user": "example.com/user@v1.0.0", "directive": "no-replace", "module": "m.example/x", "version": "v1.0.0"}]}`,
		`{"facts": [{"user": "example.com/user@v1.0.0", "directive": "exclude", "module": "m.example/x"}]}`,
		`{"facts": [], "extra": 1}`,
	} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) succeeds; want an error", bad)
		}
	}
}
