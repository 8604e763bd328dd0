/*
** unit_writer.c -- the file writer of the core (src/writer/writer.c), read back
** by the file reader.
**
**   1. seeded random columns of every encoding x type a data page may
**      use, v1 and v2 pages, every codec of the build, nullable or not,
**      random page and row group bounds: every entry and value read back,
**      the footer's counts, each chunk's statistics against the source
**   2. statistics where floating point is subtle: NaN left out, zeros
**      signed as the spec asks, a column of only NaN without bounds
**   3. pages close near page_size; page_values and row_group_size exact
**   4. errors: encodings and types a page may not use, codecs this build
**      lacks, a NULL where the column is REQUIRED, a writer used after it
**      failed; the options' parser
**   5. nested columns from their types' names and JSON values
**      (writer/nested.c), and the faults a value or a type can have
**
** Prints a line per failure starting with "!" and ends with
** "N passed, N failed".
*/
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet.h"

#define CHECK_SEED 0x77e17e5
#include "check.h"

/* ---- A source column ---------------------------------------------------- */

typedef struct column {
  pq_type type;
  int32_t type_length;
  size_t n;          /* entries */
  uint8_t *present;  /* per entry */
  size_t nv;         /* values (present entries) */
  uint8_t *values;   /* laid out as for the type */
  uint8_t *heap;     /* BYTE_ARRAY bytes */
} column;

static void column_free(column *c) {
  free(c->present);
  free(c->values);
  free(c->heap);
}

