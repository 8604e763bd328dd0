/*
** explain_file.c -- explaining a whole Parquet file, or one page, in byte
** order (spec/README.md, "File Format"; parquet.thrift).
**
**   magic                                      "PAR1"
**   row_groups[0].columns[id].pages[2].header.type
**   row_groups[0].columns[id].pages[2].header.data_page_header.num_values
**   row_groups[0].columns[id].pages[2].def_levels.run[0].header
**   row_groups[0].columns[id].pages[2].values.value[0]
**   row_groups[0].columns[id].pages[3].compressed  a compressed body
**   row_groups[0].columns[id].column_index.null_pages[0]
**   row_groups[0].columns[id].offset_index.page_locations[0].offset
**   row_groups[0].columns[id].bloom_filter.numBytes, ....bloom_filter.bitset
**   row_groups[0].columns[id].column_chunk.meta_data.type
**                              the copy of the chunk's metadata many
**                              writers put after it
**   gap                                        bytes nothing claims
**   footer.row_groups[0].columns[0].meta_data.codec
**   footer_length, end_magic
**
** A chunk is named by its column's dotted path (column_name()), the
** footer's lists by their indices.
**
** A page alone (pq_explainer_open_page) has the same rows without the
** prefix: header.type, def_levels.length, values.value[0]; and its
** compressed body, decompressed with the codec of the options or one its
** bytes name (recognise()), is walked too: decompressed.def_levels...,
** decompressed.values.value[0], their offsets within the bytes
** decompressed (pq_field.within).
**
** The pages are found with the file reader (metadata.c, page.c), which
** checks every page before it is explained; a page it rejects is
** explained up to its header and ends the walk with the reader's message.
** A page's parts stored uncompressed (a v2 page's levels always are) are
** explained by the explainers of their encodings over the file's own
** bytes; compressed parts are one row.
*/
#include <stdio.h>

#include "explain.h"

/* What decompressing one page may produce while the file is walked. */
#define EX_FILE_LIMIT ((size_t)1 << 30)

enum { P_STREAM, P_ROW, P_FAULT, P_CHECK };

/* One part of a page's body: a stream to explain, a row, a fault; or its
** values decompressed, decoded without rows to find a decoder's fault. */
typedef struct ex_part {
  int kind;
  size_t at, len;
  const char *name;  /* "rep_levels", "def_levels", "values", ... */
  const char *words; /* for messages: "definition levels" */
  pq_params p;
  int use_dict;
  int plain; /* at and len count in the body decompressed (ex_file.plain) */
  int nomem; /* P_FAULT: memory ran out, no fault of the bytes */
  int variant; /* PQ_XV_*: the values are a variant column's */
  char note[320]; /* P_ROW: the note; P_FAULT: the message */
} ex_part;

enum { R_CHUNK, R_COLUMN_INDEX, R_OFFSET_INDEX, R_BLOOM, R_META };

/* A region of the file the footer points to. */
typedef struct ex_region {
  uint64_t start, end; /* end 0: not known (a bloom filter's, a copy of
                       ** the ColumnChunk at a chunk's file_offset) */
  uint64_t limit;      /* where the next chunk begins (or the footer) */
  uint32_t rg, col;
  int kind;
} ex_region;

enum {
  F_MAGIC,
  F_BROKEN,
  F_REGION,
  F_CHUNK,
  F_CHUNK_REST,
  F_PAGE_HEADER,
  F_BODY,
  F_BODY_REST,
  F_INDEX,
  F_BLOOM_BITS,
  F_REGION_REST,
  F_FOOTER_GAP,
  F_FOOTER,
  F_FOOTER_REST,
  F_FOOTER_LENGTH,
  F_END_MAGIC,
  F_LAST_ERROR,
  F_END
};

struct ex_file {
  int is_page; /* one page, not a file */
  int phase;
  size_t cursor; /* bytes before it are explained */
  /* A file. */
  pq_file *file;
  int open_rc;
  pq_error open_err;
  size_t footer_at, footer_end; /* the FileMetaData */
  ex_region *regions;
  size_t nregions, iregion;
  /* The chunk being walked. */
  pq_page_reader *r;
  uint32_t rg, col, page;
  size_t chunk_end, pos;
  char chunk_label[200];
  char chunk_path[200];
  pq_page pg;
  int reader_rc; /* the reader rejected the page being walked */
  pq_error reader_err;
  /* A Thrift walk: a page header, an index, the footer; and a walk ahead
  ** that checks a structure the reader does not read before it is
  ** explained. */
  ex_thrift w, ahead;
  pq_field scratch;
  int bloom; /* the walk is a bloom filter's header */
  /* The body of a page. */
  ex_part parts[6]; /* levels, levels, values; or a fault among them; a
                    ** compressed body's row before its parts */
  int nparts, ipart;
  pq_explainer *sub;
  char page_path[224];
  char page_label[220];
  char header_label[240]; /* the page header walk's, for its faults */
  size_t body_end;        /* PAGE: the end of the body; bytes after are rest */
  const uint8_t *dict;
  size_t dict_len;
  void *batch; /* values decoded to be checked */
  size_t batch_size;
  /* PAGE: what the page does not say. */
  pq_page_context ctx;
  /* PAGE: a compressed body decompressed, and whether parts being planned
  ** lie in it. */
  pq_buf plain;
  int planning_plain;
  /* The chunk or page is a VARIANT's metadata or value (PQ_XV_*), or 0. */
  int variant;
};

void ex_file_free(ex_file *e) {
  if (!e) return;
  pq_explainer_free(e->sub);
  pq_page_reader_free(e->r);
  pq_file_free(e->file);
  pq_free(e->regions);
  pq_free(e->batch);
  pq_buf_free(&e->plain);
  pq_free(e);
}

/* ---- Rows ---------------------------------------------------------------- */

/* Formats into out[0..cap), cut short where it must be. */
static void format(char *out, size_t cap, const char *fmt, ...) PQ_PRINTF(3, 4);
static void format(char *out, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out, cap, fmt, ap);
  va_end(ap);
}

/* The last row: msg, at offset; rc, the code of the failure it tells (an
** allocation's is no fault of the bytes: pq_explainer_nomem says so). */
static int fault_rc(pq_explainer *x, pq_field *f, uint64_t offset, int rc,
                    const char *msg) {
  ex_row(f, offset, offset < x->len ? x->len - offset : 0, "error");
  ex_note(f, "%s", msg);
  f->fault = 1;
  x->done = 1;
  if (rc == PQ_NOMEM) x->nomem = 1;
  return 1;
}

static int fault_msg(pq_explainer *x, pq_field *f, uint64_t offset,
                     const char *msg) {
  return fault_rc(x, f, offset, PQ_CORRUPT, msg);
}

static void set_text(pq_field *f, const uint8_t *p, size_t n) {
  f->kind = PQ_FV_BYTES;
  f->bytes = p;
  f->nbytes = n;
  f->text = 1;
}

/* A row for bytes no structure claims, or that are not read. */
static int bytes_row(pq_field *f, size_t at, size_t n, const char *path,
                     const char *why) {
  ex_row(f, at, n, "%s", path);
  ex_note(f, "%zu byte%s %s", n, n == 1 ? "" : "s", why);
  return 1;
}

/* ---- A page's body ------------------------------------------------------- */

static int bit_width(int max) {
  return pq_bit_width64((uint64_t)max);
}

static ex_part *add_part(ex_file *e, int kind, size_t at, size_t len,
                         const char *name, const char *words) {
  ex_part *pt = &e->parts[e->nparts++];
  memset(pt, 0, sizeof *pt);
  pt->kind = kind;
  pt->at = at;
  pt->len = len;
  pt->name = name;
  pt->words = words;
  pt->plain = e->planning_plain;
  pq_params_init(&pt->p);
  return pt;
}

