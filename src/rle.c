/*
** rle.c -- the RLE/bit-packing hybrid (spec/Encodings.md, "Run Length
** Encoding / Bit-Packing Hybrid").
**
**   rle-bit-packed-hybrid: [<length>] <run>*
**   run: varint(n << 1) <value in ceil(w/8) bytes>         n copies
**      | varint(g << 1 | 1) <g*w bytes>                    8*g packed values
**
** The run reader and writer here serve the RLE encoding itself (BOOLEAN
** values and levels), the dictionary index streams and page levels.
*/
#include "internal.h"

#define RUN_MAX 0x7fffffffu /* spec: run lengths are in [1, 2^31-1] */

/* ---- Reader ------------------------------------------------------------- */

void pq_rle_reader_init(pq_rle_reader *r, const uint8_t *buf, size_t len,
                        size_t base, int w, const char *label) {
  memset(r, 0, sizeof *r);
  r->buf = buf;
  r->len = len;
  r->base = base;
  r->w = w;
  r->label = label;
  r->limit = UINT64_MAX;
}

int pq_rle_next_run(pq_rle_reader *r, pq_error *err) {
  size_t at = r->pos;
  uint64_t h;
  int bad = pq_uleb_read(r->buf, r->len, &r->pos, &h);
  if (bad) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   bad == 1 ? "run %llu: header at offset %zu is cut short"
                            : "run %llu: header at offset %zu is over 64 bits",
                   (unsigned long long)r->runs, r->base + at);
  }
  size_t avail = r->len - r->pos;
  if (h & 1) {
    uint64_t groups = h >> 1;
    if (groups == 0 || groups > RUN_MAX / 8) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: a bit-packed run of %llu values "
                     "(the spec allows 8 to 2147483640)",
                     (unsigned long long)r->runs, r->base + at,
                     (unsigned long long)groups * 8);
    }
    uint64_t values = groups * 8;
    uint64_t bytes = groups * (uint64_t)r->w;
    if (bytes > avail) {
      /* A run cut short is still readable when the values wanted from it
      ** are all there (writers may drop the padding of the last group). */
      uint64_t want = r->limit == UINT64_MAX ? values : r->limit - r->produced;
      if (want < values && (want * (uint64_t)r->w + 7) / 8 <= avail) {
        values = want;
      } else {
        return pq_fail(err, PQ_CORRUPT, r->label,
                       "run %llu at offset %zu: %llu bit-packed values of %d "
                       "bits need %llu bytes, %zu remain",
                       (unsigned long long)r->runs, r->base + at,
                       (unsigned long long)values, r->w,
                       (unsigned long long)bytes, avail);
      }
      bytes = avail;
    }
    r->run_packed = 1;
    r->packed = r->buf + r->pos;
    r->packed_bytes = (size_t)bytes;
    r->pos += (size_t)bytes;
    r->run_left = (uint32_t)values;
  } else {
    uint64_t n = h >> 1;
    if (n == 0 || n > RUN_MAX) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: an RLE run of %llu values (the "
                     "spec allows 1 to 2147483647)",
                     (unsigned long long)r->runs, r->base + at,
                     (unsigned long long)n);
    }
    size_t vb = (size_t)(r->w + 7) / 8;
    if (vb > avail) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: the repeated value needs %zu "
                     "bytes, %zu remain",
                     (unsigned long long)r->runs, r->base + at, vb, avail);
    }
    uint32_t v = 0;
    for (size_t i = 0; i < vb; i++)
      v |= (uint32_t)r->buf[r->pos + i] << (8 * i);
    if (r->w < 32 && (v >> r->w) != 0) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: repeated value %u does not fit "
                     "in %d bits",
                     (unsigned long long)r->runs, r->base + at, v, r->w);
    }
    r->pos += vb;
    r->run_packed = 0;
    r->run_value = v;
    r->run_left = (uint32_t)n;
  }
  r->runs++;
  return PQ_OK;
}

