/*
** explain_plain.c -- the walkers of the encodings whose layout is fixed
** value by value: PLAIN, BIT_PACKED, BYTE_STREAM_SPLIT and GROUP_VAR_INT.
*/
#include <stdio.h>

#include "explain.h"

/* ---- PLAIN ---------------------------------------------------------------- */

static int plain_step(pq_explainer *x, pq_field *f) {
  const pq_params *p = &x->p;
  char d[128];
  if (p->type == PQ_BOOLEAN) {
    uint64_t total = (uint64_t)x->len * 8;
    if (x->i < x->limit && x->i < total) {
      uint64_t i = x->i++;
      uint8_t bit = (x->buf[i / 8] >> (i % 8)) & 1;
      ex_row(f, i / 8, 1, "value[%llu]", (unsigned long long)i);
      ex_bits_value(f, bit, 1);
      ex_value(f, PQ_BOOLEAN, 0, &bit);
      ex_note(f, "bit %llu of byte %llu, counting from the least significant: "
              "%s",
              (unsigned long long)(i % 8), (unsigned long long)(i / 8),
              bit ? "true" : "false");
      return 1;
    }
    if (x->check_rc) return ex_fault(x, f, x->len, &x->check_err);
    if (x->phase == 0 && x->i % 8 != 0) {
      x->phase = 1;
      ex_row(f, x->i / 8, 1, "padding");
      ex_note(f, "bits %llu to 7 of the last byte: padding after the last "
              "value",
              (unsigned long long)(x->i % 8));
      return 1;
    }
    size_t used = (size_t)((x->i + 7) / 8);
    if (x->phase < 2 && used < x->len) {
      x->phase = 2;
      ex_rest(x, f, used, "after the last value: not read");
      return 1;
    }
    return 0;
  }
  if (p->type == PQ_BYTE_ARRAY) {
    if (x->phase == 3) { /* a variant column's value, walked as such */
      if (ex_variant_value_row(x, f)) return 1;
      x->phase = 0;
    }
    if (x->i >= x->limit || x->pos >= x->len) {
      if (x->i < x->limit && x->limit != UINT64_MAX) {
        if (!x->check_rc) pq_fail_count(&x->check_err, "PLAIN", x->i, x->limit);
        return ex_fault(x, f, x->pos, &x->check_err);
      }
      if (x->phase == 0 && x->pos < x->len) {
        x->phase = 2;
        ex_rest(x, f, x->pos, "after the last value: not read");
        return 1;
      }
      return 0;
    }
    pq_error err;
    size_t at = x->pos, next = at;
    if (x->phase == 0) {
      if (pq_plain_byte_array(x->buf, x->len, &next, x->i, &x->bytes, &err)) {
        /* A decoder checks the count first, before any value. */
        return ex_fault(x, f, at, x->check_rc ? &x->check_err : &err);
      }
      ex_row(f, at, 4, "value[%llu].length", (unsigned long long)x->i);
      f->kind = PQ_FV_INT;
      f->i = (int64_t)x->bytes.len;
      ex_note(f, "4 bytes, little endian: %zu", x->bytes.len);
      x->phase = 1;
      return 1;
    }
    ex_row(f, at + 4, x->bytes.len, "value[%llu]", (unsigned long long)x->i);
    ex_value(f, PQ_BYTE_ARRAY, 0, &x->bytes);
    ex_describe(d, sizeof d, PQ_BYTE_ARRAY, 0, &x->bytes);
    ex_note(f, "%zu byte%s: %s", x->bytes.len, x->bytes.len == 1 ? "" : "s", d);
    x->pos = at + 4 + x->bytes.len;
    x->phase = 0;
    if (x->variant_part) {
      char prefix[40];
      snprintf(prefix, sizeof prefix, "value[%llu].", (unsigned long long)x->i);
      ex_variant_start(x->variant, x->buf, at + 4, x->pos, x->variant_part,
                       NULL, 0, prefix, &err);
      x->phase = 3;
    }
    x->i++;
    return 1;
  }
  size_t w = pq_plain_width(p->type, p->type_length);
  uint64_t whole = x->len / w;
  if (x->i < x->limit && x->i < whole) {
    uint64_t i = x->i++;
    const uint8_t *v = x->buf + i * w;
    ex_row(f, i * w, w, "value[%llu]", (unsigned long long)i);
    /* Values are little-endian in the stream, host order in ex_value. */
    pq_buf tmp = {x->scratch, 0, sizeof x->scratch, 0};
    const void *hv = v;
    if (w <= sizeof x->scratch && p->type != PQ_FIXED_LEN_BYTE_ARRAY) {
      pq_put_le(&tmp, v, 1, w, p->type);
      hv = x->scratch;
    }
    ex_value(f, p->type, p->type_length, hv);
    ex_describe(d, sizeof d, p->type, p->type_length, hv);
    ex_note(f, "%s%zu bytes%s: %s",
            p->type == PQ_FLOAT || p->type == PQ_DOUBLE ? "IEEE 754, " : "",
            w,
            p->type == PQ_FIXED_LEN_BYTE_ARRAY ? "" : ", little endian", d);
    return 1;
  }
  if (x->check_rc) return ex_fault(x, f, x->i * w, &x->check_err);
  if (x->phase == 0 && x->i * w < x->len) {
    x->phase = 2;
    ex_rest(x, f, (size_t)(x->i * w), "after the last value: not read");
    return 1;
  }
  return 0;
}

