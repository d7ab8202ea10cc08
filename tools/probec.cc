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
 *
 * Where the processor has AVX2 and FMA, variants with the six probes side
 * by side in vector registers follow, all six read before one test (no
 * first clear bit), the remainders computed
 *   vecd     in doubles: the quotient by a multiplication by 1/bits,
 *            floored, the remainder corrected by bits either way;
 *   vecf     as fastmod, in 64-bit lanes (VPMULUDQ), for bit arrays under
 *            2^14 bytes, where 49 bits of fraction suffice: c =
 *            ceil(2^46/nbytes), p = ((c*h) mod 2^49) * nbytes, the byte
 *            p >> 49, the bit (p >> 46) & 7;
 * and the bytes read by a gather (-g), or by scalar loads of the indices
 * stored to memory (-s); vecf-1g tests the first probe by scalar fastmod
 * before the vector, so that most absent keys return there. The gathers
 * read four bytes at each probe's byte, so the filter's buffer has room
 * after it. Elsewhere than x86-64 the program has the scalar variants
 * only.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif
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


#if defined(__x86_64__)
#define VEC __attribute__((noinline, target("avx2,fma")))

// probes6 returns the six probes of h, in lanes 0 to 5, probe 0 in lanes 6
// and 7.
__attribute__((target("avx2,fma"))) static inline __m256i probes6(uint32_t h) {
  uint32_t delta = (h >> 17) | (h << 15);
  return _mm256_add_epi32(_mm256_set1_epi32((int)h),
                          _mm256_mullo_epi32(_mm256_set1_epi32((int)delta), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 0, 0)));
}

// allSet reports whether bit sh[i] of g[i] is set in every lane.
__attribute__((target("avx2,fma"))) static inline bool allSet(__m256i g, __m256i sh) {
  __m256i v = _mm256_slli_epi32(_mm256_srlv_epi32(g, sh), 31);
  return _mm256_movemask_ps(_mm256_castsi256_ps(v)) == 0xff;
}

// readBytes returns, in each lane, the filter's byte at idx (in its low
// byte) by a gather, or by scalar loads.
template <bool GATHER>
__attribute__((target("avx2,fma"))) static inline __m256i readBytes(const uint8_t* f, __m256i idx) {
  if (GATHER) return _mm256_i32gather_epi32((const int*)f, idx, 1);
  alignas(32) uint32_t ix[8];
  _mm256_store_si256((__m256i*)ix, idx);
  return _mm256_setr_epi32(f[ix[0]], f[ix[1]], f[ix[2]], f[ix[3]], f[ix[4]], f[ix[5]], f[ix[6]], f[ix[7]]);
}

// vecd: the remainders in doubles, four lanes a register.
template <bool GATHER>
VEC static bool vecd(const uint8_t* key, size_t n, const uint8_t* f, size_t fn, uint64_t) {
  if (fn < 2) return false;
  unsigned k = f[fn - 1];
  if (k > 30) return true;
  uint32_t h = hash(key, n);
  uint64_t nbytes = fn - 1;
  if (k != 6 || nbytes >= (1u << 28)) return false;
  double bitsd = (double)(nbytes * 8);
  __m256d bits = _mm256_set1_pd(bitsd), inv = _mm256_set1_pd(1.0 / bitsd);
  // Unsigned to double: the sign bit flipped, converted signed, 2^31 added.
  __m256i hv = _mm256_xor_si256(probes6(h), _mm256_set1_epi32((int)0x80000000u));
  __m256d two31 = _mm256_set1_pd(2147483648.0), zero = _mm256_setzero_pd();
  __m256d x[2] = {_mm256_add_pd(_mm256_cvtepi32_pd(_mm256_castsi256_si128(hv)), two31),
                  _mm256_add_pd(_mm256_cvtepi32_pd(_mm256_extracti128_si256(hv, 1)), two31)};
  __m128i ri[2];
  for (int i = 0; i < 2; i++) {
    __m256d r = _mm256_fnmadd_pd(_mm256_floor_pd(_mm256_mul_pd(x[i], inv)), bits, x[i]);
    r = _mm256_add_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, zero, _CMP_LT_OQ), bits));
    r = _mm256_sub_pd(r, _mm256_and_pd(_mm256_cmp_pd(r, bits, _CMP_GE_OQ), bits));
    ri[i] = _mm256_cvttpd_epi32(r);
  }
  __m256i r = _mm256_set_m128i(ri[1], ri[0]);
  return allSet(readBytes<GATHER>(f, _mm256_srli_epi32(r, 3)), _mm256_and_si256(r, _mm256_set1_epi32(7)));
}

