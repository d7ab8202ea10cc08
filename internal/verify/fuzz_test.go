//go:build unix

package verify_test

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ldbcompat/ldbcompat/internal/manifest/manifesttest"
	"github.com/ldbcompat/ldbcompat/internal/verify"
)

// The names and link targets a fuzzed tree is made of: a database's
// files, and what a hostile one points at.
var (
	fuzzNames   = []string{"CURRENT", "MANIFEST-000002", "MANIFEST-000003", "000005.ldb", "000006.sst", "000007.log", "000004.log", "OPTIONS-000001", "LOCK", "sub", "marker.manifest.000001.MANIFEST-000001", "x\x1b\n\xff"}
	fuzzTargets = []string{"..", "/", "/dev/zero", "/proc/self/status", "/proc/kmsg", "../..", "CURRENT", "sub", "000005.ldb", "MANIFEST-000002", "gone"}
)

// buildTree makes under root the tree the fuzz input describes, as a
// series of operations, each an op byte, a name byte and a
// varint-prefixed payload: 0 make and enter a directory, 1 leave it,
// 2 write a file, 3 a symbolic link (its target chosen by the payload's
// first byte), 4 a named pipe. At most 64 operations, 6 levels deep, and
// 64 KiB a file.
func buildTree(root string, in []byte) {
	cwd := []string{root}
	for ops := 0; len(in) >= 2 && ops < 64; ops++ {
		op, name := in[0]%5, fuzzNames[int(in[1])%len(fuzzNames)]
		in = in[2:]
		n, k := binary.Uvarint(in)
		if k <= 0 {
			n, k = 0, 0
		}
		in = in[k:]
		n = min(n, uint64(len(in)), 64<<10)
		data := in[:n]
		in = in[n:]
		p := filepath.Join(cwd[len(cwd)-1], name)
		switch op {
		case 0:
			if len(cwd) < 6 && os.Mkdir(p, 0o755) == nil {
				cwd = append(cwd, p)
			}
		case 1:
			if len(cwd) > 1 {
				cwd = cwd[:len(cwd)-1]
			}
		case 2:
			// A new file only: never through a link or into a pipe
			// made before (which would block).
			if f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
				f.Write(data)
				f.Close()
			}
		case 3:
			target := fuzzTargets[0]
			if len(data) > 0 {
				target = fuzzTargets[int(data[0])%len(fuzzTargets)]
			}
			os.Symlink(target, p)
		case 4:
			syscall.Mkfifo(p, 0o644)
		}
	}
}

// fuzzOp encodes one operation of buildTree.
func fuzzOp(op, name byte, data []byte) []byte {
	b := []byte{op, name}
	b = binary.AppendUvarint(b, uint64(len(data)))
	return append(b, data...)
}

// FuzzTree runs verify on a small directory tree made from the input
// (buildTree): databases whose CURRENT, MANIFEST, logs and tables are
// anything, named pipes, links out of the tree, to devices and to /proc,
// names with control bytes. Every run ends, within seconds, without a
// panic, with an item for every path.
func FuzzTree(f *testing.F) {
	// A database: CURRENT, a MANIFEST listing table 5, a table and a log.
	var w manifesttest.Log
	w.Add(new(manifesttest.Edit).Comparator("leveldb.BytewiseComparator").B)
	w.Add(new(manifesttest.Edit).Counters(7, 1000, 100).NewFile(0, 5, 100, manifesttest.InternalKey("a", 1), manifesttest.InternalKey("z", 2)).B)
	db := fuzzOp(0, 9, nil)
	db = append(db, fuzzOp(2, 0, []byte("MANIFEST-000002\n"))...)
	db = append(db, fuzzOp(2, 1, w.Bytes())...)
	db = append(db, fuzzOp(2, 3, make([]byte, 100))...)
	db = append(db, fuzzOp(2, 5, []byte{0, 0, 0, 0, 7, 0, 1, 0})...)
	f.Add(db)
	f.Add(append(db[:len(db):len(db)], fuzzOp(4, 1, nil)...))                         // the MANIFEST a pipe
	f.Add(append(fuzzOp(0, 9, nil), fuzzOp(2, 0, []byte("../../../proc/kmsg\n"))...)) // CURRENT outside
	f.Add(append(fuzzOp(0, 9, nil), fuzzOp(3, 0, []byte{4})...))                      // CURRENT a link to /proc/kmsg
	f.Add(append(fuzzOp(0, 11, nil), fuzzOp(3, 3, []byte{2})...))                     // a table a link to /dev/zero
	f.Fuzz(func(t *testing.T, in []byte) {
		root := t.TempDir()
		buildTree(root, in)
		done := make(chan *verify.RunResult, 1)
		go func() { done <- verify.Run([]string{root}, verify.Options{}) }()
		select {
		case r := <-done:
			if len(r.Items) == 0 {
				t.Fatalf("no item for %s", root)
			}
			for i, it := range r.Items {
				if it.Table != nil && r.Reports[i] == nil {
					t.Fatalf("%s: no report", it.Path)
				}
				if rep := r.Reports[i]; rep != nil {
					_ = rep.Line() // every line can be written
				}
				if it.Database != nil {
					_ = fmt.Sprint(it.Database.Detail())
				}
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("verify of the tree made of %q: still running after 20 s", in)
		}
	})
}
