/*
** lab.c -- the encoding lab: one column's values written again and again,
** under one encoding and codec after another, to see what each costs.
**
** A column is kept once, as the batches its writer was handed (values,
** present flags, the bytes of BYTE_ARRAY values), with the places where
** its row groups closed.  A trial of an encoding opens a one-column writer
** of the column's params and options with only the encoding changed,
** hands it the same batches in the same sizes and closes its row groups at
** the same places: the writer closes its pages by what the batches put
** (writer.c), so the pages it makes are those of the file the batches
** first went to.  The writer decides where pages end, and when a
** dictionary falls back, by the pages' bytes before their codec: so the
** trial takes its pages before their codec (its tap, writer.c) and makes
** them under each codec asked for with the writer's own pq_page_seal,
** header and all: a chunk's bytes under a codec are the sum of its pages
** so made, exactly what a write with that codec gives.  Only "auto",
** whose choice depends on the codec, is written with the codec itself.
**
** When asked, each codec's row is timed: writing (the trial's write, then
** making its pages under the codec) and reading (each page's header read,
** its CRC checked, its bytes decompressed, its levels and values decoded),
** each repeated until a minimum time has passed.  The first write, the one
** that made the pages, is the first run timed.  A trial reads the column
** only: trials of one column may run on several threads at once, once its
** puts have ended (pq_lab_column_end).
*/
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "writer.h"

/* One batch as it was handed over. */
typedef struct lab_batch {
  size_t rows, values;  /* entries, and the present ones among them */
  size_t v_at, p_at;    /* where its values and flags start */
  int end_group;        /* a row group closed after it */
} lab_batch;

struct pq_lab_column {
  pq_params p;            /* the column's, as first written */
  pq_write_options o;
  size_t vsize;           /* bytes of a value in `values` */
  pq_buf values;          /* the present values, back to back (BYTE_ARRAY:
                          ** pq_bytes, whose ptr is an offset into heap
                          ** until sealed) */
  pq_buf present;         /* a flag per entry */
  pq_buf heap;            /* BYTE_ARRAY values' bytes */
  lab_batch *batches;
  size_t nbatches, cap;
  int sealed;             /* offsets made pointers: no more puts */
  int64_t rows, nvalues, plain;
  pq_buf why[PQ_ENCODING_COUNT]; /* each encoding's figures (lab_why.c) */
  int why_set[PQ_ENCODING_COUNT];
  int fell_back;          /* RLE_DICTIONARY's chunks fell back; -1: not
                          ** yet written */
};

