/*
** scan.c -- a top-level field of one row group as SQL cells, batch by
** batch: what a table over Parquet files reads.
**
** A flat field (a leaf, not repeated) is read with its column reader, up
** to a page's worth of entries at a time: an entry below the maximum
** definition level is NULL, the others take the next value, converted by
** its logical type (cell.c; a NaN is NULL, as SQL sees it).  A nested field is assembled (assemble.c)
** into one JSON text per row.
**
** A dictionary-encoded chunk is read as its dictionary vector: each entry
** of the dictionary made into a cell once, when the chunk's first page
** that uses it is read, and the rows' indices picking them; the caller is
** told which entry each cell is (pq_field_reader_read_entries), so that it
** too can make each entry once.
**
** Skipping rows of a flat field jumps over whole pages when the chunk has
** an offset index (spec/PageIndex.md): only the page holding the row to
** go on from is read.
*/
#include "reader.h"

#include <stdio.h>

#define SCAN_BATCH 256
/* The most entries a dictionary is made into cells for (24 bytes each),
** and at most half the row group's rows: past that, per row is as cheap. */
#define SCAN_DICT_MAX 65536
/* In a kind while a dictionary's texts are copied: the cell holds the
** offset of its bytes in i, until they stay where they are (a cell's p
** and i share their place). */
#define SCAN_AT 0x100

struct pq_field_reader {
  const pq_file *f;
  const pq_schema_node *field;
  uint32_t row_group;
  int binary_as_string;
  int64_t rows;            /* of the row group */
  int64_t row;             /* the next row to read */
  size_t limit;
  /* a flat field */
  pq_column_reader *col;
  pq_offset_index *oi;     /* NULL: none, or not read yet */
  int oi_read;
  uint8_t *vals;           /* SCAN_BATCH values */
  uint16_t def[SCAN_BATCH];
  char (*text)[PQ_CELL_SCRATCH];
  pq_meaning meaning;      /* of its values, worked out once */
  pq_day_text day;         /* the last timestamp's date, as text */
  /* the chunk's dictionary, each entry made into a cell once */
  const uint8_t *ent_page; /* the dictionary page they were made from */
  pq_cell *ent;
  size_t n_ent;
  pq_buf ent_bytes;        /* entries not in the dictionary page itself */
  uint64_t ent_id;         /* dictionaries made so far */
  /* a nested field */
  pq_assembler *as;
  pq_buf json;
  size_t *ends;            /* SCAN_BATCH ends of rows in json */
  int64_t nested_bytes;
};

int pq_field_reader_open(pq_field_reader **out, const pq_file *f,
                         uint32_t row_group, const pq_schema_node *field,
                         int binary_as_string, size_t limit, pq_error *err) {
  *out = NULL;
  const pq_file_meta *m = pq_file_metadata(f);
  if (row_group >= m->n_row_groups) {
    return pq_fail(err, PQ_MISUSE, "file", "no row group %u", row_group);
  }
  pq_field_reader *r = pq_calloc(1, sizeof *r);
  if (!r) return pq_nomem(err, "scan");
  r->f = f;
  r->field = field;
  r->row_group = row_group;
  r->binary_as_string = binary_as_string;
  r->rows = m->row_groups[row_group].num_rows;
  r->limit = limit;
  int rc;
  pq_field_info info;
  pq_field_describe(field, binary_as_string, &info);
  if (info.nested) {
    r->ends = pq_malloc(SCAN_BATCH * sizeof *r->ends);
    rc = r->ends ? pq_assembler_open(&r->as, f, row_group, field, limit, NULL, err)
                 : pq_nomem(err, "scan");
    if (rc == PQ_OK) {
      const pq_row_group *g = &m->row_groups[row_group];
      /* What assembling read: the chunks of the field's leaves. */
      for (uint32_t c = 0; c < pq_file_leaf_count(f); c++) {
        const pq_schema_node *n = pq_file_leaf(f, c);
        while (n && n != field) n = n->parent;
        if (n && c < g->n_columns)
          r->nested_bytes += g->columns[c].meta.total_compressed_size;
      }
    }
  } else {
    const pq_schema_element *e = field->elem;
    r->meaning = pq_meaning_of(e);
    size_t vs = pq_value_size(e->type, e->type_length);
    r->vals = pq_malloc(SCAN_BATCH * (vs > 4 ? vs : 4)); /* or indices */
    r->text = pq_malloc(SCAN_BATCH * sizeof *r->text);
    rc = r->vals && r->text
             ? pq_column_reader_open(&r->col, f, row_group,
                                     (uint32_t)field->leaf, limit, err)
             : pq_nomem(err, "scan");
    if (rc == PQ_OK) {
      int64_t half = r->rows / 2;
      pq_column_reader_indices(
          r->col, (int32_t)(half < SCAN_DICT_MAX ? half : SCAN_DICT_MAX));
    }
  }
  if (rc) {
    pq_field_reader_free(r);
    return rc;
  }
  *out = r;
  return PQ_OK;
}

