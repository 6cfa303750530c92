/*
 * impl/sync/event_wait.h - stream waits on events: aclrtStreamWaitEvent and its
 * variants, and the wait tasks they submit.
 *
 * A wait task carries a copy of what the event captured (stream, target
 * count) taken at the call, so re-recording or destroying the event later
 * does not change what a pending wait waits for. It is over once the
 * captured stream's completed count reaches the target; until then its
 * stream is parked on that count (block.h) and holds no thread.
 *
 * A wait on a legacy SYNC event that has not been recorded yet waits for the
 * event's next record: it parks on the event (a keyless list the record
 * wakes), then binds to that record's capture and becomes a count wait.
 * It reads the event when it runs, possibly after the event was destroyed:
 * a pending wait keeps the event's slot from reuse (event_life.h), so what it
 * finds there is the event's last record before the destroy, if any.
 *
 * A count wait reads nothing of the captured stream but its completed count
 * and the list of notes on it, which go on across the slot's lives (a new
 * life wakes the notes left from the previous one): a wait for a stream
 * that died meanwhile is over, whoever lives in the slot now.
 */
#ifndef ACLRT_IMPL_SYNC_EVENT_WAIT_H
#define ACLRT_IMPL_SYNC_EVENT_WAIT_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/capture.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_complete.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_sync.h"
#include "../stream/wait_task.h"
#include "../context/stream_api.h"
#include "../shm/ipc_wait.h"
#include "event.h"
#include "event_life.h"

/* A count wait may go on: the stream it waits for has completed the target. */
static bool aclrt_task_wait_stream_ready(const struct aclrt_task *t)
{
    return aclrt_stream_reached(t->u.wait.stream, t->u.wait.target);
}

/* ACLRT_TASK_WAIT_STREAM: until the captured stream completed the captured count. */
static int aclrt_wait_stream_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    uint64_t deadline = aclrt_wait_deadline(&t->u.wait.deadline_ns, t->u32);
    if (aclrt_wait_holds(s, aclrt_task_wait_stream_ready, t, deadline)) {
        aclrt_event_wait_done(&t->u.wait.from);
        return ACL_SUCCESS;
    }
    if (aclrt_wait_expired(deadline)) {
        aclrt_event_wait_done(&t->u.wait.from);
        return ACLRT_WAIT_TIMEOUT_CODE;
    }
    struct aclrt_stream *on = t->u.wait.stream;
    aclrt_block_on_count(blk, &on->completed, &on->waiters, t->u.wait.target, deadline);
    if (aclrt_stream_device_word(on) != NULL) {
        /*
         * A device's word: the count is brought there (stream_await), perhaps
         * only behind work issued after the target; the wait also looks at
         * the word itself every ACLRT_DEVICE_POLL_MAX_NS.
         */
        aclrt_stream_await(on, t->u.wait.target);
        blk->deadline_ns = aclrt_min_u64(deadline, aclrt_now_ns() + ACLRT_DEVICE_POLL_MAX_NS);
    }
    return ACLRT_TASK_BLOCKED;
}

static const struct aclrt_task_kind aclrt_kind_wait_stream;

/*
 * ACLRT_TASK_WAIT_EVENT: a legacy wait issued before any record. Once the
 * event has been recorded (its record count moved past the one the wait
 * saw), the task binds to that record's capture and becomes an ordinary
 * count wait, also when the event was destroyed after that record (the slot
 * it keeps still holds the record). An event destroyed with no record since
 * the wait releases it.
 */
static int aclrt_wait_event_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_event_view v;
    aclrt_event_read(t->u.wait.from.event, &v);
    if (v.records == t->u.wait.from.record && v.generation != t->u.wait.from.generation) {
        aclrt_event_wait_done(&t->u.wait.from);
        return ACL_SUCCESS; /* destroyed before any record: nothing left to wait for */
    }
    if (v.records == t->u.wait.from.record) {
        blk->event = t->u.wait.from;
        blk->deadline_ns = aclrt_wait_deadline(&t->u.wait.deadline_ns, t->u32);
        if (!aclrt_wait_expired(blk->deadline_ns))
            return ACLRT_TASK_BLOCKED;
        aclrt_event_wait_done(&t->u.wait.from);
        return ACLRT_WAIT_TIMEOUT_CODE;
    }
    t->kind = &aclrt_kind_wait_stream;
    t->u.wait.stream = v.stream;
    t->u.wait.target = v.target;
    return aclrt_wait_stream_run(s, t, blk);
}

