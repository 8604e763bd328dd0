// duckdb_tables.mjs DUCKDB_DIR WORK [QUERIES [SMALL]]
//
// DuckDB's side of tests/interop_tables.test.  With one thread, DuckDB
// writes Parquet files under WORK with every type it has, many row groups,
// several files and a hive-partitioned folder:
//
//   scalars.parquet      every scalar type, NULLs, edge values
//   nested.parquet       LIST, STRUCT, MAP, lists of structs, NULLs at
//                        every level
//   multi/part-N.parquet four files of one schema, each with its codec
//   hive/year=Y/cat=C/   COPY ... PARTITION_BY (year, cat)
//   delta.parquet        PARQUET_VERSION V2: DELTA_BINARY_PACKED INT32 and
//                        the other v2 encodings DuckDB chooses
//   scalars2, nested2    the same as scalars and nested, PARQUET_VERSION V2
//   empty.parquet        no rows
//   union/u1, u2         columns that differ (union_by_name)
//   bas.parquet          BLOBs (binary_as_string)
//   named.parquet        columns named filename and file_row_number
//   arrays.parquet       NULL fixed-size ARRAYs (as DuckDB writes them)
//   delta33.parquet      DELTA_BINARY_PACKED INT32 of bit width 33
//
// and then reads each table back (read_parquet, DuckDB's own reading) into
// WORK/NAME.expected.json:
//
//   {"name", "from": the read_parquet call, "columns": [{"name","type"}],
//    "encodings": {column: "ENC,ENC"}, "rows": [[filename,
//    file_row_number, value...]]}
//
// each value as text in the form the `parquet` virtual table documents for
// it (or null): integers and decimals as DuckDB writes them in VARCHAR,
// reals in their shortest round-trip digits (the FLOAT widened to double
// first; NaN null, infinities 9e999 and -9e999), dates 'YYYY-MM-DD',
// times 'HH:MM:SS[.fff|.ffffff|.fffffffff]' and timestamps 'YYYY-MM-DD
// HH:MM:SS[...]' with the digits of the file's unit (none when zero), UTC
// for TIMESTAMPTZ and TIMETZ, BLOBs as upper-case hex, INTERVALs as
// DuckDB's VARCHAR, UUIDs canonical, LIST / STRUCT / MAP as to_json.
//
// QUERIES, if given, is a JSON array of {name, sql}: each runs over views
// of the tables' names (and decimal_sum, a macro of sum), its result
// cells as VARCHAR, written to
// WORK/queries.out.json as [{name, rows}] or [{name, error}].  SMALL "1"
// writes fewer rows (for runs under valgrind): the files of multi/ have
// 1000 rows each instead of 3000, and the others shrink alike.
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, work, queriesPath, smallArg] = process.argv.slice(2);
const small = smallArg === '1';
const F = small ? 1000 : 3000; // rows of each file of multi/
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const qi = (s) => '"' + String(s).replaceAll('"', '""') + '"';
const rows = async (sql) => (await con.runAndReadAll(sql)).getRows();
const cell = (v) => (v === null || v === undefined ? null : String(v));

await con.run("SET TimeZone = 'UTC'");
mkdirSync(work, { recursive: true });
const at = (p) => join(work, p);

// ---- scalars.parquet: every scalar type -----------------------------------
// Row i of 20000 (4096 when small); each column NULL every k-th row (k
// differs), and edge values in the first rows.  Rows U0..U0+2047 (the third
// row group of 2048; the second when small) hold UBIGINTs all above 2^63,
// whose statistics are past INT64.
const N = small ? 4096 : 20000;
const U0 = small ? 2048 : 4096;
const nul = (k, expr) => `CASE WHEN i % ${k} = ${k - 1} THEN NULL ELSE ${expr} END`;
const edge = (cases, expr) =>
  'CASE ' + cases.map(([r, v]) => `WHEN i = ${r} THEN ${v} `).join('') + `ELSE ${expr} END`;
