/*
 * tests/test_stress.c - a bounded random stress run: T threads x S streams x
 * E events doing records, waits, queries, resets (legacy SYNC events),
 * destroys and recreates of events, host-function and host-kernel launches,
 * for about 1.5 s of wall clock (or until a task budget is used up), then
 * invariants:
 *
 *   - every launched task ran exactly once (per-task counters; per-block
 *     bitmasks for host kernels);
 *   - in stream order (each task checks that its stream's previous task, by
 *     sequence number, is the last one done);
 *   - every wait was released only after its target: a task behind a wait on
 *     stream B checks that the task the awaited record captured on stream A
 *     has run (per-stream "last done" counters written by the tasks);
 *   - no deadlock: the final synchronizes return within a generous bound.
 *
 * What the program knows about each event is kept exactly by the test:
 * launches, records, waits and resets are made under a per-stream lock (so
 * the test knows each task's position) and, for event operations, a
 * per-event lock taken after the stream's (so the test knows which record a
 * wait copies). The runtime still sees every stream, event and executor used
 * from several threads at once, and queries and synchronizes take no lock.
 *
 * Waits issued on a legacy SYNC event that is not recorded (or whose reset
 * may have applied) wait for the *next* record, whichever comes first after
 * them, or are released by the event's destruction. The test keeps, per such
 * wait, the list of records made after it ("binding"), and the task behind
 * the wait checks that one of them is satisfied. To keep such waits from
 * forming cycles (a legal program could deadlock itself that way), SYNC
 * events are recorded only on "source" streams, and nothing waits on a
 * source stream: every dependency then points to earlier submissions or to
 * a source, so the run always drains.
 *
 * The PRNG is seeded (STRESS_SEED=<n> to replay a seed's choices; thread
 * interleavings are of course not replayed); the seed is printed.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "check.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SCALED(release, sanitized) (sanitized)
#else
#define SCALED(release, sanitized) (release)
#endif

#define ST_THREADS 4
#define ST_STREAMS 8
#define ST_SOURCES 2                 /* streams 0..1: SYNC events are recorded here; nothing waits here */
#define ST_EVENTS 12                 /* slot k: flavour k % 3 */
#define ST_RUN_NS 1500000000ull      /* wall-clock length of the random phase */
#define ST_MAX_TASKS SCALED(400000, 60000)
#define ST_MAX_BINDINGS 20000
#define ST_BIND_RECORDS 8            /* records a binding can list; events with a full one are not re-recorded */
#define ST_OPEN_BINDINGS 4           /* bindings open per event */
#define ST_TASK_REQS 4               /* direct requirements a task can carry */
#define ST_TASK_CONDS 2              /* bindings a task can carry */
#define ST_PENDING_LIMIT 256         /* submissions per stream not known done, beyond which only launches go in */
#define ST_SYNC_LIMIT_MS 30000
#define ST_KERNEL_MAX_BLOCKS 8

enum { FLAV_PLAIN, FLAV_EX, FLAV_SYNC };
enum { EV_UNRECORDED, EV_RECORDED, EV_RESET_PENDING };

/* The records of an event made after some waits that wait for "the next record". */
struct st_binding {
    atomic_int destroyed; /* the event was destroyed: its waits may have been released by that */
    atomic_int count;     /* entries below are published by a release store of this */
    uint32_t rec_stream[ST_BIND_RECORDS];
    uint64_t rec_seq[ST_BIND_RECORDS];
};

struct st_cond {
    uint32_t binding; /* index + 1 into st_bindings */
    bool has_fallback; /* the wait may instead have copied this capture (reset not applied yet) */
    uint32_t fb_stream;
    uint64_t fb_seq;
};

struct st_task {
    uint32_t stream;
    uint32_t blocks; /* 0: host function; else host kernel blocks */
    uint64_t seq;
    uint64_t ops_index;
    uint32_t nreq, ncond;
    uint32_t req_stream[ST_TASK_REQS];
    uint64_t req_seq[ST_TASK_REQS];
    struct st_cond cond[ST_TASK_CONDS];
    bool launched;
    atomic_uint runs;        /* host function runs, or kernel blocks run */
    atomic_uint block_mask;  /* kernel: blocks seen */
    atomic_uint blocks_done; /* kernel: blocks finished */
};

