/*
 * bench/naive.c - the naive baseline runtime (see naive.h).
 *
 * Written to be correct and reasonable, not slow on purpose:
 *   - tasks live in a growable circular array (no allocation per task);
 *   - the launcher signals the worker only when it is waiting, and after
 *     unlocking, so the worker does not wake into a held mutex;
 *   - the worker completes a task and takes the next one under one lock;
 *   - done_cv is broadcast only when someone waits on it.
 * What makes it "naive" is the design: every operation takes the stream's
 * mutex, every idle worker sleeps on a condition variable at once (a launch
 * to an idle stream is a futex wake), one thread per stream, and a
 * cross-stream wait blocks the waiting stream's worker on the other
 * stream's condition variable.
 */
#include "bench.h" /* first: _GNU_SOURCE (pthread_attr_setaffinity_np); the placement */
#include "naive.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum nv_kind { NV_HOST_FUNC, NV_HOST_KERNEL, NV_WAIT };

struct nv_task {
    enum nv_kind kind;
    uint32_t blocks;
    void (*fn)(void *);
    aclrtxHostKernel kfn;
    void *arg;
    struct nv_stream *wait_stream;
    uint64_t wait_target;
};

struct nv_stream {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* the worker waits here for tasks */
    pthread_cond_t done_cv; /* synchronizers and other streams' workers wait here for progress */
    struct nv_task *q;      /* circular: q[(head + i) % cap], i < count */
    size_t cap, head, count;
    uint64_t submitted, completed;
    int done_waiters;
    bool worker_waiting;
    bool stop;
    pthread_t worker;
};

struct nv_event {
    pthread_mutex_t mu;
    struct nv_stream *stream;
    uint64_t target;
    bool recorded;
};

static void nv_die(const char *what)
{
    fprintf(stderr, "naive baseline: %s\n", what);
    exit(2);
}

static void nv_wait_count(struct nv_stream *s, uint64_t target)
{
    pthread_mutex_lock(&s->mu);
    while (s->completed < target) {
        s->done_waiters++;
        pthread_cond_wait(&s->done_cv, &s->mu);
        s->done_waiters--;
    }
    pthread_mutex_unlock(&s->mu);
}

static void nv_run(const struct nv_task *t)
{
    switch (t->kind) {
    case NV_HOST_FUNC: t->fn(t->arg); break;
    case NV_HOST_KERNEL:
        for (uint32_t b = 0; b < t->blocks; b++)
            if (t->kfn(b, t->blocks, t->arg) != ACL_SUCCESS)
                break;
        break;
    case NV_WAIT: nv_wait_count(t->wait_stream, t->wait_target); break;
    }
}

