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

#include <stdio.h>

typedef struct leaf_data {
  const pq_schema_node *node;
  uint16_t *rep, *def;
  size_t n, cap;             /* entries */
  pq_buf text;               /* the values as JSON, back to back */
  size_t *voff;              /* value i is text[voff[i] .. voff[i+1]) */
  size_t nv, vcap;
  size_t pos, vpos;          /* cursors: next entry, next value */
} leaf_data;

typedef struct asm_ctx {
  const pq_file *f;
  leaf_data *leaves;
  uint32_t *lo, *hi;         /* leaf range of each schema node */
  const pq_schema_node *nodes;
  pq_buf *out;
  pq_error *err;
  int rc;                    /* the first fault */
  uint32_t row_group;
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
      put_value(&L->text, e, &meaning, vals + i * vs);
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
