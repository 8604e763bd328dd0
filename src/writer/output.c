/*
** output.c -- where the table writer's bytes go (table.c): memory, a
** file, a folder of files, or the program's sink.
**
** A file is written under a temporary name beside its path and renamed
** when complete: nothing half-written is ever at the path.  It is durable
** once the write returns (fsync of the file, rename, fsync of the folder,
** unless "durable": false), has the mode a new file gets (0666 less the
** umask) or the one of the file it replaces, and replaces a symbolic link
** at the path rather than writing through it.
**
** With "partition_by" or "file_size_bytes" the path is a folder of files:
** each partition's rows (the rows whose partition keys have the same
** values) go to files of its hive folder, key=value/... below it; a file
** closes once it passes file_size_bytes, and the partition's next file
** opens, data_0.parquet, data_1.parquet, ...  The rows come sorted by
** their keys, so that one file is open at a time and memory follows one
** row group, however many partitions there are.  The partitioner
** (partition.c) says where each row goes.  Every file is written as a
** single file is, in a new folder beside the path that becomes the path
** once the last is written: the path must not exist, or be an empty
** folder, and a write that fails leaves nothing behind.  The host is
** asked (may_write) before each folder and file is made.
**
** A sink (parquet.h, pq_table_sink) takes the bytes as the core writer
** makes them final, a row group's when it closes: nothing of the file is
** kept here.  Its write may fail on the worker's thread: what it said is
** kept (sink_rc, sink_msg) until the writer's failure is made of it on
** the same thread.
*/
#define _GNU_SOURCE /* nftw's FTW_DEPTH, fileno */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef PARQUET_OMIT_FILES
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "writer.h"

int pq_tbl_flush(pq_table_writer *tw) {
  if (tw->sink) {
    /* (the writer sends its bytes itself; any drained go the same way) */
    if (tw->out.oom) return PQ_NOMEM;
    int rc = PQ_OK;
    if (tw->out.len && pq_tbl_to_sink(tw, tw->out.data, tw->out.len))
      rc = pq_tbl_io_error(tw, PQ_IO, NULL); /* (the sink's failure) */
    tw->out.len = 0;
    return rc;
  }
  if (!tw->f) {
    if (tw->out.oom) return PQ_NOMEM;
    if (tw->to_memory && tw->out.len > pq_tbl_limit(tw))
      return pq_tbl_fail(tw, PQ_TOOBIG,
                        "the file would be more than %lld bytes, the limit%s",
                        (long long)pq_tbl_limit(tw),
                        tw->host.limit_name ? tw->host.limit_name : "");
    return PQ_OK;
  }
  if (tw->out.len && fwrite(tw->out.data, 1, tw->out.len, tw->f) != tw->out.len)
    return pq_tbl_fail(tw, PQ_IO, "writing '%s': %s", tw->tmp, strerror(errno));
  tw->out.len = 0;
  return PQ_OK;
}

int pq_tbl_sink(void *ctx, const uint8_t *p, size_t n) {
  pq_table_writer *tw = ctx;
  tw->file_bytes += (int64_t)n;
  if (fwrite(p, 1, n, tw->f) == n) return 0;
  tw->io_errno = errno ? errno : EIO;
  return 1;
}

int pq_tbl_to_sink(void *ctx, const uint8_t *p, size_t n) {
  pq_table_writer *tw = ctx;
  tw->file_bytes += (int64_t)n;
  tw->sink_msg.len = 0;
  tw->sink_msg.oom = 0;
  int rc = tw->sink->write(tw->sink->ctx, p, n, &tw->sink_msg);
  if (rc == PQ_OK) return 0;
  tw->sink_rc = rc;
  return 1;
}

/* The sink's failure rc, with what it said in tw->sink_msg, as tw's. */
static int to_sink_fail(pq_table_writer *tw, int rc) {
  if (rc == PQ_NOMEM) return rc;
  pq_buf *m = &tw->sink_msg;
  if (m->len == 0) pq_buf_append(m, "the sink refused the file", 25);
  pq_buf_byte(m, 0);
  if (m->oom) return PQ_NOMEM;
  return pq_tbl_fail(tw, rc, "%s", (const char *)m->data);
}

