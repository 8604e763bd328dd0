/*
** meta.c -- more of a file's metadata as tables, with the columns DuckDB's
** functions of these names have where DuckDB has them:
**
**   parquet_file_metadata(source)   one row per file: its FileMetaData
**   parquet_kv_metadata(source)     one row per key/value pair (BLOBs)
**   parquet_column_index(source)    one row per page of every chunk that
**                                   has a ColumnIndex: min, max, nulls
**   parquet_offset_index(source)    one row per page of every chunk that
**                                   has an OffsetIndex: where it is
**   parquet_bloom_probe(source, column, value)
**                                   one row per row group: whether the
**                                   chunk's bloom filter rules value out
**
** How it works: `source` (a path, a glob or folder, or a file image as a
** BLOB) is opened file by file with pqx_sources_*; each table walks its
** rows within a file (a key, a chunk's pages, a row group) and moves on to
** the next file when they are done.  A page index or bloom filter is read
** when the walk reaches its chunk, so that a bad one is an error of xFilter
** or xNext ("fn: 'file': column 'a', row group 0: column index: ..."),
** never of xColumn.  All of them read files: SQLITE_VTAB_DIRECTONLY.
*/
#include <stdio.h>
#include <string.h>

#include "ext.h"

enum { MK_FILE, MK_KV, MK_COLUMN_INDEX, MK_OFFSET_INDEX, MK_BLOOM };

static const char *const meta_fn[] = {
    "parquet_file_metadata", "parquet_kv_metadata", "parquet_column_index",
    "parquet_offset_index", "parquet_bloom_probe"};

enum {
  FM_FILE_NAME, FM_CREATED_BY, FM_NUM_ROWS, FM_NUM_ROW_GROUPS,
  FM_FORMAT_VERSION, FM_ENCRYPTION_ALGORITHM, FM_FOOTER_SIGNING_KEY,
  FM_FILE_SIZE, FM_FOOTER_SIZE, FM_COLUMN_ORDERS, FM_SOURCE
};
enum { KV_FILE_NAME, KV_KEY, KV_VALUE, KV_SOURCE };
enum {
  CI_FILE_NAME, CI_ROW_GROUP_ID, CI_COLUMN_ID, CI_PATH, CI_PAGE_ID,
  CI_NULL_PAGE, CI_MIN, CI_MAX, CI_NULL_COUNT, CI_BOUNDARY_ORDER,
  CI_REP_HISTOGRAM, CI_DEF_HISTOGRAM, CI_NAN_COUNT, CI_SOURCE
};
enum {
  OI_FILE_NAME, OI_ROW_GROUP_ID, OI_COLUMN_ID, OI_PATH, OI_PAGE_ID,
  OI_OFFSET, OI_COMPRESSED_PAGE_SIZE, OI_FIRST_ROW_INDEX, OI_UNENCODED,
  OI_SOURCE
};
enum {
  BP_FILE_NAME, BP_ROW_GROUP_ID, BP_EXCLUDES, BP_SOURCE, BP_COLUMN, BP_VALUE
};

static const pqx_vtab_spec meta_specs[] = {
    {"CREATE TABLE x(file_name TEXT, created_by TEXT, num_rows INTEGER, "
     "num_row_groups INTEGER, format_version INTEGER, encryption_algorithm "
     "TEXT, footer_signing_key_metadata TEXT, file_size_bytes INTEGER, "
     "footer_size INTEGER, column_orders TEXT, source HIDDEN)",
     1},
    {"CREATE TABLE x(file_name TEXT, key BLOB, value BLOB, source HIDDEN)", 1},
    {"CREATE TABLE x(file_name TEXT, row_group_id INTEGER, column_id "
     "INTEGER, path_in_schema TEXT, page_id INTEGER, null_page INTEGER, min "
     "TEXT, max TEXT, null_count INTEGER, boundary_order TEXT, "
     "repetition_level_histogram TEXT, definition_level_histogram TEXT, "
     "nan_count INTEGER, source HIDDEN)",
     1},
    {"CREATE TABLE x(file_name TEXT, row_group_id INTEGER, column_id "
     "INTEGER, path_in_schema TEXT, page_id INTEGER, offset INTEGER, "
     "compressed_page_size INTEGER, first_row_index INTEGER, "
     "unencoded_byte_array_data_bytes INTEGER, source HIDDEN)",
     1},
    {"CREATE TABLE x(file_name TEXT, row_group_id INTEGER, "
     "bloom_filter_excludes INTEGER, source HIDDEN, \"column\" HIDDEN, "
     "value HIDDEN)",
     1},
};

