/*
** delta_byte_array.c -- DELTA_BYTE_ARRAY (spec/Encodings.md, "Delta
** Strings"), also called front coding.
**
**   <prefix lengths as DELTA_BINARY_PACKED>
**   <suffix lengths as DELTA_BINARY_PACKED> <suffix bytes, concatenated>
**
** Value i is the first prefix[i] bytes of value i-1 followed by suffix i.
** FIXED_LEN_BYTE_ARRAY values are coded the same way; each rebuilt value
** must then have the type's length.
*/
#include "encodings.h"

static const char DBA[] = "DELTA_BYTE_ARRAY";

/* Lengths are decoded DBA_BATCH at a time.  A batch of values is built at
** once in an arena sized for it; a read of BYTE_ARRAY values is one batch
** of at most DBA_READ values, which live in the arena until the next read
** (it stays small).  A batch stops early (after at least one value) when
** its values would take more than ARENA_MAX bytes. */
#define DBA_BATCH 1024
#define DBA_READ 256
#define ARENA_MAX ((size_t)1 << 20)
/* Bytes the copies below may write past a value's end, or read past what
** they need. */
#define SLACK 64

typedef struct dba_dec {
  pq_decoder base;
  pq_delta_reader prefixes, suffixes;
  size_t data;  /* offset of the next suffix's bytes */
  pq_buf prev;  /* the previous value, with SLACK bytes of room after it */
  pq_buf arena; /* the values of the last batch, and SLACK */
  int32_t pre[DBA_BATCH], suf[DBA_BATCH];
  size_t at, have; /* pre/suf[at..have) are decoded, not yet used */
} dba_dec;

/* The checks of value `index` (prefix length, and for FIXED_LEN_BYTE_ARRAY
** its length) against the previous value's length. */
static int dba_check(size_t prev_len, int32_t prefix, size_t suffix_len,
                     uint64_t index, int32_t fixed_len, pq_error *err) {
  if (prefix < 0 || (uint64_t)prefix > prev_len) {
    return pq_fail(
        err, PQ_CORRUPT, DBA, "value %llu: prefix length %d %s",
        (unsigned long long)index, prefix,
        prefix < 0 ? "is negative" : "is longer than the previous value");
  }
  size_t vlen = (size_t)prefix + suffix_len;
  if (fixed_len >= 0 && vlen != (size_t)fixed_len) {
    return pq_fail(err, PQ_CORRUPT, DBA,
                   "value %llu is %zu bytes, FIXED_LEN_BYTE_ARRAY(%d) "
                   "values are %d",
                   (unsigned long long)index, vlen, fixed_len, fixed_len);
  }
  return PQ_OK;
}

int pq_dba_rebuild(pq_buf *prev, int32_t prefix, pq_bytes suffix,
                   uint64_t index, int32_t fixed_len, pq_error *err) {
  int rc = dba_check(prev->len, prefix, suffix.len, index, fixed_len, err);
  if (rc) return rc;
  prev->len = (size_t)prefix;
  pq_buf_append(prev, suffix.ptr, suffix.len);
  return prev->oom ? pq_nomem(err, DBA) : PQ_OK;
}

/* Copies n bytes in blocks of 16: it may read up to 16 bytes past src + n
** and write as many past dst + n.  dst may begin inside [src, src + n)
** only where dst >= src (each block is loaded before it is stored, and the
** bytes a block needs were there before the copy began). */
static inline void copy_blocks(uint8_t *dst, const uint8_t *src, size_t n) {
  for (size_t i = 0; i < n; i += 16) {
    uint8_t t[16];
    memcpy(t, src + i, 16);
    memcpy(dst + i, t, 16);
  }
}

/* Builds m checked values into v, back to back: each is the first pre[i]
** bytes of the one before it (the first's is `from`, with SLACK bytes of
** room after it) and then suf[i] bytes from src.  Sets out to them when
** it is not NULL; returns where the last begins.  With wide, the input
** has SLACK bytes after the last suffix and the copies go in blocks. */
static const uint8_t *build(const int32_t *pre, const int32_t *suf, size_t m,
                            const uint8_t *src, const uint8_t *from,
                            uint8_t *v, pq_bytes *out, int wide) {
  for (size_t i = 0; i < m; i++) {
    size_t p = (size_t)pre[i], l = (size_t)suf[i];
    if (PQ_LIKELY(wide)) {
      copy_blocks(v, from, p);
      copy_blocks(v + p, src, l);
    } else {
      if (p) memcpy(v, from, p);
      if (l) memcpy(v + p, src, l);
    }
    if (out) {
      out[i].ptr = v;
      out[i].len = p + l;
    }
    from = v;
    v += p + l;
    src += l;
  }
  return from;
}

