/*
** unit_codec.c -- C unit tests of the codecs (src/format/codec.c) and of CRC-32
** (src/format/crc32.c).
**
**   1. CRC-32: the check value, incremental against one call, a bit-by-bit
**      reference at every length and alignment, gzip's own trailer
**   2. names, availability, LZO and codecs left out of the build
**   3. streams made by other tools or by hand from the formats' documents
**   4. round trips of every codec this build has, 0 bytes to 1 MiB,
**      seeded random and repetitive data
**   5. sizes: the expected size, the limit (it fails before allocating
**      past it), appending after bytes already in the buffer
**   6. truncations and corruptions of every codec's streams: an error or
**      a result within the bounds, never a crash (the sanitizer build
**      checks the "never")
**
** Prints a line per failure starting with "!" and ends with
** "N passed, N failed".
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet.h"

#define CHECK_SEED 0x5eed0c0dec
#include "check.h"

static const pq_codec all_codecs[] = {PQ_UNCOMPRESSED, PQ_SNAPPY, PQ_GZIP,
                                      PQ_BROTLI,       PQ_LZ4,    PQ_ZSTD,
                                      PQ_LZ4_RAW};
#define NCODECS (sizeof all_codecs / sizeof all_codecs[0])

/* ---- Helpers ------------------------------------------------------------ */

/* Bytes of data of a kind: random, repetitive text with a little noise,
** or zeros. */
enum { RANDOM, REPETITIVE, ZEROS };
static void fill(uint8_t *p, size_t n, int kind) {
  static const char phrase[] =
      "page 17 of column 'price', DELTA_BINARY_PACKED; ";
  for (size_t i = 0; i < n; i++) {
    switch (kind) {
      case RANDOM: p[i] = (uint8_t)(rnd() >> 56); break;
      case REPETITIVE:
        p[i] = (uint8_t)phrase[i % (sizeof phrase - 1)];
        if (rnd() % 97 == 0) p[i] = (uint8_t)rnd();
        break;
      default: p[i] = 0;
    }
  }
}

/* Hex digits (spaces ignored) into out; returns the length. */
static size_t from_hex(const char *s, uint8_t *out) {
  size_t n = 0;
  int high = -1;
  for (; *s; s++) {
    int v = *s >= '0' && *s <= '9'   ? *s - '0'
            : *s >= 'a' && *s <= 'f' ? *s - 'a' + 10
            : *s >= 'A' && *s <= 'F' ? *s - 'A' + 10
                                     : -1;
    if (v < 0) continue;
    if (high < 0) {
      high = v;
    } else {
      out[n++] = (uint8_t)(high << 4 | v);
      high = -1;
    }
  }
  return n;
}

/* Decompresses into a fresh buffer; *out must be freed by the caller. */
static int inflate_all(pq_codec c, const uint8_t *src, size_t n,
                       int64_t expected, size_t limit, pq_buf *out,
                       pq_error *err) {
  pq_buf_init(out);
  return pq_decompress(c, src, n, expected, limit, out, err);
}

/* 1 when decompressing the hex stream gives exactly the text want. */
static int decodes_to(pq_codec c, const char *hex, int64_t expected,
                      const char *want, pq_error *err) {
  uint8_t src[512];
  size_t n = from_hex(hex, src);
  pq_buf out;
  int rc = inflate_all(c, src, n, expected, 1 << 20, &out, err);
  int ok = rc == PQ_OK && out.len == strlen(want) &&
           (out.len == 0 || memcmp(out.data, want, out.len) == 0);
  if (rc == PQ_OK && !ok) snprintf(err->msg, sizeof err->msg, "other bytes");
  pq_buf_free(&out);
  return ok;
}

/* The message of decompressing the hex stream (which must fail). */
static const char *fails_with(pq_codec c, const char *hex, int64_t expected,
                              size_t limit, pq_error *err) {
  uint8_t src[512];
  size_t n = from_hex(hex, src);
  pq_buf out;
  int rc = inflate_all(c, src, n, expected, limit, &out, err);
  pq_buf_free(&out);
  return rc == PQ_OK ? "(no error)" : err->msg;
}

