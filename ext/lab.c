/*
** lab.c -- parquet_lab(query [, options]): every flat column of a query's
** result under every encoding and codec, with the bytes parquet_write
** would write for it and what reading and writing it cost.
**
**   SELECT "column", encoding, codec, bytes, ratio
**     FROM parquet_lab('SELECT * FROM trips', '{"codecs":["ZSTD"]}')
**    ORDER BY "column", bytes;
**
** How it works: the table has the schema
**
**   CREATE TABLE x("column", physical_type, logical_type, encoding, codec,
**                  level, bytes, values_bytes, ratio, bits_per_value,
**                  pages, auto, readers, encode_mb_s, decode_mb_s, why,
**                  encode_spread, decode_spread, query HIDDEN,
**                  options HIDDEN);
**
** The query runs once, through parquet_write's own reading of a query
** (write.c, pqx_write_capture): its columns typed and their values
** converted as parquet_write does, in the batches it hands its writer.
** Each column's batches are kept once (src/writer/lab.c) and written again
** for each encoding x codec (x level), a one-column file each time, whose
** chunk gives `bytes`.  The rows are all made by xFilter.  Nested columns
** (LIST, STRUCT, MAP, VARIANT) have no rows.
*/
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "write.h"

#define LAB_FN "parquet_lab"
#define LAB_FILE_FN "parquet_lab_file"
#define LAB_MIN_TIME 0.02 /* seconds each speed is measured for, by default */

enum {
  LAB_COL_COLUMN,
  LAB_COL_PHYSICAL,
  LAB_COL_LOGICAL,
  LAB_COL_ENCODING,
  LAB_COL_CODEC,
  LAB_COL_LEVEL,
  LAB_COL_BYTES,
  LAB_COL_VALUES_BYTES,
  LAB_COL_RATIO,
  LAB_COL_BITS,
  LAB_COL_PAGES,
  LAB_COL_AUTO,
  LAB_COL_READERS,
  LAB_COL_ENCODE,
  LAB_COL_DECODE,
  LAB_COL_WHY,
  LAB_COL_ENCODE_SPREAD,
  LAB_COL_DECODE_SPREAD,
  LAB_COL_QUERY,
  LAB_COL_OPTIONS
};

/* The rows' columns, the same for parquet_lab_file (its source in the
** query's place). */
#define LAB_COLUMNS                                                         \
  "CREATE TABLE x(\"column\" TEXT, physical_type TEXT, logical_type TEXT, " \
  "encoding TEXT, codec TEXT, level INTEGER, bytes INTEGER, "               \
  "values_bytes INTEGER, ratio REAL, bits_per_value REAL, pages INTEGER, "  \
  "auto INTEGER, readers INTEGER, encode_mb_s REAL, decode_mb_s REAL, "     \
  "why TEXT, encode_spread REAL, decode_spread REAL, "
#define LAB_SCHEMA LAB_COLUMNS "query HIDDEN, options HIDDEN)"

/* Runs a query: a table that reads no file, but must not run from a
** database's schema (as parquet_write). */
static const pqx_vtab_spec lab_spec = {LAB_SCHEMA, 1};

/* One column of the query, captured. */
typedef struct LabCol {
  char *name;             /* sqlite3_malloc */
  pq_lab_column *lc;      /* NULL: not measured */
  char *logical;          /* as parquet_schema gives it; NULL: none */
  char *why[PQ_ENCODING_COUNT]; /* each encoding's figures (sqlite3_malloc) */
  pq_type type;
} LabCol;

/* One row of the result. */
typedef struct LabRow {
  int col;                /* into the cursor's columns */
  pq_encoding enc;
  pq_codec codec;
  int level, has_level;
  int64_t bytes, values_bytes, pages;
  double ratio, bits;     /* bits < 0: NULL */
  int is_auto, readers;
  double enc_mbs, dec_mbs; /* < 0: NULL */
  double enc_spread, dec_spread; /* < 0: NULL */
} LabRow;

typedef struct LabCursor {
  sqlite3_vtab_cursor base;
  LabCol *cols;
  int ncols;
  LabRow *rows;
  size_t nrows, cap;
  size_t at;
} LabCursor;

/* What the options ask for (the core reads them: pq_lab_options_parse). */
typedef pq_lab_options LabAsk;

/* The capture's state (write.h, pqx_capture). */
typedef struct LabCapture {
  LabCursor *cur;
  const LabAsk *ask;
  int base;               /* the cursor's column of the capture's first */
} LabCapture;

