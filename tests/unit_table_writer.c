/*
** unit_table_writer.c -- the table writer (parquet.h, "Writing a table")
** through the public header alone: columns typed by their values, by
** their declared types and by the options, NULLs, a nested column, row
** groups, the worker thread on and off, the output in memory, in a file,
** in a partitioned folder and in a sink of the program's, and the
** failures: an option, a value, the memory limit, the host's refusal, a
** sink's refusal, and every allocation of a small write failing in turn
** (to memory, and to a sink, which is aborted).  Each file is read back with the core's reader and its
** rows compared with the values given.
*/
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHECK_SEED 0x7ab1e
#define CHECK_FILES /* slurp */
#include "check.h"
#include "parquet.h"

/* ---- An allocator that counts, and fails on demand ------------------------ */

/* (atomic: the worker thread allocates too) */
static atomic_long live;         /* blocks allocated and not freed */
static atomic_long fail_at = -1; /* the allocation that fails (0: the next) */

static int counted_fails(void) {
  if (atomic_load(&fail_at) < 0) return 0;
  return atomic_fetch_sub(&fail_at, 1) == 0;
}
static void *counted_malloc(size_t n) {
  if (counted_fails()) return NULL;
  void *p = malloc(n);
  if (p) live++;
  return p;
}
static void *counted_realloc(void *p, size_t n) {
  if (counted_fails()) return NULL;
  void *q = realloc(p, n);
  if (q && !p) live++;
  return q;
}
static void counted_free(void *p) {
  live--;
  free(p);
}
static const pq_allocator counted = {counted_malloc, counted_realloc,
                                     counted_free};

/* ---- Rows ----------------------------------------------------------------- */

#define NCOLS 6
static const char *const names[NCOLS] = {"id", "name", "score", "day", "tags",
                                         "bin"};
/* name and bin typed by their declared types, day and tags by the
** options, id and score by their values. */
static const char *const decls[NCOLS] = {NULL, "VARCHAR(20)", NULL, NULL,
                                         NULL, "BLOB"};
static const char flat_fmt[] =
    "{\"row_group_size\":%d,\"threads\":%d,\"codec\":\"UNCOMPRESSED\","
    "\"columns\":{\"day\":{\"type\":\"DATE\"}}}";
static const char opts_fmt[] =
    "{\"row_group_size\":%d,\"threads\":%d,\"codec\":\"UNCOMPRESSED\","
    "\"columns\":{\"day\":{\"type\":\"DATE\"},\"tags\":{\"type\":"
    "\"LIST<INT64>\"}}}";

/* Row r's values (text in buf). */
static void make_row(int r, pq_dvalue *v, char (*buf)[48]) {
  memset(v, 0, NCOLS * sizeof *v);
  v[0].kind = PQ_DV_INT;
  v[0].i = (int64_t)r * 1000003 - 7;
  if (r % 7 == 3) {
    v[1].kind = PQ_DV_NULL;
  } else {
    snprintf(buf[1], sizeof buf[1], "n%d", r);
    v[1].kind = PQ_DV_TEXT;
    v[1].p = buf[1];
    v[1].n = strlen(buf[1]);
  }
  v[2].kind = r % 5 == 0 ? PQ_DV_NULL : PQ_DV_DOUBLE;
  v[2].d = r + 0.25;
  snprintf(buf[3], sizeof buf[3], "2024-%02d-%02d", 1 + r % 12, 1 + r % 28);
  v[3].kind = PQ_DV_TEXT;
  v[3].p = buf[3];
  v[3].n = strlen(buf[3]);
  if (r % 11 == 0) {
    v[4].kind = PQ_DV_NULL;
  } else {
    snprintf(buf[4], sizeof buf[4], "[%d,%d]", r, -r);
    v[4].kind = PQ_DV_TEXT;
    v[4].p = buf[4];
    v[4].n = strlen(buf[4]);
  }
  buf[5][0] = (char)(r & 0x7f);
  buf[5][1] = 'x';
  v[5].kind = PQ_DV_BLOB;
  v[5].p = buf[5];
  v[5].n = 2;
}

