/*
 * impl/memory/vmm.h - virtual memory management: ranges of reserved
 * addresses and the physical memory (physmem.h) mapped into them,
 * aclrtReserveMemAddress / ReleaseMemAddress, aclrtMapMem / UnmapMem,
 * access rights (aclrtMemSetAccess / GetAccess), and what a mapping or a
 * handle says (aclrtMemRetainAllocationHandle,
 * aclrtMemGetAllocationPropertiesFromHandle), links (aclrtMemMapSetLink,
 * aclrtMemMapSelectedLink: a second mapping of the same block) and
 * aclrtReserveMemAddressNoUCMemory.
 *
 * On a CPU this is what an MMU does for a device, so it is done for real:
 *   - a reservation is an inaccessible anonymous mapping (PROT_NONE) of the
 *     requested size, aligned to 2 MiB (1 GiB from 1 GiB on);
 *   - mapping a block (a memory file) replaces a granularity-aligned part
 *     of a reservation with a shared mapping of the file (MAP_FIXED |
 *     MAP_SHARED), so two mappings of one block are the same memory;
 *     unmapping puts the PROT_NONE mapping back.
 * A mapping is entered in the allocation registry (memory.h) as
 * ACLRT_MEM_MAPPED with the block's device, so copies, value operations and
 * built-in tasks treat it as that device's memory (and aclrtFree refuses it).
 *
 * Reservations and mappings are entries of physmem.h's registry, under its
 * lock; aclFinalize releases what is left of them there.
 */
#ifndef ACLRT_IMPL_MEMORY_VMM_H
#define ACLRT_IMPL_MEMORY_VMM_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../context/context.h"
#include "memory.h"
#include "physmem.h"

#include <sys/mman.h>

static struct aclrt_vrange *aclrt_vrange_containing(uintptr_t a, size_t len)
{
    for (size_t i = 0; i < aclrt_physmem.ranges.count; i++) {
        struct aclrt_vrange *r = (struct aclrt_vrange *)aclrt_physmem.ranges.items[i];
        if (a >= r->base && a - r->base <= r->size && len <= r->size - (a - r->base))
            return r;
    }
    return NULL;
}

static aclError aclrt_vmm_reserve(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags);

ACLRT_API aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                          uint64_t flags)
{
    ACLRT_ENTER();
    return aclrt_vmm_reserve(virPtr, size, alignment, expectPtr, flags);
}

/* aclrtReserveMemAddress (and aclrtReserveMemAddressNoUCMemory, which checks more first). */
static aclError aclrt_vmm_reserve(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags)
{
    if (virPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "virPtr (output) is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0 && flags != 1)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags %llu must be 0", (unsigned long long)flags);
    if (alignment != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "alignment %zu is reserved and must be 0", alignment);
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    size_t page = aclrt_page_size();
    size_t align = size >= ACLRT_PHYSMEM_HUGE1G ? ACLRT_PHYSMEM_HUGE1G : ACLRT_PHYSMEM_HUGE;
    if (size > SIZE_MAX - 2 * align)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot reserve %zu bytes of addresses", size);
    size_t length = (size + page - 1) / page * page;
    void *p;
    if (expectPtr != NULL) {
        if ((uintptr_t)expectPtr % page != 0)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "expectPtr %p is not page aligned", expectPtr);
        p = mmap(expectPtr, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1,
                 0);
        if (p != MAP_FAILED && p != expectPtr) { /* a kernel that ignores MAP_FIXED_NOREPLACE */
            munmap(p, length);
            p = MAP_FAILED;
        }
        if (p == MAP_FAILED)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "cannot reserve %zu bytes at %p: addresses in use", size,
                              expectPtr);
    } else {
        void *raw = mmap(NULL, length + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (raw == MAP_FAILED)
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot reserve %zu bytes of addresses", size);
        uintptr_t base = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
        if (base > (uintptr_t)raw)
            munmap(raw, base - (uintptr_t)raw);
        size_t tail = (uintptr_t)raw + length + align - (base + length);
        if (tail > 0)
            munmap((void *)(base + length), tail);
        p = (void *)base;
    }
    struct aclrt_vrange *r = (struct aclrt_vrange *)malloc(sizeof *r);
    bool ok = r != NULL;
    if (ok) {
        r->base = (uintptr_t)p;
        r->size = length;
        aclrt_physmem_hook();
        pthread_mutex_lock(&aclrt_physmem.lock);
        ok = aclrt_ptr_set_add(&aclrt_physmem.ranges, r);
        pthread_mutex_unlock(&aclrt_physmem.lock);
    }
    if (!ok) {
        free(r);
        munmap(p, length);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a reservation");
    }
    *virPtr = p;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtReleaseMemAddress(void *virPtr)
{
    ACLRT_ENTER();
    if (virPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
    aclError rc = ACL_SUCCESS;
    struct aclrt_vrange *r = NULL;
    pthread_mutex_lock(&aclrt_physmem.lock);
    size_t at = 0;
    for (; at < aclrt_physmem.ranges.count; at++)
        if (((struct aclrt_vrange *)aclrt_physmem.ranges.items[at])->base == (uintptr_t)virPtr)
            break;
    if (at == aclrt_physmem.ranges.count) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not the start of a range from aclrtReserveMemAddress",
                        virPtr);
    } else {
        r = (struct aclrt_vrange *)aclrt_physmem.ranges.items[at];
        for (size_t i = 0; i < aclrt_physmem.maps.count && rc == ACL_SUCCESS; i++) {
            struct aclrt_mapping *m = (struct aclrt_mapping *)aclrt_physmem.maps.items[i];
            if (m->base >= r->base && m->base - r->base < r->size)
                rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                                "the range at %p still has memory mapped at %p: aclrtUnmapMem it first", virPtr,
                                (void *)m->base);
        }
        if (rc == ACL_SUCCESS)
            aclrt_ptr_set_remove(&aclrt_physmem.ranges, at);
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (rc != ACL_SUCCESS)
        return rc;
    munmap((void *)r->base, r->size);
    free(r);
    return ACL_SUCCESS;
}

