/*
** fuzz_write.c -- the file writer (pq_writer_*) and the value conversions
** of the value conversions (writer/values.c), each checked against the reader.
**
** The first byte picks what an execution does:
**
**   even  a file.  From the input: 1 to 8 columns, each with a physical
**         type (FIXED_LEN_BYTE_ARRAY of 1 to 64 bytes), an encoding (any
**         number, those the type does not take included), a logical
**         annotation that fits the type or not, nullable or not, page
**         version, codec, tiny pages, a dictionary's fallback with a tiny
**         dictionary_page_size; options as JSON (as given, or built from
**         keys and values the input picks) through pq_write_options_parse;
**         then operations: values (NULLs among them) put into one column or
**         into all in slices of any size, row groups closed (uneven
**         columns: PQ_MISUSE), drains, footer key-values, the finish.  The
**         file is read back: the footer says what was asked; every chunk
**         gives back every entry, NULL and value bit for bit; statistics
**         (chunks, pages, column indexes) bracket their values in the
**         order of the type, and count the NULLs; the offset index points
**         at the pages; a bloom filter knows every value; the SQL cells of
**         each column match its bounds, and skipping rows gives the cells
**         reading gives.
**   odd   the conversions: the rest of the input is pieces, each a decimal
**         spec, an integer, a real and a text; each conversion of writer/values.c
**         is tried on them (every unit, specs valid or not), and what one
**         accepts is written out by the reader's text functions
**         (reader/reader.h) and must read back as the same bytes; the
**         conversions must also agree with each other (a timestamp in three
**         units, as INT96; a decimal from an integer, its digits, a real).
**
** A difference is __builtin_trap().  FUZZ_WRITE_LAX (a mask of LAX_*) can
** leave out checks that fail on a finding not yet fixed, so that a run
** looks for others (RESULTS.md lists the findings).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "reader/reader.h"
#include "parquet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* By default the checks leave out the annotations parquet_write never
** writes (INTEGER, FLOAT16, DECIMALs of an impossible precision or scale):
** the core writes them as asked, and promises nothing of them. */
#ifndef FUZZ_WRITE_LAX
#define FUZZ_WRITE_LAX (LAX_INTEGER | LAX_FLOAT16 | LAX_DECIMAL_SPEC)
#endif
/* Statistics in the order of the logical type (spec/LogicalTypes.md:
** DECIMAL as signed integers, unsigned INTEGER, FLOAT16), and the SQL
** bounds that rest on them. */
#define LAX_LOGICAL_ORDER 1
/* (2: SQL bounds of TIME values outside the day, which are not TIMEs: no
** longer checked.) */
/* (4: RLE as the fallback of a column not BOOLEAN: refused now.) */
/* (8: "auto" encoding with row_group_size (pq_writer_open): a row group
** closed within a put left the next chunk's first entries in the open
** page of the one before, under the encoding chosen after: fixed, the
** rest of the put is buffered for the choice.) */
/* (16: "auto" encoding: a NULL in a column not nullable failed a later
** call, not the put: fixed.) */
/* INTEGER annotations, written without their bit width and sign: not
** asked for. */
#define LAX_INTEGER 32
/* FLOAT16 annotations, whose statistics are in the order of bytes: not
** asked for. */
#define LAX_FLOAT16 64
/* DECIMAL annotations of a precision or scale out of range: not asked
** for. */
#define LAX_DECIMAL_SPEC 128

#define MAX_COLS 8
#define MAX_ENTRIES 4096 /* of all the columns together */
#define MAX_OPS 256
#define MAX_BATCH 512
#define MAX_WIDTH 64 /* FIXED_LEN_BYTE_ARRAY lengths: 1 to 64 */
#define LIMIT ((size_t)1 << 20)

