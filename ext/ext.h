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

/* Sets the result of ctx to the value at index i of a decoded batch. */
void pqx_result_value(sqlite3_context *ctx, const void *batch, size_t i,
                      pq_type t, int32_t type_length, int is_index, int binary);

/* Values a decoded batch holds: as many as fit in about 64 KiB, at least
** one. */
size_t pqx_batch_values(size_t value_size);

/* xConnect and xDisconnect of the pure, eponymous table-valued functions:
** declares the schema and marks the table innocuous. */
int pqx_vtab_connect(sqlite3 *db, const char *schema, sqlite3_vtab **pp);
int pqx_vtab_disconnect(sqlite3_vtab *v);

int pqx_register_encode(sqlite3 *db);
int pqx_register_decode(sqlite3 *db);
int pqx_register_values(sqlite3 *db);
int pqx_register_encodings(sqlite3 *db);

#endif /* PQX_EXT_H */
