/*
** unit_fast_values.c -- the fast paths of PLAIN, BYTE_STREAM_SPLIT, the
** RLE/bit-packing hybrid, the dictionary encodings and GROUP_VAR_INT,
** against references written here and against the portable code.
**
**   1. bits to bytes, PLAIN BOOLEAN and BYTE_ARRAY (truncated too)
**   2. BYTE_STREAM_SPLIT: every type, FIXED_LEN_BYTE_ARRAY of every length
**      1..33 and 64, counts around the SIMD blocks, batches that start
**      anywhere
**   3. the RLE hybrid: streams built here (RLE runs with 1- to 3-byte
**      headers, bit-packed runs of 1..70 groups, last runs cut short) at
**      every width 0..32, BOOLEAN repeats around the lengths the fills
**      tell apart, decoded in batches of every kind and compared
**      with a reference decoder here, also after truncations and byte
**      changes (same values, same fault position)
**   4. the run writer: batches against one value at a time, to the byte;
**      the adaptive width; the RLE encoder's range error; BOOLEAN values
**      (any nonzero byte) against the writer one value at a time
**   5. dictionary decoding: every type, dictionaries around 2^w entries
**      (the index check hoisted or not), bad indices in RLE and in
**      bit-packed runs: values up to the first bad one and its message;
**      the same streams read as the dictionary vector (checked indices);
**      bit-packed runs read in registers: every width 1..26, long runs,
**      last runs cut short
**   6. dictionary encoding: first-appearance order, values equal by their
**      bytes (0.0 and -0.0, NaN payloads, numbers that agree in their
**      folded halves), tables that grow, the index stream to the byte;
**      INT32 and INT64 ranges looked up directly, grown and given up
**   7. GROUP_VAR_INT: every byte length, counts, truncations, against
**      reading one value at a time (the portable path)
**
** Every decoding runs twice, with the fast paths and with PQ_SIMD=none
** (set with setenv before the decoder or encoder is opened), and the two
** must agree to the byte, messages included.  Streams are in buffers of
** their exact size, so that the sanitizer build sees any read past them.
**
** Prints a line per failure starting with "!" and ends with
** "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encodings/encodings.h"

#define CHECK_SEED 0xfa57c0de
#include "check.h"

/* ---- Helpers ------------------------------------------------------------ */

/* 0..n-1 */
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* The fast paths on (1) or off (0), for decoders and encoders opened
** after the call. */
static void set_fast(int on) {
  if (on) {
    unsetenv("PQ_SIMD");
  } else {
    setenv("PQ_SIMD", "none", 1);
  }
}

static const char *const mode_name[2] = {"PQ_SIMD=none", "fast"};

/* Whether two buffers hold the same bytes. */
static int same_buf(const pq_buf *a, const pq_buf *b) {
  return a->len == b->len && (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

/* A copy of n bytes in a buffer of exactly n bytes. */
static uint8_t *exact_copy(const uint8_t *p, size_t n) {
  uint8_t *q = malloc(n ? n : 1);
  if (n) memcpy(q, p, n);
  return q;
}

/* How a decoding went. */
typedef struct outcome {
  int open_rc, rc;
  char msg[256];
  size_t n;      /* values read */
  uint8_t *vals; /* n values, laid out as for the type */
  size_t vs;     /* bytes per value */
} outcome;

static void outcome_free(outcome *o) {
  free(o->vals);
  memset(o, 0, sizeof *o);
}

/* Batch sizes: 1, 2, 3, 7, 8, 31, 32, 33, 100, 1024, a random mix, or the
** whole capacity at once. */
enum { NPATTERNS = 12 };
static size_t batch_size(int pattern, uint64_t *state) {
  static const size_t fixed[] = {1, 2, 3, 7, 8, 31, 32, 33, 100, 1024};
  if (pattern < 10) return fixed[pattern];
  if (pattern == 10) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    size_t r = (size_t)(*state >> 33);
    return r % 4 == 0 ? 1 + r % 5 : 1 + r % 300;
  }
  return (size_t)-1;
}

/* Set: dictionary decoders are turned into index readers
** (pq_dict_decoder_indices) before their first read. */
static int want_indices;

/* Bytes after each batch that a read must leave alone. */
#define GUARD 64

/* Decodes buf with p in batches of the pattern into o, at most cap values.
** With fast set, the fast paths are on. */
static void decode(const pq_params *p, const uint8_t *buf, size_t len,
                   const uint8_t *dict, size_t dict_len, int pattern,
                   size_t cap, int fast, outcome *o) {
  memset(o, 0, sizeof *o);
  set_fast(fast);
  pq_decoder *d;
  pq_error err;
  err.msg[0] = 0;
  o->open_rc = pq_decoder_open(&d, p, buf, len, dict, dict_len, &err);
  set_fast(1);
  if (o->open_rc) {
    snprintf(o->msg, sizeof o->msg, "%s", err.msg);
    return;
  }
  if (want_indices && !pq_dict_decoder_indices(d)) {
    o->open_rc = -1;
    snprintf(o->msg, sizeof o->msg, "not a dictionary decoder");
    pq_decoder_free(d);
    return;
  }
  int32_t tl;
  pq_type t = pq_decoder_type(d, NULL, &tl);
  o->vs = pq_value_size(t, tl);
  o->vals = malloc((cap + 1) * o->vs + GUARD);
  uint64_t state = 12345;
  for (;;) {
    size_t want = batch_size(pattern, &state), got = 0;
    if (want > cap - o->n) want = cap - o->n;
    if (want == 0) break;
    /* Bytes past the batch must stay as they were. */
    uint8_t *past = o->vals + (o->n + want) * o->vs;
    memset(past, 0xa5, GUARD);
    int rc = pq_decoder_read(d, o->vals + o->n * o->vs, want, &got, &err);
    size_t g = 0;
    while (g < GUARD && past[g] == 0xa5) g++;
    if (g < GUARD)
      CHECK(0, "a read of %zu values wrote past them (byte %zu)", want, g);
    o->n += got;
    if (rc) {
      o->rc = rc;
      snprintf(o->msg, sizeof o->msg, "%s", err.msg);
      break;
    }
    if (got == 0) break;
  }
  pq_decoder_free(d);
}

/* Whether two outcomes agree: codes, messages, values (BYTE_ARRAY values
** by their pointers and lengths).  After a fault the read that met it
** yields nothing, so that the values before it depend on the batches:
** then one must be the start of the other. */
static int same_outcome(const outcome *a, const outcome *b) {
  size_t n = a->n < b->n ? a->n : b->n;
  return a->open_rc == b->open_rc && a->rc == b->rc &&
         strcmp(a->msg, b->msg) == 0 && (a->rc || a->n == b->n) &&
         a->vs == b->vs && (n == 0 || memcmp(a->vals, b->vals, n * a->vs) == 0);
}

/* Decodes in every batch pattern, both ways; checks that all agree with
** the first, one value at a time without the fast paths, and returns it
** (the caller frees it): after a fault its values are all those before
** it. */
static outcome decode_all_ways(const char *what, const pq_params *p,
                               const uint8_t *buf, size_t len,
                               const uint8_t *dict, size_t dict_len,
                               size_t cap) {
  outcome first;
  decode(p, buf, len, dict, dict_len, 0, cap, 0, &first);
  int bad = 0;
  for (int fast = 0; fast <= 1; fast++) {
    for (int pat = 0; pat < NPATTERNS; pat++) {
      if (!fast && pat == 0) continue;
      outcome o;
      decode(p, buf, len, dict, dict_len, pat, cap, fast, &o);
      if (!same_outcome(&first, &o) && bad++ == 0) {
        CHECK(0,
              "%s: batches of pattern %d (%s) differ from single values "
              "(PQ_SIMD=none): rc %d/%d, n %zu/%zu, '%s' / '%s'",
              what, pat, mode_name[fast], o.rc, first.rc, o.n, first.n,
              o.msg, first.msg);
      }
      outcome_free(&o);
    }
  }
  if (!bad) passed++;
  return first;
}

static void params(pq_params *p, pq_encoding e, pq_type t, int32_t tl,
                   int64_t count) {
  pq_params_init(p);
  p->encoding = e;
  p->type = t;
  p->type_set = 1;
  p->type_length = tl;
  p->count = count;
}

/* Encodes n values (in batches of random sizes) with the fast paths on or
** off; returns the rc and fills out (and dict). */
static int encode(const pq_params *p, const void *vals, size_t n, int fast,
                  pq_buf *out, pq_buf *dict, pq_error *err) {
  set_fast(fast);
  pq_encoder *e;
  int rc = pq_encoder_open(&e, p, err);
  set_fast(1);
  if (rc) return rc;
  size_t vs = pq_value_size(p->type, p->type_length);
  if (p->encoding == PQ_RLE && p->type != PQ_BOOLEAN) vs = 4;
  for (size_t i = 0; i < n && !rc;) {
    size_t k = 1 + below(i % 3 ? 40 : 700);
    if (k > n - i) k = n - i;
    rc = pq_encoder_put(e, (const uint8_t *)vals + i * vs, k, err);
    i += k;
  }
  if (!rc) rc = pq_encoder_finish(e, out, dict, err);
  pq_encoder_free(e);
  return rc;
}

/* ---- 1. Bits, PLAIN ------------------------------------------------------ */

static void test_expand_bits(void) {
  uint8_t in[200], out[8 * 200 + 16], ref[8 * 200];
  unsigned cpus[3] = {0, pq_cpu(), PQ_CPU_SSE42};
  int bad = 0;
  for (size_t nb = 0; nb <= 200; nb++) {
    for (size_t i = 0; i < nb; i++) in[i] = (uint8_t)rnd();
    for (size_t i = 0; i < 8 * nb; i++) ref[i] = (in[i / 8] >> (i % 8)) & 1;
    for (int c = 0; c < 3; c++) {
      memset(out, 0xAA, sizeof out);
      pq_expand_bits(in, nb, out, cpus[c]);
      if (memcmp(out, ref, 8 * nb) != 0 || out[8 * nb] != 0xAA) bad++;
    }
  }
  CHECK(bad == 0, "pq_expand_bits: %d lengths differ or write past", bad);
}

static void test_plain_bool(void) {
  static const size_t counts[] = {0,  1,  7,   8,   9,   31,   32,  33,
                                  63, 64, 65, 255, 256, 257, 1000, 4099};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    size_t n = counts[c];
    uint8_t *v = malloc(n + 1);
    for (size_t i = 0; i < n; i++) v[i] = c % 2 ? (i / 13) % 2 : rnd() & 1;
    pq_params p;
    params(&p, PQ_PLAIN, PQ_BOOLEAN, 0, (int64_t)n);
    pq_buf out;
    pq_error err;
    pq_buf_init(&out);
    CHECK(encode(&p, v, n, 1, &out, NULL, &err) == PQ_OK, "encode %zu", n);
    uint8_t *buf = exact_copy(out.data, out.len);
    char what[64];
    snprintf(what, sizeof what, "PLAIN BOOLEAN x%zu", n);
    outcome o = decode_all_ways(what, &p, buf, out.len, NULL, 0, n + 64);
    CHECK(o.rc == 0 && o.n == n && (n == 0 || memcmp(o.vals, v, n) == 0),
          "%s: the values", what);
    outcome_free(&o);
    /* Without a count: every bit of every byte. */
    p.count = -1;
    o = decode_all_ways(what, &p, buf, out.len, NULL, 0, n + 64);
    CHECK(o.rc == 0 && o.n == out.len * 8 && (n == 0 || memcmp(o.vals, v, n) == 0),
          "%s without a count: %zu values", what, o.n);
    outcome_free(&o);
    free(buf);
    pq_buf_free(&out);
    free(v);
  }
}

