/*
** table.c -- the `parquet` virtual table: Parquet files as one SQL table.
**
**   CREATE VIRTUAL TABLE temp.trips
**     USING parquet('trips', hive_partitioning=1);
**   SELECT vendor, count(*) FROM trips WHERE pickup >= '2024-03-01'
**    GROUP BY vendor;
**
** At CREATE the paths and globs are expanded, every file's footer is read
** (each file's snapshot, below), and the columns are the top-level fields
** of the schema (renamed where names repeat or are empty, as DuckDB does),
** then the hive partitions (a key that names a field takes its place),
** then the hidden `filename` and `file_row_number`.  The columns do not
** change after CREATE.  The rowid is the row's number across the file list
** of the scan.
**
** A scan reads only the columns the query uses (colUsed), and only what
** the constraints cannot rule out: files by their hive values and rowid
** ranges, row groups by their statistics and bloom filters, pages by the
** page index, and rows by the values of their constrained columns
** (tbl_row_fails).  Constraints are never omitted: SQLite checks every row
** it is given, so pruning can only skip rows that could not match
** (prune.c says when statistics can be trusted for that).
**
** Files that change.  A snapshot is what a file was when its footer was
** read: the footer, and the file's identity (device, inode, size, the
** modification and change times; fileio.c), with the fields each column
** reads and the hive values of its path.  The table holds one per file of
** its list.  Each scan (xFilter) first makes the list again: a pattern
** whose walk went through a folder that changed since (glob.c's
** pqx_folders_same) is expanded again, and every file is checked against
** its snapshot: a file that changed is read again into a new snapshot,
** which must have the fields the table read of it (else the table fails,
** until it is created again); a new file must fit the table's columns (else
** the scan fails, and the next one looks again); a file that is gone is
** left out; one that cannot be read fails the scan.  A cursor takes a
** reference to the snapshots its scan began with, and reads them only: a
** file changed while a cursor reads it (or between its xFilter and its
** reaching the file) is an error of that cursor, never rows of the new
** file under the old footer, and another cursor's new snapshot (or list)
** leaves it alone.  Each file is opened when a cursor reaches it
** and closed when no cursor reads it: a table of many files holds few
** descriptors.
**
** A table in a database's own schema (not temp) comes from a database
** file, which may come from anywhere: connecting it (PRAGMA table_list,
** .schema, the first statement that names it) touches no file.  Its
** columns were saved beside it when it was created (the shadow table
** NAME_schema), and its paths are expanded and its files read at its
** first scan, which then fails unless the files still have those columns,
** and fails at every scan while PRAGMA trusted_schema is off.
*/
#define _GNU_SOURCE /* stat */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ext.h"

#define TBL_BATCH 256

/* ---- The table ------------------------------------------------------------ */

/* A file as its footer was read (see above), with what the table makes of
** it: which of its fields each column reads, and its hive values.  refs:
** the table's, and each cursor's that began a scan with it; readers: the
** cursors reading its row groups now, for whom src.fd is open. */
typedef struct TblSnap {
  int refs;
  int readers;
  pqx_source src;          /* the path, the descriptor, the footer */
  char *path;              /* as the table found it */
  int64_t num_rows;
  int64_t *rg_first;       /* first row of each row group, in the file */
  int *field;              /* per table column: top-level field, or -1 */
  uint8_t *other;          /* per table column: 1 when the file's values are
                           ** of another kind than the declared type's
                           ** (union_by_name): nothing is pruned by them */
  int nfield;              /* entries of field and other */
  char **hive;             /* per hive key: its value, or NULL */
  int nhive;
} TblSnap;

/* A pattern, and what it matched when it was last expanded: the paths,
** and the folders the walk went through (none: expanded at every scan). */
typedef struct TblWatch {
  char **paths;
  int npaths;
  pqx_folder *dirs;
  int ndirs;
} TblWatch;

typedef struct TblCol {
  char *name;
  pq_field_info info;
  char *type;              /* its type as parquet_write spells it, or NULL
                           ** (pq_field_type): in its declared type */
  int hive;                /* index of its hive key, or -1 */
} TblCol;

/* The collation of each PQ_ORDER_* (src/util/order.c), by which a
** column's text compares: its declared collation. */
static const char *const tbl_collations[] = {"BINARY", "instant", "decimal"};

typedef struct TblTable {
  sqlite3_vtab base;
  sqlite3 *db;
  char *schema, *name;     /* the database and the table */
  char **patterns;         /* the paths and globs as given */
  int npatterns;
  TblWatch *watch;         /* per pattern, once it has been expanded */
  int from_schema;         /* in a database's schema: read lazily */
  int loaded;              /* the files have been read */
  char *broken;            /* why every scan fails, until created again */
  TblSnap **files;         /* the files of the last scan, in order */
  int nfiles;
  TblCol *cols;
  int ncols;               /* fields, then hive keys; hidden ones follow */
  int nfields;             /* the columns of the files' fields (some of
                           ** them may be hive keys too) */
  int nhive;
  int binary_as_string, pushdown, union_by_name, hive_partitioning;
  int threads;             /* 2: scans read ahead on a worker thread; 1: not */
  int64_t total_rows;
  int filename_col, file_row_col;
  /* the memory readers of the table's cursors read into, given back when
  ** a reader closes and lent to the next (pq_read_room): row group after
  ** row group and query after query, it is written again rather than
  ** faulted in afresh */
  pq_read_room *rooms;
  int nrooms;
  /* the cells of the workers' chunks (TblAheadCol) and their blocks of
  ** bytes (TblBytes) that no value holds, kept from scan to scan for the
  ** same reason */
  pq_cell **spare;
  int nspare;
  void **spare_bytes;
  int nspare_bytes;
  size_t spare_bytes_cap;   /* their bytes */
} TblTable;

/* The rooms kept: enough for a few cursors' columns; and the most one may
** hold to be kept (a page larger than that is rare, and its memory goes). */
#define TBL_ROOMS 64
#define TBL_ROOM_MOST ((size_t)16 << 20)

/* The hidden columns' indexes; -2 for one left out because a column of
** the files has its name (the files' column wins, as in DuckDB). */
#define TBL_FILENAME(t) ((t)->filename_col)
#define TBL_FILE_ROW(t) ((t)->file_row_col)

/* ---- Snapshots ---------------------------------------------------------- */

static void tbl_snap_unref(TblTable *t, TblSnap *s) {
  if (!s || --s->refs > 0) return;
  /* The rooms that hold bytes of its file hold nothing a reader may use
  ** any more (another file may come to have its address). */
  for (int i = 0; i < t->nrooms; i++)
    if (t->rooms[i].owner == s->src.file) t->rooms[i].owner = NULL;
  pqx_source_close(&s->src);
  sqlite3_free(s->rg_first);
  sqlite3_free(s->path);
  sqlite3_free(s->field);
  sqlite3_free(s->other);
  for (int i = 0; s->hive && i < s->nhive; i++) sqlite3_free(s->hive[i]);
  sqlite3_free(s->hive);
  sqlite3_free(s);
}

/* Reads the file at path into a new snapshot (one reference), its
** descriptor closed again. */
static int tbl_snap_open(TblTable *t, const char *path, TblSnap **out,
                         char **msg) {
  *out = NULL;
  *msg = NULL;
  TblSnap *s = sqlite3_malloc(sizeof *s);
  if (!s) return SQLITE_NOMEM;
  memset(s, 0, sizeof *s);
  s->refs = 1;
  s->path = sqlite3_mprintf("%s", path);
  if (!s->path) {
    tbl_snap_unref(t, s);
    return SQLITE_NOMEM;
  }
  int rc = pqx_source_open_path(&s->src, t->db, path, "parquet", msg);
  if (rc) {
    tbl_snap_unref(t, s);
    return rc;
  }
  pqx_file_park(&s->src.fd);
  const pq_file_meta *m = pq_file_metadata(s->src.file);
  s->rg_first = sqlite3_malloc64((m->n_row_groups + 1) * sizeof(int64_t));
  if (!s->rg_first) {
    tbl_snap_unref(t, s);
    return SQLITE_NOMEM;
  }
  int64_t rows = 0;
  for (uint32_t g = 0; g < m->n_row_groups; g++) {
    int64_t n = m->row_groups[g].num_rows;
    if (n < 0 || rows > INT64_MAX / 4 - n) {
      *msg = sqlite3_mprintf("parquet: '%s': row group %u has %lld rows",
                             path, g, (long long)n);
      tbl_snap_unref(t, s);
      return SQLITE_ERROR;
    }
    s->rg_first[g] = rows;
    rows += n;
  }
  s->rg_first[m->n_row_groups] = rows;
  s->num_rows = rows;
  *out = s;
  return SQLITE_OK;
}

/* A cursor begins to read the snapshot's row groups: its file is opened
** unless another cursor has it open, and must be what the snapshot was. */
static int tbl_snap_read(TblSnap *s, char **msg) {
  *msg = NULL;
  if (s->readers == 0) {
    int rc = pqx_file_resume(&s->src.fd, "parquet", msg);
    if (rc) return rc;
  }
  s->readers++;
  return SQLITE_OK;
}

/* ... and is done with them. */
static void tbl_snap_done(TblSnap *s) {
  if (--s->readers == 0) pqx_file_park(&s->src.fd);
}

/* Whether the file at path is gone (so that it is not read, rather than
** an error). */
static int tbl_vanished(const char *path) {
  if (pqx_is_url(path)) return 0; /* an error of its own says what */
#ifdef PARQUET_OMIT_FILES
  (void)path; /* no file is ever read */
  return 0;
#else
  struct stat st;
  return stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR);
#endif
}

/* ---- Hive partitions ------------------------------------------------------- */

/* The i-th `key=value` folder of path: 1 and its key and value spans. */
static int tbl_hive_pair(const char *path, int i, const char **k, int *kn,
                         const char **v, int *vn) {
  const char *seg = path;
  int found = 0;
  for (;;) {
    const char *slash = strchr(seg, '/');
    if (!slash) return 0; /* the file name is no partition */
    const char *eq = memchr(seg, '=', (size_t)(slash - seg));
    if (eq && eq > seg) {
      if (found++ == i) {
        *k = seg;
        *kn = (int)(eq - seg);
        *v = eq + 1;
        *vn = (int)(slash - eq - 1);
        return 1;
      }
    }
    seg = slash + 1;
  }
}

