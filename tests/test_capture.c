/*
 * tests/test_capture.c - pins capture and replay (docs/SEMANTICS.md,
 * "Capture and replay"):
 *
 *   - work submitted to a capturing stream is recorded, not run; a replay
 *     (aclmdlRIExecuteAsync) runs it, in capture order, every time, and in
 *     order with the stream's other work;
 *   - aclmdlRIExecute returns when the replay is done, or at its timeout;
 *   - aclmdlRIDestroy lets a pending replay finish;
 *   - a blocking step (a host function served by a subscribed thread)
 *     parks the replay and resumes it;
 *   - a failing step ends the replay with its code;
 *   - the capture's rules: no synchronize, query or destroy of a capturing
 *     stream; a call that cannot be captured invalidates the capture; the
 *     capture's status and model as aclmdlRICaptureGetInfo reports them;
 *     the thread that may end it; bad input gets its documented code and a
 *     message;
 *   - a model built explicitly (aclmdlRIBuildBegin, BindStream, EndTask,
 *     BuildEnd): the bound streams' tasks run only when it executes, in
 *     order, every time; an unbound stream works as before; bad input and
 *     calls in the wrong order get their codes; labels: a switch step jumps,
 *     at each execution, to the label its index in memory picks;
 *   - task groups: an update (aclmdlRICaptureTaskUpdateBegin .. End)
 *     replaces a group's tasks for the replays submitted after it, never
 *     for earlier ones; bad input and mismatched updates get their codes;
 *   - a model's streams and tasks: which streams, which tasks on each, in
 *     which order, of which type; handles that die with the model;
 *   - conditional tasks: IF, WHILE and SWITCH run the branch their word
 *     picks at each replay, from the default when asked; nested branches;
 *     branches go with their model; bad input and branches not captured;
 *   - destroy callbacks run once, after the model's last replay;
 *   - a task's parameters read, changed and disabled, applied by
 *     aclmdlRIUpdate to later replays; faulty models;
 *   - a model described: the trace file and the printed lines.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>
#include <stdint.h>
#include <string.h>

static aclrtContext main_ctx;

/* A log of host functions, in the order they ran. */
#define LOG_CAP 4096
static atomic_int log_len;
static int log_val[LOG_CAP];

static void log_reset(void)
{
    atomic_store(&log_len, 0);
}

static void log_fn(void *arg)
{
    int i = atomic_fetch_add(&log_len, 1);
    if (i < LOG_CAP)
        log_val[i] = (int)(intptr_t)arg;
}

#define LOG(v) ((void *)(intptr_t)(v))

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    return s;
}

/* Capture `n` logging host functions (values base .. base+n-1) on s into a model. */
static aclmdlRI capture_log(aclrtStream s, int base, int n)
{
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    for (int i = 0; i < n; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(base + i)));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK(m != NULL);
    return m;
}

TEST(captured_work_does_not_run_at_capture_and_each_replay_runs_it_in_order)
{
    log_reset();
    aclrtStream s = new_stream();
    aclmdlRI m = capture_log(s, 10, 5);
    /* A task submitted after the capture runs after anything the capture let through to the ring. */
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(99)));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(99, log_val[0]);
    for (int r = 0; r < 3; r++)
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(16, atomic_load(&log_len));
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 5; i++)
            CHECK_EQ(10 + i, log_val[1 + r * 5 + i]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(replay_orders_with_the_work_before_and_after_it_on_the_stream)
{
    log_reset();
    aclrtStream s = new_stream();
    aclmdlRI m = capture_log(s, 1, 2);
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(0)));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(3)));
    CHECK(gate_wait_entered(g));
    CHECK_EQ(0, atomic_load(&log_len)); /* the replay waits behind the gate */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(4, atomic_load(&log_len));
    for (int i = 0; i < 4; i++)
        CHECK_EQ(i, log_val[i]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

static atomic_int kernel_sum;

static aclError sum_kernel(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)numBlocks;
    atomic_fetch_add(&kernel_sum, (int)blockIdx + (int)(intptr_t)args);
    return ACL_SUCCESS;
}

TEST(copies_memsets_and_host_kernels_are_replayed_with_their_arguments)
{
    atomic_store(&kernel_sum, 0);
    aclrtStream s = new_stream();
    unsigned char *src = NULL, *dst = NULL;
    CHECK_OK(aclrtMallocHost((void **)&src, 64));
    CHECK_OK(aclrtMallocHost((void **)&dst, 64));
    memset(src, 0, 64);
    memset(dst, 0, 64);
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclrtMemsetAsync(src, 64, 7, 64, s));
    CHECK_OK(aclrtMemcpyAsync(dst, 64, src, 64, ACL_MEMCPY_HOST_TO_HOST, s));
    CHECK_OK(aclrtxLaunchHostKernel(s, 4, sum_kernel, (void *)(intptr_t)10)); /* 10+11+12+13 */
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, dst[0]);
    CHECK_EQ(0, atomic_load(&kernel_sum));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    for (int i = 0; i < 64; i++)
        CHECK_EQ(7, dst[i]);
    CHECK_EQ(46, atomic_load(&kernel_sum));
    memset(dst, 0, 64);
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(7, dst[63]);
    CHECK_EQ(92, atomic_load(&kernel_sum));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtFreeHost(src));
    CHECK_OK(aclrtFreeHost(dst));
    CHECK_OK(aclrtDestroyStream(s));
}

/* As tests/kernels/test_kernels.c's count_runs reads them. */
struct count_args {
    atomic_int *n;
};

/*
 * Load the test kernels and their count_runs function. False: the backend
 * is a real GPU's, whose driver loads no host shared objects (skip).
 */
static bool load_count_runs(aclrtBinHandle *bin, aclrtFuncHandle *f)
{
    aclError rc = aclrtBinaryLoadFromFile(ACLRT_TEST_KERNEL_DIR "/libtest_kernels.so", NULL, bin);
    if (rc != ACL_SUCCESS && strcmp(aclrtxGetBackendName(), "cuda") == 0)
        return false;
    CHECK_OK(rc);
    CHECK_OK(aclrtBinaryGetFunction(*bin, "count_runs", f));
    return true;
}

TEST(a_kernel_replays_with_the_arguments_copied_at_capture_and_outlives_its_unload)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    if (!load_count_runs(&bin, &f))
        return; /* a real GPU's driver loads no host shared objects */
    aclrtStream s = new_stream();
    atomic_int n = 0, other = 0;
    struct count_args a = {&n};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 3, s, NULL, &a, sizeof a, NULL, 0));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    a.n = &other; /* the launch copied its arguments */
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(6, atomic_load(&n));
    CHECK_OK(aclrtBinaryUnLoad(bin)); /* the model keeps its code */
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(9, atomic_load(&n));
    CHECK_EQ(0, atomic_load(&other));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(execute_returns_when_the_replay_is_done)
{
    log_reset();
    aclrtStream s = new_stream();
    aclmdlRI m = capture_log(s, 5, 3);
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(3, atomic_load(&log_len));
    CHECK_EQ(7, log_val[2]);
    CHECK_OK(aclmdlRIExecute(m, 60000));
    CHECK_EQ(6, atomic_load(&log_len));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(execute_returns_the_sync_timeout_when_the_replay_is_not_done_in_time)
{
    aclrtStream s = new_stream();
    struct gate *g = new_gate();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclmdlRIExecute(m, 20));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "did not finish within 20 ms");
    CHECK(gate_wait_entered(g));
    CHECK_EQ(0, atomic_load(&g->done));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&g->done));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(destroy_lets_a_pending_replay_finish_and_the_handle_dies)
{
    log_reset();
    aclrtStream s = new_stream();
    aclmdlRI m = capture_log(s, 1, 4);
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(m, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a live model");
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(m));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(8, atomic_load(&log_len));
    CHECK_EQ(4, log_val[7]);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(one_model_replays_on_two_streams_at_once)
{
    log_reset();
    aclrtStream a = new_stream(), b = new_stream();
    aclmdlRI m = capture_log(a, 0, 10);
    for (int r = 0; r < 20; r++) {
        CHECK_OK(aclmdlRIExecuteAsync(m, a));
        CHECK_OK(aclmdlRIExecuteAsync(m, b));
    }
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(400, atomic_load(&log_len));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* A host-function thread serving a stream: a replay's host functions block on it and resume. */
static atomic_int serve_stop;
static aclrtContext serve_ctx;

static void *serve_host_funcs(void *arg)
{
    (void)arg;
    aclrtSetCurrentContext(serve_ctx);
    while (!atomic_load(&serve_stop))
        aclrtProcessHostFunc(10);
    return NULL;
}

TEST(replay_of_host_functions_served_by_a_subscribed_thread_blocks_and_resumes)
{
    log_reset();
    atomic_store(&serve_stop, 0);
    serve_ctx = main_ctx;
    aclrtStream s = new_stream();
    pthread_t th;
    CHECK_EQ(0, pthread_create(&th, NULL, serve_host_funcs, NULL));
    CHECK_OK(aclrtSubscribeHostFunc((uint64_t)th, s));
    aclmdlRI m = capture_log(s, 0, 6);
    for (int r = 0; r < 3; r++)
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(18, atomic_load(&log_len));
    for (int i = 0; i < 18; i++)
        CHECK_EQ(i % 6, log_val[i]);
    CHECK_OK(aclrtUnSubscribeHostFunc((uint64_t)th, s));
    atomic_store(&serve_stop, 1);
    pthread_join(th, NULL);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

static aclError failing_kernel(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx, (void)numBlocks, (void)args;
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

TEST(a_failing_step_ends_the_replay_with_its_code)
{
    log_reset();
    aclrtStream s = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, failing_kernel, NULL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(3)));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&log_len));
    CHECK_EQ(1, log_val[0]);
    CHECK_EQ(3, log_val[1]); /* the replay stopped; the stream went on */
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(get_info_reports_none_active_and_the_model_end_returns)
{
    aclrtStream s = new_stream();
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
    aclmdlRI during = (aclmdlRI)1;
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, &during));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
    CHECK(during == NULL);
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, &during));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
    CHECK(during != NULL);
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, NULL)); /* one output is enough */
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK(m == during);
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, &during));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
    CHECK(during == NULL);
    CHECK_OK(aclmdlRIExecute(m, -1)); /* an empty model replays as nothing */
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_capturing_stream_is_not_synchronized_queried_or_destroyed)
{
    log_reset();
    aclrtStream s = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "capturing");
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStreamWithTimeout(s, 100));
    aclrtStreamStatus status;
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtStreamQuery(s, &status));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtDestroyStream(s));
    aclmdlRICaptureStatus st;
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, NULL));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st); /* refused, not invalidated */
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_call_that_cannot_be_captured_invalidates_the_capture)
{
    log_reset();
    aclrtStream s = new_stream(), other = new_stream();
    aclrtEvent ev, sync_ev;
    CHECK_OK(aclrtCreateEvent(&ev));
    CHECK_OK(aclrtCreateEventWithFlag(&sync_ev, ACL_EVENT_SYNC));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtResetEvent(sync_ev, s)); /* on an idle stream, too */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cannot be captured");
    aclmdlRICaptureStatus st;
    aclmdlRI during = NULL;
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, &during));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED, st);
    CHECK(during != NULL);
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    aclmdlRI m = (aclmdlRI)1;
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &m));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "invalidated");
    CHECK(m == NULL);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(during, s)); /* the model went with it */
    /* A wait for work outside the capture is refused the same way. */
    CHECK_OK(aclrtRecordEvent(ev, other));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtStreamWaitEvent(s, ev));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &m));
    /* The stream works as before. */
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(3)));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(3, log_val[0]);
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyEvent(sync_ev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(other));
}

