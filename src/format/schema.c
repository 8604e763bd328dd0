/*
** schema.c -- the schema tree (spec/README.md, "Nested Encoding"): the
** footer's flat list of schema elements, depth first, made into nodes with
** their children, each with its dotted path and the definition and
** repetition levels Dremel's encoding gives it.  Every count of children
** is checked against the elements that follow.
*/
#include "format.h"

/* Builds the subtree of the element at *next; its parent is parent. */
static int build_node(pq_file *f, uint32_t *next, pq_schema_node *parent,
                      int depth, pq_error *err) {
  if (depth > 64) {
    return pq_fail(err, PQ_CORRUPT, "schema", "groups nest deeper than 64");
  }
  /* Each group's count of children was checked against the elements left
  ** when it was read, but a child's own subtree may use them up before its
  ** siblings come. */
  if (*next >= f->meta.n_schema) {
    return pq_fail(err, PQ_CORRUPT, "schema",
                   "element %u's parent (%u) counts more children than the "
                   "%u elements hold",
                   *next, parent ? (uint32_t)(parent - f->nodes) : 0,
                   f->meta.n_schema);
  }
  uint32_t i = (*next)++;
  pq_schema_node *n = &f->nodes[i];
  const pq_schema_element *e = &f->meta.schema[i];
  n->elem = e;
  n->parent = parent;
  n->leaf = -1;
  if (parent) {
    n->max_def = parent->max_def + (e->repetition != 0);
    n->max_rep = parent->max_rep + (e->repetition == 2);
    if (e->repetition < 0) {
      return pq_fail(err, PQ_CORRUPT, "schema",
                     "element %u ('%.*s') has no repetition type", i,
                     (int)e->name.len, (const char *)e->name.ptr);
    }
  }
  /* The dotted path, without the root's name. */
  size_t plen = parent && parent->path ? strlen(parent->path) + 1 : 0;
  if (parent) {
    n->path = pq_arena_alloc(&f->arena, plen + e->name.len + 1);
    if (!n->path) return pq_nomem(err, "schema");
    if (plen) {
      memcpy(n->path, parent->path, plen - 1);
      n->path[plen - 1] = '.';
    }
    memcpy(n->path + plen, e->name.ptr, e->name.len);
  }
  if (e->num_children > 0 || !parent) {
    uint32_t k = e->num_children > 0 ? (uint32_t)e->num_children : 0;
    if (k > f->meta.n_schema - *next) {
      return pq_fail(err, PQ_CORRUPT, "schema",
                     "element %u ('%.*s') has %u children, only %u elements "
                     "follow",
                     i, (int)e->name.len, (const char *)e->name.ptr, k,
                     f->meta.n_schema - *next);
    }
    n->n_children = k;
    n->children = pq_arena_alloc(&f->arena, (k ? k : 1) * sizeof *n->children);
    if (!n->children) return pq_nomem(err, "schema");
    for (uint32_t c = 0; c < k; c++) {
      n->children[c] = &f->nodes[*next];
      int rc = build_node(f, next, n, depth + 1, err);
      if (rc) return rc;
    }
    return PQ_OK;
  }
  if (!e->has_type) {
    return pq_fail(err, PQ_CORRUPT, "schema",
                   "leaf element %u ('%.*s') has no physical type", i,
                   (int)e->name.len, (const char *)e->name.ptr);
  }
  if (e->type == PQ_FIXED_LEN_BYTE_ARRAY && e->type_length <= 0) {
    return pq_fail(err, PQ_CORRUPT, "schema",
                   "leaf element %u ('%.*s') is FIXED_LEN_BYTE_ARRAY of length "
                   "%d",
                   i, (int)e->name.len, (const char *)e->name.ptr,
                   e->type_length);
  }
  n->leaf = (int)f->n_leaves;
  f->leaves[f->n_leaves++] = n;
  return PQ_OK;
}

int pq_schema_build(pq_file *f, pq_error *err) {
  uint32_t n = f->meta.n_schema;
  if (n == 0) return pq_fail(err, PQ_CORRUPT, "schema", "the schema is empty");
  f->nodes = pq_arena_alloc(&f->arena, n * sizeof *f->nodes);
  f->leaves = pq_arena_alloc(&f->arena, n * sizeof *f->leaves);
  if (!f->nodes || !f->leaves) return pq_nomem(err, "schema");
  uint32_t next = 0;
  int rc = build_node(f, &next, NULL, 0, err);
  if (rc) return rc;
  if (next != n) {
    return pq_fail(err, PQ_CORRUPT, "schema",
                   "the root's children end at element %u of %u", next, n);
  }
  for (uint32_t g = 0; g < f->meta.n_row_groups; g++) {
    if (f->meta.row_groups[g].n_columns != f->n_leaves) {
      return pq_fail(err, PQ_CORRUPT, "file metadata",
                     "row group %u has %u column chunks, the schema %u leaf "
                     "columns",
                     g, f->meta.row_groups[g].n_columns, f->n_leaves);
    }
  }
  return PQ_OK;
}
