/*
 * tests/test_stream.c - pins "streams" (docs/SEMANTICS.md, Streams):
 * order, synchronize, query, timeouts, the
 * creation variants and their getters, ids, the quota, destroy and force
 * destroy, stale handles, failure modes, attributes, ring back-pressure,
 * calls from inside tasks, and the default stream.
 *
 * Ordering is proven with gates, never with sleeps: a gate is a host
 * function that spins on an atomic the test opens. Everything a task touches
 * lives in static storage, and after every case all gates are opened and the
 * device is synchronized, so a failing case never leaves an executor spinning
 * or a task writing into a dead stack frame.
 *
 * The last cases need a small runtime (a 1 KiB ring = 16 tasks, 8 streams
 * per device, 2 executors). The runtime reads its configuration only when
 * it starts, so main finalizes, sets the environment and initializes again.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

/* The log host functions append to. Tasks of one stream are ordered, so plain ints suffice (TSan checks it). */
#define LOG_CAP 16384
static int log_buf[LOG_CAP];
static int log_len;

static void log_reset(void)
{
    log_len = 0;
}

static void append_fn(void *arg)
{
    if (log_len < LOG_CAP)
        log_buf[log_len] = (int)(intptr_t)arg;
    log_len++;
}

static aclError append_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    append_fn(arg);
    return ACL_SUCCESS;
}

/* A host kernel that fails with the code passed as its argument. */
static aclError fail_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    return (aclError)(intptr_t)arg;
}

static void count_fn(void *arg)
{
    (*(int *)arg)++;
}

/* The same for host functions of several streams, which may run at once. */
static void count_atomic_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static aclrtContext main_context;

/* ------------------------------------------------------------------------
 * Order, synchronize, query
 * ------------------------------------------------------------------------ */

TEST(tasks_of_one_stream_run_in_submission_order)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtStream streams[2] = {s, NULL};
    for (int k = 0; k < 2; k++) {
        log_reset();
        for (int i = 0; i < 1000; i++) {
            if (i % 10 == 5) /* a different task kind in the middle keeps its place */
                CHECK_OK(aclrtxLaunchHostKernel(streams[k], 1, append_kernel, (void *)(intptr_t)i));
            else
                CHECK_OK(aclrtLaunchHostFunc(streams[k], append_fn, (void *)(intptr_t)i));
        }
        CHECK_OK(aclrtSynchronizeStream(streams[k]));
        CHECK_EQ(1000, log_len);
        for (int i = 0; i < 1000; i++)
            CHECK_EQ(i, log_buf[i]);
    }
    CHECK_OK(aclrtDestroyStream(s));
}

#define PER_THREAD 2000
static aclrtStream two_threads_stream;
static atomic_int two_threads_failures;

static void *two_threads_launcher(void *arg)
{
    int id = (int)(intptr_t)arg;
    if (aclrtSetCurrentContext(main_context) != ACL_SUCCESS) {
        atomic_fetch_add(&two_threads_failures, 1);
        return NULL;
    }
    for (int i = 0; i < PER_THREAD; i++)
        if (aclrtLaunchHostFunc(two_threads_stream, append_fn, (void *)(intptr_t)(id * 100000 + i)) != ACL_SUCCESS)
            atomic_fetch_add(&two_threads_failures, 1);
    return NULL;
}

TEST(tasks_from_two_threads_keep_each_threads_order)
{
    CHECK_OK(aclrtCreateStream(&two_threads_stream));
    log_reset();
    atomic_store(&two_threads_failures, 0);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        CHECK_EQ(0, pthread_create(&t[i], NULL, two_threads_launcher, (void *)(intptr_t)(i + 1)));
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    CHECK_EQ(0, atomic_load(&two_threads_failures));
    CHECK_OK(aclrtSynchronizeStream(two_threads_stream));
    CHECK_EQ(2 * PER_THREAD, log_len);
    int next[3] = {0, 0, 0};
    for (int i = 0; i < log_len; i++) {
        int id = log_buf[i] / 100000, seq = log_buf[i] % 100000;
        CHECK(id == 1 || id == 2);
        CHECK_EQ(next[id], seq);
        next[id]++;
    }
    CHECK_OK(aclrtDestroyStream(two_threads_stream));
}

TEST(synchronize_stream_waits_for_all_submitted_work)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    log_reset();
    struct gate *g = launch_gate(s);
    for (int i = 0; i < 100; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, append_fn, (void *)(intptr_t)i));
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    aclError rc = aclrtSynchronizeStream(s); /* returns only once the opener opened the gate and all 100 ran */
    int seen = log_len;
    pthread_join(opener, NULL);
    CHECK_OK(rc);
    CHECK_EQ(1, atomic_load(&g->done));
    CHECK_EQ(100, seen);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(stream_query_is_not_ready_while_work_is_pending)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    struct gate *g = launch_gate(s);
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    gate_wait_entered(g);
    st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtStreamQuery(s, &st)); /* the gate runs: still not ready */
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, ran);
    st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    /* The default stream, and the NULL output. */
    CHECK_OK(aclrtSynchronizeStream(NULL));
    st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtStreamQuery(NULL, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(s, NULL));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(synchronize_with_timeout_rejects_zero_and_values_below_minus_one)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, -2));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, INT32_MIN));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(NULL, 0));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, 1));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(NULL, 1000));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(synchronize_with_timeout_on_a_blocked_stream_returns_sync_timeout)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static int after;
    after = 0;
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &after));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 1));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 20));
    CHECK_EQ(0, atomic_load(&g->done));
    gate_open(g);
    /* The timeout failed nothing: the stream finishes and reports success. */
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    CHECK_EQ(1, after);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, 1));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Creation variants and getters
 * ------------------------------------------------------------------------ */

