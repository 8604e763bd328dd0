-- 13_lab.sql: which encoding for which column, and why (the encoding lab).
--   sqlite3 < sql/tutorial/13_lab.sql
--
-- The earlier scripts take each encoding apart.  Which one to choose for
-- a column depends on its values and on the codec: parquet_lab(query)
-- writes each column of a query again under every encoding its type may
-- use and every codec, and gives the bytes parquet_write would write for
-- it, exactly.  "min_time":0 leaves out the speeds (they change from run
-- to run); the sizes never change.  Then parquet_encode and
-- parquet_explain show why the smallest is the smallest.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- 5000 orders: sorted ids, quantities 1 to 200 in no order, prices of two
-- decimals, a status of five words, a product's URL (2000 products), and
-- a flag true one time in seven.  x is a hash of i, for values that look
-- random but are the same at every run.
CREATE TABLE orders(id INTEGER, qty INTEGER, price REAL, status TEXT, url TEXT, gift BOOLEAN);
WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 5000),
     h(i, x) AS (SELECT i, (i * 2654435761 + 40503) % 4294967296 FROM s)
INSERT INTO orders
  SELECT i, 1 + (x >> 7) % 200, round(1 + (i * 7919) % 10000 / 100.0, 2),
         CASE (x >> 11) % 5 WHEN 0 THEN 'new' WHEN 1 THEN 'paid' WHEN 2 THEN 'shipped'
                            WHEN 3 THEN 'delivered' ELSE 'returned' END,
         'https://shop.example.com/product/' || (100000 + (x >> 9) % 2000),
         (x >> 17) % 7 = 0
    FROM h;
SELECT * FROM orders LIMIT 3;

-- The lab of the whole table, uncompressed and under two codecs: one row
-- per column x encoding x codec.  The declared types give the Parquet
-- types, as parquet_write gives them: INTEGER is INT64, REAL DOUBLE, TEXT
-- a STRING, BOOLEAN a BOOLEAN.
CREATE TEMP TABLE lab AS
  SELECT * FROM parquet_lab('SELECT * FROM orders',
                            '{"codecs":["UNCOMPRESSED","SNAPPY","ZSTD"],"min_time":0}');
SELECT "column", physical_type, count(*) AS rows_, group_concat(DISTINCT encoding) AS encodings
  FROM lab GROUP BY "column" ORDER BY min(rowid);

-- The smallest for each column and codec.  PLAIN takes 64 bits an
-- INT64 or DOUBLE, 32 bits of length and the bytes for a string, 1 bit a
-- boolean; bits_per_value counts everything the column chunk holds (page
-- headers, levels, a dictionary page).
SELECT "column", codec, encoding, bytes, round(bits_per_value, 2) AS bits_per_value,
       (SELECT p.bytes FROM lab p WHERE p."column" = l."column" AND p.codec = 'UNCOMPRESSED'
           AND p.encoding = 'PLAIN') AS plain_bytes
  FROM (SELECT rowid AS r, *, rank() OVER (PARTITION BY "column", codec ORDER BY bytes) AS k
          FROM lab) l
 WHERE k = 1 ORDER BY r;

