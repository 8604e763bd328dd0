/*
** files.c -- parquet_metadata(source) and parquet_schema(source): a
** file's footer as tables, with the columns DuckDB's functions of these
** names have (and, for the schema, the levels of each column).
**
**   SELECT path_in_schema, type, compression, encodings
**     FROM parquet_metadata('data.parquet');
**   SELECT name, type, repetition_type, logical_type
**     FROM parquet_schema('data.parquet');
**   SELECT file_name, sum(total_compressed_size)
**     FROM parquet_metadata('data/year=2023') GROUP BY file_name;
**
** How it works: `source` is the hidden argument (a path, a glob or a
** folder, or a file image as a BLOB).  Its files are read one at a time,
** in order (pqx_sources): each footer once, when the rows of the file
** before are done; each row is then one column chunk (parquet_metadata) or
** one schema element (parquet_schema) of it.  Both read files, so both are
** SQLITE_VTAB_DIRECTONLY.
*/
#include <stdio.h>
#include <string.h>

#include "ext.h"

enum {
  MD_FILE_NAME, MD_ROW_GROUP_ID, MD_ROW_GROUP_NUM_ROWS,
  MD_ROW_GROUP_NUM_COLUMNS, MD_ROW_GROUP_BYTES, MD_COLUMN_ID,
  MD_FILE_OFFSET, MD_NUM_VALUES, MD_PATH_IN_SCHEMA, MD_TYPE, MD_STATS_MIN,
  MD_STATS_MAX, MD_STATS_NULL_COUNT, MD_STATS_DISTINCT_COUNT,
  MD_STATS_MIN_VALUE, MD_STATS_MAX_VALUE, MD_COMPRESSION, MD_ENCODINGS,
  MD_INDEX_PAGE_OFFSET, MD_DICTIONARY_PAGE_OFFSET, MD_DATA_PAGE_OFFSET,
  MD_TOTAL_COMPRESSED_SIZE, MD_TOTAL_UNCOMPRESSED_SIZE,
  MD_KEY_VALUE_METADATA, MD_BLOOM_FILTER_OFFSET, MD_BLOOM_FILTER_LENGTH,
  MD_MIN_IS_EXACT, MD_MAX_IS_EXACT, MD_ROW_GROUP_COMPRESSED_BYTES,
  MD_STATS_MIN_RAW, MD_STATS_MAX_RAW, MD_STATS_MIN_VALUE_RAW,
  MD_STATS_MAX_VALUE_RAW, MD_STATS_NAN_COUNT, MD_UNENCODED,
  MD_REP_HISTOGRAM, MD_DEF_HISTOGRAM, MD_ENCODING_STATS, MD_GEO_BBOX,
  MD_GEO_TYPES, MD_SOURCE
};

#define METADATA_SCHEMA                                                       \
  "CREATE TABLE x(file_name TEXT, row_group_id INTEGER, "                     \
  "row_group_num_rows INTEGER, row_group_num_columns INTEGER, "               \
  "row_group_bytes INTEGER, column_id INTEGER, file_offset INTEGER, "         \
  "num_values INTEGER, path_in_schema TEXT, type TEXT, stats_min TEXT, "      \
  "stats_max TEXT, stats_null_count INTEGER, stats_distinct_count INTEGER, "  \
  "stats_min_value TEXT, stats_max_value TEXT, compression TEXT, "            \
  "encodings TEXT, index_page_offset INTEGER, dictionary_page_offset "        \
  "INTEGER, data_page_offset INTEGER, total_compressed_size INTEGER, "        \
  "total_uncompressed_size INTEGER, key_value_metadata TEXT, "                \
  "bloom_filter_offset INTEGER, bloom_filter_length INTEGER, min_is_exact "   \
  "INTEGER, max_is_exact INTEGER, row_group_compressed_bytes INTEGER, "       \
  "stats_min_raw BLOB, stats_max_raw BLOB, stats_min_value_raw BLOB, "        \
  "stats_max_value_raw BLOB, stats_nan_count INTEGER, "                     \
  "unencoded_byte_array_data_bytes INTEGER, repetition_level_histogram "     \
  "TEXT, definition_level_histogram TEXT, encoding_stats TEXT, "             \
  "geo_bbox TEXT, geo_types TEXT, "                                          \
  "source HIDDEN)"

