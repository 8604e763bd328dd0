/*
** alp.c -- ALP, adaptive lossless floating point (spec/AlpEncoding.md),
** for FLOAT and DOUBLE.
**
** A page: a 7-byte header (mode, integer encoding, log2 of the vector
** size, the value count), one 4-byte offset per vector, then the vectors.
** A vector of n values: exponent e, factor f, the exception count; the
** frame of reference (int32 or int64) and a bit width; n deltas from the
** frame, bit-packed LSB first; the exceptions' positions (uint16) and
** their values, bit for bit.  A value decodes as
**
**     value = (float or double) integer * 10^f * 10^-e
**
** two multiplications in the value's own precision by correctly rounded
** powers of ten ("Encoding Formula", normative), then the exceptions
** overwrite their positions.
**
** The decoder takes a vector 32 deltas at a time: where the machine has
** AVX2, eight deltas are unpacked, added to the frame, converted and
** multiplied in vector registers, without going through memory; else
** through a small buffer.  The exceptions are patched after; a vector
** whose every value is an exception, in order, is copied.  It asks for
** the stream's bytes some way ahead of those it reads (a page read from
** memory would otherwise keep it waiting for each line in turn).  A
** vector goes straight into the caller's array when it fits, else into
** the decoder's own buffer, from which later reads continue.  Every
** offset, width, count and position is checked before it is used.
**
** The encoder follows the spec's informative search ("Parameter
** Selection"): from samples of the page's first vectors it keeps up to 5
** (e, f) pairs, the preset; each vector then tries those pairs on 32 of
** its values and takes the one whose estimated size (packed bits plus
** exceptions) is least.  A vector whose best pair leaves many exceptions
** searches every pair on its sample again, so that data whose scale
** changes after the first vectors does not keep a stale preset.
*/
#include <float.h>

#include "encodings.h"

#if defined(__FAST_MATH__)
#error "alp.c needs IEEE arithmetic: build it without -ffast-math"
#endif
#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error "alp.c needs FLOAT arithmetic in FLOAT precision (FLT_EVAL_METHOD 0)"
#endif

#if PQ_X86_SIMD
#include <immintrin.h>
#endif

static const char ALP[] = "ALP";

#define HEADER 7          /* the page header */
#define LOG_VS_MIN 3      /* log2 of the vector size, inclusive bounds */
#define LOG_VS_MAX 15
#define LOG_VS_DEFAULT 10 /* 1024 values */
#define MAX_E_FLOAT 10
#define MAX_E_DOUBLE 18

/* ---- Powers of ten ---------------------------------------------------------
** The correctly rounded binary values of the decimal literals 1e0..1e18
** and 1e-1..1e-18 (binary32 for FLOAT: 1e0..1e10, 1e-1..1e-10), as the
** spec requires: the positive powers are exact, the negative ones are
** written in hexadecimal so that no compiler's conversion is trusted.
** tests/unit_alp.c compares each with strtod/strtof of its decimal text. */
static const double P10[MAX_E_DOUBLE + 1] = {
    1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
    1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
static const double N10[MAX_E_DOUBLE + 1] = {
    0x1p+0,                /* 1e-0 */
    0x1.999999999999ap-4,  /* 1e-1 */
    0x1.47ae147ae147bp-7,  /* 1e-2 */
    0x1.0624dd2f1a9fcp-10, /* 1e-3 */
    0x1.a36e2eb1c432dp-14, /* 1e-4 */
    0x1.4f8b588e368f1p-17, /* 1e-5 */
    0x1.0c6f7a0b5ed8dp-20, /* 1e-6 */
    0x1.ad7f29abcaf48p-24, /* 1e-7 */
    0x1.5798ee2308c3ap-27, /* 1e-8 */
    0x1.12e0be826d695p-30, /* 1e-9 */
    0x1.b7cdfd9d7bdbbp-34, /* 1e-10 */
    0x1.5fd7fe1796495p-37, /* 1e-11 */
    0x1.19799812dea11p-40, /* 1e-12 */
    0x1.c25c268497682p-44, /* 1e-13 */
    0x1.6849b86a12b9bp-47, /* 1e-14 */
    0x1.203af9ee75616p-50, /* 1e-15 */
    0x1.cd2b297d889bcp-54, /* 1e-16 */
    0x1.70ef54646d497p-57, /* 1e-17 */
    0x1.2725dd1d243acp-60, /* 1e-18 */
};
static const float P10F[MAX_E_FLOAT + 1] = {
    1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
static const float N10F[MAX_E_FLOAT + 1] = {
    0x1p+0f,        /* 1e-0 */
    0x1.99999ap-4f, /* 1e-1 */
    0x1.47ae14p-7f, /* 1e-2 */
    0x1.0624dep-10f, /* 1e-3 */
    0x1.a36e2ep-14f, /* 1e-4 */
    0x1.4f8b58p-17f, /* 1e-5 */
    0x1.0c6f7ap-20f, /* 1e-6 */
    0x1.ad7f2ap-24f, /* 1e-7 */
    0x1.5798eep-27f, /* 1e-8 */
    0x1.12e0bep-30f, /* 1e-9 */
    0x1.b7cdfep-34f, /* 1e-10 */
};

const double *pq_alp_pow10(int negative) { return negative ? N10 : P10; }
const float *pq_alp_pow10f(int negative) { return negative ? N10F : P10F; }

static inline unsigned load16(const uint8_t *p) {
  return (unsigned)p[0] | (unsigned)p[1] << 8;
}
static inline uint64_t dbits(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}
static inline uint32_t fbits(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  return u;
}

/* ---- Decoding ---------------------------------------------------------- */

/* An integer as a double by the "magic number" identity: for |v| <= 2^51,
** the bits of 1.5 * 2^52 plus v are the double 1.5 * 2^52 + v exactly, and
** subtracting 1.5 * 2^52 leaves (double)v exactly, in vector registers
** that have no int64 conversion. */
#define MAGIC_D 0x1.8p52
#define MAGIC_D_BITS 0x4338000000000000ull
#define MAGIC_SPAN ((int64_t)1 << 51)

typedef struct alp_dec {
  pq_decoder base;
  pq_alp_page pg;   /* the header: the type, the vectors' size and count */
  uint32_t vec;     /* the next vector to decode */
  size_t next_min;  /* where it may start at the earliest (stream offset) */
  uint8_t *vals;    /* a decoded vector the caller has not had all of */
  uint32_t vpos, vlen;
  unsigned cpu;
  const pq_unpack32_fn *unpack32;
  size_t pf;        /* the stream's bytes asked for so far (prefetch_to) */
} alp_dec;

/* 32 deltas of width w from in, which holds `have` bytes of them (fewer
** than 4*w for a vector's last group): the rest read as zeros. */
static void unpack_group32(const alp_dec *s, int w, const uint8_t *in,
                           size_t have, uint32_t *out) {
  if (have >= (size_t)4 * w) {
    s->unpack32[w](in, out);
  } else {
    uint8_t tmp[4 * 32];
    memset(tmp, 0, sizeof tmp);
    memcpy(tmp, in, have);
    s->unpack32[w](tmp, out);
  }
}
static void unpack_group64(int w, const uint8_t *in, size_t have,
                           uint64_t *out) {
  if (have >= (size_t)4 * w) {
    pq_unpack64(w, in, out);
  } else {
    uint8_t tmp[8 * 32];
    memset(tmp, 0, sizeof tmp);
    memcpy(tmp, in, have);
    pq_unpack64(w, tmp, out);
  }
}

/* The groups' conversions: m (<= 32) values from deltas and the frame,
** multiplied by mf = 10^f, then by me = 10^-e. */
static void conv_d32(const uint32_t *u, size_t m, int64_t ref, double mf,
                     double me, double *out) {
  for (size_t j = 0; j < m; j++)
    out[j] = (double)(int64_t)((uint64_t)ref + u[j]) * mf * me;
}
static void conv_d64(const uint64_t *u, size_t m, int64_t ref, double mf,
                     double me, double *out) {
  for (size_t j = 0; j < m; j++)
    out[j] = (double)(int64_t)((uint64_t)ref + u[j]) * mf * me;
}
static void conv_f(const uint32_t *u, size_t m, int32_t ref, float mf,
                   float me, float *out) {
  for (size_t j = 0; j < m; j++)
    out[j] = (float)(int32_t)((uint32_t)ref + u[j]) * mf * me;
}

/* How far ahead of the deltas being unpacked the decoder asks for the
** stream's bytes: a page that comes from memory rather than the caches
** would otherwise keep it waiting for each line in turn. */
#define PREFETCH_AHEAD 4096

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p) __builtin_prefetch((p), 0, 2)
#else
#define PREFETCH(p) ((void)(p))
#endif

/* Asks for the stream's lines from *pf up to offset upto (within len),
** those not asked for before; at the first line of a 4 KiB page, for the
** line two pages further too, so that its page's address translation is
** under way before the lines are (it measured some 4% faster). */
static inline void prefetch_to(const uint8_t *buf, size_t len, size_t *pf,
                               size_t upto) {
  size_t a = *pf;
  if (upto > len) upto = len;
  while (a < upto) {
    PREFETCH(buf + a);
    if (((uintptr_t)(buf + a) & 4095) < 64 && len - a > 8192)
      PREFETCH(buf + a + 8192);
    a += 64;
  }
  *pf = a;
}

/* Whether the n exception positions at pos are 0, 1, ..., n-1 (every value
** of the vector an exception, in order): four at a time. */
static int positions_in_order(const uint8_t *pos, uint32_t n) {
  uint64_t diff = 0, want = 0x0003000200010000ull;
  uint32_t j = 0;
  for (; j + 4 <= n; j += 4, want += 0x0004000400040004ull)
    diff |= pq_load64(pos + 2 * (size_t)j) ^ want;
  for (; j < n; j++) diff |= load16(pos + 2 * (size_t)j) ^ j;
  return diff == 0;
}

/* The exceptions' values (of vsz bytes: 8 or 4, a constant where it is
** inlined) over their positions (checked), four at a time. */
static inline void patch(uint8_t *o, size_t vsz, const uint8_t *pos,
                         const uint8_t *exc, unsigned nexc) {
  unsigned j = 0;
  for (; j + 4 <= nexc; j += 4) {
    for (unsigned t = 0; t < 4; t++)
      memcpy(o + vsz * load16(pos + 2 * (size_t)(j + t)),
             exc + vsz * (size_t)(j + t), vsz);
  }
  for (; j < nexc; j++)
    memcpy(o + vsz * load16(pos + 2 * (size_t)j), exc + vsz * (size_t)j, vsz);
}

#if PQ_X86_SIMD
/* int64 lanes as doubles, exactly as the scalar conversion rounds them
** (to nearest): the high half times 2^32 and the low half are each exact
** as doubles, made by placing their bits under magic exponents, and their
** sum is rounded once. */
__attribute__((target("avx2"))) static inline __m256d i64_to_pd(__m256i x) {
  const __m256i lo_bits = _mm256_set1_epi64x(0x4330000000000000ll); /* 2^52 */
  const __m256i hi_bits =
      _mm256_set1_epi64x(0x4530000080000000ll); /* 2^84 + 2^63 */
  const __m256d hi_sub = _mm256_castsi256_pd(
      _mm256_set1_epi64x(0x4530000080100000ll)); /* 2^84 + 2^63 + 2^52 */
  __m256i lo = _mm256_blend_epi32(lo_bits, x, 0x55);
  __m256i hi = _mm256_xor_si256(_mm256_srli_epi64(x, 32), hi_bits);
  __m256d h = _mm256_sub_pd(_mm256_castsi256_pd(hi), hi_sub);
  return _mm256_add_pd(h, _mm256_castsi256_pd(lo));
}

/* Eight deltas (a, b: four each) plus the frame of reference as doubles
** (mb: the magic bits plus it, when magic; vr: it, else), times 10^f, times
** 10^-e, stored at o. */
__attribute__((target("avx2"))) static inline void store8_d(
    __m256i a, __m256i b, int magic, __m256i mb, __m256d md, __m256i vr,
    __m256d vf, __m256d ve, double *o) {
  __m256d da, db;
  if (magic) {
    da = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(a, mb)), md);
    db = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(b, mb)), md);
  } else {
    da = i64_to_pd(_mm256_add_epi64(a, vr));
    db = i64_to_pd(_mm256_add_epi64(b, vr));
  }
  _mm256_storeu_pd(o, _mm256_mul_pd(_mm256_mul_pd(da, vf), ve));
  _mm256_storeu_pd(o + 4, _mm256_mul_pd(_mm256_mul_pd(db, vf), ve));
}

