/*
** unit_fast_delta.c -- C unit tests of the fast paths of bit unpacking and
** of the DELTA_* decoders and encoders, against the portable code and
** plain references written here.
**
**   1. bit unpacking: every width 0..32 with the unpackers pq_cpu()
**      chooses, the portable ones and pq_unpack32, and 0..64 with
**      pq_unpack64; random bytes at every offset 0..31 in a buffer that
**      ends where the packed bytes end; nothing written past 32 values
**   2. the block-by-block size walk against the miniblock-by-miniblock one
**      on good, cut and corrupted streams
**   3. DELTA_BINARY_PACKED: streams with miniblocks of every width (INT32
**      0..32, INT64 0..64) and blocks of several shapes, at unaligned
**      offsets, read in batches of random size with the fast paths and
**      with PQ_SIMD=none, against the values and a reference decoder
**   4. the same streams cut short and corrupted: both ways give the same
**      status, message and values
**   3b. reads of fixed sizes that end inside blocks, miniblocks and runs
**      of 32, at widths around the register paths' bounds, and INT64
**      values whose low 32 bits wrap within a block
**   5. DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (BYTE_ARRAY and
**      FIXED_LEN_BYTE_ARRAY): values of shapes that reach every branch
**      (empty, short, over 64 bytes, prefixes shared up to and past 64
**      bytes, streams too short for wide copies), whole, cut, corrupted
**   6. the encoders: the same bytes both ways and whatever the batches
**      the values are put in; a reference decoder reads them back
**
** Each decoder is opened again after PQ_SIMD changes: the fast paths are
** chosen at open.  Prints a line per failure starting with "!" and ends
** with "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200112L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "encodings/encodings.h"

#define CHECK_SEED 0xfa57de17a
#include "check.h"

/* ---- Helpers ------------------------------------------------------------ */

/* The fast paths on (the machine's instruction sets) or off. */
static void simd(int on) {
  if (on) {
    unsetenv("PQ_SIMD");
  } else {
    setenv("PQ_SIMD", "none", 1);
  }
}

/* A copy of n bytes at offset off of a buffer that ends with them, so
** that the sanitizer sees any read past the end.  Free with free(*base). */
static uint8_t *place(const uint8_t *src, size_t n, size_t off,
                      uint8_t **base) {
  *base = malloc(off + n + 1);
  if (n) memcpy(*base + off, src, n);
  return *base + off;
}

/* Writes the w low bits of v at bit `bit` of out, LSB first. */
static void put_bits(uint8_t *out, uint64_t bit, int w, uint64_t v) {
  for (int j = 0; j < w; j++, bit++) {
    if ((v >> j) & 1) out[bit >> 3] |= (uint8_t)(1u << (bit & 7));
  }
}

/* ---- 1. Bit unpacking ------------------------------------------------- */

static void test_unpack(void) {
  int widths32 = 0, widths64 = 0;
  for (int mode = 0; mode < 2; mode++) {
    simd(mode == 0);
    const pq_unpack32_fn *fast = pq_unpack32_table(pq_cpu());
    const pq_unpack32_fn *plain = pq_unpack32_table(0);
    for (int w = 0; w <= 64; w++) {
      int bad = 0;
      size_t bytes = 4 * (size_t)w;
      for (size_t off = 0; off < 32; off++) {
        for (int trial = 0; trial < 4; trial++) {
          uint8_t packed[256] = {0};
          uint64_t want[32], got[32];
          uint64_t mask = w == 64 ? ~0ull : (1ull << w) - 1;
          for (int i = 0; i < 32; i++) {
            /* All ones first, then random, then sparse bits. */
            uint64_t r = rnd();
            want[i] = (trial == 0 ? ~0ull : trial == 3 ? r & rnd() & rnd() : r) &
                      mask;
            put_bits(packed, (uint64_t)i * (uint64_t)w, w, want[i]);
          }
          uint8_t *base, *in = place(packed, bytes, off, &base);
          pq_unpack_lsb(in, 0, w, 32, got);
          bad += memcmp(got, want, sizeof want) != 0;
          if (w <= 32) {
            uint32_t o[3][33];
            for (int k = 0; k < 3; k++) o[k][32] = 0xdeadbeef;
            fast[w](in, o[0]);
            plain[w](in, o[1]);
            pq_unpack32(w, in, o[2]);
            for (int k = 0; k < 3; k++) {
              bad += o[k][32] != 0xdeadbeef;
              for (int i = 0; i < 32; i++) bad += o[k][i] != (uint32_t)want[i];
            }
          }
          uint64_t o64[33];
          o64[32] = 0x0123456789abcdefull;
          pq_unpack64(w, in, o64);
          bad += o64[32] != 0x0123456789abcdefull;
          bad += memcmp(o64, want, sizeof want) != 0;
          free(base);
        }
      }
      CHECK(bad == 0, "unpacking at width %d (PQ_SIMD %s): %d differences",
            w, mode ? "none" : "unset", bad);
      if (w <= 32) widths32++;
      widths64++;
    }
  }
  CHECK(widths32 == 66 && widths64 == 130, "widths covered");
  simd(1);
}

/* ---- Streams ------------------------------------------------------------ */

