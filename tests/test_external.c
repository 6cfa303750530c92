/*
 * tests/test_external.c - pins external tasks (aclrtxLaunchExternalTask,
 * aclrtxCompleteExternalTask; docs/EMBEDDING.md, External tasks): the
 * stream reaches the task, calls its start function with a token, and the
 * task is complete when any thread completes the token. Events, waits,
 * synchronizes, failure modes, abort and destroy treat it like any task.
 *
 * Last, in a runtime of its own with external progress: the message of a
 * synchronize that times out while nobody drives the device's progress.
 *
 * A started task is completed by the test itself (from the main thread or a
 * helper thread), so "not before the completion" is proved by looking while
 * the token is still in hand: nothing that must wait for it can have run.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "probe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

static aclrtContext main_ctx;

/* An external task under the test's control: start records the token; the test completes it. */
struct ext {
    atomic_int started;
    aclrtxExternalToken token;
    aclError complete_in_start; /* >= 0: start completes the task itself with this code */
};

static void ext_start(aclrtxExternalToken token, void *arg)
{
    struct ext *x = (struct ext *)arg;
    x->token = token;
    if (x->complete_in_start >= 0)
        aclrtxCompleteExternalTask(token, x->complete_in_start);
    atomic_store_explicit(&x->started, 1, memory_order_release);
}

static void ext_init(struct ext *x)
{
    atomic_store(&x->started, 0);
    memset(&x->token, 0, sizeof x->token);
    x->complete_in_start = -1;
}

/* Wait (bounded) until the task started; 1 if it did. Acquire: the token is written. */
static int ext_wait_started(struct ext *x)
{
    for (long i = 0; i < 20000000L; i++) {
        if (atomic_load_explicit(&x->started, memory_order_acquire))
            return 1;
        sched_yield();
    }
    return 0;
}

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* Order of effects: each host function appends its tag. */
static atomic_int order_n;
static int order[16];

static void order_fn(void *arg)
{
    order[atomic_fetch_add(&order_n, 1)] = (int)(intptr_t)arg;
}

TEST(an_external_task_runs_in_stream_order_and_the_stream_goes_on_after_its_completion)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    atomic_store(&order_n, 0);
    static struct probe after;
    CHECK_OK(aclrtLaunchHostFunc(s, order_fn, (void *)1));
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    launch_probe(s, &after, NULL);
    CHECK(ext_wait_started(&x));
    CHECK_EQ(1, atomic_load(&order_n)); /* the task before it ran first */
    chance(&after.ran);
    CHECK_EQ(0, atomic_load(&after.ran)); /* nothing after it runs before the completion */
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&after.ran));
    CHECK_OK(aclrtDestroyStream(s));
}

struct completer {
    pthread_t thread;
    struct ext *x;
    atomic_int go;
    aclError rc;
};

static void *completer_main(void *arg)
{
    struct completer *c = (struct completer *)arg;
    while (!atomic_load(&c->go))
        sched_yield();
    c->rc = aclrtxCompleteExternalTask(c->x->token, ACL_SUCCESS);
    return NULL;
}

TEST(a_thread_that_never_used_the_runtime_completes_the_task_and_releases_a_synchronize)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    CHECK(ext_wait_started(&x));
    static struct completer c;
    c.x = &x;
    atomic_store(&c.go, 0);
    c.rc = -1;
    CHECK_EQ(0, pthread_create(&c.thread, NULL, completer_main, &c));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 1));
    atomic_store(&c.go, 1);
    CHECK_OK(aclrtSynchronizeStream(s)); /* returns once the other thread completed it */
    pthread_join(c.thread, NULL);
    CHECK_OK(c.rc);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(start_may_complete_its_own_task)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    x.complete_in_start = ACL_SUCCESS;
    static struct probe after;
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    launch_probe(s, &after, NULL);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&x.started));
    CHECK_EQ(1, atomic_load(&after.ran));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(an_event_recorded_after_the_task_completes_with_it_and_a_waiting_stream_waits_for_it)
{
    aclrtStream a = new_stream(), b = new_stream();
    aclrtEvent e;
    CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    static struct ext x;
    ext_init(&x);
    static struct probe consumer;
    CHECK_OK(aclrtxLaunchExternalTask(a, ext_start, &x));
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    launch_probe(b, &consumer, NULL);
    CHECK(ext_wait_started(&x));
    aclrtEventRecordedStatus status;
    CHECK_OK(aclrtQueryEventStatus(e, &status));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status);
    CHECK_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 1));
    chance(&consumer.ran);
    CHECK_EQ(0, atomic_load(&consumer.ran));
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_OK(aclrtQueryEventStatus(e, &status));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&consumer.ran));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

