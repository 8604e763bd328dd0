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
*/
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"

typedef struct pqx_conn {
  sqlite3 *db;
  sqlite3_int64 max_alloc;
  struct pqx_conn *next;
} pqx_conn;

static pthread_mutex_t conns_mu = PTHREAD_MUTEX_INITIALIZER;
static pqx_conn *conns;

static sqlite3_int64 ceiling_of(sqlite3 *db) {
  sqlite3_int64 v = PQX_MAX_ALLOC_DEFAULT;
  pthread_mutex_lock(&conns_mu);
  for (pqx_conn *c = conns; c; c = c->next) {
    if (c->db == db) {
      v = c->max_alloc;
      break;
    }
  }
  pthread_mutex_unlock(&conns_mu);
  return v;
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
    pthread_mutex_lock(&conns_mu);
    c->max_alloc = v;
    pthread_mutex_unlock(&conns_mu);
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
  sqlite3_free(p);
}

int pqx_register_limits(sqlite3 *db) {
  pqx_conn *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->db = db;
  c->max_alloc = PQX_MAX_ALLOC_DEFAULT;
  /* Loaded twice into one connection: the new entry goes first and the
  ** old one leaves when its function is replaced just below. */
  pthread_mutex_lock(&conns_mu);
  c->next = conns;
  conns = c;
  pthread_mutex_unlock(&conns_mu);
  /* One registration (any number of arguments), so that one destructor
  ** owns the entry; DIRECTONLY: a schema cannot change it. */
  return sqlite3_create_function_v2(db, "parquet_max_alloc", -1,
                                    SQLITE_UTF8 | SQLITE_DIRECTONLY, c,
                                    maxAllocFunc, 0, 0, dropConn);
}
