/*
** oom.c -- the out-of-memory sweep: every statement of a list is run with
** its Nth allocation failing, for N = 1, 2, ... until it runs without
** reaching N, as SQLite's own tests do (test/malloc*.test).
**
**   oom EXTENSION WORKDIR [FILTER]
**
** The allocator is SQLite's (SQLITE_CONFIG_MALLOC, wrapping the default):
** the extension hands the core SQLite's allocator, so the core's buffers
** and the codecs' working memory fail there too.  One allocation fails,
** the Nth after the statement starts; the ones after succeed.  For each N:
**
**   - the statement gives SQLITE_NOMEM, or succeeds with exactly what it
**     gives without a failure (its rows, and the bytes of a file it
**     writes);
**   - after SQLITE_NOMEM the same connection runs it again, right;
**   - once the connection is closed, SQLite's memory in use is what it was
**     before it was opened (nothing the core allocated is left), and the
**     work folder holds no file the statement left (a temporary file of
**     parquet_write, or its output after a failure).
**
** A statement marked `worker` (parquet_write with its worker thread busy)
** is large: its allocations are counted only from the first one made off
** the calling thread, the worker's, on; those before are the calling
** thread's (the options, the rows read ahead), as in the small statements.
**
** Build it with -fsanitize=address (make test-oom) so that what the
** failures free twice, or read after freeing, is caught too.  Each
** statement's line says how many allocations it makes and how long its
** sweep took; the last says "N passed, N failed".  FILTER runs only the
** statements whose name holds it.
*/
#define _XOPEN_SOURCE 700 /* clock_gettime, opendir, dlopen, nftw */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <sqlite3.h>

/* SQLite calls these under its memory mutex (SQLITE_CONFIG_MEMSTATUS is
** on): the counts need no lock of their own, whatever thread allocates. */
static sqlite3_mem_methods base;
static long fail_at;   /* the allocation to fail, counted from 1; 0: none */
static long counted;   /* allocations since armed */
static int failed;     /* the one failure happened */
static int off_main;   /* count from the first allocation off main_thread */
static pthread_t main_thread;

/* Whether this allocation is the one to fail. */
static int fails_now(void) {
  if (!fail_at) return 0;
  if (off_main) {
    if (pthread_equal(pthread_self(), main_thread)) return 0;
    off_main = 0; /* from here on, every thread's */
  }
  if (++counted != fail_at) return 0;
  failed = 1;
  return 1;
}

static void *oom_malloc(int n) {
  return fails_now() ? NULL : base.xMalloc(n);
}
static void *oom_realloc(void *p, int n) {
  return fails_now() ? NULL : base.xRealloc(p, n);
}
static void oom_free(void *p) { base.xFree(p); }
static int oom_size(void *p) { return base.xSize(p); }
static int oom_roundup(int n) { return base.xRoundup(n); }
static int oom_init(void *a) { return base.xInit(a); }
static void oom_shutdown(void *a) { base.xShutdown(a); }

static void arm(long n, int worker) {
  fail_at = n;
  counted = 0;
  failed = 0;
  off_main = n && worker;
}

static int passes, fails;
static const char *ext, *dir;

/* A growable string of results. */
typedef struct text {
  char *s;
  size_t n, cap;
} text;

static void add(text *t, const char *p, size_t n) {
  if (t->n + n + 1 > t->cap) {
    t->cap = (t->n + n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    if (!t->s) abort();
  }
  memcpy(t->s + t->n, p, n);
  t->n += n;
  t->s[t->n] = 0;
}
static void adds(text *t, const char *p) { add(t, p, strlen(p)); }

static int run_one(sqlite3_stmt *st, text *out);

/* The rows of each statement of sql in turn, as text, into out (cleared
** first).  Returns the result code of the first call that failed, or
** SQLITE_OK. */
static int run(sqlite3 *db, const char *sql, text *out) {
  out->n = 0;
  adds(out, "");
  const char *tail = sql;
  while (tail && *tail) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc) return rc;
    if (!st) continue; /* (only spaces were left) */
    rc = run_one(st, out);
    if (rc) return rc;
  }
  return SQLITE_OK;
}

static int run_one(sqlite3_stmt *st, text *out) {
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(st); i++) {
      int type = sqlite3_column_type(st, i);
      char tag[4] = {(char)('0' + type), ':', 0};
      adds(out, tag);
      if (type == SQLITE_BLOB) {
        const unsigned char *b = sqlite3_column_blob(st, i);
        int n = sqlite3_column_bytes(st, i);
        if (n && !b) { /* the copy failed */
          rc = SQLITE_NOMEM;
          break;
        }
        for (int k = 0; k < n; k++) {
          char h[3];
          snprintf(h, sizeof h, "%02x", b[k]);
          add(out, h, 2);
        }
      } else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        /* as numbers: their text would be made, an allocation of the
        ** reader's (after a file is written, it would fail with the file
        ** there) */
        char num[40];
        if (type == SQLITE_INTEGER)
          snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(st, i));
        else
          snprintf(num, sizeof num, "%.17g", sqlite3_column_double(st, i));
        adds(out, num);
      } else if (type != SQLITE_NULL) {
        const unsigned char *s = sqlite3_column_text(st, i);
        if (!s) {
          rc = SQLITE_NOMEM;
          break;
        }
        add(out, (const char *)s, (size_t)sqlite3_column_bytes(st, i));
      }
      adds(out, "|");
    }
    if (rc == SQLITE_NOMEM) break;
    adds(out, "\n");
  }
  int frc = sqlite3_finalize(st);
  if (rc == SQLITE_DONE) rc = frc;
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The bytes of the file at path as hex, or "none". */
static void add_file(text *t, const char *path) {
  FILE *f = fopen(path, "rb");
  adds(t, "\nfile:");
  if (!f) {
    adds(t, "none");
    return;
  }
  int c;
  while ((c = fgetc(f)) != EOF) {
    char h[3];
    snprintf(h, sizeof h, "%02x", c);
    add(t, h, 2);
  }
  fclose(f);
}

