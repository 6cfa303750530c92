/*
 * impl/context/teardown.h - tearing down the streams of a context (its
 * release: aclrtResetDevice, aclrtResetDeviceForce, aclrtDestroyContext,
 * aclFinalize): they are waited for while their work can still finish, and
 * what is parked for good is discarded.
 *
 *   - While a stream of the set runs a task, is ready to run, or has just
 *     been given one, its work can finish: wait.
 *   - Once every unfinished stream of the set is parked (on another
 *     stream, an event's record, a notify, a callback, a value, a timer, or
 *     stopped), it waits for something outside the set. It is discarded
 *     when nothing the runtime runs can bring that any more: no stream of
 *     the whole runtime running or ready, and no task completed anywhere,
 *     throughout ACLRT_TEARDOWN_QUIET_NS (what is left could only come from
 *     a call of another thread, or never); or when the set has made no
 *     progress for ACLRT_TEARDOWN_PATIENCE_NS while the rest of the runtime
 *     stays busy with work that does not release it. Nothing looks at what
 *     a stream waits for: the rule is the same for every kind of wait.
 *   - Discarding is aclrtStreamAbort's and aclrtDestroyStreamForce's: the
 *     parked task and everything after it are dropped and counted as done,
 *     so events captured behind them complete, and a thread synchronizing
 *     such a stream returns ACL_ERROR_RT_STREAM_ABORT. Work already handed
 *     off (an external task in flight) finishes first.
 *
 * A walk of the stream table reads only atomics (generation, schedule word,
 * counts), so it races with nothing; the set itself was listed under the
 * streams lock.
 */
#ifndef ACLRT_IMPL_CONTEXT_TEARDOWN_H
#define ACLRT_IMPL_CONTEXT_TEARDOWN_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/handle.h"
#include "../task/ring.h"
#include "../../backends/backend.h"
#include "../runtime/hooks.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_life.h"
#include "../stream/stream_sync.h"

#define ACLRT_TEARDOWN_QUIET_NS (2 * ACLRT_NS_PER_MS)
#define ACLRT_TEARDOWN_PATIENCE_NS (1000 * ACLRT_NS_PER_MS)
#define ACLRT_TEARDOWN_POLL_NS (500 * ACLRT_NS_PER_US) /* between looks, unless the awaited stream moves first */

enum aclrt_activity { ACLRT_STREAM_FINISHED, ACLRT_STREAM_PARKED, ACLRT_STREAM_ACTIVE };

/* Where a stream's work stands (atomics only); *done: its completed count. */
static enum aclrt_activity aclrt_stream_activity(const struct aclrt_stream *s, uint64_t *done)
{
    /* Acquire: pairs with the CASes that hand the stream over (stream.h); a hint, looked at again. */
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    *done = aclrt_stream_done(s);
    switch (aclrt_stream_state(w)) {
    case ACLRT_SCHED_PARKED: /* behind work on the device, which finishes by itself: as a running task */
        return aclrt_rt.backend->stream_device_busy != NULL && aclrt_rt.backend->stream_device_busy(s)
                   ? ACLRT_STREAM_ACTIVE
                   : ACLRT_STREAM_PARKED;
    case ACLRT_SCHED_IDLE: /* work reserved and not scheduled yet is a launch about to kick it */
        return aclrt_ring_extend(*done, aclrt_ring_reserved(&s->ring)) == *done ? ACLRT_STREAM_FINISHED
                                                                                  : ACLRT_STREAM_ACTIVE;
    default: return ACLRT_STREAM_ACTIVE;
    }
}

/* One look at the set and at the whole runtime. */
struct aclrt_teardown_look {
    size_t unfinished;         /* streams of the set with work not done */
    bool settled;              /* every unfinished one is parked */
    uint64_t set_done;         /* the set's completed counts, summed */
    bool busy;                 /* a stream of the runtime runs, is ready, or was just given work */
    uint64_t all_done;         /* every live stream's completed count, summed */
    struct aclrt_stream *wait; /* an unfinished stream of the set to sleep on */
};

static void aclrt_teardown_look(const struct aclrt_stream_ref *set, size_t n, struct aclrt_teardown_look *l)
{
    memset(l, 0, sizeof *l);
    l->settled = true;
    for (size_t i = 0; i < n; i++) {
        uint64_t done;
        enum aclrt_activity a = aclrt_stream_activity(set[i].s, &done);
        l->set_done += done;
        if (a == ACLRT_STREAM_FINISHED)
            continue;
        l->unfinished++;
        if (l->wait == NULL || a == ACLRT_STREAM_ACTIVE)
            l->wait = set[i].s;
        if (a == ACLRT_STREAM_ACTIVE)
            l->settled = false;
    }
    ACLRT_TABLE_FOREACH(&aclrt_streams, struct aclrt_stream, s)
    {
        /* Acquire: pairs with aclrt_table_publish; a slot alive now may die meanwhile: only atomics are read. */
        if (!(atomic_load_explicit(&s->hdr.generation, memory_order_acquire) & 1u))
            continue;
        uint64_t done;
        if (aclrt_stream_activity(s, &done) == ACLRT_STREAM_ACTIVE)
            l->busy = true;
        l->all_done += done;
    }
}

