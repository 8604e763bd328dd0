/*
** unit_meta.c -- page indexes and bloom filters in the core
** (src/format/page_index.c, bloom.c).
**
**   1. xxHash64 against published vectors (xxHash's own xxhsum gives the
**      same), and split-block filters built here by the spec's insert
**   2. pq_bloom_hash_cell: which SQL values map back to one physical value
**   3. every file of data/: each chunk's column index and offset index
**      read, the offset index equal to the pages the page reader finds
**      (offsets, sizes with their headers, first rows), the column index's
**      page count, null pages and null counts equal to the pages'
**   4. the bloom filters of data/: every value of the column "may be
**      there", most values that are not are excluded
**   5. bad_data/, and copies of the files with page indexes and bloom
**      filters whose bytes are garbled: a clean error or a result, never a
**      crash (the sanitizer build checks the "never")
**
** Run from the root of the repository.  Prints a line per failure starting
** with "!" and ends with "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200809L /* strdup, opendir */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet.h"

#define CHECK_FILES
#include "check.h"

#define LIMIT ((size_t)1000000000)

/* ---- 1. xxHash64 and the filter ------------------------------------------ */

static void test_xxhash(void) {
  static const struct {
    const char *s;
    uint64_t seed, h;
  } v[] = {
      {"", 0, 0xEF46DB3751D8E999ULL},
      {"a", 0, 0xD24EC4F1A98C6E5BULL},
      {"abc", 0, 0x44BC2CF5AD770999ULL},
      {"xxhash", 0, 0x32DD38952C4BC720ULL},
      {"xxhash", 20141025, 0xB559B98D844E0635ULL},
      {"Nobody inspects the spammish repetition", 0, 0xFBCEA83C8A378BF1ULL},
      /* 32 bytes: one stripe, no tail; 72: two stripes and every tail */
      {"0123456789abcdef0123456789abcdef", 0, 0x642A94958E71E6C5ULL},
      {"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
       "XYZ12345",
       0, 0xA617EC6FA956E0F7ULL},
  };
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    uint64_t h = pq_xxhash64(v[i].s, strlen(v[i].s), v[i].seed);
    CHECK(h == v[i].h, "xxhash64('%s', %llu) = %016llX, expected %016llX",
          v[i].s, (unsigned long long)v[i].seed, (unsigned long long)h,
          (unsigned long long)v[i].h);
  }
  char x[1000];
  memset(x, 'x', sizeof x);
  CHECK(pq_xxhash64(x, sizeof x, 0) == 0x4CB9A3B69CB700E1ULL,
        "xxhash64 of 1000 'x'");
  /* Values hash as their PLAIN bytes. */
  int32_t i32 = 1;
  CHECK(pq_bloom_hash(PQ_INT32, 0, &i32) == pq_xxhash64("\1\0\0\0", 4, 0),
        "INT32 1 hashes as 01000000");
  int64_t i64 = -2;
  CHECK(pq_bloom_hash(PQ_INT64, 0, &i64) ==
            pq_xxhash64("\xfe\xff\xff\xff\xff\xff\xff\xff", 8, 0),
        "INT64 -2");
  double d = 1.0;
  CHECK(pq_bloom_hash(PQ_DOUBLE, 0, &d) ==
            pq_xxhash64("\0\0\0\0\0\0\xf0\x3f", 8, 0),
        "DOUBLE 1.0");
  float fl = 1.0f;
  CHECK(pq_bloom_hash(PQ_FLOAT, 0, &fl) == pq_xxhash64("\0\0\x80\x3f", 4, 0),
        "FLOAT 1.0");
  pq_bytes b = {(const uint8_t *)"Hello", 5};
  CHECK(pq_bloom_hash(PQ_BYTE_ARRAY, 0, &b) == pq_xxhash64("Hello", 5, 0),
        "BYTE_ARRAY: the bytes without their length");
  CHECK(pq_bloom_hash(PQ_FIXED_LEN_BYTE_ARRAY, 3, "abc") ==
            pq_xxhash64("abc", 3, 0),
        "FIXED_LEN_BYTE_ARRAY(3)");
}

