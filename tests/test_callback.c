/*
 * tests/test_callback.c - pins "callbacks" (docs/SEMANTICS.md, Callbacks and
 * host-function threads): report callbacks run
 * in the subscribed thread, exactly once each, in stream order; BLOCK holds
 * the stream and NO_BLOCK does not; process timeouts and subscription
 * errors; host functions served by a subscribed thread; that a blocked
 * callback holds no executor thread; and that aclFinalize drops callbacks
 * nobody processes instead of waiting for them.
 *
 * A "report thread" here is a pthread looping on aclrtProcessReport (or
 * aclrtProcessHostFunc) until told to stop. Ordering is proven by what the
 * callbacks log, never by sleeps.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "probe.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * A report thread
 * ------------------------------------------------------------------------ */

struct server {
    pthread_t thread;
    int host_func; /* serves aclrtProcessHostFunc instead of aclrtProcessReport */
    atomic_int stop;
    atomic_int started;
    atomic_int timeouts; /* process calls that returned ACL_ERROR_RT_REPORT_TIMEOUT */
    atomic_int other;    /* ...that returned anything else but success */
    atomic_int last_other;
};

static int sv_running;
static aclrtContext main_context;

static void *server_main(void *arg)
{
    struct server *sv = (struct server *)arg;
    /* Like a real program's callback thread: it works in the main context (callbacks may call the runtime). */
    aclrtSetCurrentContext(main_context);
    atomic_store(&sv->started, 1);
    while (!atomic_load(&sv->stop)) {
        aclError rc = sv->host_func ? aclrtProcessHostFunc(20) : aclrtProcessReport(20);
        if (rc == ACL_ERROR_RT_REPORT_TIMEOUT)
            atomic_fetch_add(&sv->timeouts, 1);
        else if (rc == ACL_ERROR_RT_THREAD_SUBSCRIBE)
            sched_yield(); /* not subscribed yet, or any more */
        else if (rc != ACL_SUCCESS) {
            atomic_fetch_add(&sv->other, 1);
            atomic_store(&sv->last_other, rc);
        }
    }
    return NULL;
}

static void server_start(struct server *sv, int host_func)
{
    memset(sv, 0, sizeof *sv);
    sv->host_func = host_func;
    CHECK_EQ(0, pthread_create(&sv->thread, NULL, server_main, sv));
    sv_running = 1;
}

static void server_stop(struct server *sv)
{
    atomic_store(&sv->stop, 1);
    pthread_join(sv->thread, NULL);
    sv_running = 0;
}

static uint64_t tid_of(pthread_t t)
{
    return (uint64_t)t;
}

/* ------------------------------------------------------------------------
 * What callbacks record
 * ------------------------------------------------------------------------ */

#define LOG_CAP 4096
static int log_value[LOG_CAP];
static pthread_t log_thread[LOG_CAP];
static int log_len;

static void log_reset(void)
{
    log_len = 0;
}

/* Callbacks of one stream run one after another in one thread; the harness reads after a synchronize. */
static void log_cb(void *arg)
{
    if (log_len < LOG_CAP) {
        log_value[log_len] = (int)(intptr_t)arg;
        log_thread[log_len] = pthread_self();
    }
    log_len++;
}

static void count_fn(void *arg)
{
    (*(int *)arg)++;
}

static aclrtStream stream;
static struct server sv;

static void case_cleanup(void)
{
    gates_open_all();
    if (sv_running) { /* a case that failed half way left its report thread running */
        atomic_store(&sv.stop, 1);
        pthread_join(sv.thread, NULL);
        sv_running = 0;
    }
}

/* ------------------------------------------------------------------------
 * Report callbacks
 * ------------------------------------------------------------------------ */

