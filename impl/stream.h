/*
 * impl/stream.h - streams: an ordered queue of tasks and the count of the
 * ones that are done.
 *
 * Data path: API call -> handle check -> task record into the ring ->
 * executor pops it, runs it, advances `completed` -> waiters see the count.
 * Submitting takes no lock and makes no syscall unless a sleeping executor
 * has to be woken; synchronize on a finished stream is two loads.
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
#ifndef ACLRT_IMPL_STREAM_H
#define ACLRT_IMPL_STREAM_H

#include "base.h"
#include "capture.h"
#include "clock.h"
#include "error.h"
#include "handle.h"
#include "hooks.h"
#include "park.h"
#include "ring.h"
#include "runtime.h"
#include "seq.h"
#include "task.h"

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
    /* The threads its callbacks and host functions go to (report.h); NULL: none. */
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
    _Atomic uint32_t user_custom_tag;
    _Atomic uint32_t cache_op_info;

    /* The capture under way, if any (capture.h); the flag above says when to look. */
    struct aclrt_capture capture ACLRT_ALIGNED(ACLRT_CACHELINE);
};

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
    /* A capturing stream records instead (impl/capture.h; the flag is read here directly, its helper comes later). */
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

/*
 * The schedule word of a stream leaving the park that `parked` names, into
 * `state`, with `flags`: the park sequence moves on, so the notes left for
 * that park go stale.
 */
ACLRT_INLINE uint64_t aclrt_sched_unparked(uint64_t parked, uint64_t flags, uint32_t state)
{
    return ((aclrt_stream_park_seq(parked) + 1) << ACLRT_SCHED_SEQ_SHIFT) | (flags & ACLRT_SCHED_FLAGS) | state;
}

/* The stream became READY: hand it to its backend. */
static ACLRT_NOINLINE void aclrt_stream_kick_slow(struct aclrt_stream *s, uint64_t w)
{
    while (aclrt_stream_state(w) == ACLRT_SCHED_IDLE && (w & ACLRT_SCHED_DYING) == 0) {
        uint64_t ready = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_READY;
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, ready, memory_order_seq_cst,
                                                  memory_order_relaxed)) {
            aclrt_rt.backend->schedule(s->device, s);
            return;
        }
    }
}

/*
 * After a submission: make sure someone will run the stream. One load on
 * the fast path. Seq_cst, after the ring reservation (a seq_cst CAS, see
 * aclrt_ring_reserve): pairs with the executor's seq_cst CAS to IDLE followed
 * by its seq_cst look at the reserved position (aclrt_stream_release).
 * Either this load sees IDLE and schedules the stream, or the executor sees
 * the reservation (committed or not: it then keeps the stream until the
 * commit lands).
 */
ACLRT_INLINE uint64_t aclrt_stream_kick(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_seq_cst);
    if (ACLRT_UNLIKELY(aclrt_stream_state(w) == ACLRT_SCHED_IDLE))
        aclrt_stream_kick_slow(s, w);
    return w;
}

/*
 * A destroyed stream (DYING) that was IDLE, and so the destroyer's, still has
 * tasks: make it READY and hand it to its backend, which runs or discards
 * them and frees it. Launchers never schedule a DYING stream, so nobody
 * else does. False if it was not IDLE (it was the destroyer's to free).
 * Release: pairs with the acquire of the thread that takes it.
 */
ACLRT_INTERNAL bool aclrt_stream_schedule_dying(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    if (aclrt_stream_state(w) != ACLRT_SCHED_IDLE)
        return false;
    uint64_t ready = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_READY;
    if (!atomic_compare_exchange_strong_explicit(&s->sched, &w, ready, memory_order_release, memory_order_relaxed))
        return false;
    aclrt_rt.backend->schedule(s->device, s);
    return true;
}

/*
 * Wake a parked stream if it is still in the park that `park_seq` names.
 * Returns false for a stale note. The CAS (acq_rel) pairs with the parker's
 * release CAS to PARKED: whoever runs the stream next sees its blocked task.
 */
ACLRT_INTERNAL bool aclrt_stream_unpark(struct aclrt_stream *s, uint64_t park_seq)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    for (;;) {
        if (aclrt_stream_state(w) != ACLRT_SCHED_PARKED || aclrt_stream_park_seq(w) != park_seq)
            return false;
        uint64_t ready = aclrt_sched_unparked(w, w, ACLRT_SCHED_READY);
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, ready, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            aclrt_rt.backend->schedule(s->device, s);
            return true;
        }
    }
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

