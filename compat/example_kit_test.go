package compat_test

import (
	"fmt"

	"github.com/ldbcompat/ldbcompat/bloom"
	"github.com/ldbcompat/ldbcompat/compat"
)

// Check runs the same checks as TestPort and returns them as a Report, for
// programs such as a report generator. A port's own test calls
// compat.TestPort(t, port) instead.
func ExampleCheck() {
	r := compat.Check(compat.BloomPort())
	fmt.Println("passed:", r.Passed())
	for _, c := range r.Checks {
		fmt.Printf("%-4s %s\n", c.Status, c.Property)
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
}

// A port with a mistake fails the property it breaks; each failure says
// what upstream does and how to reproduce it.
func ExampleCheck_failure() {
	port := compat.Port{
		Name: "k-in-a-byte",
		// Keeps bits/key in a byte: wrong from 256 bits/key on.
		NewPolicy: func(bitsPerKey int) bloom.FilterPolicy { return bloom.NewPolicy(int(uint8(bitsPerKey))) },
	}
	r := compat.Check(port)
	c, _ := r.Result(compat.PropFilterBytes)
	fmt.Println(c.Property+":", c.Status)
	fmt.Println("first failing case:", c.Failures[0].Case)
	// Output:
	// filter bytes: fail
	// first failing case: bpk371/n1
}
