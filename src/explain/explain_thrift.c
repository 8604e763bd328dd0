/*
** explain_thrift.c -- Thrift compact protocol structures explained field
** by field: page headers, the footer's FileMetaData, page indexes, bloom
** filter headers, with the field names of parquet.thrift.
**
**   footer.version                 field header and value: one row
**   footer.schema                  field header and list header: one row
**   footer.schema[0].name          a field of a struct in the list
**   footer.schema[0].stop          the 0x00 that ends the struct
**   footer.row_groups[0].columns[0].meta_data.encodings[1]
**                                  an element of a list of scalars
**
** The bits column shows a field's header: (id delta << 4) | type, labels
** "ddddtttt"; a delta of 0 is followed by the id as a zigzag varint
** ("iiiiiiii").  A list header is (size << 4) | element type ("sssseeee"),
** a size of 15 followed by the size as ULEB128 ("nnnnnnnn").
**
** The walk is a state machine with an explicit stack of frames (structs,
** lists) bounded by EX_DEPTH: each step makes one row.  It reads with the
** reader's own functions (thrift.c) and makes the checks the reader
** makes (metadata.c, page.c) at the same places, so a fault is told where
** and in the words with which a reader rejects the bytes.  Fields the
** table does not know are skipped with pq_thrift_skip, in one row.
*/
#include <stdio.h>

#include "explain.h"

/* ---- The structures of parquet.thrift ------------------------------------ */

enum {
  S_EMPTY,
  S_FILE_META,
  S_SCHEMA,
  S_LOGICAL,
  S_DECIMAL,
  S_TIME,
  S_TIME_UNIT,
  S_INT,
  S_VARIANT,
  S_GEOMETRY,
  S_GEOGRAPHY,
  S_ROW_GROUP,
  S_SORTING,
  S_CHUNK,
  S_CRYPTO,
  S_COLUMN_KEY,
  S_COLUMN_META,
  S_KEY_VALUE,
  S_STATS,
  S_ENC_STATS,
  S_SIZE_STATS,
  S_GEO_STATS,
  S_BBOX,
  S_COLUMN_ORDER,
  S_ENC_ALGO,
  S_AES,
  S_PAGE_HEADER,
  S_DATA_HEADER,
  S_DICT_HEADER,
  S_DATA_HEADER_V2,
  S_OFFSET_INDEX,
  S_PAGE_LOCATION,
  S_COLUMN_INDEX,
  S_BLOOM,
  S_BLOOM_ALGO,
  S_BLOOM_HASH,
  S_BLOOM_COMP,
  S_COUNT
};

/* Enums whose values get their names. */
enum {
  E_NONE,
  E_TYPE,
  E_ENCODING,
  E_CODEC,
  E_PAGE_TYPE,
  E_REPETITION,
  E_CONVERTED,
  E_BOUNDARY,
  E_EDGE
};

/* How the reader reads a field. */
enum {
  F_READ = 1,  /* an i32 it reads with pq_thrift_i32: out of range is a fault */
  F_FORCE = 2, /* a list whose elements it reads as the type it expects,
               ** whatever the list header says */
  F_STRUCTS = 4 /* a list that must hold structs (if any): else a fault */
};

/* Checks the reader makes of a value, and their messages. */
enum {
  CK_NONE,
  CK_SCHEMA_TYPE,
  CK_REPETITION,
  CK_CHILDREN,
  CK_COLUMN_TYPE,
  CK_LIST_SCHEMA,
  CK_LIST_ROW_GROUPS,
  CK_LIST_COLUMNS,
  CK_LIST_KEY_VALUE
};

static const char *const check_msg[] = {
    "",
    "schema: unknown physical type",
    "schema: unknown repetition type",
    "schema: a negative number of children",
    "column metadata: unknown physical type",
    "Thrift: the schema is not a list of structs",
    "Thrift: row groups are not a list of structs",
    "Thrift: columns are not a list of structs",
    "Thrift: key/value metadata is not a list of structs",
};

typedef struct tfield {
  int16_t id;
  uint8_t type;  /* PQ_TT_*; PQ_TT_TRUE for a bool */
  uint8_t elem;  /* a list's element type */
  uint8_t sref;  /* a struct's fields, or its elements' */
  uint8_t en;    /* E_*: an i32 (or its elements) names an enum value */
  uint8_t flags; /* F_* */
  uint8_t check; /* CK_* */
  const char *name;
  const char *tname; /* the struct's name */
} tfield;

typedef struct tstruct {
  const tfield *f;
  int n;
  int16_t required; /* a field the reader cannot do without, or 0 */
  const char *missing;
} tstruct;

#define SCALAR(id, t, name) \
  { id, t, 0, 0, 0, 0, 0, name, NULL }
#define I32(id, name, fl, en, ck) \
  { id, PQ_TT_I32, 0, 0, en, fl, ck, name, NULL }
#define STRUCT(id, name, s, tn) \
  { id, PQ_TT_STRUCT, 0, s, 0, 0, 0, name, tn }
#define LIST(id, name, et, s, en, fl, ck, tn) \
  { id, PQ_TT_LIST, et, s, en, fl, ck, name, tn }
#define BOOL PQ_TT_TRUE