TEST(create_stream_with_config_clamps_priority_to_7)
{
    const uint32_t asked[] = {0, 1, 3, 7, 8, 100, UINT32_MAX};
    const uint32_t got[] = {0, 1, 3, 7, 7, 7, 7};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        aclrtStream s;
        CHECK_OK(aclrtCreateStreamWithConfig(&s, asked[i], 0));
        uint32_t p = 12345;
        CHECK_OK(aclrtStreamGetPriority(s, &p));
        CHECK_EQ(got[i], p);
        CHECK_OK(aclrtDestroyStream(s));
    }
}

TEST(create_stream_has_priority_0_and_no_flags)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint32_t p = 12345, f = 12345;
    CHECK_OK(aclrtStreamGetPriority(s, &p));
    CHECK_OK(aclrtStreamGetFlags(s, &f));
    CHECK_EQ(0, p);
    CHECK_EQ(0, f);
    /* The default stream: priority 0; its flags are readable. */
    p = 12345;
    CHECK_OK(aclrtStreamGetPriority(NULL, &p));
    CHECK_EQ(0, p);
    CHECK_OK(aclrtStreamGetFlags(NULL, &f));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetPriority(s, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetFlags(s, NULL));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(create_stream_null_output_is_invalid_param)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(NULL, 0, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamV2(NULL, NULL));
}

TEST(create_stream_with_config_flags_round_trip)
{
    const uint32_t flags[] = {0,
                              ACL_STREAM_FAST_LAUNCH,
                              ACL_STREAM_FAST_SYNC,
                              ACL_STREAM_HUGE,
                              ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC,
                              ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_HUGE};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        aclrtStream s;
        CHECK_OK(aclrtCreateStreamWithConfig(&s, 2, flags[i]));
        uint32_t f = 0xFFFFFFFFu;
        CHECK_OK(aclrtStreamGetFlags(s, &f));
        CHECK_EQ(flags[i], f);
        /* The stream works: FAST_SYNC changes how synchronize waits, not what it waits for. */
        static int ran;
        ran = 0;
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
        CHECK_OK(aclrtSynchronizeStream(s));
        CHECK_EQ(1, ran);
        CHECK_OK(aclrtDestroyStream(s));
    }
}

TEST(create_stream_with_config_drops_unknown_flag_bits)
{
    const uint32_t asked[] = {0x40u, 0x80u | ACL_STREAM_FAST_SYNC, 0xFFFFFFC0u | ACL_STREAM_HUGE,
                              0x80000000u | ACL_STREAM_FAST_LAUNCH};
    const uint32_t kept[] = {0, ACL_STREAM_FAST_SYNC, ACL_STREAM_HUGE, ACL_STREAM_FAST_LAUNCH};
    for (size_t i = 0; i < sizeof asked / sizeof asked[0]; i++) {
        aclrtStream s;
        CHECK_OK(aclrtCreateStreamWithConfig(&s, 0, asked[i]));
        uint32_t f = 0xFFFFFFFFu;
        CHECK_OK(aclrtStreamGetFlags(s, &f));
        CHECK_EQ(kept[i], f);
        CHECK_OK(aclrtDestroyStream(s));
    }
}

TEST(cpu_schedule_streams_are_not_supported)
{
    uint32_t before = 0, after = 0;
    CHECK_OK(aclrtGetStreamAvailableNum(&before));
    const uint32_t flags[] = {ACL_STREAM_CPU_SCHEDULE, ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY,
                              ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_PERSISTENT};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        aclrtStream s = NULL;
        CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateStreamWithConfig(&s, 0, flags[i]));
    }
    CHECK_OK(aclrtGetStreamAvailableNum(&after));
    CHECK_EQ(before, after); /* a refused creation takes no stream */
}

