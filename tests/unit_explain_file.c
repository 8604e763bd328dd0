/*
** unit_explain_file.c -- the explainer of files and pages
** (src/explain/explain_file.c, src/explain/explain_thrift.c).
**
**   1. a small file written by the writer, row by row: offsets, lengths,
**      paths, values, notes
**   2. every file of ../shared/parquet-testing (data/ and bad_data/): the
**      walk ends, its rows are in byte order and never overlap in part,
**      every byte of a file that opens is in some row, and the walk ends
**      cleanly or with one error row, the last; files the reader reads
**      end cleanly, files it rejects end in its own message
**   3. every truncation and many byte changes of written and real files,
**      and of pages alone: the same rules, and the walk ends in the
**      words with which the reader (and a decoder of the values)
**      rejects the bytes; never a crash (the sanitizer build checks that)
**   4. pages alone: headers from the files, whole pages, and the same
**      rows as the file's walk gives them
**   5. the Thrift walker's faults: deep nesting, bad field types, ids
**
** Run from the root of the repository (the files are found relative to
** it).  Prints a line per failure starting with "!" and ends with
** "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200809L /* strdup, opendir */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h" /* pq_page_header_read: the reader's words */
#include "footer.h"

#define CHECK_FILES
#include "check.h"


/* ---- The invariants of a walk -------------------------------------------- */

typedef struct walk {
  uint64_t rows;
  int faults;     /* rows with fault set */
  int fault_last; /* the fault row was the last */
  char fault_note[512];
  uint64_t fault_at;
  int order_ok;     /* offsets never go back */
  int overlap_ok;   /* a row starts after the rows before end, or lies
                    ** inside them */
  int bounds_ok;    /* every row inside the buffer */
  int gaps;         /* bytes before a row that no row covers */
  uint64_t covered; /* the end of the bytes covered */
  char bad[600];    /* the first row that broke a rule */
} walk;

static void note_bad(walk *w, const pq_field *f, const char *why) {
  if (w->bad[0]) return;
  snprintf(w->bad, sizeof w->bad, "%s: row %llu at %llu+%llu %s", why,
           (unsigned long long)w->rows, (unsigned long long)f->offset,
           (unsigned long long)f->length, f->path);
}

/* Walks x to its end, checking every row against buf[0..len). */
static void run_walk(pq_explainer *x, size_t len, walk *w) {
  memset(w, 0, sizeof *w);
  w->order_ok = w->overlap_ok = w->bounds_ok = 1;
  pq_field *f = malloc(sizeof *f);
  uint64_t last = 0;
  while (pq_explainer_next(x, f)) {
    if (w->faults) w->fault_last = 0;
    w->rows++;
    if (f->within) {
      /* A row of a page's body decompressed: within those bytes. */
      if (f->offset > f->within_len ||
          f->length > f->within_len - f->offset) {
        w->bounds_ok = 0;
        note_bad(w, f, "out of the bytes decompressed");
      }
      if (f->fault) {
        w->faults++;
        w->fault_last = 1;
        w->fault_at = f->offset;
        snprintf(w->fault_note, sizeof w->fault_note, "%s", f->note);
        w->covered = len;
      }
      continue;
    }
    if (f->offset > len || f->length > len - f->offset) {
      if (!f->fault || f->offset > len) {
        w->bounds_ok = 0;
        note_bad(w, f, "out of bounds");
      }
    }
    if (f->offset < last) {
      w->order_ok = 0;
      note_bad(w, f, "out of order");
    }
    last = f->offset;
    if (f->fault) {
      w->faults++;
      w->fault_last = 1;
      w->fault_at = f->offset;
      snprintf(w->fault_note, sizeof w->fault_note, "%s", f->note);
      if (f->offset > w->covered) w->gaps++;
      w->covered = len;
      continue;
    }
    uint64_t end = f->offset + f->length;
    if (f->offset > w->covered) {
      w->gaps++;
      note_bad(w, f, "a gap before");
    } else if (f->offset < w->covered && end > w->covered) {
      w->overlap_ok = 0;
      note_bad(w, f, "overlaps in part");
    }
    if (end > w->covered) w->covered = end;
  }
  free(f);
}

/* ---- The pages of a file, as the reader finds them ---------------------- */

/* A page of a file, as the reader finds it. */
typedef struct page_ref {
  uint32_t rg, col, k;
  size_t offset, header_size, size;
  pq_page_context c;
  int dict; /* index in the dictionaries, or -1 */
  char name[128]; /* the column's path */
} page_ref;

typedef struct page_list {
  page_ref *p;
  size_t n, cap;
  uint8_t **dicts;
  size_t *dict_len;
  size_t ndicts;
} page_list;

static int by_offset(const void *a, const void *b) {
  const page_ref *p = a, *q = b;
  return p->offset < q->offset ? -1 : p->offset > q->offset;
}

static void list_pages(const uint8_t *buf, size_t len, page_list *l) {
  memset(l, 0, sizeof *l);
  pq_file *f;
  pq_error err;
  if (pq_file_open(&f, buf, len, &err)) return;
  const pq_file_meta *m = pq_file_metadata(f);
  for (uint32_t g = 0; g < m->n_row_groups; g++) {
    for (uint32_t c = 0; c < pq_file_leaf_count(f); c++) {
      pq_page_reader *r;
      if (pq_page_reader_open(&r, f, g, c, (size_t)1 << 30, &err)) continue;
      const pq_schema_node *leaf = pq_file_leaf(f, c);
      pq_page p;
      int got;
      int dict = -1;
      for (uint32_t k = 0;; k++) {
        if (pq_page_reader_next(r, &p, &got, &err) || !got) break;
        if (p.page_type == PQ_DICTIONARY_PAGE) {
          const pq_bytes *d = pq_page_reader_dictionary(r, NULL);
          l->dicts = realloc(l->dicts, (l->ndicts + 1) * sizeof *l->dicts);
          l->dict_len =
              realloc(l->dict_len, (l->ndicts + 1) * sizeof *l->dict_len);
          l->dicts[l->ndicts] = malloc(d->len + 1);
          memcpy(l->dicts[l->ndicts], d->ptr, d->len);
          l->dict_len[l->ndicts] = d->len;
          dict = (int)l->ndicts++;
        }
        if (l->n == l->cap) {
          l->cap = l->cap ? 2 * l->cap : 64;
          l->p = realloc(l->p, l->cap * sizeof *l->p);
        }
        page_ref *e = &l->p[l->n++];
        e->rg = g;
        e->col = c;
        e->k = k;
        e->offset = (size_t)p.offset;
        e->header_size = p.header_size;
        e->size = p.header_size + (size_t)p.compressed_size;
        pq_page_context_init(&e->c);
        e->c.type_set = 1;
        e->c.type = leaf->elem->type;
        e->c.type_length = leaf->elem->type_length;
        e->c.max_def = leaf->max_def;
        e->c.max_rep = leaf->max_rep;
        e->c.codec = (pq_codec)pq_page_reader_codec(r);
        e->c.codec_set = 1;
        e->dict = dict;
        snprintf(e->name, sizeof e->name, "%s", leaf->path ? leaf->path : "");
      }
      pq_page_reader_free(r);
    }
  }
  pq_file_free(f);
  if (l->n) qsort(l->p, l->n, sizeof *l->p, by_offset);
}

static void free_pages(page_list *l) {
  for (size_t i = 0; i < l->ndicts; i++) free(l->dicts[i]);
  free(l->dicts);
  free(l->dict_len);
  free(l->p);
}

/* ---- 1. A small file, row by row ----------------------------------------- */

typedef struct want {
  uint64_t offset, length;
  const char *path;
  const char *bits;   /* NULL: not checked */
  const char *labels; /* NULL: not checked */
  int kind;
  int64_t i;        /* PQ_FV_INT / UINT; PQ_FV_BYTES: the length of
                    ** text, when not strlen(text) */
  const char *text; /* PQ_FV_BYTES */
  const char *note; /* NULL: not checked */
} want;

