/*
** dictionary.c -- PLAIN_DICTIONARY and RLE_DICTIONARY (spec/Encodings.md,
** "Dictionary Encoding").
**
**   index stream: <bit width, 1 byte, at most 32> <RLE/bit-packed runs>
**   dictionary:   the distinct values, PLAIN, in order of first appearance
**
** Both enum values name the same bytes.  Decoding with the dictionary
** yields the values; without it, the indices.  Encoding yields both
** streams; the index width is the least that holds the largest index.
** Values are equal when their bytes are: 0.0 and -0.0, or two NaNs with
** different payloads, are different entries.
*/
#include <stdio.h>

#include "encodings.h"

#if PQ_X86_SIMD
#include <immintrin.h>
#endif

/* ---- The dictionary ------------------------------------------------------ */

/* Numbers are copied into host order (and aligned) so that lookups are
** plain array reads; BYTE_ARRAY entries point into the dictionary. */
int pq_dict_load(pq_dict *d, pq_type t, int32_t type_length, const uint8_t *buf,
                 size_t len, const char *enc, pq_error *err) {
  memset(d, 0, sizeof *d);
  d->type = t;
  char label[64];
  snprintf(label, sizeof label, "%s: dictionary", enc);
  if (t == PQ_BOOLEAN) {
    d->fixed = buf;
    d->entries = len * 8;
    return PQ_OK;
  }
  if (t == PQ_BYTE_ARRAY) {
    size_t n = 0, pos = 0;
    while (pos < len) { /* count, checking every length */
      if (len - pos < 4 || pq_load32(buf + pos) > len - pos - 4) {
        return pq_fail(err, PQ_CORRUPT, label,
                       "entry %zu at offset %zu runs past the end (%zu bytes)",
                       n, pos, len);
      }
      pos += 4 + (size_t)pq_load32(buf + pos);
      n++;
    }
    d->strings = pq_malloc((n ? n : 1) * sizeof *d->strings);
    if (!d->strings) return pq_nomem(err, enc);
    pos = 0;
    for (size_t i = 0; i < n; i++) {
      d->strings[i].len = pq_load32(buf + pos);
      d->strings[i].ptr = buf + pos + 4;
      pos += 4 + d->strings[i].len;
    }
    d->entries = n;
    return PQ_OK;
  }
  size_t w = pq_plain_width(t, type_length);
  if (len % w != 0) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "%zu bytes are not a whole number of %zu-byte %s entries",
                   len, w, pq_type_name(t));
  }
  d->width = w;
  d->entries = len / w;
  d->owned = pq_malloc(len ? len : 1);
  if (!d->owned) return pq_nomem(err, enc);
  pq_buf tmp = {d->owned, 0, len ? len : 1, 0};
  pq_put_le(&tmp, buf, d->entries, w, t); /* LE -> host order */
  d->fixed = d->owned;
  return PQ_OK;
}

void pq_dict_free(pq_dict *d) {
  pq_free(d->strings);
  pq_free(d->owned);
  memset(d, 0, sizeof *d);
}

int pq_dict_check(const pq_dict *d, const uint32_t *idx, size_t *n,
                  uint64_t first, const char *enc, pq_error *err) {
  for (size_t i = 0; i < *n; i++) {
    if (idx[i] >= d->entries) {
      *n = i;
      return pq_fail(err, PQ_CORRUPT, enc,
                     "value %llu: index %u is beyond the dictionary of %zu "
                     "entries",
                     (unsigned long long)(first + i), idx[i], d->entries);
    }
  }
  return PQ_OK;
}

void pq_dict_gather(const pq_dict *d, const uint32_t *ix, size_t n, void *out) {
  switch (d->type) {
    case PQ_BOOLEAN: {
      uint8_t *o = out;
      for (size_t i = 0; i < n; i++)
        o[i] = (d->fixed[ix[i] >> 3] >> (ix[i] & 7)) & 1;
      break;
    }
    case PQ_BYTE_ARRAY: {
      pq_bytes *o = out;
      for (size_t i = 0; i < n; i++) o[i] = d->strings[ix[i]];
      break;
    }
    case PQ_INT32:
    case PQ_FLOAT: {
      uint32_t *o = out;
      const uint32_t *e = (const uint32_t *)(const void *)d->fixed;
      for (size_t i = 0; i < n; i++) o[i] = e[ix[i]];
      break;
    }
    case PQ_INT64:
    case PQ_DOUBLE: {
      uint64_t *o = out;
      const uint64_t *e = (const uint64_t *)(const void *)d->fixed;
      for (size_t i = 0; i < n; i++) o[i] = e[ix[i]];
      break;
    }
    default: {
      uint8_t *o = out;
      for (size_t i = 0; i < n; i++)
        memcpy(o + i * d->width, d->fixed + (size_t)ix[i] * d->width, d->width);
    }
  }
}

int pq_dict_bit_width(const uint8_t *buf, size_t len, int64_t count,
                      const char *enc, int *w, pq_error *err) {
  *w = 0;
  if (len > 0) {
    *w = buf[0];
    if (*w > 32) {
      return pq_fail(err, PQ_CORRUPT, enc,
                     "bit width %d at offset 0 is above 32", *w);
    }
  } else if (count > 0) {
    return pq_fail(err, PQ_CORRUPT, enc,
                   "the stream is empty: no bit width byte");
  }
  return PQ_OK;
}

/* ---- Decoder ------------------------------------------------------------ */

typedef struct dict_dec {
  pq_decoder base;
  pq_rle_reader r;
  const char *label;
  int have_dict;
  int checked;  /* every index of the width is in the dictionary */
  unsigned cpu; /* pq_cpu() at open */
  pq_dict dict;
  /* Bit-packed runs read in registers (AVX2, indices of 1..25 bits, a
  ** dictionary of 4- or 8-byte numbers): how each 32-bit lane of 8 indices
  ** picks its bytes and shifts them, and how far a group's loads reach. */
  int regs;
  size_t hi, reach;
  uint8_t shuf[32];
  uint32_t shift[8];
  uint32_t idx[256];
} dict_dec;

