/*
** byte_stream_split.c -- BYTE_STREAM_SPLIT (spec/Encodings.md, "Byte Stream
** Split").
**
** For N values of K bytes, byte k of value i is at k*N + i: K streams of N
** bytes, concatenated.  Nothing in the stream says N; it is its length / K.
*/
#include "encodings.h"

#if PQ_X86_SIMD
#include <immintrin.h>
#endif

static const char BSS[] = "BYTE_STREAM_SPLIT";

typedef struct bss_dec {
  pq_decoder base;
  size_t k;     /* bytes per value */
  size_t n;     /* values in the stream */
  size_t next;  /* next value */
  unsigned cpu; /* pq_cpu() at open */
} bss_dec;

/* Gathers values [first, first+m) of an N-value stream of K-byte values
** into out, K bytes each, little-endian order kept. */
static void gather_scalar(const uint8_t *in, size_t N, size_t K, size_t first,
                          size_t m, uint8_t *out) {
  if (K == 4) {
    const uint8_t *s0 = in + first, *s1 = s0 + N, *s2 = s1 + N, *s3 = s2 + N;
    for (size_t i = 0; i < m; i++) {
      out[4 * i] = s0[i];
      out[4 * i + 1] = s1[i];
      out[4 * i + 2] = s2[i];
      out[4 * i + 3] = s3[i];
    }
    return;
  }
  if (K == 8) {
    const uint8_t *s = in + first;
    for (size_t i = 0; i < m; i++) {
      for (size_t b = 0; b < 8; b++) out[8 * i + b] = s[b * N + i];
    }
    return;
  }
  for (size_t b = 0; b < K; b++) {
    const uint8_t *s = in + b * N + first;
    for (size_t i = 0; i < m; i++) out[i * K + b] = s[i];
  }
}

#if PQ_X86_SIMD
/* The fast paths transpose 16 (SSE2) or 32 (AVX2) values at a time with
** byte, 16-bit and 32-bit interleaves: after them each register holds
** whole values.  Streams s[b] are read at [0, m); m is a multiple of the
** block.  The AVX2 interleaves work within 128-bit lanes, so the low and
** high halves are swapped into place before the stores. */
#define LOADU(p) _mm_loadu_si128((const __m128i *)(const void *)(p))
#define STOREU(p, v) _mm_storeu_si128((__m128i *)(void *)(p), v)
#define LOADU256(p) _mm256_loadu_si256((const __m256i *)(const void *)(p))
#define STOREU256(p, v) _mm256_storeu_si256((__m256i *)(void *)(p), v)

/* 8 streams (bytes b0..b0+7 of each value) into out + b0, values K bytes
** apart. */
__attribute__((target("sse4.2"))) static void streams8_sse(
    const uint8_t *s, size_t N, size_t m, uint8_t *out, size_t K) {
  for (size_t i = 0; i < m; i += 16) {
    __m128i a = LOADU(s + i), b = LOADU(s + N + i), c = LOADU(s + 2 * N + i),
            d = LOADU(s + 3 * N + i), e = LOADU(s + 4 * N + i),
            f = LOADU(s + 5 * N + i), g = LOADU(s + 6 * N + i),
            h = LOADU(s + 7 * N + i);
    __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
    __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
    __m128i ef0 = _mm_unpacklo_epi8(e, f), ef1 = _mm_unpackhi_epi8(e, f);
    __m128i gh0 = _mm_unpacklo_epi8(g, h), gh1 = _mm_unpackhi_epi8(g, h);
    __m128i q0 = _mm_unpacklo_epi16(ab0, cd0); /* bytes 0-3 of values 0-3 */
    __m128i q1 = _mm_unpackhi_epi16(ab0, cd0); /* 4-7 */
    __m128i q2 = _mm_unpacklo_epi16(ab1, cd1); /* 8-11 */
    __m128i q3 = _mm_unpackhi_epi16(ab1, cd1); /* 12-15 */
    __m128i r0 = _mm_unpacklo_epi16(ef0, gh0); /* bytes 4-7 */
    __m128i r1 = _mm_unpackhi_epi16(ef0, gh0);
    __m128i r2 = _mm_unpacklo_epi16(ef1, gh1);
    __m128i r3 = _mm_unpackhi_epi16(ef1, gh1);
    __m128i v0 = _mm_unpacklo_epi32(q0, r0); /* values 0, 1 */
    __m128i v1 = _mm_unpackhi_epi32(q0, r0); /* 2, 3 */
    __m128i v2 = _mm_unpacklo_epi32(q1, r1);
    __m128i v3 = _mm_unpackhi_epi32(q1, r1);
    __m128i v4 = _mm_unpacklo_epi32(q2, r2);
    __m128i v5 = _mm_unpackhi_epi32(q2, r2);
    __m128i v6 = _mm_unpacklo_epi32(q3, r3);
    __m128i v7 = _mm_unpackhi_epi32(q3, r3);
    uint8_t *o = out + i * K;
    if (K == 8) {
      STOREU(o, v0);
      STOREU(o + 16, v1);
      STOREU(o + 32, v2);
      STOREU(o + 48, v3);
      STOREU(o + 64, v4);
      STOREU(o + 80, v5);
      STOREU(o + 96, v6);
      STOREU(o + 112, v7);
    } else {
#define STORE2(j, v)                                                   \
  _mm_storel_epi64((__m128i *)(void *)(o + (2 * (j)) * K), v);          \
  _mm_storel_epi64((__m128i *)(void *)(o + (2 * (j) + 1) * K),          \
                   _mm_unpackhi_epi64(v, v))
      STORE2(0, v0);
      STORE2(1, v1);
      STORE2(2, v2);
      STORE2(3, v3);
      STORE2(4, v4);
      STORE2(5, v5);
      STORE2(6, v6);
      STORE2(7, v7);
#undef STORE2
    }
  }
}

