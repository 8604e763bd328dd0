/*
** unit_files.c -- the file reader of the core (src/format/metadata.c, page.c,
** column.c, assemble.c) on the files of ../shared/parquet-testing.
**
**   1. every file of data/: every page of every chunk read, every entry
**      of every column read, levels within their maxima, the values as
**      many as the entries at the maximum definition level, the chunks'
**      counts met, the whole file as JSON
**   2. large_string_map.brotli.parquet, whose two 1 GiB strings do not fit
**      a SQLite value: read here with a limit above them
**   3. every file of bad_data/: an error with a message, never a crash
**      (the sanitizer build checks the "never"); ARROW-GH-43605 reads
**   4. every file again through a pq_input (the footer, then windows of
**      the chunks, read on demand): the same JSON as from the image, or
**      the same error; every read inside the file, the bytes read about
**      the file's; a source that fails at its Nth read fails the read
**      with its error (PQ_IO), for every N
**
** Run from the root of the repository (the files are found relative to
** it).  Prints a line per failure starting with "!" and ends with
** "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200809L /* strdup, opendir */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet.h"

#define CHECK_FILES
#include "check.h"

#define LIMIT_SQL ((size_t)1000000000)    /* SQLite's default length limit */
#define LIMIT_BIG ((size_t)1 << 31)

/* Reads every page of one chunk; the data pages' level entries. */
static int read_pages(const pq_file *f, uint32_t rg, uint32_t col,
                      size_t limit, int64_t *entries, pq_error *err) {
  pq_page_reader *r;
  int rc = pq_page_reader_open(&r, f, rg, col, limit, err);
  if (rc) return rc;
  *entries = 0;
  for (;;) {
    pq_page page;
    int got;
    rc = pq_page_reader_next(r, &page, &got, err);
    if (rc || !got) break;
    if (page.page_type == PQ_DATA_PAGE || page.page_type == PQ_DATA_PAGE_V2)
      *entries += page.num_values;
  }
  pq_page_reader_free(r);
  return rc;
}

/* Reads every entry of one chunk through the column reader, checking the
** levels against the leaf's maxima and the values against the levels. */
typedef struct chunk_count {
  int64_t entries, values, at_max, bad_levels;
  size_t longest;   /* the longest BYTE_ARRAY value */
} chunk_count;

static int read_column(const pq_file *f, uint32_t rg, uint32_t col,
                       size_t limit, chunk_count *c, pq_error *err) {
  const pq_schema_node *leaf = pq_file_leaf(f, col);
  const pq_schema_element *e = leaf->elem;
  size_t vs = pq_value_size(e->type, e->type_length);
  uint8_t *vals = malloc(256 * (vs ? vs : 1));
  uint16_t rep[256], def[256];
  memset(c, 0, sizeof *c);
  pq_column_reader *r;
  int rc = pq_column_reader_open(&r, f, rg, col, limit, err);
  if (rc) {
    free(vals);
    return rc;
  }
  for (;;) {
    size_t n, nv;
    rc = pq_column_reader_read(r, 256, rep, def, vals, &n, &nv, err);
    if (rc || n == 0) break;
    c->entries += (int64_t)n;
    c->values += (int64_t)nv;
    for (size_t i = 0; i < n; i++) {
      if (def[i] > leaf->max_def || rep[i] > leaf->max_rep) c->bad_levels++;
      if (def[i] == leaf->max_def) c->at_max++;
    }
    if (e->type == PQ_BYTE_ARRAY) {
      const pq_bytes *b = (const pq_bytes *)vals;
      for (size_t i = 0; i < nv; i++)
        if (b[i].len > c->longest) c->longest = b[i].len;
    }
  }
  pq_column_reader_free(r);
  free(vals);
  return rc;
}

/* ---- 1. data/ ------------------------------------------------------------ */

