/*
** delta_length_byte_array.c -- DELTA_LENGTH_BYTE_ARRAY (spec/Encodings.md,
** "Delta-length byte array").
**
**   <lengths as DELTA_BINARY_PACKED (INT32)> <all the bytes, concatenated>
**
** The decoder walks the lengths' blocks once to find where the bytes
** begin, then decodes lengths and slices the bytes in step, batch by batch.
*/
#include "encodings.h"

static const char DLBA[] = "DELTA_LENGTH_BYTE_ARRAY";

/* Lengths are decoded and sliced this many at a time. */
#define DLBA_BATCH 1024

typedef struct dlba_dec {
  pq_decoder base;
  pq_delta_reader lens;
  size_t data; /* offset of the next value's bytes */
  int32_t tmp[DLBA_BATCH];
} dlba_dec;

/* Points out[0..n) at consecutive slices of p whose lengths are lens[];
** returns the OR of the lengths (negative when one is) and sets *sum to
** their total, which means something only when none is negative.  The
** caller checks both before it trusts out. */
static int32_t slice_scalar(const uint8_t *p, const int32_t *lens, size_t n,
                            pq_bytes *out, uint64_t *sum) {
  int32_t any = 0;
  uint64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    int32_t l = lens[i];
    any |= l;
    out[i].ptr = p + total;
    out[i].len = (size_t)(uint32_t)l;
    total += (uint32_t)l;
  }
  *sum = total;
  return any;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DLBA_AVX2 1

/* The same, four values a step: the offsets are a prefix sum of the
** lengths in 64-bit lanes; pointers and lengths are interleaved into
** pq_bytes (8-byte pointer, 8-byte length) with two unpacks and two lane
** swaps. */
__attribute__((target("avx2"))) static int32_t slice_avx2(
    const uint8_t *p, const int32_t *lens, size_t n, pq_bytes *out,
    uint64_t *sum) {
  __m256i base = _mm256_set1_epi64x((long long)(uintptr_t)p);
  __m256i any = _mm256_setzero_si256();
  const __m256i zero = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    __m128i l32 = _mm_loadu_si128((const __m128i *)(lens + i));
    any = _mm256_or_si256(any, _mm256_castsi128_si256(l32));
    __m256i l = _mm256_cvtepu32_epi64(l32);
    __m256i s = _mm256_add_epi64(l, _mm256_slli_si256(l, 8));
    s = _mm256_add_epi64(
        s, _mm256_blend_epi32(zero, _mm256_permute4x64_epi64(s, 0x55), 0xf0));
    __m256i ptr = _mm256_add_epi64(base, _mm256_sub_epi64(s, l));
    __m256i a = _mm256_unpacklo_epi64(ptr, l); /* p0 l0 | p2 l2 */
    __m256i b = _mm256_unpackhi_epi64(ptr, l); /* p1 l1 | p3 l3 */
    _mm256_storeu_si256((__m256i *)(void *)(out + i),
                        _mm256_permute2x128_si256(a, b, 0x20));
    _mm256_storeu_si256((__m256i *)(void *)(out + i + 2),
                        _mm256_permute2x128_si256(a, b, 0x31));
    base = _mm256_add_epi64(base, _mm256_permute4x64_epi64(s, 0xff));
  }
  __m128i a4 = _mm_or_si128(_mm256_castsi256_si128(any),
                            _mm256_extracti128_si256(any, 1));
  a4 = _mm_or_si128(a4, _mm_srli_si128(a4, 8));
  a4 = _mm_or_si128(a4, _mm_srli_si128(a4, 4));
  int32_t or = _mm_cvtsi128_si32(a4);
  uint64_t done = (uint64_t)_mm_cvtsi128_si64(_mm256_castsi256_si128(base)) -
                  (uint64_t)(uintptr_t)p, rest;
  or |= slice_scalar(p + done, lens + i, n - i, out + i, &rest);
  *sum = done + rest;
  return or;
}
#endif

/* Value by value, with the message of the first bad length. */
static int slice_checked(const uint8_t *buf, size_t len, size_t *data,
                         const int32_t *lens, size_t n, pq_bytes *out,
                         uint64_t first, const char *label, pq_error *err) {
  for (size_t i = 0; i < n; i++) {
    int32_t l = lens[i];
    size_t left = len - *data;
    if (l < 0) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "value %llu: length %d is negative",
                     (unsigned long long)(first + i), l);
    }
    if ((uint64_t)l > left) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "value %llu: length %d at offset %zu exceeds the %zu "
                     "bytes that remain",
                     (unsigned long long)(first + i), l, *data, left);
    }
    out[i].ptr = buf + *data;
    out[i].len = (size_t)l;
    *data += (size_t)l;
  }
  return PQ_OK;
}

/* pq_slice_lengths with the instruction sets of cpu.  All n are sliced at
** once and then checked together: none negative, and all within the bytes
** that remain; when that fails the checked walk redoes them and names the
** first bad one.  (A pointer past the bytes is computed, never followed.) */
static int slice_lengths(unsigned cpu, const uint8_t *buf, size_t len,
                         size_t *data, const int32_t *lens, size_t n,
                         pq_bytes *out, uint64_t first, const char *label,
                         pq_error *err) {
  uint64_t sum;
  int32_t any;
  const uint8_t *p = buf + *data;
#ifdef DLBA_AVX2
  if (cpu & PQ_CPU_AVX2) {
    any = slice_avx2(p, lens, n, out, &sum);
  } else
#endif
  {
    any = slice_scalar(p, lens, n, out, &sum);
  }
  (void)cpu;
  if (any < 0 || sum > len - *data) {
    return slice_checked(buf, len, data, lens, n, out, first, label, err);
  }
  *data += (size_t)sum;
  return PQ_OK;
}

