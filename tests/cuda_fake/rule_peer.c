/*
 * tests/cuda_fake/rule_peer.c - rule 8 of the test double: another device's
 * memory is reached only with peer access, and a module is its context's.
 * Two fake GPUs (ACLRT_FAKE_CUDA_DEVICES=2, set here). Planted, in this
 * order: a copy between the two devices' memory issued in device 0's
 * context before access is enabled (CUDA_ERROR_INVALID_VALUE; cuMemcpyPeer
 * copies the same bytes, always); peer access enabled with wrong arguments
 * and twice, disabled twice (cuda.h's codes: INVALID_VALUE, INVALID_CONTEXT,
 * 704, 705); a function of device 0's module launched on a stream of device
 * 1 (CUDA_ERROR_INVALID_HANDLE) and looked up with device 1 current
 * (CUDA_ERROR_INVALID_CONTEXT); last, a kernel of device 1's own module
 * that writes device 0's memory without access: its context is lost
 * (CUDA_ERROR_ILLEGAL_ADDRESS, sticky).
 * Knob: ACLRT_FAKE_CUDA_PEER_OPEN=1 (the copy and the kernel go, and the
 * kernel's bytes arrive). ACLRT_FAKE_CUDA_NO_PEER=1 (mk/cuda.mk runs it that
 * way too): no pair can access, enabling is CUDA_ERROR_PEER_ACCESS_UNSUPPORTED.
 * argv[1]: the stand-in module with the kernel `fill` (tests/kernels/).
 */
#define _GNU_SOURCE
#include "rules.h"
#include "../kernels/test_kernels.h"

#include <stddef.h>

#define KNOB "ACLRT_FAKE_CUDA_PEER_OPEN"
#define CUDA_ERROR_INVALID_CONTEXT 201u
#define CUDA_ERROR_INVALID_HANDLE 400u
#define CUDA_ERROR_PEER_ACCESS_UNSUPPORTED 217u
#define CUDA_ERROR_ILLEGAL_ADDRESS 700u
#define CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED 704u
#define CUDA_ERROR_PEER_ACCESS_NOT_ENABLED 705u

CUresult cuDeviceCanAccessPeer(int *can, int device, int peer);
CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags);
CUresult cuCtxDisablePeerAccess(CUcontext peer);
CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_ctx, CUdeviceptr src, CUcontext src_ctx, size_t n);

