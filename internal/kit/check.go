package kit

import "fmt"

// Running the kit: package compat registers its checks here.

// check is package compat's check of a port, set by SetCheck.
var check func(port any) (Report, bool)

// SetCheck is called by package compat when it is initialised, with the
// function that checks a compat.Port given as port (ok is false for any
// other value).
func SetCheck(f func(port any) (r Report, ok bool)) { check = f }

// Check checks port, a compat.Port, against upstream LevelDB 1.23 as
// compat.TestPort does, and returns the outcome of every property. It
// panics when port is not a compat.Port.
func Check(port any) Report {
	if check == nil {
		panic("kit: package compat is not linked in: Check takes a compat.Port")
	}
	r, ok := check(port)
	if !ok {
		panic(fmt.Sprintf("kit: Check of a %T, not a compat.Port", port))
	}
	return r
}
