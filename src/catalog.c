/*
** catalog.c -- names of types and encodings, the catalogue of encodings,
** and the parameters (options) of a stream.
*/
#include <stdio.h>

#include "internal.h"

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
     "of reference, bit packing, exceptions (not implemented yet)",
     "AlpEncoding.md", 0},
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
    default: return 0;
  }
}

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

int pq_encoding_parse(const char *s, size_t n, pq_encoding *out) {
  trim(&s, &n);
  long v = small_number(s, n);
  if (v >= 0) {
    if (v >= PQ_ENCODING_COUNT) return PQ_MISUSE;
    *out = (pq_encoding)v;
    return PQ_OK;
  }
  for (int i = 0; i < PQ_ENCODING_COUNT; i++) {
    if (ieq(s, n, encodings[i].name)) {
      *out = (pq_encoding)i;
      return PQ_OK;
    }
  }
  return PQ_MISUSE;
}

int pq_type_parse(const char *s, size_t n, pq_type *out, int32_t *type_length) {
  trim(&s, &n);
  long v = small_number(s, n);
  if (v >= 0) {
    /* FIXED_LEN_BYTE_ARRAY needs its length, so 7 alone is not enough. */
    if (v >= PQ_FIXED_LEN_BYTE_ARRAY) return PQ_MISUSE;
    *out = (pq_type)v;
    *type_length = 0;
    return PQ_OK;
  }
  for (int i = 0; i < PQ_FIXED_LEN_BYTE_ARRAY; i++) {
    if (ieq(s, n, type_names[i])) {
      *out = (pq_type)i;
      *type_length = 0;
      return PQ_OK;
    }
  }
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

void pq_params_init(pq_params *p) {
  memset(p, 0, sizeof *p);
  p->encoding = PQ_PLAIN;
  p->type = PQ_INT64;
  p->count = PQ_NO_COUNT;
  p->bit_width = -1;
  p->length_prefix = -1;
  p->block_size = -1;
  p->miniblocks = -1;
}

/* ---- Options: a flat JSON object --------------------------------------- */

typedef struct jscan {
  const char *s;
  size_t n, i;
} jscan;

static void jspace(jscan *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
                         j->s[j->i] == '\n' || j->s[j->i] == '\r'))
    j->i++;
}

/* Reads a string without escapes other than \" \\ \/ into buf. */
static int jstring(jscan *j, char *buf, size_t cap) {
  if (j->i >= j->n || j->s[j->i] != '"') return 0;
  size_t k = 0;
  for (j->i++; j->i < j->n; j->i++) {
    char c = j->s[j->i];
    if (c == '"') {
      j->i++;
      buf[k] = 0;
      return 1;
    }
    if (c == '\\') {
      if (++j->i >= j->n) return 0;
      c = j->s[j->i];
      if (c != '"' && c != '\\' && c != '/') return 0;
    }
    if (k + 1 >= cap) return 0;
    buf[k++] = c;
  }
  return 0;
}

enum { JV_INT, JV_BOOL, JV_STRING, JV_NULL };

typedef struct jvalue {
  int kind;
  int64_t i;
  char str[256];
} jvalue;

static int jvalue_read(jscan *j, jvalue *v) {
  jspace(j);
  if (j->i >= j->n) return 0;
  char c = j->s[j->i];
  if (c == '"') {
    v->kind = JV_STRING;
    return jstring(j, v->str, sizeof v->str);
  }
  static const struct {
    const char *w;
    int kind, val;
  } words[] = {
      {"true", JV_BOOL, 1}, {"false", JV_BOOL, 0}, {"null", JV_NULL, 0}};
  for (size_t k = 0; k < 3; k++) {
    size_t m = strlen(words[k].w);
    if (j->n - j->i >= m && memcmp(j->s + j->i, words[k].w, m) == 0) {
      j->i += m;
      v->kind = words[k].kind;
      v->i = words[k].val;
      return 1;
    }
  }
  int neg = 0;
  if (c == '-') neg = 1, j->i++;
  if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9') return 0;
  uint64_t u = 0;
  while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') {
    if (u > (uint64_t)INT64_MAX / 10) return 0;
    u = u * 10 + (uint64_t)(j->s[j->i++] - '0');
    if (u > (uint64_t)INT64_MAX) return 0;
  }
  /* Only integers: a fraction or exponent is an error. */
  if (j->i < j->n &&
      (j->s[j->i] == '.' || j->s[j->i] == 'e' || j->s[j->i] == 'E'))
    return 0;
  v->kind = JV_INT;
  v->i = neg ? -(int64_t)u : (int64_t)u;
  return 1;
}

