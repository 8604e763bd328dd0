/*
** writer.c -- a Parquet file of one column, written as values arrive.
**
** The file, as spec/README.md lays it out:
**
**   "PAR1"
**   row group 0:  [dictionary page] data page, data page, ...
**   row group 1:  ...
**   FileMetaData (Thrift compact), its length (4 bytes LE), "PAR1"
**
** A data page holds the definition levels of its entries (an OPTIONAL
** column: 1 present, 0 NULL; RLE hybrid of bit width 1) and the values of
** the present ones in the chosen encoding.  Version 1 pages compress
** levels and values together, the levels with their 4-byte length; version
** 2 pages keep the levels uncompressed, without the length, and say their
** size in the header.  The dictionary encodings share one dictionary per
** column chunk: its page comes first, written when the chunk ends, and each
** data page holds an index stream of its own bit width.
**
** Memory: the finished row groups (they are the file), the data pages of
** the open chunk (a dictionary chunk's pages wait for its dictionary), and
** what the encoder of the open page keeps.
*/
#include <math.h>

#include "../format/format.h"

#define LABEL "parquet file"
#define CREATED_BY "parquet for SQLite version " PQ_VERSION_STRING

/* ---- Statistics ---------------------------------------------------------
** Min and max in the order the type defines (signed integers, numbers
** without NaN, bytes compared unsigned), and the count of NULLs. */

typedef struct stats {
  int has;              /* min and max hold a value */
  int64_t imin, imax;   /* BOOLEAN, INT32, INT64 */
  double dmin, dmax;    /* FLOAT, DOUBLE */
  pq_buf bmin, bmax;    /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
  int64_t nulls;
} stats;

static void stats_reset(stats *s) {
  s->has = 0;
  s->nulls = 0;
  s->bmin.len = s->bmax.len = 0;
}

static void stats_free(stats *s) {
  pq_buf_free(&s->bmin);
  pq_buf_free(&s->bmax);
}

static int bytes_cmp(const uint8_t *a, size_t na, const uint8_t *b,
                     size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c;
  return na < nb ? -1 : na > nb;
}

static void set_bytes(pq_buf *b, const uint8_t *p, size_t n) {
  b->len = 0;
  pq_buf_append(b, p, n);
}

static void stats_int(stats *s, int64_t v) {
  if (!s->has) {
    s->imin = s->imax = v;
    s->has = 1;
  } else if (v < s->imin) {
    s->imin = v;
  } else if (v > s->imax) {
    s->imax = v;
  }
}

static void stats_double(stats *s, double v) {
  if (isnan(v)) return;
  if (!s->has) {
    s->dmin = s->dmax = v;
    s->has = 1;
  } else if (v < s->dmin) {
    s->dmin = v;
  } else if (v > s->dmax) {
    s->dmax = v;
  }
}

static void stats_bytes(stats *s, const uint8_t *p, size_t n) {
  if (!s->has) {
    set_bytes(&s->bmin, p, n);
    set_bytes(&s->bmax, p, n);
    s->has = 1;
    return;
  }
  if (bytes_cmp(p, n, s->bmin.data, s->bmin.len) < 0) set_bytes(&s->bmin, p, n);
  if (bytes_cmp(p, n, s->bmax.data, s->bmax.len) > 0) set_bytes(&s->bmax, p, n);
}

/* Adds n values laid out as for type t (INT96 has no order: no min, max). */
static void stats_add(stats *s, pq_type t, size_t width, const uint8_t *v,
                      size_t n) {
  for (size_t i = 0; i < n; i++) {
    switch (t) {
      case PQ_BOOLEAN: stats_int(s, v[i] != 0); break;
      case PQ_INT32: {
        int32_t x;
        memcpy(&x, v + 4 * i, 4);
        stats_int(s, x);
        break;
      }
      case PQ_INT64: {
        int64_t x;
        memcpy(&x, v + 8 * i, 8);
        stats_int(s, x);
        break;
      }
      case PQ_FLOAT: {
        float x;
        memcpy(&x, v + 4 * i, 4);
        stats_double(s, x);
        break;
      }
      case PQ_DOUBLE: {
        double x;
        memcpy(&x, v + 8 * i, 8);
        stats_double(s, x);
        break;
      }
      case PQ_BYTE_ARRAY: {
        const pq_bytes *b = (const pq_bytes *)v + i;
        stats_bytes(s, b->ptr, b->len);
        break;
      }
      case PQ_FIXED_LEN_BYTE_ARRAY: stats_bytes(s, v + width * i, width); break;
      default: break;
    }
  }
}

