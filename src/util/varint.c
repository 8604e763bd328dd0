/*
** varint.c -- ULEB128, as Thrift's compact protocol and the DELTA_*
** encodings write integers (spec/Encodings.md, DELTA_BINARY_PACKED).
*/
#include "util.h"

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
