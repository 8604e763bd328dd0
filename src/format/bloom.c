/*
** bloom.c -- a column chunk's bloom filter (parquet.thrift,
** BloomFilterHeader; the Parquet BloomFilter spec): split-block bloom
** filters whose keys are xxHash64 (seed 0) of the values' PLAIN bytes.
**
**   <BloomFilterHeader{1 numBytes i32, 2 algorithm {1 BLOCK},
**                      3 hash {1 XXHASH}, 4 compression {1 UNCOMPRESSED}}>
**   <bitset: numBytes bytes, blocks of eight 32-bit little-endian words>
**
** A hash h picks the block ((h >> 32) * blocks) >> 32; its low 32 bits,
** multiplied by eight salts, pick one bit in each word of the block (the
** top 5 bits of each product).  A value may be in the chunk only when all
** eight bits are set.
**
** The header must lie inside the file's data (before the footer), and
** inside bloom_filter_length when the footer gives one; numBytes must be a
** positive multiple of 32, at most BLOOM_MAX, and the bitset must fit too.
** bloom_filter_length counts the header and the bitset (parquet.thrift,
** ColumnMetaData): when the two disagree, one of them is wrong and the
** filter is not used (DuckDB wrote headers whose numBytes was half the
** bitset bloom_filter_length covered: read as numBytes says, values that
** are in the chunk would be ruled out).
*/
#include "format.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

#define BLOOM_MAX (128u * 1024 * 1024)
/* From a file without an image, a header is read from this many bytes
** first (it takes about 15). */
#define BLOOM_HEAD 256

/* ---- xxHash64 ----------------------------------------------------------------
** From the algorithm's definition (Yann Collet's xxHash, XXH64): four
** lanes over 32-byte stripes, merged, then the tail in 8-, 4- and 1-byte
** steps, then the avalanche. */

#define BLOOM_P1 0x9E3779B185EBCA87ULL
#define BLOOM_P2 0xC2B2AE3D27D4EB4FULL
#define BLOOM_P3 0x165667B19E3779F9ULL
#define BLOOM_P4 0x85EBCA77C2B2AE63ULL
#define BLOOM_P5 0x27D4EB2F165667C5ULL

static uint64_t bloom_rotl(uint64_t x, int r) {
  return (x << r) | (x >> (64 - r));
}

static uint64_t bloom_round(uint64_t acc, uint64_t lane) {
  acc += lane * BLOOM_P2;
  acc = bloom_rotl(acc, 31);
  return acc * BLOOM_P1;
}

static uint64_t bloom_merge(uint64_t acc, uint64_t v) {
  acc ^= bloom_round(0, v);
  return acc * BLOOM_P1 + BLOOM_P4;
}

uint64_t pq_xxhash64(const void *data, size_t n, uint64_t seed) {
  const uint8_t *p = data;
  const uint8_t *end = p + n;
  uint64_t h;
  if (n >= 32) {
    uint64_t v1 = seed + BLOOM_P1 + BLOOM_P2;
    uint64_t v2 = seed + BLOOM_P2;
    uint64_t v3 = seed;
    uint64_t v4 = seed - BLOOM_P1;
    const uint8_t *limit = end - 32;
    do {
      v1 = bloom_round(v1, pq_load64(p));
      v2 = bloom_round(v2, pq_load64(p + 8));
      v3 = bloom_round(v3, pq_load64(p + 16));
      v4 = bloom_round(v4, pq_load64(p + 24));
      p += 32;
    } while (p <= limit);
    h = bloom_rotl(v1, 1) + bloom_rotl(v2, 7) + bloom_rotl(v3, 12) +
        bloom_rotl(v4, 18);
    h = bloom_merge(h, v1);
    h = bloom_merge(h, v2);
    h = bloom_merge(h, v3);
    h = bloom_merge(h, v4);
  } else {
    h = seed + BLOOM_P5;
  }
  h += (uint64_t)n;
  while (end - p >= 8) {
    h ^= bloom_round(0, pq_load64(p));
    h = bloom_rotl(h, 27) * BLOOM_P1 + BLOOM_P4;
    p += 8;
  }
  if (end - p >= 4) {
    h ^= (uint64_t)pq_load32(p) * BLOOM_P1;
    h = bloom_rotl(h, 23) * BLOOM_P2 + BLOOM_P3;
    p += 4;
  }
  while (p < end) {
    h ^= (uint64_t)*p * BLOOM_P5;
    h = bloom_rotl(h, 11) * BLOOM_P1;
    p++;
  }
  h ^= h >> 33;
  h *= BLOOM_P2;
  h ^= h >> 29;
  h *= BLOOM_P3;
  h ^= h >> 32;
  return h;
}

