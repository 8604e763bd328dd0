/*
** cpu.c -- which instruction sets the fast paths may use.
**
** Asked when a decoder or encoder is opened, never per value.  The
** environment variable PQ_SIMD set to "none" (or "scalar") turns every
** fast path off, and "sse4" keeps only SSE4.2, so that the tests run the
** portable code on any machine and compare it with the fast one.
*/
#include <stdlib.h>
#include <string.h>

#include "util.h"

unsigned pq_cpu(void) {
  unsigned have = 0;
#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
  __builtin_cpu_init();
  if (__builtin_cpu_supports("sse4.2")) have |= PQ_CPU_SSE42;
  if (__builtin_cpu_supports("avx2")) have |= PQ_CPU_AVX2;
#endif
  const char *env = getenv("PQ_SIMD");
  if (env) {
    if (strcmp(env, "none") == 0 || strcmp(env, "scalar") == 0) have = 0;
    if (strcmp(env, "sse4") == 0) have &= PQ_CPU_SSE42;
  }
  return have;
}