struct st_stream {
    pthread_mutex_t lock;
    aclrtStream handle;
    /* Under lock. */
    uint64_t launched; /* tasks (host functions and kernels) so far: the last one's sequence number */
    uint64_t ops;      /* submissions of any kind so far */
    uint32_t nreq, ncond;
    uint32_t req_stream[ST_TASK_REQS];
    uint64_t req_seq[ST_TASK_REQS];
    struct st_cond cond[ST_TASK_CONDS];
    /* Written by the stream's tasks. */
    _Atomic uint64_t last_done;
    _Atomic uint64_t ops_done;
    uint64_t plain_last; /* plain: only this stream's tasks touch it, one after the other */
};

struct st_event {
    pthread_mutex_t lock;
    _Atomic(aclrtEvent) handle; /* read without the lock by queries */
    int flavour;
    uint32_t flags;
    /* Under lock. */
    int state;
    uint32_t cap_stream;
    uint64_t cap_seq;
    uint32_t open[ST_OPEN_BINDINGS]; /* binding index + 1 */
    int nopen;
    uint32_t epoch; /* binding of the waits issued since the last record (index + 1), 0: none */
};

static aclrtContext g_ctx;
static struct st_stream st_streams[ST_STREAMS];
static struct st_event st_events[ST_EVENTS];
static struct st_task *st_tasks;
static struct st_binding *st_bindings;
static atomic_uint st_task_count, st_binding_count;
static atomic_int st_go, st_stop;
static uint64_t st_deadline_ns;

/* Violations (counted; the first few are described). */
static atomic_int st_order_bad, st_wait_bad, st_dup_bad, st_code_bad, st_status_bad, st_reported;
static atomic_long st_n_ops, st_n_launch, st_n_kernel, st_n_record, st_n_wait_direct, st_n_wait_bound,
    st_n_wait_refused, st_n_reset, st_n_destroy, st_n_query, st_n_sync;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static uint64_t rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void st_report(atomic_int *counter, const char *what, long a, long b, long c)
{
    atomic_fetch_add(counter, 1);
    if (atomic_fetch_add(&st_reported, 1) < 10)
        fprintf(stderr, "  stress: %s (%ld, %ld, %ld)\n", what, a, b, c);
}

/* ------------------------------------------------------------------------
 * What tasks check when they run
 * ------------------------------------------------------------------------ */

static bool st_reached(uint32_t stream, uint64_t seq)
{
    return atomic_load_explicit(&st_streams[stream].last_done, memory_order_acquire) >= seq;
}

static void st_check_requirements(const struct st_task *t)
{
    for (uint32_t i = 0; i < t->nreq; i++)
        if (!st_reached(t->req_stream[i], t->req_seq[i]))
            st_report(&st_wait_bad, "wait released before its captured task ran (stream, seq, waiter)",
                      (long)t->req_stream[i], (long)t->req_seq[i], (long)t->stream);
    for (uint32_t i = 0; i < t->ncond; i++) {
        const struct st_cond *c = &t->cond[i];
        if (c->has_fallback && st_reached(c->fb_stream, c->fb_seq))
            continue;
        struct st_binding *b = &st_bindings[c->binding - 1];
        if (atomic_load_explicit(&b->destroyed, memory_order_acquire))
            continue;
        int n = atomic_load_explicit(&b->count, memory_order_acquire);
        bool ok = false;
        for (int k = 0; k < n && !ok; k++)
            ok = st_reached(b->rec_stream[k], b->rec_seq[k]);
        if (!ok)
            st_report(&st_wait_bad, "wait for a next record released before any such record completed "
                                    "(records after it, waiter, seq)",
                      (long)n, (long)t->stream, (long)t->seq);
    }
}

static void st_finish(struct st_task *t)
{
    struct st_stream *s = &st_streams[t->stream];
    s->plain_last = t->seq;
    atomic_store_explicit(&s->ops_done, t->ops_index, memory_order_relaxed);
    atomic_store_explicit(&s->last_done, t->seq, memory_order_release);
}

