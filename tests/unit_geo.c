/*
** unit_geo.c -- the WKB walk of GEOMETRY and GEOGRAPHY values and their
** GeospatialStatistics as text (src/format/wkb.c).
**
**   1. values built here (every type, XY, Z, M and ZM, both byte orders,
**      collections in collections, NaN coordinates, empty geometries):
**      bounds and type codes against the coordinates the builder wrote
**   2. every prefix of every such value, and each with a byte more: a clean
**      PQ_CORRUPT that leaves the accumulator as it was
**   3. refusals: byte order, EWKB flags, curve types, a member of the wrong
**      type or dimensions, counts past the bytes, nesting past
**      PQ_WKB_DEPTH; each message names what and the offset
**   4. values with bytes changed at random: a result or a clean error (the
**      sanitizer build checks)
**   5. doubles as DuckDB casts them to text (its answers, kept here)
**
** Prints a line per failure starting with "!" and ends with "N passed, N
** failed".
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parquet.h"
#include "check.h"

/* ---- A WKB builder, with the bounds it writes --------------------------- */

typedef struct gb {
  uint8_t b[1 << 16];
  size_t n;
  double min[4], max[4];
} gb;

static void gb_init(gb *g) {
  g->n = 0;
  for (int i = 0; i < 4; i++) {
    g->min[i] = INFINITY;
    g->max[i] = -INFINITY;
  }
}

static void gb_u32(gb *g, int big, uint32_t v) {
  for (int i = 0; i < 4; i++)
    g->b[g->n + (size_t)i] = (uint8_t)(v >> (big ? 24 - 8 * i : 8 * i));
  g->n += 4;
}

static void gb_f64(gb *g, int big, double d, int axis) {
  uint64_t u;
  memcpy(&u, &d, 8);
  for (int i = 0; i < 8; i++)
    g->b[g->n + (size_t)i] = (uint8_t)(u >> (big ? 56 - 8 * i : 8 * i));
  g->n += 8;
  if (d != d) return;
  if (d < g->min[axis]) g->min[axis] = d;
  if (d > g->max[axis]) g->max[axis] = d;
}

static void gb_head(gb *g, int big, uint32_t code) {
  g->b[g->n++] = big ? 0 : 1;
  gb_u32(g, big, code);
}

/* A point's coordinates: from rnd(), a NaN now and then. */
static void gb_coords(gb *g, int big, int dims) {
  int axes[4] = {0, 1, dims & 1 ? 2 : 3, 3};
  int k = 2 + (dims & 1) + (dims >> 1);
  for (int j = 0; j < k; j++) {
    double v = (double)(int64_t)(rnd() % 2001) / 4 - 250;
    if (rnd() % 13 == 0) v = NAN;
    gb_f64(g, big, v, axes[j]);
  }
}

static void gb_geom(gb *g, int type, int dims, int depth);

static void gb_points(gb *g, int big, int dims, uint32_t n) {
  gb_u32(g, big, n);
  for (uint32_t i = 0; i < n; i++) gb_coords(g, big, dims);
}

/* A geometry of type (1..7) and dims, in a random byte order; members
** of collections random too (collections nest while depth > 0). */
static void gb_geom(gb *g, int type, int dims, int depth) {
  int big = (int)(rnd() & 1);
  gb_head(g, big, (uint32_t)(dims * 1000 + type));
  uint32_t n = (uint32_t)(rnd() % 4);
  switch (type) {
    case 1: gb_coords(g, big, dims); break;
    case 2: gb_points(g, big, dims, n); break;
    case 3:
      gb_u32(g, big, n);
      for (uint32_t i = 0; i < n; i++) gb_points(g, big, dims, (uint32_t)(rnd() % 5));
      break;
    default:
      gb_u32(g, big, n);
      for (uint32_t i = 0; i < n; i++) {
        int t = type == 7 ? (int)(depth > 0 ? 1 + rnd() % 7 : 1 + rnd() % 6)
                          : type - 3;
        gb_geom(g, t, dims, depth - 1);
      }
  }
}

