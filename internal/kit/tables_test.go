package kit

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/crc"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
)

// refWriteTable is a correct WriteTable: internal/table's writer, which
// follows upstream's table_builder.cc.
func refWriteTable(entries []Entry, o TableOptions) ([]byte, error) {
	var p bloom.FilterPolicy
	if o.BitsPerKey > 0 {
		p = bloom.NewPolicy(o.BitsPerKey)
	}
	return writeWithPolicy(entries, o, p)
}

// writeWithPolicy is refWriteTable with filter policy p (none when nil).
func writeWithPolicy(entries []Entry, o TableOptions, p bloom.FilterPolicy) ([]byte, error) {
	w, err := table.NewWriter(table.WriterOptions{BlockSize: o.BlockSize, RestartInterval: o.RestartInterval, Snappy: o.Snappy, Policy: p})
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := w.Add(e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	return w.Finish(), nil
}

// refReadTable is a correct ReadTable: internal/table's reader with
// checksums verified.
func refReadTable(contents []byte) ([]Entry, error) { return readTableWith(contents, table.Options{}) }

// readTableWith reads every entry of a table with internal/table's
// reader under o.
func readTableWith(contents []byte, o table.Options) ([]Entry, error) {
	t, err := table.OpenBytesWith("table", contents, int64(len(contents)), o)
	if err != nil {
		return nil, err
	}
	var out []Entry
	err = t.Scan(func(e table.ScanEntry) error {
		out = append(out, Entry{Key: append([]byte(nil), e.Key...), Value: append([]byte(nil), e.Value...)})
		return nil
	})
	return out, err
}

// withTableHooks gives p the correct table writer and reader.
func withTableHooks(p Port) Port {
	p.WriteTable, p.ReadTable = refWriteTable, refReadTable
	return p
}

// tableOnly is a port with only the table hooks (and the required
// NewPolicy) set.
func tableOnly(write func([]Entry, TableOptions) ([]byte, error), read func([]byte) ([]Entry, error)) Port {
	return Port{Name: "tables", NewPolicy: bloom.NewPolicy, WriteTable: write, ReadTable: read}
}

func checkTableHooks(p Port) Report {
	return check(p, kitConfig{live: Live, endToEndOnly: true})
}

// TestTablePortPasses: the correct writer and reader pass both table
// properties, every case compared.
func TestTablePortPasses(t *testing.T) {
	r := checkTableHooks(tableOnly(refWriteTable, refReadTable))
	for _, prop := range []Property{PropTableBytes, PropReadTable} {
		res, _ := r.Result(prop)
		if res.Outcome != Pass || res.Cases < 40 {
			t.Errorf("%s: %s with %d cases:\n%s", prop, res.Outcome, res.Cases, r)
		}
	}
	if len(r.Errors) > 0 {
		t.Errorf("suite errors: %v", r.Errors)
	}
}

// writerCase is a broken table writer and the failure it must cause.
type writerCase struct {
	name   string
	write  func([]Entry, TableOptions) ([]byte, error)
	kind   failureKind
	harm   Harm
	detail []string // in the first failure's detail
}

// TestTableWritersCaught: broken writers are caught, each with the harm
// upstream's reading of its tables shows.
func TestTableWritersCaught(t *testing.T) {
	for _, c := range []writerCase{
		{"restart every 15 entries instead of 16", func(es []Entry, o TableOptions) ([]byte, error) {
			if o.RestartInterval == 16 {
				o.RestartInterval = 15
			}
			return refWriteTable(es, o)
		}, kindTableLayout, HarmBytesOnly, []string{"entry 15 (key"}},
		{"index separators not shortened", func(es []Entry, o TableOptions) ([]byte, error) {
			return unshortened(refWriteTable(es, o))
		}, kindTableLayout, HarmBytesOnly, []string{"index separator"}},
		{"block CRCs unmasked", func(es []Entry, o TableOptions) ([]byte, error) {
			return unmasked(refWriteTable(es, o))
		}, kindTableRefused, HarmFails, []string{"checksum"}},
		{"an extra meta block", func(es []Entry, o TableOptions) ([]byte, error) {
			return extraMeta(refWriteTable(es, o))
		}, kindTableLayout, HarmBytesOnly, []string{"extra entry"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := checkTableHooks(tableOnly(c.write, nil))
			res, _ := r.Result(PropTableBytes)
			if res.Outcome != Fail {
				t.Fatalf("%s, want fail:\n%s", res.Outcome, r)
			}
			f := res.Failures[0]
			if f.Harm != c.harm || f.Effect != c.kind.effect() || !strings.Contains(f.Detail, c.detail[0]) {
				t.Errorf("first failure: harm %v, want %v; effect %q; detail lacks %q:\n%s", f.Harm, c.harm, f.Effect, c.detail[0], f)
			}
			if !strings.Contains(f.Repro, "WriteTable(compat.CaseEntries(") {
				t.Errorf("reproducer %q", f.Repro)
			}
			for _, g := range res.Failures {
				if g.Harm != c.harm {
					t.Errorf("%s: harm %v, want %v: %s", g.Case, g.Harm, c.harm, g.Detail)
					break
				}
			}
			t.Logf("%s\n%s", f, res.Effect)
		})
	}
}

// TestTableReadersCaught: a reader that returns entries of blocks whose
// checksum fails (upstream drops them) is caught on damaged tables, one
// that refuses a table whose filter block is damaged fails where
// upstream reads every entry, and one that drops the last entry misses
// entries.
func TestTableReadersCaught(t *testing.T) {
	for _, c := range []struct {
		name string
		read func([]byte) ([]Entry, error)
		kind failureKind
	}{
		{"no checksums", func(b []byte) ([]Entry, error) {
			return readTableWith(b, table.Options{SkipChecksums: true})
		}, kindDamagedTableWrong},
		{"drops the last entry", func(b []byte) ([]Entry, error) {
			es, err := refReadTable(b)
			if len(es) > 0 {
				es = es[:len(es)-1]
			}
			return es, err
		}, kindReadTableMissing},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, _ := checkTableHooks(tableOnly(nil, c.read)).Result(PropReadTable)
			found := false
			for _, f := range res.Failures {
				found = found || f.Effect == c.kind.effect()
			}
			if res.Outcome != Fail || !found {
				t.Fatalf("%s, want a failure of effect %q: %v", res.Outcome, c.kind.effect(), res.Failures)
			}
		})
	}
}