TEST(callbacks_run_in_the_subscribed_thread_once_each_in_stream_order)
{
    CHECK_OK(aclrtCreateStream(&stream));
    server_start(&sv, 0);
    CHECK_OK(aclrtSubscribeReport(tid_of(sv.thread), stream));
    log_reset();
    const int n = 300;
    for (int i = 0; i < n; i++) {
        /* The last one blocks: once the stream is done, every earlier one has run (one FIFO per thread). */
        aclrtCallbackBlockType type = (i % 3 == 0 || i == n - 1) ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK;
        CHECK_OK(aclrtLaunchCallback(log_cb, (void *)(intptr_t)i, type, stream));
    }
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_EQ(n, log_len);
    for (int i = 0; i < n; i++) {
        CHECK_EQ(i, log_value[i]);
        CHECK(pthread_equal(log_thread[i], sv.thread));
    }
    CHECK_OK(aclrtUnSubscribeReport(tid_of(sv.thread), stream));
    server_stop(&sv);
    CHECK_EQ(0, atomic_load(&sv.other));
    CHECK_OK(aclrtDestroyStream(stream));
}

/* A host function that records that it ran; a callback that waits (bounded) for it. */
static atomic_int host_ran;
static atomic_int cb_saw_host; /* 1: the callback saw the host function finish first; -1: it gave up */

static void mark_host_fn(void *arg)
{
    (void)arg;
    atomic_store(&host_ran, 1);
}

static void wait_for_host_cb(void *arg)
{
    (void)arg;
    for (long i = 0; i < 20000000L; i++) {
        if (atomic_load(&host_ran)) {
            atomic_store(&cb_saw_host, 1);
            return;
        }
        sched_yield();
    }
    atomic_store(&cb_saw_host, -1);
}

static void check_host_ran_cb(void *arg)
{
    (void)arg;
    atomic_store(&cb_saw_host, atomic_load(&host_ran) ? 1 : 2); /* 2: the stream waited for us */
}

