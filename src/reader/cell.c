/*
** cell.c -- values as SQL sees them: each leaf's values by its logical
** type (doc/values.md), and SQL's order of the results.
**
**   INT32 DATE 19783          -> TEXT '2024-03-01'
**   INT64 TIMESTAMP(MICROS)   -> TEXT '2024-03-01 12:00:00.250000'
**   INT64 DECIMAL(10,2) 12345 -> REAL 123.45
**   INT64 UINT_64 2^63        -> TEXT '9223372036854775808'
**
** Dates and times are text that SQLite's date functions read; text of a
** fixed shape, so that it sorts as the values do (years 0 to 9999; times
** of day from 00:00:00 to 23:59:59.999...).  A TIME outside a day (a
** negative one, or of 24 hours or more) is a signed duration, such as
** '-03:51:39.961' or '26:00:00', that reads right but does not sort.
*/
#include "reader.h"

#include <math.h>
#include <stdio.h>

/* ---- What a leaf's values mean ---------------------------------------------- */

int pq_leaf_meaning(const pq_schema_element *e, int *scale, int *precision,
                    int *unit) {
  int conv = e->converted_type, lt = e->logical_type;
  pq_type t = e->type;
  *scale = *precision = *unit = 0;
  if (conv == 5 || lt == 5) {
    *scale = lt == 5 ? e->logical_scale : e->scale < 0 ? 0 : e->scale;
    *precision = lt == 5 ? e->logical_precision : e->precision;
    if (*scale >= 0 && *scale < 40 &&
        (t == PQ_INT32 || t == PQ_INT64 || t == PQ_BYTE_ARRAY ||
         (t == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length > 0)))
      return PQ_AS_DECIMAL;
  }
  if (t == PQ_INT32 && (conv == 6 || lt == 6)) return PQ_AS_DATE;
  int u = lt == 8 ? e->logical_unit : conv == 9 ? 1 : conv == 10 ? 2 : 0;
  if (t == PQ_INT64 && u >= 1 && u <= 3) {
    *unit = u;
    return PQ_AS_TIMESTAMP;
  }
  u = lt == 7 ? e->logical_unit : conv == 7 ? 1 : conv == 8 ? 2 : 0;
  if ((t == PQ_INT32 || t == PQ_INT64) && u >= 1 && u <= 3) {
    *unit = u;
    return PQ_AS_TIME;
  }
  if (t == PQ_INT96) return PQ_AS_INT96;
  if ((t == PQ_INT32 || t == PQ_INT64) &&
      ((conv >= 11 && conv <= 14) || (lt == 10 && !e->logical_signed)))
    return PQ_AS_UNSIGNED;
  if (t == PQ_FIXED_LEN_BYTE_ARRAY && lt == 15 && e->type_length == 2)
    return PQ_AS_FLOAT16;
  if (t == PQ_FIXED_LEN_BYTE_ARRAY && lt == 14 && e->type_length == 16)
    return PQ_AS_UUID;
  if (t == PQ_FIXED_LEN_BYTE_ARRAY && conv == 21 && e->type_length == 12)
    return PQ_AS_INTERVAL;
  if (t == PQ_BYTE_ARRAY &&
      (conv == 0 || conv == 4 || conv == 19 || lt == 1 || lt == 4 || lt == 12))
    return PQ_AS_STRING;
  if (t == PQ_BYTE_ARRAY && (lt == 17 || lt == 18)) return PQ_AS_WKB;
  return PQ_AS_PLAIN;
}