/* The names in the work folder but the inputs, sorted by the reader. */
static void add_listing(text *t) {
  DIR *d = opendir(dir);
  adds(t, "\nfiles:");
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strncmp(e->d_name, "in", 2) || e->d_name[0] == '.') continue;
    adds(t, e->d_name);
    adds(t, ",");
  }
  closedir(d);
}

static char *out_path(void) {
  static char p[4096];
  snprintf(p, sizeof p, "%s/out.parquet", dir);
  return p;
}

/* The folder a partitioned write makes (write_partition): each file's
** name and bytes, in the order nftw meets them. */
static text *walked;
static int walk_one(const char *p, const struct stat *st, int flag,
                    struct FTW *f) {
  (void)st;
  (void)f;
  if (flag != FTW_F) return 0;
  adds(walked, "\npart:");
  adds(walked, p + strlen(dir));
  add_file(walked, p);
  return 0;
}
static void add_part(text *t) {
  char p[4096];
  snprintf(p, sizeof p, "%s/part", dir);
  walked = t;
  nftw(p, walk_one, 16, FTW_PHYS);
}
static int remove_one(const char *p, const struct stat *st, int flag,
                      struct FTW *f) {
  (void)st;
  (void)flag;
  (void)f;
  remove(p);
  return 0;
}
/* The outputs of a statement gone: out.parquet, the folder. */
static void clear_out(void) {
  char p[4096];
  snprintf(p, sizeof p, "%s/part", dir);
  remove(out_path());
  nftw(p, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The extension, loaded once and registered in every connection opened
** after (sqlite3_auto_extension): loading it in each connection would map
** and unmap the library for each allocation failed, most of the sweep's
** time. */
static void load_once(void) {
  void *h = dlopen(ext, RTLD_NOW | RTLD_LOCAL);
  void *entry = h ? dlsym(h, "sqlite3_parquet_init") : NULL;
  if (!entry) {
    fprintf(stderr, "cannot load %s: %s\n", ext, dlerror());
    exit(2);
  }
  sqlite3_auto_extension((void (*)(void))entry);
}

/* What each statement runs in: the extension, a table of values, a
** parquet table over in.parquet (written once, at the start). */
static sqlite3 *open_db(void) {
  sqlite3 *db;
  char *err = NULL;
  if (sqlite3_open(":memory:", &db)) {
    fprintf(stderr, "cannot open a connection: %s\n", sqlite3_errmsg(db));
    exit(2);
  }
  char *sql = sqlite3_mprintf(
      "CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n INTEGER);"
      "WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g "
      "WHERE x < 300)"
      " INSERT INTO t SELECT x * 37 %% 1000, x / 7.0, 'str_' || (x %% 40),"
      " CASE WHEN x %% 5 THEN CAST(char(0, 255, x %% 200) AS BLOB) END,"
      " CASE WHEN x %% 3 THEN x END"
      " FROM g;"
      "CREATE VIRTUAL TABLE temp.pt USING parquet('%q/in.parquet');",
      dir);
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  sqlite3_free(sql);
  if (rc) {
    fprintf(stderr, "setup: %s\n", err ? err : "?");
    exit(2);
  }
  return db;
}

/* The input files, written with faults off. */
static void make_inputs(void) {
  char *sql = sqlite3_mprintf(
      "CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n INTEGER);"
      "WITH RECURSIVE g(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM g "
      "WHERE x < 300)"
      " INSERT INTO t SELECT x * 37 %% 1000, x / 7.0, 'str_' || (x %% 40),"
      " CASE WHEN x %% 5 THEN CAST(char(0, 255, x %% 200) AS BLOB) END,"
      " CASE WHEN x %% 3 THEN x END"
      " FROM g;"
      "SELECT parquet_write('%q/in.parquet', 'SELECT * FROM t', "
      "'{\"row_group_size\":100,\"page_size\":512,\"codec\":\"SNAPPY\","
      "\"bloom_filter\":true,\"metadata\":{\"k\":\"v\"}}');"
      "SELECT parquet_write('%q/in_nested.parquet', 'SELECT json_array(i, n) "
      "AS l, json_object(''a'', i, ''b'', s) AS st FROM t', "
      "'{\"codec\":\"GZIP\",\"columns\":{\"l\":{\"type\":\"LIST<INT64>\"},"
      "\"st\":{\"type\":\"STRUCT<a INT64, b STRING>\"}}}');"
      "SELECT parquet_write('%q/in_types.parquet', 'SELECT date(''2020-01-01'', "
      "''+'' || i || '' days'') AS d, datetime(1600000000 + i * 3600, "
      "''unixepoch'') AS ts, i || ''.'' || n AS big, json_array(i, n) AS l "
      "FROM t', '{\"row_group_size\":100,\"columns\":{\"d\":{\"type\":"
      "\"DATE\"},\"ts\":{\"type\":\"TIMESTAMP(ms, utc)\"},\"big\":{\"type\":"
      "\"DECIMAL(20, 4)\"},\"l\":{\"type\":\"LIST<INT32>\"}}}');"
      "SELECT parquet_write('%q/in_h/k=1/a.parquet', 'SELECT i AS k, s FROM t');",
      dir, dir, dir, dir);
  /* a hive folder whose key is a column of its file too */
  char *h = sqlite3_mprintf("%s/in_h", dir), *hk = sqlite3_mprintf("%s/in_h/k=1", dir);
  if (!h || !hk || (mkdir(h, 0777) && errno != EEXIST) ||
      (mkdir(hk, 0777) && errno != EEXIST)) {
    fprintf(stderr, "inputs: cannot make %s\n", hk ? hk : "?");
    exit(2);
  }
  sqlite3_free(h);
  sqlite3_free(hk);
  sqlite3 *db;
  sqlite3_open(":memory:", &db);
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, 0, 0, &err);
  if (rc) {
    fprintf(stderr, "inputs: %s\n", err ? err : "?");
    exit(2);
  }
  sqlite3_free(sql);
  sqlite3_close(db);
}

typedef struct stmt {
  const char *name;
  const char *sql;  /* %s: the work folder */
  int writes;       /* it writes out.parquet: its bytes are compared */
  const char *undo; /* run after it, faults off (a table it created) */
  int worker;       /* count from the first allocation off this thread */
} stmt;

static const stmt stmts[] = {
    {"encode_delta", "SELECT hex(parquet_encode(i, 'DELTA_BINARY_PACKED')) FROM t", 0, 0},
    {"encode_dict", "SELECT hex(parquet_encode(s, 'RLE_DICTIONARY', 'BYTE_ARRAY', '{\"part\":\"dictionary\"}')) FROM t", 0, 0},
    {"encode_dba", "SELECT hex(parquet_encode(s, 'DELTA_BYTE_ARRAY')) FROM t", 0, 0},
    {"encode_alp", "SELECT hex(parquet_encode(r, 'ALP', 'DOUBLE')) FROM t", 0, 0},
    /* every encoding family, of each type it takes */
    {"encode_plain", "SELECT hex(parquet_encode(i, 'PLAIN', 'INT32')), hex(parquet_encode(r, 'PLAIN', 'FLOAT')), hex(parquet_encode(s, 'PLAIN')), hex(parquet_encode(substr(b, 1, 3), 'PLAIN', 'FIXED_LEN_BYTE_ARRAY(3)')), hex(parquet_encode(i %% 2, 'PLAIN', 'BOOLEAN')) FROM t", 0, 0},
    {"encode_rle", "SELECT hex(parquet_encode(i %% 2, 'RLE', 'BOOLEAN')), hex(parquet_encode(i %% 8, 'RLE', 'INT32', '{\"bit_width\":3}')), hex(parquet_encode(i, 'BIT_PACKED', 'INT32', '{\"bit_width\":10}')), hex(parquet_encode(i, 'GROUP_VAR_INT', 'INT32')) FROM t", 0, 0},
    {"encode_split", "SELECT hex(parquet_encode(r, 'BYTE_STREAM_SPLIT', 'FLOAT')), hex(parquet_encode(i, 'BYTE_STREAM_SPLIT', 'INT32')), hex(parquet_encode(substr(b, 1, 3), 'BYTE_STREAM_SPLIT', 'FIXED_LEN_BYTE_ARRAY(3)')), hex(parquet_encode(r, 'ALP', 'FLOAT')) FROM t", 0, 0},
    {"encode_deltas", "SELECT hex(parquet_encode(s, 'DELTA_LENGTH_BYTE_ARRAY')), hex(parquet_encode(b, 'DELTA_BYTE_ARRAY')), hex(parquet_encode(i, 'DELTA_BINARY_PACKED', 'INT32', '{\"block_size\":128,\"miniblocks\":4}')) FROM t", 0, 0},
    {"encode_dicts", "SELECT hex(parquet_encode(s, 'PLAIN_DICTIONARY')), hex(parquet_encode(i, 'RLE_DICTIONARY', 'INT64', '{\"part\":\"dictionary\"}')), hex(parquet_encode(r, 'RLE_DICTIONARY', 'DOUBLE')), hex(parquet_encode(substr(b, 1, 3), 'RLE_DICTIONARY', 'FIXED_LEN_BYTE_ARRAY(3)', '{\"part\":\"dictionary\"}')) FROM t", 0, 0},
    {"decode", "SELECT parquet_decode(parquet_encode(r, 'BYTE_STREAM_SPLIT', 'DOUBLE'), 'BYTE_STREAM_SPLIT', 'DOUBLE') FROM t", 0, 0},
    {"decode_dict", "SELECT parquet_decode(parquet_encode(s, 'RLE_DICTIONARY'), 'RLE_DICTIONARY', 'BYTE_ARRAY', NULL, (SELECT parquet_encode(s, 'RLE_DICTIONARY', 'BYTE_ARRAY', '{\"part\":\"dictionary\"}') FROM t)) FROM t", 0, 0},
    {"values", "SELECT idx, value FROM parquet_values((SELECT parquet_encode(s, 'DELTA_LENGTH_BYTE_ARRAY') FROM t), 'DELTA_LENGTH_BYTE_ARRAY')", 0, 0},
    {"explain", "SELECT offset, hex, bits, path, value, note FROM parquet_explain(X'0801080E0302C03F', 'DELTA_BINARY_PACKED')", 0, 0},
    {"explain_file", "SELECT offset, path, value, note FROM parquet_explain((SELECT parquet_file(i, 'RLE_DICTIONARY', 'INT64', '{\"page_values\":64,\"codec\":\"ZSTD\"}') FROM t), 'FILE')", 0, 0},
    /* BROTLI in statements of its own: its encoder takes 16 MB of memory
    ** a call, which ASan maps afresh each time, 40 ms a call, and each
    ** run of a statement pays that once for every compression in it */
    {"codecs", "SELECT hex(parquet_compress(group_concat(s), c)), length(parquet_decompress(parquet_compress(group_concat(s), c), c)) FROM t, (SELECT 'GZIP' AS c UNION ALL SELECT 'ZSTD' UNION ALL SELECT 'LZ4' UNION ALL SELECT 'LZ4_RAW' UNION ALL SELECT 'SNAPPY') GROUP BY c", 0, 0},
    {"codec_brotli", "SELECT hex(parquet_compress(group_concat(s), 'BROTLI')), length(parquet_decompress(parquet_compress(group_concat(s), 'BROTLI'), 'BROTLI')) FROM t", 0, 0},
    {"file", "SELECT hex(parquet_file(s, 'DELTA_BYTE_ARRAY', 'BYTE_ARRAY', '{\"page_values\":64,\"codec\":\"ZSTD\"}')) FROM t", 0, 0},
    {"codec_levels", "SELECT c, hex(parquet_compress(group_concat(s), c, l)) FROM t, (SELECT 'GZIP' AS c, 9 AS l UNION ALL SELECT 'ZSTD', 19 UNION ALL SELECT 'BROTLI', 11) GROUP BY c", 0, 0},
    {"stream_codec", "SELECT parquet_decode(parquet_encode(i, 'DELTA_BINARY_PACKED', 'INT64', '{\"codec\":\"ZSTD\",\"level\":5}'), 'DELTA_BINARY_PACKED', 'INT64', '{\"codec\":\"ZSTD\"}') FROM t", 0, 0},
    {"values_codec", "SELECT idx, value FROM parquet_values((SELECT parquet_encode(s, 'PLAIN', NULL, '{\"codec\":\"GZIP\"}') FROM t), 'PLAIN', 'BYTE_ARRAY', '{\"codec\":\"GZIP\"}')", 0, 0},
    {"explain_page", "SELECT e.offset, e.hex, e.path, e.value, e.note FROM (SELECT parquet_file(n, 'PLAIN', 'INT64', '{\"codec\":\"ZSTD\",\"page_values\":64}') AS f FROM t) x, parquet_pages(x.f) p, parquet_explain(substr(x.f, p.offset + 1, p.header_size + p.compressed_size), 'PAGE', p.type, json_object('max_def', p.max_def)) e", 0, 0},
    /* VARIANT: an object whose values are out of the order of its fields
    ** (the walk sorts them), whole, and its value with the metadata apart;
    ** a page of such values */
    {"explain_variant", "SELECT offset, path, value, note FROM parquet_explain(X'11020001026162' || X'020200010300050968690C01', 'VARIANT') UNION ALL SELECT offset, path, value, note FROM parquet_explain(X'020200010300050968690C01', 'VARIANT', NULL, NULL, X'11020001026162')", 0, 0},
    {"explain_variant_page", "SELECT e.offset, e.path, e.value, e.note FROM (SELECT parquet_file(column1, 'PLAIN', 'BYTE_ARRAY') AS f FROM (VALUES (X'020200010300050968690C01'), (X'0C2A'))) x, parquet_pages(x.f) p, parquet_explain(substr(x.f, p.offset + 1, p.header_size + p.compressed_size), 'PAGE', p.type, json_object('max_def', p.max_def, 'variant', 'value')) e", 0, 0},
    {"codecs_table", "SELECT name, codec, available, min_level, max_level, default_level, library, version FROM parquet_codecs", 0, 0},
    /* every codec's pages (BROTLI's apart, as for codecs above) */
    {"file_codecs", "SELECT c, hex(parquet_file(s, 'PLAIN', 'BYTE_ARRAY', json_object('codec', c, 'page_values', 100))) FROM t, (SELECT 'UNCOMPRESSED' AS c UNION ALL SELECT 'SNAPPY' UNION ALL SELECT 'GZIP' UNION ALL SELECT 'LZ4' UNION ALL SELECT 'ZSTD' UNION ALL SELECT 'LZ4_RAW') GROUP BY c", 0, 0},
    {"file_brotli", "SELECT hex(parquet_file(s, 'PLAIN', 'BYTE_ARRAY', '{\"codec\":\"BROTLI\",\"page_values\":100}')) FROM t", 0, 0},
    {"file_nulls", "SELECT hex(parquet_file(n, 'PLAIN', 'INT64', '{\"row_group_size\":50,\"page_version\":2,\"crc\":true}')) FROM t", 0, 0},
    {"table", "SELECT count(*), sum(i), group_concat(s), sum(length(b)) FROM pt WHERE i > 10", 0, 0},
    {"table_point", "SELECT i, r, s, hex(b), n FROM pt WHERE s = 'str_7' AND i < 900", 0, 0},
    {"table_create", "CREATE VIRTUAL TABLE temp.pt2 USING parquet('%s/in.parquet'); SELECT count(*), max(r) FROM pt2", 0, "DROP TABLE IF EXISTS temp.pt2"},
    {"table_two_files", "CREATE VIRTUAL TABLE temp.pt3 USING parquet('%s/in.parquet', '%s/in*.parquet', union_by_name=1); SELECT count(*), count(i), count(l) FROM pt3", 0, "DROP TABLE IF EXISTS temp.pt3"},
    {"table_hive", "CREATE VIRTUAL TABLE temp.pt4 USING parquet('%s/in_h/**/*.parquet', '%s/in*.parquet', hive_partitioning=1, union_by_name=1); SELECT count(*), sum(k), count(l) FROM pt4 WHERE k IS NOT NULL OR s > 'str_3'", 0, "DROP TABLE IF EXISTS temp.pt4"},
    {"rows", "SELECT file_row_number, value FROM parquet_rows('%s/in_nested.parquet')", 0, 0},
    {"decode_file", "SELECT parquet_decode('%s/in.parquet')", 0, 0},
    {"metadata", "SELECT * FROM parquet_metadata('%s/in.parquet')", 0, 0},
    /* statistics as values of their logical types */
    {"metadata_types", "SELECT * FROM parquet_metadata('%s/in_types.parquet')", 0, 0},
    /* declared types, collations, their pruning, and the types written back */
    {"table_types", "CREATE VIRTUAL TABLE temp.pt4 USING parquet('%s/in_types.parquet'); SELECT count(*), min(ts), max(big), decimal_sum(big) FROM pt4 WHERE ts > '2020-09-14T00:00:00Z' AND big > 5; SELECT hex(parquet_write(NULL, 'SELECT * FROM pt4'))", 0, "DROP TABLE IF EXISTS temp.pt4"},
    {"decimal_sum", "SELECT decimal_sum(r), decimal_sum(i || '.125'), decimal_sum(n) FROM t", 0, 0},
    /* VARIANT: shredded objects (partially), arrays of objects, the
    ** binary decoded by itself */
    {"variant_rows", "SELECT value FROM parquet_rows('../shared/parquet-testing/shredded_variant/case-083.parquet'); SELECT value FROM parquet_rows('../shared/parquet-testing/shredded_variant/case-126.parquet'); SELECT value FROM parquet_rows('../shared/parquet-testing/shredded_variant/case-047.parquet')", 0, 0},
    {"variant_table", "CREATE VIRTUAL TABLE temp.vt USING parquet('../shared/parquet-testing/shredded_variant/case-044.parquet'); SELECT var FROM vt", 0, "DROP TABLE IF EXISTS temp.vt"},
    {"variant_decode", "SELECT parquet_variant_decode(X'01020001026162', X'020200010002040C010C02'), parquet_variant_decode(X'010000' || X'030000'), hex(parquet_variant_encode('{\"a\":[1,2.5,\"x\"],\"b\":null}'))", 0, 0},
    {"schema", "SELECT * FROM parquet_schema('%s/in_nested.parquet')", 0, 0},
    {"file_metadata", "SELECT * FROM parquet_file_metadata('%s/in.parquet')", 0, 0},
    {"kv_metadata", "SELECT * FROM parquet_kv_metadata('%s/in.parquet')", 0, 0},
    {"column_index", "SELECT * FROM parquet_column_index('%s/in.parquet')", 0, 0},
    /* sizes, level histograms, encoding stats, NaN counts and column
    ** orders, read and written */
    {"metadata_nested", "SELECT * FROM parquet_metadata('%s/in_nested.parquet'); SELECT * FROM parquet_column_index('%s/in_nested.parquet')", 0, 0},
    {"column_orders", "SELECT name, column_order FROM parquet_schema('%s/in.parquet'); SELECT column_orders FROM parquet_file_metadata('%s/in.parquet')", 0, 0},
    {"write_nan_sizes", "SELECT hex(parquet_write(NULL, 'SELECT CASE WHEN i %% 5 = 0 THEN X''000000000000F87F'' ELSE r END AS x, json_array(i, n) AS l, s FROM t', '{\"page_values\":7,\"row_group_size\":120,\"columns\":{\"x\":{\"type\":\"DOUBLE\"},\"l\":{\"type\":\"LIST<INT64>\"}}}'))", 0, 0},
    {"offset_index", "SELECT * FROM parquet_offset_index('%s/in.parquet')", 0, 0},
    {"bloom_probe", "SELECT * FROM parquet_bloom_probe('%s/in.parquet', 's', 'str_7')", 0, 0},
    {"pages", "SELECT row_group, column_id, page, hex(data), hex(dictionary) FROM parquet_pages('%s/in.parquet')", 0, 0},
    {"glob", "SELECT file_name, count(*) FROM parquet_metadata('%s/in*.parquet') GROUP BY 1", 0, 0},
    /* parquet_write: its options, nested columns, a parquet table's rows;
    ** "durable" but in write_table (one fsync is enough); no BROTLI, which
    ** takes long under the sanitizers (file_codecs has it) */
    {"write", "SELECT parquet_write('%s/out.parquet', 'SELECT * FROM t', '{\"row_group_size\":100,\"codec\":\"ZSTD\",\"page_index\":true,\"bloom_filter\":true,\"durable\":false,\"columns\":{\"i\":{\"encoding\":\"DELTA_BINARY_PACKED\"},\"s\":{\"dictionary\":true}}}')", 1, 0},
    /* parquet_lab: the query's columns kept once, written under each try */
    {"lab", "SELECT \"column\", encoding, codec, bytes, values_bytes, auto FROM parquet_lab('SELECT i, s FROM t WHERE i < 200', '{\"min_time\":0,\"codecs\":[\"SNAPPY\"],\"encodings\":[\"PLAIN\",\"RLE_DICTIONARY\",\"DELTA_BINARY_PACKED\",\"DELTA_BYTE_ARRAY\"],\"row_group_size\":150}')", 0, 0},
    /* parquet_lab_file: a file image's columns, one at a time, sampled */
    {"lab_file", "SELECT \"column\", encoding, codec, bytes, auto FROM parquet_lab_file(parquet_write(NULL, 'SELECT i, s FROM t WHERE n < 400', '{\"row_group_size\":150}'), '{\"min_time\":0,\"codecs\":[\"SNAPPY\"],\"encodings\":[\"PLAIN\",\"RLE_DICTIONARY\",\"DELTA_BYTE_ARRAY\"],\"sample\":0.5}')", 0, 0},
    {"write_blob", "SELECT hex(parquet_write(NULL, 'SELECT i, s, r FROM t', '{\"page_version\":2,\"codec\":\"LZ4_RAW\"}'))", 0, 0},
    {"write_nested", "SELECT parquet_write('%s/out.parquet', 'SELECT json_array(i, n) AS l, json_object(''a'', i, ''b'', s) AS st, json_object(s, json_array(i)) AS m FROM t', '{\"durable\":false,\"columns\":{\"l\":{\"type\":\"LIST<INT64>\"},\"st\":{\"type\":\"STRUCT<a INT64, b STRING>\"},\"m\":{\"type\":\"MAP<STRING, LIST<INT64>>\"}}}')", 1, 0},
    {"write_table", "SELECT parquet_write('%s/out.parquet', 'SELECT * FROM pt WHERE i < 500')", 1, 0},
    {"write_variant", "SELECT hex(parquet_write(NULL, 'SELECT CASE WHEN i %% 7 = 0 THEN NULL ELSE json_object(''i'', i, ''r'', r, ''s'', s, ''l'', json_array(n, s, 1.5)) END AS v FROM t WHERE i < 60', '{\"columns\":{\"v\":{\"type\":\"VARIANT\"}}}'))", 0, 0},
    {"write_variant_shred", "SELECT hex(parquet_write(NULL, 'SELECT CASE WHEN i %% 5 = 0 THEN json_quote(s) ELSE json_object(''i'', i, ''s'', s, ''d'', json_object(''x'', i * 0.5, ''b'', i %% 2 = 0), ''l'', json_array(s, n), ''z'', i) END AS v FROM t WHERE i < 60', '{\"columns\":{\"v\":{\"type\":\"VARIANT\",\"shred\":{\"i\":\"INT32\",\"s\":\"STRING\",\"d\":{\"x\":\"DECIMAL(30,1)\",\"b\":\"BOOLEAN\"},\"l\":[\"STRING\"]}}}}'))", 0, 0},
    {"write_variant_auto", "SELECT hex(parquet_write(NULL, 'SELECT json_object(''i'', i, ''s'', s, ''d'', json_object(''x'', i * 0.5), ''l'', json_array(i, n)) AS v FROM t WHERE i < 60', '{\"columns\":{\"v\":{\"type\":\"VARIANT\",\"shred\":\"auto\"}}}'))", 0, 0},
    /* The worker busy: row groups of 1000 rows, each handed over, so that
    ** after 4 of them the columns are spread over the worker's lane and
    ** the calling thread's by their cost (src/writer/worker.c,
    ** twk_balance); small pages, so that a column's batches cost more
    ** than closing a row group.  The rows come from a stream of 1, 2,
    ** 3, ...: no allocation per row. */
    {"write_threads", "SELECT parquet_write('%s/out.parquet', 'SELECT value AS x, value * 7 %% 1000 AS m, value * 0.5 AS h FROM parquet_values(X''80E00201C8DF02020200'', ''DELTA_BINARY_PACKED'') LIMIT 8000', '{\"codec\":\"SNAPPY\",\"page_size\":1024,\"row_group_size\":1000,\"durable\":false}')", 1, 0, 1},
    /* each chunk's encoding measured (levels under a codec too) */
    {"write_auto", "SELECT parquet_write('%s/out.parquet', 'SELECT * FROM t', '{\"encoding\":\"auto\",\"row_group_size\":120,\"codec\":\"SNAPPY\",\"durable\":false}')", 1, 0},
    /* ... and with the encodings not every reader reads allowed, for the
    ** file and for a column */
    {"write_auto_allow", "SELECT parquet_write('%s/out.parquet', 'SELECT * FROM t', '{\"encoding\":\"auto\",\"auto\":{\"allow\":[\"BYTE_STREAM_SPLIT\"]},\"codec\":\"UNCOMPRESSED\",\"durable\":false,\"columns\":{\"r\":{\"auto\":{\"allow\":[\"ALP\",\"GROUP_VAR_INT\"]}}}}')", 1, 0},
    /* a partitioned folder (NULL values escaped, two levels), files
    ** rolled by size; every file and folder of a failed write removed */
    {"write_partition", "SELECT parquet_write('%s/part', 'SELECT i, i %% 3 AS k, CASE WHEN i %% 4 = 0 THEN NULL ELSE ''a/'' || (i %% 2) END AS c, s FROM t WHERE i < 90', '{\"partition_by\":[\"k\",\"c\"],\"file_size_bytes\":600,\"row_group_size\":4,\"durable\":false}')", 1, 0},
    /* dictionaries that fall back, small pages, bloom filters sized by
    ** ndv, page indexes, key-value metadata */
    {"write_fallback", "SELECT parquet_write('%s/out.parquet', 'SELECT s, i, b FROM t', '{\"dictionary_page_size\":40,\"page_size\":256,\"row_group_size\":150,\"page_index\":true,\"bloom_filter\":{\"ndv\":50,\"fpp\":0.05},\"metadata\":{\"a\":\"1\",\"b\":null},\"created_by\":\"oom\",\"threads\":1,\"durable\":false}')", 1, 0},
    /* values converted to the types given: INTEGER to STRING makes text */
    {"write_types", "SELECT hex(parquet_write(NULL, 'SELECT i, r, n, date(''2020-01-01'', ''+'' || i || '' days'') AS d, datetime(1600000000 + i * 3600, ''unixepoch'') AS ts, printf(''%%04d'', i) AS f FROM t', '{\"page_version\":2,\"columns\":{\"i\":{\"type\":\"STRING\"},\"r\":{\"type\":\"DECIMAL(9,3)\"},\"n\":{\"type\":\"INT32\",\"encoding\":\"DELTA_BINARY_PACKED\"},\"d\":{\"type\":\"DATE\"},\"ts\":{\"type\":\"TIMESTAMP(ms)\"},\"f\":{\"type\":\"FIXED_LEN_BYTE_ARRAY(4)\"}}}'))", 0, 0},
    /* GEOMETRY and GEOGRAPHY: WKB walked for each chunk's statistics, the
    ** crs kept; read back as BLOBs, statistics, types and JSON, and
    ** through a table whose declared type writes the same type again */
    {"write_geo", "SELECT parquet_write('%s/out.parquet', 'SELECT i, CASE i %% 3 WHEN 0 THEN X''01010000000000000000003E400000000000002440'' WHEN 1 THEN X''0107000000010000000102000000020000000000000000000000000000000000F03F00000000000000400000000000000840'' END AS g FROM t', '{\"row_group_size\":100,\"page_index\":true,\"durable\":false,\"columns\":{\"g\":{\"type\":\"GEOMETRY(OGC:CRS84)\"}}}')", 1, 0},
    {"file_refs", "WITH f(b) AS (SELECT parquet_write(NULL, 'SELECT i, CASE i %% 4 WHEN 0 THEN json_object(''inline'', s, ''content_type'', ''text/plain'') WHEN 1 THEN json_object(''offset'', 0, ''size'', 4) WHEN 2 THEN json_object(''uri'', s) END AS d FROM t WHERE i < 50', '{\"row_group_size\":20,\"columns\":{\"d\":{\"type\":\"FILE\"}}}')) SELECT (SELECT group_concat(file_row_number || resolves || hex(bytes) || ifnull(uri, '') || ifnull(content_type, '')) FROM parquet_file_refs(f.b)), (SELECT group_concat(value) FROM parquet_rows(f.b)) FROM f", 0, 0},
    {"geo_blob", "WITH f(b) AS (SELECT parquet_write(NULL, 'SELECT CASE i %% 2 WHEN 0 THEN X''0101000000000000000000F03F0000000000000040'' END AS g FROM t', '{\"row_group_size\":300,\"columns\":{\"g\":{\"type\":\"GEOGRAPHY(EPSG:4326, karney)\"}}}')) SELECT (SELECT group_concat(geo_bbox || geo_types) FROM parquet_metadata(f.b)), (SELECT group_concat(logical_type) FROM parquet_schema(f.b)), (SELECT group_concat(value) FROM parquet_rows(f.b)) FROM f", 0, 0},
    {"table_geo", "SELECT parquet_write('%s/geo.parquet', 'SELECT i, CASE WHEN i %% 5 > 0 THEN X''01E9030000000000000000F03F00000000000000400000000000000840'' END AS g FROM t WHERE i < 40', '{\"durable\":false,\"columns\":{\"g\":{\"type\":\"GEOGRAPHY(spherical)\"}}}'); CREATE VIRTUAL TABLE temp.pg USING parquet('%s/geo.parquet'); SELECT count(g), hex(max(g)) FROM pg; SELECT hex(parquet_write(NULL, 'SELECT * FROM pg'))", 0, "DROP TABLE IF EXISTS temp.pg"},
};

/* Where two results part, when OOM_VERBOSE is set. */
static void show_diff(const text *a, const text *b) {
  if (!getenv("OOM_VERBOSE")) return;
  size_t i = 0;
  while (i < a->n && i < b->n && a->s[i] == b->s[i]) i++;
  size_t from = i > 60 ? i - 60 : 0;
  printf("  want: %.200s\n  got:  %.200s\n", a->s + from, b->s + from);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One statement of the list, swept. */
static void sweep(const stmt *s) {
  double t0 = now();
  char *sql = sqlite3_mprintf(s->sql, dir, dir);
  text want = {0}, got = {0};
  /* What it gives without a failure. */
  clear_out();
  sqlite3 *db = open_db();
  int rc = run(db, sql, &want);
  if (s->writes) add_file(&want, out_path());
  add_listing(&want);
  add_part(&want);
  if (s->undo) sqlite3_exec(db, s->undo, 0, 0, 0);
  sqlite3_close(db);
  if (rc) {
    printf("! %s: fails without a fault: %d\n", s->name, rc);
    fails++;
    sqlite3_free(sql);
    return;
  }
  long n;
  int bad = 0;
  for (n = 1; !bad; n++) {
    clear_out();
    sqlite3_int64 before = sqlite3_memory_used();
    db = open_db();
    arm(n, s->worker);
    rc = run(db, sql, &got);
    int fired = failed;
    arm(0, 0);
    const char *msg = sqlite3_errmsg(db);
    if (rc == SQLITE_OK) {
      if (s->writes) add_file(&got, out_path());
      add_listing(&got);
      add_part(&got);
      if (strcmp(got.s, want.s)) {
        printf("! %s: allocation %ld failed, yet it succeeded with another "
               "result\n",
               s->name, n);
        show_diff(&want, &got);
        bad = 1;
      }
    } else if (rc != SQLITE_NOMEM) {
      printf("! %s: allocation %ld failed: error %d, not SQLITE_NOMEM: %s\n",
             s->name, n, rc, msg);
      bad = 1;
    } else {
      /* Nothing written, and the connection still works. */
      text files = {0};
      add_file(&files, out_path());
      add_listing(&files);
      if (s->writes && !strstr(files.s, "file:none")) {
        printf("! %s: allocation %ld failed, and out.parquet is there\n",
               s->name, n);
        bad = 1;
      } else if (strstr(files.s, "part,")) {
        printf("! %s: allocation %ld failed, and the folder is there\n",
               s->name, n);
        bad = 1;
      } else if (strstr(files.s, ".tmp")) {
        printf("! %s: allocation %ld failed, and a temporary file is left: "
               "%s\n",
               s->name, n, strstr(files.s, "files:"));
        bad = 1;
      }
      free(files.s);
      if (s->undo) sqlite3_exec(db, s->undo, 0, 0, 0);
      clear_out();
      rc = run(db, sql, &got);
      if (!bad && rc == SQLITE_OK) {
        if (s->writes) add_file(&got, out_path());
        add_listing(&got);
        add_part(&got);
      }
      if (!bad && (rc != SQLITE_OK || strcmp(got.s, want.s))) {
        printf("! %s: after allocation %ld failed, the next run gives %s\n",
               s->name, n, rc ? sqlite3_errmsg(db) : "another result");
        bad = 1;
      }
    }
    if (s->undo) sqlite3_exec(db, s->undo, 0, 0, 0);
    sqlite3_close(db);
    sqlite3_int64 after = sqlite3_memory_used();
    if (!bad && after != before) {
      printf("! %s: allocation %ld failed, and %lld bytes stay allocated\n",
             s->name, n, (long long)(after - before));
      bad = 1;
    }
    if (!fired && rc == SQLITE_OK) break; /* it ran whole */
  }
  clear_out();
  if (bad) {
    fails++;
  } else {
    passes++;
    printf("%s: %ld allocations, %.1f s\n", s->name, n - 1, now() - t0);
  }
  free(want.s);
  free(got.s);
  sqlite3_free(sql);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: oom EXTENSION WORKDIR [FILTER]\n");
    return 2;
  }
  ext = argv[1];
  dir = argv[2];
  const char *filter = argc > 3 ? argv[3] : NULL;
  main_thread = pthread_self();
  sqlite3_config(SQLITE_CONFIG_GETMALLOC, &base);
  sqlite3_mem_methods m = base;
  m.xMalloc = oom_malloc;
  m.xRealloc = oom_realloc;
  m.xFree = oom_free;
  m.xSize = oom_size;
  m.xRoundup = oom_roundup;
  m.xInit = oom_init;
  m.xShutdown = oom_shutdown;
  sqlite3_config(SQLITE_CONFIG_MALLOC, &m);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0);
  sqlite3_initialize();
  load_once();
  make_inputs();
  for (size_t i = 0; i < sizeof stmts / sizeof *stmts; i++) {
    if (filter && !strstr(stmts[i].name, filter)) continue;
    sweep(&stmts[i]);
    fflush(stdout);
  }
  printf("%d passed, %d failed\n", passes, fails);
  return fails ? 1 : 0;
}