/* n entries of type t, NULL with probability nulls/8, values from a small
** or a wide domain. */
static void column_make(column *c, pq_type t, int32_t tl, size_t n, int nulls) {
  memset(c, 0, sizeof *c);
  c->type = t;
  c->type_length = tl;
  c->n = n;
  c->present = malloc(n + 1);
  size_t vs = pq_value_size(t, tl);
  c->values = malloc(n * vs + 1);
  c->heap = malloc(n * 48 + 1);
  size_t heap = 0;
  int shape = rnd() % 3;
  int small = shape == 0; /* few distinct values: dictionaries, runs */
  int tails = shape == 2; /* byte arrays alike but for their last bytes
                          ** (bounds compared past a long prefix) */
  for (size_t i = 0; i < n; i++) {
    c->present[i] = !(nulls && rnd() % 8 < (uint64_t)nulls);
    if (!c->present[i]) continue;
    uint64_t r = small ? rnd() % 7 : rnd();
    uint8_t *v = c->values + c->nv * vs;
    switch (t) {
      case PQ_BOOLEAN: *v = (uint8_t)(r & 1); break;
      case PQ_INT32: {
        int32_t x = (int32_t)(uint32_t)r;
        memcpy(v, &x, 4);
        break;
      }
      case PQ_INT64: {
        int64_t x = (int64_t)r;
        memcpy(v, &x, 8);
        break;
      }
      case PQ_FLOAT: {
        float x = (float)((int64_t)(r % 20001) - 10000) / 16.0f;
        memcpy(v, &x, 4);
        break;
      }
      case PQ_DOUBLE: {
        double x = small ? (double)r - 3 : ((int64_t)(r >> 11) - (1ll << 52)) / 1024.0;
        memcpy(v, &x, 8);
        break;
      }
      case PQ_BYTE_ARRAY: {
        pq_bytes b;
        static const uint8_t edge[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
        size_t len = small ? r % 3 : tails ? r % 41 : r % 24;
        b.ptr = c->heap + heap;
        for (size_t k = 0; k < len; k++)
          c->heap[heap + k] =
              (uint8_t)(small ? 'a' + r % 5
                        : tails ? (k + 3 < len ? 'p' + k % 3 : edge[rnd() % 6])
                                : rnd());
        heap += len;
        b.len = len;
        memcpy(v, &b, sizeof b);
        break;
      }
      default:
        for (size_t k = 0; k < vs; k++)
          v[k] = (uint8_t)(small ? (r + k) % 3 : rnd());
    }
    c->nv++;
  }
}

/* ---- Reading back -------------------------------------------------------- */

static const uint8_t *value_bytes(const column *c, const uint8_t *v,
                                  size_t *len) {
  if (c->type == PQ_BYTE_ARRAY) {
    const pq_bytes *b = (const pq_bytes *)v;
    *len = b->len;
    return b->ptr;
  }
  *len = pq_value_size(c->type, c->type_length);
  return v;
}

/* Compares two values in the type's order (INT96: bytes). */
static int value_cmp(const column *c, const uint8_t *a, const uint8_t *b) {
  switch (c->type) {
    case PQ_BOOLEAN: return (int)*a - (int)*b;
    case PQ_INT32: {
      int32_t x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return x < y ? -1 : x > y;
    }
    case PQ_INT64: {
      int64_t x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return x < y ? -1 : x > y;
    }
    case PQ_FLOAT: {
      float x, y;
      memcpy(&x, a, 4);
      memcpy(&y, b, 4);
      return x < y ? -1 : x > y;
    }
    case PQ_DOUBLE: {
      double x, y;
      memcpy(&x, a, 8);
      memcpy(&y, b, 8);
      return x < y ? -1 : x > y;
    }
    case PQ_INT96: { /* INT96_TIMESTAMP_ORDER: the day, then the nanos */
      int32_t da, db;
      int64_t na, nb;
      memcpy(&da, a + 8, 4);
      memcpy(&db, b + 8, 4);
      memcpy(&na, a, 8);
      memcpy(&nb, b, 8);
      if (da != db) return da < db ? -1 : 1;
      return na < nb ? -1 : na > nb;
    }
    default: {
      size_t na, nb;
      const uint8_t *pa = value_bytes(c, a, &na), *pb = value_bytes(c, b, &nb);
      size_t m = na < nb ? na : nb;
      int r = m ? memcmp(pa, pb, m) : 0;
      return r ? r : (na < nb ? -1 : na > nb);
    }
  }
}

/* The PLAIN bytes of one value, as statistics hold them. */
static size_t plain_of(const column *c, const uint8_t *v, uint8_t *out) {
  size_t n;
  const uint8_t *p = value_bytes(c, v, &n);
  if (n > 64) n = 64;
  memcpy(out, p, n);
  return n;
}

static int bytes_eq(pq_bytes b, const uint8_t *p, size_t n) {
  return b.len == n && (n == 0 || memcmp(b.ptr, p, n) == 0);
}

/* Reads the file back and checks it against the source column; the chunks
** hold rows_per_group rows (the last fewer). */
static void check_file(const char *what, const column *c, const pq_buf *file,
                       int nullable, int64_t rows_per_group, uint32_t leaf_i) {
  pq_file *f;
  pq_error err = {0};
  int rc = pq_file_open(&f, file->data, file->len, &err);
  CHECK(rc == PQ_OK, "%s: open: %s", what, err.msg);
  if (rc) return;
  const pq_file_meta *m = pq_file_metadata(f);
  CHECK(m->num_rows == (int64_t)c->n, "%s: %lld rows, not %zu", what,
        (long long)m->num_rows, c->n);
  int64_t want_groups =
      c->n == 0 ? 0
      : rows_per_group > 0
          ? ((int64_t)c->n + rows_per_group - 1) / rows_per_group
          : 1;
  CHECK(m->n_row_groups == (uint32_t)want_groups, "%s: %u row groups, not %lld",
        what, m->n_row_groups, (long long)want_groups);
  const pq_schema_node *leaf = pq_file_leaf(f, leaf_i);
  CHECK(leaf && leaf->max_def == (nullable ? 1 : 0), "%s: max_def", what);
  size_t vs = pq_value_size(c->type, c->type_length);
  uint8_t *vals = malloc(256 * vs);
  uint16_t def[256];
  size_t entry = 0, value = 0;
  int bad = 0;
  for (uint32_t g = 0; g < m->n_row_groups && !bad; g++) {
    const pq_column_chunk *cc = &m->row_groups[g].columns[leaf_i];
    size_t first_value = value;
    int64_t nulls = 0;
    pq_column_reader *r;
    rc = pq_column_reader_open(&r, f, g, leaf_i, (size_t)1 << 30, &err);
    CHECK(rc == PQ_OK, "%s: rg %u: %s", what, g, err.msg);
    if (rc) break;
    for (;;) {
      size_t n, nv;
      rc = pq_column_reader_read(r, 256, NULL, def, vals, &n, &nv, &err);
      if (rc || n == 0) break;
      size_t k = 0;
      for (size_t i = 0; i < n && !bad; i++, entry++) {
        int here = entry < c->n && c->present[entry];
        if ((nullable ? def[i] == 1 : 1) != here) {
          CHECK(0, "%s: entry %zu: present %d, read %d", what, entry, here,
                def[i]);
          bad = 1;
          break;
        }
        if (!here) {
          nulls++;
          continue;
        }
        size_t la, lb;
        const uint8_t *a = value_bytes(c, c->values + value * vs, &la);
        const uint8_t *b = value_bytes(c, vals + k * vs, &lb);
        if (la != lb || (la && memcmp(a, b, la) != 0)) {
          CHECK(0, "%s: value %zu differs", what, value);
          bad = 1;
        }
        k++;
        value++;
      }
      if (!bad && k != nv) {
        CHECK(0, "%s: %zu values read for %zu present entries", what, nv, k);
        bad = 1;
      }
    }
    pq_column_reader_free(r);
    CHECK(rc == PQ_OK, "%s: rg %u: %s", what, g, err.msg);
    if (rc || bad) break;
    /* The chunk's statistics: NULLs, and the bounds of its values. */
    const pq_statistics *st = &cc->meta.statistics;
    CHECK(cc->meta.has_statistics && st->has_null_count &&
              st->null_count == nulls,
          "%s: rg %u: null count", what, g);
    if (value == first_value) {
      CHECK(!st->has_min_value && !st->has_max_value,
            "%s: rg %u: bounds without values", what, g);
      continue;
    }
    size_t lo = first_value, hi = first_value;
    for (size_t i = first_value; i < value; i++) {
      if (value_cmp(c, c->values + i * vs, c->values + lo * vs) < 0) lo = i;
      if (value_cmp(c, c->values + i * vs, c->values + hi * vs) > 0) hi = i;
    }
    uint8_t b[64];
    size_t n = plain_of(c, c->values + lo * vs, b);
    int zero_min = 0, zero_max = 0;
    if (c->type == PQ_DOUBLE || c->type == PQ_FLOAT) {
      double x, y;
      if (c->type == PQ_DOUBLE) {
        memcpy(&x, c->values + lo * vs, 8);
        memcpy(&y, c->values + hi * vs, 8);
      } else {
        float fx, fy;
        memcpy(&fx, c->values + lo * vs, 4);
        memcpy(&fy, c->values + hi * vs, 4);
        x = fx;
        y = fy;
      }
      zero_min = x == 0;
      zero_max = y == 0;
    }
    if (!zero_min)
      CHECK(st->has_min_value && bytes_eq(st->min_value, b, n),
            "%s: rg %u: min_value", what, g);
    n = plain_of(c, c->values + hi * vs, b);
    if (!zero_max)
      CHECK(st->has_max_value && bytes_eq(st->max_value, b, n),
            "%s: rg %u: max_value", what, g);
  }
  CHECK(bad || (entry == c->n && value == c->nv),
        "%s: %zu entries and %zu values read, not %zu and %zu", what, entry,
        value, c->n, c->nv);
  free(vals);
  pq_file_free(f);
}

/* Writes the column in one call of pq_writer_put or in pieces. */
static int write_column(const column *c, const pq_params *p,
                        const pq_write_options *o, pq_buf *out,
                        pq_error *err) {
  pq_writer *w;
  int rc = pq_writer_open(&w, p, o, err);
  if (rc) return rc;
  size_t vs = pq_value_size(c->type, c->type_length);
  size_t i = 0, v = 0;
  while (i < c->n && rc == PQ_OK) {
    size_t k = 1 + rnd() % 700;
    if (k > c->n - i) k = c->n - i;
    size_t nv = 0;
    for (size_t j = 0; j < k; j++) nv += c->present[i + j];
    rc = pq_writer_put(w, c->values + v * vs, c->present + i, k, err);
    i += k;
    v += nv;
  }
  if (rc == PQ_OK) rc = pq_writer_finish(w, out, err);
  pq_writer_free(w);
  return rc;
}

/* ---- 1. Random columns --------------------------------------------------- */

static const struct {
  pq_type type;
  int32_t length;
  pq_encoding enc[6];
} matrix[] = {
    {PQ_BOOLEAN, 0, {PQ_PLAIN, PQ_RLE, PQ_PLAIN_DICTIONARY, PQ_RLE_DICTIONARY}},
    {PQ_INT32, 0, {PQ_PLAIN, PQ_RLE_DICTIONARY, PQ_DELTA_BINARY_PACKED,
                   PQ_BYTE_STREAM_SPLIT, PQ_GROUP_VAR_INT, PQ_PLAIN_DICTIONARY}},
    {PQ_INT64, 0, {PQ_PLAIN, PQ_RLE_DICTIONARY, PQ_DELTA_BINARY_PACKED,
                   PQ_BYTE_STREAM_SPLIT, PQ_GROUP_VAR_INT, PQ_PLAIN_DICTIONARY}},
    {PQ_INT96, 0, {PQ_PLAIN, PQ_RLE_DICTIONARY, PQ_PLAIN_DICTIONARY}},
    {PQ_FLOAT, 0, {PQ_PLAIN, PQ_RLE_DICTIONARY, PQ_BYTE_STREAM_SPLIT}},
    {PQ_DOUBLE, 0, {PQ_PLAIN, PQ_RLE_DICTIONARY, PQ_BYTE_STREAM_SPLIT}},
    {PQ_BYTE_ARRAY, 0, {PQ_PLAIN, PQ_RLE_DICTIONARY, PQ_DELTA_LENGTH_BYTE_ARRAY,
                        PQ_DELTA_BYTE_ARRAY, PQ_PLAIN_DICTIONARY}},
    {PQ_FIXED_LEN_BYTE_ARRAY, 7, {PQ_PLAIN, PQ_RLE_DICTIONARY,
                                  PQ_DELTA_BYTE_ARRAY, PQ_BYTE_STREAM_SPLIT}},
};

/* Under ASan, brotli's encoder takes 16 MB of memory a call (its hash
** table at quality 8), which ASan maps afresh each time: 40 ms a page,
** against 0.8 without.  Its columns there get pages of 64 KB and more. */
#if defined(__SANITIZE_ADDRESS__)
#define BROTLI_PAGE_LEAST 65536
#else
#define BROTLI_PAGE_LEAST 0
#endif

static void test_random(void) {
  static const pq_codec codecs[] = {PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_GZIP,
                                    PQ_BROTLI,       PQ_LZ4,    PQ_ZSTD,
                                    PQ_LZ4_RAW};
  int ci = 0;
  for (size_t t = 0; t < sizeof matrix / sizeof matrix[0]; t++) {
    for (size_t e = 0; e < 6; e++) {
      pq_encoding enc = matrix[t].enc[e];
      if (e > 0 && enc == PQ_PLAIN) break; /* the zeros after the list */
      for (int round = 0; round < 10; round++) {
        int nullable = round % 3 != 2;
        size_t n = round == 0 ? 0 : round == 1 ? 1 + rnd() % 5 : rnd() % 6000;
        column c;
        column_make(&c, matrix[t].type, matrix[t].length, n,
                    nullable ? (int)(rnd() % 5) : 0);
        pq_params p;
        pq_params_init(&p);
        p.encoding = enc;
        p.type = matrix[t].type;
        p.type_set = 1;
        p.type_length = matrix[t].length;
        pq_write_options o;
        pq_write_options_init(&o);
        o.nullable = nullable;
        o.page_version = 1 + round % 2;
        do {
          o.codec = codecs[ci++ % 7];
        } while (!pq_codec_available(o.codec));
        o.page_size = 64 + (int64_t)(rnd() % 4096);
        o.page_values = rnd() % 2 ? 1 + (int64_t)(rnd() % 500) : 0;
        if (o.codec == PQ_BROTLI && BROTLI_PAGE_LEAST) {
          o.page_size += BROTLI_PAGE_LEAST;
          o.page_values = 0;
        }
        o.row_group_size = rnd() % 2 ? 1 + (int64_t)(rnd() % 3000) : 0;
        char what[160];
        snprintf(what, sizeof what, "%s %s v%d %s n=%zu%s",
                 pq_type_name(p.type), pq_encoding_name(enc), o.page_version,
                 pq_codec_name(o.codec), n, nullable ? "" : " required");
        pq_buf out;
        pq_buf_init(&out);
        pq_error err = {0};
        int rc = write_column(&c, &p, &o, &out, &err);
        CHECK(rc == PQ_OK, "%s: write: %s", what, err.msg);
        if (rc == PQ_OK) check_file(what, &c, &out, nullable, o.row_group_size, 0);
        pq_buf_free(&out);
        column_free(&c);
      }
    }
  }
}

/* ---- 1b. Several columns ---------------------------------------------------
** Files of one to eight columns of random types, encodings, codecs, page
** versions and NULLs, the row groups closed by the caller every G rows and
** the file drained after some of them: every column reads back as written,
** with its statistics, and the drained pieces and the rest are the file. */

/* One lane's columns of a row group, put on a thread of its own. */
typedef struct lane_job {
  pq_writer *w;
  const column *c;
  int ncols, lane;
  size_t i, k;  /* the group's entries */
  size_t *v;    /* each column's values put so far */
  int rc;
  pq_error err;
} lane_job;

static void *lane_put(void *arg) {
  lane_job *j = arg;
  j->rc = PQ_OK;
  for (int col = 0; col < j->ncols && j->rc == PQ_OK; col++) {
    if (col % 2 != j->lane) continue;
    const column *c = &j->c[col];
    size_t vs = pq_value_size(c->type, c->type_length), nv = 0;
    for (size_t x = 0; x < j->k; x++) nv += c->present[j->i + x];
    j->rc = pq_writer_put_column(j->w, col, c->values + j->v[col] * vs,
                                 c->present + j->i, j->k, &j->err);
    j->v[col] += nv;
  }
  return NULL;
}

/* The file of test_columns written again with the odd columns in lane 1,
** put on a second thread while the first puts the even ones: the same
** bytes. */
static void check_lanes(const char *what, const column *c, int ncols,
                        size_t n, int64_t group, const pq_params *p,
                        const pq_write_options *o, const pq_buf *want) {
  pq_writer *w;
  pq_error err = {0};
  pq_buf file;
  pq_buf_init(&file);
  int rc = pq_writer_open_columns(&w, ncols, p, o, &err);
  for (int col = 0; col < ncols && rc == PQ_OK; col++)
    rc = pq_writer_set_lane(w, col, col % 2);
  size_t v[8] = {0};
  for (size_t i = 0; i < n && rc == PQ_OK; i += (size_t)group) {
    size_t k = n - i < (size_t)group ? n - i : (size_t)group;
    lane_job j[2];
    for (int l = 0; l < 2; l++) {
      memset(&j[l], 0, sizeof j[l]);
      j[l].w = w, j[l].c = c, j[l].ncols = ncols, j[l].lane = l;
      j[l].i = i, j[l].k = k, j[l].v = v;
    }
    pthread_t th;
    int threaded = pthread_create(&th, NULL, lane_put, &j[1]) == 0;
    lane_put(&j[0]);
    if (threaded) pthread_join(th, NULL);
    else lane_put(&j[1]);
    rc = j[0].rc ? j[0].rc : j[1].rc;
    if (rc) err = j[0].rc ? j[0].err : j[1].err;
    if (rc == PQ_OK) rc = pq_writer_end_row_group(w, &err);
  }
  if (rc == PQ_OK) rc = pq_writer_finish(w, &file, &err);
  pq_writer_free(w);
  CHECK(rc == PQ_OK && file.len == want->len &&
            memcmp(file.data, want->data, file.len) == 0,
        "%s: two lanes on two threads: rc %d (%s), %zu bytes against %zu", what,
        rc, err.msg, file.len, want->len);
  pq_buf_free(&file);
}

static void test_columns(void) {
  enum { MAXC = 8 };
  int fallbacks = 0, fell = 0, autos = 0;
  size_t nm = sizeof matrix / sizeof matrix[0];
  for (int round = 0; round < 60; round++) {
    int ncols = 1 + (int)(rnd() % MAXC);
    size_t n = round == 0 ? 0 : rnd() % 4000;
    int64_t group = 1 + (int64_t)(rnd() % 1500);
    column c[MAXC];
    pq_params p[MAXC];
    pq_write_options o[MAXC];
    int nullable[MAXC];
    for (int k = 0; k < ncols; k++) {
      size_t t = rnd() % nm;
      int ne = 0;
      while (ne < 6 && (ne == 0 || matrix[t].enc[ne] != PQ_PLAIN)) ne++;
      nullable[k] = rnd() % 3 != 0;
      column_make(&c[k], matrix[t].type, matrix[t].length, n,
                  nullable[k] ? (int)(rnd() % 5) : 0);
      pq_params_init(&p[k]);
      p[k].encoding = matrix[t].enc[rnd() % (size_t)ne];
      p[k].type = matrix[t].type;
      p[k].type_set = 1;
      p[k].type_length = matrix[t].length;
      pq_write_options_init(&o[k]);
      o[k].nullable = nullable[k];
      o[k].page_version = 1 + (int)(rnd() % 2);
      o[k].codec = rnd() % 2 && pq_codec_available(PQ_ZSTD) ? PQ_ZSTD
                                                              : PQ_UNCOMPRESSED;
      o[k].page_size = 64 + (int64_t)(rnd() % 4096);
      o[k].row_group_size = 7; /* not used: the caller closes row groups */
      if (rnd() % 4 == 0) {
        o[k].auto_encoding = 1 + (int)(rnd() % 2); /* chosen per chunk */
        autos++;
      }
      if ((p[k].encoding == PQ_RLE_DICTIONARY ||
           p[k].encoding == PQ_PLAIN_DICTIONARY) && rnd() % 2) {
        /* A dictionary that outgrows a small page falls back to PLAIN or
        ** to another of the type's encodings. */
        pq_encoding fb = matrix[t].enc[rnd() % (size_t)ne];
        o[k].fallback = fb == PQ_RLE_DICTIONARY || fb == PQ_PLAIN_DICTIONARY ||
                                (fb == PQ_RLE && p[k].type != PQ_BOOLEAN)
                            ? PQ_PLAIN
                            : fb;
        o[k].dictionary_page_size = 8 + (int64_t)(rnd() % 600);
        fallbacks++;
      }
      snprintf(o[k].name, sizeof o[k].name, "c%d", k);
    }
    char what[160];
    snprintf(what, sizeof what, "%d columns, n=%zu, row groups of %lld", ncols,
             n, (long long)group);
    pq_writer *w;
    pq_error err = {0};
    pq_buf file;
    pq_buf_init(&file);
    int rc = pq_writer_open_columns(&w, ncols, p, o, &err);
    CHECK(rc == PQ_OK, "%s: open: %s", what, err.msg);
    if (rc) continue;
    size_t v[MAXC] = {0};
    for (size_t i = 0; i < n && rc == PQ_OK; i += (size_t)group) {
      size_t k = n - i < (size_t)group ? n - i : (size_t)group;
      for (int col = 0; col < ncols && rc == PQ_OK; col++) {
        size_t vs = pq_value_size(c[col].type, c[col].type_length), nv = 0;
        for (size_t j = 0; j < k; j++) nv += c[col].present[i + j];
        rc = pq_writer_put_column(w, col, c[col].values + v[col] * vs,
                                  c[col].present + i, k, &err);
        v[col] += nv;
      }
      if (rc == PQ_OK) rc = pq_writer_end_row_group(w, &err);
      if (rc == PQ_OK && rnd() % 2) pq_writer_drain(w, &file);
    }
    if (rc == PQ_OK) rc = pq_writer_finish(w, &file, &err);
    pq_writer_free(w);
    CHECK(rc == PQ_OK, "%s: write: %s", what, err.msg);
    /* Chunks that fell back: a dictionary page and pages of both. */
    pq_file *ff = NULL;
    if (rc == PQ_OK && pq_file_open(&ff, file.data, file.len, &err) == PQ_OK) {
      const pq_file_meta *m = pq_file_metadata(ff);
      for (uint32_t g = 0; g < m->n_row_groups; g++)
        for (int k = 0; k < ncols; k++) {
          const pq_column_meta *cm = &m->row_groups[g].columns[k].meta;
          int d = 0, other = 0;
          for (uint32_t e = 0; e < cm->n_encodings; e++) {
            int32_t x = cm->encodings[e];
            if (x == PQ_RLE_DICTIONARY || x == PQ_PLAIN_DICTIONARY) d = 1;
            else if (x == o[k].fallback && x != PQ_PLAIN) other = 1;
            else if (x == PQ_PLAIN && o[k].fallback == PQ_PLAIN &&
                     cm->dictionary_page_offset > 0)
              other = 1; /* PLAIN names the dictionary page too: see pages */
          }
          fell += d && other && o[k].fallback >= 0;
        }
      pq_file_free(ff);
    }
    if (rc == PQ_OK) check_lanes(what, c, ncols, n, group, p, o, &file);
    for (int k = 0; k < ncols && rc == PQ_OK; k++) {
      char cw[200];
      snprintf(cw, sizeof cw, "%s: column %d (%s %s)", what, k,
               pq_type_name(p[k].type), pq_encoding_name(p[k].encoding));
      check_file(cw, &c[k], &file, nullable[k], group, (uint32_t)k);
    }
    for (int k = 0; k < ncols; k++) column_free(&c[k]);
    pq_buf_free(&file);
  }

  CHECK(fallbacks > 5 && fell > 0, "dictionaries that fell back: %d of %d",
        fell, fallbacks);
  CHECK(autos > 5, "columns of chosen encodings: %d", autos);

  /* Row groups whose columns hold different counts are refused. */
  pq_params p2[2];
  pq_write_options o2[2];
  for (int k = 0; k < 2; k++) {
    pq_params_init(&p2[k]);
    p2[k].type = PQ_INT32;
    p2[k].type_set = 1;
    pq_write_options_init(&o2[k]);
  }
  pq_writer *w;
  pq_error err = {0};
  int32_t x[3] = {1, 2, 3};
  CHECK(pq_writer_open_columns(&w, 2, p2, o2, &err) == PQ_OK, "open 2: %s",
        err.msg);
  CHECK(pq_writer_put_column(w, 0, x, NULL, 3, &err) == PQ_OK, "put 0");
  CHECK(pq_writer_put_column(w, 1, x, NULL, 2, &err) == PQ_OK, "put 1");
  int rc = pq_writer_end_row_group(w, &err);
  CHECK(rc == PQ_MISUSE && strstr(err.msg, "column 1 has 2 rows"),
        "uneven row group: %d %s", rc, err.msg);
  rc = pq_writer_put_column(w, 2, x, NULL, 1, &err);
  CHECK(rc == PQ_MISUSE, "put after a failure: %d", rc);
  pq_writer_free(w);
  CHECK(pq_writer_open_columns(&w, 2, p2, o2, &err) == PQ_OK, "open 2: %s",
        err.msg);
  rc = pq_writer_put_column(w, 2, x, NULL, 1, &err);
  CHECK(rc == PQ_MISUSE && strstr(err.msg, "no column 2 in a file of 2"),
        "column 2: %d %s", rc, err.msg);
  pq_writer_free(w);
  rc = pq_writer_open_columns(&w, 0, p2, o2, &err);
  CHECK(rc == PQ_MISUSE && w == NULL, "no columns: %d", rc);
}

/* ---- 1b'. A sink ------------------------------------------------------------
** The bytes a sink is given are the file the writer would return, and a
** sink that fails makes the write fail with PQ_IO. */

static int sink_buf(void *ctx, const uint8_t *p, size_t n) {
  pq_buf_append((pq_buf *)ctx, p, n);
  return 0;
}
static int sink_full(void *ctx, const uint8_t *p, size_t n) {
  (void)p;
  size_t *left = ctx;
  if (n > *left) return 1;
  *left -= n;
  return 0;
}

static void test_sink(void) {
  pq_params p[2];
  pq_write_options o[2];
  for (int k = 0; k < 2; k++) {
    pq_params_init(&p[k]);
    p[k].type = k ? PQ_BYTE_ARRAY : PQ_INT64;
    p[k].type_set = 1;
    p[k].encoding = k ? PQ_RLE_DICTIONARY : PQ_PLAIN;
    pq_write_options_init(&o[k]);
    o[k].page_index = 1;
    o[k].bloom = k;
    o[k].page_values = 100;
  }
  int64_t ids[1000];
  pq_bytes names[1000];
  char text[1000][8];
  for (int i = 0; i < 1000; i++) {
    ids[i] = i * 3;
    snprintf(text[i], sizeof text[i], "n%d", i % 37);
    names[i].ptr = (const uint8_t *)text[i];
    names[i].len = strlen(text[i]);
  }
  pq_buf whole, sunk;
  pq_buf_init(&whole);
  pq_buf_init(&sunk);
  for (int use_sink = 0; use_sink < 3; use_sink++) {
    pq_writer *w;
    pq_error err = {0};
    size_t room = 3000;
    int rc = pq_writer_open_columns(&w, 2, p, o, &err);
    if (use_sink == 1) pq_writer_set_sink(w, sink_buf, &sunk);
    if (use_sink == 2) pq_writer_set_sink(w, sink_full, &room);
    for (int g = 0; g < 4 && rc == PQ_OK; g++) {
      rc = pq_writer_put_column(w, 0, ids + 250 * g, NULL, 250, &err);
      if (rc == PQ_OK) rc = pq_writer_put_column(w, 1, names + 250 * g, NULL, 250, &err);
      if (rc == PQ_OK) rc = pq_writer_end_row_group(w, &err);
    }
    pq_buf left;
    pq_buf_init(&left);
    if (rc == PQ_OK) rc = pq_writer_finish(w, use_sink ? &left : &whole, &err);
    pq_writer_free(w);
    if (use_sink == 2) {
      CHECK(rc == PQ_IO, "sink: a full sink: %d %s", rc, err.msg);
    } else {
      CHECK(rc == PQ_OK && left.len == 0, "sink %d: %s", use_sink, err.msg);
    }
    pq_buf_free(&left);
  }
  CHECK(whole.len > 3000 && whole.len == sunk.len &&
            memcmp(whole.data, sunk.data, whole.len) == 0,
        "sink: the same bytes (%zu, %zu)", whole.len, sunk.len);
  pq_buf_free(&whole);
  pq_buf_free(&sunk);
}

/* ---- 1c. Page indexes ------------------------------------------------------
** DOUBLE pages of two values: a chunk with a page of NaN only has no column
** index (the spec's rule for TYPE_ORDER), the next chunk has one; both
** have offset indexes whose pages are where the pages are. */

static void test_page_index(void) {
  pq_params p;
  pq_params_init(&p);
  p.type = PQ_DOUBLE;
  p.type_set = 1;
  pq_write_options o;
  pq_write_options_init(&o);
  o.page_values = 2;
  o.page_index = 1;
  o.row_group_size = 4;
  double v[8] = {NAN, NAN, 1, 2, 3, -4, 1, 2};
  pq_buf out;
  pq_buf_init(&out);
  pq_error err = {0};
  pq_writer *w;
  int rc = pq_writer_open(&w, &p, &o, &err);
  if (rc == PQ_OK) {
    rc = pq_writer_put(w, v, NULL, 8, &err);
    if (rc == PQ_OK) rc = pq_writer_finish(w, &out, &err);
    pq_writer_free(w);
  }
  CHECK(rc == PQ_OK, "page index: write: %s", err.msg);
  pq_file *f = NULL;
  if (rc == PQ_OK) rc = pq_file_open(&f, out.data, out.len, &err);
  CHECK(rc == PQ_OK, "page index: open: %s", err.msg);
  if (rc == PQ_OK) {
    const pq_file_meta *m = pq_file_metadata(f);
    CHECK(m->n_row_groups == 2, "page index: %u row groups", m->n_row_groups);
    CHECK(m->row_groups[0].columns[0].column_index_offset < 0 &&
              m->row_groups[1].columns[0].column_index_offset > 0,
          "page index: column indexes");
    for (uint32_t g = 0; g < 2; g++) {
      pq_offset_index *oi = NULL;
      rc = pq_offset_index_read(f, g, 0, &oi, &err);
      CHECK(rc == PQ_OK && oi && oi->n_pages == 2 &&
                oi->pages[1].first_row_index == 2,
            "page index: offset index of row group %u: %s", g, err.msg);
      pq_offset_index_free(oi);
    }
    pq_column_index *ci = NULL;
    rc = pq_column_index_read(f, 1, 0, &ci, &err);
    CHECK(rc == PQ_OK && ci && ci->n_pages == 2 && ci->boundary_order == 0,
          "page index: column index: %s", err.msg);
    pq_column_index_free(ci);
    pq_file_free(f);
  }
  pq_buf_free(&out);
}

/* ---- 1d. Nested columns -----------------------------------------------------
** A LIST of optional strings, a STRUCT of a required and an optional
** field, a MAP of strings to optional integers, with NULLs and empties at
** every level, their levels put by hand: the reader's rows are the
** records. */

/* ---- 1d. NaN counts, sizes and encoding stats --------------------------------
** Random levels of a list of optional strings and of an optional DOUBLE
** with NaNs (SQL has no NaN: only the C API gives them): the chunk's
** nan_count and SizeStatistics, the column index's nan_counts and level
** histograms, the offset index's unencoded bytes and encoding_stats, each
** against a count made here, and the histograms against the levels read
** back. */

static void test_sizes(void) {
  static const pq_write_node elem[] = {{"element", 1, 0, 0, NULL}};
  static const pq_write_node list[] = {{"list", 2, 0, 1, elem}};
  static const pq_write_node top[] = {{"tags", 1, PQ_LOGICAL_LIST, 1, list},
                                      {"d", 1, 0, 0, NULL}};
  pq_params p[2];
  pq_write_options o[2];
  for (int k = 0; k < 2; k++) {
    pq_params_init(&p[k]);
    p[k].type = k ? PQ_DOUBLE : PQ_BYTE_ARRAY;
    p[k].type_set = 1;
    p[k].encoding = k ? PQ_PLAIN : PQ_RLE_DICTIONARY;
    pq_write_options_init(&o[k]);
    o[k].page_index = 1;
    o[k].page_values = 7;
    o[k].page_version = 1 + k;
  }
  enum { RECS = 300, MAXE = 4 * RECS };
  static uint16_t td[MAXE], tr[MAXE], dd[RECS];
  static pq_bytes tv[MAXE];
  static double dv[RECS];
  static char words[8][8] = {"", "a", "bb", "ccc", "dddd", "e", "ff", "g"};
  size_t nt = 0, ntv = 0, ndv = 0;
  int64_t hist_r[2] = {0}, hist_d[4] = {0}, hist_dd[2] = {0}, bytes = 0,
          nans = 0;
  for (int r = 0; r < RECS; r++) {
    int kind = (int)(rnd() % 4); /* null list, empty, elements */
    int n = kind < 2 ? 1 : 1 + (int)(rnd() % 3);
    for (int i = 0; i < n; i++) {
      tr[nt] = i ? 1 : 0;
      td[nt] = kind == 0 ? 0 : kind == 1 ? 1 : rnd() % 5 == 0 ? 2 : 3;
      if (td[nt] == 3) {
        const char *wd = words[rnd() % 8];
        tv[ntv].ptr = (const uint8_t *)wd;
        tv[ntv].len = strlen(wd);
        bytes += (int64_t)tv[ntv].len;
        ntv++;
      }
      hist_r[tr[nt]]++;
      hist_d[td[nt]]++;
      nt++;
    }
    dd[r] = rnd() % 6 != 0;
    hist_dd[dd[r]]++;
    if (dd[r]) {
      int x = (int)(rnd() % 5);
      dv[ndv++] = x == 0 ? NAN : x == 1 ? -0.0 : x == 2 ? INFINITY : r * 0.5;
      nans += x == 0;
    }
  }
  pq_writer *w;
  pq_error err = {0};
  pq_buf out;
  pq_buf_init(&out);
  int rc = pq_writer_open_schema(&w, top, 2, p, o, &err);
  if (rc == PQ_OK) {
    rc = pq_writer_put_levels(w, 0, tv, td, tr, nt, &err);
    if (rc == PQ_OK) rc = pq_writer_put_levels(w, 1, dv, dd, NULL, RECS, &err);
    if (rc == PQ_OK) rc = pq_writer_finish(w, &out, &err);
    pq_writer_free(w);
  }
  CHECK(rc == PQ_OK, "sizes: write: %s", err.msg);
  pq_file *f = NULL;
  if (rc == PQ_OK) rc = pq_file_open(&f, out.data, out.len, &err);
  CHECK(rc == PQ_OK, "sizes: open: %s", err.msg);
  if (rc != PQ_OK) {
    pq_buf_free(&out);
    return;
  }
  const pq_file_meta *m = pq_file_metadata(f);
  const pq_column_meta *c0 = &m->row_groups[0].columns[0].meta;
  const pq_column_meta *c1 = &m->row_groups[0].columns[1].meta;
  CHECK(c0->has_size_statistics && c0->unencoded_byte_array_data_bytes == bytes,
        "sizes: unencoded bytes %lld, not %lld",
        (long long)c0->unencoded_byte_array_data_bytes, (long long)bytes);
  CHECK(c0->n_rep_level_histogram == 2 && c0->n_def_level_histogram == 4 &&
            !memcmp(c0->rep_level_histogram, hist_r, sizeof hist_r) &&
            !memcmp(c0->def_level_histogram, hist_d, sizeof hist_d),
        "sizes: the list's level histograms");
  CHECK(c1->has_size_statistics && c1->unencoded_byte_array_data_bytes < 0 &&
            !c1->rep_level_histogram && c1->n_def_level_histogram == 2 &&
            !memcmp(c1->def_level_histogram, hist_dd, sizeof hist_dd),
        "sizes: the DOUBLE's: no bytes, no repetition, definitions");
  CHECK(c1->statistics.has_nan_count && c1->statistics.nan_count == nans &&
            !c0->statistics.has_nan_count,
        "sizes: nan_count %lld, not %lld",
        (long long)c1->statistics.nan_count, (long long)nans);
  CHECK(pq_column_order(m, 0) == PQ_COLUMN_ORDER_TYPE &&
            pq_column_order(m, 1) == PQ_COLUMN_ORDER_TYPE,
        "sizes: TYPE_ORDER");
  /* The levels read back make the same histograms. */
  int64_t back_r[2] = {0}, back_d[4] = {0};
  pq_column_reader *cr = NULL;
  rc = pq_column_reader_open(&cr, f, 0, 0, 1 << 20, &err);
  for (size_t n = 1; rc == PQ_OK && n > 0;) {
    uint16_t lr[64], ld[64];
    pq_bytes vals[64];
    size_t nv;
    rc = pq_column_reader_read(cr, 64, lr, ld, vals, &n, &nv, &err);
    for (size_t i = 0; rc == PQ_OK && i < n; i++) {
      if (lr[i] < 2) back_r[lr[i]]++;
      if (ld[i] < 4) back_d[ld[i]]++;
    }
  }
  pq_column_reader_free(cr);
  CHECK(rc == PQ_OK && !memcmp(back_r, hist_r, sizeof hist_r) &&
            !memcmp(back_d, hist_d, sizeof hist_d),
        "sizes: the levels read back: %s", err.msg);
  /* Page by page: the column indexes' histograms and NaNs, the offset
  ** index's bytes, add up to the chunk's; encoding_stats count the pages. */
  for (uint32_t col = 0; col < 2; col++) {
    const pq_column_meta *cm = col ? c1 : c0;
    pq_column_index *ci = NULL;
    pq_offset_index *oi = NULL;
    rc = pq_column_index_read(f, 0, col, &ci, &err);
    if (rc == PQ_OK) rc = pq_offset_index_read(f, 0, col, &oi, &err);
    CHECK(rc == PQ_OK && ci && oi && ci->n_pages == oi->n_pages &&
              ci->n_pages > 10,
          "sizes: column %u: page indexes: %s", col, err.msg);
    if (rc != PQ_OK || !ci || !oi) {
      pq_column_index_free(ci);
      pq_offset_index_free(oi);
      continue;
    }
    int64_t sum_d[4] = {0}, sum_r[2] = {0}, sum_b = 0, sum_nan = 0;
    uint32_t nd = col ? 2 : 4;
    for (uint32_t i = 0; i < ci->n_pages; i++) {
      for (uint32_t l = 0; ci->def_histograms && l < nd; l++)
        sum_d[l] += ci->def_histograms[i * nd + l];
      for (uint32_t l = 0; ci->rep_histograms && l < 2; l++)
        sum_r[l] += ci->rep_histograms[i * 2 + l];
      if (oi->unencoded_byte_array_data_bytes)
        sum_b += oi->unencoded_byte_array_data_bytes[i];
      if (ci->nan_counts) sum_nan += ci->nan_counts[i];
    }
    CHECK(ci->def_histograms && !memcmp(sum_d, cm->def_level_histogram, nd * 8),
          "sizes: column %u: the pages' definition histograms", col);
    CHECK(col ? !ci->rep_histograms && !oi->unencoded_byte_array_data_bytes &&
                    ci->nan_counts && sum_nan == nans
              : ci->rep_histograms && !memcmp(sum_r, hist_r, sizeof hist_r) &&
                    oi->unencoded_byte_array_data_bytes && sum_b == bytes &&
                    !ci->nan_counts,
          "sizes: column %u: the pages' repetitions, bytes and NaNs", col);
    int64_t pages = 0, dicts = 0;
    for (uint32_t i = 0; i < cm->n_encoding_stats; i++) {
      const pq_page_encoding_stats *e = &cm->encoding_stats[i];
      if (e->page_type == PQ_DICTIONARY_PAGE) {
        dicts += e->count;
      } else {
        CHECK(e->page_type == (col ? PQ_DATA_PAGE_V2 : PQ_DATA_PAGE) &&
                  e->encoding == (col ? PQ_PLAIN : PQ_RLE_DICTIONARY),
              "sizes: column %u: a data page's type %d, encoding %d", col,
              e->page_type, e->encoding);
        pages += e->count;
      }
    }
    CHECK(pages == (int64_t)oi->n_pages && dicts == (col ? 0 : 1),
          "sizes: column %u: encoding_stats: %lld data pages of %u, %lld "
          "dictionary pages", col, (long long)pages, oi->n_pages,
          (long long)dicts);
    pq_column_index_free(ci);
    pq_offset_index_free(oi);
  }
  pq_file_free(f);
  pq_buf_free(&out);
}

static void test_nested(void) {
  static const pq_write_node elem[] = {{"element", 1, 0, 0, NULL}};
  static const pq_write_node list[] = {{"list", 2, 0, 1, elem}};
  static const pq_write_node xy[] = {{"x", 0, 0, 0, NULL}, {"y", 1, 0, 0, NULL}};
  static const pq_write_node kv_fields[] = {{"key", 0, 0, 0, NULL},
                                            {"value", 1, 0, 0, NULL}};
  static const pq_write_node kv[] = {{"key_value", 2, 0, 2, kv_fields}};
  static const pq_write_node top[] = {
      {"id", 0, 0, 0, NULL},
      {"tags", 1, PQ_LOGICAL_LIST, 1, list},
      {"pt", 1, 0, 2, xy},
      {"m", 1, PQ_LOGICAL_MAP, 1, kv}};
  pq_type types[6] = {PQ_INT64, PQ_BYTE_ARRAY, PQ_DOUBLE, PQ_INT32,
                      PQ_BYTE_ARRAY, PQ_INT32};
  pq_params p[6];
  pq_write_options o[6];
  for (int k = 0; k < 6; k++) {
    pq_params_init(&p[k]);
    p[k].type = types[k];
    p[k].type_set = 1;
    p[k].encoding = k == 1 ? PQ_RLE_DICTIONARY : PQ_PLAIN;
    pq_write_options_init(&o[k]);
    o[k].string = types[k] == PQ_BYTE_ARRAY;
    o[k].page_index = 1;
    o[k].page_version = 1 + k % 2;
    o[k].page_values = 2; /* pages of whole records, of two entries or more */
  }
  pq_writer *w;
  pq_error err = {0};
  int rc = pq_writer_open_schema(&w, top, 4, p, o, &err);
  CHECK(rc == PQ_OK, "nested: open: %s", err.msg);
  if (rc) return;
  int64_t ids[4] = {1, 2, 3, 4};
  uint16_t d0[4] = {0, 0, 0, 0};
  pq_bytes tags[4] = {{(const uint8_t *)"a", 1}, {(const uint8_t *)"b", 1},
                      {(const uint8_t *)"c", 1}};
  uint16_t td[6] = {3, 2, 3, 0, 1, 3}, tr[6] = {0, 1, 1, 0, 0, 0};
  double xs[3] = {1.5, -1, 0};
  uint16_t xd[4] = {1, 0, 1, 1};
  int32_t ys[2] = {2, 7};
  uint16_t yd[4] = {2, 0, 1, 2};
  pq_bytes keys[3] = {{(const uint8_t *)"k", 1}, {(const uint8_t *)"p", 1},
                      {(const uint8_t *)"q", 1}};
  uint16_t kd[5] = {2, 1, 0, 2, 2}, kr[5] = {0, 0, 0, 0, 1};
  int32_t vals[2] = {1, 3};
  uint16_t vd[5] = {3, 1, 0, 2, 3};
  /* Two row groups: records 0-1, then 2-3. */
  for (int g = 0; g < 2 && rc == PQ_OK; g++) {
    int ta = g ? 4 : 0;
    rc = pq_writer_put_levels(w, 0, ids + 2 * g, d0, NULL, 2, &err);
    if (rc == PQ_OK)
      rc = pq_writer_put_levels(w, 1, tags + (g ? 2 : 0), td + ta, tr + ta,
                                g ? 2 : 4, &err);
    if (rc == PQ_OK)
      rc = pq_writer_put_levels(w, 2, xs + (g ? 1 : 0), xd + 2 * g, NULL, 2, &err);
    if (rc == PQ_OK)
      rc = pq_writer_put_levels(w, 3, ys + g, yd + 2 * g, NULL, 2, &err);
    if (rc == PQ_OK)
      rc = pq_writer_put_levels(w, 4, keys + g, kd + 2 * g, kr + 2 * g,
                                g ? 3 : 2, &err);
    if (rc == PQ_OK)
      rc = pq_writer_put_levels(w, 5, vals + g, vd + 2 * g, kr + 2 * g,
                                g ? 3 : 2, &err);
    if (rc == PQ_OK) rc = pq_writer_end_row_group(w, &err);
  }
  pq_buf out;
  pq_buf_init(&out);
  if (rc == PQ_OK) rc = pq_writer_finish(w, &out, &err);
  pq_writer_free(w);
  CHECK(rc == PQ_OK, "nested: write: %s", err.msg);
  pq_file *f = NULL;
  if (rc == PQ_OK) rc = pq_file_open(&f, out.data, out.len, &err);
  CHECK(rc == PQ_OK, "nested: open the file: %s", err.msg);
  pq_buf json;
  pq_buf_init(&json);
  for (uint32_t g = 0; f && g < pq_file_metadata(f)->n_row_groups; g++) {
    pq_row_reader *r;
    if (pq_row_reader_open(&r, f, g, (size_t)1 << 20, &err)) {
      CHECK(0, "nested: rows: %s", err.msg);
      break;
    }
    int got = 1;
    while (got) {
      if (pq_row_reader_next(r, &json, &got, &err)) {
        CHECK(0, "nested: row: %s", err.msg);
        break;
      }
      if (got) pq_buf_append(&json, "\n", 1);
    }
    pq_row_reader_free(r);
  }
  pq_buf_append(&json, "", 1);
  const char *want =
      "{\"id\":1,\"tags\":[\"a\",null,\"b\"],\"pt\":{\"x\":1.5,\"y\":2},\"m\":{\"k\":1}}\n"
      "{\"id\":2,\"tags\":null,\"pt\":null,\"m\":{}}\n"
      "{\"id\":3,\"tags\":[],\"pt\":{\"x\":-1.0,\"y\":null},\"m\":null}\n"
      "{\"id\":4,\"tags\":[\"c\"],\"pt\":{\"x\":0.0,\"y\":7},\"m\":{\"p\":null,\"q\":3}}\n";
  CHECK(f && strcmp((const char *)json.data, want) == 0, "nested: rows\n%s",
        (const char *)json.data);
  if (f) {
    const pq_file_meta *m = pq_file_metadata(f);
    CHECK(m->num_rows == 4 && m->n_row_groups == 2 &&
              m->row_groups[0].columns[1].meta.num_values == 4 &&
              m->row_groups[1].columns[4].meta.num_values == 3,
          "nested: rows %lld, entries", (long long)m->num_rows);
    pq_offset_index *oi = NULL;
    rc = pq_offset_index_read(f, 0, 1, &oi, &err);
    /* tags in row group 0: record 0's three entries, then record 1's */
    CHECK(rc == PQ_OK && oi && oi->n_pages == 2 &&
              oi->pages[1].first_row_index == 1,
          "nested: tags' pages start at records: %s", err.msg);
    pq_offset_index_free(oi);
    pq_file_free(f);
  }
  /* Levels past the leaf's, or a put that starts inside a record. */
  rc = pq_writer_open_schema(&w, top, 4, p, o, &err);
  uint16_t bad_d[1] = {4}, bad_r[1] = {1};
  CHECK(pq_writer_put_levels(w, 1, tags, bad_d, tr, 1, &err) == PQ_MISUSE,
        "nested: def 4 of 3");
  pq_writer_free(w);
  rc = pq_writer_open_schema(&w, top, 4, p, o, &err);
  CHECK(pq_writer_put_levels(w, 1, tags, td, bad_r, 1, &err) == PQ_MISUSE,
        "nested: a record from rep 1");
  pq_writer_free(w);
  pq_buf_free(&json);
  pq_buf_free(&out);
}

/* ---- 2. Floating point bounds -------------------------------------------- */

static pq_file *write_doubles(const double *v, size_t n, pq_buf *out) {
  pq_params p;
  pq_params_init(&p);
  p.type = PQ_DOUBLE;
  p.type_set = 1;
  pq_write_options o;
  pq_write_options_init(&o);
  pq_writer *w;
  pq_error err;
  pq_buf_init(out);
  pq_file *f = NULL;
  if (pq_writer_open(&w, &p, &o, &err) == PQ_OK) {
    if (pq_writer_put(w, v, NULL, n, &err) == PQ_OK &&
        pq_writer_finish(w, out, &err) == PQ_OK)
      pq_file_open(&f, out->data, out->len, &err);
    pq_writer_free(w);
  }
  return f;
}

static int stat_is(pq_bytes b, double want) {
  double d;
  if (b.len != 8) return 0;
  memcpy(&d, b.ptr, 8);
  return memcmp(&d, &want, 8) == 0;
}

static void test_float_bounds(void) {
  double v1[] = {NAN, 3.5, 0.0, -2.0, NAN};
  double v2[] = {0.0, 0.0};
  double v3[] = {NAN, NAN};
  double v4[] = {-0.0, 1.0};
  const double *cases[] = {v1, v2, v3, v4};
  size_t lens[] = {5, 2, 2, 2};
  /* min, max (NAN: no bounds) */
  double want[][2] = {{-2.0, 3.5}, {-0.0, 0.0}, {NAN, NAN}, {-0.0, 1.0}};
  for (int i = 0; i < 4; i++) {
    pq_buf out;
    pq_file *f = write_doubles(cases[i], lens[i], &out);
    CHECK(f != NULL, "doubles %d: written and opened", i);
    if (f) {
      const pq_statistics *st =
          &pq_file_metadata(f)->row_groups[0].columns[0].meta.statistics;
      if (isnan(want[i][0])) {
        CHECK(!st->has_min_value && !st->has_max_value,
              "doubles %d: only NaN: no bounds", i);
      } else {
        CHECK(st->has_min_value && stat_is(st->min_value, want[i][0]),
              "doubles %d: min", i);
        CHECK(st->has_max_value && stat_is(st->max_value, want[i][1]),
              "doubles %d: max", i);
      }
      pq_file_free(f);
    }
    pq_buf_free(&out);
  }
}

/* ---- 3. Page bounds ------------------------------------------------------ */

static void test_pages(void) {
  int64_t v[5000];
  for (int i = 0; i < 5000; i++) v[i] = (int64_t)(rnd() >> 1);
  for (int64_t size = 50; size <= 50000; size *= 10) {
    pq_params p;
    pq_params_init(&p);
    p.type = PQ_INT64;
    p.type_set = 1;
    pq_write_options o;
    pq_write_options_init(&o);
    o.page_size = size;
    o.nullable = 0;
    pq_writer *w;
    pq_error err;
    pq_buf out;
    pq_buf_init(&out);
    pq_file *f = NULL;
    if (pq_writer_open(&w, &p, &o, &err) == PQ_OK) {
      for (int i = 0; i < 5000; i += 100) pq_writer_put(w, v + i, NULL, 100, &err);
      if (pq_writer_finish(w, &out, &err) == PQ_OK)
        pq_file_open(&f, out.data, out.len, &err);
      pq_writer_free(w);
    }
    CHECK(f != NULL, "page_size %lld: %s", (long long)size, err.msg);
    if (!f) continue;
    pq_page_reader *r;
    int pages = 0, over = 0;
    if (pq_page_reader_open(&r, f, 0, 0, 1 << 30, &err) == PQ_OK) {
      pq_page pg;
      int got;
      while (pq_page_reader_next(r, &pg, &got, &err) == PQ_OK && got) {
        pages++;
        /* 8-byte values: a page ends at the first value that reaches it. */
        if (pg.values.len >= (size_t)size + 8) over++;
      }
      pq_page_reader_free(r);
    }
    int64_t per = (size + 7) / 8; /* values that reach size bytes */
    int64_t want = (5000 + per - 1) / per;
    CHECK(pages == want && over == 0, "page_size %lld: %d pages (%lld), %d over",
          (long long)size, pages, (long long)want, over);
    pq_file_free(f);
    pq_buf_free(&out);
  }
}

/* ---- 4. Errors ----------------------------------------------------------- */

static int open_fails(pq_encoding e, pq_type t, pq_codec codec, int version,
                      int string, int want, const char *words) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = e;
  p.type = t;
  p.type_set = 1;
  pq_write_options o;
  pq_write_options_init(&o);
  o.codec = codec;
  o.page_version = version;
  o.string = string;
  pq_writer *w = NULL;
  pq_error err = {0};
  int rc = pq_writer_open(&w, &p, &o, &err);
  pq_writer_free(w);
  if (rc != want || !strstr(err.msg, words)) {
    printf("!   got %d '%s'\n", rc, err.msg);
    return 0;
  }
  return 1;
}

