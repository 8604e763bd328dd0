/*
** gen_bitpack.c -- writes src/encodings/bitpack_gen.h, the unrolled bit
** packers.
**
**   cc -o gen_bitpack tools/gen_bitpack.c
**   ./gen_bitpack > src/encodings/bitpack_gen.h
**
** (`make gen` does this; `make test` regenerates and compares.)
**
** For every bit width it emits one straight-line function per direction
** that handles 32 values, reading or writing exactly 4*w bytes as w
** little-endian 32-bit words:
**   unpack32_w / pack32_w        values of 0..32 bits in uint32_t, LSB-first
**   unpack64_w / pack64_w        values of 0..64 bits in uint64_t, LSB-first
**   unpack32_msb_w / pack32_msb_w  the deprecated BIT_PACKED order: the
**                                bytes are one big-endian bit string
** and a table of each family indexed by width.  LSB-first is the order of
** the RLE/bit-packing hybrid and DELTA_BINARY_PACKED (spec/Encodings.md).
** For x86, the two unpack32 families again with AVX2 (unpack32_avx2_w,
** unpack32_msb_avx2_w), and the two pack32 ones (pack32_avx2_w,
** pack32_msb_avx2_w, which may write zeros to 16 bytes past the 4*w),
** under PQ_BITPACK_AVX2.
*/
#include <stdio.h>
#include <stdlib.h>

/* Emits the 32-bit word loads of one function: little- or big-endian. */
static void loads(int words, int big) {
  for (int k = 0; k < words; k++)
    printf("  const uint32_t w%d = %s(in + %d);\n", k,
           big ? "pq_load32be" : "pq_load32", 4 * k);
}

/* Value i of width w (1..31) from the bytes around it: a 32-bit window
** when its bits fit one, else a 64-bit one; windows never reach past the
** 4*w bytes, so the last values are taken from the last 8 bytes. */
static void unpack32(int w) {
  printf("static void unpack32_%d(const uint8_t *in, uint32_t *out) {\n", w);
  if (w == 0) {
    printf("  (void)in;\n  memset(out, 0, 32 * sizeof *out);\n}\n\n");
    return;
  }
  if (w == 32) { /* all loads first: in and out may overlap */
    loads(32, 0);
    for (int i = 0; i < 32; i++) printf("  out[%d] = w%d;\n", i, i);
    printf("}\n\n");
    return;
  }
  int bytes = 4 * w;
  for (int i = 0; i < 32; i++) {
    int b = i * w, at = b / 8, s = b % 8;
    printf("  out[%d] = ", i);
    int at32 = at, s32 = s; /* a 32-bit window, moved back near the end */
    if (at32 + 4 > bytes) {
      at32 = bytes - 4;
      s32 = b - 8 * at32;
    }
    if (s32 + w <= 32) {
      printf("(pq_load32(in + %d) >> %d) & 0x%xu;\n", at32, s32,
             (1u << w) - 1);
    } else { /* w >= 2 here, so the 4*w bytes hold a 64-bit window */
      if (at + 8 > bytes) {
        at = bytes - 8;
        s = b - 8 * at;
      }
      printf("(uint32_t)(pq_load64(in + %d) >> %d) & 0x%xu;\n", at, s,
             (1u << w) - 1);
    }
  }
  printf("}\n\n");
}

