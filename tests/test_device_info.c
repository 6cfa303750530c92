/*
 * tests/test_device_info.c - pins "Device information and limits"
 * (docs/SEMANTICS.md): device attributes from the device profile (the
 * default, Ascend910B1, then the profile "host", which reports the
 * machine), capabilities, status, utilization, and the process's resource
 * limits: the flows of the device multi-thread, context query and
 * kernel-with-resource-limit samples, and the memory a device has free
 * (aclrtGetMemInfo). Runs with two host devices (device 1 stays unset
 * until a case sets it).
 */
#define _GNU_SOURCE

#include "check.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>

/* The default profile's figures (Ascend910B1). */
#define CUBE 24
#define VECTOR 48
#define AICORE 24
#define AICPU 6
#define HBM ((int64_t)64 << 30)
#define L2 ((int64_t)192 << 20)
#define UBUF ((int64_t)192 << 10)

/* The CPUs this process may run on, counted here independently of the runtime. */
static int64_t cpus(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof set, &set) == 0);
    return CPU_COUNT(&set);
}

static uint32_t device_count(void)
{
    uint32_t n = 0;
    CHECK_OK(aclrtGetDeviceCount(&n));
    return n;
}

TEST(the_soc_and_its_figures_are_the_default_profiles)
{
    CHECK_EQ(0, strcmp(aclrtGetSocName(), "Ascend910B1"));
    struct {
        aclrtDevAttr attr;
        int64_t want;
    } figures[] = {{ACL_DEV_ATTR_AICPU_CORE_NUM, AICPU},      {ACL_DEV_ATTR_AICORE_CORE_NUM, AICORE},
                   {ACL_DEV_ATTR_CUBE_CORE_NUM, CUBE},        {ACL_DEV_ATTR_VECTOR_CORE_NUM, VECTOR},
                   {ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, HBM}, {ACL_DEV_ATTR_L2_CACHE_SIZE, L2},
                   {ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, UBUF}};
    for (uint32_t d = 0; d < device_count(); d++) {
        for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
            int64_t v = -1;
            CHECK_OK(aclrtGetDeviceInfo(d, figures[i].attr, &v));
            CHECK_EQ(figures[i].want, v);
        }
    }
}

/* The profile "host" (checked after a restart, at the end): the machine's figures. */
TEST(host_profile_core_counts_are_the_cpus_the_process_may_use)
{
    char soc[64];
    snprintf(soc, sizeof soc, "aclrt-%s", aclrtxGetBackendName()); /* aclrt-host, aclrt-cuda */
    CHECK_EQ(0, strcmp(aclrtGetSocName(), soc));
    aclrtDevAttr cores[] = {ACL_DEV_ATTR_AICPU_CORE_NUM, ACL_DEV_ATTR_AICORE_CORE_NUM, ACL_DEV_ATTR_CUBE_CORE_NUM,
                            ACL_DEV_ATTR_VECTOR_CORE_NUM};
    for (uint32_t d = 0; d < device_count(); d++) {
        for (int i = 0; i < 4; i++) {
            int64_t v = -1;
            CHECK_OK(aclrtGetDeviceInfo(d, cores[i], &v));
            CHECK_EQ(cpus(), v);
        }
    }
    uint32_t limit = 0;
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &limit));
    CHECK_EQ(cpus(), limit);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, (uint32_t)cpus() + 1));
    int64_t v = -1;
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE, &v));
    CHECK_EQ(0, v);
}

TEST(host_profile_global_memory_is_the_machines_ram)
{
    int64_t v = -1;
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
    CHECK_EQ((int64_t)sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE), v);
    size_t free_bytes = 0, total = 0;
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total));
    CHECK_EQ((size_t)v, total);
}

TEST(host_profile_l2_cache_is_the_cpus)
{
    int64_t v = -1;
    aclError rc = aclrtGetDeviceInfo(0, ACL_DEV_ATTR_L2_CACHE_SIZE, &v);
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (l2 > 0) {
        CHECK_OK(rc);
        CHECK_EQ(l2, v);
    } else if (rc == ACL_SUCCESS) {
        CHECK(v > 0); /* found in sysfs */
    } else {
        CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, rc);
    }
}

