package manifest

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// What db/db_impl.cc DBImpl::Recover checks once the version is read:
// that every live table's file is in the database directory.

// Missing returns, in increasing order, the numbers of v's live tables
// that DBImpl::Recover finds missing in a directory whose files are named
// names: those that no name has as its number by base.ParseFileName,
// whatever the name's type (a log file or a MANIFEST of that number
// counts, and CURRENT, LOCK, LOG and LOG.old count as number 0). Upstream
// then refuses to open the database, with MissingStatus.
func Missing(v *Version, names []string) []uint64 {
	present := map[uint64]bool{}
	for _, name := range names {
		if n, _, ok := base.ParseFileName(name); ok {
			present[n] = true
		}
	}
	var missing []uint64
	for _, f := range v.Files {
		if !present[f.Number] && (len(missing) == 0 || missing[len(missing)-1] != f.Number) {
			missing = append(missing, f.Number)
		}
	}
	return missing
}

// MissingStatus is the status DBImpl::Recover refuses the database in dir
// with when the live tables missing, as Missing returns them, are not
// none: "Corruption: N missing files; e.g.: DIR/NNNNNN.ldb", naming the
// first.
func MissingStatus(dir string, missing []uint64) string {
	return fmt.Sprintf("Corruption: %d missing files; e.g.: %s", len(missing), base.TableFileName(dir, missing[0]))
}
