/*
** mutate.c -- copies of a Parquet file whose metadata lies in a way a
** reader can detect: statistics of the wrong size or with min above max,
** null counts past the values, a page index whose lists disagree, bloom
** filters whose header and bloom_filter_length disagree.  The data pages
** are left as they are, so a copy holds the same rows as its original,
** and any query over it must give the same rows with pruning as without
** (tests/prune.test, tests/prune_diff.test).
**
**   mutate IN OUT EDIT...
**
** EDIT is VERB, applied to every column chunk it suits, or VERB@RG.COL,
** to the chunk of leaf column COL in row group RG; edits apply in order,
** each to what the ones before it made.  For each EDIT a line "VERB N"
** says how many chunks it changed (0: none it suits).  Verbs:
**
**   statistics (ColumnMetaData.statistics: min and max, min_value and
**   max_value, both pairs when both are there)
**     stats_cut     fixed-size types: min and max lose their last byte;
**                   BYTE_ARRAY: min does (still a lower bound)
**     stats_shrink  the same, cut to half their size
**     stats_widen   fixed-size types: min and max gain as many zero bytes
**                   as the type has; BYTE_ARRAY: max gains two 0xFF bytes
**                   (still an upper bound)
**                   (A fixed size never comes out as the type's; a DECIMAL
**                   byte array is left as it is: its bytes are a number.)
**     stats_ascii   INT32, INT64, FLOAT, DOUBLE: min and max as the
**                   decimal text of their values, when its size is not the
**                   type's (Parquet.Net wrote INT64 timestamps this way)
**     stats_swap    min and max swapped (where they differ)
**     stats_nulls_over  null_count past num_values
**     stats_nulls_neg   null_count -5
**     stats_nulls_required  null_count = num_values in a REQUIRED column
**     stats_nan_over    nan_count past num_values (FLOAT, DOUBLE, FLOAT16)
**     stats_nan_drop    no nan_count, where there was one (well-formed:
**                       readers must then assume NaNs)
**   page index (the chunk's ColumnIndex, rewritten after the data)
**     ci_cut, ci_shrink, ci_widen, ci_ascii, ci_swap
**                   as above, each page's min_values and max_values
**     ci_short      min_values and max_values one entry short
**     ci_short_nulls  null_counts one entry short
**     ci_nulls_over null_counts past the chunk's num_values
**     ci_nulls_neg  null_counts -1
**     ci_null_pages every page null_pages, when null_counts say otherwise
**     ci_nan_over   nan_counts past the chunk's num_values
**     ci_nan_neg    nan_counts -1
**     ci_nan_drop   no nan_counts, where there were (well-formed)
**     oi_short      the OffsetIndex one page location short
**     oi_rows       flat columns: page k's first_row_index k rows later
**                   (each page said to hold a row more than it does, the
**                   last fewer): a lie the pages' headers show
**   bloom filters (the header and bitset rewritten after the data, when
**   they move)
**     bloom_cut     bloom_filter_length 32 bytes short of header + bitset
**     bloom_long    bloom_filter_length 32 bytes past them
**     bloom_shrink  numBytes half the bitset that follows, which
**                   bloom_filter_length still covers (DuckDB's
**                   bloom_filter_short_numbytes.parquet)
**     bloom_grow    numBytes twice the bitset that bloom_filter_length
**                   covers
**     bloom_nolen   no bloom_filter_length, where it was true (well-formed:
**                   a check that the filter still prunes)
**   the column orders (FileMetaData.column_orders, when the file has them)
**     order_ieee754 the column's order becomes IEEE_754_TOTAL_ORDER (a
**                   float's bounds say the same under it; another type's
**                   are then to be ignored)
**     order_unknown the column's order becomes a member no reader knows
**                   (id 9): its bounds are to be ignored
**   the schema
**     time_ms       an INT32 leaf without annotation becomes TIME_MILLIS
**                   (its values as they are: negative ones, or a day or
**                   more, are what other writers left in files)
**     file_type     the group a leaf is in (not the root), when it has no
**                   annotation, becomes a FILE (LogicalType 19,
**                   spec/LogicalTypes.md): a STRUCT<inline BINARY, ...>
**                   written here is such a group's shape
**     decimal_wide  a BYTE_ARRAY leaf without annotation becomes
**                   DECIMAL(77, 38), as in DuckDB's bigdecimal.parquet
**
** The footer is read into a tree of Thrift compact values with the core's
** reader (src/format/thrift.c), edited, and written back whole; a page
** index or bloom filter that changes is written anew between the data and
** the new footer, and the footer points to it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

/* ---- A Thrift value, as a tree ------------------------------------------ */

