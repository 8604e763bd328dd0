/*
** threads.c -- the extension on many threads at once: every job gives
** the same result on 8 threads, each on a connection of its own and all
** on one they share, as it gave alone.  Built with -fsanitize=thread by
** `make test-tsan`, where any data race ends the run.
**
**   threads EXTENSION WORKDIR [DATA [URL]]
**
** EXTENSION is the path sqlite3_load_extension takes (build-tsan/parquet.so),
** WORKDIR a folder for the files parquet_write writes (it must exist), DATA
** the folder of the files read (../shared/parquet-testing/data), URL the
** base of an HTTP server of the two, DATA at URL/data/ and WORKDIR at
** URL/work/ (tests/http_server.py data=DATA work=WORKDIR, which `make
** test-tsan` starts through tests/tsan_run.sh).  The jobs that read URLs
** (READS_URL) fail without one, and so does a run whose server does not
** give the file written for them as it is read from disk.
**
** A job (JOBS below) is SQL, one or more statements; its result is every
** row of every statement as text, an error as its message, hashed.  Each
** job runs once first, on one connection with no other thread running:
** that is its reference.  Then 8 threads run every job, starting at
** different ones, on their own connection and on the shared one, and each
** result must hash as the reference did.  The system's SQLite is built
** threadsafe (serialized), so the shared connection takes one statement's
** step at a time, in any order.
**
** The connections come and go while others work:
**   - before the reference, 4 threads load the extension into connections
**     of theirs at the same moment: the first sqlite3_parquet_init calls
**     meet;
**   - in the run, the even threads open and load their connection at once,
**     the odd ones start on the shared connection and load theirs after a
**     few jobs, while the others run queries;
**   - every thread closes its connection halfway and loads another.
**
** Files at URLs are read as the others: a parquet table over a URL made on
** each connection, scanned whole (its worker fetching the next row group
** ahead while the cursor decodes) on every thread at once, pruned by the
** page index, stopped by a LIMIT; metadata and rows of the same URLs
** opened again and again (the connection's footers, asked for with
** If-None-Match); the settings of parquet_http_option, each connection's
** own.  A job that reads URLs must give rows and no error alone.
**
** Last, the extension is handed the table of routines of another SQLite
** library, and must refuse it.
**
** Prints a line per mismatch and ends with "N passed, N failed"; the exit
** status is 1 on any failure.  With PQ_THREADS_SHOW set, it first prints
** each reference: its time, and the start of its rows; PQ_THREADS_ONLY=TEXT
** runs only the jobs whose names hold TEXT.
*/
#define _POSIX_C_SOURCE 200809L /* pthread_barrier_t */
#include <dlfcn.h>
#include <pthread.h>
#include <sqlite3.h>
/* sqlite3ext.h for its table of routines only, not its macros, which
** SQLITE_CORE leaves out. */
#define SQLITE_CORE 1
#include <sqlite3ext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NTHREADS 8
#define NEARLY 4 /* the threads that load before the reference */
#define ROUNDS 1 /* each thread runs every job this many times */

/* ---- The jobs ------------------------------------------------------------
** In the SQL, @D stands for the data folder, @W for a file name prefix
** of the thread and connection that runs it (the reference's own) and @U
** for the server's base URL. */

typedef struct Job {
  const char *name;
  int flags; /* OWN_ONLY, READS_URL */
  const char *sql;
} Job;

/* It changes its connection's state: not run on the shared one. */
#define OWN_ONLY 1
/* It reads URLs (@U, the table `web`): it fails without a server. */
#define READS_URL 2

#define SERIES(n)                                                   \
  "WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM s " \
  "WHERE x < " #n ") "

