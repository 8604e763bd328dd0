/*
** explain.h -- what the explainer's files share: explain.c (opening),
** explain_row.c (making rows), a walker per family of encodings
** (explain_plain.c, explain_runs.c, explain_delta.c, explain_alp.c),
** Thrift structures
** (explain_thrift.c), files and pages (explain_file.c, explain_context.c),
** VARIANT values (explain_variant.c).
** The explainer stands on the file format (format/) and the encodings'
** own checks; nothing below it knows of it.
**
** An explainer is a state machine: each call to its step function emits
** exactly one row, so a stream of any length is explained in constant
** memory.  The structure is parsed with the decoders' own checks
** (pq_rle_next_run, pq_delta_next_miniblock, pq_plain_check, ...), so a
** stream is explained as faulty exactly where, and in the words with
** which, a decoder rejects it.
*/
#ifndef PQ_EXPLAIN_H
#define PQ_EXPLAIN_H

#include "../format/format.h"

/* The RLE/bit-packed runs of an RLE stream or of dictionary indices. */
typedef struct ex_runs {
  pq_rle_reader r;      /* parses and checks each run */
  int phase;
  uint64_t run;         /* index of the current run */
  size_t run_at;        /* offset of its header */
  uint64_t header;      /* its header value */
  uint64_t slots;       /* values the run holds */
  uint64_t counted;     /* of them, those within the count */
  uint64_t j;           /* next value of a bit-packed run */
  size_t data_at;       /* offset of a bit-packed run's values */
  size_t data_len;      /* bytes of them present */
  int value_row;        /* the last row was a value (or a run's value) */
  uint64_t vindex;      /* its index in the stream */
  uint32_t vvalue;      /* the value (an index, for dictionaries) */
} ex_runs;

/* A DELTA_BINARY_PACKED stream, alone or inside DELTA_*_BYTE_ARRAY. */
typedef struct ex_delta {
  pq_delta_reader r;    /* parses and checks blocks and miniblocks */
  const char *prefix;   /* path prefix: "", "lengths.", ... */
  int phase;
  int fields;           /* header fields that could be read */
  size_t at[5];         /* their offsets (at[4]: the end of the header) */
  uint64_t val[4];
  int init_rc;          /* what checking the header said */
  pq_error init_err;
  int pending_rc;       /* a fault found with a block, told after its rows */
  pq_error pending_err;
  size_t block_at;      /* offset of the current block's min delta */
  uint64_t block_values;/* values left when the block began */
  uint64_t wi;          /* next bit width row */
  size_t mb_at;         /* offset of the current miniblock */
  size_t mb_len;        /* its bytes present */
  uint64_t vj, vn;      /* next value of it, and how many count */
  uint64_t last;        /* previous value, as unsigned bits */
  uint64_t limit;       /* values to show: the count, for DELTA_BINARY_PACKED */
} ex_delta;

/* ---- Thrift structures, field by field (explain_thrift.c) ----------------- */

#define EX_DEPTH 16 /* frames: more than the structures of parquet.thrift nest */
#define EX_PATH 256

/* A struct being walked, or a list of the field `list`. */
typedef struct ex_frame {
  int sref;              /* struct: its fields (S_* of explain_thrift.c) */
  const char *tname;     /* struct: its name, for the stop row */
  const void *list;      /* list: the field it is the value of */
  int elem;              /* list: the element type read */
  int entered;           /* struct: counted in t.depth */
  int16_t last;          /* struct: the previous field's id */
  uint32_t seen;         /* struct: ids (below 32) of the fields read */
  uint32_t n, i;         /* list: elements, and the next one */
  size_t plen;           /* length of the frame's path */
} ex_frame;

typedef struct ex_thrift {
  pq_thrift t;           /* the reader's own reads and faults */
  pq_error err;
  ex_frame st[EX_DEPTH];
  int depth;
  char path[EX_PATH];
  size_t plen;
  int pending;           /* a fault found after the row just made */
  size_t fault_at;       /* where the fault is, once told */
  int64_t root_val[16];  /* integer fields of the outermost struct, by id */
  uint32_t root_has;
  uint32_t root_seen;    /* ids (below 32) of its fields, once it ends */
} ex_thrift;

/* The structures a walk can begin with. */
enum {
  EX_FILE_META,
  EX_PAGE_HEADER,
  EX_COLUMN_INDEX,
  EX_OFFSET_INDEX,
  EX_BLOOM_HEADER,
  EX_COLUMN_CHUNK,
  EX_COLUMN_META
};

/* Starts a walk of the struct `root` in x->buf[at..end): paths begin with
** prefix ("footer"), faults with label (the reader's: "file metadata"),
** which must last as long as the walk. */
void ex_thrift_init(ex_thrift *w, pq_explainer *x, size_t at, size_t end,
                    int root, const char *prefix, const char *label);
/* 1 with a row; 0 after the root's stop (w->t.pos is then its length);
** -1 at a fault, which is at w->fault_at and says w->err. */
int ex_thrift_step(ex_thrift *w, pq_field *f);

/* The walk of a file or a page (explain_file.c). */
typedef struct ex_file ex_file;
void ex_file_free(ex_file *e);

/* The walk of a VARIANT's metadata and value (explain_variant.c). */
typedef struct ex_variant ex_variant;
int ex_variant_new(ex_variant **out, pq_error *err);
void ex_variant_free(ex_variant *v);
/* Starts a walk of buf[at..end): part is PQ_XV_*; a value alone resolves
** its field ids with meta[0..meta_len) when given (PQ_CORRUPT when it does
** not read); prefix goes before every path. */
int ex_variant_start(ex_variant *v, const uint8_t *buf, size_t at, size_t end,
                     int part, const uint8_t *meta, size_t meta_len,
                     const char *prefix, pq_error *err);
