/*
 * tests/test_host_register.c - pins host registration (docs/SEMANTICS.md,
 * Host registration, managed memory, cache maintenance): aclrtHostRegister
 * and aclrtHostRegisterV2 of malloc'd and aclrtMallocHost memory, the
 * device pointer of any registered byte, a task that writes through the
 * device pointer, overlapping and unaligned ranges, unregistration, the
 * capability query, and bad input (NULL, size 0, reserved flags and types).
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static size_t page;

static void *page_alloc(size_t bytes)
{
    void *p = NULL;
    CHECK_EQ(0, posix_memalign(&p, page, bytes));
    return p;
}

TEST(registered_pageable_memory_has_a_device_pointer_a_task_writes_through)
{
    uint32_t *host = (uint32_t *)page_alloc(2 * page);
    for (size_t i = 0; i < 2 * page / 4; i++)
        host[i] = 0;
    CHECK_OK(aclrtHostRegisterV2(host, 2 * page, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED));
    void *dev = NULL;
    CHECK_OK(aclrtHostGetDevicePointer(host, &dev, 0));
    CHECK(dev != NULL);
    /* Any byte of the range has a device pointer, at the same offset. */
    void *dev_mid = NULL;
    CHECK_OK(aclrtHostGetDevicePointer((char *)host + page + 8, &dev_mid, 0));
    CHECK(dev_mid == (char *)dev + page + 8);
    /* A stream task writes through the device pointer; the host sees it. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtMemsetAsync((char *)dev + page, page, 0x5A, 16, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0x5A5A5A5Au, host[page / 4]);
    CHECK_EQ(0u, host[0]);
    CHECK_OK(aclrtDestroyStream(s));
    /* Past the end: not registered. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer((char *)host + 2 * page, &dev, 0));
    CHECK_OK(aclrtHostUnregister(host));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(host, &dev, 0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no range registered");
    free(host);
}

TEST(register_v1_returns_the_device_pointer_of_pinned_memory)
{
    void *host = NULL;
    CHECK_OK(aclrtMallocHost(&host, 3 * page));
    void *dev = NULL;
    CHECK_OK(aclrtHostRegister(host, 3 * page, ACL_HOST_REGISTER_MAPPED, &dev));
    CHECK(dev != NULL);
    void *again = NULL;
    CHECK_OK(aclrtHostGetDevicePointer(host, &again, 0));
    CHECK(again == dev);
    /* A device-to-device copy between the device pointer and device memory. */
    void *mem;
    CHECK_OK(aclrtMalloc(&mem, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(mem, 64, 0x33, 64));
    CHECK_OK(aclrtMemcpy(dev, 64, mem, 64, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK_EQ(0x33, ((unsigned char *)host)[63]);
    CHECK_OK(aclrtFree(mem));
    /* Pinned memory of the runtime is not pageable: PINNED refuses it. */
    CHECK_OK(aclrtHostUnregister(host));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host, page, ACL_HOST_REG_PINNED));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "pageable");
    CHECK_OK(aclrtHostRegisterV2(host, page, ACL_HOST_REG_MAPPED));
    CHECK_OK(aclrtHostUnregister(host));
    CHECK_OK(aclrtFreeHost(host));
}

TEST(overlapping_and_unaligned_ranges_are_refused)
{
    char *host = (char *)page_alloc(4 * page);
    CHECK_OK(aclrtHostRegisterV2(host + page, 2 * page, ACL_HOST_REG_MAPPED));
    /* Overlaps from below, inside, and from above; the same range twice. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host, 2 * page, ACL_HOST_REG_MAPPED));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "overlaps");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host + 2 * page, page, ACL_HOST_REG_MAPPED));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host + 2 * page, 2 * page, ACL_HOST_REG_MAPPED));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host + page, 2 * page, ACL_HOST_REG_MAPPED));
    /* Adjacent ranges are fine. */
    CHECK_OK(aclrtHostRegisterV2(host, page, ACL_HOST_REG_MAPPED));
    CHECK_OK(aclrtHostRegisterV2(host + 3 * page, page, ACL_HOST_REG_MAPPED));
    /* Unaligned start. */
    CHECK_OK(aclrtHostUnregister(host + 3 * page));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host + 3 * page + 8, 64, ACL_HOST_REG_MAPPED));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not aligned");
    /* Unregistering needs the start of a range. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostUnregister(host + page + 64));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "starts no registered range");
    CHECK_OK(aclrtHostUnregister(host + page));
    CHECK_OK(aclrtHostUnregister(host));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostUnregister(host));
    free(host);
}

TEST(bad_input_gets_the_documented_codes)
{
    char *host = (char *)page_alloc(page);
    void *dev;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(NULL, page, ACL_HOST_REGISTER_MAPPED, &dev));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(host, page, ACL_HOST_REGISTER_MAPPED, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(host, 0, ACL_HOST_REGISTER_MAPPED, &dev));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtHostRegister(host, page, ACL_HOST_REGISTER_READONLY, &dev));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtHostRegister(host, page, ACL_HOST_REGISTER_IOMEMORY, &dev));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegister(host, page, (aclrtHostRegisterType)3, &dev));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(NULL, page, ACL_HOST_REG_MAPPED));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(host, 0, ACL_HOST_REG_MAPPED));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host, page, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(host, page, 0x1));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtHostRegisterV2(host, page, ACL_HOST_REG_MAPPED | ACL_HOST_REG_READONLY));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2((void *)(UINTPTR_MAX & ~(uintptr_t)(page - 1)), 2 * page,
                                                             ACL_HOST_REG_MAPPED));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(NULL, &dev, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(host, NULL, 0));
    CHECK_OK(aclrtHostRegisterV2(host, page, ACL_HOST_REG_MAPPED));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(host, &dev, 1));
    CHECK_OK(aclrtHostUnregister(host));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostUnregister(NULL));
    free(host);
}

TEST(every_engine_reaches_registered_memory)
{
    aclrtHostMemMapCapability cap = ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
    CHECK_OK(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIC, &cap));
    CHECK_EQ(ACL_RT_HOST_MEM_MAP_SUPPORTED, cap);
    CHECK_OK(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_CCU, &cap));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_AIC, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostMemMapCapabilities(0, (aclrtHacType)99, &cap));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtHostMemMapCapabilities(4096, ACL_RT_HAC_TYPE_AIC, &cap));
}

TEST(registrations_end_with_the_runtime)
{
    char *host = (char *)page_alloc(page);
    CHECK_OK(aclrtHostRegisterV2(host, page, ACL_HOST_REG_MAPPED));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    void *dev;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(host, &dev, 0));
    CHECK_OK(aclrtHostRegisterV2(host, page, ACL_HOST_REG_MAPPED)); /* not "overlaps" */
    CHECK_OK(aclrtHostUnregister(host));
    free(host);
}

int main(void)
{
    page = (size_t)sysconf(_SC_PAGESIZE);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(registered_pageable_memory_has_a_device_pointer_a_task_writes_through);
    RUN(register_v1_returns_the_device_pointer_of_pinned_memory);
    RUN(overlapping_and_unaligned_ranges_are_refused);
    RUN(bad_input_gets_the_documented_codes);
    RUN(every_engine_reaches_registered_memory);
    RUN(registrations_end_with_the_runtime);
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("host_register");
}
