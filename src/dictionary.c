/*
** dictionary.c -- PLAIN_DICTIONARY and RLE_DICTIONARY (spec/Encodings.md,
** "Dictionary Encoding").
**
**   index stream: <bit width, 1 byte, at most 32> <RLE/bit-packed runs>
**   dictionary:   the distinct values, PLAIN, in order of first appearance
**
** Both enum values name the same bytes.  Decoding with the dictionary
** yields the values; without it, the indices.  Encoding yields both
** streams; the index width is the least that holds the largest index.
** Values are equal when their bytes are: 0.0 and -0.0, or two NaNs with
** different payloads, are different entries.
*/
#include <stdio.h>

#include "internal.h"

/* ---- The dictionary ------------------------------------------------------ */

/* Numbers are copied into host order (and aligned) so that lookups are
** plain array reads; BYTE_ARRAY entries point into the dictionary. */
int pq_dict_load(pq_dict *d, pq_type t, int32_t type_length, const uint8_t *buf,
                 size_t len, const char *enc, pq_error *err) {
  memset(d, 0, sizeof *d);
  d->type = t;
  char label[64];
  snprintf(label, sizeof label, "%s: dictionary", enc);
  if (t == PQ_BOOLEAN) {
    d->fixed = buf;
    d->entries = len * 8;
    return PQ_OK;
  }
  if (t == PQ_BYTE_ARRAY) {
    size_t n = 0, pos = 0;
    while (pos < len) { /* count, checking every length */
      if (len - pos < 4 || pq_load32(buf + pos) > len - pos - 4) {
        return pq_fail(err, PQ_CORRUPT, label,
                       "entry %zu at offset %zu runs past the end (%zu bytes)",
                       n, pos, len);
      }
      pos += 4 + (size_t)pq_load32(buf + pos);
      n++;
    }
    d->strings = malloc((n ? n : 1) * sizeof *d->strings);
    if (!d->strings) return pq_nomem(err, enc);
    pos = 0;
    for (size_t i = 0; i < n; i++) {
      d->strings[i].len = pq_load32(buf + pos);
      d->strings[i].ptr = buf + pos + 4;
      pos += 4 + d->strings[i].len;
    }
    d->entries = n;
    return PQ_OK;
  }
  size_t w = pq_plain_width(t, type_length);
  if (len % w != 0) {
    return pq_fail(err, PQ_CORRUPT, label,
                   "%zu bytes are not a whole number of %zu-byte %s entries",
                   len, w, pq_type_name(t));
  }
  d->width = w;
  d->entries = len / w;
  d->owned = malloc(len ? len : 1);
  if (!d->owned) return pq_nomem(err, enc);
  pq_buf tmp = {d->owned, 0, len ? len : 1, 0};
  pq_put_le(&tmp, buf, d->entries, w, t); /* LE -> host order */
  d->fixed = d->owned;
  return PQ_OK;
}

void pq_dict_free(pq_dict *d) {
  free(d->strings);
  free(d->owned);
  memset(d, 0, sizeof *d);
}

int pq_dict_check(const pq_dict *d, const uint32_t *idx, size_t *n,
                  uint64_t first, const char *enc, pq_error *err) {
  for (size_t i = 0; i < *n; i++) {
    if (idx[i] >= d->entries) {
      *n = i;
      return pq_fail(err, PQ_CORRUPT, enc,
                     "value %llu: index %u is beyond the dictionary of %zu "
                     "entries",
                     (unsigned long long)(first + i), idx[i], d->entries);
    }
  }
  return PQ_OK;
}

