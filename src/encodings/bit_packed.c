/*
** bit_packed.c -- the deprecated BIT_PACKED encoding (spec/Encodings.md,
** "Bit-packed (Deprecated)").
**
** Values of one bit width back to back, packed from the most significant
** bit of each byte down; the last byte is padded with zeros.  Some writers
** packed LSB first instead; the option bit_order = "lsb" reads and writes
** that order.  The stream does not say how many values it holds, so
** without a count every whole value in the bytes is yielded.
*/
#include "encodings.h"

typedef struct bp_dec {
  pq_decoder base;
  int w;
  uint64_t bit;   /* next bit to read */
  uint64_t avail; /* values the bytes hold */
  const pq_unpack32_fn *unpack32; /* the bit order's, as pq_cpu() allows */
} bp_dec;

static int bp_read(pq_decoder *d, void *out, size_t max, size_t *n,
                   pq_error *err) {
  (void)err;
  bp_dec *s = (bp_dec *)d;
  uint32_t *o = out;
  int w = s->w;
  uint64_t done = s->bit / (w ? (uint64_t)w : 1);
  if (w == 0) done = d->done;
  uint64_t left = s->avail - done;
  size_t k = max < left ? max : (size_t)left;
  size_t i = 0;
  /* Whole chunks of 32 start on a byte boundary (32*w bits).  Each reads
  ** exactly its 4*w bytes, which the count of values left covers. */
  while (k - i >= 32 && (s->bit & 7) == 0) {
    s->unpack32[w](d->buf + s->bit / 8, o + i);
    s->bit += 32 * (uint64_t)w;
    i += 32;
  }
  while (i < k) {
    uint64_t tmp[32];
    size_t m = k - i < 32 ? k - i : 32;
    if (d->p.lsb_first) {
      pq_unpack_lsb(d->buf, s->bit, w, m, tmp);
    } else {
      pq_unpack_msb(d->buf, s->bit, w, m, tmp);
    }
    for (size_t j = 0; j < m; j++) o[i + j] = (uint32_t)tmp[j];
    s->bit += m * (uint64_t)w;
    i += m;
  }
  *n = k;
  return PQ_OK;
}

int pq_bit_packed_check(const pq_params *p, size_t len, uint64_t *values,
                        pq_error *err) {
  int w = p->bit_width;
  if (w < 0) {
    return pq_fail(err, PQ_MISUSE, "BIT_PACKED",
                   "the bit_width option is needed");
  }
  uint64_t bits = (uint64_t)len * 8;
  uint64_t avail;
  if (w == 0) {
    if (p->count < 0) {
      return pq_fail(err, PQ_MISUSE, "BIT_PACKED",
                     "values of bit width 0 take no bytes: the count option "
                     "is needed");
    }
    avail = (uint64_t)p->count;
  } else {
    avail = bits / (uint64_t)w;
    if (p->count >= 0 && (uint64_t)p->count > avail) {
      return pq_fail(
          err, PQ_CORRUPT, "BIT_PACKED",
          "%lld values of %d bits need %llu bytes, the stream has "
          "%zu",
          (long long)p->count, w,
          (unsigned long long)(((uint64_t)p->count * (uint64_t)w + 7) / 8),
          len);
    }
  }
  *values = avail;
  return PQ_OK;
}

int pq_bit_packed_decoder(pq_decoder **out, const pq_params *p,
                          const uint8_t *buf, size_t len, pq_error *err) {
  uint64_t avail;
  int rc = pq_bit_packed_check(p, len, &avail, err);
  if (rc) return rc;
  bp_dec *s = (bp_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, "BIT_PACKED");
  s->w = p->bit_width;
  s->avail = avail;
  unsigned cpu = pq_cpu();
  s->unpack32 = s->base.p.lsb_first ? pq_unpack32_table(cpu)
                                    : pq_unpack32_msb_table(cpu);
  s->base.is_index = 1;
  s->base.read = bp_read;
  *out = &s->base;
  return PQ_OK;
}

/* ---- Encoder ------------------------------------------------------------ */

typedef struct bp_enc {
  pq_encoder base;
  pq_buf out;   /* the whole bytes so far */
  int w;        /* current bit width */
  int fixed;    /* the width was given */
  uint64_t acc; /* bits not yet written: the low nacc, fewer than 8 */
  int nacc;
  const pq_pack32_fn *pack32;     /* the bit order's, as pq_cpu() allows */
  const pq_unpack32_fn *unpack32; /* to re-pack at a wider width */
} bp_enc;

