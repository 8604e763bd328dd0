/*
** explain_runs.c -- explaining the RLE/bit-packing hybrid: the RLE
** encoding (BOOLEAN values, levels) and dictionary index streams.
**
**   run[0].header                 ULEB128: odd = bit-packed, even = RLE
**   run[0].value                  an RLE run's repeated value
**   run[1].bit_packed             a bit-packed run's bytes, in bits
**   run[1].bit_packed.value[5]    one of its values
**   run[1].bit_packed.padding     slots after the last value
*/
#include "explain.h"

enum { RUN_HEAD, RUN_VALUE, RUN_GROUP, RUN_PACKED };

void ex_runs_init(pq_explainer *x, size_t at, size_t end, int w) {
  ex_runs *u = &x->runs;
  memset(u, 0, sizeof *u);
  pq_rle_reader_init(&u->r, x->buf + at, end - at, at, w, x->enc);
  u->r.limit = x->limit;
}

/* Ends the current run: the next row is the next run's header. */
static void next_run(ex_runs *u) {
  u->run++;
  u->phase = RUN_HEAD;
  u->r.run_left = 0;
}

int ex_runs_step(pq_explainer *x, pq_field *f) {
  ex_runs *u = &x->runs;
  pq_rle_reader *r = &u->r;
  int w = r->w;
  unsigned long long run = (unsigned long long)u->run;
  u->value_row = 0;
  switch (u->phase) {
    case RUN_HEAD: {
      if (x->i >= x->limit || r->pos >= r->len) return 0;
      size_t at = r->pos, hp = at;
      pq_error err;
      r->produced = x->i;
      if (pq_rle_next_run(r, &err)) return ex_fault(x, f, r->base + at, &err);
      uint64_t h;
      pq_uleb_read(r->buf, r->len, &hp, &h);
      size_t hl = hp - at;
      ex_row(f, r->base + at, hl, "run[%llu].header", run);
      ex_bits_bytes(f, r->buf + at, hl);
      f->kind = PQ_FV_UINT;
      f->u = h;
      ex_uleb_note(f, r->buf + at, hl, h);
      if (r->run_packed) {
        u->slots = (h >> 1) * 8;
        u->data_at = r->base + (size_t)(r->packed - r->buf);
        u->data_len = r->packed_bytes;
        ex_note_add(f, ", odd: a bit-packed run of %llu >> 1 = %llu group%s "
                    "of 8 values",
                    (unsigned long long)h, (unsigned long long)(h >> 1),
                    h >> 1 == 1 ? "" : "s");
        u->phase = RUN_GROUP;
      } else {
        u->slots = h >> 1;
        ex_note_add(f, ", even: an RLE run of %llu >> 1 = %llu cop%s of one "
                    "value",
                    (unsigned long long)h, (unsigned long long)(h >> 1),
                    h >> 1 == 1 ? "y" : "ies");
        u->phase = RUN_VALUE;
      }
      uint64_t want = x->limit - x->i;
      u->counted = r->run_left < want ? r->run_left : want;
      return 1;
    }
    case RUN_VALUE: {
      size_t vb = (size_t)(w + 7) / 8;
      ex_row(f, r->base + r->pos - vb, vb, "run[%llu].value", run);
      ex_bits_bytes(f, r->buf + r->pos - vb, vb);
      f->kind = PQ_FV_UINT;
      f->u = r->run_value;
      ex_note(f, "%u, %llu time%s, in %zu byte%s (%d bits rounded up to "
              "whole bytes)",
              r->run_value, (unsigned long long)u->slots,
              u->slots == 1 ? "" : "s", vb, vb == 1 ? "" : "s", w);
      if (u->counted < u->slots) {
        ex_note_add(f, "; the count needs %llu of them",
                    (unsigned long long)u->counted);
      }
      u->value_row = 1;
      u->vindex = x->i;
      u->vvalue = r->run_value;
      x->i += u->counted;
      next_run(u);
      return 1;
    }
    case RUN_GROUP: {
      uint64_t full = u->slots * (uint64_t)w / 8;
      ex_row(f, u->data_at, u->data_len, "run[%llu].bit_packed", run);
      ex_bits_bytes(f, x->buf + u->data_at, u->data_len);
      ex_labels(f, u->data_len, u->slots, w, 0);
      ex_note(f, "%llu values x %d bit%s = %llu byte%s, packed from the least "
              "significant bit of each byte",
              (unsigned long long)u->slots, w, ex_s((uint64_t)w),
              (unsigned long long)full, ex_s(full));
      if (u->data_len < full) {
        ex_note_add(f, "; cut short after the values the count needs");
      }
      u->j = 0;
      u->phase = RUN_PACKED;
      return 1;
    }
    default: /* RUN_PACKED */
      if (u->j < u->counted) {
        uint64_t bit = u->j * (uint64_t)w, v;
        pq_unpack_lsb(x->buf + u->data_at, bit, w, 1, &v);
        ex_row(f, u->data_at + bit / 8,
               w ? ((bit % 8) + (uint64_t)w + 7) / 8 : 0,
               "run[%llu].bit_packed.value[%llu]", run,
               (unsigned long long)u->j);
        ex_bits_value(f, v, w);
        f->kind = PQ_FV_UINT;
        f->u = v;
        if (w == 1) {
          ex_note(f, "bit %llu of the run: %llu", (unsigned long long)bit,
                  (unsigned long long)v);
        } else if (w) {
          ex_note(f, "bits %llu to %llu of the run: %llu",
                  (unsigned long long)bit,
                  (unsigned long long)(bit + (uint64_t)w - 1),
                  (unsigned long long)v);
        } else {
          ex_note(f, "bit width 0: 0, in no bits");
        }
        u->value_row = 1;
        u->vindex = x->i;
        u->vvalue = (uint32_t)v;
        x->i++;
        u->j++;
        return 1;
      }
      size_t from = (size_t)(u->counted * (uint64_t)w / 8);
      if (u->counted < u->slots && w && from < u->data_len) {
        ex_row(f, u->data_at + from, u->data_len - from,
               "run[%llu].bit_packed.padding", run);
        ex_note(f, "%llu slot%s after the last value: padding, whatever its "
                "bits",
                (unsigned long long)(u->slots - u->counted),
                u->slots - u->counted == 1 ? "" : "s");
        next_run(u);
        return 1;
      }
      next_run(u);
      return ex_runs_step(x, f);
  }
}

