/*
** delta_binary_packed.c -- DELTA_BINARY_PACKED (spec/Encodings.md, "Delta
** Encoding").
**
**   header: <block size> <miniblocks per block> <value count> <first value>
**   block:  <min delta> <one bit-width byte per miniblock> <miniblocks>
**
** Sizes are ULEB128, the first value and min delta zigzag ULEB128.  All
** arithmetic is unsigned so that wraparound is defined: INT32 streams wrap
** modulo 2^32, INT64 modulo 2^64, as the spec requires.  The spec asks for
** blocks of a multiple of 128 values and miniblocks of a multiple of 32;
** multiples of 8 are accepted too, so that the spec's own examples (block
** size 8) can be decoded and reproduced.
*/
#include "encodings.h"

#define BLOCK_MAX ((uint64_t)1 << 31)

/* ---- Reader ------------------------------------------------------------- */

static const char *const header_fields[4] = {"block size", "miniblock count",
                                             "value count", "first value"};

int pq_delta_reader_init(pq_delta_reader *r, const uint8_t *buf, size_t len,
                         size_t base, int is32, const char *label,
                         pq_error *err) {
  memset(r, 0, sizeof *r);
  r->buf = buf;
  r->len = len;
  r->base = base;
  r->is32 = is32 != PQ_DELTA_64;
  r->maxw = is32 == PQ_DELTA_64 ? 64 : is32 == PQ_DELTA_32 ? 32 : 33;
  r->label = label;
  uint64_t h[4];
  for (int i = 0; i < 4; i++) {
    size_t at = r->pos;
    int bad = pq_uleb_read(buf, len, &r->pos, &h[i]);
    if (bad) {
      return pq_fail(err, PQ_CORRUPT, label,
                     bad == 1 ? "header: the %s at offset %zu is cut short"
                              : "header: the %s at offset %zu is over 64 bits",
                     header_fields[i], base + at);
    }
  }
  r->block_size = h[0];
  r->mb_count = h[1];
  r->total = h[2];
  if (h[0] == 0 || h[0] % 8 != 0 || h[0] > BLOCK_MAX) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "header: block size %llu is not a multiple of 128 (nor of "
                   "8, as in the spec's examples)",
                   (unsigned long long)h[0]);
  }
  if (h[1] == 0 || h[0] % h[1] != 0 || (h[0] / h[1]) % 8 != 0) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "header: %llu miniblocks do not divide a block of %llu "
                   "values into miniblocks of a multiple of 32 (or 8) values",
                   (unsigned long long)h[1], (unsigned long long)h[0]);
  }
  r->mb_values = h[0] / h[1];
  int64_t first = pq_zigzag_dec(h[3]);
  if (is32 == PQ_DELTA_32 && (first < INT32_MIN || first > INT32_MAX)) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "header: first value %lld does not fit in INT32",
                   (long long)first);
  }
  r->last = (uint64_t)first;
  /* Every block, even one of zero-width miniblocks, takes at least its min
  ** delta byte and its bit-width bytes: check the count against that. */
  if (r->total > 1) {
    uint64_t blocks = (r->total - 1 - 1) / r->block_size + 1;
    uint64_t per = 1 + r->mb_count;
    size_t left = len - r->pos;
    if (r->mb_count > left || blocks > left / per) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "header: %llu values need %llu blocks of at least %llu "
                     "bytes after offset %zu, %zu bytes remain",
                     (unsigned long long)r->total, (unsigned long long)blocks,
                     (unsigned long long)per, base + r->pos, left);
    }
  }
  r->mb = r->mb_count; /* so the first miniblock starts a block */
  r->cpu = pq_cpu();
  r->unpack32 = pq_unpack32_table(r->cpu);
  return PQ_OK;
}

/* A ULEB128 of one or two bytes inline (min deltas up to 2^13 in
** magnitude: sorted timestamps' take two), any other through
** pq_uleb_read. */
static inline int uleb_read(const uint8_t *p, size_t len, size_t *pos,
                            uint64_t *out) {
  if (PQ_LIKELY(*pos < len && p[*pos] < 0x80)) {
    *out = p[(*pos)++];
    return 0;
  }
  if (len - *pos >= 2 && p[*pos + 1] < 0x80) {
    *out = (uint64_t)(p[*pos] & 0x7f) | (uint64_t)p[*pos + 1] << 7;
    *pos += 2;
    return 0;
  }
  return pq_uleb_read(p, len, pos, out);
}

static inline int delta_next(pq_delta_reader *r, pq_error *err) {
  if (r->mb + 1 >= r->mb_count || r->widths == NULL) {
    size_t at = r->pos;
    uint64_t zz;
    int bad = uleb_read(r->buf, r->len, &r->pos, &zz);
    if (bad) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     bad == 1 ? "block %llu: min delta at offset %zu is cut "
                                "short"
                              : "block %llu: min delta at offset %zu is over "
                                "64 bits",
                     (unsigned long long)r->block, r->base + at);
    }
    if (r->mb_count > r->len - r->pos) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "block %llu: %llu bit widths at offset %zu, %zu bytes "
                     "remain",
                     (unsigned long long)r->block,
                     (unsigned long long)r->mb_count, r->base + r->pos,
                     r->len - r->pos);
    }
    if (r->widths) r->block++;
    r->min_delta = (uint64_t)pq_zigzag_dec(zz);
    r->widths = r->buf + r->pos;
    r->pos += (size_t)r->mb_count;
    r->mb = 0;
  } else {
    r->mb++;
  }
  int w = r->widths[r->mb];
  if (PQ_UNLIKELY(w > r->maxw)) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   "miniblock %llu of block %llu: bit width %d at offset %zu "
                   "is above %d",
                   (unsigned long long)r->mb, (unsigned long long)r->block, w,
                   r->base + (size_t)(r->widths + r->mb - r->buf), r->maxw);
  }
  /* Values still owed after the chunk in hand. */
  uint64_t owed =
      r->total - r->yielded - (uint64_t)(r->chunk_len - r->chunk_pos);
  uint64_t values = r->mb_values < owed ? r->mb_values : owed;
  uint64_t bytes = r->mb_values * (uint64_t)w / 8;
  size_t avail = r->len - r->pos;
  if (PQ_UNLIKELY(bytes > avail)) {
    /* The padding of the last miniblock may be missing; the values are
    ** enough. */
    if (!r->strict && values < r->mb_values &&
        (values * (uint64_t)w + 7) / 8 <= avail) {
      bytes = avail;
    } else {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "miniblock %llu of block %llu needs %llu bytes at "
                     "offset %zu, %zu remain",
                     (unsigned long long)r->mb, (unsigned long long)r->block,
                     (unsigned long long)bytes, r->base + r->pos, avail);
    }
  }
  r->mb_w = w;
  r->mb_data = r->buf + r->pos;
  r->pos += (size_t)bytes;
  r->mb_left = values;
  return PQ_OK;
}

int pq_delta_next_miniblock(pq_delta_reader *r, pq_error *err) {
  return delta_next(r, err);
}