static const tfield f_file_meta[] = {
    I32(1, "version", F_READ, E_NONE, CK_NONE),
    LIST(2, "schema", PQ_TT_STRUCT, S_SCHEMA, 0, F_STRUCTS, CK_LIST_SCHEMA,
         "SchemaElement"),
    SCALAR(3, PQ_TT_I64, "num_rows"),
    LIST(4, "row_groups", PQ_TT_STRUCT, S_ROW_GROUP, 0, F_STRUCTS,
         CK_LIST_ROW_GROUPS, "RowGroup"),
    LIST(5, "key_value_metadata", PQ_TT_STRUCT, S_KEY_VALUE, 0, F_STRUCTS,
         CK_LIST_KEY_VALUE, "KeyValue"),
    SCALAR(6, PQ_TT_BINARY, "created_by"),
    LIST(7, "column_orders", PQ_TT_STRUCT, S_COLUMN_ORDER, 0, 0, 0,
         "ColumnOrder"),
    STRUCT(8, "encryption_algorithm", S_ENC_ALGO, "EncryptionAlgorithm"),
    SCALAR(9, PQ_TT_BINARY, "footer_signing_key_metadata"),
};

static const tfield f_schema[] = {
    I32(1, "type", F_READ, E_TYPE, CK_SCHEMA_TYPE),
    I32(2, "type_length", F_READ, E_NONE, CK_NONE),
    I32(3, "repetition_type", F_READ, E_REPETITION, CK_REPETITION),
    SCALAR(4, PQ_TT_BINARY, "name"),
    I32(5, "num_children", F_READ, E_NONE, CK_CHILDREN),
    I32(6, "converted_type", F_READ, E_CONVERTED, CK_NONE),
    I32(7, "scale", F_READ, E_NONE, CK_NONE),
    I32(8, "precision", F_READ, E_NONE, CK_NONE),
    I32(9, "field_id", F_READ, E_NONE, CK_NONE),
    STRUCT(10, "logicalType", S_LOGICAL, "LogicalType"),
};

static const tfield f_logical[] = {
    STRUCT(1, "STRING", S_EMPTY, "StringType"),
    STRUCT(2, "MAP", S_EMPTY, "MapType"),
    STRUCT(3, "LIST", S_EMPTY, "ListType"),
    STRUCT(4, "ENUM", S_EMPTY, "EnumType"),
    STRUCT(5, "DECIMAL", S_DECIMAL, "DecimalType"),
    STRUCT(6, "DATE", S_EMPTY, "DateType"),
    STRUCT(7, "TIME", S_TIME, "TimeType"),
    STRUCT(8, "TIMESTAMP", S_TIME, "TimestampType"),
    STRUCT(10, "INTEGER", S_INT, "IntType"),
    STRUCT(11, "UNKNOWN", S_EMPTY, "NullType"),
    STRUCT(12, "JSON", S_EMPTY, "JsonType"),
    STRUCT(13, "BSON", S_EMPTY, "BsonType"),
    STRUCT(14, "UUID", S_EMPTY, "UUIDType"),
    STRUCT(15, "FLOAT16", S_EMPTY, "Float16Type"),
    STRUCT(16, "VARIANT", S_VARIANT, "VariantType"),
    STRUCT(17, "GEOMETRY", S_GEOMETRY, "GeometryType"),
    STRUCT(18, "GEOGRAPHY", S_GEOGRAPHY, "GeographyType"),
    STRUCT(19, "FILE", S_EMPTY, "FileType"),
};

static const tfield f_decimal[] = {
    I32(1, "scale", F_READ, E_NONE, CK_NONE),
    I32(2, "precision", F_READ, E_NONE, CK_NONE),
};

static const tfield f_time[] = {
    SCALAR(1, BOOL, "isAdjustedToUTC"),
    STRUCT(2, "unit", S_TIME_UNIT, "TimeUnit"),
};

static const tfield f_time_unit[] = {
    STRUCT(1, "MILLIS", S_EMPTY, "MilliSeconds"),
    STRUCT(2, "MICROS", S_EMPTY, "MicroSeconds"),
    STRUCT(3, "NANOS", S_EMPTY, "NanoSeconds"),
};

static const tfield f_int[] = {
    SCALAR(1, PQ_TT_BYTE, "bitWidth"),
    SCALAR(2, BOOL, "isSigned"),
};

static const tfield f_variant[] = {
    SCALAR(1, PQ_TT_BYTE, "specification_version"),
};

static const tfield f_geometry[] = {
    SCALAR(1, PQ_TT_BINARY, "crs"),
};

static const tfield f_geography[] = {
    SCALAR(1, PQ_TT_BINARY, "crs"),
    I32(2, "algorithm", 0, E_EDGE, CK_NONE),
};

static const tfield f_row_group[] = {
    LIST(1, "columns", PQ_TT_STRUCT, S_CHUNK, 0, F_STRUCTS, CK_LIST_COLUMNS,
         "ColumnChunk"),
    SCALAR(2, PQ_TT_I64, "total_byte_size"),
    SCALAR(3, PQ_TT_I64, "num_rows"),
    LIST(4, "sorting_columns", PQ_TT_STRUCT, S_SORTING, 0, 0, 0,
         "SortingColumn"),
    SCALAR(5, PQ_TT_I64, "file_offset"),
    SCALAR(6, PQ_TT_I64, "total_compressed_size"),
    SCALAR(7, PQ_TT_I16, "ordinal"),
};

static const tfield f_sorting[] = {
    I32(1, "column_idx", 0, E_NONE, CK_NONE),
    SCALAR(2, BOOL, "descending"),
    SCALAR(3, BOOL, "nulls_first"),
};

