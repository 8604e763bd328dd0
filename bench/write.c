/*
** write.c -- the benchmark of parquet_write(path, query [, options]):
** writing the rows of a SQLite table as a Parquet file, against reading
** the same rows in SQLite and against DuckDB writing them, in one run.
**
**   build/bench/write [--quick] [--extension PATH] [--work DIR]
**                     [--duckdb DIR] [--results FILE] [--only WRITE]
**
** Data: WORK/table_data/native.db, the SQLite table `native` of
** bench/tables.c (10 M rows: id INT, ts TEXT, x REAL, cat TEXT, url TEXT,
** opt INT), made the same way when it is missing (from t.parquet, which
** bench/tables.mjs writes with DuckDB).  The files written go to
** WORK/write_data/.
**
** Figures, each the median over PROCS sqlite3 shells (fresh processes) of
** each shell's best of RUNS runs (.timer) after one untimed run, warm
** page cache, as ratios to a baseline measured in the same run (a target
** is met or missed only when the ratio's whole spread says so); --quick
** runs one shell a statement over native_quick.db, a tenth of the rows:
**   (a) SELECT parquet_write(F, 'SELECT * FROM native'), default options,
**       over `SELECT * FROM native` stepped with every column of every row
**       read (bench_step of bench/step.c, built beside this program as
**       step.so; also shown: bench_step_values, and count(c) of each
**       column, which reads the values without result rows)
**   (b) the same with {"encoding":"auto"} (the default codec is SNAPPY,
**       as DuckDB's is)
**   (c) DuckDB (one thread, bench/write.mjs) writing the same rows from a
**       table of its own: COPY native TO F (FORMAT parquet), its time and
**       its file's size, beside ours
**   (d) peak resident memory (VmHWM) of a sqlite3 shell writing 20 M rows
**       (native twice over, by a CROSS JOIN), less its VmHWM before
**       the write, against twice the largest row group's encoded size (the
**       sum of its chunks' total_compressed_size in parquet_metadata) plus
**       16 MB
**
** The section is written under the heading "## Writing tables", in place
** of the one a run before wrote, else at the end of the results file.
*/
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L

#define BENCH_NAME "write"
#include "shell.h"

#define HEADING "## Writing tables"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- What a written file holds ------------------------------------------- */

#define NCOLS 6
static const char *const COLS[NCOLS] = {"id", "ts", "x", "cat", "url", "opt"};

typedef struct Layout {
  long long bytes;              /* the file */
  int groups;                   /* row groups */
  double max_group;             /* the largest row group's chunks, bytes */
  long long col_bytes[NCOLS];   /* each column's chunks, summed */
  char col_enc[NCOLS][160];     /* each column's encodings, distinct lists */
  char types[512];              /* "id INT64, ts STRING, ..." */
} Layout;

static void layout(const char *file, Layout *l) {
  memset(l, 0, sizeof *l);
  l->bytes = file_size(file);
  l->groups = -1;
  l->max_group = -1;
  if (l->bytes < 0) return;
  char script[2048], *o;
  snprintf(script, sizeof script,
           "SELECT 'G', count(*), max(s) FROM (SELECT sum(total_compressed_size) AS s "
           "FROM parquet_metadata('%s') GROUP BY row_group_id);\n"
           "SELECT 'C', path_in_schema, sum(total_compressed_size), "
           "(SELECT group_concat(e, ' / ') FROM (SELECT DISTINCT encodings AS e "
           "FROM parquet_metadata('%s') i WHERE i.column_id = m.column_id)) "
           "FROM parquet_metadata('%s') m GROUP BY column_id ORDER BY column_id;\n"
           "SELECT 'T', group_concat(name || ' ' || coalesce(logical_type, type), ', ') "
           "FROM parquet_schema('%s') WHERE name <> 'schema';\n",
           file, file, file, file);
  if (shell(":memory:", script, &o)) {
    fprintf(stderr, "write: the metadata of %s: %.300s\n", file, o);
    free(o);
    return;
  }
  for (char *line = o; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl) *nl = 0;
    char *f[4] = {0};
    int nf = 0;
    for (char *p = line; p && nf < 4;) {
      f[nf++] = p;
      p = strchr(p, '|');
      if (p) *p++ = 0;
    }
    if (nf == 3 && strcmp(f[0], "G") == 0) {
      l->groups = atoi(f[1]);
      l->max_group = strtod(f[2], NULL);
    } else if (nf == 4 && strcmp(f[0], "C") == 0) {
      for (int k = 0; k < NCOLS; k++)
        if (strcmp(f[1], COLS[k]) == 0) {
          l->col_bytes[k] = atoll(f[2]);
          snprintf(l->col_enc[k], sizeof l->col_enc[k], "%s", f[3]);
        }
    } else if (nf == 2 && strcmp(f[0], "T") == 0) {
      snprintf(l->types, sizeof l->types, "%s", f[1]);
    }
    line = nl ? nl + 1 : NULL;
  }
  free(o);
}