static int acc_same(const pq_geo_acc *a, const pq_geo_acc *b) {
  return memcmp(a->min, b->min, sizeof a->min) == 0 &&
         memcmp(a->max, b->max, sizeof a->max) == 0 && a->types == b->types &&
         a->values == b->values;
}

/* ---- 1, 2. Values, their bounds, and their prefixes ------------------------ */

static void test_values(void) {
  static gb g;
  pq_error err;
  for (int round = 0; round < 600; round++) {
    int type = 1 + round % 7, dims = (round / 7) % 4;
    gb_init(&g);
    gb_geom(&g, type, dims, 3);
    pq_geo_acc a, before;
    pq_geo_acc_init(&a);
    memset(&err, 0, sizeof err);
    int rc = pq_wkb_add(&a, g.b, g.n, "g", &err);
    CHECK(rc == PQ_OK, "round %d: %s", round, err.msg);
    int same = 1;
    for (int i = 0; i < 4; i++)
      same &= memcmp(&a.min[i], &g.min[i], 8) == 0 &&
              memcmp(&a.max[i], &g.max[i], 8) == 0;
    CHECK(same, "round %d: bounds", round);
    CHECK(a.types == 1u << (dims * 7 + type - 1) && a.values == 1,
          "round %d: types %x", round, (unsigned)a.types);
    int32_t codes[28];
    CHECK(pq_geo_acc_codes(&a, codes) == 1 && codes[0] == dims * 1000 + type,
          "round %d: code", round);
    /* every prefix, and a byte more: refused, a left as it was */
    before = a;
    size_t step = g.n > 400 ? g.n / 97 + 1 : 1;
    for (size_t k = 0; k < g.n; k += step) {
      memset(&err, 0, sizeof err);
      rc = pq_wkb_add(&a, g.b, k, "g", &err);
      CHECK(rc == PQ_CORRUPT && strstr(err.msg, "at offset"),
            "round %d: prefix %zu of %zu: rc %d", round, k, g.n, rc);
    }
    g.b[g.n] = 0;
    memset(&err, 0, sizeof err);
    rc = pq_wkb_add(&a, g.b, g.n + 1, "g", &err);
    CHECK(rc == PQ_CORRUPT && strstr(err.msg, "1 bytes after the geometry"),
          "round %d: a byte more: %s", round, err.msg);
    CHECK(acc_same(&a, &before), "round %d: a changed by a refusal", round);
  }
}

/* Two values merged: the union of their bounds and types. */
static void test_merge(void) {
  static const uint8_t p1[] = {1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x24, 0x40,
                               0, 0, 0, 0, 0, 0, 0x34, 0xC0}; /* (10 -20) */
  static const uint8_t p2[] = {0, 0, 0, 0x03, 0xE9, 0x40, 0x49, 0, 0, 0, 0,
                               0, 0, 0x3F, 0xF0, 0, 0, 0, 0, 0, 0, 0x40, 0,
                               0, 0, 0, 0, 0, 0}; /* Z (50 1 2), big-endian */
  pq_geo_acc a, b;
  pq_error err = {0};
  pq_geo_acc_init(&a);
  pq_geo_acc_init(&b);
  CHECK(pq_wkb_add(&a, p1, sizeof p1, "g", &err) == PQ_OK, "%s", err.msg);
  CHECK(pq_wkb_add(&b, p2, sizeof p2, "g", &err) == PQ_OK, "%s", err.msg);
  pq_geo_acc_merge(&a, &b);
  CHECK(a.min[0] == 10 && a.max[0] == 50 && a.min[1] == -20 && a.max[1] == 1 &&
            a.min[2] == 2 && a.max[2] == 2 && a.min[3] > a.max[3],
        "merged bounds");
  int32_t c[28];
  CHECK(pq_geo_acc_codes(&a, c) == 2 && c[0] == 1 && c[1] == 1001, "codes");
  CHECK(a.values == 2, "values %lld", (long long)a.values);
}

