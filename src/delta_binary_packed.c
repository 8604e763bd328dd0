/*
** delta_binary_packed.c -- DELTA_BINARY_PACKED (spec/Encodings.md, "Delta
** Encoding").
**
**   header: <block size> <miniblocks per block> <value count> <first value>
**   block:  <min delta> <one bit-width byte per miniblock> <miniblocks>
**
** Sizes are ULEB128, the first value and min delta zigzag ULEB128.  All
** arithmetic is unsigned so that wraparound is defined: INT32 streams wrap
** modulo 2^32, INT64 modulo 2^64, as the spec requires.  The spec asks for
** blocks of a multiple of 128 values and miniblocks of a multiple of 32;
** multiples of 8 are accepted too, so that the spec's own examples (block
** size 8) can be decoded and reproduced.
*/
#include "internal.h"

#define BLOCK_MAX ((uint64_t)1 << 31)

/* ---- Reader ------------------------------------------------------------- */

static const char *const header_fields[4] = {"block size", "miniblock count",
                                             "value count", "first value"};

int pq_delta_reader_init(pq_delta_reader *r, const uint8_t *buf, size_t len,
                         size_t base, int is32, const char *label,
                         pq_error *err) {
  memset(r, 0, sizeof *r);
  r->buf = buf;
  r->len = len;
  r->base = base;
  r->is32 = is32;
  r->label = label;
  uint64_t h[4];
  for (int i = 0; i < 4; i++) {
    size_t at = r->pos;
    int bad = pq_uleb_read(buf, len, &r->pos, &h[i]);
    if (bad) {
      return pq_fail(err, PQ_CORRUPT, label,
                     bad == 1 ? "header: the %s at offset %zu is cut short"
                              : "header: the %s at offset %zu is over 64 bits",
                     header_fields[i], base + at);
    }
  }
  r->block_size = h[0];
  r->mb_count = h[1];
  r->total = h[2];
  if (h[0] == 0 || h[0] % 8 != 0 || h[0] > BLOCK_MAX) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "header: block size %llu is not a multiple of 128 (nor of "
                   "8, as in the spec's examples)",
                   (unsigned long long)h[0]);
  }
  if (h[1] == 0 || h[0] % h[1] != 0 || (h[0] / h[1]) % 8 != 0) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "header: %llu miniblocks do not divide a block of %llu "
                   "values into miniblocks of a multiple of 32 (or 8) values",
                   (unsigned long long)h[1], (unsigned long long)h[0]);
  }
  r->mb_values = h[0] / h[1];
  int64_t first = pq_zigzag_dec(h[3]);
  if (is32 && (first < INT32_MIN || first > INT32_MAX)) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "header: first value %lld does not fit in INT32",
                   (long long)first);
  }
  r->last = (uint64_t)first;
  /* Every block, even one of zero-width miniblocks, takes at least its min
  ** delta byte and its bit-width bytes: check the count against that. */
  if (r->total > 1) {
    uint64_t blocks = (r->total - 1 - 1) / r->block_size + 1;
    uint64_t per = 1 + r->mb_count;
    size_t left = len - r->pos;
    if (r->mb_count > left || blocks > left / per) {
      return pq_fail(err, PQ_CORRUPT, label,
                     "header: %llu values need %llu blocks of at least %llu "
                     "bytes after offset %zu, %zu bytes remain",
                     (unsigned long long)r->total, (unsigned long long)blocks,
                     (unsigned long long)per, base + r->pos, left);
    }
  }
  r->mb = r->mb_count; /* so the first miniblock starts a block */
  return PQ_OK;
}

