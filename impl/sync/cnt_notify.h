/*
 * impl/sync/cnt_notify.h - counting notifies: a 32-bit counter that records set,
 * add to, OR or AND, and that waits compare with a value.
 *
 * Record and reset are tasks that change the counter with one atomic
 * read-modify-write and then advance the notify's version. A wait task
 * reads the version, then the counter; if its condition holds it is released
 * (clearing the counter first when isClear is set, with a CAS so that a
 * record that came in between is not lost); otherwise its stream parks until
 * the version moves past what it read, holding no executor, and evaluates
 * again.
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
 * A counting notify is a struct aclrt_notify_object (notify_object.h: its
 * handle, life, quota, create and destroy) whose value is the counter and
 * whose `changes` count is the version.
 */
#ifndef ACLRT_IMPL_SYNC_CNT_NOTIFY_H
#define ACLRT_IMPL_SYNC_CNT_NOTIFY_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_wake.h"
#include "../stream/wait_task.h"
#include "../context/stream_api.h"
#include "notify_object.h"

/* A NULL counting notify is ACL_ERROR_RT_PARAM_INVALID: the ACL layer passes it to the runtime unchecked [src]. */
static struct aclrt_table aclrt_cnt_notifies =
    ACLRT_TABLE_INIT(ACLRT_KIND_CNT_NOTIFY, struct aclrt_notify_object, "cnt_notify");

static const struct aclrt_notify_kind aclrt_cnt_notify_kind = {&aclrt_cnt_notifies, "cntNotify",
                                                               "counting notify", ACL_ERROR_RT_PARAM_INVALID};

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

/* ------------------------------------------------------------------------
 * Tasks (run by exec.h)
 * ------------------------------------------------------------------------ */

/* Apply a record (or a reset: SET_VALUE 0) to the life `generation`; false if that life is over. */
static bool aclrt_cnt_notify_change(struct aclrt_notify_object *c, uint32_t generation, uint32_t mode, uint32_t value)
{
    uint64_t w = atomic_load_explicit(&c->state, memory_order_relaxed);
    for (;;) {
        if (aclrt_notify_generation_of(w) != generation)
            return false; /* destroyed: does nothing */
        uint32_t next = aclrt_cnt_apply(mode, (uint32_t)w, value);
        if (next == (uint32_t)w)
            return true; /* no change, nothing to tell the waits */
        /* Release: the recording stream's earlier work is visible to the wait that sees this value. */
        if (atomic_compare_exchange_weak_explicit(&c->state, &w, aclrt_notify_pack(generation, next),
                                                  memory_order_release, memory_order_relaxed))
            break;
    }
    /* Release (seq.h): a wait that reads the new version sees the new counter. */
    aclrt_counter_advance(&c->changes, &c->waiters, 1);
    return true;
}

static int aclrt_cnt_notify_record_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    aclrt_cnt_notify_change(t->u.cnt.cnt, t->u.cnt.generation, t->u.cnt.mode, t->u.cnt.value);
    return ACL_SUCCESS;
}

enum aclrt_cnt_check { ACLRT_CNT_PASSED, ACLRT_CNT_NOT_YET, ACLRT_CNT_DEAD };

/* Evaluate a wait once: passed (counter cleared if asked), not yet, or the notify is gone. */
static enum aclrt_cnt_check aclrt_cnt_notify_check(struct aclrt_notify_object *c, uint32_t generation, uint32_t mode,
                                                   uint32_t value, bool clear)
{
    /* Acquire: pairs with the record's release CAS (the recording stream's work, then ours). */
    uint64_t w = atomic_load_explicit(&c->state, memory_order_acquire);
    for (;;) {
        if (aclrt_notify_generation_of(w) != generation)
            return ACLRT_CNT_DEAD;
        if (!aclrt_cnt_satisfied(mode, (uint32_t)w, value))
            return ACLRT_CNT_NOT_YET;
        if (!clear || (uint32_t)w == 0)
            return ACLRT_CNT_PASSED;
        /*
         * Clear only the value we judged: a record that came in between makes
         * us judge again. Acq_rel: acquires what the records we judged
         * released; releases it on to the next wait that sees the counter.
         */
        if (atomic_compare_exchange_weak_explicit(&c->state, &w, aclrt_notify_pack(generation, 0), memory_order_acq_rel,
                                                  memory_order_acquire)) {
            aclrt_counter_advance(&c->changes, &c->waiters, 1); /* waits for LESS may pass now */
            return ACLRT_CNT_PASSED;
        }
    }
}

static bool aclrt_cnt_notify_wait_ready(const struct aclrt_task *t)
{
    return aclrt_seq_read(&t->u.cnt.cnt->changes) != t->u.cnt.seen_version;
}

static int aclrt_cnt_notify_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_notify_object *c = t->u.cnt.cnt;
    uint64_t deadline = aclrt_wait_deadline(&t->u.cnt.deadline_ns, t->u32);
    for (;;) {
        t->u.cnt.seen_version = aclrt_seq_read(&c->changes); /* acquire: before looking at the counter */
        if (aclrt_cnt_notify_check(c, t->u.cnt.generation, t->u.cnt.mode, t->u.cnt.value, t->u.cnt.clear) !=
            ACLRT_CNT_NOT_YET)
            return ACL_SUCCESS; /* passed, or the counting notify was destroyed */
        if (aclrt_wait_spin(s, aclrt_cnt_notify_wait_ready, t, deadline))
            continue;
        if (aclrt_wait_expired(deadline))
            return ACLRT_WAIT_TIMEOUT_CODE;
        if (t->u.cnt.parked)
            aclrt_wait_prune(s, &c->changes, &c->waiters, deadline != ACLRT_NO_DEADLINE);
        t->u.cnt.parked = 1;
        aclrt_block_on_count(blk, &c->changes, &c->waiters, t->u.cnt.seen_version + 1, deadline);
        return ACLRT_TASK_BLOCKED;
    }
}

