/*
** catalog.c -- the names of things: physical types, the catalogue of
** encodings (parquet_encodings), the size of a value, and the lookup of a
** name given in any case or as its enum number.
*/
#include "util.h"

static const char *const type_names[8] = {
    "BOOLEAN", "INT32",  "INT64",      "INT96",
    "FLOAT",   "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};

static const char all_types[] =
    "BOOLEAN, INT32, INT64, INT96, FLOAT, DOUBLE, BYTE_ARRAY, "
    "FIXED_LEN_BYTE_ARRAY";

/* One row per enum number.  `section` points into spec/ beside DESIGN.md. */
static const pq_encoding_info encodings[PQ_ENCODING_COUNT] = {
    {0, "PLAIN", all_types, "current",
     "values back to back: little-endian numbers, booleans one bit each, "
     "byte arrays behind a 4-byte length",
     "Encodings.md#PLAIN", 1},
    {1, "GROUP_VAR_INT", "INT32, INT64", "historical",
     "groups of 4 (INT32) or 5 (INT64) little-endian integers of 1 to 8 "
     "bytes behind their length bits; never used in files",
     "seeds/000 GroupVarInt", 1},
    {2, "PLAIN_DICTIONARY", all_types, "deprecated",
     "indices into a PLAIN dictionary as a bit width byte and RLE/bit-packed "
     "runs; the name RLE_DICTIONARY replaces it",
     "Encodings.md#DICTIONARY", 1},
    {3, "RLE", "BOOLEAN; levels and dictionary indices (0 to 32 bits)",
     "current",
     "RLE/bit-packing hybrid: runs of one repeated value and groups of 8 "
     "bit-packed values, LSB first",
     "Encodings.md#RLE", 1},
    {4, "BIT_PACKED", "levels (0 to 32 bits)", "deprecated",
     "values of a fixed bit width back to back, MSB first; superseded by "
     "RLE",
     "Encodings.md#BITPACKED", 1},
    {5, "DELTA_BINARY_PACKED", "INT32, INT64", "current",
     "first value, then blocks of deltas from a minimum, bit-packed per "
     "miniblock with its own width",
     "Encodings.md#DELTAENC", 1},
    {6, "DELTA_LENGTH_BYTE_ARRAY", "BYTE_ARRAY", "current",
     "all lengths as DELTA_BINARY_PACKED, then all bytes concatenated",
     "Encodings.md#DELTALENGTH", 1},
    {7, "DELTA_BYTE_ARRAY", "BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY", "current",
     "front coding: prefix lengths shared with the previous value as "
     "DELTA_BINARY_PACKED, then the suffixes as DELTA_LENGTH_BYTE_ARRAY",
     "Encodings.md#DELTASTRING", 1},
    {8, "RLE_DICTIONARY", all_types, "current",
     "indices into a PLAIN dictionary as a bit width byte and RLE/bit-packed "
     "runs",
     "Encodings.md#DICTIONARY", 1},
    {9, "BYTE_STREAM_SPLIT",
     "FLOAT, DOUBLE, INT32, INT64, FIXED_LEN_BYTE_ARRAY", "current",
     "byte k of every value in stream k, the streams concatenated; helps a "
     "codec that follows",
     "Encodings.md#BYTESTREAMSPLIT", 1},
    {10, "ALP", "FLOAT, DOUBLE", "preview",
     "adaptive lossless floating point: decimal scaling to integers, frame "
     "of reference, bit packing, exceptions",
     "AlpEncoding.md", 1},
};

const char *pq_type_name(pq_type t) {
  return (unsigned)t < 8 ? type_names[t] : "?";
}

const char *pq_encoding_name(pq_encoding e) {
  return (unsigned)e < PQ_ENCODING_COUNT ? encodings[e].name : "?";
}

const pq_encoding_info *pq_encoding_info_get(pq_encoding e) {
  return (unsigned)e < PQ_ENCODING_COUNT ? &encodings[e] : NULL;
}

int pq_encoding_supports(pq_encoding e, pq_type t) {
  switch (e) {
    case PQ_PLAIN:
    case PQ_PLAIN_DICTIONARY:
    case PQ_RLE_DICTIONARY: return 1;
    case PQ_RLE: return t == PQ_BOOLEAN;
    case PQ_GROUP_VAR_INT:
    case PQ_DELTA_BINARY_PACKED: return t == PQ_INT32 || t == PQ_INT64;
    case PQ_DELTA_LENGTH_BYTE_ARRAY: return t == PQ_BYTE_ARRAY;
    case PQ_DELTA_BYTE_ARRAY:
      return t == PQ_BYTE_ARRAY || t == PQ_FIXED_LEN_BYTE_ARRAY;
    case PQ_BYTE_STREAM_SPLIT:
      return t == PQ_FLOAT || t == PQ_DOUBLE || t == PQ_INT32 ||
             t == PQ_INT64 || t == PQ_FIXED_LEN_BYTE_ARRAY;
    case PQ_ALP: return t == PQ_FLOAT || t == PQ_DOUBLE;
    default: return 0;
  }
}

/* 1 when a[0..n) is b, ignoring the case of ASCII letters. */
static int ieq(const char *a, size_t n, const char *b) {
  size_t m = strlen(b);
  if (n != m) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = a[i];
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    if (c != b[i]) return 0;
  }
  return 1;
}