/* The spec's insert, to build filters to check against. */
static void bloom_insert(uint8_t *bits, uint32_t num_bytes, uint64_t h) {
  static const uint32_t salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                   0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                   0x9efc4947U, 0x5c6bfb31U};
  uint64_t block = ((h >> 32) * (num_bytes / 32)) >> 32;
  uint32_t key = (uint32_t)h;
  for (int i = 0; i < 8; i++) {
    uint32_t bit = (uint32_t)(key * salt[i]) >> 27;
    uint8_t *w = bits + block * 32 + 4 * i;
    w[bit / 8] |= (uint8_t)(1u << (bit % 8)); /* little-endian words */
  }
}

static void test_bloom_filter(void) {
  static uint8_t bits[4096];
  pq_bloom b = {bits, sizeof bits, 0, 0};
  uint64_t in[300];
  for (size_t i = 0; i < 300; i++) {
    in[i] = rnd();
    bloom_insert(bits, sizeof bits, in[i]);
  }
  int missed = 0, passed_out = 0;
  for (size_t i = 0; i < 300; i++) missed += !pq_bloom_check(&b, in[i]);
  CHECK(missed == 0, "%d inserted hashes are not in the filter", missed);
  for (int i = 0; i < 10000; i++) passed_out += pq_bloom_check(&b, rnd());
  /* 300 keys in 128 blocks: about 0.1% false positives; 2% is a bound. */
  CHECK(passed_out < 200, "%d of 10000 other hashes pass", passed_out);
  /* An empty filter holds nothing; a full one everything. */
  static uint8_t none[32], all[32];
  memset(all, 0xff, sizeof all);
  pq_bloom e = {none, 32, 0, 0}, f = {all, 32, 0, 0};
  CHECK(!pq_bloom_check(&e, 12345) && pq_bloom_check(&f, 12345),
        "empty and full filters");
  /* The block: the top 32 bits of the hash scaled to the block count. */
  static uint8_t two[64];
  pq_bloom t = {two, 64, 0, 0};
  bloom_insert(two, 64, 0xC000000000000000ULL | 7);
  CHECK(two[32 + 0] | two[32 + 1] | two[32 + 2] | two[32 + 3],
        "hash 0xC0.. lands in the second block of two");
  CHECK(pq_bloom_check(&t, 0xC000000000000000ULL | 7) &&
            !pq_bloom_check(&t, 0x4000000000000000ULL | 7),
        "the block index");
}

/* ---- 2. SQL values mapped back -------------------------------------------- */

static pq_schema_element elem(pq_type t, int32_t type_length, int conv,
                              int lt) {
  pq_schema_element e;
  memset(&e, 0, sizeof e);
  e.has_type = 1;
  e.type = t;
  e.type_length = type_length;
  e.repetition = 1;
  e.num_children = -1;
  e.converted_type = conv;
  e.scale = e.precision = e.field_id = -1;
  e.logical_type = lt;
  return e;
}

static pq_cell cell_int(int64_t i) {
  pq_cell c = {.kind = PQ_CELL_INT, .i = i};
  return c;
}
static pq_cell cell_real(double r) {
  pq_cell c = {.kind = PQ_CELL_REAL, .r = r};
  return c;
}
static pq_cell cell_bytes(int kind, const char *s, size_t n) {
  pq_cell c = {.kind = kind, .p = (const uint8_t *)s, .n = n};
  return c;
}

/* pq_bloom_hash_cell of e and c: its result, the hash in *h. */
static int map(const pq_schema_element *e, pq_cell c, uint64_t *h) {
  pq_schema_node n;
  memset(&n, 0, sizeof n);
  n.elem = e;
  n.leaf = 0;
  *h = 0;
  return pq_bloom_hash_cell(&n, &c, h);
}