/* Folds a page's statistics into its chunk's. */
static void stats_merge(stats *into, const stats *s, pq_type t) {
  into->nulls += s->nulls;
  if (!s->has) return;
  switch (t) {
    case PQ_FLOAT:
    case PQ_DOUBLE:
      stats_double(into, s->dmin);
      stats_double(into, s->dmax);
      break;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY:
      stats_bytes(into, s->bmin.data, s->bmin.len);
      stats_bytes(into, s->bmax.data, s->bmax.len);
      break;
    default:
      stats_int(into, s->imin);
      stats_int(into, s->imax);
  }
}

/* A bound as the PLAIN encoding of one value.  Zero is written as -0.0 for
** a minimum and +0.0 for a maximum, as the spec asks, so that a reader
** comparing either zero finds it inside. */
static void stats_bound(const stats *s, pq_type t, int is_max, pq_buf *out) {
  uint8_t b[8];
  out->len = 0;
  switch (t) {
    case PQ_BOOLEAN:
      pq_buf_byte(out, (uint8_t)(is_max ? s->imax : s->imin));
      break;
    case PQ_INT32:
      pq_store32(b, (uint32_t)(int32_t)(is_max ? s->imax : s->imin));
      pq_buf_append(out, b, 4);
      break;
    case PQ_INT64:
      pq_store64(b, (uint64_t)(is_max ? s->imax : s->imin));
      pq_buf_append(out, b, 8);
      break;
    case PQ_FLOAT:
    case PQ_DOUBLE: {
      double d = is_max ? s->dmax : s->dmin;
      if (d == 0) d = is_max ? 0.0 : -0.0;
      if (t == PQ_FLOAT) {
        float f = (float)d;
        memcpy(b, &f, 4);
        pq_buf_append(out, b, 4);
      } else {
        memcpy(b, &d, 8);
        pq_buf_append(out, b, 8);
      }
      break;
    }
    default: {
      const pq_buf *v = is_max ? &s->bmax : &s->bmin;
      pq_buf_append(out, v->data, v->len);
    }
  }
}

/* Statistics as the struct field `id`: null_count, max_value, min_value. */
static void stats_write(pq_thrift_writer *tw, int16_t id, const stats *s,
                        pq_type t, pq_buf *tmp) {
  pq_tw_struct_begin(tw, id);
  pq_tw_i64(tw, 3, s->nulls);
  if (s->has && t != PQ_INT96) {
    stats_bound(s, t, 1, tmp);
    pq_tw_binary(tw, 5, tmp->data, tmp->len);
    stats_bound(s, t, 0, tmp);
    pq_tw_binary(tw, 6, tmp->data, tmp->len);
  }
  pq_tw_struct_end(tw);
}

/* ---- The writer --------------------------------------------------------- */

/* What the footer says of a finished column chunk. */
typedef struct chunk_info {
  int64_t rows, entries;
  int64_t dictionary_offset; /* -1: no dictionary page */
  int64_t data_offset;
  int64_t uncompressed, compressed; /* the chunk's pages, headers included */
  uint32_t encodings;               /* bit e: encoding e is used */
  stats st;
} chunk_info;

struct pq_writer {
  pq_params p;
  pq_write_options o;
  int dict;           /* a dictionary encoding */
  size_t vsize;       /* bytes of a value in the input layout */
  size_t width;       /* FIXED_LEN_BYTE_ARRAY, INT96: bytes a value */
  int string;         /* annotate BYTE_ARRAY as STRING */

  pq_encoder *enc;    /* the page's values (dictionary: the chunk's) */
  pq_buf def;         /* the page's definition levels, as RLE runs */
  pq_rle_writer defw;
  int64_t page_entries, page_values;
  stats page_stats, chunk_stats;

  pq_buf pages;       /* the open chunk's data pages */
  int64_t chunk_rows, chunk_uncompressed, chunk_compressed;
  int64_t first_page; /* offset of its first data page in `pages` */
  uint32_t chunk_encodings;

  pq_buf file;        /* "PAR1" and the finished chunks */
  chunk_info *chunks;
  uint32_t n_chunks, cap_chunks;
  int64_t rows;

