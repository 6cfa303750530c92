/*
 * tests/test_device.c - device & context: aclrtSetDevice / aclrtResetDevice
 * reference counting, device ids, the shared default context and default
 * stream, explicit contexts, streams of another context, contexts released
 * under a thread, and device-wide synchronization.
 *
 * Two devices (ACLRT_DEVICES=2, set before the first call). Every case
 * resets the devices it set and destroys what it created.
 */
#define _GNU_SOURCE 1

#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

/* Upper bound of every spin, so that a broken runtime fails a check instead of hanging. */
#define SPIN_BOUND 20000000L

static void set_flag(void *p)
{
    atomic_store((atomic_int *)p, 1);
}

static void add_one(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

/* A host function that holds its stream until the test opens the gate. */
struct gate {
    atomic_int entered;
    atomic_int open;
};

static void wait_at_gate(void *p)
{
    struct gate *g = (struct gate *)p;
    atomic_fetch_add(&g->entered, 1);
    for (long i = 0; i < SPIN_BOUND && !atomic_load(&g->open); i++)
        sched_yield();
}

/* Spin (bounded) until *flag reaches at least `value`; whether it did. */
static int spin_until(atomic_int *flag, int value)
{
    for (long i = 0; i < SPIN_BOUND; i++) {
        if (atomic_load(flag) >= value)
            return 1;
        sched_yield();
    }
    return 0;
}

/* Host functions append their tag here, in the order they run. */
struct order {
    atomic_int n;
    int tags[16];
};

struct order_item {
    struct order *order;
    int tag;
};

static void append_tag(void *p)
{
    struct order_item *it = (struct order_item *)p;
    int i = atomic_fetch_add(&it->order->n, 1);
    if (i < 16)
        it->order->tags[i] = it->tag;
}

static aclError fail_with_aicore_exception(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    (void)args;
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

static void run_in_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, fn, arg));
    CHECK_EQ(0, pthread_join(t, NULL));
}

/* Opens a gate once the main thread says it is about to block. */
struct opener {
    atomic_int about_to_block;
    struct gate *gate;
};

static void *open_when_told(void *p)
{
    struct opener *o = (struct opener *)p;
    spin_until(&o->about_to_block, 1);
    for (int i = 0; i < 100; i++) /* give the blocking call a head start; correctness does not depend on it */
        sched_yield();
    atomic_store(&o->gate->open, 1);
    return NULL;
}

/* ------------------------------------------------------------------------
 * aclrtSetDevice / aclrtResetDevice reference counting
 * ------------------------------------------------------------------------ */

TEST(two_sets_need_two_resets_before_release)
{
    aclrtStream def = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK_OK(aclrtResetDevice(0));
    /* One reference left: the default context and stream are still there. */
    atomic_int ran = 0;
    CHECK_OK(aclrtSynchronizeStream(def));
    CHECK_OK(aclrtLaunchHostFunc(NULL, set_flag, &ran));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtResetDevice(0));
    /* Released. */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(def));
}

TEST(reset_after_release_fails)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDevice(0));
    CHECK_EQ(107002, aclrtResetDevice(0));
}

TEST(reset_of_never_set_device_fails)
{
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDevice(1));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDeviceForce(1));
}

TEST(reset_force_releases_regardless_of_count)
{
    aclrtStream def = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK_OK(aclrtResetDeviceForce(0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(def));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDevice(0)); /* Reset after Force fails */
}

TEST(force_after_release_fails)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDeviceForce(0));
}

TEST(force_after_force_fails)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtResetDeviceForce(0));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDeviceForce(0));
}

TEST(force_after_partial_reset_works)
{
    aclrtStream def = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclrtResetDeviceForce(0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(def));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDevice(0));
}

TEST(set_after_release_creates_a_new_default_context)
{
    aclrtContext old_ctx = NULL, new_ctx = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&old_ctx));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&new_ctx));
    CHECK(new_ctx != old_ctx);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(old_ctx));
    atomic_int ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(NULL, set_flag, &ran));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtResetDevice(0));
}

struct churn_arg {
    atomic_int *counter;
    int failures;
};

static void *set_launch_reset_loop(void *p)
{
    struct churn_arg *a = (struct churn_arg *)p;
    for (int i = 0; i < 50; i++) {
        if (aclrtSetDevice(0) != ACL_SUCCESS)
            a->failures++;
        if (aclrtLaunchHostFunc(NULL, add_one, a->counter) != ACL_SUCCESS)
            a->failures++;
        if (aclrtResetDevice(0) != ACL_SUCCESS)
            a->failures++;
    }
    return NULL;
}

