/*
 * impl/sync/event_record.h - recording and resetting events: aclrtRecordEvent
 * and its flag variant, aclrtResetEvent, and the tasks they submit (the
 * timestamp of a record, a reset in stream order, a record a model replays).
 *
 * A record captures (stream, submitted count) under the event's sequence
 * lock (event.h); it submits no task unless it takes a timestamp on a
 * stream with pending work: then a stamp task is reserved before the
 * capture, captured with it, and committed after the capture is published,
 * so it cannot run before the event knows which record it stamps. On an
 * idle stream the record stamps at once.
 *
 * The executor's work for events (stamp, reset) applies only if the event is
 * still the same life and record: a task never changes a later record, nor
 * an event that now lives in the slot.
 */
#ifndef ACLRT_IMPL_SYNC_EVENT_RECORD_H
#define ACLRT_IMPL_SYNC_EVENT_RECORD_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_wake.h"
#include "../context/stream_api.h"
#include "../shm/segment.h"
#include "../shm/shared_record.h"
#include "event.h"

/* Is the event still the life and record `ref` names? Inside the writer section (relaxed loads). */
static bool aclrt_event_ref_current(const struct aclrt_event *e, const struct aclrt_event_ref *ref)
{
    return atomic_load_explicit(&e->hdr.generation, memory_order_relaxed) == ref->generation &&
           atomic_load_explicit(&e->records, memory_order_relaxed) == ref->record;
}

ACLRT_INTERNAL void aclrt_event_apply_stamp(const struct aclrt_event_ref *ref, uint64_t now)
{
    struct aclrt_event *e = ref->event;
    uint32_t odd = aclrt_event_write_begin(e);
    if (aclrt_event_ref_current(e, ref))
        atomic_store_explicit(&e->timestamp, now, memory_order_release);
    aclrt_event_write_end(e, odd);
}

static void aclrt_event_apply_reset(const struct aclrt_event_ref *ref)
{
    struct aclrt_event *e = ref->event;
    uint32_t odd = aclrt_event_write_begin(e);
    /* A record made after the reset call survives the reset. */
    if (aclrt_event_ref_current(e, ref)) {
        uint32_t info = atomic_load_explicit(&e->info, memory_order_relaxed);
        atomic_store_explicit(&e->info, info & ~ACLRT_EVENT_INFO_RECORDED, memory_order_release);
    }
    aclrt_event_write_end(e, odd);
}

static int aclrt_event_stamp_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)blk;
    aclrt_event_apply_stamp(&t->u.mark, aclrt_device_now(s->device));
    return ACL_SUCCESS;
}

static int aclrt_event_reset_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    aclrt_event_apply_reset(&t->u.mark);
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_event_stamp = {ACLRT_TASK_EVENT_STAMP, "event timestamp",
                                                              aclrt_event_stamp_run, NULL};

static const struct aclrt_task_kind aclrt_kind_event_reset = {ACLRT_TASK_EVENT_RESET, "event reset",
                                                              aclrt_event_reset_run, NULL};

/*
 * Publish a record of `e` inside the writer section the caller holds
 * (event.h): the capture of s's current life, in context `context` (its
 * slot index), up to task `target`, with timestamp `stamp` (0: not stamped
 * yet). Release stores: with the sequence lock they pair with the
 * reader's acquire loads (aclrt_event_read). Returns the record's number.
 */
ACLRT_INLINE uint32_t aclrt_event_publish_record(struct aclrt_event *e, const struct aclrt_stream *s, uint32_t context,
                                                 uint64_t target, uint64_t stamp)
{
    uint64_t life = (uint64_t)atomic_load_explicit(&s->hdr.generation, memory_order_relaxed) << 32 |
                    aclrt_slot_index(&s->hdr);
    uint32_t records = atomic_load_explicit(&e->records, memory_order_relaxed) + 1;
    uint32_t info = atomic_load_explicit(&e->info, memory_order_relaxed) & ~ACLRT_EVENT_INFO_FAST_SYNC;
    info |= ACLRT_EVENT_INFO_RECORDED | ((s->flags & ACL_STREAM_FAST_SYNC) ? ACLRT_EVENT_INFO_FAST_SYNC : 0);
    atomic_store_explicit(&e->stream, life, memory_order_release);
    atomic_store_explicit(&e->context, context, memory_order_release);
    atomic_store_explicit(&e->target, target, memory_order_release);
    atomic_store_explicit(&e->timestamp, stamp, memory_order_release);
    atomic_store_explicit(&e->records, records, memory_order_release);
    atomic_store_explicit(&e->info, info, memory_order_release);
    return records;
}