// unshortened rewrites a table's index block keyed by each data block's
// last key, as a writer that does not call FindShortestSeparator does.
func unshortened(data []byte, err error) ([]byte, error) {
	return reindexed(data, err, func(es []blockEntry) []byte { return es[len(es)-1].key })
}

// reindexed rewrites a table's index block keyed by sep of each data
// block's entries.
func reindexed(data []byte, err error, sep func([]blockEntry) []byte) ([]byte, error) {
	l, err := layoutOf(data, err)
	if err != nil {
		return nil, err
	}
	var index []tabletest.KV
	for i := 0; i < l.nData; i++ {
		b := l.block("data", i)
		es, _, _ := parseBlock(b.contents)
		index = append(index, tabletest.KV{Key: sep(es), Value: table.AppendBlockHandle(nil, b.h)})
	}
	ih := l.block("index", 0).h
	out, nih := tabletest.AppendBlock(append([]byte(nil), data[:ih.Offset]...), tabletest.EncodeBlock(index, 1), table.NoCompression)
	return tabletest.AppendFooter(out, l.block("metaindex", 0).h, nih), nil
}

// layoutOf parses the layout of data, a table written with error err.
func layoutOf(data []byte, err error) (*layout, error) {
	if err != nil {
		return nil, err
	}
	return parseLayout(data)
}

// unmasked stores every block's CRC-32C without Mask.
func unmasked(data []byte, err error) ([]byte, error) {
	l, err := layoutOf(data, err)
	if err != nil {
		return nil, err
	}
	for _, b := range l.blocks {
		p := b.h.Offset + b.h.Size + 1
		binary.LittleEndian.PutUint32(data[p:], crc.Unmask(binary.LittleEndian.Uint32(data[p:])))
	}
	return data, nil
}

// extraMeta adds a meta block that upstream does not know to the
// metaindex.
func extraMeta(data []byte, err error) ([]byte, error) {
	l, err := layoutOf(data, err)
	if err != nil {
		return nil, err
	}
	mh := l.block("metaindex", 0).h
	out := append([]byte(nil), data[:mh.Offset]...)
	out, xh := tabletest.AppendBlock(out, []byte("stats"), table.NoCompression)
	metaEntries, _, _ := parseBlock(l.block("metaindex", 0).contents)
	var meta []tabletest.KV
	for _, e := range metaEntries {
		meta = append(meta, tabletest.KV{Key: e.key, Value: e.value})
	}
	meta = append(meta, tabletest.KV{Key: []byte("zz.stats"), Value: table.AppendBlockHandle(nil, xh)})
	out, nmh := tabletest.AppendBlock(out, tabletest.EncodeBlock(meta, 16), table.NoCompression)
	ib := l.block("index", 0)
	out, nih := tabletest.AppendBlock(out, data[ib.h.Offset:ib.h.Offset+ib.h.Size], data[ib.h.Offset+ib.h.Size])
	return tabletest.AppendFooter(out, nmh, nih), nil
}