static const tfield f_chunk[] = {
    SCALAR(1, PQ_TT_BINARY, "file_path"),
    SCALAR(2, PQ_TT_I64, "file_offset"),
    STRUCT(3, "meta_data", S_COLUMN_META, "ColumnMetaData"),
    SCALAR(4, PQ_TT_I64, "offset_index_offset"),
    I32(5, "offset_index_length", F_READ, E_NONE, CK_NONE),
    SCALAR(6, PQ_TT_I64, "column_index_offset"),
    I32(7, "column_index_length", F_READ, E_NONE, CK_NONE),
    STRUCT(8, "crypto_metadata", S_CRYPTO, "ColumnCryptoMetaData"),
    SCALAR(9, PQ_TT_BINARY, "encrypted_column_metadata"),
};

static const tfield f_crypto[] = {
    STRUCT(1, "ENCRYPTION_WITH_FOOTER_KEY", S_EMPTY, "EncryptionWithFooterKey"),
    STRUCT(2, "ENCRYPTION_WITH_COLUMN_KEY", S_COLUMN_KEY,
           "EncryptionWithColumnKey"),
};

static const tfield f_column_key[] = {
    LIST(1, "path_in_schema", PQ_TT_BINARY, 0, 0, 0, 0, NULL),
    SCALAR(2, PQ_TT_BINARY, "key_metadata"),
};

static const tfield f_column_meta[] = {
    I32(1, "type", F_READ, E_TYPE, CK_COLUMN_TYPE),
    LIST(2, "encodings", PQ_TT_I32, 0, E_ENCODING, F_FORCE | F_READ, 0, NULL),
    LIST(3, "path_in_schema", PQ_TT_BINARY, 0, 0, F_FORCE, 0, NULL),
    I32(4, "codec", F_READ, E_CODEC, CK_NONE),
    SCALAR(5, PQ_TT_I64, "num_values"),
    SCALAR(6, PQ_TT_I64, "total_uncompressed_size"),
    SCALAR(7, PQ_TT_I64, "total_compressed_size"),
    LIST(8, "key_value_metadata", PQ_TT_STRUCT, S_KEY_VALUE, 0, F_STRUCTS,
         CK_LIST_KEY_VALUE, "KeyValue"),
    SCALAR(9, PQ_TT_I64, "data_page_offset"),
    SCALAR(10, PQ_TT_I64, "index_page_offset"),
    SCALAR(11, PQ_TT_I64, "dictionary_page_offset"),
    STRUCT(12, "statistics", S_STATS, "Statistics"),
    LIST(13, "encoding_stats", PQ_TT_STRUCT, S_ENC_STATS, 0, 0, 0,
         "PageEncodingStats"),
    SCALAR(14, PQ_TT_I64, "bloom_filter_offset"),
    I32(15, "bloom_filter_length", F_READ, E_NONE, CK_NONE),
    STRUCT(16, "size_statistics", S_SIZE_STATS, "SizeStatistics"),
    STRUCT(17, "geospatial_statistics", S_GEO_STATS, "GeospatialStatistics"),
};

static const tfield f_key_value[] = {
    SCALAR(1, PQ_TT_BINARY, "key"),
    SCALAR(2, PQ_TT_BINARY, "value"),
};

static const tfield f_stats[] = {
    SCALAR(1, PQ_TT_BINARY, "max"),
    SCALAR(2, PQ_TT_BINARY, "min"),
    SCALAR(3, PQ_TT_I64, "null_count"),
    SCALAR(4, PQ_TT_I64, "distinct_count"),
    SCALAR(5, PQ_TT_BINARY, "max_value"),
    SCALAR(6, PQ_TT_BINARY, "min_value"),
    SCALAR(7, BOOL, "is_max_value_exact"),
    SCALAR(8, BOOL, "is_min_value_exact"),
    SCALAR(9, PQ_TT_I64, "nan_count"),
};

static const tfield f_enc_stats[] = {
    I32(1, "page_type", 0, E_PAGE_TYPE, CK_NONE),
    I32(2, "encoding", 0, E_ENCODING, CK_NONE),
    I32(3, "count", 0, E_NONE, CK_NONE),
};

static const tfield f_size_stats[] = {
    SCALAR(1, PQ_TT_I64, "unencoded_byte_array_data_bytes"),
    LIST(2, "repetition_level_histogram", PQ_TT_I64, 0, 0, 0, 0, NULL),
    LIST(3, "definition_level_histogram", PQ_TT_I64, 0, 0, 0, 0, NULL),
};

static const tfield f_geo_stats[] = {
    STRUCT(1, "bbox", S_BBOX, "BoundingBox"),
    LIST(2, "geospatial_types", PQ_TT_I32, 0, 0, 0, 0, NULL),
};

static const tfield f_bbox[] = {
    SCALAR(1, PQ_TT_DOUBLE, "xmin"), SCALAR(2, PQ_TT_DOUBLE, "xmax"),
    SCALAR(3, PQ_TT_DOUBLE, "ymin"), SCALAR(4, PQ_TT_DOUBLE, "ymax"),
    SCALAR(5, PQ_TT_DOUBLE, "zmin"), SCALAR(6, PQ_TT_DOUBLE, "zmax"),
    SCALAR(7, PQ_TT_DOUBLE, "mmin"), SCALAR(8, PQ_TT_DOUBLE, "mmax"),
};

static const tfield f_column_order[] = {
    STRUCT(1, "TYPE_ORDER", S_EMPTY, "TypeDefinedOrder"),
    STRUCT(2, "IEEE_754_TOTAL_ORDER", S_EMPTY, "IEEE754TotalOrder"),
    STRUCT(3, "INT96_TIMESTAMP_ORDER", S_EMPTY, "Int96TimestampOrder"),
};

