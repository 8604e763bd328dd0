/*
** table.c -- the table writer (parquet.h, "Writing a table"): rows of
** dynamic values typed, batched and handed to the core writer (writer.c),
** row groups closed by rows or bytes, and the output finished.
**
** A column's type comes from the options, else from a type its declared
** type names (a parquet table's column: `TEXT 'TIMESTAMP(us, utc)'`),
** else from the declared type itself (SQLite's affinity rules), else from
** its first non-NULL value among the first PQ_TABLE_LOOK rows, which are
** kept until the columns are typed.  A column typed by its values takes
** values of that class only; a type given converts any value it takes
** without loss (table_values.c).  The worker thread is worker.c's, the
** file and the folder output.c's, the options table_options.c's.
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "writer.h"

/* ---- Messages -------------------------------------------------------------- */

int pq_tbl_fail(pq_table_writer *tw, int code, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  pq_buf *m = pq_tbl_msg_buf(tw);
  m->len = 0;
  m->oom = 0;
  if (n < 0) n = 0;
  if ((size_t)n < sizeof small) {
    pq_buf_append(m, small, (size_t)n + 1);
  } else if (pq_buf_reserve(m, (size_t)n + 1) == 0) {
    va_start(ap, fmt);
    vsnprintf((char *)m->data, (size_t)n + 1, fmt, ap);
    va_end(ap);
    m->len = (size_t)n + 1;
  }
  if (m->oom || m->len == 0) return PQ_NOMEM;
  return code;
}

size_t pq_tbl_limit(const pq_table_writer *tw) {
  return tw->host.limit ? tw->host.limit : SIZE_MAX;
}

const char *pq_tbl_hint(const pq_table_writer *tw) {
  return tw->host.limit_hint ? tw->host.limit_hint : "";
}

int pq_tbl_core(pq_table_writer *tw, int rc, const pq_error *err) {
  if (rc == PQ_NOMEM) return rc;
  return pq_tbl_fail(tw, rc, "%s%s", err->msg,
                    err->code == PQ_TOOBIG ? pq_tbl_hint(tw) : "");
}

double pq_tbl_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- Types ------------------------------------------------------------------ */

/* a[0..n) and b equal, ignoring ASCII case. */
static int tt_ieq(const char *a, const char *b, size_t n) {
  if (strlen(b) != n) return 0;
  for (size_t i = 0; i < n; i++) {
    char x = a[i], y = b[i];
    if (x >= 'a' && x <= 'z') x = (char)(x - 32);
    if (y >= 'a' && y <= 'z') y = (char)(y - 32);
    if (x != y) return 0;
  }
  return 1;
}

/* The type that a declared type's quoted part names, as the parquet table
** declares its columns (`TEXT 'TIMESTAMP(us, utc)'`, `JSON TEXT
** 'LIST<INT32>'`): 1 with it in buf; 0 when there is none, or it names no
** type of the options; -1 out of memory. */
static int tt_decl_type(const char *d, char *buf, size_t cap) {
  const char *q = d ? strchr(d, '\'') : NULL;
  size_t n = 0;
  if (!q) return 0;
  for (q++; *q; q++) {
    if (*q == '\'' && q[1] != '\'') break;
    if (*q == '\'') q++; /* '' is one quote */
    if (n + 1 >= cap) return 0;
    buf[n++] = *q;
  }
  if (*q != '\'' || q[1 + strspn(q + 1, " ")] != 0) return 0;
  buf[n] = 0;
  pq_nested *tree = NULL;
  pq_buf why;
  pq_buf_init(&why);
  int nested = pq_tbl_nested_parse(buf, &tree, &why);
  pq_nested_free(tree);
  pq_buf_free(&why);
  if (nested == -2) return -1;
  if (nested < 0) return 0;
  pq_write_type t;
  return nested || pq_write_type_parse(buf, &t) == 0;
}