static void check_rows(const char *what, pq_explainer *x, const want *w,
                       size_t n) {
  pq_field *f = malloc(sizeof *f);
  size_t i = 0;
  for (; i < n && pq_explainer_next(x, f); i++) {
    const want *e = &w[i];
    CHECK(f->offset == e->offset && f->length == e->length,
          "%s row %zu (%s): at %llu+%llu, expected %llu+%llu", what, i, e->path,
          (unsigned long long)f->offset, (unsigned long long)f->length,
          (unsigned long long)e->offset, (unsigned long long)e->length);
    CHECK(strcmp(f->path, e->path) == 0, "%s row %zu: path '%s', expected '%s'",
          what, i, f->path, e->path);
    if (e->bits) {
      CHECK(strcmp(f->bits, e->bits) == 0,
            "%s row %zu (%s): bits '%s', expected '%s'", what, i, e->path,
            f->bits, e->bits);
    }
    if (e->labels) {
      CHECK(strcmp(f->labels, e->labels) == 0,
            "%s row %zu (%s): labels '%s', expected '%s'", what, i, e->path,
            f->labels, e->labels);
    }
    CHECK(f->kind == e->kind, "%s row %zu (%s): value kind %d, expected %d",
          what, i, e->path, f->kind, e->kind);
    if (e->kind == PQ_FV_INT && f->kind == PQ_FV_INT) {
      CHECK(f->i == e->i, "%s row %zu (%s): value %lld, expected %lld", what, i,
            e->path, (long long)f->i, (long long)e->i);
    }
    if (e->kind == PQ_FV_UINT && f->kind == PQ_FV_UINT) {
      CHECK(f->u == (uint64_t)e->i,
            "%s row %zu (%s): value %llu, expected %lld", what, i, e->path,
            (unsigned long long)f->u, (long long)e->i);
    }
    if (e->kind == PQ_FV_BYTES && f->kind == PQ_FV_BYTES) {
      size_t tlen = e->i ? (size_t)e->i : strlen(e->text);
      CHECK(f->nbytes == tlen && memcmp(f->bytes, e->text, f->nbytes) == 0,
            "%s row %zu (%s): value '%.*s', expected '%s'", what, i, e->path,
            (int)f->nbytes, (const char *)f->bytes, e->text);
    }
    if (e->note) {
      CHECK(strcmp(f->note, e->note) == 0,
            "%s row %zu (%s): note\n!   '%s', expected\n!   '%s'", what, i,
            e->path, f->note, e->note);
    }
    CHECK(!f->fault, "%s row %zu (%s): a fault: %s", what, i, e->path, f->note);
  }
  CHECK(i == n, "%s: %zu rows, expected %zu", what, i, n);
  CHECK(!pq_explainer_next(x, f), "%s: a row after the last: %s %s", what,
        f->path, f->note);
  free(f);
}

/* The rows, then a last row that says msg, at `at`. */
static void check_rows_then_fault(const char *what, pq_explainer *x,
                                  const want *w, size_t n, const char *msg,
                                  uint64_t at) {
  pq_field *f = malloc(sizeof *f);
  for (size_t i = 0; i < n; i++) {
    if (!pq_explainer_next(x, f)) {
      CHECK(0, "%s: %zu rows, expected %zu", what, i, n);
      free(f);
      return;
    }
    const want *e = &w[i];
    CHECK(f->offset == e->offset && f->length == e->length &&
              strcmp(f->path, e->path) == 0 && f->kind == e->kind &&
              (!e->bits || strcmp(f->bits, e->bits) == 0) &&
              (!e->labels || strcmp(f->labels, e->labels) == 0) &&
              (!e->note || strcmp(f->note, e->note) == 0) &&
              (e->kind != PQ_FV_INT || f->i == e->i),
          "%s row %zu: %llu+%llu %s [%s|%s] %s\n!   expected %llu+%llu %s "
          "%s",
          what, i, (unsigned long long)f->offset, (unsigned long long)f->length,
          f->path, f->bits, f->labels, f->note, (unsigned long long)e->offset,
          (unsigned long long)e->length, e->path, e->note ? e->note : "");
  }
  int got = pq_explainer_next(x, f);
  CHECK(got && f->fault && strcmp(f->note, msg) == 0 && f->offset == at &&
            strcmp(f->path, "error") == 0,
        "%s: the last row %s at %llu: %s", what, got ? f->path : "(none)",
        (unsigned long long)f->offset, got ? f->note : "");
  CHECK(!pq_explainer_next(x, f), "%s: a row after the error", what);
  free(f);
}

/* The file SELECT parquet_file(v, 'PLAIN', 'INT32') FROM (VALUES (1),(2))
** writes, made the same way here. */
static void small_file(pq_buf *out) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = PQ_PLAIN;
  p.type = PQ_INT32;
  p.type_set = 1;
  pq_write_options o;
  pq_write_options_init(&o);
  pq_writer *w;
  pq_error err;
  int32_t v[2] = {1, 2};
  pq_buf_init(out);
  int rc = pq_writer_open(&w, &p, &o, &err);
  if (rc == PQ_OK) rc = pq_writer_put(w, v, NULL, 2, &err);
  if (rc == PQ_OK) rc = pq_writer_finish(w, out, &err);
  CHECK(rc == PQ_OK, "writing the small file: %s", err.msg);
  pq_writer_free(w);
}

#define PG "row_groups[0].columns[value].pages[0]."
#define CM "footer.row_groups[0].columns[0].meta_data."
#define NOV PQ_FV_NONE, 0, NULL
#define INT(v) PQ_FV_INT, v, NULL
#define TXT(s) PQ_FV_BYTES, 0, s
#define BIN(s, n) PQ_FV_BYTES, n, s

