/*
** alp.c -- the benchmark of ALP (encoding 10, spec/AlpEncoding.md): its
** size on the ALP paper's data sets beside PLAIN and BYTE_STREAM_SPLIT,
** raw and with ZSTD, and its speed beside PLAIN + ZSTD, in one run.
**
**   build/bench/alp [--quick] [--work DIR] [--data TAR.GZ] [--n N]
**                   [--page N] [--runs N] [--results FILE]
**                   [--vectors SET] [--profile SECONDS]
**
** Data: the CSV files of ../shared/alp-testing/floatingpoint_data.tar.gz
** (--data), extracted with tar at each run into WORK/alp_data (never into
** the repository).  Every column of every file is a data set of its own
** (floatingpoint_poi.csv and floatingpoint_spotify*.csv have several; a
** header line, when a file has one, names them; the four columns of
** floatingpoint_arade.csv have none and are numbered 1 to 4), parsed with
** strtod as DOUBLE, and for the FLOAT figures the columns of the spotify
** and arade files (the data of the float test files beside the tar)
** parsed with strtof.
**
** Size: each data set is one stream of all its values, as one page holds
** them: ALP as the core's encoder writes it (vector size 1024), PLAIN and
** BYTE_STREAM_SPLIT, each raw and compressed with ZSTD at the level the
** writer uses by default (pq_compress).  Bits per value = bytes * 8 / values.
** Beside them, the least ALP could take with the same layout: for each
** vector of 1024, every (exponent, factor) pair tried on all its values,
** the smallest vector kept (what a perfect search of the spec's kind would
** find), and the ALP paper's figure where the issue gives it.  --vectors
** SET prints, for one data set, each vector's choice against that best.
** --profile SECONDS decodes the DOUBLE pages of ALP (below) again and
** again for that long and prints only the rate, for perf.
**
** Speed: the data sets' DOUBLE values one after the other, repeated to N
** values (10 M), cut into pages of PAGE values (131072: 1 MiB as PLAIN,
** the writer's default page size).  Each page is decoded as a reader does
** it: decompressed when it has a codec (into a buffer reserved and touched
** before timing), then its decoder opened and read in batches of 1024
** values into a small buffer, as the SQL functions read.  Side by side in
** each run: ALP, PLAIN + ZSTD, BYTE_STREAM_SPLIT + ZSTD, a copy of ALP's
** pages read alone (a byte of every 64: the cost of bringing them from
** memory), ALP + ZSTD and PLAIN (so that each pass reads its pages from
** memory, not from the caches, which the passes between have filled);
** best of RUNS (20), and the median run beside it.  Encoding: each
** page's encoder opened, the values put in batches of 1024, finished into
** an output buffer reused from page to page; best of RUNS / 2 (10).  The
** first run checks every decoded value against the input.  glibc is told (mallopt) to keep freed
** memory and to serve large blocks from its heap, so that the encoders'
** buffers, allocated per page, are memory touched before, as in a long
** running writer, not fresh pages whose first touch the machine charges
** some 12 us for.
**
** The speed is measured in PROCS (3) fresh processes, runs of this program
** as a child (--child FILE: the speed part alone, its figures and tables
** written to FILE); the tables shown are those of the process whose ALP
** decoding was the median, and the targets give the median and spread
** over all of them (bench/stats.h).
**
** The section is written under the heading HEADING, in place of the one a
** run before wrote, else at the end of the results file.
*/
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L

#define BENCH_NAME "alp"
#include "shell.h"

#include <dirent.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>

#include "encodings/encodings.h"

#define HEADING "## ALP: size and speed on the ALP paper's data sets"

static volatile uint64_t sink; /* keeps results alive */
static double profile_seconds; /* --profile: ALP decoding alone, so long */
static int failed;             /* a stream did not decode to its values */

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* ---- Data sets ------------------------------------------------------------ */

/* The ALP paper's bits per value of ALP for the data sets that the
** tar holds, as the issue gives them. */
typedef struct paper_fig {
  const char *file;   /* CSV base name */
  int column;         /* 1-based */
  const char *name;   /* the paper's name */
  double bits;
} paper_fig;
static const paper_fig PAPER[] = {
    {"floatingpoint_arade.csv", 4, "Arade/4", 24.94},
    {"floatingpoint_citytemperature.csv", 1, "City-Temp", 10.74},
    {"floatingpoint_birdmigration.csv", 1, "Bird-Mig", 20.14},
};
#define NPAPER (sizeof PAPER / sizeof PAPER[0])
/* The other figures, whose data the tar does not hold. */
static const char *const PAPER_ABSENT = "NYC/29 (40.38) and Food-prices (23.65)";
#define TARGET_OVER_PAPER 1.05

typedef struct set {
  char name[96];
  int paper;      /* index in PAPER, or -1 */
  int has_float;  /* parsed as FLOAT too */
  size_t n;
  double *d;
  float *f;
} set;

static set *sets;
static size_t nsets, capsets;

static int float_file(const char *base) {
  return strncmp(base, "floatingpoint_spotify", 21) == 0 ||
         strcmp(base, "floatingpoint_arade.csv") == 0;
}

/* A field of a line: [p, end) parsed whole by strtod. */
static int number(const char *p, const char *end, double *d, float *f) {
  char tmp[128];
  size_t len = (size_t)(end - p);
  if (len == 0 || len >= sizeof tmp) return 0;
  memcpy(tmp, p, len);
  tmp[len] = 0;
  char *e;
  *d = strtod(tmp, &e);
  if (*e) return 0;
  *f = strtof(tmp, &e);
  return 1;
}

