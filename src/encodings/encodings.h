/*
** encodings.h -- what the encodings share (spec/Encodings.md): bit packing,
** the decoder and encoder objects each encoding fills in, the readers and
** writers of the RLE/bit-packing hybrid and of DELTA_BINARY_PACKED that
** several encodings (and page levels) are built from, and the checks the
** decoders and the explainer share.
**
** Above util/ and below everything else: nothing here knows of pages or
** files.
*/
#ifndef PQ_ENCODINGS_H
#define PQ_ENCODINGS_H

#include "../util/util.h"

/* ---- Bit packing (bitpack.c, bitpack_gen.h) -----------------------------
** LSB-first packing as the RLE hybrid and DELTA_BINARY_PACKED use it.
** The unrolled forms take 32 values and read or write exactly 4*w bytes.
** in and out must not overlap. */
void pq_unpack32(int w, const uint8_t *in, uint32_t *out); /* w 0..32 */
void pq_unpack64(int w, const uint8_t *in, uint64_t *out); /* w 0..64 */
void pq_pack32(int w, const uint32_t *in, uint8_t *out);   /* w 0..32 */
void pq_pack64(int w, const uint64_t *in, uint8_t *out);   /* w 0..64 */
/* The OR of n values: the bit width of the largest. */
uint32_t pq_or32(const uint32_t *u, size_t n);
/* The unpackers of widths 0..32 (the same contract as pq_unpack32) that
** the instruction sets in cpu (pq_cpu()'s answer) allow: choose once, when
** a decoder opens. */
typedef void (*pq_unpack32_fn)(const uint8_t *in, uint32_t *out);
const pq_unpack32_fn *pq_unpack32_table(unsigned cpu);
const pq_unpack32_fn *pq_unpack32_msb_table(unsigned cpu); /* MSB-first */
/* The packers of 32 values of each width 0..32 that cpu allows: each
** writes the 4*w bytes of its values and may write zeros to the 16 bytes
** after them. */
typedef void (*pq_pack32_fn)(const uint32_t *in, uint8_t *out);
const pq_pack32_fn *pq_pack32_table(unsigned cpu);
const pq_pack32_fn *pq_pack32_msb_table(unsigned cpu); /* MSB-first */
/* The deprecated BIT_PACKED order, most significant bit first. */
void pq_unpack32_msb(int w, const uint8_t *in, uint32_t *out);
void pq_pack32_msb(int w, const uint32_t *in, uint8_t *out);

/* Any count of values, from any bit offset: slow but general, used for the
** tails that the unrolled forms do not cover and as the test reference. */
void pq_unpack_lsb(const uint8_t *in, uint64_t bit, int w, size_t n,
                   uint64_t *out);
void pq_unpack_msb(const uint8_t *in, uint64_t bit, int w, size_t n,
                   uint64_t *out);

/* ---- Decoders -----------------------------------------------------------
** Every decoder embeds pq_decoder first.  The common layer (decoder.c)
** enforces the count option: it asks read() for at most `left` values and
** reports a stream that ends before the count. */
struct pq_decoder {
  pq_params p;        /* resolved parameters */
  const uint8_t *buf; /* the stream */
  size_t len;
  uint64_t left;      /* values still to yield; UINT64_MAX = all */
  uint64_t done;      /* values yielded so far */
  pq_type out_type;   /* type of the values yielded */
  int32_t out_length; /* its type_length */
  int is_index;       /* yields unsigned levels or indices */
  int (*read)(pq_decoder *d, void *out, size_t max, size_t *n, pq_error *err);
  void (*destroy)(pq_decoder *d); /* frees what the encoding owns */
};

/* Allocates `size` bytes (an encoding's struct, which begins with
** pq_decoder) and fills in the common part. */
pq_decoder *pq_decoder_alloc(size_t size, const pq_params *p,
                             const uint8_t *buf, size_t len);

/* Each encoding's decoder constructor.  They validate what they can before
** any value is read and allocate their state with pq_calloc. */
int pq_plain_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                     size_t len, pq_error *err);
int pq_rle_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err);
int pq_bit_packed_decoder(pq_decoder **out, const pq_params *p,
                          const uint8_t *buf, size_t len, pq_error *err);
int pq_dict_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                    size_t len, const uint8_t *dict, size_t dict_len,
                    pq_error *err);
