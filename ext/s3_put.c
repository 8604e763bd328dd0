/*
** s3_put.c -- parquet_write to s3://bucket/key (doc/remote.md, "Writing"):
** the table writer's sink (parquet.h, pq_table_sink) as an S3 upload.
**
**   SELECT parquet_write('s3://bucket/trips.parquet', 'SELECT * FROM trips');
**
** The writer's bytes fill a part of s3_part_size bytes (8 MiB; S3 takes
** parts of 5 MiB or more, but the last).  A full part is sent (UploadPart)
** as soon as more bytes come, into the multipart upload that the first
** one begins (CreateMultipartUpload), and its room filled again: memory
** follows one part, not the file.  The commit sends the last part and
** CompleteMultipartUpload; a file that fits in one part is one PUT, with
** no upload at all.  S3 makes an object whole or not at all, so until the
** commit nothing is at the key (an object there before stays as it was).
** The abort, after any failure (the query's, the writer's, out of
** memory, a part refused), ends the upload (AbortMultipartUpload): no
** pending upload is left either, whose parts S3 would keep.
**
** Requests are signed as the reads are (remote.c's pqx_s3_sign; the body
** as UNSIGNED-PAYLOAD, which S3 takes: TLS guards it on the way), and
** tried again as they are: a failed connection, a 5xx or 429, `retries`
** times, after 100 ms, then twice as long each time; a part is kept until
** it is taken, so that it can be sent again.  Before each request that
** makes something, the connection's file access is asked again (the
** query may turn it off).  Errors name the URL, the request (a part by
** its number and bytes), the HTTP status and S3's code.
**
** The sink's write may run on the table writer's worker thread; the
** writer calls it on one thread at a time, which is all the handle needs.
*/
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ext.h"
#include "remote.h"

#define S3P_FN "parquet_write"

long long pqx_s3_part_min(void) {
  const char *v = getenv("PARQUET_S3_MIN_PART_SIZE");
  long long n = v ? atoll(v) : 0;
  return n >= 1 ? n : 5LL << 20;
}

#if defined(PQX_HAVE_CURL) && !defined(PARQUET_OMIT_FILES)

#define S3P_PARTS_MAX 10000        /* S3's most parts of an upload */
#define S3P_BODY_MAX 65536         /* a response body's bytes kept */
#define S3P_ETAG_MAX 128
#define S3P_ID_MAX 1024            /* an upload's id */

struct pqx_s3_put {
  sqlite3 *db;
  char *url;                 /* s3://bucket/key, as given */
  char *http;                /* the object's URL */
  char *urlbuf;              /* ... with a request's query (no allocation
                             ** then: an abort needs none) */
  size_t urlcap;
  CURL *h;
  struct curl_slist *bin;    /* the headers of a request of bytes */
  struct curl_slist *xml;    /* ... and of CompleteMultipartUpload's */
  pqx_http_opts o;
  uint8_t *part;             /* the part being filled */
  size_t len, cap;
  int nparts;                /* parts sent */
  uint64_t sent;             /* their bytes */
  /* the upload's id, escaped (empty: none); kept here, so that nothing
  ** is allocated between S3's answer and its keeping */
  char upload[3 * S3P_ID_MAX + 1];
  int completed;             /* the object is whole: nothing to abort */
  pq_buf done;               /* CompleteMultipartUpload's <Part>s */
  /* the response to the last request */
  int status;
  char etag[S3P_ETAG_MAX + 1];
  int etag_long;
  char body[S3P_BODY_MAX + 1];
  size_t nbody;
  uint64_t skipped;          /* body bytes past those kept */
};

static size_t s3p_on_header(char *p, size_t size, size_t n, void *ctx) {
  pqx_s3_put *u = ctx;
  size_t len = size * n;
  int code;
  if (pq_http_status(p, len, &code) == 0) {
    /* a new response (after a 100 Continue) */
    u->status = code;
    u->etag[0] = 0;
    u->etag_long = 0;
    u->nbody = 0;
    u->body[0] = 0;
    u->skipped = 0;
    return len;
  }
  const char *name, *val;
  size_t nlen, vlen;
  if (pq_http_header(p, len, &name, &nlen, &val, &vlen)) return len;
  if (pq_http_name_is(name, nlen, "etag"))
    pqx_http_etag(val, vlen, u->etag, sizeof u->etag, &u->etag_long);
  return len;
}