#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DBA_AVX2 1

/* The same for wide input that has 64 bytes before the first suffix too.
** The previous value's first 64 bytes stay in two registers: a value of
** up to 64 bytes is them with the bytes from its prefix length on
** replaced by the suffix, loaded from 64 - p bytes before it (a blend
** under a mask slid along a ramp), and stored whole; nothing is loaded
** back from the values just stored.  Longer values are copied in blocks
** and the registers reloaded. */
__attribute__((target("avx2"))) static const uint8_t *build_avx2(
    const int32_t *pre, const int32_t *suf, size_t m, const uint8_t *src,
    const uint8_t *from, uint8_t *v, pq_bytes *out) {
  /* Byte j of a mask loaded at ramp + 64 - p is set when j >= p. */
  static const uint8_t ramp[128] = {
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
  __m256i a = _mm256_loadu_si256((const __m256i *)from);
  __m256i b = _mm256_loadu_si256((const __m256i *)(from + 32));
  for (size_t i = 0; i < m; i++) {
    size_t p = (size_t)pre[i], l = (size_t)suf[i], n = p + l;
    if (PQ_LIKELY(n <= 64)) {
      const uint8_t *s0 = src - p;
      a = _mm256_blendv_epi8(
          a, _mm256_loadu_si256((const __m256i *)s0),
          _mm256_loadu_si256((const __m256i *)(ramp + 64 - p)));
      b = _mm256_blendv_epi8(
          b, _mm256_loadu_si256((const __m256i *)(s0 + 32)),
          _mm256_loadu_si256((const __m256i *)(ramp + 96 - p)));
      _mm256_storeu_si256((__m256i *)v, a);
      _mm256_storeu_si256((__m256i *)(v + 32), b);
    } else {
      copy_blocks(v, from, p);
      copy_blocks(v + p, src, l);
      a = _mm256_loadu_si256((const __m256i *)v);
      b = _mm256_loadu_si256((const __m256i *)(v + 32));
    }
    if (out) {
      out[i].ptr = v;
      out[i].len = n;
    }
    from = v;
    v += n;
    src += l;
  }
  return from;
}

/* The checks of dba_batch for m values at once, 8 a step: none of the
** lengths negative, each prefix within the value before it (the lengths
** of value i-1 are loaded one slot back), every value of length tl when
** tl >= 0.  Returns 0 when one fails; else the suffixes' total in *sum
** and the values' in *total. */
__attribute__((target("avx2"))) static int check_avx2(
    const int32_t *pre, const int32_t *suf, size_t m, size_t prev_len,
    int32_t tl, uint64_t *sum, uint64_t *total) {
  if (pre[0] < 0 || suf[0] < 0 || (uint64_t)pre[0] > prev_len ||
      (tl >= 0 && pre[0] + suf[0] != tl)) {
    return 0;
  }
  uint64_t s1 = (uint64_t)suf[0], s2 = (uint64_t)suf[0] + (uint64_t)pre[0];
  const __m256i fixed = _mm256_set1_epi32(tl);
  __m256i bad = _mm256_setzero_si256(), acc1 = bad, acc2 = bad;
  size_t i = 1;
  for (; i + 8 <= m; i += 8) {
    __m256i p = _mm256_loadu_si256((const __m256i *)(pre + i));
    __m256i l = _mm256_loadu_si256((const __m256i *)(suf + i));
    __m256i before =
        _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(pre + i - 1)),
                         _mm256_loadu_si256((const __m256i *)(suf + i - 1)));
    __m256i n = _mm256_add_epi32(p, l);
    bad = _mm256_or_si256(bad, _mm256_or_si256(p, l));
    bad = _mm256_or_si256(bad, _mm256_cmpgt_epi32(p, before));
    if (tl >= 0) {
      bad = _mm256_or_si256(
          bad, _mm256_xor_si256(_mm256_cmpeq_epi32(n, fixed),
                                _mm256_set1_epi32(-1)));
    }
    acc1 = _mm256_add_epi64(
        acc1, _mm256_add_epi64(
                  _mm256_cvtepu32_epi64(_mm256_castsi256_si128(l)),
                  _mm256_cvtepu32_epi64(_mm256_extracti128_si256(l, 1))));
    acc2 = _mm256_add_epi64(
        acc2, _mm256_add_epi64(
                  _mm256_cvtepu32_epi64(_mm256_castsi256_si128(n)),
                  _mm256_cvtepu32_epi64(_mm256_extracti128_si256(n, 1))));
  }
  /* Lengths below 2^31 sum below 2^32 in a lane: a set sign bit in bad
  ** is a negative length or a failed comparison. */
  if (_mm256_movemask_ps(_mm256_castsi256_ps(bad))) return 0;
  uint64_t t1[4], t2[4];
  _mm256_storeu_si256((__m256i *)t1, acc1);
  _mm256_storeu_si256((__m256i *)t2, acc2);
  s1 += t1[0] + t1[1] + t1[2] + t1[3];
  s2 += t2[0] + t2[1] + t2[2] + t2[3];
  for (; i < m; i++) {
    int32_t p = pre[i], l = suf[i];
    if (p < 0 || l < 0 || (int64_t)p > (int64_t)pre[i - 1] + suf[i - 1] ||
        (tl >= 0 && p + l != tl)) {
      return 0;
    }
    s1 += (uint64_t)l;
    s2 += (uint64_t)p + (uint64_t)l;
  }
  *sum = s1;
  *total = s2;
  return 1;
}
#endif