/* The type a declared type names, as doc/parquet_write.md lists them; 0
** when it names none (no declared type, NUMERIC, ...). */
static int tt_decl_kind(const char *d, pq_write_type *t) {
  memset(t, 0, sizeof *t);
  if (!d) return 0;
  size_t n = strlen(d);
  if (tt_ieq(d, "BOOLEAN", n) || tt_ieq(d, "BOOL", n)) return t->kind = PQ_WT_BOOLEAN;
  if (tt_ieq(d, "DATE", n)) return t->kind = PQ_WT_DATE;
  if (tt_ieq(d, "DATETIME", n) || tt_ieq(d, "TIMESTAMP", n)) {
    t->unit = PQ_UNIT_MICROS;
    return t->kind = PQ_WT_TIMESTAMP;
  }
  if (tt_ieq(d, "TIMESTAMPTZ", n) || tt_ieq(d, "TIMESTAMP WITH TIME ZONE", n)) {
    t->unit = PQ_UNIT_MICROS;
    t->utc = 1;
    return t->kind = PQ_WT_TIMESTAMP;
  }
  if (tt_ieq(d, "UUID", n)) return t->kind = PQ_WT_UUID;
  if (tt_ieq(d, "JSON", n)) return t->kind = PQ_WT_JSON;
  /* DECIMAL(p, s) and NUMERIC(p, s), as SQL declares them */
  if (n >= 7 && (tt_ieq(d, "NUMERIC", 7) || tt_ieq(d, "DECIMAL", 7))) {
    char dec[64];
    if (n < sizeof dec) {
      snprintf(dec, sizeof dec, "DECIMAL%s", d + 7);
      if (strchr(dec, '(') && pq_write_type_parse(dec, t) == 0) return t->kind;
    }
    memset(t, 0, sizeof *t);
  }
  /* SQLite's affinity rules (datatype3.html, 3.1), in their order. */
  char up[64];
  size_t k = n < sizeof up - 1 ? n : sizeof up - 1;
  for (size_t i = 0; i < k; i++)
    up[i] = (char)(d[i] >= 'a' && d[i] <= 'z' ? d[i] - 32 : d[i]);
  up[k] = 0;
  if (strstr(up, "INT")) return t->kind = PQ_WT_INT64;
  if (strstr(up, "CHAR") || strstr(up, "CLOB") || strstr(up, "TEXT"))
    return t->kind = PQ_WT_STRING;
  if (strstr(up, "BLOB")) return t->kind = PQ_WT_BINARY;
  if (strstr(up, "REAL") || strstr(up, "FLOA") || strstr(up, "DOUB"))
    return t->kind = PQ_WT_DOUBLE;
  return 0;
}

/* The type a value's kind gives. */
static int tt_value_kind(int k) {
  switch (k) {
    case PQ_DV_INT: return PQ_WT_INT64;
    case PQ_DV_DOUBLE: return PQ_WT_DOUBLE;
    case PQ_DV_TEXT: return PQ_WT_STRING;
    case PQ_DV_BLOB: return PQ_WT_BINARY;
    default: return PQ_WT_UNKNOWN;
  }
}

/* ---- Nested columns (nested.c) ------------------------------------------------ */

/* Builds the file's schema from every column (flat ones as leaves) and
** opens the writer; assigns each flat column its writer column. */
static int tt_nested_open(pq_table_writer *tw) {
  int n = tw->ncols;
  pq_nested **nested = pq_malloc((size_t)n * sizeof *nested);
  const char **names = pq_malloc((size_t)n * sizeof *names);
  pq_params *ps = pq_malloc((size_t)n * sizeof *ps);
  pq_write_options *os = pq_malloc((size_t)n * sizeof *os);
  int *wcol = pq_malloc((size_t)n * sizeof *wcol);
  int rc = PQ_OK;
  if (!nested || !names || !ps || !os || !wcol) rc = PQ_NOMEM;
  if (!rc) {
    for (int i = 0; i < n; i++) {
      tw_col *c = &tw->cols[i];
      nested[i] = c->tree;
      names[i] = c->name;
      ps[i] = c->p;
      os[i] = c->o;
    }
    pq_error err = {0};
    int bad;
    rc = pq_nested_open_writer(&tw->w, n, nested, names, ps, os, wcol, &bad,
                               &err);
    if (rc && rc != PQ_NOMEM && bad >= 0)
      rc = pq_tbl_fail(tw, rc, "column '%s': %s", tw->cols[bad].name, err.msg);
    else if (rc)
      rc = pq_tbl_core(tw, rc, &err);
    for (int i = 0; i < n && !rc; i++)
      if (!tw->cols[i].tree) tw->cols[i].wcol = wcol[i];
  }
  pq_free(nested);
  pq_free(names);
  pq_free(ps);
  pq_free(os);
  pq_free(wcol);
  return rc;
}

/* ---- Batches and row groups -------------------------------------------------- */

int pq_tbl_put_fill(pq_table_writer *tw, tw_col *c, tw_fill *f) {
  if (f->nrows == 0) return PQ_OK;
  pq_error err = {0};
  /* Offsets into the heap become pointers now that it stays put. */
  if (c->p.type == PQ_BYTE_ARRAY) {
    pq_bytes *b = (pq_bytes *)(void *)f->values;
    const uint8_t *heap = f->heap.data ? f->heap.data : (const uint8_t *)"";
    for (size_t k = 0; k < f->nvalues; k++)
      b[k].ptr = heap + (size_t)(uintptr_t)b[k].ptr;
  }
  const uint8_t *vals = f->values;
  pq_buf run;
  pq_buf_init(&run);
  if (c->p.type == PQ_FIXED_LEN_BYTE_ARRAY) {
    /* gather the fixed values, in order, into their own run */
    size_t len = (size_t)c->p.type_length;
    for (size_t k = 0; k < f->nvalues; k++) {
      size_t off;
      memcpy(&off, f->values + k * c->vsize, sizeof off);
      pq_buf_append(&run, f->heap.data + off, len);
    }
    if (run.oom) {
      pq_buf_free(&run);
      return PQ_NOMEM;
    }
    vals = run.data;
  }
  int rc = tw->cap ? tw->cap->batch(tw->cap->ctx, (int)(c - tw->cols), vals,
                                    f->present, f->nrows, &err)
                   : pq_writer_put_column(tw->w, c->wcol, vals, f->present,
                                          f->nrows, &err);
  pq_buf_free(&run);
  if (rc) return pq_tbl_core(tw, rc, &err);
  f->nrows = f->nvalues = 0;
  f->heap.len = 0;
  return PQ_OK;
}

