/*
** wkb.c -- the Well-Known Binary of GEOMETRY and GEOGRAPHY values
** (spec/Geospatial.md), walked for what GeospatialStatistics say: the
** bounds of each coordinate and the type codes.
**
**   geometry:  byte order (1 byte: 0 big-endian, 1 little-endian)
**              type code (uint32: 1..7, + 1000 Z, 2000 M, 3000 ZM)
**   Point               coordinates (2, 3 or 4 doubles)
**   LineString          uint32 n, n points
**   Polygon             uint32 rings, each a uint32 n and n points
**   Multi*, Collection  uint32 n, n geometries (each with its own byte
**                       order and type code, of the same dimensions)
**
** Only ISO WKB: the EWKB flags (0x80000000 Z, 0x40000000 M, 0x20000000
** SRID) are refused, as are the curve and surface types (8 and up), which
** Geospatial.md's table leaves out and DuckDB does not read.  Every count
** is checked against the bytes left before the walk goes on.
*/
#include "format.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

static const char *const wkb_names[7] = {
    "point",      "linestring",      "polygon",           "multipoint",
    "multilinestring", "multipolygon", "geometrycollection"};

typedef struct wkb_rd {
  const uint8_t *p;
  size_t n, at;      /* the value, and where the walk is */
  const char *label;
  pq_error *err;
  pq_geo_acc acc;    /* what this value adds */
} wkb_rd;

static int wkb_fail(wkb_rd *r, size_t at, const char *fmt, ...) {
  char what[160];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return pq_fail(r->err, PQ_CORRUPT, r->label, "WKB: %s at offset %zu", what,
                 at);
}

static uint32_t wkb_u32(const uint8_t *p, int big) {
  uint32_t v = pq_load32(p);
  if (big)
    v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
  return v;
}

static double wkb_f64(const uint8_t *p, int big) {
  uint8_t b[8];
  for (int i = 0; i < 8; i++) b[i] = big ? p[7 - i] : p[i];
  double d;
  memcpy(&d, b, 8);
  return d;
}

/* A count at r->at, checked: each of its items takes at least `least`
** bytes of those left. */
static int wkb_count(wkb_rd *r, int big, size_t least, const char *what,
                     uint32_t *n) {
  if (r->n - r->at < 4)
    return wkb_fail(r, r->at, "the %s count needs 4 bytes, %zu remain", what,
                    r->n - r->at);
  *n = wkb_u32(r->p + r->at, big);
  size_t left = r->n - r->at - 4;
  if ((uint64_t)*n * least > left)
    return wkb_fail(r, r->at, "%u %s need at least %llu bytes, %zu remain",
                    *n, what, (unsigned long long)*n * least, left);
  r->at += 4;
  return PQ_OK;
}

/* n points of `dims` (0 XY, 1 Z, 2 M, 3 ZM) into the bounds; the count
** was checked. */
static void wkb_points(wkb_rd *r, int big, int dims, uint32_t n) {
  int k = 2 + (dims & 1) + (dims >> 1);
  /* the axes the coordinates are: x, y, then z and/or m */
  int axis[4] = {0, 1, dims & 1 ? 2 : 3, 3};
  for (uint32_t i = 0; i < n; i++) {
    for (int j = 0; j < k; j++) {
      double v = wkb_f64(r->p + r->at, big);
      r->at += 8;
      if (isnan(v)) continue;
      int a = axis[j];
      if (v < r->acc.min[a]) r->acc.min[a] = v;
      if (v > r->acc.max[a]) r->acc.max[a] = v;
    }
  }
}

