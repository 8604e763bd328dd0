/*
** partition.c -- where the rows of a partitioned write go (declared in
** parquet.h): the hive folder of a row's partition values, and which file
** of it is open, when the next opens, and its name.
**
**   year = 2024, city = 'New York'  ->  year=2024/city=New%20York/data_0.parquet
**   year = NULL                     ->  year=__HIVE_DEFAULT_PARTITION__/...
**
** The rows come grouped by partition (the caller sorts them), so one file
** is open at a time: a row of another folder closes it, and so does a file
** that passed file_size bytes; the next row opens the next file, data_0,
** data_1, ... in each folder.
*/
#include "../format/format.h"

#include <stdio.h>

/* The bytes a folder name keeps as they are (RFC 3986's unreserved, as
** DuckDB's URL encoding of partition values): every other is %XX. */
static int part_plain(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
         c == '~';
}

void pq_hive_escape(pq_buf *out, const char *s, size_t n) {
  static const char hex[] = "0123456789ABCDEF";
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (part_plain(c)) {
      pq_buf_append(out, &s[i], 1);
    } else {
      char e[3] = {'%', hex[c >> 4], hex[c & 15]};
      pq_buf_append(out, e, 3);
    }
  }
}

void pq_hive_folder(pq_buf *out, int n, const char *const *keys,
                    const char *const *vals, const size_t *lens) {
  for (int i = 0; i < n; i++) {
    if (i) pq_buf_append(out, "/", 1);
    pq_hive_escape(out, keys[i], strlen(keys[i]));
    pq_buf_append(out, "=", 1);
    if (vals[i])
      pq_hive_escape(out, vals[i], lens[i]);
    else
      pq_buf_append(out, PQ_HIVE_NULL, strlen(PQ_HIVE_NULL));
  }
}

void pq_partitioner_init(pq_partitioner *p, int64_t file_size) {
  memset(p, 0, sizeof *p);
  pq_buf_init(&p->folder);
  p->file_size = file_size;
}

void pq_partitioner_free(pq_partitioner *p) { pq_buf_free(&p->folder); }

int pq_partitioner_route(pq_partitioner *p, const char *folder, size_t n) {
  int same = p->started && p->folder.len == n &&
             (n == 0 || memcmp(p->folder.data, folder, n) == 0);
  if (p->open) return same ? PQ_PART_WRITE : PQ_PART_CLOSE;
  if (!same) {
    p->folder.len = 0;
    pq_buf_append(&p->folder, folder, n);
    if (p->folder.oom) {
      p->started = 0;
      return PQ_NOMEM;
    }
    p->started = 1;
    p->next = 0;
  }
  return PQ_PART_OPEN;
}

int pq_partitioner_full(const pq_partitioner *p, int64_t bytes) {
  return p->open && p->file_size > 0 && bytes >= p->file_size;
}

int pq_partitioner_name(pq_partitioner *p, pq_buf *name) {
  char file[48];
  snprintf(file, sizeof file, "data_%lld.parquet", (long long)p->next++);
  if (p->folder.len) {
    pq_buf_append(name, p->folder.data, p->folder.len);
    pq_buf_append(name, "/", 1);
  }
  pq_buf_append(name, file, strlen(file));
  return name->oom ? PQ_NOMEM : PQ_OK;
}

void pq_partitioner_opened(pq_partitioner *p) {
  p->open = 1;
  p->files++;
}

void pq_partitioner_closed(pq_partitioner *p) { p->open = 0; }
