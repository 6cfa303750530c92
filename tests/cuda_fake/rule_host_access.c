/*
 * tests/cuda_fake/rule_host_access.c - rule 1 of the test double: device
 * memory is not the host's. On a GPU without HMM (an x86 H100: "Addressing
 * Mode: None") a host load or store at a cuMemAlloc address is a SIGSEGV;
 * the attributes DIRECT_MANAGED_MEM_ACCESS_FROM_HOST (101),
 * PAGEABLE_MEMORY_ACCESS (88) and ..._USES_HOST_PAGE_TABLES (100) are 0.
 * The driver's own operations reach the memory: sets, copies, a kernel given
 * the address among its parameters (the double's stand-in kernels run on the
 * host: it translates the parameter). A copy past the allocation's end, or to
 * freed memory, is CUDA_ERROR_INVALID_VALUE.
 *
 * The store is planted in a child forked before cuInit (a child of a process
 * that initialised the driver cannot use it: rule 5). Knob:
 * ACLRT_FAKE_CUDA_HOST_ACCESS=1 (the store works, the attributes are 1).
 * argv[1]: the stand-in module with the kernel `fill` (tests/kernels/).
 */
#define _GNU_SOURCE
#include "rules.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define KNOB "ACLRT_FAKE_CUDA_HOST_ACCESS"

/* The child: allocate, then store through the device address from the host. */
static int plant_store(void)
{
    rules_start();
    CUdeviceptr d = 0;
    if (cuMemAlloc_v2(&d, 64) != CUDA_SUCCESS)
        return 3;
    volatile int *p = (volatile int *)(uintptr_t)d;
    *p = 42; /* the misuse */
    return *p == 42 ? 0 : 4;
}

int main(int argc, char **argv)
{
    int relaxed = rules_knob(KNOB);
    if (argc != 2) {
        fprintf(stderr, "usage: %s libtest_kernels.so\n", argv[0]);
        return 2;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(plant_store());
    int status = 0;
    EXPECT("waitpid", waitpid(pid, &status, 0), pid);
    if (relaxed) {
        EXPECT("host store into device memory (relaxed: works)", WIFEXITED(status) ? WEXITSTATUS(status) : 100, 0);
    } else {
        EXPECT("host store into device memory (strict: SIGSEGV)", WIFSIGNALED(status) ? WTERMSIG(status) : 0,
               SIGSEGV);
    }

    rules_start();
    for (unsigned attr = 88; attr <= 101; attr += (attr == 88 ? 12 : 1)) {
        int v = -1;
        EXPECT("cuDeviceGetAttribute", cuDeviceGetAttribute(&v, attr, 0), CUDA_SUCCESS);
        EXPECT(attr == 88 ? "PAGEABLE_MEMORY_ACCESS" : attr == 100 ? "..._USES_HOST_PAGE_TABLES"
                                                                   : "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST",
               v, relaxed);
    }

    /* The driver's operations reach device memory: a set, copies both ways and within. */
    CUdeviceptr a = 0, b = 0;
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&a, 256), CUDA_SUCCESS);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&b, 256), CUDA_SUCCESS);
    EXPECT("cuMemsetD8", cuMemsetD8_v2(a, 0x5a, 256), CUDA_SUCCESS);
    EXPECT("cuMemcpy device to device", cuMemcpy(b, a, 256), CUDA_SUCCESS);
    unsigned char host[256] = {0};
    EXPECT("cuMemcpy device to host", cuMemcpy((CUdeviceptr)(uintptr_t)host, b + 128, 128), CUDA_SUCCESS);
    EXPECT("the bytes", host[0] == 0x5a && host[127] == 0x5a, 1);
    CUstream s = NULL;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);
    memset(host, 7, sizeof host);
    EXPECT("cuMemcpyAsync host to device", cuMemcpyAsync(a, (CUdeviceptr)(uintptr_t)host, 256, s), CUDA_SUCCESS);
    EXPECT("cuMemsetD8Async", cuMemsetD8Async(a + 8, 9, 1, s), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    unsigned char back[2] = {0};
    EXPECT("cuMemcpy", cuMemcpy((CUdeviceptr)(uintptr_t)back, a + 7, 2), CUDA_SUCCESS);
    EXPECT("the bytes", back[0] == 7 && back[1] == 9, 1);

    /* A stand-in kernel given the device address as a parameter stores through it. */
    CUmodule m = NULL;
    void *fill = NULL;
    EXPECT("cuModuleLoad", cuModuleLoad(&m, argv[1]), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction", cuModuleGetFunction(&fill, m, "fill"), CUDA_SUCCESS);
    struct {
        int32_t *out;
        int32_t value;
    } args = {(int32_t *)(uintptr_t)b, 100};
    size_t size = sizeof args.out + sizeof args.value; /* the kernel's parameters, exactly: no tail padding */
    void *extra[] = {(void *)1, &args, (void *)2, &size, (void *)0};
    EXPECT("cuLaunchKernel", cuLaunchKernel(fill, 4, 1, 1, 1, 1, 1, 0, s, NULL, extra), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    int32_t out[4] = {0};
    EXPECT("cuMemcpy", cuMemcpy((CUdeviceptr)(uintptr_t)out, b, sizeof out), CUDA_SUCCESS);
    EXPECT("the kernel's stores", out[0] == 100 && out[3] == 103, 1);

    /* A module's global is device memory too: copies reach it, the host does not. */
    CUdeviceptr g = 0;
    size_t gsize = 0;
    EXPECT("cuModuleGetGlobal", cuModuleGetGlobal_v2(&g, &gsize, m, "test_global"), CUDA_SUCCESS);
    int32_t gv[4] = {0};
    EXPECT("cuMemcpy from a global", cuMemcpy((CUdeviceptr)(uintptr_t)gv, g, sizeof gv), CUDA_SUCCESS);
    EXPECT("the global", gv[0] == 7 && gv[3] == 10, 1);
    EXPECT("cuModuleUnload", cuModuleUnload(m), CUDA_SUCCESS);

    if (!relaxed) {
        /* Bounds: past an allocation's end, freed memory. */
        EXPECT("cuMemcpy past the end", cuMemcpy((CUdeviceptr)(uintptr_t)host, a + 200, 100),
               CUDA_ERROR_INVALID_VALUE);
        EXPECT("cuMemFree", cuMemFree_v2(b), CUDA_SUCCESS);
        EXPECT("cuMemsetD8 on freed memory", cuMemsetD8_v2(b, 0, 1), CUDA_ERROR_INVALID_VALUE);
        EXPECT("cuMemFree twice", cuMemFree_v2(b), CUDA_ERROR_INVALID_VALUE);
    } else {
        EXPECT("cuMemFree", cuMemFree_v2(b), CUDA_SUCCESS);
    }
    EXPECT("cuMemFree", cuMemFree_v2(a), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("1, device memory not the host's", KNOB);
}
