/*
** error.c -- error messages: "<label>: <what was wrong and where>".
*/
#include <stdio.h>

#include "util.h"

int pq_fail(pq_error *err, int code, const char *label, const char *fmt, ...) {
  if (err) {
    int k = snprintf(err->msg, sizeof err->msg, "%s: ", label);
    if (k < 0 || (size_t)k >= sizeof err->msg) k = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + k, sizeof err->msg - (size_t)k, fmt, ap);
    va_end(ap);
    err->code = code;
  }
  return code;
}

int pq_nomem(pq_error *err, const char *label) {
  return pq_fail(err, PQ_NOMEM, label, "out of memory");
}