/* ---- 1. CRC-32 ---------------------------------------------------------- */

/* The definition, one bit at a time. */
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t n) {
  crc = ~crc;
  for (size_t i = 0; i < n; i++) {
    crc ^= p[i];
    for (int b = 0; b < 8; b++)
      crc = crc & 1 ? crc >> 1 ^ 0xEDB88320u : crc >> 1;
  }
  return ~crc;
}

/* pq_crc32 against known values, itself in pieces, and the reference. */
static void test_crc(void) {
  const uint8_t *digits = (const uint8_t *)"123456789";
  CHECK(pq_crc32(0, digits, 9) == 0xCBF43926u, "check value %08X",
        pq_crc32(0, digits, 9));
  CHECK(pq_crc32(0, NULL, 0) == 0, "empty");
  CHECK(pq_crc32(0xCBF43926u, NULL, 0) == 0xCBF43926u, "empty continues");
  const char *fox = "The quick brown fox jumps over the lazy dog";
  CHECK(pq_crc32(0, (const uint8_t *)fox, strlen(fox)) == 0x414FA339u,
        "the fox");
  static uint8_t buf[1 << 16];
  fill(buf, sizeof buf, RANDOM);
  int bad = 0;
  for (size_t at = 0; at < 8; at++) {
    for (size_t n = 0; n <= 300; n++) {
      if (pq_crc32(0, buf + at, n) != crc_bitwise(0, buf + at, n)) bad++;
    }
  }
  CHECK(bad == 0, "%d lengths or alignments differ from the reference", bad);
  uint32_t whole = pq_crc32(0, buf, sizeof buf), parts = 0;
  for (size_t at = 0, k = 1; at < sizeof buf; at += k, k = k * 3 % 1000 + 1) {
    size_t len = k < sizeof buf - at ? k : sizeof buf - at;
    parts = pq_crc32(parts, buf + at, len);
  }
  CHECK(whole == parts, "incremental %08X, one call %08X", parts, whole);
  CHECK(whole == crc_bitwise(0, buf, sizeof buf), "64 KiB");
  /* A gzip member ends with the CRC-32 and the size of its data. */
  if (pq_codec_available(PQ_GZIP)) {
    pq_buf z;
    pq_error err;
    pq_buf_init(&z);
    int rc = pq_compress(PQ_GZIP, buf, 1000, &z, &err);
    uint32_t trailer = rc == PQ_OK && z.len >= 8
                           ? (uint32_t)z.data[z.len - 8] |
                                 (uint32_t)z.data[z.len - 7] << 8 |
                                 (uint32_t)z.data[z.len - 6] << 16 |
                                 (uint32_t)z.data[z.len - 5] << 24
                           : 0;
    CHECK(trailer == pq_crc32(0, buf, 1000), "gzip trailer %08X", trailer);
    pq_buf_free(&z);
  }
}

/* ---- 2. Names and availability ------------------------------------------- */