/* The whole groups (32 values, 4*w bytes each) of a DOUBLE vector, each
** unpacked into a small buffer and turned into values in vector
** registers: the form for a vector too near the stream's end for the
** loads of the fused forms below.  Within +-2^51 (magic) the integers
** become doubles by the magic-number identity, else by i64_to_pd; both are
** exact, so the results are the scalar ones bit for bit. */
__attribute__((target("avx2"))) static void groups_d_avx2(
    const alp_dec *s, int w, const uint8_t *pk, uint32_t groups, int64_t ref,
    int magic, double mf, double me, double *o, size_t *pf) {
  const __m256d vf = _mm256_set1_pd(mf), ve = _mm256_set1_pd(me),
                md = _mm256_set1_pd(MAGIC_D);
  const __m256i mb =
      _mm256_set1_epi64x((long long)(MAGIC_D_BITS + (uint64_t)ref));
  const __m256i vr = _mm256_set1_epi64x((long long)ref);
  const uint8_t *buf = s->base.buf;
  size_t at = (size_t)(pk - buf), gb = (size_t)4 * (size_t)w;
  uint32_t u32[32];
  uint64_t u64[32];
  for (uint32_t g = 0; g < groups; g++, o += 32) {
    const uint8_t *in = pk + g * gb;
    prefetch_to(buf, s->base.len, pf, at + (g + 1) * gb + PREFETCH_AHEAD);
    if (w <= 32) {
      s->unpack32[w](in, u32);
      if (magic) {
        for (int j = 0; j < 32; j += 4) {
          __m256i x = _mm256_cvtepu32_epi64(
              _mm_loadu_si128((const __m128i *)(const void *)(u32 + j)));
          __m256d d =
              _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(x, mb)), md);
          _mm256_storeu_pd(o + j, _mm256_mul_pd(_mm256_mul_pd(d, vf), ve));
        }
      } else {
        for (int j = 0; j < 32; j += 4) {
          __m256i x = _mm256_cvtepu32_epi64(
              _mm_loadu_si128((const __m128i *)(const void *)(u32 + j)));
          __m256d d = i64_to_pd(_mm256_add_epi64(x, vr));
          _mm256_storeu_pd(o + j, _mm256_mul_pd(_mm256_mul_pd(d, vf), ve));
        }
      }
    } else {
      pq_unpack64(w, in, u64);
      if (magic) {
        for (int j = 0; j < 32; j += 4) {
          __m256i x =
              _mm256_loadu_si256((const __m256i *)(const void *)(u64 + j));
          __m256d d =
              _mm256_sub_pd(_mm256_castsi256_pd(_mm256_add_epi64(x, mb)), md);
          _mm256_storeu_pd(o + j, _mm256_mul_pd(_mm256_mul_pd(d, vf), ve));
        }
      } else {
        for (int j = 0; j < 32; j += 4) {
          __m256i x =
              _mm256_loadu_si256((const __m256i *)(const void *)(u64 + j));
          __m256d d = i64_to_pd(_mm256_add_epi64(x, vr));
          _mm256_storeu_pd(o + j, _mm256_mul_pd(_mm256_mul_pd(d, vf), ve));
        }
      }
    }
  }
}

/* Widths 1 to 32 without the unpackers: 8 deltas take w bytes, so each
** run of 8 starts on a byte, and delta j of it lies in bits j*w .. j*w+w-1
** of the 32 bytes loaded from there: its two 32-bit words (d, d+1, d =
** j*w / 32) are moved into a 64-bit lane, shifted right by j*w % 32 and
** masked to w bits.  (For j = 7 and w = 32, word d+1 would be the ninth:
** the index wraps to word 0, whose bits the mask removes.)  The loads reach
** 32 - w bytes past a group's end: the caller makes sure the stream holds
** them.  Four lanes then become values as in groups_d_avx2. */
__attribute__((target("avx2"))) static void groups_d_fused_avx2(
    const alp_dec *s, int w, const uint8_t *pk, uint32_t groups, int64_t ref,
    int magic, double mf, double me, double *o, size_t *pf) {
  int32_t idx[16];
  int64_t sh[8];
  for (int j = 0; j < 8; j++) {
    int b = j * w;
    idx[2 * j] = b / 32;
    idx[2 * j + 1] = b / 32 + 1;
    sh[j] = b % 32;
  }
  const __m256i ilo = _mm256_loadu_si256((const __m256i *)(const void *)idx),
                ihi = _mm256_loadu_si256((const __m256i *)(const void *)(idx + 8)),
                slo = _mm256_loadu_si256((const __m256i *)(const void *)sh),
                shi = _mm256_loadu_si256((const __m256i *)(const void *)(sh + 4)),
                mask = _mm256_set1_epi64x((long long)(((uint64_t)1 << w) - 1));
  const __m256d vf = _mm256_set1_pd(mf), ve = _mm256_set1_pd(me),
                md = _mm256_set1_pd(MAGIC_D);
  const __m256i mb =
      _mm256_set1_epi64x((long long)(MAGIC_D_BITS + (uint64_t)ref));
  const __m256i vr = _mm256_set1_epi64x((long long)ref);
  const uint8_t *buf = s->base.buf;
  size_t at = (size_t)(pk - buf), gb = (size_t)4 * (size_t)w;
  for (uint32_t g = 0; g < groups; g++) {
    const uint8_t *in = pk + g * gb;
    prefetch_to(buf, s->base.len, pf, at + (g + 1) * gb + PREFETCH_AHEAD);
    for (int c = 0; c < 4; c++, in += w, o += 8) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)in);
      __m256i a = _mm256_and_si256(
          _mm256_srlv_epi64(_mm256_permutevar8x32_epi32(v, ilo), slo), mask);
      __m256i b = _mm256_and_si256(
          _mm256_srlv_epi64(_mm256_permutevar8x32_epi32(v, ihi), shi), mask);
      store8_d(a, b, magic, mb, md, vr, vf, ve, o);
    }
  }
}

/* Four 64-bit words from in + o[0..3] in a vector register (a gather is
** slower on the machines measured). */
__attribute__((target("avx2"))) static inline __m256i load4x64(
    const uint8_t *in, const uint32_t *o) {
  __m128i a = _mm_insert_epi64(_mm_cvtsi64_si128((long long)pq_load64(in + o[0])),
                               (long long)pq_load64(in + o[1]), 1);
  __m128i b = _mm_insert_epi64(_mm_cvtsi64_si128((long long)pq_load64(in + o[2])),
                               (long long)pq_load64(in + o[3]), 1);
  return _mm256_inserti128_si256(_mm256_castsi128_si256(a), b, 1);
}