/* ---- 3. Refusals ------------------------------------------------------------- */

static void refused(const char *name, const uint8_t *p, size_t n,
                    const char *msg) {
  pq_geo_acc a;
  pq_error err = {0};
  pq_geo_acc_init(&a);
  int rc = pq_wkb_add(&a, p, n, "g", &err);
  CHECK(rc == PQ_CORRUPT && strcmp(err.msg, msg) == 0,
        "%s: rc %d, '%s', not '%s'", name, rc, err.msg, msg);
}

static void test_refusals(void) {
  static const uint8_t order[] = {2, 1, 0, 0, 0};
  refused("order", order, sizeof order, "g: WKB: byte order 2 (0 or 1) at offset 0");
  static const uint8_t ewkb[] = {1, 1, 0, 0, 0x20, 0xE6, 0x10, 0, 0};
  refused("ewkb", ewkb, sizeof ewkb,
          "g: WKB: type 0x20000001 has EWKB flags: not ISO WKB at offset 1");
  static const uint8_t curve[] = {1, 8, 0, 0, 0, 0, 0, 0, 0};
  refused("curve", curve, sizeof curve,
          "g: WKB: geometry type 8 (1 to 7, plus 1000, 2000 or 3000) at offset 1");
  static const uint8_t dims4[] = {1, 0xA1, 0x0F, 0, 0};
  refused("dims", dims4, sizeof dims4,
          "g: WKB: geometry type 4001 (1 to 7, plus 1000, 2000 or 3000) at offset 1");
  /* a MULTIPOINT holding a LINESTRING */
  static const uint8_t member[] = {1, 4, 0, 0, 0, 1, 0, 0, 0,
                                   1, 2, 0, 0, 0, 0, 0, 0, 0};
  refused("member", member, sizeof member,
          "g: WKB: a linestring inside a multipoint at offset 10");
  /* a GEOMETRYCOLLECTION Z holding an XY point */
  static const uint8_t mixed[] = {1, 0xEF, 0x03, 0, 0, 1, 0, 0, 0,
                                  1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                  0, 0, 0, 0, 0, 0, 0, 0};
  refused("mixed", mixed, sizeof mixed,
          "g: WKB: geometry type 1 inside a collection of type 1000s at offset 10");
  static const uint8_t many[] = {1, 2, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0};
  refused("count", many, sizeof many,
          "g: WKB: 4294967295 points need at least 68719476720 bytes, 1 remain at offset 5");
  static const uint8_t rings[] = {0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0};
  refused("rings", rings, sizeof rings,
          "g: WKB: 2 rings need at least 8 bytes, 4 remain at offset 5");
  refused("empty", (const uint8_t *)"", 0,
          "g: WKB: a geometry needs 5 bytes, 0 remain at offset 0");
  refused("null", NULL, 0, "g: WKB: a geometry needs 5 bytes, 0 remain at offset 0");
  /* collections nested past PQ_WKB_DEPTH */
  static uint8_t deep[9 * (PQ_WKB_DEPTH + 2) + 21];
  size_t n = 0;
  for (int i = 0; i <= PQ_WKB_DEPTH + 1; i++) {
    const uint8_t h[9] = {1, 7, 0, 0, 0, 1, 0, 0, 0};
    memcpy(deep + n, h, 9);
    n += 9;
  }
  const uint8_t pt[21] = {1, 1, 0, 0, 0};
  memcpy(deep + n, pt, 21);
  n += 21;
  char want[100];
  snprintf(want, sizeof want,
           "g: WKB: geometries nest more than %d deep at offset %d",
           PQ_WKB_DEPTH, 9 * (PQ_WKB_DEPTH + 1));
  refused("deep", deep, n, want);
  /* ... and PQ_WKB_DEPTH deep is read */
  pq_geo_acc a;
  pq_error err = {0};
  pq_geo_acc_init(&a);
  CHECK(pq_wkb_add(&a, deep + 18, n - 18, "g", &err) == PQ_OK, "depth: %s",
        err.msg);
}

