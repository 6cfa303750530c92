/*
 * impl/system/device_info.h - what a device is and may use: attributes,
 * capabilities, status, utilization, and the resource limits of the
 * process.
 *
 *   - Attributes report the device profile (profile.h): by default a SoC's
 *     figures (Ascend910B1: 24 AI Cores, 24 cube and 48 vector cores, 6 AI
 *     CPUs, 64 GiB of global memory, 192 MiB of L2, 192 KiB of unified
 *     buffer per vector core), whatever the machine; the work runs on its
 *     CPUs all the same. The profile "host" reports the machine instead: its
 *     cores are the CPUs this process may run on (sched_getaffinity), which
 *     run AI CPU work (host functions) and kernels of every kind, so the AI
 *     CPU, AI Core, cube and vector core counts are all that number; its
 *     global memory is the machine's RAM (a registered backend's own memory
 *     is not known: ACL_ERROR_RT_FEATURE_NOT_SUPPORT), its L2 cache the
 *     CPU's, its unified buffer 0. Neither has SIMT warps: those attributes
 *     are 0, as the runtime reports for a device without SIMT. Host devices run under one
 *     operating system on one machine, not split (SMP id, physical chip id
 *     and "virtual" are 0); super-pod placement, main board, custom
 *     operator privilege, host connection, form factor and NPU architecture
 *     describe NPU hardware the host device is not:
 *     ACL_ERROR_RT_FEATURE_NOT_SUPPORT. As in the runtime, the cube core
 *     count follows the process's cube core limit, a bad device id is
 *     ACL_ERROR_RT_PARAM_INVALID and an unknown attribute too.
 *   - Capabilities (task update of AI Core tasks, cross-device memory queue
 *     events) are features aclrt does not have: ACL_DEV_FEATURE_NOT_SUPPORT.
 *   - Status: a host device is always ACL_RT_DEVICE_STATUS_NORMAL.
 *   - Utilization is not measured: every rate is -1 ("not available"), as
 *     the runtime reports a rate it cannot get; so is a bad device id's.
 *   - Memory (aclrtGetMemInfo): the total is the device's global memory
 *     as aclrtGetDeviceInfo reports it (the profile's), the free part
 *     the total less the device memory allocated on the current device and
 *     not freed (aclrtMalloc's, and the runtime's own). Every memory
 *     attribute names the same memory: a host device has no separate DDR,
 *     HBM, huge-page or P2P pools.
 *   - Resource limits are, as in the runtime, the core counts that whoever
 *     sizes kernels reads (aclrtGetDeviceResLimit, aclrtGetResInCurrentThread):
 *     at most the profile's cores, kept per device while it is set (a reset
 *     that releases the device drops them; aclrtResetDeviceResLimit restores
 *     the cores). Setting one needs the device set (ACL_ERROR_RT_DEV_SETUP_ERROR
 *     otherwise). They do not cap a kernel's blocks: as on the device, a
 *     kernel runs all the blocks it is launched with.
 *   - A stream's limits (aclrtSetStreamResLimit) are kept in the stream
 *     until reset or destroyed; a stream without one reports the process's
 *     limit. A thread that uses a stream's limits
 *     (aclrtUseStreamResInCurrentThread, the last call wins) reads them
 *     from aclrtGetResInCurrentThread while the stream lives, on the
 *     stream's device, ahead of the process's limit.
 */
#ifndef ACLRT_IMPL_SYSTEM_DEVICE_INFO_H
#define ACLRT_IMPL_SYSTEM_DEVICE_INFO_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/profile.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../stream/stream.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "../memory/memory.h"

/* The CPUs this process may run on (at least 1). */
ACLRT_INTERNAL uint32_t aclrt_machine_cpus(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (uint32_t)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (uint32_t)n : 1u;
}

/* The machine's RAM in bytes, 0 if the system does not say. */
static int64_t aclrt_machine_ram(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0 || pages > INT64_MAX / page)
        return 0;
    return (int64_t)pages * page;
}