const scalars = [
  ['id', 'i::BIGINT'],
  ['i8', nul(11, edge([[1, '-128'], [2, '127'], [3, '0']], '((i * 7) % 256 - 128)') + '::TINYINT')],
  ['i16', nul(12, edge([[1, '-32768'], [2, '32767']], '((i * 31) % 2000 - 1000)') + '::SMALLINT')],
  ['i32', nul(13, edge([[1, '-2147483648'], [2, '2147483647']], '((i * 7919) % 100000 - 50000)') + '::INTEGER')],
  ['i64', nul(14, edge([[1, '-9223372036854775808'], [2, '9223372036854775807']],
                       '(i * 1000003 - 1000000000)') + '::BIGINT')],
  ['u8', nul(15, edge([[1, '0'], [2, '255']], '(i * 3) % 256') + '::UTINYINT')],
  ['u16', nul(16, edge([[1, '0'], [2, '65535']], '(i * 37) % 65536') + '::USMALLINT')],
  ['u32', nul(17, edge([[1, '0'], [2, '4294967295'], [3, '2147483648']], '(i * 214013) % 4294967296') + '::UINTEGER')],
  ['u64', nul(18, edge([[1, '0'], [2, '9223372036854775807'], [3, '9223372036854775808'],
                        [4, '18446744073709551615'], [5, '9300000000000000000']],
                       `CASE WHEN i BETWEEN ${U0} AND ${U0 + 2047} THEN` + ' 9223372036854775808::UBIGINT + i::UBIGINT * 1000000007 ' +
                       'ELSE i::UBIGINT * 922337203685477::UBIGINT END') + '::UBIGINT')],
  ['h', nul(19, edge([[1, "'-170141183460469231731687303715884105728'::HUGEINT"],
                      [2, "'170141183460469231731687303715884105727'::HUGEINT"]],
                     'i::HUGEINT * 100000000000000000000::HUGEINT') + '::HUGEINT')],
  ['uh', nul(20, edge([[1, "'340282366920938463463374607431768211455'::UHUGEINT"]], 'i::UHUGEINT * 3') + '::UHUGEINT')],
  ['dec4', nul(21, edge([[1, '-999.9'], [2, '999.9'], [3, '-0.1']], '((i % 19999) - 9999) / 10.0') + '::DECIMAL(4,1)')],
  ['dec9', nul(22, edge([[1, '-9999999.99'], [2, '9999999.99'], [3, '-0.05']], '((i * 7919) % 2000000 - 1000000) / 100.0') + '::DECIMAL(9,2)')],
  ['dec15', nul(23, edge([[1, '-999999999999.999'], [2, '999999999999.999']], '(i * 1000003 - 7) / 1000.0') + '::DECIMAL(15,3)')],
  ['dec18', nul(24, edge([[1, '-99999999999999.9999'], [2, '99999999999999.9999'], [3, '-0.0001']],
                         '((i::BIGINT * 4999999999937 - 49999999999999999)::DECIMAL(18,0) * 0.0001::DECIMAL(5,4))') + '::DECIMAL(18,4)')],
  ['dec38', nul(25, edge([[1, '-9999999999999999999999999999.9999999999'], [2, '9999999999999999999999999999.9999999999'],
                          [3, '-0.0000000001']],
                         '((i::HUGEINT * 12345678901234567890123 - 3)::DECIMAL(38,0) * 0.0000000001::DECIMAL(11,10))') + '::DECIMAL(38,10)')],
  ['f32', nul(26, edge([[1, "'nan'"], [2, "'inf'"], [3, "'-inf'"], [4, '-0.0'], [5, '3.4028235e38'], [6, '1e-45']],
                       '(i * 0.37 - 100)') + '::FLOAT')],
  ['f64', nul(27, edge([[1, "'nan'"], [2, "'inf'"], [3, "'-inf'"], [4, '-0.0'], [5, '1.7976931348623157e308'],
                        [6, '5e-324'], [7, '0.1']], '(i * 0.123456789 - 1000)') + '::DOUBLE')],
  ['price', nul(28, '((i * 7919) % 100000) / 100.0') + '::DECIMAL(9,2)'],
  ['b', nul(29, 'i % 3 = 0') + '::BOOLEAN'],
  ['d', nul(30, edge([[1, "DATE '0001-01-01'"], [2, "DATE '9999-12-31'"], [3, "DATE '1970-01-01'"], [4, "DATE '1969-12-31'"]],
                     "DATE '2000-01-01' + (i % 10000)::INTEGER") + '::DATE')],
  ['t', nul(31, edge([[1, "TIME '00:00:00'"], [2, "TIME '23:59:59.999999'"], [3, "TIME '24:00:00'"]],
                     "TIME '00:00:00' + to_microseconds((i * 123456789) % 86400000000)") + '::TIME')],
  ['tns', nul(32, edge([[1, "'00:00:00.000000001'"], [2, "'23:59:59.999999999'"]],
                       "'12:00:00'::TIME_NS") + '::TIME_NS')],
  ['ttz', nul(33, edge([[1, "'12:00:00+05'"], [2, "'00:30:00-02:30'"]], "'08:15:30.25+00'") + '::TIMETZ')],
  ['ts_s', nul(34, edge([[1, "'1969-12-31 23:59:59'"], [2, "'0001-01-01 00:00:00'"]],
                        "TIMESTAMP '2020-01-01' + to_seconds(i * 37)") + '::TIMESTAMP_S')],
  ['ts_ms', nul(35, edge([[1, "'1969-12-31 23:59:59.999'"], [2, "'9999-12-31 23:59:59.999'"]],
                         "TIMESTAMP '2020-01-01' + to_milliseconds(i * 37001)") + '::TIMESTAMP_MS')],
  ['ts', nul(36, edge([[1, "'1969-12-31 23:59:59.999999'"], [2, "'0001-01-01 00:00:00'"], [3, "'9999-12-31 23:59:59.999999'"],
                       [4, "'2000-02-29 12:00:00.5'"]],
                      "TIMESTAMP '2020-01-01' + to_microseconds(i * 37000001)") + '::TIMESTAMP')],
  ['ts_ns', nul(37, edge([[1, "'1969-12-31 23:59:59.999999999'"], [2, "'1677-09-22 00:00:00'"], [3, "'2262-04-11 00:00:00'"]],
                         "'2020-01-01'::TIMESTAMP_NS + to_microseconds(i * 37000001)") + '::TIMESTAMP_NS')],
  ['tstz', nul(38, edge([[1, "'2020-06-01 12:00:00+05'"], [2, "'1969-12-31 23:59:59.5+00'"]],
                        "TIMESTAMPTZ '2020-01-01 00:00:00+00' + to_microseconds(i * 1000001)") + '::TIMESTAMPTZ')],
  ['iv', nul(39, edge([[1, "INTERVAL 0 DAY"]], 'to_months(i % 30) + to_days(i % 400) + to_milliseconds((i * 1234) % 86400000)') + '::INTERVAL')],
  ['u', nul(40, edge([[1, "'00000000-0000-0000-0000-000000000000'"], [2, "'ffffffff-ffff-ffff-ffff-ffffffffffff'"],
                      [3, "'80000000-0000-0000-0000-000000000000'"], [4, "'7fffffff-ffff-ffff-ffff-ffffffffffff'"]],
                     'md5(i::VARCHAR)') + '::UUID')],
  ['bl', nul(41, edge([[1, "''::BLOB"], [2, "'\\xFF\\x00\\x80'::BLOB"]], "('bytes-' || (i % 500))::BLOB") + '::BLOB')],
  ['s', nul(42, edge([[1, "''"], [2, "'héllo wörld ☃ 𝄞'"], [3, "repeat('x', 5000)"], [4, "'a''quote\"'"]],
                     "'str-' || (i % 100)") + '::VARCHAR')],
  ['cat', nul(9, "['red', 'green', 'blue', 'cyan'][1 + i % 4]") + '::VARCHAR'],
  ['e', nul(43, "['lo', 'mid', 'hi'][1 + i % 3]") + "::ENUM('lo', 'mid', 'hi')"],
  ['bt', nul(45, "('1' || (i % 2)::VARCHAR || '01')") + '::BIT'],
  ['vi', nul(46, "('-' || i::VARCHAR || '123456789012345678901234567890')") + '::VARINT'],
  ['j', nul(44, edge([[1, "'[]'"], [2, "'{\"a\":[1,2,{\"b\":null}],\"c\":\"x\"}'"]], "'{\"n\":' || i || '}'") + '::JSON')],
];
// Twice: as DuckDB writes by default, and with PARQUET_VERSION V2 (its
// v2 encodings: DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY,
// BYTE_STREAM_SPLIT) and ZSTD.
for (const [file, opts] of [['scalars.parquet', ''], ['scalars2.parquet', ', PARQUET_VERSION V2, COMPRESSION zstd']]) {
  await con.run(`COPY (SELECT ${scalars.map(([n, e]) => `${e} AS ${qi(n)}`).join(', ')}
                   FROM (SELECT range AS i FROM range(${N})) ORDER BY i)
                 TO ${sq(at(file))} (FORMAT parquet, ROW_GROUP_SIZE 2048${opts})`);
}

