/*
** parquet.h -- the public interface of the Parquet encoding core.
**
** A C11 library that encodes and decodes every Parquet encoding
** (spec/Encodings.md) for every physical type the spec allows.  It knows
** nothing of SQLite and keeps no global state.
**
** Safety promise: every decoder reads only inside the buffer it is given,
** even when the buffer was crafted to mislead, and every count taken from
** the input is checked against what the remaining bytes can hold before
** anything is sized by it.  A decoder that meets bad input returns
** PQ_CORRUPT with a message naming the encoding, what was wrong and the
** byte offset where it was found.
**
** Decoding streams: pq_decoder_read() yields the values in batches of the
** caller's size, so no caller ever needs a whole page's values at once.
** Encoding streams too: pq_encoder_put() takes values as they arrive and
** the encoder keeps only what the encoded output needs.
*/
#ifndef PARQUET_CORE_H
#define PARQUET_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PQ_VERSION_MAJOR 0
#define PQ_VERSION_MINOR 1
#define PQ_VERSION_PATCH 0
#define PQ_VERSION_STRING "0.1.0"

/* Symbols of the core are hidden in a shared object unless a build asks
** otherwise; the SQLite binding exports only its entry point. */
#ifndef PQ_API
#define PQ_API
#endif

/* Status codes.  Every function that can fail returns one of these and,
** when it is not PQ_OK, fills the pq_error it was given. */
enum {
  PQ_OK = 0,
  PQ_CORRUPT = 1,    /* the input stream is malformed or truncated */
  PQ_NOMEM = 2,      /* an allocation failed */
  PQ_MISUSE = 3,     /* bad parameters: unknown name, wrong type, bad option */
  PQ_RANGE = 4,      /* a value given to an encoder does not fit */
  PQ_UNSUPPORTED = 5 /* valid, but not implemented by this build */
};

typedef struct pq_error {
  int code;      /* one of the PQ_ codes */
  char msg[256]; /* "ENCODING: what was wrong at offset N" */
} pq_error;

/* Physical types, numbered as in parquet.thrift's enum Type. */
typedef enum pq_type {
  PQ_BOOLEAN = 0,
  PQ_INT32 = 1,
  PQ_INT64 = 2,
  PQ_INT96 = 3,
  PQ_FLOAT = 4,
  PQ_DOUBLE = 5,
  PQ_BYTE_ARRAY = 6,
  PQ_FIXED_LEN_BYTE_ARRAY = 7
} pq_type;

/* Encodings, numbered as in parquet.thrift's enum Encoding (1 is the
** historical GROUP_VAR_INT, described only in spec/seeds/). */
typedef enum pq_encoding {
  PQ_PLAIN = 0,
  PQ_GROUP_VAR_INT = 1,
  PQ_PLAIN_DICTIONARY = 2,
  PQ_RLE = 3,
  PQ_BIT_PACKED = 4,
  PQ_DELTA_BINARY_PACKED = 5,
  PQ_DELTA_LENGTH_BYTE_ARRAY = 6,
  PQ_DELTA_BYTE_ARRAY = 7,
  PQ_RLE_DICTIONARY = 8,
  PQ_BYTE_STREAM_SPLIT = 9,
  PQ_ALP = 10
} pq_encoding;
#define PQ_ENCODING_COUNT 11

/* One BYTE_ARRAY value.  Decoders point into the input where they can;
** where a value had to be rebuilt (DELTA_BYTE_ARRAY) it points into the
** decoder's own memory, valid until the next pq_decoder_read(). */
typedef struct pq_bytes {
  const uint8_t *ptr;
  size_t len;
} pq_bytes;

/* How values are laid out in the arrays that decoders fill and encoders
** read, by the type they are decoded as:
**   BOOLEAN               uint8_t, 0 or 1
**   INT32                 int32_t (levels and dictionary indices: uint32_t)
**   INT64                 int64_t
**   FLOAT, DOUBLE         float, double
**   INT96                 12 bytes per value, back to back
**   FIXED_LEN_BYTE_ARRAY  type_length bytes per value, back to back
**   BYTE_ARRAY            pq_bytes
*/

/* What a stream does not say about itself.  pq_params_init() sets every
** field to "unset"; an unset field takes the encoding's default. */
typedef struct pq_params {
  pq_encoding encoding;
  pq_type type;        /* physical type of the values */
  int type_set;        /* 0 when the caller gave no type */
  int32_t type_length; /* FIXED_LEN_BYTE_ARRAY(n): n */
  int64_t count;       /* values to decode; -1 = all the stream holds */
  int bit_width;       /* RLE, BIT_PACKED: 0..32; -1 = unset */
  int length_prefix;   /* RLE: 4-byte length prefix; -1 = default */
  int lsb_first;       /* BIT_PACKED: read LSB-first (nonstandard) order */
  int64_t block_size;  /* DELTA_*: values per block; -1 = 128 */
  int64_t miniblocks;  /* DELTA_*: miniblocks per block; -1 = 4 */
  int dictionary_part; /* dictionary encodings: 1 = emit the dictionary */
  int binary;          /* BYTE_ARRAY: report values as bytes, not text */
} pq_params;

