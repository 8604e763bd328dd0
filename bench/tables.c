/*
** tables.c -- the benchmark of the `parquet` virtual table, against the
** same rows in a native SQLite table and against DuckDB, in one run.
**
**   build/bench/tables [--quick] [--extension PATH] [--work DIR]
**                      [--duckdb DIR] [--parquet-wasm DIR]
**                      [--results FILE] [--only TABLE] [--users | --ahead]
**
** Data (made once, kept under WORK/table_data/):
**   t.parquet     10 M rows written by DuckDB (bench/tables.mjs): id BIGINT
**                 sorted, ts TIMESTAMP, x DOUBLE, cat VARCHAR (50
**                 distinct), url VARCHAR, opt INTEGER (30 % NULL); row
**                 groups of 100 000 rows (DuckDB's 100 352)
**   native.db     the same rows in a SQLite table, `native`, made through
**                 the parquet table (INSERT ... SELECT * FROM t)
**   big.parquet   the same columns, 40 M rows (about 1 GB), for memory
**   t_pi.parquet  the rows of t.parquet as arrow-rs writes them
**                 (bench/pageindex.mjs, parquet-wasm): a page index, pages
**                 of 20 000 rows
**   h/            the rows of t.parquet with a column `section` (the url's
**                 first folder: six values), in hive folders by it,
**                 written by DuckDB (bench/tables.mjs hive)
**
** Figures, each the median over PROCS sqlite3 shells (fresh processes) of
** each shell's best of RUNS runs (.timer) after one untimed (for figures
** without a target, one run and none untimed) with a warm page cache, as
** ratios to baselines measured in the same run (bench/stats.h: a target
** is met or missed only when the ratio's whole spread says so); --quick
** runs one shell a statement over t_quick.parquet, a tenth of the rows:
**   (a) SELECT sum(x) over the parquet table / over the native table
**   (b) SELECT count(*): its time, and the bytes of the file it makes the
**       kernel read (cold page cache: the file's pages are dropped with
**       posix_fadvise, the query runs in a child, and mincore counts the
**       pages of the file then cached, less those of CREATE alone).  The
**       table reads with pread, the kernel's readahead off for its files
**       (POSIX_FADV_RANDOM): the pages cached are those it asked for, and
**       the windows it prefetches when it reads on in order.
**   (c) a point query on the sorted column / the same column scanned in
**       full (`id + 0 = k`, which no engine can prune)
**   (d) the same queries in DuckDB (one thread), over the file and over a
**       table of its own holding the same rows
**   (e) peak resident memory (VmHWM) of a sqlite3 shell scanning every
**       column of big.parquet, less its VmHWM once the extension is loaded
**       and the table created
**   (f) with a page index (t_pi.parquet): the point query / a full scan,
**       and the bytes of the file it makes the kernel read (as in (b))
**       against the pages that hold the row, one per column
**   (g) reading ahead (doc/parquet.md): every column with the table's
**       worker thread / with threads=1, and / the native table; sum(x) /
**       SQLite's generate_series over as many rows; both against SQLite's
**       floor, the same statements over bench_cells (bench/step.c), which
**       hands over values it holds in memory; a point query and LIMIT 10
**       with the worker allowed / threads=1; DuckDB's every column over
**       the file with its default threads / one thread, beside
**   (h) the queries a new user runs (a filter, a GROUP BY, a join with a
**       native table, LIKE with a prefix, a filter on a hive key), the
**       table with threads=1 and with its default against DuckDB with one
**       thread, each with its ratio, and whether the results agree; the
**       native table's time beside
**
** The section is written under the heading "## The parquet table", in
** place of the one a run before wrote, else at the end of the results
** file; (g) under "## The parquet table: reading ahead" and (h) under
** "## The parquet table: a new user's queries" the same way.  --ahead
** runs (g) alone, --users (h).  The shell, timing and results helpers are bench/shell.h's.
*/
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/wait.h>

#define BENCH_NAME "tables"
#include "shell.h"

#define HEADING "## The parquet table"

/* ---- Timing ---------------------------------------------------------------- */

/* The time of one run of a point query (no ';'), to a tenth of the
** shell's millisecond: the best time of a statement that runs it POINT_K
** times (UNION ALL), over POINT_K. */
#define POINT_K 10
static double point_time(const char *db, const char *setup, const char *query,
                         sample *each) {
  char stmt[4096];
  int k = 0;
  for (int i = 0; i < POINT_K && k < (int)sizeof stmt; i++)
    k += snprintf(stmt + k, sizeof stmt - (size_t)k, "%s%s", i ? " UNION ALL " : "", query);
  if (k + 1 >= (int)sizeof stmt) return -1;
  stmt[k] = ';';
  stmt[k + 1] = 0;
  sample s;
  double t = best_times_s(db, setup, stmt, &s, NULL);
  for (int i = 0; i < s.n; i++) s.v[i] /= POINT_K;
  if (each) *each = s;
  return t < 0 ? t : t / POINT_K;
}

/* ---- The page cache ------------------------------------------------------- */

/* Drops the file's pages from the page cache; 0 when none remain. */
static long long resident(const char *path);
static int evict(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  close(fd);
  return resident(path) == 0 ? 0 : -1;
}

/* Bytes of the file in the page cache. */
static long long resident(const char *path) {
  int fd = open(path, O_RDONLY);
  if (fd < 0) return -1;
  long long size = file_size(path);
  long ps = sysconf(_SC_PAGESIZE);
  void *m = size > 0 ? mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0)
                     : MAP_FAILED;
  close(fd);
  if (m == MAP_FAILED) return -1;
  size_t pages = (size_t)((size + ps - 1) / ps);
  unsigned char *vec = malloc(pages);
  long long n = -1;
  if (vec && mincore(m, (size_t)size, vec) == 0) {
    n = 0;
    for (size_t i = 0; i < pages; i++) n += vec[i] & 1;
    n *= ps;
  }
  free(vec);
  munmap(m, (size_t)size);
  return n;
}

