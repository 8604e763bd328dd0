-- 09_group_var_int.sql: GROUP_VAR_INT, the historical encoding 1.
--   sqlite3 < sql/tutorial/09_group_var_int.sql
--
-- Spec: seeds/000 (parquet.thrift keeps only a comment: "never used").
-- INT32 values in groups of 4 behind one byte of four 2-bit fields, each a
-- value's byte length less one, the first value's field on top.  INT64
-- values in groups of 5 behind two bytes of five 3-bit fields.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- The seed's example: the length byte 0b00101101 says 1, 3, 4 and 2 bytes.
SELECT hex(parquet_encode(v, 'GROUP_VAR_INT', 'INT32')) AS encoded
  FROM (SELECT column1 AS v FROM (VALUES (255),(16777215),(-1),(65535)));
SELECT offset, hex, bits, labels, path, value, note
  FROM parquet_explain(X'2DFFFFFFFFFFFFFFFFFFFF', 'GROUP_VAR_INT', 'INT32');

-- A group that is not full is filled with zeros: (1,2,3,4,5) is written as
-- (1,2,3,4,5,0,0,0), and a reader without a count sees the zeros.
SELECT hex(parquet_encode(v, 'GROUP_VAR_INT', 'INT32')) AS encoded,
       parquet_decode(parquet_encode(v, 'GROUP_VAR_INT', 'INT32'), 'GROUP_VAR_INT',
                      'INT32') AS without_count,
       parquet_decode(parquet_encode(v, 'GROUP_VAR_INT', 'INT32'), 'GROUP_VAR_INT',
                      'INT32', '{"count":5}') AS with_count
  FROM (SELECT column1 AS v FROM (VALUES (1),(2),(3),(4),(5)));

-- Small numbers are cheap: 1000 values below 256 against PLAIN.
SELECT length(parquet_encode(v % 256, 'GROUP_VAR_INT', 'INT32')) AS group_var_int,
       length(parquet_encode(v % 256, 'PLAIN', 'INT32')) AS plain
  FROM (WITH RECURSIVE s(v) AS (SELECT 1 UNION ALL SELECT v + 1 FROM s WHERE v < 1000)
        SELECT v FROM s);
