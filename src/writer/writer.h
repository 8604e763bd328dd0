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

/* ---- The table writer (table.c, table_values.c, table_options.c, worker.c,
** output.c) ---------------------------------------------------------------
** pq_table_writer (parquet.h): rows of dynamic values as a file, a folder
** of files, memory, or a capture. */

#define TW_BATCH 8192       /* rows handed to the writer at once */
#define TW_BATCH_BYTES 1024 /* ... when row groups or files close by bytes */
#define TW_GROUP 1000000    /* rows of a row group unless row_group_size */
#define TW_TYPE_MAX 16384   /* bytes of a type's name (a GEOMETRY's crs may
                            ** be a PROJJSON object) */
#define TW_PART_MAX 32      /* partition columns, at most */

/* A flat column's batch: its rows' values, as the writer takes them. */
typedef struct tw_fill {
  uint8_t *values;        /* fixed-width values, or pq_bytes */
  uint8_t *present;
  size_t nvalues, nrows;
  pq_buf heap;            /* bytes of BYTE_ARRAY and FIXED values */
} tw_fill;

typedef struct tw_col {
  char *name;
  char *decl;              /* its declared type, or NULL */
  pq_write_type t;         /* its kind: PQ_WT_* */
  int explicit_type;       /* a type given in the options: convert values */
  pq_params p;
  pq_write_options o;
  int has_encoding, dictionary; /* -1: the default */
  pq_nested *tree;         /* a nested column (LIST, STRUCT, MAP, VARIANT) */
  int wcol;                /* the writer's column (a flat column's leaf) */
  tw_fill b;               /* the batch being filled */
  tw_fill sp;              /* the batch the worker writes (worker.c) */
  size_t vsize;
  int lane;                /* who writes it: 0 the worker, 1 the caller */
  int placed;              /* (balancing the lanes) */
  double cost;             /* seconds its batches took */
  char *crs;               /* GEOMETRY, GEOGRAPHY: its crs (o.crs, t.crs) */
  int skip;                /* left out of a capture */
  int fast;                /* TW_FAST_*: the values of one kind it takes as
                           ** they are, without conversion (table.c) */
} tw_col;

enum { TW_FAST_NONE, TW_FAST_INT64, TW_FAST_DOUBLE, TW_FAST_TEXT, TW_FAST_BLOB };

/* The options (table_options.c). */
typedef struct tw_options {
  pq_write_options o;      /* the defaults every column starts from */
  pq_params p;
  char type[TW_TYPE_MAX];
  int has_type;
  char encoding[64];
  int has_encoding, dictionary;
  int64_t group_size;
  int64_t group_bytes;     /* 0: no bound */
  char *columns_json;      /* the "columns" object */
  char **kv_keys, **kv_values;
  int nkv;
  char *created_by;
  int durable;             /* fsync the file, rename, fsync its folder; 1 */
  int threads;             /* 1, or 2 (the default) */
  char **part_names;
  int npart;
  int write_part;          /* the partition columns in the files too */
  int64_t file_size;       /* file_size_bytes; 0: none */
} tw_options;

/* A column's own options, as they are applied over the defaults. */
typedef struct tw_col_options {
  pq_params *p;
  pq_write_options *o;
  char *type;              /* TW_TYPE_MAX bytes */
  int *has_type;
  char *enc;               /* 64 bytes */
  int *has_enc, *dict;
  const char *where;       /* ": column 'c'", or "" for the defaults */
  char **shred;            /* a VARIANT's "shred" (NULL: not taken) */
} tw_col_options;

struct pq_table_writer {
  pq_table_host host;
  pq_buf msg;              /* the last failure's text */
  tw_options opt;
  const pq_table_capture *cap; /* the batches go there, not to a file */
  int to_memory;           /* the file's bytes kept in out */
  int started;             /* the columns are typed, the output open */
  int ncols, nvals;        /* columns written; values of a row (+ keys) */
  tw_col *cols;
  pq_writer *w;
  int nested;              /* a column is nested */
  /* rows read ahead (nvals values each), their bytes in look_heap */
  pq_dvalue *look;
  int nlook;
  pq_buf look_heap;
  pq_buf text;             /* a number made text for a text column */
  /* the output (output.c) */
  char *path, *tmp;
  void *f;                 /* FILE * */
  const pq_table_sink *sink; /* the program's (pq_table_writer_to_sink) */
  int sink_done;           /* its commit succeeded: no abort */
  int sink_rc;             /* its write's failure */
  pq_buf sink_msg;         /* ... and what it said */
  int64_t bloom_fixed;     /* bytes a row group's filters sized by "ndv" take */
  int64_t groups;          /* row groups closed */
  pq_buf out;
  int64_t rows, group_rows;
  size_t batch_rows;       /* rows of the batch not yet handed over */
  int io_errno;            /* of the file's failed write */
  unsigned rand_state;
  /* the folder (output.c) */
  int folder;
  char *root, *root_tmp;
  pq_partitioner part;
  int64_t file_bytes;      /* written to the file open */
  pq_buf fname, key;
  pq_params *ps;           /* each column's, to open each file's writer */
  pq_write_options *os;
  /* the worker (worker.c) */
  int threaded, th_started;
  void *th;                /* its state (worker.c) */
  int64_t handed;
  double mark, own_cost, group_cost;
};