// ---- nested.parquet ------------------------------------------------------
const M = small ? 2100 : 6000;
const nested = [
  ['id', 'i::BIGINT'],
  ['li', `CASE i % 7 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[] WHEN 2 THEN [NULL]::INTEGER[]
          ELSE [i::INTEGER, NULL, (i + 1)::INTEGER, -2147483648] END`],
  ['ls', `CASE i % 5 WHEN 0 THEN NULL WHEN 1 THEN []::VARCHAR[] ELSE ['a' || i, NULL, '', 'é"\\'] END`],
  ['lli', `CASE i % 6 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[][] WHEN 2 THEN [NULL]::INTEGER[][]
           WHEN 3 THEN [[]::INTEGER[], [NULL]::INTEGER[]] ELSE [[1, 2], NULL, [i::INTEGER]] END`],
  ['st', `CASE i % 5 WHEN 0 THEN NULL
          WHEN 1 THEN {'a': NULL::INTEGER, 'b': NULL::VARCHAR, 'c': NULL::DOUBLE, 'd': NULL::DATE,
                       'ts': NULL::TIMESTAMP, 'dec': NULL::DECIMAL(9,2), 'l': NULL::INTEGER[]}
          ELSE {'a': i::INTEGER, 'b': 'b' || i, 'c': i / 4.0, 'd': DATE '2020-01-01' + i::INTEGER,
                'ts': TIMESTAMP '2020-01-01' + to_microseconds(i * 1000500), 'dec': (i / 100.0)::DECIMAL(9,2),
                'l': [i::INTEGER, NULL]} END`],
  ['m', `CASE i % 4 WHEN 0 THEN NULL WHEN 1 THEN MAP([]::VARCHAR[], []::INTEGER[])
         ELSE MAP(['k1', 'k' || i], [i::INTEGER, NULL::INTEGER]) END`],
  ['mi', `CASE i % 3 WHEN 0 THEN NULL ELSE MAP([i::INTEGER, -1], [['x', NULL]::VARCHAR[], NULL::VARCHAR[]]) END`],
  ['los', `CASE i % 8 WHEN 0 THEN NULL WHEN 1 THEN []::STRUCT(x INTEGER, y VARCHAR, z INTEGER[])[]
           WHEN 2 THEN [NULL]::STRUCT(x INTEGER, y VARCHAR, z INTEGER[])[]
           WHEN 3 THEN [{'x': NULL::INTEGER, 'y': NULL::VARCHAR, 'z': NULL::INTEGER[]}]
           ELSE [{'x': i::INTEGER, 'y': 'y' || i, 'z': []::INTEGER[]},
                 {'x': -i::INTEGER, 'y': NULL, 'z': [1, NULL, 3]}, NULL] END`],
  ['sl', `CASE i % 4 WHEN 0 THEN NULL
          WHEN 1 THEN {'p': NULL::STRUCT(q INTEGER, r VARCHAR[]), 's': NULL::BIGINT[]}
          ELSE {'p': {'q': i::INTEGER, 'r': ['r', NULL]}, 's': [i::BIGINT * 1000000000000, NULL]} END`],
  ['lu', `CASE i % 3 WHEN 0 THEN NULL ELSE [md5(i::VARCHAR)::UUID, NULL] END`],
  ['ld', `CASE i % 3 WHEN 0 THEN NULL ELSE [(i * 1.2345)::DECIMAL(18,4), NULL, -0.0001::DECIMAL(18,4)] END`],
  ['lts', `CASE i % 3 WHEN 0 THEN NULL ELSE [TIMESTAMP '2021-03-04 05:06:07' + to_microseconds(i * 250000), NULL] END`],
  ['lb', `CASE i % 3 WHEN 0 THEN NULL ELSE [i % 2 = 0, NULL] END`],
  ['lf', `CASE i % 3 WHEN 0 THEN NULL ELSE [(i * 0.1)::FLOAT, NULL]::FLOAT[] END`],
  ['ldb', `CASE i % 3 WHEN 0 THEN NULL ELSE [i / 3.0, NULL, -0.0]::DOUBLE[] END`],
  ['arr', `(CASE i % 4 WHEN 1 THEN [NULL, 1, 2]::INTEGER[] ELSE [i::INTEGER, (i + 1)::INTEGER, (i + 2)::INTEGER] END)::INTEGER[3]`],
  ['un', `CASE i % 3 WHEN 0 THEN NULL WHEN 1 THEN union_value(num := i::INTEGER)::UNION(num INTEGER, str VARCHAR)
          ELSE union_value(str := 's' || i)::UNION(num INTEGER, str VARCHAR) END`],
  ['lbl', `CASE i % 3 WHEN 0 THEN NULL ELSE [('blob' || i)::BLOB, NULL] END`],
];
for (const [file, opts] of [['nested.parquet', ', COMPRESSION uncompressed'],
                            ['nested2.parquet', ', PARQUET_VERSION V2, COMPRESSION brotli']]) {
  await con.run(`COPY (SELECT ${nested.map(([n, e]) => `${e} AS ${qi(n)}`).join(', ')}
                   FROM (SELECT range AS i FROM range(${M})) ORDER BY i)
                 TO ${sq(at(file))} (FORMAT parquet, ROW_GROUP_SIZE 1024${opts})`);
}

