/*
** remote.c -- files at http:// and https:// URLs, read by range requests
** (doc/remote.md).  A URL is a source like a path: fileio.c hands a
** pqx_file whose name is a URL to the functions here, so that every
** reader (the table, parquet_rows, parquet_metadata, ...) reads it the
** same way.
**
** Opening fetches the end of the file in one request, a suffix range of
** `footer_guess` bytes (no HEAD): the Content-Range gives the size, and
** the footer is usually inside; a second request fetches the rest of a
** footer that is longer.  Each read after is one request for its range
** (the core reads a column chunk in windows that grow to 1 MiB, and asks
** for each page header first: a read shorter than `read_min` fetches that
** many bytes, kept for the reads that follow).
**
** What the object was is kept: its size and its ETag (else its
** Last-Modified).  Every response must say the same: a range request
** carries If-Match with a strong ETag (If-Unmodified-Since without one),
** and a response whose ETag, date or total size differs is the error "it
** changed while it was read", never bytes of two versions.  Checking a
** URL again (a table's next scan) is one request for its first bytes.
**
** Every byte the server sends is checked: the status, a Content-Range that
** must be the range asked for, a body of exactly that length (a longer
** one is cut off at once).  Connection failures and 5xx or 429 responses
** are retried, `retries` times, waiting 100 ms, then twice as long each
** time; other errors are not.  Errors name the URL (the caller's message
** does), the bytes and the HTTP status.  Only http and https are spoken,
** redirects included (at most 5).  No signal is used (CURLOPT_NOSIGNAL):
** the host process may have threads.
**
** A pqx_remote is used by one thread at a time, but a table's reads may
** come from its read-ahead thread too: a mutex serializes them.
*/
#define _POSIX_C_SOURCE 200809L /* nanosleep */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ext.h"
#include "remote.h"

int pqx_is_url(const char *path) {
  static const char *const schemes[] = {"http://", "https://", "s3://"};
  for (size_t i = 0; i < sizeof schemes / sizeof *schemes; i++) {
    size_t k = strlen(schemes[i]);
    if (sqlite3_strnicmp(path, schemes[i], (int)k) == 0) return 1;
  }
  return 0;
}

int pqx_is_s3_glob(const char *path) {
  if (sqlite3_strnicmp(path, "s3://", 5) != 0) return 0;
  const char *slash = strchr(path + 5, '/');
  if (!slash) return 0;
  size_t n = strlen(slash + 1);
  return strpbrk(slash + 1, "*?[") != NULL || n == 0 || slash[n] == '/';
}

/* ---- What a connection keeps of the URLs it read ------------------------
** The end of each object a connection opened (its footer), with the
** object's strong ETag, is kept with the connection (limits.c): at most
** FOOTERS_MAX objects and FOOTERS_BYTES bytes, the least recently used let
** go first.  Opening the URL again asks for its end with If-None-Match:
** a 304 says the bytes kept are the object's still (one request, no
** body); any other answer is read as without them, and kept instead.
**
** So are the byte ranges read from such objects (a scan's chunks fetched
** ahead, the pages read one by one), up to the connection's `cache_size`
** bytes and KEPT_MAX ranges, the least recently used let go first: a
** read of an object under the same ETag takes them from there.  Every
** range was fetched with If-Match that ETag, so it is of that object;
** an object opened again under another ETag lets its ranges go. */
#define FOOTERS_MAX 64
#define FOOTERS_BYTES ((size_t)32 << 20)
#define FOOTER_TAG_MAX 200
#define FOOTER_DATE_MAX 64
#define KEPT_MAX 4096

typedef struct pqx_footer {
  char *url;
  char etag[FOOTER_TAG_MAX + 1];
  char date[FOOTER_DATE_MAX + 1]; /* its Last-Modified, or empty */
  uint64_t size, tail_at;
  size_t tail_len;
  uint8_t *tail;
  uint64_t used; /* when it was last kept or taken */
} pqx_footer;

typedef struct pqx_kept {
  char *url;
  char etag[FOOTER_TAG_MAX + 1];
  uint64_t at;
  size_t n;
  uint8_t *p;
  uint64_t used;
} pqx_kept;

struct pqx_footers {
  pthread_mutex_t mu;
  int ref; /* the connection's, and each open object's */
  pqx_footer e[FOOTERS_MAX];
  int n;
  size_t bytes;
  uint64_t tick;
  pqx_kept *k; /* the ranges */
  int nk, kcap;
  size_t kbytes;
  size_t klimit; /* their bytes: at most (the connection's cache_size) */
};

pqx_footers *pqx_footers_new(void) {
  pqx_footers *f = sqlite3_malloc(sizeof *f);
  if (!f) return NULL;
  memset(f, 0, sizeof *f);
  if (pthread_mutex_init(&f->mu, NULL) != 0) {
    sqlite3_free(f);
    return NULL;
  }
  f->ref = 1;
  return f;
}

static void footer_drop(pqx_footers *f, int i) {
  f->bytes -= f->e[i].tail_len;
  sqlite3_free(f->e[i].url);
  sqlite3_free(f->e[i].tail);
  f->e[i] = f->e[--f->n];
}

static void kept_drop(pqx_footers *f, int i) {
  f->kbytes -= f->k[i].n;
  sqlite3_free(f->k[i].url);
  sqlite3_free(f->k[i].p);
  f->k[i] = f->k[--f->nk];
}

/* Ranges let go, the least recently used first, until `need` more bytes
** and one more range fit in `limit`; f->mu held. */
static void kept_fit(pqx_footers *f, size_t limit, size_t need) {
  while (f->nk && (f->nk >= KEPT_MAX || f->kbytes + need > limit)) {
    int old = 0;
    for (int i = 1; i < f->nk; i++)
      if (f->k[i].used < f->k[old].used) old = i;
    kept_drop(f, old);
  }
}

void pqx_footers_limit(pqx_footers *f, size_t limit) {
  if (!f) return;
  pthread_mutex_lock(&f->mu);
  f->klimit = limit;
  kept_fit(f, limit, 0);
  pthread_mutex_unlock(&f->mu);
}

void pqx_footers_free(pqx_footers *f) {
  if (!f) return;
  pthread_mutex_lock(&f->mu);
  int left = --f->ref;
  pthread_mutex_unlock(&f->mu);
  if (left > 0) return;
  while (f->n) footer_drop(f, f->n - 1);
  while (f->nk) kept_drop(f, f->nk - 1);
  sqlite3_free(f->k);
  pthread_mutex_destroy(&f->mu);
  sqlite3_free(f);
}

void pqx_footers_hold(pqx_footers *f) {
  pthread_mutex_lock(&f->mu);
  f->ref++;
  pthread_mutex_unlock(&f->mu);
}

#if defined(PQX_HAVE_CURL) && !defined(PARQUET_OMIT_FILES)

#include <curl/curl.h>

/* (the footers kept, used by the opening below) */
static int footer_find(const pqx_footers *f, const char *url) {
  for (int i = 0; i < f->n; i++)
    if (strcmp(f->e[i].url, url) == 0) return i;
  return -1;
}

/* The ETag kept for url into etag (empty: none). */
static void footer_tag(pqx_footers *f, const char *url,
                       char etag[FOOTER_TAG_MAX + 1]) {
  etag[0] = 0;
  if (!f) return;
  pthread_mutex_lock(&f->mu);
  int i = footer_find(f, url);
  if (i >= 0) memcpy(etag, f->e[i].etag, FOOTER_TAG_MAX + 1);
  pthread_mutex_unlock(&f->mu);
}

/* The bytes kept for url under etag, copied: 0, or -1 when they are gone
** (or are of another ETag), -2 when out of memory. */
static int footer_take(pqx_footers *f, const char *url, const char *etag,
                       uint8_t **tail, uint64_t *tail_at, size_t *tail_len,
                       uint64_t *size, char date[FOOTER_DATE_MAX + 1]) {
  pthread_mutex_lock(&f->mu);
  int i = footer_find(f, url), rc = -1;
  if (i >= 0 && strcmp(f->e[i].etag, etag) == 0) {
    pqx_footer *e = &f->e[i];
    *tail = sqlite3_malloc64(e->tail_len + 1);
    if (*tail) {
      memcpy(*tail, e->tail, e->tail_len);
      *tail_at = e->tail_at;
      *tail_len = e->tail_len;
      *size = e->size;
      memcpy(date, e->date, FOOTER_DATE_MAX + 1);
      e->used = ++f->tick;
      rc = 0;
    } else {
      rc = -2;
    }
  }
  pthread_mutex_unlock(&f->mu);
  return rc;
}

/* Keeps a copy of what opening url fetched (nothing kept when it cannot
** be: too large, no strong ETag, no memory). */
static void footer_keep(pqx_footers *f, const char *url, const char *etag,
                        const char *date, const uint8_t *tail,
                        uint64_t tail_at, size_t tail_len, uint64_t size) {
  if (!f || !etag[0] || strncmp(etag, "W/", 2) == 0 ||
      strlen(etag) > FOOTER_TAG_MAX || strlen(date) > FOOTER_DATE_MAX ||
      tail_len > FOOTERS_BYTES / 4)
    return;
  pthread_mutex_lock(&f->mu);
  int i = footer_find(f, url);
  if (i >= 0) footer_drop(f, i);
  for (int k = f->nk - 1; k >= 0; k--) /* of the object before */
    if (strcmp(f->k[k].url, url) == 0 && strcmp(f->k[k].etag, etag) != 0)
      kept_drop(f, k);
  while (f->n && (f->n == FOOTERS_MAX || f->bytes + tail_len > FOOTERS_BYTES)) {
    int old = 0;
    for (int k = 1; k < f->n; k++)
      if (f->e[k].used < f->e[old].used) old = k;
    footer_drop(f, old);
  }
  pqx_footer *e = &f->e[f->n];
  memset(e, 0, sizeof *e);
  e->url = sqlite3_mprintf("%s", url);
  e->tail = sqlite3_malloc64(tail_len ? tail_len : 1);
  if (e->url && e->tail) {
    snprintf(e->etag, sizeof e->etag, "%s", etag);
    snprintf(e->date, sizeof e->date, "%s", date);
    memcpy(e->tail, tail, tail_len);
    e->tail_at = tail_at;
    e->tail_len = tail_len;
    e->size = size;
    e->used = ++f->tick;
    f->bytes += tail_len;
    f->n++;
  } else {
    sqlite3_free(e->url);
    sqlite3_free(e->tail);
  }
  pthread_mutex_unlock(&f->mu);
}

/* (the ranges kept) The range of url under etag at `at` of n bytes: -1
** when none is kept; f->mu held. */
static int kept_find(const pqx_footers *f, const char *url, const char *etag,
                     uint64_t at, size_t n, int exact) {
  for (int i = 0; i < f->nk; i++) {
    const pqx_kept *k = &f->k[i];
    if (at < k->at || at - k->at > k->n || n > k->n - (at - k->at)) continue;
    if (exact && (k->at != at || k->n != n)) continue;
    if (strcmp(k->url, url) == 0 && strcmp(k->etag, etag) == 0) return i;
  }
  return -1;
}

/* Whether n bytes of an object of `size` bytes under etag may be kept
** (a strong ETag).  A range larger than KEPT_SMALL (a row group's chunk,
** not a page) only of an object that fits whole: the ranges of a scan
** of a larger one would push each other out before any is read again,
** and memory kept is memory a scan cannot reuse (first touches). */
#define KEPT_SMALL ((size_t)256 << 10)
static int kept_may(pqx_footers *f, const char *etag, size_t n,
                    uint64_t size) {
  if (!f || n == 0 || !etag[0] || strncmp(etag, "W/", 2) == 0 ||
      strlen(etag) > FOOTER_TAG_MAX)
    return 0;
  pthread_mutex_lock(&f->mu);
  size_t limit = f->klimit;
  pthread_mutex_unlock(&f->mu);
  return n <= limit && (n <= KEPT_SMALL || size <= limit);
}

