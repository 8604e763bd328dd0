/*
** step.c -- a loadable extension for bench/write.c, the baselines that
** parquet_write is measured against: what SQLite spends producing a
** query's rows and handing over their values, with nothing done with them
** but a checksum.  Each returns the rows.
**
**   bench_step(query)         every column of every row read as a consumer
**                             of `SELECT *` reads it (Python's sqlite3
**                             module, the sqlite3 shell): sqlite3_column_type,
**                             then the value by its storage class
**                             (sqlite3_column_int64, _double, or _text or
**                             _blob with _bytes)
**   bench_step_values(query)  the same through one sqlite3_column_value per
**                             column and the sqlite3_value_* accessors (each
**                             sqlite3_column_* call enters the connection's
**                             mutex: this takes one per column)
**
** and a virtual table, the floor a virtual table's full scan stands on:
**
**   CREATE VIRTUAL TABLE f USING bench_cells(SOURCE, 'COL TYPE ...', ...)
**                             every row of the named columns of table
**                             SOURCE, read once at CREATE into memory (the
**                             first word of each argument names the column,
**                             the whole is f's declaration of it: its type
**                             and collation), then handed to SQLite by xNext
**                             and xColumn with nothing else done: a row
**                             counter, and each value by its storage class,
**                             texts and blobs by reference, with a
**                             destructor that does nothing (as a table
**                             whose buffers do not outlive it must: SQLite
**                             then copies a value it keeps, as max() does,
**                             where it would point at a SQLITE_STATIC one)
*/
#include <stddef.h>
#include <string.h>

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

static sqlite3_uint64 value_sum(sqlite3_value *v) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER: return (sqlite3_uint64)sqlite3_value_int64(v);
    case SQLITE_FLOAT: return (sqlite3_uint64)sqlite3_value_double(v);
    case SQLITE_TEXT: {
      const unsigned char *t = sqlite3_value_text(v);
      return (sqlite3_uint64)sqlite3_value_bytes(v) + (t ? t[0] : 0);
    }
    case SQLITE_BLOB: {
      const unsigned char *b = sqlite3_value_blob(v);
      int k = sqlite3_value_bytes(v);
      return (sqlite3_uint64)k + (k ? b[0] : 0);
    }
    default: return 0;
  }
}

static void stepFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  int lean = sqlite3_user_data(ctx) != NULL;
  (void)argc;
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, (const char *)sqlite3_value_text(argv[0]), -1,
                         &st, NULL) != SQLITE_OK) {
    sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
    return;
  }
  int n = sqlite3_column_count(st);
  sqlite3_int64 rows = 0;
  sqlite3_uint64 sum = 0; /* so that no read is optimized away */
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int i = 0; i < n && lean; i++) sum += value_sum(sqlite3_column_value(st, i));
    for (int i = 0; i < n && !lean; i++) {
      switch (sqlite3_column_type(st, i)) {
        case SQLITE_INTEGER: sum += (sqlite3_uint64)sqlite3_column_int64(st, i); break;
        case SQLITE_FLOAT: sum += (sqlite3_uint64)sqlite3_column_double(st, i); break;
        case SQLITE_TEXT: {
          const unsigned char *t = sqlite3_column_text(st, i);
          sum += (sqlite3_uint64)sqlite3_column_bytes(st, i) + (t ? t[0] : 0);
          break;
        }
        case SQLITE_BLOB: {
          const unsigned char *b = sqlite3_column_blob(st, i);
          int k = sqlite3_column_bytes(st, i);
          sum += (sqlite3_uint64)k + (k ? b[0] : 0);
          break;
        }
        default: break;
      }
    }
    rows++;
  }
  if (rc != SQLITE_DONE) {
    sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
  } else {
    sqlite3_result_int64(ctx, rows);
    volatile sqlite3_uint64 keep = sum;
    (void)keep;
  }
  sqlite3_finalize(st);
}

/* ---- bench_cells ---- */