PQ_API void pq_params_init(pq_params *p);

/* Parses a JSON object of options (see README, "Options") into p.
** Unknown keys and ill-typed values are PQ_MISUSE. */
PQ_API int pq_params_parse_options(pq_params *p, const char *json, size_t n,
                                   pq_error *err);

/* Names.  Parsing is case-insensitive; an encoding may also be given as its
** enum number ("8").  A type may be "FIXED_LEN_BYTE_ARRAY(16)". */
PQ_API int pq_encoding_parse(const char *s, size_t n, pq_encoding *out);
PQ_API int pq_type_parse(const char *s, size_t n, pq_type *out,
                         int32_t *type_length);
PQ_API const char *pq_encoding_name(pq_encoding e);
PQ_API const char *pq_type_name(pq_type t);

/* The catalogue of encodings, for the parquet_encodings table. */
typedef struct pq_encoding_info {
  int id;              /* enum number */
  const char *name;    /* spec spelling */
  const char *types;   /* supported physical types, comma separated */
  const char *status;  /* current, deprecated, historical, preview */
  const char *summary; /* one line */
  const char *section; /* where the spec describes it */
  int implemented;     /* 1 when this build encodes and decodes it */
} pq_encoding_info;

PQ_API const pq_encoding_info *pq_encoding_info_get(pq_encoding e);
/* 1 when a data page of a column of type t may use encoding e (the spec's
** "Supported Types"), and this build implements it. */
PQ_API int pq_encoding_supports(pq_encoding e, pq_type t);

/* Bytes one value of this type takes in a value array (see above). */
PQ_API size_t pq_value_size(pq_type t, int32_t type_length);

/* ---- Growable output buffer ------------------------------------------
** An encoder appends here.  After an allocation failure the buffer is
** marked and further appends do nothing, so a caller checks once. */
typedef struct pq_buf {
  uint8_t *data;
  size_t len;
  size_t cap;
  int oom;
} pq_buf;

PQ_API void pq_buf_init(pq_buf *b);
PQ_API void pq_buf_free(pq_buf *b);
PQ_API int pq_buf_reserve(pq_buf *b, size_t extra);
PQ_API void pq_buf_append(pq_buf *b, const void *p, size_t n);

/* ---- Decoding ---------------------------------------------------------- */
typedef struct pq_decoder pq_decoder;

/* Opens a decoder over buf[0..len).  For PLAIN_DICTIONARY and
** RLE_DICTIONARY, dict (may be NULL) is the PLAIN-encoded dictionary: with
** it the decoder yields values of p->type, without it the indices (uint32).
** The buffers must outlive the decoder. */
PQ_API int pq_decoder_open(pq_decoder **out, const pq_params *p,
                           const uint8_t *buf, size_t len, const uint8_t *dict,
                           size_t dict_len, pq_error *err);

/* Decodes up to max values into out (laid out as for pq_decoder_type()).
** *n is set to the number decoded; 0 means the stream is done. */
PQ_API int pq_decoder_read(pq_decoder *d, void *out, size_t max, size_t *n,
                           pq_error *err);

/* The type the decoder yields (PQ_INT32 with *is_index set for indices and
** levels, which are unsigned) and its type_length. */
PQ_API pq_type pq_decoder_type(const pq_decoder *d, int *is_index,
                               int32_t *type_length);

PQ_API void pq_decoder_free(pq_decoder *d);

/* ---- Encoding ---------------------------------------------------------- */
typedef struct pq_encoder pq_encoder;

PQ_API int pq_encoder_open(pq_encoder **out, const pq_params *p, pq_error *err);

/* Appends n values laid out as for p->type (indices and levels: uint32). */
PQ_API int pq_encoder_put(pq_encoder *e, const void *values, size_t n,
                          pq_error *err);

/* Ends the stream and appends it to out.  For dictionary encodings, out
** gets the index stream and dict (if not NULL) the PLAIN dictionary. */
PQ_API int pq_encoder_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                             pq_error *err);

PQ_API void pq_encoder_free(pq_encoder *e);