int pq_slice_lengths(const uint8_t *buf, size_t len, size_t *data,
                     const int32_t *lens, size_t n, pq_bytes *out,
                     uint64_t first, const char *label, pq_error *err) {
  return slice_lengths(0, buf, len, data, lens, n, out, first, label, err);
}

static int dlba_read(pq_decoder *d, void *out, size_t max, size_t *n,
                     pq_error *err) {
  dlba_dec *s = (dlba_dec *)d;
  pq_bytes *o = out;
  size_t k = 0;
  while (k < max) {
    size_t got, want = max - k < DLBA_BATCH ? max - k : DLBA_BATCH;
    int rc = pq_delta_reader_read(&s->lens, s->tmp, want, &got, err);
    if (rc == PQ_OK) {
      rc = slice_lengths(s->lens.cpu, d->buf, d->len, &s->data, s->tmp, got,
                         o + k, d->done + k, DLBA, err);
    }
    if (rc) {
      *n = k;
      return rc;
    }
    k += got;
    if (got < want) break;
  }
  *n = k;
  return PQ_OK;
}

int pq_dlba_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                    size_t len, pq_error *err) {
  dlba_dec *s = (dlba_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, DLBA);
  *out = &s->base;
  s->base.read = dlba_read;
  int rc = pq_delta_reader_init(&s->lens, buf, len, 0, 1,
                                "DELTA_LENGTH_BYTE_ARRAY: lengths", err);
  if (rc == PQ_OK) rc = pq_delta_reader_size(&s->lens, &s->data, err);
  return rc;
}

/* ---- Encoder ------------------------------------------------------------ */

typedef struct dlba_enc {
  pq_encoder base;
  pq_delta_writer lens;
  pq_buf data;
} dlba_enc;

static int dlba_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  dlba_enc *s = (dlba_enc *)e;
  const pq_bytes *b = v;
  int32_t lens[256];
  for (size_t i = 0; i < n;) {
    size_t k = n - i < 256 ? n - i : 256;
    size_t total = 0;
    for (size_t j = 0; j < k; j++) {
      size_t l = b[i + j].len;
      if (l > INT32_MAX) {
        /* The values before it are put, as one by one. */
        pq_delta_writer_put32(&s->lens, lens, j);
        if (pq_buf_reserve(&s->data, total) == PQ_OK) {
          for (size_t q = 0; q < j; q++) {
            pq_copy_short(s->data.data + s->data.len, b[i + q].ptr, b[i + q].len);
            s->data.len += b[i + q].len;
          }
        }
        return pq_fail(err, PQ_RANGE, DLBA,
                       "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                       "most 2147483647",
                       (unsigned long long)(e->count + i + j), l);
      }
      lens[j] = (int32_t)l;
      total += l;
    }
    pq_delta_writer_put32(&s->lens, lens, k);
    if (pq_buf_reserve(&s->data, total) == PQ_OK) {
      uint8_t *o = s->data.data + s->data.len;
      for (size_t j = 0; j < k; j++) {
        pq_copy_short(o, b[i + j].ptr, b[i + j].len);
        o += b[i + j].len;
      }
      s->data.len += total;
    }
    i += k;
  }
  return PQ_OK;
}

static int dlba_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                       pq_error *err) {
  (void)dict;
  (void)err;
  dlba_enc *s = (dlba_enc *)e;
  pq_buf lens;
  pq_buf_init(&lens);
  pq_delta_writer_finish(&s->lens, &lens);
  /* The lengths (small) go in front of the bytes (large) where the bytes
  ** already are, rather than the bytes copied after the lengths into new
  ** memory, which for a large buffer faults in page by page. */
  if (out->len == 0 && !lens.oom && !s->data.oom && s->data.len > 0 &&
      pq_buf_reserve(&s->data, lens.len) == PQ_OK) {
    memmove(s->data.data + lens.len, s->data.data, s->data.len);
    memcpy(s->data.data, lens.data, lens.len);
    s->data.len += lens.len;
    pq_buf_free(&lens);
  } else {
    pq_buf_move(out, &lens);
  }
  pq_buf_hand_over(out, &s->data);
  return PQ_OK;
}

static size_t dlba_size(const pq_encoder *e) {
  const dlba_enc *s = (const dlba_enc *)e;
  return pq_delta_writer_size(&s->lens) + s->data.len;
}

static void dlba_destroy(pq_encoder *e) {
  dlba_enc *s = (dlba_enc *)e;
  pq_delta_writer_free(&s->lens);
  pq_buf_free(&s->data);
}

static pq_buf *dlba_room(pq_encoder *e) { return &((dlba_enc *)e)->data; }

int pq_dlba_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  dlba_enc *s = (dlba_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, DLBA);
  s->base.put = dlba_put;
  s->base.finish = dlba_finish;
  s->base.destroy = dlba_destroy;
  s->base.size = dlba_size;
  s->base.reusable = 1;
  s->base.room = dlba_room;
  *out = &s->base;
  return pq_delta_writer_init(&s->lens, p, 1, DLBA, err);
}
