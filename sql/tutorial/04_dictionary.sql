-- 04_dictionary.sql: RLE_DICTIONARY (and PLAIN_DICTIONARY, its old name).
--   sqlite3 < sql/tutorial/04_dictionary.sql
--
-- Spec: Encodings.md, "Dictionary Encoding".  The distinct values go once
-- into a PLAIN dictionary; the data holds indices into it: one byte of bit
-- width, then the indices as RLE/bit-packed runs.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

CREATE TEMP TABLE t(i, v);
INSERT INTO t VALUES (0,'paid'),(1,'paid'),(2,'failed'),(3,'paid'),
                     (4,'refunded'),(5,'paid'),(6,'paid'),(7,'paid'),
                     (8,'paid'),(9,'paid'),(10,'paid'),(11,'paid');
CREATE TEMP TABLE enc AS
  SELECT parquet_encode(v, 'RLE_DICTIONARY') AS indices,
         parquet_encode(v, 'RLE_DICTIONARY', NULL, '{"part":"dictionary"}') AS dictionary
    FROM (SELECT v FROM t ORDER BY i);

SELECT hex(indices) AS indices, hex(dictionary) AS dictionary FROM enc;

-- The dictionary: each entry once, in order of first appearance.
SELECT idx, value FROM enc, parquet_values(enc.dictionary, 'PLAIN', 'BYTE_ARRAY');

-- The indices: 3 entries need 2 bits; 8 values bit-packed, then a run.
SELECT offset, hex, path, value, note
  FROM enc, parquet_explain(enc.indices, 'RLE_DICTIONARY', 'BYTE_ARRAY',
                            '{"count":12}', enc.dictionary);

-- Without the dictionary, a reader sees the indices.
SELECT parquet_decode(indices, 'RLE_DICTIONARY', NULL, '{"count":12}') AS indices,
       parquet_decode(indices, 'RLE_DICTIONARY', 'BYTE_ARRAY', '{"count":12}',
                      dictionary) AS values_
  FROM enc;

-- Sizes: both parts, against PLAIN.
SELECT length(indices) + length(dictionary) AS dictionary_bytes,
       (SELECT length(parquet_encode(v, 'PLAIN')) FROM t) AS plain_bytes
  FROM enc;
