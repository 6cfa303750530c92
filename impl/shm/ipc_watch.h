/*
 * impl/shm/ipc_watch.h - a thread that sleeps on shared records for the
 * process's parked stream waits, so that a record completed in another
 * process releases them without waiting for their poll.
 *
 * A stream wait on a shared record (ipc_wait.h) parks on the process's
 * mark count (shared_record.h) with a poll deadline. Before it parks it
 * registers the segment and the value of `done` it saw; the watcher sleeps
 * on every registered word at once (futex_waitv, process-shared futexes,
 * counting itself in each page's `sleepers` so that the marking process
 * wakes it) and, when one changed, advances the mark count: the parked
 * waits look again. Entries are dropped when their word changed or after
 * ACLRT_IPC_WATCH_IDLE_NS without change (a wait that still waits
 * registers again when it parks again, at the latest at its next poll).
 *
 * The thread starts with the first registration and ends at aclFinalize.
 * It is not started with external progress (no runtime threads) or where
 * the kernel has no futex_waitv; the polls then do it all. At most
 * ACLRT_IPC_WATCH_MAX words are watched; waits beyond them poll.
 */
#ifndef ACLRT_IMPL_SHM_IPC_WATCH_H
#define ACLRT_IMPL_SHM_IPC_WATCH_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/futex.h"
#include "../runtime/runtime.h"
#include "../stream/stream_wake.h"
#include "segment.h"
#include "shared_record.h"

#define ACLRT_IPC_WATCH_MAX 64
#define ACLRT_IPC_WATCH_IDLE_NS (100 * ACLRT_NS_PER_MS)

#if defined(SYS_futex_waitv) && defined(FUTEX_32)
#define ACLRT_IPC_WATCH 1
#else
#define ACLRT_IPC_WATCH 0
#endif

struct aclrt_ipc_watch_entry {
    struct aclrt_ipc_seg *seg; /* a reference of the watcher's */
    uint32_t expected;         /* the value of `done` the registering wait saw */
};

static struct {
    pthread_mutex_t lock;
    pthread_t thread;
    bool started, failed, stop;             /* under the lock */
    _Atomic uint32_t changes;               /* futex word: the entries changed, or stop */
    struct aclrt_ipc_watch_entry entries[ACLRT_IPC_WATCH_MAX]; /* under the lock */
    uint32_t count;
} aclrt_ipc_watch = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Drop entry i (under the lock): the page no longer counts the watcher as a sleeper. */
static void aclrt_ipc_watch_drop(uint32_t i)
{
    struct aclrt_ipc_seg *seg = aclrt_ipc_watch.entries[i].seg;
    atomic_fetch_sub_explicit(&seg->page->sleepers, 1, memory_order_relaxed); /* a count: at worst a wake too many */
    aclrt_ipc_seg_unref(seg);
    aclrt_ipc_watch.entries[i] = aclrt_ipc_watch.entries[--aclrt_ipc_watch.count];
}

#if ACLRT_IPC_WATCH
static void *aclrt_ipc_watch_main(void *arg)
{
    (void)arg;
    struct futex_waitv waiters[ACLRT_IPC_WATCH_MAX + 1];
    pthread_mutex_lock(&aclrt_ipc_watch.lock);
    for (;;) {
        if (aclrt_ipc_watch.stop)
            break;
        uint32_t n = aclrt_ipc_watch.count;
        for (uint32_t i = 0; i < n; i++) {
            memset(&waiters[i], 0, sizeof waiters[i]);
            waiters[i].val = aclrt_ipc_watch.entries[i].expected;
            waiters[i].uaddr = (uint64_t)(uintptr_t)&aclrt_ipc_watch.entries[i].seg->page->done;
            waiters[i].flags = FUTEX_32; /* shared: the marking process wakes it */
        }
        memset(&waiters[n], 0, sizeof waiters[n]);
        /* Relaxed: the lock orders the entries; the futex compares the word itself. */
        waiters[n].val = atomic_load_explicit(&aclrt_ipc_watch.changes, memory_order_relaxed);
        waiters[n].uaddr = (uint64_t)(uintptr_t)&aclrt_ipc_watch.changes;
        waiters[n].flags = FUTEX_32 | FUTEX_PRIVATE_FLAG;
        pthread_mutex_unlock(&aclrt_ipc_watch.lock);
        struct timespec until = aclrt_timespec_from_ns(aclrt_now_ns() + ACLRT_IPC_WATCH_IDLE_NS);
        long rc = syscall(SYS_futex_waitv, waiters, n + 1, 0, &until, CLOCK_MONOTONIC);
        bool timed_out = rc < 0 && errno == ETIMEDOUT;
        pthread_mutex_lock(&aclrt_ipc_watch.lock);
        bool moved = false;
        for (uint32_t i = 0; i < aclrt_ipc_watch.count;) {
            const struct aclrt_ipc_watch_entry *e = &aclrt_ipc_watch.entries[i];
            /* Acquire: pairs with the marker's seq_cst update of `done`. */
            bool changed = atomic_load_explicit(&e->seg->page->done, memory_order_acquire) != e->expected;
            if (changed || timed_out) {
                moved |= changed;
                aclrt_ipc_watch_drop(i);
            } else {
                i++;
            }
        }
        if (moved) /* the parked waits look again (ipc_wait.h) */
            aclrt_counter_advance(&aclrt_ipc_marks, &aclrt_ipc_mark_waiters, 1);
    }
    pthread_mutex_unlock(&aclrt_ipc_watch.lock);
    return NULL;
}
#endif

