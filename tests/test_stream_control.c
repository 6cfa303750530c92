/*
 * tests/test_stream_control.c - pins "stream control" (docs/SEMANTICS.md,
 * Stream control): aclrtStreamAbort discards
 * pending work and makes concurrent synchronizers return
 * ACL_ERROR_RT_STREAM_ABORT, aclrtStreamStop keeps the queue but runs
 * nothing more, and the stream/device state callbacks.
 *
 * An abort or stop waits for the task that is running, so these cases hold
 * the stream with a gate, call abort/stop from a helper thread, and open the
 * gate only once a synchronize in the main thread has observed the abort or
 * stop (it returns the abort/stop code instead of timing out): no sleeps.
 */
#define _GNU_SOURCE

#include "check.h"
#include "fake_cuda_hooks.h"
#include "gate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static aclrtContext main_ctx;

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

struct control_call {
    pthread_t thread;
    aclrtStream stream;
    int stop; /* aclrtStreamStop instead of aclrtStreamAbort */
    aclError rc;
};

static void *control_main(void *arg)
{
    struct control_call *c = (struct control_call *)arg;
    aclrtSetCurrentContext(main_ctx);
    c->rc = c->stop ? aclrtStreamStop(c->stream) : aclrtStreamAbort(c->stream);
    return NULL;
}

static void control_start(struct control_call *c, aclrtStream s, int stop)
{
    c->stream = s;
    c->stop = stop;
    c->rc = -1;
    CHECK_EQ(0, pthread_create(&c->thread, NULL, control_main, c));
}

/* Synchronize with a 1 ms timeout until something other than a timeout comes back. */
static aclError sync_until_not_timeout(aclrtStream s)
{
    aclError rc;
    while ((rc = aclrtSynchronizeStreamWithTimeout(s, 1)) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        ;
    return rc;
}

static void case_cleanup(void)
{
    gates_open_all();
}

/* ------------------------------------------------------------------------
 * Abort
 * ------------------------------------------------------------------------ */

TEST(abort_lets_the_running_task_finish_and_discards_the_queued_ones)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int count;
    atomic_store(&count, 0);
    struct gate *g = launch_gate(s);
    for (int i = 0; i < 100; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(ev, s));
    CHECK(gate_wait_entered(g));
    struct control_call c;
    control_start(&c, s, 0);
    /* A synchronize active during the abort returns the abort code (here: instead of its timeout). */
    CHECK_EQ(ACL_ERROR_RT_STREAM_ABORT, sync_until_not_timeout(s));
    gate_open(g);
    pthread_join(c.thread, NULL);
    CHECK_OK(c.rc);
    CHECK_EQ(1, atomic_load(&g->done)); /* the running task finished */
    CHECK_EQ(0, atomic_load(&count));   /* none of the queued ones ran */
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    aclrtEventRecordedStatus es;
    CHECK_OK(aclrtQueryEventStatus(ev, &es)); /* discarded work counts as done: nothing waits forever */
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, es);
    /* The stream is usable again. */
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&count));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(abort_releases_a_stream_parked_on_a_wait_that_would_never_end)
{
    aclrtStream s;
    aclrtEvent never;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateEventWithFlag(&never, ACL_EVENT_SYNC)); /* never recorded: the wait waits for a record */
    static atomic_int count;
    atomic_store(&count, 0);
    CHECK_OK(aclrtStreamWaitEvent(s, never));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtStreamAbort(s));
    CHECK_EQ(0, atomic_load(&count));
    aclrtEventWaitStatus ws;
    CHECK_OK(aclrtQueryEventWaitStatus(never, &ws)); /* the discarded wait is no longer outstanding */
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyEvent(never));
    CHECK_OK(aclrtDestroyStream(s));
}

/*
 * A value wait on device memory that nothing writes holds its stream: on a
 * GPU it is on the GPU queue already, where nothing recalls it. An abort
 * (of the stream, of the device) still returns: the wait is let go, the
 * host function behind it that had not started is discarded, and the
 * stream is usable again.
 */
/* On the cuda backend's test double: the value waits its streams are held at (-1 elsewhere). */
static int fake_waits_blocked(void)
{
    int (*blocked)(void) = NULL;
    *(void **)&blocked = fake_cuda_symbol("fakecuda_waits_blocked");
    return blocked != NULL ? blocked() : -1;
}

