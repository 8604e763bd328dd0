/*
** format.h -- the file format (spec/README.md, parquet.thrift): Thrift's
** compact protocol both ways, the footer's structures, an opened file and
** its schema tree, page headers, codecs.  The pages themselves are read
** through parquet.h's pq_page_reader.
**
** Above encodings/ (a page's levels and values are streams of them); the
** reader, the writer and the explainer build on it.
*/
#ifndef PQ_FORMAT_H
#define PQ_FORMAT_H

#include "../encodings/encodings.h"

/* ---- The Thrift compact protocol (thrift.c) ------------------------------ */

enum {
  PQ_TT_STOP = 0,
  PQ_TT_TRUE = 1,
  PQ_TT_FALSE = 2,
  PQ_TT_BYTE = 3,
  PQ_TT_I16 = 4,
  PQ_TT_I32 = 5,
  PQ_TT_I64 = 6,
  PQ_TT_DOUBLE = 7,
  PQ_TT_BINARY = 8,
  PQ_TT_LIST = 9,
  PQ_TT_SET = 10,
  PQ_TT_MAP = 11,
  PQ_TT_STRUCT = 12
};

/* A reader.  The first fault is kept (failed, and the message in *err);
** after it every read returns zero. */
typedef struct pq_thrift {
  const uint8_t *buf;
  size_t len, pos;
  size_t base;        /* offset of buf[0] in the file, for messages */
  int depth;
  int failed;         /* 0, or the PQ_ code of the first fault */
  const char *label;  /* "file metadata", "page header" */
  pq_error *err;
} pq_thrift;

void pq_thrift_init(pq_thrift *t, const uint8_t *buf, size_t len, size_t base,
                    const char *label, pq_error *err);
/* Records a fault "<label>: <what> at offset N" (the first one only). */
int pq_thrift_fail(pq_thrift *t, const char *what);
/* Reads a field header of a struct: 0 at the STOP (or a fault). last_id is
** the previous field's id, for the delta. */
int pq_thrift_field(pq_thrift *t, int *type, int16_t *last_id, int16_t *id);
int64_t pq_thrift_i64(pq_thrift *t);
int32_t pq_thrift_i32(pq_thrift *t);
int pq_thrift_byte(pq_thrift *t);
/* A string or binary: points into the buffer. */
pq_bytes pq_thrift_binary(pq_thrift *t);
/* A double: 8 bytes, little-endian. */
double pq_thrift_double(pq_thrift *t);
/* A list header: the element count, checked against the bytes left. */
uint32_t pq_thrift_list(pq_thrift *t, int *elem_type);
/* Count a nesting level (fails past the bound) / leave it. */
int pq_thrift_enter(pq_thrift *t);
void pq_thrift_leave(pq_thrift *t);
/* Skips a value of the type: fields a reader does not know. */
void pq_thrift_skip(pq_thrift *t, int type);

/* A writer appends to out; last[] keeps the previous field id per level. */
typedef struct pq_thrift_writer {
  pq_buf *out;
  int depth;
  int16_t last[64];
} pq_thrift_writer;

void pq_tw_i8(pq_thrift_writer *w, int16_t id, int8_t v);
void pq_tw_i32(pq_thrift_writer *w, int16_t id, int32_t v);
void pq_tw_i64(pq_thrift_writer *w, int16_t id, int64_t v);
void pq_tw_bool(pq_thrift_writer *w, int16_t id, int v);
void pq_tw_double(pq_thrift_writer *w, int16_t id, double v);
void pq_tw_binary(pq_thrift_writer *w, int16_t id, const void *p, size_t n);
void pq_tw_struct_begin(pq_thrift_writer *w, int16_t id);
void pq_tw_struct_end(pq_thrift_writer *w);
void pq_tw_list_begin(pq_thrift_writer *w, int16_t id, int elem_type,
                      uint32_t n);
void pq_tw_list_i32(pq_thrift_writer *w, int32_t v);
void pq_tw_list_binary(pq_thrift_writer *w, const void *p, size_t n);
/* A struct as a list element: begin it, then pq_tw_struct_end. */
void pq_tw_list_struct_begin(pq_thrift_writer *w);
/* The STOP of the outermost struct. */
void pq_tw_stop(pq_thrift_writer *w);

/* ---- The footer's structures (metadata.c) -------------------------------- */

