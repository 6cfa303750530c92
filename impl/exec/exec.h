/*
 * impl/exec/exec.h - running a stream: the core's side of execution, which every
 * backend drives through the entry points of backends/backend.h.
 *
 * A backend is told that a stream has work (its schedule hook). It takes
 * the stream (aclrt_stream_take: READY -> RUNNING; one thread holds a
 * stream at a time) and runs a bounded number of its tasks on the calling
 * thread (aclrt_stream_run): pop a task, run it (its kind's run, or the
 * backend's override), count it done, wake what waited for it. When the
 * ring is empty the holder either keeps the stream for a moment (policy of
 * the backend) or lets it go (aclrt_stream_release); a stream that used its
 * budget while others wait goes back to the backend (aclrt_stream_yield).
 *
 * Three counts per stream: submitted (the ring), issued (the last task
 * taken off the ring: running, or handed off), completed (done). Running a
 * task and the task being done are two events: a kind's run either finishes
 * the task (returns its code), blocks (the stream parks, holding no thread,
 * and the task runs again when the condition may have changed), or issues
 * it (ACLRT_TASK_ISSUED: it finishes later, when some thread calls
 * aclrt_stream_complete_to). Unless the backend issues ahead (its device
 * queue keeps order), a stream with an issued task parks until the task is
 * complete before it runs the next one.
 *
 * A failing task (a host kernel returning non-zero, a wait that timed out)
 * is reported to the exception callbacks (exception.h), puts its stream in
 * the error state (the next synchronize returns the code) and, if the
 * context stops on failure, stops the context: later tasks of every stream
 * of the context are discarded (counted as done, not run).
 *
 * A stream with the STOPPED flag (aclrtStreamStop) runs no further task: at
 * the next task boundary it is parked without a note, so only
 * aclrtStreamAbort or a destroy (which discard its tasks) make it run again.
 */
#ifndef ACLRT_IMPL_EXEC_EXEC_H
#define ACLRT_IMPL_EXEC_EXEC_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/park.h"
#include "../task/ring.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_complete.h"
#include "../stream/stream_life.h"
#include "../sync/event.h"
#include "../prof/prof_trace.h"
#include "callback.h"
#include "exception.h"

/* Has the condition a block names come true (or its deadline passed)? */
ACLRT_INLINE bool aclrt_block_over(const struct aclrt_block *b)
{
    if (b->seq != NULL && aclrt_seq_reached(b->seq, b->key))
        return true;
    if (b->event.event != NULL) {
        struct aclrt_event_view v;
        aclrt_event_read(b->event.event, &v);
        if (v.generation != b->event.generation || v.records != b->event.record)
            return true;
    }
    return b->deadline_ns != ACLRT_NO_DEADLINE && aclrt_now_ns() >= b->deadline_ns;
}

/*
 * Run one task: its kind's run, or the backend's override of that kind.
 * Returns ACL_SUCCESS, an error code (the task failed), or
 * ACLRT_TASK_BLOCKED with `blk` saying what it waits for.
 */
ACLRT_INLINE int aclrt_task_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    const struct aclrt_task_kind *k = aclrt_rt.overrides[t->kind->id];
    return (k != NULL ? k : t->kind)->run(s, t, blk);
}

/* aclrt_task_run with the task recorded for a profiling session (prof_trace.h): off the run path's line. */
static ACLRT_NOINLINE int aclrt_task_run_profiled(struct aclrt_stream *s, struct aclrt_task *t,
                                                  struct aclrt_block *blk)
{
    /*
     * Seq_cst, both: pairs with aclrt_prof_stop_locked's store of `on` and
     * load of `busy` (prof.h). Either the stop sees this task busy and waits
     * for its record, or this task sees the session off and records nothing:
     * a task whose completion a synchronize saw (an issued one completes
     * before its run returns) is in the trace the stop writes.
     */
    atomic_fetch_add_explicit(&aclrt_prof.busy, 1, memory_order_seq_cst);
    if (!atomic_load_explicit(&aclrt_prof.on, memory_order_seq_cst)) {
        atomic_fetch_sub_explicit(&aclrt_prof.busy, 1, memory_order_release);
        return aclrt_task_run(s, t, blk);
    }
    uint64_t begin = aclrt_prof_task_begin(s);
    int rc = aclrt_task_run(s, t, blk);
    if (begin != 0 && rc != ACLRT_TASK_BLOCKED)
        aclrt_prof_task_end(s, t, begin, rc);
    atomic_fetch_sub_explicit(&aclrt_prof.busy, 1, memory_order_release);
    return rc;
}