static const Job JOBS[] = {
    /* Streams: encode and decode, several encodings and types. */
    {"encode DELTA_BINARY_PACKED INT64", 0,
     SERIES(4000) "SELECT hex(parquet_encode(x * x % 1009 - 500, "
                  "'DELTA_BINARY_PACKED', 'INT64')) FROM s"},
    {"round trip DELTA_BINARY_PACKED INT32", 0,
     SERIES(4000) "SELECT parquet_decode(parquet_encode(x * 37 % 1000, "
                  "'DELTA_BINARY_PACKED', 'INT32'), 'DELTA_BINARY_PACKED', "
                  "'INT32') FROM s"},
    {"round trip PLAIN DOUBLE", 0,
     SERIES(3000) "SELECT parquet_decode(parquet_encode(x / 8.0, 'PLAIN', "
                  "'DOUBLE'), 'PLAIN', 'DOUBLE') FROM s"},
    {"round trip BYTE_STREAM_SPLIT FLOAT", 0,
     SERIES(3000) "SELECT hex(b), parquet_decode(b, 'BYTE_STREAM_SPLIT', "
                  "'FLOAT') FROM (SELECT parquet_encode(x * 0.25, "
                  "'BYTE_STREAM_SPLIT', 'FLOAT') AS b FROM s)"},
    {"round trip ALP DOUBLE", 0,
     SERIES(3000) "SELECT hex(b), parquet_decode(b, 'ALP', 'DOUBLE') FROM "
                  "(SELECT parquet_encode(round(x * 1.37, 2), 'ALP', "
                  "'DOUBLE') AS b FROM s)"},
    {"round trip RLE_DICTIONARY BYTE_ARRAY", 0,
     SERIES(3000) "SELECT hex(i), hex(d), parquet_decode(i, "
                  "'RLE_DICTIONARY', 'BYTE_ARRAY', NULL, d) FROM (SELECT "
                  "parquet_encode('s' || (x * 7 % 41), 'RLE_DICTIONARY') AS "
                  "i, parquet_encode('s' || (x * 7 % 41), 'RLE_DICTIONARY', "
                  "NULL, '{\"part\":\"dictionary\"}') AS d FROM s)"},
    {"round trip DELTA_BYTE_ARRAY", 0,
     SERIES(3000) "SELECT hex(b), parquet_decode(b, 'DELTA_BYTE_ARRAY') FROM "
                  "(SELECT parquet_encode(printf('key%06d', x * 7), "
                  "'DELTA_BYTE_ARRAY') AS b FROM s)"},
    {"round trip DELTA_LENGTH_BYTE_ARRAY", 0,
     SERIES(3000) "SELECT parquet_decode(parquet_encode(substr('abcdefghij', "
                  "1, x % 11), 'DELTA_LENGTH_BYTE_ARRAY'), "
                  "'DELTA_LENGTH_BYTE_ARRAY') FROM s"},
    {"round trip RLE BOOLEAN, BIT_PACKED", 0,
     SERIES(5000) "SELECT hex(parquet_encode(x % 3 = 0, 'RLE', 'BOOLEAN')), "
                  "parquet_decode(parquet_encode(x % 3 = 0, 'RLE', "
                  "'BOOLEAN'), 'RLE', 'BOOLEAN'), "
                  "parquet_decode(parquet_encode(x % 5, 'BIT_PACKED', "
                  "'INT32', '{\"bit_width\":3}'), 'BIT_PACKED', 'INT32', "
                  "'{\"bit_width\":3}') FROM s"},
    {"encode errors", 0,
     "SELECT parquet_encode(column1, 'PLAIN', 'INT32') FROM (VALUES (1), "
     "(5000000000));\n"
     "SELECT parquet_decode(X'0801080E0302C0', 'DELTA_BINARY_PACKED')"},
    /* The connection's spare: a stream of 1 MiB or more comes back to it
    ** when SQLite is done with it, and the next encoder builds in it. */
    {"encode a large stream", 0,
     SERIES(132000) "SELECT length(b), hex(substr(b, 1, 16)), "
                    "hex(substr(b, -16)) FROM (SELECT parquet_encode(x * 3, "
                    "'PLAIN', 'INT64') AS b FROM s);\n" SERIES(2000)
     "SELECT hex(parquet_encode(x * 0.5, 'PLAIN', 'DOUBLE')) FROM s;\n"
     SERIES(2000) "SELECT hex(parquet_encode(x, 'DELTA_BINARY_PACKED')) "
                  "FROM s"},
    /* Values and explanations, row by row. */
    {"values BYTE_STREAM_SPLIT DOUBLE", 0,
     "SELECT idx, value FROM parquet_values((" SERIES(2000)
     "SELECT parquet_encode(x / 3.0, 'BYTE_STREAM_SPLIT', 'DOUBLE') FROM s), "
     "'BYTE_STREAM_SPLIT', 'DOUBLE')"},
    {"values RLE_DICTIONARY", 0,
     "SELECT idx, value FROM parquet_values(X'02030402', 'RLE_DICTIONARY', "
     "'BYTE_ARRAY', NULL, X'010000006201000000610100000063');\n"
     "SELECT idx, value FROM parquet_values((" SERIES(2000)
     "SELECT parquet_encode(x % 100, 'DELTA_BINARY_PACKED') FROM s), "
     "'DELTA_BINARY_PACKED')"},
    {"explain DELTA_BINARY_PACKED", 0,
     "SELECT offset, hex, bits, path, value, note FROM "
     "parquet_explain(X'0801080E0302C03F', 'DELTA_BINARY_PACKED');\n"
     "SELECT offset, hex, path, value, note FROM parquet_explain((" SERIES(600)
     "SELECT parquet_encode(x * x % 997, 'DELTA_BINARY_PACKED') FROM s), "
     "'DELTA_BINARY_PACKED')"},
    {"explain RLE, ALP", 0,
     "SELECT bits, labels FROM parquet_explain(X'0388C6FA', 'RLE', 'INT32', "
     "'{\"bit_width\":3}');\n"
     "SELECT offset, path, value, note FROM parquet_explain((" SERIES(300)
     "SELECT parquet_encode(round(x * 2.5, 1), 'ALP', 'DOUBLE') FROM s), "
     "'ALP', 'DOUBLE')"},
    {"explain FILE", 0,
     "SELECT offset, length, path, value, note FROM parquet_explain((SELECT "
     "parquet_file(column1, 'DELTA_BINARY_PACKED', 'INT64', "
     "'{\"page_values\":4,\"codec\":\"ZSTD\"}') FROM (VALUES (7), (5), "
     "(NULL), (3), (1), (2), (3), (4), (5))), 'FILE')"},
    {"explain a file's pages", 0,
     "SELECT p.page, e.offset, e.path, e.value FROM "
     "parquet_pages('@D/datapage_v2.snappy.parquet') p, "
     "parquet_explain(p.data, p.encoding, p.type, p.options, p.dictionary) e"},
    /* Columns as files, and codecs. */
    {"file ZSTD, pages", 0,
     "SELECT page, page_type, encoding, num_values, num_nulls, codec, "
     "compressed_size, stats_min, stats_max, hex(data) FROM parquet_pages(("
     SERIES(5000) "SELECT parquet_file(nullif(x % 17, 0) * 11, "
                  "'DELTA_BINARY_PACKED', 'INT64', "
                  "'{\"page_values\":700,\"codec\":\"ZSTD\"}') FROM s))"},
    {"file codecs", 0,
     SERIES(2000) "SELECT hex(parquet_file(printf('v%d', x % 97), 'PLAIN', "
                  "NULL, '{\"codec\":\"GZIP\",\"page_values\":500}')), "
                  "hex(parquet_file(x * 1.5, 'BYTE_STREAM_SPLIT', 'DOUBLE', "
                  "'{\"codec\":\"BROTLI\"}')), hex(parquet_file(x, "
                  "'RLE_DICTIONARY', 'INT32', '{\"codec\":\"SNAPPY\"}')), "
                  "hex(parquet_file(x % 2, 'RLE', 'BOOLEAN', "
                  "'{\"codec\":\"LZ4_RAW\",\"page_version\":2}')) FROM s;\n"
     "SELECT parquet_decode((" SERIES(800)
     "SELECT parquet_file(printf('w%d', x), 'DELTA_BYTE_ARRAY', NULL, "
     "'{\"codec\":\"ZSTD\",\"page_values\":100}') FROM s))"},
    {"compress, decompress", 0,
     "WITH b(v) AS (SELECT CAST(group_concat(printf('%d,', x * x), '') AS "
     "BLOB) FROM (" SERIES(1000) "SELECT x FROM s)) "
     "SELECT c, hex(parquet_compress(v, c)), parquet_decompress("
     "parquet_compress(v, c), c) = v FROM b, (SELECT column1 AS c FROM "
     "(VALUES ('UNCOMPRESSED'), ('SNAPPY'), ('GZIP'), ('BROTLI'), ('LZ4'), "
     "('ZSTD'), ('LZ4_RAW'))) ORDER BY c"},
    {"encodings", 0,
     "SELECT * FROM parquet_encodings;\n"
     "SELECT * FROM parquet_encodings('FLOAT')"},
    /* Files of other writers: every row, every column chunk. */
    {"rows nested", 0,
     "SELECT filename, file_row_number, value FROM "
     "parquet_rows('@D/nested_*.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/nullable.impala.parquet')"},
    {"rows codecs", 0,
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/lz4_raw_compressed_larger.parquet') WHERE "
     "file_row_number % 5 = 0;\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/large_string_map.brotli.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/byte_stream_split_extended.gzip.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/datapage_v2.snappy.parquet')"},
    {"rows delta", 0,
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/delta_byte_array.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/delta_binary_packed.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/delta_encoding_optional_column.parquet')"},
    {"rows types", 0,
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/int96_from_spark.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/fixed_length_decimal.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@D/alltypes_plain.parquet');\n"
     "SELECT parquet_decode('@D/alltypes_dictionary.parquet')"},
    {"metadata", 0,
     "SELECT * FROM parquet_metadata('@D/alltypes_tiny_pages.parquet');\n"
     "SELECT * FROM parquet_metadata('@D/lz4_raw_compressed_larger.parquet');\n"
     "SELECT * FROM parquet_metadata('@D/nested_structs.rust.parquet');\n"
     "SELECT * FROM parquet_schema('@D/nested_maps.snappy.parquet');\n"
     "SELECT * FROM parquet_file_metadata('@D/delta_byte_array.parquet')"},
    {"page index, bloom filter", 0,
     "SELECT * FROM parquet_column_index('@D/alltypes_tiny_pages.parquet') "
     "WHERE page_id < 5;\n"
     "SELECT * FROM parquet_offset_index('@D/alltypes_tiny_pages.parquet') "
     "WHERE page_id < 5;\n"
     "SELECT * FROM "
     "parquet_bloom_probe('@D/data_index_bloom_encoding_stats.parquet', "
     "'String', 'Hello');\n"
     "SELECT * FROM parquet_kv_metadata('@D/nested_structs.rust.parquet')"},
    /* The parquet table, made on each connection as it opens. */
    {"table tiny", 0,
     "SELECT string_col, count(*), min(timestamp_col), max(double_col), "
     "sum(int_col) FROM tiny WHERE id < 300 GROUP BY string_col;\n"
     "SELECT * FROM tiny WHERE id BETWEEN 1000 AND 1020;\n"
     "SELECT rowid, file_row_number FROM tiny WHERE id IN (7, 70, 700, 7000)"},
    {"table nested, delta", 0,
     "SELECT a, b, a -> '$[0][1]' FROM nested;\n"
     "SELECT count(*), min(c_customer_id), max(c_customer_id) FROM dba;\n"
     "SELECT * FROM dba WHERE c_customer_id LIKE 'AAAAAAAAB%'"},
    /* Scans of many row groups, whole, stopped by a LIMIT or pruned: the
    ** table's worker reads ahead beside each (files written before the
    ** run), told which row groups each file's scan leaves out. */
    {"table read ahead", 0,
     "SELECT count(*), sum(id), max(t), min(u), sum(length(b)), max(ts) "
     "FROM ahead;\n"
     "SELECT id, t, u, hex(b), ts, rowid, file_row_number FROM ahead WHERE "
     "id % 997 = 0;\n"
     "SELECT * FROM ahead LIMIT 9000;\n"
     "SELECT count(*), sum(id), max(u), max(ts) FROM ahead WHERE id >= 34000 "
     "AND t >= 't1';\n"
     "SELECT count(*), sum(id), min(u) FROM ahead WHERE rowid >= 4000 AND "
     "id < 70000;\n"
     "SELECT a.id, b.u FROM ahead a, (SELECT u FROM ahead LIMIT 1 OFFSET "
     "45000) b WHERE a.id % 4999 = 0"},
    {"table lz4, files by a glob", 0,
     "SELECT count(*), count(DISTINCT a), max(a) FROM lz4;\n"
     "SELECT * FROM lz4 WHERE rowid % 499 = 0;\n"
     "SELECT rowid, *, filename, file_row_number FROM plain;\n"
     "SELECT filename, count(*), sum(id) FROM plain WHERE bool_col "
     "GROUP BY filename"},
    /* Writing: files of each thread's own, and BLOBs. */
    {"write a file", 0,
     "SELECT parquet_write('@W-a.parquet', '" SERIES(10000)
     "SELECT x AS id, x * 0.5 AS half, printf(''n%d'', x % 313) AS name, "
     "x % 3 = 0 AS three FROM s', '{\"codec\":\"ZSTD\",\"row_group_size\":"
     "4000,\"columns\":{\"id\":{\"type\":\"INT32\",\"encoding\":"
     "\"DELTA_BINARY_PACKED\"},\"half\":{\"encoding\":\"BYTE_STREAM_SPLIT\"}}"
     "}');\n"
     "SELECT count(*), sum(length(value)), min(value), max(value) FROM "
     "parquet_rows('@W-a.parquet');\n"
     "SELECT row_group_id, path_in_schema, type, encodings, num_values, "
     "total_compressed_size, stats_min, stats_max FROM "
     "parquet_metadata('@W-a.parquet')"},
    {"write a table's rows", 0,
     "SELECT parquet_write('@W-b.parquet', 'SELECT id, string_col, "
     "timestamp_col, double_col FROM tiny WHERE id < 1000', "
     "'{\"row_group_size\":400,\"page_index\":true,\"bloom_filter\":true,"
     "\"columns\":{\"timestamp_col\":{\"type\":\"TIMESTAMP(ms)\"}}}');\n"
     "SELECT value FROM parquet_rows('@W-b.parquet') WHERE "
     "file_row_number % 11 = 0;\n"
     "SELECT row_group_id, bloom_filter_excludes FROM "
     "parquet_bloom_probe('@W-b.parquet', 'id', 4321)"},
    /* More than 4 batches of 8192 rows: then parquet_write spreads the
    ** columns over its worker and the calling thread by their cost, and
    ** the two write columns of one file at once (its lanes).  The pages'
    ** sizes and CRCs stand for their bytes. */
    {"write on two lanes", 0,
     "SELECT parquet_write('@W-e.parquet', '" SERIES(45000)
     "SELECT x, x * 7 % 1000 AS m, x * 0.5 AS h, printf(''s%d'', x % 100) "
     "AS t FROM s', '{\"row_group_size\":8192,\"codec\":\"GZIP\"}');\n"
     "SELECT row_group, column_id, page, page_type, encoding, num_values, "
     "compressed_size, uncompressed_size, offset, crc, stats_min, stats_max "
     "FROM parquet_pages('@W-e.parquet')"},
    {"write nested, one thread", 0,
     "SELECT parquet_write('@W-c.parquet', 'SELECT a, b FROM nested', "
     "'{\"threads\":1,\"columns\":{\"a\":{\"type\":"
     "\"LIST<LIST<LIST<STRING>>>\"}}}');\n"
     "SELECT value FROM parquet_rows('@W-c.parquet');\n"
     "SELECT parquet_write('@W-d.parquet', '" SERIES(9000)
     "SELECT x, printf(''%08d'', x * 7919 % 100000) AS s FROM s', "
     "'{\"threads\":1,\"codec\":\"GZIP\",\"row_group_size\":4000}');\n"
     "SELECT count(*), sum(length(value)) FROM parquet_rows('@W-d.parquet')"},
    {"write a BLOB", 0,
     "SELECT length(f), hex(f) FROM (SELECT parquet_write(NULL, 'SELECT id, "
     "bool_col, float_col, date_string_col FROM tiny WHERE id < 300', "
     "'{\"codec\":\"SNAPPY\"}') AS f);\n"
     "SELECT value FROM parquet_rows(parquet_write(NULL, '" SERIES(9000)
     "SELECT x, x * x AS sq, hex(x) AS h FROM s', '{\"codec\":\"LZ4_RAW\","
     "\"row_group_size\":4000}')) WHERE file_row_number % 97 = 0"},
    /* The encoding lab: its trials two at a time, on a worker of its own
    ** and the calling thread, timed or not. */
    {"lab, two trials at a time", 0,
     "SELECT \"column\", encoding, codec, bytes, pages, auto, why FROM "
     "parquet_lab('" SERIES(6000) "SELECT x, x * 7 % 1000 AS m, x * 0.25 AS "
     "h, printf(''s%d'', x % 300) AS s FROM s', '{\"min_time\":0,"
     "\"page_size\":4000,\"codecs\":[\"UNCOMPRESSED\",\"SNAPPY\","
     "\"ZSTD\"]}');\n"
     "SELECT count(*), count(encode_mb_s), count(decode_mb_s), sum(bytes) "
     "FROM parquet_lab('" SERIES(3000) "SELECT x, printf(''%05d'', x % 77) "
     "AS s FROM s', '{\"min_time\":0.001,\"codecs\":[\"LZ4_RAW\"]}')"},
    /* The allocation ceiling: set on a connection of the thread's own,
    ** only read (and set to what it is) on the shared one. */
    {"max_alloc", OWN_ONLY,
     "SELECT parquet_max_alloc(100000), parquet_max_alloc();\n"
     "SELECT parquet_decode(X'FEFFFFFF0F00', 'RLE', 'INT32', "
     "'{\"bit_width\":1}');\n"
     "SELECT parquet_decompress(parquet_compress(zeroblob(200000), 'ZSTD'), "
     "'ZSTD');\n" SERIES(20000)
     "SELECT length(parquet_encode(x, 'PLAIN')) FROM s;\n"
     "SELECT parquet_max_alloc(268435456), parquet_max_alloc()"},
    {"max_alloc read", 0,
     "SELECT parquet_max_alloc(268435456), parquet_max_alloc(), "
     "parquet_version() IS NOT NULL"},
    /* Files at URLs (remote.c), from tests/http_server.py on loopback: the
    ** connection's footers kept and asked for again (If-None-Match, 304),
    ** an object's reads serialized by its mutex, the table's worker
    ** fetching the next row group's chunks ahead (curl's multi handle)
    ** while the cursor decodes, on one table of the shared connection
    ** from every thread at once.  The table `web` is made on each
    ** connection as it opens. */
    {"url table, every column", READS_URL,
     "SELECT count(*), sum(id), sum(k), max(s), min(h), max(h), count(h), "
     "sum(d), group_concat(CASE WHEN id % 2999 = 0 THEN id || s || h END) "
     "FROM web;\n"
     "SELECT id, s, d FROM web LIMIT 4500"},
    {"url table, pruned by the page index", READS_URL,
     "SELECT * FROM web WHERE id BETWEEN 10500 AND 10600;\n"
     "SELECT id, k, s, h FROM web WHERE id IN (5, 9000, 15999);\n"
     "SELECT count(*), sum(k), max(h) FROM web WHERE id >= 15300"},
    {"url metadata, opened again and again", READS_URL,
     "SELECT row_group_id, column_id, path_in_schema, num_values, "
     "stats_min, stats_max, total_compressed_size FROM "
     "parquet_metadata('@U/work/web.parquet');\n"
     "SELECT * FROM parquet_schema('@U/work/web.parquet');\n"
     "SELECT * FROM parquet_file_metadata('@U/work/web.parquet');\n"
     "SELECT * FROM parquet_column_index('@U/work/web.parquet') WHERE "
     "page_id < 2;\n"
     "SELECT * FROM parquet_metadata('@U/data/alltypes_tiny_pages.parquet');\n"
     "SELECT * FROM parquet_schema('@U/data/nested_maps.snappy.parquet');\n"
     "SELECT count(*) FROM parquet_metadata('@U/work/web.parquet');\n"
     "SELECT count(*) FROM parquet_schema('@U/work/web.parquet')"},
    {"url rows, LIMIT", READS_URL,
     "SELECT file_row_number, value FROM "
     "parquet_rows('@U/work/web.parquet') LIMIT 700;\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@U/data/nested_lists.snappy.parquet');\n"
     "SELECT file_row_number, value FROM "
     "parquet_rows('@U/data/alltypes_plain.parquet') LIMIT 3"},
    /* The settings are the connection's: set on a connection of the
    ** thread's own (each returns what it replaces: the defaults), a table
    ** opened with them (row groups fetched ahead in part, three chunks
    ** apart, in requests at once), then set back; only read on the
    ** shared one. */
    {"url settings", OWN_ONLY | READS_URL,
     "SELECT parquet_http_option('fetch_ahead', 30000), "
     "parquet_http_option('coalesce_gap', 0), "
     "parquet_http_option('parallel', 3), "
     "parquet_http_option('read_min', 4096);\n"
     "CREATE VIRTUAL TABLE temp.web_small USING "
     "parquet('@U/work/web.parquet', threads=2);\n"
     "SELECT count(*), sum(id), max(s), sum(d) FROM web_small;\n"
     "DROP TABLE temp.web_small;\n"
     "SELECT parquet_http_option('fetch_ahead', 67108864), "
     "parquet_http_option('coalesce_gap', 1048576), "
     "parquet_http_option('parallel', 4), "
     "parquet_http_option('read_min', 0)"},
    {"url settings read", 0,
     "SELECT parquet_http_option('fetch_ahead'), "
     "parquet_http_option('coalesce_gap'), parquet_http_option('parallel'), "
     "parquet_http_option('read_min')"},
};
#define NJOBS (int)(sizeof JOBS / sizeof JOBS[0])

/* The parquet tables each connection makes when it opens. */
static const char SETUP[] =
    "CREATE VIRTUAL TABLE temp.tiny USING "
    "parquet('@D/alltypes_tiny_pages.parquet');\n"
    "CREATE VIRTUAL TABLE temp.nested USING "
    "parquet('@D/nested_lists.snappy.parquet');\n"
    "CREATE VIRTUAL TABLE temp.dba USING "
    "parquet('@D/delta_byte_array.parquet');\n"
    "CREATE VIRTUAL TABLE temp.lz4 USING "
    "parquet('@D/lz4_raw_compressed_larger.parquet');\n"
    "CREATE VIRTUAL TABLE temp.plain USING "
    "parquet('@D/alltypes_plain*.parquet', "
    "'@D/alltypes_dictionary.parquet', binary_as_string=1);\n"
    "CREATE VIRTUAL TABLE temp.ahead USING parquet('@W/ahead-*.parquet')";

/* ... and the one at a URL, when there is a server. */
static const char SETUP_URL[] =
    "CREATE VIRTUAL TABLE temp.web USING parquet('@U/work/web.parquet', "
    "threads=2)";

/* The files of the table `ahead`: two of 30 000 rows in row groups of
** 4000, written once before the run. */
static const char AHEAD_FILES[] =
    "SELECT parquet_write('@W/ahead-' || f || '.parquet', 'WITH RECURSIVE "
    "s(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM s WHERE x < 29999) "
    "SELECT x + ' || f || ' * 30000 AS id, ''t'' || (x % 41) AS t, "
    "printf(''u%07d'', x * 7919 % 1000003) AS u, CASE WHEN x % 3 THEN "
    "randomblob(x % 7) END AS b, datetime(1700000000 + x * 61, "
    "''unixepoch'') AS ts FROM s', '{\"row_group_size\":4000,\"codec\":"
    "\"SNAPPY\",\"columns\":{\"ts\":{\"type\":\"TIMESTAMP(ms)\"}}}') FROM "
    "(SELECT 1 AS f UNION ALL SELECT 2)";

/* The file of the URL jobs: 16 000 rows in 4 row groups, pages of 500
** rows (a page index), about 2 MB; written once before the run. */
static const char WEB_FILE[] =
    "SELECT parquet_write('@W/web.parquet', 'WITH RECURSIVE s(x) AS "
    "(SELECT 0 UNION ALL SELECT x + 1 FROM s WHERE x < 15999) SELECT x AS "
    "id, x * 7919 % 100003 AS k, ''name'' || (x % 997) AS s, CASE WHEN x % "
    "5 THEN hex(randomblob(64)) END AS h, x * 0.25 AS d FROM s', "
    "'{\"row_group_size\":4000,\"page_values\":500,\"codec\":\"SNAPPY\"}')";

/* ---- Running SQL ------------------------------------------------------- */

static const char *g_ext;  /* the extension's path */
static const char *g_work; /* the folder for files written */
static const char *g_data; /* the folder of files read */
static const char *g_url;  /* the server's base URL, or NULL */
static const char *g_only; /* PQ_THREADS_ONLY: run the jobs it names */

/* 0 when PQ_THREADS_ONLY leaves job j out. */
static int job_on(int j) { return !g_only || strstr(JOBS[j].name, g_only); }

static void die(const char *what, const char *detail) {
  fprintf(stderr, "threads: %s%s%s\n", what, detail ? ": " : "",
          detail ? detail : "");
  exit(2);
}

/* What @D, @W or @U (the character after '@') stands for, or NULL. */
static const char *placeholder(char c, const char *w) {
  if (c == 'D') return g_data;
  if (c == 'W') return w;
  if (c == 'U') return g_url ? g_url : "";
  return NULL;
}

/* sql with @D, @W and @U replaced, each as it goes inside '...' (quotes
** doubled); malloc'ed. */
static char *expand(const char *sql, const char *w) {
  size_t n = strlen(sql) * 2 + 1;
  for (const char *p = sql; *p; p++) {
    const char *v = p[0] == '@' ? placeholder(p[1], w) : NULL;
    if (v) n += 2 * strlen(v);
  }
  char *out = malloc(n), *o = out;
  if (!out) die("out of memory", NULL);
  for (const char *p = sql; *p; p++) {
    const char *v = p[0] == '@' ? placeholder(p[1], w) : NULL;
    if (v) {
      for (const char *s = v; *s; s++) {
        if (*s == '\'') *o++ = '\'';
        *o++ = *s;
      }
      p++;
    } else {
      *o++ = *p;
    }
  }
  *o = 0;
  return out;
}

/* What a job gave: its rows as text, and their hash, which is what is
** compared; the text says where a mismatch begins. */
typedef struct Result {
  uint64_t hash;
  long rows;
  char *text;
  size_t len, cap;
} Result;

/* Appends n bytes to r: the text, and FNV-1a of 64 bits. */
static void hash_bytes(Result *r, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    r->hash ^= b[i];
    r->hash *= 0x100000001b3ULL;
  }
  if (r->len + n + 1 > r->cap) {
    size_t cap = r->cap ? r->cap : 4096;
    while (r->len + n + 1 > cap) cap *= 2;
    r->text = realloc(r->text, cap);
    if (!r->text) die("out of memory", NULL);
    r->cap = cap;
  }
  memcpy(r->text + r->len, p, n);
  r->len += n;
  r->text[r->len] = 0;
}