static const tfield f_enc_algo[] = {
    STRUCT(1, "AES_GCM_V1", S_AES, "AesGcmV1"),
    STRUCT(2, "AES_GCM_CTR_V1", S_AES, "AesGcmCtrV1"),
};

static const tfield f_aes[] = {
    SCALAR(1, PQ_TT_BINARY, "aad_prefix"),
    SCALAR(2, PQ_TT_BINARY, "aad_file_unique"),
    SCALAR(3, BOOL, "supply_aad_prefix"),
};

static const tfield f_page_header[] = {
    I32(1, "type", F_READ, E_PAGE_TYPE, CK_NONE),
    I32(2, "uncompressed_page_size", F_READ, E_NONE, CK_NONE),
    I32(3, "compressed_page_size", F_READ, E_NONE, CK_NONE),
    I32(4, "crc", F_READ, E_NONE, CK_NONE),
    STRUCT(5, "data_page_header", S_DATA_HEADER, "DataPageHeader"),
    STRUCT(6, "index_page_header", S_EMPTY, "IndexPageHeader"),
    STRUCT(7, "dictionary_page_header", S_DICT_HEADER, "DictionaryPageHeader"),
    STRUCT(8, "data_page_header_v2", S_DATA_HEADER_V2, "DataPageHeaderV2"),
};

static const tfield f_data_header[] = {
    I32(1, "num_values", F_READ, E_NONE, CK_NONE),
    I32(2, "encoding", F_READ, E_ENCODING, CK_NONE),
    I32(3, "definition_level_encoding", F_READ, E_ENCODING, CK_NONE),
    I32(4, "repetition_level_encoding", F_READ, E_ENCODING, CK_NONE),
    STRUCT(5, "statistics", S_STATS, "Statistics"),
};

static const tfield f_dict_header[] = {
    I32(1, "num_values", F_READ, E_NONE, CK_NONE),
    I32(2, "encoding", F_READ, E_ENCODING, CK_NONE),
    SCALAR(3, BOOL, "is_sorted"),
};

static const tfield f_data_header_v2[] = {
    I32(1, "num_values", F_READ, E_NONE, CK_NONE),
    I32(2, "num_nulls", F_READ, E_NONE, CK_NONE),
    I32(3, "num_rows", F_READ, E_NONE, CK_NONE),
    I32(4, "encoding", F_READ, E_ENCODING, CK_NONE),
    I32(5, "definition_levels_byte_length", F_READ, E_NONE, CK_NONE),
    I32(6, "repetition_levels_byte_length", F_READ, E_NONE, CK_NONE),
    SCALAR(7, BOOL, "is_compressed"),
    STRUCT(8, "statistics", S_STATS, "Statistics"),
};

static const tfield f_offset_index[] = {
    LIST(1, "page_locations", PQ_TT_STRUCT, S_PAGE_LOCATION, 0, 0, 0,
         "PageLocation"),
    LIST(2, "unencoded_byte_array_data_bytes", PQ_TT_I64, 0, 0, 0, 0, NULL),
};

static const tfield f_page_location[] = {
    SCALAR(1, PQ_TT_I64, "offset"),
    I32(2, "compressed_page_size", 0, E_NONE, CK_NONE),
    SCALAR(3, PQ_TT_I64, "first_row_index"),
};

static const tfield f_column_index[] = {
    LIST(1, "null_pages", BOOL, 0, 0, 0, 0, NULL),
    LIST(2, "min_values", PQ_TT_BINARY, 0, 0, 0, 0, NULL),
    LIST(3, "max_values", PQ_TT_BINARY, 0, 0, 0, 0, NULL),
    I32(4, "boundary_order", 0, E_BOUNDARY, CK_NONE),
    LIST(5, "null_counts", PQ_TT_I64, 0, 0, 0, 0, NULL),
    LIST(6, "repetition_level_histograms", PQ_TT_I64, 0, 0, 0, 0, NULL),
    LIST(7, "definition_level_histograms", PQ_TT_I64, 0, 0, 0, 0, NULL),
    LIST(8, "nan_counts", PQ_TT_I64, 0, 0, 0, 0, NULL),
};

static const tfield f_bloom[] = {
    I32(1, "numBytes", 0, E_NONE, CK_NONE),
    STRUCT(2, "algorithm", S_BLOOM_ALGO, "BloomFilterAlgorithm"),
    STRUCT(3, "hash", S_BLOOM_HASH, "BloomFilterHash"),
    STRUCT(4, "compression", S_BLOOM_COMP, "BloomFilterCompression"),
};

static const tfield f_bloom_algo[] = {
    STRUCT(1, "BLOCK", S_EMPTY, "SplitBlockAlgorithm"),
};
static const tfield f_bloom_hash[] = {
    STRUCT(1, "XXHASH", S_EMPTY, "XxHash"),
};
static const tfield f_bloom_comp[] = {
    STRUCT(1, "UNCOMPRESSED", S_EMPTY, "Uncompressed"),
};

#define FIELDS(a) a, (int)(sizeof a / sizeof a[0])

