/*
 * tests/test_exception.c - pins "exceptions" (docs/SEMANTICS.md,
 * Exceptions; Init and errors): exception callbacks get
 * the failing task's ids and code, the slot and the list, task ids as
 * aclrtGetThreadLastTaskId reports them, wait timeouts as task failures,
 * the failure modes, and the per-thread last error.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

static uint32_t my_tid(void)
{
    return (uint32_t)syscall(SYS_gettid);
}

/* What the callbacks saw. They run on executor threads before the failing task counts as done. */
#define SEEN_CAP 16
struct seen {
    uint32_t task, stream, thread, device, code;
};
static struct seen seen_a[SEEN_CAP], seen_b[SEEN_CAP];
static atomic_int calls_a, calls_b;

static void record(struct seen *log, atomic_int *calls, aclrtExceptionInfo *info)
{
    int i = atomic_fetch_add(calls, 1);
    if (i < SEEN_CAP)
        log[i] = (struct seen){aclrtGetTaskIdFromExceptionInfo(info), aclrtGetStreamIdFromExceptionInfo(info),
                               aclrtGetThreadIdFromExceptionInfo(info), aclrtGetDeviceIdFromExceptionInfo(info),
                               aclrtGetErrorCodeFromExceptionInfo(info)};
}

static void cb_a(aclrtExceptionInfo *info)
{
    record(seen_a, &calls_a, info);
}

static void cb_b(aclrtExceptionInfo *info)
{
    record(seen_b, &calls_b, info);
}

static void reset_seen(void)
{
    atomic_store(&calls_a, 0);
    atomic_store(&calls_b, 0);
}

static aclError fail_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    return (aclError)(intptr_t)arg;
}

/* Atomic: cases launch it on several streams at once with one counter. */
static void count_fn(void *arg)
{
    __atomic_fetch_add((int *)arg, 1, __ATOMIC_RELAXED);
}

static void case_cleanup(void)
{
    gates_open_all();
    aclrtSetExceptionInfoCallback(NULL);
    aclrtExceptionInfoCallbackUnregister(cb_a);
    aclrtExceptionInfoCallbackUnregister(cb_b);
    aclrtSynchronizeDevice();
    aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

TEST(exception_callback_gets_the_failing_host_kernels_ids_and_code)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    reset_seen();
    int count = 0;
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtxLaunchHostKernel(s, 4, fail_kernel, (void *)(intptr_t)ACL_ERROR_RT_AICORE_EXCEPTION));
    uint32_t task_id = 0;
    CHECK_OK(aclrtGetThreadLastTaskId(&task_id));
    CHECK_EQ(2, task_id); /* task ids count from 1 on each stream */
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
    CHECK_EQ(2, count); /* continue mode: the task after the failure ran */
    CHECK_EQ(1, atomic_load(&calls_a));
    int32_t stream_id;
    CHECK_OK(aclrtStreamGetId(s, &stream_id));
    CHECK_EQ(task_id, seen_a[0].task);
    CHECK_EQ(stream_id, seen_a[0].stream);
    CHECK_EQ(my_tid(), seen_a[0].thread);
    CHECK_EQ(0, seen_a[0].device);
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, seen_a[0].code);
    CHECK_OK(aclrtDestroyStream(s));
}

static uint32_t launcher_tid;
static uint32_t launcher_task_id;
static aclrtStream launcher_stream;
static aclrtContext main_ctx;

static void *launcher_main(void *arg)
{
    (void)arg;
    aclrtSetCurrentContext(main_ctx);
    launcher_tid = my_tid();
    aclrtxLaunchHostKernel(launcher_stream, 1, fail_kernel, (void *)(intptr_t)ACL_ERROR_RT_AICPU_EXCEPTION);
    aclrtGetThreadLastTaskId(&launcher_task_id);
    return NULL;
}

TEST(exception_info_names_the_thread_that_submitted_the_task)
{
    CHECK_OK(aclrtCreateStream(&launcher_stream));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    reset_seen();
    int count = 0;
    for (int i = 0; i < 5; i++)
        CHECK_OK(aclrtLaunchHostFunc(launcher_stream, count_fn, &count));
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, launcher_main, NULL));
    pthread_join(t, NULL);
    CHECK_EQ(ACL_ERROR_RT_AICPU_EXCEPTION, aclrtSynchronizeStream(launcher_stream));
    CHECK_EQ(1, atomic_load(&calls_a));
    CHECK_EQ(6, launcher_task_id);
    CHECK_EQ(launcher_task_id, seen_a[0].task);
    CHECK_EQ(launcher_tid, seen_a[0].thread);
    CHECK(seen_a[0].thread != my_tid());
    CHECK_OK(aclrtDestroyStream(launcher_stream));
}

