/*
** plain.c -- PLAIN (spec/Encodings.md, "Plain").
**
** Numbers are little-endian, BOOLEAN is bit-packed LSB first, BYTE_ARRAY is
** a 4-byte little-endian length followed by the bytes, FIXED_LEN_BYTE_ARRAY
** and INT96 are just their bytes.
*/
#include "encodings.h"

#if PQ_X86_SIMD
#include <immintrin.h>
#endif

typedef struct plain_dec {
  pq_decoder base;
  size_t pos;   /* next byte */
  uint64_t bit; /* BOOLEAN: next bit */
  size_t width; /* bytes per value; 0 for BYTE_ARRAY, BOOLEAN */
  unsigned cpu; /* pq_cpu() at open */
} plain_dec;

/* ---- Bits to bytes ---------------------------------------------------------
** Eight bits to eight bytes: the byte is copied into every byte of a word,
** byte i keeps bit i, and adding 0x7f carries into bit 7 of exactly the
** bytes that are not zero. */
static inline uint64_t spread8(uint8_t b) {
  uint64_t x = (b * 0x0101010101010101ull) & 0x8040201008040201ull;
  return ((x + 0x7f7f7f7f7f7f7f7full) >> 7) & 0x0101010101010101ull;
}

static void expand_bits_scalar(const uint8_t *in, size_t nbytes,
                               uint8_t *out) {
  for (size_t i = 0; i < nbytes; i++) pq_store64(out + 8 * i, spread8(in[i]));
}

#if PQ_X86_SIMD
/* 32 bits at a time: each of the 4 bytes is copied into 8 bytes, which
** keep one bit each; min(x, 1) makes it 0 or 1. */
__attribute__((target("avx2"))) static void expand_bits_avx2(
    const uint8_t *in, size_t nbytes, uint8_t *out) {
  const __m256i shuf = _mm256_setr_epi8(
      0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2,
      3, 3, 3, 3, 3, 3, 3, 3);
  const __m256i bits = _mm256_set1_epi64x((long long)0x8040201008040201ull);
  const __m256i one = _mm256_set1_epi8(1);
  size_t i = 0;
  for (; i + 8 <= nbytes; i += 8) {
    uint32_t a, b;
    memcpy(&a, in + i, 4);
    memcpy(&b, in + i + 4, 4);
    __m256i x = _mm256_shuffle_epi8(_mm256_set1_epi32((int)a), shuf);
    __m256i y = _mm256_shuffle_epi8(_mm256_set1_epi32((int)b), shuf);
    x = _mm256_min_epu8(_mm256_and_si256(x, bits), one);
    y = _mm256_min_epu8(_mm256_and_si256(y, bits), one);
    _mm256_storeu_si256((__m256i *)(void *)(out + 8 * i), x);
    _mm256_storeu_si256((__m256i *)(void *)(out + 8 * i + 32), y);
  }
  expand_bits_scalar(in + i, nbytes - i, out + 8 * i);
}
#endif

void pq_expand_bits(const uint8_t *in, size_t nbytes, uint8_t *out,
                    unsigned cpu) {
#if PQ_X86_SIMD
  if (cpu & PQ_CPU_AVX2) {
    expand_bits_avx2(in, nbytes, out);
    return;
  }
#endif
  (void)cpu;
  expand_bits_scalar(in, nbytes, out);
}

/* Copies n fixed-width values of `width` bytes from little-endian input;
** on a big-endian host numbers are swapped into host order. */
static void copy_le(void *out, const uint8_t *in, size_t n, size_t width,
                    pq_type t) {
  size_t bytes = n * width;
  /* One value at a time (SQL's aggregates put them so): a fixed-size copy
  ** the compiler makes a move, not a call. */
  if (bytes == 8)
    memcpy(out, in, 8);
  else if (bytes == 4)
    memcpy(out, in, 4);
  else
    memcpy(out, in, bytes);
  if (!pq_is_big_endian() ||
      (t != PQ_INT32 && t != PQ_INT64 && t != PQ_FLOAT && t != PQ_DOUBLE))
    return;
  uint8_t *p = out;
  for (size_t i = 0; i < n; i++, p += width) {
    for (size_t a = 0, b = width - 1; a < b; a++, b--) {
      uint8_t x = p[a];
      p[a] = p[b];
      p[b] = x;
    }
  }
}

static int plain_read_fixed(pq_decoder *d, void *out, size_t max, size_t *n,
                            pq_error *err) {
  (void)err;
  plain_dec *s = (plain_dec *)d;
  size_t avail = (d->len - s->pos) / s->width;
  size_t k = max < avail ? max : avail;
  copy_le(out, d->buf + s->pos, k, s->width, d->p.type);
  s->pos += k * s->width;
  *n = k;
  return PQ_OK;
}