static void test_errors(void) {
  CHECK(open_fails(PQ_BIT_PACKED, PQ_INT32, PQ_UNCOMPRESSED, 1, -1, PQ_MISUSE,
                   "a level encoding"), "BIT_PACKED");
  CHECK(open_fails(PQ_RLE, PQ_INT64, PQ_UNCOMPRESSED, 1, -1, PQ_MISUSE,
                   "only BOOLEAN"), "RLE INT64");
  CHECK(open_fails(PQ_DELTA_BINARY_PACKED, PQ_DOUBLE, PQ_UNCOMPRESSED, 1, -1,
                   PQ_MISUSE, "not supported"), "DELTA DOUBLE");
  CHECK(open_fails(PQ_ALP, PQ_INT64, PQ_UNCOMPRESSED, 1, -1, PQ_MISUSE,
                   "not supported"), "ALP INT64");
  CHECK(open_fails(PQ_PLAIN, PQ_INT64, PQ_LZO, 1, -1, PQ_UNSUPPORTED, "LZO"),
        "LZO");
  CHECK(open_fails(PQ_PLAIN, PQ_INT64, (pq_codec)99, 1, -1, PQ_MISUSE, "99"),
        "codec 99");
  CHECK(open_fails(PQ_PLAIN, PQ_INT64, PQ_UNCOMPRESSED, 3, -1, PQ_MISUSE,
                   "page version 3"), "page version");
  CHECK(open_fails(PQ_PLAIN, PQ_INT64, PQ_UNCOMPRESSED, 1, 1, PQ_MISUSE,
                   "STRING"), "STRING on INT64");
  for (int c = 0; c < PQ_CODEC_COUNT; c++) {
    if (c == PQ_LZO || pq_codec_available((pq_codec)c)) continue;
    CHECK(open_fails(PQ_PLAIN, PQ_INT64, (pq_codec)c, 1, -1, PQ_UNSUPPORTED,
                     "this build has no"), "codec %d left out", c);
  }

  /* A NULL in a REQUIRED column; the writer is spent after it. */
  pq_params p;
  pq_params_init(&p);
  p.type = PQ_INT32;
  p.type_set = 1;
  pq_write_options o;
  pq_write_options_init(&o);
  o.nullable = 0;
  pq_writer *w;
  pq_error err = {0};
  int32_t v[3] = {1, 2, 3};
  uint8_t present[4] = {1, 1, 0, 1};
  CHECK(pq_writer_open(&w, &p, &o, &err) == PQ_OK, "open: %s", err.msg);
  int rc = pq_writer_put(w, v, present, 4, &err);
  CHECK(rc == PQ_RANGE && strstr(err.msg, "entry 2 is NULL"), "NULL: %d %s",
        rc, err.msg);
  rc = pq_writer_put(w, v, NULL, 1, &err);
  CHECK(rc == PQ_MISUSE, "put after a failure: %d", rc);
  pq_buf out;
  pq_buf_init(&out);
  rc = pq_writer_finish(w, &out, &err);
  CHECK(rc == PQ_MISUSE && out.len == 0, "finish after a failure: %d", rc);
  pq_writer_free(w);
  pq_buf_free(&out);

  /* The options' parser: the file's keys, the encoding's, the faults. */
  pq_params_init(&p);
  pq_write_options_init(&o);
  const char *good =
      "{\"codec\":\"zstd\",\"page_version\":2,\"page_size\":4096,"
      "\"page_values\":100,\"row_group_size\":1000,\"nullable\":false,"
      "\"statistics\":false,\"crc\":false,\"string\":true,\"name\":\"x y\","
      "\"block_size\":256,\"miniblocks\":8}";
  rc = pq_write_options_parse(&o, &p, good, strlen(good), &err);
  CHECK(rc == PQ_OK && o.codec == PQ_ZSTD && o.page_version == 2 &&
            o.page_size == 4096 && o.page_values == 100 &&
            o.row_group_size == 1000 && !o.nullable && !o.statistics &&
            !o.crc && o.string == 1 && strcmp(o.name, "x y") == 0 &&
            p.block_size == 256 && p.miniblocks == 8,
        "options: %d %s", rc, err.msg);
  static const struct {
    const char *json, *words;
  } bad[] = {
      {"{\"codec\":\"zip\"}", "must name a codec"},
      {"{\"codec\":8}", "must name a codec"},
      {"{\"page_version\":0}", "from 1 to 2"},
      {"{\"page_size\":0}", "\"page_size\" must be an integer"},
      {"{\"page_values\":-1}", "\"page_values\" must be an integer"},
      {"{\"name\":\"\"}", "non-empty string"},
      {"{\"name\":3}", "non-empty string"},
      {"{\"nullable\":1}", "true or false"},
      {"{\"size\":1}", "unknown option \"size\""},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pq_write_options_init(&o);
    rc = pq_write_options_parse(&o, &p, bad[i].json, strlen(bad[i].json), &err);
    CHECK(rc == PQ_MISUSE && strstr(err.msg, bad[i].words), "%s: %d %s",
          bad[i].json, rc, err.msg);
  }
}


