package kit

import (
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/plural"
)

// The check of PropRecoversLog: the port reads, through ReadDB, databases
// upstream left with their writes in the log (closed without compaction,
// copied while open after synced writes, two logs to replay after a
// memtable switch), and must find every write and no deleted key.

// logDBPrefix begins the name of every committed database left in its
// log.
const logDBPrefix = "testdata/logdbs/"

// logDBBits is the bloom filter the databases left in their logs are
// written with (fixturegen.LogDBBitsPerKey).
const logDBBits = 10

// committedLogDBs returns the databases under testdata/logdbs that the
// module embeds, each with the digest of the contents upstream was given.
func committedLogDBs() ([]upstreamDB, map[string]string, error) {
	sub, err := fs.Sub(ldbcompat.TestData, "testdata/logdbs")
	if err != nil {
		return nil, nil, err
	}
	dbs, err := fixtures.LoadLogDBs(sub)
	if err != nil {
		return nil, nil, err
	}
	out := make([]upstreamDB, len(dbs))
	digests := map[string]string{}
	for i, db := range dbs {
		out[i] = upstreamDB{name: logDBPrefix + db.Dir, bits: logDBBits, fsys: db.FS}
		digests[out[i].name] = db.Info.ContentsSHA256
	}
	return out, digests, nil
}

// logContents returns each user key's newest version in the database in
// fsys, logs replayed, as modelContents does, on a copy.
func logContents(fsys fs.FS) ([]dbKey, error) {
	tmp, err := os.MkdirTemp("", "ldbcompat-logdb-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := fixtures.CopyDir(tmp, fsys); err != nil {
		return nil, err
	}
	contents, err := modelContents(tmp, false)
	if err != nil {
		return nil, fmt.Errorf("%s", strings.ReplaceAll(err.Error(), tmp, "<dir>"))
	}
	return contents, nil
}

// checkRecoversLog runs PropRecoversLog on p into res: the committed
// databases when cfg has committed ones, and fresh ones upstream writes
// live. It returns why it was skipped, or "".
func checkRecoversLog(p Port, cfg kitConfig, res *results) string {
	var dbs []upstreamDB
	digests := map[string]string{}
	if cfg.tables != nil {
		c, d, err := committedLogDBs()
		if err != nil {
			res.suiteError(fmt.Sprintf("committed databases left in their logs: %v", err))
		}
		dbs, digests = append(dbs, c...), d
	}
	tmp, err := os.MkdirTemp("", "ldbcompat-kit-")
	if err != nil {
		res.suiteError(err.Error())
		return ""
	}
	defer os.RemoveAll(tmp)
	if cfg.live {
		live, err := liveLogDBs(filepath.Join(tmp, "upstream"))
		if err != nil {
			res.suiteError(fmt.Sprintf("having upstream leave databases in their logs: %v", err))
		}
		dbs = append(dbs, live...)
	}
	if len(dbs) == 0 {
		return "no database upstream left in its log: this build of ldbcompat embeds none and was built without the leveldb tag"
	}
	for i, db := range dbs {
		contents, absent, err := dbQueries(db)
		if err != nil {
			res.suiteError(fmt.Sprintf("%s: %v", db.name, err))
			continue
		}
		if err := confirmLogContents(db, contents, digests[db.name], cfg.live); err != nil {
			res.suiteError(fmt.Sprintf("%s: %v", db.name, err))
			continue
		}
		queries := append(userKeys(contents), absent...)
		dir := filepath.Join(tmp, fmt.Sprintf("recover%d", i))
		if err := fixtures.CopyDir(dir, db.fsys); err != nil {
			res.suiteError(err.Error())
			continue
		}
		res.compare(PropRecoversLog, db.name)
		repro := fmt.Sprintf("ReadDB(compat.UpstreamDB(t, %q), %d, compat.UpstreamDBKeys(%q))", db.name, db.bits, db.name)
		res.guard(PropRecoversLog, db.name, repro, func() {
			found, err := p.ReadDB(dir, db.bits, queries)
			if err != nil {
				res.fail(failure(PropRecoversLog, db.name, kindRecoverFails, "port cannot read the database upstream left with its writes in the log: "+scrub(err, dir), repro))
				return
			}
			if len(found) != len(queries) {
				res.fail(failure(PropRecoversLog, db.name, kindRecoverFails, fmt.Sprintf("ReadDB answered %d of %s", len(found), plural.Count(len(queries), "key")), repro))
				return
			}
			recoversLogFailure(db, contents, queries, found, res)
		})
	}
	return ""
}

