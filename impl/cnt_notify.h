/*
 * impl/cnt_notify.h - counting notifies: a 32-bit counter that records set,
 * add to, OR or AND, and that waits compare with a value.
 *
 * Record and reset are tasks that change the counter with one atomic
 * read-modify-write and then advance the notify's `version`. A wait task
 * reads `version`, then the counter; if its condition holds it is released
 * (clearing the counter first when isClear is set, with a CAS so that a
 * record that came in between is not lost); otherwise its stream parks until
 * `version` moves past what it read, holding no executor, and evaluates again.
 *
 *   record modes  SET_VALUE c = v   ADD c += v (mod 2^32)   BIT_OR c |= v   BIT_AND c &= v
 *   wait modes    LESS c < v   EQUAL c == v   BIGGER c > v   BIGGER_OR_EQUAL c >= v
 *                 EQUAL_WITH_BITMASK (c & v) == v
 *
 * A wait sees the values the counter holds when it looks: a value that a
 * later record replaced before the wait looked again may be missed, as on a
 * device. Waits on one counting notify are independent of each other; with
 * isClear the first wait that sees its condition clears the counter for the
 * others.
 *
 * Invariants of struct aclrt_cnt_notify:
 *   - `state` is (generation << 32) | counter; every change is a CAS that
 *     checks the generation, so a task of a destroyed counting notify never
 *     touches the next life of its slot.
 *   - every change of the counter is followed by an advance of `version`,
 *     which only grows (over every life of the slot); destroy advances it too.
 */
#ifndef ACLRT_IMPL_CNT_NOTIFY_H
#define ACLRT_IMPL_CNT_NOTIFY_H

#include "base.h"
#include "error.h"
#include "exec.h"
#include "handle.h"
#include "notify.h"
#include "park.h"
#include "runtime.h"
#include "seq.h"
#include "stream.h"
#include "task.h"
#include "task_wait.h"

struct aclrt_cnt_notify {
    struct aclrt_slot hdr;
    uint32_t device;        /* whose notify quota it counts against */
    _Atomic uint64_t state; /* (generation << 32) | counter */
    struct aclrt_seq version ACLRT_ALIGNED(ACLRT_CACHELINE);
    struct aclrt_park_list waiters; /* waits parked until `version` moves */
};

ACLRT_INLINE bool aclrt_cnt_record_mode_valid(uint32_t mode)
{
    return mode == ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE || mode == ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE ||
           mode == ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE || mode == ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE;
}

ACLRT_INLINE bool aclrt_cnt_wait_mode_valid(uint32_t mode)
{
    return mode <= ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE;
}

/* The counter after a record (mode already validated). */
ACLRT_INLINE uint32_t aclrt_cnt_apply(uint32_t mode, uint32_t counter, uint32_t value)
{
    switch (mode) {
    case ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE: return counter + value;
    case ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE: return counter | value;
    case ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE: return counter & value;
    default: return value; /* SET_VALUE (and reset: SET_VALUE 0) */
    }
}

/* Does a wait of `mode` for `value` pass with the counter at `counter`? */
ACLRT_INLINE bool aclrt_cnt_satisfied(uint32_t mode, uint32_t counter, uint32_t value)
{
    switch (mode) {
    case ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE: return counter < value;
    case ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE: return counter == value;
    case ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE: return counter > value;
    case ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE: return counter >= value;
    default: return (counter & value) == value; /* EQUAL_WITH_BITMASK */
    }
}

/* The live counting notify a handle names, and its generation; false for a dead or garbage handle. */
ACLRT_INLINE bool aclrt_cnt_notify_lookup(aclrtCntNotify handle, struct aclrt_cnt_notify **out, uint32_t *generation)
{
    struct aclrt_cnt_notify *c = (struct aclrt_cnt_notify *)aclrt_table_lookup(&aclrt_rt.cnt_notifies, handle);
    *out = NULL;
    *generation = 0;
    if (ACLRT_UNLIKELY(c == NULL))
        return false;
    /* Acquire: pairs with the publish; a racing destroy shows as a dead generation. */
    uint32_t gen = atomic_load_explicit(&c->hdr.generation, memory_order_acquire);
    *out = c;
    *generation = gen;
    return (gen & 1u) != 0;
}