void pq_field_describe(const pq_schema_node *field, int binary_as_string,
                       pq_field_info *out) {
  const pq_schema_element *e = field->elem;
  memset(out, 0, sizeof *out);
  if (field->leaf < 0 || e->repetition == 2) {
    out->decl = "JSON TEXT";
    out->kind = PQ_CELL_TEXT;
    out->nested = 1;
    return;
  }
  int scale, precision, unit;
  switch (pq_leaf_meaning(e, &scale, &precision, &unit)) {
    case PQ_AS_DECIMAL:
      if (precision > 0 && precision <= 15) {
        out->decl = "REAL";
        out->kind = PQ_CELL_REAL;
      } else {
        out->decl = "TEXT";
        out->kind = PQ_CELL_TEXT;
        out->order = PQ_ORDER_DECIMAL;
      }
      out->ordered = 1;
      return;
    case PQ_AS_DATE:
    case PQ_AS_TIME:
    case PQ_AS_TIMESTAMP:
      out->decl = "TEXT";
      out->kind = PQ_CELL_TEXT;
      out->ordered = 1;
      out->order = PQ_ORDER_INSTANT;
      return;
    case PQ_AS_INT96: /* (its statistics have no defined order) */
    case PQ_AS_INTERVAL:
      out->decl = "TEXT";
      out->kind = PQ_CELL_TEXT;
      out->order = PQ_ORDER_INSTANT;
      return;
    case PQ_AS_UUID:
    case PQ_AS_STRING:
      out->decl = "TEXT";
      out->kind = PQ_CELL_TEXT;
      out->ordered = 1;
      return;
    case PQ_AS_FLOAT16:
      out->decl = "REAL";
      out->kind = PQ_CELL_REAL;
      return;
    case PQ_AS_WKB: /* its min and max, if any, are to be ignored */
      out->decl = "BLOB";
      out->kind = PQ_CELL_BLOB;
      return;
    default:
      break;
  }
  out->ordered = 1;
  switch (e->type) {
    case PQ_FLOAT:
    case PQ_DOUBLE:
      out->decl = "REAL";
      out->kind = PQ_CELL_REAL;
      return;
    case PQ_BYTE_ARRAY:
    case PQ_FIXED_LEN_BYTE_ARRAY:
      out->decl = binary_as_string ? "TEXT" : "BLOB";
      out->kind = binary_as_string ? PQ_CELL_TEXT : PQ_CELL_BLOB;
      return;
    default:
      out->decl = "INTEGER";
      out->kind = PQ_CELL_INT;
  }
}

/* ---- The type parquet_write gives a field ---------------------------------- */

static const char *const cell_units[] = {"", "ms", "us", "ns"};

/* A leaf's scalar type, or "" (the declared type's own), or NULL (none). */
static const char *cell_leaf_type(const pq_schema_element *e,
                                  int binary_as_string, char *buf,
                                  size_t cap) {
  int scale, precision, unit;
  int m = pq_leaf_meaning(e, &scale, &precision, &unit);
  switch (m) {
    case PQ_AS_DECIMAL:
      if (precision < 1 || precision > 38 || scale > precision) return NULL;
      snprintf(buf, cap, "DECIMAL(%d, %d)", precision, scale);
      return buf;
    case PQ_AS_DATE: return "DATE";
    case PQ_AS_TIME:
    case PQ_AS_TIMESTAMP: /* a converted type is adjusted to UTC */
      snprintf(buf, cap, "%s(%s%s)", m == PQ_AS_TIME ? "TIME" : "TIMESTAMP",
               cell_units[unit],
               e->logical_type == 0 || e->logical_utc ? ", utc" : "");
      return buf;
    case PQ_AS_INT96: return "TIMESTAMP(ns)"; /* INT96 would be INTEGER */
    case PQ_AS_UUID: return "UUID";
    case PQ_AS_FLOAT16: return "FLOAT";
    case PQ_AS_INTERVAL: return NULL;
    case PQ_AS_UNSIGNED: /* the next wider signed type */
      return e->type == PQ_INT32 && e->logical_type == 10 &&
                     e->logical_bit_width < 32
                 ? "INT32"
             : e->type == PQ_INT32 && e->converted_type >= 11 &&
                     e->converted_type <= 12
                 ? "INT32"
                 : "";
    case PQ_AS_STRING:
      return e->logical_type == 12 || e->converted_type == 19 ? "JSON" : "";
    default:
      break;
  }
  switch (e->type) {
    case PQ_BOOLEAN: return "BOOLEAN";
    case PQ_INT32: return "INT32";
    case PQ_FLOAT: return "FLOAT";
    case PQ_FIXED_LEN_BYTE_ARRAY:
      if (binary_as_string) return "";
      snprintf(buf, cap, "FIXED_LEN_BYTE_ARRAY(%d)", (int)e->type_length);
      return buf;
    default: return ""; /* INT64, DOUBLE, BYTE_ARRAY, INT96 (above) */
  }
}

