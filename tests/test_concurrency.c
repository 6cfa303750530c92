/*
 * tests/test_concurrency.c - many threads against one runtime: program order
 * of concurrent launchers, events used from several threads at once, long
 * chains of blocked streams, cross-stream ping-pong, producer/consumer
 * threads, launches from inside tasks, streams created and destroyed
 * concurrently.
 *
 * Data that host functions write and later tasks (or the main thread after a
 * synchronize) read is deliberately plain memory where the runtime promises
 * the ordering: ThreadSanitizer then checks that the runtime really creates
 * the happens-before edge it promises. Counters shared by concurrently
 * running code are atomics.
 *
 * No sleeps: threads start together on a spin gate; completion is observed
 * with synchronize calls (bounded with generous timeouts, so a deadlock is a
 * failure, not a hang).
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define SYNC_LIMIT_MS 120000 /* generous (sanitizers, a loaded machine): a deadlock fails, it does not hang */

/*
 * Sanitizer builds run 5-20x slower, and on a small machine threads that
 * spin (a launcher waiting for room in a shared ring) get descheduled:
 * smaller counts keep those builds within seconds. Every count still
 * exceeds what the property needs (e.g. more tasks than a ring holds).
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SCALED(release, sanitized) (sanitized)
#else
#define SCALED(release, sanitized) (release)
#endif

static aclrtContext g_ctx;

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *state)
{
    /* splitmix64: deterministic, seeded per thread */
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void spin_until(atomic_int *flag)
{
    while (!atomic_load_explicit(flag, memory_order_acquire))
        ;
}

typedef void *(*thread_fn)(void *);

static void run_threads(int n, thread_fn fn, void *args, size_t arg_size)
{
    pthread_t th[16];
    for (int i = 0; i < n; i++)
        pthread_create(&th[i], NULL, fn, (char *)args + (size_t)i * arg_size);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

static uint32_t streams_available(void)
{
    uint32_t n = 0;
    if (aclrtGetStreamAvailableNum(&n) != ACL_SUCCESS)
        return 0;
    return n;
}

/*
 * The available-stream count once every destroyed stream has been let go.
 * After aclrtDestroyStreamForce a task that had started still finishes, and
 * its stream's quota is released when it returns: nothing the program can
 * synchronize on. Poll for that, with a generous bound (the count is
 * asserted afterwards; the bound is not a timing assertion). That a plain
 * aclrtDestroyStream releases the quota before returning is pinned by
 * destroy_stream_releases_its_quota_before_returning; the other cases check
 * only that nothing leaks, so that one defect does not fail them all.
 */
static uint32_t streams_available_settled(uint32_t expected)
{
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        uint32_t n = streams_available();
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (n == expected || now.tv_sec - t0.tv_sec > 10)
            return n;
        sched_yield();
    }
}

static uint32_t events_available(void)
{
    uint32_t n = 0;
    if (aclrtGetEventAvailNum(&n) != ACL_SUCCESS)
        return 0;
    return n;
}

/* ------------------------------------------------------------------------
 * 1. Many threads launching into one stream keep each thread's order.
 * ------------------------------------------------------------------------ */

#define MT_THREADS 8
#define MT_PER_THREAD SCALED(3000, 250) /* 24,000 (2,000) tasks: more than a ring holds, so launchers also meet back-pressure */

struct mt_task {
    uint32_t thread;
    uint32_t seq;
};

static struct mt_task mt_tasks[MT_THREADS][MT_PER_THREAD];
static uint64_t mt_log[MT_THREADS * MT_PER_THREAD]; /* plain: one stream's tasks never overlap */
static atomic_uint mt_log_n;
static atomic_int mt_inside, mt_overlap;
static atomic_int mt_go;

struct mt_arg {
    uint32_t thread;
    aclrtStream stream;
    int ctx_rc;
    int failed_launches;
    int first_error;
};

static void mt_func(void *p)
{
    const struct mt_task *t = (const struct mt_task *)p;
    if (atomic_fetch_add(&mt_inside, 1) != 0)
        atomic_fetch_add(&mt_overlap, 1);
    unsigned i = atomic_fetch_add_explicit(&mt_log_n, 1, memory_order_relaxed);
    if (i < MT_THREADS * MT_PER_THREAD)
        mt_log[i] = ((uint64_t)t->thread << 32) | t->seq;
    atomic_fetch_sub(&mt_inside, 1);
}

static void *mt_launcher(void *p)
{
    struct mt_arg *a = (struct mt_arg *)p;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    spin_until(&mt_go);
    for (uint32_t s = 0; s < MT_PER_THREAD; s++) {
        mt_tasks[a->thread][s] = (struct mt_task){a->thread, s};
        aclError rc = aclrtLaunchHostFunc(a->stream, mt_func, &mt_tasks[a->thread][s]);
        if (rc != ACL_SUCCESS) {
            if (a->failed_launches++ == 0)
                a->first_error = rc;
        }
    }
    return NULL;
}

static void mt_run(aclrtStream stream)
{
    struct mt_arg args[MT_THREADS];
    atomic_store(&mt_log_n, 0);
    atomic_store(&mt_overlap, 0);
    atomic_store(&mt_go, 0);
    for (uint32_t t = 0; t < MT_THREADS; t++)
        args[t] = (struct mt_arg){.thread = t, .stream = stream};
    pthread_t th[MT_THREADS];
    for (int t = 0; t < MT_THREADS; t++)
        pthread_create(&th[t], NULL, mt_launcher, &args[t]);
    atomic_store_explicit(&mt_go, 1, memory_order_release);
    for (int t = 0; t < MT_THREADS; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < MT_THREADS; t++) {
        CHECK_OK(args[t].ctx_rc);
        CHECK_EQ(0, args[t].first_error);
        CHECK_EQ(0, args[t].failed_launches);
    }
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(stream, SYNC_LIMIT_MS));
    CHECK_EQ(MT_THREADS * MT_PER_THREAD, atomic_load(&mt_log_n));
    CHECK_EQ(0, atomic_load(&mt_overlap));
    uint32_t next[MT_THREADS] = {0};
    for (uint32_t i = 0; i < MT_THREADS * MT_PER_THREAD; i++) {
        uint32_t thread = (uint32_t)(mt_log[i] >> 32), seq = (uint32_t)mt_log[i];
        CHECK(thread < MT_THREADS);
        CHECK_EQ(next[thread], seq); /* each thread's tasks ran in its program order, each once */
        next[thread]++;
    }
    for (int t = 0; t < MT_THREADS; t++)
        CHECK_EQ(MT_PER_THREAD, next[t]);
}

