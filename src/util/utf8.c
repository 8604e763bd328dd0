/*
** utf8.c -- whether bytes are text: BYTE_ARRAY values become TEXT only
** when they are well-formed UTF-8.
*/
#include "util.h"

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
