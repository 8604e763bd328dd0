/*
** thrift.c -- the Thrift compact protocol, as Parquet's metadata uses it.
**
**   field header: one byte, (id delta << 4) | type; a delta of 0 means the
**                 id follows as a zigzag varint
**   i16/i32/i64:  zigzag ULEB128        binary: ULEB128 length, bytes
**   bool field:   in the header's type (1 true, 2 false)
**   list/set:     one byte (size << 4) | element type, size 15 = ULEB128
**   map:          ULEB128 size, then (key type << 4) | value type
**   struct:       fields, then a 0 byte
**
** The reader never trusts a size from the input: a list of n elements must
** have at least n bytes left, a string of n bytes n bytes, and nesting is
** bounded.  After the first fault every read returns zero and the fault is
** kept, so a caller checks once.
*/
#include "format.h"

#define DEPTH_MAX 64

void pq_thrift_init(pq_thrift *t, const uint8_t *buf, size_t len, size_t base,
                    const char *label, pq_error *err) {
  memset(t, 0, sizeof *t);
  t->buf = buf;
  t->len = len;
  t->base = base;
  t->label = label;
  t->err = err;
}

int pq_thrift_fail(pq_thrift *t, const char *what) {
  if (!t->failed) {
    t->failed = PQ_CORRUPT;
    pq_fail(t->err, PQ_CORRUPT, t->label, "%s at offset %zu", what,
            t->base + t->pos);
  }
  return t->failed;
}

static uint64_t read_uleb(pq_thrift *t) {
  uint64_t v = 0;
  if (t->failed) return 0;
  int bad = pq_uleb_read(t->buf, t->len, &t->pos, &v);
  if (bad) {
    pq_thrift_fail(t, bad == 1 ? "Thrift: a varint is cut short"
                               : "Thrift: a varint is over 64 bits");
    return 0;
  }
  return v;
}

int64_t pq_thrift_i64(pq_thrift *t) { return pq_zigzag_dec(read_uleb(t)); }

int32_t pq_thrift_i32(pq_thrift *t) {
  int64_t v = pq_thrift_i64(t);
  if (v < INT32_MIN || v > INT32_MAX) {
    pq_thrift_fail(t, "Thrift: an i32 is out of range");
    return 0;
  }
  return (int32_t)v;
}

int pq_thrift_byte(pq_thrift *t) {
  if (t->failed) return 0;
  if (t->pos >= t->len) {
    pq_thrift_fail(t, "Thrift: the data ends inside a value");
    return 0;
  }
  return t->buf[t->pos++];
}

pq_bytes pq_thrift_binary(pq_thrift *t) {
  pq_bytes b = {(const uint8_t *)"", 0};
  uint64_t n = read_uleb(t);
  if (t->failed) return b;
  if (n > t->len - t->pos) {
    pq_thrift_fail(t, "Thrift: a string runs past the end of the data");
    return b;
  }
  b.ptr = t->buf + t->pos;
  b.len = (size_t)n;
  t->pos += (size_t)n;
  return b;
}

double pq_thrift_double(pq_thrift *t) {
  double d = 0;
  if (t->failed) return 0;
  if (t->len - t->pos < 8) {
    pq_thrift_fail(t, "Thrift: the data ends inside a double");
    return 0;
  }
  uint64_t u = pq_load64(t->buf + t->pos); /* little-endian */
  memcpy(&d, &u, 8);
  t->pos += 8;
  return d;
}

int pq_thrift_field(pq_thrift *t, int *type, int16_t *last_id, int16_t *id) {
  int h = pq_thrift_byte(t);
  if (t->failed || h == 0) return 0; /* STOP */
  *type = h & 15;
  int delta = h >> 4;
  if (delta) {
    *id = (int16_t)(*last_id + delta);
  } else {
    int64_t v = pq_thrift_i64(t);
    if (v < INT16_MIN || v > INT16_MAX) {
      pq_thrift_fail(t, "Thrift: a field id is out of range");
      return 0;
    }
    *id = (int16_t)v;
  }
  *last_id = *id;
  if (*type == PQ_TT_STOP || *type > PQ_TT_STRUCT) {
    pq_thrift_fail(t, "Thrift: unknown field type");
    return 0;
  }
  return 1;
}

uint32_t pq_thrift_list(pq_thrift *t, int *elem_type) {
  int h = pq_thrift_byte(t);
  uint64_t n = (uint64_t)(h >> 4);
  *elem_type = h & 15;
  if (n == 15) n = read_uleb(t);
  if (t->failed) return 0;
  /* Every element takes at least a byte. */
  if (n > t->len - t->pos) {
    pq_thrift_fail(t, "Thrift: a list is longer than the data that remains");
    return 0;
  }
  return (uint32_t)n;
}

int pq_thrift_enter(pq_thrift *t) {
  if (++t->depth > DEPTH_MAX) {
    pq_thrift_fail(t, "Thrift: structures nest too deep");
    return 0;
  }
  return 1;
}

void pq_thrift_leave(pq_thrift *t) { t->depth--; }

