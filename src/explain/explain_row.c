/*
** explain_row.c -- making a row: where the field is, its path, its note,
** its bits and the spec's letters under them, its value, and the rows
** that end a walk (a fault, the bytes no value uses).
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
  f->within = NULL;
  f->within_len = 0;
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
  if (err->code == PQ_NOMEM) x->nomem = 1;
  return 1;
}

int ex_variant_value_row(pq_explainer *x, pq_field *f) {
  int rc = ex_variant_step(x->variant, f);
  if (rc >= 0) return rc;
  pq_error err;
  size_t at;
  ex_variant_fault(x->variant, &err, &at);
  return ex_fault(x, f, at, &err);
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
  const uint8_t *p = v;
  size_t n = 0;
  if (t == PQ_BYTE_ARRAY) {
    p = ((const pq_bytes *)v)->ptr;
    n = ((const pq_bytes *)v)->len;
  } else if (t == PQ_INT96 || t == PQ_FIXED_LEN_BYTE_ARRAY) {
    n = pq_value_size(t, type_length);
  } else {
    /* Without allocating: a row is no place for an allocation to fail. */
    char num[48];
    pq_json_number(num, t, v);
    snprintf(out, cap, "%s", num);
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
