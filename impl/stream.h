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
#define ACLRT_SCHED_FLAGS (ACLRT_SCHED_DYING | ACLRT_SCHED_DISCARD | ACLRT_SCHED_STOPPED)
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
    bool has_current;
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
};

ACLRT_INLINE struct aclrt_stream *aclrt_stream_lookup(const void *handle)
{
    return (struct aclrt_stream *)aclrt_table_lookup(&aclrt_rt.streams, handle);
}

ACLRT_INLINE void *aclrt_stream_handle(const struct aclrt_stream *s)
{
    return aclrt_slot_handle(&aclrt_rt.streams, &s->hdr);
}

/*
 * Resolve a stream argument: NULL is the current context's default stream.
 * With `same_context`, the stream must belong to the caller's current
 * context (ACL_ERROR_RT_STREAM_CONTEXT), as the runtime requires for
 * submissions.
 */
ACLRT_INLINE aclError aclrt_stream_resolve(aclrtStream handle, bool same_context, struct aclrt_stream **out)
{
    struct aclrt_context *ctx = NULL;
    *out = NULL;
    if (handle == NULL || same_context) {
        aclError rc = aclrt_current_context(&ctx);
        if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
            return rc;
        if (handle == NULL) {
            *out = ctx->default_stream;
            return ACL_SUCCESS;
        }
    }
    struct aclrt_stream *s = aclrt_stream_lookup(handle);
    if (ACLRT_UNLIKELY(s == NULL))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "stream %p is not a live stream (destroyed, stale or garbage)",
                          handle);
    if (ACLRT_UNLIKELY(same_context && s->ctx != ctx))
        return aclrt_fail(ACL_ERROR_RT_STREAM_CONTEXT,
                          "stream %p belongs to another context than the calling thread's current one", handle);
    *out = s;
    return ACL_SUCCESS;
}

/* Tasks accepted so far: completed + what the ring holds (see ring.h). */
ACLRT_INLINE uint64_t aclrt_stream_submitted(const struct aclrt_stream *s)
{
    /* completed first: it is <= the committed position at any later moment. */
    uint64_t base = aclrt_seq_read(&s->completed);
    return aclrt_ring_extend(base, aclrt_ring_committed(&s->ring));
}

ACLRT_INLINE bool aclrt_stream_idle(const struct aclrt_stream *s)
{
    uint64_t done = aclrt_seq_read(&s->completed);
    return aclrt_ring_extend(done, aclrt_ring_committed(&s->ring)) == done;
}

/*
 * Would a task submitted now run at once, in stream order? Nothing pending,
 * and the stream not stopped (aclrtStreamStop: new tasks stay queued). The
 * calls that act at the call on an idle stream (records, resets, waits that
 * are already satisfied) ask this instead of submitting a task.
 */
