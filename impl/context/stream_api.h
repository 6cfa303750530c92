/*
 * impl/context/stream_api.h - the stream calls of the API: resolving a stream
 * argument (NULL is the current context's default stream), create and
 * destroy, synchronize and query, ids, priorities, flags and attributes.
 *
 * ACL_STREAM_DEVICE_USE_ONLY: a stream the device itself drives. On a host
 * device the device's code is host code, so such a stream is created like
 * any other and runs what is submitted to it; as documented, synchronizing
 * it returns at once and querying it reports it complete (nothing on the
 * host waits for it), and it has no failure mode of its own
 * (ACL_ERROR_RT_FEATURE_NOT_SUPPORT, as in the runtime). Persistent and
 * CPU-schedule streams need models and AI CPU scheduling, which the host
 * backend has not: ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 */
#ifndef ACLRT_IMPL_CONTEXT_STREAM_API_H
#define ACLRT_IMPL_CONTEXT_STREAM_API_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/fp_status.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_capture.h"
#include "../stream/stream_life.h"
#include "../stream/stream_sync.h"
#include "context.h"

/*
 * Resolve a stream argument: NULL is the current context's default stream.
 * With `same_context`, the stream must belong to the caller's current
 * context (ACL_ERROR_RT_STREAM_CONTEXT), as the runtime requires for
 * submissions.
 */
ACLRT_INLINE aclError aclrt_stream_resolve(aclrtStream handle, bool same_context, struct aclrt_stream **out)
{
    if (ACLRT_LIKELY(handle != NULL && same_context)) {
        /*
         * The common case, with one handle lookup: a live stream of the
         * context the thread set current (its handle, as the stream keeps
         * it). A context's streams are torn down before its slot is freed,
         * so a live stream's context is that context still. Anything else
         * (no context set, a task's, another one, a stale handle) takes the
         * full path, for its answer or its error.
         */
        struct aclrt_stream *s = aclrt_stream_lookup(handle);
        if (ACLRT_LIKELY(s != NULL && s->ctx_handle == aclrt_tls.ctx_handle)) {
            *out = s;
            return ACL_SUCCESS;
        }
    }
    struct aclrt_context *ctx = NULL;
    *out = NULL;
    if (handle == NULL || same_context) {
        aclError rc = aclrt_current_context(&ctx);
        if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
            return rc;
        if (handle == NULL) {
            *out = ctx->default_stream;
            return ACL_SUCCESS;
        }
    }
    struct aclrt_stream *s = aclrt_stream_lookup(handle);
    if (ACLRT_UNLIKELY(s == NULL))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "stream %p is not a live stream (destroyed, stale or garbage)",
                          handle);
    if (ACLRT_UNLIKELY(same_context && s->ctx != ctx))
        return aclrt_fail(ACL_ERROR_RT_STREAM_CONTEXT,
                          "stream %p belongs to another context than the calling thread's current one", handle);
    *out = s;
    return ACL_SUCCESS;
}

/*
 * The stream a call submits to: resolved in the caller's current context,
 * whose stop-on-failure state must still accept work. For calls with an
 * idle-stream fast path that acts at the call instead of going through
 * aclrt_stream_submit (which checks the context itself).
 */
ACLRT_INLINE aclError aclrt_stream_resolve_for_submit(aclrtStream handle, struct aclrt_stream **out)
{
    aclError rc = aclrt_stream_resolve(handle, true, out);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    return aclrt_stream_check_context(*out);
}

/*
 * A capturing stream is not synchronized, queried or destroyed: its work is
 * recorded, not run (ACL_ERROR_RT_STREAM_CAPTURED; the capture goes on).
 */
static ACLRT_NOINLINE aclError aclrt_stream_refuse_capturing(const struct aclrt_stream *s, const char *what)
{
    return aclrt_fail(ACL_ERROR_RT_STREAM_CAPTURED,
                      "stream %d is capturing a model (aclmdlRICaptureBegin) and cannot be %s until "
                      "aclmdlRICaptureEnd",
                      (int)aclrt_slot_index(&s->hdr), what);
}

/*
 * The stream a call reads from (any context; NULL: the current context's
 * default stream), after the check of its output argument `out`, named
 * `what` (NULL: ACL_ERROR_INVALID_PARAM).
 */
