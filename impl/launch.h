/*
 * impl/launch.h - launching work: host functions and host kernels.
 *
 * Both build one task record and submit it (stream.h): a ring reservation,
 * a 64-byte copy, a commit, and a look at the stream's schedule state.
 */
#ifndef ACLRT_IMPL_LAUNCH_H
#define ACLRT_IMPL_LAUNCH_H

#include "base.h"
#include "error.h"
#include "stream.h"
#include "task.h"

ACLRT_API aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    ACLRT_ENTER();
    if (ACLRT_UNLIKELY(fn == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "fn is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_task t;
    t.kind = ACLRT_TASK_HOST_FUNC;
    t.u32 = 0;
    t.u.host_func.fn = fn;
    t.u.host_func.args = args;
    t.u.host_func.item = NULL;
    return aclrt_stream_submit(s, &t, NULL);
}

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
    struct aclrt_task t;
    t.kind = ACLRT_TASK_HOST_KERNEL;
    t.u32 = numBlocks;
    t.u.kernel.fn = fn;
    t.u.kernel.args = args;
    return aclrt_stream_submit(s, &t, NULL);
}

#endif /* ACLRT_IMPL_LAUNCH_H */
