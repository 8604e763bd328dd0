/*
** json_parse.c -- JSON text parsed into a tree of nodes, for the nested
** columns of the writer (writer/nested.c): a value's members and items
** in order, each string decoded, each node's raw text kept.  Depth is
** bounded (WJ_DEPTH), every escape checked; a fault says where.
*/
#include "util.h"

#define WJ_DEPTH 200

typedef struct wj_parser {
  const char *s;
  size_t n, i;
  pq_json_doc *d;
  const char *fault;
  int oom; /* out of memory: the fault is no fault of the text */
} wj_parser;

static void wj_space(wj_parser *p) {
  while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' ||
                         p->s[p->i] == '\n' || p->s[p->i] == '\r'))
    p->i++;
}

/* A new node; -1 when out of memory. */
static int wj_node(wj_parser *p, int type) {
  pq_json_doc *d = p->d;
  if (d->n == d->cap) {
    int cap = d->cap ? 2 * d->cap : 16;
    pq_json_node *nn = pq_realloc(d->nodes, (size_t)cap * sizeof *nn);
    if (!nn) return -1;
    d->nodes = nn;
    d->cap = cap;
  }
  pq_json_node *x = &d->nodes[d->n];
  memset(x, 0, sizeof *x);
  x->type = type;
  x->first = x->next = -1;
  x->at = p->i;
  return d->n++;
}

static int hexval(int c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                : -1;
}

static int wj_hex4(wj_parser *p, unsigned *out) {
  if (p->n - p->i < 4) return 0;
  unsigned v = 0;
  for (int k = 0; k < 4; k++) {
    int h = hexval((unsigned char)p->s[p->i + (size_t)k]);
    if (h < 0) return 0;
    v = v << 4 | (unsigned)h;
  }
  p->i += 4;
  *out = v;
  return 1;
}

/* A string at p->i (its quote) into d->text; *off and *len say where. */
static int wj_string(wj_parser *p, size_t *off, size_t *len) {
  pq_buf *t = &p->d->text;
  p->i++; /* the quote */
  *off = t->len;
  for (;;) {
    if (p->i >= p->n) {
      p->fault = "a string that does not end";
      return 0;
    }
    unsigned char c = (unsigned char)p->s[p->i++];
    if (c == '"') break;
    if (c < 0x20) {
      p->fault = "a control character in a string";
      return 0;
    }
    if (c != '\\') {
      pq_buf_append(t, &c, 1);
      continue;
    }
    if (p->i >= p->n) {
      p->fault = "an escape that does not end";
      return 0;
    }
    c = (unsigned char)p->s[p->i++];
    const char *simple = strchr("\"\\/bfnrt", c);
    if (simple && c) {
      static const char out[] = "\"\\/\b\f\n\r\t";
      pq_buf_append(t, &out[simple - "\"\\/bfnrt"], 1);
      continue;
    }
    unsigned u;
    if (c != 'u' || !wj_hex4(p, &u)) {
      p->fault = "a bad escape in a string";
      return 0;
    }
    if (u >= 0xD800 && u < 0xDC00) { /* a surrogate pair */
      unsigned lo;
      if (p->n - p->i < 6 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u' ||
          (p->i += 2, !wj_hex4(p, &lo)) || lo < 0xDC00 || lo > 0xDFFF) {
        p->fault = "a lone surrogate in a string";
        return 0;
      }
      u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
    } else if (u >= 0xDC00 && u < 0xE000) {
      p->fault = "a lone surrogate in a string";
      return 0;
    }
    uint8_t b[4];
    size_t k = 0;
    if (u < 0x80) {
      b[k++] = (uint8_t)u;
    } else if (u < 0x800) {
      b[k++] = (uint8_t)(0xC0 | u >> 6);
      b[k++] = (uint8_t)(0x80 | (u & 63));
    } else if (u < 0x10000) {
      b[k++] = (uint8_t)(0xE0 | u >> 12);
      b[k++] = (uint8_t)(0x80 | (u >> 6 & 63));
      b[k++] = (uint8_t)(0x80 | (u & 63));
    } else {
      b[k++] = (uint8_t)(0xF0 | u >> 18);
      b[k++] = (uint8_t)(0x80 | (u >> 12 & 63));
      b[k++] = (uint8_t)(0x80 | (u >> 6 & 63));
      b[k++] = (uint8_t)(0x80 | (u & 63));
    }
    pq_buf_append(t, b, k);
  }
  *len = t->len - *off;
  if (t->oom) p->oom = 1;
  return !t->oom;
}

static int wj_value(wj_parser *p, int depth);

