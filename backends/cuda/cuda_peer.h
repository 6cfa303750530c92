/*
 * backends/cuda/cuda_peer.h - peer access between GPUs, and copies between
 * two GPUs' memory.
 *
 *   - aclrtDeviceCanAccessPeer: cuDeviceCanAccessPeer between the devices'
 *     GPUs. Two aclrt devices on one GPU (aclrt.devices above the GPU
 *     count) share its memory: they can.
 *   - aclrtDeviceEnablePeerAccess / DisablePeerAccess: the core keeps the
 *     host backend's rules and codes (impl/memory/peer.h: one direction,
 *     from the current device; enabling twice and disabling what is off
 *     succeed), and the driver follows: cuCtxEnablePeerAccess /
 *     cuCtxDisablePeerAccess from the current device's GPU's primary
 *     context to the peer's (retained here if the peer has not started),
 *     the driver's "already enabled" (704) and "not enabled" (705) taken
 *     for success. A GPU that cannot reach the other
 *     (CUDA_ERROR_PEER_ACCESS_UNSUPPORTED) fails the enable with
 *     ACL_ERROR_RT_FEATURE_NOT_SUPPORT, nothing recorded. Devices sharing
 *     a GPU share its context, so the driver's access of a pair of GPUs
 *     stays on while any pair of aclrt devices on them has it on; access
 *     that the core ends with its context (aclrtResetDevice,
 *     aclrtDestroyContext) stays on in the driver until the backend closes
 *     (the core's check, made first, refuses the copies).
 *   - Copies whose two ends are device memory, one of them not of the
 *     issuing GPU's context: cuMemcpyPeer / cuMemcpyPeerAsync with each
 *     end's context (the driver copies between contexts whatever the
 *     access; the core has checked the runner's access first, as on the
 *     host backend). Everything else is cuMemcpy / cuMemcpyAsync in the
 *     context at hand (with one end in host memory, unified addressing
 *     routes it).
 */
#ifndef ACLRT_BACKENDS_CUDA_CUDA_PEER_H
#define ACLRT_BACKENDS_CUDA_CUDA_PEER_H

#include "../../impl/core/base.h"
#include "../../impl/core/error.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/memory/memory.h"
#include "../../impl/memory/peer.h"
#include "cuda_device.h"
#include "cuda_driver.h"

/* The backend's peer_can: the GPUs' answer (one GPU: yes). */
ACLRT_INTERNAL aclError aclrt_cuda_peer_can(uint32_t dev, uint32_t peer, bool *can)
{
    uint32_t n = aclrt_cuda.gpu_count, g = dev % n, p = peer % n;
    if (g == p) {
        *can = true;
        return ACL_SUCCESS;
    }
    int c = 0;
    aclrt_CUresult r = aclrt_cu->cuDeviceCanAccessPeer(&c, aclrt_cuda.gpus[g].dev, aclrt_cuda.gpus[p].dev);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_fail(r, "cuDeviceCanAccessPeer");
    *can = c != 0;
    return ACL_SUCCESS;
}

/* Does a pair of aclrt devices other than (dev, peer), on the same two GPUs, still have access on? */
static bool aclrt_cuda_peer_still_on(const struct aclrt_device *dev, const struct aclrt_device *peer)
{
    uint32_t n = aclrt_cuda.gpu_count;
    for (uint32_t d = 0; d < aclrt_rt.device_count; d++)
        for (uint32_t q = 0; q < aclrt_rt.device_count; q++)
            if (d % n == dev->id % n && q % n == peer->id % n && (d != dev->id || q != peer->id) && d != q &&
                aclrt_peer_access_on(&aclrt_rt.devices[d], &aclrt_rt.devices[q]))
                return true;
    return false;
}

/* Serializes the driver's enables and disables with the look at the other pairs. */
static pthread_mutex_t aclrt_cuda_peer_lock = PTHREAD_MUTEX_INITIALIZER;

