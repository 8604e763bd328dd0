/*
** table_values.c -- a row's values into the table writer's batches
** (table.c): each converted to its column's type, a column typed by its
** values taking values of that kind only, a column of a type given any
** value the type takes without loss (values.c has the conversions of
** text); a nested column's JSON text shredded into its leaves
** (nested.c).  A value that does not fit says so with its column, its
** row and the value as SQL would quote it.
*/
#define _POSIX_C_SOURCE 200809L /* strnlen */
#include <stdio.h>
#include <string.h>

#include "writer.h"

/* ---- A value's text ------------------------------------------------------------ */

void pq_real_sql_text(pq_buf *b, double d) {
  char s[64];
  if (d != d) {
    snprintf(s, sizeof s, "nan");
  } else if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308) {
    snprintf(s, sizeof s, "%s", d < 0 ? "-Inf" : "Inf");
  } else {
    snprintf(s, sizeof s, "%.15g", d == 0 ? 0.0 : d); /* -0.0: 0.0 */
    if (!strchr(s, '.')) {
      char *e = strchr(s, 'e');
      if (e) {
        char tail[32];
        snprintf(tail, sizeof tail, "%s", e);
        snprintf(e, sizeof s - (size_t)(e - s), ".0%s", tail);
      } else {
        strcat(s, ".0");
      }
    }
  }
  pq_buf_append(b, s, strlen(s));
}

/* A number as SQL gives it as text (a REAL as SQLite's "%!.15g"; NaN,
** which SQL has not, as nothing). */
static void tv_number_text(pq_buf *b, const pq_dvalue *v) {
  if (v->kind == PQ_DV_INT) {
    char s[32];
    snprintf(s, sizeof s, "%lld", (long long)v->i);
    pq_buf_append(b, s, strlen(s));
  } else if (v->d == v->d) {
    pq_real_sql_text(b, v->d);
  }
}

/* A value's bytes as text or blob: its own, or a number's text (in
** tw->text).  PQ_NOMEM or PQ_OK. */
static int tv_bytes(pq_table_writer *tw, const pq_dvalue *v, const uint8_t **p,
                    size_t *n) {
  if (v->kind == PQ_DV_TEXT || v->kind == PQ_DV_BLOB) {
    *p = v->n ? v->p : (const uint8_t *)"";
    *n = v->n;
    return PQ_OK;
  }
  tw->text.len = 0;
  tv_number_text(&tw->text, v);
  pq_buf_byte(&tw->text, 0);
  if (tw->text.oom) return PQ_NOMEM;
  *p = tw->text.data;
  *n = tw->text.len - 1;
  return PQ_OK;
}

/* A value, quoted as SQL would, at most about 60 characters, into q. */
static void tv_quoted(const pq_dvalue *v, pq_buf *q) {
  static const char hex[] = "0123456789ABCDEF";
  if (v->kind == PQ_DV_BLOB) {
    const uint8_t *b = v->p;
    pq_buf_append(q, "X'", 2);
    for (size_t i = 0; i < v->n && i < 24; i++) {
      pq_buf_byte(q, (uint8_t)hex[b[i] >> 4]);
      pq_buf_byte(q, (uint8_t)hex[b[i] & 15]);
    }
    pq_buf_append(q, v->n > 24 ? "...'" : "'", v->n > 24 ? 4 : 1);
  } else if (v->kind == PQ_DV_INT || v->kind == PQ_DV_DOUBLE) {
    tv_number_text(q, v);
  } else if (v->kind == PQ_DV_TEXT) {
    const char *s = v->p;
    size_t n = strnlen(s, v->n);
    pq_buf_byte(q, '\'');
    for (size_t i = 0; i < n; i++) {
      if (s[i] == '\'') pq_buf_byte(q, '\'');
      pq_buf_byte(q, (uint8_t)s[i]);
    }
    pq_buf_byte(q, '\'');
    if (q->len > 64) {
      q->len = 60;
      pq_buf_append(q, "...'", 4);
    }
  }
  pq_buf_byte(q, 0);
}

static const char *const tv_class_names[] = {"NULL", "INTEGER", "REAL", "TEXT",
                                             "BLOB"};