/* A partitioned write's folders and files (writer/partition.c): values
** escaped as DuckDB escapes them, NULL as Hive's, and the partitioner's
** answers for rows grouped by folder and files rolled by size. */
static void test_partitions(void) {
  pq_buf b;
  pq_buf_init(&b);
  const char *keys[] = {"year", "city name"};
  const char *vals[] = {"2024", "a/b=c %\xc3\xa9~-_."};
  size_t lens[] = {4, strlen(vals[1])};
  pq_hive_folder(&b, 2, keys, vals, lens);
  CHECK(b.len == strlen("year=2024/city%20name=a%2Fb%3Dc%20%25%C3%A9~-_.") &&
            memcmp(b.data, "year=2024/city%20name=a%2Fb%3Dc%20%25%C3%A9~-_.", b.len) == 0,
        "folder: %.*s", (int)b.len, (const char *)b.data);
  b.len = 0;
  const char *nul[] = {NULL, ""};
  size_t nlens[] = {0, 0};
  pq_hive_folder(&b, 2, keys, nul, nlens);
  CHECK(b.len == strlen("year=__HIVE_DEFAULT_PARTITION__/city%20name=") &&
            memcmp(b.data, "year=__HIVE_DEFAULT_PARTITION__/city%20name=", b.len) == 0,
        "null folder: %.*s", (int)b.len, (const char *)b.data);
  b.len = 0;
  pq_hive_escape(&b, "\x00\x7f", 2);
  CHECK(b.len == 6 && memcmp(b.data, "%00%7F", 6) == 0, "escape bytes");

  pq_partitioner p;
  pq_partitioner_init(&p, 100);
  CHECK(pq_partitioner_route(&p, "k=1", 3) == PQ_PART_OPEN, "first opens");
  b.len = 0;
  CHECK(pq_partitioner_name(&p, &b) == PQ_OK && b.len == 18 &&
            memcmp(b.data, "k=1/data_0.parquet", 18) == 0,
        "first name");
  pq_partitioner_opened(&p);
  CHECK(pq_partitioner_route(&p, "k=1", 3) == PQ_PART_WRITE, "same folder");
  CHECK(!pq_partitioner_full(&p, 99) && pq_partitioner_full(&p, 100), "full");
  pq_partitioner_closed(&p);
  CHECK(pq_partitioner_route(&p, "k=1", 3) == PQ_PART_OPEN, "rolled");
  b.len = 0;
  pq_partitioner_name(&p, &b);
  CHECK(b.len == 18 && memcmp(b.data, "k=1/data_1.parquet", 18) == 0, "next name");
  pq_partitioner_opened(&p);
  CHECK(pq_partitioner_route(&p, "k=2", 3) == PQ_PART_CLOSE, "other folder");
  pq_partitioner_closed(&p);
  CHECK(pq_partitioner_route(&p, "k=2", 3) == PQ_PART_OPEN, "then opens");
  b.len = 0;
  pq_partitioner_name(&p, &b);
  CHECK(b.len == 18 && memcmp(b.data, "k=2/data_0.parquet", 18) == 0, "its first");
  CHECK(p.files == 2, "files %lld", (long long)p.files);
  pq_partitioner_free(&p);
  /* without partitions: the top folder's files */
  pq_partitioner_init(&p, 0);
  CHECK(pq_partitioner_route(&p, "", 0) == PQ_PART_OPEN, "no folder");
  b.len = 0;
  pq_partitioner_name(&p, &b);
  CHECK(b.len == 14 && memcmp(b.data, "data_0.parquet", 14) == 0, "top name");
  pq_partitioner_opened(&p);
  CHECK(!pq_partitioner_full(&p, INT64_MAX), "no size: never full");
  pq_partitioner_free(&p);
  pq_buf_free(&b);
}