/* ---- 4. Random bytes --------------------------------------------------------- */

static void test_random(void) {
  static gb g;
  int ok = 0;
  for (int round = 0; round < 20000; round++) {
    /* a value with a few bytes changed (counts, codes, orders, doubles) */
    gb_init(&g);
    gb_geom(&g, 1 + (int)(rnd() % 7), (int)(rnd() % 4), 2);
    for (int k = 1 + (int)(rnd() % 3); k > 0 && g.n; k--)
      g.b[rnd() % g.n] = (uint8_t)rnd();
    pq_geo_acc a;
    pq_error err = {0};
    pq_geo_acc_init(&a);
    int rc = pq_wkb_add(&a, g.b, g.n, "g", &err);
    ok += rc == PQ_OK;
    CHECK(rc == PQ_OK || (rc == PQ_CORRUPT && strstr(err.msg, "at offset")),
          "round %d: rc %d", round, rc);
  }
  CHECK(ok > 0 && ok < 20000, "%d of the changed values were WKB", ok);
}

/* ---- 5. Text --------------------------------------------------------------- */

static void test_text(void) {
  /* DuckDB 1.5: SELECT {'a': 1e20::DOUBLE, ...}::VARCHAR */
  static const struct {
    double v;
    const char *s;
  } d[] = {{1e20, "1e+20"},
           {1.5e-7, "1.5e-07"},
           {123456789012345680.0, "1.2345678901234568e+17"},
           {INFINITY, "inf"},
           {-INFINITY, "-inf"},
           {-0.0, "-0.0"},
           {1e15, "1000000000000000.0"},
           {1e16, "1e+16"},
           {0.1, "0.1"},
           {1e-5, "1e-05"},
           {123456.7, "123456.7"},
           {10.0, "10.0"},
           {0.0, "0.0"},
           {-5.0, "-5.0"},
           {1000000000000001.0, "1000000000000001.0"},
           {1e-4, "0.0001"},
           {1.0e-4 * 3, "0.00030000000000000003"},
           {-1246468.6282243181, "-1246468.6282243181"}};
  for (size_t i = 0; i < sizeof d / sizeof *d; i++) {
    pq_geo_statistics g;
    memset(&g, 0, sizeof g);
    g.has_bbox = 1;
    g.bbox[0] = d[i].v;
    g.bbox_has = 1;
    pq_buf b;
    pq_buf_init(&b);
    pq_geo_bbox_text(&g, &b);
    char want[200];
    snprintf(want, sizeof want,
             "{'xmin': %s, 'xmax': NULL, 'ymin': NULL, 'ymax': NULL, "
             "'zmin': NULL, 'zmax': NULL, 'mmin': NULL, 'mmax': NULL}",
             d[i].s);
    CHECK(b.len == strlen(want) && memcmp(b.data, want, b.len) == 0,
          "%s: %.*s", d[i].s, (int)b.len, (const char *)b.data);
    pq_buf_free(&b);
  }
  pq_geo_statistics g;
  memset(&g, 0, sizeof g);
  int32_t codes[] = {1, 1002, 2007, 3006, 8, 0};
  g.types = codes;
  g.n_types = 6;
  pq_buf b;
  pq_buf_init(&b);
  pq_geo_types_text(&g, &b);
  const char *want =
      "[point, linestring_z, geometrycollection_m, multipolygon_zm, 8, 0]";
  CHECK(b.len == strlen(want) && memcmp(b.data, want, b.len) == 0, "%.*s",
        (int)b.len, (const char *)b.data);
  pq_buf_free(&b);
  CHECK(pq_geo_type_name(4007) == NULL && pq_geo_type_name(-1) == NULL &&
            strcmp(pq_geo_type_name(3007), "geometrycollection_zm") == 0,
        "names");
}

int main(void) {
  test_values();
  test_merge();
  test_refusals();
  test_random();
  test_text();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
