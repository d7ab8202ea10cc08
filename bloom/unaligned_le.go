//go:build 386 || amd64 || arm64 || ppc64le

package bloom

// unalignedLE reports whether the machine's own loads of 4 and 8 bytes are
// little-endian and may be unaligned, as the hash reads a key's words: here
// they are, so KeyMayMatch reads keys with them, through no inlined call.
const unalignedLE = true
