/*
** access.c -- what a call must pass before it reads or writes a file or
** changes the connection's settings: the file switches, and the proof
** that the call comes from SQL the application ran, not from a database's
** schema.  doc/security.md has the threat model.
**
**   SELECT parquet_file_access();     -- 1: files may be read and written
**   SELECT parquet_file_access(0);    -- off for this connection, for good
**
** Why the extension checks its callers itself: its file functions are
** SQLITE_DIRECTONLY, which SQLite 3.40 enforces in views, triggers and
** DEFAULT clauses, but not in CHECK constraints.  A database file whose
** schema has
**
**   CREATE TABLE t(a CHECK (parquet_write('/x', 'SELECT * FROM s') >= 0))
**
** would make an INSERT into t, or a PRAGMA integrity_check (a read-only
** statement), write /x.  Generated columns, index expressions and partial
** indexes take deterministic functions only, so CHECK constraints are the
** one way in, and they run only in statements that write the database and
** in integrity checks.  So a guarded call (pqx_guard) is refused when:
**
**   (a) a statement of the connection that is running (sqlite3_stmt_busy)
**       writes the database (not sqlite3_stmt_readonly): the call may come
**       from a CHECK constraint of the table written;
**   (b) no running statement calls the function by name in its text
**       (sqlite3_sql): a CHECK constraint's call is never in the text of
**       the statement that runs it, while the application's own call is in
**       the text it prepared.  The text is scanned token by token: string
**       literals and comments are skipped, identifiers compared without
**       case (quoted ones too), and the name must be followed by '(';
**   (c) a running statement is an integrity check (PRAGMA integrity_check
**       or quick_check, or their table-valued forms): the one read-only
**       statement that evaluates CHECK constraints.  Without it, a call
**       named by the application (SELECT parquet_write('r', 'PRAGMA
**       integrity_check')) would vouch for one that the check's CHECK
**       constraints make.
**
** The statements the extension prepares itself are either fixed text that
** names no guarded function, or text an allowed call was given (the query
** of parquet_write), so they vouch for nothing the application did not
** write.  A statement whose text SQLite does not keep (SQLite promises it
** only for the _v2 and _v3 prepare interfaces) vouches for nothing.
**
** The file switches: PARQUET_OMIT_FILES at compile time leaves file access
** out of the build; parquet_file_access(0) turns it off for one connection,
** and nothing turns it back on, so that an application can hand SQL to its
** users once it is off.  The state lives with the connection's other
** settings (limits.c).
*/
#include <string.h>

#include "ext.h"

/* ---- Scanning SQL text -------------------------------------------------- */

enum { TOK_END, TOK_IDENT, TOK_OTHER };

typedef struct SqlTok {
  int kind;
  const char *at; /* an identifier's text, without its quotes */
  size_t len;
} SqlTok;

static int acc_idchar(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '$' || c >= 0x80;
}

/* Skips white space and comments from s; returns where the next token
** starts (at the NUL at the end). */
static const char *acc_skip(const char *s) {
  for (;;) {
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' ||
        *s == '\v') {
      s++;
    } else if (s[0] == '-' && s[1] == '-') {
      while (*s && *s != '\n') s++;
    } else if (s[0] == '/' && s[1] == '*') {
      s += 2;
      while (*s && !(s[0] == '*' && s[1] == '/')) s++;
      if (*s) s += 2;
    } else {
      return s;
    }
  }
}

/* The token at *ps (after white space and comments), and *ps moved past
** it.  String literals are TOK_OTHER; identifiers, bare or quoted ("x",
** `x`, [x]), TOK_IDENT; parameters (?1, :a, @a, $a) and numbers
** TOK_OTHER. */
static SqlTok acc_token(const char **ps) {
  const char *s = acc_skip(*ps);
  SqlTok t = {TOK_OTHER, s, 0};
  unsigned char c = (unsigned char)*s;
  if (c == 0) {
    t.kind = TOK_END;
  } else if (c == '\'' || c == '"' || c == '`') {
    /* a quoted string or identifier: the quote doubled inside */
    const char *p = s + 1;
    for (;;) {
      if (*p == 0) break;
      if ((unsigned char)*p == c) {
        if ((unsigned char)p[1] == c) {
          p += 2;
          continue;
        }
        break;
      }
      p++;
    }
    if (c != '\'') {
      t.kind = TOK_IDENT;
      t.at = s + 1;
      t.len = (size_t)(p - s - 1);
    }
    s = *p ? p + 1 : p;
  } else if (c == '[') {
    const char *p = s + 1;
    while (*p && *p != ']') p++;
    t.kind = TOK_IDENT;
    t.at = s + 1;
    t.len = (size_t)(p - s - 1);
    s = *p ? p + 1 : p;
  } else if (c == '?' || c == ':' || c == '@' || c == '$' ||
             (c >= '0' && c <= '9')) {
    s++;
    while (acc_idchar((unsigned char)*s)) s++;
  } else if (acc_idchar(c)) {
    t.kind = TOK_IDENT;
    while (acc_idchar((unsigned char)*s)) s++;
    t.len = (size_t)(s - t.at);
  } else {
    s++;
  }
  *ps = s;
  return t;
}

