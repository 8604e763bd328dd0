/*
** bench.c -- the benchmark: the core against its baselines, in one run.
**
**   build/bench/bench [--quick] [--n N] [--extension PATH] [--duckdb DIR]
**                     [--results FILE [--notes NOTES.md]]
**
** For every case (an encoding, a type, a data set that resembles a real
** column) it times, single-threaded, best of several runs:
**
**   decode      the core's decoder, in batches of 1024 values, as the SQL
**               functions read it
**   memcpy      copying the same output bytes in the same batches (the
**               ceiling)
**   reference   a plain scalar decoder of the encoding (bench/reference.c,
**               the floor)
**   encode      the core's encoder, the values put in batches of 1024
**   DuckDB      reading the same values from a Parquet file of the same
**               encoding, and writing the column (bench/duckdb.mjs; one
**               thread)
**
** and then bit unpacking alone per bit width, the SQL layer against
** SQLite's own row machinery (the sqlite3 shell with its generate_series),
** peak memory of a scan and of an aggregate, and the same cases at 1e5,
** 1e6 and 1e7 values.  It prints one table and writes it, with the
** command, the machine and the date, to the results file.  Figures are
** ratios to baselines measured in the same run, so that they mean
** something on a shared machine.
*/
#define _DEFAULT_SOURCE /* wait4 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "encodings/encodings.h"
#include "reference.h"

/* ---- Timing --------------------------------------------------------------- */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int RUNS = 5;
/* The cases decode DECODE_TIMES as many values as they encode.  A pass
** over the same values again and again teaches the branch predictor their
** runs and lengths (RLE booleans of random run lengths: 22 G values/s when
** the same 1 M values are decoded 300 times, 6.6 when eight different
** streams take turns), which no real read enjoys; ten million values a
** pass are more than it can learn, for the core and for DuckDB alike.
** Encoders write fresh memory, whose first touch costs some 12 us a page
** on the virtual machine this runs on (the linear table shows it at 1e7),
** so they keep to a tenth of that. */
#define DECODE_TIMES 10
static volatile uint64_t sink; /* keeps results alive */

/* ---- Data sets ------------------------------------------------------------ */

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { /* xorshift64* */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * 0x2545F4914F6CDD1Dull;
}
static double unit(void) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }

typedef struct dataset {
  const char *name;
  const char *what;
  pq_type type;
  int32_t type_length;
  size_t n;
  void *values;    /* laid out as for the type */
  uint8_t *heap;   /* BYTE_ARRAY bytes */
  size_t plain;    /* bytes as PLAIN: the data's size for MB/s */
} dataset;

enum {
  DS_TS, DS_RAND64, DS_SMALL32, DS_LOWCARD32, DS_LOWCARD_STR, DS_DOUBLES,
  DS_PRICES, DS_FLOATS, DS_STRINGS, DS_URLS, DS_BOOLS, DS_FLBA, DS_INDICES,
  DS_COUNT
};

static const char *const ds_names[DS_COUNT] = {
    "ts", "rand64", "small32", "lowcard32", "lowcard_str", "doubles",
    "prices", "floats", "strings", "urls", "bools", "uuid16", "indices"};
static const char *const ds_what[DS_COUNT] = {
    "sorted int64 timestamps (us), jitter",
    "uniform random int64",
    "int32 in 0..1000",
    "int32, 16 distinct values",
    "strings, 50 distinct",
    "uniform doubles in [0,1)",
    "prices: doubles with 2 decimals",
    "uniform floats",
    "random strings of 5-20 bytes",
    "URL-like keys with shared prefixes",
    "booleans in long runs",
    "FIXED_LEN_BYTE_ARRAY(16), random",
    "dictionary indices < 64, runs and noise"};

static void ds_free(dataset *d) {
  free(d->values);
  free(d->heap);
  memset(d, 0, sizeof *d);
}