int ex_runs_end(pq_explainer *x, pq_field *f) {
  ex_runs *u = &x->runs;
  size_t at = u->r.base + u->r.pos;
  if (x->limit != UINT64_MAX && x->i < x->limit) {
    pq_error err;
    pq_fail_count(&err, x->enc, x->i, x->limit);
    return ex_fault(x, f, at, &err);
  }
  if (x->phase != 9 && at < x->len) {
    x->phase = 9;
    ex_rest(x, f, at, "after the last value: not read");
    return 1;
  }
  return 0;
}

/* ---- RLE: [<4-byte length>] <runs> ---------------------------------------- */

static int rle_step(pq_explainer *x, pq_field *f) {
  if (x->phase == 0) {
    x->phase = 1;
    if (!x->p.length_prefix) {
      ex_runs_init(x, 0, x->len, x->p.bit_width);
    } else {
      size_t start, n;
      pq_error err;
      if (pq_rle_prefix(x->buf, x->len, 0, "RLE", &start, &n, &err)) {
        return ex_fault(x, f, 0, &err);
      }
      ex_runs_init(x, start, start + n, x->p.bit_width);
      ex_row(f, 0, 4, "length");
      f->kind = PQ_FV_UINT;
      f->u = n;
      ex_note(f, "4 bytes, little endian: the runs take %zu byte%s", n,
              n == 1 ? "" : "s");
      return 1;
    }
  }
  if (x->phase == 1 && ex_runs_step(x, f)) return 1;
  return ex_runs_end(x, f);
}

int ex_rle_open(pq_explainer *x, pq_error *err) {
  if (x->p.bit_width < 0) {
    return pq_fail(err, PQ_MISUSE, "RLE",
                   "the bit_width option is needed to decode integers");
  }
  x->step = rle_step;
  return PQ_OK;
}

/* ---- Dictionary indices: <bit width> <runs> --------------------------------- */

static int dict_step(pq_explainer *x, pq_field *f) {
  if (x->phase == 0) {
    if (x->check_rc) return ex_fault(x, f, 0, &x->check_err);
    int w;
    pq_error err;
    if (pq_dict_bit_width(x->buf, x->len, x->p.count, x->enc, &w, &err)) {
      return ex_fault(x, f, 0, &err);
    }
    if (x->len == 0) return 0;
    x->phase = 1;
    ex_runs_init(x, 1, x->len, w);
    ex_row(f, 0, 1, "bit_width");
    ex_bits_bytes(f, x->buf, 1);
    f->kind = PQ_FV_INT;
    f->i = w;
    if (w) {
      ex_note(f, "indices take %d bit%s: enough for %llu dictionary entries",
              w, w == 1 ? "" : "s", 1ull << w);
    } else {
      ex_note(f, "bit width 0: every index is 0, a dictionary of one entry");
    }
    return 1;
  }
  if (x->phase == 1 && ex_runs_step(x, f)) {
    ex_runs *u = &x->runs;
    if (!u->value_row || !x->have_dict) return 1;
    /* Look the index up, as a decoder given the dictionary does. */
    size_t one = 1;
    pq_error err;
    if (pq_dict_check(&x->dict, &u->vvalue, &one, u->vindex, x->enc, &err)) {
      return ex_fault(x, f, f->offset, &err);
    }
    void *v = x->prev.data;
    pq_dict_gather(&x->dict, &u->vvalue, 1, v);
    char d[128];
    ex_value(f, x->p.type, x->p.type_length, v);
    ex_describe(d, sizeof d, x->p.type, x->p.type_length, v);
    ex_note_add(f, "; index %u: %s", u->vvalue, d);
    return 1;
  }
  return ex_runs_end(x, f);
}

int ex_dict_open(pq_explainer *x, const uint8_t *dict, size_t dict_len,
                 pq_error *err) {
  x->step = dict_step;
  if (!dict) return PQ_OK;
  x->have_dict = 1;
  x->check_rc = pq_dict_load(&x->dict, x->p.type, x->p.type_length, dict,
                             dict_len, x->enc, &x->check_err);
  /* Room for one value, whatever its type. */
  size_t room = pq_value_size(x->p.type, x->p.type_length);
  if (pq_buf_reserve(&x->prev, room < 16 ? 16 : room)) {
    return pq_nomem(err, x->enc);
  }
  return PQ_OK;
}