static ex_part *add_fault(ex_file *e, size_t at, const char *fmt, ...)
    PQ_PRINTF(3, 4);
static ex_part *add_fault(ex_file *e, size_t at, const char *fmt, ...) {
  ex_part *pt = add_part(e, P_FAULT, at, 0, "error", "");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(pt->note, sizeof pt->note, fmt, ap);
  va_end(ap);
  return pt;
}

/* Levels of encoding enc stored at buf[at..at+len), for a column whose
** maximum level is max. */
static void add_levels(ex_file *e, const pq_page *p, size_t at, size_t len,
                       int32_t enc, int max, int rep) {
  const char *name = rep ? "rep_levels" : "def_levels";
  const char *words = rep ? "repetition levels" : "definition levels";
  if (max <= 0) {
    if (len == 0) return;
    ex_part *pt = add_part(e, P_ROW, at, len, name, words);
    snprintf(pt->note, sizeof pt->note,
             "%zu byte%s of %s, where the column has none: not read", len,
             len == 1 ? "" : "s", words);
    return;
  }
  ex_part *pt = add_part(e, P_STREAM, at, len, name, words);
  pt->p.encoding = enc == PQ_BIT_PACKED ? PQ_BIT_PACKED : PQ_RLE;
  pt->p.type = PQ_INT32;
  pt->p.type_set = 1;
  pt->p.bit_width = bit_width(max);
  pt->p.count = p->num_values;
  pt->p.length_prefix = p->page_type == PQ_DATA_PAGE && enc == PQ_RLE;
}

/* The values stream at buf[at..at+len); count -1 when not known. */
static void add_values(ex_file *e, const pq_page *p, size_t at, size_t len,
                       pq_type type, int32_t type_length, int64_t count) {
  ex_part *pt = add_part(e, P_STREAM, at, len, "values", "values");
  int dict_page = p->page_type == PQ_DICTIONARY_PAGE;
  pt->p.encoding = dict_page ? PQ_PLAIN : (pq_encoding)p->encoding;
  pt->p.type = type;
  pt->p.type_set = 1;
  pt->p.type_length = type_length;
  pt->p.count = count;
  pt->p.lenient = 1;
  pt->use_dict = !dict_page && (p->encoding == PQ_PLAIN_DICTIONARY ||
                                p->encoding == PQ_RLE_DICTIONARY);
  pt->variant = type == PQ_BYTE_ARRAY ? e->variant : 0;
}

/* Bytes of the page stored compressed: one row. */
static void add_compressed(ex_file *e, size_t at, size_t len, int codec,
                           int64_t size, const char *what) {
  ex_part *pt = add_part(e, P_ROW, at, len, "compressed", what);
  const char *cn = codec >= 0 && codec < PQ_CODEC_COUNT
                       ? pq_codec_name((pq_codec)codec)
                       : "?";
  snprintf(pt->note, sizeof pt->note,
           "%s: %zu byte%s of %s, compressed from %lld (parquet_pages gives "
           "them decompressed)",
           cn, len, len == 1 ? "" : "s", what, (long long)size);
}

/* A compressed page's values: decoded, without rows, after its row. */
static void add_check(ex_file *e, size_t at) {
  add_part(e, P_CHECK, at, 0, "values", "values, decompressed,");
}

/* The body of a page the file reader has read and checked. */
static void plan_file_body(ex_file *e, const pq_page *p, pq_type type,
                           int32_t type_length, int codec) {
  size_t b = (size_t)p->offset + p->header_size, n = (size_t)p->compressed_size;
  e->nparts = e->ipart = 0;
  if (p->page_type == PQ_DICTIONARY_PAGE) {
    if (codec != PQ_UNCOMPRESSED) {
      add_compressed(e, b, n, codec, p->uncompressed_size,
                     "dictionary entries");
      add_check(e, b);
    } else {
      add_values(e, p, b, n, type, type_length, p->num_values);
    }
    return;
  }
  if (p->page_type == PQ_DATA_PAGE) {
    if (codec != PQ_UNCOMPRESSED) {
      add_compressed(e, b, n, codec, p->uncompressed_size, "levels and values");
      add_check(e, b);
      return;
    }
    size_t rl = p->rep_levels.len, dl = p->def_levels.len;
    add_levels(e, p, b, rl, p->rep_encoding, p->max_rep, 1);
    add_levels(e, p, b + rl, dl, p->def_encoding, p->max_def, 0);
    add_values(e, p, b + rl + dl, n - rl - dl, type, type_length,
               p->value_count);
    return;
  }
  if (p->page_type == PQ_DATA_PAGE_V2) {
    size_t rl = p->rep_levels.len, dl = p->def_levels.len;
    add_levels(e, p, b, rl, PQ_RLE, p->max_rep, 1);
    add_levels(e, p, b + rl, dl, PQ_RLE, p->max_def, 0);
    if (p->is_compressed && codec != PQ_UNCOMPRESSED) {
      if (n - rl - dl > 0) {
        add_compressed(e, b + rl + dl, n - rl - dl, codec,
                       (int64_t)p->uncompressed_size - (int64_t)(rl + dl),
                       "values");
      }
      add_check(e, b + rl + dl);
    } else {
      add_values(e, p, b + rl + dl, n - rl - dl, type, type_length,
                 p->value_count);
    }
    return;
  }
  ex_part *pt = add_part(e, P_ROW, b, n, "body", "body");
  snprintf(pt->note, sizeof pt->note, "%zu byte%s of %s: not read", n,
           n == 1 ? "" : "s",
           p->page_type == PQ_INDEX_PAGE ? "an index page"
                                         : "a page of an unknown type");
}

/* PAGE: the entries of def levels at max, as a decoder counts them; -1
** when the levels cannot be read (their walk then ends in the fault), -2
** when memory ran out. */
static int64_t count_defined(const uint8_t *buf, const ex_part *lv, int max) {
  pq_decoder *d;
  pq_error err;
  int rc = pq_decoder_open(&d, &lv->p, buf + lv->at, lv->len, NULL, 0, &err);
  if (rc) return rc == PQ_NOMEM ? -2 : -1;
  uint32_t v[512];
  int64_t defined = 0;
  for (;;) {
    size_t n;
    if ((rc = pq_decoder_read(d, v, 512, &n, &err))) {
      defined = rc == PQ_NOMEM ? -2 : -1;
      break;
    }
    if (n == 0) break;
    for (size_t i = 0; i < n; i++) defined += v[i] == (uint32_t)max;
  }
  pq_decoder_free(d);
  return defined;
}

/* PAGE: v1 levels at buf[*at..end): their part, sized by their 4-byte
** length (RLE) or the count (BIT_PACKED); a short stream is left to the
** explainer, which tells what is missing. */
static void plan_v1_levels(ex_file *e, const uint8_t *buf, const pq_page *p,
                           size_t *at, size_t end, int32_t enc, int max,
                           int rep) {
  if (max <= 0) return;
  const char *words = rep ? "repetition" : "definition";
  size_t left = end - *at, size = left;
  if (enc == PQ_RLE) {
    if (left >= 4 && pq_load32(buf + *at) <= left - 4) {
      size = 4 + (size_t)pq_load32(buf + *at);
    }
  } else if (enc == PQ_BIT_PACKED) {
    uint64_t bytes =
        ((uint64_t)p->num_values * (uint64_t)bit_width(max) + 7) / 8;
    if (bytes < left) size = (size_t)bytes;
  } else {
    add_fault(e, *at,
              "page: the %s levels' encoding %d is neither RLE nor "
              "BIT_PACKED",
              words, enc);
    *at = end;
    return;
  }
  add_levels(e, p, *at, size, enc, max, rep);
  *at += size;
}