static void test_hash_cell(void) {
  uint64_t h;
  int32_t i32;
  int64_t i64;
  double d;
  float fl;

  pq_schema_element e = elem(PQ_INT32, 0, -1, 0);
  i32 = 5;
  CHECK(map(&e, cell_int(5), &h) == 1 && h == pq_bloom_hash(PQ_INT32, 0, &i32),
        "INT32 from 5");
  CHECK(map(&e, cell_real(5.0), &h) == 1 &&
            h == pq_bloom_hash(PQ_INT32, 0, &i32),
        "INT32 from 5.0");
  i32 = INT32_MIN;
  CHECK(map(&e, cell_int(INT32_MIN), &h) == 1 &&
            h == pq_bloom_hash(PQ_INT32, 0, &i32),
        "INT32 from its least");
  CHECK(map(&e, cell_real(5.5), &h) == 0, "INT32 from 5.5: none");
  CHECK(map(&e, cell_int(2147483648LL), &h) == 0, "INT32 from 2^31: none");
  CHECK(map(&e, cell_real(2147483648.0), &h) == 0, "INT32 from 2^31.0");
  CHECK(map(&e, cell_real(-2147483649.0), &h) == 0, "INT32 from -2^31-1");
  CHECK(map(&e, cell_real(1e300), &h) == 0, "INT32 from 1e300");
  CHECK(map(&e, cell_real(NAN), &h) == -1, "INT32 from NaN: not known");
  CHECK(map(&e, cell_bytes(PQ_CELL_TEXT, "5", 1), &h) == -1, "INT32 from '5'");
  pq_cell null = {.kind = PQ_CELL_NULL};
  CHECK(map(&e, null, &h) == -1, "INT32 from NULL");
  static const struct {
    int conv, lt, is_signed, expect;
  } ann[] = {
      {15, 0, 0, 1},  {18, 0, 0, 1},  {-1, 10, 1, 1}, {16, 10, 1, 1},
      {11, 0, 0, -1}, {14, 0, 0, -1}, {-1, 10, 0, -1}, {5, 0, 0, -1},
      {-1, 5, 0, -1}, {6, 0, 0, -1},  {-1, 6, 0, -1}, {7, 0, 0, -1},
      {-1, 7, 0, -1}, {0, 0, 0, -1},  {-1, 1, 0, -1}, {-1, 99, 0, -1},
  };
  for (size_t i = 0; i < sizeof ann / sizeof ann[0]; i++) {
    pq_schema_element a = elem(PQ_INT32, 0, ann[i].conv, ann[i].lt);
    a.logical_signed = ann[i].is_signed;
    a.logical_bit_width = 32;
    CHECK(map(&a, cell_int(1), &h) == ann[i].expect,
          "INT32 converted %d logical %d signed %d: expected %d",
          ann[i].conv, ann[i].lt, ann[i].is_signed, ann[i].expect);
  }

  e = elem(PQ_INT64, 0, -1, 0);
  i64 = INT64_MIN;
  CHECK(map(&e, cell_int(INT64_MIN), &h) == 1 &&
            h == pq_bloom_hash(PQ_INT64, 0, &i64),
        "INT64 from its least");
  CHECK(map(&e, cell_real(-9223372036854775808.0), &h) == 1 &&
            h == pq_bloom_hash(PQ_INT64, 0, &i64),
        "INT64 from -2^63 as REAL");
  CHECK(map(&e, cell_real(9223372036854775808.0), &h) == 0,
        "INT64 from 2^63: none");
  i64 = 1LL << 60;
  CHECK(map(&e, cell_real(1152921504606846976.0), &h) == 1 &&
            h == pq_bloom_hash(PQ_INT64, 0, &i64),
        "INT64 from 2^60 as REAL");
  CHECK(map(&e, cell_real(0.25), &h) == 0, "INT64 from 0.25");
  e = elem(PQ_INT64, 0, 10, 0); /* TIMESTAMP_MILLIS */
  CHECK(map(&e, cell_int(1), &h) == -1, "TIMESTAMP_MILLIS: not known");
  e = elem(PQ_INT64, 0, -1, 8);
  CHECK(map(&e, cell_int(1), &h) == -1, "TIMESTAMP: not known");

  e = elem(PQ_DOUBLE, 0, -1, 0);
  d = 1.5;
  CHECK(map(&e, cell_real(1.5), &h) == 1 && h == pq_bloom_hash(PQ_DOUBLE, 0, &d),
        "DOUBLE from 1.5");
  d = 3;
  CHECK(map(&e, cell_int(3), &h) == 1 && h == pq_bloom_hash(PQ_DOUBLE, 0, &d),
        "DOUBLE from 3");
  CHECK(map(&e, cell_int((1LL << 53) + 1), &h) == 0,
        "DOUBLE from 2^53+1: no double is that");
  CHECK(map(&e, cell_int(INT64_MAX), &h) == 0, "DOUBLE from 2^63-1");
  CHECK(map(&e, cell_real(0.0), &h) == -1 && map(&e, cell_int(0), &h) == -1,
        "DOUBLE from 0: 0.0 and -0.0, two values");
  d = INFINITY;
  CHECK(map(&e, cell_real(INFINITY), &h) == 1 &&
            h == pq_bloom_hash(PQ_DOUBLE, 0, &d),
        "DOUBLE from Inf");
  CHECK(map(&e, cell_bytes(PQ_CELL_TEXT, "1", 1), &h) == -1, "DOUBLE from '1'");

  e = elem(PQ_FLOAT, 0, -1, 0);
  fl = 0.5f;
  CHECK(map(&e, cell_real(0.5), &h) == 1 && h == pq_bloom_hash(PQ_FLOAT, 0, &fl),
        "FLOAT from 0.5");
  CHECK(map(&e, cell_real(0.1), &h) == 0, "FLOAT from 0.1: no float is that");
  fl = 0.1f;
  CHECK(map(&e, cell_real((double)0.1f), &h) == 1 &&
            h == pq_bloom_hash(PQ_FLOAT, 0, &fl),
        "FLOAT from the float nearest 0.1");
  CHECK(map(&e, cell_real(1e39), &h) == 0, "FLOAT from 1e39");
  CHECK(map(&e, cell_int(16777217), &h) == 0, "FLOAT from 2^24+1");
  fl = 16777216.0f;
  CHECK(map(&e, cell_int(16777216), &h) == 1 &&
            h == pq_bloom_hash(PQ_FLOAT, 0, &fl),
        "FLOAT from 2^24");
  fl = -INFINITY;
  CHECK(map(&e, cell_real(-INFINITY), &h) == 1 &&
            h == pq_bloom_hash(PQ_FLOAT, 0, &fl),
        "FLOAT from -Inf");

  e = elem(PQ_BYTE_ARRAY, 0, -1, 0);
  CHECK(map(&e, cell_bytes(PQ_CELL_TEXT, "abc", 3), &h) == 1 &&
            h == pq_xxhash64("abc", 3, 0),
        "BYTE_ARRAY from 'abc'");
  CHECK(map(&e, cell_bytes(PQ_CELL_BLOB, "\0\1", 2), &h) == 1 &&
            h == pq_xxhash64("\0\1", 2, 0),
        "BYTE_ARRAY from X'0001'");
  CHECK(map(&e, cell_bytes(PQ_CELL_TEXT, NULL, 0), &h) == 1 &&
            h == pq_xxhash64("", 0, 0),
        "BYTE_ARRAY from ''");
  CHECK(map(&e, cell_int(1), &h) == -1, "BYTE_ARRAY from 1");
  static const struct {
    int conv, lt, expect;
  } bann[] = {{0, 0, 1},   {-1, 1, 1},  {4, 4, 1},  {19, 12, 1},
              {20, 0, -1}, {-1, 13, -1}, {5, 0, -1}, {-1, 5, -1}};
  for (size_t i = 0; i < sizeof bann / sizeof bann[0]; i++) {
    pq_schema_element a = elem(PQ_BYTE_ARRAY, 0, bann[i].conv, bann[i].lt);
    CHECK(map(&a, cell_bytes(PQ_CELL_TEXT, "x", 1), &h) == bann[i].expect,
          "BYTE_ARRAY converted %d logical %d: expected %d", bann[i].conv,
          bann[i].lt, bann[i].expect);
  }

  e = elem(PQ_FIXED_LEN_BYTE_ARRAY, 4, -1, 0);
  CHECK(map(&e, cell_bytes(PQ_CELL_BLOB, "abcd", 4), &h) == 1 &&
            h == pq_xxhash64("abcd", 4, 0),
        "FIXED_LEN_BYTE_ARRAY(4) from 4 bytes");
  CHECK(map(&e, cell_bytes(PQ_CELL_BLOB, "abc", 3), &h) == 0,
        "FIXED_LEN_BYTE_ARRAY(4) from 3 bytes: none");
  CHECK(map(&e, cell_int(1), &h) == -1, "FIXED_LEN_BYTE_ARRAY from 1");
  e = elem(PQ_FIXED_LEN_BYTE_ARRAY, 16, -1, 14);
  CHECK(map(&e, cell_bytes(PQ_CELL_BLOB, "0123456789abcdef", 16), &h) == -1,
        "UUID: not known");
  e = elem(PQ_FIXED_LEN_BYTE_ARRAY, 2, -1, 15);
  CHECK(map(&e, cell_real(1.0), &h) == -1, "FLOAT16: not known");
  e = elem(PQ_FIXED_LEN_BYTE_ARRAY, 8, 5, 5);
  CHECK(map(&e, cell_real(1.0), &h) == -1, "DECIMAL: not known");
  e = elem(PQ_BOOLEAN, 0, -1, 0);
  CHECK(map(&e, cell_int(1), &h) == -1, "BOOLEAN: not known");
  e = elem(PQ_INT96, 0, -1, 0);
  CHECK(map(&e, cell_bytes(PQ_CELL_BLOB, "012345678901", 12), &h) == -1,
        "INT96: not known");
  pq_schema_node group;
  memset(&group, 0, sizeof group);
  group.elem = &e;
  group.leaf = -1;
  CHECK(pq_bloom_hash_cell(&group, &null, &h) == -1, "a group: not known");
}