static int plain_read_bool(pq_decoder *d, void *out, size_t max, size_t *n,
                           pq_error *err) {
  (void)err;
  plain_dec *s = (plain_dec *)d;
  uint8_t *o = out;
  uint64_t total = (uint64_t)d->len * 8;
  uint64_t bit = s->bit;
  size_t k = 0;
  /* Up to a byte boundary, then whole bytes, then what is left. */
  while (k < max && bit < total && (bit & 7) != 0) {
    o[k++] = (d->buf[bit >> 3] >> (bit & 7)) & 1;
    bit++;
  }
  size_t bytes = (max - k) / 8;
  if (bytes > (total - bit) / 8) bytes = (size_t)((total - bit) / 8);
  if (bytes > 0) {
    pq_expand_bits(d->buf + (bit >> 3), bytes, o + k, s->cpu);
    k += bytes * 8;
    bit += (uint64_t)bytes * 8;
  }
  while (k < max && bit < total) {
    o[k++] = (d->buf[bit >> 3] >> (bit & 7)) & 1;
    bit++;
  }
  s->bit = bit;
  *n = k;
  return PQ_OK;
}

/* The length chain (each length says where the next one is) bounds the
** speed, so the loop keeps it one load long: r points at a value's bytes,
** and the next length is loaded from r + vlen, an address the load forms
** itself (pq_load32_at), while r moves on beside it.  One comparison
** covers a value's bytes and the next length; the stream's last value and
** a bad length leave the loop for the exact checks, and a fault is
** reported by pq_plain_byte_array.  A cache miss on a length stalls the
** whole chain, so the loop asks for the bytes 2 KiB ahead itself, as a
** host's hardware prefetcher may not (bench/NOTES.md). */
static int plain_read_bytes(pq_decoder *d, void *out, size_t max, size_t *n,
                            pq_error *err) {
  plain_dec *s = (plain_dec *)d;
  pq_bytes *o = out, *const o_end = o + max;
  const uint8_t *buf = d->buf;
  const size_t len = d->len;
  size_t pos = s->pos;
  int rc = PQ_OK;
  if (max && len - pos >= 4) {
    const uint8_t *r = buf + pos + 4, *const end = buf + len;
    size_t vlen = pq_load32(r - 4);
    for (;;) {
      size_t rem = (size_t)(end - r);
      if (PQ_UNLIKELY((uint64_t)vlen + 4 > rem)) {
        if (vlen > rem) { /* the slow path tells */
          r -= 4;
        } else { /* the last value, or a length cut short after it */
          o->ptr = r;
          o->len = vlen;
          o++;
          r += vlen;
        }
        break;
      }
      PQ_PREFETCH(r + 2048);
      o->ptr = r;
      o->len = vlen;
      if (PQ_UNLIKELY(++o == o_end)) {
        r += vlen;
        break;
      }
      size_t next = pq_load32_at(r, vlen);
      r += vlen + 4;
      vlen = next;
    }
    pos = (size_t)(r - buf);
  }
  size_t k = (size_t)(o - (pq_bytes *)out);
  if (k < max && pos < len) {
    rc = pq_plain_byte_array(buf, len, &pos, d->done + k, &o[0], err);
  }
  s->pos = pos;
  *n = k;
  return rc;
}

int pq_plain_byte_array(const uint8_t *buf, size_t len, size_t *pos,
                        uint64_t index, pq_bytes *v, pq_error *err) {
  size_t at = *pos;
  if (len - at < 4) {
    return pq_fail(err, PQ_CORRUPT, "PLAIN",
                   "value %llu: its 4-byte length at offset %zu is cut "
                   "short, %zu bytes remain",
                   (unsigned long long)index, at, len - at);
  }
  uint32_t vlen = pq_load32(buf + at);
  if (vlen > len - at - 4) {
    return pq_fail(err, PQ_CORRUPT, "PLAIN",
                   "value %llu: length %u at offset %zu exceeds the %zu "
                   "bytes that remain",
                   (unsigned long long)index, vlen, at, len - at - 4);
  }
  v->ptr = buf + at + 4;
  v->len = vlen;
  *pos = at + 4 + (size_t)vlen;
  return PQ_OK;
}

int pq_plain_check(const pq_params *p, size_t len, pq_error *err) {
  const char *type = pq_type_name(p->type);
  size_t width = pq_plain_width(p->type, p->type_length);
  uint64_t count = p->count >= 0 ? (uint64_t)p->count : 0;
  /* Check a given count against the bytes before reading anything. */
  if (p->type == PQ_BOOLEAN) {
    if (count > (uint64_t)len * 8) {
      return pq_fail(err, PQ_CORRUPT, "PLAIN",
                     "%llu BOOLEAN values need %llu bytes, the stream has %zu",
                     (unsigned long long)count,
                     (unsigned long long)((count + 7) / 8), len);
    }
  } else if (p->type == PQ_BYTE_ARRAY) {
    if (count > len / 4) {
      return pq_fail(err, PQ_CORRUPT, "PLAIN",
                     "%llu BYTE_ARRAY values need at least %llu bytes, the "
                     "stream has %zu",
                     (unsigned long long)count, (unsigned long long)count * 4,
                     len);
    }
  } else if (p->count >= 0) {
    if (count > len / width) {
      return pq_fail(
          err, PQ_CORRUPT, "PLAIN",
          "%llu %s values need %llu bytes, the stream has %zu",
          (unsigned long long)count, type,
          (unsigned long long)(count > UINT64_MAX / width ? UINT64_MAX
                                                          : count * width),
          len);
    }
  } else if (len % width != 0) {
    return pq_fail(err, PQ_CORRUPT, "PLAIN",
                   "a stream of %zu bytes is not a whole number of %zu-byte "
                   "%s values (%zu bytes left over at offset %zu)",
                   len, width, type, len % width, len - len % width);
  }
  return PQ_OK;
}