/* PAGE: the parts of a body stored as it is, at d[0..n), which is at
** offset `at` of the bytes its parts count in: levels and values, or a
** dictionary's entries, or a v2 page's values. */
static void plan_body_parts(ex_file *e, const uint8_t *d, size_t at, size_t n,
                            const pq_page *p) {
  const pq_page_context *c = &e->ctx;
  if (p->page_type == PQ_DICTIONARY_PAGE) {
    add_values(e, p, at, n, c->type, c->type_length, p->num_values);
    return;
  }
  if (p->page_type == PQ_DATA_PAGE_V2) {
    add_values(e, p, at, n, c->type, c->type_length,
               p->num_values - p->num_nulls);
    return;
  }
  /* The levels' walk reads from the start of the bytes they count in. */
  const uint8_t *base = d - at;
  size_t pos = at;
  plan_v1_levels(e, base, p, &pos, at + n, p->rep_encoding, c->max_rep, 1);
  plan_v1_levels(e, base, p, &pos, at + n, p->def_encoding, c->max_def, 0);
  int64_t count = p->num_values;
  if (c->max_def > 0 && e->nparts > 0 &&
      e->parts[e->nparts - 1].kind == P_STREAM) {
    count = count_defined(base, &e->parts[e->nparts - 1], c->max_def);
    if (count == -2) {
      add_fault(e, pos, "explain: out of memory")->nomem = 1;
      return;
    }
  }
  add_values(e, p, pos, at + n - pos, c->type, c->type_length, count);
}

/* PAGE: a compressed body whose codec the options do not name, where its
** bytes name it beyond doubt: a zstd frame's magic number, gzip's, Hadoop's
** LZ4 framing (its first chunk's sizes fit the body), snappy's leading
** varint (the size the header says) -- and the bytes then decompress to
** exactly the size the header says.  BROTLI and LZ4_RAW streams have no
** mark of their own, and are not guessed.  The codec with the bytes in
** e->plain, or -1 (*rc is PQ_NOMEM when memory ran out). */
static int recognise(ex_file *e, const uint8_t *p, size_t n, int64_t size,
                     size_t limit, const char **how, pq_error *err, int *rc) {
  static const struct {
    pq_codec codec;
    const char *how;
  } marks[] = {
      {PQ_ZSTD, "recognised by its frame's magic number, 28 B5 2F FD"},
      {PQ_GZIP, "recognised by its magic number, 1F 8B"},
      {PQ_LZ4, "recognised by Hadoop's framing: its first chunk's sizes fit"},
      {PQ_SNAPPY, "recognised by its first varint: the size the header says"},
  };
  *rc = PQ_OK;
  if (size <= 0) return -1;
  for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++) {
    pq_codec k = marks[i].codec;
    int mark = 0;
    if (k == PQ_ZSTD) {
      mark = n >= 4 && p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F &&
             p[3] == 0xFD;
    } else if (k == PQ_GZIP) {
      mark = n >= 2 && p[0] == 0x1F && p[1] == 0x8B;
    } else if (k == PQ_LZ4) {
      if (n >= 8) {
        uint32_t whole = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                         (uint32_t)p[2] << 8 | p[3];
        uint32_t part = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 |
                        (uint32_t)p[6] << 8 | p[7];
        mark = whole > 0 && (uint64_t)whole <= (uint64_t)size && part > 0 &&
               part <= n - 8;
      }
    } else {
      uint64_t v;
      size_t pos = 0;
      mark = pq_uleb_read(p, n, &pos, &v) == PQ_OK && v == (uint64_t)size;
    }
    if (!mark || !pq_codec_available(k)) continue;
    e->plain.len = 0;
    *rc = pq_decompress(k, p, n, size, limit, &e->plain, err);
    if (*rc == PQ_NOMEM) return -1;
    if (*rc == PQ_OK) {
      *how = marks[i].how;
      return (int)k;
    }
  }
  e->plain.len = 0;
  *rc = PQ_OK;
  return -1;
}

/* PAGE: the body of the page at buf[b..len), with the reader's checks. */
static void plan_page_body(ex_file *e, const uint8_t *buf, size_t len,
                           const pq_page *p, int32_t def_len, int32_t rep_len) {
  const pq_page_context *c = &e->ctx;
  size_t b = p->header_size, left = len - b;
  e->nparts = e->ipart = 0;
  e->body_end = len;
  if (p->compressed_size < 0 || p->uncompressed_size < 0 ||
      (size_t)p->compressed_size > left) {
    add_fault(e, b, "page: %d bytes of page where the blob has %zu left",
              p->compressed_size, left);
    return;
  }
  size_t n = (size_t)p->compressed_size;
  e->body_end = b + n;
  if (p->has_crc) {
    uint32_t crc = pq_crc32(0, buf + b, n);
    if (crc != p->crc) {
      add_fault(e, b,
                "page: CRC mismatch: the header says %08X, the page's bytes "
                "give %08X",
                p->crc, crc);
      return;
    }
  }
  if (p->num_values < 0) {
    add_fault(e, b, "page: the header says %d values", p->num_values);
    return;
  }
  int known = p->page_type == PQ_DATA_PAGE || p->page_type == PQ_DATA_PAGE_V2 ||
              p->page_type == PQ_DICTIONARY_PAGE;
  if (!known || !c->type_set) {
    ex_part *pt = add_part(e, P_ROW, b, n, "body", "body");
    if (!known) {
      snprintf(pt->note, sizeof pt->note, "%zu byte%s of %s: not read", n,
               n == 1 ? "" : "s",
               p->page_type == PQ_INDEX_PAGE ? "an index page"
                                             : "a page of an unknown type");
    } else {
      snprintf(pt->note, sizeof pt->note,
               "%zu byte%s of page body: the column's physical type (the "
               "third argument) is needed to explain them",
               n, n == 1 ? "" : "s");
    }
    return;
  }
  int v2 = p->page_type == PQ_DATA_PAGE_V2;
  size_t lv = 0;
  if (v2) {
    if (def_len < 0 || rep_len < 0 ||
        (uint64_t)def_len + (uint64_t)rep_len > n ||
        (uint64_t)def_len + (uint64_t)rep_len >
            (uint64_t)p->uncompressed_size) {
      add_fault(e, b, "page: levels of %d and %d bytes in a page of %zu",
                rep_len, def_len, n);
      return;
    }
    if (p->num_nulls < 0 || p->num_nulls > p->num_values) {
      add_fault(e, b, "page: %d nulls among %d values", p->num_nulls,
                p->num_values);
      return;
    }
    lv = (size_t)def_len + (size_t)rep_len;
  }
  /* The bytes a codec may have made: the body, or a v2 page's values. */
  size_t at = b + lv, clen = n - lv;
  int64_t csize = (int64_t)p->uncompressed_size - (int64_t)lv;
  const char *what = p->page_type == PQ_DICTIONARY_PAGE ? "dictionary entries"
                     : v2                               ? "values"
                                                        : "levels and values";
  int codec = PQ_UNCOMPRESSED;
  const char *how = "as the options say";
  size_t limit = c->limit ? c->limit : EX_FILE_LIMIT;
  pq_error err;
  int rc = PQ_OK;
  if (!v2 || p->is_compressed) {
    if (c->codec_set) {
      codec = (int)c->codec;
      if (codec != PQ_UNCOMPRESSED && !(v2 && clen == 0)) {
        rc = pq_decompress((pq_codec)codec, buf + at, clen, csize, limit,
                           &e->plain, &err);
      }
    } else {
      /* Recognised where the bytes say so; else, with the sizes equal,
      ** stored as it is (snappy's output can be as long as its input). */
      codec = recognise(e, buf + at, clen, csize, limit, &how, &err, &rc);
      if (codec < 0 && rc == PQ_OK && (uint64_t)p->uncompressed_size == n) {
        codec = PQ_UNCOMPRESSED;
      }
    }
  }
  if (codec == PQ_UNCOMPRESSED && (uint64_t)p->uncompressed_size != n) {
    add_fault(e, b,
              "page: uncompressed, yet %zu bytes where the header says %lld",
              n - lv, (long long)p->uncompressed_size - (long long)lv);
    return;
  }
  if (v2) {
    add_levels(e, p, b, (size_t)rep_len, PQ_RLE, c->max_rep, 1);
    add_levels(e, p, b + (size_t)rep_len, (size_t)def_len, PQ_RLE, c->max_def,
               0);
  }
  if (codec == PQ_UNCOMPRESSED) {
    plan_body_parts(e, buf + at, at, clen, p);
    return;
  }
  if (v2 && clen == 0) return;
  if (rc == PQ_NOMEM) {
    add_fault(e, at, "%s", err.msg)->nomem = 1;
    return;
  }
  ex_part *pt = add_part(e, P_ROW, at, clen, "compressed", what);
  if (codec < 0) {
    snprintf(pt->note, sizeof pt->note,
             "%zu byte%s of %s, compressed from %lld by a codec the bytes do "
             "not name (BROTLI and LZ4_RAW have no mark): not read; the "
             "option \"codec\" names it, as parquet_pages' codec column "
             "gives it",
             clen, clen == 1 ? "" : "s", what, (long long)csize);
    return;
  }
  const char *cn = pq_codec_name((pq_codec)codec);
  if (rc) {
    snprintf(pt->note, sizeof pt->note,
             "%s, as the options say: %zu byte%s of %s, compressed from %lld",
             cn, clen, clen == 1 ? "" : "s", what, (long long)csize);
    add_fault(e, at, "page: %s", err.msg);
    return;
  }
  snprintf(pt->note, sizeof pt->note,
           "%s, %s: %zu byte%s of %s, compressed from %lld, which the rows "
           "decompressed.* explain, at offsets within them",
           cn, how, clen, clen == 1 ? "" : "s", what, (long long)csize);
  e->planning_plain = 1;
  plan_body_parts(e, e->plain.data ? e->plain.data : (const uint8_t *)"", 0,
                  e->plain.len, p);
  e->planning_plain = 0;
}

