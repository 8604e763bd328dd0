-- demo.sql: how big is a column under each Parquet encoding?
--
--   sqlite3 < sql/demo.sql        (from the top folder after make; or: make demo)
--
-- A sample table of 10 000 rows with columns like real ones: sorted
-- timestamps, prices, small counts, a status with four values, URLs.
.load ./parquet
.headers on
.mode column
.echo on

CREATE TABLE sample AS
  WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 9999)
  SELECT i,
         1700000000000 + i * 1000 + (i * 7919) % 997           AS ts,
         round(10 + ((i * 2654435761) % 100000) / 100.0, 2)   AS price,
         (i * 48271) % 1000                                    AS qty,
         CASE (i * 16807) % 10 WHEN 0 THEN 'failed' WHEN 1 THEN 'pending'
              WHEN 2 THEN 'refunded' ELSE 'paid' END           AS status,
         'https://shop.example.com/item/' || ((i * 31) % 2000) AS url
    FROM s;

-- Every encoding a page of each column's type may use, side by side.  For
-- the dictionary encodings the size counts the dictionary too.
WITH cols(col, type) AS (VALUES ('ts', 'INT64'), ('price', 'DOUBLE'),
                                ('qty', 'INT32'), ('status', 'BYTE_ARRAY'),
                                ('url', 'BYTE_ARRAY')),
sizes AS (
  SELECT c.col, e.id, e.name,
         length(parquet_encode(CASE c.col WHEN 'ts' THEN s.ts WHEN 'price' THEN s.price
                  WHEN 'qty' THEN s.qty WHEN 'status' THEN s.status ELSE s.url END,
                  e.name, c.type))
         + ifnull(length(parquet_encode(CASE c.col WHEN 'ts' THEN s.ts WHEN 'price' THEN s.price
                  WHEN 'qty' THEN s.qty WHEN 'status' THEN s.status ELSE s.url END,
                  e.name, c.type, '{"part":"dictionary"}')), 0) AS bytes
    FROM cols c, parquet_encodings(c.type) e, (SELECT * FROM sample ORDER BY i) s
   GROUP BY c.col, e.id)
SELECT col AS "column", name AS encoding, bytes,
       printf('%5.1f%%', 100.0 * bytes / (SELECT bytes FROM sizes p
                                          WHERE p.col = sizes.col AND p.id = 0)) AS "of PLAIN"
  FROM sizes
 ORDER BY col, bytes;

-- And back: the timestamps as DELTA_BINARY_PACKED, decoded.
.headers off
.mode list
SELECT 'first five: ' || parquet_decode(d, 'DELTA_BINARY_PACKED', 'INT64', '{"count":5}')
  FROM (SELECT parquet_encode(ts, 'DELTA_BINARY_PACKED') AS d
          FROM (SELECT ts FROM sample ORDER BY i));
SELECT 'all ' || count(*) || ' equal: ' || (sum(v.value = s.ts) = count(*))
  FROM (SELECT parquet_encode(ts, 'DELTA_BINARY_PACKED') AS d
          FROM (SELECT ts FROM sample ORDER BY i)) e,
       parquet_values(e.d, 'DELTA_BINARY_PACKED') v
  JOIN sample s ON s.i = v.idx;
