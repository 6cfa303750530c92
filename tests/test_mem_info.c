/*
 * tests/test_mem_info.c - pins what the runtime says of memory and the
 * allocation variants (docs/SEMANTICS.md, Memory attributes and batch
 * copies; Tasks and memory): aclrtPointerGetAttributes (device, host,
 * mapped, unregistered), aclrtMemGetAddressRange (interior pointers, the
 * ends, foreign memory), aclrtGetMemUsageInfo (current and peak sizes by
 * owner, the order, the counts), the aclrtMalloc variants and their
 * configurations, and the frees that synchronize first (the work launched
 * before them has run when they return).
 *
 * Ordering is proven with gates, never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

static aclrtContext main_context;

TEST(pointer_attributes_say_where_memory_is)
{
    void *dev, *host;
    CHECK_OK(aclrtMalloc(&dev, 1000, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost(&host, 1000));
    aclrtPtrAttributes a;
    memset(&a, 0xA5, sizeof a);
    CHECK_OK(aclrtPointerGetAttributes((char *)dev + 999, &a));
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, a.location.type);
    CHECK_EQ(0u, a.location.id);
    CHECK_EQ((uint32_t)sysconf(_SC_PAGESIZE), a.pageSize);
    CHECK_EQ(0u, a.rsv[0] | a.rsv[1] | a.rsv[2] | a.rsv[3]);
    CHECK_OK(aclrtPointerGetAttributes(host, &a));
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
    static char foreign[64];
    CHECK_OK(aclrtPointerGetAttributes(foreign, &a));
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, a.location.type);
    /* One past the end is not the allocation's. */
    CHECK_OK(aclrtPointerGetAttributes((char *)dev + 1000, &a));
    CHECK(a.location.type != ACL_MEM_LOCATION_TYPE_DEVICE || a.location.id != 0);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(NULL, &a));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "ptr is NULL");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(dev, NULL));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtPointerGetAttributes(dev, &a)); /* freed: no longer the runtime's */
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, a.location.type);
    CHECK_OK(aclrtFreeHost(host));
}

TEST(pointer_attributes_and_address_range_of_mapped_memory)
{
    aclrtPhysicalMemProp prop = {ACL_MEM_HANDLE_TYPE_NONE, ACL_MEM_ALLOCATION_TYPE_PINNED, ACL_HBM_MEM_HUGE,
                                 {0, ACL_MEM_LOCATION_TYPE_DEVICE}, 0};
    size_t g;
    CHECK_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    aclrtDrvMemHandle h;
    CHECK_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    void *va;
    CHECK_OK(aclrtReserveMemAddress(&va, 2 * g, 0, NULL, 0));
    CHECK_OK(aclrtMapMem((char *)va + g, g, 0, h, 0));
    aclrtPtrAttributes a;
    CHECK_OK(aclrtPointerGetAttributes((char *)va + g + 5, &a));
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, a.location.type);
    void *base = NULL;
    size_t size = 0;
    CHECK_OK(aclrtMemGetAddressRange((char *)va + g + g - 1, &base, &size));
    CHECK(base == (char *)va + g);
    CHECK_EQ(g, size);
    /* The reserved part with nothing mapped is no allocation. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(va, &base, &size));
    CHECK_OK(aclrtUnmapMem((char *)va + g));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(address_range_gives_the_allocation_of_any_address_in_it)
{
    void *dev, *host;
    CHECK_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost(&host, 100));
    size_t offsets[] = {0, 1, 2048, 4095};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        void *base = NULL;
        size_t size = 0;
        CHECK_OK(aclrtMemGetAddressRange((char *)dev + offsets[i], &base, &size));
        CHECK(base == dev);
        CHECK_EQ((size_t)4096, size);
    }
    void *base = NULL;
    size_t size = 0;
    CHECK_OK(aclrtMemGetAddressRange((char *)host + 99, &base, &size));
    CHECK(base == host);
    CHECK_EQ((size_t)100, size);
    static char foreign[16];
    base = foreign;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(foreign, &base, &size));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no allocation");
    CHECK(base == foreign); /* outputs untouched */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(NULL, &base, &size));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(dev, NULL, &size));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(dev, &base, NULL));
    CHECK_OK(aclrtFree(dev));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(dev, &base, &size));
    CHECK_OK(aclrtFreeHost(host));
}

/* The APP entry of a usage list of n entries, or NULL. */
static const aclrtMemUsageInfo *app_entry(const aclrtMemUsageInfo *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(u[i].name, "APP") == 0)
            return &u[i];
    return NULL;
}

TEST(mem_usage_info_counts_the_programs_memory_now_and_at_its_peak)
{
    aclrtMemUsageInfo u[4];
    size_t n = 99;
    CHECK_OK(aclrtGetMemUsageInfo(0, u, 4, &n));
    CHECK_EQ((size_t)2, n);
    CHECK(u[0].curMemSize >= u[1].curMemSize); /* largest first */
    const aclrtMemUsageInfo *app = app_entry(u, n);
    CHECK(app != NULL);
    uint64_t before = app->curMemSize, peak_before = app->memPeakSize;
    void *a, *b;
    CHECK_OK(aclrtMalloc(&a, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&b, 1 << 19, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtGetMemUsageInfo(0, u, 4, &n));
    app = app_entry(u, n);
    CHECK_EQ(before + (1u << 20) + (1u << 19), app->curMemSize);
    CHECK(app->memPeakSize >= app->curMemSize);
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtGetMemUsageInfo(0, u, 4, &n));
    app = app_entry(u, n);
    CHECK_EQ(before + (1u << 19), app->curMemSize);
    CHECK(app->memPeakSize >= before + (1u << 20) + (1u << 19)); /* the peak stays */
    CHECK(app->memPeakSize >= peak_before);
    CHECK_OK(aclrtFree(b));
    /* Room for one: the largest. */
    CHECK_OK(aclrtGetMemUsageInfo(0, u, 1, &n));
    CHECK_EQ((size_t)1, n);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemUsageInfo(0, NULL, 1, &n));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemUsageInfo(0, u, 1, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemUsageInfo(0, u, 0, &n));
    uint32_t count;
    CHECK_OK(aclrtGetDeviceCount(&count));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUsageInfo((int32_t)count, u, 1, &n));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetMemUsageInfo(-1, u, 1, &n));
}

