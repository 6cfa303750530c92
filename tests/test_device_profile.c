/*
 * tests/test_device_profile.c - pins what a device reports and lets a
 * program do beyond its attributes (docs/SEMANTICS.md): the process's
 * device limits (aclrtDeviceSetLimit), atomic capabilities from the host
 * and between devices, the task scheduler, the primary context's state,
 * compute groups, and the abort of a whole device with its callbacks.
 * Runs with two host devices in the default profile (Ascend910B1), then
 * again in the profile "host" for what differs there.
 *
 * An abort waits for the task that is running, so the abort cases hold
 * streams with gates, abort from a helper thread, and open the gates only
 * once a synchronize in the main thread has observed the abort (it returns
 * ACL_ERROR_RT_STREAM_ABORT instead of timing out): no sleeps.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

static aclrtContext main_ctx;

static void case_cleanup(void)
{
    gates_open_all();
}

/* ------------------------------------------------------------------------
 * Device limits
 * ------------------------------------------------------------------------ */

static size_t get_limit(aclrtDeviceLimit limit)
{
    size_t v = 0;
    CHECK_OK(aclrtDeviceGetLimit(limit, &v));
    return v;
}

TEST(simd_limits_default_to_32_kib)
{
    CHECK_EQ((size_t)32768, get_limit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE));
    CHECK_EQ((size_t)32768, get_limit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE));
}

TEST(the_simd_stack_is_32_kib_at_least_rounded_to_16_kib_and_at_most_192_kib)
{
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 1));
    CHECK_EQ((size_t)32768, get_limit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE));
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 32769));
    CHECK_EQ((size_t)49152, get_limit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE));
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 196608));
    CHECK_EQ((size_t)196608, get_limit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE));
    /* Above the maximum: refused, the value set stays. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 196609));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "SIMD stack");
    CHECK_EQ((size_t)196608, get_limit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE));
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 0)); /* back to the default */
    CHECK_EQ((size_t)32768, get_limit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE));
}

TEST(the_simd_printf_buffer_is_rounded_to_8_bytes_within_1_kib_and_64_mib)
{
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1025));
    CHECK_EQ((size_t)1032, get_limit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE));
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, (size_t)64 << 20));
    CHECK_EQ((size_t)64 << 20, get_limit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1023));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, ((size_t)64 << 20) + 1));
    CHECK_EQ((size_t)64 << 20, get_limit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE));
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 32768));
}

TEST(simt_limits_are_not_supported)
{
    aclrtDeviceLimit simt[] = {ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE,
                               ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE};
    for (size_t i = 0; i < sizeof simt / sizeof simt[0]; i++) {
        size_t v = 7;
        CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceSetLimit(simt[i], 1024));
        CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtDeviceGetLimit(simt[i], &v));
        CHECK_EQ((size_t)7, v);
    }
}

static void *limit_reader_main(void *arg)
{
    *(size_t *)arg = 0;
    aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, (size_t *)arg);
    return NULL;
}

TEST(a_limit_is_the_processs_seen_from_any_thread_without_a_device)
{
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 65536));
    size_t seen = 0;
    pthread_t th;
    CHECK_EQ(0, pthread_create(&th, NULL, limit_reader_main, &seen));
    pthread_join(th, NULL);
    CHECK_EQ((size_t)65536, seen);
    CHECK_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 0));
}

TEST(limit_calls_reject_an_unknown_limit_a_huge_value_and_null)
{
    size_t v = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit((aclrtDeviceLimit)5, 1024));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceSetLimit((aclrtDeviceLimit)-1, 1024));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetLimit((aclrtDeviceLimit)5, &v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, NULL));
    if (sizeof(size_t) > 4)
        CHECK_EQ(ACL_ERROR_INVALID_PARAM,
                 aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, (size_t)UINT32_MAX + 1));
    CHECK_EQ((size_t)32768, get_limit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE));
}

/* ------------------------------------------------------------------------
 * Atomic capabilities
 * ------------------------------------------------------------------------ */

