/*
** fuzz_decode.c -- one decoder, FUZZ_ENC, on any input: the parameters
** from the first bytes (fuzz.h), for the dictionary encodings a PLAIN
** dictionary of the next 16-bit length, then the stream.  Every value is
** read (in batches of varying size) and written as JSON; an error is
** fine, a crash or a read out of bounds is a finding.  With a dictionary
** and an input of odd length, the decoder reads the dictionary vector
** instead: an index past the dictionary is a finding too.
*/
#include <stdlib.h>

#include "fuzz.h"

#ifndef FUZZ_ENC
#error "build with -DFUZZ_ENC=<pq_encoding>"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in = {data, size};
  pq_params p;
  fz_params(&in, (pq_encoding)FUZZ_ENC, &p);
  const uint8_t *dict = NULL;
  size_t dict_len = 0;
  if (FUZZ_ENC == PQ_PLAIN_DICTIONARY || FUZZ_ENC == PQ_RLE_DICTIONARY) {
    size_t want = fz_u16(&in);
    if (want > in.n) want = in.n;
    if (want > 0 || (data[0] & 0x80)) {
      dict = in.p;
      dict_len = want;
      in.p += want;
      in.n -= want;
    }
  }
  /* The stream is copied to a buffer of exactly its size, so that a read
  ** past its end is caught. */
  uint8_t *buf = malloc(in.n ? in.n : 1);
  if (!buf) return 0;
  memcpy(buf, in.p, in.n);
  pq_decoder *d;
  pq_error err;
  if (pq_decoder_open(&d, &p, buf, in.n, dict, dict_len, &err) == PQ_OK) {
    static uint8_t batch[64 * 1024];
    const pq_dict *dv = dict && (size & 1) ? pq_dict_decoder_indices(d) : NULL;
    int is_index;
    int32_t tl;
    pq_type t = pq_decoder_type(d, &is_index, &tl);
    size_t vs = is_index ? 4 : pq_value_size(t, tl);
    size_t cap = sizeof batch / (vs ? vs : 1);
    size_t total = 0, step = 1;
    pq_buf json;
    pq_buf_init(&json);
    for (;;) {
      size_t n, want = step < cap ? step : cap;
      if (pq_decoder_read(d, batch, want, &n, &err) != PQ_OK || n == 0) break;
      if (n > want) __builtin_trap();
      for (size_t i = 0; dv && i < n; i++)
        if (((const uint32_t *)(const void *)batch)[i] >= dv->entries)
          __builtin_trap();
      json.len = 0;
      if (is_index)
        pq_json_indices(&json, (const uint32_t *)(const void *)batch, n, 0);
      else
        pq_json_values(&json, t, tl, p.binary, batch, n, 0);
      total += n;
      if (total > FUZZ_MAX_VALUES) break;
      step = step * 3 + 1;
    }
    pq_buf_free(&json);
    pq_decoder_free(d);
  }
  free(buf);
  return 0;
}
