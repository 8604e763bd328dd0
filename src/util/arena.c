/*
** arena.c -- an arena: many small allocations (a file's metadata, its
** schema tree) freed at once.
*/
#include "util.h"

struct pq_arena_block {
  struct pq_arena_block *next;
  size_t used, cap;
  /* the memory follows, aligned for what the core keeps in it (integers,
  ** doubles, pointers): 8 bytes, which every allocator gives (SQLite's
  ** gives no more) */
  union {
    int64_t i;
    double d;
    void *p;
  } data[];
};
typedef struct pq_arena_block arena_block;

void *pq_arena_alloc(pq_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!a->head || a->head->cap - a->head->used < n) {
    size_t cap = n > 16384 ? n : 16384;
    arena_block *b = pq_malloc(sizeof *b + cap);
    if (!b) return NULL;
    b->next = a->head;
    b->used = 0;
    b->cap = cap;
    a->head = b;
  }
  void *p = (char *)a->head->data + a->head->used;
  a->head->used += n;
  memset(p, 0, n);
  return p;
}

void pq_arena_free(pq_arena *a) {
  while (a->head) {
    arena_block *b = a->head;
    a->head = b->next;
    pq_free(b);
  }
}
