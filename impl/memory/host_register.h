/*
 * impl/memory/host_register.h - host memory registered for the devices (aclrtHostRegister, V2, Unregister).
 *
 * A registration is a range of the program's host memory (malloc'd or
 * mapped: page-aligned; or aclrtMallocHost's) that the devices may reach. The
 * host backend's devices reach host memory as it is, so the device address
 * of a registered byte is its host address; a backend whose devices cannot
 * (the cuda backend) pins and maps the range through its mem_mapped hook,
 * unless the range lies in memory the runtime allocated (aclrtMallocHost
 * memory is mapped for the devices already). The ranges are kept sorted by
 * address under a mutex (registration is rare), so that a second
 * registration of an overlapping range, a device pointer of memory never
 * registered and an unregistration of an address that starts none are
 * error codes. aclFinalize drops what is left (aclrt_host_register_clear).
 */
#ifndef ACLRT_IMPL_MEMORY_HOST_REGISTER_H
#define ACLRT_IMPL_MEMORY_HOST_REGISTER_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../context/context.h"
#include "memory.h"
#include "physmem.h"

struct aclrt_host_reg {
    uintptr_t base;
    size_t size;
    bool mapped; /* handed to the backend's mem_mapped (to undo at unregistration) */
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_host_reg *items; /* sorted by base, never overlapping */
    size_t count, capacity;
} aclrt_host_regs = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Index of the first registration with base > addr (under the lock). */
static size_t aclrt_host_reg_upper(uintptr_t addr)
{
    size_t lo = 0, hi = aclrt_host_regs.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (aclrt_host_regs.items[mid].base <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The registration holding addr, copied to *out; false if none. */
static bool aclrt_host_reg_find(const void *addr, struct aclrt_host_reg *out)
{
    uintptr_t a = (uintptr_t)addr;
    pthread_mutex_lock(&aclrt_host_regs.lock);
    size_t at = aclrt_host_reg_upper(a);
    bool found = at > 0 && a - aclrt_host_regs.items[at - 1].base < aclrt_host_regs.items[at - 1].size;
    if (found)
        *out = aclrt_host_regs.items[at - 1];
    pthread_mutex_unlock(&aclrt_host_regs.lock);
    return found;
}

static aclError aclrt_host_register(void *ptr, uint64_t size)
{
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx); /* a device must be set, as for any device memory */
    if (rc != ACL_SUCCESS)
        return rc;
    size_t page = aclrt_page_size();
    uintptr_t base = (uintptr_t)ptr;
    /* CANN's pinned host memory is page-aligned; ours is 64-byte aligned, and taken as it comes. */
    if (base % page != 0 && !aclrt_mem_is_ours(ptr, 1))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "ptr %p is not aligned to the page size (%zu bytes)", ptr, page);
    if (size > (uint64_t)(UINTPTR_MAX - base))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "the range of %llu bytes at %p wraps around the address space",
                          (unsigned long long)size, ptr);
    struct aclrt_host_reg r = {base, (size_t)size, false};
    pthread_mutex_lock(&aclrt_host_regs.lock);
    size_t at = aclrt_host_reg_upper(base);
    const struct aclrt_host_reg *before = at > 0 ? &aclrt_host_regs.items[at - 1] : NULL;
    const struct aclrt_host_reg *after = at < aclrt_host_regs.count ? &aclrt_host_regs.items[at] : NULL;
    if ((before != NULL && base - before->base < before->size) || (after != NULL && after->base - base < r.size)) {
        const struct aclrt_host_reg *o = before != NULL && base - before->base < before->size ? before : after;
        pthread_mutex_unlock(&aclrt_host_regs.lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "[%p, +%zu) overlaps the registered range [%p, +%zu): unregister it first", ptr, r.size,
                          (void *)o->base, o->size);
    }
    if (aclrt_host_regs.count == aclrt_host_regs.capacity) {
        size_t cap = aclrt_host_regs.capacity ? aclrt_host_regs.capacity * 2 : 16;
        struct aclrt_host_reg *items = (struct aclrt_host_reg *)realloc(aclrt_host_regs.items, cap * sizeof *items);
        if (items == NULL) {
            pthread_mutex_unlock(&aclrt_host_regs.lock);
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a registration");
        }
        aclrt_host_regs.items = items;
        aclrt_host_regs.capacity = cap;
    }
    /* The runtime's own allocations are reachable already; other memory the backend maps (cuMemHostRegister). */
    r.mapped = aclrt_rt.backend->mem_mapped != NULL && !aclrt_mem_is_ours(ptr, r.size);
    memmove(&aclrt_host_regs.items[at + 1], &aclrt_host_regs.items[at],
            (aclrt_host_regs.count - at) * sizeof *aclrt_host_regs.items);
    aclrt_host_regs.items[at] = r;
    aclrt_host_regs.count++;
    pthread_mutex_unlock(&aclrt_host_regs.lock);
    if (r.mapped)
        aclrt_rt.backend->mem_mapped(ptr, r.size, true);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    ACLRT_ENTER();
    if (ptr == NULL || devPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", ptr == NULL ? "ptr" : "devPtr (output)");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (type == ACL_HOST_REGISTER_IOMEMORY || type == ACL_HOST_REGISTER_READONLY)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "registration type %d (IO memory, read-only) is reserved: only ACL_HOST_REGISTER_MAPPED is supported",
                          (int)type);
    if (type != ACL_HOST_REGISTER_MAPPED)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not a registration type (aclrtHostRegisterType)", (int)type);
    aclError rc = aclrt_host_register(ptr, size);
    if (rc == ACL_SUCCESS)
        *devPtr = ptr; /* the devices reach the memory at its host address */
    return rc;
}

