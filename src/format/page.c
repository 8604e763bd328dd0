/*
** page.c -- the pages of a column chunk (spec/README.md, "Data Pages";
** parquet.thrift, PageHeader).
**
**   <PageHeader> <page bytes, compressed_page_size of them>
**   data page v1:  compressed( [rep levels] [def levels] values )
**                  RLE levels carry a 4-byte length; BIT_PACKED ones take
**                  ceil(num_values * bit width / 8) bytes
**   data page v2:  [rep levels] [def levels] compressed-or-not( values )
**                  levels without a length; their sizes are in the header
**   dictionary:    compressed( the PLAIN entries )
**
** Every page's sizes are checked against the chunk, its CRC (when the
** header has one) against its bytes, and its levels are decoded to count
** the values of the page and to check them against the column's maxima.
*/
#include "format.h"

#include <stdio.h>

/* A file without an image is read a window at a time.  The first read of
** a chunk, and the first after a seek, takes only what it needs (a page
** header's first bytes, then the page): a point query reads its pages and
** little more.  Each read that goes on from the window before (from
** inside it, or its end) takes more, up to the chunk's end: READ_FIRST,
** then twice as much each time, up to READ_MOST, so that a scan makes few
** calls; and tells the source of the window after it (its prefetch),
** which it may fetch while this one is decoded. */
#define READ_FIRST ((size_t)64 << 10)
#define READ_MOST ((size_t)1 << 20)
/* A page header is read from this many bytes first, more if it is longer. */
#define HEADER_FIRST ((size_t)1 << 10)

struct pq_page_reader {
  const pq_file *f;
  const uint8_t *buf;        /* the file's bytes from offset buf_at on: the
                             ** image (buf_at 0), or the window read */
  size_t buf_at, buf_len;
  pq_buf win;                /* the window's memory */
  size_t ahead;              /* what a window read in order takes past
                             ** the need (0: none yet) */
  size_t next_at;            /* where the last window read ended */
  size_t pos, end;           /* the chunk's bytes still to read */
  const pq_column_meta *meta;
  const pq_schema_node *leaf;
  size_t limit;
  int64_t values_seen;       /* level entries of the data pages so far */
  uint32_t pages;
  int rows_started;          /* a first repetition level has been seen */
  char label[160];           /* "column 'a.b', row group 0" */
  pq_buf page;               /* the current page, decompressed */
  pq_buf dict;               /* the chunk's dictionary, decompressed */
  int has_dict;
  int32_t dict_entries;
  pq_bytes dict_bytes;       /* what pq_page_reader_dictionary gives */
  int64_t bytes_read;        /* headers and bodies of the pages read */
  uint32_t dict_header;      /* the size of the dictionary page's header */
  int stretched;             /* the chunk's end moved past that header */
  size_t data_end;           /* where the footer begins */
  const pq_offset_index *oi; /* pages to check against (flat columns) */
  int64_t oi_rows;           /* the row group's rows */
};

static int bit_width_of(int max) { return pq_bit_width64((uint64_t)max); }

/* The file's byte at offset `at`, which need() made addressable. */
#define AT(r, at) ((r)->buf + ((at) - (r)->buf_at))

/* Makes the file's bytes [at, at + n) addressable (AT), reading a window
** from `at` when they are not: n bytes, or, when `window` and the read
** goes on in order, more, up to r->ahead of them but not past the chunk's
** end.  [at, at + n) lies inside the file's data (the callers check sizes
** against the chunk first). */
static int need(pq_page_reader *r, size_t at, size_t n, int window,
                pq_error *err) {
  if (at >= r->buf_at && n <= r->buf_len && at - r->buf_at <= r->buf_len - n)
    return PQ_OK;
  /* In order: this window begins inside the one before, or where it
  ** ended (a page that ran past its end is read again from its start). */
  int in_order = window && r->buf_len && at > r->buf_at && at <= r->next_at;
  if (in_order) {
    r->ahead = !r->ahead                 ? READ_FIRST
               : r->ahead < READ_MOST / 2 ? 2 * r->ahead
                                          : READ_MOST;
  }
  size_t to_end = r->end > at ? r->end - at : 0;
  size_t ahead = in_order ? r->ahead : 0;
  size_t want = to_end < ahead ? to_end : ahead;
  if (want < n) want = n;
  r->buf_len = 0; /* the window is gone, whatever the read does */
  const uint8_t *p;
  int rc = pq_file_span(r->f, at, want, &r->win, &p, r->label, err);
  if (rc) return rc;
  r->buf = p;
  r->buf_at = at;
  r->buf_len = want;
  r->next_at = at + want;
  const pq_input *in = &r->f->in;
  if (in_order && in->prefetch && r->next_at < r->end) {
    size_t left = r->end - r->next_at;
    in->prefetch(in->ctx, r->next_at, left < r->ahead ? left : r->ahead);
  }
  return PQ_OK;
}

