/*
** explain_delta.c -- explaining DELTA_BINARY_PACKED, and the
** DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY streams built on it.
**
**   header.block_size, header.miniblocks, header.value_count,
**   header.first_value
**   block[0].min_delta
**   block[0].miniblock[2].bit_width       (one per miniblock)
**   block[0].miniblock[0]                 its bytes, in bits
**   block[0].miniblock[0].value[3]        a relative delta and the value
**
** Values are numbered from 0 in the stream, in paths and notes alike: the
** header's first value is value 0, so a miniblock's slots hold value[1]
** on, and a length stream's value[i] is the length of the bytes' value[i].
**   block[0].miniblock[0].padding         slots after the last value
**
** The byte array encodings prefix these paths ("lengths.",
** "prefix_lengths.", "suffix_lengths.") and add value[i] rows for the bytes.
*/
#include "explain.h"

#include <stdio.h>

enum { DW_HDR, DW_NEXT, DW_MIN, DW_WIDTH, DW_MB, DW_VAL, DW_PAD, DW_END };

static const char *const hdr_names[4] = {"block_size", "miniblocks",
                                         "value_count", "first_value"};

void ex_delta_init(pq_explainer *x, ex_delta *d, size_t at, int is32,
                   int strict, const char *prefix, const char *label) {
  memset(d, 0, sizeof *d);
  d->prefix = prefix;
  /* Which header fields can be read at all, and where they are. */
  size_t pos = at;
  d->at[0] = at;
  for (d->fields = 0; d->fields < 4; d->fields++) {
    if (pq_uleb_read(x->buf, x->len, &pos, &d->val[d->fields])) break;
    d->at[d->fields + 1] = pos;
  }
  d->init_rc = pq_delta_reader_init(&d->r, x->buf + at, x->len - at, at, is32,
                                    label, &d->init_err);
  d->r.strict = strict;
}

/* The value of the stream whose unsigned bits are v. */
static void delta_value(pq_field *f, const ex_delta *d, uint64_t v) {
  f->kind = PQ_FV_INT;
  f->i = d->r.is32 ? (int64_t)(int32_t)(uint32_t)v : (int64_t)v;
}

/* The reader's offsets are relative to its buffer; rows are absolute. */
static size_t abs_at(const ex_delta *d, const uint8_t *p) {
  return d->r.base + (size_t)(p - d->r.buf);
}