TEST(simt_attributes_are_zero)
{
    for (int a = ACL_DEV_ATTR_WARP_SIZE; a <= ACL_DEV_ATTR_MAX_BLOCK_DIM_Z; a++) {
        if (a == ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE)
            continue; /* not SIMT: the profile's unified buffer */
        int64_t v = -1;
        CHECK_OK(aclrtGetDeviceInfo(0, (aclrtDevAttr)a, &v));
        CHECK_EQ(0, v);
    }
}

TEST(one_machine_one_os_and_no_split_are_zero)
{
    aclrtDevAttr zero[] = {ACL_DEV_ATTR_SMP_ID, ACL_DEV_ATTR_PHY_CHIP_ID, ACL_DEV_ATTR_IS_VIRTUAL};
    for (uint32_t d = 0; d < device_count(); d++) {
        for (int i = 0; i < 3; i++) {
            int64_t v = -1;
            CHECK_OK(aclrtGetDeviceInfo(d, zero[i], &v));
            CHECK_EQ(0, v);
        }
    }
}

TEST(npu_hardware_attributes_are_not_supported)
{
    aclrtDevAttr npu[] = {ACL_DEV_ATTR_SUPER_POD_DEVICE_ID, ACL_DEV_ATTR_SUPER_POD_SERVER_ID, ACL_DEV_ATTR_SUPER_POD_ID,
                          ACL_DEV_ATTR_CUST_OP_PRIVILEGE,   ACL_DEV_ATTR_MAINBOARD_ID,       ACL_DEV_ATTR_HD_CONNECT_TYPE,
                          ACL_DEV_ATTR_DEVICE_FORM_FACTOR,  ACL_DEV_ATTR_NPU_ARCH};
    for (size_t i = 0; i < sizeof npu / sizeof npu[0]; i++) {
        int64_t v = 77;
        CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetDeviceInfo(0, npu[i], &v));
    }
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "NPU hardware that device 0 (Ascend910B1) does not emulate");
}

TEST(device_info_rejects_a_bad_device_an_unknown_attribute_and_null)
{
    int64_t v = 77;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(device_count(), ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(UINT32_MAX, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
    aclrtDevAttr wild[] = {(aclrtDevAttr)0, (aclrtDevAttr)2, (aclrtDevAttr)213, (aclrtDevAttr)999};
    for (int i = 0; i < 4; i++)
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceInfo(0, wild[i], &v));
    CHECK_EQ(77, v);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, NULL));
}

TEST(device_capabilities_are_not_supported_and_unknown_ones_are_invalid)
{
    aclrtDevFeatureType known[] = {ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV};
    for (int i = 0; i < 2; i++) {
        int32_t v = 77;
        CHECK_OK(aclrtGetDeviceCapability(0, known[i], &v));
        CHECK_EQ(ACL_DEV_FEATURE_NOT_SUPPORT, v);
    }
    int32_t v = 77;
    aclrtDevFeatureType wild[] = {(aclrtDevFeatureType)0, (aclrtDevFeatureType)2, (aclrtDevFeatureType)99};
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceCapability(0, wild[i], &v));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID,
             aclrtGetDeviceCapability((int32_t)device_count(), ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceCapability(-1, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v));
    CHECK_EQ(77, v);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, NULL));
}

TEST(every_device_is_normal_whether_set_or_not)
{
    for (uint32_t d = 0; d < device_count(); d++) {
        aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_END;
        CHECK_OK(aclrtQueryDeviceStatus((int32_t)d, &st));
        CHECK_EQ(ACL_RT_DEVICE_STATUS_NORMAL, st);
    }
    aclrtDeviceStatus st = ACL_RT_DEVICE_STATUS_END;
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus((int32_t)device_count(), &st));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtQueryDeviceStatus(-1, &st));
    CHECK_EQ(ACL_RT_DEVICE_STATUS_END, st);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtQueryDeviceStatus(0, NULL));
}

