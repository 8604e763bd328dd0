/*
** explain_variant.c -- the walker of the Variant Binary Encoding
** (spec/VariantEncoding.md): a variant's metadata and its value, byte by
** byte, with its own reading of them.
**
**   metadata                          the whole metadata
**   metadata.header                   .version, .sorted_strings,
**                                     .offset_size_minus_one
**   metadata.dictionary_size
**   metadata.offset[0] ... offset[n]
**   metadata.name[0] ... name[n-1]
**   value                             the whole value
**   value.header                      .basic_type, then by basic type:
**                                     .primitive_type, .length, .is_large,
**                                     .field_id_size_minus_one,
**                                     .field_offset_size_minus_one
**   value.data                        a primitive's bytes (decimals:
**                                     value.scale, value.unscaled;
**                                     strings and binary: value.length,
**                                     value.data)
**   value.num_elements, value.field_id[i], value.field_offset[i]
**   value.field[i]("name")            an object's field, walked as a value
**   value.element[i]                  an array's element
**   value.gap                         bytes among the values none takes
**   rest                              bytes after the value
**
** The elements are walked in byte order (an object's values need not be in
** the order of its fields), so that rows never go back.  Two values may not
** share bytes: otherwise a few bytes could name the same value again and
** again, and the walk would never end.  Values nest at most 128 deep.
** A fault is told in the row after the last one that reads, with what and
** where.  Nothing is read past the bytes given: every size and offset is
** checked against them first.
*/
#include <stdio.h>

#include "explain.h"

#define VX_DEPTH 128

enum {
  VX_BOTH = 0,  /* metadata || value */
  VX_META = 1,  /* a metadata alone */
  VX_VALUE = 2  /* a value alone */
};

enum { T_META, T_VALUE, T_REST, T_END };

enum {
  M_WHOLE,
  M_HEADER,
  M_VERSION,
  M_SORTED,
  M_OFFSIZE,
  M_SIZE,
  M_OFFSET,
  M_NAME,
  M_DONE
};

enum {
  F_WHOLE,
  F_HEADER,
  F_BASIC,
  F_SUB, /* the header's fields after basic_type, by sub */
  F_DATA,
  F_COUNT,
  F_IDS,
  F_OFFSETS,
  F_ORDER,
  F_ELEMENTS,
  F_TAIL,
  F_DONE
};

/* A value being walked: the root, or an element of an object or array. */
typedef struct vx_frame {
  size_t at;       /* its header byte */
  size_t limit;    /* the end of the bytes it may take */
  size_t end;      /* its end, once known */
  size_t plen;     /* its path's length */
  uint32_t index;  /* an element: its index in its object or array */
  int phase, sub;
  int basic;
  uint8_t hdr;
  /* A primitive. */
  int type;
  uint32_t blen;   /* a string's or binary's length */
  /* An object or an array. */
  uint32_t n;
  int large, id_size, off_size;
  size_t ids_at, offs_at, data_at;
  uint64_t data_len; /* the last offset */
  uint32_t i;        /* the next id, offset or element */
  uint64_t prev;     /* the offset before, while they rise */
  int rising;        /* the offsets rise: elements in index order */
  uint64_t *order;   /* else (offset << 32 | index), sorted */
  size_t cursor;     /* the end of the values walked */
} vx_frame;

struct ex_variant {
  const uint8_t *buf;  /* the bytes offsets count in */
  size_t start, end;   /* the variant's bytes */
  int part;
  int top;
  char prefix[48];     /* before every path: "" or "value[3]." */
  /* The metadata: walked, or given apart (names only). */
  int names;           /* field ids resolve to names */
  const uint8_t *mbuf;
  size_t m_at, m_end;  /* its bytes in mbuf, at most */
  uint8_t m_hdr;
  int m_off;           /* offset_size */
  uint32_t dict_n;
  size_t m_offs_at, m_names_at;
  uint64_t m_names_len;
  int m_phase;
  uint32_t m_i;
  uint64_t m_prev;
  /* The value. */
  size_t value_at;
  int depth;
  vx_frame st[VX_DEPTH];
  char path[9000];     /* 128 values deep, each a field[i]("name") */
  size_t plen;
  char where[104];     /* the path for a message (vx_where) */
  char text[192];      /* a value's text, while its row is current */
  pq_error err;
  size_t fault_at;
};

/* ---- Reading ------------------------------------------------------------- */

static uint64_t vx_le(const uint8_t *p, int k) {
  uint64_t v = 0;
  for (int i = k - 1; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* The fault: the walk's next result is -1. */
static int vx_fail(ex_variant *v, size_t at, const char *fmt, ...)
    PQ_PRINTF(3, 4);
static int vx_fail(ex_variant *v, size_t at, const char *fmt, ...) {
  int k = snprintf(v->err.msg, sizeof v->err.msg, "VARIANT: ");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(v->err.msg + k, sizeof v->err.msg - (size_t)k, fmt, ap);
  va_end(ap);
  v->err.code = PQ_CORRUPT;
  v->fault_at = at;
  v->top = T_END;
  return -1;
}

/* Fails unless n bytes lie at `at` before limit. */
static int vx_need(ex_variant *v, size_t at, size_t limit, uint64_t n,
                   const char *what) {
  size_t left = at < limit ? limit - at : 0;
  if (n <= left) return 0;
  return vx_fail(v, at, "%s%s needs %llu byte%s at offset %zu, %zu remain%s",
                 v->prefix, what, (unsigned long long)n, ex_s(n), at, left,
                 left == 1 ? "s" : "");
}

/* The current value's path for a message: its middle left out when it is
** long, so that the message keeps its end. */
static const char *vx_where(ex_variant *v) {
  char *o = v->where;
  if (v->plen <= 100) {
    memcpy(o, v->path, v->plen);
    o[v->plen] = 0;
  } else {
    memcpy(o, v->path, 40);
    memcpy(o + 40, "...", 3);
    memcpy(o + 43, v->path + v->plen - 57, 57);
    o[100] = 0;
  }
  return o;
}

/* vx_need for a part of the current value: named by its path. */
static int vx_need_v(ex_variant *v, size_t at, size_t limit, uint64_t n,
                     const char *leaf) {
  char what[160];
  snprintf(what, sizeof what, "%s.%s", vx_where(v), leaf);
  return vx_need(v, at, limit, n, what);
}

/* The path of the current frame, then ".leaf". */
static void vx_path(ex_variant *v, pq_field *f, size_t at, uint64_t len,
                    const char *leaf) {
  ex_row(f, at, len, "%s%.*s%s%s", v->prefix, (int)v->plen, v->path,
         leaf[0] ? "." : "", leaf);
}

static void vx_push_path(ex_variant *v, const char *fmt, ...) PQ_PRINTF(2, 3);
static void vx_push_path(ex_variant *v, const char *fmt, ...) {
  size_t cap = sizeof v->path - v->plen;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(v->path + v->plen, cap, fmt, ap);
  va_end(ap);
  if (k < 0) k = 0;
  v->plen += (size_t)k < cap ? (size_t)k : cap - 1;
}

static void vx_uint(pq_field *f, uint64_t u) {
  f->kind = PQ_FV_UINT;
  f->u = u;
}

static void vx_text(pq_field *f, const void *p, size_t n, int text) {
  f->kind = PQ_FV_BYTES;
  f->bytes = n ? p : (const uint8_t *)"";
  f->nbytes = n;
  f->text = text;
}

/* "1 byte, little endian" and the like. */
static const char *vx_bytes_le(int k) {
  static const char *const w[] = {"", "1 byte", "2 bytes, little endian",
                                  "3 bytes, little endian",
                                  "4 bytes, little endian"};
  return k >= 1 && k <= 4 ? w[k] : "";
}

/* The id-th name of the dictionary (checked when it was read). */
static void vx_name(const ex_variant *v, uint32_t id, const uint8_t **p,
                    size_t *n) {
  const uint8_t *o = v->mbuf + v->m_offs_at + (size_t)id * (size_t)v->m_off;
  uint64_t a = vx_le(o, v->m_off), b = vx_le(o + v->m_off, v->m_off);
  *p = v->mbuf + v->m_names_at + a;
  *n = (size_t)(b - a);
}

/* A name in a note or path: printable, short, without quotes. */
static int vx_plain_name(const uint8_t *p, size_t n) {
  if (n == 0 || n > 40) return 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] < 0x20 || p[i] == 0x7f || p[i] == '"' || p[i] == '\\') return 0;
  }
  return 1;
}

