/*
** fuzz.h -- what the fuzz targets share: reading parameters from the
** front of the input, so that the fuzzer explores them with the stream.
*/
#ifndef PQ_FUZZ_H
#define PQ_FUZZ_H

#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include "format/format.h"

/* Decoding stops after this many values: a few bytes of RLE announce
** billions, which is valid and would only make the fuzzer slow.  1024
** values span two of the largest delta blocks and every batch size the
** fast paths take. */
#define FUZZ_MAX_VALUES (1u << 10)

/* Bytes taken from the front of the input; zeros once it runs out. */
typedef struct fuzz_in {
  const uint8_t *p;
  size_t n;
} fuzz_in;

static inline uint8_t fz_byte(fuzz_in *in) {
  if (!in->n) return 0;
  in->n--;
  return *in->p++;
}
static inline uint16_t fz_u16(fuzz_in *in) {
  uint16_t a = fz_byte(in);
  return (uint16_t)(a | (uint16_t)fz_byte(in) << 8);
}

/* The types a data page of encoding e may hold, as the core accepts them
** (RLE and BIT_PACKED also take levels: INT32). */
static inline pq_type fz_type(pq_encoding e, uint8_t pick) {
  static const pq_type all[] = {PQ_BOOLEAN, PQ_INT32,  PQ_INT64,
                                PQ_INT96,   PQ_FLOAT,  PQ_DOUBLE,
                                PQ_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY};
  pq_type ok[8];
  int k = 0;
  for (int i = 0; i < 8; i++) {
    int yes = e == PQ_RLE ? (all[i] == PQ_BOOLEAN || all[i] == PQ_INT32)
              : e == PQ_BIT_PACKED ? all[i] == PQ_INT32
                                   : pq_encoding_supports(e, all[i]);
    if (yes) ok[k++] = all[i];
  }
  return k ? ok[pick % k] : PQ_INT32;
}

/* Parameters of a stream from 6 bytes: the type, a count (or none), the
** bit width, the length prefix, the bit order, FIXED_LEN_BYTE_ARRAY's
** length, the delta block shape; for ALP the vector size (the flags'
** high bits) and, when the bit width byte's top bit is set, an exponent
** and factor forced (from it and the length byte). */
static inline void fz_params(fuzz_in *in, pq_encoding e, pq_params *p) {
  pq_params_init(p);
  p->encoding = e;
  p->type = fz_type(e, fz_byte(in));
  p->type_set = 1;
  uint8_t flags = fz_byte(in);
  uint16_t count = fz_u16(in);
  if (flags & 1) p->count = count;
  p->length_prefix = (flags >> 1) & 1;
  p->lsb_first = (flags >> 2) & 1;
  p->binary = (flags >> 3) & 1;
  uint8_t w = fz_byte(in);
  p->bit_width = p->type == PQ_BOOLEAN ? 1 : w % 33;
  p->type_length = 1 + fz_byte(in) % 24;
  if (e == PQ_DELTA_BINARY_PACKED || e == PQ_DELTA_LENGTH_BYTE_ARRAY ||
      e == PQ_DELTA_BYTE_ARRAY) {
    p->block_size = 128 * (1 + (flags >> 4) % 4);
    p->miniblocks = 1 << ((flags >> 6) % 3);
  }
  if (e == PQ_ALP) {
    p->vector_size = (int64_t)8 << ((flags >> 4) % 13);
    if (w & 0x80) {
      p->exponent = (w & 0x7f) % (p->type == PQ_DOUBLE ? 19 : 11);
      p->factor = p->type_length % (p->exponent + 1);
    }
  }
}

