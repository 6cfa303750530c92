/*
 * impl/sync/notify.h - notifies: one record releases exactly one wait.
 *
 * A notify counts the records nobody has consumed yet. A record task adds
 * one; a wait task takes one away (a CAS), or parks until the next record
 * if there is none. So a wait may be enqueued before its record, one record
 * releases exactly one wait, and N waits need N records, in any order of
 * submission and execution. (On a device a notify is a flag that a record
 * sets and a wait resets; records made while nobody waits coalesce there and
 * accumulate here, so a program correct on a device is correct here.)
 *
 * A notify is a struct aclrt_notify_object (notify_object.h: its handle,
 * life, quota, create and destroy) whose value is the count of records not
 * yet consumed and whose `changes` counter counts every record task that
 * ran. A record first adds to the value and then advances `changes`; a wait
 * reads `changes` and then the value. If the wait missed the record's add,
 * it also read `changes` before the record's advance, so its park ends at
 * that advance (release/acquire on `changes`).
 *
 * IPC notifies (docs/SEMANTICS.md, IPC; export and import: ipc_notify.h):
 * an exported notify has a shared segment (segment.h); another process
 * imports it as a notify of its own whose records are tasks that count one
 * more completed record in the segment. Only the exporting process waits:
 * its waits first add the records completed in other processes since the
 * last look to the notify's count, and park on the process's mark count
 * (shared_record.h), which the notify's local records and the watcher
 * thread (ipc_watch.h, for records of other processes) advance, with a
 * poll deadline (2 us doubling to 1 ms) for what they miss.
 */
#ifndef ACLRT_IMPL_SYNC_NOTIFY_H
#define ACLRT_IMPL_SYNC_NOTIFY_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_wake.h"
#include "../stream/wait_task.h"
#include "../shm/ipc_watch.h"
#include "../shm/segment.h"
#include "../shm/shared_record.h"
#include "../shm/side_table.h"
#include "notify_object.h"

#define ACLRT_NOTIFY_KNOWN_FLAGS (ACL_NOTIFY_DEFAULT | ACL_NOTIFY_DEVICE_USE_ONLY)
/* aclrtWaitAndResetNotify's "no limit of its own": the aclrtSetOpWaitTimeout value applies [src]. */
#define ACLRT_NOTIFY_TIMEOUT_OP_WAIT UINT32_MAX

/* A NULL notify is ACL_ERROR_INVALID_PARAM (docs/SEMANTICS.md). */
static struct aclrt_table aclrt_notifies = ACLRT_TABLE_INIT(ACLRT_KIND_NOTIFY, struct aclrt_notify_object, "notify");

static const struct aclrt_notify_kind aclrt_notify_kind = {&aclrt_notifies, "notify", "notify",
                                                           ACL_ERROR_INVALID_PARAM};

/* ------------------------------------------------------------------------
 * Tasks (run by exec.h)
 * ------------------------------------------------------------------------ */

/* `count` more records in the life `generation`; false if that life is over. */
static bool aclrt_notify_add_records(struct aclrt_notify_object *n, uint32_t generation, uint32_t count)
{
    uint64_t w = atomic_load_explicit(&n->state, memory_order_relaxed);
    for (;;) {
        if (aclrt_notify_generation_of(w) != generation)
            return false; /* destroyed: a record of a dead notify does nothing */
        uint32_t v = (uint32_t)w;
        uint32_t next = v > UINT32_MAX - count ? UINT32_MAX : v + count; /* 4 billion unconsumed: saturate */
        if (next == v)
            break;
        /* Release: the producer's earlier work is visible to the wait that consumes this record. */
        if (atomic_compare_exchange_weak_explicit(&n->state, &w, aclrt_notify_pack(generation, next),
                                                  memory_order_release, memory_order_relaxed))
            break;
    }
    /* Release (seq.h): a wait that sees the new count sees the add above. */
    aclrt_counter_advance(&n->changes, &n->waiters, 1);
    /* Relaxed: an exported notify's waits park on the mark count (a wake missed here comes with their poll). */
    if (ACLRT_UNLIKELY(atomic_load_explicit(&n->ipc, memory_order_relaxed) != NULL))
        aclrt_counter_advance(&aclrt_ipc_marks, &aclrt_ipc_mark_waiters, 1);
    return true;
}