/* Where the double says so, wait until the value wait just launched is on the GPU queue (held there). */
static void until_wait_on_the_gpu(aclrtStream s, int before)
{
    if (before < 0)
        return;
    while (fake_waits_blocked() <= before)
        CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 1));
}

TEST(abort_returns_with_a_value_wait_on_device_memory_that_never_fires)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint64_t *word;
    CHECK_OK(aclrtMalloc((void **)&word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(word, 64, 0, 64));
    static atomic_int count;
    atomic_store(&count, 0);
    int before = fake_waits_blocked();
    CHECK_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
    CHECK_OK(aclrtMemsetAsync(word + 1, 8, 0x11, 8, s));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    until_wait_on_the_gpu(s, before);
    CHECK_OK(aclrtStreamAbort(s));
    CHECK_EQ(0, atomic_load(&count));
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&count));
    /* The same through the device's abort. */
    before = fake_waits_blocked();
    CHECK_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    until_wait_on_the_gpu(s, before);
    CHECK_OK(aclrtDeviceTaskAbort(0, 0));
    CHECK_EQ(1, atomic_load(&count));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&count));
    CHECK_OK(aclrtFree(word));
    CHECK_OK(aclrtDestroyStream(s));
}

/* A BLOCK callback that aborts the very stream that waits for it. */
static aclrtStream cb_stream;
static atomic_int cb_abort_rc = -1;

static void abort_from_callback(void *arg)
{
    (void)arg;
    atomic_store(&cb_abort_rc, aclrtStreamAbort(cb_stream));
}

TEST(abort_of_a_stream_waiting_for_a_block_callback_discards_it_without_waiting_for_the_callback)
{
    CHECK_OK(aclrtCreateStream(&cb_stream));
    uint64_t me = (uint64_t)pthread_self();
    CHECK_OK(aclrtSubscribeReport(me, cb_stream));
    static atomic_int count;
    atomic_store(&count, 0);
    /* The stream parks on the callback; the callback (run here) aborts the stream and returns only after. */
    CHECK_OK(aclrtLaunchCallback(abort_from_callback, NULL, ACL_CALLBACK_BLOCK, cb_stream));
    CHECK_OK(aclrtLaunchHostFunc(cb_stream, count_fn, &count));
    CHECK_OK(aclrtProcessReport(-1));
    CHECK_OK(atomic_load(&cb_abort_rc));
    CHECK_EQ(0, atomic_load(&count)); /* the task after the callback was discarded */
    CHECK_OK(aclrtSynchronizeStream(cb_stream));
    CHECK_OK(aclrtLaunchCallback(count_fn, &count, ACL_CALLBACK_BLOCK, cb_stream)); /* usable again */
    CHECK_OK(aclrtProcessReport(-1));
    CHECK_OK(aclrtSynchronizeStream(cb_stream));
    CHECK_EQ(1, atomic_load(&count));
    CHECK_OK(aclrtUnSubscribeReport(me, cb_stream));
    CHECK_OK(aclrtDestroyStream(cb_stream));
}

static atomic_int inner_rc = -1;
static aclrtStream inner_stream;

static void abort_self_fn(void *arg)
{
    (void)arg;
    atomic_store(&inner_rc, aclrtStreamAbort(inner_stream));
}

TEST(abort_bad_input_has_the_documented_codes)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamAbort(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamStop(NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamAbort((aclrtStream)0x77));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamStop((aclrtStream)0x77));
    CHECK_OK(aclrtCreateStream(&inner_stream));
    CHECK_OK(aclrtLaunchHostFunc(inner_stream, abort_self_fn, NULL));
    CHECK_OK(aclrtSynchronizeStream(inner_stream));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, atomic_load(&inner_rc)); /* it would wait for itself */
    aclrtStream dead;
    CHECK_OK(aclrtCreateStream(&dead));
    CHECK_OK(aclrtDestroyStream(dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamAbort(dead));
    CHECK_OK(aclrtDestroyStream(inner_stream));
}

/* Aborts racing a launching thread: what runs, runs once and in order; nothing hangs. */
enum { RACE_TASKS = 20000 };
static aclrtStream race_stream;
static int race_last = -1; /* the stream's tasks run one after another: a plain int */
static atomic_int race_out_of_order, race_ran;