/* ---- Text of values, as the project writes them (doc/values.md) ---------- */

/* A little-endian two's complement integer of k bytes (at most 16), with
** scale digits after the point: all its digits (pq_text_decimal reads
** big-endian ones). */
static void vx_decimal(char *s, size_t cap, const uint8_t *p, int k,
                       int scale) {
  uint8_t be[16] = {0}; /* (k may be 0: none of it read) */
  for (int i = 0; i < k; i++) be[i] = p[k - 1 - i];
  pq_text_decimal(s, cap, be, (size_t)k, scale);
}

/* ---- The primitive types ------------------------------------------------- */

typedef struct vx_prim {
  const char *name;
  int size;          /* bytes after the header; -1: a 4-byte length first */
  const char *words; /* what the bytes are */
} vx_prim;

static const vx_prim vx_prims[] = {
    {"null", 0, "no bytes"},
    {"boolean true", 0, "no bytes: the type is the value"},
    {"boolean false", 0, "no bytes: the type is the value"},
    {"int8", 1, "1 byte"},
    {"int16", 2, "2 bytes, little endian"},
    {"int32", 4, "4 bytes, little endian"},
    {"int64", 8, "8 bytes, little endian"},
    {"double", 8, "IEEE 754, 8 bytes, little endian"},
    {"decimal4", 5, "a 1-byte scale, then a 4-byte unscaled value"},
    {"decimal8", 9, "a 1-byte scale, then an 8-byte unscaled value"},
    {"decimal16", 17, "a 1-byte scale, then a 16-byte unscaled value"},
    {"date", 4, "days since 1970-01-01, 4 bytes, little endian"},
    {"timestamp", 8,
     "microseconds since 1970-01-01 00:00:00 UTC, 8 bytes, little endian"},
    {"timestamp without time zone", 8,
     "microseconds since 1970-01-01 00:00:00, 8 bytes, little endian"},
    {"float", 4, "IEEE 754, 4 bytes, little endian"},
    {"binary", -1, "a 4-byte length, then the bytes"},
    {"string", -1, "a 4-byte length, then UTF-8 bytes"},
    {"time without time zone", 8,
     "microseconds since midnight, 8 bytes, little endian"},
    {"timestamp with time zone, nanoseconds", 8,
     "nanoseconds since 1970-01-01 00:00:00 UTC, 8 bytes, little endian"},
    {"timestamp without time zone, nanoseconds", 8,
     "nanoseconds since 1970-01-01 00:00:00, 8 bytes, little endian"},
    {"uuid", 16, "16 bytes, big endian"},
};
#define VX_PRIMS ((int)(sizeof vx_prims / sizeof vx_prims[0]))

/* The size of the value at buf[at..limit) when its header and tables say
** it without a walk; 0 when they do not (the walk then tells the fault). */
static uint64_t vx_size(const uint8_t *b, size_t at, size_t limit) {
  if (at >= limit) return 0;
  uint8_t h = b[at];
  size_t left = limit - at;
  switch (h & 3) {
    case 0: {
      int t = h >> 2;
      if (t >= VX_PRIMS) return 0;
      if (vx_prims[t].size >= 0) return 1 + (uint64_t)vx_prims[t].size;
      if (left < 5) return 0;
      return 5 + vx_le(b + at + 1, 4);
    }
    case 1: return 1 + (uint64_t)(h >> 2);
    default: {
      int obj = (h & 3) == 2;
      int large = obj ? (h >> 6) & 1 : (h >> 4) & 1;
      int ids = obj ? ((h >> 4) & 3) + 1 : 0, offs = ((h >> 2) & 3) + 1;
      int cb = large ? 4 : 1;
      if (left < 1 + (size_t)cb) return 0;
      uint64_t n = vx_le(b + at + 1, cb);
      uint64_t head = 1 + (uint64_t)cb + n * (uint64_t)ids +
                      (n + 1) * (uint64_t)offs;
      if (head > left) return 0;
      return head + vx_le(b + at + head - (uint64_t)offs, offs);
    }
  }
}

/* ---- The metadata --------------------------------------------------------- */

/* The checks of a dictionary offset or name as they are read; a fault is
** -1. */
static int vx_meta_offset(ex_variant *v, size_t at, uint32_t i, uint64_t o,
                          const char *pre) {
  uint64_t room = v->m_end - v->m_names_at;
  if (i == 0 && o != 0) {
    return vx_fail(v, at, "%s%soffset[0] is %llu, where the first offset is "
                   "always 0 (offset %zu)",
                   v->prefix, pre, (unsigned long long)o, at);
  }
  if (o < v->m_prev) {
    return vx_fail(v, at, "%s%soffset[%u] is %llu, before offset[%u], %llu "
                   "(offset %zu)",
                   v->prefix, pre, i, (unsigned long long)o, i - 1,
                   (unsigned long long)v->m_prev, at);
  }
  if (o > room) {
    return vx_fail(v, at, "%s%soffset[%u] is %llu, past the %llu byte%s left "
                   "for the names (offset %zu)",
                   v->prefix, pre, i, (unsigned long long)o,
                   (unsigned long long)room, ex_s(room), at);
  }
  v->m_prev = o;
  return 0;
}