TEST(concurrent_sets_and_resets_keep_the_count)
{
    enum { N = 6 };
    atomic_int counter = 0;
    aclrtStream def = NULL;
    CHECK_OK(aclrtSetDevice(0)); /* holds the device across the churn */
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    struct churn_arg args[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        args[i].counter = &counter;
        args[i].failures = 0;
        CHECK_EQ(0, pthread_create(&t[i], NULL, set_launch_reset_loop, &args[i]));
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(0, pthread_join(t[i], NULL));
    for (int i = 0; i < N; i++)
        CHECK_EQ(0, args[i].failures);
    CHECK_OK(aclrtSynchronizeStream(def)); /* never released: this thread's reference is left */
    CHECK_EQ(N * 50, atomic_load(&counter));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(def));
}

/* ------------------------------------------------------------------------
 * Device ids, counts, parameters
 * ------------------------------------------------------------------------ */

TEST(device_count_is_the_configured_count)
{
    uint32_t n = 0;
    CHECK_OK(aclrtGetDeviceCount(&n));
    CHECK_EQ(2, n);
}

TEST(invalid_device_ids_are_rejected)
{
    uint32_t n = 0;
    aclrtContext c = NULL;
    CHECK_OK(aclrtGetDeviceCount(&n));
    CHECK_EQ(107001, aclrtSetDevice(-1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice((int32_t)n));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(INT32_MAX));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(-1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice((int32_t)n));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceForce((int32_t)n));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&c, -1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&c, (int32_t)n));
}

TEST(null_out_pointers_are_invalid_param)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(100000, aclrtGetDevice(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetCurrentContext(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCtxGetCurrentDefaultStream(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateContext(NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(NULL));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(get_device_returns_the_set_device)
{
    int32_t dev = -1;
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(1, dev);
    CHECK_OK(aclrtSetDevice(0)); /* switching */
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(0, dev);
    CHECK_OK(aclrtResetDevice(1));
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(0, dev);
    CHECK_OK(aclrtResetDevice(0));
}

TEST(run_mode_is_host)
{
    aclrtRunMode mode = ACL_DEVICE;
    CHECK_OK(aclrtGetRunMode(&mode));
    CHECK_EQ(ACL_HOST, mode);
}

/* ------------------------------------------------------------------------
 * Threads without a context, shared default context
 * ------------------------------------------------------------------------ */

struct no_ctx_arg {
    aclrtStream foreign;
    aclError create_stream, get_device, get_ctx, get_default_stream, launch_null, launch_foreign, sync_device,
        sync_null, create_event, sync_foreign;
};

static void *calls_without_context(void *p)
{
    struct no_ctx_arg *a = (struct no_ctx_arg *)p;
    aclrtStream s = NULL;
    aclrtContext c = NULL;
    aclrtEvent e = NULL;
    int32_t dev = -1;
    atomic_int dummy = 0;
    a->create_stream = aclrtCreateStream(&s);
    a->get_device = aclrtGetDevice(&dev);
    a->get_ctx = aclrtGetCurrentContext(&c);
    a->get_default_stream = aclrtCtxGetCurrentDefaultStream(&s);
    a->launch_null = aclrtLaunchHostFunc(NULL, set_flag, &dummy);
    a->launch_foreign = aclrtLaunchHostFunc(a->foreign, set_flag, &dummy);
    a->sync_device = aclrtSynchronizeDevice();
    a->sync_null = aclrtSynchronizeStream(NULL);
    a->create_event = aclrtCreateEvent(&e);
    a->sync_foreign = aclrtSynchronizeStream(a->foreign);
    return NULL;
}

TEST(thread_without_context_gets_context_null)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtSetDevice(0)); /* this thread has a device; the new one does not */
    CHECK_OK(aclrtCreateStream(&s));
    struct no_ctx_arg a;
    memset(&a, 0, sizeof a);
    a.foreign = s;
    run_in_thread(calls_without_context, &a);
    CHECK_EQ(107002, a.create_stream);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.get_device);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.get_ctx);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.get_default_stream);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.launch_null);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.launch_foreign); /* a submission needs a current context */
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.sync_device);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.sync_null);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, a.create_event);
    CHECK_OK(a.sync_foreign); /* synchronize accepts any live stream */
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(0));
}