/* Wait until no stream of the set can still make progress by itself (see above); false if all finished. */
static bool aclrt_teardown_settle(const struct aclrt_stream_ref *set, size_t n)
{
    uint64_t progress_at = aclrt_now_ns(), set_done = UINT64_MAX;
    uint64_t quiet_since = 0, quiet_done = 0;
    for (;;) {
        struct aclrt_teardown_look l;
        aclrt_teardown_look(set, n, &l);
        if (l.unfinished == 0)
            return false;
        uint64_t now = aclrt_now_ns();
        if (!l.settled || l.set_done != set_done) {
            progress_at = now;
            set_done = l.set_done;
        }
        if (!l.settled || l.busy || l.all_done != quiet_done)
            quiet_since = 0;
        if (l.settled && !l.busy) {
            if (quiet_since == 0) {
                quiet_since = now;
                quiet_done = l.all_done;
            } else if (now - quiet_since >= ACLRT_TEARDOWN_QUIET_NS) {
                return true; /* nothing the runtime runs can release them */
            }
        }
        if (l.settled && now - progress_at >= ACLRT_TEARDOWN_PATIENCE_NS)
            return true; /* the rest of the runtime stays busy without releasing them */
        uint64_t seen = aclrt_stream_done(l.wait);
        aclrt_stream_wait_done(l.wait, seen + 1, now + ACLRT_TEARDOWN_POLL_NS, 0, NULL, NULL);
    }
}

/*
 * Discard what is left of the set's work, all of it together, and wait
 * until it is gone (an executor drops it; work handed off finishes first).
 * Every stream is flagged before any is woken: a wait that the discard of
 * another stream of the set would satisfy is discarded too, whatever the
 * order of the streams (as on a device, where the discarded record never
 * happens). The abort epoch moves around it, so that a synchronizer of
 * these streams returns ACL_ERROR_RT_STREAM_ABORT (stream_sync.h).
 */
static void aclrt_teardown_discard(const struct aclrt_stream_ref *set, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct aclrt_stream *s = set[i].s;
        /* Acq_rel: pairs with the synchronizers' acquire loads of the epoch (aclrt_stream_aborted_since). */
        atomic_fetch_add_explicit(&s->aborts, 1, memory_order_acq_rel);
        /* Release: the executor that sees DISCARD (acquire on the schedule word) sees the bound too. */
        atomic_store_explicit(&s->discard_until, UINT64_MAX, memory_order_release);
        aclrt_stream_change_flags(s, ACLRT_SCHED_DISCARD, 0, false);
    }
    for (size_t i = 0; i < n; i++)
        aclrt_stream_change_flags(set[i].s, 0, 0, true); /* parked: wake it to discard */
    for (size_t i = 0; i < n; i++) {
        struct aclrt_stream *s = set[i].s;
        aclrt_stream_wait_done(s, aclrt_stream_submitted(s), ACLRT_NO_DEADLINE, aclrt_rt.config.spin_ns, NULL, NULL);
        /* Even again. Release: pairs with the acquire in aclrt_stream_aborted_since. */
        atomic_fetch_add_explicit(&s->aborts, 1, memory_order_release);
    }
}

/*
 * Tear down a list of streams (see above). Their stream state callbacks
 * (DESTROY_PRE) run first, all of them, before anything is waited for: as
 * for a destroy, before the stream's work is waited for.
 */
ACLRT_INTERNAL void aclrt_teardown_streams(const struct aclrt_stream_ref *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        aclrt_fire_stream_state(aclrt_handle_encode(ACLRT_KIND_STREAM, aclrt_slot_index(&set[i].s->hdr),
                                                    set[i].life >> 1),
                                ACL_RT_STREAM_STATE_DESTROY_PRE);
    if (aclrt_teardown_settle(set, n))
        aclrt_teardown_discard(set, n);
    /* Nothing is left to wait for: whatever a racing launch added now is discarded with the stream. */
    for (size_t i = 0; i < n; i++)
        if (aclrt_slot_alive(&set[i].s->hdr, set[i].life))
            aclrt_stream_destroy_announced(set[i].s, set[i].life, ACLRT_DESTROY_DISCARD);
}

#endif /* ACLRT_IMPL_CONTEXT_TEARDOWN_H */
