/*
** write.h -- what parquet_write (write.c) shares with the encoding lab
** (lab.c, lab_file.c): its messages, and its rows captured rather than
** written.
*/
#ifndef PQX_WRITE_H
#define PQX_WRITE_H

#include "ext.h"

#define FN "parquet_write"

/* ---- Messages (write.c) -----------------------------------------------------
** Each step of parquet_write returns NULL when it succeeded, else what went
** wrong: a message from sqlite3_mprintf, which the caller frees or hands
** on, or PQX_W_NOMEM, out of memory, which is never freed and ends the call
** as SQLITE_NOMEM (so does a message that cannot be made). */
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

/* ---- Capture (write.c) ---------------------------------------------------------
** The batches parquet_write would hand its writer, handed to the caller
** instead, for the encoding lab: the query run once, its columns typed
** and their values converted as parquet_write does, the same batches, and
** where the row groups would close (the core's pq_table_capture). */
typedef pq_table_capture pqx_capture;
typedef struct pqx_capture_rows pqx_capture_rows;

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

#endif /* PQX_WRITE_H */
