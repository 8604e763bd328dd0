/*
** seeds.c DIR [PARQUET_TESTING] -- writes the fuzz targets' seed corpora
** into DIR/<target>/: streams of every encoding made by the encoders
** (with the parameter bytes fuzz.h reads in front), the spec's worked
** examples, files for the writer to write and texts for its value
** conversions, and from the files of parquet-testing (when given) whole
** files, footers and column chunks.
*/
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "fuzz.h"

static const char *dir;
static int nseeds;

static void put(const char *target, const char *name, const uint8_t *a,
                size_t na, const uint8_t *b, size_t nb) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", dir, target);
  mkdir(path, 0777);
  snprintf(path, sizeof path, "%s/%s/%s", dir, target, name);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  if (na) fwrite(a, 1, na, f);
  if (nb) fwrite(b, 1, nb, f);
  fclose(f);
  nseeds++;
}

static const char *const enc_names[] = {
    "plain", "group_var_int", "plain_dictionary", "rle", "bit_packed",
    "delta_binary_packed", "delta_length_byte_array", "delta_byte_array",
    "rle_dictionary", "byte_stream_split", "alp"};

static uint64_t rng = 12345;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

/* Seeds of encoding e: values of each type it takes, encoded. */
static void stream_seeds(int e) {
  for (uint8_t pick = 0; pick < 8; pick++) {
    pq_params p;
    pq_params_init(&p);
    p.encoding = (pq_encoding)e;
    p.type = fz_type((pq_encoding)e, pick);
    p.type_set = 1;
    p.type_length = 4;
    int w = p.type == PQ_BOOLEAN ? 1 : 7;
    if (e == PQ_RLE || e == PQ_BIT_PACKED) p.bit_width = w;
    if (e == PQ_RLE && p.type == PQ_BOOLEAN) p.length_prefix = 1;
    size_t n = 1 + rnd() % 300;
    size_t vs = pq_value_size(p.type, p.type_length);
    uint8_t *v = calloc(n, vs + 1);
    uint8_t heap[300 * 8];
    for (size_t i = 0; i < n; i++) {
      uint8_t *o = v + i * vs;
      if (p.type == PQ_BYTE_ARRAY) {
        pq_bytes b = {heap + 8 * i, rnd() % 8};
        for (size_t k = 0; k < 8; k++) heap[8 * i + k] = (uint8_t)('a' + rnd() % 3);
        memcpy(o, &b, sizeof b);
      } else if (p.type == PQ_BOOLEAN) {
        *o = rnd() % 2;
      } else {
        for (size_t k = 0; k < vs; k++) o[k] = (uint8_t)(rnd() % 4);
        if (p.type == PQ_INT32 && (e == PQ_RLE || e == PQ_BIT_PACKED)) {
          uint32_t x = (uint32_t)(rnd() % (1u << w));
          memcpy(o, &x, 4);
        }
      }
    }
    pq_encoder *en;
    pq_error err;
    pq_buf out, dict;
    pq_buf_init(&out);
    pq_buf_init(&dict);
    if (pq_encoder_open(&en, &p, &err) == PQ_OK) {
      if (pq_encoder_put(en, v, n, &err) == PQ_OK &&
          pq_encoder_finish(en, &out, &dict, &err) == PQ_OK) {
        /* The parameter bytes of fuzz.h: type pick, flags (a count and the
        ** length prefix), the count, the bit width, the length less 1. */
        uint8_t pre[8] = {pick, (uint8_t)(1 | (p.length_prefix == 1) << 1),
                          (uint8_t)n, (uint8_t)(n >> 8), (uint8_t)w, 3, 0, 0};
        size_t np = 6;
        if (e == PQ_PLAIN_DICTIONARY || e == PQ_RLE_DICTIONARY) {
          pre[6] = (uint8_t)dict.len;
          pre[7] = (uint8_t)(dict.len >> 8);
          np = 8;
          pq_buf_append(&dict, out.data, out.len);
        } else {
          pq_buf_free(&dict);
          pq_buf_move(&dict, &out);
        }
        char target[64], name[64];
        snprintf(name, sizeof name, "enc-%s-%s", enc_names[e],
                 pq_type_name(p.type));
        snprintf(target, sizeof target, "decode_%s", enc_names[e]);
        put(target, name, pre, np, dict.data, dict.len);
        uint8_t epre[9];
        /* The explainer's modes: 10 and 11 are pages, files; 12 ALP. */
        epre[0] = (uint8_t)(e == PQ_ALP ? 12 : e);
        memcpy(epre + 1, pre, np);
        put("explain", name, epre, np + 1, dict.data, dict.len);
      }
      pq_encoder_free(en);
    }
    pq_buf_free(&out);
    pq_buf_free(&dict);
    free(v);
  }
  /* Round trips start from raw values: the type pick, flags, count, bit
  ** width, length, then bytes. */
  uint8_t raw[64 + 6] = {0, 0, 0, 0, 7, 3};
  for (size_t i = 6; i < sizeof raw; i++) raw[i] = (uint8_t)rnd();
  char target[64];
  snprintf(target, sizeof target, "roundtrip_%s", enc_names[e]);
  for (uint8_t pick = 0; pick < 8; pick++) {
    raw[0] = pick;
    char name[32];
    snprintf(name, sizeof name, "raw-%d", pick);
    put(target, name, raw, sizeof raw, NULL, 0);
  }
}

