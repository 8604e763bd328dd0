/*
** delta_length_byte_array.c -- DELTA_LENGTH_BYTE_ARRAY (spec/Encodings.md,
** "Delta-length byte array").
**
**   <lengths as DELTA_BINARY_PACKED (INT32)> <all the bytes, concatenated>
**
** The decoder walks the lengths' blocks once to find where the bytes
** begin, then decodes lengths and slices the bytes in step, batch by batch.
*/
#include "internal.h"

static const char DLBA[] = "DELTA_LENGTH_BYTE_ARRAY";

typedef struct dlba_dec {
  pq_decoder base;
  pq_delta_reader lens;
  size_t data; /* offset of the next value's bytes */
  int32_t tmp[256];
} dlba_dec;

int pq_slice_lengths(const uint8_t *buf, size_t len, size_t *data,
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

static int dlba_read(pq_decoder *d, void *out, size_t max, size_t *n,
                     pq_error *err) {
  dlba_dec *s = (dlba_dec *)d;
  pq_bytes *o = out;
  size_t k = 0;
  while (k < max) {
    size_t got, want = max - k < 256 ? max - k : 256;
    int rc = pq_delta_reader_read(&s->lens, s->tmp, want, &got, err);
    if (rc == PQ_OK) {
      rc = pq_slice_lengths(d->buf, d->len, &s->data, s->tmp, got, o + k,
                            d->done + k, DLBA, err);
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
  for (size_t i = 0; i < n; i++) {
    if (b[i].len > INT32_MAX) {
      return pq_fail(err, PQ_RANGE, DLBA,
                     "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                     "most 2147483647",
                     (unsigned long long)(e->count + i), b[i].len);
    }
    pq_delta_writer_put(&s->lens, (uint64_t)b[i].len);
    pq_buf_append(&s->data, b[i].ptr, b[i].len);
  }
  return PQ_OK;
}

static int dlba_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                       pq_error *err) {
  (void)dict;
  (void)err;
  dlba_enc *s = (dlba_enc *)e;
  pq_delta_writer_finish(&s->lens, out);
  pq_buf_move(out, &s->data);
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

int pq_dlba_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  dlba_enc *s = (dlba_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, DLBA);
  s->base.put = dlba_put;
  s->base.finish = dlba_finish;
  s->base.destroy = dlba_destroy;
  s->base.size = dlba_size;
  *out = &s->base;
  return pq_delta_writer_init(&s->lens, p, 1, DLBA, err);
}