static void *nv_worker(void *arg)
{
    struct nv_stream *s = arg;
    char name[16];
    snprintf(name, sizeof name, "naive-w");
    pthread_setname_np(pthread_self(), name);
    pthread_mutex_lock(&s->mu);
    for (;;) {
        while (s->count == 0 && !s->stop) {
            s->worker_waiting = true;
            pthread_cond_wait(&s->work_cv, &s->mu);
            s->worker_waiting = false;
        }
        if (s->count == 0)
            break; /* stop, and nothing left */
        struct nv_task t = s->q[s->head];
        s->head = (s->head + 1) % s->cap;
        s->count--;
        pthread_mutex_unlock(&s->mu);
        nv_run(&t);
        pthread_mutex_lock(&s->mu);
        s->completed++;
        if (s->done_waiters > 0)
            pthread_cond_broadcast(&s->done_cv);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

struct nv_stream *nv_stream_create(void)
{
    struct nv_stream *s = calloc(1, sizeof *s);
    if (s == NULL)
        nv_die("out of memory");
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->work_cv, NULL);
    pthread_cond_init(&s->done_cv, NULL);
    s->cap = 1024;
    s->q = malloc(s->cap * sizeof *s->q);
    if (s->q == NULL)
        nv_die("out of memory");
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    bench_place_runtime_attr(&attr); /* the runtime's CPUs, as aclrt's executors (--placement) */
    int rc = pthread_create(&s->worker, &attr, nv_worker, s);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        nv_die("cannot start a worker thread");
    return s;
}

void nv_stream_destroy(struct nv_stream *s)
{
    pthread_mutex_lock(&s->mu);
    s->stop = true;
    pthread_cond_signal(&s->work_cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->worker, NULL);
    pthread_cond_destroy(&s->done_cv);
    pthread_cond_destroy(&s->work_cv);
    pthread_mutex_destroy(&s->mu);
    free(s->q);
    free(s);
}

/* Append a task (the caller holds s->mu); the queue doubles when full. */
static void nv_push_locked(struct nv_stream *s, const struct nv_task *t)
{
    if (s->count == s->cap) {
        struct nv_task *q = malloc(2 * s->cap * sizeof *q);
        if (q == NULL)
            nv_die("out of memory");
        for (size_t i = 0; i < s->count; i++)
            q[i] = s->q[(s->head + i) % s->cap];
        free(s->q);
        s->q = q;
        s->head = 0;
        s->cap *= 2;
    }
    s->q[(s->head + s->count) % s->cap] = *t;
    s->count++;
    s->submitted++;
}

static void nv_submit(struct nv_stream *s, const struct nv_task *t)
{
    pthread_mutex_lock(&s->mu);
    nv_push_locked(s, t);
    bool wake = s->worker_waiting;
    pthread_mutex_unlock(&s->mu);
    if (wake)
        pthread_cond_signal(&s->work_cv);
}

void nv_launch_host_func(struct nv_stream *s, void (*fn)(void *), void *arg)
{
    struct nv_task t = {.kind = NV_HOST_FUNC, .fn = fn, .arg = arg};
    nv_submit(s, &t);
}

void nv_launch_host_kernel(struct nv_stream *s, uint32_t blocks, aclrtxHostKernel fn, void *arg)
{
    struct nv_task t = {.kind = NV_HOST_KERNEL, .blocks = blocks, .kfn = fn, .arg = arg};
    nv_submit(s, &t);
}

void nv_stream_synchronize(struct nv_stream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t target = s->submitted;
    pthread_mutex_unlock(&s->mu);
    nv_wait_count(s, target);
}

struct nv_event *nv_event_create(void)
{
    struct nv_event *e = calloc(1, sizeof *e);
    if (e == NULL)
        nv_die("out of memory");
    pthread_mutex_init(&e->mu, NULL);
    return e;
}

void nv_event_destroy(struct nv_event *e)
{
    pthread_mutex_destroy(&e->mu);
    free(e);
}

void nv_event_record(struct nv_event *e, struct nv_stream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t target = s->submitted;
    pthread_mutex_unlock(&s->mu);
    pthread_mutex_lock(&e->mu);
    e->stream = s;
    e->target = target;
    e->recorded = true;
    pthread_mutex_unlock(&e->mu);
}

bool nv_event_query(struct nv_event *e)
{
    pthread_mutex_lock(&e->mu);
    struct nv_stream *s = e->stream;
    uint64_t target = e->target;
    bool recorded = e->recorded;
    pthread_mutex_unlock(&e->mu);
    if (!recorded)
        return true;
    pthread_mutex_lock(&s->mu);
    bool done = s->completed >= target;
    pthread_mutex_unlock(&s->mu);
    return done;
}

void nv_stream_wait_event(struct nv_stream *s, struct nv_event *e)
{
    pthread_mutex_lock(&e->mu);
    struct nv_task t = {.kind = NV_WAIT, .wait_stream = e->stream, .wait_target = e->target};
    bool recorded = e->recorded;
    pthread_mutex_unlock(&e->mu);
    if (recorded)
        nv_submit(s, &t);
}
