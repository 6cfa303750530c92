/*
 * tests/kernels/test_kernels.c - kernels for tests/test_kernel.c, built by
 * the Makefile as a shared object (build/kernels/libtest_kernels.so) that
 * the tests load with aclrtBinaryLoadFromFile / aclrtBinaryLoadFromData.
 *
 * Each kernel has the host-kernel signature and reads its parameters as a
 * C struct, which is the layout aclrtKernelArgsAppend builds (each
 * parameter at its natural alignment, up to 8 bytes).
 *
 * For the cuda backend's test double, which runs them as stand-ins for GPU
 * kernels, each declares its parameters as a GPU kernel's are laid out
 * (PARAMS: each member's offset and size; the buffer the kernel takes ends
 * with its last parameter, without the struct's tail padding), and may
 * declare its most threads per block (MAX_THREADS); fake_cuda.c's head
 * comment, rule 10.
 */
#define _GNU_SOURCE
#include "acl/acl.h"
#include "test_kernels.h"

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sched.h>
#include <time.h>

#define EXPORTED __attribute__((visibility("default"), used))
/* PARAMS(kernel, n, PARAM(struct, member), ...): fakecuda_params_<kernel> = {n, offset, size, ...}. */
#define PARAMS(kernel, ...) EXPORTED const uint32_t fakecuda_params_##kernel[] = {__VA_ARGS__}
#define PARAM(type, member) (uint32_t)offsetof(type, member), (uint32_t)sizeof(((type *)0)->member)
#define MAX_THREADS(kernel, n) EXPORTED const uint32_t fakecuda_max_threads_##kernel = (n)

PARAMS(fill, 2, PARAM(struct fill_args, out), PARAM(struct fill_args, value));

aclError fill(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)numBlocks;
    const struct fill_args *a = (const struct fill_args *)args;
    a->out[blockIdx] = a->value + (int32_t)blockIdx;
    return ACL_SUCCESS;
}

PARAMS(count_blocks, 1, PARAM(struct blocks_args, seen));

aclError count_blocks(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    ((const struct blocks_args *)args)->seen[blockIdx] = numBlocks;
    return ACL_SUCCESS;
}

PARAMS(mixed, 6, PARAM(struct mixed_args, out), PARAM(struct mixed_args, c), PARAM(struct mixed_args, h),
       PARAM(struct mixed_args, i), PARAM(struct mixed_args, l), PARAM(struct mixed_args, tail));

aclError mixed(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    const struct mixed_args *a = (const struct mixed_args *)args;
    a->out[0] = a->c;
    a->out[1] = a->h;
    a->out[2] = a->i;
    a->out[3] = a->l;
    a->out[4] = a->tail;
    return ACL_SUCCESS;
}

PARAMS(sum, 3, PARAM(struct sum_args, out), PARAM(struct sum_args, data), PARAM(struct sum_args, n));

aclError sum(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    const struct sum_args *a = (const struct sum_args *)args;
    int64_t s = 0;
    for (uint32_t k = 0; a->data != NULL && k < a->n; k++)
        s += a->data[k];
    *a->out = a->data != NULL ? s : -1;
    return ACL_SUCCESS;
}

PARAMS(fail_block, 2, PARAM(struct fail_args, fail_at), PARAM(struct fail_args, code));

aclError fail_block(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)numBlocks;
    const struct fail_args *a = (const struct fail_args *)args;
    return blockIdx == a->fail_at ? a->code : ACL_SUCCESS;
}

PARAMS(wait_gate, 2, PARAM(struct gate_args, gate), PARAM(struct gate_args, ran));

aclError wait_gate(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    const struct gate_args *a = (const struct gate_args *)args;
    while (atomic_load(a->gate) == 0)
        sched_yield();
    atomic_fetch_add(a->ran, 1);
    return ACL_SUCCESS;
}

PARAMS(busy, 1, PARAM(struct busy_args, ms));

aclError busy(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    struct timespec d = {(time_t)(((const struct busy_args *)args)->ms / 1000),
                         (long)(((const struct busy_args *)args)->ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0)
        ;
    return ACL_SUCCESS;
}

/* A global of the binary (aclrtBinaryGetGlobal), and a kernel that reads it. */
int32_t test_global[4] = {7, 8, 9, 10};

PARAMS(read_global, 1, PARAM(struct global_args, out));

aclError read_global(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)numBlocks;
    ((const struct global_args *)args)->out[blockIdx] = test_global[blockIdx % 4];
    return ACL_SUCCESS;
}

/* Device variables named by their host symbol (test_symbol.c): a scale the kernel applies, and a table. */
int32_t symbol_scale = 3;
double symbol_table[6] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5};

PARAMS(scale_by_symbol, 1, PARAM(struct scale_args, data));

/* data[blockIdx] *= symbol_scale */
aclError scale_by_symbol(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)numBlocks;
    ((const struct scale_args *)args)->data[blockIdx] *= symbol_scale;
    return ACL_SUCCESS;
}

/* A library's own state: each load from data is a library of its own. */
static int32_t loads_counter;

PARAMS(bump_counter, 1, PARAM(struct counter_args, out));

aclError bump_counter(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    *((const struct counter_args *)args)->out = ++loads_counter;
    return ACL_SUCCESS;
}

PARAMS(count_runs, 1, PARAM(struct count_args, n));

aclError count_runs(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    atomic_fetch_add(((const struct count_args *)args)->n, 1);
    return ACL_SUCCESS;
}

/* fill, for a kernel that takes at most 64 threads per block (a GPU kernel's __launch_bounds__(64)). */
PARAMS(fill_narrow, 2, PARAM(struct fill_args, out), PARAM(struct fill_args, value));
MAX_THREADS(fill_narrow, 64);

aclError fill_narrow(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    return fill(blockIdx, numBlocks, args);
}

PARAMS(wide, 4, PARAM(struct wide_args, out), PARAM(struct wide_args, x), PARAM(struct wide_args, a),
       PARAM(struct wide_args, v));

aclError wide(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    const struct wide_args *w = (const struct wide_args *)args;
    w->out[0] = w->x;
    w->out[1] = w->a;
    w->out[2] = w->v[0];
    w->out[3] = w->v[1];
    return ACL_SUCCESS;
}

/*
 * Kernels that declare no parameters for the test double (their layout is
 * not known, as with a driver without cuFuncGetParamInfo): the tests of the
 * args handles' own bookkeeping append to them whatever they like.
 */
aclError no_layout(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    (void)args;
    return ACL_SUCCESS;
}

aclError no_layout2(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    return no_layout(blockIdx, numBlocks, args);
}
