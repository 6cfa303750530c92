/*
 * impl/sync/event_query.h - what a program asks of an event: its status (one
 * load and a compare: the captured stream's completed count against the
 * captured target), a synchronize (a wait on that count), the time of its
 * record, its id, and the quota.
 *
 * Everything other than the completed count is read through the capture
 * only while the captured stream is still the life it captured (event.h):
 * a capture of a dead stream is complete and carries no error.
 *
 * An IPC event's status and synchronize look at its shared record instead
 * (shared_record.h): the latest record made by any process at the call.
 */
#ifndef ACLRT_IMPL_SYNC_EVENT_QUERY_H
#define ACLRT_IMPL_SYNC_EVENT_QUERY_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream_sync.h"
#include "../context/context.h"
#include "../shm/segment.h"
#include "../shm/shared_record.h"
#include "event.h"

/* ------------------------------------------------------------------------
 * Query and synchronize
 * ------------------------------------------------------------------------ */

/*
 * A status query's common case, an event recorded in this process whose
 * capture is complete: only what that answer needs is read (the life,
 * `info`, the capture and its target, under the sequence lock as
 * aclrt_event_read reads it), and the captured stream's slot is found with
 * its size known here. False: the full path answers (a writer inside, a
 * destroyed or IPC event, nothing captured, not complete yet).
 */
ACLRT_INLINE bool aclrt_event_status_complete_fast(aclrtEvent event, const struct aclrt_event *e)
{
    /* Acquire loads, then the sequence again: pairs with the writer's release stores (aclrt_event_read). */
    uint32_t s1 = atomic_load_explicit(&e->seq, memory_order_acquire);
    uint32_t generation = atomic_load_explicit(&e->hdr.generation, memory_order_acquire);
    uint32_t info = atomic_load_explicit(&e->info, memory_order_acquire);
    uint64_t stream = atomic_load_explicit(&e->stream, memory_order_acquire);
    uint64_t target = atomic_load_explicit(&e->target, memory_order_acquire);
    if (ACLRT_UNLIKELY(atomic_load_explicit(&e->seq, memory_order_relaxed) != s1 || (s1 & 1u) ||
                       generation != aclrt_event_handle_generation(event) || (stream >> 32) == 0 ||
                       (info & (ACL_EVENT_IPC | ACLRT_EVENT_INFO_RECORDED)) != ACLRT_EVENT_INFO_RECORDED))
        return false;
    struct aclrt_stream *s = (struct aclrt_stream *)(void *)aclrt_table_slot_sized(&aclrt_streams, (uint32_t)stream,
                                                                                    sizeof(struct aclrt_stream));
    if (ACLRT_UNLIKELY(s == NULL) || ACLRT_UNLIKELY(!aclrt_stream_reached(s, target)))
        return false;
    ACLRT_SAN(edge, NULL, s, target); /* found complete: what follows is after the record */
    return true;
}

