/*
** unit_alp.c -- ALP (src/encodings/alp.c, spec/AlpEncoding.md).
**
**   1. the powers of ten against strtod/strtof of their decimal text
**   2. the spec's worked example, to the byte, both ways
**   3. a slow reference decoder (below) against the decoder on random
**      well-formed streams: every exponent, factor, bit width, frames of
**      reference at the edges, exceptions, every log_vector_size; with and
**      without the AVX2 paths (PQ_SIMD=none)
**   4. round trips, compared as bits: random bit patterns, decimals of 0
**      to 18 digits, powers of two and their neighbours, NaN payloads,
**      infinities, -0.0, denormals; every forced (exponent, factor); the
**      lengths around every vector size; batches of 1, 7, 1000 values
**   5. the options: vector_size, exponent, factor and their errors
**   6. malformed streams: each fault its error, naming the vector; every
**      truncation fails cleanly (the sanitizer build checks "cleanly")
**   7. the ALP pages of ../shared/alp-testing against their CSV values
**
** Run from the root of the repository.  Prints a line per failure
** starting with "!" and ends with "N passed, N failed".
*/
#define _POSIX_C_SOURCE 200809L /* setenv, strdup */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/format.h"

#define CHECK_FILES
#include "check.h"

/* ---- Helpers ------------------------------------------------------------- */

static pq_params alp_params(pq_type t) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = PQ_ALP;
  p.type = t;
  p.type_set = 1;
  return p;
}

static size_t vsize(pq_type t) { return t == PQ_DOUBLE ? 8 : 4; }

static int encode_all(const pq_params *p, const void *v, size_t n, pq_buf *out,
                      pq_error *err) {
  pq_encoder *e;
  int rc = pq_encoder_open(&e, p, err);
  if (rc) return rc;
  /* Pieces of varying size, so that vectors span puts. */
  size_t i = 0, step = 1;
  while (i < n && rc == PQ_OK) {
    size_t k = n - i < step ? n - i : step;
    rc = pq_encoder_put(e, (const uint8_t *)v + i * vsize(p->type), k, err);
    i += k;
    step = step * 5 + 3;
  }
  if (rc == PQ_OK) rc = pq_encoder_finish(e, out, NULL, err);
  pq_encoder_free(e);
  return rc;
}

/* Decodes in batches of `batch` values (0: all at once) into out (room for
** max); *n values. */
static int decode_all(const pq_params *p, const uint8_t *buf, size_t len,
                      size_t batch, void *out, size_t max, size_t *n,
                      pq_error *err) {
  pq_decoder *d;
  *n = 0;
  int rc = pq_decoder_open(&d, p, buf, len, NULL, 0, err);
  if (rc) return rc;
  size_t vs = vsize(p->type);
  for (;;) {
    size_t want = batch ? batch : max - *n, got;
    if (want > max - *n) want = max - *n;
    if (want == 0) {
      uint8_t extra[8];
      rc = pq_decoder_read(d, extra, 1, &got, err);
      if (rc == PQ_OK && got) rc = -1; /* more values than room */
      break;
    }
    rc = pq_decoder_read(d, (uint8_t *)out + *n * vs, want, &got, err);
    if (rc || got == 0) break;
    *n += got;
  }
  pq_decoder_free(d);
  return rc;
}

/* Index of the first value whose bits differ, or n. */
static size_t first_diff(const void *a, const void *b, size_t n, size_t vs) {
  for (size_t i = 0; i < n; i++)
    if (memcmp((const uint8_t *)a + i * vs, (const uint8_t *)b + i * vs, vs))
      return i;
  return n;
}

static double dfrom(uint64_t u) {
  double x;
  memcpy(&x, &u, 8);
  return x;
}
static float ffrom(uint32_t u) {
  float x;
  memcpy(&x, &u, 4);
  return x;
}

/* PQ_SIMD as the run began: the tests set it to "none" to run the portable
** paths, then put it back. */
static char *simd_env;
static void restore_simd(void) {
  if (simd_env)
    setenv("PQ_SIMD", simd_env, 1);
  else
    unsetenv("PQ_SIMD");
}

/* ---- 1. Powers of ten ---------------------------------------------------- */

static double REF10[19], REFN10[19];
static float REF10F[11], REFN10F[11];

static void test_powers(void) {
  const double *p = pq_alp_pow10(0), *q = pq_alp_pow10(1);
  const float *pf = pq_alp_pow10f(0), *qf = pq_alp_pow10f(1);
  for (int k = 0; k <= 18; k++) {
    char s[16];
    snprintf(s, sizeof s, "1e%d", k);
    REF10[k] = strtod(s, NULL);
    snprintf(s, sizeof s, "1e-%d", k);
    REFN10[k] = strtod(s, NULL);
    CHECK(memcmp(&p[k], &REF10[k], 8) == 0, "10^%d is %a, strtod %a", k, p[k],
          REF10[k]);
    CHECK(memcmp(&q[k], &REFN10[k], 8) == 0, "10^-%d is %a, strtod %a", k,
          q[k], REFN10[k]);
    if (k > 10) continue;
    snprintf(s, sizeof s, "1e%d", k);
    REF10F[k] = strtof(s, NULL);
    snprintf(s, sizeof s, "1e-%d", k);
    REFN10F[k] = strtof(s, NULL);
    CHECK(memcmp(&pf[k], &REF10F[k], 4) == 0, "float 10^%d", k);
    CHECK(memcmp(&qf[k], &REFN10F[k], 4) == 0, "float 10^-%d is %a, strtof %a",
          k, (double)qf[k], (double)REFN10F[k]);
  }
}

/* ---- A reference decoder --------------------------------------------------
** The spec's "Decoding", one value at a time, for well-formed streams
** only: returns the count, or -1 when a bound is broken. */