TEST(a_forked_and_joined_stream_is_captured_into_the_same_model_in_order)
{
    log_reset();
    aclrtStream s = new_stream(), b = new_stream();
    aclrtEvent fork, join;
    CHECK_OK(aclrtCreateEvent(&fork));
    CHECK_OK(aclrtCreateEvent(&join));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtRecordEvent(fork, s));
    CHECK_OK(aclrtStreamWaitEvent(b, fork)); /* b joins the capture */
    aclmdlRICaptureStatus st;
    aclmdlRI during_s = NULL, during_b = NULL;
    CHECK_OK(aclmdlRICaptureGetInfo(b, &st, &during_b));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
    CHECK_OK(aclmdlRICaptureGetInfo(s, NULL, &during_s));
    CHECK(during_b == during_s);
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(2)));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(3)));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(b));
    CHECK_OK(aclrtRecordEvent(join, b));
    CHECK_OK(aclrtStreamWaitEvent(s, join)); /* b joins back */
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(4)));
    aclmdlRI m = NULL;
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED, aclmdlRICaptureEnd(b, &m));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "joined the capture");
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK(m == during_s);
    CHECK_OK(aclmdlRICaptureGetInfo(b, &st, NULL));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, atomic_load(&log_len)); /* nothing ran at capture */
    for (int r = 0; r < 2; r++)
        CHECK_OK(aclmdlRIExecuteAsync(m, b));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(8, atomic_load(&log_len));
    for (int i = 0; i < 8; i++)
        CHECK_EQ(1 + i % 4, log_val[i]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyEvent(fork));
    CHECK_OK(aclrtDestroyEvent(join));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(a_joined_stream_not_joined_back_fails_the_end_and_every_stream_leaves)
{
    log_reset();
    aclrtStream s = new_stream(), b = new_stream();
    aclrtEvent fork, join;
    CHECK_OK(aclrtCreateEvent(&fork));
    CHECK_OK(aclrtCreateEvent(&join));
    /* Never joined back. */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtRecordEvent(fork, s));
    CHECK_OK(aclrtStreamWaitEvent(b, fork));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(1)));
    aclmdlRI m = (aclmdlRI)1;
    CHECK_EQ(ACL_ERROR_RT_STREAM_UNJOINED, aclmdlRICaptureEnd(s, &m));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not joined back");
    CHECK(m == NULL);
    aclmdlRICaptureStatus st;
    CHECK_OK(aclmdlRICaptureGetInfo(b, &st, NULL));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
    /* Joined back, then more work on the joined stream: not joined back after its last task. */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtRecordEvent(fork, s));
    CHECK_OK(aclrtStreamWaitEvent(b, fork));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(2)));
    CHECK_OK(aclrtRecordEvent(join, b));
    CHECK_OK(aclrtStreamWaitEvent(s, join));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(3)));
    CHECK_EQ(ACL_ERROR_RT_STREAM_UNJOINED, aclmdlRICaptureEnd(s, &m));
    /* Both streams work as before; nothing captured ran. */
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(9)));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(9, log_val[0]);
    CHECK_OK(aclrtDestroyEvent(fork));
    CHECK_OK(aclrtDestroyEvent(join));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

/* Logs whether the gate was done when it ran. */
static void log_gate_done(void *arg)
{
    log_fn(LOG(atomic_load(&((struct gate *)arg)->done)));
}

TEST(an_external_wait_captured_waits_at_each_replay_for_what_the_event_has_then)
{
    log_reset();
    aclrtStream s = new_stream(), x = new_stream();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    struct gate *g = new_gate();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclrtStreamWaitEventWithFlag(s, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_gate_done, g));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    /* Not recorded at the replay: nothing to wait for. */
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(0, log_val[0]);
    /* Recorded behind a gate on another stream: the replay waits for the gate (parked, then resumed). */
    CHECK_OK(aclrtLaunchHostFunc(x, gate_fn, g));
    CHECK_OK(aclrtRecordEvent(ev, x));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK(gate_wait_entered(g));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&log_len));
    CHECK_EQ(1, log_val[1]);
    CHECK_OK(aclrtSynchronizeStream(x));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtStreamWaitEventWithFlag(s, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(x));
}

TEST(an_abort_drops_a_replay_parked_half_way)
{
    log_reset();
    aclrtStream s = new_stream(), x = new_stream();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtStreamWaitEventWithFlag(s, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(x, gate_fn, g));
    CHECK_OK(aclrtRecordEvent(ev, x));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIDestroy(m)); /* the parked replay holds the model's tasks */
    CHECK(gate_wait_entered(g));
    for (long i = 0; i < 200000000L && atomic_load(&log_len) == 0; i++) /* the replay's first step ran */
        sched_yield();
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_OK(aclrtStreamAbort(s)); /* the replay waits at its second step: dropped there */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(x));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(3)));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&log_len));
    CHECK_EQ(1, log_val[0]);
    CHECK_EQ(3, log_val[1]); /* the step after the wait never ran */
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(x));
}

TEST(an_external_record_captured_records_at_each_replay_complete_when_the_replay_is)
{
    log_reset();
    aclrtStream s = new_stream(), x = new_stream();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    struct gate *g = new_gate();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_EXTERNAL));
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st); /* not recorded by the capture */
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK(gate_wait_entered(g)); /* the replay recorded the event, then entered the gate */
    CHECK_OK(aclrtQueryEventStatus(ev, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    CHECK_OK(aclrtStreamWaitEvent(x, ev));
    CHECK_OK(aclrtLaunchHostFunc(x, log_gate_done, g));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(x));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(1, log_val[0]); /* x's task ran after the replay */
    CHECK_OK(aclrtSynchronizeEvent(ev));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(x));
}

struct end_args {
    aclrtStream s;
    aclError rc;
    aclmdlRI m;
};

static void *end_capture(void *arg)
{
    struct end_args *a = (struct end_args *)arg;
    aclrtSetCurrentContext(main_ctx);
    a->rc = aclmdlRICaptureEnd(a->s, &a->m);
    return NULL;
}

TEST(only_a_relaxed_capture_ends_on_another_thread)
{
    log_reset();
    aclrtStream s = new_stream();
    struct end_args a = {s, ACL_SUCCESS, NULL};
    pthread_t th;
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_EQ(0, pthread_create(&th, NULL, end_capture, &a));
    pthread_join(th, NULL);
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD, a.rc);
    CHECK(a.m == NULL);
    aclmdlRICaptureStatus st;
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, NULL));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st); /* the capture ended all the same */

    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    CHECK_EQ(0, pthread_create(&th, NULL, end_capture, &a));
    pthread_join(th, NULL);
    CHECK_OK(a.rc);
    CHECK(a.m != NULL);
    CHECK_OK(aclmdlRIExecute(a.m, -1));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(2, log_val[0]);
    CHECK_OK(aclmdlRIDestroy(a.m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(thread_exchange_mode_swaps_the_threads_mode)
{
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, mode); /* a thread starts in GLOBAL */
    mode = ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, mode);
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&mode)); /* back to RELAXED ... */
    mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&mode)); /* ... and GLOBAL */
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_MODE_RELAXED, mode);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(NULL));
    mode = (aclmdlRICaptureMode)9;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureThreadExchangeMode(&mode));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not an aclmdlRICaptureMode");
}

/* A synchronous copy on another thread, in capture mode `mode` there. */
struct copy_args {
    aclmdlRICaptureMode mode;
    aclError rc;
};

static void *copy_on_a_thread(void *arg)
{
    struct copy_args *a = (struct copy_args *)arg;
    char src[8] = "abcdefg", dst[8];
    aclmdlRICaptureMode mode = a->mode;
    aclrtSetCurrentContext(main_ctx);
    aclmdlRICaptureThreadExchangeMode(&mode);
    a->rc = aclrtMemcpy(dst, sizeof dst, src, sizeof src, ACL_MEMCPY_HOST_TO_HOST);
    return NULL;
}

static aclError copy_elsewhere(aclmdlRICaptureMode mode)
{
    struct copy_args a = {mode, ACL_SUCCESS};
    pthread_t th;
    CHECK_EQ(0, pthread_create(&th, NULL, copy_on_a_thread, &a));
    pthread_join(th, NULL);
    return a.rc;
}

TEST(synchronous_copies_and_memsets_follow_the_capture_modes)
{
    aclrtStream s = new_stream();
    char buf[8] = {0}, src[8] = "abcdefg";
    /* GLOBAL: refused on every thread in GLOBAL or THREAD_LOCAL mode (the latter: on the capturing one). */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemcpy(buf, 8, src, 8, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "synchronous copy");
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemset(buf, 8, 1, 8));
    CHECK_EQ(0, buf[0]);
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, copy_elsewhere(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(copy_elsewhere(ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    CHECK_OK(copy_elsewhere(ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&mode));
    CHECK_OK(aclrtMemset(buf, 8, 1, 8)); /* this thread relaxed */
    CHECK_EQ(1, buf[0]);
    CHECK_OK(aclmdlRICaptureThreadExchangeMode(&mode)); /* back to GLOBAL */
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIDestroy(m));
    /* THREAD_LOCAL: refused on the capturing thread only. */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL));
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtMemcpy(buf, 8, src, 8, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_OK(copy_elsewhere(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIDestroy(m));
    /* RELAXED: allowed everywhere; and once the captures ended, too. */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclrtMemcpy(buf, 8, src, 8, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_OK(copy_elsewhere(ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtMemset(buf, 8, 2, 8));
    CHECK_EQ(2, buf[7]);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(bad_input_gets_its_code_and_a_message)
{
    aclrtStream s = new_stream();
    aclmdlRI m = NULL;
    aclmdlRICaptureStatus st;
    void *garbage = (void *)(uintptr_t)0x1234;

    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "stream is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureBegin(s, (aclmdlRICaptureMode)3));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureBegin(garbage, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(NULL, &st, &m));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureGetInfo(s, NULL, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureEnd(NULL, &m));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureEnd(s, NULL));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(s, &m));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not capturing");
    CHECK(m == NULL);

    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already capturing");
    aclmdlRI during = NULL;
    CHECK_OK(aclmdlRICaptureGetInfo(s, NULL, &during));
    aclrtStream other = new_stream();
    CHECK_EQ(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIExecuteAsync(during, other));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "still being captured");
    CHECK_EQ(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIDestroy(during));
    /* A replay is not captured into another model. */
    aclmdlRI ready = capture_log(other, 0, 1);
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclmdlRIExecuteAsync(ready, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "model task cannot be captured");
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIDestroy(ready));

    m = capture_log(s, 0, 1);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIExecuteAsync(NULL, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIExecute(NULL, -1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(m, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(m, -2));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(garbage, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecute(garbage, -1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroy(NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(garbage));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(m, garbage));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecute(m, -1));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(other));
}

/* ------------------------------------------------------------------------
 * Building a model explicitly (aclmdlRIBuildBegin .. BuildEnd)
 * ------------------------------------------------------------------------ */

/* Build a model from `n` logging host functions (values base ..) submitted to s bound to it; s stays bound. */
static aclmdlRI build_log(aclrtStream s, int base, int n)
{
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK(m != NULL);
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    for (int i = 0; i < n; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(base + i)));
    CHECK_OK(aclmdlRIEndTask(m, s));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    return m;
}

TEST(a_built_model_runs_the_bound_streams_tasks_only_when_executed_in_order_each_time)
{
    log_reset();
    aclrtStream s = new_stream(), exec = new_stream();
    aclmdlRI m = build_log(s, 10, 4);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, atomic_load(&log_len)); /* nothing ran at submission */
    /* Replays order with the work before and after them on the executing stream. */
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(exec, gate_fn, g));
    CHECK_OK(aclrtLaunchHostFunc(exec, log_fn, LOG(0)));
    for (int r = 0; r < 3; r++)
        CHECK_OK(aclmdlRIExecuteAsync(m, exec));
    CHECK_OK(aclrtLaunchHostFunc(exec, log_fn, LOG(1)));
    CHECK(gate_wait_entered(g));
    CHECK_EQ(0, atomic_load(&log_len));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(exec));
    CHECK_EQ(14, atomic_load(&log_len));
    CHECK_EQ(0, log_val[0]);
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < 4; i++)
            CHECK_EQ(10 + i, log_val[1 + r * 4 + i]);
    CHECK_EQ(1, log_val[13]);
    /* aclmdlRIExecute runs it on the default stream and returns when it is done. */
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(18, atomic_load(&log_len));
    CHECK_EQ(13, log_val[17]);
    CHECK_OK(aclmdlRIUnbindStream(m, s));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(m, exec));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(exec));
}