/* The row groups, or why there are none to show. */
static const char *groups_of(const Layout *l) {
  static char buf[4][24];
  static int next;
  char *b = buf[next++ % 4];
  if (l->groups >= 0) snprintf(b, sizeof buf[0], "%d", l->groups);
  else snprintf(b, sizeof buf[0], "not read");
  return b;
}

/* ---- Memory ------------------------------------------------------------------ */

typedef struct Mem {
  long before, after;  /* VmHWM, KiB */
  double secs;
  Layout l;
} Mem;

/* Writes the query's rows to file with the options in a shell of its
** own: VmHWM before (native.db attached, its pages read once) and after
** the write; then the file's layout, and the file goes. */
static int mem_write(const char *native, const char *query, const char *opts,
                     const char *file, Mem *m) {
  char script[4096];
  long hwm[2] = {0, 0};
  snprintf(script, sizeof script,
           "ATTACH '%s' AS n;\n"
           "SELECT count(*) FROM native;\n"
           ".shell grep VmHWM /proc/$PPID/status\n"
           "SELECT parquet_write('%s', '%s'%s%s%s);\n"
           ".shell grep VmHWM /proc/$PPID/status\n",
           native, file, query, opts ? ", '" : "", opts ? opts : "", opts ? "'" : "");
  double t0 = now_s();
  int marks = hwm_marks(script, hwm, 2);
  m->secs = now_s() - t0;
  m->before = hwm[0];
  m->after = hwm[1];
  layout(file, &m->l);
  unlink(file);
  return marks == 2 && m->l.max_group > 0 ? 0 : -1;
}

/* ---- Main ---------------------------------------------------------------------- */

static double mb(double bytes) { return bytes / 1e6; }