static void lab_clear(LabCursor *c) {
  for (int i = 0; i < c->ncols; i++) {
    sqlite3_free(c->cols[i].name);
    sqlite3_free(c->cols[i].logical);
    for (int e = 0; e < PQ_ENCODING_COUNT; e++) sqlite3_free(c->cols[i].why[e]);
    pq_lab_column_free(c->cols[i].lc);
  }
  sqlite3_free(c->cols);
  sqlite3_free(c->rows);
  c->cols = NULL;
  c->rows = NULL;
  c->ncols = 0;
  c->nrows = c->cap = c->at = 0;
}

static void lab_ask_free(LabAsk *a) { pq_lab_options_free(a); }

/* ---- The capture ------------------------------------------------------- */

static int lab_cap_column(void *ctx, int col, const char *name, int nested,
                          const pq_params *p, const pq_write_options *o,
                          int *keep, pq_error *err) {
  LabCapture *k = ctx;
  LabCursor *c = k->cur;
  *keep = 0;
  col += k->base;
  if (col != c->ncols) { /* (the columns come in order) */
    err->code = PQ_MISUSE;
    snprintf(err->msg, sizeof err->msg, "columns out of order");
    return PQ_MISUSE;
  }
  LabCol *cols = sqlite3_realloc64(c->cols, (size_t)(col + 1) * sizeof *cols);
  if (!cols) return PQ_NOMEM;
  c->cols = cols;
  LabCol *lc = &cols[col];
  memset(lc, 0, sizeof *lc);
  lc->name = sqlite3_mprintf("%s", name);
  if (!lc->name) return PQ_NOMEM;
  c->ncols++;
  lc->type = p->type;
  int wanted = !k->ask->names;
  for (int i = 0; i < k->ask->nnames && !wanted; i++)
    wanted = strcmp(k->ask->names[i], name) == 0;
  if (nested || !wanted) return PQ_OK;
  int rc = pq_lab_column_new(&lc->lc, p, o, err);
  if (rc == PQ_OK) *keep = 1;
  return rc;
}

static int lab_cap_batch(void *ctx, int col, const void *values,
                         const uint8_t *present, size_t n, pq_error *err) {
  LabCapture *k = ctx;
  col += k->base;
  if (col < 0 || col >= k->cur->ncols || !k->cur->cols[col].lc) return PQ_OK;
  return pq_lab_column_put(k->cur->cols[col].lc, values, present, n, err);
}

static int lab_cap_group(void *ctx, pq_error *err) {
  LabCapture *k = ctx;
  for (int i = 0; i < k->cur->ncols; i++) {
    if (!k->cur->cols[i].lc) continue;
    int rc = pq_lab_column_end_group(k->cur->cols[i].lc, err);
    if (rc) return rc;
  }
  return PQ_OK;
}

/* ---- Options ------------------------------------------------------------ */

/* A message of parquet_write's, as this function's own: its name first. */
static char *lab_own(char *m) {
  if (!m || m == PQX_W_NOMEM) return m;
  size_t n = strlen(FN);
  if (strncmp(m, FN, n) != 0) return m;
  char *r = sqlite3_mprintf(LAB_FN "%s", m + n);
  sqlite3_free(m);
  return r ? r : PQX_W_NOMEM;
}

/* The options: the lab's own keys into a, the rest (parquet_write's) into
** a->pass. */
static char *lab_options(const char *opts, int n, LabAsk *a) {
  pq_error err = {0};
  int rc = pq_lab_options_parse(a, opts, n > 0 ? (size_t)n : 0, &err);
  if (rc == PQ_NOMEM) return PQX_W_NOMEM;
  if (rc) return pqx_w_msg(LAB_FN ": %s", err.msg);
  return NULL;
}

/* ---- The rows ------------------------------------------------------------ */

static int lab_add(LabCursor *c, const LabRow *r) {
  if (c->nrows == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 64;
    LabRow *rows = sqlite3_realloc64(c->rows, cap * sizeof *rows);
    if (!rows) return SQLITE_NOMEM;
    c->rows = rows;
    c->cap = cap;
  }
  c->rows[c->nrows++] = *r;
  return SQLITE_OK;
}

static char *lab_core(int rc, const pq_error *err, const char *col) {
  if (rc == PQ_NOMEM) return PQX_W_NOMEM;
  return pqx_w_msg(LAB_FN ": column '%s': %s", col, err->msg);
}

