/*
 * backends/host/host_det.h - the deterministic schedule: the program's
 * waits run the devices' work, in an order drawn from a seed.
 *
 * Selected by aclrt.schedule "deterministic:SEED" (ACLRT_SCHEDULE). The
 * devices start no executor and no monitor, and the backend drives the
 * runtime's waits (struct aclrt_seq_driver, seq.h): every wait (a
 * synchronize of a stream, an event or the device, a launch waiting for
 * room in a full ring, a destroy's or a teardown's drain, aclFinalize) runs
 * steps on the waiting thread until its condition holds, and a status
 * query (aclrtQueryEvent*, aclrtStreamQuery) that finds the work not done
 * runs one step before it answers.
 *
 * A step, under one process-wide lock: fire the timers that are due (wait
 * tasks' timeouts), move the streams the devices' ready queues hold to the
 * end of the ready list (device by device, priority by priority, in queue
 * order), then draw one stream of the list and a budget of 1 to
 * ACLRT_DET_MAX_BUDGET tasks from the generator (splitmix64, seeded with
 * SEED when the runtime starts). Outside the lock the stream runs that many
 * tasks (fewer if it empties or parks) and goes back to its device's queue
 * if it has more. Priorities are not honoured: any ready stream may come
 * next. So with one program thread the order of the device's work is a
 * function of the seed and of the program's calls: the same seed repeats a
 * run, and another seed draws another order.
 *
 * Several program threads each run steps while they wait (one draw at a
 * time); which thread draws, and what the others submitted by then,
 * depends on their timing. A report thread (aclrtProcessReport) runs
 * callbacks, not steps, while another thread waits or a step ran in the
 * last ACLRT_DET_HANDOFF_NS: the usual main thread plus report thread
 * keeps its steps on the main thread.
 *
 * A wait inside a task (a host function that synchronizes, a model's
 * blocked step) holds the thread that would run what it waits for. When no
 * step can run, no timer is pending and nothing happens for
 * ACLRT_DET_STALL_NS, what it waits for needs the program to go on: the
 * wait gives up (ACLRT_SEQ_TIMEOUT, with a message) rather than hang.
 *
 * The devices' `armed` flag (host_pool.h) says that a waiter may sleep: a
 * push after it exchanges the flag and tells the sleepers (`news`). A
 * step that finds nothing to run arms every device (seq_cst) and then
 * looks at the queues again, so a stream pushed after the look finds the
 * device armed: it is the pairing of external progress (host_progress.h).
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_DET_H
#define ACLRT_BACKENDS_HOST_HOST_DET_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/config.h"
#include "../../impl/core/error.h"
#include "../../impl/core/futex.h"
#include "../../impl/core/handle.h"
#include "../../impl/core/seq.h"
#include "../../impl/core/thread.h"
#include "../../impl/task/mpmc.h"
#include "../backend.h"
#include "../../impl/stream/stream.h"
#include "../../impl/stream/wait_task.h"
#include "../../impl/exec/exec.h"
#include "host_pool.h"

#define ACLRT_DET_MAX_BUDGET 4                          /* tasks a step runs, at most */
#define ACLRT_DET_POLL_NS ACLRT_NS_PER_MS               /* the longest a waiter sleeps before it looks */
#define ACLRT_DET_HANDOFF_NS (10 * ACLRT_NS_PER_MS)     /* a report thread runs steps after this without one */
#define ACLRT_DET_STALL_NS ACLRT_NS_PER_S               /* a wait inside a task gives up after this */