static long ref_decode(const uint8_t *b, size_t len, int dbl, void *out) {
  if (len < 7 || b[0] || b[1] || b[2] < 3 || b[2] > 15) return -1;
  uint32_t vs = 1u << b[2];
  int32_t total = (int32_t)pq_load32(b + 3);
  if (total < 0) return -1;
  uint32_t nvec = ((uint32_t)total + vs - 1) / vs;
  size_t hdr = dbl ? 13 : 9, sz = dbl ? 8 : 4;
  if (7 + (uint64_t)nvec * 4 > len) return -1;
  for (uint32_t k = 0; k < nvec; k++) {
    uint32_t n = k + 1 < nvec ? vs : (uint32_t)total - k * vs;
    size_t at = 7 + (size_t)pq_load32(b + 7 + 4 * k);
    if (at > len || len - at < hdr) return -1;
    const uint8_t *h = b + at;
    int e = h[0], f = h[1], w = h[hdr - 1];
    unsigned nexc = h[2] | (unsigned)h[3] << 8;
    if (e > (dbl ? 18 : 10) || f > e || w > (dbl ? 64 : 32) || nexc > n)
      return -1;
    size_t packed = ((size_t)n * w + 7) / 8;
    if (len - at - hdr < packed + nexc * (2 + sz)) return -1;
    uint64_t *d = malloc(n * sizeof *d);
    pq_unpack_lsb(h + hdr, 0, w, n, d);
    for (uint32_t i = 0; i < n; i++) {
      if (dbl) {
        int64_t q = (int64_t)(pq_load64(h + 4) + d[i]);
        ((double *)out)[(size_t)k * vs + i] = (double)q * REF10[f] * REFN10[e];
      } else {
        int32_t q = (int32_t)(pq_load32(h + 4) + (uint32_t)d[i]);
        ((float *)out)[(size_t)k * vs + i] = (float)q * REF10F[f] * REFN10F[e];
      }
    }
    free(d);
    const uint8_t *pos = h + hdr + packed, *val = pos + 2 * nexc;
    for (unsigned j = 0; j < nexc; j++) {
      unsigned p = pos[2 * j] | (unsigned)pos[2 * j + 1] << 8;
      if (p >= n) return -1;
      uint8_t *o = (uint8_t *)out + ((size_t)k * vs + p) * sz;
      if (dbl) {
        uint64_t u = pq_load64(val + 8 * j);
        memcpy(o, &u, 8);
      } else {
        uint32_t u = pq_load32(val + 4 * j);
        memcpy(o, &u, 4);
      }
    }
  }
  return total;
}

/* ---- 2. The spec's worked example ---------------------------------------- */

/* The 42-byte page of "Worked Example: Exceptions and Non-Zero Factor":
** the header (vector size 1024, the default), the one offset, AlpInfo
** (e 4, f 3, 1 exception), ForInfo (3335, 15 bits), the deltas 11665,
** 11665, 21665, 0 in 15 bits each, position 1, NaN's bits. */
static const uint8_t SPEC_PAGE[42] = {
    0x00, 0x00, 0x0a, 0x04, 0x00, 0x00, 0x00,             /* header */
    0x04, 0x00, 0x00, 0x00,                               /* offset */
    0x04, 0x03, 0x01, 0x00,                               /* AlpInfo */
    0x07, 0x0d, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, /* ForInfo */
    0x91, 0xad, 0xc8, 0x56, 0x28, 0x15, 0x00, 0x00,       /* packed */
    0x01, 0x00,                                           /* positions */
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf8, 0x7f,       /* NaN */
};

static void test_spec_example(void) {
  /* The packed bytes from the deltas, by the reference bit order. */
  uint64_t deltas[4] = {11665, 11665, 21665, 0}, back[4];
  pq_unpack_lsb(SPEC_PAGE + 24, 0, 15, 4, back);
  CHECK(memcmp(deltas, back, sizeof back) == 0, "spec example: packed deltas");

  double v[4] = {1500.0, dfrom(0x7ff8000000000000ull), 2500.0, 333.5};
  pq_params p = alp_params(PQ_DOUBLE);
  p.exponent = 4;
  p.factor = 3;
  pq_buf out;
  pq_buf_init(&out);
  pq_error err;
  int rc = encode_all(&p, v, 4, &out, &err);
  CHECK(rc == 0 && out.len == sizeof SPEC_PAGE &&
            memcmp(out.data, SPEC_PAGE, sizeof SPEC_PAGE) == 0,
        "spec example: encoded %zu bytes (%s)", out.len, rc ? err.msg : "");
  pq_buf_free(&out);

  /* The same options as JSON. */
  pq_params q = alp_params(PQ_DOUBLE);
  const char *json = "{\"exponent\":4,\"factor\":3,\"vector_size\":1024}";
  rc = pq_params_parse_options(&q, json, strlen(json), &err);
  pq_buf_init(&out);
  if (rc == 0) rc = encode_all(&q, v, 4, &out, &err);
  CHECK(rc == 0 && out.len == sizeof SPEC_PAGE &&
            memcmp(out.data, SPEC_PAGE, sizeof SPEC_PAGE) == 0,
        "spec example from JSON options (%s)", rc ? err.msg : "");
  pq_buf_free(&out);

  for (size_t batch = 0; batch <= 3; batch++) {
    double got[4];
    size_t n;
    pq_params d = alp_params(PQ_DOUBLE);
    rc = decode_all(&d, SPEC_PAGE, sizeof SPEC_PAGE, batch, got, 4, &n, &err);
    CHECK(rc == 0 && n == 4 && first_diff(got, v, 4, 8) == 4,
          "spec example decoded in batches of %zu: %s", batch,
          rc ? err.msg : "values differ");
  }
  /* The encoder's own choice of pair decodes to the same bits. */
  pq_buf_init(&out);
  pq_params s = alp_params(PQ_DOUBLE);
  rc = encode_all(&s, v, 4, &out, &err);
  double got[4];
  size_t n = 0;
  if (rc == 0) rc = decode_all(&s, out.data, out.len, 0, got, 4, &n, &err);
  CHECK(rc == 0 && n == 4 && first_diff(got, v, 4, 8) == 4 &&
            out.len <= sizeof SPEC_PAGE,
        "spec values, searched: %zu bytes (%s)", out.len, rc ? err.msg : "");
  pq_buf_free(&out);
}

/* ---- 3. The decoder against the reference on random streams -------------- */

static uint8_t *big_a, *big_b, *big_c;
#define BIG (1u << 20) /* values */

static void put_le(pq_buf *b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++) pq_buf_byte(b, (uint8_t)(v >> (8 * i)));
}