/* Keeps p, n bytes of url at `at` under etag, and owns it from now on
** (freed when it cannot be kept: too large, no strong ETag, no memory). */
static void kept_put(pqx_footers *f, const char *url, const char *etag,
                     uint64_t size, uint64_t at, size_t n, uint8_t *p) {
  if (!kept_may(f, etag, n, size)) {
    sqlite3_free(p);
    return;
  }
  pthread_mutex_lock(&f->mu);
  size_t limit = f->klimit;
  if (n > limit || kept_find(f, url, etag, at, n, 0) >= 0) { /* or held */
    pthread_mutex_unlock(&f->mu);
    sqlite3_free(p);
    return;
  }
  kept_fit(f, limit, n);
  if (f->nk == f->kcap) {
    int cap = f->kcap ? 2 * f->kcap : 64;
    pqx_kept *k = sqlite3_realloc64(f->k, (size_t)cap * sizeof *k);
    if (k) {
      f->k = k;
      f->kcap = cap;
    }
  }
  char *u = f->nk < f->kcap ? sqlite3_mprintf("%s", url) : NULL;
  if (u) {
    pqx_kept *k = &f->k[f->nk++];
    k->url = u;
    snprintf(k->etag, sizeof k->etag, "%s", etag);
    k->at = at;
    k->n = n;
    k->p = p;
    k->used = ++f->tick;
    f->kbytes += n;
    p = NULL;
  }
  pthread_mutex_unlock(&f->mu);
  sqlite3_free(p);
}

/* A copy of n bytes kept (dst: those of `at`), as kept_put. */
static void kept_put_copy(pqx_footers *f, const char *url, const char *etag,
                          uint64_t size, uint64_t at, size_t n,
                          const void *dst) {
  if (!kept_may(f, etag, n, size)) return;
  uint8_t *p = sqlite3_malloc64(n);
  if (!p) return;
  memcpy(p, dst, n);
  kept_put(f, url, etag, size, at, n, p);
}

/* The range of exactly [at, at + n) taken out of what is kept (the
** caller owns it), or NULL. */
static uint8_t *kept_take(pqx_footers *f, const char *url, const char *etag,
                          uint64_t at, size_t n) {
  if (!f || !etag[0]) return NULL;
  pthread_mutex_lock(&f->mu);
  uint8_t *p = NULL;
  int i = kept_find(f, url, etag, at, n, 1);
  if (i >= 0) {
    p = f->k[i].p;
    f->k[i].p = NULL;
    kept_drop(f, i);
  }
  pthread_mutex_unlock(&f->mu);
  return p;
}

/* [at, at + n) copied into dst from a range kept that holds it: 1, or 0
** when none does. */
static int kept_copy(pqx_footers *f, const char *url, const char *etag,
                     uint64_t at, size_t n, void *dst) {
  if (!f || !etag[0]) return 0;
  pthread_mutex_lock(&f->mu);
  int i = kept_find(f, url, etag, at, n, 0);
  if (i >= 0) {
    memcpy(dst, f->k[i].p + (at - f->k[i].at), n);
    f->k[i].used = ++f->tick;
  }
  pthread_mutex_unlock(&f->mu);
  return i >= 0;
}


#define ETAG_MAX 200
#define DATE_MAX 64
#define MAX_REDIRECTS 5L

struct pqx_remote {
  char *url;  /* as given */
  char *http; /* what is fetched: url, or an s3:// URL's */
  CURL *h;
  pthread_mutex_t mu;
  pqx_http_opts o;
  uint64_t size;
  char etag[ETAG_MAX + 1]; /* empty: none */
  char date[DATE_MAX + 1]; /* Last-Modified; empty: none */
  uint8_t *tail;           /* the end of the file, from the open */
  uint64_t tail_at;
  size_t tail_len;
  uint8_t *blk; /* the last short read's block */
  uint64_t blk_at;
  size_t blk_len, blk_cap;
  struct curl_slist *base; /* the headers of every request (S3's) */
  struct curl_slist *hdr;  /* ... and a range request's validator */
  struct curl_slist *kept; /* ... or the opening's, If-None-Match */
  /* fetched ahead (pqx_remote_fetch): pieces of the file, in order */
  struct rem_span *span;
  int nspan;
  CURLM *multi;                     /* their requests, in flight at once */
  CURL *ph[PQX_HTTP_PARALLEL_MAX]; /* each one's handle (kept: connections) */
  pqx_footers *cache; /* the connection's (held), or NULL */
  int no_multi;       /* the server answered several ranges otherwise */
};

typedef struct rem_span {
  uint64_t at;
  size_t n;
  uint8_t *p;
  int ready; /* p holds the bytes (fetched, or kept before) */
} rem_span;

/* One response: what its headers said, and its body's bytes. */
typedef struct rem_resp {
  int status;
  int has_range;
  uint64_t first, last, total;
  int bad_range;
  char etag[ETAG_MAX + 1];
  int etag_long;
  char date[DATE_MAX + 1];
  char ctype[128]; /* Content-Type (cut short: no boundary found in it) */
  uint8_t *dst; /* where the body goes */
  size_t cap, got;
  int overflow;     /* the body was longer than asked */
  int refused;      /* ... or of a status whose body is not wanted */
  uint64_t skipped; /* bytes of such a body */
  char err[1024];   /* its first bytes (an S3 error's XML) */
  size_t nerr;
} rem_resp;

static void resp_reset(rem_resp *q) {
  uint8_t *dst = q->dst;
  size_t cap = q->cap;
  memset(q, 0, sizeof *q);
  q->dst = dst;
  q->cap = cap;
}

void pqx_http_etag(const char *val, size_t n, char *out, size_t room,
                   int *too_long) {
  if (n >= room) {
    *too_long = 1;
  } else {
    memcpy(out, val, n);
    out[n] = 0;
  }
}

static size_t on_header(char *p, size_t size, size_t n, void *ctx) {
  rem_resp *q = ctx;
  size_t len = size * n;
  int code;
  if (pq_http_status(p, len, &code) == 0) {
    /* a new response (after a redirect, or a 100 Continue) */
    resp_reset(q);
    q->status = code;
    return len;
  }
  const char *name, *val;
  size_t nlen, vlen;
  if (pq_http_header(p, len, &name, &nlen, &val, &vlen)) return len;
  if (pq_http_name_is(name, nlen, "content-range")) {
    q->has_range = 1;
    q->bad_range =
        pq_http_content_range(val, vlen, &q->first, &q->last, &q->total) != 0;
  } else if (pq_http_name_is(name, nlen, "etag")) {
    pqx_http_etag(val, vlen, q->etag, sizeof q->etag, &q->etag_long);
  } else if (pq_http_name_is(name, nlen, "last-modified")) {
    if (vlen > DATE_MAX) vlen = DATE_MAX;
    memcpy(q->date, val, vlen);
    q->date[vlen] = 0;
  } else if (pq_http_name_is(name, nlen, "content-type")) {
    if (vlen >= sizeof q->ctype) vlen = sizeof q->ctype - 1;
    memcpy(q->ctype, val, vlen);
    q->ctype[vlen] = 0;
  }
  return len;
}

static size_t on_body(char *p, size_t size, size_t n, void *ctx) {
  rem_resp *q = ctx;
  size_t len = size * n;
  if (q->status != 200 && q->status != 206) {
    /* an error page: its first bytes kept, not read on past a little */
    size_t k = sizeof q->err - 1 - q->nerr;
    if (k > len) k = len;
    memcpy(q->err + q->nerr, p, k);
    q->nerr += k;
    q->err[q->nerr] = 0;
    q->skipped += len;
    if (q->skipped > 65536) {
      q->refused = 1;
      return 0;
    }
    return len;
  }
  if (len > q->cap - q->got) {
    q->overflow = 1;
    return 0; /* ends the transfer */
  }
  memcpy(q->dst + q->got, p, len);
  q->got += len;
  return len;
}

static int rem_retryable(CURLcode c, int status) {
  if (c == CURLE_OK) return status >= 500 || status == 429;
  return c == CURLE_COULDNT_CONNECT || c == CURLE_SEND_ERROR ||
         c == CURLE_RECV_ERROR || c == CURLE_PARTIAL_FILE ||
         c == CURLE_GOT_NOTHING || c == CURLE_HTTP2 || c == CURLE_HTTP2_STREAM;
}

static void rem_sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int pqx_http_retryable(CURLcode c, int status) {
  return rem_retryable(c, status);
}

void pqx_http_sleep_ms(long ms) {
  rem_sleep_ms(ms);
}

/* The handle's settings that hold for every request. */
static int rem_setup(pqx_remote *r) {
  CURL *h = r->h;
  CURLcode c = CURLE_OK;
#define SET(opt, v)                                     \
  do {                                                  \
    if (c == CURLE_OK) c = curl_easy_setopt(h, opt, v); \
  } while (0)
  SET(CURLOPT_URL, r->http);
  SET(CURLOPT_NOSIGNAL, 1L);
  SET(CURLOPT_FOLLOWLOCATION, 1L);
  SET(CURLOPT_MAXREDIRS, MAX_REDIRECTS);
#if LIBCURL_VERSION_NUM >= 0x075500
  SET(CURLOPT_PROTOCOLS_STR, "http,https");
  SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
  SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
  SET(CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  SET(CURLOPT_CONNECTTIMEOUT_MS, r->o.connect_timeout_ms);
  SET(CURLOPT_TIMEOUT_MS, r->o.timeout_ms);
  SET(CURLOPT_HEADERFUNCTION, on_header);
  SET(CURLOPT_WRITEFUNCTION, on_body);
  SET(CURLOPT_USERAGENT, "parquet-sqlite");
  /* bytes as they are stored: no Accept-Encoding, so no transfer coding */
  SET(CURLOPT_HTTP_CONTENT_DECODING, 0L);
#undef SET
  return c == CURLE_OK ? 0 : -1;
}

/* The validator a range request carries, so that a changed object is a
** 412 rather than other bytes; a weak ETag cannot be matched (If-Match
** compares strongly), so the date is sent then, and the response's ETag
** compared here. */
static int rem_validators(pqx_remote *r) {
  curl_slist_free_all(r->hdr);
  r->hdr = NULL;
  for (struct curl_slist *l = r->base; l; l = l->next) {
    struct curl_slist *n = curl_slist_append(r->hdr, l->data);
    if (!n) return -1;
    r->hdr = n;
  }
  char line[ETAG_MAX + 32];
  if (r->etag[0] && strncmp(r->etag, "W/", 2) != 0) {
    snprintf(line, sizeof line, "If-Match: %s", r->etag);
  } else if (r->date[0]) {
    snprintf(line, sizeof line, "If-Unmodified-Since: %s", r->date);
  } else {
    return 0;
  }
  struct curl_slist *n = curl_slist_append(r->hdr, line);
  if (!n) return -1;
  r->hdr = n;
  return 0;
}

/* ---- s3:// URLs ----------------------------------------------------------
** s3://bucket/key is fetched from the endpoint set (s3_endpoint, else
** AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL) as ENDPOINT/bucket/key, else
** from AWS's https://bucket.s3.REGION.amazonaws.com/key; signed with
** SigV4 (libcurl's) when there are credentials: those set by
** parquet_s3_credentials, else AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
** and AWS_SESSION_TOKEN; without any, the request is anonymous (a public
** bucket).  The region: s3_region, else AWS_REGION, AWS_DEFAULT_REGION,
** else us-east-1. */

static const char *rem_env(const char *a, const char *b) {
  const char *v = getenv(a);
  if ((!v || !*v) && b) v = getenv(b);
  return v && *v ? v : NULL;
}

/* v escaped as SigV4's canonical form has it: every byte but the
** unreserved (letters, digits, "-._~"), and '/' when keep_slash (a key
** as a URL's path; a query's value escapes it). */
static char *rem_escape(const char *v, int keep_slash) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(v);
  char *out = sqlite3_malloc64(3 * n + 1);
  if (!out) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)v[i];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
        (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
        c == '~' || (c == '/' && keep_slash)) {
      out[k++] = (char)c;
    } else {
      out[k++] = '%';
      out[k++] = hex[c >> 4];
      out[k++] = hex[c & 15];
    }
  }
  out[k] = 0;
  return out;
}

