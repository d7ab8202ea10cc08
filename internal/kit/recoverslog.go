package kit

import (
	"fmt"
	"io/fs"
	"strings"

	"github.com/ldbcompat/ldbcompat"
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
)

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
func logContents(fsys fs.FS) (contents []dbKey, err error) {
	err = inCopy(fsys, func(dir string) error {
		contents, err = modelContents(dir, false)
		if err != nil {
			return fmt.Errorf("%s", strings.ReplaceAll(err.Error(), dir, "<dir>"))
		}
		return nil
	})
	return contents, err
}

// checkRecoversLog runs PropRecoversLog on committed and, live, fresh
// databases; it returns why it was skipped, or "".
func checkRecoversLog(p Port, cfg kitConfig, res *results) string {
	digests := map[string]string{}
	return readUpstreamDBs(p, cfg, res, dbRead{
		prop: PropRecoversLog, fails: kindRecoverFails, missing: kindRecoverMissing, extra: kindRecoverExtra,
		committed: func() (dbs []upstreamDB, err error) {
			dbs, digests, err = committedLogDBs()
			return dbs, err
		},
		live: liveLogDBs,
		confirm: func(db upstreamDB, contents []dbKey, _ [][]byte) error {
			return confirmLogContents(db, contents, digests[db.name], cfg.live)
		},
		committedErr: "committed databases left in their logs", liveErr: "having upstream leave databases in their logs",
		none: "no database upstream left in its log: this build of ldbcompat embeds none and was built without the leveldb tag",
		cannot: func(upstreamDB) string {
			return "port cannot read the database upstream left with its writes in the log"
		},
		holds:    "upstream left in its log",
		everyOne: func(upstreamDB) string { return "upstream's DB::Open recovers every one" },
		holdsNot: "upstream's recovered database",
	})
}

// confirmLogContents checks the model's contents of db against the digest
// upstream was given and, live, upstream's DB::Open.
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
	return inCopy(db.fsys, func(dir string) error {
		got, err := liveOpen(dir, false)
		if err != nil {
			return err
		}
		if d := diffKVs(kvs, got); !d.empty() {
			return fmt.Errorf("upstream's DB::Open recovers otherwise than the kit's model: it %s", d.describe("the model recovers"))
		}
		return nil
	})
}
