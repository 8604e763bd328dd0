/*
** unit.c -- C unit tests of the encoding core.
**
**   1. bit packing: every width against a bit-by-bit reference
**   2. the spec's worked examples, to the exact byte, and back
**   3. what readers must accept (padding bits, unused miniblocks)
**   4. seeded random round trips of every encoding x type x length
**   5. every truncation and many corruptions of valid streams: an error or
**      values, never a crash (the sanitizer build checks the "never")
**
** Prints a line per failure starting with "!" and ends with
** "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

#include "check.h"

/* ---- Helpers ------------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t mix(void) { /* splitmix64 */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* Parses hex digits, ignoring spaces, into out; returns the length. */
static size_t unhex(const char *s, uint8_t *out) {
  size_t n = 0;
  int hi = -1;
  for (; *s; s++) {
    int v;
    if (*s >= '0' && *s <= '9')
      v = *s - '0';
    else if (*s >= 'a' && *s <= 'f')
      v = *s - 'a' + 10;
    else if (*s >= 'A' && *s <= 'F')
      v = *s - 'A' + 10;
    else
      continue;
    if (hi < 0) {
      hi = v;
    } else {
      out[n++] = (uint8_t)(hi << 4 | v);
      hi = -1;
    }
  }
  return n;
}

static char *tohex(const uint8_t *p, size_t n) {
  static char buf[4096];
  size_t k = 0;
  for (size_t i = 0; i < n && k + 4 < sizeof buf; i++) {
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%02X", p[i]);
  }
  buf[k] = 0;
  return buf;
}

static pq_params params(pq_encoding e, pq_type t, int32_t tl) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = e;
  p.type = t;
  p.type_length = tl;
  p.type_set = 1;
  return p;
}

/* Encodes n values, putting them in chunks of random size. */
static int encode(const pq_params *p, const void *vals, size_t n, pq_buf *out,
                  pq_buf *dict, pq_error *err) {
  pq_encoder *e;
  int rc = pq_encoder_open(&e, p, err);
  if (rc) return rc;
  size_t vs = p->encoding == PQ_RLE || p->encoding == PQ_BIT_PACKED
                  ? (p->type == PQ_BOOLEAN ? 1 : 4)
                  : pq_value_size(p->type, p->type_length);
  size_t i = 0;
  while (i < n && rc == PQ_OK) {
    size_t k = 1 + mix() % 300;
    if (k > n - i) k = n - i;
    rc = pq_encoder_put(e, (const uint8_t *)vals + i * vs, k, err);
    i += k;
  }
  if (rc == PQ_OK) rc = pq_encoder_finish(e, out, dict, err);
  pq_encoder_free(e);
  return rc;
}

/* Where decode() keeps copies of BYTE_ARRAY values. */
static uint8_t *copies;
static size_t copies_len, copies_cap;

/* Decodes up to max values into out, reading batches of random size. */
static int decode(const pq_params *p, const uint8_t *buf, size_t len,
                  const uint8_t *dict, size_t dict_len, void *out, size_t max,
                  size_t *n, pq_error *err) {
  pq_decoder *d;
  *n = 0;
  copies_len = 0;
  int rc = pq_decoder_open(&d, p, buf, len, dict, dict_len, err);
  if (rc) return rc;
  int is_index;
  int32_t tl;
  pq_type t = pq_decoder_type(d, &is_index, &tl);
  size_t vs = is_index ? 4 : pq_value_size(t, tl);
  for (;;) {
    size_t want = 1 + mix() % 700, got;
    if (want > max - *n) want = max - *n;
    if (want == 0) {
      /* Room is full: the stream must be done. */
      uint8_t scratch[64 * 1024];
      size_t cap = sizeof scratch / (vs ? vs : 1);
      rc = pq_decoder_read(d, scratch, cap ? 1 : 0, &got, err);
      if (rc == PQ_OK && got) rc = -1; /* more values than expected */
      break;
    }
    rc = pq_decoder_read(d, (uint8_t *)out + *n * vs, want, &got, err);
    if (rc || got == 0) break;
    if (t == PQ_BYTE_ARRAY && !is_index) {
      /* Values may live in the decoder until the next read: keep copies. */
      pq_bytes *b = (pq_bytes *)out + *n;
      for (size_t i = 0; i < got; i++) {
        if (copies_len + b[i].len > copies_cap) {
          fprintf(stderr, "copies arena too small\n");
          exit(2);
        }
        if (b[i].len) memcpy(copies + copies_len, b[i].ptr, b[i].len);
        b[i].ptr = copies + copies_len;
        copies_len += b[i].len;
      }
    }
    *n += got;
  }
  pq_decoder_free(d);
  return rc;
}

/* Decodes everything, discarding values; returns the status.  Used on
** corrupted input, where only "no crash, no overread" matters. */
static int decode_discard(const pq_params *p, const uint8_t *buf, size_t len,
                          const uint8_t *dict, size_t dict_len, uint64_t *count,
                          pq_error *err) {
  static uint8_t scratch[1 << 20];
  pq_decoder *d;
  *count = 0;
  int rc = pq_decoder_open(&d, p, buf, len, dict, dict_len, err);
  if (rc) return rc;
  int is_index;
  int32_t tl;
  pq_type t = pq_decoder_type(d, &is_index, &tl);
  size_t vs = is_index ? 4 : pq_value_size(t, tl);
  size_t cap = sizeof scratch / vs;
  if (cap > 4096) cap = 4096;
  for (;;) {
    size_t got;
    rc = pq_decoder_read(d, scratch, cap, &got, err);
    if (rc || got == 0) break;
    *count += got;
    if (*count > 50000000) break; /* a runaway decoder is a failure too */
  }
  pq_decoder_free(d);
  return rc;
}

/* Explains a stream to its end.  Returns 1 when the last row is a fault
** (its note copied to msg).  Counts in *bad the rows that leave the stream
** or go back in it. */
static int explain_all(const pq_params *p, const uint8_t *buf, size_t len,
                       const uint8_t *dict, size_t dict_len, char *msg,
                       int *bad, uint64_t *rows) {
  static pq_field f;
  pq_explainer *x;
  pq_error err;
  *rows = 0;
  msg[0] = 0;
  if (pq_explainer_open(&x, p, buf, len, dict, dict_len, &err)) {
    snprintf(msg, 256, "open: %.240s", err.msg);
    (*bad)++;
    return 1;
  }
  uint64_t last = 0;
  int fault = 0;
  while (pq_explainer_next(x, &f)) {
    (*rows)++;
    if (f.offset < last || f.offset > len || f.length > len - f.offset) {
      if (!*bad && getenv("PQ_DUMP")) {
        printf("out of place: %s at %llu+%llu after %llu (len %zu): %s\n",
               f.path, (unsigned long long)f.offset,
               (unsigned long long)f.length, (unsigned long long)last, len,
               f.note);
      }
      (*bad)++;
    }
    last = f.offset;
    if (f.fault) {
      fault = 1;
      snprintf(msg, 256, "%.250s", f.note);
    }
    if (*rows > 50000000) break;
  }
  pq_explainer_free(x);
  return fault;
}

/* ---- 1. Bit packing ------------------------------------------------------ */

static void ref_pack_lsb(const uint64_t *v, size_t n, int w, uint8_t *out) {
  memset(out, 0, (n * (size_t)w + 7) / 8);
  uint64_t bit = 0;
  for (size_t i = 0; i < n; i++) {
    for (int j = 0; j < w; j++, bit++) {
      if ((v[i] >> j) & 1) out[bit >> 3] |= (uint8_t)(1 << (bit & 7));
    }
  }
}

static void ref_pack_msb(const uint64_t *v, size_t n, int w, uint8_t *out) {
  memset(out, 0, (n * (size_t)w + 7) / 8);
  uint64_t bit = 0;
  for (size_t i = 0; i < n; i++) {
    for (int j = w - 1; j >= 0; j--, bit++) {
      if ((v[i] >> j) & 1) out[bit >> 3] |= (uint8_t)(0x80 >> (bit & 7));
    }
  }
}

static void test_bitpack(void) {
  for (int w = 0; w <= 64; w++) {
    int bad_unpack = 0, bad_pack = 0, bad_ref = 0;
    for (int trial = 0; trial < 20; trial++) {
      uint64_t v[32], got[32];
      uint8_t ref[8 * 32 + 8], packed[8 * 32 + 8];
      uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
      for (int i = 0; i < 32; i++) {
        v[i] = trial == 0 ? mask : mix() & mask; /* all ones, then random */
      }
      ref_pack_lsb(v, 32, w, ref);
      pq_unpack_lsb(ref, 0, w, 32, got);
      bad_ref += memcmp(got, v, sizeof v) != 0;
      if (w <= 32) {
        uint32_t v32[32], g32[32];
        for (int i = 0; i < 32; i++) v32[i] = (uint32_t)v[i];
        pq_unpack32(w, ref, g32);
        bad_unpack += memcmp(g32, v32, sizeof v32) != 0;
        memset(packed, 0xAA, sizeof packed);
        pq_pack32(w, v32, packed);
        bad_pack += memcmp(packed, ref, (size_t)4 * w) != 0;
        /* Packing must not write past 4*w bytes. */
        bad_pack += packed[4 * w] != 0xAA;
        /* The deprecated order. */
        ref_pack_msb(v, 32, w, ref);
        pq_unpack32_msb(w, ref, g32);
        bad_unpack += memcmp(g32, v32, sizeof v32) != 0;
        pq_unpack_msb(ref, 0, w, 32, got);
        bad_ref += memcmp(got, v, sizeof v) != 0;
        memset(packed, 0xAA, sizeof packed);
        pq_pack32_msb(w, v32, packed);
        bad_pack += memcmp(packed, ref, (size_t)4 * w) != 0;
        bad_pack += packed[4 * w] != 0xAA;
        ref_pack_lsb(v, 32, w, ref);
      }
      pq_unpack64(w, ref, got);
      bad_unpack += memcmp(got, v, sizeof v) != 0;
      memset(packed, 0xAA, sizeof packed);
      pq_pack64(w, v, packed);
      bad_pack += memcmp(packed, ref, (size_t)4 * w) != 0;
      bad_pack += packed[4 * w] != 0xAA;
    }
    CHECK(bad_unpack == 0, "unpack at width %d differs from the reference", w);
    CHECK(bad_pack == 0, "pack at width %d differs from the reference", w);
    CHECK(bad_ref == 0, "reference unpack at width %d", w);
  }
  /* The tables the decoders choose from: the scalar ones and those pq_cpu()
  ** allows (AVX2 where the machine has it), in both bit orders.  The packed
  ** bytes end where a malloc'ed block does, at several offsets into it, so
  ** that a load past the 4*w bytes is seen by AddressSanitizer; the 8
  ** outputs after the 32 must stay as they were. */
  const pq_unpack32_fn *tables[4] = {
      pq_unpack32_msb_table(0), pq_unpack32_msb_table(pq_cpu()),
      pq_unpack32_table(0), pq_unpack32_table(pq_cpu())};
  for (int t = 0; t < 4; t++) {
    int msb = t < 2;
    for (int w = 0; w <= 32; w++) {
      int bad = 0, overrun = 0;
      uint32_t mask = w == 32 ? ~0u : (1u << w) - 1;
      for (size_t off = 0; off < 8; off += 1 + off) { /* 0, 1, 3, 7 */
        for (int trial = 0; trial < 4; trial++) {
          uint64_t v[32];
          uint32_t v32[32], got[32 + 8];
          for (int i = 0; i < 32; i++) {
            v32[i] = trial == 0 ? mask : (uint32_t)mix() & mask;
            v[i] = v32[i];
          }
          size_t size = off + (size_t)4 * w;
          uint8_t *block = malloc(size ? size : 1);
          memset(block, 0x5A, size ? size : 1);
          if (msb) {
            ref_pack_msb(v, 32, w, block + off);
          } else {
            ref_pack_lsb(v, 32, w, block + off);
          }
          for (int i = 0; i < 32 + 8; i++) got[i] = 0xA5A5A5A5u;
          tables[t][w](block + off, got);
          bad += memcmp(got, v32, sizeof v32) != 0;
          for (int i = 32; i < 32 + 8; i++) overrun += got[i] != 0xA5A5A5A5u;
          free(block);
        }
      }
      CHECK(bad == 0, "%s unpack table %d at width %d differs",
            msb ? "MSB" : "LSB", t % 2, w);
      CHECK(overrun == 0, "%s unpack table %d at width %d writes past 32",
            msb ? "MSB" : "LSB", t % 2, w);
    }
  }
  /* Unaligned starts of the general form. */
  uint64_t v[50], got[50];
  uint8_t buf[512];
  for (int w = 1; w <= 64; w += 7) {
    uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
    for (int i = 0; i < 50; i++) v[i] = mix() & mask;
    ref_pack_lsb(v, 50, w, buf);
    pq_unpack_lsb(buf, (uint64_t)w * 13, w, 37, got);
    CHECK(memcmp(got, v + 13, 37 * 8) == 0, "unaligned unpack, width %d", w);
  }
}