TEST(utilization_rates_are_not_available)
{
    int32_t devices[] = {0, 1, 99};
    for (int i = 0; i < 3; i++) {
        aclrtUtilizationInfo u = {55, 55, 55, 55, NULL};
        CHECK_OK(aclrtGetDeviceUtilizationRate(devices[i], &u));
        CHECK_EQ(-1, u.cubeUtilization);
        CHECK_EQ(-1, u.vectorUtilization);
        CHECK_EQ(-1, u.aicpuUtilization);
        CHECK_EQ(-1, u.memoryUtilization);
    }
}

TEST(utilization_needs_an_info_without_extension)
{
    aclrtUtilizationInfo u = {55, 55, 55, 55, (aclrtUtilizationExtendInfo *)&u};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceUtilizationRate(0, &u));
    CHECK_EQ(55, u.cubeUtilization);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceUtilizationRate(0, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "utilizationExtend");
}

TEST(resource_limits_default_to_all_cores)
{
    uint32_t v = 0;
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(CUBE, v);
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(VECTOR, v);
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(VECTOR, v);
}

/* CANN's kernel-with-resource-limit sample: 8 cube cores, whatever the machine's CPUs. */
TEST(the_samples_limit_of_8_cube_cores_is_accepted)
{
    uint32_t v = 0;
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 8));
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(8, v);
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(VECTOR, v);
    CHECK_OK(aclrtResetDeviceResLimit(0));
}

TEST(a_limit_is_reported_for_its_type_until_reset)
{
    uint32_t v = 0;
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 1));
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(1, v);
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(1, v);
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(CUBE, v);
    CHECK_OK(aclrtResetDeviceResLimit(0));
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(VECTOR, v);
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(VECTOR, v);
}

TEST(the_cube_limit_is_the_reported_cube_core_count)
{
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 1));
    int64_t v = -1;
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
    CHECK_EQ(1, v);
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
    CHECK_EQ(AICORE, v);
    CHECK_OK(aclrtResetDeviceResLimit(0));
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
    CHECK_EQ(CUBE, v);
}

TEST(a_limit_above_the_cores_is_refused_and_changes_nothing)
{
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, VECTOR + 1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "limit 49 exceeds the 48 vector cores of device 0 (Ascend910B1)");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, CUBE + 1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "limit 25 exceeds the 24 cube cores");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, UINT32_MAX));
    uint32_t v = 0;
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(1, v);
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(CUBE, v);
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, VECTOR)); /* all the cores is fine */
    CHECK_OK(aclrtResetDeviceResLimit(0));
}

TEST(limits_need_the_device_set)
{
    uint32_t v = 0;
    CHECK_EQ(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtGetDeviceResLimit(1, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtSetDeviceResLimit(1, ACL_RT_DEV_RES_VECTOR_CORE, 1));
    CHECK_EQ(ACL_ERROR_RT_DEV_SETUP_ERROR, aclrtResetDeviceResLimit(1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtSetDevice");
}

TEST(limits_end_when_the_device_is_released)
{
    aclrtContext ctx;
    CHECK_OK(aclrtGetCurrentContext(&ctx));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtSetDeviceResLimit(1, ACL_RT_DEV_RES_VECTOR_CORE, 1));
    CHECK_OK(aclrtResetDevice(1)); /* the last reference: device 1 is released */
    CHECK_OK(aclrtSetDevice(1));
    uint32_t v = 0;
    CHECK_OK(aclrtGetDeviceResLimit(1, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(VECTOR, v);
    CHECK_OK(aclrtResetDevice(1));
    CHECK_OK(aclrtSetCurrentContext(ctx));
}

TEST(limits_belong_to_their_device)
{
    aclrtContext ctx;
    CHECK_OK(aclrtGetCurrentContext(&ctx));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtSetDeviceResLimit(1, ACL_RT_DEV_RES_CUBE_CORE, 1));
    uint32_t v = 0;
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v)); /* current: device 1 */
    CHECK_EQ(1, v);
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(CUBE, v);
    CHECK_OK(aclrtSetCurrentContext(ctx)); /* back on device 0 */
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(CUBE, v);
    CHECK_OK(aclrtResetDeviceForce(1));
    CHECK_OK(aclrtSetCurrentContext(ctx));
}

struct thread_view {
    aclError set, get, current;
    uint32_t limit, in_thread;
};

static void *other_thread_main(void *arg)
{
    struct thread_view *t = (struct thread_view *)arg;
    t->set = aclrtSetDevice(0);
    t->get = aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &t->limit);
    t->current = aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &t->in_thread);
    aclrtResetDevice(0);
    return NULL;
}

