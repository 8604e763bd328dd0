/*
** rle.c -- the RLE/bit-packing hybrid (spec/Encodings.md, "Run Length
** Encoding / Bit-Packing Hybrid").
**
**   rle-bit-packed-hybrid: [<length>] <run>*
**   run: varint(n << 1) <value in ceil(w/8) bytes>         n copies
**      | varint(g << 1 | 1) <g*w bytes>                    8*g packed values
**
** The run reader and writer here serve the RLE encoding itself (BOOLEAN
** values and levels), the dictionary index streams and page levels.
*/
#include "encodings.h"
#if PQ_X86_SIMD
#include <immintrin.h>
#endif

#define RUN_MAX 0x7fffffffu /* spec: run lengths are in [1, 2^31-1] */

#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

/* ---- Reader ------------------------------------------------------------- */

void pq_rle_reader_init(pq_rle_reader *r, const uint8_t *buf, size_t len,
                        size_t base, int w, const char *label) {
  memset(r, 0, sizeof *r);
  r->buf = buf;
  r->len = len;
  r->base = base;
  r->w = w;
  r->label = label;
  r->limit = UINT64_MAX;
  r->cpu = pq_cpu();
  r->unpack32 = pq_unpack32_table(r->cpu);
}

int pq_rle_next_run(pq_rle_reader *r, pq_error *err) {
  size_t at = r->pos;
  uint64_t h = r->buf[at];
  int bad = 0;
  if (PQ_LIKELY(h < 0x80)) {
    r->pos = at + 1;
  } else {
    bad = pq_uleb_read(r->buf, r->len, &r->pos, &h);
  }
  if (bad) {
    return pq_fail(err, PQ_CORRUPT, r->label,
                   bad == 1 ? "run %llu: header at offset %zu is cut short"
                            : "run %llu: header at offset %zu is over 64 bits",
                   (unsigned long long)r->runs, r->base + at);
  }
  size_t avail = r->len - r->pos;
  if (h & 1) {
    uint64_t groups = h >> 1;
    if (groups == 0 || groups > RUN_MAX / 8) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: a bit-packed run of %llu values "
                     "(the spec allows 8 to 2147483640)",
                     (unsigned long long)r->runs, r->base + at,
                     (unsigned long long)groups * 8);
    }
    uint64_t values = groups * 8;
    uint64_t bytes = groups * (uint64_t)r->w;
    if (bytes > avail) {
      /* A run cut short is still readable when the values wanted from it
      ** are all there (writers may drop the padding of the last group). */
      uint64_t want = r->limit == UINT64_MAX ? values : r->limit - r->produced;
      if (want < values && (want * (uint64_t)r->w + 7) / 8 <= avail) {
        values = want;
      } else {
        return pq_fail(err, PQ_CORRUPT, r->label,
                       "run %llu at offset %zu: %llu bit-packed values of %d "
                       "bits need %llu bytes, %zu remain",
                       (unsigned long long)r->runs, r->base + at,
                       (unsigned long long)values, r->w,
                       (unsigned long long)bytes, avail);
      }
      bytes = avail;
    }
    r->run_packed = 1;
    r->packed = r->buf + r->pos;
    r->packed_bytes = (size_t)bytes;
    r->pos += (size_t)bytes;
    r->run_left = (uint32_t)values;
  } else {
    uint64_t n = h >> 1;
    if (n == 0 || n > RUN_MAX) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: an RLE run of %llu values (the "
                     "spec allows 1 to 2147483647)",
                     (unsigned long long)r->runs, r->base + at,
                     (unsigned long long)n);
    }
    size_t vb = (size_t)(r->w + 7) / 8;
    if (vb > avail) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: the repeated value needs %zu "
                     "bytes, %zu remain",
                     (unsigned long long)r->runs, r->base + at, vb, avail);
    }
    uint32_t v = 0;
    for (size_t i = 0; i < vb; i++)
      v |= (uint32_t)r->buf[r->pos + i] << (8 * i);
    if (r->w < 32 && (v >> r->w) != 0) {
      return pq_fail(err, PQ_CORRUPT, r->label,
                     "run %llu at offset %zu: repeated value %u does not fit "
                     "in %d bits",
                     (unsigned long long)r->runs, r->base + at, v, r->w);
    }
    r->pos += vb;
    r->run_packed = 0;
    r->run_value = v;
    r->run_left = (uint32_t)n;
  }
  r->runs++;
  return PQ_OK;
}

