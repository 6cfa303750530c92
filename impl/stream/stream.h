/*
 * impl/stream/stream.h - streams: an ordered queue of tasks and the count of the
 * ones that are done; the stream object, its schedule states and the counts
 * read from it.
 *
 * Data path: API call -> handle check -> task record into the ring
 * (stream_submit.h) -> executor pops it, runs it (exec.h), advances
 * `completed` (stream_complete.h) -> waiters see the count, parked streams
 * are woken (stream_wake.h). Synchronize on a finished stream is two loads.
 *
 * Invariants of struct aclrt_stream:
 *   - task N of the stream is the N-th record in ring order (N counts from 1
 *     over every life of the slot, see ring.h); completed == N means tasks
 *     1..N are done, and completed <= submitted.
 *   - only the thread holding the stream (sched state RUNNING) pops the ring,
 *     writes `current`/`has_current` and advances `completed`.
 *   - `sched` moves IDLE -> READY (a launcher, or a waker) -> RUNNING (the
 *     executor that dequeued it) -> IDLE | PARKED | READY; every move is a
 *     CAS, so exactly one thread holds a RUNNING stream. The park sequence
 *     in the upper bits grows every time the stream leaves PARKED, so a
 *     stale wake-up note cannot wake a later park.
 *   - counts are never reset: a new life of the slot continues from the
 *     previous life's completed count, so every event captured on a dead
 *     stream stays complete.
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_H
#define ACLRT_IMPL_STREAM_STREAM_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../task/capture.h"
#include "../task/park.h"
#include "../task/ring.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"

#define ACLRT_SCHED_IDLE 0u
#define ACLRT_SCHED_READY 1u
#define ACLRT_SCHED_RUNNING 2u
#define ACLRT_SCHED_PARKED 3u
#define ACLRT_SCHED_STATE 3u
#define ACLRT_SCHED_DYING 4u   /* destroyed: whoever holds it last frees the slot */
#define ACLRT_SCHED_DISCARD 8u /* drop every task that has not started */
#define ACLRT_SCHED_STOPPED 16u /* aclrtStreamStop: run nothing more until an abort or destroy */
#define ACLRT_SCHED_DRAIN 32u   /* aclrtDestroyStreamForce: run what can run; discard from the first wait that blocks */
#define ACLRT_SCHED_FLAGS (ACLRT_SCHED_DYING | ACLRT_SCHED_DISCARD | ACLRT_SCHED_STOPPED | ACLRT_SCHED_DRAIN)
#define ACLRT_SCHED_SEQ_SHIFT 8

#define ACLRT_STREAM_PRIORITY_LEAST 7u
#define ACLRT_STREAM_PRIORITY_GREATEST 0u
#define ACLRT_STREAM_KNOWN_FLAGS                                                                \
    (ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE | \
     ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY)

struct aclrt_stream {
    struct aclrt_slot hdr;
    /* Set at creation, constant while alive. */
    struct aclrt_context *ctx;
    void *ctx_handle; /* ctx's handle (a default stream: set once its context is published) */
    struct aclrt_device *device;
    uint32_t flags;    /* ACL_STREAM_* creation flags */
    uint32_t priority; /* 0 (greatest) .. 7 */
    bool is_default;
    /*
     * aclmdlRICaptureBegin .. End: submissions go to `capture` (capture.h).
     * On the line every submission reads (ctx), so the check costs a load
     * that is already there and a branch that is always predicted.
     */
    _Atomic bool capturing;
    uint64_t life_base; /* completed count when this life began: task ids are relative to it */
    void *backend_state; /* the backend's (its stream_create hook) */
    /* The threads its callbacks and host functions go to (callback.h); NULL: none. */
    struct aclrt_report_thread *_Atomic report_threads[2];

    /* Launchers. */
    struct aclrt_ring ring ACLRT_ALIGNED(ACLRT_CACHELINE);

    /*
     * Schedule state: read by every launch (aclrt_stream_kick), written only
     * when the stream changes hands, so it has a line of its own (sharing
     * one with `completed`, which moves at every task, costs each launch of
     * a burst a cache miss).
     */
    _Atomic uint64_t sched ACLRT_ALIGNED(ACLRT_CACHELINE);

