//go:build leveldb && linux && (amd64 || arm64)

package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestDropCacheAndWarm checks dropCache and warmCache on a file of 1 MiB
// and a page: after dropCache none of its pages is in the page cache,
// after warmCache all of them are, and its contents do not change.
func TestDropCacheAndWarm(t *testing.T) {
	dir := t.TempDir()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	const tmpfsMagic = 0x01021994
	if st.Type == tmpfsMagic {
		t.Skipf("%s is on tmpfs, whose pages are the files themselves and cannot be dropped", dir)
	}
	path := filepath.Join(dir, "000007.ldb")
	want := bytes.Repeat([]byte("ldbcompat"), (1<<20+4096)/9+1)
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	pages := (len(want) + os.Getpagesize() - 1) / os.Getpagesize()
	resident := func() int {
		t.Helper()
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n, err := residentPages(f, int64(len(want)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	n, err := dropCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 || resident() != 0 {
		t.Errorf("after dropCache, dropCache says %d pages and mincore %d are in the page cache; want 0", n, resident())
	}
	if err := warmCache([]string{path}); err != nil {
		t.Fatal(err)
	}
	if got := resident(); got != pages {
		t.Errorf("after warmCache, %d of the file's %d pages are in the page cache", got, pages)
	}
	if err := dropTables([]string{path}); err != nil {
		t.Errorf("dropTables: %v", err)
	}
	if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
		t.Errorf("the file changed (err %v)", err)
	}
	if _, err := dropCache(filepath.Join(dir, "missing.ldb")); err == nil {
		t.Error("dropCache of a missing file: no error")
	}
}