static void race_fn(void *arg)
{
    int v = (int)(intptr_t)arg;
    if (v <= race_last)
        atomic_fetch_add(&race_out_of_order, 1);
    race_last = v;
    atomic_fetch_add(&race_ran, 1);
}

static void *race_launcher(void *arg)
{
    (void)arg;
    aclrtSetCurrentContext(main_ctx);
    for (int i = 0; i < RACE_TASKS; i++)
        aclrtLaunchHostFunc(race_stream, race_fn, (void *)(intptr_t)i);
    return NULL;
}

TEST(aborts_racing_launches_keep_what_runs_in_order_and_lose_nothing_after_them)
{
    CHECK_OK(aclrtCreateStream(&race_stream));
    race_last = -1;
    atomic_store(&race_out_of_order, 0);
    atomic_store(&race_ran, 0);
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, race_launcher, NULL));
    for (int i = 0; i < 50; i++)
        CHECK_OK(aclrtStreamAbort(race_stream));
    pthread_join(t, NULL);
    CHECK_OK(aclrtSynchronizeStream(race_stream));
    CHECK_EQ(0, atomic_load(&race_out_of_order));
    CHECK(atomic_load(&race_ran) <= RACE_TASKS);
    int before = atomic_load(&race_ran);
    CHECK_OK(aclrtLaunchHostFunc(race_stream, race_fn, (void *)(intptr_t)RACE_TASKS));
    CHECK_OK(aclrtSynchronizeStream(race_stream));
    CHECK_EQ(before + 1, atomic_load(&race_ran)); /* after the last abort, work runs again */
    CHECK_OK(aclrtDestroyStream(race_stream));
}

/*
 * An abort discards what was submitted before it, never a task launched
 * after it returned, even when the executor still acts on the DISCARD it
 * read before the abort cleared it (found by a stress loop: about 1 task in
 * 100,000 was dropped while synchronize reported success).
 */
static atomic_long after_ran;

static void after_fn(void *arg)
{
    (void)arg;
    atomic_fetch_add(&after_ran, 1);
}

TEST(a_task_launched_after_an_abort_returned_always_runs)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    long lost = 0;
    for (long i = 0; i < 100000; i++) {
        long before = atomic_load(&after_ran);
        CHECK_OK(aclrtLaunchHostFunc(s, after_fn, NULL));
        CHECK_OK(aclrtSynchronizeStream(s));
        if (atomic_load(&after_ran) != before + 1)
            lost++;
        CHECK_OK(aclrtStreamAbort(s));
    }
    CHECK_EQ(0, lost);
    CHECK_OK(aclrtDestroyStream(s));
}

/*
 * A soak in small: six threads launch, record, synchronize (stream and
 * device), query and abort at random on 16 streams for a few seconds. Every
 * call must come back (an abort always returns; a synchronize returns
 * success or, overlapping an abort, ACL_ERROR_RT_STREAM_ABORT), each
 * thread's tasks run in its order on every stream, and at the end every
 * stream drains. A watchdog reports who is stuck where instead of letting
 * the case hang (a stream left with an unrun task while an abort waited for
 * it used to stall every thread within seconds).
 */
#define SOAK_THREADS 6
#define SOAK_STREAMS 16
#define SOAK_STALL_S 30 /* no call returning for this long: stuck (not a timing goal: a hang detector) */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SOAK_RUN_NS 2000000000ull
#else
#define SOAK_RUN_NS 4000000000ull
#endif

enum soak_op { SOAK_LAUNCH, SOAK_BURST, SOAK_RECORD, SOAK_SYNC, SOAK_SYNC_DEVICE, SOAK_QUERY, SOAK_ABORT, SOAK_OPS };
static const char *const soak_op_names[SOAK_OPS] = {"launch", "burst", "record", "synchronize stream",
                                                      "synchronize device", "query", "abort"};

static aclrtStream soak_streams[SOAK_STREAMS];
static atomic_long soak_launched[SOAK_STREAMS], soak_ran[SOAK_STREAMS];
/* Written only by the tasks of one stream, which run one at a time and in order. */
static long soak_last[SOAK_STREAMS][SOAK_THREADS];
static atomic_int soak_out_of_order, soak_bad_code, soak_stop;
static atomic_long soak_calls; /* calls that returned, all threads */

