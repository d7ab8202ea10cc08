// Package ldbcompat holds the module's test data, embedded so that the
// conformance suite in package compat reaches it from any working directory,
// including from another module that runs the suite against its own port:
// the golden vectors that upstream LevelDB generated (testdata/vectors) and
// small databases that it wrote (testdata/tables).
//
// The packages that do the work are bloom (the Go filter and filter block),
// compat (the conformance suite) and the ldbcompat command.
package ldbcompat

import "embed"

// TestData is the module's testdata directory: golden vectors under
// testdata/vectors, fixture databases under testdata/tables, and
// databases upstream left with their writes in the log under
// testdata/logdbs.
//
//go:embed testdata/vectors testdata/tables
//go:embed testdata/logdbs
var TestData embed.FS