// ---- multi/part-N.parquet: one schema, four files, four codecs -----------
rmSync(at('multi'), { recursive: true, force: true });
mkdirSync(at('multi'));
const codecs = ['snappy', 'zstd', 'lz4', 'gzip'];
for (let k = 0; k < 4; k++) {
  await con.run(`COPY (SELECT (range + ${k * F})::BIGINT AS id,
                   CASE WHEN range % 10 = 9 THEN NULL ELSE 'g' || (range % 5) END AS grp,
                   (range * 0.25)::DOUBLE AS val,
                   TIMESTAMP '2024-01-01' + to_seconds(range * 60 + ${k * 86400}) AS ts,
                   CASE WHEN range % 3 = 0 THEN NULL ELSE (range % 1000)::INTEGER END AS tag
                 FROM range(${F}))
                 TO ${sq(at(`multi/part-${k}.parquet`))}
                 (FORMAT parquet, ROW_GROUP_SIZE 1024, COMPRESSION ${codecs[k]})`);
}

// No rows, the same schema (DuckDB writes the file all the same).
await con.run(`COPY (SELECT * FROM read_parquet(${sq(at('multi/part-0.parquet'))}) WHERE false)
               TO ${sq(at('empty.parquet'))} (FORMAT parquet)`);

// ---- union/: files whose columns differ (union_by_name) -------------------
rmSync(at('union'), { recursive: true, force: true });
mkdirSync(at('union'));
await con.run(`COPY (SELECT range::BIGINT AS id, (range * 3)::INTEGER AS a, 'b' || range AS b
                 FROM range(3000))
               TO ${sq(at('union/u1.parquet'))} (FORMAT parquet, ROW_GROUP_SIZE 1024)`);