int pq_tbl_sink_commit(pq_table_writer *tw) {
  tw->sink_msg.len = 0;
  tw->sink_msg.oom = 0;
  int rc = tw->sink->commit(tw->sink->ctx, &tw->sink_msg);
  if (rc) return to_sink_fail(tw, rc);
  tw->sink_done = 1;
  return PQ_OK;
}

void pq_tbl_sink_abort(pq_table_writer *tw) {
  if (tw->sink && !tw->sink_done) tw->sink->abort(tw->sink->ctx);
  tw->sink = NULL;
}

int pq_tbl_io_error(pq_table_writer *tw, int rc, const pq_error *err) {
  if (rc == PQ_IO && tw->sink && tw->sink_rc) return to_sink_fail(tw, tw->sink_rc);
  if (rc == PQ_IO && tw->tmp)
    return pq_tbl_fail(tw, rc, "writing '%s': %s", tw->tmp,
                      strerror(tw->io_errno));
  return pq_tbl_core(tw, rc, err);
}

#ifndef PARQUET_OMIT_FILES
/* Whether the host lets a file or folder be made now. */
static int to_may_write(pq_table_writer *tw) {
  if (!tw->host.may_write) return PQ_OK;
  pq_buf m;
  pq_buf_init(&m);
  int rc = tw->host.may_write(tw->host.ctx, &m);
  pq_buf_byte(&m, 0);
  if (rc && rc != PQ_NOMEM)
    rc = m.oom ? PQ_NOMEM : pq_tbl_fail(tw, rc, "%s", (const char *)m.data);
  pq_buf_free(&m);
  return rc;
}

/* A copy of the text printf makes (pq_malloc); NULL when out of memory. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static char *to_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) return NULL;
  char *s = pq_malloc((size_t)n + 1);
  if (!s) return NULL;
  va_start(ap, fmt);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return s;
}

/* A name beside base, random, for a file or folder made there and renamed
** to base when whole (NULL: out of memory). */
static char *to_tmp_name(pq_table_writer *tw, const char *base) {
  unsigned char r[6];
  if (tw->host.random) {
    tw->host.random(tw->host.ctx, r, sizeof r);
  } else {
    /* the clock, the process and a count, mixed (splitmix64) */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                 ((uint64_t)getpid() << 12) ^ (uint64_t)(++tw->rand_state) *
                 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    for (int i = 0; i < 6; i++) r[i] = (unsigned char)(x >> (8 * i));
  }
  return to_printf("%s.tmp-%02x%02x%02x%02x%02x%02x", base, r[0], r[1], r[2],
                   r[3], r[4], r[5]);
}

/* Opens a new file beside the path, under a name of its own (tw->tmp,
** tw->f).  Its mode is that of a regular file at the path, which it is to
** replace (the permission bits); else 0666, which open() narrows by the
** umask and the folder's default ACL, as for any new file.  A symbolic
** link at the path is not followed: rename() replaces the link, so its
** target is neither written nor does it lend its mode. */
int pq_tbl_create(pq_table_writer *tw) {
  struct stat st;
  int keep = lstat(tw->path, &st) == 0 && S_ISREG(st.st_mode);
  mode_t mode = keep ? (st.st_mode & 0777) : 0666;
  for (int tries = 0; tries < 64; tries++) {
    tw->tmp = to_tmp_name(tw, tw->path);
    if (!tw->tmp) return PQ_NOMEM;
    /* O_EXCL: a name that is taken, by a file or a link, is never used */
    int fd = open(tw->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd >= 0) {
      /* the umask narrowed the mode of the file replaced: widen it back */
      if (keep && fchmod(fd, mode) != 0) {
        int rc = pq_tbl_fail(tw, PQ_IO, "cannot set the mode of '%s': %s",
                            tw->tmp, strerror(errno));
        close(fd);
        return rc;
      }
      tw->f = fdopen(fd, "wb");
      if (!tw->f) {
        int rc = pq_tbl_fail(tw, PQ_IO, "cannot write '%s': %s", tw->tmp,
                            strerror(errno));
        close(fd);
        return rc;
      }
      return PQ_OK;
    }
    int e = errno;
    pq_free(tw->tmp);
    tw->tmp = NULL;
    if (e != EEXIST)
      return pq_tbl_fail(tw, PQ_IO, "cannot write beside '%s': %s", tw->path,
                        strerror(e));
  }
  return pq_tbl_fail(tw, PQ_IO, "cannot write beside '%s': no free temporary name",
                    tw->path);
}

