/*
** embed.c -- an application with the extension compiled in from the
** amalgamation (make dist), as tests/dist.test builds it:
**
**   cc -DSQLITE_CORE -Ibuild/dist tests/dist/embed.c build/dist/parquet.c \
**      -lsqlite3 -lsnappy -lz -lzstd -llz4 -lbrotlienc -lbrotlidec -lm
**
** sqlite3_auto_extension() gives every connection opened after it the
** extension's functions; the core's own API is there too, from the same
** parquet.h.
*/
#include <sqlite3.h>
#include <stdio.h>

#include "parquet.h"

static int print_row(void *arg, int n, char **values, char **names) {
  (void)arg;
  (void)names;
  for (int i = 0; i < n; i++) {
    printf("%s%s", i ? "|" : "", values[i] ? values[i] : "");
  }
  printf("\n");
  return 0;
}

int main(void) {
  static const char *const queries[] = {
      "SELECT parquet_version()",
      "WITH t(v) AS (VALUES (7),(5),(3),(1),(2),(3),(4),(5)) "
      "SELECT hex(parquet_encode(v, 'DELTA_BINARY_PACKED', 'INT64', "
      "'{\"block_size\":8,\"miniblocks\":1}')) FROM t",
      "SELECT parquet_decode(X'0801080E0302C03F', 'DELTA_BINARY_PACKED')",
      "SELECT count(*) FROM parquet_encodings('DOUBLE')"};
  sqlite3 *db = NULL;
  int rc = sqlite3_auto_extension((void (*)(void))sqlite3_parquet_init);
  if (rc == SQLITE_OK) rc = sqlite3_open(":memory:", &db);
  for (size_t i = 0; rc == SQLITE_OK && i < sizeof queries / sizeof *queries;
       i++) {
    char *err = NULL;
    rc = sqlite3_exec(db, queries[i], print_row, NULL, &err);
    if (rc) fprintf(stderr, "embed: %s\n", err ? err : sqlite3_errstr(rc));
    sqlite3_free(err);
  }
  sqlite3_close(db);
  printf("core: %s %s\n", pq_encoding_name(PQ_DELTA_BINARY_PACKED),
         PQ_VERSION_STRING);
  return rc != SQLITE_OK;
}
