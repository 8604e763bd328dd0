/*
** page_index.c -- a column chunk's page index (spec/PageIndex.md;
** parquet.thrift, ColumnIndex and OffsetIndex), read from where the
** footer's ColumnChunk says: column_index_offset/_length and
** offset_index_offset/_length.
**
**   ColumnIndex:  1 null_pages list<bool>     2 min_values list<binary>
**                 3 max_values list<binary>   4 boundary_order i32
**                 5 null_counts list<i64>     6, 7 level histograms
**                 8 nan_counts list<i64>
**   OffsetIndex:  1 page_locations list<PageLocation{1 offset i64,
**                 2 compressed_page_size i32, 3 first_row_index i64}>
**                 2 unencoded_byte_array_data_bytes list<i64>
**
** Nothing is trusted: the structure must lie inside the file's data
** (between the leading magic and the footer), every list is bounded by the
** bytes left before it is allocated, the lists of one index must agree on
** the number of pages, pages must lie inside the chunk in increasing order
** and their first rows must not decrease nor pass the row group's rows.
** The structures are allocated; min and max values point into the image,
** or into the index's bytes as read (kept with it) for a file without one.
*/
#include "format.h"

#include <stdio.h>

/* "column 'a.b', row group 0: column index" */
#define PI_LABEL 200

/* The chunk, or an error; *label is filled for later messages. */
static int pi_chunk(const pq_file *f, uint32_t row_group, uint32_t column,
                    const char *what, const pq_column_chunk **out,
                    char *label, pq_error *err) {
  const pq_file_meta *m = pq_file_metadata(f);
  *out = NULL;
  if (row_group >= m->n_row_groups || column >= pq_file_leaf_count(f) ||
      column >= m->row_groups[row_group].n_columns) {
    return pq_fail(err, PQ_MISUSE, "file", "no column %u in row group %u",
                   column, row_group);
  }
  const pq_schema_node *leaf = pq_file_leaf(f, column);
  snprintf(label, PI_LABEL, "column '%s', row group %u: %s",
           leaf && leaf->path ? leaf->path : "", row_group, what);
  *out = &m->row_groups[row_group].columns[column];
  return PQ_OK;
}

/* Where the file's data ends: the footer's first byte. */
static size_t pi_data_end(const pq_file *f) { return f->data_end; }

/* A file without an image: an index without a stated length is read from
** this many bytes first, and from more when it runs past them. */
#define PI_FIRST ((size_t)64 << 10)

/* Finds the chunk's column index (offset_index 0) or offset index (1):
** *cc and label are set; *found is 0 when the chunk has none, else its
** bytes are at *at, *n of them at most (up to the footer when the chunk
** states no length; *exact says it does). */
static int pi_find(const pq_file *f, uint32_t row_group, uint32_t column,
                   int offset_index, const pq_column_chunk **cc, char *label,
                   uint64_t *at, size_t *n, int *exact, int *found,
                   pq_error *err) {
  *found = 0;
  int rc = pi_chunk(f, row_group, column,
                    offset_index ? "offset index" : "column index", cc, label,
                    err);
  if (rc) return rc;
  int64_t offset = offset_index ? (*cc)->offset_index_offset
                                : (*cc)->column_index_offset;
  int32_t length = offset_index ? (*cc)->offset_index_length
                                : (*cc)->column_index_length;
  if (offset < 0) return PQ_OK;
  if ((*cc)->encrypted) {
    return pq_fail(err, PQ_UNSUPPORTED, label,
                   "the column is encrypted: encrypted files are not "
                   "supported");
  }
  size_t end = pi_data_end(f);
  if (offset < 4 || (uint64_t)offset >= end) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "offset %lld is not inside the file's data (offsets 4 "
                   "to %zu)",
                   (long long)offset, end);
  }
  if (length < -1 || length == 0 ||
      (length > 0 && (uint64_t)length > end - (uint64_t)offset)) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "%d bytes at offset %lld are not inside the file's data "
                   "(offsets 4 to %zu)",
                   length, (long long)offset, end);
  }
  *at = (uint64_t)offset;
  *n = length > 0 ? (size_t)length : end - (size_t)offset;
  *exact = length > 0;
  *found = 1;
  return PQ_OK;
}

/* How many bytes to read first: all of them from an image or when the
** length is known. */
static size_t pi_first(const pq_file *f, size_t n, int exact) {
  return f->buf || exact || n <= PI_FIRST ? n : PI_FIRST;
}