/*
 * A stream wait is about to park for seg's record: watch `done` while it is
 * `seen`. Nothing happens without a watcher (the wait's poll still works).
 */
ACLRT_INTERNAL void aclrt_ipc_watch_add(struct aclrt_ipc_seg *seg, uint32_t seen)
{
#if ACLRT_IPC_WATCH
    if (aclrt_rt.config.external_progress)
        return;
    pthread_mutex_lock(&aclrt_ipc_watch.lock);
    if (!aclrt_ipc_watch.started && !aclrt_ipc_watch.failed) {
        aclrt_ipc_watch.stop = false;
        aclrt_ipc_watch.started = pthread_create(&aclrt_ipc_watch.thread, NULL, aclrt_ipc_watch_main, NULL) == 0;
        aclrt_ipc_watch.failed = !aclrt_ipc_watch.started;
    }
    bool known = false;
    for (uint32_t i = 0; i < aclrt_ipc_watch.count && !known; i++)
        known = aclrt_ipc_watch.entries[i].seg == seg && aclrt_ipc_watch.entries[i].expected == seen;
    if (aclrt_ipc_watch.started && !known && aclrt_ipc_watch.count < ACLRT_IPC_WATCH_MAX) {
        aclrt_ipc_seg_ref(seg);
        /* Seq_cst: counted before the watcher's futex looks at `done` (Dekker with aclrt_ipc_mark). */
        atomic_fetch_add_explicit(&seg->page->sleepers, 1, memory_order_seq_cst);
        aclrt_ipc_watch.entries[aclrt_ipc_watch.count++] = (struct aclrt_ipc_watch_entry){seg, seen};
        /* Release: the watcher rebuilds its list under the lock; the add only makes it look. */
        atomic_fetch_add_explicit(&aclrt_ipc_watch.changes, 1, memory_order_release);
        aclrt_futex_wake(&aclrt_ipc_watch.changes, 1);
    }
    pthread_mutex_unlock(&aclrt_ipc_watch.lock);
#else
    (void)seg, (void)seen;
#endif
}

/* aclFinalize: stop the watcher (joined, unless this is a forked child, which never had it) and drop its entries. */
ACLRT_INTERNAL void aclrt_ipc_watch_stop(bool orphaned)
{
    pthread_mutex_lock(&aclrt_ipc_watch.lock);
    bool started = aclrt_ipc_watch.started && !orphaned;
    aclrt_ipc_watch.stop = true;
    atomic_fetch_add_explicit(&aclrt_ipc_watch.changes, 1, memory_order_release); /* see aclrt_ipc_watch_add */
    pthread_mutex_unlock(&aclrt_ipc_watch.lock);
    if (started) {
        aclrt_futex_wake(&aclrt_ipc_watch.changes, 1);
        pthread_join(aclrt_ipc_watch.thread, NULL);
    }
    pthread_mutex_lock(&aclrt_ipc_watch.lock);
    while (aclrt_ipc_watch.count > 0)
        aclrt_ipc_watch_drop(aclrt_ipc_watch.count - 1);
    aclrt_ipc_watch.started = false;
    aclrt_ipc_watch.failed = false;
    pthread_mutex_unlock(&aclrt_ipc_watch.lock);
}

#endif /* ACLRT_IMPL_SHM_IPC_WATCH_H */