typedef struct MetaCursor {
  sqlite3_vtab_cursor base;
  int kind;                  /* MK_* */
  pqx_sources ss;            /* the files of the source */
  pqx_source src;            /* the one open */
  sqlite3_int64 rowid;
  int eof;
  /* Where the walk is in the open file. */
  uint32_t item;             /* file: 0 or done; kv: the pair; bloom: the
                             ** row group */
  uint32_t rg, col, page;    /* the indexes: the chunk and its page */
  int chunk_read;            /* the chunk's index has been read */
  pq_column_index *ci;
  pq_offset_index *oi;
  /* parquet_bloom_probe: the arguments, and the column in the open file */
  char *column;
  pq_cell value;
  uint8_t *value_bytes;      /* the copy value.p points to */
  const pq_schema_node *leaf;
  int mapped;                /* pq_bloom_hash_cell's result */
  uint64_t hash;
  int excludes;              /* of the current row group */
} MetaCursor;

static int metaOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp, int kind) {
  (void)v;
  MetaCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->kind = kind;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}
static int metaFileOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  return metaOpen(v, pp, MK_FILE);
}
static int metaKvOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  return metaOpen(v, pp, MK_KV);
}
static int metaColumnIndexOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  return metaOpen(v, pp, MK_COLUMN_INDEX);
}
static int metaOffsetIndexOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  return metaOpen(v, pp, MK_OFFSET_INDEX);
}
static int metaBloomOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  return metaOpen(v, pp, MK_BLOOM);
}

/* Forgets the walk of the open file. */
static void metaResetFile(MetaCursor *c) {
  pq_column_index_free(c->ci);
  pq_offset_index_free(c->oi);
  c->ci = NULL;
  c->oi = NULL;
  c->item = c->rg = c->col = c->page = 0;
  c->chunk_read = 0;
  c->leaf = NULL;
  c->mapped = -1;
  c->excludes = 0;
}

/* Forgets the scan: its files and its arguments. */
static void metaReset(MetaCursor *c) {
  metaResetFile(c);
  pqx_source_close(&c->src);
  pqx_sources_close(&c->ss);
  sqlite3_free(c->column);
  sqlite3_free(c->value_bytes);
  c->column = NULL;
  c->value_bytes = NULL;
  memset(&c->value, 0, sizeof c->value);
  c->eof = 1;
}

