/*
** lab.c -- the benchmark of the encoding lab, parquet_lab(query [,
** options]): the lab of a 1 M-row, 6-column table over every encoding and
** every codec of the build at its default level, against one
** parquet_write of the same table, in one run.
**
**   build/bench/lab [--quick] [--extension PATH] [--work DIR]
**                   [--results FILE] [--procs N]
**
** Data: WORK/lab_data/lab.db, the SQLite table `lab` made here in SQL
** (1 M rows, 100 000 with --quick): id INTEGER (sorted), rnd INTEGER
** (random-looking, 32-bit), price REAL (two decimals), ts TIMESTAMP (text,
** a timestamp every 3 s with milliseconds; parquet_write types it by its
** declared type, TIMESTAMP(us)), cat TEXT (7 distinct), url TEXT (about
** 45 bytes, 200 000 distinct paths).  Made once; kept while its script is
** unchanged.
**
** Figures, each the median over PROCS sqlite3 shells (fresh processes; 1
** by default: a lab takes a minute), one run each after the table's pages
** are read once (no untimed run of the statement: it would double the
** run), `.timer`'s real time and its user + sys:
**   the baseline  SELECT parquet_write(F, 'SELECT * FROM lab')
**   untimed       SELECT count(*) FROM parquet_lab('SELECT * FROM lab',
**                   '{"min_time":0}')
**   timed         SELECT count(*) FROM parquet_lab('SELECT * FROM lab')
**                   (each speed measured for 0.02 s, the default)
**   also shown    parquet_lab_file over the baseline's file, untimed;
**                 and the untimed lab of each codec alone
**                 ('{"min_time":0,"codecs":["ZSTD"]}'), where the time goes
** The target: the lab over every encoding and codec under 30 s (real
** time, on a machine with 2 CPUs; the lab runs two trials at a time).
**
** The section is written under the heading "## The encoding lab", in
** place of the one a run before wrote, else at the end of the results
** file.
*/
#define _DEFAULT_SOURCE
#define _POSIX_C_SOURCE 200809L

#define BENCH_NAME "lab"
#include "shell.h"

#define HEADING "## The encoding lab"

/* The table's rows: %ld is the row count. */
static const char *const GEN =
    "CREATE TABLE lab(id INTEGER, rnd INTEGER, price REAL, ts TIMESTAMP, "
    "cat TEXT, url TEXT);\n"
    "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE "
    "x < %ld)\n"
    "INSERT INTO lab SELECT x, (x * 2654435761) %% 4294967296 - 2147483648, "
    "round(1 + ((x * 7919) %% 100000) / 100.0, 2), "
    "strftime('%%Y-%%m-%%d %%H:%%M:%%f', 1700000000 + x * 3 + (x * 13) %% 7 "
    "/ 10.0, 'unixepoch'), "
    "CASE (x * 31) %% 7 WHEN 0 THEN 'north' WHEN 1 THEN 'south' WHEN 2 THEN "
    "'east' WHEN 3 THEN 'west' WHEN 4 THEN 'centre' WHEN 5 THEN 'online' "
    "ELSE 'other' END, "
    "'https://example.com/' || CASE x %% 3 WHEN 0 THEN 'shop' WHEN 1 THEN "
    "'blog' ELSE 'help' END || '/item/' || ((x * 48271) %% 200000) || "
    "'?ref=' || (x %% 97) FROM n;\n";

/* One statement timed: the median real and CPU seconds over PROCS shells. */
typedef struct Timed {
  double real, cpu;
  sample s;
} Timed;

static void timed(const char *db, const char *setup, const char *stmt,
                  Timed *t) {
  WARM = 0;
  t->real = best_times_s(db, setup, stmt, &t->s, &t->cpu);
  WARM = 1;
}

static void load_avg(char *buf, size_t cap) {
  snprintf(buf, cap, "unknown");
  FILE *f = fopen("/proc/loadavg", "r");
  if (!f) return;
  char a[16], b[16], c[16];
  if (fscanf(f, "%15s %15s %15s", a, b, c) == 3)
    snprintf(buf, cap, "%s %s %s", a, b, c);
  fclose(f);
}

