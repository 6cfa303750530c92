/*
 * impl/memory/memcpy.h - copies and memsets: synchronous, and as tasks in stream
 * order.
 *
 * The memory they touch is checked against the allocation registry
 * (memory.h): pinned memory (ours) lets an asynchronous call return at once,
 * pageable memory makes it return only after the copy is done, as the
 * runtime documents; copies between two devices need peer access (peer.h).
 * A backend with memory of its own overrides the synchronous calls (its
 * mem_copy / mem_set hooks) and the task kinds.
 */
#ifndef ACLRT_IMPL_MEMORY_MEMCPY_H
#define ACLRT_IMPL_MEMORY_MEMCPY_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/sanitize_hook.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/snapshot_gate.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_life.h"
#include "../stream/stream_submit.h"
#include "../stream/stream_sync.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "memory.h"
#include "peer.h"

/*
 * Common checks of copies: pointers, sizes, kind. The kinds these calls take
 * are HOST_TO_HOST .. HOST_TO_BUF_TO_DEVICE, as in the runtime: the INNER_ and
 * INTER_DEVICE_TO_DEVICE kinds belong to other copy calls, and the ACL layer
 * refuses them here like any other value (ACL_ERROR_INVALID_PARAM).
 */
static aclError aclrt_copy_check(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    if (dst == NULL || src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    if ((unsigned)kind > (unsigned)ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "copy kind %d is not one aclrtMemcpy/aclrtMemcpyAsync take (ACL_MEMCPY_HOST_TO_HOST .. "
                          "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE; INNER_/INTER_DEVICE_TO_DEVICE are for other calls)",
                          (int)kind);
    if (count > 0 && (destMax == 0 || count > destMax))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds destMax %zu", count, destMax);
    return ACL_SUCCESS;
}

/* A copy between two devices' memory needs the device that runs it to have peer access to both (peer.h). */
ACLRT_INTERNAL aclError aclrt_copy_peer_check(struct aclrt_device *runner, void *dst, const void *src, size_t count)
{
    struct aclrt_device *to = aclrt_mem_device_of(dst, count), *from = aclrt_mem_device_of(src, count);
    if (to == NULL || from == NULL || to == from)
        return ACL_SUCCESS;
    if (runner == NULL) {
        struct aclrt_context *ctx;
        aclError rc = aclrt_current_context(&ctx);
        if (rc != ACL_SUCCESS)
            return rc;
        runner = ctx->device;
    }
    return aclrt_peer_copy_check(runner, to, from);
}

/*
 * A synchronous copy or memset that touches a device's memory first lets
 * the work already launched to that device's streams finish, where it can
 * run: a program that launches a kernel and then copies what it wrote with
 * aclrtMemcpy sees the kernel's result, as on a device, where the kernel was
 * dispatched long before the copy engine starts (CANN's samples rely on it).
 * Not waited for: a stream parked on a wait or stopped (nothing says when it
 * goes on), the caller's own stream (a task that copies), and anything when
 * an embedder drives progress (its thread may be the caller). A task that
 * is running is waited for. The copy itself is not ordered with streams.
 */
#define ACLRT_MEM_SETTLE_STEP_NS (200 * 1000)

/* Stop waiting for this stream: parked, stopped or gone (checked at every wake-up and every step). */
static int aclrt_mem_settle_check(void *data)
{
    const struct aclrt_stream_life *l = (const struct aclrt_stream_life *)data;
    /* Relaxed: a hint, read again at every step. */
    uint64_t w = atomic_load_explicit(&l->s->sched, memory_order_relaxed);
    return (w & ACLRT_SCHED_STATE) == ACLRT_SCHED_PARKED || (w & ACLRT_SCHED_STOPPED) != 0 ||
           !aclrt_stream_life_alive(l);
}

static void aclrt_mem_settle(const struct aclrt_device *dev)
{
    if (dev == NULL || aclrt_rt.config.external_progress || aclrt_runtime_orphaned())
        return;
    struct aclrt_stream_ref buf[32], *refs;
    size_t n = aclrt_streams_snapshot(dev, NULL, buf, sizeof buf / sizeof buf[0], &refs);
    if (n == SIZE_MAX)
        return; /* out of memory: the copy goes on unordered, as on a device */
    for (size_t i = 0; i < n; i++) {
        struct aclrt_stream_life l = {refs[i].s, refs[i].life};
        if (refs[i].s == aclrt_running_stream())
            continue;
        /* In steps: a stream that parks meanwhile ends the wait at the next step. */
        while (!aclrt_mem_settle_check(&l) &&
               aclrt_stream_wait_until(&l, refs[i].submitted, aclrt_deadline_after(ACLRT_MEM_SETTLE_STEP_NS),
                                       refs[i].fast_sync, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) ==
                   ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
            ;
    }
    if (refs != buf)
        free(refs);
}

ACLRT_INTERNAL void aclrt_mem_settle_for(const void *a, const void *b, size_t count)
{
    const struct aclrt_device *da = aclrt_mem_device_of(a, count);
    const struct aclrt_device *db = b != NULL ? aclrt_mem_device_of(b, count) : NULL;
    aclrt_mem_settle(da);
    if (db != da)
        aclrt_mem_settle(db);
}

/* aclrtMemcpy, for it and for the calls that copy on its terms (symbol.h). */
ACLRT_INTERNAL aclError aclrt_memcpy_sync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    aclError rc = aclrt_copy_check(dst, destMax, src, count, kind);
    if (rc != ACL_SUCCESS || count == 0)
        return rc;
    if ((rc = aclrt_capture_check_unsafe("a synchronous copy")) != ACL_SUCCESS)
        return rc;
    aclrt_snapshot_gate(); /* a locked process's memory stays as its snapshot saw it */
    if ((rc = aclrt_copy_peer_check(NULL, dst, src, count)) != ACL_SUCCESS)
        return rc;
    /* Synchronous; after the device's runnable work (aclrt_mem_settle), not ordered with streams. */
    ACLRT_SAN(access, src, count, ACLRT_SAN_READ);
    ACLRT_SAN(access, dst, count, ACLRT_SAN_WRITE);
    aclrt_mem_settle_for(dst, src, count);
    const struct aclrt_backend *b = aclrt_rt.backend; /* NULL before the runtime first starts */
    if (b != NULL && b->mem_copy != NULL)
        return b->mem_copy(dst, src, count, kind);
    memmove(dst, src, count);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    ACLRT_ENTER();
    return aclrt_memcpy_sync(dst, destMax, src, count, kind);
}

/* ACLRT_TASK_MEMCPY / _MEMSET: on host-addressable memory (a backend with device memory overrides them). */
static int aclrt_memcpy_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    memmove(t->u.copy.dst, t->u.copy.src, t->u.copy.count);
    return ACL_SUCCESS;
}

