/*
** unit_values.c -- SQL values as Parquet values (src/writer/values.c),
** against the text the reader makes of stored values (src/reader/cell.c).
**
**   1. dates: every day of the years 0000 to 9999 and random days of the
**      whole int32 range, as the reader's cells and back; examples, leap
**      days, the ends of the range, text that is not a date
**   2. times of day in each unit, random and at the ends of the day; a
**      fraction finer than the unit, 24:00, 60 seconds, bad text
**   3. timestamps in each unit: random int64 values over the whole range
**      (before 1970 too) and over the years 0001 to 9999; the spec's
**      examples, offsets, the ends of int64 in NANOS and MILLIS
**   4. INT96: random nanoseconds of the day and Julian days
**   5. decimals of every precision 1..38 and scale 0..precision, in INT32,
**      INT64, every FIXED_LEN_BYTE_ARRAY length that holds the precision
**      (and one longer than 16 bytes) and BYTE_ARRAY: the reader's cell
**      (REAL up to 15 digits, TEXT beyond) and its text, back bit for
**      bit; text with exponents, integers, reals rounded half away from
**      zero; the limits of precision and scale, the checks of the type
**   6. UUIDs: random ones, both cases, with and without dashes
**   7. the texts made by hand (dates, times, timestamps with the date's
**      text kept from one value to the next) against the printf forms they
**      stand for; decimals of every byte length and scale against their
**      digits found the slow way (a byte-wise division by ten); and the
**      byte comparison of the instant collation's common form against its
**      parse (the same texts after a space)
**
** Every error is checked by its code and its whole message.  Prints a
** line per failure starting with "!" and ends with "N passed, N failed".
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader/reader.h"
#include "parquet.h"

#define CHECK_SEED 0x7a1e5
#include "check.h"

typedef unsigned __int128 u128;

#define LABEL "c"

/* ---- Helpers ---------------------------------------------------------------- */

static pq_schema_element elem(pq_type t, int32_t type_length, int logical) {
  pq_schema_element e;
  memset(&e, 0, sizeof e);
  e.type = t;
  e.has_type = 1;
  e.type_length = type_length;
  e.repetition = 1;
  e.num_children = -1;
  e.converted_type = -1;
  e.scale = e.precision = e.field_id = -1;
  e.logical_type = logical;
  return e;
}

/* The reader's cell of one stored value, its text terminated in buf. */
static pq_cell cell_of(const pq_schema_element *e, const void *v, char *buf) {
  char scratch[PQ_CELL_SCRATCH];
  pq_cell c;
  pq_cell_from_value(e, 0, v, scratch, &c);
  buf[0] = 0;
  if (c.kind == PQ_CELL_TEXT) {
    memcpy(buf, c.p, c.n);
    buf[c.n] = 0;
    c.p = (const uint8_t *)buf;
  }
  return c;
}

/* A call's code and whole message. */
static int failed_with(int rc, const pq_error *err, int code,
                       const char *msg) {
  return rc == code && strcmp(err->msg, msg) == 0;
}

/* The error of the last call that CHECK_FAIL made. */
static pq_error ERR;

#define CHECK_FAIL(call, want_code, want_msg)                             \
  do {                                                                    \
    memset(&ERR, 0, sizeof ERR);                                          \
    int rc_ = (call);                                                     \
    CHECK(failed_with(rc_, &ERR, want_code, want_msg),                    \
          "%s: %d '%s', expected %d '%s'", #call, rc_, rc_ ? ERR.msg : "", \
          want_code, want_msg);                                           \
  } while (0)

static int date(const char *s, int32_t *d) {
  pq_error err;
  return pq_date_from_text(s, strlen(s), d, LABEL, &err);
}
static int time_of(const char *s, int unit, int64_t *v) {
  pq_error err;
  return pq_time_from_text(s, strlen(s), unit, v, LABEL, &err);
}
static int stamp(const char *s, int unit, int64_t *v) {
  pq_error err;
  return pq_timestamp_from_text(s, strlen(s), unit, v, LABEL, &err);
}

static const int64_t per_second[] = {0, 1000, 1000000, 1000000000};
static const char *const unit_name[] = {"", "MILLIS", "MICROS", "NANOS"};

/* A random integer in [lo, hi]. */
static int64_t between(int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo;
  uint64_t r = span == UINT64_MAX ? rnd() : rnd() % (span + 1);
  return (int64_t)((uint64_t)lo + r);
}

/* ---- 1. Dates ------------------------------------------------------------------ */

static void test_dates(void) {
  pq_schema_element e = elem(PQ_INT32, 0, PQ_LOGICAL_DATE);
  char buf[80];
  pq_error err;
  /* Every day of the years SQLite's date() writes: 0000-01-01 is day
  ** -719528, 9999-12-31 day 2932896. */
  int64_t bad = 0, first_bad = 0;
  for (int32_t d = -719528; d <= 2932896; d++) {
    cell_of(&e, &d, buf);
    int32_t back = 0;
    int rc = pq_date_from_text(buf, strlen(buf), &back, LABEL, &err);
    if (rc || back != d) {
      if (!bad++) first_bad = d;
    }
  }
  CHECK(bad == 0, "%lld days of 0000..9999 do not read back, first %lld",
        (long long)bad, (long long)first_bad);
  /* Random days of the whole range, and its ends. */
  bad = 0;
  for (int i = 0; i < 200000; i++) {
    int32_t d = i == 0 ? INT32_MIN : i == 1 ? INT32_MAX : (int32_t)rnd();
    cell_of(&e, &d, buf);
    int32_t back = 0;
    int rc = pq_date_from_text(buf, strlen(buf), &back, LABEL, &err);
    if (rc || back != d) {
      if (!bad++) first_bad = d;
    }
  }
  CHECK(bad == 0, "%lld random int32 days do not read back, first %lld",
        (long long)bad, (long long)first_bad);
  CHECK(pq_text_date(buf, sizeof buf, INT32_MIN) > 0 &&
            strcmp(buf, "-5877641-06-23") == 0,
        "INT32_MIN is %s", buf);

  static const struct {
    const char *s;
    int32_t days;
  } ok[] = {
      {"1970-01-01", 0},       {"1970-01-02", 1},
      {"1969-12-31", -1},      {"2024-03-01", 19783},
      {"2000-02-29", 11016},   {"2024-02-29", 19782},
      {"1600-02-29", -135081}, {"0001-01-01", -719162},
      {"9999-12-31", 2932896}, {"0000-01-01", -719528},
      {"0000-02-29", -719469}, {"+2024-03-01", 19783},
      {"-001-12-31", -719529}, {"-0001-12-31", -719529},
      {"-004-02-29", -720930}, {"10000-01-01", 2932897},
      {"5881580-07-11", INT32_MAX}, {"-5877641-06-23", INT32_MIN},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    int32_t d = 12345;
    int rc = date(ok[i].s, &d);
    CHECK(rc == PQ_OK && d == ok[i].days, "%s: %d %ld, expected %ld", ok[i].s,
          rc, (long)d, (long)ok[i].days);
  }

  static const struct {
    const char *s;
    int code;
    const char *msg;
  } no[] = {
      {"2024-13-01", PQ_MISUSE, "c: '2024-13-01' is not a date: month 13"},
      {"2024-00-10", PQ_MISUSE, "c: '2024-00-10' is not a date: month 0"},
      {"2024-01-00", PQ_MISUSE, "c: '2024-01-00' is not a date: day 0"},
      {"2023-02-29", PQ_MISUSE,
       "c: '2023-02-29' is not a date: day 29 of a month of 28 days"},
      {"1900-02-29", PQ_MISUSE,
       "c: '1900-02-29' is not a date: day 29 of a month of 28 days"},
      {"2024-02-30", PQ_MISUSE,
       "c: '2024-02-30' is not a date: day 30 of a month of 29 days"},
      {"2024-04-31", PQ_MISUSE,
       "c: '2024-04-31' is not a date: day 31 of a month of 30 days"},
      {"24-01-01", PQ_MISUSE,
       "c: '24-01-01' is not a date: '-' at offset 2, expected a year of "
       "four digits"},
      {"2024-1-01", PQ_MISUSE,
       "c: '2024-1-01' is not a date: '-' at offset 6, expected the month's "
       "two digits"},
      {"2024/01/01", PQ_MISUSE,
       "c: '2024/01/01' is not a date: '/' at offset 4, expected '-' after "
       "the year"},
      {"2024-01-01 ", PQ_MISUSE,
       "c: '2024-01-01 ' is not a date: ' ' at offset 10, expected the end"},
      {"2024-01", PQ_MISUSE,
       "c: '2024-01' is not a date: it ends where '-' after the month "
       "should be"},
      {"", PQ_MISUSE,
       "c: '' is not a date: it ends where a year of four digits should be"},
      {"-", PQ_MISUSE,
       "c: '-' is not a date: it ends where the year's digits should be"},
      {"2024-03-01 00:00:00", PQ_MISUSE,
       "c: '2024-03-01 00:00:00' is not a date: ' ' at offset 10, expected "
       "the end"},
      {"5881580-07-12", PQ_RANGE,
       "c: '5881580-07-12' is out of range for DATE: 32-bit days since "
       "1970-01-01"},
      {"-5877641-06-22", PQ_RANGE,
       "c: '-5877641-06-22' is out of range for DATE: 32-bit days since "
       "1970-01-01"},
      {"99999999999999999999-01-01", PQ_RANGE,
       "c: '99999999999999999999-01-01' is out of range for DATE: 32-bit "
       "days since 1970-01-01"},
  };
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    int32_t d = 777;
    CHECK_FAIL(pq_date_from_text(no[i].s, strlen(no[i].s), &d, LABEL, &ERR),
               no[i].code, no[i].msg);
    CHECK(d == 777, "%s: the output was written", no[i].s);
  }
  /* A NUL byte inside the text, and the default label. */
  int32_t d;
  CHECK_FAIL(pq_date_from_text("2024-01-01\0", 11, &d, LABEL, &ERR), PQ_MISUSE,
             "c: '2024-01-01?' is not a date: byte 0x00 at offset 10, "
             "expected the end");
  CHECK_FAIL(pq_date_from_text("x", 1, &d, NULL, &ERR), PQ_MISUSE,
             "value: 'x' is not a date: 'x' at offset 0, expected a year of "
             "four digits");
}