/* PLAIN BYTE_ARRAY walked by hand: where each whole value begins (in at,
** which has room for len / 4 + 1), how many there are, and the message of
** the fault after them ("" when the stream ends cleanly). */
static size_t ref_plain_bytes(const uint8_t *b, size_t len, size_t *at,
                              char *msg, size_t cap) {
  size_t pos = 0, i = 0;
  msg[0] = 0;
  while (pos < len) {
    if (len - pos < 4) {
      snprintf(msg, cap,
               "PLAIN: value %zu: its 4-byte length at offset %zu is cut "
               "short, %zu bytes remain",
               i, pos, len - pos);
      break;
    }
    uint32_t l = (uint32_t)b[pos] | (uint32_t)b[pos + 1] << 8 |
                 (uint32_t)b[pos + 2] << 16 | (uint32_t)b[pos + 3] << 24;
    if (l > len - pos - 4) {
      snprintf(msg, cap,
               "PLAIN: value %zu: length %u at offset %zu exceeds the %zu "
               "bytes that remain",
               i, l, pos, len - pos - 4);
      break;
    }
    at[i++] = pos;
    pos += 4 + (size_t)l;
  }
  return i;
}

/* A decoding of PLAIN BYTE_ARRAY against the walk by hand: the same values
** (where they point, how long), the same fault. */
static void check_plain_bytes(const char *what, const uint8_t *buf,
                              size_t len, const outcome *o) {
  size_t *at = malloc((len / 4 + 1) * sizeof *at);
  char msg[256];
  size_t n = ref_plain_bytes(buf, len, at, msg, sizeof msg);
  int ok = o->open_rc == 0 && o->n == n && (o->rc != 0) == (msg[0] != 0) &&
           strcmp(o->msg, msg) == 0;
  for (size_t i = 0; ok && i < n; i++) {
    const pq_bytes *b = (const pq_bytes *)(const void *)o->vals + i;
    ok = b->ptr == buf + at[i] + 4 && b->len == pq_load32(buf + at[i]);
  }
  CHECK(ok, "%s: %zu values, '%s', against %zu, '%s'", what, o->n, o->msg, n,
        msg);
  free(at);
}