int pq_tbl_batch(pq_table_writer *tw) {
  for (int i = 0; i < tw->ncols; i++) {
    tw_col *c = &tw->cols[i];
    if (c->skip) continue;
    int rc;
    if (c->tree) {
      pq_error err = {0};
      rc = pq_nested_flush(c->tree, tw->w, &err);
      if (rc) rc = pq_tbl_core(tw, rc, &err);
    } else {
      rc = pq_tbl_put_fill(tw, c, &c->b);
    }
    if (rc) return rc;
  }
  return PQ_OK;
}

int pq_tbl_group(pq_table_writer *tw) {
  pq_error err = {0};
  if (tw->cap) {
    int rc = tw->cap->group(tw->cap->ctx, &err);
    return rc ? pq_tbl_core(tw, rc, &err) : PQ_OK;
  }
  int rc = pq_writer_end_row_group(tw->w, &err);
  if (rc) return pq_tbl_io_error(tw, rc, &err);
  pq_writer_drain(tw->w, &tw->out);
  return pq_tbl_flush(tw);
}

/* ---- What options ask for beyond the data ------------------------------------ */

#define TT_BLOOM_MOST ((int64_t)1 << 27) /* the writer's largest filter, bytes */

/* The bytes of the bloom filter the writer makes for ndv distinct values
** at the false positive probability fpp (src/format/bloom.c,
** pq_bloom_size): the spec's sizing of a split-block filter, 8 ndv /
** -ln(1 - fpp^(1/8)) bits, rounded up to a power of two of 32 bytes or
** more; here without the writer's cut at TT_BLOOM_MOST, so that a larger
** filter asked for is seen. */
static double tt_bloom_bytes(int64_t ndv, double fpp) {
  if (!(fpp > 0 && fpp < 1)) fpp = 0.01;
  double bytes = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8)) / 8;
  double n = 32;
  while (n < bytes && n < 1e18) n *= 2;
  return n;
}

static int tt_uses_blocks(const pq_params *p, const pq_write_options *o) {
  int e = p->encoding == PQ_RLE_DICTIONARY ? o->fallback : (int)p->encoding;
  return o->auto_encoding || e == PQ_DELTA_BINARY_PACKED ||
         e == PQ_DELTA_LENGTH_BYTE_ARRAY || e == PQ_DELTA_BYTE_ARRAY;
}

/* Adds what one leaf's options ask for whatever its data (*fixed, for
** every leaf; tw->bloom_fixed, the filters) and checks it against the
** limit.  A filter sized by "ndv" takes its bytes in each row group, be it
** of one row; the DELTA encodings hold a block of block_size values, 8
** bytes each, for each leaf. */
static int tt_bound_leaf(pq_table_writer *tw, const char *col,
                         const pq_params *p, const pq_write_options *o,
                         int64_t limit, int64_t *fixed) {
  if (o->bloom && o->bloom_ndv > 0) {
    double b = tt_bloom_bytes(o->bloom_ndv, o->bloom_fpp);
    if (b > (double)TT_BLOOM_MOST)
      return pq_tbl_fail(
          tw, PQ_TOOBIG,
          "options: column '%s': \"bloom_filter\": a filter for %lld "
          "distinct values at fpp %g takes %.0f bytes, more than the "
          "%lld a filter may take",
          col, (long long)o->bloom_ndv,
          o->bloom_fpp > 0 ? o->bloom_fpp : 0.01, b, (long long)TT_BLOOM_MOST);
    tw->bloom_fixed += (int64_t)b;
    *fixed += (int64_t)b;
    if (*fixed > limit)
      return pq_tbl_fail(
          tw, PQ_TOOBIG,
          "options: column '%s': \"bloom_filter\": the filters sized "
          "by \"ndv\" take %lld bytes in each row group, more than the "
          "limit of %lld bytes%s",
          col, (long long)*fixed, (long long)limit, pq_tbl_hint(tw));
  }
  if (p->block_size > 0 && tt_uses_blocks(p, o)) {
    *fixed += p->block_size * 8;
    if (*fixed > limit)
      return pq_tbl_fail(
          tw, PQ_TOOBIG,
          "options: column '%s': \"block_size\": blocks of %lld "
          "values take %lld bytes with those of the columns before it, "
          "more than the limit of %lld bytes%s",
          col, (long long)p->block_size, (long long)*fixed, (long long)limit,
          pq_tbl_hint(tw));
  }
  return PQ_OK;
}

static int64_t tt_limit64(const pq_table_writer *tw) {
  size_t l = pq_tbl_limit(tw);
  return l > (size_t)INT64_MAX ? INT64_MAX : (int64_t)l;
}

