/*
 * impl/memory/physmem.h - physical memory: aclrtMallocPhysical /
 * FreePhysical, allocation granularity, the handles that name blocks, and
 * the registry of blocks, reserved ranges and mappings that vmm.h (address
 * ranges, mappings, access rights) and ipc_physmem.h (sharing blocks
 * between processes) work on.
 *
 * On a CPU this is what an MMU does for a device, so it is done for real:
 * a physical block is a memory file (memfd), sized and committed
 * (fallocate) at allocation, its size rounded up to the granularity, and
 * mapping it (vmm.h) maps that file.
 *
 * A block lives while its handle or a mapping refers to it: aclrtFreePhysical
 * of a mapped block succeeds and the memory goes with the last unmap, as the
 * runtime documents. Handles are numbers (never pointers), so a freed or
 * garbage handle is ACL_ERROR_RT_INVALID_HANDLE, not a crash.
 *
 * All of this is rare and takes one mutex (aclrt_physmem.lock, which
 * vmm.h and ipc_physmem.h take too); lock order: this mutex, then the
 * registry's lock. aclFinalize releases everything (through the registry's
 * release_mapped hook).
 */
#ifndef ACLRT_IMPL_MEMORY_PHYSMEM_H
#define ACLRT_IMPL_MEMORY_PHYSMEM_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime_start.h"
#include "../context/context.h"
#include "../shm/segment.h"
#include "memory.h"

#include <fcntl.h>
#include <sys/mman.h>

#define ACLRT_PHYSMEM_HUGE ((size_t)2 << 20)
#define ACLRT_PHYSMEM_HUGE1G ((size_t)1 << 30)
#define ACLRT_PHYSMEM_HANDLE_TAG 0xADull /* the top byte of a physical memory handle */

/* One block of physical memory. */
struct aclrt_pmem {
    int fd;
    size_t size;                 /* rounded up to the granularity */
    size_t granularity;
    struct aclrt_device *device; /* NULL: host memory */
    unsigned refs;               /* its live handles + its mappings */
    aclrtMemAttr attr;           /* as allocated (aclrtMemGetAllocationPropertiesFromHandle) */
    aclrtMemLocation location;
    int link;                    /* aclrtMemMapSetLink's aclrtMemLinkType; -1: none chosen */
};

/* What a handle names: a block, and its export or the export it was imported from (ipc_physmem.h). */
struct aclrt_pmem_handle {
    uint64_t id;
    struct aclrt_pmem *mem;
    uint64_t shareable;          /* 0: neither exported nor imported */
    bool imported;               /* made by aclrtMemImportFromShareableHandle from `shareable` */
    struct aclrt_ipc_seg *share; /* exported: the segment `shareable` names (its allow-list) */
};

/* A range of reserved addresses (vmm.h). */
struct aclrt_vrange {
    uintptr_t base;
    size_t size;
};

/* A block mapped into a reserved range (vmm.h). */
struct aclrt_mapping {
    uintptr_t base;
    size_t size;
    struct aclrt_pmem *mem;
    uint8_t access[ACLRT_MAX_DEVICES]; /* aclrtMemAccessFlags recorded per device (aclrtMemGetAccess) */
};

/* A growable array of pointers; the order does not matter. */
struct aclrt_ptr_set {
    void **items;
    size_t count, capacity;
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_ptr_set handles, ranges, maps;
    uint64_t next_id;
} aclrt_physmem = {.lock = PTHREAD_MUTEX_INITIALIZER};

ACLRT_INTERNAL bool aclrt_ptr_set_add(struct aclrt_ptr_set *set, void *p)
{
    if (set->count == set->capacity) {
        size_t cap = set->capacity ? set->capacity * 2 : 16;
        void **items = (void **)realloc(set->items, cap * sizeof *items);
        if (items == NULL)
            return false;
        set->items = items;
        set->capacity = cap;
    }
    set->items[set->count++] = p;
    return true;
}

ACLRT_INLINE void aclrt_ptr_set_remove(struct aclrt_ptr_set *set, size_t at)
{
    set->items[at] = set->items[--set->count];
}

ACLRT_INTERNAL size_t aclrt_page_size(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return page > 0 ? (size_t)page : 4096;
}

/* ------------------------------------------------------------------------
 * Properties and granularity
 * ------------------------------------------------------------------------ */

static bool aclrt_physmem_attr_is_ddr(aclrtMemAttr attr)
{
    return attr == ACL_DDR_MEM_HUGE || attr == ACL_DDR_MEM_NORMAL || attr == ACL_DDR_MEM_P2P_HUGE ||
           attr == ACL_DDR_MEM_P2P_NORMAL;
}

