/*
 * tests/cuda_fake/rule_pageable.c - rule 12 of the test double: cuMemcpyAsync
 * with pageable host memory (malloc'd, neither cuMemHostAlloc'd nor
 * registered) on one side is synchronous with respect to the host, as on a
 * GPU: the call waits for the stream's earlier work and the copy, then
 * returns. Planted: a copy from device memory into a pageable buffer, behind
 * a wait of the stream on a word that another thread writes: strict, the
 * buffer holds the bytes when the call returns (nothing synchronized); a
 * copy from a pageable buffer, overwritten as soon as the call returns,
 * delivers the bytes of the call. Pinned memory stays asynchronous: a copy
 * into it behind an unreleased wait returns at once, not done. Knob:
 * ACLRT_FAKE_CUDA_PAGEABLE_ASYNC=1 (a pageable copy is queued like a pinned
 * one: behind the unreleased wait it returns, not done, and runs once the
 * wait is released).
 */
#define _GNU_SOURCE
#include <pthread.h>

#include "rules.h"

#define KNOB "ACLRT_FAKE_CUDA_PAGEABLE_ASYNC"

static uint64_t *pinned_word; /* the stream's wait is on it (pinned: value operations may use it) */

static void *release_main(void *arg)
{
    (void)arg;
    __atomic_store_n(pinned_word, 1, __ATOMIC_RELEASE);
    return NULL;
}

int main(void)
{
    int relaxed = rules_knob(KNOB);
    rules_start();
    CUstream s = NULL;
    CUdeviceptr dev = 0, word = 0;
    void *pinned = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&dev, 4096), CUDA_SUCCESS);
    EXPECT("cuMemsetD8", cuMemsetD8_v2(dev, 0x5a, 4096), CUDA_SUCCESS);
    EXPECT("cuMemHostAlloc", cuMemHostAlloc(&pinned, 4096, 3), CUDA_SUCCESS);
    memset(pinned, 0, 4096);
    pinned_word = (uint64_t *)pinned;
    EXPECT("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer_v2(&word, pinned, 0), CUDA_SUCCESS);
    unsigned char *page = (unsigned char *)calloc(1, 4096);

    /* Pinned memory: asynchronous, behind an unreleased wait. */
    EXPECT("cuStreamWaitValue64", cuStreamWaitValue64_v2(s, word, 1, 0), CUDA_SUCCESS);
    EXPECT("cuMemcpyAsync into pinned memory", cuMemcpyAsync(word + 1024, dev, 64, s), CUDA_SUCCESS);
    EXPECT("not done at the return", ((volatile unsigned char *)pinned)[1024], 0);

    if (!relaxed) {
        /* The wait is released by another thread, before or while the call waits. */
        pthread_t t;
        EXPECT("pthread_create", pthread_create(&t, NULL, release_main, NULL), 0);
        EXPECT("cuMemcpyAsync into pageable memory", cuMemcpyAsync((CUdeviceptr)(uintptr_t)page, dev, 4096, s),
               CUDA_SUCCESS);
        EXPECT("done at the return", page[0] == 0x5a && page[4095] == 0x5a, 1);
        EXPECT("the stream's earlier work too", ((volatile unsigned char *)pinned)[1024], 0x5a);
        pthread_join(t, NULL);
        memset(page, 0x33, 4096);
        EXPECT("cuMemcpyAsync from pageable memory", cuMemcpyAsync(dev, (CUdeviceptr)(uintptr_t)page, 4096, s),
               CUDA_SUCCESS);
        memset(page, 0x44, 4096); /* after the return: the copy has its bytes already */
    } else {
        EXPECT("cuMemcpyAsync into pageable memory", cuMemcpyAsync((CUdeviceptr)(uintptr_t)page, dev, 4096, s),
               CUDA_SUCCESS);
        EXPECT("not done at the return", ((volatile unsigned char *)page)[0], 0);
        release_main(NULL);
        EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
        EXPECT("done after the synchronize", page[0] == 0x5a && page[4095] == 0x5a, 1);
        memset(page, 0x33, 4096);
        EXPECT("cuMemcpyAsync from pageable memory", cuMemcpyAsync(dev, (CUdeviceptr)(uintptr_t)page, 4096, s),
               CUDA_SUCCESS);
    }
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    unsigned char back[2] = {0, 0};
    EXPECT("cuMemcpy", cuMemcpy((CUdeviceptr)(uintptr_t)back, dev + 4094, 2), CUDA_SUCCESS);
    EXPECT("the device has the bytes of the call", back[0] == 0x33 && back[1] == 0x33, 1);

    free(page);
    EXPECT("cuMemFreeHost", cuMemFreeHost(pinned), CUDA_SUCCESS);
    EXPECT("cuMemFree", cuMemFree_v2(dev), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("12, pageable copies are synchronous", KNOB);
}