static const tstruct structs[S_COUNT] = {
    [S_EMPTY] = {NULL, 0, 0, NULL},
    [S_FILE_META] = {FIELDS(f_file_meta), 2, "the file metadata has no schema"},
    [S_SCHEMA] = {FIELDS(f_schema), 4, "schema: an element has no name"},
    [S_LOGICAL] = {FIELDS(f_logical), 0, NULL},
    [S_DECIMAL] = {FIELDS(f_decimal), 0, NULL},
    [S_TIME] = {FIELDS(f_time), 0, NULL},
    [S_TIME_UNIT] = {FIELDS(f_time_unit), 0, NULL},
    [S_INT] = {FIELDS(f_int), 0, NULL},
    [S_VARIANT] = {FIELDS(f_variant), 0, NULL},
    [S_GEOMETRY] = {FIELDS(f_geometry), 0, NULL},
    [S_GEOGRAPHY] = {FIELDS(f_geography), 0, NULL},
    [S_ROW_GROUP] = {FIELDS(f_row_group), 0, NULL},
    [S_SORTING] = {FIELDS(f_sorting), 0, NULL},
    [S_CHUNK] = {FIELDS(f_chunk), 0, NULL},
    [S_CRYPTO] = {FIELDS(f_crypto), 0, NULL},
    [S_COLUMN_KEY] = {FIELDS(f_column_key), 0, NULL},
    [S_COLUMN_META] = {FIELDS(f_column_meta), 0, NULL},
    [S_KEY_VALUE] = {FIELDS(f_key_value), 0, NULL},
    [S_STATS] = {FIELDS(f_stats), 0, NULL},
    [S_ENC_STATS] = {FIELDS(f_enc_stats), 0, NULL},
    [S_SIZE_STATS] = {FIELDS(f_size_stats), 0, NULL},
    [S_GEO_STATS] = {FIELDS(f_geo_stats), 0, NULL},
    [S_BBOX] = {FIELDS(f_bbox), 0, NULL},
    [S_COLUMN_ORDER] = {FIELDS(f_column_order), 0, NULL},
    [S_ENC_ALGO] = {FIELDS(f_enc_algo), 0, NULL},
    [S_AES] = {FIELDS(f_aes), 0, NULL},
    [S_PAGE_HEADER] = {FIELDS(f_page_header), 0, NULL},
    [S_DATA_HEADER] = {FIELDS(f_data_header), 0, NULL},
    [S_DICT_HEADER] = {FIELDS(f_dict_header), 0, NULL},
    [S_DATA_HEADER_V2] = {FIELDS(f_data_header_v2), 0, NULL},
    [S_OFFSET_INDEX] = {FIELDS(f_offset_index), 0, NULL},
    [S_PAGE_LOCATION] = {FIELDS(f_page_location), 0, NULL},
    [S_COLUMN_INDEX] = {FIELDS(f_column_index), 0, NULL},
    [S_BLOOM] = {FIELDS(f_bloom), 0, NULL},
    [S_BLOOM_ALGO] = {FIELDS(f_bloom_algo), 0, NULL},
    [S_BLOOM_HASH] = {FIELDS(f_bloom_hash), 0, NULL},
    [S_BLOOM_COMP] = {FIELDS(f_bloom_comp), 0, NULL},
};

/* ---- Names --------------------------------------------------------------- */

static const char *const tt_names[] = {
    "stop",   "bool",   "bool", "byte", "i16", "i32",   "i64",
    "double", "binary", "list", "set",  "map", "struct"};

static const char *type_name(int t) {
  return t >= 0 && t <= PQ_TT_STRUCT ? tt_names[t] : "?";
}

static const char *const page_types[] = {"DATA_PAGE", "INDEX_PAGE",
                                         "DICTIONARY_PAGE", "DATA_PAGE_V2"};
static const char *const repetitions[] = {"REQUIRED", "OPTIONAL", "REPEATED"};
static const char *const converted[] = {"UTF8",
                                        "MAP",
                                        "MAP_KEY_VALUE",
                                        "LIST",
                                        "ENUM",
                                        "DECIMAL",
                                        "DATE",
                                        "TIME_MILLIS",
                                        "TIME_MICROS",
                                        "TIMESTAMP_MILLIS",
                                        "TIMESTAMP_MICROS",
                                        "UINT_8",
                                        "UINT_16",
                                        "UINT_32",
                                        "UINT_64",
                                        "INT_8",
                                        "INT_16",
                                        "INT_32",
                                        "INT_64",
                                        "JSON",
                                        "BSON",
                                        "INTERVAL"};
static const char *const boundaries[] = {"UNORDERED", "ASCENDING",
                                         "DESCENDING"};
static const char *const edges[] = {"SPHERICAL", "VINCENTY", "THOMAS",
                                    "ANDOYER", "KARNEY"};

#define PICK(a, v) \
  ((v) >= 0 && (v) < (int64_t)(sizeof a / sizeof a[0]) ? a[v] : NULL)

/* The name of value v of enum en, or NULL. */
static const char *enum_name(int en, int64_t v) {
  switch (en) {
    case E_TYPE:
      return v >= 0 && v <= PQ_FIXED_LEN_BYTE_ARRAY ? pq_type_name((pq_type)v)
                                                    : NULL;
    case E_ENCODING:
      return v >= 0 && v < PQ_ENCODING_COUNT ? pq_encoding_name((pq_encoding)v)
                                             : NULL;
    case E_CODEC:
      return v >= 0 && v < PQ_CODEC_COUNT ? pq_codec_name((pq_codec)v) : NULL;
    case E_PAGE_TYPE: return PICK(page_types, v);
    case E_REPETITION: return PICK(repetitions, v);
    case E_CONVERTED: return PICK(converted, v);
    case E_BOUNDARY: return PICK(boundaries, v);
    case E_EDGE: return PICK(edges, v);
    default: return NULL;
  }
}