ACLRT_INTERNAL aclError aclrt_stream_resolve_output(aclrtStream stream, const void *out, const char *what,
                                                    struct aclrt_stream **s)
{
    if (out == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", what);
    return aclrt_stream_resolve(stream, false, s);
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

static aclError aclrt_stream_create_api(aclrtStream *stream, uint32_t priority, uint32_t flags)
{
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(stream, "stream", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    flags &= ACLRT_STREAM_KNOWN_FLAGS; /* unknown bits are dropped, as the runtime does */
    if (flags & ACL_STREAM_CPU_SCHEDULE)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "stream flag ACL_STREAM_CPU_SCHEDULE (AI CPU scheduling) is not supported by the %s backend",
                          aclrt_rt.backend->name);
    struct aclrt_stream *s;
    return aclrt_stream_create_in(ctx, priority, flags, false, &s, stream);
}

ACLRT_API aclError aclrtCreateStream(aclrtStream *stream)
{
    ACLRT_ENTER();
    return aclrt_stream_create_api(stream, ACLRT_STREAM_PRIORITY_GREATEST, 0);
}

ACLRT_API aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    ACLRT_ENTER();
    return aclrt_stream_create_api(stream, priority, flag);
}

ACLRT_API aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_stream_create_api(stream, ACLRT_STREAM_PRIORITY_GREATEST, 0);
    return aclrt_stream_create_api(stream, handle->priority, (uint32_t)handle->flag);
}

ACLRT_API aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void)
{
    ACLRT_ENTER();
    aclrtStreamConfigHandle *h = (aclrtStreamConfigHandle *)calloc(1, sizeof *h);
    if (h == NULL)
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for a stream configuration");
    return h;
}

/*
 * An unsigned value of the caller's width: valueSize is sizeof(*attrValue),
 * as documented, so a size_t field may be given as a size_t or as the
 * uint32_t the other stream calls use for flags (false: another width).
 */
static bool aclrt_stream_config_unsigned(const void *attrValue, size_t valueSize, size_t *out)
{
    if (valueSize == sizeof(size_t)) {
        memcpy(out, attrValue, sizeof(size_t));
        return true;
    }
    if (valueSize == sizeof(uint32_t)) {
        uint32_t v;
        memcpy(&v, attrValue, sizeof v);
        *out = v;
        return true;
    }
    return false;
}

ACLRT_API aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                           const void *attrValue, size_t valueSize)
{
    ACLRT_ENTER();
    if (handle == NULL || attrValue == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "attrValue");
    size_t v;
    switch (attr) {
    case ACL_RT_STREAM_WORK_ADDR_PTR:
        if (valueSize != sizeof(void *))
            break;
        memcpy(&handle->workptr, attrValue, sizeof(void *));
        return ACL_SUCCESS;
    case ACL_RT_STREAM_WORK_SIZE:
    case ACL_RT_STREAM_FLAG:
        if (!aclrt_stream_config_unsigned(attrValue, valueSize, &v))
            break;
        if (attr == ACL_RT_STREAM_FLAG)
            handle->flag = v;
        else
            handle->workSize = v;
        return ACL_SUCCESS;
    case ACL_RT_STREAM_PRIORITY: {
        if (valueSize != sizeof(uint32_t))
            break;
        uint32_t p;
        memcpy(&p, attrValue, sizeof p);
        if (p > ACLRT_STREAM_PRIORITY_LEAST)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "priority %u is outside [0, 7]", p);
        handle->priority = p;
        return ACL_SUCCESS;
    }
    default: return aclrt_fail(ACL_ERROR_INVALID_PARAM, "unknown stream configuration attribute %d", (int)attr);
    }
    return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attribute %d does not take a value of %zu bytes (%s)", (int)attr,
                      valueSize,
                      attr == ACL_RT_STREAM_WORK_ADDR_PTR ? "a pointer"
                      : attr == ACL_RT_STREAM_PRIORITY    ? "a uint32_t"
                                                          : "a size_t or a uint32_t");
}

ACLRT_API aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    free(handle);
    return ACL_SUCCESS;
}

static aclError aclrt_stream_destroy_api(aclrtStream stream, enum aclrt_destroy_mode mode)
{
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (the default stream cannot be destroyed)");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (s->is_default)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "stream %p is a default stream; it is released by aclrtResetDevice or aclrtDestroyContext",
                          stream);
    if (aclrt_running_stream() == s)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot destroy the stream it runs on");
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s)))
        return aclrt_stream_refuse_capturing(s, "destroyed");
    aclrt_stream_destroy(s, mode);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyStream(aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_stream_destroy_api(stream, ACLRT_DESTROY_WAIT);
}

ACLRT_API aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_stream_destroy_api(stream, ACLRT_DESTROY_DRAIN);
}

/* aclrtSynchronizeStream(WithTimeout) on a resolved argument; timeout_ms -1: none. */
ACLRT_INLINE aclError aclrt_stream_synchronize_api(aclrtStream stream, int32_t timeout_ms)
{
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s)))
        return aclrt_stream_refuse_capturing(s, "synchronized");
    return aclrt_stream_synchronize(s, timeout_ms);
}

ACLRT_API aclError aclrtSynchronizeStream(aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_stream_synchronize_api(stream, -1);
}

ACLRT_API aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    ACLRT_ENTER();
    if (timeout == 0 || timeout < -1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 waits forever, > 0 is a limit)",
                          (int)timeout);
    return aclrt_stream_synchronize_api(stream, timeout);
}