/* A DELTA_BINARY_PACKED stream written here, independently of the
** encoder: blocks of `bs` values in `mbs` miniblocks, each miniblock's
** relative deltas of width widths[k % nwidths] (k counting miniblocks),
** with a 0 and an all-ones delta in each so that the width is exactly
** that.  The values go in vals (int32_t or int64_t). */
static void dbp_stream(pq_buf *out, int is32, uint64_t bs, uint64_t mbs,
                       size_t n, const int *widths, int nwidths, void *vals) {
  uint64_t mbv = bs / mbs, k = 0;
  uint64_t mask = is32 ? 0xffffffffull : ~0ull;
  uint64_t last = rnd() & mask;
  if (is32) last = (uint64_t)(int64_t)(int32_t)(uint32_t)last;
  uint64_t first = last;
  pq_buf body;
  pq_buf_init(&body);
  size_t i = 1;
  if (n > 0) {
    if (is32) ((int32_t *)vals)[0] = (int32_t)last;
    else ((int64_t *)vals)[0] = (int64_t)last;
  }
  while (i < n) {
    /* A min delta that keeps every delta within the type. */
    int64_t md;
    int wmax = 0;
    for (uint64_t m = 0; m < mbs; m++) {
      int w = widths[(k + m) % (uint64_t)nwidths];
      if (w > wmax) wmax = w;
    }
    if (is32) {
      md = wmax >= 32 ? INT32_MIN
                      : (int64_t)(rnd() % 2001) - 1000 - ((int64_t)1 << wmax) / 2;
    } else {
      md = wmax >= 63 ? INT64_MIN
                      : (int64_t)(rnd() % 2001) - 1000 - ((int64_t)1 << wmax) / 2;
    }
    uint8_t tmp[10];
    pq_buf_append(&body, tmp, pq_uleb_write(tmp, pq_zigzag_enc(md)));
    size_t wpos = body.len;
    for (uint64_t m = 0; m < mbs; m++) pq_buf_append(&body, "\0", 1);
    for (uint64_t m = 0; m < mbs && i < n; m++, k++) {
      int w = widths[k % (uint64_t)nwidths];
      body.data[wpos + m] = (uint8_t)w;
      size_t at = body.len, nb = (size_t)(mbv * (uint64_t)w / 8);
      if (pq_buf_reserve(&body, nb)) break;
      memset(body.data + at, 0, nb);
      body.len += nb;
      uint64_t wm = w == 64 ? ~0ull : (1ull << w) - 1;
      for (uint64_t j = 0; j < mbv; j++) {
        uint64_t r = j == 0 ? 0 : j == 1 ? wm : rnd() & wm;
        if (j % 7 == 3) r &= rnd(); /* some small ones */
        if (i < n) {
          last = (last + (uint64_t)md + r) & mask;
          if (is32) {
            ((int32_t *)vals)[i] = (int32_t)(uint32_t)last;
          } else {
            ((int64_t *)vals)[i] = (int64_t)last;
          }
          i++;
        } else {
          r = rnd() & wm; /* padding: any bits */
        }
        put_bits(body.data + at, j * (uint64_t)w, w, r);
      }
    }
  }
  uint8_t tmp[10];
  pq_buf_append(out, tmp, pq_uleb_write(tmp, bs));
  pq_buf_append(out, tmp, pq_uleb_write(tmp, mbs));
  pq_buf_append(out, tmp, pq_uleb_write(tmp, n));
  int64_t f = is32 ? (int64_t)(int32_t)(uint32_t)first : (int64_t)first;
  pq_buf_append(out, tmp, pq_uleb_write(tmp, pq_zigzag_enc(f)));
  pq_buf_append(out, body.data, body.len);
  pq_buf_free(&body);
}

/* The reference decoder: bit by bit, every bound checked; returns the
** stream's length (past the last miniblock's padding) or 0 when it is
** malformed. */
static size_t ref_dbp(const uint8_t *b, size_t len, int is32, void *vals,
                      size_t cap, size_t *n) {
  size_t pos = 0;
  uint64_t h[4];
  for (int i = 0; i < 4; i++) {
    if (pq_uleb_read(b, len, &pos, &h[i])) return 0;
  }
  if (h[0] == 0 || h[1] == 0 || h[0] % h[1] || h[2] > cap) return 0;
  uint64_t mbv = h[0] / h[1], mask = is32 ? 0xffffffffull : ~0ull;
  uint64_t last = (uint64_t)pq_zigzag_dec(h[3]) & mask;
  size_t i = 0;
  if (h[2] > 0) {
    if (is32) ((int32_t *)vals)[i++] = (int32_t)(uint32_t)last;
    else ((int64_t *)vals)[i++] = (int64_t)last;
  }
  while (i < h[2]) {
    uint64_t zz;
    if (pq_uleb_read(b, len, &pos, &zz) || len - pos < h[1]) return 0;
    uint64_t md = (uint64_t)pq_zigzag_dec(zz);
    const uint8_t *widths = b + pos;
    pos += (size_t)h[1];
    for (uint64_t m = 0; m < h[1] && i < h[2]; m++) {
      int w = widths[m];
      if (w > (is32 ? 32 : 64) || (len - pos) * 8 < mbv * (uint64_t)w) {
        return 0;
      }
      for (uint64_t j = 0; j < mbv && i < h[2]; j++) {
        uint64_t r;
        pq_unpack_lsb(b + pos, j * (uint64_t)w, w, 1, &r);
        last = (last + md + r) & mask;
        if (is32) ((int32_t *)vals)[i++] = (int32_t)(uint32_t)last;
        else ((int64_t *)vals)[i++] = (int64_t)last;
      }
      pos += (size_t)(mbv * (uint64_t)w / 8);
    }
  }
  *n = i;
  return pos ? pos : 1;
}