static int scan_nested(pq_field_reader *r, pq_cell *cells, size_t max,
                       size_t *n, pq_error *err) {
  r->json.len = 0;
  size_t k = 0;
  while (k < max && r->row < r->rows) {
    int rc = pq_assembler_next(r->as, &r->json, err);
    if (rc) return rc;
    r->ends[k++] = r->json.len;
    r->row++;
  }
  if (r->row == r->rows && k < max) {
    int rc = pq_assembler_finish(r->as, err);
    if (rc) return rc;
  }
  if (r->json.len > r->limit) {
    return pq_fail(err, PQ_TOOBIG, "scan",
                   "field '%s': rows as JSON exceed the limit of %zu bytes",
                   r->field->path ? r->field->path : "", r->limit);
  }
  size_t start = 0;
  for (size_t i = 0; i < k; i++) {
    size_t len = r->ends[i] - start;
    const uint8_t *p = r->json.data + start;
    if (len == 4 && memcmp(p, "null", 4) == 0) {
      cells[i].kind = PQ_CELL_NULL;
    } else {
      cells[i].kind = PQ_CELL_TEXT;
      cells[i].p = p;
      cells[i].n = len;
    }
    start = r->ends[i];
  }
  *n = k;
  return PQ_OK;
}

/* A flat field's pages hold fewer rows than its row group. */
static int scan_ended(const pq_field_reader *r, pq_error *err) {
  return pq_fail(err, PQ_CORRUPT, "scan",
                 "column '%s', row group %u: the pages end at row %lld of "
                 "%lld",
                 r->field->path ? r->field->path : "", r->row_group,
                 (long long)r->row, (long long)r->rows);
}

/* Cell i of a batch begun: no dictionary entry, no bytes; 0 when its
** value is absent (the cell then NULL). */
static inline int scan_cell_begin(pq_cell *c, int32_t *entry, size_t i,
                                  int present) {
  if (entry) entry[i] = -1;
  c->p = NULL;
  c->n = 0;
  if (!present) c->kind = PQ_CELL_NULL;
  return present;
}

/* The cells of dictionary d's entries, from its chunk's dictionary page:
** text and blobs that do not point into that page (made by a logical
** type, or fixed-width bytes) are kept in ent_bytes. */
static int scan_entries(pq_field_reader *r, const pq_dict *d,
                        const pq_bytes *page, pq_error *err) {
  const pq_schema_element *e = r->field->elem;
  pq_cell *ent = pq_realloc(r->ent, (d->entries ? d->entries : 1) * sizeof *ent);
  if (!ent) return pq_nomem(err, "scan");
  r->ent = ent;
  r->n_ent = 0;
  r->ent_page = NULL;
  r->ent_bytes.len = 0;
  union {
    pq_bytes b;
    uint64_t u;
  } one;
  char scratch[PQ_CELL_SCRATCH];
  const uint8_t *lo = page->ptr, *hi = page->ptr + page->len;
  for (size_t k = 0; k < d->entries; k++) {
    uint32_t ix = (uint32_t)k;
    const void *v = &one;
    if (d->type == PQ_FIXED_LEN_BYTE_ARRAY || d->type == PQ_INT96) {
      v = d->fixed + k * d->width;
    } else {
      pq_dict_gather(d, &ix, 1, &one);
    }
    pq_cell_convert(e, &r->meaning, r->binary_as_string, v, scratch, &ent[k]);
    pq_cell *c = &ent[k];
    if ((c->kind == PQ_CELL_TEXT || c->kind == PQ_CELL_BLOB) && c->n &&
        !(c->p >= lo && c->p + c->n <= hi)) { /* kept, its offset for now */
      size_t at = r->ent_bytes.len;
      pq_buf_append(&r->ent_bytes, c->p, c->n);
      if (r->ent_bytes.oom) return pq_nomem(err, "scan");
      c->i = (int64_t)at; /* p's place: the kind says so */
      c->kind |= SCAN_AT;
    }
  }
  for (size_t k = 0; k < d->entries; k++) {
    pq_cell *c = &ent[k];
    if (c->kind & SCAN_AT) {
      c->kind &= ~SCAN_AT;
      c->p = r->ent_bytes.data + c->i;
    }
  }
  r->n_ent = d->entries;
  r->ent_page = page->ptr;
  r->ent_id++;
  return PQ_OK;
}

