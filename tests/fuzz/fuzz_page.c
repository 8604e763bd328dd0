/*
** fuzz_page.c -- the page reader: the input (after 5 bytes of parameters)
** is a column chunk's pages, placed in a file whose footer is written
** here to point at them: one column of the chosen type, repetition and
** codec, and a value count; which of fz_read_file's readings, from the
** input's length.
*/
#include <stdlib.h>

#include "fuzz.h"

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
  pq_tw_i32(&tw, 1, 1);
  pq_tw_list_begin(&tw, 2, PQ_TT_STRUCT, 2);
  pq_tw_list_struct_begin(&tw);
  pq_tw_binary(&tw, 4, "schema", 6);
  pq_tw_i32(&tw, 5, 1);
  pq_tw_struct_end(&tw);
  pq_tw_list_struct_begin(&tw);
  pq_tw_i32(&tw, 1, (int32_t)type);
  if (type == PQ_FIXED_LEN_BYTE_ARRAY) pq_tw_i32(&tw, 2, 4);
  pq_tw_i32(&tw, 3, repetition);
  pq_tw_binary(&tw, 4, "v", 1);
  pq_tw_struct_end(&tw);
  pq_tw_i64(&tw, 3, num);
  pq_tw_list_begin(&tw, 4, PQ_TT_STRUCT, 1);
  pq_tw_list_struct_begin(&tw);
  pq_tw_list_begin(&tw, 1, PQ_TT_STRUCT, 1);
  pq_tw_list_struct_begin(&tw);
  pq_tw_i64(&tw, 2, 4);
  pq_tw_struct_begin(&tw, 3);
  pq_tw_i32(&tw, 1, (int32_t)type);
  pq_tw_list_begin(&tw, 2, PQ_TT_I32, 1);
  pq_tw_list_i32(&tw, 0);
  pq_tw_list_begin(&tw, 3, PQ_TT_BINARY, 1);
  pq_tw_list_binary(&tw, "v", 1);
  pq_tw_i32(&tw, 4, codec);
  pq_tw_i64(&tw, 5, num);
  pq_tw_i64(&tw, 6, (int64_t)in.n);
  pq_tw_i64(&tw, 7, (int64_t)in.n);
  pq_tw_i64(&tw, 9, 4);
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
