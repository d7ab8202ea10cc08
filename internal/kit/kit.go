// Package kit holds what programs need of the conformance kit beyond
// compat.TestPort, which is all a port's own tests call: Check, which
// checks a port as TestPort does and returns the Report instead of
// failing a test, and the Report's types. ports/cmd/report, in the ports
// module (which nests under this module's path, so that it may import
// this package), writes docs/ports.md from them.
//
// The checks themselves are package compat's, which alone knows its Port
// type: it hands them to this package when it is initialised, so that
// Check runs them on any compat.Port.
//
//	report.go  Report, PropertyResult, Failure, Property, Outcome
//	harm.go    Harm: what a failure does to a port's users
//	check.go   Check
//	live.go    Live (nolive.go without the leveldb tag)
package kit