await con.run(`COPY (SELECT (range + 3000)::BIGINT AS id, 'b' || range AS b, range / 8.0 AS c,
                   CASE WHEN range % 2 = 0 THEN NULL ELSE [range::INTEGER] END AS d
                 FROM range(2500))
               TO ${sq(at('union/u2.parquet'))} (FORMAT parquet, ROW_GROUP_SIZE 1024)`);

// ---- bas.parquet: byte arrays without a logical type (binary_as_string) ---
await con.run(`COPY (SELECT range::BIGINT AS id,
                   CASE WHEN range % 5 = 0 THEN NULL ELSE encode('text ' || range || ' é') END AS raw
                 FROM range(3000))
               TO ${sq(at('bas.parquet'))} (FORMAT parquet)`);

// ---- named.parquet: columns named as the table's hidden ones -------------
// (what COPY (SELECT *, filename FROM read_parquet(...)) writes)
await con.run(`COPY (SELECT range::BIGINT AS id, 'f' || range AS filename, range * 2 AS file_row_number
                 FROM range(100))
               TO ${sq(at('named.parquet'))} (FORMAT parquet)`);
await con.run(`CREATE VIEW named AS SELECT * FROM read_parquet(${sq(at('named.parquet'))})`);

// ---- hive/: COPY ... PARTITION_BY ---------------------------------------
rmSync(at('hive'), { recursive: true, force: true });
await con.run(`COPY (SELECT range::BIGINT AS id, (range * 1.5)::DOUBLE AS val,
                 'n' || range AS name,
                 2020 + range % 3 AS year,
                 CASE range % 4 WHEN 0 THEN 'x' WHEN 1 THEN 'y z' WHEN 2 THEN 'a/b=c' ELSE NULL END AS cat
               FROM range(${small ? 2000 : 8000}))
               TO ${sq(at('hive'))} (FORMAT parquet, PARTITION_BY (year, cat), ROW_GROUP_SIZE 1024)`);