TEST(a_thread_that_sets_the_device_sees_the_process_limit)
{
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 1));
    struct thread_view t = {-1, -1, -1, 0, 0};
    pthread_t th;
    CHECK(pthread_create(&th, NULL, other_thread_main, &t) == 0);
    pthread_join(th, NULL);
    CHECK_OK(t.set);
    CHECK_OK(t.get);
    CHECK_OK(t.current);
    CHECK_EQ(1, t.limit);
    CHECK_EQ(1, t.in_thread);
    CHECK_OK(aclrtResetDeviceResLimit(0));
}

static void *no_context_main(void *arg)
{
    uint32_t v;
    *(aclError *)arg = aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v);
    return NULL;
}

TEST(limit_calls_reject_a_bad_type_a_bad_device_null_and_no_context)
{
    uint32_t v = 77;
    aclrtDevResLimitType wild[] = {(aclrtDevResLimitType)2, (aclrtDevResLimitType)-1};
    for (int i = 0; i < 2; i++) {
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDeviceResLimit(0, wild[i], &v));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceResLimit(0, wild[i], 1));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetResInCurrentThread(wild[i], &v));
    }
    int32_t bad[] = {-1, (int32_t)device_count(), INT32_MAX};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetDeviceResLimit(bad[i], ACL_RT_DEV_RES_CUBE_CORE, &v));
        CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDeviceResLimit(bad[i], ACL_RT_DEV_RES_CUBE_CORE, 1));
        CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDeviceResLimit(bad[i]));
    }
    CHECK_EQ(77, v);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL));
    aclError rc = ACL_SUCCESS;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, no_context_main, &rc) == 0);
    pthread_join(th, NULL);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, rc);
}

static void *mem_info_no_context_main(void *arg)
{
    size_t free_bytes, total;
    *(aclError *)arg = aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, &total);
    return NULL;
}

TEST(mem_info_total_is_the_global_memory_for_every_attribute)
{
    int64_t ram = -1;
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &ram));
    for (int a = ACL_DDR_MEM; a <= ACL_MEM_P2P_HUGE1G; a++) {
        size_t free_bytes = 0, total = 0;
        CHECK_OK(aclrtGetMemInfo((aclrtMemAttr)a, &free_bytes, &total));
        CHECK_EQ((size_t)ram, total);
        CHECK(free_bytes <= total);
    }
}

TEST(mem_info_free_drops_by_what_is_allocated_and_comes_back_when_freed)
{
    size_t free0, free1, free2, total;
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM_HUGE, &free0, &total));
    void *p = NULL, *q = NULL;
    CHECK_OK(aclrtMalloc(&p, (size_t)1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&q, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM_HUGE, &free1, &total));
    CHECK_EQ(free0 - ((size_t)1 << 20) - 4096, free1);
    /* Pinned host memory is not the device's. */
    void *h = NULL;
    CHECK_OK(aclrtMallocHost(&h, (size_t)1 << 20));
    CHECK_OK(aclrtGetMemInfo(ACL_DDR_MEM, &free2, &total));
    CHECK_EQ(free1, free2);
    CHECK_OK(aclrtFreeHost(h));
    CHECK_OK(aclrtFree(p));
    CHECK_OK(aclrtFree(q));
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM_HUGE, &free2, &total));
    CHECK_EQ(free0, free2);
}