/* Bytes of path a cold run of the script brings into the page cache. */
static long long cold_bytes(const char *path, const char *script) {
  if (evict(path)) return -1;
  if (shell(":memory:", script, NULL)) return -1;
  return resident(path);
}

/* ---- (h) A new user's queries ----------------------------------------------- */

#define USERS_HEADING "## The parquet table: a new user's queries"

/* The same query in both engines: T is the file's table, H the hive
** folder's; cats is a native table in each. */
static const struct {
  const char *name, *what, *sql;
} users_q[] = {
    {"filter", "a filter", "SELECT count(*), round(sum(x), 2) FROM T WHERE opt > 90000"},
    {"group", "GROUP BY", "SELECT cat, count(*), round(avg(x), 2) FROM T GROUP BY cat ORDER BY cat"},
    {"join", "a join with a native table",
     "SELECT c.grp, count(*), round(sum(t.x), 2) FROM T t JOIN cats c ON c.cat = t.cat "
     "GROUP BY c.grp ORDER BY c.grp"},
    {"like", "LIKE with a prefix",
     "SELECT count(*) FROM T WHERE url LIKE 'https://shop.example.com/books/%'"},
    {"hive", "a hive key", "SELECT count(*), round(sum(x), 2) FROM H WHERE section = 'books'"},
};
#define USERS_N (int)(sizeof users_q / sizeof users_q[0])

/* q with T and H replaced by t and h. */
static void users_sql(const char *q, char *buf, size_t cap) {
  size_t o = 0;
  for (const char *p = q; *p && o + 2 < cap; p++) {
    int word = (p == q || p[-1] == ' ') && (p[1] == ' ' || !p[1]);
    buf[o++] = word && (*p == 'T' || *p == 'H') ? (char)(*p + 32) : *p;
  }
  buf[o] = 0;
}

/* Whether two results agree: the same fields, numbers equal to 1e-9. */
static int users_agree(const char *a, const char *b) {
  for (;;) {
    while (*a == ' ' || *a == '|' || *a == '\n') a++;
    while (*b == ' ' || *b == '|' || *b == '\n') b++;
    if (!*a || !*b) return !*a && !*b;
    size_t na = strcspn(a, " |\n"), nb = strcspn(b, " |\n");
    char *ea, *eb;
    double x = strtod(a, &ea), y = strtod(b, &eb);
    if (ea == a + na && eb == b + nb && na && nb) {
      if (fabs(x - y) > 1e-9 * (fabs(x) > 1 ? fabs(x) : 1)) return 0;
    } else if (na != nb || memcmp(a, b, na)) {
      return 0;
    }
    a += na;
    b += nb;
  }
}

static void users_section(const char *tfile, const char *hdir, const char *native,
                          const char *duckdir, const char *command, const char *mach,
                          const char *loadavg, const char *date, long rows) {
  char setup[4096], q[1024], cmd[4096];
  const char *opts[2] = {", threads=1", ""};
  double ours[USERS_N][2], nat[USERS_N];
  sample s_ours[USERS_N][2];
  char *res[USERS_N];
  for (int k = 0; k < USERS_N; k++) {
    users_sql(users_q[k].sql, q, sizeof q - 1);
    for (int m = 0; m < 2; m++) {
      snprintf(setup, sizeof setup,
               "CREATE VIRTUAL TABLE temp.t USING parquet('%s'%s);\n"
               "CREATE VIRTUAL TABLE temp.h USING parquet('%s/**/*.parquet', "
               "hive_partitioning=1%s);\n"
               "CREATE TEMP TABLE cats(cat TEXT PRIMARY KEY, grp INTEGER);\n"
               "INSERT INTO cats SELECT 'category-' || value, value %% 5 FROM "
               "generate_series(0, 49);",
               tfile, opts[m], hdir, opts[m]);
      strcat(q, ";");
      ours[k][m] = best_times_s(":memory:", setup, q, &s_ours[k][m], NULL);
      q[strlen(q) - 1] = 0;
    }
    /* The native table `native` in place of the file (not of the folders). */
    nat[k] = -1;
    if (!strstr(users_q[k].sql, " H ")) {
      char nq[1024];
      const char *at = strstr(q, " t");
      snprintf(nq, sizeof nq, "%.*s native%s;", (int)(at - q), q, at + 2);
      nat[k] = best_times_s(native,
                            "CREATE TEMP TABLE cats(cat TEXT PRIMARY KEY, grp INTEGER);\n"
                            "INSERT INTO cats SELECT 'category-' || value, value % 5 FROM "
                            "generate_series(0, 49);",
                            nq, NULL, NULL);
    }
    char script[8192];
    snprintf(script, sizeof script, "%s\n%s;", setup, q);
    res[k] = NULL;
    if (shell(":memory:", script, &res[k])) {
      free(res[k]);
      res[k] = NULL;
    }
  }
  snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/tables.mjs '%s' users '%s' %d '%s'",
           duckdir, tfile, PROCS * RUNS, hdir);
  char *duck = run_node(cmd);

  section_len = 0;
  out(USERS_HEADING "\n\n");
  out("- command: `%s` (run by `make bench`)\n", command);
  out("- machine: %s; load average %s at the start\n- date: %s\n", mach, loadavg, date);
  out("- data: `%s` (%ld rows, the section above), and the same rows in hive "
      "folders by `section` (the url's first folder, six values; `%s`, written "
      "by DuckDB); `cats` a native table of the 50 categories and a group "
      "(`cat TEXT PRIMARY KEY, grp INTEGER` in SQLite, a table in DuckDB)\n",
      tfile, rows, hdir);
  out("- each statement timed in %d sqlite3 shells, best of %d after one untimed, the median; "
      "DuckDB (@duckdb/node-api 1.5.6) with `threads=1`, best of %d after one "
      "untimed; the same SQL in both, over `read_parquet` in DuckDB "
      "(`hive_partitioning = true` for the folders); \"same\": the two "
      "results agree, numbers to 1e-9\n\n",
      PROCS, RUNS, PROCS * RUNS);
  out("| query | | parquet table, threads=1, s | DuckDB, one thread, s | ratio | "
      "parquet table, default (reading ahead), s | ratio | native SQLite table, s | same |\n");
  out("|---|---|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < USERS_N; k++) {
    double d = duck ? json_num(duck, users_q[k].name) : -1;
    char name[64], want[8192] = "";
    snprintf(name, sizeof name, "\"%s_rows\":\"", users_q[k].name);
    const char *r = duck ? strstr(duck, name) : NULL;
    if (r) {
      r += strlen(name);
      size_t n = strcspn(r, "\"");
      if (n >= sizeof want) n = sizeof want - 1;
      memcpy(want, r, n);
      want[n] = 0;
    }
    char ns[32] = "";
    if (nat[k] >= 0) snprintf(ns, sizeof ns, "%.3f", nat[k]);
    out("| %s | `%s` | %.3f | %.4f | %.1f | %.3f | %.1f | %s | %s |\n", users_q[k].what,
        users_q[k].sql, ours[k][0], d, d > 0 ? ours[k][0] / d : -1, ours[k][1],
        d > 0 ? ours[k][1] / d : -1, ns,
        res[k] && r ? (users_agree(res[k], want) ? "yes" : "NO") : "not checked");
    free(res[k]);
  }
  out("\nT is `t` (the file) in SQLite and `read_parquet` of it in DuckDB; H the "
      "folders. Ratios: the parquet table's time over DuckDB's. The native "
      "SQLite table (`native`, the same rows) shows what SQLite's own engine "
      "costs for the query: a GROUP BY without an index sorts every row, a "
      "join looks each row up in `cats`' index.\n");
  free(duck);
}

