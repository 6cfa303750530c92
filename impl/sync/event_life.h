/*
 * impl/sync/event_life.h - an event's life: aclrtCreateEvent and its
 * variants (one per flavour, event.h), aclrtDestroyEvent, and the wait
 * bookkeeping that frees a destroyed event's slot.
 *
 * Destroy: the handle dies at once and the event's quota unit is given
 * back at once. Wait tasks still pending keep the slot: a legacy wait issued
 * before any record reads the event when it runs, and must find there the
 * record made before the destroy (if any), not a new event in the slot. So
 * the slot goes back to the table when its last pending wait is done (the
 * wait's bookkeeping frees it), at the destroy if none is pending.
 */
#ifndef ACLRT_IMPL_SYNC_EVENT_LIFE_H
#define ACLRT_IMPL_SYNC_EVENT_LIFE_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream_wake.h"
#include "../context/context.h"
#include "../shm/segment.h"
#include "../shm/side_table.h"
#include "event.h"

/*
 * A wait task for this event has run (or failed, or was dropped): one fewer
 * outstanding. The last one of an event destroyed meanwhile frees its slot
 * (see aclrtDestroyEvent): until then the slot cannot have been reused, so
 * the retired generation with DEFERRED set is still this event.
 */
ACLRT_INTERNAL void aclrt_event_wait_done(const struct aclrt_event_ref *ref)
{
    struct aclrt_event *e = ref->event;
    if (e == NULL)
        return;
    bool free_slot = false;
    uint32_t odd = aclrt_event_write_begin(e);
    uint32_t generation = atomic_load_explicit(&e->hdr.generation, memory_order_relaxed);
    uint32_t info = atomic_load_explicit(&e->info, memory_order_relaxed);
    bool alive = generation == ref->generation;
    bool deferred = generation == aclrt_event_retired_generation(ref->generation) && (info & ACLRT_EVENT_INFO_DEFERRED);
    uint32_t n = atomic_load_explicit(&e->waits_pending, memory_order_relaxed);
    if ((alive || deferred) && n > 0) {
        atomic_store_explicit(&e->waits_pending, n - 1, memory_order_release);
        if (deferred && n == 1) {
            atomic_store_explicit(&e->info, info & ~ACLRT_EVENT_INFO_DEFERRED, memory_order_release);
            free_slot = true;
        }
    }
    aclrt_event_write_end(e, odd);
    if (free_slot) {
        aclrt_park_stack_wake_all(&e->waiters); /* notes left by waits that parked after the destroy */
        aclrt_table_free(&aclrt_events, &e->hdr);
    }
}

static aclError aclrt_event_create(aclrtEvent *event, uint32_t flags, enum aclrt_event_flavour flavour)
{
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_device *dev = ctx->device;
    uint32_t in_use = atomic_fetch_add_explicit(&dev->events_in_use, 1, memory_order_relaxed);
    if (in_use >= aclrt_rt.config.max_events) {
        atomic_fetch_sub_explicit(&dev->events_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_NO_EVENT_RESOURCE, "device %u has no event left (limit %u)", dev->id,
                          aclrt_rt.config.max_events);
    }
    struct aclrt_event *e = (struct aclrt_event *)aclrt_table_alloc(&aclrt_events);
    if (e == NULL) {
        atomic_fetch_sub_explicit(&dev->events_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for an event");
    }
    /* Racing readers of the dead slot (stale handles) see a writer section. */
    uint32_t odd = aclrt_event_write_begin(e);
    atomic_store_explicit(&e->stream, 0, memory_order_release);
    atomic_store_explicit(&e->context, 0, memory_order_release);
    atomic_store_explicit(&e->target, 0, memory_order_release);
    atomic_store_explicit(&e->timestamp, 0, memory_order_release);
    atomic_store_explicit(&e->records, 0, memory_order_release);
    atomic_store_explicit(&e->waits_pending, 0, memory_order_release);
    atomic_store_explicit(&e->info, ACLRT_EVENT_INFO(flags, flavour, dev->id), memory_order_release);
    /* Notes a stream left after the previous life's destroy are stale: wake and free them. */
    aclrt_park_stack_wake_all(&e->waiters);
    *event = aclrt_table_publish(&aclrt_events, &e->hdr);
    aclrt_event_write_end(e, odd);
    return ACL_SUCCESS;
}

/* An IPC event on segment seg (its reference moves to the event, or is dropped on failure). */
ACLRT_INTERNAL aclError aclrt_event_create_ipc(aclrtEvent *event, struct aclrt_ipc_seg *seg)
{
    aclrtEvent made;
    aclError rc = aclrt_event_create(&made, ACL_EVENT_IPC, ACLRT_EVENT_EX);
    if (rc != ACL_SUCCESS) {
        aclrt_ipc_seg_unref(seg);
        return rc;
    }
    struct aclrt_event *e = aclrt_event_lookup(made);
    if (!aclrt_ipc_side_set(&aclrt_ipc_events, aclrt_slot_index(&e->hdr), seg)) {
        aclrt_ipc_seg_unref(seg);
        aclrtDestroyEvent(made);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for an IPC event");
    }
    *event = made;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtCreateEvent(aclrtEvent *event)
{
    ACLRT_ENTER();
    if (event == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "event (output) is NULL");
    return aclrt_event_create(event, ACL_EVENT_TIME_LINE | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACLRT_EVENT_FLAG_INTERNAL_SYNC,
                              ACLRT_EVENT_PLAIN);
}

ACLRT_API aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    ACLRT_ENTER();
    if (event == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "event (output) is NULL");
    const uint32_t all = 0x3Fu;
    if ((flag & all) == 0 || (flag & ~all) != 0 ||
        ((flag & ACL_EVENT_DEVICE_USE_ONLY) && flag != ACL_EVENT_DEVICE_USE_ONLY) ||
        ((flag & ACL_EVENT_EXTERNAL) && flag != ACL_EVENT_EXTERNAL))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "event flag 0x%x is invalid (an OR of ACL_EVENT_SYNC, _CAPTURE_STREAM_PROGRESS, _TIME_LINE; "
                          "or ACL_EVENT_DEVICE_USE_ONLY or ACL_EVENT_EXTERNAL alone)",
                          flag);
    return aclrt_event_create(event, flag, ACLRT_EVENT_LEGACY);
}