static int aclrt_memset_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    memset(t->u.fill.dst, (int)(uint8_t)t->u32, t->u.fill.count);
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_memcpy = {ACLRT_TASK_MEMCPY, "memcpy", aclrt_memcpy_run, NULL};
static const struct aclrt_task_kind aclrt_kind_memset = {ACLRT_TASK_MEMSET, "memset", aclrt_memset_run, NULL};

/* Submit a task and, if asked, wait until it has run (pageable memory). */
ACLRT_INTERNAL aclError aclrt_submit_maybe_wait(struct aclrt_stream *s, const struct aclrt_task *t, bool wait)
{
    uint64_t number;
    aclError rc = aclrt_stream_submit(s, t, &number);
    if (rc != ACL_SUCCESS || !wait)
        return rc;
    if (aclrt_running_stream() == s)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "a copy with pageable host memory from a task of the same stream would wait for itself");
    if (aclrt_stream_wait_count(s, number, -1, ACL_SUCCESS) == ACL_SUCCESS)
        ACLRT_SAN(edge, NULL, s, number); /* the call returned after the copy: what follows is after it */
    return ACL_SUCCESS;
}

/* aclrtMemcpyAsync, and aclrtMemcpyAsyncWithCondition (memcpy2d.h), which is the same call. */
ACLRT_INTERNAL aclError aclrt_memcpy_async(void *dst, size_t destMax, const void *src, size_t count,
                                           aclrtMemcpyKind kind, aclrtStream stream)
{
    aclError rc = aclrt_copy_check(dst, destMax, src, count, kind);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    if (count == 0)
        return ACL_SUCCESS;
    if ((rc = aclrt_copy_peer_check(s->ctx->device, dst, src, count)) != ACL_SUCCESS)
        return rc;
    /* u32: the kind the caller gave (only the stream-ordering sanitizer reads it) */
    struct aclrt_task t = {.kind = &aclrt_kind_memcpy, .u32 = (uint32_t)kind, .u.copy.dst = dst, .u.copy.src = src,
                           .u.copy.count = count};
    bool pinned = aclrt_mem_is_ours(dst, count) && aclrt_mem_is_ours(src, count);
    return aclrt_submit_maybe_wait(s, &t, !pinned);
}

ACLRT_API aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                                    aclrtMemcpyKind kind, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_memcpy_async(dst, destMax, src, count, kind, stream);
}

static aclError aclrt_memset_check(void *devPtr, size_t maxCount, size_t count)
{
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (count > 0 && (maxCount == 0 || count > maxCount))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count %zu exceeds maxCount %zu", count, maxCount);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    ACLRT_ENTER();
    aclError rc = aclrt_memset_check(devPtr, maxCount, count);
    if (rc != ACL_SUCCESS || count == 0)
        return rc;
    if ((rc = aclrt_capture_check_unsafe("a synchronous memset")) != ACL_SUCCESS)
        return rc;
    aclrt_snapshot_gate(); /* a locked process's memory stays as its snapshot saw it */
    ACLRT_SAN(access, devPtr, count, ACLRT_SAN_WRITE);
    aclrt_mem_settle_for(devPtr, NULL, count);
    const struct aclrt_backend *b = aclrt_rt.backend; /* NULL before the runtime first starts */
    if (b != NULL && b->mem_set != NULL)
        return b->mem_set(devPtr, (int)(uint8_t)value, count);
    memset(devPtr, (int)(uint8_t)value, count);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    ACLRT_ENTER();
    aclError rc = aclrt_memset_check(devPtr, maxCount, count);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    if (count == 0)
        return ACL_SUCCESS;
    struct aclrt_task t = {.kind = &aclrt_kind_memset,
                           .u32 = (uint32_t)(uint8_t)value,
                           .u.fill.dst = devPtr,
                           .u.fill.count = count};
    return aclrt_submit_maybe_wait(s, &t, !aclrt_mem_is_ours(devPtr, count));
}

#endif /* ACLRT_IMPL_MEMORY_MEMCPY_H */
