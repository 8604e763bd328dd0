/*
** reference.h -- plain scalar decoders, the floor the benchmark measures
** the core against.
**
** Each is the encoding read the simplest way: bytes assembled one at a
** time, bits extracted one at a time, no tables, no batching.  They trust
** their input (the benchmark gives them what the core encoded) and decode
** the whole stream into a caller's array of n values, laid out as the
** core's decoders lay values out.  Each returns 0, or -1 when the stream
** does not hold n values.
*/
#ifndef PQ_BENCH_REFERENCE_H
#define PQ_BENCH_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

#include "parquet.h"

/* PLAIN of every type (BOOLEAN: one byte per value, 0 or 1). */
int ref_plain(const uint8_t *in, size_t len, pq_type t, int32_t type_length,
              size_t n, void *out);
/* The RLE/bit-packed hybrid of bit width w (no length prefix), into
** uint32 values. */
int ref_rle(const uint8_t *in, size_t len, int w, size_t n, uint32_t *out);
/* RLE BOOLEAN values with their 4-byte length, into bytes. */
int ref_rle_bool(const uint8_t *in, size_t len, size_t n, uint8_t *out);
/* BIT_PACKED, most significant bit first. */
int ref_bit_packed(const uint8_t *in, size_t len, int w, size_t n,
                   uint32_t *out);
/* DELTA_BINARY_PACKED into int32 or int64; *used gets the bytes read. */
int ref_dbp(const uint8_t *in, size_t len, int is32, size_t n, void *out,
            size_t *used);
/* Dictionary indices (bit-width byte and runs) and the PLAIN dictionary. */
int ref_dict(const uint8_t *in, size_t len, const uint8_t *dict,
             size_t dict_len, pq_type t, int32_t type_length, size_t n,
             void *out);
int ref_dlba(const uint8_t *in, size_t len, size_t n, pq_bytes *out);
/* DELTA_BYTE_ARRAY: values are rebuilt into heap (at least the decoded
** bytes' size). */
int ref_dba(const uint8_t *in, size_t len, size_t n, pq_bytes *out,
            uint8_t *heap);
int ref_bss(const uint8_t *in, size_t len, size_t width, size_t n,
            void *out);
int ref_gvi(const uint8_t *in, size_t len, int is64, size_t n, void *out);

#endif
