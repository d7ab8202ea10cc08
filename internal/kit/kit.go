// Package kit is the conformance kit: the checks compat.TestPort runs on a
// port, and Check, which returns the Report instead (ports/cmd/report
// writes docs/ports.md from it). Package compat names Port and its hook
// types by aliases so that a port's tests import compat alone.
//
//	check.go     TestPort, Check: every property of a port
//	run.go       the case suite, against the golden vectors or live
//	db.go        ReadDB and WriteDB; recoverslog.go, logrecovered.go recovery
//	tables.go    WriteTable and ReadTable; logs.go WriteLog and ReadLog
//	effect.go    what a failure means for users; repro.go reproducers
//	live.go      upstream through cgo (nolive.go without the leveldb tag)
package kit
