/*
** fuzz_http.c -- what a server sends, as src/util/http.c parses it: the
** input is read as a status line, a header line and a Content-Range
** value.  A parse that succeeds must describe the bytes it was given: the
** name and value lie inside the line, a range's last byte is not before
** its first nor past the total, and the range printed back parses to the
** same numbers.  Then the input is read as S3's ListObjectsV2 XML: each
** key decoded stays in its room, and the keys come in order; as a
** multipart/byteranges Content-Type and body: the boundary and each
** part's bytes lie inside the input, the parts in order.
*/
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* an exact copy, so that ASan sees a read past the end */
  char *s = malloc(size ? size : 1);
  if (!s) return 0;
  memcpy(s, data, size);
  int code;
  if (pq_http_status(s, size, &code) == 0 && (code < 0 || code > 999))
    abort();
  const char *name, *val;
  size_t nlen, vlen;
  if (pq_http_header(s, size, &name, &nlen, &val, &vlen) == 0) {
    if (name != s || nlen == 0 || nlen > size) abort();
    if (val < s + nlen || vlen > size || val + vlen > s + size) abort();
    (void)pq_http_name_is(name, nlen, "content-range");
  }
  uint64_t a, b, t;
  if (pq_http_content_range(s, size, &a, &b, &t) == 0) {
    if (a == UINT64_MAX) {
      if (b != UINT64_MAX || t == UINT64_MAX) abort();
    } else {
      if (b < a || (t != UINT64_MAX && b >= t)) abort();
      char again[80];
      int k = t == UINT64_MAX
                  ? snprintf(again, sizeof again, "bytes %llu-%llu/*",
                             (unsigned long long)a, (unsigned long long)b)
                  : snprintf(again, sizeof again, "bytes %llu-%llu/%llu",
                             (unsigned long long)a, (unsigned long long)b,
                             (unsigned long long)t);
      uint64_t a2, b2, t2;
      if (pq_http_content_range(again, (size_t)k, &a2, &b2, &t2) != 0 ||
          a2 != a || b2 != b || t2 != t)
        abort();
    }
  }
  /* as a listing: every key and field decoded stays in its room, and
  ** the keys come in order of their place, each further on */
  char out[64];
  size_t pos = 0, len, last = 0;
  int got, keys = 0;
  while ((got = pq_s3_list_key(s, size, &pos, out, sizeof out, &len)) == 0) {
    if (len >= sizeof out || out[len] != 0 || pos <= last || pos > size)
      abort();
    last = pos;
    if (++keys > 100000) abort();
  }
  if (pq_s3_list_field(s, size, "IsTruncated", out, sizeof out, &len) == 0 &&
      (len >= sizeof out || out[len] != 0))
    abort();
  /* as a Content-Type: a boundary inside it; as a multipart body with
  ** the boundary "b": each part's bytes inside the body, after the last */
  const char *bd;
  size_t bl;
  if (pq_http_boundary(s, size, &bd, &bl) == 0 &&
      (bd < s || bl == 0 || bl > 70 || bd + bl > s + size))
    abort();
  const uint8_t *u = (const uint8_t *)s, *part;
  uint64_t pf, pl, pt;
  size_t at = 0, was = 0;
  while ((got = pq_http_part(u, size, "b", 1, &at, &pf, &pl, &pt, &part)) ==
         1) {
    if (pl < pf || (pt != UINT64_MAX && pl >= pt)) abort();
    if (part < u || part + (pl - pf + 1) != u + at || at > size || at <= was)
      abort();
    was = at;
  }
  free(s);
  return 0;
}
