/*
 * impl/memory/mem_info.h - what the runtime knows of a pointer and of a device's memory
 * (aclrtPointerGetAttributes, aclrtMemGetAddressRange, aclrtGetMemUsageInfo).
 *
 * Everything comes from the allocation registry (memory.h): aclrtMalloc and
 * aclrtMallocHost memory, the runtime's own device memory, and physical
 * memory mapped into reserved ranges (vmm.h) or imported from another
 * process (ipc_mem.h). A pointer the registry does not know is not the
 * runtime's memory (ACL_MEM_LOCATION_TYPE_UNREGISTERED).
 */
#ifndef ACLRT_IMPL_MEMORY_MEM_INFO_H
#define ACLRT_IMPL_MEMORY_MEM_INFO_H

#include "../core/base.h"
#include "../core/error.h"
#include "../runtime/runtime.h"
#include "../context/context.h"
#include "memory.h"
#include "physmem.h"

ACLRT_API aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (attributes == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "attributes (output) is NULL");
    struct aclrt_allocation a;
    aclrtPtrAttributes out;
    memset(&out, 0, sizeof out);
    out.pageSize = (uint32_t)aclrt_page_size();
    if (!aclrt_mem_find(ptr, &a))
        out.location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
    else if (a.kind == ACLRT_MEM_MANAGED) {
        out.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
        out.location.id = a.device->id; /* the device it was allocated on */
    }
    else if (a.kind == ACLRT_MEM_HOST || a.device == NULL)
        out.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    else {
        out.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        out.location.id = a.device->id;
    }
    *attributes = out;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
    ACLRT_ENTER();
    if (ptr == NULL || pbase == NULL || psize == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                          ptr == NULL ? "ptr" : pbase == NULL ? "pbase (output)" : "psize (output)");
    struct aclrt_allocation a;
    if (!aclrt_mem_find(ptr, &a))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%p is in no allocation or mapping of the runtime (aclrtMalloc, aclrtMallocHost, aclrtMapMem)",
                          ptr);
    *pbase = (void *)a.base;
    *psize = a.size;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
                                        size_t *outputNum)
{
    ACLRT_ENTER();
    if (memUsageInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "memUsageInfo is NULL");
    if (outputNum == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "outputNum (output) is NULL");
    if (inputNum == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "inputNum is 0");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    static const char *const names[2] = {"APP", "RUNTIME"};
    size_t current[2], peak[2];
    aclrt_mem_usage(dev, current, peak);
    int order[2] = {0, 1}; /* largest first; the program's first when equal */
    if (current[1] > current[0])
        order[0] = 1, order[1] = 0;
    size_t n = inputNum < 2 ? inputNum : 2;
    for (size_t i = 0; i < n; i++) {
        aclrtMemUsageInfo *u = &memUsageInfo[i];
        memset(u, 0, sizeof *u);
        snprintf(u->name, sizeof u->name, "%s", names[order[i]]);
        u->curMemSize = current[order[i]];
        u->memPeakSize = peak[order[i]];
    }
    *outputNum = n;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MEMORY_MEM_INFO_H */