/* ---- 3. The page indexes of data/ ------------------------------------------- */

/* Rows that begin in a page: its entries whose repetition level is 0. */
static int page_rows(const pq_page *p, int64_t *rows, pq_error *err) {
  if (p->max_rep == 0) {
    *rows = p->num_values;
    return PQ_OK;
  }
  pq_params prm;
  pq_params_init(&prm);
  prm.encoding = (pq_encoding)p->rep_encoding;
  prm.type = PQ_INT32;
  prm.type_set = 1;
  prm.bit_width = 0;
  for (int m = p->max_rep; m; m >>= 1) prm.bit_width++;
  prm.count = p->num_values;
  prm.length_prefix = p->page_type == PQ_DATA_PAGE && p->rep_encoding == PQ_RLE;
  pq_decoder *d;
  int rc = pq_decoder_open(&d, &prm, p->rep_levels.ptr, p->rep_levels.len,
                           NULL, 0, err);
  if (rc) return rc;
  *rows = 0;
  uint32_t lv[256];
  for (;;) {
    size_t n;
    rc = pq_decoder_read(d, lv, 256, &n, err);
    if (rc || n == 0) break;
    for (size_t i = 0; i < n; i++) *rows += lv[i] == 0;
  }
  pq_decoder_free(d);
  return rc;
}