static double lab_clock(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int pq_lab_column_new(pq_lab_column **out, const pq_params *p,
                      const pq_write_options *o, pq_error *err) {
  *out = NULL;
  if (!p->type_set)
    return pq_fail(err, PQ_MISUSE, "lab", "the column has no type");
  pq_lab_column *c = pq_calloc(1, sizeof *c);
  if (!c) return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  c->p = *p;
  c->o = *o;
  c->o.crs = NULL; /* (not kept: the lab writes no geospatial crs) */
  c->o.crs_len = 0;
  c->vsize = p->type == PQ_BYTE_ARRAY ? sizeof(pq_bytes)
                                      : pq_value_size(p->type, p->type_length);
  pq_buf_init(&c->values);
  pq_buf_init(&c->present);
  pq_buf_init(&c->heap);
  for (int e = 0; e < PQ_ENCODING_COUNT; e++) pq_buf_init(&c->why[e]);
  c->fell_back = -1;
  *out = c;
  return PQ_OK;
}

void pq_lab_column_free(pq_lab_column *c) {
  if (!c) return;
  pq_buf_free(&c->values);
  pq_buf_free(&c->present);
  pq_buf_free(&c->heap);
  for (int e = 0; e < PQ_ENCODING_COUNT; e++) pq_buf_free(&c->why[e]);
  pq_free(c->batches);
  pq_free(c);
}

int pq_lab_column_put(pq_lab_column *c, const void *values,
                      const uint8_t *present, size_t n, pq_error *err) {
  if (c->sealed)
    return pq_fail(err, PQ_MISUSE, "lab", "values put after the first try");
  if (n == 0) return PQ_OK;
  if (c->nbatches == c->cap) {
    size_t cap = c->cap ? c->cap * 2 : 16;
    lab_batch *b = pq_realloc(c->batches, cap * sizeof *b);
    if (!b) return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
    c->batches = b;
    c->cap = cap;
  }
  lab_batch *b = &c->batches[c->nbatches];
  memset(b, 0, sizeof *b);
  b->rows = n;
  b->v_at = c->values.len;
  b->p_at = c->present.len;
  size_t heap_at = c->heap.len;
  size_t nv = 0;
  for (size_t i = 0; i < n; i++) nv += !present || present[i];
  b->values = nv;
  if (present) {
    pq_buf_append(&c->present, present, n);
  } else if (pq_buf_reserve(&c->present, n) == PQ_OK) {
    memset(c->present.data + c->present.len, 1, n);
    c->present.len += n;
  }
  if (c->p.type == PQ_BYTE_ARRAY) {
    const pq_bytes *v = values;
    for (size_t i = 0; i < nv; i++) {
      pq_bytes k = {(const uint8_t *)(uintptr_t)c->heap.len, v[i].len};
      if (v[i].len) pq_buf_append(&c->heap, v[i].ptr, v[i].len);
      pq_buf_append(&c->values, &k, sizeof k);
      c->plain += 4 + (int64_t)v[i].len;
    }
  } else {
    pq_buf_append(&c->values, values, nv * c->vsize);
    c->plain += c->p.type == PQ_BOOLEAN ? 0 : (int64_t)(nv * c->vsize);
  }
  if (c->values.oom || c->present.oom || c->heap.oom) {
    /* the column is left as it was before the batch */
    c->values.len = b->v_at;
    c->present.len = b->p_at;
    c->heap.len = heap_at;
    c->values.oom = c->present.oom = c->heap.oom = 0;
    return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  }
  c->nbatches++;
  c->rows += (int64_t)n;
  c->nvalues += (int64_t)nv;
  return PQ_OK;
}

int pq_lab_column_end_group(pq_lab_column *c, pq_error *err) {
  if (c->sealed)
    return pq_fail(err, PQ_MISUSE, "lab", "a row group closed after the "
                                          "first try");
  if (c->nbatches) c->batches[c->nbatches - 1].end_group = 1;
  return PQ_OK;
}

void pq_lab_column_counts(const pq_lab_column *c, int64_t *rows,
                          int64_t *values, int64_t *plain) {
  if (rows) *rows = c->rows;
  if (values) *values = c->nvalues;
  /* BOOLEAN's PLAIN packs a value a bit */
  if (plain) *plain = c->p.type == PQ_BOOLEAN ? (c->nvalues + 7) / 8 : c->plain;
}

/* BYTE_ARRAY values' offsets become pointers, the heap being complete. */
static void lab_seal(pq_lab_column *c) {
  if (c->sealed) return;
  c->sealed = 1;
  if (c->p.type != PQ_BYTE_ARRAY) return;
  const uint8_t *heap = c->heap.data ? c->heap.data : (const uint8_t *)"";
  pq_bytes *v = (pq_bytes *)(void *)c->values.data;
  size_t n = c->values.len / sizeof *v;
  for (size_t i = 0; i < n; i++) v[i].ptr = heap + (size_t)(uintptr_t)v[i].ptr;
}

/* 1 when enc names "auto" (either case). */
static int lab_is_auto(const char *enc) {
  return strlen(enc) == 4 && (enc[0] | 32) == 'a' && (enc[1] | 32) == 'u' &&
         (enc[2] | 32) == 't' && (enc[3] | 32) == 'o';
}

/* The column's params and options for encoding enc (a name, or "auto"),
** codec and level, as parquet_write's "encoding" and "codec" set them. */
static int lab_params(const pq_lab_column *c, const char *enc, pq_codec codec,
                      int level, pq_params *p, pq_write_options *o,
                      pq_error *err) {
  pq_encoding e;
  if (!lab_is_auto(enc) && pq_encoding_parse(enc, strlen(enc), &e))
    return pq_fail(err, PQ_MISUSE, "lab", "unknown encoding '%s'", enc);
  *p = c->p;
  *o = c->o;
  o->auto_encoding = 0;
  pq_write_type_encoding(enc, -1, p, o);
  o->codec = codec;
  o->level = level;
  return PQ_OK;
}

/* Writes the first nb batches to a file of the column alone: into out, or,
** with a tap, as pages before their codec, to the tap (out may then be
** NULL). */
static int lab_write_n(const pq_lab_column *c, size_t nb, const pq_params *p,
                       const pq_write_options *o, pq_page_tap tap, void *ctx,
                       pq_buf *out, pq_error *err) {
  pq_writer *w;
  pq_buf none;
  pq_buf_init(&none);
  int rc = pq_writer_open_columns(&w, 1, p, o, err);
  if (rc == PQ_OK && tap) pq_writer_set_tap(w, tap, ctx);
  for (size_t i = 0; rc == PQ_OK && i < nb && i < c->nbatches; i++) {
    const lab_batch *b = &c->batches[i];
    rc = pq_writer_put_column(w, 0, c->values.data + b->v_at,
                              c->present.data + b->p_at, b->rows, err);
    if (rc == PQ_OK && b->end_group) rc = pq_writer_end_row_group(w, err);
  }
  if (rc == PQ_OK) rc = pq_writer_finish(w, out ? out : &none, err);
  pq_writer_free(w);
  pq_buf_free(&none);
  return rc;
}

int pq_lab_schema_file(pq_lab_column *c, pq_buf *image, pq_error *err) {
  lab_seal(c);
  pq_params p;
  pq_write_options o;
  int rc = lab_params(c, "PLAIN", PQ_UNCOMPRESSED, PQ_LEVEL_DEFAULT, &p, &o,
                      err);
  if (rc == PQ_OK) rc = lab_write_n(c, 0, &p, &o, NULL, NULL, image, err);
  return rc;
}

/* ---- Pages held ---------------------------------------------------------
** Bytes in blocks that do not move once given out: a page's bytes stay
** where they are as more pages come, and nothing is copied to grow.
** Rewound, the store gives out its blocks again in the same order, so
** that the same pages made again take no more memory. */
#define LAB_BLOCK ((size_t)1 << 20)

typedef struct lab_block {
  uint8_t *data;
  size_t cap, used;
} lab_block;

typedef struct lab_store {
  lab_block *b;
  size_t n, cap, cur;
} lab_store;

/* n bytes (n > 0) of the store; NULL when out of memory. */
static uint8_t *lab_take(lab_store *s, size_t n) {
  while (s->cur < s->n && s->b[s->cur].cap - s->b[s->cur].used < n) s->cur++;
  if (s->cur == s->n) {
    if (s->n == s->cap) {
      size_t cap = s->cap ? 2 * s->cap : 8;
      lab_block *b = pq_realloc(s->b, cap * sizeof *b);
      if (!b) return NULL;
      s->b = b;
      s->cap = cap;
    }
    size_t cap = n > LAB_BLOCK ? n : LAB_BLOCK;
    uint8_t *d = pq_malloc(cap);
    if (!d) return NULL;
    s->b[s->n].data = d;
    s->b[s->n].cap = cap;
    s->b[s->n].used = 0;
    s->n++;
  }
  lab_block *k = &s->b[s->cur];
  uint8_t *at = k->data + k->used;
  k->used += n;
  return at;
}

static void lab_rewind(lab_store *s) {
  for (size_t i = 0; i < s->n; i++) s->b[i].used = 0;
  s->cur = 0;
}

static void lab_store_free(lab_store *s) {
  for (size_t i = 0; i < s->n; i++) pq_free(s->b[i].data);
  pq_free(s->b);
  memset(s, 0, sizeof *s);
}

/* A trial's pages before their codec, as the writer's tap gave them. */
typedef struct lab_pages {
  lab_store bytes;
  pq_page_draft *d; /* pointing into bytes */
  size_t n, cap;
} lab_pages;

static int lab_tap(void *ctx, const pq_page_draft *d, pq_error *err) {
  lab_pages *ps = ctx;
  if (ps->n == ps->cap) {
    size_t cap = ps->cap ? 2 * ps->cap : 64;
    pq_page_draft *g = pq_realloc(ps->d, cap * sizeof *g);
    if (!g) return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
    ps->d = g;
    ps->cap = cap;
  }
  pq_page_draft k = *d;
  size_t total = d->levels_len + d->body_len + d->stats_len;
  uint8_t *at = total ? lab_take(&ps->bytes, total) : NULL;
  if (total && !at) return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  k.levels = k.body = NULL;
  if (d->levels_len) {
    memcpy(at, d->levels, d->levels_len);
    k.levels = at;
    at += d->levels_len;
  }
  if (d->body_len) {
    memcpy(at, d->body, d->body_len);
    k.body = at;
    at += d->body_len;
  }
  if (d->stats && d->stats_len) {
    memcpy(at, d->stats, d->stats_len);
    k.stats = at;
  } else if (d->stats) {
    k.stats = (const uint8_t *)"";
  }
  ps->d[ps->n++] = k;
  return PQ_OK;
}

/* A page made under a codec: its header, then its bytes, at `at`. */
typedef struct lab_sealed {
  const uint8_t *at;
  size_t header, len;
  size_t page; /* its draft */
} lab_sealed;

/* What a trial holds: its pages before their codec, in the order of the
** file (each chunk's dictionary page first: the writer makes it last, or
** when the dictionary falls back); when timed, the pages under the codec
** being timed, and the buffers reading them takes. */
typedef struct lab_trial {
  lab_pages pages;
  size_t *order;
  lab_store sealed_bytes;
  lab_sealed *sealed;
  size_t nsealed;
  pq_buf header, packed; /* a page being made */
  pq_buf page, dict;     /* a page read, decompressed; its chunk's dictionary */
  uint8_t *scratch;      /* values decoded */
  double *times;         /* of single runs */
} lab_trial;

/* Room for decoded values, and the times of single runs kept for the
** spread: the first LAB_SAMPLES runs. */
#define LAB_ROOM ((size_t)1 << 16)
#define LAB_SAMPLES 65536

static void lab_trial_free(lab_trial *t) {
  lab_store_free(&t->pages.bytes);
  pq_free(t->pages.d);
  pq_free(t->order);
  lab_store_free(&t->sealed_bytes);
  pq_free(t->sealed);
  pq_buf_free(&t->header);
  pq_buf_free(&t->packed);
  pq_buf_free(&t->page);
  pq_buf_free(&t->dict);
  pq_free(t->scratch);
  pq_free(t->times);
  memset(t, 0, sizeof *t);
}

/* The pages in the file's order; their count, the first chunk's encoding
** and whether a chunk fell back, into r. */
static int lab_order(lab_trial *t, pq_lab_result *r, pq_error *err) {
  const pq_page_draft *d = t->pages.d;
  size_t n = t->pages.n, k = 0;
  pq_free(t->order);
  t->order = pq_malloc((n ? n : 1) * sizeof *t->order);
  if (!t->order) return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  r->pages = (int64_t)n;
  r->picked = -1;
  r->fell_back = 0;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    int dict = 0, other = 0;
    while (j < n && d[j].row_group == d[i].row_group) j++;
    for (size_t m = i; m < j; m++)
      if (d[m].type == PQ_DICTIONARY_PAGE) t->order[k++] = m, dict = 1;
    for (size_t m = i; m < j; m++) {
      if (d[m].type == PQ_DICTIONARY_PAGE) continue;
      t->order[k++] = m;
      other |= d[m].encoding != PQ_RLE_DICTIONARY &&
               d[m].encoding != PQ_PLAIN_DICTIONARY;
    }
    if (d[i].row_group == 0) {
      const pq_page_draft *first = &d[t->order[i]];
      r->picked = first->type == PQ_DICTIONARY_PAGE ? PQ_RLE_DICTIONARY
                                                    : first->encoding;
    }
    if (dict && other) r->fell_back = 1;
    i = j;
  }
  return PQ_OK;
}