/*
 * Resolve a counting-notify handle. NULL is ACL_ERROR_RT_PARAM_INVALID: the
 * ACL layer passes these handles to the runtime unchecked, and the runtime's
 * check returns its parameter error [src].
 */
ACLRT_INLINE aclError aclrt_cnt_notify_resolve(aclrtCntNotify handle, struct aclrt_cnt_notify **out,
                                               uint32_t *generation)
{
    *out = NULL;
    *generation = 0;
    if (ACLRT_UNLIKELY(handle == NULL))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "cntNotify is NULL");
    if (ACLRT_UNLIKELY(!aclrt_cnt_notify_lookup(handle, out, generation)))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                          "cntNotify %p is not a live counting notify (destroyed, stale or garbage)", handle);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Tasks (run by exec.h)
 * ------------------------------------------------------------------------ */

/* Apply a record (or a reset: SET_VALUE 0) to the life `generation`; false if that life is over. */
static bool aclrt_cnt_notify_change(struct aclrt_cnt_notify *c, uint32_t generation, uint32_t mode, uint32_t value)
{
    uint64_t w = atomic_load_explicit(&c->state, memory_order_relaxed);
    for (;;) {
        if ((uint32_t)(w >> 32) != generation)
            return false; /* destroyed: does nothing */
        uint32_t next = aclrt_cnt_apply(mode, (uint32_t)w, value);
        if (next == (uint32_t)w)
            return true; /* no change, nothing to tell the waits */
        /* Release: the recording stream's earlier work is visible to the wait that sees this value. */
        if (atomic_compare_exchange_weak_explicit(&c->state, &w, ((uint64_t)generation << 32) | next,
                                                  memory_order_release, memory_order_relaxed))
            break;
    }
    /* Release (seq.h): a wait that reads the new version sees the new counter. */
    aclrt_counter_advance(&c->version, &c->waiters, 1);
    return true;
}

ACLRT_INTERNAL int aclrt_cnt_notify_record_run(struct aclrt_task *t)
{
    aclrt_cnt_notify_change(t->u.cnt.cnt, t->u.cnt.generation, t->u.cnt.mode, t->u.cnt.value);
    return ACL_SUCCESS;
}

enum aclrt_cnt_check { ACLRT_CNT_PASSED, ACLRT_CNT_NOT_YET, ACLRT_CNT_DEAD };

/* Evaluate a wait once: passed (counter cleared if asked), not yet, or the notify is gone. */
static enum aclrt_cnt_check aclrt_cnt_notify_check(struct aclrt_cnt_notify *c, uint32_t generation, uint32_t mode,
                                                   uint32_t value, bool clear)
{
    /* Acquire: pairs with the record's release CAS (the recording stream's work, then ours). */
    uint64_t w = atomic_load_explicit(&c->state, memory_order_acquire);
    for (;;) {
        if ((uint32_t)(w >> 32) != generation)
            return ACLRT_CNT_DEAD;
        if (!aclrt_cnt_satisfied(mode, (uint32_t)w, value))
            return ACLRT_CNT_NOT_YET;
        if (!clear || (uint32_t)w == 0)
            return ACLRT_CNT_PASSED;
        /* Clear only the value we judged: a record that came in between makes us judge again. */
        if (atomic_compare_exchange_weak_explicit(&c->state, &w, (uint64_t)generation << 32, memory_order_acq_rel,
                                                  memory_order_acquire)) {
            aclrt_counter_advance(&c->version, &c->waiters, 1); /* waits for LESS may pass now */
            return ACLRT_CNT_PASSED;
        }
    }
}

static bool aclrt_cnt_notify_wait_ready(const struct aclrt_task *t)
{
    return aclrt_seq_read(&t->u.cnt.cnt->version) != t->u.cnt.seen_version;
}

