/*
 * tests/cuda_fake/rule_fork.c - rule 5 of the test double: a child forked
 * after cuInit cannot use the driver. On an H100 the child's cuInit returned
 * CUDA_ERROR_NOT_INITIALIZED, and so does every call (CUDA does not support
 * the driver across fork). Planted: cuInit, a context and a stream in the
 * parent, then fork; the child calls cuInit, cuDeviceGetCount,
 * cuCtxSetCurrent, cuMemAlloc and cuStreamSynchronize on the inherited
 * stream: strict, each returns CUDA_ERROR_NOT_INITIALIZED. The parent's
 * driver goes on working. A child forked before cuInit (rule 1's program)
 * initialises its own.
 * Knob: ACLRT_FAKE_CUDA_FORK_OK=1 (the child's driver works).
 */
#define _GNU_SOURCE
#include "rules.h"

#include <sys/wait.h>
#include <unistd.h>

#define KNOB "ACLRT_FAKE_CUDA_FORK_OK"

static int child(CUcontext ctx, CUstream s, CUresult want)
{
    int count = 0;
    CUdeviceptr d = 0;
    EXPECT("child: cuInit", cuInit(0), want);
    EXPECT("child: cuDeviceGetCount", cuDeviceGetCount(&count), want);
    EXPECT("child: cuCtxSetCurrent", cuCtxSetCurrent(ctx), want);
    EXPECT("child: cuMemAlloc", cuMemAlloc_v2(&d, 64), want);
    EXPECT("child: cuStreamSynchronize", cuStreamSynchronize(s), want);
    fflush(stdout);
    return rules_failures != 0;
}

int main(void)
{
    int relaxed = rules_knob(KNOB);
    CUcontext ctx = rules_start();
    CUstream s = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(child(ctx, s, relaxed ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED));
    int status = 0;
    EXPECT("waitpid", waitpid(pid, &status, 0), pid);
    EXPECT("the child's checks", WIFEXITED(status) ? WEXITSTATUS(status) : 100, 0);
    CUdeviceptr d = 0;
    EXPECT("parent: cuMemAlloc after the fork", cuMemAlloc_v2(&d, 64), CUDA_SUCCESS);
    EXPECT("parent: cuMemFree", cuMemFree_v2(d), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("5, no driver in a child forked after cuInit", KNOB);
}
