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

/* Tasks a stream runs before it lets other ready streams have its thread. */
#define ACLRT_RUN_BUDGET 64
#define ACLRT_LINGER_NS (5 * ACLRT_NS_PER_US) /* at most spin_ns */
#define ACLRT_LINGER_LOOK 16                   /* pauses between looks at the ring */
/* A wait task whose deadline passed fails with this code (docs/SEMANTICS.md). */
#define ACLRT_WAIT_TIMEOUT_CODE ACL_ERROR_RT_TASK_TIMEOUT

/* Has the condition a block names come true (or its deadline passed)? */
ACLRT_INLINE bool aclrt_block_over(const struct aclrt_block *b, const struct aclrt_event_ref *ref)
{
    if (b->seq != NULL && aclrt_seq_reached(b->seq, b->key))
        return true;
    if (b->on_event != NULL) {
        struct aclrt_event_view v;
        aclrt_event_read(b->on_event, &v);
        if (v.generation != ref->generation || v.records != ref->record)
            return true;
    }
    return b->deadline_ns != ACLRT_NO_DEADLINE && aclrt_now_ns() >= b->deadline_ns;
}

/* Start a wait's clock the first time the executor reaches it. */
ACLRT_INLINE uint64_t aclrt_task_wait_deadline(struct aclrt_task *t)
{
    if (t->u32 == 0)
        return ACLRT_NO_DEADLINE;
    if (t->u.wait.deadline_ns == 0)
        t->u.wait.deadline_ns = aclrt_now_ns() + (uint64_t)t->u32 * ACLRT_NS_PER_S;
    return t->u.wait.deadline_ns;
}

/*
 * A legacy wait issued before any record: once the event has been recorded
 * (its record count moved past the one the wait saw), bind to that record's
 * capture and become an ordinary count wait. A destroyed event releases it.
 */
static int aclrt_task_bind_event_wait(struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_event_view v;
    aclrt_event_read(t->u.wait.from.event, &v);
    if (v.generation != t->u.wait.from.generation)
        return 0; /* destroyed: nothing left to wait for */
    if (v.records == t->u.wait.from.record) {
        blk->on_event = t->u.wait.from.event;
        blk->deadline_ns = aclrt_task_wait_deadline(t);
        if (blk->deadline_ns != ACLRT_NO_DEADLINE && aclrt_now_ns() >= blk->deadline_ns)
            return ACLRT_WAIT_TIMEOUT_CODE;
        return ACLRT_RUN_BLOCKED;
    }
    t->kind = ACLRT_TASK_WAIT_STREAM;
    t->u.wait.stream = v.stream;
    t->u.wait.target = v.target;
    return 1; /* run again as a count wait */
}

/* Spin for a short while on a count if nobody else needs this thread. */
static bool aclrt_task_spin_for(struct aclrt_stream *self, struct aclrt_stream *on, uint64_t target, uint64_t deadline)
{
    uint64_t spin_ns = aclrt_rt.config.spin_ns;
    if (spin_ns == 0)
        return false;
    uint64_t end = aclrt_min_u64(aclrt_now_ns() + spin_ns, deadline);
    for (unsigned i = 1;; i++) {
        if (aclrt_seq_reached(&on->completed, target))
            return true;
        aclrt_cpu_relax();
        if ((i & 255) == 0 &&
            (aclrt_now_ns() >= end || aclrt_rt.backend->has_other_work(self->device) ||
             (atomic_load_explicit(&self->sched, memory_order_relaxed) & ACLRT_SCHED_DISCARD)))
            return false;
    }
}

static aclError aclrt_task_run_kernel(struct aclrt_stream *s, struct aclrt_task *t)
{
    uint32_t blocks = t->u32;
    if (blocks > 1 && aclrt_rt.backend->run_kernel != NULL)
        return aclrt_rt.backend->run_kernel(s->device, t->u.kernel.fn, blocks, t->u.kernel.args);
    for (uint32_t b = 0; b < blocks; b++) {
        aclError rc = t->u.kernel.fn(b, blocks, t->u.kernel.args);
        if (rc != ACL_SUCCESS)
            return rc; /* a faulting kernel stops, like a device kernel */
    }
    return ACL_SUCCESS;
}