/* What every column's options ask for, against the limit. */
static int tt_bounds(pq_table_writer *tw) {
  int64_t limit = tt_limit64(tw), fixed = 0;
  int rc = PQ_OK;
  for (int i = 0; i < tw->ncols && !rc; i++) {
    tw_col *c = &tw->cols[i];
    if (!c->tree) {
      rc = tt_bound_leaf(tw, c->name, &c->p, &c->o, limit, &fixed);
      continue;
    }
    for (int k = 0; k < pq_nested_nleaves(c->tree) && !rc; k++) {
      pq_params p;
      pq_write_options o;
      pq_nested_leaf(c->tree, k, &p, &o);
      rc = tt_bound_leaf(tw, c->name, &p, &o, limit, &fixed);
    }
  }
  return rc;
}

int pq_tbl_count_group(pq_table_writer *tw) {
  tw->groups++;
  if (tw->bloom_fixed == 0) return PQ_OK;
  int64_t limit = tt_limit64(tw);
  if (tw->groups <= limit / tw->bloom_fixed) return PQ_OK;
  return pq_tbl_fail(
      tw, PQ_TOOBIG,
      "options: \"bloom_filter\": the filters sized by \"ndv\" take "
      "%lld bytes in each row group: %lld row groups take more than the "
      "limit of %lld bytes%s: a smaller ndv, a larger "
      "row_group_size, or true (each filter sized by its chunk's values)",
      (long long)tw->bloom_fixed, (long long)tw->groups, (long long)limit,
      pq_tbl_hint(tw));
}

/* ---- The columns ---------------------------------------------------------------- */

/* A VARIANT column's "shred" (column i): its type read first, as below,
** and the values read ahead handed to "auto". */
static int tt_variant_shred(pq_table_writer *tw, int i, const char *type,
                            int has_type, const char *shred, const char *where) {
  tw_col *col = &tw->cols[i];
  char t[1024];
  int declared = 0;
  if (has_type) {
    snprintf(t, sizeof t, "%s", type);
  } else {
    declared = tt_decl_type(col->decl, t, sizeof t);
    if (declared < 0) return PQ_NOMEM;
  }
  pq_nested *tree = NULL;
  pq_buf why;
  pq_buf_init(&why);
  int nested = (has_type || declared) ? pq_tbl_nested_parse(t, &tree, &why) : 0;
  pq_buf_free(&why);
  if (nested == -2) return PQ_NOMEM;
  if (nested <= 0 || pq_nested_kind(tree) != PQ_WT_VARIANT) {
    pq_nested_free(tree);
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "options%s: \"shred\" is for a column of type VARIANT",
                      where);
  }
  const char **texts = pq_malloc((size_t)(tw->nlook + 1) * sizeof *texts);
  size_t *lens = pq_malloc((size_t)(tw->nlook + 1) * sizeof *lens);
  int rc = PQ_OK;
  if (!texts || !lens) rc = PQ_NOMEM;
  for (int r = 0; r < tw->nlook && !rc; r++) {
    const pq_dvalue *v = &tw->look[r * tw->nvals + i];
    texts[r] = v->kind == PQ_DV_TEXT ? (v->n ? v->p : "") : NULL;
    lens[r] = v->kind == PQ_DV_TEXT ? v->n : 0;
  }
  pq_buf m;
  pq_buf_init(&m);
  if (!rc)
    rc = pq_nested_variant_shred(tree, shred, strlen(shred), texts, lens,
                                 tw->nlook, &m);
  pq_buf_byte(&m, 0);
  if (rc && rc != PQ_NOMEM) {
    if (m.oom) rc = PQ_NOMEM;
    else rc = pq_tbl_fail(tw, PQ_MISUSE, "options%s: %s", where,
                         (const char *)m.data);
  }
  pq_buf_free(&m);
  pq_free(texts);
  pq_free(lens);
  /* the column's own tree, shredded: kept for the type parsed below */
  if (!rc) col->tree = tree;
  else pq_nested_free(tree);
  return rc;
}

