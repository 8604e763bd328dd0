/*
** write.c -- parquet_write(path, query [, options]): every column of a
** query's result as a Parquet file.
**
**   SELECT parquet_write('trips.parquet', 'SELECT * FROM trips',
**                        '{"codec":"ZSTD","columns":{"fare":{"type":"DECIMAL(9,2)"}}}');
**
** The query runs on the calling connection (as SQLite's ext/misc/eval.c
** runs SQL from a function).  Each result column becomes a leaf of the
** file: its Parquet type from the options, else from its declared type,
** else from its first non-NULL values (the first WRITE_LOOK rows are read
** ahead for that).  Rows go to the core writer (src/writer/writer.c) in
** batches of WRITE_BATCH; each closed row group goes to the file at once,
** so memory follows one row group, not the result.  The file is written
** under a temporary name beside `path` and renamed when complete: nothing
** half-written is ever at `path`.  With a NULL path the file is returned
** as a BLOB, bounded by parquet_max_alloc.  With "partition_by" or
** "file_size_bytes" the path is a folder of files ("The folder", below).
** Returns the rows written.
**
** What it must not do (doc/security.md): run when a database's schema
** calls it (access.c guards every call), write the database (the query
** must be read-only: SQLite's own read-only check of the calling statement
** must stay true of all it does), or write a file when file access is off.
** A file it writes is durable once it returns (fsync of the file, rename,
** fsync of the folder, unless "durable":false), has the mode a new file
** gets (0666 less the umask) or the one of the file it replaces, and
** replaces a symbolic link at `path` rather than writing through it.
*/
#define _GNU_SOURCE /* sched_getcpu, CPU affinity (Linux) */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifndef PARQUET_OMIT_FILES
#include <dirent.h>
#include <ftw.h>
#endif

#include "write.h"

#define ROW_FN "pqx_write_row"      /* the row function (w_wrap) */
#define ROW_PTR "parquet_write"     /* its first argument's pointer type */
#define ROW_MAX_COLS 100            /* a function's arguments, at most 127 */

/* ---- Types ------------------------------------------------------------- */

static int w_ieq(const char *a, const char *b, size_t n) {
  return sqlite3_strnicmp(a, b, (int)n) == 0 && strlen(b) == n;
}

/* The type that a declared type's quoted part names, as the parquet table
** declares its columns (`TEXT 'TIMESTAMP(us, utc)'`, `JSON TEXT
** 'LIST<INT32>'`): 1 with it in buf; 0 when there is none, or it names no
** type of the options; -1 out of memory. */
static int decl_type(const char *d, char *buf, size_t cap) {
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
  char *why = NULL;
  int nested = pqx_nested_parse(buf, &tree, &why);
  pq_nested_free(tree);
  if (nested < 0) {
    if (why == PQX_W_NOMEM) return -1;
    sqlite3_free(why);
    return 0;
  }
  pq_write_type t;
  return nested || pq_write_type_parse(buf, &t) == 0;
}

/* The type a declared type names, as doc/parquet_write.md lists them; 0
** when it names none (no declared type, NUMERIC, ...). */
static int decl_kind(const char *d, pq_write_type *t) {
  memset(t, 0, sizeof *t);
  if (!d) return 0;
  size_t n = strlen(d);
  if (w_ieq(d, "BOOLEAN", n) || w_ieq(d, "BOOL", n)) return t->kind = PQ_WT_BOOLEAN;
  if (w_ieq(d, "DATE", n)) return t->kind = PQ_WT_DATE;
  if (w_ieq(d, "DATETIME", n) || w_ieq(d, "TIMESTAMP", n)) {
    t->unit = PQ_UNIT_MICROS;
    return t->kind = PQ_WT_TIMESTAMP;
  }
  if (w_ieq(d, "TIMESTAMPTZ", n) || w_ieq(d, "TIMESTAMP WITH TIME ZONE", n)) {
    t->unit = PQ_UNIT_MICROS;
    t->utc = 1;
    return t->kind = PQ_WT_TIMESTAMP;
  }
  if (w_ieq(d, "UUID", n)) return t->kind = PQ_WT_UUID;
  if (w_ieq(d, "JSON", n)) return t->kind = PQ_WT_JSON;
  /* DECIMAL(p, s) and NUMERIC(p, s), as SQL declares them */
  if (sqlite3_strnicmp(d, "NUMERIC", 7) == 0 || sqlite3_strnicmp(d, "DECIMAL", 7) == 0) {
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

/* The type a value's storage class gives. */
static int value_kind(int vt) {
  switch (vt) {
    case SQLITE_INTEGER: return PQ_WT_INT64;
    case SQLITE_FLOAT: return PQ_WT_DOUBLE;
    case SQLITE_TEXT: return PQ_WT_STRING;
    case SQLITE_BLOB: return PQ_WT_BINARY;
    default: return PQ_WT_UNKNOWN;
  }
}

/* ---- Messages (write.h) ------------------------------------------------- */

char pqx_w_nomem[] = FN ": out of memory";

char *pqx_w_msg(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  return m ? m : PQX_W_NOMEM;
}

void pqx_w_free(char *m) {
  if (m != PQX_W_NOMEM) sqlite3_free(m);
}

char *pqx_w_core(int rc, const pq_error *err) {
  if (rc == PQ_NOMEM) return PQX_W_NOMEM;
  char *m = pqx_core_error(FN, rc, err);
  return m ? m : PQX_W_NOMEM;
}

char *pqx_w_sql(sqlite3 *db, int rc, const char *what) {
  if ((rc & 0xff) == SQLITE_NOMEM) return PQX_W_NOMEM;
  return pqx_w_msg(FN ": %s: %s", what, sqlite3_errmsg(db));
}

const char *pqx_w_text(sqlite3_stmt *st, int i, int *nomem) {
  if (sqlite3_column_type(st, i) == SQLITE_NULL) return NULL;
  const char *t = (const char *)sqlite3_column_text(st, i);
  if (!t) *nomem = 1;
  return t;
}

/* The result of a call that failed: msg's error, or SQLITE_NOMEM. */
static void w_result_error(sqlite3_context *ctx, char *msg) {
  if (msg == PQX_W_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
  }
}

/* A value, quoted as SQL would, at most about 60 characters; NULL when out
** of memory. */
static char *w_quoted(sqlite3_value *v) {
  int vt = sqlite3_value_type(v);
  if (vt == SQLITE_BLOB) {
    int n = sqlite3_value_bytes(v);
    const unsigned char *b = sqlite3_value_blob(v);
    if (n && !b) return NULL;
    sqlite3_str *s = sqlite3_str_new(NULL);
    sqlite3_str_appendall(s, "X'");
    for (int i = 0; i < n && i < 24; i++) sqlite3_str_appendf(s, "%02X", b[i]);
    sqlite3_str_appendall(s, n > 24 ? "...'" : "'");
    return sqlite3_str_finish(s);
  }
  if (vt == SQLITE_NULL) return sqlite3_mprintf("%s", "");
  const char *t = (const char *)sqlite3_value_text(v);
  if (!t) return NULL;
  if (vt != SQLITE_TEXT) return sqlite3_mprintf("%s", t);
  char *q = sqlite3_mprintf("%Q", t);
  if (q && strlen(q) > 64) {
    q[60] = 0;
    char *r = sqlite3_mprintf("%s...'", q);
    sqlite3_free(q);
    return r;
  }
  return q;
}

static const char *const class_names[] = {"?", "INTEGER", "REAL", "TEXT",
                                          "BLOB", "NULL"};

/* "parquet_write: column 'c', row N: <what>" */
static char *value_error(Writer *wr, int col, sqlite3_value *v,
                         const char *what) {
  char tn[64];
  char *q = w_quoted(v);
  if (!q) return PQX_W_NOMEM;
  const char *k = pq_write_type_name(&wr->cols[col].t, tn, sizeof tn);
  char *m = pqx_w_msg(
      FN ": column '%s', row %lld: %s %s %s %s %s column%s", wr->cols[col].name,
      (long long)(wr->rows + (int64_t)wr->cols[col].b.nrows + 1),
      class_names[sqlite3_value_type(v)], q, what,
      strchr("AEIOU", k[0]) ? "an" : "a", k,
      wr->cols[col].explicit_type ? ""
                                  : " (a \"type\" in the options converts)");
  sqlite3_free(q);
  return m;
}

/* ---- Values into the batch ---------------------------------------------- */

/* A conversion's fault ("": <what>, as the label was empty), as
** "parquet_write: column 'c', row N: <what>". */
static char *conv_error(Writer *wr, int col, const pq_error *err) {
  if (err->code == PQ_NOMEM) return PQX_W_NOMEM;
  return pqx_w_msg(FN ": column '%s', row %lld%s", wr->cols[col].name,
                   (long long)(wr->rows + (int64_t)wr->cols[col].b.nrows + 1),
                   err->msg);
}

static int heap_add(WCol *c, const void *p, size_t n) {
  pq_buf_append(&c->b.heap, p, n);
  return c->b.heap.oom ? SQLITE_NOMEM : SQLITE_OK;
}

/* Appends value v of column col to its batch, converted to its type: the
** storage class the column was typed by, or (a type given) any value the
** type takes without loss.  NULL, a message or PQX_W_NOMEM. */
static char *w_put_value(Writer *wr, int col, sqlite3_value *v) {
  WCol *c = &wr->cols[col];
  int vt = sqlite3_value_type(v);
  size_t at = c->b.nrows;
  if (vt == SQLITE_NULL) {
    c->b.present[at] = 0;
    c->b.nrows++;
    return NULL;
  }
  c->b.present[at] = 1;
  uint8_t *slot = c->b.values + c->b.nvalues * c->vsize;
  int strict = !c->explicit_type;
  pq_error err; /* set by a conversion that fails (zeroing it per value cost
                ** a tenth of the time) */
  err.code = 0;
  /* The conversions' messages take their place (column, row) from
  ** conv_error, only when one fails. */
  const char *label = "";
  switch (c->t.kind) {
    case PQ_WT_BOOLEAN:
      if (vt != SQLITE_INTEGER) return value_error(wr, col, v, "in");
      slot[0] = sqlite3_value_int64(v) != 0;
      break;
    case PQ_WT_INT32:
    case PQ_WT_INT64: {
      sqlite3_int64 x;
      if (vt == SQLITE_INTEGER) {
        x = sqlite3_value_int64(v);
      } else if (vt == SQLITE_FLOAT && !strict) {
        double d = sqlite3_value_double(v);
        if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) ||
            (double)(sqlite3_int64)d != d)
          return value_error(wr, col, v, "is not an integer for");
        x = (sqlite3_int64)d;
      } else {
        return value_error(wr, col, v, "in");
      }
      if (c->t.kind == PQ_WT_INT32) {
        if (x < INT32_MIN || x > INT32_MAX)
          return value_error(wr, col, v, "is out of range for");
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
      if (vt == SQLITE_BLOB && !strict &&
          (size_t)sqlite3_value_bytes(v) == width) {
        memcpy(slot, sqlite3_value_blob(v), width);
        break;
      }
      if (vt != SQLITE_FLOAT && !(vt == SQLITE_INTEGER && !strict))
        return value_error(wr, col, v, "in");
      double d = sqlite3_value_double(v);
      if (c->t.kind == PQ_WT_FLOAT) {
        float f = (float)d;
        memcpy(slot, &f, 4);
      } else {
        memcpy(slot, &d, 8);
      }
      break;
    }
    case PQ_WT_STRING:
    case PQ_WT_JSON:
    case PQ_WT_BINARY: {
      int want = c->t.kind == PQ_WT_BINARY ? SQLITE_BLOB : SQLITE_TEXT;
      if (vt != want && (strict || (c->t.kind != PQ_WT_BINARY && vt == SQLITE_BLOB)))
        return value_error(wr, col, v, "in");
      /* (a value of another class is converted: that can fail) */
      const void *b = want == SQLITE_BLOB ? sqlite3_value_blob(v)
                                          : (const void *)sqlite3_value_text(v);
      size_t n = (size_t)sqlite3_value_bytes(v);
      if (!b && (n || want == SQLITE_TEXT)) return PQX_W_NOMEM;
      pq_bytes pb = {NULL, n};
      /* The pointer is made when the batch goes: the heap may move. */
      pb.ptr = (const uint8_t *)(uintptr_t)c->b.heap.len;
      if (n && heap_add(c, b, n)) return PQX_W_NOMEM;
      memcpy(slot, &pb, sizeof pb);
      break;
    }
    case PQ_WT_FIXED: {
      if (vt != SQLITE_BLOB && (strict || vt != SQLITE_TEXT))
        return value_error(wr, col, v, "in");
      const void *b = vt == SQLITE_BLOB ? sqlite3_value_blob(v)
                                        : (const void *)sqlite3_value_text(v);
      int n = sqlite3_value_bytes(v);
      if (!b) return PQX_W_NOMEM;
      if (n != c->t.length)
        return value_error(wr, col, v, "is not of the length of");
      size_t off = c->b.heap.len;
      if (heap_add(c, b, (size_t)n)) return PQX_W_NOMEM;
      memcpy(slot, &off, sizeof off);
      break;
    }
    case PQ_WT_DATE: {
      int32_t days;
      if (vt == SQLITE_TEXT) {
        if (pq_date_from_text((const char *)sqlite3_value_text(v),
                              (size_t)sqlite3_value_bytes(v), &days, label,
                              &err))
          return conv_error(wr, col, &err);
      } else if (vt == SQLITE_INTEGER && !strict) {
        sqlite3_int64 x = sqlite3_value_int64(v);
        if (x < INT32_MIN || x > INT32_MAX)
          return value_error(wr, col, v, "is out of range for");
        days = (int32_t)x;
      } else {
        return value_error(wr, col, v, "in");
      }
      memcpy(slot, &days, 4);
      break;
    }
    case PQ_WT_TIME:
    case PQ_WT_TIMESTAMP: {
      int64_t x;
      if (vt == SQLITE_TEXT) {
        const char *s = (const char *)sqlite3_value_text(v);
        size_t n = (size_t)sqlite3_value_bytes(v);
        int rc = c->t.kind == PQ_WT_TIME
                     ? pq_time_from_text(s, n, c->t.unit, &x, label, &err)
                     : pq_timestamp_from_text(s, n, c->t.unit, &x, label, &err);
        if (rc) return conv_error(wr, col, &err);
      } else if (vt == SQLITE_INTEGER && !strict) {
        x = sqlite3_value_int64(v); /* units since midnight or the epoch */
      } else {
        return value_error(wr, col, v, "in");
      }
      if (c->t.kind == PQ_WT_TIME) { /* a time of day */
        int64_t day = 86400LL * (c->t.unit == PQ_UNIT_MILLIS   ? 1000
                                 : c->t.unit == PQ_UNIT_MICROS ? 1000000
                                                               : 1000000000);
        if (x < 0 || x >= day)
          return value_error(wr, col, v, "is out of range for");
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
      if (vt == SQLITE_TEXT) {
        rc = pq_decimal_from_text(&d, (const char *)sqlite3_value_text(v),
                                  (size_t)sqlite3_value_bytes(v), out, &len,
                                  label, &err);
      } else if (vt == SQLITE_INTEGER) {
        rc = pq_decimal_from_int64(&d, sqlite3_value_int64(v), out, &len,
                                   label, &err);
      } else if (vt == SQLITE_FLOAT) {
        rc = pq_decimal_from_double(&d, sqlite3_value_double(v), out, &len,
                                    label, &err);
      } else {
        return value_error(wr, col, v, "in");
      }
      if (rc) return conv_error(wr, col, &err);
      if (c->p.type == PQ_FIXED_LEN_BYTE_ARRAY) {
        size_t off = c->b.heap.len;
        if (heap_add(c, out, len)) return PQX_W_NOMEM;
        memcpy(slot, &off, sizeof off);
      } else {
        memcpy(slot, out, len);
      }
      break;
    }
    case PQ_WT_UUID: {
      uint8_t u[16];
      if (vt == SQLITE_TEXT) {
        if (pq_uuid_from_text((const char *)sqlite3_value_text(v),
                              (size_t)sqlite3_value_bytes(v), u, label, &err))
          return conv_error(wr, col, &err);
      } else if (vt == SQLITE_BLOB && sqlite3_value_bytes(v) == 16) {
        memcpy(u, sqlite3_value_blob(v), 16);
      } else {
        return value_error(wr, col, v, "in");
      }
      size_t off = c->b.heap.len;
      if (heap_add(c, u, 16)) return PQX_W_NOMEM;
      memcpy(slot, &off, sizeof off);
      break;
    }
    case PQ_WT_INT96: {
      uint8_t b[12];
      if (vt == SQLITE_TEXT) {
        if (pq_int96_from_text((const char *)sqlite3_value_text(v),
                               (size_t)sqlite3_value_bytes(v), b, label, &err))
          return conv_error(wr, col, &err);
      } else if (vt == SQLITE_BLOB && sqlite3_value_bytes(v) == 12) {
        memcpy(b, sqlite3_value_blob(v), 12);
      } else {
        return value_error(wr, col, v, "in");
      }
      memcpy(slot, b, 12);
      break;
    }
    case PQ_WT_GEOMETRY:
    case PQ_WT_GEOGRAPHY: { /* a BLOB of WKB, checked here to name its row */
      if (vt != SQLITE_BLOB) return value_error(wr, col, v, "in");
      const uint8_t *b = sqlite3_value_blob(v);
      size_t n = (size_t)sqlite3_value_bytes(v);
      if (!b && n) return PQX_W_NOMEM;
      pq_geo_acc g;
      pq_geo_acc_init(&g);
      if (pq_wkb_add(&g, b, n, label, &err)) return conv_error(wr, col, &err);
      pq_bytes pb = {(const uint8_t *)(uintptr_t)c->b.heap.len, n};
      if (n && heap_add(c, b, n)) return PQX_W_NOMEM;
      memcpy(slot, &pb, sizeof pb);
      break;
    }
    default:
      return value_error(wr, col, v, "in");
  }
  c->b.nvalues++;
  c->b.nrows++;
  return NULL;
}

/* ---- Batches, row groups, the output --------------------------------------- */

/* Writes what the writer has drained to the file, or keeps it (a BLOB). */
static char *w_flush(Writer *wr) {
  if (!wr->f) {
    if (wr->out.oom) return PQX_W_NOMEM;
    if (wr->out.len > wr->limit)
      return pqx_w_msg(FN ": the file would be more than %lld bytes, "
                          "the limit (parquet_max_alloc)",
                       (long long)wr->limit);
    return NULL;
  }
  if (wr->out.len &&
      fwrite(wr->out.data, 1, wr->out.len, wr->f) != wr->out.len)
    return pqx_w_msg(FN ": writing '%s': %s", wr->tmp, strerror(errno));
  wr->out.len = 0;
  return NULL;
}

/* Hands column c's batch f to the writer. */
static char *w_put_fill(Writer *wr, WCol *c, WFill *f, pq_error *err) {
  if (f->nrows == 0) return NULL;
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
      return PQX_W_NOMEM;
    }
    vals = run.data;
  }
  int rc = wr->cap ? wr->cap->batch(wr->cap->ctx, (int)(c - wr->cols), vals,
                                    f->present, f->nrows, err)
                   : pq_writer_put_column(wr->w, c->wcol, vals, f->present,
                                          f->nrows, err);
  pq_buf_free(&run);
  if (rc) return pqx_w_core(rc, err);
  f->nrows = f->nvalues = 0;
  f->heap.len = 0;
  return NULL;
}

