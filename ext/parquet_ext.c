/*
** parquet_ext.c -- the entry point of the SQLite extension, the table of
** what it registers, and the helpers its functions share.
**
**   .load ./parquet
**   SELECT hex(parquet_encode(v, 'DELTA_BINARY_PACKED')) FROM t;
**   SELECT parquet_decode(X'0801080E0302C03F', 'DELTA_BINARY_PACKED');
**   SELECT idx, value FROM parquet_values(:blob, 'BYTE_STREAM_SPLIT',
**                                         'DOUBLE');
**   SELECT * FROM parquet_encodings;
**
** doc/ has a page for every function and table, with examples.
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <pthread.h>
#include <string.h>

#include "ext.h"

char *pqx_params(const char *fn, sqlite3_value *enc, sqlite3_value *type,
                 sqlite3_value *opts, pq_params *p) {
  pq_params_init(p);
  if (!enc || sqlite3_value_type(enc) == SQLITE_NULL) {
    return sqlite3_mprintf("%s: the encoding is NULL", fn);
  }
  const char *s = (const char *)sqlite3_value_text(enc);
  int n = sqlite3_value_bytes(enc);
  if (!s || pq_encoding_parse(s, (size_t)n, &p->encoding)) {
    return sqlite3_mprintf("%s: unknown encoding '%s'", fn, s ? s : "");
  }
  if (type && sqlite3_value_type(type) != SQLITE_NULL) {
    s = (const char *)sqlite3_value_text(type);
    n = sqlite3_value_bytes(type);
    if (!s || pq_type_parse(s, (size_t)n, &p->type, &p->type_length)) {
      return sqlite3_mprintf(
          "%s: unknown type '%s' (BOOLEAN, INT32, INT64, INT96, FLOAT, "
          "DOUBLE, BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY(n))",
          fn, s ? s : "");
    }
    p->type_set = 1;
  }
  if (opts && sqlite3_value_type(opts) != SQLITE_NULL) {
    pq_error err;
    s = (const char *)sqlite3_value_text(opts);
    n = sqlite3_value_bytes(opts);
    if (s && pq_params_parse_options(p, s, (size_t)n, &err)) {
      return sqlite3_mprintf("%s: %s", fn, err.msg);
    }
  }
  return NULL;
}

char *pqx_core_error(const char *fn, int rc, const pq_error *err) {
  if (rc == PQ_NOMEM) return NULL; /* callers report SQLITE_NOMEM */
  return pqx_source_error(fn, NULL, err);
}

char *pqx_source_error(const char *fn, const char *name, const pq_error *err) {
  /* The core's limits are the ceiling of limits.c: say how to raise it. */
  const char *hint = err->code == PQ_TOOBIG ? PQX_LIMIT_HINT : "";
  return name ? sqlite3_mprintf("%s: '%s': %s%s", fn, name, err->msg, hint)
              : sqlite3_mprintf("%s: %s%s", fn, err->msg, hint);
}

size_t pqx_batch_values(size_t value_size) {
  size_t n = 65536 / (value_size ? value_size : 1);
  if (n > 1024) n = 1024;
  return n ? n : 1;
}

void pqx_result_value(sqlite3_context *ctx, const void *batch, size_t i,
                      pq_type t, int32_t type_length, int is_index,
                      int binary) {
  if (is_index) {
    sqlite3_result_int64(ctx, ((const uint32_t *)batch)[i]);
    return;
  }
  switch (t) {
    case PQ_BOOLEAN:
      sqlite3_result_int(ctx, ((const uint8_t *)batch)[i]);
      break;
    case PQ_INT32: sqlite3_result_int(ctx, ((const int32_t *)batch)[i]); break;
    case PQ_INT64:
      sqlite3_result_int64(ctx, ((const int64_t *)batch)[i]);
      break;
    case PQ_FLOAT: sqlite3_result_double(ctx, ((const float *)batch)[i]); break;
    case PQ_DOUBLE:
      sqlite3_result_double(ctx, ((const double *)batch)[i]);
      break;
    case PQ_BYTE_ARRAY: {
      const pq_bytes *b = (const pq_bytes *)batch + i;
      if (!binary && pq_utf8_valid(b->ptr, b->len)) {
        sqlite3_result_text64(ctx, (const char *)b->ptr, b->len,
                              SQLITE_TRANSIENT, SQLITE_UTF8);
      } else {
        sqlite3_result_blob64(ctx, b->ptr, b->len, SQLITE_TRANSIENT);
      }
      break;
    }
    default: {
      size_t w = pq_value_size(t, type_length);
      sqlite3_result_blob64(ctx, (const uint8_t *)batch + i * w, w,
                            SQLITE_TRANSIENT);
    }
  }
}

