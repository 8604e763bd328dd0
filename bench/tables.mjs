// tables.mjs DUCKDB_DIR gen FILE ROWS
// tables.mjs DUCKDB_DIR time FILE RUNS POINT
// tables.mjs DUCKDB_DIR hive FILE FOLDER
// tables.mjs DUCKDB_DIR ahead FILE RUNS
// tables.mjs DUCKDB_DIR users FILE RUNS FOLDER
//
// DuckDB's side of the benchmark of the `parquet` table (bench/tables.c).
//
// gen: writes FILE (unless it exists), ROWS rows of six columns, row
// groups of 100 000 rows (DuckDB makes them 100 352, a multiple of its
// 2048-row vectors):
//   id   BIGINT, 0 .. ROWS-1, sorted
//   ts   TIMESTAMP, a millisecond apart with jitter, sorted
//   x    DOUBLE, prices with two decimals
//   cat  VARCHAR, 50 distinct (dictionary encoded)
//   url  VARCHAR, URL-like keys with shared prefixes
//   opt  INTEGER, NULL three times in ten
// Prints {file, bytes, row_groups, seconds}.
//
// time: with one thread, best of RUNS, the benchmark's queries over
// read_parquet(FILE) and over a table holding the same rows (DuckDB's
// "native"); POINT is the id the point queries look for, which run over
// the file also with the filter_pushdown optimizer disabled (a full
// scan).  Prints one JSON line: {query: {file, table[, file_scan]}} in
// seconds.
//
// hive: writes FOLDER (unless it exists), the rows of FILE with a column
// `section` (the part of the url after the host: six values), in hive
// folders by section (section=books/...), row groups as in gen.
//
// ahead: every column over read_parquet(FILE), best of RUNS, with one
// thread and with DuckDB's default threads (one a core); prints one JSON
// line: {threads: the default, one: seconds, all: seconds}.
//
// users: with one thread, best of RUNS, the queries a new user runs, over
// read_parquet(FILE) and the hive FOLDER (bench/tables.c, section (h)),
// with `cats`, a table of DuckDB's own of the 50 categories and their
// group; prints one JSON line: {query: seconds, query_rows: the result's
// rows as text}.
import { createRequire } from 'node:module';
import { existsSync, statSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [dir, mode, file, arg, point] = process.argv.slice(2);
const require = createRequire(join(dir, 'node_modules', 'x.js'));
const { DuckDBInstance } = await import(
  pathToFileURL(require.resolve('@duckdb/node-api')).href);

const db = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await db.connect();
const sq = (s) => "'" + String(s).replaceAll("'", "''") + "'";
const one = async (sql) => (await con.runAndReadAll(sql)).getRows()[0];
const clock = () => Number(process.hrtime.bigint()) / 1e9;
// The best of runs timed runs of sql on connection c, in seconds.
const bestOf = async (c, sql, runs) => {
  let t = Infinity;
  for (let i = 0; i < runs; i++) {
    const a = clock();
    await c.runAndReadAll(sql);
    t = Math.min(t, clock() - a);
  }
  return t;
};

if (mode === 'gen') {
  const rows = Number(arg);
  const t0 = clock();
  if (!existsSync(file)) {
    const tmp = file + '.tmp';
    await con.run(`COPY (SELECT range::BIGINT AS id,
        TIMESTAMP '2024-01-01' + to_microseconds(range * 1000 + (hash(range) % 1000)::BIGINT) AS ts,
        (hash(range * 7) % 1000000)::DOUBLE / 100.0 AS x,
        'category-' || (hash(range * 3) % 50) AS cat,
        'https://shop.example.com/' ||
          ['shoes', 'books', 'garden', 'kitchen', 'toys', 'music'][1 + (range // 5000) % 6] ||
          '/item/' || lpad((range * 3 + hash(range) % 3)::VARCHAR, 9, '0') || '?ref=' || (hash(range) % 10) AS url,
        CASE WHEN hash(range * 11) % 10 < 3 THEN NULL ELSE (hash(range * 13) % 100000)::INTEGER END AS opt
      FROM range(${rows}))
      TO ${sq(tmp)} (FORMAT parquet, ROW_GROUP_SIZE 100000)`);
    renameSync(tmp, file);
  }
  const [groups] = await one(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${sq(file)})`);
  console.log(JSON.stringify({ file, bytes: statSync(file).size, row_groups: Number(groups),
                               seconds: clock() - t0 }));
} else if (mode === 'hive') {
  const folder = arg;
  const t0 = clock();
  if (!existsSync(folder)) {
    const tmp = folder + '.tmp';
    await con.run(`COPY (SELECT *, split_part(url, '/', 4) AS section FROM read_parquet(${sq(file)}))
      TO ${sq(tmp)} (FORMAT parquet, PARTITION_BY (section), ROW_GROUP_SIZE 100000)`);
    renameSync(tmp, folder);
  }
  console.log(JSON.stringify({ folder, seconds: clock() - t0 }));
} else if (mode === 'ahead') {
  const runs = Number(arg);
  const sql = `SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt)
                 FROM read_parquet(${sq(file)})`;
  const best = async (c) => {
    await c.runAndReadAll(sql); // untimed
    return bestOf(c, sql, runs);
  };
  const all1 = await best(con);
  const dbd = await DuckDBInstance.create(':memory:');
  const cond = await dbd.connect();
  const [threads] = (await cond.runAndReadAll("SELECT current_setting('threads')")).getRows()[0];
  console.log(JSON.stringify({ threads: Number(threads), one: all1, all: await best(cond) }));
} else if (mode === 'users') {
  const runs = Number(arg), folder = point;
  await con.run(`CREATE TABLE cats AS SELECT 'category-' || i AS cat, i % 5 AS grp FROM range(50) r(i)`);
  const t = `read_parquet(${sq(file)})`;
  const h = `read_parquet(${sq(folder + '/**/*.parquet')}, hive_partitioning = true)`;
  const queries = {
    filter: `SELECT count(*), round(sum(x), 2) FROM ${t} WHERE opt > 90000`,
    group: `SELECT cat, count(*), round(avg(x), 2) FROM ${t} GROUP BY cat ORDER BY cat`,
    join: `SELECT c.grp, count(*), round(sum(t.x), 2) FROM ${t} t JOIN cats c ON c.cat = t.cat GROUP BY c.grp ORDER BY c.grp`,
    like: `SELECT count(*) FROM ${t} WHERE url LIKE 'https://shop.example.com/books/%'`,
    hive: `SELECT count(*), round(sum(x), 2) FROM ${h} WHERE section = 'books'`,
  };
  const out = {};
  for (const [name, sql] of Object.entries(queries)) {
    const rows = (await con.runAndReadAll(sql)).getRows(); // untimed
    out[name + '_rows'] = rows.map((r) => r.map(String).join('|')).join(' ');
    out[name] = await bestOf(con, sql, runs);
  }
  console.log(JSON.stringify(out));
} else {
  const runs = Number(arg);
  const best = async (sql) => {
    await con.runAndReadAll(sql); // untimed, as bench/tables.c does
    return bestOf(con, sql, runs);
  };
  await con.run(`CREATE TABLE native AS SELECT * FROM read_parquet(${sq(file)})`);
  const from = { file: `read_parquet(${sq(file)})`, table: 'native' };
  const queries = {
    sum: 'SELECT sum(x) FROM T',
    count: 'SELECT count(*) FROM T',
    point: `SELECT * FROM T WHERE id = ${Number(point)}`,
    point_id: `SELECT id FROM T WHERE id = ${Number(point)}`,
    all: 'SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt) FROM T',
    max_cat: 'SELECT max(cat) FROM T',
  };
  const out = {};
  for (const [name, sql] of Object.entries(queries)) {
    out[name] = {};
    for (const [where, f] of Object.entries(from)) {
      out[name][where] = await best(sql.replace(/\bT\b/, f));
    }
  }
  // The point queries as full scans: the filter not pushed into the scan.
  await con.run("SET disabled_optimizers = 'filter_pushdown'");
  for (const name of ['point', 'point_id']) {
    out[name].file_scan = await best(queries[name].replace(/\bT\b/, from.file));
  }
  await con.run('RESET disabled_optimizers');
  console.log(JSON.stringify(out));
}
