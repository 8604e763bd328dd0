/*
** column.c -- a column chunk's entries: levels and values across its pages.
**
** Each data page is decoded with the decoders of the encodings: its levels
** with RLE (or BIT_PACKED), its values with the page's encoding and, for
** dictionary encodings, the chunk's dictionary.  The values a page holds
** must be exactly those its definition levels call for.
*/
#include "reader.h"

#include <stdio.h>

struct pq_column_reader {
  pq_page_reader *pages;
  const pq_schema_node *leaf;
  pq_type type;
  int32_t type_length;
  pq_page page;              /* the current data page */
  int32_t left;              /* its entries not yet read */
  pq_decoder *rep, *def, *values;
  uint32_t tmp[256];         /* levels before narrowing */
  int may_have_dict;         /* the chunk says it has a dictionary */
  int32_t index_max;         /* pq_column_reader_indices */
  const pq_dict *dict;       /* the page's, when its values are indices */
  char label[160];
};

static void close_page(pq_column_reader *r) {
  pq_decoder_free(r->rep);
  pq_decoder_free(r->def);
  pq_decoder_free(r->values);
  r->rep = r->def = r->values = NULL;
  r->dict = NULL;
}

/* A decoder of a page's levels. */
static int open_levels(pq_column_reader *r, const pq_bytes *lv, int32_t enc,
                       int max, pq_decoder **out, pq_error *err) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = enc == PQ_BIT_PACKED ? PQ_BIT_PACKED : PQ_RLE;
  p.type = PQ_INT32;
  p.type_set = 1;
  p.bit_width = pq_bit_width64((uint64_t)max);
  p.count = r->page.num_values;
  p.length_prefix = r->page.page_type == PQ_DATA_PAGE && enc == PQ_RLE;
  return pq_decoder_open(out, &p, lv->ptr, lv->len, NULL, 0, err);
}

/* Moves to the next data page; sets r->left to 0 at the end. */
static int open_next_page(pq_column_reader *r, pq_error *err) {
  close_page(r);
  for (;;) {
    int got, rc = pq_page_reader_next(r->pages, &r->page, &got, err);
    if (rc) return rc;
    if (!got) {
      r->left = 0;
      return PQ_OK;
    }
    if (r->page.page_type == PQ_DATA_PAGE ||
        r->page.page_type == PQ_DATA_PAGE_V2)
      break;
  }
  pq_page *pg = &r->page;
  pq_error e;
  int is_dict = pg->encoding == PQ_PLAIN_DICTIONARY ||
                pg->encoding == PQ_RLE_DICTIONARY;
  if (pg->encoding < 0 || pg->encoding >= PQ_ENCODING_COUNT ||
      (!is_dict && !pq_encoding_supports((pq_encoding)pg->encoding, r->type))) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   "page %u: encoding %s cannot hold %s values", pg->index,
                   pq_encoding_name((pq_encoding)pg->encoding),
                   pq_type_name(r->type));
  }
  const pq_bytes *dict = NULL;
  if (is_dict) {
    dict = pq_page_reader_dictionary(r->pages, NULL);
    if (!dict) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "page %u: dictionary-encoded, but the chunk has no "
                     "dictionary page before it",
                     pg->index);
    }
  }
  int rc = PQ_OK;
  if (pg->max_rep > 0) {
    rc = open_levels(r, &pg->rep_levels, pg->rep_encoding, pg->max_rep,
                     &r->rep, &e);
  }
  if (rc == PQ_OK && pg->max_def > 0) {
    rc = open_levels(r, &pg->def_levels, pg->def_encoding, pg->max_def,
                     &r->def, &e);
  }
  if (rc == PQ_OK) {
    pq_params p;
    pq_params_init(&p);
    p.encoding = (pq_encoding)pg->encoding;
    p.type = r->type;
    p.type_length = r->type_length;
    p.type_set = 1;
    p.count = pg->value_count;
    if (pg->encoding == PQ_RLE) p.length_prefix = 1; /* booleans in pages */
    p.lenient = 1;
    rc = pq_decoder_open(&r->values, &p, pg->values.ptr, pg->values.len,
                         dict ? dict->ptr : NULL, dict ? dict->len : 0, &e);
    const pq_dict *d = rc == PQ_OK && dict ? pq_dict_decoder_dict(r->values)
                                           : NULL;
    if (d && r->index_max > 0 && d->entries <= (size_t)r->index_max)
      r->dict = pq_dict_decoder_indices(r->values);
  }
  if (rc) {
    return pq_fail(err, rc == PQ_NOMEM ? PQ_NOMEM : PQ_CORRUPT, r->label,
                   "page %u: %s", pg->index, e.msg);
  }
  /* Fixed-width values fill their stream exactly. */
  size_t w = pq_plain_width(r->type, r->type_length);
  if ((pg->encoding == PQ_PLAIN || pg->encoding == PQ_BYTE_STREAM_SPLIT) && w &&
      pg->values.len != (uint64_t)pg->value_count * w) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   "page %u: %lld values of %zu bytes, but %zu bytes of them",
                   pg->index, (long long)pg->value_count, w, pg->values.len);
  }
  r->left = pg->num_values;
  return PQ_OK;
}