/* 4 streams into out + b0, values K bytes apart. */
__attribute__((target("sse4.2"))) static void streams4_sse(
    const uint8_t *s, size_t N, size_t m, uint8_t *out, size_t K) {
  for (size_t i = 0; i < m; i += 16) {
    __m128i a = LOADU(s + i), b = LOADU(s + N + i), c = LOADU(s + 2 * N + i),
            d = LOADU(s + 3 * N + i);
    __m128i ab0 = _mm_unpacklo_epi8(a, b), ab1 = _mm_unpackhi_epi8(a, b);
    __m128i cd0 = _mm_unpacklo_epi8(c, d), cd1 = _mm_unpackhi_epi8(c, d);
    __m128i v0 = _mm_unpacklo_epi16(ab0, cd0); /* values 0-3 */
    __m128i v1 = _mm_unpackhi_epi16(ab0, cd0);
    __m128i v2 = _mm_unpacklo_epi16(ab1, cd1);
    __m128i v3 = _mm_unpackhi_epi16(ab1, cd1);
    uint8_t *o = out + i * K;
    if (K == 4) {
      STOREU(o, v0);
      STOREU(o + 16, v1);
      STOREU(o + 32, v2);
      STOREU(o + 48, v3);
    } else {
#define STORE4(j, v)                                              \
  do {                                                            \
    uint32_t x_[4];                                               \
    memcpy(x_, &(v), 16);                                         \
    for (int t = 0; t < 4; t++) memcpy(o + (4 * (j) + t) * K, &x_[t], 4); \
  } while (0)
      STORE4(0, v0);
      STORE4(1, v1);
      STORE4(2, v2);
      STORE4(3, v3);
#undef STORE4
    }
  }
}