/* A Thrift reader with an arena for lists (arena may be NULL when the
** structures read have none). */
typedef struct pq_parser {
  pq_thrift t;
  pq_arena *arena;
  int nomem;
} pq_parser;

/* Checks that a field has the Thrift type its definition gives; a field of
** another type is skipped (as by a reader of another version) and 0 is
** returned.  PQ_TT_TRUE stands for either boolean. */
int pq_parse_want(pq_parser *ps, int type, int expect);
void pq_parse_statistics(pq_parser *ps, pq_statistics *s);
/* Reads a FileMetaData (parquet.thrift) into m; faults in ps->t.failed,
** an allocation failure in ps->nomem. */
void pq_parse_file_meta(pq_parser *ps, pq_file_meta *m);

/* ---- An opened file (file.c, schema.c) ----------------------------------- */

struct pq_file {
  const uint8_t *buf;    /* the file image; NULL when read through `in` */
  size_t len;            /* the file's size */
  pq_input in;           /* how its bytes are read when there is no image */
  size_t data_end;       /* where the footer begins: the pages end there */
  uint32_t footer_len;   /* the FileMetaData's bytes */
  uint8_t *footer;       /* the footer as read from `in` */
  pq_arena arena;        /* the metadata's lists and the schema tree */
  pq_file_meta meta;
  pq_schema_node *nodes; /* one per schema element, nodes[0] the root */
  pq_schema_node **leaves;
  uint32_t n_leaves;
};

/* Builds f->nodes and f->leaves from f->meta's schema, with each node's
** levels and path, and checks that every row group has a chunk per leaf. */
int pq_schema_build(pq_file *f, pq_error *err);
/* The bytes [at, at + n) of an opened file, which must lie inside it:
** *out points into the image, or into *scratch, where they are read (its
** memory the caller's to keep for the next call, or to free).  A range
** outside the file is PQ_CORRUPT, named by label. */
int pq_file_span(const pq_file *f, uint64_t at, size_t n, pq_buf *scratch,
                 const uint8_t **out, const char *label, pq_error *err);
/* The same into dst, which has room for n bytes. */
int pq_file_read(const pq_file *f, uint64_t at, size_t n, uint8_t *dst,
                 const char *label, pq_error *err);

/* ---- Page headers (page.c) ----------------------------------------------- */

/* Reads the PageHeader in buf[0..len) (at offset base of the file, for
** messages; label begins them) into p's header fields and sets
** p->header_size; a v2 page's level sizes go in *def_len and *rep_len.
** Returns a Thrift fault, or PQ_OK with *missing NULL, or naming what
** the header lacks of the fields its page type requires. */
int pq_page_header_read(pq_page *p, const uint8_t *buf, size_t len,
                        size_t base, const char *label, int32_t *def_len,
                        int32_t *rep_len, const char **missing, pq_error *err);

/* Bytes of the pages read so far (headers and bodies as stored), and how
** many pages. */
int64_t pq_page_reader_bytes(const pq_page_reader *r);
uint32_t pq_page_reader_pages(const pq_page_reader *r);
/* Moves past the next page, reading only its header, when it is a data
** page of at most `entries` entries; *skipped is how many (0: it was not
** skipped, and is the next to read).  Used after a first data page (a
** chunk's first repetition level is checked there). */
int pq_page_reader_skip(pq_page_reader *r, int64_t entries, int64_t *skipped,
                        pq_error *err);
/* From here on, each data page of a flat column read or skipped at an
** offset that `oi` lists must hold the rows it says (rows: the row group's,
** for the last page); one that does not is PQ_CORRUPT.  oi must outlast
** the reader, or the next call (NULL: no check). */
void pq_page_reader_check_rows(pq_page_reader *r, const pq_offset_index *oi,
                               int64_t rows);
/* Goes on at the page `page` whose header is at `offset` (later in the
** chunk than what was read), values_before level entries into the chunk:
** what an offset index says. */
int pq_page_reader_seek(pq_page_reader *r, int64_t offset, uint32_t page,
                        int64_t values_before, pq_error *err);

/* ---- Codecs (codec.c) ---------------------------------------------------- */

/* The option `key` naming a codec, by name or number, into *out (null
** leaves it). */
int pq_codec_option(const pq_jvalue *v, const char *key, pq_codec *out,
                    pq_error *err);

#endif /* PQ_FORMAT_H */