/* Wake the notes on a list that are due at `value`; put the others back (true if any). */
ACLRT_INTERNAL bool aclrt_park_list_wake(struct aclrt_park_list *l, uint64_t value)
{
    bool put_back = false;
    struct aclrt_park_note *n = aclrt_park_list_take(l);
    while (n != NULL) {
        struct aclrt_park_note *next = n->next;
        if (n->key <= value) {
            aclrt_stream_unpark(n->stream, n->park_seq);
            free(n);
        } else {
            aclrt_park_list_push(l, n);
            put_back = true;
        }
        n = next;
    }
    return put_back;
}

/* Wake every note of a keyless list (an event was recorded or destroyed). */
ACLRT_INTERNAL void aclrt_park_stack_wake_all(struct aclrt_park_stack *st)
{
    struct aclrt_park_note *n = aclrt_park_stack_take(st);
    while (n != NULL) {
        struct aclrt_park_note *next = n->next;
        aclrt_stream_unpark(n->stream, n->park_seq);
        free(n);
        n = next;
    }
}

/*
 * Wake what is due on a counter's list, for counters that several threads
 * advance at once (a notify recorded on two streams). A waker takes the whole
 * list and pushes back the notes not due at *its* value; another advancer
 * that loads the minimum in between sees the list empty and wakes nobody. So
 * after pushing back, the waker fences and reads the counter again (pairs
 * with the other advancer's add-then-load of the minimum, seq_cst on both
 * sides): either it sees the newer count and goes round again, or the other
 * advancer's load comes after the push-back and sees the notes itself.
 */
ACLRT_INTERNAL ACLRT_NOINLINE void aclrt_counter_wake_slow(const struct aclrt_seq *seq,
                                                          struct aclrt_park_list *waiters, uint64_t value)
{
    do {
        aclrt_park_list_wake(waiters, value);
        atomic_thread_fence(memory_order_seq_cst);
        value = aclrt_seq_read(seq);
    } while (aclrt_park_list_due(waiters, value));
}

/*
 * Advance a counter that streams may be parked on (exec.h, struct
 * aclrt_block) and wake the ones now due. Returns the new count. The advance
 * is a locked add followed by ck_pr_fence_atomic_load (seq.h); with the
 * seq_cst load of the minimum it pairs with the parker's push-then-recheck
 * (park.h), so no parked stream is forgotten.
 */
ACLRT_INLINE uint64_t aclrt_counter_advance(struct aclrt_seq *seq, struct aclrt_park_list *waiters, uint64_t n)
{
    uint64_t value = aclrt_seq_advance(seq, n);
    if (ACLRT_UNLIKELY(aclrt_park_list_due(waiters, value)))
        aclrt_counter_wake_slow(seq, waiters, value);
    return value;
}

/*
 * Count `n` more tasks as done and wake the streams parked on us that are
 * now due, and the launchers waiting for room in our ring (the slots of the
 * tasks taken off it are free; the advance is the locked RMW that
 * aclrt_ring_wake_room relies on). With a device word, the count goes into
 * it too, for the device's waiters on s (a cross-stream wait there): tasks
 * completed on the host come only while nothing of s is in flight on the
 * device (backends/backend.h), so the device writes nothing smaller after it.
 * The word is raised, never stored: the advance wakes the stream, whose next
 * task may reach the device and complete there (a larger word) before this
 * thread gets to the word; a plain store would take that completion back.
 */
static ACLRT_NOINLINE void aclrt_stream_complete_device(struct aclrt_stream *s, _Atomic uint64_t *word, uint64_t n)
{
    uint64_t value = aclrt_seq_read(&s->completed) + n;
    aclrt_ring_free_to(&s->ring, (uint32_t)value); /* slots go back as their tasks complete (exec.h) */
    aclrt_counter_advance(&s->completed, &s->waiters, n);
    uint64_t w = atomic_load_explicit(word, memory_order_relaxed);
    /* Release: pairs with aclrt_stream_reached's acquire. */
    while (w < value &&
           !atomic_compare_exchange_weak_explicit(word, &w, value, memory_order_release, memory_order_relaxed))
        ;
    aclrt_ring_wake_room(&s->ring, true);
}

