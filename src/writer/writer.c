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
#include <stdio.h>

#include "writer.h"

#define LABEL "parquet file"
#define CREATED_BY "parquet for SQLite version " PQ_VERSION_STRING

/* ---- Statistics ---------------------------------------------------------
** Min and max in the order the type defines (signed integers, numbers
** without NaN, bytes compared unsigned, INT96 as instants: days, then
** nanoseconds, parquet.thrift's INT96_TIMESTAMP_ORDER), the count of
** NULLs, and of NaNs (FLOAT, DOUBLE). */

typedef struct stats {
  int has;              /* min and max hold a value */
  int64_t imin, imax;   /* BOOLEAN, INT32, INT64 */
  double dmin, dmax;    /* FLOAT, DOUBLE */
  pq_buf bmin, bmax;    /* BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY */
  int64_t nulls;
  int dec;              /* bytes are DECIMAL's: signed big-endian integers */
  int64_t nans;         /* FLOAT, DOUBLE: NaNs, left out of min and max */
  int int96;            /* bytes are INT96: nanoseconds (8), day (4) */
} stats;

static void stats_reset(stats *s) {
  s->has = 0;
  s->nulls = 0;
  s->nans = 0;
  s->bmin.len = s->bmax.len = 0;
}

/* Whether a bound could not be kept (out of memory): the statistics are
** then wrong, and what writes them fails instead. */
static int stats_oom(const stats *s) { return s->bmin.oom || s->bmax.oom; }

static void stats_free(stats *s) {
  pq_buf_free(&s->bmin);
  pq_buf_free(&s->bmax);
}

