/*
** parquet.h -- the public interface of the Parquet encoding core.
**
** A C11 library that encodes and decodes every Parquet encoding
** (spec/Encodings.md) for every physical type the spec allows.  It knows
** nothing of SQLite and keeps no global state but the allocator a program
** may set once (pq_set_allocator).
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
  PQ_UNSUPPORTED = 5, /* valid, but not implemented by this build */
  PQ_TOOBIG = 6,      /* the result would exceed the limit the caller set */
  PQ_IO = 7           /* the caller's sink could not take the bytes, or
                      ** its source give them */
};

typedef struct pq_error {
  int code;      /* one of the PQ_ codes */
  char msg[256]; /* "ENCODING: what was wrong at offset N" */
} pq_error;

/* ---- Memory ----------------------------------------------------------------
** Every byte the core allocates, and the working memory of the codecs'
** libraries (zlib, zstd, brotli's decoder; lz4 needs none), comes from one
** allocator (snappy's compressor takes none, and brotli's encoder ends the
** process when an allocation fails: they keep the C library's): the C
** library's, unless the program sets another before the core allocates
** anything.  The first one set stays; setting it again is PQ_OK, setting
** another PQ_MISUSE.  Memory the core hands over (a pq_buf's data) is
** freed with pq_free. */
typedef struct pq_allocator {
  void *(*malloc)(size_t n);            /* n > 0 */
  void *(*realloc)(void *p, size_t n);  /* n > 0; p may be NULL */
  void (*free)(void *p);                /* p not NULL */
} pq_allocator;

PQ_API int pq_set_allocator(const pq_allocator *a);
PQ_API void *pq_malloc(size_t n);
PQ_API void *pq_realloc(void *p, size_t n);
PQ_API void *pq_calloc(size_t count, size_t size);
PQ_API void pq_free(void *p);

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
  int lenient;         /* a page of a file: read what a major writer gets
                       ** wrong as it reads it back (doc/limits.md) */
  int64_t vector_size; /* encoding ALP: values per vector, a power of two
                       ** from 8 to 32768; -1 = 1024 */
  int exponent;        /* encoding ALP: the exponent of every vector, 0..18
                       ** (FLOAT: 0..10); -1 = searched */
  int factor;          /* encoding ALP: the factor of every vector, at most
                       ** the exponent; -1 = searched */
} pq_params;

PQ_API void pq_params_init(pq_params *p);

/* Parses a JSON object of options (doc/options.md) into p.
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
** *n is set to the number decoded; 0 means the stream is done.  out must
** have room for max values: what lies past the first *n may be
** overwritten. */
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

/* About how many bytes the stream has grown to: exact for what is
** finished, a byte a value for a block or group still open.  Writers use it
** to close pages near a size; dictionary encodings count their indices. */
PQ_API size_t pq_encoder_size(const pq_encoder *e);

/* 1 when, after pq_encoder_finish, puts begin a new stream in the memory
** of the last (PLAIN, DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY): a
** writer of many pages keeps one such encoder.  0: open a new one. */
PQ_API int pq_encoder_reusable(const pq_encoder *e);

/* Gives a reusable encoder, before its first put, memory to build its
** stream in: when room (len 0) holds more than the encoder has, the two
** swap, so room keeps the encoder's own memory, still to be freed.  A large
** stream is then written into pages already written once, which on some
** machines is several times faster than into fresh ones (bench/NOTES.md).
** Other encoders, and an encoder with values put, leave room as it is. */
PQ_API void pq_encoder_give_room(pq_encoder *e, pq_buf *room);

PQ_API void pq_encoder_free(pq_encoder *e);

/* ---- Codecs --------------------------------------------------------------
** Compression as Parquet pages use it (spec/Compression.md), through the
** codecs' own libraries.  A build may leave any library out
** (doc/build.md); a codec left out is PQ_UNSUPPORTED with a message that
** says so.  Numbered as in parquet.thrift's enum CompressionCodec. */
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
/* The same at a level: GZIP 1 to 9 (6 by default), BROTLI 0 to 11 (8),
** ZSTD -7 to 22 (3); PQ_LEVEL_DEFAULT for the default.  Another level, or
** a level for a codec without levels, is PQ_MISUSE (pq_codec_level_check
** says so without compressing). */
#define PQ_LEVEL_DEFAULT (-1000)
PQ_API int pq_compress_level(pq_codec c, int level, const uint8_t *src,
                             size_t n, pq_buf *out, pq_error *err);
PQ_API int pq_codec_level_check(pq_codec c, int level, pq_error *err);

/* What a codec is in this build: whether it is there (a build may leave
** its library out), its levels, its library and that library's version as
** it says at run time ("" where it says none: snappy's C API). */
typedef struct pq_codec_info {
  int available;
  int has_levels;        /* min_level..max_level, default_level */
  int min_level, max_level, default_level;
  const char *library;   /* "libzstd", ...; NULL: none (UNCOMPRESSED, LZO) */
  char version[32];
} pq_codec_info;
PQ_API void pq_codec_describe(pq_codec c, pq_codec_info *out);

/* Parses the options of a stream's functions (pq_params_parse_options's
** keys) with two of its codec: "codec" (a name or number: the stream is,
** or is to be, compressed with it) into *codec, and "level" (to compress
** at; it needs "codec") into *level.  Without them *codec is
** PQ_UNCOMPRESSED and *level PQ_LEVEL_DEFAULT; the level is checked where
** it is used (pq_codec_level_check). */
PQ_API int pq_stream_options_parse(pq_params *p, pq_codec *codec, int *level,
                                   const char *json, size_t n, pq_error *err);

/* Decompresses src[0..n), appending to out.  `expected` is the size the
** caller knows the result must have (a page header's uncompressed size), or
** -1; a result of another size is PQ_CORRUPT.  Never produces more than
** `limit` bytes (PQ_TOOBIG: "... exceed the limit of ...").  GZIP reads
** concatenated members; PQ_LZ4 reads Hadoop's framing and falls back to a
** raw LZ4 block, as files in the wild have both. */
PQ_API int pq_decompress(pq_codec c, const uint8_t *src, size_t n,
                         int64_t expected, size_t limit, pq_buf *out,
                         pq_error *err);

/* CRC-32 (the one of gzip and zlib, reflected, polynomial 0xEDB88320) of
** p[0..n), continuing from crc (0 to start). */
PQ_API uint32_t pq_crc32(uint32_t crc, const uint8_t *p, size_t n);

/* ---- Files -----------------------------------------------------------------
** A file is opened once, from its image (the whole file in memory) or
** through a pq_input that reads its bytes on demand: its footer is parsed
** into the structures below, which point into the image or into memory the
** pq_file owns.  Field names follow parquet.thrift; has_* flags say
** whether an optional field was present. */

typedef struct pq_keyvalue {
  pq_bytes key;
  pq_bytes value;
  int has_value;
} pq_keyvalue;

typedef struct pq_statistics {
  pq_bytes max, min, max_value, min_value;
  int has_max, has_min, has_max_value, has_min_value;
  int64_t null_count, distinct_count, nan_count;
  int has_null_count, has_distinct_count, has_nan_count;
  int is_max_value_exact, is_min_value_exact; /* -1 when absent */
} pq_statistics;

/* LogicalType's members (spec/parquet.thrift), as pq_schema_element's
** logical_type and pq_write_options' logical name them, and TimeUnit's. */
enum {
  PQ_LOGICAL_NONE = 0,
  PQ_LOGICAL_STRING = 1,
  PQ_LOGICAL_MAP = 2,
  PQ_LOGICAL_LIST = 3,
  PQ_LOGICAL_ENUM = 4,
  PQ_LOGICAL_DECIMAL = 5,
  PQ_LOGICAL_DATE = 6,
  PQ_LOGICAL_TIME = 7,
  PQ_LOGICAL_TIMESTAMP = 8,
  PQ_LOGICAL_INTEGER = 10,
  PQ_LOGICAL_JSON = 12,
  PQ_LOGICAL_UUID = 14,
  PQ_LOGICAL_FLOAT16 = 15,
  PQ_LOGICAL_VARIANT = 16,
  PQ_LOGICAL_GEOMETRY = 17,
  PQ_LOGICAL_GEOGRAPHY = 18,
  PQ_LOGICAL_FILE = 19
};
enum { PQ_UNIT_MILLIS = 1, PQ_UNIT_MICROS = 2, PQ_UNIT_NANOS = 3 };

typedef struct pq_schema_element {
  pq_bytes name;
  int has_type;
  pq_type type;
  int32_t type_length;
  int repetition;     /* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED; -1 absent */
  int32_t num_children; /* -1 absent: a leaf */
  int32_t converted_type; /* -1 absent */
  int32_t scale, precision, field_id; /* -1 absent */
  int logical_type;   /* union member id of LogicalType, 0 absent */
  /* LogicalType details: DECIMAL scale/precision; TIME/TIMESTAMP
  ** is_adjusted_to_utc and unit (1 MILLIS, 2 MICROS, 3 NANOS); INTEGER
  ** bit_width and is_signed. */
  int32_t logical_scale, logical_precision;
  int logical_utc, logical_unit;
  int logical_bit_width, logical_signed;
  /* GEOMETRY and GEOGRAPHY: the crs (has_logical_crs: present; absent
  ** means OGC:CRS84) and GEOGRAPHY's algorithm (EdgeInterpolationAlgorithm,
  ** 0 SPHERICAL .. 4 KARNEY, or a later one's number; -1 absent, which
  ** means SPHERICAL). */
  pq_bytes logical_crs;
  int has_logical_crs;
  int logical_algorithm;
} pq_schema_element;

/* GeospatialStatistics (spec/Geospatial.md) of a column chunk: its
** BoundingBox, each field flagged when present, and its geospatial type
** codes (ISO WKB: 1 Point .. 7 GeometryCollection, plus 1000 Z, 2000 M,
** 3000 ZM), as the file holds them. */
typedef struct pq_geo_statistics {
  int has_bbox;
  double bbox[8];     /* xmin, xmax, ymin, ymax, zmin, zmax, mmin, mmax */
  unsigned bbox_has;  /* bit i: bbox[i] was present */
  int has_types;
  uint32_t n_types;
  int32_t *types;
} pq_geo_statistics;

typedef struct pq_column_meta {
  pq_type type;
  int32_t *encodings;
  uint32_t n_encodings;
  pq_bytes *path;
  uint32_t n_path;
  int32_t codec;
  int64_t num_values;
  int64_t total_uncompressed_size;
  int64_t total_compressed_size;
  pq_keyvalue *key_value;
  uint32_t n_key_value;
  int64_t data_page_offset;
  int64_t index_page_offset, dictionary_page_offset; /* -1 absent */
  int has_statistics;
  pq_statistics statistics;
  int64_t bloom_filter_offset;  /* -1 absent */
  int32_t bloom_filter_length;  /* -1 absent */
  /* encoding_stats (13): how many pages of each type and encoding */
  struct pq_page_encoding_stats *encoding_stats;
  uint32_t n_encoding_stats;
  /* size_statistics (16), SizeStatistics: unencoded_byte_array_data_bytes
  ** (-1 absent) and the level histograms (NULL absent) */
  int has_size_statistics;
  int64_t unencoded_byte_array_data_bytes;
  int64_t *rep_level_histogram, *def_level_histogram;
  uint32_t n_rep_level_histogram, n_def_level_histogram;
  int has_geo_statistics;       /* geospatial_statistics */
  pq_geo_statistics geo_statistics;
} pq_column_meta;

/* PageEncodingStats: count pages of type page_type (PQ_*_PAGE) whose
** values are in encoding. */
typedef struct pq_page_encoding_stats {
  int32_t page_type, encoding, count;
} pq_page_encoding_stats;

