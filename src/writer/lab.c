/*
** lab.c -- the encoding lab: one column's values written again and again,
** under one encoding and codec after another, to see what each costs.
**
** A column is kept once, as the batches its writer was handed (values,
** present flags, the bytes of BYTE_ARRAY values), with the places where
** its row groups closed.  Each try opens a one-column writer of the
** column's params and options with only the encoding, codec and level
** changed, hands it the same batches in the same sizes and closes its row
** groups at the same places: the writer closes its pages by what the
** batches put (writer.c), so the chunks it makes are byte for byte those
** of the file the batches first went to.  The file made is read back for
** its chunks' sizes and pages, and, when asked, timed: writing it again,
** and reading its pages (decompressed, levels and values decoded), each
** repeated until a minimum time has passed.
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

/* The column's params and options for encoding enc (a name, or "auto"),
** codec and level, as parquet_write's "encoding" and "codec" set them. */
static int lab_params(const pq_lab_column *c, const char *enc, pq_codec codec,
                      int level, pq_params *p, pq_write_options *o,
                      pq_error *err) {
  pq_encoding e;
  size_t n = strlen(enc);
  int is_auto = n == 4 && (enc[0] | 32) == 'a' && (enc[1] | 32) == 'u' &&
                (enc[2] | 32) == 't' && (enc[3] | 32) == 'o';
  if (!is_auto && pq_encoding_parse(enc, n, &e))
    return pq_fail(err, PQ_MISUSE, "lab", "unknown encoding '%s'", enc);
  *p = c->p;
  *o = c->o;
  o->auto_encoding = 0;
  pq_write_type_encoding(enc, -1, p, o);
  o->codec = codec;
  o->level = level;
  return PQ_OK;
}

/* Writes the first nb batches to a file of the column alone, into out. */
static int lab_write_n(const pq_lab_column *c, size_t nb, const pq_params *p,
                       const pq_write_options *o, pq_buf *out,
                       pq_error *err) {
  pq_writer *w;
  int rc = pq_writer_open_columns(&w, 1, p, o, err);
  for (size_t i = 0; rc == PQ_OK && i < nb && i < c->nbatches; i++) {
    const lab_batch *b = &c->batches[i];
    rc = pq_writer_put_column(w, 0, c->values.data + b->v_at,
                              c->present.data + b->p_at, b->rows, err);
    if (rc == PQ_OK && b->end_group) rc = pq_writer_end_row_group(w, err);
  }
  if (rc == PQ_OK) rc = pq_writer_finish(w, out, err);
  pq_writer_free(w);
  return rc;
}

/* ... all of them. */
static int lab_write(const pq_lab_column *c, const pq_params *p,
                     const pq_write_options *o, pq_buf *out, pq_error *err) {
  return lab_write_n(c, c->nbatches, p, o, out, err);
}

static int lab_bit_width(int max) {
  int w = 0;
  while (max >> w) w++;
  return w;
}

/* Reads every page of the file's chunks (decompressed, levels and values
** decoded), and sums their sizes and pages into r (count set). */
static int lab_read(const pq_file *f, const pq_lab_column *c, int count,
                    pq_lab_result *r, uint8_t *scratch, size_t room,
                    pq_error *err) {
  const pq_file_meta *m = pq_file_metadata(f);
  size_t vs = pq_value_size(c->p.type, c->p.type_length);
  size_t most = vs ? room / vs : 0;
  int rc = PQ_OK;
  for (uint32_t g = 0; rc == PQ_OK && g < m->n_row_groups; g++) {
    if (count && m->row_groups[g].n_columns > 0 &&
        m->row_groups[g].columns[0].has_meta_data)
      r->bytes += m->row_groups[g].columns[0].meta.total_compressed_size;
    pq_page_reader *pr;
    int chunk_dict = 0;
    rc = pq_page_reader_open(&pr, f, g, 0, (size_t)1 << 30, err);
    if (rc) break;
    for (;;) {
      pq_page pg;
      int got;
      rc = pq_page_reader_next(pr, &pg, &got, err);
      if (rc || !got) break;
      if (count) {
        r->pages++;
        if (g == 0 && r->picked < 0)
          r->picked = pg.page_type == PQ_DICTIONARY_PAGE ? PQ_RLE_DICTIONARY
                                                         : pg.encoding;
        if (pg.page_type == PQ_DICTIONARY_PAGE) chunk_dict = 1;
        else if (chunk_dict && pg.encoding != PQ_RLE_DICTIONARY &&
                 pg.encoding != PQ_PLAIN_DICTIONARY)
          r->fell_back = 1;
      }
      if (pg.page_type != PQ_DATA_PAGE && pg.page_type != PQ_DATA_PAGE_V2)
        continue;
      pq_decoder *d = NULL;
      pq_params p;
      size_t got_n;
      if (pg.max_def > 0 && pg.def_levels.len) {
        pq_params_init(&p);
        p.encoding = pg.def_encoding == PQ_BIT_PACKED ? PQ_BIT_PACKED : PQ_RLE;
        p.type = PQ_INT32;
        p.type_set = 1;
        p.bit_width = lab_bit_width(pg.max_def);
        p.count = pg.num_values;
        p.length_prefix = pg.page_type == PQ_DATA_PAGE && p.encoding == PQ_RLE;
        rc = pq_decoder_open(&d, &p, pg.def_levels.ptr, pg.def_levels.len,
                             NULL, 0, err);
        while (rc == PQ_OK) {
          rc = pq_decoder_read(d, scratch, room / 4, &got_n, err);
          if (!got_n) break;
        }
        pq_decoder_free(d);
        d = NULL;
        if (rc) break;
      }
      int is_dict = pg.encoding == PQ_RLE_DICTIONARY ||
                    pg.encoding == PQ_PLAIN_DICTIONARY;
      const pq_bytes *dict = is_dict ? pq_page_reader_dictionary(pr, NULL)
                                     : NULL;
      pq_params_init(&p);
      p.encoding = (pq_encoding)pg.encoding;
      p.type = c->p.type;
      p.type_length = c->p.type_length;
      p.type_set = 1;
      p.count = pg.value_count;
      if (pg.encoding == PQ_RLE) p.length_prefix = 1;
      rc = pq_decoder_open(&d, &p, pg.values.ptr, pg.values.len,
                           dict ? dict->ptr : NULL, dict ? dict->len : 0, err);
      while (rc == PQ_OK) {
        rc = pq_decoder_read(d, scratch, most, &got_n, err);
        if (!got_n) break;
      }
      pq_decoder_free(d);
      if (rc) break;
    }
    pq_page_reader_free(pr);
  }
  return rc;
}