/*
 * Task number `number` of s, submitted by thread `tid`, failed with `code`:
 * exception callbacks, the stream's error state, the context's stop. The
 * holder calls it for tasks that fail on its thread; a backend or an
 * embedder for issued ones, before completing them.
 */
ACLRT_INTERNAL void aclrt_stream_fail(struct aclrt_stream *s, uint32_t tid, uint64_t number, int code)
{
    aclrt_exception_report(s, tid, number, code);
    int none = 0;
    atomic_compare_exchange_strong_explicit(&s->error, &none, code, memory_order_release, memory_order_relaxed);
    if (atomic_load_explicit(&s->ctx->stop_on_failure, memory_order_acquire)) {
        none = 0;
        atomic_compare_exchange_strong_explicit(&s->ctx->failure, &none, code, memory_order_release,
                                                memory_order_relaxed);
    }
}

ACLRT_INTERNAL void aclrt_stream_fail_kernel(struct aclrt_stream *s, uint32_t tid, uint64_t number, int code,
                                             const struct aclrt_kernel_failure *kernel)
{
    const struct aclrt_kernel_failure *outer = aclrt_exception_kernel;
    aclrt_exception_kernel = kernel;
    aclrt_stream_fail(s, tid, number, code);
    aclrt_exception_kernel = outer;
}

/*
 * Park s (RUNNING, held by the caller) on what `blk` names. Returns true if
 * the caller still holds the stream and should run it again (the condition
 * came true while parking, or the stream is being discarded); false if it
 * let go (a waker will schedule it).
 */
static bool aclrt_stream_park_on(struct aclrt_stream *s, const struct aclrt_block *blk)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    uint64_t seq = aclrt_stream_park_seq(w);
    struct aclrt_park_note *note = NULL;
    struct aclrt_park_note *timer = NULL;
    bool noted = blk->list != NULL || blk->event.event != NULL;
    if (noted)
        note = aclrt_park_note_new(s, seq, blk->key);
    if (blk->deadline_ns != ACLRT_NO_DEADLINE)
        timer = aclrt_park_note_new(s, seq, blk->deadline_ns);
    if ((noted && note == NULL) || (timer == NULL && blk->deadline_ns != ACLRT_NO_DEADLINE)) {
        free(note); /* out of memory: poll instead of parking */
        free(timer);
        sched_yield();
        return true;
    }
    if (blk->list != NULL)
        aclrt_park_list_push(blk->list, note);
    else if (noted)
        aclrt_park_stack_push(&blk->event.event->waiters, note);
    if (timer != NULL) {
        uint64_t before = aclrt_park_list_min(&s->device->timers);
        aclrt_park_list_push(&s->device->timers, timer);
        if (blk->deadline_ns < before)
            aclrt_rt.backend->timers_changed(s->device);
    }
    /* Release: the blocked task in s->current is visible to whoever runs s next. */
    for (;;) {
        if ((w & ACLRT_SCHED_DISCARD) && !blk->in_flight)
            return true; /* notes go stale; the run loop discards */
        uint64_t parked = aclrt_sched_in_state(w, ACLRT_SCHED_PARKED);
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, parked, memory_order_seq_cst,
                                                  memory_order_relaxed))
            break;
    }
    /*
     * s stops taking tasks: launchers waiting for room are woken now rather
     * than at the next batch (the CAS above is the locked RMW ring.h needs).
     */
    aclrt_ring_wake_room(&s->ring, true);
    /*
     * Re-check after publishing the note (park.h): the waker may have come
     * just before. From here on s may be another executor's: only `blk`
     * (a copy, and what it holds) is looked at, never s->current.
     */
    if (!aclrt_block_over(blk))
        return false;
    /* Take it back unless a waker already did (then it is READY and queued). */
    uint64_t parked = aclrt_sched_in_state(w, ACLRT_SCHED_PARKED);
    for (;;) {
        uint64_t running = aclrt_sched_unparked(parked, parked, ACLRT_SCHED_RUNNING);
        if (atomic_compare_exchange_weak_explicit(&s->sched, &parked, running, memory_order_acq_rel,
                                                  memory_order_acquire))
            return true;
        if (aclrt_stream_state(parked) != ACLRT_SCHED_PARKED || aclrt_stream_park_seq(parked) != seq)
            return false;
    }
}

