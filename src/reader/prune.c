/*
** prune.c -- what statistics prove about a column chunk or a page: that
** no value in it can satisfy `value op constant`, so it need not be read.
**
** Conservative: bounds are used only where they bound the SQL values in
** SQL's order.  Byte arrays and unsigned integers have bounds only from
** min_value / max_value in files that declare column orders (old writers
** compared bytes as signed); reals whose bounds are NaN have none; dates,
** times and decimals of more than 15 digits are text compared as the
** column's collation compares them (instant, decimal: src/util/order.c),
** which the table prunes by only under that collation; UINT64 bounds past
** INT64 none (digits sort as text).
**
** Metadata can lie.  What a reader can see to be false is not believed:
**   - a min or max whose size is not its type's (Parquet.Net wrote INT64
**     timestamps as 13 ASCII digits), or min above max: no bounds;
**   - a null count below 0: not known; above the chunk's or page's
**     values, or above 0 in a REQUIRED column: the chunk's statistics, or
**     the page's entry of the column index, say nothing;
**   - a chunk whose num_values is not its row group's rows (a flat
**     column has one entry a row): its statistics say nothing;
**   - a nan_count below 0 or past the values not a count.
** What it cannot see (a bound simply too high, a null count of 0 in a
** column of NULLs) it believes: doc/limits.md lists those.
**
** NaN is NULL in SQL (cell.c), so the NULLs SQL sees are the nulls and the
** NaNs: a null count of a FLOAT, DOUBLE or FLOAT16 column is exact only
** with the chunk's nan_count, or the page's entry of the column index's
** nan_counts, beside it (parquet.thrift: readers must assume NaNs when it
** is absent).
**
** The column orders of the footer (parquet.thrift, ColumnOrder) say which
** order min_value and max_value follow, column by column:
**   - TYPE_ORDER: the type's; a NaN bound is ignored (the pair with it);
**     -0 and +0 are one value in SQL, so the zero rules need nothing;
**   - IEEE_754_TOTAL_ORDER (FLOAT, DOUBLE, FLOAT16 only): the least and
**     greatest values that are not NaN, which bound the SQL values as
**     TYPE_ORDER's do; NaN bounds (every value a NaN) are no bounds, and
**     the counts say the rest;
**   - INT96_TIMESTAMP_ORDER (INT96 only): days, then nanoseconds of the
**     day, the instants' order: an INT96 column's bounds are used only
**     under it (parquet.thrift: ignored under any other);
**   - another member, or one for another type: the bounds are ignored, as
**     parquet.thrift says of an order a reader does not know.
** A file without column orders has min_value and max_value trusted only
** where the old signed comparison agrees with the type's order.
*/
#include "reader.h"

/* Whether the PLAIN bytes of a DECIMAL bound of a byte array hold its
** value in their last 8 bytes, as cell.c reads a decimal of at most 15
** digits: the bytes before are the sign's.  (A value past its precision
** is not one of the column, and its cut would not keep the order.) */
static int prune_decimal_fits(const pq_schema_element *e, pq_bytes b) {
  if (e->type != PQ_BYTE_ARRAY && e->type != PQ_FIXED_LEN_BYTE_ARRAY)
    return 1;
  if (b.len <= 8) return 1;
  uint8_t sign = b.ptr[b.len - 8] & 0x80 ? 0xff : 0;
  for (size_t i = 0; i < b.len - 8; i++)
    if (b.ptr[i] != sign) return 0;
  return 1;
}