/* Parsing and naming codecs; what is unavailable says why. */
static void test_names(void) {
  pq_codec c = PQ_UNCOMPRESSED;
  CHECK(pq_codec_parse("zstd", 4, &c) == PQ_OK && c == PQ_ZSTD, "zstd");
  CHECK(pq_codec_parse(" Lz4_Raw ", 9, &c) == PQ_OK && c == PQ_LZ4_RAW,
        "lz4_raw with spaces");
  CHECK(pq_codec_parse("1", 1, &c) == PQ_OK && c == PQ_SNAPPY, "number 1");
  CHECK(pq_codec_parse("LZO", 3, &c) == PQ_OK && c == PQ_LZO, "LZO parses");
  CHECK(pq_codec_parse("8", 1, &c) == PQ_MISUSE, "number 8");
  CHECK(pq_codec_parse("LZ4RAW", 6, &c) == PQ_MISUSE, "LZ4RAW");
  CHECK(pq_codec_parse("", 0, &c) == PQ_MISUSE, "empty name");
  CHECK(pq_codec_parse("GZIPX", 4, &c) == PQ_OK && c == PQ_GZIP,
        "only n bytes are read");
  for (int i = 0; i < PQ_CODEC_COUNT; i++) {
    const char *name = pq_codec_name((pq_codec)i);
    CHECK(pq_codec_parse(name, strlen(name), &c) == PQ_OK && c == (pq_codec)i,
          "name %s parses back", name);
  }
  CHECK(strcmp(pq_codec_name((pq_codec)42), "?") == 0, "unknown name");
  CHECK(pq_codec_available(PQ_UNCOMPRESSED), "UNCOMPRESSED available");
  CHECK(!pq_codec_available(PQ_LZO), "LZO unavailable");
  CHECK(!pq_codec_available((pq_codec)42), "42 unavailable");

  pq_buf out;
  pq_error err;
  pq_buf_init(&out);
  int rc = pq_compress(PQ_LZO, (const uint8_t *)"x", 1, &out, &err);
  CHECK(rc == PQ_UNSUPPORTED && strcmp(err.msg, "LZO: not supported") == 0,
        "LZO compress: %s", err.msg);
  rc = pq_decompress(PQ_LZO, (const uint8_t *)"x", 1, -1, 100, &out, &err);
  CHECK(rc == PQ_UNSUPPORTED && strcmp(err.msg, "LZO: not supported") == 0,
        "LZO decompress: %s", err.msg);
  rc =
      pq_decompress((pq_codec)42, (const uint8_t *)"x", 1, -1, 100, &out, &err);
  CHECK(rc == PQ_MISUSE, "codec 42: %s", err.msg);
  /* A codec left out of the build says which library is missing. */
  static const char *const libs[] = {"",       "snappy", "zlib", "",
                                     "brotli", "lz4",    "zstd", "lz4"};
  for (size_t i = 0; i < NCODECS; i++) {
    pq_codec k = all_codecs[i];
    rc = pq_compress(k, (const uint8_t *)"abc", 3, &out, &err);
    if (pq_codec_available(k)) {
      CHECK(rc == PQ_OK, "%s compresses: %s", pq_codec_name(k), err.msg);
    } else {
      char want[200];
      snprintf(want, sizeof want,
               "%s: this build has no %s (made with WITHOUT=%s)",
               pq_codec_name(k), libs[k], libs[k]);
      CHECK(rc == PQ_UNSUPPORTED && strcmp(err.msg, want) == 0, "%s: %s",
            pq_codec_name(k), err.msg);
      rc = pq_decompress(k, (const uint8_t *)"abc", 3, -1, 100, &out, &err);
      CHECK(rc == PQ_UNSUPPORTED && strcmp(err.msg, want) == 0, "%s: %s",
            pq_codec_name(k), err.msg);
    }
  }
  pq_buf_free(&out);
}

/* ---- 3. Known streams -----------------------------------------------------
 */

