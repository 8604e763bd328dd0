/*
** run.c -- the playground's bridge, native: each script named on the
** command line runs in a fresh database (pqweb_open) and its JSON answer
** (pqweb_exec) is printed on a line of its own.  `make test-wasm` runs the
** same scripts through the WebAssembly build under node and compares.
*/
#include <stdio.h>
#include <stdlib.h>

#include "pqweb.h"

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 1 << 16, n = 0, k;
  char *s = malloc(cap + 1);
  while (s && (k = fread(s + n, 1, cap - n, f)) > 0) {
    n += k;
    if (n == cap) {
      char *t = realloc(s, 2 * cap + 1);
      if (!t) {
        free(s);
        s = NULL;
        break;
      }
      s = t;
      cap *= 2;
    }
  }
  fclose(f);
  if (s) s[n] = 0;
  return s;
}

int main(int argc, char **argv) {
  int rc = 0;
  for (int i = 1; i < argc; i++) {
    char *sql = slurp(argv[i]);
    if (!sql) {
      fprintf(stderr, "run: cannot read %s\n", argv[i]);
      rc = 1;
      continue;
    }
    if (pqweb_open() != 0) {
      fprintf(stderr, "run: cannot open a database\n");
      return 1;
    }
    printf("%s\n", pqweb_exec(sql, 0, PQWEB_CONTINUE));
    free(sql);
  }
  return rc;
}