/* Decodes the values of page p, as parquet_values does, to find what a
** decoder rejects in them: PQ_OK, or the fault in err.  An encoding this
** build cannot decode is no fault here (its row says so). */
static int check_values(ex_file *e, const pq_page *p, pq_type type,
                        int32_t type_length, pq_error *err) {
  int data = p->page_type == PQ_DATA_PAGE || p->page_type == PQ_DATA_PAGE_V2;
  if (!data && p->page_type != PQ_DICTIONARY_PAGE) return PQ_OK;
  pq_params pp;
  pq_params_init(&pp);
  pp.encoding = data ? (pq_encoding)p->encoding : PQ_PLAIN;
  pp.type = type;
  pp.type_set = 1;
  pp.type_length = type_length;
  pp.count = data ? p->value_count : p->num_values;
  pp.lenient = 1;
  int use_dict = data && (p->encoding == PQ_PLAIN_DICTIONARY ||
                          p->encoding == PQ_RLE_DICTIONARY);
  size_t width = pq_value_size(type, type_length);
  if (width < sizeof(uint32_t)) width = sizeof(uint32_t);
  if (width > ((size_t)1 << 24)) return PQ_OK; /* too wide to hold one */
  size_t batch = width > 65536 ? 1 : 65536 / width;
  if (e->batch_size < batch * width) {
    void *nb = pq_realloc(e->batch, batch * width);
    if (!nb) return pq_nomem(err, "explain");
    e->batch = nb;
    e->batch_size = batch * width;
  }
  pq_decoder *d;
  int rc = pq_decoder_open(&d, &pp, p->values.ptr, p->values.len,
                           use_dict ? e->dict : NULL,
                           use_dict ? e->dict_len : 0, err);
  if (rc == PQ_UNSUPPORTED || rc == PQ_MISUSE) return PQ_OK;
  if (rc) return rc;
  for (size_t n = 1; rc == PQ_OK && n > 0;) {
    rc = pq_decoder_read(d, e->batch, batch, &n, err);
  }
  pq_decoder_free(d);
  return rc;
}

/* A row of a part of the body decompressed: its offsets count there. */
static void in_plain(const ex_file *e, const ex_part *pt, pq_field *f) {
  if (!pt->plain) return;
  f->within = e->plain.data ? e->plain.data : (const uint8_t *)"";
  f->within_len = e->plain.len;
  if (f->fault) {
    f->length = f->offset < e->plain.len ? e->plain.len - f->offset : 0;
  }
}

/* The next row of the page's body: 1, or 0 when it is done. */
static int body_step(pq_explainer *x, ex_file *e, pq_field *f) {
  for (;;) {
    if (e->sub) {
      ex_part *pt = &e->parts[e->ipart];
      if (pq_explainer_next(e->sub, f)) {
        char path[sizeof f->path];
        f->offset += pt->at;
        if (f->fault) {
          char msg[sizeof f->note];
          format(msg, sizeof msg, "%s: %s at offset %zu%s: %s", e->page_label,
                 pt->words, pt->at,
                 pt->plain ? " of the body decompressed" : "", f->note);
          int rc = e->sub->nomem ? PQ_NOMEM : PQ_CORRUPT;
          pq_explainer_free(e->sub);
          e->sub = NULL;
          fault_rc(x, f, f->offset, rc, msg);
          in_plain(e, pt, f);
          return 1;
        }
        format(path, sizeof path, "%s%s%s%s.%s", e->page_path,
               e->page_path[0] ? "." : "", pt->plain ? "decompressed." : "",
               pt->name, f->path);
        memcpy(f->path, path, sizeof path);
        in_plain(e, pt, f);
        return 1;
      }
      pq_explainer_free(e->sub);
      e->sub = NULL;
      e->ipart++;
      continue;
    }
    if (e->ipart >= e->nparts) return 0;
    ex_part *pt = &e->parts[e->ipart];
    if (pt->kind == P_FAULT) {
      fault_rc(x, f, pt->at, pt->nomem ? PQ_NOMEM : PQ_CORRUPT, pt->note);
      in_plain(e, pt, f);
      return 1;
    }
    if (pt->kind == P_CHECK) {
      pq_error err;
      const pq_schema_node *leaf = pq_file_leaf(e->file, e->col);
      e->ipart++;
      int rc = check_values(e, &e->pg, leaf->elem->type,
                            leaf->elem->type_length, &err);
      if (rc) {
        char msg[sizeof f->note];
        format(msg, sizeof msg, "%s: %s %s", e->page_label, pt->words, err.msg);
        return fault_rc(x, f, pt->at, rc, msg);
      }
      continue;
    }
    const char *dec = pt->plain ? "decompressed." : "";
    if (pt->kind == P_ROW) {
      ex_row(f, pt->at, pt->len, "%s%s%s%s", e->page_path,
             e->page_path[0] ? "." : "", dec, pt->name);
      ex_note(f, "%s", pt->note);
      in_plain(e, pt, f);
      e->ipart++;
      return 1;
    }
    pq_error err;
    const uint8_t *base = pt->plain ? e->plain.data : x->buf;
    int rc = pq_explainer_open(&e->sub, &pt->p, base + pt->at, pt->len,
                               pt->use_dict ? e->dict : NULL,
                               pt->use_dict ? e->dict_len : 0, &err);
    if (rc == PQ_OK && pt->variant) {
      rc = ex_variant_attach(e->sub, pt->variant, &err);
      if (rc) {
        pq_explainer_free(e->sub);
        e->sub = NULL;
      }
    }
    if (rc == PQ_NOMEM) return ex_fault(x, f, pt->at, &err);
    if (rc) {
      /* An encoding this build cannot explain, or not for this type. */
      e->sub = NULL;
      ex_row(f, pt->at, pt->len, "%s%s%s%s", e->page_path,
             e->page_path[0] ? "." : "", dec, pt->name);
      ex_note(f, "%zu byte%s of %s: not explained (%s)", pt->len,
              pt->len == 1 ? "" : "s", pt->words, err.msg);
      in_plain(e, pt, f);
      e->ipart++;
      return 1;
    }
  }
}

