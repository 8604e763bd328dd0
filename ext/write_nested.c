/*
** write_nested.c -- the nested columns of parquet_write: a column typed
** LIST<t>, MAP<k, v> or STRUCT<name t, ...> takes JSON text.  The type's
** grammar, the schema and the shredding of a value into its leaves are
** the core's (src/writer/nested.c); here SQL values go in and the core's
** faults come out as SQL errors naming the column and the row.
*/
#include <string.h>

#include "write.h"

/* msg's text (as the core left it) as a message; PQX_W_NOMEM when it
** cannot be made. */
static char *wn_text(const pq_buf *msg) {
  return pqx_w_msg("%s", msg->len ? (const char *)msg->data : "");
}

int pqx_nested_parse(const char *s, pq_nested **tree, char **msg) {
  *msg = NULL;
  pq_buf m;
  pq_buf_init(&m);
  int rc = pq_nested_parse(s, tree, &m);
  if (rc == -2) *msg = PQX_W_NOMEM;
  else if (rc < 0) *msg = wn_text(&m);
  pq_buf_free(&m);
  return rc < 0 ? -1 : rc;
}

char *pqx_nested_open(Writer *wr) {
  int n = wr->ncols;
  pq_nested **nested = sqlite3_malloc64((size_t)n * sizeof *nested);
  const char **names = sqlite3_malloc64((size_t)n * sizeof *names);
  pq_params *ps = sqlite3_malloc64((size_t)n * sizeof *ps);
  pq_write_options *os = sqlite3_malloc64((size_t)n * sizeof *os);
  int *wcol = sqlite3_malloc64((size_t)n * sizeof *wcol);
  char *msg = NULL;
  if (!nested || !names || !ps || !os || !wcol) msg = PQX_W_NOMEM;
  if (!msg) {
    for (int i = 0; i < n; i++) {
      WCol *c = &wr->cols[i];
      nested[i] = c->tree;
      names[i] = c->name;
      ps[i] = c->p;
      os[i] = c->o;
    }
    pq_error err = {0};
    int bad;
    int rc = pq_nested_open_writer(&wr->w, n, nested, names, ps, os, wcol,
                                   &bad, &err);
    if (rc == PQ_NOMEM)
      msg = PQX_W_NOMEM;
    else if (rc && bad >= 0)
      msg = pqx_w_msg(FN ": column '%s': %s", wr->cols[bad].name, err.msg);
    else if (rc)
      msg = pqx_w_core(rc, &err);
    for (int i = 0; i < n && !rc; i++)
      if (!wr->cols[i].tree) wr->cols[i].wcol = wcol[i];
  }
  sqlite3_free(nested);
  sqlite3_free(names);
  sqlite3_free(ps);
  sqlite3_free(os);
  sqlite3_free(wcol);
  return msg;
}

char *pqx_nested_put(Writer *wr, int col, sqlite3_value *v) {
  WCol *c = &wr->cols[col];
  long long row = (long long)(wr->rows + (int64_t)wr->batch_rows + 1);
  const char *text = NULL;
  size_t n = 0;
  int vt = sqlite3_value_type(v);
  if (vt != SQLITE_NULL && vt != SQLITE_TEXT) {
    return pqx_w_msg(FN ": column '%s', row %lld: %s where JSON text "
                        "belongs", c->name, row,
                     vt == SQLITE_INTEGER ? "an INTEGER"
                     : vt == SQLITE_FLOAT ? "a REAL" : "a BLOB");
  }
  if (vt == SQLITE_TEXT) {
    text = (const char *)sqlite3_value_text(v);
    if (!text) return PQX_W_NOMEM;
    n = (size_t)sqlite3_value_bytes(v);
  }
  pq_buf m;
  pq_buf_init(&m);
  int rc = pq_nested_put(c->tree, text, n, &m);
  char *msg = NULL;
  if (rc == PQ_NOMEM)
    msg = PQX_W_NOMEM;
  else if (rc)
    msg = pqx_w_msg(FN ": column '%s', row %lld: %s", c->name, row,
                    m.len ? (const char *)m.data : "");
  pq_buf_free(&m);
  return msg;
}

char *pqx_nested_flush(Writer *wr, int col) {
  pq_error err = {0};
  int rc = pq_nested_flush(wr->cols[col].tree, wr->w, &err);
  return rc ? pqx_w_core(rc, &err) : NULL;
}
