/*
** pqweb.c -- the playground's bridge between JavaScript and SQLite: one
** database with the extension built in, SQL in, results out as JSON.
**
** The same file builds natively (web/run.c, linked with the system's
** SQLite) so that `make test-wasm` can compare what the WebAssembly build
** answers with what the native one does, byte for byte.
**
**   pqweb_open()          a fresh in-memory database, the extension
**                         registered; 0 or SQLite's error code
**   pqweb_exec(sql, max, flags)
**                         runs the statements of sql in order, up to max
**                         rows each (0 = all), until one fails (or every
**                         one: flags PQWEB_CONTINUE, as the shell does);
**                         returns JSON (below), valid until the next call
**
** Lines that begin with "." where a statement would begin are the
** sqlite3 shell's commands (.load, .mode, .headers): they are skipped, so
** the tutorial's scripts run as they are.
**
** {"results":[{"sql":"SELECT 1 AS a","columns":["a"],"rows":[[1]],
**              "truncated":false}, ...],
**  "error":null}
**
** A value is null, a number (an integer within +-2^53, or a finite real),
** a string (TEXT), or an object: {"blob":"0A1B"}, {"int":"9007199254740993"}
** (beyond 2^53), {"real":"Inf"} / {"real":"-Inf"} / {"real":"NaN"}.  A
** statement that failed has "error", SQLite's message, in its result (with
** the rows it gave before); the top level's "error" is the first such
** message (else null) and "error_sql" that statement.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"

#include "pqweb.h"

int sqlite3_parquet_init(sqlite3 *db, char **pzErrMsg,
                         const sqlite3_api_routines *pApi);

static sqlite3 *db;
static sqlite3_str *out;
static char *last;

/* Text as a JSON string: quotes, backslashes and control characters
** escaped; other bytes (UTF-8) as they are. */
static void put_string(const char *s, int n) {
  static const char hex[] = "0123456789abcdef";
  sqlite3_str_appendchar(out, 1, '"');
  int from = 0;
  for (int i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    sqlite3_str_append(out, s + from, i - from);
    from = i + 1;
    switch (c) {
      case '"': sqlite3_str_append(out, "\\\"", 2); break;
      case '\\': sqlite3_str_append(out, "\\\\", 2); break;
      case '\n': sqlite3_str_append(out, "\\n", 2); break;
      case '\t': sqlite3_str_append(out, "\\t", 2); break;
      case '\r': sqlite3_str_append(out, "\\r", 2); break;
      default: {
        char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        sqlite3_str_append(out, u, 6);
      }
    }
  }
  sqlite3_str_append(out, s + from, n - from);
  sqlite3_str_appendchar(out, 1, '"');
}

/* A finite real in the fewest digits that read back as the same double
** (15 to 17), as C's printf writes them on every platform. */
static void put_real(double v) {
  char buf[40];
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, sizeof buf, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) break;
  }
  sqlite3_str_appendall(out, buf);
}

static void put_value(sqlite3_stmt *st, int i) {
  switch (sqlite3_column_type(st, i)) {
    case SQLITE_NULL: sqlite3_str_appendall(out, "null"); break;
    case SQLITE_INTEGER: {
      sqlite3_int64 v = sqlite3_column_int64(st, i);
      if (v <= ((sqlite3_int64)1 << 53) && v >= -((sqlite3_int64)1 << 53))
        sqlite3_str_appendf(out, "%lld", v);
      else
        sqlite3_str_appendf(out, "{\"int\":\"%lld\"}", v);
      break;
    }
    case SQLITE_FLOAT: {
      double v = sqlite3_column_double(st, i);
      if (v != v)
        sqlite3_str_appendall(out, "{\"real\":\"NaN\"}");
      else if (v > 1.7976931348623157e308)
        sqlite3_str_appendall(out, "{\"real\":\"Inf\"}");
      else if (v < -1.7976931348623157e308)
        sqlite3_str_appendall(out, "{\"real\":\"-Inf\"}");
      else
        put_real(v);
      break;
    }
    case SQLITE_TEXT:
      put_string((const char *)sqlite3_column_text(st, i),
                 sqlite3_column_bytes(st, i));
      break;
    default: {
      static const char hex[] = "0123456789ABCDEF";
      const unsigned char *b = sqlite3_column_blob(st, i);
      int n = sqlite3_column_bytes(st, i);
      sqlite3_str_appendall(out, "{\"blob\":\"");
      for (int k = 0; k < n; k++) {
        char h[2] = {hex[b[k] >> 4], hex[b[k] & 15]};
        sqlite3_str_append(out, h, 2);
      }
      sqlite3_str_appendall(out, "\"}");
    }
  }
}