TEST(many_threads_launching_into_one_stream_keep_each_threads_order)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    mt_run(s);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(many_threads_launching_into_the_default_stream_keep_each_threads_order)
{
    mt_run(NULL);
}

/* ------------------------------------------------------------------------
 * 2. Events recorded, queried, synchronized, waited for, destroyed and
 *    recreated from different threads while streams work.
 * ------------------------------------------------------------------------ */

#define EV_WORK_STREAMS 4
#define EV_SLOTS 6        /* shared, destroyed and recreated: slot k has flavour k % 3 */
#define EV_ONESHOTS SCALED(512, 100) /* recorded exactly once each (every 4th iteration of recorder 0) */
#define EV_ITER SCALED(2500, 400)

enum { FLAV_PLAIN, FLAV_EX, FLAV_SYNC };

static aclrtStream ev_work[EV_WORK_STREAMS];
static aclrtStream ev_waiter; /* waits are issued only here, and nothing is recorded here: no cycles */
static _Atomic(aclrtEvent) ev_slot[EV_SLOTS];
static aclrtEvent ev_oneshot[EV_ONESHOTS];
static atomic_int ev_oneshot_started;  /* one-shots whose record call has begun (in order) */
static atomic_int ev_oneshot_recorded; /* one-shots whose record call returned */
static atomic_int ev_go, ev_queriers_done;
static atomic_long ev_func_ran, ev_func_launched;
static atomic_int ev_bad_code, ev_bad_status, ev_went_back, ev_unstable, ev_last_bad;

static void ev_bad(atomic_int *counter, int code)
{
    atomic_fetch_add(counter, 1);
    atomic_store(&ev_last_bad, code);
}

static void ev_count(void *p)
{
    (void)p;
    atomic_fetch_add_explicit(&ev_func_ran, 1, memory_order_relaxed);
}

static aclError ev_create(int flavour, aclrtEvent *e)
{
    switch (flavour) {
    case FLAV_PLAIN: return aclrtCreateEvent(e);
    case FLAV_EX: return aclrtCreateEventExWithFlag(e, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
    default: return aclrtCreateEventWithFlag(e, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE);
    }
}

static bool ev_launch(aclrtStream s)
{
    aclError rc = aclrtLaunchHostFunc(s, ev_count, NULL);
    if (rc != ACL_SUCCESS) {
        ev_bad(&ev_bad_code, rc);
        return false;
    }
    atomic_fetch_add_explicit(&ev_func_launched, 1, memory_order_relaxed);
    return true;
}

struct ev_arg {
    int index;
    int ctx_rc;
};

/* Records shared events (which may die under it) and, for thread 0, the one-shots in order. */
static void *ev_recorder(void *p)
{
    struct ev_arg *a = (struct ev_arg *)p;
    uint64_t rng = 0x1000u + (uint64_t)a->index;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    spin_until(&ev_go);
    for (int i = 0; i < EV_ITER; i++) {
        aclrtStream s = ev_work[rng_next(&rng) % EV_WORK_STREAMS];
        ev_launch(s);
        aclrtEvent e = atomic_load(&ev_slot[rng_next(&rng) % EV_SLOTS]);
        aclError rc = aclrtRecordEvent(e, s);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_INVALID_HANDLE)
            ev_bad(&ev_bad_code, rc);
        int j = atomic_load(&ev_oneshot_recorded);
        if (a->index == 0 && j < EV_ONESHOTS && i % 4 == 0) {
            atomic_store(&ev_oneshot_started, j + 1);
            rc = aclrtRecordEvent(ev_oneshot[j], s);
            if (rc != ACL_SUCCESS)
                ev_bad(&ev_bad_code, rc);
            atomic_store(&ev_oneshot_recorded, j + 1);
        }
    }
    return NULL;
}

/*
 * The only thread that destroys shared events: create the successor, swap it
 * in, destroy the old one. It goes on until the queriers are done, so that a
 * wait they issued for a SYNC event's next record is always released (by a
 * record or by the destroy), and their launches behind it cannot wait forever
 * for ring space.
 */
static void *ev_destroyer(void *p)
{
    struct ev_arg *a = (struct ev_arg *)p;
    uint64_t rng = 0x2000u;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    spin_until(&ev_go);
    for (int i = 0; i < EV_ITER / 4 || atomic_load(&ev_queriers_done) < 2; i++) {
        int k = (int)(rng_next(&rng) % EV_SLOTS);
        aclrtEvent fresh = NULL;
        aclError rc = ev_create(k % 3, &fresh);
        if (rc != ACL_SUCCESS) {
            ev_bad(&ev_bad_code, rc);
            continue;
        }
        aclrtEvent old = atomic_exchange(&ev_slot[k], fresh);
        rc = aclrtDestroyEvent(old); /* nobody else destroys: must succeed even with work in flight */
        if (rc != ACL_SUCCESS)
            ev_bad(&ev_bad_code, rc);
        /* The handle is stale at once, whatever its captured work is doing. */
        aclrtEventRecordedStatus st;
        rc = aclrtQueryEventStatus(old, &st);
        if (rc != ACL_ERROR_RT_INVALID_HANDLE)
            ev_bad(&ev_bad_code, rc);
    }
    return NULL;
}