TEST(create_stream_v2_without_config_is_a_plain_stream)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamV2(&s, NULL));
    uint32_t p = 12345, f = 12345;
    CHECK_OK(aclrtStreamGetPriority(s, &p));
    CHECK_OK(aclrtStreamGetFlags(s, &f));
    CHECK_EQ(0, p);
    CHECK_EQ(0, f);
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, ran);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(create_stream_v2_applies_the_config_handle)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    uint32_t prio = 5;
    size_t flag = ACL_STREAM_FAST_SYNC | ACL_STREAM_HUGE;
    size_t work_size = 4096;
    static char work[64];
    void *work_ptr = work;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &work_size, sizeof work_size));
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &work_ptr, sizeof work_ptr));
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamV2(&s, h));
    uint32_t p = 12345, f = 12345;
    CHECK_OK(aclrtStreamGetPriority(s, &p));
    CHECK_OK(aclrtStreamGetFlags(s, &f));
    CHECK_EQ(5, p);
    CHECK_EQ(ACL_STREAM_FAST_SYNC | ACL_STREAM_HUGE, f);
    CHECK_OK(aclrtDestroyStream(s));
    /* A flag the backend refuses is refused through V2 too. */
    size_t cpu = ACL_STREAM_CPU_SCHEDULE;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &cpu, sizeof cpu));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateStreamV2(&s, h));
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(set_stream_config_opt_rejects_bad_sizes_attributes_and_priorities)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    uint32_t prio = 3;
    size_t flag = ACL_STREAM_FAST_LAUNCH;
    uint64_t big = 3;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &big, sizeof big));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &prio, 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &flag, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &flag, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, (aclrtStreamConfigAttr)99, &flag, sizeof flag));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, sizeof prio));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, NULL, sizeof prio));
    uint32_t eight = 8, seven = 7;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &eight, sizeof eight));
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &seven, sizeof seven));
    /* The refused values changed nothing: the handle makes a priority-7, flag-free stream. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamV2(&s, h));
    uint32_t p = 12345, f = 12345;
    CHECK_OK(aclrtStreamGetPriority(s, &p));
    CHECK_OK(aclrtStreamGetFlags(s, &f));
    CHECK_EQ(7, p);
    CHECK_EQ(0, f);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(destroy_stream_config_handle_null_is_invalid_param)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamConfigHandle(NULL));
}

TEST(stream_ids_are_distinct_among_live_streams)
{
    enum { N = 16 };
    aclrtStream s[N];
    int32_t ids[N + 1];
    for (int i = 0; i < N; i++) {
        CHECK_OK(aclrtCreateStream(&s[i]));
        ids[i] = -1;
        CHECK_OK(aclrtStreamGetId(s[i], &ids[i]));
        CHECK(ids[i] >= 0);
        int32_t again = -1;
        CHECK_OK(aclrtStreamGetId(s[i], &again));
        CHECK_EQ(ids[i], again); /* stable for the stream's life */
    }
    ids[N] = -1;
    CHECK_OK(aclrtStreamGetId(NULL, &ids[N])); /* the default stream has one too */
    CHECK(ids[N] >= 0);
    for (int i = 0; i <= N; i++)
        for (int j = i + 1; j <= N; j++)
            CHECK(ids[i] != ids[j]);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(s[0], NULL));
    for (int i = 0; i < N; i++)
        CHECK_OK(aclrtDestroyStream(s[i]));
}

TEST(device_stream_priority_range_is_7_to_0)
{
    int32_t least = -1, greatest = -1;
    CHECK_OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK_EQ(7, least);
    CHECK_EQ(0, greatest);
    least = -1;
    CHECK_OK(aclrtDeviceGetStreamPriorityRange(&least, NULL));
    CHECK_EQ(7, least);
    greatest = -1;
    CHECK_OK(aclrtDeviceGetStreamPriorityRange(NULL, &greatest));
    CHECK_EQ(0, greatest);
    CHECK_OK(aclrtDeviceGetStreamPriorityRange(NULL, NULL));
}

TEST(stream_available_num_drops_by_one_per_created_stream)
{
    uint32_t n0 = 0, n = 0;
    CHECK_OK(aclrtGetStreamAvailableNum(&n0));
    CHECK(n0 >= 3);
    aclrtStream s[3];
    for (int i = 0; i < 3; i++) {
        CHECK_OK(aclrtCreateStream(&s[i]));
        CHECK_OK(aclrtGetStreamAvailableNum(&n));
        CHECK_EQ(n0 - 1 - (uint32_t)i, n);
    }
    for (int i = 0; i < 3; i++)
        CHECK_OK(aclrtDestroyStream(s[i]));
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(n0, n);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAvailableNum(NULL));
}

/* Runs with ACLRT_MAX_STREAMS=8 in a fresh runtime (see main): the default stream takes one. */
#define SMALL_MAX_STREAMS 8
TEST(creating_streams_beyond_the_quota_is_no_stream_resource)
{
    uint32_t n = 0;
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(SMALL_MAX_STREAMS - 1, n);
    aclrtStream s[SMALL_MAX_STREAMS - 1];
    for (int i = 0; i < SMALL_MAX_STREAMS - 1; i++)
        CHECK_OK(aclrtCreateStream(&s[i]));
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(0, n);
    aclrtStream extra = NULL;
    CHECK_EQ(ACL_ERROR_RT_NO_STREAM_RESOURCE, aclrtCreateStream(&extra));
    CHECK_EQ(ACL_ERROR_RT_NO_STREAM_RESOURCE, aclrtCreateStreamWithConfig(&extra, 3, ACL_STREAM_FAST_LAUNCH));
    CHECK_EQ(ACL_ERROR_RT_NO_STREAM_RESOURCE, aclrtCreateStreamV2(&extra, NULL));
    /* An explicit context needs a default stream, which counts too. */
    aclrtContext ctx = NULL;
    CHECK_EQ(ACL_ERROR_RT_NO_STREAM_RESOURCE, aclrtCreateContext(&ctx, 0));
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(0, n); /* refusals take nothing */
    /* A destroyed stream gives its place back. */
    CHECK_OK(aclrtDestroyStream(s[0]));
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(1, n);
    CHECK_OK(aclrtCreateStream(&s[0]));
    CHECK_EQ(ACL_ERROR_RT_NO_STREAM_RESOURCE, aclrtCreateStream(&extra));
    for (int i = 0; i < SMALL_MAX_STREAMS - 1; i++)
        CHECK_OK(aclrtDestroyStream(s[i]));
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(SMALL_MAX_STREAMS - 1, n);
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(SMALL_MAX_STREAMS - 2, n);
    CHECK_OK(aclrtDestroyContext(ctx));
    CHECK_OK(aclrtSetCurrentContext(main_context));
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    CHECK_EQ(SMALL_MAX_STREAMS - 1, n);
}