/* ---- 2. Times ------------------------------------------------------------------ */

static void test_times(void) {
  char buf[80];
  pq_error err;
  for (int unit = PQ_UNIT_MILLIS; unit <= PQ_UNIT_NANOS; unit++) {
    pq_schema_element e = elem(unit == PQ_UNIT_MILLIS ? PQ_INT32 : PQ_INT64,
                               0, PQ_LOGICAL_TIME);
    e.logical_unit = unit;
    int64_t day = 86400 * per_second[unit];
    int64_t bad = 0, first_bad = 0;
    for (int i = 0; i < 200000; i++) {
      int64_t v = i == 0   ? 0
                  : i == 1 ? day - 1
                  : i < 100 ? between(0, 3 * per_second[unit])
                            : between(0, day - 1);
      int32_t v32 = (int32_t)v;
      cell_of(&e, unit == PQ_UNIT_MILLIS ? (const void *)&v32 : &v, buf);
      int64_t back = -1;
      int rc = pq_time_from_text(buf, strlen(buf), unit, &back, LABEL, &err);
      if (rc || back != v) {
        if (!bad++) first_bad = v;
      }
    }
    CHECK(bad == 0, "TIME(%s): %lld values do not read back, first %lld",
          unit_name[unit], (long long)bad, (long long)first_bad);
  }

  static const struct {
    const char *s;
    int unit;
    int64_t v;
  } ok[] = {
      {"00:00", PQ_UNIT_MILLIS, 0},
      {"12:34", PQ_UNIT_MILLIS, 45240000},
      {"12:34:56", PQ_UNIT_MILLIS, 45296000},
      {"12:34:56.789", PQ_UNIT_MILLIS, 45296789},
      {"12:34:56.7", PQ_UNIT_MILLIS, 45296700},
      {"12:34:56.7890000", PQ_UNIT_MILLIS, 45296789},
      {"12:34:56.7", PQ_UNIT_MICROS, 45296700000},
      {"00:00:00.000001", PQ_UNIT_MICROS, 1},
      {"00:00:00.000000001", PQ_UNIT_NANOS, 1},
      {"23:59:59.999", PQ_UNIT_MILLIS, 86399999},
      {"23:59:59.999999", PQ_UNIT_MICROS, 86399999999},
      {"23:59:59.999999999", PQ_UNIT_NANOS, 86399999999999},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    int64_t v = -1;
    int rc = time_of(ok[i].s, ok[i].unit, &v);
    CHECK(rc == PQ_OK && v == ok[i].v, "%s %s: %d %lld, expected %lld",
          ok[i].s, unit_name[ok[i].unit], rc, (long long)v,
          (long long)ok[i].v);
  }

  static const struct {
    const char *s;
    int unit, code;
    const char *msg;
  } no[] = {
      {"24:00", PQ_UNIT_MILLIS, PQ_MISUSE, "c: '24:00' is not a time: hour 24"},
      /* what the reader writes for a stored time of a whole day */
      {"24:00:00", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '24:00:00' is not a time: hour 24"},
      {"23:60", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '23:60' is not a time: minute 60"},
      {"23:59:60", PQ_UNIT_MICROS, PQ_MISUSE,
       "c: '23:59:60' is not a time: second 60"},
      {"1:00", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '1:00' is not a time: ':' at offset 1, expected the hour's two "
       "digits"},
      {"12", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '12' is not a time: it ends where ':' after the hour should be"},
      {"12:00:00.", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '12:00:00.' is not a time: it ends where the fraction's digits "
       "should be"},
      {"12:00:00Z", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '12:00:00Z' is not a time: 'Z' at offset 8, expected the end"},
      {"12:00:0", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '12:00:0' is not a time: it ends where the second's two digits "
       "should be"},
      {"12:34:56.7891", PQ_UNIT_MILLIS, PQ_RANGE,
       "c: '12:34:56.7891' does not fit TIME(MILLIS): more than 3 digits "
       "after the point"},
      {"00:00:00.0000001", PQ_UNIT_MICROS, PQ_RANGE,
       "c: '00:00:00.0000001' does not fit TIME(MICROS): more than 6 digits "
       "after the point"},
      {"00:00:00.0000000001", PQ_UNIT_NANOS, PQ_RANGE,
       "c: '00:00:00.0000000001' does not fit TIME(NANOS): more than 9 "
       "digits after the point"},
      {"00:00", 0, PQ_MISUSE,
       "c: unit 0 is not MILLIS (1), MICROS (2) or NANOS (3)"},
      {"00:00", 4, PQ_MISUSE,
       "c: unit 4 is not MILLIS (1), MICROS (2) or NANOS (3)"},
  };
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    int64_t v = 777;
    CHECK_FAIL(pq_time_from_text(no[i].s, strlen(no[i].s), no[i].unit, &v,
                                 LABEL, &ERR),
               no[i].code, no[i].msg);
    CHECK(v == 777, "%s: the output was written", no[i].s);
  }
}

/* ---- 3. Timestamps ------------------------------------------------------------- */

static void test_timestamps(void) {
  char buf[80];
  pq_error err;
  for (int unit = PQ_UNIT_MILLIS; unit <= PQ_UNIT_NANOS; unit++) {
    pq_schema_element e = elem(PQ_INT64, 0, PQ_LOGICAL_TIMESTAMP);
    e.logical_unit = unit;
    int64_t day = 86400 * per_second[unit];
    /* 0001-01-01 and 10000-01-01, where int64 reaches them. */
    int64_t lo = -719162, hi = 2932897;
    lo = lo < INT64_MIN / day ? INT64_MIN : lo * day;
    hi = hi > INT64_MAX / day ? INT64_MAX : hi * day - 1;
    /* The reader's day arithmetic overflows int64 within a day of
    ** INT64_MIN, so the random values start a day above it. */
    int64_t low = INT64_MIN + day;
    int64_t bad = 0, first_bad = 0;
    for (int i = 0; i < 300000; i++) {
      int64_t v;
      switch (i < 8 ? i : i % 4) {
        case 0: v = INT64_MAX; break;
        case 1: v = low; break;
        case 4: v = -1; break;
        case 5: v = 0; break;
        case 6: v = -day; break;
        case 7: v = -day - 1; break;
        case 2: v = between(low, INT64_MAX); break; /* the whole range */
        default: v = between(lo, hi); /* the years 0001 to 9999 */
      }
      if (i % 8 == 3) v = between(-day * 366 * 200, 0); /* before 1970 */
      cell_of(&e, &v, buf);
      int64_t back = 0;
      int rc =
          pq_timestamp_from_text(buf, strlen(buf), unit, &back, LABEL, &err);
      if (rc || back != v) {
        if (!bad++) first_bad = v;
      }
    }
    CHECK(bad == 0, "TIMESTAMP(%s): %lld values do not read back, first %lld",
          unit_name[unit], (long long)bad, (long long)first_bad);
  }

  static const struct {
    const char *s;
    int unit;
    int64_t v;
  } ok[] = {
      /* LogicalTypes.md: two days after the epoch; the same in UTC+01:00 */
      {"1970-01-03 00:00:00", PQ_UNIT_MILLIS, 172800000},
      {"1970-01-03 00:00:00+01:00", PQ_UNIT_MILLIS, 169200000},
      {"1970-01-03T00:00:00Z", PQ_UNIT_MILLIS, 172800000},
      {"1970-01-03t00:00:00z", PQ_UNIT_MILLIS, 172800000},
      {"1970-01-03", PQ_UNIT_MILLIS, 172800000},
      {"1970-01-03 00:00", PQ_UNIT_MILLIS, 172800000},
      {"1970-01-02 23:00:00-01:00", PQ_UNIT_MILLIS, 172800000},
      {"1970-01-01 00:00:00+05:30", PQ_UNIT_MICROS, -19800000000},
      {"2024-03-01 12:00:00.25", PQ_UNIT_MICROS, 1709294400250000},
      {"2024-03-01 12:00:00.250000", PQ_UNIT_MICROS, 1709294400250000},
      {"1969-12-31 23:59:59.999999", PQ_UNIT_MICROS, -1},
      {"1969-12-31 23:59:59.9999990", PQ_UNIT_MICROS, -1},
      {"1969-12-31 23:59:59.999", PQ_UNIT_MILLIS, -1},
      {"0001-01-01 00:00:00", PQ_UNIT_MICROS, -62135596800000000},
      /* the ends of NANOS (LogicalTypes.md: 1677-09-21 00:12:43 to
      ** 2262-04-11 23:47:16) and of MILLIS */
      {"2262-04-11 23:47:16.854775807", PQ_UNIT_NANOS, INT64_MAX},
      {"1677-09-21 00:12:43.145224192", PQ_UNIT_NANOS, INT64_MIN},
      {"2262-04-12 00:47:16.854775807+01:00", PQ_UNIT_NANOS, INT64_MAX},
      {"1677-09-20 23:12:43.145224192-01:00", PQ_UNIT_NANOS, INT64_MIN},
      {"292278994-08-17 07:12:55.807", PQ_UNIT_MILLIS, INT64_MAX},
      {"-292275055-05-16 16:47:04.192", PQ_UNIT_MILLIS, INT64_MIN},
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    int64_t v = 12345;
    int rc = stamp(ok[i].s, ok[i].unit, &v);
    CHECK(rc == PQ_OK && v == ok[i].v, "%s %s: %d %lld, expected %lld",
          ok[i].s, unit_name[ok[i].unit], rc, (long long)v,
          (long long)ok[i].v);
  }

  static const struct {
    const char *s;
    int unit, code;
    const char *msg;
  } no[] = {
      {"1969-12-31 23:59:59.9999991", PQ_UNIT_MICROS, PQ_RANGE,
       "c: '1969-12-31 23:59:59.9999991' does not fit TIMESTAMP(MICROS): "
       "more than 6 digits after the point"},
      {"2262-04-11 23:47:16.854775808", PQ_UNIT_NANOS, PQ_RANGE,
       "c: '2262-04-11 23:47:16.854775808' is out of range for "
       "TIMESTAMP(NANOS): 64-bit nanoseconds since 1970-01-01"},
      {"2262-04-11 23:47:17", PQ_UNIT_NANOS, PQ_RANGE,
       "c: '2262-04-11 23:47:17' is out of range for TIMESTAMP(NANOS): "
       "64-bit nanoseconds since 1970-01-01"},
      {"1677-09-21 00:12:43.145224191", PQ_UNIT_NANOS, PQ_RANGE,
       "c: '1677-09-21 00:12:43.145224191' is out of range for "
       "TIMESTAMP(NANOS): 64-bit nanoseconds since 1970-01-01"},
      {"2262-04-11 23:47:16.854775807-00:01", PQ_UNIT_NANOS, PQ_RANGE,
       "c: '2262-04-11 23:47:16.854775807-00:01' is out of range for "
       "TIMESTAMP(NANOS): 64-bit nanoseconds since 1970-01-01"},
      {"292278994-08-17 07:12:55.808", PQ_UNIT_MILLIS, PQ_RANGE,
       "c: '292278994-08-17 07:12:55.808' is out of range for "
       "TIMESTAMP(MILLIS): 64-bit milliseconds since 1970-01-01"},
      {"99999999999999999999-01-01", PQ_UNIT_MICROS, PQ_RANGE,
       "c: '99999999999999999999-01-01' is out of range for "
       "TIMESTAMP(MICROS): 64-bit microseconds since 1970-01-01"},
      {"2024-03-01 24:00:00", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01 24:00:00' is not a timestamp: hour 24"},
      {"2024-03-01 23:59:60", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01 23:59:60' is not a timestamp: second 60"},
      {"2023-02-29 12:00", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2023-02-29 12:00' is not a timestamp: day 29 of a month of 28 "
       "days"},
      {"2024-03-01 12:00:00+24:00", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01 12:00:00+24:00' is not a timestamp: offset hour 24"},
      {"2024-03-01 12:00:00+01:60", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01 12:00:00+01:60' is not a timestamp: offset minute 60"},
      {"2024-03-01 12:00:00+0100", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01 12:00:00+0100' is not a timestamp: '0' at offset 22, "
       "expected ':' in the offset"},
      {"2024-03-01x", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01x' is not a timestamp: 'x' at offset 10, expected ' ' "
       "or 'T' before the time, or the end"},
      {"2024-03-01 ", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01 ' is not a timestamp: it ends where the hour's two "
       "digits should be"},
      {"2024-03-01 12:00:00 UTC", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01 12:00:00 UTC' is not a timestamp: ' ' at offset 19, "
       "expected the end"},
      {"2024-03-01Z", PQ_UNIT_MILLIS, PQ_MISUSE,
       "c: '2024-03-01Z' is not a timestamp: 'Z' at offset 10, expected ' ' "
       "or 'T' before the time, or the end"},
      {"2024-03-01", 9, PQ_MISUSE,
       "c: unit 9 is not MILLIS (1), MICROS (2) or NANOS (3)"},
  };
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    int64_t v = 777;
    CHECK_FAIL(pq_timestamp_from_text(no[i].s, strlen(no[i].s), no[i].unit,
                                      &v, LABEL, &ERR),
               no[i].code, no[i].msg);
    CHECK(v == 777, "%s: the output was written", no[i].s);
  }
}

/* ---- 4. INT96 ------------------------------------------------------------------- */

static void make_int96(uint8_t *p, int64_t nanos, int32_t julian) {
  for (int i = 0; i < 8; i++) p[i] = (uint8_t)((uint64_t)nanos >> (8 * i));
  for (int i = 0; i < 4; i++) p[8 + i] = (uint8_t)((uint32_t)julian >> (8 * i));
}

static void test_int96(void) {
  pq_schema_element e = elem(PQ_INT96, 0, 0);
  char buf[80];
  pq_error err;
  const int64_t day = 86400000000000LL;
  int64_t bad = 0;
  char first_bad[80] = "";
  for (int i = 0; i < 200000; i++) {
    int64_t nanos = i == 0 ? day - 1 : i == 1 ? 0 : between(0, day - 1);
    int32_t julian = i == 0   ? INT32_MAX
                     : i == 1 ? INT32_MIN
                     : i % 2  ? (int32_t)between(1721426, 5373484) /* 1..9999 */
                              : (int32_t)rnd();
    uint8_t v[12], back[12];
    make_int96(v, nanos, julian);
    cell_of(&e, v, buf);
    memset(back, 0xAA, sizeof back);
    int rc = pq_int96_from_text(buf, strlen(buf), back, LABEL, &err);
    if (rc || memcmp(v, back, 12) != 0) {
      if (!bad++) snprintf(first_bad, sizeof first_bad, "%s", buf);
    }
  }
  CHECK(bad == 0, "INT96: %lld values do not read back, first '%s'",
        (long long)bad, first_bad);

  static const struct {
    const char *s;
    int64_t nanos;
    int32_t julian;
  } ok[] = {
      {"1970-01-01 00:00:00", 0, 2440588},
      {"1970-01-01", 0, 2440588},
      {"2000-01-01 12:00:00.000000001", 43200000000001LL, 2451545},
      {"1970-01-01 00:30:00+01:00", 84600000000000LL, 2440587},
      {"1969-12-31 23:30:00-01:00", 1800000000000LL, 2440588},
      {"-4713-11-24 00:00:00", 0, 0}, /* Julian day 0 */
  };
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    uint8_t want[12], got[12];
    make_int96(want, ok[i].nanos, ok[i].julian);
    int rc = pq_int96_from_text(ok[i].s, strlen(ok[i].s), got, LABEL, &err);
    CHECK(rc == PQ_OK && memcmp(want, got, 12) == 0, "INT96 %s: %d", ok[i].s,
          rc);
  }
  /* Julian days past int32, on either side. */
  char past[80], msg[200];
  pq_text_date(past, sizeof past, (int64_t)INT32_MAX - 2440588 + 1);
  snprintf(msg, sizeof msg,
           "c: '%s' is out of range for INT96: a 32-bit Julian day", past);
  uint8_t out[12];
  CHECK_FAIL(pq_int96_from_text(past, strlen(past), out, LABEL, &ERR),
             PQ_RANGE, msg);
  pq_text_date(past, sizeof past, (int64_t)INT32_MIN - 2440588 - 1);
  snprintf(msg, sizeof msg,
           "c: '%s' is out of range for INT96: a 32-bit Julian day", past);
  CHECK_FAIL(pq_int96_from_text(past, strlen(past), out, LABEL, &ERR),
             PQ_RANGE, msg);
  CHECK_FAIL(pq_int96_from_text("2024-03-01 12:00:00.0000000001", 30, out,
                                LABEL, &ERR),
             PQ_RANGE,
             "c: '2024-03-01 12:00:00.0000000001' does not fit INT96: more "
             "than 9 digits after the point");
  CHECK_FAIL(pq_int96_from_text("2024-03-01 25:00", 16, out, LABEL, &ERR),
             PQ_MISUSE, "c: '2024-03-01 25:00' is not a timestamp: hour 25");
}

/* ---- 5. Decimals ---------------------------------------------------------------- */

static u128 pow10u(int k) {
  u128 p = 1;
  while (k-- > 0) p *= 10;
  return p;
}

/* The unscaled value as 16 bytes of big-endian two's complement. */
static void be16(int neg, u128 mag, uint8_t *b) {
  u128 u = neg ? 0 - mag : mag;
  for (int i = 15; i >= 0; i--) {
    b[i] = (uint8_t)u;
    u >>= 8;
  }
}

/* The stored value for the spec: *len bytes in out, as a writer lays it. */
static void stored(const pq_decimal_spec *d, int neg, u128 mag, uint8_t *out,
                   size_t *len) {
  uint8_t b[16];
  be16(neg, mag, b);
  if (d->type == PQ_INT32 || d->type == PQ_INT64) {
    int64_t v = 0;
    for (int i = 8; i < 16; i++) v = (int64_t)((uint64_t)v << 8 | b[i]);
    if (d->type == PQ_INT32) {
      int32_t x = (int32_t)v;
      memcpy(out, &x, 4);
      *len = 4;
    } else {
      memcpy(out, &v, 8);
      *len = 8;
    }
    return;
  }
  if (d->type == PQ_FIXED_LEN_BYTE_ARRAY) {
    size_t n = (size_t)d->type_length;
    for (size_t i = 0; i < n; i++)
      out[i] = i + 16 < n ? (neg ? 0xFF : 0) : b[16 - n + i];
    *len = n;
    return;
  }
  /* BYTE_ARRAY: drop leading bytes that only repeat the sign */
  size_t k = 0;
  while (k < 15 && ((b[k] == 0 && b[k + 1] < 0x80) ||
                    (b[k] == 0xFF && b[k + 1] >= 0x80)))
    k++;
  memcpy(out, b + k, 16 - k);
  *len = 16 - k;
}

static void hex(const uint8_t *p, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
  out[2 * n] = 0;
}

/* Random stored values of one decimal type, through the reader's cell and
** its text, back to the same bytes. */
static void decimal_case(pq_type t, int32_t tl, int precision, int scale) {
  pq_decimal_spec d = {t, tl, precision, scale};
  pq_schema_element e = elem(t, tl, PQ_LOGICAL_DECIMAL);
  e.logical_precision = e.precision = precision;
  e.logical_scale = e.scale = scale;
  e.converted_type = 5;
  pq_error err;
  int bad = 0;
  char why[600] = "";
  for (int i = 0; i < 24; i++) {
    int neg = (int)(rnd() & 1);
    u128 mag;
    if (i < 2) {
      mag = pow10u(precision) - 1;
      neg = i;
    } else if (i < 4) {
      mag = 1;
      neg = i == 2;
    } else if (i == 4) {
      mag = 0;
      neg = 0;
    } else {
      int k = 1 + (int)(rnd() % (uint64_t)precision);
      mag = 1 + rnd() % 9;
      for (int j = 1; j < k; j++) mag = mag * 10 + rnd() % 10;
    }
    uint8_t want[32], got[32], b16[16];
    size_t wlen, glen = 0;
    stored(&d, neg, mag, want, &wlen);
    /* The reader's cell. */
    if (!(t == PQ_FIXED_LEN_BYTE_ARRAY && tl > 16)) {
      pq_bytes ba = {want, wlen};
      char buf[80];
      pq_cell c = cell_of(&e, t == PQ_BYTE_ARRAY ? (const void *)&ba : want,
                          buf);
      int rc;
      if (c.kind == PQ_CELL_REAL) {
        rc = pq_decimal_from_double(&d, c.r, got, &glen, LABEL, &err);
        snprintf(buf, sizeof buf, "%.17g", c.r);
      } else if (c.kind == PQ_CELL_TEXT) {
        rc = pq_decimal_from_text(&d, buf, strlen(buf), got, &glen, LABEL,
                                  &err);
      } else {
        rc = -1;
      }
      if ((precision <= 15) != (c.kind == PQ_CELL_REAL) || rc != PQ_OK ||
          glen != wlen || memcmp(got, want, wlen) != 0) {
        if (!bad++) {
          char h1[80], h2[80];
          hex(want, wlen, h1);
          hex(got, glen, h2);
          snprintf(why, sizeof why, "cell %d '%s': rc %d %s, want %s got %s",
                   c.kind, buf, rc, rc ? err.msg : "", h1, h2);
        }
      }
    }
    /* The text of the 16-byte value. */
    char text[80];
    be16(neg, mag, b16);
    pq_text_decimal(text, sizeof text, b16, 16, scale);
    int rc = pq_decimal_from_text(&d, text, strlen(text), got, &glen, LABEL,
                                  &err);
    if (rc != PQ_OK || glen != wlen || memcmp(got, want, wlen) != 0) {
      if (!bad++)
        snprintf(why, sizeof why, "text '%s': rc %d %s", text, rc,
                 rc ? err.msg : "");
    }
    /* An integer, at scale 0. */
    if (scale == 0 && mag <= (u128)INT64_MAX) {
      int64_t v = neg ? -(int64_t)mag : (int64_t)mag;
      rc = pq_decimal_from_int64(&d, v, got, &glen, LABEL, &err);
      if (rc != PQ_OK || glen != wlen || memcmp(got, want, wlen) != 0) {
        if (!bad++)
          snprintf(why, sizeof why, "int64 %lld: rc %d %s", (long long)v, rc,
                   rc ? err.msg : "");
      }
    }
  }
  CHECK(bad == 0, "DECIMAL(%d,%d) as %s(%d): %d values do not read back: %s",
        precision, scale, pq_type_name(t), (int)tl, bad, why);
}

/* The fewest bytes that hold `precision` digits (spec: n bytes hold
** floor(log10(2^(8n-1) - 1)) digits). */
static int32_t bytes_for(int precision) {
  static const int most[] = {0,  2,  4,  6,  9,  11, 14, 16, 18,
                             21, 23, 26, 28, 31, 33, 35, 38};
  int32_t n = 1;
  while (most[n] < precision) n++;
  return n;
}

/* Exact bytes of one call. */
static void expect_bytes(const char *what, int rc, const pq_error *err,
                         const uint8_t *got, size_t glen, const char *want) {
  char h[80] = "";
  if (rc == PQ_OK) hex(got, glen, h);
  CHECK(rc == PQ_OK && strcmp(h, want) == 0, "%s: %d %s, got %s, want %s",
        what, rc, rc ? err->msg : "", h, want);
}

/* A value as laid out for its type, shown as big-endian hex. */
static void shown_be(pq_type t, uint8_t *out, size_t len) {
  if (t != PQ_INT32 && t != PQ_INT64) return;
  int64_t v = 0;
  if (t == PQ_INT32) {
    int32_t x;
    memcpy(&x, out, 4);
    v = x;
  } else {
    memcpy(&v, out, 8);
  }
  for (size_t i = 0; i < len; i++)
    out[i] = (uint8_t)((uint64_t)v >> (8 * (len - 1 - i)));
}

static void text_is(pq_type t, int32_t tl, int p, int s, const char *text,
                    const char *want) {
  pq_decimal_spec d = {t, tl, p, s};
  uint8_t out[32];
  size_t len = 0;
  pq_error err;
  int rc = pq_decimal_from_text(&d, text, strlen(text), out, &len, LABEL, &err);
  char what[160];
  snprintf(what, sizeof what, "'%s' as DECIMAL(%d,%d) %s", text, p, s,
           pq_type_name(t));
  if (rc == PQ_OK) shown_be(t, out, len);
  expect_bytes(what, rc, &err, out, len, want);
}

static void double_is(int p, int s, double v, const char *want) {
  pq_decimal_spec d = {PQ_BYTE_ARRAY, 0, p, s};
  uint8_t out[32];
  size_t len = 0;
  pq_error err;
  int rc = pq_decimal_from_double(&d, v, out, &len, LABEL, &err);
  char what[160];
  snprintf(what, sizeof what, "%.17g as DECIMAL(%d,%d)", v, p, s);
  expect_bytes(what, rc, &err, out, len, want);
}

static void int_is(pq_type t, int32_t tl, int p, int s, int64_t v,
                   const char *want) {
  pq_decimal_spec d = {t, tl, p, s};
  uint8_t out[32];
  size_t len = 0;
  pq_error err;
  int rc = pq_decimal_from_int64(&d, v, out, &len, LABEL, &err);
  char what[160];
  snprintf(what, sizeof what, "%lld as DECIMAL(%d,%d)", (long long)v, p, s);
  if (rc == PQ_OK) shown_be(t, out, len);
  expect_bytes(what, rc, &err, out, len, want);
}

static void test_decimals(void) {
  /* Every precision and scale, in every type that holds the precision. */
  for (int p = 1; p <= 38; p++) {
    for (int s = 0; s <= p; s++) {
      if (p <= 9) decimal_case(PQ_INT32, 0, p, s);
      if (p <= 18) decimal_case(PQ_INT64, 0, p, s);
      for (int32_t n = bytes_for(p); n <= 16; n++)
        decimal_case(PQ_FIXED_LEN_BYTE_ARRAY, n, p, s);
      decimal_case(PQ_FIXED_LEN_BYTE_ARRAY, 20, p, s);
      decimal_case(PQ_BYTE_ARRAY, 0, p, s);
    }
  }

  /* Text. */
  text_is(PQ_INT32, 0, 4, 0, "1.5e3", "000005dc");
  text_is(PQ_INT32, 0, 9, 3, "1e-3", "00000001");
  text_is(PQ_INT32, 0, 9, 3, "1E-3", "00000001");
  text_is(PQ_INT64, 0, 18, 3, "-1e-3", "ffffffffffffffff");
  text_is(PQ_INT32, 0, 4, 2, "99.99", "0000270f");
  text_is(PQ_INT32, 0, 4, 2, "-0", "00000000");
  text_is(PQ_BYTE_ARRAY, 0, 4, 2, "-0", "00");
  text_is(PQ_BYTE_ARRAY, 0, 4, 2, "-0.000e5", "00");
  text_is(PQ_BYTE_ARRAY, 0, 4, 2, "0e999999999999999999999", "00");
  text_is(PQ_FIXED_LEN_BYTE_ARRAY, 3, 4, 2, "-0.00", "000000");
  text_is(PQ_BYTE_ARRAY, 0, 4, 2, "+.5", "32");
  text_is(PQ_BYTE_ARRAY, 0, 4, 2, "5.", "01f4");
  text_is(PQ_BYTE_ARRAY, 0, 3, 2, "1.2300", "7b");
  text_is(PQ_BYTE_ARRAY, 0, 3, 2, "25E-2", "19");
  text_is(PQ_BYTE_ARRAY, 0, 4, 2,
          "0.0000000000000000000000000000000000000000000000000000001e55",
          "64");
  text_is(PQ_BYTE_ARRAY, 0, 4, 2, "0000000000000000000000000000000000000012.5",
          "04e2");
  text_is(PQ_BYTE_ARRAY, 0, 38, 0, "99999999999999999999999999999999999999",
          "4b3b4ca85a86c47a098a223fffffffff");
  text_is(PQ_BYTE_ARRAY, 0, 38, 0, "-99999999999999999999999999999999999999",
          "b4c4b357a5793b85f675ddc000000001");
  text_is(PQ_FIXED_LEN_BYTE_ARRAY, 16, 38, 38,
          "0.99999999999999999999999999999999999999",
          "4b3b4ca85a86c47a098a223fffffffff");
  text_is(PQ_BYTE_ARRAY, 0, 38, 0, "9.9999999999999999999999999999999999999e37",
          "4b3b4ca85a86c47a098a223fffffffff");
  /* BYTE_ARRAY in the fewest bytes; FIXED_LEN_BYTE_ARRAY sign-extended */
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "0", "00");
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "127", "7f");
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "128", "0080");
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "-128", "80");
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "-129", "ff7f");
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "32767", "7fff");
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "32768", "008000");
  text_is(PQ_BYTE_ARRAY, 0, 9, 0, "-32768", "8000");
  text_is(PQ_FIXED_LEN_BYTE_ARRAY, 20, 9, 2, "-0.01",
          "ffffffffffffffffffffffffffffffffffffffff");
  text_is(PQ_FIXED_LEN_BYTE_ARRAY, 20, 9, 2, "0.01",
          "0000000000000000000000000000000000000001");
  text_is(PQ_FIXED_LEN_BYTE_ARRAY, 2, 4, 0, "-9999", "d8f1");

  static const struct {
    pq_type t;
    int p, s;
    const char *text;
    int code;
    const char *msg;
  } no[] = {
      {PQ_INT32, 9, 2, "1e-3", PQ_RANGE,
       "c: '1e-3' does not fit DECIMAL(9,2): more than 2 digits after the "
       "point"},
      {PQ_INT32, 4, 2, "100.00", PQ_RANGE,
       "c: '100.00' does not fit DECIMAL(4,2): more than 2 digits before the "
       "point"},
      {PQ_INT32, 4, 0, "12345", PQ_RANGE,
       "c: '12345' does not fit DECIMAL(4,0): more than 4 digits before the "
       "point"},
      {PQ_INT32, 5, 2, "1000", PQ_RANGE,
       "c: '1000' does not fit DECIMAL(5,2): more than 3 digits before the "
       "point"},
      {PQ_INT32, 5, 0, "1.5", PQ_RANGE,
       "c: '1.5' does not fit DECIMAL(5,0): more than 0 digits after the "
       "point"},
      {PQ_INT32, 4, 2, "123.456", PQ_RANGE,
       "c: '123.456' does not fit DECIMAL(4,2): more than 2 digits after the "
       "point"},
      {PQ_INT32, 2, 2, "1", PQ_RANGE,
       "c: '1' does not fit DECIMAL(2,2): more than 0 digits before the "
       "point"},
      {PQ_BYTE_ARRAY, 38, 0, "100000000000000000000000000000000000000",
       PQ_RANGE,
       "c: '100000000000000000000000000000000000000' does not fit "
       "DECIMAL(38,0): more than 38 digits before the point"},
      {PQ_BYTE_ARRAY, 38, 0, "1e38", PQ_RANGE,
       "c: '1e38' does not fit DECIMAL(38,0): more than 38 digits before the "
       "point"},
      {PQ_BYTE_ARRAY, 38, 0, "1e999999999999999999999", PQ_RANGE,
       "c: '1e999999999999999999999' does not fit DECIMAL(38,0): more than 38 "
       "digits before the point"},
      {PQ_BYTE_ARRAY, 38, 0, "1e-999999999999999999999", PQ_RANGE,
       "c: '1e-999999999999999999999' does not fit DECIMAL(38,0): more than 0 "
       "digits after the point"},
      {PQ_BYTE_ARRAY, 38, 38, "1", PQ_RANGE,
       "c: '1' does not fit DECIMAL(38,38): more than 0 digits before the "
       "point"},
      {PQ_BYTE_ARRAY, 38, 0,
       "1000000000000000000000000000000000000000000000000000000000000000",
       PQ_RANGE,
       "c: '100000000000000000000000000000000000000000000000...' does not fit "
       "DECIMAL(38,0): more than 38 digits before the point"},
      {PQ_INT32, 9, 2, "", PQ_MISUSE,
       "c: '' is not a number: it ends where a digit should be"},
      {PQ_INT32, 9, 2, "abc", PQ_MISUSE,
       "c: 'abc' is not a number: 'a' at offset 0, expected a digit"},
      {PQ_INT32, 9, 2, "-", PQ_MISUSE,
       "c: '-' is not a number: it ends where a digit should be"},
      {PQ_INT32, 9, 2, ".", PQ_MISUSE,
       "c: '.' is not a number: it ends where a digit should be"},
      {PQ_INT32, 9, 2, "--1", PQ_MISUSE,
       "c: '--1' is not a number: '-' at offset 1, expected a digit"},
      {PQ_INT32, 9, 2, "1e", PQ_MISUSE,
       "c: '1e' is not a number: it ends where the exponent's digits should "
       "be"},
      {PQ_INT32, 9, 2, "1e+", PQ_MISUSE,
       "c: '1e+' is not a number: it ends where the exponent's digits should "
       "be"},
      {PQ_INT32, 9, 2, "1.2.3", PQ_MISUSE,
       "c: '1.2.3' is not a number: '.' at offset 3, expected the end"},
      {PQ_INT32, 9, 2, " 1", PQ_MISUSE,
       "c: ' 1' is not a number: ' ' at offset 0, expected a digit"},
      {PQ_INT32, 9, 2, "1,5", PQ_MISUSE,
       "c: '1,5' is not a number: ',' at offset 1, expected the end"},
      {PQ_INT32, 9, 2, "0x10", PQ_MISUSE,
       "c: '0x10' is not a number: 'x' at offset 1, expected the end"},
      {PQ_INT32, 9, 2, "NaN", PQ_MISUSE,
       "c: 'NaN' is not a number: 'N' at offset 0, expected a digit"},
  };
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    pq_decimal_spec d = {no[i].t, 0, no[i].p, no[i].s};
    uint8_t out[32];
    size_t len = 99;
    memset(out, 0x5A, sizeof out);
    CHECK_FAIL(pq_decimal_from_text(&d, no[i].text, strlen(no[i].text), out,
                                    &len, LABEL, &ERR),
               no[i].code, no[i].msg);
    CHECK(len == 99 && out[0] == 0x5A, "%s: the output was written",
          no[i].text);
  }

  /* Integers. */
  int_is(PQ_INT32, 0, 5, 2, 5, "000001f4");
  int_is(PQ_INT32, 0, 5, 2, -5, "fffffe0c");
  int_is(PQ_BYTE_ARRAY, 0, 19, 0, INT64_MIN, "8000000000000000");
  int_is(PQ_BYTE_ARRAY, 0, 19, 0, INT64_MAX, "7fffffffffffffff");
  int_is(PQ_INT64, 0, 18, 0, 999999999999999999LL, "0de0b6b3a763ffff");
  int_is(PQ_BYTE_ARRAY, 0, 38, 19, INT64_MAX,
         "4563918244f3ffff7538dcfb76180000");
  int_is(PQ_BYTE_ARRAY, 0, 38, 38, 0, "00");
  int_is(PQ_FIXED_LEN_BYTE_ARRAY, 16, 38, 19, -1,
         "ffffffffffffffff7538dcfb76180000");
  {
    pq_decimal_spec d = {PQ_INT64, 0, 18, 0};
    uint8_t out[16];
    size_t len;
    CHECK_FAIL(pq_decimal_from_int64(&d, INT64_MIN, out, &len, LABEL, &ERR),
               PQ_RANGE,
               "c: -9223372036854775808 does not fit DECIMAL(18,0): more than "
               "18 digits before the point");
    pq_decimal_spec d2 = {PQ_BYTE_ARRAY, 0, 38, 38};
    CHECK_FAIL(pq_decimal_from_int64(&d2, 1, out, &len, LABEL, &ERR), PQ_RANGE,
               "c: 1 does not fit DECIMAL(38,38): more than 0 digits before "
               "the point");
    pq_decimal_spec d3 = {PQ_INT32, 0, 5, 2};
    CHECK_FAIL(pq_decimal_from_int64(&d3, 1000, out, &len, LABEL, &ERR),
               PQ_RANGE,
               "c: 1000 does not fit DECIMAL(5,2): more than 3 digits before "
               "the point");
  }

  /* Reals: the exact binary value, rounded half away from zero. */
  double_is(3, 2, 0.125, "0d");  /* exactly 12.5: 13 */
  double_is(3, 2, -0.125, "f3"); /* -13 */
  double_is(3, 2, 0.375, "26");  /* 37.5: 38 */
  double_is(3, 2, 0.145, "0e");  /* 0.14499999999999999: 14 */
  double_is(3, 2, 2.675, "010b"); /* 2.67499999999999982: 267 */
  double_is(3, 2, 0.005, "01");  /* 0.005000000000000000104: 1 */
  double_is(1, 0, 0.5, "01");
  double_is(1, 0, -0.5, "ff");
  double_is(1, 0, 1.5, "02");
  double_is(1, 0, 2.5, "03");
  double_is(1, 0, -2.5, "fd");
  double_is(1, 0, 0.49999999999999994, "00");
  double_is(1, 0, -0.0, "00");
  double_is(1, 0, 0.0, "00");
  double_is(38, 38, 5e-324, "00");
  double_is(38, 38, -5e-324, "00");
  double_is(38, 38, 2.2250738585072014e-308, "00");
  double_is(10, 2, 123.45, "3039");
  double_is(15, 0, 123456789012345.0, "7048860ddf79");
  double_is(38, 0, 1e37, "0785ee10d5da46c00000000000000000");
  double_is(38, 0, 85070591730234615865843651857942052864.0, /* 2^126 */
            "40000000000000000000000000000000");
  /* 1e38 is 99999999999999997748809823456034029568: 38 digits */
  double_is(38, 0, 1e38, "4b3b4ca85a86c4000000000000000000");
  double_is(38, 37, 9.5, "4778559fef99a10d891006f000000000");
  {
    pq_decimal_spec d = {PQ_BYTE_ARRAY, 0, 38, 0};
    uint8_t out[16];
    size_t len;
    CHECK_FAIL(pq_decimal_from_double(&d, 1e300, out, &len, LABEL, &ERR),
               PQ_RANGE,
               "c: 1e+300 does not fit DECIMAL(38,0): more than 38 digits "
               "before the point");
    CHECK_FAIL(pq_decimal_from_double(&d, -1.7976931348623157e308, out, &len,
                                      LABEL, &ERR),
               PQ_RANGE,
               "c: -1.7976931348623157e+308 does not fit DECIMAL(38,0): more "
               "than 38 digits before the point");
    CHECK_FAIL(pq_decimal_from_double(&d, 170141183460469231731687303715884105728.0,
                                      out, &len, LABEL, &ERR), /* 2^127 */
               PQ_RANGE,
               "c: 1.7014118346046923e+38 does not fit DECIMAL(38,0): more "
               "than 38 digits before the point");
    pq_decimal_spec d2 = {PQ_INT32, 0, 9, 2};
    CHECK_FAIL(pq_decimal_from_double(&d2, 9999999.996, out, &len, LABEL, &ERR),
               PQ_RANGE,
               "c: 9999999.996 does not fit DECIMAL(9,2): more than 7 digits "
               "before the point");
    CHECK_FAIL(pq_decimal_from_double(&d2, NAN, out, &len, LABEL, &ERR),
               PQ_RANGE, "c: NaN does not fit DECIMAL(9,2): not a number");
    CHECK_FAIL(pq_decimal_from_double(&d2, -INFINITY, out, &len, LABEL, &ERR),
               PQ_RANGE, "c: -Inf does not fit DECIMAL(9,2): infinite");
    CHECK_FAIL(pq_decimal_from_double(&d2, INFINITY, out, &len, LABEL, &ERR),
               PQ_RANGE, "c: Inf does not fit DECIMAL(9,2): infinite");
    pq_decimal_spec d3 = {PQ_INT32, 0, 3, 3};
    CHECK_FAIL(pq_decimal_from_double(&d3, 0.9995, out, &len, LABEL, &ERR),
               PQ_RANGE,
               "c: 0.9995 does not fit DECIMAL(3,3): more than 0 digits "
               "before the point");
  }
  /* Reals of up to 15 digits, as the reader makes them (unscaled / 10^s),
  ** come back exactly at every scale. */
  {
    int bad = 0;
    char why[200] = "";
    for (int i = 0; i < 200000; i++) {
      int p = 1 + (int)(rnd() % 15), s = (int)(rnd() % (uint64_t)(p + 1));
      int64_t lim = (int64_t)pow10u(p) - 1, v = between(-lim, lim);
      pq_decimal_spec d = {PQ_INT64, 0, p, s};
      double r = (double)v / (double)pow10u(s);
      int64_t got = 0;
      size_t len;
      pq_error err;
      int rc = pq_decimal_from_double(&d, r, &got, &len, LABEL, &err);
      if (rc || got != v) {
        if (!bad++)
          snprintf(why, sizeof why, "%lld at scale %d: %d %lld",
                   (long long)v, s, rc, (long long)got);
      }
    }
    CHECK(bad == 0, "%d reals do not come back: %s", bad, why);
  }

  /* The types. */
  static const struct {
    pq_decimal_spec d;
    const char *msg;
  } bad_types[] = {
      {{PQ_INT32, 0, 10, 2},
       "c: DECIMAL(10,2) does not fit INT32: at most 9 digits"},
      {{PQ_INT64, 0, 19, 0},
       "c: DECIMAL(19,0) does not fit INT64: at most 18 digits"},
      {{PQ_FIXED_LEN_BYTE_ARRAY, 4, 10, 0},
       "c: DECIMAL(10,0) does not fit FIXED_LEN_BYTE_ARRAY(4): at most 9 "
       "digits"},
      {{PQ_FIXED_LEN_BYTE_ARRAY, 0, 1, 0},
       "c: DECIMAL(1,0) does not fit FIXED_LEN_BYTE_ARRAY(0): at most 0 "
       "digits"},
      {{PQ_BYTE_ARRAY, 0, 0, 0},
       "c: DECIMAL(0,0): the precision must be from 1 to 38"},
      {{PQ_BYTE_ARRAY, 0, 39, 0},
       "c: DECIMAL(39,0): the precision must be from 1 to 38"},
      {{PQ_BYTE_ARRAY, 0, 5, 6},
       "c: DECIMAL(5,6): the scale must be from 0 to the precision"},
      {{PQ_BYTE_ARRAY, 0, 5, -1},
       "c: DECIMAL(5,-1): the scale must be from 0 to the precision"},
      {{PQ_DOUBLE, 0, 5, 2}, "c: DECIMAL(5,2) cannot be stored as DOUBLE"},
  };
  for (size_t i = 0; i < sizeof bad_types / sizeof bad_types[0]; i++) {
    uint8_t out[32];
    size_t len;
    const pq_decimal_spec *d = &bad_types[i].d;
    CHECK_FAIL(pq_decimal_check(d, LABEL, &ERR), PQ_MISUSE, bad_types[i].msg);
    CHECK_FAIL(pq_decimal_from_text(d, "1", 1, out, &len, LABEL, &ERR),
               PQ_MISUSE, bad_types[i].msg);
    CHECK_FAIL(pq_decimal_from_int64(d, 1, out, &len, LABEL, &ERR), PQ_MISUSE,
               bad_types[i].msg);
    CHECK_FAIL(pq_decimal_from_double(d, 1, out, &len, LABEL, &ERR), PQ_MISUSE,
               bad_types[i].msg);
  }
  /* The digits of each length, as the spec's formula gives them. */
  for (int32_t n = 1; n <= 17; n++) {
    int most = n >= 16 ? 38 : (int)floor(log10(ldexp(1, 8 * n - 1) - 1));
    if (n == 16) most = 38; /* log10(2^127 - 1) = 38.23 */
    pq_decimal_spec yes = {PQ_FIXED_LEN_BYTE_ARRAY, n, most, 0};
    pq_decimal_spec no_ = {PQ_FIXED_LEN_BYTE_ARRAY, n, most + 1, 0};
    pq_error err;
    CHECK(pq_decimal_check(&yes, LABEL, &err) == PQ_OK,
          "FIXED_LEN_BYTE_ARRAY(%d) holds %d digits", (int)n, most);
    CHECK(most == 38 || pq_decimal_check(&no_, LABEL, &err) == PQ_MISUSE,
          "FIXED_LEN_BYTE_ARRAY(%d) does not hold %d digits", (int)n,
          most + 1);
    CHECK(n > 16 || bytes_for(most) == n, "bytes_for(%d)", most);
  }
  pq_decimal_spec sizes[] = {{PQ_INT32, 0, 9, 0},
                             {PQ_INT64, 0, 18, 0},
                             {PQ_FIXED_LEN_BYTE_ARRAY, 20, 38, 0},
                             {PQ_BYTE_ARRAY, 0, 38, 0}};
  static const size_t want_size[] = {4, 8, 20, 16};
  for (int i = 0; i < 4; i++)
    CHECK(pq_decimal_size(&sizes[i]) == want_size[i], "size %d: %zu", i,
          pq_decimal_size(&sizes[i]));
}