struct share_arg {
    int32_t device;
    aclrtContext ctx;
    aclrtStream def;
    aclError set, get_ctx, get_def, reset;
};

static void *set_and_report(void *p)
{
    struct share_arg *a = (struct share_arg *)p;
    a->set = aclrtSetDevice(a->device);
    a->get_ctx = aclrtGetCurrentContext(&a->ctx);
    a->get_def = aclrtCtxGetCurrentDefaultStream(&a->def);
    a->reset = aclrtResetDevice(a->device);
    return NULL;
}

TEST(threads_setting_a_device_share_its_default_context_and_stream)
{
    enum { N = 4 };
    aclrtContext ctx = NULL;
    aclrtStream def = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&ctx));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK(ctx != NULL && def != NULL);
    struct share_arg args[N + 1];
    pthread_t t[N + 1];
    memset(args, 0, sizeof args);
    for (int i = 0; i <= N; i++) {
        args[i].device = i == N ? 1 : 0; /* the last one sets the other device */
        CHECK_EQ(0, pthread_create(&t[i], NULL, set_and_report, &args[i]));
    }
    for (int i = 0; i <= N; i++)
        CHECK_EQ(0, pthread_join(t[i], NULL));
    for (int i = 0; i <= N; i++) {
        CHECK_OK(args[i].set);
        CHECK_OK(args[i].get_ctx);
        CHECK_OK(args[i].get_def);
        CHECK_OK(args[i].reset);
    }
    for (int i = 0; i < N; i++) {
        CHECK(args[i].ctx == ctx);
        CHECK(args[i].def == def);
    }
    CHECK(args[N].ctx != ctx); /* device 1 has its own */
    CHECK(args[N].def != def);
    CHECK_OK(aclrtResetDevice(0));
}

/* ------------------------------------------------------------------------
 * Explicit contexts
 * ------------------------------------------------------------------------ */

TEST(create_context_makes_it_current)
{
    aclrtContext dctx = NULL, c = NULL, cur = NULL;
    aclrtStream ddef = NULL, cdef = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&ddef));
    CHECK_OK(aclrtCreateContext(&c, 0));
    CHECK(c != NULL && c != dctx);
    CHECK_OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == c);
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&cdef));
    CHECK(cdef != NULL && cdef != ddef); /* a context owns its default stream */
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(c));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(set_current_context_switches_and_get_returns_it)
{
    aclrtContext dctx = NULL, c1 = NULL, c2 = NULL, cur = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCreateContext(&c1, 0));
    CHECK_OK(aclrtCreateContext(&c2, 0));
    CHECK_OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == c2);
    CHECK_OK(aclrtSetCurrentContext(c1));
    CHECK_OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == c1);
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == dctx);
    CHECK_OK(aclrtSetCurrentContext(c2));
    CHECK_OK(aclrtGetCurrentContext(&cur));
    CHECK(cur == c2);
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(c1));
    CHECK_OK(aclrtDestroyContext(c2));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(null_stream_goes_to_the_current_contexts_default_stream)
{
    aclrtContext dctx = NULL, c = NULL;
    aclrtStream ddef = NULL, cdef = NULL;
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    struct gate g = {0, 0};
    atomic_int after = 0;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&ddef));
    CHECK_OK(aclrtCreateContext(&c, 0));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&cdef));
    CHECK_OK(aclrtLaunchHostFunc(NULL, wait_at_gate, &g)); /* into c's default stream */
    CHECK_OK(aclrtLaunchHostFunc(NULL, set_flag, &after));
    CHECK_OK(aclrtStreamQuery(cdef, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    CHECK_OK(aclrtStreamQuery(ddef, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st); /* not the device's default stream */
    atomic_store(&g.open, 1);
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&after));
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(c));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(explicit_context_on_device_1_while_device_0_is_set)
{
    aclrtContext dctx = NULL, c1 = NULL;
    aclrtStream s = NULL;
    int32_t dev = -1;
    atomic_int ran = 0;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCreateContext(&c1, 1));
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(1, dev);
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag, &ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtSetCurrentContext(dctx)); /* switches the thread's device back */
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(0, dev);
    CHECK_OK(aclrtSetCurrentContext(c1));
    CHECK_OK(aclrtGetDevice(&dev));
    CHECK_EQ(1, dev);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(c1));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(explicit_context_survives_device_reset)
{
    aclrtContext c = NULL;
    aclrtStream s = NULL;
    atomic_int ran = 0;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateContext(&c, 0));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclrtSetCurrentContext(c));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag, &ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyContext(c));
}

