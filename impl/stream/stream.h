/*
 * impl/stream/stream.h - streams: an ordered queue of tasks and the count of the
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
#ifndef ACLRT_IMPL_STREAM_STREAM_H
#define ACLRT_IMPL_STREAM_STREAM_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../core/thread.h"
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
static bool aclrt_stream_unpark(struct aclrt_stream *s, uint64_t park_seq)
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

#endif /* ACLRT_IMPL_STREAM_STREAM_H */