static void ds_make(dataset *d, int kind, size_t n) {
  memset(d, 0, sizeof *d);
  d->name = ds_names[kind];
  d->what = ds_what[kind];
  d->n = n;
  rng = 0x9E3779B97F4A7C15ull + (uint64_t)kind;
  switch (kind) {
    case DS_TS:
    case DS_RAND64: {
      int64_t *v = malloc(n * 8);
      for (size_t i = 0; i < n; i++)
        v[i] = kind == DS_TS ? 1700000000000000 + (int64_t)i * 1000 +
                                   (int64_t)(rnd() % 1000)
                             : (int64_t)rnd();
      d->type = PQ_INT64;
      d->values = v;
      d->plain = n * 8;
      break;
    }
    case DS_SMALL32:
    case DS_LOWCARD32:
    case DS_INDICES: {
      int32_t *v = malloc(n * 4);
      size_t i = 0;
      while (i < n) {
        if (kind == DS_SMALL32) {
          v[i++] = (int32_t)(rnd() % 1001);
        } else if (kind == DS_LOWCARD32) {
          v[i++] = (int32_t)(rnd() % 16) * 1000 + 7;
        } else { /* runs of 1..40 (half the time) or single noise values */
          int32_t x = (int32_t)(rnd() % 64);
          size_t run = rnd() % 2 ? 1 + rnd() % 40 : 1;
          for (size_t k = 0; k < run && i < n; k++) v[i++] = x;
        }
      }
      d->type = PQ_INT32;
      d->values = v;
      d->plain = n * 4;
      break;
    }
    case DS_DOUBLES:
    case DS_PRICES: {
      double *v = malloc(n * 8);
      for (size_t i = 0; i < n; i++)
        v[i] = kind == DS_DOUBLES ? unit()
                                  : round((5 + unit() * 495) * 100) / 100;
      d->type = PQ_DOUBLE;
      d->values = v;
      d->plain = n * 8;
      break;
    }
    case DS_FLOATS: {
      float *v = malloc(n * 4);
      for (size_t i = 0; i < n; i++) v[i] = (float)(unit() * 1000);
      d->type = PQ_FLOAT;
      d->values = v;
      d->plain = n * 4;
      break;
    }
    case DS_BOOLS: {
      uint8_t *v = malloc(n);
      size_t i = 0;
      uint8_t b = 0;
      while (i < n) {
        size_t run = 1 + rnd() % 200;
        for (size_t k = 0; k < run && i < n; k++) v[i++] = b;
        b ^= 1;
      }
      d->type = PQ_BOOLEAN;
      d->values = v;
      d->plain = (n + 7) / 8;
      break;
    }
    case DS_FLBA: {
      uint8_t *v = malloc(n * 16);
      for (size_t i = 0; i < n * 16; i += 8) {
        uint64_t r = rnd();
        memcpy(v + i, &r, 8);
      }
      d->type = PQ_FIXED_LEN_BYTE_ARRAY;
      d->type_length = 16;
      d->values = v;
      d->plain = n * 16;
      break;
    }
    default: { /* strings */
      pq_bytes *v = malloc(n * sizeof *v);
      d->heap = malloc(n * 64 + 64);
      size_t h = 0;
      static const char *const cats[] = {"shoes", "books", "garden",
                                         "kitchen", "toys", "music"};
      for (size_t i = 0; i < n; i++) {
        char *s = (char *)d->heap + h;
        int len;
        if (kind == DS_LOWCARD_STR) {
          len = sprintf(s, "category-%02d", (int)(rnd() % 50));
        } else if (kind == DS_URLS) {
          /* Sorted-ish: a category, then an item id that mostly grows. */
          len = sprintf(s, "https://shop.example.com/%s/item/%07zu?ref=%d",
                        cats[(i / 5000) % 6], i * 3 + (size_t)(rnd() % 3),
                        (int)(rnd() % 10));
        } else {
          len = 5 + (int)(rnd() % 16);
          for (int k = 0; k < len; k++) s[k] = (char)('a' + rnd() % 26);
        }
        v[i].ptr = (const uint8_t *)s;
        v[i].len = (size_t)len;
        h += (size_t)len;
        d->plain += 4 + (size_t)len;
      }
      d->type = PQ_BYTE_ARRAY;
      d->values = v;
    }
  }
}

/* ---- Cases --------------------------------------------------------------- */

/* What DuckDB reads for a case: the same encoding, or for BIT_PACKED (which
** no current reader takes in a data page) the same values as dictionary
** indices; none where DuckDB has no reader for it. */
enum { DUCK_SAME, DUCK_DICT, DUCK_NONE };

typedef struct bench_case {
  pq_encoding enc;
  int ds;
  const char *options;   /* encoding options, JSON */
  int duck;              /* DUCK_* */
  double dec_target;     /* x DuckDB (or x memcpy for PLAIN: fraction) */
  double enc_target;     /* x DuckDB's write */
} bench_case;