/* The same with 64-bit windows; a value of over 57 bits may need a ninth
** byte. */
static void unpack64(int w) {
  printf("static void unpack64_%d(const uint8_t *in, uint64_t *out) {\n", w);
  if (w == 0) {
    printf("  (void)in;\n  memset(out, 0, 32 * sizeof *out);\n}\n\n");
    return;
  }
  if (w == 64) { /* all loads first: in and out may overlap */
    loads(64, 0);
    for (int i = 0; i < 32; i++)
      printf("  out[%d] = (uint64_t)w%d | (uint64_t)w%d << 32;\n", i, 2 * i,
             2 * i + 1);
    printf("}\n\n");
    return;
  }
  int bytes = 4 * w;
  for (int i = 0; i < 32; i++) {
    int b = i * w, at = b / 8, s = b % 8;
    printf("  out[%d] = ", i);
    if (bytes < 8) { /* w == 1: four bytes, one 32-bit window */
      printf("(uint64_t)(pq_load32(in) >> %d)", b);
    } else if (s + w <= 64) {
      if (at + 8 > bytes) {
        at = bytes - 8;
        s = b - 8 * at;
      }
      printf("(pq_load64(in + %d) >> %d)", at, s);
    } else {
      printf("(pq_load64(in + %d) >> %d | (uint64_t)in[%d] << %d)", at, s,
             at + 8, 64 - s);
    }
    printf(" & 0x%llxull;\n", (1ull << w) - 1);
  }
  printf("}\n\n");
}

/* Emits the stores of pack32_w / pack64_w: each output word is the OR of
** the parts of the values whose bits fall in it. */
static void pack_lsb(int w, int wide) {
  const char *vt = wide ? "uint64_t" : "uint32_t";
  printf("static void pack%d_%d(const %s *in, uint8_t *out) {\n",
         wide ? 64 : 32, w, vt);
  if (w == 0) {
    printf("  (void)in;\n  (void)out;\n}\n\n");
    return;
  }
  if (w < (wide ? 64 : 32)) {
    printf("  const %s m = 0x%llx%s;\n", vt, (1ull << w) - 1,
           wide ? "ull" : "u");
  }
  const char *mask = w < (wide ? 64 : 32) ? " & m" : "";
  for (int k = 0; k < w; k++) {
    int first = 1;
    printf("  pq_store32(out + %d, ", 4 * k);
    for (int i = 0; i < 32; i++) {
      int b = i * w, e = b + w; /* value bits [b, e) */
      if (e <= 32 * k || b >= 32 * k + 32) continue;
      printf("%s", first ? "" : "\n      | ");
      first = 0;
      int shift = b - 32 * k;
      if (shift >= 0)
        printf("(uint32_t)((in[%d]%s) << %d)", i, mask, shift);
      else
        printf("(uint32_t)((in[%d]%s) >> %d)", i, mask, -shift);
    }
    printf(");\n");
  }
  printf("}\n\n");
}

static void unpack32_msb(int w) {
  printf("static void unpack32_msb_%d(const uint8_t *in, uint32_t *out) {\n",
         w);
  if (w == 0) {
    printf("  (void)in;\n  memset(out, 0, 32 * sizeof *out);\n}\n\n");
    return;
  }
  loads(w, 1);
  for (int i = 0; i < 32; i++) {
    int b = i * w, k = b / 32, s = b % 32;
    printf("  out[%d] = ", i);
    if (w == 32) {
      printf("w%d;\n", k);
    } else if (s + w <= 32) {
      printf("(w%d >> %d) & 0x%xu;\n", k, 32 - s - w, (1u << w) - 1);
    } else {
      printf("((w%d << %d) | (w%d >> %d)) & 0x%xu;\n", k, s + w - 32, k + 1,
             64 - s - w, (1u << w) - 1);
    }
  }
  printf("}\n\n");
}

static void pack32_msb(int w) {
  printf("static void pack32_msb_%d(const uint32_t *in, uint8_t *out) {\n", w);
  if (w == 0) {
    printf("  (void)in;\n  (void)out;\n}\n\n");
    return;
  }
  if (w < 32) printf("  const uint32_t m = 0x%xu;\n", (1u << w) - 1);
  const char *mask = w < 32 ? " & m" : "";
  for (int k = 0; k < w; k++) {
    int first = 1;
    printf("  pq_store32be(out + %d, ", 4 * k);
    for (int i = 0; i < 32; i++) {
      int b = i * w, e = b + w;
      if (e <= 32 * k || b >= 32 * k + 32) continue;
      printf("%s", first ? "" : "\n      | ");
      first = 0;
      /* The value's last bit lands at big-endian position e-1; in word k
      ** that is bit 31-(e-1-32k) from the bottom. */
      int shift = 32 * k + 32 - e;
      if (shift >= 0)
        printf("((in[%d]%s) << %d)", i, mask, shift);
      else
        printf("((in[%d]%s) >> %d)", i, mask, -shift);
    }
    printf(");\n");
  }
  printf("}\n\n");
}

