/*
** against.c -- this build of the extension against another, side by side
** in one run: the readers of files (the parquet table, parquet_rows,
** parquet_pages, parquet_decode) over the files `make bench` made.
**
**   build/bench/against --extension NEW.so --baseline OLD.so
**                       [--work DIR] [--results FILE] [--quick]
**                       [--only WORDS]  (the statements whose name has them)
**
** For each statement, PROCS pairs of sqlite3 shells, the two builds taking
** turns (new, old, new, old, ...), each shell's best of RUNS runs after
** one untimed, page cache warm: the median of each build, and their ratio
** with the widest spread its shells allow (bench/stats.h).  A ratio is
** "slower" only when its whole spread is above 1.05, "faster" below 0.95.
**
** The files are the table benchmark's (bench/tables.c, under
** WORK/table_data/): t.parquet (10 M rows written by DuckDB) and
** t_pi.parquet (the same rows by arrow-rs, with a page index); run
** build/bench/tables once first (make bench does).
*/
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L

#define BENCH_NAME "against"
#include "shell.h"

#define HEADING "## This build against a baseline build"

/* PROCS shells of each build, taking turns; their best times. */
static void pair(const char *new_ext, const char *old_ext, const char *setup,
                 const char *stmt, sample *n, sample *o) {
  n->n = o->n = 0;
  for (int i = 0; i < PROCS && i < STATS_MAX; i++) {
    EXT = new_ext;
    n->v[n->n++] = shell_best(":memory:", setup, stmt, NULL);
    EXT = old_ext;
    o->v[o->n++] = shell_best(":memory:", setup, stmt, NULL);
  }
  EXT = new_ext;
}

int main(int argc, char **argv) {
  int quick = has_flag(argc, argv, "--quick");
  const char *new_ext = arg_value(argc, argv, "--extension", EXT);
  const char *old_ext = arg_value(argc, argv, "--baseline", NULL);
  const char *workdir = arg_value(argc, argv, "--work", "build/bench");
  const char *resfile = arg_value(argc, argv, "--results", NULL);
  const char *only = arg_value(argc, argv, "--only", NULL);
  if (!old_ext) {
    fprintf(stderr, "against: --baseline OLD.so is needed\n");
    return 1;
  }
  if (quick) PROCS = 1;
  else PROCS = 5;
  RUNS = 3;
  setvbuf(stdout, NULL, _IOLBF, 0);
  char t[1200], pi[1200];
  const char *q_ = quick ? "_quick" : "";
  snprintf(t, sizeof t, "%s/table_data/t%s.parquet", workdir, q_);
  snprintf(pi, sizeof pi, "%s/table_data/t_pi%s.parquet", workdir, q_);
  if (!file_exists(t)) {
    fprintf(stderr, "against: no %s: run build/bench/tables first\n", t);
    return 1;
  }
  int have_pi = file_exists(pi);
  long point = (quick ? 1000000 : 10000000) / 2;

  char setup[3000];
  snprintf(setup, sizeof setup,
           "CREATE VIRTUAL TABLE temp.t USING parquet('%s');\n"
           "CREATE VIRTUAL TABLE temp.p USING parquet('%s');",
           t, have_pi ? pi : t);
  char q[16][1400];
  const char *what[16];
  int nq = 0;
#define Q(W, ...) (what[nq] = (W), snprintf(q[nq++], sizeof q[0], __VA_ARGS__))
  Q("sum of one column", "SELECT sum(x) FROM t;");
  Q("count(*)", "SELECT count(*) FROM t;");
  Q("every column",
    "SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt) FROM t;");
  Q("dictionary strings", "SELECT max(cat) FROM t;");
  Q("point query, statistics (x10)",
    "SELECT * FROM t WHERE id = %ld UNION ALL SELECT * FROM t WHERE id = %ld "
    "UNION ALL SELECT * FROM t WHERE id = %ld UNION ALL SELECT * FROM t "
    "WHERE id = %ld UNION ALL SELECT * FROM t WHERE id = %ld UNION ALL "
    "SELECT * FROM t WHERE id = %ld UNION ALL SELECT * FROM t WHERE id = %ld "
    "UNION ALL SELECT * FROM t WHERE id = %ld UNION ALL SELECT * FROM t "
    "WHERE id = %ld UNION ALL SELECT * FROM t WHERE id = %ld;",
    point, point + 1, point + 2, point + 3, point + 4, point + 5, point + 6,
    point + 7, point + 8, point + 9);
  if (have_pi) {
    Q("point query, page index (x10)",
      "SELECT * FROM p WHERE id = %ld UNION ALL SELECT * FROM p WHERE id = %ld "
      "UNION ALL SELECT * FROM p WHERE id = %ld UNION ALL SELECT * FROM p "
      "WHERE id = %ld UNION ALL SELECT * FROM p WHERE id = %ld UNION ALL "
      "SELECT * FROM p WHERE id = %ld UNION ALL SELECT * FROM p WHERE id = %ld "
      "UNION ALL SELECT * FROM p WHERE id = %ld UNION ALL SELECT * FROM p "
      "WHERE id = %ld UNION ALL SELECT * FROM p WHERE id = %ld;",
      point, point + 101, point + 202, point + 303, point + 404, point + 505,
      point + 606, point + 707, point + 808, point + 909);
    Q("every column, page index file",
      "SELECT sum(id), max(ts), sum(x), max(cat), max(url), count(opt) FROM p;");
  }
  Q("parquet_rows, first 200 000 rows",
    "SELECT count(*), sum(length(value)) FROM (SELECT value FROM "
    "parquet_rows('%s') LIMIT 200000);", t);
  Q("parquet_pages, every page", "SELECT sum(length(data)) FROM parquet_pages('%s');", t);
  Q("parquet_metadata", "SELECT count(*) FROM parquet_metadata('%s');", t);

  char mach[512], date[64], command[1024];
  machine(mach, sizeof mach);
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  command_line(argc, argv, command, sizeof command);
  section_len = 0;
  out(HEADING "\n\n");
  out("- command: `%s`\n- machine: %s\n- date: %s\n", command, mach, date);
  out("- this build: `%s`; the baseline: `%s`\n", new_ext, old_ext);
  out("- files: `%s`%s%s%s (bench/tables.c)\n", t, have_pi ? ", `" : "",
      have_pi ? pi : "", have_pi ? "`" : "");
  out("- each statement in %d pairs of sqlite3 shells, the builds taking "
      "turns, best of %d runs in each after one untimed, page cache warm; "
      "the medians, and the ratio of this build to the baseline with the "
      "widest spread the shells allow\n\n",
      PROCS, RUNS);
  out("| statement | this build s | baseline s | ratio | verdict |\n");
  out("|---|---|---|---|---|\n");
  for (int i = 0; i < nq; i++) {
    if (only && !strstr(what[i], only)) continue;
    sample n, o;
    pair(new_ext, old_ext, setup, q[i], &n, &o);
    figure fn = stats_of(&n), fo = stats_of(&o);
    figure fr = stats_ratio_apart(&n, &o);
    const char *v = fr.n == 0              ? "not measured"
                    : fr.lo > 1.05         ? "slower"
                    : fr.hi < 0.95         ? "faster"
                                           : "the same, within the spread";
    out("| %s: `%.90s%s` | %.4f | %.4f | %.2f (%.2f-%.2f) | %s |\n", what[i],
        q[i], strlen(q[i]) > 90 ? "..." : "", fn.med, fo.med, fr.med, fr.lo,
        fr.hi, v);
  }
  if (resfile) write_results(resfile, HEADING);
  return 0;
}
