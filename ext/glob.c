/*
** glob.c -- the files a `source` path names (pqx_paths_expand): a file; a
** folder's *.parquet files, at any depth; or the files a glob matches.
**
**   data/x.parquet       that file
**   data                 every *.parquet file below data, at any depth
**   data/x*.parquet      the files of data named so
**   data/y=202?/m=[1-6]  the files in those folders
**   **                   every file below the working folder
**
** The rules: `*` matches any characters and `?` one, within one segment of
** the path (never a '/'); `[abc]`, `[a-z]` and `[!a]` (or `[^a]`) one
** character of a set, or not of it; a whole segment `**` zero or more
** folders, and at the end, `**` is `**` followed by `*`.  A name that
** starts with '.' is matched only by a segment that starts with '.' (so
** `*`, `**` and a folder pass hidden files and folders by).  There is no
** escape: `\` is a character like any other, `[*]` matches a '*'.  Only
** regular files are results (a symbolic link to one counts): a FIFO, a
** device or a socket is never one, and nothing is opened to tell (stat
** says).  A symbolic link to a folder is entered only where the pattern
** names it (in the text before the first glob character, or as a segment
** without one), once each time it is named: `*`, `?`, sets and `**` never
** enter one, so links cannot make the walk loop.  Characters are UTF-8
** (`?` matches é); bytes that are not, one each.
**
** Bounds: a walk goes at most GLOB_MAX_DEPTH folders below the pattern's
** base, and reads or looks up at most GLOB_MAX_ENTRIES names in all; past
** either it stops with an error that names the bound.  So '/' as a source
** fails soon, rather than walking the whole tree (/proc included), and a
** loop that is no link (a bind mount of a folder inside itself) ends.
**
** The results keep the pattern's form: the text before the first segment
** with a glob character is kept as written ("../d//", "/", or nothing),
** and the names matched are joined to it with '/'.  Sorted by strcmp.
**
** How: the walk is that of an NFA.  Each folder is visited once with the
** set of segments its entries are to match: a `**` stays in the set of
** its subfolders (and brings the segment after it, for zero folders).  So
** no file is reached twice, and many `**` cost no more than a few.  A
** folder's entries are matched while it is open and
** the subfolders to walk noted; it is closed before walking them, so that
** one folder is open at a time however deep the walk.  A set of segments
** with no glob character (as "*" "/sub" "/x.parquet" has after its
** first) is not listed: those names are looked up.
*/
#define _POSIX_C_SOURCE 200809L /* lstat, opendir */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ext.h"

/* A build without file access (PARQUET_OMIT_FILES) has no walk: every
** pattern is an error that says so. */
#ifndef PARQUET_OMIT_FILES

#define GLOB_MAX_DEPTH 64          /* folders below the base */
#define GLOB_MAX_ENTRIES 100000    /* names read or looked up by one walk */

/* A walk: the pattern's segments after the base, the path of the folder
** being walked, and the results. */
typedef struct GlobWalk {
  const char *fn;
  const char *pattern; /* as given, for messages */
  char **msg;
  int depth;           /* folders below the base, of the path */
  long visited;        /* names read or looked up */
  char *text;          /* the segments' text, split at each '/' */
  const char **segs;   /* the segments, none empty, never two `**` in a row */
  int nseg;
  unsigned char *mark; /* nseg bytes: the segments in the set being built */
  int *scratch;        /* nseg: the set being built */
  char *path;          /* the folder walked: the base, then names */
  size_t len, cap;
  char **out;          /* the files found */
  int n, n_alloc;
  pqx_folder *dirs;    /* the folders listed or looked in, when wanted */
  int ndirs, ndirs_alloc, want_dirs;
} GlobWalk;

static int glob_has_wild(const char *s) { return strpbrk(s, "*?[") != NULL; }
static int glob_is_any(const char *s) { return strcmp(s, "**") == 0; }

/* ---- Matching one segment ---------------------------------------------- */

