/*
** limits.c -- the allocation ceiling: the most one call of any function
** here may build, per connection.
**
**   SELECT parquet_max_alloc();            -- 268435456, the default
**   SELECT parquet_max_alloc(1073741824);  -- raises it; returns the old one
**
** Every buffer whose size the input decides (a page decompressed, the
** values of a stream or a file as JSON, a file written) is checked against
** the limit before it grows: the smaller of the ceiling and SQLite's length
** limit (SQLITE_LIMIT_LENGTH), as nothing longer could be returned anyway.
** Buffers the input's own length bounds (a dictionary's entries, a
** footer's metadata) are not counted: the input already holds that much.
**
** The ceiling is per connection.  SQLite 3.40 has no per-connection client
** data, so the ceilings live in a small list keyed by the connection,
** guarded by a mutex; an entry goes when the connection drops the
** function (at sqlite3_close), through the function's destructor.
**
** The entry also keeps the connection's spare: the memory of the last
** stream of at least SPARE_MIN bytes that parquet_encode returned, once
** SQLite is done with the value (its destructor, spareReturn, brings it
** back), for the next parquet_encode to build its stream in.  Memory the
** C library maps for a large buffer is new to the kernel each time, and on
** some virtual machines writing a page the first time costs as much as
** copying it many times over (bench/NOTES.md); a repeated encode of a
** large column then writes into pages already written.  One buffer a
** connection, no larger than its ceiling (a smaller ceiling set drops a
** larger one), freed with the entry.
**
** And it keeps the connection's file switch (access.c): once
** parquet_file_access(0) has turned file access off, it stays off, also
** when the extension is loaded into the connection again (the new entry
** takes the old one's switch and ceiling).
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

typedef struct pqx_conn {
  sqlite3 *db;
  sqlite3_int64 max_alloc;
  pq_buf spare;     /* len 0; data NULL when none is kept */
  const void *lent; /* the result that comes back as the spare */
  size_t lent_cap;
  int files_off;    /* parquet_file_access(0) was called: for good */
  pqx_http_opts http; /* parquet_http_option (remote.c); db unset */
  pqx_footers *footers; /* URLs' footers (remote.c), or NULL */
  struct pqx_conn *next;
} pqx_conn;

/* Smaller buffers cost the C library little to find again. */
#define SPARE_MIN ((size_t)1 << 20)

static pthread_mutex_t conns_mu = PTHREAD_MUTEX_INITIALIZER;
static pqx_conn *conns;

/* The entry of db, or NULL; conns_mu held. */
static pqx_conn *conn_of(sqlite3 *db) {
  pqx_conn *c = conns;
  while (c && c->db != db) c = c->next;
  return c;
}

static sqlite3_int64 ceiling_of(sqlite3 *db) {
  pthread_mutex_lock(&conns_mu);
  pqx_conn *c = conn_of(db);
  sqlite3_int64 v = c ? c->max_alloc : PQX_MAX_ALLOC_DEFAULT;
  pthread_mutex_unlock(&conns_mu);
  return v;
}

/* SQLite's destructor of a result made by pqx_result_spare. */
static void spareReturn(void *p) {
  pthread_mutex_lock(&conns_mu);
  for (pqx_conn *c = conns; c; c = c->next) {
    if (c->lent != p) continue;
    c->lent = NULL;
    if (!c->spare.data && c->lent_cap <= (uint64_t)c->max_alloc) {
      c->spare.data = p;
      c->spare.cap = c->lent_cap;
      p = NULL;
    }
    break;
  }
  pthread_mutex_unlock(&conns_mu);
  pq_free(p);
}

void pqx_result_spare(sqlite3_context *ctx, pq_buf *b) {
  pthread_mutex_lock(&conns_mu);
  pqx_conn *c = conn_of(sqlite3_context_db_handle(ctx));
  if (c && b->cap >= SPARE_MIN && b->cap <= (uint64_t)c->max_alloc) {
    c->lent = b->data; /* one a connection: an earlier one is just freed */
    c->lent_cap = b->cap;
  }
  pthread_mutex_unlock(&conns_mu);
  sqlite3_result_blob64(ctx, b->data, b->len, spareReturn);
  pq_buf_init(b); /* SQLite owns it now */
}

void pqx_spare_give(sqlite3 *db, pq_encoder *e) {
  pq_buf room;
  pthread_mutex_lock(&conns_mu);
  pqx_conn *c = conn_of(db);
  if (c) {
    room = c->spare;
    pq_buf_init(&c->spare);
  } else {
    pq_buf_init(&room);
  }
  pthread_mutex_unlock(&conns_mu);
  if (!room.data) return;
  uint8_t *spare = room.data;
  pq_encoder_give_room(e, &room);
  if (room.data == spare) { /* not taken: kept for another */
    pthread_mutex_lock(&conns_mu);
    c = conn_of(db);
    if (c && !c->spare.data) {
      c->spare = room;
      pq_buf_init(&room);
    }
    pthread_mutex_unlock(&conns_mu);
  }
  pq_buf_free(&room); /* the encoder's own, or one not kept */
}

int pqx_conn_files_off(sqlite3 *db) {
  pthread_mutex_lock(&conns_mu);
  pqx_conn *c = conn_of(db);
  int off = c ? c->files_off : 0;
  pthread_mutex_unlock(&conns_mu);
  return off;
}

int pqx_conn_close_files(sqlite3 *db) {
  pthread_mutex_lock(&conns_mu);
  int rc = SQLITE_ERROR;
  /* Every entry of db: one loaded twice has two for a moment. */
  for (pqx_conn *c = conns; c; c = c->next) {
    if (c->db != db) continue;
    c->files_off = 1;
    rc = SQLITE_OK;
  }
  pthread_mutex_unlock(&conns_mu);
  return rc;
}