static void st_host_func(void *p)
{
    struct st_task *t = (struct st_task *)p;
    struct st_stream *s = &st_streams[t->stream];
    if (atomic_fetch_add(&t->runs, 1) != 0)
        st_report(&st_dup_bad, "host function ran twice (stream, seq, -)", (long)t->stream, (long)t->seq, 0);
    uint64_t prev = atomic_load_explicit(&s->last_done, memory_order_acquire);
    if (prev != t->seq - 1 || s->plain_last != t->seq - 1)
        st_report(&st_order_bad, "task out of stream order (stream, seq, previous done)", (long)t->stream,
                  (long)t->seq, (long)prev);
    st_check_requirements(t);
    st_finish(t);
}

static aclError st_kernel(uint32_t block, uint32_t blocks, void *p)
{
    struct st_task *t = (struct st_task *)p;
    struct st_stream *s = &st_streams[t->stream];
    atomic_fetch_add(&t->runs, 1);
    if (blocks != t->blocks || block >= blocks ||
        (atomic_fetch_or(&t->block_mask, 1u << block) & (1u << block)) != 0)
        st_report(&st_dup_bad, "kernel block ran twice or out of range (stream, seq, block)", (long)t->stream,
                  (long)t->seq, (long)block);
    uint64_t prev = atomic_load_explicit(&s->last_done, memory_order_acquire);
    if (prev != t->seq - 1 || s->plain_last != t->seq - 1)
        st_report(&st_order_bad, "kernel block out of stream order (stream, seq, previous done)", (long)t->stream,
                  (long)t->seq, (long)prev);
    st_check_requirements(t);
    /* The last block to finish marks the task done (the others have made their checks). */
    if (atomic_fetch_add_explicit(&t->blocks_done, 1, memory_order_acq_rel) == blocks - 1)
        st_finish(t);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Operations (each thread picks them at random)
 * ------------------------------------------------------------------------ */

static void st_code(const char *call, aclError rc)
{
    st_report(&st_code_bad, call, (long)rc, 0, 0);
}

/* Submissions to s (under its lock) that are not known done. */
static uint64_t st_pending(struct st_stream *s)
{
    return s->ops - atomic_load_explicit(&s->ops_done, memory_order_relaxed);
}

static void st_op_launch(uint64_t *rng)
{
    uint32_t si = (uint32_t)(rng_next(rng) % ST_STREAMS);
    struct st_stream *s = &st_streams[si];
    uint32_t id = atomic_fetch_add(&st_task_count, 1);
    if (id >= ST_MAX_TASKS) {
        atomic_store(&st_stop, 1);
        return;
    }
    struct st_task *t = &st_tasks[id];
    bool kernel = rng_next(rng) % 8 == 0;
    pthread_mutex_lock(&s->lock);
    t->stream = si;
    t->blocks = kernel ? 1 + (uint32_t)(rng_next(rng) % ST_KERNEL_MAX_BLOCKS) : 0;
    t->seq = s->launched + 1;
    t->ops_index = s->ops + 1;
    t->nreq = s->nreq;
    memcpy(t->req_stream, s->req_stream, sizeof t->req_stream);
    memcpy(t->req_seq, s->req_seq, sizeof t->req_seq);
    t->ncond = s->ncond;
    memcpy(t->cond, s->cond, sizeof t->cond);
    aclError rc = kernel ? aclrtxLaunchHostKernel(s->handle, t->blocks, st_kernel, t)
                         : aclrtLaunchHostFunc(s->handle, st_host_func, t);
    if (rc == ACL_SUCCESS) {
        t->launched = true;
        s->launched++;
        s->ops++;
        s->nreq = 0;
        s->ncond = 0;
    }
    pthread_mutex_unlock(&s->lock);
    if (rc != ACL_SUCCESS)
        st_code(kernel ? "aclrtxLaunchHostKernel" : "aclrtLaunchHostFunc", rc);
    atomic_fetch_add_explicit(kernel ? &st_n_kernel : &st_n_launch, 1, memory_order_relaxed);
}

static bool st_event_can_record(const struct st_event *e)
{
    for (int i = 0; i < e->nopen; i++)
        if (atomic_load_explicit(&st_bindings[e->open[i] - 1].count, memory_order_relaxed) >= ST_BIND_RECORDS)
            return false;
    return true;
}

/* Under s's and e's locks: record e on s and keep what it captured. */
static void st_record_locked(struct st_stream *s, uint32_t si, struct st_event *e, bool with_flag)
{
    uint64_t seq = s->launched;
    for (int i = 0; i < e->nopen; i++) { /* the waits of these bindings may bind to this record */
        struct st_binding *b = &st_bindings[e->open[i] - 1];
        int n = atomic_load_explicit(&b->count, memory_order_relaxed);
        b->rec_stream[n] = si;
        b->rec_seq[n] = seq;
        atomic_store_explicit(&b->count, n + 1, memory_order_release);
    }
    aclrtEvent h = atomic_load(&e->handle);
    aclError rc = with_flag ? aclrtRecordEventWithFlag(h, s->handle, ACL_EVENT_RECORD_DEFAULT)
                            : aclrtRecordEvent(h, s->handle);
    if (rc != ACL_SUCCESS) {
        st_code("aclrtRecordEvent", rc);
        return;
    }
    s->ops++;
    e->state = EV_RECORDED;
    e->cap_stream = si;
    e->cap_seq = seq;
    e->epoch = 0;
    atomic_fetch_add_explicit(&st_n_record, 1, memory_order_relaxed);
}

static void st_op_record(uint64_t *rng)
{
    uint32_t ei = (uint32_t)(rng_next(rng) % ST_EVENTS);
    struct st_event *e = &st_events[ei];
    uint32_t si = e->flavour == FLAV_SYNC ? (uint32_t)(rng_next(rng) % ST_SOURCES)
                                          : (uint32_t)(rng_next(rng) % ST_STREAMS);
    struct st_stream *s = &st_streams[si];
    pthread_mutex_lock(&s->lock);
    if (st_pending(s) < ST_PENDING_LIMIT) {
        pthread_mutex_lock(&e->lock);
        if (st_event_can_record(e))
            st_record_locked(s, si, e, rng_next(rng) % 4 == 0);
        pthread_mutex_unlock(&e->lock);
    }
    pthread_mutex_unlock(&s->lock);
}

static uint32_t st_new_binding(void)
{
    uint32_t i = atomic_fetch_add(&st_binding_count, 1);
    if (i >= ST_MAX_BINDINGS)
        return 0;
    return i + 1;
}

static void st_op_wait(uint64_t *rng)
{
    uint32_t si = ST_SOURCES + (uint32_t)(rng_next(rng) % (ST_STREAMS - ST_SOURCES));
    uint32_t ei = (uint32_t)(rng_next(rng) % ST_EVENTS);
    struct st_stream *s = &st_streams[si];
    struct st_event *e = &st_events[ei];
    int how = (int)(rng_next(rng) % 3);
    pthread_mutex_lock(&s->lock);
    pthread_mutex_lock(&e->lock);
    if (st_pending(s) >= ST_PENDING_LIMIT || s->nreq >= ST_TASK_REQS || s->ncond >= ST_TASK_CONDS)
        goto out;
    /* What the wait will copy, by flavour and state. */
    bool expect_refusal = e->flavour == FLAV_PLAIN && e->state == EV_UNRECORDED;
    bool nothing = e->flavour == FLAV_EX && e->state == EV_UNRECORDED;
    bool unbound = e->flavour == FLAV_SYNC && e->state != EV_RECORDED;
    uint32_t binding = 0;
    if (unbound) {
        binding = e->epoch;
        if (binding == 0) {
            if (e->nopen >= ST_OPEN_BINDINGS || (binding = st_new_binding()) == 0)
                goto out;
        }
    }
    aclrtEvent h = atomic_load(&e->handle);
    aclError rc = how == 0   ? aclrtStreamWaitEvent(s->handle, h)
                  : how == 1 ? aclrtStreamWaitEventWithTimeout(s->handle, h, 3600) /* never expires here */
                             : aclrtStreamWaitEventWithFlag(s->handle, h, 0, ACL_EVENT_WAIT_DEFAULT);
    if (expect_refusal) {
        if (rc != ACL_ERROR_RT_PARAM_INVALID) /* aclrtCreateEvent: record before waiting */
            st_code("aclrtStreamWaitEvent on a plain event never recorded", rc);
        atomic_fetch_add_explicit(&st_n_wait_refused, 1, memory_order_relaxed);
        goto out;
    }
    if (rc != ACL_SUCCESS) {
        st_code("aclrtStreamWaitEvent", rc);
        goto out;
    }
    s->ops++;
    if (nothing)
        goto out;
    if (!unbound) {
        s->req_stream[s->nreq] = e->cap_stream;
        s->req_seq[s->nreq] = e->cap_seq;
        s->nreq++;
        atomic_fetch_add_explicit(&st_n_wait_direct, 1, memory_order_relaxed);
    } else {
        if (e->epoch == 0) {
            e->epoch = binding;
            e->open[e->nopen++] = binding;
        }
        struct st_cond *c = &s->cond[s->ncond++];
        c->binding = binding;
        c->has_fallback = e->state == EV_RESET_PENDING; /* the reset may not have applied yet */
        c->fb_stream = e->cap_stream;
        c->fb_seq = e->cap_seq;
        atomic_fetch_add_explicit(&st_n_wait_bound, 1, memory_order_relaxed);
    }
out:
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_unlock(&s->lock);
}

static void st_op_reset(uint64_t *rng)
{
    uint32_t ei = (uint32_t)(rng_next(rng) % ST_EVENTS);
    struct st_event *e = &st_events[ei];
    uint32_t si = (uint32_t)(rng_next(rng) % ST_STREAMS);
    struct st_stream *s = &st_streams[si];
    if (e->flavour == FLAV_EX) { /* constant: no lock needed */
        aclError rc = aclrtResetEvent(atomic_load(&e->handle), s->handle);
        if (rc != ACL_ERROR_RT_FEATURE_NOT_SUPPORT && rc != ACL_ERROR_RT_INVALID_HANDLE)
            st_code("aclrtResetEvent on an Ex event", rc);
        return;
    }
    if (e->flavour != FLAV_SYNC)
        return;
    pthread_mutex_lock(&s->lock);
    pthread_mutex_lock(&e->lock);
    if (st_pending(s) < ST_PENDING_LIMIT) {
        aclError rc = aclrtResetEvent(atomic_load(&e->handle), s->handle);
        if (rc != ACL_SUCCESS) {
            st_code("aclrtResetEvent", rc);
        } else {
            s->ops++;
            if (e->state == EV_RECORDED)
                e->state = EV_RESET_PENDING; /* applies when s reaches it: the test cannot tell when */
            atomic_fetch_add_explicit(&st_n_reset, 1, memory_order_relaxed);
        }
    }
    pthread_mutex_unlock(&e->lock);
    pthread_mutex_unlock(&s->lock);
}

static aclError st_event_create(const struct st_event *e, aclrtEvent *out)
{
    switch (e->flavour) {
    case FLAV_PLAIN: return aclrtCreateEvent(out);
    case FLAV_EX: return aclrtCreateEventExWithFlag(out, e->flags);
    default: return aclrtCreateEventWithFlag(out, e->flags);
    }
}

/* Under e's lock. */
static void st_destroy_locked(struct st_event *e)
{
    for (int i = 0; i < e->nopen; i++) /* before the destroy: its waits may be released by it */
        atomic_store_explicit(&st_bindings[e->open[i] - 1].destroyed, 1, memory_order_release);
    aclrtEvent old = atomic_load(&e->handle);
    aclError rc = aclrtDestroyEvent(old);
    if (rc != ACL_SUCCESS)
        st_code("aclrtDestroyEvent", rc);
    e->nopen = 0;
    e->epoch = 0;
    e->state = EV_UNRECORDED;
}

static void st_op_destroy(uint64_t *rng)
{
    struct st_event *e = &st_events[rng_next(rng) % ST_EVENTS];
    pthread_mutex_lock(&e->lock);
    aclrtEvent old = atomic_load(&e->handle);
    st_destroy_locked(e);
    aclrtEvent fresh = NULL;
    aclError rc = st_event_create(e, &fresh);
    if (rc != ACL_SUCCESS)
        st_code("aclrtCreateEvent*", rc);
    atomic_store(&e->handle, fresh);
    pthread_mutex_unlock(&e->lock);
    aclrtEventRecordedStatus st;
    if ((rc = aclrtQueryEventStatus(old, &st)) != ACL_ERROR_RT_INVALID_HANDLE)
        st_code("aclrtQueryEventStatus on a destroyed event", rc);
    atomic_fetch_add_explicit(&st_n_destroy, 1, memory_order_relaxed);
}

static void st_status(const char *what, int status, int a, int b)
{
    if (status != a && status != b)
        st_report(&st_status_bad, what, (long)status, 0, 0);
}

/* No lock: the handle may die under us (INVALID_HANDLE is then the answer). */
static void st_op_query(uint64_t *rng)
{
    struct st_event *e = &st_events[rng_next(rng) % ST_EVENTS];
    aclrtEvent h = atomic_load(&e->handle);
    aclError rc;
    switch (rng_next(rng) % 5) {
    case 0: {
        aclrtEventRecordedStatus st = (aclrtEventRecordedStatus)77;
        rc = aclrtQueryEventStatus(h, &st);
        if (rc == ACL_SUCCESS)
            st_status("aclrtQueryEventStatus status", (int)st, ACL_EVENT_RECORDED_STATUS_COMPLETE,
                      ACL_EVENT_RECORDED_STATUS_NOT_READY);
        else if (rc != ACL_ERROR_RT_INVALID_HANDLE)
            st_code("aclrtQueryEventStatus", rc);
        break;
    }
    case 1: {
        aclrtEventStatus st = (aclrtEventStatus)77;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        rc = aclrtQueryEvent(h, &st);
#pragma GCC diagnostic pop
        if (rc == ACL_SUCCESS && e->flavour != FLAV_EX)
            st_status("aclrtQueryEvent status", (int)st, ACL_EVENT_STATUS_COMPLETE, ACL_EVENT_STATUS_NOT_READY);
        else if (rc != ACL_ERROR_RT_INVALID_HANDLE &&
                 !(e->flavour == FLAV_EX && rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT))
            st_code("aclrtQueryEvent", rc);
        break;
    }
    case 2: {
        aclrtEventWaitStatus st = (aclrtEventWaitStatus)77;
        rc = aclrtQueryEventWaitStatus(h, &st);
        if (rc == ACL_SUCCESS && e->flavour != FLAV_EX)
            st_status("aclrtQueryEventWaitStatus status", (int)st, ACL_EVENT_WAIT_STATUS_COMPLETE,
                      ACL_EVENT_WAIT_STATUS_NOT_READY);
        else if (rc != ACL_ERROR_RT_INVALID_HANDLE &&
                 !(e->flavour == FLAV_EX && rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT))
            st_code("aclrtQueryEventWaitStatus", rc);
        break;
    }
    case 3: {
        uint32_t id;
        rc = aclrtGetEventId(h, &id);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_INVALID_HANDLE)
            st_code("aclrtGetEventId", rc);
        break;
    }
    default: {
        aclrtStreamStatus st = (aclrtStreamStatus)77;
        rc = aclrtStreamQuery(st_streams[rng_next(rng) % ST_STREAMS].handle, &st);
        if (rc == ACL_SUCCESS)
            st_status("aclrtStreamQuery status", (int)st, ACL_STREAM_STATUS_COMPLETE, ACL_STREAM_STATUS_NOT_READY);
        else
            st_code("aclrtStreamQuery", rc);
        break;
    }
    }
    atomic_fetch_add_explicit(&st_n_query, 1, memory_order_relaxed);
}