/* The size of the first cache of `level` that sysfs lists for CPU 0, 0 if none. */
static int64_t aclrt_sysfs_cache_size(int level)
{
    for (int i = 0; i < 16; i++) {
        char path[96], text[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            return 0;
        int lv = 0;
        bool ok = fscanf(f, "%d", &lv) == 1;
        fclose(f);
        if (!ok || lv != level)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        if ((f = fopen(path, "r")) == NULL)
            return 0;
        ok = fgets(text, sizeof text, f) != NULL;
        fclose(f);
        char *end;
        long long v = ok ? strtoll(text, &end, 10) : 0;
        if (!ok || v <= 0)
            return 0;
        if (*end == 'K')
            v *= 1024;
        else if (*end == 'M')
            v *= 1024 * 1024;
        return (int64_t)v;
    }
    return 0;
}

/* The CPU's L2 cache in bytes, 0 if the system does not say. */
ACLRT_INTERNAL int64_t aclrt_machine_l2(void)
{
#ifdef _SC_LEVEL2_CACHE_SIZE
    long v = sysconf(_SC_LEVEL2_CACHE_SIZE);
    if (v > 0)
        return v;
#endif
    return aclrt_sysfs_cache_size(2);
}

/* The profile the devices report (the runtime has started). */
ACLRT_INTERNAL const struct aclrt_profile *aclrt_device_profile(void)
{
    return &aclrt_profiles[aclrt_rt.config.profile];
}

/* The cores of resource `type` a device has: the profile's, or the machine's CPUs. */
ACLRT_INTERNAL uint32_t aclrt_res_cores(aclrtDevResLimitType type)
{
    const struct aclrt_profile *p = aclrt_device_profile();
    uint32_t n = type == ACL_RT_DEV_RES_CUBE_CORE ? p->cube : p->vector;
    return n != 0 ? n : aclrt_machine_cpus();
}

/* The device's global memory in bytes: the profile's, or the machine's RAM (0 if the system does not say). */
ACLRT_INTERNAL int64_t aclrt_device_memory(void)
{
    const struct aclrt_profile *p = aclrt_device_profile();
    return p->memory != 0 ? (int64_t)p->memory : aclrt_machine_ram();
}

/* Whether the device's memory is a registered backend's, of a size aclrt does not know. */
static bool aclrt_device_memory_unknown(void)
{
    return aclrt_profile_is_host(aclrt_rt.config.profile) && aclrt_rt.embedder != NULL &&
           aclrt_rt.embedder->memAlloc != NULL;
}

/*
 * The process's resource limits of each device (lifecycle_lock). They
 * belong to the device's set: `owner` is the default context the device had
 * when they were set, and once the device is released (and set again, with
 * a new context) they no longer apply.
 */
#define ACLRT_RES_TYPES 2
static struct {
    void *owner;
    uint32_t value[ACLRT_RES_TYPES];
} aclrt_res_limits[ACLRT_MAX_DEVICES];

/* The limit of `type` on dev (lifecycle_lock held): the one set, or all the cores. */
static uint32_t aclrt_res_limit_locked(const struct aclrt_device *dev, aclrtDevResLimitType type)
{
    void *owner = aclrt_res_limits[dev->id].owner;
    if (owner != NULL && owner == dev->default_ctx_handle)
        return aclrt_res_limits[dev->id].value[type];
    return aclrt_res_cores(type);
}

static aclError aclrt_res_type_check(aclrtDevResLimitType type)
{
    if ((unsigned)type >= ACLRT_RES_TYPES)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "resource type %d is outside [0, 2)", (int)type);
    return ACL_SUCCESS;
}

