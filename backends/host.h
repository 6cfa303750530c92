/*
 * backends/host.h - the host backend: each device is a pool of executor
 * threads that run streams on the CPU.
 *
 *   - A stream with work is in one of the device's ready queues (one per
 *     priority, 0 first) at most once; an executor dequeues it and runs it
 *     (impl/exec.h) until it is empty, parked or has used its budget, so a
 *     stream runs on at most one executor at a time.
 *   - A stream blocked on a wait is parked (impl/park.h) and holds no
 *     thread: 1,000 streams do not need 1,000 threads.
 *   - An idle executor spins for `spin_ns`, then sleeps on a futex. A
 *     launch that makes a stream READY wakes nobody while some executor
 *     polls (spins, or lingers on an emptied stream: the device's
 *     `pollers`), else one sleeper with one futex call: pushing to a ready
 *     queue (seq_cst CAS) then reading `pollers` and `sleepers` pairs with
 *     an executor incrementing `sleepers` (or decrementing `pollers`) then
 *     re-checking the queues, so one of the two always sees the other.
 *   - Sleepers also wake for the earliest parked deadline (timers).
 *   - A host kernel's blocks are shared: the executor that reaches the task
 *     publishes it in the device's kernel slot and claims blocks one by one;
 *     idle executors (spinning, or woken for it) claim blocks too. The task
 *     completes when every block has returned.
 *   - User code (host functions, host kernels) may block for seconds. A
 *     monitor thread adds an executor when ready work has waited through
 *     two periods of ACLRT_HOST_STUCK_NS with no executor free and no
 *     stream dequeued; extra executors retire once idle. So the number of
 *     executors free to run ready streams recovers its configured size, like
 *     an OS scheduler handing the CPU to another thread. The monitor sleeps
 *     unless work is queued while no executor sleeps: the push that finds
 *     nobody asleep wakes it, so an idle process has no polling thread. It
 *     also sleeps only until the earliest parked deadline and fires it, so
 *     wait timeouts expire even while every executor is in user code.
 */
#ifndef ACLRT_BACKENDS_HOST_H
#define ACLRT_BACKENDS_HOST_H

#include "../impl/base.h"
#include "../impl/clock.h"
#include "../impl/exec.h"
#include "../impl/futex.h"
#include "../impl/mpmc.h"
#include "../impl/runtime.h"
#include "../impl/stream.h"
#include "backend.h"

#define ACLRT_HOST_PRIORITIES 8
#define ACLRT_HOST_STUCK_NS (2 * ACLRT_NS_PER_MS)      /* user code this long counts as stuck */
#define ACLRT_HOST_EXTRA_IDLE_NS (200 * ACLRT_NS_PER_MS) /* an extra executor retires after this idle */
#define ACLRT_HOST_MAX_EXTRA 256
#define ACLRT_HOST_WOKEN_SPIN_DIVISOR 8 /* spin_ns / 8 right after a futex wake-up */

struct aclrt_host_device;

/* A host kernel being run; lives on the stack of the executor that owns it. */
struct aclrt_host_kernel_job {
    aclrtxHostKernel fn;
    void *args;
    uint32_t blocks;
    _Atomic uint32_t next_block; /* next block to claim */
    _Atomic uint32_t done;       /* claimed blocks returned (run or skipped) */
    _Atomic int error;           /* first failing block's code; later blocks are skipped */
};

struct aclrt_host_executor {
    struct aclrt_host_device *hd;
    pthread_t thread;
    uint32_t index;
    bool extra; /* added by the monitor (detached, owns its struct); retires when idle */
};

