/*
** alloc.c -- where the core's memory comes from: one allocator for every
** byte, the C library's unless the program names another, once, before
** the core allocates anything (pq_set_allocator).
**
** This is the core's one piece of process-wide state, as an allocator is
** in SQLite (SQLITE_CONFIG_MALLOC): a program that embeds the core in a
** host with its own accounting (the SQLite extension hands it SQLite's, so
** that PRAGMA hard_heap_limit and SQLite's fault injection see the core's
** buffers) sets it at start-up.  The pointer is read with an atomic load,
** so that setting the same allocator again from another thread (each
** connection that loads the extension does) is no race.
*/
#include "util.h"

static const pq_allocator *allocator; /* NULL: the C library's */

static const pq_allocator *current(void) {
  return __atomic_load_n(&allocator, __ATOMIC_ACQUIRE);
}

int pq_set_allocator(const pq_allocator *a) {
  const pq_allocator *none = NULL;
  if (!a || current() == a) return PQ_OK;
  if (!a->malloc || !a->realloc || !a->free) return PQ_MISUSE;
  /* The first one set stays: memory must be freed by the allocator that
  ** gave it. */
  if (__atomic_compare_exchange_n(&allocator, &none, a, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE))
    return PQ_OK;
  return none == a ? PQ_OK : PQ_MISUSE;
}

/* A request of 0 bytes is one of 1: callers may do pointer arithmetic on
** what they get, and SQLite's allocator returns NULL for 0. */
void *pq_malloc(size_t n) {
  const pq_allocator *a = current();
  if (!n) n = 1;
  return a ? a->malloc(n) : malloc(n);
}

void *pq_realloc(void *p, size_t n) {
  const pq_allocator *a = current();
  if (!n) n = 1;
  return a ? a->realloc(p, n) : realloc(p, n);
}

void *pq_calloc(size_t count, size_t size) {
  if (size && count > SIZE_MAX / size) return NULL;
  size_t n = count * size;
  void *p = pq_malloc(n);
  if (p && n) memset(p, 0, n);
  return p;
}

void pq_free(void *p) {
  const pq_allocator *a = current();
  if (!p) return;
  if (a) {
    a->free(p);
  } else {
    free(p);
  }
}
