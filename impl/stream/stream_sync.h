/*
 * impl/stream/stream_sync.h - waiting for a stream's work: synchronize, and the
 * waits of destroy, device synchronize and pageable copies.
 *
 * A wait is "until the stream's completed count reaches a target" on its
 * sequence counter (seq.h: spin briefly, then sleep on the futex), with
 * two reasons to stop early: an abort that overlaps the wait (the stream's
 * `aborts` epoch, stream_control.h) and a stop short of the target
 * (aclrtStreamStop).
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_SYNC_H
#define ACLRT_IMPL_STREAM_STREAM_SYNC_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../runtime/progress.h"
#include "../runtime/runtime.h"
#include "stream.h"
#include "stream_complete.h"

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

/* A stream and a count it must reach, as a spinner looks at them. */
struct aclrt_stream_target {
    const struct aclrt_stream *s;
    uint64_t target;
};

static bool aclrt_stream_target_reached(const void *arg)
{
    const struct aclrt_stream_target *st = (const struct aclrt_stream_target *)arg;
    return aclrt_stream_reached(st->s, st->target);
}

/*
 * Sleeping on a stream whose device writes its completion word: the count
 * moves when the backend folds the word in, which stream_await asks for; a
 * sleeper also looks at the word itself after each short sleep, so that a
 * fold that comes late (a backend's completion callbacks held up behind a
 * host function that blocks) costs time, not the wake-up. The sleeps grow
 * from ACLRT_DEVICE_POLL_MIN_NS to ACLRT_DEVICE_POLL_MAX_NS.
 */
#define ACLRT_DEVICE_POLL_MIN_NS (20 * ACLRT_NS_PER_US)
#define ACLRT_DEVICE_POLL_MAX_NS (1 * ACLRT_NS_PER_MS)

/*
 * Wait until s has completed `target` (aclrt_seq_wait_until's contract and
 * return values: 0, ACLRT_SEQ_TIMEOUT, or stop_fn's value). Without a device
 * word it is the wait on the completed count; with one, the spin reads the
 * word too, and the sleep is in short steps (above), each after asking the
 * backend to bring the count to the target.
 */
ACLRT_INTERNAL int aclrt_stream_wait_done(struct aclrt_stream *s, uint64_t target, uint64_t deadline_ns,
                                          uint64_t spin_ns, aclrt_seq_stop_fn stop_fn, void *stop_data)
{
    if (ACLRT_LIKELY(aclrt_stream_device_word(s) == NULL))
        return aclrt_seq_wait_until(&s->completed, target, deadline_ns, spin_ns, stop_fn, stop_data);
    struct aclrt_stream_target st = {s, target};
    int r = aclrt_spin_phase(aclrt_stream_target_reached, &st, deadline_ns, spin_ns, stop_fn, stop_data);
    if (r != ACLRT_SPIN_SLEEP)
        return r;
    uint64_t poll = ACLRT_DEVICE_POLL_MIN_NS;
    for (;;) {
        aclrt_stream_await(s, target);
        if (aclrt_stream_reached(s, target))
            return 0;
        uint64_t now = aclrt_now_ns();
        if (now >= deadline_ns)
            return ACLRT_SEQ_TIMEOUT;
        uint64_t until = poll > deadline_ns - now ? deadline_ns : now + poll;
        r = aclrt_seq_wait_until(&s->completed, target, until, 0, stop_fn, stop_data);
        if (r != ACLRT_SEQ_TIMEOUT)
            return r;
        poll = aclrt_min_u64(2 * poll, ACLRT_DEVICE_POLL_MAX_NS);
    }
}

/* A stream as one of its lives: waits whose waiter may outlive that life check it. */
struct aclrt_stream_life {
    struct aclrt_stream *s;
    uint32_t generation; /* the slot's generation while that life lives */
};

/* Is the slot still that life? Acquire: pairs with the release that retires it (aclrt_table_retire). */
ACLRT_INLINE bool aclrt_stream_life_alive(const struct aclrt_stream_life *l)
{
    return aclrt_slot_alive(&l->s->hdr, l->generation);
}

/*
 * Checked while a synchronizer waits: the life it waits on is stopped short
 * of the target. The stop read is that life's only if the slot is still
 * that life afterwards (a new life of the slot is nobody's business here).
 */
static int aclrt_stream_stopped_check(void *data)
{
    const struct aclrt_stream_life *l = (const struct aclrt_stream_life *)data;
    /* Relaxed: a reason to stop waiting, read again at every wake-up (aclrtStreamStop wakes the sleepers). */
    uint64_t w = atomic_load_explicit(&l->s->sched, memory_order_relaxed);
    /* Stopped, and not being discarded (a destroy of a stopped stream discards its tasks: they will count). */
    if ((w & (ACLRT_SCHED_STOPPED | ACLRT_SCHED_DISCARD)) == ACLRT_SCHED_STOPPED && aclrt_stream_life_alive(l))
        return ACL_ERROR_RT_TASK_ABORT_STOP;
    return 0;
}