/*
 * ACLRT_TASK_MODEL_WAIT: an event wait a model makes each time it is
 * replayed (captured from aclrtStreamWaitEventWithFlag(ACL_EVENT_WAIT_EXTERNAL)):
 * it waits for what the event has captured when the replay reaches it, as
 * a count wait; an event that is not recorded then, or was destroyed, has
 * nothing to wait for.
 */
static int aclrt_model_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_event_view v;
    aclrt_event_read(t->u.wait.from.event, &v);
    if (!aclrt_event_view_alive(&v, t->u.wait.from.generation) || !(v.info & ACLRT_EVENT_INFO_RECORDED) ||
        v.stream == NULL)
        return ACL_SUCCESS;
    t->kind = &aclrt_kind_wait_stream;
    t->u.wait.stream = v.stream;
    t->u.wait.target = v.target;
    t->u.wait.from = (struct aclrt_event_ref){NULL, 0, 0}; /* counts no pending wait of the event */
    t->u.wait.deadline_ns = 0;
    return aclrt_wait_stream_run(s, t, blk);
}

static const struct aclrt_task_kind aclrt_kind_model_wait = {ACLRT_TASK_MODEL_WAIT, "event wait (replayed)",
                                                             aclrt_model_wait_run, NULL};

/* A wait dropped without running: the event counts one fewer pending wait. */
static void aclrt_wait_drop(struct aclrt_task *t)
{
    aclrt_event_wait_done(&t->u.wait.from);
}

static const struct aclrt_task_kind aclrt_kind_wait_stream = {ACLRT_TASK_WAIT_STREAM, "stream wait",
                                                              aclrt_wait_stream_run, aclrt_wait_drop};
static const struct aclrt_task_kind aclrt_kind_wait_event = {ACLRT_TASK_WAIT_EVENT, "event wait (unrecorded)",
                                                             aclrt_wait_event_run, aclrt_wait_drop};

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

/*
 * Make `s` wait for the event's captured work (or, for an unrecorded legacy
 * SYNC event, for its next record). `timeout_s` = 0: no limit (the
 * aclrtSetOpWaitTimeout value applies).
 */