/* The UTF-8 character at s: its code point, and its length in *n (a byte
** that does not start a well-formed character counts alone). */
static uint32_t glob_char(const unsigned char *s, int *n) {
  uint32_t c = s[0];
  int len = c < 0xC0 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : 1;
  *n = 1;
  if (len == 1) return c;
  uint32_t v = c & (0x3Fu >> (len - 1));
  for (int i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return c; /* also stops at the NUL */
    v = v << 6 | (s[i] & 0x3Fu);
  }
  *n = len;
  return v;
}

/* The set at p ('[' ...): sets *hit when it holds c, and returns its
** length, through the ']'; 0 when it has no ']' (then '[' is itself). */
static size_t glob_set(const unsigned char *p, uint32_t c, int *hit) {
  size_t i = 1;
  int neg = p[i] == '!' || p[i] == '^';
  if (neg) i++;
  int in = 0;
  size_t first = i;
  while (p[i] && (p[i] != ']' || i == first)) {
    int n;
    uint32_t lo = glob_char(p + i, &n), hi = lo;
    i += (size_t)n;
    if (p[i] == '-' && p[i + 1] && p[i + 1] != ']') {
      hi = glob_char(p + i + 1, &n);
      i += 1 + (size_t)n;
    }
    if (lo <= c && c <= hi) in = 1;
  }
  if (!p[i]) return 0;
  *hit = in != neg;
  return i + 1;
}

/* 1 when the name matches the segment pat.  Greedy, going back only to
** the last `*`: time is at most the product of the lengths. */
static int glob_match(const char *pat, const char *name) {
  const unsigned char *p = (const unsigned char *)pat;
  const unsigned char *s = (const unsigned char *)name;
  const unsigned char *star_p = NULL, *star_s = NULL;
  /* A '[' with no ']' after it is itself, without a scan to the end. */
  const unsigned char *close = (const unsigned char *)strrchr(pat, ']');
  if (*s == '.' && *p != '.') return 0;
  while (*s) {
    if (*p == '*') {
      star_p = ++p;
      star_s = s;
      continue;
    }
    int n, m, hit = 0;
    size_t adv = 0;
    uint32_t c = glob_char(s, &n);
    if (*p == '?') {
      hit = 1;
      adv = 1;
    } else if (*p == '[' && close && close > p + 1 &&
               (adv = glob_set(p, c, &hit)) > 0) {
      /* hit says */
    } else if (*p) {
      glob_char(p, &m);
      hit = m == n && memcmp(p, s, (size_t)n) == 0;
      adv = (size_t)m;
    }
    if (hit) {
      p += adv;
      s += n;
    } else if (star_p) {
      glob_char(star_s, &n); /* the last `*` takes one more character */
      star_s += n;
      s = star_s;
      p = star_p;
    } else {
      return 0;
    }
  }
  while (*p == '*') p++;
  return *p == 0;
}

/* Whether the segments of key from k on match those of pattern from p on
** (`**`: any number of them, none included).  depth bounds the calls. */
static int glob_key_from(const char *p, const char *k, int depth) {
  if (depth > 64) return 0;
  char seg[1024];
  for (;;) {
    const char *pe = strchr(p, '/');
    size_t pn = pe ? (size_t)(pe - p) : strlen(p);
    if (pn == 2 && p[0] == '*' && p[1] == '*') {
      const char *rest = pe ? pe + 1 : p + pn;
      if (!*rest) return 1; /* a last `**`: anything below */
      for (const char *at = k;;) {
        if (glob_key_from(rest, at, depth + 1)) return 1;
        const char *s = strchr(at, '/');
        if (!s) return 0;
        at = s + 1;
      }
    }
    const char *ke = strchr(k, '/');
    size_t kn = ke ? (size_t)(ke - k) : strlen(k);
    if (pn >= sizeof seg || kn >= sizeof seg) return 0;
    char name[1024];
    memcpy(seg, p, pn);
    seg[pn] = 0;
    memcpy(name, k, kn);
    name[kn] = 0;
    if (!glob_match(seg, name)) return 0;
    if (!pe || !ke) return !pe && !ke;
    p = pe + 1;
    k = ke + 1;
  }
}