ACLRT_INLINE bool aclrt_stream_acts_now(const struct aclrt_stream *s)
{
    return aclrt_stream_idle(s) &&
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
 * the fast path. Seq_cst, after the ring reservation (a locked RMW, see
 * aclrt_ring_reserve): pairs with the executor's seq_cst CAS to IDLE followed
 * by its look at the reserved position (aclrt_stream_release). Either this
 * load sees IDLE and schedules the stream, or the executor sees the task.
 */
ACLRT_INLINE void aclrt_stream_kick(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_seq_cst);
    if (ACLRT_UNLIKELY(aclrt_stream_state(w) == ACLRT_SCHED_IDLE))
        aclrt_stream_kick_slow(s, w);
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

/* Count `n` more tasks as done and wake the streams parked on us that are now due. */
ACLRT_INLINE void aclrt_stream_complete(struct aclrt_stream *s, uint64_t n)
{
    aclrt_counter_advance(&s->completed, &s->waiters, n);
}

static aclError aclrt_stream_submit_full(struct aclrt_stream *s, struct aclrt_task **slot, unsigned int *ticket);
static void aclrt_report_stream_gone(struct aclrt_stream *s); /* report.h */

/*
 * Reserve the next ring slot (waiting for space if the ring is full: back
 * pressure, never a dropped task) and return the task's number. The caller
 * writes the record and calls aclrt_stream_commit.
 */
ACLRT_INLINE aclError aclrt_stream_reserve(struct aclrt_stream *s, struct aclrt_task **slot, unsigned int *ticket,
                                           uint64_t *number)
{
    uint64_t base = number != NULL ? aclrt_seq_read(&s->completed) : 0; /* before our task exists */
    *slot = aclrt_ring_reserve(&s->ring, ticket);
    if (ACLRT_UNLIKELY(*slot == NULL)) {
        aclError rc = aclrt_stream_submit_full(s, slot, ticket);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    if (number != NULL)
        *number = aclrt_ring_extend(base, *ticket + 1);
    return ACL_SUCCESS;
}

ACLRT_INLINE void aclrt_stream_commit(struct aclrt_stream *s, struct aclrt_task *slot, unsigned int ticket)
{
    aclrt_ring_commit(&s->ring, slot, ticket);
    aclrt_stream_kick(s);
}

/* The context's stop-on-failure state, as a submission sees it. */
ACLRT_INLINE aclError aclrt_stream_check_context(const struct aclrt_stream *s)
{
    int failure = atomic_load_explicit(&s->ctx->failure, memory_order_relaxed);
    if (ACLRT_UNLIKELY(failure != 0))
        return aclrt_fail(failure, "the context stopped after a task failed (stop-on-failure mode); "
                                   "no new tasks are accepted");
    return ACL_SUCCESS;
}

/*
 * Write `task` into a reserved slot and commit it: the second half of a
 * submission, for callers that must act between reserving and committing
 * (a reservation can be refused; after it, nothing can).
 */
ACLRT_INLINE void aclrt_stream_commit_task(struct aclrt_stream *s, struct aclrt_task *slot, unsigned int ticket,
                                           const struct aclrt_task *task)
{
    *slot = *task;
    slot->tid = aclrt_thread_tid();
    /* Task ids count from 1 in each life of the stream; ticket + 1 is the task's number mod 2^32 (ring.h). */
    aclrt_tls.last_task_id = ticket + 1u - (uint32_t)s->life_base;
    aclrt_stream_commit(s, slot, ticket);
}

/*
 * The stream a call submits to: resolved in the caller's current context,
 * whose stop-on-failure state must still accept work. For calls with an
 * idle-stream fast path that acts at the call instead of going through
 * aclrt_stream_submit (which checks the context itself).
 */
ACLRT_INLINE aclError aclrt_stream_resolve_for_submit(aclrtStream handle, struct aclrt_stream **out)
{
    aclError rc = aclrt_stream_resolve(handle, true, out);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    return aclrt_stream_check_context(*out);
}

/* Submit one task record: the launch fast path. */
ACLRT_INLINE aclError aclrt_stream_submit(struct aclrt_stream *s, const struct aclrt_task *task, uint64_t *number)
{
    aclError rc = aclrt_stream_check_context(s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_task *slot;
    unsigned int ticket;
    rc = aclrt_stream_reserve(s, &slot, &ticket, number);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    aclrt_stream_commit_task(s, slot, ticket, task);
    return ACL_SUCCESS;
}

/* Slow path of a reservation: the ring is full; wait for the executor to make room. */
static ACLRT_NOINLINE aclError aclrt_stream_submit_full(struct aclrt_stream *s, struct aclrt_task **slot,
                                                       unsigned int *ticket)
{
    if (aclrt_running_stream() == s)
        return aclrt_fail(ACL_ERROR_RT_STREAM_TASK_FULL,
                          "the stream's task ring is full (%u tasks) and this call comes from a task of the same "
                          "stream, which would wait for itself",
                          aclrt_ring_capacity(&s->ring));
    for (;;) {
        uint64_t done = aclrt_seq_read(&s->completed);
        *slot = aclrt_ring_reserve(&s->ring, ticket);
        if (*slot != NULL)
            return ACL_SUCCESS;
        /* Any completion frees a slot; a short deadline re-checks for races with the pop. */
        aclrt_seq_wait_until(&s->completed, done + 1, aclrt_deadline_after(ACLRT_NS_PER_MS), 2000, NULL, NULL);
    }
}

/* The abort epoch (odd while an abort runs): a synchronizer reads it before it waits. */
ACLRT_INLINE uint32_t aclrt_stream_abort_epoch(const struct aclrt_stream *s)
{
    return atomic_load_explicit(&s->aborts, memory_order_acquire);
}

/*
 * Did an abort overlap a wait that read `epoch` when it began: running then
 * (odd), begun since (changed), or discarding now (the flag is set before the
 * epoch moves, so a waiter woken by the discards sees one or the other)?
 */
ACLRT_INLINE bool aclrt_stream_aborted_since(const struct aclrt_stream *s, uint32_t epoch)
{
    if ((epoch & 1u) || atomic_load_explicit(&s->aborts, memory_order_acquire) != epoch)
        return true;
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    return (w & (ACLRT_SCHED_DISCARD | ACLRT_SCHED_DYING)) == ACLRT_SCHED_DISCARD;
}

/* Checked while a synchronizer waits: a stopped stream will not get there. */
static int aclrt_stream_stopped_check(void *data)
{
    const struct aclrt_stream *s = (const struct aclrt_stream *)data;
    /* Relaxed: a reason to stop waiting, read again at every wake-up (aclrtStreamStop wakes the sleepers). */
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    /* Stopped, and not being discarded (a destroy of a stopped stream discards its tasks: they will count). */
    if ((w & (ACLRT_SCHED_STOPPED | ACLRT_SCHED_DISCARD)) == ACLRT_SCHED_STOPPED)
        return ACL_ERROR_RT_TASK_ABORT_STOP;
    return 0;
}

/*
 * Wait until the stream's completed count reaches `target`. Timeout in ms
 * (-1: forever). Returns ACL_SUCCESS, `timeout_code`, ACL_ERROR_RT_STREAM_ABORT
 * (an abort discarded the work meanwhile) or ACL_ERROR_RT_TASK_ABORT_STOP
 * (the stream is stopped short of it); no message: aclrt_stream_wait_fail
 * words it.
 */
ACLRT_INTERNAL aclError aclrt_stream_wait_count(struct aclrt_stream *s, uint64_t target, int32_t timeout_ms,
                                                aclError timeout_code)
{
    if (ACLRT_LIKELY(aclrt_seq_reached(&s->completed, target)))
        return ACL_SUCCESS;
    uint32_t epoch = aclrt_stream_abort_epoch(s);
    uint64_t deadline = timeout_ms < 0 ? ACLRT_NO_DEADLINE
                                       : aclrt_deadline_after((uint64_t)timeout_ms * ACLRT_NS_PER_MS);
    uint64_t spin = aclrt_rt.config.spin_ns;
    if (s->flags & ACL_STREAM_FAST_SYNC)
        spin *= 50; /* "poll actively": a long spin before sleeping */
    int r = aclrt_seq_wait_until(&s->completed, target, deadline, spin, aclrt_stream_stopped_check, s);
    if (r != 0 && r != ACLRT_SEQ_TIMEOUT)
        return r; /* stopped */
    if (aclrt_stream_aborted_since(s, epoch))
        return ACL_ERROR_RT_STREAM_ABORT; /* even when it also timed out: the wait was active during an abort */
    return r == ACLRT_SEQ_TIMEOUT ? timeout_code : ACL_SUCCESS;
}

/* Word the failure of a wait on s (aclrt_stream_wait_count's codes); `what` names what was waited for. */
ACLRT_INTERNAL aclError aclrt_stream_wait_fail(const struct aclrt_stream *s, aclError rc, const char *what,
                                               int32_t timeout_ms)
{
    int id = (int)aclrt_slot_index(&s->hdr);
    if (rc == ACL_ERROR_RT_STREAM_ABORT)
        return aclrt_fail(rc, "%s: stream %d was aborted while this call waited", what, id);
    if (rc == ACL_ERROR_RT_TASK_ABORT_STOP)
        return aclrt_fail(rc, "%s: stream %d is stopped (aclrtStreamStop) short of the work waited for", what, id);
    return aclrt_fail(rc, "%s did not finish within %d ms", what, (int)timeout_ms);
}

/* The error a synchronize reports: the context's stop, or the stream's first failure (cleared). */
ACLRT_INTERNAL aclError aclrt_stream_take_error(struct aclrt_stream *s)
{
    int failure = atomic_load_explicit(&s->ctx->failure, memory_order_acquire);
    if (failure != 0)
        return failure;
    if (atomic_load_explicit(&s->error, memory_order_relaxed) == 0)
        return ACL_SUCCESS;
    return atomic_exchange_explicit(&s->error, 0, memory_order_acq_rel);
}

/* aclrtSynchronizeStream(WithTimeout): wait for everything submitted so far. */
ACLRT_INTERNAL aclError aclrt_stream_synchronize(struct aclrt_stream *s, int32_t timeout_ms)
{
    if (ACLRT_UNLIKELY(aclrt_running_stream() == s))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "a task of this stream cannot synchronize the stream it runs on (it would wait for itself)");
    if (s->flags & (ACL_STREAM_PERSISTENT | ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_CPU_SCHEDULE))
        return ACL_SUCCESS;
    uint64_t target = aclrt_stream_submitted(s);
    aclError rc = aclrt_stream_wait_count(s, target, timeout_ms, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return aclrt_stream_wait_fail(s, rc, "the stream", timeout_ms);
    aclError err = aclrt_stream_take_error(s);
    if (err != ACL_SUCCESS)
        return aclrt_fail(err, "a task of stream %d failed", (int)aclrt_slot_index(&s->hdr));
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Creation and destruction
 * ------------------------------------------------------------------------ */

ACLRT_INTERNAL aclError aclrt_stream_create_in(struct aclrt_context *ctx, uint32_t priority, uint32_t flags,
                                               bool is_default, struct aclrt_stream **out, void **out_handle)
{
    struct aclrt_device *dev = ctx->device;
    uint32_t in_use = atomic_fetch_add_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
    if (in_use >= aclrt_rt.config.max_streams) {
        atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "device %u has no stream left (limit %u, default streams included)",
                          dev->id, aclrt_rt.config.max_streams);
    }
    struct aclrt_stream *s = (struct aclrt_stream *)aclrt_table_alloc(&aclrt_rt.streams);
    if (s == NULL) {
        atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a stream");
    }
    uint64_t done = aclrt_seq_read(&s->completed); /* continues from the slot's previous life */
    if (!aclrt_ring_init(&s->ring, aclrt_rt.config.ring_bytes, done)) {
        aclrt_table_free(&aclrt_rt.streams, &s->hdr);
        atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a stream's task ring (%u bytes)",
                          aclrt_rt.config.ring_bytes);
    }
    s->ctx = ctx;
    s->device = dev;
    s->flags = flags;
    s->priority = priority > ACLRT_STREAM_PRIORITY_LEAST ? ACLRT_STREAM_PRIORITY_LEAST : priority;
    s->is_default = is_default;
    s->life_base = done;
    s->has_current = false;
    s->issued = done;
    atomic_store_explicit(&s->external_pending, 0, memory_order_relaxed);
    uint64_t seq = aclrt_stream_park_seq(atomic_load_explicit(&s->sched, memory_order_relaxed));
    atomic_store_explicit(&s->sched, ((seq + 1) << ACLRT_SCHED_SEQ_SHIFT) | ACLRT_SCHED_IDLE, memory_order_relaxed);
    /* Reset the list (a fresh slot is zeroed); notes left from a previous life are stale: wake and free them. */
    aclrt_park_list_wake(&s->waiters, UINT64_MAX);
    atomic_store_explicit(&s->error, 0, memory_order_relaxed);
    atomic_store_explicit(&s->failure_mode, ACL_CONTINUE_ON_FAILURE, memory_order_relaxed);
    atomic_store_explicit(&s->overflow_switch, 0, memory_order_relaxed);
    atomic_store_explicit(&s->user_custom_tag, 0, memory_order_relaxed);
    atomic_store_explicit(&s->cache_op_info, 0, memory_order_relaxed);
    atomic_store_explicit(&s->aborts, 0, memory_order_relaxed);
    atomic_store_explicit(&s->discard_until, 0, memory_order_relaxed);
    atomic_store_explicit(&s->report_threads[0], NULL, memory_order_relaxed);
    atomic_store_explicit(&s->report_threads[1], NULL, memory_order_relaxed);
    s->backend_state = NULL;
    if (aclrt_rt.backend->stream_create != NULL) {
        aclError rc = aclrt_rt.backend->stream_create(s);
        if (rc != ACL_SUCCESS) {
            aclrt_table_free(&aclrt_rt.streams, &s->hdr);
            atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
            return aclrt_fail(rc, "the %s backend could not create a stream", aclrt_rt.backend->name);
        }
    }
    *out_handle = aclrt_table_publish(&aclrt_rt.streams, &s->hdr); /* release: the fields above */
    *out = s;
    aclrt_fire_stream_state(*out_handle, ACL_RT_STREAM_STATE_CREATE_POST);
    return ACL_SUCCESS;
}

/* The slot goes back to the table; the caller held the stream last. */
ACLRT_INTERNAL void aclrt_stream_free(struct aclrt_stream *s)
{
    /* Everything submitted is done or discarded, so every note on us is due. */
    aclrt_park_list_wake(&s->waiters, aclrt_seq_read(&s->completed));
    if (aclrt_rt.backend->stream_destroy != NULL)
        aclrt_rt.backend->stream_destroy(s);
    aclrt_table_free(&aclrt_rt.streams, &s->hdr);
}

/*
 * Destroy: the handle dies at once; the slot is freed by whoever holds the
 * stream last (this thread if it is idle, else its executor when it lets
 * go). Without `force`, the stream's work is waited for first; with it, the
 * tasks that have not started are discarded (counted as done, so nothing
 * waiting on them hangs).
 */
ACLRT_INTERNAL void aclrt_stream_destroy(struct aclrt_stream *s, bool force)
{
    aclrt_fire_stream_state(aclrt_stream_handle(s), ACL_RT_STREAM_STATE_DESTROY_PRE);
    /* A stopped stream would never finish its work: its tasks are discarded, as with force. */
    if (atomic_load_explicit(&s->sched, memory_order_acquire) & ACLRT_SCHED_STOPPED)
        force = true;
    if (!force)
        aclrt_stream_wait_count(s, aclrt_stream_submitted(s), -1, ACL_SUCCESS);
    aclrt_report_stream_gone(s);
    aclrt_table_retire(&s->hdr);
    /*
     * The quota counts live handles, so a create right after a destroy
     * succeeds even while an executor still holds the dying stream (the
     * table itself grows past the quota for such slots).
     */
    atomic_fetch_sub_explicit(&s->device->streams_in_use, 1, memory_order_relaxed);
    /*
     * DYING on an idle stream makes it ours to free (it is never scheduled
     * again); otherwise its executor, or the next one, sees DYING and frees
     * it. A parked stream is woken only to discard its tasks (force); without
     * force the park it is in ends as any other.
     */
    /* Release: the executor that sees DISCARD (acquire on the schedule word) sees the bound too. */
    if (force)
        atomic_store_explicit(&s->discard_until, UINT64_MAX, memory_order_release);
    uint64_t dying = ACLRT_SCHED_DYING | (force ? ACLRT_SCHED_DISCARD : 0);
    if (aclrt_stream_change_flags(s, dying, 0, force) != ACLRT_SCHED_IDLE)
        return;
    if (!aclrt_stream_idle(s)) { /* tasks submitted after the wait (a racing launch) */
        uint64_t n = aclrt_stream_submitted(s) - aclrt_seq_read(&s->completed);
        struct aclrt_task t;
        while (aclrt_ring_pop(&s->ring, &t))
            ;
        aclrt_stream_complete(s, n);
    }
    aclrt_stream_free(s);
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

static aclError aclrt_stream_create_api(aclrtStream *stream, uint32_t priority, uint32_t flags)
{
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream (output) is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    flags &= ACLRT_STREAM_KNOWN_FLAGS; /* unknown bits are dropped, as the runtime does */
    if (flags & (ACL_STREAM_PERSISTENT | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "stream flag 0x%x (persistent / CPU-schedule / device-only streams) is not supported by the "
                          "%s backend",
                          flags & (ACL_STREAM_PERSISTENT | ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY),
                          aclrt_rt.backend->name);
    struct aclrt_stream *s;
    return aclrt_stream_create_in(ctx, priority, flags, false, &s, stream);
}

ACLRT_API aclError aclrtCreateStream(aclrtStream *stream)
{
    ACLRT_ENTER();
    return aclrt_stream_create_api(stream, ACLRT_STREAM_PRIORITY_GREATEST, 0);
}

ACLRT_API aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    ACLRT_ENTER();
    return aclrt_stream_create_api(stream, priority, flag);
}

ACLRT_API aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_stream_create_api(stream, ACLRT_STREAM_PRIORITY_GREATEST, 0);
    return aclrt_stream_create_api(stream, handle->priority, (uint32_t)handle->flag);
}

ACLRT_API aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    ACLRT_ENTER();
    aclrtStreamConfigHandle *h = (aclrtStreamConfigHandle *)calloc(1, sizeof *h);
    if (h == NULL)
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a stream configuration");
    return h;
}

ACLRT_API aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                           const void *attrValue, size_t valueSize)
{
    ACLRT_ENTER();
    if (handle == NULL || attrValue == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "attrValue");
    size_t want;
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR: want = sizeof(void *); break;
    case ACL_RT_STREAM_WORK_SIZE:
    case ACL_RT_STREAM_FLAG: want = sizeof(size_t); break;
    case ACL_RT_STREAM_PRIORITY: want = sizeof(uint32_t); break;
    default: return aclrt_fail(ACL_ERROR_INVALID_PARAM, "unknown stream configuration attribute %d", (int)attr);
    }
    if (valueSize != want)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attribute %d takes a value of %zu bytes, not %zu", (int)attr, want,
                          valueSize);
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR: memcpy(&handle->workptr, attrValue, want); break;
    case ACL_RT_STREAM_WORK_SIZE: memcpy(&handle->workSize, attrValue, want); break;
    case ACL_RT_STREAM_FLAG: memcpy(&handle->flag, attrValue, want); break;
    case ACL_RT_STREAM_PRIORITY: {
        uint32_t p;
        memcpy(&p, attrValue, want);
        if (p > ACLRT_STREAM_PRIORITY_LEAST)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "priority %u is outside [0, 7]", p);
        handle->priority = p;
        break;
    }
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    free(handle);
    return ACL_SUCCESS;
}