/* PQ_SIMD as the run began, to put back after the tests that change it. */
static char *simd_env;
static void simd_restore(void) {
  if (simd_env) {
    setenv("PQ_SIMD", simd_env, 1);
  } else {
    unsetenv("PQ_SIMD");
  }
}

/* Encodes n values with BIT_PACKED at width w (given, or inferred when
** fixed is 0) in the bit order asked, put in pieces of `piece` values (the
** last shorter), or of random sizes when piece is 0. */
static int bp_encode(int w, int fixed, int lsb, const uint32_t *v, size_t n,
                     size_t piece, pq_buf *out, pq_error *err) {
  pq_params p = params(PQ_BIT_PACKED, PQ_INT32, 0);
  if (fixed) p.bit_width = w;
  p.lsb_first = lsb;
  pq_encoder *e;
  int rc = pq_encoder_open(&e, &p, err);
  if (rc) return rc;
  for (size_t i = 0; i < n && rc == PQ_OK;) {
    size_t k = piece ? piece : 1 + mix() % 200;
    if (k > n - i) k = n - i;
    rc = pq_encoder_put(e, v + i, k, err);
    i += k;
    /* The size so far is that of the values put, padded to a byte. */
    if (rc == PQ_OK && fixed && pq_encoder_size(e) != (i * (size_t)w + 7) / 8)
      rc = PQ_MISUSE;
  }
  pq_buf_init(out);
  if (rc == PQ_OK) rc = pq_encoder_finish(e, out, NULL, err);
  pq_encoder_free(e);
  return rc;
}

static void test_bitpack_encoder(void) {
  /* The packers the encoder chooses from against the reference, at every
  ** width, the values' bits above the width ignored.  The output ends 16
  ** bytes after the 4*w, where a malloc'ed block does. */
  const pq_pack32_fn *tables[4] = {
      pq_pack32_msb_table(0), pq_pack32_msb_table(pq_cpu()),
      pq_pack32_table(0), pq_pack32_table(pq_cpu())};
  for (int t = 0; t < 4; t++) {
    int msb = t < 2;
    for (int w = 0; w <= 32; w++) {
      int bad = 0;
      uint32_t mask = w == 32 ? ~0u : (1u << w) - 1;
      for (int trial = 0; trial < 8; trial++) {
        uint32_t v32[32];
        uint64_t v[32];
        for (int i = 0; i < 32; i++) {
          uint32_t r = (uint32_t)mix();
          v32[i] = trial == 0 ? mask : trial == 1 ? ~0u : r;
          v[i] = v32[i] & mask;
        }
        uint8_t ref[4 * 32 + 1], *block = malloc((size_t)4 * w + 16);
        if (msb) {
          ref_pack_msb(v, 32, w, ref);
        } else {
          ref_pack_lsb(v, 32, w, ref);
        }
        memset(block, 0x5A, (size_t)4 * w + 16);
        tables[t][w](v32, block);
        bad += memcmp(block, ref, (size_t)4 * w) != 0;
        free(block);
      }
      CHECK(bad == 0, "%s pack table %d at width %d differs",
            msb ? "MSB" : "LSB", t % 2, w);
    }
  }
  /* The encoder, with the fast paths and without (PQ_SIMD=none), against
  ** the reference: every width 1..32 in both orders, counts that are not
  ** multiples of 8, put in pieces that leave the stream off a byte
  ** boundary, at a width given or found (re-packed as it widens). */
  static const size_t counts[] = {1, 7, 31, 33, 45, 100, 1001, 2085};
  static const size_t pieces[] = {0, 1, 3, 13, 37, 1024, 5000};
  enum { BP_MAXN = 2085 };
  uint32_t *v = malloc(BP_MAXN * sizeof *v);
  uint64_t *v64 = malloc(BP_MAXN * sizeof *v64);
  uint8_t *ref = malloc((size_t)BP_MAXN * 4 + 8);
  for (int simd = 0; simd < 2; simd++) {
    if (simd) {
      simd_restore();
    } else {
      setenv("PQ_SIMD", "none", 1);
    }
    for (int w = 1; w <= 32; w++) {
      int bad = 0, bad_auto = 0;
      uint32_t mask = w == 32 ? ~0u : (1u << w) - 1;
      for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        size_t n = counts[c];
        for (size_t i = 0; i < n; i++) {
          v[i] = (uint32_t)mix() & mask;
          /* Small values first: the inferred width grows on the way. */
          if (i < n / 2) v[i] >>= (uint32_t)(w * (n / 2 - i) / n);
          if (i == n - 1) v[i] |= 1u << (w - 1); /* the width is reached */
          v64[i] = v[i];
        }
        for (int lsb = 0; lsb < 2; lsb++) {
          if (lsb) {
            ref_pack_lsb(v64, n, w, ref);
          } else {
            ref_pack_msb(v64, n, w, ref);
          }
          size_t len = (n * (size_t)w + 7) / 8;
          for (size_t k = 0; k < sizeof pieces / sizeof *pieces; k++) {
            for (int fixed = 0; fixed < 2; fixed++) {
              pq_buf out;
              pq_error err;
              int rc = bp_encode(w, fixed, lsb, v, n, pieces[k], &out, &err);
              int ok = rc == PQ_OK && out.len == len &&
                       memcmp(out.data, ref, len) == 0;
              if (fixed) {
                bad += !ok;
              } else {
                bad_auto += !ok;
              }
              pq_buf_free(&out);
            }
          }
        }
      }
      CHECK(bad == 0, "BIT_PACKED encoder, width %d (PQ_SIMD %s): %d differ",
            w, simd ? "as set" : "none", bad);
      CHECK(bad_auto == 0,
            "BIT_PACKED encoder, width %d found (PQ_SIMD %s): %d differ", w,
            simd ? "as set" : "none", bad_auto);
    }
  }
  simd_restore();
  /* A value over a given width: its index, and no bytes for its batch. */
  for (size_t i = 0; i < 100; i++) v[i] = (uint32_t)i % 8;
  v[77] = 8;
  pq_params p = params(PQ_BIT_PACKED, PQ_INT32, 0);
  p.bit_width = 3;
  pq_encoder *e;
  pq_error err;
  if (pq_encoder_open(&e, &p, &err) == PQ_OK) {
    int rc1 = pq_encoder_put(e, v, 50, &err);
    int rc2 = pq_encoder_put(e, v + 50, 50, &err);
    CHECK(rc1 == PQ_OK && rc2 == PQ_RANGE && strstr(err.msg, "value 77 is 8"),
          "BIT_PACKED range: rc %d %d '%s'", rc1, rc2, err.msg);
    CHECK(pq_encoder_size(e) == (50 * 3 + 7) / 8,
          "BIT_PACKED range: size %zu after the refused batch",
          pq_encoder_size(e));
    pq_encoder_free(e);
  }
  free(v);
  free(v64);
  free(ref);
}

/* ---- 2. Spec examples ---------------------------------------------------- */

/* Encodes vals with p and checks the bytes are hex; decodes them back. */
static void spec_example(const char *name, pq_params p, const void *vals,
                         size_t n, const char *hex) {
  uint8_t want[512];
  size_t wn = unhex(hex, want);
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  pq_error err;
  int rc = encode(&p, vals, n, &out, &dict, &err);
  CHECK(rc == 0, "%s: encode: %s", name, err.msg);
  CHECK(out.len == wn && memcmp(out.data, want, wn) == 0,
        "%s: encoded %s, the spec says %s", name, tohex(out.data, out.len),
        hex);
  uint8_t back[4096];
  size_t got;
  p.count = (int64_t)n;
  rc = decode(&p, want, wn, NULL, 0, back, n, &got, &err);
  size_t vs = pq_value_size(p.type, p.type_length);
  if (p.encoding == PQ_RLE || p.encoding == PQ_BIT_PACKED)
    vs = p.type == PQ_BOOLEAN ? 1 : 4;
  if (p.type == PQ_BYTE_ARRAY) {
    int same = rc == 0 && got == n;
    for (size_t i = 0; same && i < n; i++) {
      const pq_bytes *a = (const pq_bytes *)vals + i, *b = (pq_bytes *)back + i;
      same = a->len == b->len && memcmp(a->ptr, b->ptr, a->len) == 0;
    }
    CHECK(same, "%s: decoded back differently (%s)", name, rc ? err.msg : "");
  } else {
    CHECK(rc == 0 && got == n && memcmp(back, vals, n * vs) == 0,
          "%s: decoded back differently (%s)", name, rc ? err.msg : "");
  }
  pq_buf_free(&out);
  pq_buf_free(&dict);
}