/* Queries, waits and synchronizes on shared events; checks one-shots never go back to NOT_READY. */
static void *ev_querier(void *p)
{
    struct ev_arg *a = (struct ev_arg *)p;
    uint64_t rng = 0x3000u + (uint64_t)a->index;
    static _Thread_local bool seen_complete[EV_ONESHOTS];
    memset(seen_complete, 0, sizeof seen_complete);
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    spin_until(&ev_go);
    for (int i = 0; i < EV_ITER; i++) {
        int k = (int)(rng_next(&rng) % EV_SLOTS);
        aclrtEvent e = atomic_load(&ev_slot[k]);
        aclrtEventRecordedStatus rs = (aclrtEventRecordedStatus)77;
        aclError rc = aclrtQueryEventStatus(e, &rs);
        if (rc == ACL_SUCCESS) {
            if (rs != ACL_EVENT_RECORDED_STATUS_COMPLETE && rs != ACL_EVENT_RECORDED_STATUS_NOT_READY)
                ev_bad(&ev_bad_status, (int)rs);
        } else if (rc != ACL_ERROR_RT_INVALID_HANDLE) {
            ev_bad(&ev_bad_code, rc);
        }
        if (k % 3 != FLAV_EX) {
            aclrtEventStatus es = (aclrtEventStatus)77;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            rc = aclrtQueryEvent(e, &es);
#pragma GCC diagnostic pop
            if (rc == ACL_SUCCESS) {
                if (es != ACL_EVENT_STATUS_COMPLETE && es != ACL_EVENT_STATUS_NOT_READY)
                    ev_bad(&ev_bad_status, (int)es);
            } else if (rc != ACL_ERROR_RT_INVALID_HANDLE) {
                ev_bad(&ev_bad_code, rc);
            }
            aclrtEventWaitStatus ws = (aclrtEventWaitStatus)77;
            rc = aclrtQueryEventWaitStatus(e, &ws);
            if (rc == ACL_SUCCESS) {
                if (ws != ACL_EVENT_WAIT_STATUS_COMPLETE && ws != ACL_EVENT_WAIT_STATUS_NOT_READY)
                    ev_bad(&ev_bad_status, (int)ws);
            } else if (rc != ACL_ERROR_RT_INVALID_HANDLE) {
                ev_bad(&ev_bad_code, rc);
            }
        }
        switch (i % 4) {
        case 0: {
            /* A wait: plain events not recorded yet refuse it; SYNC ones wait for the next record. */
            rc = aclrtStreamWaitEvent(ev_waiter, e);
            bool ok = rc == ACL_SUCCESS || rc == ACL_ERROR_RT_INVALID_HANDLE ||
                      (k % 3 == FLAV_PLAIN && rc == ACL_ERROR_RT_PARAM_INVALID);
            if (!ok)
                ev_bad(&ev_bad_code, rc);
            ev_launch(ev_waiter);
            break;
        }
        case 1:
            rc = aclrtSynchronizeEventWithTimeout(e, SYNC_LIMIT_MS);
            if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_INVALID_HANDLE)
                ev_bad(&ev_bad_code, rc);
            break;
        default: break;
        }
        /* One-shots: once this thread saw one COMPLETE, it stays COMPLETE. */
        for (int n = 0; n < 4; n++) {
            int j = (int)(rng_next(&rng) % EV_ONESHOTS);
            rc = aclrtQueryEventStatus(ev_oneshot[j], &rs);
            if (rc != ACL_SUCCESS) {
                ev_bad(&ev_bad_code, rc);
                continue;
            }
            if (rs == ACL_EVENT_RECORDED_STATUS_COMPLETE) {
                seen_complete[j] = true;
                if (j >= atomic_load(&ev_oneshot_started)) /* complete before its record began */
                    ev_bad(&ev_went_back, 1000 + j);
            } else if (rs == ACL_EVENT_RECORDED_STATUS_NOT_READY) {
                if (seen_complete[j])
                    ev_bad(&ev_went_back, j);
            } else {
                ev_bad(&ev_bad_status, (int)rs);
            }
        }
    }
    atomic_fetch_add(&ev_queriers_done, 1);
    return NULL;
}

/* Owns one event nobody else touches: after its synchronize it reads COMPLETE, and stays so. */
static void *ev_syncer(void *p)
{
    struct ev_arg *a = (struct ev_arg *)p;
    uint64_t rng = 0x4000u;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    aclrtEvent mine = NULL;
    if (aclrtCreateEvent(&mine) != ACL_SUCCESS) {
        ev_bad(&ev_bad_code, -1);
        return NULL;
    }
    spin_until(&ev_go);
    for (int i = 0; i < EV_ITER / 2; i++) {
        aclrtStream s = ev_work[rng_next(&rng) % EV_WORK_STREAMS];
        ev_launch(s);
        aclError rc = aclrtRecordEvent(mine, s);
        if (rc != ACL_SUCCESS)
            ev_bad(&ev_bad_code, rc);
        rc = aclrtSynchronizeEventWithTimeout(mine, SYNC_LIMIT_MS);
        if (rc != ACL_SUCCESS)
            ev_bad(&ev_bad_code, rc);
        for (int n = 0; n < 3; n++) {
            aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
            rc = aclrtQueryEventStatus(mine, &rs);
            if (rc != ACL_SUCCESS || rs != ACL_EVENT_RECORDED_STATUS_COMPLETE)
                ev_bad(&ev_unstable, rc != ACL_SUCCESS ? rc : (int)rs);
            aclrtEventStatus es = ACL_EVENT_STATUS_NOT_READY;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
            rc = aclrtQueryEvent(mine, &es);
#pragma GCC diagnostic pop
            if (rc != ACL_SUCCESS || es != ACL_EVENT_STATUS_COMPLETE)
                ev_bad(&ev_unstable, rc != ACL_SUCCESS ? rc : 100 + (int)es);
            /* Other streams' activity in between must not change it. */
            aclrtEvent other = atomic_load(&ev_slot[rng_next(&rng) % EV_SLOTS]);
            rc = aclrtSynchronizeEventWithTimeout(other, SYNC_LIMIT_MS);
            if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_INVALID_HANDLE)
                ev_bad(&ev_bad_code, rc);
        }
    }
    if (aclrtDestroyEvent(mine) != ACL_SUCCESS)
        ev_bad(&ev_bad_code, -2);
    return NULL;
}

static void *ev_thread(void *p)
{
    struct ev_arg *a = (struct ev_arg *)p;
    switch (a->index) {
    case 0:
    case 1: return ev_recorder(p);
    case 2: return ev_destroyer(p);
    case 3:
    case 4: return ev_querier(p);
    default: return ev_syncer(p);
    }
}