typedef struct tv {
  int16_t id;          /* field id; 0 for a list's elements */
  int type;            /* PQ_TT_*; a field's boolean TRUE or FALSE */
  int64_t i;           /* I16, I32, I64, BYTE, a list's booleans */
  uint8_t raw[8];      /* DOUBLE */
  const uint8_t *p;    /* BINARY */
  size_t n;
  int etype;           /* LIST, SET: the elements' type */
  struct tv *kid;      /* STRUCT: fields; LIST, SET: elements */
  size_t nkid, cap;
} tv;

/* Memory to free at the end: edited binaries. */
static void **owned;
static size_t n_owned;

static void *own(size_t n) {
  void *p = malloc(n ? n : 1);
  void **o = realloc(owned, (n_owned + 1) * sizeof *o);
  if (!p || !o) {
    fprintf(stderr, "mutate: out of memory\n");
    exit(1);
  }
  owned = o;
  owned[n_owned++] = p;
  return p;
}

static tv *tv_add(tv *v) {
  if (v->nkid == v->cap) {
    size_t c = v->cap ? 2 * v->cap : 4;
    tv *k = realloc(v->kid, c * sizeof *k);
    if (!k) {
      fprintf(stderr, "mutate: out of memory\n");
      exit(1);
    }
    v->kid = k;
    v->cap = c;
  }
  tv *k = &v->kid[v->nkid++];
  memset(k, 0, sizeof *k);
  return k;
}

static void tv_free(tv *v) {
  for (size_t i = 0; i < v->nkid; i++) tv_free(&v->kid[i]);
  free(v->kid);
  v->kid = NULL;
  v->nkid = v->cap = 0;
}

static void rd_value(pq_thrift *t, int type, tv *v);

static void rd_struct(pq_thrift *t, tv *v) {
  v->type = PQ_TT_STRUCT;
  if (!pq_thrift_enter(t)) return;
  int type;
  int16_t last = 0, id;
  while (!t->failed && pq_thrift_field(t, &type, &last, &id)) {
    tv *k = tv_add(v);
    k->id = id;
    if (type == PQ_TT_TRUE || type == PQ_TT_FALSE) {
      k->type = type;
      k->i = type == PQ_TT_TRUE;
    } else {
      rd_value(t, type, k);
    }
  }
  pq_thrift_leave(t);
}

static void rd_value(pq_thrift *t, int type, tv *v) {
  v->type = type;
  switch (type) {
    case PQ_TT_BYTE: v->i = pq_thrift_byte(t); return;
    case PQ_TT_I16:
    case PQ_TT_I32:
    case PQ_TT_I64: v->i = pq_thrift_i64(t); return;
    case PQ_TT_DOUBLE:
      if (t->len - t->pos < 8) {
        pq_thrift_fail(t, "the data ends inside a double");
        return;
      }
      memcpy(v->raw, t->buf + t->pos, 8);
      t->pos += 8;
      return;
    case PQ_TT_BINARY: {
      pq_bytes b = pq_thrift_binary(t);
      v->p = b.ptr;
      v->n = b.len;
      return;
    }
    case PQ_TT_LIST:
    case PQ_TT_SET: {
      uint32_t n = pq_thrift_list(t, &v->etype);
      if (!pq_thrift_enter(t)) return;
      for (uint32_t i = 0; i < n && !t->failed; i++) {
        tv *k = tv_add(v);
        if (v->etype == PQ_TT_TRUE || v->etype == PQ_TT_FALSE) {
          k->type = PQ_TT_BYTE; /* a boolean in a list is a byte */
          k->i = pq_thrift_byte(t);
        } else {
          rd_value(t, v->etype, k);
        }
      }
      pq_thrift_leave(t);
      return;
    }
    case PQ_TT_STRUCT: rd_struct(t, v); return;
    default: pq_thrift_fail(t, "a type this tool does not write (a map)");
  }
}

