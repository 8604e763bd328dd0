-- 05_delta_binary_packed.sql: DELTA_BINARY_PACKED, the spec's examples.
--   sqlite3 < sql/tutorial/05_delta_binary_packed.sql
--
-- Spec: Encodings.md, "Delta Encoding".  A header (block size, miniblocks
-- per block, value count, first value), then blocks: the least delta of the
-- block (min delta), one bit width per miniblock, and each miniblock's
-- deltas minus the min delta, bit-packed.  The spec's examples use blocks
-- of 8 values to stay short; real blocks are a multiple of 128.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- Example 1: 1, 2, 3, 4, 5.  Every delta is 1, so the min delta is 1 and
-- the relative deltas are all 0: bit width 0, no bytes at all.
SELECT hex(parquet_encode(v, 'DELTA_BINARY_PACKED', 'INT64',
                          '{"block_size":8,"miniblocks":1}')) AS example_1
  FROM (SELECT column1 AS v FROM (VALUES (1),(2),(3),(4),(5)));
SELECT offset, hex, path, value, note
  FROM parquet_explain(X'080105020200', 'DELTA_BINARY_PACKED');

-- Example 2: 7, 5, 3, 1, 2, 3, 4, 5.  Deltas -2 -2 -2 1 1 1 1; the min
-- delta is -2, so the relative deltas are 0 0 0 3 3 3 3: 2 bits each.
CREATE TEMP TABLE ex2(i, v);
INSERT INTO ex2 VALUES (0,7),(1,5),(2,3),(3,1),(4,2),(5,3),(6,4),(7,5);
SELECT hex(parquet_encode(v, 'DELTA_BINARY_PACKED', 'INT64',
                          '{"block_size":8,"miniblocks":1}')) AS example_2
  FROM (SELECT v FROM ex2 ORDER BY i);
SELECT offset, hex, bits, path, value
  FROM parquet_explain(X'0801080E0302C03F', 'DELTA_BINARY_PACKED');
SELECT path, note
  FROM parquet_explain(X'0801080E0302C03F', 'DELTA_BINARY_PACKED')
 WHERE path LIKE '%value[%' OR path LIKE '%padding';

-- Back, and the size with the usual 128-value blocks against PLAIN.
SELECT parquet_decode(X'0801080E0302C03F', 'DELTA_BINARY_PACKED') AS decoded;
SELECT length(parquet_encode(v, 'DELTA_BINARY_PACKED')) AS delta_bytes,
       length(parquet_encode(v, 'PLAIN')) AS plain_bytes
  FROM (SELECT v FROM ex2 ORDER BY i);

-- Sorted timestamps are where it shines: 10 000 of them.
SELECT length(parquet_encode(ts, 'DELTA_BINARY_PACKED')) AS delta_bytes,
       length(parquet_encode(ts, 'PLAIN')) AS plain_bytes
  FROM (WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 9999)
        SELECT 1700000000000 + i * 1000 + i % 7 AS ts FROM s);