typedef struct Cell {
  union {
    sqlite3_int64 i;
    double r;
    sqlite3_int64 off; /* into the arena while it grows, then ... */
    const char *p;     /* ... a pointer into it */
  } u;
  int n;
  int type; /* SQLITE_INTEGER ... SQLITE_NULL */
} Cell;

typedef struct CellsTab {
  sqlite3_vtab base;
  int ncols;
  sqlite3_int64 nrows;
  Cell *cells; /* row-major: nrows x ncols */
  char *arena;
} CellsTab;

typedef struct CellsCur {
  sqlite3_vtab_cursor base;
  sqlite3_int64 row;
} CellsCur;

/* The first word of a column's definition: its name. */
static int word_len(const char *d) {
  int n = 0;
  while (d[n] && d[n] != ' ') n++;
  return n;
}

static int cellsLoad(sqlite3 *db, CellsTab *t, int argc, const char *const *argv,
                     char **err) {
  sqlite3_str *q = sqlite3_str_new(db);
  sqlite3_str_appendall(q, "SELECT ");
  for (int i = 4; i < argc; i++) {
    const char *d = argv[i] + (argv[i][0] == '\'');
    sqlite3_str_appendf(q, "%s%.*s", i > 4 ? ", " : "", word_len(d), d);
  }
  sqlite3_str_appendf(q, " FROM %s", argv[3]);
  char *sql = sqlite3_str_finish(q);
  if (!sql) return SQLITE_NOMEM;
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  sqlite3_free(sql);
  if (rc) {
    *err = sqlite3_mprintf("bench_cells: %s", sqlite3_errmsg(db));
    return rc;
  }
  sqlite3_int64 cap = 0, acap = 0, aused = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (t->nrows == cap) {
      cap = cap ? cap * 2 : 65536;
      Cell *nc = sqlite3_realloc64(t->cells, (sqlite3_uint64)(cap * t->ncols) * sizeof *nc);
      if (!nc) { rc = SQLITE_NOMEM; break; }
      t->cells = nc;
    }
    Cell *row = t->cells + t->nrows * t->ncols;
    for (int c = 0; c < t->ncols; c++) {
      Cell *x = &row[c];
      x->type = sqlite3_column_type(st, c);
      x->n = 0;
      x->u.i = 0;
      if (x->type == SQLITE_INTEGER) x->u.i = sqlite3_column_int64(st, c);
      if (x->type == SQLITE_FLOAT) x->u.r = sqlite3_column_double(st, c);
      if (x->type == SQLITE_TEXT || x->type == SQLITE_BLOB) {
        const void *v = x->type == SQLITE_TEXT ? (const void *)sqlite3_column_text(st, c)
                                               : sqlite3_column_blob(st, c);
        x->n = sqlite3_column_bytes(st, c);
        if (aused + x->n + 1 > acap) {
          while (aused + x->n + 1 > acap) acap = acap ? acap * 2 : 1 << 20;
          char *na = sqlite3_realloc64(t->arena, (sqlite3_uint64)acap);
          if (!na) { rc = SQLITE_NOMEM; break; }
          t->arena = na;
        }
        if (x->n) memcpy(t->arena + aused, v, (size_t)x->n);
        t->arena[aused + x->n] = 0;
        x->u.off = aused;
        aused += x->n + 1;
      }
    }
    if (rc == SQLITE_NOMEM) break;
    t->nrows++;
  }
  if (rc != SQLITE_DONE && rc != SQLITE_NOMEM)
    *err = sqlite3_mprintf("bench_cells: %s", sqlite3_errmsg(db));
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return rc == SQLITE_NOMEM ? rc : SQLITE_ERROR;
  for (sqlite3_int64 k = 0; k < t->nrows * t->ncols; k++) {
    Cell *x = &t->cells[k];
    if (x->type == SQLITE_TEXT || x->type == SQLITE_BLOB) x->u.p = t->arena + x->u.off;
  }
  return SQLITE_OK;
}