int pq_delta_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                     size_t len, pq_error *err);
int pq_dlba_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                    size_t len, pq_error *err);
int pq_dba_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err);
int pq_bss_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err);
int pq_gvi_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err);
int pq_alp_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err);

/* ---- ALP's layout, read and checked as its decoder reads it (the
** explainer walks a stream with the same checks and words). */
typedef struct pq_alp_page {
  int dbl;          /* DOUBLE, else FLOAT */
  uint32_t vs;      /* values per vector */
  uint32_t total;   /* values in the page */
  uint32_t nvec;
  size_t vsz;       /* bytes of a value: 8 or 4 */
  size_t vhdr;      /* bytes of a vector's header: 13 or 9 */
  int max_e, max_w; /* the type's largest exponent and bit width */
  size_t fault_at;  /* after a failed pq_alp_page_read: the field's offset */
} pq_alp_page;

typedef struct pq_alp_vector {
  size_t at;        /* its header's stream offset */
  uint32_t n;       /* its values */
  unsigned e, f, nexc;
  int w;
  int64_t ref;      /* the frame of reference (FLOAT's sign-extended) */
  size_t packed;    /* bytes of packed deltas, from at + vhdr */
  size_t pos_at;    /* the exceptions' positions, then their values */
  size_t exc_at;
  size_t end;       /* just past the vector */
} pq_alp_vector;

/* Reads the 7-byte header of an ALP stream of type p->type and checks that
** the bytes can hold its vectors' offsets and headers (and p->count, when
** set, is within its values). */
int pq_alp_page_read(pq_alp_page *pg, const pq_params *p, const uint8_t *buf,
                     size_t len, pq_error *err);
/* Reads vector k's header and checks it: its offset is at or after
** next_min (the end of the offsets, then of the vector before it), its
** fields are within the type's bounds, its bytes are present and its
** exceptions' positions are within it. */
int pq_alp_vector_read(const pq_alp_page *pg, const uint8_t *buf, size_t len,
                       uint32_t k, size_t next_min, pq_alp_vector *v,
                       pq_error *err);

/* ---- The RLE/bit-packing hybrid run reader, shared by RLE, the dictionary
** index streams and (later) page levels. */
typedef struct pq_rle_reader {
  const uint8_t *buf; /* the runs: buf[0..len) */
  size_t len;
  size_t pos;            /* next run header */
  size_t base;           /* offset of buf[0] in the caller's stream */
  const char *label;     /* for messages */
  int w;                 /* bit width 0..32 */
  uint64_t limit;        /* values wanted, UINT64_MAX when unknown */
  uint32_t run_left;     /* values left in the current run */
  int run_packed;        /* current run is bit-packed */
  uint32_t run_value;    /* repeated value of an RLE run */
  const uint8_t *packed; /* next byte of a bit-packed run */
  size_t packed_bytes;   /* bytes of it present (may be short) */
  uint32_t chunk[32];    /* unpacked values of a bit-packed run */
  int chunk_pos, chunk_len;
  unsigned cpu;                     /* pq_cpu() at init */
  const pq_unpack32_fn *unpack32; /* the unpackers pq_cpu() allows */
  uint64_t runs;     /* runs read, for messages */
  uint64_t produced; /* values returned so far */
} pq_rle_reader;

void pq_rle_reader_init(pq_rle_reader *r, const uint8_t *buf, size_t len,
                        size_t base, int w, const char *label);
/* Reads the next run header at r->pos (which must be < r->len), checks it
** and the bytes of its value or body, and sets up the run: run_packed,
** run_left, run_value or packed/packed_bytes; pos moves past the run.  For
** a bit-packed run cut short, r->produced and r->limit say how many values
** are still wanted. */
int pq_rle_next_run(pq_rle_reader *r, pq_error *err);
/* Reads up to max values; *n = 0 at the end of the runs. */
int pq_rle_reader_read(pq_rle_reader *r, uint32_t *out, size_t max, size_t *n,
                       pq_error *err);
/* The next values of one run, repeats not expanded: *n copies of *value
** with *vals NULL (an RLE run), or up to max values of a bit-packed run at
** *vals (buf, room for max, or the reader's chunk; valid until the next
** call).  *n = 0 at the end of the runs or on a fault. */
int pq_rle_reader_next(pq_rle_reader *r, uint32_t *buf, size_t max,
                       const uint32_t **vals, uint32_t *value, size_t *n,
                       pq_error *err);