/* ---- (g) Reading ahead --------------------------------------------------- */

#define AHEAD_HEADING "## The parquet table: reading ahead"

/* The taskset prefix that keeps a shell on one CPU, or "" where there is
** no taskset. */
static const char *one_cpu(void) {
  return system("taskset -c 0 true >/dev/null 2>&1") == 0 ? "taskset -c 0 " : "";
}

static void ahead_section(const char *tfile, const char *native, const char *load,
                          const char *duckdir, const char *command, const char *mach,
                          const char *loadavg, const char *date, long rows, long point) {
  const char *all = "SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt) FROM %s;";
  char setup1[2800];
  snprintf(setup1, sizeof setup1,
           "CREATE VIRTUAL TABLE temp.t USING parquet('%s');\n"
           "CREATE VIRTUAL TABLE temp.t1 USING parquet('%s', threads=1);",
           tfile, tfile);
  /* SQLite's floor for the same scans: the statements over bench_cells
  ** (bench/step.c), the table's values read once into memory at CREATE,
  ** then handed over with nothing else done */
  static const char *const floor_cols[2] = {
      "'x REAL'",
      "'id INTEGER', 'ts TEXT COLLATE instant', 'x REAL', 'cat TEXT', "
      "'url TEXT', 'opt INTEGER'"};
  char setupf[2][3600];
  for (int k = 0; k < 2; k++)
    snprintf(setupf[k], sizeof setupf[k],
             "%sCREATE VIRTUAL TABLE temp.t USING parquet('%s');\n"
             "CREATE VIRTUAL TABLE temp.f USING bench_cells(t, %s);",
             load, tfile, floor_cols[k]);
  enum { ALL, ALL1, NAT, NATC, SUM, GS, FSUM, FALL, PT, PT1, LIM, LIM1, NSTMT };
  char stmt[NSTMT][4096];
  const char *db[NSTMT], *set[NSTMT];
  for (int i = 0; i < NSTMT; i++) {
    db[i] = ":memory:";
    set[i] = setup1;
  }
  snprintf(stmt[ALL], sizeof stmt[ALL], all, "t");
  snprintf(stmt[ALL1], sizeof stmt[ALL1], all, "t1");
  snprintf(stmt[NAT], sizeof stmt[NAT], all, "native");
  db[NAT] = native;
  set[NAT] = "";
  /* the native table with the order the parquet table declares for ts (an
  ** INSERT ... SELECT copy keeps the type, not the collation) */
  snprintf(stmt[NATC], sizeof stmt[NATC],
           "SELECT sum(id), max(ts COLLATE instant), sum(x), max(cat), max(url), "
           "count(opt) FROM native;");
  db[NATC] = native;
  set[NATC] = load;
  snprintf(stmt[SUM], sizeof stmt[SUM], "SELECT sum(x) FROM t;");
  snprintf(stmt[GS], sizeof stmt[GS], "SELECT sum(value) FROM generate_series(1, %ld);", rows);
  set[GS] = "";
  snprintf(stmt[FSUM], sizeof stmt[FSUM], "SELECT sum(x) FROM f;");
  set[FSUM] = setupf[0];
  snprintf(stmt[FALL], sizeof stmt[FALL], all, "f");
  set[FALL] = setupf[1];
  /* the point query and LIMIT 10, POINT_K times a statement */
  for (int i = PT; i <= LIM1; i++) {
    int k = 0;
    for (int j = 0; j < POINT_K; j++) {
      if (i < LIM)
        k += snprintf(stmt[i] + k, sizeof stmt[i] - (size_t)k,
                      "%sSELECT * FROM %s WHERE id = %ld", j ? " UNION ALL " : "",
                      i == PT ? "t" : "t1", point);
      else
        k += snprintf(stmt[i] + k, sizeof stmt[i] - (size_t)k,
                      "%sSELECT * FROM (SELECT * FROM %s LIMIT 10)", j ? " UNION ALL " : "",
                      i == LIM ? "t" : "t1");
    }
    snprintf(stmt[i] + k, sizeof stmt[i] - (size_t)k, ";");
  }
  /* Rounds: each statement once a round, in one shell each, the point
  ** query and LIMIT 10 on one CPU; ratios round by round, as the host's
  ** speed moves over minutes more than within one round. */
  const char *pin = one_cpu();
  sample sm[NSTMT];
  double med[NSTMT];
  for (int i = 0; i < NSTMT; i++) sm[i].n = 0;
  for (int r = 0; r < PROCS && r < STATS_MAX; r++) {
    for (int i = 0; i < NSTMT; i++) {
      PIN = i >= PT ? pin : "";
      double t = shell_best(db[i], set[i], stmt[i], NULL);
      stats_add(&sm[i], i >= PT && t > 0 ? t / POINT_K : t);
    }
  }
  PIN = "";
  for (int i = 0; i < NSTMT; i++) {
    figure f = stats_of(&sm[i]);
    med[i] = f.n ? f.med : -1;
  }
  /* DuckDB's every column over the file, with one thread and its default */
  char cmd[4600];
  snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/tables.mjs '%s' ahead '%s' %d",
           duckdir, tfile, PROCS * RUNS);
  char *duck = run_node(cmd);
  double d_one = duck ? json_num(duck, "one") : -1, d_all = duck ? json_num(duck, "all") : -1;
  int d_threads = duck ? (int)json_num(duck, "threads") : 0;
  free(duck);

  section_len = 0;
  out(AHEAD_HEADING "\n\n");
  out("- command: `%s` (run by `make bench`)\n", command);
  out("- machine: %s; load average %s at the start\n- date: %s\n", mach, loadavg, date);
  out("- data: `%s` (%ld rows, the section above); the same rows in `%s`\n", tfile, rows, native);
  out("- %d rounds, each statement once a round in a sqlite3 shell of its own, best "
      "of %d after one untimed; times are the medians, ratios the median of the "
      "rounds' ratios with their spread (the host's speed moves over minutes more "
      "than within a round); the point query and LIMIT 10 (each %d times a "
      "statement, UNION ALL) with the table's default and with threads=1 run in "
      "shells kept on one CPU (%s), as neither starts a worker and this host's "
      "two CPUs run at different speeds at times (bench/NOTES.md)\n\n",
      PROCS, RUNS, POINT_K, *pin ? "`taskset -c 0`" : "no taskset here: unpinned");
  out("| (g) reading ahead | the table s | against s | ratio | target |\n|---|---|---|---|---|\n");
  char rs[64];
  const char *verdict;
  static const struct {
    int a, b;
    double target; /* 0: none */
    const char *what;
  } rows_g[] = {
      {ALL, ALL1, 0.6, "every column, the worker reading ahead / `threads=1`"},
      {SUM, GS, 1.1, "`SELECT sum(x) FROM t` / `SELECT sum(value) FROM generate_series(1, N)`, N the table's rows"},
      {ALL, NAT, 1.0, "every column, the worker reading ahead / the native table"},
      {ALL, NATC, 0, "every column, the worker reading ahead / the native table with `max(ts COLLATE instant)`, the order the parquet table declares"},
      {FALL, ALL1, 0, "SQLite's floor: every column over `bench_cells` / the table with `threads=1` (the least the worker's ratio can be)"},
      {ALL, FALL, 0, "every column, the worker reading ahead / over `bench_cells`"},
      {FSUM, GS, 0, "SQLite's floor: `SELECT sum(x)` over `bench_cells` / `generate_series`"},
      {SUM, FSUM, 0, "`SELECT sum(x) FROM t` / the same over `bench_cells`"},
      {PT, PT1, 1.1, "point: `SELECT * FROM t WHERE id = N/2` / the same with `threads=1`"},
      {LIM, LIM1, 1.1, "`SELECT * FROM t LIMIT 10` / the same with `threads=1`"},
  };
  for (size_t i = 0; i < sizeof rows_g / sizeof rows_g[0]; i++) {
    int x = rows_g[i].a, y = rows_g[i].b;
    ratio_rounds_str(&sm[x], &sm[y], rows_g[i].target, &verdict, rs, sizeof rs);
    char tg[64] = "";
    if (rows_g[i].target > 0)
      snprintf(tg, sizeof tg, "%s <= %.1f%s", verdict, rows_g[i].target,
               x >= PT ? " (no slower)" : "");
    out(x >= PT ? "| %s | %.4f | %.4f | %s | %s |\n" : "| %s | %.3f | %.3f | %s | %s |\n",
        rows_g[i].what, med[x], med[y], rs, tg);
  }
  if (d_one > 0 && d_all > 0)
    out("| DuckDB over the file, every column: its default threads (%d) / one thread "
        "(best of %d each) | %.3f | %.3f | %.2f | |\n",
        d_threads, PROCS * RUNS, d_all, d_one, d_all / d_one);
  else
    out("| DuckDB over the file, every column: its default threads / one thread | "
        "not measured | | | |\n");
  out("\n(g): a scan with no constraint and no LIMIT, of 65 536 rows or "
      "more, starts a worker thread at its first row (any other once it has "
      "read a whole row group in order) that reads, decompresses and "
      "decodes the used columns of the next row groups into chunks of 8192 "
      "rows while SQLite takes the rows of the one before; the point query "
      "(one row of its row group passes) and LIMIT 10 (it stops within its "
      "first row group) start none. "
      "(e) in the section above is measured with the worker. SQLite's floor: `bench_cells` "
      "(bench/step.c) is a virtual table that reads the table's values "
      "into memory once, at CREATE, then hands each to SQLite with nothing "
      "else done (a row counter; numbers by value, texts by reference "
      "with a destructor that does nothing, as a table whose buffers do "
      "not outlive it must give them): what the statement costs SQLite's "
      "own thread over any such virtual table, with the same declared "
      "collations.\n");
}

