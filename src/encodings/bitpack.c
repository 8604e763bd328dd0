/*
** bitpack.c -- bit packing and unpacking.
**
** The RLE/bit-packing hybrid and DELTA_BINARY_PACKED pack values from the
** least significant bit of each byte upwards (spec/Encodings.md, "Run
** Length Encoding / Bit-Packing Hybrid", note 1); the deprecated
** BIT_PACKED encoding packs from the most significant bit down.  The fast
** forms handle 32 values at a time and are generated per bit width into
** bitpack_gen.h by tools/gen_bitpack.c; the general forms below handle any
** count from any bit offset, for tails and as the tests' reference.
*/
#include "encodings.h"

static inline uint32_t pq_load32be(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         (uint32_t)p[3];
}
static inline void pq_store32be(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)(v >> 24);
  p[1] = (uint8_t)(v >> 16);
  p[2] = (uint8_t)(v >> 8);
  p[3] = (uint8_t)v;
}

/* The AVX2 unpackers are compiled for that target alone and only called
** when pq_cpu() says the machine has it. */
#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PQ_BITPACK_AVX2 1
#endif

#include "bitpack_gen.h"

const pq_unpack32_fn *pq_unpack32_table(unsigned cpu) {
#ifdef PQ_BITPACK_AVX2
  if (cpu & PQ_CPU_AVX2) return unpack32_avx2_table;
#endif
  (void)cpu;
  return unpack32_table;
}

const pq_unpack32_fn *pq_unpack32_msb_table(unsigned cpu) {
#ifdef PQ_BITPACK_AVX2
  if (cpu & PQ_CPU_AVX2) return unpack32_msb_avx2_table;
#endif
  (void)cpu;
  return unpack32_msb_table;
}

const pq_pack32_fn *pq_pack32_table(unsigned cpu) {
#ifdef PQ_BITPACK_AVX2
  if (cpu & PQ_CPU_AVX2) return pack32_avx2_table;
#endif
  (void)cpu;
  return pack32_table;
}

const pq_pack32_fn *pq_pack32_msb_table(unsigned cpu) {
#ifdef PQ_BITPACK_AVX2
  if (cpu & PQ_CPU_AVX2) return pack32_msb_avx2_table;
#endif
  (void)cpu;
  return pack32_msb_table;
}

/* Eight values at a time in four 64-bit words, which the compiler keeps
** in vector registers. */
uint32_t pq_or32(const uint32_t *u, size_t n) {
  uint64_t a[4] = {0, 0, 0, 0};
  size_t i = 0;
  for (; n - i >= 8; i += 8) {
    for (int k = 0; k < 4; k++) {
      uint64_t x;
      memcpy(&x, u + i + 2 * k, 8);
      a[k] |= x;
    }
  }
  uint64_t all = a[0] | a[1] | a[2] | a[3];
  uint32_t any = (uint32_t)all | (uint32_t)(all >> 32);
  for (; i < n; i++) any |= u[i];
  return any;
}

void pq_unpack32(int w, const uint8_t *in, uint32_t *out) {
  unpack32_table[w](in, out);
}
void pq_unpack64(int w, const uint8_t *in, uint64_t *out) {
  unpack64_table[w](in, out);
}
void pq_pack32(int w, const uint32_t *in, uint8_t *out) {
  pack32_table[w](in, out);
}
void pq_pack64(int w, const uint64_t *in, uint8_t *out) {
  pack64_table[w](in, out);
}
void pq_unpack32_msb(int w, const uint8_t *in, uint32_t *out) {
  unpack32_msb_table[w](in, out);
}
void pq_pack32_msb(int w, const uint32_t *in, uint8_t *out) {
  pack32_msb_table[w](in, out);
}

void pq_unpack_lsb(const uint8_t *in, uint64_t bit, int w, size_t n,
                   uint64_t *out) {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = 0;
    for (int j = 0; j < w; j++, bit++) {
      v |= (uint64_t)((in[bit >> 3] >> (bit & 7)) & 1) << j;
    }
    out[i] = v;
  }
}

void pq_unpack_msb(const uint8_t *in, uint64_t bit, int w, size_t n,
                   uint64_t *out) {
  for (size_t i = 0; i < n; i++) {
    uint64_t v = 0;
    for (int j = 0; j < w; j++, bit++) {
      v = v << 1 | (uint64_t)((in[bit >> 3] >> (7 - (bit & 7))) & 1);
    }
    out[i] = v;
  }
}