/* After a parse of `have` of the n bytes failed: how many to read next,
** or 0 when the failure stands. */
static size_t pi_more(int rc, const pq_parser *ps, size_t have, size_t n) {
  if (rc != PQ_CORRUPT || ps->nomem || have >= n) return 0;
  return have > n / 8 ? n : 8 * have;
}

/* A list<i64> of a field into a malloc'ed array (freeing what an earlier
** field of the same id left). */
static void pi_i64_list(pq_parser *ps, int type, const char *name,
                        int64_t **out, uint32_t *n) {
  pq_thrift *t = &ps->t;
  if (!pq_parse_want(ps, type, PQ_TT_LIST)) return;
  int et;
  uint32_t k = pq_thrift_list(t, &et);
  if (t->failed) return;
  if (k && et != PQ_TT_I64 && et != PQ_TT_I32) {
    char what[96];
    snprintf(what, sizeof what, "%s is not a list of integers", name);
    pq_thrift_fail(t, what);
    return;
  }
  pq_free(*out);
  *out = NULL;
  *n = k;
  if (k == 0) {
    *out = pq_malloc(1); /* present, and empty */
  } else {
    *out = pq_malloc((size_t)k * sizeof **out);
  }
  if (!*out) {
    ps->nomem = 1;
    pq_thrift_fail(t, "out of memory");
    return;
  }
  for (uint32_t i = 0; i < k && !t->failed; i++) (*out)[i] = pq_thrift_i64(t);
}

/* ---- ColumnIndex ----------------------------------------------------------- */

void pq_column_index_free(pq_column_index *ci) {
  if (!ci) return;
  pq_free(ci->null_pages);
  pq_free(ci->min_values);
  pq_free(ci->max_values);
  pq_free(ci->null_counts);
  pq_free(ci->rep_histograms);
  pq_free(ci->def_histograms);
  pq_free(ci->nan_counts);
  pq_free(ci->bytes);
  pq_free(ci);
}

/* The lengths of the lists as read, to compare once all are. */
typedef struct pi_counts {
  uint32_t null_pages, mins, maxs, null_counts;
  uint32_t nan_counts;
  int seen; /* bit per required field id */
} pi_counts;

static void pi_binary_list(pq_parser *ps, int type, const char *name,
                           pq_bytes **out, uint32_t *n) {
  pq_thrift *t = &ps->t;
  if (!pq_parse_want(ps, type, PQ_TT_LIST)) return;
  int et;
  uint32_t k = pq_thrift_list(t, &et);
  if (t->failed) return;
  if (k && et != PQ_TT_BINARY) {
    char what[96];
    snprintf(what, sizeof what, "%s is not a list of binary values", name);
    pq_thrift_fail(t, what);
    return;
  }
  pq_free(*out);
  *out = pq_calloc(k ? k : 1, sizeof **out);
  *n = k;
  if (!*out) {
    ps->nomem = 1;
    pq_thrift_fail(t, "out of memory");
    return;
  }
  for (uint32_t i = 0; i < k && !t->failed; i++) (*out)[i] = pq_thrift_binary(t);
}

static void pi_parse_column_index(pq_parser *ps, pq_column_index *ci,
                                  pi_counts *c) {
  pq_thrift *t = &ps->t;
  int type, et;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return;
  while (!t->failed && pq_thrift_field(t, &type, &last, &id)) {
    switch (id) {
      case 1: {
        if (!pq_parse_want(ps, type, PQ_TT_LIST)) break;
        uint32_t k = pq_thrift_list(t, &et);
        if (t->failed) break;
        if (k && et != PQ_TT_TRUE && et != PQ_TT_FALSE) {
          pq_thrift_fail(t, "null_pages is not a list of booleans");
          break;
        }
        pq_free(ci->null_pages);
        ci->null_pages = pq_malloc(k ? k : 1);
        c->null_pages = k;
        if (!ci->null_pages) {
          ps->nomem = 1;
          pq_thrift_fail(t, "out of memory");
          break;
        }
        for (uint32_t i = 0; i < k && !t->failed; i++) {
          /* A boolean in a list is a byte: 1 true, 2 (or 0) false. */
          int b = pq_thrift_byte(t);
          if (!t->failed && b > 2) {
            pq_thrift_fail(t, "an entry of null_pages is not a boolean");
          }
          ci->null_pages[i] = b == 1;
        }
        c->seen |= 1 << 1;
        break;
      }
      case 2:
        if (type == PQ_TT_LIST) c->seen |= 1 << 2;
        pi_binary_list(ps, type, "min_values", &ci->min_values, &c->mins);
        break;
      case 3:
        if (type == PQ_TT_LIST) c->seen |= 1 << 3;
        pi_binary_list(ps, type, "max_values", &ci->max_values, &c->maxs);
        break;
      case 4:
        if (pq_parse_want(ps, type, PQ_TT_I32)) {
          ci->boundary_order = pq_thrift_i32(t);
          c->seen |= 1 << 4;
        }
        break;
      case 5:
        pi_i64_list(ps, type, "null_counts", &ci->null_counts,
                    &c->null_counts);
        break;
      case 6:
        pi_i64_list(ps, type, "repetition_level_histograms",
                    &ci->rep_histograms, &ci->n_rep_histograms);
        break;
      case 7:
        pi_i64_list(ps, type, "definition_level_histograms",
                    &ci->def_histograms, &ci->n_def_histograms);
        break;
      case 8:
        pi_i64_list(ps, type, "nan_counts", &ci->nan_counts, &c->nan_counts);
        break;
      default:
        pq_thrift_skip(t, type);
    }
  }
  pq_thrift_leave(t);
}