/* ---- The page header ------------------------------------------------------- */

static void parse_data_header(pq_parser *ps, pq_page *p, int *seen) {
  pq_thrift *t = &ps->t;
  int type;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return;
  while (pq_thrift_field(t, &type, &last, &id)) {
    if (id >= 1 && id <= 4 && pq_parse_want(ps, type, PQ_TT_I32)) {
      int32_t v = pq_thrift_i32(t);
      if (id == 1) p->num_values = v;
      if (id == 2) p->encoding = v;
      if (id == 3) p->def_encoding = v;
      if (id == 4) p->rep_encoding = v;
      *seen |= 1 << id;
    } else if (id == 5 && pq_parse_want(ps, type, PQ_TT_STRUCT)) {
      p->has_statistics = 1;
      pq_parse_statistics(ps, &p->statistics);
    } else if (id < 1 || id > 5) {
      pq_thrift_skip(t, type);
    }
  }
  pq_thrift_leave(t);
}

static void parse_dict_header(pq_parser *ps, pq_page *p, int *seen) {
  pq_thrift *t = &ps->t;
  int type;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return;
  while (pq_thrift_field(t, &type, &last, &id)) {
    if (id <= 2 && id >= 1 && pq_parse_want(ps, type, PQ_TT_I32)) {
      int32_t v = pq_thrift_i32(t);
      if (id == 1) p->num_values = v;
      if (id == 2) p->encoding = v;
      *seen |= 1 << id;
    } else if (id == 3 && pq_parse_want(ps, type, PQ_TT_TRUE)) {
      p->is_sorted = type == PQ_TT_TRUE;
    } else if (id < 1 || id > 3) {
      pq_thrift_skip(t, type);
    }
  }
  pq_thrift_leave(t);
}

/* v2: the level byte lengths go in def_len/rep_len. */
static void parse_v2_header(pq_parser *ps, pq_page *p, int32_t *def_len,
                            int32_t *rep_len, int *seen) {
  pq_thrift *t = &ps->t;
  int type;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return;
  while (pq_thrift_field(t, &type, &last, &id)) {
    if (id >= 1 && id <= 6 && pq_parse_want(ps, type, PQ_TT_I32)) {
      int32_t v = pq_thrift_i32(t);
      switch (id) {
        case 1: p->num_values = v; break;
        case 2: p->num_nulls = v; break;
        case 3: p->num_rows = v; break;
        case 4: p->encoding = v; break;
        case 5: *def_len = v; break;
        case 6: *rep_len = v; break;
      }
      *seen |= 1 << id;
    } else if (id == 7 && pq_parse_want(ps, type, PQ_TT_TRUE)) {
      p->is_compressed = type == PQ_TT_TRUE;
    } else if (id == 8 && pq_parse_want(ps, type, PQ_TT_STRUCT)) {
      p->has_statistics = 1;
      pq_parse_statistics(ps, &p->statistics);
    } else if (id < 1 || id > 8) {
      pq_thrift_skip(t, type);
    }
  }
  pq_thrift_leave(t);
}

int pq_page_header_read(pq_page *p, const uint8_t *buf, size_t len,
                        size_t base, const char *label, int32_t *def_len,
                        int32_t *rep_len, const char **missing,
                        pq_error *err) {
  pq_parser ps;
  memset(&ps, 0, sizeof ps);
  pq_thrift_init(&ps.t, buf, len, base, label, err);
  int type, seen = 0, sub = 0, want_sub = 0;
  int16_t id, last = 0;
  *missing = NULL;
  p->page_type = -1;
  while (pq_thrift_field(&ps.t, &type, &last, &id)) {
    if (id >= 1 && id <= 4 && pq_parse_want(&ps, type, PQ_TT_I32)) {
      int32_t v = pq_thrift_i32(&ps.t);
      if (id == 1) p->page_type = v;
      if (id == 2) p->uncompressed_size = v;
      if (id == 3) p->compressed_size = v;
      if (id == 4) p->has_crc = 1, p->crc = (uint32_t)v;
      seen |= 1 << id;
    } else if (id == 5 && pq_parse_want(&ps, type, PQ_TT_STRUCT)) {
      parse_data_header(&ps, p, &sub);
      want_sub |= 1 << PQ_DATA_PAGE;
    } else if (id == 7 && pq_parse_want(&ps, type, PQ_TT_STRUCT)) {
      parse_dict_header(&ps, p, &sub);
      want_sub |= 1 << PQ_DICTIONARY_PAGE;
    } else if (id == 8 && pq_parse_want(&ps, type, PQ_TT_STRUCT)) {
      parse_v2_header(&ps, p, def_len, rep_len, &sub);
      want_sub |= 1 << PQ_DATA_PAGE_V2;
    } else if (id < 1 || id > 8 || id == 6) {
      pq_thrift_skip(&ps.t, type);
    }
  }
  if (ps.t.failed) return ps.t.failed;
  p->header_size = (uint32_t)ps.t.pos;
  if ((seen & 0xe) != 0xe) {
    *missing = "its type or sizes";
  } else if (p->page_type == PQ_DATA_PAGE &&
             (!(want_sub & 1 << PQ_DATA_PAGE) || (sub & 0x1e) != 0x1e)) {
    *missing = "the fields of a data page";
  } else if (p->page_type == PQ_DICTIONARY_PAGE &&
             (!(want_sub & 1 << PQ_DICTIONARY_PAGE) || (sub & 0x6) != 0x6)) {
    *missing = "the fields of a dictionary page";
  } else if (p->page_type == PQ_DATA_PAGE_V2 &&
             (!(want_sub & 1 << PQ_DATA_PAGE_V2) || (sub & 0x7e) != 0x7e)) {
    *missing = "the fields of a data page v2";
  }
  return PQ_OK;
}