/* Decodes values first .. first+m-1, or the first *done of them, into the
** arena and points out at them when it is not NULL.  Every value is
** checked before any is built: suffix lengths against the bytes, prefix
** lengths against the previous value, in value order so that the first
** bad value is the one reported. */
static int dba_batch(dba_dec *s, uint64_t first, pq_bytes *out, size_t m,
                     size_t base, size_t *done, pq_error *err) {
  pq_decoder *d = &s->base;
  *done = 0;
  if (s->at == s->have) {
    size_t want = m < DBA_BATCH ? m : DBA_BATCH, got1, got2;
    uint64_t left = s->prefixes.total - s->prefixes.yielded;
    if (want < DBA_BATCH && left > want) {
      want = left < DBA_BATCH ? (size_t)left : DBA_BATCH;
    }
    int rc = pq_delta_reader_read(&s->prefixes, s->pre, want, &got1, err);
    if (rc == PQ_OK)
      rc = pq_delta_reader_read(&s->suffixes, s->suf, want, &got2, err);
    if (rc) return rc;
    if (got1 != want || got2 != want) {
      return pq_fail(err, PQ_CORRUPT, DBA,
                     "value %llu: the %s lengths end before the %s lengths",
                     (unsigned long long)(first + (got1 < got2 ? got1 : got2)),
                     got1 < got2 ? "prefix" : "suffix",
                     got1 < got2 ? "suffix" : "prefix");
    }
    s->at = 0;
    s->have = want;
  }
  if (m > s->have - s->at) m = s->have - s->at;
  int32_t tl = d->p.type == PQ_FIXED_LEN_BYTE_ARRAY ? d->p.type_length : -1;
  const int32_t *pre = s->pre + s->at, *suf = s->suf + s->at;
  /* The checks, and the bytes the values take: all at once when they hold
  ** and the values fit the arena, else value by value to find the first
  ** bad value or where to stop. */
  size_t prev_len = s->prev.len, data = s->data, total = 0, i = 0;
#ifdef DBA_AVX2
  uint64_t sum1, sum2;
  if ((s->prefixes.cpu & PQ_CPU_AVX2) &&
      check_avx2(pre, suf, m, prev_len, tl, &sum1, &sum2) &&
      sum1 <= d->len - data && sum2 <= ARENA_MAX) {
    data += (size_t)sum1;
    total = (size_t)sum2;
    prev_len = (size_t)pre[m - 1] + (size_t)suf[m - 1];
    i = m;
  }
#endif
  for (; i < m; i++) {
    int32_t l = suf[i];
    if (PQ_UNLIKELY(l < 0 || (uint64_t)l > d->len - data)) {
      size_t at = data;
      pq_bytes v;
      return pq_slice_lengths(d->buf, d->len, &at, suf + i, 1, &v, first + i,
                              DBA, err);
    }
    int32_t p = pre[i];
    if (PQ_UNLIKELY(p < 0 || (uint64_t)p > prev_len ||
                    (tl >= 0 && (size_t)p + (size_t)l != (size_t)tl))) {
      return dba_check(prev_len, p, (size_t)l, first + i, tl, err);
    }
    size_t vlen = (size_t)p + (size_t)l;
    if (PQ_UNLIKELY(vlen > ARENA_MAX - total) && i > 0) break;
    data += (size_t)l;
    prev_len = vlen;
    total += vlen;
  }
  m = i; /* at least 1 */
  /* The values, after the `base` bytes the read's earlier batches made. */
  s->arena.len = base;
  if (pq_buf_reserve(&s->arena, total + SLACK)) return pq_nomem(err, DBA);
  const uint8_t *src = d->buf + s->data, *from;
  /* Suffixes may be read in blocks when the input has SLACK bytes more
  ** after the last of them; the AVX2 form also reads up to 64 bytes before
  ** a suffix. */
  int wide = d->len - data >= SLACK;
#ifdef DBA_AVX2
  if (wide && s->data >= 64 && (s->prefixes.cpu & PQ_CPU_AVX2)) {
    from = build_avx2(pre, suf, m, src, s->prev.data, s->arena.data + base, out);
  } else
#endif
  {
    from = build(pre, suf, m, src, s->prev.data, s->arena.data + base, out,
                 wide);
  }
  s->arena.len = base + total;
  s->data = data;
  s->at += m;
  *done = m;
  /* The last value, for the next batch. */
  s->prev.len = 0;
  if (pq_buf_reserve(&s->prev, prev_len + SLACK)) return pq_nomem(err, DBA);
  if (prev_len) memcpy(s->prev.data, from, prev_len);
  s->prev.len = prev_len;
  return PQ_OK;
}

