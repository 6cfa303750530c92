/*
 * impl/kernel/overflow.h - floating-point overflow detection: the device's
 * saturation mode, the streams' overflow switch, the overflow status.
 *
 *   - Mode: host kernels compute with the CPU's IEEE 754 arithmetic, where
 *     an overflow gives Inf and an invalid operation NaN: the device's
 *     default mode, ACL_RT_OVERFLOW_MODE_INFNAN. In
 *     ACL_RT_OVERFLOW_MODE_SATURATION the blocks of host kernels run with
 *     the CPU rounding toward zero (fp_status.h), where an overflow gives
 *     the largest finite value of its sign: the saturated result (a
 *     division by zero or an invalid operation still gives Inf or NaN).
 *     The mode is the current device's (struct aclrt_device) and, as the
 *     documentation says, a stream takes the one its device had when the
 *     stream was made (stream_life.h). Anything but the two modes:
 *     ACL_ERROR_RT_PARAM_INVALID; saturation where the CPU's control bits
 *     cannot be set (ACLRT_FP_STATUS 0): ACL_ERROR_RT_FEATURE_NOT_SUPPORT.
 *   - Switch: with a stream's switch on (stream_api.h), each block of a host
 *     kernel launched on it runs with the Inf/NaN exception flags of its CPU
 *     watched (fp_status.h); one raised sets the status. Blocks run on
 *     several threads, so each watches its own.
 *   - Status: one word for the process (the runtime's status is per process
 *     on the devices it documents that for), sticky until a reset.
 *     aclrtGetOverflowStatus and aclrtResetOverflowStatus are tasks of the
 *     stream they are given: they read, or clear, the status when the stream
 *     reaches them. The status copy is 64 bytes (the size the runtime
 *     requires): a uint32_t, 1 after an overflow and 0 otherwise, then
 *     zeros. The runtime's other names for the same status
 *     (aclrtGetFloatOverflowStatus, aclrtResetFloatOverflowStatus,
 *     aclrtNpuGetFloatOverFlowStatus, aclrtNpuClearFloatOverFlowStatus) are
 *     the same tasks; a NULL stream is the current context's default
 *     stream.
 */
#ifndef ACLRT_IMPL_KERNEL_OVERFLOW_H
#define ACLRT_IMPL_KERNEL_OVERFLOW_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/fp_status.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "../memory/memory.h"

#define ACLRT_OVERFLOW_STATUS_BYTES 64u

/*
 * 1 once a watched host kernel raised an Inf/NaN flag, until a reset task
 * runs. Relaxed throughout: a status task sees a kernel's overflow when the
 * kernel happens before it (stream order, an event, a synchronize), and that
 * ordering is what the program arranges and what makes the read defined.
 */
static _Atomic uint32_t aclrt_overflow_status;

/* A host kernel whose blocks run under the watch or saturated: the kernel's own fn and args, and how. */
struct aclrt_overflow_kernel {
    aclrtxHostKernel fn;
    void *args;
    bool watched;  /* the stream's overflow switch is on: a raised flag sets the status */
    bool saturate; /* the stream was made in saturation mode */
};

/* One block of a watched or saturated kernel (the host kernel task's fn then). */
ACLRT_INTERNAL aclError aclrt_overflow_watched_block(uint32_t block, uint32_t blocks, void *p)
{
    const struct aclrt_overflow_kernel *k = (const struct aclrt_overflow_kernel *)p;
    uint32_t raised;
    aclError rc = aclrt_fp_watch(k->fn, block, blocks, k->args, k->saturate, &raised);
    if (raised != 0 && k->watched)
        atomic_store_explicit(&aclrt_overflow_status, 1, memory_order_relaxed);
    return rc;
}

/* Does s watch its host kernels for overflows? */
ACLRT_INLINE bool aclrt_overflow_watched(const struct aclrt_stream *s)
{
    return atomic_load_explicit(&s->overflow_switch, memory_order_relaxed) != 0;
}

/* Do s's host kernels run saturated (made in saturation mode)? */
ACLRT_INLINE bool aclrt_overflow_saturated(const struct aclrt_stream *s)
{
    return s->saturation != 0;
}

/* ACLRT_TASK_OVERFLOW_STATUS: the status into the caller's 64 bytes (u.fill.dst). */
static int aclrt_overflow_status_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    uint32_t status = atomic_load_explicit(&aclrt_overflow_status, memory_order_relaxed);
    unsigned char out[ACLRT_OVERFLOW_STATUS_BYTES] = {0};
    memcpy(out, &status, sizeof status);
    memcpy(t->u.fill.dst, out, sizeof out);
    return ACL_SUCCESS;
}

