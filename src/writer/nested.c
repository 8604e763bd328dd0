/*
** nested.c -- the nested columns of the writer: a column typed LIST<t>,
** MAP<k, v> or STRUCT<name t, ...> (nesting as deep as wanted) takes JSON
** text and is written as the spec's nested types are
** (spec/LogicalTypes.md, "Nested Types"):
**
**   LIST<t>       optional group c (LIST) { repeated group list {
**                                           optional t element; } }
**   MAP<k, v>     optional group c (MAP) { repeated group key_value {
**                                          required k key; optional v value; } }
**   STRUCT<a t>   optional group c { optional t a; ... }
**
** A value is shredded into its leaves as Dremel's paper does: each leaf
** gets an entry for each value, NULL or empty that reaches it, with its
** repetition level (0 at a record's start, else the level of the list or
** map that repeats) and definition level (how many of its optional and
** repeated ancestors are there).  A JSON value that does not fit the type
** is a fault that says where in the value.
*/
#include "writer.h"

#include <errno.h>
#include <stdio.h>

/* a[0..n) is b[0..n), in either case (a may end sooner). */
static int wn_nieq(const char *a, const char *b, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (x >= 'A' && x <= 'Z') x += 32;
    if (y >= 'A' && y <= 'Z') y += 32;
    if (x != y) return 0;
    if (!x) break;
  }
  return 1;
}

/* Appends text, as printf makes it, to msg (kept terminated). */
PQ_PRINTF(2, 0)
static void wn_vadd(pq_buf *msg, const char *fmt, va_list ap) {
  va_list aq;
  va_copy(aq, ap);
  int k = vsnprintf(NULL, 0, fmt, aq);
  va_end(aq);
  if (k < 0) return;
  if (msg->len && msg->data[msg->len - 1] == 0) msg->len--;
  if (pq_buf_reserve(msg, (size_t)k + 1)) return;
  vsnprintf((char *)msg->data + msg->len, (size_t)k + 1, fmt, ap);
  msg->len += (size_t)k + 1;
}

PQ_PRINTF(2, 3)
static void wn_add(pq_buf *msg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wn_vadd(msg, fmt, ap);
  va_end(ap);
}

/* ---- The type ------------------------------------------------------------ */

typedef struct wn_tparse {
  const char *s;
  size_t i;
  pq_buf *msg; /* what is wrong */
  int fault;  /* ... said in msg */
  int nomem;  /* out of memory */
} wn_tparse;

/* What is wrong, into msg (the first fault only). */
PQ_PRINTF(2, 3)
static void wn_tfail(wn_tparse *p, const char *fmt, ...) {
  if (p->fault || p->nomem) return;
  va_list ap;
  va_start(ap, fmt);
  p->msg->len = 0;
  wn_vadd(p->msg, fmt, ap);
  va_end(ap);
  p->fault = 1;
  if (p->msg->oom) p->nomem = 1;
}