ACLRT_API aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve_output(stream, status, "status", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_UNLIKELY(aclrt_stream_capturing(s)))
        return aclrt_stream_refuse_capturing(s, "queried");
    /* Streams nothing on the host waits for report complete, as their synchronize returns at once. */
    bool device_driven = (s->flags & (ACL_STREAM_PERSISTENT | ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_CPU_SCHEDULE)) != 0;
    bool idle = aclrt_stream_idle(s);
    if (ACLRT_UNLIKELY(!idle && !device_driven) && aclrt_seq_drive_step())
        idle = aclrt_stream_idle(s); /* one step of the device's work ran here (seq.h) */
    if (idle) /* everything submitted is done (a later submission counted too orders more, never less) */
        ACLRT_SAN(edge, NULL, s, aclrt_stream_submitted(s));
    *status = device_driven || idle ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve_output(stream, streamId, "streamId", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *streamId = (int32_t)aclrt_slot_index(&s->hdr);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve_output(stream, priority, "priority", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *priority = s->priority;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve_output(stream, flags, "flags", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *flags = s->flags;
    return ACL_SUCCESS;
}

static aclError aclrt_stream_set_failure_mode(struct aclrt_stream *s, uint64_t mode)
{
    if (s->flags & ACL_STREAM_DEVICE_USE_ONLY)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "a device-use-only stream (ACL_STREAM_DEVICE_USE_ONLY) has no failure mode of its own");
    if (mode != ACL_CONTINUE_ON_FAILURE && mode != ACL_STOP_ON_FAILURE)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "failure mode %llu is neither ACL_CONTINUE_ON_FAILURE nor "
                                                      "ACL_STOP_ON_FAILURE",
                          (unsigned long long)mode);
    atomic_store_explicit(&s->failure_mode, mode, memory_order_relaxed);
    /* One stop-on-failure stream makes the whole context stop on failure. */
    if (mode == ACL_STOP_ON_FAILURE)
        atomic_store_explicit(&s->ctx->stop_on_failure, true, memory_order_release);
    return ACL_SUCCESS;
}

/*
 * The overflow switch (aclrtSetStreamOverflowSwitch, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK):
 * 0 or 1 (the runtime's range check is [0, 2): ACL_ERROR_RT_PARAM_INVALID).
 * On it, host kernels of the stream run under the overflow check (overflow.h),
 * which needs the CPU's floating-point flags (fp_status.h).
 */
ACLRT_INTERNAL aclError aclrt_stream_set_overflow_switch(struct aclrt_stream *s, uint32_t flag)
{
    if (flag > 1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "overflow switch %u is neither 0 nor 1", flag);
    if (flag != 0 && !ACLRT_FP_STATUS)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "overflow detection needs the CPU's floating-point status flags, which aclrt cannot read "
                          "on this architecture");
    atomic_store_explicit(&s->overflow_switch, flag, memory_order_relaxed);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_stream_set_failure_mode(s, mode);
}

ACLRT_API aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                           aclrtStreamAttrValue *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE: return aclrt_stream_set_failure_mode(s, value->failureMode);
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: return aclrt_stream_set_overflow_switch(s, value->overflowSwitch);
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        atomic_store_explicit(&s->user_custom_tag, value->userCustomTag, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
        atomic_store_explicit(&s->cache_op_info, value->cacheOpInfoSwitch, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_PRIORITY:
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "a stream's priority is set at creation (aclrtCreateStreamWithConfig)");
    }
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown stream attribute %d", (int)stmAttrType);
}

ACLRT_API aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                           aclrtStreamAttrValue *value)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve_output(stream, value, "value", &s);
    if (rc != ACL_SUCCESS)
        return rc;
    memset(value, 0, sizeof *value);
    switch (stmAttrType) {
    case ACL_STREAM_ATTR_FAILURE_MODE:
        value->failureMode = atomic_load_explicit(&s->failure_mode, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
        value->overflowSwitch = atomic_load_explicit(&s->overflow_switch, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
        value->userCustomTag = atomic_load_explicit(&s->user_custom_tag, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_CACHE_OP_INFO:
        value->cacheOpInfoSwitch = atomic_load_explicit(&s->cache_op_info, memory_order_relaxed);
        return ACL_SUCCESS;
    case ACL_STREAM_ATTR_PRIORITY: value->streamPriority = s->priority; return ACL_SUCCESS;
    }
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown stream attribute %d", (int)stmAttrType);
}

ACLRT_API aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority)
{
    ACLRT_ENTER();
    if (leastPriority != NULL)
        *leastPriority = (int32_t)ACLRT_STREAM_PRIORITY_LEAST;
    if (greatestPriority != NULL)
        *greatestPriority = (int32_t)ACLRT_STREAM_PRIORITY_GREATEST;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetStreamAvailableNum(uint32_t *streamCount)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(streamCount, "streamCount", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    uint32_t used = atomic_load_explicit(&ctx->device->streams_in_use, memory_order_relaxed);
    *streamCount = used >= aclrt_rt.config.max_streams ? 0 : aclrt_rt.config.max_streams - used;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_CONTEXT_STREAM_API_H */
