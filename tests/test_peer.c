/*
 * tests/test_peer.c - peer access between devices and copies between two
 * devices' memory (docs/SEMANTICS.md, "Peer access").
 *
 * Three devices (ACLRT_DEVICES=3, set before the first call); on the cuda
 * backend's test double, on two GPUs (ACLRT_FAKE_CUDA_DEVICES=2), so that
 * some pairs share a GPU and others copy between GPUs.
 */
#define _GNU_SOURCE /* setenv, RTLD_NOLOAD (fake_cuda_hooks.h) */
#include "check.h"
#include "peer.h"
#include "fake_cuda_hooks.h"
#include "gate.h"

#include <pthread.h>
#include <string.h>

/* The test double's view of the driver's peer access between GPUs, on the cuda backend (else NULL). */
static int (*fake_peer_enabled)(int from, int to);

static void fake_lookup(void)
{
    *(void **)&fake_peer_enabled = fake_cuda_symbol("fakecuda_peer_enabled");
}

/* Are the n bytes at p (device or host memory) all v? Read through a copy (tests/check.h). */
static int all_bytes(const void *p, size_t n, unsigned char v)
{
    return dev_all_bytes_are(p, n, v);
}

/* Leave every case with device 0 current and no peer access enabled. */
static void reset_peers(void)
{
    for (int32_t d = 0; d < 3; d++) {
        CHECK_OK(aclrtSetDevice(d));
        for (int32_t p = 0; p < 3; p++)
            if (p != d)
                CHECK_OK(aclrtDeviceDisablePeerAccess(p));
        CHECK_OK(aclrtResetDevice(d));
    }
    CHECK_OK(aclrtSetDevice(0));
}

TEST(every_pair_of_distinct_devices_can_access_each_other)
{
    int32_t can = -1;
    CHECK_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CHECK_EQ(1, can);
    can = -1;
    CHECK_OK(aclrtDeviceCanAccessPeer(&can, 2, 0));
    CHECK_EQ(1, can);
}

TEST(can_access_peer_refuses_equal_ids_unknown_devices_and_a_null_output)
{
    int32_t can = 7;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(&can, 1, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(NULL, 1, 1)); /* equal ids are checked first */
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, 3));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, -1, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceCanAccessPeer(NULL, 0, 1));
    CHECK_EQ(7, can);
}

TEST(enabling_is_one_direction_from_the_current_device_until_disabled)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(0, status_of(0, 1));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0));
    CHECK_EQ(1, status_of(0, 1));
    CHECK_EQ(0, status_of(1, 0));
    CHECK_EQ(0, status_of(0, 2));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0)); /* again: still on */
    CHECK_EQ(1, status_of(0, 1));
    CHECK_OK(aclrtDeviceDisablePeerAccess(1));
    CHECK_EQ(0, status_of(0, 1));
    CHECK_OK(aclrtDeviceDisablePeerAccess(1)); /* again: still off */
    CHECK_EQ(0, status_of(0, 1));
}

TEST(enable_and_disable_refuse_flags_the_current_device_and_unknown_peers)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtDeviceEnablePeerAccess(1, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceEnablePeerAccess(0, 0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(3, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(-2));
    CHECK_EQ(0, status_of(0, 1));
}

static void *enable_without_context(void *arg)
{
    aclError *out = (aclError *)arg;
    out[0] = aclrtDeviceEnablePeerAccess(1, 0);
    out[1] = aclrtDeviceDisablePeerAccess(1);
    return NULL;
}

TEST(enable_and_disable_need_a_current_context)
{
    aclError rc[2] = {0, 0};
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, enable_without_context, rc));
    pthread_join(t, NULL);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, rc[0]);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, rc[1]);
}

TEST(peer_access_status_refuses_unknown_devices_and_a_null_output)
{
    int32_t status = 5;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDevicePeerAccessStatus(0, 1, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDevicePeerAccessStatus(0, 3, &status));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtDevicePeerAccessStatus(-1, 0, &status));
    CHECK_EQ(5, status);
    CHECK_OK(aclrtDevicePeerAccessStatus(1, 1, &status));
    CHECK_EQ(0, status);
}