ACLRT_INTERNAL int aclrt_cnt_notify_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_cnt_notify *c = t->u.cnt.cnt;
    uint64_t deadline = aclrt_wait_deadline(&t->u.cnt.deadline_ns, t->u32);
    for (;;) {
        t->u.cnt.seen_version = aclrt_seq_read(&c->version); /* acquire: before looking at the counter */
        if (aclrt_cnt_notify_check(c, t->u.cnt.generation, t->u.cnt.mode, t->u.cnt.value, t->u.cnt.clear) !=
            ACLRT_CNT_NOT_YET)
            return ACL_SUCCESS; /* passed, or the counting notify was destroyed */
        if (aclrt_wait_spin(s, aclrt_cnt_notify_wait_ready, t, deadline))
            continue;
        if (aclrt_wait_expired(deadline))
            return ACLRT_WAIT_TIMEOUT_CODE;
        if (t->u.cnt.parked)
            aclrt_wait_prune(s, &c->version, &c->waiters, deadline != ACLRT_NO_DEADLINE);
        t->u.cnt.parked = 1;
        aclrt_block_on_count(blk, &c->version, &c->waiters, t->u.cnt.seen_version + 1, deadline);
        return ACLRT_RUN_BLOCKED;
    }
}

/* ------------------------------------------------------------------------
 * Create and destroy
 * ------------------------------------------------------------------------ */

/* End the life `generation`: its waits are released, its queued records do nothing. */
static bool aclrt_cnt_notify_end_life(struct aclrt_cnt_notify *c, uint32_t generation)
{
    uint64_t w = atomic_load_explicit(&c->state, memory_order_relaxed);
    uint64_t dead = (uint64_t)(generation & ~1u) << 32; /* no live generation has bit 0 clear */
    do {
        if ((uint32_t)(w >> 32) != generation)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&c->state, &w, dead, memory_order_acq_rel, memory_order_relaxed));
    aclrt_table_retire(&c->hdr);
    aclrt_counter_advance(&c->version, &c->waiters, 1); /* parked waits run again and see it gone */
    aclrt_notify_quota_release(c->device);
    aclrt_table_free(&aclrt_rt.cnt_notifies, &c->hdr);
    return true;
}

ACLRT_API aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag)
{
    ACLRT_ENTER();
    if (cntNotify == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "cntNotify (output) is NULL");
    if (flag != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "counting-notify flag 0x%llx is reserved and must be 0",
                          (unsigned long long)flag);
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_notify_quota_take(ctx->device)) != ACL_SUCCESS)
        return rc;
    struct aclrt_cnt_notify *c = (struct aclrt_cnt_notify *)aclrt_table_alloc(&aclrt_rt.cnt_notifies);
    if (c == NULL) {
        aclrt_notify_quota_release(ctx->device->id);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a counting notify");
    }
    c->device = ctx->device->id;
    uint32_t alive = atomic_load_explicit(&c->hdr.generation, memory_order_relaxed) | 1u; /* what publish sets */
    atomic_store_explicit(&c->state, (uint64_t)alive << 32, memory_order_relaxed); /* counter 0 */
    /* `version` goes on from the previous life. Reset the list; notes of that life are stale or due. */
    aclrt_park_list_wake(&c->waiters, UINT64_MAX);
    *cntNotify = aclrt_table_publish(&aclrt_rt.cnt_notifies, &c->hdr); /* release: the fields above */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify)
{
    ACLRT_ENTER();
    struct aclrt_cnt_notify *c;
    uint32_t generation;
    aclError rc = aclrt_cnt_notify_resolve(cntNotify, &c, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!aclrt_cnt_notify_end_life(c, generation))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "cntNotify %p was destroyed by another thread", cntNotify);
    return ACL_SUCCESS;
}

/* aclFinalize: destroy every live counting notify, releasing its waits. */
ACLRT_INTERNAL void aclrt_cnt_notify_release_all(void)
{
    ACLRT_TABLE_FOREACH(&aclrt_rt.cnt_notifies, struct aclrt_cnt_notify, c)
    {
        uint32_t gen = atomic_load_explicit(&c->hdr.generation, memory_order_acquire);
        if (gen & 1u)
            aclrt_cnt_notify_end_life(c, gen);
    }
}

