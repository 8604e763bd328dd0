// duckdb_sql.mjs DUCKDB_DIR SQL... -- runs each statement in DuckDB (one
// thread, in memory, the working folder the caller's) and prints one JSON
// line per statement: {rows: [[value as text or null, ...], ...]} or
// {error}.  Values are cast to VARCHAR by the caller where it matters.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, ...stmts] = process.argv.slice(2);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const text = (v) => (v === null || v === undefined ? null : String(v));

for (const sql of stmts) {
  try {
    const r = await con.runAndReadAll(sql);
    console.log(JSON.stringify({ rows: r.getRows().map((row) => row.map(text)) }));
  } catch (e) {
    console.log(JSON.stringify({ error: String(e.message || e).split('\n')[0] }));
  }
}