  pq_buf body, packed, header, tmp; /* scratch of a page */
  int failed;         /* a call failed: the writer is spent */
};

void pq_writer_set_string(pq_writer *w, int is_string) {
  if (w->o.string < 0)
    w->string = is_string != 0 && w->p.type == PQ_BYTE_ARRAY;
}

static int w_fail_range(pq_error *err, const char *what, int64_t n) {
  return pq_fail(err, PQ_RANGE, LABEL, "%s of %lld bytes exceeds the 2147483647 "
                 "a page header can say", what, (long long)n);
}

int pq_writer_open(pq_writer **out, const pq_params *params,
                   const pq_write_options *o, pq_error *err) {
  *out = NULL;
  pq_params p = *params;
  p.count = PQ_NO_COUNT;
  p.dictionary_part = 0;
  const char *en = pq_encoding_name(p.encoding);
  if (p.encoding == PQ_BIT_PACKED) {
    return pq_fail(err, PQ_MISUSE, en,
                   "a level encoding: data pages do not hold values in it");
  }
  if (p.encoding == PQ_RLE && p.type_set && p.type != PQ_BOOLEAN) {
    return pq_fail(err, PQ_MISUSE, en,
                   "data pages hold only BOOLEAN values in RLE, not %s",
                   pq_type_name(p.type));
  }
  if (p.encoding == PQ_RLE) {
    if (p.length_prefix == 0) {
      return pq_fail(err, PQ_MISUSE, en,
                     "BOOLEAN values in a data page have the 4-byte length");
    }
    p.type = PQ_BOOLEAN;
    p.type_set = 1;
  }
  int rc = pq_params_resolve(&p, 0, err);
  if (rc) return rc;
  if (o->page_version != 1 && o->page_version != 2) {
    return pq_fail(err, PQ_MISUSE, LABEL, "page version %d: 1 or 2",
                   o->page_version);
  }
  if ((unsigned)o->codec >= PQ_CODEC_COUNT || !pq_codec_available(o->codec)) {
    /* The codec's own words: unknown, LZO, or left out of the build. */
    pq_buf none;
    pq_buf_init(&none);
    rc = pq_compress(o->codec, (const uint8_t *)"", 0, &none, err);
    pq_buf_free(&none);
    if (rc) return rc;
  }
  if (o->string > 0 && p.type != PQ_BYTE_ARRAY) {
    return pq_fail(err, PQ_MISUSE, LABEL,
                   "only BYTE_ARRAY values can be annotated STRING, not %s",
                   pq_type_name(p.type));
  }
  pq_writer *w = calloc(1, sizeof *w);
  if (!w) return pq_nomem(err, LABEL);
  w->p = p;
  w->o = *o;
  w->o.name[sizeof w->o.name - 1] = 0;
  if (w->o.page_size <= 0) w->o.page_size = 1 << 20;
  w->dict = p.encoding == PQ_PLAIN_DICTIONARY ||
            p.encoding == PQ_RLE_DICTIONARY;
  w->vsize = pq_value_size(p.type, p.type_length);
  w->width = pq_plain_width(p.type, p.type_length);
  w->string = o->string > 0 && p.type == PQ_BYTE_ARRAY;
  pq_rle_writer_init(&w->defw, &w->def, 1);
  pq_buf_append(&w->file, "PAR1", 4);
  *out = w;
  return PQ_OK;
}

/* Opens the encoder of the page (dictionary: of the chunk) if none is. */
static int open_encoder(pq_writer *w, pq_error *err) {
  if (w->enc) return PQ_OK;
  return pq_encoder_open(&w->enc, &w->p, err);
}

/* Compresses src[0..n) with the writer's codec onto out (or copies it). */
static int compress_page(pq_writer *w, const uint8_t *src, size_t n,
                         pq_buf *out, pq_error *err) {
  if (w->o.codec == PQ_UNCOMPRESSED) {
    pq_buf_append(out, src, n);
    return out->oom ? pq_nomem(err, LABEL) : PQ_OK;
  }
  return pq_compress(w->o.codec, src, n, out, err);
}