static void hash_str(Result *r, const char *s) { hash_bytes(r, s, strlen(s)); }

/* Runs the statements of sql on db into r.  An error is part of the
** result: its message is hashed, and the next statement runs.  The error
** and its message are read under the connection's mutex, as another
** thread's statement on a shared connection could replace the message. */
static void run_sql(sqlite3 *db, const char *sql, Result *r) {
  sqlite3_mutex *mu = sqlite3_db_mutex(db);
  free(r->text);
  memset(r, 0, sizeof *r);
  r->hash = 0xcbf29ce484222325ULL;
  const char *tail = sql;
  while (tail && *tail) {
    sqlite3_stmt *st = NULL;
    sqlite3_mutex_enter(mu);
    int rc = sqlite3_prepare_v2(db, tail, -1, &st, &tail);
    if (rc != SQLITE_OK) {
      hash_str(r, "prepare error: ");
      hash_str(r, sqlite3_errmsg(db));
      sqlite3_mutex_leave(mu);
      return;
    }
    sqlite3_mutex_leave(mu);
    if (!st) break; /* only white space was left */
    hash_str(r, "[statement]\n");
    for (;;) {
      sqlite3_mutex_enter(mu);
      rc = sqlite3_step(st);
      if (rc != SQLITE_ROW) {
        if (rc != SQLITE_DONE) {
          hash_str(r, "error: ");
          hash_str(r, sqlite3_errmsg(db));
          hash_str(r, "\n");
        }
        sqlite3_mutex_leave(mu);
        break;
      }
      sqlite3_mutex_leave(mu);
      r->rows++;
      int n = sqlite3_column_count(st);
      for (int i = 0; i < n; i++) {
        const unsigned char *t = sqlite3_column_text(st, i);
        if (i) hash_str(r, "|");
        if (t) {
          hash_bytes(r, t, (size_t)sqlite3_column_bytes(st, i));
        } else {
          hash_str(r, sqlite3_column_type(st, i) == SQLITE_NULL ? "<null>"
                                                                 : "<nomem>");
        }
      }
      hash_str(r, "\n");
    }
    sqlite3_finalize(st);
  }
}

