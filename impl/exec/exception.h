/*
 * impl/exec/exception.h - exception reporting: what the runtime tells the user
 * when a task fails (a host kernel returning non-zero, a wait that timed
 * out, a callback with no thread to run it).
 *
 *   - aclrtSetExceptionInfoCallback: one process-wide slot, last call wins,
 *     NULL clears it.
 *   - aclrtBinarySetExceptionCallback (binary_data.h): a binary's own,
 *     called first for a failing kernel of that binary.
 *   - aclrtExceptionInfoCallbackRegister / Unregister: a list keyed by the
 *     function pointer (registering twice keeps one entry; unregistering an
 *     unknown function succeeds). Independent of the slot: a function in
 *     both is called twice.
 *   - They run on the executor thread that ran the failing task, before the
 *     stream's failure mode applies, with an aclrtExceptionInfo that is valid
 *     only during the call. Several may run at once on different executors.
 *   - The ids: task id = the task's number on its stream (what
 *     aclrtGetThreadLastTaskId returned to the thread that submitted it),
 *     stream id = aclrtStreamGetId, thread id = the submitting thread's
 *     kernel thread id (gettid), device id, and the error code.
 *   - For a failing kernel (a host kernel, or a binary's function) the info
 *     also carries its function and args (fault.h hands them out),
 *     when the thread reporting it is the one that ran it (a task of the
 *     stream it runs).
 */
#ifndef ACLRT_IMPL_EXEC_EXCEPTION_H
#define ACLRT_IMPL_EXEC_EXCEPTION_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../runtime/hooks.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"

/* Opaque in the public headers (aclrtExceptionInfo); the getters read it. */
struct rtExceptionInfo {
    uint32_t taskid;
    uint32_t streamid;
    uint32_t tid;
    uint32_t deviceid;
    uint32_t retcode;
    /* The failing task, when it was a kernel (kernel_fn NULL otherwise). */
    aclrtxHostKernel kernel_fn;
    void *kernel_args;
    void *kernel_handle;        /* a binary's function: its aclrtFuncHandle (NULL: a host kernel) */
    uint32_t kernel_args_size;  /* a binary's function: bytes at kernel_args */
};

#define ACLRT_EXCEPTION_INFO_NONE 0xFFFFFFFFu /* what the getters return for NULL info */

static _Atomic(aclrtExceptionInfoCallback) aclrt_exception_slot;
/*
 * A failing kernel of a binary also goes to the binary's own callback
 * (aclrtBinarySetExceptionCallback): the kernel layer's hook, set once it
 * is first used (binary_data.h), finds and calls it.
 */
static _Atomic(aclrtExceptionInfoCallback) aclrt_exception_binary_hook;
static struct aclrt_hook_list aclrt_exception_hooks = ACLRT_HOOK_LIST_INIT;

/* The id of task number `number` of s, as aclrtGetThreadLastTaskId reports it. */
ACLRT_INLINE uint32_t aclrt_stream_task_id(const struct aclrt_stream *s, uint64_t number)
{
    return (uint32_t)(number - s->life_base);
}

/*
 * A failed kernel that a backend reports from a thread other than the
 * stream's holder (aclrt_stream_fail_kernel, exec.h): its function, entry
 * point and arguments, valid during the report.
 */
struct aclrt_kernel_failure {
    void *handle; /* the aclrtFuncHandle launched */
    aclrtxHostKernel fn;
    void *args;
    uint32_t args_size;
};

/* Set by aclrt_stream_fail_kernel around its report on the reporting thread. */
static _Thread_local const struct aclrt_kernel_failure *aclrt_exception_kernel ACLRT_TLS_MODEL;