/* The AVX2 form of unpack32_w for w 1..31: 8 values a step, four in
** each 128-bit lane.  A lane holds 16 bytes loaded from where its first
** value begins (or, near the end, the last 16 of the 4*w bytes, so that no
** load reaches past them; the 4*w bytes of w < 4 are loaded alone, the
** rest of the lane zeros).  A byte shuffle puts the 4 bytes from each value's
** first byte into its 32-bit slot, a variable shift drops the bits below
** it; a value that needs a fifth byte (w > 25) gets it from a second
** shuffle, shifted left into place.
**
** With msb, the same for unpack32_msb_w: the shuffle puts the 4 bytes in
** big-endian order, so the slot reads as the stream does, most significant
** bit first, and the shift by 32 - (bit offset) - w drops the bits after
** the value.  A value over 4 bytes takes instead the 4 bytes ending at its
** last byte, which hold all but its top 8 - (bit offset) bits, and those
** from its first byte in the second shuffle, shifted left above the rest. */
static void unpack32_avx2(int w, int msb) {
  int bytes = 4 * w, small = bytes < 16;
  printf("PQ_AVX2 static void unpack32_%savx2_%d(const uint8_t *in, "
         "uint32_t *out) {\n",
         msb ? "msb_" : "", w);
  if (small) { /* 4, 8 or 12 bytes, the rest zeros */
    printf("  const __m128i src = ");
    if (w == 1) printf("_mm_cvtsi32_si128((int)pq_load32(in));\n");
    if (w == 2) printf("_mm_loadl_epi64((const __m128i *)in);\n");
    if (w == 3)
      printf("_mm_insert_epi32(_mm_loadl_epi64((const __m128i *)in),\n"
             "      (int)pq_load32(in + 8), 2);\n");
  }
  int five = 0;
  for (int i = 0; i < 32; i++) five |= (i * w) % 8 + w > 32;
  /* The load offset of each half group of 4 values. */
  int at[8];
  for (int h = 0; h < 8; h++) {
    int first = (4 * h * w) / 8;
    at[h] = small ? 0 : first + 16 > bytes ? bytes - 16 : first;
  }
  for (int h = 0; h < 8; h++) {
    if (small)
      printf("  const __m128i l%d = src;\n", h);
    else
      printf("  const __m128i l%d = _mm_loadu_si128((const __m128i *)(in + "
             "%d));\n",
             h, at[h]);
  }
  printf("  const __m256i m = _mm256_set1_epi32(0x%x);\n", (1u << w) - 1);
  for (int g = 0; g < 4; g++) {
    int idx[32], idx5[32], sh[8], sh5[8];
    for (int j = 0; j < 8; j++) {
      int h = 2 * g + j / 4, i = 8 * g + j, b = i * w, first = b / 8;
      int rel = first - at[h], s = b % 8;
      int need5 = s + w > 32;
      int last = (b + w - 1) / 8; /* the value's last byte */
      if (rel < 0 || last - at[h] >= 16) {
        fprintf(stderr, "gen_bitpack: width %d value %d outside its lane\n",
                w, i);
        exit(1);
      }
      if (!msb) {
        sh[j] = s;
        sh5[j] = need5 ? 8 - s : 32;
        for (int k = 0; k < 4; k++) {
          int bi = rel + k;
          idx[4 * j + k] = first + k < bytes && bi < 16 ? bi : 0x80;
          idx5[4 * j + k] = need5 && k == 3 ? rel + 4 : 0x80;
        }
      } else {
        /* The window's first byte: the value's, or with a fifth byte the
        ** one after it (then its last byte is last, inside the lane).  Its
        ** bytes past the stream or the lane come after the value: zeros. */
        int from = need5 ? rel + 1 : rel;
        sh[j] = need5 ? 40 - s - w : 32 - s - w;
        sh5[j] = need5 ? s + w - 8 : 32;
        for (int k = 0; k < 4; k++) {
          int bi = from + 3 - k; /* the lane's low byte is the last one */
          idx[4 * j + k] = at[h] + bi < bytes && bi < 16 ? bi : 0x80;
          idx5[4 * j + k] = need5 && k == 0 ? rel : 0x80;
        }
      }
    }
    printf("  {\n    const __m256i v = _mm256_inserti128_si256("
           "_mm256_castsi128_si256(l%d), l%d, 1);\n",
           2 * g, 2 * g + 1);
    printf("    __m256i x = _mm256_srlv_epi32(_mm256_shuffle_epi8(v, "
           "_mm256_setr_epi8(");
    for (int k = 0; k < 32; k++)
      printf("%s%d", k ? "," : "", idx[k] == 0x80 ? -128 : idx[k]);
    printf(")),\n        _mm256_setr_epi32(");
    for (int j = 0; j < 8; j++) printf("%s%d", j ? "," : "", sh[j]);
    printf("));\n");
    if (five) {
      printf("    x = _mm256_or_si256(x, _mm256_sllv_epi32(_mm256_shuffle_epi8("
             "v, _mm256_setr_epi8(");
      for (int k = 0; k < 32; k++)
        printf("%s%d", k ? "," : "", idx5[k] == 0x80 ? -128 : idx5[k]);
      printf(")),\n        _mm256_setr_epi32(");
      for (int j = 0; j < 8; j++) printf("%s%d", j ? "," : "", sh5[j]);
      printf(")));\n");
    }
    printf("    _mm256_storeu_si256((__m256i *)(out + %d), "
           "_mm256_and_si256(x, m));\n  }\n",
           8 * g);
  }
  printf("}\n\n");
}

