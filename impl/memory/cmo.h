/*
 * impl/memory/cmo.h - memory types and cache maintenance (aclrtCheckMemType, aclrtMemFlush, aclrtCmo*).
 *
 * A device's caches are the CPU's here, which keeps them coherent by
 * itself: flushing, invalidating, prefetching and writing back have
 * nothing to do. The calls check their arguments as the runtime does and
 * succeed; the stream-ordered ones (aclrtCmoAsync, WithBarrier, WithDesc,
 * aclrtCmoWaitBarrier) submit a task that does nothing when it runs, so
 * they take their place in the stream's order, events recorded after them
 * complete after them, and a capture records them. A cache descriptor is
 * device memory of aclrtCmoGetDescSize bytes that aclrtCmoSetDesc fills
 * with an address and a size; aclrtCmoAsyncWithDesc checks it is one.
 * aclrtCheckMemType answers from the allocation registry (memory.h) and
 * the reserved ranges (vmm.h).
 */
#ifndef ACLRT_IMPL_MEMORY_CMO_H
#define ACLRT_IMPL_MEMORY_CMO_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "memory.h"
#include "physmem.h"

#define ACLRT_CMO_DESC_MAGIC 0x434d4f44u /* "CMOD" */

/* A cache descriptor, as aclrtCmoSetDesc writes it into device memory. */
struct aclrt_cmo_desc {
    uint32_t magic;
    uint32_t reserved;
    uint64_t src;
    uint64_t size;
    uint64_t pad;
};

static bool aclrt_cmo_in_reserved_range(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    bool in = false;
    pthread_mutex_lock(&aclrt_physmem.lock);
    for (size_t i = 0; i < aclrt_physmem.ranges.count && !in; i++) {
        const struct aclrt_vrange *r = (const struct aclrt_vrange *)aclrt_physmem.ranges.items[i];
        in = a >= r->base && a - r->base < r->size;
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return in;
}

ACLRT_API aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
                                     uint32_t reserve)
{
    ACLRT_ENTER();
    if (addrList == NULL || checkResult == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", addrList == NULL ? "addrList" : "checkResult (output)");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (reserve != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "reserve %u is reserved and must be 0", reserve);
    const uint32_t known = ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD;
    if (memType == 0 || (memType & ~known) != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "memType 0x%x is not a combination of ACL_RT_MEM_TYPE_DEV, _DVPP and _RSVD", memType);
    uint32_t match = 1;
    for (uint32_t i = 0; i < size && match; i++) {
        const void *p = addrList[i];
        /* DVPP memory is device memory like any other here. */
        bool dev = p != NULL && (memType & (ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP)) &&
                   aclrt_mem_device_of(p, 1) != NULL;
        bool rsvd = p != NULL && (memType & ACL_RT_MEM_TYPE_RSVD) && aclrt_cmo_in_reserved_range(p);
        match = dev || rsvd;
    }
    *checkResult = match;
    return ACL_SUCCESS;
}

/* aclrtMemFlush / aclrtMemInvalidate: the CPU keeps its caches coherent. */
static aclError aclrt_cache_sync_check(const void *devPtr, size_t size)
{
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemFlush(void *devPtr, size_t size)
{
    ACLRT_ENTER();
    return aclrt_cache_sync_check(devPtr, size);
}

ACLRT_API aclError aclrtMemInvalidate(void *devPtr, size_t size)
{
    ACLRT_ENTER();
    return aclrt_cache_sync_check(devPtr, size);
}

static aclError aclrt_cmo_type_check(aclrtCmoType type)
{
    if ((int)type < (int)ACL_RT_CMO_TYPE_PREFETCH || (int)type > (int)ACL_RT_CMO_TYPE_FLUSH)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not a cache operation (aclrtCmoType)", (int)type);
    return ACL_SUCCESS;
}

/* Resolve the stream and check [src, src + size) is device memory of its device. */
static aclError aclrt_cmo_target(const void *src, size_t size, aclrtStream stream, struct aclrt_stream **s)
{
    if (src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "src is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError rc = aclrt_stream_resolve(stream, true, s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_mem_device_of(src, size) != (*s)->ctx->device)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%zu bytes at %p are not device memory of device %u (the stream's)",
                          size, src, (*s)->ctx->device->id);
    return ACL_SUCCESS;
}

/* The task of a cache operation: it does nothing, in its place in the stream. */
static aclError aclrt_cmo_submit(struct aclrt_stream *s)
{
    struct aclrt_task t = {.kind = &aclrt_kind_nop};
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream)
{
    ACLRT_ENTER();
    aclError rc = aclrt_cmo_type_check(cmoType);
    struct aclrt_stream *s;
    if (rc != ACL_SUCCESS || (rc = aclrt_cmo_target(src, size, stream, &s)) != ACL_SUCCESS)
        return rc;
    return aclrt_cmo_submit(s);
}

ACLRT_API aclError aclrtCmoAsyncWithBarrier(void *src, size_t size, aclrtCmoType cmoType, uint32_t barrierId,
                                            aclrtStream stream)
{
    ACLRT_ENTER();
    aclError rc = aclrt_cmo_type_check(cmoType);
    if (rc != ACL_SUCCESS)
        return rc;
    if (cmoType != ACL_RT_CMO_TYPE_INVALID && barrierId != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "barrierId %u: only an invalidation (ACL_RT_CMO_TYPE_INVALID) takes a barrier; pass 0",
                          barrierId);
    struct aclrt_stream *s;
    if ((rc = aclrt_cmo_target(src, size, stream, &s)) != ACL_SUCCESS)
        return rc;
    return aclrt_cmo_submit(s);
}

ACLRT_API aclError aclrtCmoWaitBarrier(aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag)
{
    ACLRT_ENTER();
    if (taskInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "taskInfo is NULL");
    if (flag != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flag %u is reserved and must be 0", flag);
    if (taskInfo->barrierNum == 0 || taskInfo->barrierNum > ACL_RT_CMO_MAX_BARRIER_NUM)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "taskInfo->barrierNum %zu is not in [1, %u]",
                          taskInfo->barrierNum, ACL_RT_CMO_MAX_BARRIER_NUM);
    for (size_t i = 0; i < taskInfo->barrierNum; i++) {
        const aclrtBarrierCmoInfo *b = &taskInfo->cmoInfo[i];
        if (b->cmoType != ACL_RT_CMO_TYPE_INVALID)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "taskInfo->cmoInfo[%zu].cmoType %d: only invalidations (ACL_RT_CMO_TYPE_INVALID) have barriers",
                              i, (int)b->cmoType);
        if (b->barrierId == 0)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "taskInfo->cmoInfo[%zu].barrierId is 0 (no barrier)", i);
    }
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    /* The invalidations it waits for did nothing: the wait is a task that keeps the order. */
    return aclrt_cmo_submit(s);
}

