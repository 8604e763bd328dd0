/*
** check.h -- what the C unit tests (tests/unit_*.c) share.
**
**   CHECK(ok, fmt, ...)   counts a check; prints "! file:line: why" when it
**                         does not hold (the run ends "N passed, N failed")
**   rnd()                 xorshift64*, a fixed sequence from `seed`, which
**                         starts at CHECK_SEED (define it before including)
**
** With CHECK_FILES defined (and _POSIX_C_SOURCE 200809L, for opendir and
** strdup), also the files of ../shared/parquet-testing: PT, slurp(),
** list_dir(), free_names().
*/
#ifndef PQ_TESTS_CHECK_H
#define PQ_TESTS_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

#define CHECK(ok, ...)                             \
  do {                                             \
    if (ok) {                                      \
      passed++;                                    \
    } else {                                       \
      failed++;                                    \
      printf("! %s:%d: ", __FILE__, __LINE__);     \
      printf(__VA_ARGS__);                         \
      putchar('\n');                               \
    }                                              \
  } while (0)

#ifndef CHECK_SEED
#define CHECK_SEED 0x5eed
#endif
static uint64_t seed = CHECK_SEED;

/* xorshift64*: a fixed sequence for a fixed seed. */
static inline uint64_t rnd(void) {
  seed ^= seed >> 12;
  seed ^= seed << 25;
  seed ^= seed >> 27;
  return seed * 0x2545f4914f6cdd1dull;
}

#ifdef CHECK_FILES
#include <dirent.h>

#define PT "../shared/parquet-testing"

/* A whole file; NULL when it cannot be read. */
static inline uint8_t *slurp(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  uint8_t *p = malloc(n > 0 ? (size_t)n : 1);
  if (p && fread(p, 1, (size_t)n, fp) != (size_t)n) {
    free(p);
    p = NULL;
  }
  fclose(fp);
  *len = (size_t)n;
  return p;
}

static inline int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .parquet files of a folder, sorted; *n of them. */
static inline char **list_dir(const char *dir, size_t *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **names = NULL;
  size_t cap = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    if (len < 8 || strcmp(e->d_name + len - 8, ".parquet") != 0) continue;
    if (*n == cap) {
      cap = cap ? cap * 2 : 64;
      names = realloc(names, cap * sizeof *names);
    }
    names[(*n)++] = strdup(e->d_name);
  }
  closedir(d);
  if (*n) qsort(names, *n, sizeof *names, by_name);
  return names;
}

static inline void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
}
#endif /* CHECK_FILES */

#endif /* PQ_TESTS_CHECK_H */
