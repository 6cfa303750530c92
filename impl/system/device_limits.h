/*
 * impl/system/device_limits.h - the process's device limits
 * (aclrtDeviceSetLimit), the atomic operations a device's memory supports
 * from the host or a peer, the task scheduler a thread picks, and whether
 * a device's primary (default) context is active.
 *
 *   - Limits are process-wide: one value of each kind for every device, as
 *     the runtime keeps them (it sets them through device 0). They are
 *     checked and rounded as an Ascend910B-class SoC takes them, which every
 *     profile is (the "host" one too): the SIMD stack of an AI Core is
 *     32 KiB at least (a smaller value means 32 KiB), else rounded up to a
 *     multiple of 16 KiB and at most 192 KiB; the SIMD printf buffer of a
 *     core is within [1 KiB, 64 MiB], rounded up to 8 bytes. The SIMT
 *     limits are ACL_ERROR_RT_FEATURE_NOT_SUPPORT: these parts have no SIMT.
 *     The values are reported, not applied: a host kernel runs on its
 *     executor thread's stack and prints with the C library.
 *   - Atomic capabilities: the chip's table for a SoC profile (the
 *     Ascend910B-class parts support no atomics from the host or a peer
 *     device: every mask 0). The "host" profile on a backend whose device
 *     memory is host memory reports what the CPU does on it: integer
 *     operations on signed and unsigned 8- to 64-bit scalars, floating
 *     add/min/max on 32- and 64-bit (compare-and-swap loops), and no DMA
 *     or SIMD atomics; a peer device is the same memory.
 *   - aclrtSetTsDevice is a validated no-op: one set of executors runs AI
 *     Core and vector tasks alike, there is no scheduler to pick.
 */
#ifndef ACLRT_IMPL_SYSTEM_DEVICE_LIMITS_H
#define ACLRT_IMPL_SYSTEM_DEVICE_LIMITS_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/profile.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../context/context.h"

#define ACLRT_LIMIT_KIB ((size_t)1024)
#define ACLRT_SIMD_STACK_MIN (32 * ACLRT_LIMIT_KIB)
#define ACLRT_SIMD_STACK_MAX (192 * ACLRT_LIMIT_KIB)
#define ACLRT_SIMD_STACK_ALIGN (16 * ACLRT_LIMIT_KIB)
#define ACLRT_SIMD_PRINTF_MIN ACLRT_LIMIT_KIB
#define ACLRT_SIMD_PRINTF_MAX ((size_t)64 * 1024 * ACLRT_LIMIT_KIB)

/* The values set (0: the default), process-wide: relaxed, the runtime reads them for nothing else. */
static _Atomic size_t aclrt_simd_stack_limit;
static _Atomic size_t aclrt_simd_printf_limit;

static aclError aclrt_device_limit_check(aclrtDeviceLimit limit)
{
    if ((unsigned)limit > (unsigned)ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%d is not a device limit (aclrtDeviceLimit: [0, 4])", (int)limit);
    if (limit != ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE && limit != ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "device limit %d is a SIMT limit: the %s has no SIMT",
                          (int)limit, aclrt_profiles[aclrt_rt.config.profile].name);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value)
{
    ACLRT_ENTER();
    if ((unsigned)limit > (unsigned)ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%d is not a device limit (aclrtDeviceLimit: [0, 4])", (int)limit);
    if (value > UINT32_MAX)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "limit value %zu is outside [0, UINT32_MAX]", value);
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS || (rc = aclrt_device_limit_check(limit)) != ACL_SUCCESS)
        return rc;
    if (limit == ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE) {
        if (value > ACLRT_SIMD_STACK_MAX)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "SIMD stack size %zu exceeds %zu bytes", value,
                              ACLRT_SIMD_STACK_MAX);
        size_t v = value <= ACLRT_SIMD_STACK_MIN ? ACLRT_SIMD_STACK_MIN
                                                 : (value + ACLRT_SIMD_STACK_ALIGN - 1) & ~(ACLRT_SIMD_STACK_ALIGN - 1);
        atomic_store_explicit(&aclrt_simd_stack_limit, v, memory_order_relaxed);
        return ACL_SUCCESS;
    }
    if (value < ACLRT_SIMD_PRINTF_MIN || value > ACLRT_SIMD_PRINTF_MAX)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "SIMD printf buffer size %zu is outside [%zu, %zu] bytes", value,
                          ACLRT_SIMD_PRINTF_MIN, ACLRT_SIMD_PRINTF_MAX);
    atomic_store_explicit(&aclrt_simd_printf_limit, (value + 7) & ~(size_t)7, memory_order_relaxed);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value)
{
    ACLRT_ENTER();
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "value (output) is NULL");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS || (rc = aclrt_device_limit_check(limit)) != ACL_SUCCESS)
        return rc;
    size_t v = atomic_load_explicit(
        limit == ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE ? &aclrt_simd_stack_limit : &aclrt_simd_printf_limit,
        memory_order_relaxed);
    *value = v != 0 ? v : (limit == ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE ? ACLRT_SIMD_STACK_MIN : 32 * ACLRT_LIMIT_KIB);
    return ACL_SUCCESS;
}