static int dba_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  dba_dec *s = (dba_dec *)d;
  int fixed = d->p.type == PQ_FIXED_LEN_BYTE_ARRAY;
  uint64_t left = s->prefixes.total - s->prefixes.yielded + (s->have - s->at);
  if (max > left) max = (size_t)left;
  if (!fixed && max > DBA_READ) max = DBA_READ;
  size_t k = 0;
  while (k < max) {
    size_t m;
    /* BYTE_ARRAY values live in the arena until the next read: a read's
    ** batches follow one another there, and when the arena moves the
    ** values made before move with it. */
    pq_bytes *v = (pq_bytes *)out;
    size_t base = fixed ? 0 : s->arena.len * (k > 0);
    for (size_t i = 0; !fixed && i < k; i++) /* as offsets while it grows */
      v[i].ptr = (const uint8_t *)(uintptr_t)(size_t)(v[i].ptr - s->arena.data);
    int rc = dba_batch(s, d->done + k, fixed ? NULL : v + k, max - k, base, &m,
                       err);
    for (size_t i = 0; !fixed && i < k; i++)
      v[i].ptr = s->arena.data + (size_t)(uintptr_t)v[i].ptr;
    if (rc) {
      *n = k;
      return rc;
    }
    if (!fixed) {
      k += m;
      continue;
    }
    memcpy((uint8_t *)out + k * (size_t)d->p.type_length, s->arena.data,
           m * (size_t)d->p.type_length);
    k += m;
  }
  *n = k;
  return PQ_OK;
}

static void dba_destroy(pq_decoder *d) {
  dba_dec *s = (dba_dec *)d;
  pq_buf_free(&s->prev);
  pq_buf_free(&s->arena);
}

int pq_dba_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err) {
  dba_dec *s = (dba_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, DBA);
  *out = &s->base;
  s->base.read = dba_read;
  s->base.destroy = dba_destroy;
  /* The "previous value" of the first, empty, with its room for blocks. */
  if (pq_buf_reserve(&s->prev, SLACK)) return pq_nomem(err, DBA);
  size_t a, b;
  int rc = pq_delta_reader_init(&s->prefixes, buf, len, 0, 1,
                                "DELTA_BYTE_ARRAY: prefix lengths", err);
  if (rc == PQ_OK) rc = pq_delta_reader_size(&s->prefixes, &a, err);
  if (rc == PQ_OK) {
    rc = pq_delta_reader_init(&s->suffixes, buf + a, len - a, a, 1,
                              "DELTA_BYTE_ARRAY: suffix lengths", err);
  }
  if (rc == PQ_OK) rc = pq_delta_reader_size(&s->suffixes, &b, err);
  if (rc) return rc;
  if (s->prefixes.total != s->suffixes.total) {
    return pq_fail(err, PQ_CORRUPT, DBA,
                   "%llu prefix lengths but %llu suffix lengths (at offset "
                   "%zu)",
                   (unsigned long long)s->prefixes.total,
                   (unsigned long long)s->suffixes.total, a);
  }
  s->data = a + b;
  return PQ_OK;
}

/* ---- Encoder ------------------------------------------------------------ */

typedef struct dba_enc {
  pq_encoder base;
  pq_delta_writer prefixes, suffixes;
  pq_buf data;
  pq_buf prev;
} dba_enc;