/* Checks what the lists say against each other and the column. */
static int pi_check_column_index(const pq_column_index *ci,
                                 const pi_counts *c,
                                 const pq_schema_node *leaf, size_t at,
                                 const char *label, pq_error *err) {
  static const char *const names[] = {"", "null_pages", "min_values",
                                      "max_values", "boundary_order"};
  for (int id = 1; id <= 4; id++) {
    if (!(c->seen & (1 << id))) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "the required field %s is missing at offset %zu",
                     names[id], at);
    }
  }
  uint32_t n = c->null_pages;
  if (c->mins != n || c->maxs != n ||
      (ci->null_counts && c->null_counts != n) ||
      (ci->nan_counts && c->nan_counts != n)) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "the lists disagree on the number of pages: %u "
                   "null_pages, %u min_values, %u max_values%s%s at offset "
                   "%zu",
                   n, c->mins, c->maxs,
                   ci->null_counts && c->null_counts != n ? ", other null_counts"
                                                          : "",
                   ci->nan_counts && c->nan_counts != n ? ", other nan_counts"
                                                        : "",
                   at);
  }
  if (ci->boundary_order < 0 || ci->boundary_order > 2) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "boundary_order %d is not UNORDERED (0), ASCENDING (1) "
                   "or DESCENDING (2) at offset %zu",
                   ci->boundary_order, at);
  }
  /* Negative null counts are kept: some writers put -1 for "not known". */
  /* A histogram per page, of max level + 1 entries. */
  if (ci->rep_histograms &&
      (uint64_t)ci->n_rep_histograms !=
          (uint64_t)n * (uint64_t)(leaf->max_rep + 1)) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "%u repetition level histogram entries for %u pages of "
                   "maximum level %d at offset %zu",
                   ci->n_rep_histograms, n, leaf->max_rep, at);
  }
  if (ci->def_histograms &&
      (uint64_t)ci->n_def_histograms !=
          (uint64_t)n * (uint64_t)(leaf->max_def + 1)) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "%u definition level histogram entries for %u pages of "
                   "maximum level %d at offset %zu",
                   ci->n_def_histograms, n, leaf->max_def, at);
  }
  return PQ_OK;
}

int pq_column_index_read(const pq_file *f, uint32_t row_group,
                         uint32_t column, pq_column_index **out,
                         pq_error *err) {
  char label[PI_LABEL];
  const pq_column_chunk *cc;
  *out = NULL;
  uint64_t at = 0;
  size_t n = 0;
  int found, exact = 0;
  int rc = pi_find(f, row_group, column, 0, &cc, label, &at, &n, &exact,
                   &found, err);
  if (rc || !found) return rc;
  pq_buf bytes;
  pq_buf_init(&bytes);
  pq_column_index *ci = NULL;
  for (size_t want = pi_first(f, n, exact); want;) {
    const uint8_t *p;
    rc = pq_file_span(f, at, want, &bytes, &p, label, err);
    if (rc) break;
    pq_parser ps;
    memset(&ps, 0, sizeof ps);
    pq_thrift_init(&ps.t, p, want, (size_t)at, label, err);
    ci = pq_calloc(1, sizeof *ci);
    if (!ci) {
      rc = pq_nomem(err, label);
      break;
    }
    pi_counts c;
    memset(&c, 0, sizeof c);
    pi_parse_column_index(&ps, ci, &c);
    rc = ps.nomem ? pq_nomem(err, label) : ps.t.failed;
    if (rc == PQ_OK) {
      ci->n_pages = c.null_pages;
      rc = pi_check_column_index(ci, &c, pq_file_leaf(f, column),
                                 (size_t)cc->column_index_offset, label, err);
    }
    if (rc == PQ_OK) break;
    pq_column_index_free(ci);
    ci = NULL;
    want = pi_more(rc, &ps, want, n);
  }
  if (rc) {
    pq_buf_free(&bytes);
    return rc;
  }
  ci->bytes = bytes.data; /* NULL for an image */
  *out = ci;
  return PQ_OK;
}

