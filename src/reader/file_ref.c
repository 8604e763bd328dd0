/*
** file_ref.c -- the values of a FILE group (spec/LogicalTypes.md, FILE):
** references to bytes held inline, in a range of the same file, or in
** another file at a URI, and the resolution of the first two.
**
**   optional group photo (FILE) {           row 0: inline  89 50 4E 47 ..
**     optional binary uri (STRING);         row 1: self    offset 4, size 120
**     optional int64 offset;                row 2: uri     s3://b/k.png
**     optional int64 size;                  row 3: invalid (offset, no size)
**     optional binary content_type (STRING);
**     optional binary checksum (STRING);
**     optional binary inline;
**   }
**
** The fields are found by name, each optional, of the type the spec gives;
** others are ignored.  Each field's column is read entry by entry beside
** the others: the group is not under a repeated field, so an entry is a
** row.  Nothing here reads another file: a reference by URI is reported,
** never followed.
*/
#include "reader.h"

#include <string.h>

enum { FR_URI, FR_OFFSET, FR_SIZE, FR_CONTENT_TYPE, FR_CHECKSUM, FR_INLINE,
       FR_N };

static const char *const fr_names[FR_N] = {"uri",          "offset",
                                           "size",         "content_type",
                                           "checksum",     "inline"};

struct pq_file_ref_reader {
  const pq_file *f;
  const pq_schema_node *group;
  pq_column_reader *col[FR_N];    /* NULL: the group has no such field */
  int max_def[FR_N];
  int64_t row;                    /* in the row group */
};

int pq_file_ref_group(const pq_schema_node *n) {
  return n && n->leaf < 0 && n->elem &&
         n->elem->logical_type == PQ_LOGICAL_FILE;
}

void pq_file_ref_reader_free(pq_file_ref_reader *r) {
  if (!r) return;
  for (int i = 0; i < FR_N; i++) pq_column_reader_free(r->col[i]);
  pq_free(r);
}

/* The field's leaf for field k, or NULL when it is absent; a field of
** another shape is an error. */
static int fr_field(const pq_schema_node *g, int k,
                    const pq_schema_node **out, pq_error *err) {
  *out = NULL;
  size_t len = strlen(fr_names[k]);
  for (uint32_t i = 0; i < g->n_children; i++) {
    const pq_schema_node *c = g->children[i];
    if (c->elem->name.len != len ||
        memcmp(c->elem->name.ptr, fr_names[k], len)) {
      continue;
    }
    pq_type want = (k == FR_OFFSET || k == FR_SIZE) ? PQ_INT64
                                                    : PQ_BYTE_ARRAY;
    if (c->leaf < 0 || c->elem->type != want || c->elem->repetition == 2) {
      return pq_fail(err, PQ_CORRUPT, "FILE",
                     "group '%s': field '%s' is not %s %s", g->path,
                     fr_names[k], c->elem->repetition == 2 ? "a single"
                                                           : "an optional",
                     want == PQ_INT64 ? "INT64" : "BYTE_ARRAY");
    }
    *out = c;
    return PQ_OK;
  }
  return PQ_OK;
}

int pq_file_ref_reader_open(pq_file_ref_reader **out, const pq_file *f,
                            uint32_t row_group, const pq_schema_node *group,
                            size_t limit, pq_error *err) {
  *out = NULL;
  if (!pq_file_ref_group(group)) {
    return pq_fail(err, PQ_MISUSE, "FILE", "'%s' is not a FILE group",
                   group && group->path ? group->path : "");
  }
  if (group->max_rep > 0) {
    return pq_fail(err, PQ_UNSUPPORTED, "FILE",
                   "group '%s' is inside a repeated field", group->path);
  }
  pq_file_ref_reader *r = pq_calloc(1, sizeof *r);
  if (!r) return pq_nomem(err, "FILE");
  r->f = f;
  r->group = group;
  for (int k = 0; k < FR_N; k++) {
    const pq_schema_node *leaf;
    int rc = fr_field(group, k, &leaf, err);
    if (!rc && leaf) {
      rc = pq_column_reader_open(&r->col[k], f, row_group, (uint32_t)leaf->leaf,
                                 limit, err);
      r->max_def[k] = leaf->max_def;
    }
    if (rc) {
      pq_file_ref_reader_free(r);
      return rc;
    }
  }
  *out = r;
  return PQ_OK;
}

