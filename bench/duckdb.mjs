// duckdb.mjs DUCKDB_DIR MANIFEST RUNS [LONG] -- DuckDB's side of the benchmark.
//
// MANIFEST is a JSON array of {case, in, out, agg, write}.  For each
// file, with one thread:
//
//   read    DuckDB's time decoding the file: the time its profiler gives
//           the scan (the TABLE_SCAN operator of read_parquet, which reads
//           and decodes the column into its vectors) in
//           `EXPLAIN (ANALYZE, FORMAT json) SELECT agg FROM
//           read_parquet([in, in, ...])`, k copies of the file in the list
//           so that the query lasts at least LONG seconds (0.1 unless
//           said), over k: seconds per file.  The aggregate's own time is
//           the profiler's too, apart, and is left out; so is what any
//           query costs.
//   write   `COPY (w UNION ALL w ...) TO out`, w the first `write` rows
//           of the file, k times: the slope of the time over k, (t(k) -
//           t(1)) / (k - 1), k making the larger query last at least LONG:
//           seconds per `write` rows written (DuckDB chooses the encoding,
//           format version 2, uncompressed).
//
// Each the best of RUNS.  Prints one JSON line per file: {case, read,
// write, k_read, k_write, encoding} in seconds, or {case, error}.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, manifest, runsArg, longArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const LONG = Number(longArg || 0.1); // seconds: the least time of the larger query
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const repeat = (k, s, sep) => Array(k).fill(s).join(sep);

async function wall(sql) {
  const a = process.hrtime.bigint();
  await con.run(sql);
  return Number(process.hrtime.bigint() - a) / 1e9;
}
async function best(sql, n) {
  let t = Infinity;
  for (let i = 0; i < n; i++) t = Math.min(t, await wall(sql));
  return t;
}

// The seconds DuckDB's profiler gives the query's TABLE_SCAN operators.
async function scanTime(sql) {
  const rows = (await con.runAndReadAll(
    `EXPLAIN (ANALYZE, FORMAT json) ${sql}`)).getRows();
  let t = 0;
  const walk = (n) => {
    if (n.operator_type === 'TABLE_SCAN') t += Number(n.operator_timing);
    for (const c of n.children || []) walk(c);
  };
  walk(JSON.parse(rows[0][1]));
  return t;
}

// k units of make(k) lasting at least LONG seconds, at most kmax.
async function enough(make, kmax) {
  let k = 1, t = await wall(make(1));
  while (t < LONG && k < kmax) {
    const guess = Math.ceil((LONG * 1.25) / Math.max(t / k, 1e-6));
    k = Math.min(kmax, Math.max(2 * k, guess));
    t = await wall(make(k));
  }
  return k;
}

for (const f of JSON.parse(readFileSync(manifest, 'utf8'))) {
  const r = { case: f.case };
  try {
    const readSql = (k) =>
      `SELECT ${f.agg} FROM read_parquet([${repeat(k, sq(f.in), ', ')}])`;
    const kr = await enough(readSql, 512);
    let read = Infinity;
    for (let i = 0; i < runs; i++) read = Math.min(read, await scanTime(readSql(kr)) / kr);

    await con.run(`CREATE OR REPLACE TABLE w AS SELECT v FROM read_parquet(${sq(f.in)}) ` +
      `LIMIT ${Number(f.write)}`);
    const copy = (k) =>
      `COPY (${repeat(k, 'SELECT v FROM w', ' UNION ALL ')}) TO ${sq(f.out)} ` +
      '(FORMAT parquet, COMPRESSION uncompressed, PARQUET_VERSION V2)';
    const kw = Math.max(2, await enough(copy, 512));
    const w1 = await best(copy(1), runs), wk = await best(copy(kw), runs);
    Object.assign(r, { read, write: Math.max((wk - w1) / (kw - 1), 1e-9),
      k_read: kr, k_write: kw });
    // The encoding DuckDB chooses for the first `write` rows.
    await con.run(copy(1));
    const enc = (await con.runAndReadAll(
      `SELECT encodings FROM parquet_metadata(${sq(f.out)}) LIMIT 1`)).getRows();
    r.encoding = String(enc[0][0]);
  } catch (e) {
    r.error = String(e.message).split('\n')[0];
  }
  console.log(JSON.stringify(r));
}
