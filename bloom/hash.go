package bloom

import "encoding/binary"

// Constants of upstream's util/hash.cc.
const (
	hashM = 0xc6a4a793
	hashR = 24
)

// bloomSeed is the seed util/bloom.cc passes to Hash (BloomHash).
const bloomSeed = 0xbc9f1d34

// Hash is LevelDB's util/hash.cc Hash: a Murmur-like hash that reads data as
// little-endian 32-bit words and folds the 1 to 3 remaining tail bytes in as
// unsigned values (LevelDB 1.16 and later on every architecture).
//
// The length enters the hash truncated to 32 bits, as in upstream.
func Hash(data []byte, seed uint32) uint32 {
	h := seed ^ (uint32(len(data)) * hashM)
	for len(data) >= 4 {
		h += binary.LittleEndian.Uint32(data)
		h *= hashM
		h ^= h >> 16
		data = data[4:]
	}
	switch len(data) {
	case 3:
		h += uint32(data[2])<<16 | uint32(data[1])<<8 | uint32(data[0])
		h *= hashM
		h ^= h >> hashR
	case 2:
		h += uint32(data[1])<<8 | uint32(data[0])
		h *= hashM
		h ^= h >> hashR
	case 1:
		h += uint32(data[0])
		h *= hashM
		h ^= h >> hashR
	}
	return h
}

// HashSignedTail is the hash of LevelDB releases before 1.16 as compiled
// where char is signed (x86): tail bytes of 0x80 and above are sign-extended
// before they are shifted and added. On ARM, where char is unsigned, those
// releases computed Hash. The difference is google/leveldb issue 243; this
// variant exists only to read tables written by such releases.
func HashSignedTail(data []byte, seed uint32) uint32 {
	h := seed ^ (uint32(len(data)) * hashM)
	for len(data) >= 4 {
		h += binary.LittleEndian.Uint32(data)
		h *= hashM
		h ^= h >> 16
		data = data[4:]
	}
	switch len(data) {
	case 3:
		h += uint32(int32(int8(data[2])) << 16)
		fallthrough
	case 2:
		h += uint32(int32(int8(data[1])) << 8)
		fallthrough
	case 1:
		h += uint32(int32(int8(data[0])))
		h *= hashM
		h ^= h >> hashR
	}
	return h
}
