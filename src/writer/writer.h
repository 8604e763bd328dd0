/*
** writer.h -- what the files of the writer share: the nested columns'
** type trees and leaves (nested.c), which a VARIANT column's shredding
** (variant.c) fills too.
*/
#ifndef PQ_WRITER_H
#define PQ_WRITER_H

#include "../format/format.h"

/* A nested type's tree. */
typedef struct wn_node {
  int kind;              /* PQ_WT_LIST, PQ_WT_STRUCT, PQ_WT_MAP, or a scalar's */
  pq_write_type t;       /* a scalar's */
  char *name;            /* a STRUCT field's */
  int n;
  struct wn_node *kids;  /* LIST: the element; MAP: key, value; STRUCT: fields */
  int leaf;              /* a scalar's index among the column's leaves */
  int rep;               /* a LIST's or MAP's repetition level */
  int req;               /* REQUIRED (a VARIANT's parts), not OPTIONAL */
  int file;              /* a STRUCT annotated FILE */
} wn_node;

/* A leaf of a nested column: its entries of the batch, with their levels. */
typedef struct wn_leaf {
  pq_write_type t;
  pq_params p;
  pq_write_options o;
  int col;               /* the writer's column */
  int max_def, max_rep;
  pq_buf vals, heap, def, rep; /* values (BYTE_ARRAY, FIXED: offsets into heap) */
  size_t nvals, nent;
  size_t vsize;
} wn_leaf;

struct pq_nested {
  wn_node *tree;
  wn_leaf *leaves;
  int nleaves;
  pq_json_doc json;      /* the value being shredded, parsed */
  pq_vbuild vb;          /* VARIANT: the value being built (variant.c) */
};

/* Frees what node n holds (its kids, its name), not n itself. */
void pq_nested_free_node(wn_node *n);

/* ---- VARIANT columns (variant.c) ---------------------------------------- */

/* "VARIANT" (either case, blanks around it) in s: 1, else 0. */
int pq_variant_col_is(const char *s);
/* Fills t, a PQ_WT_VARIANT node, with its unshredded parts: metadata and
** a required value.  PQ_NOMEM or PQ_OK. */
int pq_variant_col_init(wn_node *t);
/* A value of the row (JSON text, or NULL) into the leaves of c, whose tree
** is a VARIANT, as pq_nested_put. */
int pq_variant_col_put(pq_nested *c, const char *text, size_t n, pq_buf *msg);

/* The encoding lab's figures of a stream of encoding p->encoding (count
** values; d: a dictionary encoding's PLAIN dictionary), as the members of
** a JSON object without its braces, appended to out (lab_why.c).  On a
** fault out is left as it was. */
int pq_lab_stream_why(const pq_params *p, const uint8_t *s, size_t n,
                      const uint8_t *d, size_t dn, int64_t count, pq_buf *out,
                      pq_error *err);

#endif /* PQ_WRITER_H */