ACLRT_INLINE void aclrt_stream_complete(struct aclrt_stream *s, uint64_t n)
{
    _Atomic uint64_t *word = aclrt_stream_device_word(s);
    if (ACLRT_UNLIKELY(word != NULL)) {
        aclrt_stream_complete_device(s, word, n);
        return;
    }
    aclrt_counter_advance(&s->completed, &s->waiters, n);
    aclrt_ring_wake_room(&s->ring, false);
}

/*
 * Bring `completed` up to the device's word and wake what is due then (any
 * thread: a backend's completion callback, a holder, a waiter; one fold at a
 * time per slot). The word is loaded before the count: a word the host
 * stored (aclrt_stream_complete) was stored after its count, so the count
 * read after it is at least as large and nothing is counted twice; a word
 * the device wrote is ahead only by tasks it completed, which nobody else
 * counts while they are in flight. The ring slots of the tasks now complete
 * are freed first, before the advance (the locked RMW ring.h pairs with).
 */
ACLRT_INTERNAL void aclrt_stream_fold(struct aclrt_stream *s)
{
    _Atomic uint64_t *word = aclrt_stream_device_word(s);
    if (word == NULL || atomic_load_explicit(word, memory_order_acquire) <= aclrt_seq_read(&s->completed))
        return;
    /* Acquire: pairs with the previous fold's release below (its count is ours to read). */
    while (atomic_exchange_explicit(&s->folding, true, memory_order_acquire))
        aclrt_cpu_relax();
    uint64_t w = atomic_load_explicit(word, memory_order_acquire); /* as in aclrt_stream_reached */
    uint64_t done = aclrt_seq_read(&s->completed);
    if (w > done) {
        aclrt_ring_free_to(&s->ring, (uint32_t)w);
        aclrt_counter_advance(&s->completed, &s->waiters, w - done);
        aclrt_ring_wake_room(&s->ring, true);
    }
    atomic_store_explicit(&s->folding, false, memory_order_release);
}

/*
 * A thread is about to sleep, or a stream to park, until s has completed
 * `target`: a backend whose device writes the completion word makes sure the
 * completed count gets there (backends/backend.h, stream_await).
 */
ACLRT_INLINE void aclrt_stream_await(struct aclrt_stream *s, uint64_t target)
{
    if (aclrt_stream_device_word(s) != NULL && aclrt_rt.backend->stream_await != NULL)
        aclrt_rt.backend->stream_await(s, target);
}

static aclError aclrt_stream_submit_full(struct aclrt_stream *s, struct aclrt_ring_slot **slot, uint32_t *position);

/*
 * A user thread waits for room in the full ring of a stream whose device
 * completes its tasks: its slots come back as the device's word moves,
 * which someone must fold in (aclrt_stream_fold wakes the launchers waiting
 * for room). The backend is asked for that (stream_await, the oldest task;
 * while launchers wait, its holder asks for it behind what it issues, see
 * backends/backend.h), then the wait is the ring's.
 */
static ACLRT_NOINLINE void aclrt_stream_wait_room_device(struct aclrt_stream *s, struct aclrt_ring_slot **slot,
                                                         uint32_t *position)
{
    aclrt_stream_await(s, aclrt_seq_read(&s->completed) + 1);
    *slot = aclrt_ring_wait_room(&s->ring, position);
}

/* Reserve a ring position; on a full ring, the slow path decides (back pressure, or TASK_FULL). */
ACLRT_INLINE aclError aclrt_stream_reserve_slot(struct aclrt_stream *s, struct aclrt_ring_slot **slot,
                                                uint32_t *position)
{
    *slot = aclrt_ring_reserve(&s->ring, position);
    if (ACLRT_UNLIKELY(*slot == NULL))
        return aclrt_stream_submit_full(s, slot, position);
    return ACL_SUCCESS;
}

