// duckdb.mjs DUCKDB_DIR MANIFEST -- reads Parquet files with DuckDB.
//
// MANIFEST is a JSON array of {name, in, out, expr}.  For each file, DuckDB
// (one thread) reads it into a table, counts its rows and values, checks
// that filters at the column's min and max find the same rows in the file
// (where the file's statistics may prune) as in the table, and writes
// `SELECT expr AS v FROM t` to `out` as a Parquet file of its own, for the
// caller to compare value by value.  Prints one JSON line per file:
// {name, rows, values, bounds: [file, table, file, table]} or {name, error}.
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, manifest] = process.argv.slice(2);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];

for (const f of JSON.parse(readFileSync(manifest, 'utf8'))) {
  const r = { name: f.name };
  try {
    await con.run(`CREATE OR REPLACE TABLE t AS SELECT v FROM read_parquet(${sq(f.in)})`);
    const [rows, values, type] = await one('SELECT count(*), count(v), any_value(typeof(v)) FROM t');
    r.rows = Number(rows);
    r.values = Number(values);
    r.bounds = [];
    if (r.values > 0) {
      const [lo, hi] = await one('SELECT min(v)::VARCHAR, max(v)::VARCHAR FROM t');
      for (const b of [lo, hi]) {
        const where = `WHERE v = CAST(${sq(b)} AS ${type})`;
        const [inFile] = await one(`SELECT count(*) FROM read_parquet(${sq(f.in)}) ${where}`);
        const [inTable] = await one(`SELECT count(*) FROM t ${where}`);
        r.bounds.push(Number(inFile), Number(inTable));
      }
    }
    await con.run(`COPY (SELECT ${f.expr} AS v FROM t) TO ${sq(f.out)} (FORMAT parquet, COMPRESSION uncompressed)`);
  } catch (e) {
    r.error = String(e.message).split('\n')[0];
  }
  console.log(JSON.stringify(r));
}
