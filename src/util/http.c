/*
** http.c -- the parts of an HTTP response a reader of byte ranges looks
** at, parsed from the bytes a server sent: the status line, a header
** line's name and value, Content-Range, and the parts of a response of
** several ranges (multipart/byteranges).  No I/O: the transport is the
** binding's (ext/remote.c); these are here so that every byte a server
** controls goes through code the fuzzers reach (tests/fuzz/http.c).
*/
#include <stdio.h>

#include "util.h"

static int http_blank(char c) {
  return c == ' ' || c == '\t';
}

static int http_digit(char c) {
  return c >= '0' && c <= '9';
}

int pq_http_status(const char *s, size_t n, int *code) {
  /* "HTTP/" version SP 3DIGIT [SP reason] */
  if (n < 5 || memcmp(s, "HTTP/", 5) != 0) return -1;
  size_t i = 5;
  while (i < n && !http_blank(s[i])) i++;
  while (i < n && http_blank(s[i])) i++;
  if (i + 3 > n || !http_digit(s[i]) || !http_digit(s[i + 1]) ||
      !http_digit(s[i + 2]))
    return -1;
  if (i + 3 < n && http_digit(s[i + 3])) return -1;
  *code = (s[i] - '0') * 100 + (s[i + 1] - '0') * 10 + (s[i + 2] - '0');
  return 0;
}

int pq_http_header(const char *s, size_t n, const char **name, size_t *nlen,
                   const char **val, size_t *vlen) {
  while (n > 0 && (s[n - 1] == '\r' || s[n - 1] == '\n')) n--;
  size_t c = 0;
  while (c < n && s[c] != ':') c++;
  if (c == 0 || c == n) return -1;
  for (size_t i = 0; i < c; i++) {
    if (http_blank(s[i]) || (unsigned char)s[i] < 0x21) return -1;
  }
  size_t b = c + 1, e = n;
  while (b < e && http_blank(s[b])) b++;
  while (e > b && http_blank(s[e - 1])) e--;
  *name = s;
  *nlen = c;
  *val = s + b;
  *vlen = e - b;
  return 0;
}

int pq_http_name_is(const char *name, size_t n, const char *want) {
  size_t k = strlen(want);
  if (n != k) return 0;
  for (size_t i = 0; i < n; i++) {
    char a = name[i], b = want[i];
    if (a >= 'A' && a <= 'Z') a = (char)(a - 'A' + 'a');
    if (b >= 'A' && b <= 'Z') b = (char)(b - 'A' + 'a');
    if (a != b) return 0;
  }
  return 1;
}

/* Digits at s[*i..n) as an unsigned number below 2^63; advances *i. */
static int http_number(const char *s, size_t n, size_t *i, uint64_t *v) {
  size_t b = *i;
  uint64_t x = 0;
  while (*i < n && http_digit(s[*i])) {
    uint64_t d = (uint64_t)(s[*i] - '0');
    if (x > ((uint64_t)INT64_MAX - d) / 10) return -1;
    x = x * 10 + d;
    (*i)++;
  }
  if (*i == b || *i - b > 19) return -1;
  *v = x;
  return 0;
}

int pq_http_content_range(const char *s, size_t n, uint64_t *first,
                          uint64_t *last, uint64_t *total) {
  /* "bytes" SP (first "-" last | "*") "/" (total | "*") */
  size_t i = 0;
  if (n < 6 || memcmp(s, "bytes", 5) != 0 || !http_blank(s[5])) return -1;
  i = 6;
  while (i < n && http_blank(s[i])) i++;
  int whole = 0;
  if (i < n && s[i] == '*') {
    whole = 1;
    i++;
  } else {
    if (http_number(s, n, &i, first)) return -1;
    if (i >= n || s[i] != '-') return -1;
    i++;
    if (http_number(s, n, &i, last)) return -1;
    if (*last < *first) return -1;
  }
  if (i >= n || s[i] != '/') return -1;
  i++;
  if (i < n && s[i] == '*') {
    *total = UINT64_MAX;
    i++;
  } else if (http_number(s, n, &i, total)) {
    return -1;
  }
  if (i != n) return -1;
  if (whole) {
    if (*total == UINT64_MAX) return -1;
    *first = *last = UINT64_MAX; /* unsatisfied: the size alone */
    return 0;
  }
  if (*total != UINT64_MAX && *last >= *total) return -1;
  return 0;
}

/* ---- multipart/byteranges ---------------------------------------------- */