TEST(slot_and_list_are_independent_and_a_function_in_both_runs_twice)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    reset_seen();
    CHECK_OK(aclrtSetExceptionInfoCallback(cb_a));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_b));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_b)); /* registering again keeps one entry */
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)507015));
    CHECK_EQ(507015, aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&calls_a));
    CHECK_EQ(1, atomic_load(&calls_b));
    /* Unregister removes list entries only; the slot stays until set to NULL. */
    CHECK_OK(aclrtExceptionInfoCallbackUnregister(cb_a));
    CHECK_OK(aclrtExceptionInfoCallbackUnregister(cb_b));
    CHECK_OK(aclrtExceptionInfoCallbackUnregister(cb_b)); /* unknown: success */
    reset_seen();
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)507015));
    CHECK_EQ(507015, aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&calls_a));
    CHECK_EQ(0, atomic_load(&calls_b));
    CHECK_OK(aclrtSetExceptionInfoCallback(cb_b)); /* last set wins */
    reset_seen();
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)507015));
    CHECK_EQ(507015, aclrtSynchronizeStream(s));
    CHECK_EQ(0, atomic_load(&calls_a));
    CHECK_EQ(1, atomic_load(&calls_b));
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    reset_seen();
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)507015));
    CHECK_EQ(507015, aclrtSynchronizeStream(s));
    CHECK_EQ(0, atomic_load(&calls_a) + atomic_load(&calls_b));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(register_and_unregister_null_are_param_invalid_and_getters_of_null_info_are_all_ones)
{
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtExceptionInfoCallbackRegister(NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtExceptionInfoCallbackUnregister(NULL));
    CHECK_EQ(0xFFFFFFFFu, aclrtGetTaskIdFromExceptionInfo(NULL));
    CHECK_EQ(0xFFFFFFFFu, aclrtGetStreamIdFromExceptionInfo(NULL));
    CHECK_EQ(0xFFFFFFFFu, aclrtGetThreadIdFromExceptionInfo(NULL));
    CHECK_EQ(0xFFFFFFFFu, aclrtGetDeviceIdFromExceptionInfo(NULL));
    CHECK_EQ(0xFFFFFFFFu, aclrtGetErrorCodeFromExceptionInfo(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetThreadLastTaskId(NULL));
}

TEST(task_ids_count_per_stream_and_the_last_one_is_per_thread)
{
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    int count = 0;
    uint32_t id;
    for (int i = 1; i <= 3; i++) {
        CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &count));
        CHECK_OK(aclrtGetThreadLastTaskId(&id));
        CHECK_EQ(i, id);
    }
    CHECK_OK(aclrtLaunchHostFunc(b, count_fn, &count));
    CHECK_OK(aclrtGetThreadLastTaskId(&id));
    CHECK_EQ(1, id);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    /* A new stream in a reused slot counts from 1 again. */
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &count));
    CHECK_OK(aclrtGetThreadLastTaskId(&id));
    CHECK_EQ(1, id);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(stream_wait_timeouts_fail_the_wait_task_and_fire_the_exception_callback)
{
    aclrtStream busy, w1, w2;
    aclrtEvent ev;
    CHECK_OK(aclrtCreateStream(&busy));
    CHECK_OK(aclrtCreateStream(&w1));
    CHECK_OK(aclrtCreateStream(&w2));
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    reset_seen();
    struct gate *g = launch_gate(busy);
    CHECK_OK(aclrtRecordEvent(ev, busy)); /* completes only when the gate opens */
    CHECK_OK(aclrtStreamWaitEventWithTimeout(w1, ev, 1));
    uint32_t id1;
    CHECK_OK(aclrtGetThreadLastTaskId(&id1));
    CHECK_OK(aclrtSetOpWaitTimeout(1));
    CHECK_OK(aclrtStreamWaitEvent(w2, ev));
    CHECK_OK(aclrtSetOpWaitTimeout(0));
    int count = 0;
    CHECK_OK(aclrtLaunchHostFunc(w1, count_fn, &count));
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(w1));
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(w2));
    CHECK_EQ(1, count); /* continue mode: the stream went on after the timed-out wait */
    CHECK_EQ(2, atomic_load(&calls_a));
    int32_t w1_id;
    CHECK_OK(aclrtStreamGetId(w1, &w1_id));
    int which = seen_a[0].stream == (uint32_t)w1_id ? 0 : 1;
    CHECK_EQ(w1_id, seen_a[which].stream);
    CHECK_EQ(id1, seen_a[which].task);
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, seen_a[which].code);
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, seen_a[1 - which].code);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(busy));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(w2));
    CHECK_OK(aclrtDestroyStream(w1));
    CHECK_OK(aclrtDestroyStream(busy));
}

static void nop_cb(void *arg)
{
    (void)arg;
}