static const want small_rows[] = {
    {0, 4, "magic", "", "", TXT("PAR1"),
     "'PAR1': every Parquet file begins with these 4 bytes"},
    {4, 2, PG "header.type", "00010101", "ddddtttt", INT(0),
     "field 1 (delta +1), i32, zigzag varint 0x00 = 0: DATA_PAGE"},
    {6, 2, PG "header.uncompressed_page_size", "00010101", "ddddtttt", INT(14),
     "field 2 (delta +1), i32, zigzag varint 0x1C = 14"},
    {8, 2, PG "header.compressed_page_size", NULL, NULL, INT(14),
     "field 3 (delta +1), i32, zigzag varint 0x1C = 14"},
    {10, 6, PG "header.crc", NULL, NULL, INT(1223082310),
     "field 4 (delta +1), i32, zigzag varint 0x8C 0x85 0xB6 0x8E 0x09 = "
     "1223082310"},
    {16, 1, PG "header.data_page_header", "00011100", "ddddtttt", NOV,
     "field 5 (delta +1), struct DataPageHeader: its fields follow, then a "
     "stop byte"},
    {17, 2, PG "header.data_page_header.num_values", NULL, NULL, INT(2),
     "field 1 (delta +1), i32, zigzag varint 0x04 = 2"},
    {19, 2, PG "header.data_page_header.encoding", NULL, NULL, INT(0),
     "field 2 (delta +1), i32, zigzag varint 0x00 = 0: PLAIN"},
    {21, 2, PG "header.data_page_header.definition_level_encoding", NULL, NULL,
     INT(3), "field 3 (delta +1), i32, zigzag varint 0x06 = 3: RLE"},
    {23, 2, PG "header.data_page_header.repetition_level_encoding", NULL, NULL,
     INT(3), "field 4 (delta +1), i32, zigzag varint 0x06 = 3: RLE"},
    {25, 1, PG "header.data_page_header.statistics", NULL, NULL, NOV,
     "field 5 (delta +1), struct Statistics: its fields follow, then a stop "
     "byte"},
    {26, 2, PG "header.data_page_header.statistics.null_count", "00110110",
     "ddddtttt", INT(0), "field 3 (delta +3), i64, zigzag varint 0x00 = 0"},
    {28, 6, PG "header.data_page_header.statistics.max_value", "00101000",
     "ddddtttt", BIN("\x02\x00\x00\x00", 4),
     "field 5 (delta +2), binary, ULEB128 length 0x04 = 4: X'02000000'"},
    {34, 6, PG "header.data_page_header.statistics.min_value", NULL, NULL,
     BIN("\x01\x00\x00\x00", 4),
     "field 6 (delta +1), binary, ULEB128 length 0x04 = 4: X'01000000'"},
    {40, 1, PG "header.data_page_header.statistics.stop", "00000000", "", NOV,
     "0x00: stop, the end of Statistics"},
    {41, 1, PG "header.data_page_header.stop", NULL, NULL, NOV,
     "0x00: stop, the end of DataPageHeader"},
    {42, 1, PG "header.stop", NULL, NULL, NOV,
     "0x00: stop, the end of PageHeader"},
    {43, 4, PG "def_levels.length", NULL, NULL, PQ_FV_UINT, 2, NULL,
     "4 bytes, little endian: the runs take 2 bytes"},
    {47, 1, PG "def_levels.run[0].header", NULL, NULL, PQ_FV_UINT, 4, NULL,
     "ULEB128: 0x04 = 4, even: an RLE run of 4 >> 1 = 2 copies of one value"},
    {48, 1, PG "def_levels.run[0].value", NULL, NULL, PQ_FV_UINT, 1, NULL,
     NULL},
    {49, 4, PG "values.value[0]", NULL, NULL, INT(1),
     "4 bytes, little endian: 1"},
    {53, 4, PG "values.value[1]", NULL, NULL, INT(2),
     "4 bytes, little endian: 2"},
    {57, 2, "footer.version", "00010101", "ddddtttt", INT(1),
     "field 1 (delta +1), i32, zigzag varint 0x02 = 1"},
    {59, 2, "footer.schema", "00011001 00101100", "ddddtttt sssseeee",
     PQ_FV_UINT, 2, NULL,
     "field 2 (delta +1), list; list header 0x2C: 2 elements of type "
     "SchemaElement"},
    {61, 8, "footer.schema[0].name", NULL, NULL, TXT("schema"),
     "field 4 (delta +4), binary, ULEB128 length 0x06 = 6: 'schema'"},
    {69, 2, "footer.schema[0].num_children", NULL, NULL, INT(1), NULL},
    {71, 1, "footer.schema[0].stop", NULL, NULL, NOV,
     "0x00: stop, the end of SchemaElement"},
    {72, 2, "footer.schema[1].type", NULL, NULL, INT(1),
     "field 1 (delta +1), i32, zigzag varint 0x02 = 1: INT32"},
    {74, 2, "footer.schema[1].repetition_type", NULL, NULL, INT(1),
     "field 3 (delta +2), i32, zigzag varint 0x02 = 1: OPTIONAL"},
    {76, 7, "footer.schema[1].name", NULL, NULL, TXT("value"), NULL},
    {83, 1, "footer.schema[1].stop", NULL, NULL, NOV, NULL},
    {84, 2, "footer.num_rows", NULL, NULL, INT(2),
     "field 3 (delta +1), i64, zigzag varint 0x04 = 2"},
    {86, 2, "footer.row_groups", NULL, NULL, PQ_FV_UINT, 1, NULL,
     "field 4 (delta +1), list; list header 0x1C: 1 element of type RowGroup"},
    {88, 2, "footer.row_groups[0].columns", NULL, NULL, PQ_FV_UINT, 1, NULL,
     NULL},
    {90, 2, "footer.row_groups[0].columns[0].file_offset", NULL, NULL, INT(4),
     NULL},
    {92, 1, "footer.row_groups[0].columns[0].meta_data", NULL, NULL, NOV,
     "field 3 (delta +1), struct ColumnMetaData: its fields follow, then a "
     "stop byte"},
    {93, 2, CM "type", NULL, NULL, INT(1), NULL},
    {95, 2, CM "encodings", NULL, NULL, PQ_FV_UINT, 2, NULL,
     "field 2 (delta +1), list; list header 0x25: 2 elements of type i32"},
    {97, 1, CM "encodings[0]", "", "", INT(0),
     "i32, zigzag varint 0x00 = 0: PLAIN"},
    {98, 1, CM "encodings[1]", NULL, NULL, INT(3),
     "i32, zigzag varint 0x06 = 3: RLE"},
    {99, 2, CM "path_in_schema", NULL, NULL, PQ_FV_UINT, 1, NULL, NULL},
    {101, 6, CM "path_in_schema[0]", NULL, NULL, TXT("value"),
     "binary, ULEB128 length 0x05 = 5: 'value'"},
    {107, 2, CM "codec", NULL, NULL, INT(0),
     "field 4 (delta +1), i32, zigzag varint 0x00 = 0: UNCOMPRESSED"},
    {109, 2, CM "num_values", NULL, NULL, INT(2), NULL},
    {111, 2, CM "total_uncompressed_size", NULL, NULL, INT(53), NULL},
    {113, 2, CM "total_compressed_size", NULL, NULL, INT(53), NULL},
    {115, 2, CM "data_page_offset", NULL, NULL, INT(4),
     "field 9 (delta +2), i64, zigzag varint 0x08 = 4"},
    {117, 1, CM "statistics", NULL, NULL, NOV, NULL},
    {118, 2, CM "statistics.null_count", NULL, NULL, INT(0), NULL},
    {120, 6, CM "statistics.max_value", NULL, NULL, BIN("\x02\x00\x00\x00", 4),
     NULL},
    {126, 6, CM "statistics.min_value", NULL, NULL, BIN("\x01\x00\x00\x00", 4),
     NULL},
    {132, 1, CM "statistics.stop", NULL, NULL, NOV, NULL},
    {133, 2, CM "encoding_stats", NULL, NULL, PQ_FV_UINT, 1, NULL,
     "field 13 (delta +1), list; list header 0x1C: 1 element of type "
     "PageEncodingStats"},
    {135, 2, CM "encoding_stats[0].page_type", NULL, NULL, INT(0),
     "field 1 (delta +1), i32, zigzag varint 0x00 = 0: DATA_PAGE"},
    {137, 2, CM "encoding_stats[0].encoding", NULL, NULL, INT(0),
     "field 2 (delta +1), i32, zigzag varint 0x00 = 0: PLAIN"},
    {139, 2, CM "encoding_stats[0].count", NULL, NULL, INT(1),
     "field 3 (delta +1), i32, zigzag varint 0x02 = 1"},
    {141, 1, CM "encoding_stats[0].stop", NULL, NULL, NOV,
     "0x00: stop, the end of PageEncodingStats"},
    {142, 1, CM "size_statistics", NULL, NULL, NOV,
     "field 16 (delta +3), struct SizeStatistics: its fields follow, then a "
     "stop byte"},
    /* two entries, as the column's maximum definition level is 1: none
    ** at level 0 (no NULL), both values at 1 */
    {143, 2, CM "size_statistics.definition_level_histogram", NULL, NULL,
     PQ_FV_UINT, 2, NULL,
     "field 3 (delta +3), list; list header 0x26: 2 elements of type i64"},
    {145, 1, CM "size_statistics.definition_level_histogram[0]", NULL, NULL,
     INT(0), "i64, zigzag varint 0x00 = 0"},
    {146, 1, CM "size_statistics.definition_level_histogram[1]", NULL, NULL,
     INT(2), "i64, zigzag varint 0x04 = 2"},
    {147, 1, CM "size_statistics.stop", NULL, NULL, NOV,
     "0x00: stop, the end of SizeStatistics"},
    {148, 1, CM "stop", NULL, NULL, NOV,
     "0x00: stop, the end of ColumnMetaData"},
    {149, 1, "footer.row_groups[0].columns[0].stop", NULL, NULL, NOV,
     "0x00: stop, the end of ColumnChunk"},
    {150, 2, "footer.row_groups[0].total_byte_size", NULL, NULL, INT(53), NULL},
    {152, 2, "footer.row_groups[0].num_rows", NULL, NULL, INT(2), NULL},
    {154, 2, "footer.row_groups[0].file_offset", NULL, NULL, INT(4), NULL},
    {156, 2, "footer.row_groups[0].total_compressed_size", NULL, NULL, INT(53),
     NULL},
    {158, 1, "footer.row_groups[0].stop", NULL, NULL, NOV,
     "0x00: stop, the end of RowGroup"},
    {159, 34, "footer.created_by", NULL, NULL,
     TXT("parquet for SQLite version " PQ_VERSION_STRING), NULL},
    {193, 2, "footer.column_orders", NULL, NULL, PQ_FV_UINT, 1, NULL,
     "field 7 (delta +1), list; list header 0x1C: 1 element of type "
     "ColumnOrder"},
    {195, 1, "footer.column_orders[0].TYPE_ORDER", NULL, NULL, NOV,
     "field 1 (delta +1), struct TypeDefinedOrder: its fields follow, then a "
     "stop byte"},
    {196, 1, "footer.column_orders[0].TYPE_ORDER.stop", NULL, NULL, NOV, NULL},
    {197, 1, "footer.column_orders[0].stop", NULL, NULL, NOV,
     "0x00: stop, the end of ColumnOrder"},
    {198, 1, "footer.stop", NULL, NULL, NOV,
     "0x00: stop, the end of FileMetaData"},
    {199, 4, "footer_length", "10001110 00000000 00000000 00000000", "",
     PQ_FV_UINT, 142, NULL,
     "4 bytes, little endian: the file metadata takes 142 bytes, from offset "
     "57"},
    {203, 4, "end_magic", NULL, NULL, TXT("PAR1"),
     "'PAR1': the file ends as it begins"},
};

