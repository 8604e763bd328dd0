/*
** explain_alp.c -- an ALP stream field by field (spec/AlpEncoding.md):
**
**   header.compression_mode ... header.num_elements   the 7-byte header
**   offsets[k]                                         where vector k is
**   vector[k].exponent, .factor, .num_exceptions       AlpInfo
**   vector[k].frame_of_reference, .bit_width           ForInfo
**   vector[k].packed_values                            all the deltas
**   vector[k].value[i]                                 one delta, with the
**                                                      arithmetic that
**                                                      decodes it
**   vector[k].padding                                  the last byte's rest
**   vector[k].exception_positions[j], ...values[j]     the exceptions
**
** Each vector is read with the decoder's own checks (pq_alp_vector_read),
** so a stream is explained as faulty where, and in the words with which,
** the decoder rejects it.  Which values are exceptions is known before
** their rows: a bitmap of the vector's positions (at most 2^15 bits).
*/
#include "explain.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define NO_EXC 0xFFFF /* positions are below 2^15, so exceptions too */

static unsigned ld16(const uint8_t *p) {
  return (unsigned)p[0] | (unsigned)p[1] << 8;
}

enum {
  A_HEADER,  /* the header's fields, x->i of them shown */
  A_OFFSETS, /* offsets[k] */
  A_VECTOR,  /* reads vector k; its gap, if any; its exponent */
  A_FACTOR,
  A_NEXC,
  A_FOR,
  A_WIDTH,
  A_PACKED,
  A_VALUE,
  A_PAD,
  A_POS,
  A_EXC,
  A_REST,
  A_DONE
};

typedef struct alp_walk {
  pq_alp_page pg;
  int page_rc;          /* what reading the header said */
  pq_error page_err;
  int field;            /* the next header field */
  uint32_t k;           /* the vector */
  size_t next_min;      /* where it may begin at the earliest */
  pq_alp_vector v;
  int gap_shown;
  uint32_t i;           /* the next value, position or exception */
  uint64_t before;      /* values of the vectors before this one */
  double mf, me;        /* 10^f and 10^-e, of the type */
  uint16_t exc[1 << 15];/* of value i of the vector: the exception that
                        ** replaces it (the last, as decoding patches them
                        ** in order), or NO_EXC */
} alp_walk;

/* The shortest decimal that reads back as x (FLOAT: as the float x), without
** an exponent from 10^-6 to 10^17: 1500, 333.5, 0.001. */
static void alp_num(char *out, size_t cap, double x, int dbl) {
  if (isnan(x)) {
    snprintf(out, cap, "NaN");
    return;
  }
  if (isinf(x)) {
    snprintf(out, cap, x < 0 ? "-Infinity" : "Infinity");
    return;
  }
  if (x == 0) {
    snprintf(out, cap, signbit(x) ? "-0" : "0");
    return;
  }
  int prec = 1;
  for (;; prec++) { /* 17 digits always read back */
    snprintf(out, cap, "%.*e", prec - 1, x);
    if (prec == 17 ||
        (dbl ? strtod(out, NULL) == x : strtof(out, NULL) == (float)x))
      break;
  }
  int ex = atoi(strchr(out, 'e') + 1); /* as printed, after rounding */
  if (ex >= -6 && ex < 17) {
    int decimals = prec - 1 - ex;
    snprintf(out, cap, "%.*f", decimals > 0 ? decimals : 0, x);
  }
}

/* The value bits of a FLOAT or DOUBLE at p, described. */
static void alp_value_at(pq_field *f, const alp_walk *a, const uint8_t *p,
                         char *d, size_t cap) {
  if (a->pg.dbl) {
    double x;
    memcpy(&x, p, 8);
    ex_value(f, PQ_DOUBLE, 0, &x);
    alp_num(d, cap, x, 1);
  } else {
    float x;
    memcpy(&x, p, 4);
    ex_value(f, PQ_FLOAT, 0, &x);
    alp_num(d, cap, x, 0);
  }
}

/* The row of one of vector k's integer fields: where, its bits, its value. */
static void vec_field(pq_field *f, const uint8_t *buf, size_t at, size_t len,
                      uint32_t k, const char *name, int64_t v) {
  ex_row(f, at, len, "vector[%u].%s", k, name);
  ex_bits_bytes(f, buf + at, len);
  f->kind = PQ_FV_INT;
  f->i = v;
}

