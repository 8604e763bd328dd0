/*
** file_refs.c -- parquet_file_refs(source): one row per value of every
** FILE group (spec/LogicalTypes.md, FILE) of Parquet files: its fields,
** what it resolves to, and the bytes when they are inline or a range of
** the same file.
**
**   SELECT file_row_number, content_type, length(bytes)
**     FROM parquet_file_refs('photos.parquet') WHERE resolves = 'self';
**
** A reference to another file (`uri`) is shown, never followed: a file
** (or a database naming it) cannot make the extension open other files.
** The bytes are read when the column is asked for, so that a query of
** the fields alone reads no range.  A FILE group inside a repeated field
** is not listed.
*/
#include <stdio.h>
#include <string.h>

#include "ext.h"

enum {
  FREF_FILE_NAME, FREF_ROW, FREF_COLUMN, FREF_RESOLVES, FREF_URI, FREF_OFFSET, FREF_SIZE,
  FREF_CONTENT_TYPE, FREF_CHECKSUM, FREF_BYTES, FREF_SOURCE
};

static const pqx_vtab_spec file_refs_spec = {
    "CREATE TABLE x(file_name TEXT, file_row_number INTEGER, \"column\" TEXT, "
    "resolves TEXT, uri TEXT, \"offset\" INTEGER, size INTEGER, content_type "
    "TEXT, checksum TEXT, bytes BLOB, source HIDDEN)",
    1};

static const char *const resolves_text[] = {NULL, "inline", "self", "uri",
                                            "invalid"};

typedef struct RefsCursor {
  sqlite3_vtab_cursor base;
  pqx_sources ss;
  pqx_source src;
  const pq_schema_node **groups;  /* the open file's FILE groups */
  uint32_t n_groups, group;       /* the one being read */
  uint32_t rg;                    /* its row group */
  int64_t rg_first;               /* the row group's first row in the file */
  int64_t row;                    /* in the row group */
  pq_file_ref_reader *reader;
  pq_file_ref v;
  pq_buf scratch;                 /* a range read from the file */
  sqlite3_int64 rowid;
  int eof;
} RefsCursor;

static int refsOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  RefsCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}

static void refsResetFile(RefsCursor *c) {
  pq_file_ref_reader_free(c->reader);
  c->reader = NULL;
  sqlite3_free(c->groups);
  c->groups = NULL;
  c->n_groups = c->group = c->rg = 0;
  c->rg_first = c->row = 0;
}

static void refsReset(RefsCursor *c) {
  refsResetFile(c);
  pqx_source_close(&c->src);
  pqx_sources_close(&c->ss);
  c->eof = 1;
}

