/*
** encode.c -- the aggregates that encode:
**
** parquet_encode(value, encoding [, type [, options]]) returns the encoded
** stream as a BLOB, and parquet_file(value, encoding [, type [, options]])
** a Parquet file of one column holding the values, NULLs included.
**
**   SELECT hex(parquet_encode(v, 'DELTA_BINARY_PACKED'))
**     FROM (VALUES (7),(5),(3),(1),(2),(3),(4),(5));
**
** Values are encoded as rows arrive: the state is the encoder, which keeps
** only what the encoded output needs.  NULLs are skipped (a raw stream has
** no place for them).  Without a type, the first non-NULL value decides:
** INTEGER -> INT64, REAL -> DOUBLE, TEXT or BLOB -> BYTE_ARRAY; RLE and
** BIT_PACKED encode unsigned levels and indices (INT32).
*/
#include <stdlib.h>
#include <string.h>

#include "ext.h"

#define ENC_BATCH 256 /* divides 4096, where the size limit is looked at */

typedef struct EncodeState {
  pq_encoder *enc; /* opened at the first non-NULL value */
  pq_params p;     /* from the first row's arguments */
  pq_codec codec;  /* the options' "codec": the stream is compressed */
  int level;       /* at the options' "level" */
  int ready;       /* p has been read */
  int failed;      /* an error was reported */
  int is_unsigned; /* INT32 values are levels/indices: 0..2^32-1 */
  uint64_t n;      /* values taken (put, or waiting in batch) */
  size_t width;    /* bytes a value waits in batch with; 0: put at once */
  /* Values of a fixed width of at most 8 bytes wait here and go to the
  ** encoder ENC_BATCH at a time: one call for many rows.  (A BYTE_ARRAY
  ** or FIXED_LEN_BYTE_ARRAY value points into its row's SQL value, which
  ** the next row replaces: those are put at once.) */
  size_t pending;
  uint8_t batch[ENC_BATCH * 8];
} EncodeState;

static const char *const sql_type_names[] = {"?",    "INTEGER", "REAL",
                                             "TEXT", "BLOB",    "NULL"};

/* Reports an error once and marks the state. */
static void encFail(sqlite3_context *ctx, EncodeState *s, char *msg) {
  s->failed = 1;
  pqx_result_error_msg(ctx, msg);
}

/* Where a value is, for messages: the function, the encoding, its index. */
typedef struct ValueAt {
  const char *fn;
  const pq_params *p;
  int is_unsigned; /* INT32 values are levels/indices: 0..2^32-1 */
  uint64_t n;
} ValueAt;

static char *wrongType(const ValueAt *at, sqlite3_value *v, const char *want) {
  return sqlite3_mprintf("%s: %s: value %llu: %s expects %s, got %s", at->fn,
                         pq_encoding_name(at->p->encoding),
                         (unsigned long long)at->n, pq_type_name(at->p->type),
                         want, sql_type_names[sqlite3_value_type(v)]);
}