int main(int argc, char **argv)
{
    int relaxed = rules_knob(KNOB), no_peer = rules_knob("ACLRT_FAKE_CUDA_NO_PEER");
    if (argc != 2) {
        fprintf(stderr, "usage: %s libtest_kernels.so\n", argv[0]);
        return 2;
    }
    setenv("ACLRT_FAKE_CUDA_DEVICES", "2", 1);
    CUcontext c0 = rules_start(), c1 = NULL;
    EXPECT("cuDevicePrimaryCtxRetain(1)", cuDevicePrimaryCtxRetain(&c1, 1), CUDA_SUCCESS);
    int can = -1;
    EXPECT("cuDeviceCanAccessPeer(0, 1)", cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
    EXPECT("device 0 can access device 1", can, no_peer ? 0 : 1);
    EXPECT("cuDeviceCanAccessPeer(1, 1)", cuDeviceCanAccessPeer(&can, 1, 1), CUDA_SUCCESS);
    EXPECT("a device is no peer of its own", can, 0);

    /* Memory of each device, filled in its own context. */
    CUdeviceptr a0 = 0, a1 = 0;
    EXPECT("cuMemAlloc on device 0", cuMemAlloc_v2(&a0, 256), CUDA_SUCCESS);
    EXPECT("cuMemsetD8 on device 0", cuMemsetD8_v2(a0, 0x00, 256), CUDA_SUCCESS);
    EXPECT("cuCtxSetCurrent(1)", cuCtxSetCurrent(c1), CUDA_SUCCESS);
    EXPECT("cuMemAlloc on device 1", cuMemAlloc_v2(&a1, 256), CUDA_SUCCESS);
    EXPECT("cuMemsetD8 on device 1", cuMemsetD8_v2(a1, 0x5A, 256), CUDA_SUCCESS);
    EXPECT("cuCtxSetCurrent(0)", cuCtxSetCurrent(c0), CUDA_SUCCESS);

    /* A copy between the two in device 0's context, no access enabled. */
    EXPECT("cuMemcpy device 1 -> device 0 without access", cuMemcpy(a0, a1, 256),
           relaxed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuMemsetD8 of device 1's memory in device 0's context", cuMemsetD8_v2(a1, 0x5A, 16),
           relaxed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuMemcpyPeer (always allowed)", cuMemcpyPeer(a0, c0, a1, c1, 256), CUDA_SUCCESS);
    EXPECT("cuMemcpyPeer naming the wrong contexts", cuMemcpyPeer(a0, c1, a1, c0, 256), CUDA_ERROR_INVALID_VALUE);
    unsigned char back[256];
    memset(back, 0, sizeof back);
    EXPECT("cuMemcpy device 0 -> host", cuMemcpy((CUdeviceptr)(uintptr_t)back, a0, 256), CUDA_SUCCESS);
    EXPECT("the peer copy's bytes", back[0] == 0x5A && back[255] == 0x5A, 1);

    /* Enabling and disabling, with cuda.h's codes. */
    EXPECT("cuCtxEnablePeerAccess with flags", cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuCtxEnablePeerAccess of the current context", cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("cuCtxEnablePeerAccess(NULL)", cuCtxEnablePeerAccess(NULL, 0), CUDA_ERROR_INVALID_CONTEXT);
    if (no_peer) {
        EXPECT("cuCtxEnablePeerAccess unsupported", cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
    } else {
        EXPECT("cuCtxEnablePeerAccess", cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
        EXPECT("cuCtxEnablePeerAccess again", cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
        EXPECT("cuMemcpy device 1 -> device 0 with access", cuMemcpy(a0, a1, 256), CUDA_SUCCESS);
        EXPECT("cuCtxDisablePeerAccess", cuCtxDisablePeerAccess(c1), CUDA_SUCCESS);
    }
    EXPECT("cuCtxDisablePeerAccess of what is off", cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
    EXPECT("cuMemcpy device 1 -> device 0 after the disable", cuMemcpy(a0, a1, 256),
           relaxed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);

    /* A module is its context's. */
    CUmodule m0 = NULL, m1 = NULL;
    void *f0 = NULL, *f1 = NULL;
    CUstream s1 = NULL;
    EXPECT("cuModuleLoad in device 0's context", cuModuleLoad(&m0, argv[1]), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction", cuModuleGetFunction(&f0, m0, "fill"), CUDA_SUCCESS);
    EXPECT("cuCtxSetCurrent(1)", cuCtxSetCurrent(c1), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction of device 0's module, device 1 current", cuModuleGetFunction(&f1, m0, "fill"),
           CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("cuStreamCreate on device 1", cuStreamCreateWithPriority(&s1, 1, 0), CUDA_SUCCESS);
    struct fill_args fa = {(int32_t *)(uintptr_t)a1, 40};
    size_t size = offsetof(struct fill_args, value) + sizeof fa.value; /* the kernel's parameters (rule 10) */
    void *extra[] = {(void *)1, &fa, (void *)2, &size, (void *)0};
    EXPECT("cuLaunchKernel of device 0's function on device 1's stream",
           cuLaunchKernel(f0, 2, 1, 1, 1, 1, 1, 0, s1, NULL, extra), CUDA_ERROR_INVALID_HANDLE);
    EXPECT("cuModuleLoad of the same file in device 1's context", cuModuleLoad(&m1, argv[1]), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction in device 1's module", cuModuleGetFunction(&f1, m1, "fill"), CUDA_SUCCESS);
    EXPECT("a function of its own", f1 != f0, 1);
    EXPECT("cuLaunchKernel on its own device's memory", cuLaunchKernel(f1, 2, 1, 1, 1, 1, 1, 0, s1, NULL, extra),
           CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s1), CUDA_SUCCESS);
    int32_t words[2] = {0, 0};
    EXPECT("cuMemcpy device 1 -> host", cuMemcpy((CUdeviceptr)(uintptr_t)words, a1, sizeof words), CUDA_SUCCESS);
    EXPECT("the kernel's words", words[0] == 40 && words[1] == 41, 1);

    /* Last: a kernel of device 1 writes device 0's memory, no access. */
    fa.out = (int32_t *)(uintptr_t)a0;
    fa.value = 70;
    EXPECT("cuLaunchKernel onto device 0's memory", cuLaunchKernel(f1, 2, 1, 1, 1, 1, 1, 0, s1, NULL, extra),
           CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize after it", cuStreamSynchronize(s1), relaxed ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_ADDRESS);
    CUdeviceptr d = 0;
    EXPECT("cuMemAlloc in device 1's context later", cuMemAlloc_v2(&d, 64),
           relaxed ? CUDA_SUCCESS : CUDA_ERROR_ILLEGAL_ADDRESS);
    if (d != 0)
        EXPECT("cuMemFree", cuMemFree_v2(d), CUDA_SUCCESS);
    EXPECT("cuCtxSetCurrent(0)", cuCtxSetCurrent(c0), CUDA_SUCCESS);
    EXPECT("cuMemcpy device 0 -> host (device 0 goes on)", cuMemcpy((CUdeviceptr)(uintptr_t)words, a0, sizeof words),
           CUDA_SUCCESS);
    EXPECT("device 0's words", relaxed ? words[0] == 70 && words[1] == 71 : words[0] == 0x5A5A5A5A, 1);
    EXPECT("cuModuleUnload(m0)", cuModuleUnload(m0), CUDA_SUCCESS);
    EXPECT("cuMemFree(a0)", cuMemFree_v2(a0), CUDA_SUCCESS);
    EXPECT("cuCtxSetCurrent(1)", cuCtxSetCurrent(c1), CUDA_SUCCESS);
    EXPECT("cuModuleUnload(m1)", cuModuleUnload(m1), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease(1)", cuDevicePrimaryCtxRelease_v2(1), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease(0)", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done(no_peer ? "8, peer access (no peers)" : "8, peer access", KNOB);
}