/* Streams of known bytes decode to known text, or fail with known words. */
static void test_known(void) {
  pq_error err;
  /* Empty data is empty for every codec, without asking the library. */
  for (size_t i = 0; i < NCODECS; i++) {
    pq_codec c = all_codecs[i];
    if (!pq_codec_available(c)) continue;
    CHECK(decodes_to(c, "", -1, "", &err), "%s: empty", pq_codec_name(c));
    CHECK(decodes_to(c, "", 0, "", &err), "%s: empty, 0", pq_codec_name(c));
    char want[100];
    snprintf(want, sizeof want, "%s: the data is empty, 3 bytes expected",
             pq_codec_name(c));
    const char *m = fails_with(c, "", 3, 100, &err);
    CHECK(strcmp(m, want) == 0, "%s", m);
  }
  CHECK(decodes_to(PQ_UNCOMPRESSED, "616263", 3, "abc", &err), "%s", err.msg);
  if (pq_codec_available(PQ_SNAPPY)) {
    /* format_description.txt: the size, a literal, a copy with 1-byte
    ** offset (length 9, offset 3). */
    CHECK(decodes_to(PQ_SNAPPY, "05 10 68656C6C6F", 5, "hello", &err), "%s",
          err.msg);
    CHECK(decodes_to(PQ_SNAPPY, "0C 08 616263 15 03", -1, "abcabcabcabc", &err),
          "%s", err.msg);
    CHECK(strcmp(fails_with(PQ_SNAPPY, "05 10 68656C6C", -1, 100, &err),
                 "SNAPPY: the data is not valid snappy (6 bytes)") == 0,
          "%s", err.msg);
  }
  if (pq_codec_available(PQ_GZIP)) {
    /* printf hello | gzip -n; then two members, "hello " and "world". */
    CHECK(decodes_to(PQ_GZIP,
                     "1f8b0800000000000003cb48cdc9c9070086a6103605000000", 5,
                     "hello", &err),
          "%s", err.msg);
    CHECK(decodes_to(PQ_GZIP,
                     "1f8b0800000000000003cb48cdc9c9570000f6f981ed06000000"
                     "1f8b08000000000002032bcf2fca4901004311773a05000000",
                     -1, "hello world", &err),
          "%s", err.msg);
    /* The zlib framing of the same deflate data is not gzip. */
    CHECK(strcmp(
              fails_with(PQ_GZIP, "789ccb48cdc9c90700062c0215", -1, 100, &err),
              "GZIP: member 1 is not valid gzip (incorrect header check)") == 0,
          "%s", err.msg);
  }
  if (pq_codec_available(PQ_ZSTD)) {
    /* zstd -c of hello from a pipe (no size in the frame) and from a file
    ** (with it), back to back. */
    CHECK(decodes_to(PQ_ZSTD,
                     "28b52ffd045829000068656c6c6fa36d9f88"
                     "28b52ffd240529000068656c6c6fa36d9f88",
                     10, "hellohello", &err),
          "%s", err.msg);
  }
  if (pq_codec_available(PQ_LZ4)) {
    /* lz4_Block_format.md: literals only; four literals and a match of 16
    ** at offset 4, then five literals. */
    CHECK(decodes_to(PQ_LZ4_RAW, "50 68656C6C6F", 5, "hello", &err), "%s",
          err.msg);
    CHECK(decodes_to(PQ_LZ4_RAW, "4C 61626364 0400 50 6566676869", 25,
                     "abcdabcdabcdabcdabcdefghi", &err),
          "%s", err.msg);
    /* Hadoop: two chunks; and a plain block read as LZ4. */
    CHECK(decodes_to(PQ_LZ4,
                     "00000005 00000006 5068656C6C6F"
                     "00000006 00000007 6020776F726C64",
                     11, "hello world", &err),
          "%s", err.msg);
    CHECK(decodes_to(PQ_LZ4, "4C 61626364 0400 50 6566676869", -1,
                     "abcdabcdabcdabcdabcdefghi", &err),
          "%s", err.msg);
    CHECK(strcmp(fails_with(PQ_LZ4_RAW, "4C 61626364 0500 50 6566676869", -1,
                            100, &err),
                 "LZ4_RAW: the data is not a valid LZ4 block (13 bytes)") == 0,
          "offset past the start: %s", err.msg);
    /* A sound frame whose block is not: neither reading works. */
    CHECK(strcmp(
              fails_with(PQ_LZ4, "00000005 00000005 5068656C6C", -1, 100, &err),
              "LZ4: the data is neither Hadoop-framed LZ4 nor a valid LZ4 "
              "block (13 bytes)") == 0,
          "%s", err.msg);
    CHECK(strcmp(fails_with(PQ_LZ4, "00000005 00000006 5068656C6C6F", 6, 100,
                            &err),
                 "LZ4: the data decompresses to 5 bytes, 6 expected") == 0,
          "%s", err.msg);
  }
  if (pq_codec_available(PQ_BROTLI)) {
    /* RFC 7932: the empty stream; an uncompressed meta-block of 5 bytes
    ** (WBITS 16, MNIBBLES 4, MLEN-1 = 4, ISUNCOMPRESSED) and an empty last
    ** one. */
    CHECK(decodes_to(PQ_BROTLI, "06", -1, "", &err), "%s", err.msg);
    CHECK(decodes_to(PQ_BROTLI, "400010 68656C6C6F 03", 5, "hello", &err), "%s",
          err.msg);
    CHECK(
        strcmp(fails_with(PQ_BROTLI, "400010 68656C6C6F 03 00", -1, 100, &err),
               "BROTLI: 1 byte after the end of the stream") == 0,
        "%s", err.msg);
  }
}