/* The writer's target (fuzz_write.c), in the layout it reads.  Files: the
** mode byte (even; 4: options as JSON follow the columns), the columns
** less one, the column the options go to, how the file is read back, 13
** bytes a column (type, value and NULL modes; encoding, 0x80 + its
** number; length; logical type, 0x80: one that fits; precision; scale;
** unit and flags; codec; page size; page values; fallback; dictionary
** size; rows a row group), then operations: 0 a put into a column (its
** index, the count, then NULL bytes and values), 9 the end of a row group,
** 11 a drain, 15 the finish.  Values: the mode byte (odd), then pieces: a
** decimal spec (4 bytes), an integer, a real (8 bytes each), a text (its
** length, its bytes). */
static void write_seeds(void) {
  for (int t = 0; t < 8; t++) {
    for (int e = 0; e < PQ_ENCODING_COUNT; e++) {
      int ok = e == PQ_RLE ? t == PQ_BOOLEAN
                           : e != PQ_BIT_PACKED &&
                                 pq_encoding_supports((pq_encoding)e, (pq_type)t);
      if (!ok) continue;
      uint8_t buf[512];
      size_t n = 0;
      int dict = e == PQ_PLAIN_DICTIONARY || e == PQ_RLE_DICTIONARY;
      buf[n++] = (uint8_t)(rnd() % 2 ? 0 : 4); /* mode: JSON or not */
      buf[n++] = 0;                           /* one column */
      buf[n++] = 0;
      buf[n++] = (uint8_t)rnd();
      uint8_t col[13] = {(uint8_t)(t | (rnd() % 4) << 3 | 1 << 6),
                         (uint8_t)(0x80 | e),
                         15, /* FIXED_LEN_BYTE_ARRAY(16) */
                         (uint8_t)(rnd() % 2 ? 0x80 : 0),
                         (uint8_t)rnd(),
                         2,
                         (uint8_t)(rnd() % 2 ? 0x20 : 0),
                         (uint8_t)(rnd() % 4),
                         (uint8_t)(1 + rnd() % 64),
                         (uint8_t)(rnd() % 64),
                         (uint8_t)(dict ? 0 : 0x80),
                         (uint8_t)(16 + rnd() % 64),
                         0};
      memcpy(buf + n, col, sizeof col);
      n += sizeof col;
      if (buf[0] & 4) { /* {"page_version":2,"page_index":true} as picked */
        static const uint8_t json[] = {1 << 2 | 1, 1, 2, 18, 18};
        memcpy(buf + n, json, sizeof json);
        n += sizeof json;
      }
      for (int op = 0; op < 3 && n + 140 < sizeof buf; op++) {
        buf[n++] = 0;
        buf[n++] = 0;
        buf[n++] = 40;
        for (int i = 0; i < 130; i++) buf[n++] = (uint8_t)(rnd() % 4 ? rnd() % 8 : rnd());
        buf[n++] = op == 1 ? 11 : 9;
      }
      buf[n++] = 15;
      char name[64];
      snprintf(name, sizeof name, "file-%s-%s", pq_type_name((pq_type)t),
               enc_names[e]);
      put("write", name, buf, n, NULL, 0);
    }
  }
  static const char *const texts[] = {
      "2024-03-01", "2024-03-01 12:00:00.25", "1970-01-03T00:00:00+01:00",
      "-0001-12-31 23:59:59.999999999Z", "12:34:56.789", "23:59:59.999999",
      "123.45", "-1.5e3", ".5", "00112233-4455-6677-8899-aabbccddeeff",
      "00112233445566778899AABBCCDDEEFF", "99999999999999999999.99"};
  uint8_t buf[1024];
  size_t n = 0;
  buf[n++] = 1;
  for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
    size_t len = strlen(texts[i]);
    /* DECIMAL(precision, scale) of INT32, INT64, FIXED(9), BYTE_ARRAY: the
    ** type is the byte mod 6, 0x80 keeps the scale within the precision. */
    uint8_t spec[4] = {(uint8_t)(0x80 + (i % 4 + 4) % 6), 10,
                       (uint8_t)(1 + 5 * (i % 8)), (uint8_t)(1 + i % 4)};
    memcpy(buf + n, spec, 4);
    n += 4;
    for (int k = 0; k < 16; k++) buf[n++] = (uint8_t)rnd();
    buf[n++] = (uint8_t)len;
    memcpy(buf + n, texts[i], len);
    n += len;
  }
  put("write", "values", buf, n, NULL, 0);
}