/* The common runs without a call: a header of one or two bytes, the run's
** bytes all there, the repeated value in range.  Anything else goes to
** pq_rle_next_run, which checks it all and gives the messages.
** With `flat` (a constant where it is inlined) the header is read
** without a branch on its length: BOOLEAN runs of under 64 values and
** longer ones alternate at random in many streams, where the branch costs
** more than the extra work (RLE booleans of 1 to 200 values: 6.8 against
** 11.2 G values/s), and streams of short index runs, where the branch is
** always taken the same way, lose 4 % to it. */
HOT_INLINE int rle_run_how(pq_rle_reader *r, pq_error *err, int flat) {
  size_t at = r->pos;
  uint32_t h = r->buf[at];
  size_t avail = r->len - at - 1;
  const uint8_t *p = r->buf + at + 1;
  if (flat) {
    /* A run has bytes after its header: one header byte or two, and the
    ** longer headers go to the general reader. */
    if (PQ_UNLIKELY(avail == 0)) return pq_rle_next_run(r, err);
    uint32_t b1 = p[0], two = h >> 7;
    if (PQ_UNLIKELY(two & (b1 >> 7))) return pq_rle_next_run(r, err);
    h = (h & 0x7f) | ((b1 << 7) & (0u - two));
    p += two;
    avail -= two;
  } else if (h >= 0x80) { /* two bytes, or the general reader */
    if (avail == 0 || p[0] >= 0x80) return pq_rle_next_run(r, err);
    h = (h & 0x7f) | (uint32_t)p[0] << 7;
    p++;
    avail--;
  }
  if (h > 1) {
    int w = r->w;
    if (h & 1) {
      size_t bytes = (size_t)(h >> 1) * (size_t)w;
      if (PQ_LIKELY(bytes <= avail)) {
        r->run_packed = 1;
        r->packed = p;
        r->packed_bytes = bytes;
        r->pos = (size_t)(p - r->buf) + bytes;
        r->run_left = (h >> 1) * 8;
        r->runs++;
        return PQ_OK;
      }
    } else {
      size_t vb = (size_t)(w + 7) / 8;
      if (PQ_LIKELY(avail >= 4)) {
        uint32_t v = pq_load32(p);
        if (vb < 4) v &= (1u << (8 * vb)) - 1;
        if (PQ_LIKELY(w == 32 || (v >> w) == 0)) {
          r->run_packed = 0;
          r->run_value = v;
          r->run_left = h >> 1;
          r->pos = (size_t)(p - r->buf) + vb;
          r->runs++;
          return PQ_OK;
        }
      }
    }
  }
  return pq_rle_next_run(r, err);
}

HOT_INLINE int rle_run(pq_rle_reader *r, pq_error *err) {
  return rle_run_how(r, err, 0);
}

/* Unpacks the 8 values of w bits (0..32) at in; reads up to w + 8 bytes. */
HOT_INLINE void unpack8(const uint8_t *in, int w, uint32_t *out) {
  const uint64_t mask = ((uint64_t)1 << w) - 1;
  if (w <= 8) {
    uint64_t x = pq_load64(in);
    out[0] = (uint32_t)(x & mask);
    out[1] = (uint32_t)((x >> w) & mask);
    out[2] = (uint32_t)((x >> 2 * w) & mask);
    out[3] = (uint32_t)((x >> 3 * w) & mask);
    out[4] = (uint32_t)((x >> 4 * w) & mask);
    out[5] = (uint32_t)((x >> 5 * w) & mask);
    out[6] = (uint32_t)((x >> 6 * w) & mask);
    out[7] = (uint32_t)((x >> 7 * w) & mask);
    return;
  }
#define PQ_UNPACK_AT(j)                                                   \
  out[j] = (uint32_t)((pq_load64(in + (((unsigned)(j) * (unsigned)w) >> 3)) >> \
                       (((unsigned)(j) * (unsigned)w) & 7)) &               \
                      mask)
  PQ_UNPACK_AT(0);
  PQ_UNPACK_AT(1);
  PQ_UNPACK_AT(2);
  PQ_UNPACK_AT(3);
  PQ_UNPACK_AT(4);
  PQ_UNPACK_AT(5);
  PQ_UNPACK_AT(6);
  PQ_UNPACK_AT(7);
#undef PQ_UNPACK_AT
}

/* Unpacks the next min(run_left, 32) values of a bit-packed run into the
** chunk.  The run's bytes were checked when it began.  The unpackers read
** past the values they make (pq_unpack32 4*w bytes, unpack8 up to w + 8):
** straight from the stream when those bytes are inside it (past the run
** they belong to the next run and make values past run_left, which are
** not used), else from a zeroed copy of what is left. */
static void rle_fill_chunk(pq_rle_reader *r) {
  int w = r->w;
  size_t whole = (size_t)4 * (size_t)w;
  size_t rest = r->len - (size_t)(r->packed - r->buf);
  int m = r->run_left < 32 ? (int)r->run_left : 32;
  if (m < 32 && rest >= (size_t)((m + 7) / 8 - 1) * (size_t)w + (size_t)w + 8) {
    for (int g = 0; g < m; g += 8) unpack8(r->packed + (g / 8) * w, w, r->chunk + g);
  } else if (rest >= whole) {
    r->unpack32[w](r->packed, r->chunk);
  } else {
    uint8_t room[4 * 32 + 8];
    memcpy(room, r->packed, rest);
    memset(room + rest, 0, sizeof room - rest);
    r->unpack32[w](room, r->chunk);
  }
  r->chunk_len = m;
  size_t used = ((size_t)m * (size_t)w) / 8;
  if (used > r->packed_bytes) used = r->packed_bytes;
  r->packed += used;
  r->packed_bytes -= used;
  r->run_left -= (uint32_t)m;
  r->chunk_pos = 0;
}