TEST(streams_of_another_context_are_rejected_for_submission)
{
    aclrtContext a = NULL, b = NULL;
    aclrtStream sa = NULL;
    aclrtEvent e = NULL;
    struct order order;
    memset(&order, 0, sizeof order);
    struct order_item first = {&order, 1}, rejected = {&order, 99}, second = {&order, 2};
    char src[8] = "abcdefg", dst[8] = {0};
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&a));
    CHECK_OK(aclrtCreateStream(&sa));
    CHECK_OK(aclrtLaunchHostFunc(sa, append_tag, &first));

    CHECK_OK(aclrtCreateContext(&b, 0)); /* current: b */
    CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(e, NULL)); /* on b's default stream */
    CHECK_EQ(107003, aclrtLaunchHostFunc(sa, append_tag, &rejected));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(e, sa));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(sa, e));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT,
             aclrtMemcpyAsync(dst, sizeof dst, src, sizeof src, ACL_MEMCPY_HOST_TO_HOST, sa));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStream(sa));
    CHECK_OK(aclrtSynchronizeStream(sa)); /* synchronize accepts any live stream */

    /* The stream's own work is unaffected. */
    CHECK_OK(aclrtSetCurrentContext(a));
    CHECK_OK(aclrtLaunchHostFunc(sa, append_tag, &second));
    CHECK_OK(aclrtSynchronizeStream(sa));
    CHECK_EQ(2, atomic_load(&order.n));
    CHECK_EQ(1, order.tags[0]);
    CHECK_EQ(2, order.tags[1]);
    CHECK_EQ(0, dst[0]); /* the rejected copy never ran */

    CHECK_OK(aclrtDestroyStream(sa));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyContext(b));
    CHECK_OK(aclrtResetDevice(0));
}

static void count_run(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/*
 * A stream takes work only from a thread whose current context is the
 * stream's, live: by its own handle or the context's default stream's; not
 * once the context is destroyed, nor when a new context takes its slot.
 */
TEST(a_stream_takes_work_only_in_its_own_live_context)
{
    aclrtContext a = NULL, b = NULL, c = NULL;
    aclrtStream sa = NULL, da = NULL, db = NULL;
    atomic_int ran = 0;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateContext(&a, 0)); /* current: a */
    CHECK_OK(aclrtCreateStream(&sa));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&da));
    CHECK_OK(aclrtLaunchHostFunc(da, count_run, &ran));
    CHECK_OK(aclrtLaunchHostFunc(sa, count_run, &ran));
    CHECK_OK(aclrtCreateContext(&b, 0)); /* current: b */
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&db));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtLaunchHostFunc(da, count_run, &ran));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtLaunchHostFunc(sa, count_run, &ran));
    CHECK_OK(aclrtLaunchHostFunc(db, count_run, &ran));
    CHECK_OK(aclrtSynchronizeStream(db));

    CHECK_OK(aclrtSetCurrentContext(a));
    CHECK_OK(aclrtDestroyContext(a)); /* its streams go with it (their work done first); none is current */
    CHECK_EQ(3, atomic_load(&ran));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtLaunchHostFunc(sa, count_run, &ran));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtLaunchHostFunc(da, count_run, &ran));
    CHECK_OK(aclrtCreateContext(&c, 0)); /* current: c, which may have a's slot */
    CHECK(c != a);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchHostFunc(sa, count_run, &ran));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchHostFunc(da, count_run, &ran));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtLaunchHostFunc(db, count_run, &ran));
    CHECK_OK(aclrtLaunchHostFunc(NULL, count_run, &ran));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(4, atomic_load(&ran));

    CHECK_OK(aclrtDestroyContext(c));
    CHECK_OK(aclrtDestroyContext(b));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(destroying_a_default_context_is_param_invalid)
{
    aclrtContext dctx = NULL;
    atomic_int ran = 0;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_EQ(107000, aclrtDestroyContext(dctx));
    /* Still alive and current. */
    CHECK_OK(aclrtLaunchHostFunc(NULL, set_flag, &ran));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(destroyed_context_handle_is_invalid_handle)
{
    aclrtContext dctx = NULL, c = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCreateContext(&c, 0));
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(c));
    CHECK_EQ(107017, aclrtDestroyContext(c));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(c));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(destroy_context_null_is_invalid_param)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(NULL));
}