ACLRT_INLINE bool aclrt_notify_add_record(struct aclrt_notify_object *n, uint32_t generation)
{
    return aclrt_notify_add_records(n, generation, 1);
}

/*
 * An exported notify: add the records other processes completed since the
 * last look to its count. Nothing for other notifies (one relaxed load).
 * Returns true if it is an exported notify (its waits park on the mark
 * count and poll). `watch`: a wait is about to park: the watcher
 * (ipc_watch.h) is to wake it when another process completes a record.
 */
static bool aclrt_notify_pull(struct aclrt_notify_object *n, uint32_t generation, bool watch)
{
    if (ACLRT_LIKELY(atomic_load_explicit(&n->ipc, memory_order_relaxed) == NULL))
        return false;
    struct aclrt_ipc_seg *seg = aclrt_ipc_entry_get(&n->ipc);
    if (seg == NULL)
        return false;
    bool exported = seg->exporter;
    if (exported && aclrt_notify_generation_of(atomic_load_explicit(&n->state, memory_order_relaxed)) == generation) {
        /* Acquire: pairs with the importer's seq_cst add (aclrt_ipc_mark); its work comes with the record. */
        uint32_t done = atomic_load_explicit(&seg->page->done, memory_order_acquire);
        uint32_t pulled = atomic_load_explicit(&seg->pulled, memory_order_relaxed);
        while (pulled != done) {
            /* Relaxed: the CAS only decides which puller adds the records; the add releases them. */
            if (atomic_compare_exchange_weak_explicit(&seg->pulled, &pulled, done, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                aclrt_notify_add_records(n, generation, done - pulled);
                break;
            }
        }
        if (watch) /* relaxed: the watcher compares the word itself; a stale value only wakes it early */
            aclrt_ipc_watch_add(seg, atomic_load_explicit(&seg->pulled, memory_order_relaxed));
    }
    aclrt_ipc_seg_unref(seg);
    return exported;
}

static int aclrt_notify_record_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    aclrt_notify_add_record(t->u.notify.notify, t->u.notify.generation);
    return ACL_SUCCESS;
}

enum aclrt_notify_take { ACLRT_NOTIFY_TOOK, ACLRT_NOTIFY_NONE, ACLRT_NOTIFY_DEAD };

/* Consume one record of the life `generation`, if there is one. */
static enum aclrt_notify_take aclrt_notify_take(struct aclrt_notify_object *n, uint32_t generation)
{
    /* Acquire: pairs with the record's release CAS (the producer's work, then ours). */
    uint64_t w = atomic_load_explicit(&n->state, memory_order_acquire);
    for (;;) {
        if (aclrt_notify_generation_of(w) != generation)
            return ACLRT_NOTIFY_DEAD;
        if ((uint32_t)w == 0)
            return ACLRT_NOTIFY_NONE;
        if (atomic_compare_exchange_weak_explicit(&n->state, &w, w - 1, memory_order_acquire,
                                                  memory_order_acquire))
            return ACLRT_NOTIFY_TOOK;
    }
}

/* Relaxed: a hint to stop spinning; the take that follows decides (with acquire). */
static bool aclrt_notify_wait_ready(const struct aclrt_task *t)
{
    uint64_t w = atomic_load_explicit(&t->u.notify.notify->state, memory_order_relaxed);
    return aclrt_notify_generation_of(w) != t->u.notify.generation || (uint32_t)w != 0;
}