/* The body's first bytes are kept (S3's XML); a body far longer than any
** answer of S3's ends the transfer. */
static size_t s3p_on_body(char *p, size_t size, size_t n, void *ctx) {
  pqx_s3_put *u = ctx;
  size_t len = size * n;
  size_t k = S3P_BODY_MAX - u->nbody;
  if (k > len) k = len;
  memcpy(u->body + u->nbody, p, k);
  u->nbody += k;
  u->body[u->nbody] = 0;
  u->skipped += len - k;
  return u->skipped > ((uint64_t)1 << 20) ? 0 : len;
}

/* The text of element `tag` in the body (the first), or NULL; *n its
** length. */
static const char *s3p_element(const pqx_s3_put *u, const char *tag,
                               size_t *n) {
  char open[64], close[64];
  snprintf(open, sizeof open, "<%s>", tag);
  snprintf(close, sizeof close, "</%s>", tag);
  const char *a = strstr(u->body, open);
  if (!a) return NULL;
  a += strlen(open);
  const char *b = strstr(a, close);
  if (!b) return NULL;
  *n = (size_t)(b - a);
  return a;
}

/* A failure, "'url': what: ...", appended to msg; returns code. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int s3p_fail(pqx_s3_put *u, pq_buf *msg, int code, const char *fmt,
                    ...) {
  va_list ap;
  va_start(ap, fmt);
  char *m = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  char *all = m ? sqlite3_mprintf("'%s': %s", u->url, m) : NULL;
  sqlite3_free(m);
  if (!all) return PQ_NOMEM;
  pq_buf_append(msg, all, strlen(all));
  sqlite3_free(all);
  return msg->oom ? PQ_NOMEM : code;
}

/* The connection may still write (parquet_file_access). */
static int s3p_allowed(pqx_s3_put *u, pq_buf *msg) {
  char *m;
  if (pqx_files_allowed(u->db, S3P_FN, &m)) return PQ_OK;
  if (!m) return PQ_NOMEM;
  /* the function's name is said once, by parquet_write's message */
  const char *t = strncmp(m, S3P_FN ": ", sizeof S3P_FN + 1) == 0
                      ? m + sizeof S3P_FN + 1
                      : m;
  int rc = s3p_fail(u, msg, PQ_MISUSE, "%s", t);
  sqlite3_free(m);
  return rc;
}

/* One request, tried again as the header says: method at the object's
** URL with `query` ("" or "?..."), body[0..n) its body (NULL: none),
** headers hdr.  PQ_OK when the answer is a 2xx (u's response holds it);
** else PQ_NOMEM, or PQ_IO with "'url': what: HTTP 403 (AccessDenied)" in
** msg. */
static int s3p_request(pqx_s3_put *u, const char *method, const char *query,
                       struct curl_slist *hdr, const uint8_t *body, size_t n,
                       const char *what, pq_buf *msg) {
  char *url = u->urlbuf;
  snprintf(url, u->urlcap, "%s%s", u->http, query);
  CURL *h = u->h;
  CURLcode c = curl_easy_setopt(h, CURLOPT_URL, url);
  if (c == CURLE_OK) c = curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
  if (body) {
    if (c == CURLE_OK)
      c = curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
    if (c == CURLE_OK)
      c = curl_easy_setopt(h, CURLOPT_POSTFIELDS, n ? (const char *)body : "");
  } else if (c == CURLE_OK) {
    c = curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
  }
  if (c == CURLE_OK) c = curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
  if (c != CURLE_OK) return PQ_NOMEM; /* (only for want of memory) */
  long wait = 100;
  int rc = PQ_OK;
  for (int attempt = 0;; attempt++) {
    u->status = 0;
    u->etag[0] = 0;
    u->etag_long = 0;
    u->nbody = 0;
    u->body[0] = 0;
    u->skipped = 0;
    c = curl_easy_perform(h);
    if (c == CURLE_OUT_OF_MEMORY) break;
    if (attempt < u->o.retries && pqx_http_retryable(c, u->status)) {
      pqx_http_sleep_ms(wait);
      wait *= 2;
      continue;
    }
    const char *again = attempt ? " (after retries)" : "";
    if (c != CURLE_OK) {
      rc = s3p_fail(u, msg, PQ_IO, "%s: %s%s", what, curl_easy_strerror(c),
                    again);
    } else if (u->status < 200 || u->status > 299) {
      /* an S3 error names itself: <Code>AccessDenied</Code> */
      size_t cn = 0;
      const char *code = s3p_element(u, "Code", &cn);
      if (cn > 64) code = NULL;
      rc = s3p_fail(u, msg, PQ_IO, "%s: HTTP %d%s%.*s%s%s", what, u->status,
                    code ? " (" : "", code ? (int)cn : 0, code ? code : "",
                    code ? ")" : "", again);
    }
    break;
  }
  if (c == CURLE_OUT_OF_MEMORY) rc = PQ_NOMEM;
  return rc;
}