static const bench_case cases[] = {
    {PQ_PLAIN, DS_TS, NULL, DUCK_SAME, 0.5, 2},
    {PQ_PLAIN, DS_SMALL32, NULL, DUCK_SAME, 0.5, 2},
    {PQ_PLAIN, DS_DOUBLES, NULL, DUCK_SAME, 0.5, 2},
    {PQ_PLAIN, DS_FLOATS, NULL, DUCK_SAME, 0.5, 2},
    {PQ_PLAIN, DS_STRINGS, NULL, DUCK_SAME, 0.5, 2},
    {PQ_PLAIN, DS_BOOLS, NULL, DUCK_SAME, 0.5, 2},
    {PQ_PLAIN, DS_FLBA, NULL, DUCK_SAME, 0.5, 2},
    {PQ_RLE, DS_BOOLS, NULL, DUCK_SAME, 3, 2},
    {PQ_RLE, DS_INDICES, "{\"bit_width\":6}", DUCK_DICT, 3, 2},
    {PQ_BIT_PACKED, DS_SMALL32, "{\"bit_width\":10}", DUCK_DICT, 3, 2},
    {PQ_RLE_DICTIONARY, DS_LOWCARD32, NULL, DUCK_SAME, 3, 2},
    {PQ_RLE_DICTIONARY, DS_SMALL32, NULL, DUCK_SAME, 3, 2},
    {PQ_RLE_DICTIONARY, DS_LOWCARD_STR, NULL, DUCK_SAME, 3, 2},
    {PQ_RLE_DICTIONARY, DS_PRICES, NULL, DUCK_SAME, 3, 2},
    {PQ_DELTA_BINARY_PACKED, DS_TS, NULL, DUCK_SAME, 3, 4},
    {PQ_DELTA_BINARY_PACKED, DS_RAND64, NULL, DUCK_SAME, 3, 4},
    {PQ_DELTA_BINARY_PACKED, DS_SMALL32, NULL, DUCK_SAME, 3, 4},
    {PQ_DELTA_LENGTH_BYTE_ARRAY, DS_STRINGS, NULL, DUCK_SAME, 4, 2},
    {PQ_DELTA_LENGTH_BYTE_ARRAY, DS_URLS, NULL, DUCK_SAME, 4, 2},
    {PQ_DELTA_BYTE_ARRAY, DS_URLS, NULL, DUCK_SAME, 4, 2},
    {PQ_DELTA_BYTE_ARRAY, DS_STRINGS, NULL, DUCK_SAME, 4, 2},
    {PQ_BYTE_STREAM_SPLIT, DS_DOUBLES, NULL, DUCK_SAME, 4, 2},
    {PQ_BYTE_STREAM_SPLIT, DS_PRICES, NULL, DUCK_SAME, 4, 2},
    {PQ_BYTE_STREAM_SPLIT, DS_FLOATS, NULL, DUCK_SAME, 4, 2},
    {PQ_BYTE_STREAM_SPLIT, DS_SMALL32, NULL, DUCK_NONE, 4, 2},
    {PQ_BYTE_STREAM_SPLIT, DS_FLBA, NULL, DUCK_NONE, 4, 2},
    {PQ_GROUP_VAR_INT, DS_SMALL32, NULL, DUCK_NONE, 0, 0},
    {PQ_GROUP_VAR_INT, DS_TS, NULL, DUCK_NONE, 0, 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

typedef struct result {
  int ran;
  size_t n, n_enc, encoded; /* values decoded, values encoded, their bytes */
  double dec, enc, mem, ref;  /* seconds, best of RUNS */
  int correct;
  /* DuckDB: read (file, less the same query over a table), write */
  double duck_read, duck_table, duck_write;
  char duck_encoding[64];
  char duck_error[160];
} result;

static void params_of(const bench_case *c, const dataset *d, pq_params *p) {
  pq_params_init(p);
  p->encoding = c->enc;
  p->type = d->type;
  p->type_set = 1;
  p->type_length = d->type_length;
  if (c->options) {
    pq_error err;
    pq_params_parse_options(p, c->options, strlen(c->options), &err);
  }
}

/* The values of a case as the encoder takes them (BIT_PACKED and RLE of
** INT32 take unsigned levels: the same bits). */
static size_t value_size(const dataset *d) {
  return pq_value_size(d->type, d->type_length);
}

static int encode(const bench_case *c, const dataset *d, pq_buf *out,
                  pq_buf *dict) {
  pq_params p;
  params_of(c, d, &p);
  pq_encoder *e;
  pq_error err;
  if (pq_encoder_open(&e, &p, &err)) {
    fprintf(stderr, "bench: %s\n", err.msg);
    return -1;
  }
  size_t vs = value_size(d);
  int rc = 0;
  for (size_t i = 0; i < d->n && !rc; i += 1024) {
    size_t k = d->n - i < 1024 ? d->n - i : 1024;
    rc = pq_encoder_put(e, (const uint8_t *)d->values + i * vs, k, &err);
  }
  if (!rc) rc = pq_encoder_finish(e, out, dict, &err);
  if (rc) fprintf(stderr, "bench: %s\n", err.msg);
  pq_encoder_free(e);
  return rc ? -1 : 0;
}

/* Decodes the stream in batches of 1024; checks it against the values when
** check is set. */
static int decode(const bench_case *c, const dataset *d, const pq_buf *in,
                  const pq_buf *dict, int check, uint8_t *batch) {
  pq_params p;
  params_of(c, d, &p);
  p.count = (int64_t)d->n;
  pq_decoder *dec;
  pq_error err;
  int is_dict = c->enc == PQ_RLE_DICTIONARY || c->enc == PQ_PLAIN_DICTIONARY;
  if (pq_decoder_open(&dec, &p, in->data, in->len, is_dict ? dict->data : NULL,
                      is_dict ? dict->len : 0, &err)) {
    fprintf(stderr, "bench: %s\n", err.msg);
    return -1;
  }
  size_t vs = value_size(d), done = 0, n;
  int ok = 1;
  uint64_t acc = 0;
  while (pq_decoder_read(dec, batch, 1024, &n, &err) == PQ_OK && n) {
    if (check) {
      if (d->type == PQ_BYTE_ARRAY) {
        const pq_bytes *a = (const pq_bytes *)batch;
        const pq_bytes *b = (const pq_bytes *)d->values + done;
        for (size_t i = 0; i < n && ok; i++)
          ok = a[i].len == b[i].len && memcmp(a[i].ptr, b[i].ptr, a[i].len) == 0;
      } else {
        ok = ok && memcmp(batch, (const uint8_t *)d->values + done * vs,
                          n * vs) == 0;
      }
    }
    acc += batch[0];
    done += n;
  }
  sink += acc;
  pq_decoder_free(dec);
  return done == d->n && ok ? 0 : -1;
}

/* Whether n decoded values (laid out as for the type) are the data set's. */
static int same_values(const dataset *d, const void *vals) {
  if (d->type == PQ_BYTE_ARRAY) {
    const pq_bytes *a = vals, *b = d->values;
    for (size_t i = 0; i < d->n; i++)
      if (a[i].len != b[i].len || memcmp(a[i].ptr, b[i].ptr, a[i].len) != 0)
        return 0;
    return 1;
  }
  return memcmp(vals, d->values, d->n * value_size(d)) == 0;
}

/* The ceiling: the same output bytes copied in the same batches. */
static void copy_batches(const dataset *d, uint8_t *batch) {
  size_t vs = value_size(d);
  for (size_t i = 0; i < d->n; i += 1024) {
    size_t k = d->n - i < 1024 ? d->n - i : 1024;
    memcpy(batch, (const uint8_t *)d->values + i * vs, k * vs);
    sink += batch[0];
  }
}

/* The floor: the reference decoder of the encoding, whole stream at once. */
static int reference(const bench_case *c, const dataset *d, const pq_buf *in,
                     const pq_buf *dict, void *out, uint8_t *heap) {
  size_t n = d->n;
  const uint8_t *b = in->data;
  size_t len = in->len;
  switch (c->enc) {
    case PQ_PLAIN:
      return ref_plain(b, len, d->type, d->type_length, n, out);
    case PQ_RLE:
      if (d->type == PQ_BOOLEAN) return ref_rle_bool(b, len, n, out);
      return ref_rle(b, len, 6, n, out);
    case PQ_BIT_PACKED: return ref_bit_packed(b, len, 10, n, out);
    case PQ_RLE_DICTIONARY:
    case PQ_PLAIN_DICTIONARY:
      return ref_dict(b, len, dict->data, dict->len, d->type, d->type_length,
                      n, out);
    case PQ_DELTA_BINARY_PACKED:
      return ref_dbp(b, len, d->type == PQ_INT32, n, out, NULL);
    case PQ_DELTA_LENGTH_BYTE_ARRAY: return ref_dlba(b, len, n, out);
    case PQ_DELTA_BYTE_ARRAY: return ref_dba(b, len, n, out, heap);
    case PQ_BYTE_STREAM_SPLIT:
      return ref_bss(b, len, pq_plain_width(d->type, d->type_length), n, out);
    case PQ_GROUP_VAR_INT:
      return ref_gvi(b, len, d->type == PQ_INT64, n, out);
    default: return -1;
  }
}

/* Times encoding the first n_enc values of d, and decoding all of d (and
** its baselines). */
static void run_case(const bench_case *c, const dataset *d, size_t n_enc,
                     result *r) {
  memset(r, 0, sizeof *r);
  r->n = d->n;
  r->n_enc = n_enc < d->n ? n_enc : d->n;
  dataset head = *d; /* the values encoded */
  head.n = r->n_enc;
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  uint8_t *batch = malloc(1024 * 16 + 64);
  void *full = malloc(d->n * 16 + 64);
  uint8_t *heap = malloc(d->plain + 64);
  double best_enc = 1e30, best_dec = 1e30, best_mem = 1e30, best_ref = 1e30;
  int correct = 1;
  for (int run = 0; run < RUNS; run++) {
    out.len = dict.len = 0;
    double t0 = now();
    if (encode(c, &head, &out, &dict)) {
      correct = 0;
      break;
    }
    double t1 = now();
    if (t1 - t0 < best_enc) best_enc = t1 - t0;
  }
  r->encoded = out.len + dict.len;
  if (correct && head.n < d->n) { /* the stream decoded: all of d */
    out.len = dict.len = 0;
    if (encode(c, d, &out, &dict)) correct = 0;
  }
  /* Decoding, its baselines beside it: twice as many runs, as a pass
  ** takes a few milliseconds and the machine's noise comes in bursts. */
  for (int run = 0; correct && run < 2 * RUNS; run++) {
    double t0 = now();
    if (decode(c, d, &out, &dict, run == 0, batch)) correct = 0;
    double t1 = now();
    copy_batches(d, batch);
    double t2 = now();
    if (reference(c, d, &out, &dict, full, heap)) correct = 0;
    double t3 = now();
    if (run == 0 && correct && !same_values(d, full)) {
      fprintf(stderr, "bench: the reference decoder of %s differs\n",
              pq_encoding_name(c->enc));
      correct = 0;
    }
    sink += ((uint8_t *)full)[0];
    if (t1 - t0 < best_dec) best_dec = t1 - t0;
    if (t2 - t1 < best_mem) best_mem = t2 - t1;
    if (t3 - t2 < best_ref) best_ref = t3 - t2;
  }
  r->ran = 1;
  r->correct = correct;
  r->enc = best_enc;
  r->dec = best_dec;
  r->mem = best_mem;
  r->ref = best_ref;
  free(batch);
  free(full);
  free(heap);
  pq_buf_free(&out);
  pq_buf_free(&dict);
}

/* ---- Bit unpacking alone ---------------------------------------------------- */

static double unpack_rate[33];

static void bench_unpack(void) {
  size_t n = 1 << 20; /* values per pass */
  uint8_t *packed = malloc(n * 4 + 64);
  uint32_t out[32];
  for (size_t i = 0; i < n * 4 + 64; i++) packed[i] = (uint8_t)rnd();
  for (int w = 1; w <= 32; w++) {
    double best = 1e30;
    for (int run = 0; run < RUNS; run++) {
      double t0 = now();
      const uint8_t *p = packed;
      uint64_t acc = 0;
      for (size_t i = 0; i < n; i += 32) {
        pq_unpack32(w, p, out);
        acc += out[31];
        p += 4 * (size_t)w;
      }
      sink += acc;
      double t = now() - t0;
      if (t < best) best = t;
    }
    unpack_rate[w] = (double)n / best;
  }
  free(packed);
}

/* ---- Output --------------------------------------------------------------- */

static FILE *results;

/* Prints to stdout and to the results file. */
static void out(const char *fmt, ...) PQ_PRINTF(1, 2);
static void out(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  if (results) {
    va_start(ap, fmt);
    vfprintf(results, fmt, ap);
    va_end(ap);
  }
  fflush(stdout);
}

static const char *short_enc(pq_encoding e) {
  switch (e) {
    case PQ_PLAIN: return "PLAIN";
    case PQ_RLE: return "RLE";
    case PQ_BIT_PACKED: return "BIT_PACKED";
    case PQ_RLE_DICTIONARY: return "RLE_DICT";
    case PQ_PLAIN_DICTIONARY: return "PLAIN_DICT";
    case PQ_DELTA_BINARY_PACKED: return "DELTA_BP";
    case PQ_DELTA_LENGTH_BYTE_ARRAY: return "DELTA_LBA";
    case PQ_DELTA_BYTE_ARRAY: return "DELTA_BA";
    case PQ_BYTE_STREAM_SPLIT: return "BSS";
    case PQ_GROUP_VAR_INT: return "GVI";
    default: return pq_encoding_name(e);
  }
}

static const char *short_type(const dataset *d) {
  switch (d->type) {
    case PQ_BOOLEAN: return "bool";
    case PQ_INT32: return "i32";
    case PQ_INT64: return "i64";
    case PQ_FLOAT: return "f32";
    case PQ_DOUBLE: return "f64";
    case PQ_BYTE_ARRAY: return "bytes";
    case PQ_FIXED_LEN_BYTE_ARRAY: return "flba16";
    default: return "?";
  }
}

/* ---- DuckDB ----------------------------------------------------------------
** Files of the cases, written by the core's writer: one column, REQUIRED
** (no levels), uncompressed, one row group, pages of 1 MiB.  The node
** script reads and writes each with one thread and prints one JSON line
** per file. */

static int write_case_file(const bench_case *c, const dataset *d,
                           const char *path) {
  pq_params p;
  params_of(c, d, &p);
  if (c->duck == DUCK_DICT) {
    p.encoding = PQ_RLE_DICTIONARY;
    p.bit_width = -1;
  }
  pq_write_options o;
  pq_write_options_init(&o);
  o.nullable = 0;
  o.statistics = 0;
  o.name[0] = 'v';
  o.name[1] = 0;
  if (d->type == PQ_BYTE_ARRAY) o.string = 1;
  pq_writer *w;
  pq_error err;
  pq_buf buf;
  pq_buf_init(&buf);
  int rc = pq_writer_open(&w, &p, &o, &err);
  size_t vs = value_size(d);
  for (size_t i = 0; i < d->n && !rc; i += 4096) {
    size_t k = d->n - i < 4096 ? d->n - i : 4096;
    rc = pq_writer_put(w, (const uint8_t *)d->values + i * vs, NULL, k, &err);
  }
  if (!rc) rc = pq_writer_finish(w, &buf, &err);
  pq_writer_free(w);
  if (rc) {
    fprintf(stderr, "bench: writing %s: %s\n", path, err.msg);
    pq_buf_free(&buf);
    return -1;
  }
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(buf.data, 1, buf.len, f) != buf.len) rc = -1;
  if (f) fclose(f);
  pq_buf_free(&buf);
  return rc ? -1 : 0;
}

/* A JSON number or string field of a line (small and trusted: ours). */
static double json_num(const char *line, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(line, pat);
  return p ? strtod(p + strlen(pat), NULL) : -1;
}
static void json_str(const char *line, const char *key, char *out,
                     size_t cap) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":\"", key);
  const char *p = strstr(line, pat);
  out[0] = 0;
  if (!p) return;
  p += strlen(pat);
  size_t k = 0;
  while (*p && *p != '"' && k + 1 < cap) {
    if (*p == '\\' && p[1]) p++;
    out[k++] = *p++;
  }
  out[k] = 0;
}