/* The times of single runs, for the spread: the first LAB_SAMPLES runs. */
#define LAB_SAMPLES 65536

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

/* Repeats a write (read = 0) or a read of the file f until min_time has
** passed; the mean time of a run into *mean, the spread into *spread, the
** runs into *runs.  times has room for LAB_SAMPLES. */
static int lab_time(const pq_lab_column *c, const pq_params *p,
                    const pq_write_options *o, const pq_file *f, int read,
                    double min_time, uint8_t *scratch, size_t room,
                    double *times, double *mean, double *spread,
                    int64_t *runs, pq_error *err) {
  int rc = PQ_OK;
  int64_t n = 0;
  size_t kept = 0;
  double t0 = lab_clock(), t = 0, last = t0;
  pq_buf again;
  pq_buf_init(&again);
  pq_lab_result skip;
  while (rc == PQ_OK && (t < min_time || n == 0)) {
    if (read) {
      rc = lab_read(f, c, 0, &skip, scratch, room, err);
    } else {
      again.len = 0;
      rc = lab_write(c, p, o, &again, err);
    }
    n++;
    double now = lab_clock();
    if (kept < LAB_SAMPLES) times[kept++] = now - last;
    last = now;
    t = now - t0;
  }
  pq_buf_free(&again);
  if (rc == PQ_OK) {
    *mean = t / (double)n;
    *spread = lab_spread(times, kept);
    *runs = n;
  }
  return rc;
}

int pq_lab_run(pq_lab_column *c, const char *encoding, pq_codec codec,
               int level, double min_time, pq_lab_result *r, pq_buf *image,
               pq_error *err) {
  memset(r, 0, sizeof *r);
  r->picked = -1;
  r->encode_s = r->decode_s = -1;
  r->encode_spread = r->decode_spread = -1;
  lab_seal(c);
  pq_params p;
  pq_write_options o;
  int rc = lab_params(c, encoding, codec, level, &p, &o, err);
  if (rc) return rc;
  pq_buf out;
  pq_buf_init(&out);
  /* the first write is the one measured, and the timing's warm-up */
  rc = lab_write(c, &p, &o, &out, err);
  pq_file *f = NULL;
  if (rc == PQ_OK) rc = pq_file_open(&f, out.data, out.len, err);
  size_t room = (size_t)1 << 16;
  uint8_t *scratch = rc == PQ_OK ? pq_malloc(room) : NULL;
  if (rc == PQ_OK && !scratch) rc = pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  if (rc == PQ_OK) rc = lab_read(f, c, 1, r, scratch, room, err);
  if (rc == PQ_OK && p.encoding == PQ_RLE_DICTIONARY &&
      strcmp(encoding, "auto") != 0)
    c->fell_back = r->fell_back;
  if (rc == PQ_OK && min_time > 0) {
    double *times = pq_malloc(LAB_SAMPLES * sizeof *times);
    if (!times) rc = pq_fail(err, PQ_NOMEM, "lab", "out of memory");
    if (rc == PQ_OK)
      rc = lab_time(c, &p, &o, f, 0, min_time, scratch, room, times,
                    &r->encode_s, &r->encode_spread, &r->encode_runs, err);
    /* reading: a pass to warm up, then timed */
    pq_lab_result skip;
    if (rc == PQ_OK) rc = lab_read(f, c, 0, &skip, scratch, room, err);
    if (rc == PQ_OK)
      rc = lab_time(c, &p, &o, f, 1, min_time, scratch, room, times,
                    &r->decode_s, &r->decode_spread, &r->decode_runs, err);
    pq_free(times);
  }
  pq_free(scratch);
  pq_file_free(f);
  if (rc == PQ_OK && image) {
    pq_buf_free(image);
    *image = out;
  } else {
    pq_buf_free(&out);
  }
  return rc;
}

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
                    &r, NULL, err);
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
  pq_buf out;
  pq_buf_init(&out);
  rc = lab_write_n(c, lab_auto_batches(c, &o), &p, &o, &out, err);
  pq_file *f = NULL;
  if (rc == PQ_OK) rc = pq_file_open(&f, out.data, out.len, err);
  size_t room = (size_t)1 << 16;
  uint8_t *scratch = rc == PQ_OK ? pq_malloc(room) : NULL;
  if (rc == PQ_OK && !scratch) rc = pq_fail(err, PQ_NOMEM, "lab", "out of memory");
  pq_lab_result r;
  memset(&r, 0, sizeof r);
  r.picked = -1;
  if (rc == PQ_OK) rc = lab_read(f, c, 1, &r, scratch, room, err);
  if (rc == PQ_OK) *picked = r.picked;
  pq_free(scratch);
  pq_file_free(f);
  pq_buf_free(&out);
  return rc;
}
