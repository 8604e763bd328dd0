/*
** bench.c -- the benchmark: the core against its baselines, in one run.
**
**   build/bench/bench [--quick] [--n N] [--procs P] [--extension PATH]
**                     [--duckdb DIR] [--results FILE [--notes NOTES.md]]
**                     [--only CASE]
**
** For every case (an encoding, a type, a data set that resembles a real
** column) it times, single-threaded:
**
**   decode      the core's decoder, in batches of 1024 values, as the SQL
**               functions read it
**   memcpy      copying the same output bytes in the same batches (the
**               ceiling)
**   reference   a plain scalar decoder of the encoding (bench/reference.c,
**               the floor)
**   the chain   for PLAIN BYTE_ARRAY, its lengths walked alone, nothing
**               written: what any decoder of it must do
**   encode      the core's encoder, the values put in batches of 1024
**   DuckDB      reading the same values from a Parquet file of the same
**               encoding (the time DuckDB's profiler gives its scan), and
**               writing the column (the slope of its time over several
**               amounts of work); bench/duckdb.mjs, one thread
**
** and then bit unpacking alone per bit width, the SQL layer against
** SQLite's own row machinery (the sqlite3 shell with its generate_series),
** peak memory of a scan and of an aggregate, and the same cases at 1e5,
** 1e6 and 1e7 values.
**
** Every figure is measured in P fresh processes (3 unless --procs says),
** each taking the best of its repeats: the core's cases in P runs of this
** program as a child (--child FILE, which writes its figures to FILE),
** each followed by one run of DuckDB's side, and each SQL statement in P
** sqlite3 shells, round by round.  The figures are the median across the
** processes with their spread (bench/stats.h); a ratio is taken within a
** process or a round, and a target is met or missed only when the whole
** spread says so, "unsteady" otherwise.  It prints one table and writes
** it, with the command, the machine and the date, to the results file.
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
#include <time.h>
#include <unistd.h>

#include "encodings/encodings.h"
#include "reference.h"
#include "stats.h"

/* ---- Timing --------------------------------------------------------------- */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Repeats in each process: the encoders' best of ENC_RUNS, the decoders'
** (a pass takes a few milliseconds, and the machine's noise comes in
** bursts) of DEC_RUNS, the reference decoders' (a column of its own, no
** target) of REF_RUNS of those; the SQL statements' of RUNS. */
static int RUNS = 3, ENC_RUNS = 3, DEC_RUNS = 5, REF_RUNS = 2;
/* Untimed runs of a kept encoder (see encode()) before its ENC_RUNS: the
** two streams it alternates between are each written once as they grow,
** and their pages, moved as they grew, are slow to write once more on some
** virtual machines (bench/NOTES.md). */
static const int ENC_WARM = 2;
static int PROCS = 3;
/* The cases decode DECODE_TIMES as many values as they encode: ten
** million values a pass are more than the branch predictor can learn of
** their runs and lengths (bench/NOTES.md), and the encoders, which write
** fresh memory, keep to a tenth of that. */
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
  int vector; /* decoded to the dictionary vector: checked indices */
} bench_case;