static int vx_meta_name(ex_variant *v, uint32_t i, const char *pre) {
  const uint8_t *p, *q;
  size_t n, m;
  vx_name(v, i, &p, &n);
  size_t at = (size_t)(p - v->mbuf);
  if (!pq_utf8_valid(p, n)) {
    return vx_fail(v, at, "%s%sname[%u] is not UTF-8 (offset %zu)", v->prefix,
                   pre, i, at);
  }
  if (i > 0 && (v->m_hdr & 0x10)) {
    vx_name(v, i - 1, &q, &m);
    size_t k = n < m ? n : m;
    int c = k ? memcmp(q, p, k) : 0;
    if (c > 0 || (c == 0 && m >= n)) {
      return vx_fail(v, at, "%s%sname[%u] does not come after name[%u], yet "
                     "sorted_strings says the names are sorted and unique "
                     "(offset %zu)",
                     v->prefix, pre, i, i - 1, at);
    }
  }
  return 0;
}

/* Reads the header, size and offsets of a metadata at mbuf[m_at..m_end). */
static int vx_meta_head(ex_variant *v, const char *pre) {
  const uint8_t *b = v->mbuf;
  size_t at = v->m_at;
  if (vx_need(v, at, v->m_end, 1, "metadata.header")) return -1;
  v->m_hdr = b[at];
  v->m_off = ((b[at] >> 6) & 3) + 1;
  if ((b[at] & 15) != 1) {
    return vx_fail(v, at, "%s%sversion is %d, where 1 is the only version "
                   "(offset %zu)",
                   v->prefix, pre, b[at] & 15, at);
  }
  return 0;
}

/* A metadata given apart from its value: read and checked whole, for its
** names. */
static int vx_meta_read(ex_variant *v, const uint8_t *p, size_t n,
                        pq_error *err) {
  static const char pre[] = "the metadata's ";
  v->mbuf = p;
  v->m_at = 0;
  v->m_end = n;
  v->m_prev = 0;
  int rc = vx_meta_head(v, pre);
  if (!rc) rc = vx_need(v, 1, n, (uint64_t)v->m_off, "metadata.dictionary_size");
  if (!rc) {
    v->dict_n = (uint32_t)vx_le(p + 1, v->m_off);
    v->m_offs_at = 1 + (size_t)v->m_off;
    rc = vx_need(v, v->m_offs_at, n,
                 ((uint64_t)v->dict_n + 1) * (uint64_t)v->m_off,
                 "metadata.offset");
  }
  if (!rc) {
    v->m_names_at = v->m_offs_at + ((size_t)v->dict_n + 1) * (size_t)v->m_off;
    for (uint32_t i = 0; !rc && i <= v->dict_n; i++) {
      size_t at = v->m_offs_at + (size_t)i * (size_t)v->m_off;
      rc = vx_meta_offset(v, at, i, vx_le(p + at, v->m_off), pre);
    }
  }
  for (uint32_t i = 0; !rc && i < v->dict_n; i++) rc = vx_meta_name(v, i, pre);
  if (rc) {
    *err = v->err;
    return PQ_CORRUPT;
  }
  v->names = 1;
  return PQ_OK;
}

/* The metadata's rows, one a call: 1, or 0 when it is done. */
static int vx_meta_step(ex_variant *v, pq_field *f) {
  const uint8_t *b = v->buf;
  size_t at = v->m_at;
  uint8_t h = at < v->end ? b[at] : 0;
  switch (v->m_phase) {
    case M_WHOLE: {
      uint64_t size = 0;
      if (v->end - at >= 1 + (size_t)((h >> 6) + 1)) {
        int k = (h >> 6) + 1;
        uint64_t n = vx_le(b + at + 1, k);
        uint64_t head = 1 + (uint64_t)k + (n + 1) * (uint64_t)k;
        if (head <= v->end - at) {
          size = head + vx_le(b + at + head - (uint64_t)k, k);
        }
      }
      if (size == 0 || size > v->end - at) size = v->end - at;
      ex_row(f, at, size, "%smetadata", v->prefix);
      ex_note(f, "the metadata: a header, the dictionary's size, its "
              "offsets and its names");
      v->m_phase = M_HEADER;
      return 1;
    }
    case M_HEADER:
      if (vx_need(v, at, v->end, 1, "metadata.header")) return -1;
      v->m_hdr = h;
      v->m_off = ((h >> 6) & 3) + 1;
      ex_row(f, at, 1, "%smetadata.header", v->prefix);
      ex_bits_bytes(f, b + at, 1);
      strcpy(f->labels, "OO.SVVVV");
      vx_uint(f, h);
      ex_note(f, "version %d (V), sorted_strings %d (S), offset_size_minus_one "
              "%d (O); bit 5 is reserved",
              h & 15, (h >> 4) & 1, (h >> 6) & 3);
      v->m_phase = M_VERSION;
      return 1;
    case M_VERSION:
      ex_row(f, at, 1, "%smetadata.header.version", v->prefix);
      ex_bits_value(f, h & 15, 4);
      vx_uint(f, h & 15);
      ex_note(f, "bits 0 to 3: version %d%s", h & 15,
              (h & 15) == 1 ? ", the only one" : "");
      v->m_phase = M_SORTED;
      return 1;
    case M_SORTED:
      if (vx_meta_head(v, "the metadata's ")) return -1;
      ex_row(f, at, 1, "%smetadata.header.sorted_strings", v->prefix);
      ex_bits_value(f, (h >> 4) & 1, 1);
      vx_uint(f, (h >> 4) & 1);
      ex_note(f, "bit 4: %s", h & 0x10
                                  ? "1, the names are sorted and unique"
                                  : "0, the names may be in any order, and "
                                    "repeat");
      v->m_phase = M_OFFSIZE;
      return 1;
    case M_OFFSIZE:
      ex_row(f, at, 1, "%smetadata.header.offset_size_minus_one", v->prefix);
      ex_bits_value(f, (h >> 6) & 3, 2);
      vx_uint(f, (h >> 6) & 3);
      ex_note(f, "bits 6 and 7: %d, the dictionary's size and offsets take %d "
              "byte%s each",
              (h >> 6) & 3, v->m_off, ex_s((uint64_t)v->m_off));
      v->m_phase = M_SIZE;
      return 1;
    case M_SIZE: {
      size_t p = at + 1;
      if (vx_need(v, p, v->end, (uint64_t)v->m_off, "metadata.dictionary_size"))
        return -1;
      v->dict_n = (uint32_t)vx_le(b + p, v->m_off);
      v->m_offs_at = p + (size_t)v->m_off;
      ex_row(f, p, (uint64_t)v->m_off, "%smetadata.dictionary_size",
             v->prefix);
      ex_bits_bytes(f, b + p, (size_t)v->m_off);
      vx_uint(f, v->dict_n);
      ex_note(f, "%s: %u name%s, so %llu offset%s follow%s",
              vx_bytes_le(v->m_off), v->dict_n, ex_s(v->dict_n),
              (unsigned long long)v->dict_n + 1,
              ex_s((uint64_t)v->dict_n + 1), v->dict_n ? "" : "s");
      v->m_phase = M_OFFSET;
      v->m_i = 0;
      v->m_prev = 0;
      return 1;
    }
    case M_OFFSET: {
      if (v->m_i == 0) {
        uint64_t need = ((uint64_t)v->dict_n + 1) * (uint64_t)v->m_off;
        size_t left = v->end - v->m_offs_at;
        if (need > left) {
          return vx_fail(v, v->m_offs_at, "%smetadata.offset: %u names need "
                         "%llu offsets, %llu bytes at offset %zu, %zu "
                         "remain%s",
                         v->prefix, v->dict_n,
                         (unsigned long long)v->dict_n + 1,
                         (unsigned long long)need, v->m_offs_at, left,
                         left == 1 ? "s" : "");
        }
      }
      v->m_names_at =
          v->m_offs_at + ((size_t)v->dict_n + 1) * (size_t)v->m_off;
      uint32_t i = v->m_i;
      size_t p = v->m_offs_at + (size_t)i * (size_t)v->m_off;
      uint64_t o = vx_le(b + p, v->m_off);
      if (vx_meta_offset(v, p, i, o, "metadata.")) return -1;
      ex_row(f, p, (uint64_t)v->m_off, "%smetadata.offset[%u]", v->prefix, i);
      ex_bits_bytes(f, b + p, (size_t)v->m_off);
      vx_uint(f, o);
      if (i < v->dict_n) {
        ex_note(f, "%s: name %u begins at byte %llu of the names (offset "
                "%llu)",
                vx_bytes_le(v->m_off), i, (unsigned long long)o,
                (unsigned long long)(v->m_names_at + o));
      } else {
        ex_note(f, "%s: the names take %llu byte%s, so the metadata ends at "
                "offset %llu",
                vx_bytes_le(v->m_off), (unsigned long long)o, ex_s(o),
                (unsigned long long)(v->m_names_at + o));
        v->m_names_len = o;
        v->m_phase = M_NAME;
        v->m_i = 0;
        return 1;
      }
      v->m_i++;
      return 1;
    }
    case M_NAME: {
      if (v->m_i >= v->dict_n) {
        v->m_phase = M_DONE;
        v->names = 1;
        return 0;
      }
      uint32_t i = v->m_i++;
      if (vx_meta_name(v, i, "metadata.")) return -1;
      const uint8_t *p;
      size_t n;
      vx_name(v, i, &p, &n);
      char d[96];
      pq_bytes nb = {p, n};
      ex_describe(d, sizeof d, PQ_BYTE_ARRAY, 0, &nb);
      ex_row(f, (size_t)(p - b), n, "%smetadata.name[%u]", v->prefix, i);
      vx_text(f, p, n, 1);
      ex_note(f, "name %u of the dictionary, %zu byte%s: %s", i, n, ex_s(n),
              d);
      return 1;
    }
    default: return 0;
  }
}