/* What a decoder did with a stream: its status, message and the values of
** the reads that succeeded. */
typedef struct outcome {
  int rc;
  char msg[256];
  size_t n;
  uint8_t *vals;   /* n values as the type lays them out */
  pq_buf strings;  /* BYTE_ARRAY: the bytes, back to back */
} outcome;

static void outcome_free(outcome *o) {
  free(o->vals);
  pq_buf_free(&o->strings);
  memset(o, 0, sizeof *o);
}

/* Decodes buf with p in reads of random size (the sizes drawn from
** batch_seed, so that both ways read the same). */
static void run_decoder(const pq_params *p, const uint8_t *buf, size_t len,
                        uint64_t batch_seed, size_t cap, outcome *o) {
  memset(o, 0, sizeof *o);
  pq_decoder *d;
  pq_error err;
  err.msg[0] = 0;
  size_t vs = pq_value_size(p->type, p->type_length);
  o->vals = malloc(cap * vs + 1);
  o->rc = pq_decoder_open(&d, p, buf, len, NULL, 0, &err);
  if (o->rc == PQ_OK) {
    uint64_t keep = seed;
    seed = batch_seed;
    static const size_t sizes[] = {1, 2, 7, 31, 32, 33, 64, 100, 127,
                                   128, 129, 255, 256, 1000, 1023, 1024,
                                   1025, 4096};
    for (;;) {
      size_t want = sizes[rnd() % (sizeof sizes / sizeof sizes[0])];
      if (want > cap - o->n) want = cap - o->n;
      if (want == 0) break;
      size_t got;
      uint8_t *at = o->vals + o->n * vs;
      o->rc = pq_decoder_read(d, at, want, &got, &err);
      if (o->rc || got == 0) break;
      if (p->type == PQ_BYTE_ARRAY) {
        const pq_bytes *v = (const pq_bytes *)(void *)at;
        for (size_t i = 0; i < got; i++) {
          pq_buf_append(&o->strings, v[i].ptr, v[i].len);
        }
      }
      o->n += got;
    }
    seed = keep;
  }
  pq_decoder_free(d);
  if (o->rc) snprintf(o->msg, sizeof o->msg, "%s", err.msg);
}

/* Whether two outcomes are the same (pq_bytes pointers aside). */
static int same_outcome(const outcome *a, const outcome *b, pq_type t,
                        size_t vs) {
  if (a->rc != b->rc || strcmp(a->msg, b->msg) != 0 || a->n != b->n) return 0;
  if (t == PQ_BYTE_ARRAY) {
    const pq_bytes *x = (const pq_bytes *)(void *)a->vals;
    const pq_bytes *y = (const pq_bytes *)(void *)b->vals;
    for (size_t i = 0; i < a->n; i++) {
      if (x[i].len != y[i].len) return 0;
    }
    return a->strings.len == b->strings.len &&
           (a->strings.len == 0 ||
            memcmp(a->strings.data, b->strings.data, a->strings.len) == 0);
  }
  return a->n == 0 || memcmp(a->vals, b->vals, a->n * vs) == 0;
}

/* Decodes with the fast paths and without; checks both give the same, and
** returns the first outcome in *fast (the caller frees it). */
static int both_ways(const pq_params *p, const uint8_t *buf, size_t len,
                     size_t cap, outcome *fast) {
  uint64_t bs = rnd();
  outcome slow;
  simd(1);
  run_decoder(p, buf, len, bs, cap, fast);
  simd(0);
  run_decoder(p, buf, len, bs, cap, &slow);
  simd(1);
  int same = same_outcome(fast, &slow, p->type,
                          pq_value_size(p->type, p->type_length));
  if (!same) {
    printf("  fast: rc %d n %zu '%s'; PQ_SIMD=none: rc %d n %zu '%s'\n",
           fast->rc, fast->n, fast->msg, slow.rc, slow.n, slow.msg);
  }
  outcome_free(&slow);
  return same;
}

/* ---- 2. The size walk --------------------------------------------------- */

/* The walk the fast one replaced: miniblock by miniblock, strictly. */
static int slow_size(const pq_delta_reader *r0, size_t *size, pq_error *err) {
  pq_delta_reader r = *r0;
  r.strict = 1;
  if (r.yielded == 0 && r.total > 0) r.yielded = 1;
  while (r.yielded < r.total) {
    int rc = pq_delta_next_miniblock(&r, err);
    if (rc) return rc;
    r.yielded += r.mb_left;
    r.mb_left = 0;
  }
  *size = r.pos;
  return PQ_OK;
}

static int size_agrees(const uint8_t *b, size_t len, int is32) {
  pq_delta_reader r;
  pq_error e1, e2;
  e1.msg[0] = e2.msg[0] = 0;
  if (pq_delta_reader_init(&r, b, len, 5, is32, "lengths", &e1)) return 1;
  size_t s1 = 0, s2 = 0;
  int rc1 = pq_delta_reader_size(&r, &s1, &e1);
  int rc2 = slow_size(&r, &s2, &e2);
  if (rc1 != rc2) return 0;
  return rc1 ? strcmp(e1.msg, e2.msg) == 0 : s1 == s2;
}