TEST(a_copy_between_two_devices_needs_access_from_the_current_device_to_the_other)
{
    void *on0 = alloc_on(0, 64, 0xA0, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    void *on1 = alloc_on(1, 64, 0x11, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    CHECK_OK(aclrtSetDevice(1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(on1, 64, on0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtDeviceEnablePeerAccess");
    CHECK(all_bytes(on1, 64, 0x11));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0)); /* 0 -> 1 does not let device 1 reach device 0 */
    CHECK_OK(aclrtSetDevice(1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(on1, 64, on0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0));
    CHECK_OK(aclrtMemcpy(on1, 64, on0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(all_bytes(on1, 64, 0xA0));
    CHECK_OK(aclrtFree(on0));
    CHECK_OK(aclrtFree(on1));
    reset_peers();
}

TEST(a_third_device_running_the_copy_needs_access_to_both_ends)
{
    void *on0 = alloc_on(0, 32, 0x01, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    void *on1 = alloc_on(1, 32, 0x02, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    CHECK_OK(aclrtSetDevice(2));
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(on1, 32, on0, 32, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(all_bytes(on1, 32, 0x02));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0));
    CHECK_OK(aclrtMemcpy(on1, 32, on0, 32, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(all_bytes(on1, 32, 0x01));
    CHECK_OK(aclrtFree(on0));
    CHECK_OK(aclrtFree(on1));
    reset_peers();
}

TEST(copies_between_one_device_and_host_memory_or_within_a_device_need_no_peer_access)
{
    void *on0 = alloc_on(0, 64, 0x33, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    void *also0 = alloc_on(0, 64, 0x00, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    void *pinned = NULL;
    unsigned char pageable[64];
    CHECK_OK(aclrtMallocHost(&pinned, 64));
    CHECK_OK(aclrtSetDevice(1)); /* another device is current */
    CHECK_OK(aclrtMemcpy(also0, 64, on0, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(all_bytes(also0, 64, 0x33));
    CHECK_OK(aclrtMemcpy(pinned, 64, on0, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(all_bytes(pinned, 64, 0x33));
    CHECK_OK(aclrtMemcpy(pageable, sizeof pageable, on0, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(all_bytes(pageable, 64, 0x33));
    CHECK_OK(aclrtFree(on0));
    CHECK_OK(aclrtFree(also0));
    CHECK_OK(aclrtFreeHost(pinned));
    reset_peers();
}

TEST(an_async_copy_between_devices_needs_access_from_the_stream_s_device)
{
    void *on0 = alloc_on(0, 128, 0x5A, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    void *on1 = alloc_on(1, 128, 0x00, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    CHECK_OK(aclrtSetDevice(1));
    aclrtStream s1;
    CHECK_OK(aclrtCreateStream(&s1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(on1, 128, on0, 128, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0));
    struct gate *g = launch_gate(s1);
    CHECK_OK(aclrtMemcpyAsync(on1, 128, on0, 128, ACL_MEMCPY_DEVICE_TO_DEVICE, s1)); /* returns: device memory */
    aclrtStreamStatus st;
    CHECK_OK(aclrtStreamQuery(s1, &st));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    aclrtxSanitizerIgnoreBegin(); /* a look behind the gate: a race on purpose (check.h, dev_peek) */
    CHECK(all_bytes(on1, 128, 0x00));
    aclrtxSanitizerIgnoreEnd();
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s1));
    CHECK(all_bytes(on1, 128, 0x5A));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtFree(on0));
    CHECK_OK(aclrtFree(on1));
    reset_peers();
}

TEST(peer_access_ends_with_the_context_that_enabled_it)
{
    aclrtContext ctx;
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    CHECK_OK(aclrtDeviceEnablePeerAccess(2, 0));
    CHECK_EQ(1, status_of(0, 2));
    CHECK_OK(aclrtDestroyContext(ctx));
    CHECK_EQ(0, status_of(0, 2));
    CHECK_OK(aclrtSetDevice(0)); /* the device's default context again */
    CHECK_EQ(0, status_of(0, 2));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclrtSetDevice(0));
}

TEST(memcpy_refuses_the_inner_and_inter_device_kinds_like_any_unknown_kind)
{
    void *a = alloc_on(0, 16, 0x01, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    void *b = alloc_on(0, 16, 0x02, ACL_MEM_MALLOC_HUGE_FIRST_P2P);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b, 16, a, 16, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b, 16, a, 16, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(b, 16, a, 16, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(b, 16, a, 16, (aclrtMemcpyKind)8));
    CHECK(all_bytes(b, 16, 0x02));
    CHECK_OK(aclrtMemcpy(b, 16, a, 16, ACL_MEMCPY_DEFAULT));
    CHECK(all_bytes(b, 16, 0x01));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    reset_peers();
}

/* The flow of CANN's device P2P sample: both directions enabled, a copy, a check through host memory. */
TEST(the_p2p_sample_flow_copies_device_0_memory_to_device_1)
{
    int32_t can = 0;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CHECK_EQ(1, can);
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0));
    void *dev0, *dev1, *host;
    CHECK_OK(aclrtMalloc(&dev0, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    CHECK_OK(aclrtMemset(dev0, 10, 103, 10));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0));
    CHECK_OK(aclrtMalloc(&dev1, 10, ACL_MEM_MALLOC_HUGE_FIRST_P2P));
    CHECK_OK(aclrtMemset(dev1, 10, 0, 10));
    CHECK_OK(aclrtMemcpy(dev1, 10, dev0, 10, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK_OK(aclrtMallocHost(&host, 10));
    CHECK_OK(aclrtMemset(host, 10, 0, 10));
    CHECK_OK(aclrtMemcpy(host, 10, dev1, 10, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(all_bytes(host, 10, 103));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtDeviceDisablePeerAccess(0));
    CHECK_OK(aclrtFreeHost(host));
    CHECK_OK(aclrtFree(dev1));
    CHECK_OK(aclrtResetDeviceForce(1));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDeviceDisablePeerAccess(1));
    CHECK_OK(aclrtFree(dev0));
    CHECK_OK(aclrtResetDeviceForce(0));
    CHECK_OK(aclrtSetDevice(0));
}

/*
 * Devices 0 and 2 share the first fake GPU (its context), device 1 has the
 * second: the driver's access from the first GPU to the second stays on
 * while either device pair has it on.
 */
TEST(the_driver_s_access_between_two_gpus_stays_on_while_a_device_pair_on_them_has_it)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0));
    CHECK_OK(aclrtSetDevice(2));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0));
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0)); /* one GPU: nothing for the driver */
    if (fake_peer_enabled != NULL)
        CHECK_EQ(1, fake_peer_enabled(0, 1));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDeviceDisablePeerAccess(1));
    CHECK_EQ(0, status_of(0, 1));
    CHECK_EQ(1, status_of(2, 1));
    if (fake_peer_enabled != NULL)
        CHECK_EQ(1, fake_peer_enabled(0, 1)); /* device 2 still has it */
    CHECK_OK(aclrtSetDevice(2));
    CHECK_OK(aclrtDeviceDisablePeerAccess(1));
    CHECK_EQ(0, status_of(2, 1));
    if (fake_peer_enabled != NULL)
        CHECK_EQ(0, fake_peer_enabled(0, 1));
    CHECK_OK(aclrtDeviceDisablePeerAccess(0));
    reset_peers();
}

#define RUN_CASE(name)    \
    do {                  \
        RUN(name);        \
        gates_open_all(); \
    } while (0)

int main(void)
{
    setenv("ACLRT_DEVICES", "3", 1);
    /* The cuda backend's test double: two GPUs, devices 0 and 2 on the first, 1 on the second. */
    setenv("ACLRT_FAKE_CUDA_DEVICES", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "peer: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    fake_lookup();
    RUN_CASE(every_pair_of_distinct_devices_can_access_each_other);
    RUN_CASE(can_access_peer_refuses_equal_ids_unknown_devices_and_a_null_output);
    RUN_CASE(enabling_is_one_direction_from_the_current_device_until_disabled);
    RUN_CASE(enable_and_disable_refuse_flags_the_current_device_and_unknown_peers);
    RUN_CASE(enable_and_disable_need_a_current_context);
    RUN_CASE(peer_access_status_refuses_unknown_devices_and_a_null_output);
    RUN_CASE(a_copy_between_two_devices_needs_access_from_the_current_device_to_the_other);
    RUN_CASE(a_third_device_running_the_copy_needs_access_to_both_ends);
    RUN_CASE(copies_between_one_device_and_host_memory_or_within_a_device_need_no_peer_access);
    RUN_CASE(an_async_copy_between_devices_needs_access_from_the_stream_s_device);
    RUN_CASE(peer_access_ends_with_the_context_that_enabled_it);
    RUN_CASE(memcpy_refuses_the_inner_and_inter_device_kinds_like_any_unknown_kind);
    RUN_CASE(the_p2p_sample_flow_copies_device_0_memory_to_device_1);
    RUN_CASE(the_driver_s_access_between_two_gpus_stays_on_while_a_device_pair_on_them_has_it);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("peer");
}
