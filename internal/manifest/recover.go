package manifest

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/internal/base"
)

// Missing returns, ascending, v's live tables that db/db_impl.cc
// DBImpl::Recover finds missing: no name has the number (base.ParseFileName;
// any type counts, CURRENT, LOCK and LOG as 0). Upstream then refuses to
// open (MissingStatus).
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

// MissingStatus is DBImpl::Recover's status for missing tables:
// "Corruption: N missing files; e.g.: DIR/NNNNNN.ldb".
func MissingStatus(dir string, missing []uint64) string {
	return fmt.Sprintf("Corruption: %d missing files; e.g.: %s", len(missing), base.TableFileName(dir, missing[0]))
}