/* The run reader of a decoder that pq_rle_decoder made (an RLE stream of
** integers), to read it run by run; NULL for any other decoder. */
pq_rle_reader *pq_rle_decoder_runs(pq_decoder *d);

/* ---- The DELTA_BINARY_PACKED reader, shared by the DELTA_* encodings. */
typedef struct pq_delta_reader {
  const uint8_t *buf; /* the stream, starting at its header */
  size_t len;
  size_t pos;
  size_t base; /* offset of buf[0] in the caller's stream */
  const char *label;
  int is32; /* INT32 arithmetic (mod 2^32) */
  int maxw; /* the widest miniblock accepted */
  uint64_t block_size, mb_count, mb_values;
  uint64_t total; /* values the header announces */
  uint64_t yielded;
  uint64_t last;          /* the last value decoded (the chunk's too) */
  uint64_t block;         /* index of the current block */
  uint64_t min_delta;     /* of the current block, as unsigned bits */
  const uint8_t *widths;  /* bit widths of the current block */
  uint64_t mb;            /* current miniblock in the block */
  uint64_t mb_left;       /* values of it not yet unpacked */
  int mb_w;               /* its bit width */
  const uint8_t *mb_data; /* next unread byte of it */
  uint64_t chunk[32];     /* decoded values, laid out as the output */
  int chunk_pos, chunk_len;
  int strict;                /* the last miniblock must have its padding */
  unsigned cpu;              /* pq_cpu() at init: the fast paths allowed */
  const pq_unpack32_fn *unpack32; /* the unpackers cpu allows */
} pq_delta_reader;

/* The kinds of stream pq_delta_reader_init reads (its is32): INT64, INT32,
** and INT32 as DuckDB writes it, which the spec forbids but DuckDB reads
** back: miniblocks of bit width 33 (deltas taken in 64 bits) and a first
** value outside INT32; both read modulo 2^32. */
enum { PQ_DELTA_64 = 0, PQ_DELTA_32 = 1, PQ_DELTA_32_LENIENT = 2 };

/* Reads the header; fails if it is malformed or announces more values than
** the bytes could hold. */
int pq_delta_reader_init(pq_delta_reader *r, const uint8_t *buf, size_t len,
                         size_t base, int is32, const char *label,
                         pq_error *err);
/* Reads up to max values into out: int32_t when is32, else int64_t. */
int pq_delta_reader_read(pq_delta_reader *r, void *out, size_t max, size_t *n,
                         pq_error *err);
/* Starts the next miniblock (r->mb_left must be 0 and values must remain),
** reading the next block's min delta and bit widths first when the block
** is done; checks the width and the bytes.  Sets mb_w, mb_data, mb_left. */
int pq_delta_next_miniblock(pq_delta_reader *r, pq_error *err);
/* Walks the blocks without unpacking to find where the stream ends; sets
** *size to its length in bytes.  The reader is left unchanged. */
int pq_delta_reader_size(const pq_delta_reader *r, size_t *size, pq_error *err);

/* Slices n values whose lengths are lens[] from buf[*data..len), advancing
** *data (DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY's suffixes).  first is
** the index of the first value, for messages. */
int pq_slice_lengths(const uint8_t *buf, size_t len, size_t *data,
                     const int32_t *lens, size_t n, pq_bytes *out,
                     uint64_t first, const char *label, pq_error *err);

/* ---- Encoders -----------------------------------------------------------
** Every encoder embeds pq_encoder first. */
struct pq_encoder {
  pq_params p;
  uint64_t count; /* values put so far */
  int (*put)(pq_encoder *e, const void *v, size_t n, pq_error *err);
  int (*finish)(pq_encoder *e, pq_buf *out, pq_buf *dict, pq_error *err);
  void (*destroy)(pq_encoder *e);
  /* Bytes the stream has grown to (see pq_encoder_size). */
  size_t (*size)(const pq_encoder *e);
  /* After finish, puts start a new stream (keeping the encoder's memory). */
  int reusable;
  /* The buffer the stream is built in, for pq_encoder_give_room; NULL when
  ** none. */
  pq_buf *(*room)(pq_encoder *e);
};

pq_encoder *pq_encoder_alloc(size_t size, const pq_params *p);