/* ACLRT_TASK_OVERFLOW_RESET: clear the status. */
static int aclrt_overflow_reset_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)t, (void)blk;
    atomic_store_explicit(&aclrt_overflow_status, 0, memory_order_relaxed);
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_overflow_status = {ACLRT_TASK_OVERFLOW_STATUS, "overflow status",
                                                                  aclrt_overflow_status_run, NULL};
static const struct aclrt_task_kind aclrt_kind_overflow_reset = {ACLRT_TASK_OVERFLOW_RESET, "overflow reset",
                                                                 aclrt_overflow_reset_run, NULL};

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode)
{
    ACLRT_ENTER();
    if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "floating-point overflow mode %d is outside [0, 2)", (int)mode);
    if (mode == ACL_RT_OVERFLOW_MODE_SATURATION && !ACLRT_FP_STATUS)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "saturation needs the CPU's rounding control, which aclrt cannot set on this architecture");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    atomic_store_explicit(&ctx->device->saturation, mode == ACL_RT_OVERFLOW_MODE_SATURATION, memory_order_relaxed);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode)
{
    ACLRT_ENTER();
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context_output(mode, "mode", &ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *mode = atomic_load_explicit(&ctx->device->saturation, memory_order_relaxed) ? ACL_RT_OVERFLOW_MODE_SATURATION
                                                                                 : ACL_RT_OVERFLOW_MODE_INFNAN;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag)
{
    ACLRT_ENTER();
    if (flag > 1)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flag %u is neither 0 nor 1", flag);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_stream_set_overflow_switch(s, flag);
}

ACLRT_API aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t *flag)
{
    ACLRT_ENTER();
    if (flag == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flag (output) is NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    *flag = aclrt_overflow_watched(s) ? 1u : 0u;
    return ACL_SUCCESS;
}

/* Queue the status copy into outputAddr (64 bytes of device or pinned host memory). */
static aclError aclrt_overflow_get(void *outputAddr, uint64_t outputSize, aclrtStream stream)
{
    if (outputAddr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "outputAddr is NULL");
    if (outputSize != ACLRT_OVERFLOW_STATUS_BYTES)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "outputSize %llu is not %u: the status is %u bytes",
                          (unsigned long long)outputSize, ACLRT_OVERFLOW_STATUS_BYTES, ACLRT_OVERFLOW_STATUS_BYTES);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!aclrt_mem_is_ours(outputAddr, ACLRT_OVERFLOW_STATUS_BYTES))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "outputAddr %p is not %u bytes of memory from aclrtMalloc (or aclrtMallocHost)", outputAddr,
                          ACLRT_OVERFLOW_STATUS_BYTES);
    struct aclrt_task t = {.kind = &aclrt_kind_overflow_status,
                           .u.fill.dst = outputAddr,
                           .u.fill.count = ACLRT_OVERFLOW_STATUS_BYTES};
    return aclrt_stream_submit(s, &t, NULL);
}

/* Queue the status's reset. */
static aclError aclrt_overflow_reset(aclrtStream stream)
{
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_overflow_reset};
    return aclrt_stream_submit(s, &t, NULL);
}

ACLRT_API aclError aclrtGetOverflowStatus(void *outputAddr, size_t outputSize, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_overflow_get(outputAddr, outputSize, stream);
}

ACLRT_API aclError aclrtResetOverflowStatus(aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_overflow_reset(stream);
}

ACLRT_API aclError aclrtGetFloatOverflowStatus(void *outputAddr, uint64_t outputSize, aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_overflow_get(outputAddr, outputSize, stream);
}

ACLRT_API aclError aclrtResetFloatOverflowStatus(aclrtStream stream)
{
    ACLRT_ENTER();
    return aclrt_overflow_reset(stream);
}

/*
 * checkMode: the runtime passes it to the device's status task, which it
 * does not check [src]; the host has one status for every mode.
 */
ACLRT_API aclError aclrtNpuGetFloatOverFlowStatus(void *outputAddr, uint64_t outputSize, uint32_t checkMode,
                                                 aclrtStream stream)
{
    ACLRT_ENTER();
    (void)checkMode;
    return aclrt_overflow_get(outputAddr, outputSize, stream);
}

ACLRT_API aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream)
{
    ACLRT_ENTER();
    (void)checkMode;
    return aclrt_overflow_reset(stream);
}

#endif /* ACLRT_IMPL_KERNEL_OVERFLOW_H */
