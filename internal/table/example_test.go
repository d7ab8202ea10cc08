package table_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ldbcompat/ldbcompat/internal/table"
)

// ExampleOpen lists the data blocks of a table written by C++ LevelDB and
// its first entries: two versions of user key 0x7f, then a deletion.
func ExampleOpen() {
	f, err := os.Open(filepath.Join("..", "..", "testdata", "tables", "b10-bs4096-none", "000007.ldb"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		fmt.Println(err)
		return
	}
	t, err := table.Open("000007.ldb", f, fi.Size())
	if err != nil {
		fmt.Println(err)
		return
	}
	name, filter, _ := t.FilterBlock()
	fmt.Printf("%d data blocks, filter %s (%d bytes)\n", t.NumDataBlocks(), name, len(filter))
	b, err := t.ReadDataBlock(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first block:", b.Handle, len(b.Entries), "entries")
	for _, e := range b.Entries[:3] {
		fmt.Println(e.Key)
	}
	// Output:
	// 6 data blocks, filter leveldb.BuiltinBloomFilter2 (300 bytes)
	// first block: 0+5766 26 entries
	// 7f@357,value
	// 7f@203,value
	// 7f051412381d01695defce4c73b22420ab842f9bb201ea2112b003601a4df26cda0f4f5b@318,deletion
}
