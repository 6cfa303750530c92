/*
 * impl/sync/value.h - stream memory operations: aclrtValueWrite and
 * aclrtValueWait on a 64-bit word of device memory.
 *
 * A write task stores the value (release) and then advances the
 * `value_writes` counter of the device that owns the memory, which wakes the
 * value waits parked there at once. A wait task loads the word (acquire) and
 * evaluates its condition:
 *
 *   GEQ  (int64_t)(*word - value) >= 0   (wrap-safe signed difference)
 *   EQ   *word == value
 *   AND  (*word & value) != 0
 *   NOR  ~(*word | value) != 0
 *
 * If it does not hold, the executor spins for up to spin_ns while it has
 * nothing else to do, then parks the stream (no thread held) until the next
 * runtime write on that device's memory OR a poll deadline: host code and
 * host kernels may write the word with a plain atomic store that the runtime
 * never sees. Polls back off exponentially from ACLRT_VALUE_POLL_MIN_NS to
 * ACLRT_VALUE_POLL_MAX_NS and start again from the minimum after each
 * runtime write, so a foreign write is seen within about the time the wait
 * had already waited, and never later than ACLRT_VALUE_POLL_MAX_NS plus a
 * wake-up (docs/SEMANTICS.md).
 *
 * The word must be in memory from aclrtMalloc (the runtime rejects other
 * memory) and stay allocated until the tasks that use it have run. Value
 * waits have no timeout (aclrtSetOpWaitTimeout is for event waits); aclFinalize
 * releases the ones still parked.
 */
#ifndef ACLRT_IMPL_SYNC_VALUE_H
#define ACLRT_IMPL_SYNC_VALUE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/block.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_wake.h"
#include "../stream/wait_task.h"
#include "../context/stream_api.h"
#include "../memory/memory.h"

#define ACLRT_VALUE_POLL_MIN_NS (2 * ACLRT_NS_PER_US)
#define ACLRT_VALUE_POLL_MAX_NS (1 * ACLRT_NS_PER_MS)

/* Set by aclFinalize while it tears down: parked value waits are released. */
static atomic_bool aclrt_value_releasing;

ACLRT_INLINE bool aclrt_value_satisfied(uint32_t flag, uint64_t word, uint64_t value)
{
    switch (flag) {
    case ACL_STREAM_WAIT_VALUE_GEQ: return (int64_t)(word - value) >= 0;
    case ACL_STREAM_WAIT_VALUE_EQ: return word == value;
    case ACL_STREAM_WAIT_VALUE_AND: return (word & value) != 0;
    default: return ~(word | value) != 0; /* NOR */
    }
}

/* ------------------------------------------------------------------------
 * Tasks (run by exec.h)
 * ------------------------------------------------------------------------ */

static void aclrt_value_write(_Atomic uint64_t *word, uint64_t value, struct aclrt_device *dev)
{
    /* Release: pairs with the wait's acquire load; the writer stream's earlier work comes with the value. */
    atomic_store_explicit(word, value, memory_order_release);
    aclrt_counter_advance(&dev->value_writes, &dev->value_waiters, 1);
}

static int aclrt_value_write_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    aclrt_value_write(t->u.value.word, t->u.value.value, t->u.value.device);
    return ACL_SUCCESS;
}

static bool aclrt_value_check(const struct aclrt_task *t)
{
    /* Acquire: pairs with the release store of whoever wrote the word (a write task, host code, a kernel). */
    return aclrt_value_satisfied(t->u32, atomic_load_explicit(t->u.value.word, memory_order_acquire),
                                 t->u.value.value);
}

static bool aclrt_value_wait_ready(const struct aclrt_task *t)
{
    return aclrt_value_check(t) || aclrt_seq_read(&t->u.value.device->value_writes) != t->u.value.seen_writes;
}