/* A well-formed page of `total` values in vectors of 2^log_vs, each with
** random parameters (the bit width `force_w` unless it is -1); `edge` picks
** frames of reference at the limits of the decoder's fast path (+-2^51)
** and of the integer type. */
static void random_page(pq_buf *b, int dbl, int log_vs, uint32_t total,
                        int edge, int force_w) {
  uint32_t vs = 1u << log_vs, nvec = (total + vs - 1) / vs;
  pq_buf body;
  pq_buf_init(&body);
  put_le(b, 0, 1);
  put_le(b, 0, 1);
  put_le(b, (uint64_t)log_vs, 1);
  put_le(b, total, 4);
  uint32_t *sizes = calloc(nvec + 1, 4);
  for (uint32_t k = 0; k < nvec; k++) {
    uint32_t n = k + 1 < nvec ? vs : total - k * vs;
    size_t start = body.len;
    int maxw = dbl ? 64 : 32;
    int e = (int)(rnd() % (dbl ? 19 : 11)), f = (int)(rnd() % (e + 1));
    int w = (int)(rnd() % (maxw + 1));
    if (rnd() % 3 == 0) w = (int)(rnd() % 24);
    if (force_w >= 0) w = force_w;
    uint64_t ref = rnd();
    if (w < maxw && rnd() % 2) ref = (uint64_t)((int64_t)ref >> (rnd() % 64));
    if (edge) {
      uint64_t span = (uint64_t)1 << 51;
      uint64_t wmax = w == 64 ? ~0ull : ((uint64_t)1 << w) - 1;
      switch (rnd() % 6) {
        case 0: ref = (uint64_t)0 - span; break;
        case 1: ref = (uint64_t)0 - span - 1; break;
        case 2: ref = span - wmax; break;
        case 3: ref = span - wmax + 1; break;
        case 4: ref = dbl ? (uint64_t)INT64_MIN : (uint64_t)(uint32_t)INT32_MIN;
          break;
        default: ref = dbl ? (uint64_t)INT64_MAX - wmax
                           : (uint64_t)(uint32_t)(INT32_MAX - (int64_t)wmax);
      }
    }
    unsigned nexc = rnd() % 4 == 0 ? (unsigned)(rnd() % (n + 1)) : 0;
    put_le(&body, (uint64_t)e, 1);
    put_le(&body, (uint64_t)f, 1);
    put_le(&body, nexc, 2);
    put_le(&body, ref, dbl ? 8 : 4);
    put_le(&body, (uint64_t)w, 1);
    size_t packed = ((size_t)n * w + 7) / 8;
    uint8_t *pk = calloc(packed + 1, 1);
    uint64_t bit = 0;
    for (uint32_t i = 0; i < n; i++) {
      uint64_t v = rnd();
      if (w < 64) v &= ((uint64_t)1 << w) - 1;
      if (rnd() % 8 == 0 && w > 0) v = w == 64 ? ~0ull : ((uint64_t)1 << w) - 1;
      for (int j = 0; j < w; j++, bit++)
        pk[bit / 8] |= (uint8_t)(((v >> j) & 1) << (bit % 8));
    }
    pq_buf_append(&body, pk, packed);
    free(pk);
    for (unsigned j = 0; j < nexc; j++) put_le(&body, rnd() % n, 2);
    for (unsigned j = 0; j < nexc; j++) put_le(&body, rnd(), dbl ? 8 : 4);
    sizes[k] = (uint32_t)(body.len - start);
  }
  uint32_t off = nvec * 4;
  for (uint32_t k = 0; k < nvec; k++) {
    put_le(b, off, 4);
    off += sizes[k];
  }
  pq_buf_append(b, body.data, body.len);
  pq_buf_free(&body);
  free(sizes);
}

static void test_reference(void) {
  int bad = 0, cases = 0;
  for (int simd = 0; simd < 2; simd++) {
    if (simd)
      restore_simd();
    else
      setenv("PQ_SIMD", "none", 1);
    for (int dbl = 0; dbl < 2; dbl++) {
      pq_type t = dbl ? PQ_DOUBLE : PQ_FLOAT;
      for (int log_vs = 3; log_vs <= 15; log_vs++) {
        for (int round = 0; round < 6; round++) {
          uint32_t vs = 1u << log_vs;
          uint32_t total = round == 0   ? 0
                           : round == 1 ? 1
                           : round == 2 ? vs - 1
                           : round == 3 ? vs + 1
                                        : (uint32_t)(rnd() % (3 * vs + 100));
          if (log_vs > 12 && round >= 4) total = (uint32_t)(rnd() % 70000);
          pq_buf b;
          pq_buf_init(&b);
          random_page(&b, dbl, log_vs, total, round == 5, -1);
          long want = ref_decode(b.data, b.len, dbl, big_a);
          size_t n = 0;
          pq_error err;
          pq_params p = alp_params(t);
          size_t batch = (size_t[]){0, 1, 7, 1000}[rnd() % 4];
          int rc = decode_all(&p, b.data, b.len, batch, big_b, BIG, &n, &err);
          cases++;
          if (want != (long)total || rc != 0 || n != total ||
              first_diff(big_a, big_b, n, vsize(t)) != n) {
            if (bad++ < 5)
              CHECK(0, "reference: %s log_vs %d total %u simd %d: %s (%zu "
                    "values, first difference at %zu)",
                    pq_type_name(t), log_vs, total, simd,
                    rc ? err.msg : "differs", n,
                    first_diff(big_a, big_b, n, vsize(t)));
          }
          pq_buf_free(&b);
        }
      }
    }
  }
  /* Every bit width of each type, at the edges and not. */
  for (int simd = 0; simd < 2; simd++) {
    if (simd)
      restore_simd();
    else
      setenv("PQ_SIMD", "none", 1);
    for (int dbl = 0; dbl < 2; dbl++) {
      pq_type t = dbl ? PQ_DOUBLE : PQ_FLOAT;
      for (int w = 0; w <= (dbl ? 64 : 32); w++) {
        for (int edge = 0; edge < 2; edge++) {
          pq_buf b;
          pq_buf_init(&b);
          uint32_t total = 3 * 64 + 17; /* three whole vectors, a short one */
          random_page(&b, dbl, 6, total, edge, w);
          long want = ref_decode(b.data, b.len, dbl, big_a);
          size_t n = 0;
          pq_error err;
          pq_params p = alp_params(t);
          int rc = decode_all(&p, b.data, b.len, 0, big_b, BIG, &n, &err);
          cases++;
          if (want != (long)total || rc != 0 || n != total ||
              first_diff(big_a, big_b, n, vsize(t)) != n) {
            if (bad++ < 5)
              CHECK(0, "reference: %s width %d edge %d simd %d: %s",
                    pq_type_name(t), w, edge, simd, rc ? err.msg : "differs");
          }
          pq_buf_free(&b);
        }
      }
    }
  }
  restore_simd();
  CHECK(bad == 0, "reference: %d of %d random pages differ", bad, cases);
}

