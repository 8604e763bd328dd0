/*
** values.c -- SQL values as Parquet values (declared in parquet.h): the text the reader
** gives dates, times, timestamps, INT96, decimals and UUIDs read back into
** the stored values, and integers and reals as decimals.
**
**   '2024-03-01'                         -> DATE 19783
**   '2024-03-01 12:00:00.25'             -> TIMESTAMP(MICROS) 1709294400250000
**   '1970-01-03 00:00:00+01:00'          -> TIMESTAMP(MILLIS) 169200000
**   '123.45'                             -> DECIMAL(10,2) 12345
**   '00112233-4455-6677-8899-aabbccddeeff' -> UUID 00 11 .. ff
*/
#include "../format/format.h"

#include <math.h>
#include <stdio.h>

typedef unsigned __int128 u128;
typedef __int128 i128;

#define DAY_SECONDS 86400
#define JULIAN_EPOCH 2440588 /* the Julian day of 1970-01-01 */
#define YEAR_CAP 1000000000000000LL /* years past this are out of range */
#define EXP_CAP 1000000000000000LL  /* exponents past this are, too */

static const char *const unit_names[] = {"", "MILLIS", "MICROS", "NANOS"};
static const int64_t unit_per_second[] = {0, 1000, 1000000, 1000000000};
static const int unit_digits[] = {0, 3, 6, 9};

/* ---- Messages -------------------------------------------------------------- */

/* The text of a value for a message: quoted, cut after 48 bytes (at a
** character's start), control characters as '?'. */
typedef struct quoted {
  char s[64];
} quoted;

static quoted quote(const char *s, size_t n) {
  quoted q;
  size_t k = 0, cut = n;
  if (cut > 48) {
    cut = 48;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80) cut--;
  }
  q.s[k++] = '\'';
  for (size_t i = 0; i < cut; i++) {
    unsigned char c = (unsigned char)s[i];
    q.s[k++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
  }
  if (cut < n) {
    memcpy(q.s + k, "...", 3);
    k += 3;
  }
  q.s[k++] = '\'';
  q.s[k] = 0;
  return q;
}

static const char *label_of(const char *label) {
  return label ? label : "value";
}

