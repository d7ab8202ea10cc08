/*
 * probec: what KeyMayMatch's arithmetic takes in C on this machine, side
 * by side with upstream's own KeyMayMatch in one process, to tell what the
 * processor allows from what Go's compiler makes of it (docs/performance.md,
 * "On AMD EPYC family 25, a tenth session").
 *
 *   eval "$(docker/build-leveldb.sh --print-env)"
 *   g++ -O2 $CGO_CPPFLAGS -o /tmp/probec tools/probec.cc $CGO_LDFLAGS
 *   /tmp/probec
 *
 * It builds upstream's filter of 10,000 random 16-byte keys at 10 bits per
 * key (k = 6), checks that its own arithmetic sets the same bytes, then,
 * 40 rounds over, times upstream's KeyMayMatch (through its FilterPolicy)
 * on those keys (present) and on 10,000 others (absent), and after it
 * each of the variants below on the same keys, called through a function
 * pointer, checking that each answers as upstream does. It prints, per
 * variant and kind of key, the median and the fastest of the rounds'
 * ratios variant / upstream, as make bench prints go/c++.
 *
 * The variants are ways of probing a filter below 2^32 bits, each
 * returning at the first clear bit: every probe's remainder by Lemire's
 * fastmod (bloom's early6 path, AMD's family 26), or some of them by a
 * 32-bit division:
 *   fastmod  none by division;
 *   div26    the second and the sixth (bloom's path on AMD's family 25);
 *   div246   the second, fourth and sixth;
 *   div135   the first, third and fifth;
 *   divall   all six (upstream divides too, in 64 bits: bits is a size_t);
 *   div26m   div26 with fastmod's multiplier computed once per filter
 *            instead of once per call (which KeyMayMatch's signature,
 *            upstream's, leaves no place to keep).
 * Each hashes the key as util/hash.cc does, 16 bytes a step, and tests k
 * and the filter's length as bloom does. Another mix is one more line in
 * main's table: mix6's bit j divides probe j.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "leveldb/filter_policy.h"
#include "leveldb/slice.h"

static const uint32_t kM = 0xc6a4a793u;
static const uint32_t kSeed = 0xbc9f1d34u;

static inline uint64_t load64(const uint8_t* p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

static inline uint32_t load32(const uint8_t* p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}

static inline uint32_t mix(uint32_t h, uint32_t w) {
  h += w;
  h *= kM;
  return h ^ (h >> 16);
}

// hash is util/hash.cc's Hash(key, n, kSeed), 16 bytes a step.
static inline uint32_t hash(const uint8_t* key, size_t n) {
  uint32_t h = kSeed ^ (uint32_t)n * kM;
  size_t r = n;
  for (; r >= 16; r -= 16, key += 16) {
    uint64_t w0 = load64(key), w1 = load64(key + 8);
    h = mix(mix(mix(mix(h, (uint32_t)w0), (uint32_t)(w0 >> 32)), (uint32_t)w1), (uint32_t)(w1 >> 32));
  }
  if (r >= 8) {
    uint64_t w = load64(key);
    h = mix(mix(h, (uint32_t)w), (uint32_t)(w >> 32));
    r -= 8;
    key += 8;
  }
  if (r >= 4) {
    h = mix(h, load32(key));
    r -= 4;
    key += 4;
  }
  if (r > 0) {
    uint32_t t = 0;
    for (size_t j = r; j > 0; j--) t = t << 8 | key[j - 1];
    h += t;
    h *= kM;
    h ^= h >> 24;
  }
  return h;
}

// fastmodProbe reports whether the bit of probe h is set, by fastmod.
static inline bool fastmodProbe(const uint8_t* f, uint64_t m, uint64_t nbytes, uint32_t h) {
  unsigned __int128 p = (unsigned __int128)(m * (uint64_t)h) * nbytes;
  return f[(uint64_t)(p >> 64)] & (1u << ((uint64_t)p >> 61));
}

// divProbe reports whether the bit of probe h is set, by division.
static inline bool divProbe(const uint8_t* f, uint32_t nbits, uint32_t h) {
  uint32_t b = h % nbits;
  return f[b / 8] & (1u << (b % 8));
}

typedef bool (*probeFn)(const uint8_t* key, size_t n, const uint8_t* f, size_t fn, uint64_t m);

// mix6 tests the six probes, those j with bit j of DIV set by division,
// the others by fastmod. It takes the key, the filter and fastmod's
// multiplier m, which it uses only with KEEP (div26m); otherwise it divides
// for its own per call, as bloom does. It tests the filter as bloom's
// KeyMayMatch does; filters of another k or of 2^32 bits or more, which
// bloom probes on other paths, are not this program's and answer false.
template <int DIV, bool KEEP>
__attribute__((noinline)) static bool mix6(const uint8_t* key, size_t n, const uint8_t* f, size_t fn, uint64_t m) {
  if (fn < 2) return false;
  unsigned k = f[fn - 1];
  if (k > 30) return true;
  uint32_t h = hash(key, n);
  uint64_t nbytes = fn - 1;
  if (k != 6 || nbytes >= (1u << 29)) return false;
  uint32_t delta = (h >> 17) | (h << 15);
  if (!KEEP) m = ((~(uint64_t)0) >> 3) / nbytes + 1;
  uint32_t nbits = (uint32_t)nbytes * 8;
#define PROBE(j) (((DIV >> j) & 1) ? divProbe(f, nbits, h + j * delta) : fastmodProbe(f, m, nbytes, h + j * delta))
  return PROBE(0) && PROBE(1) && PROBE(2) && PROBE(3) && PROBE(4) && PROBE(5);
#undef PROBE
}

static double nowNs() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

static uint64_t rngState = 88172645463325252ull;
static uint64_t rng() {
  rngState ^= rngState << 13;
  rngState ^= rngState >> 7;
  rngState ^= rngState << 17;
  return rngState;
}

int main() {
  const int kKeys = 10000, kIters = 100, kRounds = 40;
  std::vector<std::string> present(kKeys), absent(kKeys);
  for (int i = 0; i < kKeys; i++) {
    for (int j = 0; j < 16; j++) present[i].push_back((char)rng());
    for (int j = 0; j < 16; j++) absent[i].push_back((char)rng());
  }
  std::vector<leveldb::Slice> slices[2];
  for (int i = 0; i < kKeys; i++) {
    slices[0].emplace_back(present[i]);
    slices[1].emplace_back(absent[i]);
  }
  const leveldb::FilterPolicy* policy = leveldb::NewBloomFilterPolicy(10);
  std::string filter;
  policy->CreateFilter(slices[0].data(), kKeys, &filter);
  const uint8_t* f = (const uint8_t*)filter.data();
  size_t fn = filter.size();
  uint64_t nbytes = fn - 1;
  uint64_t m = ((~(uint64_t)0) >> 3) / nbytes + 1;
  std::string mine(fn, '\0');
  mine[nbytes] = 6;
  for (int i = 0; i < kKeys; i++) {
    uint32_t h = hash((const uint8_t*)present[i].data(), 16), delta = (h >> 17) | (h << 15);
    for (int j = 0; j < 6; j++, h += delta) {
      uint32_t b = h % (uint32_t)(nbytes * 8);
      mine[b / 8] |= (char)(1 << (b % 8));
    }
  }
  if (f[nbytes] != 6 || mine != filter) {
    fprintf(stderr, "probec: upstream's filter is not the one this program's arithmetic makes\n");
    return 1;
  }

  const char* names[] = {"fastmod", "div26", "div246", "div135", "divall", "div26m"};
  probeFn fns[] = {mix6<0, false>,    mix6<0x22, false>, mix6<0x2a, false>,
                   mix6<0x15, false>, mix6<0x3f, false>, mix6<0x22, true>};
  const int kVariants = sizeof fns / sizeof fns[0];
  std::vector<double> ratios[kVariants][2];
  for (int round = 0; round < kRounds; round++) {
    for (int set = 0; set < 2; set++) {
      long want = 0;
      double start = nowNs();
      for (int it = 0; it < kIters; it++)
        for (int i = 0; i < kKeys; i++) want += policy->KeyMayMatch(slices[set][i], filter);
      double upstream = nowNs() - start;
      for (int v = 0; v < kVariants; v++) {
        probeFn volatile fnp = fns[v];
        probeFn call = fnp;
        long got = 0;
        start = nowNs();
        for (int it = 0; it < kIters; it++)
          for (int i = 0; i < kKeys; i++) got += call((const uint8_t*)slices[set][i].data(), 16, f, fn, m);
        double t = nowNs() - start;
        if (got != want) {
          fprintf(stderr, "probec: %s answers %ld matches where upstream answers %ld\n", names[v], got, want);
          return 1;
        }
        ratios[v][set].push_back(t / upstream);
      }
    }
  }
  printf("variant / upstream KeyMayMatch, 10000 16-byte keys, 10 bits/key, %d rounds\n", kRounds);
  for (int v = 0; v < kVariants; v++) {
    for (int set = 0; set < 2; set++) {
      std::vector<double>& r = ratios[v][set];
      std::sort(r.begin(), r.end());
      printf("%-8s %-7s median %.3f  fastest %.3f\n", names[v], set ? "absent" : "present", r[r.size() / 2], r[0]);
    }
  }
  delete policy;
  return 0;
}