/* Decodes the next values (at most 32) of the current miniblock into the
** chunk, as the output lays them out, and leaves r->last at the last. */
static void delta_fill_chunk(pq_delta_reader *r) {
  int w = r->mb_w;
  const uint8_t *end = r->buf + r->pos;
  size_t have = (size_t)(end - r->mb_data);
  int m = r->mb_left < 32 ? (int)r->mb_left : 32;
  uint64_t d[32];
  if (m == 32 && have >= (size_t)4 * w) {
    if (w <= 32) {
      uint32_t t[32];
      r->unpack32[w](r->mb_data, t);
      for (int i = 0; i < 32; i++) d[i] = t[i];
    } else {
      pq_unpack64(w, r->mb_data, d);
    }
  } else {
    uint8_t room[8 * 32] = {0};
    size_t need = ((size_t)m * (size_t)w + 7) / 8;
    memcpy(room, r->mb_data, need < have ? need : have);
    pq_unpack_lsb(room, 0, w, (size_t)m, d);
  }
  if (r->is32) {
    uint32_t v = (uint32_t)r->last, md = (uint32_t)r->min_delta;
    int32_t t[32];
    for (int i = 0; i < m; i++) {
      v += (uint32_t)d[i] + md;
      t[i] = (int32_t)v;
    }
    memcpy(r->chunk, t, (size_t)m * 4);
    r->last = v;
  } else {
    uint64_t v = r->last, md = r->min_delta;
    for (int i = 0; i < m; i++) {
      v += d[i] + md;
      r->chunk[i] = v;
    }
    r->last = v;
  }
  size_t used = (size_t)m * (size_t)w / 8;
  r->mb_data += used < have ? used : have;
  r->mb_left -= (uint64_t)m;
  r->chunk_len = m;
  r->chunk_pos = 0;
}

/* ---- Prefix sums: 32 deltas (relative delta + min delta) into values,
** starting from *last and leaving the last value there. */

static void prefix32(const uint32_t *d, uint32_t md, uint32_t *last,
                     int32_t *out) {
  uint32_t v = *last;
  for (int i = 0; i < 32; i++) {
    v += d[i] + md;
    out[i] = (int32_t)v;
  }
  *last = v;
}

static void prefix64_32(const uint32_t *d, uint64_t md, uint64_t *last,
                        int64_t *out) {
  uint64_t v = *last;
  for (int i = 0; i < 32; i++) {
    v += d[i] + md;
    out[i] = (int64_t)v;
  }
  *last = v;
}

static void prefix64(const uint64_t *d, uint64_t md, uint64_t *last,
                     int64_t *out) {
  uint64_t v = *last;
  for (int i = 0; i < 32; i++) {
    v += d[i] + md;
    out[i] = (int64_t)v;
  }
  *last = v;
}

#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DELTA_AVX2 1
/* The kernels, inlined whatever the size of their callers. */
#define REG_INLINE PQ_AVX2 static inline __attribute__((always_inline))

/* Each register's sums within itself; then the carry, broadcast, goes
** from one register to the next: the chain is one add a register, the
** broadcast of a register's total is not on it. */
PQ_AVX2 static void prefix32_avx2(const uint32_t *d, uint32_t md,
                                  uint32_t *last, int32_t *out) {
  const __m256i m = _mm256_set1_epi32((int)md);
  const __m256i top = _mm256_set1_epi32(7);
  __m256i c = _mm256_set1_epi32((int)*last);
  for (int j = 0; j < 4; j++) {
    __m256i v =
        _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(d + 8 * j)), m);
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 4));
    v = _mm256_add_epi32(v, _mm256_slli_si256(v, 8));
    /* The low lane's total into the high lane. */
    __m256i lo = _mm256_shuffle_epi32(v, 0xff);
    v = _mm256_add_epi32(v, _mm256_permute2x128_si256(lo, lo, 0x08));
    _mm256_storeu_si256((__m256i *)(out + 8 * j), _mm256_add_epi32(v, c));
    c = _mm256_add_epi32(c, _mm256_permutevar8x32_epi32(v, top));
  }
  *last = (uint32_t)_mm256_cvtsi256_si32(c);
}

/* Four 64-bit values a register, sums within it: the total of its low
** lane (element 1) goes to the high lane. */
REG_INLINE __m256i prefix4x64(__m256i v) {
  v = _mm256_add_epi64(v, _mm256_slli_si256(v, 8));
  __m256i lo = _mm256_permute4x64_epi64(v, 0x55);
  return _mm256_add_epi64(
      v, _mm256_blend_epi32(_mm256_setzero_si256(), lo, 0xf0));
}

PQ_AVX2 static void prefix64_32_avx2(const uint32_t *d, uint64_t md,
                                     uint64_t *last, int64_t *out) {
  const __m256i m = _mm256_set1_epi64x((long long)md);
  __m256i c = _mm256_set1_epi64x((long long)*last);
  for (int j = 0; j < 8; j++) {
    __m256i v = prefix4x64(_mm256_add_epi64(
        _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)(d + 4 * j))),
        m));
    _mm256_storeu_si256((__m256i *)(out + 4 * j), _mm256_add_epi64(v, c));
    c = _mm256_add_epi64(c, _mm256_permute4x64_epi64(v, 0xff));
  }
  *last = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(c));
}

PQ_AVX2 static void prefix64_avx2(const uint64_t *d, uint64_t md,
                                  uint64_t *last, int64_t *out) {
  const __m256i m = _mm256_set1_epi64x((long long)md);
  __m256i c = _mm256_set1_epi64x((long long)*last);
  for (int j = 0; j < 8; j++) {
    __m256i v = prefix4x64(_mm256_add_epi64(
        _mm256_loadu_si256((const __m256i *)(d + 4 * j)), m));
    _mm256_storeu_si256((__m256i *)(out + 4 * j), _mm256_add_epi64(v, c));
    c = _mm256_add_epi64(c, _mm256_permute4x64_epi64(v, 0xff));
  }
  *last = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(c));
}

/* ---- Unpacking in registers: the deltas of miniblocks up to REG_MAXW bits
** wide never go through memory.  Eight values take 8w bits, a whole number
** of bytes, so every run of eight starts on a byte, and the same constants
** serve them all: the low 128-bit lane gets the 16 bytes where the run
** starts (values 0-3), the high lane the 16 from byte w/2 (values 4-7, the
** first of them 4 bits in when w is odd); vpshufb puts in each 32-bit lane
** the 4 bytes holding its value, vpsrlvd drops the bits below it, the mask
** those above.  A value at bit b of its lane's bytes lies in bytes b/8 ..
** b/8 + 3 when b % 8 + w <= 32, so w <= 25; and then b/8 + 3 <= 15. */
#define REG_MAXW 25
#define REG_B0(w, k) ((k) * (w))                 /* bit of value k, lane 0 */
#define REG_B1(w, k) ((k) * (w) + 4 * ((w) & 1)) /* of value 4 + k, lane 1 */
#define REG_4(b) (b) >> 3, ((b) >> 3) + 1, ((b) >> 3) + 2, ((b) >> 3) + 3
#define REG_SHUF(w)                                                        \
  {REG_4(REG_B0(w, 0)), REG_4(REG_B0(w, 1)), REG_4(REG_B0(w, 2)),          \
   REG_4(REG_B0(w, 3)), REG_4(REG_B1(w, 0)), REG_4(REG_B1(w, 1)),          \
   REG_4(REG_B1(w, 2)), REG_4(REG_B1(w, 3))}
#define REG_SHIFT(w)                                                       \
  {REG_B0(w, 0) & 7, REG_B0(w, 1) & 7, REG_B0(w, 2) & 7, REG_B0(w, 3) & 7, \
   REG_B1(w, 0) & 7, REG_B1(w, 1) & 7, REG_B1(w, 2) & 7, REG_B1(w, 3) & 7}
#define REG_MASK(w) (uint32_t)((1ull << (w)) - 1)
#define REG_ROWS(M)                                                        \
  M(0), M(1), M(2), M(3), M(4), M(5), M(6), M(7), M(8), M(9), M(10), M(11), \
      M(12), M(13), M(14), M(15), M(16), M(17), M(18), M(19), M(20), M(21), \
      M(22), M(23), M(24), M(25)
static const uint8_t reg_shuf[REG_MAXW + 1][32] = {REG_ROWS(REG_SHUF)};
static const uint32_t reg_shift[REG_MAXW + 1][8] = {REG_ROWS(REG_SHIFT)};
static const uint32_t reg_mask[REG_MAXW + 1] = {REG_ROWS(REG_MASK)};