/* Makes every page under codec at level (crc: with CRCs), its bytes
** summed into *bytes; keep: the pages kept in t->sealed, to be read. */
static int lab_make(lab_trial *t, pq_codec codec, int level, int crc,
                    int keep, int64_t *bytes, pq_error *err) {
  *bytes = 0;
  if (keep) {
    lab_rewind(&t->sealed_bytes);
    t->nsealed = 0;
    if (!t->sealed) {
      t->sealed = pq_malloc((t->pages.n ? t->pages.n : 1) * sizeof *t->sealed);
      if (!t->sealed) return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
    }
  }
  for (size_t i = 0; i < t->pages.n; i++) {
    int rc = pq_page_seal(&t->pages.d[t->order[i]], codec, level, crc,
                          &t->header, &t->packed, err);
    if (rc) return rc;
    size_t hn = t->header.len, pn = t->packed.len;
    *bytes += (int64_t)(hn + pn);
    if (!keep) continue;
    uint8_t *at = lab_take(&t->sealed_bytes, hn + pn);
    if (!at) return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
    memcpy(at, t->header.data, hn);
    if (pn) memcpy(at + hn, t->packed.data, pn);
    lab_sealed *s = &t->sealed[t->nsealed++];
    s->at = at;
    s->header = hn;
    s->len = pn;
    s->page = t->order[i];
  }
  return PQ_OK;
}