/* ---- The walk ------------------------------------------------------------ */

static const tfield *find_field(int sref, int16_t id) {
  const tstruct *s = &structs[sref];
  for (int i = 0; i < s->n; i++) {
    if (s->f[i].id == id) return &s->f[i];
  }
  return NULL;
}

/* Appends to the path (cut short at its end, never past it). */
static void path_add(ex_thrift *w, const char *fmt, ...) PQ_PRINTF(2, 3);
static void path_add(ex_thrift *w, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(w->path + w->plen, sizeof w->path - w->plen, fmt, ap);
  va_end(ap);
  if (k > 0) w->plen += (size_t)k;
  if (w->plen >= sizeof w->path) w->plen = sizeof w->path - 1;
}

static void path_cut(ex_thrift *w, size_t n) {
  w->plen = n;
  w->path[n] = 0;
}

/* Pushes a frame; 0 when the stack is full (a fault). */
static ex_frame *push(ex_thrift *w) {
  if (w->depth == EX_DEPTH) {
    pq_thrift_fail(&w->t, "Thrift: structures nest too deep");
    return NULL;
  }
  ex_frame *fr = &w->st[w->depth++];
  memset(fr, 0, sizeof *fr);
  fr->plen = w->plen;
  return fr;
}

/* Enters a struct of fields sref; 0 at a fault. */
static int push_struct(ex_thrift *w, int sref, const char *tname, int enter) {
  if (enter && !pq_thrift_enter(&w->t)) return 0;
  ex_frame *fr = push(w);
  if (!fr) return 0;
  fr->sref = sref;
  fr->tname = tname;
  fr->entered = enter;
  return 1;
}

void ex_thrift_init(ex_thrift *w, pq_explainer *x, size_t at, size_t end,
                    int root, const char *prefix, const char *label) {
  static const struct {
    int sref;
    const char *tname;
    int enter; /* the reader counts the outermost struct as a level */
  } roots[] = {
      [EX_FILE_META] = {S_FILE_META, "FileMetaData", 1},
      [EX_PAGE_HEADER] = {S_PAGE_HEADER, "PageHeader", 0},
      [EX_COLUMN_INDEX] = {S_COLUMN_INDEX, "ColumnIndex", 1},
      [EX_OFFSET_INDEX] = {S_OFFSET_INDEX, "OffsetIndex", 1},
      [EX_BLOOM_HEADER] = {S_BLOOM, "BloomFilterHeader", 1},
      [EX_COLUMN_CHUNK] = {S_CHUNK, "ColumnChunk", 1},
      [EX_COLUMN_META] = {S_COLUMN_META, "ColumnMetaData", 1},
  };
  memset(w, 0, sizeof *w);
  pq_thrift_init(&w->t, x->buf + at, end - at, at, label, &w->err);
  path_add(w, "%s", prefix);
  push_struct(w, roots[root].sref, roots[root].tname, roots[root].enter);
}

static int fault(ex_thrift *w) {
  w->fault_at = w->t.base + w->t.pos;
  return -1;
}

/* The bytes at p[0..n) as "0x06 0x01". */
static void hex_list(char *out, size_t cap, const uint8_t *p, size_t n) {
  size_t k = 0;
  out[0] = 0;
  for (size_t i = 0; i < n && i < 10 && k + 6 < cap; i++) {
    k += (size_t)snprintf(out + k, cap - k, "%s0x%02X", i ? " " : "", p[i]);
  }
}

/* Bits and labels of a field header at t.buf[at..hdr), and the start of
** the note: "field 3 (delta +1), i32". */
static void field_head(ex_thrift *w, pq_field *f, size_t at, size_t hdr,
                       int16_t id, int16_t prev, int type) {
  const uint8_t *p = w->t.buf + at;
  ex_bits_bytes(f, p, hdr - at);
  char *o = f->labels;
  o += sprintf(o, "ddddtttt");
  for (size_t i = 1; i < hdr - at && i < 8; i++) o += sprintf(o, " iiiiiiii");
  if (p[0] >> 4) {
    ex_note(f, "field %d (delta +%d), %s", id, id - prev, type_name(type));
  } else {
    char h[64];
    hex_list(h, sizeof h, p + 1, hdr - at - 1);
    ex_note(f, "field %d (delta 0: the id follows, zigzag varint %s), %s", id,
            h, type_name(type));
  }
}

/* Binary that reads as text: UTF-8 without control characters but for
** tabs and line ends (a statistic's little-endian number is bytes). */
static int is_text(pq_bytes b) {
  for (size_t i = 0; i < b.len; i++) {
    uint8_t c = b.ptr[i];
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
      return 0;
    }
  }
  return pq_utf8_valid(b.ptr, b.len);
}