static void test_plain_bytes(void) {
  for (int round = 0; round < 40; round++) {
    size_t n = below(300);
    pq_bytes *v = malloc((n + 1) * sizeof *v);
    uint8_t *heap = malloc(n * 40 + 1);
    size_t h = 0;
    for (size_t i = 0; i < n; i++) {
      size_t len = round % 4 == 0 ? 0 : below(round % 3 ? 10 : 40);
      for (size_t k = 0; k < len; k++) heap[h + k] = (uint8_t)rnd();
      v[i].ptr = heap + h;
      v[i].len = len;
      h += len;
    }
    pq_params p;
    params(&p, PQ_PLAIN, PQ_BYTE_ARRAY, 0, -1);
    pq_buf out;
    pq_error err;
    pq_buf_init(&out);
    CHECK(encode(&p, v, n, 1, &out, NULL, &err) == PQ_OK, "encode");
    uint8_t *buf = exact_copy(out.data, out.len);
    outcome o = decode_all_ways("PLAIN BYTE_ARRAY", &p, buf, out.len, NULL, 0,
                                n + 8);
    check_plain_bytes("PLAIN BYTE_ARRAY", buf, out.len, &o);
    int ok = o.rc == 0 && o.n == n;
    for (size_t i = 0; ok && i < n; i++) {
      const pq_bytes *b = (const pq_bytes *)(const void *)o.vals + i;
      ok = b->len == v[i].len && memcmp(b->ptr, v[i].ptr, b->len) == 0;
    }
    CHECK(ok, "PLAIN BYTE_ARRAY round %d: the values", round);
    outcome_free(&o);
    /* Cut short or with a length changed: the same fault both ways, the
    ** one the walk by hand finds.  Every cut of the short streams. */
    size_t cuts = out.len < 200 ? out.len : 6;
    for (size_t k = 0; k < cuts + 6 && out.len > 0; k++) {
      int flip = k >= cuts && k % 2;
      size_t clen = flip ? out.len : out.len < 200 && k < cuts ? k : below(out.len);
      uint8_t *c = exact_copy(out.data, clen);
      if (flip) c[below(out.len)] ^= (uint8_t)(1u << below(8));
      o = decode_all_ways("PLAIN BYTE_ARRAY changed", &p, c, clen, NULL, 0,
                          clen / 4 + 1);
      check_plain_bytes("PLAIN BYTE_ARRAY changed", c, clen, &o);
      outcome_free(&o);
      free(c);
    }
    free(buf);
    pq_buf_free(&out);
    /* A value too long: the ones before it are written, then the error. */
    if (n >= 2) {
      pq_bytes w[3] = {v[0], v[1], {heap, (size_t)INT32_MAX + 1}};
      pq_encoder *e;
      pq_buf_init(&out);
      pq_encoder_open(&e, &p, &err);
      int rc = pq_encoder_put(e, w, 3, &err);
      CHECK(rc == PQ_RANGE &&
                strcmp(err.msg,
                       "PLAIN: value 2 is 2147483648 bytes; a BYTE_ARRAY "
                       "value holds at most 2147483647") == 0,
            "too long: %s", err.msg);
      pq_encoder_finish(e, &out, NULL, &err);
      CHECK(out.len == 8 + v[0].len + v[1].len, "too long: %zu bytes",
            out.len);
      pq_encoder_free(e);
      pq_buf_free(&out);
    }
    free(heap);
    free(v);
  }
}

/* ---- 2. BYTE_STREAM_SPLIT ---------------------------------------------- */

static void test_bss_one(pq_type t, int32_t tl, size_t n) {
  size_t K = pq_plain_width(t, tl);
  uint8_t *v = malloc(n * K + 1);
  for (size_t i = 0; i < n * K; i++) v[i] = (uint8_t)rnd();
  /* The stream by the spec's rule: byte k of value i at k*N + i. */
  uint8_t *ref = malloc(n * K + 1);
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < K; k++) {
      uint8_t b = v[i * K + k];
      if (pq_is_big_endian() && t != PQ_FIXED_LEN_BYTE_ARRAY)
        b = v[i * K + K - 1 - k];
      ref[k * n + i] = b;
    }
  pq_params p;
  params(&p, PQ_BYTE_STREAM_SPLIT, t, tl, (int64_t)n);
  char what[96];
  snprintf(what, sizeof what, "BSS %s(%d) x%zu", pq_type_name(t), (int)tl, n);
  for (int fast = 0; fast <= 1; fast++) {
    pq_buf out;
    pq_error err;
    pq_buf_init(&out);
    CHECK(encode(&p, v, n, fast, &out, NULL, &err) == PQ_OK &&
              out.len == n * K && (n == 0 || memcmp(out.data, ref, n * K) == 0),
          "%s: encoded (%s)", what, mode_name[fast]);
    pq_buf_free(&out);
  }
  uint8_t *buf = exact_copy(ref, n * K);
  outcome o = decode_all_ways(what, &p, buf, n * K, NULL, 0, n + 8);
  CHECK(o.rc == 0 && o.n == n && (n == 0 || memcmp(o.vals, v, n * K) == 0),
        "%s: the values", what);
  outcome_free(&o);
  free(buf);
  free(ref);
  free(v);
}

static void test_bss(void) {
  static const size_t counts[] = {0,  1,  15, 16, 17, 31,  32,   33,  47,
                                  48, 63, 64, 65, 97, 100, 1000, 4097};
  static const pq_type types[] = {PQ_INT32, PQ_FLOAT, PQ_INT64, PQ_DOUBLE};
  for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
      test_bss_one(types[t], 0, counts[c]);
    for (int32_t w = 1; w <= 33; w++)
      test_bss_one(PQ_FIXED_LEN_BYTE_ARRAY, w, counts[c]);
    test_bss_one(PQ_FIXED_LEN_BYTE_ARRAY, 64, counts[c]);
  }
}

/* ---- 3. The RLE hybrid --------------------------------------------------- */

/* A stream of runs built here, and the values it holds. */
typedef struct runs {
  pq_buf buf;
  uint32_t *vals;
  size_t n, cap;
} runs;

static void runs_val(runs *r, uint32_t v) {
  if (r->n == r->cap) {
    r->cap = r->cap ? r->cap * 2 : 256;
    r->vals = realloc(r->vals, r->cap * sizeof *r->vals);
  }
  r->vals[r->n++] = v;
}

static uint32_t wmask(int w) {
  return w == 32 ? 0xffffffffu : (uint32_t)((1ull << w) - 1);
}

static void runs_rle(runs *r, int w, uint32_t v, size_t count) {
  pq_buf_uleb(&r->buf, (uint64_t)count << 1);
  for (int i = 0; i < (w + 7) / 8; i++) pq_buf_byte(&r->buf, (uint8_t)(v >> (8 * i)));
  for (size_t i = 0; i < count; i++) runs_val(r, v);
}

/* groups of 8 values; the bits LSB first, one at a time. */
static void runs_packed(runs *r, int w, size_t groups, int kind) {
  pq_buf_uleb(&r->buf, (uint64_t)groups << 1 | 1);
  size_t bytes = groups * (size_t)w;
  size_t at = r->buf.len;
  pq_buf_reserve(&r->buf, bytes);
  memset(r->buf.data + at, 0, bytes);
  r->buf.len += bytes;
  uint64_t bit = 0;
  for (size_t i = 0; i < groups * 8; i++) {
    uint32_t v = (uint32_t)rnd() & wmask(w);
    if (kind == 1) v &= 3;
    for (int b = 0; b < w; b++, bit++)
      if ((v >> b) & 1) r->buf.data[at + bit / 8] |= (uint8_t)(1u << (bit % 8));
    runs_val(r, v);
  }
}

/* A random mix of runs at width w. */
static void runs_make(runs *r, int w, int nruns) {
  memset(r, 0, sizeof *r);
  pq_buf_init(&r->buf);
  for (int i = 0; i < nruns; i++) {
    if (rnd() % 2) {
      size_t count;
      switch (rnd() % 8) {
        case 0: count = 64 + below(200); break;      /* 2-byte header */
        case 1: count = 8192 + below(20000); break;  /* 3-byte header */
        default: count = 1 + below(40);
      }
      runs_rle(r, w, (uint32_t)rnd() & wmask(w), count);
    } else {
      size_t groups = rnd() % 4 ? 1 + below(5) : 1 + below(70);
      runs_packed(r, w, groups, (int)(rnd() % 2));
    }
  }
}

