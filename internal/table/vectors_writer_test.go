package table_test

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/klauspost/compress/snappy"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// upstreamTables reads upstream's table vectors: the record of each
// table case by name.
func upstreamTables(t *testing.T) map[string]cases.Record {
	t.Helper()
	data, err := fs.ReadFile(ldbcompat.TestData, path.Join(cases.VectorDir, cases.TableVectorFile))
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]cases.Record{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "table ") {
			continue
		}
		r, err := cases.ParseRecord(line)
		if err != nil {
			t.Fatal(err)
		}
		recs[r.Name] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// writeVectorCase writes c with NewWriter, as leveldb::TableBuilder would with
// c's options.
func writeVectorCase(t *testing.T, c cases.TableCase) []byte {
	t.Helper()
	var p bloom.FilterPolicy
	if c.BitsPerKey > 0 {
		p = bloom.NewPolicy(c.BitsPerKey)
	}
	return writeTableCase(t, c, p)
}

// writeTableCase writes c with NewWriter and the filter policy p.
func writeTableCase(t *testing.T, c cases.TableCase, p bloom.FilterPolicy) []byte {
	t.Helper()
	w, err := table.NewWriter(table.WriterOptions{BlockSize: c.BlockSize, RestartInterval: c.RestartInterval, Snappy: c.Snappy, Policy: p})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Keys {
		if err := w.Add(c.Keys[i], c.Values[i]); err != nil {
			t.Fatalf("%s: entry %d: %v", c.Name, i, err)
		}
	}
	return w.Finish()
}

// TestWriterMatchesUpstreamVectors writes every table case with NewWriter
// and compares it with the table upstream's TableBuilder wrote for it
// (testdata/vectors/table.txt): byte for byte without compression (the
// vectors hold its SHA-256 and length). With snappy, whose encoders
// differ, the decompressed contents and the compression type of every
// data, metaindex and index block and the index's separators must be
// upstream's.
func TestWriterMatchesUpstreamVectors(t *testing.T) {
	recs := upstreamTables(t)
	n := 0
	for _, c := range cases.TableCases() {
		r, ok := recs[c.Name]
		if !ok {
			t.Errorf("%s: no vector", c.Name)
			continue
		}
		if r.In != c.In() {
			t.Errorf("%s: vector's inputs %s, case's %s", c.Name, r.In, c.In())
			continue
		}
		n++
		ours := writeVectorCase(t, c)
		if !c.Snappy {
			if got := cases.EncodeBytes(ours); got != r.Out {
				t.Errorf("%s: wrote %s, upstream %s", c.Name, got, r.Out)
			}
			continue
		}
		theirs, err := hex.DecodeString(r.Out)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		sameBlocks(t, c.Name, ours, theirs)
	}
	if n < 40 {
		t.Errorf("only %d table cases have vectors", n)
	}
}

// sameBlocks compares two tables block by block after decompression:
// handles differ with the compressed sizes, so index values and the
// metaindex's filter handle are left out (the filter block itself is
// compared without compression above).
func sameBlocks(t *testing.T, name string, ours, theirs []byte) {
	t.Helper()
	open := func(who string, data []byte) *table.Table {
		tb, err := table.OpenBytes(who, data, int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %s: %v", name, who, err)
		}
		return tb
	}
	to, tt := open("ours", ours), open("upstream", theirs)
	block := func(tb *table.Table, h table.BlockHandle, what string) *table.Block {
		b, err := tb.ReadBlock(h, what)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b
	}
	io, it := to.Index(), tt.Index()
	if len(io) != len(it) {
		t.Fatalf("%s: %d data blocks, upstream %d", name, len(io), len(it))
	}
	for i := range io {
		if !bytes.Equal(io[i].Separator, it[i].Separator) {
			t.Errorf("%s: block %d separator %x, upstream %x", name, i, io[i].Separator, it[i].Separator)
		}
		bo, bt := block(to, io[i].Handle, "data block"), block(tt, it[i].Handle, "data block")
		if bo.Compression != bt.Compression || !bytes.Equal(bo.Contents, bt.Contents) {
			t.Errorf("%s: data block %d (type %d) differs from upstream's (type %d)", name, i, bo.Compression, bt.Compression)
		}
	}
	// The metaindex and index blocks hold handles, so their contents and
	// what snappy makes of them may differ; each block of both tables
	// must follow table_builder.cc's rule: stored compressed exactly when
	// the encoder's output is shorter than raw - raw/8 (for upstream's
	// tables, only the compressed side can be checked).
	for _, tb := range []struct {
		who  string
		tb   *table.Table
		data []byte
	}{{"ours", to, ours}, {"upstream", tt, theirs}} {
		hs := []table.BlockHandle{tb.tb.MetaindexHandle(), tb.tb.IndexHandle()}
		for _, e := range tb.tb.Index() {
			hs = append(hs, e.Handle)
		}
		for _, h := range hs {
			b := block(tb.tb, h, "block")
			raw := len(b.Contents)
			switch {
			case b.Compression == table.SnappyCompression && int(h.Size) >= raw-raw/8:
				t.Errorf("%s: %s: block %v compressed from %d bytes saves under an eighth", name, tb.who, h, raw)
			case tb.who == "ours" && b.Compression == table.NoCompression && len(snappy.Encode(nil, b.Contents)) < raw-raw/8:
				t.Errorf("%s: %s: block %v of %d bytes stored raw, snappy saves an eighth", name, tb.who, h, raw)
			}
		}
	}
	if len(to.Metaindex()) != len(tt.Metaindex()) {
		t.Errorf("%s: %d metaindex entries, upstream %d", name, len(to.Metaindex()), len(tt.Metaindex()))
	}
	if len(ours)-int(to.IndexHandle().End()) != table.FooterSize {
		t.Errorf("%s: footer of %d bytes", name, len(ours)-int(to.IndexHandle().End()))
	}
}
