/*
 * tests/impl_cuda.c - the implementation unit of the cuda configuration:
 * the same test files as tests/impl.c, on the cuda backend. The Makefile
 * defines ACLRT_TEST_CUDA_LIBRARY and ACLRT_TEST_NCCL_LIBRARY, the test
 * doubles of the driver and of NCCL it built (tests/cuda_fake/,
 * tests/nccl_fake/); without them the backend opens libcuda.so.1 and
 * libnccl.so.2, and the suite runs on the machine's GPUs (make test
 * BACKEND=cuda).
 *
 * The environment is set before main (a constructor of this test harness,
 * not of the library), so the runtime starts on the cuda backend whichever
 * call starts it.
 */
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

__attribute__((constructor)) static void cuda_configure(void)
{
    setenv("ACLRT_BACKEND", "cuda", 1);
#ifdef ACLRT_TEST_CUDA_LIBRARY
    setenv("ACLRT_CUDA_LIBRARY", ACLRT_TEST_CUDA_LIBRARY, 1);
#ifdef ACLRT_TEST_NCCL_LIBRARY
    setenv("ACLRT_NCCL_LIBRARY", ACLRT_TEST_NCCL_LIBRARY, 1);
#endif
#else
    /*
     * One GPU, unless the caller chose: the suite checks the default device
     * count (1, as on the host backend), and a case that configures more
     * devices (ACLRT_DEVICES) runs them on that GPU in turn.
     */
    setenv("CUDA_VISIBLE_DEVICES", "0", 0);
#endif
}