/* Stores m (> 0) copies of v with few branches: blocks of 8 and a last
** block of 8 that may overlap the one before; under 8, two blocks of 4 or
** three single stores that overlap. */
static inline void fill32(uint32_t *o, uint32_t v, size_t m) {
  uint64_t vv = (uint64_t)v << 32 | v;
  if (m >= 8) {
    for (size_t i = 0; i + 8 < m; i += 8) {
      memcpy(o + i, &vv, 8);
      memcpy(o + i + 2, &vv, 8);
      memcpy(o + i + 4, &vv, 8);
      memcpy(o + i + 6, &vv, 8);
    }
    uint32_t *e = o + m - 8;
    memcpy(e, &vv, 8);
    memcpy(e + 2, &vv, 8);
    memcpy(e + 4, &vv, 8);
    memcpy(e + 6, &vv, 8);
  } else if (m >= 4) {
    memcpy(o, &vv, 8);
    memcpy(o + 2, &vv, 8);
    memcpy(o + m - 4, &vv, 8);
    memcpy(o + m - 2, &vv, 8);
  } else {
    o[0] = v;
    o[m / 2] = v;
    o[m - 1] = v;
  }
}

/* Unpacks up to m (> 0) values of the current bit-packed run into out,
** which has room for `room` (>= m) values: 32 values a call; the run's
** last groups also 32 at a time where the room and the stream have the
** bytes (the values past the run are not counted), else groups of 8,
** straight into the output; what is left (a group split by m, a run cut
** short) goes through the chunk, from which at most m values are taken.
** Returns how many values it wrote. */
HOT_INLINE size_t read_packed(pq_rle_reader *r, uint32_t *out, size_t m,
                              size_t room) {
  const int w = r->w;
  const size_t whole = (size_t)4 * (size_t)w;
  const pq_unpack32_fn unpack = r->unpack32[w];
  size_t k = 0;
  if (m > r->run_left) m = r->run_left;
  while (m - k >= 32 && r->packed_bytes >= whole) {
    unpack(r->packed, out + k);
    r->packed += whole;
    r->packed_bytes -= whole;
    k += 32;
  }
  size_t rest = r->len - (size_t)(r->packed - r->buf);
  if (m - k >= 8 && m == r->run_left && room - k >= 32 && rest >= whole) {
    /* The rest of the run, whole groups (run_left is a multiple of 8). */
    size_t bytes = ((m - k) / 8) * (size_t)w;
    if (bytes <= r->packed_bytes) {
      unpack(r->packed, out + k);
      r->packed += bytes;
      r->packed_bytes -= bytes;
      rest -= bytes;
      k += (m - k) / 8 * 8;
    }
  }
  while (m - k >= 8 && r->packed_bytes >= (size_t)w && rest >= (size_t)w + 8) {
    unpack8(r->packed, w, out + k);
    r->packed += w;
    r->packed_bytes -= (size_t)w;
    rest -= (size_t)w;
    k += 8;
  }
  r->run_left -= (uint32_t)k;
  if (k == 0) {
    rle_fill_chunk(r);
    k = (size_t)r->chunk_len < m ? (size_t)r->chunk_len : m;
    memcpy(out, r->chunk, k * sizeof *out);
    r->chunk_pos = (int)k;
  }
  return k;
}

int pq_rle_reader_next(pq_rle_reader *r, uint32_t *buf, size_t max,
                       const uint32_t **vals, uint32_t *value, size_t *n,
                       pq_error *err) {
  *n = 0;
  if (max == 0) return PQ_OK;
  if (r->chunk_pos < r->chunk_len) {
    size_t m = (size_t)(r->chunk_len - r->chunk_pos);
    if (m > max) m = max;
    *vals = r->chunk + r->chunk_pos;
    r->chunk_pos += (int)m;
    r->produced += m;
    *n = m;
    return PQ_OK;
  }
  if (r->run_left == 0) {
    if (r->pos >= r->len) return PQ_OK;
    int rc = rle_run(r, err);
    if (rc) return rc;
  }
  size_t m = r->run_left < max ? r->run_left : max;
  if (!r->run_packed) {
    r->run_left -= (uint32_t)m;
    *vals = NULL;
    *value = r->run_value;
  } else {
    m = read_packed(r, buf, m, max);
    *vals = buf;
  }
  r->produced += m;
  *n = m;
  return PQ_OK;
}

/* Index runs this long or shorter are filled with the same stores. */
#define IDX_FILL 64
_Static_assert(IDX_FILL * 4 == 256, "store256 fills IDX_FILL indices");

#if PQ_X86_SIMD
/* x stored eight times: 256 bytes at o. */
PQ_AVX2 static inline void store256(void *o, __m256i x) {
  uint8_t *p = o;
  _mm256_storeu_si256((void *)p, x);
  _mm256_storeu_si256((void *)(p + 32), x);
  _mm256_storeu_si256((void *)(p + 64), x);
  _mm256_storeu_si256((void *)(p + 96), x);
  _mm256_storeu_si256((void *)(p + 128), x);
  _mm256_storeu_si256((void *)(p + 160), x);
  _mm256_storeu_si256((void *)(p + 192), x);
  _mm256_storeu_si256((void *)(p + 224), x);
}
/* x over bytes [0, n) of o, 32 <= n <= 256: eight stores, the later ones
** moved back to end at o + n, so no branch on n. */
PQ_AVX2 static inline void store_upto256(void *o, __m256i x, size_t n) {
  uint8_t *p = o;
  size_t last = n - 32;
  for (size_t i = 0; i < 256; i += 32)
    _mm256_storeu_si256((void *)(p + (i < last ? i : last)), x);
}
/* IDX_FILL copies of v. */
PQ_AVX2 static inline void fill_idx_avx2(uint32_t *o, uint32_t v) {
  store256(o, _mm256_set1_epi32((int)v));
}
/* m (> 0) copies of v. */
PQ_AVX2 static inline void fill32_avx2(uint32_t *o, uint32_t v, size_t m) {
  if (m < 8 || m > 64) {
    fill32(o, v, m);
    return;
  }
  store_upto256(o, _mm256_set1_epi32((int)v), m * 4);
}
#endif