TEST(block_callback_holds_the_streams_later_tasks_until_it_returns)
{
    CHECK_OK(aclrtCreateStream(&stream));
    server_start(&sv, 0);
    CHECK_OK(aclrtSubscribeReport(tid_of(sv.thread), stream));
    atomic_store(&host_ran, 0);
    atomic_store(&cb_saw_host, 0);
    CHECK_OK(aclrtLaunchCallback(check_host_ran_cb, NULL, ACL_CALLBACK_BLOCK, stream));
    CHECK_OK(aclrtLaunchHostFunc(stream, mark_host_fn, NULL));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_EQ(2, atomic_load(&cb_saw_host)); /* the host function had not run when the callback did */
    CHECK_EQ(1, atomic_load(&host_ran));
    CHECK_OK(aclrtUnSubscribeReport(tid_of(sv.thread), stream));
    server_stop(&sv);
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(no_block_callback_lets_the_streams_later_tasks_run_before_it_returns)
{
    CHECK_OK(aclrtCreateStream(&stream));
    server_start(&sv, 0);
    CHECK_OK(aclrtSubscribeReport(tid_of(sv.thread), stream));
    atomic_store(&host_ran, 0);
    atomic_store(&cb_saw_host, 0);
    /* The callback returns only after the next task has run: that is possible only if NO_BLOCK does not hold it. */
    CHECK_OK(aclrtLaunchCallback(wait_for_host_cb, NULL, ACL_CALLBACK_NO_BLOCK, stream));
    CHECK_OK(aclrtLaunchHostFunc(stream, mark_host_fn, NULL));
    CHECK_OK(aclrtLaunchCallback(log_cb, NULL, ACL_CALLBACK_BLOCK, stream)); /* after wait_for_host_cb in the FIFO */
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_EQ(1, atomic_load(&cb_saw_host));
    CHECK_OK(aclrtUnSubscribeReport(tid_of(sv.thread), stream));
    server_stop(&sv);
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(process_report_with_nothing_queued_returns_report_timeout)
{
    CHECK_OK(aclrtCreateStream(&stream));
    CHECK_OK(aclrtSubscribeReport(tid_of(pthread_self()), stream));
    CHECK_EQ(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessReport(1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtProcessReport");
    /* A callback launched meanwhile is run by the next call, in this thread. */
    log_reset();
    CHECK_OK(aclrtLaunchCallback(log_cb, (void *)7, ACL_CALLBACK_NO_BLOCK, stream));
    CHECK_OK(aclrtProcessReport(-1));
    CHECK_EQ(1, log_len);
    CHECK_EQ(7, log_value[0]);
    CHECK(pthread_equal(log_thread[0], pthread_self()));
    CHECK_OK(aclrtUnSubscribeReport(tid_of(pthread_self()), stream));
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(process_report_rejects_zero_and_timeouts_below_minus_one)
{
    CHECK_OK(aclrtCreateStream(&stream));
    CHECK_OK(aclrtSubscribeReport(tid_of(pthread_self()), stream));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtProcessReport(-2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtProcessHostFunc(0));
    CHECK_OK(aclrtUnSubscribeReport(tid_of(pthread_self()), stream));
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(process_report_from_a_thread_that_is_not_subscribed_is_thread_subscribe)
{
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(1));
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessHostFunc(1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not subscribed");
}

TEST(launch_callback_bad_input_is_refused_and_nothing_is_queued)
{
    CHECK_OK(aclrtCreateStream(&stream));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtLaunchCallback(log_cb, NULL, ACL_CALLBACK_BLOCK, stream));
    CHECK_OK(aclrtSubscribeReport(tid_of(pthread_self()), stream));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, stream));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchCallback(log_cb, NULL, (aclrtCallbackBlockType)2, stream));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchCallback(log_cb, NULL, ACL_CALLBACK_BLOCK, (aclrtStream)0x1234));
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(stream, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_EQ(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessReport(1)); /* nothing was handed over */
    CHECK_OK(aclrtUnSubscribeReport(tid_of(pthread_self()), stream));
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(subscription_errors_have_the_documented_codes)
{
    aclrtStream other;
    CHECK_OK(aclrtCreateStream(&stream));
    CHECK_OK(aclrtCreateStream(&other));
    uint64_t me = tid_of(pthread_self());
    CHECK_OK(aclrtSubscribeReport(me, stream));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport(me, stream));      /* twice */
    CHECK_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeReport(me + 1, stream));  /* a second thread */
    CHECK_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtUnSubscribeReport(me, other));     /* not bound to it */
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtUnSubscribeReport(me + 1, stream)); /* unknown thread */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSubscribeReport(me, (aclrtStream)0x99));
    /* One thread serves many streams. */
    CHECK_OK(aclrtSubscribeReport(me, other));
    CHECK_OK(aclrtUnSubscribeReport(me, other));
    CHECK_OK(aclrtUnSubscribeReport(me, stream));
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtUnSubscribeReport(me, stream)); /* no longer subscribed */
    /* Host-function subscriptions need a real stream. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSubscribeHostFunc(me, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtUnSubscribeHostFunc(me, NULL));
    CHECK_OK(aclrtDestroyStream(other));
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(a_thread_serves_streams_of_one_device_only)
{
    uint64_t me = tid_of(pthread_self());
    CHECK_OK(aclrtSubscribeReport(me, NULL)); /* NULL: the default stream of device 0 */
    CHECK_OK(aclrtSetDevice(1));
    aclrtStream on1;
    CHECK_OK(aclrtCreateStream(&on1));
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtSubscribeReport(me, on1));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtUnSubscribeReport(me, NULL));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtSubscribeReport(me, on1)); /* free again once it serves nothing */
    CHECK_OK(aclrtUnSubscribeReport(me, on1));
    CHECK_OK(aclrtDestroyStream(on1));
    CHECK_OK(aclrtResetDevice(1));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclrtSetDevice(0));
}