struct aclrt_host_device {
    struct aclrt_device *dev;
    struct aclrt_mpmc ready[ACLRT_HOST_PRIORITIES];
    _Atomic uint32_t sleepers;
    _Atomic uint32_t wake_seq; /* futex word executors sleep on */
    _Atomic bool stopping;
    uint32_t executor_count;
    struct aclrt_host_executor *executors;
    _Atomic uint64_t dequeues; /* streams taken from the ready queues (progress, for the monitor) */
    /* Host kernel shared with idle executors (one at a time). */
    _Atomic(struct aclrt_host_kernel_job *) kernel;
    _Atomic uint32_t kernel_helpers; /* executors that may be looking at `kernel` */
    /* Stuck-executor monitor. */
    pthread_t monitor;
    _Atomic uint32_t monitor_word;     /* futex word the monitor sleeps on */
    _Atomic bool monitor_sleeping;
    _Atomic uint32_t extra_running;    /* extra executors alive */
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

static struct aclrt_stream *aclrt_host_next(struct aclrt_host_device *hd)
{
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++) {
        struct aclrt_stream *s = (struct aclrt_stream *)aclrt_mpmc_pop(&hd->ready[p]);
        if (s != NULL)
            return s;
    }
    return NULL;
}

static void aclrt_host_wake_one(struct aclrt_host_device *hd)
{
    /* Release: a sleeper that sees the new value also sees the queued stream. */
    atomic_fetch_add_explicit(&hd->wake_seq, 1, memory_order_release);
    aclrt_futex_wake(&hd->wake_seq, 1);
}

static void aclrt_host_wake_monitor(struct aclrt_host_device *hd)
{
    atomic_fetch_add_explicit(&hd->monitor_word, 1, memory_order_release);
    aclrt_futex_wake(&hd->monitor_word, 1);
}

/*
 * `queued` streams wait in a ready queue: make sure an executor will take
 * them. Enough polling executors need no wake-up (no syscall); otherwise a
 * sleeper is woken, or, with every executor busy, the monitor is, to watch
 * for executors stuck in user code. Seq_cst loads, after the caller's push:
 * see the pairing in the comment at the top of this file.
 */
static void aclrt_host_find_taker(struct aclrt_host_device *hd, uint64_t queued)
{
    uint32_t pollers = atomic_load_explicit(&hd->dev->pollers, memory_order_seq_cst);
    if (pollers > 0 && queued <= pollers)
        return;
    if (atomic_load_explicit(&hd->sleepers, memory_order_seq_cst) > 0)
        aclrt_host_wake_one(hd);
    else if (ACLRT_UNLIKELY(atomic_load_explicit(&hd->monitor_sleeping, memory_order_seq_cst)))
        aclrt_host_wake_monitor(hd);
}

static void aclrt_host_schedule(struct aclrt_device *dev, struct aclrt_stream *s)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    /*
     * Never full: a stream is queued at most once and queues hold max_streams.
     * Once pushed, s belongs to whichever executor pops it (which may free
     * it), so nothing of s is read after the push.
     */
    struct aclrt_mpmc *queue = &hd->ready[s->priority];
    while (!aclrt_mpmc_push(queue, s))
        sched_yield();
    aclrt_host_find_taker(hd, aclrt_mpmc_length(queue));
}

static bool aclrt_host_has_other_work(struct aclrt_device *dev)
{
    return aclrt_host_has_work(aclrt_host_of(dev));
}

/*
 * The earliest parked deadline moved earlier. A sleeping executor recomputes
 * its sleep; with every executor busy (perhaps for seconds in user code),
 * the monitor fires the timer instead, and the stream it wakes is ready
 * work the monitor then finds an executor for.
 */
