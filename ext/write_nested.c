/*
** write_nested.c -- the nested columns of parquet_write: a column typed
** LIST<t>, MAP<k, v> or STRUCT<name t, ...> (nesting as deep as wanted)
** takes JSON text and is written as the spec's nested types are
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
** is an error naming the column, the row and where in the value.
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "write.h"

#define FN "parquet_write"

/* ---- The type ------------------------------------------------------------ */

typedef struct wn_tparse {
  const char *s;
  size_t i;
  char *fault; /* a message, or PQX_W_NOMEM */
} wn_tparse;

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

static int wn_tnested(wn_tparse *p, WNode *out, int depth);

/* A type at p->i: nested, or a scalar name with its parenthesis. */
static int wn_ttype(wn_tparse *p, WNode *out, int depth) {
  memset(out, 0, sizeof *out);
  out->leaf = -1;
  wn_tspace(p);
  size_t k = wn_tword(p);
  const char *w = p->s + p->i;
  size_t j = p->i + k;
  while (p->s[j] == ' ') j++;
  if (k && p->s[j] == '<' &&
      (sqlite3_strnicmp(w, "LIST", 4) == 0 || sqlite3_strnicmp(w, "MAP", 3) == 0 ||
       sqlite3_strnicmp(w, "STRUCT", 6) == 0))
    return wn_tnested(p, out, depth);
  size_t end = p->i + k;
  if (p->s[end] == '(') {
    const char *close = strchr(p->s + end, ')');
    if (!close) {
      p->fault = pqx_w_msg("'%s': a '(' without ')'", p->s + p->i);
      return 0;
    }
    end = (size_t)(close - p->s) + 1;
  }
  char name[128];
  if (k == 0 || end - p->i >= sizeof name) {
    p->fault = pqx_w_msg("a type name expected at '%s'", p->s + p->i);
    return 0;
  }
  memcpy(name, p->s + p->i, end - p->i);
  name[end - p->i] = 0;
  if (pqx_write_scalar_type(name, &out->t)) {
    p->fault = pqx_w_msg("unknown type '%s'", name);
    return 0;
  }
  out->kind = out->t.kind;
  p->i = end;
  return 1;
}

/* A name of a STRUCT's field: a word, or "quoted".  NULL when there is
** none, or (p->fault set) out of memory. */
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
  char *n = sqlite3_mprintf("%.*s", (int)k, at);
  if (!n) {
    p->fault = PQX_W_NOMEM;
    return NULL;
  }
  p->i += skip;
  return n;
}

static int wn_tnested(wn_tparse *p, WNode *out, int depth) {
  if (depth > 32) {
    p->fault = pqx_w_msg("types nested more than 32 deep");
    return 0;
  }
  size_t k = wn_tword(p);
  int kind = k == 4 && sqlite3_strnicmp(p->s + p->i, "LIST", 4) == 0  ? WK_LIST
             : k == 3 && sqlite3_strnicmp(p->s + p->i, "MAP", 3) == 0 ? WK_MAP
             : k == 6 && sqlite3_strnicmp(p->s + p->i, "STRUCT", 6) == 0
                 ? WK_STRUCT
                 : 0;
  if (!kind) {
    p->fault = pqx_w_msg("unknown type at '%s'", p->s + p->i);
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
      WNode *nk = sqlite3_realloc64(out->kids, (size_t)cap * sizeof *nk);
      if (!nk) {
        p->fault = PQX_W_NOMEM;
        return 0;
      }
      out->kids = nk;
    }
    char *name = NULL;
    if (kind == WK_STRUCT) {
      name = wn_tname(p);
      if (!name) {
        if (!p->fault)
          p->fault = pqx_w_msg("a field name expected at '%s'", p->s + p->i);
        return 0;
      }
      for (int f = 0; f < out->n; f++)
        if (strcmp(out->kids[f].name, name) == 0) {
          p->fault = pqx_w_msg("two fields named '%s'", name);
          sqlite3_free(name);
          return 0;
        }
    }
    WNode *kid = &out->kids[out->n];
    if (!wn_ttype(p, kid, depth + 1)) {
      sqlite3_free(name);
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
    p->fault = pqx_w_msg("',' or '>' expected at '%s'", p->s + p->i);
    return 0;
  }
  if ((kind == WK_LIST && out->n != 1) || (kind == WK_MAP && out->n != 2)) {
    p->fault = pqx_w_msg(kind == WK_LIST ? "LIST<t> takes one type"
                                         : "MAP<k, v> takes two types");
    return 0;
  }
  if (kind == WK_MAP && out->kids[0].kind >= WK_LIST) {
    p->fault = pqx_w_msg("a MAP's keys are of a scalar type");
    return 0;
  }
  return 1;
}