/* The geometry at r->at: of type `want` (0: any), of dimensions `dims`
** (-1: any); its code into *code. */
static int wkb_geom(wkb_rd *r, int depth, int want, int dims,
                    uint32_t *code) {
  size_t start = r->at;
  if (depth > PQ_WKB_DEPTH)
    return wkb_fail(r, start, "geometries nest more than %d deep",
                    PQ_WKB_DEPTH);
  if (r->n - r->at < 5)
    return wkb_fail(r, start, "a geometry needs 5 bytes, %zu remain",
                    r->n - r->at);
  int order = r->p[r->at];
  if (order > 1)
    return wkb_fail(r, start, "byte order %d (0 or 1)", order);
  int big = order == 0;
  uint32_t c = wkb_u32(r->p + r->at + 1, big);
  if (c & 0xE0000000u)
    return wkb_fail(r, start + 1,
                    "type 0x%08X has EWKB flags: not ISO WKB", c);
  uint32_t base = c % 1000, d = c / 1000;
  if (base < 1 || base > 7 || d > 3)
    return wkb_fail(r, start + 1,
                    "geometry type %u (1 to 7, plus 1000, 2000 or 3000)", c);
  if (want && (int)base != want)
    return wkb_fail(r, start + 1, "a %s inside a multi%s", wkb_names[base - 1],
                    wkb_names[want - 1]);
  if (dims >= 0 && (int)d != dims)
    return wkb_fail(r, start + 1,
                    "geometry type %u inside a collection of type %u000s", c,
                    (unsigned)dims);
  r->at += 5;
  size_t pt = 8u * (size_t)(2 + (d & 1) + (d >> 1));
  uint32_t n;
  int rc;
  switch (base) {
    case 1:
      if (r->n - r->at < pt)
        return wkb_fail(r, r->at, "a point needs %zu bytes, %zu remain", pt,
                        r->n - r->at);
      wkb_points(r, big, (int)d, 1);
      break;
    case 2:
      if ((rc = wkb_count(r, big, pt, "points", &n))) return rc;
      wkb_points(r, big, (int)d, n);
      break;
    case 3:
      if ((rc = wkb_count(r, big, 4, "rings", &n))) return rc;
      for (uint32_t i = 0; i < n; i++) {
        uint32_t m;
        if ((rc = wkb_count(r, big, pt, "points", &m))) return rc;
        wkb_points(r, big, (int)d, m);
      }
      break;
    default: /* 4, 5, 6: of points, linestrings, polygons; 7: any */
      if ((rc = wkb_count(r, big, 9, "geometries", &n))) return rc;
      for (uint32_t i = 0; i < n; i++) {
        uint32_t sub;
        rc = wkb_geom(r, depth + 1, base == 7 ? 0 : (int)base - 3, (int)d,
                      &sub);
        if (rc) return rc;
      }
  }
  *code = c;
  return PQ_OK;
}

void pq_geo_acc_init(pq_geo_acc *a) {
  for (int i = 0; i < 4; i++) {
    a->min[i] = INFINITY;
    a->max[i] = -INFINITY;
  }
  a->types = 0;
  a->values = 0;
}

void pq_geo_acc_merge(pq_geo_acc *into, const pq_geo_acc *a) {
  for (int i = 0; i < 4; i++) {
    if (a->min[i] < into->min[i]) into->min[i] = a->min[i];
    if (a->max[i] > into->max[i]) into->max[i] = a->max[i];
  }
  into->types |= a->types;
  into->values += a->values;
}

int pq_wkb_add(pq_geo_acc *a, const uint8_t *p, size_t n, const char *label,
               pq_error *err) {
  wkb_rd r;
  r.p = p;
  r.n = p ? n : 0;
  r.at = 0;
  r.label = label;
  r.err = err;
  pq_geo_acc_init(&r.acc);
  uint32_t code;
  int rc = wkb_geom(&r, 0, 0, -1, &code);
  if (rc) return rc;
  if (r.at != n)
    return wkb_fail(&r, r.at, "%zu bytes after the geometry", n - r.at);
  r.acc.types = 1u << ((code / 1000) * 7 + code % 1000 - 1);
  r.acc.values = 1;
  pq_geo_acc_merge(a, &r.acc);
  return PQ_OK;
}

int pq_geo_acc_codes(const pq_geo_acc *a, int32_t *codes) {
  int k = 0;
  for (int b = 0; b < 28; b++)
    if (a->types >> b & 1) codes[k++] = (b / 7) * 1000 + b % 7 + 1;
  return k;
}

