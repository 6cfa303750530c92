/*
 * impl/notify.h - notifies: one record releases exactly one wait.
 *
 * A notify counts the records nobody has consumed yet. A record task adds
 * one; a wait task takes one away (a CAS), or parks until the next record
 * if there is none. So a wait may be enqueued before its record, one record
 * releases exactly one wait, and N waits need N records, in any order of
 * submission and execution. (On a device a notify is a flag that a record
 * sets and a wait resets; records made while nobody waits coalesce there and
 * accumulate here, so a program correct on a device is correct here.)
 *
 * Invariants of struct aclrt_notify:
 *   - `pending` is (generation << 32) | count: the records made and not yet
 *     consumed in the life `generation` names. Every change is a CAS that
 *     checks the generation, so a task of a destroyed notify never touches
 *     the next life of its slot (slots are reused).
 *   - `records` counts every record task that ran, over every life of the
 *     slot, and only grows: waits park on it (key: the count they saw + 1),
 *     and destroy advances it to release them.
 *   - a record first adds to `pending` and then advances `records`; a wait
 *     reads `records` and then `pending`. If the wait missed the record's
 *     add, it also read `records` before the record's advance, so its park
 *     ends at that advance (release/acquire on `records`).
 */
#ifndef ACLRT_IMPL_NOTIFY_H
#define ACLRT_IMPL_NOTIFY_H

#include "base.h"
#include "error.h"
#include "exec.h"
#include "handle.h"
#include "park.h"
#include "runtime.h"
#include "seq.h"
#include "stream.h"
#include "task.h"
#include "task_wait.h"

#define ACLRT_NOTIFY_KNOWN_FLAGS (ACL_NOTIFY_DEFAULT | ACL_NOTIFY_DEVICE_USE_ONLY)
/* aclrtWaitAndResetNotify's "no limit of its own": the aclrtSetOpWaitTimeout value applies [src]. */
#define ACLRT_NOTIFY_TIMEOUT_OP_WAIT UINT32_MAX

struct aclrt_notify {
    struct aclrt_slot hdr;
    uint32_t device;          /* whose quota it counts against */
    _Atomic uint64_t pending; /* (generation << 32) | records not yet consumed */
    struct aclrt_seq records ACLRT_ALIGNED(ACLRT_CACHELINE);
    struct aclrt_park_list waiters; /* waits parked until `records` moves */
};

ACLRT_INLINE uint64_t aclrt_notify_pack(uint32_t generation, uint32_t count)
{
    return ((uint64_t)generation << 32) | count;
}

ACLRT_INLINE uint32_t aclrt_notify_generation_of(uint64_t pending)
{
    return (uint32_t)(pending >> 32);
}

/* The live notify a handle names, and its generation; false for a dead or garbage handle. */
ACLRT_INLINE bool aclrt_notify_lookup(aclrtNotify notify, struct aclrt_notify **out, uint32_t *generation)
{
    struct aclrt_notify *n = (struct aclrt_notify *)aclrt_table_lookup(&aclrt_rt.notifies, notify);
    *out = NULL;
    *generation = 0;
    if (ACLRT_UNLIKELY(n == NULL))
        return false;
    /* Acquire: pairs with the publish (the notify's fields); a racing destroy shows as a dead generation. */
    uint32_t gen = atomic_load_explicit(&n->hdr.generation, memory_order_acquire);
    *out = n;
    *generation = gen;
    return (gen & 1u) != 0;
}

/* Resolve a notify handle: NULL is ACL_ERROR_INVALID_PARAM, a dead or garbage one ACL_ERROR_RT_INVALID_HANDLE. */
ACLRT_INLINE aclError aclrt_notify_resolve(aclrtNotify notify, struct aclrt_notify **out, uint32_t *generation)
{
    *out = NULL;
    *generation = 0;
    if (ACLRT_UNLIKELY(notify == NULL))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notify is NULL");
    if (ACLRT_UNLIKELY(!aclrt_notify_lookup(notify, out, generation)))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "notify %p is not a live notify (destroyed, stale or garbage)",
                          notify);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Tasks (run by exec.h)
 * ------------------------------------------------------------------------ */

/* One more record in the life `generation`; false if that life is over. */
static bool aclrt_notify_add_record(struct aclrt_notify *n, uint32_t generation)
{
    uint64_t w = atomic_load_explicit(&n->pending, memory_order_relaxed);
    for (;;) {
        if (aclrt_notify_generation_of(w) != generation)
            return false; /* destroyed: a record of a dead notify does nothing */
        if ((uint32_t)w == UINT32_MAX)
            break; /* 4 billion unconsumed records: saturate */
        /* Release: the producer's earlier work is visible to the wait that consumes this record. */
        if (atomic_compare_exchange_weak_explicit(&n->pending, &w, w + 1, memory_order_release,
                                                  memory_order_relaxed))
            break;
    }
    /* Release (seq.h): a wait that sees the new count sees the add above. */
    aclrt_counter_advance(&n->records, &n->waiters, 1);
    return true;
}

