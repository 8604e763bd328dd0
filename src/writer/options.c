/*
** options.c -- the options of a file writer (pq_write_options): the
** file's keys (codec, pages, row groups, the column), and behind them
** the encoding's own (pq_params_option).
*/
#include "../format/format.h"

void pq_write_options_init(pq_write_options *o) {
  memset(o, 0, sizeof *o);
  o->codec = PQ_UNCOMPRESSED;
  o->level = PQ_LEVEL_DEFAULT;
  o->page_version = 1;
  o->page_size = 1 << 20;
  o->nullable = 1;
  o->statistics = 1;
  o->crc = 1;
  o->string = -1;
  o->fallback = -1;
  strcpy(o->name, "value");
}

typedef struct write_ctx {
  pq_write_options *o;
  pq_params *p;
} write_ctx;

static int apply_write(void *ctx, const char *key, const pq_jvalue *v,
                       pq_error *err) {
  write_ctx *w = ctx;
  pq_write_options *o = w->o;
  int64_t x;
  int rc = PQ_OK;
  if (strcmp(key, "codec") == 0) {
    rc = pq_codec_option(v, key, &o->codec, err);
  } else if (strcmp(key, "page_version") == 0) {
    x = o->page_version;
    rc = pq_option_int(v, key, 1, 2, &x, err);
    o->page_version = (int)x;
  } else if (strcmp(key, "page_size") == 0) {
    x = o->page_size;
    rc = pq_option_int(v, key, 1, 1 << 30, &x, err);
    o->page_size = x;
  } else if (strcmp(key, "page_values") == 0) {
    x = o->page_values;
    rc = pq_option_int(v, key, 1, INT32_MAX, &x, err);
    o->page_values = x;
  } else if (strcmp(key, "row_group_size") == 0) {
    x = o->row_group_size;
    rc = pq_option_int(v, key, 1, INT64_MAX, &x, err);
    o->row_group_size = x;
  } else if (strcmp(key, "nullable") == 0) {
    rc = pq_option_bool(v, key, &o->nullable, err);
  } else if (strcmp(key, "statistics") == 0) {
    rc = pq_option_bool(v, key, &o->statistics, err);
  } else if (strcmp(key, "crc") == 0) {
    rc = pq_option_bool(v, key, &o->crc, err);
  } else if (strcmp(key, "level") == 0) {
    x = o->level;
    rc = pq_option_int(v, key, -7, 22, &x, err);
    o->level = (int)x;
  } else if (strcmp(key, "page_index") == 0) {
    rc = pq_option_bool(v, key, &o->page_index, err);
  } else if (strcmp(key, "string") == 0) {
    rc = pq_option_bool(v, key, &o->string, err);
  } else if (strcmp(key, "name") == 0) {
    if (v->kind == PQ_JV_NULL) return PQ_OK;
    if (v->kind != PQ_JV_STRING || v->str[0] == 0)
      return pq_option_fail(err, "\"%s\" must be a non-empty string", key);
    memcpy(o->name, v->str, sizeof o->name);
  } else {
    return pq_params_option(w->p, key, v, err);
  }
  return rc;
}

int pq_write_options_parse(pq_write_options *o, pq_params *p, const char *json,
                           size_t n, pq_error *err) {
  write_ctx w = {o, p};
  return pq_options_parse(json, n, apply_write, &w, err);
}