TEST(an_unbound_stream_runs_its_work_again_and_the_model_keeps_its_tasks)
{
    log_reset();
    aclrtStream s = new_stream(), exec = new_stream();
    aclmdlRI m = build_log(s, 5, 2);
    /* After aclmdlRIEndTask the bound stream's work runs as usual and stays out of the model. */
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_OK(aclmdlRIUnbindStream(m, s));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    CHECK_OK(aclmdlRIExecuteAsync(m, s)); /* executes on its former stream, too */
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(4, atomic_load(&log_len));
    CHECK_EQ(1, log_val[0]);
    CHECK_EQ(2, log_val[1]);
    CHECK_EQ(5, log_val[2]);
    CHECK_EQ(6, log_val[3]);
    /* It can be captured, and bound to another model. */
    aclmdlRI c = capture_log(s, 7, 1);
    aclmdlRI m2 = build_log(s, 8, 1);
    CHECK_OK(aclmdlRIExecuteAsync(c, exec));
    CHECK_OK(aclmdlRIExecuteAsync(m2, exec));
    CHECK_OK(aclrtSynchronizeStream(exec));
    CHECK_EQ(6, atomic_load(&log_len));
    CHECK_EQ(7, log_val[4]);
    CHECK_EQ(8, log_val[5]);
    CHECK_OK(aclmdlRIDestroy(c));
    CHECK_OK(aclmdlRIDestroy(m2)); /* unbinds s */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclmdlRICaptureEnd(s, &c));
    CHECK_OK(aclmdlRIDestroy(c));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(exec));
}

TEST(several_bound_streams_run_stream_by_stream_in_end_order_then_binding_order)
{
    log_reset();
    aclrtStream a = new_stream(), b = new_stream(), c = new_stream(), exec = new_stream();
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, b, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, c, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(30)));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(20)));
    CHECK_OK(aclrtLaunchHostFunc(c, log_fn, LOG(10)));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(31)));
    CHECK_OK(aclrtLaunchHostFunc(c, log_fn, LOG(11)));
    CHECK_OK(aclmdlRIEndTask(m, c));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL)); /* a and b hand over their tasks, in binding order */
    CHECK_OK(aclmdlRIExecuteAsync(m, exec));
    CHECK_OK(aclrtSynchronizeStream(exec));
    int want[] = {10, 11, 30, 31, 20};
    CHECK_EQ(5, atomic_load(&log_len));
    for (int i = 0; i < 5; i++)
        CHECK_EQ(want[i], log_val[i]);
    CHECK_OK(aclmdlRIDestroy(m)); /* unbinds all three */
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
    CHECK_OK(aclrtDestroyStream(exec));
}

TEST(a_call_a_bound_stream_cannot_keep_fails_its_end_task_and_the_build)
{
    log_reset();
    aclrtStream s = new_stream();
    aclrtEvent sync_ev;
    CHECK_OK(aclrtCreateEventWithFlag(&sync_ev, ACL_EVENT_SYNC));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(s)); /* collecting: nothing to wait for */
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtResetEvent(sync_ev, s));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRIEndTask(m, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "invalidated");
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRIBuildEnd(m, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecuteAsync(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "still being built");
    CHECK_OK(aclmdlRIDestroy(m));
    /* A stream still collecting at the build's end, its tasks invalidated, fails the build's end. */
    aclrtStream t = new_stream();
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, t, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIEndTask(m, s));
    CHECK_EQ(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT, aclrtResetEvent(sync_ev, t));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRIBuildEnd(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "the tasks of stream");
    CHECK_OK(aclmdlRIDestroy(m));
    /* A stream unbound before its end leaves its tasks out; the build goes on without them. */
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, t, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    CHECK_OK(aclrtLaunchHostFunc(t, log_fn, LOG(3)));
    CHECK_OK(aclmdlRIEndTask(m, s));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtDestroyStream(t)); /* still collecting */
    CHECK_OK(aclmdlRIUnbindStream(m, t));
    CHECK_OK(aclrtLaunchHostFunc(t, log_fn, LOG(4)));
    CHECK_OK(aclrtSynchronizeStream(t));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(2, atomic_load(&log_len));
    CHECK_EQ(4, log_val[0]);
    CHECK_EQ(2, log_val[1]);
    CHECK_OK(aclrtDestroyStream(s)); /* a bound stream that goes is unbound */
    CHECK_OK(aclmdlRIExecute(m, -1)); /* the model keeps its tasks */
    CHECK_EQ(3, atomic_load(&log_len));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(t));
    CHECK_OK(aclrtDestroyEvent(sync_ev));
}

TEST(build_bad_input_and_calls_in_the_wrong_order_get_their_code_and_a_message)
{
    aclrtStream s = new_stream(), other = new_stream();
    void *garbage = (void *)(uintptr_t)0x1234;
    aclmdlRI m = (aclmdlRI)1;

    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildBegin(NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildBegin(&m, 1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "flag");
    CHECK(m == NULL);
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    /* NULL, garbage and wrong flags. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBindStream(NULL, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBindStream(m, NULL, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBindStream(m, s, 5));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBindStream(garbage, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBindStream(m, garbage, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIEndTask(NULL, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIEndTask(m, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIEndTask(garbage, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIEndTask(m, garbage));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildEnd(NULL, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIBuildEnd(m, garbage));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBuildEnd(garbage, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIUnbindStream(NULL, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIUnbindStream(m, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIUnbindStream(garbage, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIUnbindStream(m, garbage));
    /* The wrong order: nothing bound, nothing ended. */
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIBuildEnd(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no stream is bound");
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIEndTask(m, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not bound");
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIUnbindStream(m, s));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already bound to this model");
    CHECK_EQ(ACL_ERROR_RT_INTERNAL_ERROR, aclmdlRIBuildEnd(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclmdlRIEndTask");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecute(m, -1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "still being built");
    /* A bound stream is neither captured, nor ended as a capture, nor executes a model, nor binds elsewhere. */
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI cm = (aclmdlRI)1;
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(s, &cm));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclmdlRIEndTask");
    aclmdlRI c = capture_log(other, 0, 1);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecuteAsync(c, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "bound to a model");
    aclmdlRI m2 = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m2, 0));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIBindStream(m2, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "another model");
    /* A captured model is not built; a capturing stream is not bound. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(c, other, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIEndTask(c, other));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(c, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIUnbindStream(c, other));
    CHECK_OK(aclmdlRICaptureBegin(other, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRIBindStream(m2, other, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRICaptureEnd(other, &cm));
    CHECK_OK(aclmdlRIDestroy(cm));
    CHECK_OK(aclmdlRIDestroy(m2));
    /* Ended twice; bound, ended or built after the build's end. */
    CHECK_OK(aclmdlRIEndTask(m, s));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRIEndTask(m, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already ended");
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "has ended");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIEndTask(m, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBindStream(m, other, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "bound to a model");
    CHECK_OK(aclmdlRIExecuteAsync(m, other)); /* an empty model */
    CHECK_OK(aclrtSynchronizeStream(other));
    CHECK_OK(aclmdlRIDestroy(m));
    /* A destroyed model is a dead handle; its stream was unbound. */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBindStream(m, other, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIEndTask(m, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIBuildEnd(m, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIUnbindStream(m, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(m));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclmdlRICaptureEnd(s, &cm));
    CHECK_OK(aclmdlRIDestroy(cm));
    CHECK_OK(aclmdlRIDestroy(c));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(other));
}

TEST(an_event_recorded_on_a_bound_stream_is_marked_and_a_stream_outside_waits_without_joining)
{
    log_reset();
    aclrtStream s = new_stream(), outside = new_stream(), exec = new_stream();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEvent(&ev));
    CHECK_OK(aclrtRecordEvent(ev, outside)); /* what the event has before the build */
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtRecordEvent(ev, s));
    CHECK_OK(aclrtStreamWaitEvent(s, ev)); /* its own mark: no task */
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    /* Not bound: waits for what the event had before, does not join the build, runs at once. */
    CHECK_OK(aclrtStreamWaitEvent(outside, ev));
    CHECK_OK(aclrtLaunchHostFunc(outside, log_fn, LOG(9)));
    CHECK_OK(aclrtSynchronizeStream(outside));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(9, log_val[0]);
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    aclmdlRI info = NULL;
    CHECK_OK(aclmdlRICaptureGetInfo(outside, &st, &info));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
    CHECK_OK(aclmdlRICaptureGetInfo(s, &st, &info));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE, st);
    CHECK(info == m);
    CHECK_OK(aclmdlRIEndTask(m, s));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    CHECK_OK(aclmdlRIExecuteAsync(m, exec));
    CHECK_OK(aclrtSynchronizeStream(exec));
    CHECK_EQ(3, atomic_load(&log_len));
    CHECK_EQ(1, log_val[1]);
    CHECK_EQ(2, log_val[2]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(outside));
    CHECK_OK(aclrtDestroyStream(exec));
}

TEST(a_bound_stream_released_with_its_context_while_collecting_fails_the_build)
{
    aclrtContext c2 = NULL;
    CHECK_OK(aclrtCreateContext(&c2, 0));
    aclrtStream s = new_stream();
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtDestroyContext(c2));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED, aclmdlRIBuildEnd(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "lost");
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIUnbindStream(m, s)); /* it went */
    CHECK_OK(aclmdlRIDestroy(m));
}

/* Set the uint32_t index a switch reads, through a copy (device memory may not be host memory). */
static void set_index(uint32_t *dev, uint32_t value)
{
    CHECK_OK(aclrtMemcpy(dev, sizeof value, &value, sizeof value, ACL_MEMCPY_HOST_TO_DEVICE));
}

TEST(a_label_switch_jumps_at_each_execution_to_the_label_its_index_picks)
{
    aclrtStream s = new_stream(), exec = new_stream();
    uint32_t *idx = NULL, *zero = NULL;
    CHECK_OK(aclrtMalloc((void **)&idx, sizeof *idx, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&zero, sizeof *zero, ACL_MEM_MALLOC_HUGE_FIRST));
    set_index(zero, 0);
    aclrtLabel a, b, c, end;
    CHECK_OK(aclrtCreateLabel(&a));
    CHECK_OK(aclrtCreateLabel(&b));
    CHECK_OK(aclrtCreateLabel(&c));
    CHECK_OK(aclrtCreateLabel(&end));
    aclrtLabel branches[] = {a, b, c};
    aclrtLabelList pick, to_end;
    CHECK_OK(aclrtCreateLabelList(branches, 3, &pick));
    CHECK_OK(aclrtCreateLabelList(&end, 1, &to_end));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtSwitchLabelByIndex(idx, 3, pick, s));
    CHECK_OK(aclrtSetLabel(a, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(10)));
    CHECK_OK(aclrtSwitchLabelByIndex(zero, 1, to_end, s));
    CHECK_OK(aclrtSetLabel(b, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(20)));
    CHECK_OK(aclrtSwitchLabelByIndex(zero, 1, to_end, s));
    CHECK_OK(aclrtSetLabel(c, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(30)));
    CHECK_OK(aclrtSetLabel(end, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(99)));
    CHECK_OK(aclmdlRIEndTask(m, s));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    /* The labels and lists may go once the build has ended. */
    CHECK_OK(aclrtDestroyLabelList(pick));
    CHECK_OK(aclrtDestroyLabelList(to_end));
    CHECK_OK(aclrtDestroyLabel(a));
    CHECK_OK(aclrtDestroyLabel(b));
    CHECK_OK(aclrtDestroyLabel(c));
    CHECK_OK(aclrtDestroyLabel(end));
    uint32_t values[] = {1, 0, 2, 7};
    int picked[] = {20, 10, 30, 30}; /* past the last label: the last */
    for (int r = 0; r < 4; r++) {
        log_reset();
        set_index(idx, values[r]);
        CHECK_OK(aclmdlRIExecuteAsync(m, exec));
        CHECK_OK(aclrtSynchronizeStream(exec));
        CHECK_EQ(3, atomic_load(&log_len));
        CHECK_EQ(1, log_val[0]);
        CHECK_EQ(picked[r], log_val[1]);
        CHECK_EQ(99, log_val[2]);
    }
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtFree(idx));
    CHECK_OK(aclrtFree(zero));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(exec));
}

