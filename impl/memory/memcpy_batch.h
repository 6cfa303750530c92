/*
 * impl/memory/memcpy_batch.h - batch copies, copy descriptors, and copies whose
 * base addresses are read from memory when they run.
 *
 * A batch is a list of copies, each with its destination's size, and
 * attributes (where the source and the destination are) that apply to runs
 * of entries: attrs[k] from attrsIndexes[k] on. Every entry is checked
 * before anything is copied; a failing entry's index goes to *failIndex
 * (SIZE_MAX when the error is not an entry's). The synchronous batch copies
 * as aclrtMemcpy does; the asynchronous one submits one copy task per
 * entry, in order, and returns after them when any memory is pageable.
 *
 * A copy descriptor is device memory the program allocates (of the size
 * aclrtGetMemcpyDescSize gives) and aclrtSetMemcpyDesc fills; the task of
 * aclrtMemcpyAsyncWithDesc reads it when it runs, as aclrtMemcpyAsyncWithOffset's
 * task reads its two base addresses. Both copy within a device
 * (ACL_MEMCPY_INNER_DEVICE_TO_DEVICE). A backend whose device memory the
 * CPU cannot address overrides the kind (or refuses it, as the cuda backend
 * does without host access).
 */
#ifndef ACLRT_IMPL_MEMORY_MEMCPY_BATCH_H
#define ACLRT_IMPL_MEMORY_MEMCPY_BATCH_H

#include "../core/base.h"
#include "../core/error.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../context/stream_api.h"
#include "memcpy.h"
#include "memory.h"

/* Does the batch attribute's location agree with the memory at p (the registry's word, where it has one)? */
static bool aclrt_batch_loc_ok(const aclrtMemLocation *loc, const void *p, size_t n)
{
    struct aclrt_device *dev = aclrt_mem_device_of(p, n);
    if (loc->type == ACL_MEM_LOCATION_TYPE_DEVICE)
        return loc->id < aclrt_rt.device_count && (dev == NULL || dev->id == loc->id);
    return loc->type == ACL_MEM_LOCATION_TYPE_HOST && dev == NULL;
}

static aclError aclrt_batch_check(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                  aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs,
                                  size_t *failIndex)
{
    if (dsts == NULL || destMaxs == NULL || srcs == NULL || sizes == NULL || attrs == NULL || attrsIndexes == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                          dsts == NULL ? "dsts" : destMaxs == NULL ? "destMaxs" : srcs == NULL ? "srcs"
                          : sizes == NULL ? "sizes" : attrs == NULL ? "attrs" : "attrsIndexes");
    if (numBatches == 0 || numAttrs == 0 || numAttrs > numBatches)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "numBatches %zu and numAttrs %zu: need 1 <= numAttrs <= numBatches",
                          numBatches, numAttrs);
    for (size_t k = 0; k < numAttrs; k++)
        if ((k == 0 && attrsIndexes[0] != 0) || (k > 0 && attrsIndexes[k] <= attrsIndexes[k - 1]) ||
            attrsIndexes[k] >= numBatches)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attrsIndexes[%zu] = %zu: the indexes start at 0 and grow, "
                              "below numBatches %zu", k, attrsIndexes[k], numBatches);
    int direction = -1; /* 0: host to device, 1: device to host */
    for (size_t i = 0, k = 0; i < numBatches; i++) {
        while (k + 1 < numAttrs && attrsIndexes[k + 1] <= i)
            k++;
        const aclrtMemcpyBatchAttr *a = &attrs[k];
        *failIndex = i;
        if (dsts[i] == NULL || srcs[i] == NULL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "entry %zu: %s is NULL", i, dsts[i] == NULL ? "dst" : "src");
        if (sizes[i] > destMaxs[i])
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "entry %zu: size %zu exceeds destMax %zu", i, sizes[i],
                              destMaxs[i]);
        int d = a->srcLoc.type == ACL_MEM_LOCATION_TYPE_HOST && a->dstLoc.type == ACL_MEM_LOCATION_TYPE_DEVICE ? 0
                : a->srcLoc.type == ACL_MEM_LOCATION_TYPE_DEVICE && a->dstLoc.type == ACL_MEM_LOCATION_TYPE_HOST ? 1
                : -1;
        if (d < 0 || (direction >= 0 && d != direction))
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "entry %zu (attrs[%zu]): a batch copies host to device or device "
                              "to host, one of the two for every entry", i, k);
        direction = d;
        if (!aclrt_batch_loc_ok(&a->srcLoc, srcs[i], sizes[i]) || !aclrt_batch_loc_ok(&a->dstLoc, dsts[i], sizes[i]))
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "entry %zu (attrs[%zu]): the %s is not where the attribute "
                              "says it is", i, k, aclrt_batch_loc_ok(&a->srcLoc, srcs[i], sizes[i]) ? "dst" : "src");
    }
    *failIndex = SIZE_MAX;
    return ACL_SUCCESS;
}