/* ---- 4. Round trips ------------------------------------------------------ */

enum {
  GEN_BITS,     /* random bit patterns */
  GEN_DECIMAL,  /* decimals of 0..18 digits after the point */
  GEN_PRICES,   /* round(random * 10000) / 100 */
  GEN_SPECIAL,  /* powers of two and neighbours, NaNs, infinities, zeros,
                ** denormals */
  GEN_MIXED,    /* decimals with specials among them */
  GEN_CONST,    /* one value */
  GENS
};

/* One special value, picked by r. */
static double special_d(uint64_t r) {
  static const double pw[] = {0x1p23, 0x1p24, 0x1p31, 0x1p32, 0x1p51,
                              0x1p52, 0x1p53, 0x1p62, 0x1p63, 0x1p64};
  switch (r % 8) {
    case 0: {
      double x = pw[(r >> 3) % 10];
      int step = (int)((r >> 8) % 5) - 2;
      for (; step > 0; step--) x = nextafter(x, INFINITY);
      for (; step < 0; step++) x = nextafter(x, 0);
      return (r >> 12) & 1 ? -x : x;
    }
    case 1: /* NaN with a payload, either sign, quiet or signalling */
      return dfrom(0x7ff0000000000000ull | ((r >> 3) & 0x800fffffffffffffull) |
                   1);
    case 2: return (r >> 3) & 1 ? -INFINITY : INFINITY;
    case 3: return (r >> 3) & 1 ? -0.0 : 0.0;
    case 4: return dfrom((r >> 4) & 0x800fffffffffffffull); /* denormal */
    case 5: return (r >> 3) & 1 ? DBL_MAX : -DBL_MIN;
    case 6: return (double)(int64_t)(r >> 3) * ((r & 8) ? 1 : -1);
    default: return 9223372036854775807.0 * ((r >> 3) & 1 ? -1 : 1);
  }
}

static float special_f(uint64_t r) {
  static const float pw[] = {0x1p23f, 0x1p24f, 0x1p30f, 0x1p31f, 0x1p32f};
  switch (r % 7) {
    case 0: {
      float x = pw[(r >> 3) % 5];
      int step = (int)((r >> 8) % 5) - 2;
      for (; step > 0; step--) x = nextafterf(x, INFINITY);
      for (; step < 0; step++) x = nextafterf(x, 0);
      return (r >> 12) & 1 ? -x : x;
    }
    case 1:
      return ffrom(0x7f800000u | ((uint32_t)(r >> 3) & 0x807fffffu) | 1);
    case 2: return (r >> 3) & 1 ? -INFINITY : INFINITY;
    case 3: return (r >> 3) & 1 ? -0.0f : 0.0f;
    case 4: return ffrom((uint32_t)(r >> 4) & 0x807fffffu);
    case 5: return (r >> 3) & 1 ? FLT_MAX : -FLT_MIN;
    default: return (float)(int32_t)(r >> 3);
  }
}

/* A decimal with `digits` digits after the point and up to 15 significant
** ones, as a parser would read it. */
static double decimal_d(int digits) {
  char s[64];
  int sig = 1 + (int)(rnd() % 15);
  uint64_t m = rnd() % (uint64_t)pow(10, sig);
  snprintf(s, sizeof s, "%s%llue-%d", rnd() % 4 ? "" : "-",
           (unsigned long long)m, digits);
  return strtod(s, NULL);
}
static float decimal_f(int digits) {
  char s[64];
  int sig = 1 + (int)(rnd() % 7);
  uint64_t m = rnd() % (uint64_t)pow(10, sig);
  snprintf(s, sizeof s, "%s%llue-%d", rnd() % 4 ? "" : "-",
           (unsigned long long)m, digits);
  return strtof(s, NULL);
}

static void gen(pq_type t, int g, void *out, size_t n) {
  int digits = (int)(rnd() % 19);
  double cd = decimal_d(2);
  for (size_t i = 0; i < n; i++) {
    uint64_t r = rnd();
    if (t == PQ_DOUBLE) {
      double x;
      switch (g) {
        case GEN_BITS: x = dfrom(r); break;
        case GEN_DECIMAL: x = decimal_d(i % 64 == 0 ? (int)(r % 19) : digits);
          break;
        case GEN_PRICES: x = (double)(int64_t)(r % 1000001) / 100; break;
        case GEN_SPECIAL: x = special_d(r); break;
        case GEN_MIXED: x = r % 16 ? decimal_d(digits % 6) : special_d(r >> 4);
          break;
        default: x = cd;
      }
      ((double *)out)[i] = x;
    } else {
      float x;
      switch (g) {
        case GEN_BITS: x = ffrom((uint32_t)r); break;
        case GEN_DECIMAL: x = decimal_f(i % 64 == 0 ? (int)(r % 11) : digits % 11);
          break;
        case GEN_PRICES: x = (float)(int64_t)(r % 100001) / 100; break;
        case GEN_SPECIAL: x = special_f(r); break;
        case GEN_MIXED: x = r % 16 ? decimal_f(digits % 4) : special_f(r >> 4);
          break;
        default: x = (float)cd;
      }
      ((float *)out)[i] = x;
    }
  }
}