/* ---- Hashing values ------------------------------------------------------------ */

uint64_t pq_bloom_hash(pq_type t, int32_t type_length, const void *value) {
  uint8_t b[8];
  switch (t) {
    case PQ_BOOLEAN:
      b[0] = *(const uint8_t *)value != 0;
      return pq_xxhash64(b, 1, 0);
    case PQ_INT32:
    case PQ_FLOAT: {
      uint32_t u;
      memcpy(&u, value, 4);
      pq_store32(b, u);
      return pq_xxhash64(b, 4, 0);
    }
    case PQ_INT64:
    case PQ_DOUBLE: {
      uint64_t u;
      memcpy(&u, value, 8);
      pq_store64(b, u);
      return pq_xxhash64(b, 8, 0);
    }
    case PQ_INT96:
      return pq_xxhash64(value, 12, 0);
    case PQ_FIXED_LEN_BYTE_ARRAY:
      return pq_xxhash64(value, type_length > 0 ? (size_t)type_length : 0, 0);
    case PQ_BYTE_ARRAY:
    default: {
      const pq_bytes *v = value;
      return pq_xxhash64(v->len ? v->ptr : (const uint8_t *)"", v->len, 0);
    }
  }
}

/* ---- The split-block filter ---------------------------------------------------- */

static const uint32_t bloom_salt[8] = {0x47b6137bU, 0x44974d91U, 0x8824ad5bU,
                                       0xa2b7289dU, 0x705495c7U, 0x2df1424bU,
                                       0x9efc4947U, 0x5c6bfb31U};

int pq_bloom_check(const pq_bloom *b, uint64_t hash) {
  if (!b || !b->bitset || b->num_bytes < 32) return 1;
  uint64_t blocks = b->num_bytes / 32;
  uint64_t block = ((hash >> 32) * blocks) >> 32;
  const uint8_t *w = b->bitset + block * 32;
  uint32_t key = (uint32_t)hash;
  for (int i = 0; i < 8; i++) {
    uint32_t mask = 1u << ((uint32_t)(key * bloom_salt[i]) >> 27);
    if (!(pq_load32(w + 4 * i) & mask)) return 0;
  }
  return 1;
}

void pq_bloom_insert(uint8_t *bitset, uint32_t num_bytes, uint64_t hash) {
  uint64_t blocks = num_bytes / 32;
  if (blocks == 0) return;
  uint64_t block = ((hash >> 32) * blocks) >> 32;
  uint8_t *w = bitset + block * 32;
  uint32_t key = (uint32_t)hash;
  for (int i = 0; i < 8; i++) {
    uint32_t mask = 1u << ((uint32_t)(key * bloom_salt[i]) >> 27);
    pq_store32(w + 4 * i, pq_load32(w + 4 * i) | mask);
  }
}

uint32_t pq_bloom_size(uint64_t ndv, double fpp) {
  if (!(fpp > 0 && fpp < 1)) fpp = 0.01;
  /* bits = -8 ndv / ln(1 - fpp^(1/8)) */
  double bits = -8.0 * (double)(ndv ? ndv : 1) / log(1.0 - pow(fpp, 1.0 / 8));
  double bytes = bits / 8;
  uint32_t n = 32;
  while (n < (1u << 27) && (double)n < bytes) n <<= 1;
  return n;
}

/* ---- The header ---------------------------------------------------------------- */

/* A union of empty structs (algorithm, hash, compression): the id of its
** member, 0 when it has none. */
static int bloom_union(pq_parser *ps) {
  pq_thrift *t = &ps->t;
  int type, member = 0;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return 0;
  while (!t->failed && pq_thrift_field(t, &type, &last, &id)) {
    if (type == PQ_TT_STRUCT && !member) member = id;
    pq_thrift_skip(t, type);
  }
  pq_thrift_leave(t);
  return member;
}