__attribute__((target("avx2"))) static void values8_avx2(const uint8_t *s,
                                                          size_t N, size_t m,
                                                          uint8_t *out) {
  for (size_t i = 0; i < m; i += 32) {
    __m256i a = LOADU256(s + i), b = LOADU256(s + N + i),
            c = LOADU256(s + 2 * N + i), d = LOADU256(s + 3 * N + i),
            e = LOADU256(s + 4 * N + i), f = LOADU256(s + 5 * N + i),
            g = LOADU256(s + 6 * N + i), h = LOADU256(s + 7 * N + i);
    __m256i ab0 = _mm256_unpacklo_epi8(a, b), ab1 = _mm256_unpackhi_epi8(a, b);
    __m256i cd0 = _mm256_unpacklo_epi8(c, d), cd1 = _mm256_unpackhi_epi8(c, d);
    __m256i ef0 = _mm256_unpacklo_epi8(e, f), ef1 = _mm256_unpackhi_epi8(e, f);
    __m256i gh0 = _mm256_unpacklo_epi8(g, h), gh1 = _mm256_unpackhi_epi8(g, h);
    __m256i q0 = _mm256_unpacklo_epi16(ab0, cd0);
    __m256i q1 = _mm256_unpackhi_epi16(ab0, cd0);
    __m256i q2 = _mm256_unpacklo_epi16(ab1, cd1);
    __m256i q3 = _mm256_unpackhi_epi16(ab1, cd1);
    __m256i r0 = _mm256_unpacklo_epi16(ef0, gh0);
    __m256i r1 = _mm256_unpackhi_epi16(ef0, gh0);
    __m256i r2 = _mm256_unpacklo_epi16(ef1, gh1);
    __m256i r3 = _mm256_unpackhi_epi16(ef1, gh1);
    /* vj: values 2j, 2j+1 in the low lane, 16+2j, 17+2j in the high. */
    __m256i v0 = _mm256_unpacklo_epi32(q0, r0);
    __m256i v1 = _mm256_unpackhi_epi32(q0, r0);
    __m256i v2 = _mm256_unpacklo_epi32(q1, r1);
    __m256i v3 = _mm256_unpackhi_epi32(q1, r1);
    __m256i v4 = _mm256_unpacklo_epi32(q2, r2);
    __m256i v5 = _mm256_unpackhi_epi32(q2, r2);
    __m256i v6 = _mm256_unpacklo_epi32(q3, r3);
    __m256i v7 = _mm256_unpackhi_epi32(q3, r3);
    uint8_t *o = out + i * 8;
    STOREU256(o, _mm256_permute2x128_si256(v0, v1, 0x20));
    STOREU256(o + 32, _mm256_permute2x128_si256(v2, v3, 0x20));
    STOREU256(o + 64, _mm256_permute2x128_si256(v4, v5, 0x20));
    STOREU256(o + 96, _mm256_permute2x128_si256(v6, v7, 0x20));
    STOREU256(o + 128, _mm256_permute2x128_si256(v0, v1, 0x31));
    STOREU256(o + 160, _mm256_permute2x128_si256(v2, v3, 0x31));
    STOREU256(o + 192, _mm256_permute2x128_si256(v4, v5, 0x31));
    STOREU256(o + 224, _mm256_permute2x128_si256(v6, v7, 0x31));
  }
}

__attribute__((target("avx2"))) static void values4_avx2(const uint8_t *s,
                                                          size_t N, size_t m,
                                                          uint8_t *out) {
  for (size_t i = 0; i < m; i += 32) {
    __m256i a = LOADU256(s + i), b = LOADU256(s + N + i),
            c = LOADU256(s + 2 * N + i), d = LOADU256(s + 3 * N + i);
    __m256i ab0 = _mm256_unpacklo_epi8(a, b), ab1 = _mm256_unpackhi_epi8(a, b);
    __m256i cd0 = _mm256_unpacklo_epi8(c, d), cd1 = _mm256_unpackhi_epi8(c, d);
    __m256i v0 = _mm256_unpacklo_epi16(ab0, cd0); /* 0-3 | 16-19 */
    __m256i v1 = _mm256_unpackhi_epi16(ab0, cd0); /* 4-7 | 20-23 */
    __m256i v2 = _mm256_unpacklo_epi16(ab1, cd1); /* 8-11 | 24-27 */
    __m256i v3 = _mm256_unpackhi_epi16(ab1, cd1); /* 12-15 | 28-31 */
    uint8_t *o = out + i * 4;
    STOREU256(o, _mm256_permute2x128_si256(v0, v1, 0x20));
    STOREU256(o + 32, _mm256_permute2x128_si256(v2, v3, 0x20));
    STOREU256(o + 64, _mm256_permute2x128_si256(v0, v1, 0x31));
    STOREU256(o + 96, _mm256_permute2x128_si256(v2, v3, 0x31));
  }
}

/* Values [first, first + m) but for a tail of fewer than 16: how many
** it gathered. */
static size_t gather_simd(const uint8_t *in, size_t N, size_t K, size_t first,
                          size_t m, uint8_t *out, unsigned cpu) {
  const uint8_t *s = in + first;
  if ((cpu & PQ_CPU_AVX2) && (K == 8 || K == 4) && m >= 32) {
    size_t m32 = m & ~(size_t)31;
    if (K == 8) {
      values8_avx2(s, N, m32, out);
    } else {
      values4_avx2(s, N, m32, out);
    }
    return m32 + gather_simd(in, N, K, first + m32, m - m32, out + m32 * K,
                             cpu & ~(unsigned)PQ_CPU_AVX2);
  }
  if (!(cpu & PQ_CPU_SSE42) || m < 16) return 0;
  size_t m16 = m & ~(size_t)15, b = 0;
  for (; b + 8 <= K; b += 8) streams8_sse(s + b * N, N, m16, out + b, K);
  for (; b + 4 <= K; b += 4) streams4_sse(s + b * N, N, m16, out + b, K);
  for (; b < K; b++) {
    const uint8_t *sb = s + b * N;
    for (size_t i = 0; i < m16; i++) out[i * K + b] = sb[i];
  }
  return m16;
}
#endif

