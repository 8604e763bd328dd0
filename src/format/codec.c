/*
** codec.c -- the compression codecs of Parquet pages (spec/Compression.md),
** each through its own library.
**
**   codec         library                what the bytes are
**   UNCOMPRESSED  -                      the page as it is
**   SNAPPY        libsnappy (C API)      one snappy stream: a varint of the
**                                        size, then literals and copies
**   GZIP          zlib                   RFC 1952 members (not the zlib or
**                                        raw deflate framing); reading takes
**                                        any number of them back to back
**   LZO           -                      never supported
**   BROTLI        libbrotlienc, -dec     one RFC 7932 stream
**   LZ4           liblz4                 Hadoop's framing, chunks of
**                                        [BE32 size][BE32 compressed size]
**                                        [LZ4 block]; reading falls back to
**                                        one plain LZ4 block
**   ZSTD          libzstd                RFC 8878 frames
**   LZ4_RAW       liblz4                 one LZ4 block
**
** Decompressing never makes more than the caller's limit and, when the
** caller knows the size, exactly that size.  Where the data states its size
** before the data (snappy's varint, zstd's frame headers), and its bytes
** can make that much, or where the size can be counted without decoding
** (the sequences of an LZ4 block, of each Hadoop chunk), that size is
** checked against the limit and the expected size first and the output is
** allocated once.  An expected size is checked against the most the
** format can make from the input (zstd, gzip) and then allocated once, or
** (brotli, whose best ratio is too large to bound anything) the first
** allocation is at most 64 times the input.  Otherwise (gzip, brotli, zstd
** frames without sizes) the output grows by doubling, never past the bound
** plus the one byte that shows the stream is longer than allowed.
**
** An empty input with no size or size 0 expected is an empty result
** without asking the library: writers emit zero-byte sections for empty
** pages, and they are not valid streams of most formats.
**
** Each library can be left out: -DPQ_NO_SNAPPY, -DPQ_NO_ZLIB, -DPQ_NO_ZSTD,
** -DPQ_NO_LZ4, -DPQ_NO_BROTLI (make WITHOUT=...).  Its codecs are then
** PQ_UNSUPPORTED, with a message that says so.
*/
#include "format.h"
#include <stdio.h>

#ifdef PQ_NO_SNAPPY
#define HAVE_SNAPPY 0
#else
#define HAVE_SNAPPY 1
#include <snappy-c.h>
#endif

#ifdef PQ_NO_ZLIB
#define HAVE_ZLIB 0
#else
#define HAVE_ZLIB 1
#include <zlib.h>
#endif

#ifdef PQ_NO_ZSTD
#define HAVE_ZSTD 0
#else
#define HAVE_ZSTD 1
#define ZSTD_STATIC_LINKING_ONLY /* contexts in the core's memory */
#include <zstd.h>
#include <zstd_errors.h>
#endif

#ifdef PQ_NO_LZ4
#define HAVE_LZ4 0
#else
#define HAVE_LZ4 1
#include <lz4.h>
#endif

#ifdef PQ_NO_BROTLI
#define HAVE_BROTLI 0
#else
#define HAVE_BROTLI 1
#include <brotli/decode.h>
#include <brotli/encode.h>
#endif

/* Compression settings: zlib's and zstd's defaults; brotli's default
** quality (11) is many times slower than 8 for little gain.  A Hadoop LZ4
** chunk holds at most what leaves its compressed form room in Hadoop's
** default 256 KiB buffer. */
#define GZIP_LEVEL 6
#define ZSTD_LEVEL 3
#define BROTLI_QUALITY 8
#define HADOOP_CHUNK (262144 - 262144 / 255 - 16)

static const char *const codec_names[PQ_CODEC_COUNT] = {
    "UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
    "BROTLI",       "LZ4",    "ZSTD", "LZ4_RAW"};

/* The library each codec needs, as WITHOUT= spells it, and whether this
** build has it. */
static const char *const libs[PQ_CODEC_COUNT] = {
    NULL, "snappy", "zlib", NULL, "brotli", "lz4", "zstd", "lz4"};
static const int have[PQ_CODEC_COUNT] = {
    1, HAVE_SNAPPY, HAVE_ZLIB, 0, HAVE_BROTLI, HAVE_LZ4, HAVE_ZSTD, HAVE_LZ4};

/* ---- Names --------------------------------------------------------------- */

int pq_codec_parse(const char *s, size_t n, pq_codec *out) {
  int i = pq_name_lookup(codec_names, sizeof *codec_names, PQ_CODEC_COUNT, s,
                         n);
  if (i < 0) return PQ_MISUSE;
  *out = (pq_codec)i;
  return PQ_OK;
}

int pq_codec_option(const pq_jvalue *v, const char *key, pq_codec *out,
                    pq_error *err) {
  if (v->kind == PQ_JV_NULL) return PQ_OK;
  pq_codec c;
  if (v->kind == PQ_JV_STRING &&
      pq_codec_parse(v->str, strlen(v->str), &c) == PQ_OK) {
    *out = c;
  } else if (v->kind == PQ_JV_INT && v->i >= 0 && v->i < PQ_CODEC_COUNT) {
    *out = (pq_codec)v->i;
  } else {
    return pq_option_fail(err,
                          "\"%s\" must name a codec: UNCOMPRESSED, SNAPPY, "
                          "GZIP, BROTLI, LZ4, ZSTD or LZ4_RAW",
                          key);
  }
  return PQ_OK;
}