/* The logical type of the column, as parquet_schema spells it, from the
** file image of the column alone. */
static char *lab_logical(LabCol *col, const pq_buf *image) {
  pq_file *f;
  pq_error err = {0};
  int rc = pq_file_open(&f, image->data, image->len, &err);
  if (rc) return lab_core(rc, &err, col->name);
  char *msg = NULL;
  const pq_schema_node *leaf =
      pq_file_leaf_count(f) > 0 ? pq_file_leaf(f, 0) : NULL;
  if (leaf && leaf->elem->logical_type) {
    col->logical = pqx_logical_text(leaf->elem);
    if (!col->logical) msg = PQX_W_NOMEM;
  }
  pq_file_free(f);
  return msg;
}

static double lab_mbs(int64_t plain, double s) {
  if (s < 0 || plain <= 0) return -1;
  if (s < 1e-9) s = 1e-9;
  return (double)plain / s / 1e6;
}

/* The figures of encoding e for the column, kept with it. */
static char *lab_why(LabCol *col, int e) {
  pq_buf b;
  pq_buf_init(&b);
  pq_error err = {0};
  int rc = pq_lab_why(col->lc, (pq_encoding)e, &b, &err);
  char *msg = NULL;
  if (rc) {
    msg = lab_core(rc, &err, col->name);
  } else {
    col->why[e] = sqlite3_malloc64(b.len + 1);
    if (!col->why[e]) {
      msg = PQX_W_NOMEM;
    } else {
      if (b.len) memcpy(col->why[e], b.data, b.len);
      col->why[e][b.len] = 0;
    }
  }
  pq_buf_free(&b);
  return msg;
}

/* ---- Measuring the columns ----------------------------------------------
** The rows come from jobs: each column's encodings' trials under every
** codec (and level) asked for, the column written once per encoding
** (pq_lab_runs), with the encoding's values_bytes; auto's pick for each
** codec; and, for a column without a row of PLAIN uncompressed, that trial
** alone, the measure of ratios.  The jobs of the columns being measured
** run two at a time, on the calling thread and on a worker, each thread
** taking the next job not yet taken: the trials first, the likely
** costliest first (by the column's PLAIN size, less for the encodings that
** make it much smaller), then the small jobs, which fill in while the
** last trials end.  Each job runs on one thread, so that each speed is
** measured on one.  The worker calls only the core (which allocates with
** SQLite's allocator: only when SQLite is threadsafe is there a worker).
** The rows are made once all the jobs are done, in the same order
** whatever ran where. */

enum { LAB_JOB_TRIALS, LAB_JOB_BASE, LAB_JOB_AUTO };

/* One column's part. */
typedef struct LabWork {
  int ci;                 /* the cursor's column */
  pq_lab_column *lc;
  double min_time;
  int64_t rows, nvalues, plain;
  int nk;                 /* the codecs (and levels) of the rows, in order */
  pq_codec *codecs;
  int *levels, *has_level, *picked;
  int unc;                /* the row codec that is UNCOMPRESSED; -1: none */
  int tried[PQ_ENCODING_COUNT];
  int ntried, need_base;
  pq_lab_result *res;     /* [encoding * nk + k] */
  int64_t vbytes[PQ_ENCODING_COUNT];
  pq_lab_result base;     /* PLAIN, uncompressed, when no row is */
} LabWork;

typedef struct LabJob {
  LabWork *w;
  int kind;
  int which;              /* TRIALS: the encoding; AUTO: the codec's index */
  double cost;            /* what the order goes by */
  int at;                 /* its place before the order (ties) */
  int rc;
  pq_error err;
} LabJob;

typedef struct LabPool {
  LabJob *jobs;
  int njobs;
  atomic_int next;        /* the next job to take */
  atomic_int failed;      /* a job failed: none more is taken */
} LabPool;

static void lab_job_run(LabPool *pool, LabJob *j) {
  LabWork *w = j->w;
  int rc;
  if (j->kind == LAB_JOB_TRIALS) {
    rc = pq_lab_values_bytes(w->lc, (pq_encoding)j->which,
                             &w->vbytes[j->which], &j->err);
    if (rc == PQ_OK)
      rc = pq_lab_runs(w->lc, pq_encoding_name((pq_encoding)j->which), w->nk,
                       w->codecs, w->levels, w->min_time,
                       &w->res[(size_t)j->which * (size_t)w->nk], &j->err);
  } else if (j->kind == LAB_JOB_AUTO) {
    rc = pq_lab_auto_pick(w->lc, w->codecs[j->which], w->levels[j->which],
                          &w->picked[j->which], &j->err);
  } else {
    rc = pq_lab_run(w->lc, "PLAIN", PQ_UNCOMPRESSED, PQ_LEVEL_DEFAULT, 0,
                    &w->base, &j->err);
  }
  j->rc = rc;
  if (rc) atomic_store(&pool->failed, 1);
}