int pq_delta_next_miniblock(pq_delta_reader *r, pq_error *err) {
  if (r->mb + 1 >= r->mb_count || r->widths == NULL) {
    size_t at = r->pos;
    uint64_t zz;
    int bad = pq_uleb_read(r->buf, r->len, &r->pos, &zz);
    if (bad) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     bad == 1 ? "block %llu: min delta at offset %zu is cut "
                                "short"
                              : "block %llu: min delta at offset %zu is over "
                                "64 bits",
                     (unsigned long long)r->block, r->base + at);
    }
    if (r->mb_count > r->len - r->pos) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "block %llu: %llu bit widths at offset %zu, %zu bytes "
                     "remain",
                     (unsigned long long)r->block,
                     (unsigned long long)r->mb_count, r->base + r->pos,
                     r->len - r->pos);
    }
    if (r->widths) r->block++;
    r->min_delta = (uint64_t)pq_zigzag_dec(zz);
    r->widths = r->buf + r->pos;
    r->pos += (size_t)r->mb_count;
    r->mb = 0;
  } else {
    r->mb++;
  }
  int w = r->widths[r->mb];
  int maxw = r->is32 ? 32 : 64;
  if (w > maxw) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   "miniblock %llu of block %llu: bit width %d at offset %zu "
                   "is above %d",
                   (unsigned long long)r->mb, (unsigned long long)r->block, w,
                   r->base + (size_t)(r->widths + r->mb - r->buf), maxw);
  }
  /* Values still owed after the chunk in hand. */
  uint64_t owed =
      r->total - r->yielded - (uint64_t)(r->chunk_len - r->chunk_pos);
  uint64_t values = r->mb_values < owed ? r->mb_values : owed;
  uint64_t bytes = r->mb_values * (uint64_t)w / 8;
  size_t avail = r->len - r->pos;
  if (bytes > avail) {
    /* The padding of the last miniblock may be missing; the values are
    ** enough. */
    if (!r->strict && values < r->mb_values &&
        (values * (uint64_t)w + 7) / 8 <= avail) {
      bytes = avail;
    } else {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "miniblock %llu of block %llu needs %llu bytes at "
                     "offset %zu, %zu remain",
                     (unsigned long long)r->mb, (unsigned long long)r->block,
                     (unsigned long long)bytes, r->base + r->pos, avail);
    }
  }
  r->mb_w = w;
  r->mb_data = r->buf + r->pos;
  r->pos += (size_t)bytes;
  r->mb_left = values;
  return PQ_OK;
}

/* Unpacks the next deltas (at most 32) of the current miniblock. */
static void delta_fill_chunk(pq_delta_reader *r) {
  int w = r->mb_w;
  const uint8_t *end = r->buf + r->pos;
  size_t have = (size_t)(end - r->mb_data);
  int m = r->mb_left < 32 ? (int)r->mb_left : 32;
  if (m == 32 && have >= (size_t)4 * w) {
    if (w <= 32) {
      uint32_t t[32];
      pq_unpack32(w, r->mb_data, t);
      for (int i = 0; i < 32; i++) r->chunk[i] = t[i];
    } else {
      pq_unpack64(w, r->mb_data, r->chunk);
    }
  } else {
    uint8_t room[8 * 32] = {0};
    size_t need = ((size_t)m * (size_t)w + 7) / 8;
    memcpy(room, r->mb_data, need < have ? need : have);
    pq_unpack_lsb(room, 0, w, (size_t)m, r->chunk);
  }
  size_t used = (size_t)m * (size_t)w / 8;
  r->mb_data += used < have ? used : have;
  r->mb_left -= (uint64_t)m;
  r->chunk_len = m;
  r->chunk_pos = 0;
}

int pq_delta_reader_read(pq_delta_reader *r, void *out, size_t max, size_t *n,
                         pq_error *err) {
  int32_t *o32 = out;
  int64_t *o64 = out;
  size_t k = 0;
  if (r->yielded == 0 && r->total > 0 && max > 0) {
    if (r->is32) {
      o32[k++] = (int32_t)(uint32_t)r->last;
    } else {
      o64[k++] = (int64_t)r->last;
    }
    r->yielded = 1;
  }
  while (k < max && r->yielded < r->total) {
    if (r->chunk_pos == r->chunk_len) {
      if (r->mb_left == 0) {
        int rc = pq_delta_next_miniblock(r, err);
        if (rc) {
          *n = k;
          return rc;
        }
      }
      delta_fill_chunk(r);
    }
    uint64_t m = (uint64_t)(r->chunk_len - r->chunk_pos);
    if (m > max - k) m = max - k;
    if (m > r->total - r->yielded) m = r->total - r->yielded;
    const uint64_t *c = r->chunk + r->chunk_pos;
    uint64_t v = r->last, md = r->min_delta;
    if (r->is32) {
      uint32_t v32 = (uint32_t)v, md32 = (uint32_t)md;
      for (uint64_t i = 0; i < m; i++) {
        v32 += (uint32_t)c[i] + md32;
        o32[k + i] = (int32_t)v32;
      }
      v = v32;
    } else {
      for (uint64_t i = 0; i < m; i++) {
        v += c[i] + md;
        o64[k + i] = (int64_t)v;
      }
    }
    r->last = v;
    r->chunk_pos += (int)m;
    r->yielded += m;
    k += (size_t)m;
  }
  *n = k;
  return PQ_OK;
}