typedef struct index_counts {
  int column_indexes, offset_indexes, pages;
} index_counts;

/* One chunk's indexes against its pages. */
static void check_chunk(const char *name, const pq_file *f, uint32_t rg,
                        uint32_t col, index_counts *k) {
  pq_error err = {0};
  pq_column_index *ci = NULL;
  pq_offset_index *oi = NULL;
  int rc = pq_column_index_read(f, rg, col, &ci, &err);
  CHECK(rc == PQ_OK, "%s rg %u col %u: %s", name, rg, col, err.msg);
  rc = pq_offset_index_read(f, rg, col, &oi, &err);
  CHECK(rc == PQ_OK, "%s rg %u col %u: %s", name, rg, col, err.msg);
  const pq_column_chunk *cc = &pq_file_metadata(f)->row_groups[rg].columns[col];
  CHECK((ci != NULL) == (cc->column_index_offset >= 0) &&
            (oi != NULL) == (cc->offset_index_offset >= 0),
        "%s rg %u col %u: an index read where the footer has none, or none "
        "where it has one",
        name, rg, col);
  k->column_indexes += ci != NULL;
  k->offset_indexes += oi != NULL;
  if (ci && oi) {
    CHECK(ci->n_pages == oi->n_pages, "%s rg %u col %u: %u and %u pages", name,
          rg, col, ci->n_pages, oi->n_pages);
  }
  if (ci || oi) {
    pq_page_reader *r;
    rc = pq_page_reader_open(&r, f, rg, col, LIMIT, &err);
    CHECK(rc == PQ_OK, "%s rg %u col %u: %s", name, rg, col, err.msg);
    uint32_t i = 0;
    int64_t row = 0;
    while (rc == PQ_OK) {
      pq_page p;
      int got;
      rc = pq_page_reader_next(r, &p, &got, &err);
      if (rc || !got) break;
      if (p.page_type != PQ_DATA_PAGE && p.page_type != PQ_DATA_PAGE_V2)
        continue;
      if (oi && i < oi->n_pages) {
        const pq_page_location *l = &oi->pages[i];
        CHECK(l->offset == p.offset &&
                  l->compressed_page_size ==
                      (int32_t)p.header_size + p.compressed_size &&
                  l->first_row_index == row,
              "%s rg %u col %u page %u: the index says %lld, %d bytes, row "
              "%lld; the page is at %lld, %u + %d bytes, row %lld",
              name, rg, col, i, (long long)l->offset, l->compressed_page_size,
              (long long)l->first_row_index, (long long)p.offset,
              p.header_size, p.compressed_size, (long long)row);
      }
      if (ci && i < ci->n_pages) {
        /* parquet-mr writes null_pages true and null_counts -1 when it
        ** kept no statistics (datapage_v1-*-checksum.parquet): an index
        ** that says nothing. */
        int unknown = ci->null_counts && ci->null_counts[i] < 0;
        CHECK(unknown ||
                  ci->null_pages[i] == (p.value_count == 0 && p.num_values > 0),
              "%s rg %u col %u page %u: null_pages %d, %lld values of %d", name,
              rg, col, i, ci->null_pages[i], (long long)p.value_count,
              p.num_values);
        if (ci->null_counts && ci->null_counts[i] >= 0 && p.max_rep == 0)
          CHECK(ci->null_counts[i] == p.num_values - p.value_count,
                "%s rg %u col %u page %u: null_counts %lld, %lld nulls", name,
                rg, col, i, (long long)ci->null_counts[i],
                (long long)(p.num_values - p.value_count));
      }
      int64_t rows;
      if (page_rows(&p, &rows, &err) == PQ_OK) row += rows;
      i++;
      k->pages++;
    }
    CHECK(rc == PQ_OK, "%s rg %u col %u: %s", name, rg, col, err.msg);
    CHECK(!oi || i == oi->n_pages, "%s rg %u col %u: %u data pages, %u in "
          "the offset index", name, rg, col, i, oi ? oi->n_pages : 0);
    pq_page_reader_free(r);
  }
  pq_column_index_free(ci);
  pq_offset_index_free(oi);
}