/* Closes the open page (if it has entries) and appends it to `pages`. */
static int flush_page(pq_writer *w, pq_error *err) {
  if (w->page_entries == 0) return PQ_OK;
  int rc = open_encoder(w, err);
  if (rc) return rc;
  pq_buf *vals = &w->tmp;
  vals->len = 0;
  if (w->dict) {
    rc = pq_dict_take_indices(w->enc, vals);
    if (rc) return pq_nomem(err, LABEL);
  } else {
    rc = pq_encoder_finish(w->enc, vals, NULL, err);
    pq_encoder_free(w->enc);
    w->enc = NULL;
    if (rc) return rc;
  }
  /* Levels. */
  size_t levels = 0;
  w->body.len = 0;
  if (w->o.nullable) {
    pq_rle_writer_flush(&w->defw);
    if (w->o.page_version == 1) {
      uint8_t len[4];
      pq_store32(len, (uint32_t)w->def.len);
      pq_buf_append(&w->body, len, 4);
    }
    pq_buf_append(&w->body, w->def.data, w->def.len);
    levels = w->body.len;
    w->def.len = 0;
    pq_rle_writer_init(&w->defw, &w->def, 1);
  }
  /* The bytes after the header: v1 compresses levels and values together;
  ** v2 only the values. */
  int64_t uncompressed = (int64_t)(levels + vals->len);
  w->packed.len = 0;
  if (w->o.page_version == 1) {
    pq_buf_append(&w->body, vals->data, vals->len);
    rc = compress_page(w, w->body.data, w->body.len, &w->packed, err);
  } else {
    pq_buf_append(&w->packed, w->body.data, levels);
    rc = compress_page(w, vals->data, vals->len, &w->packed, err);
  }
  if (rc) return rc;
  if (w->body.oom || w->packed.oom) return pq_nomem(err, LABEL);
  if (uncompressed > INT32_MAX) return w_fail_range(err, "a page", uncompressed);
  if (w->packed.len > INT32_MAX)
    return w_fail_range(err, "a page", (int64_t)w->packed.len);

  /* The header. */
  pq_thrift_writer tw = {&w->header, 0, {0}};
  w->header.len = 0;
  int v2 = w->o.page_version == 2;
  pq_tw_i32(&tw, 1, v2 ? PQ_DATA_PAGE_V2 : PQ_DATA_PAGE);
  pq_tw_i32(&tw, 2, (int32_t)uncompressed);
  pq_tw_i32(&tw, 3, (int32_t)w->packed.len);
  if (w->o.crc)
    pq_tw_i32(&tw, 4, (int32_t)pq_crc32(0, w->packed.data, w->packed.len));
  int32_t n = (int32_t)w->page_entries;
  if (!v2) {
    pq_tw_struct_begin(&tw, 5);
    pq_tw_i32(&tw, 1, n);
    pq_tw_i32(&tw, 2, (int32_t)w->p.encoding);
    pq_tw_i32(&tw, 3, PQ_RLE);
    pq_tw_i32(&tw, 4, PQ_RLE);
    if (w->o.statistics)
      stats_write(&tw, 5, &w->page_stats, w->p.type, &w->body);
    pq_tw_struct_end(&tw);
  } else {
    pq_tw_struct_begin(&tw, 8);
    pq_tw_i32(&tw, 1, n);
    pq_tw_i32(&tw, 2, (int32_t)(w->page_entries - w->page_values));
    pq_tw_i32(&tw, 3, n); /* a flat column: a row an entry */
    pq_tw_i32(&tw, 4, (int32_t)w->p.encoding);
    pq_tw_i32(&tw, 5, (int32_t)levels);
    pq_tw_i32(&tw, 6, 0);
    if (w->o.codec == PQ_UNCOMPRESSED) pq_tw_bool(&tw, 7, 0);
    if (w->o.statistics)
      stats_write(&tw, 8, &w->page_stats, w->p.type, &w->body);
    pq_tw_struct_end(&tw);
  }
  pq_tw_stop(&tw);

  pq_buf_append(&w->pages, w->header.data, w->header.len);
  pq_buf_append(&w->pages, w->packed.data, w->packed.len);
  if (w->pages.oom || w->header.oom) return pq_nomem(err, LABEL);
  w->chunk_uncompressed += (int64_t)w->header.len + uncompressed;
  w->chunk_compressed += (int64_t)(w->header.len + w->packed.len);
  w->chunk_encodings |= 1u << w->p.encoding;
  if (w->o.nullable) w->chunk_encodings |= 1u << PQ_RLE;
  stats_merge(&w->chunk_stats, &w->page_stats, w->p.type);
  stats_reset(&w->page_stats);
  w->page_entries = w->page_values = 0;
  return PQ_OK;
}