/* The items of an array or the members of an object. */
static int wj_container(wj_parser *p, int x, int depth, int object) {
  char close = object ? '}' : ']';
  p->i++;
  wj_space(p);
  if (p->i < p->n && p->s[p->i] == close) {
    p->i++;
    return 1;
  }
  int last = -1;
  for (;;) {
    size_t koff = 0, klen = 0;
    wj_space(p);
    if (object) {
      if (p->i >= p->n || p->s[p->i] != '"') {
        p->fault = "an object member without a string key";
        return 0;
      }
      if (!wj_string(p, &koff, &klen)) return 0;
      wj_space(p);
      if (p->i >= p->n || p->s[p->i] != ':') {
        p->fault = "a member without ':'";
        return 0;
      }
      p->i++;
    }
    int child = wj_value(p, depth + 1);
    if (child < 0) return 0;
    pq_json_node *c = &p->d->nodes[child];
    c->key_off = koff;
    c->key_len = klen;
    c->has_key = object;
    if (last < 0)
      p->d->nodes[x].first = child;
    else
      p->d->nodes[last].next = child;
    last = child;
    p->d->nodes[x].n++;
    wj_space(p);
    if (p->i < p->n && p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->i < p->n && p->s[p->i] == close) {
      p->i++;
      return 1;
    }
    p->fault = object ? "expected ',' or '}'" : "expected ',' or ']'";
    return 0;
  }
}

/* Parses one value at p->i; its node, or -1. */
static int wj_value(wj_parser *p, int depth) {
  if (depth > WJ_DEPTH) {
    p->fault = "nested too deep";
    return -1;
  }
  wj_space(p);
  if (p->i >= p->n) {
    p->fault = "a value is missing";
    return -1;
  }
  char c = p->s[p->i];
  int x;
  if (c == '{' || c == '[') {
    x = wj_node(p, c == '{' ? PQ_J_OBJECT : PQ_J_ARRAY);
    if (x < 0) return (p->oom = 1, -1);
    if (!wj_container(p, x, depth, c == '{')) return -1;
  } else if (c == '"') {
    x = wj_node(p, PQ_J_STRING);
    if (x < 0) return (p->oom = 1, -1);
    size_t off, len;
    if (!wj_string(p, &off, &len)) return -1;
    p->d->nodes[x].str_off = off;
    p->d->nodes[x].str_len = len;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    x = wj_node(p, PQ_J_NUMBER);
    if (x < 0) return (p->oom = 1, -1);
    size_t i = p->i;
    if (p->s[i] == '-') i++;
    size_t d0 = i;
    while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') i++;
    int ok = i > d0 && !(p->s[d0] == '0' && i - d0 > 1);
    if (ok && i < p->n && p->s[i] == '.') {
      size_t f = ++i;
      while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') i++;
      ok = i > f;
    }
    if (ok && i < p->n && (p->s[i] == 'e' || p->s[i] == 'E')) {
      i++;
      if (i < p->n && (p->s[i] == '+' || p->s[i] == '-')) i++;
      size_t e = i;
      while (i < p->n && p->s[i] >= '0' && p->s[i] <= '9') i++;
      ok = i > e;
    }
    if (!ok) {
      p->fault = "a malformed number";
      return -1;
    }
    p->i = i;
  } else {
    static const struct {
      const char *word;
      int type;
    } words[] = {{"null", PQ_J_NULL}, {"true", PQ_J_TRUE}, {"false", PQ_J_FALSE}};
    x = -1;
    for (int k = 0; k < 3; k++) {
      size_t wl = strlen(words[k].word);
      if (p->n - p->i >= wl && memcmp(p->s + p->i, words[k].word, wl) == 0) {
        x = wj_node(p, words[k].type);
        if (x < 0) return (p->oom = 1, -1);
        p->i += wl;
        break;
      }
    }
    if (x < 0) {
      p->fault = "not JSON";
      return -1;
    }
  }
  p->d->nodes[x].len = p->i - p->d->nodes[x].at;
  return x;
}

int pq_json_parse(pq_json_doc *d, const char *s, size_t n, size_t *fault_at,
                   const char **fault) {
  d->n = 0;
  d->text.len = 0;
  d->src = s;
  wj_parser p = {s, n, 0, d, NULL, 0};
  int root = wj_value(&p, 0);
  if (p.oom) return -2;
  if (root >= 0) {
    wj_space(&p);
    if (p.i < p.n) {
      p.fault = "text after the value";
      root = -1;
    }
  }
  if (root < 0) {
    *fault_at = p.i;
    *fault = p.fault ? p.fault : "not JSON";
  }
  return root;
}

void pq_json_free(pq_json_doc *d) {
  pq_free(d->nodes);
  pq_buf_free(&d->text);
  memset(d, 0, sizeof *d);
}
