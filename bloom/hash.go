package bloom

import (
	"encoding/binary"
	"unsafe"
)

// Constants of upstream's util/hash.cc.
const (
	hashM = 0xc6a4a793
	hashR = 24
)

// bloomSeed is the seed util/bloom.cc passes to Hash (BloomHash).
const bloomSeed = 0xbc9f1d34

// Hash is LevelDB's util/hash.cc Hash: a Murmur-like hash that reads data as
// little-endian 32-bit words and folds the 1 to 3 remaining tail bytes in as
// unsigned values (LevelDB 1.18 and later on every architecture).
//
// The length enters the hash truncated to 32 bits, as in upstream.
func Hash(data []byte, seed uint32) uint32 {
	n := len(data)
	h := seed ^ (uint32(n) * hashM)
	// Whole words, four and then two at a time from 8-byte loads: the
	// same arithmetic as one word at a time, with fewer loads, length
	// checks and slice updates.
	for len(data) >= 16 {
		w0 := binary.LittleEndian.Uint64(data)
		w1 := binary.LittleEndian.Uint64(data[8:])
		h = mixWord(h, uint32(w0))
		h = mixWord(h, uint32(w0>>32))
		h = mixWord(h, uint32(w1))
		h = mixWord(h, uint32(w1>>32))
		data = data[16:]
	}
	if len(data) >= 8 {
		w := binary.LittleEndian.Uint64(data)
		h = mixWord(h, uint32(w))
		h = mixWord(h, uint32(w>>32))
		data = data[8:]
	}
	if len(data) >= 4 {
		h = mixWord(h, binary.LittleEndian.Uint32(data))
		data = data[4:]
	}
	if len(data) > 0 {
		if n < 4 {
			return mixTail(h, data)
		}
		// The 1 to 3 tail bytes are the top of the last 4 bytes of the
		// key: one load and a shift, instead of a branch on how many
		// there are, which changes from key to key where keys have mixed
		// lengths and which the processor then mispredicts
		// (BenchmarkHashMixed). The load starts len(data)-4 bytes from
		// data, before it: inside the key, which has n >= 4 bytes.
		t := le32(unsafe.Pointer(unsafe.SliceData(data)), len(data)-4) >> (32 - 8*uint(len(data)))
		h += t
		h *= hashM
		h ^= h >> hashR
	}
	return h
}

// mixWord folds one 4-byte little-endian word w into h.
func mixWord(h, w uint32) uint32 {
	h += w
	h *= hashM
	return h ^ h>>16
}

// mixTail folds the 1 to 3 tail bytes into h, as unsigned values.
func mixTail(h uint32, tail []byte) uint32 {
	var t uint32
	switch len(tail) {
	case 3:
		t = uint32(tail[2])<<16 | uint32(tail[1])<<8 | uint32(tail[0])
	case 2:
		t = uint32(tail[1])<<8 | uint32(tail[0])
	case 1:
		t = uint32(tail[0])
	}
	h += t
	h *= hashM
	return h ^ h>>hashR
}

// HashSignedTail is the hash of LevelDB v1.4 to v1.17 as compiled
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

// le32 reads the little-endian word at p+i, which the caller has checked
// lies inside p's slice.
func le32(p unsafe.Pointer, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(p, i))[:])
}
