/*
 * impl/kernel/op_timeout.h - how long a kernel may run (aclrtSetOpExecuteTimeOut,
 * ...WithMs, ...V2, aclrtGetOpExecuteTimeout, aclrtGetOpTimeOutInterval).
 *
 *   A kernel that runs longer than its limit fails its task with
 *   ACL_ERROR_RT_AICORE_TIMEOUT, as a device's watchdog fails it; on the CPU
 *   it is judged when it returns (a function cannot be stopped midway,
 *   kernel_launch.h). A launch's own timeout attribute wins over the
 *   process's, which is the last one set.
 *   The step (aclrtGetOpTimeOutInterval) is 1 ms, the resolution at which
 *   aclrt measures a kernel: a limit is rounded up to whole milliseconds
 *   (V2's actualTimeout says what holds). Unlike a device's 254 steps,
 *   any multiple holds, up to 24.8 days (what a task record keeps).
 *   0 asks for the longest limit; with a step under 100 ms, as the
 *   runtime's documentation says, that is no limit at all: V2 reports
 *   UINT64_MAX and aclrtGetOpExecuteTimeout UINT32_MAX.
 *   Until one is set, aclrtGetOpExecuteTimeout reports the runtime's
 *   default on an Atlas A2 device, 1091 s, and kernels are not timed (a
 *   timed kernel costs its executor two clock reads; no kernel on a CPU
 *   runs for 18 minutes by mistake). aclFinalize goes back to that.
 */
#ifndef ACLRT_IMPL_KERNEL_OP_TIMEOUT_H
#define ACLRT_IMPL_KERNEL_OP_TIMEOUT_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"

#define ACLRT_OP_TIMEOUT_STEP_US 1000u
#define ACLRT_OP_TIMEOUT_DEFAULT_MS 1091000u
#define ACLRT_OP_TIMEOUT_NEVER UINT32_MAX    /* stored: no limit */
#define ACLRT_OP_TIMEOUT_LONGEST 0x7FFFFFFFu /* ms a task record keeps */

/* The limit of a kernel launched now without one of its own, in ms; 0 = none. */
ACLRT_INLINE uint32_t aclrt_op_execute_timeout_ms(void)
{
    uint32_t ms = atomic_load_explicit(&aclrt_rt.op_execute_timeout_ms, memory_order_relaxed);
    return ms == ACLRT_OP_TIMEOUT_NEVER ? 0 : ms; /* never set: the default, not timed (see above) */
}

/* Set the limit from microseconds (0: none); the limit that holds, in microseconds. */
static uint64_t aclrt_op_timeout_set_us(uint64_t us)
{
    uint32_t ms;
    if (us == 0)
        ms = ACLRT_OP_TIMEOUT_NEVER;
    else {
        uint64_t steps = us / ACLRT_OP_TIMEOUT_STEP_US + (us % ACLRT_OP_TIMEOUT_STEP_US != 0);
        ms = steps > ACLRT_OP_TIMEOUT_LONGEST ? ACLRT_OP_TIMEOUT_LONGEST : (uint32_t)steps;
    }
    atomic_store_explicit(&aclrt_rt.op_execute_timeout_ms, ms, memory_order_relaxed);
    return ms == ACLRT_OP_TIMEOUT_NEVER ? UINT64_MAX : (uint64_t)ms * ACLRT_OP_TIMEOUT_STEP_US;
}

ACLRT_API aclError aclrtSetOpExecuteTimeOut(uint32_t timeout)
{
    ACLRT_ENTER();
    (void)aclrt_op_timeout_set_us((uint64_t)timeout * 1000000u);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout)
{
    ACLRT_ENTER();
    (void)aclrt_op_timeout_set_us((uint64_t)timeout * 1000u);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout)
{
    ACLRT_ENTER();
    if (actualTimeout == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "actualTimeout (output) is NULL");
    *actualTimeout = aclrt_op_timeout_set_us(timeout);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs)
{
    ACLRT_ENTER();
    if (timeoutMs == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "timeoutMs (output) is NULL");
    uint32_t ms = atomic_load_explicit(&aclrt_rt.op_execute_timeout_ms, memory_order_relaxed);
    *timeoutMs = ms == 0 ? ACLRT_OP_TIMEOUT_DEFAULT_MS : ms; /* ACLRT_OP_TIMEOUT_NEVER is UINT32_MAX */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetOpTimeOutInterval(uint64_t *interval)
{
    ACLRT_ENTER();
    if (interval == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "interval (output) is NULL");
    *interval = ACLRT_OP_TIMEOUT_STEP_US;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_KERNEL_OP_TIMEOUT_H */