/*
 * Runs with ACLRT_MAX_STREAMS=8 (see main). A destroyed stream is gone when
 * aclrtDestroyStream returns, also when an executor ran it a moment ago:
 * its place in the quota is free for the next creation.
 */
TEST(streams_destroyed_after_running_work_give_their_quota_back_at_once)
{
    uint32_t n0 = 0, n = 0;
    CHECK_OK(aclrtGetStreamAvailableNum(&n0));
    CHECK_EQ(SMALL_MAX_STREAMS - 1, n0);
    /* A gate spinning on another stream keeps the CPUs busy, as a real workload would. */
    aclrtStream busy;
    CHECK_OK(aclrtCreateStream(&busy));
    struct gate *g = launch_gate(busy);
    static atomic_int ran;
    atomic_store(&ran, 0);
    enum { ROUNDS = 200, K = SMALL_MAX_STREAMS - 2 };
    aclrtStream s[K];
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < K; i++)
            CHECK_OK(aclrtCreateStream(&s[i]));
        for (int i = 0; i < K; i++)
            CHECK_OK(aclrtLaunchHostFunc(s[i], count_atomic_fn, &ran));
        for (int i = 0; i < K; i++) {
            CHECK_OK(aclrtSynchronizeStream(s[i]));
            CHECK_OK(aclrtDestroyStream(s[i]));
        }
        CHECK_OK(aclrtGetStreamAvailableNum(&n));
        CHECK_EQ(n0 - 1, n);
    }
    CHECK_EQ(ROUNDS * K, atomic_load(&ran));
    gate_open(g);
    CHECK_OK(aclrtDestroyStream(busy));
}

/* ------------------------------------------------------------------------
 * Destroy
 * ------------------------------------------------------------------------ */

TEST(destroy_stream_waits_for_pending_work)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static int ran;
    ran = 0;
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    aclError rc = aclrtDestroyStream(s); /* returns after the opener opened the gate and count_fn ran */
    int seen = ran;
    pthread_join(opener, NULL);
    CHECK_OK(rc);
    CHECK_EQ(1, seen);
    aclrtStreamStatus st;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(s, &st));
}

static atomic_int force_counter;

static void force_count_fn(void *arg)
{
    (void)arg;
    atomic_fetch_add(&force_counter, 1);
}

TEST(destroy_stream_force_returns_at_once_and_the_launched_work_still_runs)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    atomic_store(&force_counter, 0);
    struct gate *g = launch_gate(s);
    for (int i = 0; i < 100; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, force_count_fn, NULL));
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(ev, s)); /* captures the gate and the 100 */
    gate_wait_entered(g);              /* the gate runs; the 100 have not started */
    CHECK_OK(aclrtDestroyStreamForce(s)); /* does not wait: the gate is still closed */
    aclrtStreamStatus st;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(s, &st)); /* the handle died at once */
    CHECK_EQ(0, atomic_load(&g->done));
    CHECK_EQ(0, atomic_load(&force_counter));
    gate_open(g);
    /* Launched work runs, as work dispatched to a device does; the event completes after it. */
    CHECK_OK(aclrtSynchronizeEvent(ev));
    CHECK_EQ(1, atomic_load(&g->done));
    CHECK_EQ(100, atomic_load(&force_counter));
    CHECK_OK(aclrtDestroyEvent(ev));
}

TEST(synchronize_device_waits_for_the_work_a_force_destroy_left_running)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    atomic_store(&force_counter, 0);
    struct gate *g = launch_gate(s);
    for (int i = 0; i < 50; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, force_count_fn, NULL));
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclrtDestroyStreamForce(s));
    /* The gate holds the destroyed stream's work: the device is not done. */
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(1));
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    aclError rc = aclrtSynchronizeDevice(); /* returns once the 50 behind the gate ran */
    int seen = atomic_load(&force_counter);
    pthread_join(opener, NULL);
    CHECK_OK(rc);
    CHECK_EQ(50, seen);
}

TEST(destroy_stream_force_discards_from_the_first_wait_that_blocks)
{
    aclrtStream s, other;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateStream(&other));
    atomic_store(&force_counter, 0);
    /* `never` is recorded behind a gate of another stream that opens only after the destroy was handled. */
    struct gate *other_gate = launch_gate(other);
    aclrtEvent never, after;
    CHECK_OK(aclrtCreateEvent(&never)); /* counts its pending waits (aclrtQueryEventWaitStatus) */
    CHECK_OK(aclrtCreateEventExWithFlag(&after, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(never, other));
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtLaunchHostFunc(s, force_count_fn, NULL)); /* runnable: runs */
    CHECK_OK(aclrtStreamWaitEvent(s, never));               /* blocks: discarded, and all after it */
    for (int i = 0; i < 10; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, force_count_fn, NULL));
    CHECK_OK(aclrtRecordEvent(after, s));
    gate_wait_entered(g);
    CHECK_OK(aclrtDestroyStreamForce(s));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(after)); /* completes: the discarded tasks count as done */
    CHECK_EQ(1, atomic_load(&force_counter));
    aclrtEventWaitStatus ws;
    CHECK_OK(aclrtQueryEventWaitStatus(never, &ws)); /* the discarded wait is no longer pending */
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
    gate_open(other_gate);
    CHECK_OK(aclrtSynchronizeStream(other));
    CHECK_EQ(1, atomic_load(&force_counter)); /* the record came too late for them: they stay discarded */
    CHECK_OK(aclrtDestroyEvent(never));
    CHECK_OK(aclrtDestroyEvent(after));
    CHECK_OK(aclrtDestroyStream(other));
}