int pq_field_reader_read(pq_field_reader *r, pq_cell *cells, size_t max,
                         size_t *n, pq_error *err) {
  return pq_field_reader_read_entries(r, cells, NULL, max, n, err);
}

int pq_field_reader_read_entries(pq_field_reader *r, pq_cell *cells,
                                 int32_t *entry, size_t max, size_t *n,
                                 pq_error *err) {
  *n = 0;
  if (max > SCAN_BATCH) max = SCAN_BATCH;
  if (max == 0 || r->row >= r->rows) return PQ_OK;
  if ((int64_t)max > r->rows - r->row) max = (size_t)(r->rows - r->row);
  if (r->as) {
    int rc = scan_nested(r, cells, max, n, err);
    if (entry) {
      for (size_t i = 0; i < *n; i++) entry[i] = -1;
    }
    return rc;
  }
  size_t got, nv;
  int rc = pq_column_reader_read(r->col, max, NULL, r->def, r->vals, &got,
                                 &nv, err);
  if (rc) return rc;
  if (got == 0) {
    return scan_ended(r, err);
  }
  const pq_schema_element *e = r->field->elem;
  int max_def = r->field->max_def;
  size_t j = 0;
  const pq_bytes *page;
  const pq_dict *d = pq_column_reader_dict(r->col, &page);
  if (d) { /* indices: the entries' cells */
    if (r->ent_page != page->ptr || r->n_ent != d->entries) {
      rc = scan_entries(r, d, page, err);
      if (rc) return rc;
    }
    const uint32_t *ix = (const uint32_t *)(const void *)r->vals;
    for (size_t i = 0; i < got; i++) {
      if (r->def[i] != max_def) {
        cells[i].kind = PQ_CELL_NULL;
        if (entry) entry[i] = -1;
        continue;
      }
      cells[i] = r->ent[ix[j]];
      if (entry) entry[i] = (int32_t)ix[j];
      j++;
    }
  } else if (r->meaning.as == PQ_AS_PLAIN &&
             (e->type == PQ_INT64 || e->type == PQ_DOUBLE)) {
    /* The common plain numbers without a call a value. */
    const uint8_t *v = r->vals;
    int real = e->type == PQ_DOUBLE;
    for (size_t i = 0; i < got; i++) {
      pq_cell *c = &cells[i];
      if (!scan_cell_begin(c, entry, i, r->def[i] == max_def)) continue;
      c->kind = real ? PQ_CELL_REAL : PQ_CELL_INT;
      if (real) {
        memcpy(&c->r, v + j * 8, 8);
        if (c->r != c->r) c->kind = PQ_CELL_NULL; /* NaN: SQL's NULL */
      } else {
        memcpy(&c->i, v + j * 8, 8);
      }
      j++;
    }
  } else if (r->meaning.as == PQ_AS_TIMESTAMP && e->type == PQ_INT64) {
    /* Timestamps: each day's text made once (pq_text_timestamp_in). */
    const uint8_t *v = r->vals;
    for (size_t i = 0; i < got; i++) {
      pq_cell *c = &cells[i];
      if (!scan_cell_begin(c, entry, i, r->def[i] == max_def)) continue;
      int64_t x;
      memcpy(&x, v + j * 8, 8);
      c->kind = PQ_CELL_TEXT;
      c->n = pq_text_timestamp_in(r->text[i], PQ_CELL_SCRATCH, x,
                                  r->meaning.unit, &r->day);
      c->p = (const uint8_t *)r->text[i];
      j++;
    }
  } else if (r->meaning.as == PQ_AS_DECIMAL &&
             (e->type == PQ_INT32 || e->type == PQ_INT64)) {
    /* Integer decimals: REAL up to 15 digits, else their text, digit by
    ** digit (cell.c's conversion, without its call and checks a value). */
    const uint8_t *v = r->vals;
    int wide = e->type == PQ_INT64, scale = r->meaning.scale;
    int real = r->meaning.precision > 0 && r->meaning.precision <= 15;
    double div = pq_decimal_divisor(scale);
    for (size_t i = 0; i < got; i++) {
      pq_cell *c = &cells[i];
      if (!scan_cell_begin(c, entry, i, r->def[i] == max_def)) continue;
      int64_t x;
      if (wide) {
        memcpy(&x, v + j * 8, 8);
      } else {
        int32_t x32;
        memcpy(&x32, v + j * 4, 4);
        x = x32;
      }
      j++;
      if (real) {
        c->kind = PQ_CELL_REAL;
        c->r = (double)x / div;
        continue;
      }
      c->kind = PQ_CELL_TEXT;
      c->n = pq_text_decimal64(r->text[i], PQ_CELL_SCRATCH, x, scale);
      c->p = (const uint8_t *)r->text[i];
    }
  } else {
    size_t vs = pq_value_size(e->type, e->type_length);
    for (size_t i = 0; i < got; i++) {
      if (entry) entry[i] = -1;
      if (r->def[i] != max_def) {
        cells[i].kind = PQ_CELL_NULL;
        continue;
      }
      pq_cell_convert(e, &r->meaning, r->binary_as_string, r->vals + j * vs,
                      r->text[i], &cells[i]);
      j++;
    }
  }
  r->row += (int64_t)got;
  *n = got;
  return PQ_OK;
}

