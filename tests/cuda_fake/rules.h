/*
 * tests/cuda_fake/rules.h - what the planted-misuse programs (rule_*.c) share:
 * the driver calls of the test double they make, declared as its
 * fake_cuda.c defines them (they link libcuda_fake.so), and a check macro.
 *
 * Each program plants one misuse the CUDA driver refuses (or the GPU punishes)
 * and checks that the double, strict by default, catches it as the driver
 * does; with the rule's relaxing knob in the environment (mk/cuda.mk runs
 * each both ways) it checks that the double lets it pass. Exit status 0: as
 * expected.
 */
#ifndef ACLRT_TESTS_CUDA_FAKE_RULES_H
#define ACLRT_TESTS_CUDA_FAKE_RULES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int CUresult;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUmod_st *CUmodule;
typedef void (*CUhostFn)(void *);

CUresult cuInit(unsigned int flags);
CUresult cuDeviceGetCount(int *count);
CUresult cuDeviceGetAttribute(int *value, unsigned attribute, int device);
CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, int device);
CUresult cuDevicePrimaryCtxRelease_v2(int device);
CUresult cuCtxSetCurrent(CUcontext ctx);
CUresult cuStreamCreateWithPriority(CUstream *stream, unsigned int flags, int priority);
CUresult cuStreamDestroy_v2(CUstream s);
CUresult cuStreamSynchronize(CUstream s);
CUresult cuStreamWriteValue64_v2(CUstream s, CUdeviceptr addr, uint64_t value, unsigned int flags);
CUresult cuStreamWaitValue64_v2(CUstream s, CUdeviceptr addr, uint64_t value, unsigned int flags);
CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *user);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes);
CUresult cuMemFree_v2(CUdeviceptr dptr);
CUresult cuMemHostAlloc(void **pp, size_t bytes, unsigned int flags);
CUresult cuMemFreeHost(void *p);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *dptr, void *p, unsigned int flags);
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes);
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s);
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t n);
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, CUstream s);
CUresult cuModuleLoad(CUmodule *module, const char *fname);
CUresult cuModuleUnload(CUmodule m);
CUresult cuModuleGetFunction(void **hfunc, CUmodule m, const char *name);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule m, const char *name);
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, CUstream s, void **params, void **extra);

#define CUDA_SUCCESS 0u
#define CUDA_ERROR_INVALID_VALUE 1u
#define CUDA_ERROR_NOT_INITIALIZED 3u
#define CUDA_ERROR_LAUNCH_FAILED 719u
#define CUDA_ERROR_NOT_PERMITTED 800u

static int rules_failures;

/* `got` must be `want` (a CUresult, or any integer the program compares). */
#define EXPECT(what, got, want)                                                                                        \
    do {                                                                                                               \
        long long got_ = (long long)(got), want_ = (long long)(want);                                                  \
        if (got_ != want_) {                                                                                           \
            printf("FAIL %s:%d: %s: %lld, want %lld\n", __FILE__, __LINE__, what, got_, want_);                        \
            rules_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)

/* Is the rule's relaxing knob set (NAME=1 in the environment)? */
static int rules_knob(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && atoi(v) != 0;
}

/* cuInit, device 0's primary context made current. */
static CUcontext rules_start(void)
{
    CUcontext ctx = NULL;
    EXPECT("cuInit", cuInit(0), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS);
    EXPECT("cuCtxSetCurrent", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
    return ctx;
}

/* The end of a program: its verdict printed, the exit status. */
static int rules_done(const char *rule, const char *knob)
{
    if (rules_failures == 0)
        printf("fake cuda rule %s (%s): ok\n", rule, rules_knob(knob) ? "relaxed" : "strict");
    return rules_failures != 0;
}

#endif