/* Encodes v[0..n) with p, decodes in batches of `batch`, compares bits;
** also against the reference decoder.  Returns the encoded size. */
static size_t round_trip(const char *tag, const pq_params *p, const void *v,
                         size_t n, size_t batch) {
  pq_buf out;
  pq_buf_init(&out);
  pq_error err;
  size_t vs = vsize(p->type);
  int rc = encode_all(p, v, n, &out, &err);
  size_t got = 0;
  if (rc == 0) rc = decode_all(p, out.data, out.len, batch, big_b, BIG, &got,
                               &err);
  size_t at = rc == 0 ? first_diff(v, big_b, n, vs) : 0;
  CHECK(rc == 0 && got == n && at == n,
        "%s: %s n=%zu e=%d f=%d vector_size=%lld batch=%zu: %s (%zu values, "
        "first difference at %zu)",
        tag, pq_type_name(p->type), n, p->exponent, p->factor,
        (long long)p->vector_size, batch, rc ? err.msg : "values differ", got,
        at);
  if (rc == 0) {
    long r = ref_decode(out.data, out.len, p->type == PQ_DOUBLE, big_c);
    CHECK(r == (long)n && first_diff(v, big_c, n, vs) == n,
          "%s: %s n=%zu: the reference decoder disagrees", tag,
          pq_type_name(p->type), n);
  }
  size_t size = out.len;
  pq_buf_free(&out);
  return size;
}

static void test_round_trips(void) {
  static const size_t batches[] = {0, 1, 7, 1000};
  for (int dbl = 0; dbl < 2; dbl++) {
    pq_type t = dbl ? PQ_DOUBLE : PQ_FLOAT;
    /* Every vector size, the lengths around it, every kind of data. */
    for (int log_vs = 3; log_vs <= 15; log_vs++) {
      size_t vs = (size_t)1 << log_vs;
      size_t lens[] = {0, 1, vs - 1, vs, vs + 1, 3 * vs + 5};
      for (size_t l = 0; l < 6; l++) {
        for (int g = 0; g < GENS; g++) {
          if (log_vs > 11 && l == 5 && g != GEN_MIXED) continue;
          pq_params p = alp_params(t);
          p.vector_size = (int64_t)vs;
          gen(t, g, big_a, lens[l]);
          round_trip("vector sizes", &p, big_a, lens[l],
                     batches[rnd() % 4]);
        }
      }
    }
    /* Batches across vectors, by every batch size. */
    for (size_t b = 0; b < 4; b++) {
      for (int g = 0; g < GENS; g++) {
        pq_params p = alp_params(t);
        gen(t, g, big_a, 5000);
        round_trip("batches", &p, big_a, 5000, batches[b]);
      }
    }
    /* Every forced pair on the same vectors. */
    int maxe = dbl ? 18 : 10;
    for (int g = 0; g < GENS; g++) {
      gen(t, g, big_a, 1500);
      for (int e = 0; e <= maxe; e++) {
        for (int f = 0; f <= e; f++) {
          pq_params p = alp_params(t);
          p.exponent = e;
          p.factor = f;
          round_trip("forced pair", &p, big_a, 1500, batches[(e + f) % 4]);
        }
      }
      /* One of the two forced, the other searched. */
      pq_params p = alp_params(t);
      p.exponent = maxe / 2;
      round_trip("forced exponent", &p, big_a, 1500, 0);
      p = alp_params(t);
      p.factor = 1;
      round_trip("forced factor", &p, big_a, 1500, 0);
    }
    /* Decimals of each number of digits alone. */
    for (int digits = 0; digits <= 18; digits++) {
      size_t n = 3000;
      for (size_t i = 0; i < n; i++) {
        if (dbl)
          ((double *)big_a)[i] = decimal_d(digits);
        else
          ((float *)big_a)[i] = decimal_f(digits > 10 ? 10 : digits);
      }
      pq_params p = alp_params(t);
      round_trip("decimals", &p, big_a, n, 0);
    }
    /* Data whose scale changes after the first vectors: the preset is
    ** replaced, the page stays small. */
    {
      size_t n = 40000;
      for (size_t i = 0; i < n; i++) {
        int64_t m = (int64_t)(rnd() % 100000);
        double x = i < 20000 ? (double)m / 100 : (double)m / 100000;
        if (dbl)
          ((double *)big_a)[i] = x;
        else
          ((float *)big_a)[i] = (float)((double)(m % 1000) / (i < 20000 ? 10 : 1000));
      }
      pq_params p = alp_params(t);
      size_t size = round_trip("changing scale", &p, big_a, n, 0);
      CHECK(size < n * (dbl ? 4 : 2), "changing scale: %s %zu bytes for %zu "
            "values", pq_type_name(t), size, n);
    }
    /* Prices compress: 1M of them in under 3 bytes each as DOUBLE.  As
    ** FLOAT, k * 10^f * 10^-e in FLOAT misses the correctly rounded k/100
    ** for about a quarter of them whatever the pair: under 4 bytes. */
    {
      size_t n = BIG;
      gen(t, GEN_PRICES, big_a, n);
      pq_params p = alp_params(t);
      size_t size = round_trip("prices", &p, big_a, n, 0);
      CHECK(size < n * (dbl ? 3 : 4), "prices: %s %zu bytes for %zu values",
            pq_type_name(t), size, n);
    }
  }
  /* The portable paths (PQ_SIMD=none) encode to the same bytes as the
  ** fast ones, and decode the same bits. */
  for (int dbl = 0; dbl < 2; dbl++) {
    pq_type t = dbl ? PQ_DOUBLE : PQ_FLOAT;
    for (int g = 0; g < GENS; g++) {
      gen(t, g, big_a, 20000);
      pq_params p = alp_params(t);
      pq_buf fast, slow;
      pq_buf_init(&fast);
      pq_buf_init(&slow);
      pq_error err;
      int rc = encode_all(&p, big_a, 20000, &fast, &err);
      setenv("PQ_SIMD", "none", 1);
      rc |= encode_all(&p, big_a, 20000, &slow, &err);
      restore_simd();
      CHECK(rc == 0 && fast.len == slow.len &&
                memcmp(fast.data, slow.data, fast.len) == 0,
            "%s data %d: the portable encoder writes other bytes (%zu, %zu)",
            pq_type_name(t), g, fast.len, slow.len);
      pq_buf_free(&fast);
      pq_buf_free(&slow);
    }
  }
  /* Bits the PQ_SIMD=none path decodes the same as the fast one. */
  for (int dbl = 0; dbl < 2; dbl++) {
    pq_type t = dbl ? PQ_DOUBLE : PQ_FLOAT;
    for (int g = 0; g < GENS; g++) {
      gen(t, g, big_a, 4000);
      pq_params p = alp_params(t);
      setenv("PQ_SIMD", "none", 1);
      round_trip("scalar", &p, big_a, 4000, 333);
      restore_simd();
    }
  }
}