/* FUZZ_WRITE_DEBUG: say which check failed, and the last error. */
#ifdef FUZZ_WRITE_DEBUG
static const pq_error *last_err;
#define NOTE_ERR(e) (last_err = (e))
#define CHECK(x)                                                        \
  do {                                                                  \
    if (!(x)) {                                                         \
      fprintf(stderr, "check failed at line %d: %s (last error: %s)\n", \
              __LINE__, #x, last_err ? last_err->msg : "none");         \
      __builtin_trap();                                                 \
    }                                                                   \
  } while (0)
#else
#define NOTE_ERR(e) ((void)(e))
#define CHECK(x)                 \
  do {                           \
    if (!(x)) __builtin_trap();  \
  } while (0)
#endif

/* ---- Columns ------------------------------------------------------------ */

typedef struct wcol {
  pq_params p;
  pq_write_options o;
  int value_mode;   /* 0 raw bytes, 1 few values, 2 a walk, 3 mixed */
  int null_mode;    /* 0 none, 1 some, 2 half, 3 most */
  int string_set;   /* pq_writer_set_column_string's last word, -1 none */
  int enc_rc;       /* what opening the column's encoder gives */
  size_t vsize;     /* bytes of a value in the writer's layout */
  uint64_t walk;    /* value_mode 2 */
  double walkd;
  /* What was put: entries, whether each has a value, the values (zeros
  ** for NULLs), vsize bytes each. */
  size_t n, cap;
  uint8_t *present;
  uint8_t *vals;
  int64_t pending;  /* rows since the last row group */
} wcol;

typedef struct wrun {
  const uint8_t *data; /* the whole input: byte arrays point into it */
  int ncols;
  wcol cols[MAX_COLS];
  int64_t *groups;  /* rows of each row group closed */
  size_t ngroups, capgroups;
  size_t total;     /* entries of all columns */
  int by_rows;      /* pq_writer_open: row groups close at row_group_size */
  /* The footer's extras, as last set. */
  int has_footer, nkv;
  char keys[4][16], vals[4][16];
  const char *keyp[4], *valp[4];
  char by[24];
  const char *byp;
  int bas;          /* binary_as_string for the cells */
  int json_used;
} wrun;

static const uint8_t pool[] = "aaaabaabbbacabcbbbbcccaaxyzzy\x00\xff\x80";

static const double reals[] = {0.0,  -0.0,     1.5,     -2.0,
                               NAN,  INFINITY, -INFINITY, 4.9e-324,
                               1e300, -1e-300, 0.1,     3.0};

/* Pushes a value of column c made from the input, in the writer's layout,
** to o. */
static void gen_value(wcol *c, fuzz_in *in, const uint8_t *base,
                      uint8_t *o) {
  int mode = c->value_mode == 3 ? (int)(fz_byte(in) % 3) : c->value_mode;
  size_t w = c->vsize;
  switch (c->p.type) {
    case PQ_BOOLEAN:
      o[0] = fz_byte(in) & 1;
      return;
    case PQ_INT32:
    case PQ_INT64: {
      uint64_t x;
      if (mode == 0) {
        x = 0;
        for (size_t i = 0; i < w; i++) x |= (uint64_t)fz_byte(in) << (8 * i);
      } else if (mode == 1) {
        x = (uint64_t)(int64_t)(int8_t)(fz_byte(in) % 8 - 4);
        if (fz_byte(in) & 1) x = x ? x << 31 : x;
      } else {
        c->walk += (uint64_t)(int64_t)(int8_t)fz_byte(in);
        x = c->walk;
      }
      uint8_t b[8];
      pq_store64(b, x);
      memcpy(o, b, w);
      return;
    }
    case PQ_FLOAT:
    case PQ_DOUBLE: {
      double d;
      if (mode == 0) {
        uint8_t b[8] = {0};
        for (size_t i = 0; i < w; i++) b[i] = fz_byte(in);
        memcpy(o, b, w);
        return;
      }
      if (mode == 1) {
        d = reals[fz_byte(in) % (sizeof reals / sizeof reals[0])];
      } else {
        c->walkd += (int8_t)fz_byte(in) * 0.25;
        d = c->walkd;
      }
      if (c->p.type == PQ_FLOAT) {
        float f = (float)d;
        memcpy(o, &f, 4);
      } else {
        memcpy(o, &d, 8);
      }
      return;
    }
    case PQ_BYTE_ARRAY: {
      pq_bytes b;
      uint8_t k = fz_byte(in);
      if (mode == 1) {
        b.ptr = pool + k % 8;
        b.len = k / 8 % 5;
      } else {
        b.len = k % 40;
        if (b.len > in->n) b.len = in->n;
        b.ptr = b.len ? in->p : base;
        in->p += b.len;
        in->n -= b.len;
      }
      memcpy(o, &b, sizeof b);
      return;
    }
    default: /* INT96, FIXED_LEN_BYTE_ARRAY */
      if (mode == 0) {
        for (size_t i = 0; i < w; i++) o[i] = fz_byte(in);
      } else if (mode == 1) {
        /* A small two's complement integer, big-endian: decimals. */
        int8_t v = (int8_t)fz_byte(in);
        memset(o, v < 0 ? 0xFF : 0, w);
        o[w - 1] = (uint8_t)v;
      } else {
        c->walk += (uint64_t)(int64_t)(int8_t)fz_byte(in);
        for (size_t i = 0; i < w; i++)
          o[w - 1 - i] = i < 8 ? (uint8_t)(c->walk >> (8 * i))
                               : (uint8_t)((int64_t)c->walk < 0 ? 0xFF : 0);
      }
  }
}

static int grow(wcol *c, size_t more) {
  if (c->n + more <= c->cap) return 1;
  size_t cap = c->cap ? c->cap : 64;
  while (cap < c->n + more) cap *= 2;
  uint8_t *p = realloc(c->present, cap);
  if (!p) return 0;
  c->present = p;
  uint8_t *v = realloc(c->vals, cap * c->vsize);
  if (!v) return 0;
  c->vals = v;
  c->cap = cap;
  return 1;
}

/* The PLAIN bytes of entry i (a BYTE_ARRAY without its length). */
static pq_bytes plain_of(const wcol *c, size_t i) {
  pq_bytes b;
  if (c->p.type == PQ_BYTE_ARRAY) {
    memcpy(&b, c->vals + i * c->vsize, sizeof b);
  } else {
    b.ptr = c->vals + i * c->vsize;
    b.len = c->vsize;
  }
  return b;
}

/* ---- Orders --------------------------------------------------------------- */

enum { ORD_NONE, ORD_SIGNED, ORD_UNSIGNED, ORD_REAL, ORD_BYTES, ORD_BE_SIGNED,
       ORD_HALF };

/* The order of the physical type (the writer's statistics). */
static int phys_order(pq_type t) {
  switch (t) {
    case PQ_BOOLEAN:
    case PQ_INT32:
    case PQ_INT64: return ORD_SIGNED;
    case PQ_FLOAT:
    case PQ_DOUBLE: return ORD_REAL;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY: return ORD_BYTES;
    default: return ORD_NONE;
  }
}

/* The order the spec gives the column as its schema says
** (ColumnOrder TYPE_ORDER), where it is not the physical one. */
static int logical_order(const pq_schema_element *e) {
  if ((e->logical_type == PQ_LOGICAL_DECIMAL || e->converted_type == 5) &&
      (e->type == PQ_BYTE_ARRAY || e->type == PQ_FIXED_LEN_BYTE_ARRAY))
    return ORD_BE_SIGNED;
  if ((e->type == PQ_INT32 || e->type == PQ_INT64) &&
      ((e->logical_type == PQ_LOGICAL_INTEGER && !e->logical_signed) ||
       (e->converted_type >= 11 && e->converted_type <= 14)))
    return ORD_UNSIGNED;
  if (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length == 2 &&
      e->logical_type == PQ_LOGICAL_FLOAT16)
    return ORD_HALF;
  return phys_order(e->type);
}

static double real_of(pq_type t, pq_bytes b) {
  if (t == PQ_FLOAT) {
    float f;
    memcpy(&f, b.ptr, 4);
    return f;
  }
  if (t == PQ_FIXED_LEN_BYTE_ARRAY) /* FLOAT16 */
    return pq_half_to_double((uint16_t)(b.ptr[0] | b.ptr[1] << 8));
  double d;
  memcpy(&d, b.ptr, 8);
  return d;
}

/* Whether a value has a place in the order (NaN has none). */
static int ordered(int ord, pq_type t, pq_bytes b) {
  if (ord == ORD_REAL || ord == ORD_HALF) return !isnan(real_of(t, b));
  return ord != ORD_NONE;
}

/* a <=> b in the order; both PLAIN values of type t. */
static int cmp_in(int ord, pq_type t, pq_bytes a, pq_bytes b) {
  switch (ord) {
    case ORD_SIGNED:
    case ORD_UNSIGNED: {
      if (t == PQ_BOOLEAN) return (a.ptr[0] > b.ptr[0]) - (a.ptr[0] < b.ptr[0]);
      uint64_t x, y;
      if (t == PQ_INT32) {
        x = pq_load32(a.ptr);
        y = pq_load32(b.ptr);
        if (ord == ORD_SIGNED) {
          x = (uint64_t)(int64_t)(int32_t)x;
          y = (uint64_t)(int64_t)(int32_t)y;
        }
      } else {
        x = pq_load64(a.ptr);
        y = pq_load64(b.ptr);
      }
      if (ord == ORD_SIGNED) {
        int64_t i = (int64_t)x, j = (int64_t)y;
        return (i > j) - (i < j);
      }
      return (x > y) - (x < y);
    }
    case ORD_REAL:
    case ORD_HALF: {
      double x = real_of(t, a), y = real_of(t, b);
      return (x > y) - (x < y);
    }
    case ORD_BE_SIGNED: {
      /* Big-endian two's complement of any lengths: sign-extend both. */
      size_t n = a.len > b.len ? a.len : b.len;
      int sa = a.len && (a.ptr[0] & 0x80), sb = b.len && (b.ptr[0] & 0x80);
      if (sa != sb) return sa ? -1 : 1;
      for (size_t i = 0; i < n; i++) {
        size_t ka = n - a.len, kb = n - b.len;
        uint8_t x = i < ka ? (sa ? 0xFF : 0) : a.ptr[i - ka];
        uint8_t y = i < kb ? (sb ? 0xFF : 0) : b.ptr[i - kb];
        if (x != y) return x < y ? -1 : 1;
      }
      return 0;
    }
    default: {
      size_t n = a.len < b.len ? a.len : b.len;
      int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
      if (c) return c < 0 ? -1 : 1;
      return (a.len > b.len) - (a.len < b.len);
    }
  }
}

/* ---- Statistics ----------------------------------------------------------- */

/* Checks statistics s against entries [from, from + count) of column c:
** the NULLs counted; min_value and max_value there when a value has a
** place in the order the spec gives the column (its logical type's:
** DECIMAL as signed integers, ...), bounding the values in that order,
** and, when exact (not a column index, which may truncate), each one of
** the values.  With LAX_LOGICAL_ORDER, no bounds are checked where that
** order is not the physical type's. */
static void check_stats(const pq_statistics *s, const wcol *c,
                        const pq_schema_element *e, size_t from, size_t count,
                        int exact) {
  int64_t nulls = 0;
  size_t nn = 0;
  int ord = logical_order(e);
  pq_type t = c->p.type;
  for (size_t i = from; i < from + count; i++) {
    if (!c->present[i]) nulls++;
    else if (ordered(ord, t, plain_of(c, i))) nn++;
  }
  CHECK(s->has_null_count && s->null_count == nulls);
  if (ord == ORD_NONE) return; /* INT96: no order */
  if ((FUZZ_WRITE_LAX & LAX_LOGICAL_ORDER) && ord != phys_order(t)) return;
  if (!nn) {
    CHECK(!s->has_min_value && !s->has_max_value);
    return;
  }
  CHECK(s->has_min_value && s->has_max_value);
  pq_bytes lo = s->min_value, hi = s->max_value;
  if (t != PQ_BYTE_ARRAY) CHECK(lo.len == c->vsize && hi.len == c->vsize);
  CHECK(ordered(ord, t, lo) && ordered(ord, t, hi));
#ifdef FUZZ_WRITE_DEBUG
  if (cmp_in(ord, t, lo, hi) > 0) {
    fprintf(stderr, "order %d of %s (logical %d, length %d): min", ord,
            pq_type_name(t), e->logical_type, (int)e->type_length);
    for (size_t i = 0; i < lo.len; i++) fprintf(stderr, " %02x", lo.ptr[i]);
    fprintf(stderr, ", max");
    for (size_t i = 0; i < hi.len; i++) fprintf(stderr, " %02x", hi.ptr[i]);
    fprintf(stderr, "\n");
  }
#endif
  CHECK(cmp_in(ord, t, lo, hi) <= 0);
  int lo_seen = 0, hi_seen = 0;
  for (size_t i = from; i < from + count; i++) {
    if (!c->present[i]) continue;
    pq_bytes v = plain_of(c, i);
    if (!ordered(ord, t, v)) continue;
    CHECK(cmp_in(ord, t, lo, v) <= 0);
    CHECK(cmp_in(ord, t, v, hi) <= 0);
    lo_seen |= cmp_in(ord, t, lo, v) == 0;
    hi_seen |= cmp_in(ord, t, v, hi) == 0;
  }
  if (exact) CHECK(lo_seen && hi_seen);
}

/* ---- Reading back ----------------------------------------------------------- */

static int allowed_encoding(int e, pq_type t);

typedef struct page_seen {
  int64_t offset;
  int32_t size;   /* header and body, as stored */
  int64_t first;  /* entry (row) of the chunk it starts at */
  int64_t count, nulls;
} page_seen;

/* Entries of one chunk, read as levels and values: exactly what was put. */
static void check_entries(const pq_file *f, uint32_t g, uint32_t k,
                          const wcol *c, size_t from, int64_t rows) {
  pq_column_reader *r;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  CHECK(pq_column_reader_open(&r, f, g, k, LIMIT, &err) == PQ_OK);
  static uint8_t vals[256 * MAX_WIDTH];
  uint16_t rep[256], def[256];
  int64_t at = 0;
  for (;;) {
    size_t n, nv;
    CHECK(pq_column_reader_read(r, 256, rep, def, vals, &n, &nv, &err) == PQ_OK);
    if (n == 0) break;
    CHECK(at + (int64_t)n <= rows);
    size_t v = 0;
    for (size_t i = 0; i < n; i++) {
      size_t e = from + (size_t)at + i;
      CHECK(rep[i] == 0);
      CHECK(def[i] == (c->o.nullable ? c->present[e] : 0));
      if (!c->present[e]) continue;
      CHECK(v < nv);
      const uint8_t *got = vals + v * c->vsize;
      const uint8_t *want = c->vals + e * c->vsize;
      if (c->p.type == PQ_BYTE_ARRAY) {
        pq_bytes a, b;
        memcpy(&a, got, sizeof a);
        memcpy(&b, want, sizeof b);
        CHECK(a.len == b.len && (!a.len || memcmp(a.ptr, b.ptr, a.len) == 0));
      } else {
        CHECK(memcmp(got, want, c->vsize) == 0);
      }
      v++;
    }
    CHECK(v == nv);
    at += (int64_t)n;
  }
  CHECK(at == rows);
  pq_column_reader_free(r);
}

/* The pages of one chunk: a dictionary page first when the encoding has
** one, data pages of the column's encodings and version, bounded by
** page_values, their statistics; *np of them in pages[]. */
static void check_pages(const pq_file *f, uint32_t g, uint32_t k,
                        const wcol *c, size_t from, int64_t rows,
                        page_seen **pages, size_t *np) {
  pq_page_reader *r;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  CHECK(pq_page_reader_open(&r, f, g, k, LIMIT, &err) == PQ_OK);
  int dict = c->p.encoding == PQ_PLAIN_DICTIONARY ||
             c->p.encoding == PQ_RLE_DICTIONARY;
  int dict_seen = 0;
  int64_t at = 0;
  size_t cap = 0;
  *np = 0;
  *pages = NULL;
  const pq_schema_element *e = pq_file_leaf(f, k)->elem;
  for (;;) {
    pq_page page;
    int got;
    CHECK(pq_page_reader_next(r, &page, &got, &err) == PQ_OK);
    if (!got) break;
    if (page.page_type == PQ_DICTIONARY_PAGE) {
#ifdef FUZZ_WRITE_DEBUG
      fprintf(stderr, "dictionary page: %s %s, auto %d, pages before %zu\n", pq_type_name(c->p.type),
              pq_encoding_name(c->p.encoding), c->o.auto_encoding, *np);
#endif
      CHECK((c->o.auto_encoding ? c->o.auto_encoding == 1 : dict) &&
            !dict_seen && *np == 0);
      dict_seen = 1;
      continue;
    }
    CHECK(page.page_type ==
          (c->o.page_version == 2 ? PQ_DATA_PAGE_V2 : PQ_DATA_PAGE));
    if (c->o.auto_encoding) { /* any the type takes, a dictionary's PLAIN */
      CHECK(page.encoding >= 0 && page.encoding < PQ_ENCODING_COUNT &&
            allowed_encoding(page.encoding, c->p.type));
      if (page.encoding == PQ_RLE_DICTIONARY) CHECK(dict_seen);
      CHECK(!(page.encoding == PQ_RLE_DICTIONARY && c->o.auto_encoding == 2));
    } else {
      CHECK(page.encoding == (int32_t)c->p.encoding ||
            (dict && c->o.fallback >= 0 && page.encoding == c->o.fallback));
    }
    int64_t n = page.num_values;
    CHECK(n > 0 && at + n <= rows);
    if (c->o.page_values > 0) CHECK(n <= c->o.page_values);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) nulls += !c->present[from + (size_t)(at + i)];
    if (page.page_type == PQ_DATA_PAGE_V2) {
      CHECK(page.num_nulls == nulls && page.num_rows == n);
    }
    if (c->o.statistics) {
      CHECK(page.has_statistics);
      check_stats(&page.statistics, c, e, from + (size_t)at, (size_t)n, 1);
    }
    if (*np == cap) {
      cap = cap ? 2 * cap : 8;
      page_seen *p = realloc(*pages, cap * sizeof *p);
      CHECK(p);
      *pages = p;
    }
    page_seen *ps = &(*pages)[(*np)++];
    ps->offset = page.offset;
    ps->size = (int32_t)page.header_size + page.compressed_size;
    ps->first = at;
    ps->count = n;
    ps->nulls = nulls;
    at += n;
  }
  CHECK(at == rows);
  if (!c->o.auto_encoding) CHECK(dict_seen == (dict && rows > 0));
  pq_page_reader_free(r);
}

