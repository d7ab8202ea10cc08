//go:build !purego

package bloom

// cpuid executes the CPUID instruction with leaf eaxArg and subleaf
// ecxArg (cpu_amd64.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// earlyExitFaster reports whether KeyMayMatch is faster returning at the
// first clear bit than reading all k bits on this processor: on AMD's
// (vendor "AuthenticAMD", and Hygon's, of the same design), as measured on
// AMD EPYC family 25 (see probe.go and docs/performance.md).
var earlyExitFaster = func() bool {
	_, b, c, d := cpuid(0, 0)
	vendor := string([]byte{
		byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24),
		byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24),
		byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24),
	})
	return vendor == "AuthenticAMD" || vendor == "HygonGenuine"
}()
