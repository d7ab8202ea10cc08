package verify

import (
	"fmt"
	"strings"
)

// Summary counts what verify reported.
type Summary struct {
	// Tables counts the tables examined, by verdict in Verdicts.
	Tables   int
	Verdicts map[Verdict]int
	// Skipped counts the table files not live; NotTables the files no tables.
	Skipped, NotTables int
	// NotOpened counts the databases upstream cannot open.
	Databases, NotOpened int
	// PathErrors counts the paths that could not be examined.
	PathErrors int
	// Logs counts the logs replayed, by verdict in LogVerdicts.
	Logs        int
	LogVerdicts map[LogVerdict]int
	// DefaultsHarm counts, when following paranoid checks, the tables and
	// logs upstream harms with the default options: they never exit 0.
	DefaultsHarm int
}

// Add counts one item; rep is its table's report, for a table.
func (s *Summary) Add(it Item, rep *TableReport) {
	if s.Verdicts == nil {
		s.Verdicts = map[Verdict]int{}
	}
	switch {
	case it.Database != nil:
		s.Databases++
		if !it.Database.Opens() {
			s.NotOpened++
		}
		for _, l := range it.Database.Logs {
			if s.LogVerdicts == nil {
				s.LogVerdicts = map[LogVerdict]int{}
			}
			s.Logs++
			s.LogVerdicts[l.Verdict]++
			if l.Mode == Paranoid && l.Other.Exit() > ExitOK && l.Other != "" {
				s.DefaultsHarm++
			}
		}
	case it.PathErr != nil:
		s.PathErrors++
	case rep != nil && rep.NotTable:
		s.NotTables++
	case rep != nil && rep.Verdict == "":
		s.Skipped++
	case rep != nil:
		s.Tables++
		s.Verdicts[rep.Verdict]++
		if o := rep.Other; o != nil && o.Mode == Defaults && o.Verdict.Exit() > ExitOK {
			s.DefaultsHarm++
		}
	}
}

// ExitCode is the exit code of `ldbcompat verify`: the highest that applies,
// ExitPath when a path could not be examined or nothing was.
func (s Summary) ExitCode() int {
	code := ExitOK
	for v, n := range s.Verdicts {
		if n > 0 {
			code = max(code, v.Exit())
		}
	}
	for v, n := range s.LogVerdicts {
		if n > 0 {
			code = max(code, v.Exit())
		}
	}
	if s.NotOpened > 0 {
		code = max(code, ExitError)
	}
	if s.DefaultsHarm > 0 {
		code = max(code, ExitDamage)
	}
	if s.PathErrors > 0 || s.Tables+s.Skipped+s.Databases == 0 {
		code = ExitPath
	}
	return code
}

// String formats s as one line, such as "3 tables: 2 ok, 1 old-filter; 1
// table file skipped (not live)". Verdicts without tables are left out.
func (s Summary) String() string {
	var b strings.Builder
	b.WriteString(plural(s.Tables, "table"))
	var parts []string
	for _, i := range Verdicts {
		if n := s.Verdicts[i.Verdict]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, i.Verdict))
		}
	}
	if len(parts) > 0 {
		b.WriteString(": " + strings.Join(parts, ", "))
	}
	if s.Logs > s.LogVerdicts[Replayed] {
		// Logs replayed whole are on their lines; damage is counted here.
		fmt.Fprintf(&b, "; %s:", plural(s.Logs, "log"))
		sep := " "
		for _, v := range []LogVerdict{Replayed, WritesDropped, OpenFails} {
			if n := s.LogVerdicts[v]; n > 0 {
				fmt.Fprintf(&b, "%s%d %s", sep, n, v)
				sep = ", "
			}
		}
	}
	if s.Skipped > 0 {
		fmt.Fprintf(&b, "; %s skipped (not live)", plural(s.Skipped, "table file"))
	}
	if s.NotTables > 0 {
		fmt.Fprintf(&b, "; %s skipped (not a table)", plural(s.NotTables, "file"))
	}
	if s.NotOpened > 0 {
		n := plural(s.NotOpened, "database")
		fmt.Fprintf(&b, "; %s upstream cannot open", n)
	}
	if s.PathErrors > 0 {
		fmt.Fprintf(&b, "; %s not examined", plural(s.PathErrors, "path"))
	}
	return b.String()
}