static atomic_int exception_calls;
static atomic_uint exception_task, exception_stream, exception_code;

static void on_exception(aclrtExceptionInfo *info)
{
    atomic_store(&exception_task, aclrtGetTaskIdFromExceptionInfo(info));
    atomic_store(&exception_stream, aclrtGetStreamIdFromExceptionInfo(info));
    atomic_store(&exception_code, aclrtGetErrorCodeFromExceptionInfo(info));
    atomic_fetch_add(&exception_calls, 1);
}

TEST(a_task_completed_with_an_error_fails_like_a_device_fault)
{
    aclrtStream s = new_stream();
    int32_t sid;
    CHECK_OK(aclrtStreamGetId(s, &sid));
    atomic_store(&exception_calls, 0);
    CHECK_OK(aclrtSetExceptionInfoCallback(on_exception));
    static struct ext x;
    ext_init(&x);
    static atomic_int after;
    atomic_store(&after, 0);
    CHECK_OK(aclrtLaunchHostFunc(s, order_fn, (void *)1));
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    uint32_t task_id;
    CHECK_OK(aclrtGetThreadLastTaskId(&task_id));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &after));
    CHECK(ext_wait_started(&x));
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_ERROR_RT_AICORE_OVER_FLOW));
    CHECK_EQ(ACL_ERROR_RT_AICORE_OVER_FLOW, aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&exception_calls));
    CHECK_EQ(task_id, atomic_load(&exception_task));
    CHECK_EQ(sid, (int32_t)atomic_load(&exception_stream));
    CHECK_EQ(ACL_ERROR_RT_AICORE_OVER_FLOW, atomic_load(&exception_code));
    CHECK_EQ(1, atomic_load(&after)); /* continue-on-failure (the default): the rest runs */
    CHECK_OK(aclrtSynchronizeStream(s)); /* the error was returned once */
    CHECK_OK(aclrtSetExceptionInfoCallback(NULL));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(completing_twice_or_a_token_that_names_nothing_is_param_invalid)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    CHECK(ext_wait_started(&x));
    aclrtxExternalToken forged = x.token;
    forged.task += 1; /* the next task number: not started */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCompleteExternalTask(forged, ACL_SUCCESS));
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no pending external task");
    aclrtxExternalToken zero = {0, 0};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCompleteExternalTask(zero, ACL_SUCCESS));
    aclrtxExternalToken garbage = {0xdeadbeefcafef00dull, 7};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCompleteExternalTask(garbage, ACL_SUCCESS));
    aclrtxExternalToken far = {x.token.stream | 0x0FFFFFFFull, 1}; /* a slot that was never made */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCompleteExternalTask(far, ACL_SUCCESS));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(launch_bad_input_has_the_documented_codes)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxLaunchExternalTask(NULL, NULL, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtxLaunchExternalTask((aclrtStream)(uintptr_t)0x1234, ext_start, NULL));
    aclrtStream s = new_stream();
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtxLaunchExternalTask(s, ext_start, NULL));
}

TEST(abort_discards_external_tasks_that_have_not_started)
{
    aclrtStream s = new_stream();
    struct gate *g = launch_gate(s);
    CHECK(gate_wait_entered(g));
    static struct ext x;
    ext_init(&x);
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    /* Abort waits for the running gate: open it from a thread once the abort is under way. */
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    CHECK_OK(aclrtStreamAbort(s));
    pthread_join(opener, NULL);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, atomic_load(&x.started)); /* discarded: start never called */
    CHECK_OK(aclrtDestroyStream(s));
}