int ex_delta_step(pq_explainer *x, ex_delta *d, pq_field *f) {
  pq_delta_reader *r = &d->r;
  const char *pre = d->prefix;
/* The current block and miniblock, for paths. */
#define B ((unsigned long long)r->block)
#define M ((unsigned long long)r->mb)
  for (;;) {
    switch (d->phase) {
      case DW_HDR: {
        int k = (int)d->wi;
        if (k < d->fields) {
          d->wi++;
          size_t at = d->at[k], n = d->at[k + 1] - at;
          ex_row(f, at, n, "%sheader.%s", pre, hdr_names[k]);
          ex_bits_bytes(f, x->buf + at, n);
          ex_uleb_note(f, x->buf + at, n, d->val[k]);
          f->kind = PQ_FV_UINT;
          f->u = d->val[k];
          if (k == 0) ex_note_add(f, " values per block");
          if (k == 1 && d->val[1] && d->val[0] % d->val[1] == 0) {
            ex_note_add(f, " miniblock%s per block, of %llu values each",
                        d->val[1] == 1 ? "" : "s",
                        (unsigned long long)(d->val[0] / d->val[1]));
          }
          if (k == 2) ex_note_add(f, " values in all");
          if (k == 3) {
            int64_t v = pq_zigzag_dec(d->val[3]);
            f->kind = PQ_FV_INT;
            f->i = v;
            ex_note_add(f, ", zigzag: %lld, the first value, value 0",
                        (long long)v);
            if (r->is32 && (v < INT32_MIN || v > INT32_MAX)) {
              f->i = (int32_t)(uint32_t)(uint64_t)v;
              ex_note_add(f, "; outside INT32, as DuckDB may write it: read "
                          "modulo 2^32 as %lld", (long long)f->i);
            }
          }
          return 1;
        }
        if (d->init_rc) {
          return ex_fault(x, f, d->at[d->fields], &d->init_err);
        }
        /* The first value came with the header. */
        if (r->total > 0) r->yielded = 1;
        d->last = r->last;
        d->phase = DW_NEXT;
        break;
      }
      case DW_NEXT: {
        if (r->yielded >= r->total || r->yielded >= d->limit) {
          d->phase = DW_END;
          break;
        }
        const uint8_t *widths = r->widths;
        size_t at = r->base + r->pos;
        uint64_t left = r->total - r->yielded;
        d->pending_rc = pq_delta_next_miniblock(r, &d->pending_err);
        if (r->widths != widths) { /* a block began: its rows first */
          d->block_at = at;
          d->block_values = left;
          d->wi = 0;
          d->phase = DW_MIN;
          break;
        }
        if (d->pending_rc) return ex_fault(x, f, at, &d->pending_err);
        d->phase = DW_MB;
        break;
      }
      case DW_MIN: {
        size_t n = abs_at(d, r->widths) - d->block_at;
        ex_row(f, d->block_at, n, "%sblock[%llu].min_delta", pre, B);
        ex_bits_bytes(f, x->buf + d->block_at, n);
        uint64_t zz = 0;
        size_t p = d->block_at;
        pq_uleb_read(x->buf, x->len, &p, &zz);
        ex_uleb_note(f, x->buf + d->block_at, n, zz);
        f->kind = PQ_FV_INT;
        f->i = (int64_t)r->min_delta;
        ex_note_add(f, ", zigzag: %lld, the least delta of the block",
                    (long long)f->i);
        d->phase = DW_WIDTH;
        return 1;
      }
      case DW_WIDTH: {
        if (d->wi == r->mb_count) {
          if (d->pending_rc) {
            return ex_fault(x, f, r->base + r->pos, &d->pending_err);
          }
          d->phase = DW_MB;
          break;
        }
        uint64_t i = d->wi++;
        int w = r->widths[i];
        uint64_t used = (d->block_values + r->mb_values - 1) / r->mb_values;
        ex_row(f, abs_at(d, r->widths) + i, 1,
               "%sblock[%llu].miniblock[%llu].bit_width", pre, B,
               (unsigned long long)i);
        f->kind = PQ_FV_INT;
        f->i = w;
        if (i < used) {
          uint64_t nb = r->mb_values * (uint64_t)w / 8;
          ex_note(f, "%llu values x %d bit%s = %llu byte%s",
                  (unsigned long long)r->mb_values, w, ex_s((uint64_t)w),
                  (unsigned long long)nb, ex_s(nb));
          if (r->is32 && w > 32) {
            ex_note_add(f, "; above the 32 the spec allows INT32 (DuckDB "
                        "takes INT32 deltas in 64 bits): read modulo 2^32");
          }
        } else {
          ex_note(f, "unused: the values end before this miniblock, so the "
                  "byte means nothing and no bytes follow for it");
        }
        return 1;
      }
      case DW_MB: {
        int w = r->mb_w;
        d->mb_at = abs_at(d, r->mb_data);
        d->mb_len = r->base + r->pos - d->mb_at;
        uint64_t want = d->limit - r->yielded;
        d->vn = r->mb_left < want ? r->mb_left : want;
        d->vj = 0;
        ex_row(f, d->mb_at, d->mb_len, "%sblock[%llu].miniblock[%llu]", pre, B,
               M);
        ex_bits_bytes(f, r->mb_data, d->mb_len);
        ex_labels(f, d->mb_len, r->mb_values, w, 0);
        if (w) {
          uint64_t nb = r->mb_values * (uint64_t)w / 8;
          ex_note(f, "%llu relative deltas x %d bit%s = %llu byte%s, packed "
                  "from the least significant bit; values %llu to %llu",
                  (unsigned long long)r->mb_values, w, ex_s((uint64_t)w),
                  (unsigned long long)nb, ex_s(nb),
                  (unsigned long long)r->yielded,
                  (unsigned long long)(r->yielded + d->vn - 1));
        } else {
          ex_note(f, "bit width 0: every delta is the min delta and takes no "
                  "bits; values %llu to %llu",
                  (unsigned long long)r->yielded,
                  (unsigned long long)(r->yielded + d->vn - 1));
        }
        d->phase = DW_VAL;
        return 1;
      }
      case DW_VAL: {
        int w = r->mb_w;
        if (d->vj < d->vn) {
          uint64_t j = d->vj++, bit = j * (uint64_t)w, rel;
          pq_unpack_lsb(r->mb_data, bit, w, 1, &rel);
          uint64_t prev = d->last, v = prev + rel + r->min_delta;
          if (r->is32) v = (uint32_t)v;
          d->last = v;
          ex_row(f, d->mb_at + bit / 8,
                 w ? ((bit % 8) + (uint64_t)w + 7) / 8 : 0,
                 "%sblock[%llu].miniblock[%llu].value[%llu]", pre, B, M,
                 (unsigned long long)(r->yielded + j));
          ex_bits_value(f, rel, w);
          delta_value(f, d, v);
          int64_t md = (int64_t)r->min_delta;
          int64_t pv = r->is32 ? (int64_t)(int32_t)(uint32_t)prev
                               : (int64_t)prev;
          long long delta = (long long)(rel + (uint64_t)md);
          if (r->is32) delta = (int32_t)(uint32_t)delta;
          unsigned long long mag = delta < 0
                                       ? (unsigned long long)-(delta + 1) + 1
                                       : (unsigned long long)delta;
          ex_note(f, "relative delta %llu + min delta %lld = delta %lld; "
                  "value %llu = %lld %s %llu = %lld",
                  (unsigned long long)rel, (long long)md, delta,
                  (unsigned long long)(r->yielded + j), (long long)pv,
                  delta < 0 ? "-" : "+", mag, (long long)f->i);
          long long sum;
          if (__builtin_add_overflow((long long)pv, delta, &sum) ||
              sum != f->i)
            ex_note_add(f, " (wrapping around)");
          return 1;
        }
        r->yielded += d->vn;
        r->last = d->last;
        uint64_t slots = r->mb_left;
        r->mb_left = 0;
        d->phase = d->vn < slots || d->vn < r->mb_values ? DW_PAD : DW_NEXT;
        if (d->vn < slots) d->phase = DW_END; /* stopped by the count */
        break;
      }
      case DW_PAD: {
        d->phase = DW_NEXT;
        int w = r->mb_w;
        size_t from = (size_t)(d->vn * (uint64_t)w / 8);
        if (w == 0 || from >= d->mb_len) break;
        ex_row(f, d->mb_at + from, d->mb_len - from,
               "%sblock[%llu].miniblock[%llu].padding", pre, B, M);
        ex_note(f, "%llu slot%s after the last value: padding, whatever its "
                "bits",
                (unsigned long long)(r->mb_values - d->vn),
                r->mb_values - d->vn == 1 ? "" : "s");
        return 1;
      }
      default: /* DW_END */
        return 0;
    }
  }
#undef B
#undef M
}

