/*
** fileio.c -- files read by descriptor: what every reader of a path reads
** through (pqx_file, the pq_input of a source that is a path).
**
** Never mapped: a file that another process truncates would then kill the
** host process with SIGBUS on the next touch of a page past the new end.
** Read with pread instead, into the readers' own buffers (the core reads
** a column chunk a window at a time), so that a file that shrinks is a
** short read, and an error.
**
** Only regular files are opened, and they are checked before the open: a
** FIFO or a device as a source would block the connection in open() or
** read(), or never end.  The path is stat()ed first, opened with
** O_NONBLOCK (a FIFO swapped in between cannot block), and the descriptor
** fstat()ed again.
**
** What the file was when it was opened -- device, inode, size, and the
** modification and change times to the nanosecond -- is kept, and every
** read checks, after it has its bytes, that the descriptor's file is still
** that (but for the change time, which an unlink moves too): a file
** rewritten in place while it is read is an error, never bytes of two
** versions.  Opening the path again (a scan that reaches a file, a new
** scan's check) compares the change time too: a write whose mtime was set
** back is seen there.  A file replaced by another (written beside it
** and renamed over it, as careful writers do) is not a change of the
** descriptor's file: a reader that has it open goes on reading the old
** one, whole.  The limit of this: a write that changes neither the size
** nor the times, as a file system whose clock ticks coarsely may not
** within one tick, is not seen.
*/
#define _POSIX_C_SOURCE 200809L /* pread, O_CLOEXEC, st_mtim */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ext.h"

int pqx_input_fail(pq_error *err, const char *label, int code,
                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = snprintf(err->msg, sizeof err->msg, "%s: ", label);
  vsnprintf(err->msg + k, sizeof err->msg - (size_t)k, fmt, ap);
  va_end(ap);
  err->code = code;
  return code;
}

#ifndef PARQUET_OMIT_FILES

#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif

/* The identity of what stat() gave. */
static void file_ident(pqx_file *pf, const struct stat *st) {
  pf->dev = (unsigned long long)st->st_dev;
  pf->ino = (unsigned long long)st->st_ino;
  pf->size = (long long)st->st_size;
  pf->mtime_ns =
      (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
  pf->ctime_ns =
      (long long)st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;
}

/* Whether st is the file pf was; ctime too when `whole`.  The change time
** tells a path's file whose mtime was set back after a write; a
** descriptor's reads leave it out, as a file replaced by rename (its
** descriptor still reading the old one, whole) has its ctime moved by the
** unlink, not its bytes. */
static int file_same(const pqx_file *pf, const struct stat *st, int whole) {
  pqx_file now;
  file_ident(&now, st);
  return now.dev == pf->dev && now.ino == pf->ino && now.size == pf->size &&
         now.mtime_ns == pf->mtime_ns &&
         (!whole || now.ctime_ns == pf->ctime_ns);
}

static char *cannot_open(const char *fn, const char *path, int e) {
  return sqlite3_mprintf("%s: cannot open '%s': %s", fn, path, strerror(e));
}

static char *not_a_file(const char *fn, const char *path) {
  return sqlite3_mprintf("%s: '%s' is not a file", fn, path);
}

/* Opens path, a regular file, into pf->fd; *st is what fstat says of it. */
static int file_open_fd(pqx_file *pf, const char *fn, const char *path,
                        struct stat *st, char **msg) {
  if (stat(path, st) != 0) {
    *msg = cannot_open(fn, path, errno);
    return SQLITE_ERROR;
  }
  if (!S_ISREG(st->st_mode)) {
    *msg = not_a_file(fn, path);
    return SQLITE_ERROR;
  }
  int fd;
  do {
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    *msg = cannot_open(fn, path, errno);
    return SQLITE_ERROR;
  }
  if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
    int e = errno;
    close(fd);
    *msg = S_ISREG(st->st_mode) ? cannot_open(fn, path, e)
                                : not_a_file(fn, path);
    return SQLITE_ERROR;
  }
  pf->fd = fd;
  pf->open = 1;
#ifdef POSIX_FADV_RANDOM
  /* No readahead of the kernel's own: it would read megabytes around a
  ** point query's pages (read_ahead_kb); the core reads windows, and
  ** asks for the next one when it reads in order (file_prefetch). */
  (void)posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
#endif
  return SQLITE_OK;
}

int pqx_file_open(pqx_file *pf, sqlite3 *db, const char *fn,
                  const char *path, char **msg) {
  memset(pf, 0, sizeof *pf);
  pf->name = path;
  *msg = NULL;
  if (pqx_is_url(path)) {
    pqx_http_opts o;
    pqx_http_opts_of(db, &o);
    int rc = pqx_remote_open(&pf->rem, &o, fn, path, msg);
    if (rc) return rc;
    pf->open = 1;
    pf->size = (long long)pqx_remote_size(pf->rem);
    return SQLITE_OK;
  }
  struct stat st;
  int rc = file_open_fd(pf, fn, path, &st, msg);
  if (rc == SQLITE_OK) file_ident(pf, &st);
  return rc;
}

void pqx_file_park(pqx_file *pf) {
  if (pf->rem) { /* its reads check what it is: nothing to close */
    pqx_remote_fetch(pf->rem, NULL, 0, 0); /* what was fetched ahead, let go */
    return;
  }
  if (pf->open) close(pf->fd);
  pf->open = 0;
}