/* Column i's type, encoding and options. */
static int tt_column(pq_table_writer *tw, int i, char *type, char *enc,
                     char *where) {
  tw_options *opt = &tw->opt;
  tw_col *c = &tw->cols[i];
  c->p = opt->p;
  c->o = opt->o;
  c->has_encoding = opt->has_encoding;
  c->dictionary = opt->dictionary;
  strcpy(type, opt->type);
  int has_type = opt->has_type;
  strcpy(enc, opt->encoding);
  snprintf(where, 300, ": column '%s'", c->name);
  char *shred = NULL;
  tw_col_options co = {&c->p,        &c->o, type,   &has_type, enc,
                       &c->has_encoding, &c->dictionary, where, &shred};
  int rc = pq_tbl_column_options(tw, c->name, &co);
  if (!rc && shred) rc = tt_variant_shred(tw, i, type, has_type, shred, where);
  pq_free(shred);
  if (rc) return rc;
  /* The type: given, declared, or from the values read ahead.  A type in
  ** the declared type (a parquet table's column) is as if given. */
  int declared = 0;
  if (!has_type) {
    declared = tt_decl_type(c->decl, type, TW_TYPE_MAX);
    if (declared < 0) return PQ_NOMEM;
  }
  if (has_type || declared) {
    pq_nested *shredded = c->tree; /* tt_variant_shred's */
    c->tree = NULL;
    pq_buf why;
    pq_buf_init(&why);
    int nested = pq_tbl_nested_parse(type, &c->tree, &why);
    pq_buf_free(&why);
    if (shredded) {
      pq_nested_free(c->tree);
      c->tree = shredded;
    }
    if (nested < 0) return PQ_NOMEM; /* (checked with the options) */
    if (nested) {
      c->t.kind = pq_nested_kind(c->tree);
      tw->nested = 1;
    } else {
      pq_write_type_parse(type, &c->t);
    }
    c->explicit_type = 1;
  } else if (!tt_decl_kind(c->decl, &c->t)) {
    for (int r = 0; r < tw->nlook; r++) {
      int k = tt_value_kind(tw->look[r * tw->nvals + i].kind);
      if (k) {
        c->t.kind = k;
        break;
      }
    }
    /* All NULL so far: INT64, whose values a later row must be. */
    if (!c->t.kind) c->t.kind = PQ_WT_INT64;
  }
  pq_write_type_params(&c->t, &c->p, &c->o);
  if (c->t.crs) { /* (it pointed into type) */
    c->crs = pq_malloc(c->t.crs_len + 1);
    if (!c->crs) return PQ_NOMEM;
    memcpy(c->crs, c->t.crs, c->t.crs_len);
    c->crs[c->t.crs_len] = 0;
    c->t.crs = c->o.crs = c->crs;
  }
  snprintf(c->o.name, sizeof c->o.name, "%s", c->name);
  /* The encoding: given (a dictionary encoding means dictionary), else a
  ** dictionary falling back to PLAIN, as careful writers do. */
  pq_write_type_encoding(c->has_encoding ? enc : NULL, c->dictionary, &c->p,
                         &c->o);
  c->vsize = c->p.type == PQ_BYTE_ARRAY ? sizeof(pq_bytes)
             : c->p.type == PQ_FIXED_LEN_BYTE_ARRAY ? sizeof(size_t)
                                                    : pq_value_size(c->p.type, 0);
  /* The values a column takes as they are (pq_tbl_put_value would store
  ** them unchanged): an INT64 column's integers, a DOUBLE's reals, a
  ** STRING's or JSON's texts, a BINARY's blobs. */
  int k = c->t.kind;
  c->fast = c->tree ? TW_FAST_NONE
            : k == PQ_WT_INT64 && c->p.type == PQ_INT64 ? TW_FAST_INT64
            : k == PQ_WT_DOUBLE && c->p.type == PQ_DOUBLE ? TW_FAST_DOUBLE
            : (k == PQ_WT_STRING || k == PQ_WT_JSON) && c->p.type == PQ_BYTE_ARRAY
                ? TW_FAST_TEXT
            : k == PQ_WT_BINARY && c->p.type == PQ_BYTE_ARRAY ? TW_FAST_BLOB
                                                              : TW_FAST_NONE;
  c->b.values = pq_malloc((size_t)TW_BATCH * c->vsize);
  c->b.present = pq_malloc(TW_BATCH);
  if (!c->b.values || !c->b.present) return PQ_NOMEM;
  if (c->tree && pq_nested_leaves(c->tree, &c->p, &c->o)) return PQ_NOMEM;
  tw->ps[i] = c->p;
  tw->os[i] = c->o;
  if (tw->cap) { /* a nested column is never captured */
    int keep = 0;
    pq_error err = {0};
    rc = tw->cap->column(tw->cap->ctx, i, c->name, c->tree != NULL, &c->p,
                         &c->o, &keep, &err);
    if (rc) return pq_tbl_core(tw, rc, &err);
    c->skip = !keep || c->tree != NULL;
  }
  return PQ_OK;
}

/* Types, encodings and options of every column; the writer opened (but
** for a folder, whose files each open one). */
static int tt_columns(pq_table_writer *tw) {
  int rc = pq_tbl_column_names(tw);
  if (rc) return rc;
  tw->ps = pq_malloc((size_t)tw->ncols * sizeof *tw->ps);
  tw->os = pq_malloc((size_t)tw->ncols * sizeof *tw->os);
  char *type = pq_malloc(TW_TYPE_MAX);
  char enc[64], where[300];
  if (!tw->ps || !tw->os || !type) rc = PQ_NOMEM;
  for (int i = 0; i < tw->ncols && !rc; i++)
    rc = tt_column(tw, i, type, enc, where);
  pq_free(type);
  if (!rc) rc = tt_bounds(tw);
  /* Each column alone first, so that a refusal names its column (a nested
  ** column's leaves: tt_nested_open). */
  for (int i = 0; i < tw->ncols && !rc; i++) {
    if (tw->cols[i].tree || tw->cols[i].skip) continue;
    pq_error err = {0};
    pq_writer *one;
    rc = pq_writer_open_columns(&one, 1, &tw->ps[i], &tw->os[i], &err);
    pq_writer_free(one);
    if (rc && rc != PQ_NOMEM)
      rc = pq_tbl_fail(tw, rc, "column '%s': %s", tw->cols[i].name, err.msg);
  }
  /* a folder's writers open with their files */
  if (!rc && !tw->folder && !tw->cap) rc = pq_tbl_open_writer(tw);
  return rc;
}