TEST(label_bad_input_and_labels_not_set_once_get_their_code_and_a_message)
{
    aclrtStream s = new_stream(), other = new_stream();
    void *garbage = (void *)(uintptr_t)0x1234;
    uint32_t *idx = NULL;
    CHECK_OK(aclrtMalloc((void **)&idx, sizeof *idx, ACL_MEM_MALLOC_HUGE_FIRST));
    set_index(idx, 0);
    aclrtLabel a, b;
    aclrtLabelList list = (aclrtLabelList)1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateLabel(NULL));
    CHECK_OK(aclrtCreateLabel(&a));
    CHECK_OK(aclrtCreateLabel(&b));
    aclrtLabel pair[] = {a, b}, wild[] = {a, garbage};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateLabelList(NULL, 1, &list));
    CHECK(list == NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateLabelList(pair, 0, &list));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateLabelList(pair, 65536, &list));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateLabelList(pair, 2, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtCreateLabelList(wild, 2, &list));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "labels[1]");
    CHECK_OK(aclrtCreateLabelList(pair, 2, &list));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyLabel(NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabel(garbage));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyLabelList(NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabelList(garbage));
    /* Only on a stream bound to a model being built. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetLabel(a, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclmdlRIBindStream");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSwitchLabelByIndex(idx, 2, list, s));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, s, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetLabel(NULL, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetLabel(a, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetLabel(garbage, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetLabel(a, garbage));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(NULL, 2, list, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(idx, 0, list, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(idx, 3, list, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "maxValue");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(idx, 2, NULL, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSwitchLabelByIndex(idx, 2, garbage, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchLabelByIndex(idx, 2, list, NULL));
    /* A switch naming a label set nowhere, or twice: the build cannot end. */
    CHECK_OK(aclrtSwitchLabelByIndex(idx, 2, list, s));
    CHECK_OK(aclrtSetLabel(a, s));
    CHECK_OK(aclmdlRIEndTask(m, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "on none of its streams");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetLabel(b, s)); /* its tasks ended */
    CHECK_OK(aclmdlRIBindStream(m, other, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtSetLabel(a, other));
    CHECK_OK(aclrtSetLabel(b, other));
    CHECK_OK(aclmdlRIEndTask(m, other));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIBuildEnd(m, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "more than once");
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyLabelList(list));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabelList(list));
    CHECK_OK(aclrtDestroyLabel(a));
    CHECK_OK(aclrtDestroyLabel(b));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyLabel(a));
    CHECK_OK(aclrtFree(idx));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(other));
}

/* Capture 1 (before), a group of 2 (base, base+1), 1 (after) logging host functions on s; the group's handle in *grp. */
static aclmdlRI capture_with_group(aclrtStream s, int base, aclrtTaskGrp *grp)
{
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(base)));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(base + 1)));
    *grp = NULL;
    CHECK_OK(aclmdlRICaptureTaskGrpEnd(s, grp));
    CHECK(*grp != NULL);
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    return m;
}

/* Update the group from stream u with two logging host functions a, b. */
static aclError update_group(aclrtStream u, aclrtTaskGrp grp, int a, int b)
{
    CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_OK(aclrtLaunchHostFunc(u, log_fn, LOG(a)));
    CHECK_OK(aclrtLaunchHostFunc(u, log_fn, LOG(b)));
    return aclmdlRICaptureTaskUpdateEnd(u);
}

TEST(an_updated_task_group_changes_what_later_replays_run_and_nothing_else)
{
    log_reset();
    aclrtStream s = new_stream(), u = new_stream();
    aclrtTaskGrp grp;
    aclmdlRI m = capture_with_group(s, 10, &grp);
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(update_group(u, grp, 20, 21));
    /* The update stream ran none of the update's tasks. */
    CHECK_OK(aclrtSynchronizeStream(u));
    CHECK_EQ(4, atomic_load(&log_len));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(update_group(u, grp, 30, 31)); /* a second update replaces the first */
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    int want[] = {1, 10, 11, 2, 1, 20, 21, 2, 1, 30, 31, 2};
    CHECK_EQ(12, atomic_load(&log_len));
    for (int i = 0; i < 12; i++)
        CHECK_EQ(want[i], log_val[i]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(u, grp)); /* the group went with its model */
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(u));
}

TEST(a_replay_submitted_before_an_update_runs_the_tasks_it_started_with)
{
    log_reset();
    aclrtStream s = new_stream(), u = new_stream();
    aclrtTaskGrp grp;
    aclmdlRI m = capture_with_group(s, 10, &grp);
    struct gate *g = launch_gate(s);
    CHECK_OK(aclmdlRIExecuteAsync(m, s)); /* held behind the gate until after the update */
    CHECK_OK(update_group(u, grp, 20, 21));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIDestroy(m)); /* both replays still run */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    int want[] = {1, 10, 11, 2, 1, 20, 21, 2};
    CHECK_EQ(8, atomic_load(&log_len));
    for (int i = 0; i < 8; i++)
        CHECK_EQ(want[i], log_val[i]);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(u));
}

TEST(an_updated_memset_in_a_group_sets_the_new_value_at_later_replays)
{
    aclrtStream s = new_stream(), u = new_stream();
    unsigned char *buf = NULL;
    CHECK_OK(aclrtMalloc((void **)&buf, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s));
    CHECK_OK(aclrtMemsetAsync(buf, 64, 0x11, 64, s));
    aclrtTaskGrp grp = NULL;
    CHECK_OK(aclmdlRICaptureTaskGrpEnd(s, &grp));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(dev_all_bytes_are(buf, 64, 0x11));
    CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_OK(aclrtMemsetAsync(buf, 64, 0x22, 32, u));
    CHECK_OK(aclmdlRICaptureTaskUpdateEnd(u));
    CHECK_OK(aclrtMemset(buf, 64, 0, 64));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(dev_all_bytes_are(buf, 32, 0x22));
    CHECK(dev_all_bytes_are(buf + 32, 32, 0));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtFree(buf));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(u));
}

TEST(a_kernel_in_a_group_updated_with_new_arguments_runs_with_them_at_later_replays)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    if (!load_count_runs(&bin, &f))
        return; /* a real GPU's driver loads no host shared objects */
    aclrtStream s = new_stream(), u = new_stream();
    atomic_int n = 0, other = 0;
    struct count_args a = {&n};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 2, s, NULL, &a, sizeof a, NULL, 0));
    aclrtTaskGrp grp = NULL;
    CHECK_OK(aclmdlRICaptureTaskGrpEnd(s, &grp));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(2, atomic_load(&n));
    struct count_args b = {&other};
    CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 5, u, NULL, &b, sizeof b, NULL, 0));
    CHECK_OK(aclmdlRICaptureTaskUpdateEnd(u));
    CHECK_OK(aclrtSynchronizeStream(u));
    CHECK_EQ(0, atomic_load(&other)); /* the update stream did not run it */
    b.n = &n; /* the update copied its arguments */
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(2, atomic_load(&n));
    CHECK_EQ(10, atomic_load(&other));
    CHECK_OK(aclrtBinaryUnLoad(bin)); /* the model keeps its code */
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(u));
}

struct updater {
    aclrtStream u;
    aclrtTaskGrp grp;
    int rounds;
    atomic_int failed;
};

static void *updater_main(void *arg)
{
    struct updater *up = (struct updater *)arg;
    if (aclrtSetCurrentContext(main_ctx) != ACL_SUCCESS)
        atomic_fetch_add(&up->failed, 1);
    for (int k = 1; k <= up->rounds; k++) {
        if (aclmdlRICaptureTaskUpdateBegin(up->u, up->grp) != ACL_SUCCESS ||
            aclrtLaunchHostFunc(up->u, log_fn, LOG(100 + k)) != ACL_SUCCESS ||
            aclrtLaunchHostFunc(up->u, log_fn, LOG(100 + k)) != ACL_SUCCESS ||
            aclmdlRICaptureTaskUpdateEnd(up->u) != ACL_SUCCESS)
            atomic_fetch_add(&up->failed, 1);
    }
    return NULL;
}

TEST(replays_racing_updates_run_a_whole_update_or_the_one_before_never_a_mix)
{
    log_reset();
    aclrtStream s = new_stream();
    struct updater up = {new_stream(), NULL, 200, 0};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(100)));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(100)));
    CHECK_OK(aclmdlRICaptureTaskGrpEnd(s, &up.grp));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    pthread_t th;
    CHECK_EQ(0, pthread_create(&th, NULL, updater_main, &up));
    int replays = 0;
    for (; replays < 500 && replays * 2 + 2 <= LOG_CAP; replays++)
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_EQ(0, pthread_join(th, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, atomic_load(&up.failed));
    CHECK_EQ(replays * 2, atomic_load(&log_len));
    int last = 100;
    for (int r = 0; r < replays; r++) {
        CHECK_EQ(log_val[2 * r], log_val[2 * r + 1]); /* one update's pair */
        CHECK(log_val[2 * r] >= last);                /* updates only move forward */
        last = log_val[2 * r];
    }
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(300, log_val[replays * 2]); /* the last update */
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(up.u));
}

TEST(task_group_bad_input_gets_its_code_and_a_message_and_the_group_keeps_its_tasks)
{
    log_reset();
    aclrtStream s = new_stream(), u = new_stream();
    void *garbage = (void *)(uintptr_t)0x1234;
    aclrtTaskGrp grp = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpBegin(NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskGrpBegin(garbage));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpBegin(s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not capturing");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskGrpEnd(s, NULL));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureTaskGrpEnd(s, &grp));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureTaskGrpEnd(s, &grp));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no task group is open");
    CHECK(grp == NULL);
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureTaskGrpBegin(s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "do not nest");
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(10)));
    CHECK_OK(aclmdlRICaptureTaskGrpEnd(s, &grp));
    /* The model is not ready: no update yet; a capturing stream does not update. */
    CHECK_EQ(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s)); /* left open: the end drops it */
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));

    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(NULL, grp));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateBegin(u, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(u, garbage));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a live task group");
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateBegin(garbage, grp));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureTaskUpdateEnd(NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureTaskUpdateEnd(u));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not updating");
    aclrtStream c = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(c, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureTaskUpdateBegin(c, grp));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureTaskUpdateEnd(c));
    aclmdlRI cm = NULL;
    CHECK_OK(aclmdlRICaptureEnd(c, &cm));
    CHECK_OK(aclmdlRIDestroy(cm));

    /* Another number of tasks, another kind: refused, the group keeps its tasks. */
    CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already updating");
    aclmdlRICaptureStatus st = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    CHECK_OK(aclmdlRICaptureGetInfo(u, &st, NULL));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
    aclmdlRI none = NULL;
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRICaptureEnd(u, &none));
    CHECK_OK(aclrtLaunchHostFunc(u, log_fn, LOG(20)));
    CHECK_OK(aclrtLaunchHostFunc(u, log_fn, LOG(21)));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureTaskUpdateEnd(u));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "another number of tasks");
    unsigned char *buf = NULL;
    CHECK_OK(aclrtMalloc((void **)&buf, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_OK(aclrtMemsetAsync(buf, 8, 0, 8, u));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureTaskUpdateEnd(u));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "another kind");
    /* The stream works as before. */
    CHECK_OK(aclrtLaunchHostFunc(u, log_fn, LOG(99)));
    CHECK_OK(aclrtSynchronizeStream(u));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&log_len));
    CHECK_EQ(99, log_val[0]);
    CHECK_EQ(10, log_val[1]);
    /* An updating stream is not synchronized or destroyed; the model destroyed meanwhile fails the end. */
    CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_OK(aclrtLaunchHostFunc(u, log_fn, LOG(30)));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtSynchronizeStream(u));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclrtDestroyStream(u));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureTaskUpdateEnd(u));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "destroyed");
    CHECK_OK(aclrtSynchronizeStream(u));
    CHECK_EQ(2, atomic_load(&log_len)); /* the update's task never ran */
    CHECK_OK(aclrtFree(buf));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(u));
    CHECK_OK(aclrtDestroyStream(c));
}