/* The columns of the rows as the reader gives them, for row r. */
static void want_row(int r, int nested, pq_buf *out) {
  char s[256];
  int n = snprintf(s, sizeof s, "{\"id\":%lld,", (long long)r * 1000003 - 7);
  if (r % 7 == 3) n += snprintf(s + n, sizeof s - (size_t)n, "\"name\":null,");
  else n += snprintf(s + n, sizeof s - (size_t)n, "\"name\":\"n%d\",", r);
  if (r % 5 == 0) n += snprintf(s + n, sizeof s - (size_t)n, "\"score\":null,");
  else n += snprintf(s + n, sizeof s - (size_t)n, "\"score\":%d.25,", r);
  n += snprintf(s + n, sizeof s - (size_t)n, "\"day\":\"2024-%02d-%02d\"",
                1 + r % 12, 1 + r % 28);
  if (nested) {
    if (r % 11 == 0) n += snprintf(s + n, sizeof s - (size_t)n, ",\"tags\":null");
    else n += snprintf(s + n, sizeof s - (size_t)n, ",\"tags\":[%d,%d]", r, -r);
  }
  snprintf(s + n, sizeof s - (size_t)n, "}\n");
  pq_buf_append(out, s, strlen(s));
}

/* A file's rows as JSON lines (without the column bin, whose bytes the
** reader shows as text of its own), and its row groups. */
static int read_rows(const uint8_t *p, size_t n, pq_buf *rows, int *groups) {
  pq_file *f = NULL;
  pq_error err = {0};
  int rc = pq_file_open(&f, p, n, &err);
  CHECK(rc == PQ_OK, "open: %s", err.msg);
  if (rc) return rc;
  *groups = (int)pq_file_metadata(f)->n_row_groups;
  pq_buf one;
  pq_buf_init(&one);
  for (int g = 0; g < *groups && !rc; g++) {
    pq_row_reader *r;
    rc = pq_row_reader_open(&r, f, (uint32_t)g, (size_t)1 << 24, &err);
    for (int got = 1; !rc && got;) {
      one.len = 0;
      rc = pq_row_reader_next(r, &one, &got, &err);
      if (rc || !got) break;
      /* the row without ,"bin":... (the last member) */
      const char *bin = NULL;
      for (size_t k = 0; k + 7 <= one.len; k++)
        if (memcmp(one.data + k, ",\"bin\":", 7) == 0) bin = (const char *)one.data + k;
      size_t keep = bin ? (size_t)(bin - (const char *)one.data) : one.len;
      pq_buf_append(rows, one.data, keep);
      pq_buf_append(rows, bin ? "}\n" : "\n", bin ? 2 : 1);
    }
    if (!rc) pq_row_reader_free(r);
  }
  CHECK(rc == PQ_OK, "rows: %s", err.msg);
  pq_buf_free(&one);
  pq_file_free(f);
  return rc;
}

/* Writes nrows rows of the first ncols columns into tw (its output set):
** a row at a time, the rows from 100 to 109 at once. */
static int write_rows(pq_table_writer *tw, int ncols, int nrows) {
  int rc = pq_table_writer_columns(tw, ncols, names, decls);
  pq_dvalue v[NCOLS], ten[10 * NCOLS];
  char buf[NCOLS][48], tbuf[10][NCOLS][48];
  for (int r = 0; r < nrows && !rc; r++) {
    if (r >= 100 && r < 110) {
      make_row(r, v, tbuf[r - 100]);
      memcpy(ten + (r - 100) * ncols, v, (size_t)ncols * sizeof *v);
      if (r == 109 || r == nrows - 1)
        rc = pq_table_writer_rows_put(tw, ten, (size_t)(r - 99));
      continue;
    }
    make_row(r, v, buf);
    rc = pq_table_writer_row(tw, v);
  }
  if (!rc) rc = pq_table_writer_finish(tw);
  return rc;
}

/* ---- A sink of the program's -------------------------------------------------- */

/* What the writer did with it: the bytes, in order, and its calls. */
typedef struct rec_sink {
  pq_buf bytes;
  int writes, commits, aborts;
  size_t most;          /* the largest write */
  int fail_write;       /* this write (from 1) refuses; 0: none */
  int fail_commit;      /* the commit refuses */
} rec_sink;