static void bss_gather(const uint8_t *in, size_t N, size_t K, size_t first,
                       size_t m, uint8_t *out, unsigned cpu) {
  size_t done = 0;
#if PQ_X86_SIMD
  done = gather_simd(in, N, K, first, m, out, cpu);
#endif
  (void)cpu;
  gather_scalar(in, N, K, first + done, m - done, out + done * K);
}

/* Byte-reverses each value on a big-endian host so numbers come out in
** host order. */
static void to_host(uint8_t *p, size_t m, size_t K, pq_type t) {
  if (!pq_is_big_endian() || t == PQ_FIXED_LEN_BYTE_ARRAY) return;
  for (size_t i = 0; i < m; i++, p += K) {
    for (size_t a = 0, b = K - 1; a < b; a++, b--) {
      uint8_t x = p[a];
      p[a] = p[b];
      p[b] = x;
    }
  }
}

static int bss_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  (void)err;
  bss_dec *s = (bss_dec *)d;
  size_t m = s->n - s->next;
  if (m > max) m = max;
  bss_gather(d->buf, s->n, s->k, s->next, m, out, s->cpu);
  to_host(out, m, s->k, d->p.type);
  s->next += m;
  *n = m;
  return PQ_OK;
}

int pq_bss_check(const pq_params *p, size_t len, pq_error *err) {
  size_t k = pq_plain_width(p->type, p->type_length);
  if (len % k != 0) {
    return pq_fail(err, PQ_CORRUPT, BSS,
                   "a stream of %zu bytes is not %zu streams of whole "
                   "%s values (%zu bytes left over)",
                   len, k, pq_type_name(p->type), len % k);
  }
  if (p->count >= 0 && (uint64_t)p->count > len / k) {
    return pq_fail(err, PQ_CORRUPT, BSS,
                   "%lld %s values need %zu streams of %lld bytes, the "
                   "stream has %zu bytes",
                   (long long)p->count, pq_type_name(p->type), k,
                   (long long)p->count, len);
  }
  return PQ_OK;
}

int pq_bss_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err) {
  int rc = pq_bss_check(p, len, err);
  if (rc) return rc;
  size_t k = pq_plain_width(p->type, p->type_length);
  bss_dec *s = (bss_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, BSS);
  s->k = k;
  s->n = len / k;
  s->cpu = pq_cpu();
  s->base.read = bss_read;
  *out = &s->base;
  return PQ_OK;
}

/* ---- Encoder: values are kept in PLAIN order (the encoded size) and
** scattered into streams at the end. */

typedef struct bss_enc {
  pq_encoder base;
  pq_buf plain;
} bss_enc;

static int bss_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  (void)err;
  bss_enc *s = (bss_enc *)e;
  pq_put_le(&s->plain, v, n, pq_plain_width(e->p.type, e->p.type_length),
            e->p.type);
  return PQ_OK;
}

static int bss_finish(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err) {
  (void)dict;
  (void)err;
  bss_enc *s = (bss_enc *)e;
  size_t K = pq_plain_width(e->p.type, e->p.type_length);
  size_t N = s->plain.len / K;
  if (s->plain.oom || pq_buf_reserve(out, s->plain.len)) {
    out->oom = 1;
    return PQ_OK;
  }
  if (N == 0) return PQ_OK; /* no values: s->plain.data may be NULL */
  uint8_t *o = out->data + out->len;
  for (size_t b = 0; b < K; b++) {
    const uint8_t *in = s->plain.data + b;
    uint8_t *stream = o + b * N;
    for (size_t i = 0; i < N; i++) stream[i] = in[i * K];
  }
  out->len += s->plain.len;
  return PQ_OK;
}

static size_t bss_size(const pq_encoder *e) {
  const bss_enc *s = (const bss_enc *)e;
  return s->plain.len;
}

static void bss_destroy(pq_encoder *e) {
  pq_buf_free(&((bss_enc *)e)->plain);
}

int pq_bss_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  bss_enc *s = (bss_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, BSS);
  s->base.put = bss_put;
  s->base.finish = bss_finish;
  s->base.destroy = bss_destroy;
  s->base.size = bss_size;
  *out = &s->base;
  return PQ_OK;
}