/* The folder that holds the path (NULL: out of memory). */
static char *to_folder(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash == NULL    ? to_printf(".")
         : slash == path ? to_printf("/")
                         : to_printf("%.*s", (int)(slash - path), path);
}

/* Syncs a folder, so that a rename in it lasts; 0 or an errno. */
static int to_sync_folder(const char *dir) {
  int e = 0;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  /* some file systems cannot sync a folder: nothing more to be done */
  if (fsync(fd) != 0 && errno != EINVAL && errno != EROFS) e = errno;
  close(fd);
  return e;
}

/* The file complete: flushed, synced (durable), renamed to the path, and
** the folder synced.  Nothing is allocated once the file is at the path:
** what fails after the rename is no allocation. */
int pq_tbl_commit(pq_table_writer *tw) {
  char *dir = NULL;
  int durable = tw->opt.durable;
  if (durable && !(dir = to_folder(tw->path))) return PQ_NOMEM;
  int e = 0;
  if (fflush(tw->f) != 0) e = errno;
  if (!e && durable && fsync(fileno(tw->f)) != 0) e = errno;
  if (fclose(tw->f) != 0 && !e) e = errno;
  tw->f = NULL;
  int rc = PQ_OK;
  if (e) {
    rc = pq_tbl_fail(tw, PQ_IO, "writing '%s': %s", tw->tmp, strerror(e));
  } else if (rename(tw->tmp, tw->path) != 0) {
    rc = pq_tbl_fail(tw, PQ_IO, "writing '%s': %s", tw->path, strerror(errno));
  } else {
    pq_free(tw->tmp);
    tw->tmp = NULL;
    if (dir && (e = to_sync_folder(dir)) != 0)
      rc = pq_tbl_fail(tw, PQ_IO,
                      "'%s' is written, but its folder could not be synced: %s",
                      tw->path, strerror(e));
  }
  pq_free(dir);
  return rc;
}

/* Whether the folder dir holds nothing: 1, 0, or -1 (errno) when it
** cannot be read. */
static int to_empty_folder(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  struct dirent *e;
  int empty = 1;
  while (empty && (e = readdir(d)) != NULL)
    if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) empty = 0;
  closedir(d);
  return empty;
}

int pq_tbl_make_root(pq_table_writer *tw) {
  int rc = to_may_write(tw);
  if (rc) return rc;
  struct stat st;
  if (lstat(tw->root, &st) == 0 &&
      (!S_ISDIR(st.st_mode) || to_empty_folder(tw->root) != 1))
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "'%s' exists: \"partition_by\" and \"file_size_bytes\" "
                      "write a new folder, or fill an empty one",
                      tw->root);
  for (int tries = 0; tries < 64; tries++) {
    tw->root_tmp = to_tmp_name(tw, tw->root);
    if (!tw->root_tmp) return PQ_NOMEM;
    if (mkdir(tw->root_tmp, 0777) == 0) return PQ_OK;
    int e = errno;
    pq_free(tw->root_tmp);
    tw->root_tmp = NULL;
    if (e != EEXIST)
      return pq_tbl_fail(tw, PQ_IO, "cannot write beside '%s': %s", tw->root,
                        strerror(e));
  }
  return pq_tbl_fail(tw, PQ_IO, "cannot write beside '%s': no free temporary name",
                    tw->root);
}