static void aclrt_host_timers_changed(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
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

/* Take a dequeued stream from READY to RUNNING and run it. */
static void aclrt_host_run(struct aclrt_host_device *hd, struct aclrt_stream *s)
{
    atomic_fetch_add_explicit(&hd->dequeues, 1, memory_order_relaxed);
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_relaxed);
    for (;;) {
        uint64_t running = (w & ~(uint64_t)ACLRT_SCHED_STATE) | ACLRT_SCHED_RUNNING;
        /* Acquire: pairs with the release that made it READY (its tasks, its parked task). */
        if (atomic_compare_exchange_weak_explicit(&s->sched, &w, running, memory_order_acquire,
                                                  memory_order_relaxed))
            break;
    }
    /*
     * More ready work: pass the wake-up on. Two pushes can both have counted
     * the one sleeper that took this stream; with nobody left asleep, the
     * monitor watches the rest (it adds an executor if they stay queued).
     */
    if (aclrt_host_has_work(hd))
        aclrt_host_find_taker(hd, 1);
    aclrt_stream_run(s);
}

/* Claim and run blocks of a job until none is left. */
static void aclrt_host_kernel_work(struct aclrt_host_kernel_job *job)
{
    for (;;) {
        uint32_t b = atomic_fetch_add_explicit(&job->next_block, 1, memory_order_relaxed);
        if (b >= job->blocks)
            return;
        /* Every claimed block counts in `done`, so after a failure the rest are claimed and skipped. */
        if (ACLRT_LIKELY(atomic_load_explicit(&job->error, memory_order_relaxed) == 0)) {
            aclError rc = job->fn(b, job->blocks, job->args);
            if (ACLRT_UNLIKELY(rc != ACL_SUCCESS)) {
                int none = 0;
                atomic_compare_exchange_strong_explicit(&job->error, &none, rc, memory_order_relaxed,
                                                        memory_order_relaxed);
            }
        }
        /* Release: the block's writes are visible to the owner that sees `done` reach `blocks`. */
        atomic_fetch_add_explicit(&job->done, 1, memory_order_release);
    }
}

/*
 * An idle executor helps with the published kernel, if any. It announces
 * itself in kernel_helpers *before* reading the slot (seq_cst), and the
 * owner waits for kernel_helpers to drain after withdrawing the job, so no
 * helper touches the job after its owner's frame is gone.
 */
static bool aclrt_host_kernel_help(struct aclrt_host_device *hd)
{
    if (atomic_load_explicit(&hd->kernel, memory_order_relaxed) == NULL)
        return false;
    atomic_fetch_add_explicit(&hd->kernel_helpers, 1, memory_order_seq_cst);
    struct aclrt_host_kernel_job *job = atomic_load_explicit(&hd->kernel, memory_order_seq_cst);
    if (job != NULL)
        aclrt_host_kernel_work(job);
    atomic_fetch_sub_explicit(&hd->kernel_helpers, 1, memory_order_release);
    return job != NULL;
}

static aclError aclrt_host_run_kernel(struct aclrt_device *dev, aclrtxHostKernel fn, uint32_t blocks, void *args)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    struct aclrt_host_kernel_job job = {.fn = fn, .args = args, .blocks = blocks};
    atomic_init(&job.next_block, 0);
    atomic_init(&job.done, 0);
    atomic_init(&job.error, 0);
    struct aclrt_host_kernel_job *none = NULL;
    /* Seq_cst (publishes the job's fields too): pairs with the helpers' load. */
    bool shared = atomic_compare_exchange_strong_explicit(&hd->kernel, &none, &job, memory_order_seq_cst,
                                                          memory_order_relaxed);
    if (shared) {
        uint32_t sleepers = atomic_load_explicit(&hd->sleepers, memory_order_relaxed);
        for (uint32_t i = 0; i < sleepers && i + 1 < blocks; i++)
            aclrt_host_wake_one(hd);
    }
    aclrt_host_kernel_work(&job);
    if (shared) {
        atomic_store_explicit(&hd->kernel, NULL, memory_order_seq_cst);
        while (atomic_load_explicit(&hd->kernel_helpers, memory_order_acquire) != 0)
            aclrt_cpu_relax();
    }
    /* Acquire: pairs with each block's release; every block has returned. */
    uint32_t claimed = atomic_load_explicit(&job.next_block, memory_order_relaxed);
    uint32_t issued = claimed < blocks ? claimed : blocks;
    while (atomic_load_explicit(&job.done, memory_order_acquire) < issued)
        aclrt_cpu_relax();
    return atomic_load_explicit(&job.error, memory_order_relaxed);
}

