/*
 * tests/test_stream_activate.c - pins persistent streams and stream
 * activation in a model built explicitly (docs/SEMANTICS.md, Persistent
 * streams and stream activation): a persistent stream takes work only
 * while it collects it for a model; a stream bound with
 * ACL_MODEL_STREAM_FLAG_DEFAULT runs only when aclrtActiveStream or a
 * switch that holds (aclrtSwitchStream) starts it, and then in parallel
 * with the rest of the execution, which ends when it has; a switch that
 * holds stops its own stream; a failure there fails the execution;
 * aclrtPersistentTaskClean takes a stream's tasks out of its model; bad
 * input gets its code.
 *
 * Parallelism is proven with two host functions that each wait (bounded)
 * for the other: they finish only if they run at once. No sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static aclrtContext main_ctx;

/* A log of host functions, in the order they ran. */
#define LOG_CAP 64
static atomic_int log_len;
static atomic_int log_val[LOG_CAP];

static void log_reset(void)
{
    atomic_store(&log_len, 0);
}

static void log_fn(void *arg)
{
    int i = atomic_fetch_add(&log_len, 1);
    if (i < LOG_CAP)
        atomic_store(&log_val[i], (int)(intptr_t)arg);
}

#define LOG(v) ((void *)(intptr_t)(v))

/* Was v logged (anywhere)? */
static int logged(int v)
{
    int n = atomic_load(&log_len);
    for (int i = 0; i < n && i < LOG_CAP; i++)
        if (atomic_load(&log_val[i]) == v)
            return 1;
    return 0;
}

static aclrtStream persistent_stream(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_PERSISTENT));
    return s;
}

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    return s;
}

TEST(a_persistent_stream_takes_work_only_while_it_collects_it_for_a_model)
{
    aclrtStream p = persistent_stream(), exec = new_stream();
    uint32_t flags = 0;
    CHECK_OK(aclrtStreamGetFlags(p, &flags));
    CHECK_EQ(ACL_STREAM_PERSISTENT, flags & ACL_STREAM_PERSISTENT);
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtLaunchHostFunc(p, log_fn, LOG(1)));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "persistent");
    CHECK_OK(aclrtSynchronizeStream(p)); /* nothing on the host waits for it */
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    CHECK_OK(aclrtStreamQuery(p, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);

    log_reset();
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, p, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclrtLaunchHostFunc(p, log_fn, LOG(1)));
    CHECK_OK(aclrtLaunchHostFunc(p, log_fn, LOG(2)));
    CHECK_OK(aclmdlRIEndTask(m, p));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtLaunchHostFunc(p, log_fn, LOG(3))); /* its tasks have ended */
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    CHECK_EQ(0, atomic_load(&log_len)); /* nothing ran yet */
    for (int r = 0; r < 2; r++) {
        CHECK_OK(aclmdlRIExecuteAsync(m, exec));
        CHECK_OK(aclrtSynchronizeStream(exec));
    }
    CHECK_EQ(4, atomic_load(&log_len));
    CHECK_EQ(1, atomic_load(&log_val[0]));
    CHECK_EQ(2, atomic_load(&log_val[1]));
    CHECK_EQ(1, atomic_load(&log_val[2]));
    CHECK_OK(aclmdlRIUnbindStream(m, p));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(p));
    CHECK_OK(aclrtDestroyStream(exec));
}

/* Two host functions that finish only if they run at the same time. */
static atomic_int a_in, h_in, timed_out;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void await_flag(atomic_int *flag)
{
    double give_up = now_s() + 10.0; /* bounded: run one after the other, the case fails instead of hanging */
    while (!atomic_load(flag)) {
        if (now_s() > give_up) {
            atomic_store(&timed_out, 1);
            return;
        }
        sched_yield();
    }
}

static void head_fn(void *arg)
{
    (void)arg;
    atomic_store(&h_in, 1);
    await_flag(&a_in);
    log_fn(LOG(10));
}

static void activated_fn(void *arg)
{
    (void)arg;
    atomic_store(&a_in, 1);
    await_flag(&h_in);
    log_fn(LOG(20));
}