static int lab_bit_width(int max) {
  int w = 0;
  while (max >> w) w++;
  return w;
}

/* n bytes of a page under codec, decompressed (or copied) into out. */
static int lab_inflate(pq_codec codec, const uint8_t *src, size_t n,
                       int64_t expected, pq_buf *out, pq_error *err) {
  out->len = 0;
  if (codec == PQ_UNCOMPRESSED || (n == 0 && expected <= 0)) {
    pq_buf_append(out, src, n);
    return out->oom ? pq_fail(err, PQ_NOMEM, "lab", "out of memory") : PQ_OK;
  }
  return pq_decompress(codec, src, n, expected, (size_t)1 << 30, out, err);
}

/* Decodes the n levels (an RLE stream; prefix: with its 4-byte length) of
** maximum max; the entries at max into *present. */
static int lab_levels(lab_trial *t, const uint8_t *s, size_t len, int max,
                      int32_t n, int prefix, int64_t *present,
                      pq_error *err) {
  pq_params p;
  pq_params_init(&p);
  p.encoding = PQ_RLE;
  p.type = PQ_INT32;
  p.type_set = 1;
  p.bit_width = lab_bit_width(max);
  p.count = n;
  p.length_prefix = prefix;
  pq_decoder *d;
  int rc = pq_decoder_open(&d, &p, s, len, NULL, 0, err);
  int64_t at_max = 0;
  while (rc == PQ_OK) {
    size_t got;
    rc = pq_decoder_read(d, t->scratch, LAB_ROOM / 4, &got, err);
    if (!got) break;
    const int32_t *v = (const int32_t *)(const void *)t->scratch;
    for (size_t i = 0; i < got; i++) at_max += v[i] == max;
  }
  pq_decoder_free(d);
  *present = at_max;
  return rc;
}