/* The column index and offset index of a chunk, when it has them: a page
** each, the pages where they are, NULL pages and counts, bounds. */
static void check_page_index(const pq_file *f, uint32_t g, uint32_t k,
                             const wcol *c, size_t from,
                             const page_seen *pages, size_t np,
                             pq_column_index **ci_out,
                             pq_offset_index **oi_out) {
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  pq_column_index *ci = NULL;
  pq_offset_index *oi = NULL;
  CHECK(pq_column_index_read(f, g, k, &ci, &err) == PQ_OK);
  CHECK(pq_offset_index_read(f, g, k, &oi, &err) == PQ_OK);
  const pq_schema_element *e = pq_file_leaf(f, k)->elem;
  if (oi) {
    CHECK(oi->n_pages == np);
    for (size_t p = 0; p < np; p++) {
      CHECK(oi->pages[p].offset == pages[p].offset);
      CHECK(oi->pages[p].compressed_page_size == pages[p].size);
      CHECK(oi->pages[p].first_row_index == pages[p].first);
    }
  }
  if (ci) {
    CHECK(ci->n_pages == np);
    for (size_t p = 0; p < np; p++) {
      CHECK(ci->null_pages[p] == (pages[p].nulls == pages[p].count));
      if (ci->null_counts) CHECK(ci->null_counts[p] == pages[p].nulls);
      if (ci->null_pages[p]) continue;
      /* As statistics: min and max of the page's values. */
      pq_statistics s;
      memset(&s, 0, sizeof s);
      s.has_null_count = 1;
      s.null_count = pages[p].nulls;
      s.min_value = ci->min_values[p];
      s.max_value = ci->max_values[p];
      s.has_min_value = s.has_max_value = 1;
      int ord = logical_order(e);
      size_t nn = 0;
      for (int64_t i = 0; i < pages[p].count; i++) {
        size_t at = from + (size_t)(pages[p].first + i);
        nn += c->present[at] && ordered(ord, c->p.type, plain_of(c, at));
      }
      if (ord != ORD_NONE && nn)
        check_stats(&s, c, e, from + (size_t)pages[p].first,
                    (size_t)pages[p].count, 0);
    }
  }
  *ci_out = ci;
  *oi_out = oi;
}

/* A bloom filter, when the chunk has one, finds every value. */
static void check_bloom(const pq_file *f, uint32_t g, uint32_t k,
                        const wcol *c, size_t from, int64_t rows) {
  pq_bloom b;
  int present;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  CHECK(pq_bloom_read(f, g, k, &b, &present, &err) == PQ_OK);
  if (!present) return;
  for (int64_t i = 0; i < rows; i++) {
    size_t at = from + (size_t)i;
    if (!c->present[at]) continue;
    uint64_t h = pq_bloom_hash(c->p.type, c->p.type_length,
                               c->vals + at * c->vsize);
    CHECK(pq_bloom_check(&b, h));
  }
}

/* A cell kept: its bytes copied. */
typedef struct kept_cell {
  pq_cell c;
  size_t off; /* of its bytes in the arena */
} kept_cell;

/* Whether SQL may see this present value as NULL: a NaN. */
static int may_be_null(const wcol *c, size_t at) {
  if (c->p.type == PQ_FLOAT || c->p.type == PQ_DOUBLE)
    return isnan(real_of(c->p.type, plain_of(c, at)));
  return c->p.type == PQ_FIXED_LEN_BYTE_ARRAY && c->vsize == 2;
}

/* Whether the SQL bounds of this column rest on something lax leaves
** out. */
static int bounds_lax(const pq_file *f, uint32_t k, const wcol *c,
                      size_t from, int64_t rows) {
  const pq_schema_element *e = pq_file_leaf(f, k)->elem;
  if ((FUZZ_WRITE_LAX & LAX_LOGICAL_ORDER) &&
      logical_order(e) != phys_order(e->type))
    return 1;
  int scale, precision, unit;
  /* A decimal of more digits than its precision is not one: what SQL
  ** makes of it is not promised. */
  if (pq_leaf_meaning(e, &scale, &precision, &unit) == PQ_AS_DECIMAL) {
    if (precision < 1 || precision > 38 || scale < 0 || scale > precision)
      return 1;
    unsigned __int128 limit = 1;
    for (int i = 0; i < precision; i++) limit *= 10;
    for (int64_t i = 0; i < rows; i++) {
      size_t at = from + (size_t)i;
      if (!c->present[at]) continue;
      pq_bytes b = plain_of(c, at);
      unsigned __int128 u = 0;
      int neg;
      if (e->type == PQ_INT32 || e->type == PQ_INT64) {
        int64_t x = e->type == PQ_INT32 ? (int32_t)pq_load32(b.ptr)
                                        : (int64_t)pq_load64(b.ptr);
        neg = x < 0;
        u = neg ? 0 - (uint64_t)x : (uint64_t)x;
      } else {
        if (b.len > 16) return 1;
        neg = b.len && (b.ptr[0] & 0x80);
        for (size_t j = 0; j < b.len; j++) u = u << 8 | b.ptr[j];
        if (neg && b.len < 16) u |= ~(unsigned __int128)0 << (8 * b.len);
        if (neg) u = ~u + 1;
      }
      if (u >= limit) return 1;
    }
  }
  /* Nor is a TIME outside the day (parquet_write refuses one). */
  if (pq_leaf_meaning(e, &scale, &precision, &unit) == PQ_AS_TIME) {
    int64_t day = 86400LL * (unit == 1 ? 1000 : unit == 2 ? 1000000
                                                          : 1000000000);
    for (int64_t i = 0; i < rows; i++) {
      size_t at = from + (size_t)i;
      if (!c->present[at]) continue;
      int64_t x = c->p.type == PQ_INT32
                      ? (int32_t)pq_load32(c->vals + at * c->vsize)
                      : (int64_t)pq_load64(c->vals + at * c->vsize);
      if (x < 0 || x >= day) return 1;
    }
  }
  return 0;
}

