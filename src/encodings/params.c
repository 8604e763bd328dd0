/*
** params.c -- what a stream does not say about itself (pq_params): the
** defaults, the options that set them, and the check that an encoding,
** a type and the options go together.
*/
#include "encodings.h"

void pq_params_init(pq_params *p) {
  memset(p, 0, sizeof *p);
  p->encoding = PQ_PLAIN;
  p->type = PQ_INT64;
  p->count = PQ_NO_COUNT;
  p->bit_width = -1;
  p->length_prefix = -1;
  p->block_size = -1;
  p->miniblocks = -1;
  p->vector_size = -1;
  p->exponent = -1;
  p->factor = -1;
}

/* ---- Options (doc/options.md) ------------------------------------------- */

int pq_params_option(pq_params *p, const char *key, const pq_jvalue *v,
                     pq_error *err) {
  int64_t x;
  int rc = PQ_OK;
  if (strcmp(key, "count") == 0) {
    x = p->count;
    rc = pq_option_int(v, key, 0, INT64_MAX, &x, err);
    p->count = x;
  } else if (strcmp(key, "bit_width") == 0) {
    x = p->bit_width;
    rc = pq_option_int(v, key, 0, 64, &x, err);
    p->bit_width = (int)x;
  } else if (strcmp(key, "block_size") == 0) {
    x = p->block_size;
    rc = pq_option_int(v, key, 1, INT64_MAX, &x, err);
    p->block_size = x;
  } else if (strcmp(key, "miniblocks") == 0) {
    x = p->miniblocks;
    rc = pq_option_int(v, key, 1, INT64_MAX, &x, err);
    p->miniblocks = x;
  } else if (strcmp(key, "vector_size") == 0) {
    x = p->vector_size;
    rc = pq_option_int(v, key, 1, INT64_MAX, &x, err);
    p->vector_size = x;
  } else if (strcmp(key, "exponent") == 0) {
    x = p->exponent;
    rc = pq_option_int(v, key, 0, 18, &x, err);
    p->exponent = (int)x;
  } else if (strcmp(key, "factor") == 0) {
    x = p->factor;
    rc = pq_option_int(v, key, 0, 18, &x, err);
    p->factor = (int)x;
  } else if (strcmp(key, "length_prefix") == 0) {
    rc = pq_option_bool(v, key, &p->length_prefix, err);
  } else if (strcmp(key, "binary") == 0) {
    rc = pq_option_bool(v, key, &p->binary, err);
  } else if (strcmp(key, "bit_order") == 0) {
    if (v->kind == PQ_JV_NULL) return PQ_OK;
    if (v->kind == PQ_JV_STRING && strcmp(v->str, "msb") == 0) {
      p->lsb_first = 0;
    } else if (v->kind == PQ_JV_STRING && strcmp(v->str, "lsb") == 0) {
      p->lsb_first = 1;
    } else {
      return pq_option_fail(err, "\"%s\" must be \"msb\" or \"lsb\"", key);
    }
  } else if (strcmp(key, "part") == 0) {
    if (v->kind == PQ_JV_NULL) return PQ_OK;
    if (v->kind == PQ_JV_STRING && strcmp(v->str, "indices") == 0) {
      p->dictionary_part = 0;
    } else if (v->kind == PQ_JV_STRING && strcmp(v->str, "dictionary") == 0) {
      p->dictionary_part = 1;
    } else {
      return pq_option_fail(err, "\"%s\" must be \"indices\" or \"dictionary\"",
                            key);
    }
  } else {
    return PQ_NOTFOUND;
  }
  return rc;
}

static int apply_params(void *ctx, const char *key, const pq_jvalue *v,
                        pq_error *err) {
  return pq_params_option(ctx, key, v, err);
}

int pq_params_parse_options(pq_params *p, const char *json, size_t n,
                            pq_error *err) {
  return pq_options_parse(json, n, apply_params, p, err);
}

/* The type a stream of this encoding has when the caller names none, or -1
** where the encoding fits several types and the choice matters. */
static int default_type(pq_encoding e) {
  switch (e) {
    case PQ_RLE:
    case PQ_BIT_PACKED: return PQ_INT32;
    case PQ_DELTA_BINARY_PACKED: return PQ_INT64;
    case PQ_DELTA_LENGTH_BYTE_ARRAY:
    case PQ_DELTA_BYTE_ARRAY: return PQ_BYTE_ARRAY;
    default: return -1;
  }
}

int pq_params_resolve(pq_params *p, int need_type, pq_error *err) {
  const char *en = pq_encoding_name(p->encoding);
  if ((unsigned)p->encoding >= PQ_ENCODING_COUNT) {
    return pq_fail(err, PQ_MISUSE, "encoding", "unknown encoding %d",
                   (int)p->encoding);
  }
  const pq_encoding_info *info = pq_encoding_info_get(p->encoding);
  if (!info->implemented) {
    return pq_fail(err, PQ_UNSUPPORTED, en, "not implemented in this version");
  }
  if (!p->type_set) {
    int t = default_type(p->encoding);
    if (t < 0 && need_type) {
      return pq_fail(err, PQ_MISUSE, en,
                     "a physical type is needed (one of %s)", info->types);
    }
    p->type = t < 0 ? PQ_INT64 : (pq_type)t;
  }
  if ((unsigned)p->type > PQ_FIXED_LEN_BYTE_ARRAY) {
    return pq_fail(err, PQ_MISUSE, en, "unknown type %d", (int)p->type);
  }
  if (p->type == PQ_FIXED_LEN_BYTE_ARRAY && p->type_length <= 0) {
    return pq_fail(err, PQ_MISUSE, en,
                   "FIXED_LEN_BYTE_ARRAY needs a length, as in "
                   "FIXED_LEN_BYTE_ARRAY(16)");
  }
  int ok;
  switch (p->encoding) {
    case PQ_RLE: ok = p->type == PQ_BOOLEAN || p->type == PQ_INT32; break;
    case PQ_BIT_PACKED: ok = p->type == PQ_INT32; break;
    default: ok = pq_encoding_supports(p->encoding, p->type);
  }
  if (!ok) {
    return pq_fail(err, PQ_MISUSE, en, "type %s is not supported (%s)",
                   pq_type_name(p->type), info->types);
  }
  if (p->encoding == PQ_RLE || p->encoding == PQ_BIT_PACKED) {
    if (p->type == PQ_BOOLEAN) {
      if (p->bit_width != -1 && p->bit_width != 1) {
        return pq_fail(err, PQ_MISUSE, en,
                       "BOOLEAN values have bit width 1, not %d", p->bit_width);
      }
      p->bit_width = 1;
    } else if (p->bit_width > 32) {
      return pq_fail(err, PQ_MISUSE, en, "bit width %d is above 32",
                     p->bit_width);
    }
    if (p->length_prefix == -1) {
      p->length_prefix = p->encoding == PQ_RLE && p->type == PQ_BOOLEAN;
    }
  }
  return PQ_OK;
}

int pq_params_for_stream(pq_params *p, const pq_params *given, int has_dict,
                         pq_error *err) {
  *p = *given;
  int is_dict =
      p->encoding == PQ_PLAIN_DICTIONARY || p->encoding == PQ_RLE_DICTIONARY;
  return pq_params_resolve(p, !is_dict || has_dict, err);
}