/* The same table through the core's nested columns: types by name, values
** as JSON text, shredded into the leaves' levels (writer/nested.c). */
static void test_nested_json(void) {
  static const char *const types[4] = {NULL, "LIST<STRING>",
                                       "STRUCT<x DOUBLE, y INT32>",
                                       "MAP<STRING, INT32>"};
  static const char *const names[4] = {"id", "tags", "pt", "m"};
  static const char *const rows[4][3] = {
      {"[\"a\", null, \"b\"]", "{\"x\": 1.5, \"y\": 2}", "{\"k\": 1}"},
      {NULL, NULL, "{}"},
      {"[]", "{\"x\": -1}", NULL},
      {"[\"c\"]", "{\"y\": 7, \"x\": 0}", "{\"p\": null, \"q\": 3}"}};
  pq_nested *nested[4] = {NULL, NULL, NULL, NULL};
  pq_params p[4];
  pq_write_options o[4];
  int wcol[4];
  pq_buf msg;
  pq_buf_init(&msg);
  int rc = PQ_OK;
  for (int k = 0; k < 4; k++) {
    pq_params_init(&p[k]);
    p[k].type = PQ_INT64;
    p[k].type_set = 1;
    p[k].encoding = PQ_PLAIN;
    pq_write_options_init(&o[k]);
    o[k].nullable = k != 0;
    if (!types[k]) continue;
    int got = pq_nested_parse(types[k], &nested[k], &msg);
    CHECK(got == 1, "nested json: %s: %d", types[k], got);
    if (got != 1) rc = PQ_MISUSE;
    else if (pq_nested_leaves(nested[k], &p[k], &o[k])) rc = PQ_NOMEM;
  }
  CHECK(rc == PQ_OK && pq_nested_kind(nested[1]) == PQ_WT_LIST &&
            pq_nested_kind(nested[2]) == PQ_WT_STRUCT &&
            pq_nested_nleaves(nested[2]) == 2 && pq_nested_nleaves(nested[3]) == 2,
        "nested json: the types");
  pq_writer *w = NULL;
  pq_error err = {0};
  int bad = -1;
  if (rc == PQ_OK)
    rc = pq_nested_open_writer(&w, 4, nested, names, p, o, wcol, &bad, &err);
  CHECK(rc == PQ_OK && wcol[0] == 0, "nested json: open: %s (%d)", err.msg, bad);
  for (int r = 0; r < 4 && rc == PQ_OK; r++) {
    int64_t id = r + 1;
    rc = pq_writer_put_levels(w, wcol[0], &id, (const uint16_t[]){0}, NULL, 1,
                              &err);
    for (int k = 1; k < 4 && rc == PQ_OK; k++) {
      const char *v = rows[r][k - 1];
      rc = pq_nested_put(nested[k], v, v ? strlen(v) : 0, &msg);
      CHECK(rc == PQ_OK, "nested json: row %d, %s: %s", r, names[k],
            msg.len ? (const char *)msg.data : "");
    }
    if (r % 2 == 1)
      for (int k = 1; k < 4 && rc == PQ_OK; k++)
        rc = pq_nested_flush(nested[k], w, &err);
    if (r % 2 == 1 && rc == PQ_OK) rc = pq_writer_end_row_group(w, &err);
  }
  pq_buf out;
  pq_buf_init(&out);
  if (rc == PQ_OK) rc = pq_writer_finish(w, &out, &err);
  pq_writer_free(w);
  CHECK(rc == PQ_OK, "nested json: write: %s", err.msg);
  pq_file *f = NULL;
  if (rc == PQ_OK) rc = pq_file_open(&f, out.data, out.len, &err);
  pq_buf json;
  pq_buf_init(&json);
  for (uint32_t g = 0; f && g < pq_file_metadata(f)->n_row_groups; g++) {
    pq_row_reader *r;
    if (pq_row_reader_open(&r, f, g, (size_t)1 << 20, &err)) {
      CHECK(0, "nested json: rows: %s", err.msg);
      break;
    }
    int got = 1;
    while (got) {
      if (pq_row_reader_next(r, &json, &got, &err)) {
        CHECK(0, "nested json: row: %s", err.msg);
        break;
      }
      if (got) pq_buf_append(&json, "\n", 1);
    }
    pq_row_reader_free(r);
  }
  pq_buf_append(&json, "", 1);
  const char *want =
      "{\"id\":1,\"tags\":[\"a\",null,\"b\"],\"pt\":{\"x\":1.5,\"y\":2},\"m\":{\"k\":1}}\n"
      "{\"id\":2,\"tags\":null,\"pt\":null,\"m\":{}}\n"
      "{\"id\":3,\"tags\":[],\"pt\":{\"x\":-1.0,\"y\":null},\"m\":null}\n"
      "{\"id\":4,\"tags\":[\"c\"],\"pt\":{\"x\":0.0,\"y\":7},\"m\":{\"p\":null,\"q\":3}}\n";
  CHECK(f && strcmp((const char *)json.data, want) == 0, "nested json: rows\n%s",
        (const char *)json.data);
  pq_file_free(f);
  pq_buf_free(&json);
  pq_buf_free(&out);
  /* faults say where in the value, and what */
  static const struct {
    const char *type, *value, *msg;
  } faults[] = {
      {"LIST<INT32>", "[1, \"a\"]", "$[1]: a string where an INT32 belongs"},
      {"LIST<INT32>", "[1,", "not JSON: a value is missing at character 3"},
      {"STRUCT<a INT32>", "{\"b\": 1}", "$: a member the STRUCT has no field for: b"},
      {"MAP<INT32, STRING>", "{\"x\": \"y\"}", "$.x: x does not fit INT32"},
      {"LIST<INT32>", "{}", "$: an object where a LIST's array belongs"}};
  for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
    pq_nested *n = NULL;
    pq_params bp;
    pq_write_options bo;
    pq_params_init(&bp);
    bp.encoding = PQ_PLAIN;
    pq_write_options_init(&bo);
    rc = pq_nested_parse(faults[i].type, &n, &msg) == 1 ? pq_nested_leaves(n, &bp, &bo)
                                                         : PQ_MISUSE;
    if (rc == PQ_OK)
      rc = pq_nested_put(n, faults[i].value, strlen(faults[i].value), &msg);
    CHECK(rc == PQ_MISUSE && msg.len &&
              strcmp((const char *)msg.data, faults[i].msg) == 0,
          "nested json: %s %s: %d %s", faults[i].type, faults[i].value, rc,
          msg.len ? (const char *)msg.data : "");
    pq_nested_free(n);
  }
  static const struct {
    const char *type, *msg;
  } tfaults[] = {{"LIST<INT32, INT64>", "LIST<t> takes one type"},
                 {"STRUCT<a INT32, a INT64>", "two fields named 'a'"},
                 {"MAP<LIST<INT32>, INT32>", "a MAP's keys are of a scalar type"},
                 {"LIST<INT33>", "unknown type 'INT33'"}};
  for (size_t i = 0; i < sizeof tfaults / sizeof tfaults[0]; i++) {
    pq_nested *n = NULL;
    rc = pq_nested_parse(tfaults[i].type, &n, &msg);
    CHECK(rc == -1 && !n && strcmp((const char *)msg.data, tfaults[i].msg) == 0,
          "nested json: %s: %d %s", tfaults[i].type, rc,
          msg.len ? (const char *)msg.data : "");
  }
  CHECK(pq_nested_parse("DECIMAL(9,2)", &nested[0], &msg) == 0 && !nested[0],
        "nested json: a scalar");
  for (int k = 0; k < 4; k++) pq_nested_free(nested[k]);
  pq_buf_free(&msg);
}

int main(void) {
  test_random();
  test_partitions();
  test_columns();
  test_sink();
  test_page_index();
  test_sizes();
  test_nested();
  test_nested_json();
  test_float_bounds();
  test_pages();
  test_errors();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
