/*
** unit_variant_build.c -- JSON as VARIANT (src/encodings/variant_build.c,
** pq_variant_from_json), against spec/VariantEncoding.md.
**
**   1. the examples of ../shared/parquet-testing/variant: each one's JSON
**      (data_dictionary.json) encoded and compared with its .metadata and
**      .value files.  Where our rules give the example's types the value
**      is equal byte for byte; the metadata too, but for the header's
**      sorted_strings bit, which the files (written by Spark) never set
**      while ours always is.  Examples with objects have Spark's
**      dictionary in the order the names came, not sorted, so their ids
**      and metadata differ: they are compared as decoded by a slow
**      reference decoder here (names resolved, every type and byte of
**      every primitive; object_primitive's 1.23456789 is a decimal4 of
**      scale 8 in both).  The rest are types JSON text cannot carry
**      (dates, times, timestamps, UUIDs, binary, float: strings or
**      numbers in the JSON) or numbers our rules type otherwise
**      (12345678.9 is a decimal4 here, 9 digits, where the file has a
**      decimal8; 1234567890.1234 a decimal8 where it has a double): they
**      are listed and checked to differ.
**   2. exact bytes of every rule at its bounds: 127/128, -128/-129,
**      32767/32768, 2^31, 2^63, 38/39 digits, scales, exponents, 63/64
**      byte strings, 255/256 elements, 1, 2 and 3 byte offsets, 1 and 2
**      byte field ids and metadata offsets, sorting and duplicate names
**   3. faults: text that is not JSON (the offset named), a name twice,
**      nesting past the bound, strings not UTF-8
**
** Prints a line per failure starting with "!" and ends with
** "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encodings/encodings.h"
#include "parquet.h"

#define CHECK_FILES
#include "check.h"

#define VT PT "/variant"

/* ---- Helpers --------------------------------------------------------------- */

static char *hex(const uint8_t *p, size_t n) {
  char *s = malloc(2 * n + 1);
  for (size_t i = 0; i < n; i++) sprintf(s + 2 * i, "%02X", p[i]);
  s[2 * n] = 0;
  return s;
}

/* json encoded: its metadata's and value's hex, "ERR:<message>" on a
** fault (the caller frees both). */
static void enc(const char *json, char **meta, char **value) {
  pq_buf m, v;
  pq_buf_init(&m);
  pq_buf_init(&v);
  pq_error err = {0};
  int rc = pq_variant_from_json(json, strlen(json), &m, &v, &err);
  if (rc) {
    *meta = malloc(strlen(err.msg) + 8);
    sprintf(*meta, "ERR:%s", err.msg);
    *value = strdup("");
  } else {
    *meta = hex(m.data, m.len);
    *value = hex(v.data, v.len);
  }
  pq_buf_free(&m);
  pq_buf_free(&v);
}

#define EXPECT(json, meta_hex, value_hex)                                  \
  do {                                                                     \
    char *m_, *v_;                                                         \
    enc(json, &m_, &v_);                                                   \
    CHECK(strcmp(m_, meta_hex) == 0, "%s: metadata %s, not %s", json, m_,  \
          meta_hex);                                                       \
    CHECK(strcmp(v_, value_hex) == 0, "%s: value %s, not %s", json, v_,    \
          value_hex);                                                      \
    free(m_);                                                              \
    free(v_);                                                              \
  } while (0)

/* The value of json; the empty metadata expected. */
#define EXPECT_V(json, value_hex) EXPECT(json, "110000", value_hex)

#define EXPECT_ERR(json, text)                                             \
  do {                                                                     \
    char *m_, *v_;                                                         \
    enc(json, &m_, &v_);                                                   \
    CHECK(strncmp(m_, "ERR:", 4) == 0 && strstr(m_, text), "%s: %s, not %s", \
          json, m_, text);                                                 \
    free(m_);                                                              \
    free(v_);                                                              \
  } while (0)

/* ---- A slow reference decoder ---------------------------------------------------
** A value as text: each primitive as its type id and its bytes in hex,
** strings (short or not) as s:"...", arrays [a,b], objects {"name":v,...}
** in the order of the field ids (which the spec says is the names'). */

