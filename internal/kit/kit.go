// Package kit is the conformance kit: the checks package compat's TestPort
// runs on a port, and Check, which runs them and returns the Report instead
// of failing a test. Package compat names Port and its hook types by
// aliases and wraps TestPort, so that a port's tests import compat alone;
// ports/cmd/report, in the ports module (which nests under this module's
// path, so that it may import this package), calls Check and writes
// docs/ports.md from its Reports.
//
//	port.go      Port and its hook types; the suite's view of a port
//	check.go     TestPort, Check: every property of a port
//	run.go       the case suite, against the golden vectors or live
//	db.go        the end-to-end checks: ReadDB and WriteDB
//	logs.go      the log properties: WriteLog and ReadLog (logs_where.go
//	             names where a log differs)
//	effect.go    what a failure means for users
//	explain.go   what upstream does, said in a failure
//	repro.go     reproducers; inputs.go the inputs they name
//	report.go    Report, PropertyResult, Failure, Property, Outcome
//	harm.go      Harm: what a failure does to a port's users
//	live.go      Live, and upstream through cgo (nolive.go without the
//	             leveldb tag)
package kit