/* ---- A file -------------------------------------------------------------- */

static int by_start(const void *a, const void *b) {
  const ex_region *r = a, *s = b;
  if (r->start != s->start) return r->start < s->start ? -1 : 1;
  if (r->kind != s->kind) return r->kind < s->kind ? -1 : 1;
  if (r->rg != s->rg) return r->rg < s->rg ? -1 : 1;
  return r->col < s->col ? -1 : r->col > s->col;
}

/* A page index the footer points to, when it lies whole in [lo, hi). */
static ex_region *add_index(ex_region *out, int64_t offset, int64_t length,
                            uint64_t lo, uint64_t hi, uint32_t g, uint32_t c,
                            int kind) {
  if (offset >= (int64_t)lo && (uint64_t)offset < hi && length > 0 &&
      (uint64_t)length <= hi - (uint64_t)offset) {
    ex_region r = {(uint64_t)offset, (uint64_t)offset + (uint64_t)length, 0,
                   g, c, kind};
    *out++ = r;
  }
  return out;
}

/* Regions a chunk may have: its bloom filter, its pages, its column index,
** a copy of its metadata, its offset index. */
#define REGIONS_PER_CHUNK 5

/* The regions of an opened file, sorted by where they begin. */
static int plan_regions(ex_file *e, pq_error *err) {
  const pq_file_meta *m = pq_file_metadata(e->file);
  size_t n = 0;
  for (uint32_t g = 0; g < m->n_row_groups; g++)
    n += m->row_groups[g].n_columns;
  e->regions = pq_calloc(n * REGIONS_PER_CHUNK + 1, sizeof *e->regions);
  if (!e->regions) return pq_nomem(err, "explain");
  ex_region *out = e->regions;
  uint64_t lo = 4, hi = e->footer_at;
  /* A chunk the reader cannot place goes where the chunk before it, in
  ** the reader's order, ends. */
  uint64_t prev_end = lo;
  for (uint32_t g = 0; g < m->n_row_groups; g++) {
    for (uint32_t c = 0; c < m->row_groups[g].n_columns; c++) {
      const pq_column_chunk *cc = &m->row_groups[g].columns[c];
      ex_region r = {prev_end, prev_end, 0, g, c, R_CHUNK};
      if (cc->has_meta_data) {
        /* Where the page reader begins, and ends. */
        const pq_column_meta *cm = &cc->meta;
        int64_t start = cm->data_page_offset;
        if (cm->dictionary_page_offset > 0 &&
            cm->dictionary_page_offset < cm->data_page_offset)
          start = cm->dictionary_page_offset;
        if (start >= 4 && (uint64_t)start <= hi &&
            cm->total_compressed_size >= 0 &&
            (uint64_t)cm->total_compressed_size <= hi - (uint64_t)start) {
          r.start = (uint64_t)start;
          r.end = r.start + (uint64_t)cm->total_compressed_size;
          prev_end = r.end;
        }
        if (cm->bloom_filter_offset >= 4 &&
            (uint64_t)cm->bloom_filter_offset < hi) {
          ex_region bf = {
              (uint64_t)cm->bloom_filter_offset, 0, 0, g, c, R_BLOOM};
          if (cm->bloom_filter_length > 0 &&
              (uint64_t)cm->bloom_filter_length <= hi - bf.start) {
            bf.end = bf.start + (uint64_t)cm->bloom_filter_length;
          }
          *out++ = bf;
        }
      }
      *out++ = r;
      out = add_index(out, cc->column_index_offset, cc->column_index_length,
                      lo, hi, g, c, R_COLUMN_INDEX);
      /* Many writers put a copy of the ColumnChunk, or of its
      ** ColumnMetaData, after the chunk: at its file_offset (which
      ** parquet.thrift says is the ColumnMetaData's), or where it ends. */
      uint64_t at = r.end > r.start ? r.end : hi;
      if (cc->file_offset >= (int64_t)lo &&
          (uint64_t)cc->file_offset >= r.end) {
        at = (uint64_t)cc->file_offset;
      }
      if (at < hi) {
        ex_region cm = {at, 0, 0, g, c, R_META};
        *out++ = cm;
      }
      out = add_index(out, cc->offset_index_offset, cc->offset_index_length,
                      lo, hi, g, c, R_OFFSET_INDEX);
    }
  }
  e->nregions = (size_t)(out - e->regions);
  qsort(e->regions, e->nregions, sizeof *e->regions, by_start);
  /* What follows each region, for the structures that must end before
  ** the next chunk. */
  uint64_t next = hi;
  for (size_t i = e->nregions; i-- > 0;) {
    ex_region *r = &e->regions[i];
    r->limit = next;
    if (r->kind == R_CHUNK && r->end > r->start) next = r->start;
  }
  return PQ_OK;
}

/* How paths name column c of a row group: by its dotted path, where that
** cannot be taken for an index or for another column's (a name of digits
** or with brackets, a path two leaves have, a long one); else by its
** index. */
static void column_name(const ex_file *e, uint32_t c, char *out, size_t cap) {
  const pq_schema_node *leaf = pq_file_leaf(e->file, c);
  const char *p = leaf && leaf->path ? leaf->path : "";
  size_t n = strlen(p);
  int ok = n > 0 && n < cap && n <= 100 && !strpbrk(p, "[]") &&
           p[strspn(p, "0123456789")] != 0;
  uint32_t leaves = pq_file_leaf_count(e->file);
  for (uint32_t i = 0; ok && i < leaves; i++) {
    const pq_schema_node *o = pq_file_leaf(e->file, i);
    if (i != c && o && o->path && strcmp(o->path, p) == 0) ok = 0;
  }
  if (ok) {
    memcpy(out, p, n + 1);
  } else {
    snprintf(out, cap, "%u", c);
  }
}

/* Whether leaf is the metadata of a group annotated VARIANT, or a value
** of one (its own, or a shredded part's within its typed_value,
** spec/VariantShredding.md): PQ_XV_METADATA, PQ_XV_VALUE, or 0. */
static int leaf_variant_part(const pq_schema_node *leaf) {
  if (!leaf || !leaf->elem || leaf->elem->type != PQ_BYTE_ARRAY) return 0;
  const pq_bytes *n = &leaf->elem->name;
  int meta = n->len == 8 && memcmp(n->ptr, "metadata", 8) == 0;
  int value = n->len == 5 && memcmp(n->ptr, "value", 5) == 0;
  if (!meta && !value) return 0;
  for (const pq_schema_node *up = leaf->parent; up && up->elem;
       up = up->parent) {
    if (up->elem->logical_type == PQ_LOGICAL_VARIANT) {
      return value ? PQ_XV_VALUE : PQ_XV_METADATA;
    }
    if (meta) break; /* a metadata is the VARIANT group's own */
  }
  return 0;
}

