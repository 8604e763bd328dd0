/*
** assemble.c -- a whole file as JSON: rows rebuilt from the columns'
** repetition and definition levels (Dremel's record assembly), lists and
** maps read as spec/LogicalTypes.md describes them, and values written
** with their logical types.
**
**   [{"id":1,"tags":["a","b"],"point":{"x":1.0,"y":2.0}}, ...]
**
** One row group at a time: each leaf column is read whole (its levels, and
** its values already as JSON text), then rows are cut out of them.  Every
** row must start at repetition level 0 and every column must end with the
** row group's last row.
*/
#include "reader.h"

#include <math.h>
#include <stdio.h>

typedef struct leaf_data {
  const pq_schema_node *node;
  uint16_t *rep, *def;
  size_t n, cap;             /* entries */
  pq_buf text;               /* the values as JSON, back to back */
  size_t *voff;              /* value i is text[voff[i] .. voff[i+1]) */
  size_t nv, vcap;
  size_t pos, vpos;          /* cursors: next entry, next value */
  int variant;               /* inside a VARIANT: VAR_LEAF_RAW, _TYPED */
} leaf_data;

/* The leaves of a VARIANT group: its binary metadata and value columns
** are kept as their bytes, its typed_value columns as JSON in the
** variant's own forms (variant.c). */
enum { VAR_LEAF_NONE = 0, VAR_LEAF_RAW = 1, VAR_LEAF_TYPED = 2 };

typedef struct asm_ctx {
  const pq_file *f;
  leaf_data *leaves;
  uint32_t *lo, *hi;         /* leaf range of each schema node */
  const pq_schema_node *nodes;
  pq_buf *out;
  pq_error *err;
  int rc;                    /* the first fault */
  uint32_t row_group;
  int64_t row;               /* the row being assembled, for messages */
  pq_read_room *room;        /* the memory each leaf's reader reads into,
                             ** passed from one to the next (or NULL) */
} asm_ctx;

static uint32_t node_index(const asm_ctx *a, const pq_schema_node *n) {
  return (uint32_t)(n - a->nodes);
}

static int fail(asm_ctx *a, const char *fmt, ...) PQ_PRINTF(2, 3);
static int fail(asm_ctx *a, const char *fmt, ...) {
  if (a->rc) return a->rc;
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  a->rc = pq_fail(a->err, PQ_CORRUPT, "row group", "%u: %s", a->row_group,
                  msg);
  return a->rc;
}

/* ---- Values in JSON, by logical type ------------------------------------ */

static void put(pq_buf *b, const char *s) { pq_buf_append(b, s, strlen(s)); }

static void put_quoted(pq_buf *b, const char *s, size_t n) {
  pq_buf_byte(b, '"');
  pq_buf_append(b, s, n);
  pq_buf_byte(b, '"');
}

/* Appends value v (laid out as the column's type) as JSON: decimals as
** numbers of all their digits, dates and times as strings. */
static void put_value(pq_buf *b, const pq_schema_element *e,
                      const pq_meaning *m, const void *v) {
  char s[PQ_CELL_SCRATCH];
  switch (m->as) {
    case PQ_AS_DECIMAL: {
      uint8_t be[16];
      const uint8_t *p = be;
      size_t n = 0;
      if (e->type == PQ_INT32 || e->type == PQ_INT64) {
        int64_t x = e->type == PQ_INT32 ? *(const int32_t *)v
                                        : *(const int64_t *)v;
        for (int i = 0; i < 8; i++)
          be[i] = (uint8_t)((uint64_t)x >> (56 - 8 * i));
        n = 8;
      } else if (e->type == PQ_FIXED_LEN_BYTE_ARRAY) {
        p = v;
        n = (size_t)e->type_length;
      } else {
        p = ((const pq_bytes *)v)->ptr;
        n = ((const pq_bytes *)v)->len;
      }
      if (!pq_decimal_fits_text(p, n)) break; /* (hex, as bytes are) */
      pq_buf_append(b, s, pq_text_decimal(s, sizeof s, p, n, m->scale));
      return;
    }
    case PQ_AS_DATE:
    case PQ_AS_TIMESTAMP:
    case PQ_AS_TIME:
    case PQ_AS_INT96:
    case PQ_AS_INTERVAL:
    case PQ_AS_UUID: {
      pq_cell c;
      pq_cell_convert(e, m, 0, v, s, &c);
      put_quoted(b, s, c.n);
      return;
    }
    case PQ_AS_UNSIGNED: {
      uint64_t x = e->type == PQ_INT32 ? (uint32_t) * (const int32_t *)v
                                       : (uint64_t) * (const int64_t *)v;
      snprintf(s, sizeof s, "%llu", (unsigned long long)x);
      put(b, s);
      return;
    }
    case PQ_AS_FLOAT16: {
      const uint8_t *p = v;
      double d = pq_half_to_double((uint16_t)(p[0] | p[1] << 8));
      pq_json_values(b, PQ_DOUBLE, 0, 0, &d, 1, 0);
      return;
    }
    default:
      break;
  }
  /* WKB: hex, as other bytes, even where its bytes happen to be UTF-8 */
  pq_json_values(b, e->type, e->type_length, m->as == PQ_AS_WKB, v, 1, 0);
}