static int opt_fail(pq_error *err, const char *fmt, const char *a) {
  return pq_fail(err, PQ_MISUSE, "options", fmt, a);
}

static int want_int(const jvalue *v, const char *key, int64_t lo, int64_t hi,
                    int64_t *out, pq_error *err) {
  if (v->kind == JV_NULL) return PQ_OK;
  if (v->kind != JV_INT || v->i < lo || v->i > hi) {
    char msg[96];
    snprintf(msg, sizeof msg, "\"%%s\" must be an integer from %lld to %lld",
             (long long)lo, (long long)hi);
    return opt_fail(err, msg, key);
  }
  *out = v->i;
  return PQ_OK;
}

static int want_bool(const jvalue *v, const char *key, int *out,
                     pq_error *err) {
  if (v->kind == JV_NULL) return PQ_OK;
  if (v->kind != JV_BOOL)
    return opt_fail(err, "\"%s\" must be true or false", key);
  *out = (int)v->i;
  return PQ_OK;
}

/* Applies one key of the options to p; PQ_NOTFOUND when p has no such
** key. */
#define PQ_NOTFOUND (-1)
static int apply_option(pq_params *p, const char *key, const jvalue *v,
                        pq_error *err) {
  int64_t x;
  int rc = PQ_OK;
  if (strcmp(key, "count") == 0) {
    x = p->count;
    rc = want_int(v, key, 0, INT64_MAX, &x, err);
    p->count = x;
  } else if (strcmp(key, "bit_width") == 0) {
    x = p->bit_width;
    rc = want_int(v, key, 0, 64, &x, err);
    p->bit_width = (int)x;
  } else if (strcmp(key, "block_size") == 0) {
    x = p->block_size;
    rc = want_int(v, key, 1, INT64_MAX, &x, err);
    p->block_size = x;
  } else if (strcmp(key, "miniblocks") == 0) {
    x = p->miniblocks;
    rc = want_int(v, key, 1, INT64_MAX, &x, err);
    p->miniblocks = x;
  } else if (strcmp(key, "length_prefix") == 0) {
    rc = want_bool(v, key, &p->length_prefix, err);
  } else if (strcmp(key, "binary") == 0) {
    rc = want_bool(v, key, &p->binary, err);
  } else if (strcmp(key, "bit_order") == 0) {
    if (v->kind == JV_NULL) return PQ_OK;
    if (v->kind == JV_STRING && strcmp(v->str, "msb") == 0) {
      p->lsb_first = 0;
    } else if (v->kind == JV_STRING && strcmp(v->str, "lsb") == 0) {
      p->lsb_first = 1;
    } else {
      return opt_fail(err, "\"%s\" must be \"msb\" or \"lsb\"", key);
    }
  } else if (strcmp(key, "part") == 0) {
    if (v->kind == JV_NULL) return PQ_OK;
    if (v->kind == JV_STRING && strcmp(v->str, "indices") == 0) {
      p->dictionary_part = 0;
    } else if (v->kind == JV_STRING && strcmp(v->str, "dictionary") == 0) {
      p->dictionary_part = 1;
    } else {
      return opt_fail(err, "\"%s\" must be \"indices\" or \"dictionary\"", key);
    }
  } else {
    return PQ_NOTFOUND;
  }
  return rc;
}

/* Walks a flat JSON object, handing each key and value to apply(ctx). */
typedef int (*apply_fn)(void *ctx, const char *key, const jvalue *v,
                        pq_error *err);

static int parse_object(const char *json, size_t n, apply_fn apply, void *ctx,
                        pq_error *err) {
  jscan j = {json, n, 0};
  jspace(&j);
  if (j.i == j.n) return PQ_OK; /* empty text: no options */
  if (j.s[j.i] != '{') {
    return pq_fail(err, PQ_MISUSE, "options", "expected a JSON object");
  }
  j.i++;
  jspace(&j);
  if (j.i < j.n && j.s[j.i] == '}') {
    j.i++;
  } else {
    for (;;) {
      char key[32];
      jvalue v;
      jspace(&j);
      if (!jstring(&j, key, sizeof key)) {
        return pq_fail(err, PQ_MISUSE, "options",
                       "expected a key at character %zu", j.i);
      }
      jspace(&j);
      if (j.i >= j.n || j.s[j.i] != ':') {
        return pq_fail(err, PQ_MISUSE, "options",
                       "expected ':' at character %zu", j.i);
      }
      j.i++;
      if (!jvalue_read(&j, &v)) {
        return pq_fail(err, PQ_MISUSE, "options",
                       "bad value for \"%s\" at character %zu", key, j.i);
      }
      int rc = apply(ctx, key, &v, err);
      if (rc == PQ_NOTFOUND) return opt_fail(err, "unknown option \"%s\"", key);
      if (rc) return rc;
      jspace(&j);
      if (j.i < j.n && j.s[j.i] == ',') {
        j.i++;
        continue;
      }
      if (j.i < j.n && j.s[j.i] == '}') {
        j.i++;
        break;
      }
      return pq_fail(err, PQ_MISUSE, "options",
                     "expected ',' or '}' at character %zu", j.i);
    }
  }
  jspace(&j);
  if (j.i != j.n) {
    return pq_fail(err, PQ_MISUSE, "options",
                   "unexpected text after the object at character %zu", j.i);
  }
  return PQ_OK;
}