/* ---- The value ------------------------------------------------------------ */

static vx_frame *vx_push(ex_variant *v, size_t at, size_t limit) {
  vx_frame *fr = &v->st[v->depth++];
  memset(fr, 0, sizeof *fr);
  fr->at = at;
  fr->limit = limit;
  fr->plen = v->plen;
  fr->phase = F_WHOLE;
  return fr;
}

static void vx_pop(ex_variant *v) {
  vx_frame *fr = &v->st[--v->depth];
  pq_free(fr->order);
  fr->order = NULL;
  size_t end = fr->end;
  if (v->depth > 0) {
    vx_frame *up = &v->st[v->depth - 1];
    up->cursor = end;
    v->plen = up->plen;
  } else {
    v->value_at = end; /* where the rest begins */
  }
}

/* The header's fields after basic_type: the number of rows, and row k. */
static int vx_header_rows(const vx_frame *fr) {
  return fr->basic == 0 || fr->basic == 1 ? 1 : fr->basic == 2 ? 3 : 2;
}

static void vx_header_row(ex_variant *v, vx_frame *fr, pq_field *f) {
  int h = fr->hdr >> 2, k = fr->sub;
  if (fr->basic == 0) {
    vx_path(v, f, fr->at, 1, "header.primitive_type");
    ex_bits_value(f, (uint64_t)h, 6);
    vx_uint(f, (uint64_t)h);
    ex_note(f, "bits 2 to 7: %d, %s: %s", h, vx_prims[h].name,
            vx_prims[h].words);
    return;
  }
  if (fr->basic == 1) {
    vx_path(v, f, fr->at, 1, "header.length");
    ex_bits_value(f, (uint64_t)h, 6);
    vx_uint(f, (uint64_t)h);
    ex_note(f, "bits 2 to 7: a short string of %d byte%s", h,
            ex_s((uint64_t)h));
    return;
  }
  int obj = fr->basic == 2;
  if (k == 0) {
    int bit = obj ? 6 : 4;
    vx_path(v, f, fr->at, 1, "header.is_large");
    ex_bits_value(f, (uint64_t)fr->large, 1);
    vx_uint(f, (uint64_t)fr->large);
    ex_note(f, "bit %d: %d, num_elements takes %d byte%s", bit, fr->large,
            fr->large ? 4 : 1, fr->large ? "s" : "");
  } else if (obj && k == 1) {
    vx_path(v, f, fr->at, 1, "header.field_id_size_minus_one");
    ex_bits_value(f, (uint64_t)fr->id_size - 1, 2);
    vx_uint(f, (uint64_t)fr->id_size - 1);
    ex_note(f, "bits 4 and 5: %d, each field id takes %d byte%s",
            fr->id_size - 1, fr->id_size, ex_s((uint64_t)fr->id_size));
  } else {
    vx_path(v, f, fr->at, 1, "header.field_offset_size_minus_one");
    ex_bits_value(f, (uint64_t)fr->off_size - 1, 2);
    vx_uint(f, (uint64_t)fr->off_size - 1);
    ex_note(f, "bits 2 and 3: %d, each field offset takes %d byte%s",
            fr->off_size - 1, fr->off_size, ex_s((uint64_t)fr->off_size));
  }
}