/*
 * ACLRT_TASK_MODEL_RECORD: an event record a model makes each time it is
 * replayed (captured from aclrtRecordEventWithFlag(ACL_EVENT_RECORD_EXTERNAL)
 * or a record of an ACL_EVENT_EXTERNAL event). The event captures the
 * replay's own task (s->issued: the model task running it), so it is
 * complete once the replay is; a timed event is stamped when the replay
 * reaches the record. An event destroyed since the capture is not recorded.
 */
static int aclrt_model_record_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)blk;
    struct aclrt_event *e = t->u.mark.event;
    uint32_t odd = aclrt_event_write_begin(e);
    if (atomic_load_explicit(&e->hdr.generation, memory_order_relaxed) != t->u.mark.generation) {
        aclrt_event_write_end(e, odd);
        return ACL_SUCCESS;
    }
    uint32_t flags = ACLRT_EVENT_INFO_FLAGS(atomic_load_explicit(&e->info, memory_order_relaxed));
    uint64_t stamp = (flags & ACL_EVENT_TIME_LINE) ? aclrt_device_now(s->device) : 0;
    aclrt_event_publish_record(e, s, aclrt_slot_index(&s->ctx->hdr), s->issued, stamp);
    aclrt_event_write_end(e, odd);
    if (ACLRT_UNLIKELY(!aclrt_park_stack_empty(&e->waiters)))
        aclrt_park_stack_wake_all(&e->waiters);
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_model_record = {ACLRT_TASK_MODEL_RECORD, "event record (replayed)",
                                                               aclrt_model_record_run, NULL};

/* Capture a record that every replay makes (ACLRT_CAPTURE_ENDED: s captures no more). */
static aclError aclrt_event_capture_record(struct aclrt_stream *s, struct aclrt_event *e, uint32_t generation)
{
    struct aclrt_task t = {.kind = &aclrt_kind_model_record, .u.mark.event = e, .u.mark.generation = generation};
    return aclrt_stream_capture_task(s, &t, NULL);
}