/* Starts the chunk of region rg: its reader, labels and paths. */
static int start_chunk(pq_explainer *x, ex_file *e, const ex_region *rg,
                       pq_field *f) {
  pq_error err;
  e->rg = rg->rg;
  e->col = rg->col;
  e->page = 0;
  const pq_schema_node *leaf = pq_file_leaf(e->file, rg->col);
  e->variant = leaf_variant_part(leaf);
  snprintf(e->chunk_label, sizeof e->chunk_label, "column '%s', row group %u",
           leaf && leaf->path ? leaf->path : "", rg->rg);
  char name[128];
  column_name(e, rg->col, name, sizeof name);
  format(e->chunk_path, sizeof e->chunk_path, "row_groups[%u].columns[%s]",
         rg->rg, name);
  int rc =
      pq_page_reader_open(&e->r, e->file, rg->rg, rg->col, EX_FILE_LIMIT, &err);
  if (rc) return ex_fault(x, f, e->cursor, &err);
  e->pos = (size_t)rg->start;
  e->chunk_end = (size_t)rg->end;
  e->phase = F_CHUNK;
  return 0;
}

/* The next page of the chunk: its header walk, or the chunk's end. */
static int walk_page(pq_explainer *x, ex_file *e, pq_field *f) {
  int got;
  pq_error err;
  int rc = pq_page_reader_next(e->r, &e->pg, &got, &err);
  snprintf(e->page_path, sizeof e->page_path, "%s.pages[%u]", e->chunk_path,
           e->page);
  snprintf(e->page_label, sizeof e->page_label, "%s, page %u", e->chunk_label,
           e->page);
  char prefix[sizeof e->page_path + 8];
  snprintf(prefix, sizeof prefix, "%s.header", e->page_path);
  /* The walk keeps the label: it lives as long as the walk. */
  char *label = e->header_label;
  format(label, sizeof e->header_label, "%s: page header", e->page_label);
  if (rc) {
    /* The page is explained up to where the reader rejects it. */
    if (e->pos >= e->chunk_end) return ex_fault(x, f, e->pos, &err);
    e->reader_rc = rc;
    e->reader_err = err;
    ex_thrift_init(&e->w, x, e->pos, e->chunk_end, EX_PAGE_HEADER, prefix,
                   label);
    e->phase = F_PAGE_HEADER;
    return 0;
  }
  if (!got) {
    pq_page_reader_free(e->r);
    e->r = NULL;
    e->cursor = e->pos;
    e->phase = F_CHUNK_REST;
    return 0;
  }
  const pq_page *p = &e->pg;
  ex_thrift_init(&e->w, x, (size_t)p->offset,
                 (size_t)p->offset + p->header_size, EX_PAGE_HEADER, prefix,
                 label);
  int32_t entries;
  const pq_bytes *d = pq_page_reader_dictionary(e->r, &entries);
  e->dict = d ? d->ptr : NULL;
  e->dict_len = d ? d->len : 0;
  const pq_schema_node *leaf = pq_file_leaf(e->file, e->col);
  plan_file_body(e, p, leaf->elem->type, leaf->elem->type_length,
                 pq_page_reader_codec(e->r));
  e->pos = (size_t)p->offset + p->header_size + (size_t)p->compressed_size;
  e->page++;
  e->phase = F_PAGE_HEADER;
  return 0;
}

/* A structure the footer points to (a page index, a bloom filter, a copy
** of a ColumnChunk): walked ahead first, as no reader reads it; when
** it reads, its walk begins (phase F_INDEX); when not, one row says so,
** or (where its end is not known) its bytes are left to the gap rows. */
static int start_structure(pq_explainer *x, ex_file *e, const ex_region *rg,
                           pq_field *f) {
  static const char *const names[] = {"", "column_index", "offset_index",
                                      "bloom_filter", "column_chunk"};
  static const char *const tnames[] = {"", "a ColumnIndex", "an OffsetIndex",
                                       "a bloom filter",
                                       "a copy of the ColumnChunk"};
  static const int roots[] = {0, EX_COLUMN_INDEX, EX_OFFSET_INDEX,
                              EX_BLOOM_HEADER, EX_COLUMN_CHUNK};
  static const char *const labels[] = {"", "column index", "offset index",
                                       "bloom filter header", "column chunk"};
  if (rg->end > rg->limit) return 0; /* it would run into a chunk */
  size_t end = (size_t)(rg->end ? rg->end : rg->limit);
  int root = roots[rg->kind];
  const char *name = names[rg->kind], *label = labels[rg->kind];
  ex_thrift *a = &e->ahead;
  int rc;
  char col[128];
  column_name(e, rg->col, col, sizeof col);
  for (;;) {
    format(e->chunk_path, sizeof e->chunk_path, "row_groups[%u].columns[%s].%s",
           rg->rg, col, name);
    ex_thrift_init(a, x, (size_t)rg->start, end, root, e->chunk_path, label);
    while ((rc = ex_thrift_step(a, &e->scratch)) > 0) {
    }
    if (rg->kind != R_META) break;
    /* A copy of the ColumnChunk has its meta_data; of the ColumnMetaData,
    ** its type, encodings and path. */
    if (root == EX_COLUMN_CHUNK) {
      if (rc == 0 && (a->root_seen & 1u << 3)) break;
      root = EX_COLUMN_META;
      name = "meta_data";
      label = "column metadata";
      continue;
    }
    if (rc == 0 && (a->root_seen & 0xe) == 0xe) break;
    return 0; /* not metadata: bytes no structure claims */
  }
  char why[320] = "";
  if (rc < 0) {
    format(why, sizeof why, "%s", a->err.msg);
  } else if (rg->kind == R_BLOOM) {
    int64_t nb = a->root_has & 2 ? a->root_val[1] : -1;
    size_t left = end - (size_t)rg->start - a->t.pos;
    if (nb < 0 || (uint64_t)nb > left) {
      format(why, sizeof why, "its header says %lld bytes, %zu follow it",
             (long long)nb, left);
    } else if (!rg->end) {
      end = (size_t)rg->start + a->t.pos + (size_t)nb;
    }
  } else if (!rg->end) {
    end = (size_t)rg->start + a->t.pos;
  }
  if (why[0]) {
    if (!rg->end) return 0;
    e->cursor = end;
    ex_row(f, rg->start, end - rg->start, "%s", e->chunk_path);
    ex_note(f,
            "%zu bytes the footer points to as %s, which do not read as "
            "one (%s): not explained",
            end - (size_t)rg->start, tnames[rg->kind], why);
    return 1;
  }
  e->chunk_end = end;
  ex_thrift_init(&e->w, x, (size_t)rg->start, end, root, e->chunk_path, label);
  e->bloom = rg->kind == R_BLOOM;
  e->phase = F_INDEX;
  return 0;
}