static struct {
    pthread_mutex_t lock;                 /* the ready list, the generator, the devices */
    struct aclrt_host_device *devices[ACLRT_MAX_DEVICES];
    uint32_t device_limit;                /* devices[] is NULL from here on */
    struct aclrt_stream **ready;          /* the ready list, in the order the streams came */
    uint32_t count, capacity;
    uint64_t rng;                         /* the generator's state */
    _Atomic uint32_t news;                /* futex word: moves when a stream is pushed or a step ends */
    _Atomic uint32_t sleepers;            /* waiters asleep on `news` */
    _Atomic uint32_t drivers;             /* threads in a wait that runs steps (not a report thread's) */
    _Atomic uint64_t last_step_ns;        /* when a step last ended (or the schedule began) */
} aclrt_det = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* splitmix64: one draw (lock held). */
static uint64_t aclrt_det_draw(void)
{
    uint64_t z = (aclrt_det.rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Something happened (a push, a step): sleepers look again. Seq_cst: pairs with aclrt_det_sleep. */
static void aclrt_det_tell(void)
{
    atomic_fetch_add_explicit(&aclrt_det.news, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&aclrt_det.sleepers, memory_order_seq_cst) != 0)
        aclrt_futex_wake(&aclrt_det.news, INT_MAX);
}

/* The devices' wake-up hook (host_pool.h, aclrt_host_signal_external): a push found the device armed. */
static void aclrt_det_pushed(void *user, int32_t device)
{
    (void)user;
    (void)device;
    aclrt_det_tell();
}

/* Sleep until `news` moves from `seen`, or until `until`. */
static void aclrt_det_sleep(uint32_t seen, uint64_t until)
{
    /* Seq_cst, then the look at the word (the futex's): pairs with aclrt_det_tell. */
    atomic_fetch_add_explicit(&aclrt_det.sleepers, 1, memory_order_seq_cst);
    if (atomic_load_explicit(&aclrt_det.news, memory_order_seq_cst) == seen)
        aclrt_futex_wait(&aclrt_det.news, seen, until);
    atomic_fetch_sub_explicit(&aclrt_det.sleepers, 1, memory_order_relaxed);
}

/* Room for one more stream on the ready list (lock held); false without memory. */
static bool aclrt_det_room(void)
{
    if (aclrt_det.count < aclrt_det.capacity)
        return true;
    uint32_t capacity = aclrt_det.capacity == 0 ? 64 : 2 * aclrt_det.capacity;
    struct aclrt_stream **grown = (struct aclrt_stream **)realloc(aclrt_det.ready, capacity * sizeof *aclrt_det.ready);
    if (grown == NULL)
        return false;
    aclrt_det.ready = grown;
    aclrt_det.capacity = capacity;
    return true;
}

/*
 * Fire the timers that are due, then move what the ready queues hold to
 * the end of the ready list, in device, priority and queue order (lock
 * held; without memory to grow the list, the rest waits in its queue).
 * Returns the earliest deadline still pending (UINT64_MAX: none).
 */
static uint64_t aclrt_det_gather(void)
{
    uint64_t next = UINT64_MAX;
    for (uint32_t d = 0; d < aclrt_det.device_limit; d++) {
        struct aclrt_host_device *hd = aclrt_det.devices[d];
        if (hd == NULL)
            continue;
        aclrt_device_fire_timers(hd->dev);
        next = aclrt_min_u64(next, aclrt_device_next_deadline(hd->dev));
        for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++) {
            struct aclrt_stream *s;
            while (aclrt_det_room() && (s = (struct aclrt_stream *)aclrt_mpmc_pop(&hd->ready[p])) != NULL)
                aclrt_det.ready[aclrt_det.count++] = s;
        }
    }
    return next;
}

/* Arm every device: a push from now on tells the sleepers (lock held). */
static void aclrt_det_arm(void)
{
    for (uint32_t d = 0; d < aclrt_det.device_limit; d++)
        if (aclrt_det.devices[d] != NULL)
            /* Seq_cst, then the look (aclrt_det_gather): pairs with the push-then-exchange of aclrt_host_find_taker. */
            atomic_store_explicit(&aclrt_det.devices[d]->armed, true, memory_order_seq_cst);
}

/* Run a stream taken off the ready list: at most `budget` tasks, then let it go (or back to its queue). */
static void aclrt_det_run(struct aclrt_stream *s, uint32_t budget)
{
    aclrt_stream_take(s);
    for (;;) {
        enum aclrt_hold hold = aclrt_stream_run(s, budget, NULL);
        if (hold == ACLRT_HOLD_NONE)
            return;
        /* Still held: a flag to act on (destroy, discard, stop), or work that came meanwhile. */
        if (hold == ACLRT_HOLD_BUDGET ? aclrt_stream_yield(s) : aclrt_stream_release(s))
            return;
    }
}