#if PQ_X86_SIMD
/* The AVX2 lookups clamp each index to the last entry, so that every load
** stays inside the dictionary, and keep the largest index they saw: unless
** `checked`, a batch with an index past the dictionary returns 0, and the
** scalar loop looks it up again to stop at the bad index.  The gathers
** take signed indices: only for dictionaries of at most 2^31 entries. */
PQ_AVX2 static int past_last(__m256i seen, __m256i last) {
  return _mm256_movemask_epi8(
             _mm256_cmpeq_epi32(_mm256_max_epu32(seen, last), last)) != -1;
}

/* 4-byte entries, 8 at a time; up to 16 entries sit in two registers and
** are picked by a permute rather than a gather. */
PQ_AVX2 static size_t gather32_avx2(const uint32_t *e, size_t entries,
                                       int checked, const uint32_t *ix,
                                       size_t n, uint32_t *o) {
  const __m256i last = _mm256_set1_epi32((int)(uint32_t)(entries - 1));
  __m256i seen = _mm256_setzero_si256();
  size_t i = 0;
  if (entries <= 16) {
    uint32_t t[16] = {0};
    memcpy(t, e, entries * sizeof *e);
    const __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)t);
    const __m256i hi =
        _mm256_loadu_si256((const __m256i *)(const void *)(t + 8));
    const __m256i seven = _mm256_set1_epi32(7);
    for (; i + 8 <= n; i += 8) {
      __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(ix + i));
      seen = _mm256_max_epu32(seen, x);
      x = _mm256_min_epu32(x, last);
      __m256i v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, x),
                                     _mm256_permutevar8x32_epi32(hi, x),
                                     _mm256_cmpgt_epi32(x, seven));
      _mm256_storeu_si256((__m256i *)(void *)(o + i), v);
    }
  } else {
    for (; i + 8 <= n; i += 8) {
      __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(ix + i));
      seen = _mm256_max_epu32(seen, x);
      x = _mm256_min_epu32(x, last);
      __m256i v = _mm256_i32gather_epi32((const int *)(const void *)e, x, 4);
      _mm256_storeu_si256((__m256i *)(void *)(o + i), v);
    }
  }
  return !checked && past_last(seen, last) ? 0 : i;
}

/* 8-byte entries, 8 at a time in two gathers. */
PQ_AVX2 static size_t gather64_avx2(const uint64_t *e, size_t entries,
                                       int checked, const uint32_t *ix,
                                       size_t n, uint64_t *o) {
  const __m256i last = _mm256_set1_epi32((int)(uint32_t)(entries - 1));
  __m256i seen = _mm256_setzero_si256();
  const long long *b = (const long long *)(const void *)e;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(ix + i));
    seen = _mm256_max_epu32(seen, x);
    x = _mm256_min_epu32(x, last);
    __m256i v0 = _mm256_i32gather_epi64(b, _mm256_castsi256_si128(x), 8);
    __m256i v1 = _mm256_i32gather_epi64(b, _mm256_extracti128_si256(x, 1), 8);
    _mm256_storeu_si256((__m256i *)(void *)(o + i), v0);
    _mm256_storeu_si256((__m256i *)(void *)(o + i + 4), v1);
  }
  return !checked && past_last(seen, last) ? 0 : i;
}
#endif

#if PQ_X86_SIMD
/* 8 indices of w bits (1..25) from p: the low lane takes indices 0..3
** from p[0..16), the high lane 4..7 from p[hi..hi+16); each lane's bytes
** are picked by a shuffle, shifted down by its bit offset and masked. */
PQ_AVX2 static inline __m256i unpack8_avx2(const uint8_t *p, size_t hi,
                                           __m256i shuf, __m256i shift,
                                           __m256i mask) {
  __m256i raw =
      hi > 0 ? _mm256_inserti128_si256(
               _mm256_castsi128_si256(
                   _mm_loadu_si128((const __m128i *)(const void *)p)),
               _mm_loadu_si128((const __m128i *)(const void *)(p + hi)), 1)
         : _mm256_broadcastsi128_si256(
               _mm_loadu_si128((const __m128i *)(const void *)p));
  return _mm256_and_si256(
      _mm256_srlv_epi32(_mm256_shuffle_epi8(raw, shuf), shift), mask);
}