/* The granularity of an attribute the runtime accepts, or 0 for one it refuses (ACL_DDR_MEM, ACL_HBM_MEM, ...). */
static size_t aclrt_physmem_attr_granularity(aclrtMemAttr attr)
{
    switch (attr) {
    case ACL_HBM_MEM_HUGE1G:
    case ACL_MEM_HUGE1G:
    case ACL_MEM_P2P_HUGE1G: return ACLRT_PHYSMEM_HUGE1G;
    case ACL_HBM_MEM_HUGE:
    case ACL_HBM_MEM_NORMAL: /* the runtime allocates it as huge pages */
    case ACL_DDR_MEM_HUGE:
    case ACL_DDR_MEM_P2P_HUGE:
    case ACL_MEM_HUGE:
    case ACL_MEM_P2P_HUGE: return ACLRT_PHYSMEM_HUGE;
    case ACL_DDR_MEM_NORMAL:
    case ACL_DDR_MEM_P2P_NORMAL:
    case ACL_MEM_NORMAL:
    case ACL_MEM_P2P_NORMAL: return aclrt_page_size();
    default: return 0;
    }
}

/*
 * Check a property as aclrtMallocPhysical and aclrtMemGetAllocationGranularity
 * do; gives the granularity and the device (NULL for the host).
 */
static aclError aclrt_physmem_prop_check(const aclrtPhysicalMemProp *prop, size_t *granularity,
                                         struct aclrt_device **device)
{
    aclrtMemLocationType where = prop->location.type;
    if (where == ACL_MEM_LOCATION_TYPE_UNREGISTERED || where == ACL_MEM_LOCATION_TYPE_MANAGED)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "prop->location.type %d is not a location physical memory can have",
                          (int)where);
    if (where == ACL_MEM_LOCATION_TYPE_DEVICE && aclrt_physmem_attr_is_ddr(prop->memAttr))
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "memAttr %d (DDR) is host memory: location type must be ACL_MEM_LOCATION_TYPE_HOST or _HOST_NUMA",
                          (int)prop->memAttr);
    size_t g = aclrt_physmem_attr_granularity(prop->memAttr);
    if (g == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "memAttr %d is not a physical memory attribute the runtime supports",
                          (int)prop->memAttr);
    *device = NULL;
    if (where == ACL_MEM_LOCATION_TYPE_DEVICE) {
        aclError rc = aclrt_device_check((int32_t)prop->location.id, device);
        if (rc != ACL_SUCCESS)
            return rc;
    } else if (where != ACL_MEM_LOCATION_TYPE_HOST && where != ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "prop->location.type %d is not an aclrtMemLocationType",
                          (int)where);
    } else if (g == ACLRT_PHYSMEM_HUGE1G) {
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "1 GiB pages (memAttr %d) are device memory only",
                          (int)prop->memAttr);
    }
    *granularity = g;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                                    size_t *granularity)
{
    ACLRT_ENTER();
    if (prop == NULL || granularity == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", prop == NULL ? "prop" : "granularity (output)");
    size_t g;
    struct aclrt_device *dev;
    aclError rc = aclrt_physmem_prop_check(prop, &g, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "option %d is not ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED",
                          (int)option);
    *granularity = g; /* the recommended granularity is the minimum one: nothing is gained by more */
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * Blocks and handles (callers hold aclrt_physmem.lock)
 * ------------------------------------------------------------------------ */

static void aclrt_physmem_release_mapped(void);

/* aclFinalize must release what this file owns: tell the registry how (idempotent). */
ACLRT_INTERNAL void aclrt_physmem_hook(void)
{
    pthread_rwlock_wrlock(&aclrt_mem.lock);
    aclrt_mem.release_mapped = aclrt_physmem_release_mapped;
    pthread_rwlock_unlock(&aclrt_mem.lock);
}

ACLRT_INTERNAL void aclrt_pmem_put(struct aclrt_pmem *mem)
{
    if (--mem->refs == 0) {
        close(mem->fd);
        free(mem);
    }
}

ACLRT_INLINE void *aclrt_pmem_handle_value(const struct aclrt_pmem_handle *h)
{
    return (void *)(uintptr_t)((ACLRT_PHYSMEM_HANDLE_TAG << 56) | h->id);
}

/* The live handle named by `handle`, and its index; NULL if there is none. */
ACLRT_INTERNAL struct aclrt_pmem_handle *aclrt_pmem_handle_find(aclrtDrvMemHandle handle, size_t *at)
{
    uint64_t v = (uint64_t)(uintptr_t)handle;
    if ((v >> 56) != ACLRT_PHYSMEM_HANDLE_TAG)
        return NULL;
    for (size_t i = 0; i < aclrt_physmem.handles.count; i++) {
        struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)aclrt_physmem.handles.items[i];
        if (h->id == (v & ((1ull << 56) - 1))) {
            if (at != NULL)
                *at = i;
            return h;
        }
    }
    return NULL;
}

ACLRT_INTERNAL aclError aclrt_pmem_bad_handle(aclrtDrvMemHandle handle)
{
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE,
                      "%p is not a live physical memory handle (freed, or not from aclrtMallocPhysical)", handle);
}