TEST(events_used_from_many_threads_while_streams_work)
{
    uint32_t events_before = events_available();
    for (int i = 0; i < EV_WORK_STREAMS; i++)
        CHECK_OK(aclrtCreateStream(&ev_work[i]));
    CHECK_OK(aclrtCreateStream(&ev_waiter));
    for (int k = 0; k < EV_SLOTS; k++) {
        aclrtEvent e;
        CHECK_OK(ev_create(k % 3, &e));
        atomic_store(&ev_slot[k], e);
    }
    for (int j = 0; j < EV_ONESHOTS; j++)
        CHECK_OK(aclrtCreateEvent(&ev_oneshot[j]));
    atomic_store(&ev_oneshot_started, 0);
    atomic_store(&ev_oneshot_recorded, 0);
    atomic_store(&ev_go, 0);
    atomic_store(&ev_queriers_done, 0);

    struct ev_arg args[6];
    pthread_t th[6];
    for (int i = 0; i < 6; i++) {
        args[i] = (struct ev_arg){.index = i, .ctx_rc = -1};
        pthread_create(&th[i], NULL, ev_thread, &args[i]);
    }
    atomic_store_explicit(&ev_go, 1, memory_order_release);
    for (int i = 0; i < 6; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 6; i++)
        CHECK_OK(args[i].ctx_rc);

    /* Destroying the shared events releases waits still waiting for a next record. */
    for (int k = 0; k < EV_SLOTS; k++)
        CHECK_OK(aclrtDestroyEvent(atomic_load(&ev_slot[k])));
    for (int i = 0; i < EV_WORK_STREAMS; i++)
        CHECK_OK(aclrtSynchronizeStreamWithTimeout(ev_work[i], SYNC_LIMIT_MS));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(ev_waiter, SYNC_LIMIT_MS));

    if (atomic_load(&ev_bad_code) + atomic_load(&ev_bad_status) + atomic_load(&ev_went_back) +
            atomic_load(&ev_unstable) != 0)
        fprintf(stderr, "  last unexpected value: %d\n", atomic_load(&ev_last_bad));
    CHECK_EQ(0, atomic_load(&ev_bad_code));
    CHECK_EQ(0, atomic_load(&ev_bad_status));
    CHECK_EQ(0, atomic_load(&ev_went_back));
    CHECK_EQ(0, atomic_load(&ev_unstable));
    CHECK_EQ(EV_ONESHOTS, atomic_load(&ev_oneshot_recorded));
    CHECK_EQ(atomic_load(&ev_func_launched), atomic_load(&ev_func_ran));
    CHECK(atomic_load(&ev_func_launched) > 0);

    /* Every one-shot is complete now, and stays so. */
    for (int j = 0; j < EV_ONESHOTS; j++) {
        aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        CHECK_OK(aclrtQueryEventStatus(ev_oneshot[j], &rs));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
        CHECK_OK(aclrtDestroyEvent(ev_oneshot[j]));
    }
    for (int i = 0; i < EV_WORK_STREAMS; i++)
        CHECK_OK(aclrtDestroyStream(ev_work[i]));
    CHECK_OK(aclrtDestroyStream(ev_waiter));
    CHECK_EQ(events_before, events_available());
}

/* ------------------------------------------------------------------------
 * 3. A chain of 1,000 streams linked by events. Stream i waits for an event
 *    recorded on stream i-1 after that stream's host function; each host
 *    function checks its predecessor already ran. With ~2 executors this
 *    completes only if blocked streams hold no executor thread.
 * ------------------------------------------------------------------------ */

#define CHAIN 1000

static aclrtStream chain_stream[CHAIN];
static aclrtEvent chain_event[CHAIN];
static int chain_done[CHAIN]; /* plain: each is written by one task and read by the next one, after a wait */
static atomic_int chain_out_of_order, chain_gate;

static void chain_gate_func(void *p)
{
    (void)p;
    spin_until(&chain_gate); /* holds one executor until every stream is submitted */
}

static void chain_func(void *p)
{
    int i = (int)(intptr_t)p;
    if (i > 0 && chain_done[i - 1] != 1)
        atomic_fetch_add(&chain_out_of_order, 1);
    chain_done[i] = 1;
}

static void chain_run(bool legacy_reverse)
{
    CHECK(streams_available() >= CHAIN + 1);
    uint32_t streams_before = streams_available();
    memset(chain_done, 0, sizeof chain_done);
    atomic_store(&chain_out_of_order, 0);
    atomic_store(&chain_gate, 0);
    for (int i = 0; i < CHAIN; i++) {
        CHECK_OK(aclrtCreateStream(&chain_stream[i]));
        if (legacy_reverse)
            CHECK_OK(aclrtCreateEventWithFlag(&chain_event[i], ACL_EVENT_SYNC));
        else
            CHECK_OK(aclrtCreateEvent(&chain_event[i]));
    }
    CHECK_OK(aclrtLaunchHostFunc(chain_stream[0], chain_gate_func, NULL));
    if (!legacy_reverse) {
        /* Forward: each wait copies a record that exists already. */
        for (int i = 0; i < CHAIN; i++) {
            if (i > 0)
                CHECK_OK(aclrtStreamWaitEvent(chain_stream[i], chain_event[i - 1]));
            CHECK_OK(aclrtLaunchHostFunc(chain_stream[i], chain_func, (void *)(intptr_t)i));
            CHECK_OK(aclrtRecordEvent(chain_event[i], chain_stream[i]));
        }
    } else {
        /* Backward, legacy SYNC events: every wait is issued before its record and waits for it. */
        for (int i = CHAIN - 1; i >= 0; i--) {
            if (i > 0)
                CHECK_OK(aclrtStreamWaitEvent(chain_stream[i], chain_event[i - 1]));
            CHECK_OK(aclrtLaunchHostFunc(chain_stream[i], chain_func, (void *)(intptr_t)i));
            CHECK_OK(aclrtRecordEvent(chain_event[i], chain_stream[i]));
        }
    }
    aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
    CHECK_OK(aclrtStreamQuery(chain_stream[CHAIN - 1], &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st); /* the gate still holds stream 0, so the tail cannot be done */
    atomic_store_explicit(&chain_gate, 1, memory_order_release);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(chain_stream[CHAIN - 1], SYNC_LIMIT_MS));
    /* The last stream finished, so every predecessor did (its event waited for them). */
    for (int i = 0; i < CHAIN; i++)
        CHECK_EQ(1, chain_done[i]);
    CHECK_EQ(0, atomic_load(&chain_out_of_order));
    for (int i = 0; i < CHAIN; i++) {
        aclrtEventRecordedStatus rs = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        CHECK_OK(aclrtQueryEventStatus(chain_event[i], &rs));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, rs);
    }
    for (int i = 0; i < CHAIN; i++) {
        CHECK_OK(aclrtDestroyEvent(chain_event[i]));
        CHECK_OK(aclrtDestroyStream(chain_stream[i]));
    }
    CHECK_EQ(streams_before, streams_available_settled(streams_before));
}