/* The status of an event: the full path (see aclrt_event_status_complete_fast). */
static ACLRT_NOINLINE aclError aclrt_event_status(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    struct aclrt_event *e;
    struct aclrt_event_view v;
    aclError rc = aclrt_event_resolve_view(event, &e, &v);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    bool complete;
    if (ACLRT_UNLIKELY(ACLRT_EVENT_INFO_FLAGS(v.info) & ACL_EVENT_IPC)) {
        struct aclrt_ipc_seg *seg;
        if ((rc = aclrt_event_ipc_seg(event, e, &seg)) != ACL_SUCCESS)
            return rc;
        complete = aclrt_ipc_reached(seg->page, aclrt_ipc_latest(seg->page));
        aclrt_ipc_seg_unref(seg);
    } else if (ACLRT_LIKELY(v.info & ACLRT_EVENT_INFO_RECORDED)) {
        complete = aclrt_event_view_complete(&v);
        if (ACLRT_UNLIKELY(!complete) && aclrt_seq_drive_step())
            complete = aclrt_event_view_complete(&v); /* one step of the device's work ran here (seq.h) */
        if (complete)
            ACLRT_SAN(edge, NULL, v.stream, v.target); /* found complete: what follows is after the record */
    } else
        complete = ACLRT_EVENT_INFO_FLAVOUR(v.info) == ACLRT_EVENT_EX; /* Ex: nothing captured yet */
    *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    ACLRT_ENTER();
    if (ACLRT_UNLIKELY(status == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "status (output) is NULL");
    struct aclrt_event *e = aclrt_event_lookup(event);
    if (ACLRT_LIKELY(e != NULL) && ACLRT_LIKELY(aclrt_event_status_complete_fast(event, e))) {
        *status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
        return ACL_SUCCESS;
    }
    return aclrt_event_status(event, status);
}

ACLRT_API aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    ACLRT_ENTER();
    if (status == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "status (output) is NULL");
    struct aclrt_event *e;
    struct aclrt_event_view v;
    aclError rc = aclrt_event_resolve_view(event, &e, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_EVENT_INFO_FLAVOUR(v.info) == ACLRT_EVENT_EX)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "aclrtQueryEvent does not take aclrtCreateEventExWithFlag events (use aclrtQueryEventStatus)");
    /* Never recorded (or reset) counts as complete here, as in the runtime. */
    bool complete = !(v.info & ACLRT_EVENT_INFO_RECORDED) || aclrt_event_view_complete(&v);
    if (ACLRT_UNLIKELY(!complete) && aclrt_seq_drive_step())
        complete = aclrt_event_view_complete(&v); /* one step of the device's work ran here (seq.h) */
    if (complete && (v.info & ACLRT_EVENT_INFO_RECORDED))
        ACLRT_SAN(edge, NULL, v.stream, v.target);
    *status = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    ACLRT_ENTER();
    if (status == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "status (output) is NULL");
    struct aclrt_event *e;
    struct aclrt_event_view v;
    aclError rc = aclrt_event_resolve_view(event, &e, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t flags = ACLRT_EVENT_INFO_FLAGS(v.info);
    if (ACLRT_EVENT_INFO_FLAVOUR(v.info) == ACLRT_EVENT_EX || (flags & ACL_EVENT_EXTERNAL))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "aclrtQueryEventWaitStatus does not take Ex or external events");
    /* One step of the device's work runs here (seq.h), then the event is looked at again. */
    if (ACLRT_UNLIKELY(v.waits_pending != 0) && aclrt_seq_drive_step() &&
        (rc = aclrt_event_resolve_view(event, &e, &v)) != ACL_SUCCESS)
        return rc;
    *status = v.waits_pending == 0 ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

/*
 * Wait until the captured work is done: a wait on the captured life of the
 * stream (stream_sync.h), with that life's FAST_SYNC spin. Returns
 * ACL_SUCCESS, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, ACL_ERROR_RT_STREAM_ABORT,
 * ACL_ERROR_RT_TASK_ABORT_STOP or ACL_ERROR_RT_DEV_SETUP_ERROR, no message.
 */
