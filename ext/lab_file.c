/*
** lab_file.c -- the rows of parquet_lab_file(source [, options]): a
** Parquet file's top-level columns, each as the `parquet` table gives it,
** handed to parquet_write's capture (write.c) one column at a time.
**
** The lab of a file means: for each column `col` of the table
**
**   CREATE VIRTUAL TABLE temp.t USING parquet('f.parquet');
**
** what `parquet_write(NULL, 'SELECT col FROM t', ...)` writes.  So the
** column is read as the table reads it (pq_field_reader, row group after
** row group, its cells made into SQL values as the table makes them) and
** its declared type is the table's (pq_field_describe's word and
** pq_field_type's quoted type): parquet_write types and converts it from
** those exactly as it does when the table is its query.  The values go
** through a statement `SELECT ?1 AS "col"`, bound again for each row,
** whose row is the one parquet_write reads.
*/
#include <stdio.h>
#include <string.h>

#include "write.h"

#define LABF_BATCH 256 /* cells read at once, as the table reads them */

struct pqx_lab_file {
  sqlite3 *db;
  const char *fn;
  pqx_sources ss;
  pqx_source src;            /* the one file */
  char **names;              /* per top-level field, as the table names it */
  uint32_t n;
  size_t limit;              /* of a page, as the table's */
  /* the column being read (pqx_lab_file_rows) */
  uint32_t field;
  sqlite3_stmt *st;          /* SELECT ?1 AS "name" */
  char *decl;                /* its declared type */
  const char *decls[1];
  pq_field_reader *r;
  uint32_t group;            /* the next row group to open */
  int64_t left;              /* rows of the open row group not yet read */
  pq_cell cells[LABF_BATCH];
  size_t ncells, at;
  pq_read_room room;
};

static void labf_column_end(pqx_lab_file *f) {
  if (f->r) {
    pq_field_reader_take_room(f->r, &f->room);
    pq_field_reader_free(f->r);
    f->r = NULL;
  }
  sqlite3_finalize(f->st);
  f->st = NULL;
  sqlite3_free(f->decl);
  f->decl = NULL;
  f->ncells = f->at = 0;
  f->group = 0;
  f->left = 0;
}

void pqx_lab_file_free(pqx_lab_file *f) {
  if (!f) return;
  labf_column_end(f);
  f->room.owner = NULL; /* its file goes */
  pq_buf_free(&f->room.window);
  pq_buf_free(&f->room.page);
  if (f->names) {
    for (uint32_t i = 0; i < f->n; i++) sqlite3_free(f->names[i]);
    sqlite3_free(f->names);
  }
  pqx_source_close(&f->src);
  pqx_sources_close(&f->ss);
  sqlite3_free(f);
}

char *pqx_lab_file_open(sqlite3 *db, sqlite3_value *source, const char *fn,
                        pqx_lab_file **out) {
  *out = NULL;
  pqx_lab_file *f = sqlite3_malloc64(sizeof *f);
  if (!f) return PQX_W_NOMEM;
  memset(f, 0, sizeof *f);
  f->db = db;
  f->fn = fn;
  f->limit = pqx_db_limit(db);
  char *msg = NULL;
  int rc = pqx_sources_open(&f->ss, db, source, fn, &msg);
  if (rc == SQLITE_OK && f->ss.n > 1) {
    msg = pqx_w_msg("%s: the source names %d files: the lab reads one file "
                    "(one path, or a BLOB)",
                    fn, f->ss.n);
    rc = SQLITE_ERROR;
  }
  int got = 0;
  if (rc == SQLITE_OK) rc = pqx_sources_next(&f->ss, &f->src, &got, &msg);
  if (rc == SQLITE_OK && !got) {
    /* (a pattern that matches nothing is pqx_sources_open's error) */
    msg = pqx_w_msg("%s: the source names no file", fn);
    rc = SQLITE_ERROR;
  }
  if (rc == SQLITE_OK) {
    const pq_schema_node *root = pq_file_schema(f->src.file);
    f->n = root->n_children;
    f->names = pqx_table_names(root);
    if (!f->names) rc = SQLITE_NOMEM;
  }
  if (rc) {
    pqx_lab_file_free(f);
    return msg ? msg : PQX_W_NOMEM;
  }
  *out = f;
  return NULL;
}

int pqx_lab_file_columns(const pqx_lab_file *f) { return (int)f->n; }

const char *pqx_lab_file_name(const pqx_lab_file *f, int i) {
  return f->names[i];
}

int pqx_lab_file_nested(const pqx_lab_file *f, int i) {
  pq_field_info info;
  pq_field_describe(pq_file_schema(f->src.file)->children[i], 0, &info);
  return info.nested;
}