/* What the CPU does atomically on host memory, by operation (the "host" profile). */
static uint32_t aclrt_cpu_atomic_caps(aclrtAtomicOperation op)
{
    const uint32_t ints = ACL_RT_ATOMIC_CAPABILITY_SIGNED | ACL_RT_ATOMIC_CAPABILITY_UNSIGNED |
                          ACL_RT_ATOMIC_CAPABILITY_SCALAR8 | ACL_RT_ATOMIC_CAPABILITY_SCALAR16 |
                          ACL_RT_ATOMIC_CAPABILITY_SCALAR32 | ACL_RT_ATOMIC_CAPABILITY_SCALAR64;
    if (op <= ACL_RT_ATOMIC_OPERATION_CAS)
        return ints;
    if (op <= ACL_RT_ATOMIC_OPERATION_FLOAT_MAX)
        return ACL_RT_ATOMIC_CAPABILITY_SIGNED | ACL_RT_ATOMIC_CAPABILITY_SCALAR32 | ACL_RT_ATOMIC_CAPABILITY_SCALAR64;
    return 0; /* DMA and SIMD atomics are a device's engines' */
}

static bool aclrt_atomic_op_valid(aclrtAtomicOperation op)
{
    return ((unsigned)op <= (unsigned)ACL_RT_ATOMIC_OPERATION_FLOAT_MAX) ||
           (op >= ACL_RT_ATOMIC_OPERATION_DMA_ADD && op <= ACL_RT_ATOMIC_OPERATION_DMA_MAX) ||
           (op >= ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_ADD && op <= ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH);
}

/* Fill capabilities for count operations (the device ids are checked). */
static aclError aclrt_atomic_caps(uint32_t *capabilities, const aclrtAtomicOperation *operations, uint32_t count)
{
    if (capabilities == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "capabilities (output) is NULL");
    if (operations == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "operations is NULL");
    if (count == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count is 0");
    for (uint32_t i = 0; i < count; i++)
        if (!aclrt_atomic_op_valid(operations[i]))
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "operations[%u] = %d is not an atomic operation", i,
                              (int)operations[i]);
    /* The device's memory is host memory: the host backend's own (no copy hook), no registered backend's. */
    bool cpu = aclrt_profile_is_host(aclrt_rt.config.profile) && aclrt_rt.backend->mem_copy == NULL &&
               (aclrt_rt.embedder == NULL || aclrt_rt.embedder->memAlloc == NULL);
    for (uint32_t i = 0; i < count; i++)
        capabilities[i] = cpu ? aclrt_cpu_atomic_caps(operations[i]) : 0;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities, const aclrtAtomicOperation *operations,
                                                        const uint32_t count, int32_t deviceId)
{
    ACLRT_ENTER();
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    return aclrt_atomic_caps(capabilities, operations, count);
}

ACLRT_API aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities, const aclrtAtomicOperation *operations,
                                                       const uint32_t count, int32_t srcDeviceId, int32_t dstDeviceId)
{
    ACLRT_ENTER();
    if (srcDeviceId == dstDeviceId)
        return aclrt_fail(ACL_ERROR_RT_INVALID_DEVICEID, "srcDeviceId and dstDeviceId are both %d: they must differ",
                          (int)srcDeviceId);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(srcDeviceId, &dev);
    if (rc != ACL_SUCCESS || (rc = aclrt_device_check(dstDeviceId, &dev)) != ACL_SUCCESS)
        return rc;
    return aclrt_atomic_caps(capabilities, operations, count);
}

ACLRT_API aclError aclrtSetTsDevice(aclrtTsId tsId)
{
    ACLRT_ENTER();
    if (tsId != ACL_TS_ID_AICORE && tsId != ACL_TS_ID_AIVECTOR)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "tsId %d is neither ACL_TS_ID_AICORE nor ACL_TS_ID_AIVECTOR",
                          (int)tsId);
    return ACL_SUCCESS; /* one set of executors runs AI Core and vector tasks: nothing to switch */
}

ACLRT_API aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active)
{
    ACLRT_ENTER();
    if (active == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "active (output) is NULL");
    if (flags != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags is reserved and must be NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    *active = dev->default_ctx != NULL && dev->set_count > 0;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_SYSTEM_DEVICE_LIMITS_H */
