//go:build !leveldb

package main

import (
	"github.com/ldbcompat/ldbcompat/internal/fixtures"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// askUpstream is not available without the leveldb tag: upstream is not
// asked.
func askUpstream(string, fixtures.Other, *verify.RunResult) (what, agree string, err error) {
	return "not asked (built without the `leveldb` tag)", "", nil
}