TEST(chain_of_1000_streams_linked_by_events_completes)
{
    chain_run(false);
}

TEST(chain_of_1000_streams_with_waits_issued_before_their_records_completes)
{
    chain_run(true);
}

/* ------------------------------------------------------------------------
 * 4. Ping-pong between two streams: one event each, re-recorded every round.
 * ------------------------------------------------------------------------ */

#define PP_ROUNDS SCALED(2000, 400) /* 3 tasks per round and stream: the rings fill, so the launcher also waits */

static atomic_long pp_counter;
static atomic_int pp_out_of_turn;

static void pp_ping(void *p)
{
    long r = (long)(intptr_t)p;
    if (atomic_load(&pp_counter) != 2 * r)
        atomic_fetch_add(&pp_out_of_turn, 1);
    atomic_store(&pp_counter, 2 * r + 1);
}

static void pp_pong(void *p)
{
    long r = (long)(intptr_t)p;
    if (atomic_load(&pp_counter) != 2 * r + 1)
        atomic_fetch_add(&pp_out_of_turn, 1);
    atomic_store(&pp_counter, 2 * r + 2);
}

TEST(ping_pong_between_two_streams_alternates_strictly)
{
    aclrtStream a, b;
    aclrtEvent ea, eb;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtCreateEvent(&ea));
    CHECK_OK(aclrtCreateEvent(&eb));
    atomic_store(&pp_counter, 0);
    atomic_store(&pp_out_of_turn, 0);
    for (long r = 0; r < PP_ROUNDS; r++) {
        /* Each wait copies what the other event captured at the call: its previous round. */
        if (r > 0)
            CHECK_OK(aclrtStreamWaitEvent(a, eb));
        CHECK_OK(aclrtLaunchHostFunc(a, pp_ping, (void *)(intptr_t)r));
        CHECK_OK(aclrtRecordEvent(ea, a));
        CHECK_OK(aclrtStreamWaitEvent(b, ea));
        CHECK_OK(aclrtLaunchHostFunc(b, pp_pong, (void *)(intptr_t)r));
        CHECK_OK(aclrtRecordEvent(eb, b));
    }
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, SYNC_LIMIT_MS));
    CHECK_EQ(2 * PP_ROUNDS, atomic_load(&pp_counter));
    CHECK_EQ(0, atomic_load(&pp_out_of_turn));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(a, SYNC_LIMIT_MS));
    CHECK_OK(aclrtDestroyEvent(ea));
    CHECK_OK(aclrtDestroyEvent(eb));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* ------------------------------------------------------------------------
 * 5. Producer and consumer threads: one records, the other waits.
 * ------------------------------------------------------------------------ */

#define PC_ITEMS 600
#define PC_EARLY 100 /* the consumer issues this many waits before the producer starts */

static aclrtStream pc_producer_stream, pc_consumer_stream;
static aclrtEvent pc_event[PC_ITEMS];
static int pc_data[PC_ITEMS];  /* plain: written by the producer's tasks, read by the consumer's */
static int pc_seen[PC_ITEMS];  /* plain: written by the consumer's tasks, read after a synchronize */
static atomic_int pc_producer_go, pc_bad_data;

static void pc_produce(void *p)
{
    int i = (int)(intptr_t)p;
    pc_data[i] = 3 * i + 1;
}

static void pc_consume(void *p)
{
    int i = (int)(intptr_t)p;
    if (pc_data[i] != 3 * i + 1)
        atomic_fetch_add(&pc_bad_data, 1);
    pc_seen[i] = pc_data[i];
}

struct pc_arg {
    int ctx_rc;
    int failures;
    int first_error;
};

static void pc_note(struct pc_arg *a, aclError rc)
{
    if (rc != ACL_SUCCESS && a->failures++ == 0)
        a->first_error = rc;
}

static void *pc_producer(void *p)
{
    struct pc_arg *a = (struct pc_arg *)p;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    spin_until(&pc_producer_go);
    for (int i = 0; i < PC_ITEMS; i++) {
        pc_note(a, aclrtLaunchHostFunc(pc_producer_stream, pc_produce, (void *)(intptr_t)i));
        pc_note(a, aclrtRecordEvent(pc_event[i], pc_producer_stream));
    }
    return NULL;
}

static void *pc_consumer(void *p)
{
    struct pc_arg *a = (struct pc_arg *)p;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    for (int i = 0; i < PC_ITEMS; i++) {
        if (i == PC_EARLY)
            atomic_store_explicit(&pc_producer_go, 1, memory_order_release);
        pc_note(a, aclrtStreamWaitEvent(pc_consumer_stream, pc_event[i]));
        pc_note(a, aclrtLaunchHostFunc(pc_consumer_stream, pc_consume, (void *)(intptr_t)i));
    }
    return NULL;
}

