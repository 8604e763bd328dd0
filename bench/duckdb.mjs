// duckdb.mjs DUCKDB_DIR MANIFEST RUNS -- DuckDB's side of the benchmark.
//
// MANIFEST is a JSON array of {case, in, out, agg}.  For each file, with one
// thread, best of RUNS: `SELECT agg FROM read_parquet([in, in, ...])`, the
// file REPEAT times in one query (read), the same query over a table holding
// the same values REPEAT times (table: what the query costs beyond reading
// the file), and writing the values once to `out` as Parquet (write; DuckDB
// chooses the encoding, format version 2, uncompressed).  The decode time is
// read less table; reading the file REPEAT times makes it REPEAT times
// larger than what a query costs whatever it reads (planning, starting the
// scan), which would otherwise be a good part of it.  Prints one JSON line
// per file: {case, read, table, write, encoding} in seconds (read and table
// for one pass over the file), or {case, error}.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, manifest, runsArg, repeatArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);
const repeat = Number(repeatArg || 10);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";

async function best(sql) {
  let t = Infinity;
  for (let i = 0; i < runs; i++) {
    const a = process.hrtime.bigint();
    await con.run(sql);
    const b = process.hrtime.bigint();
    t = Math.min(t, Number(b - a) / 1e9);
  }
  return t;
}

for (const f of JSON.parse(readFileSync(manifest, 'utf8'))) {
  const r = { case: f.case };
  try {
    const files = '[' + Array(repeat).fill(sq(f.in)).join(', ') + ']';
    await con.run(`CREATE OR REPLACE TABLE t AS SELECT v FROM read_parquet(${sq(f.in)})`);
    await con.run(`CREATE OR REPLACE TABLE tn AS SELECT v FROM read_parquet(${files})`);
    r.read = await best(`SELECT ${f.agg} FROM read_parquet(${files})`) / repeat;
    r.table = await best(`SELECT ${f.agg} FROM tn`) / repeat;
    await con.run('DROP TABLE tn');
    r.write = await best(`COPY t TO ${sq(f.out)} (FORMAT parquet, COMPRESSION uncompressed, PARQUET_VERSION V2)`);
    const enc = (await con.runAndReadAll(
      `SELECT encodings FROM parquet_metadata(${sq(f.out)}) LIMIT 1`)).getRows();
    r.encoding = String(enc[0][0]);
  } catch (e) {
    r.error = String(e.message).split('\n')[0];
  }
  console.log(JSON.stringify(r));
}