/* Files that fail on purpose, and a word of their message. */
static const struct {
  const char *name, *word;
} failing[] = {
    {"datapage_v1-corrupt-checksum.parquet", "CRC mismatch"},
    {"rle-dict-uncompressed-corrupt-checksum.parquet", "CRC mismatch"},
    {"large_string_map.brotli.parquet", "exceed the limit of 1000000000"},
};

static const char *failing_word(const char *name) {
  for (size_t i = 0; i < sizeof failing / sizeof failing[0]; i++)
    if (strcmp(failing[i].name, name) == 0) return failing[i].word;
  return NULL;
}

/* Reads the whole file; returns the first error's code (err says it). */
static int read_file(const pq_file *f, size_t limit, const char *name,
                     int json, pq_error *err) {
  const pq_file_meta *m = pq_file_metadata(f);
  int rc = PQ_OK;
  for (uint32_t rg = 0; rg < m->n_row_groups && rc == PQ_OK; rg++) {
    for (uint32_t col = 0; col < pq_file_leaf_count(f) && rc == PQ_OK;
         col++) {
      const pq_column_chunk *cc = &m->row_groups[rg].columns[col];
      int64_t entries;
      rc = read_pages(f, rg, col, limit, &entries, err);
      if (rc) break;
      CHECK(entries == cc->meta.num_values,
            "%s rg %u col %u: pages hold %lld entries, the chunk says %lld",
            name, rg, col, (long long)entries,
            (long long)cc->meta.num_values);
      chunk_count c;
      rc = read_column(f, rg, col, limit, &c, err);
      if (rc) break;
      CHECK(c.entries == cc->meta.num_values && c.values == c.at_max &&
                c.bad_levels == 0,
            "%s rg %u col %u: %lld entries of %lld, %lld values, %lld at "
            "the maximum level, %lld levels above the maxima",
            name, rg, col, (long long)c.entries,
            (long long)cc->meta.num_values, (long long)c.values,
            (long long)c.at_max, (long long)c.bad_levels);
    }
  }
  if (rc == PQ_OK && json) {
    pq_buf out = {0};
    rc = pq_file_to_json(f, limit, &out, err);
    if (rc == PQ_OK)
      CHECK(out.len >= 2 && out.data[0] == '[' && out.data[out.len - 1] == ']',
            "%s: the JSON is not an array", name);
    pq_buf_free(&out);
  }
  return rc;
}

static void test_data(void) {
  size_t n;
  char **names = list_dir(PT "/data", &n);
  CHECK(n > 50, "%zu files in " PT "/data", n);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, PT "/data/%s", names[i]);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    CHECK(buf != NULL, "cannot read %s", path);
    if (!buf) continue;
    pq_file *f;
    pq_error err = {0};
    int rc = pq_file_open(&f, buf, len, &err);
    if (rc == PQ_OK) {
      rc = read_file(f, LIMIT_SQL, names[i], 1, &err);
      pq_file_free(f);
    }
    const char *word = failing_word(names[i]);
    if (word)
      CHECK(rc != PQ_OK && strstr(err.msg, word),
            "%s: expected an error with '%s', got %d '%s'", names[i], word,
            rc, err.msg);
    else
      CHECK(rc == PQ_OK, "%s: %s", names[i], err.msg);
    free(buf);
    free(names[i]);
  }
  free(names);
}