char *pqx_s3_escape(const char *v, int keep_slash) {
  return rem_escape(v, keep_slash);
}

/* Whether b (n bytes) is a bucket's name: 3 to 63 of a-z, 0-9, '.', '-'. */
static int rem_s3_bucket_ok(const char *b, size_t n) {
  if (n < 3 || n > 63) return 0;
  for (size_t i = 0; i < n; i++) {
    char c = b[i];
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
          c == '-'))
      return 0;
  }
  return 1;
}

const char *pqx_s3_region(const pqx_http_opts *o) {
  const char *region = o->s3_region[0]
                           ? o->s3_region
                           : rem_env("AWS_REGION", "AWS_DEFAULT_REGION");
  return region ? region : "us-east-1";
}

/* The bucket of url (*b, *bn) and its key (*key, after the '/'); an
** error unless the bucket's name is one and, with need_key, a key
** follows. */
int pqx_s3_parts(const char *url, const char *fn, int need_key,
                 const char **b, size_t *bn, const char **key, char **msg) {
  *b = url + 5;
  const char *slash = strchr(*b, '/');
  *bn = slash ? (size_t)(slash - *b) : strlen(*b);
  *key = slash ? slash + 1 : "";
  if (!rem_s3_bucket_ok(*b, *bn) || !slash || (need_key && !**key)) {
    *msg = sqlite3_mprintf(
        "%s: '%s': an s3:// URL is s3://BUCKET/KEY (a bucket's name is 3 to "
        "63 of a-z, 0-9, '.' and '-'; the key is not empty)",
        fn, url);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

static int rem_s3_parts(const pqx_remote *r, const char *fn, int need_key,
                        const char **b, size_t *bn, const char **key,
                        char **msg) {
  return pqx_s3_parts(r->url, fn, need_key, b, bn, key, msg);
}

char *pqx_s3_url(const pqx_http_opts *o, const char *b, size_t bn,
                 const char *rest) {
  const char *ep = o->s3_endpoint[0]
                       ? o->s3_endpoint
                       : rem_env("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL");
  const char *sep = rest[0] == '?' ? "" : "/";
  if (ep) {
    size_t en = strlen(ep);
    while (en > 0 && ep[en - 1] == '/') en--;
    return sqlite3_mprintf("%.*s/%.*s%s%s", (int)en, ep, (int)bn, b, sep, rest);
  }
  return sqlite3_mprintf("https://%.*s.s3.%s.amazonaws.com/%s%s", (int)bn, b,
                         pqx_s3_region(o), rest[0] == '?' ? "" : "", rest);
}

/* The URL of the bucket's `rest` (a path, escaped; or "?query"). */
static char *rem_s3_url(const pqx_remote *r, const char *b, size_t bn,
                        const char *rest) {
  return pqx_s3_url(&r->o, b, bn, rest);
}

static int rem_s3_sign(pqx_remote *r);

/* r->http, and the signing, for r->url, an s3:// URL. */
static int rem_s3_setup(pqx_remote *r, const char *fn, char **msg) {
  const char *b, *key;
  size_t bn;
  int rc = rem_s3_parts(r, fn, 1, &b, &bn, &key, msg);
  if (rc) return rc;
  char *path = rem_escape(key, 1);
  if (!path) return SQLITE_NOMEM;
  r->http = rem_s3_url(r, b, bn, path);
  sqlite3_free(path);
  if (!r->http) return SQLITE_NOMEM;
  return rem_s3_sign(r);
}

int pqx_s3_sign(CURL *h, const pqx_http_opts *o, struct curl_slist **base) {
  const char *region = pqx_s3_region(o);
  const char *id = o->s3_key_id, *secret = o->s3_secret, *token = o->s3_token;
  if (!id[0]) {
    id = rem_env("AWS_ACCESS_KEY_ID", NULL);
    secret = rem_env("AWS_SECRET_ACCESS_KEY", NULL);
    token = rem_env("AWS_SESSION_TOKEN", NULL);
    if (!id || !secret) return SQLITE_OK; /* anonymous */
    if (!token) token = "";
  }
  char sig[128];
  snprintf(sig, sizeof sig, "aws:amz:%s:s3", region);
  CURLcode c = curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sig);
  if (c == CURLE_OK) c = curl_easy_setopt(h, CURLOPT_USERNAME, id);
  if (c == CURLE_OK) c = curl_easy_setopt(h, CURLOPT_PASSWORD, secret);
  if (c != CURLE_OK) return SQLITE_NOMEM;
  /* S3 wants the payload's hash named; a GET has none to sign */
  *base = curl_slist_append(NULL, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
  if (!*base) return SQLITE_NOMEM;
  if (token[0]) {
    char *t = sqlite3_mprintf("x-amz-security-token: %s", token);
    struct curl_slist *n = t ? curl_slist_append(*base, t) : NULL;
    sqlite3_free(t);
    if (!n) return SQLITE_NOMEM;
    *base = n;
  }
  return SQLITE_OK;
}

/* The signing of r's requests, when there are credentials. */
static int rem_s3_sign(pqx_remote *r) {
  int rc = pqx_s3_sign(r->h, &r->o, &r->base);
  if (rc || !r->base) return rc; /* (anonymous: no base) */
  return rem_validators(r) ? SQLITE_NOMEM : SQLITE_OK;
}

/* One range request, retried as the header says: the range (or, with
** REQ_SUFFIX, the last `n` bytes) into q->dst.  Checks the status only;
** PQ_OK with q filled, or the error. */
#define REQ_CHECKED 0 /* [at, at + n), with the validators */
#define REQ_SUFFIX 1  /* the last n bytes, without them */
#define REQ_PLAIN 2   /* [at, at + n), without them */
#define REQ_WHOLE 3   /* no range: the whole response (a listing) */
#define REQ_KEPT 4    /* the last n bytes, If-None-Match the ETag kept */
static int rem_request(pqx_remote *r, uint64_t at, uint64_t n, int how,
                       rem_resp *q, pq_error *err) {
  char range[64], what[80];
  if (how == REQ_SUFFIX || how == REQ_KEPT) {
    snprintf(range, sizeof range, "-%llu", (unsigned long long)n);
  } else {
    snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)at,
             (unsigned long long)(at + n - 1));
  }
  if (how == REQ_WHOLE) {
    snprintf(what, sizeof what, "the listing");
  } else {
    snprintf(what, sizeof what, "bytes %s", range);
  }
  long wait = 100;
  for (int attempt = 0;; attempt++) {
    resp_reset(q);
    CURLcode c =
        curl_easy_setopt(r->h, CURLOPT_RANGE, how == REQ_WHOLE ? NULL : range);
    if (c == CURLE_OK) c = curl_easy_setopt(r->h, CURLOPT_HEADERDATA, q);
    if (c == CURLE_OK) c = curl_easy_setopt(r->h, CURLOPT_WRITEDATA, q);
    if (c == CURLE_OK)
      c = curl_easy_setopt(r->h, CURLOPT_HTTPHEADER,
                           how == REQ_CHECKED ? r->hdr
                           : how == REQ_KEPT  ? r->kept
                                              : r->base);
    if (c == CURLE_OUT_OF_MEMORY)
      return pqx_input_fail(err, "http", PQ_NOMEM, "out of memory");
    if (c == CURLE_OK) c = curl_easy_perform(r->h);
    if (c == CURLE_OUT_OF_MEMORY)
      return pqx_input_fail(err, "http", PQ_NOMEM, "out of memory");
    if (c == CURLE_WRITE_ERROR && q->overflow) {
      return pqx_input_fail(
          err, "http", PQ_IO, "%s: the response is longer than %s (HTTP %d)",
          what, how == REQ_WHOLE ? "this build takes" : "the range", q->status);
    }
    if (c == CURLE_OK && q->status == 412) {
      return pqx_input_fail(err, "http", PQ_IO,
                            "it changed while it was read (%s: HTTP 412, the "
                            "object is no longer the one opened)",
                            what);
    }
    if (attempt < r->o.retries && rem_retryable(c, q->status)) {
      rem_sleep_ms(wait);
      wait *= 2;
      continue;
    }
    if (c != CURLE_OK && !(c == CURLE_WRITE_ERROR && q->refused)) {
      return pqx_input_fail(err, "http", PQ_IO, "%s: %s%s", what,
                            curl_easy_strerror(c),
                            attempt ? " (after retries)" : "");
    }
    if (q->status != 206 && q->status != 200 &&
        !(how == REQ_KEPT && q->status == 304)) {
      /* an S3 error names itself: <Code>NoSuchKey</Code> */
      const char *c0 = strstr(q->err, "<Code>"), *c1;
      int cn = 0;
      if (c0 && (c1 = strstr(c0 + 6, "</Code>")) != NULL && c1 - c0 - 6 < 64)
        cn = (int)(c1 - c0 - 6);
      return pqx_input_fail(err, "http", PQ_IO, "%s: HTTP %d%s%.*s%s%s", what,
                            q->status, cn ? " (" : "", cn, cn ? c0 + 6 : "",
                            cn ? ")" : "", attempt ? " (after retries)" : "");
    }
    return PQ_OK;
  }
}

/* Whether the response is of the object opened: *changed set if not. */
static void rem_same(const pqx_remote *r, const rem_resp *q, int *changed) {
  *changed = q->etag_long || strcmp(q->etag, r->etag) != 0 ||
             strcmp(q->date, r->date) != 0 ||
             (q->has_range && q->total != UINT64_MAX && q->total != r->size);
}

/* Whether response q, of a request for [at, at + n), is its bytes: every
** one checked. */
static int rem_check(const pqx_remote *r, const rem_resp *q, uint64_t at,
                     size_t n, pq_error *err) {
  unsigned long long a = at, b = at + n - 1;
  if (q->status == 200) {
    return pqx_input_fail(err, "http", PQ_IO,
                          "bytes %llu-%llu: the server sent the whole object "
                          "(HTTP 200): it does not serve ranges",
                          a, b);
  }
  int changed;
  rem_same(r, q, &changed);
  if (changed) {
    return pqx_input_fail(
        err, "http", PQ_IO,
        "it changed while it was read (bytes %llu-%llu: another "
        "ETag, date or size)",
        a, b);
  }
  if (!q->has_range || q->bad_range || q->first != at || q->last != b) {
    return pqx_input_fail(
        err, "http", PQ_IO,
        "bytes %llu-%llu: the response's Content-Range is not "
        "that range",
        a, b);
  }
  if (q->got != n) {
    return pqx_input_fail(err, "http", PQ_IO,
                          "bytes %llu-%llu: the response has %zu bytes of %zu",
                          a, b, q->got, n);
  }
  return PQ_OK;
}

/* [at, at + n) fetched into dst, every byte checked. */
static int rem_fetch(pqx_remote *r, uint64_t at, size_t n, uint8_t *dst,
                     pq_error *err) {
  rem_resp q;
  memset(&q, 0, sizeof q);
  q.dst = dst;
  q.cap = n;
  int rc = rem_request(r, at, n, REQ_CHECKED, &q, err);
  return rc ? rc : rem_check(r, &q, at, n, err);
}