typedef struct pq_column_chunk {
  pq_bytes file_path;
  int has_file_path;
  int64_t file_offset;
  int has_meta_data;
  pq_column_meta meta;
  int64_t offset_index_offset, column_index_offset; /* -1 absent */
  int32_t offset_index_length, column_index_length; /* -1 absent */
  int encrypted;      /* crypto_metadata or encrypted_column_metadata */
} pq_column_chunk;

typedef struct pq_row_group {
  pq_column_chunk *columns;
  uint32_t n_columns;
  int64_t total_byte_size;
  int64_t num_rows;
  int64_t file_offset, total_compressed_size; /* -1 absent */
  int32_t ordinal;    /* -1 absent */
} pq_row_group;

typedef struct pq_file_meta {
  int32_t version;
  pq_schema_element *schema;
  uint32_t n_schema;
  int64_t num_rows;
  pq_row_group *row_groups;
  uint32_t n_row_groups;
  pq_keyvalue *key_value;
  uint32_t n_key_value;
  pq_bytes created_by;
  int has_created_by;
  int encrypted;      /* an encryption_algorithm is present */
  int has_column_orders; /* min_value and max_value of byte arrays and
                         ** unsigned integers follow their type's order */
  int32_t *column_orders; /* ColumnOrder's member of each leaf
                          ** (PQ_COLUMN_ORDER_*), n_column_orders of them */
  uint32_t n_column_orders;
} pq_file_meta;

/* ColumnOrder's members (parquet.thrift): the order of a column's min_value
** and max_value.  0: an empty union, or no entry for the column. */
enum { PQ_COLUMN_ORDER_TYPE = 1, PQ_COLUMN_ORDER_IEEE754 = 2,
       PQ_COLUMN_ORDER_INT96 = 3 };
/* The ColumnOrder member of leaf column `leaf`: 0 when the file states
** none (or an empty one) for it, else the member's id, known or not. */
PQ_API int pq_column_order(const pq_file_meta *m, uint32_t leaf);

/* The schema as a tree: one node per schema element, with the levels
** Dremel's encoding gives each. */
typedef struct pq_schema_node {
  const pq_schema_element *elem;
  struct pq_schema_node *parent;
  struct pq_schema_node **children;
  uint32_t n_children;
  int max_def, max_rep;  /* at this node */
  int leaf;              /* index of the leaf column, -1 for groups */
  char *path;            /* dotted, for messages: "a.list.element" */
} pq_schema_node;

typedef struct pq_file pq_file;

/* Opens the file image buf[0..len) (which must outlive the pq_file): checks
** the magic bytes, parses the footer and builds the schema tree.  A file in
** Parquet's encrypted-footer form ("PARE") is PQ_UNSUPPORTED. */
PQ_API int pq_file_open(pq_file **out, const uint8_t *buf, size_t len,
                        pq_error *err);

/* A file read on demand: its size, and a function that copies the n bytes
** at `offset` (inside the file) into dst, or fails with err set (PQ_IO for
** a source that failed, or changed since it was opened; a short read is a
** failure).  ctx is the caller's, and must outlive the pq_file and every
** reader opened on it.  Readers read only what they use: the footer, then
** a column chunk's pages a window at a time, page indexes and bloom
** filters when asked; every range is checked against the size first. */
typedef struct pq_input {
  uint64_t size;
  int (*read)(void *ctx, uint64_t offset, void *dst, size_t n,
              pq_error *err);
  void *ctx;
  /* May be NULL: told of the n bytes at offset that a reader reading in
  ** order will ask for next, so that the source can fetch them while the
  ** bytes before are decoded (a file's posix_fadvise(WILLNEED)). */
  void (*prefetch)(void *ctx, uint64_t offset, size_t n);
  /* PQ_INPUT_NO_HEAD: opening reads the end of the file only, not the
  ** magic of its first 4 bytes (a source where each read is a request:
  ** a URL); 0 otherwise. */
  unsigned flags;
} pq_input;
#define PQ_INPUT_NO_HEAD 1u

/* Opens a file through `in` (copied), as pq_file_open does its image: the
** footer is read into memory the pq_file owns. */
PQ_API int pq_file_open_input(pq_file **out, const pq_input *in,
                              pq_error *err);
PQ_API void pq_file_free(pq_file *f);
/* The file's size, and the length of its footer's FileMetaData (the 4
** bytes before the closing magic). */
PQ_API uint64_t pq_file_size(const pq_file *f);
PQ_API uint32_t pq_file_footer_size(const pq_file *f);
PQ_API const pq_file_meta *pq_file_metadata(const pq_file *f);
PQ_API const pq_schema_node *pq_file_schema(const pq_file *f);
/* The leaf columns, in the order of the column chunks. */
PQ_API uint32_t pq_file_leaf_count(const pq_file *f);
PQ_API const pq_schema_node *pq_file_leaf(const pq_file *f, uint32_t i);

/* ---- Pages ---------------------------------------------------------------
** A column chunk read page by page.  Each page comes with its header's
** fields and its parts, decompressed: repetition levels, definition levels
** and the values stream, ready for a decoder. */

enum { PQ_DATA_PAGE = 0, PQ_INDEX_PAGE = 1, PQ_DICTIONARY_PAGE = 2,
       PQ_DATA_PAGE_V2 = 3 };

typedef struct pq_page {
  int page_type;            /* PQ_*_PAGE, or another number: skipped */
  uint32_t index;           /* of the page in its chunk, from 0 */
  int64_t offset;           /* of the page header in the file */
  uint32_t header_size;
  int32_t compressed_size, uncompressed_size;
  int has_crc;
  uint32_t crc;             /* the header's; checked against the page */
  int32_t num_values;       /* level entries (data), entries (dictionary) */
  int32_t num_nulls, num_rows;  /* -1 unless the header says (v2) */
  int32_t encoding;         /* of the values */
  int32_t def_encoding, rep_encoding; /* -1 when there are no such levels */
  int is_compressed;        /* v2: values section compressed */
  int is_sorted;            /* dictionary: -1 absent */
  int has_statistics;
  pq_statistics statistics;
  /* The parts, valid until the next page: the header's bytes; the levels
  ** as stored (v1 RLE with its 4-byte length); the values decompressed. */
  pq_bytes header, rep_levels, def_levels, values;
  int64_t value_count;      /* values in `values` (non-null ones) */
  int max_def, max_rep;     /* of the column */
} pq_page;

typedef struct pq_page_reader pq_page_reader;

/* Opens the pages of column chunk `column` of row group `row_group`.
** limit bounds what decompressing one page may produce. */
PQ_API int pq_page_reader_open(pq_page_reader **out, const pq_file *f,
                               uint32_t row_group, uint32_t column,
                               size_t limit, pq_error *err);
/* The next page: *got is 1, or 0 after the last (when the chunk's values
** are all there).  Checks the header, the sizes, the CRC, the levels. */
PQ_API int pq_page_reader_next(pq_page_reader *r, pq_page *page, int *got,
                               pq_error *err);
/* The chunk's dictionary (its values stream and entry count), once its page
** has been read; NULL otherwise. */
PQ_API const pq_bytes *pq_page_reader_dictionary(const pq_page_reader *r,
                                                 int32_t *entries);
/* The codec of the chunk. */
PQ_API int pq_page_reader_codec(const pq_page_reader *r);
/* Swaps the memory the reader reads into (its window of the file's bytes,
** and the page decompressed) with room's: before the first page, to lend
** it room's memory; before it is freed, to take its memory back (see
** pq_read_room, below). */
typedef struct pq_read_room pq_read_room;
PQ_API void pq_page_reader_swap_room(pq_page_reader *r, pq_read_room *room);
PQ_API void pq_page_reader_free(pq_page_reader *r);

/* Options for a decoder of a page's values stream: {"count":N} and what
** the encoding needs (the 4-byte prefix of RLE booleans). */
PQ_API void pq_page_value_options(const pq_page *page, pq_type type,
                                  char *out, size_t cap);
/* And for its levels: {"bit_width":W,"count":N[,"length_prefix":true]}. */
PQ_API void pq_page_level_options(const pq_page *page, int max_level,
                                  int32_t level_encoding, char *out,
                                  size_t cap);

/* ---- Column values -------------------------------------------------------
** A column chunk as Dremel's triples: for each entry its repetition and
** definition levels, and for the entries whose definition level is the
** column's maximum, the value. */

typedef struct pq_column_reader pq_column_reader;

PQ_API int pq_column_reader_open(pq_column_reader **out, const pq_file *f,
                                 uint32_t row_group, uint32_t column,
                                 size_t limit, pq_error *err);
/* Reads up to max entries of the current page (never across pages):
** levels into rep[] and def[] (either may be NULL), values into values
** (laid out as for the column's type; BYTE_ARRAY values are valid until
** the next read).  *n entries were read, *nv values; *n == 0 at the end. */
PQ_API int pq_column_reader_read(pq_column_reader *r, size_t max,
                                 uint16_t *rep, uint16_t *def, void *values,
                                 size_t *n, size_t *nv, pq_error *err);
PQ_API void pq_column_reader_free(pq_column_reader *r);

/* ---- Values as SQL sees them ----------------------------------------------
** A cell is one value in the five storage classes of SQL engines: what a
** column's value becomes by its logical type (doc/values.md), and what a
** query compares it with.  Text and blobs point into memory the producer
** names. */
enum { PQ_CELL_NULL = 0, PQ_CELL_INT = 1, PQ_CELL_REAL = 2, PQ_CELL_TEXT = 3,
       PQ_CELL_BLOB = 4 };

typedef struct pq_cell {
  int kind;            /* PQ_CELL_* */
  union {              /* by kind: a cell is 24 bytes, as scans hand them
                       ** over by the thousand */
    int64_t i;         /* INT */
    double r;          /* REAL */
    const uint8_t *p;  /* TEXT (UTF-8, not terminated), BLOB */
  };
  size_t n;            /* TEXT, BLOB: bytes at p */
} pq_cell;

/* The whole file as JSON: an array of one object per row.  Lists and maps
** (LIST and MAP annotations, and their older forms) become arrays and
** objects, structs objects; values follow their logical types (strings,
** decimals as numbers, dates and timestamps as text).  Fails when the text
** would exceed limit bytes. */
PQ_API int pq_file_to_json(const pq_file *f, size_t limit, pq_buf *out,
                           pq_error *err);

/* ---- FILE references (spec/LogicalTypes.md, FILE) -----------------------
** A group annotated FILE names bytes: inline, a range of this file, or
** another file at a URI.  Its values are read row by row, each with what
** it resolves to by the spec's table; only the first two are resolved
** (nothing here opens another file). */
enum {
  PQ_FILE_REF_NULL = 0,   /* the group is null in this row */
  PQ_FILE_REF_INLINE,     /* `inline` holds the bytes */
  PQ_FILE_REF_SELF,       /* [offset, offset + size) of this file */
  PQ_FILE_REF_URI,        /* another file: uri, and offset/size if set */
  PQ_FILE_REF_INVALID     /* resolves to nothing, or past the file's end */
};
typedef struct pq_file_ref {
  int kind;                               /* PQ_FILE_REF_* */
  int has_uri, has_offset, has_size, has_content_type, has_checksum,
      has_inline;                         /* the field is not null */
  pq_bytes uri, content_type, checksum, inline_bytes;
  int64_t offset, size;
} pq_file_ref;
typedef struct pq_file_ref_reader pq_file_ref_reader;

/* 1 when n is a group annotated FILE. */
PQ_API int pq_file_ref_group(const pq_schema_node *n);
/* Opens the values of FILE group `group` in one row group: PQ_UNSUPPORTED
** when it is inside a repeated field, PQ_CORRUPT when a field it names
** (uri, offset, size, content_type, checksum, inline) has another type. */
PQ_API int pq_file_ref_reader_open(pq_file_ref_reader **out, const pq_file *f,
                                   uint32_t row_group,
                                   const pq_schema_node *group, size_t limit,
                                   pq_error *err);