/* Reads the pages made under codec (t->sealed), as a reader reads them:
** each header read, its CRC checked, its bytes decompressed, its levels
** and values decoded. */
static int lab_read(const pq_lab_column *c, lab_trial *t, pq_codec codec,
                    pq_error *err) {
  size_t vs = pq_value_size(c->p.type, c->p.type_length);
  size_t most = vs ? LAB_ROOM / vs : 0;
  uint32_t group = 0;
  int have_dict = 0;
  for (size_t i = 0; i < t->nsealed; i++) {
    const lab_sealed *s = &t->sealed[i];
    const pq_page_draft *dr = &t->pages.d[s->page];
    if (i == 0 || dr->row_group != group) {
      group = dr->row_group;
      have_dict = 0;
    }
    pq_page pg;
    memset(&pg, 0, sizeof pg);
    pg.num_nulls = pg.num_rows = -1;
    pg.is_compressed = 1;
    int32_t def_len = 0, rep_len = 0;
    const char *missing = NULL;
    int rc = pq_page_header_read(&pg, s->at, s->header, 0, "lab", &def_len,
                                 &rep_len, &missing, err);
    if (rc) return rc;
    const uint8_t *data = s->at + s->header;
    size_t n = s->len;
    if (missing || pg.compressed_size < 0 || (size_t)pg.compressed_size != n ||
        pg.num_values < 0 || def_len < 0 || rep_len < 0 ||
        (size_t)def_len + (size_t)rep_len > n)
      return pq_fail(err, PQ_CORRUPT, "lab", "page %zu: its header does not "
                     "describe it", i);
    if (pg.has_crc && pq_crc32(0, data, n) != pg.crc)
      return pq_fail(err, PQ_CORRUPT, "lab", "page %zu: CRC mismatch", i);
    if (pg.page_type == PQ_DICTIONARY_PAGE) {
      rc = lab_inflate(codec, data, n, pg.uncompressed_size, &t->dict, err);
      if (rc) return rc;
      have_dict = 1;
      continue;
    }
    const uint8_t *u, *def = NULL;
    size_t un, def_n = 0;
    int prefix = pg.page_type == PQ_DATA_PAGE;
    if (prefix) { /* v1: [rep levels] [def levels], each after its length */
      rc = lab_inflate(codec, data, n, pg.uncompressed_size, &t->page, err);
      if (rc) return rc;
      u = t->page.data ? t->page.data : (const uint8_t *)"";
      un = t->page.len;
      size_t pos = 0;
      for (int k = 0; k < 2; k++) {
        if ((k ? dr->max_def : dr->max_rep) == 0) continue;
        if (un - pos < 4 || pq_load32(u + pos) > un - pos - 4)
          return pq_fail(err, PQ_CORRUPT, "lab", "page %zu: levels past its "
                         "end", i);
        size_t len = 4 + (size_t)pq_load32(u + pos);
        if (k) {
          def = u + pos;
          def_n = len;
        }
        pos += len;
      }
      u += pos;
      un -= pos;
    } else { /* v2: the levels stored as they are, then the values */
      size_t lv = (size_t)def_len + (size_t)rep_len;
      def = data + rep_len;
      def_n = (size_t)def_len;
      rc = lab_inflate(pg.is_compressed ? codec : PQ_UNCOMPRESSED, data + lv,
                       n - lv, (int64_t)pg.uncompressed_size - (int64_t)lv,
                       &t->page, err);
      if (rc) return rc;
      u = t->page.data ? t->page.data : (const uint8_t *)"";
      un = t->page.len;
    }
    int64_t present = pg.num_values;
    if (dr->max_def > 0) {
      rc = lab_levels(t, def ? def : (const uint8_t *)"", def_n, dr->max_def,
                      pg.num_values, prefix, &present, err);
      if (rc) return rc;
    }
    int is_dict = pg.encoding == PQ_RLE_DICTIONARY ||
                  pg.encoding == PQ_PLAIN_DICTIONARY;
    if (is_dict && !have_dict)
      return pq_fail(err, PQ_CORRUPT, "lab", "page %zu: no dictionary", i);
    pq_params p;
    pq_params_init(&p);
    p.encoding = (pq_encoding)pg.encoding;
    p.type = c->p.type;
    p.type_length = c->p.type_length;
    p.type_set = 1;
    p.count = present;
    if (pg.encoding == PQ_RLE) p.length_prefix = 1;
    pq_decoder *d;
    const uint8_t *dict = t->dict.data ? t->dict.data : (const uint8_t *)"";
    rc = pq_decoder_open(&d, &p, u, un, is_dict ? dict : NULL,
                         is_dict ? t->dict.len : 0, err);
    while (rc == PQ_OK) {
      size_t got;
      rc = pq_decoder_read(d, t->scratch, most, &got, err);
      if (!got) break;
    }
    pq_decoder_free(d);
    if (rc) return rc;
  }
  return PQ_OK;
}