/* A typed_value of a shredded VARIANT, as the variant's JSON has it
** (parquet.h): binary as hex whatever its bytes, NaN as "NaN"; the rest as
** put_value() writes it. */
static void put_variant_value(pq_buf *b, const pq_schema_element *e,
                              const pq_meaning *m, const void *v) {
  if (m->as == PQ_AS_PLAIN && e->type == PQ_BYTE_ARRAY) {
    pq_json_values(b, PQ_BYTE_ARRAY, 0, 1, v, 1, 0);
    return;
  }
  if ((e->type == PQ_FLOAT && isnan(*(const float *)v)) ||
      (e->type == PQ_DOUBLE && isnan(*(const double *)v))) {
    put(b, "\"NaN\"");
    return;
  }
  put_value(b, e, m, v);
}

/* ---- Loading a row group's columns -------------------------------------- */

static int grow(void **p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap) return PQ_OK;
  size_t c = *cap ? *cap * 2 : 1024;
  while (c < need) c *= 2;
  void *q = pq_realloc(*p, c * size);
  if (!q) return PQ_NOMEM;
  *p = q;
  *cap = c;
  return PQ_OK;
}

static int load_leaf(asm_ctx *a, uint32_t col, size_t limit, leaf_data *L) {
  const pq_schema_node *leaf = pq_file_leaf(a->f, col);
  const pq_schema_element *e = leaf->elem;
  L->node = leaf;
  pq_column_reader *r;
  int rc = pq_column_reader_open(&r, a->f, a->row_group, col, limit, a->err);
  if (rc) return rc;
  if (a->room) pq_column_reader_swap_room(r, a->room);
  size_t vs = pq_value_size(e->type, e->type_length);
  pq_meaning meaning = pq_meaning_of(e);
  uint8_t *vals = pq_malloc(256 * vs);
  uint16_t rep[256], def[256];
  if (!vals) rc = pq_nomem(a->err, "assemble");
  while (rc == PQ_OK) {
    size_t n, nv;
    rc = pq_column_reader_read(r, 256, rep, def, vals, &n, &nv, a->err);
    if (rc || n == 0) break;
    size_t cap2 = L->cap;
    if (grow((void **)&L->rep, &L->cap, L->n + n, sizeof *L->rep) ||
        grow((void **)&L->def, &cap2, L->n + n, sizeof *L->def) ||
        grow((void **)&L->voff, &L->vcap, L->nv + nv + 1, sizeof *L->voff)) {
      rc = pq_nomem(a->err, "assemble");
      break;
    }
    memcpy(L->rep + L->n, rep, n * sizeof *rep);
    memcpy(L->def + L->n, def, n * sizeof *def);
    L->n += n;
    for (size_t i = 0; i < nv; i++) {
      L->voff[L->nv++] = L->text.len;
      const void *v = vals + i * vs;
      if (L->variant == VAR_LEAF_RAW) {
        const pq_bytes *b = v;
        pq_buf_append(&L->text, b->ptr, b->len);
      } else if (L->variant == VAR_LEAF_TYPED) {
        put_variant_value(&L->text, e, &meaning, v);
      } else {
        put_value(&L->text, e, &meaning, v);
      }
    }
    if (L->text.len > limit) {
      rc = pq_fail(a->err, PQ_TOOBIG, "assemble",
                   "column '%s' as JSON exceeds the limit of %zu bytes",
                   leaf->path, limit);
    }
    if (L->text.oom) rc = pq_nomem(a->err, "assemble");
  }
  if (L->voff) L->voff[L->nv] = L->text.len;
  pq_free(vals);
  if (a->room) pq_column_reader_swap_room(r, a->room);
  pq_column_reader_free(r);
  return rc;
}

static void free_leaf(leaf_data *L) {
  pq_free(L->rep);
  pq_free(L->def);
  pq_free(L->voff);
  pq_buf_free(&L->text);
  memset(L, 0, sizeof *L);
}

/* ---- Assembly -------------------------------------------------------------- */