/* ---- 6. UUIDs ---------------------------------------------------------------------- */

static void test_uuids(void) {
  pq_schema_element e = elem(PQ_FIXED_LEN_BYTE_ARRAY, 16, PQ_LOGICAL_UUID);
  char buf[80];
  pq_error err;
  int bad = 0;
  for (int i = 0; i < 20000; i++) {
    uint8_t v[16], back[16];
    for (int k = 0; k < 16; k++) v[k] = (uint8_t)rnd();
    if (i == 0) memset(v, 0, 16);
    if (i == 1) memset(v, 0xFF, 16);
    cell_of(&e, v, buf);
    int rc = pq_uuid_from_text(buf, strlen(buf), back, LABEL, &err);
    if (rc || memcmp(v, back, 16)) bad++;
    /* upper case, and without dashes */
    char up[40], bare[40];
    size_t k = 0;
    for (size_t j = 0; buf[j]; j++) {
      up[j] = buf[j] >= 'a' && buf[j] <= 'f' ? (char)(buf[j] - 32) : buf[j];
      if (buf[j] != '-') bare[k++] = buf[j];
    }
    up[strlen(buf)] = 0;
    bare[k] = 0;
    memset(back, 0, 16);
    rc = pq_uuid_from_text(up, strlen(up), back, LABEL, &err);
    if (rc || memcmp(v, back, 16)) bad++;
    memset(back, 0, 16);
    rc = pq_uuid_from_text(bare, strlen(bare), back, LABEL, &err);
    if (rc || memcmp(v, back, 16)) bad++;
  }
  CHECK(bad == 0, "%d UUIDs do not read back", bad);

  /* LogicalTypes.md's example. */
  static const uint8_t want[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55,
                                   0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb,
                                   0xcc, 0xdd, 0xee, 0xff};
  uint8_t out[16];
  const char *ex = "00112233-4455-6677-8899-aabbccddeeff";
  CHECK(pq_uuid_from_text(ex, 36, out, LABEL, &err) == PQ_OK &&
            memcmp(out, want, 16) == 0,
        "the spec's UUID");
  ex = "00112233-4455-6677-8899-AABBCCDDEEFF";
  CHECK(pq_uuid_from_text(ex, 36, out, LABEL, &err) == PQ_OK &&
            memcmp(out, want, 16) == 0,
        "the spec's UUID in upper case");
  ex = "00112233445566778899aAbBcCdDeEfF";
  CHECK(pq_uuid_from_text(ex, 32, out, LABEL, &err) == PQ_OK &&
            memcmp(out, want, 16) == 0,
        "the spec's UUID without dashes");

  static const struct {
    const char *s, *msg;
  } no[] = {
      {"0011223344556677",
       "c: '0011223344556677' is not a UUID: 16 characters, not 36 "
       "(8-4-4-4-12 hex digits) or 32"},
      {"", "c: '' is not a UUID: 0 characters, not 36 (8-4-4-4-12 hex digits) "
           "or 32"},
      {"{00112233-4455-6677-8899-aabbccddeeff}",
       "c: '{00112233-4455-6677-8899-aabbccddeeff}' is not a UUID: 38 "
       "characters, not 36 (8-4-4-4-12 hex digits) or 32"},
      {"00112233-4455-6677-8899-aabbccddeefg",
       "c: '00112233-4455-6677-8899-aabbccddeefg' is not a UUID: not a hex "
       "digit at offset 35"},
      {"001122334-455-6677-8899-aabbccddeeff",
       "c: '001122334-455-6677-8899-aabbccddeeff' is not a UUID: no '-' at "
       "offset 8"},
      {"00112233445566778899aabbccddeeff0000",
       "c: '00112233445566778899aabbccddeeff0000' is not a UUID: no '-' at "
       "offset 8"},
      {"00112233-4455-6677-8899aabbccddeeff",
       "c: '00112233-4455-6677-8899aabbccddeeff' is not a UUID: 35 "
       "characters, not 36 (8-4-4-4-12 hex digits) or 32"},
      {"0011223344556677-899aabbccddeeff",
       "c: '0011223344556677-899aabbccddeeff' is not a UUID: not a hex digit "
       "at offset 16"},
  };
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
    memset(out, 0x5A, 16);
    CHECK_FAIL(pq_uuid_from_text(no[i].s, strlen(no[i].s), out, LABEL, &ERR),
               PQ_MISUSE, no[i].msg);
    CHECK(out[0] == 0x5A && out[15] == 0x5A, "%s: the output was written",
          no[i].s);
  }
}