/* A connection with the extension loaded and SETUP made in it. */
static sqlite3 *open_loaded(void) {
  sqlite3 *db;
  char *err = NULL;
  if (sqlite3_open_v2(":memory:", &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                          SQLITE_OPEN_FULLMUTEX,
                      NULL) != SQLITE_OK)
    die("sqlite3_open_v2", sqlite3_errmsg(db));
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
  if (sqlite3_load_extension(db, g_ext, NULL, &err) != SQLITE_OK)
    die("sqlite3_load_extension", err);
  char *sql = expand(SETUP, g_work);
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
    die("making the tables", err);
  free(sql);
  if (g_url) {
    sql = expand(SETUP_URL, g_work);
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
      die("making the table at a URL", err);
    free(sql);
  }
  return db;
}

/* ---- The threads ------------------------------------------------------- */

static Result g_ref[NJOBS];   /* each job's reference */
static sqlite3 *g_shared;     /* the connection all threads share */
static pthread_barrier_t g_go; /* the early loads start together */

static pthread_mutex_t g_out = PTHREAD_MUTEX_INITIALIZER; /* stdout */

typedef struct Worker {
  pthread_t th;
  int id;
  int passed, failed;
  sqlite3 *early; /* the connection loaded before the reference */
} Worker;

/* The line of text that holds byte i, at most 200 bytes of it. */
static void print_line(const char *label, const Result *r, size_t i) {
  size_t b = i, e = i;
  while (b > 0 && r->text[b - 1] != '\n') b--;
  while (e < r->len && r->text[e] != '\n') e++;
  if (e - b > 200) e = b + 200;
  printf("  %s %.*s\n", label, (int)(e - b), r->text + b);
}