static int lab_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The quantile q of the n sorted times t, interpolated between the two
** nearest. */
static double lab_quantile(const double *t, size_t n, double q) {
  double at = q * (double)(n - 1);
  size_t i = (size_t)at;
  if (i + 1 >= n) return t[n - 1];
  return t[i] + (at - (double)i) * (t[i + 1] - t[i]);
}

/* The spread of the n times t (sorted here): the interquartile range over
** the median; -1 with fewer than 2 runs or a median of 0. */
static double lab_spread(double *t, size_t n) {
  if (n < 2) return -1;
  qsort(t, n, sizeof *t, lab_cmp_double);
  double med = lab_quantile(t, n, 0.5);
  if (!(med > 0)) return -1;
  return (lab_quantile(t, n, 0.75) - lab_quantile(t, n, 0.25)) / med;
}

/* The trial's write: the column's pages before their codec into t. */
static int lab_trial_write(const pq_lab_column *c, lab_trial *t, size_t nb,
                           const pq_params *p, const pq_write_options *o,
                           pq_error *err) {
  lab_rewind(&t->pages.bytes);
  t->pages.n = 0;
  return lab_write_n(c, nb, p, o, lab_tap, &t->pages, NULL, err);
}

/* Times codec k's rows of a trial whose write took t_write and whose
** pages under the codec, kept, took t_make: the write and the making
** repeated, then the reading, each until min_time has passed. */
static int lab_time(const pq_lab_column *c, lab_trial *t, const pq_params *p,
                    const pq_write_options *o, pq_codec codec, int level,
                    double min_time, double t_write, double t_make,
                    pq_lab_result *r, pq_error *err) {
  int rc = PQ_OK;
  size_t kept = 0;
  double total = t_write + t_make;
  int64_t runs = 1;
  t->times[kept++] = total;
  while (rc == PQ_OK && total < min_time) {
    double t0 = lab_clock();
    int64_t bytes;
    rc = lab_trial_write(c, t, c->nbatches, p, o, err);
    if (rc == PQ_OK) rc = lab_make(t, codec, level, o->crc, 1, &bytes, err);
    double dt = lab_clock() - t0;
    if (kept < LAB_SAMPLES) t->times[kept++] = dt;
    total += dt;
    runs++;
  }
  if (rc) return rc;
  r->encode_s = total / (double)runs;
  r->encode_spread = lab_spread(t->times, kept);
  r->encode_runs = runs;
  kept = 0;
  total = 0;
  runs = 0;
  while (rc == PQ_OK && (runs == 0 || total < min_time)) {
    double t0 = lab_clock();
    rc = lab_read(c, t, codec, err);
    double dt = lab_clock() - t0;
    if (kept < LAB_SAMPLES) t->times[kept++] = dt;
    total += dt;
    runs++;
  }
  if (rc) return rc;
  r->decode_s = total / (double)runs;
  r->decode_spread = lab_spread(t->times, kept);
  r->decode_runs = runs;
  return PQ_OK;
}