// ---- delta.parquet: PARQUET_VERSION V2 ------------------------------------
await con.run(`COPY (SELECT (range * 7 - 100000)::INTEGER AS v32,
                 CASE WHEN range % 11 = 0 THEN NULL ELSE (range * 1000003)::BIGINT END AS v64,
                 'k' || range AS s,
                 (range % 5)::INTEGER AS low,
                 (range * 0.1)::DOUBLE AS dbl
               FROM range(${small ? 12000 : 50000}))
               TO ${sq(at('delta.parquet'))} (FORMAT parquet, PARQUET_VERSION V2, ROW_GROUP_SIZE 10000, COMPRESSION gzip)`);

// ---- arrays.parquet: a NULL fixed-size ARRAY ------------------------------
// DuckDB writes a NULL INTEGER[3] as three entries: repetition levels 0, 1,
// 1, all of definition level 0 (a NULL list is one entry of level 0 by the
// spec).
await con.run(`COPY (SELECT range::BIGINT AS id,
                   (CASE WHEN range % 2 = 0 THEN NULL ELSE [range::INTEGER, NULL, 7] END)::INTEGER[3] AS arr
                 FROM range(10))
               TO ${sq(at('arrays.parquet'))} (FORMAT parquet)`);

// ---- delta33.parquet: INT32 deltas past 32 bits -----------------------------
// DuckDB computes the deltas of INT32 values in 64 bits: from -2^31 to
// 2^31 - 1 is a miniblock of bit width 33.  Uncompressed, so that
// parquet_explain shows the pages' values field by field.
await con.run(`COPY (SELECT (CASE range WHEN 1 THEN -2147483648 WHEN 2 THEN 2147483647 ELSE range END)::INTEGER AS v
                 FROM range(1000))
               TO ${sq(at('delta33.parquet'))} (FORMAT parquet, PARQUET_VERSION V2, COMPRESSION uncompressed)`);

