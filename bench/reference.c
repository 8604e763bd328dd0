/*
** reference.c -- plain scalar decoders (see reference.h).
*/
#include "reference.h"

#include <stdlib.h>
#include <string.h>

/* A little-endian number of n bytes, a byte at a time. */
static uint64_t le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)p[i] << (8 * i);
  return v;
}

/* A ULEB128 at *pos. */
static uint64_t uleb(const uint8_t *in, size_t len, size_t *pos) {
  uint64_t v = 0;
  int shift = 0;
  while (*pos < len) {
    uint8_t b = in[(*pos)++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
    shift += 7;
  }
  return v;
}

/* w bits from bit position bit, least significant first. */
static uint64_t bits_lsb(const uint8_t *in, uint64_t bit, int w) {
  uint64_t v = 0;
  for (int j = 0; j < w; j++, bit++)
    v |= (uint64_t)((in[bit >> 3] >> (bit & 7)) & 1) << j;
  return v;
}

static size_t width_of(pq_type t, int32_t tl) {
  switch (t) {
    case PQ_INT32:
    case PQ_FLOAT: return 4;
    case PQ_INT64:
    case PQ_DOUBLE: return 8;
    case PQ_INT96: return 12;
    case PQ_FIXED_LEN_BYTE_ARRAY: return (size_t)tl;
    default: return 0;
  }
}

int ref_plain(const uint8_t *in, size_t len, pq_type t, int32_t type_length,
              size_t n, void *out) {
  if (t == PQ_BOOLEAN) {
    if (len * 8 < n) return -1;
    uint8_t *o = out;
    for (size_t i = 0; i < n; i++) o[i] = (in[i >> 3] >> (i & 7)) & 1;
    return 0;
  }
  if (t == PQ_BYTE_ARRAY) {
    pq_bytes *o = out;
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
      if (len - pos < 4) return -1;
      size_t l = (size_t)le(in + pos, 4);
      pos += 4;
      if (len - pos < l) return -1;
      o[i].ptr = in + pos;
      o[i].len = l;
      pos += l;
    }
    return 0;
  }
  size_t w = width_of(t, type_length);
  if (len < n * w) return -1;
  uint8_t *o = out;
  if (t == PQ_INT96 || t == PQ_FIXED_LEN_BYTE_ARRAY) {
    for (size_t i = 0; i < n * w; i++) o[i] = in[i];
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t v = le(in + i * w, (int)w);
    if (w == 4) {
      uint32_t x = (uint32_t)v;
      memcpy(o + 4 * i, &x, 4);
    } else {
      memcpy(o + 8 * i, &v, 8);
    }
  }
  return 0;
}

int ref_rle(const uint8_t *in, size_t len, int w, size_t n, uint32_t *out) {
  size_t pos = 0, i = 0;
  int bytes = (w + 7) / 8;
  while (i < n) {
    if (pos >= len) return -1;
    uint64_t h = uleb(in, len, &pos);
    if (h & 1) {
      uint64_t count = (h >> 1) * 8;
      if ((len - pos) * 8 < count * (uint64_t)w) return -1;
      for (uint64_t k = 0; k < count && i < n; k++)
        out[i++] = (uint32_t)bits_lsb(in + pos, k * (uint64_t)w, w);
      pos += (size_t)((h >> 1) * (uint64_t)w);
    } else {
      uint64_t count = h >> 1;
      if (len - pos < (size_t)bytes) return -1;
      uint32_t v = (uint32_t)le(in + pos, bytes);
      pos += (size_t)bytes;
      for (uint64_t k = 0; k < count && i < n; k++) out[i++] = v;
    }
  }
  return 0;
}

int ref_rle_bool(const uint8_t *in, size_t len, size_t n, uint8_t *out) {
  if (len < 4) return -1;
  size_t body = (size_t)le(in, 4);
  if (body > len - 4) return -1;
  size_t pos = 4, end = 4 + body, i = 0;
  while (i < n) {
    if (pos >= end) return -1;
    uint64_t h = uleb(in, end, &pos);
    if (h & 1) {
      uint64_t count = (h >> 1) * 8;
      if ((end - pos) * 8 < count) return -1;
      for (uint64_t k = 0; k < count && i < n; k++)
        out[i++] = (uint8_t)bits_lsb(in + pos, k, 1);
      pos += (size_t)(h >> 1);
    } else {
      if (pos >= end) return -1;
      uint8_t v = in[pos++] & 1;
      for (uint64_t k = 0; k < (h >> 1) && i < n; k++) out[i++] = v;
    }
  }
  return 0;
}