static int metaClose(sqlite3_vtab_cursor *cur) {
  MetaCursor *c = (MetaCursor *)cur;
  metaReset(c);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* Sets the table's error message (msg from sqlite3_mprintf; NULL: out of
** memory) and returns the code to give. */
static int metaError(MetaCursor *c, char *msg) {
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = msg;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* A core error about the open file. */
static int metaCoreError(MetaCursor *c, int rc, const pq_error *err) {
  if (rc == PQ_NOMEM) return SQLITE_NOMEM;
  return metaError(c, pqx_source_error(meta_fn[c->kind], c->src.name, err));
}

/* parquet_bloom_probe: the leaf the column argument names in the open
** file (its dotted path, or else the name of exactly one leaf), and the
** hash of the value. */
static int metaBloomFind(MetaCursor *c) {
  const pq_file *f = c->src.file;
  uint32_t n = pq_file_leaf_count(f), named = 0;
  const pq_schema_node *by_name = NULL;
  for (uint32_t i = 0; i < n; i++) {
    const pq_schema_node *leaf = pq_file_leaf(f, i);
    if (leaf->path && strcmp(leaf->path, c->column) == 0) {
      c->leaf = leaf;
      break;
    }
    const pq_bytes *name = &leaf->elem->name;
    if (name->len == strlen(c->column) &&
        memcmp(name->ptr, c->column, name->len) == 0) {
      by_name = leaf;
      named++;
    }
  }
  if (!c->leaf && named == 1) c->leaf = by_name;
  if (!c->leaf) {
    pq_error err;
    err.code = PQ_MISUSE;
    if (named > 1) {
      snprintf(err.msg, sizeof err.msg,
               "%u columns are named '%s': give the path, as "
               "parquet_metadata's path_in_schema shows it",
               named, c->column);
    } else {
      snprintf(err.msg, sizeof err.msg, "no column '%s'", c->column);
    }
    return metaError(c, pqx_source_error(meta_fn[c->kind], c->src.name, &err));
  }
  c->mapped = pq_bloom_hash_cell(c->leaf, &c->value, &c->hash);
  return SQLITE_OK;
}

/* parquet_bloom_probe: whether row group c->item's filter excludes the
** value. */
static int metaBloomProbe(MetaCursor *c) {
  pq_bloom b;
  pq_error err;
  int present;
  c->excludes = 0;
  int rc = pq_bloom_read(c->src.file, c->item, (uint32_t)c->leaf->leaf, &b,
                         &present, &err);
  if (rc) return metaCoreError(c, rc, &err);
  if (!present) return SQLITE_OK;
  if (c->mapped == 0) {
    c->excludes = 1; /* no value of the column can equal it */
  } else if (c->mapped == 1) {
    c->excludes = !pq_bloom_check(&b, c->hash);
  }
  pq_bloom_release(&b);
  return SQLITE_OK;
}

/* Moves the walk of the open file to its next row, from where it stands:
** *done when it has none left.  Reads what the row needs. */
static int metaSettle(MetaCursor *c, int *done) {
  const pq_file *f = c->src.file;
  const pq_file_meta *m = pq_file_metadata(f);
  *done = 0;
  switch (c->kind) {
    case MK_FILE:
      *done = c->item > 0;
      return SQLITE_OK;
    case MK_KV:
      *done = c->item >= m->n_key_value;
      return SQLITE_OK;
    case MK_BLOOM:
      if (c->item >= m->n_row_groups) {
        *done = 1;
        return SQLITE_OK;
      }
      if (!c->leaf) {
        int rc = metaBloomFind(c);
        if (rc) return rc;
      }
      return metaBloomProbe(c);
    default:
      break;
  }
  /* The page indexes: chunk by chunk, page by page. */
  int is_ci = c->kind == MK_COLUMN_INDEX;
  uint32_t leaves = pq_file_leaf_count(f);
  for (;;) {
    if (c->chunk_read) {
      uint32_t pages = is_ci ? (c->ci ? c->ci->n_pages : 0)
                             : (c->oi ? c->oi->n_pages : 0);
      if (c->page < pages) return SQLITE_OK;
      pq_column_index_free(c->ci);
      pq_offset_index_free(c->oi);
      c->ci = NULL;
      c->oi = NULL;
      c->chunk_read = 0;
      c->page = 0;
      c->col++;
    }
    while (c->rg < m->n_row_groups && c->col >= leaves) {
      c->rg++;
      c->col = 0;
    }
    if (c->rg >= m->n_row_groups) {
      *done = 1;
      return SQLITE_OK;
    }
    pq_error err;
    int rc = is_ci ? pq_column_index_read(f, c->rg, c->col, &c->ci, &err)
                   : pq_offset_index_read(f, c->rg, c->col, &c->oi, &err);
    if (rc) return metaCoreError(c, rc, &err);
    c->chunk_read = 1;
  }
}

/* Moves to the next row: in the open file, or in the next file that has
** one; eof when no file is left. */
static int metaAdvance(MetaCursor *c) {
  for (;;) {
    int done = 1, rc;
    if (c->src.file) {
      rc = metaSettle(c, &done);
      if (rc) return rc;
      if (!done) {
        c->eof = 0;
        return SQLITE_OK;
      }
    }
    metaResetFile(c);
    int got;
    char *msg;
    rc = pqx_sources_next(&c->ss, &c->src, &got, &msg);
    if (rc) return msg ? metaError(c, msg) : rc;
    if (!got) {
      c->eof = 1;
      return SQLITE_OK;
    }
  }
}

/* The bloom probe's arguments, copied: the scan outlives them. */
static int metaBloomArgs(MetaCursor *c, sqlite3_value *column,
                     sqlite3_value *value) {
  const char *fn = meta_fn[MK_BLOOM];
  if (sqlite3_value_type(column) == SQLITE_NULL ||
      sqlite3_value_type(value) == SQLITE_NULL) {
    return metaError(c, sqlite3_mprintf("%s: the column and the value may "
                                        "not be NULL",
                                        fn));
  }
  c->column = sqlite3_mprintf("%s", (const char *)sqlite3_value_text(column));
  if (!c->column) return SQLITE_NOMEM;
  pq_cell *v = &c->value;
  switch (sqlite3_value_type(value)) {
    case SQLITE_INTEGER:
      v->kind = PQ_CELL_INT;
      v->i = sqlite3_value_int64(value);
      break;
    case SQLITE_FLOAT:
      v->kind = PQ_CELL_REAL;
      v->r = sqlite3_value_double(value);
      break;
    default: {
      int is_text = sqlite3_value_type(value) == SQLITE_TEXT;
      const void *p = is_text ? (const void *)sqlite3_value_text(value)
                              : sqlite3_value_blob(value);
      size_t n = (size_t)sqlite3_value_bytes(value);
      c->value_bytes = sqlite3_malloc64(n ? n : 1);
      if (!c->value_bytes) return SQLITE_NOMEM;
      if (n) memcpy(c->value_bytes, p, n);
      v->kind = is_text ? PQ_CELL_TEXT : PQ_CELL_BLOB;
      v->p = c->value_bytes;
      v->n = n;
    }
  }
  return SQLITE_OK;
}

static int metaFilter(sqlite3_vtab_cursor *cur, int idxNum,
                      const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  MetaCursor *c = (MetaCursor *)cur;
  const char *fn = meta_fn[c->kind];
  metaReset(c);
  c->rowid = 0;
  if (c->kind == MK_BLOOM) {
    if (idxNum != 7) {
      return metaError(
          c, sqlite3_mprintf("%s: the source, the column and the value are "
                             "required, as in %s('data.parquet', 'id', 42)",
                             fn, fn));
    }
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
    int rc = metaBloomArgs(c, argv[1], argv[2]);
    if (rc) return rc;
  } else {
    if (!(idxNum & 1)) {
      return metaError(c, sqlite3_mprintf("%s: the source is required, as "
                                          "in %s('data.parquet')",
                                          fn, fn));
    }
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  }
  char *msg;
  int rc = pqx_sources_open(&c->ss, ((pqx_vtab *)cur->pVtab)->db, argv[0], fn,
                            &msg);
  if (rc) return msg ? metaError(c, msg) : rc;
  return metaAdvance(c);
}

static int metaNext(sqlite3_vtab_cursor *cur) {
  MetaCursor *c = (MetaCursor *)cur;
  c->rowid++;
  if (c->kind == MK_COLUMN_INDEX || c->kind == MK_OFFSET_INDEX) {
    c->page++;
  } else {
    c->item++;
  }
  return metaAdvance(c);
}

static int metaEof(sqlite3_vtab_cursor *cur) {
  return ((MetaCursor *)cur)->eof;
}

static int metaRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((MetaCursor *)cur)->rowid;
  return SQLITE_OK;
}