static const aclrtAtomicOperation all_ops[] = {
    ACL_RT_ATOMIC_OPERATION_INTEGER_ADD,     ACL_RT_ATOMIC_OPERATION_INTEGER_MIN,
    ACL_RT_ATOMIC_OPERATION_INTEGER_MAX,     ACL_RT_ATOMIC_OPERATION_INTEGER_INCREMENT,
    ACL_RT_ATOMIC_OPERATION_INTEGER_DECREMENT, ACL_RT_ATOMIC_OPERATION_AND,
    ACL_RT_ATOMIC_OPERATION_OR,              ACL_RT_ATOMIC_OPERATION_XOR,
    ACL_RT_ATOMIC_OPERATION_EXCHANGE,        ACL_RT_ATOMIC_OPERATION_CAS,
    ACL_RT_ATOMIC_OPERATION_FLOAT_ADD,       ACL_RT_ATOMIC_OPERATION_FLOAT_MIN,
    ACL_RT_ATOMIC_OPERATION_FLOAT_MAX,       ACL_RT_ATOMIC_OPERATION_DMA_ADD,
    ACL_RT_ATOMIC_OPERATION_DMA_MIN,         ACL_RT_ATOMIC_OPERATION_DMA_MAX,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD, ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MIN,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_MAX, ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_CAS,
    ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH,
};
#define N_OPS ((uint32_t)(sizeof all_ops / sizeof all_ops[0]))

TEST(an_ascend910b_supports_no_atomics_from_the_host_or_a_peer)
{
    uint32_t caps[N_OPS];
    memset(caps, 0xff, sizeof caps);
    CHECK_OK(aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, N_OPS, 0));
    for (uint32_t i = 0; i < N_OPS; i++)
        CHECK_EQ(0u, caps[i]);
    memset(caps, 0xff, sizeof caps);
    CHECK_OK(aclrtDeviceGetP2PAtomicCapabilities(caps, all_ops, N_OPS, 0, 1));
    for (uint32_t i = 0; i < N_OPS; i++)
        CHECK_EQ(0u, caps[i]);
}

TEST(atomic_queries_reject_null_no_operations_unknown_ones_and_bad_devices)
{
    uint32_t caps[2];
    aclrtAtomicOperation ops[2] = {ACL_RT_ATOMIC_OPERATION_INTEGER_ADD, ACL_RT_ATOMIC_OPERATION_CAS};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(NULL, ops, 2, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(caps, NULL, 2, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(caps, ops, 0, 0));
    int bad[] = {-1, 13, 29, 33, 39, 45, 1000};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ops[1] = (aclrtAtomicOperation)bad[i];
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetHostAtomicCapabilities(caps, ops, 2, 0));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 2, 0, 1));
    }
    ops[1] = ACL_RT_ATOMIC_OPERATION_CAS;
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetHostAtomicCapabilities(caps, ops, 2, 2));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetHostAtomicCapabilities(caps, ops, 2, -1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 2, 0, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "differ");
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 2, 0, 2));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 2, -1, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetP2PAtomicCapabilities(NULL, ops, 2, 0, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 0, 0, 1));
}

/* The profile "host": the CPU's atomics where device memory is host memory (the host backend). */
TEST(host_profile_atomics_are_the_cpus_on_host_memory)
{
    int host_memory = strcmp(aclrtGetSocName(), "aclrt-host") == 0;
    const uint32_t ints = ACL_RT_ATOMIC_CAPABILITY_SIGNED | ACL_RT_ATOMIC_CAPABILITY_UNSIGNED |
                          ACL_RT_ATOMIC_CAPABILITY_SCALAR8 | ACL_RT_ATOMIC_CAPABILITY_SCALAR16 |
                          ACL_RT_ATOMIC_CAPABILITY_SCALAR32 | ACL_RT_ATOMIC_CAPABILITY_SCALAR64;
    const uint32_t floats =
        ACL_RT_ATOMIC_CAPABILITY_SIGNED | ACL_RT_ATOMIC_CAPABILITY_SCALAR32 | ACL_RT_ATOMIC_CAPABILITY_SCALAR64;
    uint32_t caps[N_OPS], p2p[N_OPS];
    CHECK_OK(aclrtDeviceGetHostAtomicCapabilities(caps, all_ops, N_OPS, 0));
    CHECK_OK(aclrtDeviceGetP2PAtomicCapabilities(p2p, all_ops, N_OPS, 1, 0));
    for (uint32_t i = 0; i < N_OPS; i++) {
        uint32_t want = !host_memory                                      ? 0
                        : all_ops[i] <= ACL_RT_ATOMIC_OPERATION_CAS       ? ints
                        : all_ops[i] <= ACL_RT_ATOMIC_OPERATION_FLOAT_MAX ? floats
                                                                          : 0;
        CHECK_EQ(want, caps[i]);
        CHECK_EQ(want, p2p[i]); /* a peer device's memory is the same memory */
    }
}