static void test_small_file(void) {
  pq_buf b;
  small_file(&b);
  CHECK(b.len == 207, "the small file has %zu bytes, expected 207", b.len);
  pq_explainer *x;
  pq_error err;
  int rc = pq_explainer_open_file(&x, b.data, b.len, &err);
  CHECK(rc == PQ_OK, "open_file: %s", err.msg);
  if (rc == PQ_OK) {
    check_rows("small file", x, small_rows,
               sizeof small_rows / sizeof small_rows[0]);
    pq_explainer_free(x);
  }
  /* Its page alone: the same rows, from offset 0, without the prefix. */
  pq_page_context c;
  pq_page_context_init(&c);
  c.type = PQ_INT32;
  c.type_set = 1;
  c.max_def = 1;
  rc = pq_explainer_open_page(&x, &c, b.data + 4, 53, NULL, 0, &err);
  CHECK(rc == PQ_OK, "open_page: %s", err.msg);
  if (rc == PQ_OK) {
    want rows[21];
    char paths[21][128];
    for (int i = 0; i < 21; i++) {
      rows[i] = small_rows[i + 1];
      rows[i].offset -= 4;
      snprintf(paths[i], sizeof paths[i], "%s", rows[i].path + strlen(PG));
      rows[i].path = paths[i];
    }
    check_rows("small page", x, rows, 21);
    pq_explainer_free(x);
  }
  pq_buf_free(&b);
}

/* ---- 2. Every file of parquet-testing ------------------------------------ */

/* What the reader says of the file: PQ_OK when it opens and every page of
** every chunk reads, else its first message. */
static int read_all(const uint8_t *buf, size_t len, pq_error *err) {
  pq_file *f;
  int rc = pq_file_open(&f, buf, len, err);
  if (rc) return rc;
  const pq_file_meta *m = pq_file_metadata(f);
  for (uint32_t g = 0; g < m->n_row_groups && !rc; g++) {
    for (uint32_t c = 0; c < pq_file_leaf_count(f) && !rc; c++) {
      pq_page_reader *r;
      rc = pq_page_reader_open(&r, f, g, c, (size_t)1 << 30, err);
      if (rc) break;
      pq_page p;
      int got = 1;
      pq_type t = pq_file_leaf(f, c)->elem->type;
      int32_t tl = pq_file_leaf(f, c)->elem->type_length;
      while (!rc) {
        rc = pq_page_reader_next(r, &p, &got, err);
        if (rc || !got) break;
        int data =
            p.page_type == PQ_DATA_PAGE || p.page_type == PQ_DATA_PAGE_V2;
        if (!data && p.page_type != PQ_DICTIONARY_PAGE) continue;
        /* Its values, as parquet_values decodes them. */
        pq_params pp;
        pq_params_init(&pp);
        pp.encoding = data ? (pq_encoding)p.encoding : PQ_PLAIN;
        pp.type = t;
        pp.type_set = 1;
        pp.type_length = tl;
        char opts[96];
        pq_page_value_options(&p, t, opts, sizeof opts);
        pq_params_parse_options(&pp, opts, strlen(opts), err);
        const pq_bytes *d = pq_page_reader_dictionary(r, NULL);
        pq_decoder *dec;
        rc = pq_decoder_open(&dec, &pp, p.values.ptr, p.values.len,
                             data && d ? d->ptr : NULL, d ? d->len : 0, err);
        if (rc == PQ_UNSUPPORTED || rc == PQ_MISUSE) {
          rc = PQ_OK; /* not explained either: a row says so */
          continue;
        }
        uint8_t *vals = malloc(1024 * 64);
        size_t n = 1;
        while (!rc && n) rc = pq_decoder_read(dec, vals, 1024, &n, err);
        free(vals);
        pq_decoder_free(dec);
      }
      pq_page_reader_free(r);
    }
  }
  pq_file_free(f);
  return rc;
}

static int verbose;

static void explain_file(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  size_t len;
  uint8_t *buf = slurp(path, &len);
  CHECK(buf != NULL, "cannot read %s", path);
  if (!buf) return;
  pq_error rerr, err;
  pq_file *f = NULL;
  int opens = pq_file_open(&f, buf, len, &rerr) == PQ_OK;
  pq_file_free(f);
  int rrc = read_all(buf, len, &rerr);
  pq_explainer *x;
  int rc = pq_explainer_open_file(&x, buf, len, &err);
  CHECK(rc == PQ_OK, "%s: open_file: %s", name, err.msg);
  if (rc) {
    free(buf);
    return;
  }
  walk w;
  run_walk(x, len, &w);
  pq_explainer_free(x);
  if (verbose) {
    printf("%-50s %8zu bytes %8llu rows %s%s\n", name, len,
           (unsigned long long)w.rows, w.faults ? "error: " : "clean",
           w.faults ? w.fault_note : "");
  }
  CHECK(w.order_ok && w.overlap_ok && w.bounds_ok, "%s: %s", name, w.bad);
  CHECK(w.faults == 0 || (w.faults == 1 && w.fault_last),
        "%s: %d error rows, the last one last: %d", name, w.faults,
        w.fault_last);
  if (opens) {
    CHECK(w.gaps == 0 && w.covered == len,
          "%s: rows cover %llu of %zu bytes, %d gaps: %s", name,
          (unsigned long long)w.covered, len, w.gaps, w.bad);
  }
  size_t ml = strlen(rerr.msg), nl = strlen(w.fault_note);
  if (rrc == PQ_OK) {
    CHECK(w.faults == 0, "%s: the reader reads it, the walk ends in: %s", name,
          w.fault_note);
  } else if (!opens || strncmp(rerr.msg, "column '", 8) == 0) {
    /* The file's reader: its own words. */
    CHECK(w.faults == 1 && strcmp(w.fault_note, rerr.msg) == 0,
          "%s: the reader says\n!   %s\n! the walk ends in\n!   %s", name,
          rerr.msg, w.faults ? w.fault_note : "(no error)");
  } else {
    /* A decoder's: its words end the note, after where the stream is. */
    CHECK(w.faults == 1 && nl > ml &&
              strcmp(w.fault_note + nl - ml, rerr.msg) == 0,
          "%s: the decoder says\n!   %s\n! the walk ends in\n!   %s", name,
          rerr.msg, w.faults ? w.fault_note : "(no error)");
  }
  free(buf);
}