/* The spec's worked examples, with the parameter bytes in front. */
static void spec_seeds(void) {
  static const struct {
    int e;
    uint8_t pick, w;
    const char *hex;
  } ex[] = {
      {PQ_DELTA_BINARY_PACKED, 1, 0, "800104050e020000000000"},
      {PQ_DELTA_BINARY_PACKED, 1, 0, "0801080e0302c03f"},
      {PQ_RLE, 1, 3, "0388c6fa"},
      {PQ_BIT_PACKED, 0, 3, "053977"},
      {PQ_DELTA_LENGTH_BYTE_ARRAY, 0, 0,
       "8001040408050202000000000048656c6c6f576f726c64466f6f626172414243444546"},
      {PQ_BYTE_STREAM_SPLIT, 0, 0, "aa00a3bb11b4cc22c5dd33d6"},
      {PQ_GROUP_VAR_INT, 0, 0, "2dffffffffffffffffffff"},
      {PQ_ALP, 1, 0,
       "00000a04000000" "04000000" "04030100" "070d000000000000" "0f"
       "91adc85628150000" "0100" "000000000000f87f"},
  };
  for (size_t i = 0; i < sizeof ex / sizeof ex[0]; i++) {
    uint8_t buf[256];
    size_t n = 0;
    buf[n++] = ex[i].pick;
    buf[n++] = 0;
    buf[n++] = 0;
    buf[n++] = 0;
    buf[n++] = ex[i].w;
    buf[n++] = 3;
    for (const char *h = ex[i].hex; h[0] && h[1]; h += 2) {
      unsigned x;
      sscanf(h, "%2x", &x);
      buf[n++] = (uint8_t)x;
    }
    char target[64], name[32];
    snprintf(target, sizeof target, "decode_%s", enc_names[ex[i].e]);
    snprintf(name, sizeof name, "spec-%zu", i);
    put(target, name, buf, n, NULL, 0);
    uint8_t e = (uint8_t)(ex[i].e == PQ_ALP ? 12 : ex[i].e);
    put("explain", name, &e, 1, buf, n);
  }
}

static uint8_t *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = n > 0 ? malloc((size_t)n) : NULL;
  if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  *len = p ? (size_t)n : 0;
  return p;
}

/* Files of a folder of parquet-testing: whole (file, explain), the footer
** (thrift), the first chunk's pages (page, explain as pages). */
static void file_seeds(const char *folder) {
  DIR *d = opendir(folder);
  if (!d) return;
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    size_t nl = strlen(ent->d_name);
    if (nl < 8 || strcmp(ent->d_name + nl - 8, ".parquet") != 0) continue;
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", folder, ent->d_name);
    size_t len;
    uint8_t *buf = slurp(path, &len);
    if (!buf || len > (1u << 20) || len < 12) {
      free(buf);
      continue;
    }
    put("file", ent->d_name, buf, len, NULL, 0);
    uint8_t mode = 11;
    put("explain", ent->d_name, &mode, 1, buf, len);
    uint32_t flen = (uint32_t)pq_load32(buf + len - 8);
    if (flen <= len - 12)
      put("thrift", ent->d_name, buf + len - 8 - flen, flen, NULL, 0);
    pq_file *f;
    pq_error err;
    if (pq_file_open(&f, buf, len, &err) == PQ_OK) {
      const pq_file_meta *m = pq_file_metadata(f);
      if (m->n_row_groups && m->row_groups[0].n_columns) {
        const pq_column_meta *c = &m->row_groups[0].columns[0].meta;
        int64_t at = c->dictionary_page_offset > 0 &&
                             c->dictionary_page_offset < c->data_page_offset
                         ? c->dictionary_page_offset
                         : c->data_page_offset;
        int64_t n = c->total_compressed_size;
        if (at >= 4 && n > 0 && (uint64_t)at + (uint64_t)n <= len) {
          const pq_schema_node *leaf = pq_file_leaf(f, 0);
          uint8_t pre[5] = {(uint8_t)c->type, (uint8_t)c->codec,
                            (uint8_t)(leaf->max_def > 0),
                            (uint8_t)c->num_values,
                            (uint8_t)(c->num_values >> 8)};
          put("page", ent->d_name, pre, 5, buf + at, (size_t)n);
          uint8_t epre[7] = {10, 1, (uint8_t)c->type, 3,
                             (uint8_t)leaf->max_def, (uint8_t)leaf->max_rep,
                             (uint8_t)c->codec};
          put("explain", ent->d_name, epre, 7, buf + at, (size_t)n);
        }
      }
      pq_file_free(f);
    }
    free(buf);
  }
  closedir(d);
}