/* ---- 4. Round trips -------------------------------------------------------
 */

/* Every available codec, sizes and kinds of data: compressed and back. */
static void test_round_trips(void) {
  static const size_t sizes[] = {0,      1,      2,      3,       7,
                                 16,     17,     100,    255,     4096,
                                 65535,  65536,  65537,  100000,  261099,
                                 261100, 261101, 522201, 1000000, 1 << 20};
  size_t most = 1 << 20;
  uint8_t *data = malloc(most);
  for (size_t ci = 0; ci < NCODECS; ci++) {
    pq_codec c = all_codecs[ci];
    if (!pq_codec_available(c)) continue;
    const char *name = pq_codec_name(c);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
      for (int kind = RANDOM; kind <= REPETITIVE; kind++) {
        size_t n = sizes[si];
        fill(data, n, kind);
        pq_buf z, out;
        pq_error err;
        pq_buf_init(&z);
        int rc = pq_compress(c, data, n, &z, &err);
        CHECK(rc == PQ_OK, "%s %zu: %s", name, n, err.msg);
        if (rc) continue;
        /* Known size, exact limit. */
        rc = inflate_all(c, z.data, z.len, (int64_t)n, n, &out, &err);
        CHECK(rc == PQ_OK && out.len == n &&
                  (n == 0 || memcmp(out.data, data, n) == 0),
              "%s %zu kind %d: %s", name, n, kind, rc ? err.msg : "differs");
        pq_buf_free(&out);
        /* Unknown size. */
        rc = inflate_all(c, z.data, z.len, -1, most, &out, &err);
        CHECK(rc == PQ_OK && out.len == n &&
                  (n == 0 || memcmp(out.data, data, n) == 0),
              "%s %zu kind %d, no size: %s", name, n, kind,
              rc ? err.msg : "differs");
        pq_buf_free(&out);
        if (kind == REPETITIVE && n >= 4096 && c != PQ_UNCOMPRESSED) {
          CHECK(z.len < n / 4, "%s %zu: %zu bytes compressed", name, n, z.len);
        }
        if (c == PQ_LZ4 && n > 0) { /* chunks of at most 261100 bytes */
          size_t chunks = 0, at = 0;
          while (at + 8 <= z.len) {
            size_t cs = (size_t)z.data[at + 4] << 24 |
                        (size_t)z.data[at + 5] << 16 |
                        (size_t)z.data[at + 6] << 8 | z.data[at + 7];
            at += 8 + cs;
            chunks++;
          }
          CHECK(at == z.len && chunks == (n + 261099) / 261100,
                "LZ4 %zu: %zu chunks", n, chunks);
        }
        pq_buf_free(&z);
      }
    }
  }
  free(data);
}

/* ---- 5. Sizes and the limit -----------------------------------------------
 */