int pqx_glob_key_match(const char *pattern, const char *key) {
  return glob_key_from(pattern, key, 0);
}

/* ---- Sets of segments --------------------------------------------------- */

/* Adds segment i to the set (out, *n): and the one after when i is a
** `**`, which may match no folder. */
static void glob_add(GlobWalk *w, int *out, int *n, int i) {
  for (; i < w->nseg && !w->mark[i]; i++) {
    w->mark[i] = 1;
    out[(*n)++] = i;
    if (!glob_is_any(w->segs[i])) break;
  }
}

static void glob_unmark(GlobWalk *w, const int *set, int n) {
  for (int k = 0; k < n; k++) w->mark[set[k]] = 0;
}

/* The step of the set st over an entry name: into w->scratch (*nc of
** them) the set its entries are to match, were it a folder; returns 1 when
** the name matches the last segment.  For a link to a folder, only the
** segments without a glob character step. */
static int glob_step(GlobWalk *w, const int *st, int ns, const char *name,
                     int link, int *nc) {
  int final = 0;
  *nc = 0;
  for (int k = 0; k < ns; k++) {
    int i = st[k];
    if (link && glob_has_wild(w->segs[i])) continue;
    if (glob_is_any(w->segs[i])) {
      if (name[0] != '.') glob_add(w, w->scratch, nc, i);
    } else if (glob_match(w->segs[i], name)) {
      if (i + 1 == w->nseg) {
        final = 1;
      } else {
        glob_add(w, w->scratch, nc, i + 1);
      }
    }
  }
  glob_unmark(w, w->scratch, *nc);
  return final;
}

/* ---- The path and the results ------------------------------------------- */

/* Appends '/' (unless the path is empty or ends with one) and name. */
static int glob_push(GlobWalk *w, const char *name) {
  size_t k = strlen(name);
  int slash = w->len > 0 && w->path[w->len - 1] != '/';
  size_t need = w->len + (size_t)slash + k + 1;
  if (need > w->cap) {
    size_t cap = w->cap * 2 > need ? w->cap * 2 : need;
    char *p = sqlite3_realloc64(w->path, cap);
    if (!p) return SQLITE_NOMEM;
    w->path = p;
    w->cap = cap;
  }
  if (slash) w->path[w->len++] = '/';
  memcpy(w->path + w->len, name, k + 1);
  w->len += k;
  return SQLITE_OK;
}

static void glob_pop(GlobWalk *w, size_t len) {
  w->len = len;
  w->path[len] = 0;
}

/* Adds the path as a result. */
static int glob_found(GlobWalk *w) {
  if (w->n == w->n_alloc) {
    if (w->n_alloc > INT_MAX / 2) return SQLITE_NOMEM;
    int cap = w->n_alloc ? 2 * w->n_alloc : 16;
    char **p = sqlite3_realloc64(w->out, (sqlite3_uint64)cap * sizeof *p);
    if (!p) return SQLITE_NOMEM;
    w->out = p;
    w->n_alloc = cap;
  }
  char *s = sqlite3_malloc64(w->len + 1);
  if (!s) return SQLITE_NOMEM;
  memcpy(s, w->path, w->len + 1);
  w->out[w->n++] = s;
  return SQLITE_OK;
}

/* ---- The walk ----------------------------------------------------------- */

static int glob_folder(GlobWalk *w, const int *st, int ns);

/* Walks the folder at the path with the set w->scratch (nc of them). */
static int glob_enter(GlobWalk *w, int nc) {
  if (w->depth > GLOB_MAX_DEPTH) {
    *w->msg = sqlite3_mprintf(
        "%s: '%s': the walk goes more than %d folders deep (at '%s'), the "
        "most it may: name a folder nearer the files",
        w->fn, w->pattern, GLOB_MAX_DEPTH, w->path);
    return SQLITE_ERROR;
  }
  int *set = sqlite3_malloc64((sqlite3_uint64)nc * sizeof *set);
  if (!set) return SQLITE_NOMEM;
  memcpy(set, w->scratch, (size_t)nc * sizeof *set);
  w->depth++;
  int rc = glob_folder(w, set, nc);
  w->depth--;
  sqlite3_free(set);
  return rc;
}