/* ---- Codecs --------------------------------------------------------------
** Compression as Parquet pages use it (spec/Compression.md), through the
** codecs' own libraries.  A build may leave any library out (see README,
** "Building"); a codec left out is PQ_UNSUPPORTED with a message that says
** so.  Numbered as in parquet.thrift's enum CompressionCodec. */
typedef enum pq_codec {
  PQ_UNCOMPRESSED = 0,
  PQ_SNAPPY = 1,
  PQ_GZIP = 2,
  PQ_LZO = 3,     /* never implemented: always PQ_UNSUPPORTED */
  PQ_BROTLI = 4,
  PQ_LZ4 = 5,     /* deprecated: Hadoop's framing of LZ4 blocks */
  PQ_ZSTD = 6,
  PQ_LZ4_RAW = 7
} pq_codec;
#define PQ_CODEC_COUNT 8

/* Names as in the spec, case-insensitive, or the enum number. */
PQ_API int pq_codec_parse(const char *s, size_t n, pq_codec *out);
PQ_API const char *pq_codec_name(pq_codec c);
/* 1 when this build can compress and decompress with c. */
PQ_API int pq_codec_available(pq_codec c);

/* Compresses src[0..n) and appends the result to out.  PQ_LZ4 writes
** Hadoop's framing. */
PQ_API int pq_compress(pq_codec c, const uint8_t *src, size_t n, pq_buf *out,
                       pq_error *err);

/* Decompresses src[0..n), appending to out.  `expected` is the size the
** caller knows the result must have (a page header's uncompressed size), or
** -1; a result of another size is PQ_CORRUPT.  Never produces more than
** `limit` bytes (PQ_CORRUPT: "would exceed ...").  GZIP reads concatenated
** members; PQ_LZ4 reads Hadoop's framing and falls back to a raw LZ4 block,
** as files in the wild have both. */
PQ_API int pq_decompress(pq_codec c, const uint8_t *src, size_t n,
                         int64_t expected, size_t limit, pq_buf *out,
                         pq_error *err);

/* CRC-32 (the one of gzip and zlib, reflected, polynomial 0xEDB88320) of
** p[0..n), continuing from crc (0 to start). */
PQ_API uint32_t pq_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* ---- Explaining ---------------------------------------------------------
** An explainer walks a stream field by field, in byte order, one row at a
** time: where each field is, its path ("block[0].miniblock[2].bit_width"),
** its bits where bits matter, its decoded value and a note in plain words.
** On a malformed stream the rows run up to the fault and a last row (fault
** set) says what is wrong, in the words a decoder would use. */

enum {
  PQ_FV_NONE = 0,  /* no value */
  PQ_FV_INT = 1,   /* i */
  PQ_FV_UINT = 2,  /* u */
  PQ_FV_REAL = 3,  /* r */
  PQ_FV_BYTES = 4  /* bytes[0..nbytes); text: they are meant as text */
};

typedef struct pq_field {
  uint64_t offset;      /* first byte of the field */
  uint64_t length;      /* bytes it touches */
  char path[96];        /* where it sits in the stream's grammar */
  char bits[1024];      /* its bytes in bits, MSB first, or its value's bits */
  char labels[1024];    /* under bits: which value each bit belongs to */
  char note[512];       /* the field in plain words */
  int kind;             /* PQ_FV_*: the decoded value */
  int64_t i;
  uint64_t u;
  double r;
  const uint8_t *bytes; /* valid until the next pq_explainer_next() */
  size_t nbytes;
  int text;
  int fault; /* this row names what is wrong; it is the last */
} pq_field;

typedef struct pq_explainer pq_explainer;

/* Opens an explainer over buf[0..len) (and, for dictionary encodings, an
** optional PLAIN dictionary).  Fails only on bad parameters: a malformed
** stream is explained up to its fault. */
PQ_API int pq_explainer_open(pq_explainer **out, const pq_params *p,
                             const uint8_t *buf, size_t len,
                             const uint8_t *dict, size_t dict_len,
                             pq_error *err);
/* Fills f with the next row: 1, or 0 when there is none. */
PQ_API int pq_explainer_next(pq_explainer *x, pq_field *f);
PQ_API void pq_explainer_free(pq_explainer *x);

/* ---- JSON text --------------------------------------------------------- */
/* Appends n values of type t as JSON array elements separated by commas,
** with a leading comma when `comma` is set.  Numbers are exact (reals in
** as few digits as read back to the same bits; NaN is null, the
** infinities +-9e999); BYTE_ARRAY is a string when it is UTF-8 and binary
** is 0, else a string of hex digits; INT96 and FIXED_LEN_BYTE_ARRAY are
** hex. */
PQ_API void pq_json_values(pq_buf *out, pq_type t, int32_t type_length,
                           int binary, const void *values, size_t n, int comma);
/* The same for unsigned levels and indices. */
PQ_API void pq_json_indices(pq_buf *out, const uint32_t *v, size_t n,
                            int comma);

/* ---- Text helpers ------------------------------------------------------ */
/* 1 when p[0..n) is well-formed UTF-8 (no overlongs, no surrogates). */
PQ_API int pq_utf8_valid(const uint8_t *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif /* PARQUET_CORE_H */
