/*
** variant_build.c -- JSON text as a VARIANT (spec/VariantEncoding.md): a
** metadata that holds every object field name of the value once, sorted
** (sorted_strings set), and the value, each part in its smallest form:
**
**   null, true, false     primitives 0, 1, 2
**   integers              int8, int16, int32 or int64, the smallest that
**                         holds them; beyond int64 a decimal16 of scale 0
**                         when they have at most 38 digits, else a double
**   other numbers         the decimal of their digits (1.50: 150, scale 2)
**                         when they have at most 38 and no exponent,
**                         decimal4, 8 or 16 by that precision; else double
**   strings               a short string under 64 bytes, else the string
**                         primitive
**   arrays, objects       the smallest offset and id sizes, is_large only
**                         past 255 elements; an object's fields in the
**                         order of their names (unsigned bytes), its
**                         values in that order too
**
** The writer's shredding (writer/variant.c) uses the steps alone: one
** metadata for the whole row, and the values of sub-trees (an object
** without its shredded fields) against it.
*/
#include "encodings.h"

#include <stdio.h>

#define LABEL "VARIANT"

typedef struct vb_name {
  const uint8_t *p;
  size_t n;
} vb_name;

/* Orders names by their bytes, unsigned; a prefix first. */
static int vb_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn) {
  int c = memcmp(a, b, an < bn ? an : bn);
  if (c) return c;
  return an < bn ? -1 : an > bn;
}

static int vb_name_cmp(const void *x, const void *y) {
  const vb_name *a = x, *b = y;
  return vb_cmp(a->p, a->n, b->p, b->n);
}

/* A field of an object being written: its id and its node. */
typedef struct vb_field {
  uint32_t id;
  int node;
} vb_field;

static int vb_field_cmp(const void *x, const void *y) {
  const vb_field *a = x, *b = y;
  return a->id < b->id ? -1 : a->id > b->id;
}

void pq_vbuild_init(pq_vbuild *b) { memset(b, 0, sizeof *b); }

void pq_vbuild_free(pq_vbuild *b) {
  pq_json_free(&b->doc);
  pq_free(b->names);
  pq_buf_free(&b->scratch);
  memset(b, 0, sizeof *b);
}

/* Bytes (1 to 4) an unsigned v takes. */
static int vb_width(uint64_t v) {
  return v <= 0xFF ? 1 : v <= 0xFFFF ? 2 : v <= 0xFFFFFF ? 3 : 4;
}

/* v's low w bytes, little-endian. */
static void vb_put_le(uint8_t *p, uint64_t v, int w) {
  for (int i = 0; i < w; i++) p[i] = (uint8_t)(v >> (8 * i));
}

int pq_vbuild_parse(pq_vbuild *b, const char *json, size_t n, int *root,
                    pq_error *err) {
  size_t at;
  const char *fault;
  b->nnames = 0;
  int r = pq_json_parse(&b->doc, json, n, &at, &fault);
  if (r == -2) return pq_nomem(err, LABEL);
  if (r < 0 && strcmp(fault, "not JSON") == 0)
    return pq_fail(err, PQ_MISUSE, LABEL, "not JSON at offset %zu", at);
  if (r < 0)
    return pq_fail(err, PQ_MISUSE, LABEL, "not JSON: %s at offset %zu", fault,
                   at);
  /* every member's name, sorted, once */
  size_t keys = 0;
  for (int i = 0; i < b->doc.n; i++) keys += b->doc.nodes[i].has_key;
  if (keys > b->cap_names) {
    vb_name *nn = pq_realloc(b->names, keys * sizeof *nn);
    if (!nn) return pq_nomem(err, LABEL);
    b->names = nn;
    b->cap_names = keys;
  }
  vb_name *names = b->names;
  size_t k = 0;
  for (int i = 0; i < b->doc.n; i++) {
    const pq_json_node *x = &b->doc.nodes[i];
    if (!x->has_key) continue;
    names[k].p = pq_json_text(&b->doc, x->key_off);
    names[k].n = x->key_len;
    if (!pq_utf8_valid(names[k].p, names[k].n))
      return pq_fail(err, PQ_MISUSE, LABEL,
                     "a name not UTF-8 at offset %zu", x->at);
    k++;
  }
  if (k) qsort(names, k, sizeof *names, vb_name_cmp);
  size_t u = 0;
  for (size_t i = 0; i < k; i++)
    if (u == 0 || vb_cmp(names[u - 1].p, names[u - 1].n, names[i].p,
                         names[i].n) != 0)
      names[u++] = names[i];
  if (u > UINT32_MAX / 2)
    return pq_fail(err, PQ_TOOBIG, LABEL, "more than 2^31 names");
  b->nnames = (uint32_t)u;
  *root = r;
  return PQ_OK;
}

