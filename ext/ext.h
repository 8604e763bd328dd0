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
  const uint8_t *blob; /* in the arguments, not copied (pqx_arg_blob); or
                       ** plain, when the options name a codec */
  size_t len;
  const uint8_t *dict; /* NULL when not given */
  size_t dict_len;
  pq_codec codec;      /* the options' "codec": the blob is decompressed */
  int level;
  pq_buf plain;
} pqx_args;

/* xBestIndex: idxNum gets bit i set when argument i is given by an
** equality constraint (argv follows that order).  Blob and encoding are
** required: a plan without them costs the most, and fails in xFilter. */
int pqx_args_best_index(sqlite3_index_info *info, int first_col);
/* xFilter: reads the arguments into a.  *no_rows is set when the blob is
** NULL. */
int pqx_args_filter(sqlite3_vtab_cursor *cur, const char *fn, int idxNum,
                    sqlite3_value **argv, pqx_args *a, int *no_rows);
void pqx_args_free(pqx_args *a);
/* An argument's bytes where SQLite holds them (never NULL on success):
** the registers of a table-valued function's arguments keep their values
** until SQLite computes the next xFilter's, so the scan reads them in
** place (see parquet_ext.c). */
int pqx_arg_blob(sqlite3_value *v, const uint8_t **out, size_t *len);

/* The stream's parameters as pqx_params reads them, with the options'
** "codec" and "level" (codec.c): NULL, or the message. */
char *pqx_stream_params(const char *fn, sqlite3_value *enc,
                        sqlite3_value *type, sqlite3_value *opts,
                        pq_params *p, pq_codec *codec, int *level);
/* A stream compressed with codec c (codec.c): *blob and *len become its
** bytes decompressed into plain, at most limit of them.  SQLITE_OK, or
** SQLITE_NOMEM, or SQLITE_ERROR with the message in *msg. */
int pqx_decompress_arg(const char *fn, pq_codec c, const uint8_t **blob,
                       size_t *len, size_t limit, pq_buf *plain, char **msg);

int pqx_register_encode(sqlite3 *db);
int pqx_register_decode(sqlite3 *db);
int pqx_register_values(sqlite3 *db);
int pqx_register_encodings(sqlite3 *db);
int pqx_register_explain(sqlite3 *db);
int pqx_register_codec(sqlite3 *db);
int pqx_register_codecs(sqlite3 *db);
int pqx_register_files(sqlite3 *db);
int pqx_register_pages(sqlite3 *db);
int pqx_register_table(sqlite3 *db);
int pqx_register_rows(sqlite3 *db);
int pqx_register_file_refs(sqlite3 *db);
int pqx_register_meta(sqlite3 *db);
int pqx_register_write(sqlite3 *db);
/* order.c: the collations instant and decimal, decimal_sum(x) */
int pqx_register_order(sqlite3 *db);
int pqx_register_variant(sqlite3 *db);
/* lab.c: parquet_lab, parquet_lab_file */
int pqx_register_lab(sqlite3 *db);
int pqx_register_lab_file(sqlite3 *db);
/* table.c: the names the `parquet` table gives the top-level fields of
** root (repeats and empty names renamed), root->n_children of them (each
** and the array from sqlite3_malloc); NULL when out of memory. */
char **pqx_table_names(const pq_schema_node *root);

/* ---- Files read by descriptor (fileio.c) --------------------------------
** A path opened for reading, with what the file was then (device, inode,
** size, modification and change times): only a regular file, checked
** before it is opened; read with pread, never mapped; every read checks
** that the file is still what was opened (a change is PQ_IO: "file: it
** changed while it was read").  The descriptor may be closed between
** scans (parked) and opened again (resumed), which fails unless the path
** still names the same, unchanged file. */
typedef struct pqx_remote pqx_remote;
typedef struct pqx_file {
  int fd;               /* when open: zeroed, the struct holds none */
  int open;
  pqx_remote *rem;      /* a URL's (remote.c): read by range requests */
  const char *name;     /* the path (its owner's memory) */
  unsigned long long dev, ino;
  long long size, mtime_ns, ctime_ns;
} pqx_file;