/* The current entry of the node's first leaf. */
static int peek(asm_ctx *a, const pq_schema_node *n, uint16_t *r,
                uint16_t *d) {
  uint32_t i = node_index(a, n);
  if (a->lo[i] > a->hi[i]) { /* a group without leaves */
    *r = *d = 0;
    return 0;
  }
  leaf_data *L = &a->leaves[a->lo[i]];
  if (L->pos >= L->n) {
    fail(a, "column '%s' ends before the row group's rows do",
         L->node->path);
    return -1;
  }
  *r = L->rep[L->pos];
  *d = L->def[L->pos];
  return 1;
}

/* Whether the node's first leaf has another entry, and its repetition
** level: the end of a column is no fault here. */
static int peek_more(asm_ctx *a, const pq_schema_node *n, uint16_t *r) {
  uint32_t i = node_index(a, n);
  if (a->lo[i] > a->hi[i]) return 0;
  leaf_data *L = &a->leaves[a->lo[i]];
  if (L->pos >= L->n) return 0;
  *r = L->rep[L->pos];
  return 1;
}

/* Consumes one entry of every leaf below n: a null or empty instance. */
static void skip_instance(asm_ctx *a, const pq_schema_node *n) {
  uint32_t i = node_index(a, n);
  for (uint32_t k = a->lo[i]; k <= a->hi[i] && k < UINT32_MAX; k++) {
    leaf_data *L = &a->leaves[k];
    if (L->pos >= L->n) {
      fail(a, "column '%s' ends before the row group's rows do",
           L->node->path);
      return;
    }
    L->pos++;
  }
}

static void emit_child(asm_ctx *a, const pq_schema_node *n);
static void emit_present(asm_ctx *a, const pq_schema_node *n);

static void put_key(pq_buf *out, pq_bytes name) {
  pq_bytes b = name;
  pq_json_values(out, PQ_BYTE_ARRAY, 0, 0, &b, 1, 0);
  pq_buf_byte(out, ':');
}

/* An instance of the repeated node r, as a list: each element is r itself
** (self) or, for the usual 3-level lists, r's one child. */
static void emit_list(asm_ctx *a, const pq_schema_node *r, int self) {
  uint16_t rep, def;
  if (peek(a, r, &rep, &def) < 0) return;
  if (def < r->max_def) {
    put(a->out, "[]");
    skip_instance(a, r);
    return;
  }
  pq_buf_byte(a->out, '[');
  for (int first = 1; !a->rc; first = 0) {
    if (!first) pq_buf_byte(a->out, ',');
    if (self) {
      emit_present(a, r);
    } else {
      emit_child(a, r->children[0]);
    }
    if (!peek_more(a, r, &rep) || rep != r->max_rep) break;
  }
  pq_buf_byte(a->out, ']');
}

/* A map: the repeated key_value group kv, as a JSON object whose keys are
** the keys' JSON text (strings as they are). */
static void emit_map(asm_ctx *a, const pq_schema_node *kv) {
  uint16_t rep, def;
  if (peek(a, kv, &rep, &def) < 0) return;
  if (def < kv->max_def) {
    put(a->out, "{}");
    skip_instance(a, kv);
    return;
  }
  pq_buf *out = a->out, key;
  pq_buf_init(&key);
  pq_buf_byte(out, '{');
  for (int first = 1; !a->rc; first = 0) {
    if (!first) pq_buf_byte(out, ',');
    key.len = 0;
    a->out = &key;
    emit_child(a, kv->children[0]);
    a->out = out;
    if (key.len && key.data[0] == '"') {
      pq_buf_append(out, key.data, key.len);
    } else {
      pq_bytes k = {key.data ? key.data : (const uint8_t *)"", key.len};
      pq_json_values(out, PQ_BYTE_ARRAY, 0, 0, &k, 1, 0);
    }
    pq_buf_byte(out, ':');
    if (kv->n_children > 1) {
      emit_child(a, kv->children[1]);
    } else {
      put(out, "null");
    }
    if (!peek_more(a, kv, &rep) || rep != kv->max_rep) break;
  }
  pq_buf_free(&key);
  pq_buf_byte(out, '}');
}

static void emit_variant(asm_ctx *a, const pq_schema_node *n);

static int annotated(const pq_schema_node *n, int conv, int logical) {
  return n->elem->converted_type == conv || n->elem->logical_type == logical;
}

