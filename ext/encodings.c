/*
** encodings.c -- parquet_encodings, a table of the encodings this
** extension knows, and which of them suit a physical type.
**
**   SELECT id, name, status FROM parquet_encodings;
**   SELECT name FROM parquet_encodings('INT64');   -- those a page of
**                                                  -- INT64 values may use
**
** How it works: the table has the schema
**
**   CREATE TABLE x(id, name, types, status, summary, section,
**                  type HIDDEN);
**
** One row per encoding enum value (src/util/catalog.c holds the rows).
** With the hidden argument `type`, only the encodings whose spec
** "Supported Types" include it, and that this build implements, are
** listed.
*/
#include <string.h>

#include "ext.h"

enum {
  ENC_COL_ID,
  ENC_COL_NAME,
  ENC_COL_TYPES,
  ENC_COL_STATUS,
  ENC_COL_SUMMARY,
  ENC_COL_SECTION,
  ENC_COL_TYPE
};

typedef struct EncodingsCursor {
  sqlite3_vtab_cursor base;
  int id;     /* current row: encoding enum value */
  int filter; /* only encodings that support `type` */
  pq_type type;
} EncodingsCursor;

#define ENCODINGS_SCHEMA                                            \
  "CREATE TABLE x(id INTEGER, name TEXT, types TEXT, status TEXT, " \
  "summary TEXT, section TEXT, type HIDDEN)"

static const pqx_vtab_spec encodings_spec = {ENCODINGS_SCHEMA, 0};

static int encOpenCursor(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  EncodingsCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *pp = &c->base;
  return SQLITE_OK;
}

static int encCloseCursor(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* Moves to the first row at or after c->id that passes the filter. */
static void encSkip(EncodingsCursor *c) {
  while (c->id < PQ_ENCODING_COUNT && c->filter &&
         !pq_encoding_supports((pq_encoding)c->id, c->type))
    c->id++;
}

static int encNext(sqlite3_vtab_cursor *cur) {
  EncodingsCursor *c = (EncodingsCursor *)cur;
  c->id++;
  encSkip(c);
  return SQLITE_OK;
}

static int encFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  EncodingsCursor *c = (EncodingsCursor *)cur;
  c->id = 0;
  c->filter = 0;
  if (idxNum & 1) {
    const char *s = (const char *)sqlite3_value_text(argv[0]);
    int32_t tl;
    if (!s ||
        pq_type_parse(s, (size_t)sqlite3_value_bytes(argv[0]), &c->type, &tl)) {
      sqlite3_free(cur->pVtab->zErrMsg);
      cur->pVtab->zErrMsg =
          sqlite3_mprintf("parquet_encodings: unknown type '%s'", s ? s : "");
      return SQLITE_ERROR;
    }
    c->filter = 1;
  }
  encSkip(c);
  return SQLITE_OK;
}

static int encEof(sqlite3_vtab_cursor *cur) {
  return ((EncodingsCursor *)cur)->id >= PQ_ENCODING_COUNT;
}

static int encColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  EncodingsCursor *c = (EncodingsCursor *)cur;
  const pq_encoding_info *e = pq_encoding_info_get((pq_encoding)c->id);
  const char *s = NULL;
  switch (col) {
    case ENC_COL_ID: sqlite3_result_int(ctx, e->id); return SQLITE_OK;
    case ENC_COL_NAME: s = e->name; break;
    case ENC_COL_TYPES: s = e->types; break;
    case ENC_COL_STATUS: s = e->status; break;
    case ENC_COL_SUMMARY: s = e->summary; break;
    case ENC_COL_SECTION: s = e->section; break;
    case ENC_COL_TYPE:
      if (c->filter) s = pq_type_name(c->type);
      break;
  }
  if (s) sqlite3_result_text(ctx, s, -1, SQLITE_STATIC);
  return SQLITE_OK;
}

static int encRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((EncodingsCursor *)cur)->id;
  return SQLITE_OK;
}

/* idxNum bit 0: the hidden `type` argument is given. */
static int encBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  info->idxNum = 0;
  info->estimatedCost = 10;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *con = &info->aConstraint[i];
    if (con->iColumn != ENC_COL_TYPE || con->op != SQLITE_INDEX_CONSTRAINT_EQ)
      continue;
    if (!con->usable) return SQLITE_CONSTRAINT;
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->idxNum = 1;
    info->estimatedCost = 5;
    break;
  }
  return SQLITE_OK;
}

static sqlite3_module encodingsModule = {
    .xConnect = pqx_vtab_connect,
    .xBestIndex = encBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = encOpenCursor,
    .xClose = encCloseCursor,
    .xFilter = encFilter,
    .xNext = encNext,
    .xEof = encEof,
    .xColumn = encColumn,
    .xRowid = encRowid,
};

int pqx_register_encodings(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet_encodings", &encodingsModule,
                               (void *)&encodings_spec);
}