/* A primitive's data rows: row fr->sub; 0 when there are no more. */
static int vx_data_row(ex_variant *v, vx_frame *fr, pq_field *f) {
  const uint8_t *b = v->buf;
  size_t p = fr->at + 1;
  int t = fr->type, k = fr->sub++;
  char *s = v->text;
  size_t cap = sizeof v->text;
  if (fr->basic == 1) {
    if (k > 0) return 0;
    uint64_t n = (uint64_t)(fr->hdr >> 2);
    if (vx_need_v(v, p, fr->limit, n, "data")) return -1;
    if (!pq_utf8_valid(b + p, (size_t)n)) {
      return vx_fail(v, p, "%s%s: the short string is not UTF-8 (offset %zu)",
                     v->prefix, vx_where(v), p);
    }
    pq_bytes sb = {b + p, (size_t)n};
    char d[96];
    ex_describe(d, sizeof d, PQ_BYTE_ARRAY, 0, &sb);
    vx_path(v, f, p, n, "data");
    vx_text(f, b + p, (size_t)n, 1);
    ex_note(f, "%llu byte%s of UTF-8: %s", (unsigned long long)n, ex_s(n), d);
    fr->end = p + (size_t)n;
    return 1;
  }
  int size = vx_prims[t].size;
  if (size == 0) {
    fr->end = p;
    return 0;
  }
  if (size < 0) { /* binary, string: a length, then the bytes */
    if (k == 0) {
      if (vx_need_v(v, p, fr->limit, 4, "length")) return -1;
      fr->blen = (uint32_t)vx_le(b + p, 4);
      vx_path(v, f, p, 4, "length");
      ex_bits_bytes(f, b + p, 4);
      vx_uint(f, fr->blen);
      ex_note(f, "4 bytes, little endian: %u byte%s follow", fr->blen,
              ex_s(fr->blen));
      return 1;
    }
    if (k > 1) return 0;
    p += 4;
    if (vx_need_v(v, p, fr->limit, fr->blen, "data")) return -1;
    pq_bytes sb = {b + p, fr->blen};
    char d[96];
    vx_path(v, f, p, fr->blen, "data");
    fr->end = p + fr->blen;
    if (t == 16) {
      if (!pq_utf8_valid(b + p, fr->blen)) {
        return vx_fail(v, p, "%s%s: the string is not UTF-8 (offset %zu)",
                       v->prefix, vx_where(v), p);
      }
      ex_describe(d, sizeof d, PQ_BYTE_ARRAY, 0, &sb);
      vx_text(f, b + p, fr->blen, 1);
      ex_note(f, "%u byte%s of UTF-8: %s", fr->blen, ex_s(fr->blen), d);
    } else {
      size_t o = (size_t)snprintf(d, sizeof d, "X'");
      for (uint32_t i = 0; i < fr->blen && i < 32; i++) {
        o += (size_t)snprintf(d + o, sizeof d - o, "%02X", b[p + i]);
      }
      snprintf(d + o, sizeof d - o, fr->blen > 32 ? "...'" : "'");
      vx_text(f, b + p, fr->blen, 0);
      ex_note(f, "%u byte%s: %s", fr->blen, ex_s(fr->blen), d);
    }
    return 1;
  }
  if (k == 0 && vx_need_v(v, p, fr->limit, (uint64_t)size,
                            t >= 8 && t <= 10 ? "scale" : "data")) {
    return -1;
  }
  fr->end = p + (size_t)size;
  if (t >= 8 && t <= 10) { /* decimals: the scale, then the unscaled value */
    int w = size - 1, scale = b[p];
    if (k == 0) {
      if (scale > 38) {
        return vx_fail(v, p, "%s%s: the decimal's scale is %d, past 38 "
                       "(offset %zu)",
                       v->prefix, vx_where(v), scale, p);
      }
      vx_path(v, f, p, 1, "scale");
      vx_uint(f, (uint64_t)scale);
      ex_note(f, "1 byte: %d digit%s after the point", scale,
              ex_s((uint64_t)scale));
      return 1;
    }
    if (k > 1) return 0;
    vx_decimal(s, cap, b + p + 1, w, scale);
    vx_path(v, f, p + 1, (uint64_t)w, "unscaled");
    ex_bits_bytes(f, b + p + 1, (size_t)w);
    vx_text(f, s, strlen(s), 1);
    char u[48];
    vx_decimal(u, sizeof u, b + p + 1, w, 0);
    ex_note(f, "%d bytes, little endian, two's complement: %s, with scale "
            "%d: %s",
            w, u, scale, s);
    return 1;
  }
  if (k > 0) return 0;
  const uint8_t *q = b + p;
  vx_path(v, f, p, (uint64_t)size, "data");
  if (size <= 8) ex_bits_bytes(f, q, (size_t)size);
  uint64_t raw = size <= 8 ? vx_le(q, size) : 0;
  switch (t) {
    case 3: case 4: case 5: case 6: {
      int64_t x = (int64_t)(raw << (64 - 8 * size)) >> (64 - 8 * size);
      f->kind = PQ_FV_INT;
      f->i = x;
      ex_note(f, "%s: %lld", vx_prims[t].words, (long long)x);
      return 1;
    }
    case 7: case 14: {
      char num[48];
      if (t == 7) {
        double d;
        memcpy(&d, &raw, 8);
        f->r = d;
        pq_json_number(num, PQ_DOUBLE, &d);
      } else {
        uint32_t r32 = (uint32_t)raw;
        float x;
        memcpy(&x, &r32, 4);
        f->r = x;
        pq_json_number(num, PQ_FLOAT, &x);
      }
      f->kind = f->r == f->r ? PQ_FV_REAL : PQ_FV_NONE;
      ex_note(f, "%s: %s", vx_prims[t].words,
              f->r == f->r ? num : "NaN");
      return 1;
    }
    case 11: {
      int32_t days = (int32_t)(uint32_t)raw;
      pq_text_date(s, cap, days);
      vx_text(f, s, strlen(s), 1);
      ex_note(f, "%s: %d = %s", vx_prims[t].words, days, s);
      return 1;
    }
    case 12: case 13: case 18: case 19: {
      int nanos = t >= 18;
      pq_text_timestamp(s, cap, (int64_t)raw, nanos ? 3 : 2);
      vx_text(f, s, strlen(s), 1);
      ex_note(f, "%s: %lld = %s%s", vx_prims[t].words, (long long)raw, s,
              t == 12 || t == 18 ? " (UTC)" : "");
      return 1;
    }
    case 17:
      pq_text_time(s, cap, (int64_t)raw, 1000000, 6);
      vx_text(f, s, strlen(s), 1);
      ex_note(f, "%s: %lld = %s", vx_prims[t].words, (long long)raw, s);
      return 1;
    default: /* 20, uuid */
      ex_bits_bytes(f, q, 16);
      pq_text_uuid(s, cap, q);
      vx_text(f, s, strlen(s), 1);
      ex_note(f, "%s: %s", vx_prims[t].words, s);
      return 1;
  }
}