const char *pq_codec_name(pq_codec c) {
  return (unsigned)c < PQ_CODEC_COUNT ? codec_names[c] : "?";
}

int pq_codec_available(pq_codec c) {
  return (unsigned)c < PQ_CODEC_COUNT && have[c];
}

/* PQ_OK when this build can use codec c, else the error that says why. */
static int check_codec(pq_codec c, pq_error *err) {
  if ((unsigned)c >= PQ_CODEC_COUNT) {
    return pq_fail(err, PQ_MISUSE, "codec", "unknown codec %d", (int)c);
  }
  if (have[c]) return PQ_OK;
  if (!libs[c])
    return pq_fail(err, PQ_UNSUPPORTED, codec_names[c], "not supported");
  return pq_fail(err, PQ_UNSUPPORTED, codec_names[c],
                 "this build has no %s (made with WITHOUT=%s)", libs[c],
                 libs[c]);
}

/* ---- Decompression: sizes and output ------------------------------------- */

/* "s" unless n is 1, for messages that count bytes. */
static const char *plural(uint64_t n) {
  return n == 1 ? "" : "s";
}

/* One decompression: its input, what its result may be, where it goes. */
typedef struct job {
  const char *name;   /* the codec's name, for messages */
  const uint8_t *src; /* the compressed bytes */
  size_t n;
  int64_t expected; /* the size the result must have, or -1 */
  size_t limit;     /* the most the result may have */
  size_t bound;     /* expected when known, else limit */
  pq_buf *out;      /* the result is appended here ... */
  size_t base;      /* ... after this many bytes */
  pq_error *err;
} job;

/* Makes the output's allocation hold `total` bytes of result (at least
** one, so that a library always gets a real pointer), reallocating to
** exactly that.  PQ_OK or PQ_NOMEM. */
static int hold(job *j, size_t total) {
  pq_buf *b = j->out;
  size_t cap = j->base + (total ? total : 1);
  if (b->oom) return pq_nomem(j->err, j->name);
  if (cap <= b->cap) return PQ_OK;
  uint8_t *p = pq_realloc(b->data, cap);
  if (!p) {
    b->oom = 1;
    return pq_nomem(j->err, j->name);
  }
  b->data = p;
  b->cap = cap;
  return PQ_OK;
}

#if HAVE_ZLIB || HAVE_ZSTD || HAVE_BROTLI
/* Bytes of result so far. */
static size_t made(const job *j) {
  return j->out->len - j->base;
}

/* A first allocation for a stream: `per_byte` times the input, at least
** 4096 bytes, never more than bound + 1. */
static size_t first_size(const job *j, size_t per_byte) {
  size_t most = j->bound + 1;
  size_t want = j->n < most / per_byte ? j->n * per_byte : most;
  if (want < 4096) want = 4096;
  return want < most ? want : most;
}

/* Free room for a stream's next output: *p and *avail (at least 1) span
** what may be written, never past bound + 1 bytes of result.  When there is
** none the allocation doubles what was made (the first time: the expected
** size, or four times the input).  Requires made(j) <= bound. */
static int room(job *j, uint8_t **p, size_t *avail) {
  pq_buf *b = j->out;
  size_t most = j->bound + 1;
  size_t end = j->base + most;
  if ((b->cap < end ? b->cap : end) <= b->len) {
    size_t m = made(j);
    size_t want = m ? m * 2 : j->expected >= 0 ? most : first_size(j, 4);
    int rc = hold(j, want < most ? want : most);
    if (rc) return rc;
  }
  *p = b->data + b->len;
  *avail = (b->cap < end ? b->cap : end) - b->len;
  return PQ_OK;
}
#endif

#if HAVE_ZLIB || HAVE_ZSTD || HAVE_BROTLI || HAVE_LZ4
/* The error for a stream that made more than bound bytes. */
static int too_long(job *j) {
  if (j->expected >= 0) {
    return pq_fail(j->err, PQ_CORRUPT, j->name,
                   "the data decompresses to more than the %lld bytes "
                   "expected",
                   (long long)j->expected);
  }
  return pq_fail(j->err, PQ_TOOBIG, j->name,
                 "the data would exceed the limit of %zu bytes", j->limit);
}
#endif

#if HAVE_ZLIB || HAVE_ZSTD
/* Refuses an expected size more than the input can make (`most` bytes, by
** the format's best ratio) before anything is allocated for it. */
static int within_reach(job *j, const char *format, uint64_t most) {
  if (j->expected < 0 || (uint64_t)j->bound <= most) return PQ_OK;
  return pq_fail(j->err, PQ_CORRUPT, j->name,
                 "%zu byte%s of %s data cannot make the %lld bytes expected",
                 j->n, plural(j->n), format, (long long)j->expected);
}
#endif

/* Checks the size of the whole result, as the data states it before any
** output is made for it, or as a stream made it. */
static int check_size(job *j, uint64_t size) {
  if (j->expected >= 0 && size != (uint64_t)j->expected) {
    return pq_fail(j->err, PQ_CORRUPT, j->name,
                   "the data decompresses to %llu byte%s, %lld expected",
                   (unsigned long long)size, plural(size),
                   (long long)j->expected);
  }
  if (size > j->limit) {
    return pq_fail(j->err, PQ_TOOBIG, j->name,
                   "the data decompresses to %llu bytes, which would exceed "
                   "the limit of %zu bytes",
                   (unsigned long long)size, j->limit);
  }
  return PQ_OK;
}

