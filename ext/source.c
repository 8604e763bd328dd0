/*
** source.c -- what functions that read Parquet files share: a `source`
** argument (a path, read by descriptor (fileio.c); or the file image as a
** BLOB), the iterator over the files a glob or folder names (pqx_sources),
** names of the format's enums, and statistics as text.
*/
#define _POSIX_C_SOURCE 200809L /* stat */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ext.h"

/* Reads the footer of the source's file: the image s holds, or the file
** its descriptor reads; sets *msg on failure. */
static int source_parse(pqx_source *s, const char *fn, char **msg) {
  pq_error err;
  int rc;
  if (s->name) {
    pq_input in = pqx_file_input(&s->fd);
    rc = pq_file_open_input(&s->file, &in, &err);
  } else {
    rc = pq_file_open(&s->file, s->buf, s->len, &err);
  }
  if (rc) {
    if (rc == PQ_NOMEM) return SQLITE_NOMEM;
    *msg = pqx_source_error(fn, s->name, &err);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Opens s->name, its descriptor kept, and reads its footer. */
static int source_open_name(pqx_source *s, sqlite3 *db, const char *fn,
                            char **msg) {
  int rc = pqx_file_open(&s->fd, db, fn, s->name, msg);
  if (rc == SQLITE_OK) rc = source_parse(s, fn, msg);
  return rc;
}

/* The error of a source that is neither TEXT nor BLOB. */
static char *source_type_error(const char *fn, int vt) {
  return sqlite3_mprintf(
      "%s: the source is a file path (TEXT) or a file image (BLOB), not %s",
      fn, vt == SQLITE_NULL ? "NULL" : "a number");
}

int pqx_source_open_path(pqx_source *s, sqlite3 *db, const char *path,
                         const char *fn, char **msg) {
  memset(s, 0, sizeof *s);
  *msg = NULL;
  s->name = sqlite3_mprintf("%s", path);
  if (!s->name) return SQLITE_NOMEM;
  return source_open_name(s, db, fn, msg);
}

/* A source that is a path: TEXT without a NUL byte, on a connection
** whose file access is on. */
static int source_path(sqlite3 *db, sqlite3_value *v, const char *fn,
                       const char **path, char **msg) {
  int rc = pqx_path_arg(v, fn, path, msg);
  if (rc) return rc;
  if (!pqx_files_allowed(db, fn, msg)) return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  return SQLITE_OK;
}

int pqx_source_open(pqx_source *s, sqlite3 *db, sqlite3_value *v,
                    const char *fn, int copy, char **msg) {
  memset(s, 0, sizeof *s);
  *msg = NULL;
  int vt = sqlite3_value_type(v);
  if (vt == SQLITE_TEXT) {
    const char *path;
    int rc = source_path(db, v, fn, &path, msg);
    return rc ? rc : pqx_source_open_path(s, db, path, fn, msg);
  } else if (vt == SQLITE_BLOB) {
    const void *p = sqlite3_value_blob(v);
    s->len = (size_t)sqlite3_value_bytes(v);
    if (copy) {
      s->copy = sqlite3_malloc64(s->len ? s->len : 1);
      if (!s->copy) return SQLITE_NOMEM;
      if (s->len) memcpy(s->copy, p, s->len);
      s->buf = s->copy;
    } else {
      s->buf = p ? p : (const void *)"";
    }
  } else {
    *msg = source_type_error(fn, vt);
    return SQLITE_ERROR;
  }
  return source_parse(s, fn, msg);
}

void pqx_source_close(pqx_source *s) {
  pq_file_free(s->file);
  pqx_file_close(&s->fd);
  sqlite3_free(s->copy);
  sqlite3_free(s->name);
  memset(s, 0, sizeof *s);
}

/* ---- Sources: a BLOB, a path, or a glob or folder's files ------------- */

/* 1 when the path names a folder, or is a glob that names nothing as it
** is written: a file whose name has a glob character is still that file,
** as it was before globs. */
static int source_is_many(const char *path) {
  if (pqx_is_s3_glob(path)) return 1;
  if (pqx_is_url(path)) return 0; /* a URL's '?' begins its query */
#ifndef PARQUET_OMIT_FILES
  struct stat st;
  if (stat(path, &st) == 0) return S_ISDIR(st.st_mode);
#endif
  return strpbrk(path, "*?[") != NULL;
}

int pqx_sources_open(pqx_sources *ss, sqlite3 *db, sqlite3_value *v,
                     const char *fn, char **msg) {
  memset(ss, 0, sizeof *ss);
  ss->fn = fn;
  ss->db = db;
  *msg = NULL;
  int vt = sqlite3_value_type(v);
  if (vt == SQLITE_BLOB) {
    const void *p = sqlite3_value_blob(v);
    ss->blob_len = (size_t)sqlite3_value_bytes(v);
    ss->blob = sqlite3_malloc64(ss->blob_len ? ss->blob_len : 1);
    if (!ss->blob) return SQLITE_NOMEM;
    if (ss->blob_len) memcpy(ss->blob, p, ss->blob_len);
    ss->is_blob = 1;
    ss->n = 1;
    return SQLITE_OK;
  }
  if (vt != SQLITE_TEXT) {
    *msg = source_type_error(fn, vt);
    return SQLITE_ERROR;
  }
  const char *path;
  int rc = source_path(db, v, fn, &path, msg);
  if (rc) return rc;
  if (source_is_many(path)) {
    return pqx_paths_expand(db, fn, path, &ss->paths, &ss->n, msg);
  }
  ss->paths = sqlite3_malloc64(sizeof *ss->paths);
  if (!ss->paths) return SQLITE_NOMEM;
  ss->paths[0] = sqlite3_mprintf("%s", path);
  if (!ss->paths[0]) return SQLITE_NOMEM; /* ss->n is 0: paths is freed */
  ss->n = 1;
  return SQLITE_OK;
}

int pqx_sources_next(pqx_sources *ss, pqx_source *cur, int *got,
                     char **msg) {
  pqx_source_close(cur);
  *got = 0;
  *msg = NULL;
  if (ss->next >= ss->n) return SQLITE_OK;
  int i = ss->next++, rc;
  if (ss->is_blob) {
    cur->copy = ss->blob;
    ss->blob = NULL;
    cur->buf = cur->copy;
    cur->len = ss->blob_len;
    rc = source_parse(cur, ss->fn, msg);
  } else {
    cur->name = ss->paths[i];
    ss->paths[i] = NULL;
    rc = source_open_name(cur, ss->db, ss->fn, msg);
  }
  if (rc) {
    pqx_source_close(cur);
    return rc;
  }
  *got = 1;
  return SQLITE_OK;
}

void pqx_sources_close(pqx_sources *ss) {
  if (ss->paths) pqx_paths_free(ss->paths, ss->n);
  sqlite3_free(ss->blob);
  memset(ss, 0, sizeof *ss);
}

int pqx_source_best_index(sqlite3_index_info *info, int source_col) {
  info->idxNum = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *con = &info->aConstraint[i];
    if (con->iColumn != source_col || con->op != SQLITE_INDEX_CONSTRAINT_EQ)
      continue;
    if (!con->usable) return SQLITE_CONSTRAINT;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->idxNum = 1;
  }
  info->estimatedCost = info->idxNum ? 1000 : 1e99;
  info->estimatedRows = info->idxNum ? 1000 : 2147483647;
  return SQLITE_OK;
}

/* ---- Names ------------------------------------------------------------- */

const char *pqx_page_type_name(int t) {
  static const char *const names[] = {"DATA_PAGE", "INDEX_PAGE",
                                      "DICTIONARY_PAGE", "DATA_PAGE_V2"};
  return t >= 0 && t < 4 ? names[t] : NULL;
}

const char *pqx_codec_name(int c) {
  return c >= 0 && c < PQ_CODEC_COUNT ? pq_codec_name((pq_codec)c) : NULL;
}

const char *pqx_converted_name(int c) {
  static const char *const names[] = {
      "UTF8",       "MAP",          "MAP_KEY_VALUE",    "LIST",
      "ENUM",       "DECIMAL",      "DATE",             "TIME_MILLIS",
      "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8",
      "UINT_16",    "UINT_32",      "UINT_64",          "INT_8",
      "INT_16",     "INT_32",       "INT_64",           "JSON",
      "BSON",       "INTERVAL"};
  return c >= 0 && c < (int)(sizeof names / sizeof names[0]) ? names[c]
                                                             : NULL;
}

const char *pqx_repetition_name(int r) {
  static const char *const names[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
  return r >= 0 && r < 3 ? names[r] : NULL;
}

const char *pqx_column_order_name(int o) {
  static const char *const names[] = {"TYPE_ORDER", "IEEE_754_TOTAL_ORDER",
                                      "INT96_TIMESTAMP_ORDER"};
  return o >= 1 && o <= 3 ? names[o - 1] : NULL;
}

void pqx_result_enum(sqlite3_context *ctx, const char *name, int value) {
  if (name) {
    sqlite3_result_text(ctx, name, -1, SQLITE_STATIC);
  } else {
    sqlite3_result_int(ctx, value);
  }
}

char *pqx_type_text(pq_type t, int32_t type_length) {
  if (t == PQ_FIXED_LEN_BYTE_ARRAY) {
    return sqlite3_mprintf("FIXED_LEN_BYTE_ARRAY(%d)", type_length);
  }
  return sqlite3_mprintf("%s", pq_type_name(t));
}

char *pqx_logical_text(const pq_schema_element *e) {
  static const char *const units[] = {"?", "MILLIS", "MICROS", "NANOS"};
  int u = e->logical_unit >= 0 && e->logical_unit <= 3 ? e->logical_unit : 0;
  switch (e->logical_type) {
    case 0: return NULL;
    case 1: return sqlite3_mprintf("STRING");
    case 2: return sqlite3_mprintf("MAP");
    case 3: return sqlite3_mprintf("LIST");
    case 4: return sqlite3_mprintf("ENUM");
    case 5:
      return sqlite3_mprintf("DECIMAL(%d,%d)", e->logical_precision,
                             e->logical_scale);
    case 6: return sqlite3_mprintf("DATE");
    case 7:
      return sqlite3_mprintf("TIME(%s%s)", units[u],
                             e->logical_utc ? ", UTC" : "");
    case 8:
      return sqlite3_mprintf("TIMESTAMP(%s%s)", units[u],
                             e->logical_utc ? ", UTC" : "");
    case 10:
      return sqlite3_mprintf("INTEGER(%d,%s)", e->logical_bit_width,
                             e->logical_signed ? "signed" : "unsigned");
    case 11: return sqlite3_mprintf("UNKNOWN");
    case 12: return sqlite3_mprintf("JSON");
    case 13: return sqlite3_mprintf("BSON");
    case 14: return sqlite3_mprintf("UUID");
    case 15: return sqlite3_mprintf("FLOAT16");
    case 16: return sqlite3_mprintf("VARIANT");
    case 17:
    case 18: {
      /* what the file says: crs=..., algorithm=...; "GEOMETRY" when it
      ** says neither */
      static const char *const algs[] = {"SPHERICAL", "VINCENTY", "THOMAS",
                                         "ANDOYER", "KARNEY"};
      const char *t = e->logical_type == 17 ? "GEOMETRY" : "GEOGRAPHY";
      int a = e->logical_type == 18 ? e->logical_algorithm : -1;
      const char *an = a >= 0 && a <= 4 ? algs[a] : NULL;
      if (!e->has_logical_crs && a < 0) return sqlite3_mprintf("%s", t);
      char *crs = e->has_logical_crs
                      ? sqlite3_mprintf("crs=%.*s%s", (int)e->logical_crs.len,
                                        (const char *)e->logical_crs.ptr,
                                        a >= 0 ? ", " : "")
                      : sqlite3_mprintf("%s", "");
      if (!crs) return NULL;
      char *r = a < 0   ? sqlite3_mprintf("%s(%s)", t, crs)
                : an    ? sqlite3_mprintf("%s(%salgorithm=%s)", t, crs, an)
                        : sqlite3_mprintf("%s(%salgorithm=%d)", t, crs, a);
      sqlite3_free(crs);
      return r;
    }
    case 19: return sqlite3_mprintf("FILE");
    default: return sqlite3_mprintf("logical type %d", e->logical_type);
  }
}

void pqx_result_buf_text(sqlite3_context *ctx, pq_buf *b) {
  if (b->oom) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_text64(ctx, b->data ? (const char *)b->data : "", b->len,
                          SQLITE_TRANSIENT, SQLITE_UTF8);
  }
  pq_buf_free(b);
}

void pqx_result_mprintf(sqlite3_context *ctx, char *s) {
  if (s) {
    sqlite3_result_text(ctx, s, -1, sqlite3_free);
  } else {
    sqlite3_result_error_nomem(ctx);
  }
}

/* A statistic's bytes as text: numbers for numeric types, the text of UTF-8
** byte arrays, hex otherwise (as DuckDB's parquet_metadata shows them). */
void pqx_result_stat(sqlite3_context *ctx, int present, pq_bytes v,
                     pq_type t) {
  if (!present) return;
  int numeric = t != PQ_BYTE_ARRAY && t != PQ_FIXED_LEN_BYTE_ARRAY &&
                t != PQ_INT96;
  size_t w = numeric ? pq_value_size(t, 0) : 0;
  if (!numeric || v.len != w) {
    if (pq_utf8_valid(v.ptr, v.len) &&
        (t == PQ_BYTE_ARRAY || t == PQ_FIXED_LEN_BYTE_ARRAY)) {
      sqlite3_result_text64(ctx, (const char *)v.ptr, v.len, SQLITE_TRANSIENT,
                            SQLITE_UTF8);
      return;
    }
    char *h = sqlite3_malloc64(2 * v.len + 1);
    if (!h) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    for (size_t i = 0; i < v.len; i++) sprintf(h + 2 * i, "%02X", v.ptr[i]);
    sqlite3_result_text(ctx, h, (int)(2 * v.len), sqlite3_free);
    return;
  }
  /* The PLAIN bytes, little-endian, as a number in host order. */
  uint64_t u = 0;
  for (size_t i = 0; i < w; i++) u |= (uint64_t)v.ptr[i] << (8 * i);
  union {
    uint8_t b;
    int32_t i32;
    int64_t i64;
    float f;
    double d;
  } x;
  uint32_t u32 = (uint32_t)u;
  switch (t) {
    case PQ_BOOLEAN: x.b = u != 0; break;
    case PQ_INT32: x.i32 = (int32_t)u32; break;
    case PQ_FLOAT: memcpy(&x.f, &u32, 4); break;
    case PQ_DOUBLE: memcpy(&x.d, &u, 8); break;
    default: x.i64 = (int64_t)u;
  }
  pq_buf b;
  pq_buf_init(&b);
  pq_json_values(&b, t, 0, 0, &x, 1, 0);
  pqx_result_buf_text(ctx, &b);
}