struct soak_thread {
    pthread_t thread;
    int index;
    uint64_t rng;
    atomic_int op, stream; /* what it is doing now (the watchdog's report) */
    aclError bad;          /* the first unexpected code it saw */
    long seq;
    aclrtEvent event;
};
static struct soak_thread soak_threads[SOAK_THREADS];

/* A task's argument: its stream, thread and that thread's sequence number, packed. */
static void soak_task(void *arg)
{
    uintptr_t v = (uintptr_t)arg;
    int stream = (int)(v & 0xff), thread = (int)((v >> 8) & 0xff);
    long seq = (long)(v >> 16);
    if (seq <= soak_last[stream][thread])
        atomic_store(&soak_out_of_order, 1);
    soak_last[stream][thread] = seq;
    atomic_fetch_add(&soak_ran[stream], 1);
}

static uint64_t soak_next(struct soak_thread *t)
{
    t->rng ^= t->rng << 13;
    t->rng ^= t->rng >> 7;
    t->rng ^= t->rng << 17;
    return t->rng;
}

static void soak_expect(struct soak_thread *t, aclError rc, aclError also)
{
    if (rc != ACL_SUCCESS && rc != also && t->bad == ACL_SUCCESS) {
        t->bad = rc;
        atomic_store(&soak_bad_code, 1);
    }
}

static void soak_launch(struct soak_thread *t, int si)
{
    uintptr_t arg = (uintptr_t)si | ((uintptr_t)t->index << 8) | ((uintptr_t)++t->seq << 16);
    atomic_fetch_add(&soak_launched[si], 1);
    soak_expect(t, aclrtLaunchHostFunc(soak_streams[si], soak_task, (void *)arg), ACL_SUCCESS);
}

static void *soak_main(void *arg)
{
    struct soak_thread *t = (struct soak_thread *)arg;
    aclrtSetCurrentContext(main_ctx);
    while (!atomic_load(&soak_stop)) {
        uint64_t r = soak_next(t);
        int si = (int)(r % SOAK_STREAMS);
        unsigned pick = (unsigned)((r >> 8) % 100);
        enum soak_op op = pick < 45 ? SOAK_LAUNCH : pick < 55 ? SOAK_BURST : pick < 70 ? SOAK_RECORD
                        : pick < 80 ? SOAK_SYNC : pick < 83 ? SOAK_SYNC_DEVICE : pick < 93 ? SOAK_QUERY : SOAK_ABORT;
        atomic_store(&t->stream, si);
        atomic_store(&t->op, (int)op);
        aclrtStreamStatus st;
        aclrtEventRecordedStatus es;
        switch (op) {
        case SOAK_LAUNCH: soak_launch(t, si); break;
        case SOAK_BURST:
            for (int k = (int)((r >> 16) % 64); k >= 0; k--)
                soak_launch(t, si);
            break;
        case SOAK_RECORD:
            soak_expect(t, aclrtRecordEvent(t->event, soak_streams[si]), ACL_SUCCESS);
            if ((r >> 16) & 1)
                soak_expect(t, aclrtSynchronizeEvent(t->event), ACL_ERROR_RT_STREAM_ABORT);
            else
                soak_expect(t, aclrtQueryEventStatus(t->event, &es), ACL_SUCCESS);
            break;
        case SOAK_SYNC: soak_expect(t, aclrtSynchronizeStream(soak_streams[si]), ACL_ERROR_RT_STREAM_ABORT); break;
        case SOAK_SYNC_DEVICE: soak_expect(t, aclrtSynchronizeDevice(), ACL_ERROR_RT_STREAM_ABORT); break;
        case SOAK_QUERY: soak_expect(t, aclrtStreamQuery(soak_streams[si], &st), ACL_SUCCESS); break;
        case SOAK_ABORT: soak_expect(t, aclrtStreamAbort(soak_streams[si]), ACL_SUCCESS); break;
        default: break;
        }
        atomic_fetch_add(&soak_calls, 1);
    }
    atomic_store(&t->op, -1);
    return NULL;
}