const char *pq_geo_type_name(int32_t code) {
  static const char *const names[4][7] = {
      {"point", "linestring", "polygon", "multipoint", "multilinestring",
       "multipolygon", "geometrycollection"},
      {"point_z", "linestring_z", "polygon_z", "multipoint_z",
       "multilinestring_z", "multipolygon_z", "geometrycollection_z"},
      {"point_m", "linestring_m", "polygon_m", "multipoint_m",
       "multilinestring_m", "multipolygon_m", "geometrycollection_m"},
      {"point_zm", "linestring_zm", "polygon_zm", "multipoint_zm",
       "multilinestring_zm", "multipolygon_zm", "geometrycollection_zm"}};
  if (code < 1 || code % 1000 < 1 || code % 1000 > 7 || code / 1000 > 3)
    return NULL;
  return names[code / 1000][code % 1000 - 1];
}

/* ---- GeospatialStatistics as text --------------------------------------- */

/* A double as DuckDB casts one to VARCHAR: the fewest digits that read
** back to it, fixed for decimal exponents -4 to 15 (an integer keeps
** ".0"), else d.ddde+XX; inf, -inf, nan. */
static void geo_double(pq_buf *out, double v) {
  char s[40], d[24];
  if (isnan(v)) {
    pq_buf_append(out, "nan", 3);
    return;
  }
  if (isinf(v)) {
    pq_buf_append(out, v < 0 ? "-inf" : "inf", v < 0 ? 4 : 3);
    return;
  }
  int p = 0;
  for (; p < 17; p++) {
    snprintf(s, sizeof s, "%.*e", p, v);
    if (strtod(s, NULL) == v) break;
  }
  /* s: [-]d[.ddd]e[+-]xx */
  const char *q = s;
  int neg = *q == '-';
  if (neg) q++;
  size_t nd = 0;
  for (; *q && *q != 'e'; q++)
    if (*q != '.') d[nd++] = *q;
  int exp = atoi(q + 1);
  while (nd > 1 && d[nd - 1] == '0') nd--;
  if (neg) pq_buf_byte(out, '-');
  if (exp < -4 || exp >= 16) {
    pq_buf_byte(out, (uint8_t)d[0]);
    if (nd > 1) {
      pq_buf_byte(out, '.');
      pq_buf_append(out, d + 1, nd - 1);
    }
    snprintf(s, sizeof s, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    pq_buf_append(out, s, strlen(s));
  } else if (exp < 0) {
    pq_buf_append(out, "0.", 2);
    for (int i = -1; i > exp; i--) pq_buf_byte(out, '0');
    pq_buf_append(out, d, nd);
  } else {
    for (int i = 0; i <= exp; i++) pq_buf_byte(out, (uint8_t)(i < (int)nd ? d[i] : '0'));
    pq_buf_byte(out, '.');
    if ((int)nd > exp + 1) {
      pq_buf_append(out, d + exp + 1, nd - (size_t)exp - 1);
    } else {
      pq_buf_byte(out, '0');
    }
  }
}

void pq_geo_bbox_text(const pq_geo_statistics *g, pq_buf *out) {
  static const char *const keys[8] = {"xmin", "xmax", "ymin", "ymax",
                                      "zmin", "zmax", "mmin", "mmax"};
  pq_buf_byte(out, '{');
  for (int i = 0; i < 8; i++) {
    if (i) pq_buf_append(out, ", ", 2);
    pq_buf_byte(out, '\'');
    pq_buf_append(out, keys[i], 4);
    pq_buf_append(out, "': ", 3);
    if (g->bbox_has >> i & 1) {
      geo_double(out, g->bbox[i]);
    } else {
      pq_buf_append(out, "NULL", 4);
    }
  }
  pq_buf_byte(out, '}');
}

void pq_geo_types_text(const pq_geo_statistics *g, pq_buf *out) {
  char s[16];
  pq_buf_byte(out, '[');
  for (uint32_t i = 0; i < g->n_types; i++) {
    if (i) pq_buf_append(out, ", ", 2);
    const char *name = pq_geo_type_name(g->types[i]);
    if (!name) {
      snprintf(s, sizeof s, "%d", (int)g->types[i]);
      name = s;
    }
    pq_buf_append(out, name, strlen(name));
  }
  pq_buf_byte(out, ']');
}
