/*
 * tests/cuda_fake/rule_kernel_params.c - rule 10 of the test double: a
 * launch takes exactly the kernel's parameters, in a block of at most its
 * threads. The driver refuses a CU_LAUNCH_PARAM_BUFFER_SIZE other than the
 * kernel's parameter size (a C struct's tail padding included) with
 * CUDA_ERROR_INVALID_VALUE, and a block of more threads than the kernel
 * takes with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES (cuda.h: "too many threads
 * for the kernel's register count").
 * Planted, against stand-in kernels that declare their parameters and
 * limit (tests/kernels/test_kernels.c): fill (an int32_t * and an int32_t:
 * 12 bytes) launched with its 16-byte struct, and with 8 bytes;
 * fill_narrow (at most 64 threads) launched with 128 threads. Strict: each
 * is refused at the call and nothing runs; the exact size and 64 threads
 * run. cuFuncGetParamInfo and cuFuncGetAttribute say what the stand-ins
 * declare (a kernel that declares nothing: CUDA_ERROR_NOT_SUPPORTED, not
 * known). Knob: ACLRT_FAKE_CUDA_ANY_LAUNCH=1 (the misuses run).
 * argv[1]: the stand-in module (tests/kernels/).
 */
#define _GNU_SOURCE
#include "rules.h"
#include "../kernels/test_kernels.h"

#define KNOB "ACLRT_FAKE_CUDA_ANY_LAUNCH"
#define CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES 701u
#define CUDA_ERROR_NOT_SUPPORTED 801u
#define CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK 0u

CUresult cuFuncGetParamInfo(void *func, size_t index, size_t *offset, size_t *size);
CUresult cuFuncGetAttribute(int *value, unsigned attribute, void *func);

/* Launch f (grid 1) with `threads` threads and the first `size` bytes of args on s; the call's result. */
static CUresult launch(void *f, unsigned threads, CUstream s, struct fill_args *args, size_t size)
{
    void *extra[] = {(void *)1, args, (void *)2, &size, (void *)0};
    return cuLaunchKernel(f, 1, 1, 1, threads, 1, 1, 0, s, NULL, extra);
}

/* What out[0] holds after the stream's work. */
static int32_t out0(CUstream s, CUdeviceptr out)
{
    int32_t v = -1;
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);
    EXPECT("cuMemcpy", cuMemcpy((CUdeviceptr)(uintptr_t)&v, out, sizeof v), CUDA_SUCCESS);
    EXPECT("cuMemsetD8", cuMemsetD8_v2(out, 0, sizeof v), CUDA_SUCCESS);
    return v;
}

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
    void *fill = NULL, *narrow = NULL, *undeclared = NULL;
    CUdeviceptr out = 0;
    EXPECT("cuStreamCreate", cuStreamCreateWithPriority(&s, 1, 0), CUDA_SUCCESS);
    EXPECT("cuMemAlloc", cuMemAlloc_v2(&out, 64), CUDA_SUCCESS);
    EXPECT("cuMemsetD8", cuMemsetD8_v2(out, 0, 64), CUDA_SUCCESS);
    EXPECT("cuModuleLoad", cuModuleLoad(&m, argv[1]), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction fill", cuModuleGetFunction(&fill, m, "fill"), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction fill_narrow", cuModuleGetFunction(&narrow, m, "fill_narrow"), CUDA_SUCCESS);
    EXPECT("cuModuleGetFunction no_layout", cuModuleGetFunction(&undeclared, m, "no_layout"), CUDA_SUCCESS);
    void *again = NULL;
    EXPECT("cuModuleGetFunction fill again", cuModuleGetFunction(&again, m, "fill"), CUDA_SUCCESS);
    EXPECT("the same CUfunction for the same name", again == fill, 1);

    /* What the stand-ins declare. */
    size_t offset = 0, size = 0;
    EXPECT("cuFuncGetParamInfo 0", cuFuncGetParamInfo(fill, 0, &offset, &size), CUDA_SUCCESS);
    EXPECT("parameter 0 offset", offset, 0);
    EXPECT("parameter 0 size", size, 8);
    EXPECT("cuFuncGetParamInfo 1", cuFuncGetParamInfo(fill, 1, &offset, &size), CUDA_SUCCESS);
    EXPECT("parameter 1 offset", offset, 8);
    EXPECT("parameter 1 size", size, 4);
    EXPECT("cuFuncGetParamInfo past the last", cuFuncGetParamInfo(fill, 2, &offset, &size), CUDA_ERROR_INVALID_VALUE);
    EXPECT("cuFuncGetParamInfo undeclared", cuFuncGetParamInfo(undeclared, 0, &offset, &size),
           CUDA_ERROR_NOT_SUPPORTED);
    int most = 0;
    EXPECT("cuFuncGetAttribute", cuFuncGetAttribute(&most, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, narrow),
           CUDA_SUCCESS);
    EXPECT("fill_narrow's most threads", most, 64);
    EXPECT("cuFuncGetAttribute", cuFuncGetAttribute(&most, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fill),
           CUDA_SUCCESS);
    EXPECT("fill's most threads", most, 1024);

    struct fill_args args = {(int32_t *)(uintptr_t)out, 42};
    /* The exact size and a block the kernel takes: it runs. */
    EXPECT("cuLaunchKernel, 12 bytes", launch(fill, 256, s, &args, 12), CUDA_SUCCESS);
    EXPECT("the kernel ran", out0(s, out), 42);
    EXPECT("cuLaunchKernel fill_narrow, 64 threads", launch(narrow, 64, s, &args, 12), CUDA_SUCCESS);
    EXPECT("the kernel ran", out0(s, out), 42);

    /* The misuses: refused strict (nothing runs), run relaxed. */
    CUresult bad_size = relaxed ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    EXPECT("cuLaunchKernel with the struct's 16 bytes", launch(fill, 256, s, &args, sizeof args), bad_size);
    EXPECT("what ran", out0(s, out), relaxed ? 42 : 0);
    if (!relaxed) { /* (relaxed, the kernel would read past the 8 bytes it was given) */
        EXPECT("cuLaunchKernel with 8 bytes", launch(fill, 256, s, &args, 8), CUDA_ERROR_INVALID_VALUE);
        EXPECT("what ran", out0(s, out), 0);
    }
    EXPECT("cuLaunchKernel fill_narrow, 128 threads", launch(narrow, 128, s, &args, 12),
           relaxed ? CUDA_SUCCESS : CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    EXPECT("what ran", out0(s, out), relaxed ? 42 : 0);
    /* A kernel that declares nothing takes any buffer. */
    EXPECT("cuLaunchKernel no_layout, 16 bytes", launch(undeclared, 256, s, &args, sizeof args), CUDA_SUCCESS);
    EXPECT("cuStreamSynchronize", cuStreamSynchronize(s), CUDA_SUCCESS);

    EXPECT("cuMemFree", cuMemFree_v2(out), CUDA_SUCCESS);
    EXPECT("cuModuleUnload", cuModuleUnload(m), CUDA_SUCCESS);
    EXPECT("cuStreamDestroy", cuStreamDestroy_v2(s), CUDA_SUCCESS);
    EXPECT("cuDevicePrimaryCtxRelease", cuDevicePrimaryCtxRelease_v2(0), CUDA_SUCCESS);
    return rules_done("10, a launch takes the kernel's parameters and block", KNOB);
}