int pq_vbuild_id(const pq_vbuild *b, const uint8_t *p, size_t n,
                 uint32_t *id) {
  const vb_name *names = b->names;
  uint32_t lo = 0, hi = b->nnames;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    int c = vb_cmp(names[mid].p, names[mid].n, p, n);
    if (c == 0) {
      *id = mid;
      return 1;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return 0;
}

int pq_vbuild_meta(const pq_vbuild *b, pq_buf *meta, pq_error *err) {
  const vb_name *names = b->names;
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < b->nnames; i++) bytes += names[i].n;
  if (bytes > UINT32_MAX)
    return pq_fail(err, PQ_TOOBIG, LABEL, "names of more than 4 GiB");
  int w = vb_width(bytes > b->nnames ? bytes : b->nnames);
  /* version 1, sorted_strings, offset_size_minus_one */
  uint8_t head[1 + 4];
  head[0] = (uint8_t)(0x01 | 0x10 | (w - 1) << 6);
  vb_put_le(head + 1, b->nnames, w);
  pq_buf_append(meta, head, 1 + (size_t)w);
  uint64_t off = 0;
  for (uint32_t i = 0; i <= b->nnames; i++) {
    uint8_t o[4];
    vb_put_le(o, off, w);
    pq_buf_append(meta, o, (size_t)w);
    if (i < b->nnames) off += names[i].n;
  }
  for (uint32_t i = 0; i < b->nnames; i++)
    pq_buf_append(meta, names[i].p, names[i].n);
  return meta->oom ? pq_nomem(err, LABEL) : PQ_OK;
}

/* ---- Numbers ---------------------------------------------------------------- */

/* The digits of a JSON number s[0..n): its unscaled value (up to 38
** significant digits) and scale, or *dbl set when it is to be a double
** (an exponent, more than 38 digits, a scale past 38). */
typedef struct vb_num {
  int neg, integer, dbl;
  unsigned __int128 mag; /* the unscaled value's magnitude */
  int digits, scale;     /* significant digits (1 for 0), fraction digits */
} vb_num;

static void vb_number(const char *s, size_t n, vb_num *v) {
  memset(v, 0, sizeof *v);
  size_t i = 0;
  if (i < n && s[i] == '-') v->neg = 1, i++;
  int seen = 0, frac = 0;
  v->integer = 1;
  for (; i < n; i++) {
    char c = s[i];
    if (c == '.') {
      frac = 1;
      v->integer = 0;
      continue;
    }
    if (c == 'e' || c == 'E') {
      v->dbl = 1;
      v->integer = 0;
      return;
    }
    if (frac) v->scale++;
    if (c == '0' && !seen) continue; /* a leading zero */
    seen++;
    if (seen > 38) continue; /* a double: counted only */
    v->mag = v->mag * 10 + (unsigned)(c - '0');
  }
  v->digits = seen ? seen : 1;
  if (seen > 38 || v->scale > 38) v->dbl = 1;
}

static void vb_le128(uint8_t *p, unsigned __int128 u, int w) {
  for (int i = 0; i < w; i++) p[i] = (uint8_t)(u >> (8 * i));
}

int pq_vbuild_number_kind(const char *s, size_t n, int *scale, int *digits) {
  vb_num v;
  vb_number(s, n, &v);
  *scale = v.scale;
  *digits = v.digits;
  if (v.dbl) return PQ_VB_DOUBLE;
  if (v.integer && (v.mag <= (unsigned __int128)INT64_MAX ||
                    (v.neg && v.mag == (unsigned __int128)INT64_MAX + 1)))
    return PQ_VB_INT;
  return PQ_VB_DECIMAL;
}

int pq_vbuild_int(const char *s, size_t n, int64_t *out) {
  vb_num v;
  vb_number(s, n, &v);
  if (v.dbl || !v.integer) return 0;
  if (v.mag > (unsigned __int128)INT64_MAX + v.neg) return 0;
  *out = v.neg ? (int64_t)(0 - (uint64_t)v.mag) : (int64_t)(uint64_t)v.mag;
  return 1;
}

int pq_vbuild_decimal(const char *s, size_t n, int precision, int scale,
                      __int128 *out) {
  vb_num v;
  vb_number(s, n, &v);
  if (v.dbl || v.scale > scale) return 0;
  unsigned __int128 m = v.mag;
  for (int k = v.scale; k < scale; k++) m *= 10;
  unsigned __int128 lim = 1;
  for (int k = 0; k < precision; k++) lim *= 10;
  if (m >= lim) return 0;
  *out = v.neg ? -(__int128)m : (__int128)m;
  return 1;
}