int pqx_vtab_connect(sqlite3 *db, void *spec, int argc, const char *const *argv,
                     sqlite3_vtab **pp, char **pzErr) {
  (void)argc;
  (void)argv;
  (void)pzErr;
  const pqx_vtab_spec *vs = spec;
  int rc = sqlite3_declare_vtab(db, vs->schema);
  if (rc != SQLITE_OK) return rc;
  pqx_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->db = db;
  *pp = &v->base;
  sqlite3_vtab_config(
      db, vs->reads_files ? SQLITE_VTAB_DIRECTONLY : SQLITE_VTAB_INNOCUOUS);
  return SQLITE_OK;
}

void *pqx_cursor_new(size_t size) {
  void *c = sqlite3_malloc64(size);
  if (c) memset(c, 0, size);
  return c;
}

int pqx_vtab_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

/* ---- The stream arguments of parquet_values and parquet_explain ---------- */

/* The bytes of an argument, where SQLite holds them: not copied.  A table-
** valued function's arguments live in registers that SQLite leaves alone
** until it computes them anew for the next xFilter (SQLite's own json_each
** scans its JSONB argument in place the same way), so they outlive the
** scan; a stream of 80 MB is not copied into 80 MB of fresh memory. */
int pqx_arg_blob(sqlite3_value *v, const uint8_t **out, size_t *len) {
  const void *p = sqlite3_value_blob(v);
  *len = (size_t)sqlite3_value_bytes(v);
  if (!p && *len) return SQLITE_NOMEM; /* converting the value failed */
  *out = p ? p : (const uint8_t *)"";
  return SQLITE_OK;
}

int pqx_args_filter(sqlite3_vtab_cursor *cur, const char *fn, int idxNum,
                    sqlite3_value **argv, pqx_args *a, int *no_rows) {
  sqlite3_value *args[PQX_NARGS] = {0};
  for (int i = 0, j = 0; i < PQX_NARGS; i++) {
    if (idxNum & (1 << i)) args[i] = argv[j++];
  }
  if (!args[0] || !args[1]) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf(
        "%s: the encoded BLOB and the encoding are required, as in "
        "%s(blob, 'PLAIN', 'INT32')",
        fn, fn);
    return SQLITE_ERROR;
  }
  *no_rows = sqlite3_value_type(args[0]) == SQLITE_NULL;
  if (*no_rows) return SQLITE_OK;
  char *msg = pqx_stream_params(fn, args[1], args[2], args[3], &a->p,
                                &a->codec, &a->level);
  if (msg) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = msg;
    return SQLITE_ERROR;
  }
  if (pqx_arg_blob(args[0], &a->blob, &a->len)) return SQLITE_NOMEM;
  int rc = pqx_decompress_arg(fn, a->codec, &a->blob, &a->len,
                              pqx_vtab_limit(cur->pVtab), &a->plain, &msg);
  if (rc) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = msg;
    return rc;
  }
  if (args[4] && sqlite3_value_type(args[4]) != SQLITE_NULL &&
      pqx_arg_blob(args[4], &a->dict, &a->dict_len))
    return SQLITE_NOMEM;
  return SQLITE_OK;
}

void pqx_args_free(pqx_args *a) {
  pq_buf_free(&a->plain);
  memset(a, 0, sizeof *a);
}

int pqx_args_best_index(sqlite3_index_info *info, int first_col) {
  int where[PQX_NARGS];
  int unusable = 0, mask = 0;
  for (int i = 0; i < PQX_NARGS; i++) where[i] = -1;
  const struct sqlite3_index_constraint *con = info->aConstraint;
  for (int i = 0; i < info->nConstraint; i++, con++) {
    int col = con->iColumn - first_col;
    if (col < 0 || col >= PQX_NARGS) continue;
    if (con->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!con->usable) {
      unusable |= 1 << col;
      continue;
    }
    where[col] = i;
    mask |= 1 << col;
  }
  if ((unusable & ~mask) & 3) return SQLITE_CONSTRAINT;
  int argv = 0;
  for (int i = 0; i < PQX_NARGS; i++) {
    if (where[i] < 0) continue;
    info->aConstraintUsage[where[i]].argvIndex = ++argv;
    info->aConstraintUsage[where[i]].omit = 1;
  }
  info->idxNum = mask;
  /* Without blob and encoding the plan is possible but fails in xFilter:
  ** make it the last resort of the planner. */
  info->estimatedCost = (mask & 3) == 3 ? 1000 : 1e99;
  info->estimatedRows = (mask & 3) == 3 ? 1000 : 2147483647;
  return SQLITE_OK;
}

