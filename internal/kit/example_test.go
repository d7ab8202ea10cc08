package kit_test

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
	"github.com/ldbcompat/ldbcompat/internal/kit"
)

// Check runs the same checks as compat.TestPort and returns them as a
// Report, for programs such as a report generator. Here the port is this
// module's own bloom package, with every hook but the end-to-end ones. A
// port's own test calls compat.TestPort(t, port) instead.
func ExampleCheck() {
	port := compat.Port{
		Name:      "ldbcompat/bloom",
		NewPolicy: bloom.NewPolicy,
		Hash:      bloom.Hash,
		NewFilterBlockBuilder: func(p bloom.FilterPolicy) compat.FilterBlockBuilder {
			return bloom.NewFilterBlockBuilder(p)
		},
		NewFilterBlockReader: func(p bloom.FilterPolicy, contents []byte) compat.FilterBlockReader {
			return bloom.NewFilterBlockReader(p, contents)
		},
	}
	r := kit.Check(port)
	fmt.Println("passed:", r.Passed())
	for _, c := range r.Results {
		fmt.Printf("%-4s %s\n", c.Outcome, c.Property)
	}
	// Output:
	// passed: true
	// pass filter name
	// pass hash
	// pass filter bytes
	// pass KeyMayMatch on upstream filters
	// pass filter block bytes
	// pass filter block reader
	// skip reads upstream's databases
	// skip writes databases upstream reads
	// skip table bytes
	// skip reads upstream's tables
	// skip log bytes
	// skip reads upstream's logs
	// skip upstream recovers the port's log
	// skip recovers upstream's log
}

// A port with a mistake fails the property it breaks; each failure says
// what upstream does, how to reproduce it, and what it means for users.
func ExampleCheck_failure() {
	port := compat.Port{
		Name: "k-in-a-byte",
		// Keeps bits/key in a byte: wrong from 256 bits/key on.
		NewPolicy: func(bitsPerKey int) bloom.FilterPolicy { return bloom.NewPolicy(int(uint8(bitsPerKey))) },
	}
	r := kit.Check(port)
	c, _ := r.Result(kit.PropFilterBytes)
	fmt.Println(c.Property+":", c.Outcome)
	f := c.Failures[0]
	fmt.Println("first failing case:", f.Case)
	fmt.Println("reproduce:", f.Repro)
	// Output:
	// filter bytes: fail
	// first failing case: bpk371/n1
	// reproduce: NewPolicy(371).CreateFilter(compat.HexKeys("8a1a4896f631a032a4f4d4a48553ac610d4bbaa8d7f441faef118b1403d9643104770ae74d88f7"), compat.HexBytes(""))
}