/* ------------------------------------------------------------------------
 * Task scheduler and primary context
 * ------------------------------------------------------------------------ */

TEST(set_ts_device_takes_ai_core_and_vector_and_nothing_else)
{
    CHECK_OK(aclrtSetTsDevice(ACL_TS_ID_AICORE));
    CHECK_OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetTsDevice(ACL_TS_ID_RESERVED));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetTsDevice((aclrtTsId)-1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "tsId");
}

static int32_t primary_active(int32_t dev)
{
    int32_t active = -1;
    CHECK_OK(aclrtGetPrimaryCtxState(dev, NULL, &active));
    return active;
}

TEST(the_primary_context_is_active_while_its_device_is_set)
{
    CHECK_EQ(1, primary_active(0));
    CHECK_EQ(0, primary_active(1));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_EQ(1, primary_active(1));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtResetDevice(1)); /* one reference left */
    CHECK_EQ(1, primary_active(1));
    CHECK_OK(aclrtResetDevice(1));
    CHECK_EQ(0, primary_active(1));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
}

TEST(primary_context_state_rejects_flags_null_and_a_bad_device)
{
    uint32_t flags = 0;
    int32_t active = -1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetPrimaryCtxState(0, &flags, &active));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetPrimaryCtxState(0, NULL, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetPrimaryCtxState(2, NULL, &active));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetPrimaryCtxState(-1, NULL, &active));
    CHECK_EQ(-1, active);
}

/* ------------------------------------------------------------------------
 * Compute groups
 * ------------------------------------------------------------------------ */

static uint32_t group_attr(const aclrtGroupInfo *info, aclrtGroupAttr attr)
{
    uint32_t v = 0;
    size_t len = 0;
    CHECK_OK(aclrtGetGroupInfoDetail(info, 0, attr, &v, sizeof v, &len));
    CHECK_EQ(sizeof v, len);
    return v;
}

TEST(a_device_has_one_group_holding_all_of_it)
{
    uint32_t count = 0;
    CHECK_OK(aclrtGetGroupCount(&count));
    CHECK_EQ(1u, count);
    aclrtGroupInfo *info = aclrtCreateGroupInfo();
    CHECK(info != NULL);
    CHECK_OK(aclrtGetAllGroupInfo(info));
    CHECK_EQ(0u, group_attr(info, ACL_GROUP_GROUPID_INT));
    CHECK_EQ(24u, group_attr(info, ACL_GROUP_AICORE_INT)); /* Ascend910B1 */
    CHECK_EQ(48u, group_attr(info, ACL_GROUP_AIV_INT));
    CHECK_EQ(6u, group_attr(info, ACL_GROUP_AIC_INT));
    CHECK(group_attr(info, ACL_GROUP_SDMANUM_INT) >= 1); /* the executors */
    CHECK_EQ(1984u, group_attr(info, ACL_GROUP_ASQNUM_INT)); /* the streams a device may have */
    CHECK_OK(aclrtSetGroup(0));
    CHECK_OK(aclrtDestroyGroupInfo(info));
}