TEST(model_abort_drops_the_rest_of_a_replay_parked_behind_a_gate_and_the_stream_goes_on)
{
    log_reset();
    aclrtStream s = new_stream();
    struct gate *g = new_gate();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(3)));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIExecuteAsync(m, s)); /* stops at the gate, its second step */
    CHECK_OK(aclmdlRIExecuteAsync(m, s)); /* queued behind it */
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(9)));
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclmdlRIAbort(m));
    CHECK_OK(aclmdlRIExecuteAsync(m, s)); /* after the abort: runs whole */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s)); /* dropped steps are no error */
    CHECK_EQ(5, atomic_load(&log_len));
    CHECK_EQ(1, log_val[0]); /* the first replay: its step before the gate, then nothing */
    CHECK_EQ(9, log_val[1]); /* the second replay dropped whole; the stream's own task runs */
    CHECK_EQ(1, log_val[2]);
    CHECK_EQ(2, log_val[3]);
    CHECK_EQ(3, log_val[4]);
    /* The model replays whole again, and synchronously too. */
    log_reset();
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(3, atomic_load(&log_len));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIAbort(m));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a live model");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAbort(NULL));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_model_keeps_the_name_set_and_has_an_id_of_its_own)
{
    log_reset();
    aclrtStream s = new_stream();
    aclmdlRI a = capture_log(s, 1, 1);
    aclmdlRI b = capture_log(s, 2, 1);
    char name[16] = "junk";
    CHECK_OK(aclmdlRIGetName(a, sizeof name, name));
    CHECK_EQ(0, (int)strlen(name)); /* no name set: empty */
    CHECK_OK(aclmdlRISetName(a, "encoder"));
    CHECK_OK(aclmdlRIGetName(a, sizeof name, name));
    CHECK_EQ(0, strcmp(name, "encoder"));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(a, 7, name)); /* no room for the NUL */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cannot hold");
    CHECK_OK(aclmdlRIGetName(a, 8, name));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(a, 0, name));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetName(a, 8, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRISetName(a, NULL));
    char longname[200];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRISetName(a, longname));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "longer than");
    CHECK_OK(aclmdlRIGetName(a, sizeof name, name));
    CHECK_EQ(0, strcmp(name, "encoder")); /* a refused name leaves the old one */
    uint32_t ida = 0, idb = 0;
    CHECK_OK(aclmdlRIGetId(a, &ida));
    CHECK_OK(aclmdlRIGetId(b, &idb));
    CHECK(ida != idb);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetId(a, NULL));
    CHECK_OK(aclmdlRIDestroy(a));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetId(a, &ida));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRISetName(a, "x"));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetName(a, sizeof name, name));
    /* A new model in the freed slot starts without a name. */
    aclmdlRI c = capture_log(s, 3, 1);
    strcpy(name, "junk");
    CHECK_OK(aclmdlRIGetName(c, sizeof name, name));
    CHECK_EQ(0, (int)strlen(name));
    CHECK_OK(aclmdlRIDestroy(b));
    CHECK_OK(aclmdlRIDestroy(c));
    CHECK_OK(aclrtDestroyStream(s));
}

#define RUN_CASE(name)      \
    do {                    \
        RUN(name);          \
        gates_open_all();   \
    } while (0)

/* ------------------------------------------------------------------------
 * A model's streams and tasks (aclmdlRIGetStreams, GetTasksByStream, ...)
 * ------------------------------------------------------------------------ */

/* The sequence ids of the tasks of a model stream, with their types; returns how many. */
static uint32_t lane_tasks(aclrtStream ms, uint32_t *seq, aclmdlRITaskType *type, uint32_t cap)
{
    uint32_t n = 0;
    CHECK_OK(aclmdlRIGetTasksByStream(ms, NULL, &n));
    CHECK(n <= cap);
    aclmdlRITask t[16];
    uint32_t got = 16;
    CHECK_OK(aclmdlRIGetTasksByStream(ms, t, &got));
    CHECK_EQ(n, got);
    for (uint32_t i = got; i < 16; i++)
        CHECK(t[i] == NULL); /* the rest of a larger array is cleared */
    for (uint32_t i = 0; i < n && i < cap; i++) {
        CHECK_OK(aclmdlRITaskGetSeqId(t[i], &seq[i]));
        CHECK_OK(aclmdlRITaskGetType(t[i], &type[i]));
    }
    return n;
}

TEST(a_captured_model_lists_its_streams_and_each_streams_tasks_in_submission_order)
{
    aclrtStream s = new_stream(), b = new_stream();
    aclrtEvent fork, join, ext;
    CHECK_OK(aclrtCreateEvent(&fork));
    CHECK_OK(aclrtCreateEvent(&join));
    CHECK_OK(aclrtCreateEventExWithFlag(&ext, ACL_EVENT_SYNC));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));                /* seq 0, the origin's */
    CHECK_OK(aclrtRecordEvent(fork, s));
    CHECK_OK(aclrtStreamWaitEvent(b, fork));                         /* b joins: no task */
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(2)));                /* seq 1, b's */
    CHECK_OK(aclrtRecordEventWithFlag(ext, b, ACL_EVENT_RECORD_EXTERNAL)); /* seq 2, b's: an event record */
    CHECK_OK(aclrtRecordEvent(join, b));
    CHECK_OK(aclrtStreamWaitEvent(s, join));                         /* b joins back: no task */
    CHECK_OK(aclrtStreamWaitEventWithFlag(s, ext, 0, ACL_EVENT_WAIT_EXTERNAL)); /* seq 3, the origin's: a wait */
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(3)));                /* seq 4, the origin's */
    aclrtStream during[2];
    uint32_t nd = 2;
    aclmdlRI cap = NULL;
    CHECK_OK(aclmdlRICaptureGetInfo(s, NULL, &cap));
    CHECK_EQ(ACL_ERROR_RT_MODEL_CAPTURED, aclmdlRIGetStreams(cap, during, &nd));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));

    uint32_t n = 0;
    CHECK_OK(aclmdlRIGetStreams(m, NULL, &n));
    CHECK_EQ(2u, n);
    aclrtStream ms[4] = {s, s, s, s};
    n = 4;
    CHECK_OK(aclmdlRIGetStreams(m, ms, &n));
    CHECK_EQ(2u, n);
    CHECK(ms[0] != NULL && ms[1] != NULL && ms[0] != ms[1]);
    CHECK(ms[0] != s && ms[1] != b); /* the model's own streams */
    CHECK(ms[2] == NULL && ms[3] == NULL);
    aclrtStream one[1] = {NULL};
    n = 1;
    CHECK_EQ(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, aclmdlRIGetStreams(m, one, &n));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "there are 2");
    CHECK_EQ(1u, n);
    CHECK(one[0] == ms[0]);

    uint32_t seq[8];
    aclmdlRITaskType type[8];
    CHECK_EQ(3u, lane_tasks(ms[0], seq, type, 8));
    CHECK_EQ(0u, seq[0]);
    CHECK_EQ(3u, seq[1]);
    CHECK_EQ(4u, seq[2]);
    CHECK_EQ(ACL_MODEL_RI_TASK_DEFAULT, type[0]);
    CHECK_EQ(ACL_MODEL_RI_TASK_EVENT_WAIT, type[1]);
    CHECK_EQ(ACL_MODEL_RI_TASK_DEFAULT, type[2]);
    CHECK_EQ(2u, lane_tasks(ms[1], seq, type, 8));
    CHECK_EQ(1u, seq[0]);
    CHECK_EQ(2u, seq[1]);
    CHECK_EQ(ACL_MODEL_RI_TASK_DEFAULT, type[0]);
    CHECK_EQ(ACL_MODEL_RI_TASK_EVENT_RECORD, type[1]);
    /* Too small an array gets what fits and the code. */
    aclmdlRITask t1[1] = {NULL};
    n = 1;
    CHECK_EQ(ACL_ERROR_RT_INSUFFICIENT_INPUT_ARRAY, aclmdlRIGetTasksByStream(ms[0], t1, &n));
    CHECK_EQ(1u, n);
    uint32_t id = 99;
    CHECK_OK(aclmdlRITaskGetSeqId(t1[0], &id));
    CHECK_EQ(0u, id);
    /* A model stream is no stream to submit to or synchronize; a user stream is no model's. */
    CHECK(aclrtSynchronizeStream(ms[0]) != ACL_SUCCESS);
    CHECK(aclrtLaunchHostFunc(ms[1], log_fn, LOG(9)) != ACL_SUCCESS);
    n = 4;
    aclmdlRITask t4[4];
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(s, t4, &n));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a model's stream");

    /* The handles die with the model. */
    CHECK_OK(aclmdlRIDestroy(m));
    n = 4;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetTasksByStream(ms[0], t4, &n));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetSeqId(t1[0], &id));
    aclmdlRITaskType tt;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType(t1[0], &tt));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetStreams(m, ms, &n));
    /* A new model in the freed slot does not answer for the old one's handles. */
    aclmdlRI again = capture_log(s, 0, 1);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType(t1[0], &tt));
    CHECK_OK(aclmdlRIDestroy(again));
    CHECK_OK(aclrtDestroyEvent(fork));
    CHECK_OK(aclrtDestroyEvent(join));
    CHECK_OK(aclrtDestroyEvent(ext));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(a_kernel_task_of_a_model_is_a_kernel)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    if (!load_count_runs(&bin, &f))
        return; /* a real GPU's driver loads no host shared objects */
    aclrtStream s = new_stream();
    atomic_int runs = 0;
    struct count_args a = {&runs};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(0)));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 1, s, NULL, &a, sizeof a, NULL, 0));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    aclrtStream ms = NULL;
    uint32_t n = 1;
    CHECK_OK(aclmdlRIGetStreams(m, &ms, &n));
    uint32_t seq[4];
    aclmdlRITaskType type[4];
    CHECK_EQ(2u, lane_tasks(ms, seq, type, 4));
    CHECK_EQ(ACL_MODEL_RI_TASK_DEFAULT, type[0]);
    CHECK_EQ(ACL_MODEL_RI_TASK_KERNEL, type[1]);
    CHECK_EQ(1u, seq[1]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_built_model_lists_its_bound_streams_and_the_tasks_each_handed_over)
{
    aclrtStream a = new_stream(), b = new_stream(), idle = new_stream();
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, b, ACL_MODEL_STREAM_FLAG_HEAD));
    for (int i = 0; i < 3; i++)
        CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(i)));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(7)));
    aclmdlRITask t[4];
    uint32_t n = 4;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(a, t, &n)); /* not built yet */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "still being built");
    CHECK_OK(aclmdlRIBindStream(m, idle, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIEndTask(m, b));
    CHECK_OK(aclmdlRIEndTask(m, a));
    CHECK_OK(aclmdlRIEndTask(m, idle));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    aclrtStream ms[4];
    n = 4;
    CHECK_OK(aclmdlRIGetStreams(m, ms, &n));
    CHECK_EQ(3u, n);
    CHECK(ms[0] == a && ms[1] == b && ms[2] == idle); /* the bound streams, in binding order */
    n = 4;
    CHECK_OK(aclmdlRIGetTasksByStream(a, t, &n));
    CHECK_EQ(3u, n);
    aclmdlRITaskType tt;
    CHECK_OK(aclmdlRITaskGetType(t[2], &tt));
    CHECK_EQ(ACL_MODEL_RI_TASK_DEFAULT, tt);
    uint32_t id;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskGetSeqId(t[0], &id)); /* a captured model's only */
    n = 4;
    CHECK_OK(aclmdlRIGetTasksByStream(b, t, &n));
    CHECK_EQ(1u, n);
    n = 4;
    CHECK_OK(aclmdlRIGetTasksByStream(idle, t, &n));
    CHECK_EQ(0u, n);
    CHECK_OK(aclmdlRIUnbindStream(m, a));
    n = 4;
    CHECK_OK(aclmdlRIGetStreams(m, ms, &n));
    CHECK_EQ(2u, n);
    CHECK(ms[0] == b && ms[1] == idle);
    n = 4;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(a, t, &n)); /* unbound: no model's */
    /* The model still runs what a handed over. */
    log_reset();
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(4, atomic_load(&log_len));
    CHECK_OK(aclmdlRIDestroy(m));
    n = 4;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIGetTasksByStream(b, t, &n));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(idle));
}

