/*
** fuzz_variant.c -- the Variant Binary Encoding's reader
** (src/reader/variant.c): the input is a metadata followed by a value, as
** one BLOB holds a variant.  Whatever the bytes, no read outside them;
** what decodes must be JSON the project's own parser reads, a value that
** decodes must have a size within the bytes, and the JSON made a variant
** (src/encodings/variant_build.c) and decoded again must settle.
*/
#include <stdlib.h>

#include "fuzz.h"
#include "util/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pq_variant_meta m;
  pq_error err;
  if (pq_variant_meta_open(&m, data, size, &err)) return 0;
  if (m.n > size) abort();
  const uint8_t *v = data + m.n;
  size_t n = size - m.n;
  pq_buf out;
  pq_buf_init(&out);
  int rc = pq_variant_to_json(&m, v, n, 0, &out, &err);
  if (rc == PQ_OK) {
    size_t vs;
    if (pq_variant_value_size(v, n, &vs, &err) || vs > n) abort();
    pq_json_doc d;
    memset(&d, 0, sizeof d);
    size_t at;
    const char *fault;
    int root = pq_json_parse(&d, (const char *)out.data, out.len, &at, &fault);
    if (root == -1) abort();
    pq_json_free(&d);
    /* JSON to a variant and back settles after one turn: what a turn
    ** gives, a second gives again (types may change on the first: a
    ** float's digits become a decimal's, a date a string) */
    pq_buf m1, v1, j1, m2, v2, j2;
    pq_buf_init(&m1), pq_buf_init(&v1), pq_buf_init(&j1);
    pq_buf_init(&m2), pq_buf_init(&v2), pq_buf_init(&j2);
    pq_variant_meta mm;
    if (!pq_variant_from_json((const char *)out.data, out.len, &m1, &v1,
                              &err) &&
        !pq_variant_meta_open(&mm, m1.data, m1.len, &err)) {
      if (pq_variant_to_json(&mm, v1.data, v1.len, 0, &j1, &err)) abort();
      if (!pq_variant_from_json((const char *)j1.data, j1.len, &m2, &v2,
                                &err)) {
        if (pq_variant_meta_open(&mm, m2.data, m2.len, &err) ||
            pq_variant_to_json(&mm, v2.data, v2.len, 0, &j2, &err))
          abort();
        if (j1.len != j2.len || memcmp(j1.data, j2.data, j1.len)) abort();
      }
    }
    pq_buf_free(&m1), pq_buf_free(&v1), pq_buf_free(&j1);
    pq_buf_free(&m2), pq_buf_free(&v2), pq_buf_free(&j2);
  }
  pq_buf_free(&out);
  return 0;
}
