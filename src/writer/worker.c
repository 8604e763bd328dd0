/*
** worker.c -- the table writer's worker thread (table.c).
**
** With a worker thread, the calling thread converts the rows' values into
** one batch while the worker encodes, compresses and writes the columns
** of the batch before it (each column's spare) that are in its lane
** (pq_writer_set_lane, lane 0), and closes the row groups; the calling
** thread writes the spare's other columns (lane 1) itself, between
** batches, so that both threads are busy: the columns go to the lanes by
** the time their batches took, against the time the calling thread spends
** on the rows and the worker on closing row groups.  They meet once a
** batch: the caller waits for the worker to be idle, swaps each column's
** batch with its spare and posts the job; to close a row group it waits
** once more, then posts the closing.  Each waits by spinning a little
** before sleeping: a wakeup per batch lets the scheduler put both threads
** on one CPU, where they take turns.  The worker touches the core writer's
** lane 0 columns and the output only, the caller the rest; a failure of
** the worker's is written to a message of its own, which the caller takes
** once the worker is idle.  Nested columns and row_group_bytes (which
** looks at the writer after each batch) are written on the calling
** thread.
*/
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "writer.h"

enum { TWK_NONE, TWK_BATCH, TWK_GROUP };
#define TWK_SPIN_SECONDS 0.00005 /* spinning before sleeping */

typedef struct tw_thread {
  pthread_t th;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  atomic_int job;          /* TWK_NONE, TWK_BATCH, TWK_GROUP */
  int quit;
  int failed;              /* the worker's rc, read once it is idle */
  pq_buf msg;              /* its message */
} tw_thread;

/* The worker's own message, on the worker's thread (NULL elsewhere). */
static _Thread_local pq_buf *twk_msg;

pq_buf *pq_tbl_msg_buf(pq_table_writer *tw) {
  return twk_msg ? twk_msg : &tw->msg;
}

/* Writes lane k's columns of the spare batch, each's time added to its
** cost. */
static int twk_lane(pq_table_writer *tw, int k) {
  for (int i = 0; i < tw->ncols; i++) {
    tw_col *c = &tw->cols[i];
    if (c->lane != k) continue;
    double t0 = pq_tbl_clock();
    int rc = pq_tbl_put_fill(tw, c, &c->sp);
    c->cost += pq_tbl_clock() - t0;
    if (rc) return rc;
  }
  return PQ_OK;
}

/* Spins until *flag is `want` (is not, with `is` 0) or the spell is over;
** 1 when it is. */
static int twk_spin(atomic_int *flag, int want, int is) {
  double until = pq_tbl_clock() + TWK_SPIN_SECONDS;
  for (int i = 1;; i++) {
    if ((atomic_load_explicit(flag, memory_order_acquire) == want) == is)
      return 1;
    if (i % 64 == 0 && pq_tbl_clock() > until) return 0;
  }
}

static void *twk_main(void *arg) {
  pq_table_writer *tw = arg;
  tw_thread *t = tw->th;
  twk_msg = &t->msg;
  for (;;) {
    if (!twk_spin(&t->job, TWK_NONE, 0)) {
      pthread_mutex_lock(&t->mu);
      while (atomic_load(&t->job) == TWK_NONE && !t->quit)
        pthread_cond_wait(&t->cv, &t->mu);
      pthread_mutex_unlock(&t->mu);
    }
    int job = atomic_load_explicit(&t->job, memory_order_acquire);
    if (job == TWK_NONE) break; /* quit */
    int rc = PQ_OK;
    if (!t->failed) {
      if (job == TWK_GROUP) {
        double t0 = pq_tbl_clock();
        rc = pq_tbl_group(tw);
        tw->group_cost += pq_tbl_clock() - t0;
      } else {
        rc = twk_lane(tw, 0);
      }
    }
    if (rc) t->failed = rc; /* kept for the caller, once the job is done */
    pthread_mutex_lock(&t->mu);
    atomic_store_explicit(&t->job, TWK_NONE, memory_order_release);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
  }
  return NULL;
}

/* Waits for the worker to be idle; its failure, taken (its message made
** the writer's).  The worker does nothing more once it failed; the caller
** gives up on the first failure it takes. */
static int twk_wait(pq_table_writer *tw) {
  tw_thread *t = tw->th;
  if (!twk_spin(&t->job, TWK_NONE, 1)) {
    pthread_mutex_lock(&t->mu);
    while (atomic_load(&t->job) != TWK_NONE) pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
  }
  int rc = t->failed;
  if (rc && rc != PQ_NOMEM) {
    tw->msg.len = 0;
    tw->msg.oom = 0;
    pq_buf_append(&tw->msg, t->msg.data, t->msg.len);
    if (tw->msg.oom || t->msg.oom || !t->msg.len) rc = PQ_NOMEM;
  }
  t->failed = rc ? PQ_MISUSE : 0; /* (nothing more once failed) */
  return rc;
}