/* The bytes of the page at pos, header included, when the offset index
** lists a page there, or when it is the chunk's dictionary page, before
** the data page its chunk names; else 0. */
static size_t listed_size(const pq_page_reader *r, size_t pos) {
  const pq_column_meta *m = r->meta;
  if (m->dictionary_page_offset >= 0 &&
      (int64_t)pos == m->dictionary_page_offset &&
      m->data_page_offset > m->dictionary_page_offset)
    return (size_t)(m->data_page_offset - m->dictionary_page_offset);
  const pq_offset_index *oi = r->oi;
  if (!oi || !oi->n_pages) return 0;
  uint32_t lo = 0, hi = oi->n_pages;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (oi->pages[mid].offset < (int64_t)pos) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == oi->n_pages || oi->pages[lo].offset != (int64_t)pos ||
      oi->pages[lo].compressed_page_size <= 0)
    return 0;
  return (size_t)oi->pages[lo].compressed_page_size;
}

/* Reads the PageHeader at r->pos into p, from the reader's window
** (`window`), or from the header's bytes only.  A page the offset index
** lists is read whole with its header, in one read, when it is not
** larger than a page may be: a point query's page is one read (one
** request of a URL). */
static int parse_page_header(pq_page_reader *r, pq_page *p, int window,
                             int32_t *def_len, int32_t *rep_len,
                             pq_error *err) {
  char label[200];
  snprintf(label, sizeof label, "%s, page %u: page header", r->label,
           r->pages);
  const char *missing;
  size_t left = r->end - r->pos;
  size_t avail = left < HEADER_FIRST ? left : HEADER_FIRST;
  /* (also when only the header is wanted: the index lists the pages a
  ** reader goes to, whose bodies it then reads) */
  size_t listed = listed_size(r, r->pos);
  if (listed && listed <= left && listed <= r->limit) avail = listed;
  int rc;
  /* Read from more bytes while the header may run past those read (a
  ** header of long statistics), up to the chunk's end, at most the limit
  ** of a page. */
  for (;;) {
    rc = need(r, r->pos, avail, window, err);
    if (rc) return rc;
    size_t have = r->buf_len - (r->pos - r->buf_at);
    if (have > left) have = left;
    rc = pq_page_header_read(p, AT(r, r->pos), have, r->pos, label, def_len,
                             rep_len, &missing, err);
    if (rc != PQ_CORRUPT || have == left || have >= r->limit) break;
    avail = have > left / 4 ? left : 4 * have;
    if (avail > r->limit) avail = r->limit > have ? r->limit : have;
    if (avail <= have) break;
  }
  if (rc) return rc;
  if (missing) {
    return pq_fail(err, PQ_CORRUPT, r->label, "page %u at offset %zu: the header lacks %s",
                   r->pages, r->pos, missing);
  }
  return PQ_OK;
}

/* ---- Levels ---------------------------------------------------------------- */