/* ---- Fetching ahead ----------------------------------------------------
** A scan that reads a row group whole says so first (pqx_remote_fetch):
** the byte ranges of its column chunks, clipped to the file and to
** `fetch_ahead` bytes in all (each range to its share), sorted, those
** `coalesce_gap` apart or closer made one, cut into pieces of at most
** REM_PIECE bytes, are fetched `parallel` requests at a time (curl's
** multi interface, each request checked as any other).  The reads that
** follow are copied from the pieces; a piece whose request failed is
** dropped, and its bytes fetched when read, as without it (with the
** retries, and the error then said).  The next call, or the scan leaving
** the file, lets the pieces go. */
#define REM_PIECE ((size_t)8 << 20)

static void rem_spans_free(pqx_remote *r) {
  for (int i = 0; i < r->nspan; i++) {
    rem_span *s = &r->span[i];
    if (s->p && s->ready) /* kept for the reads after, when it can be */
      kept_put(r->cache, r->url, r->etag, r->size, s->at, s->n, s->p);
    else
      sqlite3_free(s->p);
  }
  sqlite3_free(r->span);
  r->span = NULL;
  r->nspan = 0;
}

/* The piece that holds byte `at`, or -1 (they are in order). */
static int rem_span_of(const pqx_remote *r, uint64_t at) {
  int lo = 0, hi = r->nspan;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    const rem_span *s = &r->span[mid];
    if (at < s->at) {
      hi = mid;
    } else if (at - s->at >= s->n) {
      lo = mid + 1;
    } else {
      return s->p ? mid : -1;
    }
  }
  return -1;
}

/* [at, at + n) copied into dst from pieces fetched ahead (adjacent ones
** together): 1, or 0 when they do not hold all of it. */
static int rem_spans_copy(const pqx_remote *r, uint64_t at, void *dst,
                          size_t n) {
  if (!r->nspan) return 0;
  int first = rem_span_of(r, at);
  if (first < 0) return 0;
  uint64_t end = at + n, pos = at;
  int i = first;
  while (pos < end) { /* covered through the pieces after, without a hole? */
    if (i >= r->nspan || !r->span[i].p || r->span[i].at > pos) return 0;
    pos = r->span[i].at + r->span[i].n;
    i++;
  }
  uint8_t *out = dst;
  for (i = first, pos = at; pos < end; i++) {
    const rem_span *s = &r->span[i];
    size_t off = (size_t)(pos - s->at), k = s->n - off;
    if (k > end - pos) k = (size_t)(end - pos);
    memcpy(out, s->p + off, k);
    out += k;
    pos += k;
  }
  return 1;
}

static int rem_range_cmp(const void *a, const void *b) {
  const uint64_t *x = a, *y = b;
  return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* The pieces of the ranges v[0..m) ({first byte, end}), in order, made
** (their buffers allocated; a piece without one is not fetched); ranges
** `gap` bytes apart or closer made one. */
static void rem_spans_make(pqx_remote *r, uint64_t (*v)[2], int m,
                           uint64_t gap) {
  qsort(v, (size_t)m, sizeof *v, rem_range_cmp);
  int k = 0;
  for (int i = 0; i < m; i++) {
    if (k && v[i][0] <= v[k - 1][1] + gap) {
      if (v[i][1] > v[k - 1][1]) v[k - 1][1] = v[i][1];
    } else {
      v[k][0] = v[i][0];
      v[k][1] = v[i][1];
      k++;
    }
  }
  int pieces = 0;
  for (int i = 0; i < k; i++)
    pieces += (int)((v[i][1] - v[i][0] + REM_PIECE - 1) / REM_PIECE);
  r->span = sqlite3_malloc64((size_t)pieces * sizeof *r->span);
  if (!r->span) return;
  for (int i = 0; i < k; i++) {
    for (uint64_t at = v[i][0]; at < v[i][1]; at += REM_PIECE) {
      rem_span *s = &r->span[r->nspan++];
      s->at = at;
      s->n = (size_t)(v[i][1] - at < REM_PIECE ? v[i][1] - at : REM_PIECE);
      s->p = kept_take(r->cache, r->url, r->etag, s->at, s->n);
      s->ready = s->p != NULL;
      if (!s->p) s->p = sqlite3_malloc64(s->n);
      if (s->p && !s->ready)
        s->ready = kept_copy(r->cache, r->url, r->etag, s->at, s->n, s->p);
    }
  }
}

/* The pieces fetched, `parallel` at a time; a failed one dropped. */
static void rem_spans_fetch(pqx_remote *r) {
  if (!r->multi) r->multi = curl_multi_init();
  if (!r->multi) return;
  int par = r->o.parallel < 1 ? 1
            : r->o.parallel > PQX_HTTP_PARALLEL_MAX ? PQX_HTTP_PARALLEL_MAX
                                                     : r->o.parallel;
  rem_resp q[PQX_HTTP_PARALLEL_MAX];
  int piece[PQX_HTTP_PARALLEL_MAX]; /* what each slot fetches, or -1 */
  for (int j = 0; j < par; j++) piece[j] = -1;
  int next = 0, busy = 0;
  for (;;) {
    /* every free slot on the next piece */
    for (int j = 0; j < par && next < r->nspan; j++) {
      if (piece[j] >= 0) continue;
      while (next < r->nspan && (!r->span[next].p || r->span[next].ready))
        next++;
      if (next >= r->nspan) break;
      rem_span *s = &r->span[next];
      if (!r->ph[j]) r->ph[j] = curl_easy_duphandle(r->h);
      char range[64];
      snprintf(range, sizeof range, "%llu-%llu", (unsigned long long)s->at,
               (unsigned long long)(s->at + s->n - 1));
      memset(&q[j], 0, sizeof q[j]);
      q[j].dst = s->p;
      q[j].cap = s->n;
      CURL *h = r->ph[j];
      if (!h || curl_easy_setopt(h, CURLOPT_RANGE, range) != CURLE_OK ||
          curl_easy_setopt(h, CURLOPT_HEADERDATA, &q[j]) != CURLE_OK ||
          curl_easy_setopt(h, CURLOPT_WRITEDATA, &q[j]) != CURLE_OK ||
          curl_easy_setopt(h, CURLOPT_HTTPHEADER, r->hdr) != CURLE_OK ||
          curl_multi_add_handle(r->multi, h) != CURLM_OK) {
        sqlite3_free(s->p); /* not fetched ahead: read when asked for */
        s->p = NULL;
        next++;
        continue;
      }
      piece[j] = next++;
      busy++;
    }
    if (!busy) break;
    int running;
    if (curl_multi_perform(r->multi, &running) != CURLM_OK) break;
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(r->multi, &left)) != NULL) {
      if (m->msg != CURLMSG_DONE) continue;
      for (int j = 0; j < par; j++) {
        if (piece[j] < 0 || r->ph[j] != m->easy_handle) continue;
        rem_span *s = &r->span[piece[j]];
        pq_error err;
        if (m->data.result != CURLE_OK || rem_check(r, &q[j], s->at, s->n, &err)) {
          sqlite3_free(s->p);
          s->p = NULL;
        } else {
          s->ready = 1;
        }
        curl_multi_remove_handle(r->multi, r->ph[j]);
        piece[j] = -1;
        busy--;
        break;
      }
    }
    if (running && curl_multi_poll(r->multi, NULL, 0, 1000, NULL) != CURLM_OK)
      break;
  }
  for (int j = 0; j < par; j++) { /* what is left in flight after a failure */
    if (piece[j] < 0) continue;
    curl_multi_remove_handle(r->multi, r->ph[j]);
    sqlite3_free(r->span[piece[j]].p);
    r->span[piece[j]].p = NULL;
  }
}

/* The pieces not held yet that lie in [at, at + n), copied from p. */
static void rem_spans_fill(pqx_remote *r, uint64_t at, const uint8_t *p,
                           size_t n) {
  for (int i = 0; i < r->nspan; i++) {
    rem_span *s = &r->span[i];
    if (!s->p || s->ready || s->at < at || s->at - at > n ||
        s->n > n - (s->at - at))
      continue;
    memcpy(s->p, p + (s->at - at), s->n);
    s->ready = 1;
  }
}

/* The pieces not held yet (up to REM_MULTI of them, 2 REM_PIECE bytes),
** asked for in one request of several ranges ("Range: bytes=a-b,c-d").
** A server may answer with a multipart/byteranges body (each part's
** Content-Range and bytes checked, and copied into the pieces it holds),
** or with one range that holds them all; a server that sends the whole
** object, or anything else, is not asked so again, and the pieces left
** are fetched one by one.  Not for s3:// (S3 takes one range). */
#define REM_MULTI 64
static void rem_spans_multi(pqx_remote *r) {
  char *range = sqlite3_malloc64((size_t)REM_MULTI * 44 + 1);
  if (!range) return;
  size_t used = 0, total = 0;
  int k = 0;
  for (int i = 0; i < r->nspan && k < REM_MULTI; i++) {
    const rem_span *s = &r->span[i];
    if (!s->p || s->ready || total + s->n > 2 * REM_PIECE) continue;
    used += (size_t)snprintf(range + used, 45, "%s%llu-%llu", k ? "," : "",
                             (unsigned long long)s->at,
                             (unsigned long long)(s->at + s->n - 1));
    total += s->n;
    k++;
  }
  size_t cap = total + (size_t)k * 512 + 4096;
  uint8_t *buf = k >= 2 ? sqlite3_malloc64(cap) : NULL;
  if (!buf) {
    sqlite3_free(range);
    return;
  }
  rem_resp q;
  memset(&q, 0, sizeof q);
  q.dst = buf;
  q.cap = cap;
  CURLcode c = curl_easy_setopt(r->h, CURLOPT_RANGE, range);
  if (c == CURLE_OK) c = curl_easy_setopt(r->h, CURLOPT_HEADERDATA, &q);
  if (c == CURLE_OK) c = curl_easy_setopt(r->h, CURLOPT_WRITEDATA, &q);
  if (c == CURLE_OK) c = curl_easy_setopt(r->h, CURLOPT_HTTPHEADER, r->hdr);
  if (c == CURLE_OK) c = curl_easy_perform(r->h);
  int changed = 1;
  if (c == CURLE_OK || q.overflow) rem_same(r, &q, &changed);
  if ((c == CURLE_OK || q.overflow) && (q.status == 200 || q.overflow)) {
    r->no_multi = 1; /* the whole object, or more than asked */
  } else if (c != CURLE_OK || q.status != 206 || changed) {
    /* failed: the pieces are fetched one by one (and the error said) */
  } else if (q.has_range) { /* one range that holds them */
    if (!q.bad_range && q.first != UINT64_MAX &&
        q.got == q.last - q.first + 1)
      rem_spans_fill(r, q.first, buf, q.got);
  } else {
    const char *bd;
    size_t bn, pos = 0;
    uint64_t first, last, size;
    const uint8_t *data;
    if (pq_http_boundary(q.ctype, strlen(q.ctype), &bd, &bn)) {
      r->no_multi = 1;
    } else {
      while (pq_http_part(buf, q.got, bd, bn, &pos, &first, &last, &size,
                          &data) == 1 &&
             (size == UINT64_MAX || size == r->size))
        rem_spans_fill(r, first, data, (size_t)(last - first + 1));
    }
  }
  sqlite3_free(buf);
  sqlite3_free(range);
}

void pqx_remote_fetch(pqx_remote *r, const uint64_t *ranges, int n,
                      int pages) {
  pthread_mutex_lock(&r->mu);
  rem_spans_free(r);
  uint64_t (*v)[2] = NULL;
  if (n > 0 && r->o.fetch_ahead > 0)
    v = sqlite3_malloc64((size_t)n * sizeof *v);
  int m = 0;
  for (int i = 0; v && i < n; i++) {
    uint64_t at = ranges[2 * i], len = ranges[2 * i + 1];
    uint64_t share = r->o.fetch_ahead / (uint64_t)n;
    if (at >= r->size) continue; /* metadata may say anything */
    if (len > r->size - at) len = r->size - at;
    if (at >= r->tail_at && len <= r->tail_len &&
        at - r->tail_at <= r->tail_len - len)
      continue; /* held already, with the footer */
    if (len > share) len = share;
    if (len == 0) continue;
    v[m][0] = at;
    v[m][1] = at + len;
    m++;
  }
  if (m) rem_spans_make(r, v, m, pages ? 0 : r->o.coalesce_gap);
  sqlite3_free(v);
  if (pages && r->nspan > 1 && !r->no_multi &&
      sqlite3_strnicmp(r->url, "s3://", 5) != 0)
    rem_spans_multi(r);
  if (r->nspan) rem_spans_fetch(r);
  pthread_mutex_unlock(&r->mu);
}