/* Bytes past its start a group of 32 values reads: the last run's high
** lane ends 16 bytes after byte 3w + w/2, so at most 16 past the group. */
#define REG_READ(w) (3 * (size_t)(w) + (size_t)(w) / 2 + 16)

/* A width's constants. */
typedef struct {
  __m256i shuf, shift, mask;
  size_t w, half;
} reg_width;

REG_INLINE reg_width reg_width_of(int w) {
  reg_width k;
  k.shuf = _mm256_loadu_si256((const __m256i *)(const void *)reg_shuf[w]);
  k.shift = _mm256_loadu_si256((const __m256i *)(const void *)reg_shift[w]);
  k.mask = _mm256_set1_epi32((int)reg_mask[w]);
  k.w = (size_t)w;
  k.half = (size_t)w / 2;
  return k;
}

/* The eight deltas of the run at p, each in its 32-bit lane, plus add,
** summed from the group's start given *c, the sum of the runs before it
** (broadcast).  Each 128-bit lane's sums within it first, in-lane; then
** the low lane's total into the high lane with the one cross-lane shuffle.
** *c is the chain from one run to the next, one add: the run's total is
** had off it. */
REG_INLINE __m256i reg_sums8(const uint8_t *p, const reg_width *k, __m256i add,
                             __m256i *c) {
  __m256i x = _mm256_inserti128_si256(
      _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)p)),
      _mm_loadu_si128((const __m128i *)(p + k->half)), 1);
  x = _mm256_and_si256(
      _mm256_srlv_epi32(_mm256_shuffle_epi8(x, k->shuf), k->shift), k->mask);
  x = _mm256_add_epi32(x, add); /* the min delta, or zeros */
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 4));
  x = _mm256_add_epi32(x, _mm256_slli_si256(x, 8));
  __m256i t = _mm256_shuffle_epi32(x, 0xff);     /* each lane's total */
  __m256i s = _mm256_permute4x64_epi64(t, 0x4e); /* the other lane's */
  x = _mm256_add_epi32(
      x, _mm256_blend_epi32(_mm256_setzero_si256(), s, 0xf0));
  x = _mm256_add_epi32(x, *c);
  *c = _mm256_add_epi32(*c, _mm256_add_epi32(t, s));
  return x;
}

/* The multiples of a min delta md a group of 32 INT64 values adds: value i
** is last + (sum of the group's deltas 0..i) + (i + 1) md. */
typedef struct {
  __m256i lo, hi; /* (i + 1) md for i = 0, 1, 4, 5 and 2, 3, 6, 7 */
  __m256i m8, m32;
} reg_md64;

REG_INLINE reg_md64 reg_md64_of(uint64_t md) {
  reg_md64 m;
  __m256i m1 = _mm256_set1_epi64x((long long)md);
  __m256i m2 = _mm256_add_epi64(m1, m1), m4 = _mm256_add_epi64(m2, m2);
  m.m8 = _mm256_add_epi64(m4, m4);
  m.m32 = _mm256_slli_epi64(m.m8, 2);
  m.lo = _mm256_add_epi64(_mm256_blend_epi32(m1, m2, 0xcc),
                          _mm256_blend_epi32(_mm256_setzero_si256(), m4, 0xf0));
  m.hi = _mm256_add_epi64(m.lo, m2);
  return m;
}

/* INT64: a group of 32 deltas at in into values after *l (broadcast),
** left at the last.  The sums, below 32 * 2^25, are exact in 32 bits; last
** and the multiples of md, modulo 2^64, are added in 64-bit lanes off the
** data's chain.  Widening by unpacking with zeros stays within the 128-bit
** lanes: the low lane's values 0, 1 and the high lane's 4, 5 come out
** together, so the values go out 128 bits at a time. */
REG_INLINE void reg_group64(const uint8_t *in, const reg_width *k,
                            const reg_md64 *m, __m256i *l, int64_t *out) {
  const __m256i zero = _mm256_setzero_si256();
  __m256i c = zero;
  __m256i blo = _mm256_add_epi64(*l, m->lo), bhi = _mm256_add_epi64(*l, m->hi);
  for (int j = 0; j < 4; j++, out += 8) {
    __m256i x = reg_sums8(in + (size_t)j * k->w, k, zero, &c);
    __m256i lo = _mm256_add_epi64(_mm256_unpacklo_epi32(x, zero), blo);
    __m256i hi = _mm256_add_epi64(_mm256_unpackhi_epi32(x, zero), bhi);
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(lo));
    _mm_storeu_si128((__m128i *)(out + 2), _mm256_castsi256_si128(hi));
    _mm_storeu_si128((__m128i *)(out + 4), _mm256_extracti128_si256(lo, 1));
    _mm_storeu_si128((__m128i *)(out + 6), _mm256_extracti128_si256(hi, 1));
    blo = _mm256_add_epi64(blo, m->m8);
    bhi = _mm256_add_epi64(bhi, m->m8);
  }
  /* The group's total, zero-extended, and 32 md. */
  *l = _mm256_add_epi64(
      *l, _mm256_add_epi64(
              _mm256_and_si256(c, _mm256_set1_epi64x(0xffffffff)), m->m32));
}

/* INT64, the common case of values close together: when the group's values
** exceed last by less than 2^32 minus last's low 32 bits, their high 32 bits
** are last's, and their low ones are sums in 32 bits: md (md32, below 2^26)
** joins the deltas, last's low bits the sums, and the values come out of
** unpacking the sums with last's high bits.  *c: the sums so far (from
** last's low bits), broadcast; h: last's high bits. */
REG_INLINE void reg_near(const uint8_t *in, const reg_width *k, __m256i md32,
                         __m256i *c, __m256i h, int64_t *out) {
  for (int j = 0; j < 4; j++, out += 8) {
    __m256i x = reg_sums8(in + (size_t)j * k->w, k, md32, c);
    __m256i lo = _mm256_unpacklo_epi32(x, h), hi = _mm256_unpackhi_epi32(x, h);
    _mm_storeu_si128((__m128i *)out, _mm256_castsi256_si128(lo));
    _mm_storeu_si128((__m128i *)(out + 2), _mm256_castsi256_si128(hi));
    _mm_storeu_si128((__m128i *)(out + 4), _mm256_extracti128_si256(lo, 1));
    _mm_storeu_si128((__m128i *)(out + 6), _mm256_extracti128_si256(hi, 1));
  }
}

/* A group by reg_near, from and to *l. */
REG_INLINE void reg_group64_near(const uint8_t *in, const reg_width *k,
                                 __m256i md32, __m256i *l, int64_t *out) {
  __m256i c = _mm256_shuffle_epi32(*l, 0x00); /* last's low bits */
  __m256i h = _mm256_shuffle_epi32(*l, 0x55); /* its high bits */
  reg_near(in, k, md32, &c, h, out);
  *l = _mm256_blend_epi32(c, *l, 0xaa);
}

/* What a group of width w adds to last at most, when md allows the near
** path (32 (md + 2^w - 1) < 2^32 then); else 2^32, which rules it out. */
static inline uint64_t reg_span(uint64_t md, int w) {
  return md < ((uint64_t)1 << 26) ? 32 * (md + reg_mask[w])
                                  : (uint64_t)1 << 32;
}

/* A group by the near path when last's low 32 bits leave room for span. */
REG_INLINE void reg_group64_any(const uint8_t *in, const reg_width *k,
                                const reg_md64 *m, __m256i md32, uint64_t span,
                                __m256i *l, int64_t *out) {
  uint32_t low = (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(*l));
  if (PQ_LIKELY(low + span < ((uint64_t)1 << 32))) {
    reg_group64_near(in, k, md32, l, out);
  } else {
    reg_group64(in, k, m, l, out);
  }
}