/* Closes the open chunk: its last page, then its dictionary page and data
** pages into the file, and what the footer will say of it. */
static int flush_chunk(pq_writer *w, pq_error *err) {
  int rc = flush_page(w, err);
  if (rc) return rc;
  if (w->chunk_rows == 0) return PQ_OK;
  if (w->n_chunks == w->cap_chunks) {
    uint32_t c = w->cap_chunks ? w->cap_chunks * 2 : 4;
    chunk_info *ci = realloc(w->chunks, c * sizeof *ci);
    if (!ci) return pq_nomem(err, LABEL);
    w->chunks = ci;
    w->cap_chunks = c;
  }
  chunk_info *c = &w->chunks[w->n_chunks];
  memset(c, 0, sizeof *c);
  c->rows = w->chunk_rows;
  c->dictionary_offset = -1;
  if (w->dict) {
    rc = open_encoder(w, err);
    if (rc) return rc;
    uint32_t entries = pq_dict_entries(w->enc);
    w->tmp.len = 0;
    w->body.len = 0;
    rc = pq_encoder_finish(w->enc, &w->tmp, &w->body, err);
    pq_encoder_free(w->enc);
    w->enc = NULL;
    if (rc) return rc;
    w->packed.len = 0;
    rc = compress_page(w, w->body.data, w->body.len, &w->packed, err);
    if (rc) return rc;
    if (w->body.len > INT32_MAX)
      return w_fail_range(err, "the dictionary page", (int64_t)w->body.len);
    if (w->packed.len > INT32_MAX)
      return w_fail_range(err, "the dictionary page", (int64_t)w->packed.len);
    pq_thrift_writer tw = {&w->header, 0, {0}};
    w->header.len = 0;
    pq_tw_i32(&tw, 1, PQ_DICTIONARY_PAGE);
    pq_tw_i32(&tw, 2, (int32_t)w->body.len);
    pq_tw_i32(&tw, 3, (int32_t)w->packed.len);
    if (w->o.crc)
      pq_tw_i32(&tw, 4, (int32_t)pq_crc32(0, w->packed.data, w->packed.len));
    pq_tw_struct_begin(&tw, 7);
    pq_tw_i32(&tw, 1, (int32_t)entries);
    /* PLAIN_DICTIONARY names its dictionary page's encoding too. */
    pq_tw_i32(&tw, 2, w->p.encoding == PQ_PLAIN_DICTIONARY
                          ? PQ_PLAIN_DICTIONARY
                          : PQ_PLAIN);
    pq_tw_struct_end(&tw);
    pq_tw_stop(&tw);
    c->dictionary_offset = (int64_t)w->file.len;
    pq_buf_append(&w->file, w->header.data, w->header.len);
    pq_buf_append(&w->file, w->packed.data, w->packed.len);
    w->chunk_uncompressed += (int64_t)(w->header.len + w->body.len);
    w->chunk_compressed += (int64_t)(w->header.len + w->packed.len);
    w->chunk_encodings |=
        1u << (w->p.encoding == PQ_PLAIN_DICTIONARY ? PQ_PLAIN_DICTIONARY
                                                    : PQ_PLAIN);
  }
  c->data_offset = (int64_t)w->file.len;
  pq_buf_move(&w->file, &w->pages);
  if (w->file.oom) return pq_nomem(err, LABEL);
  c->entries = w->chunk_rows;
  c->uncompressed = w->chunk_uncompressed;
  c->compressed = w->chunk_compressed;
  c->encodings = w->chunk_encodings;
  c->st = w->chunk_stats; /* the chunk's now */
  memset(&w->chunk_stats, 0, sizeof w->chunk_stats);
  w->n_chunks++;
  w->rows += w->chunk_rows;
  w->chunk_rows = w->chunk_uncompressed = w->chunk_compressed = 0;
  w->chunk_encodings = 0;
  return PQ_OK;
}