static bool aclrt_stream_park(struct aclrt_stream *s, const struct aclrt_block *blk)
{
    bool keep = aclrt_stream_park_on(s, blk);
    if (blk->held != NULL)
        aclrt_report_item_put(blk->held);
    return keep;
}

/*
 * A task is dropped without running (discarded, or its context stopped):
 * undo the bookkeeping its submission did, so nothing waits for it.
 */
ACLRT_INLINE void aclrt_task_drop(struct aclrt_task *t)
{
    const struct aclrt_task_kind *k = aclrt_rt.overrides[t->kind->id];
    if (k == NULL)
        k = t->kind;
    if (k->drop != NULL)
        k->drop(t);
}

/*
 * A force-destroyed stream (DRAIN) reached a wait that blocks: nobody will
 * wait for the stream any more, so instead of parking, this task and every
 * task after it are discarded (DISCARD up to the end), as a device recycles
 * a destroyed stream's queue. The block's reference, if any, is dropped as
 * a park would drop it. Release: pairs with the acquire in aclrt_stream_discard.
 */
static void aclrt_stream_drain_blocked(struct aclrt_stream *s, const struct aclrt_block *blk)
{
    if (blk->held != NULL)
        aclrt_report_item_put(blk->held);
    atomic_store_explicit(&s->discard_until, UINT64_MAX, memory_order_release);
    aclrt_stream_change_flags(s, ACLRT_SCHED_DISCARD, 0, false);
}

/*
 * aclrtStreamStop: park s (RUNNING, held by the caller) without a note.
 * Returns false if a flag changed meanwhile (the caller looks again).
 * Release: whoever takes it next (abort, destroy) sees its current task.
 */
static bool aclrt_stream_park_stopped(struct aclrt_stream *s, uint64_t w)
{
    uint64_t parked = aclrt_sched_in_state(w, ACLRT_SCHED_PARKED);
    return atomic_compare_exchange_strong_explicit(&s->sched, &w, parked, memory_order_release,
                                                   memory_order_relaxed);
}

/*
 * Drop the tasks that have not started, up to the discard bound; they count
 * as done (issued and completed move together: nothing is in flight here).
 */
static void aclrt_stream_discard(struct aclrt_stream *s)
{
    /* Acquire: pairs with the release store of the bound before the flag was set (abort, destroy). */
    uint64_t until = atomic_load_explicit(&s->discard_until, memory_order_acquire);
    uint64_t next = aclrt_seq_read(&s->completed) + 1; /* the number of the current task, or the next */
    uint64_t n = 0;
    if (s->has_current && next <= until) {
        aclrt_task_drop(&s->current); /* already counted in `issued` */
        s->has_current = false;
        aclrt_ring_free_taken(&s->ring);
        n++;
        next++;
    }
    struct aclrt_task t;
    while (!s->has_current && next <= until && aclrt_ring_pop(&s->ring, &t)) {
        aclrt_task_drop(&t);
        s->issued++;
        n++;
        next++;
    }
    if (n > 0)
        aclrt_stream_complete(s, n);
}

/* Give s back to the backend's schedule hook (it used its budget while others wait). */
ACLRT_INTERNAL bool aclrt_stream_yield(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    if (w & ACLRT_SCHED_FLAGS)
        return false;
    return aclrt_stream_ready_from(s, w);
}

