/*
 * tests/test_two_devices.c - copies and kernels between two devices that
 * each have memory of their own (docs/SEMANTICS.md, "Peer access";
 * docs/CUDA.md, "More than one GPU"): peer access enabled twice and
 * disabled twice, copies from one device's memory to the other's with and
 * without access (synchronous, and on a stream), a kernel launched on the
 * second device from a binary loaded with the first current, a kernel
 * writing the other device's memory once access is on, and a model
 * captured on the second device (a kernel and a copy from the first
 * device's memory) replayed. Data is checked by copying it back to the
 * host.
 *
 * Two devices (ACLRT_DEVICES=2); on the cuda backend's test double two
 * GPUs (ACLRT_FAKE_CUDA_DEVICES=2, both set before the first call), so each
 * device has its own context, memory and modules, and the double checks
 * the driver's peer rules (tests/cuda_fake/fake_cuda.c, rule 8).
 */
#define _GNU_SOURCE

#include "check.h"
#include "peer.h"
#include "fake_cuda_hooks.h"
#include "kernels/test_kernels.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The test double's view of the driver's peer access, when the cuda backend runs on it (else NULL). */
static int (*fake_peer_enabled)(int from, int to);

static void fake_lookup(void)
{
    *(void **)&fake_peer_enabled = fake_cuda_symbol("fakecuda_peer_enabled");
}

/* The driver's access from GPU `from` to GPU `to` is `want` (on the test double only). */
#define CHECK_DRIVER_PEER(from, to, want)                        \
    do {                                                         \
        if (fake_peer_enabled != NULL)                           \
            CHECK_EQ((want), fake_peer_enabled((from), (to)));   \
    } while (0)

/* Kernel binaries here are host shared objects: the host backend and the test double load them, a GPU does not. */
static int kernels_load(void)
{
    return strcmp(aclrtxGetBackendName(), "cuda") != 0 || getenv("ACLRT_CUDA_LIBRARY") != NULL;
}

/* Every case ends with device 0 current and no access enabled. */
static void reset_peers(void)
{
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtDeviceDisablePeerAccess(0));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDeviceDisablePeerAccess(1));
    CHECK_DRIVER_PEER(0, 1, 0);
    CHECK_DRIVER_PEER(1, 0, 0);
}

TEST(each_device_can_access_the_other)
{
    int32_t can = -1;
    CHECK_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CHECK_EQ(1, can);
    can = -1;
    CHECK_OK(aclrtDeviceCanAccessPeer(&can, 1, 0));
    CHECK_EQ(1, can);
}

TEST(enabling_twice_and_disabling_twice_succeed_and_the_driver_follows)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0));
    CHECK_EQ(1, status_of(0, 1));
    CHECK_DRIVER_PEER(0, 1, 1);
    CHECK_DRIVER_PEER(1, 0, 0); /* one direction */
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0)); /* again: the driver's "already enabled" is no failure */
    CHECK_EQ(1, status_of(0, 1));
    CHECK_DRIVER_PEER(0, 1, 1);
    CHECK_OK(aclrtDeviceDisablePeerAccess(1));
    CHECK_EQ(0, status_of(0, 1));
    CHECK_DRIVER_PEER(0, 1, 0);
    CHECK_OK(aclrtDeviceDisablePeerAccess(1)); /* again: the driver's "not enabled" is no failure */
    CHECK_EQ(0, status_of(0, 1));
    CHECK_DRIVER_PEER(0, 1, 0);
    reset_peers();
}