/* Splits the levels of kind `what` off the front of a v1 page at *pos:
** RLE with its 4-byte length, or BIT_PACKED. */
static int take_v1_levels(pq_page_reader *r, const pq_page *p,
                          const uint8_t *u, size_t n, size_t *pos,
                          int32_t enc, int max, const char *what,
                          pq_bytes *out, pq_error *err) {
  size_t left = n - *pos;
  size_t size;
  if (enc == PQ_RLE) {
    if (left < 4) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "page %u: the %s levels' 4-byte length is cut short",
                     p->index, what);
    }
    uint32_t len = pq_load32(u + *pos);
    if (len > left - 4) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "page %u: the %s levels take %u bytes, %zu remain",
                     p->index, what, len, left - 4);
    }
    size = 4 + (size_t)len;
  } else if (enc == PQ_BIT_PACKED) {
    uint64_t bits = (uint64_t)p->num_values * (uint64_t)bit_width_of(max);
    if ((bits + 7) / 8 > left) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "page %u: %d bit-packed %s levels need %llu bytes, %zu "
                     "remain",
                     p->index, p->num_values, what,
                     (unsigned long long)((bits + 7) / 8), left);
    }
    size = (size_t)((bits + 7) / 8);
  } else {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   "page %u: the %s levels' encoding %d is neither RLE nor "
                   "BIT_PACKED",
                   p->index, what, enc);
  }
  out->ptr = u + *pos;
  out->len = size;
  *pos += size;
  return PQ_OK;
}

/* Decodes a page's levels: checks there are num_values of them, each at
** most max; counts those equal to max into *at_max, and gives the first. */
static int check_levels(pq_page_reader *r, const pq_page *p,
                        const pq_bytes *lv, int32_t enc, int max,
                        const char *what, uint64_t *at_max, uint32_t *first,
                        pq_error *err) {
  pq_params pp;
  pq_params_init(&pp);
  pp.encoding = enc == PQ_BIT_PACKED ? PQ_BIT_PACKED : PQ_RLE;
  pp.type = PQ_INT32;
  pp.type_set = 1;
  pp.bit_width = bit_width_of(max);
  pp.count = p->num_values;
  pp.length_prefix = p->page_type == PQ_DATA_PAGE && enc == PQ_RLE;
  pq_decoder *d;
  pq_error e;
  int rc = pq_decoder_open(&d, &pp, lv->ptr, lv->len, NULL, 0, &e);
  uint32_t v[512];
  *at_max = 0;
  *first = 0;
  uint64_t seen = 0;
  /* RLE levels run by run: a run of repeats is counted at once. */
  pq_rle_reader *runs = rc == PQ_OK ? pq_rle_decoder_runs(d) : NULL;
  uint64_t count = p->num_values > 0 ? (uint64_t)p->num_values : 0;
  while (rc == PQ_OK) {
    size_t n = 0;
    const uint32_t *vals = v;
    uint32_t value = 0;
    if (runs) {
      if (seen >= count) break;
      size_t want = count - seen < 512 ? (size_t)(count - seen) : 512;
      rc = pq_rle_reader_next(runs, v, want, &vals, &value, &n, &e);
      if (rc == PQ_OK && n == 0) rc = pq_fail_count(&e, "RLE", seen, count);
    } else {
      rc = pq_decoder_read(d, v, 512, &n, &e);
    }
    if (rc || n == 0) break;
    uint32_t top = value;
    uint64_t here = 0;
    if (vals) {
      value = vals[0];
      for (size_t i = 0; i < n; i++) {
        top = vals[i] > top ? vals[i] : top;
        here += vals[i] == (uint32_t)max;
      }
    } else {
      here = value == (uint32_t)max ? n : 0;
    }
    if (seen == 0) *first = value;
    if (top > (uint32_t)max) {
      size_t i = 0;
      while (vals && vals[i] <= (uint32_t)max) i++;
      pq_decoder_free(d);
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "page %u: %s level %u of value %llu is above the "
                     "column's maximum %d",
                     p->index, what, vals ? vals[i] : value,
                     (unsigned long long)(seen + i), max);
    }
    *at_max += here;
    seen += n;
  }
  pq_decoder_free(d);
  if (rc) {
    return pq_fail(err, rc == PQ_NOMEM ? PQ_NOMEM : PQ_CORRUPT, r->label,
                   "page %u: %s levels: %s", p->index, what, e.msg);
  }
  return PQ_OK;
}

/* ---- Reading pages ----------------------------------------------------------- */