/* Short bounded synchronizes (a stream may be waiting for a record that another thread will make). */
static void st_op_sync(uint64_t *rng)
{
    aclError rc;
    if (rng_next(rng) % 2) {
        aclrtEvent h = atomic_load(&st_events[rng_next(rng) % ST_EVENTS].handle);
        rc = aclrtSynchronizeEventWithTimeout(h, 2);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_INVALID_HANDLE && rc != ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
            st_code("aclrtSynchronizeEventWithTimeout", rc);
    } else {
        rc = aclrtSynchronizeStreamWithTimeout(st_streams[rng_next(rng) % ST_STREAMS].handle, 2);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
            st_code("aclrtSynchronizeStreamWithTimeout", rc);
    }
    atomic_fetch_add_explicit(&st_n_sync, 1, memory_order_relaxed);
}

struct st_thread_arg {
    uint64_t seed;
    int ctx_rc;
};

static void *st_thread(void *p)
{
    struct st_thread_arg *a = (struct st_thread_arg *)p;
    uint64_t rng = a->seed;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    while (!atomic_load_explicit(&st_go, memory_order_acquire))
        ;
    for (long n = 0; !atomic_load_explicit(&st_stop, memory_order_relaxed); n++) {
        if ((n & 63) == 0 && now_ns() >= st_deadline_ns)
            break;
        unsigned op = (unsigned)(rng_next(&rng) % 100);
        if (op < 35)
            st_op_launch(&rng);
        else if (op < 50)
            st_op_record(&rng);
        else if (op < 65)
            st_op_wait(&rng);
        else if (op < 71)
            st_op_reset(&rng);
        else if (op < 74)
            st_op_destroy(&rng);
        else if (op < 98)
            st_op_query(&rng);
        else
            st_op_sync(&rng);
        atomic_fetch_add_explicit(&st_n_ops, 1, memory_order_relaxed);
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * The run
 * ------------------------------------------------------------------------ */

TEST(random_records_waits_resets_destroys_and_launches_keep_every_invariant)
{
    uint64_t seed = 0x5EED2024ACu;
    const char *env = getenv("STRESS_SEED");
    if (env != NULL && *env != '\0')
        seed = strtoull(env, NULL, 0);
    uint32_t events_before = 0, streams_before = 0;
    CHECK_OK(aclrtGetEventAvailNum(&events_before));
    CHECK_OK(aclrtGetStreamAvailableNum(&streams_before));

    st_tasks = (struct st_task *)calloc(ST_MAX_TASKS, sizeof *st_tasks);
    st_bindings = (struct st_binding *)calloc(ST_MAX_BINDINGS, sizeof *st_bindings);
    CHECK(st_tasks != NULL && st_bindings != NULL);
    for (int i = 0; i < ST_STREAMS; i++) {
        struct st_stream *s = &st_streams[i];
        pthread_mutex_init(&s->lock, NULL);
        CHECK_OK(aclrtCreateStreamWithConfig(&s->handle, (uint32_t)(i % 8), i % 3 == 2 ? ACL_STREAM_FAST_SYNC : 0));
    }
    for (int k = 0; k < ST_EVENTS; k++) {
        struct st_event *e = &st_events[k];
        pthread_mutex_init(&e->lock, NULL);
        e->flavour = k % 3;
        e->flags = e->flavour == FLAV_EX ? (k % 2 ? ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE : ACL_EVENT_SYNC)
                                         : (k % 2 ? ACL_EVENT_SYNC : ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
        aclrtEvent h = NULL;
        CHECK_OK(st_event_create(e, &h));
        atomic_store(&e->handle, h);
        e->state = EV_UNRECORDED;
    }

    struct st_thread_arg args[ST_THREADS];
    pthread_t th[ST_THREADS];
    for (int i = 0; i < ST_THREADS; i++) {
        args[i] = (struct st_thread_arg){.seed = seed * 0x100000001B3ull + (uint64_t)i, .ctx_rc = -1};
        pthread_create(&th[i], NULL, st_thread, &args[i]);
    }
    uint64_t t0 = now_ns();
    st_deadline_ns = t0 + ST_RUN_NS;
    atomic_store_explicit(&st_go, 1, memory_order_release);
    for (int i = 0; i < ST_THREADS; i++)
        pthread_join(th[i], NULL);
    uint64_t t1 = now_ns();
    for (int i = 0; i < ST_THREADS; i++)
        CHECK_OK(args[i].ctx_rc);

    /*
     * Drain: waits still waiting for a SYNC event's next record get one (on a
     * source stream, which waits for nothing), or the event is destroyed.
     */
    for (int k = 0; k < ST_EVENTS; k++) {
        struct st_event *e = &st_events[k];
        if (e->nopen == 0)
            continue;
        if (st_event_can_record(e) && st_pending(&st_streams[0]) < ST_PENDING_LIMIT) {
            st_record_locked(&st_streams[0], 0, e, false);
        } else {
            st_destroy_locked(e);
            aclrtEvent fresh = NULL;
            CHECK_OK(st_event_create(e, &fresh));
            atomic_store(&e->handle, fresh);
        }
    }
    for (int i = 0; i < ST_STREAMS; i++)
        CHECK_OK(aclrtSynchronizeStreamWithTimeout(st_streams[i].handle, ST_SYNC_LIMIT_MS));
    uint64_t t2 = now_ns();

    uint32_t tasks = atomic_load(&st_task_count);
    if (tasks > ST_MAX_TASKS)
        tasks = ST_MAX_TASKS;
    printf("stress: seed=0x%llx threads=%d streams=%d events=%d: %.0f ms random phase, %.0f ms drain; "
           "%ld ops: %ld host funcs, %ld kernels, %ld records, %ld waits on captures, %ld waits for a next record, "
           "%ld waits refused, %ld resets, %ld destroys, %ld queries, %ld syncs; %u bindings\n",
           (unsigned long long)seed, ST_THREADS, ST_STREAMS, ST_EVENTS, (double)(t1 - t0) / 1e6,
           (double)(t2 - t1) / 1e6, atomic_load(&st_n_ops), atomic_load(&st_n_launch), atomic_load(&st_n_kernel),
           atomic_load(&st_n_record), atomic_load(&st_n_wait_direct), atomic_load(&st_n_wait_bound),
           atomic_load(&st_n_wait_refused), atomic_load(&st_n_reset), atomic_load(&st_n_destroy),
           atomic_load(&st_n_query), atomic_load(&st_n_sync), atomic_load(&st_binding_count));

    CHECK_EQ(0, atomic_load(&st_code_bad));
    CHECK_EQ(0, atomic_load(&st_status_bad));
    CHECK_EQ(0, atomic_load(&st_dup_bad));
    CHECK_EQ(0, atomic_load(&st_order_bad));
    CHECK_EQ(0, atomic_load(&st_wait_bad));
    /* Every task launched ran exactly once (every block of every kernel, once). */
    long launched = 0;
    for (uint32_t i = 0; i < tasks; i++) {
        struct st_task *t = &st_tasks[i];
        if (!t->launched) {
            CHECK_EQ(0, atomic_load(&t->runs));
            continue;
        }
        launched++;
        if (t->blocks == 0) {
            CHECK_EQ(1, atomic_load(&t->runs));
        } else {
            CHECK_EQ(t->blocks, atomic_load(&t->runs));
            CHECK_EQ((1u << t->blocks) - 1, atomic_load(&t->block_mask));
            CHECK_EQ(t->blocks, atomic_load(&t->blocks_done));
        }
    }
    CHECK_EQ(atomic_load(&st_n_launch) + atomic_load(&st_n_kernel), launched);
    for (int i = 0; i < ST_STREAMS; i++)
        CHECK_EQ(st_streams[i].launched, atomic_load(&st_streams[i].last_done));
    /* The run did all kinds of things (a run that did nothing would prove nothing). */
    CHECK(launched > 1000);
    CHECK(atomic_load(&st_n_wait_direct) > 50);
    CHECK(atomic_load(&st_n_wait_bound) > 10);
    CHECK(atomic_load(&st_n_reset) > 10);
    CHECK(atomic_load(&st_n_destroy) > 10);

    for (int k = 0; k < ST_EVENTS; k++)
        CHECK_OK(aclrtDestroyEvent(atomic_load(&st_events[k].handle)));
    for (int i = 0; i < ST_STREAMS; i++)
        CHECK_OK(aclrtDestroyStream(st_streams[i].handle));
    uint32_t events_after = 0;
    CHECK_OK(aclrtGetEventAvailNum(&events_after));
    CHECK_EQ(events_before, events_after);
    free(st_tasks);
    free(st_bindings);
    st_tasks = NULL;
    st_bindings = NULL;
}

int main(void)
{
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtGetCurrentContext(&g_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "cannot set device 0: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(random_records_waits_resets_destroys_and_launches_keep_every_invariant);
    aclrtResetDevice(0);
    return check_report("stress");
}