/* "column 'c', row N: <class> <value> <what> a <type> column..." */
static int tv_value_error(pq_table_writer *tw, int col, const pq_dvalue *v,
                          const char *what) {
  char tn[64];
  pq_buf q;
  pq_buf_init(&q);
  tv_quoted(v, &q);
  if (q.oom) {
    pq_buf_free(&q);
    return PQ_NOMEM;
  }
  tw_col *c = &tw->cols[col];
  const char *k = pq_write_type_name(&c->t, tn, sizeof tn);
  int rc = pq_tbl_fail(
      tw, PQ_MISUSE, "column '%s', row %lld: %s %s %s %s %s column%s", c->name,
      (long long)(tw->rows + (int64_t)c->b.nrows + 1), tv_class_names[v->kind],
      (const char *)q.data, what, strchr("AEIOU", k[0]) ? "an" : "a", k,
      c->explicit_type ? "" : " (a \"type\" in the options converts)");
  pq_buf_free(&q);
  return rc;
}

/* A conversion's fault ("": <what>, as the label was empty), as
** "column 'c', row N: <what>". */
static int tv_conv_error(pq_table_writer *tw, int col, const pq_error *err) {
  if (err->code == PQ_NOMEM) return PQ_NOMEM;
  return pq_tbl_fail(tw, PQ_MISUSE, "column '%s', row %lld%s", tw->cols[col].name,
                    (long long)(tw->rows + (int64_t)tw->cols[col].b.nrows + 1),
                    err->msg);
}

static int tv_heap_add(tw_col *c, const void *p, size_t n) {
  pq_buf_append(&c->b.heap, p, n);
  return c->b.heap.oom ? PQ_NOMEM : PQ_OK;
}

/* ---- Values into the batch ---------------------------------------------------- */