/* INT32: the same modulo 2^32, where the values keep their order: md32,
** md in each lane, joins the deltas; *l is the last value broadcast. */
REG_INLINE void reg_group32(const uint8_t *in, const reg_width *k, __m256i md32,
                            __m256i *l, int32_t *out) {
  for (int j = 0; j < 4; j++, out += 8) {
    _mm256_storeu_si256((__m256i *)out,
                        reg_sums8(in + (size_t)j * k->w, k, md32, l));
  }
}
#endif

/* Decodes `groups` times 32 values of width w from in (whose bytes the
** caller checked) straight into out (int32_t or int64_t), from *last. */
static void delta_groups(const pq_delta_reader *r, int w, const uint8_t *in,
                         uint64_t groups, uint64_t md, uint64_t *last,
                         void *out) {
  size_t step = 4 * (size_t)w;
  int avx2 = 0;
#ifdef DELTA_AVX2
  avx2 = (r->cpu & PQ_CPU_AVX2) != 0;
#endif
  if (r->is32 && w > 32) { /* DuckDB's 33-bit deltas, modulo 2^32 */
    int32_t *o = out;
    uint32_t v = (uint32_t)*last, t[32];
    uint64_t t64[32];
    for (uint64_t g = 0; g < groups; g++, in += step, o += 32) {
      pq_unpack64(w, in, t64);
      for (int i = 0; i < 32; i++) t[i] = (uint32_t)t64[i];
      prefix32(t, (uint32_t)md, &v, o);
    }
    *last = v;
  } else if (r->is32) {
    int32_t *o = out;
    uint32_t v = (uint32_t)*last, t[32];
    pq_unpack32_fn unpack = r->unpack32[w];
    for (uint64_t g = 0; g < groups; g++, in += step, o += 32) {
      unpack(in, t);
#ifdef DELTA_AVX2
      if (avx2) {
        prefix32_avx2(t, (uint32_t)md, &v, o);
        continue;
      }
#endif
      prefix32(t, (uint32_t)md, &v, o);
    }
    *last = v;
  } else if (w <= 32) {
    int64_t *o = out;
    uint32_t t[32];
    pq_unpack32_fn unpack = r->unpack32[w];
    for (uint64_t g = 0; g < groups; g++, in += step, o += 32) {
      unpack(in, t);
#ifdef DELTA_AVX2
      if (avx2) {
        prefix64_32_avx2(t, md, last, o);
        continue;
      }
#endif
      prefix64_32(t, md, last, o);
    }
  } else {
    int64_t *o = out;
    uint64_t t[32];
    for (uint64_t g = 0; g < groups; g++, in += step, o += 32) {
#ifdef DELTA_AVX2
      if (avx2 && w == 64) { /* x86: the bytes are the deltas */
        prefix64_avx2((const uint64_t *)(const void *)in, md, last, o);
        continue;
      }
#endif
      pq_unpack64(w, in, t);
#ifdef DELTA_AVX2
      if (avx2) {
        prefix64_avx2(t, md, last, o);
        continue;
      }
#endif
      prefix64(t, md, last, o);
    }
  }
  (void)avx2;
}

/* The block at pos when it can go out whole: its min delta and bit widths
** there, no width above maxw, its miniblocks' bytes all in the stream.
** Sets *md, *widths and *data, where the miniblocks start, and returns
** where they end; 0 when anything is amiss. */
static inline size_t block_head(const pq_delta_reader *r, size_t pos, int maxw,
                                uint64_t *md, const uint8_t **widths,
                                size_t *data, int *wmax) {
  const uint8_t *buf = r->buf;
  size_t len = r->len;
  uint64_t zz;
  if (uleb_read(buf, len, &pos, &zz) || r->mb_count > len - pos) return 0;
  const uint8_t *wd = buf + pos;
  pos += (size_t)r->mb_count;
  int top = 0;
  uint64_t bits = 0;
  for (uint64_t m = 0; m < r->mb_count; m++) {
    top = wd[m] > top ? wd[m] : top;
    bits += wd[m];
  }
  /* mb_values is a multiple of 8: mb_values * w / 8 bytes each. */
  if (top > maxw || bits * (r->mb_values / 8) > len - pos) return 0;
  *md = (uint64_t)pq_zigzag_dec(zz);
  *widths = wd;
  *data = pos;
  if (wmax) *wmax = top;
  return pos + (size_t)(bits * (r->mb_values / 8));
}

/* The reader after a block gone out whole, as the general path leaves it
** (but for r->last, the caller's). */
static inline void block_done(pq_delta_reader *r, const uint8_t *widths,
                              uint64_t md, size_t end) {
  if (r->widths) r->block++;
  r->widths = widths;
  r->mb = r->mb_count - 1;
  r->min_delta = md;
  r->mb_w = widths[r->mb];
  r->mb_data = r->buf + end;
  r->mb_left = 0;
  r->pos = end;
  r->yielded += r->block_size;
}

/* A whole block straight into out, when all its values are wanted and its
** miniblocks hold multiples of 32: its widths and bytes are checked once,
** for all of them.  Returns 0, having changed nothing, when anything is
** amiss; the general path then reads the block and says what. */
static int delta_block(pq_delta_reader *r, void *out) {
  uint64_t md;
  const uint8_t *widths;
  size_t pos, end = block_head(r, r->pos, r->maxw, &md, &widths, &pos, NULL);
  if (!end) return 0;
  uint64_t last = r->last, groups = r->mb_values / 32;
  size_t vs = r->is32 ? 4 : 8;
  uint8_t *o = out;
  for (uint64_t m = 0; m < r->mb_count; m++) {
    int w = widths[m];
    delta_groups(r, w, r->buf + pos, groups, md, &last, o);
    pos += (size_t)(r->mb_values / 8 * (uint64_t)w);
    o += (size_t)r->mb_values * vs;
  }
  block_done(r, widths, md, end);
  r->last = last;
  return 1;
}

#ifdef DELTA_AVX2
/* How far ahead of its use the stream is asked for: left to the hardware's
** own prefetching, the kernels wait on memory.  A block up to AHEAD_BLOCK
** bytes is asked for at once, AHEAD bytes ahead; a wider one's lines, asked
** for all at once, would stall until there is room for them.  64-bit
** deltas (8 bytes a value) are asked for group by group in two steps: into
** the outer caches from AHEAD_FAR, into the first from AHEAD_NEAR (better
** than one step by some 15 % on random INT64); other wide blocks not at
** all. */
#define AHEAD 2048
#define AHEAD_BLOCK 512
#define AHEAD_FAR 4096
#define AHEAD_NEAR 1024

/* A block's min delta as the kernels take it. */
typedef struct {
  uint64_t md;
  reg_md64 m;         /* INT64 values far apart */
  __m256i md32, md64; /* md in each 32-bit lane, in each 64-bit lane */
} reg_min;

REG_INLINE void reg_min_set(reg_min *mn, uint64_t md, int is32) {
  mn->md = md;
  mn->md32 = _mm256_set1_epi32((int)(uint32_t)md);
  if (!is32) {
    mn->m = reg_md64_of(md);
    mn->md64 = _mm256_set1_epi64x((long long)md);
  }
}

/* INT64, a group of 32 deltas of width 64: on x86 the bytes are the
** deltas, summed in registers from *l (broadcast), left at the last. */
REG_INLINE void reg_group64_w64(const uint8_t *in, __m256i md64, __m256i *l,
                                int64_t *out) {
  for (int j = 0; j < 4; j++) {
    __builtin_prefetch(in + AHEAD_FAR + 64 * j, 0, 1); /* prefetcht2 */
    PQ_PREFETCH(in + AHEAD_NEAR + 64 * j);
  }
  __m256i c = *l;
  for (int j = 0; j < 8; j++) {
    __m256i v = prefix4x64(_mm256_add_epi64(
        _mm256_loadu_si256((const __m256i *)(const void *)(in + 32 * j)),
        md64));
    _mm256_storeu_si256((__m256i *)(out + 4 * j), _mm256_add_epi64(v, c));
    c = _mm256_add_epi64(c, _mm256_permute4x64_epi64(v, 0xff));
  }
  *l = c;
}

