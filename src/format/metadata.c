/*
** metadata.c -- a file's footer (spec/README.md, "File Format";
** parquet.thrift, FileMetaData) read into the structures of parquet.h.
**
**   "PAR1" <column chunks> <FileMetaData> <4-byte length> "PAR1"
**
** Fields this reader does not know are skipped.  Every list length is
** checked against the bytes left before anything is allocated for it, and
** every enum value a later step relies on is checked against its range.
*/
#include "format.h"

/* ---- Parsing -------------------------------------------------------------- */

typedef pq_parser parser;

/* Allocates n elements of size sz for a list the reader has bounded. */
static void *alloc_list(parser *ps, uint32_t n, size_t sz) {
  if (n == 0) return NULL;
  void *p = pq_arena_alloc(ps->arena, (size_t)n * sz);
  if (!p) {
    ps->nomem = 1;
    pq_thrift_fail(&ps->t, "out of memory");
  }
  return p;
}

int pq_parse_want(parser *ps, int type, int expect) {
  if (type == expect ||
      (expect == PQ_TT_TRUE && (type == PQ_TT_TRUE || type == PQ_TT_FALSE)))
    return 1;
  pq_thrift_skip(&ps->t, type);
  return 0;
}

/* Starts a struct value inside a list or a field. */
#define STRUCT_FIELDS(ps, type, id)                  \
  int type;                                          \
  int16_t id, last_##id = 0;                         \
  if (!pq_thrift_enter(&(ps)->t)) return;            \
  while (pq_thrift_field(&(ps)->t, &type, &last_##id, &id))

#define STRUCT_END(ps) pq_thrift_leave(&(ps)->t)

static void parse_keyvalue(parser *ps, pq_keyvalue *kv) {
  STRUCT_FIELDS(ps, type, id) {
    if (id == 1 && pq_parse_want(ps, type, PQ_TT_BINARY)) {
      kv->key = pq_thrift_binary(&ps->t);
    } else if (id == 2 && pq_parse_want(ps, type, PQ_TT_BINARY)) {
      kv->value = pq_thrift_binary(&ps->t);
      kv->has_value = 1;
    } else if (id > 2) {
      pq_thrift_skip(&ps->t, type);
    }
  }
  STRUCT_END(ps);
}

static void parse_keyvalues(parser *ps, int type, pq_keyvalue **out,
                            uint32_t *n) {
  if (!pq_parse_want(ps, type, PQ_TT_LIST)) return;
  int et;
  *n = pq_thrift_list(&ps->t, &et);
  if (*n && et != PQ_TT_STRUCT) {
    pq_thrift_fail(&ps->t, "Thrift: key/value metadata is not a list of structs");
    *n = 0;
    return;
  }
  *out = alloc_list(ps, *n, sizeof **out);
  for (uint32_t i = 0; i < *n && !ps->t.failed; i++) parse_keyvalue(ps, &(*out)[i]);
}

void pq_parse_statistics(pq_parser *ps, pq_statistics *s) {
  pq_thrift *t = &ps->t;
  s->is_max_value_exact = s->is_min_value_exact = -1;
  STRUCT_FIELDS(ps, type, id) {
    switch (id) {
      case 1:
        if (pq_parse_want(ps, type, PQ_TT_BINARY)) s->max = pq_thrift_binary(t), s->has_max = 1;
        break;
      case 2:
        if (pq_parse_want(ps, type, PQ_TT_BINARY)) s->min = pq_thrift_binary(t), s->has_min = 1;
        break;
      case 3:
        if (pq_parse_want(ps, type, PQ_TT_I64)) s->null_count = pq_thrift_i64(t), s->has_null_count = 1;
        break;
      case 4:
        if (pq_parse_want(ps, type, PQ_TT_I64))
          s->distinct_count = pq_thrift_i64(t), s->has_distinct_count = 1;
        break;
      case 5:
        if (pq_parse_want(ps, type, PQ_TT_BINARY))
          s->max_value = pq_thrift_binary(t), s->has_max_value = 1;
        break;
      case 6:
        if (pq_parse_want(ps, type, PQ_TT_BINARY))
          s->min_value = pq_thrift_binary(t), s->has_min_value = 1;
        break;
      case 7:
        if (pq_parse_want(ps, type, PQ_TT_TRUE)) s->is_max_value_exact = type == PQ_TT_TRUE;
        break;
      case 8:
        if (pq_parse_want(ps, type, PQ_TT_TRUE)) s->is_min_value_exact = type == PQ_TT_TRUE;
        break;
      case 9:
        if (pq_parse_want(ps, type, PQ_TT_I64)) s->nan_count = pq_thrift_i64(t), s->has_nan_count = 1;
        break;
      default:
        pq_thrift_skip(t, type);
    }
  }
  STRUCT_END(ps);
}

/* TimeUnit: a union of empty structs; the member's id is the unit. */
static void parse_time_unit(parser *ps, int *unit) {
  STRUCT_FIELDS(ps, type, id) {
    *unit = id;
    pq_thrift_skip(&ps->t, type);
  }
  STRUCT_END(ps);
}

/* The details of a LogicalType member, where a reader needs them. */
static void parse_logical_detail(parser *ps, pq_schema_element *e) {
  int kind = e->logical_type;
  STRUCT_FIELDS(ps, type, id) {
    if (kind == 5 && id == 1 && pq_parse_want(ps, type, PQ_TT_I32)) {
      e->logical_scale = pq_thrift_i32(&ps->t);
    } else if (kind == 5 && id == 2 && pq_parse_want(ps, type, PQ_TT_I32)) {
      e->logical_precision = pq_thrift_i32(&ps->t);
    } else if ((kind == 7 || kind == 8) && id == 1 &&
               pq_parse_want(ps, type, PQ_TT_TRUE)) {
      e->logical_utc = type == PQ_TT_TRUE;
    } else if ((kind == 7 || kind == 8) && id == 2 &&
               pq_parse_want(ps, type, PQ_TT_STRUCT)) {
      parse_time_unit(ps, &e->logical_unit);
    } else if (kind == 10 && id == 1 && pq_parse_want(ps, type, PQ_TT_BYTE)) {
      e->logical_bit_width = (int8_t)pq_thrift_byte(&ps->t);
    } else if (kind == 10 && id == 2 && pq_parse_want(ps, type, PQ_TT_TRUE)) {
      e->logical_signed = type == PQ_TT_TRUE;
    } else if ((kind == 17 || kind == 18) && id == 1 &&
               pq_parse_want(ps, type, PQ_TT_BINARY)) {
      e->logical_crs = pq_thrift_binary(&ps->t);
      e->has_logical_crs = 1;
    } else if (kind == 18 && id == 2 && pq_parse_want(ps, type, PQ_TT_I32)) {
      /* (an algorithm of a later spec is kept: only shown) */
      e->logical_algorithm = pq_thrift_i32(&ps->t);
    } else {
      pq_thrift_skip(&ps->t, type);
    }
  }
  STRUCT_END(ps);
}

static void parse_logical_type(parser *ps, pq_schema_element *e) {
  STRUCT_FIELDS(ps, type, id) {
    if (type == PQ_TT_STRUCT && id > 0) {
      e->logical_type = id; /* unknown ids are kept: the type is unknown */
      parse_logical_detail(ps, e);
    } else {
      pq_thrift_skip(&ps->t, type);
    }
  }
  STRUCT_END(ps);
}

static void parse_schema_element(parser *ps, pq_schema_element *e) {
  pq_thrift *t = &ps->t;
  int has_name = 0;
  e->repetition = e->num_children = e->converted_type = -1;
  e->scale = e->precision = e->field_id = -1;
  e->logical_algorithm = -1;
  STRUCT_FIELDS(ps, type, id) {
    switch (id) {
      case 1:
        if (pq_parse_want(ps, type, PQ_TT_I32)) {
          int32_t v = pq_thrift_i32(t);
          if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY) {
            pq_thrift_fail(t, "schema: unknown physical type");
          }
          e->type = (pq_type)v;
          e->has_type = 1;
        }
        break;
      case 2:
        if (pq_parse_want(ps, type, PQ_TT_I32)) e->type_length = pq_thrift_i32(t);
        break;
      case 3:
        if (pq_parse_want(ps, type, PQ_TT_I32)) {
          e->repetition = pq_thrift_i32(t);
          if (e->repetition < 0 || e->repetition > 2) {
            pq_thrift_fail(t, "schema: unknown repetition type");
          }
        }
        break;
      case 4:
        if (pq_parse_want(ps, type, PQ_TT_BINARY)) {
          e->name = pq_thrift_binary(t);
          has_name = 1;
        }
        break;
      case 5:
        if (pq_parse_want(ps, type, PQ_TT_I32)) {
          e->num_children = pq_thrift_i32(t);
          if (e->num_children < 0) {
            pq_thrift_fail(t, "schema: a negative number of children");
          }
        }
        break;
      case 6:
        if (pq_parse_want(ps, type, PQ_TT_I32)) e->converted_type = pq_thrift_i32(t);
        break;
      case 7:
        if (pq_parse_want(ps, type, PQ_TT_I32)) e->scale = pq_thrift_i32(t);
        break;
      case 8:
        if (pq_parse_want(ps, type, PQ_TT_I32)) e->precision = pq_thrift_i32(t);
        break;
      case 9:
        if (pq_parse_want(ps, type, PQ_TT_I32)) e->field_id = pq_thrift_i32(t);
        break;
      case 10:
        if (pq_parse_want(ps, type, PQ_TT_STRUCT)) parse_logical_type(ps, e);
        break;
      default:
        pq_thrift_skip(t, type);
    }
  }
  STRUCT_END(ps);
  if (!has_name) pq_thrift_fail(t, "schema: an element has no name");
}

/* A list<i64> into the arena: *n entries (NULL when there are none). */
static void parse_i64_list(parser *ps, int type, int64_t **out, uint32_t *n) {
  if (!pq_parse_want(ps, type, PQ_TT_LIST)) return;
  int et;
  uint32_t k = pq_thrift_list(&ps->t, &et);
  if (k && et != PQ_TT_I64 && et != PQ_TT_I32) {
    pq_thrift_fail(&ps->t, "Thrift: a level histogram is not a list of "
                           "integers");
    return;
  }
  *n = k;
  *out = alloc_list(ps, k, sizeof **out);
  for (uint32_t i = 0; i < k && !ps->t.failed; i++)
    (*out)[i] = pq_thrift_i64(&ps->t);
}

/* SizeStatistics (ColumnMetaData field 16). */
static void parse_size_statistics(parser *ps, pq_column_meta *m) {
  STRUCT_FIELDS(ps, type, id) {
    if (id == 1 && pq_parse_want(ps, type, PQ_TT_I64)) {
      m->unencoded_byte_array_data_bytes = pq_thrift_i64(&ps->t);
    } else if (id == 2) {
      parse_i64_list(ps, type, &m->rep_level_histogram,
                     &m->n_rep_level_histogram);
    } else if (id == 3) {
      parse_i64_list(ps, type, &m->def_level_histogram,
                     &m->n_def_level_histogram);
    } else if (id < 1 || id > 3) {
      pq_thrift_skip(&ps->t, type);
    }
  }
  STRUCT_END(ps);
}

/* BoundingBox: each double flagged in bbox_has as it comes. */
static void parse_bbox(parser *ps, pq_geo_statistics *g) {
  STRUCT_FIELDS(ps, type, id) {
    if (id >= 1 && id <= 8 && pq_parse_want(ps, type, PQ_TT_DOUBLE)) {
      g->bbox[id - 1] = pq_thrift_double(&ps->t);
      g->bbox_has |= 1u << (id - 1);
    } else if (id < 1 || id > 8) {
      pq_thrift_skip(&ps->t, type);
    }
  }
  STRUCT_END(ps);
}

/* encoding_stats (ColumnMetaData field 13): list<PageEncodingStats>. */
static void parse_encoding_stats(parser *ps, int type, pq_column_meta *m) {
  if (!pq_parse_want(ps, type, PQ_TT_LIST)) return;
  int et;
  uint32_t k = pq_thrift_list(&ps->t, &et);
  if (k && et != PQ_TT_STRUCT) {
    pq_thrift_fail(&ps->t, "Thrift: encoding_stats is not a list of structs");
    return;
  }
  m->n_encoding_stats = k;
  m->encoding_stats = alloc_list(ps, k, sizeof *m->encoding_stats);
  for (uint32_t i = 0; i < k && !ps->t.failed; i++) {
    pq_page_encoding_stats *e = &m->encoding_stats[i];
    int seen = 0;
    STRUCT_FIELDS(ps, ft, id) {
      if (id >= 1 && id <= 3 && pq_parse_want(ps, ft, PQ_TT_I32)) {
        int32_t v = pq_thrift_i32(&ps->t);
        *(id == 1 ? &e->page_type : id == 2 ? &e->encoding : &e->count) = v;
        seen |= 1 << id;
      } else if (id < 1 || id > 3) {
        pq_thrift_skip(&ps->t, ft);
      }
    }
    STRUCT_END(ps);
    if (!ps->t.failed && seen != 0xE)
      pq_thrift_fail(&ps->t, "Thrift: a PageEncodingStats lacks a required "
                             "field");
  }
}

/* GeospatialStatistics (spec/Geospatial.md). */
static void parse_geo_statistics(parser *ps, pq_geo_statistics *g) {
  pq_thrift *t = &ps->t;
  STRUCT_FIELDS(ps, type, id) {
    int et;
    if (id == 1 && pq_parse_want(ps, type, PQ_TT_STRUCT)) {
      g->has_bbox = 1;
      parse_bbox(ps, g);
    } else if (id == 2 && pq_parse_want(ps, type, PQ_TT_LIST)) {
      g->has_types = 1;
      g->n_types = pq_thrift_list(t, &et);
      if (g->n_types && et != PQ_TT_I32) {
        pq_thrift_fail(t, "Thrift: geospatial types are not a list of i32");
        g->n_types = 0;
        break;
      }
      g->types = alloc_list(ps, g->n_types, sizeof *g->types);
      for (uint32_t i = 0; i < g->n_types && !t->failed; i++)
        g->types[i] = pq_thrift_i32(t);
    } else if (id != 1 && id != 2) {
      pq_thrift_skip(t, type);
    }
  }
  STRUCT_END(ps);
}

static void parse_column_meta(parser *ps, pq_column_meta *m) {
  pq_thrift *t = &ps->t;
  m->index_page_offset = m->dictionary_page_offset = -1;
  m->bloom_filter_offset = -1;
  m->bloom_filter_length = -1;
  m->unencoded_byte_array_data_bytes = -1;
  STRUCT_FIELDS(ps, type, id) {
    int et;
    switch (id) {
      case 1:
        if (pq_parse_want(ps, type, PQ_TT_I32)) {
          int32_t v = pq_thrift_i32(t);
          if (v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY) {
            pq_thrift_fail(t, "column metadata: unknown physical type");
          }
          m->type = (pq_type)v;
        }
        break;
      case 2:
        if (!pq_parse_want(ps, type, PQ_TT_LIST)) break;
        m->n_encodings = pq_thrift_list(t, &et);
        m->encodings = alloc_list(ps, m->n_encodings, sizeof *m->encodings);
        for (uint32_t i = 0; i < m->n_encodings && !t->failed; i++)
          m->encodings[i] = pq_thrift_i32(t);
        break;
      case 3:
        if (!pq_parse_want(ps, type, PQ_TT_LIST)) break;
        m->n_path = pq_thrift_list(t, &et);
        m->path = alloc_list(ps, m->n_path, sizeof *m->path);
        for (uint32_t i = 0; i < m->n_path && !t->failed; i++)
          m->path[i] = pq_thrift_binary(t);
        break;
      case 4:
        if (pq_parse_want(ps, type, PQ_TT_I32)) m->codec = pq_thrift_i32(t);
        break;
      case 5:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->num_values = pq_thrift_i64(t);
        break;
      case 6:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->total_uncompressed_size = pq_thrift_i64(t);
        break;
      case 7:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->total_compressed_size = pq_thrift_i64(t);
        break;
      case 8:
        parse_keyvalues(ps, type, &m->key_value, &m->n_key_value);
        break;
      case 9:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->data_page_offset = pq_thrift_i64(t);
        break;
      case 10:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->index_page_offset = pq_thrift_i64(t);
        break;
      case 11:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->dictionary_page_offset = pq_thrift_i64(t);
        break;
      case 12:
        if (pq_parse_want(ps, type, PQ_TT_STRUCT)) {
          m->has_statistics = 1;
          pq_parse_statistics(ps, &m->statistics);
        }
        break;
      case 13:
        parse_encoding_stats(ps, type, m);
        break;
      case 14:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->bloom_filter_offset = pq_thrift_i64(t);
        break;
      case 16:
        if (pq_parse_want(ps, type, PQ_TT_STRUCT)) {
          m->has_size_statistics = 1;
          parse_size_statistics(ps, m);
        }
        break;
      case 15:
        if (pq_parse_want(ps, type, PQ_TT_I32)) m->bloom_filter_length = pq_thrift_i32(t);
        break;
      case 17:
        if (pq_parse_want(ps, type, PQ_TT_STRUCT)) {
          m->has_geo_statistics = 1;
          parse_geo_statistics(ps, &m->geo_statistics);
        }
        break;
      default:
        pq_thrift_skip(t, type);
    }
  }
  STRUCT_END(ps);
}

static void parse_column_chunk(parser *ps, pq_column_chunk *c) {
  pq_thrift *t = &ps->t;
  c->offset_index_offset = c->column_index_offset = -1;
  c->offset_index_length = c->column_index_length = -1;
  STRUCT_FIELDS(ps, type, id) {
    switch (id) {
      case 1:
        if (pq_parse_want(ps, type, PQ_TT_BINARY)) {
          c->file_path = pq_thrift_binary(t);
          c->has_file_path = 1;
        }
        break;
      case 2:
        if (pq_parse_want(ps, type, PQ_TT_I64)) c->file_offset = pq_thrift_i64(t);
        break;
      case 3:
        if (pq_parse_want(ps, type, PQ_TT_STRUCT)) {
          c->has_meta_data = 1;
          parse_column_meta(ps, &c->meta);
        }
        break;
      case 4:
        if (pq_parse_want(ps, type, PQ_TT_I64)) c->offset_index_offset = pq_thrift_i64(t);
        break;
      case 5:
        if (pq_parse_want(ps, type, PQ_TT_I32)) c->offset_index_length = pq_thrift_i32(t);
        break;
      case 6:
        if (pq_parse_want(ps, type, PQ_TT_I64)) c->column_index_offset = pq_thrift_i64(t);
        break;
      case 7:
        if (pq_parse_want(ps, type, PQ_TT_I32)) c->column_index_length = pq_thrift_i32(t);
        break;
      case 8:
      case 9:
        c->encrypted = 1;
        pq_thrift_skip(t, type);
        break;
      default:
        pq_thrift_skip(t, type);
    }
  }
  STRUCT_END(ps);
}

static void parse_row_group(parser *ps, pq_row_group *g) {
  pq_thrift *t = &ps->t;
  g->file_offset = g->total_compressed_size = -1;
  g->ordinal = -1;
  STRUCT_FIELDS(ps, type, id) {
    int et;
    switch (id) {
      case 1:
        if (!pq_parse_want(ps, type, PQ_TT_LIST)) break;
        g->n_columns = pq_thrift_list(t, &et);
        if (g->n_columns && et != PQ_TT_STRUCT) {
          pq_thrift_fail(t, "Thrift: columns are not a list of structs");
          break;
        }
        g->columns = alloc_list(ps, g->n_columns, sizeof *g->columns);
        for (uint32_t i = 0; i < g->n_columns && !t->failed; i++)
          parse_column_chunk(ps, &g->columns[i]);
        break;
      case 2:
        if (pq_parse_want(ps, type, PQ_TT_I64)) g->total_byte_size = pq_thrift_i64(t);
        break;
      case 3:
        if (pq_parse_want(ps, type, PQ_TT_I64)) g->num_rows = pq_thrift_i64(t);
        break;
      case 5:
        if (pq_parse_want(ps, type, PQ_TT_I64)) g->file_offset = pq_thrift_i64(t);
        break;
      case 6:
        if (pq_parse_want(ps, type, PQ_TT_I64)) g->total_compressed_size = pq_thrift_i64(t);
        break;
      case 7:
        if (pq_parse_want(ps, type, PQ_TT_I16)) g->ordinal = (int32_t)pq_thrift_i64(t);
        break;
      default:
        pq_thrift_skip(t, type);
    }
  }
  STRUCT_END(ps);
}

/* column_orders (FileMetaData field 7): list<ColumnOrder>, a union whose
** member's id is kept (0 for an empty one). */
static void parse_column_orders(parser *ps, int type, pq_file_meta *m) {
  if (!pq_parse_want(ps, type, PQ_TT_LIST)) return;
  m->has_column_orders = 1;
  int et;
  uint32_t k = pq_thrift_list(&ps->t, &et);
  if (k && et != PQ_TT_STRUCT) {
    pq_thrift_fail(&ps->t, "Thrift: column_orders is not a list of structs");
    return;
  }
  m->n_column_orders = k;
  m->column_orders = alloc_list(ps, k, sizeof *m->column_orders);
  for (uint32_t i = 0; i < k && !ps->t.failed; i++) {
    int32_t member = 0;
    STRUCT_FIELDS(ps, ft, id) {
      if (ft == PQ_TT_STRUCT && id > 0) member = id;
      pq_thrift_skip(&ps->t, ft);
    }
    STRUCT_END(ps);
    m->column_orders[i] = member;
  }
}

int pq_column_order(const pq_file_meta *m, uint32_t leaf) {
  return leaf < m->n_column_orders ? m->column_orders[leaf] : 0;
}

void pq_parse_file_meta(parser *ps, pq_file_meta *m) {
  pq_thrift *t = &ps->t;
  int has_schema = 0;
  STRUCT_FIELDS(ps, type, id) {
    int et;
    switch (id) {
      case 1:
        if (pq_parse_want(ps, type, PQ_TT_I32)) m->version = pq_thrift_i32(t);
        break;
      case 2:
        if (!pq_parse_want(ps, type, PQ_TT_LIST)) break;
        has_schema = 1;
        m->n_schema = pq_thrift_list(t, &et);
        if (m->n_schema && et != PQ_TT_STRUCT) {
          pq_thrift_fail(t, "Thrift: the schema is not a list of structs");
          break;
        }
        m->schema = alloc_list(ps, m->n_schema, sizeof *m->schema);
        for (uint32_t i = 0; i < m->n_schema && !t->failed; i++)
          parse_schema_element(ps, &m->schema[i]);
        break;
      case 3:
        if (pq_parse_want(ps, type, PQ_TT_I64)) m->num_rows = pq_thrift_i64(t);
        break;
      case 4:
        if (!pq_parse_want(ps, type, PQ_TT_LIST)) break;
        m->n_row_groups = pq_thrift_list(t, &et);
        if (m->n_row_groups && et != PQ_TT_STRUCT) {
          pq_thrift_fail(t, "Thrift: row groups are not a list of structs");
          break;
        }
        m->row_groups = alloc_list(ps, m->n_row_groups, sizeof *m->row_groups);
        for (uint32_t i = 0; i < m->n_row_groups && !t->failed; i++)
          parse_row_group(ps, &m->row_groups[i]);
        break;
      case 5:
        parse_keyvalues(ps, type, &m->key_value, &m->n_key_value);
        break;
      case 6:
        if (pq_parse_want(ps, type, PQ_TT_BINARY)) {
          m->created_by = pq_thrift_binary(t);
          m->has_created_by = 1;
        }
        break;
      case 7:
        parse_column_orders(ps, type, m);
        break;
      case 8:
        m->encrypted = 1;
        pq_thrift_skip(t, type);
        break;
      default:
        pq_thrift_skip(t, type);
    }
  }
  STRUCT_END(ps);
  if (!has_schema) pq_thrift_fail(t, "the file metadata has no schema");
}
