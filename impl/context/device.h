/*
 * impl/context/device.h - the device calls: aclrtSetDevice and
 * aclrtResetDevice (references on a device and its default context,
 * context.h), which device a thread works on and how many there are, and
 * aclrtSynchronizeDevice.
 */
#ifndef ACLRT_IMPL_CONTEXT_DEVICE_H
#define ACLRT_IMPL_CONTEXT_DEVICE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/thread.h"
#include "../runtime/hooks.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../stream/stream.h"
#include "../stream/stream_life.h"
#include "../stream/stream_sync.h"
#include "context.h"

ACLRT_API aclError aclrtSetDevice(int32_t deviceId)
{
    ACLRT_ENTER();
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_SET_PRE);
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    rc = aclrt_device_set_locked(dev);
    void *handle = dev->default_ctx_handle;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc == ACL_SUCCESS) {
        aclrt_tls.ctx_handle = handle;
        aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_SET_POST);
    }
    return rc;
}

static aclError aclrt_device_reset(int32_t deviceId, bool force)
{
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_RESET_PRE);
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    if (dev->default_ctx == NULL || dev->set_count == 0) {
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return aclrt_fail(ACL_ERROR_RT_CONTEXT_NULL, "device %d is not set (never set, or already reset)",
                          (int)deviceId);
    }
    if ((force || dev->set_count == 1) && aclrt_running_stream() != NULL &&
        aclrt_running_stream()->ctx == dev->default_ctx) {
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot release the default context of device %d, "
                                                      "in which it runs (it would wait for itself)",
                          (int)deviceId);
    }
    if (force || --dev->set_count == 0) {
        aclrt_context_release_locked(dev->default_ctx);
        dev->set_count = 0;
        dev->reset_done = true;
    }
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_RESET_POST);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtResetDevice(int32_t deviceId)
{
    ACLRT_ENTER();
    return aclrt_device_reset(deviceId, false);
}

ACLRT_API aclError aclrtResetDeviceForce(int32_t deviceId)
{
    ACLRT_ENTER();
    return aclrt_device_reset(deviceId, true);
}

ACLRT_API aclError aclrtGetDevice(int32_t *deviceId)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(deviceId, "deviceId", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *deviceId = (int32_t)ctx->device->id;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetDeviceCount(uint32_t *count)
{
    ACLRT_ENTER();
    if (count == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "count (output) is NULL");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    *count = aclrt_rt.device_count;
    return ACL_SUCCESS;
}

/*
 * Wait for every stream of `dev`: the streams alive at the call (a list
 * taken under the streams lock, so the walk reads no stream another thread
 * is creating or destroying), each up to what had been submitted then, and
 * the streams destroyed without waiting whose work is not done, all against
 * one absolute deadline. aclrtSynchronizeDevice passes the current
 * context's device and reports (and clears) the failures of tasks;
 * snapshot.h drains each set device and leaves them for the program.
 */
ACLRT_INTERNAL aclError aclrt_device_synchronize_on(struct aclrt_device *dev, int32_t timeout_ms, bool report)
{
    aclError rc;
    uint64_t deadline = aclrt_deadline_after_ms(timeout_ms);
    struct aclrt_stream_ref buf[32], *refs;
    size_t n = aclrt_streams_snapshot(dev, NULL, buf, sizeof buf / sizeof buf[0], &refs);
    if (n == SIZE_MAX)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory listing the streams of device %u", dev->id);
    struct aclrt_stream *running = aclrt_running_stream();
    bool self = running != NULL && running->device == dev &&
                atomic_load_explicit(&running->draining, memory_order_relaxed);
    for (size_t i = 0; i < n && !self; i++)
        self = running == refs[i].s;
    if (self) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot synchronize the device it runs on");
        goto out;
    }
    aclError first = ACL_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        struct aclrt_stream_ref *r = &refs[i];
        struct aclrt_stream_life life = {r->s, r->life};
        rc = aclrt_stream_wait_until(&life, r->submitted, deadline, r->fast_sync, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
        if (rc != ACL_SUCCESS) {
            rc = aclrt_stream_wait_fail_on(r->s, dev->id, rc, "the device", timeout_ms);
            goto out;
        }
        /* The error state belongs to the life we saw; a stream destroyed meanwhile has none left to report. */
        /* Acquire (both): pairs with the release CASes of the failing task (exec.h, aclrt_stream_fail). */
        aclError err = atomic_load_explicit(&r->ctx->failure, memory_order_acquire);
        if (!report)
            continue;
        if (err == 0 && aclrt_slot_alive(&r->s->hdr, r->life) &&
            atomic_load_explicit(&r->s->error, memory_order_relaxed) != 0)
            err = atomic_exchange_explicit(&r->s->error, 0, memory_order_acq_rel);
        if (first == ACL_SUCCESS)
            first = err;
    }
    rc = aclrt_device_wait_drained(dev, deadline, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    if (rc != ACL_SUCCESS) {
        rc = aclrt_wait_timeout_fail(rc, "the device: the work of destroyed streams", timeout_ms, dev->id);
        goto out;
    }
    if (first == ACL_SUCCESS)
        ACLRT_SAN(edge_all, (int32_t)dev->id);
    rc = first != ACL_SUCCESS ? aclrt_fail(first, "a task on device %u failed", dev->id) : ACL_SUCCESS;
out:
    if (refs != buf)
        free(refs);
    return rc;
}

static aclError aclrt_device_synchronize(int32_t timeout_ms)
{
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_device_synchronize_on(ctx->device, timeout_ms, true);
}

ACLRT_API aclError aclrtSynchronizeDevice(void)
{
    ACLRT_ENTER();
    return aclrt_device_synchronize(-1);
}

ACLRT_API aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    ACLRT_ENTER();
    if (timeout == 0 || timeout < -1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 waits forever, > 0 is a limit)",
                          (int)timeout);
    return aclrt_device_synchronize(timeout);
}

ACLRT_API aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    ACLRT_ENTER();
    if (runMode == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "runMode (output) is NULL");
    *runMode = ACL_HOST; /* the program runs on the host CPU */
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_CONTEXT_DEVICE_H */