/* The variants of parquet-testing: variant/X.metadata with X.value, and
** shredded_variant's *.variant.bin (both already one after the other). */
static void variant_seeds(const char *testing) {
  char sub[2048], path[4096];
  snprintf(sub, sizeof sub, "%s/variant", testing);
  DIR *d = opendir(sub);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    size_t len = strlen(e->d_name), nm, nv;
    if (len < 10 || strcmp(e->d_name + len - 9, ".metadata")) continue;
    snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
    uint8_t *m = slurp(path, &nm);
    snprintf(path, sizeof path, "%s/%.*s.value", sub, (int)(len - 9),
             e->d_name);
    uint8_t *v = slurp(path, &nv);
    if (m && v) put("variant", e->d_name, m, nm, v, nv);
    free(m);
    free(v);
  }
  if (d) closedir(d);
  snprintf(sub, sizeof sub, "%s/shredded_variant", testing);
  d = opendir(sub);
  while (d && (e = readdir(d))) {
    size_t len = strlen(e->d_name), n;
    if (len < 12 || strcmp(e->d_name + len - 12, ".variant.bin")) continue;
    snprintf(path, sizeof path, "%s/%s", sub, e->d_name);
    uint8_t *b = slurp(path, &n);
    if (b) put("variant", e->d_name, b, n, NULL, 0);
    free(b);
  }
  if (d) closedir(d);
}

/* WKB values for fuzz_wkb.c: a point, a big-endian linestring Z, a
** collection holding a multipoint M of a NaN point. */
static void wkb_seeds(void) {
  static const uint8_t pt[] = {1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x3E, 0x40,
                               0, 0, 0, 0, 0, 0, 0x24, 0x40};
  static const uint8_t ls[] = {0, 0, 0, 0x03, 0xEA, 0, 0, 0, 1,
                               0x3F, 0xF0, 0, 0, 0, 0, 0, 0,
                               0x40, 0, 0, 0, 0, 0, 0, 0,
                               0x40, 0x08, 0, 0, 0, 0, 0, 0};
  static const uint8_t gc[] = {1, 7, 0, 0, 0, 1, 0, 0, 0,
                               0, 0, 0, 0x07, 0xD4, 0, 0, 0, 1,
                               1, 0xD1, 0x07, 0, 0,
                               0, 0, 0, 0, 0, 0, 0xF8, 0x7F,
                               0, 0, 0, 0, 0, 0, 0xF8, 0x7F,
                               0, 0, 0, 0, 0, 0, 0xF0, 0x3F};
  put("wkb", "point", pt, sizeof pt, NULL, 0);
  put("wkb", "linestring_z", ls, sizeof ls, NULL, 0);
  put("wkb", "collection", gc, sizeof gc, NULL, 0);
}

