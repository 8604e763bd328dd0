/*
** buf.c -- growable buffers (pq_buf): room asked of the kernel in one call
** for large ones, and a sticky out-of-memory mark.
*/
#if defined(__linux__)
#define _DEFAULT_SOURCE /* madvise */
#include <sys/mman.h>
#endif
#include "util.h"

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
  pq_free(b->data);
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
  uint8_t *p = pq_realloc(b->data, cap);
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

void pq_buf_hand_over(pq_buf *dst, pq_buf *src) {
  if (dst->len == 0 && !dst->oom && !src->oom) {
    pq_buf t = *dst;
    *dst = *src;
    *src = t;
  } else {
    pq_buf_append(dst, src->data, src->len);
    if (src->oom) dst->oom = 1;
  }
  src->len = 0;
  src->oom = 0;
}

void pq_buf_move(pq_buf *dst, pq_buf *src) {
  pq_buf_hand_over(dst, src);
  pq_buf_free(src);
}
