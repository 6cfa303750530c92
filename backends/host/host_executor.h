/*
 * backends/host/host_executor.h - the executor threads of a host device and
 * how they hold streams.
 *
 * An executor takes a stream from the ready queues and runs it (the core's
 * aclrt_stream_run) until the stream is empty, parked, or has used its
 * budget while other streams wait. When the ring empties it lingers on the
 * stream for a moment in case its launcher is in the middle of a burst,
 * then lets go (aclrt_stream_release). With nothing queued it spins for
 * `spin_ns`, then sleeps on a futex until a push wakes it or the earliest
 * parked deadline comes.
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_EXECUTOR_H
#define ACLRT_BACKENDS_HOST_HOST_EXECUTOR_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/config.h"
#include "../../impl/core/futex.h"
#include "../../impl/core/spin_share.h"
#include "../backend.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/stream/wait_task.h"
#include "../../impl/exec/exec.h"
#include "host_blocks.h"
#include "host_pool.h"

/* Tasks a stream runs before it lets other ready streams have its thread. */
#define ACLRT_HOST_RUN_BUDGET 64
#define ACLRT_HOST_LINGER_NS (5 * ACLRT_NS_PER_US) /* at most spin_ns */
#define ACLRT_HOST_LINGER_LOOK 16                   /* pauses between looks at the ring */
#define ACLRT_HOST_WOKEN_SPIN_DIVISOR 8             /* spin_ns / 8 right after a futex wake-up */
#define ACLRT_HOST_LAUNCHER_YIELDS 16               /* yields to a launcher beside the executor, at most */

/*
 * The ring is empty: keep s for a moment in case its launcher is in the
 * middle of a burst. While s stays held a launch costs the launcher one
 * load of the schedule word; letting go at every empty ring would make each
 * launch of a burst schedule the stream again (a CAS, a ready-queue push, a
 * wake-up check). The executor would spin idle for spin_ns anyway; this
 * spins on s's ring first, and stops as soon as other work is queued or s
 * gets a flag (destroy, discard, stop).
 *
 * While it lingers the executor counts as a poller, so a launch onto
 * another stream wakes nobody. After its last look it checks the ready
 * queues once more: work pushed meanwhile is its to take, so s yields if a
 * task came too.
 */
enum aclrt_host_linger { ACLRT_HOST_LINGER_TASK, ACLRT_HOST_LINGER_EMPTY, ACLRT_HOST_LINGER_YIELD };

static enum aclrt_host_linger aclrt_host_linger(struct aclrt_host_device *hd, struct aclrt_stream *s)
{
    uint64_t linger_ns = aclrt_min_u64(aclrt_rt.config.spin_ns, ACLRT_HOST_LINGER_NS);
    if (linger_ns == 0 || aclrt_host_has_work(hd))
        return ACLRT_HOST_LINGER_EMPTY; /* other streams are waiting: let go at once */
    atomic_fetch_add_explicit(&hd->pollers, 1, memory_order_seq_cst);
    bool came = false;
    uint64_t end = 0, share = 0;
    for (unsigned i = 0;; i++) {
        /*
         * Look every ACLRT_HOST_LINGER_LOOK pauses, not at every one: each
         * look pulls the line the launcher commits to, so a tight look makes
         * every launch of a burst miss; a few pauses apart, tasks arrive in
         * batches.
         */
        if ((i % ACLRT_HOST_LINGER_LOOK) == 0 && aclrt_stream_has_queued(s)) {
            came = true;
            break;
        }
        aclrt_cpu_relax();
        if ((i & 15) == 15) {
            if (aclrt_stream_flagged(s) || aclrt_host_has_work(hd))
                break;
            uint64_t now = aclrt_now_ns();
            if (end == 0)
                end = now + linger_ns;
            else if (now >= end)
                break;
            /* Its launcher was preempted between reserve and commit: give it the CPU rather than spin. */
            if (aclrt_stream_launch_pending(s))
                sched_yield();
            else if (aclrt_host_crowded_now(hd))
                aclrt_spin_share(now, &share);
        }
    }
    /* Seq_cst, then the look: pairs with a launcher's push-then-read of `pollers` (host_pool.h). */
    atomic_fetch_sub_explicit(&hd->pollers, 1, memory_order_seq_cst);
    if (aclrt_host_has_work(hd))
        return came ? ACLRT_HOST_LINGER_YIELD : ACLRT_HOST_LINGER_EMPTY;
    return came ? ACLRT_HOST_LINGER_TASK : ACLRT_HOST_LINGER_EMPTY;
}