// recoversLogFailure records the failure, if any, of the port's answers
// found to queries (contents' keys, then keys db never held).
func recoversLogFailure(db upstreamDB, contents []dbKey, queries [][]byte, found []bool, res *results) {
	var missing, extra []int
	live := 0
	for i, d := range contents {
		switch {
		case d.live:
			live++
			if !found[i] {
				missing = append(missing, i)
			}
		case found[i]:
			extra = append(extra, i)
		}
	}
	for j := len(contents); j < len(queries); j++ {
		if found[j] {
			extra = append(extra, j)
		}
	}
	var problems, keys []string
	var kinds []failureKind
	if len(missing) > 0 {
		d := contents[missing[0]]
		problems = append(problems, fmt.Sprintf("port reports %d of the %s upstream left in its log missing (upstream's DB::Open recovers every one); first: key %x, newest version in %s",
			len(missing), plural.Count(live, "key"), d.key, d.where))
		kinds = append(kinds, kindRecoverMissing)
		keys = append(keys, fmt.Sprintf("%q", hex.EncodeToString(d.key)))
	}
	if len(extra) > 0 {
		q := queries[extra[0]]
		what := "never written"
		if extra[0] < len(contents) {
			what = "deleted, in " + contents[extra[0]].where
		}
		problems = append(problems, fmt.Sprintf("port finds %s that upstream's recovered database does not hold; first: key %x (%s)", plural.Count(len(extra), "key"), q, what))
		kinds = append(kinds, kindRecoverExtra)
		keys = append(keys, fmt.Sprintf("%q", hex.EncodeToString(q)))
	}
	if len(problems) > 0 {
		res.fail(failure(PropRecoversLog, db.name, kinds[0], strings.Join(problems, "; "),
			fmt.Sprintf("ReadDB(compat.UpstreamDB(t, %q), %d, compat.HexKeys(%s))", db.name, db.bits, strings.Join(keys, ", "))))
	}
}

// confirmLogContents checks the kit's model of what upstream recovers
// from db, contents: against the digest of what upstream was given, for
// a committed database, and against upstream's own DB::Open live.
func confirmLogContents(db upstreamDB, contents []dbKey, digest string, live bool) error {
	var kvs [][2][]byte
	for _, d := range contents {
		if d.live {
			kvs = append(kvs, [2][]byte{d.key, d.value})
		}
	}
	if got := fixtures.ContentsDigest(kvs); digest != "" && got != digest {
		return fmt.Errorf("the kit recovers contents of digest %s from it, but upstream was given %s", got, digest)
	}
	if !live {
		return nil
	}
	tmp, err := os.MkdirTemp("", "ldbcompat-kit-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := fixtures.CopyDir(tmp, db.fsys); err != nil {
		return err
	}
	got, err := liveOpen(tmp, false)
	if err != nil {
		return err
	}
	if d := diffKVs(kvs, got); !d.empty() {
		return fmt.Errorf("upstream's DB::Open recovers otherwise than the kit's model: it %s", d.describe("the model recovers"))
	}
	return nil
}

// recoveryDBNamed finds the database left in its log named name: a
// committed one, or one upstream writes live (into a directory cleanup
// removes). ok is false when name is none of these.
func recoveryDBNamed(name string) (db upstreamDB, cleanup func(), ok bool, err error) {
	cleanup = func() {}
	if strings.HasPrefix(name, logDBPrefix) {
		dbs, _, err := committedLogDBs()
		if err != nil {
			return upstreamDB{}, cleanup, true, err
		}
		for _, db := range dbs {
			if db.name == name {
				return db, cleanup, true, nil
			}
		}
		return upstreamDB{}, cleanup, true, fmt.Errorf("no database %q among the committed ones", name)
	}
	if !strings.HasPrefix(name, liveLogDBPrefix) {
		return upstreamDB{}, cleanup, false, nil
	}
	tmp, err := os.MkdirTemp("", "ldbcompat-db-")
	if err != nil {
		return upstreamDB{}, cleanup, true, err
	}
	dbs, err := liveLogDBs(tmp)
	for _, db := range dbs {
		if db.name == name {
			return db, func() { os.RemoveAll(tmp) }, true, nil
		}
	}
	os.RemoveAll(tmp)
	if err == nil {
		err = fmt.Errorf("no database %q among those upstream leaves in its log live", name)
	}
	return upstreamDB{}, cleanup, true, err
}