TEST(model_stream_and_task_queries_refuse_bad_input_with_their_code_and_a_message)
{
    aclrtStream s = new_stream();
    aclmdlRI m = capture_log(s, 0, 2);
    aclrtStream ms = NULL;
    uint32_t n = 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetStreams(m, &ms, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "numStreams");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetStreams(NULL, &ms, &n));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetStreams((aclmdlRI)(uintptr_t)0xdeadbeef, &ms, &n));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetStreams(s, &ms, &n)); /* a stream is no model */
    CHECK_OK(aclmdlRIGetStreams(m, &ms, &n));
    aclmdlRITask t[2];
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetTasksByStream(NULL, t, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIGetTasksByStream(ms, t, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetTasksByStream((aclrtStream)(uintptr_t)0xdeadbeef, t, &n));
    /* A model stream handle one past the model's streams, forged from a real one. */
    aclrtStream forged = (aclrtStream)((uintptr_t)ms + 1);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIGetTasksByStream(forged, t, &n));
    n = 2;
    CHECK_OK(aclmdlRIGetTasksByStream(ms, t, &n));
    CHECK_EQ(2u, n);
    aclmdlRITaskType tt;
    uint32_t id;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetType(NULL, &tt));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetType(t[0], NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetSeqId(NULL, &id));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetSeqId(t[0], NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType(m, &tt)); /* a model is no task */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetType(ms, &tt)); /* nor is a model stream */
    aclmdlRITask past = (aclmdlRITask)((uintptr_t)t[1] + 1);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetSeqId(past, &id));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not one of its model's tasks");
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(after_a_task_group_update_a_task_handle_names_the_task_now_at_its_place)
{
    log_reset();
    aclrtStream s = new_stream(), u = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(2)));
    aclrtTaskGrp grp = NULL;
    CHECK_OK(aclmdlRICaptureTaskGrpEnd(s, &grp));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    aclrtStream ms = NULL;
    uint32_t n = 1;
    CHECK_OK(aclmdlRIGetStreams(m, &ms, &n));
    aclmdlRITask t[2];
    n = 2;
    CHECK_OK(aclmdlRIGetTasksByStream(ms, t, &n));
    CHECK_EQ(2u, n);
    CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
    CHECK_OK(aclrtLaunchHostFunc(u, log_fn, LOG(5)));
    CHECK_OK(aclmdlRICaptureTaskUpdateEnd(u));
    uint32_t id;
    CHECK_OK(aclmdlRITaskGetSeqId(t[1], &id));
    CHECK_EQ(1u, id);
    aclmdlRITask again[2];
    n = 2;
    CHECK_OK(aclmdlRIGetTasksByStream(ms, again, &n));
    CHECK_EQ(2u, n);
    CHECK(again[0] == t[0] && again[1] == t[1]);
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(2, atomic_load(&log_len));
    CHECK_EQ(5, log_val[1]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(u));
}

/* ------------------------------------------------------------------------
 * Conditional tasks (aclmdlRIAddCondTask)
 * ------------------------------------------------------------------------ */

static void set_word(uint64_t *word, uint64_t v)
{
    CHECK_OK(aclrtMemcpy(word, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* Capture `n` logging host functions (values base ..) into branch b on stream s. */
static void capture_branch(aclrtStream s, aclmdlRI b, int base, int n)
{
    CHECK_OK(aclmdlRICaptureToModelRIBegin(s, b, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    for (int i = 0; i < n; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(base + i)));
    aclmdlRI ended = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &ended));
    CHECK(ended == b);
}

/* A conditional task of `type` with `size` branches on capturing stream s of model m; the branches in subs. */
static aclmdlRICondHandle add_cond(aclrtStream s, aclmdlRICondTaskType type, uint32_t size, aclmdlRI *subs,
                                   uint32_t default_value, uint32_t flag, uint64_t **word)
{
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureGetInfo(s, NULL, &m));
    aclmdlRICondHandle h = NULL;
    CHECK_OK(aclmdlRICondHandleCreate(m, default_value, (aclmdlRICondHandleFlag)flag, &h));
    CHECK_OK(aclmdlRICondHandleGetCondPtr(h, word));
    aclmdlRICondTaskParams p = {h, type, size, subs};
    CHECK_OK(aclmdlRIAddCondTask(p, s, 0));
    return h;
}

TEST(an_if_task_runs_the_branch_its_word_picks_at_each_replay)
{
    log_reset();
    aclrtStream s = new_stream(), b = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(0)));
    aclmdlRI subs[2] = {NULL, NULL};
    uint64_t *word = NULL;
    add_cond(s, ACL_MODEL_RI_COND_TYPE_IF, 2, subs, 0, 0, &word);
    CHECK(subs[0] != NULL && subs[1] != NULL && subs[0] != subs[1] && word != NULL);
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(9)));
    capture_branch(b, subs[0], 10, 2);
    capture_branch(b, subs[1], 20, 1);
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_EQ(0, atomic_load(&log_len)); /* nothing ran at capture */
    set_word(word, 5);
    CHECK_OK(aclmdlRIExecute(m, -1));
    set_word(word, 0);
    CHECK_OK(aclmdlRIExecute(m, -1));
    int want[] = {0, 10, 11, 9, 0, 20, 9};
    CHECK_EQ(7, atomic_load(&log_len));
    for (int i = 0; i < 7; i++)
        CHECK_EQ(want[i], log_val[i]);
    /* A branch is not executed or destroyed by itself; it goes with its model. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIExecuteAsync(subs[0], s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "branch");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroy(subs[1]));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroy(subs[0]));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

/* Count the word (device memory) down by one, through copies (a host function of the loop's branch). */
static _Atomic int count_down_failures;