/* An instance of n known to be there (its definition level reached). */
static void emit_present(asm_ctx *a, const pq_schema_node *n) {
  if (n->leaf >= 0) {
    leaf_data *L = &a->leaves[n->leaf];
    if (L->pos >= L->n) {
      fail(a, "column '%s' ends before the row group's rows do", n->path);
      return;
    }
    if (L->def[L->pos] != n->max_def || L->vpos >= L->nv) {
      fail(a, "column '%s': entry %zu has definition level %u where a value "
           "is due",
           n->path, L->pos, L->def[L->pos]);
      return;
    }
    pq_buf_append(a->out, L->text.data + L->voff[L->vpos],
                  L->voff[L->vpos + 1] - L->voff[L->vpos]);
    L->pos++;
    L->vpos++;
    return;
  }
  if (n->elem->logical_type == 16) {
    emit_variant(a, n);
    return;
  }
  const pq_schema_node *c0 = n->n_children == 1 ? n->children[0] : NULL;
  if (annotated(n, 3, 3) && c0 && c0->elem->repetition == 2) {
    /* LIST: which level is the element (LogicalTypes.md, backward
    ** compatibility rules 1 to 5). */
    int self = c0->leaf >= 0 || c0->n_children > 1 ||
               (c0->n_children == 1 && c0->children[0]->elem->repetition == 2);
    if (!self && c0->n_children == 1) {
      const pq_bytes *nm = &c0->elem->name, *pn = &n->elem->name;
      if ((nm->len == 5 && memcmp(nm->ptr, "array", 5) == 0) ||
          (nm->len == pn->len + 6 && memcmp(nm->ptr, pn->ptr, pn->len) == 0 &&
           memcmp(nm->ptr + pn->len, "_tuple", 6) == 0))
        self = 1;
    }
    emit_list(a, c0, self || c0->n_children == 0);
    return;
  }
  int conv = n->elem->converted_type;
  if ((conv == 1 || conv == 2 || n->elem->logical_type == 2) && c0 &&
      c0->elem->repetition == 2 && c0->n_children >= 1 &&
      c0->n_children <= 2) {
    emit_map(a, c0);
    return;
  }
  pq_buf_byte(a->out, '{');
  for (uint32_t i = 0; i < n->n_children && !a->rc; i++) {
    if (i) pq_buf_byte(a->out, ',');
    put_key(a->out, n->children[i]->elem->name);
    emit_child(a, n->children[i]);
  }
  pq_buf_byte(a->out, '}');
}

/* An instance of n inside a present parent: null, a list of repeated
** instances, or the value. */
static void emit_child(asm_ctx *a, const pq_schema_node *n) {
  if (n->elem->repetition == 2) {
    emit_list(a, n, 1);
    return;
  }
  if (n->elem->repetition == 1) {
    uint16_t rep, def;
    int got = peek(a, n, &rep, &def);
    if (got < 0) return;
    if (got && def < n->max_def) {
      put(a->out, "null");
      skip_instance(a, n);
      return;
    }
  }
  emit_present(a, n);
}

/* ---- VARIANT ---------------------------------------------------------------
** A VARIANT group is one JSON value: its value column decoded with its
** metadata (variant.c) and, when shredded, its typed_value put back as
** spec/VariantShredding.md says: a primitive, an array of elements that
** are (value, typed_value) pairs again, or an object whose shredded fields
** are such pairs, merged with the fields its value holds. */

static const pq_schema_node *child_named(const pq_schema_node *n,
                                         const char *name) {
  size_t len = strlen(name);
  for (uint32_t i = 0; i < n->n_children; i++) {
    const pq_bytes *nm = &n->children[i]->elem->name;
    if (nm->len == len && memcmp(nm->ptr, name, len) == 0)
      return n->children[i];
  }
  return NULL;
}

/* Takes the current entry of the leaf n: 1 with its bytes (a value), 0
** for a null, -1 on a fault. */
static int leaf_take(asm_ctx *a, const pq_schema_node *n, const uint8_t **p,
                     size_t *len) {
  leaf_data *L = &a->leaves[n->leaf];
  if (L->pos >= L->n) {
    fail(a, "column '%s', row %lld ends before the row group's rows do",
         n->path, (long long)a->row);
    return -1;
  }
  if (L->def[L->pos++] < n->max_def) return 0;
  if (L->vpos >= L->nv) {
    fail(a, "column '%s', row %lld has fewer values than its levels say",
         n->path, (long long)a->row);
    return -1;
  }
  *p = L->text.data ? L->text.data + L->voff[L->vpos] : (const uint8_t *)"";
  *len = L->voff[L->vpos + 1] - L->voff[L->vpos];
  L->vpos++;
  return 1;
}

/* A fault of the variant's bytes, with the column it is in. */
static void variant_fail(asm_ctx *a, const pq_schema_node *n,
                         const pq_error *e) {
  if (e->code == PQ_NOMEM) {
    if (!a->rc) a->rc = pq_nomem(a->err, "assemble");
    return;
  }
  fail(a, "column '%s', row %lld: %s", n->path, (long long)a->row, e->msg);
}

static int variant_emit(asm_ctx *a, const pq_variant_meta *m,
                        const pq_schema_node *val, const pq_schema_node *typ,
                        int depth);

