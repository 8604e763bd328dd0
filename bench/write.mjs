// write.mjs DUCKDB_DIR FILE OUTDIR RUNS
//
// DuckDB's side of the benchmark of parquet_write (bench/write.c): with
// one thread, a table of its own holding the rows of the SQLite table
// `native` (bench/tables.c made it from FILE, t.parquet) in the same
// types as SQLite holds them: id BIGINT, ts VARCHAR (the timestamp as
// the text native.db has: its fraction in six digits, none when zero),
// x DOUBLE, cat VARCHAR, url VARCHAR, opt BIGINT.  Then, best of RUNS
// after one untimed run, COPY native TO OUTDIR/duckdb.parquet with
// DuckDB's defaults (SNAPPY), and to OUTDIR/duckdb_uncompressed.parquet
// with COMPRESSION uncompressed.  Prints one JSON line:
// {load, ts_chars, default: {seconds, bytes, row_groups}, uncompressed: {...}}.
import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, file, outdir, runsArg] = process.argv.slice(2);
const runs = Number(runsArg || 3);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];
const clock = () => Number(process.hrtime.bigint()) / 1e9;

const t0 = clock();
await con.run(`CREATE TABLE native AS SELECT
    id::BIGINT AS id,
    strftime(ts, '%Y-%m-%d %H:%M:%S') ||
      CASE WHEN epoch_us(ts) % 1000000 = 0 THEN ''
           ELSE '.' || lpad((epoch_us(ts) % 1000000)::VARCHAR, 6, '0') END AS ts,
    x::DOUBLE AS x, cat::VARCHAR AS cat, url::VARCHAR AS url, opt::BIGINT AS opt
  FROM read_parquet(${sq(file)})`);
const load = clock() - t0;
const [tsChars] = await one('SELECT sum(length(ts)) FROM native');

const out = { load, ts_chars: Number(tsChars) };
const cases = {
  default: ['duckdb.parquet', '(FORMAT parquet)'],
  uncompressed: ['duckdb_uncompressed.parquet', '(FORMAT parquet, COMPRESSION uncompressed)'],
};
for (const [name, [base, opts]] of Object.entries(cases)) {
  const path = join(outdir, base);
  const sql = `COPY native TO ${sq(path)} ${opts}`;
  await con.run(sql); // untimed, as bench/write.c does
  let t = Infinity;
  for (let i = 0; i < runs; i++) {
    const a = clock();
    await con.run(sql);
    t = Math.min(t, clock() - a);
  }
  const [groups] = await one(
    `SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${sq(path)})`);
  out[name] = { seconds: t, bytes: statSync(path).size, row_groups: Number(groups) };
}
console.log(JSON.stringify(out));