/* Converts v to the encoder's input layout: a number into slot, bytes
** into *b or *fixed.  Returns an error message or NULL. */
static char *encConvert(const ValueAt *s, sqlite3_value *v, uint8_t *slot,
                        pq_bytes *b, const uint8_t **fixed) {
  int vt = sqlite3_value_type(v);
  switch (s->p->type) {
    case PQ_BOOLEAN:
      if (vt != SQLITE_INTEGER) return wrongType(s, v, "an INTEGER");
      slot[0] = sqlite3_value_int64(v) != 0;
      return NULL;
    case PQ_INT32: {
      if (vt != SQLITE_INTEGER) return wrongType(s, v, "an INTEGER");
      sqlite3_int64 x = sqlite3_value_int64(v);
      if (s->is_unsigned ? (x < 0 || x > 4294967295LL)
                         : (x < INT32_MIN || x > INT32_MAX)) {
        return sqlite3_mprintf(
            "%s: %s: value %llu: %lld is out of range for %s", s->fn,
            pq_encoding_name(s->p->encoding), (unsigned long long)s->n, x,
            s->is_unsigned ? "levels and indices (0 to 4294967295)" : "INT32");
      }
      uint32_t u = (uint32_t)x;
      memcpy(slot, &u, 4);
      return NULL;
    }
    case PQ_INT64: {
      if (vt != SQLITE_INTEGER) return wrongType(s, v, "an INTEGER");
      int64_t x = sqlite3_value_int64(v);
      memcpy(slot, &x, 8);
      return NULL;
    }
    case PQ_FLOAT:
    case PQ_DOUBLE: {
      size_t w = s->p->type == PQ_FLOAT ? 4 : 8;
      if (vt == SQLITE_BLOB) {
        /* The value's bits, little endian, as PLAIN stores it: the way to
        ** pass a NaN (with its payload), which SQL turns into NULL. */
        if ((size_t)sqlite3_value_bytes(v) != w) {
          return sqlite3_mprintf(
              "%s: %s: value %llu is a BLOB of %d byte%s; as the bits of a "
              "%s it must have %d",
              s->fn, pq_encoding_name(s->p->encoding),
              (unsigned long long)s->n, sqlite3_value_bytes(v),
              sqlite3_value_bytes(v) == 1 ? "" : "s",
              pq_type_name(s->p->type), (int)w);
        }
        memcpy(slot, sqlite3_value_blob(v), w);
        return NULL;
      }
      if (vt != SQLITE_INTEGER && vt != SQLITE_FLOAT) {
        return wrongType(s, v, "a REAL, an INTEGER or a BLOB of its bits");
      }
      double d = vt == SQLITE_FLOAT ? sqlite3_value_double(v)
                                    : (double)sqlite3_value_int64(v);
      if (s->p->type == PQ_FLOAT) {
        float f = (float)d;
        memcpy(slot, &f, 4);
      } else {
        memcpy(slot, &d, 8);
      }
      return NULL;
    }
    case PQ_BYTE_ARRAY:
      if (vt == SQLITE_TEXT) {
        b->ptr = sqlite3_value_text(v);
      } else if (vt == SQLITE_BLOB) {
        b->ptr = sqlite3_value_blob(v);
      } else {
        return wrongType(s, v, "TEXT or a BLOB");
      }
      b->len = (size_t)sqlite3_value_bytes(v);
      if (!b->ptr) b->ptr = (const uint8_t *)"";
      return NULL;
    default: { /* INT96, FIXED_LEN_BYTE_ARRAY(n): exactly n bytes */
      size_t w = pq_value_size(s->p->type, s->p->type_length);
      const void *p = NULL;
      if (vt == SQLITE_BLOB) {
        p = sqlite3_value_blob(v);
      } else if (vt == SQLITE_TEXT && s->p->type != PQ_INT96) {
        p = sqlite3_value_text(v);
      } else {
        return wrongType(s, v,
                         s->p->type == PQ_INT96 ? "a BLOB" : "a BLOB or TEXT");
      }
      size_t n = (size_t)sqlite3_value_bytes(v);
      if (n != w) {
        /* (SQLite's printf has no %zu.) */
        return sqlite3_mprintf(
            "%s: %s: value %llu is %lld bytes, %s needs %lld", s->fn,
            pq_encoding_name(s->p->encoding), (unsigned long long)s->n,
            (long long)n,
            s->p->type == PQ_INT96 ? "INT96" : "FIXED_LEN_BYTE_ARRAY",
            (long long)w);
      }
      *fixed = p ? p : (const uint8_t *)"";
      return NULL;
    }
  }
}

/* Opens the encoder, inferring the type from v when none was given. */
/* The type a value implies when none was given: INTEGER -> INT64, REAL ->
** DOUBLE, TEXT or BLOB -> BYTE_ARRAY. */
static void inferType(pq_params *p, sqlite3_value *v) {
  if (p->type_set || !v) return;
  int vt = sqlite3_value_type(v);
  p->type_set = 1;
  p->type = vt == SQLITE_INTEGER ? PQ_INT64
            : vt == SQLITE_FLOAT ? PQ_DOUBLE
                                 : PQ_BYTE_ARRAY;
}

