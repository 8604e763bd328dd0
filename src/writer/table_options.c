/*
** table_options.c -- the table writer's options (doc/parquet_write.md,
** "Options"): parquet_write's JSON object read into a tw_options, the
** keys of the whole file ("columns", "metadata", "partition_by", ...)
** here, every column's own keys ("type", "encoding", ...) applied over
** the defaults, and the file writer's keys passed on to
** pq_write_options_parse.  Each member is seen as SQLite's json_each
** shows it (a key, its JSON text, its text, its type), so that a value's
** text in a message reads as it always has.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "writer.h"

/* A member of an object (or an item of an array): its key, its JSON text
** (an object or array compact, true/false/null as such, a string or a
** number quoted as JSON), its text (a string decoded, a number's digits,
** true 1 and false 0, NULL for null) and its type. */
typedef struct topt_pair {
  const char *key;
  const char *json;
  const char *text;
  const char *jtype;
} topt_pair;

/* The scratch of one member's texts. */
typedef struct topt_texts {
  pq_buf key, json, text;
} topt_texts;

void pq_json_quote_sql(pq_buf *b, const uint8_t *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  pq_buf_byte(b, '"');
  for (size_t i = 0; i < n; i++) {
    uint8_t c = s[i];
    if (c == '"' || c == '\\') {
      pq_buf_byte(b, '\\');
      pq_buf_byte(b, c);
    } else if (c < 0x20) {
      char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      pq_buf_append(b, u, sizeof u);
    } else {
      pq_buf_byte(b, c);
    }
  }
  pq_buf_byte(b, '"');
}

/* Raw JSON text without its blanks outside strings. */
static void topt_compact(pq_buf *b, const char *s, size_t n) {
  int in = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (in) {
      pq_buf_byte(b, (uint8_t)c);
      if (c == '\\' && i + 1 < n) pq_buf_byte(b, (uint8_t)s[++i]);
      else if (c == '"') in = 0;
    } else if (c == '"') {
      in = 1;
      pq_buf_byte(b, (uint8_t)c);
    } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      pq_buf_byte(b, (uint8_t)c);
    }
  }
}

/* Whether a number's raw text is an integer (no fraction, no exponent). */
static int topt_is_int(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] == '.' || s[i] == 'e' || s[i] == 'E') return 0;
  return 1;
}

/* Member x of d as a pair (its texts in t); PQ_NOMEM or PQ_OK. */
static int topt_pair_of(const pq_json_doc *d, const pq_json_node *x,
                        topt_texts *t, topt_pair *pr) {
  const char *raw = d->src + x->at;
  t->key.len = t->json.len = t->text.len = 0;
  if (x->has_key)
    pq_buf_append(&t->key, pq_json_text(d, x->key_off), x->key_len);
  int null_text = 0;
  switch (x->type) {
    case PQ_J_NULL:
      pr->jtype = "null";
      pq_buf_append(&t->json, "null", 4);
      null_text = 1;
      break;
    case PQ_J_TRUE:
    case PQ_J_FALSE:
      pr->jtype = x->type == PQ_J_TRUE ? "true" : "false";
      pq_buf_append(&t->json, pr->jtype, strlen(pr->jtype));
      pq_buf_byte(&t->text, x->type == PQ_J_TRUE ? '1' : '0');
      break;
    case PQ_J_STRING:
      pr->jtype = "text";
      pq_json_quote_sql(&t->json, pq_json_text(d, x->str_off), x->str_len);
      pq_buf_append(&t->text, pq_json_text(d, x->str_off), x->str_len);
      break;
    case PQ_J_NUMBER:
      if (topt_is_int(raw, x->len)) {
        pr->jtype = "integer";
        char s[32];
        long long v = strtoll(raw, NULL, 10);
        snprintf(s, sizeof s, "%lld", v);
        pq_buf_append(&t->json, s, strlen(s));
      } else {
        pr->jtype = "real";
        pq_real_sql_text(&t->json, strtod(raw, NULL));
      }
      pq_buf_append(&t->text, t->json.data, t->json.len);
      break;
    default:
      pr->jtype = x->type == PQ_J_OBJECT ? "object" : "array";
      topt_compact(&t->json, raw, x->len);
      pq_buf_append(&t->text, t->json.data, t->json.len);
      break;
  }
  pq_buf_byte(&t->key, 0);
  pq_buf_byte(&t->json, 0);
  pq_buf_byte(&t->text, 0);
  if (t->key.oom || t->json.oom || t->text.oom) return PQ_NOMEM;
  pr->key = (const char *)t->key.data;
  pr->json = (const char *)t->json.data;
  pr->text = null_text ? NULL : (const char *)t->text.data;
  return PQ_OK;
}