static int apply_params(void *ctx, const char *key, const jvalue *v,
                        pq_error *err) {
  return apply_option(ctx, key, v, err);
}

int pq_params_parse_options(pq_params *p, const char *json, size_t n,
                            pq_error *err) {
  return parse_object(json, n, apply_params, p, err);
}

/* ---- Options of a file writer ------------------------------------------ */

void pq_write_options_init(pq_write_options *o) {
  memset(o, 0, sizeof *o);
  o->codec = PQ_UNCOMPRESSED;
  o->page_version = 1;
  o->page_size = 1 << 20;
  o->nullable = 1;
  o->statistics = 1;
  o->crc = 1;
  o->string = -1;
  strcpy(o->name, "value");
}

typedef struct write_ctx {
  pq_write_options *o;
  pq_params *p;
} write_ctx;

static int apply_write(void *ctx, const char *key, const jvalue *v,
                       pq_error *err) {
  write_ctx *w = ctx;
  pq_write_options *o = w->o;
  int64_t x;
  int rc = PQ_OK;
  if (strcmp(key, "codec") == 0) {
    if (v->kind == JV_NULL) return PQ_OK;
    pq_codec c;
    if ((v->kind != JV_STRING ||
         pq_codec_parse(v->str, strlen(v->str), &c) != PQ_OK) &&
        (v->kind != JV_INT || v->i < 0 || v->i >= PQ_CODEC_COUNT)) {
      return opt_fail(err,
                      "\"%s\" must name a codec: UNCOMPRESSED, SNAPPY, GZIP, "
                      "BROTLI, LZ4, ZSTD or LZ4_RAW",
                      key);
    }
    o->codec = v->kind == JV_INT ? (pq_codec)v->i : c;
  } else if (strcmp(key, "page_version") == 0) {
    x = o->page_version;
    rc = want_int(v, key, 1, 2, &x, err);
    o->page_version = (int)x;
  } else if (strcmp(key, "page_size") == 0) {
    x = o->page_size;
    rc = want_int(v, key, 1, 1 << 30, &x, err);
    o->page_size = x;
  } else if (strcmp(key, "page_values") == 0) {
    x = o->page_values;
    rc = want_int(v, key, 1, INT32_MAX, &x, err);
    o->page_values = x;
  } else if (strcmp(key, "row_group_size") == 0) {
    x = o->row_group_size;
    rc = want_int(v, key, 1, INT64_MAX, &x, err);
    o->row_group_size = x;
  } else if (strcmp(key, "nullable") == 0) {
    rc = want_bool(v, key, &o->nullable, err);
  } else if (strcmp(key, "statistics") == 0) {
    rc = want_bool(v, key, &o->statistics, err);
  } else if (strcmp(key, "crc") == 0) {
    rc = want_bool(v, key, &o->crc, err);
  } else if (strcmp(key, "string") == 0) {
    rc = want_bool(v, key, &o->string, err);
  } else if (strcmp(key, "name") == 0) {
    if (v->kind == JV_NULL) return PQ_OK;
    if (v->kind != JV_STRING || v->str[0] == 0)
      return opt_fail(err, "\"%s\" must be a non-empty string", key);
    memcpy(o->name, v->str, sizeof o->name);
  } else {
    return apply_option(w->p, key, v, err);
  }
  return rc;
}

int pq_write_options_parse(pq_write_options *o, pq_params *p,
                           const char *json, size_t n, pq_error *err) {
  write_ctx w = {o, p};
  return parse_object(json, n, apply_write, &w, err);
}

/* ---- What a page does not say about itself ------------------------------ */

