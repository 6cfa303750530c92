/*
 * tests/test_uce.c - pins "Memory faults (UCE) and their repair"
 * (docs/SEMANTICS.md): a fault made with aclrtxInjectMemUce is what
 * aclrtGetMemUceInfo and aclrtGetErrorVerbose report until aclrtMemUceRepair
 * or aclrtRepairError repairs it; bad input gets the documented codes.
 */
#define _GNU_SOURCE
#include "check.h"
#include <stdlib.h>

static void start(void)
{
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
}

static void stop(void)
{
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

static size_t uce_count(int32_t dev)
{
    aclrtMemUceInfo info[MAX_MEM_UCE_INFO_ARRAY_SIZE];
    size_t n = 12345;
    CHECK_OK(aclrtGetMemUceInfo(dev, info, MAX_MEM_UCE_INFO_ARRAY_SIZE, &n));
    return n;
}

TEST(a_device_without_faults_reports_none)
{
    start();
    CHECK_EQ(0, uce_count(0));
    aclrtErrorInfo e;
    memset(&e, 0xFF, sizeof e);
    CHECK_OK(aclrtGetErrorVerbose(0, &e));
    CHECK_EQ(ACL_RT_NO_ERROR, e.errorType);
    CHECK_EQ(0, e.tryRepair);
    CHECK_EQ(0, e.hasDetail);
    CHECK_OK(aclrtRepairError(0, &e)); /* nothing to repair */
    stop();
}

TEST(injected_faults_are_reported_in_order_until_repaired)
{
    start();
    char *p;
    CHECK_OK(aclrtMalloc((void **)&p, 1 << 16, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(p, 1 << 16, 0x3C, 1 << 16));
    CHECK_OK(aclrtxInjectMemUce(0, p + 4096, 64));
    CHECK_OK(aclrtxInjectMemUce(0, p + 128, 8));
    aclrtMemUceInfo info[4];
    memset(info, 0xFF, sizeof info);
    size_t n = 0;
    CHECK_OK(aclrtGetMemUceInfo(0, info, 4, &n));
    CHECK_EQ(2, n);
    CHECK(info[0].addr == p + 4096);
    CHECK_EQ(64, info[0].len);
    CHECK(info[1].addr == p + 128);
    CHECK_EQ(8, info[1].len);
    CHECK_EQ(0, info[0].reserved[0]);
    CHECK_EQ(0, info[1].reserved[UCE_INFO_RESERVED_SIZE - 1]);
    /* Too small an array: refused, and the count is what it needs. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, info, 1, &n));
    aclrtErrorInfo e;
    CHECK_OK(aclrtGetErrorVerbose(0, &e));
    CHECK_EQ(ACL_RT_ERROR_MEMORY, e.errorType);
    CHECK_EQ(1, e.tryRepair);
    CHECK_EQ(1, e.hasDetail);
    CHECK_EQ(2, e.detail.uceInfo.arraySize);
    CHECK(e.detail.uceInfo.memUceInfoArray[1].addr == p + 128);
    /* Repairing one: the other stays; a range not as reported repairs nothing. */
    aclrtMemUceInfo fix;
    memset(&fix, 0, sizeof fix);
    fix.addr = p + 4096;
    fix.len = 32;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, &fix, 1));
    CHECK_EQ(2, uce_count(0));
    fix.len = 64;
    CHECK_OK(aclrtMemUceRepair(0, &fix, 1));
    CHECK_OK(aclrtGetMemUceInfo(0, info, 4, &n));
    CHECK_EQ(1, n);
    CHECK(info[0].addr == p + 128);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, &fix, 1)); /* repaired already */
    /* The rest through aclrtRepairError with what aclrtGetErrorVerbose said. */
    CHECK_OK(aclrtGetErrorVerbose(0, &e));
    CHECK_EQ(1, e.detail.uceInfo.arraySize);
    CHECK_OK(aclrtRepairError(0, &e));
    CHECK_EQ(0, uce_count(0));
    CHECK_OK(aclrtGetErrorVerbose(0, &e));
    CHECK_EQ(ACL_RT_NO_ERROR, e.errorType);
    /* Repair keeps the memory and its contents. */
    unsigned char back[8];
    CHECK_OK(aclrtMemcpy(back, sizeof back, p + 128, sizeof back, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(0x3C, back[7]);
    CHECK_OK(aclrtFree(p));
    stop();
}

TEST(a_memory_error_without_detail_repairs_every_fault_of_the_device)
{
    start();
    char *p;
    CHECK_OK(aclrtMalloc((void **)&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    for (int i = 0; i < MAX_MEM_UCE_INFO_ARRAY_SIZE; i++)
        CHECK_OK(aclrtxInjectMemUce(0, p + i, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxInjectMemUce(0, p, 1)); /* full */
    CHECK_EQ(MAX_MEM_UCE_INFO_ARRAY_SIZE, uce_count(0));
    aclrtErrorInfo e;
    CHECK_OK(aclrtGetErrorVerbose(0, &e));
    CHECK_EQ(ACL_RT_MEM_UCE_INFO_MAX_NUM, e.detail.uceInfo.arraySize); /* the detail holds 20 */
    CHECK_OK(aclrtRepairError(0, &e));
    CHECK_EQ(MAX_MEM_UCE_INFO_ARRAY_SIZE - ACL_RT_MEM_UCE_INFO_MAX_NUM, uce_count(0));
    e.hasDetail = 0;
    CHECK_OK(aclrtRepairError(0, &e));
    CHECK_EQ(0, uce_count(0));
    CHECK_OK(aclrtFree(p));
    stop();
}

TEST(faults_are_per_device)
{
    CHECK_OK(aclInit(NULL));
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    CHECK_OK(aclrtSetDevice(0));
    char *p;
    CHECK_OK(aclrtMalloc((void **)&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtxInjectMemUce(0, p, 16));
    if (count >= 2) {
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxInjectMemUce(1, p, 16)); /* device 0's memory */
        CHECK_EQ(0, uce_count(1));
        aclrtErrorInfo e;
        CHECK_OK(aclrtGetErrorVerbose(1, &e));
        CHECK_EQ(ACL_RT_NO_ERROR, e.errorType);
    }
    CHECK_EQ(1, uce_count(0));
    aclrtMemUceInfo fix;
    memset(&fix, 0, sizeof fix);
    fix.addr = p;
    fix.len = 16;
    CHECK_OK(aclrtMemUceRepair(0, &fix, 1));
    CHECK_OK(aclrtFree(p));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

TEST(uce_calls_reject_bad_input_with_the_documented_codes)
{
    start();
    char *p;
    CHECK_OK(aclrtMalloc((void **)&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    char host[16];
    aclrtMemUceInfo info[2];
    memset(info, 0, sizeof info);
    size_t n = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxInjectMemUce(0, NULL, 16));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxInjectMemUce(0, p, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxInjectMemUce(0, host, sizeof host)); /* not device memory */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxInjectMemUce(0, p, 8192));           /* past the allocation */
    CHECK(aclrtxInjectMemUce(99, p, 16) != ACL_SUCCESS);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, NULL, 2, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemUceInfo(0, info, 2, NULL));
    CHECK(aclrtGetMemUceInfo(99, info, 2, &n) != ACL_SUCCESS);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, NULL, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, info, MAX_MEM_UCE_INFO_ARRAY_SIZE + 1));
    CHECK_OK(aclrtxInjectMemUce(0, p, 16));
    info[0].addr = p;
    info[0].len = 16;
    info[0].reserved[3] = 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemUceRepair(0, info, 1)); /* reserved must be 0 */
    CHECK_OK(aclrtMemUceRepair(0, info, 0));                          /* nothing named: nothing done */
    CHECK_EQ(1, uce_count(0));
    aclrtErrorInfo e;
    memset(&e, 0, sizeof e);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRepairError(0, NULL));
    e.errorType = ACL_RT_ERROR_LINK;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRepairError(0, &e));
    e.errorType = (aclrtErrorType)77;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRepairError(0, &e));
    e.errorType = ACL_RT_ERROR_MEMORY;
    e.hasDetail = 1;
    e.detail.uceInfo.arraySize = ACL_RT_MEM_UCE_INFO_MAX_NUM + 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRepairError(0, &e));
    CHECK(aclrtRepairError(99, &e) != ACL_SUCCESS);
    e.hasDetail = 0;
    CHECK_OK(aclrtRepairError(0, &e));
    CHECK_EQ(0, uce_count(0));
    CHECK_OK(aclrtFree(p));
    stop();
}

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    RUN(a_device_without_faults_reports_none);
    RUN(injected_faults_are_reported_in_order_until_repaired);
    RUN(a_memory_error_without_detail_repairs_every_fault_of_the_device);
    RUN(faults_are_per_device);
    RUN(uce_calls_reject_bad_input_with_the_documented_codes);
    return check_report("uce");
}