int pq_http_boundary(const char *s, size_t n, const char **b, size_t *bn) {
  static const char type[] = "multipart/byteranges";
  size_t k = sizeof type - 1, i;
  if (n < k || !pq_http_name_is(s, k, type)) return -1;
  /* parameters: ; name=value, the boundary's the one wanted */
  for (i = k; i < n;) {
    while (i < n && http_blank(s[i])) i++;
    if (i >= n || s[i] != ';') return -1;
    i++;
    while (i < n && http_blank(s[i])) i++;
    size_t nb = i;
    while (i < n && s[i] != '=' && s[i] != ';' && !http_blank(s[i])) i++;
    size_t ne = i;
    if (i >= n || s[i] != '=') return -1;
    i++;
    size_t vb, ve;
    if (i < n && s[i] == '"') {
      vb = ++i;
      while (i < n && s[i] != '"') {
        if (s[i] == '\\') return -1; /* (no boundary needs an escape) */
        i++;
      }
      if (i >= n) return -1;
      ve = i++;
    } else {
      vb = i;
      while (i < n && s[i] != ';' && !http_blank(s[i])) i++;
      ve = i;
    }
    if (pq_http_name_is(s + nb, ne - nb, "boundary")) {
      if (ve == vb || ve - vb > 70) return -1;
      for (size_t j = vb; j < ve; j++)
        if ((unsigned char)s[j] < 0x20 || (unsigned char)s[j] > 0x7e) return -1;
      *b = s + vb;
      *bn = ve - vb;
      return 0;
    }
  }
  return -1;
}

/* Whether body[i..n) begins with "--" and the boundary. */
static int http_delim_at(const uint8_t *body, size_t n, size_t i,
                         const char *b, size_t bn) {
  return i <= n && n - i >= bn + 2 && body[i] == '-' && body[i + 1] == '-' &&
         memcmp(body + i + 2, b, bn) == 0;
}

int pq_http_part(const uint8_t *body, size_t n, const char *b, size_t bn,
                 size_t *pos, uint64_t *first, uint64_t *last,
                 uint64_t *total, const uint8_t **data) {
  size_t i = *pos;
  if (bn == 0 || i > n) return -1;
  if (i == 0 && http_delim_at(body, n, 0, b, bn)) {
    /* the body begins with the first boundary */
  } else if (i == 0) { /* a preamble, up to CR LF and the boundary */
    size_t j = 0;
    while (j + 2 <= n && !(body[j] == '\r' && body[j + 1] == '\n' &&
                           http_delim_at(body, n, j + 2, b, bn)))
      j++;
    if (j + 2 > n) return -1;
    i = j + 2;
  } else {
    if (n - i < 2 || body[i] != '\r' || body[i + 1] != '\n') return -1;
    i += 2;
    if (!http_delim_at(body, n, i, b, bn)) return -1;
  }
  i += 2 + bn;
  if (n - i >= 2 && body[i] == '-' && body[i + 1] == '-') return 0;
  while (i < n && http_blank((char)body[i])) i++; /* padding */
  if (n - i < 2 || body[i] != '\r' || body[i + 1] != '\n') return -1;
  i += 2;
  int ranges = 0;
  for (;;) { /* the part's header lines, to an empty one */
    size_t e = i;
    while (e < n && e - i <= 4096 && body[e] != '\n') e++;
    if (e >= n || e - i > 4096 || e == i || body[e - 1] != '\r') return -1;
    if (e - i == 1) { /* CR LF */
      i = e + 1;
      break;
    }
    const char *name, *val;
    size_t nlen, vlen;
    if (pq_http_header((const char *)body + i, e + 1 - i, &name, &nlen, &val,
                       &vlen))
      return -1;
    if (pq_http_name_is(name, nlen, "content-range")) {
      if (ranges++ ||
          pq_http_content_range(val, vlen, first, last, total) ||
          *first == UINT64_MAX)
        return -1;
    }
    i = e + 1;
  }
  if (ranges != 1) return -1;
  uint64_t len = *last - *first + 1;
  if (len > n - i) return -1;
  *data = body + i;
  *pos = i + (size_t)len;
  return 1;
}

/* ---- S3's ListObjectsV2 ---------------------------------------------------
 */

/* The first "<tag>" in [p, end): where it begins, or NULL. */
static const char *xml_find(const char *p, const char *end, const char *tag) {
  size_t k = strlen(tag);
  while (p && (size_t)(end - p) >= k) {
    const char *q = memchr(p, tag[0], (size_t)(end - p) - k + 1);
    if (!q) return NULL;
    if (memcmp(q, tag, k) == 0) return q;
    p = q + 1;
  }
  return NULL;
}