struct abort_call {
    pthread_t thread;
    aclrtStream stream;
    atomic_int done;
    aclError rc;
};

static void *abort_main(void *arg)
{
    struct abort_call *a = (struct abort_call *)arg;
    aclrtSetCurrentContext(main_ctx);
    a->rc = aclrtStreamAbort(a->stream);
    atomic_store(&a->done, 1);
    return NULL;
}

TEST(abort_waits_for_a_started_external_task_like_a_running_task)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    static struct probe queued;
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    launch_probe(s, &queued, NULL);
    CHECK(ext_wait_started(&x));
    static struct abort_call a;
    a.stream = s;
    atomic_store(&a.done, 0);
    CHECK_EQ(0, pthread_create(&a.thread, NULL, abort_main, &a));
    /* The abort is under way once a synchronize sees it (it returns the abort code instead of timing out). */
    aclError rc;
    while ((rc = aclrtSynchronizeStreamWithTimeout(s, 1)) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        ;
    CHECK_EQ(ACL_ERROR_RT_STREAM_ABORT, rc);
    CHECK_EQ(0, atomic_load(&a.done)); /* still waiting for the started task */
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    pthread_join(a.thread, NULL);
    CHECK_OK(a.rc);
    CHECK_EQ(0, atomic_load(&queued.ran)); /* the task behind it was discarded */
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_force_destroy_with_a_started_task_returns_and_the_work_behind_it_runs_after_the_completion)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    static struct probe queued;
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    launch_probe(s, &queued, NULL);
    CHECK(ext_wait_started(&x));
    CHECK_OK(aclrtDestroyStreamForce(s));
    chance(&queued.ran);
    CHECK_EQ(0, atomic_load(&queued.ran)); /* not before the completion */
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    /* The slot is freed once the task completed: new streams come and go normally. */
    aclrtStream t = new_stream();
    CHECK_OK(aclrtLaunchHostFunc(t, order_fn, (void *)1));
    CHECK_OK(aclrtSynchronizeStream(t));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtDestroyStream(t));
    CHECK_EQ(1, atomic_load(&queued.ran)); /* launched work runs after a force destroy */
}

struct destroy_call {
    pthread_t thread;
    aclrtStream stream;
    atomic_int done;
    aclError rc;
};

static void *destroy_main(void *arg)
{
    struct destroy_call *d = (struct destroy_call *)arg;
    aclrtSetCurrentContext(main_ctx);
    d->rc = aclrtDestroyStream(d->stream);
    atomic_store(&d->done, 1);
    return NULL;
}

TEST(a_destroy_waits_for_a_started_task_and_runs_what_follows_it)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    static struct probe after;
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    launch_probe(s, &after, NULL);
    CHECK(ext_wait_started(&x));
    static struct destroy_call d;
    d.stream = s;
    atomic_store(&d.done, 0);
    CHECK_EQ(0, pthread_create(&d.thread, NULL, destroy_main, &d));
    chance(&d.done);
    CHECK_EQ(0, atomic_load(&d.done));
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    pthread_join(d.thread, NULL);
    CHECK_OK(d.rc);
    CHECK_EQ(1, atomic_load(&after.ran));
}

TEST(synchronize_device_waits_for_external_tasks)
{
    aclrtStream s = new_stream();
    static struct ext x;
    ext_init(&x);
    CHECK_OK(aclrtxLaunchExternalTask(s, ext_start, &x));
    CHECK(ext_wait_started(&x));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(1));
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_SUCCESS));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(stop_on_failure_after_an_external_failure_discards_the_other_streams_work)
{
    aclrtContext ctx;
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream a = new_stream(), b = new_stream();
    CHECK_OK(aclrtSetStreamFailureMode(a, ACL_STOP_ON_FAILURE));
    static struct ext x;
    ext_init(&x);
    struct gate *g = launch_gate(b);
    CHECK(gate_wait_entered(g));
    static struct probe later;
    launch_probe(b, &later, NULL);
    CHECK_OK(aclrtxLaunchExternalTask(a, ext_start, &x));
    CHECK(ext_wait_started(&x));
    CHECK_OK(aclrtxCompleteExternalTask(x.token, ACL_ERROR_RT_AICORE_OVER_FLOW));
    CHECK_EQ(ACL_ERROR_RT_AICORE_OVER_FLOW, aclrtSynchronizeStream(a));
    gate_open(g);
    CHECK_EQ(ACL_ERROR_RT_AICORE_OVER_FLOW, aclrtSynchronizeStream(b));
    CHECK_EQ(0, atomic_load(&later.ran));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyContext(ctx));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
}