static uint64_t soak_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Stuck: say where everyone is, then leave (the threads inside the runtime cannot be taken back). */
static void soak_report_stall(void)
{
    fprintf(stderr, "FAIL [random_launches_records_synchronizes_and_aborts_never_stall]: no call returned for %d s\n",
            SOAK_STALL_S);
    for (int i = 0; i < SOAK_THREADS; i++) {
        int op = atomic_load(&soak_threads[i].op);
        fprintf(stderr, "  thread %d: %s on stream %d\n", i, op < 0 ? "done" : soak_op_names[op],
                atomic_load(&soak_threads[i].stream));
    }
    for (int i = 0; i < SOAK_STREAMS; i++) {
        aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
        aclrtStreamQuery(soak_streams[i], &st);
        fprintf(stderr, "  stream %2d: %s, %ld launched, %ld ran\n", i,
                st == ACL_STREAM_STATUS_COMPLETE ? "COMPLETE" : "NOT_READY", atomic_load(&soak_launched[i]),
                atomic_load(&soak_ran[i]));
    }
    fflush(stderr);
    _exit(1);
}

TEST(random_launches_records_synchronizes_and_aborts_never_stall)
{
    for (int i = 0; i < SOAK_STREAMS; i++) {
        CHECK_OK(aclrtCreateStream(&soak_streams[i]));
        atomic_store(&soak_launched[i], 0);
        atomic_store(&soak_ran[i], 0);
        for (int j = 0; j < SOAK_THREADS; j++)
            soak_last[i][j] = 0;
    }
    atomic_store(&soak_out_of_order, 0);
    atomic_store(&soak_bad_code, 0);
    atomic_store(&soak_stop, 0);
    atomic_store(&soak_calls, 0);
    uint64_t seed = soak_now_ns();
    for (int i = 0; i < SOAK_THREADS; i++) {
        struct soak_thread *t = &soak_threads[i];
        t->index = i;
        t->rng = (seed + 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1)) | 1;
        t->bad = ACL_SUCCESS;
        t->seq = 0;
        atomic_store(&t->op, -1);
        atomic_store(&t->stream, -1);
        CHECK_OK(aclrtCreateEventExWithFlag(&t->event, ACL_EVENT_SYNC));
    }
    for (int i = 0; i < SOAK_THREADS; i++)
        CHECK_EQ(0, pthread_create(&soak_threads[i].thread, NULL, soak_main, &soak_threads[i]));
    /* The watchdog: poll the count of returned calls (a hang detector, not a synchronization). */
    uint64_t start = soak_now_ns(), moved = start;
    long seen = 0;
    for (;;) {
        struct timespec tick = {0, 20 * 1000 * 1000};
        nanosleep(&tick, NULL);
        uint64_t now = soak_now_ns();
        if (now - start >= SOAK_RUN_NS)
            atomic_store(&soak_stop, 1);
        int running = 0;
        for (int i = 0; i < SOAK_THREADS; i++)
            running += atomic_load(&soak_threads[i].op) >= 0;
        if (atomic_load(&soak_stop) && running == 0)
            break;
        long calls = atomic_load(&soak_calls);
        if (calls != seen) {
            seen = calls;
            moved = now;
        } else if (now - moved > SOAK_STALL_S * 1000000000ull) {
            soak_report_stall();
        }
    }
    for (int i = 0; i < SOAK_THREADS; i++)
        pthread_join(soak_threads[i].thread, NULL);
    for (int i = 0; i < SOAK_THREADS; i++)
        CHECK_OK(soak_threads[i].bad);
    CHECK_EQ(0, atomic_load(&soak_bad_code));
    CHECK_EQ(0, atomic_load(&soak_out_of_order));
    CHECK(atomic_load(&soak_calls) > 0);
    for (int i = 0; i < SOAK_STREAMS; i++) {
        CHECK_OK(aclrtSynchronizeStreamWithTimeout(soak_streams[i], SOAK_STALL_S * 1000));
        aclrtStreamStatus st;
        CHECK_OK(aclrtStreamQuery(soak_streams[i], &st));
        CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
        CHECK(atomic_load(&soak_ran[i]) <= atomic_load(&soak_launched[i])); /* aborts drop, nothing runs twice */
        /* Usable afterwards: a new task runs. */
        long before = atomic_load(&soak_ran[i]);
        uintptr_t arg = (uintptr_t)i | ((uintptr_t)0 << 8) | ((uintptr_t)(soak_threads[0].seq + 1) << 16);
        CHECK_OK(aclrtLaunchHostFunc(soak_streams[i], soak_task, (void *)arg));
        CHECK_OK(aclrtSynchronizeStreamWithTimeout(soak_streams[i], SOAK_STALL_S * 1000));
        CHECK_EQ(before + 1, atomic_load(&soak_ran[i]));
    }
    for (int i = 0; i < SOAK_THREADS; i++)
        CHECK_OK(aclrtDestroyEvent(soak_threads[i].event));
    for (int i = 0; i < SOAK_STREAMS; i++)
        CHECK_OK(aclrtDestroyStream(soak_streams[i]));
}