/* Files whose pages cannot all be read (tests/unit_files.c). */
static int failing(const char *name) {
  return strcmp(name, "datapage_v1-corrupt-checksum.parquet") == 0 ||
         strcmp(name, "rle-dict-uncompressed-corrupt-checksum.parquet") == 0 ||
         strcmp(name, "nation.dict-malformed.parquet") == 0 ||
         strcmp(name, "large_string_map.brotli.parquet") == 0;
}

static void test_page_indexes(void) {
  size_t n;
  char **names = list_dir(PT "/data", &n);
  index_counts k = {0, 0, 0};
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, PT "/data/%s", names[i]);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    pq_file *f;
    pq_error err = {0};
    if (buf && !failing(names[i]) && pq_file_open(&f, buf, len, &err) == PQ_OK) {
      const pq_file_meta *m = pq_file_metadata(f);
      for (uint32_t rg = 0; rg < m->n_row_groups; rg++)
        for (uint32_t col = 0; col < pq_file_leaf_count(f); col++)
          check_chunk(names[i], f, rg, col, &k);
      /* Out of range. */
      pq_column_index *ci;
      CHECK(pq_column_index_read(f, m->n_row_groups, 0, &ci, &err) ==
                    PQ_MISUSE &&
                ci == NULL,
            "%s: a row group past the last", names[i]);
      pq_file_free(f);
    }
    free(buf);
    free(names[i]);
  }
  free(names);
  CHECK(k.column_indexes > 50 && k.offset_indexes > 50 && k.pages > 500,
        "%d column indexes, %d offset indexes, %d pages checked",
        k.column_indexes, k.offset_indexes, k.pages);
}

/* ---- 4. Bloom filters --------------------------------------------------------- */

