/*
** codec.c -- parquet_compress(blob, codec [, level]) and
** parquet_decompress(blob, codec [, size]), scalars over the codecs of the
** core (src/format/codec.c); and the options "codec" and "level" of the
** stream functions, which compress what they encode and decompress what
** they decode.
**
**   SELECT hex(parquet_compress('hello', 'SNAPPY'));      -- 051068656C6C6F
**   SELECT CAST(parquet_decompress(X'051068656C6C6F', 'SNAPPY') AS TEXT);
**   -- hello
**
** `size` is the size the result must have (a page header's
** uncompressed_page_size), NULL when unknown.  Either way the result stops
** at SQLite's length limit.  TEXT is compressed as its UTF-8 bytes; the
** result is always a BLOB.
*/
#include <stdlib.h>

#include "ext.h"

/* Reads the codec argument v into *c.  On failure sets the error of ctx,
** prefixed with fn, and returns 1. */
static int codecArg(sqlite3_context *ctx, const char *fn, sqlite3_value *v,
                    pq_codec *c) {
  char *msg;
  if (sqlite3_value_type(v) == SQLITE_NULL) {
    msg = sqlite3_mprintf("%s: the codec is NULL", fn);
  } else {
    const char *s = (const char *)sqlite3_value_text(v);
    int n = sqlite3_value_bytes(v);
    if (s && pq_codec_parse(s, (size_t)n, c) == PQ_OK) return 0;
    msg = sqlite3_mprintf(
        "%s: unknown codec '%s' (UNCOMPRESSED, SNAPPY, GZIP, BROTLI, LZ4, "
        "ZSTD, LZ4_RAW)",
        fn, s ? s : "");
  }
  pqx_result_error_msg(ctx, msg);
  return 1;
}

/* Sets the result of ctx from a finished core call: the bytes of out as a
** BLOB (taking its memory), or the error, prefixed with fn. */
static void codecResult(sqlite3_context *ctx, const char *fn, int rc,
                        pq_buf *out, const pq_error *err) {
  if (rc == PQ_OK && out->oom) rc = PQ_NOMEM;
  char *msg = rc ? pqx_core_error(fn, rc, err) : NULL;
  if (rc && !msg) {
    sqlite3_result_error_nomem(ctx);
  } else if (rc) {
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
  } else if (out->len == 0) {
    sqlite3_result_zeroblob(ctx, 0);
  } else {
    sqlite3_result_blob64(ctx, out->data, out->len, pq_free);
    pq_buf_init(out);
  }
  pq_buf_free(out);
}

/* parquet_compress(blob, codec [, level]): the BLOB compressed, at the
** codec's level (NULL: its default). */
static void compressFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return; /* NULL: NULL */
  pq_codec c;
  if (codecArg(ctx, "parquet_compress", argv[1], &c)) return;
  int level = PQ_LEVEL_DEFAULT;
  if (argc > 2 && sqlite3_value_type(argv[2]) != SQLITE_NULL) {
    sqlite3_int64 l = sqlite3_value_int64(argv[2]);
    if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER || l < -1000000 ||
        l > 1000000) {
      sqlite3_result_error(ctx,
                           "parquet_compress: the level must be NULL or an "
                           "INTEGER",
                           -1);
      return;
    }
    level = (int)l;
  }
  const uint8_t *src = sqlite3_value_blob(argv[0]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  pq_buf out;
  pq_buf_init(&out);
  pq_error err;
  int rc = pq_compress_level(c, level, src, n, &out, &err);
  if (rc == PQ_OK && out.len > pqx_limit(ctx)) {
    char *msg = sqlite3_mprintf("parquet_compress: %s: the result of %llu "
                                "bytes exceeds the limit of %llu bytes"
                                PQX_LIMIT_HINT,
                                pq_codec_name(c), (unsigned long long)out.len,
                                (unsigned long long)pqx_limit(ctx));
    pqx_result_error_msg(ctx, msg);
    if (msg) sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
    pq_buf_free(&out);
    return;
  }
  codecResult(ctx, "parquet_compress", rc, &out, &err);
}

char *pqx_stream_params(const char *fn, sqlite3_value *enc,
                        sqlite3_value *type, sqlite3_value *opts,
                        pq_params *p, pq_codec *codec, int *level) {
  *codec = PQ_UNCOMPRESSED;
  *level = PQ_LEVEL_DEFAULT;
  char *msg = pqx_params(fn, enc, type, NULL, p);
  if (msg || !opts || sqlite3_value_type(opts) == SQLITE_NULL) return msg;
  const char *s = (const char *)sqlite3_value_text(opts);
  int n = sqlite3_value_bytes(opts);
  pq_error err;
  if (s && pq_stream_options_parse(p, codec, level, s, (size_t)n, &err)) {
    return sqlite3_mprintf("%s: %s", fn, err.msg);
  }
  return NULL;
}

int pqx_decompress_arg(const char *fn, pq_codec c, const uint8_t **blob,
                       size_t *len, size_t limit, pq_buf *plain, char **msg) {
  *msg = NULL;
  if (c == PQ_UNCOMPRESSED) return SQLITE_OK;
  pq_error err;
  int rc = pq_decompress(c, *blob, *len, -1, limit, plain, &err);
  if (rc == PQ_OK && plain->oom) rc = PQ_NOMEM;
  if (rc == PQ_NOMEM) return SQLITE_NOMEM;
  if (rc) {
    *msg = pqx_core_error(fn, rc, &err);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  *blob = plain->data ? plain->data : (const uint8_t *)"";
  *len = plain->len;
  return SQLITE_OK;
}

/* parquet_decompress(blob, codec [, size]): the BLOB decompressed, of
** exactly `size` bytes when it is given. */
static void decompressFunc(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return; /* NULL: NULL */
  pq_codec c;
  if (codecArg(ctx, "parquet_decompress", argv[1], &c)) return;
  int64_t expected = -1;
  if (argc > 2 && sqlite3_value_type(argv[2]) != SQLITE_NULL) {
    if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER ||
        sqlite3_value_int64(argv[2]) < 0) {
      sqlite3_result_error(ctx,
                           "parquet_decompress: the size must be NULL or an "
                           "INTEGER of 0 or more",
                           -1);
      return;
    }
    expected = sqlite3_value_int64(argv[2]);
  }
  const uint8_t *src = sqlite3_value_blob(argv[0]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  size_t limit = pqx_limit(ctx);
  pq_buf out;
  pq_buf_init(&out);
  pq_error err;
  int rc = pq_decompress(c, src, n, expected, limit, &out, &err);
  codecResult(ctx, "parquet_decompress", rc, &out, &err);
}

int pqx_register_codec(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (int n = 2; n <= 3 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function(db, "parquet_compress", n, PQX_PURE, 0,
                                 compressFunc, 0, 0);
  }
  for (int n = 2; n <= 3 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function(db, "parquet_decompress", n, PQX_PURE, 0,
                                 decompressFunc, 0, 0);
  }
  return rc;
}
