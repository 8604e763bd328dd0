/*
** ext.h -- what the files of the SQLite binding share.
**
** The binding is thin: it turns SQL arguments into pq_params and values,
** calls the core (src/parquet.h), and turns core errors into SQL errors of
** the form "parquet_decode: DELTA_BINARY_PACKED: <what> at offset N".
*/
#ifndef PQX_EXT_H
#define PQX_EXT_H

#include <sqlite3ext.h>

#include "../src/parquet.h"

#ifndef SQLITE_CORE
SQLITE_EXTENSION_INIT3
#endif

#ifndef SQLITE_INNOCUOUS
#define SQLITE_INNOCUOUS 0
#endif
#ifndef SQLITE_DIRECTONLY
#define SQLITE_DIRECTONLY 0
#endif

/* Flags of the pure functions. */
#define PQX_PURE (SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS)

/* Fills p from the SQL arguments encoding, type and options (type and
** options may be NULL pointers or SQL NULLs).  On failure returns an error
** message from sqlite3_mprintf, prefixed with fn; the caller frees it. */
char *pqx_params(const char *fn, sqlite3_value *enc, sqlite3_value *type,
                 sqlite3_value *opts, pq_params *p);

/* An error message for a failed core call, prefixed with fn. */
char *pqx_core_error(const char *fn, int rc, const pq_error *err);
/* The same for a call about a file: "fn: 'name': what" (name may be
** NULL), never NULL but out of memory. */
char *pqx_source_error(const char *fn, const char *name, const pq_error *err);

/* Sets the result of ctx to the value at index i of a decoded batch. */
void pqx_result_value(sqlite3_context *ctx, const void *batch, size_t i,
                      pq_type t, int32_t type_length, int is_index, int binary);

/* Values a decoded batch holds: as many as fit in about 64 KiB, at least
** one. */
size_t pqx_batch_values(size_t value_size);

/* What xConnect needs of an eponymous table-valued function: its schema,
** and whether it reads files (then it is SQLITE_VTAB_DIRECTONLY, else
** SQLITE_VTAB_INNOCUOUS).  It is the module's client data. */
typedef struct pqx_vtab_spec {
  const char *schema;
  int reads_files;
} pqx_vtab_spec;

/* The table of every eponymous table-valued function here. */
typedef struct pqx_vtab {
  sqlite3_vtab base;
  sqlite3 *db;
} pqx_vtab;

/* xConnect and xDisconnect of those tables; the client data is a
** pqx_vtab_spec. */
int pqx_vtab_connect(sqlite3 *db, void *spec, int argc,
                     const char *const *argv, sqlite3_vtab **pp,
                     char **pzErr);
int pqx_vtab_disconnect(sqlite3_vtab *v);
/* SQLite's length limit, for a table's scan: nothing it returns may be
** longer, so nothing is decompressed or built beyond it. */
size_t pqx_vtab_limit(sqlite3_vtab *v);
/* A zeroed cursor of `size` bytes, or NULL. */
void *pqx_cursor_new(size_t size);

/* The arguments of parquet_values and parquet_explain, hidden columns in
** this order: blob, encoding, type, options, dictionary. */
#define PQX_NARGS 5
typedef struct pqx_args {
  pq_params p;
  uint8_t *blob; /* copies: the scan outlives the arguments */
  size_t len;
  uint8_t *dict; /* NULL when not given */
  size_t dict_len;
} pqx_args;

/* xBestIndex: idxNum gets bit i set when argument i is given by an
** equality constraint (argv follows that order).  Blob and encoding are
** required: a plan without them costs the most, and fails in xFilter. */
int pqx_args_best_index(sqlite3_index_info *info, int first_col);
/* xFilter: reads and copies the arguments into a.  *no_rows is set when
** the blob is NULL. */
int pqx_args_filter(sqlite3_vtab_cursor *cur, const char *fn, int idxNum,
                    sqlite3_value **argv, pqx_args *a, int *no_rows);
void pqx_args_free(pqx_args *a);
/* Copies an argument's bytes (from sqlite3_malloc64, never NULL on
** success): a scan reads them after xFilter returns, longer than SQLite
** promises to keep the argument. */
int pqx_arg_copy(sqlite3_value *v, uint8_t **out, size_t *len);

int pqx_register_encode(sqlite3 *db);
int pqx_register_decode(sqlite3 *db);
int pqx_register_values(sqlite3 *db);
int pqx_register_encodings(sqlite3 *db);
int pqx_register_explain(sqlite3 *db);
int pqx_register_codec(sqlite3 *db);
int pqx_register_files(sqlite3 *db);
int pqx_register_pages(sqlite3 *db);

/* ---- Reading files (source.c) ------------------------------------------- */

/* A `source` argument opened: a path mapped, or a BLOB (copied when the
** scan outlives the call), and the file it holds. */
typedef struct pqx_source {
  const uint8_t *buf;
  size_t len;
  void *map;          /* the mapping of a path */
  uint8_t *copy;      /* the copy of a BLOB */
  char *name;         /* the path, or NULL for a BLOB */
  pq_file *file;
} pqx_source;

/* Opens the source v; on failure sets *msg (or returns SQLITE_NOMEM). */
int pqx_source_open(pqx_source *s, sqlite3_value *v, const char *fn, int copy,
                    char **msg);
void pqx_source_close(pqx_source *s);
/* xBestIndex of a table whose one argument is the hidden column
** source_col: idxNum 1 when it is given. */
int pqx_source_best_index(sqlite3_index_info *info, int source_col);
/* The allocation ceiling (limits.c): what one call may build is at most
** the smaller of SQLite's length limit and the connection's ceiling,
** parquet_max_alloc() (PQX_MAX_ALLOC_DEFAULT unless set, at least
** PQX_MAX_ALLOC_MIN). */
#define PQX_MAX_ALLOC_DEFAULT (256 * 1024 * 1024)
#define PQX_MAX_ALLOC_MIN 4096
size_t pqx_db_limit(sqlite3 *db);
size_t pqx_limit(sqlite3_context *ctx);
/* Said after a message about that limit. */
#define PQX_LIMIT_HINT \
  " (the smaller of SQLite's length limit and parquet_max_alloc())"
int pqx_register_limits(sqlite3 *db);

/* Names of the format's enums; NULL for a number without one. */
const char *pqx_page_type_name(int t);
const char *pqx_codec_name(int c);
const char *pqx_converted_name(int c);
const char *pqx_repetition_name(int r);
/* A name as TEXT, or the number when there is no name. */
void pqx_result_enum(sqlite3_context *ctx, const char *name, int value);
/* "INT32", "FIXED_LEN_BYTE_ARRAY(16)"; from sqlite3_mprintf. */
char *pqx_type_text(pq_type t, int32_t type_length);
/* "DECIMAL(9,2)", "TIMESTAMP(MICROS, UTC)", ...; NULL when absent. */
char *pqx_logical_text(const pq_schema_element *e);
/* Sets text from sqlite3_mprintf (NULL: no result). */
void pqx_result_mprintf(sqlite3_context *ctx, char *s);
/* A statistic's bytes as text (numbers, UTF-8 text, or hex). */
void pqx_result_stat(sqlite3_context *ctx, int present, pq_bytes v,
                     pq_type t);

#endif /* PQX_EXT_H */