static void noop_fn(void *arg)
{
    (void)arg;
}

static aclError noop_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    (void)arg;
    return ACL_SUCCESS;
}

static void check_dead_stream(aclrtStream s, aclrtEvent ev)
{
    static char buf[64], src[64];
    aclrtStreamStatus st;
    int32_t id;
    uint32_t u;
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStreamWithTimeout(s, 100));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetId(s, &id));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetPriority(s, &u));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetFlags(s, &u));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchHostFunc(s, noop_fn, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtxLaunchHostKernel(s, 4, noop_kernel, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemcpyAsync(buf, sizeof buf, src, sizeof src,
                                                           ACL_MEMCPY_HOST_TO_HOST, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemsetAsync(buf, sizeof buf, 1, sizeof buf, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(ev, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(s, ev));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStreamForce(s));
}

TEST(destroyed_stream_handle_is_invalid_handle_for_every_stream_call)
{
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtDestroyStream(a));
    check_dead_stream(a, ev);
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtDestroyStreamForce(b));
    check_dead_stream(b, ev);
    /* A new stream (possibly in the same slot) does not revive the old handle. */
    aclrtStream c;
    CHECK_OK(aclrtCreateStream(&c));
    CHECK(c != a && c != b);
    check_dead_stream(a, ev);
    check_dead_stream(b, ev);
    CHECK_OK(aclrtLaunchHostFunc(c, noop_fn, NULL));
    CHECK_OK(aclrtSynchronizeStream(c));
    CHECK_OK(aclrtDestroyStream(c));
    /* Garbage is not a stream either. */
    static int not_a_stream;
    aclrtStreamStatus st;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(&not_a_stream, &st));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream((aclrtStream)(uintptr_t)0x1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchHostFunc(&not_a_stream, noop_fn, NULL));
    CHECK_OK(aclrtDestroyEvent(ev));
}

TEST(destroy_null_stream_is_invalid_param)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStream(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(NULL));
}

TEST(destroy_of_the_default_stream_handle_is_param_invalid)
{
    aclrtStream def = NULL;
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK(def != NULL);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDestroyStream(def));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDestroyStreamForce(def));
    /* The default stream still works, by handle and as NULL. */
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(def, count_fn, &ran));
    CHECK_OK(aclrtLaunchHostFunc(NULL, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(def));
    CHECK_EQ(2, ran);
}

/* ------------------------------------------------------------------------
 * Failure modes
 * ------------------------------------------------------------------------ */

#define FAIL_A ACL_ERROR_RT_AICORE_EXCEPTION
#define FAIL_B ACL_ERROR_RT_AICPU_EXCEPTION

TEST(failed_task_in_continue_mode_is_reported_once_and_later_tasks_run)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtStreamAttrValue v;
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_EQ(ACL_CONTINUE_ON_FAILURE, v.failureMode); /* the default */
    static int ran;
    ran = 0;
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)FAIL_A));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_EQ(FAIL_A, aclrtSynchronizeStream(s));
    CHECK_EQ(1, ran);                                   /* the task after the failure ran */
    CHECK_EQ(FAIL_A, aclrtGetLastError(ACL_RT_THREAD_LEVEL)); /* the synchronize's code is the last error */
    CHECK_OK(aclrtSynchronizeStream(s));                /* reported once */
    /* Submissions are still accepted; with two failures the first one is reported, once. */
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)FAIL_A));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_kernel, (void *)(intptr_t)FAIL_B));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_EQ(FAIL_A, aclrtSynchronizeStreamWithTimeout(s, -1));
    CHECK_EQ(2, ran);
    CHECK_OK(aclrtSynchronizeStream(s));
    /* The default stream behaves the same. */
    CHECK_OK(aclrtxLaunchHostKernel(NULL, 1, fail_kernel, (void *)(intptr_t)FAIL_B));
    CHECK_OK(aclrtLaunchHostFunc(NULL, count_fn, &ran));
    CHECK_EQ(FAIL_B, aclrtSynchronizeStream(NULL));
    CHECK_EQ(3, ran);
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_OK(aclrtDestroyStream(s));
}

static int stop_ran_a, stop_ran_b, stop_ran_default;