/* Hands the batch being filled of every column to the writer. */
static char *w_batch(Writer *wr) {
  pq_error err = {0};
  for (int i = 0; i < wr->ncols; i++) {
    WCol *c = &wr->cols[i];
    if (c->skip) continue;
    char *m = c->tree ? pqx_nested_flush(wr, i) : w_put_fill(wr, c, &c->b, &err);
    if (m) return m;
  }
  return NULL;
}

/* Closes the row group and sends it to the file. */
/* The writer's sink: the file, straight from the writer's buffers. */
static int w_sink(void *ctx, const uint8_t *p, size_t n) {
  Writer *wr = ctx;
  wr->file_bytes += (int64_t)n;
  if (fwrite(p, 1, n, wr->f) == n) return 0;
  wr->io_errno = errno ? errno : EIO;
  return 1;
}

/* A core call's fault; the file's own error when the sink failed. */
static char *w_core_error(Writer *wr, int rc, const pq_error *err) {
  if (rc == PQ_IO)
    return pqx_w_msg(FN ": writing '%s': %s", wr->tmp, strerror(wr->io_errno));
  return pqx_w_core(rc, err);
}

static char *w_group(Writer *wr) {
  pq_error err = {0};
  if (wr->cap) {
    int rc = wr->cap->group(wr->cap->ctx, &err);
    return rc ? pqx_w_core(rc, &err) : NULL;
  }
  int rc = pq_writer_end_row_group(wr->w, &err);
  if (rc) return w_core_error(wr, rc, &err);
  pq_writer_drain(wr->w, &wr->out);
  return w_flush(wr);
}


/* ---- The worker ------------------------------------------------------------------
** With a worker thread, the calling thread steps the query and converts
** its values into one batch while the worker encodes, compresses and
** writes the columns of the batch before it (each column's spare) that are
** in its lane (pq_writer_set_lane, lane 0), and closes the row groups; the
** calling thread writes the spare's other columns (lane 1) itself, between
** batches, so that both threads are busy: the columns go to the lanes by
** the time their batches took, against the time the calling thread spends
** on the query's rows and the worker on closing row groups.  They meet once
** a batch: the caller waits for the worker to be idle, swaps each column's
** batch with its spare and posts the job; to close a row group it waits
** once more, then posts the closing.  Each waits by spinning a little
** before sleeping: a wakeup per batch lets the scheduler put both threads
** on one CPU, where they take turns.  The worker touches the core writer's
** lane 0 columns and the output only, the caller the rest (the worker's
** messages are made with sqlite3_mprintf: only when SQLite is threadsafe
** is there a worker).  Nested columns and row_group_bytes (which looks at
** the writer after each batch) are written on the calling thread. */

enum { JOB_NONE, JOB_BATCH, JOB_GROUP };
#define SPIN_SECONDS 0.00005 /* spinning before sleeping */