/* A name of a STRUCT's field: a word as it is, else in double quotes
** (0: it holds a double quote, which the writer's types cannot spell). */
static int cell_put_name(pq_buf *out, const pq_bytes *n) {
  int word = n->len > 0;
  for (size_t i = 0; i < n->len; i++) {
    uint8_t c = n->ptr[i];
    if (c == '"') return 0;
    if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9')))
      word = 0;
  }
  if (!n->len) return 0;
  if (!word) pq_buf_byte(out, '"');
  pq_buf_append(out, n->ptr, n->len);
  if (!word) pq_buf_byte(out, '"');
  pq_buf_byte(out, ' ');
  return 1;
}

/* The repeated child of a LIST or MAP's group, and what it holds: the
** spec's three-level forms only (1: ok). */
static int cell_type_of(const pq_schema_node *f, int bas, pq_buf *out,
                        int depth, int top);

static int cell_type_list(const pq_schema_node *f, int bas, pq_buf *out,
                          int depth) {
  if (f->n_children != 1) return 0;
  const pq_schema_node *rep = f->children[0];
  if (rep->elem->repetition != 2 || rep->leaf >= 0 || rep->n_children != 1)
    return 0;
  pq_buf_append(out, "LIST<", 5);
  if (!cell_type_of(rep->children[0], bas, out, depth + 1, 0)) return 0;
  pq_buf_byte(out, '>');
  return 1;
}

static int cell_type_map(const pq_schema_node *f, int bas, pq_buf *out,
                         int depth) {
  if (f->n_children != 1) return 0;
  const pq_schema_node *rep = f->children[0];
  if (rep->elem->repetition != 2 || rep->leaf >= 0 || rep->n_children != 2 ||
      rep->children[0]->leaf < 0)
    return 0;
  pq_buf_append(out, "MAP<", 4);
  if (!cell_type_of(rep->children[0], bas, out, depth + 1, 0)) return 0;
  pq_buf_append(out, ", ", 2);
  if (!cell_type_of(rep->children[1], bas, out, depth + 1, 0)) return 0;
  pq_buf_byte(out, '>');
  return 1;
}

/* GEOMETRY(crs), GEOGRAPHY(crs, algorithm): what the file says, the
** algorithm's name alone when it has no crs. */
#define PQ_CRS_DECL_MAX 8192
static int cell_type_geo(const pq_schema_element *e, pq_buf *out) {
  static const char *const algs[] = {"spherical", "vincenty", "thomas",
                                     "andoyer", "karney"};
  int geog = e->logical_type == 18;
  int alg = geog ? e->logical_algorithm : -1;
  if (alg > 4 || alg < -1) return 0; /* one the writer does not know */
  /* a crs past what a table saves of a declared type: no type */
  if (e->has_logical_crs && e->logical_crs.len > PQ_CRS_DECL_MAX) return 0;
  pq_buf_append(out, geog ? "GEOGRAPHY" : "GEOMETRY", geog ? 9 : 8);
  if (!e->has_logical_crs && alg < 0) return 1;
  pq_buf_byte(out, '(');
  if (e->has_logical_crs) pq_buf_append(out, e->logical_crs.ptr, e->logical_crs.len);
  if (e->has_logical_crs && alg >= 0) pq_buf_append(out, ", ", 2);
  if (alg >= 0) pq_buf_append(out, algs[alg], strlen(algs[alg]));
  pq_buf_byte(out, ')');
  return 1;
}

/* 1 when each field of FILE group f is one of spec/LogicalTypes.md's, of
** its type: a group parquet_write's FILE writes with nothing lost. */
static int cell_file_fields(const pq_schema_node *f) {
  static const char *const names[] = {"uri", "offset", "size",
                                      "content_type", "checksum", "inline"};
  for (uint32_t i = 0; i < f->n_children; i++) {
    const pq_schema_node *c = f->children[i];
    const pq_schema_element *e = c->elem;
    int k = 0;
    while (k < 6 && (strlen(names[k]) != e->name.len ||
                     memcmp(names[k], e->name.ptr, e->name.len)))
      k++;
    if (k == 6 || c->leaf < 0 || e->repetition == 2) return 0;
    if (e->type != (k == 1 || k == 2 ? PQ_INT64 : PQ_BYTE_ARRAY)) return 0;
  }
  return 1;
}