/* Reads one CSV file into a data set per column. */
static int read_csv(const char *dir, const char *base) {
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", dir, base);
  FILE *fp = fopen(path, "r");
  if (!fp) {
    fprintf(stderr, "alp: cannot read %s\n", path);
    return -1;
  }
  char line[8192];
  size_t first = nsets, ncols = 0, cap = 0, rows = 0;
  char names[64][64];
  int line_no = 0, header = 0;
  while (fgets(line, sizeof line, fp)) {
    line[strcspn(line, "\r\n")] = 0;
    if (!line[0]) continue;
    line_no++;
    /* The fields. */
    const char *fs[64], *fe[64];
    size_t k = 0;
    const char *p = line;
    for (;;) {
      const char *q = p + strcspn(p, ",|");
      if (k < 64) {
        fs[k] = p;
        fe[k] = q;
        k++;
      }
      if (!*q) break;
      p = q + 1;
    }
    double d;
    float f;
    if (line_no == 1) {
      ncols = k;
      header = !number(fs[0], fe[0], &d, &f);
      for (size_t c = 0; c < ncols; c++) {
        if (header) {
          size_t l = (size_t)(fe[c] - fs[c]);
          if (l > 63) l = 63;
          memcpy(names[c], fs[c], l);
          names[c][l] = 0;
        } else {
          snprintf(names[c], sizeof names[c], "%zu", c + 1);
        }
      }
      if (nsets + ncols > capsets) {
        capsets = (nsets + ncols) * 2;
        sets = realloc(sets, capsets * sizeof *sets);
      }
      char stem[64];
      snprintf(stem, sizeof stem, "%s",
               strncmp(base, "floatingpoint_", 14) == 0 ? base + 14 : base);
      stem[strcspn(stem, ".")] = 0;
      for (size_t c = 0; c < ncols; c++) {
        set *s = &sets[nsets + c];
        memset(s, 0, sizeof *s);
        if (ncols == 1)
          snprintf(s->name, sizeof s->name, "%s", stem);
        else
          snprintf(s->name, sizeof s->name, "%s/%s", stem, names[c]);
        s->paper = -1;
        for (size_t i = 0; i < NPAPER; i++)
          if (strcmp(PAPER[i].file, base) == 0 &&
              (size_t)PAPER[i].column == c + 1)
            s->paper = (int)i;
        s->has_float = float_file(base);
      }
      nsets += ncols;
      if (header) continue;
    }
    if (k != ncols) {
      fprintf(stderr, "alp: %s line %d: %zu fields, not %zu\n", base, line_no,
              k, ncols);
      fclose(fp);
      return -1;
    }
    if (rows == cap) {
      cap = cap ? cap * 2 : 16384;
      for (size_t c = 0; c < ncols; c++) {
        sets[first + c].d = realloc(sets[first + c].d, cap * sizeof(double));
        sets[first + c].f = realloc(sets[first + c].f, cap * sizeof(float));
      }
    }
    for (size_t c = 0; c < ncols; c++) {
      if (!number(fs[c], fe[c], &d, &f)) {
        fprintf(stderr, "alp: %s line %d: not a number: %.*s\n", base,
                line_no, (int)(fe[c] - fs[c]), fs[c]);
        fclose(fp);
        return -1;
      }
      sets[first + c].d[rows] = d;
      sets[first + c].f[rows] = f;
    }
    rows++;
  }
  fclose(fp);
  for (size_t c = 0; c < ncols; c++) sets[first + c].n = rows;
  if (rows == 0) { /* a header alone: nothing to measure */
    for (size_t c = 0; c < ncols; c++) {
      free(sets[first + c].d);
      free(sets[first + c].f);
    }
    nsets = first;
  }
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Extracts the tar into dir and reads every CSV in it, by name. */
static int load_data(const char *tar, const char *dir) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s' && tar xzf '%s' -C '%s'", dir, tar,
           dir);
  if (system(cmd) != 0) {
    fprintf(stderr, "alp: %s failed\n", cmd);
    return -1;
  }
  DIR *dp = opendir(dir);
  if (!dp) return -1;
  char *names[256];
  size_t nn = 0;
  struct dirent *de;
  while (nn < 256 && (de = readdir(dp)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l > 4 && strcmp(de->d_name + l - 4, ".csv") == 0)
      names[nn++] = strdup(de->d_name);
  }
  closedir(dp);
  qsort(names, nn, sizeof names[0], cmp_str);
  int rc = nn ? 0 : -1;
  for (size_t i = 0; i < nn; i++) {
    if (!rc) rc = read_csv(dir, names[i]);
    free(names[i]);
  }
  return rc;
}

/* ---- Streams ---------------------------------------------------------------- */

static void params(pq_params *p, pq_encoding enc, int dbl) {
  pq_params_init(p);
  p->encoding = enc;
  p->type = dbl ? PQ_DOUBLE : PQ_FLOAT;
  p->type_set = 1;
}

/* Appends the stream of n values to out: encoded in batches of 1024. */
static int encode(pq_encoding enc, int dbl, const void *v, size_t n,
                  pq_buf *out) {
  pq_params p;
  params(&p, enc, dbl);
  pq_encoder *e;
  pq_error err;
  if (pq_encoder_open(&e, &p, &err)) {
    fprintf(stderr, "alp: %s\n", err.msg);
    return -1;
  }
  size_t vs = dbl ? 8 : 4;
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i += 1024) {
    size_t k = n - i < 1024 ? n - i : 1024;
    rc = pq_encoder_put(e, (const uint8_t *)v + i * vs, k, &err);
  }
  if (!rc) rc = pq_encoder_finish(e, out, NULL, &err);
  if (rc) fprintf(stderr, "alp: %s\n", err.msg);
  pq_encoder_free(e);
  return rc || out->oom ? -1 : 0;
}

