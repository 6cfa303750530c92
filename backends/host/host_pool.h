/*
 * backends/host/host_pool.h - the host backend's devices: ready queues of
 * streams and the threads that take them.
 *
 *   - A stream with work is in one of its device's ready queues (one per
 *     priority, 0 first) at most once: the core calls schedule() once per
 *     READY period (backends/backend.h).
 *   - With executor threads (the default), an idle executor spins for
 *     `spin_ns`, then sleeps on a futex. A push wakes nobody while some
 *     executor polls (spins, or lingers on an emptied stream: `pollers`),
 *     else one sleeper with one futex call (none where a thread on the
 *     runtime's one CPU finds every sleeper woken already and none running
 *     yet: aclrt_host_wake_for): pushing to a ready queue
 *     (seq_cst CAS) then reading `pollers` and `sleepers` pairs with an
 *     executor incrementing `sleepers` (or decrementing `pollers`) then
 *     re-checking the queues, so one of the two always sees the other.
 *   - With external progress (aclrt.progress "external", or a backend an
 *     embedder registered), there are no threads: the embedder's own threads
 *     call aclrtxDeviceProgress (host_progress.h). A push then makes the
 *     device's eventfd readable, and calls the embedder's wake-up hook, when
 *     a progress call has gone idle since (`armed`). The deterministic
 *     schedule (host_det.h) works the same way, its waiters in the place of
 *     the progress calls.
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_POOL_H
#define ACLRT_BACKENDS_HOST_HOST_POOL_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/futex.h"
#include "../../impl/core/thread.h"
#include "../../impl/task/mpmc.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/stream/stream.h"

#include <sys/eventfd.h>

#define ACLRT_HOST_PRIORITIES 8

struct aclrt_host_device;
struct aclrt_host_kernel_job;

struct aclrt_host_executor {
    struct aclrt_host_device *hd;
    pthread_t thread;
    uint32_t index;
    bool extra; /* added by the monitor (detached, owns its struct); retires when idle */
};

struct aclrt_host_device {
    struct aclrt_device *dev;
    struct aclrt_mpmc ready[ACLRT_HOST_PRIORITIES];
    /*
     * Threads polling for this device's work (idle executors spinning,
     * executors lingering on an emptied stream): they will see a new READY
     * stream without being woken. Seq_cst increments before they look,
     * decrements after their last look.
     */
    _Atomic uint32_t pollers;
    /*
     * At most this many idle executors spin at once: the CPUs the runtime's
     * threads can run on. Two spinners on one CPU take turns at it, and the
     * one holding it keeps the other, and any thread that would run there,
     * waiting for nothing.
     */
    uint32_t spin_max;
    _Atomic uint32_t sleepers;
    _Atomic uint32_t wake_seq; /* futex word executors sleep on */
    /*
     * Sleepers a wake call took off the futex that have not yet left
     * aclrt_host_sleep: at most the true count (the waker adds after its
     * call, the sleeper takes off as it leaves, either may come first, so it
     * can dip below zero for a moment; never above). See aclrt_host_wake_for.
     */
    _Atomic int32_t woken;
    /* The last wake-up of a sleeper: the waker's CPU (-1: none yet) and when, in ticks (hints, relaxed). */
    _Atomic int32_t waker_cpu;
    _Atomic uint64_t wake_ticks;
    _Atomic bool stopping;
    uint32_t executor_count;
    struct aclrt_host_executor *executors;
    _Atomic uint64_t dequeues; /* streams taken from the ready queues (progress, for the monitor) */
    /* Host kernel shared with idle executors (one at a time, host_blocks.h). */
    _Atomic(struct aclrt_host_kernel_job *) kernel;
    _Atomic uint32_t kernel_helpers; /* threads that may be looking at `kernel` */
    /* Stuck-executor monitor (host_monitor.h). */
    pthread_t monitor;
    _Atomic uint32_t monitor_word;  /* futex word the monitor sleeps on */
    _Atomic bool monitor_sleeping;
    _Atomic uint32_t extra_running; /* extra executors alive */
    /* External progress (host_progress.h), and the deterministic schedule, which is external too (host_det.h). */
    bool external;
    bool det;
    int event_fd;                  /* readable when work arrives; -1: none */
    _Atomic bool armed;            /* a progress call went idle: the next push signals */
    void (*wake_hook)(void *user, int32_t device); /* an embedder's backend: told too */
    void *wake_user;
    /* The tick rate (aclrt_host_ticks_in): 0 until measured, from the clock and ticks at the device's start. */
    _Atomic uint64_t ticks_per_us;
    uint64_t start_ns, start_ticks;
};