static aclError aclrt_event_record(aclrtEvent event, aclrtStream stream)
{
    struct aclrt_event *e;
    aclError rc = aclrt_event_resolve(event, &e);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    rc = aclrt_stream_resolve(stream, true, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    uint32_t info = atomic_load_explicit(&e->info, memory_order_relaxed);
    uint32_t flags = ACLRT_EVENT_INFO_FLAGS(info);
    uint32_t generation = aclrt_event_handle_generation(event);
    /* Shared between processes: its own record task (a capture refuses it: not a kind a model keeps). */
    if (ACLRT_UNLIKELY(flags & ACL_EVENT_IPC)) {
        struct aclrt_ipc_seg *seg;
        if ((rc = aclrt_event_ipc_seg(event, e, &seg)) != ACL_SUCCESS)
            return rc;
        rc = aclrt_ipc_record(s, seg);
        aclrt_ipc_seg_unref(seg);
        return rc;
    }
    /*
     * A capturing stream: the capture marks the event (impl/task/capture.h), nothing
     * is recorded; an ACL_EVENT_EXTERNAL event is recorded by every replay.
     */
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s)) &&
        (rc = (flags & ACL_EVENT_EXTERNAL) ? aclrt_event_capture_record(s, e, generation)
                                           : aclrt_capture_mark_event(s, e, generation)) != ACLRT_CAPTURE_ENDED)
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_check_failure(s)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY(flags & ACL_EVENT_EXTERNAL))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "an ACL_EVENT_EXTERNAL event is recorded only inside a model capture");
    bool timed = (flags & ACL_EVENT_TIME_LINE) != 0;
    /* The stream's context (the caller holds its handle, so its plain fields are its own). */
    uint32_t context = aclrt_slot_index(&s->ctx->hdr);

    /*
     * The capture: everything submitted to s so far. A timed record on a busy
     * stream reserves a stamp task first and captures it too; the task is
     * committed only after the capture is published, so it cannot run before
     * the event knows which record it stamps.
     */
    uint64_t target = aclrt_stream_submitted(s);
    uint64_t stamp = 0;
    struct aclrt_task *slot = NULL;
    unsigned int ticket = 0;
    if (timed) {
        /* A backend that stamps on its device (an EVENT_STAMP override) always gets the stamp task. */
        if (aclrt_kind_is_core(ACLRT_TASK_EVENT_STAMP) && aclrt_seq_reached(&s->completed, target)) {
            stamp = aclrt_device_now(s->device);
        } else {
            rc = aclrt_stream_reserve(s, &slot, &ticket, &target);
            if (rc != ACL_SUCCESS)
                return rc;
        }
    }

    uint32_t odd = aclrt_event_write_begin(e);
    if (ACLRT_UNLIKELY(atomic_load_explicit(&e->hdr.generation, memory_order_relaxed) != generation)) {
        aclrt_event_write_end(e, odd);
        if (slot != NULL) { /* keep the reserved slot's place in the stream: make it a no-op */
            memset(slot, 0, sizeof *slot);
            slot->kind = &aclrt_kind_nop;
            aclrt_stream_commit(s, slot, ticket);
        }
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p was destroyed by another thread", event);
    }
    uint32_t records = aclrt_event_publish_record(e, s, context, target, stamp);
    aclrt_event_write_end(e, odd);
    ACLRT_SAN(record, s, target, e);

    if (slot != NULL) {
        memset(slot, 0, sizeof *slot);
        slot->kind = &aclrt_kind_event_stamp;
        slot->u.mark.event = e;
        slot->u.mark.generation = generation;
        slot->u.mark.record = records;
        aclrt_stream_commit(s, slot, ticket);
    }
    /* Legacy waits issued before this record can now bind to it. */
    if (ACLRT_UNLIKELY(!aclrt_park_stack_empty(&e->waiters)))
        aclrt_park_stack_wake_all(&e->waiters);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_event_record(event, stream);
}

ACLRT_API aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag)
{
    ACLRT_ENTER();
    if (flag == ACL_EVENT_RECORD_DEFAULT)
        return aclrt_event_record(event, stream);
    if (flag == ACL_EVENT_RECORD_EXTERNAL) {
        struct aclrt_event *e;
        struct aclrt_stream *s;
        aclError rc = aclrt_event_resolve(event, &e);
        if (rc != ACL_SUCCESS || (rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
            return rc;
        if (aclrt_stream_capturing(s) &&
            (rc = aclrt_event_capture_record(s, e, aclrt_event_handle_generation(event))) != ACLRT_CAPTURE_ENDED)
            return rc;
        return aclrt_fail(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                          "ACL_EVENT_RECORD_EXTERNAL records only on a stream that is being captured");
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "record flag 0x%x is neither ACL_EVENT_RECORD_DEFAULT nor "
                                               "ACL_EVENT_RECORD_EXTERNAL",
                      flag);
}

ACLRT_API aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_event *e;
    struct aclrt_event_view v;
    aclError rc = aclrt_event_resolve_view(event, &e, &v);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t flags = ACLRT_EVENT_INFO_FLAGS(v.info);
    unsigned flavour = ACLRT_EVENT_INFO_FLAVOUR(v.info);
    if (flavour == ACLRT_EVENT_EX)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "events from aclrtCreateEventExWithFlag re-capture on every record and cannot be reset");
    if (flags & ACL_EVENT_DEVICE_USE_ONLY)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "an ACL_EVENT_DEVICE_USE_ONLY event cannot be reset from the host");
    if ((flags & (ACL_EVENT_SYNC | ACLRT_EVENT_FLAG_INTERNAL_SYNC)) == 0)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "only events created with ACL_EVENT_SYNC can be reset");
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    struct aclrt_event_ref ref = {e, v.generation, v.records};
    if (aclrt_stream_acts_now(s)) { /* nothing before it on the stream: apply now */
        aclrt_event_apply_reset(&ref);
        return ACL_SUCCESS;
    }
    struct aclrt_task t = {.kind = &aclrt_kind_event_reset, .u.mark = ref};
    return aclrt_stream_submit(s, &t, NULL);
}

#endif /* ACLRT_IMPL_SYNC_EVENT_RECORD_H */
