/*
** variant.c -- reading the Variant Binary Encoding (spec/VariantEncoding.md):
** a metadata's dictionary of names, a value's objects and arrays, and a
** value as JSON text.
**
**   metadata  01 02 00 01 02 61 62           v1, 2 names: "a" "b"
**   value     02 02 00 01 00 02 04 0C 01 0C 02    {"a":1,"b":2}
**
** Every size and offset is checked against the bytes at hand before it is
** followed; a fault says what and at which offset of the value (or of the
** metadata).  Nothing here allocates but the output buffer.
*/
#include "reader.h"

#include <math.h>
#include <stdio.h>

#define VAR_MAX_DEPTH 128

static uint32_t var_le(const uint8_t *p, unsigned size) {
  uint32_t x = 0;
  for (unsigned i = 0; i < size; i++) x |= (uint32_t)p[i] << (8 * i);
  return x;
}

static uint64_t var_le64(const uint8_t *p) {
  uint64_t x = 0;
  for (unsigned i = 0; i < 8; i++) x |= (uint64_t)p[i] << (8 * i);
  return x;
}

/* ---- Metadata -------------------------------------------------------------- */

int pq_variant_meta_open(pq_variant_meta *m, const uint8_t *p, size_t n,
                         pq_error *err) {
  memset(m, 0, sizeof *m);
  if (n < 1) return pq_fail(err, PQ_CORRUPT, "VARIANT", "metadata: empty");
  uint8_t h = p[0];
  if ((h & 15) != 1) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "metadata: version %u at offset 0, not 1", h & 15u);
  }
  unsigned os = (h >> 6) + 1u;
  if (n - 1 < os) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "metadata: its dictionary size needs %u bytes at offset 1, "
                   "%zu remain",
                   os, n - 1);
  }
  uint32_t count = var_le(p + 1, os);
  size_t at = 1 + (size_t)os, rest = n - at;
  if ((size_t)count >= rest / os) { /* count + 1 offsets */
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "metadata: %lu names need %lu bytes of offsets at offset "
                   "%zu, %zu remain",
                   (unsigned long)count, ((unsigned long)count + 1) * os, at,
                   rest);
  }
  m->p = p;
  m->count = count;
  m->offset_size = (uint8_t)os;
  m->sorted = (h >> 4) & 1;
  m->offsets = p + at;
  at += ((size_t)count + 1) * os;
  m->names = p + at;
  uint32_t end = var_le(m->offsets + (size_t)count * os, os);
  if (end > n - at) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "metadata: its names end %lu bytes after offset %zu, past "
                   "its %zu bytes",
                   (unsigned long)end, at, n);
  }
  m->names_len = end;
  m->n = at + end;
  return PQ_OK;
}

int pq_variant_meta_name(const pq_variant_meta *m, uint32_t id,
                         pq_bytes *name, pq_error *err) {
  if (id >= m->count) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "field id %lu is past the metadata's %lu names",
                   (unsigned long)id, (unsigned long)m->count);
  }
  unsigned os = m->offset_size;
  uint32_t a = var_le(m->offsets + (size_t)id * os, os);
  uint32_t b = var_le(m->offsets + ((size_t)id + 1) * os, os);
  if (a > b || b > m->names_len) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "metadata: name %lu runs from byte %lu to %lu of its %zu",
                   (unsigned long)id, (unsigned long)a, (unsigned long)b,
                   m->names_len);
  }
  if (!pq_utf8_valid(m->names + a, b - a)) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "metadata: name %lu is not UTF-8", (unsigned long)id);
  }
  name->ptr = m->names + a;
  name->len = b - a;
  return PQ_OK;
}

/* ---- Values -------------------------------------------------------------- */

/* The bytes after the header of each primitive type, -1 for those whose
** size follows (binary, string), 0 past the known types. */
static int var_fixed(unsigned t) {
  static const signed char size[21] = {0, 0, 0, 1, 2, 4, 8, 8, 5, 9, 17,
                                       4, 8, 8, 4, -1, -1, 8, 8, 8, 16};
  return t < 21 ? size[t] : -2;
}

static const char *var_type_name(unsigned t) {
  static const char *const names[21] = {
      "null",      "true",         "false",        "int8",
      "int16",     "int32",        "int64",        "double",
      "decimal4",  "decimal8",     "decimal16",    "date",
      "timestamp", "timestamp_ntz", "float",       "binary",
      "string",    "time_ntz",     "timestamp_nanos", "timestamp_ntz_nanos",
      "uuid"};
  return t < 21 ? names[t] : "unknown";
}

