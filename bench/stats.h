/*
** stats.h -- figures that hold from run to run: each measured in several
** fresh processes, reported as the median across them with the spread
** (smallest to largest), and a target called met or missed only when the
** whole spread lies on one side of it ("unsteady" otherwise).
**
** A sample holds one figure per process (each process's best of its own
** repeats).  A ratio of two figures measured in the same process, or in
** the same round of processes run one after the other, is taken process
** by process (stats_ratio); a ratio of figures measured apart has the
** widest spread the two samples allow (stats_ratio_apart).
**
** Every function is static: each program includes this once.
*/
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define STATS_MAX 16 /* processes */
#define ST_FN static __attribute__((unused))

typedef struct sample {
  int n;
  double v[STATS_MAX];
} sample;

/* What a sample says: its median and its spread. */
typedef struct figure {
  double med, lo, hi;
  int n; /* processes that measured it; 0: none */
} figure;

/* Adds one process's figure; values <= 0 (not measured) are left out.
** A sample may also be filled by index, v[i] for process i, with <= 0
** where process i measured nothing: every function skips those. */
ST_FN void stats_add(sample *s, double x) {
  if (s->n < STATS_MAX && x > 0) s->v[s->n++] = x;
}

/* The median and spread of the sample's measured (> 0) values. */
ST_FN figure stats_of(const sample *s) {
  figure f = {0, 0, 0, 0};
  double v[STATS_MAX];
  int n = 0;
  for (int i = 0; i < s->n && i < STATS_MAX; i++)
    if (s->v[i] > 0) v[n++] = s->v[i];
  if (!n) return f;
  for (int i = 1; i < n; i++) /* insertion sort: a handful of values */
    for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
      double t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  f.n = n;
  f.lo = v[0];
  f.hi = v[n - 1];
  f.med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  return f;
}

/* k / x for each value of x: seconds into a rate (k values), or the
** reverse. */
ST_FN figure stats_per(double k, const sample *s) {
  sample r = {0, {0}};
  for (int i = 0; i < s->n; i++)
    if (s->v[i] > 0) stats_add(&r, k / s->v[i]);
  return stats_of(&r);
}

/* a / b process by process (a->v[i] and b->v[i] measured together);
** a process that measured either not at all (<= 0) is left out. */
ST_FN figure stats_ratio(const sample *a, const sample *b) {
  sample r = {0, {0}};
  int n = a->n < b->n ? a->n : b->n;
  for (int i = 0; i < n; i++)
    if (a->v[i] > 0 && b->v[i] > 0) stats_add(&r, a->v[i] / b->v[i]);
  return stats_of(&r);
}

/* a / b measured apart: the median of each, and every pairing's spread. */
ST_FN figure stats_ratio_apart(const sample *a, const sample *b) {
  figure fa = stats_of(a), fb = stats_of(b), f = {0, 0, 0, 0};
  if (!fa.n || !fb.n) return f;
  f.n = fa.n < fb.n ? fa.n : fb.n;
  f.med = fa.med / fb.med;
  f.lo = fa.lo / fb.hi;
  f.hi = fa.hi / fb.lo;
  return f;
}

/* "1.23 (1.10-1.31)": the median and the spread, with the format of one
** number ("%.2f"); "n/a" when nothing was measured; the median alone
** when one process measured it. */
ST_FN const char *stats_str(figure f, const char *fmt, char *buf, size_t cap) {
  if (!f.n) {
    snprintf(buf, cap, "n/a");
    return buf;
  }
  char a[32], b[32], c[32];
  snprintf(a, sizeof a, fmt, f.med);
  if (f.n == 1) {
    snprintf(buf, cap, "%.20s", a);
    return buf;
  }
  snprintf(b, sizeof b, fmt, f.lo);
  snprintf(c, sizeof c, fmt, f.hi);
  snprintf(buf, cap, "%.18s (%.18s-%.18s)", a, b, c);
  return buf;
}

/* The verdict on a figure against its target, higher better (at_least)
** or lower better: "met" when the whole spread is on the good side,
** "MISSED" when it is all on the other, "unsteady" when it straddles. */
ST_FN const char *stats_verdict(figure f, double target, int at_least) {
  if (!f.n) return "not measured";
  int lo_ok = at_least ? f.lo >= target : f.lo <= target;
  int hi_ok = at_least ? f.hi >= target : f.hi <= target;
  if (lo_ok && hi_ok) return "met";
  if (!lo_ok && !hi_ok) return "MISSED";
  return "unsteady";
}

/* Runs this program again as a child, a fresh process, with its own
** arguments and "--child path" (and extra, when not NULL), and waits for
** it; 0 when it exited with 0.  The child writes what it measured to
** path. */
ST_FN int stats_spawn(int argc, char **argv, const char *path,
                      const char *extra) {
  char **args = calloc((size_t)argc + 4, sizeof *args);
  if (!args) return -1;
  int k = 0;
  for (int i = 0; i < argc; i++) args[k++] = argv[i];
  args[k++] = (char *)"--child";
  args[k++] = (char *)path;
  if (extra) args[k++] = (char *)extra;
  args[k] = NULL;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    execv("/proc/self/exe", args);
    _exit(127);
  }
  free(args);
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    fprintf(stderr, "a child process failed (status %d)\n", status);
    return -1;
  }
  return 0;
}

#endif
