package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n          int
		noun, want string
	}{
		{1, "case", "1 case"},
		{0, "case", "0 cases"},
		{2, "live table", "2 live tables"},
		{1, "live table", "1 live table"},
		{3, "property", "3 properties"},
		{3, "key", "3 keys"},
		{2, "match", "2 matches"},
		{2, "suite error", "2 suite errors"},
		{-1, "key", "-1 keys"},
	} {
		if got := Count(c.n, c.noun); got != c.want {
			t.Errorf("Count(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
	if Verb(1, "differs", "differ") != "differs" || Verb(2, "differs", "differ") != "differ" || Verb(0, "is", "are") != "are" {
		t.Error("Verb does not agree with its count")
	}
}
