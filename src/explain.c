/*
** explain.c -- the explainer: opening one, the helpers every walker uses,
** and the walkers of PLAIN, BIT_PACKED, BYTE_STREAM_SPLIT and
** GROUP_VAR_INT.  The RLE/bit-packed runs are in explain_runs.c, the delta
** encodings in explain_delta.c.
*/
#include "explain.h"

#include <stdio.h>

/* ---- Rows ---------------------------------------------------------------- */

void ex_row(pq_field *f, uint64_t offset, uint64_t length, const char *fmt,
            ...) {
  f->offset = offset;
  f->length = length;
  f->bits[0] = f->labels[0] = f->note[0] = 0;
  f->kind = PQ_FV_NONE;
  f->text = 0;
  f->fault = 0;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->path, sizeof f->path, fmt, ap);
  va_end(ap);
}

void ex_note(pq_field *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->note, sizeof f->note, fmt, ap);
  va_end(ap);
}

void ex_note_add(pq_field *f, const char *fmt, ...) {
  size_t k = strlen(f->note);
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->note + k, sizeof f->note - k, fmt, ap);
  va_end(ap);
}

/* Bytes shown in bits; longer fields end in "...". */
#define BITS_BYTES 100

void ex_bits_bytes(pq_field *f, const uint8_t *p, size_t n) {
  char *o = f->bits;
  size_t m = n < BITS_BYTES ? n : BITS_BYTES;
  for (size_t b = 0; b < m; b++) {
    if (b) *o++ = ' ';
    for (int d = 7; d >= 0; d--) *o++ = (char)('0' + ((p[b] >> d) & 1));
  }
  if (m < n) o += sprintf(o, " ...");
  *o = 0;
}

void ex_bits_value(pq_field *f, uint64_t v, int w) {
  char *o = f->bits;
  for (int j = w - 1; j >= 0; j--) *o++ = (char)('0' + ((v >> j) & 1));
  *o = 0;
}