TEST(callbacks_handed_over_before_unsubscribe_still_run_then_the_thread_is_unsubscribed)
{
    CHECK_OK(aclrtCreateStream(&stream));
    uint64_t me = tid_of(pthread_self());
    CHECK_OK(aclrtSubscribeReport(me, stream));
    log_reset();
    CHECK_OK(aclrtLaunchCallback(log_cb, (void *)1, ACL_CALLBACK_NO_BLOCK, stream));
    CHECK_OK(aclrtSynchronizeStream(stream)); /* the NO_BLOCK task is done: handed over, not run */
    CHECK_EQ(0, log_len);
    CHECK_OK(aclrtUnSubscribeReport(me, stream));
    CHECK_OK(aclrtProcessReport(-1));
    CHECK_EQ(1, log_len);
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(1));
    CHECK_OK(aclrtDestroyStream(stream));
}

/* A callback calling back into the runtime: launch work on another stream and record an event. */
static aclrtStream cb_other;
static aclrtEvent cb_event;
static atomic_int cb_calls_rc;

static void reentrant_cb(void *arg)
{
    (void)arg;
    int rc = aclrtLaunchHostFunc(cb_other, mark_host_fn, NULL);
    if (rc == ACL_SUCCESS)
        rc = aclrtRecordEvent(cb_event, cb_other);
    atomic_store(&cb_calls_rc, rc);
}

TEST(a_callback_may_launch_and_record_without_deadlocking_the_runtime)
{
    CHECK_OK(aclrtCreateStream(&stream));
    CHECK_OK(aclrtCreateStream(&cb_other));
    CHECK_OK(aclrtCreateEventExWithFlag(&cb_event, ACL_EVENT_SYNC));
    server_start(&sv, 0);
    CHECK_OK(aclrtSubscribeReport(tid_of(sv.thread), stream));
    atomic_store(&host_ran, 0);
    atomic_store(&cb_calls_rc, -1);
    CHECK_OK(aclrtLaunchCallback(reentrant_cb, NULL, ACL_CALLBACK_BLOCK, stream));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_EQ(ACL_SUCCESS, atomic_load(&cb_calls_rc));
    CHECK_OK(aclrtSynchronizeEvent(cb_event));
    CHECK_EQ(1, atomic_load(&host_ran));
    CHECK_OK(aclrtUnSubscribeReport(tid_of(sv.thread), stream));
    server_stop(&sv);
    CHECK_OK(aclrtDestroyEvent(cb_event));
    CHECK_OK(aclrtDestroyStream(cb_other));
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(destroying_a_subscribed_stream_unsubscribes_it)
{
    CHECK_OK(aclrtCreateStream(&stream));
    uint64_t me = tid_of(pthread_self());
    CHECK_OK(aclrtSubscribeReport(me, stream));
    CHECK_OK(aclrtDestroyStream(stream));
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(1));
}

/* ------------------------------------------------------------------------
 * Host functions
 * ------------------------------------------------------------------------ */

TEST(host_functions_run_in_the_subscribed_host_function_thread_in_stream_order)
{
    CHECK_OK(aclrtCreateStream(&stream));
    server_start(&sv, 1);
    CHECK_OK(aclrtSubscribeHostFunc(tid_of(sv.thread), stream));
    log_reset();
    for (int i = 0; i < 100; i++)
        CHECK_OK(aclrtLaunchHostFunc(stream, log_cb, (void *)(intptr_t)i));
    CHECK_OK(aclrtSynchronizeStream(stream)); /* host functions always block: all have run */
    CHECK_EQ(100, log_len);
    for (int i = 0; i < 100; i++) {
        CHECK_EQ(i, log_value[i]);
        CHECK(pthread_equal(log_thread[i], sv.thread));
    }
    /* Unsubscribed: back on the runtime's threads. */
    CHECK_OK(aclrtUnSubscribeHostFunc(tid_of(sv.thread), stream));
    log_reset();
    CHECK_OK(aclrtLaunchHostFunc(stream, log_cb, (void *)5));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_EQ(1, log_len);
    CHECK(!pthread_equal(log_thread[0], sv.thread));
    CHECK(!pthread_equal(log_thread[0], pthread_self()));
    server_stop(&sv);
    CHECK_EQ(0, atomic_load(&sv.other));
    CHECK_OK(aclrtDestroyStream(stream));
}

