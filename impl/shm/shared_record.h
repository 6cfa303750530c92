/*
 * impl/shm/shared_record.h - records of an object shared between
 * processes (an IPC event or notify), their completion, and the waits for
 * it on a thread.
 *
 * Record and completion: `records` counts the records made of the shared
 * object (by any process); the n-th record's task, when its stream reaches
 * it, raises `done` to n (never lowers it; a notify's instead adds one to
 * it, a count of completed records) and wakes the sleepers of every
 * process with a shared futex wake, if `sleepers` says there are any. A
 * wait for record n is over when done >= n (wrap-safe): record n or a later
 * one has completed. A thread that sleeps counts itself in `sleepers`
 * first (seq_cst both sides: either the marker sees the count and wakes,
 * or the sleeper sees the new `done`).
 *
 * Dead peers: a record made by a process that exited before its task ran
 * never completes. `recorder` holds the pid of the last record; a waiter
 * that finds the record incomplete and that process gone fails with
 * ACL_ERROR_RT_IPC_ERROR instead of waiting for ever (pid reuse in between
 * is not detected).
 */
#ifndef ACLRT_IMPL_SHM_SHARED_RECORD_H
#define ACLRT_IMPL_SHM_SHARED_RECORD_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/futex.h"
#include "../core/seq.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_wake.h"
#include "segment.h"

#include <fcntl.h>

#define ACLRT_IPC_POLL_MIN_NS (2 * ACLRT_NS_PER_US) /* waits in streams poll shared words from this interval ... */
#define ACLRT_IPC_POLL_MAX_NS (1 * ACLRT_NS_PER_MS) /* ... doubling up to this one */
#define ACLRT_IPC_SLEEP_SLICE_NS (100 * ACLRT_NS_PER_MS) /* a sleeper looks at the recorder this often */

/* Has process `pid` exited (or become a zombie)? Never for this process. */
static bool aclrt_ipc_pid_gone(int32_t pid)
{
    if (pid <= 0 || pid == (int32_t)getpid())
        return false;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ESRCH;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return true;
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return paren != NULL && (paren[2] == 'Z' || paren[2] == 'X');
}

/*
 * In this process: every mark advances this count, which this process's
 * stream waits on shared records park on besides their poll, so a record
 * completed here releases them at once (ipc_wait.h).
 */
static struct aclrt_seq aclrt_ipc_marks;
static struct aclrt_park_list aclrt_ipc_mark_waiters = {{NULL}, UINT64_MAX};

ACLRT_INLINE bool aclrt_ipc_reached(const struct aclrt_ipc_page *page, uint32_t target)
{
    /* Acquire: pairs with the marker's seq_cst CAS; the recorded work's effects come with it. */
    return (int32_t)(atomic_load_explicit(&page->done, memory_order_acquire) - target) >= 0;
}

/* Record n's work is complete: raise `done` to n and wake the sleepers of every process. */
static void aclrt_ipc_mark(struct aclrt_ipc_page *page, uint32_t n)
{
    uint32_t d = atomic_load_explicit(&page->done, memory_order_relaxed);
    /* Seq_cst: pairs with a sleeper's seq_cst count-then-load (aclrt_ipc_wait_host). */
    if (page->kind == ACLRT_IPC_NOTIFY) /* a notify counts its completed records: each releases one wait */
        atomic_fetch_add_explicit(&page->done, 1, memory_order_seq_cst);
    else
        while ((int32_t)(n - d) > 0 &&
               !atomic_compare_exchange_weak_explicit(&page->done, &d, n, memory_order_seq_cst, memory_order_relaxed)) {
        }
    /* Seq_cst fence and load: the `done` update above comes before this look at `sleepers` (Dekker with
     * the sleeper's add to `sleepers` then load of `done`), also when the CAS loop stored nothing. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&page->sleepers, memory_order_seq_cst) != 0)
        aclrt_futex_wake_shared(&page->done, INT_MAX);
    /* Release (seq.h): a wait that reads the new count sees `done` above. */
    aclrt_counter_advance(&aclrt_ipc_marks, &aclrt_ipc_mark_waiters, 1);
}

/* A new record: its number (the target a wait for it uses). */
ACLRT_INLINE uint32_t aclrt_ipc_record_number(struct aclrt_ipc_page *page)
{
    /* Relaxed: the recorder is a hint for dead-peer checks; a record number orders nothing (the mark does). */
    atomic_store_explicit(&page->recorder, (int32_t)getpid(), memory_order_relaxed);
    return atomic_fetch_add_explicit(&page->records, 1, memory_order_relaxed) + 1;
}

