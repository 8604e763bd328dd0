/*
** lab_options.c -- the encoding lab's options: its own keys ("columns",
** "encodings", "codecs", "levels", "min_time", "sample", "threads") read
** into a pq_lab_options, the keys it varies refused, and every other member
** passed on, as it was written, in an object of its own for
** parquet_write's options.
*/
#include <stdlib.h>
#include <string.h>

#include "writer.h"

#define LOPT "options"

/* A string of the doc as a NUL-terminated copy (pq_malloc); NULL when out
** of memory. */
static char *lopt_dup(const pq_json_doc *d, const pq_json_node *x) {
  char *s = pq_malloc(x->str_len + 1);
  if (!s) return NULL;
  if (x->str_len) memcpy(s, pq_json_text(d, x->str_off), x->str_len);
  s[x->str_len] = 0;
  return s;
}

/* An integer of at most 7 digits written as one (no fraction, no
** exponent), into *v; 0 when the text is not one. */
static int lopt_int(const char *s, size_t n, int *v) {
  size_t i = 0;
  int neg = 0;
  if (i < n && s[i] == '-') {
    neg = 1;
    i++;
  }
  if (i == n || n - i > 7) return 0;
  int x = 0;
  for (; i < n; i++) {
    if (s[i] < '0' || s[i] > '9') return 0;
    x = x * 10 + (s[i] - '0');
  }
  *v = neg ? -x : x;
  return 1;
}

/* A number's text s[0..n) (as the JSON parser took it) as a double. */
static double lopt_number(const char *s, size_t n) {
  char t[64];
  if (n >= sizeof t) return -1; /* (no number of seconds is that long) */
  memcpy(t, s, n);
  t[n] = 0;
  return strtod(t, NULL);
}

/* "sample": an integer from 1, the first rows; or a fraction of them,
** more than 0 and at most 1, every k-th row (k = 1/f rounded). */
static int lopt_sample(pq_lab_options *o, const pq_json_doc *d,
                       const pq_json_node *x, pq_error *err) {
  const char *s = d->src + x->at;
  size_t n = x->len;
  int integer = x->type == PQ_J_NUMBER && n > 0 && n < 20;
  for (size_t i = 0; integer && i < n; i++)
    integer = s[i] >= '0' && s[i] <= '9';
  if (integer) {
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) v = v * 10 + (s[i] - '0');
    if (v >= 1) {
      o->first = v;
      o->every = 0;
      return PQ_OK;
    }
  } else if (x->type == PQ_J_NUMBER && memchr(s, '.', n) != NULL) {
    double f = lopt_number(s, n);
    if (f > 0 && f <= 1) {
      double k = 1 / f + 0.5;
      o->every = k < 4.6e18 ? (int64_t)k : (int64_t)1 << 62;
      o->first = 0;
      return PQ_OK;
    }
  }
  return pq_fail(err, PQ_MISUSE, LOPT,
                 "\"sample\" must be a number of rows (an integer from 1) "
                 "or a fraction of them (more than 0, at most 1)");
}

/* The items of the array member x: each checked and kept. */
static int lopt_array(pq_lab_options *o, const pq_json_doc *d,
                      const pq_json_node *x, const char *key, pq_error *err) {
  if (x->type != PQ_J_ARRAY)
    return pq_fail(err, PQ_MISUSE, LOPT, "\"%s\" must be an array", key);
  int is_columns = strcmp(key, "columns") == 0;
  int is_enc = strcmp(key, "encodings") == 0;
  int is_codec = strcmp(key, "codecs") == 0;
  int items = 0;
  for (int k = x->first; k >= 0; k = d->nodes[k].next) {
    const pq_json_node *it = &d->nodes[k];
    const char *text =
        it->type == PQ_J_STRING ? (const char *)pq_json_text(d, it->str_off)
                                : "";
    size_t tn = it->type == PQ_J_STRING ? it->str_len : 0;
    items++;
    if (is_columns) {
      if (it->type != PQ_J_STRING)
        return pq_fail(err, PQ_MISUSE, LOPT,
                       "\"%s\" must be an array of column names", key);
      char **names = pq_realloc(o->names, (size_t)(o->nnames + 1) * sizeof *names);
      if (!names) return pq_nomem(err, LOPT);
      o->names = names;
      names[o->nnames] = lopt_dup(d, it);
      if (!names[o->nnames]) return pq_nomem(err, LOPT);
      o->nnames++;
    } else if (is_enc) {
      pq_encoding e;
      if (it->type != PQ_J_STRING || pq_encoding_parse(text, tn, &e) ||
          (unsigned)e >= 32)
        return pq_fail(err, PQ_MISUSE, LOPT, "\"%s\": unknown encoding '%.*s'",
                       key, (int)(tn > 200 ? 200 : tn), text);
      o->encodings |= 1u << e;
    } else if (is_codec) {
      pq_codec c;
      if (it->type != PQ_J_STRING || pq_codec_parse(text, tn, &c) ||
          (unsigned)c >= 32)
        return pq_fail(err, PQ_MISUSE, LOPT, "\"%s\": unknown codec '%.*s'",
                       key, (int)(tn > 200 ? 200 : tn), text);
      if (!pq_codec_available(c))
        return pq_fail(err, PQ_MISUSE, LOPT, "\"%s\": this build has no %s",
                       key, pq_codec_name(c));
      o->codecs |= 1u << c;
    } else {
      int v;
      if (it->type != PQ_J_NUMBER ||
          !lopt_int(d->src + it->at, it->len, &v) || v < -1000000 ||
          v > 1000000)
        return pq_fail(err, PQ_MISUSE, LOPT,
                       "\"%s\" must be an array of integers", key);
      int *l = pq_realloc(o->levels, (size_t)(o->nlevels + 1) * sizeof *l);
      if (!l) return pq_nomem(err, LOPT);
      o->levels = l;
      l[o->nlevels++] = v;
    }
  }
  if (!is_columns && items == 0)
    return pq_fail(err, PQ_MISUSE, LOPT, "\"%s\" is empty", key);
  return PQ_OK;
}

