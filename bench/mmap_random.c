/*
** mmap_random.c -- an LD_PRELOAD shim for bench/tables.c: every mapping of
** a file is advised MADV_RANDOM, so that a page fault reads that page and
** no more (no read-around: the kernel reads up to read_ahead_kb, 8 MB on
** some machines, around a faulting page of a file mapped without advice).
** Then the pages of a file in the page cache after a cold run are the
** pages the process touched, to the page.
*/
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/types.h>

typedef void *(*mmap_fn)(void *, size_t, int, int, int, off_t);

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  static mmap_fn real;
  if (!real) real = (mmap_fn)dlsym(RTLD_NEXT, "mmap");
  void *p = real(addr, len, prot, flags, fd, off);
  if (p != MAP_FAILED && fd >= 0 && !(flags & MAP_ANONYMOUS))
    (void)madvise(p, len, MADV_RANDOM);
  return p;
}

void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off) {
  return mmap(addr, len, prot, flags, fd, off);
}