/*
 * Wait until the stream's completed count reaches `target`, or until
 * `deadline` (absolute CLOCK_MONOTONIC ns, ACLRT_NO_DEADLINE: none). The
 * count goes on across the slot's lives, so the wait itself is the same
 * whatever becomes of the stream; its early ends (a stop, an abort that
 * overlapped the wait) belong to the life `l` names, and a slot reused
 * meanwhile has none of them. `fast_sync`: that life's ACL_STREAM_FAST_SYNC
 * flag, read by the caller while it was alive (this reads no plain field of
 * the stream). Returns ACL_SUCCESS, `timeout_code`, ACL_ERROR_RT_STREAM_ABORT
 * (an abort discarded the work meanwhile), ACL_ERROR_RT_TASK_ABORT_STOP (the
 * stream is stopped short of it) or, in a forked child whose inherited
 * runtime has no threads left to do the work, ACL_ERROR_RT_DEV_SETUP_ERROR;
 * no message: aclrt_stream_wait_fail words it.
 */
ACLRT_INTERNAL aclError aclrt_stream_wait_until(const struct aclrt_stream_life *l, uint64_t target,
                                                uint64_t deadline, bool fast_sync, aclError timeout_code)
{
    struct aclrt_stream *s = l->s;
    if (ACLRT_LIKELY(aclrt_stream_reached(s, target)))
        return ACL_SUCCESS;
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return ACL_ERROR_RT_DEV_SETUP_ERROR;
    uint32_t epoch = aclrt_stream_abort_epoch(s);
    bool alive = aclrt_stream_life_alive(l); /* after the epoch: the epoch is this life's */
    uint64_t spin = aclrt_rt.config.spin_ns;
    if (fast_sync)
        spin *= 50; /* "poll actively": a long spin before sleeping */
    int r = aclrt_stream_wait_done(s, target, deadline, spin, alive ? aclrt_stream_stopped_check : NULL, (void *)l);
    if (r != 0 && r != ACLRT_SEQ_TIMEOUT)
        return r; /* stopped */
    /* Even when it also timed out: the wait was active during an abort. */
    if (alive && aclrt_stream_aborted_since(s, epoch) && aclrt_stream_life_alive(l))
        return ACL_ERROR_RT_STREAM_ABORT;
    return r == ACLRT_SEQ_TIMEOUT ? timeout_code : ACL_SUCCESS;
}

/* aclrt_stream_wait_until with a timeout in ms (-1: forever), for a caller that holds a live stream. */
ACLRT_INTERNAL aclError aclrt_stream_wait_count(struct aclrt_stream *s, uint64_t target, int32_t timeout_ms,
                                                aclError timeout_code)
{
    if (ACLRT_LIKELY(aclrt_stream_reached(s, target)))
        return ACL_SUCCESS;
    uint64_t deadline = aclrt_deadline_after_ms(timeout_ms);
    struct aclrt_stream_life l = {s, atomic_load_explicit(&s->hdr.generation, memory_order_relaxed)};
    return aclrt_stream_wait_until(&l, target, deadline, (s->flags & ACL_STREAM_FAST_SYNC) != 0, timeout_code);
}

/*
 * Word the timeout of a wait for work of device `device` (`what` did not
 * finish within timeout_ms). With external progress, a wait that nobody's
 * progress call could have served (none for the device throughout it,
 * aclrt_progress_idle_ns) says so: its work never had a thread to run on.
 */
ACLRT_INTERNAL aclError aclrt_wait_timeout_fail(aclError rc, const char *what, int32_t timeout_ms, uint32_t device)
{
    uint64_t idle = aclrt_progress_idle_ns(device);
    if (idle != 0 && timeout_ms >= 0 && idle >= (uint64_t)timeout_ms * ACLRT_NS_PER_MS)
        return aclrt_fail(rc,
                          "%s did not finish within %d ms; progress is external (ACLRT_PROGRESS=external) and no "
                          "thread has called aclrtxDeviceProgress for device %u in the last %llu ms",
                          what, (int)timeout_ms, device, (unsigned long long)(idle / ACLRT_NS_PER_MS));
    return aclrt_fail(rc, "%s did not finish within %d ms", what, (int)timeout_ms);
}

/*
 * Word the failure of a wait on s (aclrt_stream_wait_count's codes), work of
 * device `device`; `what` names what was waited for. Reads nothing of s but
 * its slot index: s may be a life that ended meanwhile.
 */
ACLRT_INTERNAL aclError aclrt_stream_wait_fail_on(const struct aclrt_stream *s, uint32_t device, aclError rc,
                                                  const char *what, int32_t timeout_ms)
{
    int id = (int)aclrt_slot_index(&s->hdr);
    if (rc == ACL_ERROR_RT_DEV_SETUP_ERROR)
        return aclrt_fail_orphaned();
    if (rc == ACL_ERROR_RT_STREAM_ABORT)
        return aclrt_fail(rc, "%s: stream %d was aborted while this call waited", what, id);
    if (rc == ACL_ERROR_RT_TASK_ABORT_STOP)
        return aclrt_fail(rc, "%s: stream %d is stopped (aclrtStreamStop) short of the work waited for", what, id);
    return aclrt_wait_timeout_fail(rc, what, timeout_ms, device);
}

/* aclrt_stream_wait_fail_on for a caller that holds s (its device is its own). */
ACLRT_INTERNAL aclError aclrt_stream_wait_fail(const struct aclrt_stream *s, aclError rc, const char *what,
                                               int32_t timeout_ms)
{
    return aclrt_stream_wait_fail_on(s, s->device->id, rc, what, timeout_ms);
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
    ACLRT_SAN(edge, NULL, s, target);
    aclError err = aclrt_stream_take_error(s);
    if (err != ACL_SUCCESS)
        return aclrt_fail(err, "a task of stream %d failed", (int)aclrt_slot_index(&s->hdr));
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_STREAM_STREAM_SYNC_H */