/* ---- BIT_PACKED ----------------------------------------------------------- */

static int bit_packed_step(pq_explainer *x, pq_field *f) {
  int w = x->p.bit_width, msb = !x->p.lsb_first;
  uint64_t n = x->end; /* values shown: what the bytes hold, to the count */
  uint64_t bytes = (n * (uint64_t)w + 7) / 8;
  if (x->phase == 0) {
    x->phase = 1;
    ex_row(f, 0, bytes, "values");
    ex_bits_bytes(f, x->buf, (size_t)bytes);
    ex_labels(f, (size_t)bytes, n, w, msb);
    ex_note(f, "%llu values x %d bit%s = %llu bits in %llu byte%s, packed "
            "from the %s significant bit of each byte%s",
            (unsigned long long)n, w, ex_s((uint64_t)w),
            (unsigned long long)n * (uint64_t)w, (unsigned long long)bytes,
            ex_s(bytes), msb ? "most" : "least",
            msb ? " (the deprecated order)" : "");
    return 1;
  }
  if (x->i < n) {
    uint64_t bit = x->i * (uint64_t)w, v;
    if (msb) {
      pq_unpack_msb(x->buf, bit, w, 1, &v);
    } else {
      pq_unpack_lsb(x->buf, bit, w, 1, &v);
    }
    ex_row(f, bit / 8, w ? ((bit % 8) + (uint64_t)w + 7) / 8 : 0, "value[%llu]",
           (unsigned long long)x->i);
    ex_bits_value(f, v, w);
    f->kind = PQ_FV_UINT;
    f->u = v;
    if (w == 1) {
      ex_note(f, "bit %llu: %llu", (unsigned long long)bit,
              (unsigned long long)v);
    } else {
      ex_note(f, "bits %llu to %llu: %llu", (unsigned long long)bit,
              (unsigned long long)(bit + (uint64_t)w - 1),
              (unsigned long long)v);
    }
    if (w == 0) ex_note(f, "bit width 0: every value is 0 and takes no bits");
    x->i++;
    return 1;
  }
  if (x->check_rc) return ex_fault(x, f, bytes, &x->check_err);
  if (x->phase == 1 && (n * (uint64_t)w) % 8) {
    x->phase = 2;
    ex_row(f, bytes - 1, 1, "padding");
    ex_note(f, "the last %d bits of the last byte: padding",
            (int)(8 - (n * (uint64_t)w) % 8));
    return 1;
  }
  if (x->phase < 3 && bytes < x->len) {
    x->phase = 3;
    ex_rest(x, f, (size_t)bytes, "after the last value: not read");
    return 1;
  }
  return 0;
}

/* ---- BYTE_STREAM_SPLIT ---------------------------------------------------- */

static int bss_step(pq_explainer *x, pq_field *f) {
  if (x->check_rc) return ex_fault(x, f, 0, &x->check_err);
  size_t K = pq_plain_width(x->p.type, x->p.type_length), N = x->len / K;
  size_t k = x->pos; /* stream */
  if (k >= K) return 0;
  if (x->phase == 0) {
    x->i = 0;
    ex_row(f, k * N, N, "stream[%zu]", k);
    ex_note(f, "byte %zu of each of the %zu values", k, N);
    if (N == 0)
      x->pos++; /* no values: the next stream, also empty */
    else
      x->phase = 1;
    return 1;
  }
  uint64_t i = x->i;
  ex_row(f, k * N + i, 1, "stream[%zu].value[%llu]", k, (unsigned long long)i);
  ex_note(f, "byte %zu of value %llu", k, (unsigned long long)i);
  if (k == K - 1) {
    /* The value's last byte: gather it and show the whole value. */
    uint8_t *v = x->prev.data;
    for (size_t b = 0; b < K; b++) v[b] = x->buf[b * N + i];
    const void *hv = v;
    pq_buf tmp = {x->scratch, 0, sizeof x->scratch, 0};
    if (x->p.type != PQ_FIXED_LEN_BYTE_ARRAY) {
      pq_put_le(&tmp, v, 1, K, x->p.type);
      hv = x->scratch;
    }
    char d[128];
    ex_value(f, x->p.type, x->p.type_length, hv);
    ex_describe(d, sizeof d, x->p.type, x->p.type_length, hv);
    ex_note_add(f, ", its last: value %llu is %s", (unsigned long long)i, d);
    if (i >= x->limit) ex_note_add(f, " (past the count)");
  }
  if (++x->i == N) {
    x->pos++;
    x->phase = 0;
  }
  return 1;
}