TEST(producer_and_consumer_threads_order_data_through_events)
{
    CHECK_OK(aclrtCreateStream(&pc_producer_stream));
    CHECK_OK(aclrtCreateStream(&pc_consumer_stream));
    for (int i = 0; i < PC_ITEMS; i++)
        CHECK_OK(aclrtCreateEventWithFlag(&pc_event[i], ACL_EVENT_SYNC)); /* a wait before the record waits for it */
    memset(pc_data, 0, sizeof pc_data);
    memset(pc_seen, 0, sizeof pc_seen);
    atomic_store(&pc_producer_go, 0);
    atomic_store(&pc_bad_data, 0);
    struct pc_arg args[2] = {{-1, 0, 0}, {-1, 0, 0}};
    pthread_t prod, cons;
    pthread_create(&prod, NULL, pc_producer, &args[0]);
    pthread_create(&cons, NULL, pc_consumer, &args[1]);
    pthread_join(cons, NULL);
    pthread_join(prod, NULL);
    for (int t = 0; t < 2; t++) {
        CHECK_OK(args[t].ctx_rc);
        CHECK_EQ(0, args[t].first_error);
        CHECK_EQ(0, args[t].failures);
    }
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(pc_consumer_stream, SYNC_LIMIT_MS));
    CHECK_EQ(0, atomic_load(&pc_bad_data));
    for (int i = 0; i < PC_ITEMS; i++)
        CHECK_EQ(3 * i + 1, pc_seen[i]);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(pc_producer_stream, SYNC_LIMIT_MS));
    for (int i = 0; i < PC_ITEMS; i++)
        CHECK_OK(aclrtDestroyEvent(pc_event[i]));
    CHECK_OK(aclrtDestroyStream(pc_producer_stream));
    CHECK_OK(aclrtDestroyStream(pc_consumer_stream));
}

/* ------------------------------------------------------------------------
 * 6. Launching from inside a host function into another stream.
 * ------------------------------------------------------------------------ */

struct nest {
    aclrtStream a, b, c;
    aclrtEvent on_b;
    atomic_int rc_launch_b, rc_record_b, rc_launch_a, rc_set_ctx;
    int inner_b_ran;      /* plain: written on b, read on c after a wait */
    atomic_int inner_a_ran, checker_ok;
    bool set_context;
};

static void nest_inner_b(void *p)
{
    struct nest *n = (struct nest *)p;
    n->inner_b_ran = 1;
}

static void nest_inner_a(void *p)
{
    struct nest *n = (struct nest *)p;
    atomic_fetch_add(&n->inner_a_ran, 1);
}

static void nest_outer(void *p)
{
    struct nest *n = (struct nest *)p;
    if (n->set_context)
        atomic_store(&n->rc_set_ctx, aclrtSetCurrentContext(g_ctx));
    atomic_store(&n->rc_launch_b, aclrtLaunchHostFunc(n->b, nest_inner_b, n));
    atomic_store(&n->rc_record_b, aclrtRecordEvent(n->on_b, n->b));
    atomic_store(&n->rc_launch_a, aclrtLaunchHostFunc(n->a, nest_inner_a, n)); /* its own stream: not full */
}

static void nest_checker(void *p)
{
    struct nest *n = (struct nest *)p;
    if (n->inner_b_ran == 1)
        atomic_store(&n->checker_ok, 1);
}

static void nest_run(bool set_context)
{
    static struct nest n;
    memset(&n, 0, sizeof n);
    n.set_context = set_context;
    atomic_store(&n.rc_launch_b, -1);
    atomic_store(&n.rc_record_b, -1);
    atomic_store(&n.rc_launch_a, -1);
    CHECK_OK(aclrtCreateStream(&n.a));
    CHECK_OK(aclrtCreateStream(&n.b));
    CHECK_OK(aclrtCreateStream(&n.c));
    CHECK_OK(aclrtCreateEvent(&n.on_b));
    CHECK_OK(aclrtLaunchHostFunc(n.a, nest_outer, &n));
    /* a's outer task ran (and made its calls) before a is synchronized... */
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(n.a, SYNC_LIMIT_MS));
    if (set_context)
        CHECK_OK(atomic_load(&n.rc_set_ctx));
    CHECK_OK(atomic_load(&n.rc_launch_b));
    CHECK_OK(atomic_load(&n.rc_record_b));
    CHECK_OK(atomic_load(&n.rc_launch_a));
    /* ...so the record it made on b exists: c waits for it, then checks b's task ran. */
    CHECK_OK(aclrtStreamWaitEvent(n.c, n.on_b));
    CHECK_OK(aclrtLaunchHostFunc(n.c, nest_checker, &n));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(n.c, SYNC_LIMIT_MS));
    CHECK_EQ(1, atomic_load(&n.checker_ok));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(n.a, SYNC_LIMIT_MS));
    CHECK_EQ(1, atomic_load(&n.inner_a_ran));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(n.b, SYNC_LIMIT_MS));
    CHECK_EQ(1, n.inner_b_ran);
    CHECK_OK(aclrtDestroyEvent(n.on_b));
    CHECK_OK(aclrtDestroyStream(n.a));
    CHECK_OK(aclrtDestroyStream(n.b));
    CHECK_OK(aclrtDestroyStream(n.c));
}

/*
 * SEMANTICS.md, "Calls from inside a task": host functions may launch into
 * other streams and record events. The task runs on a runtime thread the
 * program never set a context on; the stream's own context applies.
 * (Runs first: once a task sets a context on an executor thread, it stays.)
 */
TEST(host_function_launches_into_another_stream)
{
    nest_run(false);
}

TEST(host_function_that_sets_the_context_launches_into_another_stream)
{
    nest_run(true);
}

/* ------------------------------------------------------------------------
 * 7. Streams created and destroyed concurrently by several threads.
 * ------------------------------------------------------------------------ */

#define CD_THREADS 4
#define CD_ITER SCALED(150, 50)
#define CD_MAX_TASKS 5

struct cd_arg {
    int index;
    int ctx_rc;
    int bad;             /* unexpected codes */
    int first_bad;
    int not_waited;      /* DestroyStream returned before the stream's work ran */
    long force_launched; /* tasks in streams destroyed with Force */
    atomic_long force_ran;
    atomic_int counters[CD_ITER];
};

