/*
 * tests/test_kernel_params.c - pins a kernel launch as the kernel declares
 * its parameters and block (docs/CUDA.md, "Kernels"): what reaches the
 * device, what is refused at the call, and what a launch leaves behind.
 *
 *   - an argument block shorter than the kernel's parameters is refused at
 *     the call with ACL_ERROR_RT_PARAM_INVALID and a message, where the
 *     backend knows them (the cuda backend); a block with tail padding
 *     runs; a kernel whose layout is not known takes any block (the host
 *     backend: every kernel);
 *   - the exact size of the kernel's parameters reaches the driver (the
 *     test double refuses any other, and counts what it was given);
 *   - parameters appended to an args handle go where the kernel takes
 *     them (a 16-byte-aligned one after a 4-byte one), and one of the
 *     wrong size, or one too many, is refused;
 *   - a kernel that takes fewer threads per block than the backend's
 *     block launches and runs;
 *   - a kernel with a launch timeout queued behind a kernel fault that
 *     loses the device: its record is freed by aclFinalize (the cuda-asan
 *     variant's leak check sees nothing left). Last: the device is lost.
 *
 * The kernels are tests/kernels/test_kernels.c's; on a GPU, which cannot
 * load them, the cases are skipped.
 */
#define _GNU_SOURCE

#include "check.h"
#include "fake_cuda_hooks.h"
#include "kernels/test_kernels.h"
#include "gate.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static aclrtStream s;
static aclrtBinHandle bin; /* NULL: the backend loads no host shared object (a GPU): the cases are skipped */
static bool on_cuda;

/* The test double's count of launches and the size of the last one's buffer (NULL: not on the double). */
static size_t (*fake_launch_bytes)(void);

static aclrtFuncHandle function(const char *name)
{
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, name, &f));
    return f;
}

static void *device_alloc(size_t size)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(p, size, 0, size));
    return p;
}

/* fill's out[0..n) after a launch of `blocks` blocks with value v through `f`. */
static void check_fill(aclrtFuncHandle f, uint32_t blocks, int32_t v)
{
    int32_t *dev = (int32_t *)device_alloc(blocks * sizeof(int32_t));
    struct fill_args a = {dev, v};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(f, blocks, s, NULL, &a, sizeof a, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
    int32_t host[8] = {0};
    CHECK_OK(aclrtMemcpy(host, sizeof host, dev, blocks * sizeof(int32_t), ACL_MEMCPY_DEVICE_TO_HOST));
    for (uint32_t i = 0; i < blocks; i++)
        CHECK_EQ(v + (int32_t)i, host[i]);
    CHECK_OK(aclrtFree(dev));
}

TEST(a_block_shorter_than_the_kernels_parameters_is_refused_at_the_call)
{
    if (bin == NULL)
        return;
    aclrtFuncHandle fill = function("fill"), any = function("no_layout");
    int32_t *dev = (int32_t *)device_alloc(64);
    struct fill_args a = {dev, 5};
    if (on_cuda) { /* the kernel takes 12 bytes: 8 are refused, nothing is queued */
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithHostArgs(fill, 1, s, NULL, &a, 8, NULL, 0));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "shorter than the 12 bytes of the kernel's 2 parameters");
        void *dev_args = device_alloc(8);
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernel(fill, 1, dev_args, 8, s));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "shorter than");
        CHECK_OK(aclrtFree(dev_args));
        aclrtArgsHandle h = NULL;
        aclrtParamHandle p;
        CHECK_OK(aclrtKernelArgsInit(fill, &h));
        CHECK_OK(aclrtKernelArgsAppend(h, &a.out, sizeof a.out, &p));
        CHECK_OK(aclrtKernelArgsFinalize(h)); /* one parameter of two */
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchKernelWithConfig(fill, 1, s, NULL, h, NULL));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "argument block of 8 bytes");
        CHECK_OK(aclrtSynchronizeStream(s));
    }
    /* A kernel whose layout is not known takes any block, on every backend. */
    unsigned char one = 1;
    CHECK_OK(aclrtLaunchKernelWithHostArgs(any, 1, s, NULL, &one, 1, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtFree(dev));
}