static aclError aclrt_stream_destroy_api(aclrtStream stream, bool force)
{
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be destroyed)");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (s->is_default)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "stream %p is a default stream; it is released by aclrtResetDevice or aclrtDestroyContext",
                          stream);
    if (aclrt_running_stream() == s)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot destroy the stream it runs on");
    aclrt_stream_destroy(s, force);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyStream(aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_stream_destroy_api(stream, false);
}

ACLRT_API aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_stream_destroy_api(stream, true);
}

ACLRT_API aclError aclrtSynchronizeStream(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_stream_synchronize(s, -1);
}

ACLRT_API aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    ACLRT_ENTER();
    if (timeout == 0 || timeout < -1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 waits forever, > 0 is a limit)",
                          (int)timeout);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_stream_synchronize(s, timeout);
}

ACLRT_API aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    ACLRT_ENTER();
    if (status == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "status (output) is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *status = aclrt_stream_idle(s) ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    ACLRT_ENTER();
    if (streamId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "streamId (output) is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *streamId = (int32_t)aclrt_slot_index(&s->hdr);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    ACLRT_ENTER();
    if (priority == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "priority (output) is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *priority = s->priority;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    ACLRT_ENTER();
    if (flags == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags (output) is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *flags = s->flags;
    return ACL_SUCCESS;
}

static aclError aclrt_stream_set_failure_mode(struct aclrt_stream *s, uint64_t mode)
{
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "failure mode %llu is neither ACL_CONTINUE_ON_FAILURE nor "
                                                      "ACL_STOP_ON_FAILURE",
                          (unsigned long long)mode);
    atomic_store_explicit(&s->failure_mode, mode, memory_order_relaxed);
    /* One stop-on-failure stream makes the whole context stop on failure. */
    if (mode == ACL_STOP_ON_FAILURE)
        atomic_store_explicit(&s->ctx->stop_on_failure, true, memory_order_release);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_stream_set_failure_mode(s, mode);
}

ACLRT_API aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                           aclrtStreamAttrValue *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE: return aclrt_stream_set_failure_mode(s, value->failureMode);
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        atomic_store_explicit(&s->overflow_switch, value->overflowSwitch, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        atomic_store_explicit(&s->user_custom_tag, value->userCustomTag, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
        atomic_store_explicit(&s->cache_op_info, value->cacheOpInfoSwitch, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_PRIORITY:
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "a stream's priority is set at creation (aclrtCreateStreamWithConfig)");
    }
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown stream attribute %d", (int)stmAttrType);
}

ACLRT_API aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                           aclrtStreamAttrValue *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    memset(value, 0, sizeof *value);
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
        value->failureMode = atomic_load_explicit(&s->failure_mode, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        value->overflowSwitch = atomic_load_explicit(&s->overflow_switch, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        value->userCustomTag = atomic_load_explicit(&s->user_custom_tag, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
        value->cacheOpInfoSwitch = atomic_load_explicit(&s->cache_op_info, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_PRIORITY: value->streamPriority = s->priority; return ACL_SUCCESS;
    }
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown stream attribute %d", (int)stmAttrType);
}

ACLRT_API aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    ACLRT_ENTER();
    if (leastPriority != NULL)
        *leastPriority = (int32_t)ACLRT_STREAM_PRIORITY_LEAST;
    if (greatestPriority != NULL)
        *greatestPriority = (int32_t)ACLRT_STREAM_PRIORITY_GREATEST;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    ACLRT_ENTER();
    if (streamCount == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "streamCount (output) is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t used = atomic_load_explicit(&ctx->device->streams_in_use, memory_order_relaxed);
    *streamCount = used >= aclrt_rt.config.max_streams ? 0 : aclrt_rt.config.max_streams - used;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_STREAM_H */