/* The width of a value that waits in the batch; 0 for those put at once. */
static size_t encBatchWidth(const pq_params *p) {
  switch (p->type) {
    case PQ_BOOLEAN:
    case PQ_INT32:
    case PQ_INT64:
    case PQ_FLOAT:
    case PQ_DOUBLE: return pq_value_size(p->type, 0);
    default: return 0;
  }
}

static char *encOpen(sqlite3_context *ctx, EncodeState *s, sqlite3_value *v) {
  pq_encoding e = s->p.encoding;
  if (!s->p.type_set && v && (e == PQ_RLE || e == PQ_BIT_PACKED)) {
    s->p.type_set = 1;
    s->p.type = PQ_INT32;
  }
  inferType(&s->p, v);
  s->is_unsigned = s->p.type == PQ_INT32 && (e == PQ_RLE || e == PQ_BIT_PACKED);
  s->width = encBatchWidth(&s->p);
  pq_error err;
  int rc = pq_encoder_open(&s->enc, &s->p, &err);
  if (rc) return pqx_core_error("parquet_encode", rc, &err);
  pqx_spare_give(sqlite3_context_db_handle(ctx), s->enc);
  return NULL;
}

/* Puts the values waiting in the batch; 1 when that failed (reported). */
static int encFlush(sqlite3_context *ctx, EncodeState *s) {
  if (!s->pending) return 0;
  pq_error err;
  int rc = pq_encoder_put(s->enc, s->batch, s->pending, &err);
  s->pending = 0;
  if (!rc) return 0;
  encFail(ctx, s, pqx_core_error("parquet_encode", rc, &err));
  return 1;
}

static void encStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  EncodeState *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (s->failed) return;
  if (!s->ready) {
    char *msg = pqx_stream_params("parquet_encode", argv[1],
                                  argc > 2 ? argv[2] : 0,
                                  argc > 3 ? argv[3] : 0, &s->p, &s->codec,
                                  &s->level);
    pq_error err;
    if (!msg && pq_codec_level_check(s->codec, s->level, &err)) {
      msg = pqx_core_error("parquet_encode", PQ_MISUSE, &err);
      if (!msg) {
        sqlite3_result_error_nomem(ctx);
        s->failed = 1;
        return;
      }
    }
    if (msg) {
      encFail(ctx, s, msg);
      return;
    }
    s->ready = 1;
  }
  sqlite3_value *v = argv[0];
  if (sqlite3_value_type(v) == SQLITE_NULL) return;
  if (!s->enc) {
    char *msg = encOpen(ctx, s, v);
    if (msg || !s->enc) {
      encFail(ctx, s, msg);
      return;
    }
  }
  uint8_t slot[16];
  pq_bytes b;
  const uint8_t *fixed = NULL;
  ValueAt at = {"parquet_encode", &s->p, s->is_unsigned, s->n};
  size_t vs = s->width;
  uint8_t *to = vs ? s->batch + s->pending * vs : slot;
  char *msg = encConvert(&at, v, to, &b, &fixed);
  if (msg) {
    /* The values before it come first: one of them may fail the encoder. */
    if (encFlush(ctx, s)) {
      sqlite3_free(msg);
      return;
    }
    encFail(ctx, s, msg);
    return;
  }
  s->n++;
  if (vs) {
    if (++s->pending == ENC_BATCH && encFlush(ctx, s)) return;
  } else {
    const void *val = fixed                        ? (const void *)fixed
                      : s->p.type == PQ_BYTE_ARRAY ? (const void *)&b
                                                   : (const void *)slot;
    pq_error err;
    int rc = pq_encoder_put(s->enc, val, 1, &err);
    if (rc) {
      encFail(ctx, s, pqx_core_error("parquet_encode", rc, &err));
      return;
    }
  }
  /* The stream may not outgrow the limit: looked at every 4096 values. */
  if (s->n % 4096 == 0 && pq_encoder_size(s->enc) > pqx_limit(ctx)) {
    encFail(ctx, s,
            sqlite3_mprintf("parquet_encode: %s: the stream would exceed the "
                            "limit of %lld bytes" PQX_LIMIT_HINT,
                            pq_encoding_name(s->p.encoding),
                            (long long)pqx_limit(ctx)));
  }
}