ACLRT_API aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    const uint64_t known = ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;
    if (flag == 0 || (flag & ~known) != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flag 0x%x is not a combination of ACL_HOST_REG_MAPPED, _IOMEMORY, _READONLY, _PINNED", flag);
    if (flag & (ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "flag 0x%x: ACL_HOST_REG_IOMEMORY and ACL_HOST_REG_READONLY are reserved", flag);
    if ((flag & ACL_HOST_REG_PINNED) && aclrt_mem_is_ours(ptr, 1))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "ACL_HOST_REG_PINNED is for pageable memory; %p is the runtime's pinned memory", ptr);
    return aclrt_host_register(ptr, size);
}

ACLRT_API aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
    ACLRT_ENTER();
    if (pHost == NULL || pDevice == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", pHost == NULL ? "pHost" : "pDevice (output)");
    if (flag != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flag %u is reserved and must be 0", flag);
    struct aclrt_host_reg r;
    if (!aclrt_host_reg_find(pHost, &r))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%p is in no range registered with aclrtHostRegister or aclrtHostRegisterV2", pHost);
    *pDevice = pHost;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtHostUnregister(void *ptr)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    pthread_mutex_lock(&aclrt_host_regs.lock);
    size_t at = aclrt_host_reg_upper((uintptr_t)ptr);
    bool found = at > 0 && aclrt_host_regs.items[at - 1].base == (uintptr_t)ptr;
    struct aclrt_host_reg r = {0, 0, false};
    if (found) {
        r = aclrt_host_regs.items[at - 1];
        memmove(&aclrt_host_regs.items[at - 1], &aclrt_host_regs.items[at],
                (aclrt_host_regs.count - at) * sizeof *aclrt_host_regs.items);
        aclrt_host_regs.count--;
    }
    pthread_mutex_unlock(&aclrt_host_regs.lock);
    if (!found)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p starts no registered range (or was unregistered already)",
                          ptr);
    if (r.mapped && aclrt_rt.backend != NULL && aclrt_rt.backend->mem_mapped != NULL)
        aclrt_rt.backend->mem_mapped(ptr, r.size, false);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
                                               aclrtHostMemMapCapability *capabilities)
{
    ACLRT_ENTER();
    if (capabilities == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "capabilities (output) is NULL");
    if ((int)hacType < (int)ACL_RT_HAC_TYPE_STARS || (int)hacType > (int)ACL_RT_HAC_TYPE_CCU)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not an accelerator type (aclrtHacType)", (int)hacType);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId > INT32_MAX ? -1 : (int32_t)deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Every engine of a device is a CPU thread here, and each reaches registered host memory. */
    *capabilities = ACL_RT_HOST_MEM_MAP_SUPPORTED;
    return ACL_SUCCESS;
}

/* aclFinalize: the registrations end with the runtime (the backend's mappings first). */
ACLRT_INTERNAL void aclrt_host_register_clear(void)
{
    pthread_mutex_lock(&aclrt_host_regs.lock);
    for (size_t i = 0; i < aclrt_host_regs.count; i++) {
        const struct aclrt_host_reg *r = &aclrt_host_regs.items[i];
        if (r->mapped && aclrt_rt.backend != NULL && aclrt_rt.backend->mem_mapped != NULL)
            aclrt_rt.backend->mem_mapped((void *)r->base, r->size, false);
    }
    free(aclrt_host_regs.items);
    aclrt_host_regs.items = NULL;
    aclrt_host_regs.count = aclrt_host_regs.capacity = 0;
    pthread_mutex_unlock(&aclrt_host_regs.lock);
}

#endif /* ACLRT_IMPL_MEMORY_HOST_REGISTER_H */