int pq_page_reader_open(pq_page_reader **out, const pq_file *f,
                        uint32_t row_group, uint32_t column, size_t limit,
                        pq_error *err) {
  *out = NULL;
  const pq_file_meta *m = pq_file_metadata(f);
  if (row_group >= m->n_row_groups || column >= pq_file_leaf_count(f)) {
    return pq_fail(err, PQ_MISUSE, "file", "no column %u in row group %u",
                   column, row_group);
  }
  const pq_column_chunk *cc = &m->row_groups[row_group].columns[column];
  const pq_schema_node *leaf = pq_file_leaf(f, column);
  char label[160];
  snprintf(label, sizeof label, "column '%s', row group %u",
           leaf->path ? leaf->path : "", row_group);
  if (cc->encrypted) {
    return pq_fail(err, PQ_UNSUPPORTED, label,
                   "the column is encrypted: encrypted files are not "
                   "supported");
  }
  if (cc->has_file_path) {
    return pq_fail(err, PQ_UNSUPPORTED, label,
                   "the chunk is in another file ('%.*s')",
                   (int)cc->file_path.len, (const char *)cc->file_path.ptr);
  }
  if (!cc->has_meta_data) {
    return pq_fail(err, PQ_CORRUPT, label, "the chunk has no metadata");
  }
  const pq_column_meta *cm = &cc->meta;
  if (cm->type != leaf->elem->type) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "the chunk says %s, the schema %s", pq_type_name(cm->type),
                   pq_type_name(leaf->elem->type));
  }
  if (cm->num_values < 0) {
    return pq_fail(err, PQ_CORRUPT, label, "the chunk has %lld values",
                   (long long)cm->num_values);
  }
  size_t len = f->len;
  pq_page_reader *r = pq_calloc(1, sizeof *r);
  if (!r) return pq_nomem(err, label);
  r->f = f;
  r->buf = f->buf;
  r->buf_at = 0;
  r->buf_len = f->buf ? len : 0;
  r->ahead = 0;
  r->meta = cm;
  r->leaf = leaf;
  r->limit = limit;
  memcpy(r->label, label, sizeof label);
  *out = r;
  /* A chunk of no values has no pages to read, whatever its offsets say. */
  if (cm->num_values == 0) return PQ_OK;
  /* Some writers put 0 in dictionary_page_offset for "none". */
  int64_t start = cm->data_page_offset;
  if (cm->dictionary_page_offset > 0 &&
      cm->dictionary_page_offset < cm->data_page_offset)
    start = cm->dictionary_page_offset;
  int64_t size = cm->total_compressed_size;
  size_t data_end = f->data_end; /* the footer's start */
  if (start < 4 || size < 0 || (uint64_t)start > data_end ||
      (uint64_t)size > data_end - (uint64_t)start) {
    *out = NULL;
    pq_page_reader_free(r);
    return pq_fail(err, PQ_CORRUPT, label,
                   "the chunk's %lld bytes at offset %lld are not inside the "
                   "file's data (offsets 4 to %zu)",
                   (long long)size, (long long)start, data_end);
  }
  r->pos = (size_t)start;
  r->end = (size_t)(start + size);
  r->data_end = data_end;
  return PQ_OK;
}

/* parquet-mr (PARQUET-1609 era) left the dictionary page's header out of
** a chunk's total_compressed_size: when a page overruns the chunk by at
** most that header, and the file has the bytes, the chunk is taken to end
** that much later, as Arrow and DuckDB read such files. */
static void stretch_chunk(pq_page_reader *r, size_t at, size_t n) {
  if (r->has_dict && !r->stretched && at + n > r->end &&
      at + n - r->end <= r->dict_header && r->end + r->dict_header <= r->data_end) {
    r->end += r->dict_header;
    r->stretched = 1;
  }
}

/* Decompresses n bytes at src into r->page (or keeps them, uncompressed). */
static int inflate_into(pq_page_reader *r, const pq_page *p, pq_buf *to,
                        const uint8_t *src, size_t n, int compressed,
                        int64_t expected, pq_error *err) {
  to->len = 0;
  if (!compressed || r->meta->codec == PQ_UNCOMPRESSED) {
    if (expected >= 0 && (uint64_t)expected != n) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "page %u: uncompressed, yet %zu bytes where the header "
                     "says %lld",
                     p->index, n, (long long)expected);
    }
    pq_buf_append(to, src, n);
    return to->oom ? pq_nomem(err, r->label) : PQ_OK;
  }
  if (expected > 0 && (uint64_t)expected > r->limit) {
    return pq_fail(err, PQ_TOOBIG, r->label,
                   "page %u: its %lld uncompressed bytes exceed the limit of "
                   "%zu bytes",
                   p->index, (long long)expected, r->limit);
  }
  /* A zero-byte section needs no codec (and is not a valid stream of
  ** most). */
  if (n == 0 && expected <= 0) return PQ_OK;
  pq_error e;
  int rc = pq_decompress((pq_codec)r->meta->codec, src, n, expected, r->limit,
                         to, &e);
  if (rc) {
    return pq_fail(err, rc, r->label, "page %u: %s", p->index, e.msg);
  }
  return PQ_OK;
}