static void metaFileName(sqlite3_context *ctx, const MetaCursor *c) {
  if (c->src.name) sqlite3_result_text(ctx, c->src.name, -1, SQLITE_TRANSIENT);
}

static void metaBlob(sqlite3_context *ctx, pq_bytes b) {
  sqlite3_result_blob64(ctx, b.len ? b.ptr : (const uint8_t *)"", b.len,
                        SQLITE_TRANSIENT);
}

/* One page's slice of a level histogram as a JSON array. */
static void metaHistogram(sqlite3_context *ctx, const int64_t *h,
                            uint32_t entries, uint32_t pages, uint32_t page) {
  if (!h || pages == 0) return;
  uint32_t per = entries / pages;
  char *s = sqlite3_mprintf("[");
  for (uint32_t i = 0; s && i < per; i++) {
    s = sqlite3_mprintf("%z%s%lld", s, i ? "," : "",
                        (long long)h[(size_t)page * per + i]);
  }
  s = s ? sqlite3_mprintf("%z]", s) : NULL;
  if (!s) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  pqx_result_mprintf(ctx, s);
}

static void metaFileColumn(const MetaCursor *c, sqlite3_context *ctx, int col) {
  const pq_file_meta *m = pq_file_metadata(c->src.file);
  switch (col) {
    case FM_FILE_NAME: metaFileName(ctx, c); break;
    case FM_CREATED_BY:
      if (m->has_created_by)
        sqlite3_result_text64(ctx, (const char *)m->created_by.ptr,
                              m->created_by.len, SQLITE_TRANSIENT,
                              SQLITE_UTF8);
      break;
    case FM_NUM_ROWS: sqlite3_result_int64(ctx, m->num_rows); break;
    case FM_NUM_ROW_GROUPS: sqlite3_result_int64(ctx, m->n_row_groups); break;
    case FM_FORMAT_VERSION: sqlite3_result_int64(ctx, m->version); break;
    /* A file whose metadata names an encryption algorithm does not open
    ** (encrypted files are not supported): these are always NULL. */
    case FM_ENCRYPTION_ALGORITHM:
    case FM_FOOTER_SIGNING_KEY: break;
    case FM_FILE_SIZE:
      sqlite3_result_int64(ctx, (sqlite3_int64)pq_file_size(c->src.file));
      break;
    case FM_FOOTER_SIZE: /* the FileMetaData's length */
      sqlite3_result_int64(ctx, pq_file_footer_size(c->src.file));
      break;
    case FM_COLUMN_ORDERS: { /* a JSON array of the members' names */
      if (!m->has_column_orders) break;
      char *s = sqlite3_mprintf("[");
      for (uint32_t i = 0; s && i < m->n_column_orders; i++) {
        const char *name = pqx_column_order_name(m->column_orders[i]);
        s = name ? sqlite3_mprintf("%z%s\"%s\"", s, i ? "," : "", name)
                 : sqlite3_mprintf("%z%s%d", s, i ? "," : "",
                                   m->column_orders[i]);
      }
      pqx_result_mprintf(ctx, s ? sqlite3_mprintf("%z]", s) : NULL);
      break;
    }
  }
}