/* The forms pq_text_date and pq_text_time print with snprintf. */
static void printf_date(char *s, size_t cap, int64_t days) {
  char t[40];
  pq_text_date(t, sizeof t, days); /* the fields, read back */
  long long y;
  int m, d;
  sscanf(t, "%lld-%d-%d", &y, &m, &d);
  snprintf(s, cap, "%04lld-%02d-%02d", y, m, d);
}

/* The text of a big-endian two's complement decimal the slow way: its
** magnitude divided by ten a byte at a time, a digit a pass. */
static size_t slow_decimal(char *s, const uint8_t *p, size_t n, int scale) {
  uint8_t mag[64];
  while (n > 1 && ((p[0] == 0 && p[1] < 0x80) || (p[0] == 0xff && p[1] >= 0x80))) {
    p++;
    n--;
  }
  int neg = n > 0 && p[0] >= 0x80;
  memcpy(mag, p, n);
  if (neg) {
    int carry = 1;
    for (size_t i = n; i-- > 0;) {
      int v = (uint8_t)~mag[i] + carry;
      mag[i] = (uint8_t)v;
      carry = v >> 8;
    }
  }
  char dig[200];
  int k = 0;
  for (;;) {
    int rem = 0, any = 0;
    for (size_t i = 0; i < n; i++) {
      int cur = rem << 8 | mag[i];
      mag[i] = (uint8_t)(cur / 10);
      rem = cur % 10;
      any |= mag[i];
    }
    dig[k++] = (char)('0' + rem);
    if (!any) break;
  }
  while (k <= scale) dig[k++] = '0';
  size_t o = 0;
  if (neg) s[o++] = '-';
  for (int i = k - 1; i >= 0; i--) {
    s[o++] = dig[i];
    if (i == scale && scale > 0) s[o++] = '.';
  }
  s[o] = 0;
  return o;
}