/* A JSON text parsed into d: its root node, -1 when it is no JSON, or -2
** when out of memory. */
static int topt_parse(pq_json_doc *d, const char *s, size_t n) {
  size_t at;
  const char *fault;
  memset(d, 0, sizeof *d);
  pq_buf_init(&d->text);
  return pq_json_parse(d, s, n, &at, &fault);
}

typedef int (*topt_fn)(pq_table_writer *tw, void *arg, const topt_pair *pr);

/* Whether s is "auto" in any case. */
static int topt_is_auto(const char *s) {
  static const char a[] = "auto";
  for (int i = 0; i < 4; i++)
    if (s[i] != a[i] && s[i] != a[i] - 32) return 0;
  return s[4] == 0;
}

/* Runs fn over the members of the object (or items of the array) root
** of d. */
static int topt_each(pq_table_writer *tw, const pq_json_doc *d, int root,
                     topt_fn fn, void *arg) {
  topt_texts t;
  pq_buf_init(&t.key);
  pq_buf_init(&t.json);
  pq_buf_init(&t.text);
  int rc = PQ_OK;
  for (int k = d->nodes[root].first; k >= 0 && !rc; k = d->nodes[k].next) {
    topt_pair pr;
    rc = topt_pair_of(d, &d->nodes[k], &t, &pr);
    if (!rc) rc = fn(tw, arg, &pr);
  }
  pq_buf_free(&t.key);
  pq_buf_free(&t.json);
  pq_buf_free(&t.text);
  return rc;
}

/* Parses json, an object's or array's text, and runs fn over it. */
static int topt_each_text(pq_table_writer *tw, const char *json, topt_fn fn,
                          void *arg) {
  pq_json_doc d;
  int root = topt_parse(&d, json, strlen(json));
  int rc = root == -2 ? PQ_NOMEM : root < 0 ? PQ_MISUSE : PQ_OK;
  if (rc == PQ_MISUSE) pq_tbl_fail(tw, rc, "options: malformed JSON");
  if (!rc) rc = topt_each(tw, &d, root, fn, arg);
  pq_json_free(&d);
  return rc;
}

/* A copy of s (pq_malloc), NULL when out of memory. */
static char *topt_dup(const char *s) {
  size_t n = strlen(s);
  char *c = pq_malloc(n + 1);
  if (c) memcpy(c, s, n + 1);
  return c;
}

int pq_tbl_nested_parse(const char *s, pq_nested **tree, pq_buf *msg) {
  *tree = NULL;
  int rc = pq_nested_parse(s, tree, msg);
  pq_buf_byte(msg, 0);
  if (rc == -2 || msg->oom) {
    pq_nested_free(*tree);
    *tree = NULL;
    return -2;
  }
  return rc < 0 ? -1 : rc;
}

/* ---- A column's keys ------------------------------------------------------ */