/* The column as SQL cells: a cell per row, NULL where NULL was put, each
** inside the chunk's bounds and its page's; reading after skipping `skip`
** rows gives the cells from there. */
static void check_cells(const pq_file *f, uint32_t g, uint32_t k,
                        const wcol *c, size_t from, int64_t rows, int bas,
                        int64_t skip, const pq_column_index *ci,
                        const pq_offset_index *oi) {
  const pq_schema_node *field = pq_file_schema(f)->children[k];
  pq_field_reader *r;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  CHECK(pq_field_reader_open(&r, f, g, field, bas, LIMIT, &err) == PQ_OK);
  pq_bounds b;
  pq_chunk_bounds(f, g, k, bas, &b);
  int lax = bounds_lax(f, k, c, from, rows);
  kept_cell *kept = malloc(((size_t)rows + 1) * sizeof *kept);
  pq_buf arena;
  pq_buf_init(&arena);
  CHECK(kept);
  int64_t at = 0;
  pq_cell cells[256];
  for (;;) {
    size_t n;
    CHECK(pq_field_reader_read(r, cells, 256, &n, &err) == PQ_OK);
    if (n == 0) break;
    CHECK(at + (int64_t)n <= rows);
    for (size_t i = 0; i < n; i++, at++) {
      size_t e = from + (size_t)at;
      const pq_cell *v = &cells[i];
      if (!c->present[e]) {
        CHECK(v->kind == PQ_CELL_NULL);
        CHECK(pq_bounds_may_match(&b, PQ_OP_ISNULL, NULL));
      } else if (v->kind == PQ_CELL_NULL) {
        CHECK(may_be_null(c, e));
        CHECK(pq_bounds_may_match(&b, PQ_OP_ISNULL, NULL));
      } else {
        CHECK(pq_bounds_may_match(&b, PQ_OP_NOTNULL, NULL));
#ifdef FUZZ_WRITE_DEBUG
        if (!lax && !pq_bounds_may_match(&b, PQ_OP_EQ, v)) {
          const pq_schema_element *el = pq_file_leaf(f, k)->elem;
          fprintf(stderr,
                  "%s logical %d converted %d precision %d scale %d unit %d "
                  "length %d; cell kind %d i %lld r %g '%.*s'; bounds kind %d "
                  "i %lld r %g '%.*s' .. kind %d i %lld r %g '%.*s'\n",
                  pq_type_name(el->type), el->logical_type, el->converted_type,
                  el->logical_precision, el->logical_scale, el->logical_unit,
                  (int)el->type_length, v->kind, (long long)v->i, v->r,
                  v->kind >= PQ_CELL_TEXT ? (int)v->n : 0, (const char *)v->p,
                  b.min.kind, (long long)b.min.i, b.min.r,
                  b.min.kind >= PQ_CELL_TEXT ? (int)b.min.n : 0,
                  (const char *)b.min.p, b.max.kind, (long long)b.max.i,
                  b.max.r, b.max.kind >= PQ_CELL_TEXT ? (int)b.max.n : 0,
                  (const char *)b.max.p);
        }
#endif
        if (!lax) CHECK(pq_bounds_may_match(&b, PQ_OP_EQ, v));
      }
      kept[at].c = *v;
      kept[at].off = arena.len;
      if ((v->kind == PQ_CELL_TEXT || v->kind == PQ_CELL_BLOB) && v->n)
        pq_buf_append(&arena, v->p, v->n);
    }
  }
  CHECK(at == rows && !arena.oom);
  pq_field_reader_free(r);
  /* The pages' bounds, from the column index, over their rows. */
  if (ci && oi && !lax && ci->n_pages == oi->n_pages) {
    for (uint32_t p = 0; p < ci->n_pages; p++) {
      int64_t lo = oi->pages[p].first_row_index;
      int64_t hi = p + 1 < oi->n_pages ? oi->pages[p + 1].first_row_index
                                       : rows;
      CHECK(lo >= 0 && lo <= hi && hi <= rows);
      pq_page_bounds(f, k, ci, p, hi - lo, bas, &b);
      for (int64_t i = lo; i < hi; i++) {
        pq_cell v = kept[i].c;
        if (v.kind == PQ_CELL_NULL) {
          CHECK(pq_bounds_may_match(&b, PQ_OP_ISNULL, NULL));
          continue;
        }
        if ((v.kind == PQ_CELL_TEXT || v.kind == PQ_CELL_BLOB) && v.n)
          v.p = arena.data + kept[i].off;
        CHECK(pq_bounds_may_match(&b, PQ_OP_EQ, &v));
      }
    }
  }
  /* Skipping. */
  if (skip > rows) skip = rows;
  CHECK(pq_field_reader_open(&r, f, g, field, bas, LIMIT, &err) == PQ_OK);
  CHECK(pq_field_reader_skip(r, skip, &err) == PQ_OK);
  at = skip;
  for (;;) {
    size_t n;
    CHECK(pq_field_reader_read(r, cells, 256, &n, &err) == PQ_OK);
    if (n == 0) break;
    CHECK(at + (int64_t)n <= rows);
    for (size_t i = 0; i < n; i++, at++) {
      pq_cell v = kept[at].c;
      if ((v.kind == PQ_CELL_TEXT || v.kind == PQ_CELL_BLOB) && v.n)
        v.p = arena.data + kept[at].off;
      CHECK(cells[i].kind == v.kind);
      if (v.kind == PQ_CELL_REAL && isnan(v.r)) continue;
      CHECK(pq_cell_compare(&cells[i], &v) == 0);
    }
  }
  CHECK(at == rows);
  pq_field_reader_free(r);
  pq_buf_free(&arena);
  free(kept);
}

/* The logical type the footer must say of column c. */
static void check_schema(const wcol *c, const pq_schema_node *leaf) {
  const pq_schema_element *e = leaf->elem;
  CHECK(leaf->max_rep == 0 && leaf->max_def == (c->o.nullable != 0));
  CHECK(e->has_type && e->type == c->p.type);
  if (c->p.type == PQ_FIXED_LEN_BYTE_ARRAY) CHECK(e->type_length == c->p.type_length);
  CHECK(e->repetition == (c->o.nullable ? 1 : 0));
  size_t nl = 0;
  while (nl < sizeof c->o.name - 1 && c->o.name[nl]) nl++;
  CHECK(e->name.len == nl && memcmp(e->name.ptr, c->o.name, nl) == 0);
  int string = c->o.string > 0 ||
               (c->o.string < 0 && c->string_set > 0);
  string = string && c->p.type == PQ_BYTE_ARRAY;
  int lt = c->o.logical;
  if (lt == PQ_LOGICAL_NONE && string) lt = PQ_LOGICAL_STRING;
  if (lt > 0) CHECK(e->logical_type == lt);
  if (lt == PQ_LOGICAL_DECIMAL) {
    CHECK(e->logical_precision == c->o.precision &&
          e->logical_scale == c->o.scale);
  }
  if ((lt == PQ_LOGICAL_TIME || lt == PQ_LOGICAL_TIMESTAMP) &&
      c->o.unit >= PQ_UNIT_MILLIS && c->o.unit <= PQ_UNIT_NANOS) {
    CHECK(e->logical_unit == c->o.unit);
    CHECK(e->logical_utc == (c->o.utc != 0));
  }
}