/* The offset just past a walked stream. */
static size_t delta_end(const ex_delta *d) { return d->r.base + d->r.pos; }

/* ---- DELTA_BINARY_PACKED ----------------------------------------------------- */

static int dbp_step(pq_explainer *x, pq_field *f) {
  if (x->phase == 0) {
    if (ex_delta_step(x, &x->d1, f)) return 1;
    x->phase = 1;
    if (x->limit != UINT64_MAX && x->d1.r.total < x->limit) {
      pq_error err;
      pq_fail_count(&err, x->enc, x->d1.r.total, x->limit);
      return ex_fault(x, f, delta_end(&x->d1), &err);
    }
    size_t end = delta_end(&x->d1);
    if (end < x->len) {
      ex_rest(x, f, end,
              x->d1.r.yielded < x->d1.r.total
                  ? "after the last value the count asks for: not read"
                  : "after the stream: not part of it");
      return 1;
    }
  }
  return 0;
}

int ex_dbp_open(pq_explainer *x, pq_error *err) {
  (void)err;
  int kind = x->p.type != PQ_INT32 ? PQ_DELTA_64
             : x->p.lenient        ? PQ_DELTA_32_LENIENT
                                   : PQ_DELTA_32;
  ex_delta_init(x, &x->d1, 0, kind, 0, "", x->enc);
  x->d1.limit = x->limit;
  x->step = dbp_step;
  return PQ_OK;
}