static void wn_tspace(wn_tparse *p) {
  while (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n')
    p->i++;
}

static size_t wn_tword(wn_tparse *p) {
  size_t k = 0;
  while (p->s[p->i + k] && (p->s[p->i + k] == '_' ||
                            (p->s[p->i + k] >= 'a' && p->s[p->i + k] <= 'z') ||
                            (p->s[p->i + k] >= 'A' && p->s[p->i + k] <= 'Z') ||
                            (p->s[p->i + k] >= '0' && p->s[p->i + k] <= '9')))
    k++;
  return k;
}

static int wn_tnested(wn_tparse *p, wn_node *out, int depth);

/* A type at p->i: nested, or a scalar name with its parenthesis. */
static int wn_ttype(wn_tparse *p, wn_node *out, int depth) {
  memset(out, 0, sizeof *out);
  out->leaf = -1;
  wn_tspace(p);
  size_t k = wn_tword(p);
  const char *w = p->s + p->i;
  size_t j = p->i + k;
  while (p->s[j] == ' ') j++;
  if (k && p->s[j] == '<' &&
      (wn_nieq(w, "LIST", 4) || wn_nieq(w, "MAP", 3) ||
       wn_nieq(w, "STRUCT", 6)))
    return wn_tnested(p, out, depth);
  size_t end = p->i + k;
  if (p->s[end] == '(') {
    const char *close = strchr(p->s + end, ')');
    if (!close) {
      wn_tfail(p, "'%s': a '(' without ')'", p->s + p->i);
      return 0;
    }
    end = (size_t)(close - p->s) + 1;
  }
  char name[128];
  if (k == 0 || end - p->i >= sizeof name) {
    wn_tfail(p, "a type name expected at '%s'", p->s + p->i);
    return 0;
  }
  memcpy(name, p->s + p->i, end - p->i);
  name[end - p->i] = 0;
  if (pq_write_type_parse(name, &out->t)) {
    wn_tfail(p, "unknown type '%s'", name);
    return 0;
  }
  if (out->t.kind == PQ_WT_GEOMETRY || out->t.kind == PQ_WT_GEOGRAPHY) {
    wn_tfail(p, "'%s': GEOMETRY and GEOGRAPHY are top-level columns only",
             name);
    return 0;
  }
  out->kind = out->t.kind;
  p->i = end;
  return 1;
}

/* A name of a STRUCT's field: a word, or "quoted".  NULL when there is
** none, or (p->nomem set) out of memory. */
static char *wn_tname(wn_tparse *p) {
  wn_tspace(p);
  const char *at;
  size_t k, skip;
  if (p->s[p->i] == '"') {
    const char *e = strchr(p->s + p->i + 1, '"');
    if (!e || e == p->s + p->i + 1) return NULL;
    at = p->s + p->i + 1;
    k = (size_t)(e - at);
    skip = k + 2;
  } else {
    k = wn_tword(p);
    if (!k) return NULL;
    at = p->s + p->i;
    skip = k;
  }
  char *n = pq_malloc(k + 1);
  if (!n) {
    p->nomem = 1;
    return NULL;
  }
  memcpy(n, at, k);
  n[k] = 0;
  p->i += skip;
  return n;
}

static int wn_tnested(wn_tparse *p, wn_node *out, int depth) {
  if (depth > 32) {
    wn_tfail(p, "types nested more than 32 deep");
    return 0;
  }
  size_t k = wn_tword(p);
  int kind = k == 4 && wn_nieq(p->s + p->i, "LIST", 4)  ? PQ_WT_LIST
             : k == 3 && wn_nieq(p->s + p->i, "MAP", 3) ? PQ_WT_MAP
             : k == 6 && wn_nieq(p->s + p->i, "STRUCT", 6)
                 ? PQ_WT_STRUCT
                 : 0;
  if (!kind) {
    wn_tfail(p, "unknown type at '%s'", p->s + p->i);
    return 0;
  }
  p->i += k;
  wn_tspace(p);
  p->i++; /* '<' */
  out->kind = kind;
  int cap = 0;
  for (;;) {
    if (out->n == cap) {
      cap = cap ? 2 * cap : 2;
      wn_node *nk = pq_realloc(out->kids, (size_t)cap * sizeof *nk);
      if (!nk) {
        p->nomem = 1;
        return 0;
      }
      out->kids = nk;
    }
    char *name = NULL;
    if (kind == PQ_WT_STRUCT) {
      name = wn_tname(p);
      if (!name) {
        if (!p->nomem)
          wn_tfail(p, "a field name expected at '%s'", p->s + p->i);
        return 0;
      }
      for (int f = 0; f < out->n; f++)
        if (strcmp(out->kids[f].name, name) == 0) {
          wn_tfail(p, "two fields named '%s'", name);
          pq_free(name);
          return 0;
        }
    }
    wn_node *kid = &out->kids[out->n];
    if (!wn_ttype(p, kid, depth + 1)) {
      pq_free(name);
      out->n++; /* freed with the rest */
      return 0;
    }
    kid->name = name;
    out->n++;
    wn_tspace(p);
    if (p->s[p->i] == ',') {
      p->i++;
      continue;
    }
    if (p->s[p->i] == '>') {
      p->i++;
      break;
    }
    wn_tfail(p, "',' or '>' expected at '%s'", p->s + p->i);
    return 0;
  }
  if ((kind == PQ_WT_LIST && out->n != 1) || (kind == PQ_WT_MAP && out->n != 2)) {
    wn_tfail(p, kind == PQ_WT_LIST ? "LIST<t> takes one type"
                                         : "MAP<k, v> takes two types");
    return 0;
  }
  if (kind == PQ_WT_MAP && out->kids[0].kind >= PQ_WT_LIST) {
    wn_tfail(p, "a MAP's keys are of a scalar type");
    return 0;
  }
  return 1;
}

static void wn_node_free(wn_node *n) {
  for (int i = 0; i < n->n; i++) wn_node_free(&n->kids[i]);
  pq_free(n->kids);
  pq_free(n->name);
}

void pq_nested_free_node(wn_node *n) { wn_node_free(n); }

static void wn_tree_free(wn_node *t) {
  if (!t) return;
  wn_node_free(t);
  pq_free(t);
}

/* FILE (spec/LogicalTypes.md): a group of the fields a reference may
** have, each optional, annotated FILE. */
static const char wn_file_type[] =
    "STRUCT<uri STRING, offset INT64, size INT64, content_type STRING, "
    "checksum STRING, inline BINARY>";

int pq_nested_parse(const char *s, pq_nested **out, pq_buf *msg) {
  *out = NULL;
  msg->len = 0;
  wn_tparse p = {s, 0, msg, 0, 0};
  wn_tspace(&p);
  size_t k = wn_tword(&p);
  size_t j = p.i + k;
  while (s[j] == ' ') j++;
  int file = k == 4 && wn_nieq(s + p.i, "FILE", 4) && !s[j];
  if (file) {
    s = wn_file_type;
    p.s = s;
    p.i = 0;
    k = wn_tword(&p);
    j = k;
  }
  int variant = pq_variant_col_is(s);
  if (!variant && (!k || s[j] != '<')) return 0; /* a scalar */
  pq_nested *n = pq_malloc(sizeof *n);
  wn_node *t = n ? pq_malloc(sizeof *t) : NULL;
  if (!t) {
    pq_free(n);
    return -2;
  }
  memset(n, 0, sizeof *n);
  memset(t, 0, sizeof *t);
  n->tree = t;
  if (variant) {
    if (pq_variant_col_init(t)) {
      pq_nested_free(n);
      return -2;
    }
    *out = n;
    return 1;
  }
  int ok = wn_ttype(&p, t, 0);
  t->file = file;
  if (ok) {
    wn_tspace(&p);
    if (s[p.i]) {
      wn_tfail(&p, "text after the type: '%s'", s + p.i);
      ok = 0;
    }
  }
  if (!ok && !p.fault) wn_tfail(&p, "a malformed type");
  if (!ok) {
    pq_nested_free(n);
    return p.nomem ? -2 : -1;
  }
  *out = n;
  return 1;
}

int pq_nested_kind(const pq_nested *n) { return n->tree->kind; }

/* ---- The leaves and the schema ---------------------------------------------- */

/* Counts the scalars under n, numbering them. */
static void wn_number_leaves(wn_node *n, int *k, int rdepth) {
  if (n->kind < PQ_WT_LIST) {
    n->leaf = (*k)++;
    return;
  }
  if (n->kind == PQ_WT_LIST || n->kind == PQ_WT_MAP) {
    n->rep = rdepth + 1;
    rdepth++;
  }
  for (int i = 0; i < n->n; i++) wn_number_leaves(&n->kids[i], k, rdepth);
}

/* The encoding of a leaf: the column's where the leaf's type may use it,
** else the default (a dictionary falling back to PLAIN). */
static void wn_leaf_encoding(wn_leaf *l, const pq_params *base,
                          const pq_write_options *bo) {
  l->p.encoding = base->encoding;
  l->o.fallback = bo->fallback;
  /* a BOOLEAN leaf: PLAIN, as a flat BOOLEAN column's default, rather
  ** than the dictionary of the column's other leaves (two values need
  ** none, and hyparquet does not read one for BOOLEAN) */
  if (!pq_encoding_supports(l->p.encoding, l->p.type) ||
      (l->p.type == PQ_BOOLEAN && (l->p.encoding == PQ_RLE_DICTIONARY ||
                                   l->p.encoding == PQ_PLAIN_DICTIONARY))) {
    l->p.encoding = l->p.type == PQ_BOOLEAN ? PQ_PLAIN : PQ_RLE_DICTIONARY;
    l->o.fallback = l->p.type == PQ_BOOLEAN ? -1 : PQ_PLAIN;
  }
  if (l->o.fallback >= 0 &&
      !pq_encoding_supports((pq_encoding)l->o.fallback, l->p.type))
    l->o.fallback = PQ_PLAIN;
}

static void wn_fill_leaves(pq_nested *c, wn_node *n, const pq_params *base,
                        const pq_write_options *bo) {
  if (n->kind < PQ_WT_LIST) {
    wn_leaf *l = &c->leaves[n->leaf];
    l->t = n->t;
    l->p = *base;
    l->o = *bo;
    pq_write_type_params(&n->t, &l->p, &l->o);
    wn_leaf_encoding(l, base, bo);
    l->vsize = l->p.type == PQ_BYTE_ARRAY            ? sizeof(pq_bytes)
               : l->p.type == PQ_FIXED_LEN_BYTE_ARRAY ? sizeof(size_t)
                                                      : pq_value_size(l->p.type, 0);
    return;
  }
  for (int i = 0; i < n->n; i++) wn_fill_leaves(c, &n->kids[i], base, bo);
}

int pq_nested_leaves(pq_nested *c, const pq_params *base,
                     const pq_write_options *bo) {
  int k = 0;
  wn_number_leaves(c->tree, &k, 0);
  c->leaves = pq_malloc((size_t)k * sizeof *c->leaves);
  if (!c->leaves) return PQ_NOMEM;
  memset(c->leaves, 0, (size_t)k * sizeof *c->leaves);
  c->nleaves = k;
  wn_fill_leaves(c, c->tree, base, bo);
  return PQ_OK;
}

int pq_nested_nleaves(const pq_nested *n) { return n->nleaves; }

void pq_nested_leaf(const pq_nested *n, int k, pq_params *p,
                    pq_write_options *o) {
  *p = n->leaves[k].p;
  *o = n->leaves[k].o;
}

void pq_nested_free(pq_nested *c) {
  if (!c) return;
  for (int i = 0; i < c->nleaves; i++) {
    pq_buf_free(&c->leaves[i].vals);
    pq_buf_free(&c->leaves[i].heap);
    pq_buf_free(&c->leaves[i].def);
    pq_buf_free(&c->leaves[i].rep);
  }
  pq_free(c->leaves);
  wn_tree_free(c->tree);
  pq_json_free(&c->json);
  pq_vbuild_free(&c->vb);
  pq_free(c);
}

/* The schema being built: nodes allocated in one pool, the leaves' params
** and options in column order. */
typedef struct wn_sbuild {
  pq_write_node *pool;
  int npool, cap;
  pq_params *ps;
  pq_write_options *os;
  int nleaves;
  pq_nested *col;
} wn_sbuild;

static pq_write_node *wn_snodes(wn_sbuild *b, int n) {
  if (b->npool + n > b->cap) return NULL; /* sized beforehand */
  pq_write_node *x = b->pool + b->npool;
  memset(x, 0, (size_t)n * sizeof *x);
  b->npool += n;
  return x;
}

/* Nodes a type needs. */
static int wn_count_nodes(const wn_node *n) {
  int k = n->kind == PQ_WT_LIST || n->kind == PQ_WT_MAP ? 2 : 1;
  for (int i = 0; i < n->n; i++) k += wn_count_nodes(&n->kids[i]);
  return k;
}

/* Fills x (one node) for type n named name of the repetition; recurses. */
static int wn_build(wn_sbuild *b, pq_write_node *x, const wn_node *n, const char *name,
                 int repetition, int depth, int def, int rep) {
  x->name = name;
  x->repetition = repetition;
  int d = def + (repetition != 0);
  if (n->kind < PQ_WT_LIST) {
    wn_leaf *l = &b->col->leaves[n->leaf];
    l->col = b->nleaves;
    l->max_def = d;
    l->max_rep = rep;
    l->o.nullable = repetition == 1;
    b->ps[b->nleaves] = l->p;
    b->os[b->nleaves] = l->o;
    b->nleaves++;
    return 1;
  }
  if (n->kind == PQ_WT_STRUCT || n->kind == PQ_WT_VARIANT) {
    pq_write_node *kids = wn_snodes(b, n->n);
    if (!kids) return 0;
    if (n->kind == PQ_WT_VARIANT) x->logical = PQ_LOGICAL_VARIANT;
    if (n->file) x->logical = PQ_LOGICAL_FILE;
    x->n_children = n->n;
    x->children = kids;
    for (int i = 0; i < n->n; i++)
      if (!wn_build(b, &kids[i], &n->kids[i], n->kids[i].name,
                    n->kids[i].req ? 0 : 1, depth + 1, d, rep))
        return 0;
    return 1;
  }
  /* LIST and MAP: the annotated group, its repeated group, its fields */
  int is_map = n->kind == PQ_WT_MAP;
  x->logical = is_map ? PQ_LOGICAL_MAP : PQ_LOGICAL_LIST;
  pq_write_node *mid = wn_snodes(b, 1);
  pq_write_node *kids = mid ? wn_snodes(b, n->n) : NULL;
  if (!kids) return 0;
  x->n_children = 1;
  x->children = mid;
  mid->name = is_map ? "key_value" : "list";
  mid->repetition = 2;
  mid->n_children = n->n;
  mid->children = kids;
  if (is_map)
    return wn_build(b, &kids[0], &n->kids[0], "key", 0, depth + 2, d + 1, rep + 1) &&
           wn_build(b, &kids[1], &n->kids[1], "value", 1, depth + 2, d + 1, rep + 1);
  return wn_build(b, &kids[0], &n->kids[0], "element", n->kids[0].req ? 0 : 1,
                  depth + 2, d + 1, rep + 1);
}

static int wn_err(pq_error *err, int code, const char *text) {
  err->code = code;
  snprintf(err->msg, sizeof err->msg, "%s", text);
  return code;
}

int pq_nested_open_writer(pq_writer **out, int n, pq_nested *const *nested,
                          const char *const *names, const pq_params *p,
                          const pq_write_options *o, int *wcol, int *bad,
                          pq_error *err) {
  *out = NULL;
  *bad = -1;
  int nodes = 0, leaves = 0;
  for (int i = 0; i < n; i++) {
    pq_nested *c = nested[i];
    nodes += c ? wn_count_nodes(c->tree) : 1;
    leaves += c ? c->nleaves : 1;
  }
  wn_sbuild b;
  memset(&b, 0, sizeof b);
  b.pool = pq_malloc((size_t)nodes * sizeof *b.pool);
  b.ps = pq_malloc((size_t)leaves * sizeof *b.ps);
  b.os = pq_malloc((size_t)leaves * sizeof *b.os);
  b.cap = nodes;
  int rc = PQ_OK;
  pq_write_node *top = b.pool ? wn_snodes(&b, n) : NULL;
  if (!top || !b.ps || !b.os) rc = wn_err(err, PQ_NOMEM, "out of memory");
  for (int i = 0; i < n && !rc; i++) {
    pq_nested *c = nested[i];
    if (!c) {
      top[i].name = names[i];
      top[i].repetition = o[i].nullable ? 1 : 0;
      wcol[i] = b.nleaves;
      b.ps[b.nleaves] = p[i];
      b.os[b.nleaves] = o[i];
      b.nleaves++;
      continue;
    }
    b.col = c;
    if (!wn_build(&b, &top[i], c->tree, names[i], 1, 0, 0, 0)) {
      *bad = i;
      rc = wn_err(err, PQ_MISUSE, "the schema has more nodes than counted");
    }
    /* each leaf alone first, so that a refusal names it */
    for (int k = 0; k < c->nleaves && !rc; k++) {
      pq_writer *one;
      wn_leaf *l = &c->leaves[k];
      rc = pq_writer_open_columns(&one, 1, &l->p, &l->o, err);
      pq_writer_free(one);
      if (rc && rc != PQ_NOMEM) *bad = i;
    }
  }
  if (!rc) rc = pq_writer_open_schema(out, top, n, b.ps, b.os, err);
  pq_free(b.pool);
  pq_free(b.ps);
  pq_free(b.os);
  return rc;
}

/* ---- Shredding ---------------------------------------------------------------- */

typedef struct wn_shred {
  pq_nested *c;
  pq_json_doc *d;
  char path[512]; /* where in the value, for messages: $.a[2].b */
  size_t plen;
  pq_buf *msg; /* the first fault */
  int failed;  /* ... said in msg */
  int nomem;   /* ... or out of memory */
} wn_shred;

static void wn_entry(wn_shred *s, wn_leaf *l, int rep, int def) {
  uint16_t r = (uint16_t)rep, d = (uint16_t)def;
  pq_buf_append(&l->def, &d, sizeof d);
  pq_buf_append(&l->rep, &r, sizeof r);
  l->nent++;
  if (l->def.oom || l->rep.oom) s->nomem = 1;
}

/* An entry with no value in every leaf under n. */
static void wn_nulls(wn_shred *s, const wn_node *n, int rep, int def) {
  if (n->kind < PQ_WT_LIST) {
    wn_entry(s, &s->c->leaves[n->leaf], rep, def);
    return;
  }
  for (int i = 0; i < n->n; i++) wn_nulls(s, &n->kids[i], rep, def);
}

/* The first fault: where in the value, then what. */
PQ_PRINTF(2, 3)
static void wn_failf(wn_shred *s, const char *fmt, ...) {
  if (s->failed || s->nomem) return;
  s->msg->len = 0;
  wn_add(s->msg, "%s: ", s->plen ? s->path : "$");
  va_list ap;
  va_start(ap, fmt);
  wn_vadd(s->msg, fmt, ap);
  va_end(ap);
  s->failed = 1;
  if (s->msg->oom) s->nomem = 1;
}

static void wn_fail(wn_shred *s, const char *fmt, const char *what) {
  wn_failf(s, "%s%s", fmt, what ? what : "");
}

static const char *const wn_jnames[] = {"null", "true", "false", "a number",
                                     "a string", "an array", "an object"};

/* The value of leaf l from JSON node x (or from text t of n bytes: a MAP's
** key). */
static void wn_value(wn_shred *s, wn_leaf *l, int rep, int def, const pq_json_node *x,
                  const char *t, size_t n) {
  const char *raw = x ? s->d->src + x->at : t;
  size_t rawn = x ? x->len : n;
  int type = x ? x->type : PQ_J_STRING;
  const char *str = x ? (const char *)pq_json_text(s->d, x->str_off) : t;
  size_t strn = x ? x->str_len : n;
  uint8_t slot[16];
  size_t vlen = 0;           /* bytes into vals (fixed) */
  const void *bytes = NULL;  /* or bytes into the heap */
  size_t nbytes = 0;
  pq_error err = {0};
  char num[64];
  const char *label = ""; /* the place is added on a fault (conv:) */
  int rc = PQ_OK;
  char tn[96];
  const char *want = pq_write_type_name(&l->t, tn, sizeof tn);
  switch (l->t.kind) {
    case PQ_WT_BOOLEAN:
      if (type != PQ_J_TRUE && type != PQ_J_FALSE) goto mismatch;
      slot[0] = type == PQ_J_TRUE;
      vlen = 1;
      break;
    case PQ_WT_INT32:
    case PQ_WT_INT64: {
      if (type != PQ_J_NUMBER && !(type == PQ_J_STRING && !x)) goto mismatch;
      if (rawn >= sizeof num) goto range;
      memcpy(num, raw, rawn);
      num[rawn] = 0;
      char *end;
      errno = 0;
      long long v = strtoll(num, &end, 10);
      if (*end || errno || rawn == 0) {
        double d = strtod(num, &end);
        if (*end || !(d >= -9223372036854775808.0 && d < 9223372036854775808.0) ||
            (double)(long long)d != d)
          goto range;
        v = (long long)d;
      }
      if (l->t.kind == PQ_WT_INT32) {
        if (v < INT32_MIN || v > INT32_MAX) goto range;
        int32_t y = (int32_t)v;
        memcpy(slot, &y, 4);
        vlen = 4;
      } else {
        int64_t y = v;
        memcpy(slot, &y, 8);
        vlen = 8;
      }
      break;
    }
    case PQ_WT_FLOAT:
    case PQ_WT_DOUBLE: {
      if (type != PQ_J_NUMBER || rawn >= sizeof num) goto mismatch;
      memcpy(num, raw, rawn);
      num[rawn] = 0;
      double d = strtod(num, NULL);
      if (l->t.kind == PQ_WT_FLOAT) {
        float f = (float)d;
        memcpy(slot, &f, 4);
        vlen = 4;
      } else {
        memcpy(slot, &d, 8);
        vlen = 8;
      }
      break;
    }
    case PQ_WT_STRING:
    case PQ_WT_BINARY:
      if (type == PQ_J_STRING) {
        bytes = str;
        nbytes = strn;
      } else if (type == PQ_J_NUMBER && l->t.kind == PQ_WT_STRING) {
        bytes = raw;
        nbytes = rawn;
      } else {
        goto mismatch;
      }
      break;
    case PQ_WT_JSON:
      bytes = raw; /* the value's own text */
      nbytes = rawn;
      break;
    case PQ_WT_FIXED:
      if (type != PQ_J_STRING) goto mismatch;
      if (strn != (size_t)l->t.length) {
        wn_fail(s, "a string not of the length of ", want);
        return;
      }
      bytes = str;
      nbytes = strn;
      break;
    case PQ_WT_DATE:
    case PQ_WT_TIME:
    case PQ_WT_TIMESTAMP: {
      int64_t v;
      if (type == PQ_J_STRING) {
        int32_t days;
        rc = l->t.kind == PQ_WT_DATE
                 ? pq_date_from_text(str, strn, &days, label, &err)
                 : l->t.kind == PQ_WT_TIME
                       ? pq_time_from_text(str, strn, l->t.unit, &v, label, &err)
                       : pq_timestamp_from_text(str, strn, l->t.unit, &v, label,
                                                &err);
        if (l->t.kind == PQ_WT_DATE) v = days;
      } else {
        goto mismatch;
      }
      if (rc) goto conv;
      if (l->p.type == PQ_INT32) {
        int32_t y = (int32_t)v;
        memcpy(slot, &y, 4);
        vlen = 4;
      } else {
        memcpy(slot, &v, 8);
        vlen = 8;
      }
      break;
    }
    case PQ_WT_DECIMAL: {
      if (type != PQ_J_NUMBER && type != PQ_J_STRING) goto mismatch;
      pq_decimal_spec spec = {l->p.type, l->p.type_length, l->t.precision,
                              l->t.scale};
      uint8_t out[16];
      size_t len;
      rc = type == PQ_J_STRING
               ? pq_decimal_from_text(&spec, str, strn, out, &len, label, &err)
               : pq_decimal_from_text(&spec, raw, rawn, out, &len, label, &err);
      if (rc) goto conv;
      if (l->p.type == PQ_FIXED_LEN_BYTE_ARRAY) {
        bytes = out; /* to the heap, below */
        nbytes = len;
      } else {
        memcpy(slot, out, len);
        vlen = len;
      }
      break;
    }
    case PQ_WT_UUID: {
      if (type != PQ_J_STRING) goto mismatch;
      uint8_t u[16];
      rc = pq_uuid_from_text(str, strn, u, label, &err);
      if (rc) goto conv;
      pq_buf_append(&l->heap, u, 16); /* as bytes would, with its offset */
      size_t off = l->heap.len - 16;
      memcpy(slot, &off, sizeof off);
      vlen = sizeof off;
      break;
    }
    case PQ_WT_INT96: {
      if (type != PQ_J_STRING) goto mismatch;
      rc = pq_int96_from_text(str, strn, slot, label, &err);
      if (rc) goto conv;
      vlen = 12;
      break;
    }
    default:
      goto mismatch;
  }
  if (bytes) {
    /* BYTE_ARRAY: the offset now, the pointer when the batch goes;
    ** FIXED_LEN_BYTE_ARRAY: the offset */
    size_t off = l->heap.len;
    pq_buf_append(&l->heap, bytes, nbytes);
    if (l->p.type == PQ_BYTE_ARRAY) {
      pq_bytes b = {(const uint8_t *)(uintptr_t)off, nbytes};
      memcpy(slot, &b, sizeof b);
      vlen = sizeof b;
    } else {
      memcpy(slot, &off, sizeof off);
      vlen = sizeof off;
    }
  }
  pq_buf_append(&l->vals, slot, vlen);
  l->nvals++;
  wn_entry(s, l, rep, def);
  if (l->vals.oom || l->heap.oom) s->nomem = 1;
  return;
mismatch:
  wn_fail(s, wn_jnames[type], NULL);
  if (s->failed && !s->nomem) {
    wn_add(s->msg, " where %s %s belongs",
           strchr("AEIOU", want[0]) ? "an" : "a", want);
    if (s->msg->oom) s->nomem = 1;
  }
  return;
range:
  wn_failf(s, "%.*s does not fit %s", (int)(rawn > 40 ? 40 : rawn), raw, want);
  return;
conv:
  if (s->failed || s->nomem) return;
  if (err.code == PQ_NOMEM) {
    s->nomem = 1;
    return;
  }
  s->msg->len = 0;
  wn_add(s->msg, "%s%s", s->plen ? s->path : "$", err.msg);
  s->failed = 1;
  if (s->msg->oom) s->nomem = 1;
}

/* Appends a step (".name", or "[i]" when name is NULL) to the path; *save
** to go back. */
static void wn_push(wn_shred *s, size_t *save, const char *name, int i) {
  *save = s->plen;
  char *at = s->path + s->plen;
  size_t room = sizeof s->path - s->plen;
  int k = name ? snprintf(at, room, ".%s", name) : snprintf(at, room, "[%d]", i);
  if (k > 0) s->plen += (size_t)k;
  if (s->plen >= sizeof s->path) s->plen = sizeof s->path - 1;
}

static void wn_walk(wn_shred *s, const wn_node *n, int x, int rep, int def, int optional) {
  if (s->failed || s->nomem) return;
  const pq_json_node *j = x >= 0 ? &s->d->nodes[x] : NULL;
  if (!j || j->type == PQ_J_NULL) {
    if (!optional) {
      wn_fail(s, "null where the type has no NULL", NULL);
      return;
    }
    wn_nulls(s, n, rep, def);
    return;
  }
  int d = def + (optional != 0);
  if (n->kind < PQ_WT_LIST) {
    wn_value(s, &s->c->leaves[n->leaf], rep, d, j, NULL, 0);
    return;
  }
  size_t save;
  if (n->kind == PQ_WT_STRUCT) {
    if (j->type != PQ_J_OBJECT) {
      wn_fail(s, wn_jnames[j->type], " where a STRUCT's object belongs");
      return;
    }
    /* every member must be a field */
    for (int m = j->first; m >= 0; m = s->d->nodes[m].next) {
      const pq_json_node *mm = &s->d->nodes[m];
      int found = 0;
      for (int f = 0; f < n->n && !found; f++)
        found = strlen(n->kids[f].name) == mm->key_len &&
                memcmp(n->kids[f].name, pq_json_text(s->d, mm->key_off),
                       mm->key_len) == 0;
      if (!found) {
        wn_failf(s, "a member the STRUCT has no field for: %.*s",
                 (int)mm->key_len, (const char *)pq_json_text(s->d, mm->key_off));
        return;
      }
    }
    for (int f = 0; f < n->n; f++) {
      int found = -1;
      for (int m = j->first; m >= 0 && found < 0; m = s->d->nodes[m].next) {
        const pq_json_node *mm = &s->d->nodes[m];
        if (strlen(n->kids[f].name) == mm->key_len &&
            memcmp(n->kids[f].name, pq_json_text(s->d, mm->key_off), mm->key_len) == 0)
          found = m;
      }
      wn_push(s, &save, n->kids[f].name, 0);
      wn_walk(s, &n->kids[f], found, rep, d, 1);
      s->plen = save;
      s->path[s->plen] = 0;
    }
    return;
  }
  int is_map = n->kind == PQ_WT_MAP;
  if (j->type != (is_map ? PQ_J_OBJECT : PQ_J_ARRAY)) {
    wn_fail(s, wn_jnames[j->type], is_map ? " where a MAP's object belongs"
                                    : " where a LIST's array belongs");
    return;
  }
  if (j->n == 0) { /* empty: the repeated group is not there */
    wn_nulls(s, n, rep, d);
    return;
  }
  int k = 0;
  for (int m = j->first; m >= 0; m = s->d->nodes[m].next, k++) {
    int r = k ? n->rep : rep;
    const pq_json_node *mm = &s->d->nodes[m];
    if (is_map) {
      char *key = pq_malloc(mm->key_len + 1);
      if (!key) {
        s->nomem = 1;
        return;
      }
      if (mm->key_len) memcpy(key, pq_json_text(s->d, mm->key_off), mm->key_len);
      key[mm->key_len] = 0;
      wn_push(s, &save, key, 0);
      wn_value(s, &s->c->leaves[n->kids[0].leaf], r, d + 1, NULL, key, mm->key_len);
      pq_free(key);
      wn_walk(s, &n->kids[1], m, r, d + 1, 1);
    } else {
      wn_push(s, &save, NULL, k);
      wn_walk(s, &n->kids[0], m, r, d + 1, 1);
    }
    s->plen = save;
    s->path[s->plen] = 0;
    if (s->failed || s->nomem) return;
  }
}


int pq_nested_put(pq_nested *c, const char *text, size_t n, pq_buf *msg) {
  wn_shred s;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.d = &c->json;
  s.msg = msg;
  strcpy(s.path, "$");
  s.plen = 1;
  if (c->tree->kind == PQ_WT_VARIANT) return pq_variant_col_put(c, text, n, msg);
  if (!text) {
    wn_nulls(&s, c->tree, 0, 0);
    return s.nomem ? PQ_NOMEM : PQ_OK;
  }
  size_t at;
  const char *fault;
  int root = pq_json_parse(&c->json, text, n, &at, &fault);
  if (root == -2) return PQ_NOMEM;
  if (root < 0) {
    msg->len = 0;
    wn_add(msg, "not JSON: %s at character %lld", fault, (long long)at);
    return msg->oom ? PQ_NOMEM : PQ_MISUSE;
  }
  wn_walk(&s, c->tree, root, 0, 0, 1);
  if (s.nomem) return PQ_NOMEM;
  return s.failed ? PQ_MISUSE : PQ_OK;
}

int pq_nested_flush(pq_nested *c, pq_writer *w, pq_error *err) {
  for (int k = 0; k < c->nleaves; k++) {
    wn_leaf *l = &c->leaves[k];
    if (l->nent == 0) continue;
    const void *vals = l->vals.data;
    pq_buf run;
    pq_buf_init(&run);
    if (l->p.type == PQ_BYTE_ARRAY) {
      pq_bytes *b = (pq_bytes *)(void *)l->vals.data;
      const uint8_t *heap = l->heap.data ? l->heap.data : (const uint8_t *)"";
      for (size_t i = 0; i < l->nvals; i++)
        b[i].ptr = heap + (size_t)(uintptr_t)b[i].ptr;
    } else if (l->p.type == PQ_FIXED_LEN_BYTE_ARRAY) {
      for (size_t i = 0; i < l->nvals; i++) {
        size_t off;
        memcpy(&off, l->vals.data + i * sizeof off, sizeof off);
        pq_buf_append(&run, l->heap.data + off, (size_t)l->p.type_length);
      }
      if (run.oom) {
        pq_buf_free(&run);
        return wn_err(err, PQ_NOMEM, "out of memory");
      }
      vals = run.data;
    }
    int rc = pq_writer_put_levels(w, l->col, vals,
                                  (const uint16_t *)(void *)l->def.data,
                                  l->max_rep ? (const uint16_t *)(void *)l->rep.data
                                             : NULL,
                                  l->nent, err);
    pq_buf_free(&run);
    if (rc) return rc;
    l->vals.len = l->heap.len = l->def.len = l->rep.len = 0;
    l->nvals = l->nent = 0;
  }
  return PQ_OK;
}