static pq_bytes str(const char *s) {
  pq_bytes b = {(const uint8_t *)s, strlen(s)};
  return b;
}

static void test_spec_examples(void) {
  /* DELTA_BINARY_PACKED, examples 1 and 2 (block size 8, 1 miniblock). */
  pq_params p = params(PQ_DELTA_BINARY_PACKED, PQ_INT64, 0);
  p.block_size = 8;
  p.miniblocks = 1;
  int64_t ex1[] = {1, 2, 3, 4, 5};
  spec_example("delta example 1", p, ex1, 5, "08 01 05 02 | 02 00");
  int64_t ex2[] = {7, 5, 3, 1, 2, 3, 4, 5};
  spec_example("delta example 2", p, ex2, 8, "08 01 08 0E | 03 02 C0 3F");
  p.type = PQ_INT32;
  int32_t ex2_32[] = {7, 5, 3, 1, 2, 3, 4, 5};
  spec_example("delta example 2, INT32", p, ex2_32, 8,
               "08 01 08 0E 03 02 C0 3F");

  /* RLE/bit-packing hybrid: 0..7 at width 3 is one bit-packed group,
  ** 10001000 11000110 11111010. */
  p = params(PQ_RLE, PQ_INT32, 0);
  p.bit_width = 3;
  uint32_t seq[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  spec_example("hybrid 0..7 width 3", p, seq, 8, "03 88 C6 FA");
  p.length_prefix = 1;
  spec_example("hybrid 0..7 width 3, prefixed", p, seq, 8,
               "04000000 03 88 C6 FA");
  /* Deprecated BIT_PACKED: 00000101 00111001 01110111. */
  p = params(PQ_BIT_PACKED, PQ_INT32, 0);
  p.bit_width = 3;
  spec_example("BIT_PACKED 0..7 width 3", p, seq, 8, "05 39 77");
  p.lsb_first = 1;
  spec_example("BIT_PACKED 0..7 width 3, LSB order", p, seq, 8, "88 C6 FA");

  /* DELTA_LENGTH_BYTE_ARRAY: DeltaEncoding(5, 5, 6, 6)
  *"HelloWorldFoobarABCDEF".
  ** The lengths: header 128/4/4/first 5; block: min delta 0, widths 1 0 0 0,
  ** deltas 0 1 0 in one bit each (a 32-value miniblock of 4 bytes). */
  p = params(PQ_DELTA_LENGTH_BYTE_ARRAY, PQ_BYTE_ARRAY, 0);
  pq_bytes hw[] = {str("Hello"), str("World"), str("Foobar"), str("ABCDEF")};
  spec_example("DELTA_LENGTH_BYTE_ARRAY", p, hw, 4,
               "8001 04 04 0A | 00 01000000 02000000 |"
               "48656C6C6F 576F726C64 466F6F626172 414243444546");
  /* DELTA_BYTE_ARRAY: prefixes (0, 2, 0, 3), suffixes (4, 2, 6, 5),
  ** "axislebabbleyhood". */
  p = params(PQ_DELTA_BYTE_ARRAY, PQ_BYTE_ARRAY, 0);
  pq_bytes ax[] = {str("axis"), str("axle"), str("babble"), str("babyhood")};
  /* prefixes: first 0; deltas 2,-2,3 -> min -2 (zigzag 3), relative 4,0,5
  ** in 3 bits LSB first -> 0x44 0x01, padded to 32 values (12 bytes).
  ** suffixes: first 4 (zigzag 8); deltas -2,4,-1 -> min -2, relative
  ** 0,6,1 -> 0x70 0x00. */
  spec_example(
      "DELTA_BYTE_ARRAY", p, ax, 4,
      "8001 04 04 00 | 03 03000000 44 01 00 00 00 00 00 00 00 00 00 00 |"
      "8001 04 04 08 | 03 03000000 70 00 00 00 00 00 00 00 00 00 00 00 |"
      "61786973 6C65 626162626C65 79686F6F64");
  /* BYTE_STREAM_SPLIT of three FLOATs AA BB CC DD, 00 11 22 33, A3 B4 C5 D6. */
  p = params(PQ_BYTE_STREAM_SPLIT, PQ_FLOAT, 0);
  uint8_t raw[12];
  unhex("AABBCCDD 00112233 A3B4C5D6", raw);
  float fl[3];
  for (int i = 0; i < 3; i++) {
    uint32_t u = pq_load32(raw + 4 * i);
    memcpy(&fl[i], &u, 4);
  }
  spec_example("BYTE_STREAM_SPLIT", p, fl, 3,
               "AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6");
  p.type = PQ_FIXED_LEN_BYTE_ARRAY;
  p.type_length = 4;
  spec_example("BYTE_STREAM_SPLIT FLBA(4)", p, raw, 3,
               "AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6");
  /* GroupVarInt: a length byte of 0b00101101 means 1, 3, 4 and 2 bytes. */
  p = params(PQ_GROUP_VAR_INT, PQ_INT32, 0);
  int32_t g[] = {0xFF, 0xFFFFFF, -1, 0xFFFF};
  spec_example("GROUP_VAR_INT 0b00101101", p, g, 4,
               "2D FF FFFFFF FFFFFFFF FFFF");
  /* (1,2,3,4,5) behaves as (1,2,3,4,5,0,0,0). */
  int32_t g5[] = {1, 2, 3, 4, 5};
  spec_example("GROUP_VAR_INT 1..5", p, g5, 5,
               "00 01 02 03 04 | 00 05 00 00 00");
  int32_t g8[] = {1, 2, 3, 4, 5, 0, 0, 0};
  uint8_t gb[16];
  size_t gn = unhex("00 01 02 03 04 00 05 00 00 00", gb);
  int32_t back[8];
  size_t got;
  pq_error err;
  pq_params q = params(PQ_GROUP_VAR_INT, PQ_INT32, 0);
  int rc = decode(&q, gb, gn, NULL, 0, back, 8, &got, &err);
  CHECK(rc == 0 && got == 8 && memcmp(back, g8, sizeof g8) == 0,
        "GROUP_VAR_INT without a count yields the zero fill too");
  /* INT64: five 3-bit fields under an unused top bit, big-endian. */
  p.type = PQ_INT64;
  int64_t g64[] = {1, 0x1234, -1, 0, 0x0102030405LL};
  /* lengths 1,2,8,1,5 -> fields 0,1,7,0,4 -> 0 000 001 111 000 100 = 0x03C4 */
  spec_example("GROUP_VAR_INT INT64", p, g64, 5,
               "03C4 01 3412 FFFFFFFFFFFFFFFF 00 0504030201");
  /* PLAIN BOOLEAN: bit-packed, LSB first. */
  p = params(PQ_PLAIN, PQ_BOOLEAN, 0);
  uint8_t bools[] = {1, 0, 1, 1, 0, 0, 0, 0, 1, 1};
  spec_example("PLAIN BOOLEAN", p, bools, 10, "0D 03");
  /* PLAIN BYTE_ARRAY: a 4-byte little-endian length, then the bytes. */
  p = params(PQ_PLAIN, PQ_BYTE_ARRAY, 0);
  pq_bytes ab[] = {str("ab"), str("")};
  spec_example("PLAIN BYTE_ARRAY", p, ab, 2, "02000000 6162 00000000");
  /* RLE_DICTIONARY: dictionary in order of first appearance. */
  p = params(PQ_RLE_DICTIONARY, PQ_INT32, 0);
  int32_t dv[] = {10, 20, 10, 10, 30, 30, 30, 30, 30, 30, 30, 30, 30};
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  rc = encode(&p, dv, 13, &out, &dict, &err);
  /* indices 0 1 0 0 2 2 2 2 | 2 2 2 2 2: width 2; a bit-packed group of 8
  ** (0 1 0 0 2 2 2 2 -> 0x04 0xAA), then an RLE run of five 2s. */
  CHECK(rc == 0 && strcmp(tohex(out.data, out.len), "020304AA0A02") == 0,
        "dictionary indices: %s", tohex(out.data, out.len));
  CHECK(rc == 0 &&
            strcmp(tohex(dict.data, dict.len), "0A000000140000001E000000") == 0,
        "dictionary: %s", tohex(dict.data, dict.len));
  int32_t dback[13];
  q = params(PQ_RLE_DICTIONARY, PQ_INT32, 0);
  rc =
      decode(&q, out.data, out.len, dict.data, dict.len, dback, 13, &got, &err);
  CHECK(rc == 0 && got == 13 && memcmp(dback, dv, sizeof dv) == 0,
        "dictionary decodes back: %s", rc ? err.msg : "");
  uint32_t idx[16];
  q.count = 13;
  rc = decode(&q, out.data, out.len, NULL, 0, idx, 16, &got, &err);
  CHECK(rc == 0 && got == 13 && idx[1] == 1 && idx[4] == 2 && idx[12] == 2,
        "dictionary without the dictionary yields indices");
  pq_buf_free(&out);
  pq_buf_free(&dict);
}

/* ---- 3. What readers must accept ----------------------------------------- */

static void expect_decode(const char *name, pq_params p, const char *hex,
                          const void *want, size_t n) {
  uint8_t buf[1024], back[8192];
  size_t len = unhex(hex, buf), got;
  pq_error err;
  int rc = decode(&p, buf, len, NULL, 0, back, n, &got, &err);
  size_t vs = pq_value_size(p.type, p.type_length);
  if (p.encoding == PQ_RLE || p.encoding == PQ_BIT_PACKED)
    vs = p.type == PQ_BOOLEAN ? 1 : 4;
  CHECK(rc == 0 && got == n && memcmp(back, want, n * vs) == 0, "%s: %s", name,
        rc ? err.msg : "different values");
}

static void test_reader_acceptance(void) {
  int64_t ex2[] = {7, 5, 3, 1, 2, 3, 4, 5};
  pq_params p = params(PQ_DELTA_BINARY_PACKED, PQ_INT64, 0);
  /* The padding slot of the miniblock holds ones instead of zeros. */
  expect_decode("delta: arbitrary padding bits", p, "08 01 08 0E 03 02 C0 FF",
                ex2, 8);
  /* 5 values in 128/4: miniblock 0 used, 1..3 unused with arbitrary widths
  ** (even above 64) and no bodies. */
  int64_t five[] = {100, 103, 101, 110, 90};
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  pq_error err;
  int rc = encode(&p, five, 5, &out, &dict, &err);
  CHECK(rc == 0, "encode 5 values");
  /* header 80 01 04 05 C8 01 (6 bytes); min delta; widths at 7..10 */
  size_t wpos = 6 + 1;
  CHECK(out.len > wpos + 4 && out.data[wpos + 1] == 0 &&
            out.data[wpos + 2] == 0 && out.data[wpos + 3] == 0,
        "unused miniblocks are written with width 0: %s",
        tohex(out.data, out.len));
  size_t expect_len = wpos + 4 + 32 * out.data[wpos] / 8;
  CHECK(out.len == expect_len, "no bodies for unused miniblocks (%zu vs %zu)",
        out.len, expect_len);
  out.data[wpos + 1] = 7;
  out.data[wpos + 2] = 200;
  out.data[wpos + 3] = 0xFF;
  int64_t back[8];
  size_t got;
  rc = decode(&p, out.data, out.len, NULL, 0, back, 5, &got, &err);
  CHECK(rc == 0 && got == 5 && memcmp(back, five, sizeof five) == 0,
        "delta: arbitrary widths of unused miniblocks: %s", rc ? err.msg : "");
  /* The last miniblock's padding bytes may be missing when the values are
  ** there: keep 3 relative deltas' bits of 32. */
  size_t w0 = out.data[wpos];
  size_t cut = wpos + 4 + (4 * w0 + 7) / 8;
  rc = decode(&p, out.data, cut, NULL, 0, back, 5, &got, &err);
  CHECK(rc == 0 && got == 5 && memcmp(back, five, sizeof five) == 0,
        "delta: last miniblock without its padding: %s", rc ? err.msg : "");
  pq_buf_free(&out);
  pq_buf_free(&dict);

  /* Hybrid: a bit-packed group of 8 slots holding 3 values, padding bits
  ** set; with a count of 3 the values are 1 2 3. */
  p = params(PQ_RLE, PQ_INT32, 0);
  p.bit_width = 2;
  p.count = 3;
  uint32_t three[] = {1, 2, 3};
  expect_decode("hybrid: arbitrary padding bits", p, "03 39 FF", three, 3);
  /* The bit-packed run's padding bytes may be missing too. */
  expect_decode("hybrid: run cut after its values", p, "03 39", three, 3);
  /* Bit width 0 for dictionary indices: every index is 0. */
  p = params(PQ_RLE_DICTIONARY, PQ_INT32, 0);
  p.count = 10;
  uint8_t dbuf[4];
  size_t dl = unhex("00 14 00", dbuf); /* width 0, RLE run of 10 */
  uint8_t d1[4] = {42, 0, 0, 0};
  int32_t dvals[10];
  rc = decode(&p, dbuf, dl, d1, 4, dvals, 10, &got, &err);
  int all42 = rc == 0 && got == 10;
  for (size_t i = 0; all42 && i < 10; i++) all42 = dvals[i] == 42;
  CHECK(all42, "dictionary indices of bit width 0: %s", rc ? err.msg : "");
  /* 256-value miniblocks (block 256, 1 miniblock) decode. */
  p = params(PQ_DELTA_BINARY_PACKED, PQ_INT32, 0);
  p.block_size = 256;
  p.miniblocks = 1;
  int32_t many[1000];
  for (int i = 0; i < 1000; i++) many[i] = (int32_t)(mix() % 100000) - 50000;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  rc = encode(&p, many, 1000, &out, &dict, &err);
  CHECK(
      rc == 0 && out.data[0] == 0x80 && out.data[1] == 0x02 && out.data[2] == 1,
      "256/1 header");
  int32_t mback[1000];
  pq_params q = params(PQ_DELTA_BINARY_PACKED, PQ_INT32, 0);
  rc = decode(&q, out.data, out.len, NULL, 0, mback, 1000, &got, &err);
  CHECK(rc == 0 && got == 1000 && memcmp(many, mback, sizeof many) == 0,
        "256-value miniblocks decode: %s", rc ? err.msg : "");
  pq_buf_free(&out);
  pq_buf_free(&dict);
}

/* ---- 4. Round trips -------------------------------------------------------
 */

enum { SHAPE_RANDOM, SHAPE_EQUAL, SHAPE_EXTREMES, SHAPE_SORTED, SHAPES };

/* Storage for generated BYTE_ARRAY values. */
static uint8_t *arena;
static size_t arena_len, arena_cap;

static const uint8_t *arena_add(size_t n) {
  if (arena_len + n > arena_cap) {
    /* Values keep pointers into the arena: grow by starting a new one is
    ** not possible, so the caller sizes it up front. */
    fprintf(stderr, "arena too small\n");
    exit(2);
  }
  uint8_t *p = arena + arena_len;
  arena_len += n;
  return p;
}

static void gen_bytes(pq_bytes *v, size_t n, int shape, int big) {
  arena_len = 0;
  for (size_t i = 0; i < n; i++) {
    size_t len;
    uint64_t r = mix();
    if (shape == SHAPE_EQUAL && i > 0) {
      v[i] = v[0];
      continue;
    }
    switch (r % 8) {
      case 0: len = 0; break; /* empty */
      case 1: len = big && i % 97 == 1 ? 70000 + r % 1000 : r % 40; break;
      default: len = 1 + r % 20;
    }
    uint8_t *p = (uint8_t *)arena_add(len);
    int utf8 = (r >> 8) % 3 != 0;
    for (size_t j = 0; j < len; j++) {
      p[j] =
          utf8 ? (uint8_t)('a' + mix() % 26) : (uint8_t)mix(); /* non-UTF-8 */
    }
    if (shape == SHAPE_SORTED && i > 0 && len > 3 && v[i - 1].len > 3) {
      memcpy(p, v[i - 1].ptr, 3); /* shared prefixes */
    }
    v[i].ptr = p;
    v[i].len = len;
  }
}

static void gen_values(pq_type t, int32_t tl, void *out, size_t n, int shape,
                       int big) {
  uint8_t *o = out;
  if (t == PQ_BYTE_ARRAY) {
    gen_bytes(out, n, shape, big);
    return;
  }
  size_t vs = pq_value_size(t, tl);
  for (size_t i = 0; i < n; i++) {
    uint8_t *v = o + i * vs;
    if (shape == SHAPE_EQUAL && i > 0) {
      memcpy(v, o, vs);
      continue;
    }
    uint64_t r = mix();
    switch (t) {
      case PQ_BOOLEAN: *v = shape == SHAPE_SORTED ? (i / 37) % 2 : r & 1; break;
      case PQ_INT32: {
        int32_t x = (int32_t)r;
        if (shape == SHAPE_EXTREMES)
          x = (r & 3) == 0   ? INT32_MIN
              : (r & 3) == 1 ? INT32_MAX
              : (r & 3) == 2 ? 0
                             : -1;
        if (shape == SHAPE_SORTED) x = (int32_t)(i * 1000 + r % 50);
        memcpy(v, &x, 4);
        break;
      }
      case PQ_INT64: {
        int64_t x = (int64_t)r;
        if (shape == SHAPE_EXTREMES)
          x = (r & 3) == 0   ? INT64_MIN
              : (r & 3) == 1 ? INT64_MAX
              : (r & 3) == 2 ? 0
                             : -1;
        if (shape == SHAPE_SORTED)
          x = 1700000000000LL + (int64_t)(i * 1000 + r % 50);
        memcpy(v, &x, 8);
        break;
      }
      case PQ_FLOAT:
      case PQ_DOUBLE: {
        /* Specials bit-exact: NaNs with payloads, infinities, -0.0. */
        static const uint64_t dspecial[] = {
            0x7ff8000000000000ull, 0xfff8000000000001ull, 0x7ff0000000000001ull,
            0x7ff0000000000000ull, 0xfff0000000000000ull, 0x8000000000000000ull,
            0x0000000000000001ull, 0x3ff0000000000000ull};
        static const uint32_t fspecial[] = {
            0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x7f800000u,
            0xff800000u, 0x80000000u, 0x00000001u, 0x3f800000u};
        int special = shape == SHAPE_EXTREMES || r % 16 == 0;
        if (t == PQ_DOUBLE) {
          uint64_t b = special ? dspecial[(r >> 8) % 8] : r;
          if (shape == SHAPE_SORTED) {
            double d = (double)(i * 7 + r % 100) / 100.0;
            memcpy(&b, &d, 8);
          }
          memcpy(v, &b, 8);
        } else {
          uint32_t b = special ? fspecial[(r >> 8) % 8] : (uint32_t)r;
          memcpy(v, &b, 4);
        }
        break;
      }
      default: /* INT96, FIXED_LEN_BYTE_ARRAY */
        for (size_t j = 0; j < vs; j++)
          v[j] = shape == SHAPE_SORTED && j < vs / 2 ? 7 : (uint8_t)mix();
    }
  }
}

static int same_values(pq_type t, int32_t tl, const void *a, const void *b,
                       size_t n, size_t *where) {
  if (t == PQ_BYTE_ARRAY) {
    const pq_bytes *x = a, *y = b;
    for (size_t i = 0; i < n; i++) {
      if (x[i].len != y[i].len ||
          (x[i].len && memcmp(x[i].ptr, y[i].ptr, x[i].len) != 0)) {
        *where = i;
        return 0;
      }
    }
    return 1;
  }
  size_t vs = pq_value_size(t, tl);
  for (size_t i = 0; i < n; i++) {
    if (memcmp((const uint8_t *)a + i * vs, (const uint8_t *)b + i * vs, vs)) {
      *where = i;
      return 0;
    }
  }
  return 1;
}

static const size_t lengths[] = {0, 1, 7, 8, 9, 127, 128, 129, 100000};
#define NLEN (sizeof lengths / sizeof lengths[0])
#define MAXN 100000

static uint8_t *vals_a, *vals_b;

/* Encodes and decodes one case; `count` passes the count option. */
static void round_trip(const char *tag, pq_params p, size_t n, int shape) {
  pq_type t = p.type;
  gen_values(t, p.type_length, vals_a, n, shape, n > 1000);
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  pq_error err;
  int rc = encode(&p, vals_a, n, &out, &dict, &err);
  if (rc) {
    CHECK(0, "%s: encode %s %s n=%zu: %s", tag, pq_encoding_name(p.encoding),
          pq_type_name(t), n, err.msg);
    return;
  }
  int is_dict =
      p.encoding == PQ_RLE_DICTIONARY || p.encoding == PQ_PLAIN_DICTIONARY;
  pq_params q = p;
  q.count = (int64_t)n;
  size_t got = 0, where = 0;
  rc = decode(&q, out.data, out.len,
              is_dict ? (dict.data ? dict.data : (const uint8_t *)"") : NULL,
              dict.len, vals_b, MAXN, &got, &err);
  int ok = rc == 0 && got == n &&
           same_values(t, p.type_length, vals_a, vals_b, n, &where);
  CHECK(
      ok,
      "%s: %s %s n=%zu shape=%d: %s (got %zu values, first difference at %zu)",
      tag, pq_encoding_name(p.encoding), pq_type_name(t), n, shape,
      rc ? err.msg : "values differ", got, where);
  /* Self-describing streams decode without the count as well. */
  if (ok && (p.encoding == PQ_DELTA_BINARY_PACKED ||
             p.encoding == PQ_DELTA_LENGTH_BYTE_ARRAY ||
             p.encoding == PQ_DELTA_BYTE_ARRAY ||
             p.encoding == PQ_BYTE_STREAM_SPLIT ||
             (p.encoding == PQ_PLAIN && t != PQ_BOOLEAN))) {
    q.count = -1;
    rc = decode(&q, out.data, out.len, NULL, 0, vals_b, MAXN, &got, &err);
    CHECK(rc == 0 && got == n &&
              same_values(t, p.type_length, vals_a, vals_b, n, &where),
          "%s: %s %s n=%zu without count: %s", tag,
          pq_encoding_name(p.encoding), pq_type_name(t), n,
          rc ? err.msg : "differs");
  }
  pq_buf_free(&out);
  pq_buf_free(&dict);
}

static void test_round_trips(void) {
  static const struct {
    pq_encoding e;
    pq_type t;
    int32_t tl;
  } cases[] = {
      {PQ_PLAIN, PQ_BOOLEAN, 0},
      {PQ_PLAIN, PQ_INT32, 0},
      {PQ_PLAIN, PQ_INT64, 0},
      {PQ_PLAIN, PQ_INT96, 0},
      {PQ_PLAIN, PQ_FLOAT, 0},
      {PQ_PLAIN, PQ_DOUBLE, 0},
      {PQ_PLAIN, PQ_BYTE_ARRAY, 0},
      {PQ_PLAIN, PQ_FIXED_LEN_BYTE_ARRAY, 3},
      {PQ_PLAIN, PQ_FIXED_LEN_BYTE_ARRAY, 16},
      {PQ_RLE, PQ_BOOLEAN, 0},
      {PQ_RLE_DICTIONARY, PQ_BOOLEAN, 0},
      {PQ_RLE_DICTIONARY, PQ_INT32, 0},
      {PQ_RLE_DICTIONARY, PQ_INT64, 0},
      {PQ_RLE_DICTIONARY, PQ_INT96, 0},
      {PQ_RLE_DICTIONARY, PQ_FLOAT, 0},
      {PQ_RLE_DICTIONARY, PQ_DOUBLE, 0},
      {PQ_RLE_DICTIONARY, PQ_BYTE_ARRAY, 0},
      {PQ_RLE_DICTIONARY, PQ_FIXED_LEN_BYTE_ARRAY, 5},
      {PQ_PLAIN_DICTIONARY, PQ_INT64, 0},
      {PQ_PLAIN_DICTIONARY, PQ_BYTE_ARRAY, 0},
      {PQ_DELTA_BINARY_PACKED, PQ_INT32, 0},
      {PQ_DELTA_BINARY_PACKED, PQ_INT64, 0},
      {PQ_DELTA_LENGTH_BYTE_ARRAY, PQ_BYTE_ARRAY, 0},
      {PQ_DELTA_BYTE_ARRAY, PQ_BYTE_ARRAY, 0},
      {PQ_DELTA_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY, 7},
      {PQ_BYTE_STREAM_SPLIT, PQ_FLOAT, 0},
      {PQ_BYTE_STREAM_SPLIT, PQ_DOUBLE, 0},
      {PQ_BYTE_STREAM_SPLIT, PQ_INT32, 0},
      {PQ_BYTE_STREAM_SPLIT, PQ_INT64, 0},
      {PQ_BYTE_STREAM_SPLIT, PQ_FIXED_LEN_BYTE_ARRAY, 11},
      {PQ_GROUP_VAR_INT, PQ_INT32, 0},
      {PQ_GROUP_VAR_INT, PQ_INT64, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    for (size_t l = 0; l < NLEN; l++) {
      for (int shape = 0; shape < SHAPES; shape++) {
        if (lengths[l] == MAXN && shape != SHAPE_RANDOM &&
            shape != SHAPE_SORTED)
          continue;
        pq_params p = params(cases[c].e, cases[c].t, cases[c].tl);
        round_trip("round trip", p, lengths[l], shape);
      }
    }
  }
  /* DELTA_BINARY_PACKED with other block shapes. */
  static const int64_t shapes[][2] = {
      {256, 1}, {1024, 8}, {128, 1}, {8, 1}, {64, 2}};
  for (size_t s = 0; s < 5; s++) {
    for (int t = PQ_INT32; t <= PQ_INT64; t++) {
      for (size_t l = 0; l < NLEN; l++) {
        pq_params p = params(PQ_DELTA_BINARY_PACKED, (pq_type)t, 0);
        p.block_size = shapes[s][0];
        p.miniblocks = shapes[s][1];
        round_trip("delta block shape", p, lengths[l], SHAPE_RANDOM);
        round_trip("delta block shape", p, lengths[l], SHAPE_EXTREMES);
      }
    }
  }
  /* DELTA_BINARY_PACKED at every bit width: deltas spanning exactly w bits. */
  for (int t = PQ_INT32; t <= PQ_INT64; t++) {
    int maxw = t == PQ_INT32 ? 32 : 64;
    for (int w = 0; w <= maxw; w++) {
      size_t n = 300;
      uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
      uint64_t v = mix();
      int bad = 0;
      pq_params p = params(PQ_DELTA_BINARY_PACKED, (pq_type)t, 0);
      for (size_t i = 0; i < n; i++) {
        uint64_t d = i == 5 ? mask : i == 6 ? 0 : mix() & mask;
        v += d;
        if (t == PQ_INT32) {
          int32_t x = (int32_t)(uint32_t)v;
          memcpy(vals_a + 4 * i, &x, 4);
        } else {
          memcpy(vals_a + 8 * i, &v, 8);
        }
      }
      pq_buf out, dict;
      pq_buf_init(&out);
      pq_buf_init(&dict);
      pq_error err;
      int rc = encode(&p, vals_a, n, &out, &dict, &err);
      /* The first miniblock's width byte is the widest: w. */
      size_t hdr = 0;
      uint64_t x;
      for (int i = 0; i < 5; i++) pq_uleb_read(out.data, out.len, &hdr, &x);
      bad += rc != 0 || out.data[hdr] != w;
      size_t got, where;
      rc = decode(&p, out.data, out.len, NULL, 0, vals_b, MAXN, &got, &err);
      bad += rc != 0 || got != n ||
             !same_values((pq_type)t, 0, vals_a, vals_b, n, &where);
      CHECK(bad == 0, "delta %s width %d (first width byte %d)",
            pq_type_name((pq_type)t), w, out.len > hdr ? out.data[hdr] : -1);
      pq_buf_free(&out);
      pq_buf_free(&dict);
    }
  }
  /* RLE and BIT_PACKED at every bit width 0..32, given and inferred, with
  ** and without the length prefix; runs and noise mixed. */
  for (int enc = 0; enc < 2; enc++) {
    for (int w = 0; w <= 32; w++) {
      for (int variant = 0; variant < 4; variant++) {
        for (size_t l = 0; l < NLEN; l++) {
          size_t n = lengths[l];
          uint32_t mask = w == 32 ? 0xffffffffu : (1u << w) - 1;
          uint32_t *u = (uint32_t *)(void *)vals_a;
          for (size_t i = 0; i < n; i++) {
            uint64_t r = mix();
            u[i] =
                (i / 20) % 2 ? (uint32_t)(i / 40) & mask : (uint32_t)r & mask;
          }
          if (n > 3) u[3] = mask; /* the full width is used */
          pq_params p = params(enc ? PQ_BIT_PACKED : PQ_RLE, PQ_INT32, 0);
          p.bit_width = variant & 1 ? -1 : w;
          if (enc)
            p.lsb_first = variant >> 1;
          else
            p.length_prefix = variant >> 1;
          pq_buf out, dict;
          pq_buf_init(&out);
          pq_buf_init(&dict);
          pq_error err;
          int rc = encode(&p, u, n, &out, &dict, &err);
          pq_params q = p;
          q.count = (int64_t)n;
          /* Inferred width: the least that holds the largest value. */
          uint32_t mx = 0;
          for (size_t i = 0; i < n; i++) mx = u[i] > mx ? u[i] : mx;
          q.bit_width = p.bit_width >= 0 ? w : pq_bit_width64(mx);
          size_t got = 0, where = 0;
          if (rc == 0) {
            rc = decode(&q, out.data, out.len, NULL, 0, vals_b, MAXN, &got,
                        &err);
          }
          CHECK(rc == 0 && got == n &&
                    same_values(PQ_INT32, 0, u, vals_b, n, &where),
                "%s width %d variant %d n=%zu: %s", enc ? "BIT_PACKED" : "RLE",
                w, variant, n, rc ? err.msg : "values differ");
          pq_buf_free(&out);
          pq_buf_free(&dict);
        }
      }
    }
  }
}

/* Encoders that take stream after stream (pq_encoder_reusable): each
** stream, finished onto an empty buffer (the memory swapped) or after bytes
** already there (appended), is the bytes a fresh encoder makes of it; the
** encodings said to be reusable are, and the others are not. */
typedef struct reuse_case {
  pq_encoding e;
  pq_type t;
  int reusable;   /* takes stream after stream, and a room given */
  int hands_back; /* finish hands out the room's own memory */
} reuse_case;
static const reuse_case reuse_cases[] = {
    {PQ_PLAIN, PQ_INT64, 1, 1},
    {PQ_PLAIN, PQ_BOOLEAN, 1, 1},
    {PQ_PLAIN, PQ_BYTE_ARRAY, 1, 1},
    {PQ_DELTA_BINARY_PACKED, PQ_INT32, 1, 0},
    {PQ_DELTA_BINARY_PACKED, PQ_INT64, 1, 0},
    {PQ_DELTA_LENGTH_BYTE_ARRAY, PQ_BYTE_ARRAY, 1, 1},
    {PQ_DELTA_BYTE_ARRAY, PQ_BYTE_ARRAY, 0, 0},
    {PQ_BYTE_STREAM_SPLIT, PQ_DOUBLE, 0, 0},
    {PQ_RLE_DICTIONARY, PQ_INT32, 0, 0},
};
#define reuse_n (sizeof reuse_cases / sizeof reuse_cases[0])

static void test_reuse(void) {
  const reuse_case *cases = reuse_cases;
  static const size_t ns[] = {1000, 0, 1, 129, 7, 100000, 9};
  static const uint8_t before[3] = {'x', 'y', 'z'};
  for (size_t c = 0; c < reuse_n; c++) {
    pq_params p = params(cases[c].e, cases[c].t, 0);
    size_t vs = pq_value_size(p.type, p.type_length);
    pq_encoder *e;
    pq_error err;
    if (pq_encoder_open(&e, &p, &err)) {
      CHECK(0, "reuse: %s: %s", pq_encoding_name(p.encoding), err.msg);
      continue;
    }
    CHECK(pq_encoder_reusable(e) == cases[c].reusable, "reuse: %s %s: %d",
          pq_encoding_name(p.encoding), pq_type_name(p.type),
          pq_encoder_reusable(e));
    pq_buf kept, fresh, dict;
    pq_buf_init(&kept);
    pq_buf_init(&fresh);
    pq_buf_init(&dict);
    for (size_t k = 0; cases[c].reusable && k < 2 * (sizeof ns / sizeof ns[0]); k++) {
      size_t n = ns[k % (sizeof ns / sizeof ns[0])];
      int append = k >= sizeof ns / sizeof ns[0];
      gen_values(p.type, p.type_length, vals_a, n, SHAPE_RANDOM, 0);
      kept.len = fresh.len = 0;
      if (append) pq_buf_append(&kept, before, sizeof before);
      int rc = PQ_OK;
      for (size_t i = 0; i < n && rc == PQ_OK; i += 77)
        rc = pq_encoder_put(e, vals_a + i * vs, n - i < 77 ? n - i : 77, &err);
      if (rc == PQ_OK) rc = pq_encoder_finish(e, &kept, NULL, &err);
      int rc2 = encode(&p, vals_a, n, &fresh, &dict, &err);
      size_t at = append ? sizeof before : 0;
      CHECK(rc == PQ_OK && rc2 == PQ_OK && kept.len == at + fresh.len &&
                (at == 0 || memcmp(kept.data, before, at) == 0) &&
                (fresh.len == 0 || memcmp(kept.data + at, fresh.data, fresh.len) == 0) &&
                pq_encoder_size(e) == 0,
            "reuse: %s %s, stream %zu (%zu values%s): %zu bytes, a fresh "
            "encoder %zu", pq_encoding_name(p.encoding), pq_type_name(p.type),
            k, n, append ? ", appended" : "", kept.len, fresh.len);
    }
    pq_encoder_free(e);
    pq_buf_free(&kept);
    pq_buf_free(&fresh);
    pq_buf_free(&dict);
  }
}

/* pq_encoder_give_room: an encoder that builds its stream in one buffer
** (PLAIN, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY) takes the room
** given before its first put, and its stream is the bytes a fresh encoder
** makes (PLAIN and DELTA_LENGTH_BYTE_ARRAY hand that very memory back);
** the others, and one with values put, leave the room alone. */
static void test_give_room(void) {
  const reuse_case *cases = reuse_cases;
  static const size_t ns[] = {0, 1, 1000, 100000};
  for (size_t c = 0; c < reuse_n; c++) {
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
      pq_params p = params(cases[c].e, cases[c].t, 0);
      size_t n = ns[k];
      pq_encoder *e;
      pq_error err;
      if (pq_encoder_open(&e, &p, &err)) {
        CHECK(0, "room: %s: %s", pq_encoding_name(p.encoding), err.msg);
        continue;
      }
      pq_buf room, out, fresh, dict;
      pq_buf_init(&room);
      pq_buf_init(&out);
      pq_buf_init(&fresh);
      pq_buf_init(&dict);
      pq_buf_reserve(&room, 1 << 21); /* room for every stream here */
      uint8_t *given = room.data;
      pq_encoder_give_room(e, &room);
      int taken = room.data != given;
      gen_values(p.type, p.type_length, vals_a, n, SHAPE_RANDOM, 0);
      int rc = pq_encoder_put(e, vals_a, n, &err);
      /* Given again after a put: left alone. */
      pq_buf late;
      pq_buf_init(&late);
      pq_buf_reserve(&late, 1 << 20);
      uint8_t *late_data = late.data;
      if (n > 0) pq_encoder_give_room(e, &late);
      if (rc == PQ_OK) rc = pq_encoder_finish(e, &out, NULL, &err);
      int rc2 = encode(&p, vals_a, n, &fresh, &dict, &err);
      CHECK(rc == PQ_OK && rc2 == PQ_OK && taken == cases[c].reusable &&
                (!taken || (room.len == 0 && room.cap < (1 << 21))) &&
                late.data == late_data &&
                (!cases[c].hands_back || n == 0 || out.data == given) &&
                out.len == fresh.len &&
                (fresh.len == 0 || memcmp(out.data, fresh.data, fresh.len) == 0),
            "room: %s %s, %zu values: taken %d, handed back %d, %zu bytes, "
            "a fresh encoder %zu", pq_encoding_name(p.encoding),
            pq_type_name(p.type), n, taken, out.data == given, out.len,
            fresh.len);
      pq_encoder_free(e);
      pq_buf_free(&room);
      pq_buf_free(&late);
      pq_buf_free(&out);
      pq_buf_free(&fresh);
      pq_buf_free(&dict);
    }
  }
}

/* ---- 5. Truncations and corruptions ---------------------------------------
 */

static void test_corruption(void) {
  static const struct {
    pq_encoding e;
    pq_type t;
    int32_t tl;
  } cases[] = {
      {PQ_PLAIN, PQ_BYTE_ARRAY, 0},
      {PQ_PLAIN, PQ_INT64, 0},
      {PQ_PLAIN, PQ_BOOLEAN, 0},
      {PQ_RLE, PQ_BOOLEAN, 0},
      {PQ_RLE_DICTIONARY, PQ_BYTE_ARRAY, 0},
      {PQ_RLE_DICTIONARY, PQ_INT32, 0},
      {PQ_DELTA_BINARY_PACKED, PQ_INT32, 0},
      {PQ_DELTA_BINARY_PACKED, PQ_INT64, 0},
      {PQ_DELTA_LENGTH_BYTE_ARRAY, PQ_BYTE_ARRAY, 0},
      {PQ_DELTA_BYTE_ARRAY, PQ_BYTE_ARRAY, 0},
      {PQ_DELTA_BYTE_ARRAY, PQ_FIXED_LEN_BYTE_ARRAY, 7},
      {PQ_BYTE_STREAM_SPLIT, PQ_DOUBLE, 0},
      {PQ_GROUP_VAR_INT, PQ_INT64, 0},
      {PQ_GROUP_VAR_INT, PQ_INT32, 0},
      {PQ_RLE, PQ_INT32, 0},
      {PQ_BIT_PACKED, PQ_INT32, 0},
      {PQ_PLAIN_DICTIONARY, PQ_DOUBLE, 0},
      {PQ_BYTE_STREAM_SPLIT, PQ_FIXED_LEN_BYTE_ARRAY, 3},
      {PQ_PLAIN, PQ_FIXED_LEN_BYTE_ARRAY, 5},
  };
  for (size_t c = 0; c < reuse_n; c++) {
    pq_params p = params(cases[c].e, cases[c].t, 0);
    if (p.type == PQ_INT32 &&
        (p.encoding == PQ_RLE || p.encoding == PQ_BIT_PACKED))
      p.bit_width = 20;
    size_t n = 300;
    gen_values(p.type, p.type_length, vals_a, n, SHAPE_SORTED, 0);
    pq_buf out, dict;
    pq_buf_init(&out);
    pq_buf_init(&dict);
    pq_error err;
    int rc = encode(&p, vals_a, n, &out, &dict, &err);
    CHECK(rc == 0, "corruption setup %zu", c);
    int is_dict = p.encoding == PQ_RLE_DICTIONARY ||
                  p.encoding == PQ_PLAIN_DICTIONARY;
    int crashes = 0, wrong_ok = 0;
    /* The explainer faults exactly when a decoder fails, with its words. */
    int disagree = 0, bad_rows = 0;
    char xmsg[256] = "", dmsg[256] = "";
#define AGREE(q, b, l)                                                      \
  do {                                                                      \
    uint64_t cnt, rows;                                                     \
    pq_error e;                                                             \
    int drc = decode_discard(q, b, l, is_dict ? dict.data : NULL, dict.len, \
                             &cnt, &e);                                     \
    int xf = explain_all(q, b, l, is_dict ? dict.data : NULL, dict.len,     \
                         xmsg, &bad_rows, &rows);                           \
    if ((drc != PQ_OK) != xf || (xf && strcmp(xmsg, e.msg) != 0)) {         \
      if (!disagree && getenv("PQ_DUMP")) {                                 \
        char dname[300];                                                    \
        snprintf(dname, sizeof dname, "%s.%zu", getenv("PQ_DUMP"), c);      \
        FILE *dump = fopen(dname, "wb");                                    \
        fwrite(b, 1, l, dump);                                              \
        fclose(dump);                                                       \
        if (is_dict) {                                                      \
          dump = fopen("/tmp/pq_dump_dict.bin", "wb");                      \
          fwrite(dict.data, 1, dict.len, dump);                             \
          fclose(dump);                                                     \
        }                                                                   \
      }                                                                     \
      disagree++;                                                           \
      snprintf(dmsg, sizeof dmsg, "%s", drc ? e.msg : "(decodes)");         \
    }                                                                       \
  } while (0)
    {
      pq_params q = p;
      AGREE(&q, out.data, out.len);
      q.count = (int64_t)n;
      AGREE(&q, out.data, out.len);
      q.count = (int64_t)n / 2;
      AGREE(&q, out.data, out.len);
      CHECK(disagree == 0 && bad_rows == 0,
            "%s %s: the explainer disagrees on the valid stream: %s / %s",
            pq_encoding_name(p.encoding), pq_type_name(p.type), xmsg, dmsg);
    }
    /* Every truncation: into a fresh buffer of exactly that size, so that
    ** the sanitizer sees any read past it.  With the count given, a cut
    ** stream must fail, unless only padding was cut (the last bit-packed
    ** group or miniblock), and then the values must be right. */
    for (size_t cut = 0; cut < out.len; cut++) {
      uint8_t *copy = malloc(cut ? cut : 1);
      memcpy(copy, out.data, cut);
      size_t got, where;
      pq_params q = p;
      q.count = (int64_t)n;
      rc = decode(&q, copy, cut, is_dict ? dict.data : NULL, dict.len, vals_b,
                  MAXN, &got, &err);
      if (rc == PQ_OK && (got != n || !same_values(p.type, p.type_length,
                                                   vals_a, vals_b, n, &where)))
        wrong_ok++;
      if (rc != PQ_OK && rc != PQ_CORRUPT) crashes++;
      AGREE(&q, copy, cut);
      free(copy);
    }
    CHECK(disagree == 0 && bad_rows == 0,
          "%s %s: on %d truncations the explainer and the decoder disagree "
          "(%d rows out of place); last: explain '%s', decode '%s'",
          pq_encoding_name(p.encoding), pq_type_name(p.type), disagree,
          bad_rows, xmsg, dmsg);
    disagree = bad_rows = 0;
    CHECK(wrong_ok == 0, "%s %s: %d truncations decoded to wrong values",
          pq_encoding_name(p.encoding), pq_type_name(p.type), wrong_ok);
    CHECK(crashes == 0, "%s: truncations gave odd status",
          pq_encoding_name(p.encoding));
    /* Random byte corruptions: any outcome but a crash or a runaway. */
    int odd = 0;
    for (int trial = 0; trial < 2000; trial++) {
      uint8_t *copy = malloc(out.len);
      memcpy(copy, out.data, out.len);
      int flips = 1 + (int)(mix() % 4);
      for (int f = 0; f < flips; f++) copy[mix() % out.len] = (uint8_t)mix();
      uint64_t count;
      pq_params q = p;
      if (trial & 1) q.count = (int64_t)n;
      rc = decode_discard(&q, copy, out.len, is_dict ? dict.data : NULL,
                          dict.len, &count, &err);
      if (rc != PQ_OK && rc != PQ_CORRUPT) odd++;
      if (count > 50000000) odd++;
      if (rc == PQ_CORRUPT &&
          strncmp(err.msg, pq_encoding_name(p.encoding),
                  strlen(pq_encoding_name(p.encoding))) != 0)
        odd++; /* every message names the encoding */
      AGREE(&q, copy, out.len);
      free(copy);
    }
    CHECK(disagree == 0 && bad_rows == 0,
          "%s %s: on %d corruptions the explainer and the decoder disagree "
          "(%d rows out of place); last: explain '%s', decode '%s'",
          pq_encoding_name(p.encoding), pq_type_name(p.type), disagree,
          bad_rows, xmsg, dmsg);
#undef AGREE
    CHECK(odd == 0, "%s %s: %d corruptions gave an odd outcome (last: %s)",
          pq_encoding_name(p.encoding), pq_type_name(p.type), odd, err.msg);
    pq_buf_free(&out);
    pq_buf_free(&dict);
  }
}

/* ---- Misc: names, options, UTF-8, JSON ------------------------------------
 */

static void test_misc(void) {
  pq_encoding e;
  pq_type t;
  int32_t tl;
  CHECK(pq_encoding_parse("delta_binary_packed", 19, &e) == 0 &&
            e == PQ_DELTA_BINARY_PACKED,
        "encoding names are case-insensitive");
  CHECK(pq_encoding_parse("8", 1, &e) == 0 && e == PQ_RLE_DICTIONARY,
        "encoding numbers");
  CHECK(pq_encoding_parse("11", 2, &e) != 0, "encoding 11 is unknown");
  CHECK(pq_type_parse("fixed_len_byte_array( 16 )", 26, &t, &tl) == 0 &&
            t == PQ_FIXED_LEN_BYTE_ARRAY && tl == 16,
        "FIXED_LEN_BYTE_ARRAY(16)");
  CHECK(pq_type_parse("FIXED_LEN_BYTE_ARRAY(0)", 23, &t, &tl) != 0,
        "FLBA(0) is refused");
  CHECK(pq_type_parse("FIXED_LEN_BYTE_ARRAY", 20, &t, &tl) != 0,
        "FLBA needs a length");
  pq_params p;
  pq_error err;
  pq_params_init(&p);
  const char *o =
      "{\"count\": 5, \"bit_width\":3, \"length_prefix\":true, "
      "\"bit_order\":\"lsb\", \"block_size\":256, \"miniblocks\":2, "
      "\"part\":\"dictionary\", \"binary\":false}";
  CHECK(pq_params_parse_options(&p, o, strlen(o), &err) == 0 && p.count == 5 &&
            p.bit_width == 3 && p.length_prefix == 1 && p.lsb_first == 1 &&
            p.block_size == 256 && p.miniblocks == 2 && p.dictionary_part == 1,
        "options parse: %s", err.msg);
  o = "{\"cuont\": 5}";
  CHECK(pq_params_parse_options(&p, o, strlen(o), &err) == PQ_MISUSE &&
            strstr(err.msg, "unknown option \"cuont\""),
        "unknown options are refused: %s", err.msg);
  o = "{\"count\": -1}";
  CHECK(pq_params_parse_options(&p, o, strlen(o), &err) == PQ_MISUSE,
        "negative count");
  o = "[1]";
  CHECK(pq_params_parse_options(&p, o, strlen(o), &err) == PQ_MISUSE,
        "not an object");
  CHECK(pq_utf8_valid((const uint8_t *)"h\xc3\xa9llo", 6), "UTF-8 accepted");
  CHECK(!pq_utf8_valid((const uint8_t *)"\xc0\xaf", 2), "overlong refused");
  CHECK(!pq_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3),
        "surrogate refused");
  CHECK(!pq_utf8_valid((const uint8_t *)"abcdefgh\xff", 9),
        "bad byte after ASCII");
  CHECK(!pq_utf8_valid((const uint8_t *)"\xe2\x82", 2), "cut sequence refused");
  /* JSON of reals: shortest round trip, -0.0, NaN, infinities. */
  double d[] = {0.1, -0.0, NAN, INFINITY, -INFINITY, 1.0, 1e300, 5e-324};
  pq_buf b;
  pq_buf_init(&b);
  pq_json_values(&b, PQ_DOUBLE, 0, 0, d, 8, 0);
  pq_buf_byte(&b, 0);
  CHECK(strcmp((char *)b.data,
               "0.1,-0.0,null,9e999,-9e999,1.0,1e+300,4.94065645841247e-324") ==
            0,
        "JSON reals: %s", (char *)b.data);
  b.len = 0;
  float f[] = {0.1f, 3.4028235e38f};
  pq_json_values(&b, PQ_FLOAT, 0, 0, f, 2, 0);
  pq_buf_byte(&b, 0);
  CHECK(strcmp((char *)b.data, "0.1,3.4028235e+38") == 0, "JSON floats: %s",
        (char *)b.data);
  b.len = 0;
  pq_bytes s[] = {str("a\"b\\\n\x01"), {(const uint8_t *)"\xff\x00", 2}};
  pq_json_values(&b, PQ_BYTE_ARRAY, 0, 0, s, 2, 0);
  pq_buf_byte(&b, 0);
  CHECK(strcmp((char *)b.data, "\"a\\\"b\\\\\\n\\u0001\",\"FF00\"") == 0,
        "JSON strings: %s", (char *)b.data);
  b.len = 0;
  int64_t ints[] = {INT64_MIN, 0, INT64_MAX};
  pq_json_values(&b, PQ_INT64, 0, 0, ints, 3, 1);
  pq_buf_byte(&b, 0);
  CHECK(strcmp((char *)b.data, ",-9223372036854775808,0,9223372036854775807") ==
            0,
        "JSON integers: %s", (char *)b.data);
  pq_buf_free(&b);
  /* ULEB128 limits. */
  uint8_t u[11];
  size_t pos = 0;
  uint64_t x;
  unhex("FFFFFFFFFFFFFFFFFF01", u);
  CHECK(pq_uleb_read(u, 10, &pos, &x) == 0 && x == UINT64_MAX,
        "ULEB128 of 2^64-1");
  pos = 0;
  unhex("FFFFFFFFFFFFFFFFFF02", u);
  CHECK(pq_uleb_read(u, 10, &pos, &x) == 2, "ULEB128 over 64 bits");
  pos = 0;
  CHECK(pq_uleb_read(u, 3, &pos, &x) == 1, "ULEB128 cut short");
}

