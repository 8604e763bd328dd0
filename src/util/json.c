/*
** json.c -- values as JSON text, for parquet_decode.
**
** Integers are decimal; FLOAT and DOUBLE are written with the fewest
** significant digits, from 15 (FLOAT: 6) up to 17 (9), that read back to
** the same bits, -0.0 keeps its sign, NaN is null
** and the infinities are 9e999 and -9e999 (which SQLite's JSON functions
** read back as infinities).  BOOLEAN is true or false.  BYTE_ARRAY values
** that are UTF-8 are strings; other bytes (and INT96, FIXED_LEN_BYTE_ARRAY,
** and every BYTE_ARRAY under the binary option) are strings of uppercase
** hex digits, as SQLite's hex() writes them.
*/
#include <math.h>
#include <stdio.h>

#include "util.h"

static const char hexdig[] = "0123456789ABCDEF";

/* "00" "01" ... "99": two digits a step. */
static const char digits2[201] =
    "0001020304050607080910111213141516171819"
    "2021222324252627282930313233343536373839"
    "4041424344454647484950515253545556575859"
    "6061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

static const uint64_t pow10_tab[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};

/* Decimal digits of v: from its bit length (x log10(2) ~ 1233/4096), one
** comparison to settle the power of ten. */
static int count_digits(uint64_t v) {
  v |= 1; /* 0 has one digit; no power of ten is odd */
  int t = (pq_bit_width64(v) * 1233) >> 12;
  return t + 1 - (v < pow10_tab[t]);
}

/* Writes v in decimal at p, from the last digit back; returns the length
** (at most 20). */
static size_t fmt_u64(char *p, uint64_t v) {
  int n = count_digits(v);
  char *e = p + n;
  while (v >= 100) {
    unsigned r = (unsigned)(v % 100);
    v /= 100;
    e -= 2;
    memcpy(e, digits2 + 2 * r, 2);
  }
  if (v >= 10) {
    memcpy(e - 2, digits2 + 2 * v, 2);
  } else {
    e[-1] = (char)('0' + v);
  }
  return (size_t)n;
}

static size_t fmt_i64(char *p, int64_t v) {
  if (v < 0) {
    *p = '-';
    return 1 + fmt_u64(p + 1, 0 - (uint64_t)v);
  }
  return fmt_u64(p, (uint64_t)v);
}

/* Text that reads back as exactly d (or f, when is_float). */
static size_t fmt_real(char *p, double d, int is_float) {
  if (isnan(d)) return (size_t)snprintf(p, 8, "null");
  if (isinf(d)) return (size_t)snprintf(p, 8, d < 0 ? "-9e999" : "9e999");
  int n = 0;
  for (int prec = is_float ? 6 : 15; prec <= (is_float ? 9 : 17); prec++) {
    n = snprintf(p, 32, "%.*g", prec, d);
    if (is_float ? (strtof(p, NULL) == (float)d) : (strtod(p, NULL) == d))
      break;
  }
  /* Keep it a real in readers that tell 1 from 1.0, and keep -0.0. */
  if (!strpbrk(p, ".eE")) {
    p[n++] = '.';
    p[n++] = '0';
  }
  return (size_t)n;
}

static void json_hex(pq_buf *out, const uint8_t *v, size_t n) {
  if (pq_buf_reserve(out, 2 * n + 2)) return;
  char *o = (char *)out->data + out->len;
  *o++ = '"';
  for (size_t i = 0; i < n; i++) {
    *o++ = hexdig[v[i] >> 4];
    *o++ = hexdig[v[i] & 15];
  }
  *o++ = '"';
  out->len += 2 * n + 2;
}

static void json_string(pq_buf *out, const uint8_t *v, size_t n) {
  pq_buf_byte(out, '"');
  size_t run = 0; /* bytes that need no escape, not yet copied */
  for (size_t i = 0; i < n; i++) {
    uint8_t c = v[i];
    if (c >= 0x20 && c != '"' && c != '\\') {
      run++;
      continue;
    }
    pq_buf_append(out, v + i - run, run);
    run = 0;
    char e[8];
    size_t k = 2;
    e[0] = '\\';
    switch (c) {
      case '"': e[1] = '"'; break;
      case '\\': e[1] = '\\'; break;
      case '\n': e[1] = 'n'; break;
      case '\r': e[1] = 'r'; break;
      case '\t': e[1] = 't'; break;
      default:
        memcpy(e + 1, "u00", 3);
        e[4] = hexdig[c >> 4];
        e[5] = hexdig[c & 15];
        k = 6;
    }
    pq_buf_append(out, e, k);
  }
  pq_buf_append(out, v + n - run, run);
  pq_buf_byte(out, '"');
}