/* Reads a scalar of wire type `type` (a list element when in_list) and
** sets f's value and a description of it in d.  0 at a fault. */
static int read_scalar(ex_thrift *w, pq_field *f, const tfield *fd, int type,
                       int in_list, char *d, size_t cap, int64_t *iv) {
  pq_thrift *t = &w->t;
  size_t at = t->pos;
  char h[64];
  *iv = 0;
  switch (type) {
    case PQ_TT_TRUE:
    case PQ_TT_FALSE:
      if (in_list) {
        int b = pq_thrift_byte(t);
        if (t->failed) return 0;
        f->kind = PQ_FV_INT;
        f->i = b == 1;
        snprintf(d, cap, "byte 0x%02X = %s (1 is true)", b,
                 b == 1 ? "true" : "false");
      } else {
        f->kind = PQ_FV_INT;
        f->i = type == PQ_TT_TRUE;
        snprintf(d, cap, "%s (the value is the type: 1 true, 2 false)",
                 type == PQ_TT_TRUE ? "true" : "false");
      }
      *iv = f->i;
      return 1;
    case PQ_TT_BYTE: {
      int b = pq_thrift_byte(t);
      if (t->failed) return 0;
      f->kind = PQ_FV_INT;
      f->i = (int8_t)b;
      snprintf(d, cap, "0x%02X = %d", b, (int)(int8_t)b);
      *iv = f->i;
      return 1;
    }
    case PQ_TT_I16:
    case PQ_TT_I32:
    case PQ_TT_I64: {
      int64_t v = type == PQ_TT_I32 && fd && (fd->flags & F_READ)
                      ? pq_thrift_i32(t)
                      : pq_thrift_i64(t);
      hex_list(h, sizeof h, t->buf + at, t->pos - at);
      if (t->failed) return 0;
      f->kind = PQ_FV_INT;
      f->i = v;
      *iv = v;
      const char *name = fd ? enum_name(fd->en, v) : NULL;
      snprintf(d, cap, "zigzag varint %s = %lld%s%s", h, (long long)v,
               name ? ": " : "", name ? name : "");
      return 1;
    }
    case PQ_TT_DOUBLE: {
      pq_thrift_skip(t, PQ_TT_DOUBLE);
      if (t->failed) return 0;
      uint64_t u = pq_load64(t->buf + at);
      memcpy(&f->r, &u, 8);
      f->kind = PQ_FV_REAL;
      char v[64];
      ex_describe(v, sizeof v, PQ_DOUBLE, 0, &f->r);
      snprintf(d, cap, "8 bytes, little endian: %s", v);
      return 1;
    }
    case PQ_TT_BINARY: {
      size_t lp = at;
      uint64_t n = 0;
      pq_bytes b = pq_thrift_binary(t);
      if (t->failed) return 0;
      pq_uleb_read(t->buf, t->len, &lp, &n);
      hex_list(h, sizeof h, t->buf + at, lp - at);
      f->kind = PQ_FV_BYTES;
      f->bytes = b.ptr;
      f->nbytes = b.len;
      f->text = is_text(b);
      char v[128];
      ex_describe(v, sizeof v, PQ_BYTE_ARRAY, 0, &b);
      snprintf(d, cap, "ULEB128 length %s = %zu: %s", h, b.len, v);
      return 1;
    }
    default:
      /* Lists of lists, maps: no such fields in parquet.thrift. */
      pq_thrift_skip(t, type);
      if (t->failed) return 0;
      snprintf(d, cap, "%zu bytes, skipped", t->pos - at);
      return 1;
  }
}

/* A row for a field whose value cannot be read: its header, then the
** fault. */
static int head_then_fault(ex_thrift *w, pq_field *f) {
  ex_note_add(f, ": its value cannot be read");
  f->kind = PQ_FV_NONE;
  w->pending = 1;
  return 1;
}

/* The stop of the struct on top. */
static int stop_row(ex_thrift *w, pq_field *f, size_t at) {
  ex_frame *fr = &w->st[w->depth - 1];
  const tstruct *s = &structs[fr->sref];
  ex_row(f, w->t.base + at, 1, "%s.stop", w->path);
  ex_bits_bytes(f, w->t.buf + at, 1);
  ex_note(f, "0x00: stop, the end of %s", fr->tname);
  if (fr->entered) pq_thrift_leave(&w->t);
  if (w->depth == 1) w->root_seen = fr->seen;
  if (s->required &&
      !(fr->seen & (1u << s->required))) { /* the reader fails after it */
    pq_thrift_fail(&w->t, s->missing);
    w->pending = 1;
  }
  w->depth--;
  return 1;
}

/* A list element at t.pos of the list on top (not a struct). */
static int element_row(ex_thrift *w, pq_field *f) {
  ex_frame *fr = &w->st[w->depth - 1];
  const tfield *fd = fr->list;
  size_t at = w->t.pos;
  char d[256];
  int64_t v;
  ex_row(f, w->t.base + at, 0, "%s", w->path);
  if (!read_scalar(w, f, fd, fr->elem, 1, d, sizeof d, &v)) return fault(w);
  f->length = w->t.pos - at;
  ex_note(f, "%s, %s", type_name(fr->elem), d);
  return 1;
}