/* Unpacks the next min(run_left, 32) values of a bit-packed run into the
** chunk.  The run's bytes were checked when it began. */
static void rle_fill_chunk(pq_rle_reader *r) {
  int w = r->w;
  if (r->run_left >= 32 && r->packed_bytes >= (size_t)4 * w) {
    pq_unpack32(w, r->packed, r->chunk);
    r->chunk_len = 32;
  } else {
    uint64_t tmp[32];
    int m = r->run_left < 32 ? (int)r->run_left : 32;
    /* Copy what is present into zeroed room so a short last group reads
    ** as zeros past the end. */
    uint8_t room[4 * 32 + 8] = {0};
    size_t need = ((size_t)m * (size_t)w + 7) / 8;
    memcpy(room, r->packed, need < r->packed_bytes ? need : r->packed_bytes);
    pq_unpack_lsb(room, 0, w, (size_t)m, tmp);
    for (int i = 0; i < m; i++) r->chunk[i] = (uint32_t)tmp[i];
    r->chunk_len = m;
  }
  size_t used = ((size_t)r->chunk_len * (size_t)w) / 8;
  if (used > r->packed_bytes) used = r->packed_bytes;
  r->packed += used;
  r->packed_bytes -= used;
  r->run_left -= (uint32_t)r->chunk_len;
  r->chunk_pos = 0;
}

int pq_rle_reader_read(pq_rle_reader *r, uint32_t *out, size_t max, size_t *n,
                       pq_error *err) {
  const uint64_t start = r->produced;
  size_t k = 0;
  while (k < max) {
    if (r->chunk_pos < r->chunk_len) {
      size_t m = (size_t)(r->chunk_len - r->chunk_pos);
      if (m > max - k) m = max - k;
      memcpy(out + k, r->chunk + r->chunk_pos, m * sizeof *out);
      r->chunk_pos += (int)m;
      k += m;
      continue;
    }
    if (r->run_left == 0) {
      if (r->pos >= r->len) break;
      r->produced = start + k;
      int rc = pq_rle_next_run(r, err);
      if (rc) {
        *n = k;
        return rc;
      }
    }
    if (!r->run_packed) {
      size_t m = r->run_left;
      if (m > max - k) m = max - k;
      uint32_t v = r->run_value;
      for (size_t i = 0; i < m; i++) out[k + i] = v;
      r->run_left -= (uint32_t)m;
      k += m;
    } else if (r->run_left >= 32 && max - k >= 32 &&
               r->packed_bytes >= (size_t)4 * r->w) {
      /* Whole chunks straight into the output. */
      pq_unpack32(r->w, r->packed, out + k);
      r->packed += 4 * r->w;
      r->packed_bytes -= (size_t)4 * r->w;
      r->run_left -= 32;
      k += 32;
    } else {
      rle_fill_chunk(r);
    }
  }
  r->produced = start + k;
  *n = k;
  return PQ_OK;
}

/* ---- Writer ------------------------------------------------------------- */

void pq_rle_writer_init(pq_rle_writer *w, pq_buf *out, int bit_width) {
  memset(w, 0, sizeof *w);
  w->out = out;
  w->w = bit_width;
}

/* Packs 8 values of w bits LSB first into w bytes. */
static void pack8(const uint32_t *v, int w, uint8_t *out) {
  uint64_t acc = 0;
  int bits = 0;
  size_t o = 0;
  for (int i = 0; i < 8; i++) {
    acc |= (uint64_t)v[i] << bits;
    bits += w;
    while (bits >= 8) {
      out[o++] = (uint8_t)acc;
      acc >>= 8;
      bits -= 8;
    }
  }
}

static void close_literal(pq_rle_writer *w) {
  if (w->lit_groups == 0) return;
  if (!w->out->oom)
    w->out->data[w->lit_header] = (uint8_t)(w->lit_groups << 1 | 1);
  w->lit_groups = 0;
}

static void write_repeat(pq_rle_writer *w) {
  close_literal(w);
  uint8_t tmp[16];
  size_t n = pq_uleb_write(tmp, w->run_len << 1);
  for (int i = 0; i < (w->w + 7) / 8; i++)
    tmp[n++] = (uint8_t)(w->run_value >> (8 * i));
  pq_buf_append(w->out, tmp, n);
  w->run_len = 0;
  w->npending = 0;
}

/* Commits the 8 pending values: as part of a repeat when they are one, or
** as a bit-packed group.  A literal run is kept to 63 groups so that its
** header is one byte, written in place when the run closes. */
static void flush_group(pq_rle_writer *w) {
  w->npending = 0;
  if (w->run_len >= 8) {
    close_literal(w);
    return;
  }
  if (w->lit_groups == 0) {
    w->lit_header = w->out->len;
    pq_buf_byte(w->out, 0);
  }
  if (pq_buf_reserve(w->out, (size_t)w->w) == PQ_OK) {
    pack8(w->pending, w->w, w->out->data + w->out->len);
    w->out->len += (size_t)w->w;
  }
  if (++w->lit_groups == 63) close_literal(w);
  w->run_len = 0; /* repeats are counted from a group boundary */
}

