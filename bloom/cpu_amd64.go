//go:build !purego

package bloom

// cpuid executes the CPUID instruction with leaf eaxArg and subleaf
// ecxArg (cpu_amd64.s).
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// earlyExitFaster reports whether KeyMayMatch is faster returning at the
// first clear bit than reading all k bits on this processor: on AMD's
// (vendor "AuthenticAMD", and Hygon's, of the same design), as measured on
// AMD EPYC family 25 (see probe.go and docs/performance.md).
var earlyExitFaster = cpuVendor == "AuthenticAMD" || cpuVendor == "HygonGenuine"

// divProbesFaster reports whether KeyMayMatch, returning at the first
// clear bit, is faster taking two of its six probes' remainders from a
// division (isSetDiv) than all from the reducer: on AMD's family 25 (Zen 3
// and Zen 4; EPYC family 25 model 17 measured), whose divider is idle
// while the multiplier is busy, and not on family 26 (Zen 5; family 26
// model 2 measured), whose 32-bit division is slower (see probe.go and
// docs/performance.md).
var divProbesFaster = earlyExitFaster && cpuFamily == 25

// cpuVendor is the processor's vendor string, from CPUID leaf 0.
var cpuVendor = func() string {
	_, b, c, d := cpuid(0, 0)
	return string([]byte{
		byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24),
		byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24),
		byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24),
	})
}()

// cpuFamily is the processor's family, as /proc/cpuinfo gives it: CPUID
// leaf 1's base family, plus its extended family where the base is 15.
var cpuFamily = func() uint32 {
	a, _, _, _ := cpuid(1, 0)
	family := a >> 8 & 0xf
	if family == 0xf {
		family += a >> 20 & 0xff
	}
	return family
}()