/* A plain reading of the hybrid, with the decoders' rules: the values
** before the first fault (*fault set) or all of them, at most cap; with a
** count, the last bit-packed run may lack the bytes of values past it. */
static size_t ref_rle(const uint8_t *buf, size_t len, int w, int64_t count,
                      uint32_t *out, size_t cap, int *fault) {
  size_t pos = 0, n = 0;
  uint64_t limit = count < 0 ? UINT64_MAX : (uint64_t)count;
  *fault = 0;
  while (n < limit && n < cap && pos < len) {
    uint64_t h = 0;
    int shift = 0, ok = 0;
    while (pos < len) {
      uint8_t c = buf[pos++];
      if (shift == 63 && (c & 0x7e)) break;
      h |= (uint64_t)(c & 0x7f) << shift;
      if (!(c & 0x80)) {
        ok = 1;
        break;
      }
      if (shift == 63) break;
      shift += 7;
    }
    if (!ok) {
      *fault = 1;
      return n;
    }
    size_t avail = len - pos;
    if (h & 1) {
      uint64_t groups = h >> 1, values = groups * 8;
      uint64_t bytes = groups * (uint64_t)w;
      if (groups == 0 || groups > 0x7fffffffu / 8) {
        *fault = 1;
        return n;
      }
      if (bytes > avail) {
        uint64_t want = limit == UINT64_MAX ? values : limit - n;
        if (!(want < values && (want * (uint64_t)w + 7) / 8 <= avail)) {
          *fault = 1;
          return n;
        }
        values = want;
        bytes = avail;
      }
      for (uint64_t i = 0; i < values && n < limit && n < cap; i++) {
        uint32_t v = 0;
        for (int b = 0; b < w; b++) {
          uint64_t bit = i * (uint64_t)w + (uint64_t)b;
          v |= (uint32_t)((buf[pos + bit / 8] >> (bit % 8)) & 1) << b;
        }
        out[n++] = v;
      }
      pos += (size_t)bytes;
    } else {
      uint64_t count2 = h >> 1;
      size_t vb = (size_t)(w + 7) / 8;
      uint32_t v = 0;
      if (count2 == 0 || count2 > 0x7fffffffu || vb > avail) {
        *fault = 1;
        return n;
      }
      for (size_t i = 0; i < vb; i++) v |= (uint32_t)buf[pos + i] << (8 * i);
      if ((v & ~wmask(w)) != 0) {
        *fault = 1;
        return n;
      }
      pos += vb;
      for (uint64_t i = 0; i < count2 && n < limit && n < cap; i++) out[n++] = v;
    }
  }
  if (limit != UINT64_MAX && n < limit && n < cap) *fault = 1; /* ends early */
  return n;
}

/* Decodes the runs as RLE of width w (levels), at most cap values, and
** compares with the reference: the same values, a fault where it has
** one. */
static void check_rle(const char *what, const uint8_t *data, size_t len,
                      int w, int64_t count, size_t cap) {
  uint8_t *buf = exact_copy(data, len);
  uint32_t *ref = malloc((cap + 1) * sizeof *ref);
  int fault;
  size_t rn = ref_rle(buf, len, w, count, ref, cap, &fault);
  pq_params p;
  params(&p, PQ_RLE, PQ_INT32, 0, count);
  p.bit_width = w;
  p.length_prefix = 0;
  outcome o = decode_all_ways(what, &p, buf, len, NULL, 0, cap);
  CHECK(o.n == rn && (o.rc != 0) == fault &&
            (rn == 0 || memcmp(o.vals, ref, rn * 4) == 0),
        "%s (w %d, count %lld): %zu values, rc %d (%s); the reference %zu, "
        "fault %d",
        what, w, (long long)count, o.n, o.rc, o.msg, rn, fault);
  outcome_free(&o);
  free(ref);
  free(buf);
}

static void test_rle_decode(void) {
  for (int w = 0; w <= 32; w++) {
    for (int round = 0; round < 6; round++) {
      runs r;
      runs_make(&r, w, 2 + (int)below(round < 3 ? 6 : 40));
      /* Room for 5000 values past the runs': a changed header may name
      ** a longer run, read up to there (every batch pattern, each
      ** batch's guard checked, which is this test's time). */
      size_t cap = r.n + 5000;
      check_rle("runs", r.buf.data, r.buf.len, w, -1, cap);
      check_rle("runs, counted", r.buf.data, r.buf.len, w, (int64_t)r.n, cap);
      /* A count that ends inside the stream. */
      check_rle("runs, fewer", r.buf.data, r.buf.len, w,
                (int64_t)below(r.n + 1), cap);
      /* The last bit-packed run cut short after the values wanted. */
      runs_packed(&r, w, 1 + below(9), 0);
      cap = r.n + 5000;
      size_t want = r.n - below(8) - 1;
      size_t drop = ((r.n - want) * (size_t)w) / 8;
      check_rle("cut short", r.buf.data, r.buf.len - drop, w, (int64_t)want,
                cap);
      /* Truncated and changed bytes. */
      for (int k = 0; k < 8; k++) {
        size_t len = r.buf.len;
        uint8_t *c = exact_copy(r.buf.data, len);
        if (k % 2) {
          len = below(len + 1);
        } else {
          c[below(len)] = (uint8_t)rnd();
        }
        check_rle("changed", c, len, w, k % 4 < 2 ? -1 : (int64_t)r.n, cap);
        free(c);
      }
      pq_buf_free(&r.buf);
      free(r.vals);
    }
  }
}

/* BOOLEAN runs with the 4-byte length, decoded in every batch pattern:
** the values are the runs' (count < 0: all of them), or, cut to len
** bytes, whatever the decoders agree on. */
static void check_rle_bool(const char *what, const runs *r, int64_t count,
                           size_t len) {
  pq_buf s;
  pq_buf_init(&s);
  uint8_t pre[4];
  pq_store32(pre, (uint32_t)r->buf.len);
  pq_buf_append(&s, pre, 4);
  pq_buf_append(&s, r->buf.data, r->buf.len);
  if (len > s.len) len = s.len;
  pq_params p;
  params(&p, PQ_RLE, PQ_BOOLEAN, 0, count);
  uint8_t *buf = exact_copy(s.data, len);
  outcome o = decode_all_ways(what, &p, buf, len, NULL, 0, r->n + 5000);
  if (len == s.len) {
    size_t want = count < 0 ? r->n : (size_t)count;
    int ok = o.rc == 0 && o.n == want;
    for (size_t i = 0; ok && i < want; i++) ok = o.vals[i] == (uint8_t)r->vals[i];
    CHECK(ok, "%s: the values (rc %d, %zu of %zu: %s)", what, o.rc, o.n, want,
          o.msg);
  }
  outcome_free(&o);
  free(buf);
  pq_buf_free(&s);
}

static void runs_free(runs *r) {
  pq_buf_free(&r->buf);
  free(r->vals);
}

/* BOOLEAN values: with the 4-byte length, a byte each. */
static void test_rle_bool(void) {
  for (int round = 0; round < 60; round++) {
    runs r;
    runs_make(&r, 1, 1 + (int)below(30));
    int64_t count = round % 3 == 0 ? -1 : (int64_t)below(r.n + 1);
    if (round % 3 == 1) count = (int64_t)r.n;
    char what[64];
    snprintf(what, sizeof what, "RLE BOOLEAN round %d", round);
    check_rle_bool(what, &r, count,
                   round % 5 == 4 ? below(r.buf.len + 5) : SIZE_MAX);
    runs_free(&r);
  }
  /* Repeats of the lengths the fills tell apart (under 32, up to 256 and
  ** longer), alone or between bit-packed groups. */
  for (int round = 0; round < 40; round++) {
    runs r;
    memset(&r, 0, sizeof r);
    pq_buf_init(&r.buf);
    int nruns = 1 + (int)below(80);
    for (int i = 0; i < nruns; i++) {
      if (round % 2 && rnd() % 8 == 0) {
        runs_packed(&r, 1, 1 + below(3), 0);
        continue;
      }
      size_t count;
      switch (rnd() % 5) {
        case 0: count = 1 + below(40); break;
        case 1: count = 24 + below(17); break;
        case 2: count = 248 + below(17); break;
        case 3: count = 257 + below(3000); break;
        default: count = 1 + below(300);
      }
      runs_rle(&r, 1, (uint32_t)(rnd() & 1), count);
    }
    char what[64];
    snprintf(what, sizeof what, "RLE BOOLEAN repeats, round %d", round);
    check_rle_bool(what, &r, round % 3 ? (int64_t)r.n : -1, SIZE_MAX);
    runs_free(&r);
  }
}