/* "auto": {"allow": [names]}: the encodings "auto" may try besides those
** every mainstream reader reads (pq_auto_tries), into o->auto_allow. */
static int topt_auto(pq_table_writer *tw, const char *where, const char *json,
                     const char *jtype, pq_write_options *o) {
  static const char shape[] =
      "options%s: \"auto\" must be {\"allow\": [encoding names]}";
  if (strcmp(jtype, "object")) return pq_tbl_fail(tw, PQ_MISUSE, shape, where);
  pq_json_doc d;
  int root = topt_parse(&d, json, strlen(json));
  if (root == -2) {
    pq_json_free(&d);
    return PQ_NOMEM;
  }
  int rc = PQ_OK, allow_at = -1;
  if (root < 0) rc = pq_tbl_fail(tw, PQ_MISUSE, shape, where);
  for (int k = root >= 0 ? d.nodes[root].first : -1; k >= 0 && !rc;
       k = d.nodes[k].next) {
    const pq_json_node *x = &d.nodes[k];
    if (x->key_len == 5 && memcmp(pq_json_text(&d, x->key_off), "allow", 5) == 0) {
      if (allow_at < 0) allow_at = k;
    } else {
      rc = pq_tbl_fail(tw, PQ_MISUSE, shape, where);
    }
  }
  if (!rc && (allow_at < 0 || d.nodes[allow_at].type != PQ_J_ARRAY))
    rc = pq_tbl_fail(tw, PQ_MISUSE, shape, where);
  unsigned allow = 0;
  for (int k = rc ? -1 : d.nodes[allow_at].first; k >= 0 && !rc;
       k = d.nodes[k].next) {
    const pq_json_node *x = &d.nodes[k];
    if (x->type != PQ_J_STRING) {
      rc = pq_tbl_fail(tw, PQ_MISUSE, shape, where);
      break;
    }
    char name[64];
    size_t n = x->str_len < sizeof name - 1 ? x->str_len : sizeof name - 1;
    memcpy(name, pq_json_text(&d, x->str_off), n);
    name[n] = 0;
    pq_encoding e;
    if (x->str_len >= sizeof name || pq_encoding_parse(name, n, &e)) {
      rc = pq_tbl_fail(tw, PQ_MISUSE, "options%s: \"auto\": unknown encoding '%.*s'",
                      where, (int)x->str_len,
                      (const char *)pq_json_text(&d, x->str_off));
    } else if (e != PQ_ALP && e != PQ_BYTE_STREAM_SPLIT &&
               e != PQ_GROUP_VAR_INT) {
      rc = pq_tbl_fail(tw, PQ_MISUSE,
                      "options%s: \"auto\": \"allow\" takes ALP, "
                      "BYTE_STREAM_SPLIT and GROUP_VAR_INT, the "
                      "encodings not every mainstream reader reads, "
                      "not %s",
                      where, pq_encoding_name(e));
    } else {
      allow |= 1u << e;
    }
  }
  pq_json_free(&d);
  if (!rc) o->auto_allow = allow;
  return rc;
}

/* "bloom_filter": true, false, or {"ndv": n, "fpp": p}. */
static int topt_bloom(pq_table_writer *tw, const char *where, const char *json,
                      const char *jtype, pq_write_options *o) {
  if (strcmp(jtype, "true") == 0 || strcmp(jtype, "false") == 0) {
    o->bloom = strcmp(jtype, "true") == 0;
    o->bloom_ndv = 0;
    o->bloom_fpp = 0;
    return PQ_OK;
  }
  int ok = strcmp(jtype, "object") == 0;
  pq_json_doc d;
  int root = -1;
  if (ok) {
    root = topt_parse(&d, json, strlen(json));
    if (root == -2) {
      pq_json_free(&d);
      return PQ_NOMEM;
    }
    ok = root >= 0;
  }
  int ndv_at = -1, fpp_at = -1;
  for (int k = ok ? d.nodes[root].first : -1; k >= 0 && ok; k = d.nodes[k].next) {
    const pq_json_node *x = &d.nodes[k];
    const char *key = (const char *)pq_json_text(&d, x->key_off);
    if (x->key_len == 3 && memcmp(key, "ndv", 3) == 0) {
      if (ndv_at < 0) ndv_at = k;
    } else if (x->key_len == 3 && memcmp(key, "fpp", 3) == 0) {
      if (fpp_at < 0) fpp_at = k;
    } else {
      ok = 0;
    }
  }
  int64_t ndv = 0;
  double fpp = 0;
  if (ok && ndv_at >= 0) {
    const pq_json_node *x = &d.nodes[ndv_at];
    const char *raw = d.src + x->at;
    if (x->type != PQ_J_NUMBER || !topt_is_int(raw, x->len)) ok = 0;
    else ndv = strtoll(raw, NULL, 10);
    if (ndv < 1) ok = 0;
  }
  if (ok && fpp_at >= 0) {
    const pq_json_node *x = &d.nodes[fpp_at];
    if (x->type != PQ_J_NUMBER) ok = 0;
    else fpp = strtod(d.src + x->at, NULL);
    if (!(fpp > 0 && fpp < 1)) ok = 0;
  }
  if (strcmp(jtype, "object") == 0) pq_json_free(&d);
  if (!ok)
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "options%s: \"bloom_filter\" is true, false "
                      "or {\"ndv\": distinct values (at least 1), "
                      "\"fpp\": a probability between 0 and 1}",
                      where);
  o->bloom = 1;
  o->bloom_ndv = ndv_at >= 0 ? ndv : 0;
  o->bloom_fpp = fpp_at >= 0 ? fpp : 0;
  return PQ_OK;
}

