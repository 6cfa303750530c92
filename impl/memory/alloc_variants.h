/*
 * impl/memory/alloc_variants.h - the variants of aclrtMalloc and aclrtMallocHost,
 * and the frees that synchronize the device first.
 *
 * aclrtMallocAlign32, aclrtMallocCached, aclrtMallocWithCfg and
 * aclrtMallocForTaskScheduler allocate device memory as aclrtMalloc does
 * (host memory on the host backend: aligned to 64 bytes, cached, reachable
 * by every task); aclrtMallocHostWithCfg allocates pinned host memory as
 * aclrtMallocHost does. A configuration is checked and its attributes
 * honoured where they mean something here: the device id must be the
 * current device's, the module id is accepted, VA consistency holds
 * already (host memory has one address). aclrtFreeWithDevSync and
 * aclrtFreeHostWithDevSync wait for the work launched to the device's
 * streams (host memory: every device's) before they free.
 */
#ifndef ACLRT_IMPL_MEMORY_ALLOC_VARIANTS_H
#define ACLRT_IMPL_MEMORY_ALLOC_VARIANTS_H

#include "../core/base.h"
#include "../core/sanitize_hook.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_life.h"
#include "../stream/stream_sync.h"
#include "../context/context.h"
#include "memory.h"

/* Check a configuration (NULL: none). */
static aclError aclrt_malloc_cfg_check(const aclrtMallocConfig *cfg)
{
    if (cfg == NULL)
        return ACL_SUCCESS;
    if (cfg->numAttrs > 0 && cfg->attrs == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cfg->attrs is NULL with cfg->numAttrs %zu", cfg->numAttrs);
    for (size_t i = 0; i < cfg->numAttrs; i++) {
        const aclrtMallocAttribute *a = &cfg->attrs[i];
        switch (a->attr) {
        case ACL_RT_MEM_ATTR_RSV:
        case ACL_RT_MEM_ATTR_MODULE_ID: break;
        case ACL_RT_MEM_ATTR_DEVICE_ID: {
            struct aclrt_context *ctx;
            aclError rc = aclrt_current_context(&ctx);
            if (rc != ACL_SUCCESS)
                return rc;
            if (a->value.deviceId != ctx->device->id)
                return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cfg->attrs[%zu]: device %u is not the current device %u", i,
                                  a->value.deviceId, ctx->device->id);
            break;
        }
        case ACL_RT_MEM_ATTR_VA_FLAG:
            if (a->value.vaFlag > 1)
                return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cfg->attrs[%zu]: vaFlag %u is not 0 or 1", i,
                                  a->value.vaFlag);
            break;
        default:
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "cfg->attrs[%zu]: %d is not a memory attribute (aclrtMallocAttrType)",
                              i, (int)a->attr);
        }
    }
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    ACLRT_ENTER();
    (void)policy; /* as aclrtMalloc; the allocation is 64-byte aligned and rounded up already */
    return aclrt_malloc_device(devPtr, size);
}

ACLRT_API aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    ACLRT_ENTER();
    (void)policy; /* as aclrtMalloc: the host's memory is cached */
    return aclrt_malloc_device(devPtr, size);
}

ACLRT_API aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                      aclrtMallocConfig *cfg)
{
    ACLRT_ENTER();
    (void)policy;
    aclError rc = aclrt_malloc_cfg_check(cfg);
    return rc != ACL_SUCCESS ? rc : aclrt_malloc_device(devPtr, size);
}

ACLRT_API aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                               aclrtMallocConfig *cfg)
{
    ACLRT_ENTER();
    (void)policy; /* the task scheduler is the executor threads: any device memory will do */
    aclError rc = aclrt_malloc_cfg_check(cfg);
    return rc != ACL_SUCCESS ? rc : aclrt_malloc_device(devPtr, size);
}

ACLRT_API aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    ACLRT_ENTER();
    aclError rc = aclrt_malloc_cfg_check(cfg);
    if (rc != ACL_SUCCESS)
        return rc;
    if (size > SIZE_MAX)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %llu bytes of host memory",
                          (unsigned long long)size);
    return aclrt_malloc_host(ptr, (size_t)size);
}

/*
 * Wait for what the streams of `dev` (NULL: of every device) had been given
 * at the call; the caller's own stream, when a task calls, is not waited for.
 */
static aclError aclrt_mem_sync_devices(const struct aclrt_device *dev)
{
    for (uint32_t d = 0; d < aclrt_rt.device_count; d++) {
        const struct aclrt_device *on = &aclrt_rt.devices[d];
        if (dev != NULL && on != dev)
            continue;
        struct aclrt_stream_ref buf[32], *refs;
        size_t n = aclrt_streams_snapshot(on, NULL, buf, sizeof buf / sizeof buf[0], &refs);
        if (n == SIZE_MAX)
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory listing the streams of device %u", d);
        for (size_t i = 0; i < n; i++) {
            struct aclrt_stream_life l = {refs[i].s, refs[i].life};
            if (refs[i].s != aclrt_running_stream())
                aclrt_stream_wait_until(&l, refs[i].submitted, ACLRT_NO_DEADLINE, refs[i].fast_sync,
                                        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
        }
        if (refs != buf)
            free(refs);
    }
    return ACL_SUCCESS;
}

/* Free an allocation of `kind` at ptr after its device's (host: every device's) launched work. */
static aclError aclrt_free_with_sync(void *ptr, enum aclrt_mem_kind kind, const char *what)
{
    struct aclrt_allocation a;
    if (!aclrt_mem_find(ptr, &a) || a.base != (uintptr_t)ptr || a.kind != kind)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p was not returned by %s (or was already freed)", ptr, what);
    aclError rc = aclrt_mem_sync_devices(kind == ACLRT_MEM_HOST ? NULL : a.device);
    if (rc != ACL_SUCCESS)
        return rc;
    ACLRT_SAN(edge_all, kind == ACLRT_MEM_HOST ? -1 : (int32_t)a.device->id);
    if (!aclrt_mem_unregister((uintptr_t)ptr, kind, &a))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p was freed by another thread meanwhile", ptr);
    aclrt_mem_free_after_work(&a); /* now, unless another device's streams took work on it meanwhile */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtFreeWithDevSync(void *devPtr)
{
    ACLRT_ENTER();
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    return aclrt_free_with_sync(devPtr, ACLRT_MEM_DEVICE, "aclrtMalloc");
}

ACLRT_API aclError aclrtFreeHostWithDevSync(void *hostPtr)
{
    ACLRT_ENTER();
    if (hostPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "hostPtr is NULL");
    return aclrt_free_with_sync(hostPtr, ACLRT_MEM_HOST, "aclrtMallocHost");
}

#endif /* ACLRT_IMPL_MEMORY_ALLOC_VARIANTS_H */