/* ---- The codecs, each a decompressor and a compressor --------------------
** A decompressor fills j->out from j->src and returns PQ_OK or the error
** (the caller then drops what it made).  A compressor appends to out. */

/* UNCOMPRESSED: the bytes themselves. */
static int copy_dec(job *j) {
  int rc = check_size(j, j->n);
  if (rc == PQ_OK) rc = hold(j, j->n);
  if (rc) return rc;
  memcpy(j->out->data + j->out->len, j->src, j->n);
  j->out->len += j->n;
  return PQ_OK;
}

#if HAVE_SNAPPY
/* SNAPPY: the stream begins with its size as a varint.  No element makes
** more than 64 bytes from 3 (a copy with a 2-byte offset), so a size above
** 64/3 of the input is a lie, refused before it is allocated. */
static int snappy_dec(job *j) {
  size_t size;
  if (snappy_uncompressed_length((const char *)j->src, j->n, &size) ==
          SNAPPY_OK &&
      size / 64 <= j->n / 3) {
    int rc = check_size(j, size);
    if (rc == PQ_OK) rc = hold(j, size);
    if (rc) return rc;
    size_t got = size;
    if (snappy_uncompress((const char *)j->src, j->n,
                          (char *)j->out->data + j->out->len,
                          &got) == SNAPPY_OK &&
        got == size) {
      j->out->len += size;
      return PQ_OK;
    }
  }
  return pq_fail(j->err, PQ_CORRUPT, j->name,
                 "the data is not valid snappy (%zu byte%s)", j->n,
                 plural(j->n));
}

/* Appends src as one snappy stream. */
static int snappy_enc(const uint8_t *src, size_t n, pq_buf *out,
                      pq_error *err) {
  size_t cap = snappy_max_compressed_length(n);
  if (pq_buf_reserve(out, cap)) return pq_nomem(err, "SNAPPY");
  size_t len = cap;
  if (snappy_compress((const char *)src, n, (char *)out->data + out->len,
                      &len) != SNAPPY_OK) {
    return pq_fail(err, PQ_MISUSE, "SNAPPY", "compression failed");
  }
  out->len += len;
  return PQ_OK;
}
#endif

#if HAVE_ZLIB
/* zlib's working memory, from the core's allocator. */
static voidpf zlib_alloc(voidpf opaque, uInt items, uInt size) {
  (void)opaque;
  return pq_calloc(items, size);
}
static void zlib_free(voidpf opaque, voidpf p) {
  (void)opaque;
  pq_free(p);
}
static void zlib_init(z_stream *z) {
  memset(z, 0, sizeof *z);
  z->zalloc = zlib_alloc;
  z->zfree = zlib_free;
}

/* GZIP: members back to back, each inflated in turn; the output grows.
** Deflate makes at most 1032 bytes from one (a 258-byte copy from two
** one-bit codes), which bounds an expected size. */
static int gzip_dec(job *j) {
  int rc = within_reach(j, "gzip", ((uint64_t)j->n + 1) * 1032);
  if (rc) return rc;
  z_stream z;
  zlib_init(&z);
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
    return pq_nomem(j->err, j->name);
  }
  const uint8_t *in = j->src;
  size_t left = j->n; /* input not yet handed to zlib */
  unsigned member = 1;
  for (;;) {
    if (z.avail_in == 0 && left) {
      uInt k = left > UINT_MAX ? UINT_MAX : (uInt)left;
      z.next_in = (Bytef *)in;
      z.avail_in = k;
      in += k;
      left -= k;
    }
    uint8_t *p;
    size_t avail;
    if ((rc = room(j, &p, &avail))) break;
    z.next_out = p;
    z.avail_out = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
    uInt before = z.avail_out;
    int zr = inflate(&z, Z_NO_FLUSH);
    j->out->len += before - z.avail_out;
    if (made(j) > j->bound) {
      rc = too_long(j);
      break;
    }
    if (zr == Z_STREAM_END) {
      if (z.avail_in == 0 && left == 0) break;
      inflateReset(&z); /* another member follows */
      member++;
      continue;
    }
    if (zr == Z_MEM_ERROR) {
      rc = pq_nomem(j->err, j->name);
      break;
    }
    if (zr != Z_OK && zr != Z_BUF_ERROR) {
      rc = pq_fail(j->err, PQ_CORRUPT, j->name,
                   "member %u is not valid gzip (%s)", member,
                   z.msg ? z.msg : "bad data");
      break;
    }
    if (z.avail_in == 0 && left == 0 && z.avail_out > 0) {
      rc = pq_fail(j->err, PQ_CORRUPT, j->name,
                   "the data ends inside member %u (%zu byte%s)", member, j->n,
                   plural(j->n));
      break;
    }
  }
  inflateEnd(&z);
  return rc ? rc : check_size(j, made(j));
}