/* A data page of a flat column against the offset index it was given
** (pq_page_reader_check_rows): the page at an offset the index lists holds
** the rows the index says, up to the next page's first row (the last
** page listed: at most up to the row group's end, as an index that lists
** too few pages says of it).  With every page read checked, a reader that
** goes to a page by the index starts it at the row the page starts at. */
static int check_location(const pq_page_reader *r, const pq_page *p,
                          pq_error *err) {
  const pq_offset_index *oi = r->oi;
  if (!oi || !oi->n_pages || r->leaf->max_rep > 0 ||
      (p->page_type != PQ_DATA_PAGE && p->page_type != PQ_DATA_PAGE_V2))
    return PQ_OK;
  uint32_t lo = 0, hi = oi->n_pages;
  while (lo < hi) { /* the first page listed at or after p */
    uint32_t mid = lo + (hi - lo) / 2;
    if (oi->pages[mid].offset < p->offset) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == oi->n_pages || oi->pages[lo].offset != p->offset) return PQ_OK;
  const pq_page_location *l = &oi->pages[lo];
  int last = lo + 1 == oi->n_pages;
  int64_t says = (last ? r->oi_rows : l[1].first_row_index) -
                 l->first_row_index;
  if (p->num_values == says || (last && p->num_values < says)) return PQ_OK;
  return pq_fail(err, PQ_CORRUPT, r->label,
                 "page at offset %lld: its header says %d rows, the offset "
                 "index %s%lld (rows %lld to %lld): the offset index does "
                 "not describe the chunk",
                 (long long)p->offset, p->num_values, last ? "at most " : "",
                 (long long)says, (long long)l->first_row_index,
                 (long long)(l->first_row_index + says - 1));
}

