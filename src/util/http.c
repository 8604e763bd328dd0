/*
** http.c -- the parts of an HTTP response a reader of byte ranges looks
** at, parsed from the bytes a server sent: the status line, a header
** line's name and value, and Content-Range.  No I/O: the transport is the
** binding's (ext/remote.c); these are here so that every byte a server
** controls goes through code the fuzzers reach (tests/fuzz/http.c).
*/
#include "util.h"

static int http_blank(char c) { return c == ' ' || c == '\t'; }

static int http_digit(char c) { return c >= '0' && c <= '9'; }

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