/* Decimals' text against the slow way: every byte length 0..45 (past 38
** significant bytes none), every scale 0..39, random values and the
** extremes of each length, and int64 values through pq_text_decimal64. */
static void test_decimal_text(void) {
  int64_t bad = 0;
  char why[300] = "";
  for (int i = 0; i < 60000; i++) {
    size_t n = (size_t)(i % 46);
    int scale = (int)((i / 46) % 40);
    uint8_t b[48];
    int form = (int)(rnd() % 8);
    for (size_t j = 0; j < n; j++) b[j] = (uint8_t)rnd();
    if (n && form == 0) { /* the most negative of n bytes */
      memset(b, 0, n);
      b[0] = 0x80;
    } else if (n && form == 1) { /* the most positive */
      memset(b, 0xff, n);
      b[0] = 0x7f;
    } else if (n && form == 2) { /* -1, 0 and small ones, sign-repeated */
      memset(b, (int)(rnd() & 1) ? 0xff : 0, n);
      b[n - 1] = (uint8_t)rnd();
    } else if (n > 4 && form == 3) { /* runs of zeros inside */
      memset(b + 1, 0, n - 2);
    }
    char want[200], got[PQ_CELL_SCRATCH];
    size_t wn = slow_decimal(want, b, n, scale);
    int fits = pq_decimal_fits_text(b, n);
    size_t gn = pq_text_decimal_fit(got, sizeof got, b, n, scale);
    if (!fits) { /* past 38 bytes: none made */
      if (gn != 0 && !bad++)
        snprintf(why, sizeof why, "%zu bytes: %zu made", n, gn);
      continue;
    }
    if (gn != wn || strcmp(got, want)) {
      if (!bad++)
        snprintf(why, sizeof why, "%zu bytes, scale %d, fitted: '%s', want '%s'", n,
                 scale, got, want);
    }
    gn = pq_text_decimal(got, sizeof got, b, n, scale);
    if (gn != wn || strcmp(got, want)) {
      if (!bad++)
        snprintf(why, sizeof why, "%zu bytes, scale %d: '%s', want '%s'", n,
                 scale, got, want);
    }
    if (n == 8) { /* the same value as an int64 */
      uint64_t u = 0;
      for (int j = 0; j < 8; j++) u = u << 8 | b[j];
      gn = pq_text_decimal64(got, sizeof got, (int64_t)u, scale);
      if (gn != wn || strcmp(got, want)) {
        if (!bad++)
          snprintf(why, sizeof why, "int64 %lld, scale %d: '%s', want '%s'",
                   (long long)u, scale, got, want);
      }
    }
  }
  CHECK(bad == 0, "%lld decimal texts differ from the slow way: %s",
        (long long)bad, why);
  /* A short buffer: cut, and ended with a NUL. */
  uint8_t v[2] = {0x30, 0x39}; /* 12345 */
  char s[4];
  size_t k = pq_text_decimal(s, sizeof s, v, 2, 2);
  CHECK(k == 3 && !strcmp(s, "123"), "cut: %zu '%s'", k, s);
  k = pq_text_decimal64(s, sizeof s, -12345, 2);
  CHECK(k == 3 && !strcmp(s, "-12"), "cut: %zu '%s'", k, s);
}

