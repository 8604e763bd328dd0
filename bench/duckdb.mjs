// duckdb.mjs DUCKDB_DIR MANIFEST RUNS -- DuckDB's side of the benchmark.
//
// MANIFEST is a JSON array of {case, in, out, agg, write}.  For each file,
// with one thread, best of RUNS: `SELECT agg FROM read_parquet(in)` (read),
// the same query over a table holding the same values (table: what the
// query costs beyond reading the file), and writing the first `write` of
// the values to `out` as Parquet (write; DuckDB chooses the encoding,
// format version 2, uncompressed).  Prints one JSON line per file: {case,
// read, table, write, encoding} in seconds, or {case, error}.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, manifest, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 5);
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
    await con.run(`CREATE OR REPLACE TABLE t AS SELECT v FROM read_parquet(${sq(f.in)})`);
    r.read = await best(`SELECT ${f.agg} FROM read_parquet(${sq(f.in)})`);
    r.table = await best(`SELECT ${f.agg} FROM t`);
    await con.run(`CREATE OR REPLACE TABLE w AS SELECT v FROM t LIMIT ${Number(f.write)}`);
    r.write = await best(`COPY w TO ${sq(f.out)} (FORMAT parquet, COMPRESSION uncompressed, PARQUET_VERSION V2)`);
    const enc = (await con.runAndReadAll(
      `SELECT encodings FROM parquet_metadata(${sq(f.out)}) LIMIT 1`)).getRows();
    r.encoding = String(enc[0][0]);
  } catch (e) {
    r.error = String(e.message).split('\n')[0];
  }
  console.log(JSON.stringify(r));
}
