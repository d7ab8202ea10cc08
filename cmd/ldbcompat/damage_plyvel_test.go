package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	fixturespkg "github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/table"
	"github.com/ldbcompat/ldbcompat/internal/table/tabletest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// plyvelDamage writes the databases of the damage table of docs/verify.md
// through plyvel (Debian's C++ LevelDB 1.23), and reads copies back with
// LevelDB's default options and with paranoid checks. Usage:
//
//	damage.py write DIR N INLOG   N puts of random 100-byte values, bloom 10
//	                              bits/key; compacted into tables unless
//	                              INLOG is 1 (closed with every write in
//	                              the log)
//	damage.py read DIR N PARANOID one JSON line: whether the open fails,
//	                              the scan's entries and wrong values, the
//	                              keys Get misses, values it returns wrong
const plyvelDamage = `
import json, random, sys
import plyvel

def kvs(n):
    rng = random.Random(7)
    return [(b"key%08d" % i, rng.randbytes(100)) for i in range(n)]

cmd, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
flag = sys.argv[4] == "1"
if cmd == "write":
    db = plyvel.DB(path, create_if_missing=True, error_if_exists=True,
                   bloom_filter_bits=10, write_buffer_size=64 << 20)
    for k, v in kvs(n):
        db.put(k, v)
    if not flag:
        db.compact_range()
    db.close()
    sys.exit(0)
r = {"open_error": "", "entries": 0, "wrong": 0, "missing": 0, "get_wrong": 0, "scan_error": ""}
try:
    db = plyvel.DB(path, paranoid_checks=flag, bloom_filter_bits=10)
except plyvel.Error as e:
    r["open_error"] = str(e)
    print(json.dumps(r))
    sys.exit(0)
want = dict(kvs(n))
try:
    for k, v in db.iterator(verify_checksums=flag):
        r["entries"] += 1
        if want.get(k) != v:
            r["wrong"] += 1
except plyvel.Error as e:
    r["scan_error"] = str(e)
for k, v in want.items():
    try:
        got = db.get(k, verify_checksums=flag)
    except plyvel.Error:
        got = None
    if got is None:
        r["missing"] += 1
    elif got != v:
        r["get_wrong"] += 1
db.close()
print(json.dumps(r))
`

// plyvelRead is what the script's read prints.
type plyvelRead struct {
	OpenError string `json:"open_error"`
	ScanError string `json:"scan_error"`
	Entries   int    `json:"entries"`
	Wrong     int    `json:"wrong"`
	Missing   int    `json:"missing"`
	GetWrong  int    `json:"get_wrong"`
}

// TestDamageAsPlyvelSeesIt is the damage table of docs/verify.md, end to
// end: databases plyvel writes (200,000 keys in one table; 3,000 writes left
// in the log), damaged in copies, read back by plyvel itself with LevelDB's
// default options and with paranoid checks, and verified by the built
// command: its JSON counts what plyvel found (keys missing, a value wrong,
// writes lost), exit 0 for the intact database and non-zero for each
// damaged one, under both option sets.
func TestDamageAsPlyvelSeesIt(t *testing.T) {
	needPlyvel(t, "writes 200,000 keys through plyvel")
	tmp := t.TempDir()
	script := filepath.Join(tmp, "damage.py")
	writeFile(t, script, []byte(plyvelDamage))
	py := func(args ...string) []byte {
		t.Helper()
		out, err := exec.Command(debianPython, append([]string{script}, args...)...).Output()
		if err != nil {
			t.Fatalf("damage.py %q: %v", args, err)
		}
		return out
	}
	const tableKeys, logWrites = 200000, 3000
	tables, logs := filepath.Join(tmp, "tables"), filepath.Join(tmp, "logs")
	py("write", tables, fmt.Sprint(tableKeys), "0")
	py("write", logs, fmt.Sprint(logWrites), "1")

	tableFile := func(dir string) string {
		m, _ := filepath.Glob(filepath.Join(dir, "*.ldb"))
		if len(m) != 1 {
			t.Fatalf("%s: %d tables, want 1", dir, len(m))
		}
		return m[0]
	}
	for _, tc := range []struct {
		name   string
		src    string
		n      int
		damage func(t *testing.T, dir string)
	}{
		{"intact", tables, tableKeys, func(*testing.T, string) {}},
		{"intact log", logs, logWrites, func(*testing.T, string) {}},
		{"200 zero bytes in the filter block", tables, tableKeys, func(t *testing.T, dir string) {
			p := tableFile(dir)
			b := tabletest.ReadFile(t, p)
			tb, err := table.Open(p, bytes.NewReader(b), int64(len(b)))
			if err != nil {
				t.Fatal(err)
			}
			fh, _ := tb.FilterHandle()
			mid := fh.Offset + fh.Size/2
			clear(b[mid-100 : mid+100])
			writeFile(t, p, b)
		}},
		{"one flipped bit in a value of the first data block", tables, tableKeys, func(t *testing.T, dir string) {
			p := tableFile(dir)
			b := tabletest.ReadFile(t, p)
			b[200] ^= 0x10 // within the first block's entries (random values are stored as snappy literals)
			writeFile(t, p, b)
		}},
		{"one flipped bit in the log's first block", logs, logWrites, func(t *testing.T, dir string) {
			m, _ := filepath.Glob(filepath.Join(dir, "*.log"))
			if len(m) != 1 {
				t.Fatalf("%d logs", len(m))
			}
			b := tabletest.ReadFile(t, m[0])
			b[1000] ^= 0x10
			writeFile(t, m[0], b)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "db")
			if err := fixturespkg.CopyDir(dir, os.DirFS(tc.src)); err != nil {
				t.Fatal(err)
			}
			tc.damage(t, dir)
			ask := func(paranoid string) plyvelRead {
				c := filepath.Join(t.TempDir(), "db") // plyvel's open writes: a copy each
				if err := fixturespkg.CopyDir(c, os.DirFS(dir)); err != nil {
					t.Fatal(err)
				}
				var r plyvelRead
				if err := json.Unmarshal(py("read", c, fmt.Sprint(tc.n), paranoid), &r); err != nil {
					t.Fatal(err)
				}
				return r
			}
			for _, paranoid := range []bool{false, true} {
				u := ask(map[bool]string{false: "0", true: "1"}[paranoid])
				args := []string{"verify", "--json", dir}
				if paranoid {
					args = []string{"verify", "--json", "--paranoid", dir}
				}
				code, stdout, _ := runCmd(t, args...)
				if msg := agreePlyvel(t, stdout, code, u, tc.n); msg != "" {
					t.Errorf("paranoid %v: plyvel reads %+v; %s\n%s", paranoid, u, msg, stdout)
				} else {
					t.Logf("paranoid %v: plyvel reads %+v; verify agrees, exit %d", paranoid, u, code)
				}
			}
		})
	}
}