/* CreateMultipartUpload: u->upload. */
static int s3p_begin(pqx_s3_put *u, pq_buf *msg) {
  int rc = s3p_allowed(u, msg);
  if (!rc)
    rc = s3p_request(u, "POST", "?uploads=", u->bin, (const uint8_t *)"", 0,
                     "CreateMultipartUpload", msg);
  if (rc) return rc;
  size_t n = 0;
  const char *id = s3p_element(u, "UploadId", &n);
  int ok = id && n > 0 && n <= S3P_ID_MAX;
  for (size_t i = 0; ok && i < n; i++)
    ok = (unsigned char)id[i] > ' ' && id[i] != '<' && id[i] != '&';
  if (!ok)
    return s3p_fail(u, msg, PQ_IO,
                    "CreateMultipartUpload: the answer has no UploadId");
  /* escaped as a query's value (SigV4's form, as pqx_s3_escape) */
  static const char hex[] = "0123456789ABCDEF";
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)id[i];
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
        (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      u->upload[k++] = (char)c;
    } else {
      u->upload[k++] = '%';
      u->upload[k++] = hex[c >> 4];
      u->upload[k++] = hex[c & 15];
    }
  }
  u->upload[k] = 0;
  return PQ_OK;
}

/* UploadPart of the part filled (the upload begun first), its ETag kept
** for CompleteMultipartUpload. */
static int s3p_send_part(pqx_s3_put *u, pq_buf *msg) {
  if (u->nparts == S3P_PARTS_MAX)
    return s3p_fail(u, msg, PQ_TOOBIG,
                    "the file takes more than %d parts of %lld bytes, S3's "
                    "most: a larger s3_part_size (parquet_http_option)",
                    S3P_PARTS_MAX, (long long)u->o.s3_part_size);
  int rc = u->upload[0] ? PQ_OK : s3p_begin(u, msg);
  if (!rc) rc = s3p_allowed(u, msg);
  if (rc) return rc;
  int k = u->nparts + 1;
  char query[64 + S3P_ID_MAX * 3];
  snprintf(query, sizeof query, "?partNumber=%d&uploadId=%s", k, u->upload);
  char what[128];
  snprintf(what, sizeof what, "part %d (bytes %llu-%llu)", k,
           (unsigned long long)u->sent,
           (unsigned long long)(u->sent + u->len - 1));
  rc = s3p_request(u, "PUT", query, u->bin, u->part, u->len, what, msg);
  if (rc) return rc;
  if (!u->etag[0] || u->etag_long || strpbrk(u->etag, "<&"))
    return s3p_fail(u, msg, PQ_IO, "%s: the answer has no ETag", what);
  char line[S3P_ETAG_MAX + 80];
  snprintf(line, sizeof line,
           "<Part><PartNumber>%d</PartNumber><ETag>%s</ETag></Part>", k,
           u->etag);
  pq_buf_append(&u->done, line, strlen(line));
  if (u->done.oom) return PQ_NOMEM;
  u->nparts = k;
  u->sent += u->len;
  u->len = 0;
  return PQ_OK;
}

/* pq_table_sink's write: into the part, each full one sent when more
** bytes come (so that the last part is never empty). */
static int s3p_write(void *ctx, const uint8_t *p, size_t n, pq_buf *msg) {
  pqx_s3_put *u = ctx;
  size_t size = u->o.s3_part_size;
  while (n > 0) {
    if (u->len == size) {
      int rc = s3p_send_part(u, msg);
      if (rc) return rc;
    }
    size_t k = size - u->len < n ? size - u->len : n;
    if (u->len + k > u->cap) {
      /* the room grows as the part fills: a small file takes little */
      size_t cap = u->cap ? u->cap : 65536;
      while (cap < u->len + k) cap *= 2;
      if (cap > size) cap = size;
      uint8_t *q = sqlite3_realloc64(u->part, cap);
      if (!q) return PQ_NOMEM;
      u->part = q;
      u->cap = cap;
    }
    memcpy(u->part + u->len, p, k);
    u->len += k;
    p += k;
    n -= k;
  }
  return PQ_OK;
}

