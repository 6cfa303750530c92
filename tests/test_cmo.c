/*
 * tests/test_cmo.c - pins memory types and cache maintenance (docs/SEMANTICS.md,
 * Host registration, managed memory, cache maintenance): aclrtCheckMemType
 * over device, reserved and host addresses; the cache operations check
 * their arguments; the stream-ordered ones are tasks in their stream's
 * order (an event recorded after one completes only after it); cache
 * descriptors; bad input.
 *
 * Ordering is proven with gates, never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <stdint.h>

TEST(check_mem_type_tells_device_memory_and_reserved_addresses)
{
    void *dev, *host;
    CHECK_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost(&host, 256));
    void *va;
    CHECK_OK(aclrtReserveMemAddress(&va, 2 << 20, 0, NULL, 0));
    uint32_t r = 7;
    void *list[2] = {dev, (char *)dev + 255};
    CHECK_OK(aclrtCheckMemType(list, 2, ACL_RT_MEM_TYPE_DEV, &r, 0));
    CHECK_EQ(1u, r);
    CHECK_OK(aclrtCheckMemType(list, 2, ACL_RT_MEM_TYPE_DVPP, &r, 0)); /* DVPP memory is device memory here */
    CHECK_EQ(1u, r);
    CHECK_OK(aclrtCheckMemType(list, 2, ACL_RT_MEM_TYPE_RSVD, &r, 0));
    CHECK_EQ(0u, r);
    void *mixed[2] = {dev, (char *)va + 100};
    CHECK_OK(aclrtCheckMemType(mixed, 2, ACL_RT_MEM_TYPE_DEV, &r, 0));
    CHECK_EQ(0u, r);
    CHECK_OK(aclrtCheckMemType(mixed, 2, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD, &r, 0));
    CHECK_EQ(1u, r);
    void *h[1] = {host};
    CHECK_OK(aclrtCheckMemType(h, 1, ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD, &r, 0));
    CHECK_EQ(0u, r);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCheckMemType(NULL, 1, ACL_RT_MEM_TYPE_DEV, &r, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCheckMemType(list, 0, ACL_RT_MEM_TYPE_DEV, &r, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCheckMemType(list, 1, ACL_RT_MEM_TYPE_DEV, &r, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 1, 0, &r, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCheckMemType(list, 1, 0x4, &r, 0));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreeHost(host));
    CHECK_OK(aclrtFree(dev));
}

TEST(synchronous_cache_calls_check_their_arguments)
{
    void *dev;
    CHECK_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemFlush(dev, 256));
    CHECK_OK(aclrtMemInvalidate(dev, 256));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemFlush(NULL, 256));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemFlush(dev, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemInvalidate(NULL, 256));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemInvalidate(dev, 0));
    CHECK_OK(aclrtDeviceL2CacheFlush(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceL2CacheFlush(dev));
    CHECK_OK(aclrtFree(dev));
}

/* An event recorded after cache tasks behind a gate completes only once the gate opens. */
TEST(cache_tasks_take_their_place_in_the_stream)
{
    void *dev, *desc;
    CHECK_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    size_t ds = 0;
    CHECK_OK(aclrtCmoGetDescSize(&ds));
    CHECK(ds >= 16);
    CHECK_OK(aclrtMalloc(&desc, ds, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtCmoSetDesc(desc, dev, 4096));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtEvent after;
    CHECK_OK(aclrtCreateEvent(&after));
    struct gate *g = launch_gate(s);
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclrtCmoAsync(dev, 4096, ACL_RT_CMO_TYPE_PREFETCH, s));
    CHECK_OK(aclrtCmoAsyncWithBarrier(dev, 4096, ACL_RT_CMO_TYPE_INVALID, 3, s));
    aclrtBarrierTaskInfo info = {1, {{ACL_RT_CMO_TYPE_INVALID, 3}}};
    CHECK_OK(aclrtCmoWaitBarrier(&info, s, 0));
    CHECK_OK(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_PREFETCH, s, NULL));
    CHECK_OK(aclrtRecordEvent(after, s));
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(after, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(after));
    CHECK_OK(aclrtQueryEventStatus(after, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    CHECK_OK(aclrtDestroyEvent(after));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtFree(desc));
    CHECK_OK(aclrtFree(dev));
}

TEST(bad_input_gets_the_documented_codes)
{
    void *dev, *host;
    CHECK_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost(&host, 4096));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync(NULL, 64, ACL_RT_CMO_TYPE_PREFETCH, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoAsync(dev, 0, ACL_RT_CMO_TYPE_PREFETCH, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsync(dev, 64, (aclrtCmoType)4, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsync(host, 64, ACL_RT_CMO_TYPE_PREFETCH, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not device memory");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsync(dev, 4097, ACL_RT_CMO_TYPE_PREFETCH, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtCmoAsync(dev, 64, ACL_RT_CMO_TYPE_PREFETCH, (aclrtStream)(uintptr_t)0x1234));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithBarrier(dev, 64, ACL_RT_CMO_TYPE_PREFETCH, 1, NULL));
    CHECK_OK(aclrtCmoAsyncWithBarrier(dev, 64, ACL_RT_CMO_TYPE_WRITEBACK, 0, NULL));
    aclrtBarrierTaskInfo info = {0, {{ACL_RT_CMO_TYPE_INVALID, 1}}};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(NULL, NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&info, NULL, 0));
    info.barrierNum = ACL_RT_CMO_MAX_BARRIER_NUM + 1;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&info, NULL, 0));
    info.barrierNum = 1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoWaitBarrier(&info, NULL, 1));
    info.cmoInfo[0].barrierId = 0;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&info, NULL, 0));
    info.cmoInfo[0].barrierId = 1;
    info.cmoInfo[0].cmoType = ACL_RT_CMO_TYPE_FLUSH;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoWaitBarrier(&info, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoGetDescSize(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoSetDesc(NULL, dev, 64));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoSetDesc(dev, NULL, 64));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoSetDesc(dev, dev, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoSetDesc(host, dev, 64));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoSetDesc(dev, host, 64));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoAsyncWithDesc(NULL, ACL_RT_CMO_TYPE_PREFETCH, NULL, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCmoAsyncWithDesc(dev, ACL_RT_CMO_TYPE_PREFETCH, NULL, dev));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithDesc(host, ACL_RT_CMO_TYPE_PREFETCH, NULL, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCmoAsyncWithDesc(dev, (aclrtCmoType)-1, NULL, NULL));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtFreeHost(host));
    CHECK_OK(aclrtFree(dev));
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(check_mem_type_tells_device_memory_and_reserved_addresses);
    RUN(synchronous_cache_calls_check_their_arguments);
    RUN(cache_tasks_take_their_place_in_the_stream);
    RUN(bad_input_gets_the_documented_codes);
    gates_open_all();
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("cmo");
}