/* Applies one key of a column's (or the defaults') options. */
static int topt_apply(pq_table_writer *tw, const tw_col_options *co,
                      const topt_pair *pr) {
  const char *key = pr->key, *json = pr->json, *text = pr->text,
             *jtype = pr->jtype, *where = co->where;
  if (strcmp(key, "type") == 0) {
    if (strcmp(jtype, "text") != 0 || strlen(text) >= TW_TYPE_MAX)
      return pq_tbl_fail(tw, PQ_MISUSE, "options%s: \"type\" must be a type name",
                        where);
    pq_write_type t;
    pq_nested *tree;
    pq_buf why;
    pq_buf_init(&why);
    int nested = pq_tbl_nested_parse(text, &tree, &why);
    pq_nested_free(tree);
    int rc = PQ_OK;
    if (nested == -2) rc = PQ_NOMEM;
    else if (nested < 0)
      rc = pq_tbl_fail(tw, PQ_MISUSE, "options%s: type '%s': %s", where, text,
                      (const char *)why.data);
    pq_buf_free(&why);
    if (rc) return rc;
    if (!nested && pq_write_type_parse(text, &t))
      return pq_tbl_fail(
          tw, PQ_MISUSE,
          "options%s: unknown type '%s' (INT32, INT64, FLOAT, DOUBLE, "
          "BOOLEAN, STRING, BINARY, JSON, DATE, TIME(ms|us|ns), "
          "TIMESTAMP(ms|us|ns[, utc]), DECIMAL(p,s), UUID, "
          "FIXED_LEN_BYTE_ARRAY(n), INT96, GEOMETRY[(crs)], "
          "GEOGRAPHY[(crs[, algorithm])])",
          where, text);
    strcpy(co->type, text);
    *co->has_type = 1;
    return PQ_OK;
  }
  if (strcmp(key, "encoding") == 0) {
    pq_encoding e;
    if (strcmp(jtype, "text") != 0 || strlen(text) >= 64 ||
        (!topt_is_auto(text) &&
         pq_encoding_parse(text, strlen(text), &e)))
      return pq_tbl_fail(tw, PQ_MISUSE, "options%s: unknown encoding '%s'",
                        where, text ? text : "");
    strcpy(co->enc, text);
    *co->has_enc = 1;
    return PQ_OK;
  }
  if (strcmp(key, "dictionary") == 0) {
    if (strcmp(jtype, "true") && strcmp(jtype, "false"))
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options%s: \"dictionary\" must be true or false",
                        where);
    *co->dict = strcmp(jtype, "true") == 0;
    return PQ_OK;
  }
  if (strcmp(key, "bloom_filter") == 0)
    return topt_bloom(tw, where, json, jtype, co->o);
  if (strcmp(key, "auto") == 0) return topt_auto(tw, where, json, jtype, co->o);
  if (strcmp(key, "dictionary_page_size") == 0) {
    if (strcmp(jtype, "integer") || atoll(text) < 1 || atoll(text) > (1 << 30))
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options%s: \"dictionary_page_size\" must "
                        "be an integer from 1 to 1073741824 (bytes)",
                        where);
    co->o->dictionary_page_size = atoll(text);
    return PQ_OK;
  }
  if (strcmp(key, "shred") == 0 && co->shred) { /* a VARIANT's */
    pq_free(*co->shred);
    *co->shred = topt_dup(json);
    return *co->shred ? PQ_OK : PQ_NOMEM;
  }
  if (strcmp(key, "name") == 0 || strcmp(key, "string") == 0 ||
      strcmp(key, "row_group_size") == 0)
    return pq_tbl_fail(tw, PQ_MISUSE, "options%s: unknown option \"%s\"", where,
                      key);
  /* The file writer's own keys (doc/parquet_file.md). */
  for (const char *k = key; *k; k++)
    if (!((*k >= 'a' && *k <= 'z') || *k == '_' || (*k >= '0' && *k <= '9')))
      return pq_tbl_fail(tw, PQ_MISUSE, "options%s: unknown option \"%s\"",
                        where, key);
  pq_buf one;
  pq_buf_init(&one);
  pq_buf_append(&one, "{\"", 2);
  pq_buf_append(&one, key, strlen(key));
  pq_buf_append(&one, "\":", 2);
  pq_buf_append(&one, json, strlen(json));
  pq_buf_byte(&one, '}');
  if (one.oom) {
    pq_buf_free(&one);
    return PQ_NOMEM;
  }
  pq_error err = {0};
  int rc = pq_write_options_parse(co->o, co->p, (const char *)one.data,
                                  one.len, &err);
  pq_buf_free(&one);
  if (rc == PQ_NOMEM) return rc;
  if (rc) {
    /* the core's own label is "options" too */
    const char *m = strncmp(err.msg, "options: ", 9) == 0 ? err.msg + 9 : err.msg;
    return pq_tbl_fail(tw, PQ_MISUSE, "options%s: %s", where, m);
  }
  return PQ_OK;
}

