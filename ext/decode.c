/*
** decode.c -- parquet_decode(blob, encoding [, type [, options
** [, dictionary]]]), a scalar that returns the values as a JSON array.
**
**   SELECT parquet_decode(X'0801080E0302C03F', 'DELTA_BINARY_PACKED');
**   -- [7,5,3,1,2,3,4,5]
**
** The values are decoded in batches and written straight into the JSON
** text; see src/util/json.c for how each type is written.
*/
#include <stdlib.h>

#include "ext.h"

static void decodeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
    return; /* NULL in, NULL out */
  pq_params p;
  pq_codec codec;
  int level;
  char *msg = pqx_stream_params("parquet_decode", argv[1],
                                argc > 2 ? argv[2] : 0, argc > 3 ? argv[3] : 0,
                                &p, &codec, &level);
  if (msg) {
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
    return;
  }
  const uint8_t *buf = sqlite3_value_blob(argv[0]);
  size_t len = (size_t)sqlite3_value_bytes(argv[0]);
  if (!buf) buf = (const uint8_t *)"";
  /* A stream compressed: decompressed first ("codec" in the options). */
  pq_buf plain;
  pq_buf_init(&plain);
  int drc = pqx_decompress_arg("parquet_decode", codec, &buf, &len,
                               pqx_limit(ctx), &plain, &msg);
  if (drc) {
    pqx_result_error_msg(ctx, msg);
    pq_buf_free(&plain);
    return;
  }
  const uint8_t *dict = NULL;
  size_t dict_len = 0;
  if (argc > 4 && sqlite3_value_type(argv[4]) != SQLITE_NULL) {
    dict = sqlite3_value_blob(argv[4]);
    dict_len = (size_t)sqlite3_value_bytes(argv[4]);
    if (!dict) dict = (const uint8_t *)"";
  }
  pq_decoder *d = NULL;
  pq_error err;
  pq_buf out;
  pq_buf_init(&out);
  void *batch = NULL;
  int rc = pq_decoder_open(&d, &p, buf, len, dict, dict_len, &err);
  if (rc == PQ_OK) {
    int is_index;
    int32_t tl;
    pq_type t = pq_decoder_type(d, &is_index, &tl);
    size_t vs = is_index ? sizeof(uint32_t) : pq_value_size(t, tl);
    size_t cap = pqx_batch_values(vs);
    batch = sqlite3_malloc64(cap * vs);
    if (!batch) rc = PQ_NOMEM;
    pq_buf_append(&out, "[", 1);
    int comma = 0;
    /* A few bytes of RLE can announce billions of values: stop at the
    ** limit rather than build what could not be returned. */
    size_t most = pqx_limit(ctx);
    while (rc == PQ_OK && out.len <= most) {
      size_t n;
      rc = pq_decoder_read(d, batch, cap, &n, &err);
      if (rc || n == 0) break;
      if (is_index) {
        pq_json_indices(&out, batch, n, comma);
      } else {
        pq_json_values(&out, t, tl, p.binary, batch, n, comma);
      }
      comma = 1;
      if (out.oom) rc = PQ_NOMEM;
    }
    pq_buf_append(&out, "]", 1);
  }
  sqlite3_free(batch);
  pq_decoder_free(d);
  if (rc == PQ_OK && out.oom) rc = PQ_NOMEM;
  size_t limit = pqx_limit(ctx);
  if (rc == PQ_OK && out.len > limit) {
    msg = sqlite3_mprintf(
        "parquet_decode: %s: the values as JSON exceed the limit of %lld "
        "bytes" PQX_LIMIT_HINT,
        pq_encoding_name(p.encoding), (long long)limit);
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
    sqlite3_free(msg);
  } else if (rc == PQ_NOMEM) {
    sqlite3_result_error_nomem(ctx);
  } else if (rc) {
    msg = pqx_core_error("parquet_decode", rc, &err);
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
  } else {
    sqlite3_result_text64(ctx, (const char *)out.data, out.len, pq_free,
                          SQLITE_UTF8);
    sqlite3_result_subtype(ctx, 74); /* 'J': JSON, for json_each() etc. */
    pq_buf_init(&out);
  }
  pq_buf_free(&out);
  pq_buf_free(&plain);
}

/* parquet_decode(source): a whole file, its rows as JSON objects. */
static void decodeFileFunc(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  (void)argc;
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  /* A path: a file read, which a database's schema must not make happen
  ** (access.c); a BLOB reads none. */
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB &&
      pqx_guard(ctx, "parquet_decode"))
    return;
  pqx_source src;
  char *msg;
  int rc = pqx_source_open(&src, sqlite3_context_db_handle(ctx), argv[0],
                           "parquet_decode", 0, &msg);
  if (rc == SQLITE_OK) {
    pq_buf out;
    pq_error err;
    pq_buf_init(&out);
    rc = pq_file_to_json(src.file, pqx_limit(ctx), &out, &err);
    if (rc == PQ_OK) {
      sqlite3_result_text64(ctx, (const char *)out.data, out.len, pq_free,
                            SQLITE_UTF8);
      sqlite3_result_subtype(ctx, 74);
      pq_buf_init(&out);
    } else if (rc != PQ_NOMEM) {
      msg = pqx_source_error("parquet_decode", src.name, &err);
    }
    pq_buf_free(&out);
  }
  if (msg) {
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
  } else if (rc) {
    sqlite3_result_error_nomem(ctx);
  }
  pqx_source_close(&src);
}

int pqx_register_decode(sqlite3 *db) {
  int flags = PQX_PURE;
#ifdef SQLITE_RESULT_SUBTYPE
  flags |= SQLITE_RESULT_SUBTYPE;
#endif
  /* With one argument it may read a file: not from schema objects. */
  int rc = sqlite3_create_function(
      db, "parquet_decode", 1,
      (flags & ~(SQLITE_INNOCUOUS | SQLITE_DETERMINISTIC)) | SQLITE_DIRECTONLY,
      0, decodeFileFunc, 0, 0);
  for (int n = 2; n <= 5 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function(db, "parquet_decode", n, flags, 0, decodeFunc,
                                 0, 0);
  }
  return rc;
}