/* Sets b's bounds from a pair of PLAIN values. */
static void prune_set(pq_bounds *b, const pq_schema_node *leaf,
                      int binary_as_string, pq_bytes lo, pq_bytes hi) {
  const pq_schema_element *e = leaf->elem;
  pq_field_info info;
  pq_field_describe(leaf, binary_as_string, &info);
  b->has_minmax = 0;
  /* INT96 bounds come here only under INT96_TIMESTAMP_ORDER (prune_minmax) */
  if ((!info.ordered && e->type != PQ_INT96) || info.nested) return;
  /* Bytes of another size than the type's are no value of it: 0 here. */
  if (!pq_cell_from_plain(e, binary_as_string, lo, b->smin, &b->min) ||
      !pq_cell_from_plain(e, binary_as_string, hi, b->smax, &b->max))
    return;
  /* A NaN bound is a NULL cell: no bound. */
  if (b->min.kind != info.kind || b->max.kind != info.kind) return;
  int scale, precision, unit;
  int m = pq_leaf_meaning(e, &scale, &precision, &unit);
  if (m == PQ_AS_DECIMAL && info.kind == PQ_CELL_REAL &&
      (!prune_decimal_fits(e, lo) || !prune_decimal_fits(e, hi)))
    return;
  b->order = info.order;
  if (pq_cell_compare_in(&b->min, &b->max, b->order) > 0) return;
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

/* Whether SQL may see NULLs that a null count leaves out: NaNs. */
static int prune_has_nan(const pq_schema_element *e) {
  return e->type == PQ_FLOAT || e->type == PQ_DOUBLE ||
         (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->logical_type == 15);
}

/* Which of the statistics' bounds bound the SQL values, by the column's
** order: 2 min_value and max_value, 1 also the deprecated min and max (a
** signed comparison), 0 none. */
static int prune_minmax(const pq_file_meta *m, const pq_schema_node *leaf) {
  const pq_schema_element *e = leaf->elem;
  int order = leaf->leaf >= 0 ? pq_column_order(m, (uint32_t)leaf->leaf) : 0;
  if (e->type == PQ_INT96) return order == PQ_COLUMN_ORDER_INT96 ? 2 : 0;
  if (order == 0 && m->has_column_orders && leaf->leaf >= 0 &&
      (uint32_t)leaf->leaf < m->n_column_orders)
    return 0; /* an empty union: an order this reader cannot name */
  switch (order) {
    case 0: return prune_signed_order(leaf) ? 1 : 0; /* no order stated */
    case PQ_COLUMN_ORDER_TYPE: return 2;
    case PQ_COLUMN_ORDER_IEEE754: return prune_has_nan(e) ? 2 : 0;
    default: return 0;
  }
}

/* NaNs (a count, -1 absent) added to b's NULLs when they can be: the
** count must fit in the values that are not null. */
static void prune_nans(pq_bounds *b, const pq_schema_node *leaf,
                       int64_t nans) {
  if (!prune_has_nan(leaf->elem) || nans < 0 || b->nulls < 0 ||
      b->values < 0 || nans > b->values - b->nulls)
    return;
  b->nulls += nans;
  b->nulls_exact = 1;
}

static void prune_init(pq_bounds *b, const pq_schema_node *leaf) {
  memset(b, 0, sizeof *b);
  b->nulls = -1;
  b->values = -1;
  b->nulls_exact = !prune_has_nan(leaf->elem);
}

/* A null count (-1: none) against `values` entries of a leaf: 1 when it
** may be believed, with *nulls set (-1: not known); 0 when it is false. */
static int prune_nulls(const pq_schema_node *leaf, int64_t count,
                       int64_t values, int64_t *nulls) {
  *nulls = -1;
  if (count < 0) return 1; /* absent, or -1 for "not known" */
  if (values >= 0 && count > values) return 0;
  if (leaf->max_def == 0 && count > 0) return 0; /* REQUIRED */
  *nulls = count;
  return 1;
}

void pq_chunk_bounds(const pq_file *f, uint32_t row_group, uint32_t leaf,
                     int binary_as_string, pq_bounds *b) {
  const pq_file_meta *m = pq_file_metadata(f);
  const pq_schema_node *node = pq_file_leaf(f, leaf);
  if (!node) {
    memset(b, 0, sizeof *b);
    b->nulls = b->values = -1;
    return;
  }
  prune_init(b, node);
  if (row_group >= m->n_row_groups ||
      leaf >= m->row_groups[row_group].n_columns)
    return;
  const pq_row_group *rg = &m->row_groups[row_group];
  const pq_column_chunk *cc = &rg->columns[leaf];
  if (!cc->has_meta_data || node->max_rep > 0) return;
  const pq_column_meta *cm = &cc->meta;
  /* A flat column has an entry a row. */
  if (cm->num_values != rg->num_rows || cm->num_values < 0) return;
  b->values = cm->num_values;
  if (node->max_def == 0) b->nulls = 0; /* REQUIRED: no NULL to count */
  if (!cm->has_statistics) return;
  const pq_statistics *s = &cm->statistics;
  int64_t nulls;
  if (!prune_nulls(node, s->has_null_count ? s->null_count : -1, b->values,
                   &nulls))
    return;
  if (nulls >= 0) b->nulls = nulls;
  /* With nan_count beside it, the NULLs SQL sees are counted exactly. */
  prune_nans(b, node, s->has_nan_count ? s->nan_count : -1);
  int use = prune_minmax(m, node);
  if (s->has_min_value && s->has_max_value && use > 0) {
    prune_set(b, node, binary_as_string, s->min_value, s->max_value);
  } else if (s->has_min && s->has_max && use == 1) {
    prune_set(b, node, binary_as_string, s->min, s->max);
  }
  /* Bounds of a chunk said to be all NULL: one of the two is false. */
  if (b->has_minmax && b->nulls >= b->values && b->values > 0) b->nulls = -1;
}

void pq_page_bounds(const pq_file *f, uint32_t leaf,
                    const pq_column_index *ci, uint32_t page, int64_t rows,
                    int binary_as_string, pq_bounds *b) {
  const pq_schema_node *node = pq_file_leaf(f, leaf);
  if (!node) {
    memset(b, 0, sizeof *b);
    b->nulls = b->values = -1;
    return;
  }
  prune_init(b, node);
  if (!ci || page >= ci->n_pages || node->max_rep > 0) return;
  b->values = rows;
  int64_t nulls;
  if (!prune_nulls(node, ci->null_counts ? ci->null_counts[page] : -1, rows,
                   &nulls))
    return;
  if (node->max_def == 0) b->nulls = 0;
  if (nulls >= 0) b->nulls = nulls;
  if (ci->null_pages[page]) {
    /* Every entry null, no bounds: believed only when the null count
    ** agrees (parquet-mr wrote null_pages true with a count of -1 for
    ** pages of values). */
    if (b->nulls >= 0 && rows >= 0 && b->nulls >= rows) return;
    b->nulls = -1;
    return;
  }
  if (prune_minmax(pq_file_metadata(f), node) > 0)
    prune_set(b, node, binary_as_string, ci->min_values[page],
              ci->max_values[page]);
  /* A page of values (null_pages false) said to hold NULLs only. */
  if (b->values > 0 && b->nulls >= b->values) {
    b->nulls = -1;
    b->has_minmax = 0;
  }
  /* Then its NaNs, which SQL sees as NULLs. */
  prune_nans(b, node, ci->nan_counts ? ci->nan_counts[page] : -1);
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
  int lo = pq_cell_compare_in(&b->min, v, b->order);
  int hi = pq_cell_compare_in(&b->max, v, b->order);
  switch (op) {
    case PQ_OP_EQ: return lo <= 0 && hi >= 0;
    case PQ_OP_LT: return lo < 0;
    case PQ_OP_LE: return lo <= 0;
    case PQ_OP_GT: return hi > 0;
    case PQ_OP_GE: return hi >= 0;
    default: return 1;
  }
}
