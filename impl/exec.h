/*
 * impl/exec.h - running a stream: pop a task, run it, count it done; park
 * the stream when a task must wait; let go of the stream when it is empty.
 *
 * A backend thread calls aclrt_stream_run() on a stream it took from its
 * ready queue (state READY). Everything else about executing tasks lives
 * here, so every backend that runs tasks on CPU threads shares it.
 *
 * A failing task (a host kernel returning non-zero, a wait that timed out)
 * is reported to the exception callbacks (exception.h), puts its stream in
 * the error state (the next synchronize returns the code) and, if the
 * context stops on failure, stops the context: later tasks of every stream
 * of the context are discarded (counted as done, not run).
 *
 * A stream with the STOPPED flag (aclrtStreamStop) runs no further task: at
 * the next task boundary its executor parks it without a note, so only
 * aclrtStreamAbort or a destroy (which discard its tasks) make it run again.
 */
#ifndef ACLRT_IMPL_EXEC_H
#define ACLRT_IMPL_EXEC_H

#include "base.h"
#include "clock.h"
#include "block.h"
#include "event.h"
#include "exception.h"
#include "park.h"
#include "report.h"
#include "stream.h"
#include "task.h"
#include "task_wait.h"

/* Tasks a stream runs before it lets other ready streams have its thread. */
#define ACLRT_RUN_BUDGET 64
#define ACLRT_LINGER_NS (5 * ACLRT_NS_PER_US) /* at most spin_ns */
#define ACLRT_LINGER_LOOK 16                   /* pauses between looks at the ring */

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

/* Task number `number` of stream s (record t) failed with `code`. */
static void aclrt_stream_task_failed(struct aclrt_stream *s, const struct aclrt_task *t, uint64_t number, int code)
{
    aclrt_exception_report(s, t, number, code);
    int none = 0;
    atomic_compare_exchange_strong_explicit(&s->error, &none, code, memory_order_release, memory_order_relaxed);
    if (atomic_load_explicit(&s->ctx->stop_on_failure, memory_order_acquire)) {
        none = 0;
        atomic_compare_exchange_strong_explicit(&s->ctx->failure, &none, code, memory_order_release,
                                                memory_order_relaxed);
    }
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
        if (w & ACLRT_SCHED_DISCARD)
            return true; /* notes go stale; the run loop discards */
        uint64_t parked = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_PARKED;
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, parked, memory_order_seq_cst,
                                                  memory_order_relaxed))
            break;
    }
    /*
     * Re-check after publishing the note (park.h): the waker may have come
     * just before. From here on s may be another executor's: only `blk`
     * (a copy, and what it holds) is looked at, never s->current.
     */
    if (!aclrt_block_over(blk))
        return false;
    /* Take it back unless a waker already did (then it is READY and queued). */
    uint64_t parked = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_PARKED;
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
 * aclrtStreamStop: park s (RUNNING, held by the caller) without a note.
 * Returns false if a flag changed meanwhile (the caller looks again).
 * Release: whoever takes it next (abort, destroy) sees its current task.
 */
static bool aclrt_stream_park_stopped(struct aclrt_stream *s, uint64_t w)
{
    uint64_t parked = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_PARKED;
    return atomic_compare_exchange_strong_explicit(&s->sched, &w, parked, memory_order_release,
                                                   memory_order_relaxed);
}

/* Drop the tasks that have not started, up to the discard bound; they count as done. */
static void aclrt_stream_discard(struct aclrt_stream *s)
{
    /* Acquire: pairs with the release store of the bound before the flag was set (abort, destroy). */
    uint64_t until = atomic_load_explicit(&s->discard_until, memory_order_acquire);
    uint64_t next = aclrt_seq_read(&s->completed) + 1; /* the number of the current task, or the next */
    uint64_t n = 0;
    if (s->has_current && next <= until) {
        aclrt_task_drop(&s->current);
        s->has_current = false;
        n++;
        next++;
    }
    struct aclrt_task t;
    while (!s->has_current && next <= until && aclrt_ring_pop(&s->ring, &t)) {
        aclrt_task_drop(&t);
        n++;
        next++;
    }
    if (n > 0)
        aclrt_stream_complete(s, n);
}