static uint64_t le(const uint8_t *p, int w) {
  uint64_t v = 0;
  for (int i = 0; i < w; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

typedef struct text {
  char *s;
  size_t n, cap;
} text;

static void put(text *t, const char *p, size_t n) {
  if (t->n + n + 1 > t->cap) {
    t->cap = 2 * (t->n + n + 1);
    t->s = realloc(t->s, t->cap);
  }
  memcpy(t->s + t->n, p, n);
  t->n += n;
  t->s[t->n] = 0;
}

static void puts_(text *t, const char *s) { put(t, s, strlen(s)); }

/* The metadata's name id into *p, *n. */
static void meta_name(const uint8_t *m, uint64_t id, const uint8_t **p,
                      size_t *n) {
  int w = (m[0] >> 6) + 1;
  uint64_t count = le(m + 1, w);
  const uint8_t *offs = m + 1 + w;
  const uint8_t *bytes = offs + (count + 1) * (uint64_t)w;
  uint64_t a = le(offs + id * w, w), b = le(offs + (id + 1) * w, w);
  *p = bytes + a;
  *n = (size_t)(b - a);
}

/* v's size (bytes) and its text. */
static size_t ref(const uint8_t *m, const uint8_t *v, text *t) {
  int basic = v[0] & 3, h = v[0] >> 2;
  char buf[64];
  if (basic == 1) {
    puts_(t, "s:\"");
    put(t, (const char *)v + 1, (size_t)h);
    puts_(t, "\"");
    return 1 + (size_t)h;
  }
  if (basic == 0) {
    static const int size[] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17, 4, 8, 8, 4,
                               -1, -1, 8, 8, 8, 16};
    if (h == 16 || h == 15) {
      size_t n = (size_t)le(v + 1, 4);
      puts_(t, "s:\"");
      put(t, (const char *)v + 5, n);
      puts_(t, "\"");
      return 5 + n;
    }
    int n = h <= 20 ? size[h] : 0;
    snprintf(buf, sizeof buf, "p%d:", h);
    puts_(t, buf);
    char *x = hex(v + 1, (size_t)n);
    puts_(t, x);
    free(x);
    return 1 + (size_t)n;
  }
  int large = basic == 2 ? (h >> 4) & 1 : (h >> 2) & 1;
  int ow = (h & 3) + 1, iw = basic == 2 ? ((h >> 2) & 3) + 1 : 0;
  size_t at = 1;
  uint64_t count = le(v + at, large ? 4 : 1);
  at += large ? 4 : 1;
  const uint8_t *ids = v + at;
  at += count * (uint64_t)iw;
  const uint8_t *offs = v + at;
  at += (count + 1) * (uint64_t)ow;
  const uint8_t *data = v + at;
  puts_(t, basic == 2 ? "{" : "[");
  for (uint64_t i = 0; i < count; i++) {
    if (i) puts_(t, ",");
    if (basic == 2) {
      const uint8_t *p;
      size_t n;
      meta_name(m, le(ids + i * iw, iw), &p, &n);
      puts_(t, "\"");
      put(t, (const char *)p, n);
      puts_(t, "\":");
    }
    ref(m, data + le(offs + i * ow, ow), t);
  }
  puts_(t, basic == 2 ? "}" : "]");
  return at + (size_t)le(offs + count * ow, ow);
}

static char *ref_text(const uint8_t *m, const uint8_t *v) {
  text t = {0};
  puts_(&t, "");
  ref(m, v, &t);
  return t.s;
}

/* ---- 1. The examples of parquet-testing ----------------------------------------- */

static void examples(void) {
  size_t n;
  char *src = (char *)slurp(VT "/data_dictionary.json", &n);
  CHECK(src, "cannot read %s", VT "/data_dictionary.json");
  if (!src) return;
  /* the file ends its object with a comma ("...,\n}"): not JSON */
  char *end = src + n; /* the last '}' (the bytes have no terminator) */
  while (end > src && end[-1] != '}') end--;
  end = end > src ? end - 1 : src;
  for (char *q = end - 1; q > src && (*q == ' ' || *q == '\n'); q--)
    if (q[-1] == ',') {
      q[-1] = ' ';
      break;
    }
  pq_json_doc d = {0};
  size_t at;
  const char *fault;
  int root = pq_json_parse(&d, src, n, &at, &fault);
  CHECK(root >= 0, "data_dictionary.json: %s at %zu", root < 0 ? fault : "",
        at);
  if (root < 0) return;
  /* how each example compares: bytes, decoded, or differs */
  static const struct {
    const char *name;
    int how; /* 0 bytes, 1 decoded (Spark's dictionary), 2 other types */
  } want[] = {
      {"array_empty", 0},        {"array_nested", 1},
      {"array_primitive", 0},    {"object_empty", 0},
      {"object_nested", 1},      {"object_primitive", 1},
      {"primitive_binary", 2},   {"primitive_boolean_false", 0},
      {"primitive_boolean_true", 0}, {"primitive_date", 2},
      {"primitive_decimal16", 2}, {"primitive_decimal4", 0},
      {"primitive_decimal8", 2}, {"primitive_double", 2},
      {"primitive_float", 2},    {"primitive_int16", 0},
      {"primitive_int32", 0},    {"primitive_int64", 0},
      {"primitive_int8", 0},     {"primitive_null", 0},
      {"primitive_string", 0},   {"primitive_time", 2},
      {"primitive_timestamp", 2}, {"primitive_timestampntz", 2},
      {"primitive_timestamp_nanos", 2}, {"primitive_timestampntz_nanos", 2},
      {"primitive_uuid", 2},     {"short_string", 0},
  };
  int seen = 0;
  for (int x = d.nodes[root].first; x >= 0; x = d.nodes[x].next) {
    const pq_json_node *j = &d.nodes[x];
    char name[128];
    snprintf(name, sizeof name, "%.*s", (int)j->key_len,
             (const char *)d.text.data + j->key_off);
    int how = -1;
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
      if (strcmp(want[k].name, name) == 0) how = want[k].how;
    CHECK(how >= 0, "%s: an example this test does not know", name);
    if (how < 0) continue;
    seen++;
    char path[256];
    size_t fm = 0, fv = 0;
    snprintf(path, sizeof path, VT "/%s.metadata", name);
    uint8_t *file_m = slurp(path, &fm);
    snprintf(path, sizeof path, VT "/%s.value", name);
    uint8_t *file_v = slurp(path, &fv);
    CHECK(file_m && file_v, "%s: files missing", name);
    pq_buf m, v;
    pq_buf_init(&m);
    pq_buf_init(&v);
    pq_error err = {0};
    int rc = pq_variant_from_json(src + j->at, j->len, &m, &v, &err);
    CHECK(rc == PQ_OK, "%s: %s", name, err.msg);
    if (rc == PQ_OK && file_m && file_v) {
      char *a = ref_text(m.data, v.data), *b = ref_text(file_m, file_v);
      if (how == 0) {
        CHECK(v.len == fv && memcmp(v.data, file_v, fv) == 0,
              "%s: value %s, the file's %s", name, hex(v.data, v.len),
              hex(file_v, fv));
        /* the same but for sorted_strings (0x10), which Spark leaves out */
        CHECK(m.len == fm && m.data[0] == (file_m[0] | 0x10) &&
                  memcmp(m.data + 1, file_m + 1, fm - 1) == 0,
              "%s: metadata %s, the file's %s", name, hex(m.data, m.len),
              hex(file_m, fm));
      } else if (how == 1) {
        CHECK(strcmp(a, b) == 0, "%s: decoded\n  %s\nthe file's\n  %s", name,
              a, b);
        CHECK(file_m[0] == 0x01 && m.data[0] == 0x11,
              "%s: the file's dictionary is not marked sorted (%02X), ours is "
              "(%02X)", name, file_m[0], m.data[0]);
      } else {
        CHECK(strcmp(a, b) != 0, "%s: expected to differ in type, but "
              "decodes the same: %s", name, a);
      }
      free(a);
      free(b);
    }
    pq_buf_free(&m);
    pq_buf_free(&v);
    free(file_m);
    free(file_v);
  }
  CHECK(seen == (int)(sizeof want / sizeof want[0]), "%d examples of %d", seen,
        (int)(sizeof want / sizeof want[0]));
  pq_json_free(&d);
  free(src);
}

/* ---- 2. The rules at their bounds ----------------------------------------------- */

/* "XX" repeated n times, after a prefix. */
static char *rep_hex(const char *prefix, const char *unit, size_t n) {
  size_t a = strlen(prefix), u = strlen(unit);
  char *s = malloc(a + u * n + 1);
  memcpy(s, prefix, a);
  for (size_t i = 0; i < n; i++) memcpy(s + a + i * u, unit, u);
  s[a + u * n] = 0;
  return s;
}

static char *cat(char *a, const char *b) {
  a = realloc(a, strlen(a) + strlen(b) + 1);
  strcat(a, b);
  return a;
}

static void rules(void) {
  /* null, booleans */
  EXPECT_V("null", "00");
  EXPECT_V("true", "04");
  EXPECT_V(" false ", "08");
  /* integers: the smallest of int8 (03), int16 (04), int32 (05), int64 (06) */
  EXPECT_V("0", "0C00");
  EXPECT_V("-0", "0C00");
  EXPECT_V("127", "0C7F");
  EXPECT_V("128", "108000");
  EXPECT_V("-128", "0C80");
  EXPECT_V("-129", "107FFF");
  EXPECT_V("32767", "10FF7F");
  EXPECT_V("32768", "1400800000");
  EXPECT_V("-32768", "100080");
  EXPECT_V("-32769", "14FF7FFFFF");
  EXPECT_V("2147483647", "14FFFFFF7F");
  EXPECT_V("2147483648", "180000008000000000");
  EXPECT_V("-2147483648", "1400000080");
  EXPECT_V("-2147483649", "18FFFFFF7FFFFFFFFF");
  EXPECT_V("9223372036854775807", "18FFFFFFFFFFFFFF7F");
  EXPECT_V("-9223372036854775808", "180000000000000080");
  /* beyond int64: decimal16 (0A) of scale 0, up to 38 digits */
  EXPECT_V("9223372036854775808", "2800" "0000000000000080" "0000000000000000");
  EXPECT_V("-9223372036854775809",
           "2800" "FFFFFFFFFFFFFF7F" "FFFFFFFFFFFFFFFF");
  /* 10^38 - 1 = 0x4B3B4CA85A86C47A098A223FFFFFFFFF */
  EXPECT_V("99999999999999999999999999999999999999",
           "2800" "FFFFFFFF3F228A097AC4865AA84C3B4B");
  /* 39 digits: double (07) 1e38 = 0x47D2CED32A16A1B1 */
  EXPECT_V("100000000000000000000000000000000000000", "1CB1A1162AD3CED247");
  /* decimals: decimal4 (08) up to 9 digits, decimal8 (09) 18, decimal16 (0A) 38 */
  EXPECT_V("1.5", "20010F000000");
  EXPECT_V("1.50", "200296000000");
  EXPECT_V("-1.5", "2001F1FFFFFF");
  EXPECT_V("12.34", "2002D2040000");
  EXPECT_V("0.05", "200205000000");
  EXPECT_V("0.0", "200100000000");
  EXPECT_V("999999999.0", "2401" "F6E30B5402000000"); /* 10 digits */
  EXPECT_V("99999999.9", "2001" "FFC99A3B");
  EXPECT_V("0.123456789", "2009" "15CD5B07");
  EXPECT_V("0.1234567890", "240A" "D202964900000000");
  EXPECT_V("999999999999999999.0", "2801" "F6FFE7890423C78A0000000000000000");
  EXPECT_V("99999999999999999.9", "2401" "FFFF63A7B3B6E00D");
  EXPECT_V("9999999999999999999999999999999999999.9",
           "2801" "FFFFFFFF3F228A097AC4865AA84C3B4B");
  /* 39 digits, or a scale past 38, or an exponent: double */
  EXPECT_V("99999999999999999999999999999999999999.9", "1CB1A1162AD3CED247");
  EXPECT_V("0.000000000000000000000000000000000000001",
           "1C" "832D55B12FC7D537");
  EXPECT_V("1e2", "1C0000000000005940");
  EXPECT_V("1.5E-1", "1C333333333333C33F");
  EXPECT_V("-2e0", "1C00000000000000C0");
  /* strings: short (basic type 1) under 64 bytes, else the primitive 16 */
  EXPECT_V("\"\"", "01");
  EXPECT_V("\"a\\u00e9\"", "0D61C3A9");
  EXPECT_V("\"\\ud83d\\ude00\"", "11F09F9880"); /* a surrogate pair */
  {
    char json[80], *v;
    memset(json, 'x', sizeof json);
    json[0] = '"';
    json[64] = '"';
    json[65] = 0;
    v = rep_hex("FD", "78", 63);
    EXPECT_V(json, v);
    free(v);
    json[65] = '"';
    json[66] = 0;
    json[64] = 'x';
    v = rep_hex("4040000000", "78", 64);
    EXPECT_V(json, v);
    free(v);
  }
  /* arrays: 03 + (is_large << 2 | offset size - 1) << 2 */
  EXPECT_V("[]", "030000");
  EXPECT_V("[1, null, \"a\"]", "0303" "00020305" "0C01" "00" "0561");
  {
    /* 255 nulls: one byte count and offsets; 256: is_large, 2-byte offsets */
    char *json = rep_hex("[null", ",null", 254), *v;
    json = cat(json, "]");
    v = rep_hex("03FF", "", 0);
    for (int i = 0; i <= 255; i++) {
      char b[4];
      sprintf(b, "%02X", i);
      v = cat(v, b);
    }
    char *nulls = rep_hex("", "00", 255);
    v = cat(v, nulls);
    EXPECT_V(json, v);
    free(json);
    free(v);
    free(nulls);
    json = rep_hex("[null", ",null", 255);
    json = cat(json, "]");
    v = strdup("1700010000");
    for (int i = 0; i <= 256; i++) {
      char b[8];
      sprintf(b, "%02X%02X", i & 255, i >> 8);
      v = cat(v, b);
    }
    nulls = rep_hex("", "00", 256);
    v = cat(v, nulls);
    EXPECT_V(json, v);
    free(json);
    free(v);
    free(nulls);
  }
  {
    /* offsets of 3 bytes: a string of 70000 bytes, 70005 with its header */
    size_t n = 70000;
    char *json = malloc(n + 8);
    json[0] = '[';
    json[1] = '"';
    memset(json + 2, 'y', n);
    strcpy(json + 2 + n, "\"]");
    char *v = rep_hex("0B01" "000000" "751101" "4070110100", "79", n);
    EXPECT_V(json, v);
    free(json);
    free(v);
  }
  /* objects: 02 + (is_large << 4 | id size - 1 << 2 | offset size - 1) << 2;
  ** fields by name, the metadata sorted */
  EXPECT_V("{}", "020000");
  EXPECT("{\"b\": 1, \"a\": 2}", "1102000102" "6162",
         "0202" "0001" "000204" "0C02" "0C01");
  /* names in unsigned byte order: "B" < "a" < "b" < "\u00e9" (C3 A9) */
  EXPECT("{\"\\u00e9\": 0, \"b\": 1, \"a\": 2, \"B\": 3}",
         "1104" "0001020305" "426162C3A9",
         "0204" "00010203" "0002040608" "0C03" "0C02" "0C01" "0C00");
  /* a name in two objects: once in the metadata */
  EXPECT("[{\"a\": 1}, {\"a\": true, \"c\": {\"a\": null}}]", "1102000102" "6163",
         "0302" "000715"
         "0201" "00" "0002" "0C01"
         "0202" "0001" "000107" "04" "0201" "00" "0001" "00");
  {
    /* 256 names: ids of one byte, 257: two; names of 4 bytes each take
    ** over 1000 bytes: 2-byte metadata offsets; 256 fields: is_large */
    for (int count = 256; count <= 257; count++) {
      char *json = strdup("{"), *meta, *v;
      char b[32];
      for (int i = 0; i < count; i++) {
        sprintf(b, "%s\"k%03X\":null", i ? "," : "", i);
        json = cat(json, b);
      }
      json = cat(json, "}");
      sprintf(b, "51%02X%02X", count & 255, count >> 8); /* 0x51: 2 bytes */
      meta = strdup(b);
      for (int i = 0; i <= count; i++) {
        sprintf(b, "%02X%02X", (i * 4) & 255, (i * 4) >> 8);
        meta = cat(meta, b);
      }
      for (int i = 0; i < count; i++) {
        char name[8];
        sprintf(name, "k%03X", i);
        for (int k = 0; k < 4; k++) {
          sprintf(b, "%02X", (unsigned char)name[k]);
          meta = cat(meta, b);
        }
      }
      int iw = count > 256 ? 2 : 1;
      sprintf(b, "%02X", 2 | (1 << 4 | (iw - 1) << 2 | 1) << 2);
      v = strdup(b);
      sprintf(b, "%02X%02X0000", count & 255, count >> 8);
      v = cat(v, b);
      for (int i = 0; i < count; i++) {
        if (iw == 1) sprintf(b, "%02X", i);
        else sprintf(b, "%02X%02X", i & 255, i >> 8);
        v = cat(v, b);
      }
      for (int i = 0; i <= count; i++) {
        sprintf(b, "%02X%02X", i & 255, i >> 8);
        v = cat(v, b);
      }
      char *nulls = rep_hex("", "00", (size_t)count);
      v = cat(v, nulls);
      free(nulls);
      char *m_, *v_;
      enc(json, &m_, &v_);
      CHECK(strcmp(v_, v) == 0, "%d fields: value %.80s..., not %.80s...",
            count, v_, v);
      CHECK(strcmp(m_, meta) == 0, "%d names: metadata %.80s..., not "
            "%.80s...", count, m_, meta);
      free(meta);
      free(m_);
      free(v_);
      free(json);
      free(v);
    }
  }
  /* an object's values placed in field order, whatever the text's */
  EXPECT("{\"z\": \"long\", \"a\": [1]}", "1102000102" "617A",
         "0202" "0001" "00060B" "030100020C01" "116C6F6E67");
}

/* ---- 3. Faults ----------------------------------------------------------------- */

static void faults(void) {
  EXPECT_ERR("[1,]", "VARIANT: not JSON at offset 3");
  EXPECT_ERR("[1,", "VARIANT: not JSON: a value is missing at offset 3");
  EXPECT_ERR("{\"a\":1 \"b\":2}", "expected ',' or '}' at offset 7");
  EXPECT_ERR("", "not JSON: a value is missing at offset 0");
  EXPECT_ERR("1 2", "text after the value at offset 2");
  EXPECT_ERR("{\"a\": 1, \"b\": 2, \"a\": 3}",
             "VARIANT: an object has the name \"a\" twice (at offset");
  EXPECT_ERR("[{\"x\": {\"k\": 1, \"k\": 1}}]", "the name \"k\" twice");
  EXPECT_ERR("\"\xff\"", "a string not UTF-8 at offset 0");
  EXPECT_ERR("{\"\xc3\": 1}", "a name not UTF-8 at offset");
  {
    char deep[1000];
    memset(deep, '[', 500);
    deep[500] = 0;
    EXPECT_ERR(deep, "nested too deep");
  }
  /* a fault leaves the buffers as they were */
  pq_buf m, v;
  pq_buf_init(&m);
  pq_buf_init(&v);
  pq_buf_append(&m, "M", 1);
  pq_buf_append(&v, "V", 1);
  pq_error err = {0};
  int rc = pq_variant_from_json("[1, {\"a\":1,\"a\":2}]", 19, &m, &v, &err);
  CHECK(rc == PQ_MISUSE && m.len == 1 && v.len == 1,
        "after a fault: rc %d, %zu and %zu bytes", rc, m.len, v.len);
  pq_buf_free(&m);
  pq_buf_free(&v);
}

int main(void) {
  examples();
  rules();
  faults();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