/* The page of the offset index that holds row `row`, or -1. */
static int64_t scan_page_of(const pq_offset_index *oi, int64_t row) {
  uint32_t lo = 0, hi = oi->n_pages;
  while (lo < hi) { /* the first page that starts after row */
    uint32_t mid = lo + (hi - lo) / 2;
    if (oi->pages[mid].first_row_index <= row) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return (int64_t)lo - 1;
}

int pq_field_reader_skip(pq_field_reader *r, int64_t rows, pq_error *err) {
  if (rows <= 0) return PQ_OK;
  if (rows > r->rows - r->row) rows = r->rows - r->row;
  int64_t target = r->row + rows;
  if (r->col && !r->oi_read) {
    r->oi_read = 1;
    pq_error e;
    /* An unreadable offset index only costs the skipping: the pages are
    ** checked as they are read. */
    if (pq_offset_index_read(r->f, r->row_group, (uint32_t)r->field->leaf,
                             &r->oi, &e) != PQ_OK)
      r->oi = NULL;
    /* Going to a page by the index trusts the rows it says come before
    ** it: the pages read from here on must hold the rows it says. */
    if (r->oi) pq_column_reader_check_rows(r->col, r->oi, r->rows);
  }
  if (r->col && r->oi) {
    int64_t p = scan_page_of(r->oi, target);
    if (p >= 0 && r->oi->pages[p].first_row_index > r->row &&
        r->oi->pages[p].first_row_index >= 0) {
      const pq_page_location *loc = &r->oi->pages[p];
      int rc = pq_column_reader_seek(r->col, loc->offset, (uint32_t)p,
                                     loc->first_row_index, err);
      if (rc) return rc;
      r->row = loc->first_row_index;
    }
  }
  if (r->col) { /* whole pages by their headers */
    int64_t skipped;
    int rc = pq_column_reader_skip_pages(r->col, target - r->row, &skipped,
                                         err);
    if (rc) return rc;
    r->row += skipped;
  }
  /* The rest decoded, but made into no cells. */
  while (r->row < target) {
    int64_t left = target - r->row;
    size_t max = left < SCAN_BATCH ? (size_t)left : SCAN_BATCH, got = 0, nv;
    int rc;
    if (r->as) {
      r->json.len = 0;
      rc = pq_assembler_next(r->as, &r->json, err);
      got = 1;
    } else {
      rc = pq_column_reader_read(r->col, max, NULL, r->def, r->vals, &got,
                                 &nv, err);
      if (rc == PQ_OK && got == 0) {
        rc = scan_ended(r, err);
      }
    }
    if (rc) return rc;
    r->row += (int64_t)got;
  }
  return PQ_OK;
}

const pq_cell *pq_field_reader_entries(const pq_field_reader *r, size_t *n,
                                       uint64_t *id) {
  *n = r->n_ent;
  *id = r->ent_id;
  return r->ent_page ? r->ent : NULL;
}

int64_t pq_field_reader_bytes(const pq_field_reader *r) {
  return r->col ? pq_column_reader_bytes(r->col) : r->nested_bytes;
}

void pq_field_reader_give_room(pq_field_reader *r, pq_read_room *room) {
  if (!r->col || r->row > 0) return; /* nested, or reading already */
  pq_column_reader_swap_room(r->col, room);
}

void pq_field_reader_take_room(pq_field_reader *r, pq_read_room *room) {
  if (!r->col) return;
  pq_column_reader_swap_room(r->col, room);
}

void pq_field_reader_free(pq_field_reader *r) {
  if (!r) return;
  pq_column_reader_free(r->col);
  pq_offset_index_free(r->oi);
  pq_assembler_free(r->as);
  pq_buf_free(&r->json);
  pq_free(r->ends);
  pq_free(r->vals);
  pq_free(r->text);
  pq_free(r->ent);
  pq_buf_free(&r->ent_bytes);
  pq_free(r);
}
