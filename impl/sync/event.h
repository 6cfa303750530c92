/*
 * impl/sync/event.h - events are sequence numbers.
 *
 * Recording event E on stream S captures (S, N), N = the number of tasks
 * submitted to S so far: E is complete when S.completed >= N. No task is
 * needed for that, so a record is a handful of atomic operations and never
 * wakes an executor, and a query is a load and a compare. A stream wait is
 * a task carrying a copy of (S, N) taken at the call.
 *
 * A record that takes a timestamp needs a task only while S has pending
 * work: the executor stamps the event when it reaches that task (the task
 * is then part of the capture, so a complete event always has its time).
 * On an idle stream the record stamps at once.
 *
 * A capture belongs to one life of its stream: the event keeps the stream's
 * slot and generation (and its context). A stream slot outlives its handle
 * and is reused by later streams, so everything read through a capture
 * besides the completed count (which goes on across lives, so a capture of
 * a dead stream is complete) is read only while the slot is still that
 * life: the stop and abort state a synchronize watches, and the context's
 * failure it reports. A capture of a dead stream carries no error. Nothing
 * reads the stream's plain fields through a capture: a new life's creation
 * writes them, and no call orders that after the event's readers.
 *
 * The capture (stream, target, timestamp, record count, state) is published
 * under a per-event sequence lock, so a query never sees half of a record:
 * writers (record, reset, stamp, destroy, wait bookkeeping) take the
 * sequence from even to odd with a CAS and back with a release store;
 * readers retry while it is odd or changed. Every field is an atomic
 * (release stores, acquire loads: no fences, and ThreadSanitizer sees it).
 *
 * Flavours (docs/SEMANTICS.md, Events):
 *   PLAIN   aclrtCreateEvent: timestamps; NOT_READY before the first record;
 *           a stream wait before any record is an error.
 *   LEGACY  aclrtCreateEventWithFlag: with SYNC, a flag that stays set until
 *           aclrtResetEvent; a wait issued while unrecorded waits for the
 *           next record. Without SYNC: no waits, no reset.
 *   EX      aclrtCreateEventExWithFlag: every record re-captures; complete
 *           and nothing to wait for before the first record; no reset.
 *
 * Destroy: the handle dies at once and the event's quota unit is given
 * back at once. Wait tasks still pending keep the slot: a legacy wait issued
 * before any record reads the event when it runs, and must find there the
 * record made before the destroy (if any), not a new event in the slot. So
 * the slot goes back to the table when its last pending wait is done (the
 * wait's bookkeeping frees it), at the destroy if none is pending.
 *
 * IPC events (ACL_EVENT_IPC, Ex flavour; docs/SEMANTICS.md, IPC) capture
 * nothing here: their records and completion live in a segment shared with
 * other processes (shared_record.h), attached to the slot by a side entry
 * (side_table.h). A record is a task that marks the shared record
 * complete; status, synchronize and stream waits (ipc_wait.h) look at the
 * shared word. The exporting event and the events other processes open
 * from its handle behave the same.
 *
 * Memory: an event is one 64-byte slot.
 */
#ifndef ACLRT_IMPL_SYNC_EVENT_H
#define ACLRT_IMPL_SYNC_EVENT_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_submit.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "../shm/segment.h"
#include "../shm/shared_record.h"
#include "../shm/side_table.h"

enum aclrt_event_flavour {
    ACLRT_EVENT_PLAIN = 1,
    ACLRT_EVENT_LEGACY = 2,
    ACLRT_EVENT_EX = 3,
};

/* The internal flag aclrtCreateEvent events carry (waitable, like SYNC; not public). */
#define ACLRT_EVENT_FLAG_INTERNAL_SYNC 0x4u

/* `info` packs the constant creation data and the recorded state. */
#define ACLRT_EVENT_INFO_FLAGS(i) ((i) & 0xFFu)
#define ACLRT_EVENT_INFO_FLAVOUR(i) (((i) >> 8) & 0xFu)
#define ACLRT_EVENT_INFO_RECORDED 0x1000u
#define ACLRT_EVENT_INFO_FAST_SYNC 0x2000u /* the captured stream has ACL_STREAM_FAST_SYNC */
#define ACLRT_EVENT_INFO_DEFERRED 0x4000u  /* destroyed with waits pending: the last one frees the slot */
#define ACLRT_EVENT_INFO_DEVICE(i) (((i) >> 16) & 0xFFu)
#define ACLRT_EVENT_INFO(flags, flavour, device) ((flags) | ((uint32_t)(flavour) << 8) | ((uint32_t)(device) << 16))