static void count_down(void *arg)
{
    uint64_t *word = *(uint64_t **)arg, v = 0;
    if (aclrtMemcpy(&v, sizeof v, word, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
        atomic_fetch_add(&count_down_failures, 1);
    v--;
    if (aclrtMemcpy(word, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
        atomic_fetch_add(&count_down_failures, 1);
}

TEST(a_while_task_loops_until_its_branch_clears_the_word_from_its_default_at_each_replay)
{
    log_reset();
    aclrtStream s = new_stream(), b = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI body[1] = {NULL};
    static uint64_t *word;
    add_cond(s, ACL_MODEL_RI_COND_TYPE_WHILE, 1, body, 3, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &word);
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(99)));
    CHECK_OK(aclmdlRICaptureToModelRIBegin(b, body[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(1)));
    CHECK_OK(aclrtLaunchHostFunc(b, count_down, &word));
    CHECK_OK(aclmdlRICaptureEnd(b, &body[0]));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    set_word(word, 0); /* the default, not this, is the word when a replay starts */
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    int want[] = {1, 1, 1, 99, 1, 1, 1, 99};
    CHECK_EQ(0, atomic_load(&count_down_failures));
    CHECK_EQ(8, atomic_load(&log_len));
    for (int i = 0; i < 8; i++)
        CHECK_EQ(want[i], log_val[i]);
    uint64_t now = 7;
    CHECK_OK(aclrtMemcpy(&now, sizeof now, word, sizeof now, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(0u, now);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(a_switch_task_runs_the_branch_its_word_numbers_and_none_past_the_last)
{
    log_reset();
    aclrtStream s = new_stream(), b = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI cases[3] = {NULL, NULL, NULL};
    uint64_t *word = NULL;
    add_cond(s, ACL_MODEL_RI_COND_TYPE_SWITCH, 3, cases, 0, 0, &word);
    for (int i = 0; i < 3; i++)
        capture_branch(b, cases[i], 10 * (i + 1), 1);
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    uint64_t picks[] = {2, 0, 7, 1};
    for (int i = 0; i < 4; i++) {
        set_word(word, picks[i]);
        CHECK_OK(aclmdlRIExecute(m, -1));
    }
    int want[] = {30, 10, 20};
    CHECK_EQ(3, atomic_load(&log_len));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(want[i], log_val[i]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(a_branch_may_hold_a_conditional_task_of_its_own)
{
    log_reset();
    aclrtStream s = new_stream(), b = new_stream(), c = new_stream();
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI outer[1] = {NULL}, inner[1] = {NULL};
    uint64_t *ow = NULL, *iw = NULL;
    add_cond(s, ACL_MODEL_RI_COND_TYPE_IF, 1, outer, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &ow);
    CHECK_OK(aclmdlRICaptureToModelRIBegin(b, outer[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(1)));
    add_cond(b, ACL_MODEL_RI_COND_TYPE_IF, 1, inner, 0, 0, &iw);
    capture_branch(c, inner[0], 2, 1);
    aclmdlRI ended = NULL;
    CHECK_OK(aclmdlRICaptureEnd(b, &ended));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    set_word(iw, 1);
    CHECK_OK(aclmdlRIExecute(m, -1)); /* outer word starts at 1: both branches */
    set_word(iw, 0);
    CHECK_OK(aclmdlRIExecute(m, -1)); /* the inner one is not taken */
    int want[] = {1, 2, 1};
    CHECK_EQ(3, atomic_load(&log_len));
    for (int i = 0; i < 3; i++)
        CHECK_EQ(want[i], log_val[i]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICaptureToModelRIBegin(c, inner[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
}

TEST(conditional_task_bad_input_and_branches_not_captured_get_their_code_and_a_message)
{
    aclrtStream s = new_stream(), b = new_stream(), other = new_stream();
    aclmdlRI done = capture_log(other, 0, 1);
    aclmdlRICondHandle h = NULL;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICondHandleCreate(done, 0, 0, &h)); /* not being captured */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not being captured");
    CHECK_OK(aclmdlRIDestroy(done));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureGetInfo(s, NULL, &m));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(m, 0, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(m, 0, (aclmdlRICondHandleFlag)7, &h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleCreate(NULL, 0, 0, &h));
    CHECK_OK(aclmdlRICondHandleCreate(m, 0, 0, &h));
    uint64_t *word = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(h, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICondHandleGetCondPtr(NULL, &word));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleGetCondPtr((aclmdlRICondHandle)((uintptr_t)h + 1), &word));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleGetCondPtr(m, &word)); /* a model is no condition */
    aclmdlRI subs[3] = {NULL, NULL, NULL};
    aclmdlRICondTaskParams p = {h, ACL_MODEL_RI_COND_TYPE_WHILE, 2, subs};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, s, 0)); /* a WHILE has one branch */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cannot have 2 branches");
    p.type = (aclmdlRICondTaskType)9;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, s, 0));
    p.type = ACL_MODEL_RI_COND_TYPE_IF;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, s, 1)); /* flags */
    p.modelRIArray = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, s, 0));
    p.modelRIArray = subs;
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclmdlRIAddCondTask(p, other, 0)); /* not capturing this model */
    CHECK(subs[0] == NULL);
    CHECK_OK(aclmdlRIAddCondTask(p, s, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIAddCondTask(p, s, 0)); /* one task per handle */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureToModelRIBegin(b, m, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a branch");
    CHECK_EQ(ACL_ERROR_RT_STREAM_CAPTURED, aclmdlRICaptureToModelRIBegin(s, subs[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRICaptureToModelRIBegin(b, subs[0], (aclmdlRICaptureMode)9));
    capture_branch(b, subs[0], 1, 1);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRICaptureToModelRIBegin(b, subs[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "captured already");
    /* Branch 1 is being captured when the model's capture ends: the end fails and the model goes. */
    CHECK_OK(aclmdlRICaptureToModelRIBegin(b, subs[1], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI ended = NULL;
    CHECK_EQ(ACL_ERROR_RT_SUB_ACLGRAPH_IS_CAPTURING, aclmdlRICaptureEnd(s, &ended));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "branch 1");
    CHECK(ended == NULL);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIExecuteAsync(m, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRICondHandleGetCondPtr(h, &word));
    /* The branch's capture ended with it: its stream works as before. */
    aclmdlRICaptureStatus st;
    CHECK_OK(aclmdlRICaptureGetInfo(b, &st, NULL));
    CHECK_EQ(ACL_MODEL_RI_CAPTURE_STATUS_NONE, st);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(other));
}

/* ------------------------------------------------------------------------
 * Destroy callbacks
 * ------------------------------------------------------------------------ */

static atomic_int destroy_calls[3];

static void on_destroy(void *arg)
{
    atomic_fetch_add(&destroy_calls[(intptr_t)arg], 1);
}

static void on_destroy_other(void *arg)
{
    atomic_fetch_add(&destroy_calls[(intptr_t)arg], 100);
}

TEST(destroy_callbacks_run_once_when_the_model_and_its_last_replay_are_gone)
{
    for (int i = 0; i < 3; i++)
        atomic_store(&destroy_calls[i], 0);
    aclrtStream s = new_stream();
    aclmdlRI m = capture_log(s, 0, 1);
    CHECK_OK(aclmdlRIDestroyRegisterCallback(m, on_destroy, (void *)(intptr_t)1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyRegisterCallback(m, on_destroy, (void *)(intptr_t)2));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "registered already");
    CHECK_OK(aclmdlRIDestroyRegisterCallback(m, on_destroy_other, (void *)(intptr_t)2));
    CHECK_OK(aclmdlRIDestroyUnregisterCallback(m, on_destroy_other));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIDestroyUnregisterCallback(m, on_destroy_other));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not registered");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroyRegisterCallback(m, NULL, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDestroyUnregisterCallback(m, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroyRegisterCallback(s, on_destroy, NULL));
    /* A replay parked behind a gate holds the model's work: the callback waits for it. */
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(0, atomic_load(&destroy_calls[1]));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&destroy_calls[1]));
    CHECK_EQ(0, atomic_load(&destroy_calls[2])); /* unregistered */
    /* No replay pending: the callback runs before aclmdlRIDestroy returns; one never built runs too. */
    aclmdlRI n = capture_log(s, 0, 1);
    CHECK_OK(aclmdlRIDestroyRegisterCallback(n, on_destroy, (void *)(intptr_t)0));
    CHECK_OK(aclmdlRIDestroy(n));
    CHECK_EQ(1, atomic_load(&destroy_calls[0]));
    aclmdlRI b = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&b, 0));
    CHECK_OK(aclmdlRIDestroyRegisterCallback(b, on_destroy, (void *)(intptr_t)2));
    CHECK_OK(aclmdlRIDestroy(b));
    CHECK_EQ(1, atomic_load(&destroy_calls[2]));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDestroyUnregisterCallback(b, on_destroy));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * A captured model's tasks read and changed (aclmdlRITaskGetParams, ...)
 * ------------------------------------------------------------------------ */

/* The tasks of a one-stream model m (at most 8) into t; returns how many. */
static uint32_t model_tasks(aclmdlRI m, aclmdlRITask *t)
{
    aclrtStream ms = NULL;
    uint32_t n = 1;
    CHECK_OK(aclmdlRIGetStreams(m, &ms, &n));
    n = 8;
    CHECK_OK(aclmdlRIGetTasksByStream(ms, t, &n));
    return n;
}

TEST(a_kernels_parameters_are_read_changed_and_applied_by_an_update_to_later_replays)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    if (!load_count_runs(&bin, &f))
        return; /* a real GPU's driver loads no host shared objects */
    aclrtStream s = new_stream();
    atomic_int n = 0, other = 0;
    struct count_args a = {&n};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(0)));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 3, s, NULL, &a, sizeof a, NULL, 0));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    aclmdlRITask t[8];
    CHECK_EQ(2u, model_tasks(m, t));
    aclmdlRITaskParams p;
    CHECK_OK(aclmdlRITaskGetParams(t[1], &p));
    CHECK_EQ(ACL_MODEL_RI_TASK_KERNEL, p.type);
    CHECK(p.kernelTaskParams.funcHandle == f);
    CHECK_EQ(1u, p.kernelTaskParams.isHostArgs);
    CHECK_EQ(sizeof a, p.kernelTaskParams.argsSize);
    CHECK_EQ(3u, p.kernelTaskParams.numBlocks);
    CHECK(((struct count_args *)p.kernelTaskParams.args)->n == &n); /* the model's copy */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskGetParams(t[0], &p)); /* a host function has none */
    aclrtLaunchKernelAttrValue v;
    v.timeout = 7;
    CHECK_OK(aclmdlRIKernelTaskGetAttribute(t[1], ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, &v));
    CHECK_EQ(0, v.timeout);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRIKernelTaskGetAttribute(t[0], ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, &v));

    /* A replay submitted before the change runs the parameters it started with. */
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK(gate_wait_entered(g));
    struct count_args b = {&other};
    aclmdlRITaskParams np;
    memset(&np, 0, sizeof np);
    np.type = ACL_MODEL_RI_TASK_KERNEL;
    np.kernelTaskParams = (aclmdlRIKernelTaskParams){f, NULL, &b, 1, sizeof b, 2, {0}};
    CHECK_OK(aclmdlRITaskSetParams(t[1], &np));
    b.n = &n; /* the change copied the arguments */
    CHECK_OK(aclmdlRITaskGetParams(t[1], &p));
    CHECK_EQ(2u, p.kernelTaskParams.numBlocks); /* staged: read back */
    CHECK_EQ(ACL_ERROR_RT_MODEL_EXECUTE, aclmdlRIExecuteAsync(m, s)); /* not before the update */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclmdlRIUpdate");
    CHECK_OK(aclmdlRIUpdate(m));
    CHECK_OK(aclmdlRIUpdate(m)); /* nothing staged: nothing to do */
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(3, atomic_load(&n));     /* the replay from before, 3 blocks */
    CHECK_EQ(2, atomic_load(&other)); /* the one after, 2 blocks on the new arguments */
    /* A disabled kernel no longer runs; the task keeps its place. */
    CHECK_OK(aclmdlRITaskDisable(t[1]));
    CHECK_OK(aclmdlRIUpdate(m));
    log_reset();
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(2, atomic_load(&other));
    CHECK_EQ(1, atomic_load(&log_len)); /* the host function still runs */
    CHECK_EQ(2u, model_tasks(m, t));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_replayed_event_records_and_waits_parameters_name_their_event)
{
    aclrtStream s = new_stream();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_EXTERNAL));
    CHECK_OK(aclrtStreamWaitEventWithFlag(s, ev, 0, ACL_EVENT_WAIT_EXTERNAL));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    aclmdlRITask t[8];
    CHECK_EQ(2u, model_tasks(m, t));
    aclmdlRITaskParams p;
    CHECK_OK(aclmdlRITaskGetParams(t[0], &p));
    CHECK_EQ(ACL_MODEL_RI_TASK_EVENT_RECORD, p.type);
    CHECK(p.eventRecordTaskParams.event == ev);
    CHECK_EQ((uint32_t)ACL_EVENT_SYNC, p.eventRecordTaskParams.eventFlag);
    CHECK_EQ((uint32_t)ACL_EVENT_RECORD_EXTERNAL, p.eventRecordTaskParams.recordFlag);
    CHECK_OK(aclmdlRITaskGetParams(t[1], &p));
    CHECK_EQ(ACL_MODEL_RI_TASK_EVENT_WAIT, p.type);
    CHECK(p.eventWaitTaskParams.event == ev);
    CHECK_EQ((uint32_t)ACL_EVENT_WAIT_EXTERNAL, p.eventWaitTaskParams.waitFlag);
    /* Only a kernel's parameters change; a failed change leaves the model faulty. */
    p.type = ACL_MODEL_RI_TASK_EVENT_RECORD;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskSetParams(t[0], &p));
    CHECK_EQ(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(m));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "faulty");
    CHECK_EQ(ACL_ERROR_RT_MODEL_EXECUTE, aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(task_change_bad_input_gets_its_code_and_a_message)
{
    aclrtStream s = new_stream();
    aclmdlRI m = capture_log(s, 0, 1);
    aclmdlRITask t[8];
    CHECK_EQ(1u, model_tasks(m, t));
    aclmdlRITaskParams p;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetParams(t[0], NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskGetParams(NULL, &p));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskGetParams(m, &p));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRITaskSetParams(t[0], NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIUpdate(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIKernelTaskGetAttribute(t[0], ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT, NULL));
    aclrtLaunchKernelAttrValue v;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIKernelTaskGetAttribute(t[0], (aclrtLaunchKernelAttrId)99, &v));
    /* A host function is not disabled (ACL_MODEL_RI_TASK_DEFAULT): the model is faulty from then on. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclmdlRITaskDisable(t[0]));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "faulty");
    CHECK_EQ(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRITaskDisable(t[0])); /* a faulty model takes no change */
    CHECK_EQ(ACL_ERROR_RT_MODEL_UPDATE_FAILED, aclmdlRIUpdate(m));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIUpdate(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRITaskDisable(t[0]));
    /* A built model's tasks are read, not changed. */
    aclmdlRI b = build_log(s, 0, 1);
    aclmdlRITask bt[2];
    uint32_t n = 2;
    CHECK_OK(aclmdlRIGetTasksByStream(s, bt, &n));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskDisable(bt[0]));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIUpdate(b));
    CHECK_OK(aclmdlRIUnbindStream(b, s));
    CHECK_OK(aclmdlRIDestroy(b));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * A model described (aclmdlRIDebugJsonPrint, aclmdlRIDebugPrint)
 * ------------------------------------------------------------------------ */

/* The whole of a small file, NUL-terminated (static buffer). */
static const char *slurp(const char *path)
{
    static char buf[16384];
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    size_t n = f != NULL ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f != NULL)
        fclose(f);
    buf[n] = '\0';
    return buf;
}

static int count_of(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p != NULL; p = strstr(p + 1, needle))
        n++;
    return n;
}

