-- 02_rle.sql: the RLE/bit-packing hybrid.
--   sqlite3 < sql/tutorial/02_rle.sql
--
-- Spec: Encodings.md, "Run Length Encoding / Bit-Packing Hybrid".  Runs of
-- one repeated value, or groups of 8 values packed in a fixed bit width.
-- Each run starts with a ULEB128 header: odd = bit-packed (header >> 1
-- groups of 8), even = RLE (header >> 1 copies of the value that follows).
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- The spec's example: 0..7 at bit width 3, one bit-packed run.
CREATE TEMP TABLE seq(v);
INSERT INTO seq VALUES (0),(1),(2),(3),(4),(5),(6),(7);
SELECT hex(parquet_encode(v, 'RLE', 'INT32', '{"bit_width":3}')) AS encoded
  FROM seq;

-- The packed bytes with the spec's own picture: values go in from the
-- least significant bit of each byte; A B C are the bits of value 0 (A its
-- top bit), D E F of value 1, and so on.
--   bit value: 10001000 11000110 11111010
--   bit label: HIDEFABC RMNOJKLG VWXSTUPQ
SELECT bits, labels
  FROM parquet_explain(X'0388C6FA', 'RLE', 'INT32', '{"bit_width":3}')
 WHERE path = 'run[0].bit_packed';

SELECT offset, hex, bits, path, value
  FROM parquet_explain(X'0388C6FA', 'RLE', 'INT32', '{"bit_width":3}');

-- A repeated value is an RLE run: 1000 threes at width 2 is a header
-- (1000 << 1, as ULEB128) and the value in one byte.
SELECT hex(parquet_encode(3, 'RLE', 'INT32', '{"bit_width":2}')) AS thousand_threes
  FROM (WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 1000)
        SELECT i FROM s);
SELECT offset, hex, path, value, note
  FROM parquet_explain(X'D00F03', 'RLE', 'INT32', '{"bit_width":2}');

-- BOOLEAN columns in data pages use it at bit width 1, after a 4-byte
-- length.
SELECT hex(parquet_encode(v, 'RLE', 'BOOLEAN')) AS booleans
  FROM (SELECT column1 AS v FROM (VALUES (1),(1),(1),(0)));
SELECT parquet_decode(X'020000000307', 'RLE', 'BOOLEAN', '{"count":4}') AS decoded;

-- Back, and the size against PLAIN INT32.
SELECT parquet_decode(X'0388C6FA', 'RLE', 'INT32', '{"bit_width":3}') AS decoded,
       length(X'0388C6FA') AS rle_bytes,
       (SELECT length(parquet_encode(v, 'PLAIN', 'INT32')) FROM seq) AS plain_bytes;