TEST(destroy_context_releases_its_streams_after_their_work)
{
    aclrtContext c = NULL;
    aclrtStream s = NULL, cdef = NULL;
    atomic_int counter = 0;
    struct gate g = {0, 0};
    CHECK_OK(aclrtCreateContext(&c, 0));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&cdef));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtLaunchHostFunc(s, wait_at_gate, &g));
    for (int i = 0; i < 20; i++) {
        CHECK_OK(aclrtLaunchHostFunc(s, add_one, &counter));
        CHECK_OK(aclrtLaunchHostFunc(NULL, add_one, &counter));
    }
    struct opener o = {0, &g};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, open_when_told, &o));
    atomic_store(&o.about_to_block, 1);
    CHECK_OK(aclrtDestroyContext(c));
    CHECK_EQ(40, atomic_load(&counter));
    CHECK_EQ(0, pthread_join(t, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(cdef));
}

struct destroy_arg {
    aclrtContext ctx;
    aclError rc;
};

static void *destroy_context(void *p)
{
    struct destroy_arg *a = (struct destroy_arg *)p;
    a->rc = aclrtDestroyContext(a->ctx);
    return NULL;
}

TEST(context_destroyed_by_another_thread_reads_as_no_context)
{
    aclrtContext c = NULL, cur = NULL;
    aclrtStream s = NULL;
    atomic_int ran = 0;
    CHECK_OK(aclrtCreateContext(&c, 0)); /* current here */
    struct destroy_arg a = {c, -1};
    run_in_thread(destroy_context, &a);
    CHECK_OK(a.rc);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&cur));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStream(&s));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtLaunchHostFunc(NULL, set_flag, &ran));
    CHECK_EQ(0, atomic_load(&ran));
}

struct force_arg {
    aclError set, force;
};

static void *set_then_force_reset(void *p)
{
    struct force_arg *a = (struct force_arg *)p;
    a->set = aclrtSetDevice(0);
    a->force = aclrtResetDeviceForce(0);
    return NULL;
}

TEST(device_released_by_another_thread_reads_as_no_context)
{
    aclrtContext cur = NULL;
    int32_t dev = -1;
    CHECK_OK(aclrtSetDevice(0));
    struct force_arg a = {-1, -1};
    run_in_thread(set_then_force_reset, &a);
    CHECK_OK(a.set);
    CHECK_OK(a.force);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&cur));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, aclrtResetDevice(0)); /* already released */
}

/* ------------------------------------------------------------------------
 * Reset and synchronize wait for work
 * ------------------------------------------------------------------------ */

TEST(reset_device_waits_for_default_context_work)
{
    aclrtStream s = NULL;
    atomic_int on_default = 0, on_created = 0;
    struct gate g = {0, 0};
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s)); /* created in the default context */
    CHECK_OK(aclrtLaunchHostFunc(NULL, wait_at_gate, &g));
    CHECK_OK(aclrtLaunchHostFunc(NULL, set_flag, &on_default));
    CHECK_OK(aclrtLaunchHostFunc(s, wait_at_gate, &g));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag, &on_created));
    struct opener o = {0, &g};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, open_when_told, &o));
    atomic_store(&o.about_to_block, 1);
    CHECK_OK(aclrtResetDevice(0));
    CHECK_EQ(1, atomic_load(&on_default));
    CHECK_EQ(1, atomic_load(&on_created));
    CHECK_EQ(0, pthread_join(t, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s)); /* released with the context */
}