static void test_size_walk(void) {
  static const int ws[] = {0, 1, 3, 8, 13, 32, 17, 5};
  int bad = 0, runs = 0;
  for (int trial = 0; trial < 60; trial++) {
    int is32 = trial % 2;
    uint64_t bs = trial % 3 == 0 ? 128 : trial % 3 == 1 ? 64 : 8;
    uint64_t mbs = bs == 8 ? 1 : bs / 32;
    size_t n = (size_t)(rnd() % 700);
    pq_buf s;
    pq_buf_init(&s);
    void *vals = malloc(8 * (n + 1));
    dbp_stream(&s, is32, bs, mbs, n, ws + trial % 4, 4, vals);
    uint8_t *base;
    for (size_t cut = 0; cut <= s.len; cut += 1 + cut / 16) {
      uint8_t *in = place(s.data, cut, 3, &base);
      bad += !size_agrees(in, cut, is32);
      runs++;
      free(base);
    }
    for (int c = 0; c < 40; c++) {
      uint8_t *in = place(s.data, s.len, 1, &base);
      for (int f = 0; f < 2; f++) in[rnd() % (s.len ? s.len : 1)] ^= (uint8_t)rnd();
      if (s.len) bad += !size_agrees(in, s.len, is32);
      runs++;
      free(base);
    }
    free(vals);
    pq_buf_free(&s);
  }
  CHECK(bad == 0 && runs > 1000,
        "the block-by-block size walk differs from the miniblock one on %d "
        "of %d streams",
        bad, runs);
}

/* ---- 3 and 4. DELTA_BINARY_PACKED ------------------------------------- */

static pq_params dbp_params(int is32, uint64_t bs, uint64_t mbs, int64_t n) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = PQ_DELTA_BINARY_PACKED;
  p.type = is32 ? PQ_INT32 : PQ_INT64;
  p.type_set = 1;
  p.block_size = (int64_t)bs;
  p.miniblocks = (int64_t)mbs;
  p.count = n;
  return p;
}

static void test_dbp(void) {
  static const uint64_t shapes[][2] = {{128, 4}, {256, 8}, {128, 1},
                                       {64, 2},  {32, 1},  {8, 1},
                                       {96, 4},  {256, 2}, {16, 2}};
  int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  for (int is32 = 1; is32 >= 0; is32--) {
    int maxw = is32 ? 32 : 64;
    for (int w = 0; w <= maxw; w++) {
      int bad_vals = 0, bad_ref = 0, disagree = 0, cuts = 0, bad_cut = 0;
      for (int sh = 0; sh < nshapes; sh++) {
        uint64_t bs = shapes[sh][0], mbs = shapes[sh][1];
        /* Miniblocks of width w, now and then another. */
        int ws[4] = {w, w, (int)(rnd() % (uint64_t)(maxw + 1)), w};
        size_t n = sh == 0 ? 1 + (size_t)bs * 9 + (size_t)(rnd() % 64)
                           : (size_t)(rnd() % 1200);
        if (sh == 1) n = 0;
        if (sh == 2) n = 1;
        pq_buf s;
        pq_buf_init(&s);
        int64_t *vals = malloc(8 * (n + 1));
        int64_t *ref = malloc(8 * (n + 1));
        dbp_stream(&s, is32, bs, mbs, n, ws, 4, vals);
        size_t rn = 0;
        bad_ref += ref_dbp(s.data, s.len, is32, ref, n, &rn) == 0 || rn != n ||
                   memcmp(ref, vals, n * (is32 ? 4 : 8)) != 0;
        uint8_t *base, *in = place(s.data, s.len, 1 + (size_t)(rnd() % 15),
                                   &base);
        for (int counted = 0; counted < 2; counted++) {
          pq_params p = dbp_params(is32, bs, mbs, counted ? (int64_t)n : -1);
          outcome o;
          disagree += !both_ways(&p, in, s.len, n + 8, &o);
          bad_vals += o.rc != PQ_OK || o.n != n ||
                      memcmp(o.vals, vals, n * (is32 ? 4 : 8)) != 0;
          outcome_free(&o);
        }
        /* Cut short, with the count given: both ways agree, and a
        ** stream that decodes gives the right values. */
        pq_params p = dbp_params(is32, bs, mbs, (int64_t)n);
        for (size_t cut = 0; cut < s.len; cut += 1 + (size_t)(rnd() % 23)) {
          uint8_t *b2, *c = place(s.data, cut, (size_t)(rnd() % 8), &b2);
          outcome o;
          disagree += !both_ways(&p, c, cut, n + 8, &o);
          bad_cut += o.rc == PQ_OK &&
                     (o.n != n || memcmp(o.vals, vals, n * (is32 ? 4 : 8)));
          bad_cut += o.rc != PQ_OK && o.rc != PQ_CORRUPT;
          cuts++;
          outcome_free(&o);
          free(b2);
        }
        /* Corrupted: both ways agree, whatever the outcome. */
        for (int c = 0; c < 12 && s.len; c++) {
          uint8_t *b2, *x = place(s.data, s.len, 2, &b2);
          int flips = 1 + (int)(rnd() % 3);
          for (int f = 0; f < flips; f++) x[rnd() % s.len] = (uint8_t)rnd();
          pq_params q = dbp_params(is32, bs, mbs, c % 2 ? (int64_t)n : -1);
          outcome o;
          disagree += !both_ways(&q, x, s.len, n + 8, &o);
          bad_cut += o.rc != PQ_OK && o.rc != PQ_CORRUPT;
          outcome_free(&o);
          free(b2);
        }
        free(base);
        free(vals);
        free(ref);
        pq_buf_free(&s);
      }
      const char *t = is32 ? "INT32" : "INT64";
      CHECK(bad_ref == 0, "%s width %d: the test's streams are wrong", t, w);
      CHECK(bad_vals == 0, "%s width %d: %d decodes differ from the values",
            t, w, bad_vals);
      CHECK(disagree == 0,
            "%s width %d: the fast paths and PQ_SIMD=none disagree %d times",
            t, w, disagree);
      CHECK(bad_cut == 0 && cuts > 0,
            "%s width %d: %d cut or corrupted streams gave wrong values or "
            "an odd status",
            t, w, bad_cut);
    }
  }
}