ACLRT_INTERNAL int aclrt_notify_record_run(struct aclrt_task *t)
{
    aclrt_notify_add_record(t->u.notify.notify, t->u.notify.generation);
    return ACL_SUCCESS;
}

enum aclrt_notify_take { ACLRT_NOTIFY_TOOK, ACLRT_NOTIFY_NONE, ACLRT_NOTIFY_DEAD };

/* Consume one record of the life `generation`, if there is one. */
static enum aclrt_notify_take aclrt_notify_take(struct aclrt_notify *n, uint32_t generation)
{
    /* Acquire: pairs with the record's release CAS (the producer's work, then ours). */
    uint64_t w = atomic_load_explicit(&n->pending, memory_order_acquire);
    for (;;) {
        if (aclrt_notify_generation_of(w) != generation)
            return ACLRT_NOTIFY_DEAD;
        if ((uint32_t)w == 0)
            return ACLRT_NOTIFY_NONE;
        if (atomic_compare_exchange_weak_explicit(&n->pending, &w, w - 1, memory_order_acquire,
                                                  memory_order_acquire))
            return ACLRT_NOTIFY_TOOK;
    }
}

static bool aclrt_notify_wait_ready(const struct aclrt_task *t)
{
    uint64_t w = atomic_load_explicit(&t->u.notify.notify->pending, memory_order_relaxed);
    return aclrt_notify_generation_of(w) != t->u.notify.generation || (uint32_t)w != 0;
}

ACLRT_INTERNAL int aclrt_notify_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_notify *n = t->u.notify.notify;
    uint64_t deadline = aclrt_wait_deadline(&t->u.notify.deadline_ns, t->u32);
    for (;;) {
        /* First look: the common case after a spin saw a record, one cache line. */
        if (aclrt_notify_take(n, t->u.notify.generation) != ACLRT_NOTIFY_NONE)
            return ACL_SUCCESS; /* released by a record, or by the notify's destroy */
        /* Before parking: the count, then a second look, so a record after the first look is not missed. */
        uint64_t seen = aclrt_seq_read(&n->records); /* acquire: before looking at `pending` again */
        if (aclrt_notify_take(n, t->u.notify.generation) != ACLRT_NOTIFY_NONE)
            return ACL_SUCCESS;
        if (aclrt_wait_spin(s, aclrt_notify_wait_ready, t, deadline))
            continue;
        if (aclrt_wait_expired(deadline))
            return ACLRT_WAIT_TIMEOUT_CODE;
        if (t->u.notify.parked)
            aclrt_wait_prune(s, &n->records, &n->waiters, deadline != ACLRT_NO_DEADLINE);
        t->u.notify.parked = 1;
        aclrt_block_on_count(blk, &n->records, &n->waiters, seen + 1, deadline);
        return ACLRT_RUN_BLOCKED;
    }
}

/* ------------------------------------------------------------------------
 * Create and destroy
 * ------------------------------------------------------------------------ */

static void aclrt_notify_quota_release(uint32_t device)
{
    atomic_fetch_sub_explicit(&aclrt_rt.devices[device].notifies_in_use, 1, memory_order_relaxed);
}

/* Take one unit of the device's notify quota (shared by notifies and counting notifies). */
static aclError aclrt_notify_quota_take(struct aclrt_device *dev)
{
    uint32_t in_use = atomic_fetch_add_explicit(&dev->notifies_in_use, 1, memory_order_relaxed);
    if (in_use >= aclrt_rt.config.max_notifies) {
        atomic_fetch_sub_explicit(&dev->notifies_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "device %u has no notify left (limit %u)", dev->id,
                          aclrt_rt.config.max_notifies);
    }
    return ACL_SUCCESS;
}

/*
 * End the life `generation`: its pending records are dropped, its waits are
 * released (they see the generation change), its queued records do nothing.
 * False if another thread ended it first.
 */
static bool aclrt_notify_end_life(struct aclrt_notify *n, uint32_t generation)
{
    uint64_t w = atomic_load_explicit(&n->pending, memory_order_relaxed);
    uint32_t dead = generation & ~1u; /* no live generation has bit 0 clear */
    do {
        if (aclrt_notify_generation_of(w) != generation)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&n->pending, &w, aclrt_notify_pack(dead, 0),
                                                    memory_order_acq_rel, memory_order_relaxed));
    aclrt_table_retire(&n->hdr);
    /* Every parked wait of this life is due now; it runs again and sees the notify gone. */
    aclrt_counter_advance(&n->records, &n->waiters, 1);
    aclrt_notify_quota_release(n->device);
    aclrt_table_free(&aclrt_rt.notifies, &n->hdr);
    return true;
}

