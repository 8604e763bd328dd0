/*
** fuzz_page.c -- the page reader: the input (after 5 bytes of parameters)
** is a column chunk's pages, placed in a file whose footer is written
** here to point at them: one column of the chosen type, repetition and
** codec, and a value count; which of fz_read_file's readings, from the
** input's length.
*/
#include <stdlib.h>

#include "fuzz.h"
/* after fuzz.h, which brings format/format.h */
#include "../footer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_in in = {data, size};
  pq_type type = (pq_type)(fz_byte(&in) % 8);
  int codec = fz_byte(&in) % PQ_CODEC_COUNT;
  int repetition = fz_byte(&in) % 2; /* REQUIRED or OPTIONAL */
  int how = (int)(size % 3);          /* fz_read_file's reading */
  int64_t num = fz_u16(&in);
  if (in.n > (1u << 24)) return 0;
  pq_buf f;
  pq_buf_init(&f);
  pq_buf_append(&f, "PAR1", 4);
  pq_buf_append(&f, in.p, in.n);
  size_t footer = f.len;
  pq_thrift_writer tw = {&f, 0, {0}};
  footer_schema(&tw, type, repetition, num);
  pq_tw_list_begin(&tw, 4, PQ_TT_STRUCT, 1);
  pq_tw_list_struct_begin(&tw);
  pq_tw_list_begin(&tw, 1, PQ_TT_STRUCT, 1);
  pq_tw_list_struct_begin(&tw);
  pq_tw_i64(&tw, 2, 4);
  footer_chunk_meta(&tw, type, codec, num, (int64_t)in.n, 4);
  pq_tw_struct_end(&tw);
  pq_tw_struct_end(&tw);
  pq_tw_i64(&tw, 2, (int64_t)in.n);
  pq_tw_i64(&tw, 3, num);
  pq_tw_struct_end(&tw);
  pq_tw_stop(&tw);
  uint8_t tail[8];
  pq_store32(tail, (uint32_t)(f.len - footer));
  memcpy(tail + 4, "PAR1", 4);
  pq_buf_append(&f, tail, 8);
  if (!f.oom) {
    /* A copy of exactly the file's size, so that overreads are caught. */
    uint8_t *buf = malloc(f.len);
    if (buf) {
      memcpy(buf, f.data, f.len);
      fz_read_file(buf, f.len, how);
      free(buf);
    }
  }
  pq_buf_free(&f);
  return 0;
}