static void run_duckdb(const char *duckdir, const char *workdir,
                       const dataset *sets, result *res) {
  char manifest[1024];
  snprintf(manifest, sizeof manifest, "%s/manifest.json", workdir);
  FILE *m = fopen(manifest, "w");
  if (!m) return;
  fprintf(m, "[");
  int first = 1;
  for (size_t i = 0; i < NCASES; i++) {
    const bench_case *c = &cases[i];
    const dataset *d = &sets[c->ds];
    if (c->duck == DUCK_NONE || !res[i].ran) continue;
    char path[1024];
    snprintf(path, sizeof path, "%s/case%02zu.parquet", workdir, i);
    if (write_case_file(c, d, path)) continue;
    const char *agg = d->type == PQ_BOOLEAN      ? "count_if(v)"
                      : d->type == PQ_BYTE_ARRAY ? "sum(strlen(v))"
                      : d->type == PQ_FIXED_LEN_BYTE_ARRAY
                          ? "sum(octet_length(v))"
                          : "sum(v)";
    fprintf(m, "%s{\"case\":%zu,\"in\":\"%s\",\"out\":\"%s/out%02zu.parquet\",\"agg\":\"%s\",\"write\":%zu}",
            first ? "" : ",", i, path, workdir, i, agg, res[i].n_enc);
    first = 0;
  }
  fprintf(m, "]\n");
  fclose(m);
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "env -u LD_PRELOAD node bench/duckdb.mjs '%s' '%s' %d", duckdir,
           manifest, RUNS);
  FILE *p = popen(cmd, "r");
  if (!p) return;
  char line[4096];
  while (fgets(line, sizeof line, p)) {
    int i = (int)json_num(line, "case");
    if (i < 0 || (size_t)i >= NCASES) continue;
    result *r = &res[i];
    r->duck_read = json_num(line, "read");
    r->duck_table = json_num(line, "table");
    r->duck_write = json_num(line, "write");
    json_str(line, "encoding", r->duck_encoding, sizeof r->duck_encoding);
    json_str(line, "error", r->duck_error, sizeof r->duck_error);
  }
  pclose(p);
}