/* The next row's value, its bytes valid until the next call; *got is 0
** after the last. */
PQ_API int pq_file_ref_reader_next(pq_file_ref_reader *r, pq_file_ref *v,
                                   int *got, pq_error *err);
PQ_API void pq_file_ref_reader_free(pq_file_ref_reader *r);
/* The bytes v resolves to (empty for a URI, an invalid or a null one):
** the inline bytes, or the file's range, read into scratch when the file
** has no image (PQ_TOOBIG beyond limit). */
PQ_API int pq_file_ref_bytes(const pq_file *f, const pq_file_ref *v,
                             size_t limit, pq_buf *scratch, pq_bytes *out,
                             pq_error *err);

/* ---- Page indexes (spec/PageIndex.md) --------------------------------------
** A column chunk's ColumnIndex (per page: null_pages, min and max values,
** null counts) and OffsetIndex (per page: where it is, its size, its first
** row).  Each is read from the file where the footer's chunk says; *out is
** NULL when the chunk has none.  Bytes point into the image, or into the
** index's own copy. */
typedef struct pq_column_index {
  uint32_t n_pages;
  uint8_t *null_pages;          /* 1: every entry of the page is null */
  pq_bytes *min_values, *max_values; /* PLAIN bytes, as in statistics */
  int32_t boundary_order;       /* 0 UNORDERED, 1 ASCENDING, 2 DESCENDING */
  int64_t *null_counts;         /* NULL when absent */
  int64_t *rep_histograms, *def_histograms; /* NULL when absent */
  uint32_t n_rep_histograms, n_def_histograms; /* entries, all pages */
  uint8_t *bytes;               /* the index as read, for a file without an
                                ** image: the values point into it */
  int64_t *nan_counts;          /* NaNs a page (8); NULL when absent */
} pq_column_index;

typedef struct pq_page_location {
  int64_t offset;               /* of the page header in the file */
  int32_t compressed_page_size; /* header included */
  int64_t first_row_index;      /* in the row group */
} pq_page_location;

typedef struct pq_offset_index {
  uint32_t n_pages;
  pq_page_location *pages;
  int64_t *unencoded_byte_array_data_bytes; /* NULL when absent */
} pq_offset_index;

PQ_API int pq_column_index_read(const pq_file *f, uint32_t row_group,
                                uint32_t column, pq_column_index **out,
                                pq_error *err);
PQ_API void pq_column_index_free(pq_column_index *ci);
PQ_API int pq_offset_index_read(const pq_file *f, uint32_t row_group,
                                uint32_t column, pq_offset_index **out,
                                pq_error *err);
PQ_API void pq_offset_index_free(pq_offset_index *oi);

/* ---- Bloom filters (parquet.thrift, BloomFilterHeader) --------------------
** Split-block bloom filters with xxHash64 (seed 0) of a value's PLAIN
** bytes (a BYTE_ARRAY's bytes without their length). */
typedef struct pq_bloom {
  const uint8_t *bitset;        /* in the file image, or in mem */
  uint32_t num_bytes;           /* a multiple of 32 */
  int64_t offset;               /* of the BloomFilterHeader */
  uint32_t header_size;
  uint8_t *mem;                 /* the bitset as read from a file without
                                ** an image (pq_bloom_release) */
} pq_bloom;

/* Reads the chunk's bloom filter header and finds its bitset: *present is
** 0 when the chunk has none.  A filter read is let go with
** pq_bloom_release (nothing to do for an image, but harmless). */
PQ_API int pq_bloom_read(const pq_file *f, uint32_t row_group,
                         uint32_t column, pq_bloom *out, int *present,
                         pq_error *err);
PQ_API void pq_bloom_release(pq_bloom *b);
PQ_API uint64_t pq_xxhash64(const void *p, size_t n, uint64_t seed);
/* The hash of one value laid out as for type t (BYTE_ARRAY: a pq_bytes). */
PQ_API uint64_t pq_bloom_hash(pq_type t, int32_t type_length,
                              const void *value);
/* 0 when the value whose hash this is cannot be in the chunk. */
PQ_API int pq_bloom_check(const pq_bloom *b, uint64_t hash);
/* Sets the bits of the hash in a bitset of num_bytes (a multiple of 32). */
PQ_API void pq_bloom_insert(uint8_t *bitset, uint32_t num_bytes, uint64_t hash);
/* The bytes of a filter for ndv distinct values at the false positive
** probability fpp (the spec's formula), a power of two from 32 to
** 134217728. */
PQ_API uint32_t pq_bloom_size(uint64_t ndv, double fpp);
/* The hash of the one physical value of the leaf column whose SQL value
** (doc/values.md) equals v: 1 and *hash set; 0 when no value of the column
** equals v (5.5 in an INT32 column); -1 when this is not known (a type
** whose values are not mapped back, such as DECIMAL or dates).  Text and
** blob cells are taken as the bytes they hold. */
PQ_API int pq_bloom_hash_cell(const pq_schema_node *leaf, const pq_cell *v,
                              uint64_t *hash);

/* ---- Rows as SQL values -----------------------------------------------------
** A top-level field of the schema as a column of SQL values
** (doc/values.md): what it yields, and a reader of its values one row
** group at a time. */

/* How the text values of a column compare in SQL: by their bytes (BINARY),
** as the instants or durations they name (the collation `instant`), or as
** the numbers they name (`decimal`): pq_instant_compare and
** pq_decimal_compare. */
enum { PQ_ORDER_BYTES = 0, PQ_ORDER_INSTANT = 1, PQ_ORDER_DECIMAL = 2 };

typedef struct pq_field_info {
  const char *decl;  /* the SQL type its affinity comes from: INTEGER,
                     ** REAL, TEXT, BLOB, or JSON TEXT */
  int kind;          /* PQ_CELL_* of its values (UINT64 past INT64: TEXT) */
  int nested;        /* a group or a repeated field: JSON text */
  int ordered;       /* its SQL values keep the order the column's
                     ** statistics use: they may prune */
  int order;         /* PQ_ORDER_*: how its text values compare */
} pq_field_info;

/* binary_as_string: BYTE_ARRAY values without a logical type are TEXT. */
PQ_API void pq_field_describe(const pq_schema_node *field,
                              int binary_as_string, pq_field_info *out);

/* The field's type as parquet_write's `type` option spells it
** ("TIMESTAMP(us, utc)", "DECIMAL(20, 4)", "LIST<INT32>", "STRUCT<a
** DOUBLE, \"b c\" STRING>"), appended to out; nothing where the declared
** type alone says what parquet_write writes (INTEGER: INT64, REAL:
** DOUBLE, TEXT: STRING, BLOB: BYTE_ARRAY) or where no type of the writer's
** holds the values (an INTERVAL, a DECIMAL past 38 digits).  PQ_NOMEM
** when out could not grow. */
PQ_API int pq_field_type(const pq_schema_node *field, int binary_as_string,
                         pq_buf *out);

/* The collations: texts compared as what they name (src/util/order.c).
** Negative, 0 or positive; a total order, texts that name nothing after
** the others, by their bytes. */
PQ_API int pq_instant_compare(const char *a, size_t na, const char *b,
                              size_t nb);
PQ_API int pq_decimal_compare(const char *a, size_t na, const char *b,
                              size_t nb);
/* pq_instant_compare with a memory of the last texts found in the plain
** form ("YYYY-MM-DD HH:MM:SS.f...", the one the reader writes), which it
** then need not check again.  In a max() or a min() the first text is the
** one kept so far: the same as in the call before, or the second text of
** the call before when that one was kept instead.  Zeroed before its first
** use; it serves one thread at a time. */
typedef struct pq_instant_memo {
  size_t n[2]; /* the texts' lengths; 0: none */
  char text[2][32]; /* [0]: a first text, [1]: a second text */
} pq_instant_memo;
PQ_API int pq_instant_compare_memo(pq_instant_memo *m, const char *a,
                                   size_t na, const char *b, size_t nb);
/* Whether a text names an instant (duration), or a decimal. */
PQ_API int pq_instant_valid(const char *p, size_t n);
PQ_API int pq_decimal_valid(const char *p, size_t n);

/* The exact sum of decimal texts (SQL's decimal_sum): pq_decimal_sum_add
** is PQ_MISUSE for text that is no decimal, PQ_TOOBIG past 100 000 digits
** either side of the point, PQ_NOMEM; the text of the sum keeps the most
** digits after the point any addend had ("1.50" + "2" is "3.50"),
** allocated (pq_free). */
typedef struct pq_decimal_sum pq_decimal_sum;
PQ_API pq_decimal_sum *pq_decimal_sum_new(void);
PQ_API int pq_decimal_sum_add(pq_decimal_sum *s, const char *p, size_t n);
PQ_API char *pq_decimal_sum_text(const pq_decimal_sum *s, size_t *len);
PQ_API void pq_decimal_sum_free(pq_decimal_sum *s);

/* The cell of one value of a leaf column, laid out as for its type; text
** is written to scratch (PQ_CELL_SCRATCH bytes) or points into v.  A NaN
** is a NULL cell: SQL has no NaN. */
#define PQ_CELL_SCRATCH 96
PQ_API void pq_cell_from_value(const pq_schema_element *e,
                               int binary_as_string, const void *v,
                               char *scratch, pq_cell *out);
/* The cell of a statistic's PLAIN bytes (a min or max); 0 when the bytes
** do not hold one value of the type. */
PQ_API int pq_cell_from_plain(const pq_schema_element *e,
                              int binary_as_string, pq_bytes b,
                              char *scratch, pq_cell *out);
/* A statistic's PLAIN bytes as the value DuckDB's parquet_metadata shows:
** by the leaf's logical type (a DATE '2021-01-01', a TIMESTAMP adjusted
** to UTC '2024-03-01 12:00:00.25+00', a DECIMAL with all its scale's
** digits), appended to out; 0 when they hold no value of the type (of
** another size, a NaN), or are bytes DuckDB shows as bytes (BYTE_ARRAY
** without a logical type). */
PQ_API int pq_stat_text(const pq_schema_element *e, pq_bytes b, pq_buf *out);

/* SQL's order of two cells (NULL, then numbers by value, text by bytes,
** blobs by bytes): negative, 0 or positive. */
PQ_API int pq_cell_compare(const pq_cell *a, const pq_cell *b);
/* The same with text compared in the order `order` (PQ_ORDER_*). */
PQ_API int pq_cell_compare_in(const pq_cell *a, const pq_cell *b, int order);

/* What statistics say of a column chunk's or a page's values, as cells:
** bounds (when they can be trusted to bound the SQL values in SQL's
** order), nulls and entries. */
typedef struct pq_bounds {
  int has_minmax;
  pq_cell min, max;
  int64_t nulls;      /* -1 unknown */
  int nulls_exact;    /* 0: SQL may see NULLs the count leaves out (NaN) */
  int64_t values;     /* entries; -1 unknown */
  int order;          /* PQ_ORDER_* of min and max: the column's */
  char smin[PQ_CELL_SCRATCH], smax[PQ_CELL_SCRATCH];
} pq_bounds;

enum { PQ_OP_EQ = 1, PQ_OP_LT, PQ_OP_LE, PQ_OP_GT, PQ_OP_GE, PQ_OP_ISNULL,
       PQ_OP_NOTNULL };

/* The bounds of chunk `leaf` of a row group from its statistics. */
PQ_API void pq_chunk_bounds(const pq_file *f, uint32_t row_group,
                            uint32_t leaf, int binary_as_string,
                            pq_bounds *b);