/* Decodes a stream of n values in batches of 1024 into batch; checks them
** against v when v is not NULL. */
static int decode(pq_encoding enc, int dbl, const uint8_t *buf, size_t len,
                  size_t n, const void *v, uint8_t *batch) {
  pq_params p;
  params(&p, enc, dbl);
  p.count = (int64_t)n;
  pq_decoder *d;
  pq_error err;
  if (pq_decoder_open(&d, &p, buf, len, NULL, 0, &err)) {
    fprintf(stderr, "alp: %s\n", err.msg);
    return -1;
  }
  size_t vs = dbl ? 8 : 4, done = 0, got;
  int ok = 1;
  uint64_t acc = 0;
  while (pq_decoder_read(d, batch, 1024, &got, &err) == PQ_OK && got) {
    if (v && memcmp(batch, (const uint8_t *)v + done * vs, got * vs) != 0)
      ok = 0;
    acc += batch[8];
    done += got;
  }
  sink += acc;
  pq_decoder_free(d);
  return ok && done == n ? 0 : -1;
}

/* Bytes of the stream of n values, compressed with ZSTD when zstd is set;
** (size_t)-1 on a failure.  ALP streams are decoded and checked. */
static size_t stream_bytes(pq_encoding enc, int dbl, const void *v, size_t n,
                           int zstd, uint8_t *batch) {
  pq_buf b, z;
  pq_buf_init(&b);
  pq_buf_init(&z);
  size_t r = (size_t)-1;
  if (encode(enc, dbl, v, n, &b) == 0 &&
      (enc != PQ_ALP || decode(enc, dbl, b.data, b.len, n, v, batch) == 0)) {
    if (!zstd) {
      r = b.len;
    } else {
      pq_error err;
      if (pq_compress(PQ_ZSTD, b.data, b.len, &z, &err) == PQ_OK && !z.oom)
        r = z.len;
      else
        fprintf(stderr, "alp: ZSTD: %s\n", err.msg);
    }
  }
  pq_buf_free(&b);
  pq_buf_free(&z);
  return r;
}

/* ---- The best (exponent, factor) of a vector ------------------------------
** Every pair tried on every value of the vector, the values rounded as the
** spec's "Fast Rounding" does and kept only when the normative decode gives
** them back; the bytes the vector would take under the pair (header,
** packed deltas from the least integer, exceptions), or as exceptions
** alone, whichever is least. */

typedef struct vchoice {
  int e, f, w;
  size_t exc, bytes;
} vchoice;