static void twk_post(pq_table_writer *tw, int job) {
  tw_thread *t = tw->th;
  pthread_mutex_lock(&t->mu);
  atomic_store_explicit(&t->job, job, memory_order_release);
  pthread_cond_broadcast(&t->cv);
  pthread_mutex_unlock(&t->mu);
}

void pq_tbl_stop(pq_table_writer *tw) {
  tw_thread *t = tw->th;
  if (!t) return;
  if (tw->th_started) {
    pq_buf keep = tw->msg; /* a failure not reported: the write failed before */
    pq_buf_init(&tw->msg);
    twk_wait(tw);
    pq_buf_free(&tw->msg);
    tw->msg = keep;
    pthread_mutex_lock(&t->mu);
    t->quit = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->th, NULL);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    tw->th_started = 0;
  }
  pq_buf_free(&t->msg);
  pq_free(t);
  tw->th = NULL;
}

/* Starts the worker, with each column's spare batch: PQ_OK when it runs
** or (*none) there is no thread to be had, else PQ_NOMEM. */
static int twk_start(pq_table_writer *tw, int *none) {
  for (int i = 0; i < tw->ncols; i++) {
    tw_col *c = &tw->cols[i];
    if (!c->sp.values) c->sp.values = pq_malloc((size_t)TW_BATCH * c->vsize);
    if (!c->sp.present) c->sp.present = pq_malloc(TW_BATCH);
    if (!c->sp.values || !c->sp.present) return PQ_NOMEM;
  }
  tw_thread *t = pq_calloc(1, sizeof *t);
  if (!t) return PQ_NOMEM;
  pq_buf_init(&t->msg);
  *none = 1;
  atomic_init(&t->job, TWK_NONE);
  if (pthread_mutex_init(&t->mu, NULL)) {
    pq_free(t);
    return PQ_OK;
  }
  if (pthread_cond_init(&t->cv, NULL)) {
    pthread_mutex_destroy(&t->mu);
    pq_free(t);
    return PQ_OK;
  }
  tw->th = t;
  tw->th_started = 1;
  if (pthread_create(&t->th, NULL, twk_main, tw)) {
    tw->th_started = 0;
    tw->th = NULL;
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    pq_free(t);
    return PQ_OK;
  }
  *none = 0;
  /* Off the caller's CPU: the handovers wake one thread while the other
  ** goes on or goes to sleep.  The worker may run on any CPU the caller
  ** may but the one it is on now. */
  pq_thread_elsewhere(&t->th);
  tw->mark = pq_tbl_clock();
  return PQ_OK;
}

/* Spreads the columns over the lanes by the time their batches took so
** far, the costliest first, each to the side with less: the caller's side
** starting from its time on the rows, the worker's from its time closing
** row groups. */
static void twk_balance(pq_table_writer *tw) {
  double load[2] = {tw->group_cost, tw->own_cost};
  for (int i = 0; i < tw->ncols; i++) tw->cols[i].placed = 0;
  for (int r = 0; r < tw->ncols; r++) {
    tw_col *best = NULL;
    for (int i = 0; i < tw->ncols; i++) {
      tw_col *c = &tw->cols[i];
      if (!c->placed && (!best || c->cost > best->cost)) best = c;
    }
    best->placed = 1;
    int k = load[1] < load[0] ? 1 : 0;
    best->lane = k;
    pq_writer_set_lane(tw->w, best->wcol, k);
    load[k] += best->cost;
  }
}

int pq_tbl_hand(pq_table_writer *tw, int group) {
  tw->rows += (int64_t)tw->batch_rows;
  tw->batch_rows = 0;
  if (tw->threaded && !tw->th_started) {
    int none = 0;
    int rc = twk_start(tw, &none);
    if (rc) return rc;
    if (none) tw->threaded = 0; /* the calling thread writes */
  }
  if (!tw->threaded) {
    int rc = pq_tbl_batch(tw);
    if (!rc && group) rc = pq_tbl_group(tw);
    return rc;
  }
  double t0 = pq_tbl_clock();
  tw->own_cost += t0 - tw->mark; /* the rows of the batch */
  int rc = twk_wait(tw);
  if (rc) return rc;
  for (int i = 0; i < tw->ncols; i++) {
    tw_col *c = &tw->cols[i];
    tw_fill t = c->b;
    c->b = c->sp;
    c->sp = t;
  }
  /* the lanes balanced after 4, 16 and 64 batches, then left: a column
  ** that moves takes its buffers to the other thread's heap */
  tw->handed++;
  if (tw->handed == 4 || tw->handed == 16 || tw->handed == 64) twk_balance(tw);
  twk_post(tw, TWK_BATCH);
  rc = twk_lane(tw, 1);
  if (rc || !group) {
    tw->mark = pq_tbl_clock();
    return rc;
  }
  rc = twk_wait(tw);
  if (!rc) twk_post(tw, TWK_GROUP);
  tw->mark = pq_tbl_clock();
  return rc;
}

int pq_tbl_last(pq_table_writer *tw) {
  int rc = pq_tbl_hand(tw, 0);
  if (!rc && tw->th_started) rc = twk_wait(tw);
  pq_tbl_stop(tw);
  return rc;
}