void pq_thrift_skip(pq_thrift *t, int type) {
  if (t->failed) return;
  switch (type) {
    case PQ_TT_TRUE:
    case PQ_TT_FALSE:
      return; /* the value was in the field header */
    case PQ_TT_BYTE:
      pq_thrift_byte(t);
      return;
    case PQ_TT_I16:
    case PQ_TT_I32:
    case PQ_TT_I64:
      read_uleb(t);
      return;
    case PQ_TT_DOUBLE:
      if (t->len - t->pos < 8) {
        pq_thrift_fail(t, "Thrift: the data ends inside a double");
      } else {
        t->pos += 8;
      }
      return;
    case PQ_TT_BINARY:
      pq_thrift_binary(t);
      return;
    case PQ_TT_LIST:
    case PQ_TT_SET: {
      int et;
      uint32_t n = pq_thrift_list(t, &et);
      if (!pq_thrift_enter(t)) return;
      for (uint32_t i = 0; i < n && !t->failed; i++) {
        /* Booleans in a collection take a byte each. */
        if (et == PQ_TT_TRUE || et == PQ_TT_FALSE) {
          pq_thrift_byte(t);
        } else {
          pq_thrift_skip(t, et);
        }
      }
      pq_thrift_leave(t);
      return;
    }
    case PQ_TT_MAP: {
      uint64_t n = read_uleb(t);
      if (t->failed || n == 0) return;
      if (n > (t->len - t->pos) / 2) {
        pq_thrift_fail(t, "Thrift: a map is longer than the data that remains");
        return;
      }
      int kv = pq_thrift_byte(t);
      if (!pq_thrift_enter(t)) return;
      for (uint64_t i = 0; i < n && !t->failed; i++) {
        int kt = kv >> 4, vt = kv & 15;
        if (kt == PQ_TT_TRUE || kt == PQ_TT_FALSE) {
          pq_thrift_byte(t);
        } else {
          pq_thrift_skip(t, kt);
        }
        if (vt == PQ_TT_TRUE || vt == PQ_TT_FALSE) {
          pq_thrift_byte(t);
        } else {
          pq_thrift_skip(t, vt);
        }
      }
      pq_thrift_leave(t);
      return;
    }
    case PQ_TT_STRUCT: {
      if (!pq_thrift_enter(t)) return;
      int ft;
      int16_t last = 0, id;
      while (pq_thrift_field(t, &ft, &last, &id)) pq_thrift_skip(t, ft);
      pq_thrift_leave(t);
      return;
    }
    default:
      pq_thrift_fail(t, "Thrift: unknown type");
  }
}

/* ---- Writer ------------------------------------------------------------- */

static void w_field(pq_thrift_writer *w, int16_t id, int type) {
  int16_t delta = (int16_t)(id - w->last[w->depth]);
  if (delta > 0 && delta <= 15) {
    pq_buf_byte(w->out, (uint8_t)(delta << 4 | type));
  } else {
    pq_buf_byte(w->out, (uint8_t)type);
    pq_buf_uleb(w->out, pq_zigzag_enc(id));
  }
  w->last[w->depth] = id;
}

void pq_tw_i64(pq_thrift_writer *w, int16_t id, int64_t v) {
  w_field(w, id, PQ_TT_I64);
  pq_buf_uleb(w->out, pq_zigzag_enc(v));
}

void pq_tw_i8(pq_thrift_writer *w, int16_t id, int8_t v) {
  w_field(w, id, PQ_TT_BYTE);
  pq_buf_byte(w->out, (uint8_t)v);
}

void pq_tw_i32(pq_thrift_writer *w, int16_t id, int32_t v) {
  w_field(w, id, PQ_TT_I32);
  pq_buf_uleb(w->out, pq_zigzag_enc(v));
}

void pq_tw_double(pq_thrift_writer *w, int16_t id, double v) {
  uint64_t u;
  uint8_t b[8];
  w_field(w, id, PQ_TT_DOUBLE);
  memcpy(&u, &v, 8);
  pq_store64(b, u);
  pq_buf_append(w->out, b, 8);
}

void pq_tw_bool(pq_thrift_writer *w, int16_t id, int v) {
  w_field(w, id, v ? PQ_TT_TRUE : PQ_TT_FALSE);
}

void pq_tw_binary(pq_thrift_writer *w, int16_t id, const void *p, size_t n) {
  w_field(w, id, PQ_TT_BINARY);
  pq_buf_uleb(w->out, n);
  pq_buf_append(w->out, p, n);
}

void pq_tw_struct_begin(pq_thrift_writer *w, int16_t id) {
  w_field(w, id, PQ_TT_STRUCT);
  w->last[++w->depth] = 0;
}

void pq_tw_struct_end(pq_thrift_writer *w) {
  pq_buf_byte(w->out, 0);
  w->depth--;
}

void pq_tw_list_begin(pq_thrift_writer *w, int16_t id, int elem_type,
                      uint32_t n) {
  w_field(w, id, PQ_TT_LIST);
  if (n < 15) {
    pq_buf_byte(w->out, (uint8_t)(n << 4 | (uint32_t)elem_type));
  } else {
    pq_buf_byte(w->out, (uint8_t)(0xf0 | elem_type));
    pq_buf_uleb(w->out, n);
  }
}

void pq_tw_list_i32(pq_thrift_writer *w, int32_t v) {
  pq_buf_uleb(w->out, pq_zigzag_enc(v));
}

void pq_tw_list_binary(pq_thrift_writer *w, const void *p, size_t n) {
  pq_buf_uleb(w->out, n);
  pq_buf_append(w->out, p, n);
}

void pq_tw_list_struct_begin(pq_thrift_writer *w) { w->last[++w->depth] = 0; }

void pq_tw_stop(pq_thrift_writer *w) { pq_buf_byte(w->out, 0); }