/* ------------------------------------------------------------------------
 * Stop
 * ------------------------------------------------------------------------ */

TEST(stop_lets_the_running_task_finish_and_keeps_the_queued_ones_unrun)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int count;
    atomic_store(&count, 0);
    struct gate *g = launch_gate(s);
    for (int i = 0; i < 10; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK(gate_wait_entered(g));
    struct control_call c;
    control_start(&c, s, 1);
    CHECK_EQ(ACL_ERROR_RT_TASK_ABORT_STOP, sync_until_not_timeout(s));
    gate_open(g);
    pthread_join(c.thread, NULL);
    CHECK_OK(c.rc);
    CHECK_EQ(1, atomic_load(&g->done));
    /* Stopped: nothing more runs, submissions are accepted, synchronizers do not hang. */
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_EQ(ACL_ERROR_RT_TASK_ABORT_STOP, aclrtSynchronizeStream(s));
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    CHECK_EQ(0, atomic_load(&count));
    /* Abort clears the queue and the stop. */
    CHECK_OK(aclrtStreamAbort(s));
    CHECK_EQ(0, atomic_load(&count));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&count));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(destroying_a_stopped_stream_discards_its_queue_instead_of_waiting)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int count;
    atomic_store(&count, 0);
    CHECK_OK(aclrtStreamStop(s));
    for (int i = 0; i < 10; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(ev, s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtSynchronizeEvent(ev)); /* the discarded work counts as done */
    CHECK_EQ(0, atomic_load(&count));
    CHECK_OK(aclrtDestroyEvent(ev));
}

