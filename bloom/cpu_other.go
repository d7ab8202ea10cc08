//go:build !amd64 || purego

package bloom

// earlyExitFaster reports whether KeyMayMatch is faster returning at the
// first clear bit than reading all k bits on this processor. Where the
// processor is not told apart (other architectures, or the purego build
// tag), it reads all k bits, as on the Intel processors measured.
var earlyExitFaster = false

// divProbesFaster reports whether KeyMayMatch, returning at the first
// clear bit, is faster taking two of its probes' remainders from a
// division: never where the processor is not told apart.
var divProbesFaster = false
