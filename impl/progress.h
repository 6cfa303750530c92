/*
 * impl/progress.h - aclrtxDeviceProgress and aclrtxDeviceProgressFd: the
 * embedder's threads run a device's streams (external progress). The work
 * itself is the backend's (its progress hooks, backends/backend.h); here the
 * device is checked and started, as aclrtSetDevice would start it.
 */
#ifndef ACLRT_IMPL_PROGRESS_H
#define ACLRT_IMPL_PROGRESS_H

#include "base.h"
#include "context.h"
#include "error.h"
#include "runtime.h"

/* A device whose backend state exists: started by aclrtSetDevice or a context of it. */
static aclError aclrt_progress_device(int32_t deviceId, struct aclrt_device **out)
{
    aclError rc = aclrt_device_check(deviceId, out);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    rc = aclrt_device_start_locked(*out);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return rc;
}

ACLRT_API aclError aclrtxDeviceProgress(int32_t deviceId, uint32_t budget, aclrtxProgressInfo *info)
{
    ACLRT_ENTER();
    struct aclrt_device *dev;
    aclError rc = aclrt_progress_device(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_rt.backend->progress == NULL)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the %s backend does not take progress calls",
                          aclrt_rt.backend->name);
    if (aclrt_running_stream() != NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot drive progress (it runs inside a progress call)");
    return aclrt_rt.backend->progress(dev, budget, info);
}

ACLRT_API aclError aclrtxDeviceProgressFd(int32_t deviceId, int *fd)
{
    ACLRT_ENTER();
    if (fd == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "fd (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_progress_device(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_rt.backend->progress_fd == NULL)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the %s backend has no progress eventfd",
                          aclrt_rt.backend->name);
    return aclrt_rt.backend->progress_fd(dev, fd);
}

#endif /* ACLRT_IMPL_PROGRESS_H */
