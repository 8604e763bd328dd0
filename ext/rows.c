/*
** rows.c -- parquet_rows(source): every record of Parquet files as a JSON
** object, one row each, streamed a row group at a time.
**
**   SELECT value ->> '$.name' FROM parquet_rows('people.parquet') LIMIT 5;
**
** `source` is a path, a glob or folder, or a file image as a BLOB.  The
** objects are the ones parquet_decode(source) puts in its array, built
** here row by row: memory follows one row group, not the file.
*/
#include <stdio.h>
#include <string.h>

#include "ext.h"

enum { ROWS_FILE_ROW, ROWS_VALUE, ROWS_SOURCE, ROWS_FILENAME };

static const pqx_vtab_spec rows_spec = {
    "CREATE TABLE x(file_row_number INTEGER, value TEXT, source HIDDEN, "
    "filename TEXT HIDDEN)",
    1};

typedef struct RowsCursor {
  sqlite3_vtab_cursor base;
  pqx_sources ss;
  pqx_source src;
  pq_row_reader *reader;
  uint32_t group;
  int64_t row;        /* in the file */
  pq_buf value;
  pq_read_room room;  /* what the row groups' columns are read into, one
                      ** after the other (pq_row_reader_open_room) */
  int eof;
} RowsCursor;

static int rowsOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  RowsCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}

static void rowsReset(RowsCursor *c) {
  pq_row_reader_free(c->reader);
  c->reader = NULL;
  c->room.owner = NULL; /* its file goes */
  pqx_source_close(&c->src);
  pqx_sources_close(&c->ss);
  pq_buf_free(&c->value);
  c->eof = 1;
}

static int rowsClose(sqlite3_vtab_cursor *cur) {
  RowsCursor *c = (RowsCursor *)cur;
  rowsReset(c);
  pq_buf_free(&c->room.window);
  pq_buf_free(&c->room.page);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int rowsError(RowsCursor *c, char *msg) {
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = msg;
  c->eof = 1;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* Reads the next row into c->value: from the current row group, the next
** one, or the next file. */
static int rowsStep(RowsCursor *c) {
  size_t limit = pqx_vtab_limit(c->base.pVtab);
  for (;;) {
    pq_error err;
    if (c->reader) {
      int got;
      c->value.len = 0;
      int rc = pq_row_reader_next(c->reader, &c->value, &got, &err);
      if (rc == PQ_OK && c->value.len > limit) {
        rc = PQ_TOOBIG;
        snprintf(err.msg, sizeof err.msg,
                 "row %lld as JSON exceeds the limit of %zu bytes",
                 (long long)c->row, limit);
        err.code = rc;
      }
      if (rc) {
        if (rc == PQ_NOMEM) return rowsError(c, NULL);
        return rowsError(c, pqx_source_error("parquet_rows", c->src.name, &err));
      }
      if (got) {
        c->row++;
        return SQLITE_OK;
      }
      pq_row_reader_free(c->reader);
      c->reader = NULL;
      c->group++;
    }
    if (c->src.file &&
        c->group < pq_file_metadata(c->src.file)->n_row_groups) {
      int rc = pq_row_reader_open_room(&c->reader, c->src.file, c->group,
                                       limit, &c->room, &err);
      if (rc == PQ_NOMEM) return rowsError(c, NULL);
      if (rc) {
        return rowsError(c, pqx_source_error("parquet_rows", c->src.name, &err));
      }
      continue;
    }
    char *msg = NULL;
    int got;
    c->room.owner = NULL; /* the file it holds bytes of goes */
    int rc = pqx_sources_next(&c->ss, &c->src, &got, &msg);
    if (rc) return rowsError(c, msg);
    if (!got) {
      c->eof = 1;
      return SQLITE_OK;
    }
    c->group = 0;
    c->row = -1;
  }
}

static int rowsFilter(sqlite3_vtab_cursor *cur, int idxNum,
                      const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  RowsCursor *c = (RowsCursor *)cur;
  rowsReset(c);
  if (!idxNum) {
    return rowsError(c, sqlite3_mprintf(
                            "parquet_rows: the source is missing: "
                            "parquet_rows('file.parquet')"));
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  char *msg = NULL;
  int rc = pqx_sources_open(&c->ss, ((pqx_vtab *)cur->pVtab)->db, argv[0],
                            "parquet_rows", &msg);
  if (rc) return rowsError(c, msg);
  c->eof = 0;
  c->row = -1;
  return rowsStep(c);
}

static int rowsNext(sqlite3_vtab_cursor *cur) {
  return rowsStep((RowsCursor *)cur);
}

static int rowsEof(sqlite3_vtab_cursor *cur) {
  return ((RowsCursor *)cur)->eof;
}

static int rowsColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                      int col) {
  RowsCursor *c = (RowsCursor *)cur;
  switch (col) {
    case ROWS_FILE_ROW:
      sqlite3_result_int64(ctx, c->row);
      break;
    case ROWS_VALUE:
      sqlite3_result_text64(ctx, (const char *)(c->value.data ? c->value.data
                                                               : (uint8_t *)""),
                            c->value.len, SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case ROWS_FILENAME:
      if (c->src.name) sqlite3_result_text(ctx, c->src.name, -1, SQLITE_TRANSIENT);
      break;
    default:
      break;
  }
  return SQLITE_OK;
}

static int rowsRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((RowsCursor *)cur)->row;
  return SQLITE_OK;
}

static int rowsBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  return pqx_source_best_index(info, ROWS_SOURCE);
}

static sqlite3_module rows_module = {
    .iVersion = 0,
    .xConnect = pqx_vtab_connect,
    .xBestIndex = rowsBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = rowsOpen,
    .xClose = rowsClose,
    .xFilter = rowsFilter,
    .xNext = rowsNext,
    .xEof = rowsEof,
    .xColumn = rowsColumn,
    .xRowid = rowsRowid,
};

int pqx_register_rows(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet_rows", &rows_module,
                               (void *)&rows_spec);
}