static void wn_node_free(WNode *n) {
  for (int i = 0; i < n->n; i++) wn_node_free(&n->kids[i]);
  sqlite3_free(n->kids);
  sqlite3_free(n->name);
}

void pqx_nested_free(WNode *t) {
  if (!t) return;
  wn_node_free(t);
  sqlite3_free(t);
}

int pqx_nested_parse(const char *s, WNode **tree, char **msg) {
  *tree = NULL;
  *msg = NULL;
  wn_tparse p = {s, 0, NULL};
  wn_tspace(&p);
  size_t k = wn_tword(&p);
  size_t j = p.i + k;
  while (s[j] == ' ') j++;
  if (!k || s[j] != '<') return 0; /* a scalar */
  WNode *t = sqlite3_malloc(sizeof *t);
  if (!t) {
    *msg = PQX_W_NOMEM;
    return -1;
  }
  memset(t, 0, sizeof *t);
  int ok = wn_ttype(&p, t, 0);
  if (ok) {
    wn_tspace(&p);
    if (s[p.i]) {
      p.fault = pqx_w_msg("text after the type: '%s'", s + p.i);
      ok = 0;
    }
  }
  if (!ok) {
    *msg = p.fault ? p.fault : pqx_w_msg("a malformed type");
    pqx_nested_free(t);
    return -1;
  }
  *tree = t;
  return 1;
}

/* ---- The leaves and the schema ---------------------------------------------- */

/* Counts the scalars under n, numbering them. */
static void wn_number_leaves(WNode *n, int *k, int rdepth) {
  if (n->kind < WK_LIST) {
    n->leaf = (*k)++;
    return;
  }
  if (n->kind != WK_STRUCT) {
    n->rep = rdepth + 1;
    rdepth++;
  }
  for (int i = 0; i < n->n; i++) wn_number_leaves(&n->kids[i], k, rdepth);
}

/* The encoding of a leaf: the column's where the leaf's type may use it,
** else the default (a dictionary falling back to PLAIN). */
static void wn_leaf_encoding(WLeaf *l, const pq_params *base,
                          const pq_write_options *bo) {
  l->p.encoding = base->encoding;
  l->o.fallback = bo->fallback;
  if (!pq_encoding_supports(l->p.encoding, l->p.type)) {
    l->p.encoding = l->p.type == PQ_BOOLEAN ? PQ_PLAIN : PQ_RLE_DICTIONARY;
    l->o.fallback = l->p.type == PQ_BOOLEAN ? -1 : PQ_PLAIN;
  }
  if (l->o.fallback >= 0 &&
      !pq_encoding_supports((pq_encoding)l->o.fallback, l->p.type))
    l->o.fallback = PQ_PLAIN;
}

static void wn_fill_leaves(WCol *c, WNode *n, const pq_params *base,
                        const pq_write_options *bo) {
  if (n->kind < WK_LIST) {
    WLeaf *l = &c->leaves[n->leaf];
    l->t = n->t;
    l->p = *base;
    l->o = *bo;
    pqx_write_type_params(&n->t, &l->p, &l->o);
    wn_leaf_encoding(l, base, bo);
    l->vsize = l->p.type == PQ_BYTE_ARRAY            ? sizeof(pq_bytes)
               : l->p.type == PQ_FIXED_LEN_BYTE_ARRAY ? sizeof(size_t)
                                                      : pq_value_size(l->p.type, 0);
    return;
  }
  for (int i = 0; i < n->n; i++) wn_fill_leaves(c, &n->kids[i], base, bo);
}

char *pqx_nested_leaves(WCol *c, const pq_params *base,
                        const pq_write_options *bo) {
  int k = 0;
  wn_number_leaves(c->tree, &k, 0);
  c->leaves = sqlite3_malloc64((size_t)k * sizeof *c->leaves);
  if (!c->leaves) return PQX_W_NOMEM;
  memset(c->leaves, 0, (size_t)k * sizeof *c->leaves);
  c->nleaves = k;
  wn_fill_leaves(c, c->tree, base, bo);
  return NULL;
}