TEST(a_callback_whose_stream_lost_its_thread_fails_with_stream_no_cb_reg)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    reset_seen();
    uint64_t me = (uint64_t)pthread_self();
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtSubscribeReport(me, s));
    CHECK_OK(aclrtLaunchCallback(nop_cb, NULL, ACL_CALLBACK_BLOCK, s));
    CHECK_OK(aclrtUnSubscribeReport(me, s)); /* before the stream reaches the callback */
    gate_open(g);
    CHECK_EQ(ACL_ERROR_RT_STREAM_NO_CB_REG, aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&calls_a));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NO_CB_REG, seen_a[0].code);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(stop_on_failure_reports_once_and_discards_the_contexts_later_tasks)
{
    aclrtContext ctx;
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtSetStreamFailureMode(a, ACL_STOP_ON_FAILURE));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(cb_a));
    reset_seen();
    int count = 0;
    struct gate *g = launch_gate(b);
    CHECK_OK(aclrtLaunchHostFunc(b, count_fn, &count)); /* queued behind the gate */
    CHECK_OK(aclrtxLaunchHostKernel(a, 1, fail_kernel, (void *)(intptr_t)507018));
    CHECK_EQ(507018, aclrtSynchronizeStream(a));
    gate_open(g);
    CHECK_EQ(507018, aclrtSynchronizeStream(b));
    CHECK_EQ(0, count);
    CHECK_EQ(1, atomic_load(&calls_a));
    CHECK_EQ(507018, aclrtLaunchHostFunc(a, count_fn, &count)); /* no new work accepted */
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyContext(ctx));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
}

/* Exception callbacks may call the runtime: here, launch on another stream. */
static aclrtStream reentry_stream;
static atomic_int reentry_rc = -1;

static void reentrant_cb(aclrtExceptionInfo *info)
{
    (void)info;
    static int count;
    atomic_store(&reentry_rc, aclrtLaunchHostFunc(reentry_stream, count_fn, &count));
}

TEST(an_exception_callback_may_launch_work_without_deadlocking)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateStream(&reentry_stream));
    CHECK_OK(aclrtExceptionInfoCallbackRegister(reentrant_cb));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)507015));
    CHECK_EQ(507015, aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_SUCCESS, atomic_load(&reentry_rc));
    CHECK_OK(aclrtSynchronizeStream(reentry_stream));
    CHECK_OK(aclrtExceptionInfoCallbackUnregister(reentrant_cb));
    CHECK_OK(aclrtDestroyStream(reentry_stream));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Last error
 * ------------------------------------------------------------------------ */

static aclError other_thread_last_error = -1;

static void *other_thread_main(void *arg)
{
    (void)arg;
    other_thread_last_error = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    return NULL;
}

TEST(last_error_keeps_the_threads_latest_failure_including_a_task_failure_seen_at_synchronize)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_EQ(ACL_RT_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(NULL));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)507015));
    CHECK_EQ(507015, aclrtSynchronizeStream(s));
    CHECK_EQ(507015, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)); /* overwritten by the newest error */
    CHECK_EQ(507015, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)); /* peek does not reset */
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, other_thread_main, NULL));
    pthread_join(t, NULL);
    CHECK_EQ(ACL_RT_SUCCESS, other_thread_last_error); /* per thread */
    CHECK_EQ(507015, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_RT_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL)); /* get resets */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError((aclrtLastErrLevel)1));
    /* The recent-error text accumulates, newest first, and is cleared by reading it. */
    aclGetRecentErrMsg();
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream((aclrtStream)0x5));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetThreadLastTaskId(NULL));
    const char *msg = aclGetRecentErrMsg();
    CHECK_STR_CONTAINS(msg, "aclrtGetThreadLastTaskId");
    CHECK_STR_CONTAINS(msg, "aclrtSynchronizeStream");
    CHECK(strstr(msg, "aclrtGetThreadLastTaskId") < strstr(msg, "aclrtSynchronizeStream"));
    CHECK(aclGetRecentErrMsg() == NULL);
    CHECK_OK(aclrtDestroyStream(s));
}

int main(void)
{
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
    RUN_CASE(exception_callback_gets_the_failing_host_kernels_ids_and_code);
    RUN_CASE(exception_info_names_the_thread_that_submitted_the_task);
    RUN_CASE(slot_and_list_are_independent_and_a_function_in_both_runs_twice);
    RUN_CASE(register_and_unregister_null_are_param_invalid_and_getters_of_null_info_are_all_ones);
    RUN_CASE(task_ids_count_per_stream_and_the_last_one_is_per_thread);
    RUN_CASE(stream_wait_timeouts_fail_the_wait_task_and_fire_the_exception_callback);
    RUN_CASE(a_callback_whose_stream_lost_its_thread_fails_with_stream_no_cb_reg);
    RUN_CASE(stop_on_failure_reports_once_and_discards_the_contexts_later_tasks);
    RUN_CASE(an_exception_callback_may_launch_work_without_deadlocking);
    RUN_CASE(last_error_keeps_the_threads_latest_failure_including_a_task_failure_seen_at_synchronize);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("exception");
}