/* ---- 4. The run writer --------------------------------------------------- */

/* Values with runs: each a repeat of 1..n or single noise. */
static void run_values(uint32_t *v, size_t n, int w) {
  size_t i = 0;
  while (i < n) {
    uint32_t x = (uint32_t)rnd() & wmask(w);
    size_t k;
    switch (rnd() % 6) {
      case 0: k = 1 + below(7); break;
      case 1: k = 8 + below(30); break;
      case 2: k = 1 + below(300); break;
      case 3: k = 8 * (1 + below(4)); break;
      default: k = 1;
    }
    for (size_t j = 0; j < k && i < n; j++) v[i++] = x;
  }
}

static void test_rle_writer(void) {
  int bad = 0, bad_adaptive = 0;
  for (int round = 0; round < 400; round++) {
    int w = round % 33;
    size_t n = below(round % 5 ? 400 : 5000);
    uint32_t *v = malloc((n + 1) * sizeof *v);
    run_values(v, n, w);
    pq_buf one, many;
    pq_buf_init(&one);
    pq_buf_init(&many);
    pq_rle_writer a, b;
    pq_rle_writer_init(&a, &one, w);
    pq_rle_writer_init(&b, &many, w);
    for (size_t i = 0; i < n; i++) pq_rle_writer_put(&a, v[i]);
    for (size_t i = 0; i < n;) {
      size_t k = below(round % 2 ? 20 : 300) + 1;
      if (k > n - i) k = n - i;
      pq_rle_writer_put_n(&b, v + i, k);
      i += k;
    }
    pq_rle_writer_flush(&a);
    pq_rle_writer_flush(&b);
    if (!same_buf(&one, &many)) {
      if (bad++ == 0) CHECK(0, "put_n differs: width %d, %zu values", w, n);
    }
    /* The adaptive width: the same runs at the width of the largest. */
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++) top |= v[i];
    pq_rle_adaptive ad;
    pq_rle_adaptive_init(&ad);
    for (size_t i = 0; i < n;) {
      size_t k = below(50) + 1;
      if (k > n - i) k = n - i;
      pq_rle_adaptive_put(&ad, v + i, k);
      i += k;
    }
    pq_rle_adaptive_flush(&ad);
    pq_buf fixed;
    pq_buf_init(&fixed);
    pq_rle_writer f;
    pq_rle_writer_init(&f, &fixed, pq_bit_width64(top));
    for (size_t i = 0; i < n; i++) pq_rle_writer_put(&f, v[i]);
    pq_rle_writer_flush(&f);
    if (ad.w != pq_bit_width64(top) || !same_buf(&ad.buf, &fixed)) {
      if (bad_adaptive++ == 0)
        CHECK(0, "adaptive differs: width %d/%d, %zu values", ad.w,
              pq_bit_width64(top), n);
    }
    /* And it reads back. */
    check_rle("written runs", many.data, many.len, w, (int64_t)n, n + 8);
    pq_rle_adaptive_free(&ad);
    pq_buf_free(&fixed);
    pq_buf_free(&one);
    pq_buf_free(&many);
    free(v);
  }
  CHECK(bad == 0, "put_n: %d of 400 differ", bad);
  CHECK(bad_adaptive == 0, "adaptive: %d of 400 differ", bad_adaptive);

  /* The RLE encoder: a value past the width is named, the ones before it
  ** are in the stream. */
  uint32_t v[100];
  for (int i = 0; i < 100; i++) v[i] = (uint32_t)(i % 7);
  v[57] = 8;
  pq_params p;
  params(&p, PQ_RLE, PQ_INT32, 0, -1);
  p.bit_width = 3;
  p.length_prefix = 0;
  pq_encoder *e;
  pq_error err;
  pq_encoder_open(&e, &p, &err);
  int rc = pq_encoder_put(e, v, 100, &err);
  CHECK(rc == PQ_RANGE && strcmp(err.msg,
                                 "RLE: value 57 is 8, which does not fit in "
                                 "bit width 3") == 0,
        "range: %s", err.msg);
  pq_buf out;
  pq_buf_init(&out);
  pq_encoder_finish(e, &out, NULL, &err);
  pq_encoder_free(e);
  uint32_t back[200];
  int fault;
  size_t nb = ref_rle(out.data, out.len, 3, 57, back, 200, &fault);
  CHECK(nb == 57 && !fault && memcmp(back, v, 57 * 4) == 0,
        "range: the 57 values before it");
  pq_buf_free(&out);
}

/* The RLE encoder of BOOLEAN values (a nonzero byte is true) writes what
** the run writer makes of them one at a time, after the 4-byte length. */
static void test_rle_bool_encode(void) {
  for (int round = 0; round < 60; round++) {
    size_t n = below(round % 4 ? 3000 : 40000);
    uint8_t *v = malloc(n + 1);
    for (size_t i = 0; i < n;) {
      size_t k = 1 + below(round % 3 == 0 ? 8 : round % 3 == 1 ? 40 : 700);
      uint8_t x = (uint8_t)(rnd() % 2 ? 0 : 1 + rnd() % 3);
      for (size_t j = 0; j < k && i < n; j++) v[i++] = x;
    }
    pq_buf stream, want;
    pq_buf_init(&stream);
    pq_buf_init(&want);
    pq_rle_writer w;
    pq_rle_writer_init(&w, &stream, 1);
    for (size_t i = 0; i < n; i++) pq_rle_writer_put(&w, v[i] != 0);
    pq_rle_writer_flush(&w);
    uint8_t pre[4];
    pq_store32(pre, (uint32_t)stream.len);
    pq_buf_append(&want, pre, 4);
    pq_buf_append(&want, stream.data, stream.len);
    pq_params p;
    params(&p, PQ_RLE, PQ_BOOLEAN, 0, -1);
    for (int fast = 0; fast <= 1; fast++) {
      pq_buf out, dict;
      pq_buf_init(&out);
      pq_buf_init(&dict);
      pq_error err;
      int rc = encode(&p, v, n, fast, &out, &dict, &err);
      CHECK(rc == 0 && same_buf(&out, &want),
            "RLE BOOLEAN encode round %d (%s): rc %d, %zu bytes, want %zu",
            round, mode_name[fast], rc, out.len, want.len);
      pq_buf_free(&out);
      pq_buf_free(&dict);
    }
    pq_buf_free(&stream);
    pq_buf_free(&want);
    free(v);
  }
}

/* ---- 5. Dictionary decoding ---------------------------------------------- */

/* The longest bit-packed run test_dict_decode_one writes, in groups, and
** whether it ends the stream with one cut short: the count stops inside
** its last group and the bytes past the last value wanted are missing. */
static size_t dict_groups = 40;
static int dict_cut;

