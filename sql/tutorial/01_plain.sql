-- 01_plain.sql: PLAIN, the encoding every reader supports.
--   sqlite3 < sql/tutorial/01_plain.sql        (from the top folder, after make)
--
-- Spec: Encodings.md, "Plain".  Values go back to back: numbers as
-- little-endian bytes, BOOLEAN one bit each (the first value in the lowest
-- bit), BYTE_ARRAY as a 4-byte length and the bytes.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- Three INT32 values: 4 bytes each, least significant byte first.
SELECT hex(parquet_encode(v, 'PLAIN', 'INT32')) AS int32
  FROM (SELECT 1 AS v UNION ALL SELECT 256 UNION ALL SELECT -2);

SELECT offset, hex, path, value, note
  FROM parquet_explain(X'0100000000010000FEFFFFFF', 'PLAIN', 'INT32');

-- Ten booleans take two bytes: 1,0,1,1,0,0,0,0 is 00001101 = 0x0D.
SELECT hex(parquet_encode(v, 'PLAIN', 'BOOLEAN')) AS booleans
  FROM (SELECT column1 AS v FROM (VALUES (1),(0),(1),(1),(0),(0),(0),(0),(1),(1)));

-- The last byte is padded: without a count, a reader sees 16 values.
SELECT parquet_decode(X'0D03', 'PLAIN', 'BOOLEAN') AS without_count,
       parquet_decode(X'0D03', 'PLAIN', 'BOOLEAN', '{"count":10}') AS with_count;

-- Strings: a 4-byte length before each.
SELECT offset, hex, path, value, note
  FROM parquet_explain(X'0500000048656C6C6F000000000300000061C3A9', 'PLAIN', 'BYTE_ARRAY');