int pq_plain_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                     size_t len, pq_error *err) {
  int rc = pq_plain_check(p, len, err);
  if (rc) return rc;
  size_t width = pq_plain_width(p->type, p->type_length);
  plain_dec *s = (plain_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, "PLAIN");
  s->width = width;
  s->cpu = pq_cpu();
  s->base.read = p->type == PQ_BOOLEAN      ? plain_read_bool
                 : p->type == PQ_BYTE_ARRAY ? plain_read_bytes
                                            : plain_read_fixed;
  *out = &s->base;
  return PQ_OK;
}

/* ---- Encoder ------------------------------------------------------------ */

typedef struct plain_enc {
  pq_encoder base;
  pq_buf out;
  uint8_t bits; /* BOOLEAN: bits of the byte being filled */
  int nbits;
} plain_enc;

/* Appends n fixed-width values as little-endian. */
void pq_put_le(pq_buf *b, const void *v, size_t n, size_t width, pq_type t) {
  if (pq_buf_reserve(b, n * width)) return;
  copy_le(b->data + b->len, v, n, width, t);
  b->len += n * width;
}

int pq_put_byte_array(pq_buf *b, const pq_bytes *v, size_t n, uint64_t first,
                      const char *label, pq_error *err) {
  /* Room for all of them first, then plain stores. */
  size_t total = 0, ok = 0;
  while (ok < n && v[ok].len <= INT32_MAX && total <= SIZE_MAX / 2) {
    total += 4 + v[ok].len;
    ok++;
  }
  if (pq_buf_reserve(b, total) == PQ_OK) {
    uint8_t *o = b->data + b->len;
    for (size_t i = 0; i < ok; i++) {
      pq_store32(o, (uint32_t)v[i].len);
      if (v[i].len) memcpy(o + 4, v[i].ptr, v[i].len);
      o += 4 + v[i].len;
    }
    b->len += total;
  }
  if (ok < n && v[ok].len > INT32_MAX) {
    return pq_fail(err, PQ_RANGE, label,
                   "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                   "most 2147483647",
                   (unsigned long long)(first + ok), v[ok].len);
  }
  if (ok < n) { /* a total past SIZE_MAX / 2: no memory for it anyway */
    b->oom = 1;
  }
  return PQ_OK;
}

static int plain_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  plain_enc *s = (plain_enc *)e;
  switch (e->p.type) {
    case PQ_BOOLEAN: {
      const uint8_t *b = v;
      for (size_t i = 0; i < n; i++) {
        s->bits |= (uint8_t)((b[i] != 0) << s->nbits);
        if (++s->nbits == 8) {
          pq_buf_byte(&s->out, s->bits);
          s->bits = 0;
          s->nbits = 0;
        }
      }
      return PQ_OK;
    }
    case PQ_BYTE_ARRAY:
      return pq_put_byte_array(&s->out, v, n, e->count, "PLAIN", err);
    default:
      pq_put_le(&s->out, v, n, pq_plain_width(e->p.type, e->p.type_length),
                e->p.type);
      return PQ_OK;
  }
}

static int plain_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                        pq_error *err) {
  (void)dict;
  (void)err;
  plain_enc *s = (plain_enc *)e;
  if (s->nbits) pq_buf_byte(&s->out, s->bits); /* zero padding */
  s->nbits = 0;
  s->bits = 0;
  pq_buf_hand_over(out, &s->out);
  return PQ_OK;
}

static size_t plain_size(const pq_encoder *e) {
  const plain_enc *s = (const plain_enc *)e;
  return s->out.len + (s->nbits > 0);
}

static pq_buf *plain_room(pq_encoder *e) { return &((plain_enc *)e)->out; }

static void plain_destroy(pq_encoder *e) {
  pq_buf_free(&((plain_enc *)e)->out);
}

int pq_plain_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  plain_enc *s = (plain_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, "PLAIN");
  s->base.put = plain_put;
  s->base.finish = plain_finish;
  s->base.destroy = plain_destroy;
  s->base.size = plain_size;
  s->base.reusable = 1;
  s->base.room = plain_room;
  *out = &s->base;
  return PQ_OK;
}