/* ---- DELTA_LENGTH_BYTE_ARRAY: <lengths> <bytes> ---------------------------- */

/* After the last value: a stream short of the count, or bytes left. */
static int values_end(pq_explainer *x, pq_field *f, uint64_t total) {
  if (x->limit != UINT64_MAX && total < x->limit && x->phase != 9) {
    pq_error err;
    pq_fail_count(&err, x->enc, total, x->limit);
    return ex_fault(x, f, x->pos, &err);
  }
  if (x->phase != 9 && x->pos < x->len) {
    x->phase = 9;
    ex_rest(x, f, x->pos, "after the last value: not read");
    return 1;
  }
  return 0;
}

static int dlba_step(pq_explainer *x, pq_field *f) {
  if (x->phase == 3) { /* a variant column's value, walked as such */
    if (ex_variant_value_row(x, f)) return 1;
    x->phase = 1;
  }
  if (x->phase == 0) {
    if (ex_delta_step(x, &x->d1, f)) return 1;
    x->phase = 1;
    x->pos = delta_end(&x->d1);
    pq_error e;
    pq_delta_reader_init(&x->lens1, x->buf, x->len, 0, 1, x->enc, &e);
  }
  uint64_t total = x->d1.r.total;
  if (x->phase != 1 || x->i >= total || x->i >= x->limit) {
    return values_end(x, f, total);
  }
  int32_t l;
  size_t got, at = x->pos;
  pq_error err;
  pq_bytes v;
  if (pq_delta_reader_read(&x->lens1, &l, 1, &got, &err) ||
      pq_slice_lengths(x->buf, x->len, &x->pos, &l, 1, &v, x->i, x->enc,
                       &err)) {
    return ex_fault(x, f, at, &err);
  }
  char d[128];
  ex_row(f, at, v.len, "value[%llu]", (unsigned long long)x->i);
  ex_value(f, PQ_BYTE_ARRAY, 0, &v);
  ex_describe(d, sizeof d, PQ_BYTE_ARRAY, 0, &v);
  ex_note(f, "%d byte%s, as length %llu says: %s", l, ex_s((uint64_t)l),
          (unsigned long long)x->i, d);
  if (x->variant_part) {
    char prefix[40];
    snprintf(prefix, sizeof prefix, "value[%llu].", (unsigned long long)x->i);
    ex_variant_start(x->variant, x->buf, at, x->pos, x->variant_part, NULL, 0,
                     prefix, &err);
    x->phase = 3;
  }
  x->i++;
  return 1;
}

int ex_dlba_open(pq_explainer *x, pq_error *err) {
  (void)err;
  ex_delta_init(x, &x->d1, 0, 1, 1, "lengths.",
                "DELTA_LENGTH_BYTE_ARRAY: lengths");
  x->d1.limit = UINT64_MAX;
  x->step = dlba_step;
  return PQ_OK;
}