int pq_writer_put(pq_writer *w, const void *values, const uint8_t *present,
                  size_t n, pq_error *err) {
  if (w->failed) {
    return pq_fail(err, PQ_MISUSE, LABEL, "the writer failed before");
  }
  const uint8_t *v = values;
  int rc = PQ_OK;
  size_t i = 0;
  while (i < n && rc == PQ_OK) {
    /* A slice of at most 64 entries that stays inside the page and the
    ** row group, and, by the bytes an entry has taken so far, about inside
    ** page_size. */
    size_t k = n - i < 64 ? n - i : 64;
    size_t cur = (w->enc ? pq_encoder_size(w->enc) : 0) + w->def.len;
    size_t per = w->page_entries > 0 ? cur / (size_t)w->page_entries + 1 : 16;
    size_t room = (size_t)w->o.page_size > cur ? (size_t)w->o.page_size - cur : 0;
    if (room / per < k) k = room / per > 0 ? room / per : 1;
    if (w->o.page_values > 0 &&
        (int64_t)k > w->o.page_values - w->page_entries)
      k = (size_t)(w->o.page_values - w->page_entries);
    if (w->o.row_group_size > 0 &&
        (int64_t)k > w->o.row_group_size - w->chunk_rows)
      k = (size_t)(w->o.row_group_size - w->chunk_rows);
    size_t nv = k;
    if (present) {
      nv = 0;
      for (size_t j = 0; j < k; j++) nv += present[i + j] != 0;
      if (nv < k && !w->o.nullable) {
        size_t j = 0;
        while (present[i + j]) j++;
        rc = pq_fail(err, PQ_RANGE, LABEL,
                     "entry %lld is NULL in a column that is not nullable",
                     (long long)(w->rows + w->chunk_rows + (int64_t)(i + j)));
        break;
      }
    }
    if (w->o.nullable) {
      for (size_t j = 0; j < k; j++)
        pq_rle_writer_put(&w->defw, present ? present[i + j] != 0 : 1);
      if (w->def.oom) {
        rc = pq_nomem(err, LABEL);
        break;
      }
    }
    rc = open_encoder(w, err);
    if (rc == PQ_OK) rc = pq_encoder_put(w->enc, v, nv, err);
    if (rc) break;
    if (w->o.statistics) {
      stats_add(&w->page_stats, w->p.type, w->width, v, nv);
      w->page_stats.nulls += (int64_t)(k - nv);
    }
    v += nv * w->vsize;
    i += k;
    w->page_entries += (int64_t)k;
    w->page_values += (int64_t)nv;
    w->chunk_rows += (int64_t)k;
    if ((w->o.page_values > 0 && w->page_entries >= w->o.page_values) ||
        (int64_t)(pq_encoder_size(w->enc) + w->def.len) >= w->o.page_size) {
      rc = flush_page(w, err);
    }
    if (rc == PQ_OK && w->o.row_group_size > 0 &&
        w->chunk_rows >= w->o.row_group_size) {
      rc = flush_chunk(w, err);
    }
  }
  if (rc) w->failed = 1;
  return rc;
}

/* The schema: the root and the one leaf. */
static void write_schema(pq_writer *w, pq_thrift_writer *tw) {
  pq_tw_list_begin(tw, 2, PQ_TT_STRUCT, 2);
  pq_tw_list_struct_begin(tw);
  pq_tw_binary(tw, 4, "schema", 6);
  pq_tw_i32(tw, 5, 1);
  pq_tw_struct_end(tw);
  pq_tw_list_struct_begin(tw);
  pq_tw_i32(tw, 1, (int32_t)w->p.type);
  if (w->p.type == PQ_FIXED_LEN_BYTE_ARRAY) pq_tw_i32(tw, 2, w->p.type_length);
  pq_tw_i32(tw, 3, w->o.nullable ? 1 : 0);
  pq_tw_binary(tw, 4, w->o.name, strlen(w->o.name));
  if (w->string) {
    pq_tw_i32(tw, 6, 0);       /* ConvertedType UTF8 */
    pq_tw_struct_begin(tw, 10); /* LogicalType */
    pq_tw_struct_begin(tw, 1);  /* STRING: StringType {} */
    pq_tw_struct_end(tw);
    pq_tw_struct_end(tw);
  }
  pq_tw_struct_end(tw);
}

