package base

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// The names of a database directory's files (db/filename.cc): what
// ParseFileName makes of a name, and the names TableFileName and
// SSTTableFileName give a table.

// FileType is the type of a database directory's file, as db/filename.h
// names it.
type FileType int

// The file types of db/filename.h, and NoFile for a name ParseFileName
// refuses.
const (
	NoFile         FileType = iota
	LogFile                 // NNNNNN.log: a write-ahead log
	DBLockFile              // LOCK
	TableFile               // NNNNNN.ldb, or NNNNNN.sst (releases before 1.14)
	DescriptorFile          // MANIFEST-NNNNNN
	CurrentFile             // CURRENT: the name of the MANIFEST
	TempFile                // NNNNNN.dbtmp
	InfoLogFile             // LOG and LOG.old
)

// String returns the type's name in db/filename.h without its k, such as
// "TableFile".
func (t FileType) String() string {
	if t > NoFile && int(t) < len(fileTypeNames) {
		return fileTypeNames[t]
	}
	return fmt.Sprintf("FileType(%d)", int(t))
}

var fileTypeNames = [...]string{LogFile: "LogFile", DBLockFile: "DBLockFile", TableFile: "TableFile",
	DescriptorFile: "DescriptorFile", CurrentFile: "CurrentFile", TempFile: "TempFile", InfoLogFile: "InfoLogFile"}

// ParseFileName is db/filename.cc ParseFileName: the number and type of
// the file name of a database directory. CURRENT, LOCK, LOG and LOG.old
// have number 0; MANIFEST-N, N.log, N.sst, N.ldb and N.dbtmp have N, a
// run of decimal digits that fits 64 bits (util/logging.cc
// ConsumeDecimalNumber). ok is false for any other name.
func ParseFileName(name string) (number uint64, typ FileType, ok bool) {
	switch name {
	case "CURRENT":
		return 0, CurrentFile, true
	case "LOCK":
		return 0, DBLockFile, true
	case "LOG", "LOG.old":
		return 0, InfoLogFile, true
	}
	if rest, isManifest := strings.CutPrefix(name, "MANIFEST-"); isManifest {
		n, tail, ok := consumeDecimal(rest)
		if !ok || tail != "" {
			return 0, NoFile, false
		}
		return n, DescriptorFile, true
	}
	n, tail, ok := consumeDecimal(name)
	if !ok {
		return 0, NoFile, false
	}
	switch tail {
	case ".log":
		return n, LogFile, true
	case ".sst", ".ldb":
		return n, TableFile, true
	case ".dbtmp":
		return n, TempFile, true
	}
	return 0, NoFile, false
}

// consumeDecimal is util/logging.cc ConsumeDecimalNumber: the leading
// digits of s as a number (false when there are none or they overflow 64
// bits) and the rest of s.
func consumeDecimal(s string) (uint64, string, bool) {
	var v uint64
	i := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, s, false
		}
		v = v*10 + d
	}
	return v, s[i:], i > 0
}

// TableFileName is db/filename.cc TableFileName: table number's file in
// dir, NNNNNN.ldb (at least six digits), the name LevelDB 1.14 and later
// write and open first.
func TableFileName(dir string, number uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%06d.ldb", number))
}

// SSTTableFileName is db/filename.cc SSTTableFileName: NNNNNN.sst, the
// name releases before 1.14 wrote, which TableCache opens when there is no
// NNNNNN.ldb.
func SSTTableFileName(dir string, number uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%06d.sst", number))
}

// HasTableExt reports whether name ends in .ldb or .sst, as every table
// file's name does: verify examines every such file of a directory, and
// says why when its name is not a table's (ParseFileName).
func HasTableExt(name string) bool {
	return strings.HasSuffix(name, ".ldb") || strings.HasSuffix(name, ".sst")
}
