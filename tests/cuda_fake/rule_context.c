/*
 * tests/cuda_fake/rule_context.c - the current context is per thread: a
 * context made current on one thread is not current on another, and a call
 * that works in a context, on a thread that has none current, returns
 * CUDA_ERROR_INVALID_CONTEXT (cuda.h), where the device queries work. No
 * knob: the driver has no other mode.
 */
#define _GNU_SOURCE
#include "rules.h"

#include <pthread.h>

#define CUDA_ERROR_INVALID_CONTEXT 201u

CUresult cuCtxGetCurrent(CUcontext *pctx);

static void *no_context(void *arg)
{
    (void)arg;
    CUcontext cur = (CUcontext)(uintptr_t)1;
    EXPECT("cuCtxGetCurrent on a new thread", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT("no current context there", cur == NULL, 1);
    int count = 0;
    EXPECT("cuDeviceGetCount (no context needed)", cuDeviceGetCount(&count), CUDA_SUCCESS);
    CUdeviceptr d = 0;
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&d, 64), CUDA_ERROR_INVALID_CONTEXT);
    CUstream s = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_ERROR_INVALID_CONTEXT);
    unsigned char a[8] = {0}, b[8] = {1};
    EXPECT("cuMemcpy", cuMemcpy((CUdeviceptr)(uintptr_t)a, (CUdeviceptr)(uintptr_t)b, 8), CUDA_ERROR_INVALID_CONTEXT);
    return NULL;
}

int main(void)
{
    CUcontext ctx = rules_start();
    CUcontext cur = NULL;
    EXPECT("cuCtxGetCurrent", cuCtxGetCurrent(&cur), CUDA_SUCCESS);
    EXPECT("current on this thread", cur == ctx, 1);
    pthread_t t;
    EXPECT("pthread_create", pthread_create(&t, NULL, no_context, NULL), 0);
    pthread_join(t, NULL);
    EXPECT("cuCtxSetCurrent(NULL)", cuCtxSetCurrent(NULL), CUDA_SUCCESS);
    CUdeviceptr d = 0;
    EXPECT("cuMemAlloc after the context was made not current", cuMemAlloc_v2(&d, 64), CUDA_ERROR_INVALID_CONTEXT);
    EXPECT("cuCtxSetCurrent", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
    EXPECT("cuMemFree", cuMemFree_v2(d), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("9, the current context is per thread", "ACLRT_FAKE_CUDA_NONE");
}
