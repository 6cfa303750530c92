/*
 * impl/memory/mem_pool.h - stream-ordered memory pools (acl/acl_rt_memory_soma.h).
 *
 * A pool holds blocks of one device's memory, each either in use (handed
 * out by aclrtMemPoolMallocAsync) or free. aclrtMemPoolFreeAsync submits a
 * no-op task to its stream and marks the block free as of that task: the
 * free's point. An allocation takes the free block of the closest size at
 * least as large as asked (best fit, no splitting) that is safe to reuse:
 * freed on the allocating stream (stream order puts every later use after
 * the free's point), or, with ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC,
 * freed on another stream whose free's point has run. Otherwise the pool
 * grows by a new block from the backend, up to maxSize; growing first
 * returns the reusable free blocks beyond the release threshold.
 * aclrtMemPoolTrimTo returns reusable free blocks until the pool reserves
 * at most what it is told to keep; blocks whose free's point has not run
 * stay. Blocks are in the allocation registry as the runtime's device
 * memory (ACLRT_MEM_RUNTIME: copies, kernels and values reach them,
 * aclrtFree refuses them). Streams are kept by slot pointer, valid for the
 * process, with counts that never go back (stream.h), so a free's point
 * outlives its stream's destruction. One mutex guards every pool: pool
 * calls are not a hot path, and a free names no pool.
 */
#ifndef ACLRT_IMPL_MEMORY_MEM_POOL_H
#define ACLRT_IMPL_MEMORY_MEM_POOL_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_submit.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "memory.h"

struct aclrt_pool_block {
    uintptr_t base;
    size_t size;
    bool used;
    struct aclrt_stream *stream; /* free: the stream of the free; NULL: free since it was made */
    void *handle;                /* free: that stream's handle (a later life of its slot is another stream) */
    uint64_t point;              /* free: the number of the free's task on that stream */
};

struct aclrt_mem_pool {
    struct aclrt_device *dev;
    size_t max_size; /* 0: no bound but the device's */
    uint32_t reuse_follow_events, reuse_opportunistic, reuse_internal;
    uint64_t release_threshold;
    uint64_t reserved, reserved_high, used, used_high;
    struct aclrt_pool_block *blocks;
    size_t count, capacity;
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_mem_pool **pools; /* the live pools; a handle is a pool's address, checked against them */
    size_t count, capacity;
} aclrt_pools = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The live pool `handle` names, or NULL (under the lock). */
static struct aclrt_mem_pool *aclrt_pool_find_locked(const void *handle)
{
    for (size_t i = 0; i < aclrt_pools.count; i++)
        if ((const void *)aclrt_pools.pools[i] == handle)
            return aclrt_pools.pools[i];
    return NULL;
}