static void test_bloom_file(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, PT "/data/%s", name);
  size_t len;
  uint8_t *buf = slurp(path, &len);
  CHECK(buf != NULL, "cannot read %s", path);
  if (!buf) return;
  pq_file *f;
  pq_error err = {0};
  int rc = pq_file_open(&f, buf, len, &err);
  CHECK(rc == PQ_OK, "%s: %s", name, err.msg);
  if (rc) {
    free(buf);
    return;
  }
  pq_bloom b;
  int present;
  rc = pq_bloom_read(f, 0, 0, &b, &present, &err);
  CHECK(rc == PQ_OK && present && b.num_bytes >= 32 && b.num_bytes % 32 == 0,
        "%s: %s", name, err.msg);
  if (rc == PQ_OK && present) {
    const pq_column_meta *cm = &pq_file_metadata(f)->row_groups[0].columns[0].meta;
    CHECK(b.offset == cm->bloom_filter_offset, "%s: the offset", name);
    CHECK(cm->bloom_filter_length < 0 ||
              (int64_t)b.header_size + b.num_bytes == cm->bloom_filter_length,
          "%s: header %u + bitset %u bytes, bloom_filter_length %d", name,
          b.header_size, b.num_bytes, cm->bloom_filter_length);
    pq_column_reader *r;
    rc = pq_column_reader_open(&r, f, 0, 0, LIMIT, &err);
    CHECK(rc == PQ_OK, "%s: %s", name, err.msg);
    int values = 0, missed = 0;
    while (rc == PQ_OK) {
      pq_bytes v[64];
      size_t nr, nv;
      rc = pq_column_reader_read(r, 64, NULL, NULL, v, &nr, &nv, &err);
      if (rc || nr == 0) break;
      for (size_t i = 0; i < nv; i++, values++) {
        if (!pq_bloom_check(&b, pq_bloom_hash(PQ_BYTE_ARRAY, 0, &v[i]))) {
          missed++;
          printf("! %s: '%.*s' is not in the filter\n", name, (int)v[i].len,
                 (const char *)v[i].ptr);
        }
      }
    }
    pq_column_reader_free(r);
    CHECK(values > 0 && missed == 0, "%s: %d of %d values missed", name,
          missed, values);
    int excluded = 0;
    for (int i = 0; i < 1000; i++) {
      char s[32];
      int k = snprintf(s, sizeof s, "not there %d", i);
      pq_bytes x = {(const uint8_t *)s, (size_t)k};
      excluded += !pq_bloom_check(&b, pq_bloom_hash(PQ_BYTE_ARRAY, 0, &x));
    }
    CHECK(excluded > 900, "%s: %d of 1000 other values excluded", name,
          excluded);
  }
  /* A chunk without a filter. */
  pq_file_free(f);
  free(buf);
}

static void test_no_bloom(void) {
  size_t len;
  uint8_t *buf = slurp(PT "/data/alltypes_plain.parquet", &len);
  if (!buf) return;
  pq_file *f;
  pq_error err = {0};
  if (pq_file_open(&f, buf, len, &err) == PQ_OK) {
    pq_bloom b;
    int present = 7;
    CHECK(pq_bloom_read(f, 0, 0, &b, &present, &err) == PQ_OK && !present,
          "alltypes_plain: no bloom filter");
    pq_column_index *ci = (pq_column_index *)&b;
    pq_offset_index *oi = (pq_offset_index *)&b;
    CHECK(pq_column_index_read(f, 0, 0, &ci, &err) == PQ_OK && ci == NULL &&
              pq_offset_index_read(f, 0, 0, &oi, &err) == PQ_OK && oi == NULL,
          "alltypes_plain: no page index");
    pq_file_free(f);
  }
  free(buf);
}

/* ---- 5. Bad files ---------------------------------------------------------------- */

/* Reads every index and filter of an image; the number of errors. */
static int read_all(const uint8_t *buf, size_t len, int *opened) {
  pq_file *f;
  pq_error err;
  memset(&err, 0, sizeof err);
  *opened = 0;
  if (pq_file_open(&f, buf, len, &err) != PQ_OK) {
    CHECK(err.msg[0] != 0, "an error without a message");
    return 1;
  }
  *opened = 1;
  int errors = 0;
  const pq_file_meta *m = pq_file_metadata(f);
  for (uint32_t rg = 0; rg < m->n_row_groups; rg++) {
    for (uint32_t col = 0; col < pq_file_leaf_count(f); col++) {
      pq_column_index *ci;
      pq_offset_index *oi;
      pq_bloom b;
      int present;
      err.msg[0] = 0;
      if (pq_column_index_read(f, rg, col, &ci, &err)) {
        CHECK(err.msg[0] && ci == NULL, "a column index error: '%s'", err.msg);
        errors++;
      } else if (ci) {
        /* Touch everything it holds. */
        uint64_t s = 0;
        for (uint32_t i = 0; i < ci->n_pages; i++) {
          s += ci->null_pages[i] + ci->min_values[i].len +
               ci->max_values[i].len;
          if (ci->min_values[i].len) s += ci->min_values[i].ptr[0];
          if (ci->max_values[i].len)
            s += ci->max_values[i].ptr[ci->max_values[i].len - 1];
          if (ci->null_counts) s += (uint64_t)ci->null_counts[i];
        }
        for (uint32_t i = 0; ci->rep_histograms && i < ci->n_rep_histograms; i++)
          s += (uint64_t)ci->rep_histograms[i];
        for (uint32_t i = 0; ci->def_histograms && i < ci->n_def_histograms; i++)
          s += (uint64_t)ci->def_histograms[i];
        (void)s;
        pq_column_index_free(ci);
      }
      err.msg[0] = 0;
      if (pq_offset_index_read(f, rg, col, &oi, &err)) {
        CHECK(err.msg[0] && oi == NULL, "an offset index error: '%s'", err.msg);
        errors++;
      } else if (oi) {
        for (uint32_t i = 0; i < oi->n_pages; i++) {
          CHECK(oi->pages[i].offset >= 4 &&
                    (uint64_t)oi->pages[i].offset +
                            (uint64_t)oi->pages[i].compressed_page_size <=
                        len,
                "a page location outside the file");
          if (oi->unencoded_byte_array_data_bytes)
            CHECK(oi->unencoded_byte_array_data_bytes[i] >= 0, "unencoded");
        }
        pq_offset_index_free(oi);
      }
      err.msg[0] = 0;
      if (pq_bloom_read(f, rg, col, &b, &present, &err)) {
        CHECK(err.msg[0] && !present, "a bloom filter error: '%s'", err.msg);
        errors++;
      } else if (present) {
        CHECK(b.bitset >= buf && b.bitset + b.num_bytes <= buf + len,
              "a bitset outside the file");
        for (int i = 0; i < 16; i++) pq_bloom_check(&b, rnd());
      }
    }
  }
  pq_file_free(f);
  return errors;
}