TEST(host_function_thread_subscription_errors)
{
    CHECK_OK(aclrtCreateStream(&stream));
    uint64_t me = tid_of(pthread_self());
    CHECK_OK(aclrtSubscribeHostFunc(me, stream));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SUBSCRIBE, aclrtSubscribeHostFunc(me + 1, stream));
    CHECK_EQ(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessHostFunc(1));
    /* A report subscription is separate: this thread is not a report thread. */
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(1));
    CHECK_OK(aclrtUnSubscribeHostFunc(me, stream));
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtUnSubscribeHostFunc(me, stream));
    CHECK_OK(aclrtDestroyStream(stream));
}

/* ------------------------------------------------------------------------
 * Blocked callbacks hold no executor (2 executors, 4 streams blocked)
 * ------------------------------------------------------------------------ */

TEST(streams_waiting_for_block_callbacks_hold_no_executor_thread)
{
    enum { N = 4 };
    aclrtStream blocked[N], free_stream;
    uint64_t me = tid_of(pthread_self());
    for (int i = 0; i < N; i++) {
        CHECK_OK(aclrtCreateStream(&blocked[i]));
        CHECK_OK(aclrtSubscribeReport(me, blocked[i]));
        CHECK_OK(aclrtLaunchCallback(log_cb, (void *)(intptr_t)i, ACL_CALLBACK_BLOCK, blocked[i]));
        CHECK_OK(aclrtLaunchHostFunc(blocked[i], mark_host_fn, NULL));
    }
    CHECK_OK(aclrtCreateStream(&free_stream));
    /* Nobody processes the callbacks yet; 4 streams wait on them; 2 executors: the free stream still runs. */
    atomic_store(&host_ran, 0);
    int count = 0;
    for (int i = 0; i < 50; i++)
        CHECK_OK(aclrtLaunchHostFunc(free_stream, count_fn, &count));
    CHECK_OK(aclrtSynchronizeStream(free_stream));
    CHECK_EQ(50, count);
    CHECK_EQ(0, atomic_load(&host_ran)); /* every blocked stream is still held by its callback */
    log_reset();
    for (int done = 0; done < N;) {
        CHECK_OK(aclrtProcessReport(1000));
        done = log_len;
    }
    for (int i = 0; i < N; i++) {
        CHECK_OK(aclrtSynchronizeStream(blocked[i]));
        CHECK_OK(aclrtUnSubscribeReport(me, blocked[i]));
        CHECK_OK(aclrtDestroyStream(blocked[i]));
    }
    CHECK_EQ(1, atomic_load(&host_ran));
    CHECK_OK(aclrtDestroyStream(free_stream));
}

/* ------------------------------------------------------------------------
 * Concurrency: several launching threads, streams and report threads
 * ------------------------------------------------------------------------ */

enum { CC_STREAMS = 4, CC_PER_STREAM = 1500 };
static aclrtStream cc_streams[CC_STREAMS];
static int cc_next[CC_STREAMS];       /* per stream: the index its next callback must carry */
static atomic_int cc_out_of_order;
static pthread_t cc_served_by[CC_STREAMS];
static atomic_int cc_wrong_thread;

static void cc_cb(void *arg)
{
    intptr_t v = (intptr_t)arg;
    int which = (int)(v / CC_PER_STREAM), index = (int)(v % CC_PER_STREAM);
    if (cc_next[which] != index) /* a stream's callbacks run one after another: plain ints suffice */
        atomic_fetch_add(&cc_out_of_order, 1);
    cc_next[which] = index + 1;
    if (!pthread_equal(pthread_self(), cc_served_by[which]))
        atomic_fetch_add(&cc_wrong_thread, 1);
}