int pq_tbl_open_writer(pq_table_writer *tw) {
  int rc = PQ_OK;
  if (tw->nested) {
    rc = tt_nested_open(tw);
  } else {
    pq_error err = {0};
    rc = pq_writer_open_columns(&tw->w, tw->ncols, tw->ps, tw->os, &err);
    if (rc) rc = pq_tbl_core(tw, rc, &err);
    for (int i = 0; i < tw->ncols; i++) tw->cols[i].wcol = i;
  }
  tw_options *o = &tw->opt;
  if (!rc && (o->nkv || o->created_by)) {
    pq_footer_extra x = {(const char *const *)o->kv_keys,
                         (const char *const *)o->kv_values, o->nkv,
                         o->created_by};
    pq_error err = {0};
    rc = pq_writer_set_footer(tw->w, &x, &err);
    if (rc) rc = pq_tbl_core(tw, rc, &err);
  }
  return rc;
}

/* ---- Rows ------------------------------------------------------------------------ */

/* One row's values into the batches; the batch to the writer when full,
** the row group to the output when complete. */
static int tt_row(pq_table_writer *tw, const pq_dvalue *vals) {
  if (tw->folder) {
    int r = pq_tbl_route(tw, vals + tw->ncols);
    if (r) return r;
  }
  for (int i = 0; i < tw->ncols; i++) {
    tw_col *c = &tw->cols[i];
    const pq_dvalue *v = &vals[i];
    if (c->skip) continue;
    /* The kinds a column takes as they are: here, without a call. */
    static const int fast_kind[] = {0, PQ_DV_INT, PQ_DV_DOUBLE, PQ_DV_TEXT,
                                    PQ_DV_BLOB};
    if (c->fast && v->kind == fast_kind[c->fast]) {
      tw_fill *f = &c->b;
      uint8_t *slot = f->values + f->nvalues * c->vsize;
      if (c->fast == TW_FAST_INT64) {
        memcpy(slot, &v->i, 8);
      } else if (c->fast == TW_FAST_DOUBLE) {
        memcpy(slot, &v->d, 8);
      } else {
        /* the bytes into the heap; their pointer made when the batch
        ** goes (pq_tbl_put_fill) */
        pq_bytes pb = {(const uint8_t *)(uintptr_t)f->heap.len, v->n};
        if (v->n) {
          if (f->heap.cap - f->heap.len < v->n &&
              pq_buf_reserve(&f->heap, v->n))
            return PQ_NOMEM;
          memcpy(f->heap.data + f->heap.len, v->p, v->n);
          f->heap.len += v->n;
        }
        memcpy(slot, &pb, sizeof pb);
      }
      f->present[f->nrows++] = 1;
      f->nvalues++;
      continue;
    }
    if (v->kind == PQ_DV_NULL && !c->tree) {
      c->b.present[c->b.nrows++] = 0;
      continue;
    }
    /* a fault leaves the columns before it a row ahead: the write fails */
    int rc = c->tree ? pq_tbl_put_nested(tw, i, v) : pq_tbl_put_value(tw, i, v);
    if (rc) return rc;
  }
  tw->group_rows++;
  tw->batch_rows++;
  /* row_group_bytes and file_size_bytes are looked at after each batch:
  ** smaller ones then */
  tw_options *o = &tw->opt;
  int batch = tw->batch_rows ==
              (o->group_bytes > 0 || o->file_size > 0 ? TW_BATCH_BYTES : TW_BATCH);
  int group = tw->group_rows == o->group_size;
  if (!batch && !group) return PQ_OK;
  if (group) {
    tw->group_rows = 0;
    int g = pq_tbl_count_group(tw);
    if (g) return g;
  }
  int rc = pq_tbl_hand(tw, group);
  /* A row group also closes (looked at after each batch, on the calling
  ** thread) once it takes row_group_bytes encoded. */
  if (!rc && !group && o->group_bytes > 0 &&
      pq_writer_group_bytes(tw->w) >= o->group_bytes) {
    tw->group_rows = 0;
    rc = pq_tbl_count_group(tw);
    if (!rc) rc = pq_tbl_group(tw);
  }
  /* A folder's file closes once it takes file_size_bytes: the next row
  ** opens the next. */
  if (!rc && tw->folder &&
      pq_partitioner_full(&tw->part, tw->file_bytes + pq_writer_group_bytes(tw->w)))
    rc = pq_tbl_end_file(tw);
  return rc;
}