ACLRT_API aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    ACLRT_ENTER();
    if (event == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "event (output) is NULL");
    const uint32_t all = 0x4Fu;
    if ((flag & all) == 0 || (flag & ~all) != 0 || ((flag & ACL_EVENT_IPC) && flag != ACL_EVENT_IPC))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "event flag 0x%x is invalid (an OR of ACL_EVENT_SYNC, _CAPTURE_STREAM_PROGRESS, _TIME_LINE; "
                          "or ACL_EVENT_IPC alone)",
                          flag);
    if (flag != ACL_EVENT_IPC)
        return aclrt_event_create(event, flag, ACLRT_EVENT_EX);
    struct aclrt_ipc_seg *seg;
    aclError rc = aclrt_ipc_seg_create(ACLRT_IPC_EVENT, &seg);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_event_create_ipc(event, seg);
}

ACLRT_API aclError aclrtDestroyEvent(aclrtEvent event)
{
    ACLRT_ENTER();
    struct aclrt_event *e;
    aclError rc = aclrt_event_resolve(event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t odd = aclrt_event_write_begin(e);
    if (atomic_load_explicit(&e->hdr.generation, memory_order_relaxed) != aclrt_event_handle_generation(event)) {
        aclrt_event_write_end(e, odd);
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p was destroyed by another thread", event);
    }
    uint32_t info = atomic_load_explicit(&e->info, memory_order_relaxed);
    /* Pending waits keep the slot (and the last record in it); the last one frees it (aclrt_event_wait_done). */
    bool deferred = atomic_load_explicit(&e->waits_pending, memory_order_relaxed) > 0;
    if (deferred)
        atomic_store_explicit(&e->info, info | ACLRT_EVENT_INFO_DEFERRED, memory_order_release);
    aclrt_table_retire(&e->hdr);
    aclrt_event_write_end(e, odd);
    /*
     * Safe before completion: waits hold copies of the capture (or find the
     * last record in the slot they keep), and stamp and reset tasks check the
     * generation. Streams waiting for a record that will now never come are
     * released. The quota counts live handles: it is given back now.
     */
    aclrt_park_stack_wake_all(&e->waiters);
    atomic_fetch_sub_explicit(&aclrt_rt.devices[ACLRT_EVENT_INFO_DEVICE(info)].events_in_use, 1, memory_order_relaxed);
    /* An IPC event's segment: pending record and wait tasks keep their own references. */
    if (ACLRT_EVENT_INFO_FLAGS(info) & ACL_EVENT_IPC)
        aclrt_ipc_side_clear(&aclrt_ipc_events, aclrt_slot_index(&e->hdr));
    if (!deferred)
        aclrt_table_free(&aclrt_events, &e->hdr);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYNC_EVENT_LIFE_H */