/* g groups of width w at p into out (int32_t or int64_t) from *l: in
** registers where the width allows and the reads stay before stop, else
** through delta_groups.  k and span are the width's (any when it is above
** REG_MAXW). */
REG_INLINE void reg_run(const pq_delta_reader *r, const uint8_t *p,
                        const uint8_t *stop, uint64_t g, int w,
                        const reg_width *k, uint64_t span, const reg_min *mn,
                        __m256i *l, uint8_t *out, int is32) {
  size_t step = 4 * (size_t)w, vs = is32 ? 4 : 8;
  if (w <= REG_MAXW) {
    for (; g && (size_t)(stop - p) >= REG_READ(w); g--, p += step) {
      if (is32) {
        reg_group32(p, k, mn->md32, l, (int32_t *)(void *)out);
      } else {
        reg_group64_any(p, k, &mn->m, mn->md32, span, l,
                        (int64_t *)(void *)out);
      }
      out += 32 * vs;
    }
  } else if (!is32 && w == 64) {
    for (; g; g--, p += step, out += 32 * vs) {
      reg_group64_w64(p, mn->md64, l, (int64_t *)(void *)out);
    }
  }
  if (g) {
    uint64_t last =
        is32 ? (uint32_t)_mm256_cvtsi256_si32(*l)
             : (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(*l));
    delta_groups(r, w, p, g, mn->md, &last, out);
    *l = is32 ? _mm256_set1_epi32((int)(uint32_t)last)
              : _mm256_set1_epi64x((long long)last);
  }
}

/* The whole block at pos into out, when block_head takes it: its widths
** and bytes checked once for all its miniblocks.  Returns where it ends
** (0 if refused) and sets *widths. */
REG_INLINE size_t reg_block(const pq_delta_reader *r, size_t pos, reg_min *mn,
                            __m256i *l, const uint8_t **widths, uint8_t *out,
                            int is32) {
  uint64_t md, groups = r->mb_values / 32, mbc = r->mb_count;
  const uint8_t *wd, *buf = r->buf;
  int top;
  size_t at, end = block_head(r, pos, r->maxw, &md, &wd, &at, &top);
  if (!end) return 0;
  if (md != mn->md) reg_min_set(mn, md, is32);
  int room = r->len - end >= 16; /* what the last group reads past it */
  if (end - at <= AHEAD_BLOCK) {
    for (size_t a = at; a < end; a += 64) PQ_PREFETCH(buf + a + AHEAD);
  }
  if (top <= REG_MAXW && room) { /* all in registers */
    /* INT64 values within 2^32 of last all through the block: the near
    ** path, with no test per group. */
    if (!is32 && md < ((uint64_t)1 << 26) &&
        (uint32_t)_mm_cvtsi128_si32(_mm256_castsi256_si128(*l)) +
                r->block_size * (md + reg_mask[top]) <
            ((uint64_t)1 << 32)) {
      __m256i c = _mm256_shuffle_epi32(*l, 0x00); /* last's low bits */
      __m256i h = _mm256_shuffle_epi32(*l, 0x55); /* its high bits */
      for (uint64_t j = 0; j < mbc; j++) {
        reg_width k = reg_width_of(wd[j]);
        for (uint64_t g = 0; g < groups; g++, out += 256, at += 4 * k.w) {
          reg_near(buf + at, &k, mn->md32, &c, h, (int64_t *)(void *)out);
        }
      }
      *l = _mm256_blend_epi32(c, *l, 0xaa);
    } else if (is32) {
      for (uint64_t j = 0; j < mbc; j++) {
        reg_width k = reg_width_of(wd[j]);
        for (uint64_t g = 0; g < groups; g++, out += 128, at += 4 * k.w) {
          reg_group32(buf + at, &k, mn->md32, l, (int32_t *)(void *)out);
        }
      }
    } else {
      for (uint64_t j = 0; j < mbc; j++) {
        reg_width k = reg_width_of(wd[j]);
        uint64_t span = reg_span(md, wd[j]);
        for (uint64_t g = 0; g < groups; g++, out += 256, at += 4 * k.w) {
          reg_group64_any(buf + at, &k, &mn->m, mn->md32, span, l,
                          (int64_t *)(void *)out);
        }
      }
    }
  } else {
    for (uint64_t j = 0; j < mbc; j++) {
      int w = wd[j], wr = w <= REG_MAXW ? w : 0;
      reg_width k = reg_width_of(wr);
      reg_run(r, buf + at, buf + r->len, groups, w, &k,
              is32 ? 0 : reg_span(md, wr), mn, l, out, is32);
      at += (size_t)(groups * 4 * (uint64_t)w);
      out += groups * 32 * (is32 ? 4 : 8);
    }
  }
  *widths = wd;
  return end;
}

/* n bytes (a multiple of 4, 256 at most) from src to dst without a call, in
** pieces of 16 bytes at most: the kernels' stores of src forward to them. */
REG_INLINE void copy_small(uint8_t *dst, const uint8_t *src, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    _mm_storeu_si128((__m128i *)(void *)(dst + i),
                     _mm_loadu_si128((const __m128i *)(const void *)(src + i)));
  }
  if (i + 8 <= n) {
    _mm_storel_epi64((__m128i *)(void *)(dst + i),
                     _mm_loadl_epi64((const __m128i *)(const void *)(src + i)));
    i += 8;
  }
  if (i < n) memcpy(dst + i, src + i, 4);
}