int pq_vbuild_double(const char *s, size_t n, double *out) {
  char num[64];
  if (n < sizeof num) {
    memcpy(num, s, n);
    num[n] = 0;
    *out = strtod(num, NULL);
    return 1;
  }
  char *t = pq_malloc(n + 1);
  if (!t) return 0;
  memcpy(t, s, n);
  t[n] = 0;
  *out = strtod(t, NULL);
  pq_free(t);
  return 1;
}

/* Appends the primitive of JSON number s[0..n). */
static void vb_put_number(pq_buf *out, const char *s, size_t n) {
  vb_num v;
  vb_number(s, n, &v);
  uint8_t b[18];
  if (!v.dbl && v.integer) {
    if (v.mag <= (unsigned __int128)INT64_MAX + v.neg) {
      int64_t x = v.neg ? (int64_t)(0 - (uint64_t)v.mag) : (int64_t)(uint64_t)v.mag;
      int w = x >= -128 && x <= 127 ? 1 : x >= -32768 && x <= 32767 ? 2
              : x >= INT32_MIN && x <= INT32_MAX ? 4 : 8;
      b[0] = (uint8_t)((w == 1 ? 3 : w == 2 ? 4 : w == 4 ? 5 : 6) << 2);
      vb_put_le(b + 1, (uint64_t)x, w);
      pq_buf_append(out, b, 1 + (size_t)w);
      return;
    }
  }
  if (!v.dbl) {
    __int128 x = v.neg ? -(__int128)v.mag : (__int128)v.mag;
    int w = v.digits <= 9 ? 4 : v.digits <= 18 ? 8 : 16;
    b[0] = (uint8_t)((w == 4 ? 8 : w == 8 ? 9 : 10) << 2);
    b[1] = (uint8_t)v.scale;
    vb_le128(b + 2, (unsigned __int128)x, w);
    pq_buf_append(out, b, 2 + (size_t)w);
    return;
  }
  double d;
  if (!pq_vbuild_double(s, n, &d)) {
    out->oom = 1;
    return;
  }
  uint64_t u;
  memcpy(&u, &d, 8);
  b[0] = 7 << 2;
  vb_put_le(b + 1, u, 8);
  pq_buf_append(out, b, 9);
}

/* ---- Values ------------------------------------------------------------------ */

void pq_vbuild_string(pq_buf *out, const uint8_t *p, size_t n) {
  if (n < 64) {
    uint8_t h = (uint8_t)(n << 2 | 1);
    pq_buf_append(out, &h, 1);
  } else {
    uint8_t h[5] = {16 << 2};
    vb_put_le(h + 1, n, 4);
    pq_buf_append(out, h, 5);
  }
  pq_buf_append(out, p, n);
}

/* Moves out[start..) on by room bytes, making room for a container's
** header; 0 when out of memory. */
static int vb_make_room(pq_buf *out, size_t start, size_t room) {
  if (pq_buf_reserve(out, room)) return 0;
  memmove(out->data + start + room, out->data + start, out->len - start);
  out->len += room;
  return 1;
}

static int vb_value(pq_vbuild *b, int x, pq_vbuild_skip skip, void *ctx,
                    pq_buf *out, pq_error *err);