TEST(an_activated_stream_runs_only_when_activated_and_in_parallel_with_the_rest)
{
    aclrtStream h = persistent_stream(), a = persistent_stream(), idle = persistent_stream();
    aclrtStream exec = new_stream();
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclmdlRIBindStream(m, idle, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclrtLaunchHostFunc(h, log_fn, LOG(1)));
    CHECK_OK(aclrtActiveStream(a, h));
    CHECK_OK(aclrtLaunchHostFunc(h, head_fn, NULL));
    CHECK_OK(aclrtLaunchHostFunc(a, activated_fn, NULL));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(21)));
    CHECK_OK(aclrtLaunchHostFunc(idle, log_fn, LOG(99))); /* bound to be activated; nothing activates it */
    CHECK_OK(aclmdlRIEndTask(m, a)); /* the activated stream's tasks come first in the model: no matter */
    CHECK_OK(aclmdlRIEndTask(m, h));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    for (int r = 0; r < 3; r++) {
        log_reset();
        atomic_store(&a_in, 0);
        atomic_store(&h_in, 0);
        atomic_store(&timed_out, 0);
        CHECK_OK(aclmdlRIExecuteAsync(m, exec));
        CHECK_OK(aclrtSynchronizeStream(exec)); /* returns once the activated stream is done too */
        CHECK_EQ(0, atomic_load(&timed_out));
        CHECK_EQ(4, atomic_load(&log_len));
        CHECK_EQ(1, atomic_load(&log_val[0]));
        CHECK(logged(10) && logged(20) && logged(21));
        CHECK(!logged(99));
    }
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(h));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(idle));
    CHECK_OK(aclrtDestroyStream(exec));
}

/* A model: h logs 1, switches to a on (*left cond *right), then logs 2; a logs 3. */
static aclmdlRI switch_model(aclrtStream h, aclrtStream a, void *left, aclrtCondition cond, void *right,
                             aclrtCompareDataType type)
{
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclrtLaunchHostFunc(h, log_fn, LOG(1)));
    CHECK_OK(aclrtSwitchStream(left, cond, right, type, a, NULL, h));
    CHECK_OK(aclrtLaunchHostFunc(h, log_fn, LOG(2)));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(3)));
    CHECK_OK(aclmdlRIEndTask(m, h));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL)); /* hands over a's tasks too */
    return m;
}

/* Run m with *left set to each value; want[i]: 1 if the switch should hold (3 logged, 2 not). */
static void run_switch(aclmdlRI m, aclrtStream exec, void *left, size_t size, const int64_t *values,
                       const int *want, int n)
{
    for (int i = 0; i < n; i++) {
        int32_t v32 = (int32_t)values[i];
        CHECK_OK(aclrtMemcpy(left, size, size == 4 ? (const void *)&v32 : (const void *)&values[i], size,
                             ACL_MEMCPY_HOST_TO_DEVICE));
        log_reset();
        CHECK_OK(aclmdlRIExecuteAsync(m, exec));
        CHECK_OK(aclrtSynchronizeStream(exec));
        CHECK_EQ(2, atomic_load(&log_len));
        CHECK_EQ(1, atomic_load(&log_val[0]));
        CHECK_EQ(want[i] ? 3 : 2, atomic_load(&log_val[1]));
    }
}