int pq_delta_reader_size(const pq_delta_reader *r0, size_t *size,
                         pq_error *err) {
  pq_delta_reader r = *r0;
  r.strict = 1; /* what follows the stream starts after its padding */
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

/* ---- Writer ------------------------------------------------------------- */

int pq_delta_writer_init(pq_delta_writer *w, const pq_params *p, int is32,
                         const char *label, pq_error *err) {
  memset(w, 0, sizeof *w);
  uint64_t bs = p->block_size < 0 ? 128 : (uint64_t)p->block_size;
  uint64_t mb = p->miniblocks < 0 ? 4 : (uint64_t)p->miniblocks;
  if (bs % 8 != 0 || bs > (1u << 20)) {
    return pq_fail(err, PQ_MISUSE, label,
                   "block_size %llu is not a multiple of 128 (or of 8, to "
                   "reproduce the spec's examples) up to 1048576",
                   (unsigned long long)bs);
  }
  if (mb == 0 || bs % mb != 0 || (bs / mb) % 8 != 0) {
    return pq_fail(err, PQ_MISUSE, label,
                   "%llu miniblocks do not divide a block of %llu values "
                   "into miniblocks of a multiple of 32 (or 8) values",
                   (unsigned long long)mb, (unsigned long long)bs);
  }
  w->is32 = is32;
  w->block_size = bs;
  w->mb_count = mb;
  w->mb_values = bs / mb;
  w->block = malloc((size_t)bs * sizeof *w->block);
  if (!w->block) return pq_nomem(err, label);
  return PQ_OK;
}

/* Packs n (a multiple of 8) values of width bw LSB first. */
static void pack_values(pq_buf *b, const uint64_t *v, uint64_t n, int bw) {
  if (bw == 0 || pq_buf_reserve(b, (size_t)(n * (uint64_t)bw / 8))) return;
  uint8_t *o = b->data + b->len;
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32, o += 4 * bw) {
    if (bw <= 32) {
      uint32_t t[32];
      for (int j = 0; j < 32; j++) t[j] = (uint32_t)v[i + j];
      pq_pack32(bw, t, o);
    } else {
      pq_pack64(bw, v + i, o);
    }
  }
  /* A tail of 8, 16 or 24 values: bit by bit into whole bytes. */
  uint64_t acc = 0;
  int bits = 0;
  for (; i < n; i++) {
    uint64_t x = v[i];
    int left = bw;
    while (left > 0) {
      int take = 64 - bits < left ? 64 - bits : left;
      acc |= (take == 64 ? x : (x & ((1ull << take) - 1))) << bits;
      bits += take;
      x = take == 64 ? 0 : x >> take;
      left -= take;
      while (bits >= 8) {
        *o++ = (uint8_t)acc;
        acc >>= 8;
        bits -= 8;
      }
    }
  }
  b->len += (size_t)(n * (uint64_t)bw / 8);
}

static void delta_flush_block(pq_delta_writer *w) {
  uint64_t n = w->nblock;
  if (n == 0) return;
  uint64_t *d = w->block;
  int64_t min = (int64_t)d[0];
  for (uint64_t i = 1; i < n; i++) {
    if ((int64_t)d[i] < min) min = (int64_t)d[i];
  }
  uint64_t mask = w->is32 ? 0xffffffffull : ~0ull;
  /* Relative deltas in place; the padding of the last miniblock is 0. */
  uint64_t padded = (n + w->mb_values - 1) / w->mb_values * w->mb_values;
  for (uint64_t i = 0; i < n; i++) d[i] = (d[i] - (uint64_t)min) & mask;
  for (uint64_t i = n; i < padded; i++) d[i] = 0;
  pq_buf_uleb(&w->body, pq_zigzag_enc(min));
  size_t wpos = w->body.len;
  for (uint64_t m = 0; m < w->mb_count; m++) pq_buf_byte(&w->body, 0);
  for (uint64_t m = 0; m * w->mb_values < n; m++) {
    uint64_t or = 0;
    const uint64_t *v = d + m * w->mb_values;
    for (uint64_t i = 0; i < w->mb_values; i++) or |= v[i];
    int bw = pq_bit_width64(or);
    if (!w->body.oom) w->body.data[wpos + m] = (uint8_t)bw;
    pack_values(&w->body, v, w->mb_values, bw);
  }
  w->nblock = 0;
}