int pq_column_reader_open(pq_column_reader **out, const pq_file *f,
                          uint32_t row_group, uint32_t column, size_t limit,
                          pq_error *err) {
  *out = NULL;
  pq_column_reader *r = pq_calloc(1, sizeof *r);
  if (!r) return pq_nomem(err, "column");
  int rc = pq_page_reader_open(&r->pages, f, row_group, column, limit, err);
  if (rc) {
    pq_free(r);
    return rc;
  }
  r->leaf = pq_file_leaf(f, column);
  r->type = r->leaf->elem->type;
  r->type_length = r->leaf->elem->type_length;
  snprintf(r->label, sizeof r->label, "column '%s', row group %u",
           r->leaf->path ? r->leaf->path : "", row_group);
  const pq_column_meta *cm =
      &pq_file_metadata(f)->row_groups[row_group].columns[column].meta;
  r->may_have_dict = cm->dictionary_page_offset > 0;
  for (uint32_t i = 0; i < cm->n_encodings; i++) {
    if (cm->encodings[i] == PQ_PLAIN_DICTIONARY ||
        cm->encodings[i] == PQ_RLE_DICTIONARY)
      r->may_have_dict = 1;
  }
  *out = r;
  return PQ_OK;
}

/* Reads n levels from d into out (zeros when there is no decoder). */
static int read_levels(pq_column_reader *r, pq_decoder *d, uint16_t *out,
                       size_t n, const char *what, pq_error *err) {
  size_t k = 0;
  while (k < n) {
    size_t m = n - k < 256 ? n - k : 256, got = 0;
    int rc = d ? pq_decoder_read(d, r->tmp, m, &got, err) : PQ_OK;
    if (!d) {
      memset(r->tmp, 0, m * sizeof r->tmp[0]);
      got = m;
    }
    if (rc == PQ_OK && got < m) {
      rc = pq_fail(err, PQ_CORRUPT, r->label, "page %u: %s levels end early",
                   r->page.index, what);
    }
    if (rc) return rc;
    if (out) {
      for (size_t i = 0; i < got; i++) out[k + i] = (uint16_t)r->tmp[i];
    }
    k += got;
  }
  return PQ_OK;
}

int pq_column_reader_read(pq_column_reader *r, size_t max, uint16_t *rep,
                          uint16_t *def, void *values, size_t *n, size_t *nv,
                          pq_error *err) {
  *n = *nv = 0;
  if (r->left == 0) {
    int rc = open_next_page(r, err);
    if (rc) return rc;
    if (r->left == 0) return PQ_OK;
  }
  /* At most 256 entries: a decoder hands out up to 256 rebuilt byte arrays
  ** at a time, and one call must cover all the values of the entries. */
  if (max > 256) max = 256;
  size_t m = (size_t)r->left < max ? (size_t)r->left : max;
  int rc = read_levels(r, r->rep, rep, m, "repetition", err);
  if (rc) return rc;
  /* Definition levels are needed to count the values, even when the caller
  ** does not want them. */
  uint16_t own[256];
  size_t done = 0, defined = 0;
  while (done < m) {
    size_t k = m - done < 256 ? m - done : 256;
    uint16_t *d = def ? def + done : own;
    rc = read_levels(r, r->def, d, k, "definition", err);
    if (rc) return rc;
    for (size_t i = 0; i < k; i++) defined += d[i] == r->page.max_def;
    done += k;
  }
  size_t got = 0;
  if (defined) {
    pq_error e;
    rc = pq_decoder_read(r->values, values, defined, &got, &e);
    if (rc == PQ_OK && got < defined) {
      rc = pq_fail(&e, PQ_CORRUPT, pq_encoding_name((pq_encoding)r->page.encoding),
                   "%zu values where the levels call for %zu", got, defined);
    }
    if (rc) {
      return pq_fail(err, rc == PQ_NOMEM ? PQ_NOMEM : PQ_CORRUPT, r->label,
                     "page %u: %s", r->page.index, e.msg);
    }
  }
  r->left -= (int32_t)m;
  *n = m;
  *nv = got;
  return PQ_OK;
}

void pq_column_reader_indices(pq_column_reader *r, int32_t max_entries) {
  r->index_max = max_entries;
}

const pq_dict *pq_column_reader_dict(const pq_column_reader *r,
                                     const pq_bytes **page) {
  if (r->dict && page) *page = pq_page_reader_dictionary(r->pages, NULL);
  return r->dict;
}

int64_t pq_column_reader_bytes(const pq_column_reader *r) {
  return pq_page_reader_bytes(r->pages);
}

int pq_column_reader_seek(pq_column_reader *r, int64_t offset, uint32_t page,
                          int64_t values_before, pq_error *err) {
  close_page(r);
  r->left = 0;
  if (r->may_have_dict && pq_page_reader_pages(r->pages) == 0) {
    int got;
    int rc = pq_page_reader_next(r->pages, &r->page, &got, err);
    if (rc) return rc;
  }
  return pq_page_reader_seek(r->pages, offset, page, values_before, err);
}

void pq_column_reader_check_rows(pq_column_reader *r,
                                 const pq_offset_index *oi, int64_t rows) {
  pq_page_reader_check_rows(r->pages, oi, rows);
}

int pq_column_reader_skip_pages(pq_column_reader *r, int64_t entries,
                                int64_t *skipped, pq_error *err) {
  *skipped = 0;
  if (r->left > 0) return PQ_OK;
  close_page(r);
  return pq_page_reader_skip(r->pages, entries, skipped, err);
}

void pq_column_reader_swap_room(pq_column_reader *r, pq_read_room *room) {
  close_page(r); /* its decoders read the page */
  r->left = 0;
  pq_page_reader_swap_room(r->pages, room);
}

void pq_column_reader_free(pq_column_reader *r) {
  if (!r) return;
  close_page(r);
  pq_page_reader_free(r->pages);
  pq_free(r);
}