static int tbl_hex(int c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

/* A partition value, its %XX escapes decoded; NULL for Hive's null. */
static char *tbl_hive_value(const char *v, int n) {
  if (n == 26 && memcmp(v, "__HIVE_DEFAULT_PARTITION__", 26) == 0) return NULL;
  char *s = sqlite3_malloc(n + 1);
  if (!s) return NULL;
  int o = 0;
  for (int i = 0; i < n; i++) {
    if (v[i] == '%' && i + 2 < n && tbl_hex(v[i + 1]) >= 0 && tbl_hex(v[i + 2]) >= 0) {
      s[o++] = (char)(tbl_hex(v[i + 1]) * 16 + tbl_hex(v[i + 2]));
      i += 2;
    } else {
      s[o++] = v[i];
    }
  }
  s[o] = 0;
  return s;
}

/* Whether s is an integer SQL reads back as the same text. */
static int tbl_is_int(const char *s, sqlite3_int64 *out) {
  const char *p = s;
  if (*p == '-') p++;
  if (!*p || (p[0] == '0' && p[1]) || strlen(p) > 18) return 0;
  for (const char *q = p; *q; q++)
    if (*q < '0' || *q > '9') return 0;
  *out = strtoll(s, NULL, 10);
  return 1;
}

/* ---- Building the table ------------------------------------------------------ */

/* Forgets the files (and, with cols, the columns). */
static void tbl_free_files(TblTable *t, int cols) {
  for (int i = 0; i < t->nfiles; i++) tbl_snap_unref(t, t->files[i]);
  sqlite3_free(t->files);
  t->files = NULL;
  t->nfiles = 0;
  t->total_rows = 0;
  if (!cols) return;
  for (int i = 0; i < t->ncols; i++) {
    sqlite3_free(t->cols[i].name);
    sqlite3_free(t->cols[i].type);
  }
  sqlite3_free(t->cols);
  t->cols = NULL;
  t->ncols = t->nhive = t->nfields = 0;
}

static void tbl_free(TblTable *t) {
  tbl_free_files(t, 1);
  for (int i = 0; i < t->nrooms; i++) {
    pq_buf_free(&t->rooms[i].window);
    pq_buf_free(&t->rooms[i].page);
  }
  sqlite3_free(t->rooms);
  for (int i = 0; i < t->nspare; i++) sqlite3_free(t->spare[i]);
  sqlite3_free(t->spare);
  for (int i = 0; i < t->nspare_bytes; i++) sqlite3_free(t->spare_bytes[i]);
  sqlite3_free(t->spare_bytes);
  for (int i = 0; t->watch && i < t->npatterns; i++) {
    pqx_paths_free(t->watch[i].paths, t->watch[i].npaths);
    pqx_folders_free(t->watch[i].dirs, t->watch[i].ndirs);
  }
  sqlite3_free(t->watch);
  for (int i = 0; i < t->npatterns; i++) sqlite3_free(t->patterns[i]);
  sqlite3_free(t->patterns);
  sqlite3_free(t->broken);
  sqlite3_free(t->schema);
  sqlite3_free(t->name);
  sqlite3_free(t);
}

/* An argument as written: 'text' or "text" unquoted into *out (from
** sqlite3_malloc), or *out NULL when it is not quoted. */
static int tbl_unquote(const char *a, char **out) {
  *out = NULL;
  size_t n = strlen(a);
  while (n && (a[n - 1] == ' ' || a[n - 1] == '\t' || a[n - 1] == '\n')) n--;
  while (n && (*a == ' ' || *a == '\t' || *a == '\n')) a++, n--;
  if (n < 2 || (a[0] != '\'' && a[0] != '"') || a[n - 1] != a[0])
    return SQLITE_OK;
  char *s = sqlite3_malloc64(n);
  if (!s) return SQLITE_NOMEM;
  size_t o = 0;
  for (size_t i = 1; i + 1 < n; i++) {
    s[o++] = a[i];
    if (a[i] == a[0] && a[i + 1] == a[0]) i++;
  }
  s[o] = 0;
  *out = s;
  return SQLITE_OK;
}

/* key=value with value 0, 1, true or false. */
static int tbl_option(TblTable *t, const char *a, char **msg) {
  const char *eq = strchr(a, '=');
  char key[64], val[16];
  size_t kn = eq ? (size_t)(eq - a) : 0;
  while (kn && a[kn - 1] == ' ') kn--;
  const char *v = eq ? eq + 1 : "";
  while (*v == ' ') v++;
  size_t vn = strlen(v);
  while (vn && v[vn - 1] == ' ') vn--;
  if (vn >= 2 && (v[0] == '\'' || v[0] == '"') && v[vn - 1] == v[0]) {
    v++;
    vn -= 2;
  }
  if (!eq || kn == 0 || kn >= sizeof key || vn >= sizeof val) {
    *msg = sqlite3_mprintf(
        "parquet: '%s' is neither a quoted path nor an option key=value", a);
    return SQLITE_ERROR;
  }
  memcpy(key, a, kn);
  key[kn] = 0;
  memcpy(val, v, vn);
  val[vn] = 0;
  if (!sqlite3_stricmp(key, "threads")) {
    if (strcmp(val, "1") && strcmp(val, "2")) {
      *msg = sqlite3_mprintf("parquet: option threads takes 1 or 2, not '%s'",
                             val);
      return SQLITE_ERROR;
    }
    t->threads = val[0] - '0';
    return SQLITE_OK;
  }
  int *opt = !sqlite3_stricmp(key, "hive_partitioning") ? &t->hive_partitioning
             : !sqlite3_stricmp(key, "union_by_name")   ? &t->union_by_name
             : !sqlite3_stricmp(key, "binary_as_string") ? &t->binary_as_string
             : !sqlite3_stricmp(key, "pushdown")         ? &t->pushdown
                                                        : NULL;
  if (!opt) {
    *msg = sqlite3_mprintf(
        "parquet: unknown option '%s' (hive_partitioning, union_by_name, "
        "binary_as_string, pushdown, threads)",
        key);
    return SQLITE_ERROR;
  }
  if (!strcmp(val, "1") || !sqlite3_stricmp(val, "true")) {
    *opt = 1;
  } else if (!strcmp(val, "0") || !sqlite3_stricmp(val, "false")) {
    *opt = 0;
  } else {
    *msg = sqlite3_mprintf("parquet: option %s takes 0 or 1, not '%s'", key,
                           val);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

static int tbl_find_col(const TblTable *t, const char *name, int n) {
  for (int i = 0; i < t->ncols; i++) {
    if ((int)strlen(t->cols[i].name) == n &&
        !sqlite3_strnicmp(t->cols[i].name, name, n))
      return i;
  }
  return -1;
}

static int tbl_add_col(TblTable *t, const char *name, int n,
                       const pq_field_info *info, const char *type,
                       int hive) {
  TblCol *c = sqlite3_realloc64(t->cols, (size_t)(t->ncols + 1) * sizeof *c);
  if (!c) return SQLITE_NOMEM;
  t->cols = c;
  c = &t->cols[t->ncols];
  memset(c, 0, sizeof *c);
  c->name = sqlite3_mprintf("%.*s", n, name);
  if (!c->name) return SQLITE_NOMEM;
  if (type && *type) {
    c->type = sqlite3_mprintf("%s", type);
    if (!c->type) {
      sqlite3_free(c->name);
      return SQLITE_NOMEM;
    }
  }
  c->info = *info;
  c->hive = hive;
  t->ncols++;
  return SQLITE_OK;
}

/* ---- Names -------------------------------------------------------------------
** The files' top-level fields as columns, named as DuckDB names them: a
** name met before (SQL's names ignore ASCII case) gets "_1", "_2", ...
** after it, the number counting that name's repeats, until it is one not
** met (so column, COLUMN, Column are column, COLUMN_1, Column_2); then a
** field whose name is still empty is "C" and its position from 0, made
** unique the same way. */

typedef struct TblSeen {
  char **name;
  int *count;
  int n;
} TblSeen;

static int tbl_seen_find(const TblSeen *h, const char *name) {
  for (int i = 0; i < h->n; i++)
    if (!sqlite3_stricmp(h->name[i], name)) return i;
  return -1;
}

/* *name made unique among those seen, and noted. */
static int tbl_seen_add(TblSeen *h, char **name) {
  int k;
  while ((k = tbl_seen_find(h, *name)) >= 0) {
    char *n = sqlite3_mprintf("%s_%d", *name, h->count[k]++);
    if (!n) return SQLITE_NOMEM;
    sqlite3_free(*name);
    *name = n;
  }
  char **nn = sqlite3_realloc64(h->name, (size_t)(h->n + 1) * sizeof *nn);
  if (nn) h->name = nn;
  int *nc = nn ? sqlite3_realloc64(h->count, (size_t)(h->n + 1) * sizeof *nc)
               : NULL;
  if (nc) h->count = nc;
  if (!nn || !nc) return SQLITE_NOMEM;
  h->name[h->n] = *name; /* borrowed: the caller's array owns it */
  h->count[h->n++] = 1;
  return SQLITE_OK;
}

static void tbl_names_free(char **names, uint32_t n) {
  if (!names) return;
  for (uint32_t i = 0; i < n; i++) sqlite3_free(names[i]);
  sqlite3_free(names);
}

/* The names of the top-level fields of root, as columns; NULL when out of
** memory. */
static char **tbl_names(const pq_schema_node *root) {
  uint32_t n = root->n_children;
  char **names = sqlite3_malloc64((size_t)(n ? n : 1) * sizeof *names);
  if (!names) return NULL;
  memset(names, 0, (size_t)(n ? n : 1) * sizeof *names);
  TblSeen h;
  memset(&h, 0, sizeof h);
  int rc = SQLITE_OK;
  for (uint32_t i = 0; i < n && !rc; i++) {
    const pq_schema_element *e = root->children[i]->elem;
    names[i] = sqlite3_mprintf("%.*s", (int)e->name.len,
                               e->name.ptr ? (const char *)e->name.ptr : "");
    rc = names[i] ? tbl_seen_add(&h, &names[i]) : SQLITE_NOMEM;
  }
  /* At most one name is still empty (a second one became "_1"). */
  for (uint32_t i = 0; i < n && !rc; i++) {
    if (names[i][0]) continue;
    int k = tbl_seen_find(&h, "");
    if (k >= 0) h.name[k] = (char *)""; /* names[i] goes */
    char *c = sqlite3_mprintf("C%u", i);
    rc = c ? tbl_seen_add(&h, &c) : SQLITE_NOMEM;
    if (rc) {
      sqlite3_free(c);
      break;
    }
    sqlite3_free(names[i]);
    names[i] = c;
  }
  sqlite3_free(h.name);
  sqlite3_free(h.count);
  if (rc) {
    tbl_names_free(names, n);
    return NULL;
  }
  return names;
}

char **pqx_table_names(const pq_schema_node *root) { return tbl_names(root); }

/* The kinds of values that SQL compares alike: numbers, text, blobs, JSON. */
static int tbl_class(const pq_field_info *i) {
  if (i->nested) return 3;
  return i->kind == PQ_CELL_INT || i->kind == PQ_CELL_REAL ? 0
         : i->kind == PQ_CELL_BLOB                         ? 2
                                                           : 1;
}

/* The snapshot's maps, n columns long: no field, no other kind. */
static int tbl_snap_maps(TblSnap *s, int n) {
  int *f = sqlite3_realloc64(s->field, (size_t)(n + 1) * sizeof *f);
  if (f) s->field = f;
  uint8_t *o = f ? sqlite3_realloc64(s->other, (size_t)n + 1) : NULL;
  if (o) s->other = o;
  if (!f || !o) return SQLITE_NOMEM;
  for (int i = s->nfield; i <= n; i++) {
    f[i] = -1;
    o[i] = 0;
  }
  s->nfield = n;
  return SQLITE_OK;
}

/* Maps the fields of the table's file fi (at CREATE) to the columns,
** adding columns from it when union_by_name says so (or when it is the
** first file). */
static int tbl_map_fields(TblTable *t, int fi, char **msg) {
  TblSnap *f = t->files[fi];
  const pq_schema_node *root = pq_file_schema(f->src.file);
  int first = fi == 0;
  char **names = tbl_names(root);
  if (!names) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  if (!first && !t->union_by_name) {
    int same = (int)root->n_children == t->ncols;
    for (uint32_t i = 0; same && i < root->n_children; i++) {
      pq_field_info info;
      pq_field_describe(root->children[i], t->binary_as_string, &info);
      const TblCol *c = &t->cols[i];
      same = !strcmp(names[i], c->name) && !strcmp(info.decl, c->info.decl) &&
             info.nested == c->info.nested;
    }
    if (!same) {
      *msg = sqlite3_mprintf(
          "parquet: the schemas of '%s' and '%s' differ (union_by_name=1 "
          "reads files by column name)",
          t->files[0]->path, f->path);
      rc = SQLITE_ERROR;
    }
  }
  if (!rc) rc = tbl_snap_maps(f, t->ncols + (int)root->n_children);
  for (uint32_t i = 0; i < root->n_children && !rc; i++) {
    pq_field_info info;
    pq_field_describe(root->children[i], t->binary_as_string, &info);
    int nlen = (int)strlen(names[i]);
    int c = first || !t->union_by_name ? (int)i
                                       : tbl_find_col(t, names[i], nlen);
    if (c < 0 || first) {
      pq_buf type;
      pq_buf_init(&type);
      rc = pq_field_type(root->children[i], t->binary_as_string, &type);
      if (!rc) pq_buf_append(&type, "", 1);
      rc = rc || type.oom ? SQLITE_NOMEM
                          : tbl_add_col(t, names[i], nlen, &info,
                                        (const char *)type.data, -1);
      pq_buf_free(&type);
      c = t->ncols - 1;
    } else {
      /* union_by_name: this file's own values, whatever the column's
      ** declared type (that of the first file that has it) */
      f->other[c] = tbl_class(&t->cols[c].info) != tbl_class(&info);
    }
    if (!rc) f->field[c] = (int)i;
  }
  tbl_names_free(names, root->n_children);
  return rc;
}

/* Maps the fields of a file found after CREATE to the table's columns,
** which do not change: without union_by_name it must have them, by name
** and type, in order; with it, the fields named as columns are read (of
** any type: see tbl_map_fields) and the others are not. */
static int tbl_fit_fields(TblTable *t, TblSnap *f, char **msg) {
  const pq_schema_node *root = pq_file_schema(f->src.file);
  char **names = tbl_names(root);
  if (!names) return SQLITE_NOMEM;
  int rc = tbl_snap_maps(f, t->ncols);
  int fits = (int)root->n_children == t->nfields || t->union_by_name;
  for (uint32_t i = 0; i < root->n_children && fits && !rc; i++) {
    pq_field_info info;
    pq_field_describe(root->children[i], t->binary_as_string, &info);
    int c = t->union_by_name
                ? tbl_find_col(t, names[i], (int)strlen(names[i]))
                : (int)i;
    if (c < 0) continue; /* not read */
    const TblCol *col = &t->cols[c];
    if (!t->union_by_name) {
      fits = !strcmp(names[i], col->name) &&
             (col->hive >= 0 || (!strcmp(info.decl, col->info.decl) &&
                                 info.nested == col->info.nested));
    }
    if (col->hive >= 0) continue; /* the folder's value */
    f->field[c] = (int)i;
    f->other[c] = tbl_class(&col->info) != tbl_class(&info);
  }
  tbl_names_free(names, root->n_children);
  if (!rc && !fits) {
    *msg = sqlite3_mprintf(
        "parquet: '%s' does not have the columns of the table (union_by_name=1 "
        "reads files by column name)",
        f->path);
    rc = SQLITE_ERROR;
  }
  return rc;
}

/* Whether the new snapshot ns of a file has the fields the table read of
** its old one, by name and type (and, without union_by_name, no other):
** then ns reads as old did. */
static int tbl_same_fields(TblTable *t, const TblSnap *old, TblSnap *ns,
                           int *same) {
  const pq_schema_node *ro = pq_file_schema(old->src.file);
  const pq_schema_node *rn = pq_file_schema(ns->src.file);
  char **no = tbl_names(ro), **nn = no ? tbl_names(rn) : NULL;
  int rc = nn ? tbl_snap_maps(ns, old->nfield) : SQLITE_NOMEM;
  *same = t->union_by_name || ro->n_children == rn->n_children;
  for (int c = 0; c < old->nfield && *same && !rc; c++) {
    int fi = old->field[c];
    ns->field[c] = fi;
    ns->other[c] = old->other[c];
    if (fi < 0) continue;
    pq_field_info a, b;
    if ((uint32_t)fi >= rn->n_children) {
      *same = 0;
      break;
    }
    pq_field_describe(ro->children[fi], t->binary_as_string, &a);
    pq_field_describe(rn->children[fi], t->binary_as_string, &b);
    *same = !strcmp(no[fi], nn[fi]) && !strcmp(a.decl, b.decl) &&
            a.nested == b.nested;
  }
  tbl_names_free(no, ro->n_children);
  tbl_names_free(nn, rn->n_children);
  return rc;
}

/* The hive values of the snapshot's path, for the table's hive keys. */
static int tbl_snap_hive(TblTable *t, TblSnap *s) {
  if (t->nhive == 0) return SQLITE_OK;
  s->hive = sqlite3_malloc64((size_t)t->nhive * sizeof(char *));
  if (!s->hive) return SQLITE_NOMEM;
  memset(s->hive, 0, (size_t)t->nhive * sizeof(char *));
  s->nhive = t->nhive;
  for (int c = 0; c < t->ncols; c++) {
    int j = t->cols[c].hive;
    if (j < 0 || j >= t->nhive) continue;
    const char *name = t->cols[c].name;
    const char *k, *v;
    int kn, vn;
    for (int i = 0; !s->hive[j] && tbl_hive_pair(s->path, i, &k, &kn, &v, &vn);
         i++) {
      if (kn != (int)strlen(name) || sqlite3_strnicmp(k, name, kn) ||
          (vn == 26 && !memcmp(v, "__HIVE_DEFAULT_PARTITION__", 26)))
        continue;
      s->hive[j] = tbl_hive_value(v, vn);
      if (!s->hive[j]) return SQLITE_NOMEM;
    }
  }
  return SQLITE_OK;
}

/* The hive keys of every file become columns: a key that names a column
** of the files takes that column's place (its values are the folders',
** as DuckDB reads what COPY ... PARTITION_BY (WRITE_PARTITION_COLUMNS)
** writes), the others follow the fields.  The keys are numbered in the
** order of their columns. */
static int tbl_hive_columns(TblTable *t, char **msg) {
  (void)msg;
  /* The keys, in the order they first appear (ASCII case ignored). */
  char **keys = NULL;
  int nkeys = 0, rc = SQLITE_OK;
  for (int fi = 0; fi < t->nfiles && !rc; fi++) {
    const char *k, *v;
    int kn, vn;
    for (int i = 0; tbl_hive_pair(t->files[fi]->path, i, &k, &kn, &v, &vn);
         i++) {
      int seen = 0;
      for (int j = 0; j < nkeys && !seen; j++)
        seen = (int)strlen(keys[j]) == kn && !sqlite3_strnicmp(keys[j], k, kn);
      if (seen) continue;
      char **nk = sqlite3_realloc64(keys, (size_t)(nkeys + 1) * sizeof *nk);
      if (!nk) {
        rc = SQLITE_NOMEM;
        break;
      }
      keys = nk;
      keys[nkeys] = sqlite3_mprintf("%.*s", kn, k);
      if (!keys[nkeys]) {
        rc = SQLITE_NOMEM;
        break;
      }
      nkeys++;
    }
  }
  /* The columns of the keys that name fields, in column order; then the
  ** others as they came, after the fields. */
  pq_field_info info;
  memset(&info, 0, sizeof info);
  info.ordered = 1;
  for (int c = 0; c < t->nfields && !rc; c++) {
    for (int j = 0; j < nkeys; j++) {
      if (!keys[j] || sqlite3_stricmp(keys[j], t->cols[c].name)) continue;
      t->cols[c].hive = t->nhive++;
      for (int fi = 0; fi < t->nfiles; fi++) {
        t->files[fi]->field[c] = -1;
        t->files[fi]->other[c] = 0;
      }
      sqlite3_free(keys[j]);
      keys[j] = NULL;
      break;
    }
  }
  for (int j = 0; j < nkeys && !rc; j++) {
    if (!keys[j]) continue;
    rc = tbl_add_col(t, keys[j], (int)strlen(keys[j]), &info, NULL, t->nhive);
    if (!rc) t->nhive++;
  }
  /* Each file's values; a key is INTEGER when every value is an integer. */
  for (int fi = 0; fi < t->nfiles && !rc; fi++)
    rc = tbl_snap_hive(t, t->files[fi]);
  for (int c = 0; c < t->ncols && !rc; c++) {
    int j = t->cols[c].hive;
    if (j < 0) continue;
    int all_int = 1;
    for (int fi = 0; fi < t->nfiles && all_int; fi++) {
      sqlite3_int64 x;
      const char *v = t->files[fi]->hive[j];
      if (v && !tbl_is_int(v, &x)) all_int = 0;
    }
    /* (a key that names a field is the folder's value, not the field's
    ** type: no type of its own, compared as bytes or numbers) */
    t->cols[c].info = info;
    t->cols[c].info.decl = all_int ? "INTEGER" : "TEXT";
    t->cols[c].info.kind = all_int ? PQ_CELL_INT : PQ_CELL_TEXT;
    sqlite3_free(t->cols[c].type);
    t->cols[c].type = NULL;
  }
  for (int j = 0; j < nkeys; j++) sqlite3_free(keys[j]);
  sqlite3_free(keys);
  return rc;
}

static int tbl_declare(TblTable *t) {
  sqlite3_str *s = sqlite3_str_new(t->db);
  sqlite3_str_appendall(s, "CREATE TABLE x(");
  for (int i = 0; i < t->ncols; i++) {
    const TblCol *c = &t->cols[i];
    sqlite3_str_appendf(s, "%s\"%w\" %s", i ? ", " : "", c->name,
                        c->info.decl);
    if (c->type) sqlite3_str_appendf(s, " '%q'", c->type);
    if (c->info.order)
      sqlite3_str_appendf(s, " COLLATE %s", tbl_collations[c->info.order]);
  }
  int n = t->ncols;
  t->filename_col = t->file_row_col = -2;
  if (tbl_find_col(t, "filename", 8) < 0) {
    sqlite3_str_appendf(s, "%sfilename TEXT HIDDEN", n ? ", " : "");
    t->filename_col = n++;
  }
  if (tbl_find_col(t, "file_row_number", 15) < 0) {
    sqlite3_str_appendf(s, "%sfile_row_number INTEGER HIDDEN", n ? ", " : "");
    t->file_row_col = n++;
  }
  sqlite3_str_appendall(s, ")");
  char *sql = sqlite3_str_finish(s);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_declare_vtab(t->db, sql);
  sqlite3_free(sql);
  return rc;
}

/* ---- The file list ------------------------------------------------------------
** Each pattern is expanded at CREATE, and again at a scan when one of the
** folders its walk went through has changed (pqx_folders_same), or when it
** names a file (a stat, as cheap as the check).  The list is the patterns'
** paths in order, each once. */

/* A set of strings, by their index in an array the caller keeps. */
typedef struct TblHash {
  int *slot; /* index + 1, or 0 */
  size_t mask;
} TblHash;

static uint64_t tbl_hash_of(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
  return h;
}

static int tbl_hash_init(TblHash *h, int n) {
  size_t cap = 16;
  while (cap < (size_t)n * 2 + 16) cap *= 2;
  h->slot = sqlite3_malloc64(cap * sizeof *h->slot);
  if (!h->slot) return SQLITE_NOMEM;
  memset(h->slot, 0, cap * sizeof *h->slot);
  h->mask = cap - 1;
  return SQLITE_OK;
}

/* The index of s among keys, or -1; with add, s (keys[add - 1]) is added
** when it is not there. */
static int tbl_hash_find(TblHash *h, const char *const *keys, const char *s,
                         int add) {
  size_t i = (size_t)tbl_hash_of(s) & h->mask;
  for (; h->slot[i]; i = (i + 1) & h->mask)
    if (!strcmp(keys[h->slot[i] - 1], s)) return h->slot[i] - 1;
  if (add) h->slot[i] = add;
  return -1;
}

/* Expands pattern i again; lenient: into no file when it matches none. */
static int tbl_expand(TblTable *t, int i, int lenient, char **msg) {
  if (!t->watch) {
    t->watch = sqlite3_malloc64((size_t)t->npatterns * sizeof *t->watch);
    if (!t->watch) return SQLITE_NOMEM;
    memset(t->watch, 0, (size_t)t->npatterns * sizeof *t->watch);
  }
  TblWatch *w = &t->watch[i];
  char **paths;
  pqx_folder *dirs;
  int n, nd;
  int rc = pqx_paths_watch(t->db, "parquet", t->patterns[i], lenient,
                           &paths, &n,
                           &dirs, &nd, msg);
  if (rc) return rc;
  pqx_paths_free(w->paths, w->npaths);
  pqx_folders_free(w->dirs, w->ndirs);
  w->paths = paths;
  w->npaths = n;
  w->dirs = dirs;
  w->ndirs = nd;
  return SQLITE_OK;
}

/* The paths of all patterns, in order, each once (*list: borrowed from
** the patterns' watches). */
static int tbl_gather(TblTable *t, const char ***list, int *n) {
  int total = 0;
  for (int i = 0; i < t->npatterns; i++) total += t->watch[i].npaths;
  const char **out = sqlite3_malloc64((size_t)(total + 1) * sizeof *out);
  TblHash h;
  h.slot = NULL;
  if (!out || tbl_hash_init(&h, total)) {
    sqlite3_free(out);
    return SQLITE_NOMEM;
  }
  int m = 0;
  for (int i = 0; i < t->npatterns; i++) {
    for (int k = 0; k < t->watch[i].npaths; k++) {
      out[m] = t->watch[i].paths[k];
      if (tbl_hash_find(&h, out, out[m], m + 1) < 0) m++;
    }
  }
  sqlite3_free(h.slot);
  *list = out;
  *n = m;
  return SQLITE_OK;
}

/* Expands the patterns into the files, reads each, and makes the columns
** from them: what CREATE does, and a table from a schema's first scan. */
static int tbl_read_files(TblTable *t, char **msg) {
  int rc = SQLITE_OK;
  for (int i = 0; i < t->npatterns && !rc; i++) rc = tbl_expand(t, i, 0, msg);
  const char **list = NULL;
  int n = 0;
  if (!rc) rc = tbl_gather(t, &list, &n);
  if (!rc) {
    t->files = sqlite3_malloc64((size_t)(n + 1) * sizeof *t->files);
    if (!t->files) rc = SQLITE_NOMEM;
  }
  for (int k = 0; k < n && !rc; k++) {
    TblSnap *s;
    rc = tbl_snap_open(t, list[k], &s, msg);
    if (rc) break;
    t->files[t->nfiles++] = s;
    rc = tbl_map_fields(t, t->nfiles - 1, msg);
    if (!rc) t->total_rows += s->num_rows;
  }
  sqlite3_free(list);
  t->nfields = t->ncols;
  /* Every file's map covers every column (union_by_name adds some). */
  for (int i = 0; i < t->nfiles && !rc; i++)
    rc = tbl_snap_maps(t->files[i], t->ncols);
  if (!rc && t->hive_partitioning) rc = tbl_hive_columns(t, msg);
  for (int i = 0; i < t->nfiles && !rc; i++)
    rc = tbl_snap_maps(t->files[i], t->ncols);
  if (!rc) t->loaded = 1;
  return rc;
}

/* ---- A table in a database's schema ----------------------------------------
** Its columns are saved beside it, in "NAME_schema" (a shadow table), one
** row per column in order: name, the declared type, the kind of its values
** (PQ_CELL_*), whether it is nested JSON, and its hive key's index or -1.
** That is all xConnect reads; the values are checked, so that a database
** made to mislead can declare no other kind of table. */

#define TBL_SHADOW "_schema"

static int tbl_shadow_save(TblTable *t) {
  char *sql = sqlite3_mprintf(
      "CREATE TABLE \"%w\".\"%w" TBL_SHADOW "\"(name TEXT, decl TEXT, kind "
      "INTEGER, nested INTEGER, hive INTEGER, type TEXT, ord INTEGER)",
      t->schema, t->name);
  if (!sql) return SQLITE_NOMEM;
  int rc = sqlite3_exec(t->db, sql, 0, 0, 0);
  sqlite3_free(sql);
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK) {
    sql = sqlite3_mprintf("INSERT INTO \"%w\".\"%w" TBL_SHADOW
                          "\" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                          t->schema, t->name);
    if (!sql) return SQLITE_NOMEM;
    rc = sqlite3_prepare_v2(t->db, sql, -1, &st, 0);
    sqlite3_free(sql);
  }
  for (int i = 0; i < t->ncols && rc == SQLITE_OK; i++) {
    const TblCol *c = &t->cols[i];
    sqlite3_bind_text(st, 1, c->name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, c->info.decl, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, c->info.kind);
    sqlite3_bind_int(st, 4, c->info.nested);
    sqlite3_bind_int(st, 5, c->hive);
    sqlite3_bind_text(st, 6, c->type, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 7, c->info.order);
    rc = sqlite3_step(st);
    int r2 = sqlite3_reset(st);
    rc = rc == SQLITE_DONE ? SQLITE_OK : r2 ? r2 : SQLITE_ERROR;
  }
  sqlite3_finalize(st);
  return rc;
}

/* The declared types a saved column may have: those pq_field_describe
** and the hive columns give. */
static const char *tbl_known_decl(const char *d) {
  static const char *const decls[] = {"INTEGER", "REAL", "TEXT", "BLOB",
                                      "JSON TEXT"};
  for (size_t i = 0; i < sizeof decls / sizeof *decls; i++)
    if (d && !strcmp(d, decls[i])) return decls[i];
  return NULL;
}

static int tbl_shadow_load(TblTable *t, char **msg) {
  char *sql = sqlite3_mprintf("SELECT name, decl, kind, nested, hive, type, "
                              "ord FROM "
                              "\"%w\".\"%w" TBL_SHADOW "\" ORDER BY rowid",
                              t->schema, t->name);
  if (!sql) return SQLITE_NOMEM;
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(t->db, sql, -1, &st, 0);
  sqlite3_free(sql);
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    const char *decl = tbl_known_decl((const char *)sqlite3_column_text(st, 1));
    int kind = sqlite3_column_int(st, 2), nested = sqlite3_column_int(st, 3);
    int hive = sqlite3_column_int(st, 4);
    const char *type = (const char *)sqlite3_column_text(st, 5);
    int ord = sqlite3_column_int(st, 6);
    if (!name || !decl || kind < PQ_CELL_NULL || kind > PQ_CELL_BLOB ||
        ord < PQ_ORDER_BYTES || ord > PQ_ORDER_DECIMAL ||
        (type && strlen(type) > 10000) ||
        (nested != 0 && nested != 1) || (hive >= 0 && hive != t->nhive) ||
        hive < -1 ||
        tbl_find_col(t, name, (int)strlen(name)) >= 0) {
      rc = SQLITE_CORRUPT;
      break;
    }
    pq_field_info info;
    memset(&info, 0, sizeof info);
    info.decl = decl;
    info.kind = kind;
    info.nested = nested;
    info.order = ord;
    rc = tbl_add_col(t, name, (int)strlen(name), &info, type, hive);
    if (rc == SQLITE_OK && hive >= 0) t->nhive++;
  }
  if (st) {
    int r2 = sqlite3_finalize(st);
    if (rc == SQLITE_OK) rc = r2;
  }
  if (rc == SQLITE_OK && t->ncols == 0) rc = SQLITE_CORRUPT;
  if (rc != SQLITE_OK && rc != SQLITE_NOMEM) {
    *msg = sqlite3_mprintf(
        "parquet: table '%s' has no usable list of its columns in "
        "'%s" TBL_SHADOW "': create the table again",
        t->name, t->name);
    rc = SQLITE_ERROR;
  }
  return rc;
}

/* At a table from a schema's first scan: its files, which must have the
** columns it was declared with. */
static int tbl_first_read(TblTable *t, char **msg) {
  TblCol *saved = t->cols;
  int nsaved = t->ncols, nhive = t->nhive;
  t->cols = NULL;
  t->ncols = t->nhive = 0;
  int rc = tbl_read_files(t, msg);
  int same = rc == SQLITE_OK && t->ncols == nsaved && t->nhive == nhive;
  for (int i = 0; same && i < nsaved; i++) {
    same = !strcmp(t->cols[i].name, saved[i].name) &&
           !strcmp(t->cols[i].info.decl, saved[i].info.decl) &&
           t->cols[i].info.nested == saved[i].info.nested &&
           t->cols[i].info.order == saved[i].info.order &&
           !strcmp(t->cols[i].type ? t->cols[i].type : "",
                   saved[i].type ? saved[i].type : "") &&
           t->cols[i].hive == saved[i].hive;
  }
  if (rc == SQLITE_OK && !same) {
    *msg = sqlite3_mprintf(
        "parquet: the files of table '%s' no longer have the columns it "
        "was created with: create the table again",
        t->name);
    rc = SQLITE_ERROR;
  }
  if (rc) { /* the saved columns stay; the next scan tries again */
    tbl_free_files(t, 1);
    t->cols = saved;
    t->ncols = nsaved;
    t->nhive = nhive;
    t->loaded = 0;
    return rc;
  }
  for (int i = 0; i < nsaved; i++) {
    sqlite3_free(saved[i].name);
    sqlite3_free(saved[i].type);
  }
  sqlite3_free(saved);
  return SQLITE_OK;
}

/* xCreate (create: 1) and xConnect.  argv: the module's name, the
** database's, the table's, then the arguments. */
static int tbl_init(sqlite3 *db, int create, int argc,
                    const char *const *argv, sqlite3_vtab **pp,
                    char **pzErr) {
  TblTable *t = sqlite3_malloc(sizeof *t);
  if (!t) return SQLITE_NOMEM;
  memset(t, 0, sizeof *t);
  t->db = db;
  t->pushdown = 1;
  t->threads = 2;
  t->schema = sqlite3_mprintf("%s", argv[1]);
  t->name = sqlite3_mprintf("%s", argv[2]);
  int rc = t->schema && t->name ? SQLITE_OK : SQLITE_NOMEM;
  char *msg = NULL;
  t->from_schema = sqlite3_stricmp(argv[1], "temp") != 0;
  /* Options first: they may come anywhere. */
  for (int i = 3; i < argc && !rc; i++) {
    char *p;
    rc = tbl_unquote(argv[i], &p);
    if (rc || p) {
      sqlite3_free(p);
      continue;
    }
    rc = tbl_option(t, argv[i], &msg);
  }
  for (int i = 3; i < argc && !rc; i++) {
    char *p;
    rc = tbl_unquote(argv[i], &p);
    if (rc || !p) continue;
    char **np = sqlite3_realloc64(t->patterns,
                                  (size_t)(t->npatterns + 1) * sizeof *np);
    if (!np) {
      sqlite3_free(p);
      rc = SQLITE_NOMEM;
      break;
    }
    t->patterns = np;
    t->patterns[t->npatterns++] = p;
  }
  if (!rc && t->npatterns == 0) {
    msg = sqlite3_mprintf(
        "parquet: no file: CREATE VIRTUAL TABLE t USING "
        "parquet('file.parquet' [, 'more/*.parquet' ...] [, option=1 ...])");
    rc = SQLITE_ERROR;
  }
  if (!rc && (create || !t->from_schema)) {
    rc = pqx_files_allowed(db, "parquet", &msg)
             ? tbl_read_files(t, &msg)
             : msg ? SQLITE_ERROR : SQLITE_NOMEM;
    if (!rc && create && t->from_schema) rc = tbl_shadow_save(t);
  } else if (!rc) {
    rc = tbl_shadow_load(t, &msg);
  }
  if (!rc) rc = tbl_declare(t);
  if (rc) {
    if (msg) *pzErr = msg;
    tbl_free(t);
    return rc;
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  *pp = &t->base;
  return SQLITE_OK;
}

static int tblCreate(sqlite3 *db, void *aux, int argc, const char *const *argv,
                     sqlite3_vtab **pp, char **pzErr) {
  (void)aux;
  return tbl_init(db, 1, argc, argv, pp, pzErr);
}

static int tblConnect(sqlite3 *db, void *aux, int argc,
                      const char *const *argv, sqlite3_vtab **pp,
                      char **pzErr) {
  (void)aux;
  return tbl_init(db, 0, argc, argv, pp, pzErr);
}

static int tblDisconnect(sqlite3_vtab *v) {
  tbl_free((TblTable *)v);
  return SQLITE_OK;
}

/* DROP TABLE: the saved columns go with it. */
static int tblDestroy(sqlite3_vtab *v) {
  TblTable *t = (TblTable *)v;
  int rc = SQLITE_OK;
  if (t->from_schema) {
    char *sql = sqlite3_mprintf("DROP TABLE IF EXISTS \"%w\".\"%w" TBL_SHADOW
                                "\"",
                                t->schema, t->name);
    rc = sql ? sqlite3_exec(t->db, sql, 0, 0, 0) : SQLITE_NOMEM;
    sqlite3_free(sql);
  }
  if (rc == SQLITE_OK) tbl_free(t);
  return rc;
}

/* ALTER TABLE RENAME: the saved columns follow. */
static int tblRename(sqlite3_vtab *v, const char *name) {
  TblTable *t = (TblTable *)v;
  char *to = sqlite3_mprintf("%s", name);
  if (!to) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  if (t->from_schema) {
    char *sql = sqlite3_mprintf("ALTER TABLE \"%w\".\"%w" TBL_SHADOW
                                "\" RENAME TO \"%w" TBL_SHADOW "\"",
                                t->schema, t->name, name);
    rc = sql ? sqlite3_exec(t->db, sql, 0, 0, 0) : SQLITE_NOMEM;
    sqlite3_free(sql);
  }
  if (rc) {
    sqlite3_free(to);
    return rc;
  }
  sqlite3_free(t->name);
  t->name = to;
  return SQLITE_OK;
}

static int tblShadowName(const char *suffix) {
  return sqlite3_stricmp(suffix, TBL_SHADOW + 1) == 0;
}

/* ---- Planning ---------------------------------------------------------------
** idxStr lists the constraints given to xFilter, in argv order, as
** "<column> <op> <flags>;" with column -1 for the rowid; it begins with the
** columns used, as a mask in hex.  Ops: PQ_OP_* and the ones below. */

enum { TBL_OP_LIKE = 20, TBL_OP_GLOB, TBL_OP_IN, TBL_OP_LIMIT, TBL_OP_OFFSET };

static int tbl_can_use_in(void) { return sqlite3_libversion_number() >= 3038000; }

static int tblBestIndex(sqlite3_vtab *v, sqlite3_index_info *info) {
  TblTable *t = (TblTable *)v;
  sqlite3_str *s = sqlite3_str_new(t->db);
  sqlite3_str_appendf(s, "%llx;", (unsigned long long)info->colUsed);
  int argv_n = 0, others = 0, offset_at = -1;
  /* A table from a schema, its files not read yet: a guess. */
  double rows = t->loaded ? (double)t->total_rows : 1e6;
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->op != SQLITE_INDEX_CONSTRAINT_LIMIT &&
        c->op != SQLITE_INDEX_CONSTRAINT_OFFSET)
      others++;
  }
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (!c->usable) continue;
    int col = c->iColumn, op = 0;
    int is_col = col >= 0 && col < t->ncols;
    int text = is_col && t->cols[col].info.kind != PQ_CELL_INT &&
               t->cols[col].info.kind != PQ_CELL_REAL;
    int order = is_col ? t->cols[col].info.order : PQ_ORDER_BYTES;
    switch (c->op) {
      case SQLITE_INDEX_CONSTRAINT_EQ: op = PQ_OP_EQ; break;
      case SQLITE_INDEX_CONSTRAINT_LT: op = PQ_OP_LT; break;
      case SQLITE_INDEX_CONSTRAINT_LE: op = PQ_OP_LE; break;
      case SQLITE_INDEX_CONSTRAINT_GT: op = PQ_OP_GT; break;
      case SQLITE_INDEX_CONSTRAINT_GE: op = PQ_OP_GE; break;
      case SQLITE_INDEX_CONSTRAINT_ISNULL: op = PQ_OP_ISNULL; break;
      case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: op = PQ_OP_NOTNULL; break;
      /* (a prefix bounds bytes: not text in another order) */
      case SQLITE_INDEX_CONSTRAINT_LIKE: op = text && !order ? TBL_OP_LIKE : 0; break;
      case SQLITE_INDEX_CONSTRAINT_GLOB: op = text && !order ? TBL_OP_GLOB : 0; break;
      case SQLITE_INDEX_CONSTRAINT_LIMIT: op = TBL_OP_LIMIT; break;
      case SQLITE_INDEX_CONSTRAINT_OFFSET:
        /* Rows are skipped before SQLite's checks only when there are
        ** none. */
        op = others == 0 && (info->nOrderBy == 0 ||
                             (info->nOrderBy == 1 &&
                              info->aOrderBy[0].iColumn == -1 &&
                              !info->aOrderBy[0].desc))
                 ? TBL_OP_OFFSET
                 : 0;
        break;
      default: break;
    }
    if (!op) continue;
    if (op < TBL_OP_LIMIT && !is_col && col != -1 && col != TBL_FILENAME(t) &&
        col != TBL_FILE_ROW(t))
      continue;
    if (op < TBL_OP_LIMIT && (col == -1 || col == TBL_FILE_ROW(t)) &&
        op > PQ_OP_GE)
      continue;
    /* Text is pruned in its column's order: compared under another
    ** collation, not at all. */
    if ((text || col == TBL_FILENAME(t)) && op <= PQ_OP_GE) {
      const char *coll = sqlite3_vtab_collation(info, i);
      if (coll && sqlite3_stricmp(coll, tbl_collations[order])) continue;
    }
    if (!t->pushdown && op != TBL_OP_LIMIT && op != TBL_OP_OFFSET) continue;
    /* IN on a column: all its values at once; on the rowid, one xFilter
    ** per value, each an exact range. */
    if (op == PQ_OP_EQ && col != -1 && col != TBL_FILE_ROW(t) &&
        tbl_can_use_in() && sqlite3_vtab_in(info, i, -1)) {
      sqlite3_vtab_in(info, i, 1);
      op = TBL_OP_IN;
    }
    info->aConstraintUsage[i].argvIndex = ++argv_n;
    if (op == TBL_OP_OFFSET) {
      info->aConstraintUsage[i].omit = 1;
      offset_at = argv_n;
    }
    sqlite3_str_appendf(s, "%d %d;", op < TBL_OP_LIMIT ? col : 0, op);
    if (op == PQ_OP_EQ || op == TBL_OP_IN) rows /= 8;
    else if (op <= PQ_OP_GE || op == TBL_OP_LIKE || op == TBL_OP_GLOB) rows /= 2;
  }
  (void)offset_at;
  char *idx = sqlite3_str_finish(s);
  if (!idx) return SQLITE_NOMEM;
  info->idxStr = idx;
  info->needToFreeIdxStr = 1;
  int used = 1;
  for (int i = 0; i < 64; i++) used += (info->colUsed >> i) & 1;
  info->estimatedRows = (sqlite3_int64)(rows < 1 ? 1 : rows);
  info->estimatedCost = (rows < 1 ? 1 : rows) * used;
  if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == -1 &&
      !info->aOrderBy[0].desc)
    info->orderByConsumed = 1;
  return SQLITE_OK;
}