int pq_plain_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_rle_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_bit_packed_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_dict_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
/* For a file's pages, which share one dictionary: appends the index stream
** of the values put since the last call (its bit-width byte and runs) to
** out and begins a new one; the dictionary keeps its entries. */
int pq_dict_take_indices(pq_encoder *e, pq_buf *out);
/* After pq_encoder_finish: empty again, for the next chunk's dictionary,
** keeping its memory (its table, as large as it grew). */
void pq_dict_reset(pq_encoder *e);
uint32_t pq_dict_entries(const pq_encoder *e);
/* The bytes of the dictionary so far, as its page will hold them. */
size_t pq_dict_bytes(const pq_encoder *e);
int pq_delta_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_dlba_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_dba_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_bss_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_gvi_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
int pq_alp_encoder(pq_encoder **out, const pq_params *p, pq_error *err);
/* ALP's powers of ten, 10^0..10^18 (negative: 10^-0..10^-18), and FLOAT's,
** 10^0..10^10 and 10^-0..10^-10: what its decoding multiplies by. */
const double *pq_alp_pow10(int negative);
const float *pq_alp_pow10f(int negative);

/* Reads the 4-byte length prefix of an RLE stream at buf (offset base in
** the caller's stream): the runs are buf[*start .. *start + *runs_len). */
int pq_rle_prefix(const uint8_t *buf, size_t len, size_t base,
                  const char *label, size_t *start, size_t *runs_len,
                  pq_error *err);

/* ---- The RLE/bit-packing hybrid run writer (fixed bit width). */
typedef struct pq_rle_writer {
  pq_buf *out;
  int w;
  uint32_t pending[8]; /* values not yet committed to a run */
  int npending;
  uint32_t run_value;  /* value of the trailing repeat */
  uint64_t run_len;    /* how often it repeats at the end */
  size_t lit_header;   /* offset of the open bit-packed run's header */
  uint32_t lit_groups; /* groups of 8 in the open bit-packed run */
  const pq_pack32_fn *pack32; /* the packers pq_cpu() allows */
} pq_rle_writer;

void pq_rle_writer_init(pq_rle_writer *w, pq_buf *out, int bit_width);
void pq_rle_writer_put(pq_rle_writer *w, uint32_t v);
/* The same as pq_rle_writer_put for each of n values, faster. */
void pq_rle_writer_put_n(pq_rle_writer *w, const uint32_t *v, size_t n);
/* The same as pq_rle_writer_put of v, n times, faster. */
void pq_rle_writer_put_repeat(pq_rle_writer *w, uint32_t v, size_t n);
/* Flushes everything; a last partial group is padded with zeros. */
void pq_rle_writer_flush(pq_rle_writer *w);

/* An RLE hybrid stream whose bit width is the least that holds every value
** put so far: when a value needs more bits, what was written is re-encoded
** at the new width (at most 32 times).  Used for dictionary indices and for
** RLE when no bit_width is given, so that memory follows the encoded size. */
typedef struct pq_rle_adaptive {
  pq_buf buf;
  pq_buf spare; /* the memory of a stream re-encoded wider, for the next */
  pq_rle_writer wr;
  int w;
  uint64_t count;
} pq_rle_adaptive;

void pq_rle_adaptive_init(pq_rle_adaptive *a);
int pq_rle_adaptive_put(pq_rle_adaptive *a, const uint32_t *v, size_t n);
/* Flushes; a->buf then holds the runs and a->w their width. */
void pq_rle_adaptive_flush(pq_rle_adaptive *a);
/* Empties it for a new stream, keeping its memory. */
void pq_rle_adaptive_reset(pq_rle_adaptive *a);
void pq_rle_adaptive_free(pq_rle_adaptive *a);

/* ---- The DELTA_BINARY_PACKED writer, shared by the DELTA_* encoders. */
typedef struct pq_delta_writer {
  int is32;
  uint64_t block_size, mb_count, mb_values;
  uint64_t total;
  uint64_t first, last; /* as unsigned bits */
  uint64_t *block;      /* deltas of the open block */
  uint64_t nblock;
  pq_buf body; /* the finished blocks */
  unsigned cpu; /* pq_cpu() at init */
} pq_delta_writer;

int pq_delta_writer_init(pq_delta_writer *w, const pq_params *p, int is32,
                         const char *label, pq_error *err);
