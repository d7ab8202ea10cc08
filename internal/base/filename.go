package base

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// The names of a database directory's files (db/filename.cc).

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

// ParseFileName is db/filename.cc ParseFileName: the number and type of a
// database directory's file name (number 0 for CURRENT, LOCK, LOG, LOG.old);
// ok is false for any other name.
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
// digits of s (false when none or past 64 bits) and the rest of s.
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

// TableFileName is db/filename.cc TableFileName: NNNNNN.ldb in dir, the
// name LevelDB 1.14 and later write and open first.
func TableFileName(dir string, number uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%06d.ldb", number))
}

// SSTTableFileName is db/filename.cc SSTTableFileName: NNNNNN.sst, which
// TableCache opens when there is no NNNNNN.ldb.
func SSTTableFileName(dir string, number uint64) string {
	return filepath.Join(dir, fmt.Sprintf("%06d.sst", number))
}

// HasTableExt reports whether name ends in .ldb or .sst, as a table's does.
func HasTableExt(name string) bool {
	return strings.HasSuffix(name, ".ldb") || strings.HasSuffix(name, ".sst")
}