static const bench_case cases[] = {
    {PQ_PLAIN, DS_TS, NULL, DUCK_SAME, 0.5, 2, 0},
    {PQ_PLAIN, DS_SMALL32, NULL, DUCK_SAME, 0.5, 2, 0},
    {PQ_PLAIN, DS_DOUBLES, NULL, DUCK_SAME, 0.5, 2, 0},
    {PQ_PLAIN, DS_FLOATS, NULL, DUCK_SAME, 0.5, 2, 0},
    {PQ_PLAIN, DS_STRINGS, NULL, DUCK_SAME, 0.5, 2, 0},
    {PQ_PLAIN, DS_BOOLS, NULL, DUCK_SAME, 0.5, 2, 0},
    {PQ_PLAIN, DS_FLBA, NULL, DUCK_SAME, 0.5, 2, 0},
    {PQ_RLE, DS_BOOLS, NULL, DUCK_SAME, 3, 2, 0},
    {PQ_RLE, DS_INDICES, "{\"bit_width\":6}", DUCK_DICT, 3, 2, 0},
    {PQ_BIT_PACKED, DS_SMALL32, "{\"bit_width\":10}", DUCK_DICT, 3, 2, 0},
    {PQ_RLE_DICTIONARY, DS_LOWCARD32, NULL, DUCK_SAME, 3, 2, 0},
    {PQ_RLE_DICTIONARY, DS_SMALL32, NULL, DUCK_SAME, 3, 2, 0},
    {PQ_RLE_DICTIONARY, DS_LOWCARD_STR, NULL, DUCK_SAME, 3, 2, 0},
    {PQ_RLE_DICTIONARY, DS_LOWCARD_STR, NULL, DUCK_SAME, 3, 2, 1},
    {PQ_RLE_DICTIONARY, DS_PRICES, NULL, DUCK_SAME, 3, 2, 0},
    {PQ_DELTA_BINARY_PACKED, DS_TS, NULL, DUCK_SAME, 3, 4, 0},
    {PQ_DELTA_BINARY_PACKED, DS_RAND64, NULL, DUCK_SAME, 3, 4, 0},
    {PQ_DELTA_BINARY_PACKED, DS_SMALL32, NULL, DUCK_SAME, 3, 4, 0},
    {PQ_DELTA_LENGTH_BYTE_ARRAY, DS_STRINGS, NULL, DUCK_SAME, 4, 2, 0},
    {PQ_DELTA_LENGTH_BYTE_ARRAY, DS_URLS, NULL, DUCK_SAME, 4, 2, 0},
    {PQ_DELTA_BYTE_ARRAY, DS_URLS, NULL, DUCK_SAME, 4, 2, 0},
    {PQ_DELTA_BYTE_ARRAY, DS_STRINGS, NULL, DUCK_SAME, 4, 2, 0},
    {PQ_BYTE_STREAM_SPLIT, DS_DOUBLES, NULL, DUCK_SAME, 4, 2, 0},
    {PQ_BYTE_STREAM_SPLIT, DS_PRICES, NULL, DUCK_SAME, 4, 2, 0},
    {PQ_BYTE_STREAM_SPLIT, DS_FLOATS, NULL, DUCK_SAME, 4, 2, 0},
    {PQ_BYTE_STREAM_SPLIT, DS_SMALL32, NULL, DUCK_NONE, 4, 2, 0},
    {PQ_BYTE_STREAM_SPLIT, DS_FLBA, NULL, DUCK_NONE, 4, 2, 0},
    {PQ_GROUP_VAR_INT, DS_SMALL32, NULL, DUCK_NONE, 0, 0, 0},
    {PQ_GROUP_VAR_INT, DS_TS, NULL, DUCK_NONE, 0, 0, 0},
};
#define NCASES (sizeof cases / sizeof cases[0])

typedef struct result {
  int ran;
  pq_type type;
  size_t plain;             /* bytes of the values decoded, as PLAIN */
  size_t n, n_enc, encoded; /* values decoded, values encoded, their bytes */
  double dec, enc, mem, ref;  /* seconds, best of the process's runs */
  double chain; /* PLAIN BYTE_ARRAY: its lengths walked alone (walk_chain) */
  int correct;
} result;

/* DuckDB's side of a case, one round: seconds decoding the file (its
** profiler's time for the scan), and per n_enc rows written (a slope);
** bench/duckdb.mjs. */
typedef struct duck_result {
  double read, write;
  char encoding[64];
  char error[160];
} duck_result;

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