int pq_lab_runs(pq_lab_column *c, const char *encoding, int n,
                const pq_codec *codecs, const int *levels, double min_time,
                pq_lab_result *r, pq_error *err) {
  for (int k = 0; k < n; k++) {
    memset(&r[k], 0, sizeof r[k]);
    r[k].picked = -1;
    r[k].encode_s = r[k].decode_s = -1;
    r[k].encode_spread = r[k].decode_spread = -1;
  }
  lab_seal(c);
  int is_auto = lab_is_auto(encoding);
  if (n < 1 || (is_auto && n != 1))
    return pq_fail(err, PQ_MISUSE, "lab", "%d codecs for encoding '%s'", n,
                   encoding);
  for (int k = 0; k < n; k++) {
    if ((unsigned)codecs[k] >= PQ_CODEC_COUNT ||
        !pq_codec_available(codecs[k]))
      return pq_fail(err, PQ_MISUSE, "lab", "codec %d: not in this build",
                     (int)codecs[k]);
    int rc = pq_codec_level_check(codecs[k], levels[k], err);
    if (rc) return rc;
  }
  /* "auto" chooses by the codec: written with it; any other encoding
  ** once for every codec */
  pq_params p;
  pq_write_options o;
  int rc = lab_params(c, encoding, is_auto ? codecs[0] : PQ_UNCOMPRESSED,
                      is_auto ? levels[0] : PQ_LEVEL_DEFAULT, &p, &o, err);
  if (rc) return rc;
  lab_trial t;
  memset(&t, 0, sizeof t);
  double t0 = lab_clock();
  rc = lab_trial_write(c, &t, c->nbatches, &p, &o, err);
  double t_write = lab_clock() - t0;
  pq_lab_result fig;
  memset(&fig, 0, sizeof fig);
  if (rc == PQ_OK) rc = lab_order(&t, &fig, err);
  int timed = min_time > 0;
  if (rc == PQ_OK && timed) {
    t.scratch = pq_malloc(LAB_ROOM);
    t.times = pq_malloc(LAB_SAMPLES * sizeof *t.times);
    if (!t.scratch || !t.times)
      rc = pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  }
  for (int k = 0; rc == PQ_OK && k < n; k++) {
    r[k].pages = fig.pages;
    r[k].picked = fig.picked;
    r[k].fell_back = fig.fell_back;
    double m0 = lab_clock();
    rc = lab_make(&t, codecs[k], levels[k], o.crc, timed, &r[k].bytes, err);
    double t_make = lab_clock() - m0;
    if (rc == PQ_OK && timed)
      rc = lab_time(c, &t, &p, &o, codecs[k], levels[k], min_time, t_write,
                    t_make, &r[k], err);
  }
  if (rc == PQ_OK && p.encoding == PQ_RLE_DICTIONARY && !is_auto)
    c->fell_back = fig.fell_back;
  lab_trial_free(&t);
  return rc;
}

int pq_lab_run(pq_lab_column *c, const char *encoding, pq_codec codec,
               int level, double min_time, pq_lab_result *r, pq_error *err) {
  return pq_lab_runs(c, encoding, 1, &codec, &level, min_time, r, err);
}

void pq_lab_column_end(pq_lab_column *c) { lab_seal(c); }