static void metaKvColumn(const MetaCursor *c, sqlite3_context *ctx, int col) {
  const pq_keyvalue *kv = &pq_file_metadata(c->src.file)->key_value[c->item];
  switch (col) {
    case KV_FILE_NAME: metaFileName(ctx, c); break;
    case KV_KEY: metaBlob(ctx, kv->key); break;
    case KV_VALUE:
      if (kv->has_value) metaBlob(ctx, kv->value);
      break;
  }
}

static void metaIndexColumn(const MetaCursor *c, sqlite3_context *ctx, int col) {
  const pq_schema_node *leaf = pq_file_leaf(c->src.file, c->col);
  /* The columns both indexes begin with. */
  switch (col) {
    case CI_FILE_NAME: metaFileName(ctx, c); return;
    case CI_ROW_GROUP_ID: sqlite3_result_int64(ctx, c->rg); return;
    case CI_COLUMN_ID: sqlite3_result_int64(ctx, c->col); return;
    case CI_PATH:
      if (leaf && leaf->path)
        sqlite3_result_text(ctx, leaf->path, -1, SQLITE_TRANSIENT);
      return;
    case CI_PAGE_ID: sqlite3_result_int64(ctx, c->page); return;
    default: break;
  }
  if (c->kind == MK_OFFSET_INDEX) {
    const pq_page_location *l = &c->oi->pages[c->page];
    switch (col) {
      case OI_OFFSET: sqlite3_result_int64(ctx, l->offset); break;
      case OI_COMPRESSED_PAGE_SIZE:
        sqlite3_result_int64(ctx, l->compressed_page_size);
        break;
      case OI_FIRST_ROW_INDEX: sqlite3_result_int64(ctx, l->first_row_index); break;
      case OI_UNENCODED:
        if (c->oi->unencoded_byte_array_data_bytes)
          sqlite3_result_int64(ctx,
                               c->oi->unencoded_byte_array_data_bytes[c->page]);
        break;
    }
    return;
  }
  static const char *const orders[] = {"UNORDERED", "ASCENDING", "DESCENDING"};
  const pq_column_index *ci = c->ci;
  int null_page = ci->null_pages[c->page];
  pq_type t = leaf->elem->type;
  switch (col) {
    case CI_NULL_PAGE: sqlite3_result_int(ctx, null_page); break;
    case CI_MIN: pqx_result_stat(ctx, !null_page, ci->min_values[c->page], t); break;
    case CI_MAX: pqx_result_stat(ctx, !null_page, ci->max_values[c->page], t); break;
    case CI_NULL_COUNT:
      /* Some writers put -1: not known. */
      if (ci->null_counts && ci->null_counts[c->page] >= 0)
        sqlite3_result_int64(ctx, ci->null_counts[c->page]);
      break;
    case CI_BOUNDARY_ORDER:
      sqlite3_result_text(ctx, orders[ci->boundary_order], -1, SQLITE_STATIC);
      break;
    case CI_REP_HISTOGRAM:
      metaHistogram(ctx, ci->rep_histograms, ci->n_rep_histograms,
                      ci->n_pages, c->page);
      break;
    case CI_DEF_HISTOGRAM:
      metaHistogram(ctx, ci->def_histograms, ci->n_def_histograms,
                      ci->n_pages, c->page);
      break;
    case CI_NAN_COUNT:
      if (ci->nan_counts) sqlite3_result_int64(ctx, ci->nan_counts[c->page]);
      break;
  }
}