/* Encodes d's values onto out (and dict).  An encoder that takes stream
** after stream (pq_encoder_reusable) is kept in *keep between calls, as the
** writer keeps one for a column's pages, so that the stream is written
** into the memory of the one before (DuckDB's figure, a slope over many
** rows, is its writer's steady state too); any other is opened and freed
** within the call, as is a kept one that failed. */
static int encode(const bench_case *c, const dataset *d, pq_buf *out,
                  pq_buf *dict, pq_encoder **keep) {
  pq_params p;
  params_of(c, d, &p);
  pq_encoder *e = *keep;
  pq_error err;
  *keep = NULL;
  if (!e && pq_encoder_open(&e, &p, &err)) {
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
  if (!rc && pq_encoder_reusable(e)) *keep = e;
  else pq_encoder_free(e);
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
  const pq_dict *dv = c->vector ? pq_dict_decoder_indices(dec) : NULL;
  size_t vs = value_size(d), done = 0, n;
  int ok = !c->vector || dv;
  uint64_t acc = 0;
  while (ok && pq_decoder_read(dec, batch, 1024, &n, &err) == PQ_OK && n) {
    if (check) {
      if (dv) {
        const uint32_t *ix = (const uint32_t *)(const void *)batch;
        const pq_bytes *b = (const pq_bytes *)d->values + done;
        for (size_t i = 0; i < n && ok; i++) {
          const pq_bytes *a = &dv->strings[ix[i]];
          ok = a->len == b[i].len && memcmp(a->ptr, b[i].ptr, a->len) == 0;
        }
      } else if (d->type == PQ_BYTE_ARRAY) {
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

/* The bytes a case's decoder writes per value. */
static size_t out_size(const bench_case *c, const dataset *d) {
  return c->vector ? 4 : value_size(d);
}

/* The ceiling: the same output bytes copied in the same batches. */
static void copy_batches(const dataset *d, size_t vs, uint8_t *batch) {
  for (size_t i = 0; i < d->n; i += 1024) {
    size_t k = d->n - i < 1024 ? d->n - i : 1024;
    memcpy(batch, (const uint8_t *)d->values + i * vs, k * vs);
    sink += batch[0];
  }
}

/* What every decoder of PLAIN BYTE_ARRAY does at the least: each length
** loaded and checked against the bytes left, and the position moved past
** its value to the next, nothing written.  Each length's load waits for
** the one before, the format's own chain; the loop keeps it one load long
** and asks for the bytes ahead, as the decoder's does
** (src/encodings/plain.c).  0, or -1 when the stream
** is not n values. */
static int walk_chain(const pq_buf *in, size_t n) {
  if (n == 0 || in->len < 4) return n == 0 ? 0 : -1;
  const uint8_t *r = in->data + 4, *const end = in->data + in->len;
  size_t vlen = pq_load32(r - 4), i = 0;
  for (;;) {
    size_t rem = (size_t)(end - r);
    if ((uint64_t)vlen + 4 > rem) {
      if (vlen > rem) return -1;
      r += vlen;
      i++;
      break;
    }
    if (++i == n) {
      r += vlen;
      break;
    }
    PQ_PREFETCH(r + 2048);
    size_t next = pq_load32_at(r, vlen);
    r += vlen + 4;
    vlen = next;
  }
  sink += (uint64_t)(r - in->data);
  return i == n && r == end ? 0 : -1;
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
  r->type = d->type;
  r->plain = d->plain;
  r->n = d->n;
  r->n_enc = n_enc < d->n ? n_enc : d->n;
  dataset head = *d; /* the values encoded */
  head.n = r->n_enc;
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  uint8_t *batch = malloc(1024 * 16 + 64);
  /* The reference decoders' output, kept from case to case: its pages are
  ** touched once a process, not once a case. */
  static void *full;
  static uint8_t *heap;
  static size_t full_cap, heap_cap;
  if (d->n * 16 + 64 > full_cap) {
    free(full);
    full_cap = d->n * 16 + 64;
    full = malloc(full_cap);
  }
  if (d->plain + 64 > heap_cap) {
    free(heap);
    heap_cap = d->plain + 64;
    heap = malloc(heap_cap);
  }
  if (!batch || !full || !heap) {
    fprintf(stderr, "bench: out of memory\n");
    exit(1);
  }
  double best_enc = 1e30, best_dec = 1e30, best_mem = 1e30, best_ref = 1e30,
         best_chain = 1e30;
  int correct = 1;
  pq_encoder *keep = NULL;
  for (int run = 0, warm = ENC_WARM; run < ENC_RUNS; run++) {
    out.len = dict.len = 0;
    double t0 = now();
    if (encode(c, &head, &out, &dict, &keep)) {
      correct = 0;
      break;
    }
    double t1 = now();
    if (keep && warm > 0) { /* a kept encoder's runs before its steady state */
      warm--;
      run--;
      continue;
    }
    if (t1 - t0 < best_enc) best_enc = t1 - t0;
  }
  r->encoded = out.len + dict.len;
  if (correct && head.n < d->n) { /* the stream decoded: all of d */
    out.len = dict.len = 0;
    if (encode(c, d, &out, &dict, &keep)) correct = 0;
  }
  pq_encoder_free(keep);
  /* Decoding, its baselines beside it. */
  for (int run = 0; correct && run < DEC_RUNS; run++) {
    double t0 = now();
    if (decode(c, d, &out, &dict, run == 0, batch)) correct = 0;
    double t1 = now();
    copy_batches(d, out_size(c, d), batch);
    double t2 = now();
    if (t1 - t0 < best_dec) best_dec = t1 - t0;
    if (t2 - t1 < best_mem) best_mem = t2 - t1;
    if (c->enc == PQ_PLAIN && d->type == PQ_BYTE_ARRAY) {
      if (walk_chain(&out, d->n)) correct = 0;
      double tw = now() - t2;
      if (tw < best_chain) best_chain = tw;
      t2 = now();
    }
    if (run >= REF_RUNS) continue;
    if (reference(c, d, &out, &dict, full, heap)) correct = 0;
    double t3 = now();
    if (t3 - t2 < best_ref) best_ref = t3 - t2;
    if (run == 0 && correct && !same_values(d, full)) {
      fprintf(stderr, "bench: the reference decoder of %s differs\n",
              pq_encoding_name(c->enc));
      correct = 0;
    }
    sink += ((uint8_t *)full)[0];
  }
  r->ran = 1;
  r->correct = correct;
  r->enc = best_enc;
  r->dec = best_dec;
  r->mem = best_mem;
  r->ref = best_ref;
  r->chain = best_chain < 1e30 ? best_chain : 0; /* 0: not this case */
  free(batch);
  pq_buf_free(&out);
  pq_buf_free(&dict);
}

/* ---- Bit unpacking alone ---------------------------------------------------- */

static double unpack_rate[33];

static void bench_unpack(void) {
  size_t n = 1 << 20; /* values per pass */
  uint8_t *packed = malloc(n * 4 + 64);
  uint32_t out[32];
  const pq_unpack32_fn *unpack = pq_unpack32_table(pq_cpu());
  for (size_t i = 0; i < n * 4 + 64; i++) packed[i] = (uint8_t)rnd();
  for (int w = 1; w <= 32; w++) {
    double best = 1e30;
    for (int run = 0; run < DEC_RUNS; run++) {
      double t0 = now();
      const uint8_t *p = packed;
      uint64_t acc = 0;
      for (size_t i = 0; i < n; i += 32) {
        unpack[w](p, out);
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

static const char *short_type(pq_type t) {
  switch (t) {
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

/* Writes the cases' files and the manifest for bench/duckdb.mjs (in the
** first child, which has the data sets). */
static void write_duck_files(const char *workdir, const dataset *sets,
                             const result *res) {
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
}

/* One round of DuckDB's side: a fresh node process over the manifest. */
static void run_duckdb(const char *duckdir, const char *workdir, int quick,
                       duck_result *dr) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "env -u LD_PRELOAD node bench/duckdb.mjs '%s' '%s/manifest.json' %d %s",
           duckdir, workdir, RUNS, quick ? "0.02" : "0.1");
  FILE *p = popen(cmd, "r");
  if (!p) return;
  char line[4096];
  while (fgets(line, sizeof line, p)) {
    int i = (int)json_num(line, "case");
    if (i < 0 || (size_t)i >= NCASES) continue;
    duck_result *r = &dr[i];
    r->read = json_num(line, "read");
    r->write = json_num(line, "write");
    json_str(line, "encoding", r->encoding, sizeof r->encoding);
    json_str(line, "error", r->error, sizeof r->error);
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

/* ---- Processes ------------------------------------------------------------- */

/* The cases of the linear table, by encoding and data set. */
#define NLIN 5
static const struct {
  pq_encoding enc;
  int ds;
} lin_cases[NLIN] = {{PQ_DELTA_BINARY_PACKED, DS_TS},
                     {PQ_RLE_DICTIONARY, DS_LOWCARD_STR},
                     {PQ_DELTA_BYTE_ARRAY, DS_URLS},
                     {PQ_BYTE_STREAM_SPLIT, DS_DOUBLES},
                     {PQ_PLAIN, DS_DOUBLES}};

static const bench_case *lin_case(int k) {
  for (size_t i = 0; i < NCASES; i++)
    if (cases[i].enc == lin_cases[k].enc && cases[i].ds == lin_cases[k].ds &&
        !cases[i].vector)
      return &cases[i];
  return NULL;
}

/* What one child measures, written to its file in one piece. */
typedef struct child_out {
  result res[NCASES];
  double unpack_rate[33];
  double lin_dec[NLIN][3], lin_enc[NLIN][3]; /* seconds a value */
} child_out;

/* The child: makes the data sets, times every case (and, unless --only,
** bit unpacking and the linear table), and writes what it measured to
** path; with duck_files, also the files DuckDB reads. */
static int child_main(const char *path, size_t n, int quick, const char *only,
                      const char *workdir, int duck_files) {
  static dataset sets[DS_COUNT];
  static child_out co;
  for (int k = 0; k < DS_COUNT; k++) ds_make(&sets[k], k, n * DECODE_TIMES);
  for (size_t i = 0; i < NCASES; i++) {
    char name[64];
    snprintf(name, sizeof name, "%s%s %s", short_enc(cases[i].enc),
             cases[i].vector ? " vector" : "", sets[cases[i].ds].name);
    if (only && !strstr(name, only)) continue;
    run_case(&cases[i], &sets[cases[i].ds], n, &co.res[i]);
  }
  if (duck_files) write_duck_files(workdir, sets, co.res);
  for (int k = 0; k < DS_COUNT; k++) ds_free(&sets[k]);
  if (!only) {
    bench_unpack();
    memcpy(co.unpack_rate, unpack_rate, sizeof unpack_rate);
    size_t sizes[3] = {100000, 1000000, quick ? 2000000 : 10000000};
    for (int k = 0; k < NLIN; k++) {
      const bench_case *c = lin_case(k);
      for (int z = 0; z < 3; z++) {
        dataset d;
        ds_make(&d, c->ds, sizes[z]);
        result r;
        run_case(c, &d, d.n, &r);
        co.lin_dec[k][z] = r.dec / (double)d.n;
        co.lin_enc[k][z] = r.enc / (double)r.n_enc;
        ds_free(&d);
      }
    }
  }
  FILE *f = fopen(path, "wb");
  int ok = f && fwrite(&co, sizeof co, 1, f) == 1;
  if (f) fclose(f);
  return ok ? 0 : 1;
}

/* Runs this program again as a child writing to path, and reads it; 0
** when it ran and wrote it. */
static int spawn_child(int argc, char **argv, const char *path, int duck_files,
                       child_out *co) {
  if (stats_spawn(argc, argv, path, duck_files ? "--duck-files" : NULL))
    return -1;
  FILE *f = fopen(path, "rb");
  int ok = f && fread(co, sizeof *co, 1, f) == 1;
  if (f) fclose(f);
  unlink(path);
  return ok ? 0 : -1;
}

/* ---- Main ------------------------------------------------------------------ */

/* The SQL statements, each timed in a shell of its own in every round. */
enum { Q_GS, Q_PV_DELTA, Q_PV_PLAIN, Q_SUM, Q_ENC_DELTA, Q_ENC_PLAIN, Q_JSON, NQ };

int main(int argc, char **argv) {
  int quick = has_flag(argc, argv, "--quick");
  size_t n = (size_t)atol(arg_value(argc, argv, "--n", quick ? "200000" : "1000000"));
  const char *ext = arg_value(argc, argv, "--extension", "build/parquet.so");
  const char *duckdir = arg_value(argc, argv, "--duckdb", NULL);
  const char *resfile = arg_value(argc, argv, "--results", NULL);
  const char *workdir = arg_value(argc, argv, "--work", "build/bench");
  const char *only = arg_value(argc, argv, "--only", NULL);
  const char *notes = arg_value(argc, argv, "--notes", NULL);
  const char *child = arg_value(argc, argv, "--child", NULL);
  PROCS = atoi(arg_value(argc, argv, "--procs", "3"));
  if (PROCS < 1) PROCS = 1;
  if (PROCS > STATS_MAX) PROCS = STATS_MAX;
  if (quick) {
    RUNS = ENC_RUNS = 2;
    DEC_RUNS = 3;
  }
  if (child)
    return child_main(child, n, quick, only, workdir,
                      has_flag(argc, argv, "--duck-files"));
  if (resfile) results = fopen(resfile, "w");

  char mach[512], date[64];
  machine(mach, sizeof mach);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  out("# Benchmark results\n\n");
  out("- command: `make bench`%s\n", quick ? " (quick)" : "");
  out("- machine: %s\n- date: %s\n", mach, date);
  out("- single thread; every figure measured in %d fresh processes, each "
      "taking the best of its repeats, and given as the median across them "
      "with the spread (smallest-largest); a target is met or missed only "
      "when the whole spread is on one side of it, else unsteady\n",
      PROCS);
  out("- per case and process: %zu values decoded (best of %d), the first "
      "%zu of them encoded (best of %d; an encoder that takes stream after "
      "stream, PLAIN and the DELTA encodings of integers and lengths, is "
      "kept from run to run, as the writer keeps one for a column's pages, "
      "and timed after %d untimed runs), unless said\n\n",
      n * DECODE_TIMES, DEC_RUNS, n, ENC_RUNS, ENC_WARM);

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

  /* The core's rounds: a child, then DuckDB's side, PROCS times. */
  static child_out co[STATS_MAX];
  static duck_result duck[STATS_MAX][NCASES];
  int nco = 0;
  for (int r = 0; r < PROCS; r++) {
    char path[1100];
    snprintf(path, sizeof path, "%s/child%d.bin", workdir, r);
    /* The first child that runs writes the files DuckDB reads. */
    if (spawn_child(argc, argv, path, nco == 0 && duckdir, &co[nco])) continue;
    if (duckdir) run_duckdb(duckdir, workdir, quick, duck[nco]);
    nco++;
  }
  if (!nco) {
    fprintf(stderr, "bench: no child ran\n");
    return 1;
  }
  const result *res = co[0].res; /* what does not vary: sizes, types */

  out("## Decoding and encoding, per case\n\n");
  out("Mv/s: million values per second; MB/s: of the data as PLAIN. "
      "x memcpy: decode speed as a fraction of copying the same output "
      "bytes in the same batches; x ref: over a plain scalar decoder; "
      "x DuckDB: over DuckDB reading the same values from a file of the "
      "same encoding (the time its own profiler gives the scan, which "
      "reads and decodes the column, in a query reading k copies of the "
      "file, k making it last at least 0.1 s, over k: neither the "
      "aggregate nor what any query costs counts); enc x DuckDB: the "
      "encoder over DuckDB writing the column (its time per %zu rows, the "
      "slope of COPY's time over 1 and k copies of them). Each "
      "figure: median (smallest-largest) over the processes; a ratio is "
      "taken process by process, DuckDB's from the run beside it.\n\n",
      res[0].n_enc);
  out("| case | data | bytes/value | decode Mv/s | MB/s | x memcpy | x ref | "
      "DuckDB Mv/s | x DuckDB | target | encode Mv/s | DuckDB write Mv/s (its encoding) | enc x DuckDB | target |\n");
  out("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  int bad = 0;
  for (size_t i = 0; i < NCASES; i++) {
    const bench_case *c = &cases[i];
    const result *r = &res[i];
    char name[64];
    if (!r->ran) continue;
    snprintf(name, sizeof name, "%s %s%s", short_enc(c->enc),
             short_type(r->type), c->vector ? " (dictionary vector)" : "");
    int correct = 1;
    sample dec = {0}, mem = {0}, ref = {0}, enc = {0}, ddec = {0}, dwr = {0},
           dec_d = {0}, enc_d = {0};
    for (int k = 0; k < nco; k++) {
      const result *x = &co[k].res[i];
      const duck_result *dx = &duck[k][i];
      correct &= x->ran && x->correct;
      stats_add(&dec, x->dec);
      stats_add(&mem, x->mem);
      stats_add(&ref, x->ref);
      stats_add(&enc, x->enc);
      if (c->duck != DUCK_NONE && dx->read > 0 && !dx->error[0]) {
        stats_add(&ddec, dx->read);
        stats_add(&dec_d, x->dec); /* paired with this round's DuckDB */
      }
      if (dx->write > 0 && !dx->error[0]) {
        stats_add(&dwr, dx->write);
        stats_add(&enc_d, x->enc);
      }
    }
    if (!correct) {
      bad = 1;
      out("| %s | %s | FAILED: decoded values differ | | | | | | | | | | | |\n",
          name, ds_names[c->ds]);
      continue;
    }
    char s_dec[64], s_mem[64], s_ref[64], s_dd[64], s_xd[64], tgt[96],
        s_enc[64], s_dw[160], s_xw[64], wtgt[96];
    figure f_dec = stats_per((double)r->n / 1e6, &dec);
    stats_str(f_dec, "%.0f", s_dec, sizeof s_dec);
    figure f_mem = stats_ratio(&mem, &dec);
    stats_str(f_mem, "%.2f", s_mem, sizeof s_mem);
    stats_str(stats_ratio(&ref, &dec), "%.1f", s_ref, sizeof s_ref);
    stats_str(stats_per((double)r->n_enc / 1e6, &enc), "%.0f", s_enc,
              sizeof s_enc);
    snprintf(s_dd, sizeof s_dd, "n/a");
    s_xd[0] = tgt[0] = s_xw[0] = wtgt[0] = 0;
    snprintf(s_dw, sizeof s_dw, "n/a");
    figure f_xd = stats_ratio(&ddec, &dec_d);
    if (ddec.n) {
      stats_str(stats_per((double)r->n / 1e6, &ddec), "%.0f", s_dd,
                sizeof s_dd);
      if (c->duck == DUCK_DICT) strcat(s_dd, " (as dictionary)");
      stats_str(f_xd, "%.2f", s_xd, sizeof s_xd);
    } else if (duck[0][i].error[0]) {
      snprintf(s_dd, sizeof s_dd, "error");
    }
    if (c->enc == PQ_PLAIN) {
      snprintf(tgt, sizeof tgt, "%s 0.5 x memcpy",
               stats_verdict(f_mem, c->dec_target, 1));
    } else if (c->dec_target > 0 && ddec.n) {
      snprintf(tgt, sizeof tgt, "%s %g x",
               stats_verdict(f_xd, c->dec_target, 1), c->dec_target);
    }
    if (dwr.n) {
      char tmp[64];
      stats_str(stats_per((double)r->n_enc / 1e6, &dwr), "%.0f", tmp,
                sizeof tmp);
      snprintf(s_dw, sizeof s_dw, "%s (%s)", tmp, duck[0][i].encoding);
      figure f_xw = stats_ratio(&dwr, &enc_d);
      stats_str(f_xw, "%.2f", s_xw, sizeof s_xw);
      if (c->enc_target > 0)
        snprintf(wtgt, sizeof wtgt, "%s %g x",
                 stats_verdict(f_xw, c->enc_target, 1), c->enc_target);
    }
    out("| %s | %s | %.2f | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | "
        "%s | %s |\n",
        name, ds_names[c->ds], (double)r->encoded / (double)r->n_enc, s_dec,
        (double)r->plain / (f_dec.med > 0 ? (double)r->n / f_dec.med : 1),
        s_mem, s_ref, s_dd, s_xd, tgt, s_enc, s_dw, s_xw, wtgt);
  }
  /* PLAIN BYTE_ARRAY's bound: its chain of lengths walked alone. */
  for (size_t i = 0; i < NCASES; i++) {
    sample chain = {0}, dec = {0}, mem = {0};
    for (int k = 0; k < nco; k++) {
      const result *x = &co[k].res[i];
      if (!x->ran || !x->correct || x->chain <= 0) continue;
      stats_add(&chain, x->chain);
      stats_add(&dec, x->dec);
      stats_add(&mem, x->mem);
    }
    if (!chain.n) continue;
    char s_c[64], s_cm[64], s_dc[64];
    stats_str(stats_per((double)co[0].res[i].n / 1e6, &chain), "%.0f", s_c,
              sizeof s_c);
    stats_str(stats_ratio(&mem, &chain), "%.2f", s_cm, sizeof s_cm);
    stats_str(stats_ratio(&chain, &dec), "%.2f", s_dc, sizeof s_dc);
    out("\n%s %s (`%s`): its lengths walked alone, each loaded and checked "
        "and the position moved past its value, nothing written (any "
        "decoder's least work, a chain of loads): %s M values/s, %s x "
        "memcpy; the decoder runs at %s x that walk.\n",
        short_enc(cases[i].enc), short_type(co[0].res[i].type),
        ds_names[cases[i].ds], s_c, s_cm, s_dc);
  }
  for (size_t i = 0; i < NCASES; i++)
    if (duck[0][i].error[0])
      out("\nDuckDB on case %zu (%s %s): %s\n", i, short_enc(cases[i].enc),
          ds_names[cases[i].ds], duck[0][i].error);

  out("\nData sets:\n\n");
  for (int k = 0; k < DS_COUNT; k++)
    out("- `%s`: %s\n", ds_names[k], ds_what[k]);

  if (only) goto done;

  /* Bit unpacking. */
  out("\n## Bit unpacking alone (32 values a call, the unpackers the decoders use on this machine), G values/s by bit width\n\n");
  out("(the median over the processes)\n\n| width |");
  for (int w = 1; w <= 32; w++) out(" %d |", w);
  out("\n|---|");
  for (int w = 1; w <= 32; w++) out("---|");
  out("\n| G/s |");
  figure worst = {1e30, 1e30, 1e30, 0};
  for (int w = 1; w <= 32; w++) {
    sample u = {0};
    for (int k = 0; k < nco; k++) stats_add(&u, co[k].unpack_rate[w] / 1e9);
    figure f = stats_of(&u);
    out(" %.1f |", f.med);
    if (f.n && f.med < worst.med) worst = f;
  }
  char s_worst[64];
  out("\n\nslowest width: %s G values/s (target 3: %s)\n",
      stats_str(worst, "%.2f", s_worst, sizeof s_worst),
      stats_verdict(worst, 3, 1));

  /* Complexity. */
  out("\n## Linear in the input: ns per value at 1e5, 1e6, %s values\n\n",
      quick ? "2e6" : "1e7");
  out("| case | decode 1e5 | 1e6 | %s | encode 1e5 | 1e6 | %s |\n",
      quick ? "2e6" : "1e7", quick ? "2e6" : "1e7");
  out("|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < NLIN; k++) {
    const bench_case *c = lin_case(k);
    out("| %s %s |", short_enc(c->enc), ds_names[c->ds]);
    for (int e = 0; e < 2; e++)
      for (int z = 0; z < 3; z++) {
        sample s = {0};
        for (int j = 0; j < nco; j++)
          stats_add(&s, (e ? co[j].lin_enc : co[j].lin_dec)[k][z] * 1e9);
        char b[64];
        out(" %s |", stats_str(stats_of(&s), "%.2f", b, sizeof b));
      }
    out("\n");
  }

  /* SQL: each statement in a shell of its own, PROCS rounds. */
  long rows = quick ? 2000000 : 10000000;
  char setup_b[1024], setup_p[1024], setup_t[1024], setup_j[1024],
      gs[256];
  snprintf(gs, sizeof gs, "SELECT sum(value) FROM generate_series(1, %ld);",
           rows);
  snprintf(setup_b, sizeof setup_b,
           "CREATE TABLE b AS SELECT parquet_encode(value, "
           "'DELTA_BINARY_PACKED') AS blob FROM generate_series(1, %ld);",
           rows);
  snprintf(setup_p, sizeof setup_p,
           "CREATE TABLE b AS SELECT parquet_encode(value, 'PLAIN') AS blob "
           "FROM generate_series(1, %ld);",
           rows);
  snprintf(setup_t, sizeof setup_t,
           "CREATE TABLE t AS SELECT value * 7 %% 1000003 AS x FROM "
           "generate_series(1, %ld);",
           rows);
  snprintf(setup_j, sizeof setup_j,
           "CREATE TABLE b AS SELECT parquet_encode(x, "
           "'DELTA_BINARY_PACKED') AS blob FROM (SELECT value * 7 %% 1000003 "
           "AS x FROM generate_series(1, %ld));",
           rows);
  const struct {
    const char *setup, *stmt, *label;
  } qs[NQ] = {
      {"", gs, "`SELECT sum(value) FROM generate_series(1, N)`"},
      {setup_b,
       "SELECT sum(value) FROM b, parquet_values(b.blob, "
       "'DELTA_BINARY_PACKED');",
       "`SELECT sum(value) FROM parquet_values(blob, 'DELTA_BINARY_PACKED')`"},
      {setup_p,
       "SELECT sum(value) FROM b, parquet_values(b.blob, 'PLAIN', 'INT64');",
       "`SELECT sum(value) FROM parquet_values(blob, 'PLAIN', 'INT64')`"},
      {setup_t, "SELECT sum(x) FROM t;", "`SELECT sum(x) FROM t`"},
      {setup_t,
       "SELECT length(parquet_encode(x, 'DELTA_BINARY_PACKED')) FROM t;",
       "`SELECT length(parquet_encode(x, 'DELTA_BINARY_PACKED')) FROM t`"},
      {setup_t, "SELECT length(parquet_encode(x, 'PLAIN')) FROM t;",
       "`SELECT length(parquet_encode(x, 'PLAIN')) FROM t`"},
      {setup_j,
       "SELECT parquet_decode(blob, 'DELTA_BINARY_PACKED') IS NULL FROM b;",
       "`SELECT parquet_decode(blob, 'DELTA_BINARY_PACKED') IS NULL` (JSON)"},
  };
  sample qt[NQ];
  memset(qt, 0, sizeof qt);
  for (int r = 0; r < PROCS; r++)
    for (int q = 0; q < NQ; q++) {
      double s = sql_time(ext, qs[q].setup, qs[q].stmt);
      /* A round whose statement failed is left out of every ratio. */
      qt[q].v[r] = s;
      qt[q].n = r + 1;
    }
  out("\n## SQL against SQLite's own row machinery (%ld rows)\n\n", rows);
  out("Each statement in %d sqlite3 shells, one a round, best of %d runs "
      "in each; a ratio is taken round by round.\n\n", PROCS, RUNS);
  out("| query | seconds | per row ns | ratio | target |\n|---|---|---|---|---|\n");
  for (int q = 0; q < NQ; q++) {
    char a[64], b[64], c[64], tg[96] = "";
    figure f = stats_of(&qt[q]);
    stats_str(f, "%.3f", a, sizeof a);
    double per = 1e9 / (double)rows; /* seconds into ns a row */
    figure g = {f.med * per, f.lo * per, f.hi * per, f.n};
    stats_str(g, "%.1f", b, sizeof b);
    int base = q == Q_GS || q == Q_SUM;
    if (base) {
      snprintf(c, sizeof c, "1");
    } else if (q == Q_JSON) {
      figure m = stats_per((double)rows / 1e6, &qt[q]);
      stats_str(m, "%.0f", c, sizeof c);
      strcat(c, " M values/s");
      snprintf(tg, sizeof tg, "%s 50 M/s", stats_verdict(m, 50, 1));
    } else {
      const sample *den = q <= Q_PV_PLAIN ? &qt[Q_GS] : &qt[Q_SUM];
      double target = q <= Q_PV_PLAIN ? 1.25 : 1.5;
      figure x = stats_ratio(&qt[q], den);
      stats_str(x, "%.2f", c, sizeof c);
      snprintf(tg, sizeof tg, "%s %g", stats_verdict(x, target, 0), target);
    }
    out("| %s | %s | %s | %s | %s |\n", qs[q].label, a, b, c, tg);
  }

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
  if (results) fclose(results);
  return bad;
}
