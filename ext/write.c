/*
** write.c -- parquet_write(path, query [, options]): every column of a
** query's result as a Parquet file.
**
**   SELECT parquet_write('trips.parquet', 'SELECT * FROM trips',
**                        '{"codec":"ZSTD","columns":{"fare":{"type":"DECIMAL(9,2)"}}}');
**
** The query runs on the calling connection (as SQLite's ext/misc/eval.c
** runs SQL from a function); its rows go, as dynamic values, to the
** core's table writer (src/writer/table.c), which types the columns
** (from the options, the declared types, or the first values), batches
** the rows, closes the row groups, and writes the file: under a temporary
** name beside `path`, renamed when complete, so that nothing
** half-written is ever at `path`.  With a NULL path the file is returned
** as a BLOB, bounded by parquet_max_alloc.  With "partition_by" or
** "file_size_bytes" the path is a folder of files, the query sorted here
** by the partition keys.  At an s3:// URL the file is uploaded as it is
** written (s3_put.c), and nothing is there unless it is whole.  Returns
** the rows written.  What is SQLite's
** stays here: the query, the row function that hands over its rows, the
** refusals of the connection (doc/security.md), and the errors as SQL's.
**
** What it must not do (doc/security.md): run when a database's schema
** calls it (access.c guards every call), write the database (the query
** must be read-only: SQLite's own read-only check of the calling statement
** must stay true of all it does), or write a file when file access is off
** (asked again before each file and folder is made).
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "write.h"

#define ROW_FN "pqx_write_row"      /* the row function (w_wrap) */
#define ROW_PTR "parquet_write"     /* its first argument's pointer type */
#define ROW_MAX_COLS 100            /* a function's arguments, at most 127 */
#define PART_MAX 32                 /* partition columns, at most */

/* A call of parquet_write (or a capture): the query and the core's
** writer it feeds. */
typedef struct Writer {
  sqlite3 *db;
  pq_table_writer *tw;
  pq_table_host host;
  const pqx_capture_rows *in; /* the rows of a capture (pqx_write_capture) */
  sqlite3_stmt *q;         /* the query */
  sqlite3_stmt *qw;        /* the query wrapped to call the row function */
  char *row_msg;           /* the row function's fault */
  int nvals;               /* values of a row: its columns, then the keys */
  pq_dvalue *dv;           /* a row's values, as the core takes them */
  int folder;              /* the path is a folder of files */
  const char *const *part_names;
  int npart;
  int write_part;          /* the partition columns in the files too */
  pqx_s3_put *up;          /* an s3:// URL's upload */
  pq_table_sink sink;      /* ... as the writer's sink */
} Writer;

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