TEST(mem_info_counts_the_current_devices_memory_only)
{
    size_t free0, free1, total;
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total));
    CHECK_OK(aclrtSetDevice(1));
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, (size_t)1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK(free1 <= free0 - ((size_t)1 << 20));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total));
    CHECK_EQ(free0, free1);
    CHECK_OK(aclrtSetDevice(1));
    CHECK_OK(aclrtFree(p));
    CHECK_OK(aclrtResetDevice(1));
    CHECK_OK(aclrtSetDevice(0));
}

TEST(mem_info_rejects_null_an_unknown_attribute_and_no_context)
{
    size_t free_bytes = 7, total = 7;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "free");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, &free_bytes, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "total");
    aclrtMemAttr wild[] = {(aclrtMemAttr)(ACL_MEM_P2P_HUGE1G + 1), (aclrtMemAttr)-1, (aclrtMemAttr)1000};
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetMemInfo(wild[i], &free_bytes, &total));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "unknown memory attribute");
    }
    CHECK_EQ(7, free_bytes);
    CHECK_EQ(7, total);
    aclError rc = ACL_SUCCESS;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, mem_info_no_context_main, &rc) == 0);
    pthread_join(th, NULL);
    CHECK_EQ(ACL_ERROR_RT_CONTEXT_NULL, rc);
}

static atomic_int blocks_run;

static aclError count_block(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block, (void)blocks, (void)arg;
    atomic_fetch_add(&blocks_run, 1);
    return ACL_SUCCESS;
}

TEST(a_kernel_launched_with_more_blocks_than_the_limit_runs_them_all)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 1));
    atomic_store(&blocks_run, 0);
    CHECK_OK(aclrtxLaunchHostKernel(s, 8, count_block, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(8, atomic_load(&blocks_run));
    CHECK_OK(aclrtResetDeviceResLimit(0));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_stream_limit_is_its_own_until_reset_and_defaults_to_the_process_limit)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint32_t v = 0;
    CHECK_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(CUBE, v);
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 12)); /* the process's, seen by the stream */
    CHECK_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(12, v);
    CHECK_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 4));
    CHECK_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 8)); /* the last one counts */
    CHECK_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(8, v);
    CHECK_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(VECTOR, v);
    CHECK_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v)); /* the process's is unchanged */
    CHECK_EQ(12, v);
    CHECK_OK(aclrtResetStreamResLimit(s));
    CHECK_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(12, v);
    CHECK_OK(aclrtResetDeviceResLimit(0));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_thread_that_uses_a_streams_limits_reads_them_until_it_stops)
{
    aclrtStream s, other;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateStream(&other));
    CHECK_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, 16));
    CHECK_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 32));
    uint32_t v = 0;
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(32, v); /* not used yet: the process's */
    CHECK_OK(aclrtUseStreamResInCurrentThread(s));
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(16, v);
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(CUBE, v); /* the stream has no cube limit: the process's */
    CHECK_OK(aclrtUnuseStreamResInCurrentThread(other)); /* not the one in use: nothing changes */
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(16, v);
    CHECK_OK(aclrtUnuseStreamResInCurrentThread(s));
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(32, v);
    CHECK_OK(aclrtUseStreamResInCurrentThread(s));
    CHECK_OK(aclrtDestroyStream(s)); /* a destroyed stream's limits end with it */
    CHECK_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    CHECK_EQ(32, v);
    CHECK_OK(aclrtResetDeviceResLimit(0));
    CHECK_OK(aclrtDestroyStream(other));
}

