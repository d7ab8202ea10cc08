//go:build !(386 || amd64 || arm64 || ppc64le)

package bloom

// unalignedLE reports whether the machine's own loads of 4 and 8 bytes are
// little-endian and may be unaligned: not here, so KeyMayMatch calls Hash.
const unalignedLE = false
