// readers.mjs READER PARQUET_WASM_DIR HYPARQUET_DIR FILE...
// readers.mjs duckdb DUCKDB_DIR FILE...
//   -- reads Parquet files with one of three readers:
//
//   arrow      arrow-rs, through the npm package parquet-wasm
//              (tools/parquet_wasm.sh): readParquet gives an Arrow table in
//              WebAssembly memory, exported through the Arrow C Data
//              Interface (Table.intoFFI), whose ArrowSchema and ArrowArray
//              structs and buffers are read here from the module's memory
//   hyparquet  the npm package hyparquet, with hyparquet-compressors for
//              the codecs besides SNAPPY (tools/hyparquet.sh)
//   duckdb     DuckDB, the npm package @duckdb/node-api (tools/duckdb.sh),
//              one thread: SELECT * FROM read_parquet(FILE), in the file's
//              order, the values as the package's value objects give them
//
// Prints one JSON line per FILE, in order:
//   {"file": FILE, "columns": [name, ...], "rows": [[value, ...], ...]}
//   {"file": FILE, "error": "the reader's message, its first line"}
// arrow adds "types": each column's Arrow format string ("tsu:UTC",
// "d:38,10", ...); duckdb adds "types", each column's DuckDB type, and,
// read or not, "metadata" and "schema": the rows of DuckDB's
// parquet_metadata(FILE) (row_group_id, path_in_schema, type, encodings,
// compression, num_values, stats_null_count, stats_min_value,
// stats_max_value) and parquet_schema(FILE) (name, type, type_length,
// repetition_type, converted_type, scale, precision, logical_type), every
// value as text or null; or "metadata_error", the first line of DuckDB's
// message when those fail.
//
// Values, in a form that SQLite's JSON functions and Tcl compare exactly:
//   NULL                  null
//   boolean               true, false
//   integer               a number; beyond 2^53 in magnitude, its decimal
//                         digits as a string ("9223372036854775807")
//   FLOAT, DOUBLE         a number, the shortest text that gives back its
//                         bits (-0 as -0.0); "NaN", "Infinity", "-Infinity"
//   string                a string
//   bytes                 {"hex": "00ff..."} (BYTE_ARRAY that is not
//                         STRING, FIXED_LEN_BYTE_ARRAY)
//   INT96, timestamps,    an integer of the unit the reader makes of it,
//   dates, times          not a Date: INT96 as nanoseconds since the epoch
//                         (arrow-rs: an int64, which wraps around outside
//                         the years 1677..2262; hyparquet: exact; DuckDB:
//                         a TIMESTAMP, microseconds), TIMESTAMP in its unit
//                         (DuckDB: its type's, see "types"), DATE in days,
//                         TIME in its unit (DuckDB: TIME in microseconds,
//                         TIME_NS in nanoseconds).  hyparquet's parsers,
//                         which would make JS Dates of milliseconds, are
//                         replaced by ones that keep the integer
//   DECIMAL               arrow and DuckDB: the unscaled integer;
//                         hyparquet: the number it makes (unscaled x
//                         10^-scale, a double)
//   UUID                  arrow: bytes (FIXED_LEN_BYTE_ARRAY(16));
//                         hyparquet and DuckDB: the 36-character string
//   JSON                  a string: hyparquet's parser, which would parse
//                         it, is replaced by one that keeps the text
//   FLOAT16               arrow: the half's value as a number; hyparquet:
//                         the same (it converts them itself)
// Flat columns only: a nested one (list, map, struct), or a value of a
// kind not above (GeoJSON), is the file's error.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const reader = process.argv[2];
const [wasmDir, hypDir, ...files] = reader === 'duckdb'
  ? [null, null, ...process.argv.slice(4)] : process.argv.slice(3);
const duckDir = reader === 'duckdb' ? process.argv[3] : null;
if (!['arrow', 'hyparquet', 'duckdb'].includes(reader)) {
  console.error('usage: node readers.mjs arrow|hyparquet PARQUET_WASM_DIR HYPARQUET_DIR FILE...\n' +
                '       node readers.mjs duckdb DUCKDB_DIR FILE...');
  process.exit(2);
}