/* Up to want values (no more than the stream holds, the chunk empty) into
** out from where the reader is: whole blocks by reg_block, the others
** miniblock by miniblock, each checked as it starts as delta_next checks
** it, the constants and the running value in registers all along.  A
** group of 32 only part of which is wanted goes whole into the chunk, the
** rest left there.  At anything the general path must see to (a bad or
** short miniblock, a head cut short) it stops, the reader as the general
** path would have left it there, and returns how many values it gave. */
REG_INLINE uint64_t reg_read(pq_delta_reader *r, void *out, uint64_t want,
                             int is32) {
  const uint8_t *buf = r->buf, *stop = r->buf + r->len;
  const uint8_t *widths = r->widths, *p = r->mb_data;
  uint64_t mb = r->mb, left = r->mb_left, blocks = 0, done = 0;
  uint64_t mbc = r->mb_count, mbv = r->mb_values, bs = r->block_size;
  uint64_t owed = r->total - r->yielded;
  size_t pos = r->pos, vs = is32 ? 4 : 8;
  int w = r->mb_w, tail = 0;
  uint8_t *o = out;
  reg_min mn;
  reg_min_set(&mn, r->min_delta, is32);
  reg_width k = reg_width_of(w <= REG_MAXW ? w : 0);
  uint64_t span = is32 ? 0 : reg_span(mn.md, w <= REG_MAXW ? w : 0);
  __m256i l = is32 ? _mm256_set1_epi32((int)(uint32_t)r->last)
                   : _mm256_set1_epi64x((long long)r->last);
  while (done < want) {
    if (left == 0 && (widths == NULL || mb + 1 >= mbc) && want - done >= bs) {
      const uint8_t *nw;
      size_t end = reg_block(r, pos, &mn, &l, &nw, o + done * vs, is32);
      if (end) {
        blocks += widths != NULL;
        widths = nw;
        mb = mbc - 1;
        w = nw[mb];
        p = buf + end;
        pos = end;
        done += bs;
        continue;
      }
    }
    if (left == 0) { /* the next miniblock, checked as delta_next does */
      const uint8_t *nw = widths;
      uint64_t nmb = mb + 1, md = mn.md;
      size_t at = pos;
      if (widths == NULL || nmb >= mbc) {
        uint64_t zz;
        if (uleb_read(buf, r->len, &at, &zz) || mbc > r->len - at) break;
        md = (uint64_t)pq_zigzag_dec(zz);
        nw = buf + at;
        at += (size_t)mbc;
        nmb = 0;
      }
      int nwd = nw[nmb];
      uint64_t bytes = mbv / 8 * (uint64_t)nwd;
      if (nwd > r->maxw || bytes > r->len - at) break;
      if (nw != widths) { /* a new block */
        blocks += widths != NULL;
        widths = nw;
        if (md != mn.md) reg_min_set(&mn, md, is32);
      }
      mb = nmb;
      w = nwd;
      k = reg_width_of(w <= REG_MAXW ? w : 0);
      span = is32 ? 0 : reg_span(mn.md, w <= REG_MAXW ? w : 0);
      p = buf + at;
      pos = at + (size_t)bytes;
      left = mbv < owed - done ? mbv : owed - done;
    }
    /* The miniblock's bytes are short only when the general path began
    ** it (its padding may be missing at the stream's end). */
    size_t step = 4 * (size_t)w, have = (size_t)(buf + pos - p);
    uint64_t g = (want - done < left ? want - done : left) / 32;
    if (g) { /* whole groups straight out */
      if (have < g * step) g = have / step;
      if (!g) break;
      reg_run(r, p, stop, g, w, &k, span, &mn, &l, o + done * vs, is32);
      p += g * step;
      left -= 32 * g;
      done += 32 * g;
      continue;
    }
    /* Part of a group is wanted: the chunk takes all of it (INT32 through
    ** t32, int32_t not being the chunk's type). */
    if (have < step) break;
    int32_t t32[32];
    reg_run(r, p, stop, 1, w, &k, span, &mn, &l,
            is32 ? (uint8_t *)t32 : (uint8_t *)r->chunk, is32);
    if (is32) {
      copy_small((uint8_t *)r->chunk, (const uint8_t *)t32, sizeof t32);
    }
    uint64_t cnt = left < 32 ? left : 32;
    uint64_t give = want - done < cnt ? want - done : cnt;
    copy_small(o + done * vs, (const uint8_t *)r->chunk, (size_t)(give * vs));
    p += step;
    left -= cnt;
    r->chunk_pos = (int)give;
    r->chunk_len = (int)cnt;
    done += give;
    tail = 1;
    break;
  }
  r->widths = widths;
  r->mb = mb;
  r->mb_left = left;
  r->min_delta = mn.md;
  r->mb_w = w;
  r->mb_data = p;
  r->pos = pos;
  r->block += blocks;
  r->yielded += done;
  if (tail) { /* the last value the chunk holds (the group may go past the
              ** stream's end) */
    size_t at = (size_t)(r->chunk_len - 1) * vs;
    if (is32) {
      int32_t v;
      memcpy(&v, (const uint8_t *)r->chunk + at, 4);
      r->last = (uint32_t)v;
    } else {
      memcpy(&r->last, (const uint8_t *)r->chunk + at, 8);
    }
  } else if (is32) {
    r->last = (uint32_t)_mm256_cvtsi256_si32(l);
  } else {
    r->last = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(l));
  }
  return done;
}

PQ_AVX2 static uint64_t reg_read64(pq_delta_reader *r, void *out,
                                   uint64_t want) {
  return reg_read(r, out, want, 0);
}

PQ_AVX2 static uint64_t reg_read32(pq_delta_reader *r, void *out,
                                   uint64_t want) {
  return reg_read(r, out, want, 1);
}
#endif

int pq_delta_reader_read(pq_delta_reader *r, void *out, size_t max, size_t *n,
                         pq_error *err) {
  uint8_t *o = out;
  size_t vs = r->is32 ? 4 : 8, k = 0;
  if (r->yielded == 0 && r->total > 0 && max > 0) {
    if (r->is32) {
      int32_t v = (int32_t)(uint32_t)r->last;
      memcpy(o, &v, 4);
    } else {
      memcpy(o, &r->last, 8);
    }
    k = 1;
    r->yielded = 1;
  }
  while (k < max && r->yielded < r->total) {
    if (r->chunk_pos < r->chunk_len) { /* values decoded before */
      size_t m = (size_t)(r->chunk_len - r->chunk_pos);
      if (m > max - k) m = max - k;
      memcpy(o + k * vs, (const uint8_t *)r->chunk + (size_t)r->chunk_pos * vs,
             m * vs);
      r->chunk_pos += (int)m;
      r->yielded += m;
      k += m;
      continue;
    }
    uint64_t want = r->total - r->yielded;
    if (want > max - k) want = max - k;
#ifdef DELTA_AVX2
    if ((r->cpu & PQ_CPU_AVX2) && r->mb_values % 32 == 0) {
      uint64_t got = r->is32 ? reg_read32(r, o + k * vs, want)
                             : reg_read64(r, o + k * vs, want);
      k += (size_t)got;
      if (got == want) continue;
      want -= got; /* what stopped it is the general path's */
    }
#endif
    if (r->mb_left == 0) {
      if ((r->widths == NULL || r->mb + 1 >= r->mb_count) &&
          r->mb_values % 32 == 0 && want >= r->block_size &&
          delta_block(r, o + k * vs)) {
        k += (size_t)r->block_size;
        continue;
      }
      int rc = delta_next(r, err);
      if (rc) {
        *n = k;
        return rc;
      }
    }
    /* Whole runs of 32 wanted from the miniblock go straight out.  Its
    ** bytes were checked when it began (mb_left never counts values
    ** past the end of the stream); the check here only bounds the loop. */
    if (want > r->mb_left) want = r->mb_left;
    uint64_t groups = want / 32;
    size_t step = 4 * (size_t)r->mb_w;
    if (groups && step) {
      size_t have = (size_t)(r->buf + r->pos - r->mb_data);
      if (groups > have / step) groups = have / step;
    }
    if (groups) {
      delta_groups(r, r->mb_w, r->mb_data, groups, r->min_delta, &r->last,
                   o + k * vs);
      uint64_t m = groups * 32;
      r->mb_data += groups * step;
      r->mb_left -= m;
      r->yielded += m;
      k += (size_t)m;
      continue;
    }
    delta_fill_chunk(r);
  }
  *n = k;
  return PQ_OK;
}

/* The walk miniblock by miniblock, with the messages. */
static int delta_size_slow(const pq_delta_reader *r0, size_t *size,
                           pq_error *err) {
  pq_delta_reader r = *r0;
  r.strict = 1; /* what follows the stream starts after its padding */
  if (r.yielded == 0 && r.total > 0) r.yielded = 1;
  while (r.yielded < r.total) {
    int rc = delta_next(&r, err);
    if (rc) return rc;
    r.yielded += r.mb_left;
    r.mb_left = 0;
  }
  *size = r.pos;
  return PQ_OK;
}

int pq_delta_reader_size(const pq_delta_reader *r, size_t *size,
                         pq_error *err) {
  if (r->yielded != 0 || r->widths != NULL) {
    return delta_size_slow(r, size, err);
  }
  /* Block by block, for a fresh reader: anything wrong and the slow walk
  ** says what. */
  const uint8_t *buf = r->buf;
  size_t len = r->len, pos = r->pos;
  uint64_t left = r->total > 0 ? r->total - 1 : 0;
  int maxw = r->maxw;
  uint64_t mbv = r->mb_values;
  while (left > 0) {
    uint64_t zz;
    if (uleb_read(buf, len, &pos, &zz) || r->mb_count > len - pos) {
      return delta_size_slow(r, size, err);
    }
    const uint8_t *widths = buf + pos;
    pos += (size_t)r->mb_count;
    for (uint64_t m = 0; m < r->mb_count && left > 0; m++) {
      int w = widths[m];
      uint64_t bytes = mbv * (uint64_t)w / 8;
      if (w > maxw || bytes > len - pos) return delta_size_slow(r, size, err);
      pos += (size_t)bytes;
      left -= left < mbv ? left : mbv;
    }
  }
  *size = pos;
  return PQ_OK;
}

