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

/* ---- Pages before their codec (writer.c) -------------------------------
** A page as the writer has made it before its codec: what the codec
** compresses, and what the header says besides the sizes and the CRC.
** pq_page_seal makes the page of it under a codec, as the writer makes
** its own; a tap (pq_writer_set_tap) takes the writer's pages so, to make
** them under codecs of its own choosing (the encoding lab, lab.c). */
typedef struct pq_page_draft {
  int type;               /* PQ_DATA_PAGE, PQ_DATA_PAGE_V2, PQ_DICTIONARY_PAGE */
  uint32_t row_group;     /* of the chunk the page is in */
  const uint8_t *levels;  /* v2: the levels, which stay uncompressed */
  size_t levels_len;
  const uint8_t *body;    /* what the codec compresses: v1 the levels (with
                          ** their lengths) and values; v2 the values; a
                          ** dictionary page its entries */
  size_t body_len;
  int32_t num_values;     /* entries (a dictionary page: its entries) */
  int32_t num_nulls, num_rows; /* (v2) */
  int32_t encoding;       /* of the values (a dictionary page: its own) */
  int32_t def_len, rep_len; /* v2: the levels' sizes */
  int max_def, max_rep;   /* the column's */
  const uint8_t *stats;   /* the Statistics' fields, without their STOP;
                          ** NULL: none */
  size_t stats_len;
} pq_page_draft;

/* The page of d under codec (at level; crc: with the CRC): its header into
** header, its bytes (levels, then what the codec made) into packed, each
** emptied first.  PQ_RANGE past a header's sizes, a codec's fault. */
int pq_page_seal(const pq_page_draft *d, pq_codec codec, int level, int crc,
                 pq_buf *header, pq_buf *packed, pq_error *err);

/* From now on the writer's pages, and its dictionary pages, go to fn
** (d and what it points to are valid during the call) instead of into the
** file, whose chunks are then empty: the statistics, the levels and the
** choices of the writer ("auto", a dictionary that falls back) as ever.
** A fault of fn fails the write. */
typedef int (*pq_page_tap)(void *ctx, const pq_page_draft *d, pq_error *err);
void pq_writer_set_tap(pq_writer *w, pq_page_tap fn, void *ctx);

/* The encoding lab's figures of a stream of encoding p->encoding (count
** values; d: a dictionary encoding's PLAIN dictionary), as the members of
** a JSON object without its braces, appended to out (lab_why.c).  On a
** fault out is left as it was. */
int pq_lab_stream_why(const pq_params *p, const uint8_t *s, size_t n,
                      const uint8_t *d, size_t dn, int64_t count, pq_buf *out,
                      pq_error *err);

#endif /* PQ_WRITER_H */
