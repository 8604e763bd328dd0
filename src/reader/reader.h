/*
** reader.h -- what the files of reader/ share: values written as text by
** their logical types (cell.c), for JSON (assemble.c) and for SQL cells.
*/
#ifndef PQ_READER_H
#define PQ_READER_H

#include "../format/format.h"


/* What the logical type of a leaf makes of its values. */
enum {
  PQ_AS_PLAIN = 0,   /* the physical value: ints, reals, bytes */
  PQ_AS_UNSIGNED,    /* UINT_8 .. UINT_64, INTEGER(n, false) */
  PQ_AS_DECIMAL,     /* scale in *scale, precision in *precision */
  PQ_AS_DATE,
  PQ_AS_TIME,        /* unit in *unit */
  PQ_AS_TIMESTAMP,   /* unit in *unit */
  PQ_AS_INT96,
  PQ_AS_FLOAT16,
  PQ_AS_UUID,
  PQ_AS_STRING,      /* STRING, ENUM, JSON: byte arrays as text */
  PQ_AS_INTERVAL,    /* FIXED_LEN_BYTE_ARRAY(12) INTERVAL */
  PQ_AS_WKB          /* BYTE_ARRAY GEOMETRY, GEOGRAPHY: BLOBs, no order */
};
int pq_leaf_meaning(const pq_schema_element *e, int *scale, int *precision,
                    int *unit);

/* The same, kept by a reader that converts many values of one leaf. */
typedef struct pq_meaning {
  int as; /* PQ_AS_* */
  int scale, precision, unit;
} pq_meaning;

static inline pq_meaning pq_meaning_of(const pq_schema_element *e) {
  pq_meaning m;
  m.as = pq_leaf_meaning(e, &m.scale, &m.precision, &m.unit);
  return m;
}

/* 10^scale, what a DECIMAL of at most 15 digits is divided by to make
** its REAL. */
double pq_decimal_divisor(int scale);

/* pq_cell_from_value with the leaf's meaning already worked out. */
void pq_cell_convert(const pq_schema_element *e, const pq_meaning *m,
                     int binary_as_string, const void *v, char *scratch,
                     pq_cell *out);

/* ---- Column chunks (column.c) -------------------------------------------- */

int64_t pq_column_reader_bytes(const pq_column_reader *r);
/* From the next page on, a dictionary-encoded page whose dictionary has
** at most max_entries entries (0: none) gives its values as indices
** (uint32_t, each checked against the dictionary): the dictionary vector,
** for a caller that makes each entry once. */
void pq_column_reader_indices(pq_column_reader *r, int32_t max_entries);
/* The dictionary of the page the last read came from, when it gave
** indices into it, else NULL; *page: the chunk's dictionary page, which
** its BYTE_ARRAY entries point into (for the whole chunk, where the
** dictionary itself lasts as long as the page). */
const pq_dict *pq_column_reader_dict(const pq_column_reader *r,
                                     const pq_bytes **page);
/* The page reader's room (pq_page_reader_swap_room). */
void pq_column_reader_swap_room(pq_column_reader *r, pq_read_room *room);
/* The pages read from here on checked against the chunk's offset index
** (pq_page_reader_check_rows). */
void pq_column_reader_check_rows(pq_column_reader *r,
                                 const pq_offset_index *oi, int64_t rows);
/* Goes on at the data page `page` at `offset`, values_before entries into
** the chunk (from its offset index), reading the dictionary first. */
int pq_column_reader_seek(pq_column_reader *r, int64_t offset, uint32_t page,
                          int64_t values_before, pq_error *err);

/* Between pages, moves past whole data pages of at most `entries` entries
** in all, reading their headers only; *skipped says how many entries. */
int pq_column_reader_skip_pages(pq_column_reader *r, int64_t entries,
                                int64_t *skipped, pq_error *err);

/* ---- Assembly (assemble.c) ------------------------------------------------
** Rows rebuilt from the levels of one row group: of one top-level field
** (its JSON value), or of the whole schema (the row as a JSON object). */
typedef struct pq_assembler pq_assembler;

int pq_assembler_open(pq_assembler **out, const pq_file *f,
                      uint32_t row_group, const pq_schema_node *field,
                      size_t limit, pq_read_room *room, pq_error *err);
/* Appends the next row's JSON to out ("null" for a null field). */
int pq_assembler_next(pq_assembler *as, pq_buf *out, pq_error *err);
/* Checks that every column ended with the row group's last row. */
int pq_assembler_finish(pq_assembler *as, pq_error *err);
void pq_assembler_free(pq_assembler *as);

#endif /* PQ_READER_H */