/* One field or element of a shredded object or array, as its JSON: 1, or 0
** when it is missing. */
static int variant_pair(asm_ctx *a, const pq_variant_meta *m,
                        const pq_schema_node *g, int depth) {
  if (g->leaf >= 0) {
    fail(a,
         "column '%s', row %lld: a shredded field of a VARIANT is a group of "
         "value "
         "and typed_value, not a leaf",
         g->path, (long long)a->row);
    return 0;
  }
  const pq_schema_node *v = child_named(g, "value"),
                       *t = child_named(g, "typed_value");
  if ((!v && !t) || (v && v->leaf < 0)) {
    fail(a,
         "column '%s', row %lld: a shredded field of a VARIANT needs a binary "
         "value "
         "or a typed_value",
         g->path, (long long)a->row);
    return 0;
  }
  return variant_emit(a, m, v, t, depth + 1);
}

/* A shredded array: typ is a LIST of required groups (value, typed_value). */
static void variant_list(asm_ctx *a, const pq_variant_meta *m,
                         const pq_schema_node *typ, int depth) {
  const pq_schema_node *r = typ->n_children == 1 ? typ->children[0] : NULL;
  if (!r || r->elem->repetition != 2 || r->n_children != 1) {
    fail(a,
         "column '%s', row %lld: a shredded VARIANT array is a LIST of one "
         "repeated group of one element",
         typ->path, (long long)a->row);
    return;
  }
  uint16_t rep, def;
  if (peek(a, r, &rep, &def) < 0) return;
  if (def < r->max_def) {
    put(a->out, "[]");
    skip_instance(a, r);
    return;
  }
  pq_buf_byte(a->out, '[');
  for (int first = 1; !a->rc; first = 0) {
    if (!first) pq_buf_byte(a->out, ',');
    if (!variant_pair(a, m, r->children[0], depth) && !a->rc)
      put(a->out, "null"); /* missing where a value is due: the null */
    if (!peek_more(a, r, &rep) || rep != r->max_rep) break;
  }
  pq_buf_byte(a->out, ']');
}

/* A shredded field that is missing: it is no field of the object, but a
** field of the same name in the value is still a fault (the file would
** mean two things). */
#define VAR_MISSING ((size_t)-1)

typedef struct var_field {
  pq_bytes name;
  size_t at, len; /* its JSON in the scratch buffer */
} var_field;

static int var_field_cmp(const void *x, const void *y) {
  const var_field *p = x, *q = y;
  size_t k = p->name.len < q->name.len ? p->name.len : q->name.len;
  int c = k ? memcmp(p->name.ptr, q->name.ptr, k) : 0;
  if (c) return c;
  return p->name.len < q->name.len ? -1 : p->name.len > q->name.len;
}

/* A shredded object: typ's fields, and those of the value v[0..vn) when
** it is partially shredded (vn > 0), in the order of their names. */
static void variant_object(asm_ctx *a, const pq_variant_meta *m,
                           const pq_schema_node *typ, const uint8_t *v,
                           size_t vn, int depth) {
  pq_variant_container c;
  pq_error e;
  memset(&c, 0, sizeof c);
  if (v && (v[0] & 3) == PQ_VARIANT_OBJECT &&
      pq_variant_container_open(&c, v, vn, 0, &e)) {
    variant_fail(a, typ, &e);
    return;
  }
  if (v && (v[0] & 3) != PQ_VARIANT_OBJECT) {
    fail(a,
         "column '%s', row %lld: the value beside a shredded object is not an "
         "object",
         typ->path, (long long)a->row);
    return;
  }
  size_t nf = (size_t)typ->n_children + c.count;
  var_field *f = pq_malloc((nf ? nf : 1) * sizeof *f);
  pq_buf scratch, *out = a->out;
  pq_buf_init(&scratch);
  if (!f) {
    if (!a->rc) a->rc = pq_nomem(a->err, "assemble");
    return;
  }
  size_t k = 0;
  a->out = &scratch;
  for (uint32_t i = 0; i < typ->n_children && !a->rc; i++) {
    size_t at = scratch.len;
    int got = variant_pair(a, m, typ->children[i], depth);
    f[k].name = typ->children[i]->elem->name;
    f[k].at = at;
    f[k++].len = got ? scratch.len - at : VAR_MISSING;
  }
  for (uint32_t i = 0; i < c.count && !a->rc; i++) {
    const uint8_t *ev;
    size_t en, eat, at = scratch.len;
    if (pq_variant_container_get(&c, m, i, &f[k].name, &ev, &en, &eat, &e) ||
        pq_variant_to_json(m, ev, en, eat, &scratch, &e)) {
      variant_fail(a, typ, &e);
      break;
    }
    f[k].at = at;
    f[k++].len = scratch.len - at;
  }
  a->out = out;
  if (!a->rc && scratch.oom) a->rc = pq_nomem(a->err, "assemble");
  if (!a->rc) {
    qsort(f, k, sizeof *f, var_field_cmp);
    pq_buf_byte(out, '{');
    for (size_t i = 0, first = 1; i < k && !a->rc; i++) {
      if (i && var_field_cmp(&f[i - 1], &f[i]) == 0) {
        fail(a,
             "column '%s', row %lld: field \"%.*s\" is both shredded "
             "and in the value",
             typ->path, (long long)a->row,
             (int)(f[i].name.len < 64 ? f[i].name.len : 64),
             (const char *)f[i].name.ptr);
        break;
      }
      if (f[i].len == VAR_MISSING) continue;
      if (!first) pq_buf_byte(out, ',');
      first = 0;
      put_key(out, f[i].name);
      pq_buf_append(out, scratch.data + f[i].at, f[i].len);
    }
    pq_buf_byte(out, '}');
  }
  pq_buf_free(&scratch);
  pq_free(f);
}