/* Appends n values that fit the width.  One value at a time until the
** stream is at a byte boundary (at most 7), then 32 at a time straight
** into the buffer (32*w bits are whole bytes), the rest one at a time. */
static int bp_pack(bp_enc *s, const uint32_t *u, size_t n) {
  int w = s->w;
  if (w == 0 || n == 0) return PQ_OK;
  if (n > SIZE_MAX / 64) {
    s->out.oom = 1;
    return PQ_NOMEM;
  }
  /* The whole bytes the values complete, and room for the packers' 16
  ** bytes after them.  A buffer that must grow at least doubles: each
  ** growth may copy what is written, which is most of the time of a
  ** stream put in small batches. */
  size_t bytes = ((size_t)s->nacc + n * (size_t)w) / 8;
  size_t want = bytes + 16;
  if (want > s->out.cap - s->out.len && want < s->out.len) want = s->out.len;
  if (pq_buf_reserve(&s->out, want)) return PQ_NOMEM;
  uint8_t *o = s->out.data + s->out.len;
  uint64_t acc = s->acc;
  int nacc = s->nacc, lsb = s->base.p.lsb_first;
  size_t i = 0;
  for (;;) {
    if (nacc == 0) {
      pq_pack32_fn pack = s->pack32[w];
      for (; n - i >= 32; i += 32, o += 4 * w) pack(u + i, o);
    }
    if (i == n) break;
    if (lsb) {
      acc |= (uint64_t)u[i] << nacc;
      for (nacc += w; nacc >= 8; nacc -= 8, acc >>= 8) *o++ = (uint8_t)acc;
    } else {
      acc = acc << w | u[i];
      for (nacc += w; nacc >= 8; nacc -= 8) *o++ = (uint8_t)(acc >> (nacc - 8));
    }
    i++;
  }
  s->acc = acc;
  s->nacc = nacc;
  s->out.len = (size_t)(o - s->out.data);
  return PQ_OK;
}

static void bp_pad(bp_enc *s) {
  if (s->nacc == 0) return;
  uint8_t last = s->base.p.lsb_first ? (uint8_t)s->acc
                                     : (uint8_t)(s->acc << (8 - s->nacc));
  pq_buf_byte(&s->out, last);
  s->acc = 0;
  s->nacc = 0;
}

/* Re-packs the values written so far at width nw, 1024 at a time. */
static int bp_widen(bp_enc *s, int nw) {
  bp_pad(s);
  pq_buf old = s->out;
  pq_buf_init(&s->out);
  int ow = s->w, lsb = s->base.p.lsb_first;
  s->w = nw;
  uint64_t n = s->base.count, bit = 0;
  uint32_t tmp[1024];
  int rc = old.oom ? PQ_NOMEM : PQ_OK;
  for (uint64_t i = 0; i < n && !rc;) {
    size_t m = n - i < 1024 ? (size_t)(n - i) : 1024, j = 0;
    if (ow == 0) { /* no bytes were written */
      memset(tmp, 0, m * sizeof *tmp);
      j = m;
    }
    /* Each 32 values of the old stream start on a byte boundary. */
    for (; m - j >= 32; j += 32, bit += 32 * (uint64_t)ow)
      s->unpack32[ow](old.data + bit / 8, tmp + j);
    for (; j < m; j++, bit += (uint64_t)ow) {
      uint64_t v;
      if (lsb) {
        pq_unpack_lsb(old.data, bit, ow, 1, &v);
      } else {
        pq_unpack_msb(old.data, bit, ow, 1, &v);
      }
      tmp[j] = (uint32_t)v;
    }
    rc = bp_pack(s, tmp, m);
    i += m;
  }
  pq_buf_free(&old);
  if (rc) s->out.oom = 1;
  return rc;
}

/* The index of the first of n values over w bits. */
static size_t bp_first_over(const uint32_t *u, size_t n, int w) {
  size_t i = 0;
  while (i < n && (u[i] >> w) == 0) i++;
  return i;
}

static int bp_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  bp_enc *s = (bp_enc *)e;
  const uint32_t *u = v;
  /* The width first, over the whole batch (the bit width of the values'
  ** OR is that of their largest): a value that does not fit a given width
  ** refuses the batch before any of it is written. */
  uint32_t any = pq_or32(u, n);
  int need = pq_bit_width64(any);
  if (need > s->w) {
    if (s->fixed) {
      size_t i = bp_first_over(u, n, s->w);
      return pq_fail(err, PQ_RANGE, "BIT_PACKED",
                     "value %llu is %u, which does not fit in bit width %d",
                     (unsigned long long)(e->count + i), u[i], s->w);
    }
    if (bp_widen(s, need)) return pq_nomem(err, "BIT_PACKED");
  }
  if (bp_pack(s, u, n)) return pq_nomem(err, "BIT_PACKED");
  return PQ_OK;
}

static int bp_finish(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err) {
  (void)dict;
  (void)err;
  bp_enc *s = (bp_enc *)e;
  bp_pad(s);
  pq_buf_move(out, &s->out);
  return PQ_OK;
}

static size_t bp_size(const pq_encoder *e) {
  const bp_enc *s = (const bp_enc *)e;
  return s->out.len + (size_t)(s->nacc + 7) / 8;
}

static void bp_destroy(pq_encoder *e) {
  pq_buf_free(&((bp_enc *)e)->out);
}

int pq_bit_packed_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  bp_enc *s = (bp_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, "BIT_PACKED");
  s->fixed = p->bit_width >= 0;
  s->w = s->fixed ? p->bit_width : 0;
  unsigned cpu = pq_cpu();
  int lsb = s->base.p.lsb_first;
  s->pack32 = lsb ? pq_pack32_table(cpu) : pq_pack32_msb_table(cpu);
  s->unpack32 = lsb ? pq_unpack32_table(cpu) : pq_unpack32_msb_table(cpu);
  s->base.put = bp_put;
  s->base.finish = bp_finish;
  s->base.destroy = bp_destroy;
  s->base.size = bp_size;
  *out = &s->base;
  return PQ_OK;
}
