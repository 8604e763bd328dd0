/*
** variant.c -- the Variant Binary Encoding (spec/VariantEncoding.md) as
** scalar functions over the core (src/reader/variant.c,
** src/encodings/variant_build.c):
**
**   parquet_variant_decode(metadata, value)   the variant as JSON text
**   parquet_variant_decode(variant)           the same from metadata || value
**   parquet_variant_encode(json [, part])     JSON text as a variant:
**                                             metadata || value, or a part
**
**   SELECT parquet_variant_decode(X'010100', X'0C2A');        -- 42
**
** A metadata is self-delimiting (its last offset gives its end), so one
** BLOB may hold a whole variant, as the files of shredded_variant/ in
** parquet-testing do.  NULL gives NULL; bytes that are not a variant give
** an error that says what and at which offset.
*/
#include "ext.h"

static void variantDecodeFunc(sqlite3_context *ctx, int argc,
                              sqlite3_value **argv) {
  static const char fn[] = "parquet_variant_decode";
  for (int i = 0; i < argc; i++) {
    if (sqlite3_value_type(argv[i]) == SQLITE_NULL) return;
  }
  const uint8_t *mp = sqlite3_value_blob(argv[0]);
  size_t mn = (size_t)sqlite3_value_bytes(argv[0]);
  pq_variant_meta m;
  pq_error err;
  int rc = pq_variant_meta_open(&m, mp ? mp : (const uint8_t *)"", mn, &err);
  const uint8_t *v = NULL;
  size_t n = 0;
  if (!rc && argc == 2) {
    if (m.n != mn) {
      char *msg = sqlite3_mprintf("%s: VARIANT: the metadata is %llu bytes "
                                  "and %llu more follow it",
                                  fn, (unsigned long long)m.n,
                                  (unsigned long long)(mn - m.n));
      pqx_result_error_msg(ctx, msg);
      return;
    }
    v = sqlite3_value_blob(argv[1]);
    n = (size_t)sqlite3_value_bytes(argv[1]);
  } else if (!rc) {
    v = mp + m.n;
    n = mn - m.n;
  }
  pq_buf out;
  pq_buf_init(&out);
  char *msg = NULL;
  if (!rc) {
    size_t size;
    rc = pq_variant_value_size(v ? v : (const uint8_t *)"", n, &size, &err);
    if (!rc && size != n) {
      msg = sqlite3_mprintf("%s: VARIANT: value: %llu bytes follow the "
                            "value's %llu",
                            fn, (unsigned long long)(n - size),
                            (unsigned long long)size);
      pqx_result_error_msg(ctx, msg);
      return;
    }
  }
  if (!rc) rc = pq_variant_to_json(&m, v, n, 0, &out, &err);
  if (!rc && out.len > pqx_limit(ctx)) {
    msg = sqlite3_mprintf("%s: VARIANT: the JSON of %llu bytes exceeds the "
                          "limit of %llu bytes" PQX_LIMIT_HINT,
                          fn, (unsigned long long)out.len,
                          (unsigned long long)pqx_limit(ctx));
    pq_buf_free(&out);
    pqx_result_error_msg(ctx, msg);
    if (msg) sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
    return;
  }
  if (rc) {
    pq_buf_free(&out);
    msg = pqx_core_error(fn, rc, &err);
    if (!msg) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    pqx_result_error_msg(ctx, msg);
    return;
  }
  sqlite3_result_text64(ctx, out.len ? (const char *)out.data : "", out.len,
                        out.len ? pq_free : SQLITE_TRANSIENT, SQLITE_UTF8);
}

/* parquet_variant_encode(json [, part]): JSON text as a variant, its
** metadata then its value in one BLOB, or the part named: 'metadata' or
** 'value'. */
static void variantEncodeFunc(sqlite3_context *ctx, int argc,
                              sqlite3_value **argv) {
  static const char fn[] = "parquet_variant_encode";
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
  int part = 0; /* 0 both, 1 metadata, 2 value */
  if (argc > 1 && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    const char *p = (const char *)sqlite3_value_text(argv[1]);
    if (p && sqlite3_stricmp(p, "metadata") == 0) {
      part = 1;
    } else if (p && sqlite3_stricmp(p, "value") == 0) {
      part = 2;
    } else {
      char *msg = sqlite3_mprintf("%s: the part must be 'metadata', 'value' "
                                  "or NULL, not '%s'",
                                  fn, p ? p : "");
      pqx_result_error_msg(ctx, msg);
      return;
    }
  }
  const char *json = (const char *)sqlite3_value_text(argv[0]);
  size_t n = (size_t)sqlite3_value_bytes(argv[0]);
  if (!json) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  pq_buf meta, value;
  pq_buf_init(&meta);
  pq_buf_init(&value);
  pq_error err;
  int rc = pq_variant_from_json(json, n, &meta, &value, &err);
  pq_buf *out = &meta;
  if (!rc && part == 2) {
    out = &value;
  } else if (!rc && part == 0) {
    pq_buf_append(&meta, value.data, value.len);
    if (meta.oom) rc = PQ_NOMEM;
  }
  if (!rc && out->len > pqx_limit(ctx)) {
    char *msg = sqlite3_mprintf("%s: VARIANT: the result of %llu bytes "
                                "exceeds the limit of %llu bytes"
                                PQX_LIMIT_HINT,
                                fn, (unsigned long long)out->len,
                                (unsigned long long)pqx_limit(ctx));
    pq_buf_free(&meta);
    pq_buf_free(&value);
    pqx_result_error_msg(ctx, msg);
    if (msg) sqlite3_result_error_code(ctx, SQLITE_TOOBIG);
    return;
  }
  if (rc) {
    pq_buf_free(&meta);
    pq_buf_free(&value);
    char *msg = rc == PQ_NOMEM ? NULL : pqx_core_error(fn, rc, &err);
    if (!msg) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    pqx_result_error_msg(ctx, msg);
    return;
  }
  sqlite3_result_blob64(ctx, out->data, out->len, pq_free);
  pq_buf_init(out);
  pq_buf_free(&meta);
  pq_buf_free(&value);
}

int pqx_register_variant(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (int n = 1; n <= 2 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function(db, "parquet_variant_encode", n, PQX_PURE,
                                 0, variantEncodeFunc, 0, 0);
  }
  for (int n = 1; n <= 2 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function(db, "parquet_variant_decode", n, PQX_PURE,
                                 0, variantDecodeFunc, 0, 0);
  }
  return rc;
}