int pqx_remote_read(void *ctx, uint64_t offset, void *dst, size_t n,
                    pq_error *err) {
  pqx_remote *r = ctx;
  if (n == 0) return PQ_OK;
  if (offset > r->size || n > r->size - offset) {
    return pqx_input_fail(err, "http", PQ_IO,
                          "%zu bytes at offset %llu are past its end", n,
                          (unsigned long long)offset);
  }
  pthread_mutex_lock(&r->mu);
  int rc = PQ_OK;
  if (rem_spans_copy(r, offset, dst, n)) {
    /* fetched ahead */
  } else if (offset >= r->tail_at && offset - r->tail_at <= r->tail_len &&
      n <= r->tail_len - (offset - r->tail_at)) {
    memcpy(dst, r->tail + (offset - r->tail_at), n);
  } else if (r->blk_len && offset >= r->blk_at &&
             offset - r->blk_at <= r->blk_len &&
             n <= r->blk_len - (offset - r->blk_at)) {
    memcpy(dst, r->blk + (offset - r->blk_at), n);
  } else if (kept_copy(r->cache, r->url, r->etag, offset, n, dst)) {
    /* read before */
  } else if (n < r->o.read_min) {
    /* a short read (a page header): a block from it, kept */
    uint64_t want = r->o.read_min;
    if (want > r->size - offset) want = r->size - offset;
    if (want > r->blk_cap) {
      uint8_t *p = sqlite3_realloc64(r->blk, want);
      if (!p) {
        rc = pqx_input_fail(err, "http", PQ_NOMEM, "out of memory");
        goto done;
      }
      r->blk = p;
      r->blk_cap = (size_t)want;
    }
    r->blk_len = 0;
    rc = rem_fetch(r, offset, (size_t)want, r->blk, err);
    if (rc == PQ_OK) {
      r->blk_at = offset;
      r->blk_len = (size_t)want;
      memcpy(dst, r->blk, n);
      kept_put_copy(r->cache, r->url, r->etag, r->size, offset, (size_t)want,
                    r->blk);
    }
  } else {
    rc = rem_fetch(r, offset, n, dst, err);
    if (rc == PQ_OK)
      kept_put_copy(r->cache, r->url, r->etag, r->size, offset, n, dst);
  }
done:
  pthread_mutex_unlock(&r->mu);
  return rc;
}

static char *rem_error(const char *fn, const char *url, const pq_error *e) {
  return sqlite3_mprintf("%s: '%s': %s", fn, url, e->msg);
}

/* The end of the file: size, validators, and the tail that holds the
** footer (a second request for the rest of a longer one). */
/* Opening by the footer the connection kept for the URL: 1 when the
** server says it is the object's still (HTTP 304), r then filled; 0 when
** there is none or it is not (the response then unused); < 0 an error
** (SQLITE_ codes negated, msg set unless out of memory). */
static int rem_open_kept(pqx_remote *r, pqx_footers *f, const char *fn,
                         char **msg) {
  char etag[FOOTER_TAG_MAX + 1];
  footer_tag(f, r->url, etag);
  if (!etag[0]) return 0;
  char line[FOOTER_TAG_MAX + 32];
  snprintf(line, sizeof line, "If-None-Match: %s", etag);
  for (struct curl_slist *l = r->base; l; l = l->next) {
    struct curl_slist *n = curl_slist_append(r->kept, l->data);
    if (!n) return -SQLITE_NOMEM;
    r->kept = n;
  }
  struct curl_slist *n = curl_slist_append(r->kept, line);
  if (!n) return -SQLITE_NOMEM;
  r->kept = n;
  uint8_t none;
  rem_resp q;
  memset(&q, 0, sizeof q);
  q.dst = &none;
  q.cap = 0; /* a body is not read: the request is made again without */
  pq_error err;
  int rc = rem_request(r, 0, r->o.footer_guess, REQ_KEPT, &q, &err);
  if (rc == PQ_NOMEM) return -SQLITE_NOMEM;
  if (rc == PQ_IO && !q.overflow) {
    *msg = rem_error(fn, r->url, &err);
    return -SQLITE_ERROR;
  }
  if (rc || q.status != 304 || (q.etag[0] && strcmp(q.etag, etag) != 0))
    return 0;
  uint8_t *tail;
  uint64_t at, size;
  size_t len;
  int got = footer_take(f, r->url, etag, &tail, &at, &len, &size, r->date);
  if (got == -2) return -SQLITE_NOMEM;
  if (got) return 0;
  r->tail = tail;
  r->tail_at = at;
  r->tail_len = len;
  r->size = size;
  snprintf(r->etag, sizeof r->etag, "%s", etag);
  return rem_validators(r) ? -SQLITE_NOMEM : 1;
}

static int rem_open_fetch(pqx_remote *r, const char *fn, char **msg);

static int rem_open_tail(pqx_remote *r, const char *fn, char **msg) {
  pqx_footers *f = r->cache = pqx_footers_of(r->o.db);
  if (f) {
    int k = rem_open_kept(r, f, fn, msg);
    if (k < 0) return -k;
    if (k > 0) return SQLITE_OK;
  }
  int rc = rem_open_fetch(r, fn, msg);
  if (rc == SQLITE_OK)
    footer_keep(f, r->url, r->etag, r->date, r->tail, r->tail_at, r->tail_len,
                r->size);
  return rc;
}

/* Opening by fetching the end of the object. */
static int rem_open_fetch(pqx_remote *r, const char *fn, char **msg) {
  pq_error err;
  size_t guess = r->o.footer_guess;
  /* (a byte more than asked: a server that reads "-N" as "0-N" sends it) */
  r->tail = sqlite3_malloc64(guess + 1);
  if (!r->tail) return SQLITE_NOMEM;
  rem_resp q;
  memset(&q, 0, sizeof q);
  q.dst = r->tail;
  q.cap = guess + 1;
  int rc = rem_request(r, 0, guess, REQ_SUFFIX, &q, &err);
  if (rc == PQ_NOMEM) return SQLITE_NOMEM;
  if (rc == PQ_IO && q.overflow && q.status == 200) {
    *msg = sqlite3_mprintf(
        "%s: '%s': the server sent the whole object (HTTP 200): it does not "
        "serve ranges, and the object is larger than %lld bytes",
        fn, r->url, (long long)guess);
    return SQLITE_ERROR;
  }
  if (rc) {
    *msg = rem_error(fn, r->url, &err);
    return SQLITE_ERROR;
  }
  if (q.etag_long) {
    *msg = sqlite3_mprintf("%s: '%s': its ETag is longer than %d bytes", fn,
                           r->url, ETAG_MAX);
    return SQLITE_ERROR;
  }
  memcpy(r->etag, q.etag, sizeof r->etag);
  memcpy(r->date, q.date, sizeof r->date);
  if (q.status == 200) { /* the whole object: no ranges, but it fits */
    r->size = q.got;
    r->tail_at = 0;
    r->tail_len = q.got;
    return SQLITE_OK;
  }
  if (q.has_range && !q.bad_range && q.total != UINT64_MAX && q.first == 0 &&
      q.last + 1 < q.total && q.got == q.last + 1 && q.got <= guess + 1) {
    /* The file's start for its end (a server that reads "-N" as "0-N"):
    ** the size is known now, so the end by its offsets. */
    r->size = q.total;
    uint64_t from = q.total > guess ? q.total - guess : 0;
    rc = rem_fetch(r, from, (size_t)(q.total - from), r->tail, &err);
    if (rc == PQ_NOMEM) return SQLITE_NOMEM;
    if (rc) {
      *msg = rem_error(fn, r->url, &err);
      return SQLITE_ERROR;
    }
    q.first = from;
    q.last = q.total - 1;
    q.got = (size_t)(q.total - from);
  }
  if (!q.has_range || q.bad_range || q.total == UINT64_MAX ||
      q.first == UINT64_MAX || q.last + 1 != q.total ||
      q.got != q.last - q.first + 1 || q.got > guess ||
      (q.got < guess && q.first != 0)) {
    *msg = sqlite3_mprintf(
        "%s: '%s': the response to the range of the last %lld bytes has "
        "no Content-Range that matches its body",
        fn, r->url, (long long)guess);
    return SQLITE_ERROR;
  }
  r->size = q.total;
  r->tail_at = q.first;
  r->tail_len = q.got;
  /* The footer's length, when the tail holds it and it is longer. */
  if (r->tail_len >= 8 && memcmp(r->tail + r->tail_len - 4, "PAR1", 4) == 0) {
    const uint8_t *p = r->tail + r->tail_len - 8;
    uint64_t flen = (uint64_t)p[0] | (uint64_t)p[1] << 8 |
                    (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    if (flen + 8 > r->tail_len && flen + 8 <= r->size && r->tail_at > 0) {
      uint64_t from = r->size - 8 - flen;
      if (flen + 8 > pqx_db_limit(r->o.db)) {
        *msg = sqlite3_mprintf(
            "%s: '%s': its footer of %llu bytes is past "
            "the limit" PQX_LIMIT_HINT,
            fn, r->url, (unsigned long long)flen);
        return SQLITE_ERROR;
      }
      uint8_t *t = sqlite3_malloc64(flen + 8);
      if (!t) return SQLITE_NOMEM;
      size_t have = r->tail_len;
      memcpy(t + (r->tail_at - from), r->tail, have);
      rc = rem_fetch(r, from, (size_t)(r->tail_at - from), t, &err);
      if (rc) {
        sqlite3_free(t);
        if (rc == PQ_NOMEM) return SQLITE_NOMEM;
        *msg = rem_error(fn, r->url, &err);
        return SQLITE_ERROR;
      }
      sqlite3_free(r->tail);
      r->tail = t;
      r->tail_at = from;
      r->tail_len = (size_t)(flen + 8);
    }
  }
  return rem_validators(r) ? SQLITE_NOMEM : SQLITE_OK;
}

/* A new object for url, with the settings o: its handle made, nothing
** fetched (NULL: out of memory). */
static pqx_remote *rem_new(const pqx_http_opts *o, const char *url) {
  pqx_remote *r = sqlite3_malloc(sizeof *r);
  if (!r) return NULL;
  memset(r, 0, sizeof *r);
  r->o = *o;
  if (pthread_mutex_init(&r->mu, NULL) != 0) {
    sqlite3_free(r);
    return NULL;
  }
  r->url = sqlite3_mprintf("%s", url);
  r->h = r->url ? curl_easy_init() : NULL;
  if (!r->h) {
    pqx_remote_free(r);
    return NULL;
  }
  return r;
}

int pqx_remote_open(pqx_remote **out, const pqx_http_opts *o, const char *fn,
                    const char *url, char **msg) {
  *out = NULL;
  *msg = NULL;
  pqx_remote *r = rem_new(o, url);
  if (!r) return SQLITE_NOMEM;
  int rc = SQLITE_OK;
  if (sqlite3_strnicmp(url, "s3://", 5) == 0) {
    rc = rem_s3_setup(r, fn, msg);
  } else {
    r->http = sqlite3_mprintf("%s", url);
    if (!r->http) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK && rem_setup(r)) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) rc = rem_open_tail(r, fn, msg);
  if (rc) {
    pqx_remote_free(r);
    return rc;
  }
  *out = r;
  return SQLITE_OK;
}

/* ---- Listing an s3:// prefix ------------------------------------------- */

