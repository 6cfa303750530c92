/*
 * impl/system/fault.h - error details beyond the code: a device's hardware
 * fault (aclrtGetErrorVerbose) and the kernel behind an exception
 * (aclrtGetArgsFromExceptionInfo, aclrtGetFuncHandleFromExceptionInfo).
 *
 *   - aclrtGetErrorVerbose describes the hardware fault of a device (memory
 *     UCE, link) for aclrtRepairError. The only ones aclrt's devices have
 *     are the memory faults made with aclrtxInjectMemUce (uce.h):
 *     ACL_RT_ERROR_MEMORY, to repair, with the first of them as detail;
 *     else ACL_RT_NO_ERROR, nothing to repair, no detail. A failing task is
 *     a software error, which this call does not report on the device
 *     either.
 *   - The exception-info getters answer for a failing host kernel (the
 *     CPU's stand-in for an AI Core kernel): its args pointer, and as the
 *     function handle the kernel function itself. The args are one pointer
 *     whose target's size aclrt does not know: the length is 0. For a
 *     failing function of a loaded binary (kernel_launch.h): the args it
 *     ran with and their size, and the aclrtFuncHandle it was launched
 *     with. Any other
 *     failing task has no kernel: ACL_ERROR_INVALID_EXCEPTION_INFO for the
 *     args, ACL_ERROR_RT_PARAM_INVALID (and a NULL handle) for the function,
 *     the runtime's codes for an exception that is not a kernel's.
 */
#ifndef ACLRT_IMPL_SYSTEM_FAULT_H
#define ACLRT_IMPL_SYSTEM_FAULT_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../context/context.h"
#include "../exec/exception.h"
#include "uce.h"

_Static_assert(sizeof(aclrtxHostKernel) == sizeof(aclrtFuncHandle), "a host kernel's function is its handle");

ACLRT_API aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo)
{
    ACLRT_ENTER();
    if (errorInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "errorInfo (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    memset(errorInfo, 0, sizeof *errorInfo);
    aclrtMemUceInfoArray *uce = &errorInfo->detail.uceInfo;
    size_t n = aclrt_uce_list(dev, uce->memUceInfoArray, ACL_RT_MEM_UCE_INFO_MAX_NUM);
    if (n == 0) {
        errorInfo->errorType = ACL_RT_NO_ERROR;
        return ACL_SUCCESS;
    }
    errorInfo->errorType = ACL_RT_ERROR_MEMORY;
    errorInfo->tryRepair = 1;
    errorInfo->hasDetail = 1;
    /* The detail holds 20: a repair of these, then another look, reaches the rest. */
    uce->arraySize = n < ACL_RT_MEM_UCE_INFO_MAX_NUM ? n : ACL_RT_MEM_UCE_INFO_MAX_NUM;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetArgsFromExceptionInfo(const aclrtExceptionInfo *info, void **devArgsPtr,
                                                 uint32_t *devArgsLen)
{
    ACLRT_ENTER();
    if (info == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_EXCEPTION_INFO, "info is NULL");
    if (devArgsPtr == NULL || devArgsLen == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s (output) is NULL", devArgsPtr == NULL ? "devArgsPtr" : "devArgsLen");
    if (info->kernel_fn == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_EXCEPTION_INFO,
                          "the failing task (task %u of stream %u) is not a kernel: it has no args", info->taskid,
                          info->streamid);
    *devArgsPtr = info->kernel_args;
    /* A binary's function: the bytes of its args; a host kernel's are a pointer to memory of unknown size. */
    *devArgsLen = info->kernel_handle != NULL ? info->kernel_args_size : 0;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetFuncHandleFromExceptionInfo(const aclrtExceptionInfo *info, aclrtFuncHandle *func)
{
    ACLRT_ENTER();
    if (info == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_EXCEPTION_INFO, "info is NULL");
    if (func == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "func (output) is NULL");
    *func = NULL;
    if (info->kernel_fn == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "the failing task (task %u of stream %u) is not a kernel: it has no function handle",
                          info->taskid, info->streamid);
    if (info->kernel_handle != NULL) { /* a binary's function: the handle it was launched with */
        *func = info->kernel_handle;
        return ACL_SUCCESS;
    }
    /* The handle of a host kernel is its function (POSIX: function and object pointers convert). */
    aclrtxHostKernel fn = info->kernel_fn;
    memcpy(func, &fn, sizeof *func);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYSTEM_FAULT_H */