/* Counts a name read or looked up; an error past GLOB_MAX_ENTRIES. */
static int glob_visit(GlobWalk *w) {
  if (++w->visited <= GLOB_MAX_ENTRIES) return SQLITE_OK;
  *w->msg = sqlite3_mprintf(
      "%s: '%s': the walk read more than %d names (in '%s'), the most it "
      "may: name a narrower folder or glob",
      w->fn, w->pattern, GLOB_MAX_ENTRIES, w->len ? w->path : ".");
  return SQLITE_ERROR;
}

/* A subfolder noted by glob_list: walks it (link: it is a link). */
static int glob_descend(GlobWalk *w, const int *st, int ns, const char *name,
                        int link) {
  size_t len = w->len;
  int nc, rc = glob_push(w, name);
  if (rc) return rc;
  glob_step(w, st, ns, name, link, &nc);
  if (nc) rc = glob_enter(w, nc);
  glob_pop(w, len);
  return rc;
}

/* Notes a subfolder to walk in the list *pend (*plen bytes): a flag ('d',
** or 'l' for a link) then the name, then a NUL. */
static int glob_note(char **pend, size_t *plen, size_t *pcap, char flag,
                     const char *name) {
  size_t k = strlen(name) + 2;
  if (*plen + k > *pcap) {
    size_t cap = *pcap * 2 > *plen + k ? *pcap * 2 : *plen + k + 256;
    char *p = sqlite3_realloc64(*pend, cap);
    if (!p) return SQLITE_NOMEM;
    *pend = p;
    *pcap = cap;
  }
  (*pend)[(*plen)++] = flag;
  memcpy(*pend + *plen, name, k - 1);
  *plen += k - 1;
  return SQLITE_OK;
}

/* One entry of a folder being listed: a result, or a subfolder noted. */
static int glob_entry(GlobWalk *w, const int *st, int ns, const char *name,
                      char **pend, size_t *plen, size_t *pcap) {
  int nc, final = glob_step(w, st, ns, name, 0, &nc);
  if (!final && !nc) return SQLITE_OK;
  size_t len = w->len;
  int rc = glob_push(w, name);
  if (rc) return rc;
  struct stat st_;
  if (stat(w->path, &st_) == 0) {
    if (final && S_ISREG(st_.st_mode)) rc = glob_found(w);
    if (rc == SQLITE_OK && nc && S_ISDIR(st_.st_mode)) {
      struct stat lst;
      int link = lstat(w->path, &lst) == 0 && S_ISLNK(lst.st_mode);
      if (link) glob_step(w, st, ns, name, 1, &nc);
      if (nc) rc = glob_note(pend, plen, pcap, link ? 'l' : 'd', name);
    }
  }
  glob_pop(w, len);
  return rc;
}

/* Lists the folder, matching each entry; notes the subfolders to walk. */
static int glob_list(GlobWalk *w, const int *st, int ns, char **pend,
                     size_t *plen, size_t *pcap) {
  const char *dir = w->len ? w->path : ".";
  DIR *d = opendir(dir);
  if (!d) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR || e == ENAMETOOLONG || e == ELOOP) {
      return SQLITE_OK; /* nothing there */
    }
    *w->msg = sqlite3_mprintf("%s: cannot read folder '%s': %s", w->fn, dir,
                              strerror(e));
    return SQLITE_ERROR;
  }
  int rc = SQLITE_OK;
  for (;;) {
    errno = 0;
    struct dirent *de = readdir(d);
    if (!de) {
      if (errno) {
        *w->msg = sqlite3_mprintf("%s: cannot read folder '%s': %s", w->fn,
                                  dir, strerror(errno));
        rc = SQLITE_ERROR;
      }
      break;
    }
    const char *name = de->d_name;
    if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
    rc = glob_visit(w);
    if (rc) break;
    rc = glob_entry(w, st, ns, name, pend, plen, pcap);
    if (rc) break;
  }
  closedir(d);
  return rc;
}

