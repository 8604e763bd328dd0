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
  COL_IDX,
  COL_VALUE,
  COL_BLOB,
  COL_ENCODING,
  COL_TYPE,
  COL_OPTIONS,
  COL_DICTIONARY
};
#define FIRST_ARG COL_BLOB
#define NARGS 5

typedef struct ValuesCursor {
  sqlite3_vtab_cursor base;
  pq_decoder *dec;
  uint8_t *blob; /* copies of the arguments the decoder reads */
  uint8_t *dict;
  void *batch;        /* decoded values */
  size_t cap, n, pos; /* batch capacity, fill and position */
  sqlite3_int64 idx;  /* index of the current value */
  pq_type type;       /* what the decoder yields */
  int32_t type_length;
  int is_index;
  int binary;
  int eof;
} ValuesCursor;

static int valuesConnect(sqlite3 *db, void *aux, int argc,
                         const char *const *argv, sqlite3_vtab **ppVtab,
                         char **pzErr) {
  (void)aux;
  (void)argc;
  (void)argv;
  (void)pzErr;
  return pqx_vtab_connect(
      db,
      "CREATE TABLE x(idx INTEGER, value, blob HIDDEN, encoding HIDDEN, "
      "type HIDDEN, options HIDDEN, dictionary HIDDEN)",
      ppVtab);
}

static int valuesOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  ValuesCursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}

static void valuesReset(ValuesCursor *c) {
  pq_decoder_free(c->dec);
  c->dec = NULL;
  sqlite3_free(c->blob);
  sqlite3_free(c->dict);
  sqlite3_free(c->batch);
  c->blob = c->dict = NULL;
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

/* Copies an argument's bytes (the decoder reads them for the whole scan,
** longer than SQLite promises to keep the argument). */
static int copyArg(sqlite3_value *v, uint8_t **out, size_t *len) {
  const void *p = sqlite3_value_blob(v);
  *len = (size_t)sqlite3_value_bytes(v);
  *out = sqlite3_malloc64(*len ? *len : 1);
  if (!*out) return SQLITE_NOMEM;
  if (*len) memcpy(*out, p, *len);
  return SQLITE_OK;
}

static int valuesFilter(sqlite3_vtab_cursor *cur, int idxNum,
                        const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  ValuesCursor *c = (ValuesCursor *)cur;
  valuesReset(c);
  c->idx = 0;
  /* argv holds the constrained arguments in column order (see BestIndex). */
  sqlite3_value *args[NARGS] = {0};
  for (int i = 0, j = 0; i < NARGS; i++) {
    if (idxNum & (1 << i)) args[i] = argv[j++];
  }
  if (!args[0] || sqlite3_value_type(args[0]) == SQLITE_NULL) return SQLITE_OK;
  pq_params p;
  char *msg = pqx_params("parquet_values", args[1], args[2], args[3], &p);
  if (msg) return valuesError(c, msg);
  size_t len, dict_len = 0;
  if (copyArg(args[0], &c->blob, &len)) return SQLITE_NOMEM;
  if (args[4] && sqlite3_value_type(args[4]) != SQLITE_NULL &&
      copyArg(args[4], &c->dict, &dict_len))
    return SQLITE_NOMEM;
  pq_error err;
  int rc = pq_decoder_open(&c->dec, &p, c->blob, len, c->dict, dict_len, &err);
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
  if (col == COL_IDX) {
    sqlite3_result_int64(ctx, c->idx);
  } else if (col == COL_VALUE) {
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

/* idxNum has bit i set when argument i (blob, encoding, type, options,
** dictionary) is given by an equality constraint; argv follows that order.
** The blob and the encoding are required. */
static int valuesBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  int where[NARGS];
  int unusable = 0, mask = 0;
  for (int i = 0; i < NARGS; i++) where[i] = -1;
  const struct sqlite3_index_constraint *con = info->aConstraint;
  for (int i = 0; i < info->nConstraint; i++, con++) {
    int col = con->iColumn - FIRST_ARG;
    if (col < 0 || col >= NARGS) continue;
    if (con->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!con->usable) {
      unusable |= 1 << col;
      continue;
    }
    where[col] = i;
    mask |= 1 << col;
  }
  if ((unusable & ~mask) & 3) return SQLITE_CONSTRAINT;
  if ((mask & 3) != 3) {
    sqlite3_free(tab->zErrMsg);
    tab->zErrMsg = sqlite3_mprintf(
        "parquet_values: the encoded BLOB and the encoding are required, as "
        "in parquet_values(blob, 'PLAIN', 'INT32')");
    return SQLITE_ERROR;
  }
  int argv = 0;
  for (int i = 0; i < NARGS; i++) {
    if (where[i] < 0) continue;
    info->aConstraintUsage[where[i]].argvIndex = ++argv;
    info->aConstraintUsage[where[i]].omit = 1;
  }
  info->idxNum = mask;
  info->estimatedCost = 1000;
  info->estimatedRows = 1000;
  /* Rows come out in idx order. */
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == COL_IDX &&
      !info->aOrderBy[0].desc)
    info->orderByConsumed = 1;
  return SQLITE_OK;
}

/* Eponymous only: no xCreate. */
static sqlite3_module valuesModule = {
    .xConnect = valuesConnect,
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
  return sqlite3_create_module(db, "parquet_values", &valuesModule, 0);
}