/* Reads one struct at buf[0..len); *used: its bytes.  0 on a fault. */
static int rd_top(const uint8_t *buf, size_t len, tv *out, size_t *used) {
  pq_error err;
  pq_thrift t;
  memset(out, 0, sizeof *out);
  pq_thrift_init(&t, buf, len, 0, "mutate", &err);
  rd_struct(&t, out);
  if (t.failed) {
    fprintf(stderr, "mutate: %s\n", err.msg);
    return 0;
  }
  if (used) *used = t.pos;
  return 1;
}

static void wr_value(pq_buf *b, const tv *v);

static void wr_struct(pq_buf *b, const tv *v) {
  int16_t last = 0;
  for (size_t i = 0; i < v->nkid; i++) {
    const tv *k = &v->kid[i];
    int type = k->type;
    if (type == PQ_TT_TRUE || type == PQ_TT_FALSE)
      type = k->i ? PQ_TT_TRUE : PQ_TT_FALSE;
    int delta = k->id - last;
    if (delta > 0 && delta <= 15) {
      pq_buf_byte(b, (uint8_t)(delta << 4 | type));
    } else {
      pq_buf_byte(b, (uint8_t)type);
      pq_buf_uleb(b, pq_zigzag_enc(k->id));
    }
    last = k->id;
    if (type != PQ_TT_TRUE && type != PQ_TT_FALSE) wr_value(b, k);
  }
  pq_buf_byte(b, 0);
}

static void wr_value(pq_buf *b, const tv *v) {
  switch (v->type) {
    case PQ_TT_BYTE: pq_buf_byte(b, (uint8_t)v->i); return;
    case PQ_TT_I16:
    case PQ_TT_I32:
    case PQ_TT_I64: pq_buf_uleb(b, pq_zigzag_enc(v->i)); return;
    case PQ_TT_DOUBLE: pq_buf_append(b, v->raw, 8); return;
    case PQ_TT_BINARY:
      pq_buf_uleb(b, v->n);
      pq_buf_append(b, v->p, v->n);
      return;
    case PQ_TT_LIST:
    case PQ_TT_SET:
      if (v->nkid < 15) {
        pq_buf_byte(b, (uint8_t)(v->nkid << 4 | (size_t)v->etype));
      } else {
        pq_buf_byte(b, (uint8_t)(0xf0 | v->etype));
        pq_buf_uleb(b, v->nkid);
      }
      for (size_t i = 0; i < v->nkid; i++) wr_value(b, &v->kid[i]);
      return;
    case PQ_TT_STRUCT: wr_struct(b, v); return;
  }
}

/* The field `id` of a struct, or NULL. */
static tv *fld(tv *s, int16_t id) {
  if (!s || s->type != PQ_TT_STRUCT) return NULL;
  for (size_t i = 0; i < s->nkid; i++)
    if (s->kid[i].id == id) return &s->kid[i];
  return NULL;
}

/* The field `id` of a struct, added (in id order) when absent. */
static tv *fld_set(tv *s, int16_t id, int type) {
  tv *k = fld(s, id);
  if (!k) {
    tv_add(s);
    size_t at = s->nkid - 1;
    while (at > 0 && s->kid[at - 1].id > id) {
      s->kid[at] = s->kid[at - 1];
      at--;
    }
    k = &s->kid[at];
    memset(k, 0, sizeof *k);
    k->id = id;
  }
  k->type = type;
  return k;
}

static void fld_drop(tv *s, int16_t id) {
  tv *k = fld(s, id);
  if (!k) return;
  tv_free(k);
  size_t at = (size_t)(k - s->kid);
  memmove(k, k + 1, (s->nkid - at - 1) * sizeof *k);
  s->nkid--;
}

/* ---- Edits of values ------------------------------------------------------- */

typedef struct chunk {
  const pq_schema_node *leaf;
  size_t size;          /* of a value: fixed types; 0 BYTE_ARRAY */
  int real;             /* FLOAT, DOUBLE, FLOAT16: NaN counts */
  int decimal;          /* a DECIMAL annotation */
  int64_t num_values;
} chunk;

static void set_bytes(tv *v, const void *p, size_t n) {
  uint8_t *q = own(n);
  if (n) memcpy(q, p, n);
  v->p = q;
  v->n = n;
}

