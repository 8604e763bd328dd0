/*
** footer.h -- the parts of a one-column file's footer (FileMetaData) that
** the tests and fuzz targets write by hand around bytes of their own.
**
**   footer_schema(tw, type, repetition, num_rows)
**       version 1, the schema (a root "schema" and its leaf "v", of type
**       and repetition; FIXED_LEN_BYTE_ARRAY of 4 bytes) and num_rows
**   footer_chunk_meta(tw, type, codec, num_values, size, data_page_offset)
**       a chunk's ColumnMetaData, opened as field 3 of its ColumnChunk:
**       type, encodings [PLAIN], path ["v"], codec, the value count, both
**       sizes, the data page's offset.  The caller may add fields and
**       closes the struct.
**
** Needs format/format.h (the Thrift writer).
*/
#ifndef PQ_TEST_FOOTER_H
#define PQ_TEST_FOOTER_H

static inline void footer_schema(pq_thrift_writer *tw, pq_type type,
                                 int repetition, int64_t num_rows) {
  pq_tw_i32(tw, 1, 1);
  pq_tw_list_begin(tw, 2, PQ_TT_STRUCT, 2);
  pq_tw_list_struct_begin(tw);
  pq_tw_binary(tw, 4, "schema", 6);
  pq_tw_i32(tw, 5, 1);
  pq_tw_struct_end(tw);
  pq_tw_list_struct_begin(tw);
  pq_tw_i32(tw, 1, (int32_t)type);
  if (type == PQ_FIXED_LEN_BYTE_ARRAY) pq_tw_i32(tw, 2, 4);
  pq_tw_i32(tw, 3, repetition);
  pq_tw_binary(tw, 4, "v", 1);
  pq_tw_struct_end(tw);
  pq_tw_i64(tw, 3, num_rows);
}

static inline void footer_chunk_meta(pq_thrift_writer *tw, pq_type type,
                                     int codec, int64_t num_values,
                                     int64_t size, int64_t data_page_offset) {
  pq_tw_struct_begin(tw, 3);
  pq_tw_i32(tw, 1, (int32_t)type);
  pq_tw_list_begin(tw, 2, PQ_TT_I32, 1);
  pq_tw_list_i32(tw, 0);
  pq_tw_list_begin(tw, 3, PQ_TT_BINARY, 1);
  pq_tw_list_binary(tw, "v", 1);
  pq_tw_i32(tw, 4, codec);
  pq_tw_i64(tw, 5, num_values);
  pq_tw_i64(tw, 6, size);
  pq_tw_i64(tw, 7, size);
  pq_tw_i64(tw, 9, data_page_offset);
}

#endif
