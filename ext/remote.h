/*
** remote.h -- what remote.c lends s3_put.c of its requests: S3's URLs,
** their signing, and the retries' rules.  Only with libcurl.
*/
#ifndef PQX_REMOTE_H
#define PQX_REMOTE_H

#if defined(PQX_HAVE_CURL) && !defined(PARQUET_OMIT_FILES)
#include <curl/curl.h>

#include "ext.h"

/* The bucket (*b, its *bn bytes) and the key (*key) of url, an s3:// URL
** ("fn: 'url': an s3:// URL is s3://BUCKET/KEY ..." when it is none, or
** with need_key names no key). */
int pqx_s3_parts(const char *url, const char *fn, int need_key,
                 const char **b, size_t *bn, const char **key, char **msg);
/* The URL of the bucket's `rest` (a key escaped by pqx_s3_escape, or
** "?query"): at o's endpoint, else AWS's. */
char *pqx_s3_url(const pqx_http_opts *o, const char *b, size_t bn,
                 const char *rest);
/* v escaped as SigV4's canonical form has it ('/' kept with keep_slash). */
char *pqx_s3_escape(const char *v, int keep_slash);
/* The region requests are signed for. */
const char *pqx_s3_region(const pqx_http_opts *o);
/* Sets h to sign its requests with o's credentials (else the
** environment's), and *base to the headers every signed request carries;
** with none, nothing (*base NULL: unsigned).  SQLITE_OK or SQLITE_NOMEM. */
int pqx_s3_sign(CURL *h, const pqx_http_opts *o, struct curl_slist **base);
/* Whether a request that ended so is tried again (a failed connection, a
** 5xx or 429), and the wait before it. */
int pqx_http_retryable(CURLcode c, int status);
/* An ETag header's value (n bytes) into out (room bytes, NUL after); one
** that does not fit sets *too_long instead. */
void pqx_http_etag(const char *val, size_t n, char *out, size_t room,
                   int *too_long);
void pqx_http_sleep_ms(long ms);

#endif
#endif /* PQX_REMOTE_H */
