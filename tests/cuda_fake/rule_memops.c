/*
 * tests/cuda_fake/rule_memops.c - rule 4 of the test double: 64-bit stream
 * memory operations (cuStreamWriteValue64, cuStreamWaitValue64) only on
 * memory the GPU addresses: a device allocation, or pinned host memory
 * (cuMemHostAlloc) at its device address. Planted: both on plain malloc'd
 * host memory, which a GPU without HMM cannot address: strict, each fails at
 * the call with CUDA_ERROR_INVALID_VALUE. The accepted kinds work (the write
 * reaches the pinned word; the wait on device memory is released by a write).
 * Knob: ACLRT_FAKE_CUDA_HOST_ACCESS=1 (the GPU addresses pageable memory:
 * the planted calls work).
 */
#define _GNU_SOURCE
#include "rules.h"

#define KNOB "ACLRT_FAKE_CUDA_HOST_ACCESS"

int main(void)
{
    int relaxed = rules_knob(KNOB);
    rules_start();
    CUstream s = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);

    uint64_t *plain = (uint64_t *)calloc(2, sizeof *plain);
    CUdeviceptr p = (CUdeviceptr)(uintptr_t)plain;
    EXPECT("cuStreamWriteValue64 on malloc'd memory", cuStreamWriteValue64_v2(s, p, 5, 0),
           relaxed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuStreamWaitValue64 on malloc'd memory", cuStreamWaitValue64_v2(s, p, 5, 0),
           relaxed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT("the malloc'd word", plain[0], relaxed ? 5 : 0);

    /* Pinned host memory, at its device address. */
    void *pinned = NULL;
    CUdeviceptr word = 0;
    EXPECT("cuMemHostAlloc", cuMemHostAlloc(&pinned, 256, 3), CUDA_SUCCESS);
    memset(pinned, 0, 256);
    EXPECT("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer_v2(&word, pinned, 0), CUDA_SUCCESS);
    EXPECT("cuStreamWriteValue64 on pinned memory", cuStreamWriteValue64_v2(s, word + 8, 9, 0), CUDA_SUCCESS);
    EXPECT("cuStreamWaitValue64 on pinned memory", cuStreamWaitValue64_v2(s, word + 8, 9, 0), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT("the pinned word", ((volatile uint64_t *)pinned)[1], 9);
    if (!relaxed)
        EXPECT("cuStreamWriteValue64 past pinned memory", cuStreamWriteValue64_v2(s, word + 256, 1, 0),
               CUDA_ERROR_INVALID_VALUE);

    /* Device memory: a wait released by a write of another stream, then read back by a copy. */
    CUstream s2 = NULL;
    CUdeviceptr dev = 0;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s2, 1, 0), CUDA_SUCCESS);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&dev, 64), CUDA_SUCCESS);
    EXPECT("cuMemsetD8", cuMemsetD8_v2(dev, 0, 64), CUDA_SUCCESS);
    EXPECT("cuStreamWaitValue64 on device memory", cuStreamWaitValue64_v2(s, dev + 16, 3, 0), CUDA_SUCCESS);
    EXPECT("cuStreamWriteValue64 on device memory", cuStreamWriteValue64_v2(s2, dev + 16, 3, 0), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    uint64_t back = 0;
    EXPECT("cuMemcpy", cuMemcpy((CUdeviceptr)(uintptr_t)&back, dev + 16, 8), CUDA_SUCCESS);
    EXPECT("the device word", back, 3);
    if (!relaxed) {
        EXPECT("cuMemFree", cuMemFree_v2(dev), CUDA_SUCCESS);
        EXPECT("cuStreamWriteValue64 on freed device memory", cuStreamWriteValue64_v2(s, dev, 1, 0),
               CUDA_ERROR_INVALID_VALUE);
    } else {
        EXPECT("cuMemFree", cuMemFree_v2(dev), CUDA_SUCCESS);
    }

    free(plain);
    EXPECT("cuMemFreeHost", cuMemFreeHost(pinned), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s2), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("4, stream memory operations on the GPU's memory", KNOB);
}