void pqx_nested_free_leaves(WCol *c) {
  for (int i = 0; i < c->nleaves; i++) {
    pq_buf_free(&c->leaves[i].vals);
    pq_buf_free(&c->leaves[i].heap);
    pq_buf_free(&c->leaves[i].def);
    pq_buf_free(&c->leaves[i].rep);
  }
  sqlite3_free(c->leaves);
  c->leaves = NULL;
  c->nleaves = 0;
  pqx_nested_free(c->tree);
  c->tree = NULL;
}

/* The schema being built: nodes allocated in one pool, the leaves' params
** and options in column order. */
typedef struct wn_sbuild {
  pq_write_node *pool;
  int npool, cap;
  pq_params *ps;
  pq_write_options *os;
  int nleaves;
  WCol *col;
} wn_sbuild;

static pq_write_node *wn_snodes(wn_sbuild *b, int n) {
  if (b->npool + n > b->cap) return NULL; /* sized beforehand */
  pq_write_node *x = b->pool + b->npool;
  memset(x, 0, (size_t)n * sizeof *x);
  b->npool += n;
  return x;
}

/* Nodes a type needs. */
static int wn_count_nodes(const WNode *n) {
  int k = n->kind == WK_LIST || n->kind == WK_MAP ? 2 : 1;
  for (int i = 0; i < n->n; i++) k += wn_count_nodes(&n->kids[i]);
  return k;
}

/* Fills x (one node) for type n named name of the repetition; recurses. */
static int wn_build(wn_sbuild *b, pq_write_node *x, const WNode *n, const char *name,
                 int repetition, int depth, int def, int rep) {
  x->name = name;
  x->repetition = repetition;
  int d = def + (repetition != 0);
  if (n->kind < WK_LIST) {
    WLeaf *l = &b->col->leaves[n->leaf];
    l->col = b->nleaves;
    l->max_def = d;
    l->max_rep = rep;
    l->o.nullable = repetition == 1;
    b->ps[b->nleaves] = l->p;
    b->os[b->nleaves] = l->o;
    b->nleaves++;
    return 1;
  }
  if (n->kind == WK_STRUCT) {
    pq_write_node *kids = wn_snodes(b, n->n);
    if (!kids) return 0;
    x->n_children = n->n;
    x->children = kids;
    for (int i = 0; i < n->n; i++)
      if (!wn_build(b, &kids[i], &n->kids[i], n->kids[i].name, 1, depth + 1, d, rep))
        return 0;
    return 1;
  }
  /* LIST and MAP: the annotated group, its repeated group, its fields */
  int is_map = n->kind == WK_MAP;
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
  return wn_build(b, &kids[0], &n->kids[0], "element", 1, depth + 2, d + 1, rep + 1);
}

char *pqx_nested_open(Writer *wr) {
  int nodes = 0, leaves = 0;
  for (int i = 0; i < wr->ncols; i++) {
    WCol *c = &wr->cols[i];
    nodes += c->tree ? wn_count_nodes(c->tree) : 1;
    leaves += c->tree ? c->nleaves : 1;
  }
  wn_sbuild b;
  memset(&b, 0, sizeof b);
  b.pool = sqlite3_malloc64((size_t)nodes * sizeof *b.pool);
  b.ps = sqlite3_malloc64((size_t)leaves * sizeof *b.ps);
  b.os = sqlite3_malloc64((size_t)leaves * sizeof *b.os);
  b.cap = nodes;
  char *msg = NULL;
  pq_write_node *top = b.pool ? wn_snodes(&b, wr->ncols) : NULL;
  if (!top || !b.ps || !b.os) msg = PQX_W_NOMEM;
  for (int i = 0; i < wr->ncols && !msg; i++) {
    WCol *c = &wr->cols[i];
    if (!c->tree) {
      top[i].name = c->name;
      top[i].repetition = c->o.nullable ? 1 : 0;
      c->wcol = b.nleaves;
      b.ps[b.nleaves] = c->p;
      b.os[b.nleaves] = c->o;
      b.nleaves++;
      continue;
    }
    b.col = c;
    if (!wn_build(&b, &top[i], c->tree, c->name, 1, 0, 0, 0))
      msg = pqx_w_msg(FN ": column '%s': the schema has more nodes than "
                         "counted", c->name);
    /* each leaf alone first, so that a refusal names it */
    for (int k = 0; k < c->nleaves && !msg; k++) {
      pq_error err = {0};
      pq_writer *one;
      WLeaf *l = &c->leaves[k];
      int rc = pq_writer_open_columns(&one, 1, &l->p, &l->o, &err);
      pq_writer_free(one);
      if (rc == PQ_NOMEM)
        msg = PQX_W_NOMEM;
      else if (rc)
        msg = pqx_w_msg(FN ": column '%s': %s", c->name, err.msg);
    }
  }
  if (!msg) {
    pq_error err = {0};
    int rc = pq_writer_open_schema(&wr->w, top, wr->ncols, b.ps, b.os, &err);
    if (rc) msg = pqx_w_core(rc, &err);
  }
  sqlite3_free(b.pool);
  sqlite3_free(b.ps);
  sqlite3_free(b.os);
  return msg;
}