static aclError aclrt_event_stream_wait(aclrtStream stream, aclrtEvent event, uint32_t timeout_s)
{
    struct aclrt_event *e;
    aclError rc = aclrt_event_resolve(event, &e);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS))
        return rc;
    /* Captures under way: a wait may join s to one, or be refused (impl/task/capture.h). */
    if (ACLRT_UNLIKELY(aclrt_capture_any()) &&
        (rc = aclrt_capture_wait_event(s, e, aclrt_event_handle_generation(event))) != ACLRT_CAPTURE_ENDED)
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_check_context(s)) != ACL_SUCCESS))
        return rc;
    struct aclrt_event_view v;
    if (ACLRT_UNLIKELY((rc = aclrt_event_snapshot(event, e, &v)) != ACL_SUCCESS))
        return rc;
    uint32_t flags = ACLRT_EVENT_INFO_FLAGS(v.info);
    unsigned flavour = ACLRT_EVENT_INFO_FLAVOUR(v.info);
    if (timeout_s == 0)
        timeout_s = atomic_load_explicit(&aclrt_rt.op_wait_timeout_s, memory_order_relaxed);
    if (ACLRT_UNLIKELY(flags & ACL_EVENT_IPC)) { /* the latest record of its shared segment, in any process */
        struct aclrt_ipc_seg *seg;
        if ((rc = aclrt_event_ipc_seg(event, e, &seg)) != ACL_SUCCESS)
            return rc;
        return aclrt_ipc_wait_submit(s, seg, timeout_s);
    }
    if (ACLRT_UNLIKELY(flags & ACL_EVENT_DEVICE_USE_ONLY))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "an ACL_EVENT_DEVICE_USE_ONLY event cannot be waited for here");
    if (ACLRT_UNLIKELY((flags & (ACL_EVENT_SYNC | ACLRT_EVENT_FLAG_INTERNAL_SYNC)) == 0))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "event %p was created without ACL_EVENT_SYNC and cannot be waited for", event);

    struct aclrt_task t = {.u32 = timeout_s};
    bool recorded = (v.info & ACLRT_EVENT_INFO_RECORDED) != 0;
    if (!recorded) {
        if (flavour == ACLRT_EVENT_EX)
            return ACL_SUCCESS; /* nothing captured: nothing to wait for */
        if (flavour == ACLRT_EVENT_PLAIN)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "event %p from aclrtCreateEvent has not been recorded; record it before waiting", event);
        /* Legacy SYNC event: the wait binds to the next record. */
        t.kind = &aclrt_kind_wait_event;
        t.u.wait.from = (struct aclrt_event_ref){e, v.generation, v.records};
    } else {
        if (aclrt_event_view_complete(&v) && flavour == ACLRT_EVENT_EX) {
            ACLRT_SAN(edge, s, v.stream, v.target);
            return ACL_SUCCESS; /* already satisfied: no task needed */
        }
        t.kind = &aclrt_kind_wait_stream;
        t.u.wait.stream = v.stream;
        t.u.wait.target = v.target;
        if (flavour != ACLRT_EVENT_EX)
            t.u.wait.from = (struct aclrt_event_ref){e, v.generation, v.records};
    }
    /* Count the wait for aclrtQueryEventWaitStatus (not offered for Ex events). */
    if (t.u.wait.from.event != NULL) {
        uint32_t odd = aclrt_event_write_begin(e);
        bool alive = atomic_load_explicit(&e->hdr.generation, memory_order_relaxed) == v.generation;
        if (alive)
            atomic_fetch_add_explicit(&e->waits_pending, 1, memory_order_release);
        aclrt_event_write_end(e, odd);
        if (!alive)
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p was destroyed by another thread", event);
    }
    rc = aclrt_stream_submit(s, &t, NULL);
    if (rc != ACL_SUCCESS && t.u.wait.from.event != NULL)
        aclrt_event_wait_done(&t.u.wait.from);
    return rc;
}

ACLRT_API aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    ACLRT_ENTER();
    return aclrt_event_stream_wait(stream, event, 0);
}

ACLRT_API aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    ACLRT_ENTER();
    if (timeout < 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d s is invalid (0 waits forever, > 0 is a limit)",
                          (int)timeout);
    return aclrt_event_stream_wait(stream, event, (uint32_t)timeout);
}

ACLRT_API aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout, uint32_t flag)
{
    ACLRT_ENTER();
    if (flag == ACL_EVENT_WAIT_DEFAULT)
        return aclrt_event_stream_wait(stream, event, timeout);
    if (flag == ACL_EVENT_WAIT_EXTERNAL) {
        if (timeout != 0)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ACL_EVENT_WAIT_EXTERNAL takes timeout 0 (never)");
        struct aclrt_event *e;
        struct aclrt_stream *s;
        aclError rc = aclrt_event_resolve(event, &e);
        if (rc != ACL_SUCCESS || (rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
            return rc;
        if (aclrt_stream_capturing(s)) { /* a wait every replay makes */
            struct aclrt_task t = {.kind = &aclrt_kind_model_wait,
                                   .u.wait.from = (struct aclrt_event_ref){e, aclrt_event_handle_generation(event), 0}};
            if ((rc = aclrt_stream_capture_task(s, &t, NULL)) != ACLRT_CAPTURE_ENDED)
                return rc;
        }
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "ACL_EVENT_WAIT_EXTERNAL waits only on a stream that is being captured");
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "wait flag 0x%x is neither ACL_EVENT_WAIT_DEFAULT nor "
                                               "ACL_EVENT_WAIT_EXTERNAL",
                      flag);
}

ACLRT_API aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    ACLRT_ENTER();
    atomic_store_explicit(&aclrt_rt.op_wait_timeout_s, timeout, memory_order_relaxed);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYNC_EVENT_WAIT_H */