/* Publish the record of a reserved position and make sure someone runs the stream. */
ACLRT_INLINE void aclrt_stream_publish(struct aclrt_stream *s, struct aclrt_ring_slot *slot, uint32_t position,
                                       const struct aclrt_task *task)
{
    aclrt_ring_commit(slot, position, task, aclrt_thread_tid());
    /* Task ids count from 1 in each life of the stream; position + 1 is the task's number mod 2^32 (ring.h). */
    aclrt_tls.last_task_id = position + 1u - (uint32_t)s->life_base;
    /* A stream held by its executor drains a burst as it comes: the next launches' slots, early. */
    if (aclrt_stream_state(aclrt_stream_kick(s)) == ACLRT_SCHED_RUNNING)
        aclrt_ring_prefetch_ahead(&s->ring, position);
}

/*
 * Reservations in two halves, for callers that must act between reserving
 * and committing (a reservation can be refused; after it, nothing can):
 * aclrt_stream_reserve hands out a record to fill and the task's ticket
 * (its ring position); aclrt_stream_commit (or _commit_task) publishes it.
 * The record is the calling thread's staging copy, not the ring slot (a
 * slot's last bytes hold its sequence number, which only atomics touch), so
 * a thread holds one reservation at a time.
 */
static _Thread_local struct aclrt_task aclrt_stream_staged;

/*
 * Reserve the next ring position and return the record to fill and the
 * task's number. A full ring: a user thread waits for room (back pressure,
 * never a dropped task), a runtime thread gets ACL_ERROR_RT_STREAM_TASK_FULL
 * (aclrt_stream_submit_full).
 */
ACLRT_INLINE aclError aclrt_stream_reserve(struct aclrt_stream *s, struct aclrt_task **slot, unsigned int *ticket,
                                           uint64_t *number)
{
    uint64_t base = number != NULL ? aclrt_seq_read(&s->completed) : 0; /* before our task exists */
    struct aclrt_ring_slot *ring_slot;
    uint32_t position;
    aclError rc = aclrt_stream_reserve_slot(s, &ring_slot, &position);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    *slot = &aclrt_stream_staged;
    *ticket = position;
    if (number != NULL)
        *number = aclrt_ring_extend(base, position + 1);
    return ACL_SUCCESS;
}