int ref_bit_packed(const uint8_t *in, size_t len, int w, size_t n,
                   uint32_t *out) {
  if (len * 8 < n * (uint64_t)w) return -1;
  uint64_t bit = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t v = 0;
    for (int j = 0; j < w; j++, bit++)
      v = v << 1 | ((in[bit >> 3] >> (7 - (bit & 7))) & 1);
    out[i] = v;
  }
  return 0;
}

int ref_dbp(const uint8_t *in, size_t len, int is32, size_t n, void *out,
            size_t *used) {
  size_t pos = 0;
  uint64_t block = uleb(in, len, &pos);
  uint64_t mbs = uleb(in, len, &pos);
  uint64_t total = uleb(in, len, &pos);
  uint64_t zz = uleb(in, len, &pos);
  if (mbs == 0 || total < n) return -1;
  uint64_t per = block / mbs;
  uint64_t last = (zz >> 1) ^ (0 - (zz & 1));
  size_t i = 0;
  if (n > 0) {
    if (is32)
      ((int32_t *)out)[0] = (int32_t)(uint32_t)last;
    else
      ((int64_t *)out)[0] = (int64_t)last;
    i = 1;
  }
  while (i < n) {
    uint64_t mz = uleb(in, len, &pos);
    uint64_t min = (mz >> 1) ^ (0 - (mz & 1));
    if (len - pos < mbs) return -1;
    const uint8_t *widths = in + pos;
    pos += (size_t)mbs;
    for (uint64_t m = 0; m < mbs && i < n; m++) {
      int w = widths[m];
      if ((len - pos) * 8 < per * (uint64_t)w) return -1;
      for (uint64_t k = 0; k < per && i < n; k++) {
        last += min + bits_lsb(in + pos, k * (uint64_t)w, w);
        if (is32)
          ((int32_t *)out)[i] = (int32_t)(uint32_t)last;
        else
          ((int64_t *)out)[i] = (int64_t)last;
        i++;
      }
      pos += (size_t)(per * (uint64_t)w / 8);
    }
  }
  /* The reader stops inside its last miniblock: skip what it holds. */
  if (used) *used = pos;
  return 0;
}

int ref_dict(const uint8_t *in, size_t len, const uint8_t *dict,
             size_t dict_len, pq_type t, int32_t type_length, size_t n,
             void *out) {
  if (len < 1) return -1;
  uint32_t idx[1024];
  size_t entries = 0;
  /* Count the dictionary's entries. */
  if (t == PQ_BYTE_ARRAY) {
    for (size_t pos = 0; pos + 4 <= dict_len; entries++)
      pos += 4 + (size_t)le(dict + pos, 4);
  } else {
    entries = dict_len / width_of(t, type_length);
  }
  pq_bytes tmp[1];
  size_t w = t == PQ_BYTE_ARRAY ? sizeof(pq_bytes) : width_of(t, type_length);
  /* Decode the whole index stream in pieces (the runs restart at each). */
  size_t i = 0;
  int bw = in[0];
  size_t pos = 1;
  uint32_t run_v = 0;
  uint64_t run_left = 0, packed_left = 0, packed_bit = 0;
  const uint8_t *packed = NULL;
  while (i < n) {
    size_t k = 0;
    while (k < 1024 && i + k < n) {
      if (run_left) {
        idx[k++] = run_v;
        run_left--;
      } else if (packed_left) {
        idx[k++] = (uint32_t)bits_lsb(packed, packed_bit, bw);
        packed_bit += (uint64_t)bw;
        packed_left--;
      } else {
        if (pos >= len) return -1;
        uint64_t h = uleb(in, len, &pos);
        if (h & 1) {
          packed = in + pos;
          packed_bit = 0;
          packed_left = (h >> 1) * 8;
          pos += (size_t)((h >> 1) * (uint64_t)bw);
        } else {
          int bytes = (bw + 7) / 8;
          run_v = (uint32_t)le(in + pos, bytes);
          pos += (size_t)bytes;
          run_left = h >> 1;
        }
      }
    }
    for (size_t j = 0; j < k; j++) {
      if (idx[j] >= entries) return -1;
      if (t == PQ_BYTE_ARRAY) {
        /* Walk to the entry: the floor has no offsets table. */
        size_t p = 0;
        for (uint32_t e = 0; e < idx[j]; e++) p += 4 + (size_t)le(dict + p, 4);
        tmp[0].len = (size_t)le(dict + p, 4);
        tmp[0].ptr = dict + p + 4;
        memcpy((uint8_t *)out + (i + j) * w, tmp, w);
      } else {
        memcpy((uint8_t *)out + (i + j) * w, dict + (size_t)idx[j] * w, w);
      }
    }
    i += k;
  }
  return 0;
}