struct aclrt_event {
    struct aclrt_slot hdr;           /* 12 bytes */
    _Atomic uint32_t seq;            /* sequence lock: odd while a writer is inside */
    _Atomic uint64_t stream;         /* captured stream: generation << 32 | slot index; 0 = none yet */
    _Atomic uint64_t target;         /* captured count: complete when stream->completed >= target */
    _Atomic uint64_t timestamp;      /* ns, CLOCK_MONOTONIC; 0 = not stamped yet */
    _Atomic uint32_t records;        /* records so far (a stamp or reset task names one) */
    _Atomic uint32_t waits_pending;  /* wait tasks enqueued and not yet run */
    _Atomic uint32_t info;           /* flags | flavour | recorded | fast sync | deferred | device */
    _Atomic uint32_t context;        /* the captured stream's context (slot index; alive while the stream is) */
    struct aclrt_park_stack waiters; /* streams waiting for the next record (legacy) */
};

_Static_assert(sizeof(struct aclrt_event) <= 64, "an event fits in one cache line");

/* A consistent copy of an event's state. */
struct aclrt_event_view {
    uint32_t generation;
    uint32_t info;
    struct aclrt_stream *stream; /* slot (valid forever); NULL: never recorded */
    uint32_t stream_generation;  /* the life of `stream` the capture belongs to */
    uint32_t context;            /* that life's context (slot index) */
    uint64_t target;
    uint64_t timestamp;
    uint32_t records;
    uint32_t waits_pending;
};

static struct aclrt_table aclrt_events = ACLRT_TABLE_INIT(ACLRT_KIND_EVENT, struct aclrt_event, "event");

ACLRT_INLINE struct aclrt_event *aclrt_event_lookup(const void *handle)
{
    return (struct aclrt_event *)aclrt_table_lookup(&aclrt_events, handle);
}

/*
 * Read the event consistently. Acquire on the first load of the sequence
 * pairs with the writer's release store that ended its section. The field
 * loads are acquires too, so the second load of the sequence cannot move
 * before them; with the writer's release stores of the fields (see
 * aclrt_event_write_begin) a reader that saw any new field sees the odd
 * sequence, and retries. (On x86 all of these are plain moves.)
 */
ACLRT_INLINE void aclrt_event_read(struct aclrt_event *e, struct aclrt_event_view *v)
{
    uint64_t stream;
    for (;;) {
        uint32_t s1 = atomic_load_explicit(&e->seq, memory_order_acquire);
        if (ACLRT_UNLIKELY(s1 & 1u)) {
            aclrt_cpu_relax();
            continue;
        }
        v->generation = atomic_load_explicit(&e->hdr.generation, memory_order_acquire);
        v->info = atomic_load_explicit(&e->info, memory_order_acquire);
        stream = atomic_load_explicit(&e->stream, memory_order_acquire);
        v->context = atomic_load_explicit(&e->context, memory_order_acquire);
        v->target = atomic_load_explicit(&e->target, memory_order_acquire);
        v->timestamp = atomic_load_explicit(&e->timestamp, memory_order_acquire);
        v->records = atomic_load_explicit(&e->records, memory_order_acquire);
        v->waits_pending = atomic_load_explicit(&e->waits_pending, memory_order_acquire);
        if (ACLRT_LIKELY(atomic_load_explicit(&e->seq, memory_order_relaxed) == s1))
            break;
    }
    v->stream_generation = (uint32_t)(stream >> 32);
    v->stream = v->stream_generation != 0 ? (struct aclrt_stream *)(void *)aclrt_table_slot(&aclrt_streams, (uint32_t)stream)
                                          : NULL;
}

/*
 * Enter the writer section (spins while another writer is inside; sections
 * are a few stores). Inside, every field store is a release store, which
 * keeps it after the CAS that made the sequence odd.
 */
