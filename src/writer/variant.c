/*
** variant.c -- a VARIANT column of the writer (spec/VariantEncoding.md,
** spec/VariantShredding.md): JSON text per row, written as a VARIANT
** group, unshredded
**
**   optional group c (VARIANT(1)) { required binary metadata;
**                                   required binary value; }
**
** or shredded into typed columns as the options ask:
**
**   optional group c (VARIANT(1)) {
**     required binary metadata;
**     optional binary value;           # what typed_value does not hold
**     optional <type> typed_value;     # a scalar, or
**     optional group typed_value {     # an object's fields, each
**       required group a { optional binary value; optional ... typed_value; }
**     }                                # or an array's elements:
**     optional group typed_value (LIST) { repeated group list {
**       required group element { optional binary value; ... typed_value; } } }
**   }
**
** A value goes to typed_value when it is of the typed column's type as
** pq_variant_from_json types it (an integer that fits INT32 or INT64, an
** integer or decimal that DECIMAL(p, s) holds exactly, a number with an
** exponent or too many digits for DOUBLE, a string for STRING, true or
** false for BOOLEAN); else to value, and typed_value is null.  An object
** puts its shredded fields in their groups (a field it lacks: both null)
** and the rest in value (null when there is none); an array its elements
** in the list.  Every value of a row shares the row's metadata.
*/
#include "writer.h"

#include <stdio.h>

#define WV_DEPTH 16   /* a shredding's nesting, at most */
#define WV_FIELDS 64  /* an object's fields "auto" shreds, at most */

/* ---- The tree ---------------------------------------------------------------- */

int pq_variant_col_is(const char *s) {
  while (*s == ' ') s++;
  static const char w[] = "variant";
  for (int i = 0; i < 7; i++)
    if ((s[i] | 0x20) != w[i]) return 0;
  s += 7;
  while (*s == ' ') s++;
  return *s == 0;
}

/* A node named name (copied) of kind; kids room for n. */
static int wv_node(wn_node *x, const char *name, size_t nl, int kind, int n) {
  memset(x, 0, sizeof *x);
  x->leaf = -1;
  x->kind = kind;
  if (kind < PQ_WT_LIST) x->t.kind = kind;
  if (name) {
    x->name = pq_malloc(nl + 1);
    if (!x->name) return PQ_NOMEM;
    memcpy(x->name, name, nl);
    x->name[nl] = 0;
  }
  if (n) {
    x->kids = pq_calloc((size_t)n, sizeof *x->kids);
    if (!x->kids) return PQ_NOMEM;
  }
  return PQ_OK;
}

int pq_variant_col_init(wn_node *t) {
  int rc = wv_node(t, NULL, 0, PQ_WT_VARIANT, 3);
  if (!rc) rc = wv_node(&t->kids[0], "metadata", 8, PQ_WT_BINARY, 0);
  if (!rc) t->kids[0].req = 1, t->n = 1;
  if (!rc) rc = wv_node(&t->kids[1], "value", 5, PQ_WT_BINARY, 0);
  if (!rc) t->kids[1].req = 1, t->n = 2;
  return rc;
}

typedef struct wv_spec {
  pq_json_doc *d;
  pq_buf *msg;
  int nomem;
} wv_spec;