/* Runs job j on db as thread w, and compares its result with the
** reference's. */
static void check(Worker *w, int j, sqlite3 *db, const char *kind) {
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/t%d-%s", g_work, w->id, kind);
  char *sql = expand(JOBS[j].sql, prefix);
  Result r = {0};
  run_sql(db, sql, &r);
  free(sql);
  const Result *ref = &g_ref[j];
  if (r.hash == ref->hash && r.rows == ref->rows) {
    w->passed++;
    free(r.text);
    return;
  }
  w->failed++;
  size_t i = 0;
  while (i < r.len && i < ref->len && r.text[i] == ref->text[i]) i++;
  pthread_mutex_lock(&g_out);
  printf("FAILED: %s, on thread %d, its %s connection: %ld rows, %zu bytes; "
         "alone: %ld rows, %zu bytes; from byte %zu:\n",
         JOBS[j].name, w->id, kind, r.rows, r.len, ref->rows, ref->len, i);
  print_line("here: ", &r, i);
  print_line("alone:", ref, i);
  fflush(stdout);
  pthread_mutex_unlock(&g_out);
  free(r.text);
}

static void *early_main(void *arg) {
  Worker *w = arg;
  pthread_barrier_wait(&g_go);
  w->early = open_loaded();
  Result r = {0};
  run_sql(w->early, "SELECT parquet_version()", &r);
  free(r.text);
  return NULL;
}

