package kit

import (
	"github.com/ldbcompat/ldbcompat/internal/cases"
	"github.com/ldbcompat/ldbcompat/internal/logfile"
)

// CaseRecords returns the records the kit gives WriteLog in log case
// name, as reproducers write them: WriteLog(compat.CaseRecords("log/left-7")).
func CaseRecords(name string) [][]byte {
	c, ok := cases.FindLog(name)
	if !ok {
		panic(noCase(name))
	}
	return cloneRecords(c.Records)
}

// CaseLog returns upstream's log of log case name, damaged as it says.
func CaseLog(name string) []byte {
	c, ok := cases.FindLog(name)
	if !ok {
		panic(noCase(name))
	}
	data, err := c.Damage(logfile.WriteLog(c.Records))
	if err != nil {
		panic(err)
	}
	return data
}