static double w_clock(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Writes lane k's columns of the spare batch, each's time added to its
** cost. */
static char *w_lane(Writer *wr, int k) {
  pq_error err = {0};
  for (int i = 0; i < wr->ncols; i++) {
    WCol *c = &wr->cols[i];
    if (c->lane != k) continue;
    double t0 = w_clock();
    char *m = w_put_fill(wr, c, &c->sp, &err);
    c->cost += w_clock() - t0;
    if (m) return m;
  }
  return NULL;
}

/* Spins until *flag is `want` (is not, with `is` 0) or the spell is over;
** 1 when it is. */
static int w_spin(atomic_int *flag, int want, int is) {
  double until = w_clock() + SPIN_SECONDS;
  for (int i = 1;; i++) {
    if ((atomic_load_explicit(flag, memory_order_acquire) == want) == is)
      return 1;
    if (i % 64 == 0 && w_clock() > until) return 0;
  }
}

static void *w_worker(void *arg) {
  Writer *wr = arg;
  for (;;) {
    if (!w_spin(&wr->job, JOB_NONE, 0)) {
      pthread_mutex_lock(&wr->mu);
      while (atomic_load(&wr->job) == JOB_NONE && !wr->quit)
        pthread_cond_wait(&wr->cv, &wr->mu);
      pthread_mutex_unlock(&wr->mu);
    }
    int job = atomic_load_explicit(&wr->job, memory_order_acquire);
    if (job == JOB_NONE) break; /* quit */
    char *m = NULL;
    if (!wr->th_failed) {
      if (job == JOB_GROUP) {
        double t0 = w_clock();
        m = w_group(wr);
        wr->group_cost += w_clock() - t0;
      } else {
        m = w_lane(wr, 0);
      }
    }
    if (m) { /* kept for the caller, which reads it once the job is done */
      wr->th_failed = 1;
      wr->th_msg = m;
    }
    pthread_mutex_lock(&wr->mu);
    atomic_store_explicit(&wr->job, JOB_NONE, memory_order_release);
    pthread_cond_broadcast(&wr->cv);
    pthread_mutex_unlock(&wr->mu);
  }
  return NULL;
}

/* Waits for the worker to be idle; its fault, taken (NULL: none).  The
** worker does nothing more once it failed; the caller gives up on the
** first fault it takes. */
static char *w_wait(Writer *wr) {
  if (!w_spin(&wr->job, JOB_NONE, 1)) {
    pthread_mutex_lock(&wr->mu);
    while (atomic_load(&wr->job) != JOB_NONE) pthread_cond_wait(&wr->cv, &wr->mu);
    pthread_mutex_unlock(&wr->mu);
  }
  char *m = wr->th_msg;
  wr->th_msg = NULL;
  return m;
}

static void w_post(Writer *wr, int job) {
  pthread_mutex_lock(&wr->mu);
  atomic_store_explicit(&wr->job, job, memory_order_release);
  pthread_cond_broadcast(&wr->cv);
  pthread_mutex_unlock(&wr->mu);
}

/* Stops the worker (idle or not) and joins it. */
static void w_stop(Writer *wr) {
  if (!wr->th_started) return;
  pqx_w_free(w_wait(wr)); /* a fault not reported: the write failed before */
  pthread_mutex_lock(&wr->mu);
  wr->quit = 1;
  pthread_cond_broadcast(&wr->cv);
  pthread_mutex_unlock(&wr->mu);
  pthread_join(wr->th, NULL);
  pthread_cond_destroy(&wr->cv);
  pthread_mutex_destroy(&wr->mu);
  wr->th_started = 0;
  pqx_w_free(wr->th_msg);
  wr->th_msg = NULL;
}

/* Starts the worker, with each column's spare batch: NULL when it runs or
** (*none) there is no thread to be had, else PQX_W_NOMEM. */
static char *w_start_worker(Writer *wr, int *none) {
  for (int i = 0; i < wr->ncols; i++) {
    WCol *c = &wr->cols[i];
    if (!c->sp.values)
      c->sp.values = sqlite3_malloc64((size_t)WRITE_BATCH * c->vsize);
    if (!c->sp.present) c->sp.present = sqlite3_malloc64(WRITE_BATCH);
    if (!c->sp.values || !c->sp.present) return PQX_W_NOMEM;
  }
  *none = 1;
  atomic_init(&wr->job, JOB_NONE);
  if (pthread_mutex_init(&wr->mu, NULL)) return NULL;
  if (pthread_cond_init(&wr->cv, NULL)) {
    pthread_mutex_destroy(&wr->mu);
    return NULL;
  }
  if (pthread_create(&wr->th, NULL, w_worker, wr)) {
    pthread_cond_destroy(&wr->cv);
    pthread_mutex_destroy(&wr->mu);
    return NULL;
  }
  *none = 0;
  wr->th_started = 1;
#if defined(__linux__) && defined(CPU_SET)
  /* Off the caller's CPU: the handovers wake one thread while the other
  ** goes on or goes to sleep, and the scheduler, waking the worker where
  ** the caller runs, can keep both there taking turns (seen on a 2-CPU
  ** machine: no migration in 10 s).  The worker may run on any CPU the
  ** caller may but the one it is on now. */
  cpu_set_t set;
  int cpu = sched_getcpu();
  if (cpu >= 0 && sched_getaffinity(0, sizeof set, &set) == 0 &&
      CPU_ISSET(cpu, &set) && CPU_COUNT(&set) > 1) {
    CPU_CLR(cpu, &set);
    pthread_setaffinity_np(wr->th, sizeof set, &set);
  }
#endif
  wr->mark = w_clock();
  return NULL;
}

/* Spreads the columns over the lanes by the time their batches took so
** far, the costliest first, each to the side with less: the caller's side
** starting from its time on the rows, the worker's from its time closing
** row groups. */
static void w_balance(Writer *wr) {
  double load[2] = {wr->group_cost, wr->own_cost};
  for (int i = 0; i < wr->ncols; i++) wr->cols[i].placed = 0;
  for (int r = 0; r < wr->ncols; r++) {
    WCol *best = NULL;
    for (int i = 0; i < wr->ncols; i++) {
      WCol *c = &wr->cols[i];
      if (!c->placed && (!best || c->cost > best->cost)) best = c;
    }
    best->placed = 1;
    int k = load[1] < load[0] ? 1 : 0;
    best->lane = k;
    pq_writer_set_lane(wr->w, best->wcol, k);
    load[k] += best->cost;
  }
}

/* The batch filled (the rows since the last) goes to be written, and then
** (group) the row group closes: with the worker, or here. */
static char *w_hand(Writer *wr, int group) {
  wr->rows += (int64_t)wr->batch_rows;
  wr->batch_rows = 0;
  if (wr->threaded && !wr->th_started) {
    int none = 0;
    char *m = w_start_worker(wr, &none);
    if (m) return m;
    if (none) wr->threaded = 0; /* the calling thread writes */
  }
  if (!wr->threaded) {
    char *m = w_batch(wr);
    if (!m && group) m = w_group(wr);
    return m;
  }
  double t0 = w_clock();
  wr->own_cost += t0 - wr->mark; /* the rows of the batch */
  char *m = w_wait(wr);
  if (m) return m;
  for (int i = 0; i < wr->ncols; i++) {
    WCol *c = &wr->cols[i];
    WFill t = c->b;
    c->b = c->sp;
    c->sp = t;
  }
  /* the lanes balanced after 4, 16 and 64 batches, then left: a column
  ** that moves takes its buffers to the other thread's heap */
  wr->handed++;
  if (wr->handed == 4 || wr->handed == 16 || wr->handed == 64) w_balance(wr);
  w_post(wr, JOB_BATCH);
  m = w_lane(wr, 1);
  if (m || !group) {
    wr->mark = w_clock();
    return m;
  }
  m = w_wait(wr);
  if (!m) w_post(wr, JOB_GROUP);
  wr->mark = w_clock();
  return m;
}

/* The last batch written, the worker stopped: what remains is the footer. */
static char *w_last(Writer *wr) {
  char *m = w_hand(wr, 0);
  if (!m && wr->th_started) m = w_wait(wr);
  w_stop(wr);
  return m;
}

/* ---- Options ----------------------------------------------------------------- */

/* "auto": {"allow": [names]}: the encodings "auto" may try besides those
** every mainstream reader reads (pq_auto_tries), into o->auto_allow. */
static char *w_auto_allow(Writer *wr, const char *where, const char *json,
                          const char *jtype, pq_write_options *o) {
  static const char shape[] =
      FN ": options%s: \"auto\" must be {\"allow\": [encoding names]}";
  if (strcmp(jtype, "object")) return pqx_w_msg(shape, where);
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(
      wr->db,
      "SELECT NULL, (SELECT count(*) FROM json_each(?1) WHERE key <> 'allow')"
      " + (json_type(?1, '$.allow') IS NOT 'array') UNION ALL "
      "SELECT value, type = 'text' FROM json_each(?1, '$.allow')",
      -1, &st, NULL);
  if (rc) return pqx_w_sql(wr->db, rc, "options: auto");
  sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
  unsigned allow = 0;
  char *msg = NULL;
  int first = 1;
  while (!msg && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int bad = sqlite3_column_int(st, 1);
    if (first) {
      first = 0;
      if (bad) msg = pqx_w_msg(shape, where);
      continue;
    }
    if (!bad) {
      msg = pqx_w_msg(shape, where);
      break;
    }
    int nomem = 0;
    const char *name = pqx_w_text(st, 0, &nomem);
    if (nomem || !name) {
      msg = PQX_W_NOMEM;
      break;
    }
    pq_encoding e;
    if (pq_encoding_parse(name, strlen(name), &e)) {
      msg = pqx_w_msg(FN ": options%s: \"auto\": unknown encoding '%s'",
                      where, name);
    } else if (e != PQ_ALP && e != PQ_BYTE_STREAM_SPLIT &&
               e != PQ_GROUP_VAR_INT) {
      msg = pqx_w_msg(FN ": options%s: \"auto\": \"allow\" takes ALP, "
                         "BYTE_STREAM_SPLIT and GROUP_VAR_INT, the "
                         "encodings not every mainstream reader reads, "
                         "not %s",
                      where, pq_encoding_name(e));
    } else {
      allow |= 1u << e;
    }
  }
  if (!msg && rc != SQLITE_DONE) msg = pqx_w_sql(wr->db, rc, "options: auto");
  sqlite3_finalize(st);
  if (!msg) o->auto_allow = allow;
  return msg;
}

/* Applies one key of a column's (or the defaults') options. */
static char *apply_key(Writer *wr, const char *where, const char *key,
                       const char *json, const char *text, const char *jtype,
                       pq_params *p, pq_write_options *o, char *type,
                       int *has_type, char *enc, int *has_enc, int *dict) {
  if (strcmp(key, "type") == 0) {
    if (strcmp(jtype, "text") != 0 || strlen(text) >= WRITE_TYPE_MAX)
      return pqx_w_msg(FN ": options%s: \"type\" must be a type name",
                       where);
    pq_write_type t;
    pq_nested *tree;
    char *why;
    int nested = pqx_nested_parse(text, &tree, &why);
    pq_nested_free(tree);
    if (nested < 0) {
      if (why == PQX_W_NOMEM) return why;
      char *m = pqx_w_msg(FN ": options%s: type '%s': %s", where, text, why);
      sqlite3_free(why);
      return m;
    }
    if (!nested && pq_write_type_parse(text, &t))
      return pqx_w_msg(
          FN ": options%s: unknown type '%s' (INT32, INT64, FLOAT, DOUBLE, "
             "BOOLEAN, STRING, BINARY, JSON, DATE, TIME(ms|us|ns), "
             "TIMESTAMP(ms|us|ns[, utc]), DECIMAL(p,s), UUID, "
             "FIXED_LEN_BYTE_ARRAY(n), INT96, GEOMETRY[(crs)], "
             "GEOGRAPHY[(crs[, algorithm])])",
          where, text);
    strcpy(type, text);
    *has_type = 1;
    return NULL;
  }
  if (strcmp(key, "encoding") == 0) {
    pq_encoding e;
    if (strcmp(jtype, "text") != 0 || strlen(text) >= 64 ||
        (sqlite3_stricmp(text, "auto") != 0 &&
         pq_encoding_parse(text, strlen(text), &e)))
      return pqx_w_msg(FN ": options%s: unknown encoding '%s'", where,
                       text ? text : "");
    strcpy(enc, text);
    *has_enc = 1;
    return NULL;
  }
  if (strcmp(key, "dictionary") == 0) {
    if (strcmp(jtype, "true") && strcmp(jtype, "false"))
      return pqx_w_msg(FN ": options%s: \"dictionary\" must be true or "
                          "false", where);
    *dict = strcmp(jtype, "true") == 0;
    return NULL;
  }
  if (strcmp(key, "bloom_filter") == 0) {
    if (strcmp(jtype, "true") == 0 || strcmp(jtype, "false") == 0) {
      o->bloom = strcmp(jtype, "true") == 0;
      o->bloom_ndv = 0;
      o->bloom_fpp = 0;
      return NULL;
    }
    sqlite3_stmt *st = NULL;
    int ok = strcmp(jtype, "object") == 0, rc = SQLITE_OK, nomem = 0;
    if (ok) {
      rc = sqlite3_prepare_v2(
          wr->db,
          "SELECT json_extract(?1, '$.ndv'), json_extract(?1, '$.fpp'),"
          " (SELECT count(*) FROM json_each(?1) WHERE key NOT IN"
          " ('ndv', 'fpp')), json_type(?1, '$.ndv'), json_type(?1, '$.fpp')",
          -1, &st, NULL);
      ok = rc == SQLITE_OK;
    }
    if (ok) {
      sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
      rc = sqlite3_step(st);
      ok = rc == SQLITE_ROW && sqlite3_column_int(st, 2) == 0;
      const char *nt = ok ? pqx_w_text(st, 3, &nomem) : NULL;
      const char *ft = ok ? pqx_w_text(st, 4, &nomem) : NULL;
      if (nomem) ok = 0;
      sqlite3_int64 ndv = ok ? sqlite3_column_int64(st, 0) : 0;
      double fpp = ok ? sqlite3_column_double(st, 1) : 0;
      if (ok && nt && (strcmp(nt, "integer") || ndv < 1)) ok = 0;
      if (ok && ft && ((strcmp(ft, "real") && strcmp(ft, "integer")) ||
                       !(fpp > 0 && fpp < 1)))
        ok = 0;
      if (ok) {
        o->bloom = 1;
        o->bloom_ndv = nt ? ndv : 0;
        o->bloom_fpp = ft ? fpp : 0;
      }
    }
    sqlite3_finalize(st);
    if (nomem || (rc & 0xff) == SQLITE_NOMEM) return PQX_W_NOMEM;
    if (!ok)
      return pqx_w_msg(FN ": options%s: \"bloom_filter\" is true, false "
                          "or {\"ndv\": distinct values (at least 1), "
                          "\"fpp\": a probability between 0 and 1}",
                       where);
    return NULL;
  }
  if (strcmp(key, "auto") == 0) return w_auto_allow(wr, where, json, jtype, o);
  if (strcmp(key, "dictionary_page_size") == 0) {
    if (strcmp(jtype, "integer") || atoll(text) < 1 || atoll(text) > (1 << 30))
      return pqx_w_msg(FN ": options%s: \"dictionary_page_size\" must "
                          "be an integer from 1 to 1073741824 (bytes)",
                       where);
    o->dictionary_page_size = atoll(text);
    return NULL;
  }
  if (strcmp(key, "name") == 0 || strcmp(key, "string") == 0 ||
      strcmp(key, "row_group_size") == 0)
    return pqx_w_msg(FN ": options%s: unknown option \"%s\"", where, key);
  /* The file writer's own keys (doc/parquet_file.md). */
  for (const char *k = key; *k; k++)
    if (!((*k >= 'a' && *k <= 'z') || *k == '_' || (*k >= '0' && *k <= '9')))
      return pqx_w_msg(FN ": options%s: unknown option \"%s\"", where,
                       key);
  char *one = sqlite3_mprintf("{\"%s\":%s}", key, json);
  if (!one) return PQX_W_NOMEM;
  pq_error err = {0};
  int rc = pq_write_options_parse(o, p, one, strlen(one), &err);
  sqlite3_free(one);
  (void)wr;
  if (rc == PQ_NOMEM) return PQX_W_NOMEM;
  if (rc) {
    /* the core's own label is "options" too */
    const char *m = strncmp(err.msg, "options: ", 9) == 0 ? err.msg + 9 : err.msg;
    return pqx_w_msg(FN ": options%s: %s", where, m);
  }
  return NULL;
}

/* Runs fn over the pairs of a JSON object: key, its JSON text, its text
** (strings unquoted; NULL for null) and json_each's type. */
static char *each_pair(Writer *wr, const char *obj, const char *where,
                       char *(*fn)(Writer *, void *, const char *,
                                   const char *, const char *, const char *),
                       void *arg) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(
      wr->db,
      "SELECT key, CASE WHEN type IN ('object', 'array') THEN value "
      "WHEN type IN ('true', 'false', 'null') THEN type "
      "ELSE json_quote(value) END, value, type FROM json_each(?1)",
      -1, &st, NULL);
  if (rc) return pqx_w_sql(wr->db, rc, "options");
  sqlite3_bind_text(st, 1, obj, -1, SQLITE_STATIC);
  char *msg = NULL;
  while (!msg && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int nomem = 0;
    const char *key = pqx_w_text(st, 0, &nomem);
    const char *json = pqx_w_text(st, 1, &nomem);
    const char *text = pqx_w_text(st, 2, &nomem);
    const char *jtype = pqx_w_text(st, 3, &nomem);
    /* (an object's keys and the types are never NULL) */
    if (nomem || !key || !json || !jtype)
      msg = PQX_W_NOMEM;
    else
      msg = fn(wr, arg, key, json, text, jtype);
  }
  if (!msg && rc != SQLITE_DONE) {
    char what[320];
    snprintf(what, sizeof what, "options%s", where);
    msg = pqx_w_sql(wr->db, rc, what);
  }
  sqlite3_finalize(st);
  return msg;
}