HOT_INLINE int rle_read_body(pq_rle_reader *r, uint32_t *out, size_t max,
                             size_t *n, pq_error *err, int avx) {
  (void)avx; /* (read only where the x86 clones are built) */
  const uint64_t start = r->produced;
  size_t k = 0;
  int rc = PQ_OK;
  while (k < max) {
    if (r->chunk_pos < r->chunk_len) {
      size_t m = (size_t)(r->chunk_len - r->chunk_pos);
      if (m > max - k) m = max - k;
      for (size_t i = 0; i < m; i++) out[k + i] = r->chunk[r->chunk_pos + i];
      r->chunk_pos += (int)m;
      k += m;
      continue;
    }
    if (r->run_left == 0) {
      if (r->pos >= r->len) break;
      r->produced = start + k;
      rc = rle_run(r, err);
      if (rc) break;
    }
    if (!r->run_packed) {
      size_t m = r->run_left < max - k ? r->run_left : max - k;
#if PQ_X86_SIMD
      if (avx) {
        /* As for BOOLEAN runs: the same stores for any length up to
        ** IDX_FILL, into room the next runs overwrite. */
        if (m <= IDX_FILL && max - k >= IDX_FILL)
          fill_idx_avx2(out + k, r->run_value);
        else
          fill32_avx2(out + k, r->run_value, m);
      } else
#endif
      if (m <= IDX_FILL && max - k >= IDX_FILL) {
        uint32_t pat[4] = {r->run_value, r->run_value, r->run_value,
                           r->run_value};
        for (size_t i = 0; i < IDX_FILL; i += 4) memcpy(out + k + i, pat, 16);
      } else {
        fill32(out + k, r->run_value, m);
      }
      r->run_left -= (uint32_t)m;
      k += m;
    } else {
      k += read_packed(r, out + k, max - k, max - k);
    }
  }
  r->produced = start + k;
  *n = k;
  return rc;
}

static int rle_read_portable(pq_rle_reader *r, uint32_t *out, size_t max,
                             size_t *n, pq_error *err) {
  return rle_read_body(r, out, max, n, err, 0);
}
#if PQ_X86_SIMD
PQ_AVX2 static int rle_read_avx2(pq_rle_reader *r, uint32_t *out, size_t max,
                                 size_t *n, pq_error *err) {
  return rle_read_body(r, out, max, n, err, 1);
}
#endif

int pq_rle_reader_read(pq_rle_reader *r, uint32_t *out, size_t max, size_t *n,
                       pq_error *err) {
#if PQ_X86_SIMD
  if (r->cpu & PQ_CPU_AVX2) return rle_read_avx2(r, out, max, n, err);
#endif
  return rle_read_portable(r, out, max, n, err);
}

/* ---- Writer ------------------------------------------------------------- */

void pq_rle_writer_init(pq_rle_writer *w, pq_buf *out, int bit_width) {
  memset(w, 0, sizeof *w);
  w->out = out;
  w->w = bit_width;
  w->pack32 = pq_pack32_table(pq_cpu());
}

/* Packs 8 values of w bits LSB first into w bytes: 32 bits at a time,
** then the whole bytes left (8*w bits are whole bytes). */
static void pack8(const uint32_t *v, int w, uint8_t *out) {
  uint64_t acc = 0;
  int bits = 0;
  for (int i = 0; i < 8; i++) {
    acc |= (uint64_t)v[i] << bits;
    bits += w;
    if (bits >= 32) {
      pq_store32(out, (uint32_t)acc);
      out += 4;
      acc >>= 32;
      bits -= 32;
    }
  }
  for (; bits > 0; bits -= 8) {
    *out++ = (uint8_t)acc;
    acc >>= 8;
  }
}

static void close_literal(pq_rle_writer *w) {
  if (w->lit_groups == 0) return;
  if (!w->out->oom)
    w->out->data[w->lit_header] = (uint8_t)(w->lit_groups << 1 | 1);
  w->lit_groups = 0;
}

static void write_repeat(pq_rle_writer *w) {
  close_literal(w);
  uint8_t tmp[16];
  size_t n = pq_uleb_write(tmp, w->run_len << 1);
  for (int i = 0; i < (w->w + 7) / 8; i++)
    tmp[n++] = (uint8_t)(w->run_value >> (8 * i));
  pq_buf_append(w->out, tmp, n);
  w->run_len = 0;
  w->npending = 0;
}

/* Writes 8 values as a bit-packed group of the open literal run.  A
** literal run is kept to 63 groups so that its header is one byte, written
** in place when the run closes. */
/* Four groups at once, none of them a repeat, into an open bit-packed
** run with room for them (lit_groups <= 59). */
static void write_groups4(pq_rle_writer *w, const uint32_t *v) {
  if (w->lit_groups == 0) {
    w->lit_header = w->out->len;
    pq_buf_byte(w->out, 0);
  }
  size_t bytes = 4 * (size_t)w->w;
  if (pq_buf_reserve(w->out, bytes + 16) == PQ_OK) {
    w->pack32[w->w](v, w->out->data + w->out->len);
    w->out->len += bytes;
  }
  if ((w->lit_groups += 4) == 63) close_literal(w);
}