TEST(synchronize_device_waits_for_all_streams_of_the_device)
{
    enum { STREAMS = 4, TASKS = 25 };
    aclrtContext dctx = NULL, other = NULL;
    aclrtStream s[STREAMS], so = NULL;
    atomic_int counters[STREAMS + 2];
    struct gate g = {0, 0};
    for (int i = 0; i < STREAMS + 2; i++)
        atomic_init(&counters[i], 0);
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    /* An explicit context on the same device, with a stream. */
    CHECK_OK(aclrtCreateContext(&other, 0));
    CHECK_OK(aclrtCreateStream(&so));
    CHECK_OK(aclrtLaunchHostFunc(so, wait_at_gate, &g));
    for (int k = 0; k < TASKS; k++)
        CHECK_OK(aclrtLaunchHostFunc(so, add_one, &counters[STREAMS + 1]));
    CHECK_OK(aclrtSetCurrentContext(dctx));
    for (int i = 0; i < STREAMS; i++) {
        CHECK_OK(aclrtCreateStream(&s[i]));
        CHECK_OK(aclrtLaunchHostFunc(s[i], wait_at_gate, &g));
        for (int k = 0; k < TASKS; k++)
            CHECK_OK(aclrtLaunchHostFunc(s[i], add_one, &counters[i]));
    }
    CHECK_OK(aclrtLaunchHostFunc(NULL, wait_at_gate, &g));
    for (int k = 0; k < TASKS; k++)
        CHECK_OK(aclrtLaunchHostFunc(NULL, add_one, &counters[STREAMS]));

    struct opener o = {0, &g};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, open_when_told, &o));
    atomic_store(&o.about_to_block, 1);
    CHECK_OK(aclrtSynchronizeDevice());
    for (int i = 0; i < STREAMS + 2; i++)
        CHECK_EQ(TASKS, atomic_load(&counters[i]));
    CHECK_EQ(0, pthread_join(t, NULL));

    for (int i = 0; i < STREAMS; i++)
        CHECK_OK(aclrtDestroyStream(s[i]));
    CHECK_OK(aclrtSetCurrentContext(other));
    CHECK_OK(aclrtDestroyStream(so));
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(synchronize_device_covers_streams_of_every_context_on_the_device)
{
    aclrtContext dctx = NULL, other = NULL;
    aclrtStream so = NULL;
    atomic_int after_other = 0, after_default = 0;
    struct gate g1 = {0, 0}, g2 = {0, 0};
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCreateContext(&other, 0));
    CHECK_OK(aclrtCreateStream(&so));
    CHECK_OK(aclrtLaunchHostFunc(so, wait_at_gate, &g1));
    CHECK_OK(aclrtLaunchHostFunc(so, set_flag, &after_other));
    /* From the default context: the explicit context's stream is pending. */
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(20));
    CHECK_EQ(0, atomic_load(&after_other));
    atomic_store(&g1.open, 1);
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_EQ(1, atomic_load(&after_other));
    /* From the explicit context: the default context's default stream is pending. */
    CHECK_OK(aclrtLaunchHostFunc(NULL, wait_at_gate, &g2));
    CHECK_OK(aclrtLaunchHostFunc(NULL, set_flag, &after_default));
    CHECK_OK(aclrtSetCurrentContext(other));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(20));
    CHECK_EQ(0, atomic_load(&after_default));
    atomic_store(&g2.open, 1);
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_EQ(1, atomic_load(&after_default));
    CHECK_OK(aclrtDestroyStream(so));
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(synchronize_device_does_not_wait_for_other_devices)
{
    aclrtContext dctx = NULL, c1 = NULL;
    aclrtStream s0 = NULL, s1 = NULL;
    atomic_int dev0_after = 0, dev1_done = 0;
    struct gate g = {0, 0};
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCreateStream(&s0));
    CHECK_OK(aclrtLaunchHostFunc(s0, wait_at_gate, &g));
    CHECK_OK(aclrtLaunchHostFunc(s0, set_flag, &dev0_after));
    CHECK_OK(aclrtCreateContext(&c1, 1));
    CHECK_OK(aclrtCreateStream(&s1));
    CHECK_OK(aclrtLaunchHostFunc(s1, set_flag, &dev1_done));
    CHECK_OK(aclrtSynchronizeDevice()); /* device 1 */
    CHECK_EQ(1, atomic_load(&dev1_done));
    CHECK_EQ(0, atomic_load(&dev0_after)); /* device 0 is still held at the gate */
    atomic_store(&g.open, 1);
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtSetCurrentContext(dctx));
    CHECK_OK(aclrtDestroyContext(c1));
    CHECK_OK(aclrtSynchronizeDevice()); /* device 0 */
    CHECK_EQ(1, atomic_load(&dev0_after));
    CHECK_OK(aclrtDestroyStream(s0));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(synchronize_device_with_timeout_rejects_zero_and_below_minus_one)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(107000, aclrtSynchronizeDeviceWithTimeout(0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(-2));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(INT32_MIN));
    CHECK_OK(aclrtSynchronizeDeviceWithTimeout(-1));
    CHECK_OK(aclrtSynchronizeDeviceWithTimeout(1000));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(synchronize_device_with_timeout_times_out_on_a_blocked_stream)
{
    aclrtStream s = NULL;
    atomic_int after = 0;
    struct gate g = {0, 0};
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtLaunchHostFunc(s, wait_at_gate, &g));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag, &after));
    CHECK_EQ(507046, aclrtSynchronizeDeviceWithTimeout(20));
    CHECK_EQ(0, atomic_load(&after)); /* the gate is still closed */
    atomic_store(&g.open, 1);
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_EQ(1, atomic_load(&after));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(synchronize_device_reports_a_task_failure_once)
{
    aclrtStream s = NULL;
    atomic_int after = 0;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_with_aicore_exception, NULL));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag, &after)); /* continue on failure: still runs */
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeDevice());
    CHECK_EQ(1, atomic_load(&after));
    CHECK_OK(aclrtSynchronizeDevice()); /* cleared */
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(0));
}

