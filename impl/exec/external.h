/*
 * impl/exec/external.h - external tasks: an embedder's own asynchronous work as
 * a task of a stream (aclrtxLaunchExternalTask, aclrtxCompleteExternalTask).
 *
 * When the stream reaches the task, its run calls the embedder's start
 * function with a token and returns ACLRT_TASK_ISSUED: the task is in
 * flight (issued, not completed), and the stream parks on its own completed
 * count until it is done (exec.h). Whoever finishes the work calls
 * aclrtxCompleteExternalTask(token, code) from any thread: a non-zero code
 * fails the task first (aclrt_stream_fail), then the stream's completed
 * count moves past it (aclrt_stream_complete_to), which wakes the stream
 * and everything waiting on that count.
 *
 * A token is (stream slot, task number). Numbers grow across every life of
 * a slot, so a token never names another task; the stream keeps the number
 * of its one task in flight (streams run in order) and a completion takes
 * it with a CAS, so a task completes exactly once. The slot outlives the
 * task: a stream is not freed while it has work in flight.
 */
#ifndef ACLRT_IMPL_EXEC_EXTERNAL_H
#define ACLRT_IMPL_EXEC_EXTERNAL_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/stream_api.h"
#include "exec.h"

#define ACLRT_EXTERNAL_TOKEN_MAGIC 0xE7ull /* the top byte of a token's stream word */

static int aclrt_external_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)blk;
    uint64_t number = s->issued; /* this task's number (exec.h counts it as it leaves the ring) */
    s->external_tid = t->tid;
    /* Release: pairs with the CAS in aclrtxCompleteExternalTask; the tid above comes with the number. */
    atomic_store_explicit(&s->external_pending, number, memory_order_release);
    aclrtxExternalToken token = {(ACLRT_EXTERNAL_TOKEN_MAGIC << 56) | aclrt_slot_index(&s->hdr), number};
    t->u.external.start(token, t->u.external.user_data);
    return ACLRT_TASK_ISSUED;
}

static const struct aclrt_task_kind aclrt_kind_external = {ACLRT_TASK_EXTERNAL, "external task", aclrt_external_run,
                                                           NULL};

/* aclrtxLaunchExternalTask, for the runtime's own callers (HCCL): the public call's name and caller stay theirs. */
ACLRT_INTERNAL aclError aclrt_external_launch(aclrtStream stream, aclrtxExternalStart start, void *userData)
{
    if (start == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "start is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_external, .u.external.start = start, .u.external.user_data = userData};
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtxLaunchExternalTask(aclrtStream stream, aclrtxExternalStart start, void *userData)
{
    ACLRT_ENTER();
    return aclrt_external_launch(stream, start, userData);
}

ACLRT_API aclError aclrtxCompleteExternalTask(aclrtxExternalToken token, aclError code)
{
    ACLRT_ENTER();
    uint64_t index = token.stream & ACLRT_HANDLE_INDEX_MASK;
    struct aclrt_slot *slot = NULL;
    if ((token.stream & ~ACLRT_HANDLE_INDEX_MASK) == ACLRT_EXTERNAL_TOKEN_MAGIC << 56 &&
        index < atomic_load_explicit(&aclrt_streams.high_water, memory_order_acquire))
        slot = aclrt_table_slot(&aclrt_streams, (uint32_t)index);
    if (slot == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the token names no external task (garbage)");
    struct aclrt_stream *s = (struct aclrt_stream *)(void *)slot;
    uint64_t expected = token.task;
    /* Acquire: pairs with the release store in aclrt_external_run (the submitter's tid). */
    if (expected == 0 || !atomic_compare_exchange_strong_explicit(&s->external_pending, &expected, 0,
                                                                  memory_order_acquire, memory_order_relaxed))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "the token names no pending external task (completed already, or not started)");
    if (code != ACL_SUCCESS)
        aclrt_stream_fail(s, s->external_tid, token.task, code);
    aclrt_stream_complete_to(s, token.task);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_EXEC_EXTERNAL_H */