static int aclrt_notify_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_notify_object *n = t->u.notify.notify;
    uint64_t deadline = aclrt_wait_deadline(&t->u.notify.deadline_ns, t->u32);
    for (;;) {
        bool shared = aclrt_notify_pull(n, t->u.notify.generation, false);
        /* First look: the common case after a spin saw a record, one cache line. */
        if (aclrt_notify_take(n, t->u.notify.generation) != ACLRT_NOTIFY_NONE)
            return ACL_SUCCESS; /* released by a record, or by the notify's destroy */
        /*
         * Before parking: the count, then a second look, so a record after the
         * first look is not missed. An exported notify's waits use the mark
         * count (shared_record.h), which its local records, and the watcher
         * for records of other processes, advance.
         */
        struct aclrt_seq *counter = shared ? &aclrt_ipc_marks : &n->changes;
        struct aclrt_park_list *list = shared ? &aclrt_ipc_mark_waiters : &n->waiters;
        uint64_t seen = aclrt_seq_read(counter); /* acquire: before looking at the value again */
        if (shared)
            aclrt_notify_pull(n, t->u.notify.generation, true);
        if (aclrt_notify_take(n, t->u.notify.generation) != ACLRT_NOTIFY_NONE)
            return ACL_SUCCESS;
        if (aclrt_wait_spin(s, aclrt_notify_wait_ready, t, deadline))
            continue;
        if (aclrt_wait_expired(deadline))
            return ACLRT_WAIT_TIMEOUT_CODE;
        if (t->u.notify.parked)
            aclrt_wait_prune(s, counter, list, deadline != ACLRT_NO_DEADLINE || shared);
        t->u.notify.parked = 1;
        uint64_t until = deadline;
        if (shared) { /* records of other processes: look again after the poll interval too */
            uint32_t backoff = t->u.notify.backoff_ns == 0 ? ACLRT_IPC_POLL_MIN_NS : t->u.notify.backoff_ns;
            t->u.notify.backoff_ns = (uint32_t)aclrt_min_u64(2 * (uint64_t)backoff, ACLRT_IPC_POLL_MAX_NS);
            until = aclrt_min_u64(deadline, aclrt_now_ns() + backoff);
        }
        aclrt_block_on_count(blk, counter, list, seen + 1, until);
        return ACLRT_TASK_BLOCKED;
    }
}

static const struct aclrt_task_kind aclrt_kind_notify_record = {ACLRT_TASK_NOTIFY_RECORD, "notify record",
                                                                aclrt_notify_record_run, NULL};
static const struct aclrt_task_kind aclrt_kind_notify_wait = {ACLRT_TASK_NOTIFY_WAIT, "notify wait",
                                                              aclrt_notify_wait_run, NULL};

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    ACLRT_ENTER();
    if (notify == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notify (output) is NULL");
    if ((flag & ~(uint64_t)ACLRT_NOTIFY_KNOWN_FLAGS) != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "notify flag 0x%llx is neither ACL_NOTIFY_DEFAULT nor ACL_NOTIFY_DEVICE_USE_ONLY",
                          (unsigned long long)flag);
    return aclrt_notify_object_create(&aclrt_notify_kind, notify);
}

ACLRT_API aclError aclrtDestroyNotify(aclrtNotify notify)
{
    ACLRT_ENTER();
    return aclrt_notify_object_destroy(&aclrt_notify_kind, notify);
}