PQ_PRINTF(2, 3)
static int wv_specfail(wv_spec *s, const char *fmt, ...) {
  char text[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  s->msg->len = 0;
  pq_buf_append(s->msg, text, strlen(text) + 1);
  if (s->msg->oom) s->nomem = 1;
  return s->nomem ? PQ_NOMEM : PQ_MISUSE;
}

static int wv_typed(wv_spec *s, int x, wn_node *out, int depth);

/* A group of value and typed_value (an object's field, an array's
** element), REQUIRED, named name. */
static int wv_pair(wv_spec *s, int x, wn_node *g, const char *name, size_t nl,
                   int depth) {
  int rc = wv_node(g, name, nl, PQ_WT_STRUCT, 2);
  if (rc) return rc;
  g->req = 1;
  rc = wv_node(&g->kids[0], "value", 5, PQ_WT_BINARY, 0);
  if (rc) return rc;
  g->n = 1;
  rc = wv_typed(s, x, &g->kids[1], depth + 1);
  g->n = 2;
  return rc;
}

/* The typed_value of spec node x. */
static int wv_typed(wv_spec *s, int x, wn_node *out, int depth) {
  const pq_json_node *j = &s->d->nodes[x];
  const char *text = (const char *)s->d->text.data;
  memset(out, 0, sizeof *out);
  out->leaf = -1;
  if (depth > WV_DEPTH)
    return wv_specfail(s, "\"shred\": nested more than %d deep", WV_DEPTH);
  if (j->type == PQ_J_STRING) {
    char name[128];
    if (j->str_len >= sizeof name)
      return wv_specfail(s, "\"shred\": a type name too long");
    memcpy(name, text + j->str_off, j->str_len);
    name[j->str_len] = 0;
    pq_write_type t;
    if (pq_write_type_parse(name, &t) ||
        (t.kind != PQ_WT_BOOLEAN && t.kind != PQ_WT_INT32 &&
         t.kind != PQ_WT_INT64 && t.kind != PQ_WT_DOUBLE &&
         t.kind != PQ_WT_STRING && t.kind != PQ_WT_DECIMAL))
      return wv_specfail(s, "\"shred\": '%s' is not a type JSON values "
                            "shred to (BOOLEAN, INT32, INT64, DOUBLE, "
                            "DECIMAL(p,s), STRING)", name);
    int rc = wv_node(out, "typed_value", 11, t.kind, 0);
    out->t = t;
    return rc;
  }
  if (j->type == PQ_J_OBJECT) {
    if (j->n == 0)
      return wv_specfail(s, "\"shred\": an object of no fields");
    int rc = wv_node(out, "typed_value", 11, PQ_WT_STRUCT, j->n);
    for (int m = j->first; m >= 0 && !rc; m = s->d->nodes[m].next) {
      const pq_json_node *mm = &s->d->nodes[m];
      for (int k = 0; k < out->n; k++)
        if (strlen(out->kids[k].name) == mm->key_len &&
            memcmp(out->kids[k].name, text + mm->key_off, mm->key_len) == 0)
          return wv_specfail(s, "\"shred\": the field '%s' twice",
                             out->kids[k].name);
      if (memchr(text + mm->key_off, 0, mm->key_len) || mm->key_len == 0)
        return wv_specfail(s, "\"shred\": a field name empty or with NUL");
      rc = wv_pair(s, m, &out->kids[out->n], text + mm->key_off, mm->key_len,
                   depth);
      out->n++;
    }
    return rc;
  }
  if (j->type == PQ_J_ARRAY) {
    if (j->n != 1)
      return wv_specfail(s, "\"shred\": an array names its elements' "
                            "type, once: [\"INT64\"]");
    int rc = wv_node(out, "typed_value", 11, PQ_WT_LIST, 1);
    if (rc) return rc;
    out->n = 1;
    return wv_pair(s, j->first, &out->kids[0], "element", 7, depth);
  }
  return wv_specfail(s, "\"shred\" takes a type name, an object of "
                        "fields' types, an array of one type, or \"auto\"");
}

/* ---- "auto": the values' common shape ------------------------------------------ */

enum { WV_NONE, WV_BOOL, WV_INT, WV_DEC, WV_DBL, WV_STR, WV_OBJ, WV_ARR,
       WV_MIXED };

typedef struct wv_shape {
  int kind;               /* WV_*: NONE while only nulls were seen */
  int intd, scale;        /* INT, DEC: most integer digits, largest scale */
  int nf;                 /* OBJ: fields */
  const uint8_t **names;  /* ... their names (in a sample doc's text: copied) */
  char **own;             /* ... the copies */
  size_t *nlen;
  struct wv_shape *fields;
  struct wv_shape *elem;  /* ARR */
} wv_shape;

static void wv_shape_free(wv_shape *h) {
  for (int i = 0; i < h->nf; i++) {
    wv_shape_free(&h->fields[i]);
    pq_free(h->own[i]);
  }
  pq_free(h->own);
  pq_free(h->nlen);
  pq_free(h->fields);
  pq_free((void *)h->names);
  if (h->elem) wv_shape_free(h->elem);
  pq_free(h->elem);
  memset(h, 0, sizeof *h);
}

/* Merges node x of d into h; PQ_NOMEM or PQ_OK. */
static int wv_merge(wv_shape *h, const pq_json_doc *d, int x, int depth) {
  const pq_json_node *j = &d->nodes[x];
  if (j->type == PQ_J_NULL || h->kind == WV_MIXED) return PQ_OK;
  int kind, intd = 0, scale = 0;
  switch (j->type) {
    case PQ_J_TRUE:
    case PQ_J_FALSE: kind = WV_BOOL; break;
    case PQ_J_STRING: kind = WV_STR; break;
    case PQ_J_OBJECT: kind = WV_OBJ; break;
    case PQ_J_ARRAY: kind = WV_ARR; break;
    default: {
      int digits;
      int k = pq_vbuild_number_kind(d->src + j->at, j->len, &scale, &digits);
      kind = k == PQ_VB_INT ? WV_INT : k == PQ_VB_DECIMAL ? WV_DEC : WV_DBL;
      intd = digits - scale > 0 ? digits - scale : 0;
    }
  }
  if ((kind == WV_OBJ || kind == WV_ARR) && depth >= WV_DEPTH) kind = WV_MIXED;
  if (h->kind == WV_NONE) {
    h->kind = kind;
  } else if ((h->kind == WV_INT || h->kind == WV_DEC) &&
             (kind == WV_INT || kind == WV_DEC)) {
    if (kind == WV_DEC) h->kind = WV_DEC;
  } else if (h->kind != kind) {
    h->kind = WV_MIXED;
  }
  if (h->kind == WV_MIXED) return PQ_OK;
  if (intd > h->intd) h->intd = intd;
  if (scale > h->scale) h->scale = scale;
  if (kind == WV_ARR) {
    if (!h->elem) {
      h->elem = pq_calloc(1, sizeof *h->elem);
      if (!h->elem) return PQ_NOMEM;
    }
    for (int m = j->first; m >= 0; m = d->nodes[m].next) {
      int rc = wv_merge(h->elem, d, m, depth + 1);
      if (rc) return rc;
    }
  }
  if (kind == WV_OBJ) {
    if (!h->fields) {
      h->fields = pq_calloc(WV_FIELDS, sizeof *h->fields);
      h->names = pq_calloc(WV_FIELDS, sizeof *h->names);
      h->own = pq_calloc(WV_FIELDS, sizeof *h->own);
      h->nlen = pq_calloc(WV_FIELDS, sizeof *h->nlen);
      if (!h->fields || !h->names || !h->own || !h->nlen) return PQ_NOMEM;
    }
    for (int m = j->first; m >= 0; m = d->nodes[m].next) {
      const pq_json_node *mm = &d->nodes[m];
      const uint8_t *k = pq_json_text(d, mm->key_off);
      int f = 0;
      while (f < h->nf && !(h->nlen[f] == mm->key_len &&
                            memcmp(h->names[f], k, mm->key_len) == 0))
        f++;
      if (f == h->nf) {
        if (f == WV_FIELDS || mm->key_len == 0 || memchr(k, 0, mm->key_len))
          continue; /* not shredded */
        h->own[f] = pq_malloc(mm->key_len + 1);
        if (!h->own[f]) return PQ_NOMEM;
        memcpy(h->own[f], k, mm->key_len);
        h->names[f] = (const uint8_t *)h->own[f];
        h->nlen[f] = mm->key_len;
        h->nf++;
      }
      int rc = wv_merge(&h->fields[f], d, m, depth + 1);
      if (rc) return rc;
    }
  }
  return PQ_OK;
}

/* Appends s[0..n) as a JSON string. */
static void wv_jstr(pq_buf *b, const uint8_t *s, size_t n) {
  pq_buf_byte(b, '"');
  for (size_t i = 0; i < n; i++) {
    char e[8];
    if (s[i] == '"' || s[i] == '\\') {
      e[0] = '\\';
      e[1] = (char)s[i];
      pq_buf_append(b, e, 2);
    } else if (s[i] < 0x20) {
      snprintf(e, sizeof e, "\\u%04x", s[i]);
      pq_buf_append(b, e, 6);
    } else {
      pq_buf_byte(b, s[i]);
    }
  }
  pq_buf_byte(b, '"');
}

/* The shape as a "shred" spec appended to b: 1, or 0 when it shreds
** nothing (b as it was). */
static int wv_shape_spec(const wv_shape *h, pq_buf *b) {
  size_t at = b->len;
  char t[40];
  switch (h->kind) {
    case WV_BOOL: pq_buf_append(b, "\"BOOLEAN\"", 9); return 1;
    case WV_INT: pq_buf_append(b, "\"INT64\"", 7); return 1;
    case WV_DBL: pq_buf_append(b, "\"DOUBLE\"", 8); return 1;
    case WV_STR: pq_buf_append(b, "\"STRING\"", 8); return 1;
    case WV_DEC: {
      int p = h->intd + h->scale;
      if (p < 1) p = 1;
      if (p > 38) return 0;
      snprintf(t, sizeof t, "\"DECIMAL(%d,%d)\"", p, h->scale);
      pq_buf_append(b, t, strlen(t));
      return 1;
    }
    case WV_ARR:
      pq_buf_byte(b, '[');
      if (!h->elem || !wv_shape_spec(h->elem, b)) {
        b->len = at;
        return 0;
      }
      pq_buf_byte(b, ']');
      return 1;
    case WV_OBJ: {
      int any = 0;
      pq_buf_byte(b, '{');
      for (int f = 0; f < h->nf; f++) {
        size_t before = b->len;
        if (any) pq_buf_byte(b, ',');
        wv_jstr(b, h->names[f], h->nlen[f]);
        pq_buf_byte(b, ':');
        if (wv_shape_spec(&h->fields[f], b))
          any = 1;
        else
          b->len = before;
      }
      if (!any) {
        b->len = at;
        return 0;
      }
      pq_buf_byte(b, '}');
      return 1;
    }
    default: return 0;
  }
}

int pq_nested_variant_shred(pq_nested *c, const char *spec, size_t len,
                            const char *const *samples,
                            const size_t *sample_lens, int nsamples,
                            pq_buf *msg) {
  msg->len = 0;
  wn_node *t = c->tree;
  pq_json_doc d;
  memset(&d, 0, sizeof d);
  wv_spec s = {&d, msg, 0};
  if (t->kind != PQ_WT_VARIANT)
    return wv_specfail(&s, "\"shred\" is for VARIANT columns");
  size_t at;
  const char *fault;
  int root = pq_json_parse(&d, spec, len, &at, &fault);
  pq_buf auto_spec;
  pq_buf_init(&auto_spec);
  int rc = PQ_OK;
  if (root == -2) rc = PQ_NOMEM;
  else if (root < 0) rc = wv_specfail(&s, "\"shred\": not JSON");
  if (!rc && d.nodes[root].type == PQ_J_STRING &&
      d.nodes[root].str_len == 4 &&
      memcmp(pq_json_text(&d, d.nodes[root].str_off), "auto", 4) == 0) {
    /* the shape the samples share, as a spec */
    wv_shape h;
    memset(&h, 0, sizeof h);
    pq_json_doc sd;
    memset(&sd, 0, sizeof sd);
    for (int i = 0; i < nsamples && !rc; i++) {
      if (!samples[i]) continue;
      int r = pq_json_parse(&sd, samples[i], sample_lens[i], &at, &fault);
      if (r == -2) rc = PQ_NOMEM;
      else if (r >= 0) rc = wv_merge(&h, &sd, r, 0);
    }
    int any = !rc && wv_shape_spec(&h, &auto_spec);
    pq_json_free(&sd);
    wv_shape_free(&h);
    if (auto_spec.oom) rc = PQ_NOMEM;
    if (rc || !any) {
      pq_buf_free(&auto_spec);
      pq_json_free(&d);
      return rc; /* nothing in common: unshredded */
    }
    root = pq_json_parse(&d, (const char *)auto_spec.data, auto_spec.len,
                         &at, &fault);
    if (root < 0) rc = root == -2 ? PQ_NOMEM : PQ_MISUSE;
  }
  if (!rc) {
    wn_node typed;
    rc = wv_typed(&s, root, &typed, 0);
    if (rc) {
      pq_nested_free_node(&typed);
    } else {
      /* replace a typed_value given before */
      if (t->n == 3) pq_nested_free_node(&t->kids[2]);
      t->kids[2] = typed;
      t->n = 3;
      t->kids[1].req = 0;
    }
  }
  if (s.nomem) rc = PQ_NOMEM;
  pq_buf_free(&auto_spec);
  pq_json_free(&d);
  return rc;
}

/* ---- Rows into the leaves ---------------------------------------------------------- */

typedef struct wv_put {
  pq_nested *c;
  pq_vbuild *b;
  pq_error err;
  int rc;
} wv_put;

static void wv_entry(wv_put *s, wn_leaf *l, int rep, int def) {
  uint16_t r = (uint16_t)rep, d = (uint16_t)def;
  pq_buf_append(&l->def, &d, sizeof d);
  pq_buf_append(&l->rep, &r, sizeof r);
  l->nent++;
  if (l->def.oom || l->rep.oom) s->rc = PQ_NOMEM;
}

/* An entry without a value in every leaf under n. */
static void wv_nulls(wv_put *s, const wn_node *n, int rep, int def) {
  if (n->kind < PQ_WT_LIST) {
    wv_entry(s, &s->c->leaves[n->leaf], rep, def);
    return;
  }
  for (int i = 0; i < n->n; i++) wv_nulls(s, &n->kids[i], rep, def);
}

/* A fixed-width value (BOOLEAN, INT32, INT64, DOUBLE). */
static void wv_fixed(wv_put *s, wn_leaf *l, int rep, int def, const void *v,
                     size_t n) {
  pq_buf_append(&l->vals, v, n);
  l->nvals++;
  if (l->vals.oom) s->rc = PQ_NOMEM;
  wv_entry(s, l, rep, def);
}

/* The bytes the leaf's heap took from `from` on, as its next value
** (BYTE_ARRAY: their offset and length; FIXED_LEN_BYTE_ARRAY: their
** offset). */
static void wv_heap_value(wv_put *s, wn_leaf *l, int rep, int def,
                          size_t from) {
  if (l->p.type == PQ_BYTE_ARRAY) {
    pq_bytes b = {(const uint8_t *)(uintptr_t)from, l->heap.len - from};
    pq_buf_append(&l->vals, &b, sizeof b);
  } else {
    pq_buf_append(&l->vals, &from, sizeof from);
  }
  l->nvals++;
  if (l->vals.oom || l->heap.oom) s->rc = PQ_NOMEM;
  wv_entry(s, l, rep, def);
}

/* Node x of the row as a variant value into leaf l (skip: an object's
** shredded fields, left out). */
static void wv_value(wv_put *s, wn_leaf *l, int rep, int def, int x,
                     const wn_node *skip);

static int wv_skip(void *ctx, const uint8_t *name, size_t n) {
  const wn_node *t = ctx;
  for (int i = 0; i < t->n; i++)
    if (strlen(t->kids[i].name) == n && memcmp(t->kids[i].name, name, n) == 0)
      return 1;
  return 0;
}

static void wv_value(wv_put *s, wn_leaf *l, int rep, int def, int x,
                     const wn_node *skip) {
  size_t from = l->heap.len;
  int rc = pq_vbuild_value(s->b, x, skip ? wv_skip : NULL, (void *)skip,
                           &l->heap, &s->err);
  if (rc) {
    s->rc = rc;
    return;
  }
  wv_heap_value(s, l, rep, def, from);
}

/* Whether node x is of scalar leaf t's type: 1 with its value put there. */
static int wv_scalar(wv_put *s, const wn_node *t, int rep, int def, int x) {
  const pq_json_node *j = &s->b->doc.nodes[x];
  wn_leaf *l = &s->c->leaves[t->leaf];
  const char *raw = s->b->doc.src + j->at;
  switch (t->t.kind) {
    case PQ_WT_BOOLEAN: {
      if (j->type != PQ_J_TRUE && j->type != PQ_J_FALSE) return 0;
      uint8_t v = j->type == PQ_J_TRUE;
      wv_fixed(s, l, rep, def, &v, 1);
      return 1;
    }
    case PQ_WT_INT32:
    case PQ_WT_INT64: {
      int64_t v;
      if (j->type != PQ_J_NUMBER || !pq_vbuild_int(raw, j->len, &v)) return 0;
      if (t->t.kind == PQ_WT_INT64) {
        wv_fixed(s, l, rep, def, &v, 8);
        return 1;
      }
      if (v < INT32_MIN || v > INT32_MAX) return 0;
      int32_t w = (int32_t)v;
      wv_fixed(s, l, rep, def, &w, 4);
      return 1;
    }
    case PQ_WT_DOUBLE: {
      int scale, digits;
      double v;
      if (j->type != PQ_J_NUMBER ||
          pq_vbuild_number_kind(raw, j->len, &scale, &digits) != PQ_VB_DOUBLE)
        return 0;
      if (!pq_vbuild_double(raw, j->len, &v)) {
        s->rc = PQ_NOMEM;
        return 1;
      }
      wv_fixed(s, l, rep, def, &v, 8);
      return 1;
    }
    case PQ_WT_DECIMAL: {
      __int128 v;
      if (j->type != PQ_J_NUMBER ||
          !pq_vbuild_decimal(raw, j->len, t->t.precision, t->t.scale, &v))
        return 0;
      if (l->p.type == PQ_INT32) {
        int32_t w = (int32_t)v;
        wv_fixed(s, l, rep, def, &w, 4);
      } else if (l->p.type == PQ_INT64) {
        int64_t w = (int64_t)v;
        wv_fixed(s, l, rep, def, &w, 8);
      } else { /* big-endian two's complement, type_length bytes */
        size_t from = l->heap.len;
        uint8_t be[32];
        int32_t n = l->p.type_length; /* at most 16: precision <= 38 */
        for (int32_t i = 0; i < n; i++)
          be[n - 1 - i] = (uint8_t)(v >> (8 * i));
        pq_buf_append(&l->heap, be, (size_t)n);
        wv_heap_value(s, l, rep, def, from);
      }
      return 1;
    }
    case PQ_WT_STRING: {
      if (j->type != PQ_J_STRING) return 0;
      size_t from = l->heap.len;
      pq_buf_append(&l->heap, pq_json_text(&s->b->doc, j->str_off), j->str_len);
      wv_heap_value(s, l, rep, def, from);
      return 1;
    }
    default:
      return 0;
  }
}

/* Node x (-1: missing) into the pair g: its value leaf g->kids[vk] and its
** typed_value g->kids[vk + 1], if any; def the level at which g is
** there. */
static void wv_shred(wv_put *s, const wn_node *g, int vk, int x, int rep,
                     int def) {
  if (s->rc) return;
  const wn_node *v = &g->kids[vk];
  wn_leaf *vl = &s->c->leaves[v->leaf];
  const wn_node *t = g->n > vk + 1 ? &g->kids[vk + 1] : NULL;
  if (x < 0) { /* missing: both null */
    wv_entry(s, vl, rep, def);
    if (t) wv_nulls(s, t, rep, def);
    return;
  }
  if (!t) {
    wv_value(s, vl, rep, def + !v->req, x, NULL);
    return;
  }
  const pq_json_doc *d = &s->b->doc;
  const pq_json_node *j = &d->nodes[x];
  if (t->kind < PQ_WT_LIST) {
    if (wv_scalar(s, t, rep, def + 1, x)) {
      wv_entry(s, vl, rep, def);
      return;
    }
  } else if (t->kind == PQ_WT_STRUCT && j->type == PQ_J_OBJECT) {
    int rest = 0;
    for (int m = j->first; m >= 0; m = d->nodes[m].next)
      if (!wv_skip((void *)t, pq_json_text(d, d->nodes[m].key_off),
                   d->nodes[m].key_len))
        rest = 1;
    if (rest)
      wv_value(s, vl, rep, def + 1, x, t);
    else
      wv_entry(s, vl, rep, def);
    for (int f = 0; f < t->n; f++) {
      const wn_node *fg = &t->kids[f];
      size_t fl = strlen(fg->name);
      int found = -1;
      for (int m = j->first; m >= 0 && found < 0; m = d->nodes[m].next)
        if (d->nodes[m].key_len == fl &&
            memcmp(pq_json_text(d, d->nodes[m].key_off), fg->name, fl) == 0)
          found = m;
      wv_shred(s, fg, 0, found, rep, def + 1);
    }
    return;
  } else if (t->kind == PQ_WT_LIST && j->type == PQ_J_ARRAY) {
    wv_entry(s, vl, rep, def);
    if (j->n == 0) { /* the list there, no element */
      wv_nulls(s, &t->kids[0], rep, def + 1);
      return;
    }
    int k = 0;
    for (int m = j->first; m >= 0; m = d->nodes[m].next, k++)
      wv_shred(s, &t->kids[0], 0, m, k ? t->rep : rep, def + 2);
    return;
  }
  /* not of the typed type: the value alone */
  wv_value(s, vl, rep, def + 1, x, NULL);
  wv_nulls(s, t, rep, def);
}

int pq_variant_col_put(pq_nested *c, const char *text, size_t n, pq_buf *msg) {
  wv_put s;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.b = &c->vb;
  const wn_node *t = c->tree;
  if (!text) {
    wv_nulls(&s, t, 0, 0);
    return s.rc;
  }
  int root;
  int rc = pq_vbuild_parse(s.b, text, n, &root, &s.err);
  /* the whole value first: a name twice, a string not UTF-8, anywhere */
  wn_leaf *vl = &c->leaves[t->kids[1].leaf];
  size_t from = vl->heap.len;
  if (!rc) rc = pq_vbuild_value(s.b, root, NULL, NULL, &vl->heap, &s.err);
  if (rc) {
    if (rc == PQ_NOMEM) return PQ_NOMEM;
    msg->len = 0;
    pq_buf_append(msg, s.err.msg, strlen(s.err.msg) + 1);
    return msg->oom ? PQ_NOMEM : rc;
  }
  wn_leaf *ml = &c->leaves[t->kids[0].leaf];
  size_t mfrom = ml->heap.len;
  rc = pq_vbuild_meta(s.b, &ml->heap, &s.err);
  if (rc) return rc;
  wv_heap_value(&s, ml, 0, 1, mfrom);
  if (t->n == 2) { /* unshredded: the value just made */
    wv_heap_value(&s, vl, 0, 1, from);
    return s.rc;
  }
  vl->heap.len = from;
  wv_shred(&s, t, 1, root, 0, 1);
  if (s.rc == PQ_NOMEM) return PQ_NOMEM;
  if (s.rc) {
    msg->len = 0;
    pq_buf_append(msg, s.err.msg, strlen(s.err.msg) + 1);
    return msg->oom ? PQ_NOMEM : s.rc;
  }
  return PQ_OK;
}