/* The decimal text of a fixed-size value of the chunk's type, or 0. */
static size_t ascii_of(const chunk *c, const tv *v, char *out, size_t cap) {
  pq_type t = c->leaf->elem->type;
  if (v->n != c->size) return 0;
  int k = -1;
  if (t == PQ_INT32) {
    int32_t x;
    memcpy(&x, v->p, 4);
    k = snprintf(out, cap, "%ld", (long)x);
  } else if (t == PQ_INT64) {
    int64_t x;
    memcpy(&x, v->p, 8);
    k = snprintf(out, cap, "%lld", (long long)x);
  } else if (t == PQ_FLOAT) {
    float x;
    memcpy(&x, v->p, 4);
    k = snprintf(out, cap, "%.9g", (double)x);
  } else if (t == PQ_DOUBLE) {
    double x;
    memcpy(&x, v->p, 8);
    k = snprintf(out, cap, "%.17g", x);
  }
  return k > 0 && (size_t)k < cap && (size_t)k != c->size ? (size_t)k : 0;
}

/* Applies a value verb (cut, shrink, widen, ascii, swap) to a min and a
** max (either may be NULL); 1 when either changed. */
static int edit_pair(const chunk *c, const char *verb, tv *lo, tv *hi) {
  int fixed = c->size > 0, changed = 0;
  if (!strcmp(verb, "swap")) {
    if (!lo || !hi || (lo->n == hi->n && !memcmp(lo->p, hi->p, lo->n)))
      return 0;
    tv t = *lo;
    lo->p = hi->p, lo->n = hi->n;
    hi->p = t.p, hi->n = t.n;
    return 1;
  }
  /* A DECIMAL byte array's bytes are a number: neither a prefix nor more
  ** bytes after keep a bound a bound. */
  if (!fixed && c->decimal) return 0;
  tv *which[2] = {lo, hi};
  for (int side = 0; side < 2; side++) {
    tv *v = which[side];
    if (!v) continue;
    /* Fixed sizes: never the type's size again (a cut after a widening),
    ** which would make a well-formed lie. */
    if (!strcmp(verb, "cut") || !strcmp(verb, "shrink")) {
      /* BYTE_ARRAY: a prefix of the min is still a lower bound; of the max
      ** it would be a lie no reader can see. */
      if ((!fixed && side == 1) || v->n == 0) continue;
      size_t n = !strcmp(verb, "cut") ? v->n - 1 : v->n / 2;
      if (fixed && n == c->size) n--;
      set_bytes(v, v->p, n);
      changed = 1;
    } else if (!strcmp(verb, "widen")) {
      if (!fixed && side == 0) continue;
      size_t n = fixed ? v->n + c->size : v->n + 2;
      if (fixed && n == c->size) n++;
      uint8_t *q = own(n);
      memcpy(q, v->p, v->n);
      memset(q + v->n, fixed ? 0 : 0xff, n - v->n);
      v->p = q;
      v->n = n;
      changed = 1;
    } else if (!strcmp(verb, "ascii")) {
      char s[64];
      size_t n = fixed ? ascii_of(c, v, s, sizeof s) : 0;
      if (!n) continue;
      set_bytes(v, s, n);
      changed = 1;
    }
  }
  return changed;
}

/* ---- Statistics -------------------------------------------------------------- */

static int edit_stats(const chunk *c, tv *meta, const char *verb) {
  tv *st = fld(meta, 12);
  if (!strcmp(verb, "nan_drop")) {
    if (!fld(st, 9)) return 0;
    fld_drop(st, 9);
    return 1;
  }
  if (!strncmp(verb, "nulls_", 6) || !strcmp(verb, "nan_over")) {
    int64_t v;
    if (!strcmp(verb, "nan_over") && c->real) {
      v = c->num_values + 3;
    } else if (!strcmp(verb, "nulls_over")) {
      v = c->num_values + 1;
    } else if (!strcmp(verb, "nulls_neg")) {
      v = -5;
    } else if (!strcmp(verb, "nulls_required") && c->leaf->max_def == 0 &&
               c->num_values > 0) {
      v = c->num_values;
    } else {
      return 0;
    }
    if (!st) st = fld_set(meta, 12, PQ_TT_STRUCT);
    fld_set(st, !strcmp(verb, "nan_over") ? 9 : 3, PQ_TT_I64)->i = v;
    return 1;
  }
  if (!st) return 0;
  int a = edit_pair(c, verb, fld(st, 6), fld(st, 5));
  int b = edit_pair(c, verb, fld(st, 2), fld(st, 1));
  return a || b;
}