/* The value of a (value, typed_value) pair, either of which may be absent
** from the schema: 1 when written, 0 when missing. */
static int variant_emit(asm_ctx *a, const pq_variant_meta *m,
                        const pq_schema_node *val, const pq_schema_node *typ,
                        int depth) {
  const uint8_t *v = NULL;
  size_t vn = 0;
  int has_v = 0;
  if (depth > 64) {
    fail(a,
         "column '%s', row %lld: a shredded VARIANT nested more than 64 deep",
         (typ ? typ : val)->path, (long long)a->row);
    return 0;
  }
  if (val) {
    has_v = leaf_take(a, val, &v, &vn);
    if (has_v < 0) return 0;
  }
  if (typ && typ->leaf >= 0 && a->leaves[typ->leaf].variant != VAR_LEAF_TYPED) {
    fail(
        a,
        "column '%s', row %lld: a typed_value of %s with its annotation cannot "
        "hold a variant value",
        typ->path, (long long)a->row, pq_type_name(typ->elem->type));
    return 0;
  }
  if (typ) {
    uint16_t rep, def;
    int got = peek(a, typ, &rep, &def);
    if (got < 0) return 0;
    if (got && def < typ->max_def) {
      skip_instance(a, typ);
    } else if (typ->leaf >= 0) {
      if (has_v) {
        fail(a,
             "column '%s', row %lld: both value and typed_value are set, and "
             "the "
             "value is not an object",
             typ->path, (long long)a->row);
        return 0;
      }
      emit_present(a, typ);
      return 1;
    } else if (annotated(typ, 3, 3)) {
      if (has_v) {
        fail(a,
             "column '%s', row %lld: both value and typed_value are set, and "
             "the "
             "value is not an object",
             typ->path, (long long)a->row);
        return 0;
      }
      variant_list(a, m, typ, depth);
      return 1;
    } else {
      variant_object(a, m, typ, has_v ? v : NULL, vn, depth);
      return 1;
    }
  }
  if (has_v) {
    pq_error e;
    if (pq_variant_to_json(m, v, vn, 0, a->out, &e)) {
      variant_fail(a, val, &e);
      return 0;
    }
    return 1;
  }
  return 0;
}

/* A VARIANT group known to be there. */
static void emit_variant(asm_ctx *a, const pq_schema_node *n) {
  const pq_schema_node *meta = child_named(n, "metadata"),
                       *val = child_named(n, "value"),
                       *typ = child_named(n, "typed_value");
  if (!meta || meta->leaf < 0 || meta->elem->type != PQ_BYTE_ARRAY ||
      (val && (val->leaf < 0 || val->elem->type != PQ_BYTE_ARRAY)) ||
      (!val && !typ)) {
    fail(a,
         "column '%s', row %lld: a VARIANT group needs a binary metadata and a "
         "binary value or a typed_value",
         n->path, (long long)a->row);
    return;
  }
  const uint8_t *p;
  size_t len;
  int got = leaf_take(a, meta, &p, &len);
  if (got <= 0) {
    if (got == 0)
      fail(a, "column '%s', row %lld is null in a present VARIANT", meta->path,
           (long long)a->row);
    return;
  }
  pq_variant_meta m;
  pq_error e;
  if (pq_variant_meta_open(&m, p, len, &e)) {
    variant_fail(a, meta, &e);
    return;
  }
  if (!variant_emit(a, &m, val, typ, 0) && !a->rc)
    put(a->out, "null"); /* missing: the variant null */
}

