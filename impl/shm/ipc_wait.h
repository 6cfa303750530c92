/*
 * impl/shm/ipc_wait.h - a stream's wait for a record made in any process:
 * the task behind aclrtStreamWaitEvent on an IPC event (event_wait.h).
 *
 * A stream wait takes the latest record at the call (none, or complete:
 * nothing to wait for, no task). It parks on the process's mark count
 * (shared_record.h): a record completed in this process advances it, and so does the
 * watcher thread (ipc_watch.h) when the word changes in another process.
 * Where there is no watcher (external progress) it also polls: it spins
 * while its executor has nothing else to do, then parks until a mark or a
 * deadline, and looks again after an interval that doubles from
 * ACLRT_IPC_POLL_MIN_NS to ACLRT_IPC_POLL_MAX_NS (the longest a record in
 * another process stays unnoticed then, plus a wake-up).
 * Past its timeout (aclrtStreamWaitEventWithTimeout, aclrtSetOpWaitTimeout)
 * it fails like other event waits; if the process that made the record
 * exited with it incomplete, it fails with ACL_ERROR_RT_IPC_ERROR.
 */
#ifndef ACLRT_IMPL_SHM_IPC_WAIT_H
#define ACLRT_IMPL_SHM_IPC_WAIT_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/seq.h"
#include "../task/block.h"
#include "../task/task.h"
#include "../stream/stream_submit.h"
#include "../stream/wait_task.h"
#include "ipc_watch.h"
#include "segment.h"
#include "shared_record.h"

static bool aclrt_ipc_wait_ready(const struct aclrt_task *t)
{
    return aclrt_ipc_reached(t->u.ipc.seg->page, t->u.ipc.target);
}

/*
 * ACLRT_TASK_IPC_WAIT: until the shared record is complete. Parks on this
 * process's mark count (a record completed here wakes it) with a poll
 * deadline (a record completed in another process is seen at the poll).
 */
static int aclrt_ipc_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    uint64_t deadline = aclrt_wait_deadline(&t->u.ipc.deadline_ns, t->u32);
    int rc = ACL_SUCCESS;
    for (;;) {
        if (aclrt_ipc_wait_ready(t))
            break;
        /* Before parking: the count, then a second look, so a mark after the first look wakes us. */
        uint64_t seen = aclrt_seq_read(&aclrt_ipc_marks);
        /* Acquire: pairs with the marker's seq_cst update (aclrt_ipc_mark); the word the watcher compares. */
        uint32_t done = atomic_load_explicit(&t->u.ipc.seg->page->done, memory_order_acquire);
        if ((int32_t)(done - t->u.ipc.target) >= 0)
            break;
        if (aclrt_wait_spin(s, aclrt_ipc_wait_ready, t, deadline))
            continue;
        if (aclrt_wait_expired(deadline)) {
            rc = ACLRT_WAIT_TIMEOUT_CODE;
            break;
        }
        if (t->u.ipc.backoff_ns >= ACLRT_IPC_POLL_MAX_NS && aclrt_ipc_abandoned(t->u.ipc.seg->page, t->u.ipc.target)) {
            rc = ACL_ERROR_RT_IPC_ERROR; /* its recorder exited: it would never complete */
            break;
        }
        bool parked_before = t->u.ipc.backoff_ns != 0;
        uint32_t backoff = parked_before ? t->u.ipc.backoff_ns : ACLRT_IPC_POLL_MIN_NS;
        t->u.ipc.backoff_ns = (uint32_t)aclrt_min_u64(2 * (uint64_t)backoff, ACLRT_IPC_POLL_MAX_NS);
        if (parked_before) /* the notes of the previous park are stale */
            aclrt_wait_prune(s, &aclrt_ipc_marks, &aclrt_ipc_mark_waiters, true);
        aclrt_ipc_watch_add(t->u.ipc.seg, done); /* a change of the word in any process advances the marks */
        aclrt_block_on_count(blk, &aclrt_ipc_marks, &aclrt_ipc_mark_waiters, seen + 1,
                             aclrt_min_u64(deadline, aclrt_now_ns() + backoff));
        return ACLRT_TASK_BLOCKED;
    }
    aclrt_ipc_seg_unref(t->u.ipc.seg);
    return rc;
}

static void aclrt_ipc_wait_drop(struct aclrt_task *t)
{
    aclrt_ipc_seg_unref(t->u.ipc.seg);
}

static const struct aclrt_task_kind aclrt_kind_ipc_wait = {ACLRT_TASK_IPC_WAIT, "IPC wait", aclrt_ipc_wait_run,
                                                           aclrt_ipc_wait_drop};

/*
 * A wait in stream order for the latest record of a shared segment (an IPC
 * event's: event_wait.h resolved the event and took the reference this
 * takes over). No record, or a complete one: nothing to wait for, no task.
 */
ACLRT_INTERNAL aclError aclrt_ipc_wait_submit(struct aclrt_stream *s, struct aclrt_ipc_seg *seg, uint32_t timeout_s)
{
    uint32_t target = aclrt_ipc_latest(seg->page);
    if (aclrt_ipc_reached(seg->page, target)) {
        aclrt_ipc_seg_unref(seg);
        return ACL_SUCCESS;
    }
    struct aclrt_task t = {.kind = &aclrt_kind_ipc_wait,
                           .u32 = timeout_s,
                           .u.ipc.seg = seg, /* the task's reference */
                           .u.ipc.target = target};
    aclError rc = aclrt_stream_submit(s, &t, NULL);
    if (rc != ACL_SUCCESS)
        aclrt_ipc_seg_unref(seg);
    return rc;
}

#endif /* ACLRT_IMPL_SHM_IPC_WAIT_H */