void pq_dict_gather(const pq_dict *d, const uint32_t *ix, size_t n, void *out) {
  switch (d->type) {
    case PQ_BOOLEAN: {
      uint8_t *o = out;
      for (size_t i = 0; i < n; i++)
        o[i] = (d->fixed[ix[i] >> 3] >> (ix[i] & 7)) & 1;
      break;
    }
    case PQ_BYTE_ARRAY: {
      pq_bytes *o = out;
      for (size_t i = 0; i < n; i++) o[i] = d->strings[ix[i]];
      break;
    }
    case PQ_INT32:
    case PQ_FLOAT: {
      uint32_t *o = out;
      const uint32_t *e = (const uint32_t *)(const void *)d->fixed;
      for (size_t i = 0; i < n; i++) o[i] = e[ix[i]];
      break;
    }
    case PQ_INT64:
    case PQ_DOUBLE: {
      uint64_t *o = out;
      const uint64_t *e = (const uint64_t *)(const void *)d->fixed;
      for (size_t i = 0; i < n; i++) o[i] = e[ix[i]];
      break;
    }
    default: {
      uint8_t *o = out;
      for (size_t i = 0; i < n; i++)
        memcpy(o + i * d->width, d->fixed + (size_t)ix[i] * d->width, d->width);
    }
  }
}

int pq_dict_bit_width(const uint8_t *buf, size_t len, int64_t count,
                      const char *enc, int *w, pq_error *err) {
  *w = 0;
  if (len > 0) {
    *w = buf[0];
    if (*w > 32) {
      return pq_fail(err, PQ_CORRUPT, enc,
                     "bit width %d at offset 0 is above 32", *w);
    }
  } else if (count > 0) {
    return pq_fail(err, PQ_CORRUPT, enc,
                   "the stream is empty: no bit width byte");
  }
  return PQ_OK;
}

/* ---- Decoder ------------------------------------------------------------ */

typedef struct dict_dec {
  pq_decoder base;
  pq_rle_reader r;
  const char *label;
  int have_dict;
  pq_dict dict;
  uint32_t idx[256];
} dict_dec;

static int dict_read(pq_decoder *d, void *out, size_t max, size_t *n,
                     pq_error *err) {
  dict_dec *s = (dict_dec *)d;
  if (!s->have_dict) return pq_rle_reader_read(&s->r, out, max, n, err);
  size_t k = 0, vs = pq_value_size(d->out_type, d->out_length);
  while (k < max) {
    size_t got, want = max - k < 256 ? max - k : 256;
    int rc = pq_rle_reader_read(&s->r, s->idx, want, &got, err);
    /* Every index is checked, also those read before a fault. */
    int bad = pq_dict_check(&s->dict, s->idx, &got, d->done + k, s->label, err);
    pq_dict_gather(&s->dict, s->idx, got, (uint8_t *)out + k * vs);
    k += got;
    if (rc || bad) {
      *n = k;
      return bad ? bad : rc;
    }
    if (got < want) break;
  }
  *n = k;
  return PQ_OK;
}

static void dict_destroy(pq_decoder *d) {
  pq_dict_free(&((dict_dec *)d)->dict);
}

int pq_dict_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                    size_t len, const uint8_t *dict, size_t dict_len,
                    pq_error *err) {
  const char *label = pq_encoding_name(p->encoding);
  int w;
  int rc = pq_dict_bit_width(buf, len, p->count, label, &w, err);
  if (rc) return rc;
  dict_dec *s = (dict_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, label);
  *out = &s->base;
  s->label = label;
  s->base.read = dict_read;
  s->base.destroy = dict_destroy;
  pq_rle_reader_init(&s->r, buf + (len > 0), len - (len > 0), 1, w, label);
  if (p->count >= 0) s->r.limit = (uint64_t)p->count;
  if (dict) {
    s->have_dict = 1;
    return pq_dict_load(&s->dict, p->type, p->type_length, dict, dict_len,
                        label, err);
  }
  s->base.out_type = PQ_INT32;
  s->base.out_length = 0;
  s->base.is_index = 1;
  return PQ_OK;
}

/* ---- Encoder ------------------------------------------------------------ */