/* Makes the folders of tw->fname's file below root_tmp (each synced into
** its parent when durable), and sets tw->path to the file. */
static int to_make_folders(pq_table_writer *tw) {
  const char *name = (const char *)tw->fname.data;
  size_t n = tw->fname.len;
  for (size_t i = 0; i < n; i++) {
    if (name[i] != '/') continue;
    char *dir = to_printf("%s/%.*s", tw->root_tmp, (int)i, name);
    if (!dir) return PQ_NOMEM;
    int e = mkdir(dir, 0777) == 0 ? 0 : errno;
    int rc = PQ_OK;
    if (e == 0 && tw->opt.durable) {
      char *parent = to_folder(dir);
      if (!parent) rc = PQ_NOMEM;
      else if ((e = to_sync_folder(parent)) != 0)
        rc = pq_tbl_fail(tw, PQ_IO, "syncing '%s': %s", parent, strerror(e));
      pq_free(parent);
    } else if (e && e != EEXIST) {
      rc = pq_tbl_fail(tw, PQ_IO, "cannot make the folder '%s': %s", dir,
                      strerror(e));
    }
    pq_free(dir);
    if (rc) return rc;
  }
  pq_free(tw->path);
  tw->path = to_printf("%s/%.*s", tw->root_tmp, (int)n, name);
  return tw->path ? PQ_OK : PQ_NOMEM;
}

/* Opens the next file (the partitioner's), its folders, its writer. */
static int to_begin_file(pq_table_writer *tw) {
  int rc = to_may_write(tw);
  if (rc) return rc;
  struct stat st;
  do { /* a name taken (a partition met again) is passed over */
    tw->fname.len = 0;
    if (pq_partitioner_name(&tw->part, &tw->fname)) return PQ_NOMEM;
    rc = to_make_folders(tw);
    if (rc) return rc;
  } while (lstat(tw->path, &st) == 0);
  rc = pq_tbl_open_writer(tw);
  if (!rc) rc = pq_tbl_create(tw);
  if (rc) return rc;
  pq_writer_set_sink(tw->w, pq_tbl_sink, tw);
  pq_partitioner_opened(&tw->part);
  tw->file_bytes = 0;
  tw->groups = 0;
  tw->group_rows = 0;
  return PQ_OK;
}

int pq_tbl_end_file(pq_table_writer *tw) {
  int rc = pq_tbl_hand(tw, 0);
  if (!rc && (tw->group_rows > 0 || tw->groups == 0)) rc = pq_tbl_count_group(tw);
  if (rc) return rc;
  pq_error err = {0};
  rc = pq_writer_finish(tw->w, &tw->out, &err);
  rc = rc ? pq_tbl_io_error(tw, rc, &err) : pq_tbl_flush(tw);
  if (!rc) rc = pq_tbl_commit(tw);
  if (rc) return rc;
  pq_writer_free(tw->w);
  tw->w = NULL;
  pq_partitioner_closed(&tw->part);
  tw->group_rows = 0;
  tw->groups = 0;
  return PQ_OK;
}

int pq_tbl_route(pq_table_writer *tw, const pq_dvalue *keys) {
  const char *vals[TW_PART_MAX];
  size_t lens[TW_PART_MAX];
  char nums[TW_PART_MAX][40];
  int npart = tw->opt.npart;
  for (int k = 0; k < npart; k++) {
    const pq_dvalue *v = &keys[k];
    vals[k] = NULL;
    lens[k] = 0;
    if (v->kind == PQ_DV_NULL) continue;
    if (v->kind == PQ_DV_INT) {
      snprintf(nums[k], sizeof nums[k], "%lld", (long long)v->i);
    } else if (v->kind == PQ_DV_DOUBLE) {
      snprintf(nums[k], sizeof nums[k], "%.15g", v->d);
    } else {
      vals[k] = v->n ? v->p : "";
      lens[k] = v->n;
      continue;
    }
    vals[k] = nums[k];
    lens[k] = strlen(nums[k]);
  }
  pq_buf *folder = &tw->key;
  folder->len = 0;
  pq_hive_folder(folder, npart, (const char *const *)tw->opt.part_names, vals,
                 lens);
  int rc = folder->oom ? PQ_NOMEM : PQ_OK;
  while (!rc) {
    int r = pq_partitioner_route(
        &tw->part, folder->data ? (const char *)folder->data : "", folder->len);
    if (r == PQ_PART_WRITE) break;
    if (r == PQ_PART_CLOSE) {
      rc = pq_tbl_end_file(tw);
    } else if (r == PQ_PART_OPEN) {
      rc = to_begin_file(tw);
      break;
    } else {
      rc = PQ_NOMEM;
    }
  }
  return rc;
}