TEST(a_switch_that_holds_goes_on_on_its_stream_and_stops_its_own)
{
    aclrtStream h = persistent_stream(), a = persistent_stream(), exec = new_stream();
    int64_t *left = NULL, *right = NULL;
    CHECK_OK(aclrtMalloc((void **)&left, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&right, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    int32_t five = 5;
    CHECK_OK(aclrtMemcpy(right, 4, &five, 4, ACL_MEMCPY_HOST_TO_DEVICE));
    aclmdlRI m = switch_model(h, a, left, ACL_RT_EQUAL, right, ACL_RT_SWITCH_INT32);
    int64_t v32[] = {5, 4, -5, 5};
    int eq[] = {1, 0, 0, 1};
    run_switch(m, exec, left, 4, v32, eq, 4);
    CHECK_OK(aclmdlRIDestroy(m));

    /* 64-bit values, compared signed. */
    int64_t big = (int64_t)1 << 40;
    CHECK_OK(aclrtMemcpy(right, 8, &big, 8, ACL_MEMCPY_HOST_TO_DEVICE));
    m = switch_model(h, a, left, ACL_RT_GREATER, right, ACL_RT_SWITCH_INT64);
    int64_t v64[] = {big + 1, big, -big, INT64_MAX};
    int gt[] = {1, 0, 0, 1};
    run_switch(m, exec, left, 8, v64, gt, 4);
    CHECK_OK(aclmdlRIDestroy(m));

    aclrtCondition conds[] = {ACL_RT_NOT_EQUAL, ACL_RT_GREATER_OR_EQUAL, ACL_RT_LESS, ACL_RT_LESS_OR_EQUAL};
    int holds[][3] = {{1, 0, 1}, {0, 1, 1}, {1, 0, 0}, {1, 1, 0}}; /* left = big - 1, big, big + 1 */
    int64_t around[] = {big - 1, big, big + 1};
    for (int c = 0; c < 4; c++) {
        m = switch_model(h, a, left, conds[c], right, ACL_RT_SWITCH_INT64);
        run_switch(m, exec, left, 8, around, holds[c], 3);
        CHECK_OK(aclmdlRIDestroy(m));
    }
    CHECK_OK(aclrtFree(left));
    CHECK_OK(aclrtFree(right));
    CHECK_OK(aclrtDestroyStream(h));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(exec));
}

TEST(an_activated_stream_may_activate_another_and_a_label_jump_stays_on_its_stream)
{
    aclrtStream h = persistent_stream(), a = persistent_stream(), b = persistent_stream();
    aclrtStream exec = new_stream();
    uint32_t *idx = NULL;
    CHECK_OK(aclrtMalloc((void **)&idx, sizeof *idx, ACL_MEM_MALLOC_HUGE_FIRST));
    uint32_t one = 1;
    CHECK_OK(aclrtMemcpy(idx, sizeof one, &one, sizeof one, ACL_MEMCPY_HOST_TO_DEVICE));
    aclrtLabel l0, l1;
    CHECK_OK(aclrtCreateLabel(&l0));
    CHECK_OK(aclrtCreateLabel(&l1));
    aclrtLabel both[] = {l0, l1};
    aclrtLabelList list;
    CHECK_OK(aclrtCreateLabelList(both, 2, &list));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclmdlRIBindStream(m, b, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclrtActiveStream(a, h));
    /* a: jumps over its first log to label 1, then activates b. */
    CHECK_OK(aclrtSwitchLabelByIndex(idx, 2, list, a));
    CHECK_OK(aclrtSetLabel(l0, a));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(5)));
    CHECK_OK(aclrtSetLabel(l1, a));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(6)));
    CHECK_OK(aclrtActiveStream(b, a));
    CHECK_OK(aclrtLaunchHostFunc(b, log_fn, LOG(7)));
    CHECK_OK(aclmdlRIEndTask(m, h));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    for (int r = 0; r < 2; r++) {
        log_reset();
        CHECK_OK(aclmdlRIExecuteAsync(m, exec));
        CHECK_OK(aclrtSynchronizeStream(exec));
        CHECK_EQ(2, atomic_load(&log_len));
        CHECK(logged(6) && logged(7) && !logged(5));
    }
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyLabelList(list));
    CHECK_OK(aclrtDestroyLabel(l0));
    CHECK_OK(aclrtDestroyLabel(l1));
    CHECK_OK(aclrtFree(idx));
    CHECK_OK(aclrtDestroyStream(h));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(exec));
}

TEST(persistent_task_clean_takes_a_streams_tasks_out_of_its_model)
{
    aclrtStream h = persistent_stream(), g = persistent_stream(), a = persistent_stream();
    aclrtStream plain = new_stream(), exec = new_stream();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPersistentTaskClean(NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtPersistentTaskClean(plain));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "ACL_STREAM_PERSISTENT");
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtPersistentTaskClean(h)); /* not bound */
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, g, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclrtLaunchHostFunc(h, log_fn, LOG(1)));
    CHECK_OK(aclrtActiveStream(a, h));
    CHECK_OK(aclrtLaunchHostFunc(g, log_fn, LOG(2)));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(3)));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtPersistentTaskClean(h)); /* the build has not ended */
    CHECK_OK(aclmdlRIEndTask(m, h));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    log_reset();
    CHECK_OK(aclmdlRIExecuteAsync(m, exec));
    CHECK_OK(aclrtSynchronizeStream(exec));
    CHECK_EQ(3, atomic_load(&log_len));
    CHECK_OK(aclrtPersistentTaskClean(g));
    CHECK_OK(aclrtPersistentTaskClean(g)); /* nothing left to clean */
    log_reset();
    CHECK_OK(aclmdlRIExecuteAsync(m, exec));
    CHECK_OK(aclrtSynchronizeStream(exec));
    CHECK_EQ(2, atomic_load(&log_len));
    CHECK(logged(1) && logged(3) && !logged(2));
    CHECK_OK(aclrtPersistentTaskClean(a)); /* an activated stream: its activation starts nothing now */
    log_reset();
    CHECK_OK(aclmdlRIExecuteAsync(m, exec));
    CHECK_OK(aclrtSynchronizeStream(exec));
    CHECK_EQ(1, atomic_load(&log_len));
    CHECK_EQ(1, atomic_load(&log_val[0]));
    CHECK_OK(aclmdlRIUnbindStream(m, g));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtPersistentTaskClean(g)); /* no longer bound */
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(h));
    CHECK_OK(aclrtDestroyStream(g));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(plain));
    CHECK_OK(aclrtDestroyStream(exec));
}