ACLRT_INLINE uint32_t aclrt_event_write_begin(struct aclrt_event *e)
{
    uint32_t seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
    for (;;) {
        if (seq & 1u) {
            aclrt_cpu_relax();
            seq = atomic_load_explicit(&e->seq, memory_order_relaxed);
            continue;
        }
        /* Acquire: pairs with the previous writer's release in aclrt_event_write_end. */
        if (atomic_compare_exchange_weak_explicit(&e->seq, &seq, seq + 1, memory_order_acquire,
                                                  memory_order_relaxed))
            break;
    }
    return seq + 1;
}

ACLRT_INLINE void aclrt_event_write_end(struct aclrt_event *e, uint32_t odd)
{
    atomic_store_explicit(&e->seq, odd + 1, memory_order_release);
}

ACLRT_INLINE bool aclrt_event_view_alive(const struct aclrt_event_view *v, uint32_t generation)
{
    return v->generation == generation && (generation & 1u);
}

ACLRT_INLINE bool aclrt_event_view_complete(const struct aclrt_event_view *v)
{
    return aclrt_stream_reached(v->stream, v->target);
}

/*
 * Is the captured stream still the life the capture was taken from? Acquire:
 * pairs with the release of the generation by the stream's publish and
 * retire, so the state read after a true answer (and checked again by a
 * second call) is that life's.
 */
ACLRT_INLINE bool aclrt_event_capture_alive(const struct aclrt_event_view *v)
{
    return aclrt_slot_alive(&v->stream->hdr, v->stream_generation);
}

/* The generation an event slot has once the life `generation` names was retired (aclrt_table_retire). */
ACLRT_INLINE uint32_t aclrt_event_retired_generation(uint32_t generation)
{
    return (uint32_t)(((generation >> 1) + 1) & ACLRT_HANDLE_GEN_MASK) << 1;
}

/* The generation a handle names (for checks inside a writer section). */
ACLRT_INLINE uint32_t aclrt_event_handle_generation(const void *handle)
{
    uint64_t h = (uint64_t)(uintptr_t)handle;
    return (uint32_t)(((h >> ACLRT_HANDLE_INDEX_BITS) & ACLRT_HANDLE_GEN_MASK) << 1) | 1u;
}

/* Resolve an event handle, or fail with ACL_ERROR_RT_INVALID_HANDLE. */
ACLRT_INLINE aclError aclrt_event_resolve(aclrtEvent event, struct aclrt_event **out)
{
    *out = NULL;
    if (ACLRT_UNLIKELY(event == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "event is NULL");
    struct aclrt_event *e = aclrt_event_lookup(event);
    if (ACLRT_UNLIKELY(e == NULL))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p is not a live event (destroyed, stale or garbage)",
                          event);
    *out = e;
    return ACL_SUCCESS;
}

/* Consistent view of a resolved event; fails if it was destroyed meanwhile. */
ACLRT_INLINE aclError aclrt_event_snapshot(aclrtEvent event, struct aclrt_event *e, struct aclrt_event_view *v)
{
    aclrt_event_read(e, v);
    if (ACLRT_UNLIKELY(!aclrt_event_view_alive(v, aclrt_event_handle_generation(event))))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p was destroyed", event);
    return ACL_SUCCESS;
}

/*
 * The shared segment of an IPC event (with a reference the caller drops), or
 * fail with ACL_ERROR_RT_INVALID_HANDLE if the event was destroyed meanwhile.
 */
ACLRT_INTERNAL aclError aclrt_event_ipc_seg(aclrtEvent event, struct aclrt_event *e, struct aclrt_ipc_seg **out)
{
    *out = aclrt_ipc_side_get(&aclrt_ipc_events, aclrt_slot_index(&e->hdr));
    /* Acquire: pairs with the release of the generation by destroy's retire; checked after the entry was read. */
    if (*out == NULL || atomic_load_explicit(&e->hdr.generation, memory_order_acquire) !=
                            aclrt_event_handle_generation(event)) {
        if (*out != NULL)
            aclrt_ipc_seg_unref(*out);
        *out = NULL;
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "event %p was destroyed", event);
    }
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Work the executor does for events (stamp, reset, wait bookkeeping). Each
 * applies only if the event is still the same life and record.
 * ------------------------------------------------------------------------ */

