/*
** group_var_int.c -- GROUP_VAR_INT, the historical encoding 1
** (spec/seeds/000_*.txt; parquet.thrift keeps only a comment of it).
**
** INT32: groups of 4 values behind one byte holding 4 two-bit fields, the
** first value's in the top bits: field + 1 is the value's byte length.
** INT64: groups of 5 values behind two bytes holding 5 three-bit fields
** below an unused top bit.  The seed does not say in which order the two
** bytes go; here they are big-endian, so that both cases follow one rule:
** the length fields are one bit string, first field first, most
** significant bit first.  Value bytes are little-endian.  A last group that
** is not full is completed with zeros, so without a count every value of
** every group, zeros included, is yielded.
*/
#include "encodings.h"

static const char GVI[] = "GROUP_VAR_INT";

typedef struct gvi_dec {
  pq_decoder base;
  size_t pos;       /* next group header */
  uint64_t vals[5]; /* the current group */
  int next, have;   /* position in it */
  uint64_t group;   /* groups read, for messages */
} gvi_dec;

int pq_gvi_group(const uint8_t *buf, size_t len, size_t at, int wide,
                 uint64_t group, int lens[5], uint64_t vals[5],
                 pq_error *err) {
  int per = wide ? 5 : 4;
  size_t hb = wide ? 2 : 1;
  size_t left = len - at;
  if (left < hb) {
    return pq_fail(err, PQ_CORRUPT, GVI,
                   "group %llu: its length byte%s at offset %zu %s cut short",
                   (unsigned long long)group, wide ? "s" : "", at,
                   wide ? "are" : "is");
  }
  unsigned h = wide ? (unsigned)buf[at] << 8 | buf[at + 1] : buf[at];
  size_t need = 0;
  for (int i = 0; i < per; i++) {
    lens[i] = wide ? (int)((h >> (12 - 3 * i)) & 7) + 1
                   : (int)((h >> (6 - 2 * i)) & 3) + 1;
    need += (size_t)lens[i];
  }
  if (need > left - hb) {
    return pq_fail(err, PQ_CORRUPT, GVI,
                   "group %llu at offset %zu needs %zu bytes of values, %zu "
                   "remain",
                   (unsigned long long)group, at, need, left - hb);
  }
  const uint8_t *p = buf + at + hb;
  for (int i = 0; i < per; i++) {
    uint64_t v = 0;
    for (int k = 0; k < lens[i]; k++) v |= (uint64_t)p[k] << (8 * k);
    vals[i] = v;
    p += lens[i];
  }
  return PQ_OK;
}

/* Reads the group at s->pos. */
static int gvi_group(gvi_dec *s, pq_error *err) {
  pq_decoder *d = &s->base;
  int wide = d->p.type == PQ_INT64;
  int lens[5];
  int rc = pq_gvi_group(d->buf, d->len, s->pos, wide, s->group, lens, s->vals,
                        err);
  if (rc) return rc;
  s->have = wide ? 5 : 4;
  s->pos += (size_t)(wide ? 2 : 1);
  for (int i = 0; i < s->have; i++) s->pos += (size_t)lens[i];
  s->next = 0;
  s->group++;
  return PQ_OK;
}

/* Whole groups straight into the output while at least 17 (INT32) or 42
** (INT64) bytes remain: then every value can be read with one 4- or 8-byte
** load and a mask, and no length can run past the stream.  Returns how
** many values it wrote. */
static size_t gvi_fast32(gvi_dec *s, int32_t *out, size_t max) {
  const uint8_t *buf = s->base.buf;
  const size_t len = s->base.len;
  size_t pos = s->pos, k = 0;
  while (max - k >= 4 && len - pos >= 17) {
    unsigned h = buf[pos];
    unsigned l0 = (h >> 6) + 1, l1 = ((h >> 4) & 3) + 1,
             l2 = ((h >> 2) & 3) + 1, l3 = (h & 3) + 1;
    const uint8_t *p = buf + pos + 1;
    out[k] = (int32_t)(pq_load32(p) & (uint32_t)(0xffffffffu >> (32 - 8 * l0)));
    p += l0;
    out[k + 1] =
        (int32_t)(pq_load32(p) & (uint32_t)(0xffffffffu >> (32 - 8 * l1)));
    p += l1;
    out[k + 2] =
        (int32_t)(pq_load32(p) & (uint32_t)(0xffffffffu >> (32 - 8 * l2)));
    p += l2;
    out[k + 3] =
        (int32_t)(pq_load32(p) & (uint32_t)(0xffffffffu >> (32 - 8 * l3)));
    pos += 1 + l0 + l1 + l2 + l3;
    k += 4;
  }
  s->group += k / 4;
  s->pos = pos;
  return k;
}

