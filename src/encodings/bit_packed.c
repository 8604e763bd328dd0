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
  pq_buf out;
  int w;        /* current bit width */
  int fixed;    /* the width was given */
  uint64_t acc; /* bits not yet written */
  int nacc;
} bp_enc;

static void bp_emit(bp_enc *s, uint32_t v) {
  int w = s->w;
  if (s->base.p.lsb_first) {
    s->acc |= (uint64_t)v << s->nacc;
    s->nacc += w;
    while (s->nacc >= 8) {
      pq_buf_byte(&s->out, (uint8_t)s->acc);
      s->acc >>= 8;
      s->nacc -= 8;
    }
  } else {
    s->acc = s->acc << w | v;
    s->nacc += w;
    while (s->nacc >= 8) {
      pq_buf_byte(&s->out, (uint8_t)(s->acc >> (s->nacc - 8)));
      s->nacc -= 8;
    }
  }
}

static void bp_pad(bp_enc *s) {
  if (s->nacc == 0) return;
  uint8_t last = s->base.p.lsb_first ? (uint8_t)s->acc
                                     : (uint8_t)(s->acc << (8 - s->nacc));
  pq_buf_byte(&s->out, last);
  s->acc = 0;
  s->nacc = 0;
}

/* Re-packs the values written so far at width nw. */
static int bp_widen(bp_enc *s, int nw) {
  bp_pad(s);
  pq_buf old = s->out;
  pq_buf_init(&s->out);
  int ow = s->w;
  s->w = nw;
  uint64_t n = s->base.count;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t v;
    if (s->base.p.lsb_first) {
      pq_unpack_lsb(old.data, i * (uint64_t)ow, ow, 1, &v);
    } else {
      pq_unpack_msb(old.data, i * (uint64_t)ow, ow, 1, &v);
    }
    bp_emit(s, (uint32_t)v);
  }
  s->out.oom |= old.oom;
  pq_buf_free(&old);
  return s->out.oom ? PQ_NOMEM : PQ_OK;
}

static int bp_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  bp_enc *s = (bp_enc *)e;
  const uint32_t *u = v;
  for (size_t i = 0; i < n; i++) {
    if (s->w < 32 && (u[i] >> s->w) != 0) {
      if (s->fixed) {
        return pq_fail(err, PQ_RANGE, "BIT_PACKED",
                       "value %llu is %u, which does not fit in bit width %d",
                       (unsigned long long)(e->count + i), u[i], s->w);
      }
      e->count += i; /* bp_widen re-packs what is already written */
      int rc = bp_widen(s, pq_bit_width64(u[i]));
      e->count -= i;
      if (rc) return pq_nomem(err, "BIT_PACKED");
    }
    bp_emit(s, u[i]);
  }
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
  s->base.put = bp_put;
  s->base.finish = bp_finish;
  s->base.destroy = bp_destroy;
  s->base.size = bp_size;
  *out = &s->base;
  return PQ_OK;
}