/* Takes jobs until none is left (or one failed). */
static void lab_jobs(LabPool *pool) {
  while (!atomic_load(&pool->failed)) {
    int i = atomic_fetch_add(&pool->next, 1);
    if (i >= pool->njobs) break;
    lab_job_run(pool, &pool->jobs[i]);
  }
}

static void *lab_worker(void *arg) {
  lab_jobs(arg);
  return NULL;
}

/* The trials first, the costliest first; then the rest, as they came. */
static int lab_job_cmp(const void *x, const void *y) {
  const LabJob *a = x, *b = y;
  if (a->kind != b->kind) return a->kind - b->kind;
  if (a->cost != b->cost) return a->cost > b->cost ? -1 : 1;
  return a->at - b->at;
}

/* How much of the column's PLAIN size encoding e's pages are likely to
** take: the trial's cost is mostly its codecs' work on them. */
static double lab_weight(int e) {
  switch (e) {
    case PQ_DELTA_BINARY_PACKED:
    case PQ_ALP: return 0.3;
    case PQ_GROUP_VAR_INT:
    case PQ_DELTA_BYTE_ARRAY: return 0.6;
    default: return 1; /* a dictionary too: large ones fall back to PLAIN */
  }
}

static void lab_work_free(LabWork *w) {
  sqlite3_free(w->codecs);
  sqlite3_free(w->levels);
  sqlite3_free(w->has_level);
  sqlite3_free(w->picked);
  sqlite3_free(w->res);
}

/* Sets w up for the cursor's column ci: its logical type, its rows'
** codecs and encodings. */
static char *lab_prepare(LabCursor *cur, int ci, const LabAsk *a,
                         LabWork *w) {
  LabCol *col = &cur->cols[ci];
  pq_lab_column *lc = col->lc;
  pq_error err = {0};
  w->ci = ci;
  w->lc = lc;
  w->min_time = a->min_time;
  w->unc = -1;
  pq_lab_column_end(lc);
  pq_lab_column_counts(lc, &w->rows, &w->nvalues, &w->plain);
  /* the logical type, from the schema of a file of the column */
  pq_buf image;
  pq_buf_init(&image);
  int rc = pq_lab_schema_file(lc, &image, &err);
  char *msg = rc ? lab_core(rc, &err, col->name) : lab_logical(col, &image);
  pq_buf_free(&image);
  if (msg) return msg;
  /* the rows' codecs and levels, in the rows' order: counted, then kept */
  for (int pass = 0; pass < 2; pass++) {
    if (pass) {
      size_t n = w->nk ? (size_t)w->nk : 1;
      w->codecs = sqlite3_malloc64(n * sizeof *w->codecs);
      w->levels = sqlite3_malloc64(n * sizeof *w->levels);
      w->has_level = sqlite3_malloc64(n * sizeof *w->has_level);
      w->picked = sqlite3_malloc64(n * sizeof *w->picked);
      if (!w->codecs || !w->levels || !w->has_level || !w->picked)
        return PQX_W_NOMEM;
      w->nk = 0;
    }
    for (int k = 0; k < PQ_CODEC_COUNT; k++) {
      if (!pq_codec_available((pq_codec)k)) continue;
      if (a->codecs && !(a->codecs >> k & 1)) continue;
      pq_codec_info info;
      pq_codec_describe((pq_codec)k, &info);
      int nl = a->levels && info.has_levels ? a->nlevels : 1;
      for (int li = 0; li < nl; li++) {
        int has_level = a->levels && info.has_levels;
        int level = has_level ? a->levels[li] : PQ_LEVEL_DEFAULT;
        /* a level outside the codec's range has no row */
        if (has_level && (level < info.min_level || level > info.max_level))
          continue;
        if (pass) {
          if (k == PQ_UNCOMPRESSED && !has_level) w->unc = w->nk;
          w->codecs[w->nk] = (pq_codec)k;
          w->levels[w->nk] = level;
          w->has_level[w->nk] = has_level;
          w->picked[w->nk] = -1;
        }
        w->nk++;
      }
    }
  }
  for (int e = 0; e < PQ_ENCODING_COUNT; e++) {
    /* PLAIN_DICTIONARY is written as RLE_DICTIONARY; BIT_PACKED is only
    ** ever levels */
    w->tried[e] = e != PQ_PLAIN_DICTIONARY && e != PQ_BIT_PACKED &&
                  pq_encoding_supports((pq_encoding)e, col->type) &&
                  (!a->encodings || (a->encodings >> e & 1));
    w->ntried += w->tried[e];
  }
  w->need_base = !w->tried[PQ_PLAIN] || w->unc < 0;
  if (w->nk) {
    w->res = sqlite3_malloc64((size_t)PQ_ENCODING_COUNT * (size_t)w->nk *
                              sizeof *w->res);
    if (!w->res) return PQX_W_NOMEM;
  }
  return NULL;
}

