package kit

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// tableSource gives upstream's tables and reads: live, or the golden vectors.
type tableSource struct {
	live bool
	vs   *cases.TableVectors
}

// newTableSource loads the table vectors, or says why it cannot.
func newTableSource(cfg kitConfig) (tableSource, error) {
	if cfg.live {
		return tableSource{live: true}, nil
	}
	vs, err := cases.LoadTableVectors(ldbcompat.TestData, cases.VectorDir)
	return tableSource{vs: vs}, err
}

// table returns the table upstream writes for c.
func (s tableSource) table(c cases.TableCase) ([]byte, error) {
	if s.live {
		return liveTable(c)
	}
	return s.vs.Table(c)
}

// damaged returns the damaged table d and what upstream reads of it.
func (s tableSource) damaged(d cases.DamagedTable) ([]byte, cases.TableVerdict, error) {
	if !s.live {
		return s.vs.Damaged(d)
	}
	base, _ := cases.TableCaseNamed(d.Base)
	clean, err := liveTable(base)
	if err != nil {
		return nil, cases.TableVerdict{}, err
	}
	data, err := d.Damage.Apply(clean)
	if err != nil {
		return nil, cases.TableVerdict{}, err
	}
	entries, status, err := liveRead(data, base.BitsPerKey)
	return data, cases.NewTableVerdict(status, entries), err
}

// judge reads the port's table as upstream does; who names the reader.
func (s tableSource) judge(data []byte, bits int) (entries [][2][]byte, status, who string, err error) {
	// internal/table first: upstream must not be given undefined tables.
	entries, status, err = cases.RefRead(data)
	who = "internal/table's reader (following upstream's table.cc, checksums verified)"
	if err != nil || !s.live {
		return entries, status, who, err
	}
	entries, status, err = liveRead(data, bits)
	return entries, status, "upstream's Table (paranoid_checks, verify_checksums)", err
}

func tableOptions(c cases.TableCase) TableOptions {
	return TableOptions{BlockSize: c.BlockSize, RestartInterval: c.RestartInterval, Snappy: c.Snappy, BitsPerKey: c.BitsPerKey}
}

func tableEntries(c cases.TableCase) []Entry {
	out := make([]Entry, len(c.Keys))
	for i := range c.Keys {
		out[i] = Entry{Key: append([]byte(nil), c.Keys[i]...), Value: append([]byte(nil), c.Values[i]...)}
	}
	return out
}

func reproWriteTable(c cases.TableCase) string {
	o := tableOptions(c)
	return fmt.Sprintf("WriteTable(compat.CaseEntries(%q), compat.TableOptions{BlockSize: %d, RestartInterval: %d, Snappy: %v, BitsPerKey: %d})",
		c.Name, o.BlockSize, o.RestartInterval, o.Snappy, o.BitsPerKey)
}

func reproReadTable(name string) string {
	return fmt.Sprintf("ReadTable(compat.CaseTable(%q))", name)
}

// eachTable calls fn with upstream's table for each table case; a table it
// cannot get is a suite error and, with uncompared, a case of prop not
// compared. src is nil when the table vectors do not load.
func eachTable(cfg kitConfig, res *results, prop Property, uncompared bool, fn func(src tableSource, c cases.TableCase, data []byte)) *tableSource {
	src, err := newTableSource(cfg)
	if err != nil {
		res.suiteError(err.Error())
		return nil
	}
	for _, c := range cases.TableCases() {
		data, err := src.table(c)
		if err != nil {
			if uncompared && errors.Is(err, cases.ErrNotRecovered) {
				res.cannotCompare(prop, c.Name)
			}
			res.suiteError(err.Error())
			continue
		}
		fn(src, c, data)
	}
	return &src
}

func checkTableBytes(p Port, cfg kitConfig, res *results) {
	eachTable(cfg, res, PropTableBytes, true, func(src tableSource, c cases.TableCase, want []byte) {
		res.compare(PropTableBytes, c.Name)
		repro := reproWriteTable(c)
		res.guard(PropTableBytes, c.Name, repro, func() {
			got, err := p.WriteTable(tableEntries(c), tableOptions(c))
			if err != nil {
				res.fail(failure(PropTableBytes, c.Name, kindTableFails, "WriteTable fails: "+err.Error(), repro))
				return
			}
			diff := diffTables(want, got, c.Snappy)
			if diff == "" && !c.Snappy {
				return
			}
			k, verdict := judgeTable(src, c, got)
			switch {
			case diff == "" && k == kindTableLayout:
				return
			case diff == "":
				diff = "the blocks after decompression are upstream's"
			}
			res.fail(failure(PropTableBytes, c.Name, k, diff+"\n    "+verdict, repro))
		})
	})
}

// judgeTable reads the port's table in a scan and by lookups; it returns
// kindTableLayout when both read every entry right.
func judgeTable(src tableSource, c cases.TableCase, got []byte) (failureKind, string) {
	entries, status, who, err := src.judge(got, c.BitsPerKey)
	if err != nil {
		return kindTableBytes, fmt.Sprintf("whether upstream reads the port's table was not judged: %v", err)
	}
	if status != "" {
		return kindTableRefused, fmt.Sprintf("%s reports %q (after %s of %d)", who, status, plural.Count(len(entries), "entry"), len(c.Keys))
	}
	if i, d := compareEntries(c, entries); d != "" {
		k := kindTableWrong
		if len(entries) < len(c.Keys) && i == len(entries) {
			k = kindTableMissing
		}
		return k, fmt.Sprintf("%s reads it: %s", who, d)
	}
	// A scan reads neither the filter nor the separators: look keys up too.
	if k, d := src.judgeLookups(c, got); k != kindTableLayout {
		return k, d
	}
	return kindTableLayout, fmt.Sprintf("%s reads every entry of the port's table right, and its lookups find every key", who)
}

