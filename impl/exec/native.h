/*
 * impl/exec/native.h - work a backend issues onto a stream's own queue (its
 * native stream: the cuda backend's CUstream) when the stream reaches it:
 * HCCL's operations through the backend's collective engine (NCCL).
 *
 * The task holds `issue`, `drop` and their argument. A backend whose
 * streams run on a native queue overrides the kind (ACLRT_TASK_NATIVE): its
 * run calls issue(arg, queue, place) from the stream's holder, in stream
 * order with the queue's earlier work, and the task completes once the
 * queue got past what was issued (`place` says which task it is, for
 * whoever watches it). The core's own run (a backend with no native
 * queue) calls issue(arg, NULL, place), which must fail. A task dropped before it
 * ran (an abort, a stream destroyed) calls drop(arg) instead: exactly one
 * of the two runs, once. A code other than ACL_SUCCESS from issue fails
 * the task (its ids to the exception callbacks, the stream's error).
 */
#ifndef ACLRT_IMPL_EXEC_NATIVE_H
#define ACLRT_IMPL_EXEC_NATIVE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/stream_api.h"

static int aclrt_native_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)blk;
    struct aclrt_native_place place = {s, s->issued, t->tid};
    return t->u.native.issue(t->u.native.arg, NULL, &place);
}

static void aclrt_native_drop(struct aclrt_task *t)
{
    t->u.native.drop(t->u.native.arg);
}

static const struct aclrt_task_kind aclrt_kind_native = {ACLRT_TASK_NATIVE, "native-queue work", aclrt_native_run,
                                                         aclrt_native_drop};

/* Puts issue(arg) on `stream`; when the submission fails, nothing runs (the caller keeps arg). */
ACLRT_INTERNAL aclError aclrt_native_launch(aclrtStream stream, aclrt_native_issue_fn issue, void (*drop)(void *arg),
                                            void *arg)
{
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_native, .u.native = {.issue = issue, .drop = drop, .arg = arg}};
    return aclrt_stream_submit(s, &t, NULL);
}

#endif /* ACLRT_IMPL_EXEC_NATIVE_H */