/* The segments without a glob character, looked up rather than listed:
** all when the folder is not listed, else "." and ".." (never listed). */
static int glob_literals(GlobWalk *w, const int *st, int ns, int listed) {
  int rc = SQLITE_OK;
  for (int k = 0; k < ns && rc == SQLITE_OK; k++) {
    const char *name = w->segs[st[k]];
    if (glob_has_wild(name)) continue;
    if (listed && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) continue;
    int seen = 0;
    for (int j = 0; j < k && !seen; j++) {
      seen = strcmp(w->segs[st[j]], name) == 0;
    }
    if (seen) continue;
    int nc = 0, final = 0;
    for (int j = k; j < ns; j++) {
      int i = st[j];
      if (strcmp(w->segs[i], name) != 0) continue;
      if (i + 1 == w->nseg) {
        final = 1;
      } else {
        glob_add(w, w->scratch, &nc, i + 1);
      }
    }
    glob_unmark(w, w->scratch, nc);
    rc = glob_visit(w);
    if (rc) break;
    size_t len = w->len;
    rc = glob_push(w, name);
    if (rc) break;
    struct stat st_;
    if (stat(w->path, &st_) == 0) {
      if (final && S_ISREG(st_.st_mode)) rc = glob_found(w);
      if (rc == SQLITE_OK && nc && S_ISDIR(st_.st_mode)) {
        rc = glob_enter(w, nc);
      }
    }
    glob_pop(w, len);
  }
  return rc;
}

/* What the folder at the path is now: a folder's modification time changes
** when a name in it is added, removed or renamed.  Noted before it is
** listed, so that a change while it is listed shows at the next look. */
static void glob_folder_stat(const char *path, pqx_folder *d) {
  struct stat st;
  struct timespec now;
  d->present = stat(path, &st) == 0 && S_ISDIR(st.st_mode);
  d->dev = d->present ? (unsigned long long)st.st_dev : 0;
  d->ino = d->present ? (unsigned long long)st.st_ino : 0;
  d->mtime_ns = d->present ? (long long)st.st_mtim.tv_sec * 1000000000LL +
                                 st.st_mtim.tv_nsec
                           : 0;
  /* A time within the file system's clock tick of now may not change
  ** with the next change: such a folder is looked at again each time,
  ** until it is older. */
  d->racy = d->present && (clock_gettime(CLOCK_REALTIME, &now) != 0 ||
                            st.st_mtim.tv_sec + 2 >= now.tv_sec);
}

static int glob_folder_note(GlobWalk *w) {
  if (w->ndirs == w->ndirs_alloc) {
    int cap = w->ndirs_alloc ? 2 * w->ndirs_alloc : 8;
    pqx_folder *d = sqlite3_realloc64(w->dirs, (sqlite3_uint64)cap * sizeof *d);
    if (!d) return SQLITE_NOMEM;
    w->dirs = d;
    w->ndirs_alloc = cap;
  }
  pqx_folder *d = &w->dirs[w->ndirs];
  d->path = sqlite3_mprintf("%s", w->len ? w->path : ".");
  if (!d->path) return SQLITE_NOMEM;
  w->ndirs++;
  glob_folder_stat(d->path, d);
  return SQLITE_OK;
}

/* Walks the folder at the path, whose entries are to match the segments
** of the set st (ns of them). */
static int glob_folder(GlobWalk *w, const int *st, int ns) {
  if (w->want_dirs) {
    int rc = glob_folder_note(w);
    if (rc) return rc;
  }
  int listed = 0;
  for (int k = 0; k < ns && !listed; k++) listed = glob_has_wild(w->segs[st[k]]);
  char *pend = NULL;
  size_t plen = 0, pcap = 0;
  int rc = SQLITE_OK;
  if (listed) rc = glob_list(w, st, ns, &pend, &plen, &pcap);
  if (rc == SQLITE_OK) rc = glob_literals(w, st, ns, listed);
  for (size_t off = 0; rc == SQLITE_OK && off < plen;) {
    const char *name = pend + off + 1;
    rc = glob_descend(w, st, ns, name, pend[off] == 'l');
    off += strlen(name) + 2;
  }
  sqlite3_free(pend);
  return rc;
}