ACLRT_INLINE struct aclrt_host_device *aclrt_host_of(struct aclrt_device *dev)
{
    return (struct aclrt_host_device *)dev->backend_state;
}

ACLRT_INLINE bool aclrt_host_has_work(struct aclrt_host_device *hd)
{
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++)
        if (aclrt_mpmc_nonempty(&hd->ready[p]))
            return true;
    return false;
}

ACLRT_INTERNAL struct aclrt_stream *aclrt_host_next(struct aclrt_host_device *hd)
{
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++) {
        struct aclrt_stream *s = (struct aclrt_stream *)aclrt_mpmc_pop(&hd->ready[p]);
        if (s != NULL)
            return s;
    }
    return NULL;
}

ACLRT_INTERNAL void aclrt_host_wake_one(struct aclrt_host_device *hd)
{
    atomic_store_explicit(&hd->waker_cpu, sched_getcpu(), memory_order_relaxed);
    atomic_store_explicit(&hd->wake_ticks, aclrt_ticks(), memory_order_relaxed);
    /* Release: a sleeper that sees the new value also sees the queued stream. */
    atomic_fetch_add_explicit(&hd->wake_seq, 1, memory_order_release);
    if (aclrt_futex_wake(&hd->wake_seq, 1) > 0)
        atomic_fetch_add_explicit(&hd->woken, 1, memory_order_seq_cst);
}

ACLRT_INTERNAL void aclrt_host_wake_monitor(struct aclrt_host_device *hd)
{
    atomic_fetch_add_explicit(&hd->monitor_word, 1, memory_order_release);
    aclrt_futex_wake(&hd->monitor_word, 1);
}

/* External progress: tell the embedder that the device needs a progress call. */
ACLRT_INTERNAL void aclrt_host_signal_external(struct aclrt_host_device *hd)
{
    if (hd->event_fd >= 0) {
        uint64_t one = 1;
        ssize_t n = write(hd->event_fd, &one, sizeof one);
        (void)n; /* EAGAIN: the counter is saturated, so it is readable anyway */
    }
    if (hd->wake_hook != NULL)
        hd->wake_hook(hd->wake_user, (int32_t)hd->dev->id);
}

/*
 * The device whose stream this executor thread runs (aclrt_stream_run,
 * host_executor.h); NULL elsewhere.
 */
static _Thread_local struct aclrt_host_device *aclrt_host_holding ACLRT_TLS_MODEL;

/*
 * A thread on the one CPU the runtime's threads can run on (a launcher
 * beside its executors, or an executor passing a wake-up on): a sleeper it
 * wakes runs only if the kernel preempts the caller at the wake call, else
 * once the caller gives the CPU up. Once every sleeper has been woken and
 * none has run yet (`woken` reaches `sleepers`), a wake call finds nobody
 * on the futex, and only costs the caller a system call per push: in a
 * fan-out of launches onto idle streams, most of each launch, and most of
 * what an executor spends on each single-task stream it takes (it passes
 * the wake-up on while more streams wait). So it is skipped. Sound in any
 * placement: a woken sleeper that `woken` counts takes itself off
 * (seq_cst) only after this load, then looks at the ready queues, so it
 * sees the caller's push; `woken` never counts more sleepers than are on
 * their way. The push still dates the last wake-up (`wake_ticks`), so the
 * executor that runs next sees it ran beside a thread that just pushed,
 * and neither spins nor lingers (aclrt_host_preempted_waker): spinning
 * there, it held the CPU from four launchers on their own streams, 10 -
 * 25 % of their throughput. Where the woken executors run on another CPU
 * than the caller the call is made: it is not futile there.
 */
static void aclrt_host_wake_for(struct aclrt_host_device *hd, uint64_t queued)
{
    uint32_t pollers = atomic_load_explicit(&hd->pollers, memory_order_seq_cst);
    if (pollers > 0 && queued <= pollers)
        return;
    uint32_t sleepers = atomic_load_explicit(&hd->sleepers, memory_order_seq_cst);
    if (sleepers > 0) {
        if (aclrt_rt.only_cpu < 0 ||
            atomic_load_explicit(&hd->woken, memory_order_seq_cst) < (int32_t)sleepers ||
            sched_getcpu() != aclrt_rt.only_cpu)
            aclrt_host_wake_one(hd);
        else /* as the skipped call would have: the executor that runs next runs beside its waker */
            atomic_store_explicit(&hd->wake_ticks, aclrt_ticks(), memory_order_relaxed);
    } else if (ACLRT_UNLIKELY(atomic_load_explicit(&hd->monitor_sleeping, memory_order_seq_cst)))
        aclrt_host_wake_monitor(hd);
}