typedef struct dict_enc {
  pq_encoder base;
  pq_buf keys;      /* the PLAIN dictionary (BOOLEAN: a byte each) */
  size_t *offsets;  /* BYTE_ARRAY: where each entry starts in keys */
  uint32_t *hashes; /* of each entry */
  uint32_t entries, cap_entries;
  uint32_t *slots; /* open addressing: entry + 1, 0 = empty */
  uint32_t nslots; /* a power of two, at least 2 * entries */
  size_t width;    /* PLAIN bytes of a fixed-width value */
  pq_rle_adaptive idx;
} dict_enc;

static uint64_t hash_bytes(const uint8_t *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (n * 0xff51afd7ed558ccdull);
  while (n >= 8) {
    uint64_t x;
    memcpy(&x, p, 8);
    h = (h ^ x) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    p += 8;
    n -= 8;
  }
  uint64_t t = 0;
  for (size_t i = 0; i < n; i++) t |= (uint64_t)p[i] << (8 * i);
  h = (h ^ t) * 0x94d049bb133111ebull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  return h ^ (h >> 32);
}

static const uint8_t *entry_bytes(const dict_enc *s, uint32_t i, size_t *n) {
  if (s->width) {
    *n = s->width;
    return s->keys.data + (size_t)i * s->width;
  }
  *n = pq_load32(s->keys.data + s->offsets[i]);
  return s->keys.data + s->offsets[i] + 4;
}

static int dict_grow_slots(dict_enc *s) {
  if (s->nslots >= (1u << 31)) return PQ_NOMEM;
  uint32_t n = s->nslots ? s->nslots * 2 : 64;
  uint32_t *slots = calloc(n, sizeof *slots);
  if (!slots) return PQ_NOMEM;
  for (uint32_t i = 0; i < s->entries; i++) {
    uint32_t j = s->hashes[i] & (n - 1);
    while (slots[j]) j = (j + 1) & (n - 1);
    slots[j] = i + 1;
  }
  free(s->slots);
  s->slots = slots;
  s->nslots = n;
  return PQ_OK;
}

/* Finds the value's entry, adding it when new; returns its index or -1
** when memory runs out. */
static int64_t dict_lookup(dict_enc *s, const uint8_t *v, size_t n) {
  uint32_t h = (uint32_t)hash_bytes(v, n);
  uint32_t j = h & (s->nslots - 1);
  for (; s->slots[j]; j = (j + 1) & (s->nslots - 1)) {
    uint32_t e = s->slots[j] - 1;
    size_t en;
    if (s->hashes[e] != h) continue;
    const uint8_t *eb = entry_bytes(s, e, &en);
    if (en == n && memcmp(eb, v, n) == 0) return e;
  }
  if (s->entries == UINT32_MAX) return -1;
  if (s->entries == s->cap_entries) {
    uint32_t c = s->cap_entries ? s->cap_entries * 2 : 64;
    uint32_t *hs = realloc(s->hashes, c * sizeof *hs);
    if (!hs) return -1;
    s->hashes = hs;
    if (!s->width) {
      size_t *os = realloc(s->offsets, c * sizeof *os);
      if (!os) return -1;
      s->offsets = os;
    }
    s->cap_entries = c;
  }
  uint32_t e = s->entries;
  if (s->width) {
    pq_buf_append(&s->keys, v, n);
  } else {
    uint8_t len[4];
    pq_store32(len, (uint32_t)n);
    s->offsets[e] = s->keys.len;
    pq_buf_append(&s->keys, len, 4);
    pq_buf_append(&s->keys, v, n);
  }
  if (s->keys.oom) return -1;
  s->hashes[e] = h;
  s->slots[j] = e + 1;
  s->entries++;
  if ((uint64_t)s->entries * 2 > s->nslots && dict_grow_slots(s)) return -1;
  return e;
}

