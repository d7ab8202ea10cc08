package compat

import "github.com/ldbcompat/ldbcompat/internal/kit"

// CaseRecords returns the records the kit gives WriteLog in log case name,
// as reproducers write them: WriteLog(compat.CaseRecords("log/left-7")).
func CaseRecords(name string) [][]byte { return kit.CaseRecords(name) }

// CaseLog returns upstream's log of log case name's records, damaged or
// cut as the case says: ReadLog(compat.CaseLog("log/damaged/header-checksum")).
func CaseLog(name string) []byte { return kit.CaseLog(name) }