/* Appends src as one gzip member. */
static int gzip_enc(const uint8_t *src, size_t n, int level, pq_buf *out,
                    pq_error *err) {
  z_stream z;
  zlib_init(&z);
  if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8,
                   Z_DEFAULT_STRATEGY) != Z_OK) {
    return pq_nomem(err, "GZIP");
  }
  size_t left = n;
  int zr = Z_OK;
  if (pq_buf_reserve(out, deflateBound(&z, n))) zr = Z_MEM_ERROR;
  while (zr == Z_OK || zr == Z_BUF_ERROR) {
    if (z.avail_in == 0 && left) {
      uInt k = left > UINT_MAX ? UINT_MAX : (uInt)left;
      z.next_in = (Bytef *)src + (n - left);
      z.avail_in = k;
      left -= k;
    }
    if (out->len == out->cap && pq_buf_reserve(out, 65536)) {
      zr = Z_MEM_ERROR;
      break;
    }
    size_t avail = out->cap - out->len;
    z.next_out = out->data + out->len;
    z.avail_out = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
    uInt before = z.avail_out;
    zr = deflate(&z, left ? Z_NO_FLUSH : Z_FINISH);
    out->len += before - z.avail_out;
  }
  deflateEnd(&z);
  if (zr == Z_STREAM_END) return PQ_OK;
  if (zr == Z_MEM_ERROR) return pq_nomem(err, "GZIP");
  return pq_fail(err, PQ_MISUSE, "GZIP", "compression failed (%d)", zr);
}
#endif

#if HAVE_ZSTD
/* zstd's contexts, in the core's memory. */
static void *zstd_alloc(void *opaque, size_t n) {
  (void)opaque;
  return pq_malloc(n);
}
static void zstd_free(void *opaque, void *p) {
  (void)opaque;
  pq_free(p);
}
static const ZSTD_customMem zstd_mem = {zstd_alloc, zstd_free, NULL};

/* The error of a failed zstd call: out of memory is PQ_NOMEM. */
static int zstd_error(pq_error *err, const char *name, size_t r, int code,
                      const char *what) {
  if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation)
    return pq_nomem(err, name);
  return pq_fail(err, code, name, "%s (%s)", what, ZSTD_getErrorName(r));
}

/* One call of ZSTD_decompressDCtx with a context of the core's memory. */
static size_t zstd_once(job *j, size_t cap) {
  ZSTD_DCtx *d = ZSTD_createDCtx_advanced(zstd_mem);
  if (!d) return (size_t)-ZSTD_error_memory_allocation;
  size_t r = ZSTD_decompressDCtx(d, j->out->data + j->out->len, cap, j->src,
                                 j->n);
  ZSTD_freeDCtx(d);
  return r;
}

/* The total size the frames of src state in their headers, or
** ZSTD_CONTENTSIZE_UNKNOWN when a frame does not say, or says more than its
** bytes can make (no block makes more than 128 KiB from 4 bytes, an RLE
** block), or the frames are not well formed: the stream decoder then says
** what is wrong. */
static unsigned long long zstd_stated_size(const uint8_t *src, size_t n) {
  unsigned long long total = 0;
  size_t at = 0;
  while (at < n) {
    unsigned long long s = ZSTD_getFrameContentSize(src + at, n - at);
    size_t k = ZSTD_findFrameCompressedSize(src + at, n - at);
    if (s == ZSTD_CONTENTSIZE_UNKNOWN || s == ZSTD_CONTENTSIZE_ERROR ||
        ZSTD_isError(k) || s / 32768 > k / 4 ||
        s > ZSTD_CONTENTSIZE_ERROR - 1 - total) {
      return ZSTD_CONTENTSIZE_UNKNOWN;
    }
    total += s;
    at += k;
  }
  return total;
}

/* ZSTD: when every frame states its size, one call into an output of
** exactly that size; otherwise the stream decoder, the output growing. */
static int zstd_dec(job *j) {
  unsigned long long size = zstd_stated_size(j->src, j->n);
  int rc;
  if (size != ZSTD_CONTENTSIZE_UNKNOWN) {
    if ((rc = check_size(j, size)) || (rc = hold(j, (size_t)size))) return rc;
    size_t r = zstd_once(j, (size_t)size);
    if (ZSTD_isError(r)) {
      return zstd_error(j->err, j->name, r, PQ_CORRUPT,
                        "the data is not valid zstd");
    }
    j->out->len += r;
    return check_size(j, r);
  }
  if (j->expected >= 0) {
    /* The size is known from elsewhere (a page header): one call into an
    ** output of that size, which then needs no window of its own.  It is
    ** checked against what the bytes can make first: no block makes more
    ** than 128 KiB from 4 bytes (an RLE block). */
    if ((rc = within_reach(j, "zstd", ((uint64_t)j->n / 4 + 1) * 131072)) ||
        (rc = hold(j, j->bound)))
      return rc;
    size_t r = zstd_once(j, j->bound);
    if (ZSTD_isError(r)) {
      if (ZSTD_getErrorCode(r) == ZSTD_error_dstSize_tooSmall)
        return too_long(j);
      return zstd_error(j->err, j->name, r, PQ_CORRUPT,
                        "the data is not valid zstd");
    }
    j->out->len += r;
    return check_size(j, r);
  }
  /* A stream keeps a window of the size its frame header asks for: no
  ** larger than the limit (and zstd's own default ceiling, 2^27). */
  int wlog = 10;
  while (wlog < 27 && ((size_t)1 << wlog) < j->limit) wlog++;
  ZSTD_DCtx *d = ZSTD_createDCtx_advanced(zstd_mem);
  if (!d) return pq_nomem(j->err, j->name);
  (void)ZSTD_DCtx_setParameter(d, ZSTD_d_windowLogMax, wlog);
  ZSTD_inBuffer in = {j->src, j->n, 0};
  for (;;) {
    uint8_t *p;
    size_t avail;
    if ((rc = room(j, &p, &avail))) break;
    ZSTD_outBuffer o = {p, avail, 0};
    size_t r = ZSTD_decompressStream(d, &o, &in);
    j->out->len += o.pos;
    if (ZSTD_isError(r)) {
      if (ZSTD_getErrorCode(r) == ZSTD_error_frameParameter_windowTooLarge) {
        if (((size_t)1 << wlog) < j->limit) {
          rc = pq_fail(j->err, PQ_CORRUPT, j->name,
                       "the data asks for a window of more than %zu bytes, "
                       "more than zstd allows",
                       (size_t)1 << wlog);
        } else {
          rc = pq_fail(j->err, PQ_TOOBIG, j->name,
                       "the data asks for a window that would exceed the "
                       "limit of %zu bytes",
                       j->limit);
        }
      } else {
        rc = zstd_error(j->err, j->name, r, PQ_CORRUPT,
                        "the data is not valid zstd");
      }
      break;
    }
    if (made(j) > j->bound) {
      rc = too_long(j);
      break;
    }
    if (in.pos == in.size) {
      if (r == 0) break; /* the last frame is complete */
      if (o.pos < o.size) {
        rc = pq_fail(j->err, PQ_CORRUPT, j->name,
                     "the data ends inside a frame (%zu byte%s)", j->n,
                     plural(j->n));
        break;
      }
    }
  }
  ZSTD_freeDCtx(d);
  return rc ? rc : check_size(j, made(j));
}