static int refsClose(sqlite3_vtab_cursor *cur) {
  RefsCursor *c = (RefsCursor *)cur;
  refsReset(c);
  pq_buf_free(&c->scratch);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int refsError(RefsCursor *c, char *msg) {
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = msg;
  c->eof = 1;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* Collects the FILE groups of the tree under n that no repeated field
** holds, in schema order; 0, or SQLITE_NOMEM. */
static int refsCollect(RefsCursor *c, const pq_schema_node *n, uint32_t *cap) {
  if (n->max_rep > 0) return SQLITE_OK;
  if (pq_file_ref_group(n)) {
    if (c->n_groups == *cap) {
      uint32_t nc = *cap ? *cap * 2 : 4;
      const pq_schema_node **g =
          sqlite3_realloc64(c->groups, (sqlite3_uint64)nc * sizeof *g);
      if (!g) return SQLITE_NOMEM;
      c->groups = g;
      *cap = nc;
    }
    c->groups[c->n_groups++] = n;
    return SQLITE_OK;
  }
  for (uint32_t i = 0; i < n->n_children; i++) {
    int rc = refsCollect(c, n->children[i], cap);
    if (rc) return rc;
  }
  return SQLITE_OK;
}

/* The next value: of the open reader, the next row group or group, or the
** next file. */
static int refsStep(RefsCursor *c) {
  size_t limit = pqx_vtab_limit(c->base.pVtab);
  for (;;) {
    pq_error err;
    int rc;
    if (c->reader) {
      int got;
      rc = pq_file_ref_reader_next(c->reader, &c->v, &got, &err);
      if (rc == PQ_NOMEM) return refsError(c, NULL);
      if (rc) {
        return refsError(c, pqx_source_error("parquet_file_refs", c->src.name,
                                             &err));
      }
      if (got) {
        c->row++;
        c->rowid++;
        return SQLITE_OK;
      }
      pq_file_ref_reader_free(c->reader);
      c->reader = NULL;
      c->rg_first += pq_file_metadata(c->src.file)->row_groups[c->rg].num_rows;
      c->rg++;
    }
    if (c->src.file && c->group < c->n_groups) {
      const pq_file_meta *m = pq_file_metadata(c->src.file);
      if (c->rg >= m->n_row_groups) {
        c->group++;
        c->rg = 0;
        c->rg_first = 0;
        continue;
      }
      c->row = -1;
      rc = pq_file_ref_reader_open(&c->reader, c->src.file, c->rg,
                                   c->groups[c->group], limit, &err);
      if (rc == PQ_NOMEM) return refsError(c, NULL);
      if (rc) {
        return refsError(c, pqx_source_error("parquet_file_refs", c->src.name,
                                             &err));
      }
      continue;
    }
    refsResetFile(c);
    char *msg = NULL;
    int got;
    rc = pqx_sources_next(&c->ss, &c->src, &got, &msg);
    if (rc) return refsError(c, msg);
    if (!got) {
      c->eof = 1;
      return SQLITE_OK;
    }
    uint32_t cap = 0;
    if (refsCollect(c, pq_file_schema(c->src.file), &cap)) {
      return refsError(c, NULL);
    }
  }
}

static int refsFilter(sqlite3_vtab_cursor *cur, int idxNum,
                      const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  RefsCursor *c = (RefsCursor *)cur;
  refsReset(c);
  if (!idxNum) {
    return refsError(c, sqlite3_mprintf(
                            "parquet_file_refs: the source is missing: "
                            "parquet_file_refs('file.parquet')"));
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  char *msg = NULL;
  int rc = pqx_sources_open(&c->ss, ((pqx_vtab *)cur->pVtab)->db, argv[0],
                            "parquet_file_refs", &msg);
  if (rc) return refsError(c, msg);
  c->eof = 0;
  c->rowid = 0;
  return refsStep(c);
}

static int refsNext(sqlite3_vtab_cursor *cur) {
  return refsStep((RefsCursor *)cur);
}

static int refsEof(sqlite3_vtab_cursor *cur) {
  return ((RefsCursor *)cur)->eof;
}

static void refsText(sqlite3_context *ctx, int has, const pq_bytes *b) {
  if (has) {
    sqlite3_result_text64(ctx, b->len ? (const char *)b->ptr : "", b->len,
                          SQLITE_TRANSIENT, SQLITE_UTF8);
  }
}

static int refsColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                      int col) {
  RefsCursor *c = (RefsCursor *)cur;
  const pq_file_ref *v = &c->v;
  switch (col) {
    case FREF_FILE_NAME:
      if (c->src.name) {
        sqlite3_result_text(ctx, c->src.name, -1, SQLITE_TRANSIENT);
      }
      break;
    case FREF_ROW: sqlite3_result_int64(ctx, c->rg_first + c->row); break;
    case FREF_COLUMN:
      sqlite3_result_text(ctx, c->groups[c->group]->path, -1,
                          SQLITE_TRANSIENT);
      break;
    case FREF_RESOLVES:
      if (v->kind != PQ_FILE_REF_NULL) {
        sqlite3_result_text(ctx, resolves_text[v->kind], -1, SQLITE_STATIC);
      }
      break;
    case FREF_URI: refsText(ctx, v->has_uri, &v->uri); break;
    case FREF_OFFSET:
      if (v->has_offset) sqlite3_result_int64(ctx, v->offset);
      break;
    case FREF_SIZE:
      if (v->has_size) sqlite3_result_int64(ctx, v->size);
      break;
    case FREF_CONTENT_TYPE:
      refsText(ctx, v->has_content_type, &v->content_type);
      break;
    case FREF_CHECKSUM: refsText(ctx, v->has_checksum, &v->checksum); break;
    case FREF_BYTES: {
      if (v->kind != PQ_FILE_REF_INLINE && v->kind != PQ_FILE_REF_SELF) break;
      pq_error err;
      pq_bytes b;
      int rc = pq_file_ref_bytes(c->src.file, v, pqx_vtab_limit(cur->pVtab),
                                 &c->scratch, &b, &err);
      if (rc == PQ_NOMEM) {
        sqlite3_result_error_nomem(ctx);
      } else if (rc) {
        char *msg = pqx_source_error("parquet_file_refs", c->src.name, &err);
        if (!msg) {
          sqlite3_result_error_nomem(ctx);
          break;
        }
        sqlite3_result_error(ctx, msg, -1);
        sqlite3_free(msg);
      } else {
        sqlite3_result_blob64(ctx, b.len ? b.ptr : (const uint8_t *)"", b.len,
                              SQLITE_TRANSIENT);
      }
      break;
    }
    default: break;
  }
  return SQLITE_OK;
}

static int refsRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  *rowid = ((RefsCursor *)cur)->rowid;
  return SQLITE_OK;
}

static int refsBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  return pqx_source_best_index(info, FREF_SOURCE);
}

static sqlite3_module file_refs_module = {
    .iVersion = 0,
    .xConnect = pqx_vtab_connect,
    .xBestIndex = refsBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = refsOpen,
    .xClose = refsClose,
    .xFilter = refsFilter,
    .xNext = refsNext,
    .xEof = refsEof,
    .xColumn = refsColumn,
    .xRowid = refsRowid,
};

int pqx_register_file_refs(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet_file_refs", &file_refs_module,
                               (void *)&file_refs_spec);
}