static int alp_step(pq_explainer *x, pq_field *f) {
  alp_walk *a = (alp_walk *)(void *)x->prev.data;
  const uint8_t *buf = x->buf;
  pq_alp_page *pg = &a->pg;
  pq_alp_vector *v = &a->v;
  for (;;) switch (x->phase) {
    case A_HEADER: {
      static const struct {
        size_t at, len;
        const char *name;
      } F[] = {{0, 1, "compression_mode"},
               {1, 1, "integer_encoding"},
               {2, 1, "log_vector_size"},
               {3, 4, "num_elements"}};
      int j = a->field;
      /* A fault in the header is told after the field it is in. */
      if (j == 4 || F[j].at + F[j].len > x->len ||
          (a->page_rc && x->len >= 7 && F[j].at > pg->fault_at)) {
        if (a->page_rc) {
          return ex_fault(x, f, x->len < 7 ? 0 : pg->fault_at, &a->page_err);
        }
        x->phase = A_OFFSETS;
        a->k = 0;
        break;
      }
      a->field++;
      const uint8_t *p = buf + F[j].at;
      ex_row(f, F[j].at, F[j].len, "header.%s", F[j].name);
      ex_bits_bytes(f, p, F[j].len);
      f->kind = PQ_FV_INT;
      if (j == 0) {
        f->i = p[0];
        ex_note(f, p[0] == 0 ? "0: ALP, the only mode the spec defines"
                             : "%u: a mode the spec reserves",
                p[0]);
      } else if (j == 1) {
        f->i = p[0];
        ex_note(f, p[0] == 0 ? "0: frame of reference and bit packing, the "
                               "only integer encoding the spec defines"
                             : "%u: an integer encoding the spec reserves",
                p[0]);
      } else if (j == 2) {
        f->i = p[0];
        if (p[0] >= 3 && p[0] <= 15)
          ex_note(f, "vectors of 2^%u = %u values", p[0], 1u << p[0]);
        else
          ex_note(f, "2^%u values a vector: the spec allows 2^3 to 2^15",
                  p[0]);
      } else {
        int32_t n = (int32_t)pq_load32(p);
        f->i = n;
        ex_note(f, "int32, little endian: %d value%s", n, ex_s((uint64_t)n));
        if (!a->page_rc) {
          uint32_t last = pg->total - (pg->nvec ? pg->nvec - 1 : 0) * pg->vs;
          if (pg->nvec > 1 && last < pg->vs)
            ex_note_add(f, ", in %u vectors: %u of %u and the last of %u",
                        pg->nvec, pg->nvec - 1, pg->vs, last);
          else
            ex_note_add(f, ", in %u vector%s of %u", pg->nvec,
                        ex_s(pg->nvec), pg->nvec ? last : 0);
        }
      }
      return 1;
    }
    case A_OFFSETS: {
      if (a->k == pg->nvec) {
        x->phase = A_VECTOR;
        a->k = 0;
        a->next_min = 7 + (size_t)4 * pg->nvec;
        break;
      }
      size_t at = 7 + (size_t)4 * a->k;
      uint32_t rel = pq_load32(buf + at);
      ex_row(f, at, 4, "offsets[%u]", a->k);
      ex_bits_bytes(f, buf + at, 4);
      f->kind = PQ_FV_INT;
      f->i = rel;
      ex_note(f, "uint32, little endian: vector %u begins %u bytes after "
              "the header, at byte %llu of the stream",
              a->k, rel, (unsigned long long)rel + 7);
      a->k++;
      return 1;
    }
    case A_VECTOR: {
      if (a->k == pg->nvec) {
        x->phase = A_REST;
        break;
      }
      pq_error err;
      if (!a->gap_shown) {
        if (pq_alp_vector_read(pg, buf, x->len, a->k, a->next_min, v, &err)) {
          size_t at = v->at < x->len ? v->at : 7 + (size_t)4 * a->k;
          return ex_fault(x, f, at, &err);
        }
        a->gap_shown = 1;
        if (v->at > a->next_min) {
          ex_row(f, a->next_min, v->at - a->next_min, "vector[%u].gap", a->k);
          ex_note(f, "%zu byte%s before vector %u that no offset points to: "
                  "not read (a writer puts none)",
                  v->at - a->next_min, ex_s(v->at - a->next_min), a->k);
          return 1;
        }
      }
      a->gap_shown = 0;
      for (uint32_t i = 0; i < v->n; i++) a->exc[i] = NO_EXC;
      for (unsigned j = 0; j < v->nexc; j++)
        a->exc[ld16(buf + v->pos_at + 2 * j)] = (uint16_t)j;
      if (pg->dbl) {
        a->mf = pq_alp_pow10(0)[v->f];
        a->me = pq_alp_pow10(1)[v->e];
      } else {
        a->mf = pq_alp_pow10f(0)[v->f];
        a->me = pq_alp_pow10f(1)[v->e];
      }
      vec_field(f, buf, v->at, 1, a->k, "exponent", v->e);
      ex_note(f, "e = %u: values %llu to %llu were encoded as round(value x "
              "10^%u x 10^-%u)",
              v->e, (unsigned long long)a->before,
              (unsigned long long)(a->before + v->n - 1), v->e, v->f);
      x->phase = A_FACTOR;
      return 1;
    }
    case A_FACTOR:
      vec_field(f, buf, v->at + 1, 1, a->k, "factor", v->f);
      ex_note(f, "f = %u: decoding multiplies each integer by 10^%u, then "
              "by 10^-%u, rounding each product to a %s",
              v->f, v->f, v->e, pg->dbl ? "DOUBLE" : "FLOAT");
      x->phase = A_NEXC;
      return 1;
    case A_NEXC:
      vec_field(f, buf, v->at + 2, 2, a->k, "num_exceptions", v->nexc);
      ex_note(f, "uint16, little endian: %u value%s stored as %s, bit for "
              "bit, after the packed values",
              v->nexc, ex_s(v->nexc), v->nexc == 1 ? "it is" : "they are");
      x->phase = A_FOR;
      return 1;
    case A_FOR: {
      size_t n = pg->dbl ? 8 : 4;
      vec_field(f, buf, v->at + 4, n, a->k, "frame_of_reference", v->ref);
      ex_note(f, "%s, little endian: %lld, the least integer of the vector; "
              "each packed value is added to it",
              pg->dbl ? "int64" : "int32", (long long)v->ref);
      x->phase = A_WIDTH;
      return 1;
    }
    case A_WIDTH: {
      size_t at = v->at + pg->vhdr - 1;
      vec_field(f, buf, at, 1, a->k, "bit_width", v->w);
      if (v->w)
        ex_note(f, "%u values x %d bit%s = %zu byte%s of packed values",
                v->n, v->w, ex_s((uint64_t)v->w), v->packed,
                ex_s(v->packed));
      else
        ex_note(f, "0: every value's integer is the frame of reference; no "
                "bytes are packed");
      x->phase = v->w ? A_PACKED : A_VALUE;
      a->i = 0;
      return 1;
    }
    case A_PACKED: {
      size_t at = v->at + pg->vhdr;
      ex_row(f, at, v->packed, "vector[%u].packed_values", a->k);
      ex_bits_bytes(f, buf + at, v->packed);
      ex_labels(f, v->packed, v->n, v->w, 0);
      ex_note(f, "%u values' distances from the frame of reference, %d bit%s "
              "each, packed from the least significant bit",
              v->n, v->w, ex_s((uint64_t)v->w));
      x->phase = A_VALUE;
      return 1;
    }
    case A_VALUE: {
      if (a->i == v->n) {
        x->phase = A_PAD;
        break;
      }
      uint32_t i = a->i++;
      size_t at = v->at + pg->vhdr;
      uint64_t bit = (uint64_t)i * (uint64_t)v->w, delta = 0;
      if (v->w) pq_unpack_lsb(buf + at, bit, v->w, 1, &delta);
      ex_row(f, at + bit / 8, v->w ? (bit % 8 + (uint64_t)v->w + 7) / 8 : 0,
             "vector[%u].value[%u]", a->k, i);
      ex_bits_value(f, delta, v->w);
      /* The decoder's arithmetic, in the type's precision. */
      long long q;
      double dec;
      int wrapped;
      if (pg->dbl) {
        q = (long long)(int64_t)((uint64_t)v->ref + delta);
        wrapped = q < v->ref;
        dec = (double)q * a->mf * a->me;
      } else {
        int32_t q32 = (int32_t)((uint32_t)v->ref + (uint32_t)delta);
        q = q32;
        wrapped = q < v->ref;
        dec = (double)((float)q32 * (float)a->mf * (float)a->me);
      }
      char d[64];
      alp_num(d, sizeof d, dec, pg->dbl);
      ex_note(f, "%lld + %llu = %lld%s; %lld x 10^%u x 10^-%u = %s",
              (long long)v->ref, (unsigned long long)delta, q,
              wrapped ? " (wrapping around)" : "", q, v->f, v->e, d);
      unsigned j = a->exc[i];
      if (j != NO_EXC) {
        char e[64];
        alp_value_at(f, a, buf + v->exc_at + (size_t)j * pg->vsz, e,
                     sizeof e);
        ex_note_add(f, ", a placeholder: exception %u replaces it, value "
                    "%llu of the stream is %s",
                    j, (unsigned long long)(a->before + i), e);
      } else {
        if (pg->dbl) {
          ex_value(f, PQ_DOUBLE, 0, &dec);
        } else {
          float fl = (float)dec;
          ex_value(f, PQ_FLOAT, 0, &fl);
        }
        ex_note_add(f, ", value %llu of the stream",
                    (unsigned long long)(a->before + i));
      }
      if (a->before + i >= x->limit) ex_note_add(f, " (past the count)");
      return 1;
    }
    case A_PAD: {
      x->phase = A_POS;
      a->i = 0;
      uint64_t used = (uint64_t)v->n * (uint64_t)v->w;
      if (used % 8 == 0) break;
      ex_row(f, v->at + pg->vhdr + used / 8, 1, "vector[%u].padding", a->k);
      ex_note(f, "the last byte's top %d bit%s: padding, whatever they are",
              (int)(8 - used % 8), ex_s(8 - used % 8));
      return 1;
    }
    case A_POS: {
      if (a->i == v->nexc) {
        x->phase = A_EXC;
        a->i = 0;
        break;
      }
      uint32_t j = a->i++;
      size_t at = v->pos_at + 2 * (size_t)j;
      unsigned p = ld16(buf + at);
      ex_row(f, at, 2, "vector[%u].exception_positions[%u]", a->k, j);
      ex_bits_bytes(f, buf + at, 2);
      f->kind = PQ_FV_INT;
      f->i = p;
      ex_note(f, "uint16, little endian: exception %u replaces value %u of "
              "the vector, value %llu of the stream",
              j, p, (unsigned long long)(a->before + p));
      return 1;
    }
    case A_EXC: {
      if (a->i == v->nexc) {
        a->before += v->n;
        a->next_min = v->end;
        a->k++;
        x->phase = A_VECTOR;
        break;
      }
      uint32_t j = a->i++;
      size_t at = v->exc_at + (size_t)j * pg->vsz;
      ex_row(f, at, pg->vsz, "vector[%u].exception_values[%u]", a->k, j);
      char d[64];
      alp_value_at(f, a, buf + at, d, sizeof d);
      ex_bits_bytes(f, buf + at, pg->vsz);
      unsigned long long bits = pg->dbl ? (unsigned long long)pq_load64(buf + at)
                                        : pq_load32(buf + at);
      ex_note(f, "%s, stored bit for bit (0x%0*llX)",
              d, pg->dbl ? 16 : 8, bits);
      return 1;
    }
    case A_REST:
      x->phase = A_DONE;
      if (a->next_min >= x->len) return 0;
      ex_rest(x, f, a->next_min, "after the last vector: not read");
      return 1;
    default:
      return 0;
  }
}

int ex_alp_open(pq_explainer *x, pq_error *err) {
  /* (pq_params_for_stream has refused other types) */
  if (pq_buf_reserve(&x->prev, sizeof(alp_walk))) return pq_nomem(err, x->enc);
  alp_walk *a = (alp_walk *)(void *)x->prev.data;
  memset(a, 0, sizeof *a);
  a->page_rc = pq_alp_page_read(&a->pg, &x->p, x->buf, x->len, &a->page_err);
  x->step = alp_step;
  return PQ_OK;
}