/* A valid device that is set, with lifecycle_lock taken (the caller unlocks), or an error (not locked). */
static aclError aclrt_res_device_lock(int32_t deviceId, struct aclrt_device **out)
{
    aclError rc = aclrt_device_check(deviceId, out);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    if ((*out)->default_ctx_handle == NULL) {
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return aclrt_fail(ACL_ERROR_RT_DEV_SETUP_ERROR, "device %d is not set: call aclrtSetDevice first", (int)deviceId);
    }
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    if (deviceId >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "device id %u is out of range [0, %u)", deviceId,
                          aclrt_rt.device_count);
    const struct aclrt_profile *p = aclrt_device_profile();
    switch (attr) {
    case ACL_DEV_ATTR_AICPU_CORE_NUM: *value = p->aicpu != 0 ? p->aicpu : aclrt_machine_cpus(); return ACL_SUCCESS;
    case ACL_DEV_ATTR_AICORE_CORE_NUM: *value = p->aicore != 0 ? p->aicore : aclrt_machine_cpus(); return ACL_SUCCESS;
    case ACL_DEV_ATTR_VECTOR_CORE_NUM: *value = aclrt_res_cores(ACL_RT_DEV_RES_VECTOR_CORE); return ACL_SUCCESS;
    case ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE: *value = (int64_t)p->ubuf; return ACL_SUCCESS;
    case ACL_DEV_ATTR_CUBE_CORE_NUM:
        pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
        *value = aclrt_res_limit_locked(&aclrt_rt.devices[deviceId], ACL_RT_DEV_RES_CUBE_CORE);
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return ACL_SUCCESS;
    case ACL_DEV_ATTR_WARP_SIZE:
    case ACL_DEV_ATTR_MAX_THREAD_PER_VECTOR_CORE:
    case ACL_DEV_ATTR_MAX_GRID_DIM_X:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Y:
    case ACL_DEV_ATTR_MAX_GRID_DIM_Z:
    case ACL_DEV_ATTR_MAX_BLOCK_PER_GRID:
    case ACL_DEV_ATTR_MAX_THREADS_PER_BLOCK:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_X:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Y:
    case ACL_DEV_ATTR_MAX_BLOCK_DIM_Z: *value = 0; return ACL_SUCCESS; /* no SIMT */
    case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE:
        if (aclrt_device_memory_unknown())
            return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                              "the memory of device %u is the %s backend's, whose size aclrt does not know", deviceId,
                              aclrt_rt.embedder->name);
        if ((*value = aclrt_device_memory()) == 0)
            return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the system does not say how much RAM it has");
        return ACL_SUCCESS;
    case ACL_DEV_ATTR_L2_CACHE_SIZE:
        if ((*value = p->l2 != 0 ? (int64_t)p->l2 : aclrt_machine_l2()) == 0)
            return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the system does not say how large the CPU's L2 is");
        return ACL_SUCCESS;
    case ACL_DEV_ATTR_SMP_ID:
    case ACL_DEV_ATTR_PHY_CHIP_ID:
    case ACL_DEV_ATTR_IS_VIRTUAL: *value = 0; return ACL_SUCCESS;
    case ACL_DEV_ATTR_SUPER_POD_DEVICE_ID:
    case ACL_DEV_ATTR_SUPER_POD_SERVER_ID:
    case ACL_DEV_ATTR_SUPER_POD_ID:
    case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
    case ACL_DEV_ATTR_MAINBOARD_ID:
    case ACL_DEV_ATTR_HD_CONNECT_TYPE:
    case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
    case ACL_DEV_ATTR_NPU_ARCH:
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "attribute %d describes NPU hardware that device %u (%s) does not emulate", (int)attr,
                          deviceId, p->name);
    }
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not a device attribute (aclrtDevAttr)", (int)attr);
}