/* The limit, the expected size and appending, for every codec. */
static void test_sizes(void) {
  size_t n = 1 << 20;
  uint8_t *data = malloc(n);
  fill(data, n, ZEROS);
  for (size_t ci = 0; ci < NCODECS; ci++) {
    pq_codec c = all_codecs[ci];
    if (!pq_codec_available(c)) continue;
    const char *name = pq_codec_name(c);
    pq_buf z, out;
    pq_error err;
    pq_buf_init(&z);
    CHECK(pq_compress(c, data, n, &z, &err) == PQ_OK, "%s", err.msg);

    /* A small limit: an error, and no allocation beyond it. */
    int rc = inflate_all(c, z.data, z.len, -1, 1000, &out, &err);
    CHECK(rc == PQ_TOOBIG && out.len == 0 && out.cap <= 1001 &&
              strstr(err.msg, "exceed the limit of 1000 bytes"),
          "%s limit: rc %d, cap %zu: %s", name, rc, out.cap, err.msg);
    pq_buf_free(&out);
    /* The limit is the result's size: exactly n is allowed. */
    rc = inflate_all(c, z.data, z.len, -1, n, &out, &err);
    CHECK(rc == PQ_OK && out.len == n, "%s limit n: %s", name, err.msg);
    pq_buf_free(&out);
    rc = inflate_all(c, z.data, z.len, -1, n - 1, &out, &err);
    CHECK(rc == PQ_TOOBIG && out.cap <= n, "%s limit n - 1: %s", name,
          err.msg);
    pq_buf_free(&out);
    /* An expected size above the limit fails before anything. */
    rc = inflate_all(c, z.data, z.len, 5000, 1000, &out, &err);
    char want[200];
    snprintf(want, sizeof want,
             "%s: the expected size of 5000 bytes would exceed the limit of "
             "1000 bytes",
             name);
    CHECK(rc == PQ_TOOBIG && out.cap == 0 && strcmp(err.msg, want) == 0, "%s",
          err.msg);
    pq_buf_free(&out);
    /* Wrong expected sizes, both ways, name the sizes. */
    rc = inflate_all(c, z.data, z.len, (int64_t)n + 1, 2 * n, &out, &err);
    snprintf(want, sizeof want,
             "%s: the data decompresses to %zu bytes, %zu expected", name, n,
             n + 1);
    CHECK(rc == PQ_CORRUPT && out.len == 0 && strcmp(err.msg, want) == 0, "%s",
          err.msg);
    pq_buf_free(&out);
    rc = inflate_all(c, z.data, z.len, (int64_t)n - 1, 2 * n, &out, &err);
    CHECK(rc == PQ_CORRUPT && out.len == 0 && out.cap <= n &&
              strstr(err.msg, "expected"),
          "%s n - 1: %s", name, err.msg);
    pq_buf_free(&out);
    /* Appending: what was there stays, a failure leaves it as it was. */
    pq_buf_init(&out);
    pq_buf_append(&out, "prefix", 6);
    rc = pq_decompress(c, z.data, z.len, (int64_t)n, n, &out, &err);
    CHECK(rc == PQ_OK && out.len == 6 + n &&
              memcmp(out.data, "prefix", 6) == 0 &&
              memcmp(out.data + 6, data, n) == 0,
          "%s append: %s", name, err.msg);
    out.len = 6;
    rc = pq_decompress(c, z.data, z.len, -1, 10, &out, &err);
    CHECK(
        rc == PQ_TOOBIG && out.len == 6 && memcmp(out.data, "prefix", 6) == 0,
        "%s append, failing: %s", name, err.msg);
    pq_buf_free(&out);
    pq_buf_free(&z);
  }
  free(data);
}