// agreePlyvel says how verify's JSON disagrees with what plyvel read, or "".
func agreePlyvel(t *testing.T, stdout string, code int, u plyvelRead, written int) string {
	t.Helper()
	var doc struct {
		Databases []struct {
			Opened bool   `json:"opened"`
			Status string `json:"status"`
			Logs   []struct {
				Verdict    string `json:"verdict"`
				LostWrites int    `json:"lost_writes"`
				AtLeast    bool   `json:"lost_writes_at_least"`
				Status     string `json:"status"`
			} `json:"logs"`
			Tables []struct {
				Verdict        string `json:"verdict"`
				Status         string `json:"status"`
				FalseNegatives *struct {
					Rejected int `json:"rejected"`
				} `json:"false_negatives"`
				Damage *struct {
					Entries     int `json:"entries"`
					WrongValues int `json:"wrong_values"`
					GetsWrong   int `json:"lookups_wrong"`
				} `json:"damage"`
			} `json:"tables"`
		} `json:"databases"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || len(doc.Databases) != 1 {
		return fmt.Sprintf("not one database in the JSON: %v", err)
	}
	db := doc.Databases[0]
	var tables []string
	for _, tb := range db.Tables {
		tables = append(tables, tb.Verdict)
	}
	switch {
	case u.OpenError != "":
		if db.Opened || len(db.Logs) != 1 || db.Logs[0].Verdict != "open-fails" || !strings.Contains(u.OpenError, db.Logs[0].Status) || code != verify.ExitError {
			return "want the database not opened, its log open-fails with plyvel's status, exit 2"
		}
	case written > 3000 && u.ScanError != "":
		if len(db.Tables) != 1 || db.Tables[0].Verdict != "unreadable" || !strings.Contains(u.ScanError, db.Tables[0].Status) || code != verify.ExitError {
			return "want the table unreadable with plyvel's status, exit 2"
		}
	case u.Wrong+u.GetWrong > 0:
		tb := db.Tables[0]
		if tb.Verdict != "silent-corruption" || tb.Damage == nil || tb.Damage.WrongValues != u.Wrong || tb.Damage.GetsWrong != u.GetWrong || tb.Damage.Entries != u.Entries || code != verify.ExitError {
			return "want silent-corruption counting the values plyvel reads wrong, exit 2"
		}
	case written > 3000 && u.Missing > 0:
		tb := db.Tables[0]
		if tb.Verdict != "mismatch" || tb.FalseNegatives == nil || tb.FalseNegatives.Rejected != u.Missing || code != verify.ExitDamage {
			return fmt.Sprintf("want a mismatch rejecting the %d keys plyvel misses, exit 1 (tables %v)", u.Missing, tables)
		}
	case u.Missing > 0:
		if len(db.Logs) != 1 || db.Logs[0].Verdict != "writes-dropped" || db.Logs[0].LostWrites != u.Missing || db.Logs[0].AtLeast || code != verify.ExitError {
			return fmt.Sprintf("want the log writes-dropped, losing the %d writes plyvel misses, exit 2", u.Missing)
		}
	case code == verify.ExitOK:
		return ""
	default:
		// Upstream reads everything: only a verdict that says the
		// damage is harmless to reads may exit non-zero.
		if code != verify.ExitDamage {
			return fmt.Sprintf("plyvel reads every key right; want exit 0 or 1 (tables %v)", tables)
		}
	}
	return ""
}
