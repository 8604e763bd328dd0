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
*/
#include <stddef.h>

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
  return rc;
}