/*
 * The ring ran empty and this run woke its launcher, asleep for room on this
 * CPU and alone on the ring, which has not run since
 * (aclrt_ring_woke_beside_here): it is about to launch here again. Keep the
 * stream and give it the CPU: its launches then find the stream held (no
 * schedule, no wake-up), and it gives the CPU back when the ring is full
 * again. A yield need not run it (the kernel may pick this thread again, or
 * another), so yield until it has run: it leaves `room_waiters` once it
 * runs, then reserves, then commits. True if a task came; false (let go) if
 * the launcher ran and launched nothing, other work waits, or the stream is
 * flagged.
 */
static bool aclrt_host_yield_to_launcher(struct aclrt_host_device *hd, struct aclrt_stream *s)
{
    for (int i = 0; i < ACLRT_HOST_LAUNCHER_YIELDS; i++) {
        if (aclrt_host_has_work(hd) || aclrt_stream_flagged(s))
            return false;
        sched_yield();
        if (aclrt_stream_has_queued(s))
            return true;
        if (atomic_load_explicit(&s->ring.room_waiters, memory_order_relaxed) == 0 && !aclrt_stream_launch_pending(s))
            return false;
    }
    return aclrt_stream_has_queued(s);
}

/* Hold a stream handed out by the ready queues until it is let go; with `linger`, keep it briefly when empty. */
static void aclrt_host_hold(struct aclrt_host_device *hd, struct aclrt_stream *s, bool linger)
{
    aclrt_stream_take(s);
    /*
     * More ready work: pass the wake-up on. Two pushes can both have counted
     * the one sleeper that took this stream; with nobody left asleep, the
     * monitor watches the rest (it adds an executor if they stay queued).
     */
    if (aclrt_host_has_work(hd))
        aclrt_host_find_taker(hd, 1);
    for (;;) {
        aclrt_host_holding = hd; /* wake-ups for this device may be put off while it counts completions */
        enum aclrt_hold hold = aclrt_stream_run(s, ACLRT_HOST_RUN_BUDGET, NULL);
        aclrt_host_holding = NULL;
        if (hold == ACLRT_HOLD_NONE)
            return;
        if (hold == ACLRT_HOLD_BUDGET) {
            if (aclrt_host_has_work(hd) && aclrt_stream_yield(s))
                return;
            continue;
        }
        if (aclrt_ring_woke_beside_here(&s->ring) && aclrt_host_yield_to_launcher(hd, s))
            continue;
        enum aclrt_host_linger l = linger ? aclrt_host_linger(hd, s) : ACLRT_HOST_LINGER_EMPTY;
        if (l == ACLRT_HOST_LINGER_TASK)
            continue;
        if (l == ACLRT_HOST_LINGER_YIELD) {
            if (aclrt_stream_yield(s))
                return;
            continue;
        }
        if (aclrt_stream_release(s))
            return;
    }
}