/* Where a failure's message goes: tw->msg, or on the worker's thread its
** own (worker.c). */
pq_buf *pq_tbl_msg_buf(pq_table_writer *tw);
/* A message into tw's (printf); returns code (PQ_NOMEM when it cannot be
** made). */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int pq_tbl_fail(pq_table_writer *tw, int code, const char *fmt, ...);
/* A core call's failure rc as tw's (PQ_TOOBIG: with the limit's hint). */
int pq_tbl_core(pq_table_writer *tw, int rc, const pq_error *err);
/* The limit of memory output and filters. */
size_t pq_tbl_limit(const pq_table_writer *tw);
/* The limit's hint: never NULL. */
const char *pq_tbl_hint(const pq_table_writer *tw);

/* table_options.c */
void pq_tbl_options_init(tw_options *o);
void pq_tbl_options_free(tw_options *o);
int pq_tbl_options(pq_table_writer *tw, const char *json, size_t n);
/* The "columns" object's checks against the columns. */
int pq_tbl_column_names(pq_table_writer *tw);
/* Column c's options from "columns", applied through co. */
int pq_tbl_column_options(pq_table_writer *tw, const char *name,
                         tw_col_options *co);
/* Parses a type that may be nested: 1 (*tree set), 0 (a scalar), or -1
** with the reason in msg (-2: out of memory). */
int pq_tbl_nested_parse(const char *s, pq_nested **tree, pq_buf *msg);

/* table_values.c: value v of column col into its batch (a flat column),
** or into its leaves (a nested one). */
int pq_tbl_put_value(pq_table_writer *tw, int col, const pq_dvalue *v);
int pq_tbl_put_nested(pq_table_writer *tw, int col, const pq_dvalue *v);

/* table.c */
int pq_tbl_put_fill(pq_table_writer *tw, tw_col *c, tw_fill *f);
int pq_tbl_batch(pq_table_writer *tw);
int pq_tbl_group(pq_table_writer *tw);
int pq_tbl_count_group(pq_table_writer *tw);
int pq_tbl_open_writer(pq_table_writer *tw);
int pq_tbl_start(pq_table_writer *tw);
double pq_tbl_clock(void);

/* worker.c: the batch filled goes to be written, then (group) the row
** group closes; the last batch and the worker stopped; the worker freed. */
int pq_tbl_hand(pq_table_writer *tw, int group);
int pq_tbl_last(pq_table_writer *tw);
void pq_tbl_stop(pq_table_writer *tw);

/* output.c */
int pq_tbl_flush(pq_table_writer *tw);
int pq_tbl_create(pq_table_writer *tw);
int pq_tbl_commit(pq_table_writer *tw);
int pq_tbl_io_error(pq_table_writer *tw, int rc, const pq_error *err);
int pq_tbl_make_root(pq_table_writer *tw);
int pq_tbl_route(pq_table_writer *tw, const pq_dvalue *keys);
int pq_tbl_end_file(pq_table_writer *tw);
int pq_tbl_end_folder(pq_table_writer *tw);
void pq_tbl_free_output(pq_table_writer *tw);
int pq_tbl_sink(void *ctx, const uint8_t *p, size_t n);
/* The program's sink: the writer's bytes to it, its commit, its abort
** (unless committed). */
int pq_tbl_to_sink(void *ctx, const uint8_t *p, size_t n);
int pq_tbl_sink_commit(pq_table_writer *tw);
void pq_tbl_sink_abort(pq_table_writer *tw);

/* A REAL's text as SQLite writes it ("%!.15g": a ".0" where no point
** would show, "0.0" for -0.0, "Inf", "-Inf"; "nan"), appended
** (table_values.c). */
void pq_real_sql_text(pq_buf *b, double d);
/* Decoded string s[0..n) as JSON text, quoted as SQLite's json functions
** quote it (control characters as \u00XX), appended (table_options.c). */
void pq_json_quote_sql(pq_buf *b, const uint8_t *s, size_t n);

#endif /* PQ_WRITER_H */