/* A chunk whose bytes begin inside bytes explained before: its pages are
** read as the reader reads them (and their values decoded), without rows,
** so that what the reader rejects still ends the walk; else a row of no
** bytes says it was not explained again. */
static int overlapped_chunk(pq_explainer *x, ex_file *e, const ex_region *rg,
                            pq_field *f) {
  ex_region here = *rg;
  here.start = here.end = e->cursor;
  if (start_chunk(x, e, &here, f)) return 1;
  const pq_schema_node *leaf = pq_file_leaf(e->file, rg->col);
  pq_error err;
  int rc = PQ_OK, got = 1;
  while (rc == PQ_OK && got) {
    rc = pq_page_reader_next(e->r, &e->pg, &got, &err);
    if (rc || !got) break;
    const pq_bytes *d = pq_page_reader_dictionary(e->r, NULL);
    e->dict = d ? d->ptr : NULL;
    e->dict_len = d ? d->len : 0;
    rc = check_values(e, &e->pg, leaf->elem->type, leaf->elem->type_length,
                      &err);
    if (rc) {
      char msg[sizeof f->note];
      format(msg, sizeof msg, "%s, page %u: values: %s", e->chunk_label,
             e->pg.index, err.msg);
      return fault_rc(x, f, e->cursor, rc, msg);
    }
  }
  if (rc) return ex_fault(x, f, e->cursor, &err);
  pq_page_reader_free(e->r);
  e->r = NULL;
  e->phase = F_REGION;
  ex_row(f, e->cursor, 0, "%s", e->chunk_path);
  ex_note(f,
          "the chunk's %llu bytes at offset %llu begin inside the bytes "
          "explained before (to offset %zu): not explained again",
          (unsigned long long)(rg->end - rg->start),
          (unsigned long long)rg->start, e->cursor);
  return 1;
}

/* The next region, or the bytes before it. */
static int next_region(pq_explainer *x, ex_file *e, pq_field *f) {
  while (e->iregion < e->nregions) {
    const ex_region *rg = &e->regions[e->iregion];
    if (rg->kind == R_CHUNK && rg->end == rg->start) {
      /* A chunk of no bytes, or one whose offsets the reader rejects:
      ** the reader says which, here. */
      e->iregion++;
      ex_region here = *rg;
      here.start = here.end = e->cursor;
      return start_chunk(x, e, &here, f);
    }
    if (rg->start < e->cursor) {
      e->iregion++;
      if (rg->kind == R_CHUNK) return overlapped_chunk(x, e, rg, f);
      continue; /* an index inside bytes explained as something else */
    }
    if (rg->start > e->cursor) {
      size_t at = e->cursor;
      e->cursor = (size_t)rg->start;
      return bytes_row(f, at, e->cursor - at, "gap",
                       "that no page, page index or bloom filter of the "
                       "footer claims: not read");
    }
    e->iregion++;
    if (rg->kind == R_CHUNK) return start_chunk(x, e, rg, f);
    if (start_structure(x, e, rg, f)) return 1;
    if (e->phase == F_INDEX) return 0;
  }
  e->phase = F_FOOTER_GAP;
  return 0;
}

/* A Thrift walk's next row; at its end the phase `after`. */
static int walk_step(pq_explainer *x, ex_file *e, pq_field *f, int after,
                     const pq_error *reader_err) {
  int rc = ex_thrift_step(&e->w, f);
  if (rc > 0) return 1;
  if (rc < 0) {
    return ex_fault(x, f, e->w.fault_at, reader_err ? reader_err : &e->w.err);
  }
  e->cursor = e->w.t.base + e->w.t.pos;
  e->phase = after;
  return 0;
}

static int file_step(pq_explainer *x, pq_field *f) {
  ex_file *e = x->file;
  for (;;) {
    switch (e->phase) {
      case F_MAGIC:
        if (e->open_rc) {
          e->phase = F_BROKEN;
          if (x->len < 4 || (memcmp(x->buf, "PAR1", 4) != 0 &&
                             memcmp(x->buf, "PARE", 4) != 0)) {
            return ex_fault(x, f, 0, &e->open_err);
          }
        } else {
          e->phase = F_REGION;
        }
        ex_row(f, 0, 4, "magic");
        set_text(f, x->buf, 4);
        ex_note(f, x->buf[3] == 'E'
                       ? "'PARE': a file whose footer is encrypted"
                       : "'PAR1': every Parquet file begins with these 4 "
                         "bytes");
        e->cursor = 4;
        return 1;
      case F_BROKEN: {
        /* The file cannot be opened: as far as it can be explained. */
        size_t len = x->len;
        if (len < 12) return ex_fault(x, f, 4, &e->open_err);
        if (memcmp(x->buf + len - 4, "PAR1", 4) != 0) {
          if (e->cursor < len - 4) {
            size_t at = e->cursor;
            e->cursor = len - 4;
            return bytes_row(f, at, len - 4 - at, "data",
                             "not explained: the file cannot be opened");
          }
          return ex_fault(x, f, len - 4, &e->open_err);
        }
        uint32_t flen = pq_load32(x->buf + len - 8);
        if (flen > len - 12) {
          if (e->cursor < len - 8) {
            size_t at = e->cursor;
            e->cursor = len - 8;
            return bytes_row(f, at, len - 8 - at, "data",
                             "not explained: the file cannot be opened");
          }
          return ex_fault(x, f, len - 8, &e->open_err);
        }
        e->footer_at = len - 8 - flen;
        e->footer_end = len - 8;
        if (e->cursor < e->footer_at) {
          size_t at = e->cursor;
          e->cursor = e->footer_at;
          return bytes_row(f, at, e->footer_at - at, "data",
                           "of column chunks: not explained, as the file "
                           "cannot be opened");
        }
        ex_thrift_init(&e->w, x, e->footer_at, e->footer_end, EX_FILE_META,
                       "footer", "file metadata");
        e->phase = F_FOOTER;
        continue;
      }
      case F_REGION:
        if (next_region(x, e, f)) return 1;
        continue;
      case F_CHUNK:
        if (walk_page(x, e, f)) return 1;
        continue;
      case F_CHUNK_REST:
        e->phase = F_REGION;
        if (e->cursor < e->chunk_end) {
          size_t at = e->cursor;
          e->cursor = e->chunk_end;
          char path[80];
          format(path, sizeof path, "%s.rest", e->chunk_path);
          return bytes_row(f, at, e->chunk_end - at, path,
                           "of the column chunk after its last page: not "
                           "read");
        }
        continue;
      case F_PAGE_HEADER:
        if (walk_step(x, e, f, F_BODY, e->reader_rc ? &e->reader_err : NULL)) {
          return 1;
        }
        if (e->reader_rc) {
          /* The header reads; the reader rejects the page. */
          return ex_fault(x, f, e->cursor, &e->reader_err);
        }
        continue;
      case F_BODY:
        if (body_step(x, e, f)) return 1;
        e->cursor = e->is_page ? e->body_end : e->pos;
        e->phase = e->is_page ? F_BODY_REST : F_CHUNK;
        continue;
      case F_BODY_REST:
        e->phase = F_END;
        if (e->cursor < x->len) {
          return bytes_row(f, e->cursor, x->len - e->cursor, "rest",
                           "after the page: not read");
        }
        continue;
      case F_INDEX:
        if (walk_step(x, e, f, e->bloom ? F_BLOOM_BITS : F_REGION_REST, NULL)) {
          return 1;
        }
        continue;
      case F_BLOOM_BITS: {
        e->phase = F_REGION_REST;
        int64_t nb = e->w.root_has & 2 ? e->w.root_val[1] : -1;
        size_t left = e->chunk_end - e->cursor;
        if (nb < 0 || (uint64_t)nb > left) {
          char msg[200];
          snprintf(msg, sizeof msg,
                   "bloom filter: the header says %lld bytes, %zu remain at "
                   "offset %zu",
                   (long long)nb, left, e->cursor);
          return fault_msg(x, f, e->cursor, msg);
        }
        size_t at = e->cursor;
        e->cursor += (size_t)nb;
        ex_row(f, at, (size_t)nb, "%s.bitset", e->chunk_path);
        ex_note(f,
                "%lld bytes of the filter's blocks (32 bytes each: eight "
                "32-bit words)",
                (long long)nb);
        return 1;
      }
      case F_REGION_REST:
        e->phase = F_REGION;
        if (e->cursor < e->chunk_end) {
          size_t at = e->cursor;
          char path[sizeof e->chunk_path + 8];
          format(path, sizeof path, "%s.rest", e->chunk_path);
          e->cursor = e->chunk_end;
          return bytes_row(f, at, e->chunk_end - at, path,
                           "after the structure's stop: not read");
        }
        continue;
      case F_FOOTER_GAP:
        e->phase = F_FOOTER;
        ex_thrift_init(&e->w, x, e->footer_at, e->footer_end, EX_FILE_META,
                       "footer", "file metadata");
        if (e->cursor < e->footer_at) {
          size_t at = e->cursor;
          e->cursor = e->footer_at;
          return bytes_row(f, at, e->footer_at - at, "gap",
                           "that no page, page index or bloom filter of the "
                           "footer claims: not read");
        }
        continue;
      case F_FOOTER:
        if (walk_step(x, e, f, F_FOOTER_REST,
                      e->open_rc ? &e->open_err : NULL)) {
          return 1;
        }
        continue;
      case F_FOOTER_REST:
        e->phase = F_FOOTER_LENGTH;
        if (e->cursor < e->footer_end) {
          size_t at = e->cursor;
          e->cursor = e->footer_end;
          return bytes_row(f, at, e->footer_end - at, "footer.rest",
                           "after the file metadata's stop, within its "
                           "length: not read");
        }
        continue;
      case F_FOOTER_LENGTH: {
        size_t at = x->len - 8;
        uint32_t n = pq_load32(x->buf + at);
        e->phase = F_END_MAGIC;
        ex_row(f, at, 4, "footer_length");
        ex_bits_bytes(f, x->buf + at, 4);
        f->kind = PQ_FV_UINT;
        f->u = n;
        ex_note(f,
                "4 bytes, little endian: the file metadata takes %u byte%s, "
                "from offset %zu",
                n, n == 1 ? "" : "s", at - n);
        return 1;
      }
      case F_END_MAGIC:
        e->phase = e->open_rc ? F_LAST_ERROR : F_END;
        ex_row(f, x->len - 4, 4, "end_magic");
        set_text(f, x->buf + x->len - 4, 4);
        ex_note(f, "'PAR1': the file ends as it begins");
        return 1;
      case F_LAST_ERROR:
        e->phase = F_END;
        return ex_fault(x, f, x->len, &e->open_err);
      default: return 0;
    }
  }
}