static int rec_write(void *ctx, const uint8_t *p, size_t n, pq_buf *msg) {
  rec_sink *r = ctx;
  r->writes++;
  if (n > r->most) r->most = n;
  if (r->writes == r->fail_write) {
    pq_buf_append(msg, "the disk is on fire", 19);
    return PQ_IO;
  }
  pq_buf_append(&r->bytes, p, n);
  return r->bytes.oom ? PQ_NOMEM : PQ_OK;
}
static int rec_commit(void *ctx, pq_buf *msg) {
  rec_sink *r = ctx;
  r->commits++;
  if (r->fail_commit) {
    pq_buf_append(msg, "no room at the end", 18);
    return PQ_IO;
  }
  return PQ_OK;
}
static void rec_abort(void *ctx) {
  rec_sink *r = ctx;
  r->aborts++;
}

/* The flat columns (no tags) into memory (sink NULL) or into a sink, with
** the worker or without. */
static void test_output(int threads, pq_buf *file, const pq_table_sink *sink) {
  char opts[512];
  snprintf(opts, sizeof opts, flat_fmt, 1000, threads);
  pq_table_writer *tw = pq_table_writer_new(NULL);
  int rc = pq_table_writer_options(tw, opts, strlen(opts));
  if (!rc) rc = sink ? pq_table_writer_to_sink(tw, sink)
                     : pq_table_writer_to_memory(tw);
  /* id, name, score, day, bin: "names" has tags fifth, so bin takes its
  ** place by name below */
  const char *n5[5] = {"id", "name", "score", "day", "bin"};
  const char *d5[5] = {NULL, "VARCHAR(20)", NULL, NULL, "BLOB"};
  if (!rc) rc = pq_table_writer_columns(tw, 5, n5, d5);
  pq_dvalue v[NCOLS];
  char buf[NCOLS][48];
  for (int r = 0; r < 2500 && !rc; r++) {
    make_row(r, v, buf);
    v[4] = v[5];
    rc = pq_table_writer_row(tw, v);
  }
  if (!rc) rc = pq_table_writer_finish(tw);
  CHECK(rc == PQ_OK, "memory, threads %d: %s", threads,
        pq_table_writer_message(tw));
  CHECK(pq_table_writer_rows(tw) == 2500, "memory: %lld rows",
        (long long)pq_table_writer_rows(tw));
  if (sink) {
    rec_sink *r = sink->ctx;
    pq_buf_append(file, r->bytes.data, r->bytes.len);
  } else {
    pq_table_writer_take(tw, file);
  }
  pq_table_writer_free(tw);
  pq_buf got, want;
  pq_buf_init(&got);
  pq_buf_init(&want);
  int groups = 0;
  if (!rc && read_rows(file->data, file->len, &got, &groups) == PQ_OK) {
    for (int r = 0; r < 2500; r++) want_row(r, 0, &want);
    CHECK(got.len == want.len && memcmp(got.data, want.data, got.len) == 0,
          "memory, threads %d: the rows differ", threads);
    CHECK(groups == 3, "memory: %d row groups", groups);
  }
  pq_buf_free(&got);
  pq_buf_free(&want);
}

static void test_memory(int threads, pq_buf *file) {
  test_output(threads, file, NULL);
}

/* The same rows into a sink: the same bytes, streamed (each row group
** when it closes), committed once, never aborted. */
static void test_sink(int threads, const pq_buf *want) {
  rec_sink r = {0};
  pq_buf_init(&r.bytes);
  pq_table_sink sink = {&r, rec_write, rec_commit, rec_abort};
  pq_buf got;
  pq_buf_init(&got);
  test_output(threads, &got, &sink);
  CHECK(got.len == want->len && memcmp(got.data, want->data, got.len) == 0,
        "sink, threads %d: its bytes are not the memory output's", threads);
  CHECK(r.commits == 1 && r.aborts == 0, "sink: %d commits, %d aborts",
        r.commits, r.aborts);
  CHECK(r.writes >= 3 && r.most < got.len / 2,
        "sink: %d writes, the largest %zu bytes of %zu", r.writes, r.most,
        got.len);
  pq_buf_free(&got);
  pq_buf_free(&r.bytes);
}