/* An array or object node x: its elements' values, then the header in
** front of them. */
static int vb_container(pq_vbuild *b, int x, pq_vbuild_skip skip, void *ctx,
                        pq_buf *out, pq_error *err) {
  const pq_json_node *j = &b->doc.nodes[x];
  int object = j->type == PQ_J_OBJECT;
  size_t base = b->scratch.len; /* this container's part of the scratch */
  uint32_t count = 0;
  /* the elements, objects' sorted by name (their ids' order) */
  for (int m = j->first; m >= 0; m = b->doc.nodes[m].next) {
    const pq_json_node *mm = &b->doc.nodes[m];
    vb_field f = {0, m};
    if (object) {
      const uint8_t *k = pq_json_text(&b->doc, mm->key_off);
      if (skip && skip(ctx, k, mm->key_len)) continue;
      if (!pq_vbuild_id(b, k, mm->key_len, &f.id))
        return pq_fail(err, PQ_MISUSE, LABEL, "a name not in the metadata");
    }
    pq_buf_append(&b->scratch, &f, sizeof f);
    count++;
  }
  if (b->scratch.oom) return pq_nomem(err, LABEL);
  if (object && count > 1) {
    vb_field *fs = (vb_field *)(void *)(b->scratch.data + base);
    qsort(fs, count, sizeof *fs, vb_field_cmp);
    for (uint32_t i = 1; i < count; i++)
      if (fs[i].id == fs[i - 1].id) {
        const pq_json_node *d = &b->doc.nodes[fs[i].node];
        pq_fail(err, PQ_MISUSE, LABEL,
                "an object has the name \"%.*s\" twice (at offset %zu)",
                (int)(d->key_len > 64 ? 64 : d->key_len),
                (const char *)pq_json_text(&b->doc, d->key_off), d->at);
        b->scratch.len = base;
        return PQ_MISUSE;
      }
  }
  /* each element's value, its offset into the scratch after the fields */
  size_t start = out->len;
  uint32_t max_id = 0;
  for (uint32_t i = 0; i < count; i++) {
    vb_field f;
    memcpy(&f, b->scratch.data + base + i * sizeof f, sizeof f);
    if (f.id > max_id) max_id = f.id;
    uint64_t off = out->len - start;
    pq_buf_append(&b->scratch, &off, sizeof off);
    int rc = vb_value(b, f.node, NULL, NULL, out, err);
    if (rc) {
      b->scratch.len = base;
      return rc;
    }
  }
  if (b->scratch.oom || out->oom) return pq_nomem(err, LABEL);
  uint64_t total = out->len - start;
  if (total > UINT32_MAX)
    return pq_fail(err, PQ_TOOBIG, LABEL, "a value of more than 4 GiB");
  int large = count > 255;
  int ow = vb_width(total), iw = object ? vb_width(max_id) : 0;
  size_t head = 1 + (large ? 4 : 1) + (size_t)count * (size_t)iw +
                ((size_t)count + 1) * (size_t)ow;
  if (!vb_make_room(out, start, head)) {
    b->scratch.len = base;
    return pq_nomem(err, LABEL);
  }
  uint8_t *p = out->data + start;
  *p++ = object ? (uint8_t)(2 | (large << 4 | (iw - 1) << 2 | (ow - 1)) << 2)
                : (uint8_t)(3 | (large << 2 | (ow - 1)) << 2);
  vb_put_le(p, count, large ? 4 : 1);
  p += large ? 4 : 1;
  /* (no fields, no scratch: an empty one may have none at all) */
  const uint8_t *offs =
      count ? b->scratch.data + base + (size_t)count * sizeof(vb_field) : NULL;
  if (object)
    for (uint32_t i = 0; i < count; i++, p += iw) {
      vb_field f;
      memcpy(&f, b->scratch.data + base + i * sizeof f, sizeof f);
      vb_put_le(p, f.id, iw);
    }
  for (uint32_t i = 0; i < count; i++, p += ow) {
    uint64_t off;
    memcpy(&off, offs + i * sizeof off, sizeof off);
    vb_put_le(p, off, ow);
  }
  vb_put_le(p, total, ow);
  b->scratch.len = base;
  return PQ_OK;
}

static int vb_value(pq_vbuild *b, int x, pq_vbuild_skip skip, void *ctx,
                    pq_buf *out, pq_error *err) {
  const pq_json_node *j = &b->doc.nodes[x];
  uint8_t h;
  switch (j->type) {
    case PQ_J_NULL:
    case PQ_J_TRUE:
    case PQ_J_FALSE:
      h = (uint8_t)((j->type == PQ_J_NULL ? 0 : j->type == PQ_J_TRUE ? 1 : 2)
                    << 2);
      pq_buf_append(out, &h, 1);
      break;
    case PQ_J_NUMBER:
      vb_put_number(out, b->doc.src + j->at, j->len);
      break;
    case PQ_J_STRING: {
      const uint8_t *s = pq_json_text(&b->doc, j->str_off);
      if (!pq_utf8_valid(s, j->str_len))
        return pq_fail(err, PQ_MISUSE, LABEL,
                       "a string not UTF-8 at offset %zu", j->at);
      if (j->str_len > UINT32_MAX)
        return pq_fail(err, PQ_TOOBIG, LABEL, "a string of more than 4 GiB");
      pq_vbuild_string(out, s, j->str_len);
      break;
    }
    default:
      return vb_container(b, x, skip, ctx, out, err);
  }
  return out->oom ? pq_nomem(err, LABEL) : PQ_OK;
}

int pq_vbuild_value(pq_vbuild *b, int x, pq_vbuild_skip skip, void *ctx,
                    pq_buf *out, pq_error *err) {
  size_t start = out->len;
  int rc = vb_value(b, x, skip, ctx, out, err);
  if (rc) out->len = start;
  return rc;
}

int pq_variant_from_json(const char *json, size_t n, pq_buf *meta,
                         pq_buf *value, pq_error *err) {
  pq_vbuild b;
  pq_vbuild_init(&b);
  int root;
  size_t m0 = meta->len;
  int rc = pq_vbuild_parse(&b, json, n, &root, err);
  if (!rc) rc = pq_vbuild_value(&b, root, NULL, NULL, value, err);
  if (!rc) rc = pq_vbuild_meta(&b, meta, err);
  if (rc) meta->len = m0;
  pq_vbuild_free(&b);
  return rc;
}
