/*
 * impl/memory/memcpy2d.h - two-dimensional copies and 32-bit memsets, synchronous
 * and as one task in stream order.
 *
 * A 2-D copy moves `height` rows of `width` bytes; the rows are `spitch`
 * bytes apart in the source and `dpitch` bytes apart in the destination.
 * aclrtMemsetD32 writes N copies of a 32-bit value. Pointers, sizes and
 * the pinned / pageable rule are those of memcpy.h. A backend with memory
 * of its own overrides the task kinds; its synchronous copy hook moves the
 * rows of a synchronous 2-D copy, and a synchronous 32-bit memset of its
 * device memory is a buffer of the values, copied in (as CANN does it).
 */
#ifndef ACLRT_IMPL_MEMORY_MEMCPY2D_H
#define ACLRT_IMPL_MEMORY_MEMCPY2D_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/sanitize_hook.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../context/stream_api.h"
#include "memcpy.h"
#include "memory.h"

/* The runtime's limits on a 2-D copy (CANN's documentation of aclrtMemcpy2dAsync). */
#define ACLRT_MEMCPY2D_MAX_WIDTH ((size_t)5000000)
#define ACLRT_MEMCPY2D_MAX_HEIGHT ((size_t)5 * 1024 * 1024)

/* The bytes a 2-D copy spans at one end: (height - 1) rows of `pitch`, then one of `width`. */
static size_t aclrt_copy2d_extent(size_t pitch, size_t width, size_t height)
{
    return height == 0 ? 0 : (height - 1) * pitch + width;
}

/* Checks of a 2-D copy; `async` also takes ACL_MEMCPY_DEVICE_TO_DEVICE. */
static aclError aclrt_copy2d_check(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                   size_t height, aclrtMemcpyKind kind, bool async)
{
    if (dst == NULL || src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    if (kind != ACL_MEMCPY_HOST_TO_DEVICE && kind != ACL_MEMCPY_DEVICE_TO_HOST &&
        (!async || kind != ACL_MEMCPY_DEVICE_TO_DEVICE))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "copy kind %d is not one a 2-D copy takes (%s)", (int)kind,
                          async ? "ACL_MEMCPY_HOST_TO_DEVICE, _DEVICE_TO_HOST or _DEVICE_TO_DEVICE"
                                : "ACL_MEMCPY_HOST_TO_DEVICE or _DEVICE_TO_HOST");
    if (width > dpitch || width > spitch)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "width %zu is larger than the %s pitch %zu", width,
                          width > dpitch ? "destination" : "source", width > dpitch ? dpitch : spitch);
    if (width > ACLRT_MEMCPY2D_MAX_WIDTH || height > ACLRT_MEMCPY2D_MAX_HEIGHT)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "a 2-D copy of %zu x %zu bytes is larger than the limits (width %zu, "
                          "height %zu)", width, height, ACLRT_MEMCPY2D_MAX_WIDTH, ACLRT_MEMCPY2D_MAX_HEIGHT);
    if (height > 1 && (dpitch > (SIZE_MAX - width) / (height - 1) || spitch > (SIZE_MAX - width) / (height - 1)))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%zu rows %zu bytes apart span more than the address space", height,
                          dpitch > spitch ? dpitch : spitch);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                 size_t height, aclrtMemcpyKind kind)
{
    ACLRT_ENTER();
    aclError rc = aclrt_copy2d_check(dst, dpitch, src, spitch, width, height, kind, false);
    if (rc != ACL_SUCCESS || width == 0 || height == 0)
        return rc;
    if ((rc = aclrt_capture_check_unsafe("a synchronous 2-D copy")) != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_copy_peer_check(NULL, dst, src, width)) != ACL_SUCCESS)
        return rc;
    ACLRT_SAN(access, src, (height - 1) * spitch + width, ACLRT_SAN_READ);
    ACLRT_SAN(access, dst, (height - 1) * dpitch + width, ACLRT_SAN_WRITE);
    aclrt_mem_settle_for(dst, src, width); /* as aclrtMemcpy: after the device's runnable work */
    const struct aclrt_backend *b = aclrt_rt.backend; /* NULL before the runtime first starts */
    for (size_t r = 0; r < height; r++) {
        char *d = (char *)dst + r * dpitch;
        const char *sr = (const char *)src + r * spitch;
        if (b != NULL && b->mem_copy != NULL) {
            if ((rc = b->mem_copy(d, sr, width, kind)) != ACL_SUCCESS)
                return rc;
        } else {
            memmove(d, sr, width);
        }
    }
    return ACL_SUCCESS;
}