/* The record a wait made now waits for (0 and done >= 0: nothing recorded, nothing to wait for). */
ACLRT_INLINE uint32_t aclrt_ipc_latest(const struct aclrt_ipc_page *page)
{
    return atomic_load_explicit(&page->records, memory_order_relaxed);
}

/* Has the last recorder exited with record `target` incomplete? */
ACLRT_INTERNAL bool aclrt_ipc_abandoned(const struct aclrt_ipc_page *page, uint32_t target)
{
    if (aclrt_ipc_reached(page, target))
        return false;
    int32_t pid = atomic_load_explicit(&page->recorder, memory_order_relaxed);
    return aclrt_ipc_pid_gone(pid) && !aclrt_ipc_reached(page, target);
}

/*
 * Wait on this thread until record `target` is complete: spin for the
 * configured spin time, then sleep on the shared word. Returns ACL_SUCCESS,
 * `timeout_code` past the deadline, or ACL_ERROR_RT_IPC_ERROR when the
 * recording process exited with it incomplete (no message).
 */
ACLRT_INTERNAL aclError aclrt_ipc_wait_host(struct aclrt_ipc_page *page, uint32_t target, uint64_t deadline,
                                    aclError timeout_code)
{
    uint64_t spin_end = aclrt_min_u64(aclrt_now_ns() + aclrt_rt.config.spin_ns, deadline);
    for (unsigned i = 1; !aclrt_ipc_reached(page, target); i++) {
        aclrt_cpu_relax();
        if ((i & 255) == 0 && aclrt_now_ns() >= spin_end)
            break;
    }
    for (;;) {
        if (aclrt_ipc_reached(page, target))
            return ACL_SUCCESS;
        uint64_t now = aclrt_now_ns();
        if (now >= deadline)
            return timeout_code;
        if (aclrt_ipc_abandoned(page, target))
            return ACL_ERROR_RT_IPC_ERROR;
        /* Seq_cst: pairs with the marker's CAS then load of the count (aclrt_ipc_mark). */
        atomic_fetch_add_explicit(&page->sleepers, 1, memory_order_seq_cst);
        uint32_t d = atomic_load_explicit(&page->done, memory_order_seq_cst);
        if ((int32_t)(d - target) < 0)
            aclrt_futex_wait_shared(&page->done, d, aclrt_min_u64(deadline, now + ACLRT_IPC_SLEEP_SLICE_NS));
        atomic_fetch_sub_explicit(&page->sleepers, 1, memory_order_relaxed); /* a count: at worst one wake too many */
    }
}

/* ACLRT_TASK_IPC_RECORD: the work before it is complete; raise the shared word. */
static int aclrt_ipc_record_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    aclrt_ipc_mark(t->u.ipc.seg->page, t->u.ipc.target);
    aclrt_ipc_seg_unref(t->u.ipc.seg);
    return ACL_SUCCESS;
}

/* Dropped (its stream aborted or destroyed with it pending): it counts as done, so no process waits for ever. */
static void aclrt_ipc_record_drop(struct aclrt_task *t)
{
    aclrt_ipc_mark(t->u.ipc.seg->page, t->u.ipc.target);
    aclrt_ipc_seg_unref(t->u.ipc.seg);
}

static const struct aclrt_task_kind aclrt_kind_ipc_record = {ACLRT_TASK_IPC_RECORD, "IPC record", aclrt_ipc_record_run,
                                                             aclrt_ipc_record_drop};

/* Record on s: a task that marks the record complete when s reaches it (at once on an idle stream). */
ACLRT_INTERNAL aclError aclrt_ipc_record(struct aclrt_stream *s, struct aclrt_ipc_seg *seg)
{
    uint32_t n = aclrt_ipc_record_number(seg->page);
    struct aclrt_task t = {.kind = &aclrt_kind_ipc_record, .u.ipc.seg = seg, .u.ipc.target = n};
    if (aclrt_stream_acts_now(s) && aclrt_kind_is_core(ACLRT_TASK_IPC_RECORD)) {
        aclrt_stream_acted_now(s, &t);
        aclrt_ipc_mark(seg->page, n);
        return ACL_SUCCESS;
    }
    aclrt_ipc_seg_ref(seg);
    aclError rc = aclrt_stream_submit(s, &t, NULL);
    if (rc != ACL_SUCCESS) { /* the record is not made: do not leave it pending for the other processes */
        aclrt_ipc_mark(seg->page, n);
        aclrt_ipc_seg_unref(seg);
    }
    return rc;
}

#endif /* ACLRT_IMPL_SHM_SHARED_RECORD_H */