/* The bounds of page `page` of a chunk from its column index; rows: the
** page's (from the offset index), or -1. */
PQ_API void pq_page_bounds(const pq_file *f, uint32_t leaf,
                           const pq_column_index *ci, uint32_t page,
                           int64_t rows, int binary_as_string, pq_bounds *b);
/* 0 when no value within b can satisfy `value op v` (v may be NULL: no
** comparison with NULL is true); 1 when one may. */
PQ_API int pq_bounds_may_match(const pq_bounds *b, int op, const pq_cell *v);

typedef struct pq_field_reader pq_field_reader;

/* Opens the values of the top-level field in one row group.  limit bounds
** one page (and, for a nested field, its JSON in the row group). */
PQ_API int pq_field_reader_open(pq_field_reader **out, const pq_file *f,
                                uint32_t row_group,
                                const pq_schema_node *field,
                                int binary_as_string, size_t limit,
                                pq_error *err);
/* The cells of the next rows, up to max (at least 1 unless at the end):
** valid until the next call.  *n is 0 after the last row. */
PQ_API int pq_field_reader_read(pq_field_reader *r, pq_cell *cells,
                                size_t max, size_t *n, pq_error *err);
/* The same, and for each cell the dictionary entry it is (-1: none): a
** dictionary-encoded chunk is read as its dictionary's entries, each made
** into a cell once, and the rows' indices into them. */
PQ_API int pq_field_reader_read_entries(pq_field_reader *r, pq_cell *cells,
                                        int32_t *entry, size_t max, size_t *n,
                                        pq_error *err);
/* The cells of the current dictionary's entries (NULL: none yet), valid
** until the reader is freed or *id changes: a new dictionary's. */
PQ_API const pq_cell *pq_field_reader_entries(const pq_field_reader *r,
                                              size_t *n, uint64_t *id);
/* Moves past rows without making their cells; pages that lie wholly
** inside them are not read when the chunk has an offset index. */
PQ_API int pq_field_reader_skip(pq_field_reader *r, int64_t rows,
                                pq_error *err);
/* Bytes of pages read so far (headers and bodies, as stored). */
PQ_API int64_t pq_field_reader_bytes(const pq_field_reader *r);
PQ_API void pq_field_reader_free(pq_field_reader *r);

/* The memory a flat field's reader reads into: the window of the file's
** bytes (a file without an image), and the page decompressed.  A caller
** that opens reader after reader (a table, row group after row group,
** query after query) may keep it from one to the next: memory already
** written costs nothing to write again, where fresh memory costs a fault
** a page (on some hosts, as much as reading the page).  give_room hands
** room's memory to a reader just opened (room is left empty);
** take_room, before the reader is freed, hands it back (room must be
** empty).  A nested field's reader takes none and gives none back. */
struct pq_read_room {
  pq_buf window, page;
  /* When owner is not NULL, window holds window.len bytes of owner's file
  ** from offset `at` (what the reader that gave the room back read last):
  ** a reader of the same pq_file that takes the room starts with them,
  ** and reads none of them again.  A caller that frees a pq_file sets the
  ** owner of the rooms it keeps of it to NULL first. */
  const pq_file *owner;
  uint64_t at;
};
PQ_API void pq_field_reader_give_room(pq_field_reader *r, pq_read_room *room);
PQ_API void pq_field_reader_take_room(pq_field_reader *r, pq_read_room *room);

/* Each row of one row group as a JSON object, as pq_file_to_json gives
** them: the caller appends row after row. */
typedef struct pq_row_reader pq_row_reader;
PQ_API int pq_row_reader_open(pq_row_reader **out, const pq_file *f,
                              uint32_t row_group, size_t limit,
                              pq_error *err);
/* The same, its columns read into room's memory one after the other
** (pq_read_room), which holds it again when this returns: a caller that
** reads row group after row group writes into memory already written. */
PQ_API int pq_row_reader_open_room(pq_row_reader **out, const pq_file *f,
                                   uint32_t row_group, size_t limit,
                                   pq_read_room *room, pq_error *err);
/* Appends the next row to out; *got is 0 after the last. */
PQ_API int pq_row_reader_next(pq_row_reader *r, pq_buf *out, int *got,
                              pq_error *err);
PQ_API void pq_row_reader_free(pq_row_reader *r);

/* ---- Writing files ---------------------------------------------------------
** A file of one column (or of several), written as values arrive: data pages (v1 or v2) of
** the chosen encoding, a dictionary page first in each chunk for the
** dictionary encodings, NULLs as definition levels, the codec, statistics
** and CRCs.  What the writer keeps is what the file will hold: the encoded
** pages, and the values of the page being filled only as the encoder needs
** them. */

typedef struct pq_write_options {
  pq_codec codec;         /* of every page; UNCOMPRESSED */
  int level;              /* the codec's level; PQ_LEVEL_DEFAULT */
  int page_version;       /* 1 (DATA_PAGE) or 2 (DATA_PAGE_V2); 1 */
  int64_t page_size;      /* a page closes once its values and levels take
                          ** about this many bytes, encoded; 1 MiB */
  int64_t page_values;    /* ... or once it holds this many; 0: no bound */
  int64_t row_group_size; /* rows per row group; 0: one row group */
  int nullable;           /* OPTIONAL column (1) or REQUIRED (0); 1 */
  int statistics;         /* min, max and null count of pages and chunks */
  int crc;                /* a CRC in every page header; 1 */
  int string;             /* BYTE_ARRAY annotated as STRING: 1, 0, or -1
                          ** to leave it to pq_writer_set_string(); -1 */
  char name[256];         /* of the column; "value" */
  /* The column's logical type (PQ_LOGICAL_*; NONE: only `string` says),
  ** written as LogicalType and, where one matches, ConvertedType:
  ** DECIMAL's precision and scale, TIME's and TIMESTAMP's unit
  ** (PQ_UNIT_*) and whether adjusted to UTC. */
  int logical;
  int precision, scale, unit, utc;
  /* A dictionary encoding's fallback: once the chunk's dictionary holds
  ** more than dictionary_page_size bytes (1 MiB when 0), its pages go on
  ** in this encoding (PQ_PLAIN, ...) to the end of the chunk, as
  ** parquet-mr and Arrow do; -1: the dictionary grows as it must. */
  int fallback;
  int64_t dictionary_page_size;
  /* A ColumnIndex and an OffsetIndex for each chunk (spec/PageIndex.md),
  ** before the footer; 0 */
  int page_index;
  /* A split-block bloom filter for each chunk: sized for bloom_ndv
  ** distinct values (0: as many as the chunk has) at the false positive
  ** probability bloom_fpp (0: 0.01); 0 */
  int bloom;
  int64_t bloom_ndv;
  double bloom_fpp;
  /* Each chunk's encoding chosen on its first page (about page_size bytes
  ** of values, or page_values): every encoding the type may use, and a
  ** dictionary falling back to PLAIN, is tried, and the one whose page is
  ** smallest after the codec kept for the chunk; the encoding given is
  ** then only the first tried (and wins a tie); 2: the same without the
  ** dictionary; 0.  Only the encodings every mainstream reader reads for
  ** the type are tried (pq_auto_tries), and those of auto_allow besides. */
  int auto_encoding;
  /* The encodings (bits 1 << PQ_*) "auto" may try where the mainstream
  ** readers do not all read them: ALP, BYTE_STREAM_SPLIT of INT32, INT64
  ** and FIXED_LEN_BYTE_ARRAY, GROUP_VAR_INT; 0 */
  unsigned auto_allow;
  /* GEOMETRY and GEOGRAPHY (logical): the crs, crs_len bytes (NULL: none
  ** written, which means OGC:CRS84), copied when the writer opens; and
  ** GEOGRAPHY's algorithm, EdgeInterpolationAlgorithm + 1 (0: none
  ** written, which means SPHERICAL).  Their chunks get GeospatialStatistics
  ** (src/format/wkb.c) and no min or max. */
  const char *crs;
  size_t crs_len;
  int algorithm;
} pq_write_options;

/* Key-value metadata and created_by for the footer of a file the writer
** makes (pq_writer_set_footer); NULL created_by: the extension's name. */
typedef struct pq_footer_extra {
  const char *const *keys, *const *values; /* values[i] NULL: no value */
  int n;
  const char *created_by;
} pq_footer_extra;

/* Whether "auto" tries encoding e for values of type t: e is one the
** type may use in a data page, and DuckDB, arrow-rs, parquet-java and
** Arrow C++ all read it for the type (doc/parquet_write.md, "Which
** readers read what"), or allow (a pq_write_options auto_allow) has it.
** PLAIN_DICTIONARY and BIT_PACKED never. */
PQ_API int pq_auto_tries(pq_encoding e, pq_type t, unsigned allow);

PQ_API void pq_write_options_init(pq_write_options *o);
/* Parses a JSON object of options (doc/parquet_file.md): the file's keys
** into o, the encoding's (block_size, ...) into p.  Unknown keys and
** ill-typed values are PQ_MISUSE. */
PQ_API int pq_write_options_parse(pq_write_options *o, pq_params *p,
                                  const char *json, size_t n, pq_error *err);

typedef struct pq_writer pq_writer;

/* p: the encoding and physical type of the values (and the encoding's
** parameters).  Encodings a data page may not use for the type, and
** BIT_PACKED (only ever a level encoding), are PQ_MISUSE. */
PQ_API int pq_writer_open(pq_writer **out, const pq_params *p,
                          const pq_write_options *o, pq_error *err);
/* Appends n entries: present[i] says whether entry i has a value (NULL:
** all do); values holds the present ones, laid out as for the type.  A NULL
** in a column that is not nullable is PQ_RANGE. */
PQ_API int pq_writer_put(pq_writer *w, const void *values,
                         const uint8_t *present, size_t n, pq_error *err);
/* When o->string was -1: whether BYTE_ARRAY values are annotated STRING. */
PQ_API void pq_writer_set_string(pq_writer *w, int is_string);

/* A file of n columns: column i of the encoding and type p[i] and the
** options o[i] (its name, codec, pages, ...; row_group_size is not used:
** the caller closes each row group).  pq_writer_put_column appends to
** column col as pq_writer_put does; pq_writer_end_row_group closes the
** row group once every column holds the same number of rows (PQ_MISUSE
** otherwise), and pq_writer_finish the last one. */
PQ_API int pq_writer_open_columns(pq_writer **out, int n, const pq_params *p,
                                  const pq_write_options *o, pq_error *err);
PQ_API int pq_writer_put_column(pq_writer *w, int col, const void *values,
                                const uint8_t *present, size_t n,
                                pq_error *err);
PQ_API int pq_writer_end_row_group(pq_writer *w, pq_error *err);
/* Lanes, for writing columns on two threads: each column is in lane 0 (at
** first) or 1, and each lane makes its pages in buffers of its own, so
** pq_writer_put_column may run on two threads at once for columns of
** different lanes (and on no two threads for one lane).  Nothing else may
** run meanwhile, and the lanes may change only between such calls.
** PQ_MISUSE for a column or lane out of range. */
#define PQ_WRITER_LANES 2
PQ_API int pq_writer_set_lane(pq_writer *w, int col, int lane);
PQ_API void pq_writer_set_column_string(pq_writer *w, int col, int is_string);
/* What the footer says besides the columns: copied; PQ_NOMEM or PQ_OK. */
PQ_API int pq_writer_set_footer(pq_writer *w, const pq_footer_extra *x,
                                pq_error *err);