static void test_by_hand(void) {
  int64_t bad = 0;
  char got[PQ_CELL_SCRATCH], want[PQ_CELL_SCRATCH];
  pq_day_text day;
  memset(&day, 0, sizeof day);
  for (int i = 0; i < 200000; i++) {
    int unit = 1 + i % 3;
    int64_t per = unit == 1 ? 1000 : unit == 2 ? 1000000 : 1000000000;
    int digits = unit == 1 ? 3 : unit == 2 ? 6 : 9;
    /* times of day, and past it (durations), some whole seconds */
    int64_t t = between(-3 * 86400 * per, 200 * 3600 * per);
    if (i % 5 == 0) t -= t % per;
    uint64_t mag = t < 0 ? (uint64_t)-t : (uint64_t)t;
    uint64_t secs = mag / (uint64_t)per, frac = mag % (uint64_t)per;
    int k = snprintf(want, sizeof want, "%s%02llu:%02d:%02d", t < 0 ? "-" : "",
                     (unsigned long long)(secs / 3600), (int)(secs / 60 % 60),
                     (int)(secs % 60));
    if (frac)
      snprintf(want + k, sizeof want - (size_t)k, ".%0*llu", digits,
               (unsigned long long)frac);
    size_t n = pq_text_time(got, sizeof got, t, per, digits);
    if (n != strlen(want) || strcmp(got, want)) bad++;
    /* dates of every year, and far ones */
    int64_t days = i % 7 ? between(-719528 - 400, 2932897 + 400)
                         : between(-4000000000LL, 4000000000LL);
    printf_date(want, sizeof want, days);
    n = pq_text_date(got, sizeof got, days);
    if (n != strlen(want) || strcmp(got, want)) bad++;
    /* timestamps, runs of one day with the date kept, against none */
    int64_t v = i % 4 ? between(-719162, 2932896) * 86400 * 1000 +
                            between(0, 86400 * 1000 - 1)
                      : between(-400LL * 365 * 86400 * 1000, 400LL * 365 * 86400 * 1000);
    if (i % 3) v = (int64_t)i * 7919; /* near 1970, many of one day */
    pq_text_timestamp(want, sizeof want, v, 1);
    n = pq_text_timestamp_in(got, sizeof got, v, 1, &day);
    if (n != strlen(want) || strcmp(got, want)) bad++;
  }
  CHECK(bad == 0, "%lld texts by hand differ from printf's", (long long)bad);
  /* Instants: the plain form's byte order is the parsed order.  And a
  ** max() and a min() over the texts b, as SQLite runs them (the kept text
  ** first, in one buffer rewritten when another is kept), with a memory
  ** of the texts found plain: the same results as without it. */
  int64_t wrong = 0, fast = 0, memo_wrong = 0;
  pq_instant_memo memo_max = {0}, memo_min = {0};
  char best[2][64] = {"", ""};
  size_t nbest[2] = {0, 0};
  for (int i = 0; i < 200000; i++) {
    char a[64], b[64], az[66], bz[66];
    int64_t va = between(-2LL * 365 * 86400, 2LL * 365 * 86400) * 1000000;
    int64_t vb = i % 2 ? va + between(-5000000, 5000000)
                       : between(-2LL * 365 * 86400, 2LL * 365 * 86400) * 1000000;
    if (i % 3 == 0) vb -= vb % 1000000; /* no fraction */
    /* nanoseconds now and then: fractions of 9 digits */
    int nano = i % 5 == 4;
    pq_text_timestamp(a, sizeof a, nano ? va * 1000 + between(0, 999) : va, 2 + nano);
    pq_text_timestamp(b, sizeof b, nano ? vb * 1000 + between(0, 999) : vb, 2 + nano);
    if (i % 11 == 0) a[10] = 0; /* dates alone */
    if (i % 13 == 0) b[10] = 0;
    if (i % 17 == 0) memcpy(a + 5, "02-30", 5); /* days past the month */
    if (i % 19 == 0) memcpy(b + 8, "31", 2);
    if (i % 23 == 0) memcpy(a + 11, "24", 2);
    if (i % 29 == 0) { /* a byte that is no digit, or not its separator */
      static const char odd[] = ":;?/ a-.\x7f";
      size_t at = (size_t)between(0, (int64_t)strlen(a) - 1);
      a[at] = odd[between(0, (int64_t)sizeof odd - 2)];
    }
    if (i % 31 == 0) strcpy(b, a); /* the same text */
    /* b as a but in one field or byte: the checks b is spared, having
    ** a's date or time, must not spare it a field out of range */
    if (i % 37 == 0 && strlen(a) > 12) {
      strcpy(b, a);
      static const char *const late[] = {"24", "29", "30", "60", "99"};
      size_t at = (size_t)(11 + 3 * between(0, 2));
      memcpy(b + at, late[between(0, 4)], 2);
    }
    if (i % 41 == 0) {
      strcpy(b, a);
      static const char *const dd[] = {"00", "29", "30", "31", "32"};
      memcpy(b + 8, dd[between(0, 4)], 2);
      if (i % 2) memcpy(b + 5, "02", 2);
    }
    if (i % 47 == 0 && strlen(b) > 12) { /* b's own time out of range */
      static const char *const late[] = {"24", "60", "99"};
      memcpy(b + 11 + 3 * between(0, 2), late[between(0, 2)], 2);
    }
    if (i % 43 == 0 && strlen(a) > 20) { /* a fraction's digit */
      strcpy(b, a);
      b[between(20, (int64_t)strlen(a) - 1)] = "9/:a"[between(0, 3)];
    }
    snprintf(az, sizeof az, " %s", a);
    snprintf(bz, sizeof bz, " %s", b);
    int x = pq_instant_compare(a, strlen(a), b, strlen(b));
    int y = pq_instant_compare(az, strlen(az), bz, strlen(bz));
    fast += strlen(a) == strlen(b);
    int z = pq_instant_compare(b, strlen(b), a, strlen(a));
    if (x != y || z != -y) wrong++;
    for (int k = 0; k < 2; k++) { /* 0: max, 1: min */
      pq_instant_memo *m = k ? &memo_min : &memo_max;
      size_t nb = strlen(b);
      int r = pq_instant_compare(best[k], nbest[k], b, nb);
      if (pq_instant_compare_memo(m, best[k], nbest[k], b, nb) != r)
        memo_wrong++;
      if (i == 0 || (k ? r > 0 : r < 0)) {
        memcpy(best[k], b, nb);
        nbest[k] = nb;
      }
    }
  }
  CHECK(wrong == 0 && fast > 50000,
        "%lld instant comparisons differ from the parsed ones (%lld fast)",
        (long long)wrong, (long long)fast);
  CHECK(memo_wrong == 0,
        "%lld instant comparisons with a memory differ from those without",
        (long long)memo_wrong);
  /* Each length the plain form has, each byte of it changed to each of a
  ** few, against the same text: the fast order, the parsed one. */
  /* Each text exactly as long as it is (no byte after it to read, under
  ** a sanitizer), of every length to the longest. */
  static const char base[] = "2023-02-28 23:59:58.123456789012345678";
  static const char subst[] = "0123456789-: .,/a\x7f";
  int64_t lens = 0;
  wrong = 0;
  for (size_t n = 1; n <= sizeof base - 1; n++) {
    lens += n == 10 || n == 19 || n > 20;
    for (size_t at = 0; at < n; at++) {
      for (size_t k = 0; k < sizeof subst - 1; k++) {
        char *a = malloc(n), *b = malloc(n), az[41], bz[41];
        if (!a || !b) {
          free(a);
          free(b);
          continue;
        }
        memcpy(a, base, n);
        memcpy(b, base, n);
        b[at] = subst[k];
        snprintf(az, sizeof az, " %.*s", (int)n, a);
        snprintf(bz, sizeof bz, " %.*s", (int)n, b);
        int y = pq_instant_compare(az, n + 1, bz, n + 1);
        /* with a memory: empty, then holding what the calls before kept */
        pq_instant_memo m = {0};
        if (pq_instant_compare(a, n, b, n) != y ||
            pq_instant_compare(b, n, a, n) != -y ||
            pq_instant_compare_memo(&m, a, n, b, n) != y ||
            pq_instant_compare_memo(&m, b, n, a, n) != -y ||
            pq_instant_compare_memo(&m, a, n, b, n) != y)
          wrong++;
        free(a);
        free(b);
      }
    }
  }
  CHECK(wrong == 0 && lens == 20,
        "%lld one-byte changes order otherwise than parsed (%lld plain lengths)",
        (long long)wrong, (long long)lens);
}

int main(void) {
  test_by_hand();
  test_dates();
  test_times();
  test_timestamps();
  test_int96();
  test_decimals();
  test_decimal_text();
  test_uuids();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
