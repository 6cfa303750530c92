/*
 * impl/context/context.h - contexts: a device's default context and explicit
 * ones, their creation and release, and a thread's current context.
 *
 *   - aclrtSetDevice (device.h) counts references per device. The first one
 *     starts the device (its executors) and creates its default context,
 *     shared by every thread that sets the device; each call makes that
 *     context the thread's current one.
 *   - aclrtResetDevice drops one reference; at zero it releases the default
 *     context: tears down every stream created in it (waits for the work
 *     that can finish, discards what is parked for good: teardown.h).
 *     After that, resetting again fails until the device is set again.
 *     aclrtResetDeviceForce releases at once, whatever the count.
 *   - aclrtCreateContext makes an explicit context (with its own default
 *     stream) and makes it current; aclrtDestroyContext releases it.
 *   - A thread's current context is a handle checked at every use, so a
 *     context released by another thread reads as "no context"
 *     (ACL_ERROR_RT_CONTEXT_NULL), never as a dangling pointer.
 *   - With `defaultDevice.default_device` configured, a thread that never
 *     set a device uses that device's default context.
 *   - In a forked child whose inherited runtime had started a device
 *     (runtime_start.h), everything that needs a device or a context fails
 *     with ACL_ERROR_RT_DEV_SETUP_ERROR until aclFinalize.
 */
#ifndef ACLRT_IMPL_CONTEXT_CONTEXT_H
#define ACLRT_IMPL_CONTEXT_CONTEXT_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/progress.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../stream/stream.h"
#include "../stream/stream_life.h"
#include "teardown.h"

ACLRT_INLINE void *aclrt_context_handle(const struct aclrt_context *ctx)
{
    return aclrt_slot_handle(&aclrt_contexts, &ctx->hdr);
}

/* Valid device id, or ACL_ERROR_RT_INVALID_DEVICEID. Starts the runtime. */
ACLRT_INTERNAL aclError aclrt_device_check(int32_t id, struct aclrt_device **out)
{
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    if (id < 0 || (uint32_t)id >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %u)", (int)id,
                          aclrt_rt.device_count);
    *out = &aclrt_rt.devices[id];
    return ACL_SUCCESS;
}

static aclError aclrt_device_start_locked(struct aclrt_device *dev)
{
    if (dev->started)
        return ACL_SUCCESS;
    aclError rc = aclrt_rt.backend->device_start(dev);
    if (rc == ACL_SUCCESS) {
        dev->started = true;
        aclrt_progress_open(dev);
    }
    return rc;
}

/* Starts dev if nothing did yet (HCCL's communicators live on devices the thread may not have set). */
ACLRT_INTERNAL aclError aclrt_device_start(struct aclrt_device *dev)
{
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    aclError rc = aclrt_device_start_locked(dev);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return rc;
}

