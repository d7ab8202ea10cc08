// Package verify decides what upstream LevelDB 1.23 does with each table
// and log of a database, whoever wrote it: `ldbcompat verify`'s logic,
// which ports/cmd/report uses too.
//
// A database is read as DBImpl::Recover reads it (Resolve), each live table
// as TableCache reads it (Examine), and the filter found is rebuilt from
// the table's keys and compared byte for byte (internal/filtercheck). Each
// table gets one Verdict. text.go and json.go render the results for
// every reader. Nothing is written, so LevelDB may have the database open.
package verify