/* Looks up `groups` groups of 8 bit-packed indices at p (w bytes a group)
** into out, without storing the indices: the same clamps and the same
** largest-index check as above.  Returns the values looked up, or 0 when
** an index is past the dictionary (unless checked). */
PQ_AVX2 static inline __attribute__((always_inline)) size_t
packed_lookup_body(const dict_dec *s, const uint8_t *p, size_t groups,
                   void *out, size_t hi) {
  const size_t entries = s->dict.entries, w = (size_t)s->r.w;
  const __m256i shuf =
      _mm256_loadu_si256((const __m256i *)(const void *)s->shuf);
  const __m256i shift =
      _mm256_loadu_si256((const __m256i *)(const void *)s->shift);
  const __m256i mask = _mm256_set1_epi32((int)((1u << w) - 1));
  const __m256i last = _mm256_set1_epi32((int)(uint32_t)(entries - 1));
  __m256i seen = _mm256_setzero_si256();
  if (s->dict.type == PQ_BYTE_ARRAY) {
    /* 16-byte entries (pointer, length), each copied whole: the group's
    ** clamped indices go through the stack to address them. */
    const __m128i *b = (const __m128i *)(const void *)s->dict.strings;
    __m128i *o = out;
    uint32_t t[8];
    for (size_t g = 0; g < groups; g++, p += w, o += 8) {
      __m256i x = unpack8_avx2(p, hi, shuf, shift, mask);
      seen = _mm256_max_epu32(seen, x);
      _mm256_storeu_si256((__m256i *)(void *)t, _mm256_min_epu32(x, last));
#pragma GCC unroll 8
      for (int j = 0; j < 8; j++) _mm_storeu_si128(o + j, _mm_loadu_si128(b + t[j]));
    }
  } else if (s->dict.width == 8) {
    const long long *b = (const long long *)(const void *)s->dict.fixed;
    uint64_t *o = out;
    for (size_t g = 0; g < groups; g++, p += w, o += 8) {
      __m256i x = unpack8_avx2(p, hi, shuf, shift, mask);
      seen = _mm256_max_epu32(seen, x);
      x = _mm256_min_epu32(x, last);
      __m256i v0 = _mm256_i32gather_epi64(b, _mm256_castsi256_si128(x), 8);
      __m256i v1 = _mm256_i32gather_epi64(b, _mm256_extracti128_si256(x, 1), 8);
      _mm256_storeu_si256((__m256i *)(void *)o, v0);
      _mm256_storeu_si256((__m256i *)(void *)(o + 4), v1);
    }
  } else if (entries <= 16) {
    uint32_t t[16] = {0};
    memcpy(t, s->dict.fixed, entries * 4);
    const __m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)t);
    const __m256i hi8 =
        _mm256_loadu_si256((const __m256i *)(const void *)(t + 8));
    const __m256i seven = _mm256_set1_epi32(7);
    uint32_t *o = out;
    for (size_t g = 0; g < groups; g++, p += w, o += 8) {
      __m256i x = unpack8_avx2(p, hi, shuf, shift, mask);
      seen = _mm256_max_epu32(seen, x);
      x = _mm256_min_epu32(x, last);
      __m256i v = _mm256_blendv_epi8(_mm256_permutevar8x32_epi32(lo, x),
                                     _mm256_permutevar8x32_epi32(hi8, x),
                                     _mm256_cmpgt_epi32(x, seven));
      _mm256_storeu_si256((__m256i *)(void *)o, v);
    }
  } else {
    const int *b = (const int *)(const void *)s->dict.fixed;
    uint32_t *o = out;
    for (size_t g = 0; g < groups; g++, p += w, o += 8) {
      __m256i x = unpack8_avx2(p, hi, shuf, shift, mask);
      seen = _mm256_max_epu32(seen, x);
      x = _mm256_min_epu32(x, last);
      _mm256_storeu_si256((__m256i *)(void *)o,
                          _mm256_i32gather_epi32(b, x, 4));
    }
  }
  return !s->checked && past_last(seen, last) ? 0 : groups * 8;
}

/* The body built twice: for indices of up to 16 bits (one 16-byte load a
** group) and for wider ones. */
PQ_AVX2 static size_t packed_lookup_avx2(const dict_dec *s, const uint8_t *p,
                                         size_t groups, void *out) {
  if (s->hi == 0) return packed_lookup_body(s, p, groups, out, 0);
  return packed_lookup_body(s, p, groups, out, s->hi);
}
#endif

/* Sets up the register reading of bit-packed runs when it applies. */
static void dict_regs_init(dict_dec *s) {
  s->regs = 0;
#if PQ_X86_SIMD
  const int w = s->r.w;
  if (!(s->cpu & PQ_CPU_AVX2) || w < 1 || w > 25 || s->dict.entries == 0 ||
      (s->dict.type != PQ_INT32 && s->dict.type != PQ_FLOAT &&
       s->dict.type != PQ_INT64 && s->dict.type != PQ_DOUBLE &&
       (s->dict.type != PQ_BYTE_ARRAY || sizeof(pq_bytes) != 16)))
    return;
  /* Up to 16 bits a group's w bytes all lie in its first 16; wider, index
  ** 7 ends 12 bytes past index 4's first byte at most. */
  s->hi = w > 16 ? (size_t)(4 * w) / 8 : 0;
  s->reach = s->hi + 16;
  for (int j = 0; j < 8; j++) {
    size_t bit = (size_t)j * (size_t)w, at = bit / 8 - (j < 4 ? 0 : s->hi);
    for (int b = 0; b < 4; b++)
      s->shuf[4 * j + b] = at + (size_t)b < 16 ? (uint8_t)(at + (size_t)b) : 0x80;
    s->shift[j] = (uint32_t)(bit % 8);
  }
  s->regs = 1;
#endif
}

/* Looks up indices ix[0..n) into out; unless `checked`, stops at the first
** one beyond the dictionary.  Returns how many it looked up. */
static size_t dict_lookup_n(const pq_dict *d, int checked, unsigned cpu,
                            const uint32_t *ix, size_t n, void *out) {
  const size_t entries = d->entries;
  size_t i = 0;
#if PQ_X86_SIMD
  if ((cpu & PQ_CPU_AVX2) && entries > 0 && entries <= ((size_t)1 << 31)) {
    if (d->type == PQ_INT32 || d->type == PQ_FLOAT) {
      i = gather32_avx2((const uint32_t *)(const void *)d->fixed, entries,
                        checked, ix, n, out);
    } else if (d->type == PQ_INT64 || d->type == PQ_DOUBLE) {
      i = gather64_avx2((const uint64_t *)(const void *)d->fixed, entries,
                        checked, ix, n, out);
    }
  }
#endif
  (void)cpu;
#define PQ_GATHER(T, src)                                       \
  do {                                                          \
    T *o = out;                                                 \
    if (checked) {                                              \
      for (; i < n; i++) o[i] = (src)[ix[i]];                   \
    } else {                                                    \
      for (; i < n && ix[i] < entries; i++) o[i] = (src)[ix[i]]; \
    }                                                           \
  } while (0)
  switch (d->type) {
    case PQ_INT32:
    case PQ_FLOAT:
      PQ_GATHER(uint32_t, (const uint32_t *)(const void *)d->fixed);
      return i;
    case PQ_INT64:
    case PQ_DOUBLE:
      PQ_GATHER(uint64_t, (const uint64_t *)(const void *)d->fixed);
      return i;
    case PQ_BYTE_ARRAY:
      PQ_GATHER(pq_bytes, d->strings);
      return i;
    default:
      break;
  }
#undef PQ_GATHER
  if (!checked) {
    while (i < n && ix[i] < entries) i++;
    n = i;
  }
  pq_dict_gather(d, ix, n, out);
  return n;
}