TEST(calls_that_act_at_once_on_an_idle_stream_are_queued_on_a_stopped_one)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    void *dev;
    CHECK_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(dev, 64, 0, 64));
    uint64_t word = 1; /* the device word, read through a copy */
    aclrtNotify n;
    CHECK_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    CHECK_OK(aclrtStreamStop(s)); /* idle and stopped */
    CHECK_OK(aclrtValueWrite(dev, 5, 0, s));
    CHECK_OK(aclrtRecordNotify(n, s));
    dev_read(&word, dev, sizeof word);
    CHECK_EQ(0, word); /* queued, not written at the call */
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    CHECK_OK(aclrtStreamAbort(s)); /* discards both */
    word = 1;
    dev_read(&word, dev, sizeof word);
    CHECK_EQ(0, word);
    /* The record was discarded: a wait on another stream finds nothing to consume until a new record. */
    aclrtStream w;
    CHECK_OK(aclrtCreateStream(&w));
    CHECK_OK(aclrtRecordNotify(n, s));
    CHECK_OK(aclrtWaitAndResetNotify(n, w, 0));
    CHECK_OK(aclrtSynchronizeStream(w)); /* released by the one record made after the abort */
    CHECK_OK(aclrtValueWrite(dev, 7, 0, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    dev_read(&word, dev, sizeof word);
    CHECK_EQ(7, word);
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtDestroyStream(w));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * State callbacks
 * ------------------------------------------------------------------------ */

#define STATE_CAP 64
static struct {
    aclrtStream stream;
    int state;
    void *args;
} stream_states[STATE_CAP];
static int stream_state_count;
static struct {
    int32_t device;
    int state;
} device_states[STATE_CAP];
static int device_state_count;

static void stream_state_cb(aclrtStream stm, aclrtStreamState state, void *args)
{
    if (stream_state_count < STATE_CAP) {
        stream_states[stream_state_count].stream = stm;
        stream_states[stream_state_count].state = (int)state;
        stream_states[stream_state_count].args = args;
    }
    stream_state_count++;
}

static void device_state_cb(int32_t deviceId, aclrtDeviceState state, void *args)
{
    (void)args;
    if (device_state_count < STATE_CAP) {
        device_states[device_state_count].device = deviceId;
        device_states[device_state_count].state = (int)state;
    }
    device_state_count++;
}

TEST(stream_state_callback_runs_after_create_and_before_destroy)
{
    static int tag;
    stream_state_count = 0;
    CHECK_OK(aclrtRegStreamStateCallback("test", stream_state_cb, &tag));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_EQ(1, stream_state_count);
    CHECK(stream_states[0].stream == s);
    CHECK_EQ(ACL_RT_STREAM_STATE_CREATE_POST, stream_states[0].state);
    CHECK(stream_states[0].args == &tag);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_EQ(2, stream_state_count);
    CHECK(stream_states[1].stream == s);
    CHECK_EQ(ACL_RT_STREAM_STATE_DESTROY_PRE, stream_states[1].state);
    /* Names are unique; a NULL callback unregisters. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRegStreamStateCallback("test", stream_state_cb, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRegStreamStateCallback(NULL, stream_state_cb, NULL));
    CHECK_OK(aclrtRegStreamStateCallback("test", NULL, NULL));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_EQ(2, stream_state_count);
}

TEST(device_state_callbacks_bracket_set_and_reset_and_default_streams_count_as_streams)
{
    device_state_count = 0;
    stream_state_count = 0;
    CHECK_OK(aclrtRegDeviceStateCallback("dev", device_state_cb, NULL));
    CHECK_OK(aclrtRegStreamStateCallback("str", stream_state_cb, NULL));
    CHECK_OK(aclrtSetDevice(1)); /* first set: creates device 1's default stream */
    aclrtStream def1;
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def1));
    CHECK_OK(aclrtResetDevice(1));
    CHECK_EQ(4, device_state_count);
    int want[4] = {ACL_RT_DEVICE_STATE_SET_PRE, ACL_RT_DEVICE_STATE_SET_POST, ACL_RT_DEVICE_STATE_RESET_PRE,
                   ACL_RT_DEVICE_STATE_RESET_POST};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(1, device_states[i].device);
        CHECK_EQ(want[i], device_states[i].state);
    }
    CHECK_EQ(2, stream_state_count);
    CHECK(stream_states[0].stream == def1);
    CHECK_EQ(ACL_RT_STREAM_STATE_CREATE_POST, stream_states[0].state);
    CHECK(stream_states[1].stream == def1);
    CHECK_EQ(ACL_RT_STREAM_STATE_DESTROY_PRE, stream_states[1].state);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRegDeviceStateCallback(NULL, device_state_cb, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRegDeviceStateCallback("", device_state_cb, NULL));
    CHECK_OK(aclrtRegDeviceStateCallback("dev", NULL, NULL));
    CHECK_OK(aclrtRegStreamStateCallback("str", NULL, NULL));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
}

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)
    RUN_CASE(abort_lets_the_running_task_finish_and_discards_the_queued_ones);
    RUN_CASE(abort_releases_a_stream_parked_on_a_wait_that_would_never_end);
    RUN_CASE(abort_returns_with_a_value_wait_on_device_memory_that_never_fires);
    RUN_CASE(abort_of_a_stream_waiting_for_a_block_callback_discards_it_without_waiting_for_the_callback);
    RUN_CASE(abort_bad_input_has_the_documented_codes);
    RUN_CASE(aborts_racing_launches_keep_what_runs_in_order_and_lose_nothing_after_them);
    RUN_CASE(a_task_launched_after_an_abort_returned_always_runs);
    RUN_CASE(random_launches_records_synchronizes_and_aborts_never_stall);
    RUN_CASE(stop_lets_the_running_task_finish_and_keeps_the_queued_ones_unrun);
    RUN_CASE(destroying_a_stopped_stream_discards_its_queue_instead_of_waiting);
    RUN_CASE(calls_that_act_at_once_on_an_idle_stream_are_queued_on_a_stopped_one);
    RUN_CASE(stream_state_callback_runs_after_create_and_before_destroy);
    RUN_CASE(device_state_callbacks_bracket_set_and_reset_and_default_streams_count_as_streams);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("stream_control");
}
