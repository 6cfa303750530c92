/*
 * tests/cuda_fake/rule_host_fns.c - rule 2 of the test double: host
 * functions (cuLaunchHostFunc) of every stream may run on one driver thread,
 * one at a time. Planted: host function A (stream 1) waits up to 2 s for a
 * flag that host function B (stream 2, enqueued after A started) sets. Strict:
 * B cannot run while A does, A times out (on a GPU, without the bound, a
 * deadlock). Meanwhile other work of other streams runs: a copy and a value
 * write of stream 3 complete while A waits.
 * Knob: ACLRT_FAKE_CUDA_PARALLEL_HOST_FUNCS=1 (B runs beside A: A sees the flag).
 */
#define _GNU_SOURCE
#include "rules.h"

#include <stdatomic.h>
#include <time.h>

#define KNOB "ACLRT_FAKE_CUDA_PARALLEL_HOST_FUNCS"

static atomic_int a_started, a_done, a_saw_flag, flag, others_done_while_a_waited;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void nap_ms(int ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

static void host_fn_a(void *user)
{
    (void)user;
    atomic_store(&a_started, 1);
    double until = now_s() + 2.0;
    while (atomic_load(&flag) == 0 && now_s() < until)
        nap_ms(1);
    atomic_store(&a_saw_flag, atomic_load(&flag));
    atomic_store(&a_done, 1);
}

static void host_fn_b(void *user)
{
    (void)user;
    atomic_store(&flag, 1);
}

int main(void)
{
    int relaxed = rules_knob(KNOB);
    rules_start();
    CUstream s1 = NULL, s2 = NULL, s3 = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s1, 1, 0), CUDA_SUCCESS);
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s2, 1, 0), CUDA_SUCCESS);
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s3, 1, 0), CUDA_SUCCESS);
    void *pinned = NULL;
    CUdeviceptr word = 0, dev = 0;
    EXPECT("cuMemHostAlloc", cuMemHostAlloc(&pinned, 64, 3), CUDA_SUCCESS);
    EXPECT("cuMemHostGetDevicePointer", cuMemHostGetDevicePointer_v2(&word, pinned, 0), CUDA_SUCCESS);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&dev, 64), CUDA_SUCCESS);
    memset(pinned, 0, 64);

    EXPECT("cuLaunchHostFunc A", cuLaunchHostFunc(s1, host_fn_a, NULL), CUDA_SUCCESS);
    while (atomic_load(&a_started) == 0)
        nap_ms(1);
    EXPECT("cuLaunchHostFunc B", cuLaunchHostFunc(s2, host_fn_b, NULL), CUDA_SUCCESS);

    /* Stream 3's copies and value writes are not host functions: they run while A holds the lock. */
    char host[64];
    memset(host, 3, sizeof host);
    EXPECT("cuMemcpyAsync", cuMemcpyAsync(dev, (CUdeviceptr)(uintptr_t)host, 64, s3), CUDA_SUCCESS);
    EXPECT("cuStreamWriteValue64", cuStreamWriteValue64_v2(s3, word, 77, 0), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize 3", cuStreamSynchronize(s3), CUDA_SUCCESS);
    atomic_store(&others_done_while_a_waited, atomic_load(&a_done) == 0);
    EXPECT("stream 3's value write", *(volatile uint64_t *)pinned, 77);

    EXPECT("cuStreamSynchronize 1", cuStreamSynchronize(s1), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize 2", cuStreamSynchronize(s2), CUDA_SUCCESS);
    EXPECT("B's flag, as A saw it (strict: B waits for A)", atomic_load(&a_saw_flag), relaxed);
    if (!relaxed)
        EXPECT("stream 3's work ran while A waited", atomic_load(&others_done_while_a_waited), 1);
    EXPECT("B ran in the end", atomic_load(&flag), 1);

    EXPECT("cuMemFree", cuMemFree_v2(dev), CUDA_SUCCESS);
    EXPECT("cuMemFreeHost", cuMemFreeHost(pinned), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s1), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s2), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s3), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("2, host functions one at a time", KNOB);
}
