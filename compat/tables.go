package compat

import "github.com/ldbcompat/ldbcompat/internal/kit"

// CaseEntries returns the entries the kit gives WriteTable in table case
// name, in order: internal keys and their values, as reproducers write
// them: WriteTable(compat.CaseEntries("table/bs1024-r16-none-b10"), ...).
func CaseEntries(name string) []Entry { return kit.CaseEntries(name) }

// CaseTable returns the table the kit gives ReadTable in case name:
// upstream's table for a table case, or the damaged copy of it, such as
// ReadTable(compat.CaseTable("table/bs1024-r16-none-b10/truncated-48")).
func CaseTable(name string) []byte { return kit.CaseTable(name) }