/* ---- OffsetIndex ----------------------------------------------------------- */

void pq_offset_index_free(pq_offset_index *oi) {
  if (!oi) return;
  pq_free(oi->pages);
  pq_free(oi->unencoded_byte_array_data_bytes);
  pq_free(oi);
}

static void pi_parse_location(pq_parser *ps, pq_page_location *loc,
                              int *seen) {
  pq_thrift *t = &ps->t;
  int type;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return;
  while (!t->failed && pq_thrift_field(t, &type, &last, &id)) {
    if ((id == 1 || id == 3) && pq_parse_want(ps, type, PQ_TT_I64)) {
      int64_t v = pq_thrift_i64(t);
      if (id == 1) loc->offset = v;
      if (id == 3) loc->first_row_index = v;
      *seen |= 1 << id;
    } else if (id == 2 && pq_parse_want(ps, type, PQ_TT_I32)) {
      loc->compressed_page_size = pq_thrift_i32(t);
      *seen |= 1 << id;
    } else if (id < 1 || id > 3) {
      pq_thrift_skip(t, type);
    }
  }
  pq_thrift_leave(t);
  if (!t->failed && *seen != 0xE) {
    pq_thrift_fail(t, !(*seen & 2)   ? "a page location has no offset"
                      : !(*seen & 4) ? "a page location has no "
                                       "compressed_page_size"
                                     : "a page location has no "
                                       "first_row_index");
  }
}

static void pi_parse_offset_index(pq_parser *ps, pq_offset_index *oi,
                                  int *has_locations, uint32_t *n_unencoded) {
  pq_thrift *t = &ps->t;
  int type, et;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return;
  while (!t->failed && pq_thrift_field(t, &type, &last, &id)) {
    if (id == 1) {
      if (!pq_parse_want(ps, type, PQ_TT_LIST)) continue;
      uint32_t k = pq_thrift_list(t, &et);
      if (t->failed) break;
      if (k && et != PQ_TT_STRUCT) {
        pq_thrift_fail(t, "page_locations is not a list of structs");
        break;
      }
      pq_free(oi->pages);
      oi->pages = pq_calloc(k ? k : 1, sizeof *oi->pages);
      oi->n_pages = k;
      if (!oi->pages) {
        ps->nomem = 1;
        pq_thrift_fail(t, "out of memory");
        break;
      }
      for (uint32_t i = 0; i < k && !t->failed; i++) {
        int seen = 0;
        pi_parse_location(ps, &oi->pages[i], &seen);
      }
      *has_locations = 1;
    } else if (id == 2) {
      pi_i64_list(ps, type, "unencoded_byte_array_data_bytes",
                  &oi->unencoded_byte_array_data_bytes, n_unencoded);
    } else {
      pq_thrift_skip(t, type);
    }
  }
  pq_thrift_leave(t);
}

/* The chunk's bytes, as page.c finds them: [*lo, *hi). 0 when the chunk
** says nothing usable (then only the file's data bounds the pages). */
static int pi_chunk_range(const pq_column_chunk *cc, size_t data_end,
                          uint64_t *lo, uint64_t *hi) {
  if (!cc->has_meta_data) return 0;
  const pq_column_meta *cm = &cc->meta;
  int64_t start = cm->data_page_offset;
  if (cm->dictionary_page_offset > 0 &&
      cm->dictionary_page_offset < cm->data_page_offset)
    start = cm->dictionary_page_offset;
  int64_t size = cm->total_compressed_size;
  if (start < 4 || size < 0 || (uint64_t)start > data_end ||
      (uint64_t)size > data_end - (uint64_t)start)
    return 0;
  *lo = (uint64_t)start;
  *hi = (uint64_t)start + (uint64_t)size;
  return 1;
}