static void *cc_launcher(void *arg)
{
    int which = (int)(intptr_t)arg;
    aclrtSetCurrentContext(main_context);
    for (int i = 0; i < CC_PER_STREAM; i++) {
        aclrtCallbackBlockType type = (i % 7 == 0 || i == CC_PER_STREAM - 1) ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK;
        if (aclrtLaunchCallback(cc_cb, (void *)(intptr_t)(which * CC_PER_STREAM + i), type, cc_streams[which]) !=
            ACL_SUCCESS)
            atomic_fetch_add(&cc_out_of_order, 1000000);
    }
    return NULL;
}

TEST(callbacks_from_many_threads_and_streams_each_run_once_in_order_in_their_thread)
{
    struct server two[2];
    for (int k = 0; k < 2; k++) {
        memset(&two[k], 0, sizeof two[k]);
        CHECK_EQ(0, pthread_create(&two[k].thread, NULL, server_main, &two[k]));
    }
    for (int i = 0; i < CC_STREAMS; i++) {
        CHECK_OK(aclrtCreateStream(&cc_streams[i]));
        cc_next[i] = 0;
        cc_served_by[i] = two[i % 2].thread;
        CHECK_OK(aclrtSubscribeReport(tid_of(cc_served_by[i]), cc_streams[i]));
    }
    atomic_store(&cc_out_of_order, 0);
    atomic_store(&cc_wrong_thread, 0);
    pthread_t launchers[CC_STREAMS];
    for (int i = 0; i < CC_STREAMS; i++)
        CHECK_EQ(0, pthread_create(&launchers[i], NULL, cc_launcher, (void *)(intptr_t)i));
    for (int i = 0; i < CC_STREAMS; i++)
        pthread_join(launchers[i], NULL);
    for (int i = 0; i < CC_STREAMS; i++)
        CHECK_OK(aclrtSynchronizeStream(cc_streams[i])); /* the last callback blocks: all have run */
    for (int k = 0; k < 2; k++) {
        atomic_store(&two[k].stop, 1);
        pthread_join(two[k].thread, NULL);
    }
    CHECK_EQ(0, atomic_load(&cc_out_of_order));
    CHECK_EQ(0, atomic_load(&cc_wrong_thread));
    for (int i = 0; i < CC_STREAMS; i++) {
        CHECK_EQ(CC_PER_STREAM, cc_next[i]);
        CHECK_OK(aclrtUnSubscribeReport(tid_of(cc_served_by[i]), cc_streams[i]));
        CHECK_OK(aclrtDestroyStream(cc_streams[i]));
    }
}

/* ------------------------------------------------------------------------
 * aclFinalize
 * ------------------------------------------------------------------------ */

static atomic_int fin_ran;      /* callbacks and host functions that ran (none should) */
static atomic_int fin_returned; /* aclFinalize returned */
static aclError fin_rc;
static struct gate *fin_gate;

static void fin_count(void *arg)
{
    (void)arg;
    atomic_fetch_add(&fin_ran, 1);
}

/* Finalize destroys the streams; the first destroy opens the gate that held a callback back. */
static void fin_open_gate(aclrtStream which, aclrtStreamState state, void *args)
{
    (void)which;
    (void)args;
    if (state == ACL_RT_STREAM_STATE_DESTROY_PRE)
        gate_open(fin_gate);
}

/* A host kernel runs on the runtime's threads even where host functions go to a host-function thread. */
static aclError fin_kernel_probe(uint32_t block, uint32_t blocks, void *args)
{
    (void)block;
    (void)blocks;
    atomic_store(&((struct probe *)args)->ran, 1);
    return ACL_SUCCESS;
}

static void *fin_main(void *arg)
{
    (void)arg;
    fin_rc = aclFinalize();
    atomic_store(&fin_returned, 1);
    return NULL;
}