/* Publish the record aclrt_stream_reserve handed out. */
ACLRT_INLINE void aclrt_stream_commit(struct aclrt_stream *s, struct aclrt_task *slot, unsigned int ticket)
{
    aclrt_stream_publish(s, aclrt_ring_slot_of(&s->ring, ticket), ticket, slot);
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

/*
 * Is a capture under way on s? Relaxed: a hint; the capture lock decides
 * (a submission racing aclmdlRICaptureBegin or End may go either way, as
 * the two are concurrent). Written only under the capture lock.
 */
ACLRT_INLINE bool aclrt_stream_capturing(const struct aclrt_stream *s)
{
    return atomic_load_explicit(&s->capturing, memory_order_relaxed);
}

/* The origin of the capture s takes part in (under the capture lock, s capturing). */
ACLRT_INLINE struct aclrt_stream *aclrt_capture_origin(struct aclrt_stream *s)
{
    return s->capture.origin != NULL ? s->capture.origin : s;
}

/* Invalidate the capture s takes part in (under the capture lock). */
ACLRT_INLINE void aclrt_capture_invalidate(struct aclrt_stream *s)
{
    aclrt_capture_origin(s)->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
}

/* s takes part in a capture no more (under the capture lock). */
static void aclrt_capture_leave(struct aclrt_stream *s)
{
    s->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    s->capture.origin = NULL;
    s->capture.last = s->capture.rejoined = 0;
    s->capture.model = NULL;
    atomic_store_explicit(&s->capturing, false, memory_order_relaxed); /* see aclrt_stream_capturing */
}

/* s joins the capture of origin o (under the capture lock). False: out of memory. */
static bool aclrt_capture_join(struct aclrt_stream *o, struct aclrt_stream *s)
{
    struct aclrt_capture *oc = &o->capture;
    if (!aclrt_capture_grow((void **)&oc->joined, &oc->joined_cap, oc->njoined, sizeof *oc->joined, 0))
        return false;
    oc->joined[oc->njoined++] = s;
    s->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    s->capture.origin = o;
    s->capture.last = s->capture.rejoined = 0;
    atomic_store_explicit(&s->capturing, true, memory_order_relaxed); /* see aclrt_stream_capturing */
    return true;
}

/* Start a capture with s as its origin (under the capture lock; s takes part in none). */
static void aclrt_capture_start(struct aclrt_stream *s, uint32_t mode, struct aclrt_model *model)
{
    struct aclrt_capture *c = &s->capture;
    c->status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    c->origin = NULL;
    c->mode = mode;
    c->tid = aclrt_thread_tid();
    c->model = model;
    c->next_active = aclrt_capture_active;
    aclrt_capture_active = s;
    atomic_fetch_add_explicit(&aclrt_captures_under_way, 1, memory_order_relaxed); /* a hint (capture.h) */
    atomic_store_explicit(&s->capturing, true, memory_order_relaxed); /* see aclrt_stream_capturing */
}

/*
 * End the capture whose origin is o (under the capture lock): every stream
 * leaves it; its tasks go to the caller (*tasks, *count).
 */
static void aclrt_capture_finish(struct aclrt_stream *o, struct aclrt_task **tasks, uint32_t *count)
{
    struct aclrt_capture *c = &o->capture;
    for (uint32_t i = 0; i < c->njoined; i++)
        aclrt_capture_leave(c->joined[i]);
    free(c->joined);
    c->joined = NULL;
    c->njoined = c->joined_cap = 0;
    free(c->marks);
    c->marks = NULL;
    c->nmarks = c->marks_cap = 0;
    *tasks = c->tasks;
    *count = c->count;
    c->tasks = NULL;
    c->count = c->cap = 0;
    for (struct aclrt_stream **p = &aclrt_capture_active; *p != NULL; p = &(*p)->capture.next_active)
        if (*p == o) {
            *p = c->next_active;
            break;
        }
    c->next_active = NULL;
    atomic_fetch_sub_explicit(&aclrt_captures_under_way, 1, memory_order_relaxed); /* a hint (capture.h) */
    aclrt_capture_leave(o);
}

/* A joined stream of origin o that the origin has not joined back (under the capture lock); NULL: none. */
static struct aclrt_stream *aclrt_capture_unjoined(struct aclrt_stream *o)
{
    struct aclrt_capture *c = &o->capture;
    for (uint32_t i = 0; i < c->njoined; i++)
        if (c->joined[i]->capture.rejoined <= c->joined[i]->capture.last)
            return c->joined[i];
    return NULL;
}

/*
 * Throw away a capture s takes part in (s goes: a device reset, a context's
 * release, aclFinalize). An origin's tasks never run and its model stays,
 * unbuilt, until destroyed (model.h); a joined stream leaves, and the
 * capture, which would miss what it did, is invalidated.
 */
static void aclrt_stream_capture_discard(struct aclrt_stream *s)
{
    /* A forked child leaves the inherited captures alone: their lock may be held by a thread it does not have. */
    if (!aclrt_stream_capturing(s) || aclrt_runtime_orphaned())
        return;
    struct aclrt_task *tasks = NULL;
    uint32_t count = 0;
    aclrt_capture_lock();
    if (s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        struct aclrt_stream *o = s->capture.origin;
        if (o == NULL) {
            aclrt_capture_finish(s, &tasks, &count);
        } else {
            struct aclrt_capture *oc = &o->capture;
            for (uint32_t i = 0; i < oc->njoined; i++)
                if (oc->joined[i] == s) {
                    oc->joined[i] = oc->joined[--oc->njoined];
                    break;
                }
            oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
            aclrt_capture_leave(s);
        }
    }
    aclrt_capture_unlock();
    aclrt_capture_drop_tasks(tasks, count);
}

/*
 * A call that is unsafe while a capture is under way (a synchronous copy or
 * memset: work no capture sees, done at the call), as the runtime decides
 * it from the captures' modes and the calling thread's [src]: refused with
 * ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT. The captures of every context
 * count (the runtime looks at the current context's).
 */
static ACLRT_NOINLINE aclError aclrt_capture_check_unsafe_slow(const char *what)
{
    aclmdlRICaptureMode mine = aclrt_capture_thread_mode;
    if (mine == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return ACL_SUCCESS;
    /* The strictest mode of the captures under way, and of those this thread began (RELAXED + 1: none). */
    uint32_t any = ACL_MODEL_RI_CAPTURE_MODE_RELAXED + 1, own = ACL_MODEL_RI_CAPTURE_MODE_RELAXED + 1;
    uint32_t tid = aclrt_thread_tid();
    aclrt_capture_lock();
    for (struct aclrt_stream *o = aclrt_capture_active; o != NULL; o = o->capture.next_active) {
        if (o->capture.mode < any)
            any = o->capture.mode;
        if (o->capture.tid == tid && o->capture.mode < own)
            own = o->capture.mode;
    }
    aclrt_capture_unlock();
    bool refused = mine == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL
                       ? any == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || own == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL
                       : own <= ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    if (!refused)
        return ACL_SUCCESS;
    return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                      "%s is not allowed while a capture is under way in mode %s%s (this thread's mode: %s); "
                      "aclmdlRICaptureThreadExchangeMode(RELAXED) allows it on this thread",
                      what, any == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ? "GLOBAL" : "THREAD_LOCAL",
                      own <= ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL ? ", one begun on this thread" : "",
                      mine == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ? "GLOBAL" : "THREAD_LOCAL");
}

/* aclrt_capture_check_unsafe_slow behind one relaxed load when no capture is under way. */
ACLRT_INLINE aclError aclrt_capture_check_unsafe(const char *what)
{
    if (ACLRT_LIKELY(!aclrt_capture_any()))
        return ACL_SUCCESS;
    return aclrt_capture_check_unsafe_slow(what);
}

/*
 * A call that acts on a capturing stream other than by submitting a task
 * (a reset, a notify, a value op: what it does at the call would not be in
 * the model): refused, and the capture is invalidated. ACL_SUCCESS if the
 * capture ended meanwhile.
 */
static ACLRT_NOINLINE aclError aclrt_stream_refuse_captured(struct aclrt_stream *s)
{
    aclrt_capture_lock();
    uint32_t status = s->capture.status;
    if (status != ACL_MODEL_RI_CAPTURE_STATUS_NONE)
        aclrt_capture_invalidate(s);
    aclrt_capture_unlock();
    if (status == ACL_MODEL_RI_CAPTURE_STATUS_NONE)
        return ACL_SUCCESS;
    return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                      "stream %d is capturing a model (aclmdlRICaptureBegin) and this call cannot be captured; "
                      "the capture is invalidated (aclmdlRICaptureEnd returns ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED)",
                      (int)aclrt_slot_index(&s->hdr));
}

