//go:build leveldb

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"

	"github.com/ldbcompat/ldbcompat/cgo/upstream"
	"github.com/ldbcompat/ldbcompat/internal/cases"
)

// writeLogVectors writes the log cases' vectors into dir: upstream's
// log::Writer writes each case's log, and its log::Reader reads it back,
// damaged or not.
func writeLogVectors(dir string, prov cases.Provenance) error {
	if prov.GOARCH == "" {
		prov.GOARCH = runtime.GOARCH
	}
	data, err := cases.RecordLogVectors(upstream.WriteLog, readLog, prov)
	if err != nil {
		return fmt.Errorf("log vectors: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, cases.LogVectorFile), data, 0o644); err != nil {
		return fmt.Errorf("log vectors: %w", err)
	}
	return nil
}

// readLog returns the records upstream's log::Reader returns from data.
func readLog(data []byte) ([][]byte, error) {
	r, err := upstream.ReadLog(data)
	if err != nil {
		return nil, err
	}
	var out [][]byte
	for _, e := range r.Events {
		if !e.Drop {
			out = append(out, e.Record)
		}
	}
	return out, nil
}