static int aclrt_value_wait_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    struct aclrt_device *dev = t->u.value.device;
    for (;;) {
        if (aclrt_value_check(t)) /* first look: the common case after a spin saw the write */
            return ACL_SUCCESS;
        /* Before parking: the count, then a second look, so a write after the first look wakes us. */
        uint64_t seen = aclrt_seq_read(&dev->value_writes);
        /* Acquire: pairs with the release in aclrt_value_release_waits (finalize lets every wait go). */
        if (aclrt_value_check(t) || atomic_load_explicit(&aclrt_value_releasing, memory_order_acquire))
            return ACL_SUCCESS;
        bool parked_before = t->u.value.backoff_ns != 0;
        if (!parked_before || seen != t->u.value.seen_writes)
            t->u.value.backoff_ns = ACLRT_VALUE_POLL_MIN_NS; /* first park, or the runtime wrote since */
        t->u.value.seen_writes = seen;
        if (aclrt_wait_spin(s, aclrt_value_wait_ready, t, ACLRT_NO_DEADLINE))
            continue;
        uint64_t poll = aclrt_now_ns() + t->u.value.backoff_ns;
        t->u.value.backoff_ns = aclrt_min_u64(2 * t->u.value.backoff_ns, ACLRT_VALUE_POLL_MAX_NS);
        if (parked_before)
            aclrt_wait_prune(s, &dev->value_writes, &dev->value_waiters, true);
        aclrt_block_on_count(blk, &dev->value_writes, &dev->value_waiters, seen + 1, poll);
        return ACLRT_TASK_BLOCKED;
    }
}

static const struct aclrt_task_kind aclrt_kind_value_write = {ACLRT_TASK_VALUE_WRITE, "value write",
                                                              aclrt_value_write_run, NULL};
static const struct aclrt_task_kind aclrt_kind_value_wait = {ACLRT_TASK_VALUE_WAIT, "value wait", aclrt_value_wait_run,
                                                             NULL};

/* aclFinalize: release every value wait (begin), and stop doing so once the streams are gone (end). */
ACLRT_INTERNAL void aclrt_value_release_waits(bool begin)
{
    /* Release: pairs with the wait's acquire; then the advance wakes the parked ones to look. */
    atomic_store_explicit(&aclrt_value_releasing, begin, memory_order_release);
    if (!begin)
        return;
    for (uint32_t i = 0; i < aclrt_rt.device_count; i++)
        aclrt_counter_advance(&aclrt_rt.devices[i].value_writes, &aclrt_rt.devices[i].value_waiters, 1);
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

/* Check the word (NULL, alignment, device memory) and the stream; *dev: the memory's device. */
static aclError aclrt_value_prepare(void *devAddr, aclrtStream stream, struct aclrt_device **dev,
                                    struct aclrt_stream **s)
{
    if (((uintptr_t)devAddr & (sizeof(uint64_t) - 1)) != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "devAddr %p is not 8-byte aligned (the word is 64 bits)",
                          devAddr);
    *dev = aclrt_mem_device_of(devAddr, sizeof(uint64_t));
    if (*dev == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "devAddr %p is not in device memory from aclrtMalloc (8 bytes from it must be inside one "
                          "allocation)",
                          devAddr);
    return aclrt_stream_resolve_for_submit(stream, s);
}

ACLRT_API aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    ACLRT_ENTER();
    if (devAddr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devAddr is NULL");
    if (flag != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "flag 0x%x is reserved and must be 0", flag);
    struct aclrt_device *dev;
    struct aclrt_stream *s;
    aclError rc = aclrt_value_prepare(devAddr, stream, &dev, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Nothing before it on the stream: the write happens now (unless the backend writes device memory itself). */
    struct aclrt_task t = {.kind = &aclrt_kind_value_write,
                           .u.value.word = (_Atomic uint64_t *)devAddr,
                           .u.value.value = value,
                           .u.value.device = dev};
    if (aclrt_stream_acts_now(s) && aclrt_kind_is_core(ACLRT_TASK_VALUE_WRITE)) {
        aclrt_stream_acted_now(s, &t);
        aclrt_value_write((_Atomic uint64_t *)devAddr, value, dev);
        return ACL_SUCCESS;
    }
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    ACLRT_ENTER();
    if (devAddr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devAddr is NULL");
    if (flag > ACL_STREAM_WAIT_VALUE_NOR)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flag %u is not one of ACL_STREAM_WAIT_VALUE_GEQ (0), _EQ (1), _AND (2), _NOR (3)", flag);
    struct aclrt_device *dev;
    struct aclrt_stream *s;
    aclError rc = aclrt_value_prepare(devAddr, stream, &dev, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_value_wait,
                           .u32 = flag,
                           .u.value.word = (_Atomic uint64_t *)devAddr,
                           .u.value.value = value,
                           .u.value.device = dev};
    /* Nothing before it on the stream and the condition holds: the wait is over at once. */
    if (aclrt_stream_acts_now(s) && aclrt_kind_is_core(ACLRT_TASK_VALUE_WAIT) && aclrt_value_check(&t)) {
        aclrt_stream_acted_now(s, &t);
        return ACL_SUCCESS;
    }
    return aclrt_stream_submit(s, &t, NULL);
}

#endif /* ACLRT_IMPL_SYNC_VALUE_H */