/* ---- The file's keys ------------------------------------------------------- */

static int topt_metadata_pair(pq_table_writer *tw, void *arg,
                              const topt_pair *pr) {
  (void)arg;
  tw_options *o = &tw->opt;
  if (strcmp(pr->jtype, "text") && strcmp(pr->jtype, "null"))
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "options: metadata \"%s\" must be a string or null",
                      pr->key);
  int null = strcmp(pr->jtype, "null") == 0;
  /* both arrays grow first: the pair goes in whole or not at all */
  char **kk = pq_realloc(o->kv_keys, (size_t)(o->nkv + 1) * sizeof *kk);
  if (kk) o->kv_keys = kk;
  char **vv = kk ? pq_realloc(o->kv_values, (size_t)(o->nkv + 1) * sizeof *vv)
                 : NULL;
  if (vv) o->kv_values = vv;
  char *key_copy = vv ? topt_dup(pr->key) : NULL;
  char *value_copy = key_copy && !null ? topt_dup(pr->text) : NULL;
  if (!key_copy || (!null && !value_copy)) {
    pq_free(key_copy);
    return PQ_NOMEM;
  }
  o->kv_keys[o->nkv] = key_copy;
  o->kv_values[o->nkv] = value_copy;
  o->nkv++;
  return PQ_OK;
}

static const char topt_part_shape[] =
    "options: \"partition_by\" must be an array of column names";

static int topt_partition_item(pq_table_writer *tw, void *arg,
                               const topt_pair *pr) {
  (void)arg;
  tw_options *o = &tw->opt;
  const char *v = pr->text;
  if (strcmp(pr->jtype, "text") || !v || !*v)
    return pq_tbl_fail(tw, PQ_MISUSE, "%s", topt_part_shape);
  if (o->npart == TW_PART_MAX)
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "options: \"partition_by\": more than %d columns",
                      TW_PART_MAX);
  for (int i = 0; i < o->npart; i++)
    if (strcmp(o->part_names[i], v) == 0)
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: \"partition_by\": '%s' is named twice", v);
  if (!o->part_names) {
    o->part_names = pq_malloc(TW_PART_MAX * sizeof(char *));
    if (!o->part_names) return PQ_NOMEM;
  }
  char *copy = topt_dup(v);
  if (!copy) return PQ_NOMEM;
  o->part_names[o->npart++] = copy;
  return PQ_OK;
}

