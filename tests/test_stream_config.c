/*
 * tests/test_stream_config.c - pins stream configuration (docs/SEMANTICS.md,
 * Streams: configuration handles; device-use-only streams): the value sizes
 * aclrtSetStreamConfigOpt takes, and what an ACL_STREAM_DEVICE_USE_ONLY
 * stream is on a host device: the flows of the stream-config-query and
 * stream-with-failure-mode samples.
 */
#include "check.h"
#include "gate.h"

#include <stdatomic.h>
#include <string.h>

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

TEST(the_flag_option_takes_a_uint32_or_a_size_t)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    uint32_t narrow = ACL_STREAM_FAST_LAUNCH;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &narrow, sizeof narrow));
    CHECK_EQ(ACL_STREAM_FAST_LAUNCH, h->flag);
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamV2(&s, h));
    uint32_t flags = 0;
    CHECK_OK(aclrtStreamGetFlags(s, &flags));
    CHECK_EQ(ACL_STREAM_FAST_LAUNCH, flags);
    CHECK_OK(aclrtDestroyStream(s));
    size_t wide = ACL_STREAM_FAST_SYNC;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &wide, sizeof wide));
    CHECK_OK(aclrtCreateStreamV2(&s, h));
    CHECK_OK(aclrtStreamGetFlags(s, &flags));
    CHECK_EQ(ACL_STREAM_FAST_SYNC, flags);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(the_work_size_option_takes_a_uint32_or_a_size_t)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    uint32_t narrow = 4096;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &narrow, sizeof narrow));
    CHECK_EQ(4096, h->workSize);
    size_t wide = (size_t)1 << 20;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &wide, sizeof wide));
    CHECK_EQ((size_t)1 << 20, h->workSize);
    void *ptr = &wide;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &ptr, sizeof ptr));
    CHECK(h->workptr == (void *)&wide);
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(options_of_another_value_size_are_invalid_param)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    unsigned char value[16] = {1};
    size_t bad_int[] = {0, 1, 2, 3, 5, 16};
    for (size_t i = 0; i < sizeof bad_int / sizeof bad_int[0]; i++) {
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, value, bad_int[i]));
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, value, bad_int[i]));
    }
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, value, sizeof(size_t)));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, value, 4));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "a pointer");
    CHECK_EQ(0, h->flag);
    CHECK_EQ(0, h->workSize);
    CHECK(h->workptr == NULL);
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(a_stream_from_a_configuration_reports_its_id_flags_and_priority)
{
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    uint32_t flags = 0, priority = 3;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flags, sizeof flags));
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &priority, sizeof priority));
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamV2(&s, h));
    int32_t id = -1;
    CHECK_OK(aclrtStreamGetId(s, &id));
    CHECK(id >= 0);
    uint32_t got = 99;
    CHECK_OK(aclrtStreamGetFlags(s, &got));
    CHECK_EQ(0, got);
    CHECK_OK(aclrtStreamGetPriority(s, &got));
    CHECK_EQ(3, got);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(a_device_use_only_stream_is_created_with_its_flag)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY));
    uint32_t flags = 0;
    CHECK_OK(aclrtStreamGetFlags(s, &flags));
    CHECK_EQ(ACL_STREAM_DEVICE_USE_ONLY, flags);
    CHECK_OK(aclrtDestroyStream(s));
    aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
    CHECK(h != NULL);
    uint32_t flag = ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_LAUNCH;
    CHECK_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof flag));
    CHECK_OK(aclrtCreateStreamV2(&s, h));
    CHECK_OK(aclrtStreamGetFlags(s, &flags));
    CHECK_EQ(flag, flags);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStreamConfigHandle(h));
}

TEST(a_device_use_only_stream_runs_what_is_submitted_to_it)
{
    aclrtStream s;
    aclrtEvent done;
    CHECK_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY));
    CHECK_OK(aclrtCreateEvent(&done));
    atomic_int count = 0;
    for (int i = 0; i < 3; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtRecordEvent(done, s));
    CHECK_OK(aclrtSynchronizeEvent(done)); /* an event is how the host waits for such a stream */
    CHECK_EQ(3, atomic_load(&count));
    CHECK_OK(aclrtDestroyEvent(done));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(synchronize_and_query_of_a_device_use_only_stream_return_at_once)
{
    aclrtStream s;
    aclrtEvent done;
    CHECK_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY));
    CHECK_OK(aclrtCreateEvent(&done));
    struct gate *g = launch_gate(s);
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclrtSynchronizeStream(s));                 /* the gate is still closed */
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, 1));
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_EQ(0, atomic_load(&g->done));
    gate_open(g);
    CHECK_OK(aclrtRecordEvent(done, s));
    CHECK_OK(aclrtSynchronizeEvent(done));
    CHECK_EQ(1, atomic_load(&g->done));
    CHECK_OK(aclrtDestroyEvent(done));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_device_use_only_stream_has_no_failure_mode)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.failureMode = ACL_STOP_ON_FAILURE;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
    CHECK_EQ(ACL_CONTINUE_ON_FAILURE, v.failureMode);
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_device_use_only_stream_can_be_stopped_synchronized_and_destroyed)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY));
    atomic_int count = 0;
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count));
    CHECK_OK(aclrtStreamStop(s));
    CHECK_OK(aclrtSynchronizeStream(s)); /* not ACL_ERROR_RT_TASK_ABORT_STOP: nothing on the host waits for it */
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &count)); /* accepted, kept: the stream is stopped */
    CHECK_OK(aclrtDestroyStreamForce(s));
    CHECK(atomic_load(&count) <= 1);
}

TEST(cpu_schedule_streams_are_not_supported)
{
    aclrtStream s = NULL;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_CPU_SCHEDULE));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY));
    CHECK(s == NULL);
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(the_flag_option_takes_a_uint32_or_a_size_t);
    RUN(the_work_size_option_takes_a_uint32_or_a_size_t);
    RUN(options_of_another_value_size_are_invalid_param);
    RUN(a_stream_from_a_configuration_reports_its_id_flags_and_priority);
    RUN(a_device_use_only_stream_is_created_with_its_flag);
    RUN(a_device_use_only_stream_runs_what_is_submitted_to_it);
    RUN(synchronize_and_query_of_a_device_use_only_stream_return_at_once);
    RUN(a_device_use_only_stream_has_no_failure_mode);
    RUN(a_device_use_only_stream_can_be_stopped_synchronized_and_destroyed);
    RUN(cpu_schedule_streams_are_not_supported);
    gates_open_all();
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("stream_config");
}