static void *worker_main(void *arg) {
  Worker *w = arg;
  int odd = w->id % 2;
  sqlite3 *own = odd ? NULL : open_loaded();
  int total = ROUNDS * NJOBS;
  for (int k = 0; k < total; k++) {
    int j = (k + w->id * 5) % NJOBS;
    if (!own && k == 3) own = open_loaded();
    if (k == total / 2) {
      sqlite3_close(own);
      own = open_loaded();
    }
    if (!job_on(j)) continue;
    if (!g_url && (JOBS[j].flags & READS_URL)) continue; /* failed already */
    if (own) check(w, j, own, "own");
    if (!(JOBS[j].flags & OWN_ONLY)) check(w, j, g_shared, "shared");
  }
  sqlite3_close(own);
  return NULL;
}

/* Another SQLite library in the process, as its own table of routines:
** the extension, bound to the library that loaded it first, refuses it
** with an error (before it looks at the connection).  1 when it does. */
static int refuses_other_library(void) {
  void *h = dlopen(g_ext, RTLD_NOW);
  if (!h) die("dlopen", dlerror());
  int (*init)(sqlite3 *, char **, const sqlite3_api_routines *) =
      (int (*)(sqlite3 *, char **, const sqlite3_api_routines *))dlsym(
          h, "sqlite3_parquet_init");
  if (!init) die("dlsym", dlerror());
  sqlite3_api_routines other;
  memset(&other, 0, sizeof other);
  other.mprintf = sqlite3_mprintf;
  char *err = NULL;
  int rc = init(NULL, &err, &other);
  int ok = rc == SQLITE_ERROR && err &&
           strcmp(err, "parquet: already loaded by another SQLite library "
                       "in this process") == 0;
  if (!ok)
    printf("FAILED: a load by another SQLite library: %d, %s\n", rc,
           err ? err : "no message");
  sqlite3_free(err);
  dlclose(h);
  return ok;
}