static int cell_type_of(const pq_schema_node *f, int bas, pq_buf *out,
                        int depth, int top) {
  const pq_schema_element *e = f->elem;
  if (depth > 32 || e->repetition == 2) return 0; /* a bare repeated field */
  if (f->leaf >= 0 && e->type == PQ_BYTE_ARRAY &&
      (e->logical_type == 17 || e->logical_type == 18))
    return top && cell_type_geo(e, out); /* (the writer's are top-level) */
  if (f->leaf >= 0) {
    char buf[64];
    const char *t = cell_leaf_type(e, bas, buf, sizeof buf);
    if (!t) return 0;
    if (!*t) { /* what the declared type would have said */
      pq_field_info i;
      pq_field_describe(f, bas, &i);
      t = i.kind == PQ_CELL_INT    ? "INT64"
          : i.kind == PQ_CELL_REAL ? "DOUBLE"
          : i.kind == PQ_CELL_TEXT ? "STRING"
                                   : "BINARY";
      if (top) return 1;
    }
    pq_buf_append(out, t, strlen(t));
    return 1;
  }
  if (e->logical_type == 3 || e->converted_type == 3)
    return cell_type_list(f, bas, out, depth);
  if (e->logical_type == 2 || e->converted_type == 1 || e->converted_type == 2)
    return cell_type_map(f, bas, out, depth);
  if (e->logical_type == 16) { /* parquet_write writes VARIANT at the top */
    if (!top) return 0;
    pq_buf_append(out, "VARIANT", 7);
    return 1;
  }
  if (e->logical_type == 19 && top && cell_file_fields(f)) {
    pq_buf_append(out, "FILE", 4); /* parquet_write's FILE holds them all */
    return 1;
  }
  if ((e->logical_type != 0 && e->logical_type != 19) ||
      e->converted_type >= 0 || !f->n_children)
    return 0; /* another annotated group (FILE inside: its STRUCT) */
  pq_buf_append(out, "STRUCT<", 7);
  for (uint32_t i = 0; i < f->n_children; i++) {
    if (i) pq_buf_append(out, ", ", 2);
    if (!cell_put_name(out, &f->children[i]->elem->name) ||
        !cell_type_of(f->children[i], bas, out, depth + 1, 0))
      return 0;
  }
  pq_buf_byte(out, '>');
  return 1;
}

int pq_field_type(const pq_schema_node *field, int binary_as_string,
                  pq_buf *out) {
  size_t at = out->len;
  if (!cell_type_of(field, binary_as_string, out, 0, 1)) out->len = at;
  return out->oom ? PQ_NOMEM : PQ_OK;
}

/* ---- Cells -------------------------------------------------------------- */

static void cell_text(pq_cell *c, const char *s, size_t n) {
  c->kind = PQ_CELL_TEXT;
  c->p = (const uint8_t *)s;
  c->n = n;
}

/* A real: NaN is NULL, as SQL has no NaN (SQLite makes a NaN result
** NULL).  So the cell that a table checks its constraints on is the value
** SQL sees: a NaN IS NULL, and fails every comparison. */
static void cell_real(pq_cell *c, double r) {
  if (r != r) {
    c->kind = PQ_CELL_NULL;
    return;
  }
  c->kind = PQ_CELL_REAL;
  c->r = r;
}

double pq_decimal_divisor(int scale) {
  static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                               1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
                               1e18, 1e19, 1e20, 1e21, 1e22};
  if (scale >= 0 && scale <= 22) return p10[scale];
  return pow(10, scale);
}

/* The decimal value of an unscaled integer of at most 15 digits. */
static double cell_scaled(int64_t unscaled, int scale) {
  return (double)unscaled / pq_decimal_divisor(scale);
}

