package bloom

import (
	"math/rand"
	"testing"
)

// Cases of upstream's util/hash_test.cc (SignedUnsignedIssue).
var upstreamHashCases = []struct {
	data []byte
	seed uint32
	want uint32
}{
	{nil, 0xbc9f1d34, 0xbc9f1d34},
	{[]byte{0x62}, 0xbc9f1d34, 0xef1345c4},
	{[]byte{0xc3, 0x97}, 0xbc9f1d34, 0x5b663814},
	{[]byte{0xe2, 0x99, 0xa5}, 0xbc9f1d34, 0x323c078f},
	{[]byte{0xe1, 0x80, 0xb9, 0x32}, 0xbc9f1d34, 0xed21633a},
	{[]byte{
		0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
		0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18, 0x28, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	}, 0x12345678, 0xf333dabb},
}

func TestHashUpstream(t *testing.T) {
	for _, c := range upstreamHashCases {
		if got := Hash(c.data, c.seed); got != c.want {
			t.Errorf("Hash(% x, %#x) = %#x, want %#x (util/hash_test.cc)", c.data, c.seed, got, c.want)
		}
	}
}

// refHash is util/hash.cc written out step by step, byte by byte, as the
// first-principles reference for lengths and bytes the upstream cases miss.
func refHash(data []byte, seed uint32, signed bool) uint32 {
	const m, r = 0xc6a4a793, 24
	h := seed ^ uint32(len(data))*m
	i := 0
	for ; i+4 <= len(data); i += 4 {
		w := uint32(data[i]) | uint32(data[i+1])<<8 | uint32(data[i+2])<<16 | uint32(data[i+3])<<24
		h += w
		h *= m
		h ^= h >> 16
	}
	tail := data[i:]
	if len(tail) == 0 {
		return h
	}
	for j := len(tail) - 1; j >= 0; j-- {
		v := int64(tail[j])
		if signed && v >= 0x80 {
			v -= 256
		}
		h += uint32(v << (8 * j))
	}
	h *= m
	h ^= h >> r
	return h
}

func TestHashReference(t *testing.T) {
	data := make([]byte, 70)
	for i := range data {
		data[i] = byte(0x7d + 37*i) // crosses 0x80 often
	}
	for n := 0; n <= len(data); n++ {
		for _, seed := range []uint32{0, 1, 0xbc9f1d34, 0xffffffff} {
			if got, want := Hash(data[:n], seed), refHash(data[:n], seed, false); got != want {
				t.Fatalf("Hash(len %d, %#x) = %#x, want %#x", n, seed, got, want)
			}
			if got, want := HashSignedTail(data[:n], seed), refHash(data[:n], seed, true); got != want {
				t.Fatalf("HashSignedTail(len %d, %#x) = %#x, want %#x", n, seed, got, want)
			}
		}
	}
}

func TestHashSignedTail(t *testing.T) {
	// Tails below 0x80 hash the same either way; a tail byte of 0x80 or more
	// is where x86 and ARM builds of old LevelDB disagreed.
	for _, c := range upstreamHashCases {
		signedDiffers := false
		for _, b := range c.data[len(c.data)/4*4:] {
			signedDiffers = signedDiffers || b >= 0x80
		}
		same := HashSignedTail(c.data, c.seed) == Hash(c.data, c.seed)
		if same == signedDiffers {
			t.Errorf("% x: HashSignedTail==Hash is %v, want %v", c.data, same, !signedDiffers)
		}
	}
}

// TestHashKeys checks hashKeys, CreateFilter's copy of Hash, against Hash
// for keys of every length to 70, in runs longer and shorter than a chunk.
func TestHashKeys(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	var keys [][]byte
	for n := 0; n <= 70; n++ {
		key := make([]byte, n)
		rng.Read(key)
		keys = append(keys, key, key[:n/2])
	}
	hashes := make([]uint32, len(keys))
	hashKeys(keys, hashes)
	for i, key := range keys {
		if want := Hash(key, bloomSeed); hashes[i] != want {
			t.Fatalf("hashKeys: key % x hashes to %#x, Hash %#x", key, hashes[i], want)
		}
	}
}