/* 1 with a row, 0 at the end, -1 at a fault (ex_variant_fault says it). */
int ex_variant_step(ex_variant *v, pq_field *f);
int ex_variant_fault(const ex_variant *v, pq_error *err, size_t *at);
/* A PLAIN or DELTA_LENGTH_BYTE_ARRAY walk of BYTE_ARRAY values: each value
** is walked as a variant's part too (a variant column's metadata or
** value); other walks are left alone. */
int ex_variant_attach(pq_explainer *x, int part, pq_error *err);

struct pq_explainer {
  pq_params p;
  const char *enc;      /* the encoding's name */
  const uint8_t *buf;
  size_t len;
  uint64_t limit;       /* the count option, or UINT64_MAX */
  int (*step)(pq_explainer *x, pq_field *f);
  int done;
  int nomem;            /* the fault told was an allocation failure */
  int phase;
  uint64_t i;           /* the next value */
  size_t pos;           /* the next byte */
  size_t end;           /* end of the part being walked */
  int check_rc;         /* a fault found up front, told in its place */
  pq_error check_err;
  ex_runs runs;
  ex_delta d1, d2;      /* lengths; or prefix and suffix lengths */
  pq_delta_reader lens1, lens2;   /* the same, read value by value */
  pq_dict dict;
  int have_dict;
  pq_buf prev;          /* DELTA_BYTE_ARRAY: the previous value */
  uint8_t scratch[16];  /* a value being shown */
  pq_bytes bytes;
  ex_file *file;        /* a file or a page: its walk */
  ex_variant *variant;  /* a VARIANT, or the values of a variant column */
  int variant_part;     /* PLAIN values: PQ_XV_METADATA or PQ_XV_VALUE */
};

/* ---- Rows ---------------------------------------------------------------- */

/* "s" unless n is 1, for notes. */
static inline const char *ex_s(uint64_t n) { return n == 1 ? "" : "s"; }


/* Starts a row: clears f and sets where it is and its path. */
void ex_row(pq_field *f, uint64_t offset, uint64_t length, const char *fmt,
            ...) PQ_PRINTF(4, 5);
void ex_note(pq_field *f, const char *fmt, ...) PQ_PRINTF(2, 3);
/* Appends to the note. */
void ex_note_add(pq_field *f, const char *fmt, ...) PQ_PRINTF(2, 3);
/* f->bits: the bytes, MSB first, a space between bytes. */
void ex_bits_bytes(pq_field *f, const uint8_t *p, size_t n);
/* f->bits: the w bits of v, most significant first. */
void ex_bits_value(pq_field *f, uint64_t v, int w);
/* f->labels: under ex_bits_bytes of packed values, the letter of the value
** each bit belongs to (A is the first value's top bit, as in the spec's
** pictures); '.' for padding. */
void ex_labels(pq_field *f, size_t nbytes, uint64_t nvalues, int w,
               int msb_first);
/* The row that ends the walk: what is wrong, at offset. */
/* The next row of the variant value a walker is in (x->variant): 1 with
** a row (its fault row at a fault), 0 when the value is done. */
int ex_variant_value_row(pq_explainer *x, pq_field *f);
int ex_fault(pq_explainer *x, pq_field *f, uint64_t offset,
             const pq_error *err);
/* The bytes from pos to the end that no value uses. */
void ex_rest(pq_explainer *x, pq_field *f, size_t pos, const char *why);

/* The value of a field: v laid out as for the type. */
void ex_value(pq_field *f, pq_type t, int32_t type_length, const void *v);
/* v in words for a note: 7, 0.1, 'Hello', X'FF00'. */
void ex_describe(char *out, size_t cap, pq_type t, int32_t type_length,
                 const void *v);
/* A note for a ULEB128 of n bytes at p: "ULEB128: 0x80 0x01 = 128". */
void ex_uleb_note(pq_field *f, const uint8_t *p, size_t n, uint64_t v);
/* The bytes of the ULEB128 at p (at most avail, at most 10). */
size_t ex_uleb_len(const uint8_t *p, size_t avail);

/* ---- Walkers --------------------------------------------------------------
** Each returns 1 with a row in f, or 0 when it has no more rows (and then
** the caller goes on). */

/* Runs over buf[at..end) of bit width w; values are counted in x->i up to
** x->limit. */
void ex_runs_init(pq_explainer *x, size_t at, size_t end, int w);
int ex_runs_step(pq_explainer *x, pq_field *f);
/* After the runs: a stream short of the count, or the bytes not read. */
int ex_runs_end(pq_explainer *x, pq_field *f);

/* A DELTA_BINARY_PACKED walk from offset at; label is the decoders' for
** its messages, prefix goes before its paths. */
void ex_delta_init(pq_explainer *x, ex_delta *d, size_t at, int is32,
                   int strict, const char *prefix, const char *label);
int ex_delta_step(pq_explainer *x, ex_delta *d, pq_field *f);

/* Each encoding's step function, chosen by pq_explainer_open. */
int ex_plain_open(pq_explainer *x, pq_error *err);
int ex_bit_packed_open(pq_explainer *x, pq_error *err);
int ex_bss_open(pq_explainer *x, pq_error *err);
int ex_gvi_open(pq_explainer *x, pq_error *err);
int ex_rle_open(pq_explainer *x, pq_error *err);
int ex_dict_open(pq_explainer *x, const uint8_t *dict, size_t dict_len,
                 pq_error *err);
int ex_dbp_open(pq_explainer *x, pq_error *err);
int ex_dlba_open(pq_explainer *x, pq_error *err);
int ex_dba_open(pq_explainer *x, pq_error *err);
int ex_alp_open(pq_explainer *x, pq_error *err);

#endif /* PQ_EXPLAIN_H */