static void check_file(wrun *w, const uint8_t *buf, size_t len, int how) {
#ifdef FUZZ_WRITE_DEBUG
  const char *dump = getenv("FUZZ_WRITE_DUMP"); /* the file, to look at */
  FILE *df = dump ? fopen(dump, "wb") : NULL;
  if (df) {
    fwrite(buf, 1, len, df);
    fclose(df);
  }
#endif
  pq_file *f;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  CHECK(pq_file_open(&f, buf, len, &err) == PQ_OK);
  const pq_file_meta *m = pq_file_metadata(f);
  CHECK(pq_file_leaf_count(f) == (uint32_t)w->ncols);
  CHECK(pq_file_schema(f)->n_children == (uint32_t)w->ncols);
  CHECK(m->n_row_groups == w->ngroups);
  int64_t total = 0;
  for (size_t g = 0; g < w->ngroups; g++) {
    CHECK(m->row_groups[g].num_rows == w->groups[g]);
    CHECK(m->row_groups[g].n_columns == (uint32_t)w->ncols);
    total += w->groups[g];
  }
  CHECK(m->num_rows == total);
  for (int k = 0; k < w->ncols; k++) {
    CHECK((int64_t)w->cols[k].n == total);
    check_schema(&w->cols[k], pq_file_leaf(f, (uint32_t)k));
  }
  if (w->has_footer) {
    CHECK(m->n_key_value == (uint32_t)w->nkv);
    for (int i = 0; i < w->nkv; i++) {
      const pq_keyvalue *kv = &m->key_value[i];
      size_t n = strlen(w->keyp[i]);
      CHECK(kv->key.len == n && memcmp(kv->key.ptr, w->keyp[i], n) == 0);
      CHECK(kv->has_value == (w->valp[i] != NULL));
      if (w->valp[i]) {
        n = strlen(w->valp[i]);
        CHECK(kv->value.len == n && memcmp(kv->value.ptr, w->valp[i], n) == 0);
      }
    }
    CHECK(m->has_created_by);
    if (w->byp) {
      size_t n = strlen(w->byp);
      CHECK(m->created_by.len == n && memcmp(m->created_by.ptr, w->byp, n) == 0);
    }
  } else {
    CHECK(m->n_key_value == 0 && m->has_created_by);
  }
  size_t from = 0;
  for (uint32_t g = 0; g < w->ngroups; g++) {
    int64_t rows = w->groups[g];
    for (uint32_t k = 0; k < (uint32_t)w->ncols; k++) {
      const wcol *c = &w->cols[k];
      const pq_column_chunk *cc = &m->row_groups[g].columns[k];
      CHECK(cc->has_meta_data);
      CHECK(cc->meta.type == c->p.type && cc->meta.codec == (int32_t)c->o.codec);
      CHECK(cc->meta.num_values == rows);
      if (c->o.statistics) {
        CHECK(cc->meta.has_statistics);
        check_stats(&cc->meta.statistics, c, pq_file_leaf(f, k)->elem, from,
                    (size_t)rows, 1);
      }
      check_entries(f, g, k, c, from, rows);
      page_seen *pages;
      size_t np;
      check_pages(f, g, k, c, from, rows, &pages, &np);
      pq_column_index *ci;
      pq_offset_index *oi;
      check_page_index(f, g, k, c, from, pages, np, &ci, &oi);
      check_bloom(f, g, k, c, from, rows);
      check_cells(f, g, k, c, from, rows, w->bas, (int64_t)(how >> 2) % (rows + 1),
                  ci, oi);
      pq_column_index_free(ci);
      pq_offset_index_free(oi);
      free(pages);
    }
    from += (size_t)rows;
  }
  if (how & 1) {
    pq_buf json;
    pq_buf_init(&json);
    (void)pq_file_to_json(f, (size_t)64 << 10, &json, &err);
    pq_buf_free(&json);
  }
  pq_file_free(f);
}

/* ---- Building the writer from the input ------------------------------------- */

/* The encodings a data page of type t may use. */
static int allowed_encoding(int e, pq_type t) {
  if (e < 0 || e >= PQ_ENCODING_COUNT || e == PQ_BIT_PACKED) return 0;
  if (!pq_encoding_info_get((pq_encoding)e)->implemented) return 0;
  if (e == PQ_RLE) return t == PQ_BOOLEAN;
  return pq_encoding_supports((pq_encoding)e, t);
}

static const int logicals[] = {
    PQ_LOGICAL_NONE,    PQ_LOGICAL_NONE,      PQ_LOGICAL_STRING,
    PQ_LOGICAL_ENUM,    PQ_LOGICAL_DECIMAL,   PQ_LOGICAL_DATE,
    PQ_LOGICAL_TIME,    PQ_LOGICAL_TIMESTAMP, PQ_LOGICAL_INTEGER,
    PQ_LOGICAL_JSON,    PQ_LOGICAL_UUID,      PQ_LOGICAL_FLOAT16,
    2 /* MAP */,        3 /* LIST */,         13 /* BSON */,
    16};

/* A logical type that fits t, as the SQL writer would choose. */
static void fitting_logical(wcol *c, uint8_t b) {
  pq_type t = c->p.type;
  c->o.logical = PQ_LOGICAL_NONE;
  switch (t) {
    case PQ_INT32:
      c->o.logical = b % 3 == 0 ? PQ_LOGICAL_DATE
                     : b % 3 == 1 ? PQ_LOGICAL_DECIMAL
                                  : PQ_LOGICAL_TIME;
      if (c->o.logical == PQ_LOGICAL_TIME) c->o.unit = PQ_UNIT_MILLIS;
      if (c->o.logical == PQ_LOGICAL_DECIMAL) {
        c->o.precision = 1 + b / 3 % 9;
        c->o.scale = b / 27 % (c->o.precision + 1);
      }
      break;
    case PQ_INT64:
      c->o.logical = b % 3 == 0 ? PQ_LOGICAL_TIMESTAMP
                     : b % 3 == 1 ? PQ_LOGICAL_DECIMAL
                                  : PQ_LOGICAL_TIME;
      c->o.unit = 1 + b / 3 % 3;
      if (c->o.logical == PQ_LOGICAL_TIME && c->o.unit == PQ_UNIT_MILLIS)
        c->o.unit = PQ_UNIT_MICROS;
      if (c->o.logical == PQ_LOGICAL_DECIMAL) {
        c->o.precision = 10 + b / 3 % 9;
        c->o.scale = b / 27 % (c->o.precision + 1);
      }
      break;
    case PQ_BYTE_ARRAY:
      c->o.logical = b % 3 == 0 ? PQ_LOGICAL_STRING
                     : b % 3 == 1 ? PQ_LOGICAL_JSON
                                  : PQ_LOGICAL_DECIMAL;
      c->o.precision = 1 + b / 3 % 38;
      c->o.scale = b / 27 % (c->o.precision + 1);
      break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
      if (c->p.type_length == 16 && b % 2) {
        c->o.logical = PQ_LOGICAL_UUID;
      } else if (c->p.type_length == 2 && b % 2 &&
                 !(FUZZ_WRITE_LAX & LAX_FLOAT16)) {
        c->o.logical = PQ_LOGICAL_FLOAT16;
      } else {
        pq_decimal_spec d = {t, c->p.type_length, 1, 0};
        int most = 1;
        for (d.precision = 1; d.precision <= 38; d.precision++) {
          pq_error err = {0, {0}};
          NOTE_ERR(&err);
          if (pq_decimal_check(&d, NULL, &err) == PQ_OK) most = d.precision;
        }
        c->o.logical = PQ_LOGICAL_DECIMAL;
        c->o.precision = 1 + b / 2 % most;
        c->o.scale = b / 16 % (c->o.precision + 1);
      }
      break;
    default:
      break;
  }
}

