-- 08_byte_stream_split.sql: BYTE_STREAM_SPLIT.
--   sqlite3 < sql/tutorial/08_byte_stream_split.sql
--
-- Spec: Encodings.md, "Byte Stream Split".  For values of K bytes, byte k
-- of every value goes to stream k, and the K streams follow each other.
-- Same size as PLAIN; it helps a compression codec that follows.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- The spec's example: three FLOATs whose bytes are AA BB CC DD,
-- 00 11 22 33 and A3 B4 C5 D6 become AA 00 A3 BB 11 B4 CC 22 C5 DD 33 D6.
SELECT hex(parquet_encode(value, 'BYTE_STREAM_SPLIT', 'FLOAT')) AS encoded
  FROM parquet_values(X'AABBCCDD00112233A3B4C5D6', 'PLAIN', 'FLOAT');

SELECT offset, hex, path, hex(value) AS value, note
  FROM parquet_explain(X'AA00A3BB11B4CC22C5DD33D6', 'BYTE_STREAM_SPLIT',
                       'FIXED_LEN_BYTE_ARRAY(4)');

-- Back: the same three values, as FLOAT.
SELECT idx, value FROM parquet_values(X'AA00A3BB11B4CC22C5DD33D6',
                                      'BYTE_STREAM_SPLIT', 'FLOAT');

-- Prices 10.00 .. 19.99: the top bytes of the doubles repeat, so stream 7
-- is one byte value over and over, which a codec packs well.
SELECT count(DISTINCT substr(hex(b), 1 + 2 * 7 * 1000, 2 * 1000)) AS distinct_stream_7
  FROM (SELECT parquet_encode(10 + (i % 1000) / 100.0, 'BYTE_STREAM_SPLIT', 'DOUBLE') AS b
          FROM (WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 999)
                SELECT i FROM s));