#define LIST_PAGE_MAX ((size_t)4 << 20) /* a listing page's bytes */
#define LIST_KEYS_MAX 100000            /* objects a pattern may name */
#define LIST_KEY_MAX 1024               /* S3's longest key */

typedef struct ListOut {
  char **paths;
  int n, cap;
} ListOut;

static int list_add(ListOut *l, const char *b, size_t bn, const char *key) {
  if (l->n == l->cap) {
    int cap = l->cap ? 2 * l->cap : 16;
    char **p = sqlite3_realloc64(l->paths, (size_t)cap * sizeof *p);
    if (!p) return SQLITE_NOMEM;
    l->paths = p;
    l->cap = cap;
  }
  l->paths[l->n] = sqlite3_mprintf("s3://%.*s/%s", (int)bn, b, key);
  if (!l->paths[l->n]) return SQLITE_NOMEM;
  l->n++;
  return SQLITE_OK;
}

static int list_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One page of the listing of prefix (after the token in next, when not
** empty) into l: the keys that match pat; next becomes the token of the
** page after, or empty. */
static int list_page(pqx_remote *r, const char *fn, const char *b, size_t bn,
                     const char *prefix, const char *pat, char *next,
                     size_t next_cap, uint8_t *buf, ListOut *l, char **msg) {
  char *pv = rem_escape(prefix, 0);
  char *tv = next[0] ? rem_escape(next, 0) : sqlite3_mprintf("%s", "");
  char *q = NULL;
  if (pv && tv) {
    /* the parameters in SigV4's order (sorted by name) */
    q = sqlite3_mprintf("?%s%s%slist-type=2&max-keys=%d&prefix=%s",
                        tv[0] ? "continuation-token=" : "", tv,
                        tv[0] ? "&" : "", r->o.s3_max_keys, pv);
  }
  sqlite3_free(pv);
  sqlite3_free(tv);
  if (!q) return SQLITE_NOMEM;
  sqlite3_free(r->http);
  r->http = rem_s3_url(r, b, bn, q);
  sqlite3_free(q);
  if (!r->http) return SQLITE_NOMEM;
  if (curl_easy_setopt(r->h, CURLOPT_URL, r->http) != CURLE_OK)
    return SQLITE_NOMEM;
  rem_resp resp;
  memset(&resp, 0, sizeof resp);
  resp.dst = buf;
  resp.cap = LIST_PAGE_MAX;
  pq_error err;
  int rc = rem_request(r, 0, 0, REQ_WHOLE, &resp, &err);
  if (rc == PQ_NOMEM) return SQLITE_NOMEM;
  if (rc == PQ_OK && resp.status != 200) {
    rc = pqx_input_fail(&err, "http", PQ_IO, "the listing: HTTP %d",
                        resp.status);
  }
  if (rc) {
    *msg = rem_error(fn, r->url, &err);
    return SQLITE_ERROR;
  }
  const char *x = (const char *)buf;
  size_t xn = resp.got, pos = 0, len;
  char key[LIST_KEY_MAX + 1];
  int got;
  while ((got = pq_s3_list_key(x, xn, &pos, key, sizeof key, &len)) == 0) {
    if (strlen(key) != len || !pqx_glob_key_match(pat, key)) continue;
    if (l->n >= LIST_KEYS_MAX) {
      *msg = sqlite3_mprintf("%s: '%s' names more than %d objects", fn, r->url,
                             LIST_KEYS_MAX);
      return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    rc = list_add(l, b, bn, key);
    if (rc) return rc;
  }
  char flag[16];
  int t = got < 0
              ? -1
              : pq_s3_list_field(x, xn, "IsTruncated", flag, sizeof flag, &len);
  int more = t == 0 && !strcmp(flag, "true");
  next[0] = 0;
  if (more && pq_s3_list_field(x, xn, "NextContinuationToken", next, next_cap,
                               &len) != 0)
    t = -1;
  if (t < 0 || (more && !next[0])) {
    *msg = sqlite3_mprintf(
        "%s: '%s': the listing is not S3's "
        "ListObjectsV2 XML",
        fn, r->url);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  return SQLITE_OK;
}

int pqx_remote_list(const pqx_http_opts *o, const char *fn, const char *pattern,
                    int lenient, char ***paths, int *n, char **msg) {
  *paths = NULL;
  *n = 0;
  *msg = NULL;
  pqx_remote *r = rem_new(o, pattern);
  if (!r) return SQLITE_NOMEM;
  ListOut l = {NULL, 0, 0};
  char *pat = NULL, *prefix = NULL, *next = NULL;
  uint8_t *buf = NULL;
  const char *b = NULL, *key = NULL;
  size_t bn = 0;
  int rc = rem_s3_parts(r, fn, 0, &b, &bn, &key, msg);
  if (rc == SQLITE_OK) {
    /* a folder ("dir/", or the bucket): every *.parquet below */
    size_t kn = strlen(key);
    pat = kn == 0 || key[kn - 1] == '/' ? sqlite3_mprintf("%s**/*.parquet", key)
                                        : sqlite3_mprintf("%s", key);
    prefix = sqlite3_mprintf("%.*s", (int)strcspn(key, "*?["), key);
    r->http = sqlite3_mprintf("%s", "");
    next = sqlite3_malloc(LIST_KEY_MAX * 2);
    buf = sqlite3_malloc64(LIST_PAGE_MAX);
    if (!pat || !prefix || !r->http || !next || !buf) rc = SQLITE_NOMEM;
  }
  if (rc == SQLITE_OK) rc = rem_s3_sign(r);
  if (rc == SQLITE_OK && rem_setup(r)) rc = SQLITE_NOMEM;
  if (rc == SQLITE_OK) {
    next[0] = 0;
    do {
      rc = list_page(r, fn, b, bn, prefix, pat, next, LIST_KEY_MAX * 2, buf, &l,
                     msg);
    } while (rc == SQLITE_OK && next[0]);
  }
  if (rc == SQLITE_OK && l.n == 0 && !lenient) {
    *msg = sqlite3_mprintf("%s: no object matches '%s'", fn, pattern);
    rc = *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  sqlite3_free(pat);
  sqlite3_free(prefix);
  sqlite3_free(next);
  sqlite3_free(buf);
  pqx_remote_free(r);
  if (rc) {
    for (int i = 0; i < l.n; i++) sqlite3_free(l.paths[i]);
    sqlite3_free(l.paths);
    return rc;
  }
  if (l.n > 1) qsort(l.paths, (size_t)l.n, sizeof *l.paths, list_cmp);
  *paths = l.paths;
  *n = l.n;
  return SQLITE_OK;
}

int pqx_remote_check(pqx_remote *r, const char *fn, int *same, char **msg) {
  *same = 0;
  *msg = NULL;
  uint8_t two[2];
  rem_resp q;
  memset(&q, 0, sizeof q);
  q.dst = two;
  q.cap = 2;
  pq_error err;
  pthread_mutex_lock(&r->mu);
  /* its first two bytes (some servers read "0-0" as "0-1") */
  int rc = rem_request(r, 0, 2, REQ_PLAIN, &q, &err);
  pthread_mutex_unlock(&r->mu);
  if (rc == PQ_NOMEM) return SQLITE_NOMEM;
  if (rc) {
    *msg = rem_error(fn, r->url, &err);
    return SQLITE_ERROR;
  }
  int changed;
  rem_same(r, &q, &changed);
  /* with neither ETag nor date, a change cannot be told: read it again */
  *same = !changed && (r->etag[0] || r->date[0]) && q.status == 206;
  return SQLITE_OK;
}

uint64_t pqx_remote_size(const pqx_remote *r) {
  return r->size;
}

void pqx_remote_free(pqx_remote *r) {
  if (!r) return;
  rem_spans_free(r);
  pqx_footers_free(r->cache);
  for (int j = 0; j < PQX_HTTP_PARALLEL_MAX; j++)
    if (r->ph[j]) curl_easy_cleanup(r->ph[j]);
  if (r->multi) curl_multi_cleanup(r->multi);
  if (r->h) curl_easy_cleanup(r->h);
  curl_slist_free_all(r->hdr);
  curl_slist_free_all(r->kept);
  curl_slist_free_all(r->base);
  sqlite3_free(r->http);
  /* the credentials are not left in freed memory */
  volatile char *v = (volatile char *)&r->o;
  for (size_t i = 0; i < sizeof r->o; i++) v[i] = 0;
  pthread_mutex_destroy(&r->mu);
  sqlite3_free(r->url);
  sqlite3_free(r->tail);
  sqlite3_free(r->blk);
  sqlite3_free(r);
}

int pqx_remote_available(void) {
  return 1;
}

#elif defined(__EMSCRIPTEN__) && !defined(PARQUET_OMIT_FILES)

/* ---- The playground's URLs: the page's XMLHttpRequest ------------------
** WebAssembly in a browser has no libcurl and no sockets: the playground
** (web/, doc/playground.md) reads a URL through its page, by synchronous
** XMLHttpRequests with a Range header (web/remote_lib.js gives the two
** calls below).  The page decides nothing: every check is made here, as
** the curl build makes them.  Opening is a suffix range of `footer_guess`
** bytes, whose Content-Range gives the size (no HEAD); each read is one
** range; a response must have the range asked for, exactly that many
** bytes, and the ETag, Last-Modified and size of the first one ("it
** changed while it was read" else).  A 200 (a server that ignores Range)
** is taken at the open when the whole object fits in `footer_guess`
** bytes, and refused after.  No request carries If-Match: a header a
** cross-origin request would need the server's leave to send (CORS);
** each response is compared instead.  s3:// is not spoken here.
**
** A synchronous request of a page cannot ask for bytes (responseType):
** its body comes as text decoded as x-user-defined, one character per
** byte, unless it begins with a byte order mark (EF BB BF, FE FF or
** FF FE), which browsers honour: the text is then shorter than the
** range.  A short body is asked for again from a byte or two earlier
** (WREM_SHIFTS times), its first bytes dropped. */

#define WREM_META 256 /* a header's room: 255 bytes and a NUL */
#define WREM_SHIFTS 3

/* The page's request (web/remote_lib.js): GET url with "Range: bytes=at-"
** (at + n - 1), or "bytes=-n" when suffix; the body's bytes from `skip`
** on, up to cap of them, into dst, *got set to the body's whole length;
** meta gets three NUL-ended headers of WREM_META bytes each,
** Content-Range, ETag, Last-Modified ("" when absent, or not readable
** under CORS).  Returns the HTTP status; 0 when the request failed (no
** connection, a refusal under CORS); -1 when there is no XMLHttpRequest
** (node). */
extern int pqx_js_range(const char *url, double at, double n, int suffix,
                        double skip, uint8_t *dst, double cap, double *got,
                        char *meta);
/* Waits ms milliseconds (a retry's pause). */
extern void pqx_js_wait(int ms);

struct pqx_remote {
  char *url;
  pqx_http_opts o;
  uint64_t size;
  char etag[WREM_META]; /* empty: none */
  char date[WREM_META]; /* Last-Modified; empty: none */
  uint8_t *tail;        /* the end of the file, from the open */
  uint64_t tail_at;
  size_t tail_len;
  uint8_t *blk; /* the last short read's block */
  uint64_t blk_at;
  size_t blk_len, blk_cap;
};

/* What a response said. */
typedef struct wrem_resp {
  int status;
  uint64_t got; /* the body's bytes */
  int has_range, bad_range;
  uint64_t first, last, total;
  char meta[3 * WREM_META];
} wrem_resp;

#define WREM_ETAG(q) ((q)->meta + WREM_META)
#define WREM_DATE(q) ((q)->meta + 2 * WREM_META)

/* One request (a suffix range of n bytes, or [at, at + n)), retried as
** the curl build retries: a failed request, a 5xx or 429.  PQ_OK with q
** filled and the body in dst (from byte skip, up to cap), or the error. */
static int wrem_request(pqx_remote *r, uint64_t at, uint64_t n, int suffix,
                        uint64_t skip, uint8_t *dst, size_t cap,
                        wrem_resp *q, pq_error *err) {
  char what[80];
  if (suffix) {
    snprintf(what, sizeof what, "bytes -%llu", (unsigned long long)n);
  } else {
    snprintf(what, sizeof what, "bytes %llu-%llu", (unsigned long long)at,
             (unsigned long long)(at + n - 1));
  }
  int wait = 100;
  for (int attempt = 0;; attempt++) {
    double got = 0;
    memset(q, 0, sizeof *q);
    q->status = pqx_js_range(r->url, (double)at, (double)n, suffix,
                             (double)skip, dst, (double)cap, &got, q->meta);
    q->got = got > 0 ? (uint64_t)got : 0;
    if (q->status < 0) {
      return pqx_input_fail(err, "http", PQ_IO,
                            "%s: this build reads URLs through a browser's "
                            "XMLHttpRequest, and there is none here",
                            what);
    }
    int retry = q->status == 0 || q->status == 429 || q->status >= 500;
    if (retry && attempt < r->o.retries) {
      pqx_js_wait(wait);
      wait *= 2;
      continue;
    }
    if (q->status == 0) {
      return pqx_input_fail(err, "http", PQ_IO,
                            "%s: the request failed: no answer, or one this "
                            "page may not read (does the server allow it "
                            "CORS?)%s",
                            what, attempt ? " (after retries)" : "");
    }
    if (q->status != 206 && q->status != 200) {
      return pqx_input_fail(err, "http", PQ_IO, "%s: HTTP %d%s", what,
                            q->status, attempt ? " (after retries)" : "");
    }
    const char *cr = q->meta;
    if (cr[0]) {
      q->has_range = 1;
      q->bad_range = pq_http_content_range(cr, strlen(cr), &q->first,
                                           &q->last, &q->total) != 0;
    }
    return PQ_OK;
  }
}

/* Whether q is of the object opened. */
static int wrem_changed(const pqx_remote *r, const wrem_resp *q) {
  return strcmp(WREM_ETAG(q), r->etag) != 0 ||
         strcmp(WREM_DATE(q), r->date) != 0 ||
         (q->has_range && !q->bad_range && q->total != UINT64_MAX &&
          q->total != r->size);
}

/* [at, at + n) into dst, every byte checked; a body that came short (a
** byte order mark taken for one) asked for again from earlier. */
static int wrem_fetch(pqx_remote *r, uint64_t at, size_t n, uint8_t *dst,
                      pq_error *err) {
  unsigned long long a = at, b = at + n - 1;
  for (uint64_t back = 0;; back++) {
    wrem_resp q;
    int rc = wrem_request(r, at - back, n + back, 0, back, dst, n, &q, err);
    if (rc) return rc;
    if (q.status == 200) {
      return pqx_input_fail(err, "http", PQ_IO,
                            "bytes %llu-%llu: the server sent the whole "
                            "object (HTTP 200): it does not serve ranges",
                            a, b);
    }
    if (wrem_changed(r, &q)) {
      return pqx_input_fail(err, "http", PQ_IO,
                            "it changed while it was read (bytes %llu-%llu: "
                            "another ETag, date or size)",
                            a, b);
    }
    if (!q.has_range || q.bad_range || q.first != at - back || q.last != b) {
      return pqx_input_fail(err, "http", PQ_IO,
                            "bytes %llu-%llu: the response's Content-Range "
                            "is not that range%s",
                            a, b,
                            q.has_range ? ""
                                        : " (it has none this page may "
                                          "read: does the server expose "
                                          "it to CORS?)");
    }
    if (q.got == n + back) return PQ_OK;
    if (q.got > n + back || back == WREM_SHIFTS || back == at) {
      return pqx_input_fail(err, "http", PQ_IO,
                            "bytes %llu-%llu: the response has %llu bytes "
                            "of %llu",
                            a, b, (unsigned long long)q.got,
                            (unsigned long long)(n + back));
    }
  }
}

int pqx_remote_read(void *ctx, uint64_t offset, void *dst, size_t n,
                    pq_error *err) {
  pqx_remote *r = ctx;
  if (n == 0) return PQ_OK;
  if (offset > r->size || n > r->size - offset) {
    return pqx_input_fail(err, "http", PQ_IO,
                          "%llu bytes at offset %llu are past its end",
                          (unsigned long long)n, (unsigned long long)offset);
  }
  if (offset >= r->tail_at && offset - r->tail_at <= r->tail_len &&
      n <= r->tail_len - (offset - r->tail_at)) {
    memcpy(dst, r->tail + (offset - r->tail_at), n);
    return PQ_OK;
  }
  if (r->blk_len && offset >= r->blk_at && offset - r->blk_at <= r->blk_len &&
      n <= r->blk_len - (offset - r->blk_at)) {
    memcpy(dst, r->blk + (offset - r->blk_at), n);
    return PQ_OK;
  }
  if (n >= r->o.read_min) return wrem_fetch(r, offset, n, dst, err);
  /* a short read (a page header): a block from it, kept */
  uint64_t want = r->o.read_min;
  if (want > r->size - offset) want = r->size - offset;
  if (want > r->blk_cap) {
    uint8_t *p = sqlite3_realloc64(r->blk, want);
    if (!p) return pqx_input_fail(err, "http", PQ_NOMEM, "out of memory");
    r->blk = p;
    r->blk_cap = (size_t)want;
  }
  r->blk_len = 0;
  int rc = wrem_fetch(r, offset, (size_t)want, r->blk, err);
  if (rc) return rc;
  r->blk_at = offset;
  r->blk_len = (size_t)want;
  memcpy(dst, r->blk, n);
  return PQ_OK;
}

static char *wrem_error(const char *fn, const char *url, const pq_error *e) {
  return sqlite3_mprintf("%s: '%s': %s", fn, url, e->msg);
}

/* The end of the file: its size, validators, and the tail that holds the
** footer (a second request for the rest of a longer one). */
static int wrem_open_tail(pqx_remote *r, const char *fn, char **msg) {
  pq_error err;
  size_t guess = r->o.footer_guess;
  /* a byte more than asked: a longer body is seen, not cut */
  r->tail = sqlite3_malloc64(guess + 1);
  if (!r->tail) return SQLITE_NOMEM;
  wrem_resp q;
  int rc = wrem_request(r, 0, guess, 1, 0, r->tail, guess + 1, &q, &err);
  if (rc) {
    *msg = wrem_error(fn, r->url, &err);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (strlen(WREM_ETAG(&q)) >= WREM_META - 1 ||
      strlen(WREM_DATE(&q)) >= WREM_META - 1) {
    *msg = sqlite3_mprintf("%s: '%s': its ETag or Last-Modified is longer "
                           "than %d bytes",
                           fn, r->url, WREM_META - 2);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  memcpy(r->etag, WREM_ETAG(&q), WREM_META);
  memcpy(r->date, WREM_DATE(&q), WREM_META);
  if (q.status == 200) { /* the whole object: no ranges, but it may fit */
    if (q.got > guess) {
      *msg = sqlite3_mprintf(
          "%s: '%s': the server sent the whole object (HTTP 200): it does "
          "not serve ranges, and the object is larger than %lld bytes",
          fn, r->url, (long long)guess);
      return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
    }
    r->size = q.got;
    r->tail_at = 0;
    r->tail_len = (size_t)q.got;
    return SQLITE_OK;
  }
  int ok = q.has_range && !q.bad_range && q.total != UINT64_MAX &&
           q.first != UINT64_MAX && q.last + 1 == q.total &&
           q.last - q.first + 1 <= guess &&
           (q.last - q.first + 1 == guess || q.first == 0);
  if (!ok) {
    *msg = sqlite3_mprintf(
        "%s: '%s': the response to the range of the last %lld bytes has "
        "no Content-Range that matches it%s",
        fn, r->url, (long long)guess,
        q.has_range ? ""
                    : " (none this page may read: does the server expose "
                      "Content-Range to CORS?)");
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  r->size = q.total;
  r->tail_at = q.first;
  r->tail_len = (size_t)(q.last - q.first + 1);
  if (q.got != r->tail_len) {
    /* short (a byte order mark at its start), or long: its range again */
    rc = wrem_fetch(r, r->tail_at, r->tail_len, r->tail, &err);
    if (rc == PQ_NOMEM) return SQLITE_NOMEM;
    if (rc) {
      *msg = wrem_error(fn, r->url, &err);
      return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
    }
  }
  /* The footer's length, when the tail holds it and it is longer. */
  if (r->tail_len >= 8 && memcmp(r->tail + r->tail_len - 4, "PAR1", 4) == 0) {
    const uint8_t *p = r->tail + r->tail_len - 8;
    uint64_t flen = (uint64_t)p[0] | (uint64_t)p[1] << 8 |
                    (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
    if (flen + 8 > r->tail_len && flen + 8 <= r->size && r->tail_at > 0) {
      uint64_t from = r->size - 8 - flen;
      if (flen + 8 > pqx_db_limit(r->o.db)) {
        *msg = sqlite3_mprintf("%s: '%s': its footer of %llu bytes is past "
                               "the limit" PQX_LIMIT_HINT,
                               fn, r->url, (unsigned long long)flen);
        return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
      }
      uint8_t *t = sqlite3_malloc64(flen + 8);
      if (!t) return SQLITE_NOMEM;
      memcpy(t + (r->tail_at - from), r->tail, r->tail_len);
      rc = wrem_fetch(r, from, (size_t)(r->tail_at - from), t, &err);
      if (rc) {
        sqlite3_free(t);
        if (rc == PQ_NOMEM) return SQLITE_NOMEM;
        *msg = wrem_error(fn, r->url, &err);
        return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
      }
      sqlite3_free(r->tail);
      r->tail = t;
      r->tail_at = from;
      r->tail_len = (size_t)(flen + 8);
    }
  }
  return SQLITE_OK;
}

int pqx_remote_open(pqx_remote **out, const pqx_http_opts *o, const char *fn,
                    const char *url, char **msg) {
  *out = NULL;
  *msg = NULL;
  if (sqlite3_strnicmp(url, "s3://", 5) == 0) {
    *msg = sqlite3_mprintf(
        "%s: '%s': the playground reads no s3:// URLs: use the object's "
        "https:// URL (its bucket must be public and allow CORS)",
        fn, url);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  pqx_remote *r = sqlite3_malloc(sizeof *r);
  if (!r) return SQLITE_NOMEM;
  memset(r, 0, sizeof *r);
  r->o = *o;
  r->url = sqlite3_mprintf("%s", url);
  int rc = r->url ? wrem_open_tail(r, fn, msg) : SQLITE_NOMEM;
  if (rc) {
    pqx_remote_free(r);
    return rc;
  }
  *out = r;
  return SQLITE_OK;
}

int pqx_remote_list(const pqx_http_opts *o, const char *fn, const char *pattern,
                    int lenient, char ***paths, int *n, char **msg) {
  (void)o;
  (void)lenient;
  *paths = NULL;
  *n = 0;
  *msg = sqlite3_mprintf(
      "%s: '%s': the playground reads no s3:// URLs, nor lists them", fn,
      pattern);
  return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

int pqx_remote_check(pqx_remote *r, const char *fn, int *same, char **msg) {
  *same = 0;
  *msg = NULL;
  uint8_t two[2];
  wrem_resp q;
  pq_error err;
  /* its first two bytes (some servers read "0-0" as "0-1") */
  int rc = wrem_request(r, 0, 2, 0, 0, two, 2, &q, &err);
  if (rc) {
    *msg = wrem_error(fn, r->url, &err);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  /* with neither ETag nor date, a change cannot be told: read it again */
  *same = !wrem_changed(r, &q) && (r->etag[0] || r->date[0]) &&
          q.status == 206;
  return SQLITE_OK;
}

uint64_t pqx_remote_size(const pqx_remote *r) {
  return r->size;
}

/* Reads here are synchronous requests of the page, one at a time: nothing
** is fetched ahead. */
void pqx_remote_fetch(pqx_remote *r, const uint64_t *ranges, int n,
                      int pages) {
  (void)r;
  (void)ranges;
  (void)n;
  (void)pages;
}

void pqx_remote_free(pqx_remote *r) {
  if (!r) return;
  sqlite3_free(r->url);
  sqlite3_free(r->tail);
  sqlite3_free(r->blk);
  sqlite3_free(r);
}

int pqx_remote_available(void) {
  return 1;
}

#else /* no libcurl (make WITHOUT=curl), or no file access at all */

struct pqx_remote {
  int unused;
};

int pqx_remote_read(void *ctx, uint64_t offset, void *dst, size_t n,
                    pq_error *err) {
  (void)ctx;
  (void)offset;
  (void)dst;
  (void)n;
  snprintf(err->msg, sizeof err->msg, "http: this build reads no URLs");
  err->code = PQ_IO;
  return PQ_IO;
}

int pqx_remote_open(pqx_remote **out, const pqx_http_opts *o, const char *fn,
                    const char *url, char **msg) {
  (void)o;
  *out = NULL;
  *msg = sqlite3_mprintf(PQX_NO_URLS_MSG, fn, url);
  return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

int pqx_remote_list(const pqx_http_opts *o, const char *fn, const char *pattern,
                    int lenient, char ***paths, int *n, char **msg) {
  (void)o;
  (void)lenient;
  *paths = NULL;
  *n = 0;
  *msg = sqlite3_mprintf(PQX_NO_URLS_MSG, fn, pattern);
  return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

int pqx_remote_check(pqx_remote *r, const char *fn, int *same, char **msg) {
  (void)r;
  (void)fn;
  *same = 0;
  *msg = NULL;
  return SQLITE_OK;
}

uint64_t pqx_remote_size(const pqx_remote *r) {
  (void)r;
  return 0;
}

void pqx_remote_fetch(pqx_remote *r, const uint64_t *ranges, int n,
                      int pages) {
  (void)r;
  (void)ranges;
  (void)n;
  (void)pages;
}

void pqx_remote_free(pqx_remote *r) {
  (void)r;
}

int pqx_remote_available(void) {
  return 0;
}

#endif

/* ---- parquet_http_option(name [, value]), parquet_s3_credentials ------- */

/* The settings: numbers (lo to hi) of the field at `at`, of its size; or
** strings (text; hi: their room). */
#define HTTP_NUM(name, lo, hi, f) \
  {name, lo, hi, 0, offsetof(pqx_http_opts, f), sizeof(((pqx_http_opts *)0)->f)}
#define HTTP_TEXT(name, f) \
  {name, 0, sizeof(((pqx_http_opts *)0)->f) - 1, 1, offsetof(pqx_http_opts, f), 0}
static const struct {
  const char *name;
  long long lo, hi;
  int text;
  size_t at, size;
} http_names[] = {
    HTTP_NUM("connect_timeout_ms", 1, 3600000, connect_timeout_ms),
    HTTP_NUM("timeout_ms", 0, 86400000, timeout_ms),
    HTTP_NUM("retries", 0, 10, retries),
    HTTP_NUM("footer_guess", 8, 64 << 20, footer_guess),
    HTTP_NUM("read_min", 0, 64 << 20, read_min),
    HTTP_NUM("fetch_ahead", 0, (long long)1 << 40, fetch_ahead),
    HTTP_NUM("coalesce_gap", 0, 64 << 20, coalesce_gap),
    HTTP_NUM("parallel", 1, PQX_HTTP_PARALLEL_MAX, parallel),
    HTTP_NUM("cache_size", 0, (long long)1 << 40, cache_size),
    HTTP_NUM("s3_max_keys", 1, 1000, s3_max_keys),
    HTTP_TEXT("s3_region", s3_region),
    HTTP_TEXT("s3_endpoint", s3_endpoint),
    HTTP_NUM("s3_part_size", 5 << 20, 5LL << 30, s3_part_size),
};
#define HTTP_NAMES ((int)(sizeof http_names / sizeof *http_names))

static long long http_get(const pqx_http_opts *o, int i) {
  const char *p = (const char *)o + http_names[i].at;
  switch (http_names[i].size) {
    case sizeof(int): return *(const int *)p;
    case sizeof(long long): return *(const long long *)p;
    default: return (long long)*(const size_t *)p;
  }
}

static void http_put(pqx_http_opts *o, int i, long long v) {
  char *p = (char *)o + http_names[i].at;
  switch (http_names[i].size) {
    case sizeof(int): *(int *)p = (int)v; break;
    case sizeof(long long): *(long long *)p = v; break;
    default: *(size_t *)p = (size_t)v; break;
  }
}

static char *http_text(pqx_http_opts *o, int i) {
  return (char *)o + http_names[i].at;
}

/* parquet_http_option(name): the setting; (name, value): sets it for the
** connection (not a schema's: DIRECTONLY, and guarded) and returns the
** one it replaces (a string setting: NULL for none). */
static void httpOptionFunc(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  static const char fn[] = "parquet_http_option";
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  int i = -1;
  for (int k = 0; name && k < HTTP_NAMES; k++)
    if (!strcmp(name, http_names[k].name)) i = k;
  if (i < 0) {
    char names[512];
    size_t at = 0;
    names[0] = 0;
    for (int k = 0; k < HTTP_NAMES && at < sizeof names; k++)
      at += (size_t)snprintf(names + at, sizeof names - at, "%s%s",
                             k ? ", " : "", http_names[k].name);
    char *msg = sqlite3_mprintf("%s: no setting '%s' (%s)", fn,
                                name ? name : "NULL", names);
    pqx_result_error_msg(ctx, msg);
    return;
  }
  if (argc == 2 && pqx_guard_call(ctx, fn)) return;
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  pqx_http_opts *o = sqlite3_malloc(sizeof *o);
  if (!o) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  pqx_http_opts_of(db, o);
  long long old = 0;
  char was[512];
  if (http_names[i].text) {
    snprintf(was, sizeof was, "%s", http_text(o, i));
  } else {
    old = http_get(o, i);
  }
  if (argc == 2) {
    sqlite3_value *v = argv[1];
    char *bad = NULL;
    if (http_names[i].text) {
      const char *t = (const char *)sqlite3_value_text(v);
      int vt = sqlite3_value_type(v);
      if (vt != SQLITE_NULL && vt != SQLITE_TEXT) {
        bad = sqlite3_mprintf("%s: '%s' is TEXT (or NULL for none)", fn, name);
      } else if (t && (long long)strlen(t) > http_names[i].hi) {
        bad = sqlite3_mprintf("%s: '%s' is at most %lld bytes", fn, name,
                              http_names[i].hi);
      } else if (vt == SQLITE_TEXT && !t) {
        sqlite3_free(o);
        sqlite3_result_error_nomem(ctx);
        return;
      } else {
        snprintf(http_text(o, i), (size_t)http_names[i].hi + 1, "%s",
                 t ? t : "");
      }
    } else {
      long long n = sqlite3_value_int64(v);
      long long lo = strcmp(http_names[i].name, "s3_part_size") == 0
                         ? pqx_s3_part_min()
                         : http_names[i].lo;
      if (sqlite3_value_type(v) != SQLITE_INTEGER || n < lo ||
          n > http_names[i].hi) {
        bad = sqlite3_mprintf("%s: '%s' is an INTEGER from %lld to %lld", fn,
                              name, lo, http_names[i].hi);
      } else {
        http_put(o, i, n);
      }
    }
    if (bad) {
      sqlite3_free(o);
      pqx_result_error_msg(ctx, bad);
      return;
    }
    if (pqx_http_opts_set(db, o)) {
      sqlite3_free(o);
      sqlite3_result_error(ctx,
                           "parquet_http_option: the extension's "
                           "settings are gone from this connection",
                           -1);
      return;
    }
    if (http_names[i].at == offsetof(pqx_http_opts, cache_size)) {
      pqx_footers *f = pqx_footers_of(db); /* what it keeps, to the new size */
      pqx_footers_limit(f, o->cache_size);
      pqx_footers_free(f);
    }
  }
  sqlite3_free(o);
  if (!http_names[i].text) {
    sqlite3_result_int64(ctx, old);
  } else if (was[0]) {
    sqlite3_result_text(ctx, was, -1, SQLITE_TRANSIENT);
  } else {
    sqlite3_result_null(ctx);
  }
}

/* parquet_s3_credentials(key_id, secret [, session_token]): the
** credentials s3:// URLs are signed with on this connection, in place of
** the environment's; NULL, NULL forgets them.  They are never read back
** nor put in a message. */
static void s3CredentialsFunc(sqlite3_context *ctx, int argc,
                              sqlite3_value **argv) {
  static const char fn[] = "parquet_s3_credentials";
  if (pqx_guard_call(ctx, fn)) return;
  const char *id = (const char *)sqlite3_value_text(argv[0]);
  const char *secret = (const char *)sqlite3_value_text(argv[1]);
  const char *token =
      argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
  int clear = sqlite3_value_type(argv[0]) == SQLITE_NULL &&
              sqlite3_value_type(argv[1]) == SQLITE_NULL;
  pqx_http_opts *o = sqlite3_malloc(sizeof *o);
  if (!o) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  pqx_http_opts_of(db, o);
  char *bad = NULL;
  if (clear) {
    o->s3_key_id[0] = o->s3_secret[0] = o->s3_token[0] = 0;
  } else if (!id || !secret || !*id || !*secret) {
    bad = sqlite3_mprintf(
        "%s: the key id and the secret are TEXT, not "
        "empty (NULL, NULL forgets them)",
        fn);
  } else if (strlen(id) >= sizeof o->s3_key_id ||
             strlen(secret) >= sizeof o->s3_secret ||
             (token && strlen(token) >= sizeof o->s3_token)) {
    bad = sqlite3_mprintf(
        "%s: a credential is longer than this build keeps "
        "(key id %d, secret %d, token %d bytes)",
        fn, (int)sizeof o->s3_key_id - 1, (int)sizeof o->s3_secret - 1,
        (int)sizeof o->s3_token - 1);
  } else {
    snprintf(o->s3_key_id, sizeof o->s3_key_id, "%s", id);
    snprintf(o->s3_secret, sizeof o->s3_secret, "%s", secret);
    snprintf(o->s3_token, sizeof o->s3_token, "%s", token ? token : "");
  }
  int rc = bad ? SQLITE_OK : pqx_http_opts_set(db, o);
  volatile char *v = (volatile char *)o;
  for (size_t i = 0; i < sizeof *o; i++) v[i] = 0;
  sqlite3_free(o);
  if (bad) {
    pqx_result_error_msg(ctx, bad);
  } else if (rc) {
    sqlite3_result_error(ctx,
                         "parquet_s3_credentials: the extension's "
                         "settings are gone from this connection",
                         -1);
  } else {
    sqlite3_result_int(ctx, !clear);
  }
}

int pqx_register_remote(sqlite3 *db) {
#if defined(PQX_HAVE_CURL) && !defined(PARQUET_OMIT_FILES)
  /* libcurl's own start, once: counted, so a second call does nothing */
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) return SQLITE_ERROR;
#endif
  int rc = SQLITE_OK;
  for (int argc = 1; argc <= 2 && rc == SQLITE_OK; argc++)
    rc = sqlite3_create_function(db, "parquet_http_option", argc,
                                 SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
                                 httpOptionFunc, NULL, NULL);
  for (int argc = 2; argc <= 3 && rc == SQLITE_OK; argc++)
    rc = sqlite3_create_function(db, "parquet_s3_credentials", argc,
                                 SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
                                 s3CredentialsFunc, NULL, NULL);
  return rc;
}