/* A memory file of `size` bytes, committed now so that running out is an error here, not a fault later. */
static int aclrt_pmem_file(size_t size)
{
    int fd = memfd_create("aclrt-physical", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return -1;
    }
    int err = posix_fallocate(fd, 0, (off_t)size);
    if (err != 0 && err != EOPNOTSUPP && err != EINVAL) {
        close(fd);
        return -1;
    }
    return fd;
}

ACLRT_API aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                       uint64_t flags)
{
    ACLRT_ENTER();
    if (handle == NULL || prop == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", handle == NULL ? "handle (output)" : "prop");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags 0x%llx is reserved and must be 0", (unsigned long long)flags);
    if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "prop->handleType %d must be ACL_MEM_HANDLE_TYPE_NONE",
                          (int)prop->handleType);
    if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "prop->allocationType %d must be ACL_MEM_ALLOCATION_TYPE_PINNED",
                          (int)prop->allocationType);
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    size_t g;
    struct aclrt_device *dev;
    if ((rc = aclrt_physmem_prop_check(prop, &g, &dev)) != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_mem_size_check(size, "physical memory")) != ACL_SUCCESS)
        return rc;
    size_t rounded = (size + g - 1) / g * g;
    if (rounded < size || aclrt_mem_size_check(rounded, "physical memory") != ACL_SUCCESS)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                          "cannot allocate %zu bytes of physical memory (%zu rounded up to the granularity %zu)",
                          size, rounded, g);
    struct aclrt_pmem *mem = (struct aclrt_pmem *)calloc(1, sizeof *mem);
    struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)calloc(1, sizeof *h);
    int fd = mem != NULL && h != NULL ? aclrt_pmem_file(rounded) : -1;
    if (fd < 0) {
        free(mem);
        free(h);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of physical memory", rounded);
    }
    mem->fd = fd;
    mem->size = rounded;
    mem->granularity = g;
    mem->device = dev;
    mem->refs = 1;
    mem->attr = prop->memAttr;
    mem->location = prop->location;
    mem->link = -1;
    h->mem = mem;
    aclrt_physmem_hook();
    pthread_mutex_lock(&aclrt_physmem.lock);
    h->id = ++aclrt_physmem.next_id;
    bool ok = aclrt_ptr_set_add(&aclrt_physmem.handles, h);
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (!ok) {
        close(fd);
        free(mem);
        free(h);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a physical memory handle");
    }
    *handle = aclrt_pmem_handle_value(h);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    pthread_mutex_lock(&aclrt_physmem.lock);
    size_t at;
    struct aclrt_pmem_handle *h = aclrt_pmem_handle_find(handle, &at);
    if (h != NULL) {
        aclrt_ptr_set_remove(&aclrt_physmem.handles, at);
        aclrt_pmem_put(h->mem); /* the memory stays while mappings use it */
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (h == NULL)
        return aclrt_pmem_bad_handle(handle);
    if (h->share != NULL)
        aclrt_ipc_seg_unref(h->share); /* the export ends: its shareable handle imports nothing any more */
    free(h);
    return ACL_SUCCESS;
}

/* ------------------------------------------------------------------------
 * aclFinalize (the registry's release_mapped hook; the registry is already empty)
 * ------------------------------------------------------------------------ */

static void aclrt_physmem_release_mapped(void)
{
    pthread_mutex_lock(&aclrt_physmem.lock);
    for (size_t i = 0; i < aclrt_physmem.maps.count; i++) {
        struct aclrt_mapping *m = (struct aclrt_mapping *)aclrt_physmem.maps.items[i];
        munmap((void *)m->base, m->size);
        aclrt_pmem_put(m->mem);
        free(m);
    }
    for (size_t i = 0; i < aclrt_physmem.ranges.count; i++) {
        struct aclrt_vrange *r = (struct aclrt_vrange *)aclrt_physmem.ranges.items[i];
        munmap((void *)r->base, r->size);
        free(r);
    }
    for (size_t i = 0; i < aclrt_physmem.handles.count; i++) {
        struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)aclrt_physmem.handles.items[i];
        aclrt_pmem_put(h->mem);
        if (h->share != NULL)
            aclrt_ipc_seg_unref(h->share);
        free(h);
    }
    struct aclrt_ptr_set *sets[] = {&aclrt_physmem.maps, &aclrt_physmem.ranges, &aclrt_physmem.handles};
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        free(sets[i]->items);
        *sets[i] = (struct aclrt_ptr_set){NULL, 0, 0};
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
}

#endif /* ACLRT_IMPL_MEMORY_PHYSMEM_H */