/* ---- Opening ------------------------------------------------------------- */

static int new_explainer(pq_explainer **out, const uint8_t *buf, size_t len,
                         pq_error *err) {
  *out = NULL;
  pq_explainer *x = pq_calloc(1, sizeof *x);
  ex_file *e = pq_calloc(1, sizeof *e);
  if (!x || !e) {
    pq_free(x);
    pq_free(e);
    return pq_nomem(err, "explain");
  }
  pq_params_init(&x->p);
  x->enc = "FILE";
  x->buf = buf ? buf : (const uint8_t *)"";
  x->len = buf ? len : 0;
  x->limit = UINT64_MAX;
  x->step = file_step;
  x->file = e;
  pq_buf_init(&x->prev);
  *out = x;
  return PQ_OK;
}

int pq_explainer_open_file(pq_explainer **out, const uint8_t *buf, size_t len,
                           pq_error *err) {
  pq_explainer *x;
  int rc = new_explainer(&x, buf, len, err);
  if (rc) return rc;
  ex_file *e = x->file;
  e->open_rc = pq_file_open(&e->file, x->buf, x->len, &e->open_err);
  if (e->open_rc == PQ_NOMEM) {
    *err = e->open_err;
    pq_explainer_free(x);
    return PQ_NOMEM;
  }
  if (e->open_rc == PQ_OK) {
    e->footer_end = x->len - 8;
    e->footer_at = e->footer_end - pq_load32(x->buf + e->footer_end);
    rc = plan_regions(e, err);
    if (rc) {
      pq_explainer_free(x);
      return rc;
    }
  }
  e->phase = F_MAGIC;
  *out = x;
  return PQ_OK;
}

/* PAGE: the header's walk and what follows it. */
static int page_step(pq_explainer *x, pq_field *f) {
  ex_file *e = x->file;
  if (e->phase == F_PAGE_HEADER) {
    int rc = ex_thrift_step(&e->w, f);
    if (rc > 0) return 1;
    if (rc < 0) {
      return ex_fault(x, f, e->w.fault_at,
                      e->reader_rc ? &e->reader_err : &e->w.err);
    }
    e->cursor = e->w.t.pos;
    if (e->reader_rc) return ex_fault(x, f, e->cursor, &e->reader_err);
    if (e->cursor == x->len) return 0; /* a header alone */
    e->phase = F_BODY;
  }
  return file_step(x, f);
}

int pq_explainer_open_page(pq_explainer **out, const pq_page_context *c,
                           const uint8_t *buf, size_t len, const uint8_t *dict,
                           size_t dict_len, pq_error *err) {
  pq_page_context dflt;
  if (!c) {
    pq_page_context_init(&dflt);
    c = &dflt;
  }
  if (c->type_set &&
      ((unsigned)c->type > PQ_FIXED_LEN_BYTE_ARRAY ||
       (c->type == PQ_FIXED_LEN_BYTE_ARRAY && c->type_length <= 0))) {
    return pq_fail(err, PQ_MISUSE, "PAGE",
                   "FIXED_LEN_BYTE_ARRAY needs a length, as in "
                   "FIXED_LEN_BYTE_ARRAY(16)");
  }
  if (c->max_def < 0 || c->max_rep < 0 || c->max_def > INT16_MAX ||
      c->max_rep > INT16_MAX) {
    return pq_fail(err, PQ_MISUSE, "PAGE",
                   "levels of %d and %d: the maxima "
                   "are 0 to 32767",
                   c->max_rep, c->max_def);
  }
  pq_explainer *x;
  int rc = new_explainer(&x, buf, len, err);
  if (rc) return rc;
  ex_file *e = x->file;
  x->enc = "PAGE";
  x->step = page_step;
  e->is_page = 1;
  e->ctx = *c;
  e->variant = c->variant == PQ_XV_METADATA || c->variant == PQ_XV_VALUE
                   ? c->variant
                   : 0;
  e->dict = dict;
  e->dict_len = dict ? dict_len : 0;
  snprintf(e->page_label, sizeof e->page_label, "page");
  /* The header as the reader reads it: its fields and whether it is
  ** whole; the rows come from the walk. */
  int32_t def_len = 0, rep_len = 0;
  const char *missing = NULL;
  pq_page *p = &e->pg;
  memset(p, 0, sizeof *p);
  p->num_nulls = p->num_rows = -1;
  p->def_encoding = p->rep_encoding = -1;
  p->is_compressed = 1;
  p->is_sorted = -1;
  e->reader_rc =
      pq_page_header_read(p, x->buf, x->len, 0, "page header", &def_len,
                          &rep_len, &missing, &e->reader_err);
  if (!e->reader_rc && missing) {
    e->reader_rc = pq_fail(&e->reader_err, PQ_CORRUPT, "page header",
                           "the header lacks %s", missing);
  }
  ex_thrift_init(&e->w, x, 0, x->len, EX_PAGE_HEADER, "header", "page header");
  if (!e->reader_rc) plan_page_body(e, x->buf, x->len, p, def_len, rep_len);
  e->phase = F_PAGE_HEADER;
  *out = x;
  return PQ_OK;
}