/* ---- Scanning ---------------------------------------------------------------- */

typedef struct TblCons {
  int col, op;
  int order;       /* PQ_ORDER_* of the column's text */
  int nvals;
  pq_cell *vals;   /* nvals of them; IN: every value */
  int usable;      /* 0: SQL's comparison here is not known (affinity) */
  int reader;      /* the reader of its column that rows are checked by
                   ** (tbl_row_fails), or -1 */
  /* what it found of each entry of that reader's dictionary (0: not yet,
  ** 1: may match, 2: fails), for the reader's dictionary number
  ** verdict_gen (its dict_gen): each entry is compared once, not each
  ** row */
  uint8_t *verdict;
  size_t nverdict;
  uint64_t verdict_gen;
} TblCons;

/* A dictionary's text and blob entries, handed to SQLite without a copy
** per row.  One allocation: this header, where each entry starts in it
** (0: an entry of another kind), then each entry's bytes after a pointer
** back to the header (tbl_block_free's form, below).  refs counts the
** values SQLite holds of it, plus one while a reader has it.  SQLite calls
** the values' destructor under the connection's lock, as it does
** everything with the values of a statement, so the count needs no
** atomics. */
typedef struct TblDict {
  sqlite3_int64 refs;
  size_t n;
} TblDict;

#define TBL_DICT_AT(d) ((size_t *)(void *)((d) + 1))

/* The texts and blobs of a chunk read ahead (below), handed to SQLite
** without a copy too: each is preceded by a pointer back to the block
** (its low bit set when the text holds no NUL and SQLite may be told it
** ends at its NUL), and followed by a NUL.  refs counts the values SQLite
** holds of it, plus one for the ring or the cursor that has it; like a
** dictionary block's, it is counted on the connection's thread only. */
typedef struct TblBytes {
  sqlite3_int64 refs;
  size_t cap, len;          /* of the bytes after the header */
} TblBytes;

#define TBL_BYTES_DATA(b) ((uint8_t *)((b) + 1))

/* One reference to a block of either kind, TblDict or TblBytes (each
** begins with its count) let go of; the block freed with the last. */
static void tbl_block_unref(void *block) {
  sqlite3_int64 *refs = block;
  if (refs && --*refs == 0) sqlite3_free(refs);
}

/* The destructor of the texts and blobs of both kinds of block: each value
** is preceded by a pointer back to its block, its low bit set when the
** value is a text with no NUL of its own (SQLite may be told it ends at the
** NUL that follows it). */
static void tbl_block_free(void *p) {
  uintptr_t back;
  memcpy(&back, (const char *)p - sizeof back, sizeof back);
  tbl_block_unref((void *)(back & ~(uintptr_t)1));
}

typedef struct TblReader {
  int col;                  /* table column */
  pq_field_reader *r;
  /* the cells in hand: own_cells, or a chunk the worker read ahead */
  pq_cell *cells;
  int32_t *entry;           /* the dictionary entry of each cell, or -1 */
  pq_cell own_cells[TBL_BATCH];
  int32_t own_entry[TBL_BATCH];
  int bytes;                /* a chunk's cells: each text and blob in a
                            ** block (tbl_block_free) */
  int64_t start;            /* row (in the row group) of cells[0] */
  size_t n;
  /* the reader's dictionary as SQLite takes it: made once the rows given
  ** from it outnumber its entries (a point query makes none) */
  TblDict *dict;
  uint64_t dict_id;         /* of pq_field_reader_entries */
  int64_t dict_rows;        /* rows given from it before it was made */
  uint64_t dict_gen;        /* counts the dictionaries the cursor's reader
                            ** of this column met (new field readers' ids
                            ** start again) */
} TblReader;

typedef struct TblRange {
  int64_t lo, hi;           /* rows [lo, hi) of the row group */
} TblRange;

typedef struct TblCursor {
  sqlite3_vtab_cursor base;
  TblCons *cons;
  int ncons;
  sqlite3_uint64 used;      /* colUsed */
  int64_t offset, limit;    /* limit -1: none */
  int64_t rowid_lo, rowid_hi; /* inclusive */
  /* where the scan is */
  int file;
  int64_t group;            /* -1 before the file's first */
  TblRange *ranges;
  int nranges, range;
  int64_t row;              /* in the row group */
  int64_t run_hi;           /* xNext needs nothing but row++ below it: the
                            ** end of the range in hand with no constraint
                            ** to check, else 0 */
  TblReader *readers;
  int nreaders;
  TblReader **colmap;       /* each table column's reader, or NULL */
  int ncolmap;
  int filters;              /* constraints that rows are checked by */
  int eof;
  /* the bytes of pages read */
  int64_t bytes_read;
  /* the files as this scan reads them: each one's snapshot (a reference),
  ** and the rowid of its first row (first[nsnaps]: of none, after all) */
  TblSnap **snaps;
  int64_t *first;
  int nsnaps;
  int reading;              /* file + 1 whose row groups it reads, or 0 */
  struct TblAhead *ahead;   /* the worker reading ahead, or NULL */
  int ahead_tried;          /* the worker was considered for this scan */
  int64_t passed;           /* rows of the row group in hand that reached
                            ** SQLite, with constraints to check */
} TblCursor;

