// duckdb_sql.mjs DUCKDB_DIR SQL... -- runs each statement with DuckDB (one
// thread, one connection, in order) and prints one JSON line for each:
// {rows: [[cell, ...], ...]} with every cell as DuckDB's VARCHAR of it (or
// null), or {error}.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, ...statements] = process.argv.slice(2);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
for (const sql of statements) {
  try {
    const r = await con.runAndReadAll(sql);
    const rows = r.getRows().map((row) =>
      row.map((v) => (v === null || v === undefined ? null : String(v))));
    console.log(JSON.stringify({ rows }));
  } catch (e) {
    console.log(JSON.stringify({ error: String(e.message).split('\n')[0] }));
  }
}