#define PART_MAX 32 /* partition columns, at most */

/* "partition_by": [column names], distinct, into wr->part_names. */
static char *w_partition_by(Writer *wr, const char *json, const char *jtype) {
  static const char shape[] =
      FN ": options: \"partition_by\" must be an array of column names";
  if (strcmp(jtype, "array")) return pqx_w_msg(shape);
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(wr->db,
                              "SELECT value, type FROM json_each(?1)", -1,
                              &st, NULL);
  if (rc) return pqx_w_sql(wr->db, rc, "options: partition_by");
  sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
  for (int i = 0; i < wr->npart; i++) sqlite3_free(wr->part_names[i]);
  wr->npart = 0; /* (a key given twice: the last) */
  char *msg = NULL;
  while (!msg && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    int nomem = 0;
    const char *v = pqx_w_text(st, 0, &nomem);
    const char *t = pqx_w_text(st, 1, &nomem);
    if (nomem || !t) {
      msg = PQX_W_NOMEM;
    } else if (strcmp(t, "text") || !v || !*v) {
      msg = pqx_w_msg(shape);
    } else if (wr->npart == PART_MAX) {
      msg = pqx_w_msg(FN ": options: \"partition_by\": more than %d "
                         "columns", PART_MAX);
    } else {
      for (int i = 0; i < wr->npart && !msg; i++)
        if (strcmp(wr->part_names[i], v) == 0)
          msg = pqx_w_msg(FN ": options: \"partition_by\": '%s' is "
                             "named twice", v);
      if (!msg && !wr->part_names) {
        wr->part_names = sqlite3_malloc64(PART_MAX * sizeof(char *));
        if (!wr->part_names) msg = PQX_W_NOMEM;
      }
      if (!msg) {
        char *copy = sqlite3_mprintf("%s", v);
        if (!copy) msg = PQX_W_NOMEM;
        else wr->part_names[wr->npart++] = copy;
      }
    }
  }
  if (!msg && rc != SQLITE_DONE) msg = pqx_w_sql(wr->db, rc, "options: partition_by");
  sqlite3_finalize(st);
  if (!msg && wr->npart == 0) msg = pqx_w_msg(shape);
  return msg;
}

static char *top_pair(Writer *wr, void *arg, const char *key,
                      const char *json, const char *text, const char *jtype) {
  (void)arg;
  if (strcmp(key, "columns") == 0) {
    if (strcmp(jtype, "object"))
      return pqx_w_msg(FN ": options: \"columns\" must be an object of "
                          "column names");
    sqlite3_free(wr->columns_json); /* (a key given twice: the last) */
    wr->columns_json = sqlite3_mprintf("%s", json);
    return wr->columns_json ? NULL : PQX_W_NOMEM;
  }
  if (strcmp(key, "metadata") == 0) {
    if (strcmp(jtype, "object"))
      return pqx_w_msg(FN ": options: \"metadata\" must be an object of "
                          "strings");
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(
        wr->db, "SELECT key, value, type FROM json_each(?1)", -1, &st, NULL);
    if (rc) return pqx_w_sql(wr->db, rc, "options: metadata");
    sqlite3_bind_text(st, 1, json, -1, SQLITE_STATIC);
    char *msg = NULL;
    while (!msg && (rc = sqlite3_step(st)) == SQLITE_ROW) {
      int nomem = 0;
      const char *k = pqx_w_text(st, 0, &nomem);
      const char *v = pqx_w_text(st, 1, &nomem);
      const char *t = pqx_w_text(st, 2, &nomem);
      if (nomem || !k || !t) {
        msg = PQX_W_NOMEM;
        break;
      }
      if (strcmp(t, "text") && strcmp(t, "null")) {
        msg = pqx_w_msg(FN ": options: metadata \"%s\" must be a string "
                           "or null", k);
        break;
      }
      int null = strcmp(t, "null") == 0;
      if (!null && !v) {
        msg = PQX_W_NOMEM;
        break;
      }
      /* both arrays grow first: the pair goes in whole or not at all */
      char **kk = sqlite3_realloc64(wr->kv_keys, (size_t)(wr->nkv + 1) * sizeof *kk);
      if (kk) wr->kv_keys = kk;
      char **vv = kk ? sqlite3_realloc64(wr->kv_values,
                                         (size_t)(wr->nkv + 1) * sizeof *vv)
                     : NULL;
      if (vv) wr->kv_values = vv;
      char *key_copy = vv ? sqlite3_mprintf("%s", k) : NULL;
      char *value_copy = key_copy && !null ? sqlite3_mprintf("%s", v) : NULL;
      if (!key_copy || (!null && !value_copy)) {
        sqlite3_free(key_copy);
        msg = PQX_W_NOMEM;
        break;
      }
      wr->kv_keys[wr->nkv] = key_copy;
      wr->kv_values[wr->nkv] = value_copy;
      wr->nkv++;
    }
    if (!msg && rc != SQLITE_DONE) msg = pqx_w_sql(wr->db, rc, "options: metadata");
    sqlite3_finalize(st);
    return msg;
  }
  if (strcmp(key, "created_by") == 0) {
    if (strcmp(jtype, "text"))
      return pqx_w_msg(FN ": options: \"created_by\" must be a string");
    sqlite3_free(wr->created_by); /* (a key given twice: the last) */
    wr->created_by = sqlite3_mprintf("%s", text);
    return wr->created_by ? NULL : PQX_W_NOMEM;
  }
  if (strcmp(key, "row_group_size") == 0) {
    if (strcmp(jtype, "integer") || atoll(text) < 1)
      return pqx_w_msg(FN ": options: \"row_group_size\" must be an "
                          "integer of at least 1 (rows)");
    wr->group_size = atoll(text);
    return NULL;
  }
  if (strcmp(key, "durable") == 0) {
    if (strcmp(jtype, "true") && strcmp(jtype, "false"))
      return pqx_w_msg(FN ": options: \"durable\" must be true (the "
                          "file synced to disk before parquet_write "
                          "returns, the default) or false");
    wr->durable = strcmp(jtype, "true") == 0;
    return NULL;
  }
  if (strcmp(key, "threads") == 0) {
    if (strcmp(jtype, "integer") || atoll(text) < 1 || atoll(text) > 2)
      return pqx_w_msg(FN ": options: \"threads\" must be 1 (the "
                          "calling thread only) or 2 (and a worker, "
                          "the default)");
    wr->threads = (int)atoll(text);
    return NULL;
  }
  if (strcmp(key, "partition_by") == 0) return w_partition_by(wr, json, jtype);
  if (strcmp(key, "write_partition_columns") == 0) {
    if (strcmp(jtype, "true") && strcmp(jtype, "false"))
      return pqx_w_msg(FN ": options: \"write_partition_columns\" must be "
                          "true or false");
    wr->write_part = strcmp(jtype, "true") == 0;
    return NULL;
  }
  if (strcmp(key, "file_size_bytes") == 0) {
    if (strcmp(jtype, "integer") || atoll(text) < 1)
      return pqx_w_msg(FN ": options: \"file_size_bytes\" must be an "
                          "integer of at least 1 (bytes)");
    wr->file_size = atoll(text);
    return NULL;
  }
  if (strcmp(key, "row_group_bytes") == 0) {
    if (strcmp(jtype, "integer") || atoll(text) < 1)
      return pqx_w_msg(FN ": options: \"row_group_bytes\" must be an "
                          "integer of at least 1 (bytes)");
    wr->group_bytes = atoll(text);
    return NULL;
  }
  return apply_key(wr, "", key, json, text, jtype, &wr->p, &wr->o, wr->type,
                   &wr->has_type, wr->encoding, &wr->has_encoding,
                   &wr->dictionary);
}

typedef struct ColArg {
  WCol *c;
  char type[WRITE_TYPE_MAX];
  int has_type;
  char enc[64];
  char where[300];
  char *shred;            /* a VARIANT's "shred": its JSON (sqlite3_malloc) */
} ColArg;

static char *col_pair(Writer *wr, void *arg, const char *key,
                      const char *json, const char *text, const char *jtype) {
  ColArg *a = arg;
  if (strcmp(key, "shred") == 0) { /* a VARIANT's (w_variant_shred) */
    sqlite3_free(a->shred);
    a->shred = sqlite3_mprintf("%s", json);
    return a->shred ? NULL : PQX_W_NOMEM;
  }
  return apply_key(wr, a->where, key, json, text, jtype, &a->c->p, &a->c->o,
                   a->type, &a->has_type, a->enc, &a->c->has_encoding,
                   &a->c->dictionary);
}

static char *names_pair(Writer *wr, void *arg, const char *key,
                        const char *json, const char *text,
                        const char *jtype) {
  (void)arg;
  (void)text;
  (void)json;
  for (int i = 0; i < wr->ncols; i++)
    if (strcmp(wr->cols[i].name, key) == 0) {
      if (strcmp(jtype, "object"))
        return pqx_w_msg(FN ": options: columns: \"%s\" must be an "
                            "object", key);
      return NULL;
    }
  for (int k = 0; k < wr->npart; k++)
    if (strcmp(wr->part_names[k], key) == 0)
      return pqx_w_msg(FN ": options: columns: \"%s\" is a partition "
                          "column, which the files do not hold "
                          "(\"write_partition_columns\": true writes it)",
                       key);
  return pqx_w_msg(FN ": options: columns: the query has no column "
                      "\"%s\"", key);
}

/* ---- What options ask for beyond the data --------------------------------- */

#define BLOOM_MOST ((int64_t)1 << 27) /* the writer's largest filter, bytes */

/* The bytes of the bloom filter the writer makes for ndv distinct values
** at the false positive probability fpp (src/format/bloom.c,
** pq_bloom_size): the spec's sizing of a split-block filter, 8 ndv /
** -ln(1 - fpp^(1/8)) bits, rounded up to a power of two of 32 bytes or
** more; here without the writer's cut at BLOOM_MOST, so that a larger
** filter asked for is seen. */
static double w_bloom_bytes(int64_t ndv, double fpp) {
  if (!(fpp > 0 && fpp < 1)) fpp = 0.01;
  double bytes = -8.0 * (double)ndv / log(1.0 - pow(fpp, 1.0 / 8)) / 8;
  double n = 32;
  while (n < bytes && n < 1e18) n *= 2;
  return n;
}

static int w_uses_blocks(const pq_params *p, const pq_write_options *o) {
  int e = p->encoding == PQ_RLE_DICTIONARY ? o->fallback : (int)p->encoding;
  return o->auto_encoding || e == PQ_DELTA_BINARY_PACKED ||
         e == PQ_DELTA_LENGTH_BYTE_ARRAY || e == PQ_DELTA_BYTE_ARRAY;
}