/* Room for n lengths, kept from call to call (slot k, 0 or 1): on the
** benchmark's machine the first pass over memory after a large buffer of
** touched pages is freed runs up to 15 times slower (bench/NOTES.md), so
** the references free none between the timed decodes. */
static int64_t *lengths(int k, size_t n) {
  static int64_t *room[2];
  static size_t cap[2];
  if (n == 0) n = 1;
  if (n > cap[k]) {
    free(room[k]);
    room[k] = malloc(n * sizeof *room[k]);
    cap[k] = room[k] ? n : 0;
  }
  return room[k];
}

int ref_dlba(const uint8_t *in, size_t len, size_t n, pq_bytes *out) {
  int64_t *lens = lengths(0, n);
  size_t pos = 0;
  int rc = lens ? ref_dbp(in, len, 0, n, lens, &pos) : -1;
  for (size_t i = 0; i < n && rc == 0; i++) {
    size_t l = (size_t)lens[i];
    if (len - pos < l) {
      rc = -1;
      break;
    }
    out[i].ptr = in + pos;
    out[i].len = l;
    pos += l;
  }
  return rc;
}

int ref_dba(const uint8_t *in, size_t len, size_t n, pq_bytes *out,
            uint8_t *heap) {
  int64_t *pre = lengths(0, n), *suf = lengths(1, n);
  size_t used1 = 0, used2 = 0;
  int rc = pre && suf ? ref_dbp(in, len, 0, n, pre, &used1) : -1;
  if (rc == 0) rc = ref_dbp(in + used1, len - used1, 0, n, suf, &used2);
  size_t pos = used1 + used2, h = 0;
  const uint8_t *prev = NULL;
  size_t prev_len = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    size_t p = (size_t)pre[i], s = (size_t)suf[i];
    if (p > prev_len || len - pos < s) {
      rc = -1;
      break;
    }
    uint8_t *v = heap + h;
    for (size_t k = 0; k < p; k++) v[k] = prev[k];
    for (size_t k = 0; k < s; k++) v[p + k] = in[pos + k];
    pos += s;
    out[i].ptr = v;
    out[i].len = p + s;
    prev = v;
    prev_len = p + s;
    h += p + s;
  }
  return rc;
}

int ref_bss(const uint8_t *in, size_t len, size_t width, size_t n,
            void *out) {
  if (len < n * width) return -1;
  uint8_t *o = out;
  for (size_t i = 0; i < n; i++)
    for (size_t b = 0; b < width; b++) o[i * width + b] = in[b * n + i];
  return 0;
}

int ref_gvi(const uint8_t *in, size_t len, int is64, size_t n, void *out) {
  size_t pos = 0, i = 0;
  int per = is64 ? 5 : 4;
  while (i < n) {
    size_t hb = is64 ? 2 : 1;
    if (len - pos < hb) return -1;
    unsigned h = is64 ? (unsigned)in[pos] << 8 | in[pos + 1] : in[pos];
    pos += hb;
    for (int k = 0; k < per; k++) {
      int bytes = is64 ? (int)((h >> (12 - 3 * k)) & 7) + 1
                       : (int)((h >> (6 - 2 * k)) & 3) + 1;
      if (len - pos < (size_t)bytes) return -1;
      uint64_t v = le(in + pos, bytes);
      pos += (size_t)bytes;
      if (i < n) {
        if (is64)
          ((int64_t *)out)[i] = (int64_t)v;
        else
          ((int32_t *)out)[i] = (int32_t)(uint32_t)v;
        i++;
      }
    }
  }
  return 0;
}