TEST(a_synchronous_copy_between_the_devices_needs_access_then_arrives_both_ways)
{
    enum { N = 4096 };
    void *on0 = alloc_on(0, N, 0x00, ACL_MEM_MALLOC_HUGE_FIRST), *on1 = alloc_on(1, N, 0x00, ACL_MEM_MALLOC_HUGE_FIRST);
    dev_fill_pattern(on0, N, 11);
    CHECK_OK(aclrtSetDevice(1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(on1, N, on0, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtDeviceEnablePeerAccess");
    CHECK(dev_all_bytes_are(on1, N, 0x00));
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0)); /* device 1 reaches device 0 */
    CHECK_OK(aclrtMemcpy(on1, N, on0, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(dev_has_pattern(on1, N, 11));
    dev_fill_pattern(on1, N, 12); /* and back, device 1 still running the copy */
    CHECK_OK(aclrtMemcpy(on0, N, on1, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(dev_has_pattern(on0, N, 12));
    CHECK_OK(aclrtFree(on1));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtFree(on0));
    reset_peers();
}

TEST(an_async_copy_from_device_0_to_device_1_on_a_stream_of_device_0)
{
    enum { N = 65536 };
    void *on0 = alloc_on(0, N, 0x00, ACL_MEM_MALLOC_HUGE_FIRST), *on1 = alloc_on(1, N, 0x7E, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_OK(aclrtSetDevice(0));
    dev_fill_pattern(on0, N, 21);
    aclrtStream s0 = NULL;
    CHECK_OK(aclrtCreateStream(&s0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(on1, N, on0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s0));
    CHECK_OK(aclrtSynchronizeStream(s0));
    CHECK(dev_all_bytes_are(on1, N, 0x7E));
    /* Within device 1's memory, on device 0's stream: one device's memory, no access needed. */
    void *also1 = alloc_on(1, N, 0x00, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtMemcpyAsync(also1, N, on1, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s0));
    CHECK_OK(aclrtSynchronizeStream(s0));
    CHECK(dev_all_bytes_are(also1, N, 0x7E));
    CHECK_OK(aclrtFree(also1));
    CHECK_OK(aclrtDeviceEnablePeerAccess(1, 0));
    CHECK_OK(aclrtMemcpyAsync(on1, N, on0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s0));
    CHECK_OK(aclrtMemcpyAsync(on0, N / 2, on1 + N / 2, N / 2, ACL_MEMCPY_DEVICE_TO_DEVICE, s0)); /* in order */
    CHECK_OK(aclrtSynchronizeStream(s0));
    CHECK(dev_has_pattern(on1, N, 21));
    unsigned char *back = (unsigned char *)malloc(N), *want = (unsigned char *)malloc(N);
    CHECK(back != NULL && want != NULL);
    fill_pattern(want, N, 21);
    dev_read(back, on0, N);
    CHECK(memcmp(back, want + N / 2, N / 2) == 0);
    CHECK(memcmp(back + N / 2, want + N / 2, N / 2) == 0);
    free(back);
    free(want);
    CHECK_OK(aclrtDestroyStream(s0));
    CHECK_OK(aclrtFree(on0));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtFree(on1));
    CHECK_OK(aclrtSetDevice(0));
    reset_peers();
}

/* Launch fill(out, value) over `blocks` blocks on s and wait. */
static void fill_on(aclrtFuncHandle f, aclrtStream s, int32_t *out, int32_t value, uint32_t blocks)
{
    struct fill_args a = {out, value};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, blocks, s, NULL, &a, sizeof a, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
}

/* Are out[0..n) value + i (read through a copy)? */
static int filled(const int32_t *out, int32_t value, uint32_t n)
{
    int32_t got[16];
    CHECK(n <= 16);
    dev_read(got, out, n * sizeof got[0]);
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != value + (int32_t)i)
            return 0;
    return 1;
}

TEST(a_kernel_runs_on_device_1_from_a_binary_loaded_with_device_0_current)
{
    if (!kernels_load()) {
        printf("    skipped: the test kernels are host shared objects, which a GPU's driver does not load\n");
        return;
    }
    CHECK_OK(aclrtSetDevice(0));
    aclrtBinHandle bin = NULL;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin));
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, "fill", &f));
    int32_t *out1 = (int32_t *)alloc_on(1, 64, 0, ACL_MEM_MALLOC_HUGE_FIRST);
    int32_t *out0 = (int32_t *)alloc_on(0, 64, 0, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtStream s0 = NULL, s1 = NULL;
    CHECK_OK(aclrtCreateStream(&s0));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtCreateStream(&s1));
    fill_on(f, s1, out1, 100, 8); /* the binary's first launch on device 1 */
    CHECK(filled(out1, 100, 8));
    CHECK_OK(aclrtSetDevice(0));
    fill_on(f, s0, out0, 200, 8); /* on device 0, where it was loaded */
    CHECK(filled(out0, 200, 8));
    CHECK_OK(aclrtSetDevice(1));
    fill_on(f, s1, out1, 300, 4); /* device 1 again */
    CHECK(filled(out1, 300, 4));
    CHECK(filled(out1 + 4, 104, 4));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtFree(out1));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtDestroyStream(s0));
    CHECK_OK(aclrtFree(out0));
    CHECK_OK(aclrtBinaryUnLoad(bin));
}

