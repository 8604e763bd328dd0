/*
** fuzz_wkb.c -- the WKB walk of GEOMETRY and GEOGRAPHY values
** (src/format/wkb.c): the input is one value.  A value read adds its type
** and no bound that is NaN or out of order; read twice, the bounds stay;
** every proper prefix of it is refused; a refusal leaves the accumulator
** as it was and says where.
*/
#include <math.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pq_geo_acc a, b;
  pq_error err;
  memset(&err, 0, sizeof err);
  pq_geo_acc_init(&a);
  int rc = pq_wkb_add(&a, data, size, "g", &err);
  if (rc != PQ_OK) {
    if (rc != PQ_CORRUPT || !strstr(err.msg, "at offset")) abort();
    if (a.values != 0 || a.types != 0) abort();
    return 0;
  }
  if (a.values != 1 || a.types == 0 || (a.types & (a.types - 1))) abort();
  for (int i = 0; i < 4; i++)
    if (isnan(a.min[i]) || isnan(a.max[i]) ||
        (a.min[i] > a.max[i] && (a.min[i] != INFINITY || a.max[i] != -INFINITY)))
      abort();
  b = a;
  memset(&err, 0, sizeof err);
  if (pq_wkb_add(&b, data, size, "g", &err) != PQ_OK || b.values != 2 ||
      b.types != a.types || memcmp(a.min, b.min, sizeof a.min) ||
      memcmp(a.max, b.max, sizeof a.max))
    abort();
  for (size_t k = 0; k < size; k += 1 + size / 64) {
    memset(&err, 0, sizeof err);
    if (pq_wkb_add(&b, data, k, "g", &err) != PQ_CORRUPT) abort();
  }
  return 0;
}