int pq_tbl_end_folder(pq_table_writer *tw) {
  int rc = PQ_OK;
  if (!tw->started) rc = pq_tbl_start(tw);
  if (!rc && !tw->part.open && tw->opt.npart == 0 && tw->part.files == 0)
    rc = pq_tbl_route(tw, NULL);
  if (!rc && tw->part.open) rc = pq_tbl_end_file(tw);
  if (rc) return rc;
  char *dir = NULL;
  if (tw->opt.durable && !(dir = to_folder(tw->root))) return PQ_NOMEM;
  if (rename(tw->root_tmp, tw->root) != 0) {
    rc = pq_tbl_fail(tw, PQ_IO, "writing '%s': %s", tw->root, strerror(errno));
  } else {
    pq_free(tw->root_tmp);
    tw->root_tmp = NULL;
    int e;
    if (dir && (e = to_sync_folder(dir)) != 0)
      rc = pq_tbl_fail(tw, PQ_IO,
                      "'%s' is written, but its folder could not be synced: %s",
                      tw->root, strerror(e));
  }
  pq_free(dir);
  return rc;
}

static int to_remove_one(const char *path, const struct stat *st, int flag,
                         struct FTW *ftw) {
  (void)st;
  (void)ftw;
  if (flag == FTW_DP) rmdir(path);
  else unlink(path);
  return 0;
}

void pq_tbl_free_output(pq_table_writer *tw) {
  if (tw->f) fclose(tw->f);
  tw->f = NULL;
  if (tw->tmp) unlink(tw->tmp);
  /* what a failed folder write made goes */
  if (tw->root_tmp) nftw(tw->root_tmp, to_remove_one, 16, FTW_DEPTH | FTW_PHYS);
  pq_free(tw->tmp);
  pq_free(tw->path);
  pq_free(tw->root_tmp);
  pq_free(tw->root);
}
#else
#define TO_OMIT "this build reads and writes no files (it was compiled with " \
                "PARQUET_OMIT_FILES)"
int pq_tbl_create(pq_table_writer *tw) {
  return pq_tbl_fail(tw, PQ_UNSUPPORTED, TO_OMIT);
}
int pq_tbl_commit(pq_table_writer *tw) {
  return pq_tbl_fail(tw, PQ_UNSUPPORTED, TO_OMIT);
}
int pq_tbl_make_root(pq_table_writer *tw) {
  return pq_tbl_fail(tw, PQ_UNSUPPORTED, TO_OMIT);
}
int pq_tbl_route(pq_table_writer *tw, const pq_dvalue *keys) {
  (void)keys;
  return pq_tbl_fail(tw, PQ_UNSUPPORTED, TO_OMIT);
}
int pq_tbl_end_file(pq_table_writer *tw) {
  return pq_tbl_fail(tw, PQ_UNSUPPORTED, TO_OMIT);
}
int pq_tbl_end_folder(pq_table_writer *tw) {
  return pq_tbl_fail(tw, PQ_UNSUPPORTED, TO_OMIT);
}
void pq_tbl_free_output(pq_table_writer *tw) {
  pq_free(tw->tmp);
  pq_free(tw->path);
  pq_free(tw->root_tmp);
  pq_free(tw->root);
}
#endif /* PARQUET_OMIT_FILES */