TEST(a_kernel_on_device_1_writes_device_0_memory_once_access_is_on)
{
    if (!kernels_load()) {
        printf("    skipped: the test kernels are host shared objects, which a GPU's driver does not load\n");
        return;
    }
    aclrtBinHandle bin = NULL;
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin)); /* loaded with device 1 current this time */
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, "fill", &f));
    int32_t *out0 = (int32_t *)alloc_on(0, 64, 0, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0));
    CHECK_DRIVER_PEER(1, 0, 1);
    aclrtStream s1 = NULL;
    CHECK_OK(aclrtCreateStream(&s1));
    fill_on(f, s1, out0, 40, 6);
    CHECK(filled(out0, 40, 6));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtFree(out0));
    reset_peers();
}

TEST(a_model_captured_on_device_1_replays_a_kernel_and_a_copy_from_device_0)
{
    if (!kernels_load()) {
        printf("    skipped: the test kernels are host shared objects, which a GPU's driver does not load\n");
        return;
    }
    enum { N = 1024 };
    CHECK_OK(aclrtSetDevice(0));
    aclrtBinHandle bin = NULL;
    CHECK_OK(aclrtBinaryLoadFromFile(KERNELS, NULL, &bin)); /* device 0 current: loaded there first */
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, "fill", &f));
    void *src0 = alloc_on(0, N, 0x00, ACL_MEM_MALLOC_HUGE_FIRST);
    dev_fill_pattern(src0, N, 31);
    int32_t *k1 = (int32_t *)alloc_on(1, 64, 0, ACL_MEM_MALLOC_HUGE_FIRST);
    void *dst1 = alloc_on(1, N, 0x00, ACL_MEM_MALLOC_HUGE_FIRST);
    CHECK_OK(aclrtDeviceEnablePeerAccess(0, 0)); /* device 1 current: it reaches device 0 */
    aclrtStream s1 = NULL;
    CHECK_OK(aclrtCreateStream(&s1));
    CHECK_OK(aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    struct fill_args a = {k1, 500};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, 4, s1, NULL, &a, sizeof a, NULL, 0));
    CHECK_OK(aclrtMemcpyAsync(dst1, N, src0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s1, &m));
    CHECK_OK(aclrtSynchronizeStream(s1));
    for (int r = 0; r < 2; r++) {
        CHECK_OK(aclrtMemsetAsync(k1, 64, 0, 64, s1));
        CHECK_OK(aclrtMemsetAsync(dst1, N, 0, N, s1));
        CHECK_OK(aclmdlRIExecuteAsync(m, s1));
        CHECK_OK(aclrtSynchronizeStream(s1));
        CHECK(filled(k1, 500, 4));
        CHECK(dev_has_pattern(dst1, N, 31));
    }
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtFree(k1));
    CHECK_OK(aclrtFree(dst1));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtFree(src0));
    reset_peers();
}

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    setenv("ACLRT_FAKE_CUDA_DEVICES", "2", 1); /* the cuda backend's test double: two GPUs */
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "two_devices: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    fake_lookup();
    RUN(each_device_can_access_the_other);
    RUN(enabling_twice_and_disabling_twice_succeed_and_the_driver_follows);
    RUN(a_synchronous_copy_between_the_devices_needs_access_then_arrives_both_ways);
    RUN(an_async_copy_from_device_0_to_device_1_on_a_stream_of_device_0);
    RUN(a_kernel_runs_on_device_1_from_a_binary_loaded_with_device_0_current);
    RUN(a_kernel_on_device_1_writes_device_0_memory_once_access_is_on);
    RUN(a_model_captured_on_device_1_replays_a_kernel_and_a_copy_from_device_0);
    aclrtResetDevice(1);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("two_devices");
}
