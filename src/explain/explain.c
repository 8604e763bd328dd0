/*
** explain.c -- opening an explainer: the encoding's walker is chosen and
** set up (explain_plain.c, explain_runs.c, explain_delta.c,
** explain_alp.c; files and
** pages in explain_file.c), and then each call makes one row.
*/
#include "explain.h"

int pq_explainer_open(pq_explainer **out, const pq_params *params,
                      const uint8_t *buf, size_t len, const uint8_t *dict,
                      size_t dict_len, pq_error *err) {
  *out = NULL;
  pq_params p;
  int rc = pq_params_for_stream(&p, params, dict != NULL, err);
  if (rc) return rc;
  pq_explainer *x = pq_calloc(1, sizeof *x);
  if (!x) return pq_nomem(err, "explain");
  x->p = p;
  x->enc = pq_encoding_name(p.encoding);
  x->buf = buf ? buf : (const uint8_t *)"";
  x->len = len;
  x->limit = p.count >= 0 ? (uint64_t)p.count : UINT64_MAX;
  pq_buf_init(&x->prev);
  switch (p.encoding) {
    case PQ_PLAIN: rc = ex_plain_open(x, err); break;
    case PQ_BIT_PACKED: rc = ex_bit_packed_open(x, err); break;
    case PQ_BYTE_STREAM_SPLIT: rc = ex_bss_open(x, err); break;
    case PQ_GROUP_VAR_INT: rc = ex_gvi_open(x, err); break;
    case PQ_RLE: rc = ex_rle_open(x, err); break;
    case PQ_PLAIN_DICTIONARY:
    case PQ_RLE_DICTIONARY: rc = ex_dict_open(x, dict, dict_len, err); break;
    case PQ_DELTA_BINARY_PACKED: rc = ex_dbp_open(x, err); break;
    case PQ_DELTA_LENGTH_BYTE_ARRAY: rc = ex_dlba_open(x, err); break;
    case PQ_DELTA_BYTE_ARRAY: rc = ex_dba_open(x, err); break;
    case PQ_ALP: rc = ex_alp_open(x, err); break;
    default:
      rc = pq_fail(err, PQ_UNSUPPORTED, x->enc,
                   "not implemented in this version");
  }
  if (rc) {
    pq_explainer_free(x);
    return rc;
  }
  *out = x;
  return PQ_OK;
}

int pq_explainer_next(pq_explainer *x, pq_field *f) {
  if (x->done) return 0;
  if (!x->step(x, f)) {
    x->done = 1;
    return 0;
  }
  return 1;
}

int pq_explainer_nomem(const pq_explainer *x) { return x->nomem; }

void pq_explainer_free(pq_explainer *x) {
  if (!x) return;
  ex_file_free(x->file);
  ex_variant_free(x->variant);
  pq_dict_free(&x->dict);
  pq_buf_free(&x->prev);
  pq_free(x);
}