/* ---- The pattern -------------------------------------------------------- */

/* The length of the base: the text before the first segment with a glob
** character. */
static size_t glob_base_len(const char *p) {
  size_t seg = 0;
  for (size_t i = 0; p[i]; i++) {
    if (p[i] == '/') {
      seg = i + 1;
    } else if (strchr("*?[", p[i])) {
      return seg;
    }
  }
  return seg;
}

/* Sets up the walk: the path is base (len bytes), the segments those of
** rest; then walks. */
static int glob_run(GlobWalk *w, const char *base, size_t len,
                    const char *rest) {
  size_t k = strlen(rest);
  w->cap = len + 64;
  w->path = sqlite3_malloc64(w->cap);
  w->text = sqlite3_malloc64(k + 1);
  /* At most one segment per two bytes and one, and a "*" after `**`. */
  size_t most = k / 2 + 2;
  w->segs = sqlite3_malloc64(most * sizeof *w->segs);
  w->mark = sqlite3_malloc64(most);
  w->scratch = sqlite3_malloc64(most * sizeof *w->scratch);
  if (!w->path || !w->text || !w->segs || !w->mark || !w->scratch) {
    return SQLITE_NOMEM;
  }
  memcpy(w->path, base, len);
  w->path[len] = 0;
  w->len = len;
  memcpy(w->text, rest, k + 1);
  memset(w->mark, 0, most);
  for (char *s = w->text; s;) {
    char *slash = strchr(s, '/');
    if (slash) *slash = 0;
    int dup = w->nseg > 0 && glob_is_any(s) &&
              glob_is_any(w->segs[w->nseg - 1]);
    if (*s && !dup) w->segs[w->nseg++] = s;
    s = slash ? slash + 1 : NULL;
  }
  if (w->nseg == 0 || glob_is_any(w->segs[w->nseg - 1])) {
    w->segs[w->nseg++] = "*";
  }
  int n0 = 0;
  glob_add(w, w->scratch, &n0, 0);
  glob_unmark(w, w->scratch, n0);
  return glob_enter(w, n0);
}

static int glob_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorts the results, and drops those found twice. */
static void glob_sort(GlobWalk *w) {
  if (w->n < 2) return;
  qsort(w->out, (size_t)w->n, sizeof *w->out, glob_cmp);
  int m = 1;
  for (int i = 1; i < w->n; i++) {
    if (strcmp(w->out[i], w->out[m - 1]) == 0) {
      sqlite3_free(w->out[i]);
    } else {
      w->out[m++] = w->out[i];
    }
  }
  w->n = m;
}

/* A path without glob characters: a file, or a folder (walked as the
** segments `**` and "*.parquet" after it). */
static int glob_plain(GlobWalk *w, const char *pattern, int lenient) {
  struct stat st;
  size_t len = strlen(pattern);
  if (stat(pattern, &st) != 0) {
    if (lenient && (errno == ENOENT || errno == ENOTDIR)) return SQLITE_OK;
    *w->msg = sqlite3_mprintf("%s: cannot open '%s': %s", w->fn, pattern,
                              strerror(errno));
    return SQLITE_ERROR;
  }
  if (S_ISDIR(st.st_mode)) return glob_run(w, pattern, len, "**/*.parquet");
  if (!S_ISREG(st.st_mode)) {
    *w->msg = sqlite3_mprintf("%s: '%s' is not a file", w->fn, pattern);
    return SQLITE_ERROR;
  }
  w->cap = len + 1;
  w->path = sqlite3_malloc64(w->cap);
  if (!w->path) return SQLITE_NOMEM;
  memcpy(w->path, pattern, len + 1);
  w->len = len;
  return glob_found(w);
}

