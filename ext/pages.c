/*
** pages.c -- parquet_pages(source): one row per page of every column chunk
** of a file, with the page's parts as BLOBs ready for the decoders.
**
**   SELECT p.path, p.page, v.idx, v.value
**     FROM parquet_pages('data.parquet') p,
**          parquet_values(p.data, p.encoding, p.type, p.options,
**                         p.dictionary) v
**    WHERE p.page_type LIKE 'DATA_PAGE%';
**
** How it works: the table has the schema below, with `source` (a path, or
** a file image as a BLOB) as its hidden argument.  The cursor reads the
** file's pages in order (src/format/page.c checks each one: sizes, CRC, levels)
** and keeps only the current page.  `data` is the values stream,
** decompressed; `options` what a decoder needs to read it (the count of
** values, and the length prefix of RLE booleans); `dictionary` the chunk's
** dictionary, for dictionary-encoded pages.  A dictionary page's data is
** PLAIN, so its encoding reads PLAIN (older writers say PLAIN_DICTIONARY).
*/
#include <stdio.h>
#include <string.h>

#include "ext.h"

enum {
  PG_ROW_GROUP, PG_COLUMN_ID, PG_PATH, PG_TYPE, PG_PAGE, PG_PAGE_TYPE,
  PG_ENCODING, PG_NUM_VALUES, PG_NUM_NULLS, PG_NUM_ROWS, PG_VALUE_COUNT,
  PG_DEF_ENCODING, PG_REP_ENCODING, PG_MAX_DEF, PG_MAX_REP, PG_CODEC,
  PG_COMPRESSED_SIZE, PG_UNCOMPRESSED_SIZE, PG_OFFSET, PG_HEADER_SIZE,
  PG_CRC, PG_STATS_MIN, PG_STATS_MAX, PG_STATS_NULL_COUNT, PG_HEADER,
  PG_REP_LEVELS, PG_DEF_LEVELS, PG_DATA, PG_DICTIONARY, PG_OPTIONS,
  PG_DEF_OPTIONS, PG_REP_OPTIONS, PG_SOURCE
};

#define PAGES_SCHEMA                                                          \
  "CREATE TABLE x(row_group INTEGER, column_id INTEGER, path TEXT, type "      \
  "TEXT, page INTEGER, page_type TEXT, encoding TEXT, num_values INTEGER, "   \
  "num_nulls INTEGER, num_rows INTEGER, value_count INTEGER, def_encoding "   \
  "TEXT, rep_encoding TEXT, max_def INTEGER, max_rep INTEGER, codec TEXT, "   \
  "compressed_size INTEGER, uncompressed_size INTEGER, offset INTEGER, "      \
  "header_size INTEGER, crc INTEGER, stats_min TEXT, stats_max TEXT, "        \
  "stats_null_count INTEGER, header BLOB, rep_levels BLOB, def_levels BLOB, " \
  "data BLOB, dictionary BLOB, options TEXT, def_options TEXT, rep_options "  \
  "TEXT, source HIDDEN)"

static const pqx_vtab_spec pages_spec = {PAGES_SCHEMA, 1};

typedef struct PagesCursor {
  sqlite3_vtab_cursor base;
  pqx_source src;
  uint32_t row_group, column;
  pq_page_reader *reader;    /* of the current chunk */
  pq_read_room room;         /* its memory, kept from chunk to chunk */
  pq_page page;              /* the current page */
  sqlite3_int64 rowid;
  int eof;
} PagesCursor;

static int pagesOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  PagesCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}

/* The chunk's reader goes; its memory is kept for the next. */
static void pagesDrop(PagesCursor *c) {
  if (c->reader) pq_page_reader_swap_room(c->reader, &c->room);
  pq_page_reader_free(c->reader);
  c->reader = NULL;
}

static void pagesReset(PagesCursor *c) {
  pagesDrop(c);
  c->room.owner = NULL; /* its file goes */
  pqx_source_close(&c->src);
  c->eof = 1;
}