int main(int argc, char **argv) {
  int quick = has_flag(argc, argv, "--quick");
  EXT = arg_value(argc, argv, "--extension", EXT);
  const char *workdir = arg_value(argc, argv, "--work", "build/bench");
  const char *resfile = arg_value(argc, argv, "--results", NULL);
  PROCS = atoi(arg_value(argc, argv, "--procs", "1"));
  if (PROCS < 1) PROCS = 1;
  if (PROCS > STATS_MAX) PROCS = STATS_MAX;
  RUNS = 1;
  setvbuf(stdout, NULL, _IOLBF, 0);

  const long rows = quick ? 100000 : 1000000;
  char dir[1024], db[1100], made[1200], wfile[1100];
  snprintf(dir, sizeof dir, "%s/lab_data", workdir);
  mkdir(workdir, 0777);
  mkdir(dir, 0777);
  snprintf(db, sizeof db, "%s/lab%s.db", dir, quick ? "_quick" : "");
  snprintf(made, sizeof made, "%s.sql", db);
  snprintf(wfile, sizeof wfile, "%s/w.parquet", dir);

  /* ---- The data, unless made before by the same script ---- */
  char gen[4096];
  snprintf(gen, sizeof gen, GEN, rows);
  int same = 0;
  FILE *f = fopen(made, "r");
  if (f && file_exists(db)) {
    char old[4096];
    size_t n = fread(old, 1, sizeof old - 1, f);
    old[n] = 0;
    same = strcmp(old, gen) == 0;
  }
  if (f) fclose(f);
  if (!same) {
    char *o;
    unlink(db);
    if (shell(db, gen, &o)) {
      fprintf(stderr, "lab: making %s failed: %.300s\n", db, o);
      free(o);
      return 1;
    }
    free(o);
    f = fopen(made, "w");
    if (f) {
      fputs(gen, f);
      fclose(f);
    }
  }

  char mach[512], date[64], command[1024], load0[64], load1[64];
  machine(mach, sizeof mach);
  time_t t_now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t_now));
  command_line(argc, argv, command, sizeof command);
  load_avg(load0, sizeof load0);

  /* The table's pages read once in each shell before the statement. */
  const char *setup = "SELECT sum(length(url)) + sum(length(ts)) FROM lab;";
  char stmt[2048];
  Timed base, untimed, timedlab, file;
  snprintf(stmt, sizeof stmt,
           "SELECT parquet_write('%s', 'SELECT * FROM lab');", wfile);
  timed(db, setup, stmt, &base);
  timed(db, setup,
        "SELECT count(*) FROM parquet_lab('SELECT * FROM lab', "
        "'{\"min_time\":0}');",
        &untimed);
  timed(db, setup, "SELECT count(*) FROM parquet_lab('SELECT * FROM lab');",
        &timedlab);
  snprintf(stmt, sizeof stmt,
           "SELECT count(*) FROM parquet_lab_file('%s', '{\"min_time\":0}');",
           wfile);
  timed(db, setup, stmt, &file);

  /* Each codec alone, untimed. */
  static const char *const CODECS[] = {"UNCOMPRESSED", "SNAPPY", "GZIP",
                                       "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
  enum { NCODECS = sizeof CODECS / sizeof CODECS[0] };
  Timed one[NCODECS];
  for (int k = 0; k < NCODECS; k++) {
    snprintf(stmt, sizeof stmt,
             "SELECT count(*) FROM parquet_lab('SELECT * FROM lab', "
             "'{\"min_time\":0,\"codecs\":[\"%s\"]}');",
             CODECS[k]);
    timed(db, setup, stmt, &one[k]);
  }

  /* What the rows are: per codec, the rows; the table's types. */
  char script[2048], *o = NULL;
  snprintf(script, sizeof script,
           "SELECT count(*), count(DISTINCT codec), count(DISTINCT \"column\") "
           "FROM parquet_lab('SELECT * FROM lab', '{\"min_time\":0,"
           "\"codecs\":[\"UNCOMPRESSED\"]}');\n"
           "SELECT group_concat(name, ' ') FROM parquet_codecs WHERE available;\n"
           "SELECT group_concat(name || ' ' || coalesce(logical_type, type), ', ') "
           "FROM parquet_schema('%s') WHERE name <> 'schema';\n",
           wfile);
  char per_codec[128] = "?", codecs[256] = "?", types[512] = "?";
  if (shell(db, script, &o) == 0) {
    char *l1 = o, *l2 = l1 ? strchr(l1, '\n') : NULL;
    if (l2) *l2++ = 0;
    char *l3 = l2 ? strchr(l2, '\n') : NULL;
    if (l3) *l3++ = 0;
    char *l4 = l3 ? strchr(l3, '\n') : NULL;
    if (l4) *l4 = 0;
    if (l1) snprintf(per_codec, sizeof per_codec, "%s", l1);
    if (l2) snprintf(codecs, sizeof codecs, "%s", l2);
    if (l3) snprintf(types, sizeof types, "%s", l3);
  }
  free(o);
  load_avg(load1, sizeof load1);
  long long wbytes = file_size(wfile);
  unlink(wfile);

  /* ---- The section ---- */
  section_len = 0;
  out(HEADING "\n\n");
  out("- command: `%s`\n", command);
  out("- machine: %s; load average %s at the start, %s at the end\n",
      mach, load0, load1);
  out("- date: %s\n", date);
  out("- data: the SQLite table `lab` of `%s`, %ld rows: id INTEGER "
      "(sorted), rnd INTEGER (random-looking 32-bit), price REAL (two "
      "decimals), ts TIMESTAMP (text, every 3 s, with milliseconds), cat "
      "TEXT (7 distinct), url TEXT (about 45 bytes); parquet_write types "
      "them: %s\n",
      db, rows, types);
  out("- the lab's rows for UNCOMPRESSED alone (rows, codecs, columns): "
      "%s; codecs of the build, each at its default level: %s\n",
      per_codec, codecs);
  out("- each statement timed in %d sqlite3 shell%s (`.timer`), fresh "
      "processes, one run each after the table's pages are read once "
      "(`%s`): the median real time, and the median user + sys\n\n",
      PROCS, PROCS > 1 ? "s" : "", setup);
  out("| statement | real s | user + sys s | target |\n|---|---|---|---|\n");
  out("| the baseline: `SELECT parquet_write('w.parquet', 'SELECT * FROM "
      "lab')` (%.1f MB) | %.2f | %.2f | |\n",
      (double)wbytes / 1e6, base.real, base.cpu);
  out("| `SELECT count(*) FROM parquet_lab('SELECT * FROM lab', "
      "'{\"min_time\":0}')`, untimed | %.2f | %.2f | %s < 30 s |\n",
      untimed.real, untimed.cpu, untimed.real < 30 ? "met" : "MISSED");
  out("| `SELECT count(*) FROM parquet_lab('SELECT * FROM lab')`, timed "
      "(min_time 0.02) | %.2f | %.2f | %s < 30 s |\n",
      timedlab.real, timedlab.cpu, timedlab.real < 30 ? "met" : "MISSED");
  out("| also shown: `parquet_lab_file('w.parquet', '{\"min_time\":0}')` "
      "| %.2f | %.2f | |\n",
      file.real, file.cpu);
  out("| the untimed lab over the baseline | %.1fx | %.1fx | |\n",
      untimed.real / base.real, untimed.cpu / base.cpu);
  out("\nThe untimed lab of each codec alone (`'{\"min_time\":0,"
      "\"codecs\":[\"C\"]}'`; each also writes every encoding once, "
      "the `values_bytes` streams and the PLAIN, UNCOMPRESSED measure, which "
      "the whole lab does once for all codecs):\n\n| codec | real s | user + "
      "sys s |\n|---|---|---|\n");
  double sum_cpu = 0;
  for (int k = 0; k < NCODECS; k++) {
    if (one[k].cpu > 0) sum_cpu += one[k].cpu;
    out("| %s | %.2f | %.2f |\n", CODECS[k], one[k].real, one[k].cpu);
  }
  out("| sum | | %.2f |\n", sum_cpu);
  out("\nThe lab writes each column once per encoding, its pages before "
      "their codec, and makes those pages under each codec, headers and "
      "CRCs as parquet_write makes them (the bytes are the sum); timed, that "
      "write and the making of the pages under a codec are the first run of "
      "the codec's write, repeated only while under 0.02 s, and the pages "
      "are read back (each page decompressed, its levels and values "
      "decoded) while under 0.02 s. Besides, per column and codec it writes "
      "the batches `auto` chooses on, and per column each encoding as one "
      "stream (`values_bytes`). The trials (a column in one encoding, under "
      "every codec; all the columns' in one queue) run two at a time, on two "
      "threads: real time is below user + sys when the "
      "machine has two CPUs to spare, and above it by the time the process "
      "waited when its load average is above the CPU count; user + sys is "
      "the work.\n");
  if (resfile) write_results(resfile, HEADING);
  return 0;
}