TEST(malloc_variants_return_device_memory_aclrtFree_takes)
{
    void *p[4];
    CHECK_OK(aclrtMallocAlign32(&p[0], 33, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocCached(&p[1], 100, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK_OK(aclrtMallocWithCfg(&p[2], 100, ACL_MEM_MALLOC_HUGE_FIRST, NULL));
    aclrtMallocAttribute attrs[2];
    memset(attrs, 0, sizeof attrs);
    attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
    attrs[0].value.moduleId = 33;
    attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attrs[1].value.deviceId = 0;
    aclrtMallocConfig cfg = {attrs, 2};
    CHECK_OK(aclrtMallocForTaskScheduler(&p[3], 100, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    for (int i = 0; i < 4; i++) {
        CHECK_EQ((uintptr_t)0, (uintptr_t)p[i] % 64);
        aclrtPtrAttributes a;
        CHECK_OK(aclrtPointerGetAttributes(p[i], &a));
        CHECK_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, a.location.type);
        CHECK_OK(aclrtMemset(p[i], 33, 0x5A, 33));
    }
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(p[0])); /* device memory */
    for (int i = 0; i < 4; i++)
        CHECK_OK(aclrtFree(p[i]));
    /* Bad input as aclrtMalloc's. */
    void *q = (void *)&q;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(NULL, 8, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocCached(&q, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK(q == (void *)&q);
}

TEST(malloc_configurations_are_checked)
{
    void *p = NULL;
    aclrtMallocAttribute attr;
    memset(&attr, 0, sizeof attr);
    aclrtMallocConfig cfg = {&attr, 1};
    attr.attr = ACL_RT_MEM_ATTR_DEVICE_ID;
    attr.value.deviceId = 7; /* not the current device */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not the current device");
    attr.attr = (aclrtMallocAttrType)99;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocWithCfg(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg));
    attr.attr = ACL_RT_MEM_ATTR_VA_FLAG;
    attr.value.vaFlag = 2;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(&p, 64, &cfg));
    aclrtMallocConfig holes = {NULL, 1};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(&p, 64, &holes));
    CHECK(p == NULL);
    attr.value.vaFlag = 1;
    CHECK_OK(aclrtMallocHostWithCfg(&p, 64, &cfg));
    aclrtPtrAttributes a;
    CHECK_OK(aclrtPointerGetAttributes(p, &a));
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(p)); /* host memory */
    CHECK_OK(aclrtFreeHostWithDevSync(p));
    CHECK_OK(aclrtMallocHostWithCfg(&p, 64, NULL));
    CHECK_OK(aclrtFreeHost(p));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(&p, 0, NULL));
}

/* Work launched before a synchronizing free has run when it returns. */
static atomic_int late_ran;

static void late_fn(void *arg)
{
    (void)arg;
    atomic_store(&late_ran, 1);
}

TEST(frees_with_device_sync_return_after_the_work_launched_before_them)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    for (int host = 0; host < 2; host++) {
        void *p;
        if (host)
            CHECK_OK(aclrtMallocHost(&p, 256));
        else
            CHECK_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
        atomic_store(&late_ran, 0);
        struct gate *g = launch_gate(s);
        CHECK_OK(aclrtMemsetAsync(p, 256, 0x11, 256, s));
        CHECK_OK(aclrtLaunchHostFunc(s, late_fn, NULL));
        CHECK(gate_wait_entered(g));
        gate_open(g); /* the free waits for everything launched before it */
        CHECK_OK(host ? aclrtFreeHostWithDevSync(p) : aclrtFreeWithDevSync(p));
        CHECK_EQ(1, atomic_load(&late_ran));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, host ? aclrtFreeHostWithDevSync(p) : aclrtFreeWithDevSync(p));
    }
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeWithDevSync(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeHostWithDevSync(NULL));
    void *h;
    CHECK_OK(aclrtMallocHost(&h, 64));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeWithDevSync(h)); /* not device memory */
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtMalloc");
    CHECK_OK(aclrtFreeHost(h));
    CHECK_OK(aclrtDestroyStream(s));
}

static void case_cleanup(void)
{
    gates_open_all();
    aclrtSetCurrentContext(main_context);
    aclrtSynchronizeDeviceWithTimeout(2000);
    aclGetRecentErrMsg();
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(pointer_attributes_say_where_memory_is);
    RUN_CASE(pointer_attributes_and_address_range_of_mapped_memory);
    RUN_CASE(address_range_gives_the_allocation_of_any_address_in_it);
    RUN_CASE(mem_usage_info_counts_the_programs_memory_now_and_at_its_peak);
    RUN_CASE(malloc_variants_return_device_memory_aclrtFree_takes);
    RUN_CASE(malloc_configurations_are_checked);
    RUN_CASE(frees_with_device_sync_return_after_the_work_launched_before_them);
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("mem_info");
}