/* pq_table_sink's commit: the object made whole, by one PUT, or by the
** last part and CompleteMultipartUpload. */
static int s3p_commit(void *ctx, pq_buf *msg) {
  pqx_s3_put *u = ctx;
  if (!u->upload[0]) {
    int rc = s3p_allowed(u, msg);
    if (!rc)
      rc = s3p_request(u, "PUT", "", u->bin, u->part, u->len, "PUT", msg);
    if (!rc) u->completed = 1;
    return rc;
  }
  int rc = u->len ? s3p_send_part(u, msg) : PQ_OK;
  if (!rc) rc = s3p_allowed(u, msg);
  if (rc) return rc;
  pq_buf x;
  pq_buf_init(&x);
  static const char head[] = "<CompleteMultipartUpload>";
  static const char tail[] = "</CompleteMultipartUpload>";
  pq_buf_append(&x, head, sizeof head - 1);
  pq_buf_append(&x, u->done.data, u->done.len);
  pq_buf_append(&x, tail, sizeof tail - 1);
  char query[32 + S3P_ID_MAX * 3];
  snprintf(query, sizeof query, "?uploadId=%s", u->upload);
  rc = x.oom ? PQ_NOMEM
             : s3p_request(u, "POST", query, u->xml, x.data, x.len,
                           "CompleteMultipartUpload", msg);
  pq_buf_free(&x);
  if (rc) return rc;
  /* S3 may answer 200 and an error in the body, once the object failed */
  if (strstr(u->body, "<Error>")) {
    size_t cn = 0;
    const char *code = s3p_element(u, "Code", &cn);
    if (cn > 64) code = NULL;
    return s3p_fail(u, msg, PQ_IO, "CompleteMultipartUpload: %.*s",
                    code ? (int)cn : 5, code ? code : "Error");
  }
  u->completed = 1;
  return PQ_OK;
}

/* pq_table_sink's abort: the upload ended, its parts gone.  Nothing to
** say if it fails (the write's own failure is the message); S3's
** lifecycle rules are the last resort for an upload left pending. */
static void s3p_abort(void *ctx) {
  pqx_s3_put *u = ctx;
  if (!u->upload[0] || u->completed) return;
  pq_buf m;
  pq_buf_init(&m);
  char query[32 + S3P_ID_MAX * 3];
  snprintf(query, sizeof query, "?uploadId=%s", u->upload);
  s3p_request(u, "DELETE", query, u->bin, NULL, 0, "AbortMultipartUpload",
              &m);
  pq_buf_free(&m);
  u->upload[0] = 0;
}

/* base's lines, then `line`, as a new list (NULL: out of memory). */
static struct curl_slist *s3p_headers(const struct curl_slist *base,
                                      const char *line) {
  struct curl_slist *l = NULL;
  for (const struct curl_slist *b = base; b; b = b->next) {
    struct curl_slist *n = curl_slist_append(l, b->data);
    if (!n) {
      curl_slist_free_all(l);
      return NULL;
    }
    l = n;
  }
  struct curl_slist *n = curl_slist_append(l, line);
  if (!n) curl_slist_free_all(l);
  return n;
}