static aclError aclrt_event_wait_capture(const struct aclrt_event_view *v, int32_t timeout_ms)
{
    struct aclrt_stream_life life = {v->stream, v->stream_generation};
    uint64_t deadline = aclrt_deadline_after_ms(timeout_ms);
    return aclrt_stream_wait_until(&life, v->target, deadline, (v->info & ACLRT_EVENT_INFO_FAST_SYNC) != 0,
                                   ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
}

/*
 * The failure that stopped the captured life's context (stop-on-failure
 * mode), or 0. A context is freed only after its streams died, so while the
 * captured life lives its context is the one the capture names. Acquire:
 * pairs with the release CAS that stores the failure (aclrt_stream_fail).
 */
static int aclrt_event_capture_failure(const struct aclrt_event_view *v)
{
    if (!aclrt_event_capture_alive(v))
        return 0;
    const struct aclrt_context *ctx = (const struct aclrt_context *)(const void *)aclrt_table_slot(&aclrt_contexts,
                                                                                                  v->context);
    int failure = atomic_load_explicit(&ctx->failure, memory_order_acquire);
    return failure != 0 && aclrt_event_capture_alive(v) ? failure : 0;
}

/* Synchronize an IPC event: wait on this thread for the latest record any process made before the call. */
static aclError aclrt_event_synchronize_ipc(aclrtEvent event, struct aclrt_event *e, int32_t timeout_ms)
{
    struct aclrt_ipc_seg *seg;
    aclError rc = aclrt_event_ipc_seg(event, e, &seg);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t target = aclrt_ipc_latest(seg->page);
    uint64_t deadline = aclrt_deadline_after_ms(timeout_ms);
    rc = aclrt_ipc_wait_host(seg->page, target, deadline, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
    if (rc == ACL_SUCCESS)
        ACLRT_SAN(edge_key, seg); /* a record this process made is followed; another's is not seen */
    int32_t recorder = atomic_load_explicit(&seg->page->recorder, memory_order_relaxed);
    aclrt_ipc_seg_unref(seg);
    if (rc == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT)
        return aclrt_fail(rc, "the IPC event's record %u did not complete within %d ms", target, (int)timeout_ms);
    if (rc != ACL_SUCCESS)
        return aclrt_fail(rc, "the IPC event's record %u will never complete: process %d, which made it, exited",
                          target, (int)recorder);
    return ACL_SUCCESS;
}

static aclError aclrt_event_synchronize(aclrtEvent event, int32_t timeout_ms)
{
    struct aclrt_event *e;
    struct aclrt_event_view v;
    aclError rc = aclrt_event_resolve_view(event, &e, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_UNLIKELY(ACLRT_EVENT_INFO_FLAGS(v.info) & ACL_EVENT_IPC))
        return aclrt_event_synchronize_ipc(event, e, timeout_ms);
    if (!(v.info & ACLRT_EVENT_INFO_RECORDED))
        return ACL_SUCCESS; /* nothing captured: nothing to wait for */
    if (ACLRT_UNLIKELY(aclrt_running_stream() == v.stream && !aclrt_event_view_complete(&v)))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "a task cannot synchronize an event captured on its own stream (it would wait for itself)");
    rc = aclrt_event_wait_capture(&v, timeout_ms);
    if (rc != ACL_SUCCESS)
        return aclrt_stream_wait_fail_on(v.stream, ACLRT_EVENT_INFO_DEVICE(v.info), rc, "the event's captured work",
                                         timeout_ms);
    int failure = aclrt_event_capture_failure(&v);
    if (failure != 0)
        return aclrt_fail(failure, "the work this event captured was stopped by a failure (stop-on-failure mode)");
    ACLRT_SAN(edge, NULL, v.stream, v.target);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    ACLRT_ENTER();
    return aclrt_event_synchronize(event, -1);
}

ACLRT_API aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    ACLRT_ENTER();
    if (timeout == 0 || timeout < -1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 waits forever, > 0 is a limit)",
                          (int)timeout);
    return aclrt_event_synchronize(event, timeout);
}

/* ------------------------------------------------------------------------
 * Timestamps
 * ------------------------------------------------------------------------ */

/*
 * The stamp of an event's current record, and its device, or an error code
 * (with message): a time in ns, or the backend's stamp (backend.h,
 * stamp_time) when it stamps on its device.
 */
