/*
** shell.h -- what the benchmarks that drive the sqlite3 shell share
** (bench/tables.c, bench/write.c): running a script in the shell, timing
** a statement with `.timer`, reading VmHWM, running a Node script, the
** section of the results file, and the data both use (t.parquet, made by
** DuckDB, and native.db, the same rows in a SQLite table).
**
** Define BENCH_NAME (the program's name, which starts its messages)
** before including it.  Every function is static: each program includes
** this once.
*/
#ifndef BENCH_SHELL_H
#define BENCH_SHELL_H

#ifndef BENCH_NAME
#error "define BENCH_NAME before including shell.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "stats.h"

#define SH_FN static __attribute__((unused))

static int RUNS = 1;  /* timed runs in each shell, after one untimed */
static int PROCS = 3; /* shells (fresh processes) per statement */
static const char *EXT = "build/parquet.so";
static const char *PRELOAD = ""; /* "LD_PRELOAD=... " for shell() */
static const char *PIN = "";     /* "taskset -c N " for shell() */

/* ---- Output: stdout and the section's text ----------------------------- */

static char *section;
static size_t section_len, section_cap;

SH_FN void out(const char *fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n >= sizeof buf) n = sizeof buf - 1;
  fputs(buf, stdout);
  if (section_len + (size_t)n + 1 > section_cap) {
    section_cap = (section_len + (size_t)n + 1) * 2;
    section = realloc(section, section_cap);
  }
  memcpy(section + section_len, buf, (size_t)n + 1);
  section_len += (size_t)n;
}

/* ---- Files ---------------------------------------------------------------- */

