/*
** buf.c -- growable buffers, error messages and varints.
*/
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise */
#include <sys/mman.h>
#endif
#include <stdio.h>

#include "internal.h"

/* A large buffer's new room is asked of the kernel in one call: the first
** write to a fresh page otherwise faults once per 4 KiB, which on some
** virtual machines costs as much as 12 us a page (bench/NOTES.md).  Linux
** 5.14 and later; elsewhere, or when the call fails, the pages fault in as
** they are written, as before. */
#define POPULATE_MIN ((size_t)1 << 20)
static void populate(uint8_t *p, size_t from, size_t to) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  uintptr_t a = ((uintptr_t)p + from + 4095) & ~(uintptr_t)4095;
  uintptr_t e = ((uintptr_t)p + to) & ~(uintptr_t)4095;
  if (e > a) (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)from;
  (void)to;
#endif
}

void pq_buf_init(pq_buf *b) {
  memset(b, 0, sizeof *b);
}

void pq_buf_free(pq_buf *b) {
  free(b->data);
  memset(b, 0, sizeof *b);
}

/* Makes room for `extra` more bytes, growing by half again each time so
** that appending n bytes one at a time costs O(n).  Returns 0 or PQ_NOMEM
** (and marks the buffer, after which appends are ignored). */
int pq_buf_reserve(pq_buf *b, size_t extra) {
  if (b->oom) return PQ_NOMEM;
  /* Once reserved, data is never NULL (even for 0 bytes): callers do
  ** pointer arithmetic on it. */
  if (extra <= b->cap - b->len && b->data) return PQ_OK;
  if (extra > SIZE_MAX / 2 - b->len) {
    b->oom = 1;
    return PQ_NOMEM;
  }
  size_t want = b->len + extra;
  size_t cap = b->cap ? b->cap + b->cap / 2 : 64;
  if (cap < want) cap = want;
  uint8_t *p = realloc(b->data, cap);
  if (!p) {
    b->oom = 1;
    return PQ_NOMEM;
  }
  b->data = p;
  b->cap = cap;
  if (cap >= POPULATE_MIN) populate(p, b->len, cap);
  return PQ_OK;
}

void pq_buf_append(pq_buf *b, const void *p, size_t n) {
  if (n == 0 || pq_buf_reserve(b, n)) return;
  memcpy(b->data + b->len, p, n);
  b->len += n;
}

int pq_fail(pq_error *err, int code, const char *label, const char *fmt, ...) {
  if (err) {
    int k = snprintf(err->msg, sizeof err->msg, "%s: ", label);
    if (k < 0 || (size_t)k >= sizeof err->msg) k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + k, sizeof err->msg - (size_t)k, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}

int pq_nomem(pq_error *err, const char *label) {
  return pq_fail(err, PQ_NOMEM, label, "out of memory");
}

int pq_uleb_read(const uint8_t *p, size_t len, size_t *pos, uint64_t *out) {
  uint64_t v = 0;
  size_t i = *pos;
  for (int shift = 0;; shift += 7) {
    if (i >= len) return 1;
    uint8_t c = p[i++];
    if (shift == 63 && (c & 0x7e)) return 2; /* bits beyond the 64th */
    v |= (uint64_t)(c & 0x7f) << shift;
    if (!(c & 0x80)) break;
    if (shift == 63) return 2; /* an 11th byte */
  }
  *pos = i;
  *out = v;
  return 0;
}

size_t pq_uleb_write(uint8_t *out, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    out[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  out[n++] = (uint8_t)v;
  return n;
}

void pq_buf_uleb(pq_buf *b, uint64_t v) {
  uint8_t tmp[10];
  pq_buf_append(b, tmp, pq_uleb_write(tmp, v));
}

/* Well-formed UTF-8 as RFC 3629 defines it; ASCII runs are skipped eight
** bytes at a time. */
int pq_utf8_valid(const uint8_t *p, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (i + 8 <= n) {
      uint64_t w;
      memcpy(&w, p + i, 8);
      if (!(w & 0x8080808080808080ull)) {
        i += 8;
        continue;
      }
    }
    uint8_t c = p[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    size_t k;
    uint8_t lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) {
      k = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
      k = 2;
      if (c == 0xe0) lo = 0xa0;
      if (c == 0xed) hi = 0x9f; /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
      k = 3;
      if (c == 0xf0) lo = 0x90;
      if (c == 0xf4) hi = 0x8f; /* nothing past U+10FFFF */
    } else {
      return 0;
    }
    if (k > n - i - 1) return 0;
    if (p[i + 1] < lo || p[i + 1] > hi) return 0;
    for (size_t j = 2; j <= k; j++) {
      if ((p[i + j] & 0xc0) != 0x80) return 0;
    }
    i += k + 1;
  }
  return 1;
}

void pq_buf_move(pq_buf *dst, pq_buf *src) {
  if (src->oom) dst->oom = 1;
  if (dst->len == 0 && !dst->oom) {
    free(dst->data);
    *dst = *src;
    pq_buf_init(src);
    return;
  }
  pq_buf_append(dst, src->data, src->len);
  pq_buf_free(src);
}
