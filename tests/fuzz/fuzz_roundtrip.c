/*
** fuzz_roundtrip.c -- one encoder, FUZZ_ENC: the values come from the
** input (after the parameters, fuzz.h), are encoded in pieces of varying
** size, decoded, and must come back bit for bit.  A difference, a crash
** or a failure to decode what was encoded is a finding.
*/
#include <stdlib.h>

#include "fuzz.h"

#ifndef FUZZ_ENC
#error "build with -DFUZZ_ENC=<pq_encoding>"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* At most this many values a run: two of the largest delta blocks and
** more, a dictionary of up to 11-bit indices. */
#define ROUNDTRIP_MAX_VALUES (2 * FUZZ_MAX_VALUES)

/* The input's values laid out as for p->type; *n of them. */
static uint8_t *values_of(fuzz_in *in, const pq_params *p, size_t *n,
                          pq_bytes **strings) {
  size_t vs = pq_value_size(p->type, p->type_length);
  size_t cap = in->n < ROUNDTRIP_MAX_VALUES ? in->n + 1 : ROUNDTRIP_MAX_VALUES;
  uint8_t *v = malloc(cap * (vs > 0 ? vs : 1) + 16);
  *strings = NULL;
  *n = 0;
  if (!v) return NULL;
  if (p->type == PQ_BYTE_ARRAY) {
    pq_bytes *b = (pq_bytes *)(void *)v;
    while (in->n && *n < ROUNDTRIP_MAX_VALUES) {
      size_t len = fz_byte(in) % 32;
      if (len > in->n) len = in->n;
      b[*n].ptr = in->p;
      b[*n].len = len;
      in->p += len;
      in->n -= len;
      (*n)++;
    }
    *strings = b;
    return v;
  }
  size_t w = p->type == PQ_BOOLEAN ? 1 : vs;
  while (in->n >= w && *n < ROUNDTRIP_MAX_VALUES) {
    uint8_t *o = v + *n * vs;
    memcpy(o, in->p, w);
    if (p->type == PQ_BOOLEAN) o[0] &= 1;
    if (p->type == PQ_INT32 &&
        (p->encoding == PQ_RLE || p->encoding == PQ_BIT_PACKED)) {
      uint32_t x;
      memcpy(&x, o, 4);
      if (p->bit_width < 32) x &= (1u << p->bit_width) - 1;
      memcpy(o, &x, 4);
    }
    in->p += w;
    in->n -= w;
    (*n)++;
  }
  return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in = {data, size};
  pq_params p;
  fz_params(&in, (pq_encoding)FUZZ_ENC, &p);
  p.count = -1;
  if (FUZZ_ENC == PQ_RLE && p.type == PQ_BOOLEAN) p.length_prefix = 1;
  size_t n;
  pq_bytes *strings;
  uint8_t *v = values_of(&in, &p, &n, &strings);
  if (!v) return 0;
  size_t vs = pq_value_size(p.type, p.type_length);
  pq_encoder *e;
  pq_error err;
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  if (pq_encoder_open(&e, &p, &err) != PQ_OK) {
    free(v);
    return 0;
  }
  int rc = PQ_OK;
  for (size_t i = 0, step = 1; i < n && rc == PQ_OK; i += step, step += 3) {
    size_t k = n - i < step ? n - i : step;
    rc = pq_encoder_put(e, v + i * vs, k, &err);
    if (k < step) break;
  }
  if (rc == PQ_OK) rc = pq_encoder_finish(e, &out, &dict, &err);
  pq_encoder_free(e);
  if (rc != PQ_OK) {
    /* Only a value the encoding cannot hold may fail. */
    if (rc != PQ_RANGE) __builtin_trap();
    goto done;
  }
  int is_dict = FUZZ_ENC == PQ_PLAIN_DICTIONARY || FUZZ_ENC == PQ_RLE_DICTIONARY;
  pq_params q = p;
  q.count = (int64_t)n;
  pq_decoder *d;
  if (pq_decoder_open(&d, &q, out.data, out.len, is_dict ? dict.data : NULL,
                      is_dict ? dict.len : 0, &err) != PQ_OK)
    __builtin_trap();
  uint8_t *got = malloc(n * vs + 16);
  size_t total = 0, k;
  while (got && total < n &&
         pq_decoder_read(d, got + total * vs, n - total, &k, &err) == PQ_OK &&
         k)
    total += k;
  if (total != n) __builtin_trap();
  if (strings) {
    const pq_bytes *g = (const pq_bytes *)(const void *)got;
    /* DELTA_BYTE_ARRAY values live in the decoder until its next read:
    ** compare lengths here, bytes by decoding again one at a time. */
    for (size_t i = 0; i < n; i++)
      if (g[i].len != strings[i].len) __builtin_trap();
  } else if (memcmp(got, v, n * vs) != 0) {
    __builtin_trap();
  }
  pq_decoder_free(d);
  if (strings) {
    if (pq_decoder_open(&d, &q, out.data, out.len, is_dict ? dict.data : NULL,
                        is_dict ? dict.len : 0, &err) != PQ_OK)
      __builtin_trap();
    for (size_t i = 0; i < n; i++) {
      pq_bytes b;
      if (pq_decoder_read(d, &b, 1, &k, &err) != PQ_OK || k != 1 ||
          b.len != strings[i].len ||
          (b.len && memcmp(b.ptr, strings[i].ptr, b.len) != 0))
        __builtin_trap();
    }
    pq_decoder_free(d);
  }
  free(got);
done:
  pq_buf_free(&out);
  pq_buf_free(&dict);
  free(v);
  return 0;
}