/* ------------------------------------------------------------------------
 * Record, wait, reset, id
 * ------------------------------------------------------------------------ */

/* Submit a record or reset: applied at once on an idle stream, else a task in stream order. */
static aclError aclrt_cnt_notify_submit_change(aclrtCntNotify cntNotify, aclrtStream stream, uint8_t kind,
                                               uint32_t mode, uint32_t value)
{
    struct aclrt_cnt_notify *c;
    uint32_t generation;
    aclError rc = aclrt_cnt_notify_resolve(cntNotify, &c, &generation);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_check_context(s)) != ACL_SUCCESS))
        return rc;
    if (aclrt_stream_idle(s)) {
        if (!aclrt_cnt_notify_change(c, generation, mode, value))
            return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "cntNotify %p was destroyed by another thread", cntNotify);
        return ACL_SUCCESS;
    }
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = kind;
    t.u.cnt.cnt = c;
    t.u.cnt.generation = generation;
    t.u.cnt.mode = mode;
    t.u.cnt.value = value;
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtCntNotifyRecord(aclrtCntNotify cntNotify, aclrtStream stream, aclrtCntNotifyRecordInfo *info)
{
    ACLRT_ENTER();
    if (info == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "info is NULL");
    if (!aclrt_cnt_record_mode_valid((uint32_t)info->mode))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "record mode %d is not one of SET_VALUE (0), ADD (1), BIT_OR (2), BIT_AND (4)",
                          (int)info->mode);
    return aclrt_cnt_notify_submit_change(cntNotify, stream, ACLRT_TASK_CNT_NOTIFY_RECORD, (uint32_t)info->mode,
                                          info->value);
}

ACLRT_API aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_cnt_notify_submit_change(cntNotify, stream, ACLRT_TASK_CNT_NOTIFY_RESET,
                                          ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 0);
}

ACLRT_API aclError aclrtCntNotifyWaitWithTimeout(aclrtCntNotify cntNotify, aclrtStream stream,
                                                 aclrtCntNotifyWaitInfo *info)
{
    ACLRT_ENTER();
    if (info == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "info is NULL");
    if (!aclrt_cnt_wait_mode_valid((uint32_t)info->mode))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "wait mode %d is not one of LESS (0), EQUAL (1), BIGGER (2), BIGGER_OR_EQUAL (3), "
                          "EQUAL_WITH_BITMASK (4)",
                          (int)info->mode);
    struct aclrt_cnt_notify *c;
    uint32_t generation;
    aclError rc = aclrt_cnt_notify_resolve(cntNotify, &c, &generation);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    struct aclrt_stream *s;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS))
        return rc;
    if (ACLRT_UNLIKELY((rc = aclrt_stream_check_context(s)) != ACL_SUCCESS))
        return rc;
    bool clear = info->isClear != 0;
    /* Nothing before it on the stream and the condition holds: the wait is over at once. */
    if (aclrt_stream_idle(s) && aclrt_cnt_notify_check(c, generation, (uint32_t)info->mode, info->value, clear) ==
                                    ACLRT_CNT_PASSED)
        return ACL_SUCCESS;
    struct aclrt_task t;
    memset(&t, 0, sizeof t);
    t.kind = ACLRT_TASK_CNT_NOTIFY_WAIT;
    t.u32 = info->timeout; /* seconds; 0 = never */
    t.u.cnt.cnt = c;
    t.u.cnt.generation = generation;
    t.u.cnt.mode = (uint32_t)info->mode;
    t.u.cnt.value = info->value;
    t.u.cnt.clear = clear;
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId)
{
    ACLRT_ENTER();
    struct aclrt_cnt_notify *c;
    uint32_t generation;
    aclError rc = aclrt_cnt_notify_resolve(cntNotify, &c, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    if (notifyId == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "notifyId (output) is NULL");
    *notifyId = aclrt_slot_index(&c->hdr);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_CNT_NOTIFY_H */