/* Reads what a file holds, as the SQL functions would, one way of three
** (FZ_PAGES, FZ_ENTRIES, FZ_ROWS, as the caller picks from the input, so
** that an execution does one of them): the pages of every chunk, the
** entries of every column, or the rows as JSON, each bounded (64 pages,
** FUZZ_MAX_VALUES entries, 64 KiB of JSON) so that a small input cannot ask
** for much. */
enum { FZ_PAGES, FZ_ENTRIES, FZ_ROWS, FZ_TABLE };
/* What the parquet table does with a file: bounds from statistics and
** the page index, bloom filters, each top-level field read as cells after
** skipping rows, the constants compared taken from the input. */
static inline void fz_read_table(const pq_file *f, const uint8_t *buf,
                                 size_t len) {
  const pq_file_meta *m = pq_file_metadata(f);
  pq_error err;
  pq_cell v;
  memset(&v, 0, sizeof v);
  v.kind = (int)(len % 5);
  int64_t x = len > 8 ? (int64_t)pq_load64(buf + len - 8) : 0;
  if (v.kind == PQ_CELL_INT) v.i = x; /* i, r and p share their place */
  if (v.kind == PQ_CELL_REAL) v.r = (double)x / 3;
  if (v.kind == PQ_CELL_TEXT || v.kind == PQ_CELL_BLOB) v.p = buf;
  v.n = len < 16 ? len : 16;
  int64_t skip = len > 9 ? buf[len - 9] : 0;
  for (uint32_t g = 0; g < m->n_row_groups && g < 16; g++) {
    for (uint32_t c = 0; c < pq_file_leaf_count(f) && c < 64; c++) {
      pq_bounds b;
      pq_chunk_bounds(f, g, c, (int)(len & 1), &b);
      for (int op = PQ_OP_EQ; op <= PQ_OP_NOTNULL; op++)
        (void)pq_bounds_may_match(&b, op, &v);
      pq_column_index *ci = NULL;
      pq_offset_index *oi = NULL;
      if (pq_column_index_read(f, g, c, &ci, &err) == PQ_OK && ci) {
        for (uint32_t p = 0; p < ci->n_pages && p < 1024; p++) {
          pq_page_bounds(f, c, ci, p, -1, 0, &b);
          (void)pq_bounds_may_match(&b, PQ_OP_LT, &v);
        }
      }
      (void)pq_offset_index_read(f, g, c, &oi, &err);
      pq_column_index_free(ci);
      pq_offset_index_free(oi);
      pq_bloom bloom;
      int present;
      uint64_t h;
      if (pq_bloom_read(f, g, c, &bloom, &present, &err) == PQ_OK && present &&
          pq_bloom_hash_cell(pq_file_leaf(f, c), &v, &h) > 0)
        (void)pq_bloom_check(&bloom, h);
    }
    const pq_schema_node *root = pq_file_schema(f);
    for (uint32_t i = 0; i < root->n_children && i < 64; i++) {
      pq_field_reader *r;
      if (pq_field_reader_open(&r, f, g, root->children[i], (int)(len & 1),
                               (size_t)1 << 20, &err) != PQ_OK)
        continue;
      pq_cell cells[256];
      int32_t entry[256];
      size_t n, total = 0;
      if (pq_field_reader_skip(r, skip, &err) == PQ_OK) {
        /* A cell from a dictionary entry is that entry's cell. */
        while (pq_field_reader_read_entries(r, cells, entry, 256, &n, &err) ==
                   PQ_OK &&
               n && (total += n) < FUZZ_MAX_VALUES) {
          size_t ne;
          uint64_t id;
          const pq_cell *ent = pq_field_reader_entries(r, &ne, &id);
          for (size_t k = 0; k < n; k++) {
            (void)pq_cell_compare(&cells[k], &v);
            if (entry[k] < 0) continue;
            if (!ent || (size_t)entry[k] >= ne ||
                pq_cell_compare(&cells[k], &ent[entry[k]]) != 0 ||
                cells[k].kind != ent[entry[k]].kind)
              abort();
          }
        }
      }
      pq_field_reader_free(r);
    }
  }
}

static inline void fz_read_file(const uint8_t *buf, size_t len, int how) {
  pq_file *f;
  pq_error err;
  if (pq_file_open(&f, buf, len, &err) != PQ_OK) return;
  const pq_file_meta *m = pq_file_metadata(f);
  size_t limit = (size_t)1 << 20; /* what a page may decompress to */
  if (how == FZ_TABLE) {
    fz_read_table(f, buf, len);
    pq_file_free(f);
    return;
  }
  for (uint32_t g = 0; how != FZ_ROWS && g < m->n_row_groups; g++) {
    for (uint32_t c = 0; c < pq_file_leaf_count(f); c++) {
      pq_page_reader *r;
      if (how == FZ_PAGES &&
          pq_page_reader_open(&r, f, g, c, limit, &err) == PQ_OK) {
        pq_page page;
        int got, pages = 0;
        while (pages++ < 64 &&
               pq_page_reader_next(r, &page, &got, &err) == PQ_OK && got) {
          char opts[256];
          pq_page_value_options(&page, pq_file_leaf(f, c)->elem->type, opts,
                                sizeof opts);
        }
        pq_page_reader_free(r);
      }
      pq_column_reader *cr;
      if (how == FZ_ENTRIES &&
          pq_column_reader_open(&cr, f, g, c, limit, &err) == PQ_OK) {
        static uint8_t vals[256 * 64];
        uint16_t rep[256], def[256];
        size_t n, nv, total = 0;
        const pq_schema_node *leaf = pq_file_leaf(f, c);
        size_t vs = pq_value_size(leaf->elem->type, leaf->elem->type_length);
        size_t max = vs && vs <= 64 ? 256 : 1;
        if (vs <= sizeof vals)
          while (pq_column_reader_read(cr, max, rep, def, vals, &n, &nv,
                                       &err) == PQ_OK &&
                 n && (total += n) < FUZZ_MAX_VALUES) {
          }
        pq_column_reader_free(cr);
      }
    }
  }
  if (how == FZ_ROWS) {
    pq_buf json;
    pq_buf_init(&json);
    pq_file_to_json(f, (size_t)64 << 10, &json, &err);
    pq_buf_free(&json);
  }
  pq_file_free(f);
}

#endif