/* The length of the common prefix of a and b, of at most lim bytes: eight
** bytes a step, the first differing byte from the lowest set bit of their
** XOR (little-endian hosts). */
static inline size_t common_prefix(const uint8_t *a, const uint8_t *b,
                                   size_t lim) {
  size_t p = 0;
  if (!pq_is_big_endian()) {
    for (; p + 8 <= lim; p += 8) {
      uint64_t x, y;
      memcpy(&x, a + p, 8);
      memcpy(&y, b + p, 8);
      if (x != y) return p + (size_t)__builtin_ctzll(x ^ y) / 8;
    }
  }
  while (p < lim && a[p] == b[p]) p++;
  return p;
}

/* Puts k values (v[i] of len[i] bytes, i < k): their prefix and suffix
** lengths, and the suffixes.  The previous value of the first is s->prev;
** the last is kept there for the next put. */
static void dba_put_values(dba_enc *s, const uint8_t *const *v,
                           const int32_t *len, size_t k, size_t total) {
  int32_t pre[256], suf[256];
  const uint8_t *prev = s->prev.data;
  size_t prev_len = s->prev.len;
  if (k == 0 || pq_buf_reserve(&s->data, total)) return;
  uint8_t *o = s->data.data + s->data.len;
  for (size_t j = 0; j < k; j++) {
    size_t l = (size_t)len[j];
    size_t p = common_prefix(prev, v[j], l < prev_len ? l : prev_len);
    pre[j] = (int32_t)p;
    suf[j] = (int32_t)(l - p);
    pq_copy_short(o, v[j] + p, l - p);
    o += l - p;
    prev = v[j];
    prev_len = l;
  }
  s->data.len = (size_t)(o - s->data.data);
  pq_delta_writer_put32(&s->prefixes, pre, k);
  pq_delta_writer_put32(&s->suffixes, suf, k);
  s->prev.len = 0;
  pq_buf_append(&s->prev, prev, prev_len);
}

static int dba_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  dba_enc *s = (dba_enc *)e;
  int fixed = e->p.type == PQ_FIXED_LEN_BYTE_ARRAY;
  size_t tl = fixed ? (size_t)e->p.type_length : 0;
  const pq_bytes *b = v;
  const uint8_t *ptr[256];
  int32_t len[256];
  for (size_t i = 0; i < n;) {
    size_t k = n - i < 256 ? n - i : 256, total = 0;
    for (size_t j = 0; j < k; j++) {
      size_t l = fixed ? tl : b[i + j].len;
      if (l > INT32_MAX) {
        /* The values before it are put, as one by one. */
        dba_put_values(s, ptr, len, j, total);
        return pq_fail(err, PQ_RANGE, DBA,
                       "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                       "most 2147483647",
                       (unsigned long long)(e->count + i + j), l);
      }
      ptr[j] = fixed ? (const uint8_t *)v + (i + j) * tl : b[i + j].ptr;
      len[j] = (int32_t)l;
      total += l;
    }
    dba_put_values(s, ptr, len, k, total);
    i += k;
  }
  return s->prev.oom || s->data.oom ? pq_nomem(err, DBA) : PQ_OK;
}

static int dba_finish(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err) {
  (void)dict;
  (void)err;
  dba_enc *s = (dba_enc *)e;
  pq_delta_writer_finish(&s->prefixes, out);
  pq_delta_writer_finish(&s->suffixes, out);
  pq_buf_move(out, &s->data);
  return PQ_OK;
}

static size_t dba_size(const pq_encoder *e) {
  const dba_enc *s = (const dba_enc *)e;
  return pq_delta_writer_size(&s->prefixes) +
         pq_delta_writer_size(&s->suffixes) + s->data.len;
}

static void dba_enc_destroy(pq_encoder *e) {
  dba_enc *s = (dba_enc *)e;
  pq_delta_writer_free(&s->prefixes);
  pq_delta_writer_free(&s->suffixes);
  pq_buf_free(&s->data);
  pq_buf_free(&s->prev);
}

int pq_dba_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  dba_enc *s = (dba_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, DBA);
  s->base.put = dba_put;
  s->base.finish = dba_finish;
  s->base.destroy = dba_enc_destroy;
  s->base.size = dba_size;
  *out = &s->base;
  int rc = pq_delta_writer_init(&s->prefixes, p, 1, DBA, err);
  if (rc == PQ_OK) rc = pq_delta_writer_init(&s->suffixes, p, 1, DBA, err);
  return rc;
}