/* A reset is a record that sets 0: the same run, its own id (a backend may override either). */
static const struct aclrt_task_kind aclrt_kind_cnt_notify_record = {ACLRT_TASK_CNT_NOTIFY_RECORD, "counting-notify record",
                                                                    aclrt_cnt_notify_record_run, NULL};
static const struct aclrt_task_kind aclrt_kind_cnt_notify_reset = {ACLRT_TASK_CNT_NOTIFY_RESET, "counting-notify reset",
                                                                   aclrt_cnt_notify_record_run, NULL};
static const struct aclrt_task_kind aclrt_kind_cnt_notify_wait = {ACLRT_TASK_CNT_NOTIFY_WAIT, "counting-notify wait",
                                                                  aclrt_cnt_notify_wait_run, NULL};

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtCntNotifyCreate(aclrtCntNotify *cntNotify, uint64_t flag)
{
    ACLRT_ENTER();
    if (cntNotify == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "cntNotify (output) is NULL");
    if (flag != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "counting-notify flag 0x%llx is reserved and must be 0",
                          (unsigned long long)flag);
    return aclrt_notify_object_create(&aclrt_cnt_notify_kind, cntNotify);
}

ACLRT_API aclError aclrtCntNotifyDestroy(aclrtCntNotify cntNotify)
{
    ACLRT_ENTER();
    return aclrt_notify_object_destroy(&aclrt_cnt_notify_kind, cntNotify);
}

/* The counting notify and the stream of a record, reset or wait: the stream in the caller's context, accepting work. */
static aclError aclrt_cnt_notify_resolve_submit(aclrtCntNotify cntNotify, aclrtStream stream,
                                                struct aclrt_notify_object **c, uint32_t *generation,
                                                struct aclrt_stream **s)
{
    aclError rc = aclrt_notify_object_resolve(&aclrt_cnt_notify_kind, cntNotify, c, generation);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    return aclrt_stream_resolve_for_submit(stream, s);
}

/* Submit a record or reset: applied at once on an idle stream, else a task in stream order. */
static aclError aclrt_cnt_notify_submit_change(aclrtCntNotify cntNotify, aclrtStream stream,
                                               const struct aclrt_task_kind *kind,
                                               uint32_t mode, uint32_t value)
{
    struct aclrt_notify_object *c;
    uint32_t generation;
    struct aclrt_stream *s;
    aclError rc = aclrt_cnt_notify_resolve_submit(cntNotify, stream, &c, &generation, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    if (aclrt_stream_acts_now(s)) {
        struct aclrt_task now = {.kind = kind, .u.cnt.cnt = c};
        aclrt_stream_acted_now(s, &now);
        if (!aclrt_cnt_notify_change(c, generation, mode, value))
            return aclrt_notify_object_gone(&aclrt_cnt_notify_kind, cntNotify);
        return ACL_SUCCESS;
    }
    struct aclrt_task t = {.kind = kind,
                           .u.cnt.cnt = c,
                           .u.cnt.generation = generation,
                           .u.cnt.mode = mode,
                           .u.cnt.value = value};
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
    return aclrt_cnt_notify_submit_change(cntNotify, stream, &aclrt_kind_cnt_notify_record, (uint32_t)info->mode,
                                          info->value);
}

ACLRT_API aclError aclrtCntNotifyReset(aclrtCntNotify cntNotify, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_cnt_notify_submit_change(cntNotify, stream, &aclrt_kind_cnt_notify_reset,
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
    struct aclrt_notify_object *c;
    uint32_t generation;
    struct aclrt_stream *s;
    aclError rc = aclrt_cnt_notify_resolve_submit(cntNotify, stream, &c, &generation, &s);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    bool clear = info->isClear != 0;
    /* Nothing before it on the stream and the condition holds: the wait is over at once. */
    struct aclrt_task t = {.kind = &aclrt_kind_cnt_notify_wait,
                           .u32 = info->timeout, /* seconds; 0 = never */
                           .u.cnt.cnt = c,
                           .u.cnt.generation = generation,
                           .u.cnt.mode = (uint32_t)info->mode,
                           .u.cnt.value = info->value,
                           .u.cnt.clear = clear};
    if (aclrt_stream_acts_now(s) && aclrt_cnt_notify_check(c, generation, (uint32_t)info->mode, info->value, clear) ==
                                    ACLRT_CNT_PASSED) {
        aclrt_stream_acted_now(s, &t);
        return ACL_SUCCESS;
    }
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtCntNotifyGetId(aclrtCntNotify cntNotify, uint32_t *notifyId)
{
    ACLRT_ENTER();
    struct aclrt_notify_object *c;
    uint32_t generation;
    aclError rc = aclrt_notify_object_resolve(&aclrt_cnt_notify_kind, cntNotify, &c, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    if (notifyId == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "notifyId (output) is NULL");
    *notifyId = aclrt_slot_index(&c->hdr);
    return ACL_SUCCESS;
}

/* aclFinalize: destroy every live counting notify, releasing its waits. */
ACLRT_INTERNAL void aclrt_cnt_notify_release_all(void)
{
    aclrt_notify_object_release_all(&aclrt_cnt_notify_kind);
}

#endif /* ACLRT_IMPL_SYNC_CNT_NOTIFY_H */
