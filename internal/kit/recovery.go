package kit

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/internal/base"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
	"github.com/ldbcompat/ldbcompat/internal/manifest"
	"github.com/ldbcompat/ldbcompat/internal/tabledb"
)

// The model of DB::Open (db/db_impl.cc Recover, RecoverLogFile;
// db/version_set.cc Recover) that judges recovery without the leveldb tag.

// openModel names the judge of a database's contents when no upstream
// library is linked, for failure details.
const openModel = "upstream's DB::Open as this module models it (CURRENT, MANIFEST, live tables, then the logs DBImpl::Recover replays, read as RecoverLogFile reads them)"

// openLive names the judge of a database's contents under the leveldb
// tag.
const openLive = "upstream LevelDB 1.23's DB::Open, live through cgo, then a scan of every entry"

// liveLogDBPrefix begins the name of every database upstream leaves in
// its log live.
const liveLogDBPrefix = "upstream-left "

// kv is a key and its value.
type kv struct{ key, value []byte }

// modelOpen returns every live key with its newest value, in key order,
// that DB::Open recovers from dir; an error is upstream's refusal.
func modelOpen(dir string, paranoid bool) ([]kv, error) {
	contents, err := modelContents(dir, paranoid)
	if err != nil {
		return nil, err
	}
	var out []kv
	for _, d := range contents {
		if d.live {
			out = append(out, kv{d.key, d.value})
		}
	}
	return out, nil
}

// modelContents returns each user key's newest version in the database
// in dir once DB::Open recovers it, as modelOpen does, by key.
func modelContents(dir string, paranoid bool) ([]dbKey, error) {
	v, err := manifest.Read(dir)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(ents))
	for i, e := range ents {
		names[i] = e.Name()
	}
	if missing := manifest.Missing(v, names); len(missing) > 0 {
		return nil, fmt.Errorf("%s", manifest.MissingStatus(dir, missing))
	}
	newest := map[string]*dbKey{}
	put := keepNewest(newest, true)
	byNumber := map[uint64]string{}
	for _, n := range names {
		// TableCache::FindTable opens NNNNNN.ldb, else NNNNNN.sst.
		if num, typ, ok := base.ParseFileName(n); ok && typ == base.TableFile && (byNumber[num] == "" || filepath.Ext(n) == ".ldb") {
			byNumber[num] = n
		}
	}
	fsys := os.DirFS(dir)
	for _, f := range v.Files {
		if err := scanTable(fsys, byNumber[f.Number], put); err != nil {
			return nil, fmt.Errorf("table %06d: %w", f.Number, err)
		}
	}
	for _, n := range logfile.LogsToReplay(names, v.LogNumber, v.PrevLogNumber) {
		path := filepath.Join(dir, fmt.Sprintf("%06d.log", n)) // db/filename.cc LogFileName
		rec, err := logfile.RecoverFile(path, logfile.Options{})
		if err != nil {
			return nil, err
		}
		if paranoid && rec.Paranoid.Failed {
			return nil, fmt.Errorf("%s (paranoid_checks; at offset %d of %s)", rec.Paranoid.Status, rec.Paranoid.FailOffset, filepath.Base(path))
		}
		replayLog(path, put)
	}
	return sortedVersions(newest), nil
}

// replayLog applies the log's batches to put as RecoverLogFile does: a
// record under 12 bytes dropped, a log that does not open ignored.
func replayLog(path string, put putFunc) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	name := filepath.Base(path)
	tabledb.ReplayLog(f, name, func(op logfile.Op, seq uint64, offset int64) {
		where := func() string { return fmt.Sprintf("%s, record at offset %d", name, offset) }
		put(op.Key, seq, op.Kind != logfile.OpDelete, op.Value, where)
	})
}