static aclError aclrt_event_stamp(aclrtEvent event, const char *which, uint64_t *stamp, struct aclrt_device **dev)
{
    struct aclrt_event *e;
    struct aclrt_event_view v;
    aclError rc = aclrt_event_resolve_view(event, &e, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t flags = ACLRT_EVENT_INFO_FLAGS(v.info);
    if (flags & ACL_EVENT_EXTERNAL)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s event is an external event (no timestamps)", which);
    if (flags & ACL_EVENT_IPC)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "%s event is an IPC event (no timestamps)", which);
    if (!(v.info & ACLRT_EVENT_INFO_RECORDED))
        return aclrt_fail(ACL_ERROR_RT_INTERNAL_ERROR, "%s event has not been recorded", which);
    if (!(flags & ACL_EVENT_TIME_LINE))
        return aclrt_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                          "%s event was created without ACL_EVENT_TIME_LINE and takes no timestamps", which);
    if (v.timestamp == 0 || !aclrt_event_view_complete(&v))
        return aclrt_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                          "%s event has not completed yet (synchronize it first)", which);
    *stamp = v.timestamp;
    *dev = &aclrt_rt.devices[ACLRT_EVENT_INFO_DEVICE(v.info)];
    return ACL_SUCCESS;
}

/* The completion time of an event's current record in ns, or an error code (with message). */
static aclError aclrt_event_time(aclrtEvent event, const char *which, uint64_t *ns)
{
    struct aclrt_device *dev;
    aclError rc = aclrt_event_stamp(event, which, ns, &dev);
    if (rc != ACL_SUCCESS || aclrt_rt.backend->stamp_time == NULL)
        return rc;
    uint64_t stamp = *ns;
    rc = aclrt_rt.backend->stamp_time(dev, stamp, ns);
    if (rc != ACL_SUCCESS)
        return aclrt_fail(rc, "the device could not give the time of %s event's record", which);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    ACLRT_ENTER();
    if (ms == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ms (output) is NULL");
    if (startEvent == NULL || endEvent == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", startEvent == NULL ? "startEvent" : "endEvent");
    uint64_t t0, t1;
    struct aclrt_device *d0, *d1;
    aclError rc = aclrt_event_stamp(startEvent, "start", &t0, &d0);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_event_stamp(endEvent, "end", &t1, &d1)) != ACL_SUCCESS)
        return rc;
    int64_t ns = (int64_t)(t1 - t0);
    if (aclrt_rt.backend->stamp_time != NULL) {
        /* Device stamps: the device's own interval when both are its, else the difference of their times. */
        if (d0 == d1 && aclrt_rt.backend->stamp_elapsed != NULL)
            rc = aclrt_rt.backend->stamp_elapsed(d0, t0, t1, &ns);
        else if ((rc = aclrt_rt.backend->stamp_time(d0, t0, &t0)) == ACL_SUCCESS &&
                 (rc = aclrt_rt.backend->stamp_time(d1, t1, &t1)) == ACL_SUCCESS)
            ns = (int64_t)(t1 - t0);
        if (rc != ACL_SUCCESS)
            return aclrt_fail(rc, "the device could not give the time between the two events' records");
    }
    if (ns < 0)
        return aclrt_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, "the end event completed before the start event");
    *ms = (float)((double)ns / 1e6);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    ACLRT_ENTER();
    if (timestamp == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "timestamp (output) is NULL");
    uint64_t ns;
    aclError rc = aclrt_event_time(event, "the", &ns);
    if (rc != ACL_SUCCESS)
        return rc;
    *timestamp = ns / ACLRT_NS_PER_US; /* microseconds since boot */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    ACLRT_ENTER();
    if (eventId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "eventId (output) is NULL");
    struct aclrt_event *e;
    aclError rc = aclrt_event_resolve(event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_EVENT_INFO_FLAGS(atomic_load_explicit(&e->info, memory_order_relaxed)) & ACL_EVENT_IPC)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "an IPC event has no event id");
    *eventId = aclrt_slot_index(&e->hdr);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetEventAvailNum(uint32_t *eventCount)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(eventCount, "eventCount", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t used = atomic_load_explicit(&ctx->device->events_in_use, memory_order_relaxed);
    *eventCount = used >= aclrt_rt.config.max_events ? 0 : aclrt_rt.config.max_events - used;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYNC_EVENT_QUERY_H */