/* ACLRT_TASK_MEMCPY2D / _MEMSET32: on host-addressable memory (a backend with device memory overrides them). */
static int aclrt_memcpy2d_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    for (size_t r = 0; r < t->u.copy2d.height; r++)
        memmove((char *)t->u.copy2d.dst + r * t->u.copy2d.dpitch,
                (const char *)t->u.copy2d.src + r * t->u.copy2d.spitch, t->u.copy2d.width);
    return ACL_SUCCESS;
}

/* Fill `bytes` (a multiple of 4) at p with value, whatever p's alignment. */
static void aclrt_fill32(void *p, uint32_t value, size_t bytes)
{
    unsigned char *d = (unsigned char *)p;
    for (size_t i = 0; i < bytes; i += 4)
        memcpy(d + i, &value, 4);
}

static int aclrt_memset32_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    aclrt_fill32(t->u.fill.dst, t->u32, t->u.fill.count);
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_memcpy2d = {ACLRT_TASK_MEMCPY2D, "2-D memcpy", aclrt_memcpy2d_run,
                                                           NULL};
static const struct aclrt_task_kind aclrt_kind_memset32 = {ACLRT_TASK_MEMSET32, "32-bit memset",
                                                           aclrt_memset32_run, NULL};

ACLRT_API aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                      size_t height, aclrtMemcpyKind kind, aclrtStream stream)
{
    ACLRT_ENTER();
    aclError rc = aclrt_copy2d_check(dst, dpitch, src, spitch, width, height, kind, true);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    if (width == 0 || height == 0)
        return ACL_SUCCESS;
    if ((rc = aclrt_copy_peer_check(s->ctx->device, dst, src, width)) != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_memcpy2d,
                           .u.copy2d = {dst, src, dpitch, spitch, (uint32_t)width, (uint32_t)height}};
    bool pinned = aclrt_mem_is_ours(dst, aclrt_copy2d_extent(dpitch, width, height)) &&
                  aclrt_mem_is_ours(src, aclrt_copy2d_extent(spitch, width, height));
    return aclrt_submit_maybe_wait(s, &t, !pinned);
}

/* Checks of a 32-bit memset: the memory is the runtime's (aclrtMalloc, aclrtMallocHost), 4N bytes fit. */
static aclError aclrt_memset32_check(void *ptr, size_t memSize, size_t n)
{
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (n > memSize / 4)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%zu 32-bit values do not fit in memSize %zu bytes", n, memSize);
    if (n > 0 && !aclrt_mem_is_ours(ptr, n * 4))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%p (%zu bytes) is not memory of aclrtMalloc or aclrtMallocHost", ptr, n * 4);
    return ACL_SUCCESS;
}

/* Fill now: host-addressable memory directly; a backend's device memory through a buffer of the values. */
static aclError aclrt_memset32_now(void *ptr, uint32_t value, size_t bytes)
{
    const struct aclrt_backend *b = aclrt_rt.backend;
    if (b == NULL || b->mem_copy == NULL || aclrt_mem_device_of(ptr, bytes) == NULL) {
        aclrt_fill32(ptr, value, bytes);
        return ACL_SUCCESS;
    }
    void *buf = malloc(bytes);
    if (buf == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for %zu bytes of values", bytes);
    aclrt_fill32(buf, value, bytes);
    aclError rc = b->mem_copy(ptr, buf, bytes, ACL_MEMCPY_HOST_TO_DEVICE);
    free(buf);
    return rc;
}

ACLRT_API aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N)
{
    ACLRT_ENTER();
    aclError rc = aclrt_memset32_check(ptr, memSize, N);
    if (rc != ACL_SUCCESS || N == 0)
        return rc;
    if ((rc = aclrt_capture_check_unsafe("a synchronous memset")) != ACL_SUCCESS)
        return rc;
    ACLRT_SAN(access, ptr, N * 4, ACLRT_SAN_WRITE);
    return aclrt_memset32_now(ptr, value, N * 4); /* documented: no device or stream synchronization */
}

ACLRT_API aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N, aclrtStream stream)
{
    ACLRT_ENTER();
    aclError rc = aclrt_memset32_check(ptr, memSize, N);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *s;
    if ((rc = aclrt_stream_resolve(stream, true, &s)) != ACL_SUCCESS)
        return rc;
    if (N == 0)
        return ACL_SUCCESS;
    if (aclrt_mem_device_of(ptr, N * 4) == NULL) /* host memory: filled now, not on the stream (documented) */
        return aclrt_memset32_now(ptr, value, N * 4);
    struct aclrt_task t = {.kind = &aclrt_kind_memset32, .u32 = value, .u.fill.dst = ptr, .u.fill.count = N * 4};
    return aclrt_submit_maybe_wait(s, &t, false);
}

ACLRT_API aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
                                                 aclrtMemcpyKind kind, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_memcpy_async(dst, destMax, src, count, kind, stream); /* the same call, deprecated */
}

#endif /* ACLRT_IMPL_MEMORY_MEMCPY2D_H */