TEST(stop_on_failure_on_one_stream_stops_every_stream_of_the_context)
{
    aclrtContext ctx;
    CHECK_OK(aclrtCreateContext(&ctx, 0)); /* its own context: the stop is permanent */
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtSetStreamFailureMode(a, ACL_STOP_ON_FAILURE));
    CHECK_OK(aclrtSetStreamFailureMode(a, ACL_STOP_ON_FAILURE)); /* may be set again */
    stop_ran_a = stop_ran_b = stop_ran_default = 0;
    /*
     * Everything below is submitted before the failure. One gate holds a, the
     * default stream waits (parked, holding no executor) for a's work, and a
     * second gate holds b until everything is in: two executors suffice.
     */
    struct gate *ga = launch_gate(a);
    CHECK(gate_wait_entered(ga)); /* running before the failure: it finishes, the rest of a does not run */
    CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &stop_ran_a));
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(ev, a));
    CHECK_OK(aclrtStreamWaitEvent(NULL, ev));
    CHECK_OK(aclrtLaunchHostFunc(NULL, count_fn, &stop_ran_default));
    struct gate *gb = launch_gate(b);
    CHECK_OK(aclrtxLaunchHostKernel(b, 1, fail_kernel, (void *)(intptr_t)FAIL_A)); /* b is CONTINUE itself */
    CHECK_OK(aclrtLaunchHostFunc(b, count_fn, &stop_ran_b));
    gate_open(gb);
    CHECK_EQ(FAIL_A, aclrtSynchronizeStreamWithTimeout(b, 60000));
    CHECK_EQ(0, stop_ran_b);
    CHECK_EQ(FAIL_A, aclrtSynchronizeStream(b)); /* not cleared: the context stays stopped */
    /* New submissions to any stream of the context return the code. */
    CHECK_EQ(FAIL_A, aclrtLaunchHostFunc(a, count_fn, &stop_ran_a));
    CHECK_EQ(FAIL_A, aclrtLaunchHostFunc(NULL, count_fn, &stop_ran_default));
    CHECK_EQ(FAIL_A, aclrtxLaunchHostKernel(b, 1, noop_kernel, NULL));
    CHECK_EQ(FAIL_A, aclrtRecordEvent(ev, a));
    /* Tasks queued before the failure on the other streams do not run. */
    CHECK_EQ(0, atomic_load(&ga->done));
    gate_open(ga);
    CHECK_EQ(FAIL_A, aclrtSynchronizeStream(a));
    CHECK_EQ(FAIL_A, aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&ga->done)); /* the gate was running: it finished */
    CHECK_EQ(0, stop_ran_a);
    CHECK_EQ(0, stop_ran_default);
    CHECK_EQ(FAIL_A, aclrtSynchronizeEvent(ev));
    CHECK_EQ(FAIL_A, aclrtSynchronizeDevice());
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyContext(ctx));
    /* The main context was never stopped. */
    CHECK_OK(aclrtSetCurrentContext(main_context));
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(NULL, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, ran);
    CHECK_OK(aclrtSynchronizeDevice());
}

TEST(failure_mode_rejects_values_other_than_continue_and_stop)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamFailureMode(s, 2));
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.failureMode = 7;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_EQ(ACL_CONTINUE_ON_FAILURE, v.failureMode);
    CHECK_OK(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Attributes
 * ------------------------------------------------------------------------ */

TEST(stream_attributes_round_trip)
{
    aclrtContext ctx;
    CHECK_OK(aclrtCreateContext(&ctx, 0)); /* STOP below would stop the main context for good */
    aclrtStream s, other;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateStream(&other));
    aclrtStreamAttrValue v;

    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    CHECK_EQ(0, v.userCustomTag);
    memset(&v, 0, sizeof v);
    v.failureMode = ACL_STOP_ON_FAILURE;
    CHECK_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    memset(&v, 0, sizeof v);
    v.overflowSwitch = 1;
    CHECK_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    memset(&v, 0, sizeof v);
    v.userCustomTag = 0xDEADBEEFu;
    CHECK_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    memset(&v, 0, sizeof v);
    v.cacheOpInfoSwitch = 1;
    CHECK_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));

    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_EQ(ACL_STOP_ON_FAILURE, v.failureMode);
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    CHECK_EQ(1, v.overflowSwitch);
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    CHECK_EQ(0xDEADBEEFu, v.userCustomTag);
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
    CHECK_EQ(1, v.cacheOpInfoSwitch);

    /* Set back, and per stream: the other stream kept its defaults. */
    memset(&v, 0, sizeof v);
    CHECK_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    CHECK_EQ(0, v.overflowSwitch);
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(other, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
    CHECK_EQ(0, v.userCustomTag);
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(other, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_EQ(ACL_CONTINUE_ON_FAILURE, v.failureMode);
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(other, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
    CHECK_EQ(0, v.cacheOpInfoSwitch);

    /* Argument checks. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, (aclrtStreamAttr)99, &v));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamAttribute(s, (aclrtStreamAttr)99, &v));

    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(other));
    CHECK_OK(aclrtDestroyContext(ctx));
    CHECK_OK(aclrtSetCurrentContext(main_context));
}

TEST(priority_attribute_cannot_be_set_and_reads_the_creation_priority)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamWithConfig(&s, 5, 0));
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.streamPriority = 1;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
    memset(&v, 0xAB, sizeof v);
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
    CHECK_EQ(5, v.streamPriority);
    uint32_t p = 12345;
    CHECK_OK(aclrtStreamGetPriority(s, &p));
    CHECK_EQ(5, p);
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Ring back-pressure and calls from inside tasks
 * ------------------------------------------------------------------------ */

#define RING_TASKS 16 /* ACLRT_RING_BYTES=1024 (see main): 16 records, the running task's included */
#define PRESSURE_N 10000
static atomic_int pressure_launched;
static struct gate *pressure_gate;

static void *pressure_opener(void *arg)
{
    (void)arg;
    /* Once a ring's worth of tasks (the running gate's included) is in, the launcher is at the full ring. */
    while (atomic_load(&pressure_launched) < RING_TASKS)
        sched_yield();
    gate_open(pressure_gate);
    return NULL;
}

TEST(launches_into_a_full_ring_wait_for_room_and_none_is_dropped)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    log_reset();
    atomic_store(&pressure_launched, 0);
    pressure_gate = new_gate();
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, pressure_opener, NULL));
    int failures = 0;
    if (aclrtLaunchHostFunc(s, gate_fn, pressure_gate) != ACL_SUCCESS)
        failures++;
    atomic_fetch_add(&pressure_launched, 1);
    for (int i = 0; i < PRESSURE_N; i++) {
        if (aclrtLaunchHostFunc(s, append_fn, (void *)(intptr_t)i) != ACL_SUCCESS)
            failures++;
        atomic_fetch_add(&pressure_launched, 1);
    }
    pthread_join(opener, NULL);
    CHECK_EQ(0, failures);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(PRESSURE_N, log_len); /* each ran exactly once */
    for (int i = 0; i < PRESSURE_N; i++)
        CHECK_EQ(i, log_buf[i]);
    CHECK_OK(aclrtDestroyStream(s));
}

