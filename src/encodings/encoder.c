/*
** encoder.c -- opening an encoder for any encoding; the calls every
** encoder shares.
*/
#include "encodings.h"

int pq_encoder_open(pq_encoder **out, const pq_params *params, pq_error *err) {
  *out = NULL;
  pq_params p = *params;
  int rc = pq_params_resolve(&p, 0, err);
  if (rc) return rc;
  pq_encoder *e = NULL;
  switch (p.encoding) {
    case PQ_PLAIN: rc = pq_plain_encoder(&e, &p, err); break;
    case PQ_GROUP_VAR_INT: rc = pq_gvi_encoder(&e, &p, err); break;
    case PQ_PLAIN_DICTIONARY:
    case PQ_RLE_DICTIONARY: rc = pq_dict_encoder(&e, &p, err); break;
    case PQ_RLE: rc = pq_rle_encoder(&e, &p, err); break;
    case PQ_BIT_PACKED: rc = pq_bit_packed_encoder(&e, &p, err); break;
    case PQ_DELTA_BINARY_PACKED: rc = pq_delta_encoder(&e, &p, err); break;
    case PQ_DELTA_LENGTH_BYTE_ARRAY: rc = pq_dlba_encoder(&e, &p, err); break;
    case PQ_DELTA_BYTE_ARRAY: rc = pq_dba_encoder(&e, &p, err); break;
    case PQ_BYTE_STREAM_SPLIT: rc = pq_bss_encoder(&e, &p, err); break;
    case PQ_ALP: rc = pq_alp_encoder(&e, &p, err); break;
    default:
      return pq_fail(err, PQ_UNSUPPORTED, pq_encoding_name(p.encoding),
                     "not implemented in this version");
  }
  if (rc) {
    pq_encoder_free(e);
    return rc;
  }
  *out = e;
  return PQ_OK;
}

pq_encoder *pq_encoder_alloc(size_t size, const pq_params *p) {
  pq_encoder *e = pq_calloc(1, size);
  if (e) e->p = *p;
  return e;
}

int pq_encoder_put(pq_encoder *e, const void *values, size_t n, pq_error *err) {
  if (n == 0) return PQ_OK;
  int rc = e->put(e, values, n, err);
  if (rc == PQ_OK) e->count += n;
  return rc;
}

int pq_encoder_finish(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err) {
  int rc = e->finish(e, out, dict, err);
  if (rc == PQ_OK && (out->oom || (dict && dict->oom))) {
    rc = pq_nomem(err, pq_encoding_name(e->p.encoding));
  }
  return rc;
}

size_t pq_encoder_size(const pq_encoder *e) { return e->size(e); }

int pq_encoder_reusable(const pq_encoder *e) { return e->reusable; }

void pq_encoder_give_room(pq_encoder *e, pq_buf *room) {
  pq_buf *b = e->room && e->count == 0 ? e->room(e) : NULL;
  if (!b || b->len || b->oom || room->len || room->oom || room->cap <= b->cap)
    return;
  pq_buf t = *b;
  *b = *room;
  *room = t;
}

void pq_encoder_free(pq_encoder *e) {
  if (!e) return;
  if (e->destroy) e->destroy(e);
  pq_free(e);
}