/* Put s back in the ready queue (it used its budget while others wait). */
static bool aclrt_stream_yield(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    if (w & ACLRT_SCHED_FLAGS)
        return false;
    uint64_t ready = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_READY;
    if (!atomic_compare_exchange_strong_explicit(&s->sched, &w, ready, memory_order_release, memory_order_relaxed))
        return false;
    aclrt_rt.backend->schedule(s->device, s);
    return true;
}

/*
 * The ring looked empty: let go of s. Returns true if the caller no longer
 * holds it; false if more work arrived and the caller keeps running it.
 */
static bool aclrt_stream_release(struct aclrt_stream *s)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    if (w & ACLRT_SCHED_DYING) {
        if (aclrt_ring_reserved(&s->ring) != aclrt_ring_consumed(&s->ring))
            return false; /* late tasks (a launch racing the destroy) still run */
        aclrt_stream_free(s);
        return true;
    }
    uint64_t idle = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_IDLE;
    /* Seq_cst: pairs with the launcher's reserve-then-load in aclrt_stream_kick. */
    if (!atomic_compare_exchange_strong_explicit(&s->sched, &w, idle, memory_order_seq_cst, memory_order_acquire))
        return false; /* a flag arrived (destroy, discard): look again */
    if (!aclrt_ring_reserved_since_atomic(&s->ring))
        return true;
    /* A launcher reserved before our CAS and may have seen RUNNING: take s back. */
    uint64_t running = (idle & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_RUNNING;
    if (!atomic_compare_exchange_strong_explicit(&s->sched, &idle, running, memory_order_acquire,
                                                 memory_order_relaxed))
        return true; /* the launcher scheduled it: someone else runs it */
    /* Its commit is a few instructions away, unless the launcher was preempted. */
    for (int i = 0; i < 1000 && aclrt_ring_committed(&s->ring) == aclrt_ring_consumed(&s->ring); i++)
        aclrt_cpu_relax();
    /*
     * Other streams queued while we lingered were pushed without a wake-up
     * (we counted as a poller): they are ours to take, so s goes back to the
     * queue behind them (its push wakes a sleeper now) instead of keeping
     * this thread, perhaps in user code that waits for one of them.
     */
    if (aclrt_ring_committed(&s->ring) == aclrt_ring_consumed(&s->ring) ||
        aclrt_rt.backend->has_other_work(s->device))
        return aclrt_stream_yield(s);
    return false;
}

/*
 * The ring is empty: keep s for a moment in case its launcher is in the
 * middle of a burst. While s stays RUNNING a launch costs the launcher one
 * load of the schedule word (aclrt_stream_kick); letting go at every empty
 * ring would make each launch of a burst schedule the stream again (a CAS,
 * a ready-queue push, a wake-up check). The executor would spin idle for
 * spin_ns anyway; this spins on s's ring first, and stops as soon as other
 * work is queued or s gets a flag (destroy, discard).
 *
 * While it lingers the executor counts as a poller, so a launch onto
 * another stream wakes nobody (host.h). After its last look it checks the
 * ready queues once more: work pushed meanwhile is its to take, so s
 * yields if a task came too.
 */
enum aclrt_linger { ACLRT_LINGER_TASK, ACLRT_LINGER_EMPTY, ACLRT_LINGER_YIELD };