static void write_group(pq_rle_writer *w, const uint32_t *v) {
  if (w->lit_groups == 0) {
    w->lit_header = w->out->len;
    pq_buf_byte(w->out, 0);
  }
  if (pq_buf_reserve(w->out, (size_t)w->w) == PQ_OK) {
    pack8(v, w->w, w->out->data + w->out->len);
    w->out->len += (size_t)w->w;
  }
  if (++w->lit_groups == 63) close_literal(w);
}

/* Commits the 8 pending values: as part of a repeat when they are one, or
** as a bit-packed group. */
static void flush_group(pq_rle_writer *w) {
  w->npending = 0;
  if (w->run_len >= 8) {
    close_literal(w);
    return;
  }
  write_group(w, w->pending);
  w->run_len = 0; /* repeats are counted from a group boundary */
}

void pq_rle_writer_put(pq_rle_writer *w, uint32_t v) {
  if (w->run_len > 0 && v == w->run_value) {
    if (++w->run_len > 8) {
      if (w->run_len == RUN_MAX) write_repeat(w);
      return;
    }
  } else {
    if (w->run_len >= 8) write_repeat(w);
    w->run_value = v;
    w->run_len = 1;
  }
  w->pending[w->npending++] = v;
  if (w->npending == 8) flush_group(w);
}

/* The same as pq_rle_writer_put of v n times: one at a time until a
** repeat of v is open, which then lengthens by the rest at once. */
void pq_rle_writer_put_repeat(pq_rle_writer *w, uint32_t v, size_t n) {
  while (n > 0) {
    if (w->npending == 0 && w->run_len >= 8 && w->run_value == v) {
      size_t room = RUN_MAX - 1 - w->run_len; /* put writes it at RUN_MAX */
      size_t m = n < room ? n : room;
      w->run_len += (uint32_t)m;
      n -= m;
      if (n == 0) break;
    }
    pq_rle_writer_put(w, v);
    n--;
  }
}

/* The same as pq_rle_writer_put for each value, a group of 8 or a repeat
** at a time where the state allows:
**   between groups, outside a repeat (npending 0, run_len 0): 8 values
**     that are not all one are a bit-packed group; 8 that are, a repeat
**     of 8 begins (the group is not written);
**   in a repeat (npending 0, run_len >= 8): equal values lengthen it;
**   anywhere else one value at a time, until the next group boundary. */
void pq_rle_writer_put_n(pq_rle_writer *w, const uint32_t *v, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (w->npending == 0 && w->run_len >= 8) {
      uint32_t x = w->run_value;
      size_t j = i;
      while (j < n && v[j] == x) j++;
      if (j - i < RUN_MAX - w->run_len) {
        w->run_len += j - i;
        i = j;
        if (i == n) break;
        write_repeat(w); /* v[i] differs: the state is now between groups */
      } else {
        pq_rle_writer_put(w, v[i++]);
        continue;
      }
    }
    if (w->npending == 0 && w->run_len == 0) {
      while (n - i >= 8) {
        const uint32_t *g = v + i;
        if (n - i >= 32 && w->lit_groups <= 59) {
          /* Four groups that are not repeats go to the packer at once. */
          uint32_t all = 1;
          for (int j = 0; j < 32; j += 8) {
            uint32_t x = g[j];
            all &= ((g[j + 1] ^ x) | (g[j + 2] ^ x) | (g[j + 3] ^ x) |
                    (g[j + 4] ^ x) | (g[j + 5] ^ x) | (g[j + 6] ^ x) |
                    (g[j + 7] ^ x)) != 0;
          }
          if (all) {
            write_groups4(w, g);
            i += 32;
            continue;
          }
        }
        uint32_t x = g[0];
        uint32_t d = (g[1] ^ x) | (g[2] ^ x) | (g[3] ^ x) | (g[4] ^ x) |
                     (g[5] ^ x) | (g[6] ^ x) | (g[7] ^ x);
        i += 8;
        if (d == 0) {
          close_literal(w);
          w->run_value = x;
          w->run_len = 8;
          break;
        }
        write_group(w, g);
      }
      if (w->run_len >= 8 || i == n) continue;
    }
    pq_rle_writer_put(w, v[i++]);
  }
}

void pq_rle_writer_flush(pq_rle_writer *w) {
  if (w->run_len >= 8 ||
      (w->npending > 0 && w->run_len == (uint64_t)w->npending)) {
    /* A trailing repeat, or a short tail that is all one value: an RLE run
    ** says exactly how many values there are, where a bit-packed group
    ** would pad to 8. */
    write_repeat(w);
  } else if (w->npending > 0) {
    for (int i = w->npending; i < 8; i++) w->pending[i] = 0;
    w->npending = 8;
    w->run_len = 0;
    flush_group(w);
  }
  close_literal(w);
  w->run_len = 0;
  w->npending = 0;
}

/* ---- Adaptive width ------------------------------------------------------ */

void pq_rle_adaptive_init(pq_rle_adaptive *a) {
  memset(a, 0, sizeof *a);
  pq_rle_writer_init(&a->wr, &a->buf, 0);
}