/*
 * One step (see the top of this file). Returns true if a stream ran; false
 * if none was ready, with the devices armed and *next_timer the earliest
 * pending deadline.
 */
static bool aclrt_det_step_timed(uint64_t *next_timer)
{
    pthread_mutex_lock(&aclrt_det.lock);
    uint64_t next = aclrt_det_gather();
    if (aclrt_det.count == 0) {
        aclrt_det_arm();
        next = aclrt_det_gather();
    }
    if (aclrt_det.count == 0) {
        pthread_mutex_unlock(&aclrt_det.lock);
        *next_timer = next;
        return false;
    }
    uint64_t x = aclrt_det_draw();
    uint32_t i = (uint32_t)(x % aclrt_det.count);
    uint32_t budget = 1 + (uint32_t)((x >> 32) % ACLRT_DET_MAX_BUDGET);
    struct aclrt_stream *s = aclrt_det.ready[i];
    memmove(&aclrt_det.ready[i], &aclrt_det.ready[i + 1], (aclrt_det.count - i - 1) * sizeof *aclrt_det.ready);
    aclrt_det.count--;
    pthread_mutex_unlock(&aclrt_det.lock);
    aclrt_det_run(s, budget);
    /* Relaxed: a hint for report threads (aclrt_det_may_step). */
    atomic_store_explicit(&aclrt_det.last_step_ns, aclrt_now_ns(), memory_order_relaxed);
    aclrt_det_tell();
    return true;
}

/* The driver's step: a status query that found work not done. */
static bool aclrt_det_step(void)
{
    uint64_t next;
    return aclrt_det_step_timed(&next);
}

/* May a report thread run steps: nobody else waits, and no step ran for ACLRT_DET_HANDOFF_NS? */
static bool aclrt_det_may_step(uint64_t now)
{
    uint64_t last = atomic_load_explicit(&aclrt_det.last_step_ns, memory_order_relaxed);
    return atomic_load_explicit(&aclrt_det.drivers, memory_order_relaxed) == 0 && now > last &&
           now - last >= ACLRT_DET_HANDOFF_NS;
}

/* A wait inside a task of s found nothing to run for ACLRT_DET_STALL_NS. */
static int aclrt_det_stalled(const struct aclrt_stream *s)
{
    int id = (int)aclrt_slot_index(&s->hdr);
    fprintf(stderr,
            "aclrt: deterministic schedule: a task of stream %d waits for work that cannot run before the task "
            "returns; the wait gives up\n",
            id);
    aclrt_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
               "a task of stream %d waits for work that cannot run while it waits: with aclrt.schedule "
               "\"deterministic\" its wait holds the thread that would run it, and nothing happened for %d ms",
               id, (int)(ACLRT_DET_STALL_NS / ACLRT_NS_PER_MS));
    return ACLRT_SEQ_TIMEOUT;
}

/* The driver's wait (seq.h: struct aclrt_seq_driver). */
static int aclrt_det_wait(aclrt_spin_ready_fn ready, const void *arg, uint64_t deadline_ns, aclrt_seq_stop_fn stop_fn,
                          void *stop_data, bool handoff)
{
    if (!handoff)
        atomic_fetch_add_explicit(&aclrt_det.drivers, 1, memory_order_relaxed);
    const struct aclrt_stream *inside = aclrt_running_stream();
    uint64_t quiet_since = 0;
    uint32_t last_news = 0;
    int r;
    for (;;) {
        if (ready(arg)) {
            r = 0;
            break;
        }
        if (stop_fn != NULL && (r = stop_fn(stop_data)) != 0)
            break;
        /* Acquire: what a step did before it told is seen by the look that follows a wake-up. */
        uint32_t news = atomic_load_explicit(&aclrt_det.news, memory_order_acquire);
        uint64_t now = aclrt_now_ns();
        bool steps = !handoff || aclrt_det_may_step(now);
        uint64_t next_timer = UINT64_MAX;
        if (steps && aclrt_det_step_timed(&next_timer)) {
            quiet_since = 0;
            continue;
        }
        now = aclrt_now_ns();
        if (now >= deadline_ns) {
            r = ready(arg) ? 0 : ACLRT_SEQ_TIMEOUT;
            break;
        }
        if (inside != NULL && next_timer == UINT64_MAX) {
            if (quiet_since == 0 || news != last_news)
                quiet_since = now, last_news = news;
            else if (now - quiet_since >= ACLRT_DET_STALL_NS) {
                r = aclrt_det_stalled(inside);
                break;
            }
        }
        aclrt_det_sleep(news, aclrt_min_u64(aclrt_min_u64(deadline_ns, next_timer), now + ACLRT_DET_POLL_NS));
    }
    if (!handoff)
        atomic_fetch_sub_explicit(&aclrt_det.drivers, 1, memory_order_relaxed);
    return r;
}

