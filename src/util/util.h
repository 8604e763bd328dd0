/*
** util.h -- the plumbing every part of the core shares: error messages,
** little-endian loads and stores, varints, buffers, an arena, the
** instruction sets the fast paths may use, JSON text as a tree, the flat
** JSON objects that options are written in, and the names of things.
**
** It knows nothing of encodings, pages or files.  The folders above it
** (encodings/, format/, reader/, writer/, explain/) include it through
** their own headers; nothing here includes them.
*/
#ifndef PQ_UTIL_H
#define PQ_UTIL_H

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../parquet.h"

#if defined(__GNUC__)
#define PQ_LIKELY(x) __builtin_expect(!!(x), 1)
#define PQ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PQ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PQ_LIKELY(x) (x)
#define PQ_UNLIKELY(x) (x)
#define PQ_PRINTF(a, b)
#endif

/* A function the fuzzer's coverage hooks skip: arithmetic run many
** times over a copied sample, whose comparisons say nothing of the input's
** paths and would only slow the fuzzer (clang 13 and later). */
#if defined(__clang__) && __clang_major__ >= 13
#define PQ_NO_COVERAGE __attribute__((no_sanitize("coverage")))
#else
#define PQ_NO_COVERAGE
#endif

#define PQ_NO_COUNT (-1)

/* ---- Errors (error.c) ----------------------------------------------------
** pq_fail writes "<label>: <message>" into err and returns code.  The label
** is the encoding name, or a longer context for nested streams
** ("DELTA_BYTE_ARRAY: suffix lengths"). */
int pq_fail(pq_error *err, int code, const char *label, const char *fmt, ...)
    PQ_PRINTF(4, 5);
int pq_nomem(pq_error *err, const char *label);

/* ---- Little-endian loads and stores through memcpy ----------------------
** The compiler turns these into single moves on little-endian targets. */
static inline int pq_is_big_endian(void) {
  const uint16_t one = 1;
  uint8_t b;
  memcpy(&b, &one, 1);
  return b == 0;
}
static inline uint32_t pq_load32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
         (uint32_t)p[3] << 24;
}
/* pq_load32(p + off) with the address formed by the load itself: on
** x86-64 the load is written out, so that the compiler does not add first
** and put the add in a chain of loads that each wait for the one before
** (PLAIN BYTE_ARRAY's lengths). */
static inline size_t pq_load32_at(const uint8_t *p, size_t off) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  size_t v; /* a 32-bit load clears the upper half */
  __asm__("movl (%1,%2), %k0" : "=r"(v) : "r"(p), "r"(off));
  return v;
#else
  return pq_load32(p + off);
#endif
}
static inline uint64_t pq_load64(const uint8_t *p) {
  return (uint64_t)pq_load32(p) | (uint64_t)pq_load32(p + 4) << 32;
}
static inline void pq_store32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}
static inline void pq_store64(uint8_t *p, uint64_t v) {
  pq_store32(p, (uint32_t)v);
  pq_store32(p + 4, (uint32_t)(v >> 32));
}

/* ---- Varints (varint.c; spec: ULEB128 and zigzag) -------------------------
** pq_uleb_read reads one ULEB128 of at most 10 bytes from p[*pos..len).
** Returns 0 on success, 1 when the bytes end inside it, 2 when it does not
** fit in 64 bits. */
int pq_uleb_read(const uint8_t *p, size_t len, size_t *pos, uint64_t *out);
/* Writes v as ULEB128 into out (room for 10 bytes); returns the length. */
size_t pq_uleb_write(uint8_t *out, uint64_t v);
void pq_buf_uleb(pq_buf *b, uint64_t v);

