/*
** fuzz_explain_variant.c -- the VARIANT explainer on any input.  The first
** byte picks what the rest is: 0, a metadata and then its value; 1, a
** metadata alone; 2, a value alone; 3, a value with its metadata apart (a
** 16-bit length, the metadata, then the value).  Every row is made, and
** each must lie inside the bytes explained; a fault row is the last; and
** the rows are at most a few per byte (values may not share bytes, so a
** few bytes cannot be walked again and again).
*/
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in = {data, size};
  int part = fz_byte(&in) % 4;
  const uint8_t *meta = NULL;
  size_t meta_len = 0;
  if (part == 3) {
    size_t want = fz_u16(&in);
    if (want > in.n) want = in.n;
    meta = in.p;
    meta_len = want;
    in.p += want;
    in.n -= want;
    part = PQ_XV_VALUE;
  }
  /* Copies of their own, so that a read past either is caught. */
  uint8_t *buf = malloc(in.n ? in.n : 1);
  uint8_t *mb = malloc(meta_len ? meta_len : 1);
  if (!buf || !mb) {
    free(buf);
    free(mb);
    return 0;
  }
  memcpy(buf, in.p, in.n);
  if (meta_len) memcpy(mb, meta, meta_len);
  pq_explainer *x = NULL;
  pq_error err;
  if (pq_explainer_open_variant(&x, part, buf, in.n, meta ? mb : NULL,
                                meta_len, &err) == PQ_OK) {
    pq_field f;
    uint64_t rows = 0;
    int faults = 0;
    while (pq_explainer_next(x, &f)) {
      if (f.offset > in.n || f.length > in.n - f.offset) __builtin_trap();
      if (faults) __builtin_trap(); /* a fault row is the last */
      faults += f.fault;
      if (++rows > 8 * (uint64_t)in.n + 16) __builtin_trap();
    }
    pq_explainer_free(x);
  }
  free(buf);
  free(mb);
  return 0;
}
