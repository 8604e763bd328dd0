/*
** byte_stream_split.c -- BYTE_STREAM_SPLIT (spec/Encodings.md, "Byte Stream
** Split").
**
** For N values of K bytes, byte k of value i is at k*N + i: K streams of N
** bytes, concatenated.  Nothing in the stream says N; it is its length / K.
*/
#include "internal.h"

static const char BSS[] = "BYTE_STREAM_SPLIT";

typedef struct bss_dec {
  pq_decoder base;
  size_t k;    /* bytes per value */
  size_t n;    /* values in the stream */
  size_t next; /* next value */
} bss_dec;

/* Gathers values [first, first+m) of an N-value stream of K-byte values
** into out, K bytes each, little-endian order kept. */
static void bss_gather(const uint8_t *in, size_t N, size_t K, size_t first,
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
  bss_gather(d->buf, s->n, s->k, s->next, m, out);
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
