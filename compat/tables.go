package compat

import "github.com/ldbcompat/ldbcompat/internal/kit"

// CaseEntries returns the entries the kit gives WriteTable in table case
// name, in order: WriteTable(compat.CaseEntries("table/bs1024-r16-none-b10"), ...).
func CaseEntries(name string) []Entry { return kit.CaseEntries(name) }

// CaseTable returns upstream's table of case name, or its damaged copy:
// ReadTable(compat.CaseTable("table/bs1024-r16-none-b10/truncated-48")).
func CaseTable(name string) []byte { return kit.CaseTable(name) }
