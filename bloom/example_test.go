package bloom_test

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/bloom"
)

func ExampleNewPolicy() {
	p := bloom.NewPolicy(10)
	keys := [][]byte{[]byte("apple"), []byte("banana"), []byte("cherry")}
	filter := p.CreateFilter(keys, nil)

	fmt.Println(p.Name())
	fmt.Println(len(filter), "bytes, k =", filter[len(filter)-1])
	fmt.Println(p.KeyMayMatch([]byte("banana"), filter))
	// Output:
	// leveldb.BuiltinBloomFilter2
	// 9 bytes, k = 6
	// true
}

func ExampleFilterBlockBuilder() {
	p := bloom.NewPolicy(10)
	b := bloom.NewFilterBlockBuilder(p)

	// Data block at offset 0 holds two keys; the next starts at 4096, two
	// 2 KiB ranges later, so range 1 gets an empty filter.
	b.StartBlock(0)
	b.AddKey([]byte("a"))
	b.AddKey([]byte("b"))
	b.StartBlock(4096)
	b.AddKey([]byte("c"))
	block := b.Finish()

	r := bloom.NewFilterBlockReader(p, block)
	fmt.Println(r.KeyMayMatch(0, []byte("a")), r.KeyMayMatch(4096, []byte("c")))
	fmt.Println(r.KeyMayMatch(2048, []byte("a"))) // the empty filter matches nothing
	// Output:
	// true true
	// false
}