/* Appends code point c as UTF-8 to out (room cap): -1 past the room. */
static int xml_put(char *out, size_t cap, size_t *len, uint32_t c) {
  char b[4];
  size_t n;
  if (c < 0x80) {
    b[0] = (char)c;
    n = 1;
  } else if (c < 0x800) {
    b[0] = (char)(0xC0 | c >> 6);
    b[1] = (char)(0x80 | (c & 0x3F));
    n = 2;
  } else if (c < 0x10000) {
    b[0] = (char)(0xE0 | c >> 12);
    b[1] = (char)(0x80 | (c >> 6 & 0x3F));
    b[2] = (char)(0x80 | (c & 0x3F));
    n = 3;
  } else {
    b[0] = (char)(0xF0 | c >> 18);
    b[1] = (char)(0x80 | (c >> 12 & 0x3F));
    b[2] = (char)(0x80 | (c >> 6 & 0x3F));
    b[3] = (char)(0x80 | (c & 0x3F));
    n = 4;
  }
  if (n > cap - 1 - *len) return -1;
  memcpy(out + *len, b, n);
  *len += n;
  return 0;
}

/* The text [p, end) with its entities decoded, into out (room cap, a NUL
** after): -1 for an entity XML does not have, a NUL, or too long. */
static int xml_text(const char *p, const char *end, char *out, size_t cap,
                    size_t *len) {
  static const struct {
    const char *name;
    char c;
  } named[] = {{"amp;", '&'},
               {"lt;", '<'},
               {"gt;", '>'},
               {"quot;", '"'},
               {"apos;", '\''}};
  *len = 0;
  if (cap == 0) return -1;
  while (p < end) {
    uint32_t c = (unsigned char)*p++;
    if (c == 0 || c == '<') return -1;
    if (c == '&') {
      size_t left = (size_t)(end - p), i;
      for (i = 0; i < sizeof named / sizeof *named; i++) {
        size_t k = strlen(named[i].name);
        if (left >= k && memcmp(p, named[i].name, k) == 0) {
          c = (unsigned char)named[i].c;
          p += k;
          break;
        }
      }
      if (i == sizeof named / sizeof *named) {
        if (left < 3 || *p != '#') return -1;
        int hex = p[1] == 'x';
        const char *q = p + 1 + hex;
        uint32_t v = 0;
        int digits = 0;
        for (; q < end && *q != ';'; q++, digits++) {
          int d = *q >= '0' && *q <= '9'          ? *q - '0'
                  : hex && *q >= 'a' && *q <= 'f' ? *q - 'a' + 10
                  : hex && *q >= 'A' && *q <= 'F' ? *q - 'A' + 10
                                                  : -1;
          if (d < 0 || digits >= 8) return -1;
          v = v * (hex ? 16u : 10u) + (uint32_t)d;
        }
        if (q >= end || digits == 0 || v == 0 || v > 0x10FFFF ||
            (v >= 0xD800 && v <= 0xDFFF))
          return -1;
        p = q + 1;
        c = v;
      }
    }
    if (xml_put(out, cap, len, c)) return -1;
  }
  out[*len] = 0;
  return 0;
}

int pq_s3_list_field(const char *x, size_t n, const char *tag, char *out,
                     size_t cap, size_t *len) {
  char open[64], close[64];
  if (strlen(tag) > 60) return -1;
  snprintf(open, sizeof open, "<%s>", tag);
  snprintf(close, sizeof close, "</%s>", tag);
  const char *end = x + n, *a = xml_find(x, end, open);
  if (!a) return 1;
  a += strlen(open);
  const char *b = xml_find(a, end, close);
  if (!b) return -1;
  return xml_text(a, b, out, cap, len);
}

int pq_s3_list_key(const char *x, size_t n, size_t *pos, char *out, size_t cap,
                   size_t *len) {
  const char *end = x + n;
  if (*pos > n) return -1;
  const char *c = xml_find(x + *pos, end, "<Contents>");
  if (!c) return 1;
  const char *ce = xml_find(c, end, "</Contents>");
  if (!ce) return -1;
  const char *k = xml_find(c, ce, "<Key>");
  if (!k) return -1;
  k += 5;
  const char *ke = xml_find(k, ce, "</Key>");
  if (!ke) return -1;
  *pos = (size_t)(ce - x) + 11;
  return xml_text(k, ke, out, cap, len);
}