/* The rows of w's column, from its jobs' results; then its encodings'
** figures. */
static char *lab_rows(LabCursor *cur, const LabWork *w) {
  LabCol *col = &cur->cols[w->ci];
  char *msg = NULL;
  const pq_lab_result *base =
      w->need_base ? &w->base
                   : &w->res[(size_t)PQ_PLAIN * (size_t)w->nk + (size_t)w->unc];
  for (int k = 0; k < w->nk && !msg; k++) {
    for (int e = 0; e < PQ_ENCODING_COUNT && !msg; e++) {
      if (!w->tried[e]) continue;
      const pq_lab_result *r = &w->res[(size_t)e * (size_t)w->nk + (size_t)k];
      LabRow row;
      memset(&row, 0, sizeof row);
      row.col = w->ci;
      row.enc = (pq_encoding)e;
      row.codec = w->codecs[k];
      row.level = w->levels[k];
      row.has_level = w->has_level[k];
      row.bytes = r->bytes;
      row.values_bytes = w->vbytes[e];
      row.pages = r->pages;
      row.ratio = base->bytes > 0 ? (double)r->bytes / (double)base->bytes : 1;
      row.bits = w->nvalues > 0 ? 8.0 * (double)r->bytes / (double)w->nvalues
                                : -1;
      row.is_auto = w->picked[k] == e;
      row.readers = pq_auto_tries((pq_encoding)e, col->type, 0);
      row.enc_mbs = lab_mbs(w->plain, r->encode_s);
      row.dec_mbs = lab_mbs(w->plain, r->decode_s);
      row.enc_spread = r->encode_spread;
      row.dec_spread = r->decode_spread;
      if (lab_add(cur, &row)) msg = PQX_W_NOMEM;
    }
  }
  /* the encodings' figures, once the trials have written them */
  for (int e = 0; e < PQ_ENCODING_COUNT && !msg; e++)
    if (w->tried[e]) msg = lab_why(col, e);
  return msg;
}

/* Runs the jobs of the nw columns of works, two at a time (one with
** "threads":1); the first fault, by column, then by job, as a message. */
static char *lab_run_jobs(LabCursor *cur, LabWork *works, int nw,
                          const LabAsk *a) {
  size_t n = 0;
  for (int i = 0; i < nw; i++)
    n += (size_t)works[i].ntried + (size_t)works[i].need_base +
         (size_t)works[i].nk;
  LabPool pool;
  memset(&pool, 0, sizeof pool);
  pool.jobs = sqlite3_malloc64((n ? n : 1) * sizeof *pool.jobs);
  if (!pool.jobs) return PQX_W_NOMEM;
  for (int i = 0; i < nw; i++) {
    LabWork *w = &works[i];
    for (int e = 0; e < PQ_ENCODING_COUNT; e++) {
      if (!w->tried[e]) continue;
      LabJob *j = &pool.jobs[pool.njobs];
      memset(j, 0, sizeof *j);
      j->w = w;
      j->kind = LAB_JOB_TRIALS;
      j->which = e;
      j->cost = (double)w->plain * lab_weight(e);
      j->at = pool.njobs++;
    }
    if (w->need_base) {
      LabJob *j = &pool.jobs[pool.njobs];
      memset(j, 0, sizeof *j);
      j->w = w;
      j->kind = LAB_JOB_BASE;
      j->at = pool.njobs++;
    }
    for (int k = 0; k < w->nk; k++) {
      LabJob *j = &pool.jobs[pool.njobs];
      memset(j, 0, sizeof *j);
      j->w = w;
      j->kind = LAB_JOB_AUTO;
      j->which = k;
      j->at = pool.njobs++;
    }
  }
  qsort(pool.jobs, (size_t)pool.njobs, sizeof *pool.jobs, lab_job_cmp);
  atomic_init(&pool.next, 0);
  atomic_init(&pool.failed, 0);
  pthread_t th;
  int threaded = a->threads != 1 && pool.njobs > 1 && sqlite3_threadsafe() &&
                 pthread_create(&th, NULL, lab_worker, &pool) == 0;
  lab_jobs(&pool);
  if (threaded) pthread_join(th, NULL);
  /* every job before a failed one in the order ran: the fault of the
  ** first column, its first in the order */
  const LabJob *bad = NULL;
  for (int i = 0; i < pool.njobs; i++) {
    const LabJob *j = &pool.jobs[i];
    if (j->rc && (!bad || j->w->ci < bad->w->ci)) bad = j;
  }
  char *msg = bad ? lab_core(bad->rc, &bad->err, cur->cols[bad->w->ci].name)
                  : NULL;
  sqlite3_free(pool.jobs);
  return msg;
}