TEST(a_group_that_was_not_created_cannot_be_set)
{
    CHECK_EQ(ACL_ERROR_RT_GROUP_NOT_CREATE, aclrtSetGroup(1));
    CHECK_EQ(ACL_ERROR_RT_GROUP_NOT_CREATE, aclrtSetGroup(-1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "group -1");
}

TEST(group_calls_reject_null_a_bad_index_attribute_and_short_buffer)
{
    aclrtGroupInfo *info = aclrtCreateGroupInfo();
    CHECK(info != NULL);
    CHECK_OK(aclrtGetAllGroupInfo(info));
    uint32_t v = 77;
    size_t len = 99;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupCount(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetAllGroupInfo(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyGroupInfo(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupInfoDetail(NULL, 0, ACL_GROUP_AICORE_INT, &v, sizeof v, &len));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_AICORE_INT, NULL, sizeof v, &len));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_AICORE_INT, &v, sizeof v, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupInfoDetail(info, 1, ACL_GROUP_AICORE_INT, &v, sizeof v, &len));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupInfoDetail(info, -1, ACL_GROUP_AICORE_INT, &v, sizeof v, &len));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupInfoDetail(info, 0, (aclrtGroupAttr)6, &v, sizeof v, &len));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetGroupInfoDetail(info, 0, ACL_GROUP_AICORE_INT, &v, 3, &len));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "valueLen");
    CHECK_EQ(77u, v);
    CHECK_EQ((size_t)99, len);
    CHECK_OK(aclrtDestroyGroupInfo(info));
}

static void *group_no_context_main(void *arg)
{
    uint32_t count = 0;
    aclrtGroupInfo *info = aclrtCreateGroupInfo();
    ((aclError *)arg)[0] = aclrtGetGroupCount(&count);
    ((aclError *)arg)[1] = aclrtSetGroup(0);
    ((aclError *)arg)[2] = aclrtGetAllGroupInfo(info);
    aclrtDestroyGroupInfo(info);
    return NULL;
}

TEST(group_queries_need_a_context)
{
    aclError rc[3] = {0, 0, 0};
    pthread_t th;
    CHECK_EQ(0, pthread_create(&th, NULL, group_no_context_main, rc));
    pthread_join(th, NULL);
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, rc[i]);
}

/* ------------------------------------------------------------------------
 * Device task abort
 * ------------------------------------------------------------------------ */

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

struct abort_call {
    pthread_t thread;
    int32_t device;
    uint32_t timeout;
    aclError rc;
};

static void *abort_main(void *arg)
{
    struct abort_call *c = (struct abort_call *)arg;
    c->rc = aclrtDeviceTaskAbort(c->device, c->timeout);
    return NULL;
}

static void abort_start(struct abort_call *c, int32_t device, uint32_t timeout)
{
    c->device = device;
    c->timeout = timeout;
    c->rc = -1;
    CHECK_EQ(0, pthread_create(&c->thread, NULL, abort_main, c));
}

/* Synchronize with a 1 ms timeout until something other than a timeout comes back. */
static aclError sync_until_not_timeout(aclrtStream s)
{
    aclError rc;
    while ((rc = aclrtSynchronizeStreamWithTimeout(s, 1)) == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
        ;
    return rc;
}

TEST(an_abort_discards_the_queued_tasks_of_every_stream_of_the_device)
{
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    static atomic_int count;
    atomic_store(&count, 0);
    struct gate *ga = launch_gate(a), *gb = launch_gate(b);
    for (int i = 0; i < 50; i++) {
        CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &count));
        CHECK_OK(aclrtLaunchHostFunc(b, count_fn, &count));
    }
    CHECK(gate_wait_entered(ga));
    CHECK(gate_wait_entered(gb));
    struct abort_call c;
    abort_start(&c, 0, 0);
    /* Both streams are aborted before the abort waits for either. */
    CHECK_EQ(ACL_ERROR_RT_STREAM_ABORT, sync_until_not_timeout(a));
    CHECK_EQ(ACL_ERROR_RT_STREAM_ABORT, sync_until_not_timeout(b));
    gate_open(ga);
    gate_open(gb);
    pthread_join(c.thread, NULL);
    CHECK_OK(c.rc);
    CHECK_EQ(1, atomic_load(&ga->done)); /* the running tasks finished */
    CHECK_EQ(1, atomic_load(&gb->done));
    CHECK_EQ(0, atomic_load(&count)); /* none of the queued ones ran */
    /* The streams are usable again. */
    CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &count));
    CHECK_OK(aclrtLaunchHostFunc(b, count_fn, &count));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(2, atomic_load(&count));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(an_abort_leaves_the_other_devices_work_alone)
{
    aclrtContext other;
    CHECK_OK(aclrtCreateContext(&other, 1));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int count;
    atomic_store(&count, 0);
    struct gate *g = launch_gate(s);
    for (int i = 0; i < 10; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclrtDeviceTaskAbort(0, 0)); /* device 0 has nothing running: it returns at once */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(10, atomic_load(&count));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
}