void pq_delta_writer_put(pq_delta_writer *w, uint64_t v);
/* The same for n values at once: INT32 values for a writer opened with
** is32, INT64 values for one without. */
void pq_delta_writer_put32(pq_delta_writer *w, const int32_t *v, size_t n);
void pq_delta_writer_put64(pq_delta_writer *w, const int64_t *v, size_t n);
/* Appends header and blocks to out; the writer then takes a new stream, or
** can be freed. */
void pq_delta_writer_finish(pq_delta_writer *w, pq_buf *out);
void pq_delta_writer_free(pq_delta_writer *w);
/* The finished blocks' bytes, and a byte for each delta of the open one. */
size_t pq_delta_writer_size(const pq_delta_writer *w);

/* A stream that ends after `done` values when the count option asked for
** `count` (decoder.c). */
int pq_fail_count(pq_error *err, const char *label, uint64_t done,
                  uint64_t count);

/* ---- Checks the decoders and the explainer share --------------------------
** Each returns PQ_OK or fills err with the message a decoder gives. */

/* PLAIN: a count against the bytes, or the length a whole number of
** values. */
int pq_plain_check(const pq_params *p, size_t len, pq_error *err);
/* Expands the 8*nbytes bits of in, least significant first, to a byte
** (0 or 1) each; cpu is pq_cpu()'s answer. */
void pq_expand_bits(const uint8_t *in, size_t nbytes, uint8_t *out,
                    unsigned cpu);
/* PLAIN BYTE_ARRAY: the value at *pos (index `index`); moves *pos past it. */
int pq_plain_byte_array(const uint8_t *buf, size_t len, size_t *pos,
                        uint64_t index, pq_bytes *v, pq_error *err);

/* Dictionary encodings: a loaded PLAIN dictionary. */
typedef struct pq_dict {
  pq_type type;
  size_t entries;
  size_t width;         /* bytes of a fixed-width entry */
  const uint8_t *fixed; /* entries in host order (BOOLEAN: the bits) */
  uint8_t *owned;       /* what fixed points to, when a copy */
  pq_bytes *strings;    /* BYTE_ARRAY entries */
} pq_dict;
int pq_dict_load(pq_dict *d, pq_type t, int32_t type_length, const uint8_t *buf,
                 size_t len, const char *enc, pq_error *err);
void pq_dict_free(pq_dict *d);
/* Checks n indices (value numbers first..); on a bad one sets *n to the
** good ones before it and fails. */
int pq_dict_check(const pq_dict *d, const uint32_t *idx, size_t *n,
                  uint64_t first, const char *enc, pq_error *err);
/* Looks up n checked indices into out, laid out as for the type. */
void pq_dict_gather(const pq_dict *d, const uint32_t *idx, size_t n, void *out);
/* Turns a dictionary decoder opened with its dictionary, before its first
** read, into one that reads indices (uint32_t), each checked against the
** dictionary, which it returns: the "dictionary vector" of the engines
** that keep one, for callers that make each entry once and then pick
** entries by index.  NULL (and d unchanged) for any other decoder. */
const pq_dict *pq_dict_decoder_indices(pq_decoder *d);
/* The dictionary a dictionary decoder was opened with, or NULL. */
const pq_dict *pq_dict_decoder_dict(const pq_decoder *d);
/* The bit width byte of an index stream (0 for an empty stream). */
int pq_dict_bit_width(const uint8_t *buf, size_t len, int64_t count,
                      const char *enc, int *w, pq_error *err);

/* DELTA_BYTE_ARRAY: turns prev, the previous value, into value number
** `index` from its prefix length and suffix; fixed_len >= 0 for
** FIXED_LEN_BYTE_ARRAY. */
int pq_dba_rebuild(pq_buf *prev, int32_t prefix, pq_bytes suffix,
                   uint64_t index, int32_t fixed_len, pq_error *err);
/* BYTE_STREAM_SPLIT: the length a whole number of values, the count. */
int pq_bss_check(const pq_params *p, size_t len, pq_error *err);
/* BIT_PACKED: the bit width given, the count against the bytes; *values is
** how many values the stream holds. */
int pq_bit_packed_check(const pq_params *p, size_t len, uint64_t *values,
                        pq_error *err);