int pq_variant_value_size(const uint8_t *v, size_t n, size_t *size,
                          pq_error *err) {
  pq_variant_container c;
  if (n < 1) return pq_fail(err, PQ_CORRUPT, "VARIANT", "value: empty");
  unsigned basic = v[0] & 3, h = v[0] >> 2;
  if (basic == PQ_VARIANT_SHORT_STRING) {
    if (n - 1 < h) goto short_;
    *size = 1 + (size_t)h;
    return PQ_OK;
  }
  if (basic == PQ_VARIANT_PRIMITIVE) {
    int f = var_fixed(h);
    if (f == -2) {
      return pq_fail(err, PQ_CORRUPT, "VARIANT",
                     "value: primitive type %u is not one the spec defines", h);
    }
    if (f >= 0) {
      if (n - 1 < (size_t)f) goto short_;
      *size = 1 + (size_t)f;
      return PQ_OK;
    }
    if (n < 5) goto short_;
    uint32_t len = var_le(v + 1, 4);
    if (n - 5 < len) goto short_;
    *size = 5 + (size_t)len;
    return PQ_OK;
  }
  int rc = pq_variant_container_open(&c, v, n, 0, err);
  if (rc) return rc;
  *size = (size_t)(c.data - v) + c.data_len;
  return PQ_OK;
short_:
  return pq_fail(err, PQ_CORRUPT, "VARIANT",
                 "value: a %s is cut short at %zu bytes",
                 basic == PQ_VARIANT_SHORT_STRING ? "short string"
                                                  : var_type_name(h),
                 n);
}

int pq_variant_container_open(pq_variant_container *c, const uint8_t *v,
                              size_t n, size_t at, pq_error *err) {
  memset(c, 0, sizeof *c);
  if (n < 1) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT", "value: empty at offset %zu",
                   at);
  }
  unsigned basic = v[0] & 3, h = v[0] >> 2;
  if (basic != PQ_VARIANT_OBJECT && basic != PQ_VARIANT_ARRAY) {
    return pq_fail(err, PQ_MISUSE, "VARIANT",
                   "value at offset %zu is not an object or array", at);
  }
  const char *what = basic == PQ_VARIANT_OBJECT ? "object" : "array";
  unsigned os = (h & 3) + 1, ids = 0, large;
  if (basic == PQ_VARIANT_OBJECT) {
    ids = ((h >> 2) & 3) + 1;
    large = (h >> 4) & 1;
  } else {
    large = (h >> 2) & 1;
  }
  size_t nl = large ? 4 : 1, pos = 1;
  if (n - pos < nl) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "value: %s at offset %zu: its element count needs %zu "
                   "bytes, %zu remain",
                   what, at, nl, n - pos);
  }
  uint32_t count = var_le(v + pos, (unsigned)nl);
  pos += nl;
  /* count ids and count + 1 offsets, checked before they are multiplied */
  size_t per = ids + os, rest = n - pos;
  if ((size_t)count > rest / per || rest - (size_t)count * per < os) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "value: %s at offset %zu: %lu elements need more than the "
                   "%zu bytes that remain",
                   what, at, (unsigned long)count, rest);
  }
  c->basic = (int)basic;
  c->count = count;
  c->id_size = (uint8_t)ids;
  c->offset_size = (uint8_t)os;
  c->ids = ids ? v + pos : NULL;
  pos += (size_t)count * ids;
  c->offsets = v + pos;
  pos += ((size_t)count + 1) * os;
  uint32_t end = var_le(c->offsets + (size_t)count * os, os);
  if (end > n - pos) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "value: %s at offset %zu: its elements end %lu bytes after "
                   "offset %zu, %zu remain",
                   what, at, (unsigned long)end, at + pos, n - pos);
  }
  c->data = v + pos;
  c->data_len = end;
  c->at = at;
  c->data_at = at + pos;
  return PQ_OK;
}

int pq_variant_container_get(const pq_variant_container *c,
                             const pq_variant_meta *m, uint32_t i,
                             pq_bytes *name, const uint8_t **v, size_t *n,
                             size_t *at, pq_error *err) {
  if (i >= c->count) {
    return pq_fail(err, PQ_MISUSE, "VARIANT", "no element %lu of %lu",
                   (unsigned long)i, (unsigned long)c->count);
  }
  uint32_t off = var_le(c->offsets + (size_t)i * c->offset_size,
                        c->offset_size);
  if (off >= c->data_len) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "value: %s at offset %zu: element %lu starts at byte %lu "
                   "of its %zu",
                   c->basic == PQ_VARIANT_OBJECT ? "object" : "array", c->at,
                   (unsigned long)i, (unsigned long)off, c->data_len);
  }
  if (c->basic == PQ_VARIANT_OBJECT && name) {
    uint32_t id = var_le(c->ids + (size_t)i * c->id_size, c->id_size);
    int rc = pq_variant_meta_name(m, id, name, err);
    if (rc) return rc;
  }
  *v = c->data + off;
  *n = c->data_len - off;
  *at = c->data_at + off;
  return PQ_OK;
}