/* Runs sql (@W: the work folder) on a connection of its own, to write
** the files the jobs read; what fails ends the program. */
static void write_files(const char *sql, const char *what) {
  sqlite3 *db;
  char *err = NULL;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) die("sqlite3_open", NULL);
  sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, NULL);
  if (sqlite3_load_extension(db, g_ext, NULL, &err) != SQLITE_OK)
    die("sqlite3_load_extension", err);
  char *x = expand(sql, g_work);
  if (sqlite3_exec(db, x, NULL, NULL, &err) != SQLITE_OK) die(what, err);
  free(x);
  sqlite3_close(db);
}

/* The file of the URL jobs read through the server as from its folder:
** every value alike, and no error.  1 when so. */
static int url_reads_as_file(void) {
  sqlite3 *db = open_loaded();
  char *a_sql = expand("SELECT file_row_number, value FROM "
                       "parquet_rows('@W/web.parquet')",
                       g_work);
  char *b_sql = expand("SELECT file_row_number, value FROM "
                       "parquet_rows('@U/work/web.parquet')",
                       g_work);
  Result a = {0}, b = {0};
  run_sql(db, a_sql, &a);
  run_sql(db, b_sql, &b);
  int ok = a.rows == 16000 && a.hash == b.hash && a.rows == b.rows &&
           !strstr(b.text, "error: ");
  if (!ok)
    printf("FAILED: web.parquet read through the server: %ld rows, "
           "%.200s\n",
           b.rows, b.text);
  free(a_sql);
  free(b_sql);
  free(a.text);
  free(b.text);
  sqlite3_close(db);
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 5) {
    fprintf(stderr, "usage: threads EXTENSION WORKDIR [DATA [URL]]\n");
    return 2;
  }
  g_ext = argv[1];
  g_work = argv[2];
  g_data = argc > 3 ? argv[3] : "../shared/parquet-testing/data";
  g_url = argc > 4 ? argv[4] : NULL;
  if (g_url && strncmp(g_url, "http://", 7) != 0)
    die("URL is not an http:// URL", g_url);
  int show = getenv("PQ_THREADS_SHOW") != NULL;
  g_only = getenv("PQ_THREADS_ONLY");
  if (!sqlite3_threadsafe()) die("this SQLite is built without threads", NULL);
  int passed = 0, failed = 0;

  /* The files the tables `ahead` and `web` read. */
  write_files(AHEAD_FILES, "writing the files of `ahead`");
  write_files(WEB_FILE, "writing the file of `web`");
  if (!g_url) {
    printf("FAILED: no URL of a server of DATA and WORKDIR given: the jobs "
           "that read URLs fail\n");
    failed++;
  } else if (url_reads_as_file()) {
    passed++;
  } else {
    failed++;
  }

  /* The first loads, on several threads at the same moment. */
  Worker early[NEARLY];
  pthread_barrier_init(&g_go, NULL, NEARLY);
  for (int i = 0; i < NEARLY; i++) {
    memset(&early[i], 0, sizeof early[i]);
    early[i].id = i;
    if (pthread_create(&early[i].th, NULL, early_main, &early[i]))
      die("pthread_create", NULL);
  }
  for (int i = 0; i < NEARLY; i++) pthread_join(early[i].th, NULL);
  pthread_barrier_destroy(&g_go);

  /* The references: each job alone. */
  sqlite3 *db = open_loaded();
  char prefix[4096];
  snprintf(prefix, sizeof prefix, "%s/ref", g_work);
  for (int j = 0; j < NJOBS; j++) {
    if (!job_on(j)) continue;
    if ((JOBS[j].flags & READS_URL) && !g_url) {
      printf("FAILED: %s: no URL\n", JOBS[j].name);
      failed++;
      continue;
    }
    char *sql = expand(JOBS[j].sql, prefix);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    run_sql(db, sql, &g_ref[j]);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    free(sql);
    if (show)
      printf("%s: %ld rows, %.3f s\n%.600s\n", JOBS[j].name, g_ref[j].rows,
             (double)(t1.tv_sec - t0.tv_sec) +
                 (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9,
             g_ref[j].text);
    /* (a server that is not there would give every thread that error) */
    if ((JOBS[j].flags & READS_URL) &&
        (g_ref[j].rows == 0 || strstr(g_ref[j].text, "error: "))) {
      printf("FAILED: %s: alone, %ld rows: %.300s\n", JOBS[j].name,
             g_ref[j].rows, g_ref[j].text);
      failed++;
    }
  }
  sqlite3_close(db);

  /* Then all at once. */
  g_shared = open_loaded();
  Worker w[NTHREADS];
  for (int i = 0; i < NTHREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].id = i;
    if (pthread_create(&w[i].th, NULL, worker_main, &w[i]))
      die("pthread_create", NULL);
  }
  for (int i = 0; i < NTHREADS; i++) {
    pthread_join(w[i].th, NULL);
    passed += w[i].passed;
    failed += w[i].failed;
  }
  if (refuses_other_library()) {
    passed++;
  } else {
    failed++;
  }
  sqlite3_close(g_shared);
  for (int i = 0; i < NEARLY; i++) sqlite3_close(early[i].early);
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
