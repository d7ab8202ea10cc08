package manifest

import (
	"fmt"
	"sort"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// builder is db/version_set.cc VersionSet::Builder from an empty base:
// per level, numbers deleted and files added, ordered by smallest key then
// number.
type builder struct {
	levels [NumLevels]struct {
		deleted map[uint64]bool
		added   map[addedKey]File
		short   bool // a file with a smallest key under 8 bytes was added
		adds    int  // insertions tried
		at      int64
	}
}

// addedKey identifies a file in an added set, whose comparator finds equal
// the same smallest key bytes and number; an equal insert keeps the first.
type addedKey struct {
	smallest string
	number   uint64
}

// apply is Builder::Apply: deletions, then additions, which cancel an
// earlier deletion of their number at their level.
func (b *builder) apply(e *edit, name string, off int64) error {
	for _, d := range e.deleted {
		l := &b.levels[d.Level]
		if l.deleted == nil {
			l.deleted = map[uint64]bool{}
		}
		l.deleted[d.Number] = true
	}
	for _, f := range e.added {
		l := &b.levels[f.Level]
		delete(l.deleted, f.Number)
		if l.added == nil {
			l.added = map[addedKey]File{}
		}
		l.adds++
		if len(f.Smallest) < 8 && !l.short {
			l.short, l.at = true, off
		}
		k := addedKey{string(f.Smallest), f.Number}
		if _, ok := l.added[k]; !ok {
			l.added[k] = f
		}
	}
	return nil
}

// check refuses a smallest key under 8 bytes meeting another added file
// (undefined upstream: ExtractUserKey's assert is compiled out).
func (b *builder) check(name string) error {
	for level, l := range b.levels {
		if l.short && l.adds > 1 {
			return &base.Error{Type: base.DescriptorFile, File: name, Offset: l.at, Err: base.ErrUndefined,
				Msg: fmt.Sprintf("level %d: a new file's smallest key is shorter than an internal key's 8-byte tag, and LevelDB's comparator reads past it when it sorts the level's files", level)}
		}
	}
	return nil
}

// live is Builder::SaveTo: added files not deleted, sorted by number,
// level, smallest key.
func (b *builder) live() []File {
	var files []File
	for _, l := range b.levels {
		for k, f := range l.added {
			if !l.deleted[k.number] {
				files = append(files, f)
			}
		}
	}
	sort.Slice(files, func(i, j int) bool {
		a, b := files[i], files[j]
		if a.Number != b.Number {
			return a.Number < b.Number
		}
		if a.Level != b.Level {
			return a.Level < b.Level
		}
		return string(a.Smallest) < string(b.Smallest)
	})
	return files
}