static int vx_by_offset(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* The index of the element walked k-th, and its offset. */
static uint32_t vx_element(const ex_variant *v, const vx_frame *fr, uint32_t k,
                           uint64_t *off) {
  uint32_t i = fr->order ? (uint32_t)(fr->order[k] & 0xffffffffu) : k;
  *off = vx_le(v->buf + fr->offs_at + (size_t)i * (size_t)fr->off_size,
               fr->off_size);
  return i;
}

/* One row of the value's walk: 1, 0 when the value is done, -1 at a
** fault. */
static int vx_value_step(ex_variant *v, pq_field *f) {
  const uint8_t *b = v->buf;
  for (;;) {
    if (v->depth == 0) return 0;
    vx_frame *fr = &v->st[v->depth - 1];
    switch (fr->phase) {
      case F_WHOLE: {
        uint64_t size = vx_size(b, fr->at, fr->limit);
        if (size == 0 || size > fr->limit - fr->at) {
          size = fr->at < fr->limit ? fr->limit - fr->at : 0;
        }
        fr->phase = F_HEADER;
        if (v->depth == 1) {
          vx_path(v, f, fr->at, size, "");
          ex_note(f, "the value: a header byte, then what its basic type "
                  "says");
          return 1;
        }
        /* An element: its row names it. */
        vx_frame *up = fr - 1;
        uint32_t i = fr->index;
        uint64_t off = fr->at - up->data_at;
        vx_path(v, f, fr->at, size, "");
        if (up->basic == 3) {
          ex_note(f, "element %u of the array, at byte %llu of its values",
                  i, (unsigned long long)off);
          return 1;
        }
        uint32_t id = (uint32_t)vx_le(
            b + up->ids_at + (size_t)i * (size_t)up->id_size, up->id_size);
        ex_note(f, "field %u of the object (field id %u", i, id);
        if (v->names) {
          const uint8_t *p;
          size_t n;
          vx_name(v, id, &p, &n);
          pq_bytes nb = {p, n};
          char d[96];
          ex_describe(d, sizeof d, PQ_BYTE_ARRAY, 0, &nb);
          ex_note_add(f, ", %s", d);
        }
        ex_note_add(f, "), at byte %llu of its values",
                    (unsigned long long)off);
        return 1;
      }
      case F_HEADER: {
        if (vx_need_v(v, fr->at, fr->limit, 1, "header")) return -1;
        uint8_t h = fr->hdr = b[fr->at];
        fr->basic = h & 3;
        fr->type = h >> 2;
        vx_path(v, f, fr->at, 1, "header");
        ex_bits_bytes(f, b + fr->at, 1);
        vx_uint(f, h);
        fr->phase = F_BASIC;
        switch (fr->basic) {
          case 0:
            strcpy(f->labels, "TTTTTTBB");
            ex_note(f, "basic_type 0 (B), a primitive; primitive_type %d (T)",
                    fr->type);
            if (fr->type >= VX_PRIMS) break;
            ex_note_add(f, ", %s", vx_prims[fr->type].name);
            return 1;
          case 1:
            strcpy(f->labels, "LLLLLLBB");
            ex_note(f, "basic_type 1 (B), a short string of %d byte%s (L)",
                    h >> 2, ex_s((uint64_t)(h >> 2)));
            return 1;
          case 2:
            fr->large = (h >> 6) & 1;
            fr->id_size = ((h >> 4) & 3) + 1;
            fr->off_size = ((h >> 2) & 3) + 1;
            strcpy(f->labels, ".LIIOOBB");
            ex_note(f, "basic_type 2 (B), an object: is_large %d (L), "
                    "field_id_size_minus_one %d (I), "
                    "field_offset_size_minus_one %d (O); bit 7 is reserved",
                    fr->large, fr->id_size - 1, fr->off_size - 1);
            return 1;
          default:
            fr->large = (h >> 4) & 1;
            fr->off_size = ((h >> 2) & 3) + 1;
            strcpy(f->labels, "...LOOBB");
            ex_note(f, "basic_type 3 (B), an array: is_large %d (L), "
                    "field_offset_size_minus_one %d (O); bits 5 to 7 are "
                    "reserved",
                    fr->large, fr->off_size - 1);
            return 1;
        }
        return 1;
      }
      case F_BASIC: {
        static const char *const names[] = {"a primitive", "a short string",
                                            "an object", "an array"};
        if (fr->basic == 0 && fr->type >= VX_PRIMS) {
          return vx_fail(v, fr->at, "%s%s%sheader: primitive type %d is "
                         "none of the spec's 0 to %d (offset %zu)",
                         v->prefix, vx_where(v),
                         v->plen ? "." : "", fr->type, VX_PRIMS - 1, fr->at);
        }
        vx_path(v, f, fr->at, 1, "header.basic_type");
        ex_bits_value(f, (uint64_t)fr->basic, 2);
        vx_uint(f, (uint64_t)fr->basic);
        ex_note(f, "bits 0 and 1: %d, %s", fr->basic, names[fr->basic]);
        fr->phase = F_SUB;
        fr->sub = 0;
        return 1;
      }
      case F_SUB:
        if (fr->sub >= vx_header_rows(fr)) {
          fr->sub = 0;
          fr->phase = fr->basic < 2 ? F_DATA : F_COUNT;
          continue;
        }
        vx_header_row(v, fr, f);
        fr->sub++;
        return 1;
      case F_DATA: {
        int rc = vx_data_row(v, fr, f);
        if (rc) return rc;
        fr->phase = F_DONE;
        continue;
      }
      case F_COUNT: {
        size_t p = fr->at + 1;
        int cb = fr->large ? 4 : 1;
        if (vx_need_v(v, p, fr->limit, (uint64_t)cb, "num_elements")) return -1;
        uint64_t n = vx_le(b + p, cb);
        fr->n = (uint32_t)n;
        fr->ids_at = p + (size_t)cb;
        vx_path(v, f, p, (uint64_t)cb, "num_elements");
        ex_bits_bytes(f, b + p, (size_t)cb);
        vx_uint(f, n);
        uint64_t ids = fr->basic == 2 ? n * (uint64_t)fr->id_size : 0;
        fr->offs_at = fr->ids_at + (size_t)ids;
        ex_note(f, "%s: %llu %s%s", cb == 4 ? "4 bytes, little endian" : "1 byte",
                (unsigned long long)n, fr->basic == 2 ? "field" : "element",
                ex_s(n));
        if (fr->basic == 2) {
          ex_note_add(f, ", so %llu field id%s and ", (unsigned long long)n,
                      ex_s(n));
        } else {
          ex_note_add(f, ", so ");
        }
        ex_note_add(f, "%llu field offset%s follow%s",
                    (unsigned long long)n + 1, ex_s(n + 1), n ? "" : "s");
        fr->phase = F_IDS;
        fr->i = 0;
        return 1;
      }
      case F_IDS: {
        if (fr->i == 0) {
          /* The tables first: both must fit before a row of them. */
          uint64_t tables = (uint64_t)fr->n *
                                (fr->basic == 2 ? (uint64_t)fr->id_size : 0) +
                            ((uint64_t)fr->n + 1) * (uint64_t)fr->off_size;
          size_t left = fr->limit - fr->ids_at;
          if (tables > left) {
            return vx_fail(v, fr->ids_at, "%s%s: %u %s%s need %s%llu "
                           "field offsets, %llu bytes at offset %zu, %zu "
                           "remain%s",
                           v->prefix, vx_where(v), fr->n,
                           fr->basic == 2 ? "field" : "element",
                           ex_s(fr->n), fr->basic == 2 ? "field ids and " : "",
                           (unsigned long long)fr->n + 1,
                           (unsigned long long)tables, fr->ids_at, left,
                           left == 1 ? "s" : "");
          }
          fr->data_at = fr->ids_at + (size_t)tables;
        }
        if (fr->basic != 2 || fr->i >= fr->n) {
          fr->phase = F_OFFSETS;
          fr->i = 0;
          fr->prev = 0;
          fr->rising = 1;
          continue;
        }
        uint32_t i = fr->i++;
        size_t p = fr->ids_at + (size_t)i * (size_t)fr->id_size;
        uint64_t id = vx_le(b + p, fr->id_size);
        if (v->names && id >= v->dict_n) {
          return vx_fail(v, p, "%s%s%sfield_id[%u] is %llu, past the "
                         "dictionary's %u name%s (offset %zu)",
                         v->prefix, vx_where(v), v->plen ? "." : "",
                         i, (unsigned long long)id, v->dict_n,
                         ex_s(v->dict_n), p);
        }
        char leaf[32];
        snprintf(leaf, sizeof leaf, "field_id[%u]", i);
        vx_path(v, f, p, (uint64_t)fr->id_size, leaf);
        ex_bits_bytes(f, b + p, (size_t)fr->id_size);
        vx_uint(f, id);
        if (v->names) {
          const uint8_t *q;
          size_t n;
          vx_name(v, (uint32_t)id, &q, &n);
          pq_bytes nb = {q, n};
          char d[96];
          ex_describe(d, sizeof d, PQ_BYTE_ARRAY, 0, &nb);
          ex_note(f, "%s: field %u is name %llu of the dictionary, %s",
                  vx_bytes_le(fr->id_size), i, (unsigned long long)id, d);
        } else {
          ex_note(f, "%s: field %u is name %llu of the dictionary (the "
                  "metadata is not at hand: its name is not known)",
                  vx_bytes_le(fr->id_size), i, (unsigned long long)id);
        }
        return 1;
      }
      case F_OFFSETS: {
        if (fr->i > fr->n) {
          fr->phase = F_ORDER;
          continue;
        }
        uint32_t i = fr->i++;
        size_t p = fr->offs_at + (size_t)i * (size_t)fr->off_size;
        uint64_t o = vx_le(b + p, fr->off_size);
        uint64_t room = fr->limit - fr->data_at;
        if (o > room || (i < fr->n && o == room)) {
          return vx_fail(v, p, "%s%s%sfield_offset[%u] is %llu, past the "
                         "%llu byte%s left for the values (offset %zu)",
                         v->prefix, vx_where(v), v->plen ? "." : "",
                         i, (unsigned long long)o, (unsigned long long)room,
                         ex_s(room), p);
        }
        if (i > 0 && o <= fr->prev) fr->rising = 0;
        fr->prev = o;
        char leaf[32];
        snprintf(leaf, sizeof leaf, "field_offset[%u]", i);
        vx_path(v, f, p, (uint64_t)fr->off_size, leaf);
        ex_bits_bytes(f, b + p, (size_t)fr->off_size);
        vx_uint(f, o);
        if (i < fr->n) {
          ex_note(f, "%s: %s %u's value begins at byte %llu of the values "
                  "(offset %llu)",
                  vx_bytes_le(fr->off_size),
                  fr->basic == 2 ? "field" : "element", i,
                  (unsigned long long)o,
                  (unsigned long long)(fr->data_at + o));
        } else {
          fr->data_len = o;
          ex_note(f, "%s: the values take %llu byte%s, so the %s ends at "
                  "offset %llu",
                  vx_bytes_le(fr->off_size), (unsigned long long)o, ex_s(o),
                  fr->basic == 2 ? "object" : "array",
                  (unsigned long long)(fr->data_at + o));
        }
        return 1;
      }
      case F_ORDER: {
        /* Every value begins before the last offset; the walk goes in
        ** byte order. */
        fr->rising = 1;
        uint64_t prev = 0;
        for (uint32_t i = 0; i < fr->n; i++) {
          size_t p = fr->offs_at + (size_t)i * (size_t)fr->off_size;
          uint64_t o = vx_le(b + p, fr->off_size);
          if (o >= fr->data_len) {
            return vx_fail(v, p, "%s%s%sfield_offset[%u] is %llu, not "
                           "before the last offset, %llu (offset %zu)",
                           v->prefix, vx_where(v),
                           v->plen ? "." : "", i, (unsigned long long)o,
                           (unsigned long long)fr->data_len, p);
          }
          if (i > 0 && o <= prev) fr->rising = 0;
          prev = o;
        }
        if (!fr->rising && fr->n > 0) {
          fr->order = pq_malloc((size_t)fr->n * sizeof *fr->order);
          if (!fr->order) {
            pq_nomem(&v->err, "explain");
            v->fault_at = fr->data_at;
            v->top = T_END;
            return -1;
          }
          for (uint32_t i = 0; i < fr->n; i++) {
            size_t p = fr->offs_at + (size_t)i * (size_t)fr->off_size;
            fr->order[i] = vx_le(b + p, fr->off_size) << 32 | i;
          }
          qsort(fr->order, fr->n, sizeof *fr->order, vx_by_offset);
        }
        fr->cursor = fr->data_at;
        fr->i = 0;
        fr->phase = F_ELEMENTS;
        continue;
      }
      case F_ELEMENTS: {
        if (fr->i >= fr->n) {
          fr->phase = F_TAIL;
          continue;
        }
        uint64_t off;
        uint32_t i = vx_element(v, fr, fr->i, &off);
        size_t at = fr->data_at + (size_t)off;
        if (at < fr->cursor) {
          return vx_fail(v, at, "%s%s: the value of %s %u, at offset %zu, "
                         "begins inside the value before it, which ends at "
                         "offset %zu",
                         v->prefix, vx_where(v),
                         fr->basic == 2 ? "field" : "element", i, at,
                         fr->cursor);
        }
        if (at > fr->cursor) {
          size_t from = fr->cursor;
          fr->cursor = at;
          vx_path(v, f, from, at - from, "gap");
          ex_note(f, "%zu byte%s among the values that no value takes: not "
                  "read",
                  at - from, ex_s(at - from));
          return 1;
        }
        if (v->depth >= VX_DEPTH) {
          return vx_fail(v, at, "%s%s: values nest more than %d deep "
                         "(offset %zu)",
                         v->prefix, vx_where(v), VX_DEPTH, at);
        }
        fr->i++;
        /* The path of the element: the object's names where they are
        ** plain. */
        size_t limit = fr->data_at + (size_t)fr->data_len;
        if (fr->basic == 3) {
          vx_push_path(v, ".element[%u]", i);
        } else {
          vx_push_path(v, ".field[%u]", i);
          if (v->names) {
            uint32_t id = (uint32_t)vx_le(
                b + fr->ids_at + (size_t)i * (size_t)fr->id_size,
                fr->id_size);
            const uint8_t *p;
            size_t n;
            vx_name(v, id, &p, &n);
            if (vx_plain_name(p, n)) vx_push_path(v, "(\"%.*s\")", (int)n, p);
          }
        }
        vx_frame *c = vx_push(v, at, limit);
        c->index = i;
        continue;
      }
      case F_TAIL: {
        size_t end = fr->data_at + (size_t)fr->data_len;
        fr->phase = F_DONE;
        fr->end = end;
        if (fr->cursor < end) {
          size_t from = fr->cursor;
          vx_path(v, f, from, end - from, "gap");
          ex_note(f, "%zu byte%s after the values that no value takes: not "
                  "read",
                  end - from, ex_s(end - from));
          return 1;
        }
        continue;
      }
      default:
        vx_pop(v);
        continue;
    }
  }
}

/* ---- The walk ------------------------------------------------------------- */

int ex_variant_new(ex_variant **out, pq_error *err) {
  *out = pq_calloc(1, sizeof **out);
  return *out ? PQ_OK : pq_nomem(err, "explain");
}

void ex_variant_free(ex_variant *v) {
  if (!v) return;
  while (v->depth > 0) {
    v->depth--;
    pq_free(v->st[v->depth].order);
  }
  pq_free(v);
}

int ex_variant_start(ex_variant *v, const uint8_t *buf, size_t at, size_t end,
                     int part, const uint8_t *meta, size_t meta_len,
                     const char *prefix, pq_error *err) {
  while (v->depth > 0) {
    v->depth--;
    pq_free(v->st[v->depth].order);
    v->st[v->depth].order = NULL;
  }
  v->buf = buf;
  v->start = at;
  v->end = end;
  v->part = part;
  v->names = 0;
  v->plen = 0;
  snprintf(v->prefix, sizeof v->prefix, "%s", prefix ? prefix : "");
  v->m_phase = M_WHOLE;
  if (part == VX_VALUE) {
    if (meta && vx_meta_read(v, meta, meta_len, err)) return PQ_CORRUPT;
    v->top = T_VALUE;
    v->value_at = at;
  } else {
    v->mbuf = buf;
    v->m_at = at;
    v->m_end = end;
    v->top = T_META;
  }
  return PQ_OK;
}

int ex_variant_step(ex_variant *v, pq_field *f) {
  for (;;) {
    switch (v->top) {
      case T_META: {
        int rc = vx_meta_step(v, f);
        if (rc) return rc;
        if (v->part == VX_META) {
          v->value_at = v->m_names_at + (size_t)v->m_names_len;
          v->top = T_REST;
          continue;
        }
        v->value_at = v->m_names_at + (size_t)v->m_names_len;
        v->top = T_VALUE;
        continue;
      }
      case T_VALUE:
        if (v->depth == 0) {
          memcpy(v->path, "value", 5);
          v->plen = 5;
          vx_push(v, v->value_at, v->end);
          v->st[0].plen = v->plen;
        }
        {
          int rc = vx_value_step(v, f);
          if (rc) return rc;
        }
        v->top = T_REST;
        continue;
      case T_REST:
        v->top = T_END;
        if (v->value_at < v->end) {
          ex_row(f, v->value_at, v->end - v->value_at, "%srest", v->prefix);
          ex_note(f, "%zu byte%s after the %s: not read",
                  v->end - v->value_at, ex_s(v->end - v->value_at),
                  v->part == VX_META ? "metadata" : "value");
          return 1;
        }
        continue;
      default: return 0;
    }
  }
}

int ex_variant_fault(const ex_variant *v, pq_error *err, size_t *at) {
  *err = v->err;
  *at = v->fault_at;
  return err->code;
}

/* ---- parquet_explain(blob, 'VARIANT') -------------------------------------- */

static int vx_top_step(pq_explainer *x, pq_field *f) {
  int rc = ex_variant_step(x->variant, f);
  if (rc > 0) return 1;
  if (rc == 0) return 0;
  pq_error err;
  size_t at;
  ex_variant_fault(x->variant, &err, &at);
  return ex_fault(x, f, at, &err);
}

int pq_explainer_open_variant(pq_explainer **out, int part,
                              const uint8_t *buf, size_t len,
                              const uint8_t *meta, size_t meta_len,
                              pq_error *err) {
  *out = NULL;
  if (part < PQ_XV_BOTH || part > PQ_XV_VALUE) {
    return pq_fail(err, PQ_MISUSE, "VARIANT",
                   "part %d: 0 (metadata and value), 1 (metadata) or 2 "
                   "(value)",
                   part);
  }
  if (meta && part != PQ_XV_VALUE) {
    return pq_fail(err, PQ_MISUSE, "VARIANT",
                   "a metadata given apart goes with a value alone");
  }
  pq_explainer *x = pq_calloc(1, sizeof *x);
  if (!x) return pq_nomem(err, "explain");
  pq_params_init(&x->p);
  x->enc = "VARIANT";
  x->buf = buf ? buf : (const uint8_t *)"";
  x->len = buf ? len : 0;
  x->limit = UINT64_MAX;
  x->step = vx_top_step;
  pq_buf_init(&x->prev);
  int rc = ex_variant_new(&x->variant, err);
  if (!rc) {
    rc = ex_variant_start(x->variant, x->buf, 0, x->len, part, meta,
                          meta_len, "", err);
  }
  if (rc) {
    pq_explainer_free(x);
    return rc;
  }
  *out = x;
  return PQ_OK;
}

int ex_variant_attach(pq_explainer *x, int part, pq_error *err) {
  if (x->p.type != PQ_BYTE_ARRAY || (x->p.encoding != PQ_PLAIN &&
                                     x->p.encoding != PQ_DELTA_LENGTH_BYTE_ARRAY)) {
    return PQ_OK;
  }
  if (!x->variant) {
    int rc = ex_variant_new(&x->variant, err);
    if (rc) return rc;
  }
  x->variant_part = part;
  return PQ_OK;
}
