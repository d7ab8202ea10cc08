package compat

import "github.com/ldbcompat/ldbcompat/internal/kit"

// The inputs of the log properties, by case name, for reproducers.

// CaseRecords returns the records the kit gives WriteLog in log case name,
// as reproducers write them: WriteLog(compat.CaseRecords("log/left-7")).
func CaseRecords(name string) [][]byte { return kit.CaseRecords(name) }

// CaseLog returns the log the kit gives ReadLog in log case name:
// upstream's log of the case's records, damaged or cut as the case says,
// as reproducers write it: ReadLog(compat.CaseLog("log/damaged/header-checksum")).
func CaseLog(name string) []byte { return kit.CaseLog(name) }