/* Appends src as one zstd frame, its size in the header. */
static int zstd_enc(const uint8_t *src, size_t n, int level, pq_buf *out,
                    pq_error *err) {
  size_t cap = ZSTD_compressBound(n);
  if (ZSTD_isError(cap)) {
    return pq_fail(err, PQ_RANGE, "ZSTD", "%zu bytes are too many", n);
  }
  if (pq_buf_reserve(out, cap)) return pq_nomem(err, "ZSTD");
  ZSTD_CCtx *c = ZSTD_createCCtx_advanced(zstd_mem);
  if (!c) return pq_nomem(err, "ZSTD");
  size_t r = ZSTD_compressCCtx(c, out->data + out->len, cap, src, n, level);
  ZSTD_freeCCtx(c);
  if (ZSTD_isError(r)) {
    return zstd_error(err, "ZSTD", r, PQ_MISUSE, "compression failed");
  }
  out->len += r;
  return PQ_OK;
}
#endif

#if HAVE_LZ4
/* Walks the sequences of an LZ4 block (lz4_Block_format.md: a token, more
** literal length bytes, the literals, a 2-byte offset, more match length
** bytes; the last sequence has literals only) without decoding them, and
** sets *size to the bytes they make, stopping once that passes `most`
** (*size is then a count so far, above most).
** 0 when the block ends right after literals, 1 when it is malformed or
** cut short. */
static int lz4_walk(const uint8_t *p, size_t n, uint64_t most, uint64_t *size) {
  size_t i = 0;
  uint64_t total = 0;
  while (total <= most) {
    if (i >= n) return 1;
    unsigned token = p[i++];
    uint64_t lit = token >> 4;
    if (lit == 15) {
      uint8_t b;
      do {
        if (i >= n) return 1;
        b = p[i++];
        lit += b;
      } while (b == 255);
    }
    if (lit > n - i) return 1;
    i += lit;
    total += lit;
    if (i == n) break;                                 /* the last sequence */
    if (n - i < 2 || (p[i] | p[i + 1]) == 0) return 1; /* offset 0 */
    i += 2;
    uint64_t match = token & 15;
    if (match == 15) {
      uint8_t b;
      do {
        if (i >= n) return 1;
        b = p[i++];
        match += b;
      } while (b == 255);
    }
    total += match + 4;
  }
  *size = total;
  return 0;
}

/* Decodes one LZ4 block of n bytes that must make exactly `size` bytes
** into the output, where room for them was made.  0, or 1 when the block
** is not valid. */
static int lz4_block(job *j, const uint8_t *src, size_t n, size_t size) {
  if (n > INT_MAX || size > INT_MAX) return 1;
  int r = LZ4_decompress_safe(
      (const char *)src, (char *)j->out->data + j->out->len, (int)n, (int)size);
  if (r < 0 || (size_t)r != size) return 1;
  j->out->len += size;
  return 0;
}

/* LZ4_RAW, and LZ4 data that is not Hadoop-framed: one block, its size
** counted first.  `invalid` is the message for data that is not a block. */
static int lz4_raw_dec(job *j, const char *invalid) {
  uint64_t size;
  if (lz4_walk(j->src, j->n, j->bound, &size)) {
    return pq_fail(j->err, PQ_CORRUPT, j->name, "%s (%zu byte%s)", invalid,
                   j->n, plural(j->n));
  }
  if (size > j->bound) return too_long(j); /* the walk stopped there */
  int rc = check_size(j, size);
  if (rc) return rc;
  if (size > INT_MAX || j->n > INT_MAX) {
    return pq_fail(j->err, PQ_UNSUPPORTED, j->name,
                   "liblz4 handles blocks of at most %d bytes", INT_MAX);
  }
  if ((rc = hold(j, (size_t)size))) return rc;
  if (lz4_block(j, j->src, j->n, (size_t)size)) {
    return pq_fail(j->err, PQ_CORRUPT, j->name, "%s (%zu byte%s)", invalid,
                   j->n, plural(j->n));
  }
  return PQ_OK;
}