#endif /* PARQUET_OMIT_FILES */

int pqx_paths_expand(sqlite3 *db, const char *fn, const char *pattern,
                     char ***paths, int *n, char **msg) {
  return pqx_paths_watch(db, fn, pattern, 0, paths, n, NULL, NULL, msg);
}

int pqx_paths_watch(sqlite3 *db, const char *fn, const char *pattern,
                    int lenient, char ***paths, int *n, pqx_folder **dirs,
                    int *ndirs, char **msg) {
  *paths = NULL;
  *n = 0;
  *msg = NULL;
  if (dirs) {
    *dirs = NULL;
    *ndirs = 0;
  }
#ifdef PARQUET_OMIT_FILES
  (void)db;
  (void)pattern;
  (void)lenient;
  *msg = sqlite3_mprintf(PQX_OMIT_FILES_MSG, fn);
  return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
#else
  if (pqx_is_s3_glob(pattern)) { /* a listing, each time */
    pqx_http_opts o;
    pqx_http_opts_of(db, &o);
    return pqx_remote_list(&o, fn, pattern, lenient, paths, n, msg);
  }
  if (pqx_is_url(pattern)) { /* one object: a URL is never expanded */
    *paths = sqlite3_malloc64(sizeof **paths);
    if (!*paths) return SQLITE_NOMEM;
    (*paths)[0] = sqlite3_mprintf("%s", pattern);
    if (!(*paths)[0]) {
      sqlite3_free(*paths);
      *paths = NULL;
      return SQLITE_NOMEM;
    }
    *n = 1;
    return SQLITE_OK;
  }
  GlobWalk w;
  memset(&w, 0, sizeof w);
  w.fn = fn;
  w.pattern = pattern;
  w.msg = msg;
  w.want_dirs = dirs != NULL;
  int rc;
  if (glob_has_wild(pattern)) {
    size_t base = glob_base_len(pattern);
    rc = glob_run(&w, pattern, base, pattern + base);
  } else {
    rc = glob_plain(&w, pattern, lenient);
  }
  if (rc == SQLITE_OK && w.n == 0 && !lenient) {
    *msg = sqlite3_mprintf("%s: no file matches '%s'", fn, pattern);
    rc = SQLITE_ERROR;
  }
  sqlite3_free(w.path);
  sqlite3_free(w.text);
  sqlite3_free(w.segs);
  sqlite3_free(w.mark);
  sqlite3_free(w.scratch);
  if (rc) {
    pqx_paths_free(w.out, w.n);
    pqx_folders_free(w.dirs, w.ndirs);
    return rc;
  }
  glob_sort(&w);
  *paths = w.out;
  *n = w.n;
  if (dirs) {
    *dirs = w.dirs;
    *ndirs = w.ndirs;
  }
  return SQLITE_OK;
#endif /* PARQUET_OMIT_FILES */
}

int pqx_folders_same(const pqx_folder *dirs, int n) {
  if (n == 0) return 0; /* nothing to tell by: look again */
#ifdef PARQUET_OMIT_FILES
  (void)dirs;
  return 0;
#else
  for (int i = 0; i < n; i++) {
    pqx_folder now;
    if (dirs[i].racy) return 0;
    glob_folder_stat(dirs[i].path, &now);
    if (now.present != dirs[i].present || now.dev != dirs[i].dev ||
        now.ino != dirs[i].ino || now.mtime_ns != dirs[i].mtime_ns)
      return 0;
  }
  return 1;
#endif
}

void pqx_folders_free(pqx_folder *dirs, int n) {
  if (!dirs) return;
  for (int i = 0; i < n; i++) sqlite3_free(dirs[i].path);
  sqlite3_free(dirs);
}

void pqx_paths_free(char **paths, int n) {
  if (!paths) return;
  for (int i = 0; i < n; i++) sqlite3_free(paths[i]);
  sqlite3_free(paths);
}