enum {
  SC_FILE_NAME, SC_NAME, SC_TYPE, SC_TYPE_LENGTH, SC_REPETITION_TYPE,
  SC_NUM_CHILDREN, SC_CONVERTED_TYPE, SC_SCALE, SC_PRECISION, SC_FIELD_ID,
  SC_LOGICAL_TYPE, SC_PATH, SC_COLUMN_ID, SC_MAX_DEF, SC_MAX_REP,
  SC_COLUMN_ORDER, SC_SOURCE
};

#define SCHEMA_SCHEMA                                                       \
  "CREATE TABLE x(file_name TEXT, name TEXT, type TEXT, type_length "       \
  "INTEGER, repetition_type TEXT, num_children INTEGER, converted_type "    \
  "TEXT, scale INTEGER, precision INTEGER, field_id INTEGER, logical_type " \
  "TEXT, path TEXT, column_id INTEGER, max_definition_level INTEGER, "      \
  "max_repetition_level INTEGER, column_order TEXT, source HIDDEN)"

static const pqx_vtab_spec metadata_spec = {METADATA_SCHEMA, 1};
static const pqx_vtab_spec schema_spec = {SCHEMA_SCHEMA, 1};

typedef struct FileCursor {
  sqlite3_vtab_cursor base;
  pqx_sources ss;            /* the files of the source */
  pqx_source src;            /* the one open */
  int is_schema;             /* parquet_schema, else parquet_metadata */
  uint32_t row_group, column; /* metadata: the current chunk */
  uint32_t element;          /* schema: the current element */
  sqlite3_int64 rowid;
  int eof;
} FileCursor;

static int filesOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp, int schema) {
  (void)v;
  FileCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->is_schema = schema;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}
static int metadataOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  return filesOpen(v, pp, 0);
}
static int schemaOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  return filesOpen(v, pp, 1);
}

static int fileClose(sqlite3_vtab_cursor *cur) {
  FileCursor *c = (FileCursor *)cur;
  pqx_source_close(&c->src);
  pqx_sources_close(&c->ss);
  sqlite3_free(c);
  return SQLITE_OK;
}

/* Moves to a row that exists, or to eof. */
static void fileSettle(FileCursor *c) {
  const pq_file_meta *m = pq_file_metadata(c->src.file);
  if (c->is_schema) {
    c->eof = c->element >= m->n_schema;
    return;
  }
  while (c->row_group < m->n_row_groups &&
         c->column >= m->row_groups[c->row_group].n_columns) {
    c->row_group++;
    c->column = 0;
  }
  c->eof = c->row_group >= m->n_row_groups;
}

/* Opens the next file that has rows; eof when none is left. */
static int fileNextSource(FileCursor *c) {
  for (;;) {
    int got;
    char *msg;
    int rc = pqx_sources_next(&c->ss, &c->src, &got, &msg);
    if (rc) {
      sqlite3_free(c->base.pVtab->zErrMsg);
      c->base.pVtab->zErrMsg = msg;
      return msg ? SQLITE_ERROR : rc;
    }
    if (!got) {
      c->eof = 1;
      return SQLITE_OK;
    }
    c->row_group = c->column = c->element = 0;
    fileSettle(c);
    if (!c->eof) return SQLITE_OK;
  }
}

static const char *fileFn(const FileCursor *c) {
  return c->is_schema ? "parquet_schema" : "parquet_metadata";
}

static int fileFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                      int argc, sqlite3_value **argv) {
  (void)idxStr;
  (void)argc;
  FileCursor *c = (FileCursor *)cur;
  const char *fn = fileFn(c);
  pqx_source_close(&c->src);
  pqx_sources_close(&c->ss);
  c->eof = 1;
  c->row_group = c->column = c->element = 0;
  c->rowid = 0;
  if (!(idxNum & 1)) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = sqlite3_mprintf(
        "%s: the source is required, as in %s('data.parquet')", fn, fn);
    return SQLITE_ERROR;
  }
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  char *msg;
  int rc = pqx_sources_open(&c->ss, ((pqx_vtab *)cur->pVtab)->db, argv[0], fn,
                            &msg);
  if (rc) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = msg;
    return msg ? SQLITE_ERROR : rc;
  }
  return fileNextSource(c);
}

