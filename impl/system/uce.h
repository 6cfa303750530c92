/*
 * impl/system/uce.h - memory faults (UCE) of a device and their repair:
 * aclrtxInjectMemUce, aclrtGetMemUceInfo, aclrtMemUceRepair,
 * aclrtRepairError, and what aclrtGetErrorVerbose (fault.h) reports.
 *
 * A device's faults are ranges of its memory, at most
 * MAX_MEM_UCE_INFO_ARRAY_SIZE, kept in the order they were made. A CPU
 * reports no memory error aclrt could see, so they are made on purpose
 * (aclrtxInjectMemUce) and stay until repaired; a repair removes ranges and
 * leaves the memory as it is. The table is rare state: one mutex.
 */
#ifndef ACLRT_IMPL_SYSTEM_UCE_H
#define ACLRT_IMPL_SYSTEM_UCE_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../context/context.h"
#include "../memory/memory.h"

struct aclrt_uce_range {
    uintptr_t addr;
    size_t len;
};

static struct {
    pthread_mutex_t lock;
    size_t count[ACLRT_MAX_DEVICES];
    struct aclrt_uce_range ranges[ACLRT_MAX_DEVICES][MAX_MEM_UCE_INFO_ARRAY_SIZE];
} aclrt_uce = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Copy up to `max` of dev's faults to out (as aclrtMemUceInfo); returns how many dev has. */
ACLRT_INTERNAL size_t aclrt_uce_list(const struct aclrt_device *dev, aclrtMemUceInfo *out, size_t max)
{
    pthread_mutex_lock(&aclrt_uce.lock);
    size_t n = aclrt_uce.count[dev->id];
    for (size_t i = 0; i < n && i < max; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].addr = (void *)aclrt_uce.ranges[dev->id][i].addr;
        out[i].len = aclrt_uce.ranges[dev->id][i].len;
    }
    pthread_mutex_unlock(&aclrt_uce.lock);
    return n;
}

/*
 * Repair dev's faults named in list (all of them if list is NULL): each one
 * must be a fault as reported, else nothing is repaired.
 */
static aclError aclrt_uce_repair(const struct aclrt_device *dev, const aclrtMemUceInfo *list, size_t n)
{
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_uce.lock);
    size_t *count = &aclrt_uce.count[dev->id];
    struct aclrt_uce_range *ranges = aclrt_uce.ranges[dev->id];
    if (list == NULL) {
        *count = 0;
        pthread_mutex_unlock(&aclrt_uce.lock);
        return ACL_SUCCESS;
    }
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++) {
        bool found = false;
        for (size_t j = 0; j < *count && !found; j++)
            found = ranges[j].addr == (uintptr_t)list[i].addr && ranges[j].len == list[i].len;
        if (!found)
            rc = aclrt_fail(ACL_ERROR_INVALID_PARAM,
                            "entry %zu ([%p, +%zu)) is not a memory fault of device %u (aclrtGetMemUceInfo lists them)",
                            i, list[i].addr, list[i].len, dev->id);
    }
    for (size_t i = 0; i < n && rc == ACL_SUCCESS; i++) {
        for (size_t j = 0; j < *count; j++) {
            if (ranges[j].addr == (uintptr_t)list[i].addr && ranges[j].len == list[i].len) {
                memmove(&ranges[j], &ranges[j + 1], (*count - j - 1) * sizeof ranges[0]); /* keep the order */
                --*count;
                break;
            }
        }
    }
    pthread_mutex_unlock(&aclrt_uce.lock);
    return rc;
}

ACLRT_API aclError aclrtxInjectMemUce(int32_t deviceId, void *addr, size_t len)
{
    ACLRT_ENTER();
    if (addr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "addr is NULL");
    if (len == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "len is 0");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_mem_device_of(addr, len) != dev)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not inside one allocation of device %d's memory",
                          addr, len, (int)deviceId);
    pthread_mutex_lock(&aclrt_uce.lock);
    size_t *count = &aclrt_uce.count[dev->id];
    bool room = *count < MAX_MEM_UCE_INFO_ARRAY_SIZE;
    if (room)
        aclrt_uce.ranges[dev->id][(*count)++] = (struct aclrt_uce_range){(uintptr_t)addr, len};
    pthread_mutex_unlock(&aclrt_uce.lock);
    if (!room)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "device %d has %d memory faults already, the most it records",
                          (int)deviceId, MAX_MEM_UCE_INFO_ARRAY_SIZE);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetMemUceInfo(int32_t deviceId, struct aclrtMemUceInfo *memUceInfoArray, size_t arraySize,
                                      size_t *retSize)
{
    ACLRT_ENTER();
    if (memUceInfoArray == NULL || retSize == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", memUceInfoArray == NULL ? "memUceInfoArray" : "retSize (output)");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    size_t n = aclrt_uce_list(dev, memUceInfoArray, arraySize);
    if (n > arraySize)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "arraySize %zu is less than the %zu memory faults of device %d",
                          arraySize, n, (int)deviceId);
    *retSize = n;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemUceRepair(int32_t deviceId, struct aclrtMemUceInfo *memUceInfoArray, size_t arraySize)
{
    ACLRT_ENTER();
    if (memUceInfoArray == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "memUceInfoArray is NULL");
    if (arraySize > MAX_MEM_UCE_INFO_ARRAY_SIZE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "arraySize %zu is more than %d", arraySize,
                          MAX_MEM_UCE_INFO_ARRAY_SIZE);
    for (size_t i = 0; i < arraySize; i++)
        for (size_t k = 0; k < UCE_INFO_RESERVED_SIZE; k++)
            if (memUceInfoArray[i].reserved[k] != 0)
                return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                                  "memUceInfoArray[%zu].reserved is reserved and must be 0 (set only addr and len)", i);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_uce_repair(dev, memUceInfoArray, arraySize);
}

ACLRT_API aclError aclrtRepairError(int32_t deviceId, const struct aclrtErrorInfo *errorInfo)
{
    ACLRT_ENTER();
    if (errorInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "errorInfo is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    switch (errorInfo->errorType) {
    case ACL_RT_NO_ERROR: return ACL_SUCCESS;
    case ACL_RT_ERROR_MEMORY: break;
    case ACL_RT_ERROR_L2:
    case ACL_RT_ERROR_AICORE:
    case ACL_RT_ERROR_LINK:
    case ACL_RT_ERROR_L3_PORT:
    case ACL_RT_ERROR_OTHERS:
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "errorType %d: aclrt's devices have no such fault to repair (memory faults only)",
                          (int)errorInfo->errorType);
    default:
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "errorType %d is not an aclrtErrorType", (int)errorInfo->errorType);
    }
    if (!errorInfo->hasDetail)
        return aclrt_uce_repair(dev, NULL, 0);
    const aclrtMemUceInfoArray *uce = &errorInfo->detail.uceInfo;
    if (uce->arraySize > ACL_RT_MEM_UCE_INFO_MAX_NUM)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "errorInfo->detail.uceInfo.arraySize %zu is more than %d",
                          uce->arraySize, ACL_RT_MEM_UCE_INFO_MAX_NUM);
    return aclrt_uce_repair(dev, uce->memUceInfoArray, uce->arraySize);
}

#endif /* ACLRT_IMPL_SYSTEM_UCE_H */