/* The handle's settings that hold for every request. */
static int s3p_setup(pqx_s3_put *u) {
  CURL *h = u->h;
  CURLcode c = CURLE_OK;
#define S3P_SET(opt, v)                                 \
  do {                                                  \
    if (c == CURLE_OK) c = curl_easy_setopt(h, opt, v); \
  } while (0)
  S3P_SET(CURLOPT_NOSIGNAL, 1L);
  /* no redirect: a write goes where it was sent, or fails */
  S3P_SET(CURLOPT_FOLLOWLOCATION, 0L);
#if LIBCURL_VERSION_NUM >= 0x075500
  S3P_SET(CURLOPT_PROTOCOLS_STR, "http,https");
#else
  S3P_SET(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
  S3P_SET(CURLOPT_CONNECTTIMEOUT_MS, u->o.connect_timeout_ms);
  S3P_SET(CURLOPT_TIMEOUT_MS, u->o.timeout_ms);
  S3P_SET(CURLOPT_HEADERFUNCTION, s3p_on_header);
  S3P_SET(CURLOPT_HEADERDATA, u);
  S3P_SET(CURLOPT_WRITEFUNCTION, s3p_on_body);
  S3P_SET(CURLOPT_WRITEDATA, u);
  S3P_SET(CURLOPT_USERAGENT, "parquet-sqlite");
#undef S3P_SET
  return c == CURLE_OK ? 0 : -1;
}

int pqx_s3_put_open(pqx_s3_put **out, sqlite3 *db, const char *fn,
                    const char *url, char **msg) {
  *out = NULL;
  *msg = NULL;
  pqx_s3_put *u = sqlite3_malloc(sizeof *u);
  if (!u) return SQLITE_NOMEM;
  memset(u, 0, sizeof *u);
  u->db = db;
  pq_buf_init(&u->done);
  pqx_http_opts_of(db, &u->o);
  int rc = SQLITE_OK;
  const char *b, *key;
  size_t bn;
  u->url = sqlite3_mprintf("%s", url);
  if (!u->url) rc = SQLITE_NOMEM;
  if (!rc) rc = pqx_s3_parts(url, fn, 1, &b, &bn, &key, msg);
  if (!rc && u->o.s3_part_size > pqx_db_limit(db)) {
    *msg = sqlite3_mprintf("%s: '%s': s3_part_size, %lld bytes, is past the "
                           "limit" PQX_LIMIT_HINT,
                           fn, url, (long long)u->o.s3_part_size);
    rc = *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (!rc) {
    char *path = pqx_s3_escape(key, 1);
    u->http = path ? pqx_s3_url(&u->o, b, bn, path) : NULL;
    sqlite3_free(path);
    u->urlcap = u->http ? strlen(u->http) + 64 + 3 * S3P_ID_MAX : 0;
    u->urlbuf = u->http ? sqlite3_malloc64(u->urlcap) : NULL;
    u->h = u->urlbuf ? curl_easy_init() : NULL;
    if (!u->h) rc = SQLITE_NOMEM;
  }
  struct curl_slist *base = NULL;
  if (!rc) rc = pqx_s3_sign(u->h, &u->o, &base);
  if (!rc) {
    u->bin = s3p_headers(base, "Content-Type: application/octet-stream");
    u->xml = s3p_headers(base, "Content-Type: application/xml");
    if (!u->bin || !u->xml || s3p_setup(u)) rc = SQLITE_NOMEM;
  }
  curl_slist_free_all(base);
  if (rc) {
    pqx_s3_put_free(u);
    return rc;
  }
  *out = u;
  return SQLITE_OK;
}

void pqx_s3_put_sink(pqx_s3_put *u, pq_table_sink *sink) {
  sink->ctx = u;
  sink->write = s3p_write;
  sink->commit = s3p_commit;
  sink->abort = s3p_abort;
}

void pqx_s3_put_free(pqx_s3_put *u) {
  if (!u) return;
  if (u->h) curl_easy_cleanup(u->h);
  curl_slist_free_all(u->bin);
  curl_slist_free_all(u->xml);
  /* the credentials are not left in freed memory */
  volatile char *v = (volatile char *)&u->o;
  for (size_t i = 0; i < sizeof u->o; i++) v[i] = 0;
  sqlite3_free(u->url);
  sqlite3_free(u->http);
  sqlite3_free(u->urlbuf);
  sqlite3_free(u->part);
  pq_buf_free(&u->done);
  sqlite3_free(u);
}

#else /* no libcurl (make WITHOUT=curl), or no file access at all */

struct pqx_s3_put {
  int unused;
};

int pqx_s3_put_open(pqx_s3_put **out, sqlite3 *db, const char *fn,
                    const char *url, char **msg) {
  (void)db;
  *out = NULL;
  *msg = sqlite3_mprintf("%s: '%s': this build writes no URLs (it was built "
                         "without libcurl: make WITHOUT=curl)",
                         fn, url);
  return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
}

void pqx_s3_put_sink(pqx_s3_put *u, pq_table_sink *sink) {
  (void)u;
  memset(sink, 0, sizeof *sink);
}

void pqx_s3_put_free(pqx_s3_put *u) {
  (void)u;
}

#endif