/*
 * The tasks taken before the stream's current one (before its next one when
 * it has none): the holder waits for them before a step that must follow
 * them (exec.h: a discard, a free, a drop behind issued work).
 */
ACLRT_INLINE uint64_t aclrt_stream_before(const struct aclrt_stream *s)
{
    return s->has_current ? s->issued - 1 : s->issued;
}

/*
 * Is issued work before the stream's next step still in flight (the holder
 * asks)? Without issue-ahead a current task is never behind issued work.
 * A device's word that moved is folded into the count first.
 */
ACLRT_INLINE bool aclrt_stream_in_flight(struct aclrt_stream *s)
{
    uint64_t before = aclrt_stream_before(s);
    if (aclrt_seq_reached(&s->completed, before))
        return false;
    aclrt_stream_fold(s);
    return !aclrt_seq_reached(&s->completed, before);
}

/* The next task of the ring is committed and not taken yet (the holder asks, while it lingers). */
ACLRT_INTERNAL bool aclrt_stream_has_queued(const struct aclrt_stream *s)
{
    return aclrt_ring_ready(&s->ring);
}

/*
 * The next position of the ring is reserved and its launch has not
 * committed it: its thread is between the two (preempted, when there are
 * more launching threads than CPUs). The ring is taken in reservation
 * order, so nothing of the stream can run before it commits (later
 * launches may have committed already).
 */
ACLRT_INTERNAL bool aclrt_stream_launch_pending(const struct aclrt_stream *s)
{
    return aclrt_ring_reserved(&s->ring) != aclrt_ring_consumed(&s->ring) && !aclrt_ring_ready(&s->ring);
}

/* A flag (destroy, discard, stop) asks the holder to act. Relaxed: a hint; aclrt_stream_run reads it again. */
ACLRT_INTERNAL bool aclrt_stream_flagged(const struct aclrt_stream *s)
{
    return (atomic_load_explicit(&s->sched, memory_order_relaxed) & ACLRT_SCHED_FLAGS) != 0;
}

/*
 * The ring looked empty: let go of s. Returns true if the caller no longer
 * holds it; false if more work arrived and the caller keeps running it.
 */
ACLRT_INTERNAL bool aclrt_stream_release(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    if (w & ACLRT_SCHED_DYING) {
        if (aclrt_ring_reserved(&s->ring) != aclrt_ring_consumed(&s->ring))
            return false; /* late tasks (a launch racing the destroy) still run */
        if (aclrt_stream_in_flight(s))
            return false; /* freed once its issued work is complete (aclrt_stream_run parks for it) */
        aclrt_stream_free(s);
        return true;
    }
    uint64_t idle = aclrt_sched_in_state(w, ACLRT_SCHED_IDLE);
    /* Seq_cst: pairs with the launcher's reserve-then-load in aclrt_stream_kick. */
    if (!atomic_compare_exchange_strong_explicit(&s->sched, &w, idle, memory_order_seq_cst, memory_order_acquire))
        return false; /* a flag arrived (destroy, discard): look again */
    if (!aclrt_ring_reserved_since_atomic(&s->ring))
        return true;
    /*
     * A launcher reserved before our CAS and may have seen RUNNING: take s
     * back. The CAS also fails when only a flag changed (an abort setting or
     * clearing DISCARD on the idle stream): s is still IDLE and nobody will
     * schedule it, so try again with the new flags. Only another state
     * (READY: the launcher scheduled it) means someone else runs it.
     */
    for (;;) {
        if (aclrt_stream_state(idle) != ACLRT_SCHED_IDLE || (idle & ACLRT_SCHED_DYING))
            return true; /* scheduled by the launcher, or dying: whoever holds it next frees it */
        uint64_t running = aclrt_sched_in_state(idle, ACLRT_SCHED_RUNNING);
        /* Acquire: pairs with the release of whoever changed the word (change_flags). */
        if (atomic_compare_exchange_weak_explicit(&s->sched, &idle, running, memory_order_acquire,
                                                  memory_order_relaxed))
            break;
    }
    /* Its commit is a few instructions away, unless the launcher was preempted: then give it the CPU. */
    for (int i = 0; i < 1000 && !aclrt_ring_ready(&s->ring); i++)
        aclrt_cpu_relax();
    if (!aclrt_ring_ready(&s->ring))
        sched_yield();
    /*
     * Other streams queued while we lingered were pushed without a wake-up
     * (we counted as a poller): they are ours to take, so s goes back to the
     * queue behind them (its push wakes a sleeper now) instead of keeping
     * this thread, perhaps in user code that waits for one of them.
     */
    if (!aclrt_ring_ready(&s->ring) || aclrt_rt.backend->has_other_work(s->device))
        return aclrt_stream_yield(s);
    return false;
}