/* A nested schema: the root's fields, each a group (children) or a leaf;
** the leaves, in depth-first order, are the columns, of p[i] and o[i] (o's
** name and nullable are the node's).  Groups may carry LIST or MAP
** (PQ_LOGICAL_LIST, PQ_LOGICAL_MAP; their converted types are written
** too), a leaf o[i]'s logical type.  Entries go to a leaf with their
** levels, by pq_writer_put_levels. */
typedef struct pq_write_node {
  const char *name;
  int repetition;    /* 0 REQUIRED, 1 OPTIONAL, 2 REPEATED */
  int logical;       /* of a group: 0, PQ_LOGICAL_LIST, PQ_LOGICAL_MAP or
                     ** PQ_LOGICAL_VARIANT (VARIANT(1)) */
  int n_children;    /* 0: a leaf */
  const struct pq_write_node *children;
} pq_write_node;
PQ_API int pq_writer_open_schema(pq_writer **out, const pq_write_node *fields,
                                 int n_fields, const pq_params *p,
                                 const pq_write_options *o, pq_error *err);
/* Appends n entries to leaf col: def[i] and rep[i] their levels (rep NULL
** for a leaf that nothing repeats), values the entries whose def is the
** leaf's maximum.  A call holds whole records: rep[0] is 0.  Levels past
** the leaf's maxima are PQ_MISUSE. */
PQ_API int pq_writer_put_levels(pq_writer *w, int col, const void *values,
                                const uint16_t *def, const uint16_t *rep,
                                size_t n, pq_error *err);
/* Appends the bytes of the file written so far (the magic and the closed
** row groups) to out and lets them go: memory then follows one row group.
** pq_writer_finish appends the rest. */
PQ_API void pq_writer_drain(pq_writer *w, pq_buf *out);
/* Instead: every byte of the file goes to fn as soon as it is final (the
** chunks of a row group when it closes, straight from the writer's own
** buffers), and pq_writer_finish sends the rest there too (its out is
** left empty).  fn returns 0, or nonzero when it failed (PQ_IO). */
typedef int (*pq_write_fn)(void *ctx, const uint8_t *p, size_t n);
PQ_API void pq_writer_set_sink(pq_writer *w, pq_write_fn fn, void *ctx);
/* About the bytes the open row group takes encoded so far: its closed
** pages, and what the open pages' encoders hold. */
PQ_API int64_t pq_writer_group_bytes(const pq_writer *w);
/* Closes the last page and appends the whole file to out. */
PQ_API int pq_writer_finish(pq_writer *w, pq_buf *out, pq_error *err);
PQ_API void pq_writer_free(pq_writer *w);

/* ---- The encoding lab (writer/lab.c) --------------------------------------
** A column's batches kept once, as a writer of pq_writer_open_columns was
** handed them (pq_writer_put_column's values and present flags, copied),
** and the row groups' ends; then written again for each encoding: the
** column's params and options with the encoding changed as parquet_write's
** "encoding" option changes it (pq_write_type_encoding), the same batches
** in the same sizes, so the pages are those of such a file; they are made
** under each codec (and level) as the writer makes them, so a chunk's
** bytes are byte for byte those of the file written with that codec. */
typedef struct pq_lab_column pq_lab_column;

/* p and o: the column's, as its writer was opened with them. */
PQ_API int pq_lab_column_new(pq_lab_column **out, const pq_params *p,
                             const pq_write_options *o, pq_error *err);
PQ_API int pq_lab_column_put(pq_lab_column *c, const void *values,
                             const uint8_t *present, size_t n,
                             pq_error *err);
/* A row group closed after the last batch put. */
PQ_API int pq_lab_column_end_group(pq_lab_column *c, pq_error *err);
/* Entries and present values put, and the bytes their PLAIN encoding
** takes (the measure of speeds). */
PQ_API void pq_lab_column_counts(const pq_lab_column *c, int64_t *rows,
                                 int64_t *values, int64_t *plain);
PQ_API void pq_lab_column_free(pq_lab_column *c);

typedef struct pq_lab_result {
  int64_t bytes;     /* total_compressed_size of the column's chunks */
  int64_t pages;     /* their pages, dictionary pages included */
  int picked;        /* the first chunk's encoding: PQ_RLE_DICTIONARY when
                     ** it has a dictionary page, else its first page's;
                     ** -1 when it has no page */
  double encode_s;   /* seconds to write the chunks once (the pages made,
                     ** then made under the codec); -1: not timed */
  double decode_s;   /* ... to read its pages (decompressed, levels and
                     ** values decoded); -1: not timed */
  double encode_spread, decode_spread; /* the interquartile range of the
                     ** timed runs' times over their median; -1: not timed,
                     ** or fewer than 2 runs */
  int64_t encode_runs, decode_runs; /* the runs timed */
  int fell_back;     /* a chunk with a dictionary page has a data page of
                     ** another encoding */
} pq_lab_result;

/* Ends the puts: from here on the column is only read, and the calls
** below may run on several threads at once, each with its own results
** and error, as long as no two are of the same encoding (pq_lab_runs,
** pq_lab_values_bytes; pq_lab_auto_pick may run beside any); pq_lab_why
** once they are done. */
PQ_API void pq_lab_column_end(pq_lab_column *c);
/* The trials of one encoding, a name (pq_encoding_parse's), under n codecs
** (codecs[k] at levels[k], PQ_LEVEL_DEFAULT for the default), into r[k]:
** the column written once, its pages made under each codec (what the
** writer decides does not depend on the codec).  "auto", which chooses by
** the codec, takes one codec.  With min_time > 0 each codec's write (the
** first run is the write that made the pages, then they are made under
** the codec) and read are each timed over as many runs as take min_time
** seconds, on this thread.  The first trial ends the puts. */
PQ_API int pq_lab_runs(pq_lab_column *c, const char *encoding, int n,
                       const pq_codec *codecs, const int *levels,
                       double min_time, pq_lab_result *r, pq_error *err);
/* One: pq_lab_runs of one codec. */
PQ_API int pq_lab_run(pq_lab_column *c, const char *encoding, pq_codec codec,
                      int level, double min_time, pq_lab_result *r,
                      pq_error *err);
/* The file of the column with no rows, PLAIN and uncompressed, into image:
** its schema. */
PQ_API int pq_lab_schema_file(pq_lab_column *c, pq_buf *image, pq_error *err);
/* The encoding "auto" picks for the first chunk with codec and level, as
** pq_lab_run's `picked` for "auto" gives it, into *picked, without writing
** the whole column: only the batches up to the point where the writer has
** chosen (its first page's worth of values, or the first row group's
** end). */
PQ_API int pq_lab_auto_pick(pq_lab_column *c, pq_codec codec, int level,
                            int *picked, pq_error *err);
/* The bytes of every present value as one stream of encoding e, with the
** stream's defaults (a dictionary encoding: its indices and its PLAIN
** dictionary), uncompressed. */
PQ_API int pq_lab_values_bytes(pq_lab_column *c, pq_encoding e,
                               int64_t *bytes, pq_error *err);
/* Why encoding e takes the bytes it takes: a JSON object of the figures of
** the stream pq_lab_values_bytes measures (doc/parquet_lab.md lists them),
** read back from its bytes, appended to out.  Computed once per encoding
** (by pq_lab_values_bytes, or here); a dictionary's "fell_back" comes from
** writing the column as RLE_DICTIONARY (done here when no try has). */
PQ_API int pq_lab_why(pq_lab_column *c, pq_encoding e, pq_buf *out,
                      pq_error *err);

/* The lab's options: its own keys, and the rest for parquet_write. */
typedef struct pq_lab_options {
  char **names;           /* "columns" (pq_malloc); NULL: every column */
  int nnames;
  unsigned encodings;     /* "encodings": bits 1 << pq_encoding; 0: all */
  unsigned codecs;        /* "codecs": bits 1 << pq_codec; 0: all */
  int *levels;            /* "levels"; NULL: each codec's default */
  int nlevels;
  double min_time;        /* "min_time", 0 to 60; left as it was when absent */
  /* "sample": the first `first` rows (an integer), or every `every`-th
  ** from the first (a fraction f, 0 < f <= 1: every is 1/f rounded);
  ** 0: not said */
  int64_t first, every;
  int threads;            /* "threads": 1, or 2 (the default; 0: not said) */
  char *pass;             /* every other member, as written, in an object
                          ** (NUL-terminated, pq_malloc) */
} pq_lab_options;

/* Reads json[0..n), a JSON object, into o (zeroed by the caller, but for
** its min_time default): the lab's keys checked ("encodings", "codecs",
** "levels" not empty; codecs this build has; levels integers within
** +-1000000), "encoding", "codec", "level" and "dictionary" refused
** (PQ_MISUSE "options: ...").  On a fault o may hold what was read before
** it: pq_lab_options_free frees it either way. */
PQ_API int pq_lab_options_parse(pq_lab_options *o, const char *json, size_t n,
                                pq_error *err);
PQ_API void pq_lab_options_free(pq_lab_options *o);

/* ---- Partitioned writes (writer/partition.c) -------------------------------
** A write into a folder of files: hive partitions, key=value folders by
** the values of the partition columns, and files that roll over once they
** pass a size.  The rows come grouped by partition, so one file is open at
** a time. */

/* Hive's name of a NULL partition value (DuckDB and Spark write it too). */
#define PQ_HIVE_NULL "__HIVE_DEFAULT_PARTITION__"
/* Appends s[0..n) escaped for a folder name, as DuckDB escapes partition
** keys and values: ASCII letters, digits and - _ . ~ as they are, every
** other byte as %XX (upper-case hex), so that '/', '=', '%', spaces and
** what is not ASCII never part or name folders. */
PQ_API void pq_hive_escape(pq_buf *out, const char *s, size_t n);
/* Appends the folder of one partition: key=value for each of the n
** partition columns, '/' between them, each escaped; vals[i] NULL is a
** NULL value (PQ_HIVE_NULL), else lens[i] bytes. */
PQ_API void pq_hive_folder(pq_buf *out, int n, const char *const *keys,
                           const char *const *vals, const size_t *lens);

typedef struct pq_partitioner {
  pq_buf folder;     /* the partition of the file open, or of the last */
  int started;       /* folder holds one */
  int open;          /* a file of it is open */
  int64_t next;      /* the number of its next file: data_<next>.parquet */
  int64_t file_size; /* a file closes once it passes this; 0: never */
  int64_t files;     /* files opened */
} pq_partitioner;

enum { PQ_PART_WRITE = 100, PQ_PART_OPEN, PQ_PART_CLOSE };

/* file_size: bytes past which a file is closed (0: none). */
PQ_API void pq_partitioner_init(pq_partitioner *p, int64_t file_size);
PQ_API void pq_partitioner_free(pq_partitioner *p);
/* Where a row of partition folder[0..n) ("" without partitions) goes:
** PQ_PART_WRITE, to the file open; PQ_PART_OPEN, to a new file (none is
** open: the next of its folder, or the first of a new folder); or
** PQ_PART_CLOSE, the file open is another folder's: the caller closes it
** (pq_partitioner_closed) and routes the row again.  PQ_NOMEM. */
PQ_API int pq_partitioner_route(pq_partitioner *p, const char *folder,
                                size_t n);
/* Whether the file open, of `bytes` so far, is to close (file_size). */
PQ_API int pq_partitioner_full(const pq_partitioner *p, int64_t bytes);
/* Appends the name of the next file to open, relative to the top folder
** (folder/data_N.parquet), and takes its number; PQ_NOMEM or PQ_OK.  A
** name that is taken can be passed over by asking again. */
PQ_API int pq_partitioner_name(pq_partitioner *p, pq_buf *name);
PQ_API void pq_partitioner_opened(pq_partitioner *p);
PQ_API void pq_partitioner_closed(pq_partitioner *p);

/* ---- Column types and nested values (writer/types.c, writer/nested.c) ----
** A column's type as parquet_write's options name it (doc/parquet_write.md,
** "Types"), and the nested ones, LIST<t>, MAP<k, v> and STRUCT<name t, ...>
** (nesting as deep as wanted), whose values come as JSON text and are
** shredded into their leaves with repetition and definition levels
** (spec/LogicalTypes.md, "Nested Types"). */