/* Marks the leaves of VARIANT groups below n (inside: n is in one). */
static void variant_leaves(asm_ctx *a, const pq_schema_node *n, int inside) {
  if (n->elem->logical_type == 16 && n->leaf < 0) inside = 1;
  if (n->leaf >= 0) {
    if (!inside) return;
    const pq_bytes *nm = &n->elem->name;
    const pq_schema_element *e = n->elem;
    int raw = e->type == PQ_BYTE_ARRAY &&
              ((nm->len == 5 && memcmp(nm->ptr, "value", 5) == 0) ||
               (nm->len == 8 && memcmp(nm->ptr, "metadata", 8) == 0));
    int as = pq_leaf_meaning(e, &(int){0}, &(int){0}, &(int){0});
    int typed = e->type != PQ_INT96 && as != PQ_AS_UNSIGNED &&
                as != PQ_AS_INT96 && as != PQ_AS_FLOAT16 &&
                as != PQ_AS_INTERVAL &&
                !(e->type == PQ_FIXED_LEN_BYTE_ARRAY && as == PQ_AS_PLAIN);
    a->leaves[n->leaf].variant = raw     ? VAR_LEAF_RAW
                                 : typed ? VAR_LEAF_TYPED
                                         : VAR_LEAF_NONE;
    return;
  }
  for (uint32_t i = 0; i < n->n_children; i++)
    variant_leaves(a, n->children[i], inside);
}

/* The leaf range of every node. */
static void leaf_ranges(asm_ctx *a, const pq_schema_node *n) {
  uint32_t i = node_index(a, n);
  if (n->leaf >= 0) {
    a->lo[i] = a->hi[i] = (uint32_t)n->leaf;
    return;
  }
  a->lo[i] = UINT32_MAX;
  a->hi[i] = 0;
  for (uint32_t c = 0; c < n->n_children; c++) {
    leaf_ranges(a, n->children[c]);
    uint32_t k = node_index(a, n->children[c]);
    if (a->lo[k] <= a->hi[k]) {
      if (a->lo[k] < a->lo[i]) a->lo[i] = a->lo[k];
      if (a->hi[k] > a->hi[i]) a->hi[i] = a->hi[k];
    }
  }
  if (a->lo[i] == UINT32_MAX) a->lo[i] = 1, a->hi[i] = 0; /* empty */
}

/* ---- Row groups, row by row --------------------------------------------------- */

struct pq_assembler {
  asm_ctx a;
  const pq_schema_node *field; /* NULL: every top-level field, an object */
  int64_t rows, row;
  uint32_t lo, hi;             /* the leaves loaded */
};

int pq_assembler_open(pq_assembler **out, const pq_file *f,
                      uint32_t row_group, const pq_schema_node *field,
                      size_t limit, pq_read_room *room, pq_error *err) {
  const pq_file_meta *m = pq_file_metadata(f);
  const pq_schema_node *root = pq_file_schema(f);
  uint32_t nleaves = pq_file_leaf_count(f);
  *out = NULL;
  pq_assembler *as = pq_calloc(1, sizeof *as);
  if (!as) return pq_nomem(err, "assemble");
  asm_ctx *a = &as->a;
  a->f = f;
  a->nodes = root;
  a->err = err;
  a->row_group = row_group;
  a->room = room;
  a->lo = pq_calloc(m->n_schema, sizeof *a->lo);
  a->hi = pq_calloc(m->n_schema, sizeof *a->hi);
  a->leaves = pq_calloc(nleaves ? nleaves : 1, sizeof *a->leaves);
  if (!a->lo || !a->hi || !a->leaves) {
    pq_assembler_free(as);
    return pq_nomem(err, "assemble");
  }
  leaf_ranges(a, root);
  variant_leaves(a, root, 0);
  as->field = field;
  as->rows = m->row_groups[row_group].num_rows;
  uint32_t k = node_index(a, field ? field : root);
  as->lo = a->lo[k];
  as->hi = a->hi[k];
  for (uint32_t c = as->lo; c <= as->hi && c < nleaves && !a->rc; c++)
    a->rc = load_leaf(a, c, limit, &a->leaves[c]);
  a->room = NULL; /* the caller's again */
  int rc = a->rc;
  if (rc) {
    pq_assembler_free(as);
    return rc;
  }
  *out = as;
  return PQ_OK;
}

/* Checks that a field's instance starts a row, at repetition level 0. */
static int row_start(pq_assembler *as, const pq_schema_node *n) {
  asm_ctx *a = &as->a;
  uint16_t rep, def;
  if (peek(a, n, &rep, &def) > 0 && rep != 0) {
    return fail(a,
                "row %lld of column '%s' starts at repetition level %u, "
                "not 0",
                (long long)as->row,
                a->leaves[a->lo[node_index(a, n)]].node->path, rep);
  }
  return a->rc;
}

