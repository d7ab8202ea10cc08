package kit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// upstreamLog is a log case as upstream writes and reads it.
type upstreamLog struct {
	c cases.LogCase
	// log is upstream's clean log of c's records, nil when unknown;
	// data is it with c's edits made.
	log, data []byte
	// recs are the records upstream's log::Reader returns from data,
	// at file offsets offs; recsOK tells that they are known.
	recs   [][]byte
	offs   []int64
	recsOK bool
}

// logPrep is the log cases of a tier, made once: they are deterministic.
type logPrep struct {
	logs []upstreamLog
	errs []string // errors of the suite itself
}

// logPreps makes each tier's log cases once, by live.
var logPreps = [2]func() *logPrep{
	sync.OnceValue(func() *logPrep { return prepareLogs(false) }),
	sync.OnceValue(func() *logPrep { return prepareLogs(true) }),
}

// upstreamLogs returns the log cases with upstream's logs and records: from
// the golden vectors (logfile recovers their digests), or live.
func upstreamLogs(live bool, res *results) []upstreamLog {
	i := 0
	if live {
		i = 1
	}
	p := logPreps[i]()
	for _, e := range p.errs {
		res.suiteError(e)
	}
	return p.logs
}

func prepareLogs(live bool) *logPrep {
	p := &logPrep{}
	if live {
		for _, c := range append(cases.LogCases(), cases.LiveLogCases()...) {
			u := upstreamLog{c: c, log: liveWriteLog(c.Records)}
			p.finish(&u, func(data []byte) ([][]byte, []int64, error) { return liveReadLog(data) })
			p.logs = append(p.logs, u)
		}
		return p
	}
	vs, err := cases.LoadLogVectors(ldbcompat.TestData, cases.VectorDir)
	if err != nil {
		p.errs = append(p.errs, err.Error())
		return p
	}
	for _, c := range cases.LogCases() {
		u := upstreamLog{c: c}
		r, err := vs.Lookup(c)
		if err != nil {
			p.errs = append(p.errs, err.Error())
			p.logs = append(p.logs, u)
			continue
		}
		if u.log = vs.Upstream(r, logfile.WriteLog(c.Records)); u.log == nil {
			p.errs = append(p.errs, fmt.Sprintf("log case %q: logfile.WriteLog does not write upstream's log (%s): the kit cannot compare the case", c.Name, r.Out))
			p.logs = append(p.logs, u)
			continue
		}
		p.finish(&u, refReadLog)
		if u.recsOK && cases.EncodeRecords(u.recs) != r.Ans {
			p.errs = append(p.errs, fmt.Sprintf("log case %q: package logfile's reader returns other records (%s) than upstream's log::Reader did (%s): the kit cannot compare ReadLog on the case", c.Name, cases.EncodeRecords(u.recs), r.Ans))
			u.recsOK = false
		}
		p.logs = append(p.logs, u)
	}
	return p
}

// finish damages u's log and reads it with read.
func (p *logPrep) finish(u *upstreamLog, read func([]byte) ([][]byte, []int64, error)) {
	data, err := u.c.Damage(u.log)
	if err != nil {
		p.errs = append(p.errs, err.Error())
		return
	}
	u.data = data
	recs, offs, err := read(data)
	if err != nil {
		p.errs = append(p.errs, fmt.Sprintf("log case %q: reading upstream's log: %v", u.c.Name, err))
		return
	}
	u.recs, u.offs, u.recsOK = recs, offs, true
}

// refReadLog returns the records and offsets package logfile's reader
// (log::Reader, checksums verified) returns from data.
func refReadLog(data []byte) ([][]byte, []int64, error) {
	r := logfile.NewReader(bytes.NewReader(data), "log", logfile.Options{NoDiagnosis: true})
	var recs [][]byte
	var offs []int64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return recs, offs, nil
		}
		if err != nil {
			return recs, offs, err
		}
		recs = append(recs, bytes.Clone(rec.Data))
		offs = append(offs, rec.Offset)
	}
}

// cloneRecords copies recs, so that a port cannot change the kit's.
func cloneRecords(recs [][]byte) [][]byte {
	out := make([][]byte, len(recs))
	for i, r := range recs {
		out[i] = bytes.Clone(r)
		if out[i] == nil {
			out[i] = []byte{}
		}
	}
	return out
}

// checkLogBytes compares the port's logs of the clean cases with upstream's.
func checkLogBytes(p Port, cfg kitConfig, res *results) {
	for _, u := range upstreamLogs(cfg.live, res) {
		if u.c.Damaged() {
			continue
		}
		name := u.c.Name
		if u.log == nil {
			res.cannotCompare(PropLogBytes, name)
			continue
		}
		res.compare(PropLogBytes, name)
		repro := "WriteLog(" + hexList(u.c.Records, fmt.Sprintf("compat.CaseRecords(%q)", name)) + ")"
		res.guard(PropLogBytes, name, repro, func() {
			got, err := p.WriteLog(cloneRecords(u.c.Records))
			if err != nil {
				res.fail(failure(PropLogBytes, name, kindLogFails, fmt.Sprintf("WriteLog of %d records fails: %v", len(u.c.Records), err), repro))
				return
			}
			if bytes.Equal(got, u.log) {
				return
			}
			k, verdict := judgeLog(u.c.Records, got, cfg.live)
			d := whereLogDiffers(u.log, got) + "\n    " + verdict + "\n    " + describeBytes("log", u.log, got)
			res.fail(failure(PropLogBytes, name, k, d, repro))
		})
	}
}