static inline uint64_t pq_zigzag_enc(int64_t v) {
  return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t pq_zigzag_dec(uint64_t u) {
  return (int64_t)((u >> 1) ^ (~(u & 1) + 1));
}

/* Bits needed to hold v (0 for 0). */
static inline int pq_bit_width64(uint64_t v) {
  return v ? 64 - __builtin_clzll(v) : 0;
}

/* ---- Buffers (buf.c; pq_buf itself is in parquet.h) ---------------------- */

/* Appends src to dst and empties src; when dst is empty it takes src's
** memory instead of copying. */
void pq_buf_move(pq_buf *dst, pq_buf *src);
/* Appends src's bytes to dst and empties src, keeping memory for src's next
** use: when dst is empty the two swap their memory (no copy), so that src
** goes on with dst's old room, pages already written, rather than fresh
** ones.  For encoders that take stream after stream. */
void pq_buf_hand_over(pq_buf *dst, pq_buf *src);

/* Appends one byte. */
static inline void pq_buf_byte(pq_buf *b, uint8_t v) {
  if (b->len < b->cap) {
    b->data[b->len++] = v;
  } else {
    pq_buf_append(b, &v, 1);
  }
}

/* Copies n bytes without a call up to 64 (the DELTA_* encoders' values):
** overlapping loads and stores from both ends; memcpy beyond.  Reads and
** writes exactly [src, src + n). */
static inline void pq_copy_short(uint8_t *dst, const uint8_t *src, size_t n) {
  if (n > 16) {
    if (n > 64) {
      memcpy(dst, src, n);
      return;
    }
    uint8_t a[16], b[16], c[16], d[16];
    memcpy(a, src, 16);
    memcpy(b, src + n - 16, 16);
    if (n > 32) {
      memcpy(c, src + 16, 16);
      memcpy(d, src + n - 32, 16);
      memcpy(dst + 16, c, 16);
      memcpy(dst + n - 32, d, 16);
    }
    memcpy(dst, a, 16);
    memcpy(dst + n - 16, b, 16);
  } else if (n >= 8) {
    uint64_t a, b;
    memcpy(&a, src, 8);
    memcpy(&b, src + n - 8, 8);
    memcpy(dst, &a, 8);
    memcpy(dst + n - 8, &b, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, src, 4);
    memcpy(&b, src + n - 4, 4);
    memcpy(dst, &a, 4);
    memcpy(dst + n - 4, &b, 4);
  } else if (n > 0) {
    dst[0] = src[0];
    dst[n / 2] = src[n / 2];
    dst[n - 1] = src[n - 1];
  }
}

/* ---- An arena (arena.c): allocations freed all at once ------------------- */
typedef struct pq_arena {
  struct pq_arena_block *head;
} pq_arena;
/* n zeroed bytes, or NULL. */
void *pq_arena_alloc(pq_arena *a, size_t n);
void pq_arena_free(pq_arena *a);

/* ---- Instruction sets (cpu.c) -------------------------------------------
** What the fast paths may use: ask at open, keep the answer.  PQ_SIMD=none
** in the environment turns them all off. */
enum { PQ_CPU_SSE42 = 1, PQ_CPU_AVX2 = 2 };
unsigned pq_cpu(void);
/* Where the fast paths can be compiled: x86 with GCC or Clang, whose
** target attributes build AVX2 functions into a portable object. */
#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#define PQ_X86_SIMD 1
#define PQ_AVX2 __attribute__((target("avx2"))) /* an AVX2 function */
#else
#define PQ_X86_SIMD 0
#endif
/* Asks for the cache line at p ahead of its use (nothing where the
** compiler has no way to). */
#if defined(__GNUC__) || defined(__clang__)
#define PQ_PREFETCH(p) __builtin_prefetch(p)
#else
#define PQ_PREFETCH(p) ((void)(p))
#endif

/* ---- Options: a flat JSON object (options.c) -----------------------------
** {"key": value, ...} where a value is an integer, true, false, null or a
** string without escapes other than \" \\ \/.  Each part of the core that
** takes options applies the keys it knows; null leaves a key unset. */
enum { PQ_JV_INT, PQ_JV_BOOL, PQ_JV_STRING, PQ_JV_NULL };

typedef struct pq_jvalue {
  int kind;      /* PQ_JV_* */
  int64_t i;     /* PQ_JV_INT, PQ_JV_BOOL */
  char str[256]; /* PQ_JV_STRING */
} pq_jvalue;

/* What an apply function returns for a key it does not know. */
#define PQ_NOTFOUND (-1)
typedef int (*pq_option_fn)(void *ctx, const char *key, const pq_jvalue *v,
                            pq_error *err);

/* One BOOLEAN, INT32, INT64, FLOAT or DOUBLE as pq_json_values writes
** it, into p (room for 40 bytes), NUL-terminated, without allocating; its
** length (0, an empty text, for another type). */
size_t pq_json_number(char *p, pq_type t, const void *v);

/* Walks the object json[0..n), handing each key and value to apply(ctx);
** empty text is an empty object.  A key that apply does not know
** (PQ_NOTFOUND) is PQ_MISUSE "unknown option". */
int pq_options_parse(const char *json, size_t n, pq_option_fn apply, void *ctx,
                     pq_error *err);
/* PQ_MISUSE "options: <fmt with key>". */
int pq_option_fail(pq_error *err, const char *fmt, const char *key);
/* An integer from lo to hi into *out; a bool into *out.  null leaves *out
** as it is. */
int pq_option_int(const pq_jvalue *v, const char *key, int64_t lo, int64_t hi,
                  int64_t *out, pq_error *err);
int pq_option_bool(const pq_jvalue *v, const char *key, int *out,
                   pq_error *err);

/* ---- Names (catalog.c) --------------------------------------------------- */

/* The index of s[0..n) among count names, ignoring ASCII case and the
** blanks around it, or its value when it is a decimal number below count;
** -1 when it is neither.  The names are char pointers `stride` bytes apart
** from `names`: an array of names (stride sizeof(char *)), or the name
** field of an array of structs (&table[0].name, sizeof table[0]). */
int pq_name_lookup(const void *names, size_t stride, int count, const char *s,
                   size_t n);

/* The PLAIN size of one value of a fixed-width type (0 for BYTE_ARRAY,
** BOOLEAN counts as 0 too: it is bit-packed). */
size_t pq_plain_width(pq_type t, int32_t type_length);

/* ---- Values as text (text.c) ------------------------------------------------ */

/* Days since 1970-01-01 as "YYYY-MM-DD" (proleptic Gregorian). */
size_t pq_text_date(char *s, size_t cap, int64_t days);
/* A time of day in units (per_second of them a second) as
** "HH:MM:SS[.fff]": the fraction, when not zero, in digits digits.  Units
** outside a day give a signed duration: "-03:51:39.961", "26:00:00". */
size_t pq_text_time(char *s, size_t cap, int64_t units, int64_t per_second,
                    int digits);
/* v units (1 MILLIS, 2 MICROS, 3 NANOS) since the epoch as
** "YYYY-MM-DD HH:MM:SS[.f]". */
size_t pq_text_timestamp(char *s, size_t cap, int64_t v, int unit);
/* The same, the date's text kept in *day (n 0: none yet) and reused for
** the next value of the same day: a column's values, mostly of few days. */
typedef struct pq_day_text {
  int64_t days;
  size_t n;
  char s[24];
} pq_day_text;
size_t pq_text_timestamp_in(char *s, size_t cap, int64_t v, int unit,
                            pq_day_text *day);
/* An INT96 (nanoseconds of the day, then the Julian day) the same way. */
size_t pq_text_int96(char *s, size_t cap, const uint8_t *p);
/* An unscaled decimal in big-endian two's complement, of at most
** PQ_DECIMAL_MAX_BYTES bytes past those that repeat its sign (92 digits;
** pq_decimal_fits_text says): at most 95 characters. */
#define PQ_DECIMAL_MAX_BYTES 38
#define PQ_DECIMAL_TEXT_MAX 92 /* the most digits of such a value */
#define PQ_DECIMAL_SCALE_MAX 39 /* a greater scale is not a decimal's here */
size_t pq_text_decimal(char *s, size_t cap, const uint8_t *p, size_t n,
                       int scale);
/* The same of an int64 (INT32 and INT64 decimals), without the bytes. */
size_t pq_text_decimal64(char *s, size_t cap, int64_t v, int scale);
int pq_decimal_fits_text(const uint8_t *p, size_t n);
/* pq_text_decimal when pq_decimal_fits_text, else 0 (and nothing written):
** the bytes looked at once. */
size_t pq_text_decimal_fit(char *s, size_t cap, const uint8_t *p, size_t n,
                           int scale);
/* An INTERVAL (months, days, milliseconds: little-endian unsigned) as
** DuckDB writes one: "1 year 2 months 3 days 04:05:06.789", "00:00:00". */
size_t pq_text_interval(char *s, size_t cap, const uint8_t *p);
/* 16 bytes as "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx". */
size_t pq_text_uuid(char *s, size_t cap, const uint8_t *p);
double pq_half_to_double(uint16_t h);

/* ---- JSON text as a tree (json_parse.c) ------------------------------------- */

enum { PQ_J_NULL, PQ_J_TRUE, PQ_J_FALSE, PQ_J_NUMBER, PQ_J_STRING, PQ_J_ARRAY,
       PQ_J_OBJECT };

typedef struct pq_json_node {
  int type;                /* PQ_J_* */
  size_t at, len;          /* the raw text in the source */
  size_t str_off, str_len; /* a string, decoded, in the doc's text */
  size_t key_off, key_len; /* an object member's key, decoded */
  int has_key;
  int n, first, next;      /* items or members: the first, then each next */
} pq_json_node;

typedef struct pq_json_doc {
  pq_json_node *nodes;
  int n, cap;
  pq_buf text;             /* decoded strings and keys */
  const char *src;
} pq_json_doc;

/* Parses s[0..n): the root node, or -1 with *fault and *fault_at, or -2
** when out of memory.  The doc is reused from call to call. */
int pq_json_parse(pq_json_doc *d, const char *s, size_t n, size_t *fault_at,
                  const char **fault);
void pq_json_free(pq_json_doc *d);
/* The decoded text at off (a string's or a key's): never NULL, even when
** every string of the doc is empty and it has no text at all. */
static inline const uint8_t *pq_json_text(const pq_json_doc *d, size_t off) {
  return d->text.data ? d->text.data + off : (const uint8_t *)"";
}

#endif /* PQ_UTIL_H */