void pq_rle_writer_put(pq_rle_writer *w, uint32_t v) {
  if (w->run_len > 0 && v == w->run_value) {
    if (++w->run_len > 8) {
      if (w->run_len == RUN_MAX) write_repeat(w);
      return;
    }
  } else {
    if (w->run_len >= 8) write_repeat(w);
    w->run_value = v;
    w->run_len = 1;
  }
  w->pending[w->npending++] = v;
  if (w->npending == 8) flush_group(w);
}

void pq_rle_writer_flush(pq_rle_writer *w) {
  if (w->run_len >= 8 ||
      (w->npending > 0 && w->run_len == (uint64_t)w->npending)) {
    /* A trailing repeat, or a short tail that is all one value: an RLE run
    ** says exactly how many values there are, where a bit-packed group
    ** would pad to 8. */
    write_repeat(w);
  } else if (w->npending > 0) {
    for (int i = w->npending; i < 8; i++) w->pending[i] = 0;
    w->npending = 8;
    w->run_len = 0;
    flush_group(w);
  }
  close_literal(w);
  w->run_len = 0;
  w->npending = 0;
}

/* ---- Adaptive width ------------------------------------------------------ */

void pq_rle_adaptive_init(pq_rle_adaptive *a) {
  memset(a, 0, sizeof *a);
  pq_rle_writer_init(&a->wr, &a->buf, 0);
}

/* Re-encodes everything written so far at bit width nw. */
static int rle_widen(pq_rle_adaptive *a, int nw) {
  pq_rle_writer_flush(&a->wr);
  pq_buf nb;
  pq_buf_init(&nb);
  pq_rle_writer nwr;
  pq_rle_writer_init(&nwr, &nb, nw);
  if (a->count > 0 && !a->buf.oom) {
    pq_rle_reader r;
    pq_rle_reader_init(&r, a->buf.data, a->buf.len, 0, a->w, "RLE");
    r.limit = a->count;
    uint32_t tmp[256];
    uint64_t left = a->count;
    while (left > 0) {
      size_t got;
      pq_error e;
      if (pq_rle_reader_read(&r, tmp, left < 256 ? (size_t)left : 256, &got,
                             &e) ||
          got == 0)
        break; /* cannot happen on our own output */
      for (size_t i = 0; i < got; i++) pq_rle_writer_put(&nwr, tmp[i]);
      left -= got;
    }
  }
  int oom = a->buf.oom;
  pq_buf_free(&a->buf);
  a->buf = nb;
  a->buf.oom |= oom;
  a->wr = nwr;
  a->wr.out = &a->buf;
  a->w = nw;
  return a->buf.oom ? PQ_NOMEM : PQ_OK;
}

int pq_rle_adaptive_put(pq_rle_adaptive *a, const uint32_t *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (PQ_UNLIKELY(a->w < 32 && (v[i] >> a->w) != 0)) {
      if (rle_widen(a, pq_bit_width64(v[i]))) return PQ_NOMEM;
    }
    pq_rle_writer_put(&a->wr, v[i]);
    a->count++;
  }
  return a->buf.oom ? PQ_NOMEM : PQ_OK;
}

void pq_rle_adaptive_flush(pq_rle_adaptive *a) {
  pq_rle_writer_flush(&a->wr);
}

void pq_rle_adaptive_free(pq_rle_adaptive *a) {
  pq_buf_free(&a->buf);
}

/* ---- The RLE encoding ----------------------------------------------------
** BOOLEAN values (bit width 1) or unsigned integers of a given bit width,
** with or without the 4-byte length prefix. */

typedef struct rle_dec {
  pq_decoder base;
  pq_rle_reader r;
  uint32_t tmp[256]; /* BOOLEAN: values before narrowing */
} rle_dec;

static int rle_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  rle_dec *s = (rle_dec *)d;
  if (d->out_type != PQ_BOOLEAN)
    return pq_rle_reader_read(&s->r, out, max, n, err);
  uint8_t *o = out;
  size_t k = 0;
  while (k < max) {
    size_t got, want = max - k < 256 ? max - k : 256;
    int rc = pq_rle_reader_read(&s->r, s->tmp, want, &got, err);
    for (size_t i = 0; i < got; i++) o[k + i] = (uint8_t)s->tmp[i];
    k += got;
    if (rc) {
      *n = k;
      return rc;
    }
    if (got < want) break;
  }
  *n = k;
  return PQ_OK;
}

