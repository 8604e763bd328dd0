/*
** types.c -- a column's type as parquet_write's options name it: the
** names of the scalar types, each one's physical type and annotation, and
** a column's encoding from the options: given (a dictionary encoding
** means dictionary), "auto", else a dictionary falling back to PLAIN, as
** careful writers do.
*/
#include "../format/format.h"

#include <stdio.h>

static int wt_lower(int c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* a[0..n) is b, in either case. */
static int wt_ieq(const char *a, const char *b, size_t n) {
  if (strlen(b) != n) return 0;
  for (size_t i = 0; i < n; i++)
    if (wt_lower((unsigned char)a[i]) != wt_lower((unsigned char)b[i])) return 0;
  return 1;
}

/* EdgeInterpolationAlgorithm's names (spec/Geospatial.md), in its order. */
static const char *const wt_algorithms[] = {"spherical", "vincenty", "thomas",
                                            "andoyer", "karney"};

/* GEOMETRY, GEOMETRY(crs), GEOGRAPHY, GEOGRAPHY(crs), GEOGRAPHY(crs,
** algorithm), GEOGRAPHY(algorithm): the crs is the text inside the
** parentheses as it is (spaces around it dropped), up to a last comma
** followed by an algorithm's name, so that a PROJJSON crs needs no
** quoting.  s[0..n) is the name; 0 on success. */
static int wt_geo(const char *s, size_t n, pq_write_type *t) {
  int geog = wt_ieq(s, "GEOGRAPHY", n);
  t->kind = geog ? PQ_WT_GEOGRAPHY : PQ_WT_GEOMETRY;
  const char *a = s + n;
  while (*a == ' ') a++;
  if (!*a) return 0;
  if (*a != '(') return 1;
  const char *e = a + strlen(a);
  while (e > a && e[-1] == ' ') e--;
  if (e - a < 2 || e[-1] != ')') return 1;
  a++;
  e--;
  while (a < e && *a == ' ') a++;
  while (e > a && e[-1] == ' ') e--;
  if (geog) {
    const char *c = e; /* after the last comma, or a */
    while (c > a && c[-1] != ',') c--;
    const char *w = c;
    while (w < e && *w == ' ') w++;
    for (int k = 0; k < 5; k++) {
      if (!wt_ieq(w, wt_algorithms[k], (size_t)(e - w))) continue;
      t->algorithm = k + 1;
      if (c == a) return 0; /* GEOGRAPHY(algorithm) */
      e = c - 1;
      while (e > a && e[-1] == ' ') e--;
      break;
    }
  }
  if (e == a || !pq_utf8_valid((const uint8_t *)a, (size_t)(e - a))) return 1;
  for (const char *q = a; q < e; q++) /* (a PROJJSON may have lines) */
    if ((unsigned char)*q < 0x20 && *q != '\t' && *q != '\n' && *q != '\r')
      return 1;
  t->crs = a;
  t->crs_len = (size_t)(e - a);
  return 0;
}

/* Parses a type name of the options: INT32, ..., TIME(us), TIMESTAMP(ms,
** utc), DECIMAL(p, s), FIXED_LEN_BYTE_ARRAY(n), GEOMETRY(crs), ....  0 on
** success. */
int pq_write_type_parse(const char *s, pq_write_type *t) {
  memset(t, 0, sizeof *t);
  while (*s == ' ') s++;
  size_t n = strcspn(s, "( ");
  if (wt_ieq(s, "GEOMETRY", n) || wt_ieq(s, "GEOGRAPHY", n))
    return wt_geo(s, n, t);
  const char *args = strchr(s, '(');
  char a[3][32] = {{0}};
  int na = 0;
  if (args) {
    const char *p = args + 1;
    while (*p && *p != ')' && na < 3) {
      while (*p == ' ') p++;
      size_t k = strcspn(p, ",) ");
      if (k >= sizeof a[0]) return 1;
      memcpy(a[na++], p, k);
      p += k;
      while (*p == ' ') p++;
      if (*p == ',') p++;
    }
    if (*p != ')' || p[1 + strspn(p + 1, " ")] != 0) return 1;
  } else if (s[n + strspn(s + n, " ")] != 0) {
    return 1;
  }
  static const struct {
    const char *name;
    int kind;
  } plain[] = {{"BOOLEAN", PQ_WT_BOOLEAN}, {"INT32", PQ_WT_INT32},
               {"INT64", PQ_WT_INT64},     {"FLOAT", PQ_WT_FLOAT},
               {"DOUBLE", PQ_WT_DOUBLE},   {"STRING", PQ_WT_STRING},
               {"JSON", PQ_WT_JSON},       {"BINARY", PQ_WT_BINARY},
               {"BYTE_ARRAY", PQ_WT_BINARY}, {"DATE", PQ_WT_DATE},
               {"UUID", PQ_WT_UUID},       {"INT96", PQ_WT_INT96}};
  if (!args) {
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
      if (wt_ieq(s, plain[i].name, n)) {
        t->kind = plain[i].kind;
        return 0;
      }
    return 1;
  }
  char *end;
  if (wt_ieq(s, "TIME", n) || wt_ieq(s, "TIMESTAMP", n)) {
    t->kind = wt_ieq(s, "TIME", n) ? PQ_WT_TIME : PQ_WT_TIMESTAMP;
    if (na < 1 || na > 2) return 1;
    t->unit = wt_ieq(a[0], "ms", strlen(a[0]))   ? PQ_UNIT_MILLIS
              : wt_ieq(a[0], "us", strlen(a[0])) ? PQ_UNIT_MICROS
              : wt_ieq(a[0], "ns", strlen(a[0])) ? PQ_UNIT_NANOS
                                              : 0;
    if (!t->unit) return 1;
    if (na == 2) {
      if (!wt_ieq(a[1], "utc", strlen(a[1]))) return 1;
      t->utc = 1;
    }
    return 0;
  }
  if (wt_ieq(s, "DECIMAL", n)) {
    if (na != 2) return 1;
    long p = strtol(a[0], &end, 10);
    if (*end || p < 1 || p > 38) return 1;
    long sc = strtol(a[1], &end, 10);
    if (*end || sc < 0 || sc > p) return 1;
    t->kind = PQ_WT_DECIMAL;
    t->precision = (int)p;
    t->scale = (int)sc;
    return 0;
  }
  if (wt_ieq(s, "FIXED_LEN_BYTE_ARRAY", n)) {
    if (na != 1) return 1;
    long len = strtol(a[0], &end, 10);
    if (*end || len < 1 || len > INT32_MAX) return 1;
    t->kind = PQ_WT_FIXED;
    t->length = (int32_t)len;
    return 0;
  }
  return 1;
}

const char *pq_write_type_name(const pq_write_type *t, char *buf, size_t cap) {
  static const char *const names[] = {
      "?",    "BOOLEAN", "INT32", "INT64",  "FLOAT", "DOUBLE",
      "STRING", "JSON",  "BINARY", "FIXED", "DATE",  "TIME",
      "TIMESTAMP", "DECIMAL", "UUID", "INT96"};
  static const char *const units[] = {"", "ms", "us", "ns"};
  switch (t->kind) {
    case PQ_WT_TIME:
    case PQ_WT_TIMESTAMP:
      snprintf(buf, cap, "%s(%s%s)", names[t->kind], units[t->unit],
               t->utc ? ", utc" : "");
      return buf;
    case PQ_WT_DECIMAL:
      snprintf(buf, cap, "DECIMAL(%d,%d)", t->precision, t->scale);
      return buf;
    case PQ_WT_FIXED:
      snprintf(buf, cap, "FIXED_LEN_BYTE_ARRAY(%d)", (int)t->length);
      return buf;
    case PQ_WT_GEOMETRY: return "GEOMETRY";
    case PQ_WT_GEOGRAPHY: return "GEOGRAPHY";
    default:
      return names[t->kind];
  }
}

/* Bytes of the smallest two's complement integer that holds every
** unscaled DECIMAL of the precision: 10^p - 1 < 2^(8n - 1). */
static int32_t decimal_bytes(int precision) {
  int32_t n = 1;
  while (n < 16 && precision * 3.321928094887362 >= 8.0 * n - 1) n++;
  return n;
}

/* The physical type and annotation of t into c's params and options. */
void pq_write_type_params(const pq_write_type *t, pq_params *p, pq_write_options *o) {
  o->logical = PQ_LOGICAL_NONE;
  o->string = 0;
  o->crs = NULL;
  o->crs_len = 0;
  o->algorithm = 0;
  p->type_length = 0;
  switch (t->kind) {
    case PQ_WT_BOOLEAN: p->type = PQ_BOOLEAN; break;
    case PQ_WT_INT32: p->type = PQ_INT32; break;
    case PQ_WT_FLOAT: p->type = PQ_FLOAT; break;
    case PQ_WT_DOUBLE: p->type = PQ_DOUBLE; break;
    case PQ_WT_STRING:
      p->type = PQ_BYTE_ARRAY;
      o->logical = PQ_LOGICAL_STRING;
      break;
    case PQ_WT_JSON:
      p->type = PQ_BYTE_ARRAY;
      o->logical = PQ_LOGICAL_JSON;
      break;
    case PQ_WT_BINARY: p->type = PQ_BYTE_ARRAY; break;
    case PQ_WT_FIXED:
      p->type = PQ_FIXED_LEN_BYTE_ARRAY;
      p->type_length = t->length;
      break;
    case PQ_WT_DATE:
      p->type = PQ_INT32;
      o->logical = PQ_LOGICAL_DATE;
      break;
    case PQ_WT_TIME:
      p->type = t->unit == PQ_UNIT_MILLIS ? PQ_INT32 : PQ_INT64;
      o->logical = PQ_LOGICAL_TIME;
      o->unit = t->unit;
      o->utc = t->utc;
      break;
    case PQ_WT_TIMESTAMP:
      p->type = PQ_INT64;
      o->logical = PQ_LOGICAL_TIMESTAMP;
      o->unit = t->unit;
      o->utc = t->utc;
      break;
    case PQ_WT_DECIMAL:
      o->logical = PQ_LOGICAL_DECIMAL;
      o->precision = t->precision;
      o->scale = t->scale;
      if (t->precision <= 9) {
        p->type = PQ_INT32;
      } else if (t->precision <= 18) {
        p->type = PQ_INT64;
      } else {
        p->type = PQ_FIXED_LEN_BYTE_ARRAY;
        p->type_length = decimal_bytes(t->precision);
      }
      break;
    case PQ_WT_UUID:
      p->type = PQ_FIXED_LEN_BYTE_ARRAY;
      p->type_length = 16;
      o->logical = PQ_LOGICAL_UUID;
      break;
    case PQ_WT_INT96: p->type = PQ_INT96; break;
    case PQ_WT_GEOMETRY:
    case PQ_WT_GEOGRAPHY:
      p->type = PQ_BYTE_ARRAY;
      o->logical = t->kind == PQ_WT_GEOMETRY ? PQ_LOGICAL_GEOMETRY
                                             : PQ_LOGICAL_GEOGRAPHY;
      o->crs = t->crs;
      o->crs_len = t->crs_len;
      o->algorithm = t->algorithm;
      break;
    default: p->type = PQ_INT64; break;
  }
  p->type_set = 1;
}

void pq_write_type_encoding(const char *enc, int dictionary, pq_params *p,
                            pq_write_options *o) {
  pq_encoding e = PQ_PLAIN;
  int is_auto = enc && wt_ieq(enc, "auto", strlen(enc));
  if (enc && !is_auto) pq_encoding_parse(enc, strlen(enc), &e);
  if (is_auto) {
    /* every encoding of the type, and a dictionary unless refused (or,
    ** by default, for BOOLEAN, as without auto), tried on each chunk's
    ** first page */
    o->auto_encoding =
        dictionary == 0 || (dictionary < 0 && p->type == PQ_BOOLEAN)
            ? 2
            : 1;
    dictionary = 0;
  }
  int dict = dictionary;
  if (e == PQ_RLE_DICTIONARY || e == PQ_PLAIN_DICTIONARY) {
    dict = 1;
    e = PQ_PLAIN;
  }
  if (dict < 0) dict = !enc && p->type != PQ_BOOLEAN;
  if (e == PQ_RLE && p->type == PQ_BOOLEAN) p->length_prefix = 1;
  if (dict) {
    p->encoding = PQ_RLE_DICTIONARY;
    o->fallback = (int)e;
  } else {
    p->encoding = e;
    o->fallback = -1;
  }
}