static int pagesClose(sqlite3_vtab_cursor *cur) {
  pagesReset((PagesCursor *)cur);
  pq_buf_free(&((PagesCursor *)cur)->room.window);
  pq_buf_free(&((PagesCursor *)cur)->room.page);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static int pagesError(PagesCursor *c, const pq_error *err, int rc) {
  if (rc == PQ_NOMEM) return SQLITE_NOMEM;
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = pqx_source_error("parquet_pages", c->src.name, err);
  return SQLITE_ERROR;
}

/* Moves to the next page of the file, across chunks. */
static int pagesAdvance(PagesCursor *c) {
  const pq_file_meta *m = pq_file_metadata(c->src.file);
  pq_error err;
  for (;;) {
    if (c->row_group >= m->n_row_groups) {
      c->eof = 1;
      return SQLITE_OK;
    }
    if (!c->reader) {
      int rc = pq_page_reader_open(&c->reader, c->src.file, c->row_group,
                                   c->column, pqx_vtab_limit(c->base.pVtab),
                                   &err);
      if (rc) return pagesError(c, &err, rc);
      pq_page_reader_swap_room(c->reader, &c->room);
    }
    int got, rc = pq_page_reader_next(c->reader, &c->page, &got, &err);
    if (rc) return pagesError(c, &err, rc);
    if (got) return SQLITE_OK;
    pagesDrop(c);
    if (++c->column >= pq_file_leaf_count(c->src.file)) {
      c->column = 0;
      c->row_group++;
    }
  }
}

static int pagesFilter(sqlite3_vtab_cursor *cur, int idxNum,
                       const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  PagesCursor *c = (PagesCursor *)cur;
  pagesReset(c);
  c->row_group = c->column = 0;
  c->rowid = 0;
  if (!(idxNum & 1)) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf(
        "parquet_pages: the source is required, as in "
        "parquet_pages('data.parquet')");
    return SQLITE_ERROR;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  char *msg;
  int rc = pqx_source_open(&c->src, ((pqx_vtab *)cur->pVtab)->db, argv[0],
                           "parquet_pages", 1, &msg);
  if (rc) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = msg;
    return msg ? SQLITE_ERROR : rc;
  }
  c->eof = 0;
  return pagesAdvance(c);
}

static int pagesNext(sqlite3_vtab_cursor *cur) {
  PagesCursor *c = (PagesCursor *)cur;
  c->rowid++;
  return pagesAdvance(c);
}

static int pagesEof(sqlite3_vtab_cursor *cur) {
  return ((PagesCursor *)cur)->eof;
}

static int pagesRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((PagesCursor *)cur)->rowid;
  return SQLITE_OK;
}

static void resultBytes(sqlite3_context *ctx, pq_bytes b) {
  if (b.len == 0) {
    sqlite3_result_zeroblob(ctx, 0);
  } else {
    sqlite3_result_blob64(ctx, b.ptr, b.len, SQLITE_TRANSIENT);
  }
}

static void resultEncoding(sqlite3_context *ctx, int32_t e) {
  if (e < 0) return;
  pqx_result_enum(ctx,
                  e < PQ_ENCODING_COUNT ? pq_encoding_name((pq_encoding)e)
                                        : NULL,
                  e);
}

