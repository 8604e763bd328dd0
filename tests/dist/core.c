/*
** core.c -- a program of the core alone, built against what make install
** put in place, as tests/dist.test builds it:
**
**   cc core.c $(pkg-config --cflags --libs pqcore)
**
** It encodes eight integers as DELTA_BINARY_PACKED (the spec's Example 2),
** prints the stream's bytes, decodes them back and prints the values.
*/
#include <inttypes.h>
#include <stdio.h>

#include <parquet.h>

int main(void) {
  const int64_t in[8] = {7, 5, 3, 1, 2, 3, 4, 5};
  int64_t out[8];
  pq_params p;
  pq_error err;
  pq_buf buf;
  pq_encoder *e = NULL;
  pq_decoder *d = NULL;
  size_t n = 0;
  pq_params_init(&p);
  p.encoding = PQ_DELTA_BINARY_PACKED;
  p.type = PQ_INT64;
  p.type_set = 1;
  p.block_size = 8;
  p.miniblocks = 1;
  pq_buf_init(&buf);
  int rc = pq_encoder_open(&e, &p, &err);
  if (rc == PQ_OK) rc = pq_encoder_put(e, in, 8, &err);
  if (rc == PQ_OK) rc = pq_encoder_finish(e, &buf, NULL, &err);
  if (rc == PQ_OK) {
    for (size_t i = 0; i < buf.len; i++) printf("%02X", buf.data[i]);
    printf("\n");
    rc = pq_decoder_open(&d, &p, buf.data, buf.len, NULL, 0, &err);
  }
  if (rc == PQ_OK) rc = pq_decoder_read(d, out, 8, &n, &err);
  for (size_t i = 0; rc == PQ_OK && i < n; i++) {
    printf("%s%" PRId64, i ? "," : "", out[i]);
  }
  if (rc == PQ_OK) printf("\n");
  if (rc) fprintf(stderr, "core: %s\n", err.msg);
  pq_decoder_free(d);
  pq_encoder_free(e);
  pq_buf_free(&buf);
  return rc != PQ_OK;
}