// judgeLog has upstream's reader (live, else package logfile's) read the
// port's log of recs, and returns the failure's kind and detail.
func judgeLog(recs [][]byte, log []byte, live bool) (failureKind, string) {
	reader := "package logfile's reader (which follows upstream's log::Reader, checksums verified)"
	read := refReadLog
	if live {
		reader = "upstream's log::Reader (live, checksums verified)"
		read = liveReadLog
	}
	got, _, err := read(log)
	if err != nil {
		return kindLogBytes, fmt.Sprintf("not judged: %s cannot read the port's log: %v", reader, err)
	}
	d := diffRecords(recs, got, nil, "written")
	switch {
	case d.missing == 0 && d.wrong == 0:
		return kindLogLayout, fmt.Sprintf("harmless: %s reads every record of the port's log right (%d)", reader, len(recs))
	case d.lost():
		return kindLogLost, fmt.Sprintf("%s reads the port's log of %d records wrong: %s", reader, len(recs), d)
	}
	return kindLogWrong, fmt.Sprintf("%s reads the port's log of %d records wrong: %s", reader, len(recs), d)
}

// checkReadLog compares the port's records of upstream's logs with log::Reader's.
func checkReadLog(p Port, cfg kitConfig, res *results) {
	for _, u := range upstreamLogs(cfg.live, res) {
		name := u.c.Name
		if !u.recsOK {
			res.cannotCompare(PropReadLog, name)
			continue
		}
		res.compare(PropReadLog, name)
		repro := "ReadLog(" + hexArg(u.data, fmt.Sprintf("compat.CaseLog(%q)", name)) + ")"
		res.guard(PropReadLog, name, repro, func() {
			got, err := p.ReadLog(bytes.Clone(u.data))
			d := diffRecords(u.recs, got, u.offs, "upstream's reader returns")
			what := fmt.Sprintf("upstream's clean log of %d records (%d bytes)", len(u.c.Records), len(u.data))
			if u.c.Damaged() {
				what = fmt.Sprintf("upstream's log of %d records, damaged (%s; %d bytes), from which upstream's log::Reader returns %d", len(u.c.Records), u.c.What, len(u.data), len(u.recs))
			}
			var k failureKind
			var detail string
			switch {
			case !u.c.Damaged() && err != nil:
				k, detail = kindReadLogFails, fmt.Sprintf("ReadLog fails on %s, after %d records: %v", what, len(got), err)
			case d.lost():
				k, detail = kindReadLogMissing, fmt.Sprintf("on %s, ReadLog returns %d: %s", what, len(got), d)
			case d.wrong > 0:
				k, detail = kindReadLogWrong, fmt.Sprintf("on %s, ReadLog returns %d: %s", what, len(got), d)
			default:
				return
			}
			if err != nil && k != kindReadLogFails {
				detail += fmt.Sprintf("; the port's error: %v", err)
			}
			res.fail(failure(PropReadLog, name, k, detail, repro))
		})
	}
}

// recordDiff is how a reader's records differ from the right ones.
type recordDiff struct {
	missing, wrong int
	first          string // the first difference, in words
}

// lost tells that records are missing beyond altered ones (which count
// once missing and once wrong).
func (d recordDiff) lost() bool { return d.missing > d.wrong }

func (d recordDiff) String() string {
	return fmt.Sprintf("%d missing, %d wrong or extra; first, %s", d.missing, d.wrong, d.first)
}

// diffRecords matches got against want in order: unmatched records of got
// are wrong, of want missing; offs are want's offsets, whose their writer.
func diffRecords(want, got [][]byte, offs []int64, whose string) recordDiff {
	var d recordDiff
	at := func(i int) string {
		s := fmt.Sprintf("record %d of those %s (%d bytes", i, whose, len(want[i]))
		if i < len(offs) {
			s += fmt.Sprintf(", its header at file offset %d", offs[i])
		}
		return s + ")"
	}
	note := func(s string) {
		if d.first == "" {
			d.first = s
		}
	}
	j := 0
	for gi, g := range got {
		k := j
		for k < len(want) && !bytes.Equal(want[k], g) {
			k++
		}
		if k == len(want) {
			d.wrong++
			if j < len(want) {
				note(fmt.Sprintf("the port's record %d (%d bytes) is not %s: %s", gi, len(g), at(j), describeBytes("the record", want[j], g)))
			} else {
				note(fmt.Sprintf("the port's record %d (%d bytes) is extra: there are %d", gi, len(g), len(want)))
			}
			continue
		}
		for ; j < k; j++ {
			d.missing++
			note("missing " + at(j))
		}
		j = k + 1
	}
	for ; j < len(want); j++ {
		d.missing++
		note("missing " + at(j))
	}
	return d
}