/* Sizes the data states that its bytes cannot make: refused (or decoded
** with a growing output) before anything of that size is allocated. */
static void test_lies(void) {
  uint8_t src[64];
  pq_buf out;
  pq_error err;
  size_t big = (size_t)1 << 31;
  if (pq_codec_available(PQ_SNAPPY)) {
    /* 1 GB from 5 bytes. */
    size_t n = from_hex("80 94 EB DC 03 00 61", src);
    int rc = inflate_all(PQ_SNAPPY, src, n, -1, big, &out, &err);
    CHECK(rc == PQ_CORRUPT && out.cap == 0 &&
              strcmp(err.msg,
                     "SNAPPY: the data is not valid snappy (7 bytes)") == 0,
          "snappy lie: cap %zu: %s", out.cap, err.msg);
    pq_buf_free(&out);
  }
  if (pq_codec_available(PQ_LZ4)) {
    /* A Hadoop chunk of "hello" that says it makes 1 GB. */
    size_t n = from_hex("3B9ACA00 00000006 5068656C6C6F", src);
    int rc = inflate_all(PQ_LZ4, src, n, -1, big, &out, &err);
    CHECK(rc == PQ_CORRUPT && out.cap == 0 &&
              strcmp(err.msg,
                     "LZ4: the data is neither Hadoop-framed LZ4 nor a valid "
                     "LZ4 block (14 bytes)") == 0,
          "hadoop lie: cap %zu: %s", out.cap, err.msg);
    pq_buf_free(&out);
  }
  if (pq_codec_available(PQ_ZSTD)) {
    /* The frame of "hello" with a 4-byte content size of 1 GB. */
    size_t n = from_hex("28b52ffd a4 00ca9a3b 290000 68656c6c6f a36d9f88", src);
    int rc = inflate_all(PQ_ZSTD, src, n, -1, big, &out, &err);
    CHECK(rc == PQ_CORRUPT && out.cap <= 4096, "zstd lie: cap %zu: %s", out.cap,
          err.msg);
    pq_buf_free(&out);
    /* `printf hello | zstd -c`: no size in the frame, a 2 MiB window.  A
    ** stream under a smaller limit refuses the window rather than
    ** allocating it; with the size known, one call needs no window. */
    const char *hello = "28b52ffd045829000068656c6c6fa36d9f88";
    CHECK(strcmp(fails_with(PQ_ZSTD, hello, -1, 100000, &err),
                 "ZSTD: the data asks for a window that would exceed the "
                 "limit of 100000 bytes") == 0,
          "zstd window: %s", err.msg);
    n = from_hex(hello, src);
    rc = inflate_all(PQ_ZSTD, src, n, -1, 4 << 20, &out, &err);
    CHECK(rc == PQ_OK && out.len == 5, "zstd, 4 MiB limit: %s", err.msg);
    pq_buf_free(&out);
    rc = inflate_all(PQ_ZSTD, src, n, 5, 100000, &out, &err);
    CHECK(rc == PQ_OK && out.len == 5 && out.cap == 5, "zstd sized: %d cap %zu",
          rc, out.cap);
    pq_buf_free(&out);
    CHECK(strcmp(fails_with(PQ_ZSTD, hello, 4, 100000, &err),
                 "ZSTD: the data decompresses to more than the 4 bytes "
                 "expected") == 0,
          "zstd sized, longer: %s", err.msg);
    CHECK(strcmp(fails_with(PQ_ZSTD, hello, 6, 100000, &err),
                 "ZSTD: the data decompresses to 5 bytes, 6 expected") == 0,
          "zstd sized, shorter: %s", err.msg);
    /* An expected size the 18 bytes cannot make: no allocation. */
    rc = inflate_all(PQ_ZSTD, src, n, 100000000, (size_t)1 << 30, &out, &err);
    CHECK(rc == PQ_CORRUPT && out.cap == 0 &&
              strcmp(err.msg, "ZSTD: 18 bytes of zstd data cannot make the "
                              "100000000 bytes expected") == 0,
          "zstd sized, impossible: cap %zu: %s", out.cap, err.msg);
    pq_buf_free(&out);
  }
  if (pq_codec_available(PQ_GZIP)) {
    /* `printf hello | gzip -c -n`, 25 bytes, cannot make 100 MB. */
    size_t n = from_hex("1f8b0800000000000003cb48cdc9c9070086a6103605000000",
                        src);
    int rc = inflate_all(PQ_GZIP, src, n, 100000000, (size_t)1 << 30, &out,
                         &err);
    CHECK(rc == PQ_CORRUPT && out.cap == 0 &&
              strcmp(err.msg, "GZIP: 25 bytes of gzip data cannot make the "
                              "100000000 bytes expected") == 0,
          "gzip sized, impossible: cap %zu: %s", out.cap, err.msg);
    pq_buf_free(&out);
  }
}

/* The bounds an expected size is checked against are never below what
** the best compression of the format makes: 16 MiB of zeros, compressed
** and decompressed with its size expected, into no more than that size
** (and its one byte of room past it), brotli's output growing from 64
** times its input. */
static void test_best_ratios(void) {
  size_t n = (size_t)16 << 20;
  uint8_t *zeros = calloc(n, 1);
  const pq_codec cs[] = {PQ_GZIP, PQ_ZSTD, PQ_BROTLI, PQ_SNAPPY, PQ_LZ4_RAW};
  for (size_t i = 0; zeros && i < sizeof cs / sizeof cs[0]; i++) {
    if (!pq_codec_available(cs[i])) continue;
    pq_buf z, out;
    pq_error err;
    pq_buf_init(&z);
    int rc = pq_compress(cs[i], zeros, n, &z, &err);
    CHECK(rc == PQ_OK, "best ratio %d: compress: %s", (int)cs[i], err.msg);
    if (rc == PQ_OK) {
      rc = inflate_all(cs[i], z.data, z.len, (int64_t)n, n, &out, &err);
      CHECK(rc == PQ_OK && out.len == n && out.cap <= n + 1 &&
                memcmp(out.data, zeros, n) == 0,
            "best ratio %d: %zu bytes back to %zu (cap %zu): %s", (int)cs[i],
            z.len, out.len, out.cap, rc ? err.msg : "");
      CHECK(cs[i] != PQ_BROTLI || z.len * 64 < n,
            "brotli, 16 MiB of zeros in %zu bytes: the growing path untested",
            z.len);
      pq_buf_free(&out);
    }
    pq_buf_free(&z);
  }
  free(zeros);
}