typedef struct bloom_header {
  int64_t num_bytes;
  int algorithm, hash, compression; /* union member ids; 0 absent */
  int has_num_bytes;
} bloom_header;

static void bloom_parse(pq_parser *ps, bloom_header *h) {
  pq_thrift *t = &ps->t;
  int type;
  int16_t id, last = 0;
  if (!pq_thrift_enter(t)) return;
  while (!t->failed && pq_thrift_field(t, &type, &last, &id)) {
    if (id == 1 && pq_parse_want(ps, type, PQ_TT_I32)) {
      h->num_bytes = pq_thrift_i32(t);
      h->has_num_bytes = 1;
    } else if (id >= 2 && id <= 4 && pq_parse_want(ps, type, PQ_TT_STRUCT)) {
      int m = bloom_union(ps);
      if (id == 2) h->algorithm = m;
      if (id == 3) h->hash = m;
      if (id == 4) h->compression = m;
    } else if (id < 1 || id > 4) {
      pq_thrift_skip(t, type);
    }
  }
  pq_thrift_leave(t);
}

int pq_bloom_read(const pq_file *f, uint32_t row_group, uint32_t column,
                  pq_bloom *out, int *present, pq_error *err) {
  memset(out, 0, sizeof *out);
  *present = 0;
  const pq_file_meta *m = pq_file_metadata(f);
  if (row_group >= m->n_row_groups || column >= pq_file_leaf_count(f) ||
      column >= m->row_groups[row_group].n_columns) {
    return pq_fail(err, PQ_MISUSE, "file", "no column %u in row group %u",
                   column, row_group);
  }
  const pq_column_chunk *cc = &m->row_groups[row_group].columns[column];
  const pq_schema_node *leaf = pq_file_leaf(f, column);
  char label[200];
  snprintf(label, sizeof label, "column '%s', row group %u: bloom filter",
           leaf && leaf->path ? leaf->path : "", row_group);
  if (!cc->has_meta_data || cc->meta.bloom_filter_offset < 0) return PQ_OK;
  if (cc->encrypted) {
    return pq_fail(err, PQ_UNSUPPORTED, label,
                   "the column is encrypted: encrypted files are not "
                   "supported");
  }
  size_t end = f->data_end; /* the footer's start */
  int64_t off = cc->meta.bloom_filter_offset;
  int32_t flen = cc->meta.bloom_filter_length;
  if (off < 4 || (uint64_t)off >= end) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "offset %lld is not inside the file's data (offsets 4 "
                   "to %zu)",
                   (long long)off, end);
  }
  if (flen < -1 || flen == 0 ||
      (flen > 0 && (uint64_t)flen > end - (uint64_t)off)) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "%d bytes at offset %lld are not inside the file's data "
                   "(offsets 4 to %zu)",
                   flen, (long long)off, end);
  }
  /* The filter's bytes: bloom_filter_length of them, or up to the footer.
  ** From a file without an image: all of them when the length is known,
  ** else the header first (from a few bytes, more if it runs past them),
  ** then the bitset. */
  size_t avail = flen > 0 ? (size_t)flen : end - (size_t)off;
  size_t want = f->buf || flen > 0 || avail <= BLOOM_HEAD ? avail : BLOOM_HEAD;
  pq_buf bytes;
  pq_buf_init(&bytes);
  const uint8_t *p;
  bloom_header h;
  pq_parser ps;
  memset(&h, 0, sizeof h);
  memset(&ps, 0, sizeof ps);
  int rc;
  for (;;) {
    rc = pq_file_span(f, (uint64_t)off, want, &bytes, &p, label, err);
    if (rc) break;
    memset(&ps, 0, sizeof ps);
    pq_thrift_init(&ps.t, p, want, (size_t)off, label, err);
    memset(&h, 0, sizeof h);
    bloom_parse(&ps, &h);
    rc = ps.t.failed;
    if (rc != PQ_CORRUPT || want == avail) break;
    want = want > avail / 64 ? avail : 64 * want;
  }
  if (rc == PQ_OK && (!h.has_num_bytes || !h.algorithm || !h.hash ||
                      !h.compression)) {
    rc = pq_fail(err, PQ_CORRUPT, label,
                 "the header at offset %lld has no %s", (long long)off,
                 !h.has_num_bytes ? "numBytes"
                 : !h.algorithm   ? "algorithm"
                 : !h.hash        ? "hash"
                                  : "compression");
  }
  if (rc == PQ_OK && (h.algorithm != 1 || h.hash != 1 || h.compression != 1)) {
    rc = pq_fail(err, PQ_UNSUPPORTED, label,
                 "the header at offset %lld names %s %d: only BLOCK, "
                 "XXHASH and UNCOMPRESSED (1) are known",
                 (long long)off,
                 h.algorithm != 1 ? "algorithm"
                 : h.hash != 1    ? "hash"
                                  : "compression",
                 h.algorithm != 1 ? h.algorithm
                 : h.hash != 1    ? h.hash
                                  : h.compression);
  }
  size_t hsize = ps.t.pos;
  if (rc == PQ_OK && (h.num_bytes <= 0 || h.num_bytes % 32 != 0 ||
                      h.num_bytes > BLOOM_MAX)) {
    rc = pq_fail(err, PQ_CORRUPT, label,
                 "numBytes is %lld at offset %lld: a bitset is a positive "
                 "multiple of 32 bytes, at most %u",
                 (long long)h.num_bytes, (long long)off, BLOOM_MAX);
  }
  if (rc == PQ_OK && flen > 0 &&
      (uint64_t)hsize + (uint64_t)h.num_bytes != (uint64_t)flen) {
    rc = pq_fail(err, PQ_CORRUPT, label,
                 "the header at offset %lld (%zu bytes) and its bitset "
                 "(numBytes %lld) make %llu bytes, but bloom_filter_length "
                 "is %d",
                 (long long)off, hsize, (long long)h.num_bytes,
                 (unsigned long long)hsize + (unsigned long long)h.num_bytes,
                 flen);
  }
  if (rc == PQ_OK && (uint64_t)h.num_bytes > avail - hsize) {
    rc = pq_fail(err, PQ_CORRUPT, label,
                 "a bitset of %lld bytes at offset %llu runs past the %s "
                 "(%zu bytes left)",
                 (long long)h.num_bytes, (unsigned long long)off + hsize,
                 flen > 0 ? "filter's bloom_filter_length" : "file's data",
                 avail - hsize);
  }
  if (rc == PQ_OK && !f->buf && hsize + (size_t)h.num_bytes > want) {
    /* Only the header was read: the bitset, into memory of its own. */
    pq_buf_free(&bytes);
    rc = pq_file_span(f, (uint64_t)off + hsize, (size_t)h.num_bytes, &bytes,
                      &p, label, err);
    hsize = 0;
  }
  if (rc) {
    pq_buf_free(&bytes);
    return rc;
  }
  out->bitset = p + hsize;
  out->num_bytes = (uint32_t)h.num_bytes;
  out->offset = off;
  out->header_size = (uint32_t)ps.t.pos;
  out->mem = bytes.data;
  *present = 1;
  return PQ_OK;
}