static void test_all_files(void) {
  const char *dirs[] = {PT "/data", PT "/bad_data"};
  for (int d = 0; d < 2; d++) {
    size_t n;
    char **names = list_dir(dirs[d], &n);
    CHECK(n >= (d ? 8 : 50), "%zu files in %s", n, dirs[d]);
    for (size_t i = 0; i < n; i++) explain_file(dirs[d], names[i]);
    free_names(names, n);
  }
}

/* ---- 3. Truncated and corrupted files ------------------------------------ */

/* The walk w of buf[0..len) ends as the reader reads the file: cleanly
** when it reads every page and value, else in its words (a decoder's end
** the note, after where the stream is). */
static int says_as_reader(const uint8_t *buf, size_t len, const walk *w,
                          char *why, size_t cap) {
  pq_error rerr;
  pq_file *f = NULL;
  int opens = pq_file_open(&f, buf, len, &rerr) == PQ_OK;
  pq_file_free(f);
  int rc = read_all(buf, len, &rerr);
  size_t ml = strlen(rerr.msg), nl = strlen(w->fault_note);
  if (rc == PQ_OK) {
    if (w->faults == 0) return 1;
    snprintf(why, cap, "the reader reads it, the walk ends in: %s",
             w->fault_note);
    return 0;
  }
  if (w->faults != 1) {
    snprintf(why, cap, "the reader says '%s', the walk ends cleanly", rerr.msg);
    return 0;
  }
  if (!opens || strncmp(rerr.msg, "column '", 8) == 0) {
    if (strcmp(w->fault_note, rerr.msg) == 0) return 1;
  } else if (nl > ml && strcmp(w->fault_note + nl - ml, rerr.msg) == 0) {
    return 1;
  }
  if (snprintf(why, cap, "the reader says '%s', the walk '%s'", rerr.msg,
               w->fault_note) < 0) {
    why[0] = 0;
  }
  return 0;
}

/* Explains buf[0..len) and checks what holds of any input: 1 when it
** holds, else 0 with what went wrong in why. */
static int any_input(const uint8_t *buf, size_t len, char *why, size_t cap) {
  pq_explainer *x;
  pq_error err;
  if (pq_explainer_open_file(&x, buf, len, &err)) {
    snprintf(why, cap, "open_file: %s", err.msg);
    return 0;
  }
  walk w;
  run_walk(x, len, &w);
  pq_explainer_free(x);
  if (!(w.order_ok && w.overlap_ok && w.bounds_ok)) {
    snprintf(why, cap, "%s", w.bad);
  } else if (!(w.faults == 0 || (w.faults == 1 && w.fault_last))) {
    snprintf(why, cap, "%d error rows", w.faults);
  } else if (!(w.faults == 1 || (w.gaps == 0 && w.covered == len))) {
    snprintf(why, cap, "a clean walk covers %llu of %zu bytes",
             (unsigned long long)w.covered, len);
  } else if (w.rows > 64 * (uint64_t)len + 16) {
    snprintf(why, cap, "%llu rows for %zu bytes", (unsigned long long)w.rows,
             len);
  } else if (!says_as_reader(buf, len, &w, why, cap)) {
    return 0;
  } else {
    return 1;
  }
  return 0;
}

/* A group of damaged inputs: counts those that break a rule, keeps the
** first's story. */
typedef struct damage {
  size_t tried, broken;
  char first[800];
} damage;

static void try_input(damage *d, const uint8_t *buf, size_t len,
                      const char *what) {
  char why[600];
  d->tried++;
  if (!any_input(buf, len, why, sizeof why) && d->broken++ == 0) {
    snprintf(d->first, sizeof d->first, "%s: %s", what, why);
  }
}

/* A page alone: rows in order, none overlapping in part, at most one
** error row and it the last, every byte in a row when none. */
static void try_page(damage *d, const pq_page_context *c, const uint8_t *buf,
                     size_t len, const uint8_t *dict, size_t dict_len,
                     const char *what) {
  pq_explainer *x;
  pq_error err;
  char why[600] = "";
  d->tried++;
  if (pq_explainer_open_page(&x, c, buf, len, dict, dict_len, &err)) {
    snprintf(why, sizeof why, "open_page: %s", err.msg);
  } else {
    walk w;
    run_walk(x, len, &w);
    pq_explainer_free(x);
    if (!(w.order_ok && w.overlap_ok && w.bounds_ok)) {
      snprintf(why, sizeof why, "%s", w.bad);
    } else if (!(w.faults == 0 || (w.faults == 1 && w.fault_last))) {
      snprintf(why, sizeof why, "%d error rows", w.faults);
    } else if (w.faults == 0 && (w.gaps || w.covered != len)) {
      snprintf(why, sizeof why, "a clean walk covers %llu of %zu bytes",
               (unsigned long long)w.covered, len);
    }
  }
  if (why[0] && d->broken++ == 0) {
    snprintf(d->first, sizeof d->first, "%s: %s", what, why);
  }
}

static void check_damage(const char *group, const damage *d) {
  CHECK(d->tried > 0 && d->broken == 0,
        "%s: %zu of %zu inputs break a rule; "
        "the first: %s",
        group, d->broken, d->tried, d->first);
}

/* A file of each page kind, with levels and a dictionary. */
static void written_file(pq_buf *out, pq_encoding enc, int version,
                         pq_codec codec) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = enc;
  p.type = PQ_BYTE_ARRAY;
  p.type_set = 1;
  pq_write_options o;
  pq_write_options_init(&o);
  o.page_version = version;
  o.codec = codec;
  o.page_values = 4;
  pq_writer *w;
  pq_error err;
  pq_bytes v[8];
  uint8_t present[10] = {1, 1, 0, 1, 1, 1, 0, 1, 1, 1};
  const char *words[8] = {"apple", "pear", "apple", "fig",
                          "fig",   "kiwi", "apple", "apricot"};
  for (int i = 0; i < 8; i++) {
    v[i].ptr = (const uint8_t *)words[i];
    v[i].len = strlen(words[i]);
  }
  pq_buf_init(out);
  int rc = pq_writer_open(&w, &p, &o, &err);
  if (rc == PQ_OK) rc = pq_writer_put(w, v, present, 10, &err);
  if (rc == PQ_OK) rc = pq_writer_finish(w, out, &err);
  CHECK(rc == PQ_OK, "writing a file: %s", err.msg);
  pq_writer_free(w);
}