/* Reads the page at r->pos into p. */
static int read_page(pq_page_reader *r, pq_page *p, pq_error *err) {
  p->index = r->pages;
  p->offset = (int64_t)r->pos;
  p->num_nulls = p->num_rows = -1;
  p->def_encoding = p->rep_encoding = -1;
  p->is_compressed = 1;
  p->is_sorted = -1;
  p->max_def = r->leaf->max_def;
  p->max_rep = r->leaf->max_rep;
  int32_t def_len = 0, rep_len = 0;
  int rc = parse_page_header(r, p, 1, &def_len, &rep_len, err);
  if (rc == PQ_OK) rc = check_location(r, p, err);
  if (rc) return rc;
  size_t at = r->pos + p->header_size;
  if (p->compressed_size >= 0) stretch_chunk(r, at, (size_t)p->compressed_size);
  if (p->compressed_size < 0 || p->uncompressed_size < 0 ||
      (size_t)p->compressed_size > r->end - at) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                    "page %u at offset %lld: %d bytes of page where the chunk "
                    "has %zu left",
                    p->index, (long long)p->offset, p->compressed_size,
                    r->end - at);
  }
  size_t n = (size_t)p->compressed_size;
  /* The header and the page in one window; a new window holds the header
  ** elsewhere, and what p points into it is read again from there. */
  const uint8_t *was = AT(r, r->pos);
  rc = need(r, r->pos, p->header_size + n, 1, err);
  if (rc) return rc;
  if (AT(r, r->pos) != was) {
    uint32_t size = p->header_size;
    rc = parse_page_header(r, p, 0, &def_len, &rep_len, err);
    if (rc) return rc;
    if (p->header_size != size) { /* the same bytes: never */
      return pq_fail(err, PQ_IO, r->label, "page %u: its header changed",
                     p->index);
    }
  }
  p->header.ptr = AT(r, r->pos);
  p->header.len = p->header_size;
  const uint8_t *data = AT(r, at);
  r->pos = at + n;
  r->pages++;
  r->bytes_read += (int64_t)(p->header_size + n);
  if (p->has_crc) {
    uint32_t crc = pq_crc32(0, data, n);
    if (crc != p->crc) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                      "page %u at offset %lld: CRC mismatch: the header says "
                      "%08X, the page's bytes give %08X",
                      p->index, (long long)p->offset, p->crc, crc);
    }
  }
  if (p->num_values < 0) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                    "page %u at offset %lld: the header says %d values",
                    p->index, (long long)p->offset, p->num_values);
  }
  if (p->page_type == PQ_DICTIONARY_PAGE) {
    if (r->has_dict) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                      "page %u: a second dictionary page", p->index);
    }
    rc = inflate_into(r, p, &r->dict, data, n, 1, p->uncompressed_size, err);
    if (rc) return rc;
    r->has_dict = 1;
    r->dict_header = p->header_size;
    r->dict_entries = p->num_values;
    r->dict_bytes.ptr = r->dict.data ? r->dict.data : (const uint8_t *)"";
    r->dict_bytes.len = r->dict.len;
    p->values = r->dict_bytes;
    p->value_count = p->num_values;
    return PQ_OK;
  }
  if (p->page_type != PQ_DATA_PAGE && p->page_type != PQ_DATA_PAGE_V2) {
    return PQ_OK; /* index pages and kinds to come: listed, not read */
  }
  const uint8_t *u;
  size_t un, pos = 0;
  if (p->page_type == PQ_DATA_PAGE) {
    rc = inflate_into(r, p, &r->page, data, n, 1, p->uncompressed_size, err);
    if (rc) return rc;
    u = r->page.data ? r->page.data : (const uint8_t *)"";
    un = r->page.len;
    if (p->max_rep > 0) {
      rc = take_v1_levels(r, p, u, un, &pos, p->rep_encoding, p->max_rep,
                          "repetition", &p->rep_levels, err);
      if (rc) return rc;
    } else {
      p->rep_encoding = -1;
    }
    if (p->max_def > 0) {
      rc = take_v1_levels(r, p, u, un, &pos, p->def_encoding, p->max_def,
                          "definition", &p->def_levels, err);
      if (rc) return rc;
    } else {
      p->def_encoding = -1;
    }
  } else {
    if (def_len < 0 || rep_len < 0 ||
        (uint64_t)def_len + (uint64_t)rep_len > n ||
        (uint64_t)def_len + (uint64_t)rep_len >
            (uint64_t)p->uncompressed_size) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                      "page %u: levels of %d and %d bytes in a page of %zu",
                      p->index, rep_len, def_len, n);
    }
    if (p->num_nulls < 0 || p->num_nulls > p->num_values) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                      "page %u: %d nulls among %d values", p->index,
                      p->num_nulls, p->num_values);
    }
    p->rep_levels.ptr = data;
    p->rep_levels.len = (size_t)rep_len;
    p->def_levels.ptr = data + rep_len;
    p->def_levels.len = (size_t)def_len;
    p->rep_encoding = p->max_rep > 0 ? PQ_RLE : -1;
    p->def_encoding = p->max_def > 0 ? PQ_RLE : -1;
    size_t lv = (size_t)def_len + (size_t)rep_len;
    rc = inflate_into(r, p, &r->page, data + lv, n - lv, p->is_compressed,
                      (int64_t)p->uncompressed_size - (int64_t)lv, err);
    if (rc) return rc;
    u = r->page.data ? r->page.data : (const uint8_t *)"";
    un = r->page.len;
  }
  if (!p->rep_levels.ptr) p->rep_levels.ptr = (const uint8_t *)"";
  if (!p->def_levels.ptr) p->def_levels.ptr = (const uint8_t *)"";
  p->values.ptr = u + pos;
  p->values.len = un - pos;
  /* The levels: all there, none above its maximum; the values stream holds
  ** the entries whose definition level is the maximum. */
  uint64_t defined = (uint64_t)p->num_values, at_max;
  uint32_t first;
  if (p->max_rep > 0) {
    rc = check_levels(r, p, &p->rep_levels, p->rep_encoding, p->max_rep,
                      "repetition", &at_max, &first, err);
    if (rc) return rc;
    if (!r->rows_started && p->num_values > 0) {
      if (first != 0) {
        return pq_fail(err, PQ_CORRUPT, r->label,
                        "page %u: the first repetition level is %u: a chunk "
                        "starts a row, with 0",
                        p->index, first);
      }
      r->rows_started = 1;
    }
  }
  if (p->max_def > 0) {
    rc = check_levels(r, p, &p->def_levels, p->def_encoding, p->max_def,
                      "definition", &defined, &first, err);
    if (rc) return rc;
  }
  if (p->page_type == PQ_DATA_PAGE_V2 &&
      defined != (uint64_t)(p->num_values - p->num_nulls)) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                    "page %u: %d values less %d nulls, but %llu are defined",
                    p->index, p->num_values, p->num_nulls,
                    (unsigned long long)defined);
  }
  p->value_count = (int64_t)defined;
  r->values_seen += p->num_values;
  return PQ_OK;
}

int pq_page_reader_next(pq_page_reader *r, pq_page *p, int *got,
                        pq_error *err) {
  memset(p, 0, sizeof *p);
  *got = 0;
  const pq_column_meta *cm = r->meta;
  if (r->values_seen >= cm->num_values || r->pos >= r->end) {
    if (r->values_seen < cm->num_values) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "the pages hold %lld values, the chunk says %lld",
                     (long long)r->values_seen, (long long)cm->num_values);
    }
    return PQ_OK;
  }
  int rc = read_page(r, p, err);
  if (rc == PQ_OK) *got = 1;
  return rc;
}

const pq_bytes *pq_page_reader_dictionary(const pq_page_reader *r,
                                          int32_t *entries) {
  if (!r->has_dict) return NULL;
  if (entries) *entries = r->dict_entries;
  return &r->dict_bytes;
}

int pq_page_reader_codec(const pq_page_reader *r) { return r->meta->codec; }

int64_t pq_page_reader_bytes(const pq_page_reader *r) { return r->bytes_read; }