TEST(stream_limit_calls_reject_a_bad_stream_type_value_and_null)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint32_t v = 77;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, VECTOR + 1));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "limit 49 exceeds the 48 vector cores of device 0 (Ascend910B1)");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamResLimit(s, (aclrtDevResLimitType)2, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetStreamResLimit(s, (aclrtDevResLimitType)-1, &v));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "value (output) is NULL");
    CHECK_OK(aclrtSetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, 0)); /* NULL: the default stream; 0 is a limit */
    CHECK_OK(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(0, v);
    CHECK_OK(aclrtResetStreamResLimit(NULL));
    CHECK_OK(aclrtDestroyStream(s));
    aclrtStream gone = s;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamResLimit(gone, ACL_RT_DEV_RES_CUBE_CORE, &v));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamResLimit(gone, ACL_RT_DEV_RES_CUBE_CORE, 1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetStreamResLimit(gone));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtUseStreamResInCurrentThread(gone));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtUnuseStreamResInCurrentThread(gone));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not a live stream");
    CHECK_EQ(0, v);
}

TEST(a_device_uuid_is_stable_and_its_own)
{
    aclrtUuid a, b, c;
    CHECK_OK(aclrtDeviceGetUuid(0, &a));
    CHECK_OK(aclrtDeviceGetUuid(0, &b));
    CHECK_OK(aclrtDeviceGetUuid(1, &c)); /* a device that is not set has one too */
    CHECK_EQ(0, memcmp(a.bytes, b.bytes, sizeof a.bytes));
    CHECK(memcmp(a.bytes, c.bytes, sizeof a.bytes) != 0);
    CHECK_EQ(0x80, (unsigned char)a.bytes[6] & 0xf0); /* version 8 */
    CHECK_EQ(0x80, (unsigned char)a.bytes[8] & 0xc0); /* variant 10 */
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetUuid((int32_t)device_count(), &a));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetUuid(-1, &a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetUuid(0, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "uuid (output) is NULL");
}

TEST(pci_bus_ids_name_each_device_and_read_back)
{
    for (uint32_t d = 0; d < device_count(); d++) {
        char id[13];
        memset(id, 'x', sizeof id);
        CHECK_OK(aclrtDeviceGetPCIBusId((int32_t)d, id, (int32_t)sizeof id));
        char want[24];
        snprintf(want, sizeof want, "0000:%02x:00.0", (d + 1) & 0xffu);
        CHECK_EQ(0, strcmp(want, id));
        int32_t back = -1;
        CHECK_OK(aclrtDeviceGetByPCIBusId(id, &back));
        CHECK_EQ(d, back);
    }
    int32_t back = -1;
    /* Upper-case digits are read too: bus 0x0A would be the tenth device, which the two devices lack. */
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetByPCIBusId("0000:0A:00.0", &back));
    CHECK_EQ(-1, back);
}

TEST(pci_bus_id_calls_reject_a_short_buffer_bad_text_and_no_device)
{
    char id[13] = "untouched";
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetPCIBusId(0, id, 12));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "len 12 is too short");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetPCIBusId(0, NULL, 13));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetPCIBusId((int32_t)device_count(), id, 13));
    CHECK_EQ(0, strcmp(id, "untouched"));
    int32_t d = -1;
    const char *bad[] = {"", "0000:01:00", "0000-01:00.0", "0000:0g:00.0", "0000:01:00.0 ", "00000:01:00.0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetByPCIBusId(bad[i], &d));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "is not a PCI bus id");
    const char *none[] = {"0000:00:00.0", "0000:03:00.0", "0001:01:00.0", "0000:01:01.0", "0000:01:00.1"};
    for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
        CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceGetByPCIBusId(none[i], &d));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "no device has PCI bus id");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetByPCIBusId(NULL, &d));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetByPCIBusId("0000:01:00.0", NULL));
    CHECK_EQ(-1, d);
}

TEST(every_pair_of_devices_is_connected_by_hccs)
{
    for (uint32_t a = 0; a < device_count(); a++)
        for (uint32_t b = 0; b < device_count(); b++) {
            uint64_t v = 0;
            CHECK_OK(aclrtGetDevicesTopo(a, b, &v));
            CHECK_EQ(ACL_RT_DEVS_TOPOLOGY_HCCS, v);
        }
    uint64_t v = 7;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDevicesTopo(0, device_count(), &v));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetDevicesTopo(UINT32_MAX, 0, &v));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "out of range");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevicesTopo(0, 1, NULL));
    CHECK_EQ(7, v);
}

