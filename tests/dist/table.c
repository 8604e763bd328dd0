/*
** table.c -- a table written through parquet.h alone (doc/build.md shows
** this file whole; tests/dist.test builds it as core.c is built): three
** rows of dynamic values, the first column typed by its values, the
** second by its declared type, the third by the options; the file kept
** in memory, then read back row by row.
*/
#include <stdio.h>
#include <string.h>

#include <parquet.h>

int main(void) {
  const char *names[] = {"id", "name", "day"};
  const char *decls[] = {NULL, "TEXT", NULL};
  const char *opts = "{\"codec\":\"UNCOMPRESSED\","
                     "\"columns\":{\"day\":{\"type\":\"DATE\"}}}";
  const char *days[] = {"2024-01-01", "2024-02-29", "2024-12-31"};
  pq_table_writer *tw = pq_table_writer_new(NULL);
  int rc = tw ? pq_table_writer_options(tw, opts, strlen(opts)) : PQ_NOMEM;
  if (!rc) rc = pq_table_writer_to_memory(tw);
  if (!rc) rc = pq_table_writer_columns(tw, 3, names, decls);
  for (int r = 0; r < 3 && !rc; r++) {
    pq_dvalue row[3] = {{PQ_DV_INT, 10 * r, 0, NULL, 0},
                        {PQ_DV_TEXT, 0, 0, "abc", (size_t)r},
                        {PQ_DV_TEXT, 0, 0, days[r], 10}};
    if (r == 1) row[1].kind = PQ_DV_NULL;
    rc = pq_table_writer_row(tw, row);
  }
  if (!rc) rc = pq_table_writer_finish(tw);
  if (rc) {
    printf("failed: %s\n", pq_table_writer_message(tw));
    pq_table_writer_free(tw);
    return 1;
  }
  pq_buf file;
  pq_table_writer_take(tw, &file);
  pq_table_writer_free(tw);

  pq_file *f = NULL;
  pq_row_reader *rows = NULL;
  pq_error err;
  pq_buf json;
  pq_buf_init(&json);
  int got = 1;
  rc = pq_file_open(&f, file.data, file.len, &err);
  if (!rc) rc = pq_row_reader_open(&rows, f, 0, 1 << 20, &err);
  while (!rc && got) {
    json.len = 0;
    rc = pq_row_reader_next(rows, &json, &got, &err);
    if (!rc && got) printf("%.*s\n", (int)json.len, (const char *)json.data);
  }
  if (rc) printf("failed: %s\n", err.msg);
  pq_row_reader_free(rows);
  pq_file_free(f);
  pq_buf_free(&json);
  pq_buf_free(&file);
  return rc != 0;
}
