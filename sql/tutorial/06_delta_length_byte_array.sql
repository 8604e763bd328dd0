-- 06_delta_length_byte_array.sql: DELTA_LENGTH_BYTE_ARRAY.
--   sqlite3 < sql/tutorial/06_delta_length_byte_array.sql
--
-- Spec: Encodings.md, "Delta-length byte array".  All the lengths first,
-- as DELTA_BINARY_PACKED, then all the bytes back to back.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- The spec's example: "Hello", "World", "Foobar", "ABCDEF" is
-- DeltaEncoding(5, 5, 6, 6) followed by "HelloWorldFoobarABCDEF".
CREATE TEMP TABLE t(i, v);
INSERT INTO t VALUES (0,'Hello'),(1,'World'),(2,'Foobar'),(3,'ABCDEF');
CREATE TEMP TABLE enc AS
  SELECT parquet_encode(v, 'DELTA_LENGTH_BYTE_ARRAY') AS b
    FROM (SELECT v FROM t ORDER BY i);
SELECT hex(b) AS encoded FROM enc;

-- The two parts, checked: the lengths alone, then the bytes.
SELECT hex(b) = hex((SELECT parquet_encode(length(v), 'DELTA_BINARY_PACKED', 'INT32')
                       FROM (SELECT v FROM t ORDER BY i)))
               || hex('HelloWorldFoobarABCDEF') AS lengths_then_bytes
  FROM enc;

SELECT offset, hex, path, value
  FROM enc, parquet_explain(enc.b, 'DELTA_LENGTH_BYTE_ARRAY')
 WHERE path NOT LIKE '%bit_width';

SELECT parquet_decode(b, 'DELTA_LENGTH_BYTE_ARRAY') AS decoded,
       length(b) AS bytes,
       (SELECT length(parquet_encode(v, 'PLAIN')) FROM t) AS plain_bytes
  FROM enc;
