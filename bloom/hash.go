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

// Hash is util/hash.cc Hash: Murmur-like over little-endian 32-bit words,
// 1 to 3 tail bytes added unsigned (LevelDB 1.18 on), the length
// truncated to 32 bits.
func Hash(data []byte, seed uint32) uint32 {
	n := len(data)
	h := seed ^ (uint32(n) * hashM)
	// Whole words four and two at a time from 8-byte loads: fewer loads
	// and checks, same arithmetic.
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
		// The tail is the top of the key's last 4 bytes (n >= 4): one
		// load and shift, not a branch that mixed lengths mispredict
		// (BenchmarkHashMixed).
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

// HashSignedTail is v1.4 to v1.17's hash where char is signed (x86): tail
// bytes >= 0x80 sign-extended (google/leveldb#243). It exists to read
// tables those releases wrote; on ARM they computed Hash.
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

// le32 reads the LE word at p+i, checked by the caller to lie in p's slice.
func le32(p unsafe.Pointer, i int) uint32 {
	return binary.LittleEndian.Uint32((*[4]byte)(unsafe.Add(p, i))[:])
}