/* The table writer's failure rc as a message ("parquet_write: ..."). */
static char *w_fail(Writer *wr, int rc) {
  if (rc == PQ_NOMEM) return PQX_W_NOMEM;
  return pqx_w_msg(FN ": %s", pq_table_writer_message(wr->tw));
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

/* ---- The host: what the core asks of the connection ---------------------- */

/* A file or folder may be made (parquet_file_access may have turned them
** off since the call began: the query runs on the connection). */
static int w_may_write(void *ctx, pq_buf *msg) {
  Writer *wr = ctx;
  char *m;
  if (pqx_files_allowed(wr->db, FN, &m)) return PQ_OK;
  if (!m) return PQ_NOMEM;
  /* the core's messages go without the function's name: it is said once */
  const char *t = strncmp(m, FN ": ", sizeof FN + 1) == 0 ? m + sizeof FN + 1 : m;
  pq_buf_append(msg, t, strlen(t));
  sqlite3_free(m);
  return PQ_MISUSE;
}

static void w_random(void *ctx, void *p, size_t n) {
  (void)ctx;
  sqlite3_randomness((int)n, p);
}

/* A writer of parquet_write's defaults, on db: NULL, or PQX_W_NOMEM. */
static char *w_init(Writer *wr, sqlite3 *db) {
  memset(wr, 0, sizeof *wr);
  wr->db = db;
  wr->host.ctx = wr;
  wr->host.limit = pqx_db_limit(db);
  wr->host.limit_hint = PQX_LIMIT_HINT;
  wr->host.limit_name = " (parquet_max_alloc)";
  /* the worker's messages are the core's: SQLite's allocator, which only
  ** a threadsafe SQLite lends to two threads */
  wr->host.no_threads = !sqlite3_threadsafe();
  wr->host.may_write = w_may_write;
  wr->host.random = w_random;
  wr->tw = pq_table_writer_new(&wr->host);
  return wr->tw ? NULL : PQX_W_NOMEM;
}

static void w_free(Writer *wr) {
  pq_table_writer_free(wr->tw); /* (the upload aborted, unless complete) */
  pqx_s3_put_free(wr->up);
  sqlite3_finalize(wr->qw);
  if (!(wr->in && !wr->in->sql)) sqlite3_finalize(wr->q); /* (a source's) */
  sqlite3_free(wr->dv);
}

/* The options, a JSON object's text, applied. */
static char *w_options(Writer *wr, const char *opts) {
  int rc = pq_table_writer_options(wr->tw, opts, strlen(opts));
  if (rc) return w_fail(wr, rc);
  wr->folder = pq_table_writer_folder(wr->tw);
  wr->npart = pq_table_writer_partitions(wr->tw, &wr->part_names,
                                         &wr->write_part);
  return NULL;
}

/* ---- Rows ----------------------------------------------------------------- */

/* The values vals[0..nvals) of a row to the core.  SQLite makes a value's
** text or bytes when asked: out of memory then. */
static char *w_take(Writer *wr, sqlite3_value **vals) {
  for (int i = 0; i < wr->nvals; i++) {
    sqlite3_value *v = vals[i];
    pq_dvalue *d = &wr->dv[i];
    d->kind = PQ_DV_NULL;
    switch (sqlite3_value_type(v)) {
      case SQLITE_INTEGER:
        d->kind = PQ_DV_INT;
        d->i = sqlite3_value_int64(v);
        break;
      case SQLITE_FLOAT:
        d->kind = PQ_DV_DOUBLE;
        d->d = sqlite3_value_double(v);
        break;
      case SQLITE_TEXT:
        d->kind = PQ_DV_TEXT;
        d->p = sqlite3_value_text(v);
        d->n = (size_t)sqlite3_value_bytes(v);
        if (!d->p) return PQX_W_NOMEM;
        break;
      case SQLITE_BLOB:
        d->kind = PQ_DV_BLOB;
        d->p = sqlite3_value_blob(v);
        d->n = (size_t)sqlite3_value_bytes(v);
        if (!d->p && d->n) return PQX_W_NOMEM;
        break;
      default:
        break;
    }
  }
  int rc = pq_table_writer_row(wr->tw, wr->dv);
  return rc ? w_fail(wr, rc) : NULL;
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
  /* the message stays the writer's: w_read takes it from there */
  wr->row_msg = msg;
  if (msg == PQX_W_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    sqlite3_result_error(ctx, msg, -1);
  }
}

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

#else
static char *w_sort_query(Writer *wr, const char *sql, const char *tail,
                          char **out) {
  (void)wr, (void)sql, (void)tail, (void)out;
  return pqx_w_msg(PQX_OMIT_FILES_MSG, FN);
}
#endif /* PARQUET_OMIT_FILES */

/* ---- The query ---------------------------------------------------------------- */

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

/* The output: memory (a NULL path), an upload (an s3:// URL), or the
** path's file or folder. */
static char *w_output(Writer *wr, const char *path) {
  int rc;
  if (!path) {
    rc = pq_table_writer_to_memory(wr->tw);
  } else if (pqx_is_url(path)) {
    if (sqlite3_strnicmp(path, "s3://", 5) != 0)
      return pqx_w_msg(FN ": '%s': writing to http(s) URLs is not "
                          "supported; use s3://",
                       path);
    if (wr->folder)
      return pqx_w_msg(FN ": '%s': \"partition_by\" and \"file_size_bytes\" "
                          "write a folder of files, which is not written to "
                          "s3:// (write each partition with a query of its "
                          "own)",
                       path);
    char *m;
    rc = pqx_s3_put_open(&wr->up, wr->db, FN, path, &m);
    if (rc) return m ? m : PQX_W_NOMEM;
    pqx_s3_put_sink(wr->up, &wr->sink);
    rc = pq_table_writer_to_sink(wr->tw, &wr->sink);
  } else {
    rc = pq_table_writer_to_path(wr->tw, path);
  }
  return rc ? w_fail(wr, rc) : NULL;
}

/* Runs the query sql (one read-only statement), or the capture's rows,
** into the writer: its columns named and declared, the output chosen
** (path, or NULL for a BLOB; a capture's is set), every row given.  NULL,
** or the message. */
static char *w_read(Writer *wr, const char *sql, const char *path) {
  char *msg = NULL, *sorted = NULL;
  const char **names = NULL, **decls = NULL;
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
  if (!in) {
    msg = w_output(wr, path);
    if (msg) goto done;
  }
  /* A folder: the query sorted by its partition keys, which follow the
  ** columns written. */
  if (wr->folder) {
    msg = w_sort_query(wr, sql, tail, &sorted);
    if (msg) goto done;
    ncols = sqlite3_column_count(wr->q) - wr->npart;
  }
  wr->nvals = ncols + wr->npart;
  names = sqlite3_malloc64((size_t)ncols * sizeof *names);
  decls = sqlite3_malloc64((size_t)ncols * sizeof *decls);
  wr->dv = sqlite3_malloc64((size_t)wr->nvals * sizeof *wr->dv);
  msg = PQX_W_NOMEM;
  if (!names || !decls || !wr->dv) goto done;
  for (int i = 0; i < ncols; i++) {
    names[i] = sqlite3_column_name(wr->q, i);
    if (!names[i]) goto done;
    for (int j = 0; j < i; j++)
      if (strcmp(names[j], names[i]) == 0) {
        msg = pqx_w_msg(FN ": the query has two columns named '%s' (name "
                           "them apart with AS)",
                        names[i]);
        goto done;
      }
    /* The declared type: the query's, or the row source's. */
    decls[i] = in && !in->sql ? (in->decls ? in->decls[i] : NULL)
                              : sqlite3_column_decltype(wr->q, i);
  }
  rc = pq_table_writer_columns(wr->tw, ncols, names, decls);
  msg = rc ? w_fail(wr, rc) : NULL;
  if (msg) goto done;
  /* The rows: through the row function when the query can be wrapped in
  ** one, else stepped here. */
  /* (a sample, or a row source: stepped here, each row seen) */
  int sampled = in && (in->first > 0 || in->every > 1);
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
  msg = NULL;
done:
  sqlite3_free(sorted);
  sqlite3_free(names);
  sqlite3_free(decls);
  return msg;
}

static void writeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (w_refused(ctx, argv[0])) return;
  const char *sql = (const char *)sqlite3_value_text(argv[1]);
  if (!sql) {
    w_result_error(ctx, sqlite3_value_type(argv[1]) == SQLITE_NULL
                            ? pqx_w_msg(FN ": the query is NULL")
                            : PQX_W_NOMEM);
    return;
  }
  Writer wr;
  char *msg = w_init(&wr, sqlite3_context_db_handle(ctx));
  if (msg) goto fail;
  if (argc > 2 && sqlite3_value_type(argv[2]) != SQLITE_NULL) {
    const char *opts = (const char *)sqlite3_value_text(argv[2]);
    if (!opts) {
      msg = PQX_W_NOMEM;
      goto fail;
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
  int rc = pq_table_writer_finish(wr.tw);
  if (rc) {
    msg = w_fail(&wr, rc);
    goto fail;
  }
  if (!path && !wr.folder) {
    /* the file's bytes become the result (pq_free: SQLite's allocator) */
    pq_buf out;
    pq_table_writer_take(wr.tw, &out);
    sqlite3_result_blob64(ctx, out.data, out.len, pq_free);
  } else {
    sqlite3_result_int64(ctx, pq_table_writer_rows(wr.tw));
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
  char *msg = w_init(&wr, db);
  wr.in = rows;
  if (!msg && opts) msg = w_options(&wr, opts);
  if (!msg) {
    int rc = pq_table_writer_to_capture(wr.tw, cap);
    if (rc) msg = w_fail(&wr, rc);
  }
  if (!msg) msg = w_read(&wr, rows->sql, NULL);
  if (!msg) {
    int rc = pq_table_writer_finish(wr.tw);
    if (rc) msg = w_fail(&wr, rc);
  }
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
