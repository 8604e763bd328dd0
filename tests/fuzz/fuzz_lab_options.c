/*
** fuzz_lab_options.c -- the encoding lab's options (src/writer/lab_options.c):
** any input as the options' JSON text.  Read, the options must be within
** their bounds, and what is passed on must be an object without any of
** the lab's keys, which, read again as options, passes itself on unchanged
** and asks for nothing.  Refused, the message must be the options'.
*/
#include <stdlib.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const lab_keys[] = {"columns", "encodings", "codecs",
                                       "levels",  "min_time",  "encoding",
                                       "codec",   "level",     "dictionary"};

static void check_ok(const pq_lab_options *o) {
  if (!o->pass || !(o->min_time >= 0 && o->min_time <= 60)) abort();
  if ((o->encodings >> PQ_ENCODING_COUNT) != 0) abort();
  for (int k = 0; k < 32; k++)
    if ((o->codecs >> k & 1) && (k >= PQ_CODEC_COUNT ||
                                 !pq_codec_available((pq_codec)k)))
      abort();
  if ((o->levels == NULL) != (o->nlevels == 0)) abort();
  for (int i = 0; i < o->nlevels; i++)
    if (o->levels[i] < -1000000 || o->levels[i] > 1000000) abort();
  for (int i = 0; i < o->nnames; i++)
    if (!o->names[i]) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pq_lab_options o;
  memset(&o, 0, sizeof o);
  o.min_time = 0.5;
  pq_error err;
  memset(&err, 0, sizeof err);
  int rc = pq_lab_options_parse(&o, (const char *)data, size, &err);
  if (rc == PQ_OK) {
    check_ok(&o);
    /* what passes on is an object without the lab's keys */
    pq_json_doc d;
    memset(&d, 0, sizeof d);
    size_t at;
    const char *fault;
    size_t n = strlen(o.pass);
    int root = pq_json_parse(&d, o.pass, n, &at, &fault);
    if (root == -1 || (root >= 0 && d.nodes[root].type != PQ_J_OBJECT)) abort();
    for (int k = root >= 0 ? d.nodes[root].first : -1; k >= 0;
         k = d.nodes[k].next) {
      const pq_json_node *x = &d.nodes[k];
      for (size_t j = 0; j < sizeof lab_keys / sizeof *lab_keys; j++)
        if (x->key_len == strlen(lab_keys[j]) &&
            memcmp(pq_json_text(&d, x->key_off), lab_keys[j], x->key_len) == 0)
          abort();
    }
    pq_json_free(&d);
    /* read again, it passes itself on and asks for nothing */
    pq_lab_options p;
    memset(&p, 0, sizeof p);
    pq_error e2;
    int rc2 = pq_lab_options_parse(&p, o.pass, n, &e2);
    if (rc2 == PQ_OK) {
      if (strcmp(p.pass, o.pass) != 0 || p.names || p.encodings || p.codecs ||
          p.levels || p.min_time != 0)
        abort();
    } else if (rc2 != PQ_NOMEM) {
      abort();
    }
    pq_lab_options_free(&p);
  } else if (rc != PQ_NOMEM) {
    if (rc != PQ_MISUSE || strncmp(err.msg, "options: ", 9) != 0) abort();
  }
  pq_lab_options_free(&o);
  return 0;
}