/* ---- JSON numbers -------------------------------------------------------
** Integers of every digit count, either side of each power of ten, written
** as printf writes them; one batch call and value by value. */
static void test_json_ints(void) {
  int64_t v[200];
  size_t n = 0;
  uint64_t p = 1;
  for (int k = 0; k <= 18; k++, p *= 10) {
    int64_t a = (int64_t)p;
    int64_t list[] = {a - 1, a, a + 1, -(a - 1), -a, -(a + 1)};
    for (size_t i = 0; i < 6; i++) v[n++] = list[i];
  }
  v[n++] = INT64_MAX;
  v[n++] = INT64_MIN;
  v[n++] = INT64_MAX - 1;
  v[n++] = INT64_MIN + 1;
  char want[200 * 24];
  size_t w = 0;
  want[w++] = '[';
  for (size_t i = 0; i < n; i++)
    w += (size_t)sprintf(want + w, "%s%lld", i ? "," : "", (long long)v[i]);
  want[w++] = ']';
  pq_buf out;
  pq_buf_init(&out);
  pq_buf_append(&out, "[", 1);
  pq_json_values(&out, PQ_INT64, 0, 0, v, n, 0);
  pq_buf_append(&out, "]", 1);
  CHECK(out.len == w && memcmp(out.data, want, w) == 0,
        "json int64: %.*s", (int)out.len, (const char *)out.data);
  out.len = 1;
  for (size_t i = 0; i < n; i++) pq_json_values(&out, PQ_INT64, 0, 0, v + i, 1, i > 0);
  pq_buf_append(&out, "]", 1);
  CHECK(out.len == w && memcmp(out.data, want, w) == 0, "json int64, one at a time");
  /* INT32 and unsigned indices at their extremes. */
  int32_t v32[] = {0, -1, INT32_MAX, INT32_MIN, 999999999, 1000000000, -1000000000};
  uint32_t u32[] = {0, 9, 10, 4294967295u, 999999999, 1000000000};
  out.len = 0;
  pq_json_values(&out, PQ_INT32, 0, 0, v32, 7, 0);
  pq_buf_append(&out, "|", 1);
  pq_json_indices(&out, u32, 6, 0);
  const char *want2 = "0,-1,2147483647,-2147483648,999999999,1000000000,"
                      "-1000000000|0,9,10,4294967295,999999999,1000000000";
  CHECK(out.len == strlen(want2) && memcmp(out.data, want2, out.len) == 0,
        "json int32 and indices: %.*s", (int)out.len, (const char *)out.data);
  pq_buf_free(&out);
}