/* Widths 33 to 64, likewise without the unpackers, 8 deltas (w bytes) at
** a time: delta j is the 8 bytes from byte j*w / 8 shifted right by
** j*w % 8, with the next 8 bytes shifted left by 64 - j*w % 8 above them
** when a delta may reach past the first 8 (w > 56; a shift by 64 leaves
** nothing), masked to w bits.  Four words go into a vector register
** together: unpacked into memory by 64-bit stores, they would be read
** back by 256-bit loads, which wait for the stores to complete.  The
** loads reach up to 16 bytes past a group's end. */
__attribute__((target("avx2"))) static void groups_d_wide_avx2(
    const alp_dec *s, int w, const uint8_t *pk, uint32_t groups, int64_t ref,
    int magic, double mf, double me, double *o, size_t *pf) {
  uint32_t ob[8], ob8[8];
  int64_t sr[8], sl[8];
  for (int j = 0; j < 8; j++) {
    ob[j] = (uint32_t)(j * w) / 8;
    ob8[j] = ob[j] + 8;
    sr[j] = (j * w) % 8;
    sl[j] = 64 - sr[j];
  }
  const __m256i sr0 = _mm256_loadu_si256((const __m256i *)(const void *)sr),
                sr1 = _mm256_loadu_si256((const __m256i *)(const void *)(sr + 4)),
                sl0 = _mm256_loadu_si256((const __m256i *)(const void *)sl),
                sl1 = _mm256_loadu_si256((const __m256i *)(const void *)(sl + 4)),
                mask = _mm256_set1_epi64x(
                    w == 64 ? -1ll : (long long)(((uint64_t)1 << w) - 1));
  const int spill = w > 56;
  const __m256d vf = _mm256_set1_pd(mf), ve = _mm256_set1_pd(me),
                md = _mm256_set1_pd(MAGIC_D);
  const __m256i mb =
      _mm256_set1_epi64x((long long)(MAGIC_D_BITS + (uint64_t)ref));
  const __m256i vr = _mm256_set1_epi64x((long long)ref);
  const uint8_t *buf = s->base.buf;
  size_t at = (size_t)(pk - buf), gb = (size_t)4 * (size_t)w;
  for (uint32_t g = 0; g < groups; g++) {
    const uint8_t *in = pk + g * gb;
    prefetch_to(buf, s->base.len, pf, at + (g + 1) * gb + PREFETCH_AHEAD);
    for (int c = 0; c < 4; c++, in += w, o += 8) {
      __m256i a = _mm256_srlv_epi64(load4x64(in, ob), sr0);
      __m256i b = _mm256_srlv_epi64(load4x64(in, ob + 4), sr1);
      if (spill) {
        a = _mm256_or_si256(a, _mm256_sllv_epi64(load4x64(in, ob8), sl0));
        b = _mm256_or_si256(b, _mm256_sllv_epi64(load4x64(in, ob8 + 4), sl1));
      }
      a = _mm256_and_si256(a, mask);
      b = _mm256_and_si256(b, mask);
      store8_d(a, b, magic, mb, md, vr, vf, ve, o);
    }
  }
}

/* groups_d_fused_avx2 for FLOAT: each delta's two words in 32-bit lanes,
** the first shifted right and the second left (by 32 when the shift is 0,
** which leaves nothing), joined and masked. */
__attribute__((target("avx2"))) static void groups_f_fused_avx2(
    const alp_dec *s, int w, const uint8_t *pk, uint32_t groups, int32_t ref,
    float mf, float me, float *o, size_t *pf) {
  int32_t i0[8], i1[8], sr[8], sl[8];
  for (int j = 0; j < 8; j++) {
    int b = j * w;
    i0[j] = b / 32;
    i1[j] = (b / 32 + 1) & 7;
    sr[j] = b % 32;
    sl[j] = 32 - b % 32;
  }
  const __m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)i0),
                x1 = _mm256_loadu_si256((const __m256i *)(const void *)i1),
                vr = _mm256_loadu_si256((const __m256i *)(const void *)sr),
                vl = _mm256_loadu_si256((const __m256i *)(const void *)sl),
                mask = _mm256_set1_epi32((int)(uint32_t)(((uint64_t)1 << w) - 1)),
                b = _mm256_set1_epi32(ref);
  const __m256 vf = _mm256_set1_ps(mf), ve = _mm256_set1_ps(me);
  const uint8_t *buf = s->base.buf;
  size_t at = (size_t)(pk - buf), gb = (size_t)4 * (size_t)w;
  for (uint32_t g = 0; g < groups; g++) {
    const uint8_t *in = pk + g * gb;
    prefetch_to(buf, s->base.len, pf, at + (g + 1) * gb + PREFETCH_AHEAD);
    for (int c = 0; c < 4; c++, in += w, o += 8) {
      __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)in);
      __m256i lo = _mm256_srlv_epi32(_mm256_permutevar8x32_epi32(v, x0), vr);
      __m256i hi = _mm256_sllv_epi32(_mm256_permutevar8x32_epi32(v, x1), vl);
      __m256i x = _mm256_and_si256(_mm256_or_si256(lo, hi), mask);
      __m256 d = _mm256_cvtepi32_ps(_mm256_add_epi32(x, b));
      _mm256_storeu_ps(o, _mm256_mul_ps(_mm256_mul_ps(d, vf), ve));
    }
  }
}

/* FLOAT's whole groups through the unpackers (groups_d_avx2's case): int32
** converts directly, rounding as the scalar conversion does (to nearest,
** the default mode). */
__attribute__((target("avx2"))) static void groups_f_avx2(
    const alp_dec *s, int w, const uint8_t *pk, uint32_t groups, int32_t ref,
    float mf, float me, float *o, size_t *pf) {
  const __m256i b = _mm256_set1_epi32(ref);
  const __m256 vf = _mm256_set1_ps(mf), ve = _mm256_set1_ps(me);
  const uint8_t *buf = s->base.buf;
  size_t at = (size_t)(pk - buf), gb = (size_t)4 * (size_t)w;
  uint32_t u32[32];
  for (uint32_t g = 0; g < groups; g++, o += 32) {
    prefetch_to(buf, s->base.len, pf, at + (g + 1) * gb + PREFETCH_AHEAD);
    s->unpack32[w](pk + g * gb, u32);
    for (int j = 0; j < 32; j += 8) {
      __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(u32 + j));
      __m256 d = _mm256_cvtepi32_ps(_mm256_add_epi32(x, b));
      _mm256_storeu_ps(o + j, _mm256_mul_ps(_mm256_mul_ps(d, vf), ve));
    }
  }
}

/* A vector of bit width 0: n copies of its one value. */
__attribute__((target("avx2"))) static void fill_d_avx2(double *o, uint32_t n,
                                                        double v) {
  __m256d x = _mm256_set1_pd(v);
  uint32_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(o + i, x);
  for (; i < n; i++) o[i] = v;
}
__attribute__((target("avx2"))) static void fill_f_avx2(float *o, uint32_t n,
                                                        float v) {
  __m256 x = _mm256_set1_ps(v);
  uint32_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(o + i, x);
  for (; i < n; i++) o[i] = v;
}
#endif

/* Asks for what the next vectors' checks read first: the header of vector
** k + 2, and the exceptions' positions of vector k + 1, from its header
** (asked for one vector before).  Their offsets are not checked here:
** they only say which of the stream's lines to ask for. */
static void peek_ahead(alp_dec *s, uint32_t k) {
  const uint8_t *buf = s->base.buf;
  size_t len = s->base.len, a;
  if (k + 2 < s->pg.nvec) {
    a = HEADER + (size_t)pq_load32(buf + HEADER + (size_t)4 * (k + 2));
    if (a < len) PREFETCH(buf + a);
  }
  if (k + 1 < s->pg.nvec) {
    a = HEADER + (size_t)pq_load32(buf + HEADER + (size_t)4 * (k + 1));
    if (a > len || len - a < s->pg.vhdr) return;
    const uint8_t *h = buf + a;
    unsigned nexc = (unsigned)h[2] | (unsigned)h[3] << 8, w = h[s->pg.vhdr - 1];
    size_t p = a + s->pg.vhdr + ((size_t)s->pg.vs * w + 7) / 8,
           end = p + 2 * (size_t)nexc;
    if (end > len) end = len;
    for (; p < end; p += 64) PREFETCH(buf + p);
  }
}

/* A vector whose every value is an exception, in order: the n values at
** exc, copied (the machine's own streaming of a plain copy does better
** than asking for the lines ahead). */
static void copy_values(alp_dec *s, void *out, const uint8_t *exc,
                        uint32_t n) {
  size_t bytes = (size_t)n * s->pg.vsz;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(out, exc, bytes);
#else
  uint8_t *o = out;
  if (s->pg.vsz == 8) {
    for (size_t j = 0; j < bytes; j += 8) {
      uint64_t b = pq_load64(exc + j);
      memcpy(o + j, &b, 8);
    }
  } else {
    for (size_t j = 0; j < bytes; j += 4) {
      uint32_t b = pq_load32(exc + j);
      memcpy(o + j, &b, 4);
    }
  }
#endif
  size_t end = (size_t)(exc - s->base.buf) + bytes;
  if (s->pf < end) s->pf = end;
}