/* Appends value v of column col to its batch, converted to its type: the
** kind the column was typed by, or (a type given) any value the type
** takes without loss. */
int pq_tbl_put_value(pq_table_writer *tw, int col, const pq_dvalue *v) {
  tw_col *c = &tw->cols[col];
  int vt = v->kind;
  size_t at = c->b.nrows;
  if (vt == PQ_DV_NULL) {
    c->b.present[at] = 0;
    c->b.nrows++;
    return PQ_OK;
  }
  c->b.present[at] = 1;
  uint8_t *slot = c->b.values + c->b.nvalues * c->vsize;
  int strict = !c->explicit_type;
  pq_error err; /* set by a conversion that fails (zeroing it per value cost
                ** a tenth of the time) */
  err.code = 0;
  /* The conversions' messages take their place (column, row) from
  ** tv_conv_error, only when one fails. */
  const char *label = "";
  const char *s = v->p;
  double dv = vt == PQ_DV_INT ? (double)v->i : v->d;
  switch (c->t.kind) {
    case PQ_WT_BOOLEAN:
      if (vt != PQ_DV_INT) return tv_value_error(tw, col, v, "in");
      slot[0] = v->i != 0;
      break;
    case PQ_WT_INT32:
    case PQ_WT_INT64: {
      int64_t x;
      if (vt == PQ_DV_INT) {
        x = v->i;
      } else if (vt == PQ_DV_DOUBLE && !strict) {
        double d = v->d;
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) ||
            (double)(int64_t)d != d)
          return tv_value_error(tw, col, v, "is not an integer for");
        x = (int64_t)d;
      } else {
        return tv_value_error(tw, col, v, "in");
      }
      if (c->t.kind == PQ_WT_INT32) {
        if (x < INT32_MIN || x > INT32_MAX)
          return tv_value_error(tw, col, v, "is out of range for");
        int32_t y = (int32_t)x;
        memcpy(slot, &y, 4);
      } else {
        memcpy(slot, &x, 8);
      }
      break;
    }
    case PQ_WT_FLOAT:
    case PQ_WT_DOUBLE: {
      /* A `type`'s column takes a BLOB of the value's own bytes (little
      ** endian, as parquet_encode does): NaNs, which SQL has not. */
      size_t width = c->t.kind == PQ_WT_FLOAT ? 4 : 8;
      if (vt == PQ_DV_BLOB && !strict && v->n == width) {
        memcpy(slot, v->p, width);
        break;
      }
      if (vt != PQ_DV_DOUBLE && !(vt == PQ_DV_INT && !strict))
        return tv_value_error(tw, col, v, "in");
      if (c->t.kind == PQ_WT_FLOAT) {
        float f = (float)dv;
        memcpy(slot, &f, 4);
      } else {
        memcpy(slot, &dv, 8);
      }
      break;
    }
    case PQ_WT_STRING:
    case PQ_WT_JSON:
    case PQ_WT_BINARY: {
      int want = c->t.kind == PQ_WT_BINARY ? PQ_DV_BLOB : PQ_DV_TEXT;
      if (vt != want && (strict || (c->t.kind != PQ_WT_BINARY && vt == PQ_DV_BLOB)))
        return tv_value_error(tw, col, v, "in");
      /* (a value of another kind is converted) */
      const uint8_t *b;
      size_t n;
      if (tv_bytes(tw, v, &b, &n)) return PQ_NOMEM;
      pq_bytes pb = {NULL, n};
      /* The pointer is made when the batch goes: the heap may move. */
      pb.ptr = (const uint8_t *)(uintptr_t)c->b.heap.len;
      if (n && tv_heap_add(c, b, n)) return PQ_NOMEM;
      memcpy(slot, &pb, sizeof pb);
      break;
    }
    case PQ_WT_FIXED: {
      if (vt != PQ_DV_BLOB && (strict || vt != PQ_DV_TEXT))
        return tv_value_error(tw, col, v, "in");
      if (v->n != (size_t)c->t.length)
        return tv_value_error(tw, col, v, "is not of the length of");
      size_t off = c->b.heap.len;
      if (tv_heap_add(c, v->n ? v->p : "", v->n)) return PQ_NOMEM;
      memcpy(slot, &off, sizeof off);
      break;
    }
    case PQ_WT_DATE: {
      int32_t days;
      if (vt == PQ_DV_TEXT) {
        if (pq_date_from_text(s, v->n, &days, label, &err))
          return tv_conv_error(tw, col, &err);
      } else if (vt == PQ_DV_INT && !strict) {
        if (v->i < INT32_MIN || v->i > INT32_MAX)
          return tv_value_error(tw, col, v, "is out of range for");
        days = (int32_t)v->i;
      } else {
        return tv_value_error(tw, col, v, "in");
      }
      memcpy(slot, &days, 4);
      break;
    }
    case PQ_WT_TIME:
    case PQ_WT_TIMESTAMP: {
      int64_t x;
      if (vt == PQ_DV_TEXT) {
        int rc = c->t.kind == PQ_WT_TIME
                     ? pq_time_from_text(s, v->n, c->t.unit, &x, label, &err)
                     : pq_timestamp_from_text(s, v->n, c->t.unit, &x, label,
                                              &err);
        if (rc) return tv_conv_error(tw, col, &err);
      } else if (vt == PQ_DV_INT && !strict) {
        x = v->i; /* units since midnight or the epoch */
      } else {
        return tv_value_error(tw, col, v, "in");
      }
      if (c->t.kind == PQ_WT_TIME) { /* a time of day */
        int64_t day = 86400LL * (c->t.unit == PQ_UNIT_MILLIS   ? 1000
                                 : c->t.unit == PQ_UNIT_MICROS ? 1000000
                                                               : 1000000000);
        if (x < 0 || x >= day)
          return tv_value_error(tw, col, v, "is out of range for");
      }
      if (c->p.type == PQ_INT32) {
        int32_t y = (int32_t)x;
        memcpy(slot, &y, 4);
      } else {
        memcpy(slot, &x, 8);
      }
      break;
    }
    case PQ_WT_DECIMAL: {
      pq_decimal_spec d = {c->p.type, c->p.type_length, c->t.precision,
                           c->t.scale};
      uint8_t out[16];
      size_t len;
      int rc;
      if (vt == PQ_DV_TEXT) {
        rc = pq_decimal_from_text(&d, s, v->n, out, &len, label, &err);
      } else if (vt == PQ_DV_INT) {
        rc = pq_decimal_from_int64(&d, v->i, out, &len, label, &err);
      } else if (vt == PQ_DV_DOUBLE) {
        rc = pq_decimal_from_double(&d, v->d, out, &len, label, &err);
      } else {
        return tv_value_error(tw, col, v, "in");
      }
      if (rc) return tv_conv_error(tw, col, &err);
      if (c->p.type == PQ_FIXED_LEN_BYTE_ARRAY) {
        size_t off = c->b.heap.len;
        if (tv_heap_add(c, out, len)) return PQ_NOMEM;
        memcpy(slot, &off, sizeof off);
      } else {
        memcpy(slot, out, len);
      }
      break;
    }
    case PQ_WT_UUID: {
      uint8_t u[16];
      if (vt == PQ_DV_TEXT) {
        if (pq_uuid_from_text(s, v->n, u, label, &err))
          return tv_conv_error(tw, col, &err);
      } else if (vt == PQ_DV_BLOB && v->n == 16) {
        memcpy(u, v->p, 16);
      } else {
        return tv_value_error(tw, col, v, "in");
      }
      size_t off = c->b.heap.len;
      if (tv_heap_add(c, u, 16)) return PQ_NOMEM;
      memcpy(slot, &off, sizeof off);
      break;
    }
    case PQ_WT_INT96: {
      uint8_t b[12];
      if (vt == PQ_DV_TEXT) {
        if (pq_int96_from_text(s, v->n, b, label, &err))
          return tv_conv_error(tw, col, &err);
      } else if (vt == PQ_DV_BLOB && v->n == 12) {
        memcpy(b, v->p, 12);
      } else {
        return tv_value_error(tw, col, v, "in");
      }
      memcpy(slot, b, 12);
      break;
    }
    case PQ_WT_GEOMETRY:
    case PQ_WT_GEOGRAPHY: { /* a BLOB of WKB, checked here to name its row */
      if (vt != PQ_DV_BLOB) return tv_value_error(tw, col, v, "in");
      const uint8_t *b = v->n ? v->p : (const uint8_t *)"";
      size_t n = v->n;
      pq_geo_acc g;
      pq_geo_acc_init(&g);
      if (pq_wkb_add(&g, b, n, label, &err)) return tv_conv_error(tw, col, &err);
      pq_bytes pb = {(const uint8_t *)(uintptr_t)c->b.heap.len, n};
      if (n && tv_heap_add(c, b, n)) return PQ_NOMEM;
      memcpy(slot, &pb, sizeof pb);
      break;
    }
    default:
      return tv_value_error(tw, col, v, "in");
  }
  c->b.nvalues++;
  c->b.nrows++;
  return PQ_OK;
}

/* A nested column's value of the row (JSON text or NULL) into its leaves. */
int pq_tbl_put_nested(pq_table_writer *tw, int col, const pq_dvalue *v) {
  tw_col *c = &tw->cols[col];
  long long row = (long long)(tw->rows + (int64_t)tw->batch_rows + 1);
  if (v->kind != PQ_DV_NULL && v->kind != PQ_DV_TEXT)
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "column '%s', row %lld: %s where JSON text belongs",
                      c->name, row,
                      v->kind == PQ_DV_INT      ? "an INTEGER"
                      : v->kind == PQ_DV_DOUBLE ? "a REAL"
                                                : "a BLOB");
  const char *text = v->kind == PQ_DV_TEXT ? (v->n ? v->p : "") : NULL;
  pq_buf m;
  pq_buf_init(&m);
  int rc = pq_nested_put(c->tree, text, text ? v->n : 0, &m);
  pq_buf_byte(&m, 0);
  if (rc == PQ_NOMEM || (rc && m.oom)) rc = PQ_NOMEM;
  else if (rc)
    rc = pq_tbl_fail(tw, PQ_MISUSE, "column '%s', row %lld: %s", c->name, row,
                    (const char *)m.data);
  pq_buf_free(&m);
  return rc;
}

