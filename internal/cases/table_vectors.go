package cases

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path"
	"strings"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/table"
)

// The table vectors (table.txt) hold upstream's table of each case, as a
// digest RefTable recovers or, with snappy (whose encoders differ), whole;
// and for each damaged table, upstream's status (URL-escaped) and the
// entries it returned (count:EntriesDigest).

// TableVectorFile is the table vectors' file name under VectorDir.
const TableVectorFile = "table.txt"

// TableVerdict is what a reader makes of a table: its status ("" when
// it read the table without an error) and the entries it returned.
type TableVerdict struct {
	Status  string
	Entries int
	Digest  string // EntriesDigest of the entries
}

// EntriesDigest is 16 hex digits of SHA-256 over the entries, each key and
// value length-prefixed.
func EntriesDigest(entries [][2][]byte) string {
	var buf []byte
	for _, e := range entries {
		buf = binary.AppendUvarint(buf, uint64(len(e[0])))
		buf = append(buf, e[0]...)
		buf = binary.AppendUvarint(buf, uint64(len(e[1])))
		buf = append(buf, e[1]...)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:8])
}

// NewTableVerdict makes the verdict of a read.
func NewTableVerdict(status string, entries [][2][]byte) TableVerdict {
	return TableVerdict{Status: status, Entries: len(entries), Digest: EntriesDigest(entries)}
}

// TableRecord is the vector record of case c, whose table upstream wrote
// as data.
func TableRecord(c TableCase, data []byte) Record {
	out := EncodeBytes(data)
	if c.Snappy {
		out = hex.EncodeToString(data)
	}
	return Record{"table", c.Name, c.In(), out, ""}
}

// DamagedRecord is the vector record of d, on whose table upstream's
// reader gave v.
func DamagedRecord(d DamagedTable, base TableCase, v TableVerdict) Record {
	return Record{"tabledamage", d.Name, d.In(base), url.QueryEscape(v.Status), fmt.Sprintf("%d:%s", v.Entries, v.Digest)}
}

// TableVectors are the parsed table vectors.
type TableVectors struct{ recs map[string]Record }

// LoadTableVectors reads dir/TableVectorFile of fsys.
func LoadTableVectors(fsys fs.FS, dir string) (*TableVectors, error) {
	v := &TableVectors{recs: map[string]Record{}}
	if _, err := readRecords(fsys, path.Join(dir, TableVectorFile), "table vectors", "", v.recs); err != nil {
		return nil, err
	}
	return v, nil
}

// ErrNotRecovered says the reference writer does not reproduce a table
// the vectors hold as a digest.
var ErrNotRecovered = errors.New("the vectors hold upstream's table as a digest the reference writer does not reproduce")

// Table returns the table upstream wrote for c.
func (v *TableVectors) Table(c TableCase) ([]byte, error) {
	r, err := lookup(v.recs, "table vectors", "table", c.Name, c.In())
	if err != nil {
		return nil, err
	}
	var cand []byte
	if strings.HasPrefix(r.Out, "sha256:") {
		if cand, err = RefTable(c); err != nil {
			return nil, fmt.Errorf("table case %q: %w", c.Name, err)
		}
	}
	if b := raw(r.Out, cand); b != nil || r.Out == "" {
		return b, nil
	}
	return nil, fmt.Errorf("table case %q: %w", c.Name, ErrNotRecovered)
}

// Damaged returns the damaged table d and upstream's verdict on it.
func (v *TableVectors) Damaged(d DamagedTable) ([]byte, TableVerdict, error) {
	base, ok := TableCaseNamed(d.Base)
	if !ok {
		return nil, TableVerdict{}, fmt.Errorf("damaged table %q: no table case %q", d.Name, d.Base)
	}
	r, err := lookup(v.recs, "table vectors", "tabledamage", d.Name, d.In(base))
	if err != nil {
		return nil, TableVerdict{}, err
	}
	clean, err := v.Table(base)
	if err != nil {
		return nil, TableVerdict{}, err
	}
	data, err := d.Damage.Apply(clean)
	if err != nil {
		return nil, TableVerdict{}, fmt.Errorf("damaged table %q: %w", d.Name, err)
	}
	status, err := url.QueryUnescape(r.Out)
	if err != nil {
		return nil, TableVerdict{}, fmt.Errorf("damaged table %q: status: %w", d.Name, err)
	}
	var n int
	var digest string
	if _, err := fmt.Sscanf(strings.Replace(r.Ans, ":", " ", 1), "%d %s", &n, &digest); err != nil {
		return nil, TableVerdict{}, fmt.Errorf("damaged table %q: entries %q: %w", d.Name, r.Ans, err)
	}
	return data, TableVerdict{Status: status, Entries: n, Digest: digest}, nil
}

// RefTable writes c with this module's reference writer
// (internal/table's Writer, which follows table_builder.cc).
func RefTable(c TableCase) ([]byte, error) {
	o := table.WriterOptions{BlockSize: c.BlockSize, RestartInterval: c.RestartInterval, Snappy: c.Snappy}
	if c.BitsPerKey > 0 {
		o.Policy = bloom.NewPolicy(c.BitsPerKey)
	}
	w, err := table.NewWriter(o)
	if err != nil {
		return nil, err
	}
	for i := range c.Keys {
		if err := w.Add(c.Keys[i], c.Values[i]); err != nil {
			return nil, err
		}
	}
	return w.Finish(), nil
}

// ErrCannotJudge wraps why RefRead cannot say what upstream makes of a
// table: upstream's behaviour is undefined, or internal/table's bound hit.
var ErrCannotJudge = errors.New("internal/table cannot say what upstream makes of the table")

// RefRead reads a whole table file with internal/table (table.cc with
// paranoid_checks and verify_checksums) as upstream's Table::Open and a
// full scan do, and returns the entries and upstream's status.
func RefRead(data []byte) ([][2][]byte, string, error) {
	t, err := table.OpenBytes("table", data, int64(len(data)))
	if err != nil {
		return judged(nil, err)
	}
	var entries [][2][]byte
	err = t.Scan(func(e table.ScanEntry) error {
		entries = append(entries, [2][]byte{append([]byte(nil), e.Key...), append([]byte(nil), e.Value...)})
		return nil
	})
	return judged(entries, err)
}

func judged(entries [][2][]byte, err error) ([][2][]byte, string, error) {
	if err == nil {
		return entries, "", nil
	}
	if base.IsUndefined(err) || errors.Is(err, table.ErrLimit) || base.StatusOf(err) == "" {
		return entries, "", fmt.Errorf("%w: %v", ErrCannotJudge, err)
	}
	return entries, base.StatusOf(err), nil
}