/*
 * The checks of a call that may act at the call instead of submitting a
 * task: the context's stop-on-failure state, and no capture under way.
 */
ACLRT_INLINE aclError aclrt_stream_check_context(struct aclrt_stream *s)
{
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s))) {
        aclError rc = aclrt_stream_refuse_captured(s);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return aclrt_stream_check_failure(s);
}

/* A capture call found s not capturing (the capture ended meanwhile): the call goes on as usual. */
#define ACLRT_CAPTURE_ENDED 1

/* The capture of s is invalidated: what a call that would add to it returns (under the lock, which it releases). */
static aclError aclrt_capture_refuse_invalidated(struct aclrt_stream *s)
{
    aclrt_capture_unlock();
    return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED,
                      "the capture stream %d takes part in was invalidated by an earlier call; end it "
                      "(aclmdlRICaptureEnd)",
                      (int)aclrt_slot_index(&s->hdr));
}

/*
 * Submission to a capturing stream: the record is copied into the capture
 * (it takes over what the task holds) and nothing runs; *number gets a
 * count the stream has reached, so a caller that waits for "its" task goes
 * on. ACLRT_CAPTURE_ENDED: the capture ended meanwhile, submit for real.
 */
static ACLRT_NOINLINE aclError aclrt_stream_capture_task(struct aclrt_stream *s, const struct aclrt_task *task,
                                                        uint64_t *number)
{
    aclrt_capture_lock();
    if (s->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        aclrt_capture_unlock();
        return ACLRT_CAPTURE_ENDED;
    }
    struct aclrt_stream *o = aclrt_capture_origin(s);
    struct aclrt_capture *oc = &o->capture;
    int id = (int)aclrt_slot_index(&s->hdr);
    if (oc->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        return aclrt_capture_refuse_invalidated(s);
    if (!aclrt_capture_kind_ok(task->kind->id)) {
        oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                          "stream %d is capturing a model and a %s task cannot be captured; the capture is "
                          "invalidated (aclmdlRICaptureEnd returns ACL_ERROR_RT_STREAM_CAPTURE_INVALIDATED)",
                          id, task->kind->name);
    }
    struct aclrt_task copy = *task;
    copy.tid = aclrt_thread_tid();
    if (!aclrt_capture_append(oc, &copy)) {
        oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "out of memory for a captured task of stream %d; the capture is invalidated", id);
    }
    if (o != s)
        s->capture.last = oc->count;
    aclrt_capture_unlock();
    if (number != NULL)
        *number = aclrt_seq_read(&s->completed);
    return ACL_SUCCESS;
}