/* Opens path ("fn: cannot open 'p': ...", "fn: 'p' is not a file"); a
** URL (pqx_is_url) by remote.c, with db's settings (db may be NULL: the
** defaults). */
int pqx_file_open(pqx_file *pf, sqlite3 *db, const char *fn,
                  const char *path, char **msg);
void pqx_file_park(pqx_file *pf);
int pqx_file_resume(pqx_file *pf, const char *fn, char **msg);
/* Whether the path still names the file as it was opened: *same; an error
** when it names nothing, or no regular file. */
int pqx_file_check(const pqx_file *pf, const char *fn, int *same,
                   char **msg);
void pqx_file_close(pqx_file *pf);
/* The core's view of it (pf must stay where it is while it is used). */
pq_input pqx_file_input(pqx_file *pf);
/* A failed read of a pq_input, in the core's words: err filled with
** "<label>: <what>" (label "file", "http"); returns code. */
int pqx_input_fail(pq_error *err, const char *label, int code,
                   const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- URLs (remote.c) ---------------------------------------------------
** http:// and https:// sources, read by range requests (doc/remote.md).
** A connection's settings (parquet_http_option) are copied into each
** object when it is opened. */
typedef struct pqx_http_opts {
  sqlite3 *db;              /* for the allocation ceiling; may be NULL */
  long connect_timeout_ms;  /* to connect */
  long timeout_ms;          /* a request, whole; 0: none */
  int retries;              /* of a failed connection, a 5xx or 429 */
  size_t footer_guess;      /* the first request: the last bytes */
  size_t read_min;          /* a shorter read fetches this many */
  size_t fetch_ahead;       /* a scan's row group fetched whole: at most
                            ** this many bytes of it (0: never) */
  size_t coalesce_gap;      /* ranges this close fetched as one */
  int parallel;             /* requests in flight at once */
  size_t cache_size;        /* the connection's ranges kept: at most
                            ** (pqx_footers_limit: read there) */
  /* s3:// URLs: empty strings for none (the environment's, or AWS's) */
  int s3_max_keys;          /* a listing page's objects: 1 to 1000 */
  char s3_region[64];
  char s3_endpoint[512];
  size_t s3_part_size;      /* a multipart upload's parts (s3_put.c) */
  char s3_key_id[256];      /* parquet_s3_credentials: never read back */
  char s3_secret[256];
  char s3_token[4096];
} pqx_http_opts;
#define PQX_HTTP_PARALLEL_MAX 16
#define PQX_NO_URLS_MSG \
  "%s: '%s': this build reads no URLs (it was built without libcurl)"
/* 1 when path is a URL of a scheme read here (http, https, s3). */
int pqx_is_url(const char *path);
/* 1 when path is an s3:// URL that names many objects: a key with a glob
** character, or one that ends with '/' (every *.parquet below). */
int pqx_is_s3_glob(const char *path);
/* The objects such a URL names, by S3's ListObjectsV2 (every page of
** it), as s3:// URLs, sorted; none is an error naming the pattern unless
** lenient.  As pqx_paths_expand. */
int pqx_remote_list(const pqx_http_opts *o, const char *fn,
                    const char *pattern, int lenient, char ***paths, int *n,
                    char **msg);
/* 1 when key (a path of segments split by '/') matches pattern, whose
** segments are matched as a glob's (glob.c): `**` any number of them. */
int pqx_glob_key_match(const char *pattern, const char *key);
/* What a connection keeps of the URLs it read (remote.c): their footers
** and byte ranges.  Made (one reference), held (one more), freed (one
** less: gone with the last), its ranges limited to `limit` bytes; and
** db's, held for the caller, who frees it (limits.c keeps it with the
** connection, made on first use; NULL for a NULL db or when out of
** memory). */
typedef struct pqx_footers pqx_footers;
pqx_footers *pqx_footers_new(void);
void pqx_footers_hold(pqx_footers *f);
void pqx_footers_free(pqx_footers *f);
void pqx_footers_limit(pqx_footers *f, size_t limit);
pqx_footers *pqx_footers_of(sqlite3 *db);
/* db's settings (the defaults for a NULL db), and setting them (limits.c
** keeps them with the connection's other settings). */
void pqx_http_opts_of(sqlite3 *db, pqx_http_opts *o);
int pqx_http_opts_set(sqlite3 *db, const pqx_http_opts *o);
/* Opens url: its end fetched, the footer in it ("fn: 'url': ..."). */
int pqx_remote_open(pqx_remote **out, const pqx_http_opts *o, const char *fn,
                    const char *url, char **msg);
/* Whether the object at the URL is still the one opened (one request). */
int pqx_remote_check(pqx_remote *r, const char *fn, int *same, char **msg);
uint64_t pqx_remote_size(const pqx_remote *r);
/* pq_input's read over r. */
int pqx_remote_read(void *ctx, uint64_t offset, void *dst, size_t n,
                    pq_error *err);
void pqx_remote_free(pqx_remote *r);
/* Fetches the n byte ranges ranges[2i] (offset), ranges[2i + 1] (length)
** ahead of the reads a scan makes of them, as one or few requests in
** flight at once (remote.c, "Fetching ahead"); none (n 0) lets go of
** those fetched before.  With `pages` (pages of a query that reads a
** row group in part), ranges are not coalesced but asked for in one
** request where the server takes several ranges.  A failure is no
** error: the reads fetch what it could not. */
void pqx_remote_fetch(pqx_remote *r, const uint64_t *ranges, int n,
                      int pages);
/* 1 when the build reads URLs (libcurl). */
int pqx_remote_available(void);
/* The least s3_part_size: S3's 5 MiB, or, for the tests against a server
** that takes smaller parts, PARQUET_S3_MIN_PART_SIZE from the environment
** (1 or more). */
long long pqx_s3_part_min(void);

/* ---- Writing to s3:// (s3_put.c) ----------------------------------------
** parquet_write's output at an s3:// URL: the table writer's sink
** (pq_table_sink) as an S3 upload, in parts of s3_part_size bytes
** (doc/remote.md, "Writing"). */
typedef struct pqx_s3_put pqx_s3_put;
/* An upload to url with db's settings, nothing sent yet ("fn: 'url': ..."
** when the URL is none, or the build has no libcurl). */
int pqx_s3_put_open(pqx_s3_put **out, sqlite3 *db, const char *fn,
                    const char *url, char **msg);
/* The sink that sends what the writer makes (u must outlive its use). */
void pqx_s3_put_sink(pqx_s3_put *u, pq_table_sink *sink);
void pqx_s3_put_free(pqx_s3_put *u);
int pqx_register_remote(sqlite3 *db);

/* ---- Reading files (source.c) ------------------------------------------- */

/* A `source` argument opened: a path, read by descriptor, or a BLOB (an
** image: copied when the scan outlives the call), and the file it holds.
** The struct must not move once opened: the file reads through &fd. */
typedef struct pqx_source {
  const uint8_t *buf; /* a BLOB's image */
  size_t len;
  uint8_t *copy;      /* the copy of a BLOB */
  char *name;         /* the path, or NULL for a BLOB */
  pqx_file fd;        /* a path's descriptor */
  pq_file *file;
} pqx_source;

/* Opens the source v; on failure sets *msg (or returns SQLITE_NOMEM).  A
** path must be TEXT without a NUL byte, and db's file access on
** (pqx_path_arg, pqx_files_allowed). */
int pqx_source_open(pqx_source *s, sqlite3 *db, sqlite3_value *v,
                    const char *fn, int copy, char **msg);
/* Opens the file at path the same way. */
int pqx_source_open_path(pqx_source *s, sqlite3 *db, const char *path,
                         const char *fn, char **msg);
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
/* A connection's spare memory (limits.c): the last large stream
** parquet_encode returned comes back when SQLite frees the value, and the
** connection's next encoder builds its stream in it.  pqx_result_spare
** makes b (len > 0) the result and leaves b empty; pqx_spare_give hands a
** kept buffer to e (pq_encoder_give_room). */
void pqx_result_spare(sqlite3_context *ctx, pq_buf *b);
void pqx_spare_give(sqlite3 *db, pq_encoder *e);

/* ---- Paths and globs (glob.c) ------------------------------------------- */

/* The files a path names: a file itself; a folder, every *.parquet file
** below it (at any depth); a glob, where `*` and `?` match within one
** segment of the path, `[...]` a set of characters, and a segment `**` any
** number of folders.  Sorted by name, each once.  *paths (from
** sqlite3_malloc, freed by pqx_paths_free) holds *n of them; none is an
** error naming the pattern ("fn: no file matches 'd/?.parquet'"), as is a
** folder that cannot be read, and a walk that goes more than 64 folders
** deep or reads more than 100000 names.  Only regular files are results;
** links to folders are entered only where the pattern names them.  In a
** build with PARQUET_OMIT_FILES every pattern is an error. */
int pqx_paths_expand(sqlite3 *db, const char *fn, const char *pattern,
                     char ***paths, int *n, char **msg);
void pqx_paths_free(char **paths, int n);
/* A folder a walk listed or looked names up in, and what it was then: a
** name added, removed or renamed in it changes its modification time.
** racy: that time was within two seconds of the walk, when a change in the
** same tick of the file system's clock could leave it as it was. */
typedef struct pqx_folder {
  char *path;
  unsigned long long dev, ino;
  long long mtime_ns;
  int present, racy;
} pqx_folder;
/* pqx_paths_expand, and the folders the walk went through (*dirs, *ndirs;
** none for a path that names a file, or nothing).  lenient: a pattern that
** matches nothing, or a path that names nothing, is no error but no file. */
int pqx_paths_watch(sqlite3 *db, const char *fn, const char *pattern,
                    int lenient,
                    char ***paths, int *n, pqx_folder **dirs, int *ndirs,
                    char **msg);
/* 1 when every folder is still what it was (and none was racy), so that
** the pattern would match the same names; 0 for none. */
int pqx_folders_same(const pqx_folder *dirs, int n);
void pqx_folders_free(pqx_folder *dirs, int n);

/* The sources a `source` argument names, opened one at a time: a BLOB (one
** file image), a path (one file), or a glob or folder (the files that
** pqx_paths_expand gives, in that order).  A path that names something is
** a folder or one file, even when its name has a glob character; a glob
** is a path that names nothing as written.  Usage, in a table's scan:
**
**   xFilter:  pqx_sources_close(&c->ss);            (a scan from before)
**             rc = pqx_sources_open(&c->ss, db, argv[0], fn, &msg);
**             then pqx_sources_next until a file has rows, or none is left
**   xNext:    when the rows of c->src are done, pqx_sources_next again
**   xClose:   pqx_source_close(&c->src); pqx_sources_close(&c->ss);
**
** pqx_sources_open reads v (TEXT or BLOB, else an error as
** pqx_source_open's; a SQL NULL too, so test for it first) and copies what
** it needs: the scan may outlive v.  A glob or folder is expanded there, so
** that "no file matches" is its error; a plain path is opened only by
** pqx_sources_next, whose errors are pqx_source_open's ("fn: cannot open
** 'x': ...", "fn: 'x': not a Parquet file ...").  fn (the function's name,
** prefixed to messages) must outlive the iterator: a string literal.
**
** pqx_sources_next first closes *cur (so *cur must be zeroed or a source
** it gave before), then opens the next source into it and sets *got to 1;
** *got is 0, and *cur zeroed, when none is left.  cur->name is the file's
** path (NULL for a BLOB): use it for a file_name column.  It copies a
** BLOB once; cur owns what it holds until closed.  On failure *cur is
** zeroed, *msg is set (from sqlite3_mprintf: the caller frees it or hands
** it to zErrMsg) and the error code returned, or SQLITE_NOMEM with *msg
** NULL.  After a failure the iterator may be closed, or stepped on to the
** files after the one that failed.
**
** pqx_sources_close frees what is left; it may be called on a zeroed
** iterator, and twice.  Only one file is open at a time: the caller's
** cur. */
typedef struct pqx_sources {
  const char *fn;
  sqlite3 *db;
  char **paths;      /* the paths not yet opened (NULL once handed on) */
  int n, next;       /* how many sources; the index of the next one */
  uint8_t *blob;     /* a BLOB's copy, until handed on */
  size_t blob_len;
  int is_blob;
} pqx_sources;

int pqx_sources_open(pqx_sources *ss, sqlite3 *db, sqlite3_value *v,
                     const char *fn, char **msg);
int pqx_sources_next(pqx_sources *ss, pqx_source *cur, int *got, char **msg);
void pqx_sources_close(pqx_sources *ss);

/* ---- Access: files, and who is calling (access.c) ------------------------ */

/* The message of a file function in a build made with PARQUET_OMIT_FILES,
** and in a connection whose file access is off; "%s" is the function. */
#define PQX_OMIT_FILES_MSG                                                   \
  "%s: this build reads and writes no files (it was compiled with "        \
  "PARQUET_OMIT_FILES)"
#define PQX_FILES_OFF_MSG                                                    \
  "%s: file access is off for this connection (parquet_file_access(0))"

/* 1 when fn may read or write files on db: the build has file access and
** the connection has not turned it off.  Else 0, and *msg (from
** sqlite3_mprintf, NULL when out of memory) names fn and the reason. */
int pqx_files_allowed(sqlite3 *db, const char *fn, char **msg);

/* The checks of a call that touches files or the connection's settings,
** which a database's schema must not be able to make (doc/security.md):
** refused inside a statement that writes the database, during an
** integrity check, and unless a running statement of the connection calls
** fn by name in its text.  pqx_guard adds pqx_files_allowed.  On refusal
** both set the error of ctx and return non-zero. */
int pqx_guard_call(sqlite3_context *ctx, const char *fn);
int pqx_guard(sqlite3_context *ctx, const char *fn);
/* What a refusal inside a writing statement tells fn's caller to do. */
const char *pqx_guard_advice(const char *fn);

/* A path argument: TEXT, not empty, without a NUL byte inside (the C
** library would cut the path there).  SQLITE_OK with *path (SQLite's
** text of v); else the error code and *msg (from sqlite3_mprintf) naming
** fn, and for a NUL its byte offset. */
int pqx_path_arg(sqlite3_value *v, const char *fn, const char **path,
                 char **msg);

/* The per-connection file switch (limits.c): 1 once parquet_file_access(0)
** has turned file access off for db; pqx_conn_close_files does that, for
** good (SQLITE_OK, or SQLITE_ERROR when db has no entry). */
int pqx_conn_files_off(sqlite3 *db);
int pqx_conn_close_files(sqlite3 *db);
int pqx_register_access(sqlite3 *db);

/* Names of the format's enums; NULL for a number without one. */
const char *pqx_page_type_name(int t);
const char *pqx_codec_name(int c);
const char *pqx_converted_name(int c);
const char *pqx_repetition_name(int r);
/* ColumnOrder's member names (TYPE_ORDER, ...), NULL for another id. */
const char *pqx_column_order_name(int o);
/* A name as TEXT, or the number when there is no name. */
void pqx_result_enum(sqlite3_context *ctx, const char *name, int value);
/* "INT32", "FIXED_LEN_BYTE_ARRAY(16)"; from sqlite3_mprintf. */
char *pqx_type_text(pq_type t, int32_t type_length);
/* "DECIMAL(9,2)", "TIMESTAMP(MICROS, UTC)", ...; NULL when absent (or
** out of memory: test e->logical_type first). */
char *pqx_logical_text(const pq_schema_element *e);
/* Sets text from sqlite3_mprintf (NULL: out of memory). */
void pqx_result_mprintf(sqlite3_context *ctx, char *s);
/* Sets the result of ctx to the text of b (out of memory when b ran out)
** and frees b (source.c). */
void pqx_result_buf_text(sqlite3_context *ctx, pq_buf *b);
/* Sets the error of ctx from msg (sqlite3_mprintf; NULL: out of memory)
** and frees it (access.c). */
void pqx_result_error_msg(sqlite3_context *ctx, char *msg);
/* A statistic's bytes as text (numbers, UTF-8 text, or hex). */
void pqx_result_stat(sqlite3_context *ctx, int present, pq_bytes v,
                     pq_type t);

#endif /* PQX_EXT_H */
