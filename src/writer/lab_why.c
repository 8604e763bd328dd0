/*
** lab_why.c -- the encoding lab's `why`: what an encoded stream is made
** of, read back from its bytes with the decoders' own readers (the run
** reader of RLE and of dictionary indices, the DELTA_BINARY_PACKED block
** walker, ALP's page and vector headers, GROUP_VAR_INT's groups), as the
** members of a JSON object.  One pass over the stream, without decoding
** its values but DELTA_BYTE_ARRAY's prefix lengths.
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "writer.h"

#define LWHY "lab"

/* Appends a formatted text of at most 255 bytes (the longest made here,
** with 20-digit numbers, is under 200). */
static void lwhy_put(pq_buf *b, const char *fmt, ...) {
  char t[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(t, sizeof t, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  pq_buf_append(b, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

/* ,"key":mean with at most 3 decimals, trailing zeros dropped; null when
** there is nothing to divide. */
static void lwhy_mean(pq_buf *b, const char *key, double sum, double n) {
  if (!(n > 0)) {
    lwhy_put(b, ",\"%s\":null", key);
    return;
  }
  char t[64];
  int k = snprintf(t, sizeof t, "%.3f", sum / n);
  if (k <= 0 || (size_t)k >= sizeof t) return;
  while (k > 1 && t[k - 1] == '0') k--;
  if (t[k - 1] == '.') k--;
  t[k] = 0;
  lwhy_put(b, ",\"%s\":%s", key, t);
}

/* Bit widths seen: the least, the most, and their sum for the mean. */
typedef struct lwhy_widths {
  int min, max;
  uint64_t n, sum;
} lwhy_widths;

static void lwhy_width(lwhy_widths *w, int v) {
  if (w->n == 0 || v < w->min) w->min = v;
  if (w->n == 0 || v > w->max) w->max = v;
  w->n++;
  w->sum += (uint64_t)v;
}

static void lwhy_widths_put(pq_buf *b, const char *key, const lwhy_widths *w) {
  if (w->n == 0) {
    lwhy_put(b, ",\"%s\":null", key);
    return;
  }
  lwhy_put(b, ",\"%s\":{\"min\":%d,\"max\":%d", key, w->min, w->max);
  lwhy_mean(b, "mean", (double)w->sum, (double)w->n);
  pq_buf_byte(b, '}');
}

/* The blocks of a DELTA_BINARY_PACKED stream at buf[0..len), header read
** into r: the widths of the miniblocks that hold values, the blocks, and
** the stream's end. */
static int lwhy_delta_walk(const pq_delta_reader *r, lwhy_widths *w,
                           uint64_t *blocks, size_t *end, pq_error *err) {
  const uint8_t *buf = r->buf;
  size_t len = r->len, pos = r->pos;
  uint64_t left = r->total > 0 ? r->total - 1 : 0;
  uint64_t mbv = r->mb_values;
  *blocks = 0;
  while (left > 0) {
    uint64_t zz;
    if (pq_uleb_read(buf, len, &pos, &zz) || r->mb_count > len - pos)
      return pq_fail(err, PQ_CORRUPT, LWHY, "a delta block is cut short");
    const uint8_t *widths = buf + pos;
    pos += (size_t)r->mb_count;
    (*blocks)++;
    for (uint64_t m = 0; m < r->mb_count && left > 0; m++) {
      int bw = widths[m];
      uint64_t bytes = mbv * (uint64_t)bw / 8;
      if (bw > r->maxw || bytes > len - pos)
        return pq_fail(err, PQ_CORRUPT, LWHY, "a delta miniblock is cut short");
      lwhy_width(w, bw);
      pos += (size_t)bytes;
      left -= left < mbv ? left : mbv;
    }
  }
  *end = pos;
  return PQ_OK;
}

/* A stream of INT32 lengths (DELTA_*_BYTE_ARRAY's) at buf[0..len): its
** end, and the sum of its values when sum is not NULL. */
static int lwhy_lengths(const uint8_t *buf, size_t len, size_t *end,
                        uint64_t *sum, pq_error *err) {
  pq_delta_reader r;
  int rc = pq_delta_reader_init(&r, buf, len, 0, PQ_DELTA_32, LWHY, err);
  if (rc) return rc;
  rc = pq_delta_reader_size(&r, end, err);
  if (rc || !sum) return rc;
  *sum = 0;
  int32_t v[256];
  for (;;) {
    size_t got;
    rc = pq_delta_reader_read(&r, v, 256, &got, err);
    if (rc || got == 0) break;
    for (size_t i = 0; i < got; i++) *sum += v[i] > 0 ? (uint64_t)v[i] : 0;
  }
  return rc;
}

static int lwhy_delta(const pq_params *p, const uint8_t *s, size_t n,
                      pq_buf *out, pq_error *err) {
  pq_delta_reader r;
  int is32 = p->type == PQ_INT32 ? PQ_DELTA_32 : PQ_DELTA_64;
  int rc = pq_delta_reader_init(&r, s, n, 0, is32, LWHY, err);
  if (rc) return rc;
  lwhy_widths w;
  memset(&w, 0, sizeof w);
  uint64_t blocks;
  size_t end;
  rc = lwhy_delta_walk(&r, &w, &blocks, &end, err);
  if (rc) return rc;
  if (r.total > 0)
    lwhy_put(out, "\"first_value\":%lld",
             is32 ? (long long)(int32_t)(uint32_t)r.last : (long long)r.last);
  else
    lwhy_put(out, "\"first_value\":null");
  lwhy_put(out, ",\"blocks\":%llu,\"miniblocks\":%llu",
           (unsigned long long)blocks, (unsigned long long)w.n);
  lwhy_widths_put(out, "miniblock_bit_widths", &w);
  return PQ_OK;
}

static int lwhy_dlba(const uint8_t *s, size_t n, int64_t count, pq_buf *out,
                     pq_error *err) {
  size_t end;
  int rc = lwhy_lengths(s, n, &end, NULL, err);
  if (rc) return rc;
  lwhy_put(out, "\"lengths_bytes\":%llu,\"data_bytes\":%llu",
           (unsigned long long)end, (unsigned long long)(n - end));
  lwhy_mean(out, "mean_length", (double)(n - end), (double)count);
  return PQ_OK;
}

static int lwhy_dba(const uint8_t *s, size_t n, int64_t count, pq_buf *out,
                    pq_error *err) {
  size_t pend, send;
  uint64_t prefix;
  int rc = lwhy_lengths(s, n, &pend, &prefix, err);
  if (rc == PQ_OK) rc = lwhy_lengths(s + pend, n - pend, &send, NULL, err);
  if (rc) return rc;
  lwhy_mean(out, "mean_prefix", (double)prefix, (double)count);
  lwhy_mean(out, "mean_suffix", (double)(n - pend - send), (double)count);
  lwhy_put(out, ",\"prefix_lengths_bytes\":%llu,\"suffix_lengths_bytes\":%llu"
                ",\"suffix_bytes\":%llu",
           (unsigned long long)pend, (unsigned long long)send,
           (unsigned long long)(n - pend - send));
  /* (the members began with a comma) */
  return PQ_OK;
}

/* The runs of an RLE/bit-packed hybrid stream. */
static int lwhy_runs(const uint8_t *s, size_t n, size_t base, int w,
                     uint64_t *runs, uint64_t *packed, pq_error *err) {
  pq_rle_reader r;
  pq_rle_reader_init(&r, s, n, base, w, LWHY);
  *runs = *packed = 0;
  while (r.pos < r.len) {
    int rc = pq_rle_next_run(&r, err);
    if (rc) return rc;
    (*runs)++;
    *packed += r.run_packed != 0;
  }
  return PQ_OK;
}

static int lwhy_rle(const pq_params *p, const uint8_t *s, size_t n,
                    pq_buf *out, pq_error *err) {
  if (p->type != PQ_BOOLEAN) {
    lwhy_put(out, "\"bytes\":%llu", (unsigned long long)n);
    return PQ_OK;
  }
  /* BOOLEAN's runs, of width 1, behind a 4-byte length */
  if (n < 4) return pq_fail(err, PQ_CORRUPT, LWHY, "no length prefix");
  uint32_t len = pq_load32(s);
  if (len > n - 4) return pq_fail(err, PQ_CORRUPT, LWHY, "runs cut short");
  uint64_t runs, packed;
  int rc = lwhy_runs(s + 4, len, 4, 1, &runs, &packed, err);
  if (rc) return rc;
  lwhy_put(out, "\"runs\":%llu,\"repeated_runs\":%llu,\"bit_packed_runs\":%llu",
           (unsigned long long)runs, (unsigned long long)(runs - packed),
           (unsigned long long)packed);
  return PQ_OK;
}

static int lwhy_dict(const pq_params *p, const uint8_t *s, size_t n,
                     const uint8_t *d, size_t dn, int64_t count, pq_buf *out,
                     pq_error *err) {
  int w = 0;
  uint64_t runs = 0, packed = 0;
  if (n > 0) {
    w = s[0];
    if (w > 32) return pq_fail(err, PQ_CORRUPT, LWHY, "index bit width %d", w);
    int rc = lwhy_runs(s + 1, n - 1, 1, w, &runs, &packed, err);
    if (rc) return rc;
  }
  /* the entries, counted in the PLAIN dictionary */
  uint64_t entries = 0;
  size_t vw = pq_plain_width(p->type, p->type_length);
  if (p->type == PQ_BYTE_ARRAY) {
    for (size_t at = 0; at < dn; entries++) {
      if (dn - at < 4) return pq_fail(err, PQ_CORRUPT, LWHY, "dictionary cut short");
      uint32_t k = pq_load32(d + at);
      if (k > dn - at - 4)
        return pq_fail(err, PQ_CORRUPT, LWHY, "dictionary cut short");
      at += 4 + (size_t)k;
    }
  } else if (vw) {
    entries = dn / vw;
  } else if (count > 0) {
    /* BOOLEAN's entries are bits: the width holds the largest index */
    entries = w ? 2 : 1;
  }
  lwhy_put(out, "\"entries\":%llu,\"index_bit_width\":%d,\"dictionary_bytes\":"
                "%llu,\"index_bytes\":%llu,\"index_runs\":%llu",
           (unsigned long long)entries, w, (unsigned long long)dn,
           (unsigned long long)n, (unsigned long long)runs);
  return PQ_OK;
}

static int lwhy_alp(const pq_params *p, const uint8_t *s, size_t n,
                    pq_buf *out, pq_error *err) {
  pq_alp_page pg;
  int rc = pq_alp_page_read(&pg, p, s, n, err);
  if (rc) return rc;
  /* vectors per exponent and factor */
  uint64_t pairs[19][19];
  memset(pairs, 0, sizeof pairs);
  lwhy_widths w;
  memset(&w, 0, sizeof w);
  uint64_t exceptions = 0;
  size_t next = 7 + (size_t)pg.nvec * 4; /* past the header and offsets */
  for (uint32_t k = 0; k < pg.nvec; k++) {
    pq_alp_vector v;
    rc = pq_alp_vector_read(&pg, s, n, k, next, &v, err);
    if (rc) return rc;
    next = v.end;
    if (v.e < 19 && v.f < 19) pairs[v.e][v.f]++;
    exceptions += v.nexc;
    lwhy_width(&w, v.w);
  }
  lwhy_put(out, "\"vectors\":%u,\"exceptions\":%llu", pg.nvec,
           (unsigned long long)exceptions);
  lwhy_widths_put(out, "bit_widths", &w);
  /* the three pairs most used, most first (ties: the smaller exponent,
  ** then factor) */
  pq_buf_append(out, ",\"pairs\":[", 10);
  for (int t = 0; t < 3; t++) {
    int be = -1, bf = -1;
    for (int e = 0; e < 19; e++)
      for (int f = 0; f < 19; f++)
        if (pairs[e][f] && (be < 0 || pairs[e][f] > pairs[be][bf])) {
          be = e;
          bf = f;
        }
    if (be < 0) break;
    lwhy_put(out, "%s{\"exponent\":%d,\"factor\":%d,\"vectors\":%llu}",
             t ? "," : "", be, bf, (unsigned long long)pairs[be][bf]);
    pairs[be][bf] = 0;
  }
  pq_buf_byte(out, ']');
  return PQ_OK;
}

static int lwhy_gvi(const pq_params *p, const uint8_t *s, size_t n,
                    int64_t count, pq_buf *out, pq_error *err) {
  int wide = p->type == PQ_INT64;
  int per = wide ? 5 : 4;
  uint64_t groups = 0, bytes = 0, seen = 0;
  for (size_t at = 0; at < n && seen < (uint64_t)count; groups++) {
    int lens[5];
    uint64_t vals[5];
    int rc = pq_gvi_group(s, n, at, wide, groups, lens, vals, err);
    if (rc) return rc;
    at += (size_t)(wide ? 2 : 1);
    for (int i = 0; i < per; i++) {
      at += (size_t)lens[i];
      if (seen < (uint64_t)count) {
        bytes += (uint64_t)lens[i];
        seen++;
      }
    }
  }
  lwhy_put(out, "\"groups\":%llu", (unsigned long long)groups);
  lwhy_mean(out, "mean_value_bytes", (double)bytes, (double)seen);
  return PQ_OK;
}

static int lwhy_bss(const pq_params *p, const uint8_t *s, size_t n,
                    pq_buf *out) {
  size_t k = pq_plain_width(p->type, p->type_length);
  size_t each = k ? n / k : 0;
  lwhy_put(out, "\"streams\":%llu,\"distinct_bytes\":[", (unsigned long long)k);
  for (size_t j = 0; j < k; j++) {
    uint8_t seen[256];
    memset(seen, 0, sizeof seen);
    const uint8_t *q = s + j * each;
    int distinct = 0;
    for (size_t i = 0; i < each; i++) {
      distinct += !seen[q[i]];
      seen[q[i]] = 1;
    }
    lwhy_put(out, "%s%d", j ? "," : "", distinct);
  }
  pq_buf_byte(out, ']');
  return PQ_OK;
}

static int lwhy_plain(const pq_params *p, size_t n, int64_t count,
                      pq_buf *out) {
  if (p->type != PQ_BYTE_ARRAY) {
    lwhy_put(out, "\"value_bytes\":%llu", (unsigned long long)n);
    return PQ_OK;
  }
  uint64_t lens = 4 * (uint64_t)(count > 0 ? count : 0);
  uint64_t data = n > lens ? n - lens : 0;
  lwhy_put(out, "\"value_bytes\":%llu,\"length_bytes\":%llu",
           (unsigned long long)data, (unsigned long long)lens);
  lwhy_mean(out, "mean_length", (double)data, (double)count);
  return PQ_OK;
}

int pq_lab_stream_why(const pq_params *p, const uint8_t *s, size_t n,
                      const uint8_t *d, size_t dn, int64_t count, pq_buf *out,
                      pq_error *err) {
  size_t at = out->len;
  int rc = PQ_OK;
  switch (p->encoding) {
    case PQ_PLAIN: rc = lwhy_plain(p, n, count, out); break;
    case PQ_GROUP_VAR_INT: rc = lwhy_gvi(p, s, n, count, out, err); break;
    case PQ_RLE: rc = lwhy_rle(p, s, n, out, err); break;
    case PQ_PLAIN_DICTIONARY:
    case PQ_RLE_DICTIONARY: rc = lwhy_dict(p, s, n, d, dn, count, out, err); break;
    case PQ_DELTA_BINARY_PACKED: rc = lwhy_delta(p, s, n, out, err); break;
    case PQ_DELTA_LENGTH_BYTE_ARRAY: rc = lwhy_dlba(s, n, count, out, err); break;
    case PQ_DELTA_BYTE_ARRAY: {
      rc = lwhy_dba(s, n, count, out, err);
      /* its members began with a comma: drop it */
      if (rc == PQ_OK && out->len > at && out->data[at] == ',') {
        memmove(out->data + at, out->data + at + 1, out->len - at - 1);
        out->len--;
      }
      break;
    }
    case PQ_BYTE_STREAM_SPLIT: rc = lwhy_bss(p, s, n, out); break;
    case PQ_ALP: rc = lwhy_alp(p, s, n, out, err); break;
    default: lwhy_put(out, "\"bytes\":%llu", (unsigned long long)n); break;
  }
  if (rc == PQ_OK && out->oom) rc = pq_nomem(err, LWHY);
  if (rc) {
    out->len = at;
    out->oom = 0;
  }
  return rc;
}