static void tbl_ahead_stop(TblCursor *c);
static int tbl_ahead_take(TblCursor *c);

static int tblOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  TblCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  c->eof = 1;
  *pp = &c->base;
  return SQLITE_OK;
}

/* Lets go of the reader's dictionary block (SQLite may still hold it). */
static void tbl_dict_drop(TblReader *r) {
  tbl_block_unref(r->dict);
  r->dict = NULL;
  r->dict_id = 0;
  r->dict_rows = 0;
}

/* The block of n entries' cells; NULL when out of memory.  Each entry is
** followed by a NUL, and where a text has none of its own inside, the low
** bit of its pointer back says so: SQLite is then told the text ends there
** (a length of -1), as it wants a text's end for sqlite3_value_text and
** would copy it to make one. */
static TblDict *tbl_dict_make(const pq_cell *ent, size_t n) {
  size_t head = sizeof(TblDict) + n * sizeof(size_t), bytes = head;
  for (size_t k = 0; k < n; k++) {
    if ((ent[k].kind == PQ_CELL_TEXT || ent[k].kind == PQ_CELL_BLOB) &&
        ent[k].n)
      bytes += sizeof(uintptr_t) + ((ent[k].n + 8) & ~(size_t)7);
  }
  TblDict *d = sqlite3_malloc64(bytes);
  if (!d) return NULL;
  d->refs = 1;
  d->n = n;
  size_t *at = TBL_DICT_AT(d), pos = head;
  for (size_t k = 0; k < n; k++) {
    at[k] = 0;
    if ((ent[k].kind != PQ_CELL_TEXT && ent[k].kind != PQ_CELL_BLOB) ||
        !ent[k].n)
      continue;
    uintptr_t back = (uintptr_t)d;
    if (ent[k].kind == PQ_CELL_TEXT && ent[k].n <= 0x7fffffff &&
        !memchr(ent[k].p, 0, ent[k].n))
      back |= 1;
    memcpy((char *)d + pos, &back, sizeof back);
    pos += sizeof back;
    at[k] = pos;
    memcpy((char *)d + pos, ent[k].p, ent[k].n);
    ((char *)d)[pos + ent[k].n] = 0;
    pos += (ent[k].n + 8) & ~(size_t)7;
  }
  return d;
}

/* Cell v as the result, its bytes in a block (TblDict or TblBytes): a
** reference, counted, not a copy. */
static inline void tbl_block_result(sqlite3_context *ctx, const pq_cell *v) {
  uintptr_t back;
  memcpy(&back, v->p - sizeof back, sizeof back);
  ++*(sqlite3_int64 *)(back & ~(uintptr_t)1);
  if (v->kind == PQ_CELL_BLOB) {
    sqlite3_result_blob64(ctx, v->p, v->n, tbl_block_free);
  } else if (back & 1) {
    sqlite3_result_text(ctx, (const char *)v->p, -1, tbl_block_free);
  } else {
    sqlite3_result_text64(ctx, (const char *)v->p, v->n, tbl_block_free,
                          SQLITE_UTF8);
  }
}

/* Gives cell v, dictionary entry k of reader r, from the reader's block,
** making it when its time has come; 0 when v is to be copied instead. */
static __attribute__((noinline)) int tbl_entry_result(sqlite3_context *ctx,
                                                      TblReader *r, int32_t k,
                                                      const pq_cell *v) {
  if (!r->dict) {
    size_t n;
    uint64_t id;
    if (!r->r) return 0;
    const pq_cell *ent = pq_field_reader_entries(r->r, &n, &id);
    if (!ent || r->dict_rows++ < (int64_t)n) return 0;
    r->dict = tbl_dict_make(ent, n);
    if (!r->dict) {
      r->dict_rows = INT64_MIN; /* copies, for this dictionary */
      return 0;
    }
  }
  size_t at = (size_t)k < r->dict->n ? TBL_DICT_AT(r->dict)[k] : 0;
  if (!at) return 0;
  pq_cell e = *v;
  e.p = (const uint8_t *)r->dict + at;
  tbl_block_result(ctx, &e);
  return 1;
}

/* A reader's room back to the table, unless the table keeps enough. */
static void tbl_room_back(TblTable *t, pq_field_reader *r) {
  pq_read_room room;
  memset(&room, 0, sizeof room); /* no bytes of any file */
  pq_buf_init(&room.window);
  pq_buf_init(&room.page);
  pq_field_reader_take_room(r, &room);
  if (!room.window.data && !room.page.data) return;
  if (t->nrooms < TBL_ROOMS && room.window.cap <= TBL_ROOM_MOST &&
      room.page.cap <= TBL_ROOM_MOST && !room.window.oom && !room.page.oom) {
    if (!t->rooms) t->rooms = sqlite3_malloc64(TBL_ROOMS * sizeof *t->rooms);
    if (t->rooms) {
      t->rooms[t->nrooms++] = room;
      return;
    }
  }
  pq_buf_free(&room.window);
  pq_buf_free(&room.page);
}

/* A reader just opened on chunk leaf of row group g of file pf gets a room
** the table kept, if any: one that holds bytes of that chunk, which the
** reader then need not read again (point queries one after the other on
** the same row group), else the last one kept. */
static void tbl_room_lend(TblTable *t, pq_field_reader *r, const pq_file *pf,
                          uint32_t g, uint32_t leaf) {
  if (t->nrooms == 0) return;
  const pq_column_meta *cm =
      &pq_file_metadata(pf)->row_groups[g].columns[leaf].meta;
  int64_t lo = cm->data_page_offset, hi;
  if (cm->dictionary_page_offset > 0 && cm->dictionary_page_offset < lo)
    lo = cm->dictionary_page_offset;
  hi = lo + cm->total_compressed_size;
  int k = t->nrooms - 1;
  for (int i = 0; i < t->nrooms; i++) {
    const pq_read_room *m = &t->rooms[i];
    if (m->owner == pf && lo >= 0 && m->at >= (uint64_t)lo &&
        m->at < (uint64_t)hi) {
      k = i;
      break;
    }
  }
  pq_read_room chosen = t->rooms[k];
  t->rooms[k] = t->rooms[--t->nrooms];
  pq_read_room *room = &chosen;
  pq_field_reader_give_room(r, room);
  pq_buf_free(&room->window); /* what a nested reader did not take */
  pq_buf_free(&room->page);
}

static void tbl_readers_close(TblCursor *c) {
  TblTable *t = (TblTable *)c->base.pVtab;
  for (int i = 0; i < c->nreaders; i++) {
    if (c->readers[i].r) c->bytes_read += pq_field_reader_bytes(c->readers[i].r);
    tbl_dict_drop(&c->readers[i]);
    if (c->readers[i].r) tbl_room_back(t, c->readers[i].r);
    pq_field_reader_free(c->readers[i].r);
    c->readers[i].r = NULL;
    c->readers[i].n = 0;
    c->readers[i].start = 0;
  }
}

static void tbl_cons_free(TblCursor *c) {
  for (int i = 0; i < c->ncons; i++) {
    for (int k = 0; k < c->cons[i].nvals; k++) {
      pq_cell *v = &c->cons[i].vals[k];
      if (v->kind == PQ_CELL_TEXT || v->kind == PQ_CELL_BLOB)
        sqlite3_free((void *)v->p);
    }
    sqlite3_free(c->cons[i].vals);
    sqlite3_free(c->cons[i].verdict);
  }
  sqlite3_free(c->cons);
  c->cons = NULL;
  c->ncons = 0;
}

/* The cursor is done with the file it reads, if any. */
static void tbl_leave_file(TblCursor *c) {
  if (c->reading) tbl_snap_done(c->snaps[c->reading - 1]);
  c->reading = 0;
}

/* Lets go of the snapshots of the last scan. */
static void tbl_drop_snaps(TblCursor *c) {
  tbl_leave_file(c);
  TblTable *t = (TblTable *)c->base.pVtab;
  for (int i = 0; i < c->nsnaps; i++) tbl_snap_unref(t, c->snaps[i]);
  sqlite3_free(c->snaps);
  sqlite3_free(c->first);
  c->snaps = NULL;
  c->first = NULL;
  c->nsnaps = 0;
}

