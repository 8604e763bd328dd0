/*
** write.h -- what the files of parquet_write share: write.c (the function,
** its options, flat columns) and write_nested.c (LIST, STRUCT and MAP
** columns from JSON values, through src/writer/nested.c).
*/
#ifndef PQX_WRITE_H
#define PQX_WRITE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

#include "ext.h"

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
#define WRITE_TYPE_MAX 16384 /* bytes of a type's name (a GEOMETRY's crs may
                             ** be a PROJJSON object) */

/* A flat column's batch: its rows' values, as the writer takes them. */
typedef struct WFill {
  uint8_t *values;        /* fixed-width values, or pq_bytes */
  uint8_t *present;
  size_t nvalues, nrows;
  pq_buf heap;            /* bytes of BYTE_ARRAY and FIXED values */
} WFill;

typedef struct WCol {
  char *name;
  pq_write_type t;         /* its kind: PQ_WT_* (parquet.h) */
  int explicit_type;      /* a type given in the options: convert values */
  int from_decl;          /* typed by the declared type */
  pq_params p;
  pq_write_options o;
  int has_encoding, dictionary; /* -1: the default */
  pq_nested *tree;        /* a nested column (LIST, STRUCT, MAP): its type,
                          ** leaves and batch (src/writer/nested.c) */
  int wcol;               /* the writer's column (a flat column's leaf) */
  WFill b;                /* the batch being filled */
  WFill sp;               /* the batch the worker writes (write.c) */
  size_t vsize;
  int lane;               /* who writes it: 0 the worker, 1 the caller */
  int placed;             /* (balancing the lanes) */
  double cost;            /* seconds its batches took the workers */
  char *crs;              /* GEOMETRY, GEOGRAPHY: its crs (o.crs, t.crs) */
  int skip;               /* left out of a capture (pqx_capture) */
} WCol;

typedef struct pqx_capture pqx_capture;
typedef struct pqx_capture_rows pqx_capture_rows;

typedef struct Writer {
  sqlite3 *db;
  const pqx_capture *cap;  /* the batches go there, not to a file */
  const pqx_capture_rows *in; /* ... from these rows (pqx_write_capture) */
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
  char type[WRITE_TYPE_MAX];
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

/* ---- Capture (write.c) ---------------------------------------------------------
** The batches parquet_write would hand its writer, handed to the caller
** instead, for the encoding lab: the query run once, its columns typed
** and their values converted as parquet_write does, the same batches, and
** where the row groups would close.  Each function returns a PQ_ code
** (err filled when it is not PQ_OK). */
struct pqx_capture {
  void *ctx;
  /* Column col typed, before its first batch: nested (LIST, STRUCT, MAP,
  ** VARIANT) is never captured; *keep 0 leaves the column out. */
  int (*column)(void *ctx, int col, const char *name, int nested,
                const pq_params *p, const pq_write_options *o, int *keep,
                pq_error *err);
  int (*batch)(void *ctx, int col, const void *values, const uint8_t *present,
               size_t n, pq_error *err);
  /* A row group closes (after the last batch of every column). */
  int (*group)(void *ctx, pq_error *err);
};
/* Where a capture's rows come from: a query, or a row source (the lab of
** a file), of which a sample may be taken. */
struct pqx_capture_rows {
  const char *sql;          /* the query; NULL: the source below */
  /* The source: a statement whose columns name the columns and hold each
  ** row's values (the caller's: never stepped nor finalized here), the
  ** declared type of each column (as a table's: "INTEGER 'INT32'"; NULL
  ** entries for none), and step, which makes st's next row: SQLITE_ROW,
  ** SQLITE_DONE, or an error code with *msg (a message, or NULL for the
  ** code alone). */
  sqlite3_stmt *st;
  const char *const *decls;
  void *ctx;
  int (*step)(void *ctx, char **msg);
  /* The sample: rows after the first `first` (> 0) are not read; with
  ** every > 1 only rows 0, every, 2 * every, ... are taken. */
  int64_t first;
  int64_t every;
};
/* Runs the rows with parquet_write's options opts (NULL: none) into cap:
** NULL, a message ("parquet_write: ..."), or PQX_W_NOMEM.  Options that
** make a folder of files (partition_by, file_size_bytes) or close row
** groups by their bytes (row_group_bytes) are refused: their batches
** depend on more than one column. */
char *pqx_write_capture(sqlite3 *db, const pqx_capture_rows *rows,
                        const char *opts, const pqx_capture *cap);

/* ---- The lab of a file (lab_file.c) ----------------------------------------
** A Parquet file's top-level columns as the `parquet` table reads them,
** one at a time, as rows for pqx_write_capture.  Each returns NULL, a
** message (naming fn) or PQX_W_NOMEM. */
typedef struct pqx_lab_file pqx_lab_file;
/* Opens source (a path, a glob or folder naming one file, or a BLOB, as
** pqx_sources_open takes it; it must outlive *out). */
char *pqx_lab_file_open(sqlite3 *db, sqlite3_value *source, const char *fn,
                        pqx_lab_file **out);
/* The top-level fields: how many, each one's name as the table's column,
** and whether it is nested (a group, or repeated). */
int pqx_lab_file_columns(const pqx_lab_file *f);
const char *pqx_lab_file_name(const pqx_lab_file *f, int i);
int pqx_lab_file_nested(const pqx_lab_file *f, int i);
/* rows (first and every left as they are) set to read column i, until
** the next call or pqx_lab_file_free. */
char *pqx_lab_file_rows(pqx_lab_file *f, int i, pqx_capture_rows *rows);
void pqx_lab_file_free(pqx_lab_file *f);

/* ---- Nested columns (write_nested.c) -------------------------------------------
** The binding of src/writer/nested.c: each returns NULL, a message or
** PQX_W_NOMEM (write.c, "Messages"). */

/* Parses a type that may be nested, as pq_nested_parse: 1 when it is
** (*tree set), 0 when it is a scalar (for pq_write_type_parse), or -1 and
** *msg (a message, or PQX_W_NOMEM). */
int pqx_nested_parse(const char *s, pq_nested **tree, char **msg);
/* Builds the file's schema from every column (flat ones as leaves) and
** opens the writer; assigns each flat column its writer column. */
char *pqx_nested_open(Writer *wr);
/* A nested column's value of the row (JSON text or NULL) into its leaves. */
char *pqx_nested_put(Writer *wr, int col, sqlite3_value *v);
/* Its leaves' entries of the batch to the writer. */
char *pqx_nested_flush(Writer *wr, int col);

#endif /* PQX_WRITE_H */