/* Tasks of notifies, counting notifies, value ops and HCOM groups (defined in their files, after this one). */
static int aclrt_notify_record_run(struct aclrt_task *t);
static int aclrt_notify_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk);
static int aclrt_cnt_notify_record_run(struct aclrt_task *t);
static int aclrt_cnt_notify_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk);
static int aclrt_value_write_run(struct aclrt_task *t);
static int aclrt_value_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk);
static int aclrt_hcom_record_run(struct aclrt_task *t);
static int aclrt_hcom_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk);

/*
 * Run one task. Returns ACL_SUCCESS, an error code (the task failed), or
 * ACLRT_RUN_BLOCKED with `blk` saying what it waits for.
 */
static int aclrt_task_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    switch ((enum aclrt_task_kind)t->kind) {
    case ACLRT_TASK_NOP: return ACL_SUCCESS;
    case ACLRT_TASK_HOST_FUNC: return aclrt_host_func_task_run(s, t, blk);
    case ACLRT_TASK_CALLBACK: return aclrt_callback_task_run(s, t, blk);
    case ACLRT_TASK_HOST_KERNEL: return aclrt_task_run_kernel(s, t);
    case ACLRT_TASK_MEMCPY: memmove(t->u.copy.dst, t->u.copy.src, t->u.copy.count); return ACL_SUCCESS;
    case ACLRT_TASK_MEMSET: memset(t->u.fill.dst, (int)(uint8_t)t->u32, t->u.fill.count); return ACL_SUCCESS;
    case ACLRT_TASK_EVENT_STAMP: aclrt_event_apply_stamp(&t->u.mark, aclrt_now_ns()); return ACL_SUCCESS;
    case ACLRT_TASK_EVENT_RESET: aclrt_event_apply_reset(&t->u.mark); return ACL_SUCCESS;
    case ACLRT_TASK_WAIT_EVENT: {
        int r = aclrt_task_bind_event_wait(t, blk);
        if (r != 1) {
            if (r != ACLRT_RUN_BLOCKED)
                aclrt_event_wait_done(&t->u.wait.from);
            return r;
        }
    } /* fall through: now a count wait */
    /* FALLTHRU */
    case ACLRT_TASK_WAIT_STREAM: {
        struct aclrt_stream *on = t->u.wait.stream;
        uint64_t target = t->u.wait.target;
        uint64_t deadline = aclrt_task_wait_deadline(t);
        if (aclrt_seq_reached(&on->completed, target) || aclrt_task_spin_for(s, on, target, deadline)) {
            aclrt_event_wait_done(&t->u.wait.from);
            return ACL_SUCCESS;
        }
        if (deadline != ACLRT_NO_DEADLINE && aclrt_now_ns() >= deadline) {
            aclrt_event_wait_done(&t->u.wait.from);
            return ACLRT_WAIT_TIMEOUT_CODE;
        }
        aclrt_block_on_count(blk, &on->completed, &on->waiters, target, deadline);
        return ACLRT_RUN_BLOCKED;
    }
    case ACLRT_TASK_NOTIFY_RECORD: return aclrt_notify_record_run(t);
    case ACLRT_TASK_NOTIFY_WAIT: return aclrt_notify_wait_run(s, t, blk);
    case ACLRT_TASK_CNT_NOTIFY_RECORD: /* FALLTHRU: a reset is a record that sets 0 */
    case ACLRT_TASK_CNT_NOTIFY_RESET: return aclrt_cnt_notify_record_run(t);
    case ACLRT_TASK_CNT_NOTIFY_WAIT: return aclrt_cnt_notify_wait_run(s, t, blk);
    case ACLRT_TASK_VALUE_WRITE: return aclrt_value_write_run(t);
    case ACLRT_TASK_VALUE_WAIT: return aclrt_value_wait_run(s, t, blk);
    case ACLRT_TASK_HCOM_RECORD: return aclrt_hcom_record_run(t);
    case ACLRT_TASK_HCOM_WAIT: return aclrt_hcom_wait_run(s, t, blk);
    case ACLRT_TASK_KIND_COUNT: break;
    }
    return ACL_ERROR_RT_TASK_TYPE_NOT_SUPPORT;
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

