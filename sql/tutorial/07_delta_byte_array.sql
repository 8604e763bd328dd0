-- 07_delta_byte_array.sql: DELTA_BYTE_ARRAY, front coding.
--   sqlite3 < sql/tutorial/07_delta_byte_array.sql
--
-- Spec: Encodings.md, "Delta Strings".  Each value is the first `prefix`
-- bytes of the previous value plus a suffix.  The prefix lengths come as
-- DELTA_BINARY_PACKED, then the suffixes as DELTA_LENGTH_BYTE_ARRAY.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- The spec's example: "axis", "axle", "babble", "babyhood" is prefixes
-- (0, 2, 0, 3), suffix lengths (4, 2, 6, 5) and "axislebabbleyhood".
CREATE TEMP TABLE t(i, v);
INSERT INTO t VALUES (0,'axis'),(1,'axle'),(2,'babble'),(3,'babyhood');
CREATE TEMP TABLE enc AS
  SELECT parquet_encode(v, 'DELTA_BYTE_ARRAY') AS b FROM (SELECT v FROM t ORDER BY i);
SELECT hex(b) AS encoded FROM enc;

-- The three parts, checked against their own encodings.
SELECT hex(b) = (SELECT hex(parquet_encode(v, 'DELTA_BINARY_PACKED', 'INT32'))
                   FROM (SELECT column1 AS v FROM (VALUES (0),(2),(0),(3))))
             || (SELECT hex(parquet_encode(v, 'DELTA_BINARY_PACKED', 'INT32'))
                   FROM (SELECT column1 AS v FROM (VALUES (4),(2),(6),(5))))
             || hex('axislebabbleyhood') AS three_parts
  FROM enc;

SELECT offset, hex, path, value, note
  FROM enc, parquet_explain(enc.b, 'DELTA_BYTE_ARRAY')
 WHERE path LIKE 'value%' OR path LIKE '%header.first_value'
    OR path LIKE '%miniblock[0].value[%';

SELECT parquet_decode(b, 'DELTA_BYTE_ARRAY') AS decoded FROM enc;

-- Shared prefixes are what it saves: 2000 URLs.
SELECT length(parquet_encode(u, 'DELTA_BYTE_ARRAY')) AS front_coded,
       length(parquet_encode(u, 'DELTA_LENGTH_BYTE_ARRAY')) AS lengths_apart,
       length(parquet_encode(u, 'PLAIN')) AS plain
  FROM (WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 1999)
        SELECT 'https://shop.example.com/item/' || printf('%05d', i) AS u FROM s);