static aclError aclrt_context_create_locked(struct aclrt_device *dev, bool is_default, struct aclrt_context **out,
                                            void **handle)
{
    aclError rc = aclrt_device_start_locked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_context *ctx = (struct aclrt_context *)aclrt_table_alloc(&aclrt_contexts);
    if (ctx == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a context");
    ctx->device = dev;
    ctx->is_default = is_default;
    atomic_store_explicit(&ctx->stop_on_failure, false, memory_order_relaxed);
    atomic_store_explicit(&ctx->failure, 0, memory_order_relaxed);
    atomic_store_explicit(&ctx->sys_param_set, 0, memory_order_relaxed);
    rc = aclrt_stream_create_in(ctx, ACLRT_STREAM_PRIORITY_GREATEST, 0, true, &ctx->default_stream,
                                &ctx->default_stream_handle);
    if (rc != ACL_SUCCESS) {
        aclrt_table_free(&aclrt_contexts, &ctx->hdr);
        return rc;
    }
    /*
     * The handle the publish gives (a slot's handle names its generation
     * halved, dead or alive). Before the publish (release), so that whoever
     * finds the context finds the default stream's copy too.
     */
    ctx->default_stream->ctx_handle = aclrt_slot_handle(&aclrt_contexts, &ctx->hdr);
    *handle = aclrt_table_publish(&aclrt_contexts, &ctx->hdr);
    *out = ctx;
    return ACL_SUCCESS;
}

/* Tear down every stream of the context (teardown.h), then the context itself. */
ACLRT_INTERNAL void aclrt_context_release_locked(struct aclrt_context *ctx)
{
    aclrt_table_retire(&ctx->hdr);
    struct aclrt_stream_ref buf[32], *set;
    size_t n = aclrt_streams_snapshot(NULL, ctx, buf, sizeof buf / sizeof buf[0], &set);
    if (n != SIZE_MAX) {
        aclrt_teardown_streams(set, n);
        if (set != buf)
            free(set);
    } else { /* no memory for the whole list: a few streams at a time */
        while ((n = aclrt_streams_snapshot(NULL, ctx, buf, sizeof buf / sizeof buf[0], NULL)) > 0)
            aclrt_teardown_streams(buf, n);
    }
    if (ctx->is_default && ctx->device->default_ctx == ctx) {
        ctx->device->default_ctx = NULL;
        ctx->device->default_ctx_handle = NULL;
    }
    aclrt_table_free(&aclrt_contexts, &ctx->hdr);
}

/* One more aclrtSetDevice reference (creating the default context if needed). */
ACLRT_INTERNAL aclError aclrt_device_set_locked(struct aclrt_device *dev)
{
    if (dev->default_ctx == NULL) {
        aclError rc = aclrt_context_create_locked(dev, true, &dev->default_ctx, &dev->default_ctx_handle);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    dev->set_count++;
    dev->reset_done = false;
    return ACL_SUCCESS;
}

static aclError aclrt_current_context_slow(struct aclrt_context **out)
{
    /* A forked child forgot the forking thread's context (runtime_start.h): every thread comes here. */
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    /*
     * A task (host function, host kernel) works in its stream's context,
     * which outlives the task (destroying a context waits for its streams),
     * unless it sets one itself (aclrt_task_scope_enter, thread.h).
     */
    if (aclrt_tls.running != NULL && aclrt_tls.ctx_handle == NULL) {
        *out = aclrt_tls.running->ctx;
        return ACL_SUCCESS;
    }
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    int32_t id = aclrt_rt.config.default_device;
    if (id < 0 || (uint32_t)id >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_CONTEXT_NULL,
                          "the calling thread has no current context: call aclrtSetDevice or aclrtCreateContext first");
    struct aclrt_device *dev = &aclrt_rt.devices[id];
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    if (dev->default_ctx == NULL)
        rc = aclrt_device_set_locked(dev); /* the configured default device, set implicitly once */
    void *handle = dev->default_ctx_handle;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_context *ctx = aclrt_context_lookup(handle);
    if (ctx == NULL)
        return aclrt_fail(ACL_ERROR_RT_CONTEXT_NULL, "the default device's context was just released");
    aclrt_tls.ctx_handle = handle;
    *out = ctx;
    return ACL_SUCCESS;
}

/*
 * The thread's current context, or ACL_ERROR_RT_CONTEXT_NULL. Fast path: the
 * stored handle is still alive. The slow path applies the configured
 * default device, if any.
 */
ACLRT_INLINE aclError aclrt_current_context(struct aclrt_context **out)
{
    struct aclrt_context *ctx = aclrt_context_lookup(aclrt_tls.ctx_handle);
    if (ACLRT_LIKELY(ctx != NULL)) {
        *out = ctx;
        return ACL_SUCCESS;
    }
    return aclrt_current_context_slow(out);
}

/*
 * The current context of a call that writes an output argument `out`, named
 * `what`: the output is checked first (NULL: ACL_ERROR_INVALID_PARAM).
 */
ACLRT_INTERNAL aclError aclrt_current_context_output(const void *out, const char *what, struct aclrt_context **ctx)
{
    if (out == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", what);
    return aclrt_current_context(ctx);
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    ACLRT_ENTER();
    if (context == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "context (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_context *ctx;
    void *handle;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    rc = aclrt_context_create_locked(dev, false, &ctx, &handle);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_tls.ctx_handle = handle;
    *context = handle;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyContext(aclrtContext context)
{
    ACLRT_ENTER();
    if (context == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    struct aclrt_context *ctx = aclrt_context_lookup(context);
    aclError rc = ACL_SUCCESS;
    if (aclrt_runtime_orphaned())
        rc = aclrt_fail_orphaned();
    else if (ctx == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "context %p is not a live context", context);
    else if (ctx->is_default)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "context %p is a device's default context; aclrtResetDevice releases it", context);
    else if (aclrt_running_stream() != NULL && aclrt_running_stream()->ctx == ctx)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot destroy the context it runs in");
    else
        aclrt_context_release_locked(ctx);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc == ACL_SUCCESS && aclrt_tls.ctx_handle == context)
        aclrt_tls.ctx_handle = NULL;
    return rc;
}

ACLRT_API aclError aclrtSetCurrentContext(aclrtContext context)
{
    ACLRT_ENTER();
    if (context == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    if (aclrt_context_lookup(context) == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "context %p is not a live context", context);
    aclrt_tls.ctx_handle = context;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetCurrentContext(aclrtContext *context)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(context, "context", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *context = aclrt_context_handle(ctx);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(stream, "stream", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *stream = ctx->default_stream_handle;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_CONTEXT_CONTEXT_H */
