//go:build leveldb

package upstream

/*
#cgo CXXFLAGS: -std=c++17 -fno-rtti -O2 -DNDEBUG
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/ldbcompat/ldbcompat/internal/blockop"
)

// Hash returns leveldb::Hash(data, len(data), seed) from util/hash.cc.
func Hash(data []byte, seed uint32) uint32 {
	return uint32(C.ldbc_hash(bytesPtr(data), C.size_t(len(data)), C.uint32_t(seed)))
}

// HashBatch returns Hash(keys[i], seed) for every key; the loop runs in C++.
func HashBatch(keys [][]byte, seed uint32) []uint32 {
	out := make([]uint32, len(keys))
	if len(keys) == 0 {
		return out
	}
	flat, offs := flatten(keys)
	C.ldbc_hash_batch(bytesPtr(flat), u64Ptr(offs), C.size_t(len(keys)), C.uint32_t(seed),
		(*C.uint32_t)(unsafe.Pointer(&out[0])))
	return out
}

// BloomName returns Name() of leveldb::NewBloomFilterPolicy(bitsPerKey),
// which is "leveldb.BuiltinBloomFilter2" ("leveldb.BuiltinBloomFilter" in
// v1.4 to v1.17, see LegacyBloom). It panics if bitsPerKey is negative.
func BloomName(bitsPerKey int) string {
	p := newPolicy(Policy{BitsPerKey: bitsPerKey})
	defer C.ldbc_policy_free(p)
	return C.GoString(C.ldbc_policy_name(p))
}

// BloomCreateFilter calls CreateFilter of leveldb::NewBloomFilterPolicy(bitsPerKey)
// on a std::string that starts as a copy of dst, and returns the whole
// resulting string: dst's bytes followed by the new filter, exactly as C++
// leaves them. It panics if bitsPerKey is negative, where C++ would crash or
// allocate wildly.
func BloomCreateFilter(bitsPerKey int, keys [][]byte, dst []byte) []byte {
	p := newPolicy(Policy{BitsPerKey: bitsPerKey})
	defer C.ldbc_policy_free(p)
	checkCount(len(keys))
	flat, offs := flatten(keys)
	r := C.ldbc_create_filter(p, bytesPtr(flat), u64Ptr(offs), C.size_t(len(keys)),
		bytesPtr(dst), C.size_t(len(dst)))
	defer C.ldbc_result_free(r)
	return resultBytes(r)
}

// BloomKeyMayMatch calls KeyMayMatch(key, filter) of
// leveldb::NewBloomFilterPolicy(bitsPerKey). It panics if bitsPerKey is
// negative.
func BloomKeyMayMatch(bitsPerKey int, key, filter []byte) bool {
	p := newPolicy(Policy{BitsPerKey: bitsPerKey})
	defer C.ldbc_policy_free(p)
	return C.ldbc_key_may_match(p, bytesPtr(key), C.size_t(len(key)),
		bytesPtr(filter), C.size_t(len(filter))) != 0
}

// BloomKeyMayMatchBatch returns BloomKeyMayMatch(bitsPerKey, keys[i], filter)
// for every key; the loop runs in C++. It panics if bitsPerKey is negative.
func BloomKeyMayMatchBatch(bitsPerKey int, keys [][]byte, filter []byte) []bool {
	p := newPolicy(Policy{BitsPerKey: bitsPerKey})
	defer C.ldbc_policy_free(p)
	if len(keys) == 0 {
		return []bool{}
	}
	flat, offs := flatten(keys)
	res := make([]uint8, len(keys))
	C.ldbc_key_may_match_batch(p, bytesPtr(flat), u64Ptr(offs), C.size_t(len(keys)),
		bytesPtr(filter), C.size_t(len(filter)), (*C.uint8_t)(unsafe.Pointer(&res[0])))
	return toBools(res)
}

// Policy selects the leveldb::FilterPolicy that a filter block uses.
type Policy struct {
	// Test selects the TestHashFilter policy of upstream's
	// table/filter_block_test.cc: a filter is the little-endian 32-bit
	// leveldb::Hash(key, 1) of each key, and a key may match when its hash
	// is one of the filter's aligned 4-byte words. BitsPerKey is then unused.
	Test bool
	// BitsPerKey is the argument of leveldb::NewBloomFilterPolicy when Test
	// is false. It must not be negative.
	BitsPerKey int
}

// FilterBlockBuild runs ops, in order, on one leveldb::FilterBlockBuilder
// using policy p, and returns a copy of the bytes returned by each Finish call,
// in order. Upstream's assertions are compiled out (NDEBUG), so any sequence
// is accepted, as in a release build; a huge StartBlock offset makes C++
// allocate an empty filter offset for every 2 KiB skipped. It panics on an
// unknown blockop.Kind or a negative p.BitsPerKey.
func FilterBlockBuild(p Policy, ops []blockop.Op) [][]byte {
	cp := newPolicy(p)
	defer C.ldbc_policy_free(cp)
	if len(ops) == 0 {
		return [][]byte{}
	}
	kinds, offsets, flat, koffs := flattenOps(ops)
	r := C.ldbc_filter_block_build(cp, (*C.uint8_t)(unsafe.Pointer(&kinds[0])), u64Ptr(offsets),
		bytesPtr(flat), u64Ptr(koffs), C.size_t(len(ops)))
	defer C.ldbc_result_free(r)

	all := resultBytes(r)
	n := int(C.ldbc_result_nparts(r))
	out := make([][]byte, n)
	if n == 0 {
		return out
	}
	lens := unsafe.Slice((*uint64)(unsafe.Pointer(C.ldbc_result_part_lens(r))), n)
	var at uint64
	for i, l := range lens {
		// Cap each part so that appending to one cannot overwrite the next.
		out[i] = all[at : at+l : at+l]
		at += l
	}
	return out
}

// FilterBlockKeyMayMatch builds a leveldb::FilterBlockReader over contents
// with policy p and returns its answer to each query. It panics if
// p.BitsPerKey is negative.
func FilterBlockKeyMayMatch(p Policy, contents []byte, queries []blockop.Query) []bool {
	cp := newPolicy(p)
	defer C.ldbc_policy_free(cp)
	if len(queries) == 0 {
		return []bool{}
	}
	offsets := make([]uint64, len(queries))
	keys := make([][]byte, len(queries))
	for i, q := range queries {
		offsets[i] = q.Offset
		keys[i] = q.Key
	}
	flat, koffs := flatten(keys)
	res := make([]uint8, len(queries))
	C.ldbc_filter_block_key_may_match(cp, bytesPtr(contents), C.size_t(len(contents)),
		u64Ptr(offsets), bytesPtr(flat), u64Ptr(koffs), C.size_t(len(queries)),
		(*C.uint8_t)(unsafe.Pointer(&res[0])))
	return toBools(res)
}

// TimeCreateFilter builds a filter of keys with
// leveldb::NewBloomFilterPolicy(bitsPerKey) iters times, timed inside C++
// with std::chrono::steady_clock. Each round clears and reuses one
// std::string, as Go code reusing dst[:0] would. It returns the filter of the
// last round (nil when iters is 0) and the total time in nanoseconds. It
// panics if bitsPerKey or iters is negative.
func TimeCreateFilter(bitsPerKey int, keys [][]byte, iters int) (filter []byte, nanos int64) {
	checkIters(iters)
	p := newPolicy(Policy{BitsPerKey: bitsPerKey})
	defer C.ldbc_policy_free(p)
	checkCount(len(keys))
	flat, offs := flatten(keys)
	var r *C.ldbc_result
	ns := C.ldbc_time_create_filter(p, bytesPtr(flat), u64Ptr(offs), C.size_t(len(keys)),
		C.int64_t(iters), &r)
	defer C.ldbc_result_free(r)
	if iters > 0 {
		filter = resultBytes(r)
	}
	return filter, int64(ns)
}

// TimeKeyMayMatch asks KeyMayMatch(key, filter) of
// leveldb::NewBloomFilterPolicy(bitsPerKey) for every key, iters times, timed
// inside C++ with std::chrono::steady_clock. It returns how many keys matched
// in one round and the total time in nanoseconds. It panics if bitsPerKey or
// iters is negative.
func TimeKeyMayMatch(bitsPerKey int, keys [][]byte, filter []byte, iters int) (hits int, nanos int64) {
	checkIters(iters)
	p := newPolicy(Policy{BitsPerKey: bitsPerKey})
	defer C.ldbc_policy_free(p)
	flat, offs := flatten(keys)
	var h C.uint64_t
	ns := C.ldbc_time_key_may_match(p, bytesPtr(flat), u64Ptr(offs), C.size_t(len(keys)),
		bytesPtr(filter), C.size_t(len(filter)), C.int64_t(iters), &h)
	return int(h), int64(ns)
}

// TimeFilterBlock runs ops on a new leveldb::FilterBlockBuilder with
// leveldb::NewBloomFilterPolicy(bitsPerKey), iters times, timed inside C++
// with std::chrono::steady_clock, and returns the total time in nanoseconds.
// It panics on an unknown blockop.Kind, or if bitsPerKey or iters is negative.
func TimeFilterBlock(bitsPerKey int, ops []blockop.Op, iters int) (nanos int64) {
	checkIters(iters)
	p := newPolicy(Policy{BitsPerKey: bitsPerKey})
	defer C.ldbc_policy_free(p)
	if len(ops) == 0 {
		return 0
	}
	kinds, offsets, flat, koffs := flattenOps(ops)
	ns := C.ldbc_time_filter_block(p, (*C.uint8_t)(unsafe.Pointer(&kinds[0])), u64Ptr(offsets),
		bytesPtr(flat), u64Ptr(koffs), C.size_t(len(ops)), C.int64_t(iters))
	return int64(ns)
}

// newPolicy makes the C++ policy for p; the caller frees it with
// C.ldbc_policy_free.
func newPolicy(p Policy) *C.ldbc_policy {
	test := C.int(0)
	bits := 0
	if p.Test {
		test = 1
	} else {
		if p.BitsPerKey < 0 {
			panic(fmt.Sprintf("upstream: bitsPerKey %d is negative (C++ LevelDB would crash or allocate wildly)", p.BitsPerKey))
		}
		if p.BitsPerKey > math.MaxInt32 {
			panic(fmt.Sprintf("upstream: bitsPerKey %d does not fit C++'s int", p.BitsPerKey))
		}
		bits = p.BitsPerKey
	}
	return C.ldbc_policy_new(test, C.int(bits))
}

// checkCount panics if n keys cannot be passed as CreateFilter's int count.
func checkCount(n int) {
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("upstream: %d keys do not fit CreateFilter's int count", n))
	}
}

func checkIters(iters int) {
	if iters < 0 {
		panic(fmt.Sprintf("upstream: negative iteration count %d", iters))
	}
}

// flatten copies keys into one buffer; key i is flat[offs[i]:offs[i+1]].
// The result holds no Go pointers, so cgo may pass it to C.
func flatten(keys [][]byte) (flat []byte, offs []uint64) {
	total := 0
	for _, k := range keys {
		total += len(k)
	}
	flat = make([]byte, 0, total)
	offs = make([]uint64, len(keys)+1)
	for i, k := range keys {
		flat = append(flat, k...)
		offs[i+1] = uint64(len(flat))
	}
	return flat, offs
}

// flattenOps splits ops into parallel arrays that hold no Go pointers.
func flattenOps(ops []blockop.Op) (kinds []uint8, offsets []uint64, flat []byte, koffs []uint64) {
	kinds = make([]uint8, len(ops))
	offsets = make([]uint64, len(ops))
	keys := make([][]byte, len(ops))
	for i, op := range ops {
		switch op.Kind {
		case blockop.StartBlock:
			offsets[i] = op.Offset
		case blockop.AddKey:
			keys[i] = op.Key
		case blockop.Finish:
		default:
			panic(fmt.Sprintf("upstream: op %d has unknown kind %d", i, op.Kind))
		}
		kinds[i] = uint8(op.Kind)
	}
	flat, koffs = flatten(keys)
	return kinds, offsets, flat, koffs
}

// bytesPtr returns a C pointer to b's first byte, or nil for an empty b.
func bytesPtr(b []byte) *C.char {
	if len(b) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(&b[0]))
}

// u64Ptr returns a C pointer to s's first element, or nil for an empty s.
func u64Ptr(s []uint64) *C.uint64_t {
	if len(s) == 0 {
		return nil
	}
	return (*C.uint64_t)(unsafe.Pointer(&s[0]))
}

// resultBytes copies the bytes of r into Go memory. It does not use
// C.GoBytes, whose length is a C int: filters may exceed 2 GiB.
func resultBytes(r *C.ldbc_result) []byte {
	n := uint64(C.ldbc_result_len(r))
	out := make([]byte, n)
	if n > 0 {
		copy(out, unsafe.Slice((*byte)(unsafe.Pointer(C.ldbc_result_data(r))), n))
	}
	return out
}

func toBools(b []uint8) []bool {
	out := make([]bool, len(b))
	for i, v := range b {
		out[i] = v != 0
	}
	return out
}