void pq_page_context_init(pq_page_context *c) {
  memset(c, 0, sizeof *c);
  c->type = PQ_INT32;
  c->codec = PQ_UNCOMPRESSED;
}

static int apply_page(void *ctx, const char *key, const jvalue *v,
                      pq_error *err) {
  pq_page_context *c = ctx;
  int64_t x;
  int rc = PQ_OK;
  if (strcmp(key, "max_def") == 0) {
    x = c->max_def;
    rc = want_int(v, key, 0, INT16_MAX, &x, err);
    c->max_def = (int)x;
  } else if (strcmp(key, "max_rep") == 0) {
    x = c->max_rep;
    rc = want_int(v, key, 0, INT16_MAX, &x, err);
    c->max_rep = (int)x;
  } else if (strcmp(key, "binary") == 0) {
    rc = want_bool(v, key, &c->binary, err);
  } else if (strcmp(key, "codec") == 0) {
    /* Named as a writer's codec is. */
    pq_write_options o;
    pq_write_options_init(&o);
    o.codec = c->codec;
    write_ctx w = {&o, NULL};
    rc = apply_write(&w, key, v, err);
    c->codec = o.codec;
  } else {
    return PQ_NOTFOUND;
  }
  return rc;
}

int pq_page_context_parse(pq_page_context *c, const char *json, size_t n,
                          pq_error *err) {
  return parse_object(json, n, apply_page, c, err);
}

/* The type a stream of this encoding has when the caller names none, or -1
** where the encoding fits several types and the choice matters. */
static int default_type(pq_encoding e) {
  switch (e) {
    case PQ_RLE:
    case PQ_BIT_PACKED: return PQ_INT32;
    case PQ_DELTA_BINARY_PACKED: return PQ_INT64;
    case PQ_DELTA_LENGTH_BYTE_ARRAY:
    case PQ_DELTA_BYTE_ARRAY: return PQ_BYTE_ARRAY;
    default: return -1;
  }
}

int pq_params_resolve(pq_params *p, int need_type, pq_error *err) {
  const char *en = pq_encoding_name(p->encoding);
  if ((unsigned)p->encoding >= PQ_ENCODING_COUNT) {
    return pq_fail(err, PQ_MISUSE, "encoding", "unknown encoding %d",
                   (int)p->encoding);
  }
  if (!encodings[p->encoding].implemented) {
    return pq_fail(err, PQ_UNSUPPORTED, en, "not implemented in this version");
  }
  if (!p->type_set) {
    int t = default_type(p->encoding);
    if (t < 0 && need_type) {
      return pq_fail(err, PQ_MISUSE, en,
                     "a physical type is needed (one of %s)",
                     encodings[p->encoding].types);
    }
    p->type = t < 0 ? PQ_INT64 : (pq_type)t;
  }
  if ((unsigned)p->type > PQ_FIXED_LEN_BYTE_ARRAY) {
    return pq_fail(err, PQ_MISUSE, en, "unknown type %d", (int)p->type);
  }
  if (p->type == PQ_FIXED_LEN_BYTE_ARRAY && p->type_length <= 0) {
    return pq_fail(err, PQ_MISUSE, en,
                   "FIXED_LEN_BYTE_ARRAY needs a length, as in "
                   "FIXED_LEN_BYTE_ARRAY(16)");
  }
  int ok;
  switch (p->encoding) {
    case PQ_RLE: ok = p->type == PQ_BOOLEAN || p->type == PQ_INT32; break;
    case PQ_BIT_PACKED: ok = p->type == PQ_INT32; break;
    default: ok = pq_encoding_supports(p->encoding, p->type);
  }
  if (!ok) {
    return pq_fail(err, PQ_MISUSE, en, "type %s is not supported (%s)",
                   pq_type_name(p->type), encodings[p->encoding].types);
  }
  if (p->encoding == PQ_RLE || p->encoding == PQ_BIT_PACKED) {
    if (p->type == PQ_BOOLEAN) {
      if (p->bit_width != -1 && p->bit_width != 1) {
        return pq_fail(err, PQ_MISUSE, en,
                       "BOOLEAN values have bit width 1, not %d", p->bit_width);
      }
      p->bit_width = 1;
    } else if (p->bit_width > 32) {
      return pq_fail(err, PQ_MISUSE, en, "bit width %d is above 32",
                     p->bit_width);
    }
    if (p->length_prefix == -1) {
      p->length_prefix = p->encoding == PQ_RLE && p->type == PQ_BOOLEAN;
    }
  }
  return PQ_OK;
}