/* Decodes vector k into out (room for its values): the vector's groups of
** 32 values (in vector registers where the machine has AVX2, the last
** group short of its bytes through unpack_group*), then the exceptions
** over their positions.  A vector whose every value is an exception, in
** order, is its exceptions' values. */
static int decode_vector(alp_dec *s, uint32_t k, void *out, pq_error *err) {
  pq_alp_vector vec;
  peek_ahead(s, k);
  int rc = pq_alp_vector_read(&s->pg, s->base.buf, s->base.len, k,
                              s->next_min, &vec, err);
  if (rc) return rc;
  s->next_min = vec.end;
  const uint8_t *buf = s->base.buf;
  uint32_t n = vec.n;
  unsigned e = vec.e, f = vec.f, nexc = vec.nexc;
  int w = vec.w;
  size_t packed = vec.packed;
  const uint8_t *pk = buf + vec.at + s->pg.vhdr;
  const uint8_t *pos = buf + vec.pos_at, *exc = buf + vec.exc_at;
  int avx2 = (s->cpu & PQ_CPU_AVX2) != 0;
  (void)avx2;
  /* The whole groups of 32, whose 4*w bytes are all there (the last group
  ** of a vector short of 32 values has fewer). */
  uint32_t full = n / 32;
  /* Whether the stream holds the bytes the fused forms load past the
  ** whole groups (up to 32). */
  int slack = vec.at + s->pg.vhdr + (size_t)full * 4 * (size_t)w + 32 <=
              s->base.len;
  (void)slack;
  if (s->pf < vec.at) s->pf = vec.at; /* what is behind is read */
  prefetch_to(buf, s->base.len, &s->pf, vec.at + PREFETCH_AHEAD);

  if (nexc == n && positions_in_order(pos, n)) {
    copy_values(s, out, exc, n);
    return PQ_OK;
  }

  uint32_t u32[32];
  uint64_t u64[32];
  if (s->pg.dbl) {
    double *o = out;
    int64_t ref = vec.ref;
    double mf = P10[f], me = N10[e];
    /* Within +-2^51, every integer of the vector converts by the magic
    ** number. */
    int magic = w <= 51 && ref >= -MAGIC_SPAN &&
                ref <= MAGIC_SPAN - (int64_t)(((uint64_t)1 << w) - 1);
    (void)magic;
    uint32_t i = 0;
    if (w == 0) {
      double v = (double)ref * mf * me;
#if PQ_X86_SIMD
      if (avx2) {
        fill_d_avx2(o, n, v);
        i = n;
      }
#endif
      for (; i < n; i++) o[i] = v;
    } else {
#if PQ_X86_SIMD
      if (avx2) {
        if (w <= 32 && slack)
          groups_d_fused_avx2(s, w, pk, full, ref, magic, mf, me, o, &s->pf);
        else if (slack)
          groups_d_wide_avx2(s, w, pk, full, ref, magic, mf, me, o, &s->pf);
        else
          groups_d_avx2(s, w, pk, full, ref, magic, mf, me, o, &s->pf);
        i = full * 32;
      }
#endif
      for (; i < n; i += 32) {
        size_t m = n - i < 32 ? n - i : 32;
        size_t off = (size_t)i / 8 * (size_t)w; /* i is a multiple of 32 */
        prefetch_to(buf, s->base.len, &s->pf,
                    (size_t)(pk - buf) + off + (size_t)4 * w + PREFETCH_AHEAD);
        if (w <= 32) {
          unpack_group32(s, w, pk + off, packed - off, u32);
          conv_d32(u32, m, ref, mf, me, o + i);
        } else {
          unpack_group64(w, pk + off, packed - off, u64);
          conv_d64(u64, m, ref, mf, me, o + i);
        }
      }
    }
    patch((uint8_t *)o, 8, pos, exc, nexc);
  } else {
    float *o = out;
    int32_t ref = (int32_t)vec.ref;
    float mf = P10F[f], me = N10F[e];
    uint32_t i = 0;
    if (w == 0) {
      float v = (float)ref * mf * me;
#if PQ_X86_SIMD
      if (avx2) {
        fill_f_avx2(o, n, v);
        i = n;
      }
#endif
      for (; i < n; i++) o[i] = v;
    } else {
#if PQ_X86_SIMD
      if (avx2) {
        if (slack)
          groups_f_fused_avx2(s, w, pk, full, ref, mf, me, o, &s->pf);
        else
          groups_f_avx2(s, w, pk, full, ref, mf, me, o, &s->pf);
        i = full * 32;
      }
#endif
      for (; i < n; i += 32) {
        size_t m = n - i < 32 ? n - i : 32;
        size_t off = (size_t)i / 8 * (size_t)w;
        prefetch_to(buf, s->base.len, &s->pf,
                    (size_t)(pk - buf) + off + (size_t)4 * w + PREFETCH_AHEAD);
        unpack_group32(s, w, pk + off, packed - off, u32);
        conv_f(u32, m, ref, mf, me, o + i);
      }
    }
    patch((uint8_t *)o, 4, pos, exc, nexc);
  }
  return PQ_OK;
}

static int alp_read(pq_decoder *d, void *out, size_t max, size_t *n,
                    pq_error *err) {
  alp_dec *s = (alp_dec *)d;
  uint8_t *o = out;
  size_t got = 0;
  while (got < max) {
    if (s->vpos < s->vlen) {
      size_t m = s->vlen - s->vpos;
      if (m > max - got) m = max - got;
      memcpy(o + got * s->pg.vsz, s->vals + (size_t)s->vpos * s->pg.vsz,
             m * s->pg.vsz);
      s->vpos += (uint32_t)m;
      got += m;
      continue;
    }
    if (s->vec >= s->pg.nvec) break;
    uint32_t k = s->vec;
    uint32_t cnt = k + 1 < s->pg.nvec ? s->pg.vs : s->pg.total - k * s->pg.vs;
    int rc;
    if (max - got >= cnt) {
      rc = decode_vector(s, k, o + got * s->pg.vsz, err);
      got += cnt;
    } else {
      if (!s->vals) {
        /* At most one vector (the page may hold fewer values). */
        uint32_t cap = s->pg.total < s->pg.vs ? s->pg.total : s->pg.vs;
        s->vals = pq_malloc((size_t)cap * s->pg.vsz);
        if (!s->vals) return pq_nomem(err, ALP);
      }
      rc = decode_vector(s, k, s->vals, err);
      s->vpos = 0;
      s->vlen = cnt;
    }
    if (rc) {
      s->vlen = s->vpos = 0;
      s->vec = s->pg.nvec; /* no more values after a fault */
      return rc;
    }
    s->vec++;
  }
  *n = got;
  return PQ_OK;
}

static void alp_dec_destroy(pq_decoder *d) { pq_free(((alp_dec *)d)->vals); }

/* ---- The layout, checked ------------------------------------------------ */

/* Fails with the header field at byte `at`. */
#define HFAIL(field_at, code, ...) \
  (pg->fault_at = (field_at), pq_fail(err, code, ALP, __VA_ARGS__))

int pq_alp_page_read(pq_alp_page *pg, const pq_params *p, const uint8_t *buf,
                     size_t len, pq_error *err) {
  memset(pg, 0, sizeof *pg);
  pg->dbl = p->type == PQ_DOUBLE;
  pg->vsz = pg->dbl ? 8 : 4;
  pg->vhdr = pg->dbl ? 13 : 9;
  pg->max_e = pg->dbl ? MAX_E_DOUBLE : MAX_E_FLOAT;
  pg->max_w = pg->dbl ? 64 : 32;
  if (len < HEADER) {
    return HFAIL(0, PQ_CORRUPT,
                 "header: the stream has %zu bytes, the header takes %d",
                 len, HEADER);
  }
  if (buf[0] != 0) {
    return HFAIL(0, PQ_UNSUPPORTED,
                 "header: compression mode %u is not 0 (ALP), the only one "
                 "the spec defines",
                 buf[0]);
  }
  if (buf[1] != 0) {
    return HFAIL(1, PQ_UNSUPPORTED,
                 "header: integer encoding %u is not 0 (frame of reference "
                 "and bit packing), the only one the spec defines",
                 buf[1]);
  }
  int log_vs = buf[2];
  if (log_vs < LOG_VS_MIN || log_vs > LOG_VS_MAX) {
    return HFAIL(2, PQ_CORRUPT,
                 "header: log_vector_size %d is not from %d to %d", log_vs,
                 LOG_VS_MIN, LOG_VS_MAX);
  }
  int32_t total = (int32_t)pq_load32(buf + 3);
  if (total < 0) {
    return HFAIL(3, PQ_CORRUPT, "header: the value count %d is negative",
                 total);
  }
  uint32_t vs = (uint32_t)1 << log_vs;
  uint32_t nvec = (uint32_t)(((uint64_t)total + vs - 1) / vs);
  /* Each vector takes its offset and its header at least: a count the
  ** bytes cannot hold fails before anything is allocated. */
  if ((uint64_t)nvec * (4 + pg->vhdr) > len - HEADER) {
    return HFAIL(3, PQ_CORRUPT,
                 "header: %d values make %u vector%s of %u, whose offsets "
                 "and headers take %llu bytes, %zu remain",
                 total, nvec, nvec == 1 ? "" : "s", vs,
                 (unsigned long long)nvec * (4 + pg->vhdr), len - HEADER);
  }
  if (p->count >= 0 && (uint64_t)p->count > (uint64_t)total) {
    return HFAIL(3, PQ_CORRUPT, "the count is %lld, the header says %d values",
                 (long long)p->count, total);
  }
  pg->vs = vs;
  pg->total = (uint32_t)total;
  pg->nvec = nvec;
  return PQ_OK;
}
#undef HFAIL