static inline uint64_t bits_d(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}
static inline uint32_t bits_f(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

static vchoice best_vector(int dbl, const void *v, size_t n) {
  size_t vhdr = dbl ? 13 : 9, xb = dbl ? 10 : 6;
  vchoice best = {0, 0, 0, n, vhdr + n * xb};
  int max_e = dbl ? 18 : 10;
  const double *P = pq_alp_pow10(0), *N = pq_alp_pow10(1);
  const float *PF = pq_alp_pow10f(0), *NF = pq_alp_pow10f(1);
  for (int e = 0; e <= max_e; e++) {
    for (int f = 0; f <= e; f++) {
      int64_t mn = INT64_MAX, mx = INT64_MIN;
      size_t k = 0;
      for (size_t i = 0; i < n; i++) {
        int64_t q;
        if (dbl) {
          double x = ((const double *)v)[i];
          double t = x * P[e] * N[f];
          double m = t < 0 ? -0x1p52 : 0x1p52;
          double r = t < 0x1p52 && t > -0x1p52 ? (t + m) - m : t;
          if (!(r >= -0x1p63 && r < 0x1p63)) {
            k++;
            continue;
          }
          q = (int64_t)r;
          if (bits_d((double)q * P[f] * N[e]) != bits_d(x)) {
            k++;
            continue;
          }
        } else {
          float x = ((const float *)v)[i];
          float t = x * PF[e] * NF[f];
          float m = t < 0 ? -0x1p23f : 0x1p23f;
          float r = t < 0x1p23f && t > -0x1p23f ? (t + m) - m : t;
          if (!(r >= -0x1p31f && r < 0x1p31f)) {
            k++;
            continue;
          }
          q = (int32_t)r;
          if (bits_f((float)(int32_t)q * PF[f] * NF[e]) != bits_f(x)) {
            k++;
            continue;
          }
        }
        if (q < mn) mn = q;
        if (q > mx) mx = q;
      }
      int w = k < n ? pq_bit_width64((uint64_t)mx - (uint64_t)mn) : 0;
      size_t bytes = vhdr + (n * (size_t)w + 7) / 8 + k * xb;
      if (bytes < best.bytes) {
        vchoice c = {e, f, w, k, bytes};
        best = c;
      }
    }
  }
  return best;
}

/* Bytes of the stream of n values if every vector (of 1024) took its best
** pair: the page header, the offsets, the vectors. */
static size_t best_stream(int dbl, const void *v, size_t n) {
  size_t vsz = dbl ? 8 : 4, bytes = 7;
  for (size_t i = 0; i < n; i += 1024) {
    size_t m = n - i < 1024 ? n - i : 1024;
    bytes += 4 + best_vector(dbl, (const uint8_t *)v + i * vsz, m).bytes;
  }
  return bytes;
}

/* The vectors of an ALP stream as the encoder wrote them. */
static size_t stream_vectors(int dbl, const pq_buf *b, size_t n, vchoice *out,
                             size_t cap) {
  size_t nvec = (n + 1023) / 1024, vhdr = dbl ? 13 : 9;
  size_t k = 0;
  for (; k < nvec && k < cap; k++) {
    size_t at = 7 + pq_load32(b->data + 7 + 4 * k);
    size_t end = k + 1 < nvec ? 7 + pq_load32(b->data + 7 + 4 * (k + 1))
                              : b->len;
    const uint8_t *h = b->data + at;
    vchoice c = {h[0], h[1], h[vhdr - 1], (size_t)h[2] | (size_t)h[3] << 8,
                 end - at};
    out[k] = c;
  }
  return k;
}

/* --vectors SET: each vector's choice against the best. */
static void explain_vectors(const set *s, int dbl) {
  const void *v = dbl ? (const void *)s->d : (const void *)s->f;
  pq_buf b;
  pq_buf_init(&b);
  if (encode(PQ_ALP, dbl, v, s->n, &b)) return;
  vchoice got[64];
  size_t nv = stream_vectors(dbl, &b, s->n, got, 64);
  size_t vsz = dbl ? 8 : 4, lost = 0;
  printf("%s (%s): vector: encoder e f w exceptions bytes | best e f w "
         "exceptions bytes\n",
         s->name, dbl ? "DOUBLE" : "FLOAT");
  for (size_t k = 0; k < nv; k++) {
    size_t m = s->n - k * 1024 < 1024 ? s->n - k * 1024 : 1024;
    vchoice c = best_vector(dbl, (const uint8_t *)v + k * 1024 * vsz, m);
    printf("%3zu: %2d %2d %2d %4zu %5zu | %2d %2d %2d %4zu %5zu%s\n", k,
           got[k].e, got[k].f, got[k].w, got[k].exc, got[k].bytes, c.e, c.f,
           c.w, c.exc, c.bytes, got[k].bytes > c.bytes ? "  *" : "");
    lost += got[k].bytes - c.bytes;
  }
  printf("stream %zu bytes, %zu more than the best vectors' (%.3f bits a "
         "value)\n",
         b.len, lost, (double)lost * 8 / (double)s->n);
  pq_buf_free(&b);
}

/* ---- Speed ---------------------------------------------------------------- */

typedef struct paged {
  pq_encoding enc;
  int zstd;
  const char *label;
  size_t npages;
  pq_buf *pages;   /* each page's stream, compressed or not */
  size_t bytes;    /* all of them */
  double best;     /* seconds to decode them all */
  double *times;   /* of each run */
  int ok;
  int touch;       /* not decoded: one byte of every 64 read */
} paged;

/* Encodes (and compresses) the pages of v[0..n). */
static int make_pages(paged *pg, int dbl, const void *v, size_t n,
                      size_t page) {
  size_t vs = dbl ? 8 : 4;
  pg->npages = (n + page - 1) / page;
  pg->pages = calloc(pg->npages, sizeof *pg->pages);
  pg->bytes = 0;
  pg->best = 1e30;
  pg->ok = 1;
  for (size_t i = 0; i < pg->npages; i++) {
    size_t m = n - i * page < page ? n - i * page : page;
    const uint8_t *src = (const uint8_t *)v + i * page * vs;
    pq_buf b;
    pq_buf_init(&b);
    if (encode(pg->enc, dbl, src, m, &b)) return -1;
    if (pg->zstd) {
      pq_error err;
      pq_buf_init(&pg->pages[i]);
      if (pq_compress(PQ_ZSTD, b.data, b.len, &pg->pages[i], &err)) {
        fprintf(stderr, "alp: ZSTD: %s\n", err.msg);
        return -1;
      }
      pq_buf_free(&b);
    } else {
      pg->pages[i] = b;
    }
    pg->bytes += pg->pages[i].len;
  }
  return 0;
}

/* Decodes every page: decompressed into tmp first when compressed.
** Checks the values against v when check is set. */
static int decode_pages(paged *pg, int dbl, const void *v, size_t n,
                        size_t page, int check, pq_buf *tmp, uint8_t *batch) {
  size_t vs = dbl ? 8 : 4;
  if (pg->touch) {
    uint64_t acc = 0;
    for (size_t i = 0; i < pg->npages; i++)
      for (size_t q = 0; q < pg->pages[i].len; q += 64)
        acc += pg->pages[i].data[q];
    sink += acc;
    return 0;
  }
  for (size_t i = 0; i < pg->npages; i++) {
    size_t m = n - i * page < page ? n - i * page : page;
    const uint8_t *buf = pg->pages[i].data;
    size_t len = pg->pages[i].len;
    if (pg->zstd) {
      pq_error err;
      tmp->len = 0;
      if (pq_decompress(PQ_ZSTD, buf, len, -1, (size_t)1 << 30, tmp, &err)) {
        fprintf(stderr, "alp: ZSTD: %s\n", err.msg);
        return -1;
      }
      buf = tmp->data;
      len = tmp->len;
    }
    if (decode(pg->enc, dbl, buf, len, m,
               check ? (const uint8_t *)v + i * page * vs : NULL, batch))
      return -1;
  }
  return 0;
}

/* The median of n times (sorted in place); -1 for none. */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static double median(double *t, int n) {
  if (!t || n < 1) return -1;
  qsort(t, (size_t)n, sizeof *t, cmp_double);
  return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

/* Encodes every page into out, reused; the seconds it took. */
static double encode_pages(pq_encoding enc, int zstd, int dbl, const void *v,
                           size_t n, size_t page, pq_buf *out, pq_buf *tmp) {
  size_t vs = dbl ? 8 : 4;
  double t0 = now();
  for (size_t i = 0; i * page < n; i++) {
    size_t m = n - i * page < page ? n - i * page : page;
    const uint8_t *src = (const uint8_t *)v + i * page * vs;
    out->len = 0;
    if (!zstd) {
      if (encode(enc, dbl, src, m, out)) return -1;
    } else {
      tmp->len = 0;
      pq_error err;
      if (encode(enc, dbl, src, m, tmp) ||
          pq_compress(PQ_ZSTD, tmp->data, tmp->len, out, &err))
        return -1;
    }
    sink += out->len;
  }
  return now() - t0;
}

typedef struct speed {
  double alp_dec, plain_zstd_dec, alp_enc, plain_zstd_enc;
  double touch, plain;  /* seconds: ALP's pages read alone; PLAIN */
  size_t alp_bytes, n;
} speed;

/* The speed figures of one type; prints its tables. */
static speed run_speed(int dbl, const void *v, size_t n, size_t page,
                       int runs) {
  speed sp;
  memset(&sp, 0, sizeof sp);
  sp.n = n;
  uint8_t *batch = malloc(1024 * 8 + 64);
  pq_buf tmp, obuf;
  pq_buf_init(&tmp);
  pq_buf_init(&obuf);
  size_t vs = dbl ? 8 : 4;
  /* The buffers the pages go through, reserved and touched. */
  pq_buf_reserve(&tmp, page * vs * 2 + 65536);
  pq_buf_reserve(&obuf, page * vs * 2 + 65536);
  memset(tmp.data, 1, tmp.cap);
  memset(obuf.data, 1, obuf.cap);
  memset(batch, 0, 1024 * 8 + 64);
  /* In the order of a run; the ALP pages read alone are a copy of
  ** ALP's, so that neither pass finds the other's in the caches. */
  paged pg[] = {
      {PQ_ALP, 0, "ALP", 0, NULL, 0, 0, NULL, 0, 0},
      {PQ_PLAIN, 1, "PLAIN + ZSTD", 0, NULL, 0, 0, NULL, 0, 0},
      {PQ_BYTE_STREAM_SPLIT, 1, "BYTE_STREAM_SPLIT + ZSTD", 0, NULL, 0, 0,
       NULL, 0, 0},
      {PQ_ALP, 0, "(ALP's pages read alone: a byte of every 64, no decoding)",
       0, NULL, 0, 0, NULL, 0, 1},
      {PQ_ALP, 1, "ALP + ZSTD", 0, NULL, 0, 0, NULL, 0, 0},
      {PQ_PLAIN, 0, "PLAIN", 0, NULL, 0, 0, NULL, 0, 0},
  };
  size_t npg = sizeof pg / sizeof pg[0];
  int have_zstd = pq_codec_available(PQ_ZSTD);
  for (size_t k = 0; k < npg; k++) {
    if (pg[k].zstd && !have_zstd) {
      pg[k].ok = 0;
      continue;
    }
    if (make_pages(&pg[k], dbl, v, n, page)) {
      pg[k].ok = 0;
      failed = 1;
    }
  }
  if (profile_seconds > 0 && dbl) {
    double t0 = now(), best = 1e30;
    size_t passes = 0;
    while (now() - t0 < profile_seconds) {
      double t1 = now();
      decode_pages(&pg[0], dbl, v, n, page, 0, &tmp, batch);
      double t2 = now();
      if (t2 - t1 < best) best = t2 - t1;
      passes++;
    }
    printf("profile: %zu passes of ALP decoding, best %.0f M values/s\n",
           passes, (double)n / best / 1e6);
    exit(0);
  }
  for (size_t k = 0; k < npg; k++) pg[k].times = calloc((size_t)runs, sizeof(double));
  for (int run = 0; run < runs; run++) {
    for (size_t k = 0; k < npg; k++) {
      if (!pg[k].ok) continue;
      double t0 = now();
      if (decode_pages(&pg[k], dbl, v, n, page, run == 0, &tmp, batch)) {
        fprintf(stderr, "alp: decoding %s failed\n", pg[k].label);
        pg[k].ok = 0;
        failed = 1;
        continue;
      }
      double t = now() - t0;
      if (t < pg[k].best) pg[k].best = t;
      if (pg[k].times) pg[k].times[run] = t;
    }
  }
  /* Encoding: ALP and PLAIN + ZSTD, side by side; one untimed run first. */
  double enc_best[2] = {1e30, 1e30};
  pq_buf ztmp;
  pq_buf_init(&ztmp);
  pq_buf_reserve(&ztmp, page * vs + 65536);
  memset(ztmp.data, 1, ztmp.cap);
  int eruns = runs / 2 > 0 ? runs / 2 : 1;
  for (int run = -1; run < eruns; run++) {
    double a = encode_pages(PQ_ALP, 0, dbl, v, n, page, &obuf, &ztmp);
    double b = have_zstd ? encode_pages(PQ_PLAIN, 1, dbl, v, n, page, &obuf,
                                        &ztmp)
                         : -1;
    if (run < 0) continue;
    if (a >= 0 && a < enc_best[0]) enc_best[0] = a;
    if (b >= 0 && b < enc_best[1]) enc_best[1] = b;
  }
  pq_buf_free(&ztmp);

  const char *ty = dbl ? "DOUBLE" : "FLOAT";
  out("| %s: decoding %zu values, pages of %zu | bits/value | M values/s | "
      "median of the runs | GB/s of values | GB/s of pages read | ALP over "
      "it |\n",
      ty, n, page);
  out("|---|---|---|---|---|---|---|\n");
  double alp = pg[0].ok ? pg[0].best : -1;
  for (size_t k = 0; k < npg; k++) {
    if (!pg[k].ok) {
      out("| %s | n/a | | | | | |\n", pg[k].label);
      continue;
    }
    char x[32] = "";
    if (!pg[k].touch && alp > 0) snprintf(x, sizeof x, "%.2f", pg[k].best / alp);
    double med = median(pg[k].times, runs);
    out("| %s | %.2f | %.0f | %.0f | %.2f | %.2f | %s |\n", pg[k].label,
        (double)pg[k].bytes * 8 / (double)n, (double)n / pg[k].best / 1e6,
        med > 0 ? (double)n / med / 1e6 : 0,
        (double)n * (double)vs / pg[k].best / 1e9,
        (double)pg[k].bytes / pg[k].best / 1e9, x);
  }
  out("\n| %s: encoding %zu values, pages of %zu | M values/s |\n", ty, n,
      page);
  out("|---|---|\n");
  out("| ALP | %.0f |\n", (double)n / enc_best[0] / 1e6);
  if (have_zstd)
    out("| PLAIN + ZSTD | %.0f |\n", (double)n / enc_best[1] / 1e6);
  out("\n");
  sp.alp_dec = alp;
  sp.plain_zstd_dec = pg[1].ok ? pg[1].best : -1;
  sp.touch = pg[3].ok ? pg[3].best : -1;
  sp.plain = pg[5].ok ? pg[5].best : -1;
  sp.alp_bytes = pg[0].bytes;
  sp.alp_enc = enc_best[0];
  sp.plain_zstd_enc = have_zstd ? enc_best[1] : -1;
  for (size_t k = 0; k < npg; k++) {
    for (size_t i = 0; i < pg[k].npages && pg[k].pages; i++)
      pq_buf_free(&pg[k].pages[i]);
    free(pg[k].pages);
    free(pg[k].times);
  }
  pq_buf_free(&tmp);
  pq_buf_free(&obuf);
  free(batch);
  return sp;
}

/* ---- Main ------------------------------------------------------------------ */

static double bpv(size_t bytes, size_t n) {
  return bytes == (size_t)-1 ? -1 : (double)bytes * 8 / (double)n;
}


/* A size table's row: the stream's bytes as ALP, PLAIN and
** BYTE_STREAM_SPLIT, each raw and with ZSTD, then the best ALP. */
static void row_sizes(int dbl, const void *vals, size_t n, uint8_t *batch,
                      size_t b[7]) {
  static const pq_encoding enc[3] = {PQ_ALP, PQ_PLAIN, PQ_BYTE_STREAM_SPLIT};
  for (int k = 0; k < 6; k++)
    b[k] = stream_bytes(enc[k / 2], dbl, vals, n, k % 2, batch);
  b[6] = best_stream(dbl, vals, n);
}

static void cell(double b) {
  if (b < 0)
    out(" n/a |");
  else
    out(" %.2f |", b);
}

/* ---- The speed, in a child ------------------------------------------------ */

/* The child: the data sets' values made into n DOUBLE (and FLOAT) values,
** their speed measured (run_speed), and the two speed structs and the
** tables' text written to path; with no path (--profile), in this
** process. */
static int child_speed(size_t n, size_t page, int runs, const char *path) {
  double *dv = malloc(n * sizeof *dv);
  float *fv = NULL;
  size_t ftot = 0;
  for (size_t i = 0; i < nsets; i++)
    if (sets[i].has_float) ftot += sets[i].n;
  if (ftot) fv = malloc(n * sizeof *fv);
  for (size_t i = 0, k = 0, j = 0; i < n; i++, j++) {
    while (j >= sets[k].n) {
      k = (k + 1) % nsets;
      j = 0;
    }
    dv[i] = sets[k].d[j];
  }
  for (size_t i = 0, k = 0, j = 0; fv && i < n; i++, j++) {
    while (!sets[k].has_float || j >= sets[k].n) {
      k = (k + 1) % nsets;
      j = 0;
    }
    fv[i] = sets[k].f[j];
  }
  if (path && !freopen("/dev/null", "w", stdout)) return 1;
  section_len = 0;
  speed d = run_speed(1, dv, n, page, runs);
  speed f;
  memset(&f, 0, sizeof f);
  if (fv) {
    out("FLOAT: the %zu FLOAT values of the size table, repeated the same "
        "way, pages of %zu values (of 4 bytes).\n\n",
        ftot, page);
    f = run_speed(0, fv, n, page, runs);
  }
  free(dv);
  free(fv);
  if (!path) return failed;
  FILE *o = fopen(path, "wb");
  int ok = o && fwrite(&d, sizeof d, 1, o) == 1 && fwrite(&f, sizeof f, 1, o) == 1 &&
           fwrite(&section_len, sizeof section_len, 1, o) == 1 &&
           fwrite(section, 1, section_len, o) == section_len;
  if (o) fclose(o);
  return ok && !failed ? 0 : 1;
}

/* Runs this program again as a child (a fresh process) writing to path;
** its figures in *d and *f, its tables' text in *text (to free). */
static int spawn_speed(int argc, char **argv, const char *path, speed *d,
                       speed *f, char **text) {
  if (stats_spawn(argc, argv, path, NULL)) {
    unlink(path);
    return -1;
  }
  FILE *in = fopen(path, "rb");
  size_t len = 0;
  int ok = in && fread(d, sizeof *d, 1, in) == 1 && fread(f, sizeof *f, 1, in) == 1 &&
           fread(&len, sizeof len, 1, in) == 1 && len < (64u << 20);
  *text = ok ? malloc(len + 1) : NULL;
  ok = ok && *text && fread(*text, 1, len, in) == len;
  if (ok) (*text)[len] = 0;
  if (in) fclose(in);
  unlink(path);
  if (!ok) {
    free(*text);
    *text = NULL;
  }
  return ok ? 0 : -1;
}

int main(int argc, char **argv) {
  int quick = has_flag(argc, argv, "--quick");
  const char *work = arg_value(argc, argv, "--work", "build/bench");
  const char *tar = arg_value(argc, argv, "--data",
                              "../shared/alp-testing/floatingpoint_data.tar.gz");
  const char *resfile = arg_value(argc, argv, "--results", NULL);
  const char *only = arg_value(argc, argv, "--vectors", NULL);
  profile_seconds = atof(arg_value(argc, argv, "--profile", "0"));
  size_t n = (size_t)atol(arg_value(argc, argv, "--n", quick ? "2000000" : "10000000"));
  size_t page = (size_t)atol(arg_value(argc, argv, "--page", "131072"));
  int runs = atoi(arg_value(argc, argv, "--runs", quick ? "3" : "20"));
  if (n < 1 || page < 1 || runs < 1) {
    fprintf(stderr, "alp: --n, --page and --runs must be positive\n");
    return 2;
  }
  /* Freed memory stays with the process and large blocks come from the
  ** heap: the encoders' buffers are memory touched before. */
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);

  char dir[1024];
  snprintf(dir, sizeof dir, "%s/alp_data", work);
  if (load_data(tar, dir)) return 1;

  const char *child = arg_value(argc, argv, "--child", NULL);
  if (child || profile_seconds > 0) return child_speed(n, page, runs, child);

  if (only) {
    for (size_t i = 0; i < nsets; i++) {
      if (strcmp(sets[i].name, only) != 0) continue;
      explain_vectors(&sets[i], 1);
      if (sets[i].has_float) explain_vectors(&sets[i], 0);
      return 0;
    }
    fprintf(stderr, "alp: no data set %s\n", only);
    return 1;
  }

  char command[2048], mach[512], date[64];
  command_line(argc, argv, command, sizeof command);
  machine(mach, sizeof mach);
  time_t t = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  double load[3] = {-1, -1, -1};
  if (getloadavg(load, 3) < 1) load[0] = -1;

  size_t total = 0;
  for (size_t i = 0; i < nsets; i++) total += sets[i].n;
  out("%s\n\n", HEADING);
  out("- command: `%s` (run by `make bench`)\n", command);
  out("- machine: %s; load average %.2f at the start\n", mach, load[0]);
  out("- date: %s\n", date);
  out("- data: `%s`, extracted into `%s`: %zu CSV columns (each a data set: "
      "every column of a file with several, named by its header or, for "
      "arade, numbered), %zu values in all, parsed with strtod\n\n",
      tar, dir, nsets, total);

  /* ---- Size ---- */
  out("### Size: bits per value, each data set one stream (one page)\n\n");
  out("ALP as the core's encoder writes it (vectors of 1024); best ALP: the "
      "same layout with each vector's (exponent, factor) found by trying "
      "every pair on all its values; ZSTD at the writer's default level "
      "(3), over the whole stream.  Paper: the ALP paper's ALP figure, as "
      "the issue gives it; target: ALP at most %.0f%% above it.\n\n",
      (TARGET_OVER_PAPER - 1) * 100);
  out("| data set | values | ALP | ALP + ZSTD | PLAIN | PLAIN + ZSTD | BSS | "
      "BSS + ZSTD | best ALP | paper | target |\n");
  out("|---|---|---|---|---|---|---|---|---|---|---|\n");
  uint8_t batch[1024 * 8 + 64];
  size_t sum[7] = {0};
  int size_ok = 1;
  for (size_t i = 0; i < nsets; i++) {
    set *s = &sets[i];
    size_t b[7];
    row_sizes(1, s->d, s->n, batch, b);
    if (b[0] == (size_t)-1) size_ok = 0;
    out("| %s | %zu |", s->name, s->n);
    for (int k = 0; k < 7; k++) {
      cell(bpv(b[k], s->n));
      if (b[k] != (size_t)-1) sum[k] += b[k];
    }
    if (s->paper >= 0) {
      double paper = PAPER[s->paper].bits, alp = bpv(b[0], s->n);
      int ok = alp >= 0 && alp <= paper * TARGET_OVER_PAPER;
      out(" %.2f (%s) | %s <= %.2f (%+.1f%%) |\n", paper, PAPER[s->paper].name,
          ok ? "met" : "MISSED", paper * TARGET_OVER_PAPER,
          (alp / paper - 1) * 100);
    } else {
      out(" | |\n");
    }
  }
  out("| all | %zu |", total);
  for (int k = 0; k < 7; k++) cell(bpv(sum[k], total));
  out(" | |\n\n");
  out("Of the issue's paper figures, %s are of data sets the tar does not "
      "hold: not measured.  The paper's Arade/4 is taken to be the fourth "
      "column of floatingpoint_arade.csv, which has no header (its third "
      "column is close to the fourth: equal in half the rows).  The other "
      "data sets have no figure in the issue.  Where ALP is above 64 bits a "
      "value, most values are exceptions (10 bytes each): values that are "
      "not decimals of a few digits, which the ALP paper encodes with "
      "ALP_RD, a compression mode this encoding does not define.\n\n",
      PAPER_ABSENT);

  /* FLOAT sizes. */
  out("FLOAT: the columns of the spotify and arade files parsed with "
      "strtof (the data of the FLOAT test files), bits per value; no paper "
      "figures.\n\n");
  out("| data set (FLOAT) | values | ALP | ALP + ZSTD | PLAIN | PLAIN + ZSTD "
      "| BSS | BSS + ZSTD | best ALP |\n");
  out("|---|---|---|---|---|---|---|---|---|\n");
  size_t fsum[7] = {0}, ftotal = 0;
  for (size_t i = 0; i < nsets; i++) {
    set *s = &sets[i];
    if (!s->has_float) continue;
    size_t b[7];
    row_sizes(0, s->f, s->n, batch, b);
    if (b[0] == (size_t)-1) size_ok = 0;
    out("| %s | %zu |", s->name, s->n);
    for (int k = 0; k < 7; k++) {
      cell(bpv(b[k], s->n));
      if (b[k] != (size_t)-1) fsum[k] += b[k];
    }
    out("\n");
    ftotal += s->n;
  }
  out("| all | %zu |", ftotal);
  for (int k = 0; k < 7; k++) cell(bpv(fsum[k], ftotal));
  out("\n\n");

  /* ---- Speed: in PROCS children ---- */
  speed d, f;
  memset(&d, 0, sizeof d);
  memset(&f, 0, sizeof f);
  sample s_dec = {0, {0}}, s_x = {0, {0}}, s_enc = {0, {0}}, s_fdec = {0, {0}},
         s_fx = {0, {0}}, s_fenc = {0, {0}};
  int nproc = 0;
  char *median_text = NULL;
  {
    speed cd[STATS_MAX], cf[STATS_MAX];
    char *text[STATS_MAX];
    for (int r = 0; r < PROCS; r++) {
      char path[1100];
      snprintf(path, sizeof path, "%s/alp_child%d.bin", work, r);
      if (spawn_speed(argc, argv, path, &cd[nproc], &cf[nproc], &text[nproc]))
        continue;
      speed *a = &cd[nproc], *b = &cf[nproc];
      s_dec.v[nproc] = a->alp_dec > 0 ? (double)n / a->alp_dec / 1e9 : -1;
      s_x.v[nproc] = a->alp_dec > 0 && a->plain_zstd_dec > 0
                         ? a->plain_zstd_dec / a->alp_dec : -1;
      s_enc.v[nproc] = a->alp_enc > 0 ? (double)n / a->alp_enc / 1e6 : -1;
      s_fdec.v[nproc] = b->alp_dec > 0 ? (double)n / b->alp_dec / 1e9 : -1;
      s_fx.v[nproc] = b->alp_dec > 0 && b->plain_zstd_dec > 0
                          ? b->plain_zstd_dec / b->alp_dec : -1;
      s_fenc.v[nproc] = b->alp_enc > 0 ? (double)n / b->alp_enc / 1e6 : -1;
      nproc++;
      s_dec.n = s_x.n = s_enc.n = s_fdec.n = s_fx.n = s_fenc.n = nproc;
    }
    /* The process whose ALP decoding was the median shows its tables. */
    figure fd = stats_of(&s_dec);
    int mid = -1;
    for (int r = 0; r < nproc; r++)
      if (mid < 0 || fabs(s_dec.v[r] - fd.med) < fabs(s_dec.v[mid] - fd.med))
        mid = r;
    for (int r = 0; r < nproc; r++) {
      if (r == mid) {
        d = cd[r];
        f = cf[r];
        median_text = text[r];
      } else {
        free(text[r]);
      }
    }
    if (!nproc) failed = 1;
  }
  out("### Speed, single thread\n\n");
  out("The %zu DOUBLE values above, one data set after the other, repeated "
      "to %zu values and cut into pages of %zu values (1 MiB as PLAIN, the "
      "writer's default page size; a page may hold the end of one data set "
      "and the start of the next).  Decoding a page: ZSTD decompression "
      "into a buffer reserved before (for the compressed ones), then its "
      "decoder read in batches of 1024 values, as the SQL functions read; "
      "best of %d runs, the kinds of page taking turns within each run, the "
      "first run checking every value.  Encoding: each page's encoder "
      "opened, the values put in batches of 1024 and finished into a "
      "reused buffer (PLAIN + ZSTD: then compressed); best of %d after one "
      "untimed.  M values/s: of the best run; beside it the median run's.  "
      "GB/s of pages read: the bytes of the pages (compressed, for ZSTD) "
      "over the time.  ALP over it: how many times faster ALP decodes.  "
      "The row in parentheses does not decode: it reads a byte of every 64 "
      "of a copy of ALP's pages, what bringing them from memory costs "
      "alone.  Between "
      "two passes over the ALP pages the other kinds read some 250 MB, so "
      "that ALP's pages come from memory, not from the caches, as the "
      "pages of a file would.\n\n",
      total, n, page, runs, runs / 2 > 0 ? runs / 2 : 1);
  out("Measured in %d fresh processes (runs of this program); the tables "
      "are those of the process whose ALP DOUBLE decoding was the median "
      "of the %d, and the targets below give the median and the spread "
      "(smallest-largest) over all of them: met or missed only when the "
      "whole spread is on one side.\n\n",
      nproc, nproc);
  if (median_text) out("%s", median_text);
  free(median_text);

  /* ---- Targets ---- */
  out("### The targets\n\n");
  out("| target | figure | |\n|---|---|---|\n");
  for (size_t i = 0; i < nsets; i++) {
    set *s = &sets[i];
    if (s->paper < 0) continue;
    size_t b = stream_bytes(PQ_ALP, 1, s->d, s->n, 0, batch);
    double paper = PAPER[s->paper].bits, alp = bpv(b, s->n);
    out("| size, %s (%s): ALP <= %.2f bits/value (paper %.2f + 5%%) | %.2f "
        "| %s |\n",
        PAPER[s->paper].name, s->name, paper * TARGET_OVER_PAPER, paper, alp,
        alp >= 0 && alp <= paper * TARGET_OVER_PAPER ? "met" : "MISSED");
  }
  char b1[64], b2[64], b3[64];
  figure f_dec = stats_of(&s_dec), f_x = stats_of(&s_x), f_enc = stats_of(&s_enc);
  out("| decode: ALP >= 1.5 G doubles/s | %s G/s (each process's best of %d) "
      "| %s |\n",
      stats_str(f_dec, "%.2f", b1, sizeof b1), runs, stats_verdict(f_dec, 1.5, 1));
  out("| decode: ALP >= 7 x PLAIN + ZSTD of the same values | %s x | %s |\n",
      stats_str(f_x, "%.2f", b1, sizeof b1), stats_verdict(f_x, 7, 1));
  out("| encode: ALP >= 100 M doubles/s | %s M/s | %s |\n",
      stats_str(f_enc, "%.0f", b1, sizeof b1), stats_verdict(f_enc, 100, 1));
  if (ftotal && stats_of(&s_fdec).n) {
    out("| (FLOAT, no target) decode ALP; over PLAIN + ZSTD; encode | %s G "
        "floats/s; %s x; %s M/s | |\n",
        stats_str(stats_of(&s_fdec), "%.2f", b1, sizeof b1),
        stats_str(stats_of(&s_fx), "%.2f", b2, sizeof b2),
        stats_str(stats_of(&s_fenc), "%.0f", b3, sizeof b3));
  }

  if (d.alp_dec > 0 && d.touch > 0 && d.plain > 0) {
    double t_dec = d.alp_dec * 1e3, t_read = d.touch * 1e3;
    out("\nWhere DOUBLE decoding's time goes: a pass over ALP's pages, "
        "decoded, took %.2f ms (reading them at %.1f GB/s); reading the same "
        "%.1f MB alone, a byte of every 64, %.2f ms (%.1f GB/s), and PLAIN's "
        "copy of its %.0f MB ran at %.1f GB/s.  The pages come from memory: "
        "decoding time is the wait for them plus the work on them, which "
        "overlap only in part.\n",
        t_dec, (double)d.alp_bytes / d.alp_dec / 1e9,
        (double)d.alp_bytes / 1e6, t_read,
        (double)d.alp_bytes / d.touch / 1e9, (double)n * 8 / 1e6,
        (double)n * 8 / d.plain / 1e9);
  }
  if (resfile) write_results(resfile, HEADING);
  for (size_t i = 0; i < nsets; i++) {
    free(sets[i].d);
    free(sets[i].f);
  }
  free(sets);
  free(section);
  return size_ok && !failed ? 0 : 1;
}