/*
 * With external progress, work runs only inside aclrtxDeviceProgress calls.
 * A synchronize (stream, event, device) that times out while nobody has
 * called it for the device says so. Run last, in a runtime of its own:
 * ACLRT_PROGRESS=external and ten devices; device 9 is driven by nobody
 * (the external configuration's drivers run devices 0 to 7), until this
 * test calls aclrtxDeviceProgress itself, which then runs the work.
 */
#define NO_PROGRESS_TEXT "no thread has called aclrtxDeviceProgress for device 9 in the last"

TEST(a_timeout_with_external_progress_that_nobody_drives_says_so)
{
    setenv("ACLRT_PROGRESS", "external", 1);
    setenv("ACLRT_DEVICES", "10", 1);
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(9));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int ran;
    atomic_store(&ran, 0);
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEvent(&ev));
    CHECK_OK(aclrtRecordEvent(ev, s));

    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 20));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), NO_PROGRESS_TEXT);
    CHECK_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(ev, 20));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), NO_PROGRESS_TEXT);
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(20));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), NO_PROGRESS_TEXT);
    CHECK_EQ(0, atomic_load(&ran));

    /* Driven by this thread, the work runs and the synchronizes succeed. */
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    for (long i = 0; i < 1000000L && st != ACL_STREAM_STATUS_COMPLETE; i++) {
        aclrtxProgressInfo info;
        CHECK_OK(aclrtxDeviceProgress(9, 16, &info));
        CHECK_OK(aclrtStreamQuery(s, &st));
    }
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, 20));
    CHECK_OK(aclrtSynchronizeEventWithTimeout(ev, 20));
    CHECK_OK(aclrtSynchronizeDeviceWithTimeout(20));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(9));
    CHECK_OK(aclFinalize());
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
#define RUN_CASE(name)                          \
    do {                                        \
        RUN(name);                              \
        gates_open_all();                       \
        aclrtSetCurrentContext(main_ctx);       \
    } while (0)
    RUN_CASE(an_external_task_runs_in_stream_order_and_the_stream_goes_on_after_its_completion);
    RUN_CASE(a_thread_that_never_used_the_runtime_completes_the_task_and_releases_a_synchronize);
    RUN_CASE(start_may_complete_its_own_task);
    RUN_CASE(an_event_recorded_after_the_task_completes_with_it_and_a_waiting_stream_waits_for_it);
    RUN_CASE(a_task_completed_with_an_error_fails_like_a_device_fault);
    RUN_CASE(completing_twice_or_a_token_that_names_nothing_is_param_invalid);
    RUN_CASE(launch_bad_input_has_the_documented_codes);
    RUN_CASE(abort_discards_external_tasks_that_have_not_started);
    RUN_CASE(abort_waits_for_a_started_external_task_like_a_running_task);
    RUN_CASE(a_force_destroy_with_a_started_task_returns_and_the_work_behind_it_runs_after_the_completion);
    RUN_CASE(a_destroy_waits_for_a_started_task_and_runs_what_follows_it);
    RUN_CASE(synchronize_device_waits_for_external_tasks);
    RUN_CASE(stop_on_failure_after_an_external_failure_discards_the_other_streams_work);
    aclrtResetDevice(0);
    aclFinalize();
    RUN(a_timeout_with_external_progress_that_nobody_drives_says_so);
    return check_report("external");
}