/* Spin for up to spin_ns waiting for work; true if some appeared. */
static bool aclrt_host_spin(struct aclrt_host_device *hd, uint64_t spin_ns)
{
    if (spin_ns == 0)
        return false;
    uint64_t end = aclrt_now_ns() + spin_ns;
    /*
     * A poller: seq_cst increment before the first look, decrement after the
     * last. With spin_max threads polling already (spinners, lingerers) it
     * goes to sleep instead: as a spin that found nothing would. So it does
     * while the executors awake outnumber the CPUs (aclrt_host_crowded_now):
     * an idle spin would only take turns at a CPU with one that has work.
     */
    if (aclrt_host_crowded_now(hd))
        return false;
    if (atomic_fetch_add_explicit(&hd->pollers, 1, memory_order_seq_cst) >= hd->spin_max) {
        atomic_fetch_sub_explicit(&hd->pollers, 1, memory_order_seq_cst);
        return false;
    }
    bool found = false;
    for (unsigned i = 1;; i++) {
        if (aclrt_host_has_work(hd) || aclrt_host_kernel_help(hd)) {
            found = true;
            break;
        }
        aclrt_cpu_relax();
        if ((i & 63) != 0)
            continue;
        uint64_t now = aclrt_now_ns();
        if (now >= end || atomic_load_explicit(&hd->stopping, memory_order_relaxed) || aclrt_host_crowded_now(hd))
            break;
    }
    atomic_fetch_sub_explicit(&hd->pollers, 1, memory_order_seq_cst);
    return found;
}

/*
 * Just woken: does this executor run on the CPU of its waker, having
 * preempted it (it runs within ACLRT_HOST_PREEMPTED_NS of the wake-up)?
 * Where the kernel lets a waker run on instead, the executor gets the CPU
 * only once the waker blocks or its time slice ends, and that is no reason
 * to stop spinning.
 */
#define ACLRT_HOST_PREEMPTED_NS (50 * ACLRT_NS_PER_US)

/*
 * Ticks (aclrt_ticks) in `ns` nanoseconds: the rate measured against the
 * clock over the device's life, once it has run a millisecond (one clock
 * read then); before that a rate of 4 GHz, which makes a window at least as
 * long as asked.
 */
static uint64_t aclrt_host_ticks_in(struct aclrt_host_device *hd, uint64_t ns, uint64_t now_ticks)
{
    uint64_t per_us = atomic_load_explicit(&hd->ticks_per_us, memory_order_relaxed);
    if (ACLRT_UNLIKELY(per_us == 0)) {
        uint64_t ran = aclrt_now_ns() - hd->start_ns;
        if (ran < ACLRT_NS_PER_MS)
            return ns * 4;
        per_us = (now_ticks - hd->start_ticks) / (ran / ACLRT_NS_PER_US);
        if (per_us == 0)
            per_us = 1;
        atomic_store_explicit(&hd->ticks_per_us, per_us, memory_order_relaxed);
    }
    return ns / ACLRT_NS_PER_US * per_us;
}

static bool aclrt_host_preempted_waker(struct aclrt_host_device *hd)
{
    if (sched_getcpu() != atomic_load_explicit(&hd->waker_cpu, memory_order_relaxed))
        return false;
    /* Both ticks taken on this CPU (the waker's): comparable even where CPUs' counters are not. */
    uint64_t now = aclrt_ticks();
    return now - atomic_load_explicit(&hd->wake_ticks, memory_order_relaxed) <
           aclrt_host_ticks_in(hd, ACLRT_HOST_PREEMPTED_NS, now);
}

/* Sleep until woken, until the earliest timer, or (extras) until it is time to retire. */
static void aclrt_host_sleep(struct aclrt_host_device *hd, uint64_t limit_ns)
{
    uint32_t seq = atomic_load_explicit(&hd->wake_seq, memory_order_acquire);
    atomic_fetch_add_explicit(&hd->sleepers, 1, memory_order_seq_cst);
    if (!aclrt_host_has_work(hd) && !atomic_load_explicit(&hd->stopping, memory_order_seq_cst)) {
        uint64_t deadline = aclrt_device_next_deadline(hd->dev);
        if (deadline == UINT64_MAX)
            deadline = ACLRT_NO_DEADLINE;
        /* Woken by a wake call: no longer on its way (aclrt_host_wake_for), seq_cst before it looks at the queues. */
        if (aclrt_futex_wait(&hd->wake_seq, seq, aclrt_min_u64(deadline, limit_ns)))
            atomic_fetch_sub_explicit(&hd->woken, 1, memory_order_seq_cst);
    }
    atomic_fetch_sub_explicit(&hd->sleepers, 1, memory_order_relaxed);
}