/* Adds what one leaf's options ask for whatever its data (*fixed, for
** every leaf; wr->bloom_fixed, the filters) and checks it against the
** limit.  A filter sized by "ndv" takes its bytes in each row group, be it
** of one row; the DELTA encodings hold a block of block_size values, 8
** bytes each, for each leaf.  NULL, or a message naming the option. */
static char *w_bound_leaf(Writer *wr, const char *col, const pq_params *p,
                          const pq_write_options *o, int64_t limit,
                          int64_t *fixed) {
  if (o->bloom && o->bloom_ndv > 0) {
    double b = w_bloom_bytes(o->bloom_ndv, o->bloom_fpp);
    if (b > (double)BLOOM_MOST)
      return pqx_w_msg(
          FN ": options: column '%s': \"bloom_filter\": a filter for %lld "
             "distinct values at fpp %g takes %.0f bytes, more than the "
             "%lld a filter may take",
          col, (long long)o->bloom_ndv,
          o->bloom_fpp > 0 ? o->bloom_fpp : 0.01, b, (long long)BLOOM_MOST);
    wr->bloom_fixed += (int64_t)b;
    *fixed += (int64_t)b;
    if (*fixed > limit)
      return pqx_w_msg(
          FN ": options: column '%s': \"bloom_filter\": the filters sized "
             "by \"ndv\" take %lld bytes in each row group, more than the "
             "limit of %lld bytes" PQX_LIMIT_HINT,
          col, (long long)*fixed, (long long)limit);
  }
  if (p->block_size > 0 && w_uses_blocks(p, o)) {
    *fixed += p->block_size * 8;
    if (*fixed > limit)
      return pqx_w_msg(
          FN ": options: column '%s': \"block_size\": blocks of %lld "
             "values take %lld bytes with those of the columns before it, "
             "more than the limit of %lld bytes" PQX_LIMIT_HINT,
          col, (long long)p->block_size, (long long)*fixed,
          (long long)limit);
  }
  return NULL;
}

/* What every column's options ask for, against the limit. */
static char *w_bounds(Writer *wr) {
  int64_t limit = (int64_t)pqx_db_limit(wr->db), fixed = 0;
  char *m = NULL;
  for (int i = 0; i < wr->ncols && !m; i++) {
    WCol *c = &wr->cols[i];
    if (!c->tree) {
      m = w_bound_leaf(wr, c->name, &c->p, &c->o, limit, &fixed);
      continue;
    }
    for (int k = 0; k < pq_nested_nleaves(c->tree) && !m; k++) {
      pq_params p;
      pq_write_options o;
      pq_nested_leaf(c->tree, k, &p, &o);
      m = w_bound_leaf(wr, c->name, &p, &o, limit, &fixed);
    }
  }
  return m;
}

/* A row group is about to close: the filters sized by "ndv" of the row
** groups so far must stay within the limit, so that the file follows its
** rows and not row_group_size.  NULL, or a message. */
static char *w_count_group(Writer *wr) {
  wr->groups++;
  if (wr->bloom_fixed == 0) return NULL;
  int64_t limit = (int64_t)pqx_db_limit(wr->db);
  if (wr->groups <= limit / wr->bloom_fixed) return NULL;
  return pqx_w_msg(
      FN ": options: \"bloom_filter\": the filters sized by \"ndv\" take "
         "%lld bytes in each row group: %lld row groups take more than the "
         "limit of %lld bytes" PQX_LIMIT_HINT ": a smaller ndv, a larger "
         "row_group_size, or true (each filter sized by its chunk's values)",
      (long long)wr->bloom_fixed, (long long)wr->groups, (long long)limit);
}

/* ---- The columns ---------------------------------------------------------- */

/* The options of a's column in the "columns" object, applied. */
static char *w_column_options(Writer *wr, ColArg *a) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(
      wr->db, "SELECT json_extract(?1, '$.' || json_quote(?2))", -1, &st, NULL);
  if (rc) return pqx_w_sql(wr->db, rc, "options: columns");
  sqlite3_bind_text(st, 1, wr->columns_json, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, a->c->name, -1, SQLITE_STATIC);
  char *msg = NULL;
  rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    int nomem = 0;
    const char *obj = pqx_w_text(st, 0, &nomem);
    if (nomem) msg = PQX_W_NOMEM;
    else if (obj) msg = each_pair(wr, obj, a->where, col_pair, a);
  } else if (rc != SQLITE_DONE) {
    msg = pqx_w_sql(wr->db, rc, "options: columns");
  }
  sqlite3_finalize(st);
  return msg;
}

/* The declared type of column i: the query's, or the row source's. */
static const char *w_decltype(Writer *wr, int i) {
  if (wr->in && !wr->in->sql) return wr->in->decls ? wr->in->decls[i] : NULL;
  return sqlite3_column_decltype(wr->q, i);
}

/* A VARIANT column's "shred" (column i): its type read first, as below,
** and the values read ahead handed to "auto". */
static char *w_variant_shred(Writer *wr, ColArg *a, int i) {
  char type[1024];
  int declared = 0;
  if (a->has_type) {
    strcpy(type, a->type);
  } else {
    declared = decl_type(w_decltype(wr, i), type, sizeof type);
    if (declared < 0) return PQX_W_NOMEM;
  }
  pq_nested *tree = NULL;
  char *why = NULL;
  int nested = (a->has_type || declared) ? pqx_nested_parse(type, &tree, &why) : 0;
  if (nested < 0) return why;
  if (!nested || pq_nested_kind(tree) != PQ_WT_VARIANT) {
    pq_nested_free(tree);
    return pqx_w_msg(FN ": options%s: \"shred\" is for a column of type "
                        "VARIANT", a->where);
  }
  const char **texts = sqlite3_malloc64((size_t)(wr->nlook + 1) * sizeof *texts);
  size_t *lens = sqlite3_malloc64((size_t)(wr->nlook + 1) * sizeof *lens);
  char *msg = NULL;
  if (!texts || !lens) msg = PQX_W_NOMEM;
  for (int r = 0; r < wr->nlook && !msg; r++) {
    sqlite3_value *v = wr->look[r * wr->nvals + i];
    texts[r] = NULL;
    lens[r] = 0;
    if (sqlite3_value_type(v) != SQLITE_TEXT) continue;
    texts[r] = (const char *)sqlite3_value_text(v);
    if (!texts[r]) msg = PQX_W_NOMEM;
    lens[r] = (size_t)sqlite3_value_bytes(v);
  }
  pq_buf m;
  pq_buf_init(&m);
  int rc = msg ? PQ_OK
               : pq_nested_variant_shred(tree, a->shred, strlen(a->shred),
                                         texts, lens, wr->nlook, &m);
  if (rc == PQ_NOMEM) msg = PQX_W_NOMEM;
  else if (rc)
    msg = pqx_w_msg(FN ": options%s: %s", a->where,
                    m.len ? (const char *)m.data : "");
  pq_buf_free(&m);
  sqlite3_free(texts);
  sqlite3_free(lens);
  /* the column's own tree, shredded: kept for the type parsed below */
  if (!msg) a->c->tree = tree;
  else pq_nested_free(tree);
  return msg;
}

static char *w_open_writer(Writer *wr);

/* Types, encodings and options of every column; the writer opened (but
** for a folder, whose files each open one). */
static char *w_columns(Writer *wr) {
  char *msg = NULL;
  if (wr->columns_json) {
    msg = each_pair(wr, wr->columns_json, "", names_pair, NULL);
    if (msg) return msg;
  }
  pq_params *ps = wr->ps = sqlite3_malloc64((size_t)wr->ncols * sizeof *ps);
  pq_write_options *os = wr->os =
      sqlite3_malloc64((size_t)wr->ncols * sizeof *os);
  if (!ps || !os) return PQX_W_NOMEM;
  for (int i = 0; i < wr->ncols && !msg; i++) {
    WCol *c = &wr->cols[i];
    c->p = wr->p;
    c->o = wr->o;
    c->has_encoding = wr->has_encoding;
    c->dictionary = wr->dictionary;
    ColArg a;
    memset(&a, 0, sizeof a);
    a.c = c;
    strcpy(a.type, wr->type);
    a.has_type = wr->has_type;
    strcpy(a.enc, wr->encoding);
    snprintf(a.where, sizeof a.where, ": column '%s'", c->name);
    if (wr->columns_json) msg = w_column_options(wr, &a);
    if (!msg && a.shred) msg = w_variant_shred(wr, &a, i);
    sqlite3_free(a.shred);
    if (msg) break;
    /* The type: given, declared, or from the values read ahead.  A type
    ** in the declared type (a parquet table's column) is as if given. */
    int declared = 0;
    if (!a.has_type) {
      declared = decl_type(w_decltype(wr, i), a.type,
                           sizeof a.type);
      if (declared < 0) {
        msg = PQX_W_NOMEM;
        break;
      }
    }
    if (a.has_type || declared) {
      char *why = NULL;
      pq_nested *shredded = c->tree; /* w_variant_shred's */
      c->tree = NULL;
      int nested = pqx_nested_parse(a.type, &c->tree, &why);
      if (shredded) {
        pq_nested_free(c->tree);
        c->tree = shredded;
      }
      if (nested < 0) { /* (checked by apply_key: out of memory) */
        msg = why;
        break;
      }
      if (nested) {
        c->t.kind = pq_nested_kind(c->tree);
        wr->nested = 1;
      } else {
        pq_write_type_parse(a.type, &c->t);
      }
      c->explicit_type = 1;
      c->from_decl = declared;
    } else if (decl_kind(w_decltype(wr, i), &c->t)) {
      c->from_decl = 1;
    } else {
      for (int r = 0; r < wr->nlook; r++) {
        int k = value_kind(sqlite3_value_type(wr->look[r * wr->nvals + i]));
        if (k) {
          c->t.kind = k;
          break;
        }
      }
      /* All NULL so far: INT64, whose values a later row must be. */
      if (!c->t.kind) c->t.kind = PQ_WT_INT64;
    }
    pq_write_type_params(&c->t, &c->p, &c->o);
    if (c->t.crs) { /* (it pointed into a.type) */
      c->crs = sqlite3_malloc64(c->t.crs_len + 1);
      if (!c->crs) {
        msg = PQX_W_NOMEM;
        break;
      }
      memcpy(c->crs, c->t.crs, c->t.crs_len);
      c->crs[c->t.crs_len] = 0;
      c->t.crs = c->o.crs = c->crs;
    }
    snprintf(c->o.name, sizeof c->o.name, "%s", c->name);
    /* The encoding: given (a dictionary encoding means dictionary), else
    ** a dictionary falling back to PLAIN, as careful writers do. */
    pq_write_type_encoding(c->has_encoding ? a.enc : NULL, c->dictionary,
                           &c->p, &c->o);
    c->vsize = c->p.type == PQ_BYTE_ARRAY ? sizeof(pq_bytes)
               : c->p.type == PQ_FIXED_LEN_BYTE_ARRAY ? sizeof(size_t)
                                                      : pq_value_size(c->p.type, 0);
    c->b.values = sqlite3_malloc64((size_t)WRITE_BATCH * c->vsize);
    c->b.present = sqlite3_malloc64(WRITE_BATCH);
    if (!c->b.values || !c->b.present) msg = PQX_W_NOMEM;
    if (c->tree && !msg && pq_nested_leaves(c->tree, &c->p, &c->o))
      msg = PQX_W_NOMEM;
    ps[i] = c->p;
    os[i] = c->o;
    if (wr->cap) { /* a nested column is never captured */
      int keep = 0;
      pq_error err = {0};
      int rc = wr->cap->column(wr->cap->ctx, i, c->name, c->tree != NULL,
                               &c->p, &c->o, &keep, &err);
      if (rc) msg = pqx_w_core(rc, &err);
      c->skip = !keep || c->tree != NULL;
    }
  }
  if (!msg) msg = w_bounds(wr);
  /* Each column alone first, so that a refusal names its column (a nested
  ** column's leaves: pqx_nested_open). */
  for (int i = 0; i < wr->ncols && !msg; i++) {
    if (wr->cols[i].tree || wr->cols[i].skip) continue;
    pq_error err = {0};
    pq_writer *one;
    int rc = pq_writer_open_columns(&one, 1, &ps[i], &os[i], &err);
    pq_writer_free(one);
    if (rc == PQ_NOMEM) msg = PQX_W_NOMEM;
    else if (rc)
      msg = pqx_w_msg(FN ": column '%s': %s", wr->cols[i].name, err.msg);
  }
  /* a folder's writers open with their files */
  if (!msg && !wr->folder && !wr->cap) msg = w_open_writer(wr);
  return msg;
}