/* ---- SQL: the sqlite3 shell -------------------------------------------------
** Each statement runs RUNS times with .timer on; the best real time counts. */

static double sql_time(const char *ext, const char *setup, const char *stmt) {
  char script[] = "/tmp/pq-bench-XXXXXX";
  int fd = mkstemp(script);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  fprintf(f, ".load %s\n%s\n.timer on\n", ext, setup);
  for (int i = 0; i < RUNS; i++) fprintf(f, "%s\n", stmt);
  fclose(f);
  char cmd[1200];
  snprintf(cmd, sizeof cmd, "sqlite3 :memory: < %s 2>&1", script);
  FILE *p = popen(cmd, "r");
  double best = -1;
  char line[1024];
  while (p && fgets(line, sizeof line, p)) {
    const char *r = strstr(line, "Run Time: real ");
    if (r) {
      double t = strtod(r + 15, NULL);
      if (best < 0 || t < best) best = t;
    } else if (strstr(line, "rror")) {
      fprintf(stderr, "bench: sqlite3: %s", line);
    }
  }
  if (p) pclose(p);
  unlink(script);
  return best;
}

/* Peak resident memory (KiB) of a sqlite3 shell running the script. */
static long sql_peak_kib(const char *ext, const char *script_text) {
  char script[] = "/tmp/pq-bench-XXXXXX";
  int fd = mkstemp(script);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  fprintf(f, ".load %s\n%s\n", ext, script_text);
  fclose(f);
  pid_t pid = fork();
  if (pid == 0) {
    FILE *in = freopen(script, "r", stdin);
    FILE *o = freopen("/dev/null", "w", stdout);
    (void)in;
    (void)o;
    execlp("sqlite3", "sqlite3", ":memory:", (char *)NULL);
    _exit(127);
  }
  int status;
  struct rusage ru;
  long kib = -1;
  if (pid > 0 && wait4(pid, &status, 0, &ru) == pid && WIFEXITED(status) &&
      WEXITSTATUS(status) == 0)
    kib = ru.ru_maxrss;
  unlink(script);
  return kib;
}

