/*
 * tests/cuda_fake/rule_kernel_fault.c - rule 6 of the test double: a kernel
 * fault loses the context. CUDA_ERROR_LAUNCH_FAILED "leaves the process in an
 * inconsistent state and any further CUDA work will return the same error".
 * Planted: a stand-in kernel's block returns non-zero (the double's fault);
 * strict, the stream's synchronize returns CUDA_ERROR_LAUNCH_FAILED, and so
 * do later calls in the context (an allocation, a synchronize, again); it
 * ends with the context (the last release of the primary context).
 * Knob: ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS=1 (the double's older model:
 * the stream stops at the kernel, its next query or synchronize returns the
 * error, the one after goes on, the context works).
 * argv[1]: the stand-in module with the kernel `fail_block` (tests/kernels/).
 */
#define _GNU_SOURCE
#include "rules.h"

#define KNOB "ACLRT_FAKE_CUDA_KERNEL_FAULT_RECOVERS"

int main(int argc, char **argv)
{
    int relaxed = rules_knob(KNOB);
    if (argc != 2) {
        fprintf(stderr, "usage: %s libtest_kernels.so\n", argv[0]);
        return 2;
    }
    rules_start();
    CUstream s = NULL;
    CUmodule m = NULL;
    void *f = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);
    EXPECT("cuModuleLoad", cuModuleLoad(&m, argv[1]), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction", cuModuleGetFunction(&f, m, "fail_block"), CUDA_SUCCESS);
    struct {
        uint32_t fail_at;
        int32_t code;
    } args = {1, 507899};
    size_t size = sizeof args;
    void *extra[] = {(void *)1, &args, (void *)2, &size, (void *)0};
    EXPECT("cuLaunchKernel", cuLaunchKernel(f, 2, 1, 1, 1, 1, 1, 0, s, NULL, extra), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize after the fault", cuStreamSynchronize(s), CUDA_ERROR_LAUNCH_FAILED);
    CUdeviceptr d = 0;
    CUresult later = relaxed ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_FAILED;
    EXPECT("cuStreamSynchronize again", cuStreamSynchronize(s), later);
    EXPECT("cuMemAlloc later", cuMemAlloc_v2(&d, 64), later);
    if (d != 0)
        EXPECT("cuMemFree", cuMemFree_v2(d), CUDA_SUCCESS);
    EXPECT("cuModuleUnload", cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    /* A fresh context works again. */
    rules_start();
    EXPECT("cuMemAlloc in a fresh context", cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
    EXPECT("cuMemFree", cuMemFree_v2(d), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("6, a kernel fault is sticky", KNOB);
}