/* Stores m copies of entry x (checked) into out. */
static void dict_fill(const pq_dict *d, uint32_t x, size_t m, void *out) {
  switch (d->type) {
    case PQ_INT32:
    case PQ_FLOAT: {
      uint32_t v = ((const uint32_t *)(const void *)d->fixed)[x], *o = out;
      for (size_t i = 0; i < m; i++) o[i] = v;
      return;
    }
    case PQ_INT64:
    case PQ_DOUBLE: {
      uint64_t v = ((const uint64_t *)(const void *)d->fixed)[x], *o = out;
      for (size_t i = 0; i < m; i++) o[i] = v;
      return;
    }
    case PQ_BYTE_ARRAY: {
      pq_bytes v = d->strings[x], *o = out;
      for (size_t i = 0; i < m; i++) o[i] = v;
      return;
    }
    case PQ_BOOLEAN:
      memset(out, (d->fixed[x >> 3] >> (x & 7)) & 1, m);
      return;
    default: {
      uint8_t *o = out;
      const uint8_t *v = d->fixed + (size_t)x * d->width;
      for (size_t i = 0; i < m; i++) memcpy(o + i * d->width, v, d->width);
    }
  }
}

static int bad_index(const dict_dec *s, uint64_t at, uint32_t v,
                     pq_error *err) {
  return pq_fail(err, PQ_CORRUPT, s->label,
                 "value %llu: index %u is beyond the dictionary of %zu "
                 "entries",
                 (unsigned long long)at, v, s->dict.entries);
}

/* Run by run: an RLE run's index is checked once and its value repeated;
** a bit-packed run's indices are checked as they are looked up, or not at
** all when the bit width cannot name an entry past the dictionary. */
static int dict_read(pq_decoder *d, void *out, size_t max, size_t *n,
                     pq_error *err) {
  dict_dec *s = (dict_dec *)d;
  if (!s->have_dict) return pq_rle_reader_read(&s->r, out, max, n, err);
  const size_t vs = pq_value_size(d->out_type, d->out_length);
  uint8_t *o = out;
  size_t k = 0;
  int rc = PQ_OK;
  while (k < max) {
#if PQ_X86_SIMD
    pq_rle_reader *r = &s->r;
    if (s->regs && r->run_left == 0 && r->chunk_pos >= r->chunk_len &&
        r->pos < r->len) {
      rc = pq_rle_next_run(r, err); /* so that a run starts here too */
      if (rc) break;
    }
    if (s->regs && r->run_packed && r->run_left >= 8 && max - k >= 8 &&
        r->chunk_pos >= r->chunk_len) {
      /* Whole groups of the bit-packed run straight from the stream, the
      ** loads of the last one inside it; the rest, or groups with an index
      ** past the dictionary, go the general way below. */
      const size_t w = (size_t)r->w;
      const size_t avail = r->len - (size_t)(r->packed - r->buf);
      size_t g = (max - k) / 8;
      if (g > r->run_left / 8) g = r->run_left / 8;
      if (g > r->packed_bytes / w) g = r->packed_bytes / w;
      if (avail < s->reach) g = 0;
      else if (g > (avail - s->reach) / w + 1) g = (avail - s->reach) / w + 1;
      size_t got = g ? packed_lookup_avx2(s, r->packed, g, o + k * vs) : 0;
      if (got) {
        r->packed += g * w;
        r->packed_bytes -= g * w;
        r->run_left -= (uint32_t)got;
        r->produced += got;
        k += got;
        continue;
      }
    }
#endif
    const uint32_t *vals;
    uint32_t v;
    size_t m, want = max - k < 256 ? max - k : 256;
    rc = pq_rle_reader_next(&s->r, s->idx, want, &vals, &v, &m, err);
    if (m == 0) break;
    if (vals) {
      size_t got = dict_lookup_n(&s->dict, s->checked, s->cpu, vals, m,
                                 o + k * vs);
      if (got < m) {
        k += got;
        v = vals[got];
        rc = PQ_CORRUPT;
      }
    } else if (v < s->dict.entries) {
      dict_fill(&s->dict, v, m, o + k * vs);
    } else {
      rc = PQ_CORRUPT;
    }
    if (rc) {
      rc = bad_index(s, d->done + k, v, err);
      break;
    }
    k += m;
  }
  *n = k;
  return rc;
}

#if PQ_X86_SIMD
PQ_AVX2 static uint32_t max_index_avx2(const uint32_t *ix, size_t n,
                                          size_t *i) {
  __m256i top = _mm256_setzero_si256();
  for (; *i + 8 <= n; *i += 8)
    top = _mm256_max_epu32(
        top, _mm256_loadu_si256((const __m256i *)(const void *)(ix + *i)));
  __m128i t = _mm_max_epu32(_mm256_castsi256_si128(top),
                            _mm256_extracti128_si256(top, 1));
  t = _mm_max_epu32(t, _mm_shuffle_epi32(t, 0x4e));
  t = _mm_max_epu32(t, _mm_shuffle_epi32(t, 0xb1));
  return (uint32_t)_mm_cvtsi128_si32(t);
}
#endif