ACLRT_API aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    ACLRT_ENTER();
    if (notify == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notify (output) is NULL");
    if ((flag & ~(uint64_t)ACLRT_NOTIFY_KNOWN_FLAGS) != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "notify flag 0x%llx is neither ACL_NOTIFY_DEFAULT nor ACL_NOTIFY_DEVICE_USE_ONLY",
                          (unsigned long long)flag);
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_notify_quota_take(ctx->device)) != ACL_SUCCESS)
        return rc;
    struct aclrt_notify *n = (struct aclrt_notify *)aclrt_table_alloc(&aclrt_rt.notifies);
    if (n == NULL) {
        aclrt_notify_quota_release(ctx->device->id);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a notify");
    }
    n->device = ctx->device->id;
    uint32_t alive = atomic_load_explicit(&n->hdr.generation, memory_order_relaxed) | 1u; /* what publish sets */
    atomic_store_explicit(&n->pending, aclrt_notify_pack(alive, 0), memory_order_relaxed);
    /* `records` goes on from the previous life. Reset the list; notes of that life are stale or due. */
    aclrt_park_list_wake(&n->waiters, UINT64_MAX);
    *notify = aclrt_table_publish(&aclrt_rt.notifies, &n->hdr); /* release: the fields above */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyNotify(aclrtNotify notify)
{
    ACLRT_ENTER();
    struct aclrt_notify *n;
    uint32_t generation;
    aclError rc = aclrt_notify_resolve(notify, &n, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!aclrt_notify_end_life(n, generation))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "notify %p was destroyed by another thread", notify);
    return ACL_SUCCESS;
}

/* aclFinalize: destroy every live notify, releasing the waits that nothing can record for anymore. */
ACLRT_INTERNAL void aclrt_notify_release_all(void)
{
    ACLRT_TABLE_FOREACH(&aclrt_rt.notifies, struct aclrt_notify, n)
    {
        uint32_t gen = atomic_load_explicit(&n->hdr.generation, memory_order_acquire);
        if (gen & 1u)
            aclrt_notify_end_life(n, gen);
    }
}

/* ------------------------------------------------------------------------
 * Record, wait, reset, id
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_notify *n;
    uint32_t generation;
    aclError rc = aclrt_notify_resolve(notify, &n, &generation);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_check_context(s)) != ACL_SUCCESS))
        return rc;
    if (aclrt_stream_idle(s)) { /* nothing before it on the stream: the record happens now */
        if (!aclrt_notify_add_record(n, generation))
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "notify %p was destroyed by another thread", notify);
        return ACL_SUCCESS;
    }
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = ACLRT_TASK_NOTIFY_RECORD;
    t.u.notify.notify = n;
    t.u.notify.generation = generation;
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    ACLRT_ENTER();
    struct aclrt_notify *n;
    uint32_t generation;
    aclError rc = aclrt_notify_resolve(notify, &n, &generation);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_check_context(s)) != ACL_SUCCESS))
        return rc;
    if (timeout == ACLRT_NOTIFY_TIMEOUT_OP_WAIT)
        timeout = atomic_load_explicit(&aclrt_rt.op_wait_timeout_s, memory_order_relaxed);
    /* Nothing before it on the stream and a record to consume: the wait is over at once. */
    if (aclrt_stream_idle(s) && aclrt_notify_take(n, generation) == ACLRT_NOTIFY_TOOK)
        return ACL_SUCCESS;
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = ACLRT_TASK_NOTIFY_WAIT;
    t.u32 = timeout;
    t.u.notify.notify = n;
    t.u.notify.generation = generation;
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
        struct aclrt_notify *n;
        uint32_t generation;
        if (notifies[i] == NULL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "notifies[%zu] is NULL; nothing was reset", i);
        if (!aclrt_notify_lookup(notifies[i], &n, &generation))
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                              "notifies[%zu] (%p) is not a live notify (destroyed, stale or garbage); nothing was reset",
                              i, notifies[i]);
    }
    for (size_t i = 0; i < num; i++) {
        struct aclrt_notify *n;
        uint32_t generation;
        if (!aclrt_notify_lookup(notifies[i], &n, &generation))
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "notifies[%zu] was destroyed by another thread", i);
        /* Relaxed: a reset orders nothing; it only drops the count of the same life. */
        uint64_t w = atomic_load_explicit(&n->pending, memory_order_relaxed);
        while (aclrt_notify_generation_of(w) == generation && (uint32_t)w != 0 &&
               !atomic_compare_exchange_weak_explicit(&n->pending, &w, aclrt_notify_pack(generation, 0),
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
    struct aclrt_notify *n;
    uint32_t generation;
    aclError rc = aclrt_notify_resolve(notify, &n, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    *notifyId = aclrt_slot_index(&n->hdr);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_NOTIFY_H */