static void encFinal(sqlite3_context *ctx) {
  EncodeState *s = sqlite3_aggregate_context(ctx, 0);
  if (!s) return; /* no rows: NULL */
  if (!s->failed && s->ready && s->enc) encFlush(ctx, s); /* fails: reported */
  if (!s->failed && s->ready) {
    char *msg = s->enc ? NULL : encOpen(ctx, s, NULL);
    pq_buf out, dict;
    pq_buf_init(&out);
    pq_buf_init(&dict);
    pq_error err;
    int rc = PQ_OK;
    if (!msg && s->enc) {
      rc = pq_encoder_finish(s->enc, &out, &dict, &err);
      if (rc) msg = pqx_core_error("parquet_encode", rc, &err);
    }
    if (msg) {
      sqlite3_result_error(ctx, msg, -1);
      sqlite3_free(msg);
    } else if (rc || !s->enc) {
      sqlite3_result_error_nomem(ctx);
    } else {
      int is_dict = s->p.encoding == PQ_PLAIN_DICTIONARY ||
                    s->p.encoding == PQ_RLE_DICTIONARY;
      pq_buf *r = s->p.dictionary_part ? &dict : &out;
      pq_buf z;
      pq_buf_init(&z);
      if (s->codec != PQ_UNCOMPRESSED && !(s->p.dictionary_part && !is_dict)) {
        /* The stream compressed ("codec" in the options). */
        rc = pq_compress_level(s->codec, s->level, r->data, r->len, &z, &err);
        if (rc == PQ_OK && z.len > pqx_limit(ctx)) {
          msg = sqlite3_mprintf("parquet_encode: %s: the stream compressed "
                                "would exceed the limit of %lld bytes"
                                PQX_LIMIT_HINT,
                                pq_codec_name(s->codec),
                                (long long)pqx_limit(ctx));
          rc = msg ? PQ_TOOBIG : PQ_NOMEM;
        } else if (rc) {
          msg = pqx_core_error("parquet_encode", rc, &err);
        }
        pq_buf_free(r);
        *r = z;
      }
      if (rc) {
        pqx_result_error_msg(ctx, msg);
      } else if (s->p.dictionary_part && !is_dict) {
        sqlite3_result_null(ctx); /* no dictionary: sizes add up */
      } else if (r->len == 0) {
        sqlite3_result_zeroblob(ctx, 0);
      } else {
        pqx_result_spare(ctx, r);
      }
    }
    pq_buf_free(&out);
    pq_buf_free(&dict);
  }
  pq_encoder_free(s->enc);
  s->enc = NULL;
}

/* ---- parquet_file ---------------------------------------------------------
** The writer is opened at the first non-NULL value (which may decide the
** type); NULLs before it are counted and written then. */

typedef struct FileState {
  pq_writer *w;
  pq_params p;
  pq_write_options o;
  int ready, failed;
  int saw_blob;     /* a BYTE_ARRAY value came as a BLOB */
  uint64_t n;       /* rows */
  uint64_t nulls;   /* leading NULLs not yet written */
} FileState;

static char *fileWriterOpen(FileState *s, sqlite3_value *v) {
  if (!s->p.type_set && s->p.encoding == PQ_RLE) {
    s->p.type_set = 1;
    s->p.type = PQ_BOOLEAN;
  }
  inferType(&s->p, v);
  pq_error err;
  int rc = pq_writer_open(&s->w, &s->p, &s->o, &err);
  if (rc) return pqx_core_error("parquet_file", rc, &err);
  static const uint8_t absent[256];
  while (s->nulls > 0 && rc == PQ_OK) {
    size_t k = s->nulls < sizeof absent ? (size_t)s->nulls : sizeof absent;
    rc = pq_writer_put(s->w, NULL, absent, k, &err);
    s->nulls -= k;
  }
  return rc ? pqx_core_error("parquet_file", rc, &err) : NULL;
}