int pq_assembler_next(pq_assembler *as, pq_buf *out, pq_error *err) {
  asm_ctx *a = &as->a;
  a->err = err;
  a->out = out;
  a->row = as->row;
  if (a->rc) return a->rc;
  if (as->row >= as->rows) {
    return pq_fail(err, PQ_MISUSE, "assemble", "no row %lld in row group %u",
                   (long long)as->row, a->row_group);
  }
  if (as->field) {
    if (!row_start(as, as->field)) emit_child(a, as->field);
  } else {
    const pq_schema_node *root = a->nodes;
    pq_buf_byte(out, '{');
    for (uint32_t i = 0; i < root->n_children && !a->rc; i++) {
      const pq_schema_node *n = root->children[i];
      if (row_start(as, n)) break;
      if (i) pq_buf_byte(out, ',');
      put_key(out, n->elem->name);
      emit_child(a, n);
    }
    pq_buf_byte(out, '}');
  }
  as->row++;
  if (!a->rc && out->oom) a->rc = pq_nomem(err, "assemble");
  return a->rc;
}

int pq_assembler_finish(pq_assembler *as, pq_error *err) {
  asm_ctx *a = &as->a;
  a->err = err;
  for (uint32_t c = as->lo; c <= as->hi && !a->rc; c++) {
    leaf_data *L = &a->leaves[c];
    if (L->pos != L->n) {
      fail(a, "column '%s' has %zu entries after the last of %lld rows",
           L->node->path, L->n - L->pos, (long long)as->rows);
    }
  }
  return a->rc;
}

void pq_assembler_free(pq_assembler *as) {
  if (!as) return;
  asm_ctx *a = &as->a;
  if (a->leaves) {
    for (uint32_t c = as->lo; c <= as->hi && c < pq_file_leaf_count(a->f); c++)
      free_leaf(&a->leaves[c]);
  }
  pq_free(a->lo);
  pq_free(a->hi);
  pq_free(a->leaves);
  pq_free(as);
}

/* ---- Rows as JSON objects ------------------------------------------------------ */

struct pq_row_reader {
  pq_assembler *as;
};

int pq_row_reader_open(pq_row_reader **out, const pq_file *f,
                       uint32_t row_group, size_t limit, pq_error *err) {
  return pq_row_reader_open_room(out, f, row_group, limit, NULL, err);
}

int pq_row_reader_open_room(pq_row_reader **out, const pq_file *f,
                            uint32_t row_group, size_t limit,
                            pq_read_room *room, pq_error *err) {
  *out = NULL;
  pq_row_reader *r = pq_calloc(1, sizeof *r);
  if (!r) return pq_nomem(err, "assemble");
  int rc = pq_assembler_open(&r->as, f, row_group, NULL, limit, room, err);
  if (rc) {
    pq_free(r);
    return rc;
  }
  *out = r;
  return PQ_OK;
}

int pq_row_reader_next(pq_row_reader *r, pq_buf *out, int *got,
                       pq_error *err) {
  *got = 0;
  if (r->as->row >= r->as->rows) return pq_assembler_finish(r->as, err);
  int rc = pq_assembler_next(r->as, out, err);
  if (rc == PQ_OK) *got = 1;
  return rc;
}

void pq_row_reader_free(pq_row_reader *r) {
  if (!r) return;
  pq_assembler_free(r->as);
  pq_free(r);
}

int pq_file_to_json(const pq_file *f, size_t limit, pq_buf *out,
                    pq_error *err) {
  const pq_file_meta *m = pq_file_metadata(f);
  int rc = PQ_OK;
  pq_buf_byte(out, '[');
  int first = 1;
  pq_read_room room; /* one leaf's reader's memory, to the next */
  memset(&room, 0, sizeof room);
  for (uint32_t g = 0; g < m->n_row_groups && !rc; g++) {
    pq_row_reader *r;
    rc = pq_row_reader_open_room(&r, f, g, limit, &room, err);
    for (int got = 1; !rc && got;) {
      size_t before = out->len;
      if (!first) pq_buf_byte(out, ',');
      rc = pq_row_reader_next(r, out, &got, err);
      if (!got) {
        out->len = before;
      } else {
        first = 0;
      }
      if (!rc && out->len > limit) {
        rc = pq_fail(err, PQ_TOOBIG, "assemble",
                     "the rows as JSON exceed the limit of %zu bytes", limit);
      }
    }
    if (r) pq_row_reader_free(r);
  }
  pq_buf_free(&room.window);
  pq_buf_free(&room.page);
  pq_buf_byte(out, ']');
  if (!rc && out->oom) rc = pq_nomem(err, "assemble");
  return rc;
}
