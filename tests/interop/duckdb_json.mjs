// duckdb_json.mjs DUCKDB_DIR FILE... -- each row of each file as DuckDB
// reads it, as JSON: one line per file, {file, rows: [row as JSON text,
// ...]} in the file's order, or {file, error}.  One thread.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, ...files] = process.argv.slice(2);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";

for (const file of files) {
  try {
    const r = await con.runAndReadAll(
      `SELECT to_json(t)::VARCHAR FROM read_parquet(${sq(file)}) t`);
    console.log(JSON.stringify({ file, rows: r.getRows().map((x) => x[0]) }));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e.message || e) }));
  }
}