/* ---- The page index ------------------------------------------------------------ */

typedef struct out_file {
  const uint8_t *buf;   /* the original */
  const pq_file *f;
  tv *schema;           /* the footer's list of SchemaElements */
  tv *orders;           /* its list of ColumnOrders, or NULL */
  size_t data_end;      /* its footer's first byte */
  pq_buf extra;         /* what goes between the data and the footer */
} out_file;

/* The bytes at offset `off` of the file being made (the original's data,
** then what edits wrote after it): *n of them to its end, or NULL. */
static const uint8_t *at(const out_file *o, int64_t off, size_t *n) {
  if (off < 4) return NULL;
  if ((uint64_t)off < o->data_end) {
    *n = o->data_end - (size_t)off;
    return o->buf + off;
  }
  if ((uint64_t)off - o->data_end >= o->extra.len) return NULL;
  *n = o->extra.len - (size_t)(off - (int64_t)o->data_end);
  return o->extra.data + (off - (int64_t)o->data_end);
}

/* The struct at offset `off` (length len, or up to the data's end). */
static int rd_at(const out_file *o, int64_t off, int64_t len, tv *out,
                 size_t *used) {
  size_t n;
  const uint8_t *p = at(o, off, &n);
  if (!p) return 0;
  if (len > 0 && (uint64_t)len < n) n = (size_t)len;
  if ((uint64_t)off >= o->data_end) { /* o->extra moves as it grows */
    uint8_t *q = own(n);
    memcpy(q, p, n);
    p = q;
  }
  return rd_top(p, n, out, used);
}

/* Writes v after the data; the chunk's fields off_id and len_id point to
** it. */
static void relocate(out_file *o, tv *cc_or_meta, int16_t off_id,
                     int16_t len_id, const tv *v) {
  size_t at = o->data_end + o->extra.len;
  wr_value(&o->extra, v);
  fld_set(cc_or_meta, off_id, PQ_TT_I64)->i = (int64_t)at;
  fld_set(cc_or_meta, len_id, PQ_TT_I32)->i =
      (int64_t)(o->data_end + o->extra.len - at);
}

static int edit_column_index(out_file *o, const chunk *c, tv *cc,
                             const char *verb) {
  tv *off = fld(cc, 6), *len = fld(cc, 7);
  if (!off) return 0;
  tv ci;
  if (!rd_at(o, off->i, len ? len->i : -1, &ci, NULL)) return 0;
  tv *np = fld(&ci, 1), *mins = fld(&ci, 2), *maxs = fld(&ci, 3),
     *nc = fld(&ci, 5), *nan = fld(&ci, 8);
  int changed = 0;
  if (!np || !mins || !maxs) {
    tv_free(&ci);
    return 0;
  }
  if (!strcmp(verb, "short")) {
    if (mins->nkid && maxs->nkid) {
      tv_free(&mins->kid[--mins->nkid]);
      tv_free(&maxs->kid[--maxs->nkid]);
      changed = 1;
    }
  } else if (!strcmp(verb, "short_nulls")) {
    if (nc && nc->nkid) {
      nc->nkid--;
      changed = 1;
    }
  } else if (!strcmp(verb, "nulls_over") || !strcmp(verb, "nulls_neg")) {
    if (nc) {
      for (size_t i = 0; i < nc->nkid; i++)
        nc->kid[i].i = !strcmp(verb, "nulls_neg") ? -1 : c->num_values + 1;
      changed = nc->nkid > 0;
    }
  } else if (!strcmp(verb, "nan_over") || !strcmp(verb, "nan_neg")) {
    for (size_t i = 0; nan && i < nan->nkid; i++)
      nan->kid[i].i = !strcmp(verb, "nan_neg") ? -1 : c->num_values + 3;
    changed = nan && nan->nkid > 0;
  } else if (!strcmp(verb, "nan_drop")) {
    if (nan) {
      fld_drop(&ci, 8);
      changed = 1;
    }
  } else if (!strcmp(verb, "null_pages")) {
    /* A lie only null_counts can give away. */
    for (size_t i = 0; nc && i < np->nkid && i < nc->nkid; i++) {
      if (np->kid[i].i != 1 && nc->kid[i].i >= 0) {
        np->kid[i].i = 1;
        changed = 1;
      }
    }
  } else {
    for (size_t i = 0; i < np->nkid && i < mins->nkid && i < maxs->nkid; i++)
      if (np->kid[i].i != 1)
        changed |= edit_pair(c, verb, &mins->kid[i], &maxs->kid[i]);
  }
  if (changed) relocate(o, cc, 6, 7, &ci);
  tv_free(&ci);
  return changed;
}

