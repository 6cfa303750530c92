/*
 * bench/rt_aclrt.c - aclrt behind the harness's runtime interface (bench.h).
 * Default configuration (aclInit(NULL)): the environment may override it
 * (ACLRT_SPIN_NS, ACLRT_EXECUTORS, ...), and the machine record says what ran.
 */
#include "bench.h"

#include <stdlib.h>

#define ACL_CHECK(call)                                                                                     \
    do {                                                                                                    \
        aclError rc_ = (call);                                                                              \
        if (rc_ != ACL_SUCCESS) {                                                                           \
            const char *msg_ = aclGetRecentErrMsg();                                                        \
            fprintf(stderr, "bench: %s failed: %d\n%s\n", #call, rc_, msg_ != NULL ? msg_ : "");           \
            exit(2);                                                                                        \
        }                                                                                                   \
    } while (0)

static aclrtContext ctx;

static void a_start(void)
{
    ACL_CHECK(aclInit(NULL));
    ACL_CHECK(aclrtSetDevice(0));
    ACL_CHECK(aclrtGetCurrentContext(&ctx));
}

static void a_stop(void)
{
    ACL_CHECK(aclrtResetDevice(0));
    ACL_CHECK(aclFinalize());
}

static void a_thread_enter(void)
{
    ACL_CHECK(aclrtSetCurrentContext(ctx));
}

static void *a_stream_create(void)
{
    aclrtStream s;
    ACL_CHECK(aclrtCreateStream(&s));
    return s;
}

static void a_stream_destroy(void *s)
{
    ACL_CHECK(aclrtDestroyStream(s));
}

static void *a_event_create(void)
{
    aclrtEvent e;
    ACL_CHECK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    return e;
}

static void a_event_destroy(void *e)
{
    ACL_CHECK(aclrtDestroyEvent(e));
}

static void a_record(void *e, void *s)
{
    ACL_CHECK(aclrtRecordEvent(e, s));
}

static bool a_query(void *e)
{
    aclrtEventRecordedStatus st;
    ACL_CHECK(aclrtQueryEventStatus(e, &st));
    return st == ACL_EVENT_RECORDED_STATUS_COMPLETE;
}

static void a_stream_wait(void *s, void *e)
{
    ACL_CHECK(aclrtStreamWaitEvent(s, e));
}

static void a_launch(void *s, bench_fn fn, void *arg)
{
    ACL_CHECK(aclrtLaunchHostFunc(s, fn, arg));
}

static void a_launch_kernel(void *s, uint32_t blocks, aclrtxHostKernel fn, void *arg)
{
    ACL_CHECK(aclrtxLaunchHostKernel(s, blocks, fn, arg));
}

static void a_sync(void *s)
{
    ACL_CHECK(aclrtSynchronizeStream(s));
}

const struct rt rt_aclrt = {
    .name = "aclrt",
    .prefix = "",
    .thread_prefix = "aclrt-d0-e",
    .is_aclrt = true,
    .start = a_start,
    .stop = a_stop,
    .thread_enter = a_thread_enter,
    .stream_create = a_stream_create,
    .stream_destroy = a_stream_destroy,
    .event_create = a_event_create,
    .event_destroy = a_event_destroy,
    .record = a_record,
    .query = a_query,
    .stream_wait = a_stream_wait,
    .launch = a_launch,
    .launch_kernel = a_launch_kernel,
    .sync = a_sync,
};
