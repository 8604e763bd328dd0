/*
** gen_bitpack.c -- writes src/bitpack_gen.h, the unrolled bit packers.
**
**   cc -o gen_bitpack tools/gen_bitpack.c && ./gen_bitpack > src/bitpack_gen.h
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
*/
#include <stdio.h>

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
    if (s + w <= 32 && at + 4 <= bytes) {
      printf("(pq_load32(in + %d) >> %d) & 0x%xu;\n", at, s, (1u << w) - 1);
    } else {
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
    if (s + w <= 64) {
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
  return 0;
}