/*
 * Take a stream the backend dequeued after its schedule hook: READY ->
 * RUNNING. Acquire: pairs with the release that made it READY (its tasks,
 * its parked task).
 */
ACLRT_INTERNAL void aclrt_stream_take(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    for (;;) {
        uint64_t running = aclrt_sched_in_state(w, ACLRT_SCHED_RUNNING);
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, running, memory_order_acquire,
                                                  memory_order_relaxed))
            return;
    }
}

/*
 * Issued work is in flight (completed < aclrt_stream_before) and the stream
 * must not go on: park it until its own completed count catches up (a
 * backend with a device word is asked to bring it there). True if the
 * caller still holds it.
 */
static bool aclrt_stream_park_in_flight(struct aclrt_stream *s)
{
    uint64_t before = aclrt_stream_before(s);
    aclrt_stream_await(s, before);
    struct aclrt_block own = ACLRT_BLOCK_NONE;
    aclrt_block_on_count(&own, &s->completed, &s->waiters, before, ACLRT_NO_DEADLINE);
    own.in_flight = true;
    return aclrt_stream_park(s, &own);
}

/*
 * Run up to `budget` tasks of s, which the caller holds (aclrt_stream_take);
 * *ran (if not NULL) counts the tasks that ran, were issued or dropped.
 * Returns who holds s afterwards:
 *   ACLRT_HOLD_NONE    the caller let go (parked, stopped, freed, or back to
 *                      the backend's schedule hook): it must not touch s;
 *   ACLRT_HOLD_EMPTY   the ring is empty; the caller still holds s and calls
 *                      aclrt_stream_run again or aclrt_stream_release;
 *   ACLRT_HOLD_BUDGET  `budget` tasks ran; the caller still holds s and runs
 *                      it again or lets others go first (aclrt_stream_yield).
 */