/* An integer option of at least 1 into *out. */
static int topt_count(pq_table_writer *tw, const topt_pair *pr,
                      const char *what, int64_t *out) {
  if (strcmp(pr->jtype, "integer") || atoll(pr->text) < 1)
    return pq_tbl_fail(tw, PQ_MISUSE,
                      "options: \"%s\" must be an integer of at least 1 (%s)",
                      pr->key, what);
  *out = atoll(pr->text);
  return PQ_OK;
}

static int topt_top_pair(pq_table_writer *tw, void *arg, const topt_pair *pr) {
  (void)arg;
  tw_options *o = &tw->opt;
  const char *key = pr->key, *jtype = pr->jtype;
  if (strcmp(key, "columns") == 0) {
    if (strcmp(jtype, "object"))
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: \"columns\" must be an object of column names");
    pq_free(o->columns_json); /* (a key given twice: the last) */
    o->columns_json = topt_dup(pr->json);
    return o->columns_json ? PQ_OK : PQ_NOMEM;
  }
  if (strcmp(key, "metadata") == 0) {
    if (strcmp(jtype, "object"))
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: \"metadata\" must be an object of strings");
    return topt_each_text(tw, pr->json, topt_metadata_pair, NULL);
  }
  if (strcmp(key, "created_by") == 0) {
    if (strcmp(jtype, "text"))
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: \"created_by\" must be a string");
    pq_free(o->created_by); /* (a key given twice: the last) */
    o->created_by = topt_dup(pr->text);
    return o->created_by ? PQ_OK : PQ_NOMEM;
  }
  if (strcmp(key, "row_group_size") == 0)
    return topt_count(tw, pr, "rows", &o->group_size);
  if (strcmp(key, "durable") == 0) {
    if (strcmp(jtype, "true") && strcmp(jtype, "false"))
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: \"durable\" must be true (the "
                        "file synced to disk before parquet_write "
                        "returns, the default) or false");
    o->durable = strcmp(jtype, "true") == 0;
    return PQ_OK;
  }
  if (strcmp(key, "threads") == 0) {
    if (strcmp(jtype, "integer") || atoll(pr->text) < 1 || atoll(pr->text) > 2)
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: \"threads\" must be 1 (the "
                        "calling thread only) or 2 (and a worker, "
                        "the default)");
    o->threads = (int)atoll(pr->text);
    return PQ_OK;
  }
  if (strcmp(key, "partition_by") == 0) {
    if (strcmp(jtype, "array"))
      return pq_tbl_fail(tw, PQ_MISUSE, "%s", topt_part_shape);
    for (int i = 0; i < o->npart; i++) pq_free(o->part_names[i]);
    o->npart = 0; /* (a key given twice: the last) */
    int rc = topt_each_text(tw, pr->json, topt_partition_item, NULL);
    if (!rc && o->npart == 0)
      rc = pq_tbl_fail(tw, PQ_MISUSE, "%s", topt_part_shape);
    return rc;
  }
  if (strcmp(key, "write_partition_columns") == 0) {
    if (strcmp(jtype, "true") && strcmp(jtype, "false"))
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: \"write_partition_columns\" must be "
                        "true or false");
    o->write_part = strcmp(jtype, "true") == 0;
    return PQ_OK;
  }
  if (strcmp(key, "file_size_bytes") == 0)
    return topt_count(tw, pr, "bytes", &o->file_size);
  if (strcmp(key, "row_group_bytes") == 0)
    return topt_count(tw, pr, "bytes", &o->group_bytes);
  tw_col_options co = {&o->p,          &o->o,          o->type,
                       &o->has_type,   o->encoding,    &o->has_encoding,
                       &o->dictionary, "",             NULL};
  return topt_apply(tw, &co, pr);
}