static int cellsDisconnect(sqlite3_vtab *v) {
  CellsTab *t = (CellsTab *)v;
  sqlite3_free(t->cells);
  sqlite3_free(t->arena);
  sqlite3_free(t);
  return SQLITE_OK;
}

static int cellsCreate(sqlite3 *db, void *aux, int argc, const char *const *argv,
                       sqlite3_vtab **pp, char **err) {
  (void)aux;
  if (argc < 5) {
    *err = sqlite3_mprintf("bench_cells(SOURCE, 'COLUMN TYPE', ...)");
    return SQLITE_ERROR;
  }
  CellsTab *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->ncols = argc - 4;
  sqlite3_str *d = sqlite3_str_new(db);
  sqlite3_str_appendall(d, "CREATE TABLE x(");
  for (int i = 4; i < argc; i++) {
    const char *a = argv[i];
    int n = (int)strlen(a);
    if (n >= 2 && a[0] == '\'') { a++; n -= 2; }
    sqlite3_str_appendf(d, "%s%.*s", i > 4 ? ", " : "", n, a);
  }
  sqlite3_str_appendall(d, ")");
  char *decl = sqlite3_str_finish(d);
  int rc = decl ? sqlite3_declare_vtab(db, decl) : SQLITE_NOMEM;
  sqlite3_free(decl);
  if (rc == SQLITE_OK) rc = cellsLoad(db, t, argc, argv, err);
  if (rc) {
    cellsDisconnect(&t->base);
    return rc;
  }
  *pp = &t->base;
  return SQLITE_OK;
}

static int cellsBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  info->estimatedCost = (double)((CellsTab *)v)->nrows;
  return SQLITE_OK;
}

static int cellsOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  CellsCur *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}

static int cellsClose(sqlite3_vtab_cursor *cur) {
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int cellsFilter(sqlite3_vtab_cursor *cur, int idx, const char *s, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)s, (void)argc, (void)argv;
  ((CellsCur *)cur)->row = 0;
  return SQLITE_OK;
}

static int cellsNext(sqlite3_vtab_cursor *cur) {
  ((CellsCur *)cur)->row++;
  return SQLITE_OK;
}

static int cellsEof(sqlite3_vtab_cursor *cur) {
  return ((CellsCur *)cur)->row >= ((CellsTab *)cur->pVtab)->nrows;
}

static void cells_keep(void *p) { (void)p; }

static int cellsColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  const CellsTab *t = (const CellsTab *)cur->pVtab;
  const Cell *x = &t->cells[((CellsCur *)cur)->row * t->ncols + col];
  switch (x->type) {
    case SQLITE_INTEGER: sqlite3_result_int64(ctx, x->u.i); break;
    case SQLITE_FLOAT: sqlite3_result_double(ctx, x->u.r); break;
    case SQLITE_TEXT: sqlite3_result_text(ctx, x->u.p, x->n, cells_keep); break;
    case SQLITE_BLOB: sqlite3_result_blob(ctx, x->u.p, x->n, cells_keep); break;
    default: break; /* NULL: as SQLite set it before the call */
  }
  return SQLITE_OK;
}

static int cellsRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((CellsCur *)cur)->row;
  return SQLITE_OK;
}

static sqlite3_module cells_module = {
    .xCreate = cellsCreate,
    .xConnect = cellsCreate,
    .xBestIndex = cellsBestIndex,
    .xDisconnect = cellsDisconnect,
    .xDestroy = cellsDisconnect,
    .xOpen = cellsOpen,
    .xClose = cellsClose,
    .xFilter = cellsFilter,
    .xNext = cellsNext,
    .xEof = cellsEof,
    .xColumn = cellsColumn,
    .xRowid = cellsRowid,
};

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_step_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  static int lean = 1;
  int rc = sqlite3_create_function(db, "bench_step", 1, SQLITE_UTF8, NULL,
                                   stepFunc, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "bench_step_values", 1, SQLITE_UTF8,
                                 &lean, stepFunc, NULL, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_create_module(db, "bench_cells", &cells_module, NULL);
  return rc;
}
