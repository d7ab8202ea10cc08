package cases

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// The log cases' golden vectors, testdata/vectors/log.txt: one record a
// case,
//
//	log name in out ans
//
// in the fingerprint of the records and edits (LogCase.In), out
// upstream's clean log (EncodeBytes: mostly a digest, which
// logfile.WriteLog recovers), ans the records upstream's log::Reader
// (checksums verified) returns from the case's log, damaged or not
// (EncodeRecords).

// LogVectorFile is the name of the log cases' vector file in VectorDir.
const LogVectorFile = "log.txt"

// RecordLogVectors runs every case of LogCases on an implementation,
// write writing a new log of records and read returning the records its
// reader returns from a log, and returns the vector file's contents.
func RecordLogVectors(write func([][]byte) []byte, read func([]byte) ([][]byte, error), prov Provenance) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(prov.header("log"))
	b.WriteString("# log: out is the clean log; ans the count of records log::Reader returns from the case's log and their fingerprint\n")
	for _, c := range LogCases() {
		log := write(c.Records)
		data, err := c.Damage(log)
		if err != nil {
			return nil, err
		}
		recs, err := read(data)
		if err != nil {
			return nil, fmt.Errorf("log case %q: %w", c.Name, err)
		}
		fmt.Fprintln(&b, Record{"log", c.Name, c.In(), EncodeBytes(log), EncodeRecords(recs)})
	}
	return b.Bytes(), nil
}

// LogVectors are the parsed log vectors, by case name.
type LogVectors map[string]Record

// LoadLogVectors reads the log vector file in dir of fsys.
func LoadLogVectors(fsys fs.FS, dir string) (LogVectors, error) {
	name := path.Join(dir, LogVectorFile)
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("golden vectors: %w", err)
	}
	out := LogVectors{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		t := sc.Text()
		if strings.HasPrefix(t, "#") || strings.TrimSpace(t) == "" {
			continue
		}
		r, err := ParseRecord(t)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if r.Kind != "log" {
			return nil, fmt.Errorf("%s:%d: a %s record in the log file", name, line, r.Kind)
		}
		out[r.Name] = r
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// Lookup returns the record of c, which must hold c's inputs.
func (v LogVectors) Lookup(c LogCase) (Record, error) {
	r, ok := v[c.Name]
	if !ok {
		return r, fmt.Errorf("golden vectors have no log case %q: regenerate them with `make vectors`", c.Name)
	}
	if in := c.In(); r.In != in {
		return r, fmt.Errorf("golden vectors' log case %q has other inputs (fingerprint %s, cases now %s): regenerate them with `make vectors`", c.Name, r.In, in)
	}
	return r, nil
}

// Upstream returns upstream's clean log of c: candidate, the log a
// reference writer wrote, when its digest is the one recorded; else nil.
func (v LogVectors) Upstream(r Record, candidate []byte) []byte {
	if r.Out == "" {
		if len(candidate) == 0 {
			return []byte{}
		}
		return nil
	}
	return raw(r.Out, candidate)
}