ACLRT_API aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_notify_object *n;
    uint32_t generation;
    struct aclrt_stream *s;
    aclError rc = aclrt_notify_object_resolve_for_submit(&aclrt_notify_kind, notify, stream, &n, &generation, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY(atomic_load_explicit(&n->ipc, memory_order_relaxed) != NULL)) {
        struct aclrt_ipc_seg *seg = aclrt_ipc_entry_get(&n->ipc);
        if (seg != NULL && !seg->exporter) { /* imported: the record goes to the exporting process */
            /* Acquire: pairs with the release of the generation by the destroy's retire. */
            rc = atomic_load_explicit(&n->hdr.generation, memory_order_acquire) == generation
                     ? aclrt_ipc_record(s, seg)
                     : aclrt_notify_object_gone(&aclrt_notify_kind, notify);
            aclrt_ipc_seg_unref(seg);
            return rc;
        }
        if (seg != NULL)
            aclrt_ipc_seg_unref(seg);
    }
    struct aclrt_task t = {.kind = &aclrt_kind_notify_record,
                           .u.notify.notify = n,
                           .u.notify.generation = generation};
    if (aclrt_stream_acts_now(s)) { /* nothing before it on the stream: the record happens now */
        aclrt_stream_acted_now(s, &t);
        if (!aclrt_notify_add_record(n, generation))
            return aclrt_notify_object_gone(&aclrt_notify_kind, notify);
        return ACL_SUCCESS;
    }
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    ACLRT_ENTER();
    struct aclrt_notify_object *n;
    uint32_t generation;
    struct aclrt_stream *s;
    aclError rc = aclrt_notify_object_resolve_for_submit(&aclrt_notify_kind, notify, stream, &n, &generation, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    if (timeout == ACLRT_NOTIFY_TIMEOUT_OP_WAIT)
        timeout = atomic_load_explicit(&aclrt_rt.op_wait_timeout_s, memory_order_relaxed);
    if (ACLRT_UNLIKELY(atomic_load_explicit(&n->ipc, memory_order_relaxed) != NULL)) {
        struct aclrt_ipc_seg *seg = aclrt_ipc_entry_get(&n->ipc);
        bool imported = seg != NULL && !seg->exporter;
        if (seg != NULL)
            aclrt_ipc_seg_unref(seg);
        if (imported)
            return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                              "notify %p was imported from another process: only the exporting process waits on it",
                              notify);
    }
    struct aclrt_task t = {.kind = &aclrt_kind_notify_wait,
                           .u32 = timeout,
                           .u.notify.notify = n,
                           .u.notify.generation = generation};
    /* Nothing before it on the stream and a record to consume: the wait is over at once. */
    if (aclrt_stream_acts_now(s) &&
        (aclrt_notify_pull(n, generation, false), aclrt_notify_take(n, generation)) == ACLRT_NOTIFY_TOOK) {
        aclrt_stream_acted_now(s, &t);
        return ACL_SUCCESS;
    }
    return aclrt_stream_submit(s, &t, NULL);
}

/*
 * Reset: drop the records nobody has consumed, at the call (synchronous).
 * Every handle is checked first, so a bad one resets nothing.
 */
ACLRT_API aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num)
{
    ACLRT_ENTER();
    if (notifies == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notifies is NULL");
    if (num == 0 || num > UINT32_MAX)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "num %zu is outside [1, %u]", num, UINT32_MAX);
    for (size_t i = 0; i < num; i++) {
        struct aclrt_notify_object *n;
        uint32_t generation;
        if (notifies[i] == NULL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notifies[%zu] is NULL; nothing was reset", i);
        if (!aclrt_notify_object_lookup(&aclrt_notify_kind, notifies[i], &n, &generation))
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                              "notifies[%zu] (%p) is not a live notify (destroyed, stale or garbage); nothing was reset",
                              i, notifies[i]);
    }
    for (size_t i = 0; i < num; i++) {
        struct aclrt_notify_object *n;
        uint32_t generation;
        if (!aclrt_notify_object_lookup(&aclrt_notify_kind, notifies[i], &n, &generation))
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "notifies[%zu] was destroyed by another thread", i);
        /* Relaxed: a reset orders nothing; it only drops the count of the same life. */
        uint64_t w = atomic_load_explicit(&n->state, memory_order_relaxed);
        while (aclrt_notify_generation_of(w) == generation && (uint32_t)w != 0 &&
               !atomic_compare_exchange_weak_explicit(&n->state, &w, aclrt_notify_pack(generation, 0),
                                                      memory_order_relaxed, memory_order_relaxed))
            ;
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    ACLRT_ENTER();
    if (notifyId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notifyId (output) is NULL");
    struct aclrt_notify_object *n;
    uint32_t generation;
    aclError rc = aclrt_notify_object_resolve(&aclrt_notify_kind, notify, &n, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    *notifyId = aclrt_slot_index(&n->hdr);
    return ACL_SUCCESS;
}

/* aclFinalize: destroy every live notify, releasing the waits that nothing can record for anymore. */
ACLRT_INTERNAL void aclrt_notify_release_all(void)
{
    aclrt_notify_object_release_all(&aclrt_notify_kind);
}

#endif /* ACLRT_IMPL_SYNC_NOTIFY_H */