/* A big-endian two's complement integer of n <= 8 bytes. */
static int64_t cell_be_int(const uint8_t *p, size_t n) {
  uint64_t u = n && (p[0] & 0x80) ? ~(uint64_t)0 : 0;
  for (size_t i = 0; i < n; i++) u = u << 8 | p[i];
  return (int64_t)u;
}

static void cell_decimal(const pq_schema_element *e, int scale, int precision,
                         const void *v, char *scratch, pq_cell *out) {
  const uint8_t *p;
  size_t n;
  if (e->type == PQ_INT32 || e->type == PQ_INT64) {
    int64_t x = e->type == PQ_INT32 ? *(const int32_t *)v
                                    : *(const int64_t *)v;
    if (precision > 0 && precision <= 15) {
      out->kind = PQ_CELL_REAL;
      out->r = cell_scaled(x, scale);
      return;
    }
    cell_text(out, scratch,
              pq_text_decimal64(scratch, PQ_CELL_SCRATCH, x, scale));
    return;
  } else if (e->type == PQ_FIXED_LEN_BYTE_ARRAY) {
    p = v;
    n = (size_t)e->type_length;
  } else {
    const pq_bytes *b = v;
    p = b->ptr;
    n = b->len;
  }
  if (precision > 0 && precision <= 15) { /* it fits in the last 8 bytes */
    if (!pq_decimal_fits_text(p, n)) goto blob;
    if (n > 8) {
      p += n - 8;
      n = 8;
    }
    out->kind = PQ_CELL_REAL;
    out->r = cell_scaled(cell_be_int(p, n), scale);
    return;
  }
  size_t k = pq_text_decimal_fit(scratch, PQ_CELL_SCRATCH, p, n, scale);
  if (k) {
    cell_text(out, scratch, k);
    return;
  }
blob: /* more digits than text holds here */
  out->kind = PQ_CELL_BLOB;
  out->p = p;
  out->n = n;
}

void pq_cell_from_value(const pq_schema_element *e, int binary_as_string,
                        const void *v, char *scratch, pq_cell *out) {
  pq_meaning m = pq_meaning_of(e);
  pq_cell_convert(e, &m, binary_as_string, v, scratch, out);
}