/* The backend's peer_set: the driver's access from dev's GPU to peer's, on or off (dev is current). */
ACLRT_INTERNAL aclError aclrt_cuda_peer_set(struct aclrt_device *dev, struct aclrt_device *peer, bool on)
{
    struct aclrt_cuda_device *cd = aclrt_cuda_device_of(dev);
    uint32_t p = peer->id % aclrt_cuda.gpu_count;
    if (p == cd->gpu_index)
        return ACL_SUCCESS; /* one GPU, one memory */
    aclrt_CUcontext pctx = NULL;
    aclrt_CUresult r = aclrt_cuda_gpu_ctx(p, &pctx);
    if (r == ACLRT_CUDA_SUCCESS)
        r = aclrt_cuda_enter(cd->ctx);
    if (r != ACLRT_CUDA_SUCCESS)
        return aclrt_cuda_fail(r, "retaining the peer GPU's primary context");
    pthread_mutex_lock(&aclrt_cuda_peer_lock);
    if (on) {
        r = aclrt_cu->cuCtxEnablePeerAccess(pctx, 0);
        if (r == ACLRT_CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
            r = ACLRT_CUDA_SUCCESS;
    } else if (!aclrt_cuda_peer_still_on(dev, peer)) {
        r = aclrt_cu->cuCtxDisablePeerAccess(pctx);
        if (r == ACLRT_CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)
            r = ACLRT_CUDA_SUCCESS;
    }
    pthread_mutex_unlock(&aclrt_cuda_peer_lock);
    if (r == ACLRT_CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "device %u's GPU cannot access device %u's GPU's memory (cuCtxEnablePeerAccess: "
                          "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED; aclrtDeviceCanAccessPeer says 0)",
                          dev->id, peer->id);
    return r == ACLRT_CUDA_SUCCESS ? ACL_SUCCESS
                                   : aclrt_cuda_fail(r, on ? "cuCtxEnablePeerAccess" : "cuCtxDisablePeerAccess");
}

/*
 * The context of the device memory [p, p+n) of ours (cuMemAlloc'd:
 * aclrtMalloc, the runtime's own), or NULL: host memory, host memory that
 * stands for device memory (mapped physical memory, imports, managed
 * memory), memory the runtime did not allocate.
 */
static aclrt_CUcontext aclrt_cuda_mem_ctx(const void *p, size_t n)
{
    struct aclrt_allocation a;
    if (!aclrt_mem_find(p, &a) || (a.kind != ACLRT_MEM_DEVICE && a.kind != ACLRT_MEM_RUNTIME) || a.device == NULL ||
        (uintptr_t)p - a.base + n > a.size)
        return NULL;
    struct aclrt_cuda_device *cd = aclrt_cuda_device_of(a.device);
    return cd->started ? cd->ctx : NULL;
}

/*
 * Is [dst, +n) <- [src, +n) a copy between device memory of which one end
 * is not of context `own`? Then *dc and *sc are the ends' contexts. One
 * GPU: never (no registry lookup on that path).
 */
static bool aclrt_cuda_copy_is_peer(aclrt_CUcontext own, const void *dst, const void *src, size_t n,
                                    aclrt_CUcontext *dc, aclrt_CUcontext *sc)
{
    if (ACLRT_LIKELY(aclrt_cuda.gpu_count < 2))
        return false;
    *dc = aclrt_cuda_mem_ctx(dst, n);
    *sc = *dc != NULL ? aclrt_cuda_mem_ctx(src, n) : NULL;
    return *dc != NULL && *sc != NULL && (*dc != own || *sc != own);
}

/* A copy on stream cu of context own (current): between two GPUs' memory, cuMemcpyPeerAsync. */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_copy_async(aclrt_CUcontext own, void *dst, const void *src, size_t n,
                                                    aclrt_CUstream cu)
{
    aclrt_CUcontext dc, sc;
    if (aclrt_cuda_copy_is_peer(own, dst, src, n, &dc, &sc))
        return aclrt_cu->cuMemcpyPeerAsync((aclrt_CUdeviceptr)(uintptr_t)dst, dc, (aclrt_CUdeviceptr)(uintptr_t)src, sc,
                                           n, cu);
    return aclrt_cu->cuMemcpyAsync((aclrt_CUdeviceptr)(uintptr_t)dst, (aclrt_CUdeviceptr)(uintptr_t)src, n, cu);
}

/* A synchronous copy in context own (current): between two GPUs' memory, cuMemcpyPeer. */
ACLRT_INTERNAL aclrt_CUresult aclrt_cuda_copy_sync(aclrt_CUcontext own, void *dst, const void *src, size_t n)
{
    aclrt_CUcontext dc, sc;
    if (aclrt_cuda_copy_is_peer(own, dst, src, n, &dc, &sc))
        return aclrt_cu->cuMemcpyPeer((aclrt_CUdeviceptr)(uintptr_t)dst, dc, (aclrt_CUdeviceptr)(uintptr_t)src, sc, n);
    return aclrt_cu->cuMemcpy((aclrt_CUdeviceptr)(uintptr_t)dst, (aclrt_CUdeviceptr)(uintptr_t)src, n);
}

#endif /* ACLRT_BACKENDS_CUDA_CUDA_PEER_H */