/* ---- As JSON ------------------------------------------------------------- */

static void var_put(pq_buf *out, const char *s, size_t n) {
  pq_buf_append(out, s, n);
}

static void var_put_quoted(pq_buf *out, const char *s, size_t n) {
  pq_buf_byte(out, '"');
  pq_buf_append(out, s, n);
  pq_buf_byte(out, '"');
}

/* A little-endian two's complement of n bytes (4, 8 or 16) with its scale,
** as the digits of the decimal. */
static int var_decimal(const uint8_t *p, size_t n, size_t at, pq_buf *out,
                       pq_error *err) {
  unsigned scale = p[0];
  if (scale > 38) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "value: decimal at offset %zu has scale %u, past 38", at,
                   scale);
  }
  uint8_t be[16];
  for (size_t i = 0; i < n; i++) be[i] = p[n - i]; /* p[1..n] reversed */
  char s[PQ_CELL_SCRATCH];
  var_put(out, s, pq_text_decimal(s, sizeof s, be, n, (int)scale));
  return PQ_OK;
}

/* A FLOAT or DOUBLE: NaN as the string "NaN" (JSON has none), the rest
** as pq_json_values writes reals. */
static void var_real(pq_buf *out, pq_type t, const void *v) {
  double d = t == PQ_FLOAT ? (double)*(const float *)v : *(const double *)v;
  if (isnan(d)) {
    var_put(out, "\"NaN\"", 5);
    return;
  }
  pq_json_values(out, t, 0, 0, v, 1, 0);
}

static int var_json(const pq_variant_meta *m, const uint8_t *v, size_t n,
                    size_t at, pq_buf *out, int depth, pq_error *err);

static int var_primitive(const uint8_t *v, size_t n, size_t at, pq_buf *out,
                         pq_error *err) {
  unsigned t = v[0] >> 2;
  int f = var_fixed(t);
  if (f == -2) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "value: primitive type %u at offset %zu is not one the "
                   "spec defines",
                   t, at);
  }
  if (n - 1 < (size_t)(f < 0 ? 4 : f) ||
      (f < 0 && n - 5 < var_le(v + 1, 4))) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT",
                   "value: a %s at offset %zu is cut short: %zu bytes remain",
                   var_type_name(t), at, n);
  }
  const uint8_t *p = v + 1;
  char s[PQ_CELL_SCRATCH];
  switch (t) {
    case 0: var_put(out, "null", 4); break;
    case 1: var_put(out, "true", 4); break;
    case 2: var_put(out, "false", 5); break;
    case 3:
    case 4:
    case 5:
    case 6: {
      int64_t x;
      if (t == 3) x = (int8_t)p[0];
      else if (t == 4) x = (int16_t)(uint16_t)var_le(p, 2);
      else if (t == 5) x = (int32_t)var_le(p, 4);
      else x = (int64_t)var_le64(p);
      var_put(out, s, (size_t)snprintf(s, sizeof s, "%lld", (long long)x));
      break;
    }
    case 7: {
      uint64_t bits = var_le64(p);
      double d;
      memcpy(&d, &bits, 8);
      var_real(out, PQ_DOUBLE, &d);
      break;
    }
    case 14: {
      uint32_t bits = var_le(p, 4);
      float fl;
      memcpy(&fl, &bits, 4);
      var_real(out, PQ_FLOAT, &fl);
      break;
    }
    case 8: return var_decimal(p, 4, at, out, err);
    case 9: return var_decimal(p, 8, at, out, err);
    case 10: return var_decimal(p, 16, at, out, err);
    case 11:
      var_put_quoted(out, s, pq_text_date(s, sizeof s, (int32_t)var_le(p, 4)));
      break;
    case 12:
    case 13:
    case 18:
    case 19:
      var_put_quoted(out, s,
                     pq_text_timestamp(s, sizeof s, (int64_t)var_le64(p),
                                       t == 12 || t == 13 ? 2 : 3));
      break;
    case 17:
      var_put_quoted(out, s,
                     pq_text_time(s, sizeof s, (int64_t)var_le64(p), 1000000,
                                  6));
      break;
    case 15:
    case 16: {
      pq_bytes b = {p + 4, var_le(p, 4)};
      if (t == 16 && !pq_utf8_valid(b.ptr, b.len)) {
        return pq_fail(err, PQ_CORRUPT, "VARIANT",
                       "value: the string at offset %zu is not UTF-8", at);
      }
      pq_json_values(out, PQ_BYTE_ARRAY, 0, t == 15, &b, 1, 0);
      break;
    }
    case 20:
      var_put_quoted(out, s, pq_text_uuid(s, sizeof s, p));
      break;
    default: /* var_fixed() let no other type through */
      return pq_fail(err, PQ_CORRUPT, "VARIANT",
                     "value: primitive type %u at offset %zu", t, at);
  }
  return PQ_OK;
}