static inline uint64_t load_be64(const uint8_t *p) {
  return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
         (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
         (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

/* Bytes compared unsigned, a prefix first: eight at a time as big-endian
** words, without a call (a value is compared with its page's bounds
** twice a value); the last word of eight or more overlaps the one before,
** whose bytes were equal. */
static int bytes_cmp(const uint8_t *a, size_t na, const uint8_t *b,
                     size_t nb) {
  size_t n = na < nb ? na : nb, i = 0;
  if (n >= 8) {
    for (; i + 8 <= n; i += 8) {
      uint64_t x = load_be64(a + i), y = load_be64(b + i);
      if (x != y) return x < y ? -1 : 1;
    }
    if (i < n) {
      uint64_t x = load_be64(a + n - 8), y = load_be64(b + n - 8);
      if (x != y) return x < y ? -1 : 1;
    }
  } else {
    for (; i < n; i++)
      if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return na < nb ? -1 : na > nb;
}

/* Two DECIMALs' bytes, big-endian two's complement of any lengths, as
** the integers they are (parquet.thrift's order for DECIMAL). */
static int dec_cmp(const uint8_t *a, size_t na, const uint8_t *b, size_t nb) {
  int sa = na && (a[0] & 0x80), sb = nb && (b[0] & 0x80);
  if (sa != sb) return sa ? -1 : 1;
  /* the same sign: the longer one's extra bytes against sign bytes */
  uint8_t ext = sa ? 0xFF : 0x00;
  size_t n = na > nb ? na : nb;
  for (size_t i = 0; i < n; i++) {
    uint8_t x = i + na >= n ? a[i + na - n] : ext;
    uint8_t y = i + nb >= n ? b[i + nb - n] : ext;
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

/* Two INT96 values (12 bytes each) in INT96_TIMESTAMP_ORDER: the days
** (the last 4 bytes, signed), then the nanoseconds (the first 8, signed). */
static int int96_cmp(const uint8_t *a, const uint8_t *b) {
  int32_t da = (int32_t)pq_load32(a + 8), db = (int32_t)pq_load32(b + 8);
  if (da != db) return da < db ? -1 : 1;
  int64_t na = (int64_t)pq_load64(a), nb = (int64_t)pq_load64(b);
  return na < nb ? -1 : na > nb;
}

static int stats_cmp(const stats *s, const uint8_t *a, size_t na,
                     const uint8_t *b, size_t nb) {
  if (s->int96) return int96_cmp(a, b);
  return s->dec ? dec_cmp(a, na, b, nb) : bytes_cmp(a, na, b, nb);
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
  if (isnan(v)) {
    s->nans++;
    return;
  }
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
  /* (min <= max: a new min is no new max) */
  if (stats_cmp(s, p, n, s->bmin.data, s->bmin.len) < 0) set_bytes(&s->bmin, p, n);
  else if (stats_cmp(s, p, n, s->bmax.data, s->bmax.len) > 0) set_bytes(&s->bmax, p, n);
}

/* The least and greatest of n integers of type T at v, into s. */
#define STATS_INTS(NAME, T)                                              \
  static void NAME(stats *s, const uint8_t *v, size_t n) {               \
    if (n == 0) return;                                                  \
    T lo, hi;                                                            \
    memcpy(&lo, v, sizeof lo);                                           \
    hi = lo;                                                             \
    for (size_t i = 1; i < n; i++) {                                     \
      T x;                                                               \
      memcpy(&x, v + i * sizeof x, sizeof x);                            \
      lo = x < lo ? x : lo;                                              \
      hi = x > hi ? x : hi;                                              \
    }                                                                    \
    stats_int(s, lo);                                                    \
    stats_int(s, hi);                                                    \
  }
STATS_INTS(stats_i32, int32_t)
STATS_INTS(stats_i64, int64_t)

/* Adds n values laid out as for type t (INT96 has no order: no min, max).
** One loop per type. */
static void stats_add(stats *s, pq_type t, size_t width, const uint8_t *v,
                      size_t n) {
  switch (t) {
    case PQ_BOOLEAN:
      for (size_t i = 0; i < n; i++) stats_int(s, v[i] != 0);
      break;
    case PQ_INT32: stats_i32(s, v, n); break;
    case PQ_INT64: stats_i64(s, v, n); break;
    case PQ_FLOAT:
      for (size_t i = 0; i < n; i++) {
        float x;
        memcpy(&x, v + 4 * i, 4);
        stats_double(s, x);
      }
      break;
    case PQ_DOUBLE:
      for (size_t i = 0; i < n; i++) {
        double x;
        memcpy(&x, v + 8 * i, 8);
        stats_double(s, x);
      }
      break;
    case PQ_BYTE_ARRAY: {
      const pq_bytes *b = (const pq_bytes *)(const void *)v;
      for (size_t i = 0; i < n; i++) stats_bytes(s, b[i].ptr, b[i].len);
      break;
    }
    case PQ_FIXED_LEN_BYTE_ARRAY:
    case PQ_INT96:
      for (size_t i = 0; i < n; i++) stats_bytes(s, v + width * i, width);
      break;
    default: break;
  }
}

/* Folds a page's statistics into its chunk's. */
static void stats_merge(stats *into, const stats *s, pq_type t) {
  into->nulls += s->nulls;
  into->nans += s->nans;
  if (!s->has) return;
  switch (t) {
    case PQ_FLOAT:
    case PQ_DOUBLE:
      stats_double(into, s->dmin);
      stats_double(into, s->dmax);
      break;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY:
    case PQ_INT96:
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

/* Byte-array bounds longer than this are cut to it: a minimum to its
** prefix, a maximum to its prefix with the last byte that is not 0xFF
** raised by one (and the 0xFF bytes after it dropped), still a bound of
** every value. */
#define BOUND_MAX 64

/* Cuts the bound in b (of a byte-array type) when longer than BOUND_MAX;
** returns whether it is still exact. */
static int bound_cut(pq_buf *b, pq_type t, int is_max) {
  if ((t != PQ_BYTE_ARRAY && t != PQ_FIXED_LEN_BYTE_ARRAY) ||
      b->len <= BOUND_MAX)
    return 1;
  if (!is_max) {
    b->len = BOUND_MAX;
    return 0;
  }
  size_t n = BOUND_MAX;
  while (n > 0 && b->data[n - 1] == 0xFF) n--;
  if (n == 0) return 1; /* all 0xFF: no shorter bound above it */
  b->data[n - 1]++;
  b->len = n;
  return 0;
}

/* Statistics as the struct field `id`: null_count, max_value, min_value,
** whether a cut bound is exact, and nan_count (FLOAT, DOUBLE: always, as
** TYPE_ORDER asks, 0 included).  FIXED_LEN_BYTE_ARRAY bounds are never cut
** (a bound must have the type's length). */
static void stats_write(pq_thrift_writer *tw, int16_t id, const stats *s,
                        pq_type t, pq_buf *tmp) {
  pq_tw_struct_begin(tw, id);
  pq_tw_i64(tw, 3, s->nulls);
  if (s->has) {
    pq_type ct = t == PQ_BYTE_ARRAY ? t : PQ_INT32; /* only these are cut */
    stats_bound(s, t, 1, tmp);
    int max_exact = bound_cut(tmp, ct, 1);
    pq_tw_binary(tw, 5, tmp->data, tmp->len);
    stats_bound(s, t, 0, tmp);
    int min_exact = bound_cut(tmp, ct, 0);
    pq_tw_binary(tw, 6, tmp->data, tmp->len);
    if (!max_exact) pq_tw_bool(tw, 7, 0);
    if (!min_exact) pq_tw_bool(tw, 8, 0);
  }
  if (t == PQ_FLOAT || t == PQ_DOUBLE) pq_tw_i64(tw, 9, s->nans);
  pq_tw_struct_end(tw);
  /* A bound that could not be made leaves the output marked: what checks
  ** the output fails, rather than write empty bounds. */
  if (tmp->oom || stats_oom(s)) tw->out->oom = 1;
}

/* Compares two bounds (PLAIN, as stats_bound writes them) in the type's
** order. */
static int bound_cmp(pq_type t, int dec, const uint8_t *a, size_t an,
                     const uint8_t *b, size_t bn) {
  if (dec) return dec_cmp(a, an, b, bn);
  switch (t) {
    case PQ_BOOLEAN: return (an ? a[0] : 0) - (bn ? b[0] : 0);
    case PQ_INT32: {
      int32_t x = (int32_t)pq_load32(a), y = (int32_t)pq_load32(b);
      return x < y ? -1 : x > y;
    }
    case PQ_INT64: {
      int64_t x = (int64_t)pq_load64(a), y = (int64_t)pq_load64(b);
      return x < y ? -1 : x > y;
    }
    case PQ_FLOAT: {
      float x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return x < y ? -1 : x > y;
    }
    case PQ_DOUBLE: {
      double x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return x < y ? -1 : x > y;
    }
    case PQ_INT96: return int96_cmp(a, b);
    default: return bytes_cmp(a, an, b, bn);
  }
}

/* ---- The writer --------------------------------------------------------- */

/* ---- Sizes (parquet.thrift, SizeStatistics) --------------------------------
** The bytes of BYTE_ARRAY values without their lengths, and how many
** entries have each repetition and definition level (the levels are at most
** 65: 64 nested levels, and the leaf). */
#define LEVELS_MAX 66
typedef struct size_sums {
  int64_t unencoded;            /* BYTE_ARRAY values' bytes */
  int64_t rep[LEVELS_MAX], def[LEVELS_MAX];
} size_sums;

/* Adds page sums to a chunk's. */
static void size_merge(size_sums *into, const size_sums *s) {
  into->unencoded += s->unencoded;
  for (int i = 0; i < LEVELS_MAX; i++) {
    into->rep[i] += s->rep[i];
    into->def[i] += s->def[i];
  }
}

/* What the footer says of a finished column chunk. */
typedef struct chunk_info {
  int64_t rows, entries;
  int64_t dictionary_offset; /* -1: no dictionary page */
  int64_t data_offset;
  int64_t uncompressed, compressed; /* the chunk's pages, headers included */
  uint32_t encodings;               /* bit e: encoding e is used */
  stats st;
  pq_buf cidx, oidx;                /* its ColumnIndex and OffsetIndex */
  int64_t cidx_at, oidx_at;         /* where they are in the file */
  pq_buf bloom;                     /* its bloom filter, header and bitset,
                                    ** until it is in the file */
  int64_t bloom_at, bloom_len;
  size_sums size;                   /* its SizeStatistics */
  int32_t data_pages[PQ_ENCODING_COUNT]; /* its encoding_stats: data pages
                                    ** by encoding, */
  int dict_encoding;                /* and the dictionary page's (-1 none) */
  pq_geo_acc geo;                   /* GEOMETRY, GEOGRAPHY: its values' */
} chunk_info;

/* The distinct hashes of a chunk's values, for its bloom filter: open
** addressing, 0 standing for itself through has_zero. */
typedef struct hash_set {
  uint64_t *slots;
  size_t cap, n; /* cap a power of two, or 0 */
  int has_zero;
} hash_set;

static int hash_set_add(hash_set *h, uint64_t x) {
  if (x == 0) {
    h->n += !h->has_zero;
    h->has_zero = 1;
    return 0;
  }
  if (2 * (h->n + 1) > h->cap) {
    size_t cap = h->cap ? 2 * h->cap : 1024;
    uint64_t *s = pq_calloc(cap, sizeof *s);
    if (!s) return -1;
    for (size_t i = 0; i < h->cap; i++) {
      uint64_t y = h->slots[i];
      if (!y) continue;
      size_t j = (size_t)(y * 0x9E3779B97F4A7C15ull) & (cap - 1);
      while (s[j]) j = (j + 1) & (cap - 1);
      s[j] = y;
    }
    pq_free(h->slots);
    h->slots = s;
    h->cap = cap;
  }
  size_t j = (size_t)(x * 0x9E3779B97F4A7C15ull) & (h->cap - 1);
  while (h->slots[j] && h->slots[j] != x) j = (j + 1) & (h->cap - 1);
  if (!h->slots[j]) {
    h->slots[j] = x;
    h->n++;
  }
  return 0;
}

/* A data page, for the page index. */
typedef struct page_rec {
  int64_t offset;    /* of its header in the chunk's data pages */
  int32_t size;      /* header and body */
  int64_t first_row; /* in the row group */
  int64_t nulls;
  int null_page;     /* no values: no bounds */
  size_t min_at, min_len, max_at, max_len; /* in pi_bounds */
  int64_t nans;      /* FLOAT, DOUBLE */
  int64_t unencoded; /* BYTE_ARRAY values' bytes */
} page_rec;

/* A chunk's data pages until the chunk is written, in segments kept from
** chunk to chunk: at most one segment partly used, and nothing copied as it
** grows (a buffer that grows by half again holds up to a third more than
** its bytes, and every column's is full at the end of a row group). */
#define PAGES_SEG ((size_t)256 << 10)
typedef struct page_store {
  uint8_t **seg;
  size_t nseg, capseg; /* segments allocated, and room for pointers */
  size_t len;          /* bytes held */
  int oom;
} page_store;

static void ps_append(page_store *s, const void *p, size_t n) {
  const uint8_t *q = p;
  while (n && !s->oom) {
    size_t k = s->len / PAGES_SEG, at = s->len % PAGES_SEG;
    if (k == s->nseg) {
      if (s->nseg == s->capseg) {
        size_t cap = s->capseg ? 2 * s->capseg : 8;
        uint8_t **g = pq_realloc(s->seg, cap * sizeof *g);
        if (!g) {
          s->oom = 1;
          return;
        }
        s->seg = g;
        s->capseg = cap;
      }
      if (!(s->seg[k] = pq_malloc(PAGES_SEG))) {
        s->oom = 1;
        return;
      }
      s->nseg++;
    }
    size_t m = PAGES_SEG - at < n ? PAGES_SEG - at : n;
    memcpy(s->seg[k] + at, q, m);
    s->len += m;
    q += m;
    n -= m;
  }
}

static void ps_free(page_store *s) {
  for (size_t k = 0; k < s->nseg; k++) pq_free(s->seg[k]);
  pq_free(s->seg);
  memset(s, 0, sizeof *s);
}

/* A column: its open page, its open chunk, and what the footer will say
** of its finished chunks (one per row group). */
typedef struct col_writer {
  pq_params p;        /* of the pages being written */
  pq_write_options o;
  int dict;           /* p is a dictionary encoding */
  pq_params dict_p;   /* the column's encoding, when p is its fallback */
  pq_params fb;       /* the fallback's, when it has one (o.fallback) */
  int fell;           /* the chunk's dictionary page is written: p is fb */
  size_t vsize;       /* bytes of a value in the input layout */
  size_t width;       /* FIXED_LEN_BYTE_ARRAY, INT96: bytes a value */
  int string;         /* annotate BYTE_ARRAY as STRING */

  int max_def, max_rep; /* of the leaf (flat: nullable, 0) */
  int leaf_rep;       /* its repetition: 0 REQUIRED, 1 OPTIONAL, 2 REPEATED */
  const char **path;  /* its names from the root down, npath of them */
  int npath;

  pq_encoder *enc;    /* the page's values (dictionary: the chunk's) */
  pq_encoder *kept_dict, *kept_plain; /* the dictionary encoder and the
                      ** other, while the column uses the other one: kept
                      ** from chunk to chunk with their memory, which a
                      ** new one would fault in again (bench/NOTES.md) */
  pq_buf def;         /* the page's definition levels, as RLE runs */
  pq_rle_writer defw;
  pq_buf rep;         /* ... and repetition levels */
  pq_rle_writer repw;
  int64_t page_entries, page_values;
  int64_t page_rows;  /* records that begin in the page */
  int64_t chunk_entries;
  stats page_stats, chunk_stats;
  size_sums page_size, chunk_size; /* SizeStatistics of the open page and
                                   ** chunk */
  int32_t chunk_pages[PQ_ENCODING_COUNT]; /* the chunk's data pages by
                                          ** encoding */

  page_store pages;   /* the chunk's data pages */
  pq_buf dictpage;    /* its dictionary page, once written */
  int64_t dict_bytes; /* of its dictionary page, header included */
  int64_t chunk_rows, chunk_uncompressed, chunk_compressed;
  uint32_t chunk_encodings;

  chunk_info *chunks; /* one per finished row group */

  pq_buf pi_recs;     /* page_rec of the open chunk's data pages */
  pq_buf pi_bounds;   /* their bounds, cut to BOUND_MAX */
  pq_buf pi_hists;    /* their level histograms, int64_t each: max_rep + 1
                      ** entries (when max_rep > 0), then max_def + 1 (when
                      ** max_def > 0), a page after another */
  int pi_no_ci;       /* a page of values without bounds (NaN only): the
                      ** chunk gets no column index, as the spec says */
  hash_set hashes;    /* of the open chunk's values, for its bloom filter */

  /* o.auto_encoding: the chunk's first entries, until its encoding is
  ** chosen (auto_pending) */
  pq_params base;     /* the column's own parameters, to start each chunk */
  pq_params fb0;      /* ... and its fallback's */
  int dict0, fallback0;
  int auto_pending;
  pq_buf ab_vals, ab_heap, ab_present; /* values (BYTE_ARRAY: offsets into
                                       ** ab_heap), one byte per entry */
  int64_t ab_n, ab_nv;
  int lane;   /* whose page scratch it uses (pq_writer_set_lane) */
  int failed; /* a put of it failed (the writer's flag, kept apart so that
              ** lanes write nothing they share) */
  int geo;        /* GEOMETRY or GEOGRAPHY: WKB values, GeospatialStatistics */
  char *crs;      /* their crs, the writer's copy (o.crs points to it) */
  pq_geo_acc geo_chunk; /* the open chunk's */
} col_writer;

/* A node of a nested schema, flattened depth first (pq_writer_open_schema). */
typedef struct schema_el {
  char *name;
  int repetition, logical, n_children;
  int col; /* a leaf's column, -1 for a group */
} schema_el;

/* The buffers a page is made in, one set per lane (pq_writer_set_lane). */
typedef struct page_scratch {
  pq_buf body, packed, header, tmp;
  pq_buf stats, bound; /* a page's Statistics, and a bound made for them */
} page_scratch;

struct pq_writer {
  col_writer *cols;
  int ncols;
  schema_el *schema;  /* NULL: the root's children are the columns */
  int nschema;
  int64_t group_size; /* rows a row group closes at (pq_writer_put); 0 */
  pq_buf file;        /* the file's bytes not yet drained */
  int64_t drained;    /* bytes pq_writer_drain gave away before them */
  uint32_t n_groups, cap_groups;
  int64_t rows;       /* of the finished row groups */
  page_scratch sc[PQ_WRITER_LANES]; /* a lane's scratch of a page; sc[0]
                                     ** also the footer's */
  int failed;         /* a call failed: the writer is spent */
  pq_write_fn sink;   /* pq_writer_set_sink: where the file goes */
  void *sink_ctx;
  pq_buf extra;       /* pq_writer_set_footer: the footer's fields 5 and 6 */
  pq_page_tap tap;    /* pq_writer_set_tap: where the pages go instead */
  void *tap_ctx;
};

void pq_writer_set_string(pq_writer *w, int is_string) {
  pq_writer_set_column_string(w, 0, is_string);
}

void pq_writer_set_column_string(pq_writer *w, int col, int is_string) {
  if (col < 0 || col >= w->ncols) return;
  col_writer *c = &w->cols[col];
  if (c->o.string < 0)
    c->string = is_string != 0 && c->p.type == PQ_BYTE_ARRAY;
}

static int w_fail_range(pq_error *err, const char *what, int64_t n) {
  return pq_fail(err, PQ_RANGE, LABEL, "%s of %lld bytes exceeds the 2147483647 "
                 "a page header can say", what, (long long)n);
}

/* Checks a column's encoding and options; sets c up. */
static int col_open(col_writer *c, const pq_params *params,
                    const pq_write_options *o, pq_error *err) {
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
  /* The encoder's own checks (ALP's vector_size, DELTA's block_size) now,
  ** not at the first value, where the caller can still name the column. */
  pq_encoder *probe;
  rc = pq_encoder_open(&probe, &p, err);
  if (rc) return rc;
  pq_encoder_free(probe);
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
  rc = pq_codec_level_check(o->codec, o->level, err);
  if (rc) return rc;
  if (o->string > 0 && p.type != PQ_BYTE_ARRAY) {
    return pq_fail(err, PQ_MISUSE, LABEL,
                   "only BYTE_ARRAY values can be annotated STRING, not %s",
                   pq_type_name(p.type));
  }
  if ((o->logical == PQ_LOGICAL_GEOMETRY ||
       o->logical == PQ_LOGICAL_GEOGRAPHY) && p.type != PQ_BYTE_ARRAY) {
    return pq_fail(err, PQ_MISUSE, LABEL,
                   "GEOMETRY and GEOGRAPHY annotate BYTE_ARRAY, not %s",
                   pq_type_name(p.type));
  }
  c->p = p;
  c->o = *o;
  c->o.name[sizeof c->o.name - 1] = 0;
  if (o->fallback >= 0 && (p.encoding == PQ_PLAIN_DICTIONARY ||
                           p.encoding == PQ_RLE_DICTIONARY)) {
    pq_params fb = p;
    fb.encoding = (pq_encoding)o->fallback;
    if (fb.encoding == PQ_PLAIN_DICTIONARY || fb.encoding == PQ_RLE_DICTIONARY ||
        fb.encoding == PQ_BIT_PACKED) {
      return pq_fail(err, PQ_MISUSE, LABEL,
                     "a dictionary falls back to a value encoding, not %s",
                     pq_encoding_name(fb.encoding));
    }
    if ((unsigned)fb.encoding < PQ_ENCODING_COUNT &&
        !pq_encoding_supports(fb.encoding, p.type)) {
      return pq_fail(err, PQ_MISUSE, LABEL,
                     "a dictionary of %s values falls back to an encoding of "
                     "them, not %s", pq_type_name(p.type),
                     pq_encoding_name(fb.encoding));
    }
    rc = pq_params_resolve(&fb, 0, err);
    if (rc) return rc;
    rc = pq_encoder_open(&probe, &fb, err);
    if (rc) return rc;
    pq_encoder_free(probe);
    c->fb = fb;
    if (c->o.dictionary_page_size <= 0) c->o.dictionary_page_size = 1 << 20;
  } else {
    c->o.fallback = -1;
  }
  if (c->o.page_size <= 0) c->o.page_size = 1 << 20;
  c->dict = p.encoding == PQ_PLAIN_DICTIONARY ||
            p.encoding == PQ_RLE_DICTIONARY;
  c->vsize = pq_value_size(p.type, p.type_length);
  c->width = pq_plain_width(p.type, p.type_length);
  c->string = o->string > 0 && p.type == PQ_BYTE_ARRAY;
  pq_rle_writer_init(&c->defw, &c->def, 1);
  c->max_def = o->nullable ? 1 : 0;
  c->leaf_rep = o->nullable ? 1 : 0;
  c->path = (const char **)pq_calloc(1, sizeof *c->path);
  if (!c->path) return pq_nomem(err, LABEL);
  c->path[0] = c->o.name;
  c->npath = 1;
  /* DECIMAL bytes are ordered as the integers they hold */
  c->page_stats.dec = c->chunk_stats.dec =
      o->logical == PQ_LOGICAL_DECIMAL &&
      (p.type == PQ_BYTE_ARRAY || p.type == PQ_FIXED_LEN_BYTE_ARRAY);
  c->page_stats.int96 = c->chunk_stats.int96 = p.type == PQ_INT96;
  c->base = p;
  c->fb0 = c->fb;
  c->dict0 = c->dict;
  c->fallback0 = c->o.fallback;
  c->auto_pending = o->auto_encoding != 0;
  /* GEOMETRY, GEOGRAPHY: the crs copied; WKB walked (src/format/wkb.c) */
  c->geo = o->logical == PQ_LOGICAL_GEOMETRY ||
           o->logical == PQ_LOGICAL_GEOGRAPHY;
  pq_geo_acc_init(&c->geo_chunk);
  c->o.crs = NULL;
  if (c->geo && o->crs) {
    c->crs = pq_malloc(o->crs_len + 1);
    if (!c->crs) {
      pq_free(c->path);
      c->path = NULL;
      return pq_nomem(err, LABEL);
    }
    memcpy(c->crs, o->crs, o->crs_len);
    c->crs[o->crs_len] = 0;
    c->o.crs = c->crs;
  }
  return PQ_OK;
}

int pq_writer_open_columns(pq_writer **out, int n, const pq_params *params,
                           const pq_write_options *o, pq_error *err) {
  *out = NULL;
  if (n < 1) return pq_fail(err, PQ_MISUSE, LABEL, "a file needs a column");
  pq_writer *w = pq_calloc(1, sizeof *w);
  col_writer *cols = w ? pq_calloc((size_t)n, sizeof *cols) : NULL;
  if (!cols) {
    pq_free(w);
    return pq_nomem(err, LABEL);
  }
  w->cols = cols;
  for (int i = 0; i < n; i++) {
    int rc = col_open(&cols[i], &params[i], &o[i], err);
    if (rc) {
      pq_writer_free(w);
      return rc;
    }
    w->ncols = i + 1;
  }
  pq_buf_append(&w->file, "PAR1", 4);
  if (w->file.oom) {
    pq_writer_free(w);
    return pq_nomem(err, LABEL);
  }
  *out = w;
  return PQ_OK;
}

int pq_writer_open(pq_writer **out, const pq_params *params,
                   const pq_write_options *o, pq_error *err) {
  int rc = pq_writer_open_columns(out, 1, params, o, err);
  if (rc == PQ_OK) (*out)->group_size = o->row_group_size;
  return rc;
}

/* Counts the leaves and nodes under fields, checking names and shapes. */
static int schema_count(const pq_write_node *f, int n, int depth, int *leaves,
                        int *nodes, pq_error *err) {
  if (depth > 64)
    return pq_fail(err, PQ_MISUSE, LABEL, "a schema deeper than 64 levels");
  for (int i = 0; i < n; i++) {
    if (!f[i].name || !f[i].name[0] || f[i].repetition < 0 ||
        f[i].repetition > 2 || f[i].n_children < 0 ||
        (f[i].n_children > 0 && !f[i].children))
      return pq_fail(err, PQ_MISUSE, LABEL, "schema node %d is malformed", i);
    ++*nodes;
    if (f[i].n_children == 0) {
      ++*leaves;
    } else {
      int rc = schema_count(f[i].children, f[i].n_children, depth + 1, leaves,
                            nodes, err);
      if (rc) return rc;
    }
  }
  return PQ_OK;
}

/* Flattens the nodes depth first; each leaf takes its levels and path. */
static int schema_walk(pq_writer *w, const pq_write_node *f, int n,
                       const char **path, int depth, int def, int rep,
                       int *leaf, pq_error *err) {
  for (int i = 0; i < n; i++) {
    schema_el *e = &w->schema[w->nschema++];
    size_t nl = strlen(f[i].name);
    e->name = pq_malloc(nl + 1);
    if (!e->name) return pq_nomem(err, LABEL);
    memcpy(e->name, f[i].name, nl + 1);
    e->repetition = f[i].repetition;
    e->logical = f[i].logical;
    e->n_children = f[i].n_children;
    e->col = -1;
    int d = def + (f[i].repetition != 0), r = rep + (f[i].repetition == 2);
    path[depth] = e->name;
    if (f[i].n_children > 0) {
      int rc = schema_walk(w, f[i].children, f[i].n_children, path, depth + 1,
                           d, r, leaf, err);
      if (rc) return rc;
      continue;
    }
    col_writer *c = &w->cols[*leaf];
    e->col = (*leaf)++;
    c->max_def = d;
    c->max_rep = r;
    c->leaf_rep = f[i].repetition;
    c->o.nullable = f[i].repetition == 1;
    snprintf(c->o.name, sizeof c->o.name, "%s", f[i].name);
    const char **p = (const char **)pq_calloc((size_t)depth + 1, sizeof *p);
    if (!p) return pq_nomem(err, LABEL);
    memcpy(p, path, ((size_t)depth + 1) * sizeof *p);
    pq_free(c->path);
    c->path = p;
    c->npath = depth + 1;
    pq_rle_writer_init(&c->defw, &c->def, pq_bit_width64((uint64_t)d));
    pq_rle_writer_init(&c->repw, &c->rep, pq_bit_width64((uint64_t)r));
  }
  return PQ_OK;
}

int pq_writer_open_schema(pq_writer **out, const pq_write_node *fields,
                          int n_fields, const pq_params *p,
                          const pq_write_options *o, pq_error *err) {
  *out = NULL;
  int leaves = 0, nodes = 0;
  int rc = schema_count(fields, n_fields, 0, &leaves, &nodes, err);
  if (rc) return rc;
  rc = pq_writer_open_columns(out, leaves, p, o, err);
  if (rc) return rc;
  pq_writer *w = *out;
  w->schema = pq_calloc((size_t)nodes, sizeof *w->schema);
  const char *path[66];
  int leaf = 0;
  rc = w->schema ? schema_walk(w, fields, n_fields, path, 0, 0, 0, &leaf, err)
                 : pq_nomem(err, LABEL);
  if (rc) {
    pq_writer_free(w);
    *out = NULL;
  }
  return rc;
}

/* Opens the encoder of the page (dictionary: of the chunk) if none is. */
static int open_encoder(col_writer *c, pq_error *err) {
  if (c->enc) return PQ_OK;
  pq_encoder **kept = c->dict ? &c->kept_dict : &c->kept_plain;
  if (*kept) {
    c->enc = *kept;
    *kept = NULL;
    return PQ_OK;
  }
  return pq_encoder_open(&c->enc, &c->p, err);
}

/* The column's encoder, done with for now: kept for the next chunk when
** it can begin a new stream (and "auto", which may choose another, is
** off), else freed. */
static void put_encoder_away(col_writer *c) {
  pq_encoder *e = c->enc;
  c->enc = NULL;
  if (!e) return;
  pq_encoder **kept = c->dict ? &c->kept_dict : &c->kept_plain;
  int again = c->dict || pq_encoder_reusable(e);
  if (c->o.auto_encoding || !again || *kept) {
    pq_encoder_free(e);
    return;
  }
  if (c->dict) pq_dict_reset(e);
  *kept = e;
}

/* Compresses src[0..n) with codec at level onto out (or copies it). */
static int compress_page(pq_codec codec, int level, const uint8_t *src,
                         size_t n, pq_buf *out, pq_error *err) {
  if (codec == PQ_UNCOMPRESSED) {
    pq_buf_append(out, src, n);
    return out->oom ? pq_nomem(err, LABEL) : PQ_OK;
  }
  return pq_compress_level(codec, level, src, n, out, err);
}

int pq_page_seal(const pq_page_draft *d, pq_codec codec, int level, int crc,
                 pq_buf *header, pq_buf *packed, pq_error *err) {
  int dict = d->type == PQ_DICTIONARY_PAGE, v2 = d->type == PQ_DATA_PAGE_V2;
  const char *what = dict ? "the dictionary page" : "a page";
  const uint8_t *body = d->body ? d->body : (const uint8_t *)"";
  int64_t uncompressed = (int64_t)(d->levels_len + d->body_len);
  if (uncompressed > INT32_MAX) return w_fail_range(err, what, uncompressed);
  packed->len = 0;
  if (d->levels_len) pq_buf_append(packed, d->levels, d->levels_len);
  int rc = compress_page(codec, level, body, d->body_len, packed, err);
  if (rc) return rc;
  if (packed->oom) return pq_nomem(err, LABEL);
  if (packed->len > INT32_MAX)
    return w_fail_range(err, what, (int64_t)packed->len);
  pq_thrift_writer tw = {header, 0, {0}};
  header->len = 0;
  pq_tw_i32(&tw, 1, d->type);
  pq_tw_i32(&tw, 2, (int32_t)uncompressed);
  pq_tw_i32(&tw, 3, (int32_t)packed->len);
  if (crc) pq_tw_i32(&tw, 4, (int32_t)pq_crc32(0, packed->data, packed->len));
  if (dict) {
    pq_tw_struct_begin(&tw, 7);
    pq_tw_i32(&tw, 1, d->num_values);
    pq_tw_i32(&tw, 2, d->encoding);
  } else if (!v2) {
    pq_tw_struct_begin(&tw, 5);
    pq_tw_i32(&tw, 1, d->num_values);
    pq_tw_i32(&tw, 2, d->encoding);
    pq_tw_i32(&tw, 3, PQ_RLE);
    pq_tw_i32(&tw, 4, PQ_RLE);
  } else {
    pq_tw_struct_begin(&tw, 8);
    pq_tw_i32(&tw, 1, d->num_values);
    pq_tw_i32(&tw, 2, d->num_nulls);
    pq_tw_i32(&tw, 3, d->num_rows);
    pq_tw_i32(&tw, 4, d->encoding);
    pq_tw_i32(&tw, 5, d->def_len);
    pq_tw_i32(&tw, 6, d->rep_len);
    if (codec == PQ_UNCOMPRESSED) pq_tw_bool(&tw, 7, 0);
  }
  if (d->stats) { /* the Statistics, made before: their fields, then STOP */
    pq_tw_struct_begin(&tw, v2 ? 8 : 5);
    pq_buf_append(header, d->stats, d->stats_len);
    pq_tw_struct_end(&tw);
  }
  pq_tw_struct_end(&tw);
  pq_tw_stop(&tw);
  return header->oom ? pq_nomem(err, LABEL) : PQ_OK;
}

/* The page's Statistics as the fields of their struct (without its STOP)
** into d, made in sc->stats. */
static int draft_stats(page_scratch *sc, const col_writer *c, pq_page_draft *d,
                       pq_error *err) {
  /* written as field 1 of a struct of their own: one byte of field
  ** header (the delta 1) before the fields, the STOP after them */
  pq_thrift_writer tw = {&sc->stats, 0, {0}};
  sc->stats.len = 0;
  stats_write(&tw, 1, &c->page_stats, c->p.type, &sc->bound);
  if (sc->stats.oom || stats_oom(&c->page_stats)) return pq_nomem(err, LABEL);
  d->stats = sc->stats.data + 1;
  d->stats_len = sc->stats.len - 2;
  return PQ_OK;
}

void pq_writer_set_tap(pq_writer *w, pq_page_tap fn, void *ctx) {
  w->tap = fn;
  w->tap_ctx = ctx;
}

/* Closes the column's open page (if it has entries) and appends it to
** its `pages`. */
static int flush_page(pq_writer *w, col_writer *c, pq_error *err) {
  page_scratch *sc = &w->sc[c->lane];
  if (c->page_entries == 0) return PQ_OK;
  int rc = open_encoder(c, err);
  if (rc) return rc;
  /* Levels: repetition, then definition; each with its 4-byte length in
  ** a v1 page, its length in a v2 page's header. */
  size_t levels = 0, rep_len = 0, def_len = 0;
  sc->body.len = 0;
  for (int k = 0; k < 2; k++) {
    int max = k ? c->max_def : c->max_rep;
    if (max == 0) continue;
    pq_rle_writer *lw = k ? &c->defw : &c->repw;
    pq_buf *lb = k ? &c->def : &c->rep;
    pq_rle_writer_flush(lw);
    if (lb->oom) return pq_nomem(err, LABEL); /* the levels are cut short */
    if (c->o.page_version == 1) {
      uint8_t len[4];
      pq_store32(len, (uint32_t)lb->len);
      pq_buf_append(&sc->body, len, 4);
    }
    pq_buf_append(&sc->body, lb->data, lb->len);
    *(k ? &def_len : &rep_len) = lb->len;
    lb->len = 0;
    pq_rle_writer_init(lw, lb, pq_bit_width64((uint64_t)max));
  }
  levels = sc->body.len;
  /* The values: after the levels in a v1 page, which compresses both
  ** together; apart in a v2 page, which compresses only the values. */
  int v1 = c->o.page_version == 1;
  pq_buf *vals = v1 ? &sc->body : &sc->tmp;
  if (!v1) vals->len = 0;
  if (c->dict) {
    rc = pq_dict_take_indices(c->enc, vals);
    if (rc) return pq_nomem(err, LABEL);
  } else {
    rc = pq_encoder_finish(c->enc, vals, NULL, err);
    if (rc || !c->enc->reusable) {
      pq_encoder_free(c->enc);
      c->enc = NULL;
    }
    if (rc) return rc;
  }
  if (sc->body.oom || vals->oom) return pq_nomem(err, LABEL);
  int64_t uncompressed = (int64_t)(v1 ? vals->len : levels + vals->len);
  /* The page before its codec, then under it (or handed to the tap). */
  pq_page_draft d;
  memset(&d, 0, sizeof d);
  d.type = v1 ? PQ_DATA_PAGE : PQ_DATA_PAGE_V2;
  d.row_group = w->n_groups;
  d.levels = v1 ? NULL : sc->body.data;
  d.levels_len = v1 ? 0 : levels;
  d.body = vals->data;
  d.body_len = vals->len;
  d.num_values = (int32_t)c->page_entries;
  d.num_nulls = (int32_t)(c->page_entries - c->page_values);
  d.num_rows = (int32_t)c->page_rows;
  d.encoding = (int32_t)c->p.encoding;
  d.def_len = (int32_t)def_len;
  d.rep_len = (int32_t)rep_len;
  d.max_def = c->max_def;
  d.max_rep = c->max_rep;
  if (c->o.statistics) {
    rc = draft_stats(sc, c, &d, err);
    if (rc) return rc;
  }
  if (w->tap) {
    rc = w->tap(w->tap_ctx, &d, err);
    if (rc) return rc;
    goto page_done;
  }
  rc = pq_page_seal(&d, c->o.codec, c->o.level, c->o.crc, &sc->header,
                    &sc->packed, err);
  if (rc) return rc;

  if (c->o.page_index) {
    page_rec r;
    memset(&r, 0, sizeof r);
    r.offset = (int64_t)c->pages.len;
    r.size = (int32_t)(sc->header.len + sc->packed.len);
    r.first_row = c->chunk_rows - c->page_rows;
    r.nulls = c->page_entries - c->page_values;
    r.null_page = c->page_values == 0;
    r.nans = c->page_stats.nans;
    r.unencoded = c->page_size.unencoded;
    if (c->max_rep > 0)
      pq_buf_append(&c->pi_hists, c->page_size.rep,
                    (size_t)(c->max_rep + 1) * sizeof(int64_t));
    if (c->max_def > 0)
      pq_buf_append(&c->pi_hists, c->page_size.def,
                    (size_t)(c->max_def + 1) * sizeof(int64_t));
    if (c->page_stats.has) {
      for (int is_max = 0; is_max < 2; is_max++) {
        stats_bound(&c->page_stats, c->p.type, is_max, &sc->body);
        bound_cut(&sc->body, c->p.type == PQ_BYTE_ARRAY ? c->p.type : PQ_INT32,
                  is_max);
        *(is_max ? &r.max_at : &r.min_at) = c->pi_bounds.len;
        *(is_max ? &r.max_len : &r.min_len) = sc->body.len;
        pq_buf_append(&c->pi_bounds, sc->body.data, sc->body.len);
      }
    } else if (!r.null_page) {
      c->pi_no_ci = 1;
    }
    pq_buf_append(&c->pi_recs, &r, sizeof r);
    if (c->pi_recs.oom || c->pi_bounds.oom || c->pi_hists.oom || sc->body.oom)
      return pq_nomem(err, LABEL);
  }
  ps_append(&c->pages, sc->header.data, sc->header.len);
  ps_append(&c->pages, sc->packed.data, sc->packed.len);
  if (c->pages.oom || sc->header.oom) return pq_nomem(err, LABEL);
  c->chunk_uncompressed += (int64_t)sc->header.len + uncompressed;
  c->chunk_compressed += (int64_t)(sc->header.len + sc->packed.len);
page_done:
  c->chunk_encodings |= 1u << c->p.encoding;
  if (c->max_def || c->max_rep) c->chunk_encodings |= 1u << PQ_RLE;
  c->chunk_pages[c->p.encoding]++;
  size_merge(&c->chunk_size, &c->page_size);
  memset(&c->page_size, 0, sizeof c->page_size);
  stats_merge(&c->chunk_stats, &c->page_stats, c->p.type);
  if (stats_oom(&c->chunk_stats)) return pq_nomem(err, LABEL);
  stats_reset(&c->page_stats);
  c->page_entries = c->page_values = c->page_rows = 0;
  return PQ_OK;
}

/* Writes the chunk's dictionary page at the head of `chunk` (which holds
** nothing yet) and lets the dictionary go. */
static int write_dict_page(pq_writer *w, col_writer *c, pq_error *err) {
  page_scratch *sc = &w->sc[c->lane];
  int rc = open_encoder(c, err);
  if (rc) return rc;
  uint32_t entries = pq_dict_entries(c->enc);
  sc->tmp.len = 0;
  sc->body.len = 0;
  rc = pq_encoder_finish(c->enc, &sc->tmp, &sc->body, err);
  if (rc) {
    pq_encoder_free(c->enc);
    c->enc = NULL;
    return rc;
  }
  put_encoder_away(c);
  if (sc->body.oom) return pq_nomem(err, LABEL);
  pq_page_draft d;
  memset(&d, 0, sizeof d);
  d.type = PQ_DICTIONARY_PAGE;
  d.row_group = w->n_groups;
  d.body = sc->body.data;
  d.body_len = sc->body.len;
  d.num_values = (int32_t)entries;
  /* PLAIN_DICTIONARY names its dictionary page's encoding too. */
  d.encoding = c->p.encoding == PQ_PLAIN_DICTIONARY ? PQ_PLAIN_DICTIONARY
                                                    : PQ_PLAIN;
  d.max_def = c->max_def;
  d.max_rep = c->max_rep;
  if (w->tap) {
    rc = w->tap(w->tap_ctx, &d, err);
    if (rc) return rc;
    c->chunk_encodings |= 1u << d.encoding;
    return PQ_OK;
  }
  rc = pq_page_seal(&d, c->o.codec, c->o.level, c->o.crc, &sc->header,
                    &sc->packed, err);
  if (rc) return rc;
  pq_buf_append(&c->dictpage, sc->header.data, sc->header.len);
  pq_buf_append(&c->dictpage, sc->packed.data, sc->packed.len);
  c->dict_bytes = (int64_t)(sc->header.len + sc->packed.len);
  c->chunk_uncompressed += (int64_t)(sc->header.len + sc->body.len);
  c->chunk_compressed += c->dict_bytes;
  c->chunk_encodings |=
      1u << (c->p.encoding == PQ_PLAIN_DICTIONARY ? PQ_PLAIN_DICTIONARY
                                                  : PQ_PLAIN);
  return c->dictpage.oom ? pq_nomem(err, LABEL) : PQ_OK;
}

/* The chunk's dictionary has outgrown dictionary_page_size: its page is
** written now, after the open page of indices, and the rest of the chunk
** goes in the fallback encoding. */
static int fall_back(pq_writer *w, col_writer *c, pq_error *err) {
  int rc = flush_page(w, c, err);
  if (rc == PQ_OK) rc = write_dict_page(w, c, err);
  if (rc) return rc;
  c->dict_p = c->p;
  c->p = c->fb;
  c->dict = 0;
  c->fell = 1;
  return PQ_OK;
}

/* Closes the column's open chunk: its last page, then its dictionary page
** (unless written when it fell back). */
static int flush_chunk(pq_writer *w, col_writer *c, pq_error *err) {
  int rc = flush_page(w, c, err);
  if (rc) return rc;
  if (!c->dict) put_encoder_away(c); /* (the next chunk's is a dictionary) */
  if (c->dict && c->chunk_rows > 0) {
    rc = write_dict_page(w, c, err);
    if (rc) return rc;
  }
  if (c->fell) { /* the next chunk starts with a dictionary again */
    c->p = c->dict_p;
    c->dict = 1;
    c->fell = 0;
  }
  return PQ_OK;
}

/* Bytes on to the file: to the sink, after what the file buffer holds,
** or into the buffer. */
static int emit(pq_writer *w, const uint8_t *p, size_t n, pq_error *err) {
  if (!w->sink) {
    pq_buf_append(&w->file, p, n);
    return w->file.oom ? pq_nomem(err, LABEL) : PQ_OK;
  }
  if (w->file.oom) return pq_nomem(err, LABEL); /* bytes went missing */
  if (w->file.len) {
    if (w->sink(w->sink_ctx, w->file.data, w->file.len))
      return pq_fail(err, PQ_IO, LABEL, "the file could not be written");
    w->drained += (int64_t)w->file.len;
    w->file.len = 0;
  }
  if (n && w->sink(w->sink_ctx, p, n))
    return pq_fail(err, PQ_IO, LABEL, "the file could not be written");
  w->drained += (int64_t)n;
  return PQ_OK;
}

/* The chunk's bloom filter from the hashes of its values: a
** BloomFilterHeader (split blocks, xxHash, uncompressed), then the bitset. */
static int bloom_filter(col_writer *c, chunk_info *ci, pq_error *err) {
  hash_set *h = &c->hashes;
  uint64_t ndv = c->o.bloom_ndv > 0 ? (uint64_t)c->o.bloom_ndv : h->n;
  uint32_t bytes = pq_bloom_size(ndv, c->o.bloom_fpp);
  pq_thrift_writer tw = {&ci->bloom, 0, {0}};
  pq_tw_i32(&tw, 1, (int32_t)bytes);
  for (int16_t id = 2; id <= 4; id++) { /* BLOCK, XXHASH, UNCOMPRESSED */
    pq_tw_struct_begin(&tw, id);
    pq_tw_struct_begin(&tw, 1);
    pq_tw_struct_end(&tw);
    pq_tw_struct_end(&tw);
  }
  pq_tw_stop(&tw);
  size_t at = ci->bloom.len;
  uint8_t zero[256] = {0};
  for (uint32_t k = 0; k < bytes; k += 256)
    pq_buf_append(&ci->bloom, zero, bytes - k < 256 ? bytes - k : 256);
  if (ci->bloom.oom) return pq_nomem(err, LABEL);
  uint8_t *bits = ci->bloom.data + at;
  for (size_t i = 0; i < h->cap; i++)
    if (h->slots[i]) pq_bloom_insert(bits, bytes, h->slots[i]);
  if (h->has_zero) pq_bloom_insert(bits, bytes, 0);
  if (h->slots) memset(h->slots, 0, h->cap * sizeof *h->slots);
  h->n = 0;
  h->has_zero = 0;
  return PQ_OK;
}

static void list_i64(pq_buf *out, int64_t v) {
  pq_buf_uleb(out, pq_zigzag_enc(v));
}

/* The chunk's OffsetIndex, and its ColumnIndex unless it may not have one
** (no statistics, INT96, a page of NaN only), from the records of its
** pages, whose data pages start at `at` in the file. */
static int page_index(col_writer *c, chunk_info *ci, int64_t at,
                      pq_error *err) {
  const page_rec *r = (const page_rec *)(void *)c->pi_recs.data;
  uint32_t n = (uint32_t)(c->pi_recs.len / sizeof *r);
  pq_thrift_writer tw = {&ci->oidx, 0, {0}};
  pq_tw_list_begin(&tw, 1, PQ_TT_STRUCT, n);
  for (uint32_t i = 0; i < n; i++) {
    pq_tw_list_struct_begin(&tw);
    pq_tw_i64(&tw, 1, at + r[i].offset);
    pq_tw_i32(&tw, 2, r[i].size);
    pq_tw_i64(&tw, 3, r[i].first_row);
    pq_tw_struct_end(&tw);
  }
  if (c->p.type == PQ_BYTE_ARRAY) {
    pq_tw_list_begin(&tw, 2, PQ_TT_I64, n);
    for (uint32_t i = 0; i < n; i++) list_i64(&ci->oidx, r[i].unencoded);
  }
  pq_tw_stop(&tw);
  if (c->o.statistics && !c->pi_no_ci) {
    /* (no bytes at all when every bound is empty) */
    const uint8_t *b = c->pi_bounds.data ? c->pi_bounds.data : (const uint8_t *)"";
    /* ASCENDING when no page's bounds are below the last non-null page's,
    ** DESCENDING when none are above, else UNORDERED. */
    int up = 1, down = 1;
    const page_rec *prev = NULL;
    for (uint32_t i = 0; i < n; i++) {
      if (r[i].null_page) continue;
      if (prev) {
        int lo = bound_cmp(c->p.type, c->page_stats.dec, b + r[i].min_at, r[i].min_len,
                           b + prev->min_at, prev->min_len);
        int hi = bound_cmp(c->p.type, c->page_stats.dec, b + r[i].max_at, r[i].max_len,
                           b + prev->max_at, prev->max_len);
        if (lo < 0 || hi < 0) up = 0;
        if (lo > 0 || hi > 0) down = 0;
      }
      prev = &r[i];
    }
    pq_thrift_writer cw = {&ci->cidx, 0, {0}};
    pq_tw_list_begin(&cw, 1, PQ_TT_TRUE, n);
    for (uint32_t i = 0; i < n; i++) pq_buf_byte(&ci->cidx, r[i].null_page ? 1 : 2);
    pq_tw_list_begin(&cw, 2, PQ_TT_BINARY, n);
    for (uint32_t i = 0; i < n; i++)
      pq_tw_list_binary(&cw, b + r[i].min_at, r[i].null_page ? 0 : r[i].min_len);
    pq_tw_list_begin(&cw, 3, PQ_TT_BINARY, n);
    for (uint32_t i = 0; i < n; i++)
      pq_tw_list_binary(&cw, b + r[i].max_at, r[i].null_page ? 0 : r[i].max_len);
    pq_tw_i32(&cw, 4, up ? 1 : down ? 2 : 0);
    pq_tw_list_begin(&cw, 5, PQ_TT_I64, n);
    for (uint32_t i = 0; i < n; i++) list_i64(&ci->cidx, r[i].nulls);
    /* The level histograms, page after page (6, 7), as pi_hists holds
    ** them; the NaNs (8). */
    const int64_t *h = (const int64_t *)(const void *)c->pi_hists.data;
    size_t per = (size_t)(c->max_rep > 0 ? c->max_rep + 1 : 0) +
                 (size_t)(c->max_def > 0 ? c->max_def + 1 : 0);
    for (int k = 0; k < 2; k++) {
      int max = k ? c->max_def : c->max_rep;
      if (max == 0) continue;
      size_t skip = k && c->max_rep > 0 ? (size_t)c->max_rep + 1 : 0;
      pq_tw_list_begin(&cw, (int16_t)(6 + k), PQ_TT_I64, n * (uint32_t)(max + 1));
      for (uint32_t i = 0; i < n; i++)
        for (int l = 0; l <= max; l++)
          list_i64(&ci->cidx, h[i * per + skip + (size_t)l]);
    }
    if (c->p.type == PQ_FLOAT || c->p.type == PQ_DOUBLE) {
      pq_tw_list_begin(&cw, 8, PQ_TT_I64, n);
      for (uint32_t i = 0; i < n; i++) list_i64(&ci->cidx, r[i].nans);
    }
    pq_tw_stop(&cw);
  }
  c->pi_recs.len = c->pi_bounds.len = c->pi_hists.len = 0;
  c->pi_no_ci = 0;
  return ci->cidx.oom || ci->oidx.oom ? pq_nomem(err, LABEL) : PQ_OK;
}

/* Closes the row group: every column's chunk into the file, in column
** order.  The columns must hold the same number of rows. */
static int auto_decide(pq_writer *w, col_writer *c, pq_error *err);

static int end_row_group(pq_writer *w, pq_error *err) {
  for (int i = 0; i < w->ncols; i++) {
    if (w->cols[i].auto_pending && w->cols[i].ab_n) {
      int rc = auto_decide(w, &w->cols[i], err);
      if (rc) return rc;
    }
  }
  int64_t rows = w->cols[0].chunk_rows;
  for (int i = 1; i < w->ncols; i++) {
    if (w->cols[i].chunk_rows != rows) {
      return pq_fail(err, PQ_MISUSE, LABEL,
                     "column %d has %lld rows in the row group, column 0 %lld",
                     i, (long long)w->cols[i].chunk_rows, (long long)rows);
    }
  }
  if (rows == 0) return PQ_OK;
  if (w->n_groups == w->cap_groups) {
    uint32_t cap = w->cap_groups ? w->cap_groups * 2 : 4;
    for (int i = 0; i < w->ncols; i++) {
      chunk_info *ci = pq_realloc(w->cols[i].chunks, cap * sizeof *ci);
      if (!ci) return pq_nomem(err, LABEL);
      /* zeroed: a row group that fails half done is freed as far as it got */
      memset(ci + w->cap_groups, 0, (cap - w->cap_groups) * sizeof *ci);
      w->cols[i].chunks = ci;
    }
    w->cap_groups = cap;
  }
  for (int i = 0; i < w->ncols; i++) {
    col_writer *c = &w->cols[i];
    int rc = flush_chunk(w, c, err);
    if (rc) return rc;
    chunk_info *ci = &c->chunks[w->n_groups];
    memset(ci, 0, sizeof *ci);
    int64_t at = w->drained + (int64_t)w->file.len;
    ci->rows = c->chunk_rows;
    ci->entries = c->chunk_entries;
    ci->dictionary_offset = c->dict_bytes ? at : -1;
    ci->data_offset = at + c->dict_bytes;
    ci->uncompressed = c->chunk_uncompressed;
    ci->compressed = c->chunk_compressed;
    ci->encodings = c->chunk_encodings;
    ci->size = c->chunk_size;
    memset(&c->chunk_size, 0, sizeof c->chunk_size);
    memcpy(ci->data_pages, c->chunk_pages, sizeof ci->data_pages);
    memset(c->chunk_pages, 0, sizeof c->chunk_pages);
    ci->dict_encoding = !c->dict_bytes ? -1
                        : c->p.encoding == PQ_PLAIN_DICTIONARY
                            ? PQ_PLAIN_DICTIONARY
                            : PQ_PLAIN;
    ci->st = c->chunk_stats; /* the chunk's now */
    ci->geo = c->geo_chunk;
    pq_geo_acc_init(&c->geo_chunk);
    memset(&c->chunk_stats, 0, sizeof c->chunk_stats);
    c->chunk_stats.dec = c->page_stats.dec;
    c->chunk_stats.int96 = c->page_stats.int96;
    if (c->o.page_index) {
      rc = page_index(c, ci, at + c->dict_bytes, err);
      if (rc) return rc;
    }
    if (c->o.bloom) {
      rc = bloom_filter(c, ci, err);
      if (rc) return rc;
    }
    rc = emit(w, c->dictpage.data, c->dictpage.len, err);
    for (size_t k = 0; rc == PQ_OK && k * PAGES_SEG < c->pages.len; k++) {
      size_t m = c->pages.len - k * PAGES_SEG;
      rc = emit(w, c->pages.seg[k], m < PAGES_SEG ? m : PAGES_SEG, err);
    }
    if (rc) return rc;
    c->dictpage.len = c->pages.len = 0;
    c->dict_bytes = 0;
    c->chunk_rows = c->chunk_uncompressed = c->chunk_compressed = 0;
    c->chunk_entries = 0;
    if (c->o.auto_encoding) { /* the next chunk chooses again */
      c->p = c->base;
      c->fb = c->fb0;
      c->dict = c->dict0;
      c->o.fallback = c->fallback0;
      c->auto_pending = 1;
    }
    c->chunk_encodings = 0;
  }
  /* The row group's bloom filters follow it, so that they need not be
  ** kept: the footer needs only where they are. */
  for (int i = 0; i < w->ncols; i++) {
    chunk_info *ci = &w->cols[i].chunks[w->n_groups];
    if (ci->bloom.len == 0) continue;
    ci->bloom_at = w->drained + (int64_t)w->file.len;
    ci->bloom_len = (int64_t)ci->bloom.len;
    int rc = emit(w, ci->bloom.data, ci->bloom.len, err);
    pq_buf_free(&ci->bloom);
    if (rc) return rc;
  }
  w->n_groups++;
  w->rows += rows;
  return PQ_OK;
}

/* Whether a call failed: the writer's flag, or a column's. */
static int writer_failed(pq_writer *w) {
  for (int i = 0; i < w->ncols && !w->failed; i++)
    if (w->cols[i].failed) w->failed = 1;
  return w->failed;
}

int pq_writer_end_row_group(pq_writer *w, pq_error *err) {
  if (writer_failed(w)) {
    return pq_fail(err, PQ_MISUSE, LABEL, "the writer failed before");
  }
  int rc = end_row_group(w, err);
  if (rc) w->failed = 1;
  return rc;
}

/* The entries of the next slice, of the left: at most 64 (1024 once the
** page has some), and, by the
** bytes an entry of the page has taken so far, about what fits in
** page_size, and no more than page_values allows; at least one. */
static size_t slice_size(const col_writer *c, size_t left) {
  /* 64 until the page's entries give their size, then up to 1024, unless
  ** 1024 more entries like the dictionary's could take it past its page
  ** size (where it falls back, which should not be overshot by much) */
  size_t most = c->page_entries > 0 ? 1024 : 64;
  if (c->dict && c->o.fallback >= 0 && c->enc) {
    size_t db = pq_dict_bytes(c->enc), de = pq_dict_entries(c->enc);
    if (db + 1024 * (de ? db / de + 1 : 16) > (size_t)c->o.dictionary_page_size)
      most = 64;
  }
  size_t k = left < most ? left : most;
  size_t cur = (c->enc ? pq_encoder_size(c->enc) : 0) + c->def.len + c->rep.len;
  size_t per = c->page_entries > 0 ? cur / (size_t)c->page_entries + 1 : 16;
  size_t room = (size_t)c->o.page_size > cur ? (size_t)c->o.page_size - cur : 0;
  if (room / per < k) k = room / per > 0 ? room / per : 1;
  if (c->o.page_values > 0 && c->o.page_values > c->page_entries &&
      (int64_t)k > c->o.page_values - c->page_entries)
    k = (size_t)(c->o.page_values - c->page_entries);
  return k;
}

/* After a slice of k entries (nv values at v, recs records) went to the
** encoder and the levels: its statistics, its bloom hashes, the counts;
** then the page closes if it is full, or the dictionary falls back if it
** has outgrown its page. */
static int slice_done(pq_writer *w, col_writer *c, const uint8_t *v, size_t k,
                      size_t nv, size_t recs, pq_error *err) {
  if (c->geo) { /* WKB: checked, bounds and types; no min or max */
    const pq_bytes *b = (const pq_bytes *)(const void *)v;
    for (size_t j = 0; j < nv; j++) {
      int rc = pq_wkb_add(&c->geo_chunk, b[j].ptr, b[j].len, c->o.name, err);
      if (rc) return rc;
    }
  }
  if (c->o.statistics) {
    if (!c->geo) stats_add(&c->page_stats, c->p.type, c->width, v, nv);
    c->page_stats.nulls += (int64_t)(k - nv);
  }
  if (c->p.type == PQ_BYTE_ARRAY) {
    const pq_bytes *b = (const pq_bytes *)(const void *)v;
    for (size_t j = 0; j < nv; j++) c->page_size.unencoded += (int64_t)b[j].len;
  }
  for (size_t j = 0; c->o.bloom && j < nv; j++)
    if (hash_set_add(&c->hashes, pq_bloom_hash(c->p.type, c->p.type_length,
                                               v + j * c->vsize)))
      return pq_nomem(err, LABEL);
  c->page_entries += (int64_t)k;
  c->page_values += (int64_t)nv;
  c->page_rows += (int64_t)recs;
  c->chunk_rows += (int64_t)recs;
  c->chunk_entries += (int64_t)k;
  if (c->dict && c->o.fallback >= 0 &&
      (int64_t)pq_dict_bytes(c->enc) > c->o.dictionary_page_size)
    return fall_back(w, c, err);
  if ((c->o.page_values > 0 && c->page_entries >= c->o.page_values) ||
      (int64_t)(pq_encoder_size(c->enc) + c->def.len + c->rep.len) >=
          c->o.page_size)
    return flush_page(w, c, err);
  return PQ_OK;
}

/* Appends n entries to column c, in pages of its encoding; *used (when
** not NULL) says how many: all, unless a row group it closes (the writer's
** row_group_size) leaves the next chunk's encoding to be chosen ("auto"),
** when the rest must be buffered for that first. */
static int col_put(pq_writer *w, col_writer *c, const uint8_t *v,
                   const uint8_t *present, size_t n, size_t *used,
                   pq_error *err) {
  int rc = PQ_OK;
  size_t i = 0;
  if (used) *used = 0;
  while (i < n && rc == PQ_OK) {
    /* A slice that stays inside the page and the row group. */
    size_t k = slice_size(c, n - i);
    if (w->group_size > 0 && (int64_t)k > w->group_size - c->chunk_rows)
      k = (size_t)(w->group_size - c->chunk_rows);
    size_t nv = k;
    if (present) {
      nv = 0;
      for (size_t j = 0; j < k; j++) nv += present[i + j] != 0;
      if (nv < k && !c->o.nullable) {
        size_t j = 0;
        while (present[i + j]) j++;
        /* chunk_rows counts this call's slices before this one */
        rc = pq_fail(err, PQ_RANGE, LABEL,
                     "column '%s' is not nullable: entry %lld is NULL",
                     c->o.name, (long long)(w->rows + c->chunk_rows + (int64_t)j));
        break;
      }
    }
    if (c->o.nullable && c->max_def > 0) {
      c->page_size.def[1] += (int64_t)nv;
      c->page_size.def[0] += (int64_t)(k - nv);
    }
    if (c->o.nullable) {
      if (nv == k || nv == 0)
        pq_rle_writer_put_repeat(&c->defw, nv == k, k);
      else
        for (size_t j = 0; j < k; j++)
          pq_rle_writer_put(&c->defw, present[i + j] != 0);
      if (c->def.oom) {
        rc = pq_nomem(err, LABEL);
        break;
      }
    }
    rc = open_encoder(c, err);
    if (rc == PQ_OK) rc = pq_encoder_put(c->enc, v, nv, err);
    if (rc) break;
    rc = slice_done(w, c, v, k, nv, k, err);
    if (rc) break;
    if (nv) v += nv * c->vsize; /* v may be NULL when no entry has a value */
    i += k;
    if (rc == PQ_OK && w->group_size > 0 && c->chunk_rows >= w->group_size) {
      rc = end_row_group(w, err);
      if (rc == PQ_OK && c->auto_pending) break;
    }
  }
  if (used) *used = i;
  return rc;
}

/* ---- "auto": a chunk's encoding chosen on its first page ------------------ */

/* The encodings every mainstream reader (DuckDB, arrow-rs, parquet-java,
** Arrow C++) reads, by type: PLAIN and a dictionary always; RLE for
** BOOLEAN; DELTA_BINARY_PACKED for INT32 and INT64; the DELTA byte-array
** encodings; BYTE_STREAM_SPLIT for FLOAT and DOUBLE only (DuckDB reads no
** other); ALP (a preview of the spec) and GROUP_VAR_INT by none. */
int pq_auto_tries(pq_encoding e, pq_type t, unsigned allow) {
  if (e == PQ_PLAIN_DICTIONARY || e == PQ_BIT_PACKED ||
      (unsigned)e >= PQ_ENCODING_COUNT || !pq_encoding_supports(e, t))
    return 0;
  if (allow & (1u << e)) return 1;
  switch (e) {
    case PQ_PLAIN:
    case PQ_RLE_DICTIONARY:
    case PQ_RLE:
    case PQ_DELTA_BINARY_PACKED:
    case PQ_DELTA_LENGTH_BYTE_ARRAY:
    case PQ_DELTA_BYTE_ARRAY:
      return 1;
    case PQ_BYTE_STREAM_SPLIT:
      return t == PQ_FLOAT || t == PQ_DOUBLE;
    default:
      return 0;
  }
}

/* Bytes of values the choice is made on: the first page's, up to 256 KiB
** (a quarter of the default page, which is enough to tell the encodings
** apart, and keeps the copy and the trial encodings small). */
#define AUTO_SAMPLE ((size_t)256 << 10)
static size_t auto_sample(const col_writer *c) {
  return (size_t)c->o.page_size < AUTO_SAMPLE ? (size_t)c->o.page_size
                                              : AUTO_SAMPLE;
}

/* The bytes of the values buffered, as auto_sample counts them: a
** BYTE_ARRAY value's own bytes and 16 more (its pq_bytes where pointers
** take 8 bytes), whatever the build's pointers take, so that a 32-bit
** build (WebAssembly) tries the same values and picks what a 64-bit one
** picks. */
static size_t auto_buffered(const col_writer *c) {
  if (c->p.type == PQ_BYTE_ARRAY)
    return (size_t)c->ab_nv * 16 + c->ab_heap.len;
  return c->ab_vals.len;
}

/* The size of the buffered values encoded as p, after the codec (a
** dictionary's page included), into *size: SIZE_MAX when p cannot encode
** them.  lv: what goes before the values in the page the codec compresses
** (a v1 page's definition levels, auto_levels), or NULL.  PQ_NOMEM when
** out of memory (no size then: the choice would not be the one made
** without the failure), else PQ_OK. */
static int auto_size(pq_writer *w, col_writer *c, const pq_params *p,
                     const void *vals, const pq_buf *lv, size_t *size) {
  page_scratch *sc = &w->sc[c->lane];
  pq_encoder *e;
  pq_error err;
  *size = SIZE_MAX;
  int rc = pq_encoder_open(&e, p, &err);
  if (rc) return rc == PQ_NOMEM ? PQ_NOMEM : PQ_OK;
  sc->tmp.len = 0;
  sc->body.len = 0;
  if (lv) pq_buf_append(&sc->tmp, lv->data, lv->len);
  int dict = p->encoding == PQ_RLE_DICTIONARY;
  rc = sc->tmp.oom ? PQ_NOMEM : pq_encoder_put(e, vals, (size_t)c->ab_nv, &err);
  if (rc == PQ_OK)
    rc = pq_encoder_finish(e, &sc->tmp, dict ? &sc->body : NULL, &err);
  pq_encoder_free(e);
  if (rc == PQ_OK) {
    sc->packed.len = 0;
    rc = compress_page(c->o.codec, c->o.level, sc->tmp.data, sc->tmp.len,
                       &sc->packed, &err);
  }
  size_t n = sc->packed.len;
  if (rc == PQ_OK && dict) {
    sc->packed.len = 0;
    rc = compress_page(c->o.codec, c->o.level, sc->body.data, sc->body.len,
                       &sc->packed, &err);
    n += sc->packed.len;
  }
  if (rc == PQ_OK) *size = n;
  return rc == PQ_NOMEM ? PQ_NOMEM : PQ_OK;
}

/* A v1 page compresses its definition levels together with its values
** (flush_page): under a codec the trials measure them with the values, as
** the page will be, for the levels change what the codec makes of the
** values.  Their 4-byte length and runs, once for all the trials, into lv;
** 0 when there are none to measure (or lv is out of memory: lv->oom). */
static int auto_levels(const col_writer *c, pq_buf *lv) {
  if (c->o.page_version != 1 || c->max_def == 0 ||
      c->o.codec == PQ_UNCOMPRESSED)
    return 0;
  pq_buf runs;
  pq_buf_init(&runs);
  pq_rle_writer rw;
  pq_rle_writer_init(&rw, &runs, pq_bit_width64((uint64_t)c->max_def));
  for (int64_t i = 0; i < c->ab_n; i++)
    pq_rle_writer_put(&rw, c->ab_present.data[i] ? (uint32_t)c->max_def : 0);
  pq_rle_writer_flush(&rw);
  uint8_t len[4];
  pq_store32(len, (uint32_t)runs.len);
  pq_buf_append(lv, len, 4);
  pq_buf_append(lv, runs.data, runs.len);
  if (runs.oom) lv->oom = 1;
  pq_buf_free(&runs);
  return !lv->oom;
}

/* Chooses the chunk's encoding by the buffered entries, then writes them
** in it. */
static int auto_decide(pq_writer *w, col_writer *c, pq_error *err) {
  c->auto_pending = 0;
  if (c->ab_n == 0) return PQ_OK;
  /* BYTE_ARRAY offsets into the heap become pointers. */
  if (c->p.type == PQ_BYTE_ARRAY) {
    pq_bytes *b = (pq_bytes *)(void *)c->ab_vals.data;
    const uint8_t *heap = c->ab_heap.data ? c->ab_heap.data : (const uint8_t *)"";
    for (int64_t i = 0; i < c->ab_nv; i++)
      b[i].ptr = heap + (size_t)(uintptr_t)b[i].ptr;
  }
  pq_params best = c->base;
  size_t best_size = SIZE_MAX;
  pq_buf lv;
  pq_buf_init(&lv);
  int with_levels = auto_levels(c, &lv);
  int rc = lv.oom ? PQ_NOMEM : PQ_OK;
  for (int pass = 0; pass < 2 && rc == PQ_OK; pass++)
    for (int e = 0; e < PQ_ENCODING_COUNT; e++) {
      /* the column's own encoding first, so that it wins a tie */
      if ((pass == 0) != (e == (int)c->base.encoding)) continue;
      if ((e == PQ_RLE_DICTIONARY && c->o.auto_encoding == 2) ||
          !pq_auto_tries((pq_encoding)e, c->base.type, c->o.auto_allow))
        continue;
      pq_params p = c->base;
      p.encoding = (pq_encoding)e;
      if (e == PQ_RLE) p.length_prefix = 1;
      pq_error ignored;
      if (pq_params_resolve(&p, 0, &ignored)) continue;
      size_t size;
      rc = auto_size(w, c, &p, c->ab_vals.data, with_levels ? &lv : NULL,
                     &size);
      if (rc) break;
      if (size < best_size) {
        best_size = size;
        best = p;
      }
    }
  pq_buf_free(&lv);
  if (rc) return pq_nomem(err, LABEL);
  c->p = best;
  c->dict = best.encoding == PQ_RLE_DICTIONARY;
  if (c->dict) {
    c->fb = c->base;
    c->fb.encoding = PQ_PLAIN;
    pq_error ignored;
    pq_params_resolve(&c->fb, 0, &ignored);
    c->o.fallback = PQ_PLAIN;
    if (c->o.dictionary_page_size <= 0) c->o.dictionary_page_size = 1 << 20;
  } else {
    c->o.fallback = -1;
  }
  /* (the buffered entries end at the row group's end at the latest) */
  rc = col_put(w, c, c->ab_vals.data, c->ab_present.data, (size_t)c->ab_n,
               NULL, err);
  /* The first page's copy goes: kept for the next chunk it would stand
  ** beside the chunk's pages all along (memory follows the row group). */
  pq_buf_free(&c->ab_vals);
  pq_buf_free(&c->ab_heap);
  pq_buf_free(&c->ab_present);
  c->ab_n = c->ab_nv = 0;
  return rc;
}

/* Buffers entries until the chunk's first page is whole, then chooses. */
static int auto_put(pq_writer *w, col_writer *c, const uint8_t *v,
                    const uint8_t *present, size_t n, size_t *used,
                    pq_error *err) {
  size_t i = 0;
  int64_t room = INT64_MAX;
  if (c->o.page_values > 0) room = c->o.page_values;
  if (w->group_size > 0 && w->group_size - c->chunk_rows < room)
    room = w->group_size - c->chunk_rows;
  for (; i < n && c->ab_n < room; i++) {
    int here = present ? present[i] != 0 : 1;
    if (!here && !c->o.nullable)
      return pq_fail(err, PQ_RANGE, LABEL,
                     "column '%s' is not nullable: entry %lld is NULL", c->o.name,
                     (long long)(w->rows + c->chunk_rows + c->ab_n));
    pq_buf_byte(&c->ab_present, (uint8_t)here);
    if (here) {
      if (c->p.type == PQ_BYTE_ARRAY) {
        pq_bytes b = *(const pq_bytes *)(const void *)v;
        if (b.len > INT32_MAX)
          return pq_fail(err, PQ_RANGE, LABEL,
                         "value of %zu bytes; a BYTE_ARRAY value holds at most "
                         "2147483647", b.len);
        pq_bytes at = {(const uint8_t *)(uintptr_t)c->ab_heap.len, b.len};
        pq_buf_append(&c->ab_heap, b.ptr, b.len);
        pq_buf_append(&c->ab_vals, &at, sizeof at);
      } else {
        pq_buf_append(&c->ab_vals, v, c->vsize);
      }
      v += c->vsize;
      c->ab_nv++;
    }
    c->ab_n++;
    if (auto_buffered(c) >= auto_sample(c)) {
      i++;
      break;
    }
  }
  if (c->ab_vals.oom || c->ab_heap.oom || c->ab_present.oom)
    return pq_nomem(err, LABEL);
  *used = i;
  int full = c->ab_n >= room || auto_buffered(c) >= auto_sample(c);
  return full ? auto_decide(w, c, err) : PQ_OK;
}

int pq_writer_set_lane(pq_writer *w, int col, int lane) {
  if (col < 0 || col >= w->ncols || lane < 0 || lane >= PQ_WRITER_LANES)
    return PQ_MISUSE;
  w->cols[col].lane = lane;
  return PQ_OK;
}

int pq_writer_put_column(pq_writer *w, int col, const void *values,
                         const uint8_t *present, size_t n, pq_error *err) {
  if (w->failed || (col >= 0 && col < w->ncols && w->cols[col].failed)) {
    return pq_fail(err, PQ_MISUSE, LABEL, "the writer failed before");
  }
  if (col < 0 || col >= w->ncols) {
    return pq_fail(err, PQ_MISUSE, LABEL, "no column %d in a file of %d", col,
                   w->ncols);
  }
  col_writer *c = &w->cols[col];
  const uint8_t *v = values;
  int rc = PQ_OK;
  while (n > 0 && rc == PQ_OK) {
    size_t used = 0;
    if (!c->auto_pending)
      rc = col_put(w, c, v, present, n, &used, err);
    else
      rc = auto_put(w, c, v, present, n, &used, err);
    size_t nv = used;
    if (present) {
      nv = 0;
      for (size_t j = 0; j < used; j++) nv += present[j] != 0;
      present += used;
    }
    if (nv) v += nv * c->vsize; /* v may be NULL when no entry has a value */
    n -= used;
  }
  if (rc) c->failed = 1;
  return rc;
}

int pq_writer_put_levels(pq_writer *w, int col, const void *values,
                         const uint16_t *def, const uint16_t *rep, size_t n,
                         pq_error *err) {
  if (w->failed) {
    return pq_fail(err, PQ_MISUSE, LABEL, "the writer failed before");
  }
  if (col < 0 || col >= w->ncols) {
    return pq_fail(err, PQ_MISUSE, LABEL, "no column %d in a file of %d", col,
                   w->ncols);
  }
  col_writer *c = &w->cols[col];
  int rc = PQ_OK;
  for (size_t i = 0; i < n; i++) {
    if (def[i] > c->max_def || (rep ? rep[i] : 0) > c->max_rep ||
        (i == 0 && rep && rep[0] != 0)) {
      rc = pq_fail(err, PQ_MISUSE, LABEL,
                   "column '%s', entry %zu: levels %d, %d past the column's "
                   "%d, %d, or a record that does not start at 0",
                   c->o.name, i, rep ? rep[i] : 0, def[i], c->max_rep,
                   c->max_def);
      w->failed = 1;
      return rc;
    }
  }
  c->auto_pending = 0; /* levels: the column's own encoding */
  const uint8_t *v = values;
  size_t i = 0;
  while (i < n && rc == PQ_OK) {
    /* A slice of whole records: what the page has room for, then on to
    ** the end of the record. */
    size_t k = slice_size(c, n - i);
    while (rep && i + k < n && rep[i + k] != 0) k++;
    size_t nv = 0, recs = 0;
    for (size_t j = 0; j < k; j++) {
      nv += def[i + j] == c->max_def;
      recs += rep ? rep[i + j] == 0 : 1;
      if (c->max_def) pq_rle_writer_put(&c->defw, def[i + j]);
      if (c->max_rep) pq_rle_writer_put(&c->repw, rep[i + j]);
      if (c->max_def) c->page_size.def[def[i + j]]++;
      if (c->max_rep) c->page_size.rep[rep[i + j]]++;
    }
    if (c->def.oom || c->rep.oom) {
      rc = pq_nomem(err, LABEL);
      break;
    }
    rc = open_encoder(c, err);
    if (rc == PQ_OK) rc = pq_encoder_put(c->enc, v, nv, err);
    if (rc) break;
    /* Slices end with records: a page may close after any of them. */
    rc = slice_done(w, c, v, k, nv, recs, err);
    if (nv) v += nv * c->vsize; /* v may be NULL when no entry has a value */
    i += k;
  }
  if (rc) w->failed = 1;
  return rc;
}

int pq_writer_put(pq_writer *w, const void *values, const uint8_t *present,
                  size_t n, pq_error *err) {
  return pq_writer_put_column(w, 0, values, present, n, err);
}

int pq_writer_set_footer(pq_writer *w, const pq_footer_extra *x,
                         pq_error *err) {
  /* Fields 5 and 6 of FileMetaData, written after field 4 (the row
  ** groups): the compact protocol's field deltas start from 4. */
  w->extra.len = 0;
  pq_thrift_writer tw = {&w->extra, 0, {4}};
  if (x->n > 0) {
    pq_tw_list_begin(&tw, 5, PQ_TT_STRUCT, (uint32_t)x->n);
    for (int i = 0; i < x->n; i++) {
      pq_tw_list_struct_begin(&tw);
      pq_tw_binary(&tw, 1, x->keys[i], strlen(x->keys[i]));
      if (x->values[i]) pq_tw_binary(&tw, 2, x->values[i], strlen(x->values[i]));
      pq_tw_struct_end(&tw);
    }
  }
  const char *by = x->created_by ? x->created_by : CREATED_BY;
  pq_tw_binary(&tw, 6, by, strlen(by));
  return w->extra.oom ? pq_nomem(err, LABEL) : PQ_OK;
}

int64_t pq_writer_group_bytes(const pq_writer *w) {
  int64_t n = 0;
  for (int i = 0; i < w->ncols; i++) {
    const col_writer *c = &w->cols[i];
    n += (int64_t)(c->pages.len + c->dictpage.len + c->def.len + c->ab_vals.len +
                   c->ab_heap.len);
    if (c->enc) n += (int64_t)pq_encoder_size(c->enc);
  }
  return n;
}

void pq_writer_set_sink(pq_writer *w, pq_write_fn fn, void *ctx) {
  w->sink = fn;
  w->sink_ctx = ctx;
}

void pq_writer_drain(pq_writer *w, pq_buf *out) {
  w->drained += (int64_t)w->file.len;
  pq_buf_move(out, &w->file);
}

/* ConvertedType (6, and DECIMAL's scale 7 and precision 8) and LogicalType
** (10) of a leaf, as spec/LogicalTypes.md pairs them: the converted type
** too wherever one matches, local times and timestamps included. */
static void write_logical(pq_thrift_writer *tw, const col_writer *c) {
  int lt = c->o.logical, conv = -1;
  if (lt == PQ_LOGICAL_NONE && c->string) lt = PQ_LOGICAL_STRING;
  int unit = c->o.unit;
  switch (lt) {
    case PQ_LOGICAL_STRING: conv = 0; break;
    case PQ_LOGICAL_ENUM: conv = 4; break;
    case PQ_LOGICAL_DECIMAL: conv = 5; break;
    case PQ_LOGICAL_DATE: conv = 6; break;
    case PQ_LOGICAL_TIME:
      conv = unit == PQ_UNIT_MILLIS ? 7 : unit == PQ_UNIT_MICROS ? 8 : -1;
      break;
    case PQ_LOGICAL_TIMESTAMP:
      conv = unit == PQ_UNIT_MILLIS ? 9 : unit == PQ_UNIT_MICROS ? 10 : -1;
      break;
    case PQ_LOGICAL_JSON: conv = 19; break;
    case PQ_LOGICAL_GEOMETRY:
    case PQ_LOGICAL_GEOGRAPHY: break; /* no ConvertedType */
    case PQ_LOGICAL_NONE: return;
    default: break;
  }
  if (conv >= 0) pq_tw_i32(tw, 6, conv);
  if (lt == PQ_LOGICAL_DECIMAL) {
    pq_tw_i32(tw, 7, c->o.scale);
    pq_tw_i32(tw, 8, c->o.precision);
  }
  pq_tw_struct_begin(tw, 10);
  pq_tw_struct_begin(tw, (int16_t)lt);
  if (lt == PQ_LOGICAL_DECIMAL) {
    pq_tw_i32(tw, 1, c->o.scale);
    pq_tw_i32(tw, 2, c->o.precision);
  } else if (lt == PQ_LOGICAL_TIME || lt == PQ_LOGICAL_TIMESTAMP) {
    pq_tw_bool(tw, 1, c->o.utc != 0);
    pq_tw_struct_begin(tw, 2);          /* TimeUnit */
    pq_tw_struct_begin(tw, (int16_t)unit); /* MilliSeconds, ... {} */
    pq_tw_struct_end(tw);
    pq_tw_struct_end(tw);
  } else if (lt == PQ_LOGICAL_GEOMETRY || lt == PQ_LOGICAL_GEOGRAPHY) {
    if (c->o.crs) pq_tw_binary(tw, 1, c->o.crs, c->o.crs_len);
    if (lt == PQ_LOGICAL_GEOGRAPHY && c->o.algorithm > 0)
      pq_tw_i32(tw, 2, c->o.algorithm - 1);
  }
  pq_tw_struct_end(tw);
  pq_tw_struct_end(tw);
}

/* GeospatialStatistics (spec/Geospatial.md) of a chunk that has values:
** the bounding box of GEOMETRY when x and y have values (with z and m
** when they do); none for GEOGRAPHY, whose edges a box of its vertices
** need not hold; the type codes, ascending. */
static void write_geo_stats(pq_thrift_writer *tw, const col_writer *cw,
                            const pq_geo_acc *g) {
  if (g->values == 0) return;
  pq_tw_struct_begin(tw, 17);
  if (cw->o.logical == PQ_LOGICAL_GEOMETRY && g->min[0] <= g->max[0] &&
      g->min[1] <= g->max[1]) {
    pq_tw_struct_begin(tw, 1);
    for (int a = 0; a < 4; a++) {
      if (!(g->min[a] <= g->max[a])) continue;
      pq_tw_double(tw, (int16_t)(2 * a + 1), g->min[a]);
      pq_tw_double(tw, (int16_t)(2 * a + 2), g->max[a]);
    }
    pq_tw_struct_end(tw);
  }
  int32_t codes[28];
  int n = pq_geo_acc_codes(g, codes);
  pq_tw_list_begin(tw, 2, PQ_TT_I32, (uint32_t)n);
  for (int i = 0; i < n; i++) pq_tw_list_i32(tw, codes[i]);
  pq_tw_struct_end(tw);
}

/* A leaf's SchemaElement. */
static void write_leaf(pq_thrift_writer *tw, const col_writer *c,
                       const char *name) {
  pq_tw_list_struct_begin(tw);
  pq_tw_i32(tw, 1, (int32_t)c->p.type);
  if (c->p.type == PQ_FIXED_LEN_BYTE_ARRAY) pq_tw_i32(tw, 2, c->p.type_length);
  pq_tw_i32(tw, 3, c->leaf_rep);
  pq_tw_binary(tw, 4, name, strlen(name));
  write_logical(tw, c);
  pq_tw_struct_end(tw);
}

/* The schema: the root, then the columns (flat) or the nodes of the
** nested schema, depth first. */
static void write_schema(const pq_writer *w, pq_thrift_writer *tw) {
  int n = w->schema ? w->nschema : w->ncols;
  pq_tw_list_begin(tw, 2, PQ_TT_STRUCT, (uint32_t)n + 1);
  pq_tw_list_struct_begin(tw);
  pq_tw_binary(tw, 4, "schema", 6);
  if (!w->schema) {
    pq_tw_i32(tw, 5, w->ncols);
    pq_tw_struct_end(tw);
    for (int i = 0; i < w->ncols; i++)
      write_leaf(tw, &w->cols[i], w->cols[i].o.name);
    return;
  }
  /* the root's children: the nodes not inside another */
  int roots = 0;
  for (int i = 0; i < w->nschema;) {
    roots++;
    /* past the subtree of node i */
    int left = 1;
    while (left > 0 && i < w->nschema) {
      left += w->schema[i].n_children - 1;
      i++;
    }
  }
  pq_tw_i32(tw, 5, roots);
  pq_tw_struct_end(tw);
  for (int i = 0; i < w->nschema; i++) {
    const schema_el *e = &w->schema[i];
    if (e->col >= 0) {
      write_leaf(tw, &w->cols[e->col], e->name);
      continue;
    }
    pq_tw_list_struct_begin(tw);
    pq_tw_i32(tw, 3, e->repetition);
    pq_tw_binary(tw, 4, e->name, strlen(e->name));
    pq_tw_i32(tw, 5, e->n_children);
    if (e->logical == PQ_LOGICAL_LIST || e->logical == PQ_LOGICAL_MAP) {
      pq_tw_i32(tw, 6, e->logical == PQ_LOGICAL_LIST ? 3 : 1); /* LIST, MAP */
      pq_tw_struct_begin(tw, 10);
      pq_tw_struct_begin(tw, (int16_t)e->logical);
      pq_tw_struct_end(tw);
      pq_tw_struct_end(tw);
    }
    if (e->logical == PQ_LOGICAL_FILE) { /* FILE, no ConvertedType */
      pq_tw_struct_begin(tw, 10);
      pq_tw_struct_begin(tw, PQ_LOGICAL_FILE);
      pq_tw_struct_end(tw);
      pq_tw_struct_end(tw);
    }
    if (e->logical == PQ_LOGICAL_VARIANT) { /* VARIANT(1), no ConvertedType */
      pq_tw_struct_begin(tw, 10);
      pq_tw_struct_begin(tw, PQ_LOGICAL_VARIANT);
      pq_tw_i8(tw, 1, 1); /* specification_version */
      pq_tw_struct_end(tw);
      pq_tw_struct_end(tw);
    }
    pq_tw_struct_end(tw);
  }
}

/* encoding_stats (13): the dictionary page, then the data pages by
** encoding. */
static void write_encoding_stats(pq_thrift_writer *tw, const col_writer *cw,
                                 const chunk_info *c) {
  uint32_t n = c->dict_encoding >= 0;
  for (int e = 0; e < PQ_ENCODING_COUNT; e++) n += c->data_pages[e] > 0;
  int data = cw->o.page_version == 2 ? PQ_DATA_PAGE_V2 : PQ_DATA_PAGE;
  pq_tw_list_begin(tw, 13, PQ_TT_STRUCT, n);
  for (int e = -1; e < PQ_ENCODING_COUNT; e++) {
    if (e < 0 ? c->dict_encoding < 0 : c->data_pages[e] == 0) continue;
    pq_tw_list_struct_begin(tw);
    pq_tw_i32(tw, 1, e < 0 ? PQ_DICTIONARY_PAGE : data);
    pq_tw_i32(tw, 2, e < 0 ? c->dict_encoding : e);
    pq_tw_i32(tw, 3, e < 0 ? 1 : c->data_pages[e]);
    pq_tw_struct_end(tw);
  }
}

/* size_statistics (16), SizeStatistics: the unencoded bytes of a
** BYTE_ARRAY column, the histogram of each level whose maximum is above 0
** (parquet.thrift: the others say nothing). */
static void write_size_statistics(pq_thrift_writer *tw, const col_writer *cw,
                                  const chunk_info *c) {
  int ba = cw->p.type == PQ_BYTE_ARRAY;
  if (!ba && cw->max_rep == 0 && cw->max_def == 0) return;
  pq_tw_struct_begin(tw, 16);
  if (ba) pq_tw_i64(tw, 1, c->size.unencoded);
  for (int k = 0; k < 2; k++) {
    int max = k ? cw->max_def : cw->max_rep;
    if (max == 0) continue;
    const int64_t *h = k ? c->size.def : c->size.rep;
    pq_tw_list_begin(tw, (int16_t)(2 + k), PQ_TT_I64, (uint32_t)max + 1);
    for (int l = 0; l <= max; l++) list_i64(tw->out, h[l]);
  }
  pq_tw_struct_end(tw);
}

static void write_chunk(pq_writer *w, pq_thrift_writer *tw,
                        const col_writer *cw, const chunk_info *c) {
  pq_tw_list_struct_begin(tw);
  pq_tw_i64(tw, 2, c->dictionary_offset >= 0 ? c->dictionary_offset
                                             : c->data_offset);
  pq_tw_struct_begin(tw, 3);
  pq_tw_i32(tw, 1, (int32_t)cw->p.type);
  uint32_t ne = 0;
  for (int e = 0; e < PQ_ENCODING_COUNT; e++) ne += (c->encodings >> e) & 1;
  pq_tw_list_begin(tw, 2, PQ_TT_I32, ne);
  for (int e = 0; e < PQ_ENCODING_COUNT; e++)
    if ((c->encodings >> e) & 1) pq_tw_list_i32(tw, e);
  pq_tw_list_begin(tw, 3, PQ_TT_BINARY, (uint32_t)cw->npath);
  for (int k = 0; k < cw->npath; k++)
    pq_tw_list_binary(tw, cw->path[k], strlen(cw->path[k]));
  pq_tw_i32(tw, 4, (int32_t)cw->o.codec);
  pq_tw_i64(tw, 5, c->entries);
  pq_tw_i64(tw, 6, c->uncompressed);
  pq_tw_i64(tw, 7, c->compressed);
  pq_tw_i64(tw, 9, c->data_offset);
  if (c->dictionary_offset >= 0) pq_tw_i64(tw, 11, c->dictionary_offset);
  if (cw->o.statistics) stats_write(tw, 12, &c->st, cw->p.type, &w->sc[0].tmp);
  write_encoding_stats(tw, cw, c);
  if (c->bloom_len) {
    pq_tw_i64(tw, 14, c->bloom_at);
    pq_tw_i32(tw, 15, (int32_t)c->bloom_len);
  }
  write_size_statistics(tw, cw, c);
  if (cw->geo && cw->o.statistics) write_geo_stats(tw, cw, &c->geo);
  pq_tw_struct_end(tw);
  if (c->oidx.len) {
    pq_tw_i64(tw, 4, c->oidx_at);
    pq_tw_i32(tw, 5, (int32_t)c->oidx.len);
  }
  if (c->cidx.len) {
    pq_tw_i64(tw, 6, c->cidx_at);
    pq_tw_i32(tw, 7, (int32_t)c->cidx.len);
  }
  pq_tw_struct_end(tw);
}

int pq_writer_finish(pq_writer *w, pq_buf *out, pq_error *err) {
  if (writer_failed(w)) {
    return pq_fail(err, PQ_MISUSE, LABEL, "the writer failed before");
  }
  w->failed = 1; /* spent, whatever happens */
  int rc = end_row_group(w, err);
  if (rc) return rc;
  /* The page indexes, before the footer: every column index, then every
  ** offset index. */
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t g = 0; g < w->n_groups; g++)
      for (int i = 0; i < w->ncols; i++) {
        chunk_info *c = &w->cols[i].chunks[g];
        pq_buf *b = pass ? &c->oidx : &c->cidx;
        if (b->len == 0) continue;
        *(pass ? &c->oidx_at : &c->cidx_at) = w->drained + (int64_t)w->file.len;
        pq_buf_append(&w->file, b->data, b->len);
      }
  if (w->file.oom) return pq_nomem(err, LABEL);
  size_t footer = w->file.len;
  int version = 1, orders = 0;
  for (int i = 0; i < w->ncols; i++) {
    if (w->cols[i].o.page_version == 2) version = 2;
    orders |= w->cols[i].o.statistics;
  }
  pq_thrift_writer tw = {&w->file, 0, {0}};
  pq_tw_i32(&tw, 1, version);
  write_schema(w, &tw);
  pq_tw_i64(&tw, 3, w->rows);
  pq_tw_list_begin(&tw, 4, PQ_TT_STRUCT, w->n_groups);
  for (uint32_t g = 0; g < w->n_groups; g++) {
    int64_t size = 0, compressed = 0;
    pq_tw_list_struct_begin(&tw);
    pq_tw_list_begin(&tw, 1, PQ_TT_STRUCT, (uint32_t)w->ncols);
    for (int i = 0; i < w->ncols; i++) {
      const chunk_info *c = &w->cols[i].chunks[g];
      write_chunk(w, &tw, &w->cols[i], c);
      size += c->uncompressed;
      compressed += c->compressed;
    }
    const chunk_info *c0 = &w->cols[0].chunks[g];
    pq_tw_i64(&tw, 2, size);
    pq_tw_i64(&tw, 3, c0->rows);
    pq_tw_i64(&tw, 5, c0->dictionary_offset >= 0 ? c0->dictionary_offset
                                                 : c0->data_offset);
    pq_tw_i64(&tw, 6, compressed);
    pq_tw_struct_end(&tw);
  }
  if (w->extra.len) {
    pq_buf_append(&w->file, w->extra.data, w->extra.len);
    tw.last[tw.depth] = 6;
  } else {
    pq_tw_binary(&tw, 6, CREATED_BY, strlen(CREATED_BY));
  }
  if (orders) {
    /* ColumnOrder: TYPE_ORDER, so that readers trust min_value and
    ** max_value; INT96_TIMESTAMP_ORDER for INT96, whose bounds are the
    ** instants' (parquet.thrift: readers ignore them under TYPE_ORDER). */
    pq_tw_list_begin(&tw, 7, PQ_TT_STRUCT, (uint32_t)w->ncols);
    for (int i = 0; i < w->ncols; i++) {
      pq_tw_list_struct_begin(&tw);
      pq_tw_struct_begin(&tw, w->cols[i].p.type == PQ_INT96 ? 3 : 1);
      pq_tw_struct_end(&tw);
      pq_tw_struct_end(&tw);
    }
  }
  pq_tw_stop(&tw);
  uint8_t tail[8];
  pq_store32(tail, (uint32_t)(w->file.len - footer));
  memcpy(tail + 4, "PAR1", 4);
  pq_buf_append(&w->file, tail, 8);
  if (w->file.oom) return pq_nomem(err, LABEL);
  if (w->sink) return emit(w, NULL, 0, err);
  pq_buf_move(out, &w->file);
  return out->oom ? pq_nomem(err, LABEL) : PQ_OK;
}

void pq_writer_free(pq_writer *w) {
  if (!w) return;
  for (int i = 0; i < w->ncols; i++) {
    col_writer *c = &w->cols[i];
    pq_encoder_free(c->enc);
    pq_encoder_free(c->kept_dict);
    pq_encoder_free(c->kept_plain);
    pq_buf_free(&c->def);
    stats_free(&c->page_stats);
    stats_free(&c->chunk_stats);
    ps_free(&c->pages);
    pq_buf_free(&c->dictpage);
    /* the row groups closed, and one that failed half done */
    uint32_t ng = w->n_groups < w->cap_groups ? w->n_groups + 1 : w->n_groups;
    for (uint32_t g = 0; g < ng; g++) {
      stats_free(&c->chunks[g].st);
      pq_buf_free(&c->chunks[g].cidx);
      pq_buf_free(&c->chunks[g].oidx);
      pq_buf_free(&c->chunks[g].bloom);
    }
    pq_free(c->hashes.slots);
    pq_free(c->chunks);
    pq_buf_free(&c->pi_recs);
    pq_buf_free(&c->pi_bounds);
    pq_buf_free(&c->pi_hists);
    pq_buf_free(&c->ab_vals);
    pq_buf_free(&c->ab_heap);
    pq_buf_free(&c->ab_present);
  }
  for (int i = 0; i < w->ncols; i++) {
    pq_free(w->cols[i].crs);
    pq_free(w->cols[i].path);
    pq_buf_free(&w->cols[i].rep);
  }
  pq_free(w->cols);
  for (int i = 0; i < w->nschema; i++) pq_free(w->schema[i].name);
  pq_free(w->schema);
  pq_buf_free(&w->file);
  for (int k = 0; k < PQ_WRITER_LANES; k++) {
    pq_buf_free(&w->sc[k].body);
    pq_buf_free(&w->sc[k].packed);
    pq_buf_free(&w->sc[k].header);
    pq_buf_free(&w->sc[k].tmp);
    pq_buf_free(&w->sc[k].stats);
    pq_buf_free(&w->sc[k].bound);
  }
  pq_buf_free(&w->extra);
  pq_free(w);
}
