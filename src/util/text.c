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

/* The text of a decimal whose magnitude's digits are dig[0..k) (most
** significant first, no leading zero but a lone one), at scale digits
** after the point: at most cap - 1 characters and a NUL. */
static size_t text_decimal_out(char *s, size_t cap, int neg, const char *dig,
                               int k, int scale) {
  char t[PQ_DECIMAL_TEXT_MAX + 48];
  size_t o = 0;
  if (neg) t[o++] = '-';
  if (k <= scale) { /* "0." and the zeros before the digits */
    t[o++] = '0';
    t[o++] = '.';
    memset(t + o, '0', (size_t)(scale - k));
    o += (size_t)(scale - k);
    memcpy(t + o, dig, (size_t)k);
    o += (size_t)k;
  } else {
    memcpy(t + o, dig, (size_t)(k - scale));
    o += (size_t)(k - scale);
    if (scale > 0) {
      t[o++] = '.';
      memcpy(t + o, dig + k - scale, (size_t)scale);
      o += (size_t)scale;
    }
  }
  if (!cap) return 0;
  if (o >= cap) o = cap - 1;
  memcpy(s, t, o);
  s[o] = 0;
  return o;
}

/* The digits of u at the end of buf (which ends at e): where they start.
** Two digits a division. */
static char *text_u64_digits(char *e, uint64_t u) {
  static const char pairs[] =
      "00010203040506070809101112131415161718192021222324252627282930313233"
      "34353637383940414243444546474849505152535455565758596061626364656667"
      "68697071727374757677787980818283848586878889909192939495969798"
      "99";
  while (u >= 100) {
    unsigned r = (unsigned)(u % 100);
    u /= 100;
    e -= 2;
    memcpy(e, pairs + 2 * r, 2);
  }
  if (u >= 10) {
    e -= 2;
    memcpy(e, pairs + 2 * u, 2);
  } else {
    *--e = (char)('0' + (int)u);
  }
  return e;
}

size_t pq_text_decimal64(char *s, size_t cap, int64_t v, int scale) {
  char buf[24];
  int neg = v < 0;
  uint64_t u = neg ? 0 - (uint64_t)v : (uint64_t)v;
  char *d = text_u64_digits(buf + sizeof buf, u);
  if (scale < 0) scale = 0;
  if (scale > PQ_DECIMAL_SCALE_MAX) scale = PQ_DECIMAL_SCALE_MAX;
  return text_decimal_out(s, cap, neg, d, (int)(buf + sizeof buf - d), scale);
}

size_t pq_text_decimal(char *s, size_t cap, const uint8_t *p, size_t n,
                       int scale) {
  cell_be_trim(&p, &n);
  if (n > PQ_DECIMAL_MAX_BYTES) n = 0; /* (callers check) */
  if (scale < 0) scale = 0;
  if (scale > PQ_DECIMAL_SCALE_MAX) scale = PQ_DECIMAL_SCALE_MAX;
  if (n <= 8) { /* an int64 */
    uint64_t u = n && (p[0] & 0x80) ? ~(uint64_t)0 : 0;
    for (size_t i = 0; i < n; i++) u = u << 8 | p[i];
    return pq_text_decimal64(s, cap, (int64_t)u, scale);
  }
  int neg = (p[0] & 0x80) != 0;
  /* The magnitude in 32-bit limbs, most significant first. */
  uint32_t limb[(PQ_DECIMAL_MAX_BYTES + 3) / 4];
  size_t nl = (n + 3) / 4, head = n - (nl - 1) * 4;
  for (size_t i = 0, b = 0; i < nl; i++) {
    uint32_t x = 0;
    for (size_t j = i ? 4 : head; j > 0; j--) x = x << 8 | p[b++];
    limb[i] = neg ? ~x : x;
  }
  if (neg) { /* two's complement: the ones' complement, plus one */
    if (head < 4) limb[0] &= (uint32_t)0xffffffffu >> (32 - 8 * head);
    for (size_t i = nl; i-- > 0;)
      if (++limb[i]) break;
  }
  /* Divided by 10^9 again and again: each remainder nine digits, from
  ** the least significant, written from the end of dig. */
  char dig[PQ_DECIMAL_TEXT_MAX + 16];
  char *e = dig + sizeof dig;
  size_t start = 0;
  while (start < nl && !limb[start]) start++;
  while (start < nl) {
    uint64_t rem = 0;
    for (size_t i = start; i < nl; i++) {
      uint64_t cur = rem << 32 | limb[i];
      limb[i] = (uint32_t)(cur / 1000000000u);
      rem = cur % 1000000000u;
    }
    while (start < nl && !limb[start]) start++;
    uint32_t r = (uint32_t)rem;
    if (start < nl) { /* nine digits, leading zeros too */
      for (int j = 0; j < 9; j++) {
        *--e = (char)('0' + (int)(r % 10));
        r /= 10;
      }
    } else {
      e = text_u64_digits(e, r);
    }
  }
  if (e == dig + sizeof dig) *--e = '0';
  return text_decimal_out(s, cap, neg, e, (int)(dig + sizeof dig - e), scale);
}

int pq_decimal_fits_text(const uint8_t *p, size_t n) {
  cell_be_trim(&p, &n);
  return n <= PQ_DECIMAL_MAX_BYTES;
}

size_t pq_text_decimal_fit(char *s, size_t cap, const uint8_t *p, size_t n,
                           int scale) {
  cell_be_trim(&p, &n);
  if (n > PQ_DECIMAL_MAX_BYTES) return 0;
  return pq_text_decimal(s, cap, p, n, scale);
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