static size_t gvi_fast64(gvi_dec *s, int64_t *out, size_t max) {
  const uint8_t *buf = s->base.buf;
  const size_t len = s->base.len;
  size_t pos = s->pos, k = 0;
  while (max - k >= 5 && len - pos >= 42) {
    unsigned h = (unsigned)buf[pos] << 8 | buf[pos + 1];
    const uint8_t *p = buf + pos + 2;
    for (int i = 0; i < 5; i++) {
      unsigned l = ((h >> (12 - 3 * i)) & 7) + 1;
      out[k + (size_t)i] = (int64_t)(pq_load64(p) & (~0ull >> (64 - 8 * l)));
      p += l;
    }
    pos = (size_t)(p - buf);
    k += 5;
  }
  s->group += k / 5;
  s->pos = pos;
  return k;
}

static int gvi_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  gvi_dec *s = (gvi_dec *)d;
  int wide = d->p.type == PQ_INT64;
  size_t k = 0;
  while (k < max) {
    if (s->next == s->have) {
      k += wide ? gvi_fast64(s, (int64_t *)out + k, max - k)
                : gvi_fast32(s, (int32_t *)out + k, max - k);
      if (k == max || s->pos >= d->len) break;
      int rc = gvi_group(s, err);
      if (rc) {
        *n = k;
        return rc;
      }
    }
    uint64_t v = s->vals[s->next++];
    if (wide) {
      ((int64_t *)out)[k++] = (int64_t)v;
    } else {
      ((int32_t *)out)[k++] = (int32_t)(uint32_t)v;
    }
  }
  *n = k;
  return PQ_OK;
}

int pq_gvi_check(const pq_params *p, size_t len, pq_error *err) {
  /* Each group holds 4 or 5 values in at least 5 or 7 bytes. */
  int wide = p->type == PQ_INT64;
  uint64_t cap = (uint64_t)(len / (wide ? 7 : 5)) * (wide ? 5 : 4);
  if (p->count >= 0 && (uint64_t)p->count > cap) {
    return pq_fail(err, PQ_CORRUPT, GVI,
                   "%lld values need more than the %zu bytes of the stream",
                   (long long)p->count, len);
  }
  return PQ_OK;
}

int pq_gvi_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err) {
  int rc = pq_gvi_check(p, len, err);
  if (rc) return rc;
  gvi_dec *s = (gvi_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, GVI);
  s->base.read = gvi_read;
  *out = &s->base;
  return PQ_OK;
}

/* ---- Encoder ------------------------------------------------------------ */

typedef struct gvi_enc {
  pq_encoder base;
  pq_buf out;
  uint64_t vals[5];
  int n;
} gvi_enc;

static void gvi_flush(gvi_enc *s) {
  int wide = s->base.p.type == PQ_INT64;
  int per = wide ? 5 : 4;
  uint8_t g[2 + 5 * 8];
  size_t o = wide ? 2 : 1;
  unsigned h = 0;
  for (int i = 0; i < per; i++) {
    uint64_t v = i < s->n ? s->vals[i] : 0;
    int bytes = v ? (pq_bit_width64(v) + 7) / 8 : 1;
    h |= (unsigned)(bytes - 1) << (wide ? 12 - 3 * i : 6 - 2 * i);
    for (int b = 0; b < bytes; b++) g[o++] = (uint8_t)(v >> (8 * b));
  }
  if (wide) {
    g[0] = (uint8_t)(h >> 8);
    g[1] = (uint8_t)h;
  } else {
    g[0] = (uint8_t)h;
  }
  pq_buf_append(&s->out, g, o);
  s->n = 0;
}

static int gvi_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  (void)err;
  gvi_enc *s = (gvi_enc *)e;
  int wide = e->p.type == PQ_INT64;
  for (size_t i = 0; i < n; i++) {
    s->vals[s->n++] = wide ? (uint64_t)((const int64_t *)v)[i]
                           : (uint32_t)((const int32_t *)v)[i];
    if (s->n == (wide ? 5 : 4)) gvi_flush(s);
  }
  return PQ_OK;
}

static int gvi_finish(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err) {
  (void)dict;
  (void)err;
  gvi_enc *s = (gvi_enc *)e;
  if (s->n) gvi_flush(s);
  pq_buf_move(out, &s->out);
  return PQ_OK;
}

static size_t gvi_size(const pq_encoder *e) {
  const gvi_enc *s = (const gvi_enc *)e;
  return s->out.len + (size_t)s->n * 2;
}

static void gvi_destroy(pq_encoder *e) {
  pq_buf_free(&((gvi_enc *)e)->out);
}

int pq_gvi_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  gvi_enc *s = (gvi_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, GVI);
  s->base.put = gvi_put;
  s->base.finish = gvi_finish;
  s->base.destroy = gvi_destroy;
  s->base.size = gvi_size;
  *out = &s->base;
  return PQ_OK;
}
