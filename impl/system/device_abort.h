/*
 * impl/system/device_abort.h - stopping all the work of a device
 * (aclrtDeviceTaskAbort) and the callbacks that run around it
 * (aclrtSetDeviceTaskAbortCallback).
 *
 *   The steps are the runtime's: the callbacks with stage PRE, the abort of
 *   the device's work with a clean-up that lets the device's contexts run
 *   work again, and the callbacks with stage POST. The abort begins on every
 *   live stream of the device (each discards its tasks that have not
 *   started, as aclrtStreamAbort) before it waits for any: a running task
 *   finishes, since host code cannot be interrupted. Synchronizers that were
 *   waiting return ACL_ERROR_RT_STREAM_ABORT. The clean-up clears the
 *   stop-on-failure state of the device's contexts and the error each stream
 *   kept: as after a device's recovery, new tasks run.
 *
 *   The timeout (ms; 0: none; at most 36 minutes) is checked between the
 *   steps, as the runtime checks it, and each callback is given what is
 *   left of it: once it has passed the call stops there and returns
 *   ACL_ERROR_RT_WAIT_TIMEOUT. A callback that returns non-zero stops the
 *   call too, which returns that value. Callbacks run on the calling thread
 *   in the order of their names.
 *
 *   A stream destroyed by another thread while the device is aborted is a
 *   race of the program's, as it is with aclrtStreamAbort.
 */
#ifndef ACLRT_IMPL_SYSTEM_DEVICE_ABORT_H
#define ACLRT_IMPL_SYSTEM_DEVICE_ABORT_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../runtime/hooks.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_life.h"
#include "../context/context.h"
#include "../context/stream_control.h"

#define ACLRT_TASK_ABORT_TIMEOUT_MAX_MS (36u * 60u * 1000u)

static int aclrt_hook_name_order(const void *a, const void *b)
{
    return strcmp(((const struct aclrt_hook *)a)->name, ((const struct aclrt_hook *)b)->name);
}

/*
 * The ms left of timeout_ms since start_ns, or -1 once it has passed; 0
 * only when there is no timeout (a callback reads 0 as "none", so a
 * timeout with less than a whole ms left counts as passed).
 */
static int64_t aclrt_abort_time_left(uint32_t timeout_ms, uint64_t start_ns)
{
    if (timeout_ms == 0)
        return 0;
    uint64_t spent_ms = (aclrt_now_ns() - start_ns) / ACLRT_NS_PER_MS;
    return spent_ms >= timeout_ms ? -1 : (int64_t)(timeout_ms - spent_ms);
}

/* Run the task abort callbacks of one stage; the first non-zero result stops them and is returned. */
static aclError aclrt_fire_task_abort(int32_t device, aclrtDeviceTaskAbortStage stage, uint32_t timeout_ms,
                                      uint64_t start_ns)
{
    struct aclrt_hook buf[ACLRT_HOOK_STACK], *hooks;
    size_t n = aclrt_hook_snapshot(&aclrt_task_abort_hooks, buf, ACLRT_HOOK_STACK, &hooks);
    qsort(hooks, n, sizeof *hooks, aclrt_hook_name_order);
    aclError rc = ACL_SUCCESS;
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++) {
        int64_t left = aclrt_abort_time_left(timeout_ms, start_ns);
        if (left < 0) {
            rc = aclrt_fail(ACL_ERROR_RT_WAIT_TIMEOUT, "the abort of device %d ran past its %u ms", (int)device,
                            timeout_ms);
            break;
        }
        int32_t r = hooks[i].fn.task_abort(device, stage, (uint32_t)left, hooks[i].args);
        if (r != 0)
            rc = aclrt_fail(r, "task abort callback \"%s\" returned %d (stage %s)", hooks[i].name, (int)r,
                            stage == ACL_RT_DEVICE_TASK_ABORT_PRE ? "PRE" : "POST");
    }
    if (hooks != buf)
        free(hooks);
    return rc;
}

/* Abort every live stream of dev: all begin, then each ends; then their failed states are cleared. */
static aclError aclrt_device_abort_streams(struct aclrt_device *dev)
{
    struct aclrt_stream *running = aclrt_running_stream();
    if (running != NULL && running->device == dev)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot abort the device it runs on (it would wait "
                                                      "for itself)");
    struct aclrt_stream_ref buf[32], *refs;
    size_t n = aclrt_streams_snapshot(dev, NULL, buf, sizeof buf / sizeof buf[0], &refs);
    if (n == SIZE_MAX)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory listing the streams of device %u", dev->id);
    uint64_t stack_targets[32], *targets = n <= 32 ? stack_targets : (uint64_t *)malloc(n * sizeof *targets);
    if (targets == NULL) {
        if (refs != buf)
            free(refs);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory aborting the streams of device %u", dev->id);
    }
    for (size_t i = 0; i < n; i++)
        if (aclrt_slot_alive(&refs[i].s->hdr, refs[i].life))
            targets[i] = aclrt_stream_abort_begin(refs[i].s);
        else
            refs[i].s = NULL; /* destroyed since the walk: nothing of it is left to abort */
    for (size_t i = 0; i < n; i++) {
        if (refs[i].s == NULL)
            continue;
        aclrt_stream_abort_end(refs[i].s, targets[i]);
        /* Release (both): the next submission's acquire loads see the cleared state. */
        atomic_store_explicit(&refs[i].s->error, 0, memory_order_release);
        atomic_store_explicit(&refs[i].ctx->failure, 0, memory_order_release);
    }
    if (targets != stack_targets)
        free(targets);
    if (refs != buf)
        free(refs);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout)
{
    ACLRT_ENTER();
    uint64_t start = aclrt_now_ns();
    if (timeout > ACLRT_TASK_ABORT_TIMEOUT_MAX_MS)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %u ms is outside [0, %u] (0: none, at most 36 minutes)",
                          timeout, ACLRT_TASK_ABORT_TIMEOUT_MAX_MS);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_fire_task_abort(deviceId, ACL_RT_DEVICE_TASK_ABORT_PRE, timeout, start)) != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_device_abort_streams(dev)) != ACL_SUCCESS)
        return rc;
    if (aclrt_abort_time_left(timeout, start) < 0)
        return aclrt_fail(ACL_ERROR_RT_WAIT_TIMEOUT, "the abort of device %d ran past its %u ms", (int)deviceId,
                          timeout);
    return aclrt_fire_task_abort(deviceId, ACL_RT_DEVICE_TASK_ABORT_POST, timeout, start);
}

ACLRT_API aclError aclrtSetDeviceTaskAbortCallback(const char *regName, aclrtDeviceTaskAbortCallback callback,
                                                   void *args)
{
    ACLRT_ENTER();
    union aclrt_hook_fn fn;
    fn.task_abort = callback;
    return aclrt_state_hook_register(&aclrt_task_abort_hooks, regName, fn, callback == NULL, args);
}

#endif /* ACLRT_IMPL_SYSTEM_DEVICE_ABORT_H */
