/*
** explain.c -- parquet_explain, a table-valued function: one row per
** field of an encoded stream, in byte order.
**
**   SELECT path, hex, value, note
**     FROM parquet_explain(X'0801080E0302C03F', 'DELTA_BINARY_PACKED');
**   SELECT bits, labels FROM parquet_explain(X'0388C6FA', 'RLE', 'INT32',
**                                            '{"bit_width":3}')
**    WHERE path = 'run[0].bit_packed';
**   -- 10001000 11000110 11111010 | HIDEFABC RMNOJKLG VWXSTUPQ
**
** How it works: the table has the schema
**
**   CREATE TABLE x(offset, length, hex, bits, labels, path, value, note,
**                  blob HIDDEN, encoding HIDDEN, type HIDDEN,
**                  options HIDDEN, dictionary HIDDEN);
**
** The core's explainer (src/explain/explain.c) yields one row at a time, so a
** stream of any length is explained in constant memory.  A malformed
** stream is explained up to its fault; the last row, with path 'error',
** says what is wrong.
**
** The encoding 'VARIANT' explains a variant's bytes, `metadata || value`
** or either alone (src/explain/explain_variant.c):
**
**   SELECT path, value FROM parquet_explain(X'0100000c2a', 'VARIANT');
**
** The encoding 'FILE' explains a whole file image (a BLOB: the function
** never reads the file system), 'PAGE' one page as stored (header and
** body), with the column's type as the third argument and {"max_def",
** "max_rep", "codec"} as options (src/explain/explain_file.c).
**
**   SELECT path, value FROM parquet_explain(readfile('t.parquet'), 'FILE')
**    WHERE path LIKE 'footer.%.codec';
*/
#include <string.h>

#include "ext.h"

enum {
  EXPLAIN_COL_OFFSET,
  EXPLAIN_COL_LENGTH,
  EXPLAIN_COL_HEX,
  EXPLAIN_COL_BITS,
  EXPLAIN_COL_LABELS,
  EXPLAIN_COL_PATH,
  EXPLAIN_COL_VALUE,
  EXPLAIN_COL_NOTE,
  EXPLAIN_COL_BLOB
};

typedef struct ExplainCursor {
  sqlite3_vtab_cursor base;
  pq_explainer *x;
  pqx_args args; /* the arguments */
  pq_field f;    /* the current row */
  sqlite3_int64 row;
  int eof;
} ExplainCursor;

#define EXPLAIN_SCHEMA                                                   \
  "CREATE TABLE x(offset INTEGER, length INTEGER, hex TEXT, bits TEXT, " \
  "labels TEXT, path TEXT, value, note TEXT, blob HIDDEN, "              \
  "encoding HIDDEN, type HIDDEN, options HIDDEN, dictionary HIDDEN)"

static const pqx_vtab_spec explain_spec = {EXPLAIN_SCHEMA, 0};

static int explainOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  ExplainCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}

static void explainReset(ExplainCursor *c) {
  pq_explainer_free(c->x);
  c->x = NULL;
  pqx_args_free(&c->args);
  c->eof = 1;
}