void pq_cell_convert(const pq_schema_element *e, const pq_meaning *m,
                     int binary_as_string, const void *v, char *scratch,
                     pq_cell *out) {
  int scale = m->scale, precision = m->precision, unit = m->unit;
  out->n = 0;
  out->p = NULL;
  switch (m->as) {
    case PQ_AS_DECIMAL:
      cell_decimal(e, scale, precision, v, scratch, out);
      return;
    case PQ_AS_DATE:
      cell_text(out, scratch,
                pq_text_date(scratch, PQ_CELL_SCRATCH, *(const int32_t *)v));
      return;
    case PQ_AS_TIMESTAMP:
      cell_text(out, scratch, pq_text_timestamp(scratch, PQ_CELL_SCRATCH,
                                                *(const int64_t *)v, unit));
      return;
    case PQ_AS_TIME: {
      int64_t x = e->type == PQ_INT32 ? *(const int32_t *)v
                                      : *(const int64_t *)v;
      int64_t per = unit == 1 ? 1000 : unit == 2 ? 1000000 : 1000000000;
      cell_text(out, scratch,
                pq_text_time(scratch, PQ_CELL_SCRATCH, x, per,
                             unit == 1 ? 3 : unit == 2 ? 6 : 9));
      return;
    }
    case PQ_AS_INT96:
      cell_text(out, scratch, pq_text_int96(scratch, PQ_CELL_SCRATCH, v));
      return;
    case PQ_AS_UNSIGNED:
      out->kind = PQ_CELL_INT;
      if (e->type == PQ_INT32) {
        out->i = (int64_t)(uint32_t) * (const int32_t *)v;
      } else {
        uint64_t u = (uint64_t) * (const int64_t *)v;
        if (u > (uint64_t)INT64_MAX) {
          int k = snprintf(scratch, PQ_CELL_SCRATCH, "%llu",
                           (unsigned long long)u);
          /* (20 digits at most: they fit) */
          cell_text(out, scratch, k > 0 ? (size_t)k : 0);
          return;
        }
        out->i = (int64_t)u;
      }
      return;
    case PQ_AS_FLOAT16: {
      const uint8_t *p = v;
      cell_real(out, pq_half_to_double((uint16_t)(p[0] | p[1] << 8)));
      return;
    }
    case PQ_AS_UUID:
      cell_text(out, scratch, pq_text_uuid(scratch, PQ_CELL_SCRATCH, v));
      return;
    case PQ_AS_INTERVAL:
      cell_text(out, scratch, pq_text_interval(scratch, PQ_CELL_SCRATCH, v));
      return;
    case PQ_AS_STRING: {
      const pq_bytes *b = v;
      out->kind = PQ_CELL_TEXT;
      out->p = b->ptr;
      out->n = b->len;
      return;
    }
    case PQ_AS_WKB: {
      const pq_bytes *b = v;
      out->kind = PQ_CELL_BLOB;
      out->p = b->ptr;
      out->n = b->len;
      return;
    }
    default:
      break;
  }
  switch (e->type) {
    case PQ_BOOLEAN:
      out->kind = PQ_CELL_INT;
      out->i = *(const uint8_t *)v;
      return;
    case PQ_INT32:
      out->kind = PQ_CELL_INT;
      out->i = *(const int32_t *)v;
      return;
    case PQ_INT64:
      out->kind = PQ_CELL_INT;
      out->i = *(const int64_t *)v;
      return;
    case PQ_FLOAT:
      cell_real(out, *(const float *)v);
      return;
    case PQ_DOUBLE:
      cell_real(out, *(const double *)v);
      return;
    case PQ_BYTE_ARRAY: {
      const pq_bytes *b = v;
      out->kind = binary_as_string ? PQ_CELL_TEXT : PQ_CELL_BLOB;
      out->p = b->ptr;
      out->n = b->len;
      return;
    }
    default: /* FIXED_LEN_BYTE_ARRAY (INT96 is a meaning of its own) */
      out->kind = binary_as_string ? PQ_CELL_TEXT : PQ_CELL_BLOB;
      out->p = v;
      out->n = (size_t)e->type_length;
  }
}

int pq_cell_from_plain(const pq_schema_element *e, int binary_as_string,
                       pq_bytes b, char *scratch, pq_cell *out) {
  union {
    uint8_t u8;
    int32_t i32;
    int64_t i64;
    float f;
    double d;
    uint8_t raw[16];
    pq_bytes bytes;
  } v;
  const void *p = &v;
  switch (e->type) {
    case PQ_BOOLEAN:
      if (b.len != 1) return 0;
      v.u8 = b.ptr[0] != 0;
      break;
    case PQ_INT32:
    case PQ_FLOAT:
      if (b.len != 4) return 0;
      memcpy(v.raw, b.ptr, 4);
      break;
    case PQ_INT64:
    case PQ_DOUBLE:
      if (b.len != 8) return 0;
      memcpy(v.raw, b.ptr, 8);
      break;
    case PQ_INT96:
      if (b.len != 12) return 0;
      memcpy(v.raw, b.ptr, 12);
      break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
      if (e->type_length < 0 || b.len != (size_t)e->type_length) return 0;
      p = b.ptr;
      break;
    default:
      v.bytes = b;
  }
  pq_cell_from_value(e, binary_as_string, p, scratch, out);
  return 1;
}

/* int64 against double, exactly. */
static int cell_cmp_int_real(int64_t i, double r) {
  if (r != r) return 1; /* NaN: SQL has none; NULL sorts first */
  if (r < -9223372036854775808.0) return 1;
  if (r >= 9223372036854775808.0) return -1;
  int64_t t = (int64_t)r;
  if (i != t) return i < t ? -1 : 1;
  double f = r - (double)t;
  return f > 0 ? -1 : f < 0 ? 1 : 0;
}

static int cell_class(int kind) {
  return kind == PQ_CELL_REAL ? PQ_CELL_INT : kind;
}

