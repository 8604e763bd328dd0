/*
** text.c -- values as text, the forms every reader of the project gives
** them (doc/values.md): dates, times and timestamps that SQLite's date
** functions read, decimals with all their digits, UUIDs, DuckDB's
** INTERVAL, and FLOAT16 widened.  The parquet table's cells, the JSON of
** nested columns and of VARIANT values, and the explainer's notes all
** use them.
*/
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static void text_civil(int64_t days, int64_t *y, int *m, int *d) {
  int64_t z = days + 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static int64_t text_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

static size_t text_fit(int k, size_t cap) {
  return k < 0 ? 0 : (size_t)k < cap ? (size_t)k : cap ? cap - 1 : 0;
}

/* The digits of v, exactly k of them (v < 10^k), at s. */
static void text_digits(char *s, uint64_t v, int k) {
  while (k-- > 0) {
    s[k] = (char)('0' + v % 10);
    v /= 10;
  }
}

size_t pq_text_date(char *s, size_t cap, int64_t days) {
  int64_t y;
  int m, d;
  /* Far outside any calendar a file means: keep the arithmetic exact. */
  if (days > INT64_MAX / 4 || days < INT64_MIN / 4) days = 0;
  text_civil(days, &y, &m, &d);
  if (y >= 0 && y <= 9999 && cap > 10) { /* the common years, by hand */
    text_digits(s, (uint64_t)y, 4);
    s[4] = '-';
    text_digits(s + 5, (uint64_t)m, 2);
    s[7] = '-';
    text_digits(s + 8, (uint64_t)d, 2);
    s[10] = 0;
    return 10;
  }
  return text_fit(snprintf(s, cap, "%04lld-%02d-%02d", (long long)y, m, d),
                  cap);
}

size_t pq_text_time(char *s, size_t cap, int64_t units, int64_t per_second,
                    int digits) {
  /* Outside a day (which the spec's TIME never is, but a file may hold):
  ** a signed duration, its magnitude in hours past 23 and a minus sign. */
  uint64_t mag = units < 0 ? 0 - (uint64_t)units : (uint64_t)units;
  uint64_t secs = mag / (uint64_t)per_second, frac = mag % (uint64_t)per_second;
  if (units >= 0 && secs < 100 * 3600 && digits <= 18 &&
      cap > 9 + (size_t)digits) { /* the same text, by hand */
    text_digits(s, secs / 3600, 2);
    s[2] = ':';
    text_digits(s + 3, secs / 60 % 60, 2);
    s[5] = ':';
    text_digits(s + 6, secs % 60, 2);
    size_t n = 8;
    if (frac) {
      s[n++] = '.';
      text_digits(s + n, frac, digits);
      n += (size_t)digits;
    }
    s[n] = 0;
    return n;
  }
  int k = snprintf(s, cap, "%s%02llu:%02d:%02d", units < 0 ? "-" : "",
                   (unsigned long long)(secs / 3600), (int)(secs / 60 % 60),
                   (int)(secs % 60));
  size_t n = text_fit(k, cap);
  if (frac && n < cap) {
    n += text_fit(
        snprintf(s + n, cap - n, ".%0*llu", digits, (unsigned long long)frac),
        cap - n);
  }
  return n;
}

size_t pq_text_timestamp_in(char *s, size_t cap, int64_t v, int unit,
                            pq_day_text *day) {
  int64_t per = unit == 1 ? 1000 : unit == 2 ? 1000000 : 1000000000;
  int digits = unit == 1 ? 3 : unit == 2 ? 6 : 9;
  int64_t per_day = per * 86400;
  int64_t days = text_floor_div(v, per_day);
  /* The time of day by the remainder: days * per_day may be past int64
  ** (nanoseconds near INT64_MIN). */
  int64_t rem = v % per_day;
  if (rem < 0) rem += per_day;
  size_t n;
  if (day && day->n && day->days == days && day->n < cap) {
    memcpy(s, day->s, day->n);
    n = day->n;
  } else {
    n = pq_text_date(s, cap, days);
    if (day && n < sizeof day->s) {
      memcpy(day->s, s, n);
      day->n = n;
      day->days = days;
    }
  }
  if (n + 1 < cap) {
    s[n++] = ' ';
    n += pq_text_time(s + n, cap - n, rem, per, digits);
  }
  return n;
}

size_t pq_text_timestamp(char *s, size_t cap, int64_t v, int unit) {
  return pq_text_timestamp_in(s, cap, v, unit, NULL);
}

size_t pq_text_int96(char *s, size_t cap, const uint8_t *p) {
  int64_t nanos = (int64_t)pq_load64(p);
  int64_t days = (int64_t)(int32_t)pq_load32(p + 8) - 2440588;
  if (nanos < 0 || nanos >= 86400000000000LL) nanos = 0;
  size_t n = pq_text_date(s, cap, days);
  if (n + 1 < cap) {
    s[n++] = ' ';
    n += pq_text_time(s + n, cap - n, nanos, 1000000000, 9);
  }
  return n;
}

/* Drops the leading bytes of a big-endian two's complement integer that
** only repeat its sign. */
static void cell_be_trim(const uint8_t **p, size_t *n) {
  while (*n > 1 && (((*p)[0] == 0 && !((*p)[1] & 0x80)) ||
                    ((*p)[0] == 0xff && ((*p)[1] & 0x80)))) {
    (*p)++;
    (*n)--;
  }
}

size_t pq_text_decimal(char *s, size_t cap, const uint8_t *p, size_t n,
                       int scale) {
  cell_be_trim(&p, &n);
  if (n > PQ_DECIMAL_MAX_BYTES) n = 0; /* (callers check) */
  int neg = n > 0 && (p[0] & 0x80);
  /* The magnitude, in base 10^9 limbs, least significant first. */
  uint32_t limb[(PQ_DECIMAL_MAX_BYTES * 8 + 28) / 29 + 1];
  size_t nl = 0;
  uint8_t mag[PQ_DECIMAL_MAX_BYTES];
  memcpy(mag, p, n);
  if (neg) { /* two's complement negation */
    int carry = 1;
    for (size_t i = n; i-- > 0;) {
      int v = (uint8_t)~mag[i] + carry;
      mag[i] = (uint8_t)v;
      carry = v >> 8;
    }
  }
  size_t start = 0;
  while (start < n) { /* divide mag by 10^9, the remainder a limb */
    uint64_t rem = 0;
    for (size_t i = start; i < n; i++) {
      uint64_t cur = rem << 8 | mag[i];
      mag[i] = (uint8_t)(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    limb[nl++] = (uint32_t)rem;
    while (start < n && !mag[start]) start++;
  }
  char digits[sizeof limb / sizeof *limb * 9 + 48];
  int k = 0;
  for (size_t i = 0; i < nl; i++) {
    uint32_t v = limb[i];
    for (int j = 0; j < 9; j++) {
      digits[k++] = (char)('0' + (int)(v % 10));
      v /= 10;
    }
  }
  while (k > 1 && digits[k - 1] == '0') k--;
  if (!k) digits[k++] = '0';
  while (k <= scale && k < (int)sizeof digits) digits[k++] = '0';
  size_t o = 0;
  if (neg && o + 1 < cap) s[o++] = '-';
  for (int i = k - 1; i >= 0 && o + 2 < cap; i--) {
    s[o++] = digits[i];
    if (i == scale && scale > 0) s[o++] = '.';
  }
  if (cap) s[o < cap ? o : cap - 1] = 0;
  return o;
}

int pq_decimal_fits_text(const uint8_t *p, size_t n) {
  cell_be_trim(&p, &n);
  return n <= PQ_DECIMAL_MAX_BYTES;
}

size_t pq_text_interval(char *s, size_t cap, const uint8_t *p) {
  uint32_t months = pq_load32(p), days = pq_load32(p + 4);
  uint32_t ms = pq_load32(p + 8);
  size_t n = 0;
  const struct {
    uint32_t v;
    const char *unit;
  } parts[] = {{months / 12, "year"}, {months % 12, "month"}, {days, "day"}};
  for (int i = 0; i < 3; i++)
    if (parts[i].v)
      n += text_fit(snprintf(s + n, cap - n, "%s%u %s%s", n ? " " : "",
                             parts[i].v, parts[i].unit,
                             parts[i].v == 1 ? "" : "s"),
                    cap - n);
  if (ms || !n) {
    if (n && n + 1 < cap) s[n++] = ' ';
    n += pq_text_time(s + n, cap - n, (int64_t)(ms - ms % 1000), 1000, 3);
    if (ms % 1000) { /* DuckDB's fraction: no trailing zeros */
      unsigned f = ms % 1000;
      int digits = f % 100 == 0 ? 1 : f % 10 == 0 ? 2 : 3;
      n += text_fit(snprintf(s + n, cap - n, ".%0*u", digits,
                             digits == 1 ? f / 100 : digits == 2 ? f / 10 : f),
                    cap - n);
    }
  }
  return n;
}

size_t pq_text_uuid(char *s, size_t cap, const uint8_t *p) {
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;
  if (cap < 37) return 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s[k++] = '-';
    s[k++] = hex[p[i] >> 4];
    s[k++] = hex[p[i] & 15];
  }
  s[k] = 0;
  return k;
}

double pq_half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0    ? m / 16777216.0
             : e == 31 ? (m ? NAN : INFINITY)
                       : (1 + m / 1024.0) * (double)(1u << e) / 32768.0;
  return h & 0x8000 ? -v : v;
}