void pq_lab_options_free(pq_lab_options *o) {
  for (int i = 0; i < o->nnames; i++) pq_free(o->names[i]);
  pq_free(o->names);
  pq_free(o->levels);
  pq_free(o->pass);
  o->names = NULL;
  o->nnames = 0;
  o->levels = NULL;
  o->nlevels = 0;
  o->pass = NULL;
}

int pq_lab_options_parse(pq_lab_options *o, const char *json, size_t n,
                         pq_error *err) {
  pq_json_doc d;
  memset(&d, 0, sizeof d);
  size_t at;
  const char *fault;
  int root = pq_json_parse(&d, json, n, &at, &fault);
  int rc = PQ_OK;
  if (root == -2) rc = pq_nomem(err, LOPT);
  else if (root < 0 || d.nodes[root].type != PQ_J_OBJECT)
    rc = pq_fail(err, PQ_MISUSE, LOPT, "expected a JSON object");
  pq_buf pass;
  pq_buf_init(&pass);
  pq_buf_byte(&pass, '{');
  int npass = 0;
  for (int k = rc ? -1 : d.nodes[root].first; k >= 0 && rc == PQ_OK;
       k = d.nodes[k].next) {
    const pq_json_node *x = &d.nodes[k];
    const uint8_t *kt = pq_json_text(&d, x->key_off);
    size_t kn = x->key_len;
    char key[16];
    key[0] = 0;
    if (kn < sizeof key && !memchr(kt, 0, kn)) {
      memcpy(key, kt, kn);
      key[kn] = 0;
    }
    if (strcmp(key, "columns") == 0 || strcmp(key, "encodings") == 0 ||
        strcmp(key, "codecs") == 0 || strcmp(key, "levels") == 0) {
      rc = lopt_array(o, &d, x, key, err);
    } else if (strcmp(key, "min_time") == 0) {
      double t = x->type == PQ_J_NUMBER ? lopt_number(d.src + x->at, x->len)
                                        : -1;
      if (!(t >= 0) || t > 60)
        rc = pq_fail(err, PQ_MISUSE, LOPT,
                     "\"min_time\" must be a number of seconds from 0 (no "
                     "timing) to 60");
      else o->min_time = t;
    } else if (strcmp(key, "sample") == 0) {
      rc = lopt_sample(o, &d, x, err);
    } else if (strcmp(key, "threads") == 0) {
      int v = 0;
      if (x->type != PQ_J_NUMBER || !lopt_int(d.src + x->at, x->len, &v) ||
          v < 1 || v > 2)
        rc = pq_fail(err, PQ_MISUSE, LOPT,
                     "\"threads\" must be 1 (every trial on the calling "
                     "thread) or 2 (two at a time)");
      else o->threads = v;
    } else if (strcmp(key, "encoding") == 0 || strcmp(key, "codec") == 0 ||
               strcmp(key, "level") == 0 || strcmp(key, "dictionary") == 0) {
      rc = pq_fail(err, PQ_MISUSE, LOPT,
                   "\"%s\" is what the lab varies: \"encodings\", \"codecs\" "
                   "and \"levels\" choose its rows",
                   key);
    } else {
      if (npass++) pq_buf_byte(&pass, ',');
      pq_json_quote_sql(&pass, kt, kn);
      pq_buf_byte(&pass, ':');
      pq_buf_append(&pass, d.src + x->at, x->len);
    }
  }
  pq_buf_byte(&pass, '}');
  pq_buf_byte(&pass, 0);
  if (rc == PQ_OK && pass.oom) rc = pq_nomem(err, LOPT);
  if (rc == PQ_OK) {
    pq_free(o->pass);
    o->pass = (char *)pass.data; /* handed over */
  } else {
    pq_buf_free(&pass);
  }
  pq_json_free(&d);
  return rc;
}