static int explainClose(sqlite3_vtab_cursor *cur) {
  explainReset((ExplainCursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

/* The explainer's next row; an allocation failure is SQLITE_NOMEM, not
** its fault row. */
static int explainStep(ExplainCursor *c) {
  c->eof = !pq_explainer_next(c->x, &c->f);
  if (!c->eof && c->f.fault && pq_explainer_nomem(c->x)) {
    c->eof = 1;
    return SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int explainNext(sqlite3_vtab_cursor *cur) {
  ExplainCursor *c = (ExplainCursor *)cur;
  c->row++;
  return explainStep(c);
}

static int explainError(sqlite3_vtab_cursor *cur, char *msg) {
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = msg;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* 'FILE', 'PAGE' or 'VARIANT' as the encoding: a structure, not a
** stream. */
enum { STREAM, FILE_IMAGE, PAGE, VARIANT };

static int structureOf(sqlite3_value *enc) {
  if (!enc || sqlite3_value_type(enc) != SQLITE_TEXT) return STREAM;
  const char *s = (const char *)sqlite3_value_text(enc);
  if (s && sqlite3_stricmp(s, "FILE") == 0) return FILE_IMAGE;
  if (s && sqlite3_stricmp(s, "PAGE") == 0) return PAGE;
  if (s && sqlite3_stricmp(s, "VARIANT") == 0) return VARIANT;
  return STREAM;
}

/* Opens the explainer of a VARIANT from the arguments (blob, 'VARIANT',
** NULL, options, metadata): the options' "variant" says what the blob
** holds ("metadata" or "value"; both, the metadata first, without it), a
** metadata as the fifth argument goes with a value. */
static int explainVariant(ExplainCursor *c, sqlite3_value **args) {
  sqlite3_vtab_cursor *cur = &c->base;
  pq_error err;
  int t = sqlite3_value_type(args[0]);
  /* TEXT too: the bytes of metadata || value, which SQL's || makes. */
  if (t != SQLITE_BLOB && t != SQLITE_TEXT) {
    return explainError(
        cur, sqlite3_mprintf("parquet_explain: 'VARIANT' explains a BLOB: a "
                             "variant's metadata followed by its value, or "
                             "one of them (option \"variant\")"));
  }
  if (args[2] && sqlite3_value_type(args[2]) != SQLITE_NULL) {
    return explainError(
        cur, sqlite3_mprintf("parquet_explain: 'VARIANT' takes no type"));
  }
  int part = PQ_XV_BOTH;
  if (args[3] && sqlite3_value_type(args[3]) != SQLITE_NULL) {
    pq_page_context ctx, dflt;
    pq_page_context_init(&ctx);
    pq_page_context_init(&dflt);
    const char *s = (const char *)sqlite3_value_text(args[3]);
    int n = sqlite3_value_bytes(args[3]);
    if (s && pq_page_context_parse(&ctx, s, (size_t)n, &err)) {
      return explainError(cur,
                          pqx_core_error("parquet_explain", PQ_MISUSE, &err));
    }
    if (ctx.max_def || ctx.max_rep || ctx.codec_set || ctx.binary) {
      return explainError(
          cur, sqlite3_mprintf("parquet_explain: 'VARIANT' takes only the "
                               "option \"variant\""));
    }
    part = ctx.variant;
  }
  int has_meta = args[4] && sqlite3_value_type(args[4]) != SQLITE_NULL;
  if (has_meta) {
    if (part == PQ_XV_METADATA) {
      return explainError(
          cur, sqlite3_mprintf("parquet_explain: 'VARIANT': the metadata as "
                               "the fifth argument goes with a value, not "
                               "another metadata"));
    }
    part = PQ_XV_VALUE;
    if (pqx_arg_blob(args[4], &c->args.dict, &c->args.dict_len)) {
      return SQLITE_NOMEM;
    }
  }
  if (pqx_arg_blob(args[0], &c->args.blob, &c->args.len)) return SQLITE_NOMEM;
  int rc = pq_explainer_open_variant(
      &c->x, part, c->args.blob, c->args.len,
      has_meta ? (c->args.dict ? c->args.dict : (const uint8_t *)"") : NULL,
      c->args.dict_len, &err);
  if (rc) return explainError(cur, pqx_core_error("parquet_explain", rc, &err));
  return explainStep(c);
}

/* Opens the explainer of a file image or of a page from the arguments
** (blob, encoding, type, options, dictionary). */
static int explainStructure(ExplainCursor *c, int kind, sqlite3_value **args) {
  sqlite3_vtab_cursor *cur = &c->base;
  pq_params_init(&c->args.p);
  if (sqlite3_value_type(args[0]) == SQLITE_NULL) return SQLITE_OK;
  if (kind == VARIANT) return explainVariant(c, args);
  pq_error err;
  pq_page_context ctx;
  pq_page_context_init(&ctx);
  if (kind == FILE_IMAGE) {
    if (sqlite3_value_type(args[0]) != SQLITE_BLOB) {
      return explainError(
          cur, sqlite3_mprintf("parquet_explain: 'FILE' explains a file "
                               "image, a BLOB, not a path (in the sqlite3 "
                               "shell, readfile('f.parquet') gives one)"));
    }
    for (int i = 2; i < PQX_NARGS; i++) {
      if (args[i] && sqlite3_value_type(args[i]) != SQLITE_NULL) {
        return explainError(
            cur, sqlite3_mprintf("parquet_explain: 'FILE' takes no type, "
                                 "options or dictionary"));
      }
    }
  } else {
    if (args[2] && sqlite3_value_type(args[2]) != SQLITE_NULL) {
      const char *s = (const char *)sqlite3_value_text(args[2]);
      int n = sqlite3_value_bytes(args[2]);
      if (!s || pq_type_parse(s, (size_t)n, &ctx.type, &ctx.type_length)) {
        return explainError(
            cur, sqlite3_mprintf("parquet_explain: unknown type '%s' "
                                 "(BOOLEAN, INT32, INT64, INT96, FLOAT, "
                                 "DOUBLE, BYTE_ARRAY or "
                                 "FIXED_LEN_BYTE_ARRAY(n))",
                                 s ? s : ""));
      }
      ctx.type_set = 1;
    }
    if (args[3] && sqlite3_value_type(args[3]) != SQLITE_NULL) {
      const char *s = (const char *)sqlite3_value_text(args[3]);
      int n = sqlite3_value_bytes(args[3]);
      if (s && pq_page_context_parse(&ctx, s, (size_t)n, &err)) {
        return explainError(cur,
                            pqx_core_error("parquet_explain", PQ_MISUSE, &err));
      }
    }
    c->args.p.binary = ctx.binary;
    ctx.limit = pqx_vtab_limit(cur->pVtab);
    if (args[4] && sqlite3_value_type(args[4]) != SQLITE_NULL &&
        pqx_arg_blob(args[4], &c->args.dict, &c->args.dict_len)) {
      return SQLITE_NOMEM;
    }
  }
  if (pqx_arg_blob(args[0], &c->args.blob, &c->args.len)) return SQLITE_NOMEM;
  int rc = kind == FILE_IMAGE
               ? pq_explainer_open_file(&c->x, c->args.blob, c->args.len, &err)
               : pq_explainer_open_page(&c->x, &ctx, c->args.blob, c->args.len,
                                        c->args.dict, c->args.dict_len, &err);
  if (rc) return explainError(cur, pqx_core_error("parquet_explain", rc, &err));
  return explainStep(c);
}

static int explainFilter(sqlite3_vtab_cursor *cur, int idxNum,
                         const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  ExplainCursor *c = (ExplainCursor *)cur;
  explainReset(c);
  c->row = 0;
  sqlite3_value *args[PQX_NARGS] = {0};
  for (int i = 0, j = 0; i < PQX_NARGS; i++) {
    if (idxNum & (1 << i)) args[i] = argv[j++];
  }
  int kind = structureOf(args[1]);
  if (kind != STREAM && args[0]) return explainStructure(c, kind, args);
  int no_rows;
  int rc =
      pqx_args_filter(cur, "parquet_explain", idxNum, argv, &c->args, &no_rows);
  if (rc || no_rows) return rc;
  pq_error err;
  rc = pq_explainer_open(&c->x, &c->args.p, c->args.blob, c->args.len,
                         c->args.dict, c->args.dict_len, &err);
  if (rc) {
    char *msg = pqx_core_error("parquet_explain", rc, &err);
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = msg;
    return msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  return explainStep(c);
}

static int explainEof(sqlite3_vtab_cursor *cur) {
  return ((ExplainCursor *)cur)->eof;
}

/* The field's bytes in hex, a space between bytes. */
static void resultHex(sqlite3_context *ctx, const uint8_t *p, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  if (n == 0) {
    sqlite3_result_text(ctx, "", 0, SQLITE_STATIC);
    return;
  }
  char *s = sqlite3_malloc64(3 * n);
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  for (size_t i = 0; i < n; i++) {
    s[3 * i] = hex[p[i] >> 4];
    s[3 * i + 1] = hex[p[i] & 15];
    s[3 * i + 2] = ' ';
  }
  sqlite3_result_text64(ctx, s, 3 * n - 1, sqlite3_free, SQLITE_UTF8);
}

static void resultText(sqlite3_context *ctx, const char *s) {
  if (s[0]) sqlite3_result_text(ctx, s, -1, SQLITE_TRANSIENT);
}

static int explainColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                         int col) {
  ExplainCursor *c = (ExplainCursor *)cur;
  const pq_field *f = &c->f;
  switch (col) {
    case EXPLAIN_COL_OFFSET:
      sqlite3_result_int64(ctx, (sqlite3_int64)f->offset);
      break;
    case EXPLAIN_COL_LENGTH:
      sqlite3_result_int64(ctx, (sqlite3_int64)f->length);
      break;
    case EXPLAIN_COL_HEX: {
      /* A row of a body decompressed counts in those bytes. */
      const uint8_t *b = f->within ? f->within : c->args.blob;
      uint64_t len = f->within ? f->within_len : c->args.len;
      uint64_t n = f->length;
      if (f->offset > len) n = 0;
      if (n > len - f->offset) n = len - f->offset;
      resultHex(ctx, b + f->offset, (size_t)n);
      break;
    }
    case EXPLAIN_COL_BITS: resultText(ctx, f->bits); break;
    case EXPLAIN_COL_LABELS: resultText(ctx, f->labels); break;
    case EXPLAIN_COL_PATH: resultText(ctx, f->path); break;
    case EXPLAIN_COL_NOTE: resultText(ctx, f->note); break;
    case EXPLAIN_COL_VALUE:
      switch (f->kind) {
        case PQ_FV_INT: sqlite3_result_int64(ctx, f->i); break;
        case PQ_FV_UINT:
          if (f->u <= (uint64_t)INT64_MAX) {
            sqlite3_result_int64(ctx, (sqlite3_int64)f->u);
          } else {
            sqlite3_result_double(ctx, (double)f->u);
          }
          break;
        case PQ_FV_REAL: sqlite3_result_double(ctx, f->r); break;
        case PQ_FV_BYTES:
          if (f->text && !c->args.p.binary &&
              pq_utf8_valid(f->bytes, f->nbytes)) {
            sqlite3_result_text64(ctx, (const char *)f->bytes, f->nbytes,
                                  SQLITE_TRANSIENT, SQLITE_UTF8);
          } else {
            sqlite3_result_blob64(ctx, f->bytes, f->nbytes, SQLITE_TRANSIENT);
          }
          break;
      }
      break;
  }
  return SQLITE_OK;
}

static int explainRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((ExplainCursor *)cur)->row;
  return SQLITE_OK;
}

static int explainBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_args_best_index(info, EXPLAIN_COL_BLOB);
}

static sqlite3_module explainModule = {
    .xConnect = pqx_vtab_connect,
    .xBestIndex = explainBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = explainOpen,
    .xClose = explainClose,
    .xFilter = explainFilter,
    .xNext = explainNext,
    .xEof = explainEof,
    .xColumn = explainColumn,
    .xRowid = explainRowid,
};

int pqx_register_explain(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet_explain", &explainModule,
                               (void *)&explain_spec);
}