/* ---- 5. Options ---------------------------------------------------------- */

static int open_with(pq_type t, const char *json, char *msg) {
  pq_params p = alp_params(t);
  pq_error err;
  msg[0] = 0;
  int rc = pq_params_parse_options(&p, json, strlen(json), &err);
  if (rc == 0) {
    pq_encoder *e;
    rc = pq_encoder_open(&e, &p, &err);
    if (rc == 0) pq_encoder_free(e);
  }
  if (rc) snprintf(msg, 256, "%s", err.msg);
  return rc;
}

static void test_options(void) {
  static const struct {
    pq_type t;
    const char *json;
    int rc;
    const char *words;
  } cases[] = {
      {PQ_DOUBLE, "{\"vector_size\":8}", 0, ""},
      {PQ_DOUBLE, "{\"vector_size\":32768}", 0, ""},
      {PQ_FLOAT, "{\"vector_size\":1024,\"exponent\":10,\"factor\":10}", 0, ""},
      {PQ_DOUBLE, "{\"exponent\":18,\"factor\":0}", 0, ""},
      {PQ_DOUBLE, "{\"exponent\":null,\"factor\":null,\"vector_size\":null}", 0,
       ""},
      {PQ_DOUBLE, "{\"vector_size\":100}", PQ_MISUSE,
       "ALP: vector_size 100 is not a power of two from 8 to 32768"},
      {PQ_DOUBLE, "{\"vector_size\":4}", PQ_MISUSE, "vector_size 4"},
      {PQ_DOUBLE, "{\"vector_size\":65536}", PQ_MISUSE, "vector_size 65536"},
      {PQ_DOUBLE, "{\"vector_size\":0}", PQ_MISUSE, "\"vector_size\" must be"},
      {PQ_FLOAT, "{\"exponent\":11}", PQ_MISUSE,
       "ALP: exponent 11 is above 10, the largest for FLOAT"},
      {PQ_FLOAT, "{\"factor\":11}", PQ_MISUSE, "factor 11 is above 10"},
      {PQ_DOUBLE, "{\"exponent\":19}", PQ_MISUSE,
       "\"exponent\" must be an integer from 0 to 18"},
      {PQ_DOUBLE, "{\"exponent\":3,\"factor\":4}", PQ_MISUSE,
       "ALP: factor 4 is above the exponent 3"},
      {PQ_DOUBLE, "{\"factor\":-1}", PQ_MISUSE, "\"factor\" must be"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char msg[256];
    int rc = open_with(cases[i].t, cases[i].json, msg);
    CHECK(rc == cases[i].rc && strstr(msg, cases[i].words),
          "options %s: %d '%s'", cases[i].json, rc, msg);
  }
  /* The vector size is the header's. */
  pq_params p = alp_params(PQ_DOUBLE);
  p.vector_size = 64;
  double v[100];
  for (int i = 0; i < 100; i++) v[i] = i / 4.0;
  pq_buf out;
  pq_buf_init(&out);
  pq_error err;
  int rc = encode_all(&p, v, 100, &out, &err);
  CHECK(rc == 0 && out.len > 7 && out.data[2] == 6 &&
            pq_load32(out.data + 3) == 100 && pq_load32(out.data + 7) == 8,
        "vector_size 64: header %02x, count %u", out.len > 7 ? out.data[2] : 0,
        out.len > 7 ? pq_load32(out.data + 3) : 0);
  pq_buf_free(&out);
  /* Other types are refused. */
  pq_params q = alp_params(PQ_INT64);
  pq_encoder *e;
  rc = pq_encoder_open(&e, &q, &err);
  CHECK(rc == PQ_MISUSE && strstr(err.msg, "INT64 is not supported"),
        "ALP INT64: %d %s", rc, err.msg);
  CHECK(pq_encoding_supports(PQ_ALP, PQ_FLOAT) &&
            pq_encoding_supports(PQ_ALP, PQ_DOUBLE) &&
            !pq_encoding_supports(PQ_ALP, PQ_INT32) &&
            pq_encoding_info_get(PQ_ALP)->implemented,
        "the catalogue lists ALP for FLOAT and DOUBLE, implemented");
  /* The empty page: the header alone. */
  pq_buf_init(&out);
  p = alp_params(PQ_FLOAT);
  rc = encode_all(&p, v, 0, &out, &err);
  CHECK(rc == 0 && out.len == 7 &&
            memcmp(out.data, "\x00\x00\x0a\x00\x00\x00\x00", 7) == 0,
        "empty page: %zu bytes", out.len);
  pq_buf_free(&out);
}

/* ---- 6. Malformed streams ------------------------------------------------ */

/* Decodes everything; PQ_OK or the error (its message in msg). */
static int decode_msg(pq_type t, int64_t count, const uint8_t *b, size_t len,
                      char *msg) {
  pq_params p = alp_params(t);
  p.count = count;
  size_t n;
  pq_error err;
  msg[0] = 0;
  int rc = decode_all(&p, b, len, 100, big_b, BIG, &n, &err);
  if (rc > 0) snprintf(msg, 256, "%s", err.msg);
  return rc;
}

/* A copy of b with its bytes at `at` set to v (`bytes` of them, LE). */
static uint8_t *patched(const pq_buf *b, size_t at, uint64_t v, int bytes) {
  uint8_t *c = malloc(b->len);
  memcpy(c, b->data, b->len);
  for (int i = 0; i < bytes; i++) c[at + i] = (uint8_t)(v >> (8 * i));
  return c;
}

static void expect_fault(const char *what, pq_type t, const uint8_t *b,
                         size_t len, int code, const char *words) {
  char msg[256];
  int rc = decode_msg(t, -1, b, len, msg);
  CHECK(rc == code && strstr(msg, words), "%s (%s): %d '%s', expected '%s'",
        what, pq_type_name(t), rc, msg, words);
}

static void test_malformed(void) {
  for (int dbl = 0; dbl < 2; dbl++) {
    pq_type t = dbl ? PQ_DOUBLE : PQ_FLOAT;
    size_t hdr = dbl ? 13 : 9, vz = vsize(t);
    /* Three vectors of 64 (the last of 40), with exceptions in each. */
    size_t n = 168;
    gen(t, GEN_MIXED, big_a, n);
    for (size_t i = 0; i < n; i += 50) {
      if (dbl)
        ((double *)big_a)[i] = NAN;
      else
        ((float *)big_a)[i] = NAN;
    }
    pq_params p = alp_params(t);
    p.vector_size = 64;
    pq_buf b;
    pq_buf_init(&b);
    pq_error err;
    int rc = encode_all(&p, big_a, n, &b, &err);
    CHECK(rc == 0, "malformed setup");
    char msg[256];
    CHECK(decode_msg(t, -1, b.data, b.len, msg) == 0, "valid: %s", msg);
    size_t v0 = 7 + pq_load32(b.data + 7), v1 = 7 + pq_load32(b.data + 11),
           v2 = 7 + pq_load32(b.data + 15);
    uint8_t *c;
    char want[160];

#define FAULT(what, at, v, bytes, code, words)                \
  c = patched(&b, at, v, bytes);                              \
  expect_fault(what, t, c, b.len, code, words);               \
  free(c)
    FAULT("compression mode", 0, 1, 1, PQ_UNSUPPORTED, "compression mode 1");
    FAULT("integer encoding", 1, 2, 1, PQ_UNSUPPORTED, "integer encoding 2");
    FAULT("log_vector_size 2", 2, 2, 1, PQ_CORRUPT, "log_vector_size 2");
    FAULT("log_vector_size 16", 2, 16, 1, PQ_CORRUPT, "log_vector_size 16");
    FAULT("negative count", 3, 0x80000000u, 4, PQ_CORRUPT, "negative");
    FAULT("count beyond the bytes", 3, 0x7fffffffu, 4, PQ_CORRUPT,
          "vectors of 64, whose offsets and headers take");
    /* Offsets. */
    FAULT("first offset inside the offsets", 7, 4, 4, PQ_CORRUPT,
          "vector 0: offset 4 (byte 11) is before the end of the offsets");
    FAULT("offsets out of order", 11, pq_load32(b.data + 7), 4, PQ_CORRUPT,
          "vector 1: offset 12 (byte 19) is before the end of the vector "
          "before it");
    FAULT("first offset a byte early", 7, 11, 4, PQ_CORRUPT,
          "vector 0: offset 11 (byte 18) is before the end of the offsets "
          "(byte 19)");
    snprintf(want, sizeof want, "vector 1: offset %zu (byte %zu) is before "
             "the end of the vector before it (byte %zu)", v1 - 8, v1 - 1, v1);
    FAULT("vectors overlapping by a byte", 11, v1 - 8, 4, PQ_CORRUPT, want);
    FAULT("offset out of range", 15, 0xfffffff0u, 4, PQ_CORRUPT,
          "vector 2: offset 4294967280");
    FAULT("offset past the end", 15, b.len - 7 - hdr + 1, 4, PQ_CORRUPT,
          "leaves no room for its");
    /* Vector headers. */
    snprintf(want, sizeof want, "vector 1 at byte %zu: exponent %d is above %d",
             v1, dbl ? 19 : 11, dbl ? 18 : 10);
    FAULT("exponent", v1, dbl ? 19 : 11, 1, PQ_CORRUPT, want);
    c = patched(&b, v1, 2, 1);
    c[v1 + 1] = 3;
    snprintf(want, sizeof want, "vector 1 at byte %zu: factor 3 is above the "
             "exponent 2", v1);
    expect_fault("factor", t, c, b.len, PQ_CORRUPT, want);
    free(c);
    snprintf(want, sizeof want, "vector 2 at byte %zu: 41 exceptions in a "
             "vector of 40 values", v2);
    FAULT("exceptions", v2 + 2, 41, 2, PQ_CORRUPT, want);
    snprintf(want, sizeof want, "vector 0 at byte %zu: bit width %d is above "
             "%d", v0, dbl ? 65 : 33, dbl ? 64 : 32);
    FAULT("bit width", v0 + hdr - 1, dbl ? 65 : 33, 1, PQ_CORRUPT, want);
    /* A wider width than the bytes hold. */
    FAULT("bit width past the bytes", v2 + hdr - 1, dbl ? 64 : 32, 1,
          PQ_CORRUPT, "vector 2 at byte");
    /* An exception position past the vector. */
    {
      unsigned nexc = b.data[v2 + 2] | (unsigned)b.data[v2 + 3] << 8;
      int w = b.data[v2 + hdr - 1];
      size_t pos = v2 + hdr + ((size_t)40 * w + 7) / 8;
      CHECK(nexc > 0, "the last vector has exceptions");
      snprintf(want, sizeof want, "vector 2 at byte %zu: exception 0 is at "
               "position 40, past the vector's 40 values", v2);
      FAULT("exception position", pos, 40, 2, PQ_CORRUPT, want);
    }
    /* The count option beyond the header's. */
    CHECK(decode_msg(t, 169, b.data, b.len, msg) == PQ_CORRUPT &&
              strstr(msg, "the count is 169, the header says 168 values"),
          "count beyond: %s", msg);
    CHECK(decode_msg(t, 100, b.data, b.len, msg) == 0, "count 100: %s", msg);
#undef FAULT

    /* Every truncation fails, with and without the count, into a buffer of
    ** exactly its size; every byte changed decodes or fails, never more. */
    int wrong = 0;
    for (size_t cut = 0; cut < b.len; cut++) {
      uint8_t *x = malloc(cut ? cut : 1);
      memcpy(x, b.data, cut);
      int r1 = decode_msg(t, -1, x, cut, msg);
      int has_vector = cut < 7 + 12 || strstr(msg, "vector") != NULL ||
                       strstr(msg, "header") != NULL;
      int r2 = decode_msg(t, (int64_t)n, x, cut, msg);
      if (r1 != PQ_CORRUPT || r2 != PQ_CORRUPT || !has_vector) {
        if (wrong++ < 3)
          CHECK(0, "truncated to %zu of %zu: %d %d '%s'", cut, b.len, r1, r2,
                msg);
      }
      free(x);
    }
    CHECK(wrong == 0, "%s: %d truncations do not fail", pq_type_name(t), wrong);
    for (size_t i = 0; i < b.len; i++) {
      for (int bit = 0; bit < 8; bit += 3) {
        uint8_t *x = malloc(b.len);
        memcpy(x, b.data, b.len);
        x[i] ^= (uint8_t)(1u << bit);
        (void)decode_msg(t, -1, x, b.len, msg);
        free(x);
      }
    }
    (void)vz;
    pq_buf_free(&b);
  }
}

/* ---- 7. The files of ../shared/alp-testing ------------------------------- */

#define ALPT "../shared/alp-testing"

/* The values of a CSV of the expectations: rows x cols, row-major. */
static double *read_csv(const char *path, int *rows, int *cols) {
  size_t len;
  uint8_t *text = slurp(path, &len);
  if (!text) return NULL;
  char *s = realloc(text, len + 1);
  s[len] = 0;
  *rows = *cols = 0;
  char *line = strchr(s, '\n');
  if (!line) {
    free(s);
    return NULL;
  }
  for (char *h = s; h < line; h++) *cols += *h == ',';
  (*cols)++;
  size_t cap = 1 << 16, n = 0;
  double *v = malloc(cap * sizeof *v);
  for (char *p = line + 1; *p;) {
    char *end;
    double x = strtod(p, &end);
    if (end == p) break;
    if (n == cap) v = realloc(v, (cap *= 2) * sizeof *v);
    v[n++] = x;
    p = end;
    if (*p == ',' || *p == '\n') p++;
  }
  *rows = (int)(n / (size_t)*cols);
  free(s);
  return v;
}

/* Reads every column of one file and compares it with the CSV (whose texts
** are parsed again with strtof for FLOAT: the CSV has 9 digits for them). */
static void check_file(const char *name, const char *csv_name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", ALPT, name);
  size_t len;
  uint8_t *buf = slurp(path, &len);
  if (!buf) {
    CHECK(0, "%s: cannot read", path);
    return;
  }
  snprintf(path, sizeof path, "%s/%s", ALPT, csv_name);
  int rows, cols;
  double *want = read_csv(path, &rows, &cols);
  /* FLOAT expectations: the text again, through strtof. */
  float *wantf = NULL;
  {
    size_t tl;
    uint8_t *text = slurp(path, &tl);
    char *s = text ? realloc(text, tl + 1) : NULL;
    if (s) {
      s[tl] = 0;
      wantf = malloc((size_t)rows * (size_t)cols * sizeof *wantf + 1);
      char *p = strchr(s, '\n') + 1;
      for (size_t i = 0; i < (size_t)rows * (size_t)cols; i++) {
        char *end;
        wantf[i] = strtof(p, &end);
        p = end + 1;
      }
      free(s);
    }
  }
  pq_file *f;
  pq_error err;
  int rc = pq_file_open(&f, buf, len, &err);
  CHECK(rc == 0 && want && rows == 15000, "%s: open %s, %d rows", name,
        rc ? err.msg : "ok", rows);
  if (rc || !want || !wantf) {
    free(buf);
    free(want);
    free(wantf);
    if (rc == 0) pq_file_free(f);
    return;
  }
  CHECK((int)pq_file_leaf_count(f) == cols, "%s: %u columns, the CSV %d", name,
        pq_file_leaf_count(f), cols);
  for (uint32_t c = 0; c < pq_file_leaf_count(f) && (int)c < cols; c++) {
    const pq_schema_node *leaf = pq_file_leaf(f, c);
    pq_type t = leaf->elem->type;
    pq_column_reader *r = NULL;
    rc = pq_column_reader_open(&r, f, 0, c, (size_t)1 << 30, &err);
    size_t total = 0, bad = 0, first_bad = 0;
    uint8_t vals[1000 * 8];
    while (rc == 0) {
      size_t n, nv;
      rc = pq_column_reader_read(r, 997, NULL, NULL, vals, &n, &nv, &err);
      if (rc || n == 0) break;
      for (size_t i = 0; i < nv && total + i < (size_t)rows; i++) {
        size_t at = (total + i) * (size_t)cols + c;
        int same = t == PQ_DOUBLE
                       ? memcmp(vals + 8 * i, &want[at], 8) == 0
                       : memcmp(vals + 4 * i, &wantf[at], 4) == 0;
        if (!same && bad++ == 0) first_bad = total + i;
      }
      total += nv;
    }
    if (r) pq_column_reader_free(r);
    CHECK(rc == 0 && total == (size_t)rows && bad == 0 &&
              (t == PQ_FLOAT || t == PQ_DOUBLE),
          "%s column %u (%s): %s, %zu values, %zu differ (first at row %zu)",
          name, c, pq_type_name(t), rc ? err.msg : "read", total, bad,
          first_bad);
  }
  pq_file_free(f);
  free(buf);
  free(want);
  free(wantf);
}

static void test_files(void) {
  static const char *const files[][2] = {
      {"alp_arade.parquet", "alp_arade_expect.csv"},
      {"alp_spotify1.parquet", "alp_spotify1_expect.csv"},
      {"alp_float_arade.parquet", "alp_float_arade_expect.csv"},
      {"alp_float_spotify1.parquet", "alp_float_spotify1_expect.csv"},
      /* parquet-java's files hold the same data sets. */
      {"alp_java_arade.parquet", "alp_arade_expect.csv"},
      {"alp_java_spotify1.parquet", "alp_spotify1_expect.csv"},
      {"alp_java_float_arade.parquet", "alp_float_arade_expect.csv"},
      {"alp_java_float_spotify1.parquet", "alp_float_spotify1_expect.csv"},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
    check_file(files[i][0], files[i][1]);
}

int main(void) {
  if (getenv("PQ_SIMD")) simd_env = strdup(getenv("PQ_SIMD"));
  big_a = malloc((size_t)BIG * 8 + 64);
  big_b = malloc((size_t)BIG * 8 + 64);
  big_c = malloc((size_t)BIG * 8 + 64);
  test_powers();
  test_spec_example();
  test_reference();
  test_round_trips();
  test_options();
  test_malformed();
  test_files();
  free(big_a);
  free(big_b);
  free(big_c);
  free(simd_env);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