TEST(the_kernels_exact_size_reaches_the_driver)
{
    if (bin == NULL)
        return;
    aclrtFuncHandle fill = function("fill");
    /* 16 bytes with the struct's tail padding: the kernel's 12 are passed (the double refuses 16). */
    check_fill(fill, 4, 40);
    if (fake_launch_bytes != NULL)
        CHECK_EQ((size_t)12, fake_launch_bytes());
    /* Longer still (placeholder data behind the parameters, say): still 12. */
    int32_t *dev = (int32_t *)device_alloc(16);
    unsigned char block[64] = {0};
    memcpy(block, &dev, sizeof dev);
    int32_t v = 7;
    memcpy(block + 8, &v, sizeof v);
    CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 1, s, NULL, block, sizeof block, NULL, 0));
    CHECK_OK(aclrtSynchronizeStream(s));
    if (fake_launch_bytes != NULL)
        CHECK_EQ((size_t)12, fake_launch_bytes());
    int32_t back = 0;
    CHECK_OK(aclrtMemcpy(&back, sizeof back, dev, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(7, back);
    CHECK_OK(aclrtFree(dev));
}

TEST(appended_parameters_go_where_the_kernel_takes_them)
{
    if (bin == NULL || !on_cuda) /* the host backend lays them out at their natural alignment, at most 8 */
        return;
    aclrtFuncHandle wide = function("wide");
    uint64_t *dev = (uint64_t *)device_alloc(4 * sizeof(uint64_t));
    uint64_t x = 0x1111222233334444ull, v[2] = {0x5555666677778888ull, 0x9999aaaabbbbccccull};
    uint32_t a = 0xdddd;
    aclrtArgsHandle h = NULL;
    aclrtParamHandle p;
    CHECK_OK(aclrtKernelArgsInit(wide, &h));
    CHECK_OK(aclrtKernelArgsAppend(h, &dev, sizeof dev, &p));
    CHECK_OK(aclrtKernelArgsAppend(h, &x, sizeof x, &p));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsAppend(h, &x, sizeof x, &p)); /* 8 bytes for 4 */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "parameter 3 of the kernel is 4 bytes, not 8");
    CHECK_OK(aclrtKernelArgsAppend(h, &a, sizeof a, &p));
    CHECK_OK(aclrtKernelArgsAppend(h, v, sizeof v, &p)); /* at 32, not at 24 */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtKernelArgsAppend(h, &a, sizeof a, &p));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "takes 4 parameters");
    CHECK_OK(aclrtKernelArgsFinalize(h));
    CHECK_OK(aclrtLaunchKernelWithConfig(wide, 1, s, NULL, h, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    if (fake_launch_bytes != NULL)
        CHECK_EQ((size_t)48, fake_launch_bytes());
    uint64_t back[4] = {0};
    CHECK_OK(aclrtMemcpy(back, sizeof back, dev, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(x, back[0]);
    CHECK_EQ((uint64_t)a, back[1]);
    CHECK_EQ(v[0], back[2]);
    CHECK_EQ(v[1], back[3]);
    CHECK_OK(aclrtFree(dev));
}

TEST(a_kernel_that_takes_fewer_threads_per_block_launches)
{
    if (bin == NULL)
        return;
    /* fill_narrow takes at most 64 threads per block (the double refuses more, as a GPU does). */
    check_fill(function("fill_narrow"), 8, 100);
}

/*
 * Last: a kernel fault that loses the device, with a timed kernel queued
 * behind it whose host functions never run. aclFinalize frees its record.
 */
TEST(a_timed_kernel_behind_a_fault_that_loses_the_device_leaves_nothing)
{
    if (bin == NULL || !on_cuda)
        return;
    atomic_int open = 0, ran = 0;
    struct gate_args g = {&open, &ran};
    struct fail_args f = {0, 507899};
    struct busy_args b = {1};
    aclrtLaunchKernelAttr attr = {.id = ACL_RT_LAUNCH_KERNEL_ATTR_TIMEOUT};
    attr.value.timeout = 60;
    aclrtLaunchKernelCfg cfg = {&attr, 1};
    CHECK_OK(aclrtLaunchKernelWithHostArgs(function("wait_gate"), 1, s, NULL, &g, sizeof g, NULL, 0));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(function("fail_block"), 1, s, NULL, &f, sizeof f, NULL, 0));
    for (int i = 0; i < 4; i++)
        CHECK_OK(aclrtLaunchKernelWithHostArgs(function("busy"), 1, s, &cfg, &b, sizeof b, NULL, 0));
    atomic_store(&open, 1);
    CHECK(aclrtSynchronizeStream(s) != ACL_SUCCESS); /* the fault */
    CHECK_EQ(1, atomic_load(&ran));
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    on_cuda = strcmp(aclrtxGetBackendName(), "cuda") == 0;
    if (aclrtBinaryLoadFromFile(KERNELS, NULL, &bin) != ACL_SUCCESS) {
        if (!on_cuda) {
            fprintf(stderr, "FAIL: cannot load %s: %s\n", KERNELS, aclGetRecentErrMsg());
            return 1;
        }
        bin = NULL;
        printf("kernel_params: the backend loads no host shared object (a GPU): skipped\n");
    }
    *(void **)&fake_launch_bytes = fake_cuda_symbol("fakecuda_launch_bytes");
    RUN(a_block_shorter_than_the_kernels_parameters_is_refused_at_the_call);
    RUN(the_kernels_exact_size_reaches_the_driver);
    RUN(appended_parameters_go_where_the_kernel_takes_them);
    RUN(a_kernel_that_takes_fewer_threads_per_block_launches);
    RUN(a_timed_kernel_behind_a_fault_that_loses_the_device_leaves_nothing);
    if (bin != NULL)
        aclrtBinaryUnLoad(bin);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("kernel_params");
}