/* Whether each of the nexc positions at pos is below n (1 to 32768), four
** at a time: a 16-bit lane p is at least n when its top bit is set, or when
** its low 15 bits plus 0x8000 - n reach it (no carry crosses lanes). */
static int positions_below(const uint8_t *pos, unsigned nexc, uint32_t n) {
  const uint64_t ones = 0x0001000100010001ull, top = 0x8000800080008000ull;
  uint64_t t = (uint64_t)(0x8000u - n) * ones, bad = 0;
  unsigned j = 0;
  for (; j + 4 <= nexc; j += 4) {
    uint64_t x = pq_load64(pos + 2 * (size_t)j);
    bad |= (((x & ~top) + t) | x) & top;
  }
  for (; j < nexc; j++) bad |= load16(pos + 2 * (size_t)j) >= n;
  return bad == 0;
}

/* Fails with the vector and the stream offset of what is wrong. */
#define VFAIL(fmt, ...)                                                 \
  pq_fail(err, PQ_CORRUPT, ALP, "vector %u at byte %zu: " fmt, k, at, \
          __VA_ARGS__)

int pq_alp_vector_read(const pq_alp_page *pg, const uint8_t *buf, size_t len,
                       uint32_t k, size_t next_min, pq_alp_vector *v,
                       pq_error *err) {
  uint32_t n = k + 1 < pg->nvec ? pg->vs : pg->total - k * pg->vs;
  uint32_t rel = pq_load32(buf + HEADER + (size_t)4 * k);
  size_t at = HEADER + (size_t)rel;
  v->at = at;
  v->n = n;
  if (at < next_min) {
    return pq_fail(err, PQ_CORRUPT, ALP,
                   "vector %u: offset %u (byte %zu) is before the end of %s "
                   "(byte %zu)",
                   k, rel, at, k ? "the vector before it" : "the offsets",
                   next_min);
  }
  if (at > len || len - at < pg->vhdr) {
    return pq_fail(err, PQ_CORRUPT, ALP,
                   "vector %u: offset %u (byte %zu) leaves no room for its "
                   "%zu-byte header in a stream of %zu bytes",
                   k, rel, at, pg->vhdr, len);
  }
  const uint8_t *h = buf + at;
  unsigned e = h[0], f = h[1], nexc = (unsigned)h[2] | (unsigned)h[3] << 8;
  int w = h[pg->vhdr - 1];
  v->e = e;
  v->f = f;
  v->nexc = nexc;
  v->w = w;
  v->ref = pg->dbl ? (int64_t)pq_load64(h + 4)
                   : (int64_t)(int32_t)pq_load32(h + 4);
  if ((int)e > pg->max_e)
    return VFAIL("exponent %u is above %d, the largest for %s", e, pg->max_e,
                 pg->dbl ? "DOUBLE" : "FLOAT");
  if (f > e) return VFAIL("factor %u is above the exponent %u", f, e);
  if (nexc > n)
    return VFAIL("%u exceptions in a vector of %u values", nexc, n);
  if (w > pg->max_w)
    return VFAIL("bit width %d is above %d", w, pg->max_w);
  size_t packed = ((size_t)n * (size_t)w + 7) / 8;
  size_t need = packed + (size_t)nexc * (2 + pg->vsz);
  size_t left = len - at - pg->vhdr;
  if (need > left) {
    return VFAIL("%u values of %d bits and %u exceptions take %zu bytes "
                 "after the header, %zu remain",
                 n, w, nexc, need, left);
  }
  v->packed = packed;
  v->pos_at = at + pg->vhdr + packed;
  v->exc_at = v->pos_at + (size_t)nexc * 2;
  v->end = at + pg->vhdr + need;
  if (!positions_below(buf + v->pos_at, nexc, n)) {
    for (unsigned j = 0; j < nexc; j++) {
      unsigned p = load16(buf + v->pos_at + 2 * j);
      if (p >= n) {
        return VFAIL("exception %u is at position %u, past the vector's %u "
                     "values",
                     j, p, n);
      }
    }
  }
  return PQ_OK;
}
#undef VFAIL

int pq_alp_decoder(pq_decoder **out, const pq_params *p, const uint8_t *buf,
                   size_t len, pq_error *err) {
  pq_alp_page pg;
  int rc = pq_alp_page_read(&pg, p, buf, len, err);
  if (rc) return rc;
  alp_dec *s = (alp_dec *)pq_decoder_alloc(sizeof *s, p, buf, len);
  if (!s) return pq_nomem(err, ALP);
  s->pg = pg;
  s->next_min = HEADER + (size_t)pg.nvec * 4;
  s->cpu = pq_cpu();
  s->unpack32 = pq_unpack32_table(s->cpu);
  s->base.read = alp_read;
  s->base.destroy = alp_dec_destroy;
  *out = &s->base;
  return PQ_OK;
}

/* ---- Encoding ------------------------------------------------------------
** Rounding (spec "Fast Rounding", informative): adding and subtracting
** 2^52 (2^23) with the value's sign rounds to the nearest integer, ties to
** even, in the value's precision; values at least that large are integers
** already.  Whatever the rounding, an integer is kept only when the
** normative decode gives the value back bit for bit. */

static inline double round_d(double t) {
  double m = t < 0 ? -0x1p52 : 0x1p52;
  return t < 0x1p52 && t > -0x1p52 ? (t + m) - m : t;
}
static inline float round_f(float t) {
  float m = t < 0 ? -0x1p23f : 0x1p23f;
  return t < 0x1p23f && t > -0x1p23f ? (t + m) - m : t;
}

/* The integer of x under (e, f), and whether it decodes to x exactly. */
PQ_NO_COVERAGE static inline int to_int_d(double x, int e, int f, int64_t *q) {
  double r = round_d(x * P10[e] * N10[f]);
  if (!(r >= -0x1p63 && r < 0x1p63)) return 0; /* NaN, inf, too large */
  *q = (int64_t)r;
  return dbits((double)*q * P10[f] * N10[e]) == dbits(x);
}
PQ_NO_COVERAGE static inline int to_int_f(float x, int e, int f, int64_t *q) {
  float r = round_f(x * P10F[e] * N10F[f]);
  if (!(r >= -0x1p31f && r < 0x1p31f)) return 0;
  int32_t i = (int32_t)r;
  *q = i;
  return fbits((float)i * P10F[f] * N10F[e]) == fbits(x);
}

#define PRESET_MAX 5        /* pairs kept for the page */
#define PRESET_CHUNKS 8     /* parts of the first values sampled */
#define PRESET_SAMPLE 64    /* values sampled from each */
#define PRESET_SPAN 8192    /* values the preset is chosen from, at least */
#define VECTOR_SAMPLE 32    /* values a vector tries its pairs on */
#define RESEARCH_WAIT_MAX 64

typedef struct alp_pair {
  uint8_t e, f;
} alp_pair;

/* How often a pair won a sample of choose_preset, and its bits there. */
typedef struct alp_tally {
  alp_pair p;
  int wins;
  uint64_t bits;
} alp_tally;

typedef struct alp_enc {
  pq_encoder base;
  int dbl;
  size_t vsz;
  int max_e;
  uint32_t vs;
  int log_vs;
  int fe, ff;          /* forced exponent and factor; -1 = searched */
  uint8_t *pend;       /* values not yet encoded */
  size_t npend, span;  /* how many; how many are gathered before encoding */
  int have_preset;
  alp_pair preset[PRESET_MAX];
  int npreset;
  int research_wait, research_backoff; /* vectors before a full search */
  int64_t *ints;       /* a vector's integers */
  uint16_t *exc;       /* its exceptions' positions */
  pq_buf body;         /* the encoded vectors */
  uint32_t *sizes;     /* their sizes */
  size_t nvec, cap_vec;
  unsigned cpu;        /* pq_cpu() at open */
} alp_enc;

/* The cost in bits of an exception: its position and its value. */
#define EXC_BITS(s) (16 + 8 * (uint64_t)(s)->vsz)

/* Estimated bits of m sampled values under (e, f), of a sample of
** `total` values whose other total - m are exceptions under every pair:
** the width of the frame times total, plus each exception's position and
** value; *nexc, the exceptions.  UINT64_MAX, *nexc left as it was, as
** soon as the bits counted so far reach `limit` (the frame only widens and
** the exceptions only add, so the pair cannot cost less than that). */
PQ_NO_COVERAGE static uint64_t sample_bits(const alp_enc *s, const uint8_t *v,
                                           size_t m, size_t total, int e,
                                           int f, size_t *nexc,
                                           uint64_t limit) {
  int64_t mn = INT64_MAX, mx = INT64_MIN, q = 0;
  size_t bad = total - m;
  uint64_t exc_bits = bad * EXC_BITS(s), frame_bits = 0;
  for (size_t i = 0; i < m; i++) {
    int ok;
    if (s->dbl) {
      double x;
      memcpy(&x, v + 8 * i, 8);
      ok = to_int_d(x, e, f, &q);
    } else {
      float x;
      memcpy(&x, v + 4 * i, 4);
      ok = to_int_f(x, e, f, &q);
    }
    if (!ok) {
      bad++;
      exc_bits += EXC_BITS(s);
    } else if (q < mn || q > mx) {
      if (q < mn) mn = q;
      if (q > mx) mx = q;
      frame_bits = (uint64_t)total *
                   (uint64_t)pq_bit_width64((uint64_t)mx - (uint64_t)mn);
    } else {
      continue;
    }
    if (exc_bits + frame_bits >= limit) return UINT64_MAX;
  }
  *nexc = bad;
  return frame_bits + exc_bits;
}

