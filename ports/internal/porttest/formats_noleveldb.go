//go:build !leveldb

package porttest

import (
	"testing"

	"github.com/ldbcompat/ldbcompat/compat"
)

// upstreamChecks needs upstream through cgo: nothing without the leveldb
// tag.
func upstreamChecks(*testing.T, compat.Port, FormatsOptions) {}