/* Encodes values with p, putting them in batches of random size. */
static int encode_values(const pq_params *p, const void *vals, size_t n,
                         size_t vs, pq_buf *out) {
  pq_encoder *e;
  pq_error err;
  int rc = pq_encoder_open(&e, p, &err);
  for (size_t i = 0; rc == PQ_OK && i < n;) {
    size_t k = 1 + (size_t)(rnd() % 700);
    if (rnd() % 5 == 0) k = 1;
    if (k > n - i) k = n - i;
    rc = pq_encoder_put(e, (const uint8_t *)vals + i * vs, k, &err);
    i += k;
  }
  if (rc == PQ_OK) rc = pq_encoder_finish(e, out, NULL, &err);
  pq_encoder_free(e);
  return rc;
}

/* ---- 3b. Reads that end inside blocks --------------------------------- */

/* Decodes buf with p in reads of `first` values, then of `batch`. */
static void run_fixed(const pq_params *p, const uint8_t *buf, size_t len,
                      size_t first, size_t batch, size_t cap, outcome *o) {
  memset(o, 0, sizeof *o);
  pq_decoder *d;
  pq_error err;
  err.msg[0] = 0;
  size_t vs = pq_value_size(p->type, 0);
  o->vals = malloc(cap * vs + 1);
  o->rc = pq_decoder_open(&d, p, buf, len, NULL, 0, &err);
  for (size_t want = first; o->rc == PQ_OK; want = batch) {
    if (want > cap - o->n) want = cap - o->n;
    if (want == 0) break;
    size_t got;
    o->rc = pq_decoder_read(d, o->vals + o->n * vs, want, &got, &err);
    if (o->rc || got == 0) break;
    o->n += got;
  }
  pq_decoder_free(d);
  if (o->rc) snprintf(o->msg, sizeof o->msg, "%s", err.msg);
}

/* Whether reads of first, then batch values give vals, with the fast
** paths and without. */
static int fixed_reads(const pq_params *p, const uint8_t *buf, size_t len,
                       size_t first, size_t batch, const void *vals, size_t n) {
  outcome a, b;
  size_t vs = pq_value_size(p->type, 0);
  simd(1);
  run_fixed(p, buf, len, first, batch, n + 8, &a);
  simd(0);
  run_fixed(p, buf, len, first, batch, n + 8, &b);
  simd(1);
  int ok = same_outcome(&a, &b, p->type, vs) && a.rc == PQ_OK && a.n == n &&
           (n == 0 || memcmp(a.vals, vals, n * vs) == 0);
  if (!ok) {
    printf(
        "  reads of %zu then %zu: rc %d n %zu '%s'; PQ_SIMD=none: rc %d "
        "n %zu\n",
        first, batch, a.rc, a.n, a.msg, b.rc, b.n);
  }
  outcome_free(&a);
  outcome_free(&b);
  return ok;
}

/* The reads a batch of values makes of a stream: ends in the middle of
** blocks, of miniblocks and of runs of 32, whole blocks between. */
static const size_t batch_reads[][2] = {{1024, 1024}, {1023, 1024}, {1, 1024},
                                        {1, 1000},    {31, 33},     {100, 129},
                                        {5, 32},      {40, 96},     {1, 1}};

/* Widths around the register paths' bounds (25 the widest unpacked in
** registers; 64 summed straight from the bytes; 33 DuckDB's INT32), all
** the miniblocks of a width or mixed, blocks of several shapes, the stream
** ending where the buffer does. */
static void test_dbp_batches(void) {
  static const int widths[] = {0, 1, 2, 11, 24, 25, 26, 31, 32, 33, 63, 64};
  static const uint64_t shapes[][2] = {{128, 4}, {128, 1}, {256, 8},
                                       {512, 4}, {64, 2},  {32, 1}};
  int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
  int nreads = (int)(sizeof batch_reads / sizeof batch_reads[0]);
  for (int is32 = 1; is32 >= 0; is32--) {
    for (size_t wi = 0; wi < sizeof widths / sizeof widths[0]; wi++) {
      int w = widths[wi], bad = 0, runs = 0;
      if (is32 && w > 33) continue;
      for (int sh = 0; sh < nshapes; sh++) {
        uint64_t bs = shapes[sh][0], mbs = shapes[sh][1];
        for (int mixed = 0; mixed < 2; mixed++) {
          int ws[4] = {w, w, w, w};
          if (mixed) { /* narrow, at the bound, past it */
            ws[1] = is32 ? 25 : 26;
            ws[2] = 1;
          }
          size_t n = 1 + (size_t)bs * 4 + 37 + (size_t)(rnd() % bs);
          pq_buf s;
          pq_buf_init(&s);
          int64_t *vals = malloc(8 * (n + 1));
          dbp_stream(&s, is32, bs, mbs, n, ws, 4, vals);
          uint8_t *base, *in = place(s.data, s.len, (size_t)(rnd() % 8), &base);
          pq_params p = dbp_params(is32, bs, mbs, (int64_t)n);
          p.lenient = is32 && (w == 33 || mixed);
          for (int b = 0; b < nreads; b++, runs++) {
            bad += !fixed_reads(&p, in, s.len, batch_reads[b][0],
                                batch_reads[b][1], vals, n);
          }
          free(base);
          free(vals);
          pq_buf_free(&s);
        }
      }
      CHECK(bad == 0 && runs > 0,
            "%s width %d: %d of %d streams read in fixed batches differ",
            is32 ? "INT32" : "INT64", w, bad, runs);
    }
  }
}