/* Whether x is an exception under every pair: NaN, infinities, -0.0 (its
** integer 0 decodes to +0.0), magnitudes whose integer overflows even at
** the smallest scale (10^e x 10^-e, within an ulp or two of 1), and
** nonzero magnitudes that round to 0 even at the largest (10^max_e). */
PQ_NO_COVERAGE static int hopeless(const alp_enc *s, const uint8_t *v) {
  if (s->dbl) {
    double x;
    memcpy(&x, v, 8);
    double a = x < 0 ? -x : x;
    return !(a < 0x1p64) || dbits(x) == dbits(-0.0) ||
           (a != 0 && a < 1e-19);
  }
  float x;
  memcpy(&x, v, 4);
  float a = x < 0 ? -x : x;
  return !(a < 0x1p32f) || fbits(x) == fbits(-0.0f) ||
         (a != 0 && a < 1e-11f);
}

/* The best pair for m sampled values (at most PRESET_SAMPLE) among every
** allowed one: the least bits, the smaller exponent then factor on a tie.
** `hint`, when not NULL, is tried first: a good pair found early lets the
** others stop as soon as they cost more.  The values that are exceptions
** under every pair add the same bits to each and are counted once. */
static alp_pair search_all(const alp_enc *s, const uint8_t *v, size_t m,
                           const alp_pair *hint, uint64_t *bits) {
  uint8_t kept[PRESET_SAMPLE * 8];
  size_t nk = 0, nexc;
  for (size_t i = 0; i < m; i++)
    if (!hopeless(s, v + i * s->vsz))
      memcpy(kept + nk++ * s->vsz, v + i * s->vsz, s->vsz);
  alp_pair best = {0, 0};
  uint64_t bb = UINT64_MAX;
  if (hint) {
    best = *hint;
    bb = sample_bits(s, kept, nk, m, best.e, best.f, &nexc, UINT64_MAX);
  }
  int e_lo = s->fe >= 0 ? s->fe : 0, e_hi = s->fe >= 0 ? s->fe : s->max_e;
  for (int e = e_lo; e <= e_hi; e++) {
    int f_lo = s->ff >= 0 ? s->ff : 0, f_hi = s->ff >= 0 ? s->ff : e;
    for (int f = f_lo; f <= f_hi && f <= e; f++) {
      if (hint && e == hint->e && f == hint->f) continue;
      /* A pair before the best wins a tie: it stops only above it. */
      int before = e < best.e || (e == best.e && f < best.f);
      uint64_t limit = before && bb < UINT64_MAX ? bb + 1 : bb;
      uint64_t b = sample_bits(s, kept, nk, m, e, f, &nexc, limit);
      if (b < bb || (b == bb && before && b != UINT64_MAX)) {
        bb = b;
        best.e = (uint8_t)e;
        best.f = (uint8_t)f;
      }
    }
  }
  *bits = bb;
  return best;
}

/* Up to `cap` values of v[0..n), one from each of `cap` equal parts, at a
** place in its part that varies from part to part (a hash of its index):
** evenly spaced samples of data with a period, such as 1000 + i / 8,
** would see only its whole numbers. */
static size_t take_sample(const alp_enc *s, const uint8_t *v, size_t n,
                          size_t cap, uint8_t *out) {
  if (n <= cap) {
    memcpy(out, v, n * s->vsz);
    return n;
  }
  size_t step = n / cap;
  for (size_t i = 0; i < cap; i++) {
    size_t at = i * n / cap + ((uint32_t)(i + 1) * 2654435761u >> 16) % step;
    memcpy(out + i * s->vsz, v + at * s->vsz, s->vsz);
  }
  return cap;
}

/* The preset from the first n values (spec "Parameter Selection"): the
** best pair of each of PRESET_CHUNKS samples, the pairs that win most
** often first. */
static void choose_preset(alp_enc *s, const uint8_t *v, size_t n) {
  s->have_preset = 1;
  s->npreset = 0;
  if (s->fe >= 0 && s->ff >= 0) {
    s->preset[0].e = (uint8_t)s->fe;
    s->preset[0].f = (uint8_t)s->ff;
    s->npreset = 1;
    return;
  }
  if (n == 0) return;
  alp_tally tally[PRESET_CHUNKS];
  alp_pair prev = {0, 0}; /* the last chunk's pair, tried first */
  int nt = 0;
  uint8_t sample[PRESET_SAMPLE * 8];
  size_t chunks = n < PRESET_CHUNKS ? n : PRESET_CHUNKS;
  for (size_t c = 0; c < chunks; c++) {
    size_t lo = c * n / chunks, hi = (c + 1) * n / chunks;
    size_t m = take_sample(s, v + lo * s->vsz, hi - lo, PRESET_SAMPLE, sample);
    uint64_t bits;
    alp_pair p = search_all(s, sample, m, c ? &prev : NULL, &bits);
    prev = p;
    int t = 0;
    while (t < nt && (tally[t].p.e != p.e || tally[t].p.f != p.f)) t++;
    if (t == nt) {
      tally[nt].p = p;
      tally[nt].wins = 0;
      tally[nt].bits = 0;
      nt++;
    }
    tally[t].wins++;
    tally[t].bits += bits;
  }
  /* Most wins first; fewer bits on a tie. */
  for (int i = 1; i < nt; i++) {
    for (int j = i; j > 0; j--) {
      int before = tally[j].wins > tally[j - 1].wins ||
                   (tally[j].wins == tally[j - 1].wins &&
                    tally[j].bits < tally[j - 1].bits);
      if (!before) break;
      alp_tally x = tally[j];
      tally[j] = tally[j - 1];
      tally[j - 1] = x;
    }
  }
  for (int i = 0; i < nt && i < PRESET_MAX; i++) s->preset[s->npreset++] = tally[i].p;
}

/* The pair for a vector: the preset's best on a sample of it, or a new
** one when the preset leaves too many exceptions. */
static alp_pair choose_pair(alp_enc *s, const uint8_t *v, size_t n) {
  if (s->npreset == 1 && s->fe >= 0 && s->ff >= 0) return s->preset[0];
  uint8_t sample[VECTOR_SAMPLE * 8];
  size_t m = take_sample(s, v, n, VECTOR_SAMPLE, sample);
  alp_pair best = {0, 0};
  uint64_t bb = UINT64_MAX;
  size_t bexc = m;
  int worse = 0;
  for (int i = 0; i < s->npreset; i++) {
    size_t nexc;
    uint64_t b = sample_bits(s, sample, m, m, s->preset[i].e,
                             s->preset[i].f, &nexc, UINT64_MAX);
    if (b < bb) {
      bb = b;
      bexc = nexc;
      best = s->preset[i];
      worse = 0;
    } else if (++worse == 2) {
      break; /* two worse in a row: the paper's early exit */
    }
  }
  if (s->npreset > 0 && bexc * 4 <= m) return best;
  if (s->research_wait > 0) {
    s->research_wait--;
    if (s->npreset > 0) return best;
  }
  /* A quarter or more exceptions: every pair, on this sample. */
  uint64_t b;
  alp_pair p = search_all(s, sample, m, s->npreset ? &best : NULL, &b);
  if (b < bb) {
    /* The pair goes first, the others keep their order; one the early
    ** exit skipped moves up, else the last is dropped when all are
    ** taken. */
    int at = 0;
    while (at < s->npreset &&
           (s->preset[at].e != p.e || s->preset[at].f != p.f))
      at++;
    if (at == s->npreset) {
      if (s->npreset < PRESET_MAX)
        s->npreset++;
      else
        at = PRESET_MAX - 1;
    }
    memmove(&s->preset[1], &s->preset[0], (size_t)at * sizeof s->preset[0]);
    s->preset[0] = p;
    s->research_backoff = 0;
    return p;
  }
  /* Nothing better: wait longer before the next full search. */
  s->research_backoff = s->research_backoff ? s->research_backoff * 2 : 1;
  if (s->research_backoff > RESEARCH_WAIT_MAX)
    s->research_backoff = RESEARCH_WAIT_MAX;
  s->research_wait = s->research_backoff;
  return best;
}

/* ---- A vector's integers ----------------------------------------------
** For values v[from..n) under (e, f): each one's integer into q[], the
** positions of those without one appended to exc[] (ascending), and the
** least and greatest integer folded into *mn and *mx.  Returns the count
** of exceptions in exc[]. */
static size_t ints_scalar(int dbl, const uint8_t *v, size_t from, size_t n,
                          int e, int f, int64_t *q, uint16_t *exc, size_t k,
                          int64_t *mn, int64_t *mx) {
  int64_t lo = *mn, hi = *mx;
  for (size_t i = from; i < n; i++) {
    int64_t qi = 0;
    int ok;
    if (dbl) {
      double x;
      memcpy(&x, v + 8 * i, 8);
      ok = to_int_d(x, e, f, &qi);
    } else {
      float x;
      memcpy(&x, v + 4 * i, 4);
      ok = to_int_f(x, e, f, &qi);
    }
    q[i] = qi;
    exc[k] = (uint16_t)i;
    k += !ok;
    if (ok) {
      lo = qi < lo ? qi : lo;
      hi = qi > hi ? qi : hi;
    }
  }
  *mn = lo;
  *mx = hi;
  return k;
}

#if PQ_X86_SIMD
#define RECHECK 0x8000u
/* The AVX2 forms leave in cand[] the positions without an integer
** (ascending), those they could not settle marked with RECHECK, for
** ints_recheck to finish outside AVX code: calling SSE code from here
** would pay for the transition on every value.  They return how many
** there are; *mn and *mx are those of the others.  (Positions are below
** 32768, so bit 15 is free.) */

