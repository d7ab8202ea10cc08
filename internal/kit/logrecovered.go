package kit

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// The crash copy keeps LOCK, as a crash leaves it, and holds what the port
// handed the OS: its own buffers are lost, unsynced writes are not.

// checkLogRecovered runs PropLogRecovered on p into res.
func checkLogRecovered(p Port, cfg kitConfig, res *results) {
	eachCaseDir(res, cases.SyncedCases(), func(c cases.SyncedCase, tmp, dir string) {
		write := fmt.Sprintf("dir := t.TempDir(); closeDB, err := WriteSynced(dir, compat.CaseKVs(%q))", c.Name)
		verify := "; go run github.com/ldbcompat/ldbcompat/cmd/ldbcompat verify dir"
		openName, closedName := c.Name+", copied while open", c.Name+", closed"
		res.compare(PropLogRecovered, openName)
		var closeDB func() error
		res.guard(PropLogRecovered, openName, write, func() {
			cl, err := p.WriteSynced(dir, c.KVs)
			switch {
			case err != nil:
				res.fail(failure(PropLogRecovered, openName, kindSyncedFails, "port cannot put the synced writes: "+scrub(err, dir), write))
			case cl == nil:
				res.fail(failure(PropLogRecovered, openName, kindSyncedFails, "WriteSynced returned no closeDB", write))
			default:
				closeDB = cl
			}
		})
		if closeDB == nil {
			return
		}
		crash := dir + "-crash"
		if err := fixtures.CopyDir(crash, os.DirFS(dir)); err != nil {
			res.suiteError(fmt.Sprintf("copying the open database: %v", err))
		} else {
			judgeSynced(c, crash, "the copy of the directory taken while the port's database was open", openName, write+verify, cfg, res)
		}
		res.compare(PropLogRecovered, closedName)
		closed := false
		closeRepro := write + "; closeDB()"
		res.guard(PropLogRecovered, closedName, closeRepro, func() {
			if err := closeDB(); err != nil {
				res.fail(failure(PropLogRecovered, closedName, kindSyncedFails, "port cannot close the database after the synced writes: "+scrub(err, dir), closeRepro))
				return
			}
			closed = true
		})
		if closed {
			judgeSynced(c, dir, "the directory the port closed", closedName, closeRepro+verify, cfg, res)
		}
	})
}

// judgeSynced has upstream (live or modelled) open dir, left after c's
// writes, with defaults and with paranoid_checks; each must find them all.
func judgeSynced(c cases.SyncedCase, dir, what, name, repro string, cfg kitConfig, res *results) {
	judge := openModel
	if cfg.live {
		judge = openLive
	}
	type verdict struct {
		text string
		kind failureKind
		key  []byte
	}
	var verdicts [2]*verdict // under the defaults, then paranoid_checks
	for i, paranoid := range []bool{false, true} {
		got, err := openUpstream(dir, paranoid, cfg.live)
		if err != nil {
			verdicts[i] = &verdict{"cannot open it: " + scrub(err, dir), kindSyncedOpen, nil}
			continue
		}
		if d := diffKVs(c.KVs, got); !d.empty() {
			verdicts[i] = &verdict{d.describe("the port synced"), d.kind(kindSyncedMissing, kindSyncedWrong), d.firstKey()}
		}
	}
	modes := []string{"LevelDB's defaults", "paranoid_checks"}
	if def, par := verdicts[0], verdicts[1]; def != nil && par != nil && def.text == par.text {
		verdicts[1], modes[0] = nil, "LevelDB's defaults, and paranoid_checks too"
	}
	var problems []string
	var kind failureKind
	var first []byte
	for i, v := range verdicts {
		if v == nil {
			continue
		}
		problems = append(problems, fmt.Sprintf("upstream opening %s (%s) %s", what, modes[i], v.text))
		if len(problems) == 1 || v.kind.severity() < kind.severity() {
			kind = v.kind
		}
		if first == nil {
			first = v.key
		}
	}
	if len(problems) == 0 {
		return
	}
	if first != nil {
		repro += fmt.Sprintf("; then upstream's DB::Get of compat.HexBytes(%q)", hex.EncodeToString(first))
	}
	res.fail(failure(PropLogRecovered, name, kind, "judged by "+judge+": "+strings.Join(problems, "; "), repro))
}

// openUpstream returns what DB::Open finds in dir: live on a copy (it
// writes), else modelOpen.
func openUpstream(dir string, paranoid, live bool) ([]kv, error) {
	if !live {
		return modelOpen(dir, paranoid)
	}
	var got []kv
	err := inCopy(os.DirFS(dir), func(cp string) (err error) {
		if got, err = liveOpen(cp, paranoid); err != nil {
			return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), cp, dir))
		}
		return nil
	})
	return got, err
}

// kvDiff is how the keys and values a database holds differ from the
// writes put into it.
type kvDiff struct {
	want                  int
	missing, wrong, extra [][]byte // keys, in order
}

// diffKVs compares got, a database's contents, with want, the distinct
// keys written with their values.
func diffKVs(want [][2][]byte, got []kv) kvDiff {
	d := kvDiff{want: len(want)}
	have := make(map[string][]byte, len(got))
	for _, e := range got {
		have[string(e.key)] = e.value
	}
	wanted := make(map[string]bool, len(want))
	for _, w := range want {
		wanted[string(w[0])] = true
		v, ok := have[string(w[0])]
		switch {
		case !ok:
			d.missing = append(d.missing, w[0])
		case !bytes.Equal(v, w[1]):
			d.wrong = append(d.wrong, w[0])
		}
	}
	for _, e := range got {
		if !wanted[string(e.key)] {
			d.extra = append(d.extra, e.key)
		}
	}
	for _, l := range [][][]byte{d.missing, d.wrong, d.extra} {
		sort.Slice(l, func(i, j int) bool { return bytes.Compare(l[i], l[j]) < 0 })
	}
	return d
}

func (d kvDiff) empty() bool { return len(d.missing)+len(d.wrong)+len(d.extra) == 0 }

// describe says how d differs: misses, other values, extra keys, each
// with its first key; written says who wrote the keys.
func (d kvDiff) describe(written string) string {
	var parts []string
	if n := len(d.missing); n > 0 {
		parts = append(parts, fmt.Sprintf("misses %d of the %s %s (first: key %x)", n, plural.Count(d.want, "key"), written, d.missing[0]))
	}
	if n := len(d.wrong); n > 0 {
		parts = append(parts, fmt.Sprintf("returns another value for %s (first: key %x)", plural.Count(n, "key"), d.wrong[0]))
	}
	if n := len(d.extra); n > 0 {
		parts = append(parts, fmt.Sprintf("finds %s never written (first: key %x)", plural.Count(n, "key"), d.extra[0]))
	}
	return strings.Join(parts, ", ")
}

// kind is missing when d misses keys, else wrong.
func (d kvDiff) kind(missing, wrong failureKind) failureKind {
	if len(d.missing) > 0 {
		return missing
	}
	return wrong
}

// firstKey is the key a reproducer asks of upstream: the first missing,
// else the first with another value, else the first extra one.
func (d kvDiff) firstKey() []byte {
	for _, l := range [][][]byte{d.missing, d.wrong, d.extra} {
		if len(l) > 0 {
			return l[0]
		}
	}
	return nil
}