/* ---- 2. large_string_map.brotli.parquet ------------------------------------
** A map column of one row group; its two keys are strings of 2^30 bytes. */
static void test_large_string_map(void) {
  size_t len;
  uint8_t *buf = slurp(PT "/data/large_string_map.brotli.parquet", &len);
  CHECK(buf != NULL, "cannot read large_string_map.brotli.parquet");
  if (!buf) return;
  pq_file *f;
  pq_error err = {0};
  int rc = pq_file_open(&f, buf, len, &err);
  CHECK(rc == PQ_OK, "large_string_map: %s", err.msg);
  if (rc == PQ_OK) {
    size_t longest = 0;
    int64_t values = 0;
    for (uint32_t col = 0; col < pq_file_leaf_count(f); col++) {
      chunk_count c;
      rc = read_column(f, 0, col, LIMIT_BIG, &c, &err);
      CHECK(rc == PQ_OK, "large_string_map column %u: %s", col, err.msg);
      if (c.longest > longest) longest = c.longest;
      values += c.values;
    }
    CHECK(longest >= ((size_t)1 << 30),
          "large_string_map: the longest string is %zu bytes", longest);
    CHECK(values > 0, "large_string_map: no values");
    pq_file_free(f);
  }
  free(buf);
}

/* ---- 3. bad_data/ -------------------------------------------------------- */

static void test_bad_data(void) {
  size_t n;
  char **names = list_dir(PT "/bad_data", &n);
  CHECK(n >= 8, "%zu files in " PT "/bad_data", n);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, PT "/bad_data/%s", names[i]);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    CHECK(buf != NULL, "cannot read %s", path);
    if (!buf) continue;
    pq_file *f;
    pq_error err = {0};
    int rc = pq_file_open(&f, buf, len, &err);
    if (rc == PQ_OK) {
      rc = read_file(f, LIMIT_SQL, names[i], 1, &err);
      pq_file_free(f);
    }
    if (strcmp(names[i], "ARROW-GH-43605.parquet") == 0)
      CHECK(rc == PQ_OK, "%s: %s", names[i], err.msg);
    else
      CHECK(rc == PQ_CORRUPT && err.msg[0] != 0,
            "%s: expected a clean error, got %d '%s'", names[i], rc, err.msg);
    free(buf);
    free(names[i]);
  }
  free(names);
}

/* ---- 4. Through a pq_input -------------------------------------------------
** The image served by a function, as a descriptor would serve a file:
** each read is counted and checked against the size; fail_at makes the
** Nth read fail. */
typedef struct served {
  const uint8_t *buf;
  size_t len;
  long reads, fail_at;
  uint64_t bytes;
  int outside; /* a read past the end was asked for */
  long prefetches;
} served;

static void hint(void *ctx, uint64_t offset, size_t n) {
  served *s = ctx;
  s->prefetches++;
  if (offset > s->len || n > s->len - offset || n == 0) s->outside = 1;
}

static int serve(void *ctx, uint64_t offset, void *dst, size_t n,
                 pq_error *err) {
  served *s = ctx;
  s->reads++;
  if (offset > s->len || n > s->len - offset) {
    s->outside = 1;
    snprintf(err->msg, sizeof err->msg, "file: outside");
    err->code = PQ_IO;
    return PQ_IO;
  }
  if (s->fail_at && s->reads == s->fail_at) {
    snprintf(err->msg, sizeof err->msg, "file: read %ld failed", s->reads);
    err->code = PQ_IO;
    return PQ_IO;
  }
  memcpy(dst, s->buf + offset, n);
  s->bytes += n;
  return PQ_OK;
}

/* The file as JSON through the image (input 0) or a pq_input: the code,
** and the JSON or the error's message in *out. */
static int as_json(const uint8_t *buf, size_t len, served *s, char **out) {
  pq_file *f;
  pq_error err = {0};
  int rc;
  if (s) {
    pq_input in = {len, serve, s, hint, 0};
    s->buf = buf;
    s->len = len;
    rc = pq_file_open_input(&f, &in, &err);
  } else {
    rc = pq_file_open(&f, buf, len, &err);
  }
  pq_buf json = {0};
  if (rc == PQ_OK) {
    rc = pq_file_to_json(f, LIMIT_SQL, &json, &err);
    pq_file_free(f);
  }
  if (rc) {
    *out = strdup(err.msg);
  } else {
    *out = malloc(json.len + 1);
    memcpy(*out, json.data, json.len);
    (*out)[json.len] = 0;
  }
  pq_buf_free(&json);
  return rc;
}