// compareEntries describes the first difference of got from c, at i.
func compareEntries(c cases.TableCase, got [][2][]byte) (int, string) {
	for i := 0; i < len(got) && i < len(c.Keys); i++ {
		if !bytes.Equal(got[i][0], c.Keys[i]) || !bytes.Equal(got[i][1], c.Values[i]) {
			return i, fmt.Sprintf("entry %d is key %s value %s, written as key %s value %s", i, shortHex(got[i][0]), shortHex(got[i][1]), shortHex(c.Keys[i]), shortHex(c.Values[i]))
		}
	}
	switch {
	case len(got) < len(c.Keys):
		return len(got), fmt.Sprintf("%s of %d, the first missing key %s", plural.Count(len(got), "entry"), len(c.Keys), shortHex(c.Keys[len(got)]))
	case len(got) > len(c.Keys):
		return len(c.Keys), fmt.Sprintf("%d entries where %d were written, the first extra key %s", len(got), len(c.Keys), shortHex(got[len(c.Keys)][0]))
	}
	return 0, ""
}

func checkReadTable(p Port, cfg kitConfig, res *results) {
	src := eachTable(cfg, res, PropReadTable, false, func(_ tableSource, c cases.TableCase, data []byte) {
		res.compare(PropReadTable, c.Name)
		readClean(p, c, c.Name, data, "", res)
	})
	if src == nil {
		return
	}
	for _, d := range cases.DamagedTables() {
		data, v, err := src.damaged(d)
		if err != nil {
			res.suiteError(err.Error())
			continue
		}
		base, _ := cases.TableCaseNamed(d.Base)
		res.compare(PropReadTable, d.Name)
		if v.Status == "" {
			// Upstream reads past this damage: the port must too.
			readClean(p, base, d.Name, data, " (damaged where upstream, checksums verified, still reads every entry)", res)
			continue
		}
		readDamaged(p, base, d.Name, data, v, res)
	}
}

// readClean checks that the port reads every entry of upstream's table.
func readClean(p Port, c cases.TableCase, name string, data []byte, note string, res *results) {
	repro := reproReadTable(name)
	res.guard(PropReadTable, name, repro, func() {
		got, err := p.ReadTable(data)
		i, d := compareEntries(c, portEntries(got))
		switch {
		case d != "" && (i < len(got) || len(got) > len(c.Keys)):
			res.fail(failure(PropReadTable, name, kindReadTableWrong, "the port's reader on upstream's table"+note+": "+d, repro))
		case err != nil:
			res.fail(failure(PropReadTable, name, kindReadTableFails, fmt.Sprintf("ReadTable fails on upstream's table%s after %s of %d: %v", note, plural.Count(len(got), "entry"), len(c.Keys), err), repro))
		case d != "":
			res.fail(failure(PropReadTable, name, kindReadTableMissing, "the port's reader on upstream's table"+note+": "+d, repro))
		}
	})
}

// readDamaged checks that the port returns only entries upstream wrote.
func readDamaged(p Port, c cases.TableCase, name string, data []byte, v cases.TableVerdict, res *results) {
	repro := reproReadTable(name)
	written := map[string]bool{}
	for i := range c.Keys {
		written[string(c.Keys[i])+"\x00"+string(c.Values[i])] = true
	}
	res.guard(PropReadTable, name, repro, func() {
		got, _ := p.ReadTable(data)
		for i, e := range got {
			if !written[string(e.Key)+"\x00"+string(e.Value)] {
				res.fail(failure(PropReadTable, name, kindDamagedTableWrong, fmt.Sprintf("upstream reports the damaged table %q (returning %d of its %d entries); the port returns entry %d, key %s value %s, which upstream never wrote", v.Status, v.Entries, len(c.Keys), i, shortHex(e.Key), shortHex(e.Value)), repro))
				return
			}
		}
	})
}

func portEntries(es []Entry) [][2][]byte {
	out := make([][2][]byte, len(es))
	for i, e := range es {
		out[i] = [2][]byte{e.Key, e.Value}
	}
	return out
}

// CaseEntries returns the entries the kit gives WriteTable in case name.
func CaseEntries(name string) []Entry {
	c, ok := cases.TableCaseNamed(name)
	if !ok {
		panic(noCase(name))
	}
	return tableEntries(c)
}

// CaseTable returns upstream's table of case name, or its damaged copy.
func CaseTable(name string) []byte {
	vs, err := cases.LoadTableVectors(ldbcompat.TestData, cases.VectorDir)
	if err != nil {
		panic(err)
	}
	var data []byte
	if c, ok := cases.TableCaseNamed(name); ok {
		data, err = vs.Table(c)
	} else if d, ok := cases.DamagedTableNamed(name); ok {
		data, _, err = vs.Damaged(d)
	} else {
		panic(noCase(name))
	}
	if err != nil {
		panic(err)
	}
	return data
}