/* A sink's refusals: its message and code the writer's, and it is
** aborted; a writer freed unfinished aborts it too; a folder's options
** take no sink. */
static void test_sink_failures(void) {
  for (int k = 0; k < 3; k++) {
    rec_sink r = {0};
    pq_buf_init(&r.bytes);
    if (k == 0) r.fail_write = 2;
    if (k == 1) r.fail_commit = 1;
    pq_table_sink sink = {&r, rec_write, rec_commit, rec_abort};
    const char opts[] = "{\"row_group_size\":50}";
    pq_table_writer *tw = pq_table_writer_new(NULL);
    int rc = pq_table_writer_options(tw, opts, strlen(opts));
    if (!rc) rc = pq_table_writer_to_sink(tw, &sink);
    if (!rc && k < 2) rc = write_rows(tw, 2, 200);
    if (!rc && k == 2) { /* given up after a few rows */
      const char *n1[1] = {"id"};
      rc = pq_table_writer_columns(tw, 1, n1, NULL);
      pq_dvalue v = {PQ_DV_INT, 7, 0, NULL, 0};
      for (int i = 0; i < 2000 && !rc; i++) rc = pq_table_writer_row(tw, &v);
    }
    const char *want = k == 0 ? "the disk is on fire" : k == 1 ? "no room at the end" : "";
    CHECK(rc == (k < 2 ? PQ_IO : PQ_OK) &&
              strcmp(pq_table_writer_message(tw), want) == 0,
          "sink refusal %d: %d '%s'", k, rc, pq_table_writer_message(tw));
    CHECK(r.aborts == 0, "sink refusal %d: aborted before the free", k);
    pq_table_writer_free(tw);
    CHECK(r.aborts == 1 && r.commits == (k == 1),
          "sink refusal %d: %d aborts, %d commits", k, r.aborts, r.commits);
    pq_buf_free(&r.bytes);
  }
  rec_sink r = {0};
  pq_table_sink sink = {&r, rec_write, rec_commit, rec_abort};
  pq_table_writer *tw = pq_table_writer_new(NULL);
  const char opts[] = "{\"partition_by\":[\"k\"]}";
  int rc = pq_table_writer_options(tw, opts, strlen(opts));
  if (!rc) rc = pq_table_writer_to_sink(tw, &sink);
  CHECK(rc == PQ_MISUSE && strstr(pq_table_writer_message(tw), "a sink takes one file"),
        "sink of a folder: %d %s", rc, pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  CHECK(r.aborts == 0 && r.writes == 0, "sink of a folder: used");
}

/* Every column, the nested one too, into a file. */
static void test_file(const char *dir) {
  char path[512], opts[512];
  snprintf(path, sizeof path, "%s/t.parquet", dir);
  snprintf(opts, sizeof opts, opts_fmt, 300, 2);
  pq_table_writer *tw = pq_table_writer_new(NULL);
  int rc = pq_table_writer_options(tw, opts, strlen(opts));
  if (!rc) rc = pq_table_writer_to_path(tw, path);
  if (!rc) rc = write_rows(tw, NCOLS, 1000);
  CHECK(rc == PQ_OK, "file: %s", pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  size_t n = 0;
  uint8_t *p = slurp(path, &n);
  CHECK(p != NULL, "file: %s not written", path);
  pq_buf got, want;
  pq_buf_init(&got);
  pq_buf_init(&want);
  int groups = 0;
  if (p && read_rows(p, n, &got, &groups) == PQ_OK) {
    for (int r = 0; r < 1000; r++) want_row(r, 1, &want);
    pq_buf_append(&got, "", 1);
    pq_buf_append(&want, "", 1);
    CHECK(strcmp((char *)got.data, (char *)want.data) == 0,
          "file: the rows differ:\n%.300s\nwant\n%.300s", (char *)got.data,
          (char *)want.data);
    CHECK(groups == 4, "file: %d row groups", groups);
  }
  free(p);
  unlink(path);
  pq_buf_free(&got);
  pq_buf_free(&want);
}

/* A folder partitioned by k (the keys given after each row's values). */
static void test_folder(const char *dir) {
  char root[512];
  snprintf(root, sizeof root, "%s/part", dir);
  const char opts[] = "{\"partition_by\":[\"k\"],\"durable\":false}";
  pq_table_writer *tw = pq_table_writer_new(NULL);
  int rc = pq_table_writer_options(tw, opts, strlen(opts));
  const char *const *part = NULL;
  int wc = 1;
  CHECK(pq_table_writer_folder(tw) == 1, "folder: not a folder");
  CHECK(pq_table_writer_partitions(tw, &part, &wc) == 1 && part &&
            strcmp(part[0], "k") == 0 && wc == 0,
        "folder: partitions");
  if (!rc) rc = pq_table_writer_to_path(tw, root);
  const char *n1[1] = {"id"};
  if (!rc) rc = pq_table_writer_columns(tw, 1, n1, NULL);
  /* the rows sorted by their keys, as the writer wants them */
  for (int k = 0; k < 3 && !rc; k++)
    for (int r = 0; r < 10 + k && !rc; r++) {
      char key[8];
      snprintf(key, sizeof key, "%d", k);
      pq_dvalue v[2] = {{PQ_DV_INT, k * 100 + r, 0, NULL, 0},
                        {PQ_DV_TEXT, 0, 0, key, strlen(key)}};
      rc = pq_table_writer_row(tw, v);
    }
  if (!rc) rc = pq_table_writer_finish(tw);
  CHECK(rc == PQ_OK, "folder: %s", pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  for (int k = 0; k < 3; k++) {
    char path[600];
    snprintf(path, sizeof path, "%s/k=%d/data_0.parquet", root, k);
    size_t n = 0;
    uint8_t *p = slurp(path, &n);
    CHECK(p != NULL, "folder: %s not written", path);
    pq_buf got, want;
    pq_buf_init(&got);
    pq_buf_init(&want);
    int groups = 0;
    if (p && read_rows(p, n, &got, &groups) == PQ_OK) {
      for (int r = 0; r < 10 + k; r++) {
        char s[48];
        snprintf(s, sizeof s, "{\"id\":%d}\n", k * 100 + r);
        pq_buf_append(&want, s, strlen(s));
      }
      CHECK(got.len == want.len && memcmp(got.data, want.data, got.len) == 0,
            "folder: k=%d: the rows differ: %.*s", k, (int)got.len,
            (const char *)got.data);
    }
    free(p);
    unlink(path);
    snprintf(path, sizeof path, "%s/k=%d", root, k);
    rmdir(path);
    pq_buf_free(&got);
    pq_buf_free(&want);
  }
  rmdir(root);
}

/* What a failure says. */
static void test_failures(void) {
  /* an option */
  pq_table_writer *tw = pq_table_writer_new(NULL);
  const char bad[] = "{\"encoding\":\"NOPE\"}";
  int rc = pq_table_writer_options(tw, bad, strlen(bad));
  CHECK(rc == PQ_MISUSE &&
            strcmp(pq_table_writer_message(tw),
                   "options: unknown encoding 'NOPE'") == 0,
        "option: %d %s", rc, pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  /* the columns before the output */
  tw = pq_table_writer_new(NULL);
  rc = write_rows(tw, 2, 3);
  CHECK(rc == PQ_MISUSE && strstr(pq_table_writer_message(tw), "no output"),
        "no output: %d %s", rc, pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  /* a column the options name that is not there, once the rows are typed */
  tw = pq_table_writer_new(NULL);
  const char cols[] = "{\"columns\":{\"zz\":{\"type\":\"INT32\"}}}";
  rc = pq_table_writer_options(tw, cols, strlen(cols));
  if (!rc) rc = pq_table_writer_to_memory(tw);
  if (!rc) rc = write_rows(tw, 2, 3);
  CHECK(rc == PQ_MISUSE &&
            strcmp(pq_table_writer_message(tw),
                   "options: columns: the query has no column \"zz\"") == 0,
        "columns: %d %s", rc, pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  /* a value of another kind than the column's first values */
  tw = pq_table_writer_new(NULL);
  rc = pq_table_writer_to_memory(tw);
  const char *n1[1] = {"id"};
  if (!rc) rc = pq_table_writer_columns(tw, 1, n1, NULL);
  for (int r = 0; r < 1100 && !rc; r++) {
    pq_dvalue v = {PQ_DV_INT, r, 0, NULL, 0};
    if (r == 1050) v = (pq_dvalue){PQ_DV_TEXT, 0, 0, "it's", 4};
    rc = pq_table_writer_row(tw, &v);
  }
  CHECK(rc == PQ_MISUSE &&
            strcmp(pq_table_writer_message(tw),
                   "column 'id', row 1051: TEXT 'it''s' in an INT64 column "
                   "(a \"type\" in the options converts)") == 0,
        "value: %d %s", rc, pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  /* the memory output's limit */
  pq_table_host host = {0};
  host.limit = 600;
  host.limit_name = " (the test's)";
  tw = pq_table_writer_new(&host);
  rc = pq_table_writer_to_memory(tw);
  if (!rc) rc = write_rows(tw, 2, 500);
  CHECK(rc == PQ_TOOBIG &&
            strcmp(pq_table_writer_message(tw),
                   "the file would be more than 600 bytes, the limit "
                   "(the test's)") == 0,
        "limit: %d %s", rc, pq_table_writer_message(tw));
  pq_table_writer_free(tw);
}

/* The host refuses the file. */
static int refuse(void *ctx, pq_buf *msg) {
  (void)ctx;
  pq_buf_append(msg, "no files today", 14);
  return PQ_MISUSE;
}
static void test_refusal(const char *dir) {
  char path[512];
  snprintf(path, sizeof path, "%s/no.parquet", dir);
  pq_table_host host = {0};
  host.may_write = refuse;
  pq_table_writer *tw = pq_table_writer_new(&host);
  const char opts[] = "{\"file_size_bytes\":100000}";
  int rc = pq_table_writer_options(tw, opts, strlen(opts));
  if (!rc) rc = pq_table_writer_to_path(tw, path);
  if (!rc) rc = write_rows(tw, 2, 10);
  CHECK(rc == PQ_MISUSE &&
            strcmp(pq_table_writer_message(tw), "no files today") == 0,
        "refusal: %d %s", rc, pq_table_writer_message(tw));
  pq_table_writer_free(tw);
  struct stat st;
  CHECK(lstat(path, &st) != 0, "refusal: %s made", path);
}

/* Every allocation of a small write failing in turn: PQ_NOMEM, and
** nothing left allocated. */
static void test_nomem(int to_sink) {
  int done = 0, faults = 0;
  const char opts[] = "{\"threads\":1,\"columns\":{\"tags\":{\"type\":"
                      "\"LIST<INT64>\"},\"day\":{\"type\":\"DATE\"}},"
                      "\"bloom_filter\":{\"ndv\":50,\"fpp\":0.1},"
                      "\"auto\":{\"allow\":[\"ALP\"]},"
                      "\"metadata\":{\"a\":\"b\"}}";
  for (long k = 0; k < 20000 && !done; k++) {
    live = 0;
    fail_at = k;
    /* (the sink's bytes are the core allocator's: they may fail too) */
    rec_sink r = {0};
    pq_buf_init(&r.bytes);
    pq_table_sink sink = {&r, rec_write, rec_commit, rec_abort};
    pq_table_writer *tw = pq_table_writer_new(NULL);
    int rc = tw ? pq_table_writer_options(tw, opts, strlen(opts)) : PQ_NOMEM;
    if (!rc) rc = to_sink ? pq_table_writer_to_sink(tw, &sink)
                          : pq_table_writer_to_memory(tw);
    int set = !rc && to_sink;
    if (!rc) rc = write_rows(tw, NCOLS, 40);
    pq_buf out;
    pq_buf_init(&out);
    if (!rc && !to_sink) pq_table_writer_take(tw, &out);
    pq_table_writer_free(tw);
    pq_buf_free(&out);
    fail_at = -1;
    if (set)
      CHECK(r.commits + r.aborts == 1 && (rc == PQ_OK) == (r.aborts == 0),
            "nomem, sink: allocation %ld: rc %d, %d commits, %d aborts", k,
            rc, r.commits, r.aborts);
    pq_buf_free(&r.bytes);
    if (rc == PQ_OK) done = 1;
    else if (rc == PQ_NOMEM) faults++;
    else CHECK(0, "nomem: allocation %ld: %d %s", k, rc, "not PQ_NOMEM");
    CHECK(live == 0, "nomem: allocation %ld failing leaves %ld blocks", k,
          (long)live);
  }
  CHECK(done && faults > 50, "nomem: %d faults, done %d", faults, done);
}

int main(void) {
  /* (before the core allocates anything) */
  CHECK(pq_set_allocator(&counted) == PQ_OK, "allocator");
  char dir[] = "/tmp/unit_table_writer.XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  pq_buf a, b;
  pq_buf_init(&a);
  pq_buf_init(&b);
  test_memory(1, &a);
  test_memory(2, &b);
  CHECK(a.len == b.len && a.len && memcmp(a.data, b.data, a.len) == 0,
        "the worker's file differs from the calling thread's");
  test_sink(1, &a);
  test_sink(2, &a);
  pq_buf_free(&a);
  pq_buf_free(&b);
  test_file(dir);
  test_folder(dir);
  test_failures();
  test_refusal(dir);
  test_sink_failures();
  test_nomem(0);
  test_nomem(1);
  rmdir(dir);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
