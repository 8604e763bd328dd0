-- 12_variant.sql: VARIANT, semi-structured values in two byte strings.
--   sqlite3 < sql/tutorial/12_variant.sql
--
-- Spec: VariantEncoding.md.  A variant column is a group annotated
-- VARIANT with two BYTE_ARRAY leaves: `metadata`, a dictionary of the
-- object field names, and `value`, a tree of typed values:
--
--     metadata: header (version 1, sorted_strings, offset_size)
--               dictionary_size, offsets, the names' bytes
--     value:    a header byte: basic_type (2 bits) and 6 bits that say
--               more: a primitive's type, a short string's length, an
--               object's or array's sizes; then the data, and for an
--               object or array num_elements, field ids, field offsets
--               and the elements, each a value of its own
--
-- parquet_explain(metadata || value, 'VARIANT') walks every byte.
.load ./parquet
.headers on
.mode column --wrap 0
.echo on

-- {"a": 1, "b": "hi"}: the names a and b (sorted), then an object of two
-- fields: field id 0 ("a") is an int8 1, field id 1 ("b") a short string.
-- The header rows' bits come with letters: B basic type, T primitive
-- type, L a short string's length (or is_large), I and O the sizes of
-- field ids and offsets less one; V, S, O the metadata's version, its
-- sorted_strings bit and its offset size.
SELECT offset, hex, bits, labels, path, value, note
  FROM parquet_explain(X'11020001026162' || X'020200010002050C01096869', 'VARIANT');

-- An object's field ids and offsets follow the order of its names, its
-- values may be in any order: here "b"'s value comes first.  The walk
-- goes in byte order, so the rows never go back.
SELECT offset, hex, path, value
  FROM parquet_explain(X'11020001026162' || X'020200010300050968690C01', 'VARIANT')
 WHERE path LIKE 'value.field%' AND path NOT LIKE '%.header%';

-- Primitives: an array of a date, a decimal (scale 2), a timestamp in
-- microseconds (UTC) and a UUID, each in the text the parquet table
-- gives such columns.
SELECT path, value, note
  FROM parquet_explain(X'010000' ||
                       X'030400050B1425' ||
                       X'2CE24E0000' || X'2002D2040000' || X'30E05297DDE7320600' ||
                       X'50F24F9B6481FA49D1B74E8C09A6E31C56', 'VARIANT')
 WHERE path GLOB 'value.element*' AND path NOT LIKE '%header%';

-- A malformed variant is explained up to its fault: a field id past the
-- dictionary of one name.
SELECT offset, path, note
  FROM parquet_explain(X'0101000161' || X'0201010002' || X'00', 'VARIANT');

-- Both ways: JSON text to a variant and back.  The names are sorted in
-- the metadata and in the object; 1 is an int8, 2.50 a decimal of scale
-- 2 (all its digits kept), "x" a short string.
SELECT hex(parquet_variant_encode('{"b":[1,2.50],"a":"x"}')) AS variant,
       parquet_variant_decode(parquet_variant_encode('{"b":[1,2.50],"a":"x"}')) AS json;