/* The largest of n indices. */
static uint32_t max_index(const uint32_t *ix, size_t n, unsigned cpu) {
  uint32_t top = 0;
  size_t i = 0;
#if PQ_X86_SIMD
  if (cpu & PQ_CPU_AVX2) top = max_index_avx2(ix, n, &i);
#endif
  (void)cpu;
  for (; i < n; i++) top = ix[i] > top ? ix[i] : top;
  return top;
}

/* The dictionary vector: indices, each checked against the dictionary
** (without a check when the bit width cannot name an entry past it). */
static int dict_read_indices(pq_decoder *d, void *out, size_t max, size_t *n,
                             pq_error *err) {
  dict_dec *s = (dict_dec *)d;
  int rc = pq_rle_reader_read(&s->r, out, max, n, err);
  if (rc || s->checked || *n == 0) return rc;
  const uint32_t *ix = out;
  if (max_index(ix, *n, s->cpu) < s->dict.entries) return PQ_OK;
  size_t i = 0;
  while (ix[i] < s->dict.entries) i++;
  *n = i;
  return bad_index(s, d->done + i, ix[i], err);
}

const pq_dict *pq_dict_decoder_dict(const pq_decoder *d) {
  if (d->read != dict_read && d->read != dict_read_indices) return NULL;
  const dict_dec *s = (const dict_dec *)d;
  return s->have_dict ? &s->dict : NULL;
}

const pq_dict *pq_dict_decoder_indices(pq_decoder *d) {
  if (d->read != dict_read || d->done > 0) return NULL;
  dict_dec *s = (dict_dec *)d;
  if (!s->have_dict) return NULL;
  d->read = dict_read_indices;
  d->out_type = PQ_INT32;
  d->out_length = 0;
  d->is_index = 1;
  return &s->dict;
}

static void dict_destroy(pq_decoder *d) {
  pq_dict_free(&((dict_dec *)d)->dict);
}

int pq_dict_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                    size_t len, const uint8_t *dict, size_t dict_len,
                    pq_error *err) {
  const char *label = pq_encoding_name(p->encoding);
  int w;
  int rc = pq_dict_bit_width(buf, len, p->count, label, &w, err);
  if (rc) return rc;
  dict_dec *s = (dict_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, label);
  *out = &s->base;
  s->label = label;
  s->base.read = dict_read;
  s->base.destroy = dict_destroy;
  pq_rle_reader_init(&s->r, buf + (len > 0), len - (len > 0), 1, w, label);
  if (p->count >= 0) s->r.limit = (uint64_t)p->count;
  if (dict) {
    s->have_dict = 1;
    rc = pq_dict_load(&s->dict, p->type, p->type_length, dict, dict_len,
                      label, err);
    s->checked = w < 32 && ((size_t)1 << w) <= s->dict.entries;
    s->cpu = pq_cpu();
    if (!rc) dict_regs_init(s);
    return rc;
  }
  s->base.out_type = PQ_INT32;
  s->base.out_length = 0;
  s->base.is_index = 1;
  return PQ_OK;
}

/* ---- Encoder ------------------------------------------------------------
** One open-addressing table (linear probing, at most half full).  Values
** of 1, 4 or 8 bytes (BOOLEAN, INT32, FLOAT, INT64, DOUBLE) are looked up
** as numbers: a slot holds an entry, compared by reading its value back
** from the dictionary's PLAIN bytes, the hash
** is one multiplication, equality one compare, and the PLAIN bytes are
** written only for a new entry.  Other values (BYTE_ARRAY,
** FIXED_LEN_BYTE_ARRAY, INT96) are hashed and compared as bytes. */

typedef struct dict_enc {
  pq_encoder base;
  pq_buf keys;      /* the PLAIN dictionary (BOOLEAN: a byte each) */
  size_t *offsets;  /* BYTE_ARRAY: where each entry starts in keys */
  uint32_t *hashes; /* bytes: of each entry */
  uint32_t entries, cap_entries;
  uint32_t *slots; /* entry + 1, 0 = empty */
  uint32_t nslots; /* a power of two, at least 2 * entries */
  int shift;       /* numbers: 64 - log2(nslots) */
  int numeric;     /* values looked up as numbers */
  size_t width;    /* PLAIN bytes of a fixed-width value */
  /* INT32 and INT64 values of a small range are looked up without the
  ** hash: dtab[value - dbase] (modulo 2^64) holds entry + 1, 0 for a value
  ** not seen, over dspan values.  vmin and vmax are the values' range.
  ** When it outgrows DIRECT_MAX the hash table takes over for good. */
  int direct;
  unsigned cpu; /* pq_cpu() at open */
  uint32_t *dtab;
  uint64_t dbase, dspan;
  int64_t vmin, vmax;
  pq_rle_adaptive idx;
} dict_enc;

