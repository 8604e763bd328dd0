/*
** file.c -- opening a file: the magic bytes, the footer's length, the
** footer (metadata.c) and the schema tree (schema.c); and the file's bytes
** by range, from its image or read through its pq_input.
**
**   "PAR1" <column chunks> <FileMetaData> <4-byte length> "PAR1"
*/
#include "format.h"

/* The checks of the 12 bytes every file has: its size, the magic at both
** ends (head: the first 4 bytes, tail: the last 8) and the footer's length
** against the size. */
static int check_ends(uint64_t len, const uint8_t *head, const uint8_t *tail,
                      pq_error *err) {
  if (memcmp(tail + 4, "PARE", 4) == 0) {
    return pq_fail(err, PQ_UNSUPPORTED, "file",
                   "encrypted files are not supported (the footer is "
                   "encrypted: 'PARE')");
  }
  if (memcmp(head, "PAR1", 4) != 0 || memcmp(tail + 4, "PAR1", 4) != 0) {
    return pq_fail(err, PQ_CORRUPT, "file",
                   "not a Parquet file: it does not begin and end with 'PAR1'");
  }
  uint32_t flen = pq_load32(tail);
  if (flen > len - 12) {
    return pq_fail(err, PQ_CORRUPT, "file",
                   "the footer says the metadata takes %u bytes, %llu are "
                   "there",
                   flen, (unsigned long long)(len - 12));
  }
  return PQ_OK;
}

static int too_small(uint64_t len, pq_error *err) {
  return pq_fail(err, PQ_CORRUPT, "file",
                 "%llu bytes are too few for a Parquet file (at least 12)",
                 (unsigned long long)len);
}

/* Parses the footer, footer[0..flen) at offset at of the file, into f,
** and builds the schema tree; frees f on failure. */
static int parse_footer(pq_file **out, pq_file *f, const uint8_t *footer,
                        uint32_t flen, pq_error *err) {
  pq_parser ps;
  memset(&ps, 0, sizeof ps);
  ps.arena = &f->arena;
  size_t at = f->len - 8 - flen;
  f->data_end = at;
  f->footer_len = flen;
  pq_thrift_init(&ps.t, footer, flen, at, "file metadata", err);
  pq_parse_file_meta(&ps, &f->meta);
  int rc = ps.nomem ? pq_nomem(err, "file metadata") : ps.t.failed;
  if (rc == PQ_OK && f->meta.encrypted) {
    rc = pq_fail(err, PQ_UNSUPPORTED, "file",
                 "encrypted files are not supported (the metadata names an "
                 "encryption algorithm)");
  }
  if (rc == PQ_OK) rc = pq_schema_build(f, err);
  if (rc) {
    pq_file_free(f);
    return rc;
  }
  *out = f;
  return PQ_OK;
}

int pq_file_open(pq_file **out, const uint8_t *buf, size_t len, pq_error *err) {
  *out = NULL;
  if (len < 12) return too_small(len, err);
  int rc = check_ends(len, buf, buf + len - 8, err);
  if (rc) return rc;
  pq_file *f = pq_calloc(1, sizeof *f);
  if (!f) return pq_nomem(err, "file");
  f->buf = buf;
  f->len = len;
  uint32_t flen = pq_load32(buf + len - 8);
  return parse_footer(out, f, buf + len - 8 - flen, flen, err);
}

int pq_file_open_input(pq_file **out, const pq_input *in, pq_error *err) {
  *out = NULL;
  if (in->size < 12) return too_small(in->size, err);
  if (in->size > SIZE_MAX / 2) {
    return pq_fail(err, PQ_UNSUPPORTED, "file",
                   "%llu bytes are more than this build addresses",
                   (unsigned long long)in->size);
  }
  uint8_t head[4] = {'P', 'A', 'R', '1'}, tail[8];
  int rc = PQ_OK;
  if (!(in->flags & PQ_INPUT_NO_HEAD)) rc = in->read(in->ctx, 0, head, 4, err);
  if (rc == PQ_OK) rc = in->read(in->ctx, in->size - 8, tail, 8, err);
  if (rc == PQ_OK) rc = check_ends(in->size, head, tail, err);
  if (rc) return rc;
  pq_file *f = pq_calloc(1, sizeof *f);
  if (!f) return pq_nomem(err, "file");
  f->in = *in;
  f->len = (size_t)in->size;
  uint32_t flen = pq_load32(tail);
  f->footer = pq_malloc(flen);
  if (!f->footer) {
    pq_file_free(f);
    return pq_nomem(err, "file metadata");
  }
  rc = in->read(in->ctx, in->size - 8 - flen, f->footer, flen, err);
  if (rc) {
    pq_file_free(f);
    return rc;
  }
  return parse_footer(out, f, f->footer, flen, err);
}

void pq_file_free(pq_file *f) {
  if (!f) return;
  pq_arena_free(&f->arena);
  pq_free(f->footer);
  pq_free(f);
}

const pq_file_meta *pq_file_metadata(const pq_file *f) {
  return &f->meta;
}
const pq_schema_node *pq_file_schema(const pq_file *f) {
  return &f->nodes[0];
}
uint32_t pq_file_leaf_count(const pq_file *f) {
  return f->n_leaves;
}
const pq_schema_node *pq_file_leaf(const pq_file *f, uint32_t i) {
  return i < f->n_leaves ? f->leaves[i] : NULL;
}
uint64_t pq_file_size(const pq_file *f) { return f->len; }
uint32_t pq_file_footer_size(const pq_file *f) { return f->footer_len; }

static int outside(const pq_file *f, uint64_t at, size_t n, const char *label,
                   pq_error *err) {
  if (at <= f->len && n <= f->len - at) return PQ_OK;
  return pq_fail(err, PQ_CORRUPT, label,
                 "%zu bytes at offset %llu are not inside the file (%zu "
                 "bytes)",
                 n, (unsigned long long)at, f->len);
}

int pq_file_span(const pq_file *f, uint64_t at, size_t n, pq_buf *scratch,
                 const uint8_t **out, const char *label, pq_error *err) {
  int rc = outside(f, at, n, label, err);
  if (rc) return rc;
  if (f->buf) {
    *out = f->buf + at;
    return PQ_OK;
  }
  scratch->len = 0;
  if (pq_buf_reserve(scratch, n)) return pq_nomem(err, label);
  rc = n ? f->in.read(f->in.ctx, at, scratch->data, n, err) : PQ_OK;
  if (rc) return rc;
  scratch->len = n;
  *out = scratch->data;
  return PQ_OK;
}

int pq_file_read(const pq_file *f, uint64_t at, size_t n, uint8_t *dst,
                 const char *label, pq_error *err) {
  int rc = outside(f, at, n, label, err);
  if (rc || n == 0) return rc;
  if (f->buf) {
    memcpy(dst, f->buf + at, n);
    return PQ_OK;
  }
  return f->in.read(f->in.ctx, at, dst, n, err);
}