    /* The executor holding the stream. */
    struct aclrt_seq completed ACLRT_ALIGNED(ACLRT_CACHELINE);
    /*
     * Device completion (backends/backend.h): a word the backend's device
     * writes in host-mapped memory, the number of the last task of the slot
     * it completed; NULL: none. The backend keeps one word per slot, so a
     * capture of a dead life reads a word of the same count.
     */
    _Atomic(_Atomic uint64_t *) device_done;
    _Atomic bool folding; /* a fold of the word into `completed` runs (aclrt_stream_fold) */
    bool has_current;
    _Atomic bool draining; /* counted in device->draining until freed (stream_life.h); set before DYING is */
    uint64_t issued; /* the number of the last task taken off the ring (running, done or handed off) */
    /* Kept by a profiling session (prof_trace.h): when the first attempt of task number prof_task began. */
    uint64_t prof_task, prof_begin_ns;
    /* The external task started and not completed yet (external.h): its number (0: none), its submitter. */
    _Atomic uint64_t external_pending;
    uint32_t external_tid;
    struct aclrt_task current ACLRT_ALIGNED(ACLRT_CACHELINE); /* popped, not completed */

    /* Streams parked until our completed count reaches their target. */
    struct aclrt_park_list waiters ACLRT_ALIGNED(ACLRT_CACHELINE);

    /* Status and attributes. */
    _Atomic int error; /* first task failure not yet returned by a synchronize */
    _Atomic uint32_t aborts; /* aclrtStreamAbort: odd while one runs (synchronizers compare, stream_control.h) */
    _Atomic uint64_t discard_until; /* DISCARD drops the tasks numbered up to this (abort: those submitted
                                       when it began; force destroy: all); written before the flag is set */
    _Atomic uint64_t failure_mode;
    _Atomic uint32_t overflow_switch;
    uint32_t saturation; /* the device's saturation mode when the stream was made (overflow.h) */
    _Atomic uint32_t user_custom_tag;
    _Atomic uint32_t cache_op_info;
    _Atomic uint32_t res_limit[2]; /* aclrtSetStreamResLimit's, by aclrtDevResLimitType; ACLRT_RES_UNSET: none */

    /* The capture under way, if any (capture.h); the flag above says when to look. */
    struct aclrt_capture capture ACLRT_ALIGNED(ACLRT_CACHELINE);
};

#define ACLRT_RES_UNSET UINT32_MAX

static struct aclrt_table aclrt_streams = ACLRT_TABLE_INIT(ACLRT_KIND_STREAM, struct aclrt_stream, "stream");

ACLRT_INLINE struct aclrt_stream *aclrt_stream_lookup(const void *handle)
{
    return (struct aclrt_stream *)aclrt_table_lookup(&aclrt_streams, handle);
}

ACLRT_INLINE void *aclrt_stream_handle(const struct aclrt_stream *s)
{
    return aclrt_slot_handle(&aclrt_streams, &s->hdr);
}

/*
 * Tasks accepted so far: completed + what the ring holds, counting every
 * reserved position (see ring.h). Launchers commit independently, so a
 * reservation may not be committed yet: its launcher is in the middle of a
 * launch that is concurrent with the caller, and counting it is as right as
 * not counting it (a capture may include a concurrent launch of another
 * thread). It is the number the reserving launch's task gets, so "wait for
 * everything submitted" waits for it too; its launcher commits next.
 */
ACLRT_INLINE uint64_t aclrt_stream_submitted(const struct aclrt_stream *s)
{
    /* completed first: it is <= the reserved position at any later moment. */
    uint64_t base = aclrt_seq_read(&s->completed);
    return aclrt_ring_extend(base, aclrt_ring_reserved(&s->ring));
}

/*
 * The device's completion word of s, or NULL (backends/backend.h). Acquire:
 * pairs with the release store that set it (the backend's stream_create).
 */
ACLRT_INLINE _Atomic uint64_t *aclrt_stream_device_word(const struct aclrt_stream *s)
{
    return atomic_load_explicit(&s->device_done, memory_order_acquire);
}

/*
 * Is task `target` of s done? The completed count, or else the device's
 * word: one load more, never a call. Acquire on the word: pairs with the
 * device's write after the task's work (or the release store of a host
 * completion, aclrt_stream_complete), so the task's effects come with it.
 */
ACLRT_INLINE bool aclrt_stream_reached(const struct aclrt_stream *s, uint64_t target)
{
    if (ACLRT_LIKELY(aclrt_seq_reached(&s->completed, target)))
        return true;
    _Atomic uint64_t *word = aclrt_stream_device_word(s);
    return word != NULL && atomic_load_explicit(word, memory_order_acquire) >= target;
}

/* How many tasks of s are known done: the completed count, or the device's word if it is ahead. */
ACLRT_INLINE uint64_t aclrt_stream_done(const struct aclrt_stream *s)
{
    uint64_t done = aclrt_seq_read(&s->completed);
    _Atomic uint64_t *word = aclrt_stream_device_word(s);
    if (word != NULL) {
        uint64_t w = atomic_load_explicit(word, memory_order_acquire); /* as in aclrt_stream_reached */
        if (w > done)
            done = w;
    }
    return done;
}

ACLRT_INLINE bool aclrt_stream_idle(const struct aclrt_stream *s)
{
    uint64_t done = aclrt_stream_done(s);
    return aclrt_ring_extend(done, aclrt_ring_reserved(&s->ring)) == done;
}