/* INT64 values whose low 32 bits wrap inside blocks, which the path that
** sums in 32 bits must leave to the other: sorted timestamps, descending
** ones (a negative min delta), steps of 2^24 (the near path's limit within
** a block) and of 2^27 (past it), and values through INT64_MAX. */
static void test_dbp_near(void) {
  size_t n = 6000;
  int64_t *v = malloc(8 * n);
  int bad = 0, runs = 0;
  for (int kind = 0; kind < 5; kind++) {
    uint64_t x =
        kind == 4 ? (uint64_t)INT64_MAX - 300000 : ((uint64_t)7 << 32) - 300000;
    for (size_t i = 0; i < n; i++) {
      v[i] = (int64_t)x;
      switch (kind) {
        case 0: x += 1000 + rnd() % 1000; break;
        case 1: x -= 1000 + rnd() % 1000; break;
        case 2: x += ((uint64_t)1 << 24) - 1 - rnd() % 1024; break;
        case 3: x += ((uint64_t)1 << 27) + rnd() % ((uint64_t)1 << 20); break;
        default: x += 100 + rnd() % 50; break;
      }
    }
    for (int sh = 0; sh < 2; sh++) {
      pq_params p = dbp_params(0, sh ? 256 : 128, sh ? 8 : 4, (int64_t)n);
      pq_buf s;
      pq_buf_init(&s);
      if (encode_values(&p, v, n, 8, &s) != PQ_OK) {
        bad++;
      } else {
        uint8_t *base, *in = place(s.data, s.len, 0, &base);
        for (size_t b = 0; b < sizeof batch_reads / sizeof batch_reads[0];
             b++, runs++) {
          bad += !fixed_reads(&p, in, s.len, batch_reads[b][0],
                              batch_reads[b][1], v, n);
        }
        free(base);
      }
      pq_buf_free(&s);
    }
  }
  free(v);
  CHECK(bad == 0 && runs > 0,
        "INT64 values wrapping 2^32: %d of %d reads differ", bad, runs);
}

/* ---- 5. DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY ------------------ */

enum { SHAPE_RANDOM, SHAPE_SORTED, SHAPE_LONG, SHAPE_SAME, SHAPE_EMPTY,
       SHAPE_MIXED, NSHAPES };
static const char *const shape_names[NSHAPES] = {
    "random", "sorted", "long", "same", "empty", "mixed"};

/* n values of a shape into heap (room for n * 300 bytes): short random
** ones, sorted keys that share prefixes (up to and past 64 bytes), long
** ones, the same value over and over, empty ones, or a mix. */
static void make_strings(int shape, size_t n, pq_bytes *v, uint8_t *heap,
                         size_t fixed) {
  size_t h = 0;
  for (size_t i = 0; i < n; i++) {
    uint8_t *s = heap + h;
    size_t len;
    int kind = shape == SHAPE_MIXED ? (int)(rnd() % 5) : shape;
    switch (kind) {
      case SHAPE_SORTED: { /* a stem of 0..100 bytes and a counter */
        size_t stem = (i / 50) % 7 * 15 + (size_t)(rnd() % 3);
        for (size_t k = 0; k < stem; k++) s[k] = (uint8_t)('a' + k % 26);
        len = stem + (size_t)sprintf((char *)s + stem, "/%08zu", i * 7);
        if (rnd() % 4 == 0) s[len++] = (uint8_t)rnd();
        break;
      }
      case SHAPE_LONG:
        len = 60 + (size_t)(rnd() % 200);
        for (size_t k = 0; k < len; k++) s[k] = (uint8_t)rnd();
        if (i > 0 && rnd() % 2) { /* long shared prefix */
          size_t p = v[i - 1].len < len ? v[i - 1].len : len;
          p = (size_t)(rnd() % (p + 1));
          memcpy(s, v[i - 1].ptr, p);
        }
        break;
      case SHAPE_SAME:
        len = 40;
        memset(s, 'q', len);
        break;
      case SHAPE_EMPTY:
        len = rnd() % 5 == 0 ? 1 + (size_t)(rnd() % 3) : 0;
        for (size_t k = 0; k < len; k++) s[k] = (uint8_t)rnd();
        break;
      default:
        len = (size_t)(rnd() % 25);
        for (size_t k = 0; k < len; k++) s[k] = (uint8_t)('a' + rnd() % 3);
    }
    if (fixed) { /* FIXED_LEN_BYTE_ARRAY: cut or padded to the length */
      for (size_t k = len; k < fixed; k++) s[k] = (uint8_t)(k * 3);
      len = fixed;
    }
    v[i].ptr = s;
    v[i].len = len;
    h += len;
  }
}

/* Whether decoded BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY values are v. */
static int same_strings(const outcome *o, const pq_bytes *v, size_t n,
                        size_t fixed) {
  if (o->rc != PQ_OK || o->n != n) return 0;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *got;
    size_t len;
    if (fixed) {
      got = o->vals + i * fixed;
      len = fixed;
    } else {
      len = ((const pq_bytes *)(void *)o->vals)[i].len;
      got = o->strings.data + at;
      at += len;
    }
    if (len != v[i].len || (len && memcmp(got, v[i].ptr, len) != 0)) return 0;
  }
  return 1;
}