ACLRT_API aclError aclrtCmoGetDescSize(size_t *size)
{
    ACLRT_ENTER();
    if (size == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size (output) is NULL");
    *size = sizeof(struct aclrt_cmo_desc);
    return ACL_SUCCESS;
}

/* The descriptor's memory: device memory of the runtime that holds a whole descriptor. */
static aclError aclrt_cmo_desc_check(const void *desc)
{
    if (aclrt_mem_device_of(desc, sizeof(struct aclrt_cmo_desc)) == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "cmoDesc %p is not %zu bytes of device memory (aclrtCmoGetDescSize, aclrtMalloc)", desc,
                          sizeof(struct aclrt_cmo_desc));
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size)
{
    ACLRT_ENTER();
    if (cmoDesc == NULL || src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", cmoDesc == NULL ? "cmoDesc" : "src");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    aclError rc = aclrt_cmo_desc_check(cmoDesc);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_mem_device_of(src, size) == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%zu bytes at %p are not device memory", size, src);
    struct aclrt_cmo_desc d = {ACLRT_CMO_DESC_MAGIC, 0, (uint64_t)(uintptr_t)src, (uint64_t)size, 0};
    const struct aclrt_backend *b = aclrt_rt.backend;
    if (b != NULL && b->mem_copy != NULL)
        return b->mem_copy(cmoDesc, &d, sizeof d, ACL_MEMCPY_HOST_TO_DEVICE);
    memcpy(cmoDesc, &d, sizeof d);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream, const void *reserve)
{
    ACLRT_ENTER();
    if (cmoDesc == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cmoDesc is NULL");
    if (reserve != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "reserve is reserved and must be NULL");
    aclError rc = aclrt_cmo_type_check(cmoType);
    if (rc != ACL_SUCCESS || (rc = aclrt_cmo_desc_check(cmoDesc)) != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    /* The descriptor is read when the task runs on a device; here the task has nothing to read it for. */
    return aclrt_cmo_submit(s);
}

ACLRT_API aclError aclrtDeviceL2CacheFlush(void *rsv)
{
    ACLRT_ENTER();
    if (rsv != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "rsv is reserved and must be NULL");
    struct aclrt_context *ctx;
    return aclrt_current_context(&ctx); /* the current device's cache: the CPU's, coherent already */
}

#endif /* ACLRT_IMPL_MEMORY_CMO_H */