/* Four DOUBLE values at a time: rounding and the decode check as
** to_int_d computes them, the integer by the magic-number identity, which
** holds within +-2^51; an integer beyond that but within int64 is left to
** the recheck. */
__attribute__((target("avx2"))) static size_t ints_d_avx2(
    const uint8_t *v, size_t n, int e, int f, int64_t *q, uint16_t *cand,
    int64_t *mn, int64_t *mx) {
  const __m256d me = _mm256_set1_pd(P10[e]), mf = _mm256_set1_pd(N10[f]),
                df = _mm256_set1_pd(P10[f]), de = _mm256_set1_pd(N10[e]);
  const __m256d sign = _mm256_set1_pd(-0.0), m52 = _mm256_set1_pd(0x1p52),
                lim = _mm256_set1_pd(0x1p51), magic = _mm256_set1_pd(MAGIC_D),
                lim63 = _mm256_set1_pd(0x1p63), zero = _mm256_setzero_pd(),
                pinf = _mm256_set1_pd(0x1p1023), ninf = _mm256_set1_pd(-0x1p1023);
  const __m256i mbits = _mm256_set1_epi64x((long long)MAGIC_D_BITS);
  __m256d lo = pinf, hi = ninf;
  size_t k = 0, i = 0;
  for (; i + 4 <= n; i += 4) {
    __m256d x = _mm256_loadu_pd((const double *)(const void *)(v + 8 * i));
    __m256d t = _mm256_mul_pd(_mm256_mul_pd(x, me), mf);
    __m256d sm = _mm256_or_pd(_mm256_and_pd(t, sign), m52);
    __m256d r0 = _mm256_sub_pd(_mm256_add_pd(t, sm), sm);
    __m256d small = _mm256_cmp_pd(_mm256_andnot_pd(sign, t), m52, _CMP_LT_OQ);
    __m256d r = _mm256_blendv_pd(t, r0, small);
    __m256d fits = _mm256_cmp_pd(_mm256_andnot_pd(sign, r), lim, _CMP_LE_OQ);
    __m256i qi = _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(r, magic)),
                                  mbits);
    __m256d dec = _mm256_mul_pd(_mm256_mul_pd(r, df), de);
    __m256i eq = _mm256_cmpeq_epi64(_mm256_castpd_si256(dec),
                                    _mm256_castpd_si256(x));
    __m256d ok = _mm256_and_pd(fits, _mm256_castsi256_pd(eq));
    _mm256_storeu_si256((__m256i *)(void *)(q + i), qi);
    lo = _mm256_min_pd(lo, _mm256_blendv_pd(pinf, r, ok));
    hi = _mm256_max_pd(hi, _mm256_blendv_pd(ninf, r, ok));
    unsigned mask = (unsigned)_mm256_movemask_pd(ok) ^ 0xfu;
    if (PQ_UNLIKELY(mask)) {
      __m256d in64 =
          _mm256_and_pd(_mm256_cmp_pd(r, _mm256_sub_pd(zero, lim63), _CMP_GE_OQ),
                        _mm256_cmp_pd(r, lim63, _CMP_LT_OQ));
      __m256d big = _mm256_andnot_pd(fits, in64);
      unsigned again = (unsigned)_mm256_movemask_pd(big);
      do {
        unsigned j = (unsigned)__builtin_ctz(mask);
        cand[k++] = (uint16_t)((i + j) | ((again >> j & 1) ? RECHECK : 0));
        mask &= mask - 1;
      } while (mask);
    }
  }
  for (; i < n; i++) cand[k++] = (uint16_t)(i | RECHECK);
  double l[4], h[4];
  _mm256_storeu_pd(l, lo);
  _mm256_storeu_pd(h, hi);
  int64_t a = INT64_MAX, b = INT64_MIN;
  for (int j = 0; j < 4; j++) {
    /* Whole numbers within +-2^51: exact as int64. */
    if (l[j] <= h[j]) {
      a = (int64_t)l[j] < a ? (int64_t)l[j] : a;
      b = (int64_t)h[j] > b ? (int64_t)h[j] : b;
    }
  }
  *mn = a;
  *mx = b;
  return k;
}

/* Eight FLOAT values at a time; the int32 conversion is exact for whole
** numbers within the range to_int_f allows. */
__attribute__((target("avx2"))) static size_t ints_f_avx2(
    const uint8_t *v, size_t n, int e, int f, int64_t *q, uint16_t *cand,
    int64_t *mn, int64_t *mx) {
  const __m256 me = _mm256_set1_ps(P10F[e]), mf = _mm256_set1_ps(N10F[f]),
               df = _mm256_set1_ps(P10F[f]), de = _mm256_set1_ps(N10F[e]);
  const __m256 sign = _mm256_set1_ps(-0.0f), m23 = _mm256_set1_ps(0x1p23f),
               lim_lo = _mm256_set1_ps(-0x1p31f),
               lim_hi = _mm256_set1_ps(0x1p31f);
  __m256i lo = _mm256_set1_epi32(INT32_MAX), hi = _mm256_set1_epi32(INT32_MIN);
  size_t k = 0, i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 x = _mm256_loadu_ps((const float *)(const void *)(v + 4 * i));
    __m256 t = _mm256_mul_ps(_mm256_mul_ps(x, me), mf);
    __m256 sm = _mm256_or_ps(_mm256_and_ps(t, sign), m23);
    __m256 r0 = _mm256_sub_ps(_mm256_add_ps(t, sm), sm);
    __m256 small = _mm256_cmp_ps(_mm256_andnot_ps(sign, t), m23, _CMP_LT_OQ);
    __m256 r = _mm256_blendv_ps(t, r0, small);
    __m256 fits = _mm256_and_ps(_mm256_cmp_ps(r, lim_lo, _CMP_GE_OQ),
                                _mm256_cmp_ps(r, lim_hi, _CMP_LT_OQ));
    __m256i qi = _mm256_cvttps_epi32(r);
    __m256 dec = _mm256_mul_ps(_mm256_mul_ps(r, df), de);
    __m256i eq = _mm256_cmpeq_epi32(_mm256_castps_si256(dec),
                                    _mm256_castps_si256(x));
    __m256i ok = _mm256_and_si256(_mm256_castps_si256(fits), eq);
    _mm256_storeu_si256((__m256i *)(void *)(q + i),
                        _mm256_cvtepi32_epi64(_mm256_castsi256_si128(qi)));
    _mm256_storeu_si256((__m256i *)(void *)(q + i + 4),
                        _mm256_cvtepi32_epi64(_mm256_extracti128_si256(qi, 1)));
    lo = _mm256_min_epi32(lo, _mm256_blendv_epi8(lo, qi, ok));
    hi = _mm256_max_epi32(hi, _mm256_blendv_epi8(hi, qi, ok));
    /* The range is to_int_f's: a value out of it or whose check fails
    ** has no integer. */
    unsigned mask =
        (unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(ok)) ^ 0xffu;
    while (PQ_UNLIKELY(mask)) {
      cand[k++] = (uint16_t)(i + (size_t)__builtin_ctz(mask));
      mask &= mask - 1;
    }
  }
  for (; i < n; i++) cand[k++] = (uint16_t)(i | RECHECK);
  int32_t l[8], h[8];
  _mm256_storeu_si256((__m256i *)(void *)l, lo);
  _mm256_storeu_si256((__m256i *)(void *)h, hi);
  int64_t a = INT64_MAX, b = INT64_MIN;
  for (int j = 0; j < 8; j++) {
    if (l[j] <= h[j]) {
      a = l[j] < a ? l[j] : a;
      b = h[j] > b ? h[j] : b;
    }
  }
  *mn = a;
  *mx = b;
  return k;
}

/* Settles the k positions in exc[] that an AVX2 form left: those with an
** integer after all get it, the rest stay, in order.  Returns their
** count. */
static size_t ints_recheck(int dbl, const uint8_t *v, int e, int f,
                           int64_t *q, uint16_t *exc, size_t k, int64_t *mn,
                           int64_t *mx) {
  size_t kept = 0;
  for (size_t j = 0; j < k; j++) {
    size_t i = exc[j] & ~RECHECK;
    if (exc[j] & RECHECK)
      kept = ints_scalar(dbl, v, i, i + 1, e, f, q, exc, kept, mn, mx);
    else
      exc[kept++] = (uint16_t)i;
  }
  return kept;
}
#endif