-- 1. Sorted ids: DELTA_BINARY_PACKED.  It stores the first value, then
-- per block of 128 the least delta (here always 1) and, per miniblock of
-- 32, each delta minus that least in as few bits as the widest needs.
-- Every delta is 1, so every miniblock takes 0 bits: 5000 ids in 206
-- bytes, the headers of 40 blocks (263 with the page's header).
SELECT encoding, bytes, round(bits_per_value, 2) AS bits_per_value
  FROM lab WHERE "column" = 'id' AND codec = 'UNCOMPRESSED' ORDER BY bytes, rowid;
SELECT path, value
  FROM parquet_explain((SELECT parquet_encode(id, 'DELTA_BINARY_PACKED', 'INT64')
                          FROM (SELECT id FROM orders ORDER BY id)),
                       'DELTA_BINARY_PACKED', 'INT64')
 WHERE path IN ('header.first_value', 'block[0].min_delta', 'block[0].miniblock[0].bit_width',
                'block[39].min_delta', 'block[39].miniblock[0].bit_width');

-- 2. Quantities in no order: DELTA_BINARY_PACKED again, for another
-- reason.  The values fit in 8 bits, so their deltas, less each block's
-- least delta, fit in 8 or 9: the miniblocks take 8 bits a value (3 are
-- unused, after the last value).  A dictionary of the 200 values takes
-- 1600 bytes and 8-bit indices: more.  GROUP_VAR_INT takes a byte a
-- value here, and 2 bytes of lengths for each group of 5 INT64 values.
SELECT encoding, bytes, round(bits_per_value, 2) AS bits_per_value
  FROM lab WHERE "column" = 'qty' AND codec = 'UNCOMPRESSED' ORDER BY bytes, rowid;
SELECT value AS bit_width, count(*) AS miniblocks
  FROM parquet_explain((SELECT parquet_encode(qty, 'DELTA_BINARY_PACKED', 'INT64')
                          FROM (SELECT qty FROM orders ORDER BY id)),
                       'DELTA_BINARY_PACKED', 'INT64')
 WHERE path LIKE 'block[%].miniblock[%].bit_width' AND path NOT LIKE '%value%'
 GROUP BY value;

-- 3. Prices: ALP, or BYTE_STREAM_SPLIT and a codec.  ALP (11_alp.sql)
-- finds that each price is an integer of cents (e - f = 2): 100 to
-- 10099, 14 bits from the least of each vector of 1024 values, where
-- PLAIN takes 64.
SELECT codec, encoding, bytes, round(bits_per_value, 2) AS bits_per_value
  FROM lab l WHERE "column" = 'price'
 ORDER BY (SELECT min(rowid) FROM lab m WHERE m.codec = l.codec), bytes, rowid;
SELECT path, value
  FROM parquet_explain((SELECT parquet_encode(price, 'ALP', 'DOUBLE')
                          FROM (SELECT price FROM orders ORDER BY id)),
                       'ALP', 'DOUBLE')
 WHERE path IN ('vector[0].exponent', 'vector[0].factor', 'vector[0].frame_of_reference',
                'vector[0].bit_width', 'vector[0].num_exceptions');

-- BYTE_STREAM_SPLIT writes byte 0 of every value, then byte 1, ... byte
-- 7: as many bytes as PLAIN, uncompressed.  Its worth is in what a codec
-- does with the streams: byte 7 (the sign and the exponent's top bits)
-- is nearly the same for every price from 1 to 101, and bytes 0 to 4,
-- the mantissa's end, repeat with the cents.  Each stream of 5000 bytes,
-- compressed alone, against 10155 for PLAIN + ZSTD, where the codec sees
-- the eight bytes of each value mixed:
SELECT k AS byte, length(parquet_compress(substr(b, k * 5000 + 1, 5000), 'ZSTD')) AS zstd_bytes
  FROM (SELECT parquet_encode(price, 'BYTE_STREAM_SPLIT', 'DOUBLE') AS b
          FROM (SELECT price FROM orders ORDER BY id)),
       (WITH RECURSIVE n(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM n WHERE k < 7)
        SELECT k FROM n);

-- The lab's readers column says whether DuckDB, arrow-rs, parquet-java
-- and Arrow C++ all read an encoding: ALP is new, and they do not yet.
-- That is why parquet_write's "encoding":"auto" (the auto column) does
-- not take it unless told to try it ("auto":{"allow":["ALP"]}): with a
-- codec it takes BYTE_STREAM_SPLIT; uncompressed, PLAIN, as small as
-- BYTE_STREAM_SPLIT and read by every reader.
SELECT codec, encoding, bytes, readers, auto
  FROM lab WHERE "column" = 'price' AND encoding IN ('ALP', 'BYTE_STREAM_SPLIT')
 ORDER BY rowid;

-- 4. A status of five words: a dictionary.  The five strings go once
-- into the dictionary page; each value is an index of 3 bits, in
-- RLE/bit-packed runs (04_dictionary.sql).
SELECT length(parquet_encode(status, 'RLE_DICTIONARY', 'BYTE_ARRAY', '{"part":"dictionary"}'))
         AS dictionary_bytes,
       length(parquet_encode(status, 'RLE_DICTIONARY', 'BYTE_ARRAY')) AS indices_bytes,
       length(parquet_encode(status, 'PLAIN', 'BYTE_ARRAY')) AS plain_bytes
  FROM (SELECT status FROM orders ORDER BY id);
SELECT path, value, note
  FROM parquet_explain((SELECT parquet_encode(status, 'RLE_DICTIONARY', 'BYTE_ARRAY')
                          FROM (SELECT status FROM orders ORDER BY id)),
                       'RLE_DICTIONARY', 'BYTE_ARRAY')
 WHERE path = 'bit_width';

-- 5. URLs: DELTA_BYTE_ARRAY, uncompressed.  Each URL is stored as the
-- length of the prefix it shares with the one before and the rest: here
-- 35 or 36 of its 39 bytes are shared, and the prefix lengths are
-- themselves DELTA_BINARY_PACKED.
SELECT encoding, bytes, round(bits_per_value, 2) AS bits_per_value
  FROM lab WHERE "column" = 'url' AND codec = 'UNCOMPRESSED' ORDER BY bytes, rowid;
SELECT value AS prefix_length, count(*) AS urls
  FROM parquet_explain((SELECT parquet_encode(url, 'DELTA_BYTE_ARRAY', 'BYTE_ARRAY')
                          FROM (SELECT url FROM orders ORDER BY id)),
                       'DELTA_BYTE_ARRAY', 'BYTE_ARRAY')
 WHERE path LIKE 'prefix_lengths.block[%].miniblock[%].value[%]'
 GROUP BY value;

-- With a strong codec, PLAIN's bytes hold the same repeats, and the codec
-- finds them itself.  Compressed as one stream, PLAIN + BROTLI is smaller
-- than DELTA_BYTE_ARRAY + BROTLI:
SELECT length(parquet_compress(parquet_encode(url, 'PLAIN', 'BYTE_ARRAY'), 'BROTLI'))
         AS plain_brotli,
       length(parquet_compress(parquet_encode(url, 'DELTA_BYTE_ARRAY', 'BYTE_ARRAY'), 'BROTLI'))
         AS delta_byte_array_brotli
  FROM (SELECT url FROM orders ORDER BY id);

-- But a file's pages are compressed one by one, and the codec of one page
-- knows nothing of the others.  With pages of at most 64 KiB, PLAIN's
-- 215 KB are 4 pages and DELTA_BYTE_ARRAY's 19 KB one: in the file,
-- DELTA_BYTE_ARRAY + BROTLI is the smaller.  The lab measures the pages,
-- as parquet_write writes them, so it sees this.
SELECT encoding, codec, pages, bytes
  FROM parquet_lab('SELECT url FROM orders',
                   '{"encodings":["PLAIN","DELTA_BYTE_ARRAY"],"codecs":["UNCOMPRESSED","BROTLI"],
                     "page_size":65536,"min_time":0}');

-- 6. Booleans: RLE.  PLAIN packs them a bit each; the RLE/bit-packed
-- hybrid turns each run of eight or more of the same value into a count
-- and one byte.  One in seven is true, so runs of false are common.
SELECT codec, encoding, bytes, round(bits_per_value, 2) AS bits_per_value
  FROM lab WHERE "column" = 'gift' ORDER BY rowid;

-- What parquet_write's "encoding":"auto" would take (auto = 1), against
-- the smallest: the same, but for the prices, where the smallest is ALP.
SELECT l."column", l.codec, l.encoding AS auto_picks, l.bytes,
       (SELECT min(m.bytes) FROM lab m WHERE m."column" = l."column" AND m.codec = l.codec)
         AS smallest
  FROM lab l WHERE l.auto ORDER BY l.rowid;