static void test_bad_data(void) {
  size_t n;
  char **names = list_dir(PT "/bad_data", &n);
  CHECK(n >= 8, "%zu files in " PT "/bad_data", n);
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, PT "/bad_data/%s", names[i]);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    int opened;
    if (buf) read_all(buf, len, &opened);
    free(buf);
    free(names[i]);
  }
  free(names);
}

/* Copies of a file with bytes garbled where the page indexes, the bloom
** filters and the footer are: every read ends cleanly. */
static void test_garbled(const char *name, int rounds) {
  char path[1024];
  snprintf(path, sizeof path, PT "/data/%s", name);
  size_t len;
  uint8_t *buf = slurp(path, &len);
  CHECK(buf != NULL, "cannot read %s", path);
  if (!buf) return;
  int opened;
  CHECK(read_all(buf, len, &opened) == 0 && opened, "%s reads cleanly", name);
  /* From the first index or filter to the end. */
  pq_file *f;
  pq_error err;
  size_t lo = len - 8;
  if (pq_file_open(&f, buf, len, &err) == PQ_OK) {
    const pq_file_meta *m = pq_file_metadata(f);
    for (uint32_t rg = 0; rg < m->n_row_groups; rg++) {
      for (uint32_t c = 0; c < m->row_groups[rg].n_columns; c++) {
        const pq_column_chunk *cc = &m->row_groups[rg].columns[c];
        int64_t o[3] = {cc->column_index_offset, cc->offset_index_offset,
                        cc->meta.bloom_filter_offset};
        for (int j = 0; j < 3; j++)
          if (o[j] >= 4 && (size_t)o[j] < lo) lo = (size_t)o[j];
      }
    }
    pq_file_free(f);
  }
  uint8_t *copy = malloc(len);
  int errors = 0, opens = 0;
  for (int r = 0; r < rounds; r++) {
    memcpy(copy, buf, len);
    int flips = 1 + (int)(rnd() % 4);
    for (int j = 0; j < flips; j++) {
      size_t at = lo + (size_t)(rnd() % (len - 8 - lo));
      copy[at] = (uint8_t)rnd();
    }
    /* A cut copy too, now and then: the footer then is elsewhere. */
    size_t n = len;
    if (r % 7 == 0) n = lo + (size_t)(rnd() % (len - lo));
    errors += read_all(copy, n, &opened);
    opens += opened;
  }
  CHECK(opens > 0 && errors > 0, "%s: %d of %d garbled copies opened, %d "
        "errors", name, opens, rounds, errors);
  free(copy);
  free(buf);
}

int main(void) {
  test_xxhash();
  test_bloom_filter();
  test_hash_cell();
  test_page_indexes();
  test_bloom_file("data_index_bloom_encoding_stats.parquet");
  test_bloom_file("data_index_bloom_encoding_with_length.parquet");
  test_no_bloom();
  test_bad_data();
  test_garbled("data_index_bloom_encoding_stats.parquet", 3000);
  test_garbled("data_index_bloom_encoding_with_length.parquet", 3000);
  test_garbled("alltypes_tiny_pages_plain.parquet", 1000);
  test_garbled("floating_orders_nan_count.parquet", 1000);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
