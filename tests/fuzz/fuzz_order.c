/*
** fuzz_order.c -- the texts the collations instant and decimal compare
** and decimal_sum adds (src/util/order.c): the input is two texts, split
** at its first NUL byte (else in halves).  Each comparison must be an
** order (a text equals itself; swapped, the sign turns), the instants'
** shortcut for their plain form must order as their parse does (with a
** memory of the texts found plain, too), and the sum of the two, when
** both are decimals, must read back as a decimal.
*/
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef int (*cmp_fn)(const char *, size_t, const char *, size_t);

static void check(cmp_fn f, const char *a, size_t na, const char *b,
                  size_t nb) {
  int x = f(a, na, b, nb), y = f(b, nb, a, na);
  if ((x > 0) != (y < 0) || (x == 0) != (y == 0)) abort();
  if (f(a, na, a, na) != 0 || f(b, nb, b, nb) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *z = memchr(data, 0, size);
  size_t na = z ? (size_t)(z - data) : size / 2;
  const char *a = (const char *)data;
  const char *b = a + na + (z != NULL);
  size_t nb = size - na - (z != NULL);
  check(pq_instant_compare, a, na, b, nb);
  /* The plain form's shortcut orders as the parse does: a space before
  ** each text takes the parse's way (spaces are skipped) */
  char *sa = malloc(na + 1), *sb = malloc(nb + 1);
  if (sa && sb) {
    sa[0] = sb[0] = ' ';
    if (na) memcpy(sa + 1, a, na);
    if (nb) memcpy(sb + 1, b, nb);
    int x = pq_instant_compare(a, na, b, nb);
    int y = pq_instant_compare(sa, na + 1, sb, nb + 1);
    if ((x > 0) != (y > 0) || (x < 0) != (y < 0)) abort();
    /* A memory of the texts found plain changes no result: each call
    ** twice, so that the second finds what the first kept. */
    pq_instant_memo m = {0};
    for (int k = 0; k < 2; k++)
      if (pq_instant_compare_memo(&m, a, na, b, nb) != x ||
          pq_instant_compare_memo(&m, b, nb, a, na) !=
              pq_instant_compare(b, nb, a, na))
        abort();
  }
  free(sa);
  free(sb);
  check(pq_decimal_compare, a, na, b, nb);
  /* what names an instant comes before what does not ("~") */
  if (pq_instant_valid(a, na) && pq_instant_compare(a, na, "~", 1) >= 0)
    abort();
  pq_decimal_sum *s = pq_decimal_sum_new();
  if (!s) return 0;
  int ra = pq_decimal_sum_add(s, a, na);
  int rb = pq_decimal_sum_add(s, b, nb);
  if ((ra == PQ_OK) != (pq_decimal_valid(a, na) != 0) && ra != PQ_TOOBIG &&
      ra != PQ_NOMEM)
    abort();
  if (ra == PQ_OK && rb == PQ_OK) {
    size_t n;
    char *t = pq_decimal_sum_text(s, &n);
    if (t) {
      if (!pq_decimal_valid(t, n) || strlen(t) != n) abort();
      pq_free(t);
    }
  }
  pq_decimal_sum_free(s);
  return 0;
}