static int fileNext(sqlite3_vtab_cursor *cur) {
  FileCursor *c = (FileCursor *)cur;
  if (c->is_schema) {
    c->element++;
  } else {
    c->column++;
  }
  c->rowid++;
  fileSettle(c);
  return c->eof ? fileNextSource(c) : SQLITE_OK;
}

static int fileEof(sqlite3_vtab_cursor *cur) {
  return ((FileCursor *)cur)->eof;
}

static int fileRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = ((FileCursor *)cur)->rowid;
  return SQLITE_OK;
}

static void resultFileName(sqlite3_context *ctx, const FileCursor *c) {
  if (c->src.name) sqlite3_result_text(ctx, c->src.name, -1, SQLITE_TRANSIENT);
}

static void resultOptional(sqlite3_context *ctx, int64_t v) {
  if (v >= 0) sqlite3_result_int64(ctx, v);
}

/* The key/value metadata as a JSON object. */
static void resultKeyValues(sqlite3_context *ctx, const pq_keyvalue *kv,
                            uint32_t n) {
  if (n == 0) return;
  pq_buf b;
  pq_buf_init(&b);
  pq_buf_append(&b, "{", 1);
  for (uint32_t i = 0; i < n; i++) {
    if (i) pq_buf_append(&b, ",", 1);
    pq_json_values(&b, PQ_BYTE_ARRAY, 0, 0, &kv[i].key, 1, 0);
    pq_buf_append(&b, ":", 1);
    if (kv[i].has_value) {
      pq_json_values(&b, PQ_BYTE_ARRAY, 0, 0, &kv[i].value, 1, 0);
    } else {
      pq_buf_append(&b, "null", 4);
    }
  }
  pq_buf_append(&b, "}", 1);
  pqx_result_buf_text(ctx, &b);
}