/* What src/util/http.c makes of a server's lines. */
static void test_http(void) {
  static const struct {
    const char *s;
    int ok;
    uint64_t a, b, t;
  } ranges[] = {
      {"bytes 0-99/1000", 1, 0, 99, 1000},
      {"bytes 5-5/6", 1, 5, 5, 6},
      {"bytes  7-9/*", 1, 7, 9, UINT64_MAX},
      {"bytes */1000", 1, UINT64_MAX, UINT64_MAX, 1000},
      {"bytes 0-99/99", 0, 0, 0, 0},     /* last past the total */
      {"bytes 9-8/100", 0, 0, 0, 0},     /* last before first */
      {"bytes */*", 0, 0, 0, 0},
      {"bytes 0-99/1000 ", 0, 0, 0, 0},  /* trailing bytes */
      {"bits 0-99/1000", 0, 0, 0, 0},
      {"bytes 0-/1000", 0, 0, 0, 0},
      {"bytes -1-5/10", 0, 0, 0, 0},
      {"bytes 0-99999999999999999999/100000000000000000000", 0, 0, 0, 0},
      {"bytes 0-9223372036854775806/9223372036854775807", 1, 0,
       9223372036854775806u, 9223372036854775807u},
      {"bytes 0-9/9223372036854775808", 0, 0, 0, 0}, /* 2^63: too large */
  };
  for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++) {
    uint64_t a = 0, b = 0, t = 0;
    int ok = pq_http_content_range(ranges[i].s, strlen(ranges[i].s), &a, &b,
                                   &t) == 0;
    CHECK(ok == ranges[i].ok &&
              (!ok || (a == ranges[i].a && b == ranges[i].b &&
                       t == ranges[i].t)),
          "http: Content-Range '%s'", ranges[i].s);
  }
  int code = 0;
  CHECK(pq_http_status("HTTP/1.1 206 Partial Content\r\n", 30, &code) == 0 &&
            code == 206,
        "http: status line");
  CHECK(pq_http_status("HTTP/2 404\r\n", 12, &code) == 0 && code == 404,
        "http: HTTP/2 status line");
  CHECK(pq_http_status("HTTP/1.1 2000 x", 15, &code) != 0 &&
            pq_http_status("HTTP/1.1 20", 11, &code) != 0 &&
            pq_http_status("ETag: x", 7, &code) != 0,
        "http: bad status lines");
  const char *name, *val;
  size_t nl, vl;
  const char *h = "ETag:  \"abc\" \r\n";
  CHECK(pq_http_header(h, strlen(h), &name, &nl, &val, &vl) == 0 &&
            nl == 4 && pq_http_name_is(name, nl, "etag") &&
            vl == 5 && memcmp(val, "\"abc\"", 5) == 0,
        "http: header line");
  CHECK(pq_http_header(": x", 3, &name, &nl, &val, &vl) != 0 &&
            pq_http_header("no colon", 8, &name, &nl, &val, &vl) != 0 &&
            pq_http_header("a b: c", 6, &name, &nl, &val, &vl) != 0,
        "http: bad header lines");
  /* multipart/byteranges: the boundary, then the parts in turn */
  const char *bd;
  size_t bl;
  const char *ct = "multipart/byteranges; boundary=\"B_1\"";
  CHECK(pq_http_boundary(ct, strlen(ct), &bd, &bl) == 0 && bl == 3 &&
            memcmp(bd, "B_1", 3) == 0,
        "http: quoted boundary");
  ct = "Multipart/ByteRanges;charset=x; boundary=abc";
  CHECK(pq_http_boundary(ct, strlen(ct), &bd, &bl) == 0 && bl == 3 &&
            memcmp(bd, "abc", 3) == 0,
        "http: plain boundary after a parameter");
  CHECK(pq_http_boundary("text/plain; boundary=a", 22, &bd, &bl) != 0 &&
            pq_http_boundary("multipart/byteranges", 20, &bd, &bl) != 0 &&
            pq_http_boundary("multipart/byteranges; boundary=", 31, &bd,
                             &bl) != 0 &&
            pq_http_boundary("multipart/byteranges; boundary=\"a", 33, &bd,
                             &bl) != 0,
        "http: no boundary");
  const char *mp = "preamble\r\n--abc\r\nContent-Type: x\r\n"
                   "Content-Range: bytes 2-4/10\r\n\r\nXYZ\r\n"
                   "--abc  \r\ncontent-range: bytes 8-9/10\r\n\r\n"
                   "\r\n\r\n--abc--\r\n";
  size_t mpos = 0, mn = strlen(mp);
  uint64_t fa, la, ta;
  const uint8_t *md;
  int m1 = pq_http_part((const uint8_t *)mp, mn, "abc", 3, &mpos, &fa, &la,
                        &ta, &md);
  CHECK(m1 == 1 && fa == 2 && la == 4 && ta == 10 && memcmp(md, "XYZ", 3) == 0,
        "http: first part");
  m1 = pq_http_part((const uint8_t *)mp, mn, "abc", 3, &mpos, &fa, &la, &ta,
                    &md);
  CHECK(m1 == 1 && fa == 8 && la == 9 && memcmp(md, "\r\n", 2) == 0,
        "http: second part (its bytes CR LF)");
  CHECK(pq_http_part((const uint8_t *)mp, mn, "abc", 3, &mpos, &fa, &la, &ta,
                     &md) == 0,
        "http: the closing boundary");
  static const char *const bad_parts[] = {
      "--abc\r\nContent-Range: bytes 2-4/10\r\n\r\nXY",   /* short */
      "--abc\r\n\r\nXYZ\r\n--abc--",                      /* no range */
      "--abc\r\nContent-Range: bytes 2-4/10\r\nContent-Range: bytes 2-4/10"
      "\r\n\r\nXYZ\r\n--abc--",                           /* two */
      "--abc\r\nContent-Range: bytes */10\r\n\r\n\r\n--abc--",
      "--abd\r\nContent-Range: bytes 2-4/10\r\n\r\nXYZ\r\n--abd--", /* other */
      "--abc\nContent-Range: bytes 2-4/10\n\nXYZ\n--abc--", /* LF alone */
  };
  for (size_t i = 0; i < sizeof bad_parts / sizeof *bad_parts; i++) {
    size_t bp = 0;
    CHECK(pq_http_part((const uint8_t *)bad_parts[i], strlen(bad_parts[i]),
                       "abc", 3, &bp, &fa, &la, &ta, &md) == -1,
          "http: bad part %zu", i);
  }
  mpos = 0; /* a part whose bytes are not followed by the boundary */
  const char *mq = "--abc\r\nContent-Range: bytes 0-0/1\r\n\r\nQ--abc--";
  CHECK(pq_http_part((const uint8_t *)mq, strlen(mq), "abc", 3, &mpos, &fa,
                     &la, &ta, &md) == 1 &&
            pq_http_part((const uint8_t *)mq, strlen(mq), "abc", 3, &mpos,
                         &fa, &la, &ta, &md) == -1,
        "http: a part's bytes, then no CR LF");
  /* S3's listing: keys with their entities decoded, then none */
  const char *x = "<ListBucketResult><IsTruncated>true</IsTruncated>"
                  "<Contents><Key>a/x&amp;y&#x263A;&#65;.parquet</Key>"
                  "</Contents><Contents><Key>b</Key></Contents>"
                  "<NextContinuationToken>t&lt;1</NextContinuationToken>"
                  "</ListBucketResult>";
  char out[64];
  size_t pos = 0, len;
  int r1 = pq_s3_list_key(x, strlen(x), &pos, out, sizeof out, &len);
  CHECK(r1 == 0 && !strcmp(out, "a/x&y\xE2\x98\xBA" "A.parquet") &&
            len == strlen(out),
        "s3 listing: first key '%s'", out);
  r1 = pq_s3_list_key(x, strlen(x), &pos, out, sizeof out, &len);
  CHECK(r1 == 0 && !strcmp(out, "b"), "s3 listing: second key");
  CHECK(pq_s3_list_key(x, strlen(x), &pos, out, sizeof out, &len) == 1,
        "s3 listing: no third key");
  CHECK(pq_s3_list_field(x, strlen(x), "NextContinuationToken", out,
                         sizeof out, &len) == 0 && !strcmp(out, "t<1"),
        "s3 listing: token");
  CHECK(pq_s3_list_field(x, strlen(x), "IsTruncated", out, sizeof out,
                         &len) == 0 && !strcmp(out, "true"),
        "s3 listing: truncated");
  CHECK(pq_s3_list_field(x, strlen(x), "Nope", out, sizeof out, &len) == 1,
        "s3 listing: a field it lacks");
  const char *bad[] = {"<Contents><Key>a&bogus;</Key></Contents>",
                       "<Contents><Key>a&#0;</Key></Contents>",
                       "<Contents><Key>a&#xD800;</Key></Contents>",
                       "<Contents><Key>a</Contents>",
                       "<Contents><Key>a<b</Key></Contents>"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    pos = 0;
    CHECK(pq_s3_list_key(bad[i], strlen(bad[i]), &pos, out, sizeof out,
                         &len) == -1,
          "s3 listing: bad %s", bad[i]);
  }
  char small[4];
  pos = 0;
  CHECK(pq_s3_list_key(x, strlen(x), &pos, small, sizeof small, &len) == -1,
        "s3 listing: a key longer than the room");
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  vals_a = malloc(MAXN * 24);
  vals_b = malloc(MAXN * 24);
  arena_cap = 64u << 20;
  arena = malloc(arena_cap);
  copies_cap = 64u << 20;
  copies = malloc(copies_cap);
  rng_state = 20261122;
  if (getenv("PQ_SIMD")) simd_env = strdup(getenv("PQ_SIMD"));
  test_bitpack();
  test_bitpack_encoder();
  test_spec_examples();
  test_reader_acceptance();
  test_round_trips();
  test_reuse();
  test_give_room();
  test_corruption();
  test_misc();
  test_json_ints();
  test_http();
  free(vals_a);
  free(vals_b);
  free(arena);
  free(copies);
  printf("%d passed, %d failed\n", passed, failed);
  free(simd_env);
  return failed != 0;
}