void pq_delta_writer_put(pq_delta_writer *w, uint64_t v) {
  if (w->total++ == 0) {
    w->first = w->last = v;
    return;
  }
  uint64_t delta = v - w->last;
  if (w->is32) delta = (uint64_t)(int64_t)(int32_t)(uint32_t)delta;
  w->last = v;
  w->block[w->nblock++] = delta;
  if (w->nblock == w->block_size) delta_flush_block(w);
}

void pq_delta_writer_finish(pq_delta_writer *w, pq_buf *out) {
  delta_flush_block(w);
  int64_t first =
      w->is32 ? (int64_t)(int32_t)(uint32_t)w->first : (int64_t)w->first;
  pq_buf_uleb(out, w->block_size);
  pq_buf_uleb(out, w->mb_count);
  pq_buf_uleb(out, w->total);
  pq_buf_uleb(out, pq_zigzag_enc(first));
  if (w->body.oom) out->oom = 1;
  pq_buf_append(out, w->body.data, w->body.len);
}

size_t pq_delta_writer_size(const pq_delta_writer *w) {
  return w->body.len + (size_t)w->nblock;
}

void pq_delta_writer_free(pq_delta_writer *w) {
  free(w->block);
  w->block = NULL;
  pq_buf_free(&w->body);
}

/* ---- The DELTA_BINARY_PACKED encoding ------------------------------------ */

typedef struct delta_dec {
  pq_decoder base;
  pq_delta_reader r;
} delta_dec;

static int delta_read(pq_decoder *d, void *out, size_t max, size_t *n,
                      pq_error *err) {
  return pq_delta_reader_read(&((delta_dec *)d)->r, out, max, n, err);
}

int pq_delta_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                     size_t len, pq_error *err) {
  delta_dec *s = (delta_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, "DELTA_BINARY_PACKED");
  *out = &s->base;
  s->base.read = delta_read;
  return pq_delta_reader_init(&s->r, buf, len, 0, p->type == PQ_INT32,
                              "DELTA_BINARY_PACKED", err);
}

typedef struct delta_enc {
  pq_encoder base;
  pq_delta_writer w;
} delta_enc;

static int delta_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  (void)err;
  delta_enc *s = (delta_enc *)e;
  if (e->p.type == PQ_INT32) {
    const int32_t *x = v;
    for (size_t i = 0; i < n; i++)
      pq_delta_writer_put(&s->w, (uint64_t)(int64_t)x[i]);
  } else {
    const int64_t *x = v;
    for (size_t i = 0; i < n; i++) pq_delta_writer_put(&s->w, (uint64_t)x[i]);
  }
  return PQ_OK;
}

static int delta_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                        pq_error *err) {
  (void)dict;
  (void)err;
  pq_delta_writer_finish(&((delta_enc *)e)->w, out);
  return PQ_OK;
}

static size_t delta_size(const pq_encoder *e) {
  return pq_delta_writer_size(&((const delta_enc *)e)->w);
}

static void delta_destroy(pq_encoder *e) {
  pq_delta_writer_free(&((delta_enc *)e)->w);
}

int pq_delta_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  delta_enc *s = (delta_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, "DELTA_BINARY_PACKED");
  s->base.put = delta_put;
  s->base.finish = delta_finish;
  s->base.destroy = delta_destroy;
  s->base.size = delta_size;
  *out = &s->base;
  return pq_delta_writer_init(&s->w, p, p->type == PQ_INT32,
                              "DELTA_BINARY_PACKED", err);
}