enum {
  PQ_WT_UNKNOWN = 0,
  PQ_WT_BOOLEAN,
  PQ_WT_INT32,
  PQ_WT_INT64,
  PQ_WT_FLOAT,
  PQ_WT_DOUBLE,
  PQ_WT_STRING,    /* BYTE_ARRAY, STRING */
  PQ_WT_JSON,      /* BYTE_ARRAY, JSON */
  PQ_WT_BINARY,    /* BYTE_ARRAY */
  PQ_WT_FIXED,     /* FIXED_LEN_BYTE_ARRAY(n) */
  PQ_WT_DATE,      /* INT32, DATE */
  PQ_WT_TIME,      /* INT32 (ms) or INT64, TIME */
  PQ_WT_TIMESTAMP, /* INT64, TIMESTAMP */
  PQ_WT_DECIMAL,   /* INT32, INT64 or FIXED_LEN_BYTE_ARRAY, DECIMAL */
  PQ_WT_UUID,      /* FIXED_LEN_BYTE_ARRAY(16), UUID */
  PQ_WT_INT96,
  PQ_WT_LIST,      /* nested (pq_nested) */
  PQ_WT_STRUCT,
  PQ_WT_MAP,
  PQ_WT_VARIANT,   /* nested: a VARIANT group (writer/variant.c) */
  PQ_WT_GEOMETRY,  /* BYTE_ARRAY, GEOMETRY: WKB */
  PQ_WT_GEOGRAPHY  /* BYTE_ARRAY, GEOGRAPHY: WKB */
};

typedef struct pq_write_type {
  int kind;               /* PQ_WT_* */
  int unit, utc;          /* TIME, TIMESTAMP */
  int precision, scale;   /* DECIMAL */
  int32_t length;         /* FIXED */
  const char *crs;        /* GEOMETRY, GEOGRAPHY: the crs, inside the
                          ** text parsed (NULL: none) */
  size_t crs_len;
  int algorithm;          /* GEOGRAPHY: EdgeInterpolationAlgorithm + 1;
                          ** 0 none */
} pq_write_type;

/* Parses a scalar type's name: INT32, ..., TIME(us), TIMESTAMP(ms, utc),
** DECIMAL(p, s), FIXED_LEN_BYTE_ARRAY(n), names in either case.  0 on
** success, 1 when s names none. */
PQ_API int pq_write_type_parse(const char *s, pq_write_type *t);
/* A scalar type's name, as messages give it (in buf, or a constant). */
PQ_API const char *pq_write_type_name(const pq_write_type *t, char *buf,
                                      size_t cap);
/* The physical type and annotation of a scalar type into p and o. */
PQ_API void pq_write_type_params(const pq_write_type *t, pq_params *p,
                                 pq_write_options *o);

/* A column's encoding as the options give it, once p and o hold its type:
** enc the encoding named ("auto" for auto; NULL: none), dictionary 1, 0
** or -1 (not said).  A dictionary encoding named, or a dictionary asked
** for, is RLE_DICTIONARY falling back to the encoding named (PLAIN when
** none); with neither, a dictionary falling back to PLAIN, but for
** BOOLEAN; "auto" sets o->auto_encoding (2: without a dictionary).  Sets
** p->encoding, p->length_prefix (RLE of BOOLEAN), o->fallback and
** o->auto_encoding; enc is one pq_encoding_parse takes, or "auto". */
PQ_API void pq_write_type_encoding(const char *enc, int dictionary,
                                   pq_params *p, pq_write_options *o);

/* A nested column: its type's tree, its leaves, and the entries of the
** batch being filled.  Written as the spec's nested types are:
**
**   LIST<t>       optional group c (LIST) { repeated group list {
**                                           optional t element; } }
**   MAP<k, v>     optional group c (MAP) { repeated group key_value {
**                                          required k key; optional v value; } }
**   STRUCT<a t>   optional group c { optional t a; ... } */
typedef struct pq_nested pq_nested;

/* Parses a type that may be nested: 1 when it is (*out set), 0 when it is
** a scalar's name (for pq_write_type_parse), -1 with what is wrong in msg
** (text, terminated), or -2 when out of memory. */
PQ_API int pq_nested_parse(const char *s, pq_nested **out, pq_buf *msg);
PQ_API void pq_nested_free(pq_nested *n);
/* PQ_WT_LIST, PQ_WT_STRUCT or PQ_WT_MAP. */
PQ_API int pq_nested_kind(const pq_nested *n);
/* Makes the leaves: their params and options from base and base_o (the
** column's), their types' from the tree; PQ_NOMEM or PQ_OK. */
PQ_API int pq_nested_leaves(pq_nested *n, const pq_params *base,
                            const pq_write_options *base_o);
PQ_API int pq_nested_nleaves(const pq_nested *n);
/* Leaf k's params and options (as pq_nested_leaves made them). */
PQ_API void pq_nested_leaf(const pq_nested *n, int k, pq_params *p,
                           pq_write_options *o);
/* Opens a writer of n columns: column i nested (nested[i]), or flat of
** p[i] and o[i] (nullable by o[i].nullable), each named names[i]; wcol[i]
** is set to a flat column's writer column.  Each nested column's leaves
** are checked alone first: on a refusal *bad is the column, else -1. */
PQ_API int pq_nested_open_writer(pq_writer **out, int n,
                                 pq_nested *const *nested,
                                 const char *const *names, const pq_params *p,
                                 const pq_write_options *o, int *wcol,
                                 int *bad, pq_error *err);
/* A value of the row into the leaves: JSON text s[0..len), or NULL (s
** NULL).  PQ_OK; PQ_NOMEM; or PQ_MISUSE, the value does not fit the type,
** with msg saying where and how ("$.a[2]: a string where an INT32
** belongs", "not JSON: ... at character 7"). */
PQ_API int pq_nested_put(pq_nested *n, const char *s, size_t len,
                         pq_buf *msg);
/* The leaves' entries of the batch to w, and the batch emptied. */
PQ_API int pq_nested_flush(pq_nested *n, pq_writer *w, pq_error *err);

/* A VARIANT column (type "VARIANT", spec/VariantEncoding.md): its values
** are JSON text (pq_variant_from_json), written unshredded
**
**   optional group c (VARIANT(1)) { required binary metadata;
**                                   required binary value; }
**
** unless shredded (spec/VariantShredding.md) by spec[0..len): JSON naming
** the typed_value's type: a scalar type ("INT64", "STRING", "DOUBLE",
** "BOOLEAN", "INT32", "DECIMAL(p,s)"), an object of fields' types
** ({"a": "INT64", "b": {"c": "STRING"}}), an array of one element's type
** (["STRING"]), or "auto": the common shape of the values samples[0..n)
** (NULL ones left out; none in common: unshredded).  Before
** pq_nested_leaves.  PQ_MISUSE with what is wrong in msg, PQ_NOMEM. */
PQ_API int pq_nested_variant_shred(pq_nested *n, const char *spec, size_t len,
                                   const char *const *samples,
                                   const size_t *sample_lens, int nsamples,
                                   pq_buf *msg);

/* ---- Writing a table (writer/table.c, table_options.c, worker.c,
** output.c) -------------------------------------------------------------
** Rows of dynamically typed values (what a database row holds) as a
** Parquet file: the whole of SQL's parquet_write but its query
** (doc/parquet_write.md; doc/build.md has a program).  The options are
** parquet_write's JSON text.  Each column's type comes from the options,
** else from its declared type ("INTEGER", "TEXT 'TIMESTAMP(us)'", NULL),
** else from its first non-NULL values (the first PQ_TABLE_LOOK rows are
** kept until then).  Rows go to the core writer in batches, row groups to
** the output as they close; a worker thread encodes one batch while the
** next is filled (unless "threads": 1, or the host allows none).  The
** output is a file (written under a temporary name, synced, renamed), a
** folder of files ("partition_by", "file_size_bytes": hive folders, the
** partition keys given after each row's values, the rows sorted by them),
** memory (the file's bytes, at most host->limit), a sink (the program's
** own callbacks, which take the file's bytes as the row groups close: an
** upload, a socket), or a capture: the batches handed to callbacks rather
** than encoded.
**
** Every function returns a PQ_ code; when it is neither PQ_OK nor
** PQ_NOMEM, pq_table_writer_message says what went wrong ("options:
** unknown encoding 'X'", "column 'c', row 3: TEXT 'x' in an INT64 column
** ...").  After a failure only pq_table_writer_free is called; it removes
** whatever the write made. */

#define PQ_TABLE_LOOK 1024 /* rows read ahead to type columns by their values */

/* A value of a row: what a SQL value holds, without SQL. */
enum { PQ_DV_NULL, PQ_DV_INT, PQ_DV_DOUBLE, PQ_DV_TEXT, PQ_DV_BLOB };
typedef struct pq_dvalue {
  int kind;        /* PQ_DV_* */
  int64_t i;       /* PQ_DV_INT */
  double d;        /* PQ_DV_DOUBLE */
  const void *p;   /* PQ_DV_TEXT (UTF-8), PQ_DV_BLOB: n bytes at p */
  size_t n;
} pq_dvalue;

/* What the program lends the writer (all optional: zero is the default). */
typedef struct pq_table_host {
  void *ctx;
  size_t limit;            /* bytes of a file in memory, and of the bloom
                           ** filters sized by "ndv" in all row groups;
                           ** 0: SIZE_MAX */
  const char *limit_hint;  /* said after a message about the limit */
  const char *limit_name;  /* said after "the limit" of a file in memory */
  int no_threads;          /* no worker thread (the host is not thread-safe) */
  /* Asked before each file and folder is made: PQ_OK, PQ_NOMEM, or
  ** another code with the reason in msg (that refuses the write). */
  int (*may_write)(void *ctx, pq_buf *msg);
  /* n random bytes for temporary names (NULL: the clock's). */
  void (*random)(void *ctx, void *p, size_t n);
} pq_table_host;

/* A capture: the batches the writer would encode, handed over instead
** (the encoding lab).  Each returns a PQ_ code, err filled when not
** PQ_OK. */
typedef struct pq_table_capture {
  void *ctx;
  /* Column col typed, before its first batch: nested (LIST, STRUCT, MAP,
  ** VARIANT) is never captured; *keep 0 leaves the column out. */
  int (*column)(void *ctx, int col, const char *name, int nested,
                const pq_params *p, const pq_write_options *o, int *keep,
                pq_error *err);
  int (*batch)(void *ctx, int col, const void *values, const uint8_t *present,
               size_t n, pq_error *err);
  /* A row group closes (after the last batch of every column). */
  int (*group)(void *ctx, pq_error *err);
} pq_table_capture;

/* A sink: the program's own place for the file, which the writer streams
** into as it goes (ext/s3_put.c uploads it to S3 in parts): the bytes of
** each row group when it closes, the footer's at the end, so that memory
** follows a row group, not the file.
**
**   write   the file's next n bytes at p, in order (n > 0).  Called on
**           one thread at a time, but that may be the writer's worker
**           thread (unless "threads": 1 or host->no_threads).
**   commit  every byte given: the file made whole where it goes.  Called
**           once, by pq_table_writer_finish, after the last write.
**   abort   the file is given up: whatever write and commit began is
**           undone (nothing half-written left).  Called once, by
**           pq_table_writer_free, unless commit returned PQ_OK: after a
**           failure of write or commit, of the writer, or of the program,
**           or when the program frees the writer without finishing.
**
** write and commit return PQ_OK, PQ_NOMEM, or another code with the
** reason appended to msg (the writer's message then; its code the
** writer's return). */
typedef struct pq_table_sink {
  void *ctx;
  int (*write)(void *ctx, const uint8_t *p, size_t n, pq_buf *msg);
  int (*commit)(void *ctx, pq_buf *msg);
  void (*abort)(void *ctx);
} pq_table_sink;