/*
 * Would a task submitted now run at once, in stream order? Nothing pending,
 * and the stream not stopped (aclrtStreamStop: new tasks stay queued). The
 * calls that act at the call on an idle stream (records, resets, waits that
 * are already satisfied) ask this instead of submitting a task. Not while
 * the stream captures: then the task goes to the capture (or is refused).
 */
ACLRT_INLINE bool aclrt_stream_acts_now(const struct aclrt_stream *s)
{
    /* A capturing stream records instead (impl/task/capture.h; the flag is read here directly, its helper comes later). */
    return !atomic_load_explicit(&s->capturing, memory_order_relaxed) && aclrt_stream_idle(s) &&
           !(atomic_load_explicit(&s->sched, memory_order_relaxed) & ACLRT_SCHED_STOPPED);
}

ACLRT_INLINE uint32_t aclrt_stream_state(uint64_t sched)
{
    return (uint32_t)(sched & ACLRT_SCHED_STATE);
}

ACLRT_INLINE uint64_t aclrt_stream_park_seq(uint64_t sched)
{
    return sched >> ACLRT_SCHED_SEQ_SHIFT;
}

/* The schedule word `w` moved to `state`, its flags and park sequence kept. */
ACLRT_INLINE uint64_t aclrt_sched_in_state(uint64_t w, uint32_t state)
{
    return (w & ~(uint64_t)ACLRT_SCHED_STATE) | state;
}

/*
 * The schedule word of a stream leaving the park that `parked` names, into
 * `state`, with `flags`: the park sequence moves on, so the notes left for
 * that park go stale.
 */
ACLRT_INLINE uint64_t aclrt_sched_unparked(uint64_t parked, uint64_t flags, uint32_t state)
{
    return ((aclrt_stream_park_seq(parked) + 1) << ACLRT_SCHED_SEQ_SHIFT) | (flags & ACLRT_SCHED_FLAGS) | state;
}

/*
 * Make s READY from the schedule word `w` it was seen in and hand it to its
 * backend; false if the word changed meanwhile. Release: pairs with the
 * acquire of the thread that takes it (aclrt_stream_take, exec.h).
 */
ACLRT_INTERNAL bool aclrt_stream_ready_from(struct aclrt_stream *s, uint64_t w)
{
    uint64_t ready = aclrt_sched_in_state(w, ACLRT_SCHED_READY);
    if (!atomic_compare_exchange_strong_explicit(&s->sched, &w, ready, memory_order_release, memory_order_relaxed))
        return false;
    aclrt_rt.backend->schedule(s->device, s);
    return true;
}

/*
 * A destroyed stream (DYING) that was IDLE, and so the destroyer's, still has
 * tasks: make it READY and hand it to its backend, which runs or discards
 * them and frees it. Launchers never schedule a DYING stream, so nobody
 * else does. False if it was not IDLE (it was the destroyer's to free).
 */
ACLRT_INTERNAL bool aclrt_stream_schedule_dying(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    if (aclrt_stream_state(w) != ACLRT_SCHED_IDLE)
        return false;
    return aclrt_stream_ready_from(s, w);
}

/*
 * Set `set` and clear `clear` among the stream's flags; returns the state it
 * was in. With `wake_parked`, a PARKED stream is also made READY and handed
 * to its backend, so that an executor acts on the flags (the notes of its
 * park go stale). Acq_rel CAS, like every change of hands: pairs with the
 * executor's CASes (exec.h) and with aclrt_stream_unpark.
 */
ACLRT_INTERNAL uint32_t aclrt_stream_change_flags(struct aclrt_stream *s, uint64_t set, uint64_t clear,
                                                  bool wake_parked)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    for (;;) {
        uint32_t state = aclrt_stream_state(w);
        uint64_t flagged = (w | set) & ~clear;
        bool wake = wake_parked && state == ACLRT_SCHED_PARKED;
        uint64_t next = wake ? aclrt_sched_unparked(w, flagged, ACLRT_SCHED_READY) : flagged;
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, next, memory_order_acq_rel, memory_order_acquire)) {
            if (wake)
                aclrt_rt.backend->schedule(s->device, s);
            return state;
        }
    }
}

/* The context's stop-on-failure state, as a submission sees it. */
ACLRT_INLINE aclError aclrt_stream_check_failure(const struct aclrt_stream *s)
{
    int failure = atomic_load_explicit(&s->ctx->failure, memory_order_relaxed);
    if (ACLRT_UNLIKELY(failure != 0))
        return aclrt_fail(failure, "the context stopped after a task failed (stop-on-failure mode); "
                                   "no new tasks are accepted");
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_STREAM_STREAM_H */