// vecf: fastmod with 49 bits of fraction, in 64-bit lanes, the even
// probes in one register and the odd ones in another.
template <bool GATHER, bool FIRST>
VEC static bool vecf(const uint8_t* key, size_t n, const uint8_t* f, size_t fn, uint64_t) {
  if (fn < 2) return false;
  unsigned k = f[fn - 1];
  if (k > 30) return true;
  uint32_t h = hash(key, n);
  uint64_t nbytes = fn - 1;
  if (k != 6 || nbytes >= (1u << 14)) return false;
  if (FIRST && !fastmodProbe(f, ((~(uint64_t)0) >> 3) / nbytes + 1, nbytes, h)) return false;
  uint64_t c = ((1ull << 46) + nbytes - 1) / nbytes;
  __m256i hv = probes6(h);
  __m256i clo = _mm256_set1_epi64x((long long)(c & 0xffffffffu)), chi = _mm256_set1_epi64x((long long)(c >> 32));
  __m256i nb = _mm256_set1_epi64x((long long)nbytes), mask49 = _mm256_set1_epi64x((1ll << 49) - 1);
  __m256i seven = _mm256_set1_epi64x(7);
  __m256i idx = _mm256_setzero_si256(), sh = _mm256_setzero_si256();
  for (int odd = 0; odd < 2; odd++) {
    __m256i x = odd ? _mm256_srli_epi64(hv, 32) : hv;
    __m256i fr = _mm256_and_si256(_mm256_add_epi64(_mm256_mul_epu32(x, clo), _mm256_slli_epi64(_mm256_mul_epu32(x, chi), 32)), mask49);
    __m256i p = _mm256_add_epi64(_mm256_mul_epu32(fr, nb), _mm256_slli_epi64(_mm256_mul_epu32(_mm256_srli_epi64(fr, 32), nb), 32));
    __m256i i = _mm256_srli_epi64(p, 49), b = _mm256_and_si256(_mm256_srli_epi64(p, 46), seven);
    idx = _mm256_or_si256(idx, odd ? _mm256_slli_epi64(i, 32) : i);
    sh = _mm256_or_si256(sh, odd ? _mm256_slli_epi64(b, 32) : b);
  }
  return allSet(readBytes<GATHER>(f, idx), sh);
}
#endif  // __x86_64__

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
  filter.reserve(filter.size() + 8);  // room for the gathers' reads
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

  const char* names[] = {"fastmod", "div26", "div246", "div135", "divall", "div26m",
#if defined(__x86_64__)
                         "vecd-g",  "vecd-s", "vecf-g", "vecf-s", "vecf-1g",
#endif
  };
  probeFn fns[] = {mix6<0, false>,    mix6<0x22, false>, mix6<0x2a, false>,  mix6<0x15, false>,
                   mix6<0x3f, false>, mix6<0x22, true>,
#if defined(__x86_64__)
                   vecd<true>,        vecd<false>,       vecf<true, false>, vecf<false, false>,
                   vecf<true, true>,
#endif
  };
  int kVariants = sizeof fns / sizeof fns[0];
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) kVariants = 6;
#endif
  std::vector<double> ratios[sizeof fns / sizeof fns[0]][2];
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