void ex_labels(pq_field *f, size_t nbytes, uint64_t nvalues, int w,
               int msb_first) {
  static const char alpha[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  char *o = f->labels;
  size_t m = nbytes < BITS_BYTES ? nbytes : BITS_BYTES;
  uint64_t used = nvalues * (uint64_t)w;
  for (size_t b = 0; b < m; b++) {
    if (b) *o++ = ' ';
    for (int d = 0; d < 8; d++) {
      uint64_t p = 8 * (uint64_t)b + (uint64_t)(msb_first ? d : 7 - d);
      if (w == 0 || p >= used) {
        *o++ = '.';
        continue;
      }
      uint64_t i = p / (uint64_t)w, j = p % (uint64_t)w;
      uint64_t label = i * (uint64_t)w + (msb_first ? j : (uint64_t)w - 1 - j);
      *o++ = alpha[label % (sizeof alpha - 1)];
    }
  }
  if (m < nbytes) o += sprintf(o, " ...");
  *o = 0;
}

int ex_fault(pq_explainer *x, pq_field *f, uint64_t offset,
             const pq_error *err) {
  ex_row(f, offset, offset < x->len ? x->len - offset : 0, "error");
  snprintf(f->note, sizeof f->note, "%s", err->msg);
  f->fault = 1;
  x->done = 1;
  return 1;
}

void ex_rest(pq_explainer *x, pq_field *f, size_t pos, const char *why) {
  ex_row(f, pos, x->len - pos, "rest");
  ex_note(f, "%zu byte%s %s", x->len - pos, x->len - pos == 1 ? "" : "s", why);
}

size_t ex_uleb_len(const uint8_t *p, size_t avail) {
  size_t n = 0;
  while (n < avail && n < 10 && (p[n] & 0x80)) n++;
  return n < avail ? n + 1 : n;
}

void ex_uleb_note(pq_field *f, const uint8_t *p, size_t n, uint64_t v) {
  char *o = f->note;
  o += sprintf(o, "ULEB128:");
  for (size_t i = 0; i < n; i++) o += sprintf(o, " 0x%02X", p[i]);
  sprintf(o, " = %llu", (unsigned long long)v);
}

void ex_value(pq_field *f, pq_type t, int32_t type_length, const void *v) {
  switch (t) {
    case PQ_BOOLEAN:
      f->kind = PQ_FV_INT;
      f->i = *(const uint8_t *)v;
      break;
    case PQ_INT32: {
      int32_t x;
      memcpy(&x, v, 4);
      f->kind = PQ_FV_INT;
      f->i = x;
      break;
    }
    case PQ_INT64:
      f->kind = PQ_FV_INT;
      memcpy(&f->i, v, 8);
      break;
    case PQ_FLOAT: {
      float x;
      memcpy(&x, v, 4);
      f->kind = PQ_FV_REAL;
      f->r = x;
      break;
    }
    case PQ_DOUBLE:
      f->kind = PQ_FV_REAL;
      memcpy(&f->r, v, 8);
      break;
    case PQ_BYTE_ARRAY: {
      const pq_bytes *b = v;
      f->kind = PQ_FV_BYTES;
      f->bytes = b->ptr;
      f->nbytes = b->len;
      f->text = 1;
      break;
    }
    default:
      f->kind = PQ_FV_BYTES;
      f->bytes = v;
      f->nbytes = pq_value_size(t, type_length);
      f->text = 0;
  }
}

void ex_describe(char *out, size_t cap, pq_type t, int32_t type_length,
                 const void *v) {
  pq_buf b;
  pq_buf_init(&b);
  const uint8_t *p = v;
  size_t n = 0;
  if (t == PQ_BYTE_ARRAY) {
    p = ((const pq_bytes *)v)->ptr;
    n = ((const pq_bytes *)v)->len;
  } else if (t == PQ_INT96 || t == PQ_FIXED_LEN_BYTE_ARRAY) {
    n = pq_value_size(t, type_length);
  } else {
    pq_json_values(&b, t, type_length, 0, v, 1, 0);
    pq_buf_byte(&b, 0);
    snprintf(out, cap, "%s", b.oom ? "?" : (const char *)b.data);
    pq_buf_free(&b);
    return;
  }
  int printable = t == PQ_BYTE_ARRAY && pq_utf8_valid(p, n);
  for (size_t i = 0; printable && i < n; i++) {
    printable = p[i] >= 0x20 && p[i] != 0x7f && p[i] != '\'';
  }
  if (printable) {
    /* At most 40 bytes, cut before a character, not inside one. */
    size_t m = n;
    if (m > 40) {
      m = 40;
      while (m > 0 && (p[m] & 0xc0) == 0x80) m--;
    }
    snprintf(out, cap, m < n ? "'%.*s...'" : "'%.*s'", (int)m,
             (const char *)p);
  } else {
    size_t k = (size_t)snprintf(out, cap, "X'");
    for (size_t i = 0; i < n && i < 16 && k + 3 < cap; i++) {
      k += (size_t)snprintf(out + k, cap - k, "%02X", p[i]);
    }
    snprintf(out + k, cap - k, n > 16 ? "...'" : "'");
  }
}

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
    x->i++;
    x->phase = 0;
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

/* ---- Opening --------------------------------------------------------------- */

int pq_explainer_open(pq_explainer **out, const pq_params *params,
                      const uint8_t *buf, size_t len, const uint8_t *dict,
                      size_t dict_len, pq_error *err) {
  *out = NULL;
  pq_params p = *params;
  int is_dict =
      p.encoding == PQ_PLAIN_DICTIONARY || p.encoding == PQ_RLE_DICTIONARY;
  int rc = pq_params_resolve(&p, !is_dict || dict != NULL, err);
  if (rc) return rc;
  pq_explainer *x = calloc(1, sizeof *x);
  if (!x) return pq_nomem(err, "explain");
  x->p = p;
  x->enc = pq_encoding_name(p.encoding);
  x->buf = buf ? buf : (const uint8_t *)"";
  x->len = len;
  x->limit = p.count >= 0 ? (uint64_t)p.count : UINT64_MAX;
  pq_buf_init(&x->prev);
  switch (p.encoding) {
    case PQ_PLAIN:
      x->check_rc = pq_plain_check(&p, len, &x->check_err);
      x->step = plain_step;
      break;
    case PQ_BIT_PACKED: {
      uint64_t n = 0;
      x->check_rc = pq_bit_packed_check(&p, len, &n, &x->check_err);
      if (x->check_rc == PQ_MISUSE) {
        *err = x->check_err;
        rc = PQ_MISUSE;
        break;
      }
      if (x->check_rc) n = p.bit_width ? (uint64_t)len * 8 / (uint64_t)p.bit_width : 0;
      x->end = (size_t)(n < x->limit ? n : x->limit);
      x->step = bit_packed_step;
      break;
    }
    case PQ_BYTE_STREAM_SPLIT:
      x->check_rc = pq_bss_check(&p, len, &x->check_err);
      if (pq_buf_reserve(&x->prev, pq_plain_width(p.type, p.type_length))) {
        rc = pq_nomem(err, x->enc);
      }
      x->step = bss_step;
      break;
    case PQ_GROUP_VAR_INT:
      x->check_rc = pq_gvi_check(&p, len, &x->check_err);
      if (pq_buf_reserve(&x->prev, sizeof(gvi_state))) rc = pq_nomem(err, x->enc);
      if (x->prev.data) memset(x->prev.data, 0, sizeof(gvi_state));
      x->step = gvi_step;
      break;
    case PQ_RLE: rc = ex_rle_open(x, err); break;
    case PQ_PLAIN_DICTIONARY:
    case PQ_RLE_DICTIONARY: rc = ex_dict_open(x, dict, dict_len, err); break;
    case PQ_DELTA_BINARY_PACKED: rc = ex_dbp_open(x, err); break;
    case PQ_DELTA_LENGTH_BYTE_ARRAY: rc = ex_dlba_open(x, err); break;
    case PQ_DELTA_BYTE_ARRAY: rc = ex_dba_open(x, err); break;
    default:
      rc = pq_fail(err, PQ_UNSUPPORTED, x->enc, "not implemented in this version");
  }
  if (rc) {
    pq_explainer_free(x);
    return rc;
  }
  *out = x;
  return PQ_OK;
}

int pq_explainer_next(pq_explainer *x, pq_field *f) {
  if (x->done) return 0;
  if (!x->step(x, f)) {
    x->done = 1;
    return 0;
  }
  return 1;
}

void pq_explainer_free(pq_explainer *x) {
  if (!x) return;
  ex_file_free(x->file);
  pq_dict_free(&x->dict);
  pq_buf_free(&x->prev);
  free(x);
}