TEST(null_stream_is_the_default_stream)
{
    aclrtStream def = NULL;
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    atomic_int ran = 0;
    struct gate g = {0, 0};
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK_OK(aclrtLaunchHostFunc(NULL, wait_at_gate, &g));
    CHECK_OK(aclrtLaunchHostFunc(NULL, set_flag, &ran));
    CHECK_OK(aclrtStreamQuery(def, &st)); /* the work launched on NULL is on this handle */
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    CHECK_EQ(0, atomic_load(&ran));
    atomic_store(&g.open, 1);
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtStreamQuery(def, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_OK(aclrtResetDevice(0));
}

TEST(null_and_explicit_default_stream_keep_one_order)
{
    aclrtStream def = NULL;
    struct order order;
    memset(&order, 0, sizeof order);
    struct order_item items[6];
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    for (int i = 0; i < 6; i++) {
        items[i].order = &order;
        items[i].tag = i + 1;
        CHECK_OK(aclrtLaunchHostFunc(i % 2 ? def : NULL, append_tag, &items[i]));
    }
    CHECK_OK(aclrtSynchronizeStream(def));
    CHECK_EQ(6, atomic_load(&order.n));
    for (int i = 0; i < 6; i++)
        CHECK_EQ(i + 1, order.tags[i]);
    CHECK_OK(aclrtResetDevice(0));
}

/*
 * Device synchronize walks every stream of the device while other threads
 * create and destroy streams: it must neither read a stream another thread
 * is initialising or tearing down (ThreadSanitizer checks the variant
 * built with it) nor miss the work of a stream alive for the whole call.
 */
struct churn {
    aclrtContext ctx;
    atomic_int *stop;
    atomic_int ran;
    int launched;
    int failures;
};

static void *churn_main(void *arg)
{
    struct churn *c = (struct churn *)arg;
    if (aclrtSetCurrentContext(c->ctx) != ACL_SUCCESS)
        c->failures++;
    for (int i = 0; i < 200; i++) {
        aclrtStream s = NULL;
        if (aclrtCreateStream(&s) != ACL_SUCCESS) {
            c->failures++;
            continue;
        }
        for (int k = 0; k < 3; k++)
            if (aclrtLaunchHostFunc(s, add_one, &c->ran) == ACL_SUCCESS)
                c->launched++;
        if (aclrtDestroyStream(s) != ACL_SUCCESS) /* waits for its work */
            c->failures++;
    }
    return NULL;
}

struct device_syncer {
    aclrtContext ctx;
    atomic_int *stop;
    aclrtStream steady;
    atomic_int steady_ran;
    int calls;
    int failures;
};

static void *device_syncer_main(void *arg)
{
    struct device_syncer *d = (struct device_syncer *)arg;
    if (aclrtSetCurrentContext(d->ctx) != ACL_SUCCESS)
        d->failures++;
    while (!atomic_load(d->stop)) {
        /* Work on a stream that lives through the call: the synchronize must cover it. */
        int before = atomic_load(&d->steady_ran);
        if (aclrtLaunchHostFunc(d->steady, add_one, &d->steady_ran) != ACL_SUCCESS)
            d->failures++;
        if (aclrtSynchronizeDevice() != ACL_SUCCESS || atomic_load(&d->steady_ran) <= before)
            d->failures++;
        d->calls++;
    }
    return NULL;
}

TEST(synchronize_device_while_other_threads_create_and_destroy_streams)
{
    enum { CHURNERS = 2, SYNCERS = 2 };
    aclrtContext ctx = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&ctx));
    atomic_int stop = 0;
    struct churn churners[CHURNERS];
    struct device_syncer syncers[SYNCERS];
    pthread_t ct[CHURNERS], st[SYNCERS];
    for (int i = 0; i < SYNCERS; i++) {
        memset(&syncers[i], 0, sizeof syncers[i]);
        syncers[i].ctx = ctx;
        syncers[i].stop = &stop;
        CHECK_OK(aclrtCreateStream(&syncers[i].steady));
        CHECK_EQ(0, pthread_create(&st[i], NULL, device_syncer_main, &syncers[i]));
    }
    for (int i = 0; i < CHURNERS; i++) {
        memset(&churners[i], 0, sizeof churners[i]);
        churners[i].ctx = ctx;
        churners[i].stop = &stop;
        CHECK_EQ(0, pthread_create(&ct[i], NULL, churn_main, &churners[i]));
    }
    for (int i = 0; i < CHURNERS; i++)
        CHECK_EQ(0, pthread_join(ct[i], NULL));
    atomic_store(&stop, 1);
    for (int i = 0; i < SYNCERS; i++)
        CHECK_EQ(0, pthread_join(st[i], NULL));
    for (int i = 0; i < CHURNERS; i++) {
        CHECK_EQ(0, churners[i].failures);
        CHECK_EQ(churners[i].launched, atomic_load(&churners[i].ran));
    }
    for (int i = 0; i < SYNCERS; i++) {
        CHECK_EQ(0, syncers[i].failures);
        CHECK(syncers[i].calls > 0);
        CHECK_OK(aclrtDestroyStream(syncers[i].steady));
    }
    CHECK_OK(aclrtResetDevice(0));
}

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1); /* before the runtime starts */
    unsetenv("ACLRT_DEFAULT_DEVICE");

    RUN(two_sets_need_two_resets_before_release);
    RUN(reset_after_release_fails);
    RUN(reset_of_never_set_device_fails);
    RUN(reset_force_releases_regardless_of_count);
    RUN(force_after_release_fails);
    RUN(force_after_force_fails);
    RUN(force_after_partial_reset_works);
    RUN(set_after_release_creates_a_new_default_context);
    RUN(concurrent_sets_and_resets_keep_the_count);

    RUN(device_count_is_the_configured_count);
    RUN(invalid_device_ids_are_rejected);
    RUN(null_out_pointers_are_invalid_param);
    RUN(get_device_returns_the_set_device);
    RUN(run_mode_is_host);

    RUN(thread_without_context_gets_context_null);
    RUN(threads_setting_a_device_share_its_default_context_and_stream);

    RUN(create_context_makes_it_current);
    RUN(set_current_context_switches_and_get_returns_it);
    RUN(null_stream_goes_to_the_current_contexts_default_stream);
    RUN(explicit_context_on_device_1_while_device_0_is_set);
    RUN(explicit_context_survives_device_reset);
    RUN(streams_of_another_context_are_rejected_for_submission);
    RUN(a_stream_takes_work_only_in_its_own_live_context);
    RUN(destroying_a_default_context_is_param_invalid);
    RUN(destroyed_context_handle_is_invalid_handle);
    RUN(destroy_context_null_is_invalid_param);
    RUN(destroy_context_releases_its_streams_after_their_work);
    RUN(context_destroyed_by_another_thread_reads_as_no_context);
    RUN(device_released_by_another_thread_reads_as_no_context);

    RUN(reset_device_waits_for_default_context_work);
    RUN(synchronize_device_waits_for_all_streams_of_the_device);
    RUN(synchronize_device_covers_streams_of_every_context_on_the_device);
    RUN(synchronize_device_does_not_wait_for_other_devices);
    RUN(synchronize_device_with_timeout_rejects_zero_and_below_minus_one);
    RUN(synchronize_device_with_timeout_times_out_on_a_blocked_stream);
    RUN(synchronize_device_reports_a_task_failure_once);
    RUN(synchronize_device_while_other_threads_create_and_destroy_streams);
    RUN(null_stream_is_the_default_stream);
    RUN(null_and_explicit_default_stream_keep_one_order);

    int rc = check_report("device");
    aclFinalize();
    return rc;
}