static void test_damage(void) {
  static const struct {
    pq_encoding enc;
    int version;
    pq_codec codec;
  } kinds[] = {
      {PQ_RLE_DICTIONARY, 1, PQ_UNCOMPRESSED},
      {PQ_RLE_DICTIONARY, 2, PQ_UNCOMPRESSED},
      {PQ_DELTA_BYTE_ARRAY, 2, PQ_SNAPPY},
      {PQ_DELTA_LENGTH_BYTE_ARRAY, 1, PQ_UNCOMPRESSED},
  };
  char what[160], group[160];
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    pq_buf b;
    written_file(&b, kinds[k].enc, kinds[k].version, kinds[k].codec);
    /* Whole, it explains cleanly. */
    char why[600];
    CHECK(any_input(b.data, b.len, why, sizeof why), "file %zu: %s", k, why);
    /* Every truncation. */
    damage d = {0, 0, ""};
    for (size_t n = 0; n < b.len; n++) {
      snprintf(what, sizeof what, "cut to %zu bytes", n);
      try_input(&d, b.data, n, what);
    }
    snprintf(group, sizeof group, "file %zu, every truncation", k);
    check_damage(group, &d);
    /* Every byte changed, three ways. */
    memset(&d, 0, sizeof d);
    uint8_t *c = malloc(b.len);
    static const uint8_t flips[] = {0xFF, 0x01, 0x80};
    for (size_t i = 0; i < b.len; i++) {
      for (size_t j = 0; j < sizeof flips; j++) {
        memcpy(c, b.data, b.len);
        c[i] ^= flips[j];
        snprintf(what, sizeof what, "byte %zu ^ 0x%02X", i, flips[j]);
        try_input(&d, c, b.len, what);
      }
    }
    snprintf(group, sizeof group, "file %zu, every byte changed", k);
    check_damage(group, &d);
    free(c);
    pq_buf_free(&b);
  }
  /* Real files: cut every 97 bytes, and bytes changed every 13. */
  static const char *const names[] = {
      "data/alltypes_plain.parquet",
      "data/datapage_v2.snappy.parquet",
      "data/data_index_bloom_encoding_stats.parquet",
      "data/nested_lists.snappy.parquet",
      "data/delta_byte_array.parquet",
      "data/rle_boolean_encoding.parquet",
      "data/byte_array_decimal.parquet",
      "data/column_chunk_key_value_metadata.parquet"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    char path[256];
    snprintf(path, sizeof path, PT "/%s", names[k]);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    CHECK(buf != NULL, "cannot read %s", path);
    if (!buf) continue;
    damage d = {0, 0, ""};
    size_t step = len > 20000 ? 997 : 7;
    for (size_t n = 0; n < len; n += step) {
      snprintf(what, sizeof what, "cut to %zu bytes", n);
      try_input(&d, buf, n, what);
    }
    snprintf(group, sizeof group, "%s, truncations", names[k]);
    check_damage(group, &d);
    memset(&d, 0, sizeof d);
    uint8_t *c = malloc(len);
    size_t cstep = len > 20000 ? 613 : 3;
    for (size_t i = 0; i < len; i += cstep) {
      memcpy(c, buf, len);
      c[i] ^= 0x5A;
      snprintf(what, sizeof what, "byte %zu ^ 0x5A", i);
      try_input(&d, c, len, what);
    }
    snprintf(group, sizeof group, "%s, bytes changed", names[k]);
    check_damage(group, &d);
    free(c);
    free(buf);
  }
  /* Pages alone, cut and changed: the same rules, with their context. */
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    pq_buf b;
    written_file(&b, kinds[k].enc, kinds[k].version, kinds[k].codec);
    page_list l;
    list_pages(b.data, b.len, &l);
    damage d = {0, 0, ""};
    for (size_t i = 0; i < l.n; i++) {
      const page_ref *pr = &l.p[i];
      const uint8_t *dict = pr->dict >= 0 ? l.dicts[pr->dict] : NULL;
      size_t dl = pr->dict >= 0 ? l.dict_len[pr->dict] : 0;
      uint8_t *c = malloc(pr->size + 1);
      for (size_t n = 0; n <= pr->size; n++) {
        snprintf(what, sizeof what, "page %zu cut to %zu bytes", i, n);
        memcpy(c, b.data + pr->offset, n);
        try_page(&d, &pr->c, c, n, dict, dl, what);
      }
      for (size_t j = 0; j < pr->size; j++) {
        memcpy(c, b.data + pr->offset, pr->size);
        c[j] ^= 0xFF;
        snprintf(what, sizeof what, "page %zu, byte %zu ^ 0xFF", i, j);
        try_page(&d, &pr->c, c, pr->size, dict, dl, what);
      }
      free(c);
    }
    snprintf(group, sizeof group, "file %zu, its pages cut and changed", k);
    check_damage(group, &d);
    free_pages(&l);
    pq_buf_free(&b);
  }
  /* The footer in Parquet's encrypted form. */
  pq_buf b;
  small_file(&b);
  memcpy(b.data + b.len - 4, "PARE", 4);
  pq_explainer *x;
  pq_error err;
  if (pq_explainer_open_file(&x, b.data, b.len, &err) == PQ_OK) {
    walk w;
    run_walk(x, b.len, &w);
    pq_explainer_free(x);
    CHECK(w.faults == 1 && w.fault_last &&
              strcmp(w.fault_note,
                     "file: encrypted files are not supported (the footer is "
                     "encrypted: 'PARE')") == 0,
          "PARE: %s", w.fault_note);
  }
  pq_buf_free(&b);
}

/* ---- 4. Pages alone ------------------------------------------------------ */

static int same_row(const pq_field *a, const pq_field *b, uint64_t shift,
                    const char *prefix) {
  size_t pl = strlen(prefix);
  if (a->offset != b->offset + shift || a->length != b->length) return 0;
  if (strncmp(a->path, prefix, pl) != 0 || strcmp(a->path + pl, b->path) != 0)
    return 0;
  /* A compressed body: the file's row names it, the page's tells how it
  ** is decompressed. */
  size_t al = strlen(a->path);
  int compressed = al >= 10 && strcmp(a->path + al - 10, "compressed") == 0;
  if (strcmp(a->bits, b->bits) || strcmp(a->labels, b->labels) ||
      (!compressed && strcmp(a->note, b->note)) || a->kind != b->kind)
    return 0;
  switch (a->kind) {
    case PQ_FV_INT: return a->i == b->i;
    case PQ_FV_UINT: return a->u == b->u;
    case PQ_FV_REAL: return memcmp(&a->r, &b->r, sizeof a->r) == 0;
    case PQ_FV_BYTES:
      return a->nbytes == b->nbytes &&
             (a->nbytes == 0 || memcmp(a->bytes, b->bytes, a->nbytes) == 0);
  }
  return 1;
}

/* The next row of a page alone that the file's walk has too: not one of
** its body decompressed. */
static int next_stored(pq_explainer *x, pq_field *f) {
  int got;
  while ((got = pq_explainer_next(x, f)) && f->within) {
  }
  return got;
}

/* Every page of the file, alone and as a header alone, gives the rows the
** file's walk gives it (and a compressed body's rows decompressed, which
** the file's walk does not give).  One check per file: the first
** difference. */
static void pages_alone(const char *name, const uint8_t *buf, size_t len) {
  page_list l;
  list_pages(buf, len, &l);
  pq_explainer *fx, *px = NULL, *hx = NULL;
  pq_error err;
  if (pq_explainer_open_file(&fx, buf, len, &err)) {
    CHECK(0, "%s: open_file: %s", name, err.msg);
    free_pages(&l);
    return;
  }
  pq_field *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  size_t next = 0, header_rows = 0, page_rows = 0;
  char bad[2400] = "";
  char prefix[256] = "";
  const page_ref *cur = NULL;
  while (!bad[0] && pq_explainer_next(fx, a)) {
    unsigned g, k;
    char col[128];
    int n = 0;
    int in_page = sscanf(a->path, "row_groups[%u].columns[%127[^]]].pages[%u].%n",
                         &g, col, &k, &n) == 3 &&
                  n > 0;
    if (cur && (!in_page || strncmp(a->path, prefix, strlen(prefix)) != 0)) {
      /* The page ended: so must its explainers. */
      if (next_stored(px, b)) {
        snprintf(bad, sizeof bad, "%s: a row past the file's: %s", prefix,
                 b->path);
      } else if (hx && pq_explainer_next(hx, b)) {
        snprintf(bad, sizeof bad, "%s: a header row past the file's: %s",
                 prefix, b->path);
      }
      pq_explainer_free(px);
      pq_explainer_free(hx);
      px = hx = NULL;
      cur = NULL;
    }
    if (!in_page || bad[0]) continue;
    if (!cur) {
      if (next >= l.n) {
        snprintf(bad, sizeof bad, "a page the reader does not list: %s",
                 a->path);
        break;
      }
      cur = &l.p[next++];
      /* The chunk is named by its column's path, or by its index. */
      char index[16];
      snprintf(index, sizeof index, "%u", cur->col);
      if (cur->rg != g || cur->k != k ||
          (strcmp(col, cur->name) != 0 && strcmp(col, index) != 0)) {
        snprintf(bad, sizeof bad,
                 "%s where the reader has page %u of column %u, row group %u",
                 a->path, cur->k, cur->col, cur->rg);
        break;
      }
      snprintf(prefix, sizeof prefix, "row_groups[%u].columns[%s].pages[%u].",
               g, col, k);
      const uint8_t *d = cur->dict >= 0 ? l.dicts[cur->dict] : NULL;
      size_t dl = cur->dict >= 0 ? l.dict_len[cur->dict] : 0;
      if (pq_explainer_open_page(&px, &cur->c, buf + cur->offset, cur->size, d,
                                 dl, &err) ||
          pq_explainer_open_page(&hx, NULL, buf + cur->offset, cur->header_size,
                                 NULL, 0, &err)) {
        snprintf(bad, sizeof bad, "open_page: %s", err.msg);
        break;
      }
    }
    int got = next_stored(px, b);
    page_rows++;
    if (!got || !same_row(a, b, cur->offset, prefix)) {
      snprintf(bad, sizeof bad,
               "the file's row\n!   %llu+%llu %s: %s\n! the page's\n!   "
               "%llu+%llu %s: %s",
               (unsigned long long)a->offset, (unsigned long long)a->length,
               a->path, a->note, (unsigned long long)b->offset,
               (unsigned long long)b->length, got ? b->path : "(none)",
               got ? b->note : "");
      break;
    }
    if (strncmp(a->path + strlen(prefix), "header.", 7) == 0) {
      got = pq_explainer_next(hx, b);
      header_rows++;
      if (!got || !same_row(a, b, cur->offset, prefix)) {
        snprintf(bad, sizeof bad, "the file's row %s, the header's %s", a->path,
                 got ? b->path : "(none)");
      }
    }
  }
  if (!bad[0] && cur) {
    if (next_stored(px, b) || pq_explainer_next(hx, b)) {
      snprintf(bad, sizeof bad, "%s: rows past the file's: %s", prefix,
               b->path);
    }
  }
  if (!bad[0] && next != l.n) {
    snprintf(bad, sizeof bad, "%zu pages walked of %zu", next, l.n);
  }
  CHECK(!bad[0], "%s: %s", name, bad);
  CHECK(l.n == 0 || (header_rows > 0 && page_rows > header_rows),
        "%s: %zu pages, %zu header rows of %zu", name, l.n, header_rows,
        page_rows);
  pq_explainer_free(px);
  pq_explainer_free(hx);
  pq_explainer_free(fx);
  free(a);
  free(b);
  free_pages(&l);
}