static const struct aclrt_seq_driver aclrt_det_driver = {
    .wait = aclrt_det_wait,
    .step = aclrt_det_step,
};

/* The runtime starts with the deterministic schedule (the backend's open): the generator starts from seed. */
ACLRT_INTERNAL void aclrt_det_open(uint64_t seed)
{
    pthread_mutex_lock(&aclrt_det.lock);
    aclrt_det.rng = seed;
    aclrt_det.count = 0;
    pthread_mutex_unlock(&aclrt_det.lock);
    atomic_store_explicit(&aclrt_det.last_step_ns, aclrt_now_ns(), memory_order_relaxed);
    aclrt_seq_drive_set(&aclrt_det_driver);
}

/* The runtime stops (the backend's close, every device stopped): waits spin and sleep again. */
ACLRT_INTERNAL void aclrt_det_close(void)
{
    aclrt_seq_drive_set(NULL);
    pthread_mutex_lock(&aclrt_det.lock);
    free(aclrt_det.ready);
    aclrt_det.ready = NULL;
    aclrt_det.count = aclrt_det.capacity = 0;
    pthread_mutex_unlock(&aclrt_det.lock);
}

/* Is the schedule on (the runtime's start set it)? */
ACLRT_INLINE bool aclrt_det_on(void)
{
    return aclrt_seq_driven() == &aclrt_det_driver;
}

/* A device starts: no thread of its own; steps take its ready streams. */
ACLRT_INTERNAL void aclrt_det_device_start(struct aclrt_host_device *hd)
{
    hd->wake_hook = aclrt_det_pushed;
    hd->wake_user = NULL;
    atomic_store_explicit(&hd->armed, true, memory_order_relaxed); /* the first push tells */
    pthread_mutex_lock(&aclrt_det.lock);
    uint32_t id = hd->dev->id;
    aclrt_det.devices[id] = hd;
    if (aclrt_det.device_limit <= id)
        aclrt_det.device_limit = id + 1;
    pthread_mutex_unlock(&aclrt_det.lock);
}

/* Take the device's streams off the ready list (lock held): it stops, or a forked child abandons it. */
static void aclrt_det_forget(struct aclrt_host_device *hd)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < aclrt_det.count; i++)
        if (aclrt_det.ready[i]->device != hd->dev)
            aclrt_det.ready[kept++] = aclrt_det.ready[i];
    aclrt_det.count = kept;
    aclrt_det.devices[hd->dev->id] = NULL;
}

/* A device stops: no step looks at it any more (its streams are gone: teardown waited for them). */
ACLRT_INTERNAL void aclrt_det_device_stop(struct aclrt_host_device *hd)
{
    pthread_mutex_lock(&aclrt_det.lock);
    aclrt_det_forget(hd);
    pthread_mutex_unlock(&aclrt_det.lock);
}

/* A forked child's inherited device: the lock may have been held by a thread the child does not have. */
ACLRT_INTERNAL void aclrt_det_device_abandon(struct aclrt_host_device *hd)
{
    pthread_mutex_init(&aclrt_det.lock, NULL);
    aclrt_det_forget(hd);
}

#endif /* ACLRT_BACKENDS_HOST_HOST_DET_H */