/* Reads the 4-byte length prefix; sets *start and *len to the runs. */
int pq_rle_prefix(const uint8_t *buf, size_t len, size_t base,
                  const char *label, size_t *start, size_t *runs_len,
                  pq_error *err) {
  if (len < 4) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "the 4-byte length prefix at offset %zu is cut short: %zu "
                   "bytes remain",
                   base, len);
  }
  uint32_t n = pq_load32(buf);
  if (n > len - 4) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "the length prefix says %u bytes follow at offset %zu, "
                   "%zu do",
                   n, base + 4, len - 4);
  }
  *start = 4;
  *runs_len = n;
  return PQ_OK;
}

int pq_rle_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err) {
  if (p->bit_width < 0) {
    return pq_fail(err, PQ_MISUSE, "RLE",
                   "the bit_width option is needed to decode integers");
  }
  size_t start = 0, n = len;
  if (p->length_prefix) {
    int rc = pq_rle_prefix(buf, len, 0, "RLE", &start, &n, err);
    if (rc) return rc;
  }
  rle_dec *s = (rle_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, "RLE");
  pq_rle_reader_init(&s->r, buf + start, n, start, p->bit_width, "RLE");
  if (p->count >= 0) s->r.limit = (uint64_t)p->count;
  s->base.is_index = p->type != PQ_BOOLEAN;
  s->base.read = rle_read;
  *out = &s->base;
  return PQ_OK;
}

typedef struct rle_enc {
  pq_encoder base;
  pq_buf out;
  pq_rle_writer wr;   /* with a given bit width */
  pq_rle_adaptive ad; /* without one */
} rle_enc;

static int rle_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  rle_enc *s = (rle_enc *)e;
  if (e->p.type == PQ_BOOLEAN) {
    const uint8_t *b = v;
    for (size_t i = 0; i < n; i++) pq_rle_writer_put(&s->wr, b[i] != 0);
    return PQ_OK;
  }
  const uint32_t *u = v;
  int w = e->p.bit_width;
  if (w < 0) {
    return pq_rle_adaptive_put(&s->ad, u, n) ? pq_nomem(err, "RLE") : PQ_OK;
  }
  for (size_t i = 0; i < n; i++) {
    if (w < 32 && (u[i] >> w) != 0) {
      return pq_fail(err, PQ_RANGE, "RLE",
                     "value %llu is %u, which does not fit in bit width %d",
                     (unsigned long long)(e->count + i), u[i], w);
    }
    pq_rle_writer_put(&s->wr, u[i]);
  }
  return PQ_OK;
}

static int rle_finish(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err) {
  (void)dict;
  (void)err;
  rle_enc *s = (rle_enc *)e;
  pq_buf *runs = &s->out;
  if (e->p.type != PQ_BOOLEAN && e->p.bit_width < 0) {
    pq_rle_adaptive_flush(&s->ad);
    runs = &s->ad.buf;
  } else {
    pq_rle_writer_flush(&s->wr);
  }
  if (e->p.length_prefix) {
    uint8_t pre[4];
    pq_store32(pre, (uint32_t)runs->len);
    pq_buf_append(out, pre, 4);
  }
  pq_buf_move(out, runs);
  return PQ_OK;
}

static size_t rle_size(const pq_encoder *e) {
  const rle_enc *s = (const rle_enc *)e;
  return s->out.len + s->ad.buf.len + (size_t)s->wr.npending;
}

static void rle_destroy(pq_encoder *e) {
  rle_enc *s = (rle_enc *)e;
  pq_buf_free(&s->out);
  pq_rle_adaptive_free(&s->ad);
}

int pq_rle_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  rle_enc *s = (rle_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, "RLE");
  pq_rle_writer_init(&s->wr, &s->out, p->bit_width < 0 ? 0 : p->bit_width);
  pq_rle_adaptive_init(&s->ad);
  s->base.put = rle_put;
  s->base.finish = rle_finish;
  s->base.destroy = rle_destroy;
  s->base.size = rle_size;
  *out = &s->base;
  return PQ_OK;
}