/* The big-endian 32-bit number at p. */
static uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

/* Checks that src is whole Hadoop chunks, [BE32 size][BE32 compressed
** size][block], the last one ending at the end, each block walking to the
** size its header states; sets *total to the sum of the sizes.  0 when it
** is, else 1. */
static int hadoop_walk(const uint8_t *p, size_t n, uint64_t *total) {
  uint64_t t = 0, made;
  size_t i = 0;
  if (n < 8) return 1;
  while (i < n) {
    if (n - i < 8) return 1;
    uint32_t size = load_be32(p + i), csize = load_be32(p + i + 4);
    i += 8;
    if (csize > n - i || lz4_walk(p + i, csize, size, &made) || made != size) {
      return 1;
    }
    i += csize;
    t += size;
  }
  *total = t;
  return 0;
}

/* LZ4: Hadoop's framing when the data holds it (so every size it states is
** counted, not trusted), its total size right and every block valid; else
** one plain block, as some writers wrote. */
static int lz4_dec(job *j) {
  uint64_t total = 0;
  int framed = !hadoop_walk(j->src, j->n, &total);
  int sized = framed && (j->expected < 0 || total == (uint64_t)j->expected) &&
              total <= j->limit;
  if (sized) {
    int rc = hold(j, (size_t)total);
    if (rc) return rc;
    size_t i = 0;
    while (i < j->n) {
      uint32_t size = load_be32(j->src + i), csize = load_be32(j->src + i + 4);
      if (lz4_block(j, j->src + i + 8, csize, size)) break;
      i += 8 + (size_t)csize;
    }
    if (i == j->n) return PQ_OK;
    j->out->len = j->base;
  }
  int rc = lz4_raw_dec(
      j, "the data is neither Hadoop-framed LZ4 nor a valid LZ4 block");
  /* Chunks that are sound but of the wrong size: that is the news. */
  if (rc == PQ_CORRUPT && framed && !sized) rc = check_size(j, total);
  return rc;
}

/* Appends src as one LZ4 block. */
static int lz4_block_enc(const uint8_t *src, size_t n, pq_buf *out,
                         const char *name, pq_error *err) {
  if (n > LZ4_MAX_INPUT_SIZE) {
    return pq_fail(err, PQ_RANGE, name,
                   "%zu bytes are more than an LZ4 block holds (%d)", n,
                   LZ4_MAX_INPUT_SIZE);
  }
  int cap = LZ4_compressBound((int)n);
  if (pq_buf_reserve(out, (size_t)cap)) return pq_nomem(err, name);
  int r = LZ4_compress_default((const char *)src, (char *)out->data + out->len,
                               (int)n, cap);
  if (r <= 0) return pq_fail(err, PQ_MISUSE, name, "compression failed");
  out->len += (size_t)r;
  return PQ_OK;
}

/* LZ4: Hadoop chunks of at most HADOOP_CHUNK bytes (one for empty data). */
static int hadoop_enc(const uint8_t *src, size_t n, pq_buf *out,
                      pq_error *err) {
  size_t at = 0;
  do {
    size_t k = n - at < HADOOP_CHUNK ? n - at : HADOOP_CHUNK;
    uint8_t head[8];
    for (int b = 0; b < 4; b++) head[b] = (uint8_t)(k >> (24 - 8 * b));
    pq_buf_append(out, head, 8);
    size_t start = out->len;
    int rc = lz4_block_enc(src + at, k, out, "LZ4", err);
    if (rc) return rc;
    size_t csize = out->len - start;
    for (int b = 0; b < 4; b++) {
      out->data[start - 4 + b] = (uint8_t)(csize >> (24 - 8 * b));
    }
    at += k;
  } while (at < n);
  return PQ_OK;
}
#endif

#if HAVE_BROTLI
/* brotli's working memory, from the core's allocator. */
static void *brotli_alloc(void *opaque, size_t n) {
  (void)opaque;
  return pq_malloc(n);
}
static void brotli_free(void *opaque, void *p) {
  (void)opaque;
  pq_free(p);
}

/* BROTLI: one stream, nothing after it; the output grows.  A few bytes
** can make 16 MiB (one command's copy), so an expected size is no
** promise: the first allocation is at most 64 times the input, and the
** output doubles from there as it is made. */
static int brotli_dec(job *j) {
  int rc = PQ_OK;
  if (j->expected >= 0 && (rc = hold(j, first_size(j, 64)))) return rc;
  BrotliDecoderState *s =
      BrotliDecoderCreateInstance(brotli_alloc, brotli_free, NULL);
  if (!s) return pq_nomem(j->err, j->name);
  const uint8_t *in = j->src;
  size_t left = j->n;
  for (;;) {
    uint8_t *p;
    size_t avail;
    if ((rc = room(j, &p, &avail))) break;
    size_t before = avail;
    BrotliDecoderResult r =
        BrotliDecoderDecompressStream(s, &left, &in, &avail, &p, NULL);
    j->out->len += before - avail;
    if (made(j) > j->bound) {
      rc = too_long(j);
      break;
    }
    if (r == BROTLI_DECODER_RESULT_SUCCESS) {
      if (left) {
        rc = pq_fail(j->err, PQ_CORRUPT, j->name,
                     "%zu byte%s after the end of the stream", left,
                     plural(left));
      }
      break;
    }
    if (r == BROTLI_DECODER_RESULT_ERROR) {
      BrotliDecoderErrorCode e = BrotliDecoderGetErrorCode(s);
      if (e >= BROTLI_DECODER_ERROR_ALLOC_BLOCK_TYPE_TREES &&
          e <= BROTLI_DECODER_ERROR_ALLOC_CONTEXT_MODES) {
        rc = pq_nomem(j->err, j->name);
        break;
      }
      rc = pq_fail(j->err, PQ_CORRUPT, j->name,
                   "the data is not valid brotli (%s)",
                   BrotliDecoderErrorString(BrotliDecoderGetErrorCode(s)));
      break;
    }
    if (r == BROTLI_DECODER_RESULT_NEEDS_MORE_INPUT) {
      rc = pq_fail(j->err, PQ_CORRUPT, j->name,
                   "the data ends inside the stream (%zu byte%s)", j->n,
                   plural(j->n));
      break;
    }
    if (avail) { /* wants more output with room left: never seen */
      rc = pq_fail(j->err, PQ_CORRUPT, j->name, "the decoder stalled");
      break;
    }
  }
  BrotliDecoderDestroyInstance(s);
  return rc ? rc : check_size(j, made(j));
}