static aclError fail_kernel(uint32_t block, uint32_t blocks, void *args)
{
    (void)block;
    (void)blocks;
    return (aclError)(intptr_t)args;
}

TEST(an_abort_lets_a_context_stopped_by_a_failure_run_work_again)
{
    aclrtContext other;
    CHECK_OK(aclrtCreateContext(&other, 1));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)ACL_ERROR_RT_AICORE_EXCEPTION));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
    static atomic_int count;
    atomic_store(&count, 0);
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtLaunchHostFunc(s, count_fn, &count)); /* stopped */
    CHECK_OK(aclrtDeviceTaskAbort(1, 1000));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&count));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
}

/* What the abort callbacks saw, in order. */
static struct {
    atomic_int n;
    char name[8][4];
    int32_t device[8];
    int stage[8];
    uint32_t timeout[8];
} seen;

static int32_t record_cb(int32_t deviceId, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args)
{
    int i = atomic_fetch_add(&seen.n, 1);
    if (i < 8) {
        snprintf(seen.name[i], sizeof seen.name[i], "%s", (const char *)args);
        seen.device[i] = deviceId;
        seen.stage[i] = (int)stage;
        seen.timeout[i] = timeout;
    }
    return 0;
}

TEST(abort_callbacks_run_before_and_after_in_the_order_of_their_names)
{
    atomic_store(&seen.n, 0);
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("zeta", record_cb, (void *)"z"));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("alpha", record_cb, (void *)"a"));
    CHECK_OK(aclrtDeviceTaskAbort(1, 0));
    CHECK_EQ(4, atomic_load(&seen.n));
    const char *names[4] = {"a", "z", "a", "z"};
    int stages[4] = {ACL_RT_DEVICE_TASK_ABORT_PRE, ACL_RT_DEVICE_TASK_ABORT_PRE, ACL_RT_DEVICE_TASK_ABORT_POST,
                     ACL_RT_DEVICE_TASK_ABORT_POST};
    for (int i = 0; i < 4; i++) {
        CHECK_EQ(0, strcmp(names[i], seen.name[i]));
        CHECK_EQ(1, seen.device[i]);
        CHECK_EQ(stages[i], seen.stage[i]);
        CHECK_EQ(0u, seen.timeout[i]); /* no timeout */
    }
    /* With a timeout, each callback gets what is left of it. */
    atomic_store(&seen.n, 0);
    CHECK_OK(aclrtDeviceTaskAbort(0, 600000));
    CHECK_EQ(4, atomic_load(&seen.n));
    for (int i = 0; i < 4; i++)
        CHECK(seen.timeout[i] > 0 && seen.timeout[i] <= 600000);
    /* Unregistered (NULL), a callback runs no more. */
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("zeta", NULL, NULL));
    atomic_store(&seen.n, 0);
    CHECK_OK(aclrtDeviceTaskAbort(0, 0));
    CHECK_EQ(2, atomic_load(&seen.n));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("alpha", NULL, NULL));
}

static int32_t refuse_cb(int32_t deviceId, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args)
{
    (void)deviceId;
    (void)timeout;
    (void)args;
    return stage == ACL_RT_DEVICE_TASK_ABORT_PRE ? 507899 : 0;
}

TEST(a_callback_that_fails_stops_the_abort_with_its_code)
{
    atomic_store(&seen.n, 0);
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("a-refuses", refuse_cb, NULL));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("b-records", record_cb, (void *)"b"));
    CHECK_EQ(507899, aclrtDeviceTaskAbort(0, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "a-refuses");
    CHECK_EQ(0, atomic_load(&seen.n)); /* nothing after it ran */
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("a-refuses", NULL, NULL));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("b-records", NULL, NULL));
}