#define DIRECT_MAX ((uint64_t)1 << 16)

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
  while (n >= 8) {
    uint64_t x;
    memcpy(&x, p, 8);
    h = (h ^ x) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  uint64_t t = 0;
  for (size_t i = 0; i < n; i++) t |= (uint64_t)p[i] << (8 * i);
  h = (h ^ t) * 0x94d049bb133111ebull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

/* The slot a number hashes to: the top bits of a multiplication, after
** folding the high half in (doubles differ mostly in their high bits). */
static inline uint32_t hash_num(uint64_t x, int shift) {
  return (uint32_t)(((x ^ (x >> 32)) * 0x9e3779b97f4a7c15ull) >> shift);
}

static const uint8_t *entry_bytes(const dict_enc *s, uint32_t i, size_t *n) {
  if (s->width) {
    *n = s->width;
    return s->keys.data + (size_t)i * s->width;
  }
  *n = pq_load32(s->keys.data + s->offsets[i]);
  return s->keys.data + s->offsets[i] + 4;
}

/* A number's value from its PLAIN bytes in the dictionary. */
static inline uint64_t entry_num(const dict_enc *s, uint32_t e) {
  const uint8_t *p = s->keys.data + (size_t)e * s->width;
  switch (s->width) {
    case 1: return p[0];
    case 4: return pq_load32(p);
    default: return pq_load64(p);
  }
}

/* Rebuilds the table with n slots. */
static int dict_set_slots(dict_enc *s, uint32_t n) {
  /* a table of that size already (kept by pq_dict_reset): emptied, and
  ** filled again in place, its pages written before */
  uint32_t *slots = s->slots && s->nslots == n ? s->slots : NULL;
  if (slots) memset(slots, 0, (size_t)n * sizeof *slots);
  else if (!(slots = pq_calloc(n, sizeof *slots))) return PQ_NOMEM;
  int shift = 64 - pq_bit_width64(n - 1);
  for (uint32_t i = 0; i < s->entries; i++) {
    uint32_t j = s->numeric ? hash_num(entry_num(s, i), shift)
                            : s->hashes[i] & (n - 1);
    while (slots[j]) j = (j + 1) & (n - 1);
    slots[j] = i + 1;
  }
  if (slots != s->slots) pq_free(s->slots);
  s->slots = slots;
  s->nslots = n;
  s->shift = shift;
  return PQ_OK;
}

static int dict_grow_slots(dict_enc *s) {
  if (s->nslots >= (1u << 31)) return PQ_NOMEM;
  return dict_set_slots(s, s->nslots ? s->nslots * 2 : 64);
}

/* Makes room for one more entry. */
static int dict_room(dict_enc *s) {
  if (s->entries == UINT32_MAX) return -1;
  if (s->entries < s->cap_entries) return 0;
  uint32_t c = s->cap_entries ? s->cap_entries * 2 : 64;
  if (!s->numeric) {
    uint32_t *hs = pq_realloc(s->hashes, c * sizeof *hs);
    if (!hs) return -1;
    s->hashes = hs;
    if (!s->width) {
      size_t *os = pq_realloc(s->offsets, c * sizeof *os);
      if (!os) return -1;
      s->offsets = os;
    }
  }
  s->cap_entries = c;
  return 0;
}

/* Adds a number at slot j of the table: its PLAIN bytes (v points to it in
** host order) to the dictionary.  Returns the entry or -1 when memory runs
** out. */
static int64_t dict_add_num(dict_enc *s, uint32_t j, uint64_t x,
                            const void *v) {
  if (dict_room(s)) return -1;
  uint32_t e = s->entries;
  if (s->base.p.type == PQ_BOOLEAN) {
    pq_buf_byte(&s->keys, (uint8_t)x);
  } else {
    pq_put_le(&s->keys, v, 1, s->width, s->base.p.type);
  }
  if (s->keys.oom) return -1;
  s->slots[j] = e + 1;
  s->entries++;
  if ((uint64_t)s->entries * 2 > s->nslots && dict_grow_slots(s)) return -1;
  return e;
}

/* The indices of n numbers of type T into ix; -1 when memory runs out.
** A slot holds an entry; the entry's value is read back from the
** dictionary's PLAIN bytes (LOAD).  The slot of the value 8 ahead is
** prefetched, so that the misses of a table larger than the cache overlap
** (the table may grow in between: a prefetch of a stale address does no
** harm). */
#define DICT_PUT_NUMS(NAME, T, KEY, W, LOAD)                               \
  static int NAME(dict_enc *s, const T *u, size_t n, uint32_t *ix) {       \
    for (size_t i = 0; i < n; i++) {                                       \
      if (i + 8 < n) PQ_PREFETCH(s->slots + hash_num(KEY(u[i + 8]), s->shift)); \
      const uint64_t x = KEY(u[i]);                                        \
      const uint32_t *t = s->slots;                                        \
      const uint8_t *k = s->keys.data;                                     \
      const uint32_t mask = s->nslots - 1;                                 \
      uint32_t j = hash_num(x, s->shift);                                  \
      int64_t e;                                                           \
      for (;;) {                                                           \
        uint32_t f = t[j];                                                 \
        if (f == 0) {                                                      \
          T one = (T)x;                                                    \
          e = dict_add_num(s, j, x, &one);                                 \
          if (e < 0) return -1;                                            \
          break;                                                           \
        }                                                                  \
        if (LOAD(k + (size_t)(f - 1) * (W)) == x) {                        \
          e = (int64_t)f - 1;                                              \
          break;                                                           \
        }                                                                  \
        j = (j + 1) & mask;                                                \
      }                                                                    \
      ix[i] = (uint32_t)e;                                                 \
    }                                                                      \
    return 0;                                                              \
  }
#define KEY_BOOL(b) ((uint64_t)((b) != 0))
#define KEY_NUM(b) ((uint64_t)(b))
#define LOAD8(p) ((uint64_t)*(p))
DICT_PUT_NUMS(put_bools, uint8_t, KEY_BOOL, 1, LOAD8)
DICT_PUT_NUMS(put_nums32, uint32_t, KEY_NUM, 4, pq_load32)
DICT_PUT_NUMS(put_nums64, uint64_t, KEY_NUM, 8, pq_load64)

/* A number's value as the direct table keys it: INT32 sign-extended. */
static inline int64_t direct_key(const dict_enc *s, uint64_t x) {
  return s->width == 4 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
}

/* Widens the direct table's range to take x, leaving room on the side it
** grew; gives it up for the hash table when the range would pass
** DIRECT_MAX.  Returns 0, or -1 when memory runs out. */
static int direct_widen(dict_enc *s, int64_t x) {
  int64_t lo = s->dspan && s->vmin < x ? s->vmin : x;
  int64_t hi = s->dspan && s->vmax > x ? s->vmax : x;
  uint64_t need = (uint64_t)hi - (uint64_t)lo + 1;
  if (need == 0 || need > DIRECT_MAX) {
    /* To the hash table: its slots for the entries so far. */
    pq_free(s->dtab);
    s->dtab = NULL;
    s->direct = 0;
    uint32_t n = 64;
    while ((uint64_t)s->entries * 2 > n) n *= 2;
    if (n < s->nslots) n = s->nslots; /* (the table a chunk before grew) */
    return dict_set_slots(s, n) ? -1 : 0;
  }
  uint64_t span = need * 2 < 1024 ? 1024 : need * 2;
  if (span > DIRECT_MAX) span = DIRECT_MAX;
  uint64_t base = !s->dspan ? (uint64_t)x - span / 2
                  : x < s->vmin ? (uint64_t)hi - (span - 1)
                                : (uint64_t)lo;
  uint32_t *t = pq_calloc((size_t)span, sizeof *t);
  if (!t) return -1;
  for (uint32_t e = 0; e < s->entries; e++)
    t[(uint64_t)direct_key(s, entry_num(s, e)) - base] = e + 1;
  pq_free(s->dtab);
  s->dtab = t;
  s->dbase = base;
  s->dspan = span;
  s->vmin = lo;
  s->vmax = hi;
  return 0;
}

#if PQ_X86_SIMD
/* INT32 values found in the direct table, 8 at a time, up to the first
** group of 8 with a value not there; returns how many.  The offsets are
** taken modulo 2^32: a slot holds only an INT32 value, and two INT32
** values that agree modulo 2^32 are the same, so a slot hit is the value;
** a miss goes to the exact test. */
PQ_AVX2 static size_t direct32_avx2(const uint32_t *t, uint64_t base,
                                    uint64_t span, const uint32_t *u,
                                    size_t n, uint32_t *ix) {
  const __m256i b = _mm256_set1_epi32((int)(uint32_t)base);
  const __m256i top = _mm256_set1_epi32((int)(uint32_t)(span - 1));
  const __m256i one = _mm256_set1_epi32(1), zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256i off = _mm256_sub_epi32(
        _mm256_loadu_si256((const __m256i *)(const void *)(u + i)), b);
    __m256i in = _mm256_cmpeq_epi32(_mm256_min_epu32(off, top), off);
    __m256i f = _mm256_mask_i32gather_epi32(
        zero, (const int *)(const void *)t, off, in, 4);
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(f, zero))) break;
    _mm256_storeu_si256((__m256i *)(void *)(ix + i), _mm256_sub_epi32(f, one));
  }
  return i;
}
#endif