/* The core writer of the file (of the folder's next file), of the
** columns' types and options. */
static char *w_open_writer(Writer *wr) {
  char *msg = NULL;
  if (wr->nested) {
    msg = pqx_nested_open(wr);
  } else {
    pq_error err = {0};
    int rc = pq_writer_open_columns(&wr->w, wr->ncols, wr->ps, wr->os, &err);
    if (rc) msg = pqx_w_core(rc, &err);
    for (int i = 0; i < wr->ncols; i++) wr->cols[i].wcol = i;
  }
  if (!msg && (wr->nkv || wr->created_by)) {
    pq_footer_extra x = {(const char *const *)wr->kv_keys,
                         (const char *const *)wr->kv_values, wr->nkv,
                         wr->created_by};
    pq_error err = {0};
    int rc = pq_writer_set_footer(wr->w, &x, &err);
    if (rc) msg = pqx_w_core(rc, &err);
  }
  return msg;
}

/* ---- The file ----------------------------------------------------------------- */

#ifndef PARQUET_OMIT_FILES
/* A name beside base, random, for a file or folder made there and renamed
** to base when whole (sqlite3_mprintf; NULL: out of memory). */
static char *w_tmp_name(const char *base) {
  unsigned char r[6];
  sqlite3_randomness(sizeof r, r);
  return sqlite3_mprintf("%s.tmp-%02x%02x%02x%02x%02x%02x", base, r[0], r[1],
                         r[2], r[3], r[4], r[5]);
}

/* Opens a new file beside the path, under a name of its own, for the
** writer's output (wr->tmp, wr->f).  Its mode is that of a regular file at
** the path, which it is to replace (the permission bits); else 0666, which
** open() narrows by the umask and the folder's default ACL, as for any new
** file.  A symbolic link at the path is not followed: rename() replaces
** the link, so its target is neither written nor does it lend its mode. */
static char *w_create(Writer *wr) {
  struct stat st;
  int keep = lstat(wr->path, &st) == 0 && S_ISREG(st.st_mode);
  mode_t mode = keep ? (st.st_mode & 0777) : 0666;
  for (int tries = 0; tries < 64; tries++) {
    wr->tmp = w_tmp_name(wr->path);
    if (!wr->tmp) return PQX_W_NOMEM;
    /* O_EXCL: a name that is taken, by a file or a link, is never used */
    int fd = open(wr->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) {
      /* the umask narrowed the mode of the file replaced: widen it back */
      if (keep && fchmod(fd, mode) != 0) {
        char *m = pqx_w_msg(FN ": cannot set the mode of '%s': %s", wr->tmp,
                            strerror(errno));
        close(fd);
        return m;
      }
      wr->f = fdopen(fd, "wb");
      if (!wr->f) {
        char *m = pqx_w_msg(FN ": cannot write '%s': %s", wr->tmp,
                            strerror(errno));
        close(fd);
        return m;
      }
      return NULL;
    }
    int e = errno;
    sqlite3_free(wr->tmp);
    wr->tmp = NULL;
    if (e != EEXIST)
      return pqx_w_msg(FN ": cannot write beside '%s': %s", wr->path,
                       strerror(e));
  }
  return pqx_w_msg(FN ": cannot write beside '%s': no free temporary name",
                   wr->path);
}

/* The folder that holds the path, from sqlite3_mprintf (NULL: out of
** memory). */
static char *w_folder(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash == NULL    ? sqlite3_mprintf(".")
         : slash == path ? sqlite3_mprintf("/")
                         : sqlite3_mprintf("%.*s", (int)(slash - path), path);
}

/* Syncs a folder, so that a rename in it lasts; 0 or an errno. */
static int w_sync_folder(const char *dir) {
  int e = 0;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  /* some file systems cannot sync a folder: nothing more to be done */
  if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) e = errno;
  close(fd);
  return e;
}

