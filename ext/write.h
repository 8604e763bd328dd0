/*
** write.h -- what the files of parquet_write share: write.c (the function,
** its options, flat columns), write_nested.c (LIST, STRUCT and MAP
** columns from JSON values) and write_json.c (JSON text as a tree).
*/
#ifndef PQX_WRITE_H
#define PQX_WRITE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "ext.h"

/* ---- JSON text as a tree (write_json.c) --------------------------------------- */

enum { WJ_NULL, WJ_TRUE, WJ_FALSE, WJ_NUMBER, WJ_STRING, WJ_ARRAY, WJ_OBJECT };

typedef struct wj_node_t {
  int type;
  size_t at, len;          /* the raw text in the source */
  size_t str_off, str_len; /* a string, decoded, in the doc's text */
  size_t key_off, key_len; /* an object member's key, decoded */
  int has_key;
  int n, first, next;      /* items or members: the first, then each next */
} wj_node_t;

typedef struct wj_doc {
  wj_node_t *nodes;
  int n, cap;
  pq_buf text;             /* decoded strings and keys */
  const char *src;
} wj_doc;

/* Parses s[0..n): the root node, or -1 with *fault and *fault_at, or -2
** when out of memory.  The doc is reused from call to call. */
int pqx_json_parse(wj_doc *d, const char *s, size_t n, size_t *fault_at,
                   const char **fault);
void pqx_json_free(wj_doc *d);

#define FN "parquet_write"

/* ---- Messages (write.c) -----------------------------------------------------
** Each step of parquet_write returns NULL when it succeeded, else what went
** wrong: a message from sqlite3_mprintf, which the caller frees or hands
** on, or PQX_W_NOMEM, out of memory, which is never freed and ends the call
** as SQLITE_NOMEM (so does a message that cannot be made).  The worker
** thread's messages are made the same way. */
extern char pqx_w_nomem[];
#define PQX_W_NOMEM pqx_w_nomem
/* A message as sqlite3_mprintf makes it; PQX_W_NOMEM when it cannot. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
char *pqx_w_msg(const char *fmt, ...);
/* Frees a message (PQX_W_NOMEM and NULL are left alone). */
void pqx_w_free(char *m);
/* A core call's fault rc (PQ_NOMEM: PQX_W_NOMEM), prefixed with FN. */
char *pqx_w_core(int rc, const pq_error *err);
/* A failed SQLite call on db, of result code rc (SQLITE_NOMEM:
** PQX_W_NOMEM): "FN: <what>: <db's message>". */
char *pqx_w_sql(sqlite3 *db, int rc, const char *what);
/* Column i of st as text: its text, NULL when it is NULL, or *nomem set
** (and NULL) when its text could not be made. */
const char *pqx_w_text(sqlite3_stmt *st, int i, int *nomem);
#define WRITE_LOOK 1024  /* rows read ahead to type columns by their values */
#define WRITE_BATCH 8192 /* rows handed to the writer at once */
#define WRITE_BATCH_BYTES 1024 /* ... when row groups close by their bytes */
#define WRITE_GROUP 1000000 /* rows of a row group unless row_group_size */

/* What a column holds, as the writer is given it. */
enum {
  WK_UNKNOWN = 0,
  WK_BOOLEAN,
  WK_INT32,
  WK_INT64,
  WK_FLOAT,
  WK_DOUBLE,
  WK_STRING,  /* BYTE_ARRAY, STRING */
  WK_JSON,    /* BYTE_ARRAY, JSON */
  WK_BINARY,  /* BYTE_ARRAY */
  WK_FIXED,   /* FIXED_LEN_BYTE_ARRAY(n) */
  WK_DATE,    /* INT32, DATE */
  WK_TIME,    /* INT32 (ms) or INT64, TIME */
  WK_TIMESTAMP, /* INT64, TIMESTAMP */
  WK_DECIMAL, /* INT32, INT64 or FIXED_LEN_BYTE_ARRAY, DECIMAL */
  WK_UUID,    /* FIXED_LEN_BYTE_ARRAY(16), UUID */
  WK_INT96,
  WK_LIST,    /* nested: write_nested.c */
  WK_STRUCT,
  WK_MAP
};

typedef struct WType {
  int kind;
  int unit, utc;          /* TIME, TIMESTAMP */
  int precision, scale;   /* DECIMAL */
  int32_t length;         /* FIXED */
} WType;

/* A flat column's batch: its rows' values, as the writer takes them. */
typedef struct WFill {
  uint8_t *values;        /* fixed-width values, or pq_bytes */
  uint8_t *present;
  size_t nvalues, nrows;
  pq_buf heap;            /* bytes of BYTE_ARRAY and FIXED values */
} WFill;

typedef struct WCol {
  char *name;
  WType t;
  int explicit_type;      /* a type given in the options: convert values */
  int from_decl;          /* typed by the declared type */
  pq_params p;
  pq_write_options o;
  int has_encoding, dictionary; /* -1: the default */
  struct WNode *tree;     /* a nested column's type (LIST, STRUCT, MAP) */
  struct WLeaf *leaves;   /* ... and its leaves */
  int nleaves;
  int wcol;               /* the writer's column (a flat column's leaf) */
  WFill b;                /* the batch being filled */
  WFill sp;               /* the batch the worker writes (write.c) */
  size_t vsize;
  int lane;               /* who writes it: 0 the worker, 1 the caller */
  int placed;             /* (balancing the lanes) */
  double cost;            /* seconds its batches took the workers */
} WCol;

