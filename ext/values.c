/*
** values.c -- parquet_values, an eponymous table-valued function: one row
** per value of an encoded stream.
**
**   SELECT idx, value
**     FROM parquet_values(X'AA00A3BB11B4CC22C5DD33D6', 'BYTE_STREAM_SPLIT',
**                         'FLOAT');
**
** How it works: the table has the schema
**
**   CREATE TABLE x(idx, value, blob HIDDEN, encoding HIDDEN, type HIDDEN,
**                  options HIDDEN, dictionary HIDDEN);
**
** and its arguments are the hidden columns, in that order.  The cursor
** decodes a batch of values at a time (pqx_batch_values), so a stream of
** any length is scanned in constant memory beyond the stream itself.
*/
#include <stdlib.h>
#include <string.h>

#include "ext.h"

enum {
  VALUES_COL_IDX,
  VALUES_COL_VALUE,
  VALUES_COL_BLOB,
  VALUES_COL_ENCODING,
  VALUES_COL_TYPE,
  VALUES_COL_OPTIONS,
  VALUES_COL_DICTIONARY
};

typedef struct ValuesCursor {
  sqlite3_vtab_cursor base;
  pq_decoder *dec;
  pqx_args args;      /* the arguments (in SQLite's registers) */
  void *batch;        /* decoded values */
  size_t cap, n, pos; /* batch capacity, fill and position */
  sqlite3_int64 idx;  /* index of the current value */
  pq_type type;       /* what the decoder yields */
  int32_t type_length;
  int is_index;
  int binary;
  int eof;
} ValuesCursor;

#define VALUES_SCHEMA                                                 \
  "CREATE TABLE x(idx INTEGER, value, blob HIDDEN, encoding HIDDEN, " \
  "type HIDDEN, options HIDDEN, dictionary HIDDEN)"

static const pqx_vtab_spec values_spec = {VALUES_SCHEMA, 0};

static int valuesOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  ValuesCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}

static void valuesReset(ValuesCursor *c) {
  pq_decoder_free(c->dec);
  c->dec = NULL;
  pqx_args_free(&c->args);
  sqlite3_free(c->batch);
  c->batch = NULL;
  c->n = c->pos = 0;
  c->eof = 1;
}

static int valuesClose(sqlite3_vtab_cursor *cur) {
  valuesReset((ValuesCursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int valuesError(ValuesCursor *c, char *msg) {
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = msg;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* Decodes the next batch; sets eof when the stream is done. */
static int valuesFill(ValuesCursor *c) {
  pq_error err;
  size_t n;
  int rc = pq_decoder_read(c->dec, c->batch, c->cap, &n, &err);
  if (rc) return valuesError(c, pqx_core_error("parquet_values", rc, &err));
  c->n = n;
  c->pos = 0;
  if (n == 0) c->eof = 1;
  return SQLITE_OK;
}

static int valuesNext(sqlite3_vtab_cursor *cur) {
  ValuesCursor *c = (ValuesCursor *)cur;
  c->idx++;
  if (++c->pos < c->n) return SQLITE_OK;
  return valuesFill(c);
}

static int valuesFilter(sqlite3_vtab_cursor *cur, int idxNum,
                        const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  ValuesCursor *c = (ValuesCursor *)cur;
  valuesReset(c);
  c->idx = 0;
  int no_rows;
  int rc =
      pqx_args_filter(cur, "parquet_values", idxNum, argv, &c->args, &no_rows);
  if (rc || no_rows) return rc;
  pq_params p = c->args.p;
  pq_error err;
  rc = pq_decoder_open(&c->dec, &p, c->args.blob, c->args.len, c->args.dict,
                       c->args.dict_len, &err);
  if (rc) return valuesError(c, pqx_core_error("parquet_values", rc, &err));
  c->type = pq_decoder_type(c->dec, &c->is_index, &c->type_length);
  c->binary = p.binary;
  size_t vs =
      c->is_index ? sizeof(uint32_t) : pq_value_size(c->type, c->type_length);
  c->cap = pqx_batch_values(vs);
  c->batch = sqlite3_malloc64(c->cap * vs);
  if (!c->batch) return SQLITE_NOMEM;
  c->eof = 0;
  return valuesFill(c);
}

static int valuesEof(sqlite3_vtab_cursor *cur) {
  return ((ValuesCursor *)cur)->eof;
}

static int valuesColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                        int col) {
  ValuesCursor *c = (ValuesCursor *)cur;
  if (col == VALUES_COL_IDX) {
    sqlite3_result_int64(ctx, c->idx);
  } else if (col == VALUES_COL_VALUE) {
    pqx_result_value(ctx, c->batch, c->pos, c->type, c->type_length,
                     c->is_index, c->binary);
  }
  /* The hidden argument columns read as NULL. */
  return SQLITE_OK;
}

static int valuesRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((ValuesCursor *)cur)->idx;
  return SQLITE_OK;
}

static int valuesBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  int rc = pqx_args_best_index(info, VALUES_COL_BLOB);
  /* Rows come out in idx order. */
  if (rc == SQLITE_OK && info->nOrderBy == 1 &&
      info->aOrderBy[0].iColumn == VALUES_COL_IDX && !info->aOrderBy[0].desc)
    info->orderByConsumed = 1;
  return rc;
}

/* Eponymous only: no xCreate. */
static sqlite3_module valuesModule = {
    .xConnect = pqx_vtab_connect,
    .xBestIndex = valuesBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = valuesOpen,
    .xClose = valuesClose,
    .xFilter = valuesFilter,
    .xNext = valuesNext,
    .xEof = valuesEof,
    .xColumn = valuesColumn,
    .xRowid = valuesRowid,
};

int pqx_register_values(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet_values", &valuesModule,
                               (void *)&values_spec);
}