/* Appends src as one brotli stream.  The encoder keeps its own memory,
** from the C library: it ends the process when an allocation fails
** (brotli's BrotliAllocate), which the allocator of a host with limits
** would make happen. */
static int brotli_enc(const uint8_t *src, size_t n, int level, pq_buf *out,
                      pq_error *err) {
  size_t cap = BrotliEncoderMaxCompressedSize(n);
  if (cap == 0) {
    return pq_fail(err, PQ_RANGE, "BROTLI", "%zu bytes are too many", n);
  }
  if (pq_buf_reserve(out, cap)) return pq_nomem(err, "BROTLI");
  size_t len = cap;
  if (!BrotliEncoderCompress(level, BROTLI_DEFAULT_WINDOW,
                             BROTLI_MODE_GENERIC, n, src, &len,
                             out->data + out->len)) {
    return pq_fail(err, PQ_MISUSE, "BROTLI", "compression failed");
  }
  out->len += len;
  return PQ_OK;
}
#endif

/* ---- The public calls ---------------------------------------------------- */

/* ---- What the codecs are in this build ----------------------------------- */

/* The levels a codec takes (lo > hi: none), and its default. */
static void levels_of(pq_codec c, int *lo, int *hi, int *dflt) {
  *lo = 1, *hi = 0, *dflt = 0;
  switch (c) {
    case PQ_GZIP: *lo = 1, *hi = 9, *dflt = GZIP_LEVEL; break;
    case PQ_BROTLI: *lo = 0, *hi = 11, *dflt = BROTLI_QUALITY; break;
    case PQ_ZSTD: *lo = -7, *hi = 22, *dflt = ZSTD_LEVEL; break;
    default: break;
  }
}

void pq_codec_describe(pq_codec c, pq_codec_info *out) {
  static const char *const library[PQ_CODEC_COUNT] = {
      NULL, "libsnappy", "zlib", NULL, "libbrotli", "liblz4", "libzstd",
      "liblz4"};
  memset(out, 0, sizeof *out);
  if ((unsigned)c >= PQ_CODEC_COUNT) return;
  out->available = have[c];
  levels_of(c, &out->min_level, &out->max_level, &out->default_level);
  out->has_levels = out->min_level <= out->max_level;
  out->library = library[c];
  if (!have[c]) return;
  const char *v = NULL;
  switch (c) {
#if HAVE_ZLIB
    case PQ_GZIP: v = zlibVersion(); break;
#endif
#if HAVE_ZSTD
    case PQ_ZSTD: v = ZSTD_versionString(); break;
#endif
#if HAVE_LZ4
    case PQ_LZ4:
    case PQ_LZ4_RAW: v = LZ4_versionString(); break;
#endif
#if HAVE_BROTLI
    case PQ_BROTLI: {
      /* 0xMMMmmmppp: major, minor and patch, 12 bits each. */
      uint32_t b = BrotliDecoderVersion();
      snprintf(out->version, sizeof out->version, "%u.%u.%u", b >> 24,
               (b >> 12) & 0xFFF, b & 0xFFF);
      break;
    }
#endif
    default: break; /* snappy's C API has no version */
  }
  if (v) snprintf(out->version, sizeof out->version, "%s", v);
}

/* ---- The options of a stream's codec --------------------------------------- */

typedef struct stream_opts {
  pq_params *p;
  pq_codec *codec;
  int *level;
  int codec_set, level_set;
} stream_opts;

static int apply_stream(void *ctx, const char *key, const pq_jvalue *v,
                        pq_error *err) {
  stream_opts *o = ctx;
  if (strcmp(key, "codec") == 0) {
    int rc = pq_codec_option(v, key, o->codec, err);
    if (rc == PQ_OK) o->codec_set = v->kind != PQ_JV_NULL;
    return rc;
  }
  if (strcmp(key, "level") == 0) {
    int64_t x = *o->level;
    int rc = pq_option_int(v, key, -1000000, 1000000, &x, err);
    if (rc == PQ_OK && v->kind != PQ_JV_NULL) {
      *o->level = (int)x;
      o->level_set = 1;
    }
    return rc;
  }
  return pq_params_option(o->p, key, v, err);
}