/* ---- Writer ------------------------------------------------------------- */

int pq_delta_writer_init(pq_delta_writer *w, const pq_params *p, int is32,
                         const char *label, pq_error *err) {
  memset(w, 0, sizeof *w);
  uint64_t bs = p->block_size < 0 ? 128 : (uint64_t)p->block_size;
  uint64_t mb = p->miniblocks < 0 ? 4 : (uint64_t)p->miniblocks;
  if (bs == 0 || bs % 8 != 0 || bs > (1u << 20)) {
    return pq_fail(err, PQ_MISUSE, label,
                   "block_size %llu is not a multiple of 128 (or of 8, to "
                   "reproduce the spec's examples) up to 1048576",
                   (unsigned long long)bs);
  }
  if (mb == 0 || bs % mb != 0 || (bs / mb) % 8 != 0) {
    return pq_fail(err, PQ_MISUSE, label,
                   "%llu miniblocks do not divide a block of %llu values "
                   "into miniblocks of a multiple of 32 (or 8) values",
                   (unsigned long long)mb, (unsigned long long)bs);
  }
  w->is32 = is32;
  w->block_size = bs;
  w->mb_count = mb;
  w->mb_values = bs / mb;
  w->cpu = pq_cpu();
  w->block = pq_malloc((size_t)bs * sizeof *w->block);
  if (!w->block) return pq_nomem(err, label);
  return PQ_OK;
}

/* Packs n (a multiple of 8) values of width bw LSB first at o. */
static void pack_values(uint8_t *o, const uint64_t *v, uint64_t n, int bw) {
  if (bw == 0) return;
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32, o += 4 * bw) pq_pack64(bw, v + i, o);
  /* A tail of 8, 16 or 24 values: bit by bit into whole bytes. */
  uint64_t acc = 0;
  int bits = 0;
  for (; i < n; i++) {
    uint64_t x = v[i];
    int left = bw;
    while (left > 0) {
      int take = 64 - bits < left ? 64 - bits : left;
      acc |= (take == 64 ? x : (x & ((1ull << take) - 1))) << bits;
      bits += take;
      x = take == 64 ? 0 : x >> take;
      left -= take;
      while (bits >= 8) {
        *o++ = (uint8_t)acc;
        acc >>= 8;
        bits -= 8;
      }
    }
  }
}

/* The least of n signed deltas. */
static int64_t block_min(const int64_t *d, uint64_t n) {
  int64_t m0 = d[0], m1 = d[0], m2 = d[0], m3 = d[0];
  uint64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    m0 = d[i] < m0 ? d[i] : m0;
    m1 = d[i + 1] < m1 ? d[i + 1] : m1;
    m2 = d[i + 2] < m2 ? d[i + 2] : m2;
    m3 = d[i + 3] < m3 ? d[i + 3] : m3;
  }
  for (; i < n; i++) m0 = d[i] < m0 ? d[i] : m0;
  m0 = m1 < m0 ? m1 : m0;
  m2 = m3 < m2 ? m3 : m2;
  return m2 < m0 ? m2 : m0;
}

/* Makes n deltas relative to min (in place, masked to the stream's width)
** and returns their OR. */
static uint64_t block_relative(uint64_t *d, uint64_t n, uint64_t min,
                               uint64_t mask) {
  uint64_t o0 = 0, o1 = 0;
  uint64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    d[i] = (d[i] - min) & mask;
    d[i + 1] = (d[i + 1] - min) & mask;
    o0 |= d[i];
    o1 |= d[i + 1];
  }
  for (; i < n; i++) {
    d[i] = (d[i] - min) & mask;
    o0 |= d[i];
  }
  return o0 | o1;
}

#ifdef DELTA_AVX2
#define MIN64(m, x) _mm256_blendv_epi8(m, x, _mm256_cmpgt_epi64(m, x))
PQ_AVX2 static int64_t block_min_avx2(const int64_t *d, uint64_t n) {
  /* Four running minimums, so that the compares do not wait on each
  ** other. */
  __m256i m0 = _mm256_set1_epi64x(d[0]), m1 = m0, m2 = m0, m3 = m0;
  uint64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    m0 = MIN64(m0, _mm256_loadu_si256((const __m256i *)(d + i)));
    m1 = MIN64(m1, _mm256_loadu_si256((const __m256i *)(d + i + 4)));
    m2 = MIN64(m2, _mm256_loadu_si256((const __m256i *)(d + i + 8)));
    m3 = MIN64(m3, _mm256_loadu_si256((const __m256i *)(d + i + 12)));
  }
  for (; i + 4 <= n; i += 4)
    m0 = MIN64(m0, _mm256_loadu_si256((const __m256i *)(d + i)));
  m0 = MIN64(MIN64(m0, m1), MIN64(m2, m3));
  int64_t t[4];
  _mm256_storeu_si256((__m256i *)t, m0);
  int64_t r = t[0];
  for (int k = 1; k < 4; k++) r = t[k] < r ? t[k] : r;
  for (; i < n; i++) r = d[i] < r ? d[i] : r;
  return r;
}

PQ_AVX2 static uint64_t block_relative_avx2(uint64_t *d, uint64_t n,
                                            uint64_t min, uint64_t mask) {
  const __m256i mn = _mm256_set1_epi64x((long long)min);
  const __m256i mk = _mm256_set1_epi64x((long long)mask);
  __m256i o = _mm256_setzero_si256();
  uint64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256i x = _mm256_and_si256(
        _mm256_sub_epi64(_mm256_loadu_si256((const __m256i *)(d + i)), mn),
        mk);
    _mm256_storeu_si256((__m256i *)(d + i), x);
    o = _mm256_or_si256(o, x);
  }
  uint64_t t[4];
  _mm256_storeu_si256((__m256i *)t, o);
  uint64_t r = t[0] | t[1] | t[2] | t[3];
  for (; i < n; i++) {
    d[i] = (d[i] - min) & mask;
    r |= d[i];
  }
  return r;
}
#endif

static void delta_flush_block(pq_delta_writer *w) {
  uint64_t n = w->nblock;
  if (n == 0) return;
  uint64_t *d = w->block;
  int avx2 = 0;
#ifdef DELTA_AVX2
  avx2 = (w->cpu & PQ_CPU_AVX2) != 0;
#endif
  int64_t min;
#ifdef DELTA_AVX2
  if (avx2) {
    min = block_min_avx2((const int64_t *)d, n);
  } else
#endif
  {
    min = block_min((const int64_t *)d, n);
  }
  uint64_t mask = w->is32 ? 0xffffffffull : ~0ull;
  uint64_t mbv = w->mb_values, used = (n + mbv - 1) / mbv;
  /* Room for the min delta, the widths and every miniblock at 64 bits. */
  pq_buf *b = &w->body;
  if (pq_buf_reserve(b, 10 + (size_t)w->mb_count + (size_t)(used * mbv * 8))) {
    w->nblock = 0; /* the buffer is marked: finish reports it */
    return;
  }
  uint8_t *o = b->data + b->len;
  o += pq_uleb_write(o, pq_zigzag_enc(min));
  uint8_t *widths = o;
  memset(widths, 0, (size_t)w->mb_count);
  o += w->mb_count;
  for (uint64_t m = 0; m < used; m++) {
    uint64_t *v = d + m * mbv;
    uint64_t cnt = n - m * mbv < mbv ? n - m * mbv : mbv, or;
#ifdef DELTA_AVX2
    if (avx2) {
      or = block_relative_avx2(v, cnt, (uint64_t)min, mask);
    } else
#endif
    {
      or = block_relative(v, cnt, (uint64_t)min, mask);
    }
    /* The padding of the last miniblock is 0. */
    for (uint64_t i = cnt; i < mbv; i++) v[i] = 0;
    int bw = pq_bit_width64(or);
    widths[m] = (uint8_t)bw;
    pack_values(o, v, mbv, bw);
    o += (size_t)(mbv * (uint64_t)bw / 8);
  }
  b->len = (size_t)(o - b->data);
  w->nblock = 0;
  (void)avx2;
}

