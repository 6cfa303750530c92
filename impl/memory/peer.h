/*
 * impl/memory/peer.h - peer access between devices: aclrtDeviceCanAccessPeer,
 * aclrtDeviceEnablePeerAccess / DisablePeerAccess, aclrtDevicePeerAccessStatus,
 * aclrtMemP2PMap, and the rule copies between two devices' memory follow.
 *
 * Every device of the host backend can reach every other one (its devices
 * share one address space; a registered backend's memory is
 * host-addressable by contract), so "can access" is 1 for two distinct
 * devices; a backend with peer hooks (backend.h: peer_can, peer_set; the
 * cuda backend's GPUs) says for itself and sets its driver's access up as
 * the calls come. Access itself is enabled per direction, from the
 * calling thread's current device to a peer, as the runtime documents.
 *
 * State: one slot per (device, peer) pair holding the handle of the context
 * that was current when access was enabled, or NULL. Access is on while that
 * context lives: it ends with aclrtDeviceDisablePeerAccess, with the context
 * (aclrtResetDevice of its device, aclrtDestroyContext) and so with
 * aclFinalize. Handles carry a generation, so a context released and made
 * again reads as "off", never as someone else's access.
 */
#ifndef ACLRT_IMPL_MEMORY_PEER_H
#define ACLRT_IMPL_MEMORY_PEER_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../context/context.h"
#include "memory.h"

static _Atomic(void *) aclrt_peer_enabled_by[ACLRT_MAX_DEVICES][ACLRT_MAX_DEVICES];

/* Does `from` have access to `to`'s memory? A device always has access to its own. */
ACLRT_INTERNAL bool aclrt_peer_access_on(const struct aclrt_device *from, const struct aclrt_device *to)
{
    if (from == to)
        return true;
    /* Acquire: pairs with the release store of the enabling call; a handle read is then checked against its slot. */
    void *handle = atomic_load_explicit(&aclrt_peer_enabled_by[from->id][to->id], memory_order_acquire);
    struct aclrt_context *ctx = aclrt_context_lookup(handle);
    return ctx != NULL && ctx->device == from;
}

/*
 * A copy between memory of devices `a` and `b` (either may be NULL: not
 * device memory), run by device `runner`: the runner needs access to each of
 * them. ACL_SUCCESS, or ACL_ERROR_RT_PARAM_INVALID with a message.
 */
ACLRT_INTERNAL aclError aclrt_peer_copy_check(const struct aclrt_device *runner, const struct aclrt_device *a,
                                      const struct aclrt_device *b)
{
    if (a == NULL || b == NULL || a == b)
        return ACL_SUCCESS;
    const struct aclrt_device *ends[2] = {a, b};
    for (int i = 0; i < 2; i++)
        if (!aclrt_peer_access_on(runner, ends[i]))
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "a copy between memory of device %u and device %u runs on device %u, which has no "
                              "access to device %u: call aclrtDeviceEnablePeerAccess(%u, 0) with device %u current",
                              a->id, b->id, runner->id, ends[i]->id, ends[i]->id, runner->id);
    return ACL_SUCCESS;
}

static aclError aclrt_peer_same_device(int32_t deviceId, int32_t peerDeviceId)
{
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceId %d cannot be equal to peerDeviceId %d", (int)deviceId,
                      (int)peerDeviceId);
}

ACLRT_API aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    ACLRT_ENTER();
    if (deviceId == peerDeviceId)
        return aclrt_peer_same_device(deviceId, peerDeviceId);
    struct aclrt_device *dev, *peer;
    aclError rc = aclrt_device_check(peerDeviceId, &peer);
    if (rc == ACL_SUCCESS)
        rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (canAccessPeer == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "canAccessPeer (output) is NULL");
    bool can = true;
    const struct aclrt_backend *b = aclrt_rt.backend;
    if (b->peer_can != NULL && (rc = b->peer_can(dev->id, peer->id, &can)) != ACL_SUCCESS)
        return rc;
    *canAccessPeer = can ? 1 : 0;
    return ACL_SUCCESS;
}

/* The current context's device and the peer, checked as enable and disable do. */
static aclError aclrt_peer_resolve(int32_t peerDeviceId, struct aclrt_context **ctx, struct aclrt_device **peer)
{
    aclError rc = aclrt_current_context(ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((int32_t)(*ctx)->device->id == peerDeviceId)
        return aclrt_peer_same_device((int32_t)(*ctx)->device->id, peerDeviceId);
    return aclrt_device_check(peerDeviceId, peer);
}

ACLRT_API aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    ACLRT_ENTER();
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_FEATURE_UNSUPPORTED, "flags 0x%x is reserved and must be 0", flags);
    struct aclrt_context *ctx;
    struct aclrt_device *peer;
    aclError rc = aclrt_peer_resolve(peerDeviceId, &ctx, &peer);
    if (rc != ACL_SUCCESS)
        return rc;
    const struct aclrt_backend *b = aclrt_rt.backend;
    if (b->peer_set != NULL && (rc = b->peer_set(ctx->device, peer, true)) != ACL_SUCCESS)
        return rc;
    /* Release: pairs with the acquire in aclrt_peer_access_on (copies submitted by other threads). */
    atomic_store_explicit(&aclrt_peer_enabled_by[ctx->device->id][peer->id], aclrt_context_handle(ctx),
                          memory_order_release);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    struct aclrt_device *peer;
    aclError rc = aclrt_peer_resolve(peerDeviceId, &ctx, &peer);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Release: pairs with the acquire in aclrt_peer_access_on. */
    atomic_store_explicit(&aclrt_peer_enabled_by[ctx->device->id][peer->id], NULL, memory_order_release);
    const struct aclrt_backend *b = aclrt_rt.backend;
    return b->peer_set != NULL ? b->peer_set(ctx->device, peer, false) : ACL_SUCCESS;
}

ACLRT_API aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status)
{
    ACLRT_ENTER();
    if (status == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "status (output) is NULL");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    if (deviceId < 0 || (uint32_t)deviceId >= aclrt_rt.device_count || peerDeviceId < 0 ||
        (uint32_t)peerDeviceId >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "device ids %d and %d must both be in [0, %u)", (int)deviceId,
                          (int)peerDeviceId, aclrt_rt.device_count);
    *status = deviceId != peerDeviceId &&
              aclrt_peer_access_on(&aclrt_rt.devices[deviceId], &aclrt_rt.devices[peerDeviceId]);
    return ACL_SUCCESS;
}

/*
 * The runtime maps another device's memory into a device's page tables
 * ahead of the first access; aclrt's devices share one address space, so
 * the pages are there already: the call checks what the runtime checks.
 */
ACLRT_API aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags)
{
    ACLRT_ENTER();
    if (devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "devPtr is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags 0x%llx is reserved and must be 0", (unsigned long long)flags);
    struct aclrt_device *dst;
    aclError rc = aclrt_device_check(dstDevId, &dst);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_device *owner = aclrt_mem_device_of(devPtr, size);
    if (owner == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not inside one allocation of device memory",
                          devPtr, size);
    if (owner == dst)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "dstDevId %d is the memory's own device: nothing to map",
                          (int)dstDevId);
    if (!aclrt_peer_access_on(dst, owner))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "device %d has no access to device %u's memory: call aclrtDeviceEnablePeerAccess(%u, 0) "
                          "with device %d current first",
                          (int)dstDevId, owner->id, owner->id, (int)dstDevId);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MEMORY_PEER_H */