// ---- Values as JSON text ----
const LIMIT = 2n ** 53n;
const hexOf = (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

function jsonValue(v) {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v > LIMIT || v < -LIMIT ? `"${v}"` : String(v);
    case 'number':
      if (Number.isNaN(v)) return '"NaN"';
      if (v === Infinity) return '"Infinity"';
      if (v === -Infinity) return '"-Infinity"';
      if (Object.is(v, -0)) return '-0.0';
      return String(v);
    case 'string':
      return JSON.stringify(v);
  }
  if (v instanceof Uint8Array) return `{"hex":"${hexOf(v)}"}`;
  throw new Error(`readers.mjs: a value it does not write: ${Object.prototype.toString.call(v)}`);
}

// extra: keys beside file, columns and rows (types, metadata, schema)
function printFile(file, columns, rows, extra = {}) {
  const out = rows.map((r) => '[' + r.map(jsonValue).join(',') + ']');
  let more = '';
  for (const [k, v] of Object.entries(extra)) more += `,${JSON.stringify(k)}:${JSON.stringify(v)}`;
  console.log(`{"file":${JSON.stringify(file)},"columns":${JSON.stringify(columns)}${more},"rows":[${out.join(',')}]}`);
}

const firstLine = (e) => String(e instanceof Error ? e.message : e).split('\n')[0];

// ---- hyparquet ----
async function hyparquetReader() {
  const require = createRequire(join(hypDir, 'node_modules', 'x.js'));
  const hp = await import(pathToFileURL(require.resolve('hyparquet')).href);
  const { compressors } = await import(pathToFileURL(require.resolve('hyparquet-compressors')).href);
  const keep = (x) => x;
  const parsers = {
    timestampFromMilliseconds: keep,
    timestampFromMicroseconds: keep,
    timestampFromNanoseconds: keep,
    dateFromDays: keep,
    jsonFromBytes: (bytes) => bytes && new TextDecoder().decode(bytes),
    // GEOMETRY, GEOGRAPHY: the WKB's bytes (by default GeoJSON objects)
    geometryFromBytes: keep,
    geographyFromBytes: keep,
  };
  return async (file) => {
    const buf = readFileSync(file);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    const metadata = hp.parquetMetadata(ab, { parsers });
    const columns = hp.parquetSchema(metadata).children.map((c) => c.element.name);
    let rows;
    await hp.parquetRead({
      file: ab, metadata, compressors, parsers, utf8: false, rowFormat: 'array',
      onComplete: (r) => { rows = r; },
    });
    return { columns, rows };
  };
}