/* A statistic as the value it is of the leaf's logical type (as DuckDB's
** parquet_metadata shows it), else as pqx_result_stat shows bytes. */
static void resultLogicalStat(sqlite3_context *ctx, int present, pq_bytes v,
                              const pq_schema_node *leaf, pq_type t) {
  if (!present) return;
  if (leaf && leaf->elem->has_type && leaf->elem->type == t) {
    pq_buf b;
    pq_buf_init(&b);
    int ok = pq_stat_text(leaf->elem, v, &b);
    if (ok && b.oom) {
      sqlite3_result_error_nomem(ctx);
    } else if (ok) {
      sqlite3_result_text64(ctx, (const char *)(b.data ? b.data : (const uint8_t *)""),
                            b.len, SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    pq_buf_free(&b);
    if (ok) return;
  }
  pqx_result_stat(ctx, present, v, t);
}

static void resultRaw(sqlite3_context *ctx, int present, pq_bytes v) {
  if (present)
    sqlite3_result_blob64(ctx, v.ptr ? (const void *)v.ptr : "", v.len,
                          SQLITE_TRANSIENT);
}

/* A level histogram as a JSON array. */
static void resultHistogram(sqlite3_context *ctx, const int64_t *h,
                            uint32_t n) {
  if (!h) return;
  char *s = sqlite3_mprintf("[");
  for (uint32_t i = 0; s && i < n; i++)
    s = sqlite3_mprintf("%z%s%lld", s, i ? "," : "", (long long)h[i]);
  pqx_result_mprintf(ctx, s ? sqlite3_mprintf("%z]", s) : NULL);
}

/* encoding_stats as a JSON array of {"page_type","encoding","count"}. */
static void resultEncodingStats(sqlite3_context *ctx, const pq_column_meta *cm) {
  if (!cm->encoding_stats && cm->n_encoding_stats == 0) return;
  char *s = sqlite3_mprintf("[");
  for (uint32_t i = 0; s && i < cm->n_encoding_stats; i++) {
    const pq_page_encoding_stats *e = &cm->encoding_stats[i];
    const char *pt = pqx_page_type_name(e->page_type);
    const char *en = e->encoding >= 0 && e->encoding < PQ_ENCODING_COUNT
                         ? pq_encoding_name((pq_encoding)e->encoding)
                         : NULL;
    char t[2][16]; /* a number without a name */
    snprintf(t[0], sizeof t[0], "%d", e->page_type);
    snprintf(t[1], sizeof t[1], "%d", e->encoding);
    /* one allocation an entry: a failure leaves s NULL */
    s = sqlite3_mprintf("%z%s{\"page_type\":%s%s%s,\"encoding\":%s%s%s,"
                        "\"count\":%d}",
                        s, i ? "," : "", pt ? "\"" : "", pt ? pt : t[0],
                        pt ? "\"" : "", en ? "\"" : "", en ? en : t[1],
                        en ? "\"" : "", e->count);
  }
  pqx_result_mprintf(ctx, s ? sqlite3_mprintf("%z]", s) : NULL);
}

/* GeospatialStatistics as DuckDB casts geo_bbox and geo_types to text:
** NULL when the chunk has none (geo_bbox also when it has no bbox). */
static void resultGeo(sqlite3_context *ctx, const pq_column_meta *cm,
                      int bbox) {
  const pq_geo_statistics *g = &cm->geo_statistics;
  if (!cm->has_geo_statistics || (bbox && !g->has_bbox)) return;
  pq_buf b;
  pq_buf_init(&b);
  if (bbox) {
    pq_geo_bbox_text(g, &b);
  } else {
    pq_geo_types_text(g, &b);
  }
  pqx_result_buf_text(ctx, &b);
}

static void metadataColumn(const FileCursor *c, sqlite3_context *ctx,
                           int col) {
  const pq_file_meta *m = pq_file_metadata(c->src.file);
  const pq_row_group *g = &m->row_groups[c->row_group];
  const pq_column_chunk *cc = &g->columns[c->column];
  const pq_column_meta *cm = &cc->meta;
  const pq_statistics *st = &cm->statistics;
  int has = cc->has_meta_data, hs = has && cm->has_statistics;
  switch (col) {
    case MD_FILE_NAME: resultFileName(ctx, c); break;
    case MD_ROW_GROUP_ID: sqlite3_result_int64(ctx, c->row_group); break;
    case MD_ROW_GROUP_NUM_ROWS: sqlite3_result_int64(ctx, g->num_rows); break;
    case MD_ROW_GROUP_NUM_COLUMNS: sqlite3_result_int64(ctx, g->n_columns); break;
    case MD_ROW_GROUP_BYTES: sqlite3_result_int64(ctx, g->total_byte_size); break;
    case MD_ROW_GROUP_COMPRESSED_BYTES: resultOptional(ctx, g->total_compressed_size); break;
    case MD_COLUMN_ID: sqlite3_result_int64(ctx, c->column); break;
    case MD_FILE_OFFSET: sqlite3_result_int64(ctx, cc->file_offset); break;
    case MD_PATH_IN_SCHEMA: {
      const pq_schema_node *leaf = pq_file_leaf(c->src.file, c->column);
      if (leaf && leaf->path) sqlite3_result_text(ctx, leaf->path, -1, SQLITE_TRANSIENT);
      break;
    }
    default: {
      if (!has) break;
      const pq_schema_node *leaf = pq_file_leaf(c->src.file, c->column);
      switch (col) {
        case MD_NUM_VALUES: sqlite3_result_int64(ctx, cm->num_values); break;
        case MD_TYPE: sqlite3_result_text(ctx, pq_type_name(cm->type), -1, SQLITE_STATIC); break;
        case MD_STATS_MIN: resultLogicalStat(ctx, hs && st->has_min, st->min, leaf, cm->type); break;
        case MD_STATS_MAX: resultLogicalStat(ctx, hs && st->has_max, st->max, leaf, cm->type); break;
        case MD_STATS_MIN_VALUE: resultLogicalStat(ctx, hs && st->has_min_value, st->min_value, leaf, cm->type); break;
        case MD_STATS_MAX_VALUE: resultLogicalStat(ctx, hs && st->has_max_value, st->max_value, leaf, cm->type); break;
        case MD_STATS_MIN_RAW: resultRaw(ctx, hs && st->has_min, st->min); break;
        case MD_STATS_MAX_RAW: resultRaw(ctx, hs && st->has_max, st->max); break;
        case MD_STATS_MIN_VALUE_RAW: resultRaw(ctx, hs && st->has_min_value, st->min_value); break;
        case MD_STATS_MAX_VALUE_RAW: resultRaw(ctx, hs && st->has_max_value, st->max_value); break;
        case MD_STATS_NULL_COUNT: if (hs && st->has_null_count) sqlite3_result_int64(ctx, st->null_count); break;
        case MD_STATS_DISTINCT_COUNT: if (hs && st->has_distinct_count) sqlite3_result_int64(ctx, st->distinct_count); break;
        case MD_MIN_IS_EXACT: if (hs && st->is_min_value_exact >= 0) sqlite3_result_int(ctx, st->is_min_value_exact); break;
        case MD_MAX_IS_EXACT: if (hs && st->is_max_value_exact >= 0) sqlite3_result_int(ctx, st->is_max_value_exact); break;
        case MD_COMPRESSION: pqx_result_enum(ctx, pqx_codec_name(cm->codec), cm->codec); break;
        case MD_ENCODINGS: {
          char *s = NULL;
          for (uint32_t i = 0; i < cm->n_encodings; i++) {
            int e = cm->encodings[i];
            const char *name = e >= 0 && e < PQ_ENCODING_COUNT ? pq_encoding_name((pq_encoding)e) : NULL;
            char *t = name ? sqlite3_mprintf("%z%s%s", s, i ? ", " : "", name)
                           : sqlite3_mprintf("%z%s%d", s, i ? ", " : "", e);
            if (!t) {
              sqlite3_result_error_nomem(ctx);
              return;
            }
            s = t;
          }
          pqx_result_mprintf(ctx, s);
          break;
        }
        case MD_INDEX_PAGE_OFFSET: resultOptional(ctx, cm->index_page_offset); break;
        case MD_DICTIONARY_PAGE_OFFSET: resultOptional(ctx, cm->dictionary_page_offset); break;
        case MD_DATA_PAGE_OFFSET: sqlite3_result_int64(ctx, cm->data_page_offset); break;
        case MD_TOTAL_COMPRESSED_SIZE: sqlite3_result_int64(ctx, cm->total_compressed_size); break;
        case MD_TOTAL_UNCOMPRESSED_SIZE: sqlite3_result_int64(ctx, cm->total_uncompressed_size); break;
        case MD_KEY_VALUE_METADATA: resultKeyValues(ctx, cm->key_value, cm->n_key_value); break;
        case MD_BLOOM_FILTER_OFFSET: resultOptional(ctx, cm->bloom_filter_offset); break;
        case MD_BLOOM_FILTER_LENGTH: resultOptional(ctx, cm->bloom_filter_length); break;
        case MD_STATS_NAN_COUNT: if (hs && st->has_nan_count) sqlite3_result_int64(ctx, st->nan_count); break;
        case MD_UNENCODED: resultOptional(ctx, cm->unencoded_byte_array_data_bytes); break;
        case MD_REP_HISTOGRAM: resultHistogram(ctx, cm->rep_level_histogram, cm->n_rep_level_histogram); break;
        case MD_DEF_HISTOGRAM: resultHistogram(ctx, cm->def_level_histogram, cm->n_def_level_histogram); break;
        case MD_ENCODING_STATS: resultEncodingStats(ctx, cm); break;
        case MD_GEO_BBOX: resultGeo(ctx, cm, 1); break;
        case MD_GEO_TYPES: resultGeo(ctx, cm, 0); break;
      }
    }
  }
}

/* The schema node of element i (the tree's nodes are in element order). */
static const pq_schema_node *schemaNode(const FileCursor *c, uint32_t i) {
  return pq_file_schema(c->src.file) + i;
}

static void schemaColumn(const FileCursor *c, sqlite3_context *ctx, int col) {
  const pq_file_meta *m = pq_file_metadata(c->src.file);
  const pq_schema_element *e = &m->schema[c->element];
  const pq_schema_node *n = schemaNode(c, c->element);
  switch (col) {
    case SC_FILE_NAME: resultFileName(ctx, c); break;
    case SC_NAME:
      sqlite3_result_text64(ctx, (const char *)e->name.ptr, e->name.len,
                            SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case SC_TYPE:
      if (e->has_type) sqlite3_result_text(ctx, pq_type_name(e->type), -1, SQLITE_STATIC);
      break;
    case SC_TYPE_LENGTH:
      if (e->has_type && e->type == PQ_FIXED_LEN_BYTE_ARRAY) sqlite3_result_int(ctx, e->type_length);
      break;
    case SC_REPETITION_TYPE:
      if (e->repetition >= 0) pqx_result_enum(ctx, pqx_repetition_name(e->repetition), e->repetition);
      break;
    case SC_NUM_CHILDREN: resultOptional(ctx, e->num_children); break;
    case SC_CONVERTED_TYPE:
      if (e->converted_type >= 0) pqx_result_enum(ctx, pqx_converted_name(e->converted_type), e->converted_type);
      break;
    case SC_SCALE: resultOptional(ctx, e->scale); break;
    case SC_PRECISION: resultOptional(ctx, e->precision); break;
    case SC_FIELD_ID: resultOptional(ctx, e->field_id); break;
    case SC_LOGICAL_TYPE:
      if (e->logical_type) pqx_result_mprintf(ctx, pqx_logical_text(e));
      break;
    case SC_PATH:
      if (n->path) sqlite3_result_text(ctx, n->path, -1, SQLITE_TRANSIENT);
      break;
    case SC_COLUMN_ID: resultOptional(ctx, n->leaf); break;
    case SC_MAX_DEF: sqlite3_result_int(ctx, n->max_def); break;
    case SC_MAX_REP: sqlite3_result_int(ctx, n->max_rep); break;
    case SC_COLUMN_ORDER:
      if (n->leaf >= 0) {
        int o = pq_column_order(m, (uint32_t)n->leaf);
        if (o) pqx_result_enum(ctx, pqx_column_order_name(o), o);
      }
      break;
  }
}

static int fileColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  const FileCursor *c = (const FileCursor *)cur;
  if (c->is_schema) {
    schemaColumn(c, ctx, col);
  } else {
    metadataColumn(c, ctx, col);
  }
  return SQLITE_OK;
}

static int metadataBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_source_best_index(info, MD_SOURCE);
}

static int schemaBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  return pqx_source_best_index(info, SC_SOURCE);
}

static sqlite3_module metadataModule = {
    .xConnect = pqx_vtab_connect,
    .xBestIndex = metadataBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = metadataOpen,
    .xClose = fileClose,
    .xFilter = fileFilter,
    .xNext = fileNext,
    .xEof = fileEof,
    .xColumn = fileColumn,
    .xRowid = fileRowid,
};

static sqlite3_module schemaModule = {
    .xConnect = pqx_vtab_connect,
    .xBestIndex = schemaBestIndex,
    .xDisconnect = pqx_vtab_disconnect,
    .xOpen = schemaOpen,
    .xClose = fileClose,
    .xFilter = fileFilter,
    .xNext = fileNext,
    .xEof = fileEof,
    .xColumn = fileColumn,
    .xRowid = fileRowid,
};

int pqx_register_files(sqlite3 *db) {
  int rc = sqlite3_create_module(db, "parquet_metadata", &metadataModule,
                                 (void *)&metadata_spec);
  if (rc == SQLITE_OK) {
    rc = sqlite3_create_module(db, "parquet_schema", &schemaModule,
                               (void *)&schema_spec);
  }
  return rc;
}