int pq_lab_values_bytes(pq_lab_column *c, pq_encoding e, int64_t *bytes,
                        pq_error *err) {
  *bytes = 0;
  if ((unsigned)e >= PQ_ENCODING_COUNT)
    return pq_fail(err, PQ_MISUSE, "lab", "no encoding %d", (int)e);
  lab_seal(c);
  pq_params p;
  pq_params_init(&p);
  p.encoding = e;
  p.type = c->p.type;
  p.type_length = c->p.type_length;
  p.type_set = 1;
  pq_encoder *enc;
  int rc = pq_encoder_open(&enc, &p, err);
  if (rc) return rc;
  if (c->nvalues)
    rc = pq_encoder_put(enc, c->values.data, (size_t)c->nvalues, err);
  pq_buf out, dict;
  pq_buf_init(&out);
  pq_buf_init(&dict);
  if (rc == PQ_OK) rc = pq_encoder_finish(enc, &out, &dict, err);
  if (rc == PQ_OK) *bytes = (int64_t)(out.len + dict.len);
  /* the stream's figures, once */
  if (rc == PQ_OK && !c->why_set[e]) {
    pq_params_init(&p);
    p.encoding = e;
    p.type = c->p.type;
    p.type_length = c->p.type_length;
    p.type_set = 1;
    p.count = c->nvalues;
    c->why[e].len = 0;
    rc = pq_lab_stream_why(&p, out.data, out.len, dict.data, dict.len,
                           c->nvalues, &c->why[e], err);
    if (rc == PQ_OK) c->why_set[e] = 1;
  }
  pq_buf_free(&out);
  pq_buf_free(&dict);
  pq_encoder_free(enc);
  return rc;
}

int pq_lab_why(pq_lab_column *c, pq_encoding e, pq_buf *out, pq_error *err) {
  int64_t bytes;
  int rc = PQ_OK;
  if ((unsigned)e >= PQ_ENCODING_COUNT)
    return pq_fail(err, PQ_MISUSE, "lab", "no encoding %d", (int)e);
  if (!c->why_set[e]) rc = pq_lab_values_bytes(c, e, &bytes, err);
  int dict = e == PQ_RLE_DICTIONARY || e == PQ_PLAIN_DICTIONARY;
  if (rc == PQ_OK && dict && c->fell_back < 0) {
    /* whether the chunks fall back: written once (any codec will do) */
    pq_lab_result r;
    rc = pq_lab_run(c, "RLE_DICTIONARY", PQ_UNCOMPRESSED, PQ_LEVEL_DEFAULT, 0,
                    &r, err);
  }
  if (rc) return rc;
  size_t at = out->len;
  pq_buf_byte(out, '{');
  pq_buf_append(out, c->why[e].data, c->why[e].len);
  if (dict) {
    const char *fb = c->fell_back ? ",\"fell_back\":true"
                                  : ",\"fell_back\":false";
    pq_buf_append(out, fb, strlen(fb));
  }
  pq_buf_byte(out, '}');
  if (out->oom) {
    out->len = at;
    out->oom = 0;
    return pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  }
  return PQ_OK;
}

/* The batches after which a writer of options o with "auto" has chosen
** the first chunk's encoding.  It chooses on the entries it buffered (the
** values' bytes as they are held here: a pq_bytes and the bytes of each
** BYTE_ARRAY value) once they reach its sample, which is at most a page
** (writer.c, auto_sample), or once fewer reach the end of a page of
** page_values entries, of the row group, or of the file: so by the first
** batch after which a page's bytes are held, or a row group closed, at
** the latest.  What follows does not change the choice. */
static size_t lab_auto_batches(const pq_lab_column *c,
                               const pq_write_options *o) {
  if (o->page_size <= 0) return c->nbatches;
  size_t bytes = 0;
  for (size_t i = 0; i < c->nbatches; i++) {
    const lab_batch *b = &c->batches[i];
    bytes += b->values * c->vsize;
    if (c->p.type == PQ_BYTE_ARRAY) {
      const pq_bytes *v = (const pq_bytes *)(const void *)(c->values.data + b->v_at);
      for (size_t k = 0; k < b->values; k++) bytes += v[k].len;
    }
    if (bytes >= (size_t)o->page_size || b->end_group) return i + 1;
  }
  return c->nbatches;
}

int pq_lab_auto_pick(pq_lab_column *c, pq_codec codec, int level,
                     int *picked, pq_error *err) {
  *picked = -1;
  lab_seal(c);
  pq_params p;
  pq_write_options o;
  int rc = lab_params(c, "auto", codec, level, &p, &o, err);
  if (rc) return rc;
  lab_trial t;
  memset(&t, 0, sizeof t);
  rc = lab_trial_write(c, &t, lab_auto_batches(c, &o), &p, &o, err);
  pq_lab_result r;
  memset(&r, 0, sizeof r);
  if (rc == PQ_OK) rc = lab_order(&t, &r, err);
  if (rc == PQ_OK) *picked = r.picked;
  lab_trial_free(&t);
  return rc;
}