ACLRT_INTERNAL void aclrt_event_apply_stamp(const struct aclrt_event_ref *ref, uint64_t now)
{
    struct aclrt_event *e = ref->event;
    uint32_t odd = aclrt_event_write_begin(e);
    if (atomic_load_explicit(&e->hdr.generation, memory_order_relaxed) == ref->generation &&
        atomic_load_explicit(&e->records, memory_order_relaxed) == ref->record)
        atomic_store_explicit(&e->timestamp, now, memory_order_release);
    aclrt_event_write_end(e, odd);
}

static void aclrt_event_apply_reset(const struct aclrt_event_ref *ref)
{
    struct aclrt_event *e = ref->event;
    uint32_t odd = aclrt_event_write_begin(e);
    /* A record made after the reset call survives the reset. */
    if (atomic_load_explicit(&e->hdr.generation, memory_order_relaxed) == ref->generation &&
        atomic_load_explicit(&e->records, memory_order_relaxed) == ref->record) {
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

/* ------------------------------------------------------------------------
 * Create and destroy
 * ------------------------------------------------------------------------ */

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

/* ------------------------------------------------------------------------
 * Record
 * ------------------------------------------------------------------------ */

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
    uint64_t life = (uint64_t)atomic_load_explicit(&s->hdr.generation, memory_order_relaxed) << 32 |
                    aclrt_slot_index(&s->hdr);
    uint32_t info = atomic_load_explicit(&e->info, memory_order_relaxed) & ~ACLRT_EVENT_INFO_FAST_SYNC;
    uint64_t stamp = (ACLRT_EVENT_INFO_FLAGS(info) & ACL_EVENT_TIME_LINE) ? aclrt_device_now(s->device) : 0;
    info |= ACLRT_EVENT_INFO_RECORDED | ((s->flags & ACL_STREAM_FAST_SYNC) ? ACLRT_EVENT_INFO_FAST_SYNC : 0);
    /* As aclrt_event_record publishes a record (release stores inside the write section). */
    atomic_store_explicit(&e->stream, life, memory_order_release);
    atomic_store_explicit(&e->context, aclrt_slot_index(&s->ctx->hdr), memory_order_release);
    atomic_store_explicit(&e->target, s->issued, memory_order_release);
    atomic_store_explicit(&e->timestamp, stamp, memory_order_release);
    atomic_store_explicit(&e->records, atomic_load_explicit(&e->records, memory_order_relaxed) + 1,
                          memory_order_release);
    atomic_store_explicit(&e->info, info, memory_order_release);
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
    /* The stream's life (the caller holds its handle, so its plain fields are its own). */
    uint64_t life = (uint64_t)atomic_load_explicit(&s->hdr.generation, memory_order_relaxed) << 32 |
                    aclrt_slot_index(&s->hdr);
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
    uint32_t records = atomic_load_explicit(&e->records, memory_order_relaxed) + 1;
    info = atomic_load_explicit(&e->info, memory_order_relaxed) & ~ACLRT_EVENT_INFO_FAST_SYNC;
    info |= ACLRT_EVENT_INFO_RECORDED | ((s->flags & ACL_STREAM_FAST_SYNC) ? ACLRT_EVENT_INFO_FAST_SYNC : 0);
    atomic_store_explicit(&e->stream, life, memory_order_release);
    atomic_store_explicit(&e->context, context, memory_order_release);
    atomic_store_explicit(&e->target, target, memory_order_release);
    atomic_store_explicit(&e->timestamp, stamp, memory_order_release);
    atomic_store_explicit(&e->records, records, memory_order_release);
    atomic_store_explicit(&e->info, info, memory_order_release);
    aclrt_event_write_end(e, odd);

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

/* ------------------------------------------------------------------------
 * Reset
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_event *e;
    aclError rc = aclrt_event_resolve(event, &e);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_event_view v;
    if ((rc = aclrt_event_snapshot(event, e, &v)) != ACL_SUCCESS)
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

#endif /* ACLRT_IMPL_SYNC_EVENT_H */