/* ---- Main ------------------------------------------------------------------ */

int main(int argc, char **argv) {
  const char *only = arg_value(argc, argv, "--only", NULL);
  if (only && !strstr(only, "TABLE")) return 0;
  int quick = has_flag(argc, argv, "--quick");
  int users_only = has_flag(argc, argv, "--users");
  int ahead_only = has_flag(argc, argv, "--ahead");
  EXT = arg_value(argc, argv, "--extension", EXT);
  const char *workdir = arg_value(argc, argv, "--work", "build/bench");
  const char *duckdir = arg_value(argc, argv, "--duckdb", NULL);
  const char *pwdir = arg_value(argc, argv, "--parquet-wasm", NULL);
  const char *resfile = arg_value(argc, argv, "--results", NULL);
  if (quick) PROCS = 1;
  setvbuf(stdout, NULL, _IOLBF, 0);

  char dir[1024], tfile[1200], big[1200], native[1200], pifile[1200], hdir[1200], cmd[4096];
  snprintf(dir, sizeof dir, "%s/table_data", workdir);
  mkdir(workdir, 0777);
  mkdir(dir, 0777);
  /* --quick: a tenth of the rows, in files of their own */
  const char *q_ = quick ? "_quick" : "";
  snprintf(tfile, sizeof tfile, "%s/t%s.parquet", dir, q_);
  snprintf(big, sizeof big, "%s/big.parquet", dir);
  snprintf(native, sizeof native, "%s/native%s.db", dir, q_);
  snprintf(pifile, sizeof pifile, "%s/t_pi%s.parquet", dir, q_);
  snprintf(hdir, sizeof hdir, "%s/h%s", dir, q_);
  const long rows = quick ? 1000000 : 10000000, big_rows = 40000000, point = rows / 2;

  /* ---- The data, once ---- */
  if (!duckdir) {
    fprintf(stderr, "tables: --duckdb DIR is needed to write the files\n");
    return 1;
  }
  char *gen_t, *gen_big = NULL;
  snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/tables.mjs '%s' gen '%s' %ld",
           duckdir, tfile, rows);
  gen_t = run_node(cmd);
  if (!quick && !users_only) {
    snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/tables.mjs '%s' gen '%s' %ld",
             duckdir, big, big_rows);
    gen_big = run_node(cmd);
  }
  snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/tables.mjs '%s' hive '%s' '%s'",
           duckdir, tfile, hdir);
  free(run_node(cmd));
  if (!file_exists(tfile) || (!quick && !users_only && !file_exists(big))) {
    fprintf(stderr, "tables: the files were not written\n");
    return 1;
  }
  char script[4096];
  snprintf(script, sizeof script,
           "SELECT count(DISTINCT row_group_id) FROM parquet_metadata('%s');", tfile);
  double t_groups = shell_number(":memory:", script);
  if (pwdir) {
    snprintf(cmd, sizeof cmd,
             "env -u LD_PRELOAD node bench/pageindex.mjs '%s' '%s' %.0f '%s'",
             pwdir, tfile, t_groups, pifile);
    free(run_node(cmd));
  }
  int have_pi = pwdir && file_exists(pifile);
  if (make_native(tfile, native)) return 1;

  char mach[512], date[64], loadavg[64] = "unknown";
  machine(mach, sizeof mach);
  FILE *lf = fopen("/proc/loadavg", "r");
  if (lf) {
    if (fscanf(lf, "%63s", loadavg) != 1) snprintf(loadavg, sizeof loadavg, "unknown");
    fclose(lf);
  }
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  char command[1024];
  command_line(argc, argv, command, sizeof command);
  if (users_only) {
    users_section(tfile, hdir, native, duckdir, command, mach, loadavg, date, rows);
    if (resfile) write_results(resfile, USERS_HEADING);
    return 0;
  }
  char load[600]; /* the extension of bench_step and bench_cells */
  {
    const char *self = argv[0], *slash = strrchr(self, '/');
    snprintf(load, sizeof load, ".load %.*s/step.so\n",
             slash ? (int)(slash - self) : 1, slash ? self : ".");
  }
  if (ahead_only) {
    ahead_section(tfile, native, load, duckdir, command, mach, loadavg, date, rows, point);
    if (resfile) write_results(resfile, AHEAD_HEADING);
    return 0;
  }

  /* ---- Ours, and the native table ---- */
  char setup[2800], q[512];
  snprintf(setup, sizeof setup,
           "CREATE VIRTUAL TABLE temp.t USING parquet('%s');\n"
           "CREATE VIRTUAL TABLE temp.t0 USING parquet('%s', pushdown=0);",
           tfile, tfile);
  sample s_sum_t, s_sum_n;
  double sum_t = best_times_s(":memory:", setup, "SELECT sum(x) FROM t;", &s_sum_t, NULL);
  double sum_n = best_times_s(native, "", "SELECT sum(x) FROM native;", &s_sum_n, NULL);
  double cnt_t = shown_time(":memory:", setup, "SELECT count(*) FROM t;");
  double cnt_n = shown_time(native, "", "SELECT count(*) FROM native;");
  const char *all = "SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt) FROM %s;";
  snprintf(q, sizeof q, all, "t");
  double all_t = shown_time(":memory:", setup, q);
  snprintf(q, sizeof q, all, "native");
  double all_n = shown_time(native, "", q);
  /* the dictionary-encoded strings alone: an aggregate, and the rows read
  ** as a program reads them (bench_step, bench/step.c) */
  static const char *const dict_q[2] = {
      "SELECT max(cat) FROM %s;", "SELECT bench_step('SELECT cat FROM %s');"};
  double dict_t[2], dict_n[2];
  {
    char setup2[3400];
    snprintf(setup2, sizeof setup2, "%s%s", load, setup);
    for (int k = 0; k < 2; k++) {
      snprintf(q, sizeof q, dict_q[k], "t");
      dict_t[k] = shown_time(":memory:", setup2, q);
      snprintf(q, sizeof q, dict_q[k], "native");
      dict_n[k] = shown_time(native, load, q);
    }
  }
  /* (c) point queries, and the same with pushdown=0: a full scan */
  double pt[2][2]; /* [SELECT *, SELECT id][t, t0] */
  sample s_pt[2][2];
  for (int k = 0; k < 2; k++)
    for (int z = 0; z < 2; z++) {
      snprintf(q, sizeof q, "SELECT %s FROM %s WHERE id = %ld%s", k ? "id" : "*",
               z ? "t0" : "t", point, z ? ";" : "");
      pt[k][z] = z ? best_times_s(":memory:", setup, q, &s_pt[k][z], NULL)
                   : point_time(":memory:", setup, q, &s_pt[k][z]);
    }
  snprintf(q, sizeof q, "SELECT * FROM native WHERE id = %ld", point);
  double pt_n = point_time(native, "", q, NULL);
  /* what each column costs the point query */
  static const char *const cols[] = {"id", "ts", "x", "cat", "url", "opt"};
  double pt_col[6];
  for (int k = 0; k < 6; k++) {
    snprintf(q, sizeof q, "SELECT %s FROM t WHERE id = %ld", cols[k], point);
    pt_col[k] = point_time(":memory:", setup, q, NULL);
  }

  /* (b) The bytes count(*) makes the kernel read, cold. */
  snprintf(setup, sizeof setup, "CREATE VIRTUAL TABLE temp.t USING parquet('%s');", tfile);
  snprintf(script, sizeof script, "%s\nSELECT 1;", setup);
  long long b_create = cold_bytes(tfile, script);
  snprintf(script, sizeof script, "%s\nSELECT count(*) FROM t;", setup);
  long long b_count = cold_bytes(tfile, script);
  snprintf(script, sizeof script, "%s\nSELECT sum(x) FROM t;", setup);
  long long b_sum = cold_bytes(tfile, script);

  snprintf(script, sizeof script,
           "SELECT sum(total_compressed_size) FROM parquet_metadata('%s') "
           "WHERE path_in_schema = 'x';", tfile);
  double x_bytes = shell_number(":memory:", script);

  /* (f) The page index: the point query's time against a full scan, the
  ** bytes it reads, the pages that hold the row (the row group's first
  ** row is 100 352 g) and the row group. */
  double pi_t = -1, pi_t0 = -1, pi_pages = -1, pi_group = -1;
  sample s_pi_t = {0, {0}}, s_pi_t0 = {0, {0}};
  long long pi_create = -1, pi_point = -1;
  long pi_g = point / 100352, pi_row = point - pi_g * 100352;
  if (have_pi) {
    snprintf(setup, sizeof setup,
             "CREATE VIRTUAL TABLE temp.p USING parquet('%s');\n"
             "CREATE VIRTUAL TABLE temp.p0 USING parquet('%s', pushdown=0);",
             pifile, pifile);
    snprintf(q, sizeof q, "SELECT * FROM p WHERE id = %ld", point);
    pi_t = point_time(":memory:", setup, q, &s_pi_t);
    snprintf(q, sizeof q, "SELECT * FROM p0 WHERE id = %ld;", point);
    pi_t0 = best_times_s(":memory:", setup, q, &s_pi_t0, NULL);
    snprintf(script, sizeof script,
             "CREATE VIRTUAL TABLE temp.p USING parquet('%s');\nSELECT 1;", pifile);
    pi_create = cold_bytes(pifile, script);
    snprintf(script, sizeof script,
             "CREATE VIRTUAL TABLE temp.p USING parquet('%s');\n"
             "SELECT * FROM p WHERE id = %ld;", pifile, point);
    pi_point = cold_bytes(pifile, script);
    snprintf(script, sizeof script,
             "SELECT sum(compressed_page_size) FROM parquet_offset_index('%s') o "
             "WHERE row_group_id = %ld AND first_row_index = (SELECT max(first_row_index) "
             "FROM parquet_offset_index('%s') i WHERE i.row_group_id = %ld "
             "AND i.column_id = o.column_id AND i.first_row_index <= %ld);",
             pifile, pi_g, pifile, pi_g, pi_row);
    pi_pages = shell_number(":memory:", script);
    snprintf(script, sizeof script,
             "SELECT sum(total_compressed_size) FROM parquet_metadata('%s') "
             "WHERE row_group_id = %ld;", pifile, pi_g);
    pi_group = shell_number(":memory:", script);
  }

  /* (d) DuckDB. */
  char *duck = NULL;
  snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/tables.mjs '%s' time '%s' %d %ld",
           duckdir, tfile, PROCS * RUNS, point);
  duck = run_node(cmd);

  /* (e) Memory: VmHWM after CREATE, then after scanning every column. */
  long hwm[3] = {0, 0, 0};
  const char *memfile = quick ? tfile : big;
  snprintf(script, sizeof script,
           "CREATE VIRTUAL TABLE temp.b USING parquet('%s');\n"
           "SELECT count(*) FROM b;\n"
           ".shell grep VmHWM /proc/$PPID/status\n"
           "SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt) FROM b;\n"
           ".shell grep VmHWM /proc/$PPID/status\n",
           memfile);
  double m0 = (double)time(NULL);
  int marks = hwm_marks(script, hwm, 3);
  double mem_secs = (double)time(NULL) - m0;

  /* ---- The section ---- */
  section_len = 0;
  out(HEADING "\n\n");
  out("- command: `%s` (run by `make bench`)\n", command);
  out("- machine: %s; load average %s at the start\n- date: %s\n", mach, loadavg, date);
  out("- data: `%s`, %ld rows, %.0f MB, written by DuckDB (one thread): "
      "id BIGINT sorted, ts TIMESTAMP, x DOUBLE, cat VARCHAR (50 distinct), "
      "url VARCHAR, opt INTEGER (30%% NULL); row groups of 100 352 rows "
      "(ROW_GROUP_SIZE 100000, which DuckDB rounds up to its 2048-row "
      "vectors), one page per column chunk; the same rows in a SQLite table "
      "(`%s`, %.0f MB)\n",
      tfile, rows, (double)file_size(tfile) / 1e6, native,
      (double)file_size(native) / 1e6);
  out("- page index: DuckDB 1.5 writes no column index or offset index "
      "(COPY has no option for it: `WRITE_PAGE_INDEX` is refused as an "
      "unrecognized option); (f) reads `%s` (%.0f MB), the same rows as "
      "arrow-rs writes them by default (parquet-wasm 0.8.0, "
      "bench/pageindex.mjs): a column index and an offset index, data "
      "pages of 20 480 rows, SNAPPY, row groups of 100 352 rows\n",
      pifile, (double)file_size(pifile) / 1e6);
  out("- each statement timed in %d sqlite3 shells (`.timer`), fresh processes one after "
      "the other, best of %d run in each after one untimed (the figures "
      "without a target: one run in each, none untimed), warm page cache: the "
      "median time; a ratio with a target gives its median and the widest "
      "spread the two statements' shells allow, and is met or missed only "
      "when the whole spread is on one side (unsteady otherwise); "
      "a point query on the parquet or native table is timed as a statement "
      "running it %d times (UNION ALL), over %d, as `.timer` counts "
      "milliseconds; "
      "DuckDB %s with `threads=1`, best of %d\n\n",
      PROCS, RUNS, POINT_K, POINT_K, "(@duckdb/node-api 1.5.6)", PROCS * RUNS);
  (void)gen_t;
  (void)gen_big;

  double d_sum_f = json_obj_num(duck, "sum", "file"), d_sum_t = json_obj_num(duck, "sum", "table");
  double d_cnt_f = json_obj_num(duck, "count", "file"), d_cnt_t = json_obj_num(duck, "count", "table");
  double d_all_f = json_obj_num(duck, "all", "file"), d_all_t = json_obj_num(duck, "all", "table");
  double d_pt[2][2] = {{json_obj_num(duck, "point", "file"), json_obj_num(duck, "point", "file_scan")},
                       {json_obj_num(duck, "point_id", "file"), json_obj_num(duck, "point_id", "file_scan")}};
  double d_pt_t = json_obj_num(duck, "point", "table");

  out("| query | parquet table s | native table s | ratio | target | DuckDB file s | DuckDB table s | DuckDB ratio |\n");
  out("|---|---|---|---|---|---|---|---|\n");
  char rs[64];
  const char *verdict;
  ratio_str(&s_sum_t, &s_sum_n, 1.0, &verdict, rs, sizeof rs);
  out("| (a) `SELECT sum(x) FROM t` | %.3f | %.3f | %s | %s <= 1.0 | %.3f | %.3f | %.2f |\n",
      sum_t, sum_n, rs, verdict, d_sum_f, d_sum_t, d_sum_f / d_sum_t);
  out("| (b) `SELECT count(*) FROM t` | %.3f | %.3f | %.2f | | %.4f | %.4f | %.2f |\n",
      cnt_t, cnt_n, cnt_t / cnt_n, d_cnt_f, d_cnt_t, d_cnt_f / d_cnt_t);
  out("| every column: `SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt) FROM t` | %.3f | %.3f | %.2f | | %.3f | %.3f | %.2f |\n",
      all_t, all_n, all_t / all_n, d_all_f, d_all_t, d_all_f / d_all_t);
  out("| point: `SELECT * FROM t WHERE id = %ld` | %.4f | %.3f | %.3f | | %.4f | %.4f | %.2f |\n",
      point, pt[0][0], pt_n, pt[0][0] / pt_n, d_pt[0][0], d_pt_t, d_pt[0][0] / d_pt_t);
  for (int k = 0; k < 2; k++) {
    char qs[96];
    snprintf(qs, sizeof qs, dict_q[k], "t");
    qs[strlen(qs) - 1] = 0;
    out("| dictionary strings: `%s` | %.3f | %.3f | %.2f | |", qs, dict_t[k],
        dict_n[k], dict_t[k] / dict_n[k]);
    if (k == 0) {
      double df = json_obj_num(duck, "max_cat", "file");
      double dt = json_obj_num(duck, "max_cat", "table");
      out(" %.3f | %.3f | %.2f |\n", df, dt, df / dt);
    } else {
      out(" | | |\n");
    }
  }
  out("\n");
  out("| (c) point query on the sorted column | parquet table s | full scan s (pushdown=0) | ratio | target | DuckDB s | DuckDB full scan s (filter_pushdown off) | DuckDB ratio |\n");
  out("|---|---|---|---|---|---|---|---|\n");
  for (int k = 0; k < 2; k++) {
    ratio_str(&s_pt[k][0], &s_pt[k][1], 0.02, &verdict, rs, sizeof rs);
    out("| `SELECT %s FROM t WHERE id = %ld` | %.4f | %.3f | %s | %s <= 0.02 | %.4f | %.3f | %.3f |\n",
        k ? "id" : "*", point, pt[k][0], pt[k][1], rs, verdict, d_pt[k][0], d_pt[k][1],
        d_pt[k][0] / d_pt[k][1]);
  }
  out("\nThe dictionary strings: `cat` is dictionary-encoded in every row "
      "group (50 entries). The table makes each entry into its value once a "
      "chunk and hands SQLite its text by reference, counted, not copied row "
      "by row (doc/parquet.md); `bench_step` (bench/step.c) reads each row's "
      "text as a program does (sqlite3_column_type, then sqlite3_column_text "
      "and _bytes). DuckDB's `max(cat)` reads its dictionary vector.\n");
  out("\nThe point query one column at a time (`SELECT c FROM t WHERE id = %ld`):", point);
  for (int k = 0; k < 6; k++)
    out(" %s %.1f ms%s", cols[k], pt_col[k] * 1e3, k < 5 ? "," : ".\n");
  out("The statistics leave one row group of %ld; `SELECT id` reads its one "
      "page of id, and the table checks `id = %ld` on each row itself, so "
      "that only the matching row reaches SQLite. DuckDB writes each column "
      "chunk as one page of 100 352 values and no page index, so each "
      "further column decompresses its whole page (url: 5.5 MB) and skips "
      "the values before the row without making them into SQL values.\n",
      (rows + 100351) / 100352, point);
  out("\n| figure | parquet table | target |\n|---|---|---|\n");
  if (b_create >= 0 && b_count >= 0 && b_sum >= 0) {
    out("| (b) bytes of the file `count(*)` touches, less `CREATE` alone (the footer and the magic: %.1f KB) | %lld | %s 0 |\n",
        (double)b_create / 1e3, b_count - b_create, b_count - b_create == 0 ? "met" : "MISSED");
    out("| (b) the same for `SELECT sum(x)`, for comparison (column x: %.1f MB compressed) | %.1f MB | |\n",
        x_bytes / 1e6, (double)(b_sum - b_create) / 1e6);
  } else {
    out("| (b) file bytes read by `count(*)`, cold cache | not measured (the page cache could not be dropped) | 0 |\n");
  }
  if (have_pi && pi_t > 0 && pi_t0 > 0) {
    ratio_str(&s_pi_t, &s_pi_t0, 0.02, &verdict, rs, sizeof rs);
    out("| (f) with a page index: `SELECT * FROM p WHERE id = %ld` / the same with pushdown=0 (%.4f s / %.3f s) | %s | %s <= 0.02 |\n",
        point, pi_t, pi_t0, rs, verdict);
  }
  if (have_pi && pi_create >= 0 && pi_point >= 0 && pi_pages > 0) {
    long long read = pi_point - pi_create;
    out("| (f) bytes of the file it touches, less `CREATE` alone (%.1f KB), against the six pages that hold the row, one per column (%.1f KB, from `parquet_offset_index`; its row group: %.1f KB) | %.1f KB | %s: one page per column |\n",
        (double)pi_create / 1e3, pi_pages / 1e3, pi_group / 1e3, (double)read / 1e3,
        read <= pi_pages + 16 * 4096 ? "met" : "MISSED");
  } else if (have_pi) {
    out("| (f) bytes read by the point query, cold cache | not measured (the page cache could not be dropped) | one page per column |\n");
  } else {
    out("| (f) with a page index | not measured (no --parquet-wasm, so no `t_pi.parquet`) | |\n");
  }
  if (marks == 2) {
    out("| (e) peak memory scanning every column of `%s` (%.0f MB, %ld rows, %.0f s): VmHWM %ld KiB after, %ld KiB before | +%.1f MB | %s < 64 MB |\n",
        memfile, (double)file_size(memfile) / 1e6, quick ? rows : big_rows,
        mem_secs, hwm[1], hwm[0], (double)(hwm[1] - hwm[0]) / 1024,
        (hwm[1] - hwm[0]) < 64 * 1024 ? "met" : "MISSED");
  } else {
    out("| (e) peak memory | not measured | < 64 MB |\n");
  }
  out("\nRatios: the parquet table over the native SQLite table (the same "
      "rows, in `%s`), DuckDB over the file against DuckDB over a table of "
      "its own; (c) the point query over the same query with pruning "
      "off, in the same engine (the table with `pushdown=0`; DuckDB with "
      "`SET disabled_optimizers = 'filter_pushdown'`, which also makes it "
      "read every column it returns in full, where SQLite asks the table "
      "for the other columns of the matching row only). (b) is measured by the page cache: the file's pages are "
      "dropped (posix_fadvise), a sqlite3 shell runs the query, and "
      "mincore counts the file's pages cached after, 4 KiB each. The "
      "table reads its files with pread, the kernel's readahead off "
      "(POSIX_FADV_RANDOM): what is cached is what it read, and the "
      "windows it prefetched (POSIX_FADV_WILLNEED) while reading on in "
      "order.\n",
      native);
  free(duck);
  if (resfile) write_results(resfile, HEADING);
  out("\n");
  ahead_section(tfile, native, load, duckdir, command, mach, loadavg, date, rows, point);
  if (resfile) write_results(resfile, AHEAD_HEADING);
  out("\n");
  users_section(tfile, hdir, native, duckdir, command, mach, loadavg, date, rows);
  if (resfile) write_results(resfile, USERS_HEADING);
  return 0;
}
