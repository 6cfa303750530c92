/*
 * bench/kernels/nop.c - the kernel of the launch_kernel cases: a binary
 * (built by bench/bench.mk as a shared object) with one empty host kernel.
 */
#include "acl/acl.h"

aclError nop(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    (void)args;
    return ACL_SUCCESS;
}