int pq_cell_compare(const pq_cell *a, const pq_cell *b) {
  int ca = cell_class(a->kind), cb = cell_class(b->kind);
  if (ca != cb) return ca < cb ? -1 : 1;
  if (ca == PQ_CELL_NULL) return 0;
  if (ca == PQ_CELL_INT) {
    if (a->kind == PQ_CELL_INT && b->kind == PQ_CELL_INT)
      return a->i < b->i ? -1 : a->i > b->i;
    if (a->kind == PQ_CELL_INT) return cell_cmp_int_real(a->i, b->r);
    if (b->kind == PQ_CELL_INT) return -cell_cmp_int_real(b->i, a->r);
    return a->r < b->r ? -1 : a->r > b->r;
  }
  size_t n = a->n < b->n ? a->n : b->n;
  int c = n ? memcmp(a->p, b->p, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return a->n < b->n ? -1 : a->n > b->n;
}

int pq_cell_compare_in(const pq_cell *a, const pq_cell *b, int order) {
  if (a->kind != PQ_CELL_TEXT || b->kind != PQ_CELL_TEXT ||
      order == PQ_ORDER_BYTES)
    return pq_cell_compare(a, b);
  const char *x = (const char *)a->p, *y = (const char *)b->p;
  return order == PQ_ORDER_INSTANT ? pq_instant_compare(x, a->n, y, b->n)
                                   : pq_decimal_compare(x, a->n, y, b->n);
}

/* ---- Statistics as DuckDB's parquet_metadata shows them ----------------- */

/* Drops a time's trailing fraction zeros (and the point with them). */
static size_t cell_trim_fraction(const char *s, size_t n) {
  const char *dot = memchr(s, '.', n);
  if (!dot) return n;
  while (n > (size_t)(dot - s) + 1 && s[n - 1] == '0') n--;
  if (n == (size_t)(dot - s) + 1) n--;
  return n;
}

int pq_stat_text(const pq_schema_element *e, pq_bytes b, pq_buf *out) {
  char s[PQ_CELL_SCRATCH];
  pq_cell c;
  int scale, precision, unit;
  int m = pq_leaf_meaning(e, &scale, &precision, &unit);
  if (!pq_cell_from_plain(e, 0, b, s, &c)) return 0;
  if (m == PQ_AS_DECIMAL) { /* all the scale's digits, as DuckDB's DECIMAL */
    uint8_t be[8];
    const uint8_t *p = b.ptr;
    size_t n = b.len;
    if (e->type == PQ_INT32 || e->type == PQ_INT64) {
      for (size_t i = 0; i < n; i++) be[i] = b.ptr[n - 1 - i];
      p = be;
    }
    if (!pq_decimal_fits_text(p, n)) return 0;
    pq_buf_append(out, s, pq_text_decimal(s, sizeof s, p, n, scale));
    return 1;
  }
  switch (c.kind) {
    case PQ_CELL_NULL: return 0; /* a NaN: below */
    case PQ_CELL_INT: {
      int k = e->type == PQ_BOOLEAN
                  ? snprintf(s, sizeof s, "%s", c.i ? "true" : "false")
                  : snprintf(s, sizeof s, "%lld", (long long)c.i);
      pq_buf_append(out, s, (size_t)k);
      return 1;
    }
    case PQ_CELL_REAL:
      if (e->type == PQ_FLOAT) { /* a float's own shortest digits */
        float f = (float)c.r;
        pq_json_values(out, PQ_FLOAT, 0, 0, &f, 1, 0);
      } else {
        pq_json_values(out, PQ_DOUBLE, 0, 0, &c.r, 1, 0);
      }
      return 1;
    case PQ_CELL_TEXT:
      if (m == PQ_AS_TIMESTAMP || m == PQ_AS_TIME || m == PQ_AS_INT96) {
        pq_buf_append(out, c.p, cell_trim_fraction((const char *)c.p, c.n));
        if ((m == PQ_AS_TIMESTAMP || m == PQ_AS_TIME) &&
            (e->logical_type == 7 || e->logical_type == 8) && e->logical_utc)
          pq_buf_append(out, "+00", 3);
        return 1;
      }
      pq_buf_append(out, c.p, c.n);
      return 1;
    default:
      return 0;
  }
}