static int edit_offset_index(out_file *o, const chunk *c, tv *cc,
                             const char *verb) {
  if (strcmp(verb, "short") && strcmp(verb, "rows")) return -1;
  tv *off = fld(cc, 4), *len = fld(cc, 5);
  if (!off) return 0;
  tv oi;
  if (!rd_at(o, off->i, len ? len->i : -1, &oi, NULL)) return 0;
  tv *locs = fld(&oi, 1);
  int changed = 0;
  if (!strcmp(verb, "short") && locs && locs->nkid > 1) {
    tv_free(&locs->kid[--locs->nkid]);
    changed = 1;
  } else if (!strcmp(verb, "rows") && locs && locs->nkid > 1 &&
             c->leaf->max_rep == 0) {
    /* PageLocation.first_row_index (3) of page k moved k rows on: each
    ** page said to hold one row more than it does, the last fewer; only
    ** where they stay inside the chunk's rows (a flat column: its values). */
    tv *last = fld(&locs->kid[locs->nkid - 1], 3);
    if (last && last->i + (int64_t)locs->nkid - 1 < c->num_values) {
      for (size_t k = 1; k < locs->nkid; k++) {
        tv *first = fld(&locs->kid[k], 3);
        if (first) first->i += (int64_t)k;
      }
      changed = 1;
    }
  }
  if (changed) relocate(o, cc, 4, 5, &oi);
  tv_free(&oi);
  return changed;
}

/* ---- Bloom filters ---------------------------------------------------------------- */

static int edit_bloom(out_file *o, tv *meta, const char *verb) {
  tv *off = fld(meta, 14), *len = fld(meta, 15);
  if (!off) return 0;
  tv h;
  size_t hsize;
  if (!rd_at(o, off->i, len ? len->i : -1, &h, &hsize)) return 0;
  tv *nb = fld(&h, 1);
  int changed = 0;
  int64_t bytes = nb ? nb->i : 0;
  size_t avail = 0;
  const uint8_t *bits = at(o, off->i, &avail);
  if (!bits || !nb || bytes < 64 || bytes % 32 ||
      hsize + (uint64_t)bytes > avail) {
    tv_free(&h);
    return 0;
  }
  bits += hsize;
  /* A copy: the bitset may be in o->extra, which grows below. */
  uint8_t *copy = own((size_t)bytes);
  memcpy(copy, bits, (size_t)bytes);
  bits = copy;
  if (!strcmp(verb, "nolen")) {
    /* Only a length that is true: without it, a header that another edit
    ** made lie could not be seen to. */
    if (len && len->i == (int64_t)hsize + bytes) {
      fld_drop(meta, 15);
      changed = 1;
    }
  } else if (!strcmp(verb, "cut")) {
    fld_set(meta, 15, PQ_TT_I32)->i = (int64_t)hsize + bytes - 32;
    changed = 1;
  } else if (!strcmp(verb, "long") || !strcmp(verb, "shrink") ||
             !strcmp(verb, "grow")) {
    /* Written anew: the header (numBytes changed), the bitset, and room
    ** after it, so that what a reader may read lies in the file. */
    int64_t say = !strcmp(verb, "shrink") ? bytes / 2
                  : !strcmp(verb, "grow") ? bytes * 2
                                          : bytes;
    int64_t pad = !strcmp(verb, "grow") ? bytes : 32;
    nb->i = say;
    size_t at = o->data_end + o->extra.len;
    wr_value(&o->extra, &h);
    size_t hs = o->data_end + o->extra.len - at;
    pq_buf_append(&o->extra, bits, (size_t)bytes);
    for (int64_t i = 0; i < pad; i++) pq_buf_byte(&o->extra, 0);
    fld_set(meta, 14, PQ_TT_I64)->i = (int64_t)at;
    fld_set(meta, 15, PQ_TT_I32)->i =
        (int64_t)hs + bytes + (!strcmp(verb, "long") ? 32 : 0);
    changed = 1;
  }
  tv_free(&h);
  return changed;
}