/* Spin for up to spin_ns waiting for work; true if some appeared. */
static bool aclrt_host_spin(struct aclrt_host_device *hd, uint64_t spin_ns)
{
    if (spin_ns == 0)
        return false;
    uint64_t end = aclrt_now_ns() + spin_ns;
    /* A poller (runtime.h): seq_cst increment before the first look, decrement after the last. */
    atomic_fetch_add_explicit(&hd->dev->pollers, 1, memory_order_seq_cst);
    bool found = false;
    for (unsigned i = 1;; i++) {
        if (aclrt_host_has_work(hd) || aclrt_host_kernel_help(hd)) {
            found = true;
            break;
        }
        aclrt_cpu_relax();
        if ((i & 63) == 0 && (aclrt_now_ns() >= end || atomic_load_explicit(&hd->stopping, memory_order_relaxed)))
            break;
    }
    atomic_fetch_sub_explicit(&hd->dev->pollers, 1, memory_order_seq_cst);
    return found;
}

/* Sleep until woken, until the earliest timer, or (extras) until it is time to retire. */
static void aclrt_host_sleep(struct aclrt_host_device *hd, uint64_t limit_ns)
{
    uint32_t seq = atomic_load_explicit(&hd->wake_seq, memory_order_acquire);
    atomic_fetch_add_explicit(&hd->sleepers, 1, memory_order_seq_cst);
    if (!aclrt_host_has_work(hd) && !atomic_load_explicit(&hd->stopping, memory_order_seq_cst)) {
        uint64_t deadline = aclrt_park_list_min(&hd->dev->timers);
        if (deadline == UINT64_MAX)
            deadline = ACLRT_NO_DEADLINE;
        aclrt_futex_wait(&hd->wake_seq, seq, aclrt_min_u64(deadline, limit_ns));
    }
    atomic_fetch_sub_explicit(&hd->sleepers, 1, memory_order_relaxed);
}

static void *aclrt_host_executor_main(void *arg)
{
    struct aclrt_host_executor *ex = (struct aclrt_host_executor *)arg;
    struct aclrt_host_device *hd = ex->hd;
    char name[16];
    snprintf(name, sizeof name, "aclrt-d%u-e%u", hd->dev->id, ex->index);
    pthread_setname_np(pthread_self(), name);
    uint64_t idle_since = aclrt_now_ns();
    bool woken = false; /* slept since it last found work by spinning */
    for (;;) {
        struct aclrt_stream *s = aclrt_host_next(hd);
        if (s != NULL) {
            aclrt_host_run(hd, s);
            idle_since = aclrt_now_ns();
            continue;
        }
        if (atomic_load_explicit(&hd->stopping, memory_order_acquire))
            break;
        if (aclrt_park_list_min(&hd->dev->timers) != UINT64_MAX)
            aclrt_device_fire_timers(hd->dev);
        if (aclrt_host_kernel_help(hd))
            continue;
        /*
         * An executor just woken from its futex usually runs on its waker's
         * CPU (the kernel's wake-affine placement), having preempted it: it
         * spins briefly, so as not to hold the waker off its CPU for a whole
         * spin_ns. One that keeps finding work spins the full time.
         */
        uint64_t spin_ns = aclrt_rt.config.spin_ns;
        if (woken)
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
    }
    if (ex->extra) {
        free(ex);
        /* Release: the device may be freed once this reaches 0 (aclrt_host_device_stop). */
        atomic_fetch_sub_explicit(&hd->extra_running, 1, memory_order_release);
    }
    return NULL;
}

static bool aclrt_host_start_executor(struct aclrt_host_device *hd, struct aclrt_host_executor *ex)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1u << 20);
    if (ex->extra)
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&ex->thread, &attr, aclrt_host_executor_main, ex);
    pthread_attr_destroy(&attr);
    (void)hd;
    return rc == 0;
}