#define SELF_LAUNCHES (RING_TASKS + 5)
static aclrtStream self_stream, self_other;
static aclError self_codes[SELF_LAUNCHES];
static aclError self_other_code, self_ctx_code;
static int self_ran, self_other_ran;

static void self_launcher(void *arg)
{
    (void)arg;
    self_ctx_code = aclrtSetCurrentContext(main_context); /* executor threads have no current context */
    for (int i = 0; i < SELF_LAUNCHES; i++)
        self_codes[i] = aclrtLaunchHostFunc(self_stream, count_fn, &self_ran);
    self_other_code = aclrtLaunchHostFunc(self_other, count_fn, &self_other_ran);
}

TEST(task_launching_into_its_own_full_stream_gets_task_full)
{
    CHECK_OK(aclrtCreateStream(&self_stream));
    CHECK_OK(aclrtCreateStream(&self_other));
    self_ran = self_other_ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(self_stream, self_launcher, NULL));
    CHECK_OK(aclrtSynchronizeStream(self_stream)); /* no deadlock */
    CHECK_OK(aclrtSynchronizeStream(self_stream)); /* the tasks it launched (submitted during the first) */
    CHECK_OK(self_ctx_code);
    /* The launching task keeps its own slot while it runs: the ring takes RING_TASKS - 1 more. */
    for (int i = 0; i < RING_TASKS - 1; i++)
        CHECK_EQ(ACL_SUCCESS, self_codes[i]);
    for (int i = RING_TASKS - 1; i < SELF_LAUNCHES; i++)
        CHECK_EQ(ACL_ERROR_RT_STREAM_TASK_FULL, self_codes[i]);
    CHECK_EQ(RING_TASKS - 1, self_ran); /* the accepted ones ran */
    CHECK_OK(self_other_code);      /* launching into another stream is fine */
    CHECK_OK(aclrtSynchronizeStream(self_other));
    CHECK_EQ(1, self_other_ran);
    CHECK_OK(aclrtDestroyStream(self_stream));
    CHECK_OK(aclrtDestroyStream(self_other));
}

static aclrtStream inner_stream;
static aclError inner_sync, inner_sync_timeout, inner_destroy, inner_destroy_force, inner_ctx;

static void inner_calls(void *arg)
{
    (void)arg;
    inner_ctx = aclrtSetCurrentContext(main_context);
    inner_sync = aclrtSynchronizeStream(inner_stream);
    inner_sync_timeout = aclrtSynchronizeStreamWithTimeout(inner_stream, 1000);
    inner_destroy = aclrtDestroyStream(inner_stream);
    inner_destroy_force = aclrtDestroyStreamForce(inner_stream);
}

TEST(task_synchronizing_or_destroying_its_own_stream_gets_param_invalid)
{
    CHECK_OK(aclrtCreateStream(&inner_stream));
    inner_sync = inner_sync_timeout = inner_destroy = inner_destroy_force = inner_ctx = -1;
    CHECK_OK(aclrtLaunchHostFunc(inner_stream, inner_calls, NULL));
    CHECK_OK(aclrtSynchronizeStream(inner_stream));
    CHECK_OK(inner_ctx);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, inner_sync);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, inner_sync_timeout);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, inner_destroy);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, inner_destroy_force);
    /* The stream is alive and works. */
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(inner_stream, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(inner_stream));
    CHECK_EQ(1, ran);
    CHECK_OK(aclrtDestroyStream(inner_stream));
}

/*
 * Runs with ACLRT_EXECUTORS=2 (see main): both executors block in host
 * functions, and a third stream's work must still run (docs/SEMANTICS.md,
 * "Blocking user code": the pool adds an executor).
 */
TEST(streams_blocked_in_user_code_do_not_starve_a_ready_stream)
{
    aclrtStream a, b, c;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtCreateStream(&c));
    struct gate *ga = launch_gate(a);
    gate_wait_entered(ga);
    for (int i = 0; i < 2000; i++)
        sched_yield(); /* not synchronization: the idle executor may fall asleep meanwhile */
    struct gate *gb = launch_gate(b);
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(c, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(c, 5000)); /* a starved stream times out instead */
    CHECK_EQ(1, ran);
    CHECK_EQ(0, atomic_load(&ga->done));
    CHECK_EQ(0, atomic_load(&gb->done));
    gate_open(ga);
    gate_open(gb);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
}

/* ------------------------------------------------------------------------
 * The default stream
 * ------------------------------------------------------------------------ */