int pq_stream_options_parse(pq_params *p, pq_codec *codec, int *level,
                            const char *json, size_t n, pq_error *err) {
  stream_opts o = {p, codec, level, 0, 0};
  *codec = PQ_UNCOMPRESSED;
  *level = PQ_LEVEL_DEFAULT;
  int rc = pq_options_parse(json, n, apply_stream, &o, err);
  if (rc == PQ_OK && o.level_set && !o.codec_set) {
    return pq_option_fail(err, "\"%s\" needs \"codec\": the level of a codec",
                          "level");
  }
  return rc;
}

int pq_compress(pq_codec c, const uint8_t *src, size_t n, pq_buf *out,
                pq_error *err) {
  return pq_compress_level(c, PQ_LEVEL_DEFAULT, src, n, out, err);
}

int pq_codec_level_check(pq_codec c, int level, pq_error *err) {
  if (level == PQ_LEVEL_DEFAULT) return PQ_OK;
  int lo, hi, dflt;
  levels_of(c, &lo, &hi, &dflt);
  if (lo > hi) {
    return pq_fail(err, PQ_MISUSE, codec_names[(unsigned)c < PQ_CODEC_COUNT ? c : 0],
                   "the codec has no level (GZIP 1 to 9, BROTLI 0 to 11, "
                   "ZSTD -7 to 22)");
  }
  if (level < lo || level > hi) {
    return pq_fail(err, PQ_MISUSE, codec_names[c], "level %d: %d to %d", level,
                   lo, hi);
  }
  return PQ_OK;
}

int pq_compress_level(pq_codec c, int level, const uint8_t *src, size_t n,
                      pq_buf *out, pq_error *err) {
  int rc = check_codec(c, err);
  if (rc == PQ_OK) rc = pq_codec_level_check(c, level, err);
  if (rc) return rc;
  if (out->oom) return pq_nomem(err, codec_names[c]);
  if (n == 0) src = (const uint8_t *)""; /* libraries want a pointer */
  size_t start = out->len;
  switch (c) {
    case PQ_UNCOMPRESSED:
      pq_buf_append(out, src, n);
      rc = out->oom ? pq_nomem(err, codec_names[c]) : PQ_OK;
      break;
#if HAVE_SNAPPY
    case PQ_SNAPPY: rc = snappy_enc(src, n, out, err); break;
#endif
#if HAVE_ZLIB
    case PQ_GZIP:
      rc = gzip_enc(src, n, level == PQ_LEVEL_DEFAULT ? GZIP_LEVEL : level, out,
                    err);
      break;
#endif
#if HAVE_BROTLI
    case PQ_BROTLI:
      rc = brotli_enc(src, n, level == PQ_LEVEL_DEFAULT ? BROTLI_QUALITY : level,
                      out, err);
      break;
#endif
#if HAVE_LZ4
    case PQ_LZ4: rc = hadoop_enc(src, n, out, err); break;
    case PQ_LZ4_RAW:
      rc = lz4_block_enc(src, n, out, codec_names[c], err);
      break;
#endif
#if HAVE_ZSTD
    case PQ_ZSTD:
      rc = zstd_enc(src, n, level == PQ_LEVEL_DEFAULT ? ZSTD_LEVEL : level, out,
                    err);
      break;
#endif
    default: rc = pq_fail(err, PQ_UNSUPPORTED, codec_names[c], "not supported");
  }
  if (rc == PQ_OK && out->oom) rc = pq_nomem(err, codec_names[c]);
  if (rc) out->len = start;
  return rc;
}

int pq_decompress(pq_codec c, const uint8_t *src, size_t n, int64_t expected,
                  size_t limit, pq_buf *out, pq_error *err) {
  int rc = check_codec(c, err);
  if (rc) return rc;
  const char *name = codec_names[c];
  if (expected < 0) expected = -1;
  /* So that base + bound + 1 cannot overflow. */
  if (limit > SIZE_MAX / 4) limit = SIZE_MAX / 4;
  if (out->oom || out->len > SIZE_MAX / 4) return pq_nomem(err, name);
  if (expected >= 0 && (uint64_t)expected > limit) {
    return pq_fail(err, PQ_TOOBIG, name,
                   "the expected size of %lld bytes would exceed the limit of "
                   "%zu bytes",
                   (long long)expected, limit);
  }
  if (n == 0) {
    if (expected <= 0) return PQ_OK;
    return pq_fail(err, PQ_CORRUPT, name,
                   "the data is empty, %lld byte%s expected",
                   (long long)expected, plural((uint64_t)expected));
  }
  job j = {name,     src,      n,
           expected, limit,    expected >= 0 ? (size_t)expected : limit,
           out,      out->len, err};
  switch (c) {
    case PQ_UNCOMPRESSED: rc = copy_dec(&j); break;
#if HAVE_SNAPPY
    case PQ_SNAPPY: rc = snappy_dec(&j); break;
#endif
#if HAVE_ZLIB
    case PQ_GZIP: rc = gzip_dec(&j); break;
#endif
#if HAVE_BROTLI
    case PQ_BROTLI: rc = brotli_dec(&j); break;
#endif
#if HAVE_LZ4
    case PQ_LZ4: rc = lz4_dec(&j); break;
    case PQ_LZ4_RAW:
      rc = lz4_raw_dec(&j, "the data is not a valid LZ4 block");
      break;
#endif
#if HAVE_ZSTD
    case PQ_ZSTD: rc = zstd_dec(&j); break;
#endif
    default: rc = pq_fail(err, PQ_UNSUPPORTED, name, "not supported");
  }
  if (rc) out->len = j.base;
  return rc;
}