/* Work is queued and no executor is asleep to take it. */
ACLRT_INLINE bool aclrt_host_backlogged(struct aclrt_host_device *hd)
{
    return atomic_load_explicit(&hd->sleepers, memory_order_seq_cst) == 0 && aclrt_host_has_work(hd);
}

static void aclrt_host_add_extra(struct aclrt_host_device *hd, uint32_t index)
{
    struct aclrt_host_executor *ex = (struct aclrt_host_executor *)calloc(1, sizeof *ex);
    if (ex == NULL)
        return;
    ex->hd = hd;
    ex->index = index;
    ex->extra = true;
    atomic_fetch_add_explicit(&hd->extra_running, 1, memory_order_relaxed);
    if (!aclrt_host_start_executor(hd, ex)) {
        atomic_fetch_sub_explicit(&hd->extra_running, 1, memory_order_relaxed);
        free(ex);
    }
}

static void *aclrt_host_monitor_main(void *arg)
{
    struct aclrt_host_device *hd = (struct aclrt_host_device *)arg;
    char name[16];
    snprintf(name, sizeof name, "aclrt-d%u-mon", hd->dev->id);
    pthread_setname_np(pthread_self(), name);
    uint32_t index = hd->executor_count;
    unsigned stuck_periods = 0;
    while (!atomic_load_explicit(&hd->stopping, memory_order_acquire)) {
        uint32_t word = atomic_load_explicit(&hd->monitor_word, memory_order_acquire);
        aclrt_device_fire_timers(hd->dev);
        if (!aclrt_host_backlogged(hd)) {
            /*
             * Sleep until a push finds nobody asleep (seq_cst flag, then
             * re-check: pairs with the push), or until the earliest parked
             * deadline, which it fires itself if no executor is free to.
             */
            atomic_store_explicit(&hd->monitor_sleeping, true, memory_order_seq_cst);
            if (!aclrt_host_backlogged(hd) && !atomic_load_explicit(&hd->stopping, memory_order_seq_cst)) {
                uint64_t deadline = aclrt_park_list_min(&hd->dev->timers);
                aclrt_futex_wait(&hd->monitor_word, word, deadline == UINT64_MAX ? ACLRT_NO_DEADLINE : deadline);
            }
            atomic_store_explicit(&hd->monitor_sleeping, false, memory_order_relaxed);
            stuck_periods = 0;
            continue;
        }
        uint64_t before = atomic_load_explicit(&hd->dequeues, memory_order_relaxed);
        aclrt_futex_wait(&hd->monitor_word, word, aclrt_deadline_after(ACLRT_HOST_STUCK_NS));
        bool progressed = atomic_load_explicit(&hd->dequeues, memory_order_relaxed) != before;
        if (progressed || !aclrt_host_backlogged(hd)) {
            stuck_periods = 0;
            continue;
        }
        if (++stuck_periods >= 2 && atomic_load_explicit(&hd->extra_running, memory_order_relaxed) < ACLRT_HOST_MAX_EXTRA) {
            aclrt_host_add_extra(hd, index++);
            stuck_periods = 0;
        }
    }
    return NULL;
}

static aclError aclrt_host_open(const struct aclrt_config *config, uint32_t *device_count)
{
    *device_count = config->devices;
    return ACL_SUCCESS;
}

static void aclrt_host_close(void)
{
}

static void aclrt_host_device_free(struct aclrt_host_device *hd)
{
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++)
        aclrt_mpmc_destroy(&hd->ready[p]);
    free(hd->executors);
    free(hd);
}

static void aclrt_host_device_stop(struct aclrt_device *dev);