static struct aclrt_mapping *aclrt_mapping_at(uintptr_t a, bool start_only, size_t *at)
{
    for (size_t i = 0; i < aclrt_physmem.maps.count; i++) {
        struct aclrt_mapping *m = (struct aclrt_mapping *)aclrt_physmem.maps.items[i];
        if (start_only ? a == m->base : (a >= m->base && a - m->base < m->size)) {
            if (at != NULL)
                *at = i;
            return m;
        }
    }
    return NULL;
}

static aclError aclrt_physmem_map_locked(uintptr_t a, size_t size, struct aclrt_pmem *mem)
{
    if ((size + mem->granularity - 1) / mem->granularity * mem->granularity != mem->size)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "size %zu is not the size of the physical memory (%zu, granularity %zu): a block is mapped whole",
                          size, mem->size, mem->granularity);
    if (a % mem->granularity != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "virPtr %p is not aligned to the granularity %zu", (void *)a,
                          mem->granularity);
    struct aclrt_vrange *r = aclrt_vrange_containing(a, mem->size);
    if (r == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "[%p, +%zu) is not inside one range reserved with aclrtReserveMemAddress", (void *)a,
                          mem->size);
    for (size_t i = 0; i < aclrt_physmem.maps.count; i++) {
        struct aclrt_mapping *m = (struct aclrt_mapping *)aclrt_physmem.maps.items[i];
        bool in_range = m->base >= r->base && m->base - r->base < r->size;
        if (in_range && m->mem->device != mem->device)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "the reserved range at %p already maps memory of another device (or of the host)",
                              (void *)r->base);
        if (a < m->base + m->size && m->base < a + mem->size)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) overlaps the mapping at %p", (void *)a, mem->size,
                              (void *)m->base);
    }
    struct aclrt_mapping *m = (struct aclrt_mapping *)calloc(1, sizeof *m);
    if (m == NULL || !aclrt_ptr_set_add(&aclrt_physmem.maps, m)) {
        free(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a mapping");
    }
    void *p = mmap((void *)a, mem->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, mem->fd, 0);
    if (p == MAP_FAILED || !aclrt_mem_register(a, mem->size, ACLRT_MEM_MAPPED, mem->device)) {
        if (p != MAP_FAILED)
            mmap((void *)a, mem->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        aclrt_physmem.maps.count--; /* the entry just added */
        free(m);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot map %zu bytes at %p", mem->size, (void *)a);
    }
    m->base = a;
    m->size = mem->size;
    m->mem = mem;
    /* aclrtMapMem gives the memory's own device (every device, for host memory) read and write access. */
    for (uint32_t d = 0; d < ACLRT_MAX_DEVICES; d++)
        m->access[d] = mem->device == NULL || mem->device->id == d ? ACL_RT_MEM_ACCESS_FLAGS_READWRITE
                                                                   : ACL_RT_MEM_ACCESS_FLAGS_NONE;
    mem->refs++;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)
{
    ACLRT_ENTER();
    if (virPtr == NULL || handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", virPtr == NULL ? "virPtr" : "handle");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags 0x%llx is reserved and must be 0", (unsigned long long)flags);
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *h = aclrt_pmem_handle_find(handle, NULL);
    aclError rc;
    if (h == NULL)
        rc = aclrt_pmem_bad_handle(handle);
    else if (offset != 0)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "offset %zu must be 0", offset);
    else
        rc = aclrt_physmem_map_locked((uintptr_t)virPtr, size, h->mem);
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return rc;
}