/* ---- Shredding ---------------------------------------------------------------- */

typedef struct wn_shred {
  Writer *wr;
  WCol *c;
  wj_doc *d;
  char path[512]; /* where in the value, for messages: $.a[2].b */
  size_t plen;
  char *msg;  /* the first fault, from sqlite3_mprintf */
  int nomem;  /* ... or out of memory */
} wn_shred;

static void wn_entry(wn_shred *s, WLeaf *l, int rep, int def) {
  uint16_t r = (uint16_t)rep, d = (uint16_t)def;
  pq_buf_append(&l->def, &d, sizeof d);
  pq_buf_append(&l->rep, &r, sizeof r);
  l->nent++;
  if (l->def.oom || l->rep.oom) s->nomem = 1;
}

/* An entry with no value in every leaf under n. */
static void wn_nulls(wn_shred *s, const WNode *n, int rep, int def) {
  if (n->kind < WK_LIST) {
    wn_entry(s, &s->c->leaves[n->leaf], rep, def);
    return;
  }
  for (int i = 0; i < n->n; i++) wn_nulls(s, &n->kids[i], rep, def);
}

static void wn_fail(wn_shred *s, const char *fmt, const char *what) {
  if (s->msg || s->nomem) return;
  s->msg = sqlite3_mprintf(FN ": column '%s', row %lld: %s: %s%s", s->c->name,
                           (long long)(s->wr->rows + (int64_t)s->wr->batch_rows + 1),
                           s->plen ? s->path : "$", fmt, what ? what : "");
  if (!s->msg) s->nomem = 1;
}

static const char *const wn_jnames[] = {"null", "true", "false", "a number",
                                     "a string", "an array", "an object"};