/* 14 bytes a column. */
static void read_column(wcol *c, fuzz_in *in) {
  memset(c, 0, sizeof *c);
  pq_params_init(&c->p);
  pq_write_options_init(&c->o);
  uint8_t b0 = fz_byte(in), b1 = fz_byte(in), b2 = fz_byte(in),
          b3 = fz_byte(in), b4 = fz_byte(in), b5 = fz_byte(in),
          b6 = fz_byte(in), b7 = fz_byte(in), b8 = fz_byte(in),
          b9 = fz_byte(in), b10 = fz_byte(in), b11 = fz_byte(in),
          b12 = fz_byte(in), b13 = fz_byte(in);
  c->p.type = (pq_type)(b0 % 8);
  c->p.type_set = 1;
  c->value_mode = b0 >> 3 & 3;
  c->o.nullable = !(b0 & 0x20);
  c->null_mode = b0 >> 6;
  if (b1 & 0x80) {
    c->p.encoding = (pq_encoding)((b1 & 0x7f) % 13);
  } else {
    int ok[PQ_ENCODING_COUNT], n = 0;
    for (int e = 0; e < PQ_ENCODING_COUNT; e++)
      if (allowed_encoding(e, c->p.type)) ok[n++] = e;
    c->p.encoding = (pq_encoding)(n ? ok[b1 % n] : PQ_PLAIN);
  }
  c->p.type_length = b2 == 0xFF ? 0 : 1 + b2 % MAX_WIDTH;
  if (b3 & 0x80) {
    fitting_logical(c, b4);
  } else {
    c->o.logical = logicals[b3 % 16];
    if (((FUZZ_WRITE_LAX & LAX_INTEGER) && c->o.logical == PQ_LOGICAL_INTEGER) ||
        ((FUZZ_WRITE_LAX & LAX_FLOAT16) && c->o.logical == PQ_LOGICAL_FLOAT16))
      c->o.logical = PQ_LOGICAL_NONE;
    c->o.precision = b4 % 41 - 1;
    c->o.scale = b5 % 41 - 1;
    if ((FUZZ_WRITE_LAX & LAX_DECIMAL_SPEC) &&
        c->o.logical == PQ_LOGICAL_DECIMAL) {
      c->o.precision = 1 + b4 % 38;
      c->o.scale = b5 % (c->o.precision + 1);
    }
  }
  if (!(b3 & 0x80)) c->o.unit = b6 & 3; /* 0: no unit */
  c->o.utc = b6 >> 2 & 1;
  c->o.string = (int)(b6 >> 3 & 3) - 1; /* -1, 0, 1, 2 */
  if (c->o.string > 1) c->o.string = -1;
  c->o.page_version = b6 & 0x20 ? 2 : 1;
  c->o.statistics = !(b6 & 0x40);
  c->o.crc = !(b6 & 0x80);
  if (b7 >= 0xF8) {
    c->o.codec = (pq_codec)(b7 % 10); /* unavailable ones, unknown ones */
    if (b7 == 0xFF) c->o.page_version = 3;
  } else {
    int ok[PQ_CODEC_COUNT], n = 0;
    for (int k = 0; k < PQ_CODEC_COUNT; k++)
      if (pq_codec_available((pq_codec)k)) ok[n++] = k;
    c->o.codec = (pq_codec)(n ? ok[b7 % n] : 0);
  }
  c->o.page_size = b8 == 0 ? 0 : 4 * (int64_t)b8;
  c->o.page_values = b9 % 4 == 0 ? 0 : 1 + b9 / 4;
  c->o.fallback = b10 & 0x80 ? -1 : b10 % 13;
  c->o.dictionary_page_size = b11;
  c->o.row_group_size = b12 % 32;
  /* Page indexes, bloom filters (of up to 4096 distinct values: the
  ** bitset grows to 128 MiB), the encoding chosen on the first page. */
  static const double fpps[] = {0, 0.5, 0.01, 1e-6, 0.999, -1, 2, NAN};
  c->o.page_index = b13 & 1;
  c->o.bloom = b13 >> 1 & 1;
  c->o.bloom_ndv = b13 >> 4 & 1 ? (int64_t)1 << (b12 % 13) : 0;
  c->o.bloom_fpp = fpps[b13 >> 5];
  c->o.auto_encoding = (b13 >> 2 & 3) % 3;
  c->string_set = -1;
}

/* Options as JSON: as the input gives them, or keys and values it picks. */
static size_t read_json(fuzz_in *in, char *out, size_t cap) {
  static const char *const keys[] = {
      "codec",      "page_version",  "page_size",  "page_values",
      "row_group_size", "nullable",  "statistics", "crc",
      "string",     "name",          "count",      "bit_width",
      "block_size", "miniblocks",    "length_prefix", "binary",
      "bit_order",  "part",          "page_index", "bloom_filter",
      "fallback",   "dictionary_page_size", "level", "vector_size",
      "exponent",   "factor",        "x"};
  static const char *const words[] = {
      "0", "1", "2", "3", "8", "16", "32", "64", "128", "256", "1024",
      "-1", "1048576", "1073741824", "1073741825", "2147483647",
      "9223372036854775807", "9223372036854775808", "true", "false", "null",
      "\"snappy\"", "\"gzip\"", "\"zstd\"", "\"lz4\"", "\"lz4_raw\"",
      "\"brotli\"", "\"lzo\"", "\"uncompressed\"", "\"msb\"", "\"lsb\"",
      "\"indices\"", "\"dictionary\"", "\"\"", "\"7\"", "1.5", "[]",
      "-7", "22", "23", "11", "9", "10", "18", "19", "4", "12", "4096",
      "32768", "65536"};
  uint8_t how = fz_byte(in);
  size_t n = 0;
  if (how % 4 == 0) { /* as given */
    size_t len = fz_byte(in) % 160;
    while (len-- && n + 1 < cap) out[n++] = (char)fz_byte(in);
    out[n] = 0;
    return n;
  }
  int count = 1 + how / 4 % 6;
  n += (size_t)snprintf(out + n, cap - n, "{");
  for (int i = 0; i < count && n + 64 < cap; i++) {
    uint8_t k = fz_byte(in), v = fz_byte(in);
    n += (size_t)snprintf(out + n, cap - n, "%s\"%s\":", i ? "," : "",
                          keys[k % (sizeof keys / sizeof keys[0])]);
    if (v < 0xF0) {
      n += (size_t)snprintf(out + n, cap - n, "%s",
                            words[v % (sizeof words / sizeof words[0])]);
    } else { /* a string from the input */
      size_t len = fz_byte(in) % 24;
      out[n++] = '"';
      while (len-- && n + 4 < cap) {
        char ch = (char)fz_byte(in);
        if (ch == '"' || ch == '\\') out[n++] = '\\';
        out[n++] = ch;
      }
      out[n++] = '"';
    }
  }
  if (how % 4 != 3 && n + 1 < cap) out[n++] = '}';
  out[n] = 0;
  return n;
}

/* What opening the column must do: 0 when it must fail (a type the
** encoding does not take, a codec not there, ...), 1 when it must
** succeed, 2 when options may make it fail. */
static int open_expect(const wcol *c, int json) {
  pq_type t = c->p.type;
  if (!allowed_encoding((int)c->p.encoding, t)) return 0;
  if (t == PQ_FIXED_LEN_BYTE_ARRAY && c->p.type_length <= 0) return 0;
  if (c->o.page_version != 1 && c->o.page_version != 2) return 0;
  if ((unsigned)c->o.codec >= PQ_CODEC_COUNT || !pq_codec_available(c->o.codec))
    return 0;
  if (c->o.string > 0 && t != PQ_BYTE_ARRAY) return 0;
  int dict = c->p.encoding == PQ_PLAIN_DICTIONARY ||
             c->p.encoding == PQ_RLE_DICTIONARY;
  if (dict && c->o.fallback >= 0) {
    int fb = c->o.fallback;
    if (fb == PQ_PLAIN_DICTIONARY || fb == PQ_RLE_DICTIONARY ||
        !allowed_encoding(fb, t))
      return 0;
    return 2; /* its encoder is tried with the options */
  }
  return json ? 2 : 1;
}

static int add_group(wrun *w, int64_t rows) {
  if (w->ngroups == w->capgroups) {
    size_t cap = w->capgroups ? 2 * w->capgroups : 16;
    int64_t *g = realloc(w->groups, cap * sizeof *g);
    if (!g) return 0;
    w->groups = g;
    w->capgroups = cap;
  }
  w->groups[w->ngroups++] = rows;
  return 1;
}

/* Puts n entries into column k, made from the input; 1 while the writer
** is usable. */
static int do_put(wrun *w, pq_writer *wr, int k, size_t n, fuzz_in *in,
                  int all_present) {
  wcol *c = &w->cols[k];
  static uint8_t present[MAX_BATCH];
  static uint8_t vals[MAX_BATCH * MAX_WIDTH + 64];
  if (n > MAX_BATCH) n = MAX_BATCH;
  if (w->total + n > MAX_ENTRIES) n = MAX_ENTRIES - w->total;
  if (!grow(c, n)) return 0;
  size_t nv = 0;
  int has_null = 0;
  for (size_t i = 0; i < n; i++) {
    int null = 0;
    if (!all_present && c->null_mode && (c->o.nullable || c->null_mode == 3)) {
      uint8_t b = fz_byte(in);
      null = c->null_mode == 1 ? b % 8 == 0 : c->null_mode == 2 ? b & 1
                                                                : b % 8 != 0;
    }
    present[i] = !null;
    has_null |= null;
    uint8_t *slot = c->vals + (c->n + i) * c->vsize;
    memset(slot, 0, c->vsize);
    if (!null) {
      gen_value(c, in, w->data, slot);
      memcpy(vals + nv * c->vsize, slot, c->vsize);
      nv++;
    }
  }
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  int rc = pq_writer_put_column(wr, k, vals, all_present ? NULL : present, n,
                                &err);
  if (has_null && !c->o.nullable) {
    CHECK(rc == PQ_RANGE || (c->enc_rc && rc == c->enc_rc));
    return 0;
  }
  if (n && c->enc_rc) {
    CHECK(rc == c->enc_rc);
    return 0;
  }
  CHECK(rc == PQ_OK);
  if (n) memcpy(c->present + c->n, present, n);
  c->n += n;
  w->total += n;
  c->pending += (int64_t)n;
  if (w->by_rows && c->o.row_group_size > 0) {
    while (c->pending >= c->o.row_group_size) {
      CHECK(add_group(w, c->o.row_group_size));
      c->pending -= c->o.row_group_size;
    }
  }
  return 1;
}

/* Ends the row group; 1 while the writer is usable. */
static int do_end(wrun *w, pq_writer *wr) {
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  int rc = pq_writer_end_row_group(wr, &err);
  int64_t rows = w->cols[0].pending;
  for (int k = 1; k < w->ncols; k++) {
    if (w->cols[k].pending != rows) {
      CHECK(rc == PQ_MISUSE);
      return 0;
    }
  }
  CHECK(rc == PQ_OK);
  if (rows > 0) CHECK(add_group(w, rows));
  for (int k = 0; k < w->ncols; k++) w->cols[k].pending = 0;
  return 1;
}