static enum aclrt_linger aclrt_stream_linger(struct aclrt_stream *s)
{
    uint64_t linger_ns = aclrt_rt.config.spin_ns < ACLRT_LINGER_NS ? aclrt_rt.config.spin_ns : ACLRT_LINGER_NS;
    if (linger_ns == 0)
        return ACLRT_LINGER_EMPTY;
    struct aclrt_device *dev = s->device;
    if (aclrt_rt.backend->has_other_work(dev))
        return ACLRT_LINGER_EMPTY; /* other streams are waiting: let go at once */
    atomic_fetch_add_explicit(&dev->pollers, 1, memory_order_seq_cst);
    bool came = false;
    uint64_t end = 0;
    for (unsigned i = 0;; i++) {
        /*
         * Look every ACLRT_LINGER_LOOK pauses, not at every one: each look
         * pulls the line the launcher commits to, so a tight look makes every
         * launch of a burst miss; a few pauses apart, tasks arrive in batches.
         */
        if ((i % ACLRT_LINGER_LOOK) == 0 && aclrt_ring_committed(&s->ring) != aclrt_ring_consumed(&s->ring)) {
            came = true;
            break;
        }
        aclrt_cpu_relax();
        if ((i & 15) == 15) {
            if (atomic_load_explicit(&s->sched, memory_order_relaxed) & ACLRT_SCHED_FLAGS)
                break;
            if (aclrt_rt.backend->has_other_work(dev))
                break;
            uint64_t now = aclrt_now_ns();
            if (end == 0)
                end = now + linger_ns;
            else if (now >= end)
                break;
            /*
             * A launch reserved a slot and has not committed it: its thread
             * was preempted mid-launch (more launching threads than CPUs).
             * Tasks commit in order, so nothing can run before it does: give
             * the CPU away rather than spin while that thread waits for one.
             */
            if (aclrt_ring_reserved(&s->ring) != aclrt_ring_committed(&s->ring))
                sched_yield();
        }
    }
    /* Seq_cst, then the look: pairs with a launcher's push-then-read of `pollers`. */
    atomic_fetch_sub_explicit(&dev->pollers, 1, memory_order_seq_cst);
    if (aclrt_rt.backend->has_other_work(dev))
        return came ? ACLRT_LINGER_YIELD : ACLRT_LINGER_EMPTY;
    return came ? ACLRT_LINGER_TASK : ACLRT_LINGER_EMPTY;
}

/*
 * Run s, which the caller took from READY to RUNNING, until it is empty,
 * parked, or has used its budget while other work waits. After this returns
 * the caller must not touch s.
 */
ACLRT_INTERNAL void aclrt_stream_run(struct aclrt_stream *s)
{
    struct aclrt_stream *outer = aclrt_tls.running;
    aclrt_tls.running = s;
    uint32_t budget = ACLRT_RUN_BUDGET;
    for (;;) {
        uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
        if (ACLRT_UNLIKELY(w & ACLRT_SCHED_FLAGS)) {
            if (w & ACLRT_SCHED_DISCARD) {
                aclrt_stream_discard(s);
            } else if (w & ACLRT_SCHED_STOPPED) {
                if (aclrt_stream_park_stopped(s, w))
                    break;
                continue;
            }
        }
        if (!s->has_current) {
            if (!aclrt_ring_pop(&s->ring, &s->current)) {
                enum aclrt_linger l = aclrt_stream_linger(s);
                if (l == ACLRT_LINGER_TASK)
                    continue;
                if (l == ACLRT_LINGER_YIELD) {
                    if (aclrt_stream_yield(s))
                        break;
                    continue;
                }
                if (aclrt_stream_release(s))
                    break;
                continue;
            }
            s->has_current = true;
        }
        int rc = ACL_SUCCESS;
        if (ACLRT_LIKELY(atomic_load_explicit(&s->ctx->failure, memory_order_relaxed) == 0)) {
            struct aclrt_block blk = ACLRT_BLOCK_NONE;
            rc = aclrt_task_run(s, &s->current, &blk);
            if (rc == ACLRT_TASK_BLOCKED) {
                if (aclrt_stream_park(s, &blk))
                    continue;
                break;
            }
        } else {
            aclrt_task_drop(&s->current); /* discarded: the context stopped */
        }
        if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
            aclrt_stream_task_failed(s, &s->current, aclrt_seq_read(&s->completed) + 1, rc);
        s->has_current = false;
        aclrt_stream_complete(s, 1);
        if (ACLRT_UNLIKELY(--budget == 0)) {
            budget = ACLRT_RUN_BUDGET;
            if (aclrt_rt.backend->has_other_work(s->device) && aclrt_stream_yield(s))
                break;
        }
    }
    aclrt_tls.running = outer;
}

#endif /* ACLRT_IMPL_EXEC_H */
