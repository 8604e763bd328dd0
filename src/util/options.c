/*
** options.c -- options as a flat JSON object, {"key": value, ...}: the
** scanner, and the checks of a value's kind and range that every set of
** options (a stream's, a file writer's, a page's) shares.  Which keys
** exist is up to the caller's apply function (util.h).
*/
#include <stdio.h>

#include "util.h"

typedef struct jscan {
  const char *s;
  size_t n, i;
} jscan;

static void jspace(jscan *j) {
  while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' ||
                         j->s[j->i] == '\n' || j->s[j->i] == '\r'))
    j->i++;
}

/* Reads a string without escapes other than \" \\ \/ into buf. */
static int jstring(jscan *j, char *buf, size_t cap) {
  if (j->i >= j->n || j->s[j->i] != '"') return 0;
  size_t k = 0;
  for (j->i++; j->i < j->n; j->i++) {
    char c = j->s[j->i];
    if (c == '"') {
      j->i++;
      buf[k] = 0;
      return 1;
    }
    if (c == '\\') {
      if (++j->i >= j->n) return 0;
      c = j->s[j->i];
      if (c != '"' && c != '\\' && c != '/') return 0;
    }
    if (k + 1 >= cap) return 0;
    buf[k++] = c;
  }
  return 0;
}

static int jvalue_read(jscan *j, pq_jvalue *v) {
  jspace(j);
  if (j->i >= j->n) return 0;
  char c = j->s[j->i];
  if (c == '"') {
    v->kind = PQ_JV_STRING;
    return jstring(j, v->str, sizeof v->str);
  }
  static const struct {
    const char *w;
    int kind, val;
  } words[] = {{"true", PQ_JV_BOOL, 1},
               {"false", PQ_JV_BOOL, 0},
               {"null", PQ_JV_NULL, 0}};
  for (size_t k = 0; k < 3; k++) {
    size_t m = strlen(words[k].w);
    if (j->n - j->i >= m && memcmp(j->s + j->i, words[k].w, m) == 0) {
      j->i += m;
      v->kind = words[k].kind;
      v->i = words[k].val;
      return 1;
    }
  }
  int neg = 0;
  if (c == '-') neg = 1, j->i++;
  if (j->i >= j->n || j->s[j->i] < '0' || j->s[j->i] > '9') return 0;
  uint64_t u = 0;
  while (j->i < j->n && j->s[j->i] >= '0' && j->s[j->i] <= '9') {
    if (u > (uint64_t)INT64_MAX / 10) return 0;
    u = u * 10 + (uint64_t)(j->s[j->i++] - '0');
    if (u > (uint64_t)INT64_MAX) return 0;
  }
  /* Only integers: a fraction or exponent is an error. */
  if (j->i < j->n &&
      (j->s[j->i] == '.' || j->s[j->i] == 'e' || j->s[j->i] == 'E'))
    return 0;
  v->kind = PQ_JV_INT;
  v->i = neg ? -(int64_t)u : (int64_t)u;
  return 1;
}

int pq_option_fail(pq_error *err, const char *fmt, const char *a) {
  return pq_fail(err, PQ_MISUSE, "options", fmt, a);
}

int pq_option_int(const pq_jvalue *v, const char *key, int64_t lo, int64_t hi,
                  int64_t *out, pq_error *err) {
  if (v->kind == PQ_JV_NULL) return PQ_OK;
  if (v->kind != PQ_JV_INT || v->i < lo || v->i > hi) {
    char msg[96];
    snprintf(msg, sizeof msg, "\"%%s\" must be an integer from %lld to %lld",
             (long long)lo, (long long)hi);
    return pq_option_fail(err, msg, key);
  }
  *out = v->i;
  return PQ_OK;
}

int pq_option_bool(const pq_jvalue *v, const char *key, int *out,
                   pq_error *err) {
  if (v->kind == PQ_JV_NULL) return PQ_OK;
  if (v->kind != PQ_JV_BOOL)
    return pq_option_fail(err, "\"%s\" must be true or false", key);
  *out = (int)v->i;
  return PQ_OK;
}

int pq_options_parse(const char *json, size_t n, pq_option_fn apply, void *ctx,
                     pq_error *err) {
  jscan j = {json, n, 0};
  jspace(&j);
  if (j.i == j.n) return PQ_OK; /* empty text: no options */
  if (j.s[j.i] != '{') {
    return pq_fail(err, PQ_MISUSE, "options", "expected a JSON object");
  }
  j.i++;
  jspace(&j);
  if (j.i < j.n && j.s[j.i] == '}') {
    j.i++;
  } else {
    for (;;) {
      char key[32];
      pq_jvalue v;
      jspace(&j);
      if (!jstring(&j, key, sizeof key)) {
        return pq_fail(err, PQ_MISUSE, "options",
                       "expected a key at character %zu", j.i);
      }
      jspace(&j);
      if (j.i >= j.n || j.s[j.i] != ':') {
        return pq_fail(err, PQ_MISUSE, "options",
                       "expected ':' at character %zu", j.i);
      }
      j.i++;
      if (!jvalue_read(&j, &v)) {
        return pq_fail(err, PQ_MISUSE, "options",
                       "bad value for \"%s\" at character %zu", key, j.i);
      }
      int rc = apply(ctx, key, &v, err);
      if (rc == PQ_NOTFOUND)
        return pq_option_fail(err, "unknown option \"%s\"", key);
      if (rc) return rc;
      jspace(&j);
      if (j.i < j.n && j.s[j.i] == ',') {
        j.i++;
        continue;
      }
      if (j.i < j.n && j.s[j.i] == '}') {
        j.i++;
        break;
      }
      return pq_fail(err, PQ_MISUSE, "options",
                     "expected ',' or '}' at character %zu", j.i);
    }
  }
  jspace(&j);
  if (j.i != j.n) {
    return pq_fail(err, PQ_MISUSE, "options",
                   "unexpected text after the object at character %zu", j.i);
  }
  return PQ_OK;
}
