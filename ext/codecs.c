/*
** codecs.c -- parquet_codecs, a table of Parquet's compression codecs and
** what this build has of each.
**
**   SELECT name, available, min_level, max_level FROM parquet_codecs;
**
** How it works: the table has the schema
**
**   CREATE TABLE x(name, codec, available, min_level, max_level,
**                  default_level, library, version);
**
** One row per value of parquet.thrift's enum CompressionCodec, in its
** order; the core says what the build has (pq_codec_describe): a codec
** whose library the build leaves out (make WITHOUT=...) is available 0,
** and its library's version is NULL.
*/
#include "ext.h"

enum {
  CODECS_COL_NAME,
  CODECS_COL_CODEC,
  CODECS_COL_AVAILABLE,
  CODECS_COL_MIN_LEVEL,
  CODECS_COL_MAX_LEVEL,
  CODECS_COL_DEFAULT_LEVEL,
  CODECS_COL_LIBRARY,
  CODECS_COL_VERSION
};

typedef struct CodecsCursor {
  sqlite3_vtab_cursor base;
  int id; /* current row: the codec's enum value */
  pq_codec_info info;
} CodecsCursor;

#define CODECS_SCHEMA                                                  \
  "CREATE TABLE x(name TEXT, codec INTEGER, available INTEGER, "       \
  "min_level INTEGER, max_level INTEGER, default_level INTEGER, "      \
  "library TEXT, version TEXT)"

static const pqx_vtab_spec codecs_spec = {CODECS_SCHEMA, 0};

static int codecsOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  CodecsCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *pp = &c->base;
  return SQLITE_OK;
}

static int codecsClose(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

static void codecsLoad(CodecsCursor *c) {
  if (c->id < PQ_CODEC_COUNT) pq_codec_describe((pq_codec)c->id, &c->info);
}

static int codecsNext(sqlite3_vtab_cursor *cur) {
  CodecsCursor *c = (CodecsCursor *)cur;
  c->id++;
  codecsLoad(c);
  return SQLITE_OK;
}

static int codecsFilter(sqlite3_vtab_cursor *cur, int idxNum,
                        const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxNum;
  (void)idxStr;
  (void)argc;
  (void)argv;
  CodecsCursor *c = (CodecsCursor *)cur;
  c->id = 0;
  codecsLoad(c);
  return SQLITE_OK;
}

static int codecsEof(sqlite3_vtab_cursor *cur) {
  return ((CodecsCursor *)cur)->id >= PQ_CODEC_COUNT;
}

static int codecsColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                        int col) {
  CodecsCursor *c = (CodecsCursor *)cur;
  const pq_codec_info *i = &c->info;
  switch (col) {
    case CODECS_COL_NAME:
      sqlite3_result_text(ctx, pq_codec_name((pq_codec)c->id), -1,
                          SQLITE_STATIC);
      break;
    case CODECS_COL_CODEC: sqlite3_result_int(ctx, c->id); break;
    case CODECS_COL_AVAILABLE: sqlite3_result_int(ctx, i->available); break;
    case CODECS_COL_MIN_LEVEL:
      if (i->has_levels) sqlite3_result_int(ctx, i->min_level);
      break;
    case CODECS_COL_MAX_LEVEL:
      if (i->has_levels) sqlite3_result_int(ctx, i->max_level);
      break;
    case CODECS_COL_DEFAULT_LEVEL:
      if (i->has_levels) sqlite3_result_int(ctx, i->default_level);
      break;
    case CODECS_COL_LIBRARY:
      if (i->library) sqlite3_result_text(ctx, i->library, -1, SQLITE_STATIC);
      break;
    case CODECS_COL_VERSION:
      if (i->version[0]) {
        sqlite3_result_text(ctx, i->version, -1, SQLITE_TRANSIENT);
      }
      break;
  }
  return SQLITE_OK;
}

static int codecsRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((CodecsCursor *)cur)->id;
  return SQLITE_OK;
}

static int codecsBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  info->idxNum = 0;
  info->estimatedCost = 10;
  info->estimatedRows = PQ_CODEC_COUNT;
  return SQLITE_OK;
}

static sqlite3_module codecsModule = {
    .xConnect = pqx_vtab_connect,
    .xBestIndex = codecsBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = codecsOpen,
    .xClose = codecsClose,
    .xFilter = codecsFilter,
    .xNext = codecsNext,
    .xEof = codecsEof,
    .xColumn = codecsColumn,
    .xRowid = codecsRowid,
};

int pqx_register_codecs(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet_codecs", &codecsModule,
                               (void *)&codecs_spec);
}