/* The resolution table of spec/LogicalTypes.md, FILE: which fields are set
** (a string set when not empty) says what the value names. */
static int fr_kind(const pq_file_ref *v, uint64_t file_size) {
  int uri = v->has_uri && v->uri.len > 0;
  if (v->has_inline) return PQ_FILE_REF_INLINE;
  if ((v->has_offset && v->offset < 0) || (v->has_size && v->size < 0)) {
    return PQ_FILE_REF_INVALID;
  }
  if (uri) {
    return v->has_offset && !v->has_size ? PQ_FILE_REF_INVALID
                                         : PQ_FILE_REF_URI;
  }
  if (!v->has_offset || !v->has_size) return PQ_FILE_REF_INVALID;
  if ((uint64_t)v->offset > file_size ||
      (uint64_t)v->size > file_size - (uint64_t)v->offset) {
    return PQ_FILE_REF_INVALID;   /* a range the file does not hold */
  }
  return PQ_FILE_REF_SELF;
}

int pq_file_ref_reader_next(pq_file_ref_reader *r, pq_file_ref *v, int *got,
                            pq_error *err) {
  memset(v, 0, sizeof *v);
  *got = 0;
  int any = 0, present = 0;
  for (int k = 0; k < FR_N; k++) {
    if (!r->col[k]) continue;
    uint16_t def = 0;
    union {
      pq_bytes b;
      int64_t i;
    } val;
    size_t n = 0, nv = 0;
    int rc = pq_column_reader_read(r->col[k], 1, NULL, &def, &val, &n, &nv,
                                   err);
    if (rc) return rc;
    if (!n) {
      if (any) {
        return pq_fail(err, PQ_CORRUPT, "FILE",
                       "group '%s': field '%s' ends at row %lld, before "
                       "the others", r->group->path, fr_names[k],
                       (long long)r->row);
      }
      continue;
    }
    any++;
    if (def >= r->group->max_def) present = 1;
    if (nv == 0) continue;
    switch (k) {
      case FR_URI: v->has_uri = 1; v->uri = val.b; break;
      case FR_OFFSET: v->has_offset = 1; v->offset = val.i; break;
      case FR_SIZE: v->has_size = 1; v->size = val.i; break;
      case FR_CONTENT_TYPE:
        v->has_content_type = 1;
        v->content_type = val.b;
        break;
      case FR_CHECKSUM: v->has_checksum = 1; v->checksum = val.b; break;
      default: v->has_inline = 1; v->inline_bytes = val.b; break;
    }
  }
  int fields = 0;
  for (int k = 0; k < FR_N; k++) fields += r->col[k] != NULL;
  if (any && any != fields) {
    return pq_fail(err, PQ_CORRUPT, "FILE",
                   "group '%s': its fields end at different rows (row %lld)",
                   r->group->path, (long long)r->row);
  }
  if (!any) return PQ_OK;        /* the row group's last row was read */
  *got = 1;
  r->row++;
  v->kind = present ? fr_kind(v, pq_file_size(r->f)) : PQ_FILE_REF_NULL;
  return PQ_OK;
}

int pq_file_ref_bytes(const pq_file *f, const pq_file_ref *v, size_t limit,
                      pq_buf *scratch, pq_bytes *out, pq_error *err) {
  out->ptr = NULL;
  out->len = 0;
  if (v->kind == PQ_FILE_REF_INLINE) {
    *out = v->inline_bytes;
    return PQ_OK;
  }
  if (v->kind != PQ_FILE_REF_SELF) return PQ_OK;
  if ((uint64_t)v->size > limit) {
    return pq_fail(err, PQ_TOOBIG, "FILE",
                   "the range at %lld of %lld bytes exceeds the limit of "
                   "%llu bytes", (long long)v->offset, (long long)v->size,
                   (unsigned long long)limit);
  }
  const uint8_t *p = NULL;
  int rc = pq_file_span(f, (uint64_t)v->offset, (size_t)v->size, scratch, &p,
                        "FILE", err);
  if (rc) return rc;
  out->ptr = p;
  out->len = (size_t)v->size;
  return PQ_OK;
}