static aclError aclrt_batch_sync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                 aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex)
{
    aclError rc = aclrt_batch_check(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_capture_check_unsafe("a synchronous batch copy")) != ACL_SUCCESS)
        return rc;
    const struct aclrt_backend *b = aclrt_rt.backend;
    for (size_t i = 0; i < numBatches; i++) {
        if (sizes[i] == 0)
            continue;
        aclrt_mem_settle_for(dsts[i], srcs[i], sizes[i]); /* as aclrtMemcpy */
        aclrtMemcpyKind kind = aclrt_mem_device_of(dsts[i], sizes[i]) != NULL ? ACL_MEMCPY_HOST_TO_DEVICE
                                                                              : ACL_MEMCPY_DEVICE_TO_HOST;
        if (b != NULL && b->mem_copy != NULL)
            rc = b->mem_copy(dsts[i], srcs[i], sizes[i], kind);
        else
            memmove(dsts[i], srcs[i], sizes[i]);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    return ACL_SUCCESS;
}

static aclError aclrt_batch_async(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                  aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs,
                                  size_t *failIndex, aclrtStream stream)
{
    aclError rc = aclrt_batch_check(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    bool pageable = false;
    for (size_t i = 0; i < numBatches; i++)
        pageable |= sizes[i] > 0 && (!aclrt_mem_is_ours(dsts[i], sizes[i]) || !aclrt_mem_is_ours(srcs[i], sizes[i]));
    size_t last = SIZE_MAX;
    for (size_t i = 0; i < numBatches; i++)
        if (sizes[i] > 0)
            last = i;
    for (size_t i = 0; i < numBatches && rc == ACL_SUCCESS; i++) {
        if (sizes[i] == 0)
            continue;
        struct aclrt_task t = {.kind = &aclrt_kind_memcpy, .u.copy = {dsts[i], srcs[i], sizes[i]}};
        rc = aclrt_submit_maybe_wait(s, &t, pageable && i == last); /* one wait, for the last: the stream's order */
    }
    return rc;
}

ACLRT_API aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                    aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs,
                                    size_t *failIndex)
{
    ACLRT_ENTER();
    if (failIndex == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "failIndex (output) is NULL");
    *failIndex = SIZE_MAX;
    return aclrt_batch_sync(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex);
}

ACLRT_API aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                      aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs)
{
    ACLRT_ENTER();
    size_t fail;
    return aclrt_batch_sync(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, &fail);
}

ACLRT_API aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                         size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                         size_t numAttrs, size_t *failIndex, aclrtStream stream)
{
    ACLRT_ENTER();
    if (failIndex == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "failIndex (output) is NULL");
    *failIndex = SIZE_MAX;
    return aclrt_batch_async(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex,
                             stream);
}

ACLRT_API aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                           size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                                           size_t numAttrs, aclrtStream stream)
{
    ACLRT_ENTER();
    size_t fail;
    return aclrt_batch_async(dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, &fail, stream);
}

/* ------------------------------------------------------------------------
 * Copy descriptors and copies at offsets
 * ------------------------------------------------------------------------ */

/* A copy descriptor, in the device memory the program gives. */
struct aclrt_memcpy_desc {
    uint64_t magic; /* ACLRT_MEMCPY_DESC_MAGIC: set by aclrtSetMemcpyDesc */
    uint64_t src, dst, count;
};
#define ACLRT_MEMCPY_DESC_MAGIC UINT64_C(0x61636C7264637079)

static aclError aclrt_inner_d2d_check(aclrtMemcpyKind kind)
{
    if (kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "copy kind %d: this call copies within a device only "
                          "(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)", (int)kind);
    return ACL_SUCCESS;
}