static long all_prefetches; /* of the whole files read in order */
static pq_read_room room;   /* carried from file to file */

static void test_input_dir(const char *sub) {
  size_t n;
  char folder[256];
  snprintf(folder, sizeof folder, PT "/%s", sub);
  char **names = list_dir(folder, &n);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", folder, names[i]);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    if (!buf || strcmp(names[i], "large_string_map.brotli.parquet") == 0) {
      free(buf);
      free(names[i]);
      continue;
    }
    char *want, *got;
    int want_rc = as_json(buf, len, NULL, &want);
    served s = {0};
    int rc = as_json(buf, len, &s, &got);
    CHECK(rc == want_rc && strcmp(got, want) == 0,
          "%s/%s through a pq_input: %d '%.200s', from the image %d "
          "'%.200s'",
          sub, names[i], rc, got, want_rc, want);
    CHECK(!s.outside, "%s/%s: a read or a prefetch past the end", sub,
          names[i]);
    /* Each byte about once: a page's header read again when the page
    ** does not fit the window it begins in. */
    CHECK(s.bytes <= 2 * (uint64_t)len + 4096, "%s/%s: %llu bytes read of %zu",
          sub, names[i], (unsigned long long)s.bytes, len);
    free(got);
    all_prefetches += s.prefetches;
    /* Row group by row group with one room carried from each to the next,
    ** and to the next file (its owner forgotten when its file goes): the
    ** same rows. */
    if (want_rc == PQ_OK) {
      served s2 = {0};
      pq_input in = {len, serve, &s2, hint, 0};
      s2.buf = buf;
      s2.len = len;
      pq_file *f = NULL;
      pq_error err = {0};
      pq_buf json = {0};
      int rc2 = pq_file_open_input(&f, &in, &err);
      pq_buf_append(&json, "[", 1);
      for (uint32_t g = 0; rc2 == PQ_OK && g < pq_file_metadata(f)->n_row_groups;
           g++) {
        pq_row_reader *rr;
        rc2 = pq_row_reader_open_room(&rr, f, g, LIMIT_SQL, &room, &err);
        for (int gotrow = 1; rc2 == PQ_OK && gotrow;) {
          size_t before = json.len;
          if (json.len > 1) pq_buf_append(&json, ",", 1);
          rc2 = pq_row_reader_next(rr, &json, &gotrow, &err);
          if (!gotrow) json.len = before;
        }
        pq_row_reader_free(rr);
      }
      pq_buf_append(&json, "]", 1);
      if (f) pq_file_free(f);
      room.owner = NULL;
      CHECK(rc2 == PQ_OK && json.len == strlen(want) &&
                memcmp(json.data, want, json.len) == 0,
            "%s/%s with a room: %d '%.200s'", sub, names[i], rc2, err.msg);
      pq_buf_free(&json);
    }
    /* A source that fails at read k: that error, for every k. */
    long reads = s.reads;
    for (long k = 1; k <= reads && k <= 400; k++) {
      served f = {0};
      f.fail_at = k;
      int frc = as_json(buf, len, &f, &got);
      char word[64];
      snprintf(word, sizeof word, "read %ld failed", k);
      CHECK(frc == PQ_IO && strstr(got, word),
            "%s/%s: read %ld of %ld failed, yet %d '%.200s'", sub, names[i],
            k, reads, frc, got);
      free(got);
    }
    free(want);
    free(buf);
    free(names[i]);
  }
  free(names);
}

int main(void) {
  test_data();
  test_large_string_map();
  test_bad_data();
  test_input_dir("data");
  /* The larger chunks are read window after window, each telling of the
  ** next. */
  CHECK(all_prefetches > 0, "no prefetch told in data/");
  test_input_dir("data/geospatial");
  test_input_dir("bad_data");
  pq_buf_free(&room.window);
  pq_buf_free(&room.page);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