static void test_strings(void) {
  const pq_encoding encs[] = {PQ_DELTA_LENGTH_BYTE_ARRAY,
                              PQ_DELTA_BYTE_ARRAY, PQ_DELTA_BYTE_ARRAY};
  for (int e = 0; e < 3; e++) {
    size_t fixed = e == 2 ? 24 : 0;
    for (int shape = 0; shape < NSHAPES; shape++) {
      int bad = 0, disagree = 0, odd = 0, enc_differ = 0;
      for (int trial = 0; trial < 4; trial++) {
        size_t n = trial == 0 ? (size_t)(rnd() % 5) : 1 + (size_t)(rnd() % 3000);
        pq_bytes *v = malloc((n + 1) * sizeof *v);
        uint8_t *heap = malloc(n * 300 + 1);
        make_strings(shape, n, v, heap, fixed);
        uint8_t *flat = NULL;
        const void *vals = v;
        size_t vs = sizeof(pq_bytes);
        pq_params p;
        pq_params_init(&p);
        p.encoding = encs[e];
        p.type = fixed ? PQ_FIXED_LEN_BYTE_ARRAY : PQ_BYTE_ARRAY;
        p.type_length = fixed ? (int32_t)fixed : 0;
        p.type_set = 1;
        if (fixed) {
          flat = malloc(n * fixed + 1);
          for (size_t i = 0; i < n; i++) memcpy(flat + i * fixed, v[i].ptr, fixed);
          vals = flat;
          vs = fixed;
        }
        /* The encoder gives the same bytes both ways. */
        pq_buf s, s2;
        pq_buf_init(&s);
        pq_buf_init(&s2);
        uint64_t keep = rnd();
        simd(1);
        seed = keep;
        int rc1 = encode_values(&p, vals, n, vs, &s);
        simd(0);
        seed = keep;
        int rc2 = encode_values(&p, vals, n, vs, &s2);
        simd(1);
        enc_differ += rc1 != PQ_OK || rc2 != PQ_OK || s.len != s2.len ||
                      (s.len && memcmp(s.data, s2.data, s.len) != 0);
        /* Whole, at an odd offset. */
        uint8_t *base, *in = place(s.data, s.len, 1 + (size_t)(rnd() % 7),
                                   &base);
        outcome o;
        p.count = trial % 2 ? (int64_t)n : -1;
        disagree += !both_ways(&p, in, s.len, n + 4, &o);
        bad += !same_strings(&o, v, n, fixed);
        outcome_free(&o);
        free(base);
        /* Cut short, with the count given: every few bytes at first (the
        ** headers), then further apart the further in (each cut decodes
        ** all before it). */
        p.count = (int64_t)n;
        for (size_t cut = 0; cut < s.len;
             cut += 1 + (size_t)(rnd() % (41 + cut / 32))) {
          in = place(s.data, cut, (size_t)(rnd() % 4), &base);
          disagree += !both_ways(&p, in, cut, n + 4, &o);
          odd += o.rc != PQ_OK && o.rc != PQ_CORRUPT;
          if (o.rc == PQ_OK) bad += !same_strings(&o, v, n, fixed);
          outcome_free(&o);
          free(base);
        }
        /* Corrupted. */
        for (int c = 0; c < 30 && s.len; c++) {
          in = place(s.data, s.len, 3, &base);
          int flips = 1 + (int)(rnd() % 3);
          for (int f = 0; f < flips; f++) in[rnd() % s.len] = (uint8_t)rnd();
          p.count = c % 2 ? (int64_t)n : -1;
          disagree += !both_ways(&p, in, s.len, n + 4, &o);
          odd += o.rc != PQ_OK && o.rc != PQ_CORRUPT;
          outcome_free(&o);
          free(base);
        }
        pq_buf_free(&s);
        pq_buf_free(&s2);
        free(flat);
        free(heap);
        free(v);
      }
      const char *name = pq_encoding_name(encs[e]);
      CHECK(bad == 0, "%s%s %s: %d decodes differ from the values", name,
            fixed ? " FLBA" : "", shape_names[shape], bad);
      CHECK(disagree == 0,
            "%s%s %s: the fast paths and PQ_SIMD=none disagree %d times", name,
            fixed ? " FLBA" : "", shape_names[shape], disagree);
      CHECK(odd == 0, "%s%s %s: %d odd statuses", name, fixed ? " FLBA" : "",
            shape_names[shape], odd);
      CHECK(enc_differ == 0,
            "%s%s %s: the encoder's bytes depend on PQ_SIMD (%d times)", name,
            fixed ? " FLBA" : "", shape_names[shape], enc_differ);
    }
  }
}

