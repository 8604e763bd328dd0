/*
** file.c -- opening a file image: the magic bytes, the footer's length,
** the footer (metadata.c) and the schema tree (schema.c).
**
**   "PAR1" <column chunks> <FileMetaData> <4-byte length> "PAR1"
*/
#include "format.h"

int pq_file_open(pq_file **out, const uint8_t *buf, size_t len, pq_error *err) {
  *out = NULL;
  if (len < 12) {
    return pq_fail(err, PQ_CORRUPT, "file",
                   "%zu bytes are too few for a Parquet file (at least 12)",
                   len);
  }
  if (memcmp(buf + len - 4, "PARE", 4) == 0) {
    return pq_fail(err, PQ_UNSUPPORTED, "file",
                   "encrypted files are not supported (the footer is "
                   "encrypted: 'PARE')");
  }
  if (memcmp(buf, "PAR1", 4) != 0 || memcmp(buf + len - 4, "PAR1", 4) != 0) {
    return pq_fail(err, PQ_CORRUPT, "file",
                   "not a Parquet file: it does not begin and end with 'PAR1'");
  }
  uint32_t flen = pq_load32(buf + len - 8);
  if (flen > len - 12) {
    return pq_fail(err, PQ_CORRUPT, "file",
                   "the footer says the metadata takes %u bytes, %zu are there",
                   flen, len - 12);
  }
  pq_file *f = pq_calloc(1, sizeof *f);
  if (!f) return pq_nomem(err, "file");
  f->buf = buf;
  f->len = len;
  pq_parser ps;
  memset(&ps, 0, sizeof ps);
  ps.arena = &f->arena;
  size_t at = len - 8 - flen;
  pq_thrift_init(&ps.t, buf + at, flen, at, "file metadata", err);
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

void pq_file_free(pq_file *f) {
  if (!f) return;
  pq_arena_free(&f->arena);
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
const uint8_t *pq_file_bytes(const pq_file *f, size_t *len) {
  *len = f->len;
  return f->buf;
}