static void test_dict_decode_one(pq_type t, int32_t tl, size_t entries,
                                 int w, int bad_kind) {
  /* The dictionary, PLAIN, and its values as the decoder lays them out. */
  size_t vs = pq_value_size(t, tl);
  uint8_t *dvals = malloc((entries + 8) * vs); /* BOOLEAN: whole bytes */
  pq_bytes *strs = (pq_bytes *)(void *)dvals;
  uint8_t *heap = malloc(entries * 12 + 1);
  pq_buf dict;
  pq_buf_init(&dict);
  for (size_t i = 0; i < entries; i++) {
    if (t == PQ_BYTE_ARRAY) {
      size_t len = below(12);
      for (size_t k = 0; k < len; k++) heap[i * 12 + k] = (uint8_t)rnd();
      strs[i].ptr = heap + i * 12;
      strs[i].len = len;
    } else if (t == PQ_BOOLEAN) {
      dvals[i] = rnd() & 1;
    } else {
      for (size_t k = 0; k < vs; k++) dvals[i * vs + k] = (uint8_t)rnd();
    }
  }
  pq_params p;
  params(&p, PQ_PLAIN, t, tl, (int64_t)entries);
  pq_error err;
  encode(&p, dvals, entries, 1, &dict, NULL, &err);
  /* The PLAIN bytes of BYTE_ARRAY entries are where the decoder points. */
  uint8_t *dbuf = exact_copy(dict.data, dict.len);
  if (t == PQ_BOOLEAN) entries = dict.len * 8; /* whole bytes of bits */
  if (t == PQ_BOOLEAN)
    for (size_t i = 0; i < entries; i++)
      dvals[i] = (dbuf[i / 8] >> (i % 8)) & 1;
  if (t == PQ_BYTE_ARRAY) {
    size_t pos = 0;
    for (size_t i = 0; i < entries; i++) {
      strs[i].ptr = dbuf + pos + 4;
      pos += 4 + strs[i].len;
    }
  }
  /* Indices below the dictionary, one bad one maybe. */
  runs r;
  memset(&r, 0, sizeof r);
  pq_buf_init(&r.buf);
  pq_buf_byte(&r.buf, (uint8_t)w);
  uint32_t lim = entries < wmask(w) ? (uint32_t)entries : wmask(w);
  size_t nruns = 1 + below(12);
  size_t bad_run = bad_kind ? below(nruns) : (size_t)-1;
  for (size_t k = 0; k < nruns; k++) {
    if (rnd() % 2) {
      uint32_t x = lim ? (uint32_t)below(lim) : 0;
      if (k == bad_run) x = (uint32_t)entries + (uint32_t)below(wmask(w) - entries + 1);
      runs_rle(&r, w, x, 1 + below(k % 2 ? 5 : 100));
    } else {
      size_t groups = 1 + below(k % 2 ? 3 : dict_groups);
      if (dict_groups > 40 && rnd() % 2) /* around the decoder's 256 */
        groups = (size_t[]){1, 31, 32, 33, 63, 64, 65}[below(7)];
      size_t at = r.n;
      runs_packed(&r, w, groups, 0);
      /* Rewrite the bits: indices below lim, a bad one in the bad run. */
      size_t hdr = r.buf.len - groups * (size_t)w;
      memset(r.buf.data + hdr, 0, groups * (size_t)w);
      size_t badpos = k == bad_run ? below(groups * 8) : (size_t)-1;
      for (size_t i = 0; i < groups * 8; i++) {
        uint32_t x = lim ? (uint32_t)below(lim) : 0;
        if (i == badpos) x = (uint32_t)entries + (uint32_t)below(wmask(w) - entries + 1);
        r.vals[at + i] = x;
        for (int b = 0; b < w; b++) {
          uint64_t bit = i * (uint64_t)w + (uint64_t)b;
          if ((x >> b) & 1) r.buf.data[hdr + bit / 8] |= (uint8_t)(1u << (bit % 8));
        }
      }
    }
  }
  size_t cut = 0; /* values of the stream past the count */
  if (dict_cut) {
    size_t groups = 1 + below(dict_groups), at = r.n;
    runs_packed(&r, w, groups, 0);
    size_t hdr = r.buf.len - groups * (size_t)w;
    memset(r.buf.data + hdr, 0, groups * (size_t)w);
    for (size_t i = 0; i < groups * 8; i++) {
      uint32_t x = lim ? (uint32_t)below(lim) : 0;
      r.vals[at + i] = x;
      for (int b = 0; b < w; b++) {
        uint64_t bit = i * (uint64_t)w + (uint64_t)b;
        if ((x >> b) & 1) r.buf.data[hdr + bit / 8] |= (uint8_t)(1u << (bit % 8));
      }
    }
    cut = 1 + below(7);
    r.buf.len -= (cut * (size_t)w) / 8; /* bytes of dropped values only */
    r.n -= cut;
  }
  /* The first bad index, if any: the values before it, and its message. */
  size_t first_bad = r.n;
  for (size_t i = 0; i < r.n; i++)
    if (r.vals[i] >= entries) {
      first_bad = i;
      break;
    }
  uint8_t *buf = exact_copy(r.buf.data, r.buf.len);
  params(&p, PQ_RLE_DICTIONARY, t, tl, (int64_t)r.n);
  char what[96];
  snprintf(what, sizeof what, "RLE_DICTIONARY %s(%d), %zu entries, width %d",
           pq_type_name(t), (int)tl, entries, w);
  outcome o = decode_all_ways(what, &p, buf, r.buf.len, dbuf, dict.len, r.n + 8);
  int ok = o.open_rc == 0 && o.n == first_bad;
  for (size_t i = 0; ok && i < first_bad; i++) {
    const uint8_t *got = o.vals + i * vs;
    if (t == PQ_BYTE_ARRAY) {
      const pq_bytes *g = (const pq_bytes *)(const void *)got;
      ok = g->ptr == strs[r.vals[i]].ptr && g->len == strs[r.vals[i]].len;
    } else if (t == PQ_BOOLEAN) {
      ok = *got == dvals[r.vals[i]];
    } else {
      ok = memcmp(got, dvals + (size_t)r.vals[i] * vs, vs) == 0;
    }
  }
  CHECK(ok, "%s: %zu values (rc %d: %s), want %zu", what, o.n, o.rc, o.msg,
        first_bad);
  if (first_bad < r.n) {
    char want[256];
    snprintf(want, sizeof want,
             "RLE_DICTIONARY: value %zu: index %u is beyond the dictionary of "
             "%zu entries",
             first_bad, r.vals[first_bad], entries);
    CHECK(o.rc == PQ_CORRUPT && strcmp(o.msg, want) == 0, "%s: '%s', want '%s'",
          what, o.msg, want);
  } else {
    CHECK(o.rc == 0, "%s: %s", what, o.msg);
  }
  /* The dictionary vector: the same indices, up to the same fault. */
  want_indices = 1;
  outcome ix = decode_all_ways(what, &p, buf, r.buf.len, dbuf, dict.len, r.n + 8);
  want_indices = 0;
  ok = ix.open_rc == 0 && ix.vs == 4 && ix.n == first_bad && ix.rc == o.rc &&
       strcmp(ix.msg, o.msg) == 0;
  for (size_t i = 0; ok && i < first_bad; i++)
    ok = ((const uint32_t *)(const void *)ix.vals)[i] == r.vals[i];
  CHECK(ok, "%s, as indices: %zu (rc %d: %s), want %zu (rc %d: %s)", what,
        ix.n, ix.rc, ix.msg, first_bad, o.rc, o.msg);
  outcome_free(&ix);
  outcome_free(&o);
  free(buf);
  free(r.vals);
  pq_buf_free(&r.buf);
  free(dbuf);
  pq_buf_free(&dict);
  free(heap);
  free(dvals);
}