/* The indices of n INT32 or INT64 values (T) by the direct table, as long
** as it holds; the rest by the hash table.  -1 when memory runs out.  With
** AVX2, INT32 values go 8 at a time while they are all found, and the
** group that is not one at a time. */
#define DICT_PUT_DIRECT(NAME, T, SIGNED, HASHED, FAST)                    \
  static int NAME(dict_enc *s, const T *u, size_t n, uint32_t *ix) {       \
    size_t i = 0;                                                          \
    while (i < n) {                                                        \
      const uint32_t *t = s->dtab;                                         \
      const uint64_t base = s->dbase, span = s->dspan;                     \
      size_t end = n;                                                      \
      FAST                                                                 \
      for (; i < end; i++) {                                               \
        uint64_t off = (uint64_t)(int64_t)(SIGNED)u[i] - base;             \
        if (off >= span || t[off] == 0) break;                             \
        ix[i] = t[off] - 1;                                                \
      }                                                                    \
      if (i == end) continue;                                              \
      const int64_t x = (int64_t)(SIGNED)u[i];                             \
      const uint64_t off = (uint64_t)x - base;                             \
      if (off < span) { /* a new entry */                                  \
        if (dict_room(s)) return -1;                                       \
        pq_put_le(&s->keys, &u[i], 1, sizeof(T), s->base.p.type);          \
        if (s->keys.oom) return -1;                                        \
        s->dtab[off] = s->entries + 1;                                     \
        ix[i++] = s->entries++;                                            \
        if (x < s->vmin) s->vmin = x;                                      \
        if (x > s->vmax) s->vmax = x;                                      \
      } else if (direct_widen(s, x)) {                                     \
        return -1;                                                         \
      } else if (!s->direct) {                                             \
        return HASHED(s, u + i, n - i, ix + i);                            \
      }                                                                    \
    }                                                                      \
    return 0;                                                              \
  }
#if PQ_X86_SIMD
#define DIRECT32_FAST                                                      \
  if ((s->cpu & PQ_CPU_AVX2) && span > 0) {                                \
    i += direct32_avx2(t, base, span, u + i, n - i, ix + i);               \
    end = n - i > 8 ? i + 8 : n;                                           \
  }
#else
#define DIRECT32_FAST
#endif
DICT_PUT_DIRECT(put_direct32, uint32_t, int32_t, put_nums32, DIRECT32_FAST)
DICT_PUT_DIRECT(put_direct64, uint64_t, int64_t, put_nums64, )

/* Finds the value's entry, adding it when new; returns its index or -1
** when memory runs out. */
static int64_t dict_lookup(dict_enc *s, const uint8_t *v, size_t n) {
  uint32_t h = (uint32_t)hash_bytes(v, n);
  uint32_t j = h & (s->nslots - 1);
  for (; s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
    uint32_t e = s->slots[j] - 1;
    size_t en;
    if (s->hashes[e] != h) continue;
    const uint8_t *eb = entry_bytes(s, e, &en);
    if (en == n && memcmp(eb, v, n) == 0) return e;
  }
  if (dict_room(s)) return -1;
  uint32_t e = s->entries;
  if (s->width) {
    pq_buf_append(&s->keys, v, n);
  } else {
    uint8_t len[4];
    pq_store32(len, (uint32_t)n);
    s->offsets[e] = s->keys.len;
    pq_buf_append(&s->keys, len, 4);
    pq_buf_append(&s->keys, v, n);
  }
  if (s->keys.oom) return -1;
  s->hashes[e] = h;
  s->slots[j] = e + 1;
  s->entries++;
  if ((uint64_t)s->entries * 2 > s->nslots && dict_grow_slots(s)) return -1;
  return e;
}