/*
 * aclrtRecordEvent on a capturing stream: the event is not recorded; the
 * capture keeps a mark of it (the stream, the place), for the waits that
 * join streams to the capture. (A record the replay makes is a task:
 * event.h, ACLRT_TASK_MODEL_RECORD.)
 */
static ACLRT_NOINLINE aclError aclrt_capture_mark_event(struct aclrt_stream *s, struct aclrt_event *e,
                                                       uint32_t generation)
{
    aclrt_capture_lock();
    if (s->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_NONE) {
        aclrt_capture_unlock();
        return ACLRT_CAPTURE_ENDED;
    }
    struct aclrt_capture *oc = &aclrt_capture_origin(s)->capture;
    if (oc->status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        return aclrt_capture_refuse_invalidated(s);
    struct aclrt_capture_mark *m = NULL;
    for (uint32_t i = 0; i < oc->nmarks && m == NULL; i++)
        if (oc->marks[i].event == e && oc->marks[i].generation == generation)
            m = &oc->marks[i];
    if (m == NULL) {
        if (!aclrt_capture_grow((void **)&oc->marks, &oc->marks_cap, oc->nmarks, sizeof *oc->marks, 0)) {
            oc->status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
            aclrt_capture_unlock();
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                              "out of memory for an event recorded in a capture; the capture is invalidated");
        }
        m = &oc->marks[oc->nmarks++];
        m->event = e;
        m->generation = generation;
    }
    m->stream = s;
    m->pos = oc->count;
    aclrt_capture_unlock();
    return ACL_SUCCESS;
}

/*
 * A stream wait for an event while captures are under way (s capturing, or
 * any capture): an event recorded in a capture joins s to that capture, or
 * (the origin waiting) joins the stream it was recorded on back; within the
 * capture the wait is no task (the capture's order already follows it). A
 * capturing stream waiting for any other event is refused (and its capture
 * invalidated). ACLRT_CAPTURE_ENDED: no capture is involved, the wait goes
 * on as usual.
 */
static ACLRT_NOINLINE aclError aclrt_capture_wait_event(struct aclrt_stream *s, struct aclrt_event *e,
                                                       uint32_t generation)
{
    aclrt_capture_lock();
    struct aclrt_stream *o = NULL;
    const struct aclrt_capture_mark *m = NULL;
    for (struct aclrt_stream *a = aclrt_capture_active; a != NULL && m == NULL; a = a->capture.next_active)
        for (uint32_t i = 0; i < a->capture.nmarks; i++)
            if (a->capture.marks[i].event == e && a->capture.marks[i].generation == generation) {
                o = a;
                m = &a->capture.marks[i];
                break;
            }
    bool capturing = s->capture.status != ACL_MODEL_RI_CAPTURE_STATUS_NONE;
    int id = (int)aclrt_slot_index(&s->hdr);
    if (m == NULL) {
        if (capturing)
            aclrt_capture_invalidate(s);
        aclrt_capture_unlock();
        if (!capturing)
            return ACLRT_CAPTURE_ENDED;
        return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                          "stream %d is capturing a model and waits for an event not recorded in its capture (a "
                          "dependency on work outside the model); the capture is invalidated",
                          id);
    }
    if (capturing && aclrt_capture_origin(s) != o) {
        aclrt_capture_invalidate(s);
        aclrt_capture_unlock();
        return aclrt_fail(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                          "stream %d is capturing a model and waits for an event recorded in another capture; its "
                          "capture is invalidated",
                          id);
    }
    if (o->capture.status == ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED)
        return aclrt_capture_refuse_invalidated(s);
    if (!capturing) {
        if (s->ctx != o->ctx || !aclrt_capture_join(o, s)) {
            o->capture.status = ACL_MODEL_RI_CAPTURE_STATUS_INVALIDATED;
            aclrt_capture_unlock();
            return aclrt_fail(s->ctx != o->ctx ? ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT : ACL_ERROR_RT_MEMORY_ALLOCATION,
                              "stream %d cannot join the capture of stream %d (%s); the capture is invalidated", id,
                              (int)aclrt_slot_index(&o->hdr),
                              s->ctx != o->ctx ? "another context" : "out of memory");
        }
    } else if (s == o && m->stream != o && m->stream->capture.origin == o &&
               m->stream->capture.rejoined < m->pos + 1) {
        m->stream->capture.rejoined = m->pos + 1;
    }
    aclrt_capture_unlock();
    return ACL_SUCCESS;
}