TEST(debug_json_print_writes_a_trace_with_a_track_per_stream_and_an_event_per_task)
{
    aclrtStream s = new_stream(), b = new_stream();
    aclrtEvent fork, join;
    CHECK_OK(aclrtCreateEvent(&fork));
    CHECK_OK(aclrtCreateEvent(&join));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtRecordEvent(fork, s));
    CHECK_OK(aclrtStreamWaitEvent(b, fork));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(2)));
    CHECK_OK(aclrtRecordEvent(join, b));
    CHECK_OK(aclrtStreamWaitEvent(s, join));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(3)));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRISetName(m, "my \"model\""));
    char path[] = "/tmp/aclrt_test_model_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_OK(aclmdlRIDebugJsonPrint(m, path, ACL_MDLRI_DEBUG_JSON_PRINT_VERBOSE));
    const char *j = slurp(path);
    CHECK(strncmp(j, "{\"traceEvents\":[", 16) == 0);
    CHECK_EQ(3, count_of(j, "\"ph\":\"X\""));      /* a task each */
    CHECK_EQ(2, count_of(j, "\"thread_name\""));   /* a stream each */
    CHECK_STR_CONTAINS(j, "\"tid\":1,\"ts\":1");    /* the second task is the joined stream's */
    CHECK_STR_CONTAINS(j, "my \\\"model\\\"");       /* the name, escaped */
    CHECK_STR_CONTAINS(j, "\"seq_id\":2,\"type\":\"DEFAULT\"");
    CHECK_STR_CONTAINS(j, "]}");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(m, path, 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(m, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclmdlRIDebugJsonPrint(m, "/nonexistent-dir/x.json", 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "cannot write");
    /* aclmdlRIDebugPrint: a line for the model and one per task, on standard error. */
    fflush(stderr);
    int saved = dup(2);
    int out = open(path, O_WRONLY | O_TRUNC);
    CHECK(saved >= 0 && out >= 0);
    dup2(out, 2);
    close(out);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    aclError rc = aclmdlRIDebugPrint(m);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    CHECK_OK(rc);
    const char *txt = slurp(path);
    CHECK_STR_CONTAINS(txt, "3 tasks on 2 streams");
    CHECK_STR_CONTAINS(txt, "task 1: stream 1, host function");
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDebugPrint(m));
#pragma GCC diagnostic pop
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclmdlRIDebugJsonPrint(m, path, 0));
    unlink(path);
    CHECK_OK(aclrtDestroyEvent(fork));
    CHECK_OK(aclrtDestroyEvent(join));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(a_disabled_task_reads_as_before_until_the_update_and_a_new_change_replaces_the_disable)
{
    aclrtBinHandle bin = NULL;
    aclrtFuncHandle f = NULL;
    if (!load_count_runs(&bin, &f))
        return; /* a real GPU's driver loads no host shared objects */
    aclrtStream s = new_stream();
    atomic_int n = 0;
    struct count_args a = {&n};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 2, s, NULL, &a, sizeof a, NULL, 0));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    aclmdlRITask t[8];
    CHECK_EQ(1u, model_tasks(m, t));
    CHECK_OK(aclmdlRITaskDisable(t[0]));
    CHECK_OK(aclmdlRITaskDisable(t[0])); /* again: still disabled */
    aclmdlRITaskParams p;
    CHECK_OK(aclmdlRITaskGetParams(t[0], &p)); /* reads as captured */
    CHECK_EQ(ACL_MODEL_RI_TASK_KERNEL, p.type);
    CHECK_EQ(2u, p.kernelTaskParams.numBlocks);
    aclrtLaunchKernelAttrValue v;
    CHECK_OK(aclmdlRIKernelTaskGetAttribute(t[0], ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT_US, &v));
    /* A change after the disable replaces it: the kernel runs, with the new blocks. */
    p.kernelTaskParams.numBlocks = 5;
    CHECK_OK(aclmdlRITaskSetParams(t[0], &p));
    CHECK_OK(aclmdlRIUpdate(m));
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(5, atomic_load(&n));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(destroy_callbacks_wait_for_a_replay_of_the_body_before_an_update)
{
    for (int i = 0; i < 3; i++)
        atomic_store(&destroy_calls[i], 0);
    log_reset();
    aclrtStream s = new_stream();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, LOG(1)));
    CHECK_OK(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_EXTERNAL));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    CHECK_OK(aclmdlRIDestroyRegisterCallback(m, on_destroy, (void *)(intptr_t)1));
    aclmdlRITask t[8];
    CHECK_EQ(2u, model_tasks(m, t));
    struct gate *g = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(s, gate_fn, g));
    CHECK_OK(aclmdlRIExecuteAsync(m, s)); /* holds the body from before the update */
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclmdlRITaskDisable(t[1]));
    CHECK_OK(aclmdlRIUpdate(m));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(0, atomic_load(&destroy_calls[1])); /* the old body's replay is still to run */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(1, atomic_load(&destroy_calls[1]));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_branch_and_its_condition_word_are_the_models_own)
{
    log_reset();
    aclrtStream s = new_stream(), b = new_stream();
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    aclmdlRI sub[1] = {NULL};
    uint64_t *word = NULL;
    add_cond(s, ACL_MODEL_RI_COND_TYPE_IF, 1, sub, 1, ACL_MODEL_RI_COND_HANDLE_ASSIGN_DEFAULT, &word);
    CHECK_OK(aclmdlRICaptureToModelRIBegin(b, sub[0], ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(7)));
    CHECK_OK(aclrtRecordEventWithFlag(ev, b, ACL_EVENT_RECORD_EXTERNAL));
    aclmdlRI ended = NULL;
    CHECK_OK(aclmdlRICaptureEnd(b, &ended));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    /* A branch's tasks are read, not changed: the model runs the branch as it was captured. */
    aclmdlRITask t[8];
    CHECK_EQ(2u, model_tasks(sub[0], t));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRITaskDisable(t[1]));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "branch");
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclmdlRIUpdate(sub[0]));
    /* The condition's word is the runtime's: aclrtFree refuses it, and the model still runs. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(word));
    CHECK_OK(aclmdlRIExecute(m, -1));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(7, log_val[0]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(b));
}

int main(void)
{
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtGetCurrentContext(&main_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "capture: aclrtSetDevice(0) failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(captured_work_does_not_run_at_capture_and_each_replay_runs_it_in_order);
    RUN_CASE(replay_orders_with_the_work_before_and_after_it_on_the_stream);
    RUN_CASE(copies_memsets_and_host_kernels_are_replayed_with_their_arguments);
    RUN_CASE(a_kernel_replays_with_the_arguments_copied_at_capture_and_outlives_its_unload);
    RUN_CASE(execute_returns_when_the_replay_is_done);
    RUN_CASE(execute_returns_the_sync_timeout_when_the_replay_is_not_done_in_time);
    RUN_CASE(destroy_lets_a_pending_replay_finish_and_the_handle_dies);
    RUN_CASE(one_model_replays_on_two_streams_at_once);
    RUN_CASE(replay_of_host_functions_served_by_a_subscribed_thread_blocks_and_resumes);
    RUN_CASE(a_failing_step_ends_the_replay_with_its_code);
    RUN_CASE(get_info_reports_none_active_and_the_model_end_returns);
    RUN_CASE(a_capturing_stream_is_not_synchronized_queried_or_destroyed);
    RUN_CASE(a_call_that_cannot_be_captured_invalidates_the_capture);
    RUN_CASE(a_forked_and_joined_stream_is_captured_into_the_same_model_in_order);
    RUN_CASE(a_joined_stream_not_joined_back_fails_the_end_and_every_stream_leaves);
    RUN_CASE(an_external_wait_captured_waits_at_each_replay_for_what_the_event_has_then);
    RUN_CASE(an_external_record_captured_records_at_each_replay_complete_when_the_replay_is);
    RUN_CASE(an_abort_drops_a_replay_parked_half_way);
    RUN_CASE(only_a_relaxed_capture_ends_on_another_thread);
    RUN_CASE(thread_exchange_mode_swaps_the_threads_mode);
    RUN_CASE(synchronous_copies_and_memsets_follow_the_capture_modes);
    RUN_CASE(bad_input_gets_its_code_and_a_message);
    RUN_CASE(a_built_model_runs_the_bound_streams_tasks_only_when_executed_in_order_each_time);
    RUN_CASE(an_unbound_stream_runs_its_work_again_and_the_model_keeps_its_tasks);
    RUN_CASE(several_bound_streams_run_stream_by_stream_in_end_order_then_binding_order);
    RUN_CASE(a_call_a_bound_stream_cannot_keep_fails_its_end_task_and_the_build);
    RUN_CASE(an_event_recorded_on_a_bound_stream_is_marked_and_a_stream_outside_waits_without_joining);
    RUN_CASE(a_bound_stream_released_with_its_context_while_collecting_fails_the_build);
    RUN_CASE(build_bad_input_and_calls_in_the_wrong_order_get_their_code_and_a_message);
    RUN_CASE(a_label_switch_jumps_at_each_execution_to_the_label_its_index_picks);
    RUN_CASE(label_bad_input_and_labels_not_set_once_get_their_code_and_a_message);
    RUN_CASE(an_updated_task_group_changes_what_later_replays_run_and_nothing_else);
    RUN_CASE(a_replay_submitted_before_an_update_runs_the_tasks_it_started_with);
    RUN_CASE(an_updated_memset_in_a_group_sets_the_new_value_at_later_replays);
    RUN_CASE(a_kernel_in_a_group_updated_with_new_arguments_runs_with_them_at_later_replays);
    RUN_CASE(replays_racing_updates_run_a_whole_update_or_the_one_before_never_a_mix);
    RUN_CASE(task_group_bad_input_gets_its_code_and_a_message_and_the_group_keeps_its_tasks);
    RUN_CASE(model_abort_drops_the_rest_of_a_replay_parked_behind_a_gate_and_the_stream_goes_on);
    RUN_CASE(a_model_keeps_the_name_set_and_has_an_id_of_its_own);
    RUN_CASE(a_captured_model_lists_its_streams_and_each_streams_tasks_in_submission_order);
    RUN_CASE(a_kernel_task_of_a_model_is_a_kernel);
    RUN_CASE(a_built_model_lists_its_bound_streams_and_the_tasks_each_handed_over);
    RUN_CASE(model_stream_and_task_queries_refuse_bad_input_with_their_code_and_a_message);
    RUN_CASE(after_a_task_group_update_a_task_handle_names_the_task_now_at_its_place);
    RUN_CASE(an_if_task_runs_the_branch_its_word_picks_at_each_replay);
    RUN_CASE(a_while_task_loops_until_its_branch_clears_the_word_from_its_default_at_each_replay);
    RUN_CASE(a_switch_task_runs_the_branch_its_word_numbers_and_none_past_the_last);
    RUN_CASE(a_branch_may_hold_a_conditional_task_of_its_own);
    RUN_CASE(conditional_task_bad_input_and_branches_not_captured_get_their_code_and_a_message);
    RUN_CASE(destroy_callbacks_run_once_when_the_model_and_its_last_replay_are_gone);
    RUN_CASE(a_kernels_parameters_are_read_changed_and_applied_by_an_update_to_later_replays);
    RUN_CASE(a_replayed_event_records_and_waits_parameters_name_their_event);
    RUN_CASE(task_change_bad_input_gets_its_code_and_a_message);
    RUN_CASE(debug_json_print_writes_a_trace_with_a_track_per_stream_and_an_event_per_task);
    RUN_CASE(a_disabled_task_reads_as_before_until_the_update_and_a_new_change_replaces_the_disable);
    RUN_CASE(destroy_callbacks_wait_for_a_replay_of_the_body_before_an_update);
    RUN_CASE(a_branch_and_its_condition_word_are_the_models_own);
    int rc = check_report("capture");
    aclrtResetDevice(0);
    aclFinalize();
    return rc;
}