TEST(user_logical_and_physical_ids_are_the_same)
{
    aclError (*maps[])(const int32_t, int32_t *const) = {aclrtGetLogicDevIdByUserDevId, aclrtGetUserDevIdByLogicDevId,
                                                        aclrtGetLogicDevIdByPhyDevId,  aclrtGetPhyDevIdByLogicDevId,
                                                        aclrtGetUserDevIdByPhyDevId,   aclrtGetPhyDevIdByUserDevId};
    for (size_t m = 0; m < sizeof maps / sizeof maps[0]; m++) {
        for (int32_t d = 0; d < (int32_t)device_count(); d++) {
            int32_t out = -1;
            CHECK_OK(maps[m](d, &out));
            CHECK_EQ(d, out);
        }
        int32_t out = -1;
        CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, maps[m]((int32_t)device_count(), &out));
        CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, maps[m](-1, &out));
        CHECK_EQ(-1, out);
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, maps[m](0, NULL));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "(output) is NULL");
    }
}

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(the_soc_and_its_figures_are_the_default_profiles);
    RUN(simt_attributes_are_zero);
    RUN(one_machine_one_os_and_no_split_are_zero);
    RUN(npu_hardware_attributes_are_not_supported);
    RUN(device_info_rejects_a_bad_device_an_unknown_attribute_and_null);
    RUN(device_capabilities_are_not_supported_and_unknown_ones_are_invalid);
    RUN(every_device_is_normal_whether_set_or_not);
    RUN(utilization_rates_are_not_available);
    RUN(utilization_needs_an_info_without_extension);
    RUN(resource_limits_default_to_all_cores);
    RUN(the_samples_limit_of_8_cube_cores_is_accepted);
    RUN(a_limit_is_reported_for_its_type_until_reset);
    RUN(the_cube_limit_is_the_reported_cube_core_count);
    RUN(a_limit_above_the_cores_is_refused_and_changes_nothing);
    RUN(limits_need_the_device_set);
    RUN(limits_end_when_the_device_is_released);
    RUN(limits_belong_to_their_device);
    RUN(a_thread_that_sets_the_device_sees_the_process_limit);
    RUN(limit_calls_reject_a_bad_type_a_bad_device_null_and_no_context);
    RUN(a_kernel_launched_with_more_blocks_than_the_limit_runs_them_all);
    RUN(a_stream_limit_is_its_own_until_reset_and_defaults_to_the_process_limit);
    RUN(a_thread_that_uses_a_streams_limits_reads_them_until_it_stops);
    RUN(stream_limit_calls_reject_a_bad_stream_type_value_and_null);
    RUN(a_device_uuid_is_stable_and_its_own);
    RUN(pci_bus_ids_name_each_device_and_read_back);
    RUN(pci_bus_id_calls_reject_a_short_buffer_bad_text_and_no_device);
    RUN(every_pair_of_devices_is_connected_by_hccs);
    RUN(user_logical_and_physical_ids_are_the_same);
    RUN(mem_info_total_is_the_global_memory_for_every_attribute);
    RUN(mem_info_free_drops_by_what_is_allocated_and_comes_back_when_freed);
    RUN(mem_info_counts_the_current_devices_memory_only);
    RUN(mem_info_rejects_null_an_unknown_attribute_and_no_context);
    aclrtResetDevice(0);
    aclFinalize();
    setenv("ACLRT_PROFILE", "host", 1); /* the same process, started again with the machine's figures */
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime with the host profile: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(host_profile_core_counts_are_the_cpus_the_process_may_use);
    RUN(host_profile_global_memory_is_the_machines_ram);
    RUN(host_profile_l2_cache_is_the_cpus);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("device_info");
}