/* "<label>: '<text>' <what>". */
static int PQ_PRINTF(6, 7) fail_text(pq_error *err, int code, const char *label,
                                     const char *s, size_t n, const char *fmt,
                                     ...) {
  char what[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return pq_fail(err, code, label_of(label), "%s %s", quote(s, n).s, what);
}

static int check_unit(int unit, const char *label, pq_error *err) {
  if (unit >= PQ_UNIT_MILLIS && unit <= PQ_UNIT_NANOS) return PQ_OK;
  return pq_fail(err, PQ_MISUSE, label_of(label),
                 "unit %d is not MILLIS (1), MICROS (2) or NANOS (3)", unit);
}

/* ---- Reading dates and times ------------------------------------------------- */

/* The fields of a date, a time, or both, as written. */
typedef struct when {
  int64_t year; /* at most YEAR_CAP in magnitude */
  int month, day;
  int hour, minute, second;
  const char *frac; /* the fraction's digits, nfrac of them */
  size_t nfrac;
  int64_t zone; /* the offset east of UTC, in minutes */
} when;

typedef struct scan {
  const char *s;
  size_t n, i;
  char why[96]; /* what is wrong, when a read fails */
} scan;

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int scan_peek(const scan *c) {
  return c->i < c->n ? (unsigned char)c->s[c->i] : -1;
}

/* What is wrong with the byte at the cursor (or the end there). */
static int unexpected(scan *c, const char *expected) {
  int ch = scan_peek(c);
  if (ch < 0)
    snprintf(c->why, sizeof c->why, "it ends where %s should be", expected);
  else if (ch >= 0x20 && ch < 0x7f)
    snprintf(c->why, sizeof c->why, "'%c' at offset %zu, expected %s", ch,
             c->i, expected);
  else
    snprintf(c->why, sizeof c->why, "byte 0x%02x at offset %zu, expected %s",
             ch, c->i, expected);
  return 0;
}

static int expect_char(scan *c, char ch, const char *expected) {
  if (scan_peek(c) != (unsigned char)ch) return unexpected(c, expected);
  c->i++;
  return 1;
}

/* Exactly two digits. */
static int two_digits(scan *c, int *v, const char *expected) {
  if (c->i + 2 > c->n || !is_digit(c->s[c->i]) ||
      !is_digit(c->s[c->i + 1])) {
    if (c->i < c->n && is_digit(c->s[c->i])) c->i++;
    return unexpected(c, expected);
  }
  *v = (c->s[c->i] - '0') * 10 + (c->s[c->i + 1] - '0');
  c->i += 2;
  return 1;
}

static int is_leap(int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int month_days(int64_t y, int m) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* [+-]YYYY-MM-DD.  A year of more than 15 significant digits is kept as
** YEAR_CAP, which no type holds. */
static int read_date(scan *c, when *w) {
  int neg = 0, sign = 0;
  if (scan_peek(c) == '-' || scan_peek(c) == '+') {
    neg = scan_peek(c) == '-';
    sign = 1;
    c->i++;
  }
  size_t start = c->i;
  int64_t y = 0;
  while (c->i < c->n && is_digit(c->s[c->i])) {
    y = y * 10 + (c->s[c->i] - '0');
    if (y > YEAR_CAP) y = YEAR_CAP;
    c->i++;
  }
  size_t nd = c->i - start;
  if (nd == 0 || (!sign && nd < 4))
    return unexpected(c, sign ? "the year's digits" : "a year of four digits");
  w->year = neg ? -y : y;
  if (!expect_char(c, '-', "'-' after the year")) return 0;
  if (!two_digits(c, &w->month, "the month's two digits")) return 0;
  if (w->month < 1 || w->month > 12) {
    snprintf(c->why, sizeof c->why, "month %d", w->month);
    return 0;
  }
  if (!expect_char(c, '-', "'-' after the month")) return 0;
  if (!two_digits(c, &w->day, "the day's two digits")) return 0;
  int most = month_days(w->year, w->month);
  if (w->day < 1 || w->day > most) {
    if (w->day == 0)
      snprintf(c->why, sizeof c->why, "day 0");
    else
      snprintf(c->why, sizeof c->why, "day %d of a month of %d days", w->day,
               most);
    return 0;
  }
  return 1;
}

/* HH:MM[:SS[.fraction]] */
static int read_time(scan *c, when *w) {
  w->second = 0;
  w->frac = NULL;
  w->nfrac = 0;
  if (!two_digits(c, &w->hour, "the hour's two digits")) return 0;
  if (w->hour > 23) {
    snprintf(c->why, sizeof c->why, "hour %d", w->hour);
    return 0;
  }
  if (!expect_char(c, ':', "':' after the hour")) return 0;
  if (!two_digits(c, &w->minute, "the minute's two digits")) return 0;
  if (w->minute > 59) {
    snprintf(c->why, sizeof c->why, "minute %d", w->minute);
    return 0;
  }
  if (scan_peek(c) != ':') return 1;
  c->i++;
  if (!two_digits(c, &w->second, "the second's two digits")) return 0;
  if (w->second > 59) {
    snprintf(c->why, sizeof c->why, "second %d", w->second);
    return 0;
  }
  if (scan_peek(c) != '.') return 1;
  c->i++;
  w->frac = c->s + c->i;
  while (c->i < c->n && is_digit(c->s[c->i])) c->i++;
  w->nfrac = (size_t)(c->s + c->i - w->frac);
  if (w->nfrac == 0) return unexpected(c, "the fraction's digits");
  return 1;
}

/* Z, or +HH:MM / -HH:MM, or nothing. */
static int read_zone(scan *c, when *w) {
  w->zone = 0;
  int ch = scan_peek(c);
  if (ch == 'Z' || ch == 'z') {
    c->i++;
    return 1;
  }
  if (ch != '+' && ch != '-') return 1;
  c->i++;
  int h, m;
  if (!two_digits(c, &h, "the offset's hours")) return 0;
  if (h > 23) {
    snprintf(c->why, sizeof c->why, "offset hour %d", h);
    return 0;
  }
  if (!expect_char(c, ':', "':' in the offset")) return 0;
  if (!two_digits(c, &m, "the offset's minutes")) return 0;
  if (m > 59) {
    snprintf(c->why, sizeof c->why, "offset minute %d", m);
    return 0;
  }
  w->zone = (ch == '-' ? -1 : 1) * (h * 60 + m);
  return 1;
}

static int at_end(scan *c) {
  return c->i == c->n ? 1 : unexpected(c, "the end");
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return a % b != 0 && (a < 0) != (b < 0) ? q - 1 : q;
}

/* Days from 1970-01-01 to y-m-d.  Years are counted from March, so that
** the leap day is the last day of the year before: days to 0000-03-01 of
** whole years of 365 days and the leap days of the rule, then the days of
** the months from March (153 days for each five, alternately 31 and 30),
** and 719468, the days from 0000-03-01 to 1970-01-01. */
static int64_t days_from_civil(int64_t y, int m, int d) {
  int64_t yy = m > 2 ? y : y - 1;
  int64_t mm = m > 2 ? m - 3 : m + 9;
  int64_t days = 365 * yy + floor_div(yy, 4) - floor_div(yy, 100) +
                 floor_div(yy, 400);
  return days + (153 * mm + 2) / 5 + (d - 1) - 719468;
}

/* The fraction in units of 10^-digits; 0 when a digit past them is not 0. */
static int frac_units(const when *w, int digits, int64_t *out) {
  int64_t v = 0;
  for (int k = 0; k < digits; k++)
    v = v * 10 + ((size_t)k < w->nfrac ? w->frac[k] - '0' : 0);
  for (size_t k = (size_t)digits; k < w->nfrac; k++)
    if (w->frac[k] != '0') return 0;
  *out = v;
  return 1;
}

/* A date alone (midnight), or a date, ' ' or 'T', a time and a zone. */
static int read_timestamp(scan *c, when *w) {
  w->hour = w->minute = w->second = 0;
  w->frac = NULL;
  w->nfrac = 0;
  w->zone = 0;
  if (!read_date(c, w)) return 0;
  if (c->i == c->n) return 1;
  int ch = scan_peek(c);
  if (ch != ' ' && ch != 'T' && ch != 't')
    return unexpected(c, "' ' or 'T' before the time, or the end");
  c->i++;
  return read_time(c, w) && read_zone(c, w) && at_end(c);
}

/* The timestamp's units since the epoch, in UTC, exactly (the offset may
** carry it across a day). */
static i128 timestamp_units(const when *w, int64_t per_second,
                            int64_t fraction) {
  i128 days = days_from_civil(w->year, w->month, w->day);
  int64_t secs = (int64_t)w->hour * 3600 + w->minute * 60 + w->second -
                 w->zone * 60;
  return (days * DAY_SECONDS + secs) * per_second + fraction;
}

int pq_date_from_text(const char *s, size_t n, int32_t *days,
                      const char *label, pq_error *err) {
  scan c = {s, n, 0, {0}};
  when w;
  if (!read_date(&c, &w) || !at_end(&c))
    return fail_text(err, PQ_MISUSE, label, s, n, "is not a date: %s", c.why);
  int64_t d = days_from_civil(w.year, w.month, w.day);
  if (d < INT32_MIN || d > INT32_MAX)
    return fail_text(err, PQ_RANGE, label, s, n,
                     "is out of range for DATE: 32-bit days since 1970-01-01");
  *days = (int32_t)d;
  return PQ_OK;
}

int pq_time_from_text(const char *s, size_t n, int unit, int64_t *out,
                      const char *label, pq_error *err) {
  if (check_unit(unit, label, err)) return PQ_MISUSE;
  scan c = {s, n, 0, {0}};
  when w;
  if (!read_time(&c, &w) || !at_end(&c))
    return fail_text(err, PQ_MISUSE, label, s, n, "is not a time: %s", c.why);
  int64_t f;
  if (!frac_units(&w, unit_digits[unit], &f))
    return fail_text(err, PQ_RANGE, label, s, n,
                     "does not fit TIME(%s): more than %d digits after the "
                     "point",
                     unit_names[unit], unit_digits[unit]);
  *out = ((int64_t)w.hour * 3600 + w.minute * 60 + w.second) *
             unit_per_second[unit] +
         f;
  return PQ_OK;
}

int pq_timestamp_from_text(const char *s, size_t n, int unit, int64_t *out,
                           const char *label, pq_error *err) {
  if (check_unit(unit, label, err)) return PQ_MISUSE;
  scan c = {s, n, 0, {0}};
  when w;
  if (!read_timestamp(&c, &w))
    return fail_text(err, PQ_MISUSE, label, s, n, "is not a timestamp: %s",
                     c.why);
  int64_t f;
  if (!frac_units(&w, unit_digits[unit], &f))
    return fail_text(err, PQ_RANGE, label, s, n,
                     "does not fit TIMESTAMP(%s): more than %d digits after "
                     "the point",
                     unit_names[unit], unit_digits[unit]);
  i128 v = timestamp_units(&w, unit_per_second[unit], f);
  if (v < INT64_MIN || v > INT64_MAX)
    return fail_text(err, PQ_RANGE, label, s, n,
                     "is out of range for TIMESTAMP(%s): 64-bit %s since "
                     "1970-01-01",
                     unit_names[unit],
                     unit == PQ_UNIT_MILLIS   ? "milliseconds"
                     : unit == PQ_UNIT_MICROS ? "microseconds"
                                              : "nanoseconds");
  *out = (int64_t)v;
  return PQ_OK;
}

int pq_int96_from_text(const char *s, size_t n, uint8_t out[12],
                       const char *label, pq_error *err) {
  scan c = {s, n, 0, {0}};
  when w;
  if (!read_timestamp(&c, &w))
    return fail_text(err, PQ_MISUSE, label, s, n, "is not a timestamp: %s",
                     c.why);
  int64_t f;
  if (!frac_units(&w, 9, &f))
    return fail_text(err, PQ_RANGE, label, s, n,
                     "does not fit INT96: more than 9 digits after the point");
  const i128 per_day = (i128)DAY_SECONDS * 1000000000;
  i128 v = timestamp_units(&w, 1000000000, f);
  i128 day = v / per_day;
  if (v % per_day < 0) day--;
  i128 julian = day + JULIAN_EPOCH;
  if (julian < INT32_MIN || julian > INT32_MAX)
    return fail_text(err, PQ_RANGE, label, s, n,
                     "is out of range for INT96: a 32-bit Julian day");
  pq_store64(out, (uint64_t)(int64_t)(v - day * per_day));
  pq_store32(out + 8, (uint32_t)(int32_t)julian);
  return PQ_OK;
}

/* ---- Decimals ----------------------------------------------------------------- */

static u128 pow10_u128(int k) {
  u128 p = 1;
  while (k-- > 0) p *= 10;
  return p;
}

/* The digits n bytes of two's complement hold: floor(log10(2^(8n-1) - 1)),
** up to 38. */
static int bytes_digits(int64_t n) {
  if (n <= 0) return 0;
  if (n >= 16) return 38;
  u128 limit = (u128)1 << (8 * n - 1);
  int p = 0;
  for (u128 t = 10; t <= limit; t *= 10) p++;
  return p;
}

int pq_decimal_check(const pq_decimal_spec *d, const char *label,
                     pq_error *err) {
  label = label_of(label);
  if (d->precision < 1 || d->precision > 38)
    return pq_fail(err, PQ_MISUSE, label,
                   "DECIMAL(%d,%d): the precision must be from 1 to 38",
                   d->precision, d->scale);
  if (d->scale < 0 || d->scale > d->precision)
    return pq_fail(err, PQ_MISUSE, label,
                   "DECIMAL(%d,%d): the scale must be from 0 to the precision",
                   d->precision, d->scale);
  int most;
  char type[40];
  snprintf(type, sizeof type, "%s", pq_type_name(d->type));
  switch (d->type) {
    case PQ_INT32: most = 9; break;
    case PQ_INT64: most = 18; break;
    case PQ_BYTE_ARRAY: most = 38; break;
    case PQ_FIXED_LEN_BYTE_ARRAY:
      most = bytes_digits(d->type_length);
      snprintf(type, sizeof type, "FIXED_LEN_BYTE_ARRAY(%d)",
               (int)d->type_length);
      break;
    default:
      return pq_fail(err, PQ_MISUSE, label,
                     "DECIMAL(%d,%d) cannot be stored as %s", d->precision,
                     d->scale, type);
  }
  if (d->precision > most)
    return pq_fail(err, PQ_MISUSE, label,
                   "DECIMAL(%d,%d) does not fit %s: at most %d digits",
                   d->precision, d->scale, type, most);
  return PQ_OK;
}

size_t pq_decimal_size(const pq_decimal_spec *d) {
  switch (d->type) {
    case PQ_INT32: return 4;
    case PQ_INT64: return 8;
    case PQ_FIXED_LEN_BYTE_ARRAY:
      return d->type_length > 0 ? (size_t)d->type_length : 0;
    default: return 16;
  }
}

/* The unscaled value, |v| < 10^38, laid out for the type. */
static void decimal_store(const pq_decimal_spec *d, int neg, u128 mag,
                          void *out, size_t *len) {
  u128 u = neg ? ~mag + 1 : mag; /* two's complement in 128 bits */
  uint8_t *o = out;
  size_t n;
  switch (d->type) {
    case PQ_INT32: {
      int32_t x = (int32_t)(uint32_t)u;
      memcpy(out, &x, 4);
      *len = 4;
      return;
    }
    case PQ_INT64: {
      int64_t x = (int64_t)(uint64_t)u;
      memcpy(out, &x, 8);
      *len = 8;
      return;
    }
    case PQ_FIXED_LEN_BYTE_ARRAY:
      n = (size_t)d->type_length;
      break;
    default: /* BYTE_ARRAY: the fewest bytes whose sign bit is the value's */
      n = 1;
      while (n < 16 && (neg ? mag > (u128)1 << (8 * n - 1)
                            : mag >= (u128)1 << (8 * n - 1)))
        n++;
  }
  for (size_t i = 0; i < n; i++) {
    size_t shift = 8 * (n - 1 - i);
    o[i] = shift >= 128 ? (neg ? 0xFF : 0) : (uint8_t)(u >> shift);
  }
  *len = n;
}

/* Digit j of the digits of a number's text, those before the point and
** those after it taken as one string. */
static char digit_at(const char *s, size_t int_start, size_t nint,
                     size_t frac_start, int64_t j) {
  return (int64_t)nint > j ? s[int_start + (size_t)j]
                           : s[frac_start + (size_t)j - nint];
}

int pq_decimal_from_text(const pq_decimal_spec *d, const char *s, size_t n,
                         void *out, size_t *len, const char *label,
                         pq_error *err) {
  int rc = pq_decimal_check(d, label, err);
  if (rc) return rc;
  scan c = {s, n, 0, {0}};
  int neg = 0;
  if (scan_peek(&c) == '-' || scan_peek(&c) == '+') {
    neg = scan_peek(&c) == '-';
    c.i++;
  }
  size_t int_start = c.i;
  while (c.i < n && is_digit(s[c.i])) c.i++;
  size_t nint = c.i - int_start, frac_start = c.i, nfrac = 0;
  if (scan_peek(&c) == '.') {
    frac_start = ++c.i;
    while (c.i < n && is_digit(s[c.i])) c.i++;
    nfrac = c.i - frac_start;
  }
  if (nint + nfrac == 0) {
    unexpected(&c, "a digit");
    return fail_text(err, PQ_MISUSE, label, s, n, "is not a number: %s",
                     c.why);
  }
  int64_t exp = 0;
  if (scan_peek(&c) == 'e' || scan_peek(&c) == 'E') {
    c.i++;
    int eneg = 0;
    if (scan_peek(&c) == '-' || scan_peek(&c) == '+') {
      eneg = scan_peek(&c) == '-';
      c.i++;
    }
    size_t start = c.i;
    while (c.i < n && is_digit(s[c.i])) {
      exp = exp * 10 + (s[c.i] - '0');
      if (exp > EXP_CAP) exp = EXP_CAP;
      c.i++;
    }
    if (c.i == start) {
      unexpected(&c, "the exponent's digits");
      return fail_text(err, PQ_MISUSE, label, s, n, "is not a number: %s",
                       c.why);
    }
    if (eneg) exp = -exp;
  }
  if (!at_end(&c))
    return fail_text(err, PQ_MISUSE, label, s, n, "is not a number: %s",
                     c.why);
  /* The value is D * 10^(exp - nfrac), D the digits; the unscaled value
  ** D * 10^(exp - nfrac + scale), where digit j weighs 10^w(j). */
  int64_t total = (int64_t)(nint + nfrac), first = 0, last = total - 1;
  while (first < total &&
         digit_at(s, int_start, nint, frac_start, first) == '0')
    first++;
  u128 mag = 0;
  if (first < total) {
    while (digit_at(s, int_start, nint, frac_start, last) == '0') last--;
    int64_t base = (int64_t)nint - 1 + exp + d->scale;
    int64_t w_first = base - first, w_last = base - last;
    if (w_last < 0)
      return fail_text(err, PQ_RANGE, label, s, n,
                       "does not fit DECIMAL(%d,%d): more than %d digits "
                       "after the point",
                       d->precision, d->scale, d->scale);
    if (w_first >= d->precision)
      return fail_text(err, PQ_RANGE, label, s, n,
                       "does not fit DECIMAL(%d,%d): more than %d digits "
                       "before the point",
                       d->precision, d->scale, d->precision - d->scale);
    for (int64_t j = first; j <= last; j++)
      mag = mag * 10 + (u128)(digit_at(s, int_start, nint, frac_start, j) -
                              '0');
    mag *= pow10_u128((int)w_last);
  }
  decimal_store(d, neg && mag != 0, mag, out, len);
  return PQ_OK;
}

int pq_decimal_from_int64(const pq_decimal_spec *d, int64_t v, void *out,
                          size_t *len, const char *label, pq_error *err) {
  int rc = pq_decimal_check(d, label, err);
  if (rc) return rc;
  uint64_t a = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  int digits = 0;
  for (uint64_t t = a; t; t /= 10) digits++;
  if (digits > d->precision - d->scale)
    return pq_fail(err, PQ_RANGE, label_of(label),
                   "%lld does not fit DECIMAL(%d,%d): more than %d digits "
                   "before the point",
                   (long long)v, d->precision, d->scale,
                   d->precision - d->scale);
  decimal_store(d, v < 0, (u128)a * pow10_u128(d->scale), out, len);
  return PQ_OK;
}

/* A 256-bit unsigned integer, least significant word first. */
typedef struct u256 {
  uint64_t w[4];
} u256;

static void u256_mul_small(u256 *a, uint64_t k) {
  u128 carry = 0;
  for (int i = 0; i < 4; i++) {
    u128 t = (u128)a->w[i] * k + carry;
    a->w[i] = (uint64_t)t;
    carry = t >> 64;
  }
}

static int u256_bit(const u256 *a, int64_t k) {
  if (k < 0 || k >= 256) return 0;
  return (int)(a->w[k / 64] >> (k % 64) & 1);
}

static int u256_bits(const u256 *a) {
  for (int i = 3; i >= 0; i--)
    if (a->w[i]) return 64 * i + pq_bit_width64(a->w[i]);
  return 0;
}

/* a >> k, for 0 <= k. */
static u256 u256_shr(const u256 *a, int64_t k) {
  u256 r = {{0, 0, 0, 0}};
  if (k >= 256) return r;
  int words = (int)(k / 64), bits = (int)(k % 64);
  for (int i = 0; i + words < 4; i++) {
    uint64_t lo = a->w[i + words];
    uint64_t hi = i + words + 1 < 4 ? a->w[i + words + 1] : 0;
    r.w[i] = bits ? lo >> bits | hi << (64 - bits) : lo;
  }
  return r;
}

/* The shortest text that reads back as v, for messages only. */
static void real_text(char *buf, size_t cap, double v) {
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(buf, cap, "%.*g", prec, v);
    if (strtod(buf, NULL) == v) return;
  }
}

int pq_decimal_from_double(const pq_decimal_spec *d, double v, void *out,
                           size_t *len, const char *label, pq_error *err) {
  int rc = pq_decimal_check(d, label, err);
  if (rc) return rc;
  if (isnan(v) || isinf(v))
    return pq_fail(err, PQ_RANGE, label_of(label),
                   "%s does not fit DECIMAL(%d,%d): %s",
                   isnan(v) ? "NaN" : v < 0 ? "-Inf" : "Inf", d->precision,
                   d->scale, isnan(v) ? "not a number" : "infinite");
  /* Rounding: a finite double is exactly m * 2^e, m an integer below 2^53.
  ** Its unscaled value m * 10^scale * 2^e is worked out in 256-bit
  ** integers (m * 10^38 < 2^180), so that nothing is rounded on the way:
  ** for e < 0 the low -e bits of m * 10^scale are shifted out, and when the
  ** first of them is set what is left is at least one half, so the
  ** magnitude goes up by one: half away from zero, from the exact value
  ** (0.125 is exact, 12.5 at scale 2 rounds to 13; 0.145 is a little below,
  ** 14.4999... rounds to 14).  Nothing here depends on the text of v. */
  int neg = signbit(v) != 0, e2;
  double fr = frexp(fabs(v), &e2); /* |v| = fr * 2^e2, fr in [0.5, 1) */
  uint64_t m = (uint64_t)ldexp(fr, 53);
  int64_t e = (int64_t)e2 - 53;
  u256 x = {{m, 0, 0, 0}};
  for (int k = 0; k < d->scale; k++) u256_mul_small(&x, 10);
  u128 mag = 0, limit = pow10_u128(d->precision);
  int fits;
  if (e >= 0) {
    fits = u256_bits(&x) + e <= 127;
    if (fits) mag = ((u128)x.w[1] << 64 | x.w[0]) << e;
  } else {
    u256 q = u256_shr(&x, -e);
    fits = (q.w[2] | q.w[3]) == 0;
    if (fits) {
      mag = (u128)q.w[1] << 64 | q.w[0];
      fits = mag < limit;
      mag += (u128)u256_bit(&x, -e - 1);
    }
  }
  if (!fits || mag >= limit) {
    char text[32];
    real_text(text, sizeof text, v);
    return pq_fail(err, PQ_RANGE, label_of(label),
                   "%s does not fit DECIMAL(%d,%d): more than %d digits "
                   "before the point",
                   text, d->precision, d->scale, d->precision - d->scale);
  }
  decimal_store(d, neg && mag != 0, mag, out, len);
  return PQ_OK;
}

/* ---- UUIDs ---------------------------------------------------------------------- */

static int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

int pq_uuid_from_text(const char *s, size_t n, uint8_t out[16],
                      const char *label, pq_error *err) {
  if (n != 36 && n != 32)
    return fail_text(err, PQ_MISUSE, label, s, n,
                     "is not a UUID: %zu characters, not 36 "
                     "(8-4-4-4-12 hex digits) or 32",
                     n);
  int dashes = n == 36;
  uint8_t b[16];
  size_t i = 0;
  for (int k = 0; k < 32; k++) {
    if (dashes && (i == 8 || i == 13 || i == 18 || i == 23)) {
      if (s[i] != '-')
        return fail_text(err, PQ_MISUSE, label, s, n,
                         "is not a UUID: no '-' at offset %zu", i);
      i++;
    }
    int h = hex_value(s[i]);
    if (h < 0)
      return fail_text(err, PQ_MISUSE, label, s, n,
                       "is not a UUID: not a hex digit at offset %zu", i);
    if (k % 2 == 0)
      b[k / 2] = (uint8_t)(h << 4);
    else
      b[k / 2] |= (uint8_t)h;
    i++;
  }
  memcpy(out, b, 16);
  return PQ_OK;
}