static aclError aclrt_host_device_start(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = (struct aclrt_host_device *)calloc(1, sizeof *hd);
    if (hd == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory starting device %u", dev->id);
    hd->dev = dev;
    uint64_t capacity = 2;
    while (capacity < (uint64_t)aclrt_rt.config.max_streams + 1)
        capacity <<= 1;
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++) {
        if (!aclrt_mpmc_init(&hd->ready[p], capacity)) {
            aclrt_host_device_free(hd);
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory starting device %u", dev->id);
        }
    }
    hd->executor_count = aclrt_rt.config.executors;
    hd->executors = (struct aclrt_host_executor *)calloc(hd->executor_count, sizeof *hd->executors);
    if (hd->executors == NULL) {
        aclrt_host_device_free(hd);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory starting device %u", dev->id);
    }
    dev->backend_state = hd;
    uint32_t started = 0;
    for (; started < hd->executor_count; started++) {
        hd->executors[started].hd = hd;
        hd->executors[started].index = started;
        if (!aclrt_host_start_executor(hd, &hd->executors[started]))
            break;
    }
    bool monitor_ok = started == hd->executor_count &&
                      pthread_create(&hd->monitor, NULL, aclrt_host_monitor_main, hd) == 0;
    if (!monitor_ok) {
        hd->executor_count = started;
        atomic_store_explicit(&hd->stopping, true, memory_order_release);
        atomic_fetch_add_explicit(&hd->wake_seq, 1, memory_order_release);
        aclrt_futex_wake(&hd->wake_seq, INT_MAX);
        for (uint32_t i = 0; i < started; i++)
            pthread_join(hd->executors[i].thread, NULL);
        dev->backend_state = NULL;
        aclrt_host_device_free(hd);
        return aclrt_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot start executor threads for device %u", dev->id);
    }
    return ACL_SUCCESS;
}

static void aclrt_host_device_stop(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    if (hd == NULL)
        return;
    atomic_store_explicit(&hd->stopping, true, memory_order_seq_cst);
    atomic_fetch_add_explicit(&hd->wake_seq, 1, memory_order_release);
    aclrt_futex_wake(&hd->wake_seq, INT_MAX);
    aclrt_host_wake_monitor(hd);
    pthread_join(hd->monitor, NULL);
    for (uint32_t i = 0; i < hd->executor_count; i++)
        pthread_join(hd->executors[i].thread, NULL);
    /* Extra executors are detached: wait for the last one to leave (acquire: its release). */
    while (atomic_load_explicit(&hd->extra_running, memory_order_acquire) != 0) {
        atomic_fetch_add_explicit(&hd->wake_seq, 1, memory_order_release);
        aclrt_futex_wake(&hd->wake_seq, INT_MAX);
        usleep(100);
    }
    dev->backend_state = NULL;
    aclrt_host_device_free(hd);
}

static aclError aclrt_host_mem_alloc(struct aclrt_device *dev, size_t size, void **out)
{
    (void)dev;
    /* Device allocations round up to 32 bytes plus 32 more, 64-byte aligned, like the runtime's. */
    size_t bytes = ((size + 31) & ~(size_t)31) + 32;
    bytes = (bytes + 63) & ~(size_t)63;
    *out = aligned_alloc(64, bytes);
    return *out != NULL ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

static void aclrt_host_mem_free(struct aclrt_device *dev, void *ptr)
{
    (void)dev;
    free(ptr);
}

static const struct aclrt_backend aclrt_backend_host = {
    .name = "host",
    .open = aclrt_host_open,
    .close = aclrt_host_close,
    .device_start = aclrt_host_device_start,
    .device_stop = aclrt_host_device_stop,
    .schedule = aclrt_host_schedule,
    .has_other_work = aclrt_host_has_other_work,
    .timers_changed = aclrt_host_timers_changed,
    .run_kernel = aclrt_host_run_kernel,
    .mem_alloc = aclrt_host_mem_alloc,
    .mem_free = aclrt_host_mem_free,
};

#endif /* ACLRT_BACKENDS_HOST_H */