ACLRT_INTERNAL enum aclrt_hold aclrt_stream_run(struct aclrt_stream *s, uint32_t budget, uint32_t *ran_out)
{
    struct aclrt_task_scope outer = aclrt_task_scope_enter(s);
    enum aclrt_hold hold = ACLRT_HOLD_NONE;
    bool ahead = aclrt_rt.backend->issue_ahead;
    uint32_t ran = 0;
    aclrt_stream_fold(s); /* the device's progress since the last run, if it writes a completion word */
    if (ACLRT_UNLIKELY(aclrt_stream_in_flight(s)) && !ahead && !aclrt_stream_park_in_flight(s))
        goto out;
    for (;;) {
        uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
        if (ACLRT_UNLIKELY(w & ACLRT_SCHED_FLAGS)) {
            /* Nothing is discarded or freed behind work in flight: it finishes first. */
            if ((w & (ACLRT_SCHED_DISCARD | ACLRT_SCHED_DYING)) && aclrt_stream_in_flight(s)) {
                if (aclrt_stream_park_in_flight(s))
                    continue;
                goto out;
            }
            if (w & ACLRT_SCHED_DISCARD) {
                aclrt_stream_discard(s);
            } else if (w & ACLRT_SCHED_STOPPED) {
                if (aclrt_stream_park_stopped(s, w))
                    goto out;
                continue;
            }
        }
        if (!s->has_current) {
            if (ACLRT_UNLIKELY(ran == budget)) {
                hold = ACLRT_HOLD_BUDGET;
                goto out;
            }
            /* The slot stays the task's until it is done (ring.h: waking launchers that wait for room). */
            if (!aclrt_ring_take(&s->ring, &s->current)) {
                hold = ACLRT_HOLD_EMPTY;
                goto out;
            }
            s->has_current = true;
            s->issued++;
        }
        int rc = ACL_SUCCESS;
        if (ACLRT_UNLIKELY(aclrt_tls.owed_wake != NULL))
            aclrt_owed_wake_pay(); /* a wake-up put off by the last completion: this task may take long */
        if (ACLRT_LIKELY(atomic_load_explicit(&s->ctx->failure, memory_order_relaxed) == 0)) {
            struct aclrt_block blk = ACLRT_BLOCK_NONE;
            /* A context an earlier task set was that task's only (aclrt_task_scope_enter). */
            aclrt_tls.ctx_handle = NULL;
            /* While a profiling session runs, the task is run through the recorder: one load when none does. */
            if (ACLRT_UNLIKELY(atomic_load_explicit(&aclrt_prof.on, memory_order_relaxed)))
                rc = aclrt_task_run_profiled(s, &s->current, &blk);
            else
                rc = aclrt_task_run(s, &s->current, &blk);
            if (rc == ACLRT_TASK_BLOCKED) {
                /* Waiting for its own issued work is no wait that blocks for good: a drain parks for it too. */
                if (ACLRT_UNLIKELY(atomic_load_explicit(&s->sched, memory_order_relaxed) & ACLRT_SCHED_DRAIN) &&
                    !blk.in_flight) {
                    aclrt_stream_drain_blocked(s, &blk);
                    continue;
                }
                if (aclrt_stream_park(s, &blk))
                    continue;
                goto out;
            }
            if (rc == ACLRT_TASK_ISSUED) { /* finishes later: aclrt_stream_complete_to */
                s->has_current = false;
                /*
                 * A stream whose device completes its tasks keeps the slot
                 * until the task is complete (aclrt_stream_fold frees it): the
                 * ring bounds the work in flight, as it bounds queued work.
                 */
                if (aclrt_stream_device_word(s) == NULL) {
                    aclrt_ring_free_taken(&s->ring);
                    /* No completion follows the free here: the fence stands for its locked RMW (ring.h). */
                    atomic_thread_fence(memory_order_seq_cst);
                    aclrt_ring_wake_room(&s->ring, false);
                }
                ran++;
                if (ahead || !aclrt_stream_in_flight(s) || aclrt_stream_park_in_flight(s))
                    continue;
                goto out;
            }
        } else {
            /* Behind work issued ahead and still in flight, even a drop waits: counts complete in order. */
            if (ahead && aclrt_stream_in_flight(s)) {
                if (aclrt_stream_park_in_flight(s))
                    continue;
                goto out;
            }
            aclrt_task_drop(&s->current); /* discarded: the context stopped */
        }
        if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
            aclrt_stream_fail(s, s->current.tid, s->issued, rc);
        s->has_current = false;
        aclrt_ring_free_taken(&s->ring); /* then the completion's locked add, and the look for launchers waiting */
        aclrt_tls.completing = true; /* the streams it wakes may be this thread's to take next (thread.h) */
        aclrt_stream_complete(s, 1);
        aclrt_tls.completing = false;
        ran++;
    }
out:
    aclrt_task_scope_leave(outer);
    if (ran_out != NULL)
        *ran_out = ran;
    return hold;
}

/*
 * Work a backend issued (ACLRT_TASK_ISSUED) has finished up to task number
 * `upto` of s: count it done and wake whoever waits, the stream itself
 * included. Any thread may call it, in order of `upto`, one caller at a
 * time per stream (a device's completion word mirrored by one thread, or
 * the one completion of an external task).
 */
ACLRT_INTERNAL void aclrt_stream_complete_to(struct aclrt_stream *s, uint64_t upto)
{
    uint64_t done = aclrt_seq_read(&s->completed);
    if (upto > done)
        aclrt_stream_complete(s, upto - done);
}

#endif /* ACLRT_IMPL_EXEC_EXEC_H */