/* Parses a decimal number of at most 9 digits; -1 if s is not one. */
static long small_number(const char *s, size_t n) {
  if (n == 0 || n > 9) return -1;
  long v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

static void trim(const char **s, size_t *n) {
  while (*n && (**s == ' ' || **s == '\t')) (*s)++, (*n)--;
  while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t')) (*n)--;
}

int pq_name_lookup(const void *names, size_t stride, int count, const char *s,
                   size_t n) {
  trim(&s, &n);
  long v = small_number(s, n);
  if (v >= 0) return v < count ? (int)v : -1;
  for (int i = 0; i < count; i++) {
    const char *name;
    memcpy(&name, (const char *)names + (size_t)i * stride, sizeof name);
    if (ieq(s, n, name)) return i;
  }
  return -1;
}

int pq_encoding_parse(const char *s, size_t n, pq_encoding *out) {
  int i = pq_name_lookup(&encodings[0].name, sizeof *encodings,
                         PQ_ENCODING_COUNT, s, n);
  if (i < 0) return PQ_MISUSE;
  *out = (pq_encoding)i;
  return PQ_OK;
}

int pq_type_parse(const char *s, size_t n, pq_type *out, int32_t *type_length) {
  /* FIXED_LEN_BYTE_ARRAY needs its length, so neither its name nor 7 alone
  ** is enough. */
  int i = pq_name_lookup(type_names, sizeof *type_names,
                         PQ_FIXED_LEN_BYTE_ARRAY, s, n);
  if (i >= 0) {
    *out = (pq_type)i;
    *type_length = 0;
    return PQ_OK;
  }
  trim(&s, &n);
  /* FIXED_LEN_BYTE_ARRAY(n), n in 1..2^31-1 */
  const size_t k = sizeof "FIXED_LEN_BYTE_ARRAY" - 1;
  if (n > k + 2 && ieq(s, k, "FIXED_LEN_BYTE_ARRAY") && s[n - 1] == ')') {
    const char *a = s + k;
    size_t m = n - k - 1;
    trim(&a, &m);
    if (m == 0 || *a != '(') return PQ_MISUSE;
    a++, m--;
    trim(&a, &m);
    long len = small_number(a, m);
    if (len <= 0) return PQ_MISUSE;
    *out = PQ_FIXED_LEN_BYTE_ARRAY;
    *type_length = (int32_t)len;
    return PQ_OK;
  }
  return PQ_MISUSE;
}

size_t pq_value_size(pq_type t, int32_t type_length) {
  switch (t) {
    case PQ_BOOLEAN: return 1;
    case PQ_INT32: return 4;
    case PQ_INT64: return 8;
    case PQ_INT96: return 12;
    case PQ_FLOAT: return 4;
    case PQ_DOUBLE: return 8;
    case PQ_BYTE_ARRAY: return sizeof(pq_bytes);
    case PQ_FIXED_LEN_BYTE_ARRAY: return (size_t)type_length;
  }
  return 0;
}

size_t pq_plain_width(pq_type t, int32_t type_length) {
  if (t == PQ_BOOLEAN || t == PQ_BYTE_ARRAY) return 0;
  return pq_value_size(t, type_length);
}