/* The variants of parquet-testing's variant/ (NAME.metadata and
** NAME.value) for explain_variant: the two together, each alone, and the
** value with its metadata apart; (shredded_variant/'s files are seeded with the others). */
static void explain_variant_seeds(const char *root) {
  char folder[2048];
  snprintf(folder, sizeof folder, "%s/variant", root);
  DIR *d = opendir(folder);
  if (!d) return;
  struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    size_t nl = strlen(ent->d_name);
    if (nl < 10 || strcmp(ent->d_name + nl - 9, ".metadata") != 0) continue;
    char path[2100], name[2200];
    size_t ml, vl;
    snprintf(path, sizeof path, "%s/%s", folder, ent->d_name);
    uint8_t *m = slurp(path, &ml);
    snprintf(path, sizeof path, "%s/%.*s.value", folder, (int)(nl - 9),
             ent->d_name);
    uint8_t *v = slurp(path, &vl);
    if (m && v && ml < 60000) {
      uint8_t *both = malloc(3 + ml + vl);
      if (both) {
        for (uint8_t mode = 0; mode < 4; mode++) {
          size_t n = 0;
          both[n++] = mode;
          if (mode == 3) {
            both[n++] = (uint8_t)ml;
            both[n++] = (uint8_t)(ml >> 8);
          }
          if (mode != 2) {
            memcpy(both + n, m, ml);
            n += ml;
          }
          if (mode != 1) {
            memcpy(both + n, v, vl);
            n += vl;
          }
          snprintf(name, sizeof name, "%.*s-%d", (int)(nl - 9), ent->d_name,
                   mode);
          put("explain_variant", name, both, n, NULL, 0);
        }
        free(both);
      }
    }
    free(m);
    free(v);
  }
  closedir(d);
}

/* The encoding lab's options (fuzz_lab_options.c): JSON texts. */
static void lab_options_seeds(void) {
  static const char *const seeds[] = {
      "{}",
      "{\"min_time\":0}",
      "{\"min_time\":0.02,\"codecs\":[\"UNCOMPRESSED\",\"ZSTD\"]}",
      "{\"encodings\":[\"PLAIN\",\"DELTA_BYTE_ARRAY\",\"RLE_DICTIONARY\"],"
      "\"levels\":[1,19,-5]}",
      "{\"columns\":[\"a\",\"b\\u0000c\"],\"page_size\":8192,"
      "\"auto\":{\"allow\":[\"BYTE_STREAM_SPLIT\"]}}",
      "{\"codec\":\"ZSTD\"}",
      "{\"levels\":[1.5]}",
      "{\"min\\u005ftime\":1e-3,\"row_group_size\":5000,"
      "\"statistics\":false,\"type\":\"DATE\"}",
      "[1]",
  };
  char name[32];
  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
    snprintf(name, sizeof name, "options_%zu", i);
    put("lab_options", name, (const uint8_t *)seeds[i], strlen(seeds[i]),
        NULL, 0);
  }
}

/* What a server sends (fuzz_http.c): status lines, headers, ranges. */
static void http_seeds(void) {
  static const char *const seeds[] = {
      "HTTP/1.1 206 Partial Content\r\n",
      "HTTP/2 200\r\n",
      "Content-Range: bytes 0-99/1000\r\n",
      "ETag: \"5f-1a-2b\"\r\n",
      "bytes 0-99/1000",
      "bytes */1000",
      "bytes 10-20/*",
      "bytes 9223372036854775806-9223372036854775806/9223372036854775807",
      "<ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>a/"
      "x&amp;y&#x263A;.parquet</Key><Size>3</Size></Contents><Contents>"
      "<Key>b&#65;</Key></Contents><NextContinuationToken>t&lt;"
      "</NextContinuationToken></ListBucketResult>",
      "multipart/byteranges; boundary=b",
      "x\r\n--b\r\nContent-Type: application/octet-stream\r\n"
      "Content-Range: bytes 2-4/10\r\n\r\nXYZ\r\n--b\r\n"
      "Content-Range: bytes 8-9/10\r\n\r\nQQ\r\n--b--\r\n",
  };
  char name[32];
  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++) {
    snprintf(name, sizeof name, "http_%zu", i);
    put("http", name, (const uint8_t *)seeds[i], strlen(seeds[i]), NULL, 0);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: seeds DIR [PARQUET_TESTING]\n");
    return 2;
  }
  dir = argv[1];
  mkdir(dir, 0777);
  for (int e = 0; e < PQ_ENCODING_COUNT; e++) stream_seeds(e);
  spec_seeds();
  write_seeds();
  wkb_seeds();
  lab_options_seeds();
  http_seeds();
  if (argc > 2) {
    char sub[2048];
    snprintf(sub, sizeof sub, "%s/data", argv[2]);
    file_seeds(sub);
    snprintf(sub, sizeof sub, "%s/bad_data", argv[2]);
    file_seeds(sub);
    snprintf(sub, sizeof sub, "%s/shredded_variant", argv[2]);
    file_seeds(sub);
    variant_seeds(argv[2]);
    explain_variant_seeds(argv[2]);
  }
  printf("%d seeds in %s\n", nseeds, dir);
  return 0;
}
