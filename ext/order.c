/*
** order.c -- the collations `instant` and `decimal`, which the parquet
** table declares on its columns of dates, times and timestamps and of
** decimals of more than 15 digits (doc/values.md), and decimal_sum(x), the
** exact sum of such decimals.  The comparisons are the core's
** (src/util/order.c), the same that prune row groups and pages.
*/
#include <math.h>
#include <string.h>

#include "ext.h"

/* arg: the connection's pq_instant_memo.  SQLite calls a collation only
** for a statement of its connection, under the connection's mutex where
** there is one: one thread at a time. */
static int collInstant(void *arg, int na, const void *a, int nb,
                       const void *b) {
  return pq_instant_compare_memo(arg, a, (size_t)na, b, (size_t)nb);
}

static int collDecimal(void *arg, int na, const void *a, int nb,
                       const void *b) {
  (void)arg;
  return pq_decimal_compare(a, (size_t)na, b, (size_t)nb);
}

/* ---- decimal_sum(x) ---------------------------------------------------------- */

typedef struct SumCtx {
  pq_decimal_sum *s;
  pq_buf real;     /* a REAL's shortest digits, as JSON writes them */
  int failed;
} SumCtx;

static void sumStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  SumCtx *c = sqlite3_aggregate_context(ctx, sizeof *c);
  if (!c) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (c->failed) return;
  int vt = sqlite3_value_type(argv[0]);
  if (vt == SQLITE_NULL) return;
  if (!c->s && !(c->s = pq_decimal_sum_new())) {
    c->failed = 1;
    sqlite3_result_error_nomem(ctx);
    return;
  }
  const char *p;
  size_t n;
  if (vt == SQLITE_FLOAT) {
    /* the shortest digits that read back to the double: a REAL made from
    ** a decimal of at most 15 digits gives that decimal */
    double r = sqlite3_value_double(argv[0]);
    if (isinf(r)) {
      c->failed = 1;
      sqlite3_result_error(ctx, "decimal_sum: an infinite REAL has no sum", -1);
      return;
    }
    c->real.len = 0;
    pq_json_values(&c->real, PQ_DOUBLE, 0, 0, &r, 1, 0);
    if (c->real.oom) {
      c->failed = 1;
      sqlite3_result_error_nomem(ctx);
      return;
    }
    p = (const char *)c->real.data;
    n = c->real.len;
  } else if (vt == SQLITE_INTEGER || vt == SQLITE_TEXT) {
    p = (const char *)sqlite3_value_text(argv[0]);
    n = (size_t)sqlite3_value_bytes(argv[0]);
    if (!p) {
      c->failed = 1;
      sqlite3_result_error_nomem(ctx);
      return;
    }
  } else {
    c->failed = 1;
    sqlite3_result_error(ctx, "decimal_sum: a BLOB is no decimal", -1);
    return;
  }
  int rc = pq_decimal_sum_add(c->s, p, n);
  if (rc == PQ_OK) return;
  c->failed = 1;
  if (rc == PQ_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else {
    pqx_result_error_msg(
        ctx, sqlite3_mprintf(rc == PQ_TOOBIG
                                 ? "decimal_sum: '%.40s' has more digits "
                                   "than a sum may (100000)"
                                 : "decimal_sum: '%.40s' is not a decimal",
                             p));
  }
}

static void sumFinal(sqlite3_context *ctx) {
  SumCtx *c = sqlite3_aggregate_context(ctx, 0);
  if (c) pq_buf_free(&c->real);
  if (!c || c->failed || !c->s) {
    if (c) pq_decimal_sum_free(c->s);
    return; /* NULL, as sum() of no values, or the error set */
  }
  size_t n;
  char *t = pq_decimal_sum_text(c->s, &n);
  pq_decimal_sum_free(c->s);
  c->s = NULL;
  if (!t) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text64(ctx, t, n, SQLITE_TRANSIENT, SQLITE_UTF8);
  pq_free(t);
}

int pqx_register_order(sqlite3 *db) {
  pq_instant_memo *memo = sqlite3_malloc(sizeof *memo);
  if (!memo) return SQLITE_NOMEM;
  memset(memo, 0, sizeof *memo);
  /* SQLite frees the memory when the collation is replaced or the
  ** connection closes; not when this call fails. */
  int rc = sqlite3_create_collation_v2(db, "instant", SQLITE_UTF8, memo,
                                       collInstant, sqlite3_free);
  if (rc != SQLITE_OK) sqlite3_free(memo);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_collation_v2(db, "decimal", SQLITE_UTF8, NULL,
                                     collDecimal, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(
        db, "decimal_sum", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
        NULL, NULL, sumStep, sumFinal);
  return rc;
}