#define ACLRT_HOST_EXTRA_IDLE_NS (200 * ACLRT_NS_PER_MS) /* an extra executor retires after this idle */

static void *aclrt_host_executor_main(void *arg)
{
    struct aclrt_host_executor *ex = (struct aclrt_host_executor *)arg;
    struct aclrt_host_device *hd = ex->hd;
    char name[16];
    snprintf(name, sizeof name, "aclrt-d%u-e%u", hd->dev->id, ex->index);
    pthread_setname_np(pthread_self(), name);
    uint64_t idle_since = aclrt_now_ns();
    bool woken = false;        /* slept since it last found work by spinning */
    bool beside_waker = false; /* woken onto its waker's CPU, preempting it: it does not spin (below) */
    for (;;) {
        struct aclrt_stream *s = aclrt_host_next(hd);
        if (s != NULL) {
            atomic_fetch_add_explicit(&hd->dequeues, 1, memory_order_relaxed);
            aclrt_host_hold(hd, s, !beside_waker);
            aclrt_tls.owed_wake = NULL; /* a wake-up put off: this executor looks at the ready queues itself now */
            idle_since = aclrt_now_ns();
            continue;
        }
        if (atomic_load_explicit(&hd->stopping, memory_order_acquire))
            break;
        if (aclrt_device_next_deadline(hd->dev) != UINT64_MAX)
            aclrt_device_fire_timers(hd->dev);
        if (aclrt_host_kernel_help(hd))
            continue;
        /*
         * An executor just woken from its futex spins briefly: it may run
         * on its waker's CPU (the kernel's wake-affine placement), having
         * preempted it, and would hold the waker off for a whole spin_ns.
         * Where it did preempt its waker there (a launcher and its
         * executors on one CPU, on a kernel that runs the woken thread
         * first: aclrt_host_preempted_waker), it neither spins nor lingers
         * on an emptied stream until it sleeps again: while it polls, the
         * thread that would bring it more work cannot run. It sleeps at
         * once, and the next launch wakes it (a wake-up on the same CPU, no
         * interrupt to another). One that keeps finding work by spinning
         * spins the full time.
         */
        uint64_t spin_ns = aclrt_rt.config.spin_ns;
        if (beside_waker)
            spin_ns = 0;
        else if (woken)
            spin_ns /= ACLRT_HOST_WOKEN_SPIN_DIVISOR;
        if (aclrt_host_spin(hd, spin_ns)) {
            woken = false;
            continue;
        }
        uint64_t limit = ACLRT_NO_DEADLINE;
        if (ex->extra) {
            limit = idle_since + ACLRT_HOST_EXTRA_IDLE_NS;
            if (aclrt_now_ns() >= limit)
                break; /* retire: the pool is back to its configured size */
        }
        aclrt_host_sleep(hd, limit);
        woken = true;
        beside_waker = aclrt_host_preempted_waker(hd);
    }
    if (ex->extra) {
        free(ex);
        /* Release: the device may be freed once this reaches 0 (aclrt_host_device_stop). */
        atomic_fetch_sub_explicit(&hd->extra_running, 1, memory_order_release);
    }
    return NULL;
}

ACLRT_INTERNAL bool aclrt_host_start_executor(struct aclrt_host_executor *ex)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1u << 20);
    if (ex->extra)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = aclrt_config_thread_create(&aclrt_rt.config, &ex->thread, &attr, aclrt_host_executor_main, ex);
    pthread_attr_destroy(&attr);
    return rc == 0;
}

#endif /* ACLRT_BACKENDS_HOST_HOST_EXECUTOR_H */