void pq_bloom_release(pq_bloom *b) {
  pq_free(b->mem);
  memset(b, 0, sizeof *b);
}

/* ---- SQL values mapped back ----------------------------------------------------- */

/* Whether an INT32 or INT64 leaf's SQL values are its physical values:
** no annotation, or a signed integer one. */
static int bloom_plain_int(const pq_schema_element *e) {
  int conv = e->converted_type, lt = e->logical_type;
  if (conv >= 0 && !(conv >= 15 && conv <= 18)) return 0; /* INT_8..INT_64 */
  if (lt != 0 && !(lt == 10 && e->logical_signed)) return 0;
  return 1;
}

/* Whether a BYTE_ARRAY leaf's SQL values are its bytes: no annotation, or
** text (STRING, ENUM, JSON; UTF8, ENUM, JSON). */
static int bloom_plain_bytes(const pq_schema_element *e) {
  int conv = e->converted_type, lt = e->logical_type;
  if (conv >= 0 && conv != 0 && conv != 4 && conv != 19) return 0;
  if (lt != 0 && lt != 1 && lt != 4 && lt != 12) return 0;
  return 1;
}

/* The integer a cell holds, exactly: 1 and *out; 0 when it holds a number
** that is no integer or is out of [lo, hi]; -1 when it is no number. */
static int bloom_cell_int(const pq_cell *v, int64_t lo, int64_t hi,
                          int64_t *out) {
  if (v->kind == PQ_CELL_INT) {
    if (v->i < lo || v->i > hi) return 0;
    *out = v->i;
    return 1;
  }
  if (v->kind != PQ_CELL_REAL) return -1;
  double r = v->r;
  if (r != r) return -1; /* NaN is no SQL value: not known */
  /* [lo, hi] as doubles: lo is -2^31 or -2^63, exact; hi + 1 is a power of
  ** two, exact. */
  if (r < (double)lo || r >= (double)hi + 1.0 || r != floor(r)) return 0;
  *out = (int64_t)r;
  return 1;
}

