/*
** variant.c -- the Variant Binary Encoding (spec/VariantEncoding.md) as
** scalar functions over the core (src/reader/variant.c):
**
**   parquet_variant_decode(metadata, value)   the variant as JSON text
**   parquet_variant_decode(variant)           the same from metadata || value
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

int pqx_register_variant(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (int n = 1; n <= 2 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function(db, "parquet_variant_decode", n, PQX_PURE,
                                 0, variantDecodeFunc, 0, 0);
  }
  return rc;
}