static void copy_text(char *out, size_t cap, fuzz_in *in) {
  size_t len = fz_byte(in) % cap;
  for (size_t i = 0; i < len; i++) out[i] = (char)fz_byte(in);
  out[len] = 0;
}

static void do_footer(wrun *w, pq_writer *wr, fuzz_in *in) {
  uint8_t b = fz_byte(in);
  w->nkv = b % 5;
  for (int i = 0; i < w->nkv; i++) {
    copy_text(w->keys[i], sizeof w->keys[i], in);
    copy_text(w->vals[i], sizeof w->vals[i], in);
    w->keyp[i] = w->keys[i];
    w->valp[i] = fz_byte(in) & 1 ? w->vals[i] : NULL;
  }
  copy_text(w->by, sizeof w->by, in);
  w->byp = b & 0x80 ? w->by : NULL;
  pq_footer_extra x = {w->keyp, w->valp, w->nkv, w->byp};
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  CHECK(pq_writer_set_footer(wr, &x, &err) == PQ_OK);
  w->has_footer = 1;
}

static void fuzz_file(const uint8_t *data, size_t size) {
  fuzz_in in = {data, size};
  wrun *w = calloc(1, sizeof *w);
  if (!w) return;
  w->data = data;
  uint8_t mode = fz_byte(&in);
  w->ncols = 1 + fz_byte(&in) % MAX_COLS;
  uint8_t jsel = fz_byte(&in);
  w->bas = mode >> 1 & 1;
  int how = (int)fz_byte(&in);
  for (int k = 0; k < w->ncols; k++) read_column(&w->cols[k], &in);
  if (mode & 4) {
    char json[512];
    size_t n = read_json(&in, json, sizeof json);
    w->json_used = 1;
    for (int k = 0; k < w->ncols; k++) {
      if (!(jsel & 0x80) && k != jsel % w->ncols) continue;
      pq_error err = {0, {0}};
      NOTE_ERR(&err);
      int rc = pq_write_options_parse(&w->cols[k].o, &w->cols[k].p, json, n,
                                      &err);
      CHECK(rc == PQ_OK || rc == PQ_MISUSE);
    }
  }
  pq_params ps[MAX_COLS];
  pq_write_options os[MAX_COLS];
  int expect = 1;
  for (int k = 0; k < w->ncols; k++) {
    wcol *c = &w->cols[k];
    /* BROTLI sets up megabytes for each page: few pages, or the target
    ** spends its time there. */
    if (c->o.codec == PQ_BROTLI) {
      if (c->o.page_size < 4096) c->o.page_size = 4096;
      if (c->o.page_values > 0 && c->o.page_values < 256) c->o.page_values = 256;
    }
    ps[k] = c->p;
    os[k] = c->o;
#ifdef FUZZ_WRITE_DEBUG
    fprintf(stderr,
            "column %d: %s(%d) %s, fallback %d, dictionary_page_size %lld, v%d, "
            "codec %d, nullable %d, auto %d, page_size %lld, page_values %lld, "
            "row_group_size %lld\n",
            k, pq_type_name(c->p.type), (int)c->p.type_length,
            pq_encoding_name(c->p.encoding), c->o.fallback,
            (long long)c->o.dictionary_page_size, c->o.page_version, c->o.codec,
            c->o.nullable, c->o.auto_encoding, (long long)c->o.page_size,
            (long long)c->o.page_values, (long long)c->o.row_group_size);
#endif
    int e = open_expect(c, w->json_used);
    if (e == 0) expect = 0;
    else if (e == 2 && expect == 1) expect = 2;
  }
  pq_writer *wr;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  w->by_rows = w->ncols == 1 && (mode & 8);
  int rc = w->by_rows ? pq_writer_open(&wr, ps, os, &err)
                      : pq_writer_open_columns(&wr, w->ncols, ps, os, &err);
  if (expect == 0) CHECK(rc != PQ_OK);
  if (expect == 1) CHECK(rc == PQ_OK);
  if (rc != PQ_OK) {
    CHECK(rc == PQ_MISUSE || rc == PQ_UNSUPPORTED);
    free(w);
    return;
  }
  /* The writer keeps what its columns are: their encoders open as it
  ** opens them. */
  for (int k = 0; k < w->ncols; k++) {
    wcol *c = &w->cols[k];
    pq_params p = c->p;
    p.count = PQ_NO_COUNT;
    p.dictionary_part = 0;
    if (p.encoding == PQ_RLE) p.type = PQ_BOOLEAN;
    pq_encoder *e;
    c->enc_rc = pq_encoder_open(&e, &p, &err);
    if (c->enc_rc == PQ_OK) pq_encoder_free(e);
    if (c->o.auto_encoding) c->enc_rc = PQ_OK; /* another is chosen */
    c->vsize = pq_value_size(c->p.type, c->p.type_length);
    CHECK(c->vsize > 0 && c->vsize <= MAX_WIDTH);
    if (!w->by_rows) c->o.row_group_size = 0;
  }
  pq_buf out;
  pq_buf_init(&out);
  int usable = 1, ops = 0;
  while (usable && in.n && ops++ < MAX_OPS && w->total < MAX_ENTRIES) {
    uint8_t op = fz_byte(&in);
    switch (op % 16) {
      case 0: case 1: case 2: case 3: case 4: case 5: {
        int k = fz_byte(&in) % w->ncols;
        uint8_t b = fz_byte(&in);
        size_t n = (b & 0xC0) == 0xC0 ? (size_t)(b % 64) * 8 : b % 64;
        usable = do_put(w, wr, k, n, &in, 0);
        break;
      }
      case 6: case 7: case 8: {
        size_t rows = fz_byte(&in) % 32;
        for (int k = 0; usable && k < w->ncols; k++) {
          size_t left = rows;
          while (usable && left) {
            size_t s = 1 + fz_byte(&in) % left;
            usable = do_put(w, wr, k, s, &in, (op & 0x80) != 0);
            left -= s;
          }
        }
        break;
      }
      case 9: case 10:
        usable = do_end(w, wr);
        break;
      case 11:
        pq_writer_drain(wr, &out);
        break;
      case 12:
        do_footer(w, wr, &in);
        break;
      case 13: {
        int k = fz_byte(&in) % w->ncols;
        usable = do_put(w, wr, k, fz_byte(&in) % 64, &in, 1);
        break;
      }
      case 14: {
        uint8_t b = fz_byte(&in);
        if (b & 1) { /* no such column: refused, the writer goes on */
          int k = b & 2 ? -1 : w->ncols + (b >> 2 & 7);
          uint8_t one = 1;
          CHECK(pq_writer_put_column(wr, k, &one, NULL, 1, &err) == PQ_MISUSE);
        } else {
          int k = (b >> 1) % w->ncols;
          int s = b >> 7;
          pq_writer_set_column_string(wr, k, s);
          w->cols[k].string_set = s;
        }
        break;
      }
      default:
        in.n = 0;
    }
  }
  if (!usable) {
    CHECK(pq_writer_finish(wr, &out, &err) == PQ_MISUSE);
  } else {
    rc = pq_writer_finish(wr, &out, &err);
    int even = 1;
    for (int k = 1; k < w->ncols; k++)
      even &= w->cols[k].pending == w->cols[0].pending;
    if (!even) {
      CHECK(rc == PQ_MISUSE);
    } else {
      CHECK(rc == PQ_OK);
      if (w->cols[0].pending > 0) CHECK(add_group(w, w->cols[0].pending));
      check_file(w, out.data, out.len, how);
    }
  }
  pq_writer_free(wr);
  pq_buf_free(&out);
  for (int k = 0; k < w->ncols; k++) {
    free(w->cols[k].present);
    free(w->cols[k].vals);
  }
  free(w->groups);
  free(w);
}

/* ---- Conversions ----------------------------------------------------------- */

static const int64_t per_unit[] = {0, 1000, 1000000, 1000000000};

/* The stored bytes of a decimal as big-endian two's complement, for
** pq_text_decimal; 0 when they are longer than 16 bytes of value. */
static size_t decimal_be(const pq_decimal_spec *d, const uint8_t *v, size_t len,
                         uint8_t be[16]) {
  if (d->type == PQ_INT32 || d->type == PQ_INT64) {
    uint64_t x = d->type == PQ_INT32
                     ? (uint64_t)(int64_t)(int32_t)pq_load32(v)
                     : pq_load64(v);
    for (int i = 0; i < 8; i++) be[i] = (uint8_t)(x >> (56 - 8 * i));
    return 8;
  }
  size_t skip = len > 16 ? len - 16 : 0;
  for (size_t i = 0; i < skip; i++) /* sign bytes only */
    CHECK(v[i] == ((v[skip] & 0x80) ? 0xFF : 0));
  memcpy(be, v + skip, len - skip);
  return len - skip;
}

