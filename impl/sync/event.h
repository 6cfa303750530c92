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
 * work (event_record.h). This file is the event object: its state, the
 * sequence lock that publishes it, and the look-ups every call starts with.
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
 * Destroy (event_life.h): the handle dies at once; wait tasks still pending
 * keep the slot, so that they find there the record made before the destroy.
 *
 * IPC events (ACL_EVENT_IPC, Ex flavour; docs/SEMANTICS.md, IPC) capture
 * nothing here: their records and completion live in a segment shared with
 * other processes (shared_record.h), attached to the slot by a side entry
 * (side_table.h). A record is a task that marks the shared record
 * complete; status and synchronize (event_query.h) and stream waits
 * (ipc_wait.h) look at the shared word. The exporting event and the events
 * other processes open from its handle (ipc_event.h) behave the same.
 *
 * Memory: an event is one 64-byte slot.
 */
#ifndef ACLRT_IMPL_SYNC_EVENT_H
#define ACLRT_IMPL_SYNC_EVENT_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../task/park.h"
#include "../stream/stream.h"
#include "../shm/segment.h"
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

/* Resolve an event handle and take a consistent view of it (the two above), or fail with their codes. */
ACLRT_INLINE aclError aclrt_event_resolve_view(aclrtEvent event, struct aclrt_event **out, struct aclrt_event_view *v)
{
    aclError rc = aclrt_event_resolve(event, out);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    return aclrt_event_snapshot(event, *out, v);
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

#endif /* ACLRT_IMPL_SYNC_EVENT_H */
