// duckdb_hive.mjs DUCKDB_DIR GLOB... -- the rows of each hive-partitioned
// folder as DuckDB reads it (read_parquet(GLOB, hive_partitioning = true)),
// as JSON: one line per glob, {glob, rows: [row as JSON text, ...]}, or
// {glob, error}.  One thread.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, ...globs] = process.argv.slice(2);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";

for (const glob of globs) {
  try {
    const r = await con.runAndReadAll(
      `SELECT to_json(t)::VARCHAR FROM read_parquet(${sq(glob)}, hive_partitioning = true) t`);
    console.log(JSON.stringify({ glob, rows: r.getRows().map((x) => x[0]) }));
  } catch (e) {
    console.log(JSON.stringify({ glob, error: String(e.message || e) }));
  }
}