/* Task `number` of s, submitted by thread `tid`, failed with `code`: call every exception callback. */
ACLRT_INTERNAL void aclrt_exception_report(struct aclrt_stream *s, uint32_t tid, uint64_t number, aclError code)
{
    /* Acquire: pairs with the release in aclrtSetExceptionInfoCallback. */
    aclrtExceptionInfoCallback slot = atomic_load_explicit(&aclrt_exception_slot, memory_order_acquire);
    struct aclrt_hook buf[ACLRT_HOOK_STACK], *hooks;
    size_t n = aclrt_hook_snapshot(&aclrt_exception_hooks, buf, ACLRT_HOOK_STACK, &hooks);
    /* Acquire: pairs with the release that sets it (binary_data.h). */
    aclrtExceptionInfoCallback binary_hook = atomic_load_explicit(&aclrt_exception_binary_hook, memory_order_acquire);
    if (slot == NULL && n == 0 && binary_hook == NULL)
        return;
    struct rtExceptionInfo info = {
        .taskid = aclrt_stream_task_id(s, number),
        .streamid = aclrt_slot_index(&s->hdr),
        .tid = tid,
        .deviceid = s->device->id,
        .retcode = (uint32_t)code,
        .kernel_fn = NULL,
        .kernel_args = NULL,
        .kernel_handle = NULL,
        .kernel_args_size = 0,
    };
    /* The failing task is the one s->current holds when the reporter is the thread running s. */
    if (aclrt_running_stream() == s && s->has_current && s->issued == number &&
        (s->current.kind->id == ACLRT_TASK_HOST_KERNEL || s->current.kind->id == ACLRT_TASK_KERNEL)) {
        info.kernel_fn = s->current.u.kernel.fn;
        info.kernel_args = s->current.u.kernel.args;
        if (s->current.kind->id == ACLRT_TASK_KERNEL) {
            info.kernel_handle = s->current.u.kernel.handle;
            info.kernel_args_size = s->current.u.kernel.args_size;
        }
    }
    if (aclrt_exception_kernel != NULL) {
        info.kernel_fn = aclrt_exception_kernel->fn;
        info.kernel_args = aclrt_exception_kernel->args;
        info.kernel_handle = aclrt_exception_kernel->handle;
        info.kernel_args_size = aclrt_exception_kernel->args_size;
    }
    if (binary_hook != NULL && info.kernel_handle != NULL)
        binary_hook(&info);
    if (slot != NULL)
        slot(&info);
    for (size_t i = 0; i < n; i++)
        hooks[i].fn.exception(&info);
    if (hooks != buf)
        free(hooks);
}

ACLRT_API aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback)
{
    ACLRT_ENTER();
    /* Release: pairs with the acquire in aclrt_exception_report (nothing else to publish; kept for clarity). */
    atomic_store_explicit(&aclrt_exception_slot, callback, memory_order_release);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback)
{
    ACLRT_ENTER();
    if (callback == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "callback is NULL");
    union aclrt_hook_fn fn;
    fn.exception = callback;
    return aclrt_hook_add(&aclrt_exception_hooks, NULL, fn, NULL, true);
}

ACLRT_API aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback)
{
    ACLRT_ENTER();
    if (callback == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "callback is NULL");
    union aclrt_hook_fn fn;
    fn.exception = callback;
    aclrt_hook_remove(&aclrt_exception_hooks, NULL, fn); /* an unknown callback is not an error */
    return ACL_SUCCESS;
}

ACLRT_API uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info != NULL ? info->taskid : ACLRT_EXCEPTION_INFO_NONE;
}

ACLRT_API uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info != NULL ? info->streamid : ACLRT_EXCEPTION_INFO_NONE;
}

ACLRT_API uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info != NULL ? info->tid : ACLRT_EXCEPTION_INFO_NONE;
}

ACLRT_API uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info != NULL ? info->deviceid : ACLRT_EXCEPTION_INFO_NONE;
}

ACLRT_API uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info)
{
    return info != NULL ? info->retcode : ACLRT_EXCEPTION_INFO_NONE;
}

ACLRT_API aclError aclrtGetThreadLastTaskId(uint32_t *taskId)
{
    ACLRT_ENTER();
    if (taskId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "taskId (output) is NULL");
    *taskId = aclrt_tls.last_task_id;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_EXEC_EXCEPTION_H */