static int dict_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  dict_enc *s = (dict_enc *)e;
  const char *label = pq_encoding_name(e->p.encoding);
  uint32_t ix[256];
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const uint8_t *key;
    size_t klen;
    uint8_t le[16];
    if (e->p.type == PQ_BYTE_ARRAY) {
      const pq_bytes *b = (const pq_bytes *)v + i;
      if (b->len > INT32_MAX) {
        return pq_fail(err, PQ_RANGE, label,
                       "value %llu is %zu bytes; a BYTE_ARRAY value holds at "
                       "most 2147483647",
                       (unsigned long long)(e->count + i), b->len);
      }
      key = b->ptr;
      klen = b->len;
    } else if (e->p.type == PQ_BOOLEAN) {
      le[0] = ((const uint8_t *)v)[i] != 0;
      key = le;
      klen = 1;
    } else if (e->p.type == PQ_FIXED_LEN_BYTE_ARRAY || e->p.type == PQ_INT96) {
      key = (const uint8_t *)v + i * s->width;
      klen = s->width;
    } else {
      pq_buf tmp = {le, 0, sizeof le, 0};
      pq_put_le(&tmp, (const uint8_t *)v + i * s->width, 1, s->width,
                e->p.type);
      key = le;
      klen = s->width;
    }
    int64_t x = dict_lookup(s, key, klen);
    if (x < 0) return pq_nomem(err, label);
    ix[k++] = (uint32_t)x;
    if (k == 256 || i + 1 == n) {
      if (pq_rle_adaptive_put(&s->idx, ix, k)) return pq_nomem(err, label);
      k = 0;
    }
  }
  return PQ_OK;
}

static int dict_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                       pq_error *err) {
  (void)err;
  dict_enc *s = (dict_enc *)e;
  pq_rle_adaptive_flush(&s->idx);
  pq_buf_byte(out, (uint8_t)s->idx.w);
  pq_buf_move(out, &s->idx.buf);
  if (!dict) return PQ_OK;
  if (e->p.type == PQ_BOOLEAN) {
    uint8_t bits = 0;
    for (uint32_t i = 0; i < s->entries; i++)
      bits |= (uint8_t)(s->keys.data[i] << i);
    if (s->entries) pq_buf_byte(dict, bits);
  } else {
    pq_buf_move(dict, &s->keys);
  }
  return PQ_OK;
}

int pq_dict_take_indices(pq_encoder *e, pq_buf *out) {
  dict_enc *s = (dict_enc *)e;
  pq_rle_adaptive_flush(&s->idx);
  pq_buf_byte(out, (uint8_t)s->idx.w);
  pq_buf_move(out, &s->idx.buf);
  pq_rle_adaptive_free(&s->idx);
  pq_rle_adaptive_init(&s->idx);
  return out->oom ? PQ_NOMEM : PQ_OK;
}

uint32_t pq_dict_entries(const pq_encoder *e) {
  return ((const dict_enc *)e)->entries;
}

static size_t dict_size(const pq_encoder *e) {
  const dict_enc *s = (const dict_enc *)e;
  return 1 + s->idx.buf.len + (size_t)s->idx.wr.npending;
}

static void dict_enc_destroy(pq_encoder *e) {
  dict_enc *s = (dict_enc *)e;
  pq_buf_free(&s->keys);
  free(s->offsets);
  free(s->hashes);
  free(s->slots);
  pq_rle_adaptive_free(&s->idx);
}

int pq_dict_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  const char *label = pq_encoding_name(p->encoding);
  dict_enc *s = (dict_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, label);
  s->base.put = dict_put;
  s->base.finish = dict_finish;
  s->base.destroy = dict_enc_destroy;
  s->base.size = dict_size;
  *out = &s->base;
  s->width =
      p->type == PQ_BOOLEAN ? 1 : pq_plain_width(p->type, p->type_length);
  pq_rle_adaptive_init(&s->idx);
  return dict_grow_slots(s) ? pq_nomem(err, label) : PQ_OK;
}