static void test_dict_decode(void) {
  static const pq_type types[] = {PQ_INT32,  PQ_FLOAT,      PQ_INT64,
                                  PQ_DOUBLE, PQ_BYTE_ARRAY, PQ_INT96};
  static const size_t sizes[] = {1,  2,  3,   7,   8,   9,    15,
                                 16, 17, 255, 256, 257, 1000, 1024};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t e = sizes[s];
      int need = pq_bit_width64(e - 1);
      /* The least width, one more, and 2^w == entries (checked) or not. */
      for (int w = need; w <= need + 1 && w <= 32; w++)
        for (int bad = 0; bad <= 1; bad++) {
          if (bad && ((size_t)1 << w) <= e) continue; /* no bad index fits */
          test_dict_decode_one(types[t], 0, e, w, bad);
        }
    }
  }
  for (int32_t tl = 1; tl <= 20; tl++) {
    test_dict_decode_one(PQ_FIXED_LEN_BYTE_ARRAY, tl, 5, 3, 1);
    test_dict_decode_one(PQ_FIXED_LEN_BYTE_ARRAY, tl, 8, 3, 0);
  }
  test_dict_decode_one(PQ_BOOLEAN, 0, 1, 4, 1);
  test_dict_decode_one(PQ_BOOLEAN, 0, 2, 3, 0);
  test_dict_decode_one(PQ_INT32, 0, 70000, 17, 1);
  test_dict_decode_one(PQ_DOUBLE, 0, 70000, 17, 0);
  test_dict_decode_one(PQ_INT32, 0, 5, 32, 1);
}

/* Bit-packed runs read in registers: indices of every width 1..26 (up to
** 25 the AVX2 path, 26 past it), numbers of 4 and 8 bytes and strings
** (16-byte entries copied whole), dictionaries of up to 16 entries (a
** permute) and more (gathers), runs around the
** decoder's batches and groups, a bad index anywhere, last runs cut short
** (the stream's last bytes within the reach of the loads). */
static void test_dict_decode_regs(void) {
  static const pq_type types[] = {PQ_INT32, PQ_FLOAT, PQ_INT64, PQ_DOUBLE,
                                  PQ_BYTE_ARRAY};
  dict_groups = 300;
  for (int cut = 0; cut <= 1; cut++) {
    dict_cut = cut;
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
      for (int w = 1; w <= 26; w++) {
        size_t full = w < 12 ? (size_t)1 << w : 0;
        const size_t es[] = {1, 5, 16, 17, 700, full, full ? full - 1 : 3};
        for (size_t k = 0; k < sizeof es / sizeof es[0]; k++) {
          size_t e = es[k];
          if (e == 0 || pq_bit_width64(e - 1) > w) continue;
          test_dict_decode_one(types[t], 0, e, w, 0);
          if (((uint64_t)1 << w) > e) test_dict_decode_one(types[t], 0, e, w, 1);
        }
      }
    }
  }
  dict_cut = 0;
  dict_groups = 40;
}

/* ---- 6. Dictionary encoding ---------------------------------------------- */

/* Values of a type: from a pool of `card` distinct ones, in runs or not;
** special doubles and folded halves among them. */
static void dict_values(pq_type t, size_t vs, size_t n, size_t card,
                        uint8_t *v) {
  uint8_t *pool = malloc(card * vs + 16);
  for (size_t i = 0; i < card; i++) {
    uint64_t x = rnd();
    if (t == PQ_INT64 && i % 4 == 1) {
      /* Another value whose halves fold to the same 32 bits. */
      uint64_t y;
      memcpy(&y, pool + (i - 1) * vs, 8);
      uint64_t hi = rnd() & 0xffffffffu;
      x = hi << 32 | ((uint32_t)(y ^ (y >> 32)) ^ (uint32_t)hi);
    }
    if (t == PQ_DOUBLE) {
      static const uint64_t special[] = {0, 0x8000000000000000ull,
                                         0x7ff8000000000000ull,
                                         0x7ff8000000000001ull,
                                         0xfff8000000000000ull};
      if (i < 5) x = special[i];
    }
    if (t == PQ_FLOAT && i < 4) {
      static const uint32_t special[] = {0, 0x80000000u, 0x7fc00000u,
                                         0x7fc00001u};
      x = special[i];
    }
    if (t == PQ_BOOLEAN) x &= 1;
    if (vs <= 8) {
      memcpy(pool + i * vs, &x, vs);
    } else {
      for (size_t k = 0; k < vs; k++) pool[i * vs + k] = (uint8_t)rnd();
    }
  }
  size_t i = 0;
  while (i < n) {
    size_t k = rnd() % 3 ? 1 : 1 + below(20), at = below(card);
    for (size_t j = 0; j < k && i < n; j++, i++)
      memcpy(v + i * vs, pool + at * vs, vs);
  }
  free(pool);
}

/* Encodes the n values v (both ways) and checks the dictionary and the
** index stream against the reference made here. */
static void test_dict_encode_vals(pq_type t, int32_t tl, const uint8_t *v,
                                  size_t n, const char *what) {
  size_t vs = pq_value_size(t, tl);
  pq_params p;
  params(&p, PQ_RLE_DICTIONARY, t, tl, -1);
  pq_buf idx[2], dict[2];
  pq_error err;
  for (int fast = 0; fast <= 1; fast++) {
    pq_buf_init(&idx[fast]);
    pq_buf_init(&dict[fast]);
    CHECK(encode(&p, v, n, fast, &idx[fast], &dict[fast], &err) == PQ_OK,
          "%s: %s", what, err.msg);
  }
  CHECK(same_buf(&idx[0], &idx[1]) && same_buf(&dict[0], &dict[1]),
        "%s: the fast paths encode otherwise", what);
  /* The reference: distinct values by their bytes, first appearance first
  ** (BOOLEAN: as 0/1), and each value's entry. */
  uint8_t *ref = malloc((n + 1) * vs);
  uint32_t *want = malloc((n + 1) * sizeof *want);
  size_t entries = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t key[32] = {0}; /* vs is at most 17 here */
    memcpy(key, v + i * vs, vs);
    if (t == PQ_BOOLEAN) key[0] = key[0] != 0;
    size_t e = 0;
    while (e < entries && memcmp(ref + e * vs, key, vs) != 0) e++;
    if (e == entries) memcpy(ref + entries++ * vs, key, vs);
    want[i] = (uint32_t)e;
  }
  /* The dictionary page decodes to the reference. */
  pq_params pp;
  params(&pp, PQ_PLAIN, t, tl, (int64_t)entries);
  uint8_t *dbuf = exact_copy(dict[1].data, dict[1].len);
  outcome o = decode_all_ways(what, &pp, dbuf, dict[1].len, NULL, 0,
                              entries + 8);
  CHECK(o.rc == 0 && o.n == entries &&
            (entries == 0 || memcmp(o.vals, ref, entries * vs) == 0),
        "%s: the dictionary (%zu entries, want %zu)", what, o.n, entries);
  outcome_free(&o);
  /* The indices: their width, their values, the runs to the byte. */
  int w = entries > 1 ? pq_bit_width64(entries - 1) : 0;
  CHECK(n == 0 || (idx[1].len > 0 && idx[1].data[0] == w),
        "%s: bit width %d, want %d", what, idx[1].len ? idx[1].data[0] : -1,
        w);
  pq_buf runs_ref;
  pq_buf_init(&runs_ref);
  pq_rle_writer wr;
  pq_rle_writer_init(&wr, &runs_ref, w);
  for (size_t i = 0; i < n; i++) pq_rle_writer_put(&wr, want[i]);
  pq_rle_writer_flush(&wr);
  CHECK(n == 0 || (idx[1].len == runs_ref.len + 1 &&
                   (runs_ref.len == 0 ||
                    memcmp(idx[1].data + 1, runs_ref.data, runs_ref.len) == 0)),
        "%s: the index runs", what);
  params(&pp, PQ_RLE_DICTIONARY, t, tl, (int64_t)n);
  uint8_t *ibuf = exact_copy(idx[1].data, idx[1].len);
  o = decode_all_ways(what, &pp, ibuf, idx[1].len, dbuf, dict[1].len, n + 8);
  int ok = o.rc == 0 && o.n == n;
  for (size_t i = 0; ok && i < n; i++)
    ok = memcmp(o.vals + i * vs, ref + (size_t)want[i] * vs, vs) == 0;
  CHECK(ok, "%s: decodes back (rc %d, %zu values: %s)", what, o.rc, o.n,
        o.msg);
  outcome_free(&o);
  free(ibuf);
  free(dbuf);
  pq_buf_free(&runs_ref);
  for (int fast = 0; fast <= 1; fast++) {
    pq_buf_free(&idx[fast]);
    pq_buf_free(&dict[fast]);
  }
  free(want);
  free(ref);
}