static int tblClose(sqlite3_vtab_cursor *cur) {
  TblCursor *c = (TblCursor *)cur;
  tbl_ahead_stop(c);
  tbl_readers_close(c);
  tbl_drop_snaps(c);
  sqlite3_free(c->readers);
  sqlite3_free(c->colmap);
  sqlite3_free(c->ranges);
  tbl_cons_free(c);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int tbl_error(TblCursor *c, char *msg) {
  sqlite3_free(c->base.pVtab->zErrMsg);
  c->base.pVtab->zErrMsg = msg;
  c->eof = 1;
  return msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

/* A SQL value as a cell that owns its bytes. */
static int tbl_cell(sqlite3_value *v, pq_cell *out) {
  memset(out, 0, sizeof *out);
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      out->kind = PQ_CELL_INT;
      out->i = sqlite3_value_int64(v);
      return SQLITE_OK;
    case SQLITE_FLOAT:
      out->kind = PQ_CELL_REAL;
      out->r = sqlite3_value_double(v);
      return SQLITE_OK;
    case SQLITE_NULL:
      return SQLITE_OK;
    default: {
      int text = sqlite3_value_type(v) == SQLITE_TEXT;
      const void *p = text ? (const void *)sqlite3_value_text(v)
                           : sqlite3_value_blob(v);
      size_t n = (size_t)sqlite3_value_bytes(v);
      uint8_t *copy = sqlite3_malloc64(n + 1);
      if (!copy) return SQLITE_NOMEM;
      if (n) memcpy(copy, p, n);
      out->kind = text ? PQ_CELL_TEXT : PQ_CELL_BLOB;
      out->p = copy;
      out->n = n;
      return SQLITE_OK;
    }
  }
}

/* Applies the column's affinity to a constraint's value as SQLite does to
** a comparison's other side; 0 when SQLite's choice depends on that side's
** own affinity, which xFilter does not see. */
static int tbl_affinity(const TblCol *col, sqlite3_value *v) {
  int vt = sqlite3_value_type(v);
  if (col->info.kind == PQ_CELL_INT || col->info.kind == PQ_CELL_REAL) {
    if (vt == SQLITE_TEXT) sqlite3_value_numeric_type(v);
    return 1;
  }
  if (col->info.kind == PQ_CELL_TEXT && !col->info.nested)
    return vt != SQLITE_INTEGER && vt != SQLITE_FLOAT;
  return !col->info.nested;
}

/* The literal prefix of a LIKE or GLOB pattern that every match starts
** with, byte for byte: LIKE folds ASCII letters (and, overloaded, may fold
** more), so its prefix stops at any letter or non-ASCII byte. */
static size_t tbl_prefix(const pq_cell *pat, int like) {
  size_t i = 0;
  for (; i < pat->n; i++) {
    int ch = pat->p[i];
    if (like) {
      if (ch == '%' || ch == '_' || ch >= 0x80 ||
          (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
        break;
    } else if (ch == '*' || ch == '?' || ch == '[') {
      break;
    }
  }
  return i;
}

/* Adds constraint (col, op) with values. */
static int tbl_order_valid(const TblCons *k);

static TblCons *tbl_cons_add(TblCursor *c, int col, int op) {
  TblCons *n = sqlite3_realloc64(c->cons, (size_t)(c->ncons + 1) * sizeof *n);
  if (!n) return NULL;
  c->cons = n;
  TblCons *k = &c->cons[c->ncons++];
  memset(k, 0, sizeof *k);
  k->col = col;
  k->op = op;
  k->usable = 1;
  k->order = PQ_ORDER_BYTES;
  return k;
}

static int tbl_cons_value(TblCons *k, sqlite3_value *v) {
  pq_cell *n = sqlite3_realloc64(k->vals, (size_t)(k->nvals + 1) * sizeof *n);
  if (!n) return SQLITE_NOMEM;
  k->vals = n;
  int rc = tbl_cell(v, &k->vals[k->nvals]);
  if (rc == SQLITE_OK) k->nvals++;
  return rc;
}

/* Reads idxStr and argv into c's constraints. */
static int tbl_read_constraints(TblCursor *c, TblTable *t, const char *idx,
                                sqlite3_value **argv) {
  c->used = strtoull(idx, NULL, 16);
  const char *p = strchr(idx, ';');
  int a = 0;
  while (p && p[1]) {
    int col, op;
    if (sscanf(p + 1, "%d %d", &col, &op) != 2) break;
    p = strchr(p + 1, ';');
    sqlite3_value *v = argv[a++];
    if (op == TBL_OP_LIMIT) {
      if (sqlite3_value_type(v) == SQLITE_INTEGER) c->limit = sqlite3_value_int64(v);
      continue;
    }
    if (op == TBL_OP_OFFSET) {
      if (sqlite3_value_type(v) == SQLITE_INTEGER && sqlite3_value_int64(v) > 0)
        c->offset = sqlite3_value_int64(v);
      continue;
    }
    if (col == -1 || col == TBL_FILE_ROW(t)) { /* rowid: a range */
      int64_t *lo = &c->rowid_lo, *hi = &c->rowid_hi;
      TblCons *k = NULL;
      if (col != -1) {
        k = tbl_cons_add(c, col, op);
        if (!k) return SQLITE_NOMEM;
      }
      sqlite3_value_numeric_type(v);
      int vt = sqlite3_value_type(v);
      if (k) {
        int rc = tbl_cons_value(k, v);
        if (rc) return rc;
        continue;
      }
      if (vt == SQLITE_NULL) {
        *hi = -1; /* no row */
        continue;
      }
      if (vt != SQLITE_INTEGER && vt != SQLITE_FLOAT) continue;
      double d = sqlite3_value_double(v);
      int64_t x = vt == SQLITE_INTEGER ? sqlite3_value_int64(v)
                  : d >= 9.2e18        ? INT64_MAX
                  : d <= -9.2e18       ? INT64_MIN
                                       : (int64_t)d;
      int exact = vt == SQLITE_INTEGER || (double)x == d;
      switch (op) {
        case PQ_OP_EQ:
          if (!exact) { *hi = -1; break; }
          if (x > *lo) *lo = x;
          if (x < *hi) *hi = x;
          break;
        case PQ_OP_LT:
          if (x == INT64_MIN) { *hi = -1; break; }
          if (exact || d < (double)x) x--; /* below d */
          if (x < *hi) *hi = x;
          break;
        case PQ_OP_LE:
          if (!exact && d < (double)x && x > INT64_MIN) x--;
          if (x < *hi) *hi = x;
          break;
        case PQ_OP_GT:
          if (x == INT64_MAX) { *hi = -1; break; }
          if (exact || d > (double)x) x++;
          if (x > *lo) *lo = x;
          break;
        case PQ_OP_GE:
          if (!exact && d > (double)x && x < INT64_MAX) x++;
          if (x > *lo) *lo = x;
          break;
      }
      continue;
    }
    TblCons *k;
    if (op == TBL_OP_LIKE || op == TBL_OP_GLOB) {
      if (sqlite3_value_type(v) != SQLITE_TEXT) continue;
      pq_cell pat;
      int rc = tbl_cell(v, &pat);
      if (rc) return rc;
      size_t n = tbl_prefix(&pat, op == TBL_OP_LIKE);
      if (n > 0) {
        k = tbl_cons_add(c, col, PQ_OP_GE);
        pq_cell *lo = k ? sqlite3_malloc(sizeof *lo) : NULL;
        if (!lo) {
          sqlite3_free((void *)pat.p);
          return SQLITE_NOMEM;
        }
        *lo = pat;
        lo->n = n;
        k->vals = lo;
        k->nvals = 1;
        /* Below the prefix with its last byte (not 0xFF) raised. */
        size_t m = n;
        while (m > 0 && pat.p[m - 1] == 0xFF) m--;
        if (m > 0) {
          TblCons *k2 = tbl_cons_add(c, col, PQ_OP_LT);
          pq_cell *hi = k2 ? sqlite3_malloc(sizeof *hi) : NULL;
          uint8_t *b = hi ? sqlite3_malloc64(m) : NULL;
          if (!b) {
            sqlite3_free(hi);
            return SQLITE_NOMEM;
          }
          memcpy(b, pat.p, m);
          b[m - 1]++;
          hi->kind = PQ_CELL_TEXT;
          hi->p = b;
          hi->n = m;
          k2->vals = hi;
          k2->nvals = 1;
        }
      } else {
        sqlite3_free((void *)pat.p);
      }
      continue;
    }
    k = tbl_cons_add(c, col, op == TBL_OP_IN ? PQ_OP_EQ : op);
    if (!k) return SQLITE_NOMEM;
    if (op == PQ_OP_ISNULL || op == PQ_OP_NOTNULL) continue;
    if (col == TBL_FILENAME(t)) {
      if (sqlite3_value_type(v) != SQLITE_TEXT && op != TBL_OP_IN) k->usable = 0;
    }
    const TblCol *tc = col < t->ncols ? &t->cols[col] : NULL;
    if (tc) k->order = tc->info.order;
    if (op == TBL_OP_IN) {
      sqlite3_value *x;
      int rc;
      for (rc = sqlite3_vtab_in_first(v, &x); rc == SQLITE_OK && x;
           rc = sqlite3_vtab_in_next(v, &x)) {
        if (tc && !tbl_affinity(tc, x)) k->usable = 0;
        if (col == TBL_FILENAME(t) && sqlite3_value_type(x) != SQLITE_TEXT)
          k->usable = 0;
        int rc2 = tbl_cons_value(k, x);
        if (rc2) return rc2;
      }
      if (!tbl_order_valid(k)) k->usable = 0;
      if (rc != SQLITE_OK && rc != SQLITE_DONE) return rc;
      continue;
    }
    if (tc && !tbl_affinity(tc, v)) k->usable = 0;
    int rc = tbl_cons_value(k, v);
    if (rc) return rc;
    if (!tbl_order_valid(k)) k->usable = 0;
  }
  return SQLITE_OK;
}

/* Whether a constraint's text names what its column's order compares (a
** text that names nothing is compared by a rule pruning does not take
** for granted: the collation may be another's of the same name). */
static int tbl_order_valid(const TblCons *k) {
  for (int i = 0; i < k->nvals; i++) {
    const pq_cell *v = &k->vals[i];
    if (v->kind != PQ_CELL_TEXT || k->order == PQ_ORDER_BYTES) continue;
    const char *p = (const char *)v->p;
    if (k->order == PQ_ORDER_INSTANT ? !pq_instant_valid(p, v->n)
                                     : !pq_decimal_valid(p, v->n))
      return 0;
  }
  return 1;
}

/* Whether any value of constraint k may match within bounds b. */
static int tbl_may_match(const TblCons *k, const pq_bounds *b) {
  if (!k->usable) return 1;
  /* bounds in another order than SQL's here (a file whose column has
  ** another type than the table's) bound nothing */
  if (b->has_minmax && b->order != k->order &&
      k->op != PQ_OP_ISNULL && k->op != PQ_OP_NOTNULL)
    return 1;
  if (k->op == PQ_OP_ISNULL || k->op == PQ_OP_NOTNULL)
    return pq_bounds_may_match(b, k->op, NULL);
  for (int i = 0; i < k->nvals; i++)
    if (pq_bounds_may_match(b, k->op, &k->vals[i])) return 1;
  return 0;
}

/* The bounds of one known value (a partition's, a file name). */
static void tbl_point(pq_bounds *b, const pq_cell *v) {
  memset(b, 0, sizeof *b);
  b->values = 1;
  b->nulls_exact = 1;
  if (v->kind == PQ_CELL_NULL) {
    b->nulls = 1;
  } else {
    b->nulls = 0;
    b->has_minmax = 1;
    b->min = b->max = *v;
  }
}

/* Whether file fi may hold matching rows: its hive values, its name, its
** rowids; columns it lacks are NULL in every row. */
static int tbl_file_may_match(TblCursor *c, TblTable *t, int fi) {
  const TblSnap *f = c->snaps[fi];
  int64_t rows = c->snaps[fi]->num_rows;
  if (rows == 0) return 0;
  if (c->rowid_hi < c->first[fi] || c->rowid_lo > c->first[fi] + rows - 1)
    return 0;
  for (int i = 0; i < c->ncons; i++) {
    const TblCons *k = &c->cons[i];
    pq_cell v;
    pq_bounds b;
    memset(&v, 0, sizeof v);
    if (k->col == TBL_FILENAME(t)) {
      v.kind = PQ_CELL_TEXT;
      v.p = (const uint8_t *)f->path;
      v.n = strlen(f->path);
    } else if (k->col < t->ncols && t->cols[k->col].hive >= 0) {
      const char *h = f->hive[t->cols[k->col].hive];
      sqlite3_int64 x;
      if (h && t->cols[k->col].info.kind == PQ_CELL_INT && tbl_is_int(h, &x)) {
        v.kind = PQ_CELL_INT;
        v.i = x;
      } else if (h) {
        v.kind = PQ_CELL_TEXT;
        v.p = (const uint8_t *)h;
        v.n = strlen(h);
      }
    } else if (k->col < t->ncols && f->field[k->col] < 0) {
      /* absent: NULL */
    } else {
      continue;
    }
    tbl_point(&b, &v);
    if (!tbl_may_match(k, &b)) return 0;
  }
  return 1;
}

/* The snapshot of the file the cursor is in, and its footer. */
static TblSnap *tbl_snap(const TblCursor *c) { return c->snaps[c->file]; }
static const pq_file *tbl_cur_pq(const TblCursor *c) {
  return tbl_snap(c)->src.file;
}

/* The leaf of a table column in the cursor's file, when it is a flat
** field. */
static int tbl_leaf(const TblTable *t, const TblSnap *f, int col) {
  if (col >= t->ncols || t->cols[col].hive >= 0 || f->field[col] < 0 ||
      f->other[col])
    return -1;
  const pq_schema_node *n =
      pq_file_schema(f->src.file)->children[f->field[col]];
  return n->leaf >= 0 && n->max_rep == 0 ? n->leaf : -1;
}

/* Whether row group g of the scan's file fi (an open one) may hold
** matching rows. */
static int tbl_group_may_match(TblCursor *c, TblTable *t, int fi, uint32_t g) {
  const TblSnap *sn = c->snaps[fi], *f = sn;
  const pq_file *pf = sn->src.file;
  int64_t first = c->first[fi] + sn->rg_first[g];
  int64_t n = sn->rg_first[g + 1] - sn->rg_first[g];
  if (n == 0 || c->rowid_hi < first || c->rowid_lo > first + n - 1) return 0;
  for (int i = 0; i < c->ncons; i++) {
    const TblCons *k = &c->cons[i];
    if (k->col == TBL_FILE_ROW(t)) {
      pq_bounds b;
      memset(&b, 0, sizeof b);
      b.values = n;
      b.has_minmax = 1;
      b.min.kind = b.max.kind = PQ_CELL_INT;
      b.min.i = sn->rg_first[g];
      b.max.i = sn->rg_first[g + 1] - 1;
      if (!tbl_may_match(k, &b)) return 0;
      continue;
    }
    int leaf = tbl_leaf(t, f, k->col);
    if (leaf < 0) continue;
    pq_bounds b;
    pq_chunk_bounds(pf, g, (uint32_t)leaf, t->binary_as_string, &b);
    if (!tbl_may_match(k, &b)) return 0;
    /* Bloom filters: each value of = or IN the filter rules out. */
    if (k->op != PQ_OP_EQ || !k->usable) continue;
    pq_bloom bloom;
    int present;
    pq_error err;
    if (pq_bloom_read(pf, g, (uint32_t)leaf, &bloom, &present, &err) ||
        !present)
      continue;
    const pq_schema_node *node = pq_file_leaf(pf, (uint32_t)leaf);
    int may = 0;
    for (int j = 0; j < k->nvals && !may; j++) {
      uint64_t h;
      int r = pq_bloom_hash_cell(node, &k->vals[j], &h);
      if (r < 0 || (r > 0 && pq_bloom_check(&bloom, h))) may = 1;
      /* The cell's kind must be the column's, else SQL compares classes. */
      if (r > 0 && k->vals[j].kind != t->cols[k->col].info.kind &&
          !(k->vals[j].kind == PQ_CELL_INT && t->cols[k->col].info.kind == PQ_CELL_REAL) &&
          !(k->vals[j].kind == PQ_CELL_REAL && t->cols[k->col].info.kind == PQ_CELL_INT))
        may = 1;
    }
    pq_bloom_release(&bloom);
    if (!may) return 0;
  }
  return 1;
}

static int tbl_range_add(TblCursor *c, int64_t lo, int64_t hi, int *cap) {
  if (lo >= hi) return SQLITE_OK;
  if (c->nranges && c->ranges[c->nranges - 1].hi >= lo) {
    if (hi > c->ranges[c->nranges - 1].hi) c->ranges[c->nranges - 1].hi = hi;
    return SQLITE_OK;
  }
  if (c->nranges == *cap) {
    int n = *cap ? 2 * *cap : 8;
    TblRange *r = sqlite3_realloc64(c->ranges, (size_t)n * sizeof *r);
    if (!r) return SQLITE_NOMEM;
    c->ranges = r;
    *cap = n;
  }
  c->ranges[c->nranges].lo = lo;
  c->ranges[c->nranges].hi = hi;
  c->nranges++;
  return SQLITE_OK;
}

/* The row ranges of row group g to read: its rows within the rowid bounds,
** less the pages each constrained column's page index rules out. */
static int tbl_group_ranges(TblCursor *c, TblTable *t, const TblSnap *f,
                            uint32_t g) {
  const TblSnap *sn = tbl_snap(c);
  const pq_file *pf = sn->src.file;
  int64_t n = sn->rg_first[g + 1] - sn->rg_first[g];
  int64_t base = c->first[c->file] + sn->rg_first[g];
  int64_t lo = c->rowid_lo > base ? c->rowid_lo - base : 0;
  int64_t hi = c->rowid_hi < base + n - 1 ? c->rowid_hi - base + 1 : n;
  int cap = 0;
  c->nranges = 0;
  c->range = 0;
  int rc = tbl_range_add(c, lo, hi, &cap);
  for (int i = 0; i < c->ncons && !rc && c->nranges; i++) {
    const TblCons *k = &c->cons[i];
    int leaf = tbl_leaf(t, f, k->col);
    if (leaf < 0 || !k->usable) continue;
    pq_column_index *ci = NULL;
    pq_offset_index *oi = NULL;
    pq_error err;
    if (pq_column_index_read(pf, g, (uint32_t)leaf, &ci, &err) || !ci ||
        pq_offset_index_read(pf, g, (uint32_t)leaf, &oi, &err) || !oi ||
        oi->n_pages != ci->n_pages) {
      pq_column_index_free(ci);
      pq_offset_index_free(oi);
      continue;
    }
    /* Keep of each range what the matching pages cover. */
    TblRange *old = c->ranges;
    int nold = c->nranges;
    c->ranges = NULL;
    c->nranges = 0;
    cap = 0;
    for (uint32_t p = 0; p < ci->n_pages && !rc; p++) {
      int64_t plo = oi->pages[p].first_row_index;
      int64_t phi = p + 1 < oi->n_pages ? oi->pages[p + 1].first_row_index : n;
      pq_bounds b;
      pq_page_bounds(pf, (uint32_t)leaf, ci, p, phi - plo,
                     t->binary_as_string, &b);
      if (!tbl_may_match(k, &b)) continue;
      for (int r = 0; r < nold && !rc; r++) {
        int64_t a = old[r].lo > plo ? old[r].lo : plo;
        int64_t z = old[r].hi < phi ? old[r].hi : phi;
        rc = tbl_range_add(c, a, z, &cap);
      }
    }
    sqlite3_free(old);
    pq_column_index_free(ci);
    pq_offset_index_free(oi);
  }
  return rc;
}

/* Opens the used columns' readers on row group g of the current file. */
/* The byte ranges of node's leaves' chunks in row group g, appended to
** v (pairs: offset, length) from *n on, while fewer than cap. */
static void tbl_chunk_ranges(const pq_file *pf, uint32_t g,
                             const pq_schema_node *node, uint64_t *v, int *n,
                             int cap) {
  if (node->leaf >= 0) {
    const pq_row_group *rg = &pq_file_metadata(pf)->row_groups[g];
    if ((uint32_t)node->leaf >= rg->n_columns || *n >= cap) return;
    const pq_column_meta *m = &rg->columns[node->leaf].meta;
    int64_t at = m->data_page_offset;
    if (m->dictionary_page_offset >= 0 && m->dictionary_page_offset < at)
      at = m->dictionary_page_offset;
    if (at < 0 || m->total_compressed_size <= 0) return;
    v[2 * *n] = (uint64_t)at;
    v[2 * *n + 1] = (uint64_t)m->total_compressed_size;
    (*n)++;
    return;
  }
  for (uint32_t i = 0; i < node->n_children; i++)
    tbl_chunk_ranges(pf, g, node->children[i], v, n, cap);
}

/* A URL's row group g about to be read whole: the chunks of the table
** columns cols[0..ncols) fetched ahead together (remote.c, which bounds
** what it holds); a file on disk is read as it is.  (The worker's too:
** it reads only what the snapshot and the file's footer say.) */
static void tbl_fetch_group(const TblSnap *sn, uint32_t g, const int *cols,
                            int ncols) {
  pqx_remote *rem = sn->src.fd.rem;
  if (!rem) return;
  const pq_file *pf = sn->src.file;
  int cap = (int)pq_file_leaf_count(pf);
  uint64_t *v = sqlite3_malloc64((size_t)(cap ? cap : 1) * 2 * sizeof *v);
  if (!v) return; /* read as it comes */
  int n = 0;
  const pq_schema_node *root = pq_file_schema(pf);
  for (int i = 0; i < ncols; i++) {
    int col = cols[i];
    if (col < 0 || col >= sn->nfield) continue;
    int fi = sn->field[col]; /* -1: a hive key, or a column it lacks */
    if (fi >= 0) tbl_chunk_ranges(pf, g, root->children[fi], v, &n, cap);
  }
  pqx_remote_fetch(rem, v, n, 0);
  sqlite3_free(v);
}

/* A URL's row group g about to be pruned by its page index: the column
** indexes of the constrained columns and the offset indexes of those and
** of the used ones fetched at once (a file's page index is one region:
** one request, where each would take one). */
static void tbl_fetch_index(const TblCursor *c, const TblTable *t,
                            const TblSnap *f, uint32_t g) {
  const pq_file *pf = f->src.file;
  const pq_row_group *rg = &pq_file_metadata(pf)->row_groups[g];
  int cap = 2 * (c->ncons + c->nreaders), n = 0, any = 0;
  uint64_t *v = sqlite3_malloc64((size_t)(cap ? cap : 1) * 2 * sizeof *v);
  if (!v) return;
  for (int i = 0; i < c->ncons + c->nreaders; i++) {
    int cons = i < c->ncons;
    int col = cons ? c->cons[i].col : c->readers[i - c->ncons].col;
    if (cons && !c->cons[i].usable) continue;
    int leaf = tbl_leaf(t, f, col);
    if (leaf < 0 || (uint32_t)leaf >= rg->n_columns) continue;
    const pq_column_chunk *cc = &rg->columns[leaf];
    if (cons && cc->column_index_offset >= 0 && cc->column_index_length > 0) {
      v[2 * n] = (uint64_t)cc->column_index_offset;
      v[2 * n + 1] = (uint64_t)cc->column_index_length;
      n++;
      any = 1;
    }
    if (cc->offset_index_offset >= 0 && cc->offset_index_length > 0) {
      v[2 * n] = (uint64_t)cc->offset_index_offset;
      v[2 * n + 1] = (uint64_t)cc->offset_index_length;
      n++;
    }
  }
  if (any) pqx_remote_fetch(f->src.fd.rem, v, n, 1);
  sqlite3_free(v);
}

/* A URL's row group g about to be read in part (the page index, a rowid
** range): the pages of the used columns that hold the rows to read, and
** their chunks' dictionary pages, fetched at once (remote.c: one request
** where the server takes several ranges in one).  Columns of one leaf
** with an offset index; others are read as they come. */
static void tbl_fetch_pages(const TblCursor *c, const TblSnap *f, uint32_t g) {
  const pq_file *pf = f->src.file;
  const pq_row_group *rg = &pq_file_metadata(pf)->row_groups[g];
  int64_t rows = f->rg_first[g + 1] - f->rg_first[g], want = 0;
  for (int k = c->range; k < c->nranges; k++)
    want += c->ranges[k].hi - c->ranges[k].lo;
  if (want > rows / 2) return; /* most of it: read as it comes */
  uint64_t *v = NULL;
  int n = 0, cap = 0;
  for (int i = 0; i < c->nreaders; i++) {
    int fi = f->field[c->readers[i].col];
    if (fi < 0) continue;
    const pq_schema_node *node = pq_file_schema(pf)->children[fi];
    if (node->leaf < 0 || (uint32_t)node->leaf >= rg->n_columns) continue;
    pq_offset_index *oi = NULL;
    pq_error err;
    if (pq_offset_index_read(pf, g, (uint32_t)node->leaf, &oi, &err) || !oi ||
        oi->n_pages == 0) {
      pq_offset_index_free(oi);
      continue;
    }
    if (n + 1 + (int)oi->n_pages > cap) {
      int ncap = 2 * (n + 1 + (int)oi->n_pages);
      uint64_t *nv = sqlite3_realloc64(v, (size_t)ncap * 2 * sizeof *v);
      if (!nv) {
        pq_offset_index_free(oi);
        break;
      }
      v = nv;
      cap = ncap;
    }
    int64_t d = rg->columns[node->leaf].meta.dictionary_page_offset;
    if (d >= 0 && d < oi->pages[0].offset) {
      v[2 * n] = (uint64_t)d;
      v[2 * n + 1] = (uint64_t)(oi->pages[0].offset - d);
      n++;
    }
    for (uint32_t p = 0; p < oi->n_pages; p++) {
      const pq_page_location *l = &oi->pages[p];
      int64_t lo = l->first_row_index;
      int64_t hi = p + 1 < oi->n_pages ? oi->pages[p + 1].first_row_index : rows;
      int hit = 0;
      for (int k = c->range; k < c->nranges && !hit; k++)
        hit = c->ranges[k].lo < hi && lo < c->ranges[k].hi;
      if (!hit || l->offset < 0 || l->compressed_page_size <= 0) continue;
      v[2 * n] = (uint64_t)l->offset;
      v[2 * n + 1] = (uint64_t)l->compressed_page_size;
      n++;
    }
    pq_offset_index_free(oi);
  }
  if (n) pqx_remote_fetch(f->src.fd.rem, v, n, 1);
  sqlite3_free(v);
}

static int tbl_open_readers(TblCursor *c, TblTable *t, const TblSnap *f,
                            uint32_t g) {
  tbl_readers_close(c);
  size_t limit = pqx_db_limit(t->db);
  const pq_file *pf = tbl_cur_pq(c);
  for (int i = 0; i < c->nreaders; i++) {
    TblReader *r = &c->readers[i];
    if (t->cols[r->col].hive >= 0 || f->field[r->col] < 0) continue;
    int fi = f->field[r->col];
    const pq_schema_node *node = pq_file_schema(pf)->children[fi];
    pq_error err;
    int rc = pq_field_reader_open(&r->r, pf, g, node,
                                  t->binary_as_string, limit, &err);
    if (rc == PQ_OK && node->leaf >= 0)
      tbl_room_lend(t, r->r, pf, g, (uint32_t)node->leaf);
    if (rc) {
      if (rc == PQ_NOMEM) return SQLITE_NOMEM;
      return tbl_error(c, pqx_source_error("parquet", f->path, &err));
    }
  }
  return SQLITE_OK;
}

/* Makes sure reader r holds the cell of the current row: skips to it and
** reads a batch from it. */
static int tbl_load(TblCursor *c, TblReader *r) {
  if (c->row >= r->start && c->row < r->start + (int64_t)r->n) return SQLITE_OK;
  if (c->ahead) {
    int rc = tbl_ahead_take(c);
    if (rc || c->ahead) return rc;
    /* the worker stopped: this reader goes on from the row itself */
  }
  if (!r->r) { /* a column this file lacks */
    r->n = 0;
    return SQLITE_OK;
  }
  TblTable *t = (TblTable *)c->base.pVtab;
  pq_error err;
  int64_t next = r->start + (int64_t)r->n;
  int rc = PQ_OK;
  if (c->row > next) rc = pq_field_reader_skip(r->r, c->row - next, &err);
  size_t want = TBL_BATCH;
  int64_t left = c->ranges[c->range].hi - c->row;
  if (left < (int64_t)want) want = (size_t)left;
  if (c->limit >= 0 && c->limit + 1 < (int64_t)want) want = (size_t)c->limit + 1;
  if (rc == PQ_OK) {
    r->cells = r->own_cells;
    r->entry = r->own_entry;
    r->bytes = 0;
    rc = pq_field_reader_read_entries(r->r, r->cells, r->entry, want, &r->n,
                                      &err);
  }
  if (rc == PQ_OK) { /* a new dictionary: the block of the last one goes */
    size_t ne;
    uint64_t id;
    pq_field_reader_entries(r->r, &ne, &id);
    if (id != r->dict_id) {
      tbl_dict_drop(r);
      r->dict_id = id;
      r->dict_gen++;
    }
  }
  if (rc == PQ_OK && r->n == 0) {
    rc = PQ_CORRUPT;
    snprintf(err.msg, sizeof err.msg, "column '%s' ends early",
             t->cols[r->col].name);
    err.code = rc;
  }
  if (rc) {
    r->n = 0;
    char *msg = rc == PQ_NOMEM ? NULL
                               : pqx_source_error("parquet", tbl_snap(c)->path, &err);
    sqlite3_free(c->base.pVtab->zErrMsg);
    c->base.pVtab->zErrMsg = msg;
    return msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  r->start = c->row;
  return SQLITE_OK;
}

static int tbl_numeric(int kind) {
  return kind == PQ_CELL_INT || kind == PQ_CELL_REAL;
}

/* Whether value v surely fails constraint k, as SQLite would find: a NULL
** fails every comparison; numbers are compared with numbers and text
** with text (in the column's order, as tblBestIndex takes no other
** collation) as SQL does.  Anything else may match: SQLite decides. */
static int tbl_row_fails(const TblCons *k, const pq_cell *v) {
  if (k->op == PQ_OP_ISNULL) return v->kind != PQ_CELL_NULL;
  if (k->op == PQ_OP_NOTNULL) return v->kind == PQ_CELL_NULL;
  if (v->kind == PQ_CELL_NULL) return 1;
  int num = tbl_numeric(v->kind);
  if (!num && v->kind != PQ_CELL_TEXT) return 0;
  for (int i = 0; i < k->nvals; i++) {
    const pq_cell *x = &k->vals[i];
    if (num ? !tbl_numeric(x->kind) : x->kind != PQ_CELL_TEXT) return 0;
    int cmp = pq_cell_compare_in(v, x, k->order);
    int ok = k->op == PQ_OP_EQ ? cmp == 0
           : k->op == PQ_OP_LT ? cmp < 0
           : k->op == PQ_OP_LE ? cmp <= 0
           : k->op == PQ_OP_GT ? cmp > 0
                               : cmp >= 0;
    if (ok) return 0;
  }
  return 1;
}

/* What k's verdicts say of cell j of reader r's batch: 0 not known yet, 1
** may pass, 2 fails. */
static inline int tbl_verdict(const TblCons *k, const TblReader *r, size_t j) {
  if (k->verdict_gen != r->dict_gen || (r->bytes && !r->dict)) return 0;
  int32_t e = r->entry[j];
  return e >= 0 && (size_t)e < k->nverdict ? k->verdict[e] : 0;
}

/* Whether cell i of reader r's batch surely fails constraint k (each entry
** of a dictionary compared once, k's verdicts); -1: no memory. */
static inline int tbl_cell_fails(TblCons *k, TblReader *r, size_t i) {
  int known = tbl_verdict(k, r, i);
  if (known) return known == 2;
  /* a chunk's cells: the entries of its column's dictionary block */
  int32_t e = !r->bytes ? r->entry[i] : r->dict ? r->entry[i] : -1;
  if (e >= 0 && k->verdict_gen != r->dict_gen) {
    size_t n; /* a new dictionary: its entries not compared yet */
    uint64_t id;
    if (r->bytes)
      n = r->dict->n;
    else
      pq_field_reader_entries(r->r, &n, &id);
    if (n > k->nverdict) {
      uint8_t *v = sqlite3_realloc64(k->verdict, n);
      if (!v) return -1;
      k->verdict = v;
    }
    k->nverdict = n;
    k->verdict_gen = r->dict_gen;
    if (n) memset(k->verdict, 0, n);
  }
  if (e >= 0 && (size_t)e < k->nverdict) {
    if (!k->verdict[e]) k->verdict[e] = 1 + tbl_row_fails(k, &r->cells[i]);
    return k->verdict[e] == 2;
  }
  return tbl_row_fails(k, &r->cells[i]);
}

/* Past the rows of reader r's batch from cell i on that fail constraint k
** too: the number of them.  A comparison with one integer, of integer
** cells, is a range check here, and one with one real, of real cells, a
** comparison; NULLs fail both; any other cell as tbl_cell_fails finds.
** -1: no memory. */
static int64_t tbl_cells_failing(TblCons *k, TblReader *r, size_t i) {
  const pq_cell *x = &k->vals[0], *cells = r->cells;
  int num = k->nvals == 1 && k->op >= PQ_OP_EQ && k->op <= PQ_OP_GE &&
            (x->kind == PQ_CELL_INT || x->kind == PQ_CELL_REAL);
  size_t j = i, n = r->n;
  /* the integers that pass: [lo, lo + span] */
  uint64_t lo = 0, span = 0;
  if (num && x->kind == PQ_CELL_INT) {
    int64_t a = INT64_MIN, b = INT64_MAX;
    if (k->op == PQ_OP_EQ || k->op == PQ_OP_GE) a = x->i;
    if (k->op == PQ_OP_EQ || k->op == PQ_OP_LE) b = x->i;
    if (k->op == PQ_OP_GT) a = x->i == INT64_MAX ? INT64_MAX : x->i + 1;
    if (k->op == PQ_OP_LT) b = x->i == INT64_MIN ? INT64_MIN : x->i - 1;
    int none = (k->op == PQ_OP_GT && x->i == INT64_MAX) ||
               (k->op == PQ_OP_LT && x->i == INT64_MIN);
    lo = (uint64_t)a;
    span = (uint64_t)b - (uint64_t)a;
    for (; j < n; j++) {
      const pq_cell *v = &cells[j];
      if (v->kind == PQ_CELL_INT) {
        if (!none && (uint64_t)v->i - lo <= span) break;
      } else if (v->kind != PQ_CELL_NULL) {
        int f = tbl_cell_fails(k, r, j);
        if (f < 0) return -1;
        if (!f) break;
      }
    }
    return (int64_t)(j - i);
  }
  for (; j < n; j++) {
    const pq_cell *v = &cells[j];
    int pass;
    if (num && v->kind == PQ_CELL_REAL && v->r == v->r) { /* NaN: SQL's */
      int cmp = (v->r > x->r) - (v->r < x->r);
      pass = k->op == PQ_OP_EQ ? cmp == 0
           : k->op == PQ_OP_LT ? cmp < 0
           : k->op == PQ_OP_LE ? cmp <= 0
           : k->op == PQ_OP_GT ? cmp > 0
                               : cmp >= 0;
    } else if (num && v->kind == PQ_CELL_NULL) {
      pass = 0;
    } else {
      int f = tbl_cell_fails(k, r, j);
      if (f < 0) return -1;
      pass = !f;
    }
    if (pass) break;
  }
  return (int64_t)(j - i);
}

/* Whether the current row surely fails a constraint, by the cells of the
** constrained columns: such rows never reach SQLite, and the other
** columns are never made into cells for them.  When it does, the rows
** after it in the batch in hand that fail the same constraint are passed
** over too: c->row is the next row that may pass. */
static int tbl_row_filtered(TblCursor *c, int *fails) {
  *fails = 0;
  for (int j = 0; j < c->ncons; j++) {
    TblCons *k = &c->cons[j];
    if (k->reader < 0) continue;
    /* a file whose values are of another kind than the column's: SQL
    ** may convert them (affinity), so only SQL compares them */
    if (tbl_snap(c)->other[k->col]) continue;
    TblReader *r = &c->readers[k->reader];
    if (!r->r && !c->ahead) continue;
    int rc = tbl_load(c, r);
    if (rc) return rc;
    if (c->row < r->start || c->row >= r->start + (int64_t)r->n) continue;
    int64_t n = tbl_cells_failing(k, r, (size_t)(c->row - r->start));
    if (n < 0) return SQLITE_NOMEM;
    if (n > 0) {
      c->row += n;
      *fails = 1;
      return SQLITE_OK;
    }
  }
  return SQLITE_OK;
}

/* ---- Reading ahead -------------------------------------------------------------
** A scan with no OFFSET reads ahead with a worker thread (unless the table says
** threads=1, SQLite is built without threads or the machine has one CPU): from
** its first row when it has nothing to prune by, no LIMIT and TBL_AHEAD_FIRST
** rows or more, else once it has read one whole row group in order (with
** constraints, unless they pass few rows of costly columns, tbl_ahead_worth).
** While SQLite takes the rows of one row group, the worker reads, decompresses
** and decodes the used columns of the next ones (and the next file's), into
** chunks of TBL_AHEAD_ROWS rows in a ring of TBL_AHEAD_SLOTS.  Each chunk holds
** every used column's cells for its rows, their text in the chunk's own bytes
** or in the dictionary block of the column chunk (tbl_dict_make, which the
** worker makes): nothing in a chunk points into a reader, so the worker closes
** each row group's readers once it has read them.  The cursor takes the chunks
** in order (tbl_ahead_take), its readers' cells pointing into the one it reads,
** and gives each back when it takes the next: at most TBL_AHEAD_SLOTS chunks of
** the used columns, with the pages of one row group the worker reads.
**
** The worker reads only files the cursor opened for it (a snapshot's
** descriptor is the cursor's to open and close): the next file, when the
** cursor takes the last row group of one.  A fault of the worker is a
** chunk that stops it: the cursor reads on itself from that chunk's rows,
** and fails as it would without the worker (with the message that names
** the file, the column, the row group and page) only when it reads what
** failed: the worker decodes each used column of every row, where SQLite
** may ask for a column's values of some rows alone.  The cursor stops the
** worker at xClose and xFilter (a LIMIT met, an error, the statement reset or
** finalized); when anything is not as the worker read it, it stops it and
** goes on reading itself.  Nothing shared is written by the worker but
** the ring, under the mutex; the dictionary blocks' counts are touched
** by the cursor only: the first chunk to carry a block hands its first
** reference over. */

/* Eight chunks, 65 536 rows: the rows SQLite takes while the worker opens
** a row group and decompresses its first pages (a writer may make one page
** of a row group's column, DuckDB does); with four, SQLite's thread waited
** there at each row group (bench/NOTES.md). */
#define TBL_AHEAD_ROWS 8192
#define TBL_AHEAD_SLOTS 8

/* What a table keeps of its last worker's memory for the next (a fresh
** page costs more to fault in than to fill): the chunks' cells of six
** columns, and at most 32 MB of their blocks of bytes. */
#define TBL_SPARE (6 * TBL_AHEAD_SLOTS)
#define TBL_SPARE_MOST ((size_t)32 << 20)

/* A scan with nothing to prune by and no LIMIT starts the worker at its
** first row group when it has at least this many rows to read (the ring's
** rows): a smaller one reads its first row group itself, then starts it
** if it goes on (a file of one row group, none). */
#define TBL_AHEAD_FIRST ((int64_t)TBL_AHEAD_ROWS * TBL_AHEAD_SLOTS)

/* What SQLite's own work for a row that reaches it costs, as bytes of
** column chunks decoded (tbl_ahead_worth). */
#define TBL_AHEAD_ROW_BYTES 256

typedef struct TblAheadCol {
  pq_cell *cells;           /* TBL_AHEAD_ROWS, then entry's, one allocation */
  int32_t *entry;           /* entries of dict, or -1 */
  TblDict *dict;            /* the block the cells' entries are of, or NULL */
  int dict_new;             /* this chunk hands over its first reference */
  TblBytes *bytes;          /* the text of the other cells, or NULL */
} TblAheadCol;

typedef struct TblChunk {
  int file;
  int64_t group;
  int64_t lo;               /* rows [lo, lo + n) of the row group */
  size_t n;
  int rc;                   /* not SQLITE_OK: the worker failed here */
  TblAheadCol *cols;        /* per reader of the cursor */
} TblChunk;

typedef struct TblAhead {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  /* under mu */
  int stop;                 /* the cursor wants the worker to end */
  int done;                 /* the worker has ended */
  int head, count;          /* ring[head] the oldest of count filled */
  int taken;                /* the cursor reads ring[head] */
  int open_upto;            /* the worker may read the files before it */
  TblChunk ring[TBL_AHEAD_SLOTS];
  TblBytes **pool;          /* blocks no value holds, for the worker */
  int npool, maxpool;
  /* set before the worker starts, then read only */
  TblSnap **snaps;
  int nsnaps;
  int ncols;                /* the cursor's readers */
  int *col;                 /* table column of each */
  int first_file;
  int64_t first_group;
  int binary_as_string;
  size_t limit;
  /* a scan with constraints: the files it reads a row of (tbl_file_may_match),
  ** or NULL (all); and per file, what tbl_group_may_match found of each row
  ** group (0: not asked, 1: may match, 2: does not), or NULL (each row group
  ** read).  A file's is written by the cursor before it lets the worker
  ** read the file (open_upto), and never after. */
  uint8_t *file_ok;
  uint8_t **may;
  /* the worker's own */
  pq_field_reader **rd;     /* per column, of the row group it reads */
  pq_read_room *rooms;      /* per column: the memory its readers reuse */
  TblDict **dict;           /* per column: the block of its dictionary */
  uint64_t *dict_id;        /* of pq_field_reader_entries, for dict */
  uint8_t *dict_handed;     /* a chunk carries dict's first reference */
  /* the cursor's own */
  int held;                 /* file + 1 opened for the worker, or 0 */
  TblBytes **retired;       /* blocks of chunks given back that SQLite still
                            ** held values of, for the pool once it does not */
  int nretired;
} TblAhead;

/* The next file after f that the scan reads a row of, or -1. */
static int tbl_ahead_next_file(const TblAhead *a, int f) {
  for (int i = f + 1; i < a->nsnaps; i++) {
    if (a->snaps[i]->num_rows > 0 && (!a->file_ok || a->file_ok[i]) &&
        pq_file_metadata(a->snaps[i]->src.file)->n_row_groups > 0)
      return i;
  }
  return -1;
}

/* What the cursor finds of row groups from..end of file fi, an open one,
** into the worker's a->may[fi] (none when the scan has nothing to prune
** by, or no memory: the worker then reads each row group, and the cursor
** passes over those it does not want); the number that may match. */
static int64_t tbl_ahead_mask(TblCursor *c, TblTable *t, TblAhead *a, int fi,
                              uint32_t from) {
  uint32_t n = pq_file_metadata(c->snaps[fi]->src.file)->n_row_groups;
  if (!a->file_ok) return n - from;
  uint8_t *m = sqlite3_malloc64(n ? n : 1);
  if (!m) return n - from;
  memset(m, 0, n);
  int64_t any = 0;
  for (uint32_t g = from; g < n; g++) {
    m[g] = tbl_group_may_match(c, t, fi, g) ? 1 : 2;
    any += m[g] == 1;
  }
  a->may[fi] = m;
  return any;
}

/* Lets the worker read file fi, now open, up to its end: what the cursor
** finds of its row groups first. */
static void tbl_ahead_allow(TblCursor *c, TblAhead *a, int fi) {
  if (a->file_ok && !a->may[fi])
    tbl_ahead_mask(c, (TblTable *)c->base.pVtab, a, fi, 0);
  pthread_mutex_lock(&a->mu);
  if (a->open_upto <= fi) a->open_upto = fi + 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

/* Whether row group g of the cursor's file may hold matching rows, as the
** worker was told when it was. */
static int tbl_group_check(TblCursor *c, TblTable *t, uint32_t g) {
  const TblAhead *a = c->ahead;
  if (a && a->may && a->may[c->file] && a->may[c->file][g])
    return a->may[c->file][g] == 1;
  return tbl_group_may_match(c, t, c->file, g);
}

/* Lets go of the worker's readers of column i, keeping their memory. */
static void tbl_ahead_close_col(TblAhead *a, int i) {
  if (a->rd[i]) {
    pq_read_room *room = &a->rooms[i];
    pq_buf_free(&room->window); /* empty: the room was given over */
    pq_buf_free(&room->page);
    memset(room, 0, sizeof *room);
    pq_buf_init(&room->window);
    pq_buf_init(&room->page);
    pq_field_reader_take_room(a->rd[i], room);
    pq_field_reader_free(a->rd[i]);
    a->rd[i] = NULL;
  }
  if (a->dict[i] && !a->dict_handed[i]) sqlite3_free(a->dict[i]);
  a->dict[i] = NULL;
  a->dict_id[i] = 0;
  a->dict_handed[i] = 0;
}

/* A failure as the chunk that ends the worker's reading. */
static void tbl_ahead_fail(TblChunk *k) {
  k->n = 0;
  k->rc = SQLITE_ERROR;
}

/* Opens the readers of row group g of file f; 0, or the chunk k made the
** failure. */
static int tbl_ahead_open(TblAhead *a, int f, uint32_t g, TblChunk *k) {
  const TblSnap *sn = a->snaps[f];
  const pq_file *pf = sn->src.file;
  tbl_fetch_group(sn, g, a->col, a->ncols);
  for (int i = 0; i < a->ncols; i++) {
    tbl_ahead_close_col(a, i);
    int fi = sn->field[a->col[i]];
    if (fi < 0) continue; /* a column the file lacks (or a hive key) */
    const pq_schema_node *node = pq_file_schema(pf)->children[fi];
    pq_error err;
    if (pq_field_reader_open(&a->rd[i], pf, g, node, a->binary_as_string,
                             a->limit, &err)) {
      tbl_ahead_fail(k);
      return 1;
    }
    if (node->leaf >= 0) {
      pq_field_reader_give_room(a->rd[i], &a->rooms[i]);
    }
  }
  return 0;
}

/* In a cell's kind while its bytes' block may move: the cell holds their
** offset in i (where p is), until the block is where it stays. */
#define TBL_AT 0x100

/* Cell v's bytes into the column's block (grown as needed: no value holds
** it yet), after room for the pointer back and before a NUL; v's kind
** marked TBL_AT and v->i their offset, until the block is where it stays.
** 1: no memory. */
static int tbl_ahead_put(TblAheadCol *ac, pq_cell *v) {
  size_t need = sizeof(uintptr_t) + ((v->n + 8) & ~(size_t)7);
  TblBytes *b = ac->bytes;
  if (!b || b->cap - b->len < need) {
    size_t len = b ? b->len : 0, cap = b ? 2 * b->cap : 65536;
    if (cap < len + need) cap = len + need;
    b = sqlite3_realloc64(b, sizeof *b + cap);
    if (!b) return 1;
    if (!ac->bytes) {
      b->refs = 1;
      b->len = 0;
    }
    b->cap = cap;
    ac->bytes = b;
  }
  uint8_t *at = TBL_BYTES_DATA(b) + b->len + sizeof(uintptr_t);
  memcpy(at, v->p, v->n);
  memset(at + v->n, 0, need - sizeof(uintptr_t) - v->n);
  v->i = (int64_t)(b->len + sizeof(uintptr_t));
  v->kind |= TBL_AT;
  b->len += need;
  return 0;
}

/* Reads rows [lo, lo + n) of the open row group into chunk k; 0, or k made
** the failure. */
static int tbl_ahead_fill(TblAhead *a, TblChunk *k, size_t want) {
  for (int i = 0; i < a->ncols; i++) {
    TblAheadCol *ac = &k->cols[i];
    if (!ac->bytes) { /* a block from the pool, if any */
      pthread_mutex_lock(&a->mu);
      if (a->npool) ac->bytes = a->pool[--a->npool];
      pthread_mutex_unlock(&a->mu);
    }
    if (ac->bytes) ac->bytes->len = 0;
    ac->dict = NULL;
    ac->dict_new = 0;
    if (!a->rd[i]) {
      for (size_t j = 0; j < want; j++) {
        memset(&ac->cells[j], 0, sizeof ac->cells[j]);
        ac->cells[j].kind = PQ_CELL_NULL;
        ac->entry[j] = -1;
      }
      continue;
    }
    size_t got = 0;
    while (got < want) {
      size_t n = 0;
      pq_error err;
      if (pq_field_reader_read_entries(a->rd[i], ac->cells + got,
                                       ac->entry + got, want - got, &n,
                                       &err) ||
          n == 0) { /* n 0: the column ends early */
        tbl_ahead_fail(k);
        return 1;
      }
      size_t ne;
      uint64_t id;
      const pq_cell *ent = pq_field_reader_entries(a->rd[i], &ne, &id);
      for (size_t j = got; j < got + n; j++) {
        pq_cell *v = &ac->cells[j];
        if (v->kind != PQ_CELL_TEXT && v->kind != PQ_CELL_BLOB) continue;
        int32_t e = ac->entry[j];
        if (e >= 0 && ent && id != a->dict_id[i]) { /* a new dictionary */
          if (a->dict[i] && !a->dict_handed[i]) sqlite3_free(a->dict[i]);
          a->dict[i] = tbl_dict_make(ent, ne); /* NULL: copied instead */
          a->dict_id[i] = id;
          a->dict_handed[i] = 0;
        }
        TblDict *d = a->dict[i];
        size_t at = e >= 0 && d && (size_t)e < d->n ? TBL_DICT_AT(d)[e] : 0;
        if (at && (!ac->dict || ac->dict == d)) {
          if (!ac->dict) {
            ac->dict = d;
            if (!a->dict_handed[i]) {
              ac->dict_new = 1;
              a->dict_handed[i] = 1;
            }
          }
          v->p = (const uint8_t *)d + at;
          continue;
        }
        ac->entry[j] = -1;
        if (v->n) { /* into the block, its offset for now */
          if (tbl_ahead_put(ac, v)) {
            tbl_ahead_fail(k);
            return 1;
          }
        }
      }
      got += n;
    }
    for (size_t j = 0; j < want; j++) { /* where the block now is */
      pq_cell *v = &ac->cells[j];
      if (!(v->kind & TBL_AT)) continue;
      v->kind &= ~TBL_AT;
      uint8_t *at = TBL_BYTES_DATA(ac->bytes) + v->i;
      uintptr_t back = (uintptr_t)ac->bytes;
      if (v->kind == PQ_CELL_TEXT && v->n <= 0x7fffffff && !memchr(at, 0, v->n))
        back |= 1;
      memcpy(at - sizeof back, &back, sizeof back);
      v->p = at;
    }
  }
  k->n = want;
  return 0;
}

/* The free slot the worker fills next, or NULL when told to stop. */
static TblChunk *tbl_ahead_slot(TblAhead *a) {
  pthread_mutex_lock(&a->mu);
  while (!a->stop && a->count == TBL_AHEAD_SLOTS)
    pthread_cond_wait(&a->cv, &a->mu);
  TblChunk *k = a->stop ? NULL : &a->ring[(a->head + a->count) % TBL_AHEAD_SLOTS];
  pthread_mutex_unlock(&a->mu);
  return k;
}

static void tbl_ahead_post(TblAhead *a) {
  pthread_mutex_lock(&a->mu);
  a->count++;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
}

static void *tbl_ahead_main(void *arg) {
  TblAhead *a = arg;
  int f = a->first_file;
  int64_t g = a->first_group;
  for (int failed = 0; f >= 0 && !failed;
       f = tbl_ahead_next_file(a, f), g = 0) {
    const TblSnap *sn = a->snaps[f];
    const pq_file_meta *m = pq_file_metadata(sn->src.file);
    pthread_mutex_lock(&a->mu); /* the cursor opens the file for it */
    while (!a->stop && f >= a->open_upto) pthread_cond_wait(&a->cv, &a->mu);
    int stop = a->stop;
    pthread_mutex_unlock(&a->mu);
    if (stop) break;
    for (; g < (int64_t)m->n_row_groups && !failed; g++) {
      int64_t rows = sn->rg_first[g + 1] - sn->rg_first[g];
      if (rows == 0 || (a->may && a->may[f] && a->may[f][g] == 2)) continue;
      int opened = 0;
      for (int64_t lo = 0; lo < rows && !failed; lo += TBL_AHEAD_ROWS) {
        TblChunk *k = tbl_ahead_slot(a);
        if (!k) {
          failed = 1;
          break;
        }
        k->file = f;
        k->group = g;
        k->lo = lo;
        k->n = 0;
        k->rc = SQLITE_OK;
        if (!opened) {
          failed = tbl_ahead_open(a, f, (uint32_t)g, k);
          opened = 1;
        }
        if (!failed) {
          int64_t want = rows - lo < TBL_AHEAD_ROWS ? rows - lo : TBL_AHEAD_ROWS;
          failed = tbl_ahead_fill(a, k, (size_t)want);
        }
        tbl_ahead_post(a);
      }
    }
  }
  for (int i = 0; i < a->ncols; i++) tbl_ahead_close_col(a, i);
  pthread_mutex_lock(&a->mu);
  a->done = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

static int tbl_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* A block of a chunk's bytes let go of by the worker: kept by the table
** for the next scan's worker when no value holds it, up to
** TBL_SPARE_MOST bytes in all. */
static void tbl_bytes_keep(TblTable *t, TblBytes *b) {
  if (b && b->refs == 1 && t->nspare_bytes < TBL_SPARE &&
      b->cap <= TBL_SPARE_MOST - t->spare_bytes_cap) {
    if (!t->spare_bytes)
      t->spare_bytes = sqlite3_malloc64(TBL_SPARE * sizeof *t->spare_bytes);
    if (t->spare_bytes) {
      t->spare_bytes[t->nspare_bytes++] = b;
      t->spare_bytes_cap += b->cap;
      return;
    }
  }
  tbl_block_unref(b);
}

static void tbl_ahead_free(TblCursor *c, TblAhead *a) {
  TblTable *t = (TblTable *)c->base.pVtab;
  for (int s = 0; s < TBL_AHEAD_SLOTS; s++) {
    TblChunk *k = &a->ring[s];
    for (int i = 0; k->cols && i < a->ncols; i++) {
      if (k->cols[i].dict_new) tbl_block_unref(k->cols[i].dict);
      if (k->cols[i].cells && t->nspare < TBL_SPARE) {
        if (!t->spare)
          t->spare = sqlite3_malloc64(TBL_SPARE * sizeof *t->spare);
        if (t->spare) {
          t->spare[t->nspare++] = k->cols[i].cells;
          k->cols[i].cells = NULL;
        }
      }
      sqlite3_free(k->cols[i].cells);
      tbl_bytes_keep(t, k->cols[i].bytes);
    }
    sqlite3_free(k->cols);
  }
  for (int i = 0; a->rooms && i < a->ncols; i++) {
    pq_read_room *room = &a->rooms[i];
    /* back to the table's rooms, as tbl_room_back keeps them */
    if (t->nrooms < TBL_ROOMS && room->window.cap <= TBL_ROOM_MOST &&
        room->page.cap <= TBL_ROOM_MOST && !room->window.oom &&
        !room->page.oom && (room->window.data || room->page.data)) {
      if (!t->rooms) t->rooms = sqlite3_malloc64(TBL_ROOMS * sizeof *t->rooms);
      if (t->rooms) {
        t->rooms[t->nrooms++] = *room;
        continue;
      }
    }
    pq_buf_free(&room->window);
    pq_buf_free(&room->page);
  }
  if (a->held) tbl_snap_done(a->snaps[a->held - 1]);
  for (int i = 0; i < a->npool; i++) tbl_bytes_keep(t, a->pool[i]);
  for (int i = 0; i < a->nretired; i++) tbl_bytes_keep(t, a->retired[i]);
  sqlite3_free(a->pool);
  sqlite3_free(a->retired);
  sqlite3_free(a->rooms);
  sqlite3_free(a->rd);
  sqlite3_free(a->dict);
  sqlite3_free(a->dict_id);
  sqlite3_free(a->dict_handed);
  sqlite3_free(a->col);
  for (int i = 0; a->may && i < a->nsnaps; i++) sqlite3_free(a->may[i]);
  sqlite3_free(a->may);
  sqlite3_free(a->file_ok);
  sqlite3_free(a);
}

/* Stops the worker, if any, and lets go of all it holds; the readers
** hold no cells of it after. */
static void tbl_ahead_stop(TblCursor *c) {
  TblAhead *a = c->ahead;
  if (!a) return;
  pthread_mutex_lock(&a->mu);
  a->stop = 1;
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  pthread_join(a->th, NULL);
  pthread_cond_destroy(&a->cv);
  pthread_mutex_destroy(&a->mu);
  c->ahead = NULL;
  for (int i = 0; i < c->nreaders; i++) {
    TblReader *r = &c->readers[i];
    if (r->cells != r->own_cells) {
      r->cells = r->own_cells;
      r->entry = r->own_entry;
      r->bytes = 0;
      r->n = 0;
      r->start = 0;
    }
  }
  tbl_ahead_free(c, a);
}

/* The bytes (uncompressed, as the footer says) of node's leaves' chunks in
** row group g. */
static double tbl_node_bytes(const pq_file *pf, uint32_t g,
                             const pq_schema_node *node) {
  if (node->leaf >= 0) {
    const pq_row_group *rg = &pq_file_metadata(pf)->row_groups[g];
    if ((uint32_t)node->leaf >= rg->n_columns) return 0;
    int64_t n = rg->columns[node->leaf].meta.total_uncompressed_size;
    return n > 0 ? (double)n : 0;
  }
  double n = 0;
  for (uint32_t i = 0; i < node->n_children; i++)
    n += tbl_node_bytes(pf, g, node->children[i]);
  return n;
}

/* Whether a scan whose rows are checked by constraints is worth a worker,
** by the row group it read whole (c->group, of rows rows): the worker
** decodes each used column of every row, where the cursor alone decodes
** the checked columns of every row and the others of the rows that pass
** (those SQLite then takes).  A filter that passes few rows reads the
** other columns of those alone, as the cursor does; the worker takes the
** decoding off SQLite's thread when the rows that pass cost SQLite more
** than the other columns' rows that fail cost the worker. */
static int tbl_ahead_worth(TblCursor *c, int64_t rows) {
  if (!c->filters) return 1; /* each row of the ranges reaches SQLite */
  const TblSnap *sn = tbl_snap(c);
  const pq_file *pf = sn->src.file;
  double other = 0;
  for (int i = 0; i < c->nreaders; i++) {
    int col = c->readers[i].col, checked = 0;
    for (int j = 0; j < c->ncons; j++) checked |= c->cons[j].reader == i;
    if (checked || sn->field[col] < 0) continue;
    other += tbl_node_bytes(pf, (uint32_t)c->group,
                            pq_file_schema(pf)->children[sn->field[col]]);
  }
  double fail = (double)(rows - c->passed) / (double)rows;
  return fail * other < (double)TBL_AHEAD_ROW_BYTES * (double)c->passed;
}

/* Whether the scan has anything to prune by: constraints or rowid bounds. */
static int tbl_prunes(const TblCursor *c) {
  return c->ncons || c->rowid_lo != INT64_MIN || c->rowid_hi != INT64_MAX;
}

/* Starts the worker on row group g of the cursor's file (the next it
** reads) when the scan is one to read ahead; a worker that cannot be had
** is none. */
static void tbl_ahead_start(TblCursor *c, TblTable *t, int64_t g) {
  int prune = tbl_prunes(c);
  if (prune) {
    /* Not yet: the row group was not read whole (pruned, or pages of it
    ** the page index ruled out), and such a scan may prune the next. */
    int64_t rows = tbl_snap(c)->rg_first[c->group + 1] -
                   tbl_snap(c)->rg_first[c->group];
    if (c->nranges != 1 || c->ranges[0].lo != 0 || c->ranges[0].hi != rows)
      return;
  }
  c->ahead_tried = 1;
  if (t->threads < 2 || c->offset > 0 || c->nreaders == 0 ||
      !sqlite3_threadsafe() || tbl_cpus() < 2)
    return;
  if (prune && !tbl_ahead_worth(c, tbl_snap(c)->rg_first[c->group + 1] -
                                       tbl_snap(c)->rg_first[c->group]))
    return;
  TblAhead *a = sqlite3_malloc(sizeof *a);
  if (!a) return;
  memset(a, 0, sizeof *a);
  a->snaps = c->snaps;
  a->nsnaps = c->nsnaps;
  if (prune) {
    a->file_ok = sqlite3_malloc64((size_t)c->nsnaps);
    a->may = sqlite3_malloc64((size_t)c->nsnaps * sizeof *a->may);
    if (a->may) memset(a->may, 0, (size_t)c->nsnaps * sizeof *a->may);
    if (!a->file_ok || !a->may) {
      tbl_ahead_free(c, a);
      return;
    }
    int later = 0;
    for (int i = 0; i < c->nsnaps; i++) {
      a->file_ok[i] = i == c->file || tbl_file_may_match(c, t, i);
      later |= i > c->file && a->file_ok[i];
    }
    /* nothing left to read ahead: no worker */
    if (tbl_ahead_mask(c, t, a, c->file, (uint32_t)g) == 0 && !later) {
      tbl_ahead_free(c, a);
      return;
    }
  }
  int n = c->nreaders, ok = 1;
  a->ncols = n;
  a->col = sqlite3_malloc64((size_t)n * sizeof *a->col);
  a->rd = sqlite3_malloc64((size_t)n * sizeof *a->rd);
  a->rooms = sqlite3_malloc64((size_t)n * sizeof *a->rooms);
  a->dict = sqlite3_malloc64((size_t)n * sizeof *a->dict);
  a->dict_id = sqlite3_malloc64((size_t)n * sizeof *a->dict_id);
  a->dict_handed = sqlite3_malloc64((size_t)n);
  if (a->rooms) memset(a->rooms, 0, (size_t)n * sizeof *a->rooms);
  a->maxpool = n * (TBL_AHEAD_SLOTS + 2);
  a->pool = sqlite3_malloc64((size_t)a->maxpool * sizeof *a->pool);
  while (a->pool && t->nspare_bytes && a->npool < a->maxpool) { /* kept */
    TblBytes *b = t->spare_bytes[--t->nspare_bytes];
    t->spare_bytes_cap -= b->cap;
    a->pool[a->npool++] = b;
  }
  a->retired = sqlite3_malloc64((size_t)a->maxpool * sizeof *a->retired);
  ok = a->col && a->rd && a->rooms && a->dict && a->dict_id &&
       a->dict_handed && a->pool && a->retired;
  for (int i = 0; ok && i < n; i++) {
    a->col[i] = c->readers[i].col;
    a->rd[i] = NULL;
    a->dict[i] = NULL;
    a->dict_id[i] = 0;
    a->dict_handed[i] = 0;
    memset(&a->rooms[i], 0, sizeof a->rooms[i]);
    pq_buf_init(&a->rooms[i].window);
    pq_buf_init(&a->rooms[i].page);
    if (t->nrooms > 0) { /* a room the table kept */
      a->rooms[i] = t->rooms[--t->nrooms];
      a->rooms[i].owner = NULL;
    }
  }
  for (int s = 0; ok && s < TBL_AHEAD_SLOTS; s++) {
    TblChunk *k = &a->ring[s];
    k->cols = sqlite3_malloc64((size_t)n * sizeof *k->cols);
    if (!k->cols) {
      ok = 0;
      break;
    }
    memset(k->cols, 0, (size_t)n * sizeof *k->cols);
    for (int i = 0; i < n; i++) {
      TblAheadCol *ac = &k->cols[i];
      /* the cells, then the entries */
      ac->cells = t->nspare ? t->spare[--t->nspare]
                            : sqlite3_malloc64(TBL_AHEAD_ROWS *
                                               (sizeof *ac->cells +
                                                sizeof *ac->entry));
      if (!ac->cells) {
        ok = 0;
        continue;
      }
      ac->entry = (int32_t *)(void *)(ac->cells + TBL_AHEAD_ROWS);
    }
  }
  a->first_file = c->file;
  a->first_group = g;
  a->binary_as_string = t->binary_as_string;
  a->limit = pqx_db_limit(t->db);
  a->open_upto = c->file + 1;
  if (ok && pthread_mutex_init(&a->mu, NULL)) ok = 0;
  if (ok && pthread_cond_init(&a->cv, NULL)) {
    pthread_mutex_destroy(&a->mu);
    ok = 0;
  }
  if (ok && pthread_create(&a->th, NULL, tbl_ahead_main, a)) {
    pthread_cond_destroy(&a->cv);
    pthread_mutex_destroy(&a->mu);
    ok = 0;
  }
  if (!ok) { /* read on without it */
    tbl_ahead_free(c, a);
    return;
  }
  c->ahead = a;
  /* Off the cursor's CPU, as parquet_write's worker: the cursor wakes the
  ** worker at each chunk it gives back. */
  pq_thread_elsewhere(&a->th);
}

/* Opens the next file for the worker when the chunk it takes is of the
** last row group of its file; a file that cannot be opened is left to the
** cursor, which fails on it as it would without the worker. */
static void tbl_ahead_open_next(TblCursor *c, TblAhead *a, const TblChunk *k) {
  if (a->held || k->file + 1 < a->open_upto) return;
  const TblSnap *sn = c->snaps[k->file];
  uint32_t groups = pq_file_metadata(sn->src.file)->n_row_groups;
  for (uint32_t g = (uint32_t)k->group + 1; g < groups; g++)
    if (sn->rg_first[g + 1] > sn->rg_first[g]) return; /* more to read */
  int nf = tbl_ahead_next_file(a, k->file);
  if (nf < 0) return;
  char *msg;
  if (tbl_snap_read(c->snaps[nf], &msg)) {
    sqlite3_free(msg);
    return;
  }
  a->held = nf + 1;
  tbl_ahead_allow(c, a, nf);
}

/* Chunk k given back to the ring (under the mutex): a block SQLite still
** holds values of leaves it for the cursor's retired blocks, and those
** SQLite no longer holds go to the pool. */
static void tbl_ahead_give_back(TblAhead *a, TblChunk *k) {
  for (int i = 0; i < a->nretired;) {
    TblBytes *b = a->retired[i];
    if (b->refs > 1) {
      i++;
      continue;
    }
    a->retired[i] = a->retired[--a->nretired];
    if (a->npool < a->maxpool) {
      a->pool[a->npool++] = b;
    } else {
      tbl_block_unref(b);
    }
  }
  for (int i = 0; i < a->ncols; i++) {
    TblBytes *b = k->cols[i].bytes;
    if (!b || b->refs == 1) continue;
    k->cols[i].bytes = NULL;
    if (a->nretired < a->maxpool) {
      a->retired[a->nretired++] = b;
    } else {
      tbl_block_unref(b); /* the last value frees it */
    }
  }
}

/* The first references chunk k carries to its columns' dictionary blocks,
** taken by the cursor's readers: later chunks' cells point into the same
** blocks without a reference of their own, so a chunk the cursor passes
** over hands its references on as well. */
static void tbl_ahead_adopt(TblCursor *c, TblChunk *k) {
  for (int i = 0; i < c->nreaders; i++) {
    TblAheadCol *ac = &k->cols[i];
    if (!ac->dict_new) continue;
    TblReader *r = &c->readers[i];
    tbl_dict_drop(r);
    r->dict = ac->dict;
    r->dict_gen++;
    ac->dict_new = 0;
  }
}

/* The cursor's readers on the chunk that holds its row: the chunks before
** it given back.  When there is none (the worker is not where the cursor
** is), the worker is stopped and the cursor reads on itself, from the row
** it is at. */
static int tbl_ahead_take(TblCursor *c) {
  TblAhead *a = c->ahead;
  TblTable *t = (TblTable *)c->base.pVtab;
  for (;;) {
    pthread_mutex_lock(&a->mu);
    if (a->taken) { /* the chunk in hand, given back */
      tbl_ahead_give_back(a, &a->ring[a->head]);
      a->head = (a->head + 1) % TBL_AHEAD_SLOTS;
      a->count--;
      a->taken = 0;
      pthread_cond_broadcast(&a->cv);
    }
    while (a->count == 0 && !a->done) pthread_cond_wait(&a->cv, &a->mu);
    TblChunk *k = a->count ? &a->ring[a->head] : NULL;
    if (k) a->taken = 1;
    pthread_mutex_unlock(&a->mu);
    int before = k && (k->file < c->file ||
                       (k->file == c->file && (k->group < c->group ||
                                               (k->group == c->group &&
                                                k->lo + (int64_t)k->n <= c->row &&
                                                k->rc == SQLITE_OK))));
    if (before) { /* rows SQLite did not ask for: only its dictionaries */
      tbl_ahead_adopt(c, k);
      continue;
    }
    if (k && !k->rc && k->file == c->file && k->group == c->group &&
        k->lo <= c->row && c->row < k->lo + (int64_t)k->n) {
      tbl_ahead_adopt(c, k);
      for (int i = 0; i < c->nreaders; i++) {
        TblReader *r = &c->readers[i];
        TblAheadCol *ac = &k->cols[i];
        r->cells = ac->cells;
        r->entry = ac->entry;
        r->bytes = 1;
        r->start = k->lo;
        r->n = k->n;
      }
      tbl_ahead_open_next(c, a, k);
      return SQLITE_OK;
    }
    /* Not where the cursor is, or where the worker failed: it reads on
    ** itself. */
    tbl_ahead_stop(c);
    if (c->file >= c->nsnaps || c->group < 0) return SQLITE_OK;
    if (!c->reading) {
      char *msg;
      int rc = tbl_snap_read(tbl_snap(c), &msg);
      if (rc) return tbl_error(c, msg);
      c->reading = c->file + 1;
    }
    return tbl_open_readers(c, t, tbl_snap(c), (uint32_t)c->group);
  }
}

/* Moves to the next range of rows to read, from the current position, and
** in it to the next row that tbl_row_filtered lets through. */
static int tbl_advance(TblCursor *c) {
  TblTable *t = (TblTable *)c->base.pVtab;
  for (;;) {
    if (c->range < c->nranges) {
      TblRange *r = &c->ranges[c->range];
      if (c->row < r->lo) c->row = r->lo;
      if (c->row < r->hi) {
        if (!c->filters) return SQLITE_OK;
        int fails, rc = tbl_row_filtered(c, &fails);
        if (rc) return rc;
        if (!fails) {
          c->passed++;
          return SQLITE_OK;
        }
        continue; /* c->row past the rows that failed */
      }
      c->range++;
      continue;
    }
    /* the next row group, or file */
    if (c->file < c->nsnaps && c->group >= 0) {
      tbl_readers_close(c);
      /* a row group read to its end: the scan reads on in order */
      if (!c->ahead && !c->ahead_tried) tbl_ahead_start(c, t, c->group + 1);
    }
    if (c->file >= c->nsnaps) {
      tbl_leave_file(c);
      c->eof = 1;
      return SQLITE_OK;
    }
    const TblSnap *f = tbl_snap(c);
    const pq_file_meta *m = pq_file_metadata(tbl_cur_pq(c));
    c->group++;
    if (c->group == 0 && !tbl_file_may_match(c, t, c->file))
      c->group = m->n_row_groups;
    if (c->group >= (int64_t)m->n_row_groups) {
      tbl_leave_file(c);
      c->file++;
      c->group = -1;
      c->nranges = c->range = 0;
      continue;
    }
    if (!c->reading && c->ahead && c->ahead->held == c->file + 1) {
      c->reading = c->file + 1; /* opened for the worker */
      c->ahead->held = 0;
    }
    if (!c->reading) { /* its first row group read: the file is opened */
      char *msg;
      int rc = tbl_snap_read(tbl_snap(c), &msg);
      if (rc) return tbl_error(c, msg);
      c->reading = c->file + 1;
    }
    /* A scan that reads every row of many: the worker from its first. */
    if (!c->ahead && !c->ahead_tried && c->limit < 0 && !tbl_prunes(c) &&
        c->first[c->nsnaps] - c->first[c->file] >= TBL_AHEAD_FIRST)
      tbl_ahead_start(c, t, c->group);
    if (c->ahead && c->ahead->open_upto <= c->file) /* it may read it */
      tbl_ahead_allow(c, c->ahead, c->file);
    uint32_t g = (uint32_t)c->group;
    c->nranges = c->range = 0;
    c->row = 0;
    c->passed = 0;
    if (!tbl_group_check(c, t, g)) continue;
    if (f->src.fd.rem && c->ncons && !c->ahead) tbl_fetch_index(c, t, f, g);
    int rc = tbl_group_ranges(c, t, f, g);
    if (rc) return rc;
    /* OFFSET: whole ranges first. */
    while (c->offset > 0 && c->range < c->nranges) {
      TblRange *r = &c->ranges[c->range];
      int64_t k = r->hi - r->lo;
      if (c->offset >= k) {
        c->offset -= k;
        c->range++;
      } else {
        r->lo += c->offset;
        c->offset = 0;
      }
    }
    if (c->range >= c->nranges) continue;
    if (c->ahead) continue; /* its chunks, as the rows are asked for */
    if (c->ahead_tried && f->src.fd.rem && !c->filters && c->nranges == 1 &&
        c->ranges[0].lo == 0 &&
        c->ranges[0].hi == f->rg_first[g + 1] - f->rg_first[g]) {
      /* read on in order, the whole row group: its chunks fetched at once */
      int *cols = sqlite3_malloc64((size_t)(c->nreaders + 1) * sizeof *cols);
      for (int i = 0; cols && i < c->nreaders; i++) cols[i] = c->readers[i].col;
      if (cols) tbl_fetch_group(f, g, cols, c->nreaders);
      sqlite3_free(cols);
    } else if (f->src.fd.rem) {
      tbl_fetch_pages(c, f, g);
    }
    rc = tbl_open_readers(c, t, f, g);
    if (rc) return rc;
  }
}

/* The file list again, at a scan: the patterns whose folders changed
** expanded again, and each file checked against its snapshot.  A file that
** changed is read again, and must keep the fields the table read of it
** (else the table fails until it is created again); a new file must fit
** the table's columns (tbl_fit_fields; else the scan fails, naming it); a
** file that is gone is not read.  On an error the list stays as it was. */
static int tbl_refresh(TblTable *t, char **msg) {
  int rc = SQLITE_OK;
  for (int i = 0; i < t->npatterns && !rc; i++) {
    const TblWatch *w = &t->watch[i];
    /* A path that named a file names it still: the check below finds
    ** it gone, or back. */
    if (w->ndirs == 0 && w->npaths == 1 && !strcmp(w->paths[0], t->patterns[i]))
      continue;
    if (!pqx_folders_same(w->dirs, w->ndirs)) rc = tbl_expand(t, i, 1, msg);
  }
  const char **list = NULL;
  int n = 0;
  if (!rc) rc = tbl_gather(t, &list, &n);
  if (rc) return rc;
  TblSnap **nf = sqlite3_malloc64((size_t)(n + 1) * sizeof *nf);
  const char **old = sqlite3_malloc64((size_t)(t->nfiles + 1) * sizeof *old);
  TblHash h;
  h.slot = NULL;
  if (!nf || !old) rc = SQLITE_NOMEM;
  for (int i = 0; i < t->nfiles && !rc; i++) old[i] = t->files[i]->path;
  int m = 0, next = 0;
  int64_t rows = 0;
  for (int k = 0; k < n && !rc; k++) {
    const char *path = list[k];
    /* the file it was: mostly the next of the old list */
    int o = -1;
    if (next < t->nfiles && !strcmp(old[next], path)) {
      o = next;
    } else {
      if (!h.slot) {
        rc = tbl_hash_init(&h, t->nfiles);
        for (int i = 0; i < t->nfiles && !rc; i++)
          tbl_hash_find(&h, old, old[i], i + 1);
        if (rc) break;
      }
      o = tbl_hash_find(&h, old, path, 0);
    }
    if (o >= 0) next = o + 1;
    TblSnap *s = o >= 0 ? t->files[o] : NULL, *ns = NULL;
    int same = 0;
    if (s) {
      rc = pqx_file_check(&s->src.fd, "parquet", &same, msg);
      if (rc && rc != SQLITE_NOMEM && tbl_vanished(path)) {
        sqlite3_free(*msg);
        *msg = NULL;
        rc = SQLITE_OK;
        continue;
      }
      if (rc) break;
      if (same) {
        s->refs++;
        nf[m++] = s;
        rows += s->num_rows;
        continue;
      }
    }
    rc = tbl_snap_open(t, path, &ns, msg);
    if (rc && rc != SQLITE_NOMEM && tbl_vanished(path)) {
      sqlite3_free(*msg);
      *msg = NULL;
      rc = SQLITE_OK;
      continue;
    }
    if (rc) break;
    if (s) {
      rc = tbl_same_fields(t, s, ns, &same);
      if (!rc && !same) {
        tbl_snap_unref(t, ns);
        ns = NULL;
        t->broken = sqlite3_mprintf(
            "parquet: '%s' changed, and its columns with it: create the "
            "table again",
            path);
        *msg = t->broken ? sqlite3_mprintf("%s", t->broken) : NULL;
        rc = *msg ? SQLITE_ERROR : SQLITE_NOMEM;
        break;
      }
    } else {
      rc = tbl_fit_fields(t, ns, msg);
    }
    if (!rc) rc = tbl_snap_hive(t, ns);
    if (rc) {
      tbl_snap_unref(t, ns);
      break;
    }
    nf[m++] = ns;
    rows += ns->num_rows;
  }
  sqlite3_free(h.slot);
  sqlite3_free(old);
  sqlite3_free(list);
  if (rc) {
    for (int i = 0; i < m; i++) tbl_snap_unref(t, nf[i]);
    sqlite3_free(nf);
    return rc;
  }
  for (int i = 0; i < t->nfiles; i++) tbl_snap_unref(t, t->files[i]);
  sqlite3_free(t->files);
  t->files = nf;
  t->nfiles = m;
  t->total_rows = rows;
  return SQLITE_OK;
}

/* Sets the table up for a scan: the files read, if they are not yet (a
** table from a schema), else the file list made again (tbl_refresh). */
static int tbl_recheck(TblTable *t, char **msg) {
  *msg = NULL;
  if (!pqx_files_allowed(t->db, "parquet", msg))
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  if (t->broken) {
    *msg = sqlite3_mprintf("%s", t->broken);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
  if (t->from_schema) {
    int trusted = 1;
    sqlite3_db_config(t->db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, -1, &trusted);
    if (!trusted) {
      *msg = sqlite3_mprintf(
          "parquet: table '%s' is in the schema of database '%s', and "
          "PRAGMA trusted_schema is off: its files are not read",
          t->name, t->schema);
      return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
#endif
  if (!t->loaded) return tbl_first_read(t, msg);
  return tbl_refresh(t, msg);
}

/* The cursor's view of the files: a reference to each snapshot, and the
** rowid each file begins at. */
static int tbl_take_snaps(TblCursor *c, TblTable *t) {
  c->snaps = sqlite3_malloc64((size_t)(t->nfiles + 1) * sizeof *c->snaps);
  c->first = sqlite3_malloc64((size_t)(t->nfiles + 1) * sizeof *c->first);
  if (!c->snaps || !c->first) return SQLITE_NOMEM;
  int64_t rowid = 0;
  for (int i = 0; i < t->nfiles; i++) {
    c->snaps[i] = t->files[i];
    c->snaps[i]->refs++;
    c->first[i] = rowid;
    rowid += c->snaps[i]->num_rows;
  }
  c->first[t->nfiles] = rowid;
  c->nsnaps = t->nfiles;
  return SQLITE_OK;
}

/* tbl_advance, and the row below which the next ones need nothing else. */
static int tbl_advance_run(TblCursor *c) {
  int rc = tbl_advance(c);
  c->run_hi = !rc && !c->eof && !c->filters && c->range < c->nranges
                  ? c->ranges[c->range].hi
                  : 0;
  return rc;
}

static int tblFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv) {
  (void)idxNum;
  (void)argc;
  TblCursor *c = (TblCursor *)cur;
  TblTable *t = (TblTable *)cur->pVtab;
  tbl_ahead_stop(c);
  tbl_readers_close(c);
  tbl_drop_snaps(c);
  tbl_cons_free(c);
  c->eof = 0;
  c->ahead_tried = 0;
  c->file = 0;
  c->group = -1;
  c->nranges = c->range = 0;
  c->row = 0;
  c->run_hi = 0;
  c->offset = 0;
  c->limit = -1;
  c->rowid_lo = INT64_MIN;
  c->rowid_hi = INT64_MAX;
  c->bytes_read = 0;
  char *msg = NULL;
  int rc = tbl_recheck(t, &msg);
  if (rc) return tbl_error(c, msg);
  rc = tbl_take_snaps(c, t);
  if (rc == SQLITE_OK)
    rc = tbl_read_constraints(c, t, idxStr ? idxStr : "0;", argv);
  if (rc) return tbl_error(c, NULL);
  /* A reader for each used column the files have. */
  int n = 0;
  for (int i = 0; i < t->ncols; i++) {
    if (t->cols[i].hive < 0 && (c->used >> (i < 63 ? i : 63)) & 1) n++;
  }
  c->ncolmap = 0; /* the map points into the readers */
  sqlite3_free(c->readers);
  c->nreaders = 0;
  c->readers = sqlite3_malloc64((size_t)(n ? n : 1) * sizeof *c->readers);
  if (!c->readers) return SQLITE_NOMEM;
  memset(c->readers, 0, (size_t)(n ? n : 1) * sizeof *c->readers);
  for (int i = 0; i < t->ncols; i++) {
    if (t->cols[i].hive < 0 && (c->used >> (i < 63 ? i : 63)) & 1)
      c->readers[c->nreaders++].col = i;
  }
  for (int i = 0; i < c->nreaders; i++) {
    c->readers[i].cells = c->readers[i].own_cells;
    c->readers[i].entry = c->readers[i].own_entry;
  }
  sqlite3_free(c->colmap);
  c->colmap = sqlite3_malloc64((size_t)(t->ncols ? t->ncols : 1) *
                               sizeof *c->colmap);
  if (!c->colmap) return SQLITE_NOMEM;
  memset(c->colmap, 0, (size_t)(t->ncols ? t->ncols : 1) * sizeof *c->colmap);
  c->ncolmap = t->ncols;
  for (int i = 0; i < c->nreaders; i++)
    c->colmap[c->readers[i].col] = &c->readers[i];
  /* The constraints rows are checked by: those on a column's own flat
  ** values, whose comparison SQL's is known to be (tbl_affinity). */
  c->filters = 0;
  for (int i = 0; i < c->ncons; i++) {
    TblCons *k = &c->cons[i];
    k->reader = -1;
    if (!t->pushdown || !k->usable || k->col >= t->ncols ||
        t->cols[k->col].hive >= 0 || t->cols[k->col].info.nested)
      continue;
    for (int j = 0; j < c->nreaders; j++) {
      if (c->readers[j].col == k->col) k->reader = j;
    }
    c->filters += k->reader >= 0;
  }
  return tbl_advance_run(c);
}

static int tblNext(sqlite3_vtab_cursor *cur) {
  TblCursor *c = (TblCursor *)cur;
  /* Most rows: the next one of the range, no constraint to check. */
  if (++c->row < c->run_hi) return SQLITE_OK;
  return tbl_advance_run(c);
}

static int tblEof(sqlite3_vtab_cursor *cur) { return ((TblCursor *)cur)->eof; }

/* The reader of table column col, or NULL (a hidden or hive column, or
** one the query does not use). */
static inline TblReader *tbl_reader(TblCursor *c, int col) {
  return col >= 0 && col < c->ncolmap ? c->colmap[col] : NULL;
}

static inline void tbl_result(sqlite3_context *ctx, const pq_cell *v) {
  switch (v->kind) {
    case PQ_CELL_INT: sqlite3_result_int64(ctx, v->i); break;
    case PQ_CELL_REAL: sqlite3_result_double(ctx, v->r); break;
    case PQ_CELL_TEXT:
      sqlite3_result_text64(ctx, (const char *)(v->p ? v->p : (const uint8_t *)""),
                            v->n, SQLITE_TRANSIENT, SQLITE_UTF8);
      break;
    case PQ_CELL_BLOB:
      sqlite3_result_blob64(ctx, v->p ? v->p : (const uint8_t *)"", v->n,
                            SQLITE_TRANSIENT);
      break;
    default: break; /* NULL: what SQLite set before xColumn */
  }
}

/* Cell i of reader r's batch as the result. */
static void tbl_reader_result(sqlite3_context *ctx, TblReader *r, size_t i) {
  const pq_cell *v = &r->cells[i];
  if ((v->kind == PQ_CELL_TEXT || v->kind == PQ_CELL_BLOB) && v->n) {
    /* a chunk's cells: every text and blob in a block, the chunk's own or
    ** its column's dictionary's */
    if (r->bytes) {
      tbl_block_result(ctx, v);
      return;
    }
    if (r->entry[i] >= 0 && tbl_entry_result(ctx, r, r->entry[i], v)) return;
  }
  tbl_result(ctx, v);
}

/* tblColumn past its common case: the hidden columns, hive partition
** values, a column a file lacks, and a row the batch in hand does not hold. */
static __attribute__((noinline)) int tbl_column(TblCursor *c,
                                                sqlite3_context *ctx,
                                                int col) {
  TblTable *t = (TblTable *)c->base.pVtab;
  const TblSnap *f = tbl_snap(c);
  if (col == TBL_FILENAME(t)) {
    sqlite3_result_text(ctx, f->path, -1, SQLITE_TRANSIENT);
    return SQLITE_OK;
  }
  if (col == TBL_FILE_ROW(t)) {
    sqlite3_result_int64(ctx, tbl_snap(c)->rg_first[c->group] + c->row);
    return SQLITE_OK;
  }
  if (col >= t->ncols) return SQLITE_OK;
  if (t->cols[col].hive >= 0) {
    const char *h = f->hive[t->cols[col].hive];
    sqlite3_int64 x;
    if (!h) return SQLITE_OK;
    if (t->cols[col].info.kind == PQ_CELL_INT && tbl_is_int(h, &x)) {
      sqlite3_result_int64(ctx, x);
    } else {
      sqlite3_result_text(ctx, h, -1, SQLITE_TRANSIENT);
    }
    return SQLITE_OK;
  }
  TblReader *r = tbl_reader(c, col);
  if (!r || (!r->r && !c->ahead)) return SQLITE_OK; /* a column this file
                                                    ** lacks: NULL */
  int rc = tbl_load(c, r);
  if (rc) return rc;
  if (c->row >= r->start && c->row < r->start + (int64_t)r->n)
    tbl_reader_result(ctx, r, (size_t)(c->row - r->start));
  return SQLITE_OK;
}

static int tblColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
  TblCursor *c = (TblCursor *)cur;
  /* Most calls: a column of the files whose batch holds the row; a number
  ** or a NULL then costs one call into SQLite, or none.  (tbl_result's
  ** cases again, in the order of this switch: through tbl_result, gcc
  ** makes it 7 instructions longer a call.) */
  TblReader *r = tbl_reader(c, col);
  if (r && (uint64_t)(c->row - r->start) < (uint64_t)r->n) {
    size_t i = (size_t)(c->row - r->start);
    const pq_cell *v = &r->cells[i];
    switch (v->kind) {
      case PQ_CELL_NULL: return SQLITE_OK;
      case PQ_CELL_INT: sqlite3_result_int64(ctx, v->i); return SQLITE_OK;
      case PQ_CELL_REAL: sqlite3_result_double(ctx, v->r); return SQLITE_OK;
      case PQ_CELL_TEXT:
        if (r->bytes && v->n) { /* a chunk's text (tbl_reader_result) */
          tbl_block_result(ctx, v);
          return SQLITE_OK;
        }
        /* fall through */
      default: tbl_reader_result(ctx, r, i); return SQLITE_OK;
    }
  }
  return tbl_column(c, ctx, col);
}

static int tblRowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
  TblCursor *c = (TblCursor *)cur;
  *rowid = c->first[c->file] + tbl_snap(c)->rg_first[c->group] + c->row;
  return SQLITE_OK;
}

static sqlite3_module table_module = {
    .iVersion = 3,
    .xCreate = tblCreate,
    .xConnect = tblConnect,
    .xBestIndex = tblBestIndex,
    .xDisconnect = tblDisconnect,
    .xDestroy = tblDestroy,
    .xRename = tblRename,
    .xShadowName = tblShadowName,
    .xOpen = tblOpen,
    .xClose = tblClose,
    .xFilter = tblFilter,
    .xNext = tblNext,
    .xEof = tblEof,
    .xColumn = tblColumn,
    .xRowid = tblRowid,
};

int pqx_register_table(sqlite3 *db) {
  return sqlite3_create_module(db, "parquet", &table_module, NULL);
}
