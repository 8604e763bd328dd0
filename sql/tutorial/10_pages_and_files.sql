-- 10_pages_and_files.sql: encoded streams in pages, pages in a file.
--   sqlite3 < sql/tutorial/10_pages_and_files.sql
--
-- Spec: README.md (the file format) and parquet.thrift.  A file is "PAR1",
-- column chunks of pages, the footer (FileMetaData, Thrift compact) and its
-- length, "PAR1".  A data page is a header, then repetition levels,
-- definition levels and the values, each a stream of the encodings the
-- earlier scripts show.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- Nine values, one NULL, in pages of at most 4 entries, DELTA_BINARY_PACKED
-- and ZSTD: a file of one column, as a BLOB.
CREATE TEMP TABLE f AS
  SELECT parquet_file(v, 'DELTA_BINARY_PACKED', 'INT64',
                      '{"page_values":4,"codec":"ZSTD"}') AS file
    FROM (SELECT column1 AS v FROM (VALUES (7),(5),(NULL),(3),(1),(2),(3),(4),(5)));
SELECT length(file) AS bytes, hex(substr(file, 1, 4)) AS head,
       hex(substr(file, -4)) AS tail FROM f;

-- Its pages: 4 + 4 + 1 entries; the first has the NULL, so 3 values.
SELECT page, page_type, encoding, num_values, num_nulls, value_count, codec,
       compressed_size, uncompressed_size, stats_min, stats_max
  FROM parquet_pages((SELECT file FROM f));

-- Each page's values stream, decompressed, is a DELTA_BINARY_PACKED stream:
-- parquet_values decodes it with the options the page gives.
SELECT p.page, hex(p.data) AS data, p.options, v.idx, v.value
  FROM parquet_pages((SELECT file FROM f)) p,
       parquet_values(p.data, p.encoding, p.type, p.options, p.dictionary) v;

-- The definition levels say where the NULL is: an RLE stream of bit width 1
-- behind its 4-byte length (v1 pages).
SELECT p.page, hex(p.def_levels) AS def_levels, l.idx, l.value AS level
  FROM parquet_pages((SELECT file FROM f)) p,
       parquet_values(p.def_levels, 'RLE', 'INT32', p.def_options) l
 WHERE p.page = 0;

-- The footer: the chunk and the schema.
SELECT row_group_id, path_in_schema, type, compression, encodings, num_values,
       stats_min_value, stats_max_value, stats_null_count
  FROM parquet_metadata((SELECT file FROM f));
SELECT name, type, repetition_type, max_definition_level
  FROM parquet_schema((SELECT file FROM f));

-- And the rows again.
SELECT parquet_decode(file) AS rows FROM f;

-- A dictionary-encoded chunk starts with its dictionary page; the data
-- pages hold indices, which parquet_values turns back into values with the
-- page's dictionary.
CREATE TEMP TABLE d AS
  SELECT parquet_file(v, 'RLE_DICTIONARY', NULL, '{"page_values":3}') AS file
    FROM (SELECT column1 AS v FROM (VALUES ('red'),('green'),('red'),('red'),('blue')));
SELECT page, page_type, encoding, num_values, hex(data) AS data, hex(dictionary) AS dictionary
  FROM parquet_pages((SELECT file FROM d));
SELECT p.page, v.value
  FROM parquet_pages((SELECT file FROM d)) p,
       parquet_values(p.data, p.encoding, p.type, p.options, p.dictionary) v
 WHERE p.page_type != 'DICTIONARY_PAGE';

-- The experiment of the other scripts, at the file level: 10000 prices
-- under a few encodings and codecs, v2 pages.
CREATE TEMP TABLE prices AS
  WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 10000)
  SELECT i, round(100 + (i % 97) * 0.25 + (i % 13) * 0.01, 2) AS price FROM s;
SELECT e.column1 AS encoding, c.column1 AS codec,
       length(parquet_file(p.price, e.column1, 'DOUBLE',
                           json_object('codec', c.column1, 'page_version', 2))) AS bytes
  FROM (VALUES ('PLAIN'), ('RLE_DICTIONARY'), ('BYTE_STREAM_SPLIT')) e,
       (VALUES ('UNCOMPRESSED'), ('SNAPPY'), ('ZSTD')) c,
       (SELECT price FROM prices ORDER BY i) p
 GROUP BY e.column1, c.column1 ORDER BY e.column1, c.column1;

-- Every byte of a file, explained (here a few of its rows): the dictionary
-- page of the file d above and its three entries, then each data page's
-- indices, shown with the values they stand for.
SELECT offset, length, path, value
  FROM parquet_explain((SELECT file FROM d), 'FILE')
 WHERE path LIKE '%.header.type' OR path LIKE '%.values.%' OR path = 'magic';