static aclError failing_kernel(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx, (void)numBlocks, (void)args;
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

TEST(a_failure_on_an_activated_stream_fails_the_execution)
{
    aclrtStream h = persistent_stream(), a = persistent_stream(), exec = new_stream();
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclrtActiveStream(a, h));
    CHECK_OK(aclrtLaunchHostFunc(h, log_fn, LOG(1)));
    CHECK_OK(aclrtxLaunchHostKernel(a, 1, failing_kernel, NULL));
    CHECK_OK(aclrtLaunchHostFunc(a, log_fn, LOG(2))); /* after the failure: does not run */
    CHECK_OK(aclmdlRIEndTask(m, h));
    CHECK_OK(aclmdlRIBuildEnd(m, NULL));
    log_reset();
    CHECK_OK(aclmdlRIExecuteAsync(m, exec));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(exec));
    CHECK(logged(1) && !logged(2));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStreamForce(exec));
    CHECK_OK(aclrtDestroyStream(h));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(activation_bad_input_gets_its_code_and_a_message)
{
    aclrtStream h = persistent_stream(), a = persistent_stream(), head2 = persistent_stream();
    aclrtStream loose = persistent_stream();
    void *garbage = (void *)(uintptr_t)0xdead0;
    int64_t *v = NULL;
    CHECK_OK(aclrtMalloc((void **)&v, 16, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Not bound yet. */
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(a, h));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_DEFAULT));
    CHECK_OK(aclmdlRIBindStream(m, head2, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtActiveStream(NULL, h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtActiveStream(a, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtActiveStream(garbage, h));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtActiveStream(a, garbage));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtActiveStream(a, a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "itself");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtActiveStream(head2, h));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "ACL_MODEL_STREAM_FLAG_DEFAULT");
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(loose, h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(NULL, ACL_RT_EQUAL, v, ACL_RT_SWITCH_INT32, a, NULL, h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(v, ACL_RT_EQUAL, NULL, ACL_RT_SWITCH_INT32, a, NULL, h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtSwitchStream(v, (aclrtCondition)6, v + 1, ACL_RT_SWITCH_INT32, a, NULL, h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(v, ACL_RT_EQUAL, v + 1, (aclrtCompareDataType)2, a, NULL, h));
    CHECK_EQ(ACL_ERROR_RT_ADDR_UNALIGNED,
             aclrtSwitchStream((char *)v + 4, ACL_RT_EQUAL, v + 1, ACL_RT_SWITCH_INT64, a, NULL, h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(v, ACL_RT_EQUAL, v + 1, ACL_RT_SWITCH_INT32, NULL, NULL, h));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(v, ACL_RT_EQUAL, v + 1, ACL_RT_SWITCH_INT32, a, a, h));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "falseStream");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSwitchStream(v, ACL_RT_EQUAL, v + 1, ACL_RT_SWITCH_INT32, a, NULL, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtSwitchStream(v, ACL_RT_EQUAL, v + 1, ACL_RT_SWITCH_INT32, head2, NULL, h));
    /* After the stream's tasks ended, it takes no step. */
    CHECK_OK(aclmdlRIEndTask(m, h));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtActiveStream(a, h));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_EQ(ACL_ERROR_RT_STREAM_MODEL, aclrtActiveStream(a, h)); /* the model's destroy unbound them */
    /* A stream bound with the default flag is free to bind again once unbound. */
    CHECK_OK(aclmdlRIBuildBegin(&m, 0));
    CHECK_OK(aclmdlRIBindStream(m, a, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_OK(aclmdlRIBindStream(m, h, ACL_MODEL_STREAM_FLAG_HEAD));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtActiveStream(a, h)); /* a is a head stream now */
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtFree(v));
    CHECK_OK(aclrtDestroyStream(h));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(head2));
    CHECK_OK(aclrtDestroyStream(loose));
}

/* After a case that failed half way: the context back, its work given a bounded chance to end. */
static void case_cleanup(void)
{
    atomic_store(&a_in, 1);
    atomic_store(&h_in, 1);
    aclrtSetCurrentContext(main_ctx);
    aclrtSynchronizeDeviceWithTimeout(2000);
    aclGetRecentErrMsg();
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(a_persistent_stream_takes_work_only_while_it_collects_it_for_a_model);
    RUN_CASE(an_activated_stream_runs_only_when_activated_and_in_parallel_with_the_rest);
    RUN_CASE(a_switch_that_holds_goes_on_on_its_stream_and_stops_its_own);
    RUN_CASE(an_activated_stream_may_activate_another_and_a_label_jump_stays_on_its_stream);
    RUN_CASE(persistent_task_clean_takes_a_streams_tasks_out_of_its_model);
    RUN_CASE(a_failure_on_an_activated_stream_fails_the_execution);
    RUN_CASE(activation_bad_input_gets_its_code_and_a_message);
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("stream_activate");
}
