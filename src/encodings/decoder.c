/*
** decoder.c -- opening a decoder for any encoding, and the rules every
** decoder shares: the count option, batches, the type yielded.
*/
#include "encodings.h"

int pq_decoder_open(pq_decoder **out, const pq_params *params,
                    const uint8_t *buf, size_t len, const uint8_t *dict,
                    size_t dict_len, pq_error *err) {
  *out = NULL;
  pq_params p;
  int rc = pq_params_for_stream(&p, params, dict != NULL, err);
  if (rc) return rc;
  if (!buf) buf = (const uint8_t *)"";
  pq_decoder *d = NULL;
  switch (p.encoding) {
    case PQ_PLAIN: rc = pq_plain_decoder(&d, &p, buf, len, err); break;
    case PQ_GROUP_VAR_INT: rc = pq_gvi_decoder(&d, &p, buf, len, err); break;
    case PQ_PLAIN_DICTIONARY:
    case PQ_RLE_DICTIONARY:
      rc = pq_dict_decoder(&d, &p, buf, len, dict, dict_len, err);
      break;
    case PQ_RLE: rc = pq_rle_decoder(&d, &p, buf, len, err); break;
    case PQ_BIT_PACKED:
      rc = pq_bit_packed_decoder(&d, &p, buf, len, err);
      break;
    case PQ_DELTA_BINARY_PACKED:
      rc = pq_delta_decoder(&d, &p, buf, len, err);
      break;
    case PQ_DELTA_LENGTH_BYTE_ARRAY:
      rc = pq_dlba_decoder(&d, &p, buf, len, err);
      break;
    case PQ_DELTA_BYTE_ARRAY: rc = pq_dba_decoder(&d, &p, buf, len, err); break;
    case PQ_BYTE_STREAM_SPLIT:
      rc = pq_bss_decoder(&d, &p, buf, len, err);
      break;
    case PQ_ALP: rc = pq_alp_decoder(&d, &p, buf, len, err); break;
    default:
      return pq_fail(err, PQ_UNSUPPORTED, pq_encoding_name(p.encoding),
                     "not implemented in this version");
  }
  if (rc) {
    pq_decoder_free(d);
    return rc;
  }
  *out = d;
  return PQ_OK;
}

pq_decoder *pq_decoder_alloc(size_t size, const pq_params *p,
                             const uint8_t *buf, size_t len) {
  pq_decoder *d = pq_calloc(1, size);
  if (!d) return NULL;
  d->p = *p;
  d->buf = buf;
  d->len = len;
  d->left = p->count >= 0 ? (uint64_t)p->count : UINT64_MAX;
  d->out_type = p->type;
  d->out_length = p->type_length;
  return d;
}

int pq_fail_count(pq_error *err, const char *label, uint64_t done,
                  uint64_t count) {
  return pq_fail(err, PQ_CORRUPT, label,
                 "the stream ends after %llu values, the count is %llu",
                 (unsigned long long)done, (unsigned long long)count);
}

int pq_decoder_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  *n = 0;
  if (d->left == 0 || max == 0) return PQ_OK;
  if ((uint64_t)max > d->left) max = (size_t)d->left;
  size_t got = 0;
  int rc = d->read(d, out, max, &got, err);
  if (rc) return rc;
  if (got == 0 && d->left != UINT64_MAX) {
    return pq_fail_count(err, pq_encoding_name(d->p.encoding), d->done,
                         d->done + d->left);
  }
  if (d->left != UINT64_MAX) d->left -= got;
  d->done += got;
  *n = got;
  return PQ_OK;
}

pq_type pq_decoder_type(const pq_decoder *d, int *is_index,
                        int32_t *type_length) {
  if (is_index) *is_index = d->is_index;
  if (type_length) *type_length = d->out_length;
  return d->out_type;
}

void pq_decoder_free(pq_decoder *d) {
  if (!d) return;
  if (d->destroy) d->destroy(d);
  pq_free(d);
}