// ---- arrow-rs (parquet-wasm), through the Arrow C Data Interface ----
// wasm32: pointers are 4 bytes, int64 8 bytes aligned to 8.
//   struct ArrowSchema { format 0, name 4, metadata 8, flags 16,
//                        n_children 24, children 32, dictionary 36, ... }
//   struct ArrowArray  { length 0, null_count 8, offset 16, n_buffers 24,
//                        n_children 32, buffers 40, children 44,
//                        dictionary 48, ... }
function arrowReader() {
  const require = createRequire(join(wasmDir, 'node_modules', 'x.js'));
  const pw = require('parquet-wasm');
  const utf8 = new TextDecoder();
  let mem, dv;

  const u32 = (p) => dv.getUint32(p, true);
  const i64 = (p) => Number(dv.getBigInt64(p, true));
  const cstr = (p) => {
    if (!p) return null;
    let e = p;
    while (mem[e]) e++;
    return utf8.decode(mem.subarray(p, e));
  };
  const schemaOf = (p) => ({
    format: cstr(u32(p)),
    name: cstr(u32(p + 4)),
    children: Array.from({ length: i64(p + 24) }, (_, i) => schemaOf(u32(u32(p + 32) + 4 * i))),
    dictionary: u32(p + 36) ? schemaOf(u32(p + 36)) : null,
  });
  const arrayOf = (p) => ({
    length: i64(p),
    offset: i64(p + 16),
    buffers: Array.from({ length: i64(p + 24) }, (_, i) => u32(u32(p + 40) + 4 * i)),
    children: Array.from({ length: i64(p + 32) }, (_, i) => arrayOf(u32(u32(p + 44) + 4 * i))),
    dictionary: u32(p + 48) ? arrayOf(u32(p + 48)) : null,
  });
  const bit = (base, i) => (mem[base + (i >> 3)] >> (i & 7)) & 1;
  const half = (h) => {
    const e = (h >> 10) & 31, f = h & 1023, s = h >> 15 ? -1 : 1;
    if (e === 31) return f ? NaN : s * Infinity;
    return s * (e ? (1 + f / 1024) * 2 ** (e - 15) : f * 2 ** -24);
  };
  const signed128 = (p) => {
    let v = 0n;
    for (let k = 15; k >= 0; k--) v = (v << 8n) | BigInt(mem[p + k]);
    return BigInt.asIntN(128, v);
  };

  // The values of a flat array, nulls as null.
  function values(s, a) {
    const n = a.length, off = a.offset, buf = a.buffers;
    const valid = (i) => !buf[0] || bit(buf[0], off + i);
    let get;
    const fmt = s.format;
    const fixed = { c: [1, 'getInt8'], C: [1, 'getUint8'], s: [2, 'getInt16'], S: [2, 'getUint16'],
                    i: [4, 'getInt32'], I: [4, 'getUint32'], l: [8, 'getBigInt64'],
                    L: [8, 'getBigUint64'], f: [4, 'getFloat32'], g: [8, 'getFloat64'],
                    tdD: [4, 'getInt32'], tdm: [8, 'getBigInt64'] };
    if (s.dictionary) {
      const dict = values(s.dictionary, a.dictionary);
      const [w, m] = fixed[fmt];
      get = (i) => dict[Number(dv[m](buf[1] + (off + i) * w, true))];
    } else if (fixed[fmt]) {
      const [w, m] = fixed[fmt];
      get = (i) => dv[m](buf[1] + (off + i) * w, true);
    } else if (/^t[st][smun]/.test(fmt) || /^tt[smun]/.test(fmt)) {
      // timestamps (tsu:tz) and times (tts, ttm: 32-bit; ttu, ttn: 64-bit)
      const w = fmt === 'tts' || fmt === 'ttm' ? 4 : 8;
      get = w === 4 ? (i) => dv.getInt32(buf[1] + (off + i) * 4, true)
                    : (i) => dv.getBigInt64(buf[1] + (off + i) * 8, true);
    } else if (fmt === 'b') {
      get = (i) => bit(buf[1], off + i) === 1;
    } else if (fmt === 'e') {
      get = (i) => half(dv.getUint16(buf[1] + (off + i) * 2, true));
    } else if (fmt === 'u' || fmt === 'z' || fmt === 'U' || fmt === 'Z') {
      const large = fmt === 'U' || fmt === 'Z';
      const at = large ? (i) => i64(buf[1] + i * 8) : (i) => dv.getInt32(buf[1] + i * 4, true);
      const text = fmt === 'u' || fmt === 'U';
      get = (i) => {
        const bytes = mem.slice(buf[2] + at(off + i), buf[2] + at(off + i + 1));
        return text ? utf8.decode(bytes) : bytes;
      };
    } else if (fmt === 'vu' || fmt === 'vz') {
      // views: 16 bytes each, inline up to 12 bytes, else (buffer, offset)
      get = (i) => {
        const p = buf[1] + (off + i) * 16, len = dv.getInt32(p, true);
        const start = len <= 12 ? p + 4 : buf[2 + dv.getInt32(p + 8, true)] + dv.getInt32(p + 12, true);
        const bytes = mem.slice(start, start + len);
        return fmt === 'vu' ? utf8.decode(bytes) : bytes;
      };
    } else if (fmt.startsWith('w:')) {
      const w = Number(fmt.slice(2));
      get = (i) => mem.slice(buf[1] + (off + i) * w, buf[1] + (off + i + 1) * w);
    } else if (/^d:\d+,\d+$/.test(fmt) || /^d:\d+,\d+,128$/.test(fmt)) {
      get = (i) => signed128(buf[1] + (off + i) * 16);
    } else {
      throw new Error(`readers.mjs: Arrow format '${fmt}' (column ${s.name}) is not read here`);
    }
    const out = new Array(n);
    for (let i = 0; i < n; i++) out[i] = valid(i) ? get(i) : null;
    return out;
  }

  return async (file) => {
    const table = pw.readParquet(new Uint8Array(readFileSync(file)));
    const stream = table.intoFFI();
    try {
      // Nothing below calls into the module, so its memory stays put.
      mem = new Uint8Array(pw.wasmMemory().buffer);
      dv = new DataView(mem.buffer);
      const schema = schemaOf(stream.schemaAddr());
      if (schema.format !== '+s') throw new Error(`readers.mjs: a table of format '${schema.format}'`);
      const columns = schema.children.map((c) => c.name);
      const types = schema.children.map((c) => c.dictionary ? c.dictionary.format : c.format);
      const rows = [];
      for (let b = 0; b < stream.numArrays(); b++) {
        const batch = arrayOf(stream.arrayAddr(b));
        const cols = schema.children.map((c, j) => values(c, batch.children[j]));
        for (let i = 0; i < batch.length; i++) rows.push(cols.map((col) => col[batch.offset + i]));
      }
      return { columns, rows, extra: { types } };
    } finally {
      stream.free();
    }
  };
}