/* A PRE callback that uses up the caller's timeout (1 ms) by the clock. */
static int32_t slow_cb(int32_t deviceId, aclrtDeviceTaskAbortStage stage, uint32_t timeout, void *args)
{
    (void)deviceId;
    (void)stage;
    (void)timeout;
    (void)args;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 5000000L);
    return 0;
}

TEST(an_abort_past_its_timeout_stops_with_wait_timeout)
{
    atomic_store(&seen.n, 0);
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("a-slow", slow_cb, NULL));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("b-records", record_cb, (void *)"b"));
    CHECK_EQ(ACL_ERROR_RT_WAIT_TIMEOUT, aclrtDeviceTaskAbort(0, 1));
    CHECK_EQ(0, atomic_load(&seen.n)); /* the time was up before the next callback */
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("a-slow", NULL, NULL));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("b-records", NULL, NULL));
}

TEST(abort_callback_registration_rejects_null_empty_and_a_second_one_by_a_name)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetDeviceTaskAbortCallback(NULL, record_cb, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceTaskAbortCallback("", record_cb, NULL));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("once", record_cb, (void *)"o"));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceTaskAbortCallback("once", refuse_cb, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already registered");
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("once", NULL, NULL));
    CHECK_OK(aclrtSetDeviceTaskAbortCallback("never-registered", NULL, NULL));
}

static atomic_int abort_in_task_rc = -1;

static void abort_own_device_fn(void *arg)
{
    (void)arg;
    atomic_store(&abort_in_task_rc, aclrtDeviceTaskAbort(0, 0));
}

TEST(device_abort_rejects_a_long_timeout_a_bad_device_and_a_task_of_the_device)
{
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceTaskAbort(0, 36u * 60u * 1000u + 1u));
    CHECK_OK(aclrtDeviceTaskAbort(0, 36u * 60u * 1000u));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceTaskAbort(2, 0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceTaskAbort(-1, 0));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtLaunchHostFunc(s, abort_own_device_fn, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, atomic_load(&abort_in_task_rc));
    CHECK_OK(aclrtDestroyStream(s));
}

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_ctx) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(simd_limits_default_to_32_kib);
    RUN(the_simd_stack_is_32_kib_at_least_rounded_to_16_kib_and_at_most_192_kib);
    RUN(the_simd_printf_buffer_is_rounded_to_8_bytes_within_1_kib_and_64_mib);
    RUN(simt_limits_are_not_supported);
    RUN(a_limit_is_the_processs_seen_from_any_thread_without_a_device);
    RUN(limit_calls_reject_an_unknown_limit_a_huge_value_and_null);
    RUN(an_ascend910b_supports_no_atomics_from_the_host_or_a_peer);
    RUN(atomic_queries_reject_null_no_operations_unknown_ones_and_bad_devices);
    RUN(set_ts_device_takes_ai_core_and_vector_and_nothing_else);
    RUN(the_primary_context_is_active_while_its_device_is_set);
    RUN(primary_context_state_rejects_flags_null_and_a_bad_device);
    RUN(a_device_has_one_group_holding_all_of_it);
    RUN(a_group_that_was_not_created_cannot_be_set);
    RUN(group_calls_reject_null_a_bad_index_attribute_and_short_buffer);
    RUN(group_queries_need_a_context);
    RUN(an_abort_discards_the_queued_tasks_of_every_stream_of_the_device);
    case_cleanup(); /* a case that failed half way leaves no gate closed */
    RUN(an_abort_leaves_the_other_devices_work_alone);
    case_cleanup();
    RUN(an_abort_lets_a_context_stopped_by_a_failure_run_work_again);
    RUN(abort_callbacks_run_before_and_after_in_the_order_of_their_names);
    RUN(a_callback_that_fails_stops_the_abort_with_its_code);
    RUN(an_abort_past_its_timeout_stops_with_wait_timeout);
    RUN(abort_callback_registration_rejects_null_empty_and_a_second_one_by_a_name);
    RUN(device_abort_rejects_a_long_timeout_a_bad_device_and_a_task_of_the_device);
    aclrtResetDevice(0);
    aclFinalize();
    setenv("ACLRT_PROFILE", "host", 1); /* the same process, started again with the machine's figures */
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime with the host profile: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(host_profile_atomics_are_the_cpus_on_host_memory);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("device_profile");
}