static void write_chunk(pq_writer *w, pq_thrift_writer *tw,
                        const chunk_info *c) {
  pq_tw_list_begin(tw, 1, PQ_TT_STRUCT, 1);
  pq_tw_list_struct_begin(tw);
  pq_tw_i64(tw, 2, c->dictionary_offset >= 0 ? c->dictionary_offset
                                             : c->data_offset);
  pq_tw_struct_begin(tw, 3);
  pq_tw_i32(tw, 1, (int32_t)w->p.type);
  uint32_t ne = 0;
  for (int e = 0; e < PQ_ENCODING_COUNT; e++) ne += (c->encodings >> e) & 1;
  pq_tw_list_begin(tw, 2, PQ_TT_I32, ne);
  for (int e = 0; e < PQ_ENCODING_COUNT; e++)
    if ((c->encodings >> e) & 1) pq_tw_list_i32(tw, e);
  pq_tw_list_begin(tw, 3, PQ_TT_BINARY, 1);
  pq_tw_list_binary(tw, w->o.name, strlen(w->o.name));
  pq_tw_i32(tw, 4, (int32_t)w->o.codec);
  pq_tw_i64(tw, 5, c->entries);
  pq_tw_i64(tw, 6, c->uncompressed);
  pq_tw_i64(tw, 7, c->compressed);
  pq_tw_i64(tw, 9, c->data_offset);
  if (c->dictionary_offset >= 0) pq_tw_i64(tw, 11, c->dictionary_offset);
  if (w->o.statistics) stats_write(tw, 12, &c->st, w->p.type, &w->tmp);
  pq_tw_struct_end(tw);
  pq_tw_struct_end(tw);
}

int pq_writer_finish(pq_writer *w, pq_buf *out, pq_error *err) {
  if (w->failed) {
    return pq_fail(err, PQ_MISUSE, LABEL, "the writer failed before");
  }
  w->failed = 1; /* spent, whatever happens */
  int rc = flush_chunk(w, err);
  if (rc) return rc;
  size_t footer = w->file.len;
  pq_thrift_writer tw = {&w->file, 0, {0}};
  pq_tw_i32(&tw, 1, w->o.page_version == 2 ? 2 : 1);
  write_schema(w, &tw);
  pq_tw_i64(&tw, 3, w->rows);
  pq_tw_list_begin(&tw, 4, PQ_TT_STRUCT, w->n_chunks);
  for (uint32_t i = 0; i < w->n_chunks; i++) {
    const chunk_info *c = &w->chunks[i];
    pq_tw_list_struct_begin(&tw);
    write_chunk(w, &tw, c);
    pq_tw_i64(&tw, 2, c->uncompressed);
    pq_tw_i64(&tw, 3, c->rows);
    pq_tw_i64(&tw, 5, c->dictionary_offset >= 0 ? c->dictionary_offset
                                                : c->data_offset);
    pq_tw_i64(&tw, 6, c->compressed);
    pq_tw_struct_end(&tw);
  }
  pq_tw_binary(&tw, 6, CREATED_BY, strlen(CREATED_BY));
  if (w->o.statistics) {
    /* ColumnOrder: TYPE_ORDER, so that readers trust min_value and
    ** max_value. */
    pq_tw_list_begin(&tw, 7, PQ_TT_STRUCT, 1);
    pq_tw_list_struct_begin(&tw);
    pq_tw_struct_begin(&tw, 1);
    pq_tw_struct_end(&tw);
    pq_tw_struct_end(&tw);
  }
  pq_tw_stop(&tw);
  uint8_t tail[8];
  pq_store32(tail, (uint32_t)(w->file.len - footer));
  memcpy(tail + 4, "PAR1", 4);
  pq_buf_append(&w->file, tail, 8);
  if (w->file.oom) return pq_nomem(err, LABEL);
  pq_buf_move(out, &w->file);
  return out->oom ? pq_nomem(err, LABEL) : PQ_OK;
}

void pq_writer_free(pq_writer *w) {
  if (!w) return;
  pq_encoder_free(w->enc);
  pq_buf_free(&w->def);
  stats_free(&w->page_stats);
  stats_free(&w->chunk_stats);
  pq_buf_free(&w->pages);
  pq_buf_free(&w->file);
  for (uint32_t i = 0; i < w->n_chunks; i++) stats_free(&w->chunks[i].st);
  free(w->chunks);
  pq_buf_free(&w->body);
  pq_buf_free(&w->packed);
  pq_buf_free(&w->header);
  pq_buf_free(&w->tmp);
  free(w);
}
