/*
** explain_context.c -- what a page does not say about itself
** (pq_page_context): its column's type, the maxima of its levels, its
** chunk's codec; and the options that set them.
*/
#include "explain.h"

void pq_page_context_init(pq_page_context *c) {
  memset(c, 0, sizeof *c);
  c->type = PQ_INT32;
  c->codec = PQ_UNCOMPRESSED;
}

static int apply_page(void *ctx, const char *key, const pq_jvalue *v,
                      pq_error *err) {
  pq_page_context *c = ctx;
  int64_t x;
  int rc = PQ_OK;
  if (strcmp(key, "max_def") == 0) {
    x = c->max_def;
    rc = pq_option_int(v, key, 0, INT16_MAX, &x, err);
    c->max_def = (int)x;
  } else if (strcmp(key, "max_rep") == 0) {
    x = c->max_rep;
    rc = pq_option_int(v, key, 0, INT16_MAX, &x, err);
    c->max_rep = (int)x;
  } else if (strcmp(key, "binary") == 0) {
    rc = pq_option_bool(v, key, &c->binary, err);
  } else if (strcmp(key, "codec") == 0) {
    rc = pq_codec_option(v, key, &c->codec, err);
    c->codec_set = rc == PQ_OK;
  } else if (strcmp(key, "variant") == 0) {
    if (v->kind == PQ_JV_STRING && strcmp(v->str, "metadata") == 0) {
      c->variant = PQ_XV_METADATA;
    } else if (v->kind == PQ_JV_STRING && strcmp(v->str, "value") == 0) {
      c->variant = PQ_XV_VALUE;
    } else if (v->kind == PQ_JV_NULL) {
      c->variant = 0;
    } else {
      rc = pq_option_fail(err, "\"%s\" must be \"metadata\" or \"value\"",
                          key);
    }
  } else {
    return PQ_NOTFOUND;
  }
  return rc;
}

int pq_page_context_parse(pq_page_context *c, const char *json, size_t n,
                          pq_error *err) {
  return pq_options_parse(json, n, apply_page, c, err);
}