static int var_container(const pq_variant_meta *m, const uint8_t *v,
                         size_t n, size_t at, pq_buf *out, int depth,
                         pq_error *err) {
  pq_variant_container c;
  int rc = pq_variant_container_open(&c, v, n, at, err);
  if (rc) return rc;
  int obj = c.basic == PQ_VARIANT_OBJECT;
  pq_bytes prev = {NULL, 0};
  pq_buf_byte(out, obj ? '{' : '[');
  for (uint32_t i = 0; i < c.count && !rc; i++) {
    pq_bytes name;
    const uint8_t *ev;
    size_t en, eat;
    rc = pq_variant_container_get(&c, m, i, &name, &ev, &en, &eat, err);
    if (rc) break;
    if (i) pq_buf_byte(out, ',');
    if (obj) {
      /* names strictly ascending: sorted, as the spec has them, and so
      ** without a name twice */
      if (i) {
        size_t k = prev.len < name.len ? prev.len : name.len;
        int cmp = memcmp(prev.ptr, name.ptr, k);
        if (cmp > 0 || (cmp == 0 && prev.len >= name.len)) {
          return pq_fail(err, PQ_CORRUPT, "VARIANT",
                         "value: object at offset %zu: field %lu's name %s "
                         "its field %lu's",
                         at, (unsigned long)i,
                         cmp == 0 && prev.len == name.len ? "repeats"
                                                          : "sorts before",
                         (unsigned long)i - 1);
        }
      }
      prev = name;
      pq_json_values(out, PQ_BYTE_ARRAY, 0, 0, &name, 1, 0);
      pq_buf_byte(out, ':');
    }
    rc = var_json(m, ev, en, eat, out, depth + 1, err);
  }
  pq_buf_byte(out, obj ? '}' : ']');
  return rc;
}

static int var_json(const pq_variant_meta *m, const uint8_t *v, size_t n,
                    size_t at, pq_buf *out, int depth, pq_error *err) {
  if (depth > VAR_MAX_DEPTH) {
    return pq_fail(err, PQ_UNSUPPORTED, "VARIANT",
                   "value: nested more than %d deep at offset %zu",
                   VAR_MAX_DEPTH, at);
  }
  if (n < 1) {
    return pq_fail(err, PQ_CORRUPT, "VARIANT", "value: empty at offset %zu",
                   at);
  }
  switch (v[0] & 3) {
    case PQ_VARIANT_PRIMITIVE: return var_primitive(v, n, at, out, err);
    case PQ_VARIANT_SHORT_STRING: {
      pq_bytes b = {v + 1, v[0] >> 2};
      if (n - 1 < b.len) {
        return pq_fail(err, PQ_CORRUPT, "VARIANT",
                       "value: a short string of %zu bytes at offset %zu is "
                       "cut short: %zu remain",
                       b.len, at, n - 1);
      }
      if (!pq_utf8_valid(b.ptr, b.len)) {
        return pq_fail(err, PQ_CORRUPT, "VARIANT",
                       "value: the string at offset %zu is not UTF-8", at);
      }
      pq_json_values(out, PQ_BYTE_ARRAY, 0, 0, &b, 1, 0);
      return PQ_OK;
    }
    default: return var_container(m, v, n, at, out, depth, err);
  }
}

int pq_variant_to_json(const pq_variant_meta *m, const uint8_t *v, size_t n,
                       size_t at, pq_buf *out, pq_error *err) {
  int rc = var_json(m, v, n, at, out, 0, err);
  if (!rc && out->oom) rc = pq_nomem(err, "VARIANT");
  return rc;
}
