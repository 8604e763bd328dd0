/*
** fuzz_variant.c -- the Variant Binary Encoding's reader
** (src/reader/variant.c): the input is a metadata followed by a value, as
** one BLOB holds a variant.  Whatever the bytes, no read outside them;
** what decodes must be JSON the project's own parser reads, and a value
** that decodes must have a size within the bytes.
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
  }
  pq_buf_free(&out);
  return 0;
}