static void test_pages_alone(void) {
  size_t n;
  char **names = list_dir(PT "/data", &n);
  for (size_t i = 0; i < n; i++) {
    char path[512];
    snprintf(path, sizeof path, PT "/data/%s", names[i]);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    pq_error err;
    if (buf && read_all(buf, len, &err) == PQ_OK)
      pages_alone(names[i], buf, len);
    free(buf);
  }
  free_names(names, n);
  pq_buf b;
  written_file(&b, PQ_RLE_DICTIONARY, 2, PQ_UNCOMPRESSED);
  pages_alone("written v2", b.data, b.len);
  pq_buf_free(&b);
  written_file(&b, PQ_DELTA_BYTE_ARRAY, 1, PQ_UNCOMPRESSED);
  pages_alone("written v1", b.data, b.len);
  pq_buf_free(&b);
}

/* ---- 5. Thrift faults, in a page header's words -------------------------- */

/* What the reader says of the page header hdr[0..n): "" when it reads. */
static void reader_says(const uint8_t *hdr, size_t n, char *msg, size_t cap) {
  pq_page p;
  int32_t dl = 0, rl = 0;
  const char *missing = NULL;
  pq_error err;
  memset(&p, 0, sizeof p);
  msg[0] = 0;
  if (pq_page_header_read(&p, hdr, n, 0, "page header", &dl, &rl, &missing,
                          &err)) {
    snprintf(msg, cap, "%s", err.msg);
  } else if (missing) {
    snprintf(msg, cap, "page header: the header lacks %s", missing);
  }
}

/* The walk of the page header hdr[0..n) ends in the fault the reader
** reports, where its message says (at the header's end when it names no
** offset), after `rows` rows (-1: any number). */
static void header_fault(const char *what, const uint8_t *hdr, size_t n,
                         int64_t rows) {
  char msg[256];
  reader_says(hdr, n, msg, sizeof msg);
  CHECK(msg[0] != 0, "%s: the reader reads it", what);
  const char *o = strstr(msg, "at offset ");
  uint64_t at = o ? strtoull(o + 10, NULL, 10) : UINT64_MAX;
  pq_explainer *x;
  pq_error err;
  if (pq_explainer_open_page(&x, NULL, hdr, n, NULL, 0, &err)) {
    CHECK(0, "%s: open_page: %s", what, err.msg);
    return;
  }
  walk w;
  run_walk(x, n, &w);
  pq_explainer_free(x);
  CHECK(w.faults == 1 && w.fault_last, "%s: %d faults", what, w.faults);
  CHECK(strcmp(w.fault_note, msg) == 0,
        "%s: the reader says '%s', the walk '%s'", what, msg, w.fault_note);
  CHECK(at == UINT64_MAX || w.fault_at == at,
        "%s: the fault row at %llu, the message says %llu", what,
        (unsigned long long)w.fault_at, (unsigned long long)at);
  CHECK(rows < 0 || w.rows == (uint64_t)rows + 1,
        "%s: %llu rows before the fault, expected %lld", what,
        (unsigned long long)(w.rows - 1), (long long)rows);
  CHECK(w.order_ok && w.overlap_ok && w.bounds_ok, "%s: %s", what, w.bad);
}

/* The rows of a page header alone. */
static void header_rows(const char *what, const uint8_t *hdr, size_t n,
                        const want *rows, size_t nrows) {
  pq_explainer *x;
  pq_error err;
  if (pq_explainer_open_page(&x, NULL, hdr, n, NULL, 0, &err)) {
    CHECK(0, "%s: open_page: %s", what, err.msg);
    return;
  }
  check_rows(what, x, rows, nrows);
  pq_explainer_free(x);
}