static void cd_count(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

static void cd_force_count(void *p)
{
    atomic_fetch_add((atomic_long *)p, 1);
}

static void cd_note(struct cd_arg *a, aclError rc)
{
    if (a->bad++ == 0)
        a->first_bad = rc;
}

static void *cd_thread(void *p)
{
    struct cd_arg *a = (struct cd_arg *)p;
    uint64_t rng = 0x5000u + (uint64_t)a->index;
    a->ctx_rc = aclrtSetCurrentContext(g_ctx);
    aclrtEvent done = NULL;
    aclError rc = aclrtCreateEventExWithFlag(&done, ACL_EVENT_SYNC);
    if (rc != ACL_SUCCESS) {
        cd_note(a, rc);
        return NULL;
    }
    for (int i = 0; i < CD_ITER; i++) {
        aclrtStream s = NULL;
        uint64_t r = rng_next(&rng);
        if (r & 1)
            rc = aclrtCreateStream(&s);
        else /* any priority (clamped), any flags that are accepted */
            rc = aclrtCreateStreamWithConfig(&s, (uint32_t)(r >> 8) % 10,
                                             (uint32_t)(r >> 16) & (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC |
                                                                    ACL_STREAM_HUGE | 0x100u));
        if (rc != ACL_SUCCESS) {
            cd_note(a, rc);
            continue;
        }
        bool force = (r >> 32) % 4 == 0;
        int tasks = 1 + (int)((r >> 40) % CD_MAX_TASKS);
        for (int t = 0; t < tasks; t++) {
            rc = force ? aclrtLaunchHostFunc(s, cd_force_count, &a->force_ran)
                       : aclrtLaunchHostFunc(s, cd_count, &a->counters[i]);
            if (rc != ACL_SUCCESS)
                cd_note(a, rc);
            else if (force)
                a->force_launched++;
        }
        if ((r >> 48) % 3 == 0) {
            if ((rc = aclrtRecordEvent(done, s)) != ACL_SUCCESS)
                cd_note(a, rc);
            if ((rc = aclrtSynchronizeEventWithTimeout(done, SYNC_LIMIT_MS)) != ACL_SUCCESS)
                cd_note(a, rc);
        }
        rc = force ? aclrtDestroyStreamForce(s) : aclrtDestroyStream(s);
        if (rc != ACL_SUCCESS)
            cd_note(a, rc);
        if (!force && atomic_load(&a->counters[i]) != tasks)
            a->not_waited++;
        /* The handle is dead at once, whatever other threads create meanwhile. */
        aclrtStreamStatus st;
        if ((rc = aclrtStreamQuery(s, &st)) != ACL_ERROR_RT_INVALID_HANDLE)
            cd_note(a, rc);
        if ((rc = aclrtLaunchHostFunc(s, cd_count, &a->counters[i])) != ACL_ERROR_RT_INVALID_HANDLE)
            cd_note(a, rc);
    }
    /* Destroying the event whose last capture was on a destroyed stream is fine. */
    if ((rc = aclrtDestroyEvent(done)) != ACL_SUCCESS)
        cd_note(a, rc);
    return NULL;
}

TEST(streams_created_and_destroyed_by_many_threads_leave_counts_consistent)
{
    uint32_t streams_before = streams_available();
    uint32_t events_before = events_available();
    CHECK(streams_before > CD_THREADS);
    static struct cd_arg args[CD_THREADS];
    memset(args, 0, sizeof args);
    for (int i = 0; i < CD_THREADS; i++) {
        args[i].index = i;
        args[i].ctx_rc = -1;
    }
    run_threads(CD_THREADS, cd_thread, args, sizeof args[0]);
    for (int i = 0; i < CD_THREADS; i++) {
        CHECK_OK(args[i].ctx_rc);
        CHECK_EQ(0, args[i].first_bad);
        CHECK_EQ(0, args[i].bad);
        CHECK_EQ(0, args[i].not_waited);
        CHECK(atomic_load(&args[i].force_ran) <= args[i].force_launched);
    }
    CHECK_EQ(streams_before, streams_available_settled(streams_before));
    CHECK_EQ(events_before, events_available());
}

/*
 * aclrtDestroyStream waits for the stream's work and then destroys it: when
 * it returns, the stream's quota is free again (a program at the quota that
 * destroys one stream can create one). Repeated, because the executor that
 * ran the last task may still be letting go of the stream.
 */
static void cd_noop(void *p)
{
    (void)p;
}

TEST(destroy_stream_releases_its_quota_before_returning)
{
    uint32_t before = streams_available();
    int lagging = 0;
    for (int i = 0; i < SCALED(500, 200); i++) {
        aclrtStream s;
        CHECK_OK(aclrtCreateStream(&s));
        CHECK_EQ(before - 1, streams_available());
        for (int t = 0; t < 1 + i % 3; t++)
            CHECK_OK(aclrtLaunchHostFunc(s, cd_noop, NULL));
        CHECK_OK(aclrtDestroyStream(s));
        if (streams_available() != before)
            lagging++;
        CHECK_EQ(before, streams_available_settled(before)); /* never leaked */
    }
    CHECK_EQ(0, lagging);
}

/* ------------------------------------------------------------------------
 * 8. Stale handles used from other threads while their slots are reused.
 *    Racers launch on the live stream and, all the time, on streams that
 *    were already destroyed; the main thread destroys and creates streams
 *    (a slot freed in one round is reused in the next). A stale handle is
 *    refused with INVALID_HANDLE and never reaches the stream that reuses
 *    its slot. (Using a handle *while* another thread destroys it is a
 *    data race in the program, as in ACL; the racers hand the live handle
 *    back before it is destroyed.)
 * ------------------------------------------------------------------------ */

#define RD_ROUNDS SCALED(200, 60)
#define RD_OWN_TASKS 20
#define RD_RACERS 2
#define RD_INDEX_MASK ((uintptr_t)0xFFFFFFF) /* handle layout (impl/handle.h): low 28 bits = slot index */

static _Atomic(aclrtStream) rd_current; /* live until every racer acknowledged the next epoch */
static _Atomic(aclrtStream) rd_stale;   /* destroyed */
static atomic_int rd_epoch, rd_ack[RD_RACERS], rd_stop;
static atomic_long rd_live_ok, rd_live_ran, rd_stale_refused;
static atomic_int rd_bad, rd_last_bad;

static void rd_live_task(void *p)
{
    (void)p;
    atomic_fetch_add(&rd_live_ran, 1);
}

static void rd_stale_task(void *p)
{
    (void)p;
    atomic_store(&rd_bad, 1000); /* a launch on a stale handle ran */
}

static void rd_note_bad(aclError rc)
{
    atomic_fetch_add(&rd_bad, 1);
    atomic_store(&rd_last_bad, rc);
}

struct rd_racer_arg {
    int index;
    atomic_int ctx_rc; /* -1 until the racer has set its context */
};

static void *rd_racer(void *p)
{
    struct rd_racer_arg *arg = (struct rd_racer_arg *)p;
    atomic_store(&arg->ctx_rc, aclrtSetCurrentContext(g_ctx));
    while (!atomic_load(&rd_stop)) {
        int epoch = atomic_load(&rd_epoch); /* acquire: the handles published with it */
        aclrtStream live = atomic_load(&rd_current);
        aclrtStream stale = atomic_load(&rd_stale);
        aclError rc = aclrtLaunchHostFunc(live, rd_live_task, NULL);
        if (rc == ACL_SUCCESS)
            atomic_fetch_add(&rd_live_ok, 1);
        else
            rd_note_bad(rc);
        if (stale != NULL) {
            rc = aclrtLaunchHostFunc(stale, rd_stale_task, NULL);
            if (rc != ACL_ERROR_RT_INVALID_HANDLE)
                rd_note_bad(rc == ACL_SUCCESS ? -1 : rc);
            aclrtStreamStatus st;
            rc = aclrtStreamQuery(stale, &st);
            if (rc == ACL_ERROR_RT_INVALID_HANDLE)
                atomic_fetch_add(&rd_stale_refused, 1);
            else
                rd_note_bad(rc == ACL_SUCCESS ? -2 : rc);
        }
        atomic_store(&rd_ack[arg->index], epoch); /* release: done with `live` of this epoch */
    }
    return NULL;
}

static atomic_int rd_own_count[RD_ROUNDS];

static void rd_own(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

TEST(stale_handles_from_other_threads_never_reach_the_stream_that_reuses_the_slot)
{
    uint32_t streams_before = streams_available();
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    atomic_store(&rd_current, s);
    atomic_store(&rd_stale, NULL);
    atomic_store(&rd_epoch, 0);
    atomic_store(&rd_stop, 0);
    for (int i = 0; i < RD_ROUNDS; i++)
        atomic_store(&rd_own_count[i], 0);
    struct rd_racer_arg args[RD_RACERS];
    pthread_t racers[RD_RACERS];
    for (int i = 0; i < RD_RACERS; i++) {
        args[i].index = i;
        atomic_store(&args[i].ctx_rc, -1);
        atomic_store(&rd_ack[i], -1);
        pthread_create(&racers[i], NULL, rd_racer, &args[i]);
    }
    /* Every racer is in its loop before the rounds start (else a late racer would see no stale handle). */
    for (int i = 0; i < RD_RACERS; i++)
        while (atomic_load(&args[i].ctx_rc) == -1)
            sched_yield();
    int own_bad = 0, own_first_bad = 0, reused = 0;
    for (int round = 0; round < RD_ROUNDS; round++) {
        for (int t = 0; t < RD_OWN_TASKS; t++) {
            aclError rc = aclrtLaunchHostFunc(s, rd_own, &rd_own_count[round]);
            if (rc != ACL_SUCCESS && own_bad++ == 0)
                own_first_bad = rc;
        }
        aclrtStream next;
        CHECK_OK(aclrtCreateStream(&next)); /* may reuse the slot freed a round ago */
        if (next != NULL && ((uintptr_t)next & RD_INDEX_MASK) == ((uintptr_t)atomic_load(&rd_stale) & RD_INDEX_MASK))
            reused++;
        atomic_store(&rd_current, next);
        atomic_store(&rd_epoch, round + 1); /* release: publishes next */
        for (int i = 0; i < RD_RACERS; i++)
            while (atomic_load(&rd_ack[i]) < round + 1 && atomic_load(&args[i].ctx_rc) == ACL_SUCCESS)
                sched_yield();
        aclError rc = round % 2 ? aclrtDestroyStreamForce(s) : aclrtDestroyStream(s);
        if (rc != ACL_SUCCESS && own_bad++ == 0)
            own_first_bad = rc;
        if (round % 2 == 0 && atomic_load(&rd_own_count[round]) != RD_OWN_TASKS && own_bad++ == 0)
            own_first_bad = -100 - atomic_load(&rd_own_count[round]); /* DestroyStream waits for them */
        atomic_store(&rd_stale, s);
        s = next;
    }
    atomic_store(&rd_stop, 1);
    for (int i = 0; i < RD_RACERS; i++)
        pthread_join(racers[i], NULL);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, SYNC_LIMIT_MS));
    CHECK_OK(aclrtDestroyStream(s));
    for (int i = 0; i < RD_RACERS; i++)
        CHECK_OK(args[i].ctx_rc);
    CHECK_EQ(0, own_first_bad);
    CHECK_EQ(0, own_bad);
    CHECK_EQ(0, atomic_load(&rd_last_bad));
    CHECK_EQ(0, atomic_load(&rd_bad));
    CHECK(atomic_load(&rd_stale_refused) > 0);
    CHECK(reused > 0); /* the scenario happened: a stale handle named a reused slot */
    /* Own tasks of streams destroyed without Force all ran exactly once. */
    for (int i = 0; i < RD_ROUNDS; i++) {
        if (i % 2 == 0)
            CHECK_EQ(RD_OWN_TASKS, atomic_load(&rd_own_count[i]));
        else
            CHECK(atomic_load(&rd_own_count[i]) <= RD_OWN_TASKS);
    }
    CHECK(atomic_load(&rd_live_ran) <= atomic_load(&rd_live_ok));
    CHECK_EQ(streams_before, streams_available_settled(streams_before));
}

int main(void)
{
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtGetCurrentContext(&g_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "cannot set device 0: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(host_function_launches_into_another_stream);
    RUN(host_function_that_sets_the_context_launches_into_another_stream);
    RUN(many_threads_launching_into_one_stream_keep_each_threads_order);
    RUN(many_threads_launching_into_the_default_stream_keep_each_threads_order);
    RUN(events_used_from_many_threads_while_streams_work);
    RUN(chain_of_1000_streams_linked_by_events_completes);
    RUN(chain_of_1000_streams_with_waits_issued_before_their_records_completes);
    RUN(ping_pong_between_two_streams_alternates_strictly);
    RUN(producer_and_consumer_threads_order_data_through_events);
    RUN(streams_created_and_destroyed_by_many_threads_leave_counts_consistent);
    RUN(destroy_stream_releases_its_quota_before_returning);
    RUN(stale_handles_from_other_threads_never_reach_the_stream_that_reuses_the_slot);
    aclrtResetDevice(0);
    return check_report("concurrency");
}
