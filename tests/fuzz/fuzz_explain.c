/*
** fuzz_explain.c -- the explainer on any input.  The first byte picks
** what is explained: a stream of one of the encodings (0 to 9, and 12 for
** ALP, after the page and the file, so that older inputs keep their
** meaning; a page's BYTE_ARRAY values may be walked as a VARIANT's
** metadata or value, by bits of the byte that says whether it has a type;
** its parameters
** from the next bytes, fuzz.h, and for the dictionary encodings a PLAIN
** dictionary of a 16-bit length), a page as stored (its context from the
** next bytes), or a whole file.  Every row is made, and each must lie
** inside the input (a row of a decompressed page body, inside that body).
*/
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(pq_explainer *x, size_t len) {
  pq_field f;
  uint64_t rows = 0, last = 0;
  int faults = 0;
  while (pq_explainer_next(x, &f) && rows++ < 10000) {
    /* inside the input, or inside the decompressed body it names */
    uint64_t in = f.within ? f.within_len : len;
    if (f.offset > in || f.length > in - f.offset) __builtin_trap();
    if (faults) __builtin_trap(); /* a fault row is the last */
    faults += f.fault;
    (void)last;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in = {data, size};
  uint8_t mode = fz_byte(&in) % 13;
  pq_explainer *x = NULL;
  pq_error err;
  const uint8_t *dict = NULL;
  size_t dict_len = 0;
  uint8_t *buf = NULL;
  if (mode < 10 || mode == 12) {
    pq_params p;
    fz_params(&in, mode == 12 ? PQ_ALP : (pq_encoding)mode, &p);
    if (mode == PQ_PLAIN_DICTIONARY || mode == PQ_RLE_DICTIONARY) {
      size_t want = fz_u16(&in);
      if (want > in.n) want = in.n;
      if (want) {
        dict = in.p;
        dict_len = want;
        in.p += want;
        in.n -= want;
      }
    }
    buf = malloc(in.n ? in.n : 1);
    if (!buf) return 0;
    memcpy(buf, in.p, in.n);
    if (pq_explainer_open(&x, &p, buf, in.n, dict, dict_len, &err) != PQ_OK)
      x = NULL;
  } else if (mode == 10) {
    pq_page_context c;
    pq_page_context_init(&c);
    uint8_t set = fz_byte(&in);
    c.type_set = set & 1;
    c.variant = (set >> 1) % 3; /* a VARIANT's column: metadata, value */
    c.type = (pq_type)(fz_byte(&in) % 8);
    c.type_length = 1 + fz_byte(&in) % 16;
    c.max_def = fz_byte(&in) % 4;
    c.max_rep = fz_byte(&in) % 3;
    c.codec = (pq_codec)(fz_byte(&in) % PQ_CODEC_COUNT);
    buf = malloc(in.n ? in.n : 1);
    if (!buf) return 0;
    memcpy(buf, in.p, in.n);
    if (pq_explainer_open_page(&x, &c, buf, in.n, NULL, 0, &err) != PQ_OK)
      x = NULL;
  } else {
    buf = malloc(in.n ? in.n : 1);
    if (!buf) return 0;
    memcpy(buf, in.p, in.n);
    if (pq_explainer_open_file(&x, buf, in.n, &err) != PQ_OK) x = NULL;
  }
  if (x) {
    walk(x, in.n);
    pq_explainer_free(x);
  }
  free(buf);
  return 0;
}