int pq_bloom_hash_cell(const pq_schema_node *leaf, const pq_cell *v,
                       uint64_t *hash) {
  if (!leaf || leaf->leaf < 0 || !leaf->elem || !leaf->elem->has_type)
    return -1;
  const pq_schema_element *e = leaf->elem;
  int conv = e->converted_type, lt = e->logical_type;
  switch (e->type) {
    case PQ_INT32:
    case PQ_INT64: {
      if (!bloom_plain_int(e)) return -1;
      int64_t x;
      int rc = e->type == PQ_INT32
                   ? bloom_cell_int(v, INT32_MIN, INT32_MAX, &x)
                   : bloom_cell_int(v, INT64_MIN, INT64_MAX, &x);
      if (rc != 1) return rc;
      if (e->type == PQ_INT32) {
        int32_t y = (int32_t)x;
        *hash = pq_bloom_hash(PQ_INT32, 0, &y);
      } else {
        *hash = pq_bloom_hash(PQ_INT64, 0, &x);
      }
      return 1;
    }
    case PQ_FLOAT:
    case PQ_DOUBLE: {
      if (conv >= 0 || lt != 0) return -1;
      double d;
      if (v->kind == PQ_CELL_REAL) {
        d = v->r;
        if (d != d) return -1;
      } else if (v->kind == PQ_CELL_INT) {
        /* Only an integer a double holds exactly can equal one. */
        d = (double)v->i;
        if (d >= 9223372036854775808.0 || (int64_t)d != v->i) return 0;
      } else {
        return -1;
      }
      /* 0.0 equals -0.0 too, whose bytes differ: two values, not one. */
      if (d == 0) return -1;
      if (e->type == PQ_DOUBLE) {
        *hash = pq_bloom_hash(PQ_DOUBLE, 0, &d);
        return 1;
      }
      if (!isinf(d) && fabs(d) > FLT_MAX) return 0;
      float fl = (float)d;
      if ((double)fl != d) return 0; /* no float is exactly d */
      *hash = pq_bloom_hash(PQ_FLOAT, 0, &fl);
      return 1;
    }
    case PQ_BYTE_ARRAY: {
      if (!bloom_plain_bytes(e)) return -1;
      if (v->kind != PQ_CELL_TEXT && v->kind != PQ_CELL_BLOB) return -1;
      pq_bytes b = {v->n ? v->p : (const uint8_t *)"", v->n};
      *hash = pq_bloom_hash(PQ_BYTE_ARRAY, 0, &b);
      return 1;
    }
    case PQ_FIXED_LEN_BYTE_ARRAY:
      if (conv >= 0 || lt != 0 || e->type_length < 0) return -1;
      if (v->kind != PQ_CELL_TEXT && v->kind != PQ_CELL_BLOB) return -1;
      if (v->n != (size_t)e->type_length) return 0;
      *hash = pq_xxhash64(v->n ? v->p : (const uint8_t *)"", v->n, 0);
      return 1;
    default: /* BOOLEAN, INT96 */
      return -1;
  }
}
