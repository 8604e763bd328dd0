-- 11_alp.sql: ALP, adaptive lossless floating point (encoding 10).
--   sqlite3 < sql/tutorial/11_alp.sql
--
-- Spec: AlpEncoding.md.  Most doubles people store were decimals once: a
-- price 19.99, a temperature 21.5.  ALP multiplies each value of a vector
-- (1024 values by default) by 10^e and by 10^-f, rounds it to an integer,
-- and keeps the integer when decoding it gives the value back, bit for bit:
--
--     value = integer x 10^f x 10^-e   (two multiplications, in the type's
--                                       own precision)
--
-- The integers are stored as their distances from the least of them (the
-- frame of reference), bit-packed; a value that does not come back (NaN,
-- infinities, -0.0, too many digits) is an exception, stored whole.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- The spec's worked example: 1500, NaN, 2500, 333.5 with exponent 4 and
-- factor 3.  SQL has no NaN (it becomes NULL), so the NaN is given as its
-- bits: a BLOB of 8 bytes, little endian, as PLAIN stores it.
SELECT hex(parquet_encode(v, 'ALP', 'DOUBLE', '{"exponent":4,"factor":3}')) AS encoded
  FROM (SELECT column1 AS v FROM (VALUES (1500.0),(X'000000000000F87F'),(2500.0),(333.5)));

-- The spec's 42 bytes: 00000a04000000 04000000 04030100 070d000000000000 0f
-- 91adc85628150000 0100 000000000000f87f.  The same?
SELECT hex(parquet_encode(v, 'ALP', 'DOUBLE', '{"exponent":4,"factor":3}'))
       = upper('00000a04000000' || '04000000' || '04030100' || '070d000000000000' || '0f'
               || '91adc85628150000' || '0100' || '000000000000f87f') AS same_as_the_spec
  FROM (SELECT column1 AS v FROM (VALUES (1500.0),(X'000000000000F87F'),(2500.0),(333.5)));

-- Field by field.  1500 x 10^4 x 10^-3 = 15000, 2500 gives 25000, 333.5
-- gives 3335: the least, 3335, is the frame of reference, and the
-- distances 11665, 21665 and 0 take 15 bits each.  The NaN's place holds
-- a placeholder (the first value's integer, 15000) and the exception
-- after the packed values puts the NaN back, its bits as they were.
SELECT offset, hex, path, value, note
  FROM parquet_explain(X'00000A040000000400000004030100070D0000000000000F91ADC856281500000100000000000000F87F',
                       'ALP', 'DOUBLE');

-- The bits of the packed values, least significant first: value 0
-- (11665 = 010110110010001) is bits 0 to 14, so its low 8 bits are the
-- first byte; the labels put A under each value's top bit, as the spec's
-- pictures do.
SELECT bits, labels
  FROM parquet_explain(X'00000A040000000400000004030100070D0000000000000F91ADC856281500000100000000000000F87F',
                       'ALP', 'DOUBLE')
 WHERE path = 'vector[0].packed_values';

-- Back: the NaN is NULL in SQL, and null in JSON.
SELECT parquet_decode(X'00000A040000000400000004030100070D0000000000000F91ADC856281500000100000000000000F87F',
                      'ALP', 'DOUBLE') AS decoded;

-- Why prices compress: 10000 prices of two decimals, 0.01 to 99.99.
-- PLAIN takes 64 bits a value, BYTE_STREAM_SPLIT too (it only reorders
-- the bytes); ALP stores each as an integer of at most 14 bits.
CREATE TABLE prices AS
  WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 9999)
  SELECT (1 + (i * 7919) % 9999) / 100.0 AS p FROM s;
SELECT enc, round(8.0 * length(b) / 10000, 2) AS bits_per_value
  FROM (SELECT 'PLAIN' AS enc, parquet_encode(p, 'PLAIN', 'DOUBLE') AS b FROM prices
        UNION ALL SELECT 'BYTE_STREAM_SPLIT', parquet_encode(p, 'BYTE_STREAM_SPLIT', 'DOUBLE') FROM prices
        UNION ALL SELECT 'ALP', parquet_encode(p, 'ALP', 'DOUBLE') FROM prices);

-- The integers are the cents: e - f = 2.  (Pairs of the same difference
-- whose products are exact make the same integers; which one the search
-- keeps on a tie is the encoder's choice.)
SELECT path, value, note
  FROM parquet_explain((SELECT parquet_encode(p, 'ALP', 'DOUBLE') FROM prices), 'ALP', 'DOUBLE')
 WHERE path IN ('vector[0].exponent', 'vector[0].factor', 'vector[0].num_exceptions',
                'vector[0].bit_width', 'vector[0].value[0]');

-- Why doubles with all their digits do not: 1/7.3, 1/14.3, ... need
-- 17 significant digits, which no exponent up to 18 turns into integers
-- that come back exact, so every value is an exception, taking its 8
-- bytes and a 2-byte position: more than PLAIN.  The writer's
-- "encoding":"auto", even where "auto":{"allow":["ALP"]} lets it try
-- ALP, never picks it for such a column.
CREATE TABLE noise AS
  WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 10000)
  SELECT 1.0 / (i * 7.0 + 0.3) AS x FROM s;
SELECT enc, round(8.0 * length(b) / 10000, 2) AS bits_per_value
  FROM (SELECT 'PLAIN' AS enc, parquet_encode(x, 'PLAIN', 'DOUBLE') AS b FROM noise
        UNION ALL SELECT 'ALP', parquet_encode(x, 'ALP', 'DOUBLE') FROM noise);
SELECT path, value
  FROM parquet_explain((SELECT parquet_encode(x, 'ALP', 'DOUBLE') FROM noise), 'ALP', 'DOUBLE')
 WHERE path IN ('vector[0].exponent', 'vector[0].num_exceptions', 'vector[0].bit_width');