/* ---- The file ----------------------------------------------------------------------- */

/* SchemaElement.converted_type (6) TIME_MILLIS (7) on an INT32 leaf that
** has no annotation. */
static int edit_schema(out_file *o, const chunk *c) {
  const pq_schema_element *e = c->leaf->elem;
  size_t at = (size_t)(e - pq_file_metadata(o->f)->schema);
  if (e->type != PQ_INT32 || e->converted_type >= 0 || e->logical_type ||
      !o->schema || at >= o->schema->nkid)
    return 0;
  tv *el = &o->schema->kid[at];
  tv *ct = fld(el, 6);
  if (ct && ct->i == 7) return 0;
  fld_set(el, 6, PQ_TT_I32)->i = 7;
  return 1;
}

/* A BYTE_ARRAY leaf without annotation as DECIMAL(77, 38). */
static int edit_decimal(out_file *o, const chunk *c) {
  const pq_schema_element *e = c->leaf->elem;
  size_t at = (size_t)(e - pq_file_metadata(o->f)->schema);
  if (e->type != PQ_BYTE_ARRAY || !o->schema || at >= o->schema->nkid)
    return 0;
  tv *el = &o->schema->kid[at];
  tv *ct = fld(el, 6);
  if (ct && ct->i == 5) return 0;
  if (ct || fld(el, 10)) return 0;
  fld_set(el, 6, PQ_TT_I32)->i = 5;
  fld_set(el, 7, PQ_TT_I32)->i = 38;
  fld_set(el, 8, PQ_TT_I32)->i = 77;
  return 1;
}

/* The column's ColumnOrder becomes the member `id` (an empty struct). */
static int edit_order(out_file *o, const chunk *c, int16_t id) {
  int leaf = c->leaf->leaf;
  if (!o->orders || leaf < 0 || (size_t)leaf >= o->orders->nkid) return 0;
  tv *u = &o->orders->kid[leaf];
  if (u->type != PQ_TT_STRUCT) return 0;
  if (u->nkid == 1 && u->kid[0].id == id) return 0;
  while (u->nkid) fld_drop(u, u->kid[0].id);
  fld_set(u, id, PQ_TT_STRUCT);
  return 1;
}

/* The leaf's group, not the root, without annotation: a FILE group. */
static int edit_file_type(out_file *o, const chunk *c) {
  const pq_schema_node *g = c->leaf->parent;
  if (!g || !g->parent || !o->schema) return 0;
  const pq_schema_element *e = g->elem;
  size_t at = (size_t)(e - pq_file_metadata(o->f)->schema);
  if (at >= o->schema->nkid) return 0;
  tv *el = &o->schema->kid[at];
  if (fld(el, 6) || fld(el, 10)) return 0;
  tv *lt = fld_set(el, 10, PQ_TT_STRUCT);
  fld_set(lt, 19, PQ_TT_STRUCT);
  return 1;
}