void pq_tbl_options_init(tw_options *o) {
  memset(o, 0, sizeof *o);
  o->durable = 1;
  o->dictionary = -1;
  o->group_size = TW_GROUP;
  o->threads = 2;
  pq_params_init(&o->p);
  pq_write_options_init(&o->o);
  o->o.page_index = 1;
  /* SNAPPY, as careful writers default to (DuckDB, Arrow, Spark), when
  ** the build has it */
  if (pq_codec_available(PQ_SNAPPY)) o->o.codec = PQ_SNAPPY;
}

void pq_tbl_options_free(tw_options *o) {
  for (int i = 0; i < o->nkv; i++) {
    pq_free(o->kv_keys[i]);
    pq_free(o->kv_values[i]);
  }
  pq_free(o->kv_keys);
  pq_free(o->kv_values);
  pq_free(o->created_by);
  pq_free(o->columns_json);
  for (int i = 0; i < o->npart; i++) pq_free(o->part_names[i]);
  pq_free(o->part_names);
  memset(o, 0, sizeof *o);
}

int pq_tbl_options(pq_table_writer *tw, const char *json, size_t n) {
  pq_json_doc d;
  int root = topt_parse(&d, json, n);
  int rc = PQ_OK;
  if (root == -2) rc = PQ_NOMEM;
  else if (root < 0 || d.nodes[root].type != PQ_J_OBJECT)
    rc = pq_tbl_fail(tw, PQ_MISUSE, "options: expected a JSON object");
  if (!rc) rc = topt_each(tw, &d, root, topt_top_pair, NULL);
  pq_json_free(&d);
  return rc;
}

/* ---- The columns' keys ----------------------------------------------------- */

static int topt_name_pair(pq_table_writer *tw, void *arg, const topt_pair *pr) {
  (void)arg;
  for (int i = 0; i < tw->ncols; i++)
    if (strcmp(tw->cols[i].name, pr->key) == 0) {
      if (strcmp(pr->jtype, "object"))
        return pq_tbl_fail(tw, PQ_MISUSE,
                          "options: columns: \"%s\" must be an object",
                          pr->key);
      return PQ_OK;
    }
  for (int k = 0; k < tw->opt.npart; k++)
    if (strcmp(tw->opt.part_names[k], pr->key) == 0)
      return pq_tbl_fail(tw, PQ_MISUSE,
                        "options: columns: \"%s\" is a partition "
                        "column, which the files do not hold "
                        "(\"write_partition_columns\": true writes it)",
                        pr->key);
  return pq_tbl_fail(tw, PQ_MISUSE,
                    "options: columns: the query has no column \"%s\"",
                    pr->key);
}

int pq_tbl_column_names(pq_table_writer *tw) {
  if (!tw->opt.columns_json) return PQ_OK;
  return topt_each_text(tw, tw->opt.columns_json, topt_name_pair, NULL);
}

static int topt_col_pair(pq_table_writer *tw, void *arg, const topt_pair *pr) {
  return topt_apply(tw, arg, pr);
}

int pq_tbl_column_options(pq_table_writer *tw, const char *name,
                         tw_col_options *co) {
  if (!tw->opt.columns_json) return PQ_OK;
  pq_json_doc d;
  const char *s = tw->opt.columns_json;
  int root = topt_parse(&d, s, strlen(s));
  int rc = root == -2 ? PQ_NOMEM : PQ_OK;
  size_t n = strlen(name);
  /* the first member of the name, as json_extract finds it */
  for (int k = root >= 0 ? d.nodes[root].first : -1; k >= 0 && !rc;
       k = d.nodes[k].next) {
    const pq_json_node *x = &d.nodes[k];
    if (x->key_len != n || memcmp(pq_json_text(&d, x->key_off), name, n))
      continue;
    if (x->type == PQ_J_OBJECT) rc = topt_each(tw, &d, k, topt_col_pair, co);
    break;
  }
  pq_json_free(&d);
  return rc;
}