static int acc_is(const SqlTok *t, const char *name) {
  size_t n = strlen(name);
  return t->kind == TOK_IDENT && t->len == n &&
         sqlite3_strnicmp(t->at, name, (int)n) == 0;
}

/* 1 when the SQL text calls the function fn: its name, then '('. */
static int acc_calls(const char *sql, const char *fn) {
  const char *s = sql;
  for (;;) {
    SqlTok t = acc_token(&s);
    if (t.kind == TOK_END) return 0;
    if (acc_is(&t, fn) && *acc_skip(s) == '(') return 1;
  }
}

/* 1 when the SQL text runs an integrity check, which evaluates the CHECK
** constraints of the tables it checks. */
static int acc_checks(const char *sql) {
  static const char *const names[] = {"integrity_check", "quick_check",
                                      "pragma_integrity_check",
                                      "pragma_quick_check"};
  const char *s = sql;
  for (;;) {
    SqlTok t = acc_token(&s);
    if (t.kind == TOK_END) return 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
      if (acc_is(&t, names[i])) return 1;
  }
}

/* ---- The checks ---------------------------------------------------------- */

int pqx_files_allowed(sqlite3 *db, const char *fn, char **msg) {
  *msg = NULL;
#ifdef PARQUET_OMIT_FILES
  (void)db;
  *msg = sqlite3_mprintf(PQX_OMIT_FILES_MSG, fn);
  return 0;
#else
  if (pqx_conn_files_off(db)) {
    *msg = sqlite3_mprintf(PQX_FILES_OFF_MSG, fn);
    return 0;
  }
  return 1;
#endif
}

void pqx_result_error_msg(sqlite3_context *ctx, char *msg) {
  if (msg) {
    sqlite3_result_error(ctx, msg, -1);
    sqlite3_free(msg);
  } else {
    sqlite3_result_error_nomem(ctx);
  }
}

int pqx_guard_call(sqlite3_context *ctx, const char *fn) {
  sqlite3 *db = sqlite3_context_db_handle(ctx);
  int named = 0, writes = 0, checks = 0;
  for (sqlite3_stmt *p = sqlite3_next_stmt(db, NULL); p;
       p = sqlite3_next_stmt(db, p)) {
    if (!sqlite3_stmt_busy(p)) continue;
    const char *sql = sqlite3_sql(p);
    if (!sqlite3_stmt_readonly(p)) writes = 1;
    if (sql && !checks) checks = acc_checks(sql);
    if (sql && !named) named = acc_calls(sql, fn);
  }
  /* All three are refusals; the order only picks the message. */
  if (!named) {
    pqx_result_error_msg(ctx, sqlite3_mprintf(
                      "%s: refused: no statement of this connection calls "
                      "%s by name, so the call comes from the database's "
                      "schema (a CHECK constraint) or from a statement "
                      "whose text SQLite did not keep: call it in SQL of "
                      "your own, prepared with sqlite3_prepare_v2 or _v3 "
                      "(doc/security.md)",
                      fn, fn));
    return 1;
  }
  if (writes) {
    pqx_result_error_msg(ctx, sqlite3_mprintf(
                      "%s: refused inside a statement that writes the "
                      "database (a CHECK constraint of the table written "
                      "could be the caller): %s",
                      fn, pqx_guard_advice(fn)));
    return 1;
  }
  if (checks) {
    pqx_result_error_msg(ctx, sqlite3_mprintf(
                      "%s: refused during an integrity check, which runs "
                      "the CHECK constraints of the database's schema: run "
                      "the check in a statement of its own",
                      fn));
    return 1;
  }
  return 0;
}