/* Re-encodes everything written so far at bit width nw. */
static int rle_widen(pq_rle_adaptive *a, int nw) {
  pq_rle_writer_flush(&a->wr);
  if (a->count == 0 && a->buf.len == 0) { /* nothing to re-encode */
    pq_rle_writer_init(&a->wr, &a->buf, nw);
    a->w = nw;
    return a->buf.oom ? PQ_NOMEM : PQ_OK;
  }
  pq_buf nb = a->spare; /* (empty: the memory of the last one replaced) */
  pq_buf_init(&a->spare);
  pq_rle_writer nwr;
  pq_rle_writer_init(&nwr, &nb, nw);
  if (a->count > 0 && !a->buf.oom) {
    pq_rle_reader r;
    pq_rle_reader_init(&r, a->buf.data, a->buf.len, 0, a->w, "RLE");
    r.limit = a->count;
    uint32_t tmp[256];
    uint64_t left = a->count;
    while (left > 0) {
      size_t got;
      pq_error e;
      if (pq_rle_reader_read(&r, tmp, left < 256 ? (size_t)left : 256, &got,
                             &e) ||
          got == 0)
        break; /* cannot happen on our own output */
      pq_rle_writer_put_n(&nwr, tmp, got);
      left -= got;
    }
  }
  int oom = a->buf.oom;
  a->spare = a->buf;
  a->spare.len = 0;
  a->spare.oom = 0;
  a->buf = nb;
  a->buf.oom |= oom;
  a->wr = nwr;
  a->wr.out = &a->buf;
  a->w = nw;
  return a->buf.oom ? PQ_NOMEM : PQ_OK;
}

/* Widening before a batch to the width its largest value needs gives the
** same stream as widening at that value: the writer's choices of runs do
** not depend on the width. */
int pq_rle_adaptive_put(pq_rle_adaptive *a, const uint32_t *v, size_t n) {
  uint32_t top = pq_or32(v, n);
  if (PQ_UNLIKELY(a->w < 32 && (top >> a->w) != 0)) {
    if (rle_widen(a, pq_bit_width64(top))) return PQ_NOMEM;
  }
  pq_rle_writer_put_n(&a->wr, v, n);
  a->count += n;
  return a->buf.oom ? PQ_NOMEM : PQ_OK;
}

void pq_rle_adaptive_flush(pq_rle_adaptive *a) {
  pq_rle_writer_flush(&a->wr);
}

void pq_rle_adaptive_reset(pq_rle_adaptive *a) {
  pq_buf keep = a->buf, spare = a->spare;
  keep.len = 0;
  keep.oom = 0;
  pq_rle_adaptive_init(a);
  a->buf = keep;
  a->spare = spare;
}

void pq_rle_adaptive_free(pq_rle_adaptive *a) {
  pq_buf_free(&a->spare);
  pq_buf_free(&a->buf);
}

/* ---- The RLE encoding ----------------------------------------------------
** BOOLEAN values (bit width 1) or unsigned integers of a given bit width,
** with or without the 4-byte length prefix. */

typedef struct rle_dec {
  pq_decoder base;
  pq_rle_reader r;
  unsigned cpu; /* pq_cpu() at open */
} rle_dec;

/* Stores m (> 0) copies of the byte v, as fill32 does. */
static inline void fill8(uint8_t *o, uint8_t v, size_t m) {
  uint64_t vv = v * 0x0101010101010101ull;
  if (m >= 16) {
    for (size_t i = 0; i + 16 < m; i += 16) {
      memcpy(o + i, &vv, 8);
      memcpy(o + i + 8, &vv, 8);
    }
    memcpy(o + m - 16, &vv, 8);
    memcpy(o + m - 8, &vv, 8);
  } else if (m >= 8) {
    memcpy(o, &vv, 8);
    memcpy(o + m - 8, &vv, 8);
  } else if (m >= 4) {
    memcpy(o, &vv, 4);
    memcpy(o + m - 4, &vv, 4);
  } else {
    o[0] = v;
    o[m / 2] = v;
    o[m - 1] = v;
  }
}

/* Runs of BOOLEAN repeats this long or shorter are filled with the same
** stores whatever their length, where the batch has the room. */
#define BOOL_FILL 256
_Static_assert(BOOL_FILL == 256, "store256 fills BOOL_FILL values");

#if PQ_X86_SIMD
/* BOOL_FILL copies of v. */
PQ_AVX2 static inline void fill_bool_avx2(uint8_t *o, uint8_t v) {
  store256(o, _mm256_set1_epi8((char)v));
}
/* m (> 0) copies of v. */
PQ_AVX2 static inline void fill8_avx2(uint8_t *o, uint8_t v, size_t m) {
  if (m < 32) {
    fill8(o, v, m);
    return;
  }
  __m256i x = _mm256_set1_epi8((char)v);
  if (m <= 256) {
    store_upto256(o, x, m);
    return;
  }
  for (size_t i = 0; i + 32 < m; i += 32) _mm256_storeu_si256((void *)(o + i), x);
  _mm256_storeu_si256((void *)(o + m - 32), x);
}
#endif

/* BOOL_FILL copies of v (avx: the AVX2 clone, a constant). */
HOT_INLINE void fill_bool(uint8_t *o, uint8_t v, int avx) {
#if PQ_X86_SIMD
  if (avx) {
    fill_bool_avx2(o, v);
    return;
  }
#else
  (void)avx;
#endif
  uint8_t pat[32];
  memset(pat, v, sizeof pat);
  for (size_t i = 0; i < BOOL_FILL; i += 32) memcpy(o + i, pat, 32);
}

