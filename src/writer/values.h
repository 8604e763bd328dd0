/*
** values.h -- SQL values as Parquet values: the inverses of the text the
** reader gives dates, times, timestamps, INT96, decimals and UUIDs
** (reader/cell.c, doc/values.md).  Whatever the reader writes for a valid
** stored value reads back here as that value, bit for bit.
**
** Every function returns PQ_OK, or fills err with "<label>: <message>":
**   PQ_MISUSE  the text is not a value of the kind: "'2024-13-01' is not a
**              date: month 13" (also a bad unit or decimal type)
**   PQ_RANGE   it is one, but the Parquet type cannot hold it: past int64
**              or int32, more digits than the precision, a fraction finer
**              than the unit or the scale
** label names the column (NULL: "value").  Text is s[0..n), not
** necessarily terminated; no blanks are skipped.
*/
#ifndef PQ_WRITER_VALUES_H
#define PQ_WRITER_VALUES_H

#include "../format/format.h"

/* ---- Dates and times --------------------------------------------------------
** A date is 'YYYY-MM-DD' in the proleptic Gregorian calendar, what SQLite's
** date() gives; the year may have more digits, and a sign ('-001' is the
** year before 0000, as the reader writes it); unsigned, it has at least
** four.  A time of day is 'HH:MM[:SS[.fraction]]', 00:00 to 23:59:59.999...
** (no 24:00, no leap second: not the reader's text of a stored time outside
** the day); fraction digits past the unit must be zeros.  A timestamp is a
** date alone (midnight), or a date, ' ' or 'T', and a time, then optionally
** 'Z' or an offset '+HH:MM' / '-HH:MM', which is taken out (the value is
** UTC); 'T' and 'Z' in either case.
** unit: PQ_UNIT_MILLIS, PQ_UNIT_MICROS, PQ_UNIT_NANOS. */

/* DATE: days since 1970-01-01, in 32 bits. */
int pq_date_from_text(const char *s, size_t n, int32_t *days,
                      const char *label, pq_error *err);
/* TIME: units since midnight (below 86400000 for MILLIS, whose INT32 takes
** it as it is). */
int pq_time_from_text(const char *s, size_t n, int unit, int64_t *out,
                      const char *label, pq_error *err);
/* TIMESTAMP: units since 1970-01-01 00:00:00 UTC, in 64 bits. */
int pq_timestamp_from_text(const char *s, size_t n, int unit, int64_t *out,
                           const char *label, pq_error *err);
/* INT96: nanoseconds of the day (int64, little-endian), then the Julian
** day (int32, little-endian) of the timestamp in UTC. */
int pq_int96_from_text(const char *s, size_t n, uint8_t out[12],
                       const char *label, pq_error *err);

/* ---- Decimals ------------------------------------------------------------------
** The unscaled integer value * 10^scale, of at most `precision` digits
** (1 to 38), stored as the physical type lays it out:
**   INT32                 an int32_t (precision up to 9)
**   INT64                 an int64_t (precision up to 18)
**   FIXED_LEN_BYTE_ARRAY  type_length bytes, big-endian two's complement
**                         (precision up to what the length holds)
**   BYTE_ARRAY            the fewest such bytes that hold it (1 to 16)
** out has room for pq_decimal_size() bytes; *len is set to what was
** written. */
typedef struct pq_decimal_spec {
  pq_type type;
  int32_t type_length; /* FIXED_LEN_BYTE_ARRAY(n): n */
  int precision, scale;
} pq_decimal_spec;

/* PQ_MISUSE when the spec is not a decimal this can write: precision
** outside 1..38, scale outside 0..precision, more digits than the type
** holds, another physical type.  Each function below checks it too. */
int pq_decimal_check(const pq_decimal_spec *d, const char *label,
                     pq_error *err);
/* Bytes a value takes in out: 4, 8, type_length, or 16 (at most). */
size_t pq_decimal_size(const pq_decimal_spec *d);

/* Text: an optional sign, digits with an optional point ('12', '1.5',
** '.5', '5.'), an optional exponent ('1.5e3', '25E-2').  Non-zero digits
** past the scale are PQ_RANGE (trailing zeros are not). */
int pq_decimal_from_text(const pq_decimal_spec *d, const char *s, size_t n,
                         void *out, size_t *len, const char *label,
                         pq_error *err);
/* An integer: v * 10^scale. */
int pq_decimal_from_int64(const pq_decimal_spec *d, int64_t v, void *out,
                          size_t *len, const char *label, pq_error *err);
/* A real: its exact binary value rounded to the scale, half away from zero
** (0.125 at scale 2 is 13; 0.145, which is 0.14499999999999999, is 14).
** NaN and the infinities are PQ_RANGE. */
int pq_decimal_from_double(const pq_decimal_spec *d, double v, void *out,
                           size_t *len, const char *label, pq_error *err);

/* ---- UUIDs ---------------------------------------------------------------------
** 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx' or 32 hex digits without dashes,
** either case, as 16 bytes in the order written. */
int pq_uuid_from_text(const char *s, size_t n, uint8_t out[16],
                      const char *label, pq_error *err);

#endif /* PQ_WRITER_VALUES_H */