/* The core's memory is SQLite's: PRAGMA hard_heap_limit, soft_heap_limit
** and SQLite's memory statistics count it, and an allocator installed
** with SQLITE_CONFIG_MALLOC (a fault injector) sees every byte. */
static void *pqxMalloc(size_t n) { return sqlite3_malloc64(n); }
static void *pqxRealloc(void *p, size_t n) { return sqlite3_realloc64(p, n); }
static void pqxFree(void *p) { sqlite3_free(p); }
static const pq_allocator pqx_allocator = {pqxMalloc, pqxRealloc, pqxFree};

static void pqxVersionFunc(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  (void)argc;
  (void)argv;
  sqlite3_result_text(ctx, PQ_VERSION_STRING, -1, SQLITE_STATIC);
}

/* parquet_version(): the version of the extension and its core. */
static int pqx_register_version(sqlite3 *db) {
  return sqlite3_create_function(db, "parquet_version", 0, PQX_PURE, 0,
                                 pqxVersionFunc, 0, 0);
}

#ifndef SQLITE_CORE
/* Every connection that loads the extension hands over the same table of
** SQLite's routines, and every call here goes through it (sqlite3_api,
** SQLITE_EXTENSION_INIT1): the first load stores it, once, and the others
** find it there, so that loading on one thread while another runs a query
** is no data race.  Loads that find it unset store it under a mutex: two
** first loads at once would otherwise both store it, and the later store
** would race with the earlier loader's calls through it (a compare and
** swap that fails is still a write to ThreadSanitizer).  Another table is
** another SQLite library in the process, whose connections this copy of
** the extension, bound to the first, cannot serve: 0. */
static pthread_mutex_t api_mu = PTHREAD_MUTEX_INITIALIZER;

static int pqx_set_api(const sqlite3_api_routines *api) {
  const sqlite3_api_routines *now =
      __atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE);
  if (now == api) return 1;
  pthread_mutex_lock(&api_mu);
  now = __atomic_load_n(&sqlite3_api, __ATOMIC_ACQUIRE);
  if (!now) {
    __atomic_store_n(&sqlite3_api, api, __ATOMIC_RELEASE);
    now = api;
  }
  pthread_mutex_unlock(&api_mu);
  return now == api;
}
#endif

#ifdef _WIN32
__declspec(dllexport)
#else
__attribute__((visibility("default")))
#endif
    int sqlite3_parquet_init(sqlite3 *db, char **pzErrMsg,
                             const sqlite3_api_routines *pApi) {
  /* Each file of ext/ registers its functions or tables. */
  static int (*const registers[])(sqlite3 *) = {
      pqx_register_version, pqx_register_encode,    pqx_register_decode,
      pqx_register_values,  pqx_register_encodings, pqx_register_explain,
      pqx_register_codec,   pqx_register_files,     pqx_register_pages,
      pqx_register_limits,  pqx_register_table, pqx_register_rows,
      pqx_register_meta, pqx_register_write, pqx_register_access,
      pqx_register_order, pqx_register_codecs, pqx_register_variant,
      pqx_register_file_refs, pqx_register_lab, pqx_register_lab_file,
      pqx_register_remote};
  (void)pzErrMsg;
#ifndef SQLITE_CORE
  if (!pqx_set_api(pApi)) {
    if (pzErrMsg)
      *pzErrMsg = pApi->mprintf(
          "parquet: already loaded by another SQLite library in this "
          "process");
    return SQLITE_ERROR;
  }
#else
  (void)pApi;
#endif
  if (pq_set_allocator(&pqx_allocator) != PQ_OK) {
    if (pzErrMsg)
      *pzErrMsg = sqlite3_mprintf(
          "parquet: the core of this process already has another "
          "allocator");
    return SQLITE_ERROR;
  }
  int rc = SQLITE_OK;
  for (size_t i = 0;
       rc == SQLITE_OK && i < sizeof registers / sizeof *registers; i++) {
    rc = registers[i](db);
  }
  return rc;
}