/* Past white space, comments and shell commands: where the next
** statement begins. */
static const char *next_statement(const char *p) {
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' ||
           *p == '\f' || *p == '\v')
      p++;
    if (p[0] == '-' && p[1] == '-') {
      while (*p && *p != '\n') p++;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *end = strstr(p + 2, "*/");
      p = end ? end + 2 : p + strlen(p);
    } else if (p[0] == '.') {
      while (*p && *p != '\n') p++;
    } else {
      return p;
    }
  }
}

int pqweb_open(void) {
  if (db) sqlite3_close(db);
  db = NULL;
  int rc = sqlite3_open(":memory:", &db);
  if (rc == SQLITE_OK) rc = sqlite3_parquet_init(db, NULL, NULL);
  return rc;
}

/* One statement's result object, without its closing brace; the
** statement's error message when it failed, else NULL. */
static const char *run_one(sqlite3_stmt *st, int max_rows) {
  const char *text = sqlite3_sql(st);
  sqlite3_str_appendall(out, "{\"sql\":");
  put_string(text, (int)strlen(text));
  sqlite3_str_appendall(out, ",\"columns\":[");
  int nc = sqlite3_column_count(st);
  for (int i = 0; i < nc; i++) {
    const char *name = sqlite3_column_name(st, i);
    if (i) sqlite3_str_appendchar(out, 1, ',');
    put_string(name ? name : "", name ? (int)strlen(name) : 0);
  }
  sqlite3_str_appendall(out, "],\"rows\":[");
  int rows = 0, truncated = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (max_rows > 0 && rows == max_rows) {
      truncated = 1;
      break;
    }
    sqlite3_str_appendall(out, rows++ ? ",[" : "[");
    for (int i = 0; i < nc; i++) {
      if (i) sqlite3_str_appendchar(out, 1, ',');
      put_value(st, i);
    }
    sqlite3_str_appendchar(out, 1, ']');
  }
  sqlite3_str_appendf(out, "],\"truncated\":%s",
                      truncated ? "true" : "false");
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? NULL : sqlite3_errmsg(db);
}

const char *pqweb_exec(const char *sql, int max_rows, int flags) {
  sqlite3_free(last);
  last = NULL;
  out = sqlite3_str_new(NULL);
  sqlite3_str_appendall(out, "{\"results\":[");
  const char *p = next_statement(sql);
  int nres = 0;
  char *first_error = NULL, *first_sql = NULL;
  while (*p && db) {
    sqlite3_stmt *st = NULL;
    const char *tail = NULL, *error = NULL;
    int rc = sqlite3_prepare_v2(db, p, -1, &st, &tail);
    if (rc == SQLITE_OK && !st) { /* nothing but a comment */
      p = next_statement(tail);
      continue;
    }
    if (nres++) sqlite3_str_appendchar(out, 1, ',');
    const char *text;
    int n;
    if (rc != SQLITE_OK) {
      /* the statement runs to its ';', as far as can be told */
      const char *semi = strchr(p, ';');
      n = semi ? (int)(semi - p + 1) : (int)strlen(p);
      text = p;
      sqlite3_str_appendall(out, "{\"sql\":");
      put_string(p, n);
      error = sqlite3_errmsg(db);
      tail = p + n;
    } else {
      text = sqlite3_sql(st);
      n = (int)strlen(text);
      error = run_one(st, max_rows);
    }
    if (error) {
      sqlite3_str_appendall(out, ",\"error\":");
      put_string(error, (int)strlen(error));
      if (!first_error) {
        first_error = sqlite3_mprintf("%s", error);
        first_sql = sqlite3_mprintf("%.*s", n, text);
      }
    }
    sqlite3_str_appendchar(out, 1, '}');
    sqlite3_finalize(st);
    p = next_statement(tail);
    if (error && !(flags & PQWEB_CONTINUE)) break;
  }
  sqlite3_str_appendall(out, "],\"error\":");
  if (!db) {
    sqlite3_str_appendall(out, "\"no database: pqweb_open() first\"");
  } else if (first_error) {
    put_string(first_error, (int)strlen(first_error));
    sqlite3_str_appendall(out, ",\"error_sql\":");
    put_string(first_sql ? first_sql : "", first_sql ? (int)strlen(first_sql) : 0);
  } else {
    sqlite3_str_appendall(out, "null");
  }
  sqlite3_str_appendchar(out, 1, '}');
  sqlite3_free(first_error);
  sqlite3_free(first_sql);
  last = sqlite3_str_finish(out);
  out = NULL;
  return last ? last : "{\"results\":[],\"error\":\"out of memory\"}";
}

const char *pqweb_version(void) { return sqlite3_libversion(); }