HOT_INLINE void fill_bool_n(uint8_t *o, uint8_t v, size_t m, int avx) {
#if PQ_X86_SIMD
  if (avx) {
    fill8_avx2(o, v, m);
    return;
  }
#else
  (void)avx;
#endif
  fill8(o, v, m);
}

/* BOOLEAN values, a byte each: repeats are filled, bit-packed runs
** expanded a byte (8 values) at a time.  Bytes of out past those read may
** change (up to max). */
HOT_INLINE int rle_read_bool_body(rle_dec *s, uint8_t *o, size_t max,
                                  size_t *n, pq_error *err, int avx) {
  pq_rle_reader *r = &s->r;
  const uint64_t start = r->produced;
  size_t k = 0;
  int rc = PQ_OK;
  while (k < max) {
    if (r->chunk_pos < r->chunk_len) {
      size_t m = (size_t)(r->chunk_len - r->chunk_pos);
      if (m > max - k) m = max - k;
      for (size_t i = 0; i < m; i++) o[k + i] = (uint8_t)r->chunk[r->chunk_pos + i];
      r->chunk_pos += (int)m;
      k += m;
      continue;
    }
    if (r->run_left == 0 && r->w == 1) {
      /* A stretch of RLE runs with headers of one or two bytes, with the
      ** position in locals: the reader would be reloaded after each store
      ** through o, which may alias it.  Runs of up to BOOL_FILL values take
      ** the same stores whatever their length while the batch has room
      ** past them; nearer its end, stores of their exact length.  The
      ** first run of any other kind, or one that does not fit, goes to the
      ** general path below. */
      const uint8_t *b = r->buf;
      const size_t len = r->len;
      size_t pos = r->pos;
      uint64_t runs = 0;
      while (k < max && len - pos >= 3) {
        uint32_t h = b[pos], b1 = b[pos + 1], two = h >> 7;
        if (two & (b1 >> 7)) break;
        h = (h & 0x7f) | ((b1 << 7) & (0u - two));
        uint32_t v = b[pos + 1 + two];
        size_t m = h >> 1;
        if ((h & 1) || h < 2 || v > 1) break;
        if (PQ_LIKELY(max - k >= BOOL_FILL && m <= BOOL_FILL))
          fill_bool(o + k, (uint8_t)v, avx);
        else if (m <= max - k)
          fill_bool_n(o + k, (uint8_t)v, m, avx);
        else { /* the run goes on past the batch: the rest is for the next */
          fill_bool_n(o + k, (uint8_t)v, max - k, avx);
          r->run_packed = 0;
          r->run_value = v;
          r->run_left = (uint32_t)(m - (max - k));
          k = max;
          pos += 2 + two;
          runs++;
          break;
        }
        k += m;
        pos += 2 + two;
        runs++;
      }
      r->pos = pos;
      r->runs += runs;
      if (k >= max) break;
    }
    if (r->run_left == 0) {
      if (r->pos >= r->len) break;
      r->produced = start + k;
      rc = rle_run_how(r, err, 1);
      if (rc) break;
    }
    size_t m = r->run_left < max - k ? r->run_left : max - k;
    if (!r->run_packed) {
      if (m <= BOOL_FILL && max - k >= BOOL_FILL)
        fill_bool(o + k, (uint8_t)r->run_value, avx);
      else
        fill_bool_n(o + k, (uint8_t)r->run_value, m, avx);
      r->run_left -= (uint32_t)m;
      k += m;
      continue;
    }
    size_t bytes = r->w == 1 ? m / 8 : 0;
    if (bytes > r->packed_bytes) bytes = r->packed_bytes;
    if (bytes > 0) {
      pq_expand_bits(r->packed, bytes, o + k, s->cpu);
      r->packed += bytes;
      r->packed_bytes -= bytes;
      r->run_left -= (uint32_t)(bytes * 8);
      k += bytes * 8;
    } else {
      r->produced = start + k;
      rle_fill_chunk(r);
    }
  }
  r->produced = start + k;
  *n = k;
  return rc;
}

/* The same loop built for AVX2 stores its fills 32 bytes at a time. */
static int rle_read_bool(rle_dec *s, uint8_t *o, size_t max, size_t *n,
                         pq_error *err) {
  return rle_read_bool_body(s, o, max, n, err, 0);
}
#if PQ_X86_SIMD
PQ_AVX2 static int rle_read_bool_avx2(rle_dec *s, uint8_t *o, size_t max,
                                         size_t *n, pq_error *err) {
  return rle_read_bool_body(s, o, max, n, err, 1);
}
#endif

static int rle_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  rle_dec *s = (rle_dec *)d;
  if (d->out_type == PQ_BOOLEAN) {
#if PQ_X86_SIMD
    if (s->cpu & PQ_CPU_AVX2) return rle_read_bool_avx2(s, out, max, n, err);
#endif
    return rle_read_bool(s, out, max, n, err);
  }
  return pq_rle_reader_read(&s->r, out, max, n, err);
}

pq_rle_reader *pq_rle_decoder_runs(pq_decoder *d) {
  if (d->read != rle_read || d->out_type == PQ_BOOLEAN) return NULL;
  return &((rle_dec *)d)->r;
}