SH_FN int file_exists(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

SH_FN long long file_size(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 ? (long long)st.st_size : -1;
}

/* ---- The sqlite3 shell ------------------------------------------------------ */

/* Runs the sqlite3 shell on db with the script, after loading EXT; its
** output in *outp (to free).  0 on success. */
SH_FN int shell(const char *db, const char *script, char **outp) {
  char path[] = "/tmp/pq-" BENCH_NAME "-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  FILE *f = fdopen(fd, "w");
  fprintf(f, ".load %s\n%s\n", EXT, script);
  fclose(f);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "env %s %ssqlite3 -bail '%s' < %s 2>&1", PRELOAD, PIN, db, path);
  FILE *p = popen(cmd, "r");
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t n;
  while (p && (n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += n;
    if (len + 1 >= cap) buf = realloc(buf, cap *= 2);
  }
  buf[len] = 0;
  int rc = p ? pclose(p) : -1;
  unlink(path);
  if (outp) *outp = buf;
  else free(buf);
  return rc;
}

static int WARM = 1; /* shell_best runs the statement once untimed first */

/* Best real time of RUNS runs of stmt, after setup and (with WARM) one run
** untimed (the first run of a query faults in the pages and buffers that
** the next ones reuse), in one shell; with cpu, the best user + sys time
** of the same runs in *cpu. */
SH_FN double shell_best(const char *db, const char *setup, const char *stmt,
                        double *cpu) {
  char script[8192];
  int k = snprintf(script, sizeof script, "%s\n%s\n.timer on\n", setup,
                   WARM ? stmt : "");
  for (int i = 0; i < RUNS && k < (int)sizeof script; i++)
    k += snprintf(script + k, sizeof script - (size_t)k, "%s\n", stmt);
  char *o = NULL;
  int rc = shell(db, script, &o);
  double best = -1;
  if (cpu) *cpu = -1;
  for (char *l = o; l && *l;) {
    char *nl = strchr(l, '\n');
    if (nl) *nl = 0;
    const char *r = strstr(l, "Run Time: real ");
    if (r) {
      double t = strtod(r + 15, NULL);
      if (best < 0 || t < best) best = t;
      const char *u = strstr(r, " user "), *y = strstr(r, " sys ");
      double c = u && y ? strtod(u + 6, NULL) + strtod(y + 5, NULL) : -1;
      if (cpu && c >= 0 && (*cpu < 0 || c < *cpu)) *cpu = c;
    } else if (strstr(l, "rror")) {
      fprintf(stderr, BENCH_NAME ": sqlite3: %s\n", l);
    }
    l = nl ? nl + 1 : NULL;
  }
  if (rc) fprintf(stderr, BENCH_NAME ": sqlite3 exited with %d: %.300s\n", rc, o);
  free(o);
  return best;
}

/* The statement timed in PROCS shells, one after the other (shell_best
** in each): each shell's time in *real (when not NULL), and the median of
** their CPU times in *cpu (when not NULL); returns the median time, -1
** when no shell measured it. */
SH_FN double best_times_s(const char *db, const char *setup, const char *stmt,
                          sample *real, double *cpu) {
  sample r = {0, {0}}, c = {0, {0}};
  for (int i = 0; i < PROCS && i < STATS_MAX; i++) {
    r.v[i] = shell_best(db, setup, stmt, &c.v[i]);
    r.n = c.n = i + 1;
  }
  if (real) *real = r;
  if (cpu) {
    figure fc = stats_of(&c);
    *cpu = fc.n ? fc.med : -1;
  }
  figure f = stats_of(&r);
  return f.n ? f.med : -1;
}

/* The median time over PROCS shells; with cpu, the median CPU time. */
SH_FN double best_times(const char *db, const char *setup, const char *stmt,
                        double *cpu) {
  return best_times_s(db, setup, stmt, NULL, cpu);
}

/* A figure shown beside the others, with no target: the median over PROCS
** shells of one run each, without the untimed run first (the first run in
** a process, page cache warm). */
SH_FN double shown_time(const char *db, const char *setup, const char *stmt) {
  WARM = 0;
  double t = best_times(db, setup, stmt, NULL);
  WARM = 1;
  return t;
}

/* The first line the shell prints for the script, as a number. */
SH_FN double shell_number(const char *db, const char *script) {
  char *o;
  double v = -1;
  if (shell(db, script, &o) == 0) v = strtod(o, NULL);
  free(o);
  return v;
}

/* VmHWM (KiB) of a sqlite3 shell after each "-- mark" of the script,
** which prints it.  Returns how many marks were read. */
SH_FN int hwm_marks(const char *script, long *kib, int max) {
  char *o;
  if (shell(":memory:", script, &o)) {
    fprintf(stderr, BENCH_NAME ": memory script failed: %.300s\n", o);
    free(o);
    return 0;
  }
  int n = 0;
  for (char *l = strstr(o, "VmHWM:"); l && n < max; l = strstr(l + 1, "VmHWM:"))
    kib[n++] = strtol(l + 6, NULL, 10);
  free(o);
  return n;
}

/* ---- Node (DuckDB's side) ------------------------------------------------- */

SH_FN double json_num(const char *s, const char *key) {
  char pat[96];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *p = strstr(s, pat);
  return p ? strtod(p + strlen(pat), NULL) : -1;
}

/* The number `key` of the object `name` in a line of JSON
** ({..., "name": {..., "key": 1.5, ...}, ...}); -1 when it has none. */
SH_FN double json_obj_num(const char *json, const char *name, const char *key) {
  if (!json) return -1;
  char pat[96];
  snprintf(pat, sizeof pat, "\"%s\":{", name);
  const char *p = strstr(json, pat);
  if (!p) return -1;
  char obj[256];
  const char *e = strchr(p, '}');
  size_t n = e ? (size_t)(e - p) : strlen(p);
  if (n >= sizeof obj) n = sizeof obj - 1;
  memcpy(obj, p, n);
  obj[n] = 0;
  return json_num(obj, key);
}

/* Runs the command; the last line it prints that starts with '{' (to
** free), the others go to stderr. */
SH_FN char *run_node(const char *cmd) {
  FILE *p = popen(cmd, "r");
  if (!p) return NULL;
  char line[8192];
  char *last = NULL;
  while (fgets(line, sizeof line, p)) {
    if (line[0] == '{') {
      free(last);
      last = strdup(line);
    } else {
      fprintf(stderr, BENCH_NAME ": node: %s", line);
    }
  }
  if (pclose(p)) {
    fprintf(stderr, BENCH_NAME ": %s failed\n", cmd);
  }
  return last;
}

/* ---- The data ----------------------------------------------------------------- */

/* Makes native (the SQLite table `native`) from the rows of the parquet
** file tfile, unless it exists and is newer.  0 on success. */
SH_FN int make_native(const char *tfile, const char *native) {
  struct stat st_t, st_n;
  if (stat(tfile, &st_t) != 0) return 1;
  if (stat(native, &st_n) == 0 && st_n.st_mtime >= st_t.st_mtime) return 0;
  char tmp[1300], script[4096], *o;
  snprintf(tmp, sizeof tmp, "%s.tmp", native);
  unlink(tmp);
  double t0 = (double)time(NULL);
  snprintf(script, sizeof script,
           "CREATE VIRTUAL TABLE temp.t USING parquet('%s');\n"
           "CREATE TABLE native AS SELECT * FROM t;\n",
           tfile);
  if (shell(tmp, script, &o) || rename(tmp, native)) {
    fprintf(stderr, BENCH_NAME ": making %s failed: %.300s\n", native, o);
    free(o);
    return 1;
  }
  free(o);
  fprintf(stderr, BENCH_NAME ": %s made in %.0f s\n", native, (double)time(NULL) - t0);
  return 0;
}

/* ---- The command line, the machine, the results file ----------------------- */

SH_FN const char *arg_value(int argc, char **argv, const char *name,
                            const char *def) {
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp(argv[i], name) == 0) return argv[i + 1];
  return def;
}
SH_FN int has_flag(int argc, char **argv, const char *name) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], name) == 0) return 1;
  return 0;
}