typedef struct pq_table_writer pq_table_writer;

/* A writer of parquet_write's defaults (host may be NULL; it must outlive
** the writer); NULL when out of memory. */
PQ_API pq_table_writer *pq_table_writer_new(const pq_table_host *host);
PQ_API void pq_table_writer_free(pq_table_writer *tw);
/* What the last failure was: never NULL. */
PQ_API const char *pq_table_writer_message(const pq_table_writer *tw);

/* The options, a JSON object's text json[0..n). */
PQ_API int pq_table_writer_options(pq_table_writer *tw, const char *json,
                                   size_t n);
/* What the options ask of the rows: whether the output is a folder, and
** its partition columns (names; their keys follow each row's values),
** and whether the files hold them too (then they are among the columns
** as well). */
PQ_API int pq_table_writer_folder(const pq_table_writer *tw);
PQ_API int pq_table_writer_partitions(const pq_table_writer *tw,
                                      const char *const **names,
                                      int *write_columns);

/* The output, one of four, before the columns: a path (a file, or the
** folder of a folder's files), memory (NULL path), a sink (one file, not
** a folder: PQ_MISUSE with "partition_by" or "file_size_bytes"), or a
** capture (sink and cap must outlive the writer). */
PQ_API int pq_table_writer_to_path(pq_table_writer *tw, const char *path);
PQ_API int pq_table_writer_to_memory(pq_table_writer *tw);
PQ_API int pq_table_writer_to_sink(pq_table_writer *tw,
                                   const pq_table_sink *sink);
PQ_API int pq_table_writer_to_capture(pq_table_writer *tw,
                                      const pq_table_capture *cap);

/* The columns, after the options: names (distinct; copied) and declared
** types (decls NULL, or an entry NULL: none). */
PQ_API int pq_table_writer_columns(pq_table_writer *tw, int n,
                                   const char *const *names,
                                   const char *const *decls);
/* One row: the n values of the columns, then the partition keys. */
PQ_API int pq_table_writer_row(pq_table_writer *tw, const pq_dvalue *vals);
/* n rows at once: vals holds each row's values after the last's. */
PQ_API int pq_table_writer_rows_put(pq_table_writer *tw, const pq_dvalue *vals,
                                    size_t n);
/* The rows all given: the last batch, row group and footer written, the
** file, folder or sink committed. */
PQ_API int pq_table_writer_finish(pq_table_writer *tw);
/* The rows written. */
PQ_API int64_t pq_table_writer_rows(const pq_table_writer *tw);
/* A memory output's file, handed over into out (after finish). */
PQ_API void pq_table_writer_take(pq_table_writer *tw, pq_buf *out);

/* ---- SQL values as Parquet values (writer/values.c) ---------------------
** The inverses of the text the reader gives dates, times, timestamps,
** INT96, decimals and UUIDs (reader/cell.c, doc/values.md).  Whatever the reader writes for a valid
** stored value reads back here as that value, bit for bit.
**
** Every function returns PQ_OK, or fills err with "<label>: <message>":
**   PQ_MISUSE  the text is not a value of the kind: "'2024-13-01' is not a
**              date: month 13" (also a bad unit or decimal type)
**   PQ_RANGE   it is one, but the Parquet type cannot hold it: past int64
**              or int32, more digits than the precision, a fraction finer
**              than the unit or the scale
** label names the column (NULL: "value").  Text is s[0..n), not
** necessarily terminated; no blanks are skipped.
*/

/* Dates and times.
** A date is 'YYYY-MM-DD' in the proleptic Gregorian calendar, what SQLite's
** date() gives; the year may have more digits, and a sign ('-001' is the
** year before 0000, as the reader writes it); unsigned, it has at least
** four.  A time of day is 'HH:MM[:SS[.fraction]]', 00:00 to 23:59:59.999...
** (no 24:00, no leap second: not the reader's text of a stored time outside
** the day); fraction digits past the unit must be zeros.  A timestamp is a
** date alone (midnight), or a date, ' ' or 'T', and a time, then optionally
** 'Z' or an offset '+HH:MM' / '-HH:MM', which is taken out (the value is
** UTC); 'T' and 'Z' in either case.
** unit: PQ_UNIT_MILLIS, PQ_UNIT_MICROS, PQ_UNIT_NANOS. */

/* DATE: days since 1970-01-01, in 32 bits. */
PQ_API int pq_date_from_text(const char *s, size_t n, int32_t *days,
                      const char *label, pq_error *err);
/* TIME: units since midnight (below 86400000 for MILLIS, whose INT32 takes
** it as it is). */
PQ_API int pq_time_from_text(const char *s, size_t n, int unit, int64_t *out,
                      const char *label, pq_error *err);
/* TIMESTAMP: units since 1970-01-01 00:00:00 UTC, in 64 bits. */
PQ_API int pq_timestamp_from_text(const char *s, size_t n, int unit, int64_t *out,
                           const char *label, pq_error *err);
/* INT96: nanoseconds of the day (int64, little-endian), then the Julian
** day (int32, little-endian) of the timestamp in UTC. */
PQ_API int pq_int96_from_text(const char *s, size_t n, uint8_t out[12],
                       const char *label, pq_error *err);

/* Decimals.
** The unscaled integer value * 10^scale, of at most `precision` digits
** (1 to 38), stored as the physical type lays it out:
**   INT32                 an int32_t (precision up to 9)
**   INT64                 an int64_t (precision up to 18)
**   FIXED_LEN_BYTE_ARRAY  type_length bytes, big-endian two's complement
**                         (precision up to what the length holds)
**   BYTE_ARRAY            the fewest such bytes that hold it (1 to 16)
** out has room for pq_decimal_size() bytes; *len is set to what was
** written. */
typedef struct pq_decimal_spec {
  pq_type type;
  int32_t type_length; /* FIXED_LEN_BYTE_ARRAY(n): n */
  int precision, scale;
} pq_decimal_spec;

/* PQ_MISUSE when the spec is not a decimal this can write: precision
** outside 1..38, scale outside 0..precision, more digits than the type
** holds, another physical type.  Each function below checks it too. */
PQ_API int pq_decimal_check(const pq_decimal_spec *d, const char *label,
                     pq_error *err);
/* Bytes a value takes in out: 4, 8, type_length, or 16 (at most). */
PQ_API size_t pq_decimal_size(const pq_decimal_spec *d);

/* Text: an optional sign, digits with an optional point ('12', '1.5',
** '.5', '5.'), an optional exponent ('1.5e3', '25E-2').  Non-zero digits
** past the scale are PQ_RANGE (trailing zeros are not). */
PQ_API int pq_decimal_from_text(const pq_decimal_spec *d, const char *s, size_t n,
                         void *out, size_t *len, const char *label,
                         pq_error *err);
/* An integer: v * 10^scale. */
PQ_API int pq_decimal_from_int64(const pq_decimal_spec *d, int64_t v, void *out,
                          size_t *len, const char *label, pq_error *err);
/* A real: its exact binary value rounded to the scale, half away from zero
** (0.125 at scale 2 is 13; 0.145, which is 0.14499999999999999, is 14).
** NaN and the infinities are PQ_RANGE. */
PQ_API int pq_decimal_from_double(const pq_decimal_spec *d, double v, void *out,
                           size_t *len, const char *label, pq_error *err);

/* UUIDs.
** 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx' or 32 hex digits without dashes,
** either case, as 16 bytes in the order written. */
PQ_API int pq_uuid_from_text(const char *s, size_t n, uint8_t out[16],
                      const char *label, pq_error *err);

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
  char path[256];       /* where it sits in the stream's grammar */
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
  const uint8_t *within; /* not NULL: offset and length count in these
                         ** bytes, not the explained buffer's (a page's
                         ** body decompressed); valid as bytes is */
  uint64_t within_len;
} pq_field;

typedef struct pq_explainer pq_explainer;

/* Opens an explainer over buf[0..len) (and, for dictionary encodings, an
** optional PLAIN dictionary).  Fails only on bad parameters: a malformed
** stream is explained up to its fault. */
PQ_API int pq_explainer_open(pq_explainer **out, const pq_params *p,
                             const uint8_t *buf, size_t len,
                             const uint8_t *dict, size_t dict_len,
                             pq_error *err);
/* Opens an explainer over a whole Parquet file image buf[0..len), which
** must outlive it.  The rows follow the file in byte order: the magic
** "PAR1"; each column chunk's pages, in file order, each page's PageHeader
** field by field ("row_groups[0].columns[id].pages[2].header.
** data_page_header.num_values": a chunk is named by its column's dotted
** path, or by its index where that could be taken for an index or for
** another column's), then its body: when its bytes are stored
** uncompressed, its repetition and definition levels and its values, by
** the explainers of their encodings (dictionary indices with the chunk's
** dictionary), else one row for the compressed bytes; the page indexes and
** bloom filters the footer points to; the footer's FileMetaData field by
** field ("footer.row_groups[0].columns[0].meta_data.codec"); the footer's
** length; the closing magic.  Bytes nothing claims are one row each.  A
** file that cannot be opened is explained as far as it can be, and a last
** row (fault set) says what is wrong, in the reader's words.  Fails only
** when out of memory. */
PQ_API int pq_explainer_open_file(pq_explainer **out, const uint8_t *buf,
                                  size_t len, pq_error *err);

/* What a page does not say about itself: its column's physical type, the
** maxima of its levels (which say whether it has levels, and their bit
** widths) and its chunk's codec.  pq_page_context_init() sets: no type,
** no levels, UNCOMPRESSED. */
typedef struct pq_page_context {
  int type_set;          /* 0: the type is unknown, the body is one row */
  pq_type type;
  int32_t type_length;   /* FIXED_LEN_BYTE_ARRAY(n): n */
  int max_def, max_rep;  /* the column's maximum levels */
  pq_codec codec;
  int binary;            /* BYTE_ARRAY values are bytes, not text */
  int codec_set;         /* the codec was named: else it is recognised
                         ** where the body's bytes name it */
  size_t limit;          /* the most a body may decompress to; 0: 1 GiB */
  int variant;           /* PQ_XV_METADATA or PQ_XV_VALUE: the column is a
                         ** VARIANT's, its PLAIN and DELTA_LENGTH_BYTE_ARRAY
                         ** values are walked as such; 0: not */
} pq_page_context;

PQ_API void pq_page_context_init(pq_page_context *c);
/* Parses a JSON object of options: "max_def", "max_rep" (0 to 32767),
** "codec" (a name or number), "binary" and "variant" ("metadata" or
** "value") into c.  Unknown keys and
** ill-typed values are PQ_MISUSE. */
PQ_API int pq_page_context_parse(pq_page_context *c, const char *json,
                                 size_t n, pq_error *err);

/* Opens an explainer over one page as stored, buf[0..len): its PageHeader
** field by field ("header.data_page_header.encoding"), then its body as
** pq_explainer_open_file() explains a page's ("def_levels.run[0].header",
** "values.value[3]"), dictionary indices with dict[0..dict_len) when given.
** A compressed body (or a v2 page's values) is one row, "compressed", then
** its bytes decompressed, walked alike ("decompressed.values.value[3]",
** their offsets within them: pq_field.within): with c->codec when
** c->codec_set, else with a codec the bytes name (a zstd or gzip magic
** number, Hadoop's LZ4 framing, snappy's size) when they decompress to
** the size the header says; else that row alone says the codec is needed.
** c may be NULL (pq_page_context_init()'s defaults); without a type the
** body is one row.  A buffer that ends where the header ends is a header
** alone, explained without a fault.  Fails only on bad parameters. */
PQ_API int pq_explainer_open_page(pq_explainer **out,
                                  const pq_page_context *c,
                                  const uint8_t *buf, size_t len,
                                  const uint8_t *dict, size_t dict_len,
                                  pq_error *err);