/* Publish `task` as the reservation aclrt_stream_reserve handed out (`slot`, `ticket`). */
ACLRT_INLINE void aclrt_stream_commit_task(struct aclrt_stream *s, struct aclrt_task *slot, unsigned int ticket,
                                           const struct aclrt_task *task)
{
    (void)slot;
    aclrt_stream_publish(s, aclrt_ring_slot_of(&s->ring, ticket), ticket, task);
}

/* Submit one task record: the launch fast path. */
ACLRT_INLINE aclError aclrt_stream_submit(struct aclrt_stream *s, const struct aclrt_task *task, uint64_t *number)
{
    aclError rc;
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s)) &&
        (rc = aclrt_stream_capture_task(s, task, number)) != ACLRT_CAPTURE_ENDED)
        return rc;
    rc = aclrt_stream_check_failure(s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    uint64_t base = number != NULL ? aclrt_seq_read(&s->completed) : 0; /* before our task exists */
    struct aclrt_ring_slot *slot;
    uint32_t position;
    rc = aclrt_stream_reserve_slot(s, &slot, &position);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    if (number != NULL)
        *number = aclrt_ring_extend(base, position + 1);
    aclrt_stream_publish(s, slot, position, task);
    return ACL_SUCCESS;
}

/*
 * Slow path of a reservation: the ring is full.
 *
 * A user thread waits for room (back pressure): the stream's executor is
 * independent of it and makes room.
 *
 * A runtime thread (one running a task of some stream: a host function or
 * host kernel on an executor, or any task an embedder's progress call runs)
 * never waits: ACL_ERROR_RT_STREAM_TASK_FULL at once. Its own stream cannot
 * move while it waits, and whatever would make room may itself be waiting
 * for it: two tasks launching into each other's full streams, or a chain of
 * streams whose executors all wait in launches, would deadlock with nothing
 * to report it. As on a device, where a launch from device-side work cannot
 * hold the queue it runs from, such a launch fails and the task decides
 * (retry later, launch elsewhere, or give up).
 */
static ACLRT_NOINLINE aclError aclrt_stream_submit_full(struct aclrt_stream *s, struct aclrt_ring_slot **slot,
                                                       uint32_t *position)
{
    /* A device's word may say that tasks holding slots are complete: fold it in and look again. */
    if (aclrt_stream_device_word(s) != NULL) {
        aclrt_stream_fold(s);
        if ((*slot = aclrt_ring_reserve(&s->ring, position)) != NULL)
            return ACL_SUCCESS;
    }
    struct aclrt_stream *running = aclrt_running_stream();
    if (running == s)
        return aclrt_fail(ACL_ERROR_RT_STREAM_TASK_FULL,
                          "the stream's task ring is full (%u tasks) and this call comes from a task of the same "
                          "stream, which would wait for itself",
                          aclrt_ring_capacity(&s->ring));
    if (running != NULL)
        return aclrt_fail(ACL_ERROR_RT_STREAM_TASK_FULL,
                          "the stream's task ring is full (%u tasks) and this call comes from a task of stream %d "
                          "on a runtime thread, which never waits for room (it could wait for itself)",
                          aclrt_ring_capacity(&s->ring), (int)aclrt_slot_index(&running->hdr));
    if (aclrt_stream_device_word(s) != NULL) {
        aclrt_stream_wait_room_device(s, slot, position);
        return ACL_SUCCESS;
    }
    *slot = aclrt_ring_wait_room(&s->ring, position);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_STREAM_H */