const char *pqx_guard_advice(const char *fn) {
  if (strcmp(fn, "parquet_write") == 0)
    return "run parquet_write in a SELECT of its own";
  if (strcmp(fn, "parquet_decode") == 0)
    return "read the file in a SELECT of its own, or import it with "
           "parquet_rows or the parquet table (INSERT INTO t SELECT ... "
           "FROM parquet_rows('f.parquet'))";
  return "call it in a SELECT of its own";
}

int pqx_guard(sqlite3_context *ctx, const char *fn) {
  char *msg;
  if (!pqx_files_allowed(sqlite3_context_db_handle(ctx), fn, &msg)) {
    pqx_result_error_msg(ctx, msg);
    return 1;
  }
  return pqx_guard_call(ctx, fn);
}

int pqx_path_arg(sqlite3_value *v, const char *fn, const char **path,
                 char **msg) {
  static const char *const classes[] = {"?", "an INTEGER", "a REAL", "TEXT",
                                        "a BLOB", "NULL"};
  *path = NULL;
  *msg = NULL;
  int vt = sqlite3_value_type(v);
  if (vt != SQLITE_TEXT) {
    *msg = sqlite3_mprintf("%s: a path is TEXT, not %s", fn, classes[vt]);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  const char *s = (const char *)sqlite3_value_text(v);
  if (!s) return SQLITE_NOMEM;
  size_t n = (size_t)sqlite3_value_bytes(v);
  size_t k = strlen(s);
  if (k != n) {
    /* C's file functions would read the path up to the NUL: another file
    ** than the one the value names. */
    *msg = sqlite3_mprintf(
        "%s: the path '%s' has a NUL byte at offset %lld (of %lld bytes): "
        "a path cannot hold one",
        fn, s, (long long)k, (long long)n);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  if (n == 0) {
    *msg = sqlite3_mprintf("%s: the path is empty", fn);
    return *msg ? SQLITE_ERROR : SQLITE_NOMEM;
  }
  *path = s;
  return SQLITE_OK;
}

/* ---- parquet_file_access([on]) ------------------------------------------ */

/* parquet_file_access(): 1 when this connection may read and write files,
** else 0.  parquet_file_access(0) turns that off, for good; (1) is an
** error once it is off.  With an argument it returns the state before. */
static void fileAccessFunc(sqlite3_context *ctx, int argc,
                           sqlite3_value **argv) {
  static const char fn[] = "parquet_file_access";
  sqlite3 *db = sqlite3_context_db_handle(ctx);
#ifdef PARQUET_OMIT_FILES
  int on = 0;
#else
  int on = !pqx_conn_files_off(db);
#endif
  if (argc > 1) {
    sqlite3_result_error(ctx, "parquet_file_access: takes 0 or 1 argument",
                         -1);
    return;
  }
  if (argc == 0) {
    sqlite3_result_int(ctx, on);
    return;
  }
  sqlite3_int64 want = sqlite3_value_int64(argv[0]);
  if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER || want < 0 || want > 1) {
    sqlite3_result_error(ctx,
                         "parquet_file_access: the argument is 0 (turn file "
                         "access off) or 1",
                         -1);
    return;
  }
  if (pqx_guard_call(ctx, fn)) return;
  if (want == 1 && !on) {
#ifdef PARQUET_OMIT_FILES
    pqx_result_error_msg(ctx, sqlite3_mprintf(PQX_OMIT_FILES_MSG, fn));
#else
    pqx_result_error_msg(ctx, sqlite3_mprintf(
                      "%s: file access is off for this connection and "
                      "cannot be turned back on: an application turns it "
                      "off before it runs SQL it did not write, and that "
                      "SQL must not undo it (open another connection)",
                      fn));
#endif
    return;
  }
  if (want == 0 && on && pqx_conn_close_files(db) != SQLITE_OK) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_int(ctx, on);
}

int pqx_register_access(sqlite3 *db) {
  /* DIRECTONLY: a view or a trigger may not call it either. */
  return sqlite3_create_function(db, "parquet_file_access", -1,
                                 SQLITE_UTF8 | SQLITE_DIRECTONLY, NULL,
                                 fileAccessFunc, NULL, NULL);
}