TEST(default_stream_does_not_wait_for_a_blocked_stream)
{
    aclrtStream a;
    CHECK_OK(aclrtCreateStream(&a));
    struct gate *g = launch_gate(a);
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(NULL, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(NULL, 60000)); /* an implicit sync with a would time out */
    CHECK_EQ(1, ran);
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(a, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st); /* a was blocked all along */
    CHECK_EQ(0, atomic_load(&g->done));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(other_streams_do_not_wait_for_a_blocked_default_stream)
{
    aclrtStream a;
    CHECK_OK(aclrtCreateStream(&a));
    struct gate *g = launch_gate(NULL);
    static int ran;
    ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(a, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(a, 60000));
    CHECK_EQ(1, ran);
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(NULL, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    CHECK_EQ(0, atomic_load(&g->done));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_OK(aclrtDestroyStream(a));
}

/* ------------------------------------------------------------------------
 * Runner
 * ------------------------------------------------------------------------ */

/* After every case: release what a failed case may have left blocked, back to the main context. */
static void case_cleanup(void)
{
    gates_open_all();
    aclrtSetCurrentContext(main_context);
    aclrtSynchronizeDevice(); /* drains every stream of the device; clears leftover errors */
    aclGetRecentErrMsg();
}

#define RUN_CASE(name)   \
    do {                 \
        RUN(name);       \
        case_cleanup();  \
    } while (0)

/* (Re)start the runtime with the given environment (NULL: unset). */
static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void restart_runtime(const char *ring_bytes, const char *max_streams, const char *executors)
{
    case_cleanup();
    aclError rc = aclFinalize();
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: aclFinalize returned %d\n", rc);
        exit(1);
    }
    set_env("ACLRT_RING_BYTES", ring_bytes);
    set_env("ACLRT_MAX_STREAMS", max_streams);
    set_env("ACLRT_EXECUTORS", executors);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot restart the runtime: %s\n", aclGetRecentErrMsg());
        exit(1);
    }
}

int main(void)
{
    unsetenv("ACLRT_RING_BYTES"); /* the first cases assume the default sizes */
    unsetenv("ACLRT_MAX_STREAMS");
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }

    RUN_CASE(tasks_of_one_stream_run_in_submission_order);
    RUN_CASE(tasks_from_two_threads_keep_each_threads_order);
    RUN_CASE(synchronize_stream_waits_for_all_submitted_work);
    RUN_CASE(stream_query_is_not_ready_while_work_is_pending);
    RUN_CASE(synchronize_with_timeout_rejects_zero_and_values_below_minus_one);
    RUN_CASE(synchronize_with_timeout_on_a_blocked_stream_returns_sync_timeout);

    RUN_CASE(create_stream_with_config_clamps_priority_to_7);
    RUN_CASE(create_stream_has_priority_0_and_no_flags);
    RUN_CASE(create_stream_null_output_is_invalid_param);
    RUN_CASE(create_stream_with_config_flags_round_trip);
    RUN_CASE(create_stream_with_config_drops_unknown_flag_bits);
    RUN_CASE(cpu_schedule_streams_are_not_supported);
    RUN_CASE(create_stream_v2_without_config_is_a_plain_stream);
    RUN_CASE(create_stream_v2_applies_the_config_handle);
    RUN_CASE(set_stream_config_opt_rejects_bad_sizes_attributes_and_priorities);
    RUN_CASE(destroy_stream_config_handle_null_is_invalid_param);
    RUN_CASE(stream_ids_are_distinct_among_live_streams);
    RUN_CASE(device_stream_priority_range_is_7_to_0);
    RUN_CASE(stream_available_num_drops_by_one_per_created_stream);

    RUN_CASE(destroy_stream_waits_for_pending_work);
    RUN_CASE(destroy_stream_force_returns_at_once_and_the_launched_work_still_runs);
    RUN_CASE(destroy_stream_force_discards_from_the_first_wait_that_blocks);
    RUN_CASE(synchronize_device_waits_for_the_work_a_force_destroy_left_running);
    RUN_CASE(destroyed_stream_handle_is_invalid_handle_for_every_stream_call);
    RUN_CASE(destroy_null_stream_is_invalid_param);
    RUN_CASE(destroy_of_the_default_stream_handle_is_param_invalid);

    RUN_CASE(failed_task_in_continue_mode_is_reported_once_and_later_tasks_run);
    RUN_CASE(stop_on_failure_on_one_stream_stops_every_stream_of_the_context);
    RUN_CASE(failure_mode_rejects_values_other_than_continue_and_stop);
    RUN_CASE(stream_attributes_round_trip);
    RUN_CASE(priority_attribute_cannot_be_set_and_reads_the_creation_priority);

    RUN_CASE(task_synchronizing_or_destroying_its_own_stream_gets_param_invalid);
    RUN_CASE(default_stream_does_not_wait_for_a_blocked_stream);
    RUN_CASE(other_streams_do_not_wait_for_a_blocked_default_stream);

    /* A small runtime: 16-task rings, 8 streams per device, 2 executors; fresh for the quota cases. */
    restart_runtime("1024", "8", "2");
    RUN_CASE(creating_streams_beyond_the_quota_is_no_stream_resource);
    restart_runtime("1024", "8", "2");
    RUN_CASE(streams_destroyed_after_running_work_give_their_quota_back_at_once);
    RUN_CASE(launches_into_a_full_ring_wait_for_room_and_none_is_dropped);
    RUN_CASE(task_launching_into_its_own_full_stream_gets_task_full);
    RUN_CASE(streams_blocked_in_user_code_do_not_starve_a_ready_stream);

    aclrtResetDevice(0);
    aclFinalize();
    return check_report("stream");
}