/* A decimal's stored bytes written by the reader read back the same. */
static void decimal_again(const pq_decimal_spec *d, const uint8_t *v,
                          size_t len) {
  uint8_t be[16];
  char text[128];
  size_t n = decimal_be(d, v, len, be);
  size_t tn = pq_text_decimal(text, sizeof text, be, n, d->scale);
  CHECK(tn > 0 && tn < sizeof text - 1);
  uint8_t again[64];
  size_t alen;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  CHECK(pq_decimal_from_text(d, text, tn, again, &alen, NULL, &err) == PQ_OK);
  CHECK(alen == len && memcmp(again, v, len) == 0);
}

static void fuzz_decimal(const pq_decimal_spec *d, const char *s, size_t n,
                         int64_t iv, double dv) {
  uint8_t a[64], b[64];
  size_t alen, blen;
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  int ok = pq_decimal_check(d, NULL, &err) == PQ_OK;
  int rc = pq_decimal_from_text(d, s, n, a, &alen, "c", &err);
  CHECK(ok ? rc == PQ_OK || rc == PQ_MISUSE || rc == PQ_RANGE
           : rc == PQ_MISUSE);
  if (rc == PQ_OK) {
    CHECK(alen == pq_decimal_size(d) || d->type == PQ_BYTE_ARRAY);
    decimal_again(d, a, alen);
  }
  /* An integer, and the same digits as text. */
  rc = pq_decimal_from_int64(d, iv, a, &alen, NULL, &err);
  CHECK(ok ? rc == PQ_OK || rc == PQ_RANGE : rc == PQ_MISUSE);
  char digits[32];
  int dn = snprintf(digits, sizeof digits, "%lld", (long long)iv);
  int rc2 = pq_decimal_from_text(d, digits, (size_t)dn, b, &blen, NULL, &err);
  CHECK(rc == rc2);
  if (rc == PQ_OK) {
    CHECK(alen == blen && memcmp(a, b, alen) == 0);
    decimal_again(d, a, alen);
  }
  /* A real: an integer's value, when it is one. */
  rc = pq_decimal_from_double(d, dv, a, &alen, NULL, &err);
  CHECK(ok ? rc == PQ_OK || rc == PQ_RANGE : rc == PQ_MISUSE);
  if (rc == PQ_OK) decimal_again(d, a, alen);
  if (ok && fabs(dv) < 9e15 && dv == trunc(dv)) {
    rc2 = pq_decimal_from_int64(d, (int64_t)dv, b, &blen, NULL, &err);
    CHECK(rc == rc2);
    if (rc == PQ_OK) CHECK(alen == blen && memcmp(a, b, alen) == 0);
  }
}

static void fuzz_times(const char *s, size_t n) {
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  char text[128];
  size_t tn;
  int32_t days;
  int date_rc = pq_date_from_text(s, n, &days, NULL, &err);
  CHECK(date_rc == PQ_OK || date_rc == PQ_MISUSE || date_rc == PQ_RANGE);
  if (date_rc == PQ_OK) {
    int32_t again;
    tn = pq_text_date(text, sizeof text, days);
    CHECK(pq_date_from_text(text, tn, &again, NULL, &err) == PQ_OK);
    CHECK(again == days);
  }
  int64_t ts[4] = {0, 0, 0, 0}, tm[4] = {0, 0, 0, 0};
  int ts_rc[4] = {0, 0, 0, 0}, tm_rc[4] = {0, 0, 0, 0};
  for (int unit = 0; unit <= 4; unit++) {
    int64_t v;
    int rc = pq_timestamp_from_text(s, n, unit, &v, "t", &err);
    if (unit < 1 || unit > 3) {
      CHECK(rc == PQ_MISUSE);
    } else {
      CHECK(rc == PQ_OK || rc == PQ_MISUSE || rc == PQ_RANGE);
      ts_rc[unit] = rc;
      ts[unit] = v;
      if (rc == PQ_OK) {
        int64_t again;
        tn = pq_text_timestamp(text, sizeof text, v, unit);
        CHECK(pq_timestamp_from_text(text, tn, unit, &again, NULL, &err) ==
              PQ_OK);
        CHECK(again == v);
      }
      /* A date alone is its midnight. */
      if (date_rc == PQ_OK && rc == PQ_OK)
        CHECK(v == (int64_t)days * 86400 * per_unit[unit]);
    }
    rc = pq_time_from_text(s, n, unit, &v, NULL, &err);
    if (unit < 1 || unit > 3) {
      CHECK(rc == PQ_MISUSE);
      continue;
    }
    CHECK(rc == PQ_OK || rc == PQ_MISUSE || rc == PQ_RANGE);
    tm_rc[unit] = rc;
    tm[unit] = v;
    if (rc == PQ_OK) {
      CHECK(v >= 0 && v < 86400 * per_unit[unit]);
      int64_t again;
      tn = pq_text_time(text, sizeof text, v, per_unit[unit], 3 * unit);
      CHECK(pq_time_from_text(text, tn, unit, &again, NULL, &err) == PQ_OK);
      CHECK(again == v);
    }
  }
  /* Finer units hold what coarser ones read, the same instant. */
  for (int u = 1; u < 3; u++) {
    for (int f = u + 1; f <= 3; f++) {
      int64_t k = per_unit[f] / per_unit[u];
      if (ts_rc[u] == PQ_OK && ts_rc[f] == PQ_OK) CHECK(ts[f] == ts[u] * k);
      if (ts_rc[u] == PQ_OK && ts_rc[f] == PQ_OK) CHECK(ts[f] / k == ts[u]);
      if (tm_rc[u] == PQ_OK) CHECK(tm_rc[f] == PQ_OK && tm[f] == tm[u] * k);
      if (ts_rc[f] == PQ_MISUSE) CHECK(ts_rc[u] == PQ_MISUSE);
    }
  }
  uint8_t i96[12];
  int rc = pq_int96_from_text(s, n, i96, "i", &err);
  CHECK(rc == PQ_OK || rc == PQ_MISUSE || rc == PQ_RANGE);
  CHECK((rc == PQ_MISUSE) == (ts_rc[3] == PQ_MISUSE));
  if (rc == PQ_OK) {
    uint8_t again[12];
    tn = pq_text_int96(text, sizeof text, i96);
    CHECK(pq_int96_from_text(text, tn, again, NULL, &err) == PQ_OK);
    CHECK(memcmp(again, i96, 12) == 0);
    int64_t nanos = (int64_t)pq_load64(i96);
    int64_t jd = (int32_t)pq_load32(i96 + 8);
    CHECK(nanos >= 0 && nanos < 86400 * per_unit[3]);
    if (ts_rc[3] == PQ_OK) {
      __int128 v = (__int128)(jd - 2440588) * 86400 * per_unit[3] + nanos;
      CHECK(v == ts[3]);
    }
  }
  if (ts_rc[3] == PQ_OK) CHECK(rc == PQ_OK);
}

static void fuzz_uuid(const char *s, size_t n) {
  uint8_t u[16], again[16];
  char text[64];
  pq_error err = {0, {0}};
  NOTE_ERR(&err);
  int rc = pq_uuid_from_text(s, n, u, NULL, &err);
  CHECK(rc == PQ_OK || rc == PQ_MISUSE);
  if (rc != PQ_OK) return;
  size_t tn = pq_text_uuid(text, sizeof text, u);
  CHECK(tn == 36);
  CHECK(pq_uuid_from_text(text, tn, again, NULL, &err) == PQ_OK);
  CHECK(memcmp(u, again, 16) == 0);
}

/* Pieces: a decimal spec (4 bytes), an integer and a real (8 bytes each),
** a text (its length, then its bytes). */
static void fuzz_values(const uint8_t *data, size_t size) {
  fuzz_in in = {data + 1, size - 1};
  static const pq_type types[] = {PQ_INT32, PQ_INT64, PQ_FIXED_LEN_BYTE_ARRAY,
                                  PQ_BYTE_ARRAY, PQ_INT96, PQ_BOOLEAN};
  for (int piece = 0; in.n && piece < 64; piece++) {
    pq_decimal_spec d;
    uint8_t t = fz_byte(&in);
    d.type = types[t % 6];
    d.type_length = (int32_t)(fz_byte(&in) % 36) - 1;
    d.precision = (int)(fz_byte(&in) % 42) - 1;
    d.scale = (int)(fz_byte(&in) % 42) - 1;
    if (t & 0x80 && d.scale > d.precision) d.scale = d.precision;
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[i] = fz_byte(&in);
    int64_t iv = (int64_t)pq_load64(b);
    double dv;
    for (int i = 0; i < 8; i++) b[i] = fz_byte(&in);
    memcpy(&dv, b, 8);
    if (t & 0x40) dv = (double)(int32_t)pq_load32(b) / 64;
    size_t len = fz_byte(&in) % 64;
    if (len > in.n) len = in.n;
    char *s = malloc(len + 1);
    if (!s) return;
    memcpy(s, in.p, len);
    in.p += len;
    in.n -= len;
    fuzz_decimal(&d, s, len, iv, dv);
    fuzz_times(s, len);
    fuzz_uuid(s, len);
    free(s);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size && (data[0] & 1))
    fuzz_values(data, size);
  else
    fuzz_file(data, size);
  return 0;
}