int ex_thrift_step(ex_thrift *w, pq_field *f) {
  pq_thrift *t = &w->t;
  if (w->pending) {
    w->pending = 0;
    return fault(w);
  }
  while (w->depth > 0) {
    ex_frame *fr = &w->st[w->depth - 1];
    path_cut(w, fr->plen);
    size_t at = t->pos;
    if (fr->list) {
      const tfield *fd = fr->list;
      if (fr->i >= fr->n) {
        if (fr->entered) pq_thrift_leave(t);
        w->depth--;
        continue;
      }
      path_add(w, "[%u]", fr->i++);
      if (fr->elem == PQ_TT_STRUCT) {
        if (!push_struct(w, fd->sref, fd->tname, 1)) return fault(w);
        continue;
      }
      return element_row(w, f);
    }
    int type;
    int16_t id = 0, prev = fr->last;
    int got = pq_thrift_field(t, &type, &fr->last, &id);
    if (t->failed) return fault(w);
    if (!got) return stop_row(w, f, at);
    size_t hdr = t->pos;
    const tfield *fd = find_field(fr->sref, id);
    int want = fd ? fd->type : -1;
    int match =
        fd && (type == want || (want == PQ_TT_TRUE &&
                                (type == PQ_TT_TRUE || type == PQ_TT_FALSE)));
    if (match && id >= 0 && id < 32) fr->seen |= 1u << id;
    if (!match) {
      /* Unknown, or not of the type parquet.thrift gives: skipped, as a
      ** reader of another version does. */
      if (fd) {
        ex_row(f, t->base + at, hdr - at, "%s.%s", w->path, fd->name);
      } else {
        ex_row(f, t->base + at, hdr - at, "%s.field_%d", w->path, id);
      }
      field_head(w, f, at, hdr, id, prev, type);
      pq_thrift_skip(t, type);
      if (t->failed) return head_then_fault(w, f);
      f->length = t->pos - at;
      if (fd) {
        ex_note_add(f,
                    " where %s is %s %s: skipped (%zu bytes), as a reader "
                    "does",
                    fd->name, fd->type == PQ_TT_I32 ? "an" : "a",
                    fd->type == PQ_TT_STRUCT && fd->tname ? fd->tname
                                                          : type_name(fd->type),
                    t->pos - at);
      } else {
        ex_note_add(f,
                    ": not in parquet.thrift as known here, skipped (%zu "
                    "bytes)",
                    t->pos - at);
      }
      return 1;
    }
    ex_row(f, t->base + at, hdr - at, "%s.%s", w->path, fd->name);
    field_head(w, f, at, hdr, id, prev, type);
    if (type == PQ_TT_STRUCT) {
      ex_note_add(f, " %s: its fields follow, then a stop byte", fd->tname);
      path_add(w, ".%s", fd->name);
      if (!push_struct(w, fd->sref, fd->tname, 1)) return head_then_fault(w, f);
      return 1;
    }
    if (type == PQ_TT_LIST) {
      int et;
      uint32_t n = pq_thrift_list(t, &et);
      if (t->failed) return head_then_fault(w, f);
      size_t lh = t->pos;
      ex_bits_bytes(f, t->buf + at, lh - at);
      char *o = f->labels + strlen(f->labels);
      o += sprintf(o, " sssseeee");
      for (size_t i = hdr + 1; i < lh && i < hdr + 8; i++) {
        o += sprintf(o, " nnnnnnnn");
      }
      f->length = lh - at;
      f->kind = PQ_FV_UINT;
      f->u = n;
      char h[64];
      hex_list(h, sizeof h, t->buf + hdr, lh - hdr);
      const char *ename = et == PQ_TT_STRUCT && fd->elem == PQ_TT_STRUCT
                              ? fd->tname
                              : type_name(et);
      ex_note_add(
          f, "; list header %s: %s%u element%s of type %s", h,
          lh - hdr > 1 ? "size 15, so the size follows as ULEB128: " : "", n,
          ex_s(n), ename);
      int elem = et;
      int ok = et == fd->elem || (fd->elem == PQ_TT_TRUE &&
                                  (et == PQ_TT_TRUE || et == PQ_TT_FALSE));
      if (!ok && n > 0) {
        if (fd->flags & F_STRUCTS) {
          pq_thrift_fail(t, check_msg[fd->check]);
          w->pending = 1;
          return 1;
        }
        if (fd->flags & F_FORCE) {
          elem = fd->elem;
          ex_note_add(f, " (read as %s, as a reader does)",
                      type_name(fd->elem));
        } else {
          /* Skipped whole, as a reader does. */
          t->pos = hdr;
          pq_thrift_skip(t, PQ_TT_LIST);
          if (t->failed) return head_then_fault(w, f);
          f->length = t->pos - at;
          ex_note_add(
              f,
              " where %s are expected: skipped (%zu bytes), as a "
              "reader does",
              fd->elem == PQ_TT_STRUCT ? fd->tname : type_name(fd->elem),
              t->pos - at);
          return 1;
        }
      }
      if (n > 0) {
        /* A list the reader only skips counts as a level, as in
        ** pq_thrift_skip. */
        int enter = !(fd->flags & (F_FORCE | F_STRUCTS));
        if (enter && !pq_thrift_enter(t)) return head_then_fault(w, f);
        path_add(w, ".%s", fd->name);
        ex_frame *lf = push(w);
        if (!lf) return head_then_fault(w, f);
        lf->list = fd;
        lf->elem = elem;
        lf->n = n;
        lf->entered = enter;
      }
      return 1;
    }
    /* A scalar: header and value in one row. */
    char d[256];
    int64_t v;
    if (!read_scalar(w, f, fd, type, 0, d, sizeof d, &v)) {
      return head_then_fault(w, f);
    }
    f->length = t->pos - at;
    ex_note_add(f, ", %s", d);
    if (w->depth == 1 && id >= 0 && id < 16 &&
        (type == PQ_TT_I32 || type == PQ_TT_I64 || type == PQ_TT_I16)) {
      w->root_val[id] = v;
      w->root_has |= 1u << id;
    }
    int bad = 0;
    switch (fd->check) {
      case CK_SCHEMA_TYPE:
      case CK_COLUMN_TYPE: bad = v < 0 || v > PQ_FIXED_LEN_BYTE_ARRAY; break;
      case CK_REPETITION: bad = v < 0 || v > 2; break;
      case CK_CHILDREN: bad = v < 0; break;
    }
    if (bad) {
      pq_thrift_fail(t, check_msg[fd->check]);
      w->pending = 1;
    }
    return 1;
  }
  return 0;
}