static void fileStep(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  FileState *s = sqlite3_aggregate_context(ctx, sizeof *s);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  if (s->failed) return;
  char *msg = NULL;
  if (!s->ready) {
    msg = pqx_params("parquet_file", argv[1], argc > 2 ? argv[2] : 0, 0,
                     &s->p);
    pq_write_options_init(&s->o);
    if (!msg && argc > 3 && sqlite3_value_type(argv[3]) != SQLITE_NULL) {
      pq_error err;
      const char *j = (const char *)sqlite3_value_text(argv[3]);
      int n = sqlite3_value_bytes(argv[3]);
      if (j && pq_write_options_parse(&s->o, &s->p, j, (size_t)n, &err))
        msg = sqlite3_mprintf("parquet_file: %s", err.msg);
    }
    if (msg) {
      s->failed = 1;
      sqlite3_result_error(ctx, msg, -1);
      sqlite3_free(msg);
      return;
    }
    s->ready = 1;
  }
  sqlite3_value *v = argv[0];
  int is_null = sqlite3_value_type(v) == SQLITE_NULL;
  if (!s->w && is_null) {
    s->nulls++;
    s->n++;
    return;
  }
  if (!s->w) msg = fileWriterOpen(s, v);
  int rc = PQ_OK;
  pq_error err;
  if (!msg && s->w) {
    if (is_null) {
      static const uint8_t absent = 0;
      rc = pq_writer_put(s->w, NULL, &absent, 1, &err);
    } else {
      uint8_t slot[16];
      pq_bytes b;
      const uint8_t *fixed = NULL;
      ValueAt at = {"parquet_file", &s->p, 0, s->n};
      msg = encConvert(&at, v, slot, &b, &fixed);
      if (!msg) {
        if (sqlite3_value_type(v) == SQLITE_BLOB) s->saw_blob = 1;
        const void *val = fixed                        ? (const void *)fixed
                          : s->p.type == PQ_BYTE_ARRAY ? (const void *)&b
                                                       : (const void *)slot;
        rc = pq_writer_put(s->w, val, NULL, 1, &err);
      }
    }
    if (rc) msg = pqx_core_error("parquet_file", rc, &err);
  }
  if (msg || rc || !s->w) {
    s->failed = 1;
    pqx_result_error_msg(ctx, msg);
    return;
  }
  s->n++;
}

static void fileFinal(sqlite3_context *ctx) {
  FileState *s = sqlite3_aggregate_context(ctx, 0);
  if (!s) return; /* no rows: NULL */
  if (!s->failed && s->ready) {
    char *msg = s->w ? NULL : fileWriterOpen(s, NULL);
    pq_buf out;
    pq_buf_init(&out);
    pq_error err;
    int rc = PQ_OK;
    if (!msg && s->w) {
      pq_writer_set_string(s->w, !s->saw_blob);
      rc = pq_writer_finish(s->w, &out, &err);
      if (rc) msg = pqx_core_error("parquet_file", rc, &err);
    }
    if (!msg && !rc && s->w && out.len > pqx_limit(ctx)) {
      msg = sqlite3_mprintf(
          "parquet_file: the file would be %lld bytes, more than the limit "
          "of %lld" PQX_LIMIT_HINT,
          (long long)out.len, (long long)pqx_limit(ctx));
    }
    if (msg) {
      sqlite3_result_error(ctx, msg, -1);
      sqlite3_free(msg);
    } else if (rc || !s->w) {
      sqlite3_result_error_nomem(ctx);
    } else {
      sqlite3_result_blob64(ctx, out.data, out.len, pq_free);
      pq_buf_init(&out);
    }
    pq_buf_free(&out);
  }
  pq_writer_free(s->w);
  s->w = NULL;
}

int pqx_register_encode(sqlite3 *db) {
  int rc = SQLITE_OK;
  for (int n = 2; n <= 4 && rc == SQLITE_OK; n++) {
    rc = sqlite3_create_function(db, "parquet_encode", n, PQX_PURE, 0, 0,
                                 encStep, encFinal);
    if (rc == SQLITE_OK)
      rc = sqlite3_create_function(db, "parquet_file", n, PQX_PURE, 0, 0,
                                   fileStep, fileFinal);
  }
  return rc;
}
