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
#include "internal.h"

static const char DBA[] = "DELTA_BYTE_ARRAY";

typedef struct dba_dec {
  pq_decoder base;
  pq_delta_reader prefixes, suffixes;
  size_t data;  /* offset of the next suffix's bytes */
  pq_buf prev;  /* the previous value */
  pq_buf arena; /* BYTE_ARRAY: the values of the last batch */
  int32_t pre[256], suf[256];
  pq_bytes sfx[256];
  size_t ends[256]; /* end of each value in the arena */
} dba_dec;

int pq_dba_rebuild(pq_buf *prev, int32_t prefix, pq_bytes suffix,
                   uint64_t index, int32_t fixed_len, pq_error *err) {
  if (prefix < 0 || (uint64_t)prefix > prev->len) {
    return pq_fail(
        err, PQ_CORRUPT, DBA, "value %llu: prefix length %d %s",
        (unsigned long long)index, prefix,
        prefix < 0 ? "is negative" : "is longer than the previous value");
  }
  size_t vlen = (size_t)prefix + suffix.len;
  if (fixed_len >= 0 && vlen != (size_t)fixed_len) {
    return pq_fail(err, PQ_CORRUPT, DBA,
                   "value %llu is %zu bytes, FIXED_LEN_BYTE_ARRAY(%d) "
                   "values are %d",
                   (unsigned long long)index, vlen, fixed_len, fixed_len);
  }
  prev->len = (size_t)prefix;
  pq_buf_append(prev, suffix.ptr, suffix.len);
  return prev->oom ? pq_nomem(err, DBA) : PQ_OK;
}

/* Decodes values first .. first+m-1 into fixed (FIXED_LEN_BYTE_ARRAY) or o
** (BYTE_ARRAY, pointing into the arena). */
static int dba_batch(dba_dec *s, uint64_t first, uint8_t *fixed, pq_bytes *o,
                     size_t m, pq_error *err) {
  pq_decoder *d = &s->base;
  size_t got1, got2;
  int rc = pq_delta_reader_read(&s->prefixes, s->pre, m, &got1, err);
  if (rc == PQ_OK)
    rc = pq_delta_reader_read(&s->suffixes, s->suf, m, &got2, err);
  if (rc) return rc;
  if (got1 != m || got2 != m) {
    return pq_fail(err, PQ_CORRUPT, DBA,
                   "value %llu: the %s lengths end before the %s lengths",
                   (unsigned long long)(first + (got1 < got2 ? got1 : got2)),
                   got1 < got2 ? "prefix" : "suffix",
                   got1 < got2 ? "suffix" : "prefix");
  }
  int32_t tl = d->p.type_length;
  for (size_t i = 0; i < m; i++) {
    /* Value by value, so that the first bad value is the one reported. */
    rc = pq_slice_lengths(d->buf, d->len, &s->data, s->suf + i, 1, s->sfx + i,
                          first + i, DBA, err);
    if (rc == PQ_OK) {
      rc = pq_dba_rebuild(&s->prev, s->pre[i], s->sfx[i], first + i,
                          fixed ? tl : -1, err);
    }
    if (rc) return rc;
    size_t vlen = s->prev.len;
    if (fixed) {
      memcpy(fixed + i * (size_t)tl, s->prev.data, vlen);
    } else {
      pq_buf_append(&s->arena, s->prev.data, vlen);
      s->ends[i] = s->arena.len;
    }
  }
  if (!fixed) {
    if (s->arena.oom) return pq_nomem(err, DBA);
    size_t start = 0;
    for (size_t i = 0; i < m; i++) {
      o[i].ptr = s->arena.data + start;
      o[i].len = s->ends[i] - start;
      start = s->ends[i];
    }
  }
  return PQ_OK;
}

static int dba_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  dba_dec *s = (dba_dec *)d;
  int fixed = d->p.type == PQ_FIXED_LEN_BYTE_ARRAY;
  uint64_t left = s->prefixes.total - s->prefixes.yielded;
  if (max > left) max = (size_t)left;
  /* BYTE_ARRAY values live in the arena until the next read: one batch per
  ** read, so that growing the arena never moves values already handed
  ** out. */
  if (!fixed && max > 256) max = 256;
  s->arena.len = 0;
  size_t k = 0;
  while (k < max) {
    size_t m = max - k < 256 ? max - k : 256;
    int rc =
        dba_batch(s, d->done + k,
                  fixed ? (uint8_t *)out + k * (size_t)d->p.type_length : NULL,
                  fixed ? NULL : (pq_bytes *)out + k, m, err);
    if (rc) {
      *n = k;
      return rc;
    }
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

static void dba_put1(dba_enc *s, const uint8_t *v, size_t len) {
  size_t p = 0, lim = len < s->prev.len ? len : s->prev.len;
  while (p < lim && v[p] == s->prev.data[p]) p++;
  pq_delta_writer_put(&s->prefixes, (uint64_t)p);
  pq_delta_writer_put(&s->suffixes, (uint64_t)(len - p));
  pq_buf_append(&s->data, v + p, len - p);
  s->prev.len = 0;
  pq_buf_append(&s->prev, v, len);
}

static int dba_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  dba_enc *s = (dba_enc *)e;
  if (e->p.type == PQ_FIXED_LEN_BYTE_ARRAY) {
    size_t tl = (size_t)e->p.type_length;
    for (size_t i = 0; i < n; i++) dba_put1(s, (const uint8_t *)v + i * tl, tl);
    return PQ_OK;
  }
  const pq_bytes *b = v;
  for (size_t i = 0; i < n; i++) {
    if (b[i].len > INT32_MAX) {
      return pq_fail(err, PQ_RANGE, DBA,
                     "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                     "most 2147483647",
                     (unsigned long long)(e->count + i), b[i].len);
    }
    dba_put1(s, b[i].ptr, b[i].len);
  }
  return s->prev.oom ? pq_nomem(err, DBA) : PQ_OK;
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