static int pi_check_offset_index(const pq_file *f, const pq_column_chunk *cc,
                                 int64_t num_rows, const pq_offset_index *oi,
                                 uint32_t n_unencoded, size_t at,
                                 const char *label, pq_error *err) {
  if (oi->unencoded_byte_array_data_bytes && n_unencoded != oi->n_pages) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "the lists disagree on the number of pages: %u "
                   "page_locations, %u unencoded_byte_array_data_bytes at "
                   "offset %zu",
                   oi->n_pages, n_unencoded, at);
  }
  size_t data_end = pi_data_end(f);
  uint64_t lo = 4, hi = data_end;
  int in_chunk = pi_chunk_range(cc, data_end, &lo, &hi);
  for (uint32_t i = 0; i < oi->n_pages; i++) {
    const pq_page_location *l = &oi->pages[i];
    if (l->compressed_page_size <= 0 || l->offset < (int64_t)lo ||
        (uint64_t)l->offset > hi ||
        (uint64_t)l->compressed_page_size > hi - (uint64_t)l->offset) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "page %u: %d bytes at offset %lld are not inside the "
                     "%s (offsets %llu to %llu)",
                     i, l->compressed_page_size, (long long)l->offset,
                     in_chunk ? "column chunk" : "file's data",
                     (unsigned long long)lo, (unsigned long long)hi);
    }
    if (i > 0) {
      const pq_page_location *p = &oi->pages[i - 1];
      if (l->offset < p->offset + p->compressed_page_size) {
        return pq_fail(err, PQ_CORRUPT, label,
                       "page %u at offset %lld begins before page %u "
                       "(%d bytes at offset %lld) ends",
                       i, (long long)l->offset, i - 1,
                       p->compressed_page_size, (long long)p->offset);
      }
      if (l->first_row_index < p->first_row_index) {
        return pq_fail(err, PQ_CORRUPT, label,
                       "page %u: first_row_index %lld is before page %u's, "
                       "%lld",
                       i, (long long)l->first_row_index, i - 1,
                       (long long)p->first_row_index);
      }
    }
    if (l->first_row_index < 0 || l->first_row_index > num_rows) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "page %u: first_row_index %lld is outside the row "
                     "group's %lld rows",
                     i, (long long)l->first_row_index, (long long)num_rows);
    }
  }
  if (oi->n_pages > 0 && oi->pages[0].first_row_index != 0) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "page 0: first_row_index is %lld, not 0",
                   (long long)oi->pages[0].first_row_index);
  }
  for (uint32_t i = 0; oi->unencoded_byte_array_data_bytes && i < n_unencoded;
       i++) {
    if (oi->unencoded_byte_array_data_bytes[i] < 0) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "page %u: unencoded_byte_array_data_bytes is %lld at "
                     "offset %zu",
                     i, (long long)oi->unencoded_byte_array_data_bytes[i],
                     at);
    }
  }
  return PQ_OK;
}

int pq_offset_index_read(const pq_file *f, uint32_t row_group,
                         uint32_t column, pq_offset_index **out,
                         pq_error *err) {
  char label[PI_LABEL];
  const pq_column_chunk *cc;
  *out = NULL;
  uint64_t at = 0;
  size_t n = 0;
  int found, exact = 0;
  int rc = pi_find(f, row_group, column, 1, &cc, label, &at, &n, &exact,
                   &found, err);
  if (rc || !found) return rc;
  /* Nothing of the offset index points into its bytes: they go once it is
  ** parsed. */
  pq_buf bytes;
  pq_buf_init(&bytes);
  pq_offset_index *oi = NULL;
  for (size_t want = pi_first(f, n, exact); want;) {
    const uint8_t *p;
    rc = pq_file_span(f, at, want, &bytes, &p, label, err);
    if (rc) break;
    pq_parser ps;
    memset(&ps, 0, sizeof ps);
    pq_thrift_init(&ps.t, p, want, (size_t)at, label, err);
    oi = pq_calloc(1, sizeof *oi);
    if (!oi) {
      rc = pq_nomem(err, label);
      break;
    }
    int has_locations = 0;
    uint32_t n_unencoded = 0;
    pi_parse_offset_index(&ps, oi, &has_locations, &n_unencoded);
    rc = ps.nomem ? pq_nomem(err, label) : ps.t.failed;
    if (rc == PQ_OK && !has_locations) {
      rc = pq_fail(err, PQ_CORRUPT, label,
                   "the required field page_locations is missing at offset "
                   "%lld",
                   (long long)cc->offset_index_offset);
    }
    if (rc == PQ_OK) {
      const pq_file_meta *m = pq_file_metadata(f);
      rc = pi_check_offset_index(f, cc, m->row_groups[row_group].num_rows, oi,
                                 n_unencoded, (size_t)cc->offset_index_offset,
                                 label, err);
    }
    if (rc == PQ_OK) break;
    pq_offset_index_free(oi);
    oi = NULL;
    want = pi_more(rc, &ps, want, n);
  }
  pq_buf_free(&bytes);
  if (rc) return rc;
  *out = oi;
  return PQ_OK;
}