static void test_thrift(void) {
  /* type DATA_PAGE, sizes 1 and 1, data_page_header {1 value, PLAIN, RLE,
  ** RLE} */
  static const uint8_t ok[] = {0x15, 0x00, 0x15, 0x02, 0x15, 0x02,
                               0x2C, 0x15, 0x02, 0x15, 0x00, 0x15,
                               0x06, 0x15, 0x06, 0x00, 0x00};
  char msg[256];
  reader_says(ok, sizeof ok, msg, sizeof msg);
  CHECK(msg[0] == 0, "the header does not read: %s", msg);
  static const want ok_rows[] = {
      {0, 2, "header.type", NULL, NULL, INT(0), NULL},
      {2, 2, "header.uncompressed_page_size", NULL, NULL, INT(1), NULL},
      {4, 2, "header.compressed_page_size", NULL, NULL, INT(1), NULL},
      {6, 1, "header.data_page_header", "00101100", "ddddtttt", NOV,
       "field 5 (delta +2), struct DataPageHeader: its fields follow, then a "
       "stop byte"},
      {7, 2, "header.data_page_header.num_values", NULL, NULL, INT(1), NULL},
      {9, 2, "header.data_page_header.encoding", NULL, NULL, INT(0), NULL},
      {11, 2, "header.data_page_header.definition_level_encoding", NULL, NULL,
       INT(3), NULL},
      {13, 2, "header.data_page_header.repetition_level_encoding", NULL, NULL,
       INT(3), NULL},
      {15, 1, "header.data_page_header.stop", NULL, NULL, NOV, NULL},
      {16, 1, "header.stop", NULL, NULL, NOV, NULL},
      {17, 1, "body", NULL, NULL, NOV,
       "1 byte of page body: the column's physical type (the third argument) "
       "is needed to explain them"},
  };
  /* A header alone ends without a fault; with its body and no type, the
  ** body is one row. */
  header_rows("a header alone", ok, sizeof ok, ok_rows, 10);
  uint8_t with_body[sizeof ok + 1];
  memcpy(with_body, ok, sizeof ok);
  with_body[sizeof ok] = 0x2A;
  header_rows("a page without its type", with_body, sizeof with_body, ok_rows,
              11);
  char what[64];
  for (size_t n = 0; n < sizeof ok; n++) {
    snprintf(what, sizeof what, "a header cut to %zu bytes", n);
    header_fault(what, ok, n, -1);
  }
  /* The id as a zigzag varint; an unknown field; a field of another type. */
  static const uint8_t forms[] = {
      0x05, 0x02, 0x00, /* field 1, long form: 0 */
      0x18, 0x01, 0x41, /* field 2 as binary: skipped */
      0x15, 0x02,       /* field 3: 1 */
      0x66, 0x2A,       /* field 9, i64: unknown */
      0x00};
  static const want forms_rows[] = {
      {0, 3, "header.type", "00000101 00000010", "ddddtttt iiiiiiii", INT(0),
       "field 1 (delta 0: the id follows, zigzag varint 0x02), i32, zigzag "
       "varint 0x00 = 0: DATA_PAGE"},
      {3, 3, "header.uncompressed_page_size", "00011000", "ddddtttt", NOV,
       "field 2 (delta +1), binary where uncompressed_page_size is an i32: "
       "skipped (3 bytes), as a reader does"},
      {6, 2, "header.compressed_page_size", NULL, NULL, INT(1),
       "field 3 (delta +1), i32, zigzag varint 0x02 = 1"},
      {8, 2, "header.field_9", "01100110", "ddddtttt", NOV,
       "field 9 (delta +6), i64: not in parquet.thrift as known here, "
       "skipped (2 bytes)"},
      {10, 1, "header.stop", NULL, NULL, NOV,
       "0x00: stop, the end of PageHeader"},
  };
  /* Without its uncompressed size the reader rejects it after the stop. */
  pq_explainer *x;
  pq_error err;
  if (pq_explainer_open_page(&x, NULL, forms, sizeof forms, NULL, 0, &err) ==
      PQ_OK) {
    check_rows_then_fault(
        "forms", x, forms_rows, sizeof forms_rows / sizeof forms_rows[0],
        "page header: the header lacks its type or sizes", sizeof forms);
    pq_explainer_free(x);
  }
  /* Structures nested past the reader's bound, in an unknown field. */
  uint8_t deep[200];
  size_t n = 0;
  deep[n++] = 0x15, deep[n++] = 0x00;
  deep[n++] = 0x6C; /* field 7: struct... as DictionaryPageHeader */
  for (int i = 0; i < 100; i++) deep[n++] = 0x5C; /* field 5: struct */
  header_fault("nested in a known struct", deep, n, 3);
  n = 0;
  deep[n++] = 0x15, deep[n++] = 0x00;
  deep[n++] = 0x9C; /* field 10: unknown, a struct */
  for (int i = 0; i < 100; i++) deep[n++] = 0x1C;
  header_fault("nested in an unknown struct", deep, n, 2);
  n = 0;
  deep[n++] = 0x15, deep[n++] = 0x00;
  deep[n++] = 0x99; /* field 10: unknown, a list of lists */
  for (int i = 0; i < 100; i++) deep[n++] = 0x19;
  header_fault("lists nested", deep, n, 2);
  /* An i32 out of range; a field type that does not exist; a string and a
  ** list longer than the data; a varint of 11 bytes. */
  static const uint8_t big[] = {0x15, 0x80, 0x80, 0x80, 0x80, 0x20, 0x00};
  header_fault("an i32 out of range", big, sizeof big, 1);
  static const uint8_t bad_type[] = {0x1D, 0x00};
  header_fault("field type 13", bad_type, sizeof bad_type, 0);
  static const uint8_t long_str[] = {0x15, 0x00, 0x98, 0x64, 0x41, 0x00};
  header_fault("a string past the end", long_str, sizeof long_str, 2);
  static const uint8_t long_list[] = {0x15, 0x00, 0x99, 0xF5, 0x64, 0x00};
  header_fault("a list past the end", long_list, sizeof long_list, 2);
  static const uint8_t long_varint[] = {0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
                                        0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01};
  header_fault("a varint of 11 bytes", long_varint, sizeof long_varint, 1);
  static const uint8_t stats_list[] = {0x15, 0x00, 0x15, 0x02, 0x15, 0x02, 0x2C,
                                       0x15, 0x02, 0x15, 0x00, 0x15, 0x06, 0x15,
                                       0x06, 0x1C, 0x19, 0x3C, 0x00};
  header_fault("statistics.max as a list of structs", stats_list,
               sizeof stats_list, -1);
}

/* A footer that points every chunk at all it may have: a bloom filter,
** pages, a column index, an offset index (and, as many writers do, a copy
** of its metadata after it), for several chunks.  The bytes pointed at are
** zeros: what matters is that the walk plans room for every region. */
static void test_every_region(void) {
  enum { CHUNKS = 6, PART = 16 };
  pq_buf f;
  pq_buf_init(&f);
  pq_buf_append(&f, "PAR1", 4);
  static const uint8_t zeros[CHUNKS * 5 * PART];
  pq_buf_append(&f, zeros, sizeof zeros);
  size_t footer = f.len;
  pq_thrift_writer tw = {&f, 0, {0}};
  footer_schema(&tw, PQ_INT32, 0, 0);
  pq_tw_list_begin(&tw, 4, PQ_TT_STRUCT, CHUNKS);
  for (int g = 0; g < CHUNKS; g++) {
    int64_t at = 4 + (int64_t)g * 5 * PART; /* bloom, pages, ci, oi, copy */
    pq_tw_list_struct_begin(&tw);
    pq_tw_list_begin(&tw, 1, PQ_TT_STRUCT, 1);
    pq_tw_list_struct_begin(&tw);
    pq_tw_i64(&tw, 2, at + 4 * PART);
    /* No values, no pages: the walk goes on. */
    footer_chunk_meta(&tw, PQ_INT32, 0, 0, 0, at + PART);
    pq_tw_i64(&tw, 14, at);
    pq_tw_i32(&tw, 15, PART);
    pq_tw_struct_end(&tw);
    pq_tw_i64(&tw, 4, at + 3 * PART);
    pq_tw_i32(&tw, 5, PART);
    pq_tw_i64(&tw, 6, at + 2 * PART);
    pq_tw_i32(&tw, 7, PART);
    pq_tw_struct_end(&tw);
    pq_tw_i64(&tw, 2, 0);
    pq_tw_i64(&tw, 3, 0);
    pq_tw_struct_end(&tw);
  }
  pq_tw_stop(&tw);
  uint8_t tail[8];
  pq_store32(tail, (uint32_t)(f.len - footer));
  memcpy(tail + 4, "PAR1", 4);
  pq_buf_append(&f, tail, 8);
  CHECK(!f.oom, "every region: the file is made");
  /* Exactly the file's bytes, so that a read past them is caught. */
  uint8_t *buf = malloc(f.len);
  memcpy(buf, f.data, f.len);
  pq_explainer *x;
  pq_error err;
  int rc = pq_explainer_open_file(&x, buf, f.len, &err);
  CHECK(rc == PQ_OK, "every region: open: %s", rc ? err.msg : "");
  if (rc == PQ_OK) {
    pq_field fd;
    int ci = 0, oi = 0, bloom = 0;
    uint64_t rows = 0;
    while (rows < 100000 && pq_explainer_next(x, &fd)) {
      rows++;
      if (verbose)
        printf("%llu %llu %s\n", (unsigned long long)fd.offset,
               (unsigned long long)fd.length, fd.path);
      if (strstr(fd.path, ".column_index")) ci = 1;
      if (strstr(fd.path, ".offset_index")) oi = 1;
      if (strstr(fd.path, ".bloom_filter")) bloom = 1;
    }
    CHECK(rows > 0 && rows < 100000, "every region: %llu rows",
          (unsigned long long)rows);
    CHECK(ci && oi && bloom,
          "every region: rows for the column index %d, the offset index %d "
          "and the bloom filter %d",
          ci, oi, bloom);
    pq_explainer_free(x);
  }
  free(buf);
  pq_buf_free(&f);
}

int main(int argc, char **argv) {
  verbose = argc > 1 && strcmp(argv[1], "-v") == 0;
  test_small_file();
  test_all_files();
  test_damage();
  test_pages_alone();
  test_thrift();
  test_every_region();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