/* The value of leaf l from JSON node x (or from text t of n bytes: a MAP's
** key). */
static void wn_value(wn_shred *s, WLeaf *l, int rep, int def, const wj_node_t *x,
                  const char *t, size_t n) {
  const char *raw = x ? s->d->src + x->at : t;
  size_t rawn = x ? x->len : n;
  int type = x ? x->type : WJ_STRING;
  const char *str = x ? (const char *)s->d->text.data + x->str_off : t;
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
  const char *want = pqx_write_type_name(&l->t, tn, sizeof tn);
  switch (l->t.kind) {
    case WK_BOOLEAN:
      if (type != WJ_TRUE && type != WJ_FALSE) goto mismatch;
      slot[0] = type == WJ_TRUE;
      vlen = 1;
      break;
    case WK_INT32:
    case WK_INT64: {
      if (type != WJ_NUMBER && !(type == WJ_STRING && !x)) goto mismatch;
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
      if (l->t.kind == WK_INT32) {
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
    case WK_FLOAT:
    case WK_DOUBLE: {
      if (type != WJ_NUMBER || rawn >= sizeof num) goto mismatch;
      memcpy(num, raw, rawn);
      num[rawn] = 0;
      double d = strtod(num, NULL);
      if (l->t.kind == WK_FLOAT) {
        float f = (float)d;
        memcpy(slot, &f, 4);
        vlen = 4;
      } else {
        memcpy(slot, &d, 8);
        vlen = 8;
      }
      break;
    }
    case WK_STRING:
    case WK_BINARY:
      if (type == WJ_STRING) {
        bytes = str;
        nbytes = strn;
      } else if (type == WJ_NUMBER && l->t.kind == WK_STRING) {
        bytes = raw;
        nbytes = rawn;
      } else {
        goto mismatch;
      }
      break;
    case WK_JSON:
      bytes = raw; /* the value's own text */
      nbytes = rawn;
      break;
    case WK_FIXED:
      if (type != WJ_STRING) goto mismatch;
      if (strn != (size_t)l->t.length) {
        wn_fail(s, "a string not of the length of ", want);
        return;
      }
      bytes = str;
      nbytes = strn;
      break;
    case WK_DATE:
    case WK_TIME:
    case WK_TIMESTAMP: {
      int64_t v;
      if (type == WJ_STRING) {
        int32_t days;
        rc = l->t.kind == WK_DATE
                 ? pq_date_from_text(str, strn, &days, label, &err)
                 : l->t.kind == WK_TIME
                       ? pq_time_from_text(str, strn, l->t.unit, &v, label, &err)
                       : pq_timestamp_from_text(str, strn, l->t.unit, &v, label,
                                                &err);
        if (l->t.kind == WK_DATE) v = days;
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
    case WK_DECIMAL: {
      if (type != WJ_NUMBER && type != WJ_STRING) goto mismatch;
      pq_decimal_spec spec = {l->p.type, l->p.type_length, l->t.precision,
                              l->t.scale};
      uint8_t out[16];
      size_t len;
      rc = type == WJ_STRING
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
    case WK_UUID: {
      if (type != WJ_STRING) goto mismatch;
      uint8_t u[16];
      rc = pq_uuid_from_text(str, strn, u, label, &err);
      if (rc) goto conv;
      pq_buf_append(&l->heap, u, 16); /* as bytes would, with its offset */
      size_t off = l->heap.len - 16;
      memcpy(slot, &off, sizeof off);
      vlen = sizeof off;
      break;
    }
    case WK_INT96: {
      if (type != WJ_STRING) goto mismatch;
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
  if (s->msg) {
    char *m = sqlite3_mprintf("%s where %s %s belongs", s->msg,
                              strchr("AEIOU", want[0]) ? "an" : "a", want);
    sqlite3_free(s->msg);
    s->msg = m;
    if (!m) s->nomem = 1;
  }
  return;
range: {
    char *m = sqlite3_mprintf("%.*s does not fit %s", (int)(rawn > 40 ? 40 : rawn),
                              raw, want);
    if (m)
      wn_fail(s, m, NULL);
    else
      s->nomem = 1;
    sqlite3_free(m);
    return;
  }
conv:
  if (s->msg || s->nomem) return;
  if (err.code == PQ_NOMEM) {
    s->nomem = 1;
    return;
  }
  s->msg = sqlite3_mprintf(FN ": column '%s', row %lld: %s%s", s->c->name,
                           (long long)(s->wr->rows + (int64_t)s->wr->batch_rows + 1),
                           s->plen ? s->path : "$", err.msg);
  if (!s->msg) s->nomem = 1;
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

static void wn_walk(wn_shred *s, const WNode *n, int x, int rep, int def, int optional) {
  if (s->msg || s->nomem) return;
  const wj_node_t *j = x >= 0 ? &s->d->nodes[x] : NULL;
  if (!j || j->type == WJ_NULL) {
    if (!optional) {
      wn_fail(s, "null where the type has no NULL", NULL);
      return;
    }
    wn_nulls(s, n, rep, def);
    return;
  }
  int d = def + (optional != 0);
  if (n->kind < WK_LIST) {
    wn_value(s, &s->c->leaves[n->leaf], rep, d, j, NULL, 0);
    return;
  }
  size_t save;
  if (n->kind == WK_STRUCT) {
    if (j->type != WJ_OBJECT) {
      wn_fail(s, wn_jnames[j->type], " where a STRUCT's object belongs");
      return;
    }
    /* every member must be a field */
    for (int m = j->first; m >= 0; m = s->d->nodes[m].next) {
      const wj_node_t *mm = &s->d->nodes[m];
      int found = 0;
      for (int f = 0; f < n->n && !found; f++)
        found = strlen(n->kids[f].name) == mm->key_len &&
                memcmp(n->kids[f].name, s->d->text.data + mm->key_off,
                       mm->key_len) == 0;
      if (!found) {
        char *k = sqlite3_mprintf("%.*s", (int)mm->key_len,
                                  (const char *)s->d->text.data + mm->key_off);
        if (k)
          wn_fail(s, "a member the STRUCT has no field for: ", k);
        else
          s->nomem = 1;
        sqlite3_free(k);
        return;
      }
    }
    for (int f = 0; f < n->n; f++) {
      int found = -1;
      for (int m = j->first; m >= 0 && found < 0; m = s->d->nodes[m].next) {
        const wj_node_t *mm = &s->d->nodes[m];
        if (strlen(n->kids[f].name) == mm->key_len &&
            memcmp(n->kids[f].name, s->d->text.data + mm->key_off, mm->key_len) == 0)
          found = m;
      }
      wn_push(s, &save, n->kids[f].name, 0);
      wn_walk(s, &n->kids[f], found, rep, d, 1);
      s->plen = save;
      s->path[s->plen] = 0;
    }
    return;
  }
  int is_map = n->kind == WK_MAP;
  if (j->type != (is_map ? WJ_OBJECT : WJ_ARRAY)) {
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
    const wj_node_t *mm = &s->d->nodes[m];
    if (is_map) {
      char *key = sqlite3_mprintf("%.*s", (int)mm->key_len,
                                  (const char *)s->d->text.data + mm->key_off);
      if (!key) {
        s->nomem = 1;
        return;
      }
      wn_push(s, &save, key, 0);
      wn_value(s, &s->c->leaves[n->kids[0].leaf], r, d + 1, NULL, key, mm->key_len);
      sqlite3_free(key);
      wn_walk(s, &n->kids[1], m, r, d + 1, 1);
    } else {
      wn_push(s, &save, NULL, k);
      wn_walk(s, &n->kids[0], m, r, d + 1, 1);
    }
    s->plen = save;
    s->path[s->plen] = 0;
    if (s->msg || s->nomem) return;
  }
}

char *pqx_nested_put(Writer *wr, int col, sqlite3_value *v) {
  WCol *c = &wr->cols[col];
  wn_shred s;
  memset(&s, 0, sizeof s);
  s.wr = wr;
  s.c = c;
  s.d = &wr->json;
  strcpy(s.path, "$");
  s.plen = 1;
  int vt = sqlite3_value_type(v);
  if (vt == SQLITE_NULL) {
    wn_nulls(&s, c->tree, 0, 0);
    return s.nomem ? PQX_W_NOMEM : NULL;
  }
  if (vt != SQLITE_TEXT) {
    return pqx_w_msg(FN ": column '%s', row %lld: %s where JSON text "
                        "belongs", c->name,
                     (long long)(wr->rows + (int64_t)wr->batch_rows + 1),
                     vt == SQLITE_INTEGER ? "an INTEGER"
                     : vt == SQLITE_FLOAT ? "a REAL" : "a BLOB");
  }
  const char *text = (const char *)sqlite3_value_text(v);
  if (!text) return PQX_W_NOMEM;
  size_t n = (size_t)sqlite3_value_bytes(v);
  size_t at;
  const char *fault;
  int root = pqx_json_parse(&wr->json, text, n, &at, &fault);
  if (root == -2) return PQX_W_NOMEM;
  if (root < 0) {
    return pqx_w_msg(FN ": column '%s', row %lld: not JSON: %s at "
                        "character %lld",
                     c->name,
                     (long long)(wr->rows + (int64_t)wr->batch_rows + 1),
                     fault, (long long)at);
  }
  wn_walk(&s, c->tree, root, 0, 0, 1);
  if (s.nomem) {
    sqlite3_free(s.msg);
    return PQX_W_NOMEM;
  }
  return s.msg;
}

char *pqx_nested_flush(Writer *wr, int col) {
  WCol *c = &wr->cols[col];
  for (int k = 0; k < c->nleaves; k++) {
    WLeaf *l = &c->leaves[k];
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
        return PQX_W_NOMEM;
      }
      vals = run.data;
    }
    pq_error err = {0};
    int rc = pq_writer_put_levels(wr->w, l->col, vals,
                                  (const uint16_t *)(void *)l->def.data,
                                  l->max_rep ? (const uint16_t *)(void *)l->rep.data
                                             : NULL,
                                  l->nent, &err);
    pq_buf_free(&run);
    if (rc) return pqx_w_core(rc, &err);
    l->vals.len = l->heap.len = l->def.len = l->rep.len = 0;
    l->nvals = l->nent = 0;
  }
  return NULL;
}