static int pagesColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx,
                       int col) {
  PagesCursor *c = (PagesCursor *)cur;
  const pq_page *p = &c->page;
  const pq_schema_node *leaf = pq_file_leaf(c->src.file, c->column);
  const pq_schema_element *e = leaf->elem;
  int is_data = p->page_type == PQ_DATA_PAGE || p->page_type == PQ_DATA_PAGE_V2;
  int is_dict = p->page_type == PQ_DICTIONARY_PAGE;
  char opts[96];
  switch (col) {
    case PG_ROW_GROUP: sqlite3_result_int64(ctx, c->row_group); break;
    case PG_COLUMN_ID: sqlite3_result_int64(ctx, c->column); break;
    case PG_PATH: sqlite3_result_text(ctx, leaf->path, -1, SQLITE_TRANSIENT); break;
    case PG_TYPE: pqx_result_mprintf(ctx, pqx_type_text(e->type, e->type_length)); break;
    case PG_PAGE: sqlite3_result_int64(ctx, p->index); break;
    case PG_PAGE_TYPE: pqx_result_enum(ctx, pqx_page_type_name(p->page_type), p->page_type); break;
    case PG_ENCODING:
      if (is_dict && p->encoding == PQ_PLAIN_DICTIONARY) {
        resultEncoding(ctx, PQ_PLAIN);
      } else if (is_data || is_dict) {
        resultEncoding(ctx, p->encoding);
      }
      break;
    case PG_NUM_VALUES: if (is_data || is_dict) sqlite3_result_int(ctx, p->num_values); break;
    case PG_NUM_NULLS:
      if (p->num_nulls >= 0) {
        sqlite3_result_int(ctx, p->num_nulls);
      } else if (is_data) {
        sqlite3_result_int64(ctx, p->num_values - p->value_count);
      }
      break;
    case PG_NUM_ROWS: if (p->num_rows >= 0) sqlite3_result_int(ctx, p->num_rows); break;
    case PG_VALUE_COUNT: if (is_data || is_dict) sqlite3_result_int64(ctx, p->value_count); break;
    case PG_DEF_ENCODING: if (is_data) resultEncoding(ctx, p->def_encoding); break;
    case PG_REP_ENCODING: if (is_data) resultEncoding(ctx, p->rep_encoding); break;
    case PG_MAX_DEF: sqlite3_result_int(ctx, p->max_def); break;
    case PG_MAX_REP: sqlite3_result_int(ctx, p->max_rep); break;
    case PG_CODEC: {
      int codec = pq_page_reader_codec(c->reader);
      pqx_result_enum(ctx, pqx_codec_name(codec), codec);
      break;
    }
    case PG_COMPRESSED_SIZE: sqlite3_result_int(ctx, p->compressed_size); break;
    case PG_UNCOMPRESSED_SIZE: sqlite3_result_int(ctx, p->uncompressed_size); break;
    case PG_OFFSET: sqlite3_result_int64(ctx, p->offset); break;
    case PG_HEADER_SIZE: sqlite3_result_int64(ctx, p->header_size); break;
    case PG_CRC: if (p->has_crc) sqlite3_result_int64(ctx, p->crc); break;
    case PG_STATS_MIN: {
      const pq_statistics *s = &p->statistics;
      int v = s->has_min_value;
      pqx_result_stat(ctx, p->has_statistics && (v || s->has_min),
                      v ? s->min_value : s->min, e->type);
      break;
    }
    case PG_STATS_MAX: {
      const pq_statistics *s = &p->statistics;
      int v = s->has_max_value;
      pqx_result_stat(ctx, p->has_statistics && (v || s->has_max),
                      v ? s->max_value : s->max, e->type);
      break;
    }
    case PG_STATS_NULL_COUNT:
      if (p->has_statistics && p->statistics.has_null_count)
        sqlite3_result_int64(ctx, p->statistics.null_count);
      break;
    case PG_HEADER: resultBytes(ctx, p->header); break;
    case PG_REP_LEVELS: if (is_data && p->max_rep > 0) resultBytes(ctx, p->rep_levels); break;
    case PG_DEF_LEVELS: if (is_data && p->max_def > 0) resultBytes(ctx, p->def_levels); break;
    case PG_DATA: if (is_data || is_dict) resultBytes(ctx, p->values); break;
    case PG_DICTIONARY:
      if (is_data && (p->encoding == PQ_PLAIN_DICTIONARY ||
                      p->encoding == PQ_RLE_DICTIONARY)) {
        const pq_bytes *d = pq_page_reader_dictionary(c->reader, NULL);
        if (d) resultBytes(ctx, *d);
      }
      break;
    case PG_OPTIONS:
      if (is_data || is_dict) {
        pq_page_value_options(p, e->type, opts, sizeof opts);
        sqlite3_result_text(ctx, opts, -1, SQLITE_TRANSIENT);
      }
      break;
    case PG_DEF_OPTIONS:
      if (is_data && p->max_def > 0) {
        pq_page_level_options(p, p->max_def, p->def_encoding, opts, sizeof opts);
        sqlite3_result_text(ctx, opts, -1, SQLITE_TRANSIENT);
      }
      break;
    case PG_REP_OPTIONS:
      if (is_data && p->max_rep > 0) {
        pq_page_level_options(p, p->max_rep, p->rep_encoding, opts, sizeof opts);
        sqlite3_result_text(ctx, opts, -1, SQLITE_TRANSIENT);
      }
      break;
  }
  return SQLITE_OK;
}

static int pagesBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_source_best_index(info, PG_SOURCE);
}

static sqlite3_module pagesModule = {
    .xConnect = pqx_vtab_connect,
    .xBestIndex = pagesBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = pagesOpen,
    .xClose = pagesClose,
    .xFilter = pagesFilter,
    .xNext = pagesNext,
    .xEof = pagesEof,
    .xColumn = pagesColumn,
    .xRowid = pagesRowid,
};

int pqx_register_pages(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet_pages", &pagesModule,
                               (void *)&pages_spec);
}