int pq_page_reader_skip(pq_page_reader *r, int64_t entries, int64_t *skipped,
                        pq_error *err) {
  *skipped = 0;
  for (;;) {
    if (r->values_seen >= r->meta->num_values || r->pos >= r->end)
      return PQ_OK;
    pq_page p;
    memset(&p, 0, sizeof p);
    p.index = r->pages;
    p.offset = (int64_t)r->pos;
    int32_t def_len = 0, rep_len = 0;
    int rc = parse_page_header(r, &p, 0, &def_len, &rep_len, err);
    if (rc == PQ_OK) rc = check_location(r, &p, err);
    if (rc) return rc;
    if (p.page_type == PQ_DICTIONARY_PAGE && !r->has_dict) {
      rc = read_page(r, &p, err); /* kept for the pages to read */
      if (rc) return rc;
      continue;
    }
    size_t at = r->pos + p.header_size;
    if (p.compressed_size >= 0) stretch_chunk(r, at, (size_t)p.compressed_size);
    if ((p.page_type != PQ_DATA_PAGE && p.page_type != PQ_DATA_PAGE_V2) ||
        p.num_values < 0 || p.num_values > entries - *skipped ||
        p.compressed_size < 0 || (size_t)p.compressed_size > r->end - at ||
        (r->leaf->max_rep > 0 && !r->rows_started))
      return PQ_OK; /* to be read: pq_page_reader_next says what is wrong */
    r->pos = at + (size_t)p.compressed_size;
    r->pages++;
    r->values_seen += p.num_values;
    r->bytes_read += (int64_t)p.header_size;
    *skipped += p.num_values;
  }
}

uint32_t pq_page_reader_pages(const pq_page_reader *r) { return r->pages; }

void pq_page_reader_check_rows(pq_page_reader *r, const pq_offset_index *oi,
                               int64_t rows) {
  r->oi = oi;
  r->oi_rows = rows;
}

int pq_page_reader_seek(pq_page_reader *r, int64_t offset, uint32_t page,
                        int64_t values_before, pq_error *err) {
  if (offset < 0 || (uint64_t)offset < r->pos || (uint64_t)offset >= r->end ||
      values_before < r->values_seen) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   "the offset index puts page %u at offset %lld, outside "
                   "the chunk's pages still to read (offsets %zu to %zu)",
                   page, (long long)offset, r->pos, r->end);
  }
  r->pos = (size_t)offset;
  r->pages = page;
  r->values_seen = values_before;
  r->rows_started = 1;
  r->ahead = 0;
  return PQ_OK;
}

void pq_page_reader_swap_room(pq_page_reader *r, pq_read_room *room) {
  pq_buf w = r->win, pg = r->page;
  /* What the reader's window holds of the file, to give with it. */
  const pq_file *owner = NULL;
  uint64_t at = 0;
  if (!r->f->buf && r->buf_len && r->buf == r->win.data &&
      r->buf_len <= r->win.cap) {
    owner = r->f;
    at = r->buf_at;
    w.len = r->buf_len;
  } else {
    w.len = 0;
  }
  r->win = room->window;
  r->page = room->page;
  r->page.len = 0;
  r->buf_len = 0;
  if (!r->f->buf) r->buf = NULL;
  /* The room's bytes, when they are this file's: the window to start
  ** with. */
  if (!r->f->buf && room->owner == r->f && r->win.data && r->win.len &&
      !r->win.oom && r->win.len <= r->win.cap) {
    r->buf = r->win.data;
    r->buf_at = (size_t)room->at;
    r->buf_len = r->win.len;
    r->next_at = r->buf_at + r->buf_len;
  }
  r->win.len = 0;
  room->window = w;
  room->page = pg;
  room->owner = owner;
  room->at = at;
}

void pq_page_reader_free(pq_page_reader *r) {
  if (!r) return;
  pq_buf_free(&r->page);
  pq_buf_free(&r->dict);
  pq_buf_free(&r->win);
  pq_free(r);
}

void pq_page_value_options(const pq_page *p, pq_type type, char *out,
                           size_t cap) {
  int prefix = (p->encoding == PQ_RLE && type == PQ_BOOLEAN);
  snprintf(out, cap, "{\"count\":%lld%s}", (long long)p->value_count,
           prefix ? ",\"length_prefix\":true" : "");
}

void pq_page_level_options(const pq_page *p, int max_level,
                           int32_t level_encoding, char *out, size_t cap) {
  int prefix = p->page_type == PQ_DATA_PAGE && level_encoding == PQ_RLE;
  snprintf(out, cap, "{\"bit_width\":%d,\"count\":%d%s}",
           bit_width_of(max_level), p->num_values,
           prefix ? ",\"length_prefix\":true" : "");
}