/* ACLRT_TASK_MEMCPY_INDIRECT: read the addresses (and, from a descriptor, the size), then copy. */
static int aclrt_memcpy_indirect_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    if (t->u32 == 1) {
        struct aclrt_memcpy_desc d;
        memcpy(&d, t->u.indirect.dst, sizeof d);
        if (d.magic != ACLRT_MEMCPY_DESC_MAGIC)
            return ACL_ERROR_RT_DEVICE_MEM_ERROR; /* not set by aclrtSetMemcpyDesc: garbage to a copy engine */
        /* The addresses are read now: both ranges must lie in device memory now, as a device would fault. */
        if (aclrt_mem_device_of((const void *)(uintptr_t)d.dst, (size_t)d.count) == NULL ||
            aclrt_mem_device_of((const void *)(uintptr_t)d.src, (size_t)d.count) == NULL)
            return ACL_ERROR_RT_DEVICE_MEM_ERROR;
        memmove((void *)(uintptr_t)d.dst, (const void *)(uintptr_t)d.src, (size_t)d.count);
        return ACL_SUCCESS;
    }
    char *dst = (char *)*(void *const *)t->u.indirect.dst;
    const char *src = (const char *)*(const void *const *)t->u.indirect.src;
    if (dst == NULL || src == NULL)
        return ACL_ERROR_RT_DEVICE_MEM_ERROR;
    dst += t->u.indirect.dst_offset;
    src += t->u.indirect.src_offset;
    /* As above: the ranges the pointers name now, offsets and count included, must be device memory. */
    if (aclrt_mem_device_of(dst, t->u.indirect.count) == NULL || aclrt_mem_device_of(src, t->u.indirect.count) == NULL)
        return ACL_ERROR_RT_DEVICE_MEM_ERROR;
    memmove(dst, src, t->u.indirect.count);
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_memcpy_indirect = {ACLRT_TASK_MEMCPY_INDIRECT, "indirect memcpy",
                                                                  aclrt_memcpy_indirect_run, NULL};

ACLRT_API aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize)
{
    ACLRT_ENTER();
    if (descSize == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "descSize (output) is NULL");
    aclError rc = aclrt_inner_d2d_check(kind);
    if (rc != ACL_SUCCESS)
        return rc;
    *descSize = sizeof(struct aclrt_memcpy_desc);
    return ACL_SUCCESS;
}

/* The descriptor's memory: device memory of the runtime that holds a whole descriptor. */
static aclError aclrt_desc_check(const void *desc)
{
    if (aclrt_mem_device_of(desc, sizeof(struct aclrt_memcpy_desc)) == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "desc %p is not %zu bytes of device memory (aclrtMalloc)", desc,
                          sizeof(struct aclrt_memcpy_desc));
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr, size_t count,
                                      void *config)
{
    ACLRT_ENTER();
    if (desc == NULL || srcAddr == NULL || dstAddr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                          desc == NULL ? "desc" : srcAddr == NULL ? "srcAddr" : "dstAddr");
    if (config != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "config is reserved and must be NULL");
    aclError rc = aclrt_inner_d2d_check(kind);
    if (rc != ACL_SUCCESS || (rc = aclrt_desc_check(desc)) != ACL_SUCCESS)
        return rc;
    struct aclrt_memcpy_desc d = {ACLRT_MEMCPY_DESC_MAGIC, (uint64_t)(uintptr_t)srcAddr, (uint64_t)(uintptr_t)dstAddr,
                                  (uint64_t)count};
    const struct aclrt_backend *b = aclrt_rt.backend;
    if (b != NULL && b->mem_copy != NULL)
        return b->mem_copy(desc, &d, sizeof d, ACL_MEMCPY_HOST_TO_DEVICE);
    memcpy(desc, &d, sizeof d);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream)
{
    ACLRT_ENTER();
    if (desc == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "desc is NULL");
    aclError rc = aclrt_inner_d2d_check(kind);
    if (rc != ACL_SUCCESS || (rc = aclrt_desc_check(desc)) != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_memcpy_indirect, .u32 = 1, .u.indirect.dst = desc};
    return aclrt_submit_maybe_wait(s, &t, false);
}

ACLRT_API aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset, const void **src,
                                              size_t count, size_t srcDataOffset, aclrtMemcpyKind kind,
                                              aclrtStream stream)
{
    ACLRT_ENTER();
    if (dst == NULL || src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    aclError rc = aclrt_inner_d2d_check(kind);
    if (rc != ACL_SUCCESS)
        return rc;
    if (count > destMax || dstDataOffset > destMax - count)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%zu bytes at offset %zu exceed destMax %zu", count, dstDataOffset,
                          destMax);
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    if (count == 0)
        return ACL_SUCCESS;
    struct aclrt_task t = {.kind = &aclrt_kind_memcpy_indirect,
                           .u.indirect = {(const void *)dst, (const void *)src, count, dstDataOffset, srcDataOffset}};
    return aclrt_submit_maybe_wait(s, &t, false);
}

#endif /* ACLRT_IMPL_MEMORY_MEMCPY_BATCH_H */