/* Encodes one vector of n values onto s->body. */
static int encode_vector(alp_enc *s, const uint8_t *v, size_t n,
                         pq_error *err) {
  alp_pair p = choose_pair(s, v, n);
  int e = p.e, f = p.f;
  int64_t *q = s->ints;
  uint16_t *exc = s->exc;
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  size_t k;
#if PQ_X86_SIMD
  if (s->cpu & PQ_CPU_AVX2) {
    k = s->dbl ? ints_d_avx2(v, n, e, f, q, exc, &mn, &mx)
               : ints_f_avx2(v, n, e, f, q, exc, &mn, &mx);
    k = ints_recheck(s->dbl, v, e, f, q, exc, k, &mn, &mx);
  } else
#endif
    k = ints_scalar(s->dbl, v, 0, n, e, f, q, exc, 0, &mn, &mx);
  /* Exceptions take the first other value's integer (spec "Exception
  ** Detection"), within the range of the others; positions are
  ** ascending. */
  if (k) {
    size_t first = 0;
    while (first < k && exc[first] == first) first++;
    int64_t hold = first < n ? q[first] : 0;
    for (size_t j = 0; j < k; j++) q[exc[j]] = hold;
    if (k == n) mn = mx = 0;
  }
  int w = pq_bit_width64((uint64_t)mx - (uint64_t)mn);
  size_t vhdr = s->dbl ? 13 : 9;
  size_t packed = (n * (size_t)w + 7) / 8;
  size_t size = vhdr + packed + k * (2 + s->vsz);
  if (k < n && vhdr + n * (2 + s->vsz) < size) {
    /* The few values that have integers are so far apart that every value
    ** is smaller as an exception (random bits, mostly). */
    for (size_t i = 0; i < n; i++) exc[i] = (uint16_t)i;
    k = n;
    mn = 0;
    w = 0;
    packed = 0;
    size = vhdr + n * (2 + s->vsz);
  }
  if (pq_buf_reserve(&s->body, size + (size_t)4 * w)) return pq_nomem(err, ALP);
  uint8_t *o = s->body.data + s->body.len;
  o[0] = (uint8_t)e;
  o[1] = (uint8_t)f;
  o[2] = (uint8_t)k;
  o[3] = (uint8_t)(k >> 8);
  if (s->dbl) {
    pq_store64(o + 4, (uint64_t)mn);
  } else {
    pq_store32(o + 4, (uint32_t)(int32_t)mn);
  }
  o[vhdr - 1] = (uint8_t)w;
  uint8_t *pk = o + vhdr;
  /* 32 deltas at a time; a last group short of 32 is padded with zeros
  ** and packed whole into the slack reserved past the vector. */
  for (size_t i = 0; w > 0 && i < n; i += 32) {
    const int64_t *qi = q + i;
    uint8_t *dst = pk + i / 8 * (size_t)w;
    if (w <= 32) {
      uint32_t d[32];
      if (n - i >= 32) {
        for (int j = 0; j < 32; j++)
          d[j] = (uint32_t)((uint64_t)qi[j] - (uint64_t)mn);
      } else {
        memset(d, 0, sizeof d);
        for (size_t j = 0; j < n - i; j++)
          d[j] = (uint32_t)((uint64_t)qi[j] - (uint64_t)mn);
      }
      pq_pack32(w, d, dst);
    } else {
      uint64_t d[32];
      if (n - i >= 32) {
        for (int j = 0; j < 32; j++) d[j] = (uint64_t)qi[j] - (uint64_t)mn;
      } else {
        memset(d, 0, sizeof d);
        for (size_t j = 0; j < n - i; j++)
          d[j] = (uint64_t)qi[j] - (uint64_t)mn;
      }
      pq_pack64(w, d, dst);
    }
  }
  uint8_t *po = pk + packed, *vo = po + 2 * k;
  for (size_t j = 0; j < k; j++) {
    po[2 * j] = (uint8_t)exc[j];
    po[2 * j + 1] = (uint8_t)(exc[j] >> 8);
  }
  /* The values' bits, little-endian. */
  if (s->dbl) {
    for (size_t j = 0; j < k; j++) {
      uint64_t b;
      memcpy(&b, v + 8 * (size_t)exc[j], 8);
      pq_store64(vo + 8 * j, b);
    }
  } else {
    for (size_t j = 0; j < k; j++) {
      uint32_t b;
      memcpy(&b, v + 4 * (size_t)exc[j], 4);
      pq_store32(vo + 4 * j, b);
    }
  }
  s->body.len += size;
  if (s->nvec == s->cap_vec) {
    size_t cap = s->cap_vec ? s->cap_vec * 2 : 16;
    uint32_t *z = pq_realloc(s->sizes, cap * sizeof *z);
    if (!z) return pq_nomem(err, ALP);
    s->sizes = z;
    s->cap_vec = cap;
  }
  s->sizes[s->nvec++] = (uint32_t)size;
  return PQ_OK;
}

/* Encodes the whole vectors of the pending values (all of them when
** `last`), choosing the preset first if it is not. */
static int flush_pending(alp_enc *s, int last, pq_error *err) {
  if (!s->have_preset) choose_preset(s, s->pend, s->npend);
  size_t i = 0;
  while (s->npend - i >= s->vs || (last && i < s->npend)) {
    size_t m = s->npend - i < s->vs ? s->npend - i : s->vs;
    int rc = encode_vector(s, s->pend + i * s->vsz, m, err);
    if (rc) return rc;
    i += m;
  }
  memmove(s->pend, s->pend + i * s->vsz, (s->npend - i) * s->vsz);
  s->npend -= i;
  return PQ_OK;
}

static int alp_alloc(alp_enc *s, pq_error *err) {
  s->pend = pq_malloc(s->span * s->vsz);
  s->ints = pq_malloc(s->vs * sizeof *s->ints);
  s->exc = pq_malloc(s->vs * sizeof *s->exc);
  if (!s->pend || !s->ints || !s->exc) return pq_nomem(err, ALP);
  return PQ_OK;
}

static int alp_put(pq_encoder *e, const void *v, size_t n, pq_error *err) {
  alp_enc *s = (alp_enc *)e;
  if (n > (uint64_t)INT32_MAX - e->count) {
    return pq_fail(err, PQ_RANGE, ALP,
                   "a page holds at most 2147483647 values (its header's "
                   "count is an int32)");
  }
  if (!s->pend) {
    int rc = alp_alloc(s, err);
    if (rc) return rc;
  }
  const uint8_t *in = v;
  while (n > 0) {
    size_t room = s->span - s->npend;
    size_t m = n < room ? n : room;
    memcpy(s->pend + s->npend * s->vsz, in, m * s->vsz);
    s->npend += m;
    in += m * s->vsz;
    n -= m;
    if (s->npend == s->span || (s->have_preset && s->npend >= s->vs)) {
      int rc = flush_pending(s, 0, err);
      if (rc) return rc;
    }
  }
  return PQ_OK;
}

static int alp_finish(pq_encoder *e, pq_buf *out, pq_buf *dict,
                      pq_error *err) {
  (void)dict;
  alp_enc *s = (alp_enc *)e;
  if (s->npend) {
    int rc = flush_pending(s, 1, err);
    if (rc) return rc;
  }
  uint64_t total = (uint64_t)s->nvec * 4 + s->body.len;
  if (total > UINT32_MAX) {
    return pq_fail(err, PQ_RANGE, ALP,
                   "the vectors take %llu bytes, more than the 4-byte "
                   "offsets reach",
                   (unsigned long long)total);
  }
  if (s->body.oom || pq_buf_reserve(out, HEADER + (size_t)total)) {
    out->oom = 1;
    return PQ_OK;
  }
  uint8_t *o = out->data + out->len;
  o[0] = 0; /* ALP */
  o[1] = 0; /* frame of reference and bit packing */
  o[2] = (uint8_t)s->log_vs;
  pq_store32(o + 3, (uint32_t)e->count);
  uint32_t off = (uint32_t)(s->nvec * 4);
  for (size_t k = 0; k < s->nvec; k++) {
    pq_store32(o + HEADER + 4 * k, off);
    off += s->sizes[k];
  }
  if (s->body.len)
    memcpy(o + HEADER + 4 * s->nvec, s->body.data, s->body.len);
  out->len += HEADER + (size_t)total;
  return PQ_OK;
}

static size_t alp_size(const pq_encoder *e) {
  const alp_enc *s = (const alp_enc *)e;
  return HEADER + s->nvec * 4 + s->body.len + s->npend * s->vsz;
}

static void alp_enc_destroy(pq_encoder *e) {
  alp_enc *s = (alp_enc *)e;
  pq_free(s->pend);
  pq_free(s->ints);
  pq_free(s->exc);
  pq_free(s->sizes);
  pq_buf_free(&s->body);
}

int pq_alp_encoder(pq_encoder **out, const pq_params *p, pq_error *err) {
  int dbl = p->type == PQ_DOUBLE;
  int max_e = dbl ? MAX_E_DOUBLE : MAX_E_FLOAT;
  int64_t vs = p->vector_size < 0 ? (int64_t)1 << LOG_VS_DEFAULT
                                  : p->vector_size;
  int log_vs = 0;
  while (log_vs < 62 && ((int64_t)1 << log_vs) < vs) log_vs++;
  if (vs < 8 || vs > 32768 || ((int64_t)1 << log_vs) != vs) {
    return pq_fail(err, PQ_MISUSE, ALP,
                   "vector_size %lld is not a power of two from 8 to 32768",
                   (long long)vs);
  }
  if (p->exponent > max_e) {
    return pq_fail(err, PQ_MISUSE, ALP,
                   "exponent %d is above %d, the largest for %s", p->exponent,
                   max_e, pq_type_name(p->type));
  }
  if (p->factor > max_e) {
    return pq_fail(err, PQ_MISUSE, ALP,
                   "factor %d is above %d, the largest exponent for %s",
                   p->factor, max_e, pq_type_name(p->type));
  }
  if (p->exponent >= 0 && p->factor > p->exponent) {
    return pq_fail(err, PQ_MISUSE, ALP, "factor %d is above the exponent %d",
                   p->factor, p->exponent);
  }
  alp_enc *s = (alp_enc *)pq_encoder_alloc(sizeof *s, p);
  if (!s) return pq_nomem(err, ALP);
  s->dbl = dbl;
  s->vsz = dbl ? 8 : 4;
  s->max_e = max_e;
  s->vs = (uint32_t)vs;
  s->log_vs = log_vs;
  s->fe = p->exponent < 0 ? -1 : p->exponent;
  s->ff = p->factor < 0 ? -1 : p->factor;
  s->span = vs >= PRESET_SPAN ? (size_t)vs : PRESET_SPAN;
  s->cpu = pq_cpu();
  pq_buf_init(&s->body);
  s->base.put = alp_put;
  s->base.finish = alp_finish;
  s->base.destroy = alp_enc_destroy;
  s->base.size = alp_size;
  *out = &s->base;
  return PQ_OK;
}