/* The next cell into f->cells[f->at]: SQLITE_ROW, SQLITE_DONE, or an error
** with *msg. */
static int labf_next_cell(pqx_lab_file *f, char **msg) {
  const pq_file *pf = f->src.file;
  const pq_file_meta *m = pq_file_metadata(pf);
  const pq_schema_node *node = pq_file_schema(pf)->children[f->field];
  pq_error err;
  while (f->at >= f->ncells) {
    f->at = f->ncells = 0;
    if (f->r && f->left == 0) {
      pq_field_reader_take_room(f->r, &f->room);
      pq_field_reader_free(f->r);
      f->r = NULL;
    }
    if (!f->r) {
      if (f->group >= m->n_row_groups) return SQLITE_DONE;
      uint32_t g = f->group++;
      f->left = m->row_groups[g].num_rows;
      if (f->left <= 0) {
        f->left = 0;
        continue;
      }
      int rc = pq_field_reader_open(&f->r, pf, g, node, 0, f->limit, &err);
      if (rc) {
        f->r = NULL;
        if (rc == PQ_NOMEM) return SQLITE_NOMEM;
        *msg = pqx_source_error(f->fn, f->src.name, &err);
        return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
      }
      pq_field_reader_give_room(f->r, &f->room);
    }
    size_t want = f->left < LABF_BATCH ? (size_t)f->left : LABF_BATCH;
    size_t n = 0;
    int rc = pq_field_reader_read(f->r, f->cells, want, &n, &err);
    if (rc == PQ_OK && n == 0) {
      rc = PQ_CORRUPT;
      snprintf(err.msg, sizeof err.msg, "column '%s' ends early",
               f->names[f->field]);
      err.code = rc;
    }
    if (rc) {
      if (rc == PQ_NOMEM) return SQLITE_NOMEM;
      *msg = pqx_source_error(f->fn, f->src.name, &err);
      return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    f->ncells = n > want ? want : n;
    f->left -= (int64_t)f->ncells;
  }
  return SQLITE_ROW;
}

/* The statement's next row: the column's next cell, as the table gives it
** (tbl_result in table.c). */
static int labf_step(void *ctx, char **msg) {
  pqx_lab_file *f = ctx;
  *msg = NULL;
  int rc = labf_next_cell(f, msg);
  if (rc != SQLITE_ROW) return rc;
  const pq_cell *v = &f->cells[f->at++];
  sqlite3_reset(f->st);
  switch (v->kind) {
    case PQ_CELL_INT: rc = sqlite3_bind_int64(f->st, 1, v->i); break;
    case PQ_CELL_REAL: rc = sqlite3_bind_double(f->st, 1, v->r); break;
    case PQ_CELL_TEXT:
      rc = sqlite3_bind_text64(f->st, 1,
                               (const char *)(v->p ? v->p : (const uint8_t *)""),
                               v->n, SQLITE_STATIC, SQLITE_UTF8);
      break;
    case PQ_CELL_BLOB:
      rc = sqlite3_bind_blob64(f->st, 1, v->p ? v->p : (const uint8_t *)"",
                               v->n, SQLITE_STATIC);
      break;
    default: rc = sqlite3_bind_null(f->st, 1); break;
  }
  if (rc == SQLITE_OK) rc = sqlite3_step(f->st);
  if (rc == SQLITE_ROW) return rc;
  if (rc == SQLITE_NOMEM) return rc;
  *msg = pqx_w_msg("%s: %s", f->fn, sqlite3_errmsg(f->db));
  if (*msg == PQX_W_NOMEM) *msg = NULL;
  return rc == SQLITE_DONE ? SQLITE_ERROR : rc;
}

char *pqx_lab_file_rows(pqx_lab_file *f, int i, pqx_capture_rows *rows) {
  labf_column_end(f);
  const pq_schema_node *node = pq_file_schema(f->src.file)->children[i];
  pq_field_info info;
  pq_field_describe(node, 0, &info);
  pq_buf type;
  pq_buf_init(&type);
  if (pq_field_type(node, 0, &type) != PQ_OK) {
    pq_buf_free(&type);
    return PQX_W_NOMEM;
  }
  char *t = type.len <= 0x7fffffff
                ? sqlite3_mprintf("%.*s", (int)type.len, (const char *)type.data)
                : NULL;
  f->decl = !t ? NULL
            : type.len ? sqlite3_mprintf("%s '%q'", info.decl, t)
                       : sqlite3_mprintf("%s", info.decl);
  sqlite3_free(t);
  pq_buf_free(&type);
  char *sql = sqlite3_mprintf("SELECT ?1 AS \"%w\"", f->names[i]);
  int rc = f->decl && sql ? sqlite3_prepare_v2(f->db, sql, -1, &f->st, NULL)
                          : SQLITE_NOMEM;
  sqlite3_free(sql);
  if (rc) {
    labf_column_end(f);
    return pqx_w_sql(f->db, rc, "rows");
  }
  f->field = (uint32_t)i;
  f->decls[0] = f->decl;
  rows->sql = NULL;
  rows->st = f->st;
  rows->decls = f->decls;
  rows->ctx = f;
  rows->step = labf_step;
  return NULL;
}
