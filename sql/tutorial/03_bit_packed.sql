-- 03_bit_packed.sql: the deprecated BIT_PACKED encoding.
--   sqlite3 < sql/tutorial/03_bit_packed.sql
--
-- Spec: Encodings.md, "Bit-packed (Deprecated)".  Only for levels.  Values
-- back to back in a fixed width, packed from the MOST significant bit of
-- each byte: the opposite order to the RLE hybrid.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

CREATE TEMP TABLE seq(v);
INSERT INTO seq VALUES (0),(1),(2),(3),(4),(5),(6),(7);
SELECT hex(parquet_encode(v, 'BIT_PACKED', 'INT32', '{"bit_width":3}')) AS encoded
  FROM seq;

-- The spec's picture of 0..7 at width 3:
--   bit value: 00000101 00111001 01110111
--   bit label: ABCDEFGH IJKLMNOP QRSTUVWX
SELECT offset, hex, bits, labels, path, value
  FROM parquet_explain(X'053977', 'BIT_PACKED', 'INT32', '{"bit_width":3}');

-- Some writers packed LSB first; bit_order reads that order.
SELECT parquet_decode(X'88C6FA', 'BIT_PACKED', 'INT32',
                      '{"bit_width":3,"bit_order":"lsb"}') AS lsb_first;

-- No run lengths: 30 levels of 2 bits are 60 bits, 8 bytes.
SELECT length(parquet_encode(v % 4, 'BIT_PACKED', 'INT32', '{"bit_width":2}')) AS bytes
  FROM (WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 30)
        SELECT v FROM s);