static void http_defaults(pqx_http_opts *o) {
  memset(o, 0, sizeof *o);
  o->connect_timeout_ms = 10000;
  o->timeout_ms = 0;
  o->retries = 3;
  o->footer_guess = 64 << 10;
  o->read_min = 0;
  o->fetch_ahead = (size_t)64 << 20;
  o->coalesce_gap = (size_t)1 << 20;
  o->parallel = 4;
  o->cache_size = (size_t)128 << 20;
  o->s3_max_keys = 1000;
  o->s3_part_size = 8 << 20;
}

void pqx_http_opts_of(sqlite3 *db, pqx_http_opts *o) {
  http_defaults(o);
  if (db) {
    pthread_mutex_lock(&conns_mu);
    pqx_conn *c = conn_of(db);
    if (c) *o = c->http;
    pthread_mutex_unlock(&conns_mu);
  }
  o->db = db;
}

int pqx_http_opts_set(sqlite3 *db, const pqx_http_opts *o) {
  pthread_mutex_lock(&conns_mu);
  int rc = SQLITE_ERROR;
  for (pqx_conn *c = conns; c; c = c->next) {
    if (c->db != db) continue;
    c->http = *o;
    c->http.db = NULL;
    rc = SQLITE_OK;
  }
  pthread_mutex_unlock(&conns_mu);
  return rc;
}

size_t pqx_db_limit(sqlite3 *db) {
  sqlite3_int64 len = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
  sqlite3_int64 cap = ceiling_of(db);
  return (size_t)(len < cap ? len : cap);
}

size_t pqx_limit(sqlite3_context *ctx) {
  return pqx_db_limit(sqlite3_context_db_handle(ctx));
}

size_t pqx_vtab_limit(sqlite3_vtab *v) {
  return pqx_db_limit(((pqx_vtab *)v)->db);
}

/* parquet_max_alloc([bytes]): the ceiling; with an argument, sets it and
** returns the one it replaces. */
static void maxAllocFunc(sqlite3_context *ctx, int argc,
                         sqlite3_value **argv) {
  pqx_conn *c = sqlite3_user_data(ctx);
  if (argc > 1) {
    sqlite3_result_error(ctx, "parquet_max_alloc: takes 0 or 1 argument",
                         -1);
    return;
  }
  /* Setting it is the application's: not a database's schema's. */
  if (argc == 1 && pqx_guard_call(ctx, "parquet_max_alloc")) return;
  pthread_mutex_lock(&conns_mu);
  sqlite3_int64 old = c->max_alloc;
  pthread_mutex_unlock(&conns_mu);
  if (argc == 1) {
    sqlite3_int64 v = sqlite3_value_int64(argv[0]);
    if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER ||
        v < PQX_MAX_ALLOC_MIN) {
      char *msg = sqlite3_mprintf(
          "parquet_max_alloc: the ceiling must be an INTEGER of at least "
          "%d bytes",
          PQX_MAX_ALLOC_MIN);
      sqlite3_result_error(ctx, msg, -1);
      sqlite3_free(msg);
      return;
    }
    if ((uint64_t)v > SIZE_MAX / 4) v = (sqlite3_int64)(SIZE_MAX / 4);
    pq_buf drop;
    pq_buf_init(&drop);
    pthread_mutex_lock(&conns_mu);
    c->max_alloc = v;
    if (c->spare.cap > (uint64_t)v) {
      drop = c->spare;
      pq_buf_init(&c->spare);
    }
    pthread_mutex_unlock(&conns_mu);
    pq_buf_free(&drop);
  }
  sqlite3_result_int64(ctx, old);
}

static void dropConn(void *p) {
  pthread_mutex_lock(&conns_mu);
  for (pqx_conn **pp = &conns; *pp; pp = &(*pp)->next) {
    if (*pp == p) {
      *pp = ((pqx_conn *)p)->next;
      break;
    }
  }
  pthread_mutex_unlock(&conns_mu);
  pq_buf_free(&((pqx_conn *)p)->spare);
  pqx_footers_free(((pqx_conn *)p)->footers);
  sqlite3_free(p);
}

pqx_footers *pqx_footers_of(sqlite3 *db) {
  pthread_mutex_lock(&conns_mu);
  pqx_conn *c = db ? conn_of(db) : NULL;
  if (c && !c->footers) {
    c->footers = pqx_footers_new();
    pqx_footers_limit(c->footers, c->http.cache_size);
  }
  pqx_footers *f = c ? c->footers : NULL;
  if (f) pqx_footers_hold(f); /* the caller's, beside the connection's */
  pthread_mutex_unlock(&conns_mu);
  return f;
}

int pqx_register_limits(sqlite3 *db) {
  pqx_conn *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->db = db;
  c->max_alloc = PQX_MAX_ALLOC_DEFAULT;
  http_defaults(&c->http);
  /* Loaded twice into one connection: the new entry goes first and the
  ** old one leaves when its function is replaced just below; it takes the
  ** old one's settings, so that loading again turns no file access back
  ** on. */
  pthread_mutex_lock(&conns_mu);
  pqx_conn *old = conn_of(db);
  if (old) {
    c->files_off = old->files_off;
    c->max_alloc = old->max_alloc;
    c->http = old->http;
  }
  c->next = conns;
  conns = c;
  pthread_mutex_unlock(&conns_mu);
  /* One registration (any number of arguments), so that one destructor
  ** owns the entry; DIRECTONLY: a schema cannot change it. */
  return sqlite3_create_function_v2(db, "parquet_max_alloc", -1,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
                                    maxAllocFunc, 0, 0, dropConn);
}
