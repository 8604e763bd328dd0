/*
** order.c -- texts compared as what they name.
**
**   instant: date and time texts as the instants they name, times of day
**            and durations as lengths of time
**     '2024-03-01 12:00:00.5' = '2024-03-01T12:00:00.500000Z'
**                             = '2024-03-01 14:00:00.5+02:00'
**     '-01:00:00' < '00:00:00' < '26:00:00' < '2 days'
**   decimal: decimal texts as the numbers they name
**     '9.5' < '10' = '10.000' = '1e1'
**
** Each is a total order (a collation must be one): texts that name
** nothing come after the others, in the order of their bytes.
**
** The instant forms are those SQLite's date functions read, widened to
** what the reader writes (doc/values.md): a date `[-]Y-MM-DD` (any number
** of year digits up to 11), then optionally `T` or spaces and a time
** `HH:MM[:SS[.fff...]]`, then optionally `Z` or an offset `+HH:MM`
** (`+HHMM`, `+HH`), which is subtracted (SQLite's reading); a duration,
** which is a time of day too: `[-]H...:MM[:SS[.fff]]` with any number of
** hours, after optional parts `N year(s)`, `N month(s)`, `N day(s)` (an
** INTERVAL as DuckDB writes it; a month is 30 days, as DuckDB orders
** intervals).  Fractions count to 10^-18 s.  Durations come before
** date-times.
**
** Also the exact sum of decimal texts (the SQL function decimal_sum), in
** base 10^9 limbs: any number of digits, no rounding.
*/
#include <stdio.h>

#include "util.h"

/* ---- Instants ------------------------------------------------------------ */

enum { ORD_DURATION = 1, ORD_DATETIME = 2, ORD_OTHER = 3 };

typedef struct ord_instant {
  int cls;
  int64_t sec;   /* seconds (UTC for a date-time), rounded down */
  uint64_t frac; /* and 10^-18 s past them */
} ord_instant;

typedef struct ord_in {
  const char *p, *end;
} ord_in;

static int ord_digit(const ord_in *s) {
  return s->p < s->end && *s->p >= '0' && *s->p <= '9';
}

/* From min to max digits; 0 when fewer than min. */
static int ord_digits(ord_in *s, int min, int max, int64_t *v) {
  int k = 0;
  *v = 0;
  while (k < max && ord_digit(s)) {
    *v = *v * 10 + (*s->p++ - '0');
    k++;
  }
  return k >= min && !(k == max && ord_digit(s));
}

/* Two digits, whatever follows. */
static int ord_two(ord_in *s, int64_t *v) {
  if (s->end - s->p < 2 || !ord_digit(s) || s->p[1] < '0' || s->p[1] > '9')
    return 0;
  *v = (s->p[0] - '0') * 10 + (s->p[1] - '0');
  s->p += 2;
  return 1;
}

static int ord_eat(ord_in *s, char c) {
  if (s->p < s->end && *s->p == c) {
    s->p++;
    return 1;
  }
  return 0;
}

static void ord_spaces(ord_in *s) {
  while (s->p < s->end && (*s->p == ' ' || *s->p == '\t')) s->p++;
}