static int edit_chunk(out_file *o, const chunk *c, tv *cc, const char *verb) {
  if (!strcmp(verb, "time_ms")) return edit_schema(o, c);
  if (!strcmp(verb, "file_type")) return edit_file_type(o, c);
  if (!strcmp(verb, "order_ieee754")) return edit_order(o, c, 2);
  if (!strcmp(verb, "order_unknown")) return edit_order(o, c, 9);
  if (!strcmp(verb, "decimal_wide")) return edit_decimal(o, c);
  tv *meta = fld(cc, 3);
  if (!meta) return 0;
  if (!strncmp(verb, "stats_", 6)) return edit_stats(c, meta, verb + 6);
  if (!strncmp(verb, "ci_", 3)) return edit_column_index(o, c, cc, verb + 3);
  if (!strncmp(verb, "oi_", 3)) return edit_offset_index(o, c, cc, verb + 3);
  if (!strncmp(verb, "bloom_", 6)) return edit_bloom(o, meta, verb + 6);
  return -1;
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  uint8_t *buf = NULL;
  size_t cap = 0, n = 0, k;
  do {
    if (n == cap) {
      cap = cap ? 2 * cap : 65536;
      uint8_t *b = realloc(buf, cap);
      if (!b) break;
      buf = b;
    }
    k = fread(buf + n, 1, cap - n, f);
    n += k;
  } while (k > 0);
  fclose(f);
  *len = n;
  return buf;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: mutate IN OUT VERB[@RG.COL]...\n");
    return 2;
  }
  size_t len;
  uint8_t *buf = slurp(argv[1], &len);
  pq_file *f = NULL;
  pq_error err;
  if (!buf || pq_file_open(&f, buf, len, &err) != PQ_OK) {
    fprintf(stderr, "mutate: %s: %s\n", argv[1],
            buf ? err.msg : "cannot read it");
    free(buf);
    return 1;
  }
  out_file o;
  memset(&o, 0, sizeof o);
  o.buf = buf;
  o.f = f;
  o.data_end = len - 8 - pq_load32(buf + len - 8);
  tv footer;
  int rc = 0;
  if (!rd_top(buf + o.data_end, len - 8 - o.data_end, &footer, NULL)) {
    rc = 1;
    goto done;
  }
  const pq_file_meta *m = pq_file_metadata(f);
  tv *groups = fld(&footer, 4);
  o.schema = fld(&footer, 2);
  o.orders = fld(&footer, 7);
  for (int a = 3; a < argc && !rc; a++) {
    char verb[64];
    long want_rg = -1, want_col = -1;
    const char *at = strchr(argv[a], '@');
    size_t vn = at ? (size_t)(at - argv[a]) : strlen(argv[a]);
    if (vn >= sizeof verb ||
        (at && sscanf(at + 1, "%ld.%ld", &want_rg, &want_col) != 2)) {
      fprintf(stderr, "mutate: bad edit '%s'\n", argv[a]);
      rc = 2;
      break;
    }
    memcpy(verb, argv[a], vn);
    verb[vn] = 0;
    int n = 0;
    for (uint32_t g = 0; groups && g < groups->nkid && g < m->n_row_groups;
         g++) {
      tv *cols = fld(&groups->kid[g], 1);
      for (uint32_t k = 0; cols && k < cols->nkid &&
                           k < m->row_groups[g].n_columns &&
                           k < pq_file_leaf_count(f);
           k++) {
        if (want_rg >= 0 && (want_rg != (long)g || want_col != (long)k))
          continue;
        chunk c;
        memset(&c, 0, sizeof c);
        c.leaf = pq_file_leaf(f, k);
        const pq_schema_element *e = c.leaf->elem;
        c.size = e->type == PQ_BYTE_ARRAY ? 0
                 : e->type == PQ_BOOLEAN  ? 1
                                          : pq_value_size(e->type, e->type_length);
        c.real = e->type == PQ_FLOAT || e->type == PQ_DOUBLE ||
                 (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->logical_type == 15);
        c.decimal = e->converted_type == 5 || e->logical_type == 5;
        c.num_values = m->row_groups[g].columns[k].meta.num_values;
        int r = edit_chunk(&o, &c, &cols->kid[k], verb);
        if (r < 0) {
          fprintf(stderr, "mutate: unknown verb '%s'\n", verb);
          rc = 2;
          break;
        }
        n += r;
      }
    }
    if (!rc) printf("%s %d\n", argv[a], n);
  }
  if (!rc) {
    pq_buf out;
    pq_buf_init(&out);
    pq_buf_append(&out, buf, o.data_end);
    pq_buf_append(&out, o.extra.data, o.extra.len);
    size_t start = out.len;
    wr_value(&out, &footer);
    uint8_t tail[8];
    pq_store32(tail, (uint32_t)(out.len - start));
    memcpy(tail + 4, "PAR1", 4);
    pq_buf_append(&out, tail, 8);
    FILE *w = fopen(argv[2], "wb");
    if (!w || out.oom || fwrite(out.data, 1, out.len, w) != out.len ||
        fclose(w) != 0) {
      fprintf(stderr, "mutate: cannot write %s\n", argv[2]);
      rc = 1;
    }
    pq_buf_free(&out);
  }
done:
  tv_free(&footer);
  pq_buf_free(&o.extra);
  for (size_t i = 0; i < n_owned; i++) free(owned[i]);
  free(owned);
  pq_file_free(f);
  free(buf);
  return rc;
}
