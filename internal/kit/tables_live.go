//go:build leveldb

package kit

import "github.com/ldbcompat/ldbcompat/internal/cases"

// Upstream's TableBuilder and Table, live through cgo.

func liveTable(c cases.TableCase) ([]byte, error) { return cases.UpstreamTable(c) }

func liveRead(data []byte, bits int) ([][2][]byte, string, error) {
	return cases.UpstreamRead(data, bits)
}