/* GROUP_VAR_INT: the count against the bytes. */
int pq_gvi_check(const pq_params *p, size_t len, pq_error *err);
/* GROUP_VAR_INT: reads group number `group` at offset at: the byte lengths
** and the values (zero-extended). */
int pq_gvi_group(const uint8_t *buf, size_t len, size_t at, int wide,
                 uint64_t group, int lens[5], uint64_t vals[5], pq_error *err);

/* ---- Values ------------------------------------------------------------ */
/* Appends n fixed-width values (INT32 ... FIXED_LEN_BYTE_ARRAY) in their
** PLAIN form. */
void pq_put_le(pq_buf *b, const void *v, size_t n, size_t width, pq_type t);
/* Appends n BYTE_ARRAY values in their PLAIN form; first is the index of
** v[0] for messages. */
int pq_put_byte_array(pq_buf *b, const pq_bytes *v, size_t n, uint64_t first,
                      const char *label, pq_error *err);
/* ---- VARIANT values built from JSON (variant_build.c) ----------------------
** pq_variant_from_json in steps, for the writer's shredding: parse once,
** one metadata for the row, then the value of any sub-tree against it. */
typedef struct pq_vbuild {
  pq_json_doc doc;         /* the JSON parsed: nodes, decoded strings */
  void *names;             /* the dictionary: its names, sorted, once */
  uint32_t nnames;
  size_t cap_names;
  pq_buf scratch;          /* containers' fields and offsets being built */
} pq_vbuild;

/* Leaves out of an object the members whose name it says yes (1) to. */
typedef int (*pq_vbuild_skip)(void *ctx, const uint8_t *name, size_t n);

void pq_vbuild_init(pq_vbuild *b);
void pq_vbuild_free(pq_vbuild *b);
/* Parses json[0..n) into b->doc (its root node into *root) and makes the
** dictionary of every member name.  PQ_MISUSE "not JSON: ... at offset N"
** or for a name not UTF-8; PQ_NOMEM. */
int pq_vbuild_parse(pq_vbuild *b, const char *json, size_t n, int *root,
                    pq_error *err);
/* The id of a name in the dictionary: 1, or 0 when it is not there. */
int pq_vbuild_id(const pq_vbuild *b, const uint8_t *p, size_t n,
                 uint32_t *id);
/* Appends the metadata: header, the names' offsets, the names. */
int pq_vbuild_meta(const pq_vbuild *b, pq_buf *meta, pq_error *err);
/* Appends the value of node x (skip, when not NULL, leaves members out of
** x itself, an object, not out of the objects inside it).  On a fault out
** is as it was. */
int pq_vbuild_value(pq_vbuild *b, int x, pq_vbuild_skip skip, void *ctx,
                    pq_buf *out, pq_error *err);
/* A string's value: a short string under 64 bytes, else the primitive. */
void pq_vbuild_string(pq_buf *out, const uint8_t *p, size_t n);
/* What a JSON number's text becomes (PQ_VB_*), with its scale and
** significant digits. */
enum { PQ_VB_INT = 1, PQ_VB_DECIMAL, PQ_VB_DOUBLE };
int pq_vbuild_number_kind(const char *s, size_t n, int *scale, int *digits);
/* The number as a double (strtod's): 1, or 0 when out of memory. */
int pq_vbuild_double(const char *s, size_t n, double *out);
/* The number as an int64: 1, or 0 when it is not an integer that fits. */
int pq_vbuild_int(const char *s, size_t n, int64_t *out);
/* The number as the unscaled value of DECIMAL(precision, scale): 1, or 0
** when it is a double or does not fit exactly. */
int pq_vbuild_decimal(const char *s, size_t n, int precision, int scale,
                      __int128 *out);

/* ---- Parameters (params.c) ----------------------------------------------- */

/* Applies one option key to p: PQ_NOTFOUND when it is not one of a
** stream's (a file writer's options fall back to these). */
int pq_params_option(pq_params *p, const char *key, const pq_jvalue *v,
                     pq_error *err);

/* Fills in the defaults of p and checks that its encoding, type and
** options go together.  need_type: the caller must name the type when the
** encoding fits several (decoding). */
int pq_params_resolve(pq_params *p, int need_type, pq_error *err);

/* p = *given, resolved for a stream to decode or explain: the type must
** be named, but for dictionary indices without their dictionary. */
int pq_params_for_stream(pq_params *p, const pq_params *given, int has_dict,
                         pq_error *err);

#endif /* PQ_ENCODINGS_H */