/* ---- DELTA_BYTE_ARRAY: <prefix lengths> <suffix lengths> <suffixes> ------- */

static int dba_step(pq_explainer *x, pq_field *f) {
  if (x->phase == 0) {
    if (ex_delta_step(x, &x->d1, f)) return 1;
    x->phase = 1;
    ex_delta_init(x, &x->d2, delta_end(&x->d1), 1, 1, "suffix_lengths.",
                  "DELTA_BYTE_ARRAY: suffix lengths");
    x->d2.limit = UINT64_MAX;
  }
  if (x->phase == 1) {
    if (ex_delta_step(x, &x->d2, f)) return 1;
    x->phase = 2;
    size_t a = delta_end(&x->d1);
    x->pos = delta_end(&x->d2);
    pq_error e;
    if (x->d1.r.total != x->d2.r.total) {
      pq_fail(&e, PQ_CORRUPT, x->enc,
              "%llu prefix lengths but %llu suffix lengths (at offset %zu)",
              (unsigned long long)x->d1.r.total,
              (unsigned long long)x->d2.r.total, a);
      return ex_fault(x, f, x->pos, &e);
    }
    pq_delta_reader_init(&x->lens1, x->buf, x->len, 0, 1, x->enc, &e);
    pq_delta_reader_init(&x->lens2, x->buf + a, x->len - a, a, 1, x->enc, &e);
  }
  uint64_t total = x->d1.r.total;
  if (x->phase != 2 || x->i >= total || x->i >= x->limit) {
    return values_end(x, f, total);
  }
  int32_t pfx, sl;
  size_t got, at = x->pos;
  pq_error err;
  pq_bytes sfx;
  char was[128], suf[128], now[128];
  pq_bytes old = {x->prev.data, x->prev.len};
  ex_describe(was, sizeof was, PQ_BYTE_ARRAY, 0, &old);
  if (pq_delta_reader_read(&x->lens1, &pfx, 1, &got, &err) ||
      pq_delta_reader_read(&x->lens2, &sl, 1, &got, &err) ||
      pq_slice_lengths(x->buf, x->len, &x->pos, &sl, 1, &sfx, x->i, x->enc,
                       &err) ||
      pq_dba_rebuild(&x->prev, pfx, sfx, x->i,
                     x->p.type == PQ_FIXED_LEN_BYTE_ARRAY ? x->p.type_length
                                                          : -1,
                     &err)) {
    return ex_fault(x, f, at, &err);
  }
  x->bytes.ptr = x->prev.data;
  x->bytes.len = x->prev.len;
  ex_describe(suf, sizeof suf, PQ_BYTE_ARRAY, 0, &sfx);
  ex_describe(now, sizeof now, PQ_BYTE_ARRAY, 0, &x->bytes);
  ex_row(f, at, sfx.len, "value[%llu]", (unsigned long long)x->i);
  if (x->p.type == PQ_FIXED_LEN_BYTE_ARRAY) {
    ex_value(f, PQ_FIXED_LEN_BYTE_ARRAY, x->p.type_length, x->prev.data);
  } else {
    ex_value(f, PQ_BYTE_ARRAY, 0, &x->bytes);
  }
  if (pfx) {
    ex_note(f, "the first %d byte%s of %s, then the suffix %s: %s", pfx,
            pfx == 1 ? "" : "s", was, suf, now);
  } else {
    ex_note(f, "no prefix; the suffix %s: %s", suf, now);
  }
  x->i++;
  return 1;
}

int ex_dba_open(pq_explainer *x, pq_error *err) {
  (void)err;
  ex_delta_init(x, &x->d1, 0, 1, 1, "prefix_lengths.",
                "DELTA_BYTE_ARRAY: prefix lengths");
  x->d1.limit = UINT64_MAX;
  x->step = dba_step;
  return PQ_OK;
}