/* A fraction's digits after the point, as 10^-18 s (later digits cut). */
static int ord_fraction(ord_in *s, uint64_t *frac) {
  uint64_t f = 0;
  int k = 0;
  if (!ord_digit(s)) return 0;
  for (; ord_digit(s); s->p++, k++)
    if (k < 18) f = f * 10 + (uint64_t)(*s->p - '0');
  for (; k < 18; k++) f *= 10;
  *frac = f;
  return 1;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (d past the month's
** end counts on, as SQLite's functions do). */
static __int128 ord_days(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return (__int128)era * 146097 + doe - 719468;
}

/* HH:MM[:SS[.f]] with hours of 1 to `hmax` digits, as seconds. */
static int ord_clock(ord_in *s, int hmax, __int128 *sec, uint64_t *frac) {
  int64_t h, m, x = 0;
  *frac = 0;
  if (!ord_digits(s, hmax > 2 ? 1 : 2, hmax, &h) || !ord_eat(s, ':') ||
      !ord_digits(s, 2, 2, &m) || m > 59)
    return 0;
  if (ord_eat(s, ':')) {
    if (!ord_digits(s, 2, 2, &x) || x > 59) return 0;
    if (ord_eat(s, '.') && !ord_fraction(s, frac)) return 0;
  }
  *sec = (__int128)h * 3600 + m * 60 + x;
  return 1;
}

static int ord_word(ord_in *s, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(s->end - s->p) < n) return 0;
  for (size_t i = 0; i < n; i++)
    if ((s->p[i] | 0x20) != w[i]) return 0;
  s->p += n;
  return 1;
}

static int ord_datetime(ord_in *s, __int128 *sec, uint64_t *frac) {
  int neg = ord_eat(s, '-');
  if (!neg) ord_eat(s, '+');
  int64_t y, mo, d;
  if (!ord_digits(s, 1, 11, &y) || !ord_eat(s, '-') ||
      !ord_digits(s, 2, 2, &mo) || !ord_eat(s, '-') ||
      !ord_digits(s, 2, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
    return 0;
  __int128 t = ord_days(neg ? -y : y, (int)mo, (int)d) * 86400;
  *frac = 0;
  const char *mark = s->p;
  int sep = ord_eat(s, 'T') || ord_eat(s, 't');
  if (!sep) ord_spaces(s);
  if (ord_digit(s)) {
    __int128 c;
    if (!ord_clock(s, 2, &c, frac) || c > 24 * 3600) return 0;
    t += c;
    ord_spaces(s);
    if (ord_eat(s, 'Z') || ord_eat(s, 'z')) {
    } else if (s->p < s->end && (*s->p == '+' || *s->p == '-')) {
      int sign = *s->p++ == '-' ? -1 : 1;
      int64_t oh, om = 0;
      if (!ord_two(s, &oh)) return 0;
      if (ord_eat(s, ':') || ord_digit(s)) { /* +HH:MM, +HHMM */
        if (!ord_two(s, &om)) return 0;
      }
      if (oh > 23 || om > 59) return 0;
      t -= sign * (oh * 3600 + om * 60);
    }
  } else if (sep) {
    return 0;
  } else {
    s->p = mark;
  }
  *sec = t;
  return 1;
}

static int ord_duration(ord_in *s, __int128 *sec, uint64_t *frac) {
  static const struct {
    const char *one;
    int64_t days;
  } parts[] = {{"year", 360}, {"mon", 30}, {"day", 1}};
  __int128 t = 0;
  int any = 0;
  *frac = 0;
  for (size_t i = 0; i < 3; i++) {
    const char *mark = s->p;
    int neg = ord_eat(s, '-');
    int64_t n;
    if (!ord_digits(s, 1, 12, &n)) {
      s->p = mark;
      continue;
    }
    ord_spaces(s);
    if (!ord_word(s, parts[i].one)) {
      s->p = mark;
      continue;
    }
    if (i == 1) ord_word(s, "th");
    ord_eat(s, 's');
    ord_spaces(s);
    t += (__int128)(neg ? -n : n) * parts[i].days * 86400;
    any = 1;
  }
  if (s->p < s->end) {
    int neg = ord_eat(s, '-');
    __int128 c;
    uint64_t f;
    if (!ord_clock(s, 18, &c, &f)) return 0;
    if (neg && (c || f)) { /* -(c + f) */
      c = -c - (f != 0);
      f = f ? 1000000000000000000ull - f : 0;
    }
    t += c;
    *frac = f;
    any = 1;
  }
  *sec = t;
  return any;
}

static void ord_instant_of(const char *p, size_t n, ord_instant *out) {
  ord_in s = {p, p + n};
  __int128 sec;
  uint64_t frac;
  out->cls = ORD_OTHER;
  ord_spaces(&s);
  ord_in at = s;
  int cls = ORD_DATETIME;
  if (!ord_datetime(&s, &sec, &frac)) {
    s = at;
    cls = ORD_DURATION;
    if (!ord_duration(&s, &sec, &frac)) return;
  }
  ord_spaces(&s);
  if (s.p != s.end || sec > INT64_MAX || sec < INT64_MIN) return;
  out->cls = cls;
  out->sec = (int64_t)sec;
  out->frac = frac;
}

static int ord_bytes(const char *a, size_t na, const char *b, size_t nb) {
  size_t n = na < nb ? na : nb;
  int c = n ? memcmp(a, b, n) : 0;
  if (c) return c < 0 ? -1 : 1;
  return na < nb ? -1 : na > nb;
}

/* Nonzero unless 8 bytes of text (the first in the low byte) fit t: a
** digit where t has '0' and m 0xFF, t's own byte where m has 0.  The
** checks of a text's words are or-ed together and tested once. */
static inline uint64_t ord_misfit(uint64_t x, uint64_t t, uint64_t m) {
  uint64_t y = x ^ t; /* a digit's byte: 0..9; a separator's: 0 */
  /* y + 0x76 has its high bit set from 10 on, and y itself from 0x80 on;
  ** a byte's carry into the next comes only from a byte already failed */
  return (((y + (0x7676767676767676ull & m)) | y) & 0x8080808080808080ull & m) |
         (y & ~m);
}

/* The plain form of a date-time, the one the reader writes:
** "YYYY-MM-DD[ HH:MM:SS[.f...]]", every field in its range, the day within
** its month.  Two such texts of one length order as their bytes do (the
** same fields at the same places, the fractions of as many digits), so the
** common comparison needs no parsing.  Its checks come in three parts:
** the shape (digits and separators where they belong), the date's fields
** and the time's.
**
** The shape is checked from byte `from` on: the bytes before it are known
** to be a plain stamp's (of the same length), and words that end before it
** are skipped. */
static int ord_stamp_shape(const uint8_t *u, size_t n, size_t from) {
  if (n != 10 && (n < 19 || n == 20)) return 0;
  uint64_t bad = 0;
  /* "DDDD-DD-" */
  if (from < 8)
    bad = ord_misfit(pq_load64(u), 0x2D30302D30303030ull,
                     0x00FFFF00FFFFFFFFull);
  if (n == 10)
    return !(bad |
             ord_misfit((uint64_t)u[8] | (uint64_t)u[9] << 8, 0x3030, 0xFFFF));
  /* "DD HH:MM", "HH:MM:SS" */
  if (from < 16)
    bad |= ord_misfit(pq_load64(u + 8), 0x30303A3030203030ull,
                      0xFFFF00FFFF00FFFFull);
  if (from < 19)
    bad |= ord_misfit(pq_load64(u + 11), 0x30303A30303A3030ull,
                      0xFFFF00FFFF00FFFFull);
  if (n == 19) return !bad;
  if (n <= 27) { /* ".f...", ending the word that ends the text: bytes of
                 ** it before the '.' are checked above, and fit anything */
    unsigned at = 8 * (unsigned)(27 - n); /* the '.' in that word */
    uint64_t m = ~0ull << at << 8;
    return !(bad | (ord_misfit(pq_load64(u + n - 8),
                               (0x3030303030303030ull & m) | 0x2Eull << at, m) &
                    ~0ull << at));
  }
  if (bad || u[19] != '.') return 0;
  size_t i = 20; /* longer fractions: 8 digits at a time, then the rest */
  for (; i + 8 <= n; i += 8)
    if (i + 8 > from &&
        ord_misfit(pq_load64(u + i), 0x3030303030303030ull, ~0ull))
      return 0;
  if (i == n) return 1;
  uint64_t last = ~0ull << 8 * (8 - (n - i)); /* the bytes past i */
  return !(ord_misfit(pq_load64(u + n - 8), 0x3030303030303030ull, ~0ull) &
           last);
}

#define ORD_TWO(u, i) (((u)[i] - '0') * 10 + ((u)[(i) + 1] - '0'))

static int ord_stamp_date(const uint8_t *u) {
  static const uint8_t month_days[] = {31, 29, 31, 30, 31, 30,
                                       31, 31, 30, 31, 30, 31};
  int m = ORD_TWO(u, 5), d = ORD_TWO(u, 8);
  if (m < 1 || m > 12 || d < 1 || d > month_days[m - 1]) return 0;
  if (m == 2 && d == 29) {
    int y = ORD_TWO(u, 0) * 100 + ORD_TWO(u, 2);
    if (y % 4 || (y % 100 == 0 && y % 400)) return 0;
  }
  return 1;
}

static int ord_stamp_time(const uint8_t *u) {
  return ORD_TWO(u, 11) <= 23 && ORD_TWO(u, 14) <= 59 && ORD_TWO(u, 17) <= 59;
}

#undef ORD_TWO

static int ord_plain_stamp(const char *p, size_t n) {
  const uint8_t *u = (const uint8_t *)p;
  return ord_stamp_shape(u, n, 0) && ord_stamp_date(u) &&
         (n == 10 || ord_stamp_time(u));
}

/* ord_plain_stamp(b, n), where b's first `from` bytes (from < n) are those
** of a plain stamp of length n: only what changes from there on is checked.
** (In a max() or a sort the two texts compared mostly share their date,
** and often their time.) */
static int ord_plain_stamp_from(const char *b, size_t n, size_t from) {
  const uint8_t *u = (const uint8_t *)b;
  return ord_stamp_shape(u, n, from) && (from >= 10 || ord_stamp_date(u)) &&
         (n == 10 || from >= 19 || ord_stamp_time(u));
}

/* The first byte where the n bytes at a and b differ; n if none.  A word
** at a time (the lowest byte first), the last one ending at the end. */
static size_t ord_first_diff(const char *a, const char *b, size_t n) {
  const uint8_t *u = (const uint8_t *)a, *v = (const uint8_t *)b;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x = pq_load64(u + i) ^ pq_load64(v + i);
    if (x) return i + (size_t)__builtin_ctzll(x) / 8;
  }
  if (i == n) return n;
  if (n >= 8) { /* the bytes before i are the same */
    uint64_t x = pq_load64(u + n - 8) ^ pq_load64(v + n - 8);
    return x ? n - 8 + (size_t)__builtin_ctzll(x) / 8 : n;
  }
  while (i < n && u[i] == v[i]) i++;
  return i;
}

/* Whether the n bytes at a (8 <= n <= 32) are the text of the memory's
** slot k: four words at most, the last one ending at the text's end. */
static inline int ord_memo_holds(const pq_instant_memo *m, int k,
                                 const char *a, size_t n) {
  if (m->n[k] != n) return 0;
  const uint8_t *u = (const uint8_t *)m->text[k], *v = (const uint8_t *)a;
  uint64_t d = (pq_load64(u) ^ pq_load64(v)) |
               (pq_load64(u + n - 8) ^ pq_load64(v + n - 8));
  if (n > 16) d |= pq_load64(u + 8) ^ pq_load64(v + 8);
  if (n > 24) d |= pq_load64(u + 16) ^ pq_load64(v + 16);
  return d == 0;
}

/* Keeps a plain stamp (10 <= n) in slot k, when it fits: the words of
** ord_memo_holds. */
static inline void ord_memo_keep(pq_instant_memo *m, int k, const char *a,
                                 size_t n) {
  if (n > sizeof m->text[k]) return;
  uint8_t *u = (uint8_t *)m->text[k];
  const uint8_t *v = (const uint8_t *)a;
  pq_store64(u, pq_load64(v));
  if (n > 16) pq_store64(u + 8, pq_load64(v + 8));
  if (n > 24) pq_store64(u + 16, pq_load64(v + 16));
  pq_store64(u + n - 8, pq_load64(v + n - 8));
  m->n[k] = n;
}

int pq_instant_compare_memo(pq_instant_memo *m, const char *a, size_t na,
                            const char *b, size_t nb) {
  if (na == nb) {
    /* The same bytes name the same instant, or the same nothing. */
    size_t k = ord_first_diff(a, b, na);
    if (k == na) return 0;
    int c = (uint8_t)a[k] < (uint8_t)b[k] ? -1 : 1;
    int plain;
    if (m && (ord_memo_holds(m, 1, a, na) || ord_memo_holds(m, 0, a, na))) {
      plain = 1;
    } else {
      plain = ord_plain_stamp(a, na);
      if (plain && m) ord_memo_keep(m, 0, a, na);
    }
    if (plain && ord_plain_stamp_from(b, nb, k)) {
      if (m) ord_memo_keep(m, 1, b, nb);
      return c;
    }
  }
  ord_instant x, y;
  ord_instant_of(a, na, &x);
  ord_instant_of(b, nb, &y);
  if (x.cls != y.cls) return x.cls < y.cls ? -1 : 1;
  if (x.cls == ORD_OTHER) return ord_bytes(a, na, b, nb);
  if (x.sec != y.sec) return x.sec < y.sec ? -1 : 1;
  return x.frac < y.frac ? -1 : x.frac > y.frac;
}

int pq_instant_compare(const char *a, size_t na, const char *b, size_t nb) {
  return pq_instant_compare_memo(NULL, a, na, b, nb);
}

int pq_instant_valid(const char *p, size_t n) {
  ord_instant x;
  ord_instant_of(p, n, &x);
  return x.cls != ORD_OTHER;
}

/* ---- Decimals ------------------------------------------------------------ */

/* A decimal text: its sign, significant digits (from d0 to d1, a '.'
** among them skipped) and the power of ten of the first. */
typedef struct ord_dec {
  int ok, neg, zero;
  const char *d0, *d1;
  int64_t exp;     /* value = 0.d0... * 10^exp */
  int64_t frac;    /* digits after the point as written, less the exponent */
} ord_dec;

static void ord_dec_of(const char *p, size_t n, ord_dec *o) {
  ord_in s = {p, p + n};
  memset(o, 0, sizeof *o);
  ord_spaces(&s);
  if (ord_eat(&s, '-')) o->neg = 1;
  else ord_eat(&s, '+');
  const char *start = s.p, *point = NULL;
  int64_t digits = 0;
  while (s.p < s.end) {
    if (ord_digit(&s)) {
      digits++;
    } else if (*s.p == '.' && !point) {
      point = s.p;
    } else {
      break;
    }
    s.p++;
  }
  if (!digits) return;
  const char *stop = s.p;
  int64_t e = 0;
  if (s.p < s.end && (*s.p == 'e' || *s.p == 'E')) {
    s.p++;
    int eneg = ord_eat(&s, '-');
    if (!eneg) ord_eat(&s, '+');
    if (!ord_digits(&s, 1, 9, &e)) return;
    if (eneg) e = -e;
  }
  ord_spaces(&s);
  if (s.p != s.end) return;
  o->ok = 1;
  if (!point) point = stop;
  o->frac = (int64_t)(stop - point) - (stop > point) - e;
  /* The significant digits, and the power of the first. */
  const char *a = start, *b = stop;
  while (a < b && (*a == '0' || *a == '.')) a++;
  while (b > a && (b[-1] == '0' || b[-1] == '.')) b--;
  if (a == b) {
    o->zero = 1;
    return;
  }
  o->d0 = a;
  o->d1 = b;
  /* digits between a and the point: positive when a is before it */
  int64_t before = a < point ? (int64_t)(point - a) : -(int64_t)(a - point - 1);
  o->exp = before + e;
}

int pq_decimal_valid(const char *p, size_t n) {
  ord_dec d;
  ord_dec_of(p, n, &d);
  return d.ok;
}

/* |x| against |y|, both non-zero. */
static int ord_dec_mag(const ord_dec *x, const ord_dec *y) {
  if (x->exp != y->exp) return x->exp < y->exp ? -1 : 1;
  const char *a = x->d0, *b = y->d0;
  for (;;) {
    if (a < x->d1 && *a == '.') a++;
    if (b < y->d1 && *b == '.') b++;
    if (a == x->d1 || b == y->d1) return (a != x->d1) - (b != y->d1);
    if (*a != *b) return *a < *b ? -1 : 1;
    a++;
    b++;
  }
}

int pq_decimal_compare(const char *a, size_t na, const char *b, size_t nb) {
  ord_dec x, y;
  ord_dec_of(a, na, &x);
  ord_dec_of(b, nb, &y);
  if (!x.ok || !y.ok) return x.ok != y.ok ? (x.ok ? -1 : 1) : ord_bytes(a, na, b, nb);
  int sx = x.zero ? 0 : x.neg ? -1 : 1, sy = y.zero ? 0 : y.neg ? -1 : 1;
  if (sx != sy) return sx < sy ? -1 : 1;
  if (!sx) return 0;
  int m = ord_dec_mag(&x, &y);
  return sx < 0 ? -m : m;
}

/* ---- Exact sums -------------------------------------------------------- */

#define ORD_BASE 1000000000u
#define ORD_MAX_DIGITS 100000 /* of a sum or an addend, either side of '.' */

struct pq_decimal_sum {
  int neg;
  int64_t scale; /* digits after the point */
  size_t n, cap; /* limbs, least significant first, each < 10^9 */
  uint32_t *limb;
};

pq_decimal_sum *pq_decimal_sum_new(void) {
  return pq_calloc(1, sizeof(pq_decimal_sum));
}

void pq_decimal_sum_free(pq_decimal_sum *s) {
  if (!s) return;
  pq_free(s->limb);
  pq_free(s);
}

static int ord_reserve(pq_decimal_sum *s, size_t n) {
  if (n <= s->cap) return PQ_OK;
  size_t cap = s->cap ? s->cap * 2 : 8;
  if (cap < n) cap = n;
  uint32_t *l = pq_realloc(s->limb, cap * sizeof *l);
  if (!l) return PQ_NOMEM;
  s->limb = l;
  s->cap = cap;
  return PQ_OK;
}

static void ord_trim(pq_decimal_sum *s) {
  while (s->n && !s->limb[s->n - 1]) s->n--;
  if (!s->n) s->neg = 0;
}

/* s *= 10^k, k >= 0: whole limbs of zeros, then a multiply. */
static int ord_shift(pq_decimal_sum *s, int64_t k) {
  if (k <= 0 || !s->n) return PQ_OK;
  size_t limbs = (size_t)(k / 9);
  int rest = (int)(k % 9);
  if (ord_reserve(s, s->n + limbs + 1)) return PQ_NOMEM;
  if (limbs) {
    memmove(s->limb + limbs, s->limb, s->n * sizeof *s->limb);
    memset(s->limb, 0, limbs * sizeof *s->limb);
    s->n += limbs;
  }
  if (rest) {
    uint32_t mul = 1;
    for (int i = 0; i < rest; i++) mul *= 10;
    uint64_t carry = 0;
    for (size_t i = limbs; i < s->n; i++) {
      uint64_t v = (uint64_t)s->limb[i] * mul + carry;
      s->limb[i] = (uint32_t)(v % ORD_BASE);
      carry = v / ORD_BASE;
    }
    if (carry) s->limb[s->n++] = (uint32_t)carry;
  }
  return PQ_OK;
}

/* |a| against |b|. */
static int ord_mag_cmp(const pq_decimal_sum *a, const pq_decimal_sum *b) {
  if (a->n != b->n) return a->n < b->n ? -1 : 1;
  for (size_t i = a->n; i-- > 0;)
    if (a->limb[i] != b->limb[i]) return a->limb[i] < b->limb[i] ? -1 : 1;
  return 0;
}

/* s += x, both at the same scale; x is left as it was or emptied. */
static int ord_add(pq_decimal_sum *s, pq_decimal_sum *x) {
  if (s->neg == x->neg || !s->n || !x->n) {
    if (!s->n) s->neg = x->neg;
    size_t n = s->n > x->n ? s->n : x->n;
    if (ord_reserve(s, n + 1)) return PQ_NOMEM;
    uint32_t carry = 0;
    for (size_t i = 0; i < n; i++) {
      uint32_t v = (i < s->n ? s->limb[i] : 0) + (i < x->n ? x->limb[i] : 0) +
                   carry;
      carry = v >= ORD_BASE;
      s->limb[i] = carry ? v - ORD_BASE : v;
    }
    s->n = n;
    if (carry) s->limb[s->n++] = 1;
    return PQ_OK;
  }
  /* Signs differ: the smaller magnitude from the larger. */
  const pq_decimal_sum *big = s, *small = x;
  int c = ord_mag_cmp(s, x);
  if (c < 0) {
    big = x;
    small = s;
  }
  if (ord_reserve(s, big->n)) return PQ_NOMEM;
  int neg = big->neg;
  int64_t borrow = 0;
  for (size_t i = 0; i < big->n; i++) {
    int64_t v = (int64_t)big->limb[i] - (i < small->n ? small->limb[i] : 0) -
                borrow;
    borrow = v < 0;
    s->limb[i] = (uint32_t)(v < 0 ? v + ORD_BASE : v);
  }
  s->n = big->n;
  s->neg = neg;
  ord_trim(s);
  return PQ_OK;
}

int pq_decimal_sum_add(pq_decimal_sum *s, const char *p, size_t n) {
  ord_dec d;
  ord_dec_of(p, n, &d);
  if (!d.ok) return PQ_MISUSE;
  if (d.zero) return PQ_OK;
  /* The integer of its significant digits, and its scale. */
  int64_t count = 0;
  for (const char *q = d.d0; q < d.d1; q++) count += *q != '.';
  int64_t scale = count - d.exp; /* value = digits * 10^-scale */
  if (d.exp > ORD_MAX_DIGITS || scale > ORD_MAX_DIGITS ||
      count > ORD_MAX_DIGITS)
    return PQ_TOOBIG;
  pq_decimal_sum x = {d.neg, 0, 0, 0, NULL};
  if (ord_reserve(&x, (size_t)(count / 9 + 1))) return PQ_NOMEM;
  /* limbs from the last digit back */
  uint32_t v = 0, mul = 1;
  for (const char *q = d.d1; q-- > d.d0;) {
    if (*q == '.') continue;
    v += (uint32_t)(*q - '0') * mul;
    mul *= 10;
    if (mul == ORD_BASE) {
      x.limb[x.n++] = v;
      v = 0;
      mul = 1;
    }
  }
  if (mul > 1) x.limb[x.n++] = v;
  int rc = PQ_OK;
  /* at the larger of the two scales, and never below the written one */
  int64_t want = scale > s->scale ? scale : s->scale;
  if (d.frac > want && d.frac <= ORD_MAX_DIGITS) want = d.frac;
  if (want < 0) want = 0;
  rc = ord_shift(&x, want - scale);
  if (!rc) rc = ord_shift(s, want - s->scale);
  if (!rc) {
    s->scale = want;
    rc = ord_add(s, &x);
  }
  pq_free(x.limb);
  return rc;
}

char *pq_decimal_sum_text(const pq_decimal_sum *s, size_t *len) {
  size_t digits = s->n ? s->n * 9 : 1;
  size_t cap = digits + (size_t)s->scale + 4;
  char *t = pq_malloc(cap), *body = pq_malloc(digits + 1);
  if (!t || !body) {
    pq_free(t);
    pq_free(body);
    return NULL;
  }
  size_t k = 0;
  if (!s->n) {
    body[k++] = '0';
  } else {
    k = (size_t)snprintf(body, digits + 1, "%u", s->limb[s->n - 1]);
    for (size_t i = s->n - 1; i-- > 0;)
      k += (size_t)snprintf(body + k, digits + 1 - k, "%09u", s->limb[i]);
  }
  size_t o = 0, sc = (size_t)s->scale;
  if (s->neg) t[o++] = '-';
  if (k <= sc) { /* 0.00ddd */
    t[o++] = '0';
    t[o++] = '.';
    for (size_t i = k; i < sc; i++) t[o++] = '0';
    memcpy(t + o, body, k);
    o += k;
  } else {
    memcpy(t + o, body, k - sc);
    o += k - sc;
    if (sc) {
      t[o++] = '.';
      memcpy(t + o, body + k - sc, sc);
      o += sc;
    }
  }
  t[o] = 0;
  pq_free(body);
  *len = o;
  return t;
}