static void metaBloomColumn(const MetaCursor *c, sqlite3_context *ctx, int col) {
  switch (col) {
    case BP_FILE_NAME: metaFileName(ctx, c); break;
    case BP_ROW_GROUP_ID: sqlite3_result_int64(ctx, c->item); break;
    case BP_EXCLUDES: sqlite3_result_int(ctx, c->excludes); break;
  }
}

static int metaColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                      int col) {
  const MetaCursor *c = (const MetaCursor *)cur;
  switch (c->kind) {
    case MK_FILE: metaFileColumn(c, ctx, col); break;
    case MK_KV: metaKvColumn(c, ctx, col); break;
    case MK_BLOOM: metaBloomColumn(c, ctx, col); break;
    default: metaIndexColumn(c, ctx, col);
  }
  return SQLITE_OK;
}

static int metaFileBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_source_best_index(info, FM_SOURCE);
}
static int metaKvBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_source_best_index(info, KV_SOURCE);
}
static int metaColumnIndexBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_source_best_index(info, CI_SOURCE);
}
static int metaOffsetIndexBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_source_best_index(info, OI_SOURCE);
}

/* parquet_bloom_probe: idxNum has bit i set when argument i (source,
** column, value) is given; argv follows that order.  All three are needed:
** a plan without them costs the most, and fails in xFilter. */
static int metaBloomBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  int where[3] = {-1, -1, -1}, unusable = 0, mask = 0;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *con = &info->aConstraint[i];
    int k = con->iColumn - BP_SOURCE;
    if (k < 0 || k > 2 || con->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!con->usable) {
      unusable |= 1 << k;
      continue;
    }
    where[k] = i;
    mask |= 1 << k;
  }
  if (unusable & ~mask) return SQLITE_CONSTRAINT;
  int n = 0;
  for (int k = 0; k < 3; k++) {
    if (where[k] < 0) continue;
    info->aConstraintUsage[where[k]].argvIndex = ++n;
    info->aConstraintUsage[where[k]].omit = 1;
  }
  info->idxNum = mask;
  info->estimatedCost = mask == 7 ? 1000 : 1e99;
  info->estimatedRows = mask == 7 ? 100 : 2147483647;
  return SQLITE_OK;
}

#define META_MODULE(name, open, best)                                        \
  static sqlite3_module name = {                                             \
      .xConnect = pqx_vtab_connect,                                          \
      .xBestIndex = best,                                                    \
      .xDisconnect = pqx_vtab_disconnect,                                    \
      .xOpen = open,                                                         \
      .xClose = metaClose,                                                   \
      .xFilter = metaFilter,                                                 \
      .xNext = metaNext,                                                     \
      .xEof = metaEof,                                                       \
      .xColumn = metaColumn,                                                 \
      .xRowid = metaRowid,                                                   \
  }

META_MODULE(metaFileModule, metaFileOpen, metaFileBestIndex);
META_MODULE(metaKvModule, metaKvOpen, metaKvBestIndex);
META_MODULE(metaColumnIndexModule, metaColumnIndexOpen, metaColumnIndexBestIndex);
META_MODULE(metaOffsetIndexModule, metaOffsetIndexOpen, metaOffsetIndexBestIndex);
META_MODULE(metaBloomModule, metaBloomOpen, metaBloomBestIndex);

int pqx_register_meta(sqlite3 *db) {
  sqlite3_module *const modules[] = {&metaFileModule, &metaKvModule,
                                     &metaColumnIndexModule, &metaOffsetIndexModule,
                                     &metaBloomModule};
  int rc = SQLITE_OK;
  for (int i = 0; rc == SQLITE_OK && i < 5; i++) {
    rc = sqlite3_create_module(db, meta_fn[i], modules[i],
                               (void *)&meta_specs[i]);
  }
  return rc;
}