ACLRT_API aclError aclrtUnmapMem(void *virPtr)
{
    ACLRT_ENTER();
    if (virPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "virPtr is NULL");
    pthread_mutex_lock(&aclrt_physmem.lock);
    size_t at;
    struct aclrt_mapping *m = aclrt_mapping_at((uintptr_t)virPtr, true, &at);
    if (m != NULL) {
        struct aclrt_allocation gone;
        aclrt_mem_unregister(m->base, ACLRT_MEM_MAPPED, &gone);
        /* Back to reserved, inaccessible addresses. */
        mmap((void *)m->base, m->size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        aclrt_ptr_set_remove(&aclrt_physmem.maps, at);
        aclrt_pmem_put(m->mem);
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not the start of a mapping made by aclrtMapMem", virPtr);
    free(m);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Access rights
 * ------------------------------------------------------------------------ */

static bool aclrt_access_flags_valid(aclrtMemAccessFlags f)
{
    return f == ACL_RT_MEM_ACCESS_FLAGS_NONE || f == ACL_RT_MEM_ACCESS_FLAGS_READ ||
           f == ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
}

ACLRT_API aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
    ACLRT_ENTER();
    if (virPtr == NULL || desc == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s is NULL", virPtr == NULL ? "virPtr" : "desc");
    if (count == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count is 0");
    for (size_t i = 0; i < count; i++) {
        if (!aclrt_access_flags_valid(desc[i].flags))
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "desc[%zu].flags %d is not an aclrtMemAccessFlags", i,
                              (int)desc[i].flags);
        if (desc[i].location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "desc[%zu].location.type %d must be ACL_MEM_LOCATION_TYPE_DEVICE",
                              i, (int)desc[i].location.type);
        struct aclrt_device *dev;
        aclError rc = aclrt_device_check((int32_t)desc[i].location.id, &dev);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_mapping *m = aclrt_mapping_at((uintptr_t)virPtr, true, NULL);
    if (m == NULL || (size + m->mem->granularity - 1) / m->mem->granularity * m->mem->granularity != m->size) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not a mapping made by aclrtMapMem", virPtr, size);
    } else {
        uint8_t access[ACLRT_MAX_DEVICES];
        memcpy(access, m->access, sizeof access);
        for (size_t i = 0; i < count; i++)
            access[desc[i].location.id] = (uint8_t)desc[i].flags;
        /* One address space for every device: the protection is what the most permitted device may do. */
        int prot = PROT_NONE;
        for (uint32_t d = 0; d < ACLRT_MAX_DEVICES; d++) {
            if (access[d] == ACL_RT_MEM_ACCESS_FLAGS_READWRITE)
                prot = PROT_READ | PROT_WRITE;
            else if (access[d] == ACL_RT_MEM_ACCESS_FLAGS_READ && prot == PROT_NONE)
                prot = PROT_READ;
        }
        if (mprotect((void *)m->base, m->size, prot) != 0)
            rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "cannot change the protection of [%p, +%zu)", virPtr, m->size);
        else
            memcpy(m->access, access, sizeof access);
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return rc;
}

ACLRT_API aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag)
{
    ACLRT_ENTER();
    if (virPtr == NULL || location == NULL || flag == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                          virPtr == NULL ? "virPtr" : location == NULL ? "location" : "flag (output)");
    if (location->type != ACL_MEM_LOCATION_TYPE_DEVICE)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "location->type %d must be ACL_MEM_LOCATION_TYPE_DEVICE",
                          (int)location->type);
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check((int32_t)location->id, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_mapping *m = aclrt_mapping_at((uintptr_t)virPtr, false, NULL);
    if (m != NULL)
        *flag = m->access[dev->id];
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (m == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not inside a mapping made by aclrtMapMem", virPtr);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * What mappings and handles say; links
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                    uint64_t flags)
{
    ACLRT_ENTER();
    if (virPtr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "virPtr (output) is NULL");
    if (expectPtr == NULL)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "expectPtr is NULL: this reservation is only at an address the caller chooses");
    if (size == 0 || size % ACLRT_PHYSMEM_HUGE1G != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size %zu is not a positive multiple of 1 GiB", size);
    /* The CPU caches all memory: a reservation without uncached memory is any reservation. */
    return aclrt_vmm_reserve(virPtr, size, alignment, expectPtr, flags);
}

ACLRT_API aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
    ACLRT_ENTER();
    if (virPtr == NULL || handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", virPtr == NULL ? "virPtr" : "handle (output)");
    struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)calloc(1, sizeof *h);
    if (h == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a physical memory handle");
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_mapping *m = aclrt_mapping_at((uintptr_t)virPtr, true, NULL);
    if (m == NULL) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not the start of a mapping made by aclrtMapMem", virPtr);
    } else if (!aclrt_ptr_set_add(&aclrt_physmem.handles, h)) {
        rc = aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a physical memory handle");
    } else {
        /* A handle of its own (freed with aclrtFreePhysical), to the block: not its export. */
        h->id = ++aclrt_physmem.next_id;
        h->mem = m->mem;
        m->mem->refs++;
        *handle = aclrt_pmem_handle_value(h);
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (rc != ACL_SUCCESS)
        free(h);
    return rc;
}

ACLRT_API aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop)
{
    ACLRT_ENTER();
    if (handle == NULL || prop == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle" : "prop (output)");
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *h = aclrt_pmem_handle_find(handle, NULL);
    if (h != NULL) {
        memset(prop, 0, sizeof *prop);
        prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
        prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
        prop->memAttr = h->mem->attr;
        prop->location = h->mem->location;
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return h != NULL ? ACL_SUCCESS : aclrt_pmem_bad_handle(handle);
}

ACLRT_API aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if ((unsigned)adviceLink > (unsigned)ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH)
        return aclrt_fail(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED, "adviceLink %d is not an aclrtMemLinkType",
                          (int)adviceLink);
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *h = aclrt_pmem_handle_find(handle, NULL);
    if (h != NULL)
        h->mem->link = (int)adviceLink; /* recorded: every device reaches the memory the same way */
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return h != NULL ? ACL_SUCCESS : aclrt_pmem_bad_handle(handle);
}

ACLRT_API aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx)
{
    ACLRT_ENTER();
    if (virPtrDst == NULL || virPtrSrc == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", virPtrDst == NULL ? "virPtrDst" : "virPtrSrc");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (linkIdx != ACL_RT_MEM_LINK_IDX_0 && linkIdx != ACL_RT_MEM_LINK_IDX_1)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "linkIdx %u is not ACL_RT_MEM_LINK_IDX_0 (SIO) or _1 (HCCS)",
                          linkIdx);
    aclError rc;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_mapping *src = aclrt_mapping_at((uintptr_t)virPtrSrc, true, NULL);
    if (src == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "virPtrSrc %p is not the start of a mapping made by aclrtMapMem",
                        virPtrSrc);
    else if (size != src->size)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "size %zu is not the size of the mapping at virPtrSrc (%zu)", size,
                        src->size);
    else if (aclrt_vrange_containing((uintptr_t)virPtrDst, 1) == NULL ||
             aclrt_vrange_containing((uintptr_t)virPtrDst, 1)->base != (uintptr_t)virPtrDst)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "virPtrDst %p is not the start of a range from aclrtReserveMemAddress",
                        virPtrDst);
    else
        rc = aclrt_physmem_map_locked((uintptr_t)virPtrDst, size, src->mem); /* through any link: the same block */
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return rc;
}

#endif /* ACLRT_IMPL_MEMORY_VMM_H */