int pqx_file_resume(pqx_file *pf, const char *fn, char **msg) {
  *msg = NULL;
  if (pf->open) return SQLITE_OK;
  struct stat st;
  int rc = file_open_fd(pf, fn, pf->name, &st, msg);
  if (rc) return rc;
  if (!file_same(pf, &st, 1)) {
    pqx_file_park(pf);
    *msg = sqlite3_mprintf(
        "%s: '%s' changed after the query began to read it: run the query "
        "again",
        fn, pf->name);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

int pqx_file_check(const pqx_file *pf, const char *fn, int *same,
                   char **msg) {
  struct stat st;
  *msg = NULL;
  *same = 0;
  if (pf->rem) return pqx_remote_check(pf->rem, fn, same, msg);
  if (stat(pf->name, &st) != 0) {
    *msg = cannot_open(fn, pf->name, errno);
    return SQLITE_ERROR;
  }
  if (!S_ISREG(st.st_mode)) {
    *msg = not_a_file(fn, pf->name);
    return SQLITE_ERROR;
  }
  *same = file_same(pf, &st, 1);
  return SQLITE_OK;
}

void pqx_file_close(pqx_file *pf) {
  if (pf->rem) { /* no descriptor of its own */
    pqx_remote_free(pf->rem);
    pf->rem = NULL;
    pf->open = 0;
  }
  pqx_file_park(pf);
  memset(pf, 0, sizeof *pf);
}

/* pq_input's read: n bytes at offset, all of them, from the file as it was
** opened. */
static int file_read(void *ctx, uint64_t offset, void *dst, size_t n,
                     pq_error *err) {
  pqx_file *pf = ctx;
  if (!pf->open) {
    return pqx_input_fail(err, "file", PQ_MISUSE, "read while it is not open");
  }
  size_t done = 0;
  while (done < n) {
    ssize_t k = pread(pf->fd, (char *)dst + done, n - done,
                      (off_t)(offset + done));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) {
      return pqx_input_fail(err, "file", PQ_IO,
                     "cannot read %zu bytes at offset %llu: %s", n,
                     (unsigned long long)offset, strerror(errno));
    }
    if (k == 0) {
      struct stat st;
      long long now = fstat(pf->fd, &st) == 0 ? (long long)st.st_size : -1;
      return pqx_input_fail(err, "file", PQ_IO,
                       "it changed while it was read: %zu bytes at offset "
                       "%llu are past its end (now %lld bytes)",
                       n, (unsigned long long)offset, now);
    }
    done += (size_t)k;
  }
  struct stat st;
  if (fstat(pf->fd, &st) != 0 || !file_same(pf, &st, 0)) {
    return pqx_input_fail(err, "file", PQ_IO,
                     "it changed while it was read (%zu bytes at offset "
                     "%llu)",
                     n, (unsigned long long)offset);
  }
  return PQ_OK;
}

/* pq_input's prefetch: the kernel starts reading the range now. */
static void file_prefetch(void *ctx, uint64_t offset, size_t n) {
  pqx_file *pf = ctx;
#ifdef POSIX_FADV_WILLNEED
  if (pf->open) (void)posix_fadvise(pf->fd, (off_t)offset, (off_t)n,
                                    POSIX_FADV_WILLNEED);
#else
  (void)pf;
  (void)offset;
  (void)n;
#endif
}

#else /* PARQUET_OMIT_FILES: no file is opened, stat()ed or read */

static int omitted(const char *fn, char **msg) {
  *msg = sqlite3_mprintf(PQX_OMIT_FILES_MSG, fn);
  return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
}
int pqx_file_open(pqx_file *pf, sqlite3 *db, const char *fn,
                  const char *path, char **msg) {
  (void)db;
  memset(pf, 0, sizeof *pf);
  pf->name = path;
  return omitted(fn, msg);
}
void pqx_file_park(pqx_file *pf) { pf->open = 0; }
int pqx_file_resume(pqx_file *pf, const char *fn, char **msg) {
  (void)pf;
  return omitted(fn, msg);
}
int pqx_file_check(const pqx_file *pf, const char *fn, int *same,
                   char **msg) {
  (void)pf;
  *same = 0;
  return omitted(fn, msg);
}
void pqx_file_close(pqx_file *pf) { memset(pf, 0, sizeof *pf); }
static int file_read(void *ctx, uint64_t offset, void *dst, size_t n,
                     pq_error *err) {
  (void)ctx;
  (void)offset;
  (void)dst;
  (void)n;
  snprintf(err->msg, sizeof err->msg, "file: this build reads no files");
  err->code = PQ_IO;
  return PQ_IO;
}
static void file_prefetch(void *ctx, uint64_t offset, size_t n) {
  (void)ctx;
  (void)offset;
  (void)n;
}

#endif /* PARQUET_OMIT_FILES */

pq_input pqx_file_input(pqx_file *pf) {
  pq_input in;
  memset(&in, 0, sizeof in);
  if (pf->rem) {
    in.flags = PQ_INPUT_NO_HEAD;
    in.size = pqx_remote_size(pf->rem);
    in.read = pqx_remote_read;
    in.ctx = pf->rem;
    in.prefetch = NULL;
    return in;
  }
  in.size = (uint64_t)(pf->size > 0 ? pf->size : 0);
  in.read = file_read;
  in.ctx = pf;
  in.prefetch = file_prefetch;
  return in;
}