/* The file complete: flushed, synced (durable), renamed to the path, and
** the folder synced.  Nothing is allocated once the file is at the path:
** what fails after the rename is no allocation. */
static char *w_commit(Writer *wr) {
  char *dir = NULL;
  if (wr->durable && !(dir = w_folder(wr->path))) return PQX_W_NOMEM;
  int e = 0;
  if (fflush(wr->f) != 0) e = errno;
  if (!e && wr->durable && fsync(fileno(wr->f)) != 0) e = errno;
  if (fclose(wr->f) != 0 && !e) e = errno;
  wr->f = NULL;
  char *m = NULL;
  if (e) {
    m = pqx_w_msg(FN ": writing '%s': %s", wr->tmp, strerror(e));
  } else if (rename(wr->tmp, wr->path) != 0) {
    m = pqx_w_msg(FN ": writing '%s': %s", wr->path, strerror(errno));
  } else {
    sqlite3_free(wr->tmp);
    wr->tmp = NULL;
    if (dir && (e = w_sync_folder(dir)) != 0)
      m = pqx_w_msg(FN ": '%s' is written, but its folder could not be "
                       "synced: %s",
                    wr->path, strerror(e));
  }
  sqlite3_free(dir);
  return m;
}
#else
static char *w_create(Writer *wr) {
  (void)wr;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
static char *w_commit(Writer *wr) {
  (void)wr;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
#endif /* PARQUET_OMIT_FILES */

/* ---- The folder --------------------------------------------------------------
** With "partition_by" or "file_size_bytes" the path is a folder of files:
** each partition's rows (the rows whose partition columns have the same
** values) go to files of its hive folder, key=value/... below it, the
** partition columns left out of them unless "write_partition_columns";
** a file closes once it passes file_size_bytes, and the partition's next
** file opens, data_0.parquet, data_1.parquet, ...  The query runs sorted
** by the partition values (their text: 1 and '1' name one folder), in its
** own order within each, so that one file is open at a time and memory
** follows one row group, however many partitions there are (SQLite's
** sorter keeps what passes its cache in temporary files).  The rows go to
** the core's partitioner (src/writer/partition.c), which says where each
** goes.  Every file is written as a single file is (a temporary name,
** synced, renamed), in a new folder beside the path that becomes the path
** once the last is written: the path must not exist, or be an empty
** folder, and a write that fails leaves nothing behind.  Each folder and
** file is made only while the connection's file access is on. */

static char *w_start(Writer *wr);

#ifndef PARQUET_OMIT_FILES
/* The query sorted: WITH pqx_p(c0, ...) AS (<query>) SELECT the columns
** written (under their names), then the partition keys as text, FROM it
** numbered, ORDER BY the keys and the number.  Prepared into wr->q (the
** query alone is finalized), its text into *out for w_wrap. */
static char *w_sort_query(Writer *wr, const char *sql, const char *tail,
                          char **out) {
  int n = sqlite3_column_count(wr->q);
  int key[PART_MAX];
  for (int k = 0; k < wr->npart; k++) {
    key[k] = -1;
    for (int i = 0; i < n && key[k] < 0; i++) {
      const char *name = sqlite3_column_name(wr->q, i);
      if (!name) return PQX_W_NOMEM;
      if (strcmp(name, wr->part_names[k]) == 0) key[k] = i;
    }
    if (key[k] < 0)
      return pqx_w_msg(FN ": options: \"partition_by\": the query has no "
                          "column \"%s\"",
                       wr->part_names[k]);
  }
  if (!wr->write_part && wr->npart >= n)
    return pqx_w_msg(FN ": options: \"partition_by\" names every column, "
                        "which leaves none to write (\"write_partition_columns\": "
                        "true writes them in the files too)");
  if (wr->npart == 0) return NULL; /* file_size_bytes alone: as it is */
  size_t len = tail ? (size_t)(tail - sql) : strlen(sql);
  while (len && (sql[len - 1] == ';' || sql[len - 1] == ' ' ||
                 sql[len - 1] == '\n' || sql[len - 1] == '\t' ||
                 sql[len - 1] == '\r'))
    len--;
  sqlite3_str *s = sqlite3_str_new(wr->db);
  sqlite3_str_appendall(s, "WITH pqx_p(");
  for (int i = 0; i < n; i++) sqlite3_str_appendf(s, "%sc%d", i ? "," : "", i);
  sqlite3_str_appendf(s, ") AS (%.*s\n) SELECT ", (int)len, sql);
  int first = 1;
  for (int i = 0; i < n; i++) {
    int is_key = 0;
    for (int k = 0; k < wr->npart; k++) is_key |= key[k] == i;
    if (is_key && !wr->write_part) continue;
    const char *name = sqlite3_column_name(wr->q, i);
    if (!name) {
      sqlite3_free(sqlite3_str_finish(s));
      return PQX_W_NOMEM;
    }
    sqlite3_str_appendf(s, "%sc%d AS \"%w\"", first ? "" : ", ", i, name);
    first = 0;
  }
  for (int k = 0; k < wr->npart; k++)
    sqlite3_str_appendf(s, ", CAST(c%d AS TEXT)", key[k]);
  sqlite3_str_appendall(s, " FROM (SELECT *, row_number() OVER () AS pqx_n "
                           "FROM pqx_p) ORDER BY ");
  for (int k = 0; k < wr->npart; k++)
    sqlite3_str_appendf(s, "CAST(c%d AS TEXT), ", key[k]);
  sqlite3_str_appendall(s, "pqx_n");
  char *text = sqlite3_str_finish(s);
  if (!text) return PQX_W_NOMEM;
  sqlite3_stmt *q = NULL;
  int rc = sqlite3_prepare_v2(wr->db, text, -1, &q, NULL);
  if (rc) {
    sqlite3_free(text);
    return pqx_w_sql(wr->db, rc, "query");
  }
  sqlite3_finalize(wr->q);
  wr->q = q;
  *out = text;
  return NULL;
}

/* The files may be written (parquet_file_access may have turned them off
** since the call began: the query runs on the connection). */
static char *w_files_allowed(Writer *wr) {
  char *m;
  if (pqx_files_allowed(wr->db, FN, &m)) return NULL;
  return m ? m : PQX_W_NOMEM;
}

/* Whether the folder dir holds nothing: 1, 0, or -1 (errno) when it
** cannot be read. */
static int w_empty_folder(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
  closedir(d);
  return empty;
}

/* The folder the files go to, beside the path (wr->root_tmp). */
static char *w_make_root(Writer *wr) {
  char *m = w_files_allowed(wr);
  if (m) return m;
  struct stat st;
  if (lstat(wr->root, &st) == 0 &&
      (!S_ISDIR(st.st_mode) || w_empty_folder(wr->root) != 1))
    return pqx_w_msg(FN ": '%s' exists: \"partition_by\" and "
                        "\"file_size_bytes\" write a new folder, or fill "
                        "an empty one",
                     wr->root);
  for (int tries = 0; tries < 64; tries++) {
    wr->root_tmp = w_tmp_name(wr->root);
    if (!wr->root_tmp) return PQX_W_NOMEM;
    if (mkdir(wr->root_tmp, 0777) == 0) return NULL;
    int e = errno;
    sqlite3_free(wr->root_tmp);
    wr->root_tmp = NULL;
    if (e != EEXIST)
      return pqx_w_msg(FN ": cannot write beside '%s': %s", wr->root,
                       strerror(e));
  }
  return pqx_w_msg(FN ": cannot write beside '%s': no free temporary name",
                   wr->root);
}

/* Makes the folders of wr->fname's file below root_tmp (each synced into
** its parent when durable), and sets wr->path to the file. */
static char *w_make_folders(Writer *wr) {
  const char *name = (const char *)wr->fname.data;
  size_t n = wr->fname.len;
  for (size_t i = 0; i < n; i++) {
    if (name[i] != '/') continue;
    char *dir = sqlite3_mprintf("%s/%.*s", wr->root_tmp, (int)i, name);
    if (!dir) return PQX_W_NOMEM;
    int e = mkdir(dir, 0777) == 0 ? 0 : errno;
    char *m = NULL;
    if (e == 0 && wr->durable) {
      char *parent = w_folder(dir);
      if (!parent) m = PQX_W_NOMEM;
      else if ((e = w_sync_folder(parent)) != 0)
        m = pqx_w_msg(FN ": syncing '%s': %s", parent, strerror(e));
      sqlite3_free(parent);
    } else if (e && e != EEXIST) {
      m = pqx_w_msg(FN ": cannot make the folder '%s': %s", dir, strerror(e));
    }
    sqlite3_free(dir);
    if (m) return m;
  }
  sqlite3_free(wr->path);
  wr->path = sqlite3_mprintf("%s/%.*s", wr->root_tmp, (int)n, name);
  return wr->path ? NULL : PQX_W_NOMEM;
}

/* Opens the next file (the partitioner's), its folders, its writer. */
static char *w_begin_file(Writer *wr) {
  char *m = w_files_allowed(wr);
  if (m) return m;
  struct stat st;
  do { /* a name taken (a partition met again) is passed over */
    wr->fname.len = 0;
    if (pq_partitioner_name(&wr->part, &wr->fname)) return PQX_W_NOMEM;
    m = w_make_folders(wr);
    if (m) return m;
  } while (lstat(wr->path, &st) == 0);
  m = w_open_writer(wr);
  if (!m) m = w_create(wr);
  if (m) return m;
  pq_writer_set_sink(wr->w, w_sink, wr);
  pq_partitioner_opened(&wr->part);
  wr->file_bytes = 0;
  wr->groups = 0;
  wr->group_rows = 0;
  return NULL;
}

/* Closes the file open: its last batch and row group, its footer, and
** the file committed to its name. */
static char *w_end_file(Writer *wr) {
  char *m = w_hand(wr, 0);
  if (!m && (wr->group_rows > 0 || wr->groups == 0)) m = w_count_group(wr);
  if (m) return m;
  pq_error err = {0};
  int rc = pq_writer_finish(wr->w, &wr->out, &err);
  m = rc ? w_core_error(wr, rc, &err) : w_flush(wr);
  if (!m) m = w_commit(wr);
  if (m) return m;
  pq_writer_free(wr->w);
  wr->w = NULL;
  pq_partitioner_closed(&wr->part);
  wr->group_rows = 0;
  wr->groups = 0;
  return NULL;
}

/* Sends the row of partition keys keys[0..npart) to its file: the one
** open, or a new one. */
static char *w_route(Writer *wr, sqlite3_value **keys) {
  const char *vals[PART_MAX];
  size_t lens[PART_MAX];
  for (int k = 0; k < wr->npart; k++) {
    vals[k] = NULL;
    lens[k] = 0;
    if (sqlite3_value_type(keys[k]) == SQLITE_NULL) continue;
    vals[k] = (const char *)sqlite3_value_text(keys[k]);
    if (!vals[k]) return PQX_W_NOMEM;
    lens[k] = (size_t)sqlite3_value_bytes(keys[k]);
  }
  pq_buf *folder = &wr->key;
  folder->len = 0;
  pq_hive_folder(folder, wr->npart, (const char *const *)wr->part_names,
                 vals, lens);
  char *m = folder->oom ? PQX_W_NOMEM : NULL;
  while (!m) {
    int rc = pq_partitioner_route(
        &wr->part, folder->data ? (const char *)folder->data : "", folder->len);
    if (rc == PQ_PART_WRITE) break;
    if (rc == PQ_PART_CLOSE) {
      m = w_end_file(wr);
    } else if (rc == PQ_PART_OPEN) {
      m = w_begin_file(wr);
      break;
    } else {
      m = PQX_W_NOMEM;
    }
  }
  return m;
}

/* The rows all written: the last file closed (a folder without
** partitions has one file at least), and the folder renamed to the path,
** which it replaces if it is an empty folder. */
static char *w_end_folder(Writer *wr) {
  char *m = NULL;
  if (!wr->started) m = w_start(wr);
  if (!m && !wr->part.open && wr->npart == 0 && wr->part.files == 0)
    m = w_route(wr, NULL);
  if (!m && wr->part.open) m = w_end_file(wr);
  if (m) return m;
  char *dir = NULL;
  if (wr->durable && !(dir = w_folder(wr->root))) return PQX_W_NOMEM;
  if (rename(wr->root_tmp, wr->root) != 0) {
    m = pqx_w_msg(FN ": writing '%s': %s", wr->root, strerror(errno));
  } else {
    sqlite3_free(wr->root_tmp);
    wr->root_tmp = NULL;
    int e;
    if (dir && (e = w_sync_folder(dir)) != 0)
      m = pqx_w_msg(FN ": '%s' is written, but its folder could not be "
                       "synced: %s",
                    wr->root, strerror(e));
  }
  sqlite3_free(dir);
  return m;
}

static int w_remove_one(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (flag == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

/* The folder's leftovers: what a failed write made goes. */
static void w_free_folder(Writer *wr) {
  /* (w_free closed the file open and took its temporary name away) */
  if (wr->root_tmp) nftw(wr->root_tmp, w_remove_one, 16, FTW_DEPTH | FTW_PHYS);
  sqlite3_free(wr->root_tmp);
  sqlite3_free(wr->root);
  for (int i = 0; i < wr->npart; i++) sqlite3_free(wr->part_names[i]);
  sqlite3_free(wr->part_names);
  pq_partitioner_free(&wr->part);
  pq_buf_free(&wr->fname);
  pq_buf_free(&wr->key);
  sqlite3_free(wr->ps);
  sqlite3_free(wr->os);
}
#else
static char *w_sort_query(Writer *wr, const char *sql, const char *tail,
                          char **out) {
  (void)wr, (void)sql, (void)tail, (void)out;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
static char *w_make_root(Writer *wr) {
  (void)wr;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
static char *w_route(Writer *wr, sqlite3_value **keys) {
  (void)wr, (void)keys;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
static char *w_end_file(Writer *wr) {
  (void)wr;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
static char *w_end_folder(Writer *wr) {
  (void)wr;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
static void w_free_folder(Writer *wr) {
  for (int i = 0; i < wr->npart; i++) sqlite3_free(wr->part_names[i]);
  sqlite3_free(wr->part_names);
  pq_partitioner_free(&wr->part);
  pq_buf_free(&wr->fname);
  pq_buf_free(&wr->key);
  sqlite3_free(wr->ps);
  sqlite3_free(wr->os);
}
#endif /* PARQUET_OMIT_FILES */

/* ---- The function ------------------------------------------------------------- */

static void w_free(Writer *wr) {
  w_stop(wr);
  if (wr->look) {
    for (int i = 0; i < wr->nlook * wr->nvals; i++) sqlite3_value_free(wr->look[i]);
    sqlite3_free(wr->look);
  }
  for (int i = 0; wr->cols && i < wr->ncols; i++) {
    sqlite3_free(wr->cols[i].b.values);
    sqlite3_free(wr->cols[i].b.present);
    pq_buf_free(&wr->cols[i].b.heap);
    sqlite3_free(wr->cols[i].sp.values);
    sqlite3_free(wr->cols[i].sp.present);
    pq_buf_free(&wr->cols[i].sp.heap);
    pq_nested_free(wr->cols[i].tree);
    sqlite3_free(wr->cols[i].crs);
  }
  sqlite3_free(wr->cols);
  for (int i = 0; i < wr->nkv; i++) {
    sqlite3_free(wr->kv_keys[i]);
    sqlite3_free(wr->kv_values[i]);
  }
  sqlite3_free(wr->kv_keys);
  sqlite3_free(wr->kv_values);
  sqlite3_free(wr->created_by);
  sqlite3_free(wr->columns_json);
  pq_writer_free(wr->w);
  sqlite3_finalize(wr->qw);
  sqlite3_finalize(wr->q);
  if (wr->f) fclose(wr->f);
#ifndef PARQUET_OMIT_FILES
  if (wr->tmp) unlink(wr->tmp);
#endif
  sqlite3_free(wr->tmp);
  sqlite3_free(wr->path);
  pq_buf_free(&wr->out);
  w_free_folder(wr);
}

/* One row's values into the batches; the batch to the writer when full,
** the row group to the file when complete. */
static char *w_row(Writer *wr, sqlite3_value **vals) {
  if (wr->folder) {
    char *r = w_route(wr, vals + wr->ncols);
    if (r) return r;
  }
  for (int i = 0; i < wr->ncols; i++) {
    if (wr->cols[i].skip) continue;
    /* a fault leaves the columns before it a row ahead: the write fails */
    char *m = wr->cols[i].tree ? pqx_nested_put(wr, i, vals[i])
                               : w_put_value(wr, i, vals[i]);
    if (m) return m;
  }
  wr->group_rows++;
  wr->batch_rows++;
  /* row_group_bytes and file_size_bytes are looked at after each batch:
  ** smaller ones then */
  int batch = wr->batch_rows ==
              (wr->group_bytes > 0 || wr->file_size > 0 ? WRITE_BATCH_BYTES
                                                        : WRITE_BATCH);
  int group = wr->group_rows == wr->group_size;
  if (!batch && !group) return NULL;
  if (group) {
    wr->group_rows = 0;
    char *g = w_count_group(wr);
    if (g) return g;
  }
  char *m = w_hand(wr, group);
  /* A row group also closes (looked at after each batch, on the calling
  ** thread) once it takes row_group_bytes encoded. */
  if (!m && !group && wr->group_bytes > 0 &&
      pq_writer_group_bytes(wr->w) >= wr->group_bytes) {
    wr->group_rows = 0;
    m = w_count_group(wr);
    if (!m) m = w_group(wr);
  }
  /* A folder's file closes once it takes file_size_bytes: the next row
  ** opens the next. */
  if (!m && wr->folder &&
      pq_partitioner_full(&wr->part,
                          wr->file_bytes + pq_writer_group_bytes(wr->w)))
    m = w_end_file(wr);
  return m;
}

/* Types the columns (by the rows read ahead), opens the output, and
** writes the rows read ahead. */
static char *w_start(Writer *wr) {
  wr->started = 1;
  char *msg = w_columns(wr);
  if (msg) return msg;
  wr->threaded = wr->threads != 1 && !wr->nested && wr->group_bytes == 0 &&
                 !wr->folder && !wr->cap && sqlite3_threadsafe();
  if (wr->folder) {
    msg = w_make_root(wr); /* its files open with their first rows */
    if (msg) return msg;
  } else if (wr->out_null) {
    wr->limit = pqx_db_limit(wr->db);
  } else {
    msg = w_create(wr);
    if (msg) return msg;
    pq_writer_set_sink(wr->w, w_sink, wr);
  }
  for (int r = 0; r < wr->nlook; r++) {
    msg = w_row(wr, wr->look + r * wr->nvals);
    if (msg) return msg;
  }
  return NULL;
}

/* One row of the query: kept until WRITE_LOOK rows have typed the
** columns, then written. */
static char *w_take(Writer *wr, sqlite3_value **vals) {
  if (wr->started) return w_row(wr, vals);
  sqlite3_value **row = wr->look + wr->nlook * wr->nvals;
  for (int i = 0; i < wr->nvals; i++) {
    row[i] = sqlite3_value_dup(vals[i]);
    if (!row[i]) {
      for (int k = 0; k < i; k++) sqlite3_value_free(row[k]);
      return PQX_W_NOMEM;
    }
  }
  if (++wr->nlook == WRITE_LOOK) return w_start(wr);
  return NULL;
}

/* The row function, pqx_write_row(writer, v1, ..., vn), which the query
** wrapped by w_wrap calls on each row: the values come as its arguments,
** not one sqlite3_column_value() (and its mutex) at a time. */
static void rowFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  /* The pointer's type is compared once: a bound parameter keeps its
  ** auxiliary data from row to row. */
  Writer *wr = sqlite3_get_auxdata(ctx, 0);
  if (!wr) {
    wr = sqlite3_value_pointer(argv[0], ROW_PTR);
    if (wr) sqlite3_set_auxdata(ctx, 0, wr, NULL);
  }
  if (!wr || argc != wr->nvals + 1) {
    sqlite3_result_error(ctx, ROW_FN ": for parquet_write only", -1);
    return;
  }
  char *msg = w_take(wr, argv + 1);
  if (!msg) return;
  /* the message stays the writer's: writeFunc takes it from there */
  wr->row_msg = msg;
  if (msg == PQX_W_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error(ctx, msg, -1);
  }
}

/* Prepares the query sql[0..tail) wrapped as
**   WITH q(c1, ..., cn) AS (<query>) SELECT pqx_write_row(?1, c1, ..., cn) FROM q
** into wr->qw.  A query that is not a read-only SELECT, or has more
** columns than a function takes, is left to be stepped as it is (wr->qw
** NULL). */
static char *w_wrap(Writer *wr, const char *sql, const char *tail) {
  if (wr->nvals > ROW_MAX_COLS) return NULL;
  size_t n = tail ? (size_t)(tail - sql) : strlen(sql);
  while (n && (sql[n - 1] == ';' || sql[n - 1] == ' ' || sql[n - 1] == '\n' ||
               sql[n - 1] == '\t' || sql[n - 1] == '\r'))
    n--;
  sqlite3_str *s = sqlite3_str_new(wr->db);
  sqlite3_str_appendall(s, "WITH pqx_q(");
  for (int i = 0; i < wr->nvals; i++) sqlite3_str_appendf(s, "%sc%d", i ? "," : "", i);
  sqlite3_str_appendf(s, ") AS (%.*s\n) SELECT " ROW_FN "(?1", (int)n, sql);
  for (int i = 0; i < wr->nvals; i++) sqlite3_str_appendf(s, ",c%d", i);
  sqlite3_str_appendall(s, ") FROM pqx_q");
  char *w = sqlite3_str_finish(s);
  if (!w) return PQX_W_NOMEM;
  /* The query wrapped is a SELECT, as the query alone was; were it not
  ** (no query known does that), it is not used. */
  int rc = sqlite3_prepare_v2(wr->db, w, -1, &wr->qw, NULL);
  sqlite3_free(w);
  if ((rc & 0xff) == SQLITE_NOMEM) return PQX_W_NOMEM;
  if (rc != SQLITE_OK || !sqlite3_stmt_readonly(wr->qw)) {
    sqlite3_finalize(wr->qw);
    wr->qw = NULL;
  } else {
    sqlite3_bind_pointer(wr->qw, 1, wr, ROW_PTR, NULL);
  }
  return NULL;
}

/* The refusals of a call before anything is read (access.c): from a
** database's schema, or to a path when files are off or the path is not
** one.  1 when refused (the error set). */
static int w_refused(sqlite3_context *ctx, sqlite3_value *path) {
  if (sqlite3_value_type(path) == SQLITE_NULL) return pqx_guard_call(ctx, FN);
  if (pqx_guard(ctx, FN)) return 1;
  const char *p;
  char *msg;
  int rc = pqx_path_arg(path, FN, &p, &msg);
  if (rc == SQLITE_OK) return 0;
  pqx_result_error_msg(ctx, msg);
  return 1;
}

/* The query prepared must not write (the calling statement is a SELECT,
** which tools vet as read-only by sqlite3_stmt_readonly) and must have no
** parameter (nothing would bind it: it would read as NULL).  NULL when it
** may run, else a message. */
static char *w_query_refused(sqlite3_stmt *q) {
  if (!sqlite3_stmt_readonly(q))
    return pqx_w_msg(FN ": the query writes the database: '%s' (it "
                        "must be read-only, as a SELECT is; run the "
                        "change as a statement of its own, then write "
                        "its rows with a SELECT)",
                     sqlite3_sql(q));
  int n = sqlite3_bind_parameter_count(q);
  if (n > 0) {
    /* the first with a name (?5 leaves ?1 to ?4 nameless), else "?" */
    const char *name = NULL;
    for (int i = 1; i <= n && !name; i++) name = sqlite3_bind_parameter_name(q, i);
    return pqx_w_msg(
        FN ": the query has a parameter, %s, that nothing binds: "
           "parquet_write binds no values; write them into the query's "
           "text, as in parquet_write('f.parquet', format('SELECT * FROM t "
           "WHERE year = %%d', ?1)), where ?1 is a parameter of the "
           "calling statement",
        name ? name : "?");
  }
  return NULL;
}

/* A writer of parquet_write's defaults, on db. */
static void w_init(Writer *wr, sqlite3 *db) {
  memset(wr, 0, sizeof *wr);
  wr->db = db;
  wr->durable = 1;
  wr->dictionary = -1;
  wr->group_size = WRITE_GROUP;
  pq_params_init(&wr->p);
  pq_write_options_init(&wr->o);
  wr->o.page_index = 1;
  /* SNAPPY, as careful writers default to (DuckDB, Arrow, Spark), when
  ** the build has it */
  if (pq_codec_available(PQ_SNAPPY)) wr->o.codec = PQ_SNAPPY;
  pq_buf_init(&wr->out);
  pq_buf_init(&wr->fname);
  pq_buf_init(&wr->key);
  pq_partitioner_init(&wr->part, 0);
}

/* The options, a JSON object's text, applied. */
static char *w_options(Writer *wr, const char *opts) {
  /* json_type: malformed JSON is its error (json_valid, out of memory,
  ** says 0 as for malformed JSON) */
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(wr->db, "SELECT json_type(?1) = 'object'", -1,
                              &st, NULL);
  int valid = 0;
  if (rc == SQLITE_OK) {
    sqlite3_bind_text(st, 1, opts, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    valid = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
  }
  if ((rc & 0xff) == SQLITE_NOMEM) return PQX_W_NOMEM;
  if (!valid) return pqx_w_msg(FN ": options: expected a JSON object");
  return each_pair(wr, opts, "", top_pair, NULL);
}

/* Runs the query sql (one read-only statement) into the writer: its
** columns typed, the output opened (path, or NULL for a BLOB), every row
** written but the last batch.  NULL, or the message. */
static char *w_read(Writer *wr, const char *sql, const char *path) {
  char *msg = NULL, *sorted = NULL;
  /* The query: one statement. */
  const char *tail = NULL;
  int rc = SQLITE_OK;
  /* (a row source: its statement, its rows) */
  const pqx_capture_rows *in = wr->in;
  if (in && !in->sql) {
    wr->q = in->st;
    goto query_ready;
  }
  rc = sqlite3_prepare_v2(wr->db, sql, -1, &wr->q, &tail);
  if (rc != SQLITE_OK) {
    msg = pqx_w_sql(wr->db, rc, "query");
    goto done;
  }
  if (!wr->q) {
    msg = pqx_w_msg(FN ": the query is empty");
    goto done;
  }
  msg = w_query_refused(wr->q);
  if (msg) goto done;
  while (tail && (*tail == ' ' || *tail == ';' || *tail == '\n' ||
                  *tail == '\t' || *tail == '\r'))
    tail++;
  if (tail && *tail) {
    msg = pqx_w_msg(FN ": the query is more than one statement: '%s'", tail);
    goto done;
  }
query_ready:;
  int ncols = sqlite3_column_count(wr->q);
  if (ncols == 0) {
    msg = pqx_w_msg(FN ": the query returns no columns");
    goto done;
  }
  /* A folder: the query sorted by its partition keys, which follow the
  ** columns written. */
  wr->folder = wr->npart > 0 || wr->file_size > 0;
  wr->part.file_size = wr->file_size;
  if (wr->folder) {
    if (!path) {
      msg = pqx_w_msg(FN ": \"partition_by\" and \"file_size_bytes\" "
                         "write a folder of files: the path cannot be "
                         "NULL");
      goto done;
    }
    msg = w_sort_query(wr, sql, tail, &sorted);
    if (msg) goto done;
    ncols = sqlite3_column_count(wr->q) - wr->npart;
  }
  wr->nvals = ncols + wr->npart;
  wr->cols = sqlite3_malloc64((size_t)ncols * sizeof *wr->cols);
  msg = PQX_W_NOMEM;
  if (!wr->cols) goto done;
  memset(wr->cols, 0, (size_t)ncols * sizeof *wr->cols);
  wr->ncols = ncols;
  for (int i = 0; i < wr->ncols; i++) {
    wr->cols[i].name = (char *)sqlite3_column_name(wr->q, i);
    if (!wr->cols[i].name) goto done;
    for (int j = 0; j < i; j++)
      if (strcmp(wr->cols[j].name, wr->cols[i].name) == 0) {
        msg = pqx_w_msg(FN ": the query has two columns named '%s' (name "
                           "them apart with AS)",
                        wr->cols[i].name);
        goto done;
      }
    pq_buf_init(&wr->cols[i].b.heap);
    pq_buf_init(&wr->cols[i].sp.heap);
  }
  wr->look = sqlite3_malloc64((size_t)WRITE_LOOK * (size_t)wr->nvals * sizeof *wr->look);
  if (!wr->look) goto done;
  wr->out_null = !path;
  if (!wr->out_null) {
    if (wr->folder) {
      wr->root = sqlite3_mprintf("%s", path ? path : "");
      if (!wr->root) goto done;
      /* 'out/' is the folder 'out' (its temporary one goes beside it) */
      size_t n = strlen(wr->root);
      while (n > 1 && wr->root[n - 1] == '/') wr->root[--n] = 0;
    } else {
      wr->path = sqlite3_mprintf("%s", path ? path : "");
      if (!wr->path) goto done;
    }
  }
  /* The rows: through the row function when the query can be wrapped in
  ** one, else stepped here. */
  /* (a sample, or a row source: stepped here, each row seen) */
  int sampled = in && (in->first > 0 || in->every > 1);
  msg = NULL;
  if (!sampled && !(in && !in->sql))
    msg = sorted ? w_wrap(wr, sorted, NULL) : w_wrap(wr, sql, tail);
  sqlite3_free(sorted);
  sorted = NULL;
  if (msg) goto done;
  sqlite3_stmt *run = wr->qw ? wr->qw : wr->q;
  int64_t seen = 0, taken = 0;
  for (;;) {
    if (in && in->first > 0 && taken >= in->first) break;
    char *why = NULL;
    rc = in && !in->sql ? in->step(in->ctx, &why) : sqlite3_step(run);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      /* the source's, the row function's own fault, else the query's */
      msg = why                     ? why
            : in && !in->sql        ? (rc == SQLITE_NOMEM
                                           ? PQX_W_NOMEM
                                           : pqx_w_msg(FN ": rows: %s",
                                                       sqlite3_errstr(rc)))
            : wr->row_msg           ? wr->row_msg
                                    : pqx_w_sql(wr->db, rc, "query");
      if (!why) wr->row_msg = NULL;
      goto done;
    }
    if (run == wr->qw) continue;
    if (in && in->every > 1 && seen++ % in->every) continue;
    taken++;
    sqlite3_value *vals[64];
    sqlite3_value **vp = vals;
    if (wr->nvals > 64) {
      vp = sqlite3_malloc64((size_t)wr->nvals * sizeof *vp);
      msg = PQX_W_NOMEM;
      if (!vp) goto done;
    }
    for (int i = 0; i < wr->nvals; i++) vp[i] = sqlite3_column_value(wr->q, i);
    msg = w_take(wr, vp);
    if (vp != vals) sqlite3_free(vp);
    if (msg) goto done;
  }
  if (!wr->started) {
    msg = w_start(wr);
    if (msg) goto done;
  }
done:
  sqlite3_free(sorted);
  return msg;
}

static void writeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (w_refused(ctx, argv[0])) return;
  Writer wr;
  w_init(&wr, sqlite3_context_db_handle(ctx));
  char *msg = NULL;
  const char *sql = (const char *)sqlite3_value_text(argv[1]);
  if (!sql) {
    w_result_error(ctx, sqlite3_value_type(argv[1]) == SQLITE_NULL
                            ? pqx_w_msg(FN ": the query is NULL")
                            : PQX_W_NOMEM);
    return;
  }
  if (argc > 2 && sqlite3_value_type(argv[2]) != SQLITE_NULL) {
    const char *opts = (const char *)sqlite3_value_text(argv[2]);
    if (!opts) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    msg = w_options(&wr, opts);
    if (msg) goto fail;
  }
  /* checked by w_refused: TEXT without a NUL */
  const char *path = sqlite3_value_type(argv[0]) == SQLITE_NULL
                         ? NULL
                         : (const char *)sqlite3_value_text(argv[0]);
  if (sqlite3_value_type(argv[0]) != SQLITE_NULL && !path) {
    msg = PQX_W_NOMEM;
    goto fail;
  }
  msg = w_read(&wr, sql, path);
  if (msg) goto fail;
  if (wr.folder) {
    msg = w_end_folder(&wr);
    if (msg) goto fail;
    sqlite3_result_int64(ctx, wr.rows);
    w_free(&wr);
    return;
  }
  msg = w_last(&wr);
  if (msg) goto fail;
  /* the last row group, closed by the footer (or an empty one) */
  if (wr.group_rows > 0 || wr.groups == 0) {
    msg = w_count_group(&wr);
    if (msg) goto fail;
  }
  pq_error err = {0};
  int rc = pq_writer_finish(wr.w, &wr.out, &err);
  msg = rc ? w_core_error(&wr, rc, &err) : w_flush(&wr);
  if (!msg && wr.f) msg = w_commit(&wr);
  if (msg) goto fail;
  if (wr.out_null) {
    /* the file's bytes become the result (pq_free: SQLite's allocator) */
    sqlite3_result_blob64(ctx, wr.out.data, wr.out.len, pq_free);
    pq_buf_init(&wr.out);
  } else {
    sqlite3_result_int64(ctx, wr.rows);
  }
  w_free(&wr);
  return;
fail:
  w_result_error(ctx, msg);
  w_free(&wr);
}

char *pqx_write_capture(sqlite3 *db, const pqx_capture_rows *rows,
                        const char *opts, const pqx_capture *cap) {
  Writer wr;
  w_init(&wr, db);
  wr.cap = cap;
  wr.in = rows;
  char *msg = opts ? w_options(&wr, opts) : NULL;
  if (!msg && (wr.npart > 0 || wr.file_size > 0))
    msg = pqx_w_msg(FN ": options: \"%s\" writes a folder of files, of "
                       "which one column alone is not measured",
                    wr.npart > 0 ? "partition_by" : "file_size_bytes");
  if (!msg && wr.group_bytes > 0)
    msg = pqx_w_msg(FN ": options: \"row_group_bytes\" closes row groups "
                       "by the bytes of every column, which one column "
                       "alone does not have");
  if (!msg) msg = w_read(&wr, rows->sql, NULL);
  if (!msg) msg = w_last(&wr);
  if (!rows->sql) wr.q = NULL; /* (the source's) */
  w_free(&wr);
  return msg;
}

int pqx_register_write(sqlite3 *db) {
  int rc = sqlite3_create_function(db, ROW_FN, -1,
                                   SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
                                   rowFunc, NULL, NULL);
  for (int n = 2; n <= 3 && rc == SQLITE_OK; n++)
    rc = sqlite3_create_function(db, FN, n, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                 NULL, writeFunc, NULL, NULL);
  return rc;
}