int pq_tbl_start(pq_table_writer *tw) {
  tw->started = 1;
  /* the rows read ahead: their bytes stay put from now on */
  for (int k = 0; k < tw->nlook * tw->nvals; k++) {
    pq_dvalue *v = &tw->look[k];
    if (v->kind == PQ_DV_TEXT || v->kind == PQ_DV_BLOB)
      v->p = tw->look_heap.data + (size_t)(uintptr_t)v->p;
  }
  int rc = tt_columns(tw);
  if (rc) return rc;
  tw->threaded = tw->opt.threads != 1 && !tw->nested &&
                 tw->opt.group_bytes == 0 && !tw->folder && !tw->cap &&
                 !tw->host.no_threads;
  if (tw->folder) {
    rc = pq_tbl_make_root(tw); /* its files open with their first rows */
  } else if (tw->sink) {
    pq_writer_set_sink(tw->w, pq_tbl_to_sink, tw);
  } else if (!tw->to_memory && !tw->cap) {
    rc = pq_tbl_create(tw);
    if (!rc) pq_writer_set_sink(tw->w, pq_tbl_sink, tw);
  }
  for (int r = 0; r < tw->nlook && !rc; r++)
    rc = tt_row(tw, tw->look + r * tw->nvals);
  return rc;
}

/* ---- The interface ------------------------------------------------------------- */

pq_table_writer *pq_table_writer_new(const pq_table_host *host) {
  pq_table_writer *tw = pq_calloc(1, sizeof *tw);
  if (!tw) return NULL;
  if (host) tw->host = *host;
  pq_buf_init(&tw->msg);
  pq_buf_init(&tw->out);
  pq_buf_init(&tw->text);
  pq_buf_init(&tw->look_heap);
  pq_buf_init(&tw->fname);
  pq_buf_init(&tw->key);
  pq_buf_init(&tw->sink_msg);
  pq_tbl_options_init(&tw->opt);
  pq_partitioner_init(&tw->part, 0);
  return tw;
}

void pq_table_writer_free(pq_table_writer *tw) {
  if (!tw) return;
  pq_tbl_stop(tw);
  pq_free(tw->look);
  for (int i = 0; tw->cols && i < tw->ncols; i++) {
    tw_col *c = &tw->cols[i];
    pq_free(c->name);
    pq_free(c->decl);
    pq_free(c->b.values);
    pq_free(c->b.present);
    pq_buf_free(&c->b.heap);
    pq_free(c->sp.values);
    pq_free(c->sp.present);
    pq_buf_free(&c->sp.heap);
    pq_nested_free(c->tree);
    pq_free(c->crs);
  }
  pq_free(tw->cols);
  pq_writer_free(tw->w);
  pq_tbl_sink_abort(tw);
  pq_tbl_free_output(tw);
  pq_tbl_options_free(&tw->opt);
  pq_partitioner_free(&tw->part);
  pq_free(tw->ps);
  pq_free(tw->os);
  pq_buf_free(&tw->msg);
  pq_buf_free(&tw->out);
  pq_buf_free(&tw->text);
  pq_buf_free(&tw->look_heap);
  pq_buf_free(&tw->fname);
  pq_buf_free(&tw->key);
  pq_buf_free(&tw->sink_msg);
  pq_free(tw);
}

const char *pq_table_writer_message(const pq_table_writer *tw) {
  return tw && tw->msg.len ? (const char *)tw->msg.data : "";
}

int pq_table_writer_options(pq_table_writer *tw, const char *json, size_t n) {
  return pq_tbl_options(tw, json, n);
}

int pq_table_writer_folder(const pq_table_writer *tw) {
  return tw->opt.npart > 0 || tw->opt.file_size > 0;
}

int pq_table_writer_partitions(const pq_table_writer *tw,
                               const char *const **names, int *write_columns) {
  if (names) *names = (const char *const *)tw->opt.part_names;
  if (write_columns) *write_columns = tw->opt.write_part;
  return tw->opt.npart;
}

/* Copies of s (pq_malloc); NULL for NULL or out of memory (*oom). */
static char *tt_dup(const char *s, int *oom) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *c = pq_malloc(n + 1);
  if (!c) *oom = 1;
  else memcpy(c, s, n + 1);
  return c;
}

int pq_table_writer_to_path(pq_table_writer *tw, const char *path) {
  tw->folder = pq_table_writer_folder(tw);
  tw->part.file_size = tw->opt.file_size;
  int oom = 0;
  if (tw->folder) {
    tw->root = tt_dup(path, &oom);
    if (oom) return PQ_NOMEM;
    /* 'out/' is the folder 'out' (its temporary one goes beside it) */
    size_t n = strlen(tw->root);
    while (n > 1 && tw->root[n - 1] == '/') tw->root[--n] = 0;
  } else {
    tw->path = tt_dup(path, &oom);
    if (oom) return PQ_NOMEM;
  }
  return PQ_OK;
}

int pq_table_writer_to_memory(pq_table_writer *tw) {
  if (pq_table_writer_folder(tw))
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "\"partition_by\" and \"file_size_bytes\" write a "
                      "folder of files: the path cannot be NULL");
  tw->to_memory = 1;
  return PQ_OK;
}

int pq_table_writer_to_sink(pq_table_writer *tw, const pq_table_sink *sink) {
  if (pq_table_writer_folder(tw))
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "\"partition_by\" and \"file_size_bytes\" write a "
                      "folder of files: a sink takes one file");
  if (!sink || !sink->write || !sink->commit || !sink->abort)
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "a sink has a write, a commit and an abort");
  tw->sink = sink;
  return PQ_OK;
}

