/*
 * impl/context/stream_control.h - stopping a stream's work from the host:
 * aclrtStreamAbort and aclrtStreamStop.
 *
 *   - Abort discards every task of the stream that has not started (they
 *     count as done, so nothing waiting on them hangs), lets a running task
 *     finish (host code cannot be interrupted: work stops at the next task
 *     boundary), and returns once the stream is empty; the stream is then
 *     usable again. Tasks submitted while it runs may be discarded too.
 *     Synchronizers of the stream (stream, event, device) that were waiting
 *     when it began, or began while it ran, return ACL_ERROR_RT_STREAM_ABORT
 *     (with a timeout too, if it expired meanwhile): the stream's `aborts`
 *     epoch is odd while an abort runs, and a waiter compares it before and
 *     after (stream.h, aclrt_stream_wait_count).
 *   - Stop lets a running task finish and then runs nothing more: the
 *     stream's tasks stay queued (not cleared, as documented) and it is
 *     parked without a note. Submissions are still accepted. Synchronizers
 *     return ACL_ERROR_RT_TASK_ABORT_STOP instead of waiting forever. An
 *     abort (which discards the queued tasks and clears the stop) or a
 *     destroy (which then discards instead of waiting) ends the stopped
 *     state; there is no resume in the API.
 *   - Neither applies to the default stream (NULL: ACL_ERROR_INVALID_PARAM),
 *     nor may a task call them on its own stream (ACL_ERROR_RT_PARAM_INVALID).
 */
#ifndef ACLRT_IMPL_CONTEXT_STREAM_CONTROL_H
#define ACLRT_IMPL_CONTEXT_STREAM_CONTROL_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_sync.h"
#include "stream_api.h"

static aclError aclrt_stream_control_resolve(aclrtStream stream, const char *what, struct aclrt_stream **out)
{
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be %s)", what);
    aclError rc = aclrt_stream_resolve(stream, true, out);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_running_stream() == *out)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot be %s on the stream it runs on (it would wait "
                                                      "for itself)", what);
    return ACL_SUCCESS;
}

/*
 * An abort in two halves, so that a device's abort (aclrtDeviceTaskAbort)
 * stops all its streams before it waits for any. Begin: the tasks submitted
 * so far are to be discarded; returns their count, which end waits for
 * before it makes the stream usable again.
 */
ACLRT_INTERNAL uint64_t aclrt_stream_abort_begin(struct aclrt_stream *s)
{
    /*
     * The flag first, then the odd epoch: a synchronizer that sees the epoch
     * moved knows the discards have begun (stream.h, aclrt_stream_aborted_since).
     * Acq_rel on both: pairs with the synchronizers' acquire loads.
     */
    /*
     * What is discarded: the tasks submitted so far, launches in progress
     * on other threads included (their places in the ring are reserved; the
     * executor keeps the stream until they commit, then discards them). A
     * task submitted after the abort returned must run, even if its
     * executor still acts on a DISCARD it read before the flag was cleared.
     * Release: pairs with the acquire in aclrt_stream_discard (the flag's
     * CAS comes after it).
     */
    uint64_t target = aclrt_stream_submitted(s);
    atomic_store_explicit(&s->discard_until, target, memory_order_release);
    aclrt_stream_change_flags(s, ACLRT_SCHED_DISCARD, ACLRT_SCHED_STOPPED, true);
    atomic_fetch_add_explicit(&s->aborts, 1, memory_order_acq_rel);
    if (aclrt_rt.backend->stream_abort != NULL)
        aclrt_rt.backend->stream_abort(s); /* work it has in flight may be cancelled */
    return target;
}

ACLRT_INTERNAL void aclrt_stream_abort_end(struct aclrt_stream *s, uint64_t target)
{
    aclrt_stream_wait_done(s, target, ACLRT_NO_DEADLINE, aclrt_rt.config.spin_ns, NULL, NULL);
    aclrt_stream_change_flags(s, 0, ACLRT_SCHED_DISCARD, false);
    /* Even again. Release: pairs with the acquire in aclrt_stream_aborted_since. */
    atomic_fetch_add_explicit(&s->aborts, 1, memory_order_release);
}

ACLRT_API aclError aclrtStreamAbort(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_control_resolve(stream, "aborted", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_stream_abort_end(s, aclrt_stream_abort_begin(s));
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtStreamStop(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_control_resolve(stream, "stopped", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_stream_change_flags(s, ACLRT_SCHED_STOPPED, 0, false); /* a parked stream stops when its park ends */
    if (aclrt_rt.backend->stream_stop != NULL)
        aclrt_rt.backend->stream_stop(s);
    aclrt_seq_wake_all(&s->completed); /* sleeping synchronizers re-check and return */
    /* Return once no task of s runs: its executor parks it at the next task boundary. */
    for (;;) {
        /* Acquire: pairs with the executor's release CAS to PARKED (aclrt_stream_park_stopped): its task is over. */
        uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
        if (aclrt_stream_state(w) != ACLRT_SCHED_RUNNING || !(w & ACLRT_SCHED_STOPPED))
            return ACL_SUCCESS;
        uint64_t done = aclrt_seq_read(&s->completed);
        aclrt_seq_wait_until(&s->completed, done + 1, aclrt_deadline_after(ACLRT_NS_PER_MS), aclrt_rt.config.spin_ns,
                             NULL, NULL);
    }
}

#endif /* ACLRT_IMPL_CONTEXT_STREAM_CONTROL_H */