static void test_dict_encode_one(pq_type t, int32_t tl, size_t n, size_t card) {
  size_t vs = pq_value_size(t, tl);
  uint8_t *v = malloc(n * vs + 1);
  dict_values(t, vs, n, card, v);
  char what[96];
  snprintf(what, sizeof what, "dictionary encoding %s(%d) x%zu, %zu distinct",
           pq_type_name(t), (int)tl, n, card);
  test_dict_encode_vals(t, tl, v, n, what);
  free(v);
}

/* INT32 and INT64 values of small ranges, looked up without the hash
** until the range passes 2^16: ranges that grow upwards, downwards and
** both ways, to exactly 2^16 values and one past, values at the ends of
** the type (whose offsets wrap), and the hash taking over midway. */
static void test_dict_encode_direct(void) {
  for (int wide = 0; wide <= 1; wide++) {
    pq_type t = wide ? PQ_INT64 : PQ_INT32;
    size_t vs = wide ? 8 : 4;
    for (int shape = 0; shape < 12; shape++) {
      size_t n = 300 + below(5000);
      int64_t *x = malloc(n * sizeof *x);
      const int64_t lo = wide ? INT64_MIN : INT32_MIN;
      const int64_t hi = wide ? INT64_MAX : INT32_MAX;
      for (size_t i = 0; i < n; i++) {
        int64_t r = (int64_t)below(1000);
        switch (shape) {
          case 0: x[i] = r; break;                            /* 0..999 */
          case 1: x[i] = (int64_t)i * 13 - 30000 + r % 3; break; /* upwards */
          case 2: x[i] = 40000 - (int64_t)i * 17; break;       /* downwards */
          case 3: x[i] = i % 2 ? (int64_t)i * 11 : -(int64_t)i * 11; break;
          case 4: /* exactly 2^16 values wide, then one past */
            x[i] = i < n / 2 ? (int64_t)(i % 2 ? 65535 : 0)
                              : i == n - 3 ? (int64_t)65536 : r;
            break;
          case 5: x[i] = -5 + r % 11; break;                  /* around 0 */
          case 6: x[i] = i % 3 ? lo + r % 50 : hi - r % 50; break; /* ends */
          case 7: x[i] = lo + r; break;
          case 8: x[i] = hi - r; break;
          case 9: /* small at first, then the hash takes over */
            x[i] = i < n / 3 ? r : (int64_t)(rnd() % 200000) - 100000;
            break;
          case 10: x[i] = (int64_t)rnd(); break;               /* no range */
          default: x[i] = (int64_t)(i % 7) * 9000 + (r % 2) * 3; break;
        }
        if (!wide) x[i] = (int32_t)x[i];
      }
      uint8_t *v = malloc(n * vs);
      for (size_t i = 0; i < n; i++) {
        if (wide) {
          memcpy(v + i * 8, &x[i], 8);
        } else {
          int32_t y = (int32_t)x[i];
          memcpy(v + i * 4, &y, 4);
        }
      }
      char what[96];
      snprintf(what, sizeof what, "dictionary encoding %s x%zu, shape %d",
               pq_type_name(t), n, shape);
      test_dict_encode_vals(t, 0, v, n, what);
      free(v);
      free(x);
    }
  }
}

static void test_dict_encode(void) {
  static const pq_type types[] = {PQ_BOOLEAN, PQ_INT32, PQ_FLOAT,
                                  PQ_INT64,   PQ_DOUBLE, PQ_INT96};
  static const size_t cards[] = {1, 2, 5, 16, 100, 1000};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; t++)
    for (size_t c = 0; c < sizeof cards / sizeof cards[0]; c++)
      test_dict_encode_one(types[t], 0, 1 + below(3000), cards[c]);
  for (int32_t tl = 1; tl <= 17; tl += 4)
    test_dict_encode_one(PQ_FIXED_LEN_BYTE_ARRAY, tl, 500, 40);
  /* Tables that grow many times and indices that widen to 13 bits. */
  test_dict_encode_one(PQ_INT32, 0, 20000, 6000);
  test_dict_encode_one(PQ_DOUBLE, 0, 20000, 6000);
  test_dict_encode_one(PQ_INT64, 0, 0, 1);
}

/* ---- 7. GROUP_VAR_INT ---------------------------------------------------- */

static void test_gvi(void) {
  for (int round = 0; round < 120; round++) {
    int wide = round % 2;
    size_t n = round < 40 ? (size_t)round : below(2000);
    size_t vs = wide ? 8 : 4;
    uint8_t *v = malloc(n * vs + 1);
    for (size_t i = 0; i < n; i++) {
      int bytes = 1 + (int)below(wide ? 8 : 4);
      uint64_t x = rnd();
      if (bytes < 8) x &= (1ull << (8 * bytes)) - 1;
      if (rnd() % 8 == 0) x = 0;
      if (wide) {
        memcpy(v + i * 8, &x, 8);
      } else {
        uint32_t y = (uint32_t)x;
        memcpy(v + i * 4, &y, 4);
      }
    }
    pq_params p;
    params(&p, PQ_GROUP_VAR_INT, wide ? PQ_INT64 : PQ_INT32, 0, (int64_t)n);
    pq_buf out;
    pq_error err;
    pq_buf_init(&out);
    CHECK(encode(&p, v, n, 1, &out, NULL, &err) == PQ_OK, "gvi encode");
    uint8_t *buf = exact_copy(out.data, out.len);
    char what[64];
    snprintf(what, sizeof what, "GROUP_VAR_INT %s x%zu", wide ? "INT64" : "INT32",
             n);
    outcome o = decode_all_ways(what, &p, buf, out.len, NULL, 0, n + 8);
    CHECK(o.rc == 0 && o.n == n && (n == 0 || memcmp(o.vals, v, n * vs) == 0),
          "%s: the values (%s)", what, o.msg);
    outcome_free(&o);
    /* Without a count: the last group's zeros too. */
    p.count = -1;
    o = decode_all_ways(what, &p, buf, out.len, NULL, 0, n + 16);
    size_t per = wide ? 5 : 4;
    CHECK(o.rc == 0 && o.n == (n + per - 1) / per * per &&
              (n == 0 || memcmp(o.vals, v, n * vs) == 0),
          "%s without a count: %zu values", what, o.n);
    outcome_free(&o);
    /* Cut short or changed: reading in batches of 1, 2, 3 (the portable
    ** path) and in larger ones agree. */
    for (int k = 0; k < 6 && out.len; k++) {
      size_t len = k % 2 ? below(out.len) : out.len;
      uint8_t *c = exact_copy(out.data, len);
      if (!(k % 2) && len) c[below(len)] = (uint8_t)rnd();
      p.count = k % 3 == 0 ? -1 : (int64_t)n;
      o = decode_all_ways("GROUP_VAR_INT changed", &p, c, len, NULL, 0, n + 16);
      outcome_free(&o);
      free(c);
    }
    free(buf);
    pq_buf_free(&out);
    free(v);
  }
}

int main(void) {
  test_expand_bits();
  test_plain_bool();
  test_plain_bytes();
  test_bss();
  test_rle_decode();
  test_rle_bool();
  test_rle_writer();
  test_rle_bool_encode();
  test_dict_decode();
  test_dict_decode_regs();
  test_dict_encode();
  test_dict_encode_direct();
  test_gvi();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