int pq_table_writer_to_capture(pq_table_writer *tw, const pq_table_capture *cap) {
  tw_options *o = &tw->opt;
  if (o->npart > 0 || o->file_size > 0)
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "options: \"%s\" writes a folder of files, of which "
                      "one column alone is not measured",
                      o->npart > 0 ? "partition_by" : "file_size_bytes");
  if (o->group_bytes > 0)
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "options: \"row_group_bytes\" closes row groups by the "
                      "bytes of every column, which one column alone does "
                      "not have");
  tw->cap = cap;
  return PQ_OK;
}

int pq_table_writer_columns(pq_table_writer *tw, int n,
                            const char *const *names,
                            const char *const *decls) {
  if (n < 1 || tw->cols) return pq_tbl_fail(tw, PQ_MISUSE, "no columns");
  if (!tw->path && !tw->root && !tw->to_memory && !tw->sink && !tw->cap)
    return pq_tbl_fail(tw, PQ_MISUSE, "no output: a path, memory, a sink "
                                      "or a capture comes before the "
                                      "columns");
  int oom = 0;
  tw->cols = pq_calloc((size_t)n, sizeof *tw->cols);
  if (!tw->cols) return PQ_NOMEM;
  tw->ncols = n;
  tw->nvals = n + tw->opt.npart;
  for (int i = 0; i < n; i++) {
    tw_col *c = &tw->cols[i];
    pq_buf_init(&c->b.heap);
    pq_buf_init(&c->sp.heap);
    c->name = tt_dup(names[i] ? names[i] : "", &oom);
    c->decl = tt_dup(decls ? decls[i] : NULL, &oom);
  }
  if (oom) return PQ_NOMEM;
  tw->look = pq_malloc((size_t)PQ_TABLE_LOOK * (size_t)tw->nvals * sizeof *tw->look);
  return tw->look ? PQ_OK : PQ_NOMEM;
}

int pq_table_writer_row(pq_table_writer *tw, const pq_dvalue *vals) {
  if (!tw->cols) return pq_tbl_fail(tw, PQ_MISUSE, "no columns");
  for (int i = 0; i < tw->nvals; i++)
    if (vals[i].kind < PQ_DV_NULL || vals[i].kind > PQ_DV_BLOB ||
        (vals[i].kind >= PQ_DV_TEXT && vals[i].n && !vals[i].p))
      return pq_tbl_fail(tw, PQ_MISUSE, "row %lld: value %d is of no kind",
                        (long long)(tw->rows + (int64_t)tw->batch_rows + 1), i);
  if (tw->started) return tt_row(tw, vals);
  /* kept until PQ_TABLE_LOOK rows have typed the columns: the bytes in
  ** look_heap, at offsets until the pointers are made (pq_tbl_start) */
  pq_dvalue *row = tw->look + tw->nlook * tw->nvals;
  for (int i = 0; i < tw->nvals; i++) {
    row[i] = vals[i];
    if (vals[i].kind != PQ_DV_TEXT && vals[i].kind != PQ_DV_BLOB) continue;
    row[i].p = (const void *)(uintptr_t)tw->look_heap.len;
    pq_buf_append(&tw->look_heap, vals[i].n ? vals[i].p : "", vals[i].n);
    if (tw->look_heap.oom) return PQ_NOMEM;
  }
  if (++tw->nlook == PQ_TABLE_LOOK) return pq_tbl_start(tw);
  return PQ_OK;
}

int pq_table_writer_rows_put(pq_table_writer *tw, const pq_dvalue *vals,
                             size_t n) {
  int rc = PQ_OK;
  for (size_t r = 0; r < n && !rc; r++)
    rc = pq_table_writer_row(tw, vals + r * (size_t)tw->nvals);
  return rc;
}

int pq_table_writer_finish(pq_table_writer *tw) {
  if (!tw->cols) return pq_tbl_fail(tw, PQ_MISUSE, "no columns");
  if (tw->folder) return pq_tbl_end_folder(tw);
  int rc = tw->started ? PQ_OK : pq_tbl_start(tw);
  if (!rc) rc = pq_tbl_last(tw);
  if (rc || tw->cap) return rc;
  /* the last row group, closed by the footer (or an empty one) */
  if (tw->group_rows > 0 || tw->groups == 0) {
    rc = pq_tbl_count_group(tw);
    if (rc) return rc;
  }
  pq_error err = {0};
  rc = pq_writer_finish(tw->w, &tw->out, &err);
  rc = rc ? pq_tbl_io_error(tw, rc, &err) : pq_tbl_flush(tw);
  if (!rc && tw->f) rc = pq_tbl_commit(tw);
  if (!rc && tw->sink) rc = pq_tbl_sink_commit(tw);
  return rc;
}

int64_t pq_table_writer_rows(const pq_table_writer *tw) { return tw->rows; }

void pq_table_writer_take(pq_table_writer *tw, pq_buf *out) {
  *out = tw->out;
  pq_buf_init(&tw->out);
}