/* Integers, the common case, without a check per value: room for the
** longest is made once. */
static void json_ints(pq_buf *out, const uint8_t *v, size_t n, int wide,
                      int comma) {
  if (pq_buf_reserve(out, n * 21 + 1)) return;
  char *p = (char *)out->data + out->len, *start = p;
  for (size_t i = 0; i < n; i++) {
    if (comma || i) *p++ = ',';
    int64_t x;
    if (wide) {
      memcpy(&x, v + 8 * i, 8);
    } else {
      int32_t y;
      memcpy(&y, v + 4 * i, 4);
      x = y;
    }
    p += fmt_i64(p, x);
  }
  out->len += (size_t)(p - start);
}

size_t pq_json_number(char *p, pq_type t, const void *v) {
  size_t k = 0;
  switch (t) {
    case PQ_BOOLEAN:
      k = (size_t)snprintf(p, 8, *(const uint8_t *)v ? "true" : "false");
      break;
    case PQ_INT32: {
      int32_t x;
      memcpy(&x, v, 4);
      k = fmt_i64(p, x);
      break;
    }
    case PQ_INT64: {
      int64_t x;
      memcpy(&x, v, 8);
      k = fmt_i64(p, x);
      break;
    }
    case PQ_FLOAT: {
      float x;
      memcpy(&x, v, 4);
      k = fmt_real(p, x, 1);
      break;
    }
    case PQ_DOUBLE: {
      double x;
      memcpy(&x, v, 8);
      k = fmt_real(p, x, 0);
      break;
    }
    default: break;
  }
  p[k] = 0;
  return k;
}

void pq_json_values(pq_buf *out, pq_type t, int32_t type_length, int binary,
                    const void *values, size_t n, int comma) {
  if (t == PQ_INT32 || t == PQ_INT64) {
    json_ints(out, values, n, t == PQ_INT64, comma);
    return;
  }
  size_t w = pq_value_size(t, type_length);
  for (size_t i = 0; i < n; i++) {
    if (pq_buf_reserve(out, 40)) return;
    char *p = (char *)out->data + out->len;
    size_t k = 0;
    if (comma || i) p[k++] = ',';
    const uint8_t *v = (const uint8_t *)values + i * w;
    switch (t) {
      case PQ_BOOLEAN:
        k += (size_t)(*v ? snprintf(p + k, 8, "true")
                         : snprintf(p + k, 8, "false"));
        break;
      case PQ_INT32: {
        int32_t x;
        memcpy(&x, v, 4);
        k += fmt_i64(p + k, x);
        break;
      }
      case PQ_INT64: {
        int64_t x;
        memcpy(&x, v, 8);
        k += fmt_i64(p + k, x);
        break;
      }
      case PQ_FLOAT: {
        float x;
        memcpy(&x, v, 4);
        k += fmt_real(p + k, x, 1);
        break;
      }
      case PQ_DOUBLE: {
        double x;
        memcpy(&x, v, 8);
        k += fmt_real(p + k, x, 0);
        break;
      }
      case PQ_BYTE_ARRAY: {
        out->len += k;
        const pq_bytes *b = (const pq_bytes *)(const void *)v;
        if (!binary && pq_utf8_valid(b->ptr, b->len)) {
          json_string(out, b->ptr, b->len);
        } else {
          json_hex(out, b->ptr, b->len);
        }
        continue;
      }
      default:
        out->len += k;
        json_hex(out, v, w);
        continue;
    }
    out->len += k;
  }
}

/* Unsigned levels and indices. */
void pq_json_indices(pq_buf *out, const uint32_t *v, size_t n, int comma) {
  if (pq_buf_reserve(out, n * 11 + 1)) return;
  char *p = (char *)out->data + out->len, *start = p;
  for (size_t i = 0; i < n; i++) {
    if (comma || i) *p++ = ',';
    p += fmt_u64(p, v[i]);
  }
  out->len += (size_t)(p - start);
}