/* Timers: wake the parked streams whose deadline passed (any thread may call this). */
ACLRT_INTERNAL void aclrt_device_fire_timers(struct aclrt_device *dev)
{
    uint64_t now = aclrt_now_ns();
    if (aclrt_park_list_due(&dev->timers, now))
        aclrt_park_list_wake(&dev->timers, now);
}

/*
 * Park s (RUNNING, held by the caller) on what `blk` names. Returns true if
 * the caller still holds the stream and should run it again (the condition
 * came true while parking, or the stream is being discarded); false if it
 * let go (a waker will schedule it).
 */
static bool aclrt_stream_park(struct aclrt_stream *s, const struct aclrt_block *blk)
{
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    uint64_t seq = aclrt_stream_park_seq(w);
    struct aclrt_park_note *note = NULL;
    struct aclrt_park_note *timer = NULL;
    if (blk->list != NULL || blk->on_event != NULL)
        note = aclrt_park_note_new(s, seq, blk->key);
    if (blk->deadline_ns != ACLRT_NO_DEADLINE)
        timer = aclrt_park_note_new(s, seq, blk->deadline_ns);
    if ((note == NULL && (blk->list != NULL || blk->on_event != NULL)) ||
        (timer == NULL && blk->deadline_ns != ACLRT_NO_DEADLINE)) {
        free(note); /* out of memory: poll instead of parking */
        free(timer);
        sched_yield();
        return true;
    }
    if (blk->list != NULL)
        aclrt_park_list_push(blk->list, note);
    else if (blk->on_event != NULL)
        aclrt_park_stack_push(&blk->on_event->waiters, note);
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
    /* Re-check after publishing the note (park.h): the waker may have come just before. */
    if (!aclrt_block_over(blk, &s->current.u.wait.from))
        return false;
    /* Take it back unless a waker already did (then it is READY and queued). */
    uint64_t parked = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_PARKED;
    for (;;) {
        uint64_t running = ((seq + 1) << ACLRT_SCHED_SEQ_SHIFT) | (parked & ACLRT_SCHED_FLAGS) | ACLRT_SCHED_RUNNING;
        if (atomic_compare_exchange_weak_explicit(&s->sched, &parked, running, memory_order_acq_rel,
                                                  memory_order_acquire))
            return true;
        if (aclrt_stream_state(parked) != ACLRT_SCHED_PARKED || aclrt_stream_park_seq(parked) != seq)
            return false;
    }
}

/*
 * A task is dropped without running (discarded, or its context stopped):
 * undo the bookkeeping its submission did, so nothing waits for it.
 */
static void aclrt_task_drop(struct aclrt_task *t)
{
    if (t->kind == ACLRT_TASK_WAIT_STREAM || t->kind == ACLRT_TASK_WAIT_EVENT)
        aclrt_event_wait_done(&t->u.wait.from);
    aclrt_report_task_drop(t);
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

/* Drop every task that has not started; they count as done. */
static void aclrt_stream_discard(struct aclrt_stream *s)
{
    uint64_t n = 0;
    if (s->has_current) {
        aclrt_task_drop(&s->current);
        s->has_current = false;
        n++;
    }
    struct aclrt_task t;
    while (aclrt_ring_pop(&s->ring, &t)) {
        aclrt_task_drop(&t);
        n++;
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
            if (rc == ACLRT_RUN_BLOCKED) {
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