/* The rows of the columns from the cursor's column `from` on; their
** values let go of once their rows are made. */
static char *lab_measure(LabCursor *c, int from, const LabAsk *a) {
  int nw = 0;
  for (int i = from; i < c->ncols; i++) nw += c->cols[i].lc != NULL;
  LabWork *works = sqlite3_malloc64((size_t)(nw ? nw : 1) * sizeof *works);
  if (!works) return PQX_W_NOMEM;
  memset(works, 0, (size_t)(nw ? nw : 1) * sizeof *works);
  char *msg = NULL;
  int k = 0;
  for (int i = from; i < c->ncols && !msg; i++)
    if (c->cols[i].lc) msg = lab_prepare(c, i, a, &works[k++]);
  if (!msg) msg = lab_run_jobs(c, works, nw, a);
  for (int i = 0; i < nw && !msg; i++) msg = lab_rows(c, &works[i]);
  for (int i = 0; i < k; i++) lab_work_free(&works[i]);
  sqlite3_free(works);
  for (int i = from; i < c->ncols; i++) {
    pq_lab_column_free(c->cols[i].lc);
    c->cols[i].lc = NULL;
  }
  return msg;
}

/* ---- The table ------------------------------------------------------------- */

static int labOpen(sqlite3_vtab *v, sqlite3_vtab_cursor **pp) {
  (void)v;
  LabCursor *c = pqx_cursor_new(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  *pp = &c->base;
  return SQLITE_OK;
}

static int labClose(sqlite3_vtab_cursor *cur) {
  lab_clear((LabCursor *)cur);
  sqlite3_free(cur);
  return SQLITE_OK;
}

static sqlite3_module labFileModule;

/* xFilter's fault: into the table's message, or SQLITE_NOMEM. */
static int lab_fail(sqlite3_vtab_cursor *cur, char *msg) {
  msg = lab_own(msg);
  if (msg == PQX_W_NOMEM) return SQLITE_NOMEM;
  /* parquet_lab_file's messages: under its name */
  size_t n = strlen(LAB_FN);
  if (msg && cur->pVtab->pModule == &labFileModule &&
      strncmp(msg, LAB_FN ":", n + 1) == 0) {
    char *r = sqlite3_mprintf(LAB_FILE_FN "%s", msg + n);
    sqlite3_free(msg);
    if (!r) return SQLITE_NOMEM;
    msg = r;
  }
  sqlite3_free(cur->pVtab->zErrMsg);
  cur->pVtab->zErrMsg = msg;
  return SQLITE_ERROR;
}

/* parquet_lab: the query's columns, captured at once. */
static char *lab_query(sqlite3 *db, LabCursor *c, const LabAsk *a,
                       const char *sql) {
  LabCapture k = {c, a, 0};
  pqx_capture cap = {&k, lab_cap_column, lab_cap_batch, lab_cap_group};
  pqx_capture_rows rows;
  memset(&rows, 0, sizeof rows);
  rows.sql = sql;
  rows.first = a->first;
  rows.every = a->every;
  char *msg = pqx_write_capture(db, &rows, a->pass, &cap);
  for (int i = 0; i < a->nnames && !msg; i++) {
    int found = 0;
    for (int j = 0; j < c->ncols && !found; j++)
      found = strcmp(c->cols[j].name, a->names[i]) == 0;
    if (!found)
      msg = pqx_w_msg(LAB_FN ": options: columns: the query has no column "
                             "\"%s\"",
                      a->names[i]);
  }
  return msg ? msg : lab_measure(c, 0, a);
}

/* parquet_lab_file: the file's flat columns (lab_file.c), captured and
** measured one at a time. */
static char *lab_file(sqlite3 *db, LabCursor *c, const LabAsk *a,
                      sqlite3_value *source) {
  pqx_lab_file *f;
  char *msg = pqx_lab_file_open(db, source, LAB_FILE_FN, &f);
  if (msg) return msg;
  int n = pqx_lab_file_columns(f);
  for (int i = 0; i < a->nnames && !msg; i++) {
    int found = 0;
    for (int j = 0; j < n && !found; j++)
      found = strcmp(pqx_lab_file_name(f, j), a->names[i]) == 0;
    if (!found)
      msg = pqx_w_msg(LAB_FN ": options: columns: the file has no column "
                             "\"%s\"",
                      a->names[i]);
  }
  for (int i = 0; i < n && !msg; i++) {
    int wanted = !a->names;
    for (int j = 0; j < a->nnames && !wanted; j++)
      wanted = strcmp(a->names[j], pqx_lab_file_name(f, i)) == 0;
    if (!wanted || pqx_lab_file_nested(f, i)) continue;
    LabCapture k = {c, a, c->ncols};
    pqx_capture cap = {&k, lab_cap_column, lab_cap_batch, lab_cap_group};
    pqx_capture_rows rows;
    memset(&rows, 0, sizeof rows);
    msg = pqx_lab_file_rows(f, i, &rows);
    rows.first = a->first;
    rows.every = a->every;
    if (!msg) msg = pqx_write_capture(db, &rows, a->pass, &cap);
    if (!msg) msg = lab_measure(c, k.base, a);
  }
  pqx_lab_file_free(f);
  return msg;
}

static int labFilter(sqlite3_vtab_cursor *cur, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv) {
  (void)idxStr;
  LabCursor *c = (LabCursor *)cur;
  lab_clear(c);
  sqlite3 *db = ((pqx_vtab *)cur->pVtab)->db;
  int file = cur->pVtab->pModule == &labFileModule;
  if (!(idxNum & 1) || argc < 1)
    return lab_fail(cur, file ? pqx_w_msg(LAB_FILE_FN ": the source is "
                                          "required: " LAB_FILE_FN
                                          "(source [, options])")
                              : pqx_w_msg(LAB_FN ": the query is required: "
                                          "parquet_lab(query [, options])"));
  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {
    if (file) return SQLITE_OK; /* no file, no rows */
    return lab_fail(cur, pqx_w_msg(LAB_FN ": the query is NULL"));
  }
  const char *sql = NULL;
  if (!file) {
    sql = (const char *)sqlite3_value_text(argv[0]);
    if (!sql) return SQLITE_NOMEM;
  }
  LabAsk a;
  memset(&a, 0, sizeof a);
  a.min_time = LAB_MIN_TIME;
  char *msg = NULL;
  if ((idxNum & 2) && argc > 1 && sqlite3_value_type(argv[1]) != SQLITE_NULL) {
    const char *opts = (const char *)sqlite3_value_text(argv[1]);
    msg = opts ? lab_options(opts, sqlite3_value_bytes(argv[1]), &a)
               : PQX_W_NOMEM;
  }
  if (!msg) msg = file ? lab_file(db, c, &a, argv[0]) : lab_query(db, c, &a, sql);
  lab_ask_free(&a);
  if (msg) {
    lab_clear(c);
    return lab_fail(cur, msg);
  }
  return SQLITE_OK;
}

static int labNext(sqlite3_vtab_cursor *cur) {
  ((LabCursor *)cur)->at++;
  return SQLITE_OK;
}

static int labEof(sqlite3_vtab_cursor *cur) {
  LabCursor *c = (LabCursor *)cur;
  return c->at >= c->nrows;
}

static int labColumn(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i) {
  LabCursor *c = (LabCursor *)cur;
  if (c->at >= c->nrows) return SQLITE_OK;
  const LabRow *r = &c->rows[c->at];
  const LabCol *col = &c->cols[r->col];
  switch (i) {
    case LAB_COL_COLUMN:
      sqlite3_result_text(ctx, col->name, -1, SQLITE_TRANSIENT);
      break;
    case LAB_COL_PHYSICAL:
      sqlite3_result_text(ctx, pq_type_name(col->type), -1, SQLITE_STATIC);
      break;
    case LAB_COL_LOGICAL:
      if (col->logical)
        sqlite3_result_text(ctx, col->logical, -1, SQLITE_TRANSIENT);
      break;
    case LAB_COL_ENCODING:
      sqlite3_result_text(ctx, pq_encoding_name(r->enc), -1, SQLITE_STATIC);
      break;
    case LAB_COL_CODEC:
      sqlite3_result_text(ctx, pq_codec_name(r->codec), -1, SQLITE_STATIC);
      break;
    case LAB_COL_LEVEL:
      if (r->has_level) sqlite3_result_int(ctx, r->level);
      break;
    case LAB_COL_BYTES: sqlite3_result_int64(ctx, r->bytes); break;
    case LAB_COL_VALUES_BYTES: sqlite3_result_int64(ctx, r->values_bytes); break;
    case LAB_COL_RATIO: sqlite3_result_double(ctx, r->ratio); break;
    case LAB_COL_BITS:
      if (r->bits >= 0) sqlite3_result_double(ctx, r->bits);
      break;
    case LAB_COL_PAGES: sqlite3_result_int64(ctx, r->pages); break;
    case LAB_COL_AUTO: sqlite3_result_int(ctx, r->is_auto); break;
    case LAB_COL_READERS: sqlite3_result_int(ctx, r->readers); break;
    case LAB_COL_ENCODE:
      if (r->enc_mbs >= 0) sqlite3_result_double(ctx, r->enc_mbs);
      break;
    case LAB_COL_DECODE:
      if (r->dec_mbs >= 0) sqlite3_result_double(ctx, r->dec_mbs);
      break;
    case LAB_COL_WHY:
      if (col->why[r->enc])
        sqlite3_result_text(ctx, col->why[r->enc], -1, SQLITE_TRANSIENT);
      break;
    case LAB_COL_ENCODE_SPREAD:
      if (r->enc_spread >= 0) sqlite3_result_double(ctx, r->enc_spread);
      break;
    case LAB_COL_DECODE_SPREAD:
      if (r->dec_spread >= 0) sqlite3_result_double(ctx, r->dec_spread);
      break;
    default: break; /* the arguments: not kept */
  }
  return SQLITE_OK;
}

static int labRowid(sqlite3_vtab_cursor *cur, sqlite_int64 *pRowid) {
  *pRowid = (sqlite_int64)((LabCursor *)cur)->at + 1;
  return SQLITE_OK;
}

/* idxNum: bit 0 the query is given (argv[0]), bit 1 the options (next). */
static int labBestIndex(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  int where[2] = {-1, -1};
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *k = &info->aConstraint[i];
    if (!k->usable || k->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (k->iColumn == LAB_COL_QUERY) where[0] = i;
    if (k->iColumn == LAB_COL_OPTIONS) where[1] = i;
  }
  int n = 0;
  info->idxNum = 0;
  for (int j = 0; j < 2; j++) {
    if (where[j] < 0) continue;
    info->idxNum |= 1 << j;
    info->aConstraintUsage[where[j]].argvIndex = ++n;
    info->aConstraintUsage[where[j]].omit = 1;
  }
  info->estimatedCost = (info->idxNum & 1) ? 1e6 : 1e12;
  info->estimatedRows = 100;
  return SQLITE_OK;
}

/* The two tables' modules: the same methods, two objects, so that a
** cursor tells which table it is of by its module. */
#define LAB_MODULE                                                  \
  {                                                                 \
    .xConnect = pqx_vtab_connect, .xBestIndex = labBestIndex,       \
    .xDisconnect = pqx_vtab_disconnect, .xOpen = labOpen,           \
    .xClose = labClose, .xFilter = labFilter, .xNext = labNext,     \
    .xEof = labEof, .xColumn = labColumn, .xRowid = labRowid,       \
  }

static sqlite3_module labModule = LAB_MODULE;

int pqx_register_lab(sqlite3 *db) {
  return sqlite3_create_module(db, LAB_FN, &labModule, (void *)&lab_spec);
}

/* parquet_lab_file(source [, options]): the same rows of a file's columns
** (lab_file.c); the source in the query's place. */
#define LAB_FILE_SCHEMA LAB_COLUMNS "source HIDDEN, options HIDDEN)"

static const pqx_vtab_spec lab_file_spec = {LAB_FILE_SCHEMA, 1};

static sqlite3_module labFileModule = LAB_MODULE;

int pqx_register_lab_file(sqlite3 *db) {
  return sqlite3_create_module(db, LAB_FILE_FN, &labFileModule,
                               (void *)&lab_file_spec);
}