/* A wake-up put off (aclrt_host_find_taker) comes due: this executor runs another task first. */
static void aclrt_host_owed_wake(void *arg)
{
    struct aclrt_host_device *hd = (struct aclrt_host_device *)arg;
    if (aclrt_host_has_work(hd))
        aclrt_host_wake_for(hd, 1);
}

/*
 * `queued` streams wait in a ready queue: make sure a thread will take them.
 * Enough polling executors need no wake-up (no syscall); otherwise a
 * sleeper is woken, or, with every executor busy, the monitor is, to watch
 * for executors stuck in user code. Seq_cst loads, after the caller's push:
 * see the pairing in the comment at the top of this file. With external
 * progress: the exchange of `armed` (seq_cst, after the push) pairs with the
 * progress call's seq_cst store of `armed` followed by its last look at the
 * queues.
 *
 * Pushed by an executor of the device while it counts its stream's
 * completion (a task done wakes a stream parked on it), the stream is
 * likely its own to take: if its stream has no next task, it leaves it at
 * once for the ready queues (host_executor.h), sooner than a sleeper woken
 * now would run, and without the wake-up's system call, or the sleeper's
 * preempting it where they share a CPU. So the wake-up is put off
 * (thread.h): paid if the executor runs another task of its stream first,
 * dropped once it goes to the ready queues itself. Only there: a task's
 * own code (a host function launching into an idle stream) may block for
 * as long as it likes, and gets the wake-up at once.
 */
ACLRT_INTERNAL void aclrt_host_find_taker(struct aclrt_host_device *hd, uint64_t queued)
{
    if (ACLRT_UNLIKELY(hd->external)) {
        if (atomic_exchange_explicit(&hd->armed, false, memory_order_seq_cst))
            aclrt_host_signal_external(hd);
        return;
    }
    if (aclrt_tls.completing && aclrt_host_holding == hd) {
        aclrt_tls.owed_wake = aclrt_host_owed_wake;
        aclrt_tls.owed_wake_arg = hd;
        return;
    }
    aclrt_host_wake_for(hd, queued);
}

ACLRT_INTERNAL void aclrt_host_schedule(struct aclrt_device *dev, struct aclrt_stream *s)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    /*
     * Never full: a stream is queued at most once and queues hold max_streams.
     * Once pushed, s belongs to whichever thread pops it (which may free it),
     * so nothing of s is read after the push.
     */
    struct aclrt_mpmc *queue = &hd->ready[s->priority];
    while (!aclrt_mpmc_push(queue, s))
        sched_yield();
    aclrt_host_find_taker(hd, aclrt_mpmc_length(queue));
}

/*
 * More of the device's executors are awake (running a stream, spinning,
 * lingering) than there are CPUs for them: a spinning one may be keeping
 * another off its CPU (impl/core/spin_share.h). A hint, from relaxed loads.
 */
ACLRT_INLINE bool aclrt_host_crowded_now(struct aclrt_host_device *hd)
{
    uint32_t all = hd->executor_count + atomic_load_explicit(&hd->extra_running, memory_order_relaxed);
    return all > atomic_load_explicit(&hd->sleepers, memory_order_relaxed) + hd->spin_max;
}

ACLRT_INTERNAL bool aclrt_host_crowded(struct aclrt_device *dev)
{
    return aclrt_host_crowded_now(aclrt_host_of(dev));
}

/* With the deterministic schedule there is always other work: a wait task never spins (host_det.h). */
ACLRT_INTERNAL bool aclrt_host_has_other_work(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    return hd->det || aclrt_host_has_work(hd);
}

/*
 * The earliest parked deadline moved earlier. A sleeping executor recomputes
 * its sleep; with every executor busy (perhaps for seconds in user code),
 * the monitor fires the timer instead, and the stream it wakes is ready
 * work the monitor then finds an executor for. With external progress the
 * embedder hears of it, to shorten its wait.
 */
ACLRT_INTERNAL void aclrt_host_timers_changed(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    if (ACLRT_UNLIKELY(hd->external)) {
        aclrt_host_signal_external(hd);
        return;
    }
    if (atomic_load_explicit(&hd->sleepers, memory_order_seq_cst) > 0)
        aclrt_host_wake_one(hd);
    /*
     * The monitor learns the new deadline too, whether or not a sleeper was
     * woken: the woken executor may take a stream and run user code past the
     * deadline, or be an extra executor that retires before it, and then
     * nobody would fire the timer.
     */
    if (atomic_load_explicit(&hd->monitor_sleeping, memory_order_seq_cst))
        aclrt_host_wake_monitor(hd);
}

#endif /* ACLRT_BACKENDS_HOST_HOST_POOL_H */