typedef struct Writer {
  sqlite3 *db;
  sqlite3_stmt *q;         /* the query */
  sqlite3_stmt *qw;        /* the query wrapped to call the row function */
  int started;             /* the columns are typed, the output open */
  int out_null;            /* the file goes back as a BLOB */
  char *row_msg;           /* the row function's fault */
  int ncols;
  WCol *cols;
  pq_writer *w;
  /* the defaults every column starts from */
  pq_write_options o;
  pq_params p;
  char type[1024];
  int has_type;
  char encoding[64];
  int has_encoding, dictionary;
  int64_t group_size;
  int64_t group_bytes;    /* 0: no bound */
  char *columns_json;     /* the "columns" object */
  char **kv_keys, **kv_values;
  int nkv;
  char *created_by;
  /* the output */
  char *path, *tmp;
  FILE *f;
  int durable;            /* fsync the file, rename, fsync its folder; 1 */
  int64_t bloom_fixed;    /* bytes a row group's filters sized by "ndv" take */
  int64_t groups;         /* row groups closed */
  pq_buf out;
  size_t limit;           /* a BLOB's bound */
  int64_t rows, group_rows;
  size_t batch_rows;      /* rows of the batch not yet handed over */
  int io_errno;           /* of the file's failed write */
  int nested;             /* a column is LIST, STRUCT or MAP */
  wj_doc json;            /* a nested column's value, parsed */
  /* the worker, which writes one batch while the next is filled (write.c) */
  int threads;            /* the option: 1, or 2 (the default) */
  int threaded;           /* batches go to the worker */
  int th_started;
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int job;         /* JOB_NONE, JOB_BATCH, JOB_GROUP */
  int quit;
  int th_failed;          /* the worker's, read once it is idle */
  char *th_msg;           /* its first fault, until taken */
  int64_t handed;         /* batches handed over */
  double mark;            /* when the caller last handed one */
  double own_cost;        /* seconds the caller spent on rows */
  double group_cost;      /* ... and the worker closing row groups */
  /* rows read ahead (nvals values each) */
  sqlite3_value **look;
  int nlook;
  /* A folder of files (partition_by, file_size_bytes): the query sorted
  ** by the partition keys, which follow the ncols written values of each
  ** row (nvals in all); one file open at a time, each committed as a
  ** single file is, all in a folder of their own that becomes root once
  ** complete (write.c, "The folder"). */
  int nvals;
  int folder;
  char **part_names;
  int npart;
  int write_part;          /* the partition columns in the files too */
  int64_t file_size;       /* file_size_bytes; 0: none */
  char *root;              /* the folder asked for */
  char *root_tmp;          /* the folder being filled */
  pq_partitioner part;
  int64_t file_bytes;      /* written to the file open */
  pq_buf fname;            /* a file's folder and name */
  pq_buf key;              /* a row's folder */
  pq_params *ps;           /* each column's, to open each file's writer */
  pq_write_options *os;
} Writer;

/* ---- Types (write.c) ------------------------------------------------------ */

/* A scalar type's name (INT32, DECIMAL(9,2), ...) into t; 0 on success. */
int pqx_write_scalar_type(const char *s, WType *t);
/* The physical type and annotation of a scalar type. */
void pqx_write_type_params(const WType *t, pq_params *p, pq_write_options *o);
/* A type's name, as messages give it. */
const char *pqx_write_type_name(const WType *t, char *buf, size_t cap);

/* ---- Nested columns (write_nested.c) ------------------------------------------- */

/* A nested type's tree. */
typedef struct WNode {
  int kind;              /* WK_LIST, WK_STRUCT, WK_MAP, or a scalar's */
  WType t;               /* a scalar's */
  char *name;            /* a STRUCT field's */
  int n;
  struct WNode *kids;    /* LIST: the element; MAP: key, value; STRUCT: fields */
  int leaf;              /* a scalar's index among the column's leaves */
  int rep;               /* a LIST's or MAP's repetition level */
} WNode;

/* A leaf of a nested column: its entries of the batch, with their levels. */
typedef struct WLeaf {
  WType t;
  pq_params p;
  pq_write_options o;
  int col;               /* the writer's column */
  int max_def, max_rep;
  pq_buf vals, heap, def, rep; /* values (BYTE_ARRAY, FIXED: offsets into heap) */
  size_t nvals, nent;
  size_t vsize;
} WLeaf;

/* Parses a type that may be nested: 1 when it is (*tree set), 0 when it is
** a scalar (for pqx_write_scalar_type), or -1 and *msg (a message, or
** PQX_W_NOMEM). */
int pqx_nested_parse(const char *s, WNode **tree, char **msg);
void pqx_nested_free(WNode *t);
/* The rest return NULL, a message or PQX_W_NOMEM (write.c, "Messages").
** The writer's schema nodes for a nested column, and its leaves (their
** params and options from base, the column's). */
char *pqx_nested_leaves(WCol *c, const pq_params *base,
                        const pq_write_options *base_o);
/* Builds the file's schema from every column (flat ones as leaves) and
** opens the writer; assigns each column its writer columns. */
char *pqx_nested_open(Writer *wr);
/* A nested column's value of the row (JSON text or NULL) into its leaves. */
char *pqx_nested_put(Writer *wr, int col, sqlite3_value *v);
/* Its leaves' entries of the batch to the writer. */
char *pqx_nested_flush(Writer *wr, int col);
void pqx_nested_free_leaves(WCol *c);

#endif /* PQX_WRITE_H */