void pq_delta_writer_put(pq_delta_writer *w, uint64_t v) {
  if (w->total++ == 0) {
    w->first = w->last = v;
    return;
  }
  uint64_t delta = v - w->last;
  if (w->is32) delta = (uint64_t)(int64_t)(int32_t)(uint32_t)delta;
  w->last = v;
  w->block[w->nblock++] = delta;
  if (w->nblock == w->block_size) delta_flush_block(w);
}

/* d[j] = x[j] - x[j - 1] for j in [1, k): INT32 differences (mod 2^32)
** sign-extended, or INT64 ones (mod 2^64). */
static void deltas32(int64_t *d, const int32_t *x, size_t k) {
  for (size_t j = 1; j < k; j++)
    d[j] = (int32_t)((uint32_t)x[j] - (uint32_t)x[j - 1]);
}
static void deltas64(uint64_t *d, const int64_t *x, size_t k) {
  for (size_t j = 1; j < k; j++) d[j] = (uint64_t)x[j] - (uint64_t)x[j - 1];
}
#ifdef DELTA_AVX2
PQ_AVX2 static void deltas32_avx2(int64_t *d, const int32_t *x, size_t k) {
  size_t j = 1;
  for (; j + 8 <= k; j += 8) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(x + j));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(x + j - 1));
    __m256i t = _mm256_sub_epi32(a, b);
    _mm256_storeu_si256((__m256i *)(void *)(d + j),
                        _mm256_cvtepi32_epi64(_mm256_castsi256_si128(t)));
    _mm256_storeu_si256((__m256i *)(void *)(d + j + 4),
                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(t, 1)));
  }
  if (j < k) deltas32(d + j - 1, x + j - 1, k - j + 1);
}
PQ_AVX2 static void deltas64_avx2(uint64_t *d, const int64_t *x, size_t k) {
  size_t j = 1;
  for (; j + 4 <= k; j += 4) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(x + j));
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(x + j - 1));
    _mm256_storeu_si256((__m256i *)(void *)(d + j), _mm256_sub_epi64(a, b));
  }
  if (j < k) deltas64(d + j - 1, x + j - 1, k - j + 1);
}
#endif

void pq_delta_writer_put32(pq_delta_writer *w, const int32_t *v, size_t n) {
  size_t i = 0;
  if (n > 0 && w->total == 0) {
    w->first = w->last = (uint64_t)(int64_t)v[0];
    w->total = 1;
    i = 1;
  }
  uint32_t last = (uint32_t)w->last;
  while (i < n) {
    uint64_t room = w->block_size - w->nblock;
    size_t k = n - i < room ? n - i : (size_t)room;
    int64_t *d = (int64_t *)(w->block + w->nblock);
    const int32_t *x = v + i;
    d[0] = (int32_t)((uint32_t)x[0] - last);
#ifdef DELTA_AVX2
    if (w->cpu & PQ_CPU_AVX2)
      deltas32_avx2(d, x, k);
    else
#endif
      deltas32(d, x, k);
    last = (uint32_t)x[k - 1];
    w->nblock += k;
    w->total += k;
    i += k;
    if (w->nblock == w->block_size) delta_flush_block(w);
  }
  w->last = (uint64_t)(int64_t)(int32_t)last;
}

void pq_delta_writer_put64(pq_delta_writer *w, const int64_t *v, size_t n) {
  size_t i = 0;
  if (n > 0 && w->total == 0) {
    w->first = w->last = (uint64_t)v[0];
    w->total = 1;
    i = 1;
  }
  uint64_t last = w->last;
  while (i < n) {
    uint64_t room = w->block_size - w->nblock;
    size_t k = n - i < room ? n - i : (size_t)room;
    uint64_t *d = w->block + w->nblock;
    const int64_t *x = v + i;
    d[0] = (uint64_t)x[0] - last;
#ifdef DELTA_AVX2
    if (w->cpu & PQ_CPU_AVX2)
      deltas64_avx2(d, x, k);
    else
#endif
      deltas64(d, x, k);
    last = (uint64_t)x[k - 1];
    w->nblock += k;
    w->total += k;
    i += k;
    if (w->nblock == w->block_size) delta_flush_block(w);
  }
  w->last = last;
}

void pq_delta_writer_finish(pq_delta_writer *w, pq_buf *out) {
  delta_flush_block(w);
  int64_t first =
      w->is32 ? (int64_t)(int32_t)(uint32_t)w->first : (int64_t)w->first;
  pq_buf_uleb(out, w->block_size);
  pq_buf_uleb(out, w->mb_count);
  pq_buf_uleb(out, w->total);
  pq_buf_uleb(out, pq_zigzag_enc(first));
  if (w->body.oom) out->oom = 1;
  pq_buf_append(out, w->body.data, w->body.len);
  /* A new stream, in the same memory. */
  w->total = w->first = w->last = w->nblock = 0;
  w->body.len = 0;
  w->body.oom = 0;
}

size_t pq_delta_writer_size(const pq_delta_writer *w) {
  return w->body.len + (size_t)w->nblock;
}

void pq_delta_writer_free(pq_delta_writer *w) {
  pq_free(w->block);
  w->block = NULL;
  pq_buf_free(&w->body);
}

/* ---- The DELTA_BINARY_PACKED encoding ------------------------------------ */

typedef struct delta_dec {
  pq_decoder base;
  pq_delta_reader r;
} delta_dec;

static int delta_read(pq_decoder *d, void *out, size_t max, size_t *n,
                      pq_error *err) {
  return pq_delta_reader_read(&((delta_dec *)d)->r, out, max, n, err);
}

int pq_delta_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                     size_t len, pq_error *err) {
  delta_dec *s = (delta_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, "DELTA_BINARY_PACKED");
  *out = &s->base;
  s->base.read = delta_read;
  int kind = p->type != PQ_INT32 ? PQ_DELTA_64
             : p->lenient        ? PQ_DELTA_32_LENIENT
                                 : PQ_DELTA_32;
  return pq_delta_reader_init(&s->r, buf, len, 0, kind, "DELTA_BINARY_PACKED",
                              err);
}

typedef struct delta_enc {
  pq_encoder base;
  pq_delta_writer w;
} delta_enc;

static int delta_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  (void)err;
  delta_enc *s = (delta_enc *)e;
  if (e->p.type == PQ_INT32) {
    pq_delta_writer_put32(&s->w, v, n);
  } else {
    pq_delta_writer_put64(&s->w, v, n);
  }
  return PQ_OK;
}

static int delta_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                        pq_error *err) {
  (void)dict;
  (void)err;
  pq_delta_writer_finish(&((delta_enc *)e)->w, out);
  return PQ_OK;
}

static size_t delta_size(const pq_encoder *e) {
  return pq_delta_writer_size(&((const delta_enc *)e)->w);
}

static void delta_destroy(pq_encoder *e) {
  pq_delta_writer_free(&((delta_enc *)e)->w);
}

static pq_buf *delta_room(pq_encoder *e) { return &((delta_enc *)e)->w.body; }

int pq_delta_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  delta_enc *s = (delta_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, "DELTA_BINARY_PACKED");
  s->base.put = delta_put;
  s->base.finish = delta_finish;
  s->base.destroy = delta_destroy;
  s->base.size = delta_size;
  s->base.reusable = 1;
  s->base.room = delta_room;
  *out = &s->base;
  return pq_delta_writer_init(&s->w, p, p->type == PQ_INT32,
                              "DELTA_BINARY_PACKED", err);
}