/* Last: the calling thread serves these streams but never processes; finalize must not wait for it. */
TEST(finalize_drops_callbacks_nobody_processes_and_the_streams_go_on)
{
    static struct probe after_queued, after_late, after_host_func;
    aclrtStream queued = NULL, late = NULL, host_func = NULL;
    CHECK_OK(aclrtCreateStream(&queued));
    CHECK_OK(aclrtCreateStream(&late));
    CHECK_OK(aclrtCreateStream(&host_func));
    uint64_t me = tid_of(pthread_self());
    CHECK_OK(aclrtSubscribeReport(me, queued));
    CHECK_OK(aclrtSubscribeReport(me, late));
    CHECK_OK(aclrtSubscribeHostFunc(me, host_func));
    /* Handed over before finalize begins (most likely: nothing holds it back). */
    CHECK_OK(aclrtLaunchCallback(fin_count, NULL, ACL_CALLBACK_BLOCK, queued));
    launch_probe(queued, &after_queued, NULL);
    CHECK_OK(aclrtLaunchHostFunc(host_func, fin_count, NULL));
    probe_init(&after_host_func, NULL);
    CHECK_OK(aclrtxLaunchHostKernel(host_func, 1, fin_kernel_probe, &after_host_func));
    /* Reached only while finalize runs: a gate holds it back until finalize destroys the first stream. */
    fin_gate = launch_gate(late);
    CHECK_OK(aclrtLaunchCallback(fin_count, NULL, ACL_CALLBACK_BLOCK, late));
    launch_probe(late, &after_late, NULL);
    CHECK_OK(aclrtRegStreamStateCallback("fin", fin_open_gate, NULL));
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, fin_main, NULL));
    if (!eventually(&fin_returned)) { /* it waits for this thread to process: it never returns, nor could we */
        fprintf(stderr, "FAIL [%s]: aclFinalize did not return while callbacks waited for a thread that never "
                        "processes\n", check_case_name);
        _exit(1);
    }
    pthread_join(t, NULL);
    CHECK_OK(fin_rc);
    CHECK_EQ(0, atomic_load(&fin_ran)); /* dropped, not run */
    CHECK_EQ(1, atomic_load(&after_queued.ran));
    CHECK_EQ(1, atomic_load(&after_late.ran));
    CHECK_EQ(1, atomic_load(&after_host_func.ran));
    CHECK_EQ(ACL_ERROR_RT_THREAD_SUBSCRIBE, aclrtProcessReport(1)); /* nothing left for this thread */
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&main_context));
}

/* ------------------------------------------------------------------------ */

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    setenv("ACLRT_EXECUTORS", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)
    RUN_CASE(callbacks_run_in_the_subscribed_thread_once_each_in_stream_order);
    RUN_CASE(block_callback_holds_the_streams_later_tasks_until_it_returns);
    RUN_CASE(no_block_callback_lets_the_streams_later_tasks_run_before_it_returns);
    RUN_CASE(process_report_with_nothing_queued_returns_report_timeout);
    RUN_CASE(process_report_rejects_zero_and_timeouts_below_minus_one);
    RUN_CASE(process_report_from_a_thread_that_is_not_subscribed_is_thread_subscribe);
    RUN_CASE(launch_callback_bad_input_is_refused_and_nothing_is_queued);
    RUN_CASE(subscription_errors_have_the_documented_codes);
    RUN_CASE(a_thread_serves_streams_of_one_device_only);
    RUN_CASE(callbacks_handed_over_before_unsubscribe_still_run_then_the_thread_is_unsubscribed);
    RUN_CASE(a_callback_may_launch_and_record_without_deadlocking_the_runtime);
    RUN_CASE(destroying_a_subscribed_stream_unsubscribes_it);
    RUN_CASE(host_functions_run_in_the_subscribed_host_function_thread_in_stream_order);
    RUN_CASE(host_function_thread_subscription_errors);
    RUN_CASE(streams_waiting_for_block_callbacks_hold_no_executor_thread);
    RUN_CASE(callbacks_from_many_threads_and_streams_each_run_once_in_order_in_their_thread);
    RUN_CASE(finalize_drops_callbacks_nobody_processes_and_the_streams_go_on);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("callback");
}