/* Opens an explainer over a VARIANT (spec/VariantEncoding.md) in
** buf[0..len): with part PQ_XV_BOTH, a metadata and then its value (the
** metadata's last offset says where it ends); PQ_XV_METADATA, a metadata
** alone; PQ_XV_VALUE, a value alone, whose field ids are resolved to names
** with meta[0..meta_len) when given (not walked; PQ_CORRUPT when it does
** not read).  Rows such as metadata.header.version,
** metadata.offset[2], metadata.name[1], value.header.basic_type,
** value.field_id[0], value.field[1]("b").element[0].data, ...
** Fails only on bad parameters. */
enum { PQ_XV_BOTH = 0, PQ_XV_METADATA = 1, PQ_XV_VALUE = 2 };
PQ_API int pq_explainer_open_variant(pq_explainer **out, int part,
                                     const uint8_t *buf, size_t len,
                                     const uint8_t *meta, size_t meta_len,
                                     pq_error *err);

/* Fills f with the next row: 1, or 0 when there is none. */
PQ_API int pq_explainer_next(pq_explainer *x, pq_field *f);
/* 1 when the fault row just given is an allocation failure, not a fault
** of the bytes: the caller reports it as such rather than as a row. */
PQ_API int pq_explainer_nomem(const pq_explainer *x);
PQ_API void pq_explainer_free(pq_explainer *x);

/* ---- VARIANT (spec/VariantEncoding.md) ------------------------------------
** A variant is two byte strings: its metadata (a dictionary of the object
** field names) and its value.  Readers check every size and offset against
** the bytes they have; a fault names what and the offset within the value
** (or the metadata).
**
** As JSON (pq_variant_to_json): null, true, false; integers as numbers;
** FLOAT and DOUBLE in as few digits as read back to the same bits, NaN as
** the string "NaN", the infinities +-9e999; DECIMAL as a number of all its
** digits ("1.50"); DATE, TIME, TIMESTAMP (micros or nanos, UTC or not) and
** UUID as strings in the text the parquet table gives such columns; BINARY
** as a string of hex digits; strings as strings; objects with their fields
** in the order the value holds them, arrays in order. */
typedef struct pq_variant_meta {
  const uint8_t *p;        /* the metadata */
  size_t n;                /* its own length: header to its last name's end */
  uint32_t count;          /* names in its dictionary */
  uint8_t offset_size;     /* 1 to 4 */
  uint8_t sorted;          /* sorted_strings: sorted and unique */
  const uint8_t *offsets;  /* count + 1 of them */
  const uint8_t *names;    /* the names' bytes */
  size_t names_len;
} pq_variant_meta;

/* Reads a metadata at p[0..n).  n may run past it (a metadata followed by
** its value, as `metadata || value` BLOBs hold them): m->n is its own
** length.  Checks the header (version 1) and that the offsets fit. */
PQ_API int pq_variant_meta_open(pq_variant_meta *m, const uint8_t *p,
                                size_t n, pq_error *err);
/* The id-th name of the dictionary, checked: within its bytes, UTF-8. */
PQ_API int pq_variant_meta_name(const pq_variant_meta *m, uint32_t id,
                                pq_bytes *name, pq_error *err);

/* The basic types and a value's header: what a value at v[0..n) is. */
enum {
  PQ_VARIANT_PRIMITIVE = 0,
  PQ_VARIANT_SHORT_STRING = 1,
  PQ_VARIANT_OBJECT = 2,
  PQ_VARIANT_ARRAY = 3
};

/* An object or array opened for its elements. */
typedef struct pq_variant_container {
  int basic;                 /* PQ_VARIANT_OBJECT or PQ_VARIANT_ARRAY */
  uint32_t count;            /* its elements */
  uint8_t id_size, offset_size;
  const uint8_t *ids;        /* objects: count field ids */
  const uint8_t *offsets;    /* count + 1 */
  const uint8_t *data;       /* the elements' values */
  size_t data_len;
  size_t at;                 /* where the value starts in the outermost one
                             ** (for messages) */
  size_t data_at;            /* where its elements' values start, alike */
} pq_variant_container;

/* Opens the object or array at v[0..n) (at: its offset, for messages);
** a value of another basic type is PQ_MISUSE. */
PQ_API int pq_variant_container_open(pq_variant_container *c,
                                     const uint8_t *v, size_t n, size_t at,
                                     pq_error *err);
/* The i-th element: its value's bytes (up to the end of the container's
** values: a value's own size is pq_variant_value_size()), its offset
** within the outermost value, and for objects its name. */
PQ_API int pq_variant_container_get(const pq_variant_container *c,
                                    const pq_variant_meta *m, uint32_t i,
                                    pq_bytes *name, const uint8_t **v,
                                    size_t *n, size_t *at, pq_error *err);

/* The size of the value that starts at v[0..n) (n may run past it). */
PQ_API int pq_variant_value_size(const uint8_t *v, size_t n, size_t *size,
                                 pq_error *err);

/* Appends the value v[0..n) as JSON (above); at is its offset within the
** outermost value, for messages.  Values nest at most 128 deep. */
PQ_API int pq_variant_to_json(const pq_variant_meta *m, const uint8_t *v,
                              size_t n, size_t at, pq_buf *out,
                              pq_error *err);

/* JSON text to a variant: appends its metadata to meta and its value to
** value.  Integers become the smallest of int8 .. int64 that holds them;
** other numbers the DECIMAL of their digits when they have at most 38 and
** no exponent, else DOUBLE; strings under 64 bytes short strings; objects
** have their fields sorted by name (a name twice is PQ_MISUSE), and the
** metadata holds every name once, sorted. */
PQ_API int pq_variant_from_json(const char *json, size_t n, pq_buf *meta,
                                pq_buf *value, pq_error *err);

/* ---- Geospatial values (src/format/wkb.c) --------------------------------
** GEOMETRY and GEOGRAPHY values are ISO WKB (spec/Geospatial.md): a byte
** order (0 big-endian, 1 little-endian), a uint32 type code (1 Point ..
** 7 GeometryCollection, plus 1000 for Z, 2000 M, 3000 ZM), then the
** coordinates, counts and members the type has.  A walk of a value checks
** every count against the bytes left and every member's type and
** dimensions, and gathers what GeospatialStatistics say: the bounds of
** each coordinate (NaN skipped) and the type codes of the values. */
typedef struct pq_geo_acc {
  double min[4], max[4]; /* x, y, z, m; min > max: no value yet */
  uint32_t types;        /* bit dims * 7 + type - 1: the codes seen */
  int64_t values;        /* values added */
} pq_geo_acc;

/* Collections nest at most this deep in a value. */
#define PQ_WKB_DEPTH 64

PQ_API void pq_geo_acc_init(pq_geo_acc *a);
/* Adds the WKB value p[0..n) to a (a is left as it was when it is not
** WKB: PQ_CORRUPT, "<label>: <what> at offset <k>"). */
PQ_API int pq_wkb_add(pq_geo_acc *a, const uint8_t *p, size_t n,
                      const char *label, pq_error *err);
PQ_API void pq_geo_acc_merge(pq_geo_acc *into, const pq_geo_acc *a);
/* The type codes a holds, ascending, into codes (room for 28); their
** count. */
PQ_API int pq_geo_acc_codes(const pq_geo_acc *a, int32_t *codes);
/* The name DuckDB gives a type code ("point", "linestring_z", ...), or
** NULL for a code of no type. */
PQ_API const char *pq_geo_type_name(int32_t code);
/* GeospatialStatistics as DuckDB's parquet_metadata casts its geo_bbox
** and geo_types to text: "{'xmin': 10.0, ..., 'zmin': NULL, ...}" (each
** double in the fewest digits that read back to it) and "[point,
** linestring_z]" (a code of no type as its number), appended to out. */
PQ_API void pq_geo_bbox_text(const pq_geo_statistics *g, pq_buf *out);
PQ_API void pq_geo_types_text(const pq_geo_statistics *g, pq_buf *out);

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

/* ---- Worker threads (util/cpu.c) --------------------------------------- */
/* Keeps thread th (a pthread_t, by its address) off the CPU the calling
** thread is on now, where the process may run on another (Linux; nothing
** elsewhere).  For a worker that the caller hands work to and takes it
** back from: the scheduler, waking each where the other runs, can
** otherwise keep both on one CPU taking turns (seen on a 2-CPU machine: no
** migration in 10 s). */
PQ_API void pq_thread_elsewhere(const void *th);

/* ---- Text helpers ------------------------------------------------------ */
/* 1 when p[0..n) is well-formed UTF-8 (no overlongs, no surrogates). */
PQ_API int pq_utf8_valid(const uint8_t *p, size_t n);

/* ---- HTTP responses (http.c) -------------------------------------------
** What a reader of byte ranges over HTTP looks at in a response, parsed
** from the bytes the server sent (the transport is the caller's).  Each
** returns 0, or -1 when the text is not what HTTP allows. */
/* A status line, "HTTP/1.1 206 Partial Content" (CR LF may follow): its
** three-digit code. */
PQ_API int pq_http_status(const char *s, size_t n, int *code);
/* A header line "Name: value" (CR LF may follow): the name, and the value
** without the blanks around it. */
PQ_API int pq_http_header(const char *s, size_t n, const char **name,
                          size_t *nlen, const char **val, size_t *vlen);
/* 1 when a header's name is want, case aside. */
PQ_API int pq_http_name_is(const char *name, size_t n, const char *want);
/* A Content-Range value, "bytes 0-99/1000": the first and last bytes
** (last >= first, below total) and the total (UINT64_MAX for "*"); the
** form "bytes * /1000" of an unsatisfied range gives first and last
** UINT64_MAX.  Numbers are below 2^63. */
PQ_API int pq_http_content_range(const char *s, size_t n, uint64_t *first,
                                 uint64_t *last, uint64_t *total);
/* A multipart/byteranges response, the answer to a request of several
** ranges at once.  pq_http_boundary: the boundary of its Content-Type
** value ("multipart/byteranges; boundary=X", X quoted or not, 1 to 70
** characters).  pq_http_part: the part of body[0..n) at *pos (0 for the
** first: a preamble is skipped), with the boundary b[0..bn): 1 and the
** part's Content-Range (first, last, total as pq_http_content_range, not
** "*") and its first - last + 1 bytes at *data, *pos moved past them; 0
** at the closing boundary; -1 when the body is not such a part (no
** boundary where one must be, a part without one Content-Range, its
** bytes past the end, a header line longer than 4 KiB). */
PQ_API int pq_http_boundary(const char *s, size_t n, const char **b,
                            size_t *bn);
PQ_API int pq_http_part(const uint8_t *body, size_t n, const char *b,
                        size_t bn, size_t *pos, uint64_t *first,
                        uint64_t *last, uint64_t *total,
                        const uint8_t **data);
/* S3's ListObjectsV2 response, x[0..n): pq_s3_list_field gives the text of
** the first <tag> (IsTruncated, NextContinuationToken), pq_s3_list_key the
** <Key> of the next <Contents> from *pos on (*pos moved past it); both
** with XML's entities decoded, into out (room cap, a NUL after, *len
** bytes before it).  0: found; 1: none; -1: not well-formed, or longer
** than cap. */
PQ_API int pq_s3_list_field(const char *x, size_t n, const char *tag,
                            char *out, size_t cap, size_t *len);
PQ_API int pq_s3_list_key(const char *x, size_t n, size_t *pos, char *out,
                          size_t cap, size_t *len);

#ifdef __cplusplus
}
#endif
#endif /* PARQUET_CORE_H */