/* ---- GROUP_VAR_INT -------------------------------------------------------- */

typedef struct gvi_state {
  int lens[5];
  uint64_t vals[5];
  size_t at[5];
  uint64_t group;
  int j;
} gvi_state;

static int gvi_step(pq_explainer *x, pq_field *f) {
  gvi_state *g = (gvi_state *)(void *)x->prev.data;
  int wide = x->p.type == PQ_INT64, per = wide ? 5 : 4;
  size_t hb = wide ? 2 : 1;
  if (x->phase == 2) return 0;
  if (x->phase == 0) { /* a group's length bytes */
    if (x->i >= x->limit || x->pos >= x->len) {
      if (x->i < x->limit && x->limit != UINT64_MAX) {
        if (!x->check_rc) {
          pq_fail_count(&x->check_err, "GROUP_VAR_INT", x->i, x->limit);
        }
        return ex_fault(x, f, x->pos, &x->check_err);
      }
      x->phase = 2;
      if (x->pos >= x->len) return 0;
      ex_rest(x, f, x->pos, "after the last group: not read");
      return 1;
    }
    pq_error err;
    if (pq_gvi_group(x->buf, x->len, x->pos, wide, g->group, g->lens, g->vals,
                     &err)) {
      /* A decoder checks the count first, before any group. */
      return ex_fault(x, f, x->pos, x->check_rc ? &x->check_err : &err);
    }
    ex_row(f, x->pos, hb, "group[%llu].lengths", (unsigned long long)g->group);
    ex_bits_bytes(f, x->buf + x->pos, hb);
    strcpy(f->labels, wide ? ".AAABBBC CCDDDEEE" : "AABBCCDD");
    f->kind = PQ_FV_UINT;
    f->u = wide ? (unsigned)x->buf[x->pos] << 8 | x->buf[x->pos + 1]
                : x->buf[x->pos];
    ex_note(f, "%d bits per value, the first value's on top, each its byte "
            "length less one: lengths ",
            wide ? 3 : 2);
    size_t at = x->pos + hb;
    for (int i = 0; i < per; i++) {
      ex_note_add(f, "%s%d", i ? ", " : "", g->lens[i]);
      g->at[i] = at;
      at += (size_t)g->lens[i];
    }
    ex_note_add(f, " bytes");
    x->pos = at;
    g->j = 0;
    x->phase = 1;
    return 1;
  }
  int j = g->j;
  ex_row(f, g->at[j], (uint64_t)g->lens[j], "group[%llu].value[%d]",
         (unsigned long long)g->group, j);
  if (wide) {
    int64_t v = (int64_t)g->vals[j];
    ex_value(f, PQ_INT64, 0, &v);
  } else {
    int32_t v = (int32_t)(uint32_t)g->vals[j];
    ex_value(f, PQ_INT32, 0, &v);
  }
  ex_note(f, "%d byte%s, little endian: %lld", g->lens[j],
          g->lens[j] == 1 ? "" : "s", (long long)f->i);
  if (x->i >= x->limit) ex_note_add(f, " (past the count: the zero fill)");
  x->i++;
  if (++g->j == per) {
    g->group++;
    x->phase = 0;
  }
  return 1;
}

/* ---- Opening ---------------------------------------------------------------
** The checks of the decoders run first; a fault they find is told in its
** place, after the rows before it. */

int ex_plain_open(pq_explainer *x, pq_error *err) {
  (void)err;
  x->check_rc = pq_plain_check(&x->p, x->len, &x->check_err);
  x->step = plain_step;
  return PQ_OK;
}

int ex_bit_packed_open(pq_explainer *x, pq_error *err) {
  const pq_params *p = &x->p;
  uint64_t n = 0;
  x->check_rc = pq_bit_packed_check(p, x->len, &n, &x->check_err);
  if (x->check_rc == PQ_MISUSE) {
    *err = x->check_err;
    return PQ_MISUSE;
  }
  if (x->check_rc) {
    n = p->bit_width ? (uint64_t)x->len * 8 / (uint64_t)p->bit_width : 0;
  }
  x->end = (size_t)(n < x->limit ? n : x->limit);
  x->step = bit_packed_step;
  return PQ_OK;
}

int ex_bss_open(pq_explainer *x, pq_error *err) {
  const pq_params *p = &x->p;
  x->check_rc = pq_bss_check(p, x->len, &x->check_err);
  x->step = bss_step;
  if (pq_buf_reserve(&x->prev, pq_plain_width(p->type, p->type_length))) {
    return pq_nomem(err, x->enc);
  }
  return PQ_OK;
}

int ex_gvi_open(pq_explainer *x, pq_error *err) {
  x->check_rc = pq_gvi_check(&x->p, x->len, &x->check_err);
  x->step = gvi_step;
  if (pq_buf_reserve(&x->prev, sizeof(gvi_state))) return pq_nomem(err, x->enc);
  memset(x->prev.data, 0, sizeof(gvi_state));
  return PQ_OK;
}