/* ---- Main ------------------------------------------------------------------ */

static const char *arg_value(int argc, char **argv, const char *name,
                             const char *def) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  return def;
}
static int has_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], name) == 0) return 1;
  return 0;
}

static double mvs(size_t n, double t) { return t > 0 ? (double)n / t / 1e6 : 0; }

static void machine(char *buf, size_t cap) {
  char model[256] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *p = strchr(line, ':');
      if (p) {
        snprintf(model, sizeof model, "%s", p + 2);
        model[strcspn(model, "\n")] = 0;
      }
      break;
    }
  }
  if (f) fclose(f);
  struct utsname u;
  uname(&u);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  snprintf(buf, cap, "%s, %ld CPUs, %s %s", model, cpus, u.sysname, u.release);
}

int main(int argc, char **argv) {
  int quick = has_flag(argc, argv, "--quick");
  size_t n = (size_t)atol(arg_value(argc, argv, "--n", quick ? "200000" : "1000000"));
  const char *ext = arg_value(argc, argv, "--extension", "build/parquet.so");
  const char *duckdir = arg_value(argc, argv, "--duckdb", NULL);
  const char *resfile = arg_value(argc, argv, "--results", NULL);
  const char *workdir = arg_value(argc, argv, "--work", "build/bench");
  const char *only = arg_value(argc, argv, "--only", NULL);
  const char *notes = arg_value(argc, argv, "--notes", NULL);
  if (quick) RUNS = 2;
  if (resfile) results = fopen(resfile, "w");

  char mach[512], date[64];
  machine(mach, sizeof mach);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  out("# Benchmark results\n\n");
  out("- command: `make bench`%s\n", quick ? " (quick)" : "");
  out("- machine: %s\n- date: %s\n", mach, date);
  out("- single thread; per case %zu values decoded (best of %d runs), the "
      "first %zu of them encoded (best of %d), unless said\n\n",
      n * DECODE_TIMES, 2 * RUNS, n, RUNS);

  /* Peak memory, measured first: a child's peak counts what it shares
  ** with this process when forked, so this process is still small. */
  long big = quick ? 10000000 : 100000000;
  long k_base1 = 0, k_scan1 = 0, k_base2 = 0, k_scan2 = 0;
  if (!only) {
    char base[1024], scan[1400];
    snprintf(base, sizeof base,
             "CREATE TABLE b AS SELECT parquet_encode(value, "
             "'DELTA_BINARY_PACKED') AS blob FROM generate_series(1, %ld);\n"
             "SELECT length(blob) FROM b;",
             big);
    snprintf(scan, sizeof scan,
             "%s\nSELECT sum(value) FROM b, parquet_values(b.blob, "
             "'DELTA_BINARY_PACKED');",
             base);
    k_base1 = sql_peak_kib(ext, base);
    k_scan1 = sql_peak_kib(ext, scan);
    snprintf(base, sizeof base,
             "SELECT sum(value) FROM generate_series(1, %ld);", big);
    snprintf(scan, sizeof scan,
             "SELECT length(parquet_encode(value, 'DELTA_BINARY_PACKED')) "
             "FROM generate_series(1, %ld);",
             big);
    k_base2 = sql_peak_kib(ext, base);
    k_scan2 = sql_peak_kib(ext, scan);
  }

  /* Data sets. */
  static dataset sets[DS_COUNT];
  for (int k = 0; k < DS_COUNT; k++) ds_make(&sets[k], k, n * DECODE_TIMES);

  /* The core. */
  static result res[NCASES];
  for (size_t i = 0; i < NCASES; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s %s", short_enc(cases[i].enc),
             sets[cases[i].ds].name);
    if (only && !strstr(name, only)) continue;
    run_case(&cases[i], &sets[cases[i].ds], n, &res[i]);
  }
  if (duckdir) run_duckdb(duckdir, workdir, sets, res);

  out("## Decoding and encoding, per case\n\n");
  out("Mv/s: million values per second; MB/s: of the data as PLAIN. "
      "x memcpy: decode speed as a fraction of copying the same output "
      "bytes in the same batches; x ref: over a plain scalar decoder; "
      "x DuckDB: over DuckDB reading the same values from a file of the "
      "same encoding (its query over the file, less the same query over a "
      "table); enc x DuckDB: the encoder over DuckDB writing the column.\n\n");
  out("| case | data | bytes/value | decode Mv/s | MB/s | x memcpy | x ref | "
      "DuckDB Mv/s | x DuckDB | target | encode Mv/s | DuckDB write Mv/s (its encoding) | enc x DuckDB | target |\n");
  out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (size_t i = 0; i < NCASES; i++) {
    const bench_case *c = &cases[i];
    const dataset *d = &sets[c->ds];
    const result *r = &res[i];
    char name[64];
    snprintf(name, sizeof name, "%s %s", short_enc(c->enc), short_type(d));
    if (!r->ran) continue;
    if (!r->correct) {
      out("| %s | %s | FAILED: decoded values differ | | | | | | | | | | | |\n",
          name, d->name);
      continue;
    }
    double dec = mvs(r->n, r->dec);  /* r->n decoded, r->n_enc encoded */
    double duck_dec = 0, duck_w = 0;
    char dcell[96] = "n/a", xd[48] = "", tgt[64] = "", wcell[160] = "n/a",
         xw[48] = "", wtgt[64] = "";
    if (c->duck != DUCK_NONE && r->duck_read > 0) {
      double dt = r->duck_read - r->duck_table;
      if (dt < r->duck_read * 0.05) dt = r->duck_read * 0.05;
      duck_dec = mvs(r->n, dt);
      snprintf(dcell, sizeof dcell, "%.0f%s", duck_dec,
               c->duck == DUCK_DICT ? " (as dictionary)" : "");
      snprintf(xd, sizeof xd, "%.2f", dec / duck_dec);
    } else if (r->duck_error[0]) {
      snprintf(dcell, sizeof dcell, "error");
    }
    if (c->enc == PQ_PLAIN) {
      double x = r->mem / r->dec;
      snprintf(tgt, sizeof tgt, "%s 0.5 x memcpy",
               x >= c->dec_target ? "met" : "MISSED");
    } else if (c->dec_target > 0 && duck_dec > 0) {
      snprintf(tgt, sizeof tgt, "%s %g x", dec / duck_dec >= c->dec_target
                                               ? "met"
                                               : "MISSED",
               c->dec_target);
    }
    if (r->duck_write > 0) {
      duck_w = mvs(r->n_enc, r->duck_write);
      snprintf(wcell, sizeof wcell, "%.0f (%s)", duck_w, r->duck_encoding);
      double x = mvs(r->n_enc, r->enc) / duck_w;
      snprintf(xw, sizeof xw, "%.2f", x);
      if (c->enc_target > 0)
        snprintf(wtgt, sizeof wtgt, "%s %g x",
                 x >= c->enc_target ? "met" : "MISSED", c->enc_target);
    }
    out("| %s | %s | %.2f | %.0f | %.0f | %.2f | %.1f | %s | %s | %s | %.0f | "
        "%s | %s | %s |\n",
        name, d->name, (double)r->encoded / (double)r->n_enc, dec,
        (double)d->plain / r->dec / 1e6, r->mem / r->dec, r->ref / r->dec,
        dcell, xd, tgt, mvs(r->n_enc, r->enc), wcell, xw, wtgt);
  }
  for (size_t i = 0; i < NCASES; i++)
    if (res[i].duck_error[0])
      out("\nDuckDB on case %zu (%s %s): %s\n", i, short_enc(cases[i].enc),
          sets[cases[i].ds].name, res[i].duck_error);

  out("\nData sets:\n\n");
  for (int k = 0; k < DS_COUNT; k++)
    out("- `%s`: %s\n", sets[k].name, sets[k].what);

  if (only) goto done;

  /* Bit unpacking. */
  bench_unpack();
  out("\n## Bit unpacking alone (32 values a call), G values/s by bit width\n\n");
  out("| width |");
  for (int w = 1; w <= 32; w++) out(" %d |", w);
  out("\n|---|");
  for (int w = 1; w <= 32; w++) out("---|");
  out("\n| G/s |");
  double worst = 1e30;
  for (int w = 1; w <= 32; w++) {
    out(" %.1f |", unpack_rate[w] / 1e9);
    if (unpack_rate[w] < worst) worst = unpack_rate[w];
  }
  out("\n\nslowest width: %.2f G values/s (target 3: %s)\n", worst / 1e9,
      worst >= 3e9 ? "met" : "MISSED");

  /* Complexity. */
  out("\n## Linear in the input: ns per value at 1e5, 1e6, 1e7 values\n\n");
  out("| case | decode 1e5 | 1e6 | 1e7 | encode 1e5 | 1e6 | 1e7 |\n");
  out("|---|---|---|---|---|---|---|\n");
  static const int lin[] = {14, 12, 19, 21, 2};
  size_t sizes[3] = {100000, 1000000, 10000000};
  if (quick) sizes[2] = 2000000;
  for (size_t k = 0; k < sizeof lin / sizeof lin[0]; k++) {
    const bench_case *c = &cases[lin[k]];
    double dns[3], ens[3];
    for (int s = 0; s < 3; s++) {
      dataset d;
      ds_make(&d, c->ds, sizes[s]);
      result r;
      run_case(c, &d, d.n, &r);
      dns[s] = r.dec / (double)d.n * 1e9;
      ens[s] = r.enc / (double)r.n_enc * 1e9;
      ds_free(&d);
    }
    out("| %s %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
        short_enc(c->enc), ds_names[c->ds], dns[0], dns[1], dns[2], ens[0],
        ens[1], ens[2]);
  }
  if (quick) out("\n(quick: the last column is 2e6 values)\n");

  /* SQL. */
  long rows = quick ? 2000000 : 10000000;
  char setup[1024], stmt[1024];
  out("\n## SQL against SQLite's own row machinery (%ld rows)\n\n", rows);
  out("| query | seconds | per row | ratio | target |\n|---|---|---|---|---|\n");
  snprintf(stmt, sizeof stmt, "SELECT sum(value) FROM generate_series(1, %ld);",
           rows);
  double t_gs = sql_time(ext, "", stmt);
  snprintf(setup, sizeof setup,
           "CREATE TABLE b AS SELECT parquet_encode(value, "
           "'DELTA_BINARY_PACKED') AS blob FROM generate_series(1, %ld);",
           rows);
  double t_pv = sql_time(ext, setup,
                         "SELECT sum(value) FROM b, parquet_values(b.blob, "
                         "'DELTA_BINARY_PACKED');");
  out("| `SELECT sum(value) FROM generate_series(1, N)` | %.3f | %.1f ns | 1 | |\n",
      t_gs, t_gs / (double)rows * 1e9);
  out("| `SELECT sum(value) FROM parquet_values(blob, 'DELTA_BINARY_PACKED')` | %.3f | %.1f ns | %.2f | %s 1.25 |\n",
      t_pv, t_pv / (double)rows * 1e9, t_pv / t_gs,
      t_pv / t_gs <= 1.25 ? "met" : "MISSED");
  snprintf(setup, sizeof setup,
           "CREATE TABLE t AS SELECT value * 7 %% 1000003 AS x FROM "
           "generate_series(1, %ld);",
           rows);
  double t_sum = sql_time(ext, setup, "SELECT sum(x) FROM t;");
  double t_enc = sql_time(ext, setup,
                          "SELECT length(parquet_encode(x, "
                          "'DELTA_BINARY_PACKED')) FROM t;");
  double t_encp = sql_time(ext, setup,
                           "SELECT length(parquet_encode(x, 'PLAIN')) FROM t;");
  out("| `SELECT sum(x) FROM t` | %.3f | %.1f ns | 1 | |\n", t_sum,
      t_sum / (double)rows * 1e9);
  out("| `SELECT length(parquet_encode(x, 'DELTA_BINARY_PACKED')) FROM t` | %.3f | %.1f ns | %.2f | %s 1.5 |\n",
      t_enc, t_enc / (double)rows * 1e9, t_enc / t_sum,
      t_enc / t_sum <= 1.5 ? "met" : "MISSED");
  out("| `SELECT length(parquet_encode(x, 'PLAIN')) FROM t` | %.3f | %.1f ns | %.2f | %s 1.5 |\n",
      t_encp, t_encp / (double)rows * 1e9, t_encp / t_sum,
      t_encp / t_sum <= 1.5 ? "met" : "MISSED");
  snprintf(setup, sizeof setup,
           "CREATE TABLE b AS SELECT parquet_encode(x, "
           "'DELTA_BINARY_PACKED') AS blob FROM (SELECT value * 7 %% 1000003 "
           "AS x FROM generate_series(1, %ld));",
           rows);
  double t_json = sql_time(ext, setup,
                           "SELECT parquet_decode(blob, "
                           "'DELTA_BINARY_PACKED') IS NULL FROM b;");
  out("| `SELECT parquet_decode(blob, 'DELTA_BINARY_PACKED') IS NULL` (JSON) | %.3f | %.1f ns | %.0f M values/s | %s 50 M/s |\n",
      t_json, t_json / (double)rows * 1e9, (double)rows / t_json / 1e6,
      (double)rows / t_json / 1e6 >= 50 ? "met" : "MISSED");

  if (!only) {
    out("\n## Peak memory (%ld values)\n\n", big);
    out("- `SELECT sum(value) FROM parquet_values(...)` over %ld values: peak "
        "%ld KiB against %ld KiB for making the blob alone: +%.1f MB (target "
        "< 64 MB: %s)\n",
        big, k_scan1, k_base1, (double)(k_scan1 - k_base1) / 1024,
        (k_scan1 - k_base1) < 64 * 1024 ? "met" : "MISSED");
    out("- `parquet_encode(value, 'DELTA_BINARY_PACKED')` over %ld values: "
        "peak %ld KiB against %ld KiB for `sum(value)`: +%.1f MB, the order "
        "of the encoded size, not of the values (%.0f MB as int64)\n",
        big, k_scan2, k_base2, (double)(k_scan2 - k_base2) / 1024,
        (double)big * 8 / 1e6);
  }

  /* The analysis of the targets (by hand, bench/NOTES.md) follows the
  ** figures in the results file. */
  if (results && notes) {
    FILE *f = fopen(notes, "r");
    if (f) {
      char line[1024];
      fputs("\n", results);
      while (fgets(line, sizeof line, f)) fputs(line, results);
      fclose(f);
    }
  }

done:
  for (int k = 0; k < DS_COUNT; k++) ds_free(&sets[k]);
  if (results) fclose(results);
  int bad = 0;
  for (size_t i = 0; i < NCASES; i++) bad |= !res[i].correct;
  return bad;
}