/* ---- 6. Truncations and corruptions ---------------------------------------
 */

/* Decompresses a damaged stream of data that was n bytes: it must fail as
** corrupt (or too big for the limit) or give a result within the limit
** (of exactly n when n was expected).  Returns 1 when it did something
** else. */
static int damaged(pq_codec c, const uint8_t *src, size_t len, size_t n,
                   pq_error *err) {
  int bad = 0;
  for (int with_size = 0; with_size <= 1; with_size++) {
    size_t limit = with_size ? n : 2 * n + 100;
    pq_buf out;
    int rc =
        inflate_all(c, src, len, with_size ? (int64_t)n : -1, limit, &out, err);
    if (rc == PQ_OK) {
      if (out.len > limit || (with_size && out.len != n)) bad = 1;
    } else if ((rc != PQ_CORRUPT && rc != PQ_TOOBIG) || out.len != 0) {
      bad = 1;
    }
    pq_buf_free(&out);
  }
  return bad;
}

/* Damaged streams of every codec: never a crash, never a wrong size. */
static void test_damage(void) {
  static const struct {
    int kind;
    size_t n;
  } inputs[] = {{RANDOM, 300}, {REPETITIVE, 5000}, {ZEROS, 70000}};
  uint8_t *data = malloc(70000);
  for (size_t ci = 0; ci < NCODECS; ci++) {
    pq_codec c = all_codecs[ci];
    if (!pq_codec_available(c)) continue;
    for (size_t ii = 0; ii < sizeof inputs / sizeof inputs[0]; ii++) {
      size_t n = inputs[ii].n;
      fill(data, n, inputs[ii].kind);
      pq_buf z;
      pq_error err;
      pq_buf_init(&z);
      CHECK(pq_compress(c, data, n, &z, &err) == PQ_OK, "%s", err.msg);
      uint8_t *copy = malloc(z.len);
      /* Every truncation (a sample of them when the stream is long). */
      int bad = 0, tries = 0;
      size_t step = z.len > 2000 ? z.len / 1000 : 1;
      for (size_t len = 0; len < z.len; len += step, tries++) {
        memcpy(copy, z.data, len);
        bad += damaged(c, copy, len, n, &err);
      }
      /* Bytes changed at random: one to four of them. */
      for (int k = 0; k < 600; k++, tries++) {
        memcpy(copy, z.data, z.len);
        int changes = 1 + (int)(rnd() % 4);
        for (int i = 0; i < changes; i++) {
          size_t at = (size_t)(rnd() % z.len);
          copy[at] = k % 3 == 0 ? (uint8_t)rnd()
                                : (uint8_t)(copy[at] ^ (1u << (k % 8)));
        }
        bad += damaged(c, copy, z.len, n, &err);
      }
      CHECK(bad == 0, "%s input %zu: %d of %d damaged streams misread",
            pq_codec_name(c), ii, bad, tries);
      free(copy);
      pq_buf_free(&z);
    }
    /* Random bytes that were never a stream. */
    int bad = 0;
    uint8_t junk[64];
    for (int k = 0; k < 500; k++) {
      size_t len = 1 + (size_t)(rnd() % sizeof junk);
      fill(junk, len, RANDOM);
      pq_error err;
      bad += damaged(c, junk, len, 1000, &err);
    }
    CHECK(bad == 0, "%s: %d junk inputs misread", pq_codec_name(c), bad);
  }
  free(data);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  test_crc();
  test_names();
  test_known();
  test_round_trips();
  test_sizes();
  test_lies();
  test_best_ratios();
  test_damage();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