/* Streams written by hand with lengths the encoder never writes: negative
** and too long suffixes, prefixes longer than the value before, FIXED_LEN
** values of the wrong length, at every position of a batch. */
static void test_bad_lengths(void) {
  int disagree = 0, wrong = 0, runs = 0;
  for (int trial = 0; trial < 200; trial++) {
    int fixed = trial % 3 == 2;
    size_t n = 1 + (size_t)(rnd() % 1500);
    int32_t *pre = malloc(n * 4), *suf = malloc(n * 4);
    size_t data = 0, prev = 0;
    for (size_t i = 0; i < n; i++) {
      pre[i] = fixed ? (int32_t)(i ? 5 : 0) : (int32_t)(rnd() % (prev + 1));
      suf[i] = fixed ? (int32_t)(i ? 11 : 16) : (int32_t)(rnd() % 70);
      prev = (size_t)pre[i] + (size_t)suf[i];
      data += (size_t)suf[i];
    }
    /* One bad length somewhere. */
    size_t at = (size_t)(rnd() % n);
    int32_t before = at ? pre[at - 1] + suf[at - 1] : 0;
    switch (trial % 5) {
      case 0: pre[at] = -1 - (int32_t)(rnd() % 5); break;
      case 1: suf[at] = -1; break;
      case 2: pre[at] = before + 1 + (int32_t)(rnd() % 3); break;
      case 3: suf[at] += 2; break; /* the bytes then run out */
      default: break; /* the bytes end early (below) */
    }
    /* The streams: lengths through the encoder (any INT32 goes). */
    pq_buf s;
    pq_buf_init(&s);
    pq_params lp;
    pq_params_init(&lp);
    lp.encoding = PQ_DELTA_BINARY_PACKED;
    lp.type = PQ_INT32;
    lp.type_set = 1;
    encode_values(&lp, pre, n, 4, &s);
    encode_values(&lp, suf, n, 4, &s);
    size_t keep = data;
    if (trial % 5 == 4) keep = data - (size_t)(rnd() % (data + 1));
    for (size_t i = 0; i < keep; i++) pq_buf_append(&s, "x", 1);
    pq_params p;
    pq_params_init(&p);
    p.encoding = PQ_DELTA_BYTE_ARRAY;
    p.type = fixed ? PQ_FIXED_LEN_BYTE_ARRAY : PQ_BYTE_ARRAY;
    p.type_length = fixed ? 16 : 0;
    p.type_set = 1;
    p.count = (int64_t)n;
    uint8_t *base, *in = place(s.data, s.len, (size_t)(rnd() % 9), &base);
    outcome o;
    disagree += !both_ways(&p, in, s.len, n + 4, &o);
    if (trial % 5 != 4 || keep < data) wrong += o.rc != PQ_CORRUPT;
    outcome_free(&o);
    runs++;
    free(base);
    pq_buf_free(&s);
    free(pre);
    free(suf);
  }
  CHECK(disagree == 0,
        "DELTA_BYTE_ARRAY with bad lengths: the fast paths and PQ_SIMD=none "
        "disagree %d times of %d",
        disagree, runs);
  CHECK(wrong == 0, "DELTA_BYTE_ARRAY with bad lengths: %d not reported",
        wrong);
}

/* ---- 6. The encoders ----------------------------------------------------- */

static void test_encoders(void) {
  static const uint64_t shapes[][2] = {{128, 4}, {256, 8}, {8, 1}, {96, 4}};
  int differ = 0, bad_ref = 0, runs = 0;
  for (int is32 = 0; is32 < 2; is32++) {
    for (int kind = 0; kind < 8; kind++) {
      for (int sh = 0; sh < 4; sh++) {
        size_t n = (size_t)(rnd() % 3000);
        int64_t *v = malloc(8 * (n + 1));
        int64_t acc = (int64_t)rnd();
        for (size_t i = 0; i < n; i++) {
          uint64_t r = rnd();
          int64_t x;
          switch (kind) {
            case 0: x = (int64_t)r; break;                       /* random */
            case 1: x = acc += (int64_t)(r % 1000); break;       /* sorted */
            case 2: x = i % 2 ? INT64_MIN : INT64_MAX; break;    /* extremes */
            case 3: x = 42; break;                               /* constant */
            case 4: x = acc -= (int64_t)(r % 77); break;         /* falling */
            case 5: x = (int64_t)(r >> (r % 64)); break;         /* any width */
            case 6: x = i % 100 == 0 ? (int64_t)r : acc++; break; /* jumps */
            default: x = (int64_t)(r % 3) - 1; break;
          }
          if (is32) {
            ((int32_t *)v)[i] = (int32_t)(uint32_t)(uint64_t)x;
          } else {
            v[i] = x;
          }
        }
        pq_params p = dbp_params(is32, shapes[sh][0], shapes[sh][1], -1);
        pq_buf a, b, c;
        pq_buf_init(&a);
        pq_buf_init(&b);
        pq_buf_init(&c);
        uint64_t keep = rnd();
        size_t vs = is32 ? 4 : 8;
        simd(1);
        seed = keep;
        encode_values(&p, v, n, vs, &a);
        simd(0);
        seed = keep;
        encode_values(&p, v, n, vs, &b);
        simd(1);
        /* All at once, too. */
        pq_encoder *e;
        pq_error err;
        if (pq_encoder_open(&e, &p, &err) == PQ_OK) {
          pq_encoder_put(e, v, n, &err);
          pq_encoder_finish(e, &c, NULL, &err);
          pq_encoder_free(e);
        }
        differ += a.len != b.len || a.len != c.len ||
                  memcmp(a.data, b.data, a.len) != 0 ||
                  memcmp(a.data, c.data, a.len) != 0;
        int64_t *back = malloc(8 * (n + 1));
        size_t got = 0;
        bad_ref += ref_dbp(a.data, a.len, is32, back, n, &got) != a.len ||
                   got != n || memcmp(back, v, n * vs) != 0;
        runs++;
        free(back);
        free(v);
        pq_buf_free(&a);
        pq_buf_free(&b);
        pq_buf_free(&c);
      }
    }
  }
  CHECK(differ == 0,
        "DELTA_BINARY_PACKED encoder: bytes depend on PQ_SIMD or on the "
        "batches (%d of %d)",
        differ, runs);
  CHECK(bad_ref == 0,
        "DELTA_BINARY_PACKED encoder: the reference decoder reads other "
        "values (%d of %d)",
        bad_ref, runs);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  test_unpack();
  test_size_walk();
  test_dbp();
  test_dbp_batches();
  test_dbp_near();
  test_strings();
  test_bad_lengths();
  test_encoders();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