/* The AVX2 form of pack32_w (lsb) or pack32_msb_w for w 1..31: 8 values a
** step, w bytes, four in each 128-bit lane.  Neighbouring values are first
** joined into 64-bit pairs of 2w bits.  A lane's two pairs and the bits
** before them in its first byte (none in the low lane; 4w mod 8 in the
** high one, which starts at byte w/2) make at most 128 bits, built as two
** 64-bit halves: each half takes its own pair and, from a copy with the
** halves swapped, the other one, each moved to its place by variable
** shifts left or right (a count of 64 or more gives zeros).  In MSB order
** the lane's bytes are then reversed.  For odd w the lanes share byte w/2:
** the high one takes the low one's part of it.  Each lane is stored as 16
** bytes, so the last step writes zeros to up to 15 bytes after the 4*w. */
static void pack32_avx2(int w, int msb) {
  printf("PQ_AVX2 static void pack32_%savx2_%d(const uint32_t *in, "
         "uint8_t *out) {\n",
         msb ? "msb_" : "", w);
  printf("  const __m256i m = _mm256_set1_epi32(0x%x);\n", (1u << w) - 1);
  if (!msb) printf("  const __m256i lo32 = _mm256_set1_epi64x(0xffffffff);\n");
  int beta[2] = {0, (4 * w) % 8};
  int use_l[2], use_r[2];
  for (int src = 0; src < 2; src++) { /* the pairs, then the swapped copy */
    int left[4], right[4];
    use_l[src] = use_r[src] = 0;
    for (int q = 0; q < 4; q++) { /* 64-bit quarter: lane q/2, half q%2 */
      int h = q % 2, k = src ? 1 - h : h, b = beta[q / 2];
      /* Where the pair's lowest bit goes in the lane's 128. */
      int pos = msb ? 128 - b - (2 * k + 2) * w : b + 2 * k * w;
      int sh = pos - 64 * h;
      left[q] = sh >= 0 && sh < 64 ? sh : 64;
      right[q] = sh < 0 && -sh < 2 * w ? -sh : 64;
      use_l[src] |= left[q] < 64;
      use_r[src] |= right[q] < 64;
    }
    if (use_l[src])
      printf("  const __m256i l%d = _mm256_setr_epi64x(%d, %d, %d, %d);\n", src,
             left[0], left[1], left[2], left[3]);
    if (use_r[src])
      printf("  const __m256i r%d = _mm256_setr_epi64x(%d, %d, %d, %d);\n", src,
             right[0], right[1], right[2], right[3]);
  }
  if (msb) {
    printf("  const __m256i rev = _mm256_setr_epi8(");
    for (int k = 0; k < 32; k++) printf("%s%d", k ? "," : "", 15 - k % 16);
    printf(");\n");
  }
  printf("  for (int g = 0; g < 4; g++) {\n"
         "    const __m256i x = _mm256_and_si256(\n"
         "        _mm256_loadu_si256((const __m256i *)(in + 8 * g)), m);\n");
  if (msb)
    printf("    const __m256i p0 = _mm256_or_si256(_mm256_srli_epi64(\n"
           "        _mm256_slli_epi64(x, 32), %d), _mm256_srli_epi64(x, 32));\n",
           32 - w);
  else
    printf("    const __m256i p0 = _mm256_or_si256(_mm256_and_si256(x, lo32),\n"
           "        _mm256_slli_epi64(_mm256_srli_epi64(x, 32), %d));\n",
           w);
  printf("    const __m256i p1 = _mm256_shuffle_epi32(p0, 0x4e);\n"
         "    __m256i a = _mm256_setzero_si256();\n");
  for (int src = 0; src < 2; src++) {
    if (use_l[src])
      printf("    a = _mm256_or_si256(a, _mm256_sllv_epi64(p%d, l%d));\n", src,
             src);
    if (use_r[src])
      printf("    a = _mm256_or_si256(a, _mm256_srlv_epi64(p%d, r%d));\n", src,
             src);
  }
  if (msb) printf("    a = _mm256_shuffle_epi8(a, rev);\n");
  printf("    const __m128i lo = _mm256_castsi256_si128(a);\n"
         "    __m128i hi = _mm256_extracti128_si256(a, 1);\n");
  if (w % 2) printf("    hi = _mm_or_si128(hi, _mm_bsrli_si128(lo, %d));\n", w / 2);
  printf("    _mm_storeu_si128((__m128i *)(out + %d * g), lo);\n"
         "    _mm_storeu_si128((__m128i *)(out + %d * g + %d), hi);\n"
         "  }\n}\n\n",
         w, w, w / 2);
}