// ---- DuckDB's reading of each table ---------------------------------------
const tables = [
  ['scalars', sq(at('scalars.parquet'))],
  ['nested', sq(at('nested.parquet'))],
  ['multi', sq(at('multi/part-*.parquet'))],
  ['multi2', `[${sq(at('multi/part-2.parquet'))}, ${sq(at('multi/part-0.parquet'))}]`],
  ['hive', sq(at('hive/*/*/*.parquet')), 'hive_partitioning=true'],
  ['delta', sq(at('delta.parquet'))],
  ['scalars2', sq(at('scalars2.parquet'))],
  ['nested2', sq(at('nested2.parquet'))],
  ['multi3', `[${sq(at('multi/part-3.parquet'))}, ${sq(at('empty.parquet'))}]`],
  ['empty', sq(at('empty.parquet'))],
  ['uni', sq(at('union/*.parquet')), 'union_by_name=true'],
  ['bas', sq(at('bas.parquet')), 'binary_as_string=true'],
  ['arrays', sq(at('arrays.parquet'))],
  ['delta33', sq(at('delta33.parquet'))],
].map(([name, files, opts]) => ({
  name, files, from: `read_parquet(${files}, ${opts || 'hive_partitioning=false'}`,
}));

const frac = (c, per, digits) =>
  `CASE WHEN ((${c} % ${per}::BIGINT) + ${per}) % ${per} = 0 THEN '' ELSE ` +
  `'.' || lpad(((((${c} % ${per}::BIGINT) + ${per}) % ${per})::VARCHAR), ${digits}, '0') END`;
const clock = (x, per, digits) => // x: units since midnight
  `lpad((${x} // (3600 * ${per}::BIGINT))::VARCHAR, 2, '0') || ':' || lpad(((${x} // (60 * ${per}::BIGINT)) % 60)::VARCHAR, 2, '0') || ':' ||` +
  ` lpad(((${x} // ${per}) % 60)::VARCHAR, 2, '0') || ${frac(x, per, digits)}`;
const real = (x) => `CASE WHEN isnan(${x}) THEN NULL WHEN isinf(${x}) THEN CASE WHEN ${x} > 0 THEN '9e999' ELSE '-9e999' END ELSE (${x})::VARCHAR END`;

// The unit of each top-level field of a file whose values are times or
// timestamps (DuckDB reads MILLIS back as TIMESTAMP, but the file's unit
// says the digits): 'MILLIS', 'MICROS' or 'NANOS'.
async function unitsOf(path) {
  const schema = await rows(`SELECT name, num_children, logical_type, converted_type
                               FROM parquet_schema(${sq(path)})`);
  const units = {};
  let i = 1;
  const skip = () => { // past one node and its descendants
    const n = Number(schema[i][1] || 0);
    i++;
    for (let k = 0; k < n; k++) skip();
  };
  for (let k = 0; k < Number(schema[0][1]); k++) {
    const [name, , logical, converted] = schema[i];
    const l = String(logical || '') + ' ' + String(converted || '');
    units[name] = /NANOS=NanoSeconds/.test(l) ? 'NANOS'
      : /MILLIS=MilliSeconds|_MILLIS/.test(l) ? 'MILLIS'
      : /MICROS=MicroSeconds|_MICROS/.test(l) ? 'MICROS' : null;
    skip();
  }
  return units;
}