static int dict_put_nums(dict_enc *s, const void *v, size_t n, uint32_t *ix) {
  if (s->direct)
    return s->width == 4 ? put_direct32(s, v, n, ix) : put_direct64(s, v, n, ix);
  switch (s->width) {
    case 1: return put_bools(s, v, n, ix);
    case 4: return put_nums32(s, v, n, ix);
    default: return put_nums64(s, v, n, ix);
  }
}

static int dict_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  dict_enc *s = (dict_enc *)e;
  const char *label = pq_encoding_name(e->p.encoding);
  uint32_t ix[256];
  if (s->numeric) {
    const uint8_t *b = v;
    size_t vs = s->width;
    for (size_t i = 0; i < n; i += 256) {
      size_t m = n - i < 256 ? n - i : 256;
      if (dict_put_nums(s, b + i * vs, m, ix) ||
          pq_rle_adaptive_put(&s->idx, ix, m))
        return pq_nomem(err, label);
    }
    return PQ_OK;
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *key;
    size_t klen;
    if (e->p.type == PQ_BYTE_ARRAY) {
      const pq_bytes *b = (const pq_bytes *)v + i;
      if (b->len > INT32_MAX) {
        return pq_fail(err, PQ_RANGE, label,
                       "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                       "most 2147483647",
                       (unsigned long long)(e->count + i), b->len);
      }
      key = b->ptr;
      klen = b->len;
    } else {
      key = (const uint8_t *)v + i * s->width;
      klen = s->width;
    }
    int64_t x = dict_lookup(s, key, klen);
    if (x < 0) return pq_nomem(err, label);
    ix[k++] = (uint32_t)x;
    if (k == 256 || i + 1 == n) {
      if (pq_rle_adaptive_put(&s->idx, ix, k)) return pq_nomem(err, label);
      k = 0;
    }
  }
  return PQ_OK;
}

static int dict_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                       pq_error *err) {
  (void)err;
  dict_enc *s = (dict_enc *)e;
  pq_rle_adaptive_flush(&s->idx);
  pq_buf_byte(out, (uint8_t)s->idx.w);
  pq_buf_hand_over(out, &s->idx.buf);
  if (!dict) return PQ_OK;
  if (e->p.type == PQ_BOOLEAN) {
    uint8_t bits = 0;
    for (uint32_t i = 0; i < s->entries; i++)
      bits |= (uint8_t)(s->keys.data[i] << i);
    if (s->entries) pq_buf_byte(dict, bits);
  } else {
    /* (the keys keep dict's memory, if it had any, for pq_dict_reset) */
    pq_buf_hand_over(dict, &s->keys);
  }
  return PQ_OK;
}

int pq_dict_take_indices(pq_encoder *e, pq_buf *out) {
  dict_enc *s = (dict_enc *)e;
  pq_rle_adaptive_flush(&s->idx);
  pq_buf_byte(out, (uint8_t)s->idx.w);
  pq_buf_hand_over(out, &s->idx.buf);
  pq_rle_adaptive_reset(&s->idx);
  return out->oom ? PQ_NOMEM : PQ_OK;
}

void pq_dict_reset(pq_encoder *e) {
  dict_enc *s = (dict_enc *)e;
  e->count = 0;
  s->keys.len = 0;
  s->entries = 0;
  if (s->slots) memset(s->slots, 0, (size_t)s->nslots * sizeof *s->slots);
  pq_free(s->dtab);
  s->dtab = NULL;
  s->dbase = s->dspan = 0;
  s->vmin = s->vmax = 0;
  s->direct = e->p.type == PQ_INT32 || e->p.type == PQ_INT64;
  pq_rle_adaptive_reset(&s->idx);
}

uint32_t pq_dict_entries(const pq_encoder *e) {
  return ((const dict_enc *)e)->entries;
}

size_t pq_dict_bytes(const pq_encoder *e) {
  return ((const dict_enc *)e)->keys.len;
}

static size_t dict_size(const pq_encoder *e) {
  const dict_enc *s = (const dict_enc *)e;
  return 1 + s->idx.buf.len + (size_t)s->idx.wr.npending;
}

static void dict_enc_destroy(pq_encoder *e) {
  dict_enc *s = (dict_enc *)e;
  pq_buf_free(&s->keys);
  pq_free(s->offsets);
  pq_free(s->hashes);
  pq_free(s->slots);
  pq_free(s->dtab);
  pq_rle_adaptive_free(&s->idx);
}

int pq_dict_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  const char *label = pq_encoding_name(p->encoding);
  dict_enc *s = (dict_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, label);
  s->base.put = dict_put;
  s->base.finish = dict_finish;
  s->base.destroy = dict_enc_destroy;
  s->base.size = dict_size;
  *out = &s->base;
  s->width =
      p->type == PQ_BOOLEAN ? 1 : pq_plain_width(p->type, p->type_length);
  s->numeric = p->type == PQ_BOOLEAN || p->type == PQ_INT32 ||
               p->type == PQ_FLOAT || p->type == PQ_INT64 ||
               p->type == PQ_DOUBLE;
  s->direct = p->type == PQ_INT32 || p->type == PQ_INT64;
  s->cpu = pq_cpu();
  pq_rle_adaptive_init(&s->idx);
  return dict_grow_slots(s) ? pq_nomem(err, label) : PQ_OK;
}