int main(int argc, char **argv) {
  const char *only = arg_value(argc, argv, "--only", NULL);
  if (only && !strstr(only, "WRITE")) return 0;
  int quick = has_flag(argc, argv, "--quick");
  EXT = arg_value(argc, argv, "--extension", EXT);
  const char *workdir = arg_value(argc, argv, "--work", "build/bench");
  const char *duckdir = arg_value(argc, argv, "--duckdb", NULL);
  const char *resfile = arg_value(argc, argv, "--results", NULL);
  if (quick) PROCS = 1;
  setvbuf(stdout, NULL, _IOLBF, 0);

  char dir[1024], wdir[1024], tfile[1200], native[1200], cmd[4096];
  snprintf(dir, sizeof dir, "%s/table_data", workdir);
  snprintf(wdir, sizeof wdir, "%s/write_data", workdir);
  mkdir(workdir, 0777);
  mkdir(dir, 0777);
  mkdir(wdir, 0777);
  /* --quick: the tenth of the rows bench/tables.c --quick uses */
  snprintf(tfile, sizeof tfile, "%s/t%s.parquet", dir, quick ? "_quick" : "");
  snprintf(native, sizeof native, "%s/native%s.db", dir, quick ? "_quick" : "");
  const long gen_rows = quick ? 1000000 : 10000000;
  const int times = quick ? 1 : 2; /* (d): native, this many times over */

  /* ---- The data: native.db as bench/tables.c makes it ---- */
  if (!file_exists(tfile)) {
    if (!duckdir) {
      fprintf(stderr, "write: no %s, and no --duckdb DIR to write it\n", tfile);
      return 1;
    }
    snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/tables.mjs '%s' gen '%s' %ld",
             duckdir, tfile, gen_rows);
    free(run_node(cmd));
  }
  if (make_native(tfile, native)) return 1;
  char script[4096];
  snprintf(script, sizeof script, "SELECT count(*) FROM native;");
  double rows = shell_number(native, script);

  char mach[512], date[64], command[1024];
  machine(mach, sizeof mach);
  time_t t_now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t_now));
  command_line(argc, argv, command, sizeof command);
  char load[64] = "unknown";
  FILE *lf = fopen("/proc/loadavg", "r");
  if (lf) {
    if (fscanf(lf, "%63s", load) != 1) snprintf(load, sizeof load, "unknown");
    fclose(lf);
  }

  /* ---- (a), (b): ours, against stepping SELECT * ---- */
  char setup[1400];
  {
    const char *self = argv[0], *slash = strrchr(self, '/');
    snprintf(setup, sizeof setup, ".load %.*s/step.so", slash ? (int)(slash - self) : 1,
             slash ? self : ".");
  }
  static const char *const base_qs[] = {
      "SELECT bench_step('SELECT * FROM native');",
      "SELECT bench_step_values('SELECT * FROM native');",
      "SELECT count(id), count(ts), count(x), count(cat), count(url), count(opt) FROM native;"};
  enum { NBASE = 3 };
  double bases[NBASE], base_cpus[NBASE];
  sample s_base;
  for (int b = 0; b < NBASE; b++)
    bases[b] = best_times_s(native, setup, base_qs[b], b ? NULL : &s_base, &base_cpus[b]);
  double base = bases[0], base_cpu = base_cpus[0];

  static const struct {
    const char *name, *file, *opts;
  } cases[] = {{"default", "w_default.parquet", NULL},
               {"auto", "w_auto.parquet", "{\"encoding\":\"auto\"}"},
               {"threads1", "w_threads1.parquet", "{\"threads\":1}"}};
  enum { NCASES = sizeof cases / sizeof cases[0] };
  char files[NCASES][1300];
  double secs[NCASES], cpu[NCASES];
  sample s_secs[NCASES];
  Layout lay[NCASES];
  for (int k = 0; k < NCASES; k++) {
    snprintf(files[k], sizeof files[k], "%s/%s", wdir, cases[k].file);
    char stmt[6000];
    snprintf(stmt, sizeof stmt, "SELECT parquet_write('%s', 'SELECT * FROM native'%s%s%s);",
             files[k], cases[k].opts ? ", '" : "", cases[k].opts ? cases[k].opts : "",
             cases[k].opts ? "'" : "");
    secs[k] = best_times_s(native, setup, stmt, &s_secs[k], &cpu[k]);
    layout(files[k], &lay[k]);
  }

  /* ---- (c) DuckDB ---- */
  char *duck = NULL;
  Layout dlay;
  memset(&dlay, 0, sizeof dlay);
  if (duckdir) {
    snprintf(cmd, sizeof cmd, "env -u LD_PRELOAD node bench/write.mjs '%s' '%s' '%s' %d",
             duckdir, tfile, wdir, PROCS * RUNS);
    duck = run_node(cmd);
    char dfile[1300];
    snprintf(dfile, sizeof dfile, "%s/duckdb.parquet", wdir);
    layout(dfile, &dlay);
  }
  double d_s = json_obj_num(duck, "default", "seconds"), d_b = json_obj_num(duck, "default", "bytes");
  double d_g = json_obj_num(duck, "default", "row_groups");
  double du_s = json_obj_num(duck, "uncompressed", "seconds");
  double du_b = json_obj_num(duck, "uncompressed", "bytes");
  double d_ts = duck ? json_num(duck, "ts_chars") : -1;
  snprintf(script, sizeof script, "SELECT sum(length(ts)) FROM native;");
  double n_ts = duck ? shell_number(native, script) : -1;

  /* ---- (d) memory, 20 M rows ---- */
  char mquery[512], mfile[1300];
  if (times > 1) {
    int k = snprintf(mquery, sizeof mquery, "SELECT native.* FROM (VALUES ");
    for (int i = 1; i <= times; i++)
      k += snprintf(mquery + k, sizeof mquery - (size_t)k, "%s(%d)", i > 1 ? ", " : "", i);
    snprintf(mquery + k, sizeof mquery - (size_t)k, ") AS k CROSS JOIN native");
  } else
    snprintf(mquery, sizeof mquery, "SELECT * FROM native");
  Mem mem[2];
  int mem_ok[2];
  for (int k = 0; k < 2; k++) {
    snprintf(mfile, sizeof mfile, "%s/w_mem.parquet", wdir);
    mem_ok[k] = mem_write(native, mquery, cases[k].opts, mfile, &mem[k]) == 0;
  }

  /* ---- The section ---- */
  section_len = 0;
  out(HEADING "\n\n");
  out("- command: `%s` (run by `make bench`)\n", command);
  out("- machine: %s; load average %s at the start\n- date: %s\n", mach, load, date);
  out("- data: the SQLite table `native` of `%s` (%.0f MB, made from `%s` as "
      "\"The parquet table\" says): %.0f rows, id INT, ts TEXT, x REAL, cat TEXT "
      "(50 distinct), url TEXT, opt INT (30%% NULL); parquet_write types "
      "them by their declared types: %s\n",
      native, mb((double)file_size(native)), tfile, rows, lay[0].types);
  out("- each statement timed in %d sqlite3 shells (`.timer`), fresh processes "
      "one after the other, best of %d run in each after one untimed, warm "
      "page cache, each write replacing the file of the run before: the "
      "median time; a ratio with a target gives its median and the widest "
      "spread the two statements' shells allow, and is met or missed only "
      "when the whole spread is on one side (unsteady otherwise) "
      "(in `%s`); DuckDB (@duckdb/node-api 1.5.6) with `threads=1`, best "
      "of %d after one untimed\n\n",
      PROCS, RUNS, wdir, PROCS * RUNS);

  out("| figure | parquet_write s | baseline s | ratio | target | ratio to bench_step_values, to count(c) | CPU s: parquet_write, baseline, ratio | file MB | row groups |\n");
  out("|---|---|---|---|---|---|---|---|---|\n");
  static const char *const base_labels[] = {"the baseline", "also shown", "also shown"};
  for (int b = 0; b < NBASE; b++)
    out("| %s: `%.*s` | | %.3f | | | | %.3f | | |\n", base_labels[b],
        (int)strlen(base_qs[b]) - 1, base_qs[b], bases[b], base_cpus[b]);
  static const char *const labels[] = {
      "(a) `SELECT parquet_write('w_default.parquet', 'SELECT * FROM native')`",
      "(b) the same with `'{\"encoding\":\"auto\"}'`",
      "the same with `'{\"threads\":1}'` (no worker thread)"};
  static const double targets[] = {1.5, 2.5, -1};
  for (int k = 0; k < NCASES; k++) {
    char tgt[64] = "", rs[64];
    const char *verdict;
    ratio_str(&s_secs[k], &s_base, targets[k], &verdict, rs, sizeof rs);
    if (targets[k] > 0) snprintf(tgt, sizeof tgt, "%s <= %.1f", verdict, targets[k]);
    out("| %s | %.3f | %.3f | %s | %s | %.2f, %.2f | %.3f, %.3f, %.2f | %.1f | %s |\n", labels[k],
        secs[k], base, rs, tgt, secs[k] / bases[1], secs[k] / bases[2], cpu[k], base_cpu,
        cpu[k] > 0 && base_cpu > 0 ? cpu[k] / base_cpu : -1, mb((double)lay[k].bytes),
        groups_of(&lay[k]));
  }
  out("\n| (c) DuckDB, `COPY native TO 'duckdb.parquet' (FORMAT parquet)` | s | file MB | row groups | s over parquet_write's |\n");
  out("|---|---|---|---|---|\n");
  if (duck) {
    out("| DuckDB's defaults (SNAPPY) | %.3f | %.1f | %.0f | %.2f |\n",
        d_s, mb(d_b), d_g, d_s / secs[0]);
    out("| `COMPRESSION uncompressed` | %.3f | %.1f | %.0f | %.2f |\n", du_s, mb(du_b), d_g,
        du_s / secs[0]);
    out("| parquet_write, default (SNAPPY) | %.3f | %.1f | %s | |\n", secs[0],
        mb((double)lay[0].bytes), groups_of(&lay[0]));
    out("| parquet_write, `auto` (SNAPPY) | %.3f | %.1f | %s | |\n", secs[1],
        mb((double)lay[1].bytes), groups_of(&lay[1]));
  } else {
    out("| DuckDB | not measured (no --duckdb) | | | |\n");
  }
  out("\nEach column's chunks, MB summed over the row groups, and their encodings "
      "(`parquet_metadata`; `RLE` is the definition levels'):\n\n");
  out("| column | default | `auto` | DuckDB |\n|---|---|---|---|\n");
  for (int c = 0; c < NCOLS; c++) {
    out("| %s |", COLS[c]);
    for (int k = 0; k < 2; k++) { /* threads 1 writes what the default does */
      if (lay[k].groups > 0)
        out(" %.1f: %s |", mb((double)lay[k].col_bytes[c]), lay[k].col_enc[c]);
      else
        out(" not read |");
    }
    if (dlay.groups > 0) out(" %.1f: %s |\n", mb((double)dlay.col_bytes[c]), dlay.col_enc[c]);
    else out(" not read |\n");
  }

  char over[64] = "once";
  if (times > 1) snprintf(over, sizeof over, "%d times over", times);
  out("\n| (d) peak memory writing %.0f rows (`native` %s: `%s`) | VmHWM less before | largest row group | target: under 2 x it + 16 MB |\n",
      rows * times, over, mquery);
  out("|---|---|---|---|\n");
  for (int k = 0; k < 2; k++) {
    if (!mem_ok[k]) {
      out("| %s | not measured | | |\n", k ? "`auto`" : "default");
      continue;
    }
    double used = (double)(mem[k].after - mem[k].before) * 1024;
    double target = 2 * mem[k].l.max_group + 16 * 1048576.0;
    out("| %s: %.1f s, %.0f MB, %d row groups; VmHWM %ld KiB after, %ld KiB before | +%.1f MB | %.1f MB | %s < %.1f MB |\n",
        k ? "`auto`" : "default", mem[k].secs, mb((double)mem[k].l.bytes), mem[k].l.groups,
        mem[k].after, mem[k].before, used / 1048576, mem[k].l.max_group / 1048576,
        used < target ? "met" : "MISSED", target / 1048576);
  }
  out("\nThe baseline is what the target names, `SELECT *` stepped with "
      "every column of every row read: bench_step (bench/step.c) steps the "
      "query and reads each value as a program that consumes the rows does "
      "(Python's sqlite3 module, the sqlite3 shell): sqlite3_column_type, "
      "then sqlite3_column_int64, _double, or _text or _blob with _bytes. "
      "Each sqlite3_column_* call enters the connection's mutex; "
      "bench_step_values reads each value through one "
      "sqlite3_column_value and the sqlite3_value_* accessors instead, the "
      "least a consumer of result rows can do, and is shown beside. "
      "`count(c)` of each column reads every value without making result "
      "rows at all (each column of each record decoded by OP_Column, a NULL "
      "test per value). parquet_write takes its rows as the arguments of "
      "a function the query is wrapped to call (no sqlite3_column_* call), "
      "converts them into batches of 8192 rows, and a worker thread "
      "encodes, compresses and writes one batch while the next is filled "
      "(the columns shared between the two threads by the time they take); "
      "`threads: 1` is the same on the calling thread alone. The ratio "
      "against which the targets are judged is of real time (`.timer`'s "
      "real); the CPU columns are its user + sys (best of the same runs), "
      "which with the worker is more than the real time. ");
  out("DuckDB writes from a table that holds the same rows in the same "
      "types (ts as the same text: %s), row groups of 122 880 rows against "
      "parquet_write's 1 000 000. (d) reads `native` once before the first "
      "mark (`SELECT count(*)`), so SQLite's page cache is full then; its "
      "file is removed once measured. MB are 10^6 bytes, but in (d), where "
      "they are MiB (2^20 bytes).\n",
      d_ts < 0   ? "not checked"
      : d_ts == n_ts ? "the sum of its lengths checked equal"
                     : "the sum of its lengths DIFFERS");
  free(duck);
  if (resfile) write_results(resfile, HEADING);
  return 0;
}