function canon(col, type, unit) {
  const c = qi(col);
  const per = { MILLIS: 1000, MICROS: 1000000, NANOS: 1000000000 }[unit] || 1000000;
  const digits = { MILLIS: 3, MICROS: 6, NANOS: 9 }[unit] || 6;
  const epoch = { MILLIS: 'epoch_ms', MICROS: 'epoch_us', NANOS: 'epoch_ns' }[unit] || 'epoch_us';
  const ts = () =>
    `strftime(${c}::TIMESTAMP, '%Y-%m-%d %H:%M:%S') || ${frac(`${epoch}(${c})`, per, digits)}`;
  switch (type) {
    case 'BOOLEAN': return `${c}::INTEGER::VARCHAR`;
    case 'FLOAT': return real(`${c}::DOUBLE`);
    case 'DOUBLE': return real(c);
    case 'DATE': return `strftime(${c}, '%Y-%m-%d')`;
    case 'TIME': return clock(`(epoch_ns(${c}) // ${1000000000 / per})`, per, digits);
    case 'TIME_NS': return clock(`(epoch_ns(${c}) // ${1000000000 / per})`, per, digits);
    case 'TIME WITH TIME ZONE': return clock(`(epoch_ns(${c}::TIME) // ${1000000000 / per})`, per, digits);
    case 'TIMESTAMP_S':
    case 'TIMESTAMP_MS':
    case 'TIMESTAMP':
    case 'TIMESTAMP_NS':
    case 'TIMESTAMP WITH TIME ZONE': return ts();
    case 'BLOB': return `hex(${c})`;
  }
  if (/\[\]$|^STRUCT|^MAP|^UNION/.test(type)) return `to_json(${c})::VARCHAR`;
  return `${c}::VARCHAR`;
}

for (const t of tables) {
  const from = `${t.from}, filename=true, file_row_number=true)`;
  const cols = (await rows(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${t.from}))`))
    .map(([name, type]) => ({ name, type }));
  const first = (await rows(`SELECT file_name FROM parquet_file_metadata(${t.files}) ORDER BY 1 LIMIT 1`))[0][0];
  const units = await unitsOf(first);
  const exprs = cols.map((c) => canon(c.name, c.type, units[c.name]));
  const data = (await rows(`SELECT filename, file_row_number::VARCHAR, ${exprs.join(', ')}
                             FROM ${from} ORDER BY filename, file_row_number`))
    .map((r) => r.map(cell));
  // The encodings of each column of the first file.
  const encodings = {};
  for (const [path, enc] of await rows(
    `SELECT path_in_schema, string_agg(DISTINCT encodings, ',') FROM parquet_metadata(${sq(first)}) GROUP BY 1`)) {
    encodings[path] = String(enc);
  }
  writeFileSync(at(`${t.name}.expected.json`),
                JSON.stringify({ name: t.name, from: t.from + ')', columns: cols, encodings, rows: data }));
  await con.run(`CREATE VIEW ${qi(t.name)} AS SELECT * FROM ${from}`);
  console.log(JSON.stringify({ table: t.name, rows: data.length, columns: cols.length }));
}

// ---- The aggregate queries -------------------------------------------------
if (queriesPath) {
  // The extension's exact decimal sum is DuckDB's sum of a DECIMAL.
  await con.run('CREATE MACRO decimal_sum(x) AS sum(x)');
  const out = [];
  for (const q of JSON.parse(readFileSync(queriesPath, 'utf8'))) {
    try {
      const r = await rows(`SELECT COLUMNS(*)::VARCHAR FROM (${q.sql})`);
      out.push({ name: q.name, rows: r.map((x) => x.map(cell)) });
    } catch (e) {
      out.push({ name: q.name, error: String(e.message).split('\n')[0] });
    }
  }
  writeFileSync(at('queries.out.json'), JSON.stringify(out));
  console.log(JSON.stringify({ queries: out.length }));
}
