/*
 * impl/kernel/host_kernel.h - host kernels: a C function run once per block,
 * the CPU's stand-in for a device kernel (aclrtxLaunchHostKernel, and the
 * functions of a binary loaded on the host backend: kernel_launch.h).
 *
 * A launch builds one task record and submits it (stream_submit.h): a ring
 * reservation, a 64-byte copy, a commit, and a look at the stream's
 * schedule state.
 */
#ifndef ACLRT_IMPL_KERNEL_HOST_KERNEL_H
#define ACLRT_IMPL_KERNEL_HOST_KERNEL_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/stream_api.h"
#include "overflow.h"

/*
 * ACLRT_TASK_HOST_KERNEL: every block of the kernel. The backend may spread
 * the blocks over idle threads (run_kernel); otherwise they run in order
 * here. A failing block fails the task, like a faulting device kernel. On a
 * stream with its overflow switch on, every block runs under the overflow
 * watch, on a stream made in saturation mode saturated (overflow.h).
 */
ACLRT_INTERNAL int aclrt_host_kernel_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)blk;
    uint32_t blocks = t->u32;
    aclrtxHostKernel fn = t->u.kernel.fn;
    void *args = t->u.kernel.args;
    struct aclrt_overflow_kernel watched = {fn, args, aclrt_overflow_watched(s), aclrt_overflow_saturated(s)};
    if (watched.watched || watched.saturate) {
        fn = aclrt_overflow_watched_block;
        args = &watched;
    }
    if (blocks > 1 && aclrt_rt.backend->run_kernel != NULL)
        return aclrt_rt.backend->run_kernel(s->device, fn, blocks, args);
    for (uint32_t b = 0; b < blocks; b++) {
        aclError rc = fn(b, blocks, args);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_host_kernel = {ACLRT_TASK_HOST_KERNEL, "host kernel",
                                                              aclrt_host_kernel_run, NULL};

ACLRT_API aclError aclrtxLaunchHostKernel(aclrtStream stream, uint32_t numBlocks, aclrtxHostKernel fn, void *args)
{
    ACLRT_ENTER();
    if (ACLRT_UNLIKELY(fn == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    if (ACLRT_UNLIKELY(numBlocks == 0))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "numBlocks is 0");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_host_kernel,
                           .u32 = numBlocks,
                           .u.kernel.fn = fn,
                           .u.kernel.args = args};
    return aclrt_stream_submit(s, &t, NULL);
}

#endif /* ACLRT_IMPL_KERNEL_HOST_KERNEL_H */