static void table(const char *type, const char *name, int maxw) {
  printf("static %s const %s_table[%d] = {\n", type, name, maxw + 1);
  for (int w = 0; w <= maxw; w++)
    printf("  %s_%d,%s", name, w, (w % 4 == 3 || w == maxw) ? "\n" : "");
  printf("};\n\n");
}

int main(void) {
  printf(
      "/* Generated by tools/gen_bitpack.c -- do not edit by hand.\n"
      "** Regenerate with `make gen`; `make test` checks it is current. */\n"
      "/* clang-format off */\n\n");
  for (int w = 0; w <= 32; w++) unpack32(w);
  for (int w = 0; w <= 64; w++) unpack64(w);
  for (int w = 0; w <= 32; w++) pack_lsb(w, 0);
  for (int w = 0; w <= 64; w++) pack_lsb(w, 1);
  for (int w = 0; w <= 32; w++) unpack32_msb(w);
  for (int w = 0; w <= 32; w++) pack32_msb(w);
  printf(
      "typedef void (*unpack32_fn)(const uint8_t *, uint32_t *);\n"
      "typedef void (*unpack64_fn)(const uint8_t *, uint64_t *);\n"
      "typedef void (*pack32_fn)(const uint32_t *, uint8_t *);\n"
      "typedef void (*pack64_fn)(const uint64_t *, uint8_t *);\n\n");
  table("unpack32_fn", "unpack32", 32);
  table("unpack64_fn", "unpack64", 64);
  table("pack32_fn", "pack32", 32);
  table("pack64_fn", "pack64", 64);
  table("unpack32_fn", "unpack32_msb", 32);
  table("pack32_fn", "pack32_msb", 32);
  printf("#ifdef PQ_BITPACK_AVX2\n");
  /* Widths 0 and 32 in 32-byte stores too, which a 32-byte load of the
  ** values can take straight from the store buffer. */
  printf("PQ_AVX2 static void unpack32_avx2_0(const uint8_t *in, "
         "uint32_t *out) {\n  (void)in;\n"
         "  for (int i = 0; i < 32; i += 8)\n"
         "    _mm256_storeu_si256((__m256i *)(out + i), "
         "_mm256_setzero_si256());\n}\n\n");
  for (int w = 1; w < 32; w++) unpack32_avx2(w, 0);
  printf("PQ_AVX2 static void unpack32_avx2_32(const uint8_t *in, "
         "uint32_t *out) {\n"
         "  for (int i = 0; i < 32; i += 8)\n"
         "    _mm256_storeu_si256((__m256i *)(out + i),\n"
         "        _mm256_loadu_si256((const __m256i *)(in + 4 * i)));\n"
         "}\n\n");
  printf("static unpack32_fn const unpack32_avx2_table[33] = {\n");
  for (int w = 0; w <= 32; w++)
    printf("%sunpack32_avx2_%d,%s", w % 4 ? " " : "  ", w,
           w % 4 == 3 || w == 32 ? "\n" : "");
  printf("};\n\n");
  /* Width 0 is the same zeros; 32 is each word's bytes reversed. */
  for (int w = 1; w < 32; w++) unpack32_avx2(w, 1);
  printf("PQ_AVX2 static void unpack32_msb_avx2_32(const uint8_t *in, "
         "uint32_t *out) {\n"
         "  const __m256i r = _mm256_setr_epi8(");
  for (int k = 0; k < 32; k++)
    printf("%s%d", k ? "," : "", (k & ~3) % 16 + 3 - k % 4);
  printf(");\n"
         "  for (int i = 0; i < 32; i += 8)\n"
         "    _mm256_storeu_si256((__m256i *)(out + i), _mm256_shuffle_epi8(\n"
         "        _mm256_loadu_si256((const __m256i *)(in + 4 * i)), r));\n"
         "}\n\n");
  printf("static unpack32_fn const unpack32_msb_avx2_table[33] = {\n");
  for (int w = 0; w <= 32; w++)
    printf("%sunpack32_%savx2_%d,%s", w % 4 ? " " : "  ", w ? "msb_" : "", w,
           w % 4 == 3 || w == 32 ? "\n" : "");
  printf("};\n\n");
  /* The packers: width 0 and 32 are the portable ones (nothing to write;
  ** whole words), which write exactly 4*w bytes. */
  for (int msb = 0; msb < 2; msb++) {
    for (int w = 1; w < 32; w++) pack32_avx2(w, msb);
    printf("static pack32_fn const pack32_%savx2_table[33] = {\n",
           msb ? "msb_" : "");
    for (int w = 0; w <= 32; w++)
      printf("%spack32_%s%s%d,%s", w % 4 ? " " : "  ", msb ? "msb_" : "",
             w % 32 ? "avx2_" : "", w, w % 4 == 3 || w == 32 ? "\n" : "");
    printf("};\n\n");
  }
  printf("#endif\n");
  return 0;
}
