package adapt

import (
	"bytes"
	"fmt"
	"io/fs"
	"sort"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// Committed returns the databases upstream LevelDB wrote that ldbcompat
// embeds (testdata/tables), sorted by name.
func Committed() ([]fixtures.DB, error) {
	sub, err := fs.Sub(ldbcompat.TestData, "testdata/tables")
	if err != nil {
		return nil, err
	}
	return fixtures.Load(sub)
}

// LiveKeys returns the user keys of a database whose log is empty whose
// newest version, over all its table files (*.ldb, *.sst), is a value,
// sorted: the keys a Get finds, as upstream reads the tables (package
// internal/table, which is upstream's reader in Go).
func LiveKeys(fsys fs.FS) ([][]byte, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		return nil, err
	}
	type version struct {
		seq  uint64
		live bool
	}
	newest := map[string]version{}
	for _, e := range ents {
		n := e.Name()
		if _, typ, _ := base.ParseFileName(n); typ == base.LogFile {
			if info, err := e.Info(); err != nil || info.Size() != 0 {
				return nil, fmt.Errorf("log %s is not empty", n)
			}
		}
		if !base.HasTableExt(n) {
			continue
		}
		data, err := fs.ReadFile(fsys, n)
		if err != nil {
			return nil, err
		}
		t, err := table.Open(n, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, err
		}
		err = t.DataBlocks(func(b *table.DataBlock) error {
			for _, x := range b.Entries {
				if v, ok := newest[string(x.Key.UserKey)]; !ok || x.Key.Seq > v.seq {
					newest[string(x.Key.UserKey)] = version{x.Key.Seq, x.Key.Kind == table.KindValue}
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	var out [][]byte
	for k, v := range newest {
		if v.live {
			out = append(out, []byte(k))
		}
	}
	sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i], out[j]) < 0 })
	return out, nil
}