ACLRT_API aclError aclrtGetMemInfo(aclrtMemAttr attribute, size_t *free, size_t *total)
{
    ACLRT_ENTER();
    if (free == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "free (output) is NULL");
    if (total == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "total (output) is NULL");
    if ((unsigned)attribute > (unsigned)ACL_MEM_P2P_HUGE1G)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "unknown memory attribute %d", (int)attribute);
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_device_memory_unknown())
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "the memory of device %u is the %s backend's, whose size aclrt does not know",
                          ctx->device->id, aclrt_rt.embedder->name);
    int64_t ram = aclrt_device_memory();
    if (ram <= 0)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the system does not say how much RAM it has");
    size_t all = (uint64_t)ram > SIZE_MAX ? SIZE_MAX : (size_t)ram;
    size_t used = aclrt_mem_device_bytes(ctx->device);
    *total = all;
    *free = used < all ? all - used : 0;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType, int32_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    if (devFeatureType != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV &&
        devFeatureType != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not a device feature (aclrtDevFeatureType)",
                          (int)devFeatureType);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    *value = ACL_DEV_FEATURE_NOT_SUPPORT; /* no task update of launched kernels, no memory queues */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus)
{
    ACLRT_ENTER();
    if (deviceStatus == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceStatus (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    /* A device its backend lost (a GPU context lost to a kernel fault: for the process, backend.h). */
    bool lost = aclrt_rt.backend->device_error != NULL && aclrt_rt.backend->device_error(dev) != ACL_SUCCESS;
    *deviceStatus = lost ? ACL_RT_DEVICE_STATUS_ABNORMAL : ACL_RT_DEVICE_STATUS_NORMAL;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo)
{
    ACLRT_ENTER();
    (void)deviceId; /* a rate that cannot be had is -1, whatever the device */
    if (utilizationInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "utilizationInfo (output) is NULL");
    if (utilizationInfo->utilizationExtend != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "utilizationInfo->utilizationExtend is reserved and must be NULL");
    utilizationInfo->cubeUtilization = -1;
    utilizationInfo->vectorUtilization = -1;
    utilizationInfo->aicpuUtilization = -1;
    utilizationInfo->memoryUtilization = -1;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    aclError rc = aclrt_res_type_check(type);
    struct aclrt_device *dev;
    if (rc != ACL_SUCCESS || (rc = aclrt_res_device_lock(deviceId, &dev)) != ACL_SUCCESS)
        return rc;
    *value = aclrt_res_limit_locked(dev, type);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value)
{
    ACLRT_ENTER();
    aclError rc = aclrt_res_type_check(type);
    struct aclrt_device *dev;
    if (rc != ACL_SUCCESS || (rc = aclrt_res_device_lock(deviceId, &dev)) != ACL_SUCCESS)
        return rc;
    uint32_t cores = aclrt_res_cores(type);
    if (value > cores) {
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "limit %u exceeds the %u %s cores of device %d (%s)", value,
                          cores, type == ACL_RT_DEV_RES_CUBE_CORE ? "cube" : "vector", (int)deviceId,
                          aclrt_device_profile()->name);
    }
    if (aclrt_res_limits[dev->id].owner != dev->default_ctx_handle) { /* the first limit of this set */
        aclrt_res_limits[dev->id].owner = dev->default_ctx_handle;
        for (int t = 0; t < ACLRT_RES_TYPES; t++)
            aclrt_res_limits[dev->id].value[t] = aclrt_res_cores((aclrtDevResLimitType)t);
    }
    aclrt_res_limits[dev->id].value[type] = value;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtResetDeviceResLimit(int32_t deviceId)
{
    ACLRT_ENTER();
    struct aclrt_device *dev;
    aclError rc = aclrt_res_device_lock(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_res_limits[dev->id].owner = NULL;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return ACL_SUCCESS;
}

/* The stream whose limits this thread uses (aclrtUseStreamResInCurrentThread), as a handle; NULL: none. */
static _Thread_local void *aclrt_res_thread_stream ACLRT_TLS_MODEL;

ACLRT_API aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    aclError rc = aclrt_res_type_check(type);
    struct aclrt_context *ctx;
    if (rc != ACL_SUCCESS || (rc = aclrt_current_context(&ctx)) != ACL_SUCCESS)
        return rc;
    struct aclrt_stream *used = aclrt_res_thread_stream != NULL ? aclrt_stream_lookup(aclrt_res_thread_stream) : NULL;
    if (used != NULL && used->device == ctx->device) {
        uint32_t v = atomic_load_explicit(&used->res_limit[type], memory_order_relaxed);
        if (v != ACLRT_RES_UNSET) {
            *value = v;
            return ACL_SUCCESS;
        }
    }
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    *value = aclrt_res_limit_locked(ctx->device, type);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve_output(stream, value, "value", &s);
    if (rc != ACL_SUCCESS || (rc = aclrt_res_type_check(type)) != ACL_SUCCESS)
        return rc;
    uint32_t v = atomic_load_explicit(&s->res_limit[type], memory_order_relaxed);
    if (v == ACLRT_RES_UNSET) { /* the process's limit of the stream's device, or all its cores */
        pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
        v = aclrt_res_limit_locked(s->device, type);
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    }
    *value = v;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS || (rc = aclrt_res_type_check(type)) != ACL_SUCCESS)
        return rc;
    uint32_t cores = aclrt_res_cores(type);
    if (value > cores)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "limit %u exceeds the %u %s cores of device %u (%s)", value,
                          cores, type == ACL_RT_DEV_RES_CUBE_CORE ? "cube" : "vector", s->device->id,
                          aclrt_device_profile()->name);
    atomic_store_explicit(&s->res_limit[type], value, memory_order_relaxed);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtResetStreamResLimit(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    for (int t = 0; t < ACLRT_RES_TYPES; t++)
        atomic_store_explicit(&s->res_limit[t], ACLRT_RES_UNSET, memory_order_relaxed);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtUseStreamResInCurrentThread(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_res_thread_stream = aclrt_stream_handle(s);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream)
{
    ACLRT_ENTER();
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, false, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_res_thread_stream == aclrt_stream_handle(s)) /* another stream's use stays */
        aclrt_res_thread_stream = NULL;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYSTEM_DEVICE_INFO_H */
