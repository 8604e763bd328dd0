/*
** prune.c -- what statistics prove about a column chunk or a page: that
** no value in it can satisfy `value op constant`, so it need not be read.
**
** Conservative: bounds are used only where they bound the SQL values in
** SQL's order.  Byte arrays and unsigned integers have bounds only from
** min_value / max_value in files that declare column orders (old writers
** compared bytes as signed); reals whose bounds are NaN have none, and
** their null counts leave out the NaNs that SQL sees as NULL; dates and
** times only within the years 0 to 9999, where their text sorts as they
** do; UINT64 bounds past INT64 none (digits sort as text).
*/
#include "reader.h"

/* Text of a date or time whose year has four digits. */
static int prune_text_sorts(const pq_cell *c) {
  return c->n >= 5 && c->p[0] >= '0' && c->p[0] <= '9' && c->p[4] == '-';
}

/* Sets b's bounds from a pair of PLAIN values. */
static void prune_set(pq_bounds *b, const pq_schema_node *leaf,
                      int binary_as_string, pq_bytes lo, pq_bytes hi) {
  const pq_schema_element *e = leaf->elem;
  pq_field_info info;
  pq_field_describe(leaf, binary_as_string, &info);
  b->has_minmax = 0;
  if (!info.ordered || info.nested) return;
  if (!pq_cell_from_plain(e, binary_as_string, lo, b->smin, &b->min) ||
      !pq_cell_from_plain(e, binary_as_string, hi, b->smax, &b->max))
    return;
  if (b->min.kind != info.kind || b->max.kind != info.kind) return;
  if (info.kind == PQ_CELL_REAL && (b->min.r != b->min.r || b->max.r != b->max.r))
    return;
  int scale, precision, unit;
  int m = pq_leaf_meaning(e, &scale, &precision, &unit);
  if ((m == PQ_AS_DATE || m == PQ_AS_TIMESTAMP) &&
      (!prune_text_sorts(&b->min) || !prune_text_sorts(&b->max)))
    return;
  if (pq_cell_compare(&b->min, &b->max) > 0) return;
  b->has_minmax = 1;
}

/* Whether the type's deprecated min and max (signed comparisons) bound
** its SQL values. */
static int prune_signed_order(const pq_schema_node *leaf) {
  const pq_schema_element *e = leaf->elem;
  int scale, precision, unit;
  int m = pq_leaf_meaning(e, &scale, &precision, &unit);
  return m != PQ_AS_UNSIGNED &&
         (e->type == PQ_INT32 || e->type == PQ_INT64 ||
          e->type == PQ_FLOAT || e->type == PQ_DOUBLE ||
          e->type == PQ_BOOLEAN);
}

static void prune_init(pq_bounds *b, const pq_schema_node *leaf) {
  memset(b, 0, sizeof *b);
  b->nulls = -1;
  b->values = -1;
  b->nulls_exact = leaf->elem->type != PQ_FLOAT &&
                   leaf->elem->type != PQ_DOUBLE &&
                   !(leaf->elem->type == PQ_FIXED_LEN_BYTE_ARRAY &&
                     leaf->elem->logical_type == 15);
}

void pq_chunk_bounds(const pq_file *f, uint32_t row_group, uint32_t leaf,
                     int binary_as_string, pq_bounds *b) {
  const pq_file_meta *m = pq_file_metadata(f);
  const pq_schema_node *node = pq_file_leaf(f, leaf);
  prune_init(b, node);
  if (row_group >= m->n_row_groups || !node ||
      leaf >= m->row_groups[row_group].n_columns)
    return;
  const pq_column_chunk *cc = &m->row_groups[row_group].columns[leaf];
  if (!cc->has_meta_data || node->max_rep > 0) return;
  const pq_column_meta *cm = &cc->meta;
  b->values = cm->num_values;
  if (!cm->has_statistics) return;
  const pq_statistics *s = &cm->statistics;
  if (s->has_null_count && s->null_count >= 0) b->nulls = s->null_count;
  if (s->has_nan_count && s->nan_count == 0) b->nulls_exact = 1;
  if (s->has_min_value && s->has_max_value &&
      (m->has_column_orders || prune_signed_order(node))) {
    prune_set(b, node, binary_as_string, s->min_value, s->max_value);
  } else if (s->has_min && s->has_max && prune_signed_order(node)) {
    prune_set(b, node, binary_as_string, s->min, s->max);
  }
}

void pq_page_bounds(const pq_file *f, uint32_t leaf,
                    const pq_column_index *ci, uint32_t page, int64_t rows,
                    int binary_as_string, pq_bounds *b) {
  const pq_schema_node *node = pq_file_leaf(f, leaf);
  prune_init(b, node);
  if (!node || !ci || page >= ci->n_pages || node->max_rep > 0) return;
  b->values = rows;
  if (ci->null_counts && ci->null_counts[page] >= 0)
    b->nulls = ci->null_counts[page];
  if (ci->null_pages[page]) {
    /* Every entry null, no bounds: believed only when the null count
    ** agrees (parquet-mr wrote null_pages true with a count of -1 for
    ** pages of values). */
    if (b->nulls >= 0 && rows >= 0 && b->nulls >= rows) return;
    b->nulls = -1;
    return;
  }
  if (pq_file_metadata(f)->has_column_orders || prune_signed_order(node))
    prune_set(b, node, binary_as_string, ci->min_values[page],
              ci->max_values[page]);
}

int pq_bounds_may_match(const pq_bounds *b, int op, const pq_cell *v) {
  int all_null = b->values >= 0 && b->nulls >= b->values;
  if (op == PQ_OP_ISNULL) {
    return !(b->nulls == 0 && b->nulls_exact && b->values > 0);
  }
  if (all_null && b->values > 0) return 0; /* no value to compare */
  if (op == PQ_OP_NOTNULL) return 1;
  if (!v || v->kind == PQ_CELL_NULL) return 0;
  if (!b->has_minmax) return 1;
  int lo = pq_cell_compare(&b->min, v), hi = pq_cell_compare(&b->max, v);
  switch (op) {
    case PQ_OP_EQ: return lo <= 0 && hi >= 0;
    case PQ_OP_LT: return lo < 0;
    case PQ_OP_LE: return lo <= 0;
    case PQ_OP_GT: return hi > 0;
    case PQ_OP_GE: return hi >= 0;
    default: return 1;
  }
}
