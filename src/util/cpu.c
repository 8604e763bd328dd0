/*
** cpu.c -- which instruction sets the fast paths may use, and where a
** worker thread runs.
**
** Asked when a decoder or encoder is opened, never per value.  The
** environment variable PQ_SIMD set to "none" (or "scalar") turns every
** fast path off, and "sse4" keeps only SSE4.2, so that the tests run the
** portable code on any machine and compare it with the fast one.
*/
#define _GNU_SOURCE /* sched_getcpu, CPU affinity (Linux) */
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

#include "util.h"

void pq_thread_elsewhere(const void *th) {
#if defined(__linux__) && defined(CPU_SET)
  cpu_set_t set;
  int cpu = sched_getcpu();
  if (cpu >= 0 && sched_getaffinity(0, sizeof set, &set) == 0 &&
      CPU_ISSET(cpu, &set) && CPU_COUNT(&set) > 1) {
    CPU_CLR(cpu, &set);
    pthread_setaffinity_np(*(const pthread_t *)th, sizeof set, &set);
  }
#else
  (void)th;
#endif
}

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