/* Reads the 4-byte length prefix; sets *start and *len to the runs. */
int pq_rle_prefix(const uint8_t *buf, size_t len, size_t base,
                  const char *label, size_t *start, size_t *runs_len,
                  pq_error *err) {
  if (len < 4) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "the 4-byte length prefix at offset %zu is cut short: %zu "
                   "bytes remain",
                   base, len);
  }
  uint32_t n = pq_load32(buf);
  if (n > len - 4) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "the length prefix says %u bytes follow at offset %zu, "
                   "%zu do",
                   n, base + 4, len - 4);
  }
  *start = 4;
  *runs_len = n;
  return PQ_OK;
}

int pq_rle_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err) {
  if (p->bit_width < 0) {
    return pq_fail(err, PQ_MISUSE, "RLE",
                   "the bit_width option is needed to decode integers");
  }
  size_t start = 0, n = len;
  if (p->length_prefix) {
    int rc = pq_rle_prefix(buf, len, 0, "RLE", &start, &n, err);
    if (rc) return rc;
  }
  rle_dec *s = (rle_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, "RLE");
  pq_rle_reader_init(&s->r, buf + start, n, start, p->bit_width, "RLE");
  if (p->count >= 0) s->r.limit = (uint64_t)p->count;
  s->base.is_index = p->type != PQ_BOOLEAN;
  s->base.read = rle_read;
  s->cpu = pq_cpu();
  *out = &s->base;
  return PQ_OK;
}

typedef struct rle_enc {
  pq_encoder base;
  pq_buf out;
  pq_rle_writer wr;   /* with a given bit width */
  pq_rle_adaptive ad; /* without one */
} rle_enc;

/* The first j >= i (or n) where b[j] as a BOOLEAN (nonzero: true) is not
** x: eight bytes at a time, the first zero byte of a word found with the
** borrow of a subtraction (exact for the lowest one). */
static size_t bool_run_end(const uint8_t *b, size_t i, size_t n, uint32_t x) {
  const uint64_t ones = 0x0101010101010101ull, highs = ones << 7;
  for (; n - i >= 8; i += 8) {
    uint64_t q = pq_load64(b + i);
    uint64_t stop = x ? (q - ones) & ~q & highs : q;
    if (stop) return i + (size_t)(__builtin_ctzll(stop) >> 3);
  }
  while (i < n && (b[i] != 0) == x) i++;
  return i;
}

static int rle_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  rle_enc *s = (rle_enc *)e;
  if (e->p.type == PQ_BOOLEAN) {
    /* While a repeat is open its bytes are counted 8 at a time; the rest
    ** goes to the writer as 0/1 values, BOOL_STEP at a time. */
    enum { BOOL_STEP = 32 };
    const uint8_t *b = v;
    pq_rle_writer *w = &s->wr;
    uint32_t tmp[BOOL_STEP];
    size_t i = 0;
    while (i < n) {
      if (w->npending == 0 && w->run_len >= 8) {
        size_t j = bool_run_end(b, i, n, w->run_value);
        pq_rle_writer_put_repeat(w, w->run_value, j - i);
        i = j;
        if (i == n) break;
      }
      size_t m = n - i < BOOL_STEP ? n - i : BOOL_STEP;
      for (size_t j = 0; j < m; j++) tmp[j] = b[i + j] != 0;
      pq_rle_writer_put_n(w, tmp, m);
      i += m;
    }
    return PQ_OK;
  }
  const uint32_t *u = v;
  int w = e->p.bit_width;
  if (w < 0) {
    return pq_rle_adaptive_put(&s->ad, u, n) ? pq_nomem(err, "RLE") : PQ_OK;
  }
  uint32_t top = pq_or32(u, n);
  if (w < 32 && (top >> w) != 0) {
    size_t i = 0;
    while ((u[i] >> w) == 0) i++;
    pq_rle_writer_put_n(&s->wr, u, i);
    return pq_fail(err, PQ_RANGE, "RLE",
                   "value %llu is %u, which does not fit in bit width %d",
                   (unsigned long long)(e->count + i), u[i], w);
  }
  pq_rle_writer_put_n(&s->wr, u, n);
  return PQ_OK;
}

static int rle_finish(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err) {
  (void)dict;
  (void)err;
  rle_enc *s = (rle_enc *)e;
  pq_buf *runs = &s->out;
  if (e->p.type != PQ_BOOLEAN && e->p.bit_width < 0) {
    pq_rle_adaptive_flush(&s->ad);
    runs = &s->ad.buf;
  } else {
    pq_rle_writer_flush(&s->wr);
  }
  if (e->p.length_prefix) {
    uint8_t pre[4];
    pq_store32(pre, (uint32_t)runs->len);
    pq_buf_append(out, pre, 4);
  }
  pq_buf_move(out, runs);
  return PQ_OK;
}

static size_t rle_size(const pq_encoder *e) {
  const rle_enc *s = (const rle_enc *)e;
  return s->out.len + s->ad.buf.len + (size_t)s->wr.npending;
}

static void rle_destroy(pq_encoder *e) {
  rle_enc *s = (rle_enc *)e;
  pq_buf_free(&s->out);
  pq_rle_adaptive_free(&s->ad);
}

int pq_rle_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  rle_enc *s = (rle_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, "RLE");
  pq_rle_writer_init(&s->wr, &s->out, p->bit_width < 0 ? 0 : p->bit_width);
  pq_rle_adaptive_init(&s->ad);
  s->base.put = rle_put;
  s->base.finish = rle_finish;
  s->base.destroy = rle_destroy;
  s->base.size = rle_size;
  *out = &s->base;
  return PQ_OK;
}
