/*
** plain.c -- PLAIN (spec/Encodings.md, "Plain").
**
** Numbers are little-endian, BOOLEAN is bit-packed LSB first, BYTE_ARRAY is
** a 4-byte little-endian length followed by the bytes, FIXED_LEN_BYTE_ARRAY
** and INT96 are just their bytes.
*/
#include "internal.h"

typedef struct plain_dec {
  pq_decoder base;
  size_t pos;   /* next byte */
  uint64_t bit; /* BOOLEAN: next bit */
  size_t width; /* bytes per value; 0 for BYTE_ARRAY, BOOLEAN */
} plain_dec;

/* Copies n fixed-width values of `width` bytes from little-endian input;
** on a big-endian host numbers are swapped into host order. */
static void copy_le(void *out, const uint8_t *in, size_t n, size_t width,
                    pq_type t) {
  memcpy(out, in, n * width);
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
  size_t k = 0;
  while (k < max && s->bit < total) {
    o[k++] = (d->buf[s->bit >> 3] >> (s->bit & 7)) & 1;
    s->bit++;
  }
  *n = k;
  return PQ_OK;
}

static int plain_read_bytes(pq_decoder *d, void *out, size_t max, size_t *n,
                            pq_error *err) {
  plain_dec *s = (plain_dec *)d;
  pq_bytes *o = out;
  size_t k = 0;
  while (k < max && s->pos < d->len) {
    int rc = pq_plain_byte_array(d->buf, d->len, &s->pos, d->done + k, &o[k],
                                 err);
    if (rc) return rc;
    k++;
  }
  *n = k;
  return PQ_OK;
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
  for (size_t i = 0; i < n; i++) {
    if (v[i].len > INT32_MAX) {
      return pq_fail(err, PQ_RANGE, label,
                     "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                     "most 2147483647",
                     (unsigned long long)(first + i), v[i].len);
    }
    uint8_t len[4];
    pq_store32(len, (uint32_t)v[i].len);
    pq_buf_append(b, len, 4);
    pq_buf_append(b, v[i].ptr, v[i].len);
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
  if (s->out.oom) out->oom = 1;
  pq_buf_append(out, s->out.data, s->out.len);
  return PQ_OK;
}

static size_t plain_size(const pq_encoder *e) {
  const plain_enc *s = (const plain_enc *)e;
  return s->out.len + (s->nbits > 0);
}

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
  *out = &s->base;
  return PQ_OK;
}