/* The program's command line, as one string. */
SH_FN void command_line(int argc, char **argv, char *buf, size_t cap) {
  buf[0] = 0;
  for (int i = 0; i < argc; i++) {
    strncat(buf, i ? " " : "", cap - strlen(buf) - 1);
    strncat(buf, argv[i], cap - strlen(buf) - 1);
  }
}

SH_FN void machine(char *buf, size_t cap) {
  char model[256] = "unknown CPU";
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *p = strchr(line, ':');
      if (p) {
        snprintf(model, sizeof model, "%s", p + 2);
        model[strcspn(model, "\n")] = 0;
      }
      break;
    }
  }
  if (f) fclose(f);
  struct utsname u;
  uname(&u);
  snprintf(buf, cap, "%s, %ld CPUs, %s %s", model, sysconf(_SC_NPROCESSORS_ONLN),
           u.sysname, u.release);
}

/* Writes the section (which starts with the line heading) into the
** results file: in place of the one a run before wrote (up to the next
** "## " heading, or the end), else at the end. */
SH_FN void write_results(const char *path, const char *heading) {
  FILE *f = fopen(path, "r");
  char *old = NULL;
  size_t len = 0;
  const char *rest = "";
  if (f) {
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    old = malloc((size_t)(n > 0 ? n : 0) + 1);
    len = fread(old, 1, (size_t)(n > 0 ? n : 0), f);
    old[len] = 0;
    fclose(f);
    char pat[256];
    snprintf(pat, sizeof pat, "\n%s\n", heading);
    /* The heading at the start of a line: of the file, or after a '\n'. */
    char *at = strncmp(old, pat + 1, strlen(pat + 1)) == 0 ? old : NULL;
    if (!at && (at = strstr(old, pat)) != NULL) at++;
    if (at) {
      char *next = strstr(at + strlen(pat + 1) - 1, "\n## ");
      if (next) rest = next + 1;
      len = (size_t)(at - old);
    }
    while (len && old[len - 1] == '\n') len--;
  }
  f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, BENCH_NAME ": cannot write %s: %s\n", path, strerror(errno));
    free(old);
    return;
  }
  if (len) {
    fwrite(old, 1, len, f);
    fputs("\n\n", f);
  }
  fputs(section, f);
  if (*rest) {
    if (section_len && section[section_len - 1] != '\n') fputs("\n", f);
    fputs("\n", f);
    fputs(rest, f);
  }
  fclose(f);
  free(old);
}

/* "0.61 (0.55-0.70)" for the ratio a / b of two statements' samples,
** measured apart, and its verdict against target (lower is better) in
** *verdict. */
SH_FN const char *ratio_str(const sample *a, const sample *b, double target,
                            const char **verdict, char *buf, size_t cap) {
  figure f = stats_ratio_apart(a, b);
  if (verdict) *verdict = stats_verdict(f, target, 0);
  return stats_str(f, "%.2f", buf, cap);
}

/* The same for samples measured in rounds (a->v[i] beside b->v[i]): the
** rounds' ratios, their median and spread. */
SH_FN const char *ratio_rounds_str(const sample *a, const sample *b, double target,
                                   const char **verdict, char *buf, size_t cap) {
  figure f = stats_ratio(a, b);
  if (verdict) *verdict = stats_verdict(f, target, 0);
  return stats_str(f, "%.2f", buf, cap);
}

#endif