// ---- DuckDB ----
// The package's value objects, as the integers they hold.
async function duckdbReader() {
  const require = createRequire(join(duckDir, 'node_modules', 'x.js'));
  const duck = await import(pathToFileURL(require.resolve('@duckdb/node-api')).href);
  const db = await duck.DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await db.connect();
  const sq = (x) => "'" + String(x).replaceAll("'", "''") + "'";
  const text = (v) => (v === null || v === undefined ? null : String(v));
  const plain = (v) => {
    if (v === null || v === undefined) return null;
    if (['boolean', 'number', 'bigint', 'string'].includes(typeof v)) return v;
    if (v instanceof duck.DuckDBBlobValue) return v.bytes;
    if (v instanceof duck.DuckDBDateValue) return v.days;
    if (v instanceof duck.DuckDBTimeNSValue) return v.nanos;
    if (v instanceof duck.DuckDBTimeValue) return v.micros;
    if (v instanceof duck.DuckDBTimestampNanosecondsValue) return v.nanos;
    if (v instanceof duck.DuckDBTimestampMillisecondsValue) return v.millis;
    if (v instanceof duck.DuckDBTimestampSecondsValue) return v.seconds;
    if (v instanceof duck.DuckDBTimestampTZValue) return v.micros;
    if (v instanceof duck.DuckDBTimestampValue) return v.micros;
    if (v instanceof duck.DuckDBDecimalValue) return v.value;
    if (v instanceof duck.DuckDBUUIDValue) return v.toString();
    throw new Error(`readers.mjs: a DuckDB value it does not write: ${v.constructor.name}`);
  };
  const meta = async (file) => {
    const m = await con.runAndReadAll(
      `SELECT row_group_id, path_in_schema, type, encodings, compression, num_values,
              stats_null_count, stats_min_value, stats_max_value
         FROM parquet_metadata(${sq(file)}) ORDER BY row_group_id, column_id`);
    const s = await con.runAndReadAll(
      `SELECT name, type, type_length, repetition_type, converted_type, scale, precision,
              logical_type
         FROM parquet_schema(${sq(file)})`);
    return { metadata: m.getRows().map((r) => r.map(text)), schema: s.getRows().map((r) => r.map(text)) };
  };
  return async (file) => {
    let extra = {};
    try {
      extra = await meta(file);
    } catch (e) {
      extra = { metadata_error: firstLine(e) };
    }
    let r;
    try {
      r = await con.runAndReadAll(`SELECT * FROM read_parquet(${sq(file)})`);
    } catch (e) {
      e.extra = extra;
      throw e;
    }
    const columns = r.columnNames();
    const types = r.columnTypes().map((t) => t.toString());
    const rows = r.getRows().map((row) => row.map(plain));
    return { columns, rows, extra: { types, ...extra } };
  };
}

const read = reader === 'arrow' ? arrowReader()
  : reader === 'hyparquet' ? await hyparquetReader() : await duckdbReader();
for (const file of files) {
  try {
    const { columns, rows, extra } = await read(file);
    printFile(file, columns, rows, extra);
  } catch (e) {
    console.log(JSON.stringify({ file, error: firstLine(e), ...(e.extra || {}) }));
  }
}