ACLRT_API aclError aclrtMemPoolCreate(aclrtMemPool *memPool, const aclrtMemPoolProps *poolProps)
{
    ACLRT_ENTER();
    if (memPool == NULL || poolProps == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", memPool == NULL ? "memPool (output)" : "poolProps");
    if (poolProps->allocType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "poolProps->allocType %d is not ACL_MEM_ALLOCATION_TYPE_PINNED",
                          (int)poolProps->allocType);
    if (poolProps->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "poolProps->handleType %d: pools shared between processes are not supported (use "
                          "ACL_MEM_HANDLE_TYPE_NONE)",
                          (int)poolProps->handleType);
    if (poolProps->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "poolProps->location.type %d: a pool holds device memory",
                          (int)poolProps->location.type);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(poolProps->location.id > INT32_MAX ? -1 : (int32_t)poolProps->location.id, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_mem_pool *p = (struct aclrt_mem_pool *)calloc(1, sizeof *p);
    if (p == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory making a pool");
    p->dev = dev;
    p->max_size = poolProps->maxSize;
    p->reuse_follow_events = p->reuse_opportunistic = p->reuse_internal = 1;
    pthread_mutex_lock(&aclrt_pools.lock);
    if (aclrt_pools.count == aclrt_pools.capacity) {
        size_t cap = aclrt_pools.capacity ? aclrt_pools.capacity * 2 : 8;
        struct aclrt_mem_pool **pools =
            (struct aclrt_mem_pool **)realloc(aclrt_pools.pools, cap * sizeof *pools);
        if (pools == NULL) {
            pthread_mutex_unlock(&aclrt_pools.lock);
            free(p);
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a pool");
        }
        aclrt_pools.pools = pools;
        aclrt_pools.capacity = cap;
    }
    aclrt_pools.pools[aclrt_pools.count++] = p;
    pthread_mutex_unlock(&aclrt_pools.lock);
    *memPool = p;
    return ACL_SUCCESS;
}

/*
 * Has the free's point of a free block run? The stream's completed count,
 * or the device's word (a GPU's stream folds its count in only when someone
 * waits: after a synchronize the word says so first).
 */
static bool aclrt_pool_point_passed(const struct aclrt_pool_block *b)
{
    return b->stream == NULL || aclrt_stream_reached(b->stream, b->point);
}

/* Give block i back to the device (free, its point passed); under the lock. */
static void aclrt_pool_release_block_locked(struct aclrt_mem_pool *p, size_t i)
{
    struct aclrt_allocation a;
    if (aclrt_mem_unregister(p->blocks[i].base, ACLRT_MEM_RUNTIME, &a))
        aclrt_mem_free_after_work(&a); /* returned at once: no work can use it any more */
    p->reserved -= p->blocks[i].size;
    p->blocks[i] = p->blocks[--p->count];
}

/* Release reusable free blocks, largest first, until the pool reserves at most `keep` bytes. */
static void aclrt_pool_trim_locked(struct aclrt_mem_pool *p, uint64_t keep)
{
    while (p->reserved > keep) {
        size_t best = SIZE_MAX;
        for (size_t i = 0; i < p->count; i++)
            if (!p->blocks[i].used && aclrt_pool_point_passed(&p->blocks[i]) &&
                (best == SIZE_MAX || p->blocks[i].size > p->blocks[best].size))
                best = i;
        if (best == SIZE_MAX)
            return;
        aclrt_pool_release_block_locked(p, best);
    }
}

ACLRT_API aclError aclrtMemPoolDestroy(const aclrtMemPool memPool)
{
    ACLRT_ENTER();
    if (memPool == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "memPool is NULL");
    pthread_mutex_lock(&aclrt_pools.lock);
    struct aclrt_mem_pool *p = aclrt_pool_find_locked(memPool);
    if (p == NULL) {
        pthread_mutex_unlock(&aclrt_pools.lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a live pool (aclrtMemPoolCreate)", memPool);
    }
    size_t in_use = 0;
    for (size_t i = 0; i < p->count; i++)
        in_use += p->blocks[i].used;
    if (in_use > 0) {
        pthread_mutex_unlock(&aclrt_pools.lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "the pool still has %zu allocations in use: free them (aclrtMemPoolFreeAsync) first", in_use);
    }
    for (size_t i = 0; i < aclrt_pools.count; i++)
        if (aclrt_pools.pools[i] == p) {
            aclrt_pools.pools[i] = aclrt_pools.pools[--aclrt_pools.count];
            break;
        }
    pthread_mutex_unlock(&aclrt_pools.lock);
    /* Free blocks whose point may not have run go back once the work launched so far is done (memory.h). */
    for (size_t i = 0; i < p->count; i++) {
        struct aclrt_allocation a;
        if (aclrt_mem_unregister(p->blocks[i].base, ACLRT_MEM_RUNTIME, &a))
            aclrt_mem_free_after_work(&a);
    }
    free(p->blocks);
    free(p);
    return ACL_SUCCESS;
}

static aclError aclrt_pool_attr_value(aclrtMemPoolAttr attr, bool set, uint32_t **flag, struct aclrt_mem_pool *p)
{
    switch (attr) {
    case ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES: *flag = &p->reuse_follow_events; return ACL_SUCCESS;
    case ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC: *flag = &p->reuse_opportunistic; return ACL_SUCCESS;
    case ACL_RT_MEM_POOL_REUSE_ALLOW_INTERNAL_DEPENDENCIES: *flag = &p->reuse_internal; return ACL_SUCCESS;
    case ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD:
    case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH:
    case ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH: *flag = NULL; return ACL_SUCCESS;
    case ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT:
    case ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT:
        if (set)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "attribute %d is read-only", (int)attr);
        *flag = NULL;
        return ACL_SUCCESS;
    default: return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not a pool attribute (aclrtMemPoolAttr)", (int)attr);
    }
}

ACLRT_API aclError aclrtMemPoolSetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
    ACLRT_ENTER();
    if (memPool == NULL || value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", memPool == NULL ? "memPool" : "value");
    pthread_mutex_lock(&aclrt_pools.lock);
    struct aclrt_mem_pool *p = aclrt_pool_find_locked(memPool);
    uint32_t *flag = NULL;
    aclError rc = p == NULL ? aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a live pool (aclrtMemPoolCreate)", memPool)
                            : aclrt_pool_attr_value(attr, true, &flag, p);
    if (rc == ACL_SUCCESS && flag != NULL) {
        uint32_t v;
        memcpy(&v, value, sizeof v);
        if (v > 1)
            rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "attribute %d: %u is not 0 or 1", (int)attr, v);
        else
            *flag = v;
    } else if (rc == ACL_SUCCESS) {
        uint64_t v;
        memcpy(&v, value, sizeof v);
        if (attr == ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD)
            p->release_threshold = v;
        else if (v != 0) /* a high-water mark is only reset, to the current value */
            rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "attribute %d can only be reset (to 0), not set to %llu",
                            (int)attr, (unsigned long long)v);
        else if (attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH)
            p->reserved_high = p->reserved;
        else
            p->used_high = p->used;
    }
    pthread_mutex_unlock(&aclrt_pools.lock);
    return rc;
}

ACLRT_API aclError aclrtMemPoolGetAttr(aclrtMemPool memPool, aclrtMemPoolAttr attr, void *value)
{
    ACLRT_ENTER();
    if (memPool == NULL || value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", memPool == NULL ? "memPool" : "value (output)");
    pthread_mutex_lock(&aclrt_pools.lock);
    struct aclrt_mem_pool *p = aclrt_pool_find_locked(memPool);
    uint32_t *flag = NULL;
    aclError rc = p == NULL ? aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a live pool (aclrtMemPoolCreate)", memPool)
                            : aclrt_pool_attr_value(attr, false, &flag, p);
    if (rc == ACL_SUCCESS && flag != NULL) {
        memcpy(value, flag, sizeof *flag);
    } else if (rc == ACL_SUCCESS) {
        uint64_t v = attr == ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD    ? p->release_threshold
                     : attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT ? p->reserved
                     : attr == ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH    ? p->reserved_high
                     : attr == ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT     ? p->used
                                                                         : p->used_high;
        memcpy(value, &v, sizeof v);
    }
    pthread_mutex_unlock(&aclrt_pools.lock);
    return rc;
}

/* A new block of `size` bytes (rounded to 64) for p; under the lock. */
static aclError aclrt_pool_grow_locked(struct aclrt_mem_pool *p, size_t size, size_t *at)
{
    size_t bytes = (size + 63) & ~(size_t)63;
    aclrt_pool_trim_locked(p, p->release_threshold); /* what the threshold lets go, before asking for more */
    if (p->max_size != 0 && (bytes > p->max_size || p->reserved > p->max_size - bytes))
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "the pool cannot grow by %zu bytes: it holds %llu of its %zu bytes (maxSize)", bytes,
                          (unsigned long long)p->reserved, p->max_size);
    aclError rc = aclrt_mem_size_check(bytes, "pool memory");
    if (rc != ACL_SUCCESS)
        return rc;
    if (p->count == p->capacity) {
        size_t cap = p->capacity ? p->capacity * 2 : 16;
        struct aclrt_pool_block *blocks = (struct aclrt_pool_block *)realloc(p->blocks, cap * sizeof *blocks);
        if (blocks == NULL)
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a pool block");
        p->blocks = blocks;
        p->capacity = cap;
    }
    void *mem;
    if (aclrt_rt.backend->mem_alloc(p->dev, bytes, &mem) != ACL_SUCCESS)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of device memory for the pool",
                          bytes);
    if (!aclrt_mem_register((uintptr_t)mem, bytes, ACLRT_MEM_RUNTIME, p->dev)) {
        aclrt_rt.backend->mem_free(p->dev, mem);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an allocation");
    }
    p->blocks[p->count] = (struct aclrt_pool_block){(uintptr_t)mem, bytes, false, NULL, NULL, 0};
    *at = p->count++;
    p->reserved += bytes;
    if (p->reserved > p->reserved_high)
        p->reserved_high = p->reserved;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemPoolMallocAsync(void **ptr, size_t size, aclrtMemPool memPool, aclrtStream stream)
{
    ACLRT_ENTER();
    if (ptr == NULL || memPool == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", ptr == NULL ? "ptr (output)" : "memPool");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_stream_capturing(s))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a pool allocation on a capturing stream is not supported");
    pthread_mutex_lock(&aclrt_pools.lock);
    struct aclrt_mem_pool *p = aclrt_pool_find_locked(memPool);
    if (p == NULL) {
        pthread_mutex_unlock(&aclrt_pools.lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a live pool (aclrtMemPoolCreate)", memPool);
    }
    if (p->dev != s->ctx->device) {
        pthread_mutex_unlock(&aclrt_pools.lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the pool holds memory of device %u, the stream is of device %u",
                          p->dev->id, s->ctx->device->id);
    }
    /* Best fit among the blocks safe to reuse on s. */
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < p->count; i++) {
        const struct aclrt_pool_block *b = &p->blocks[i];
        if (b->used || b->size < size || (best != SIZE_MAX && b->size >= p->blocks[best].size))
            continue;
        bool same_stream = b->stream == s && b->handle == aclrt_stream_handle(s);
        if (b->stream == NULL || same_stream || (p->reuse_opportunistic && aclrt_pool_point_passed(b)))
            best = i;
    }
    if (best == SIZE_MAX && (rc = aclrt_pool_grow_locked(p, size, &best)) != ACL_SUCCESS) {
        pthread_mutex_unlock(&aclrt_pools.lock);
        return rc;
    }
    struct aclrt_pool_block *b = &p->blocks[best];
    b->used = true;
    b->stream = NULL;
    p->used += b->size;
    if (p->used > p->used_high)
        p->used_high = p->used;
    *ptr = (void *)b->base;
    pthread_mutex_unlock(&aclrt_pools.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemPoolFreeAsync(void *ptr, aclrtStream stream)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_stream_capturing(s))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "a pool free on a capturing stream is not supported");
    pthread_mutex_lock(&aclrt_pools.lock);
    struct aclrt_mem_pool *p = NULL;
    struct aclrt_pool_block *b = NULL;
    for (size_t i = 0; i < aclrt_pools.count && b == NULL; i++)
        for (size_t j = 0; j < aclrt_pools.pools[i]->count; j++)
            if (aclrt_pools.pools[i]->blocks[j].base == (uintptr_t)ptr && aclrt_pools.pools[i]->blocks[j].used) {
                p = aclrt_pools.pools[i];
                b = &p->blocks[j];
                break;
            }
    if (b == NULL) {
        pthread_mutex_unlock(&aclrt_pools.lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%p was not returned by aclrtMemPoolMallocAsync (or was already freed)", ptr);
    }
    /* The free's point: a task after everything the stream was given for the memory. */
    struct aclrt_task t = {.kind = &aclrt_kind_nop};
    uint64_t number;
    if ((rc = aclrt_stream_submit(s, &t, &number)) != ACL_SUCCESS) {
        pthread_mutex_unlock(&aclrt_pools.lock);
        return rc;
    }
    b->used = false;
    b->stream = s;
    b->handle = aclrt_stream_handle(s);
    b->point = number;
    p->used -= b->size;
    pthread_mutex_unlock(&aclrt_pools.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemPoolTrimTo(aclrtMemPool memPool, size_t minBytesToKeep)
{
    ACLRT_ENTER();
    if (memPool == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "memPool is NULL");
    pthread_mutex_lock(&aclrt_pools.lock);
    struct aclrt_mem_pool *p = aclrt_pool_find_locked(memPool);
    if (p != NULL)
        aclrt_pool_trim_locked(p, minBytesToKeep);
    pthread_mutex_unlock(&aclrt_pools.lock);
    if (p == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not a live pool (aclrtMemPoolCreate)", memPool);
    return ACL_SUCCESS;
}

/* aclFinalize: every pool goes, with its memory (before the allocation registry returns the rest). */
ACLRT_INTERNAL void aclrt_mem_pool_release_all(void)
{
    pthread_mutex_lock(&aclrt_pools.lock);
    for (size_t i = 0; i < aclrt_pools.count; i++) {
        struct aclrt_mem_pool *p = aclrt_pools.pools[i];
        for (size_t j = 0; j < p->count; j++) {
            struct aclrt_allocation a;
            if (aclrt_mem_unregister(p->blocks[j].base, ACLRT_MEM_RUNTIME, &a))
                aclrt_rt.backend->mem_free(a.device, (void *)a.base);
        }
        free(p->blocks);
        free(p);
    }
    free(aclrt_pools.pools);
    aclrt_pools.pools = NULL;
    aclrt_pools.count = aclrt_pools.capacity = 0;
    pthread_mutex_unlock(&aclrt_pools.lock);
}

#endif /* ACLRT_IMPL_MEMORY_MEM_POOL_H */
