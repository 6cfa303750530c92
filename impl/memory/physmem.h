/*
 * impl/memory/physmem.h - physical memory and virtual address ranges:
 * aclrtMallocPhysical / FreePhysical, aclrtReserveMemAddress / Release,
 * aclrtMapMem / UnmapMem, access rights, allocation granularity,
 * and sharing blocks between processes (export, whitelist, import).
 *
 * On a CPU this is what an MMU does for a device, so it is done for real:
 *   - a physical block is a memory file (memfd), sized and committed
 *     (fallocate) at allocation, its size rounded up to the granularity;
 *   - a reservation is an inaccessible anonymous mapping (PROT_NONE) of the
 *     requested size, aligned to 2 MiB (1 GiB from 1 GiB on);
 *   - mapping a block replaces a granularity-aligned part of a reservation
 *     with a shared mapping of the file (MAP_FIXED | MAP_SHARED), so two
 *     mappings of one block are the same memory; unmapping puts the
 *     PROT_NONE mapping back.
 * A mapping is entered in the allocation registry (memory.h) as
 * ACLRT_MEM_MAPPED with the block's device, so copies, value operations and
 * built-in tasks treat it as that device's memory (and aclrtFree refuses it).
 *
 * A block lives while its handle or a mapping refers to it: aclrtFreePhysical
 * of a mapped block succeeds and the memory goes with the last unmap, as the
 * runtime documents. Handles are numbers (never pointers), so a freed or
 * garbage handle is ACL_ERROR_RT_INVALID_HANDLE, not a crash.
 *
 * Sharing between processes (docs/SEMANTICS.md, IPC): exporting gives a
 * block a segment of ipc.h (kind ACLRT_IPC_PHYSICAL) whose header names the
 * block's file (a descriptor of the export's own, its device and inode, its
 * size and granularity) and holds the pid allow-list. The shareable handle
 * packs what an importer needs to find that header in 64 bits:
 *   bits 63..42  the exporter's pid (pids are below 2^22, PID_MAX_LIMIT)
 *   bits 41..22  the header's descriptor number in the exporter
 *   bits 21..0   the first 22 bits of the header's random bytes
 * An importer opens /proc/<pid>/fd/<n> (ipc.h), accepts the header only if
 * its kind, owner and random bits match, checks its own pid against the
 * allow-list, then opens the block's file the same way and checks its inode:
 * its block is the same file, so mappings in both processes are the same
 * memory. The random bits make a stale handle (its descriptor number
 * reused by a later export) name nothing; they are no secret, and need not
 * be: the allow-list is checked whatever the handle, and the kernel lets
 * only processes of the same user that may inspect the exporter open its
 * files at all. The export ends with the exporter's handle
 * (aclrtFreePhysical, aclFinalize, exit); imported blocks are files of
 * their own and live on until freed in their process. Importing in the
 * exporting process is refused, as the runtime documents.
 *
 * All of this is rare and takes one mutex; lock order: this mutex, then the
 * registry's lock. aclFinalize releases everything (through the registry's
 * release_mapped hook).
 */
#ifndef ACLRT_IMPL_MEMORY_PHYSMEM_H
#define ACLRT_IMPL_MEMORY_PHYSMEM_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../context/context.h"
#include "../shm/allow_list.h"
#include "../shm/segment.h"
#include "memory.h"

#include <fcntl.h>
#include <sys/mman.h>

#define ACLRT_PHYSMEM_HUGE ((size_t)2 << 20)
#define ACLRT_PHYSMEM_HUGE1G ((size_t)1 << 30)
#define ACLRT_PHYSMEM_HANDLE_TAG 0xADull /* the top byte of a physical memory handle */
#define ACLRT_SHARE_PID_SHIFT 42         /* a shareable handle: pid << 42 | descriptor << 22 | 22 random bits */
#define ACLRT_SHARE_FD_SHIFT 22
#define ACLRT_SHARE_FD_LIMIT (1u << 20)
#define ACLRT_SHARE_PID_LIMIT (1u << 22)
#define ACLRT_SHARE_TAG_MASK ((1u << 22) - 1)

/* One block of physical memory. */
struct aclrt_pmem {
    int fd;
    size_t size;                 /* rounded up to the granularity */
    size_t granularity;
    struct aclrt_device *device; /* NULL: host memory */
    unsigned refs;               /* its live handle + its mappings */
};

/* What a handle names: a block, and its export or the export it was imported from. */
struct aclrt_pmem_handle {
    uint64_t id;
    struct aclrt_pmem *mem;
    uint64_t shareable;          /* 0: neither exported nor imported */
    bool imported;               /* made by aclrtMemImportFromShareableHandle from `shareable` */
    struct aclrt_ipc_seg *share; /* exported: the segment `shareable` names (its allow-list) */
};

struct aclrt_vrange {
    uintptr_t base;
    size_t size;
};

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

static bool aclrt_ptr_set_add(struct aclrt_ptr_set *set, void *p)
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

static void aclrt_ptr_set_remove(struct aclrt_ptr_set *set, size_t at)
{
    set->items[at] = set->items[--set->count];
}

static size_t aclrt_page_size(void)
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
static void aclrt_physmem_hook(void)
{
    pthread_rwlock_wrlock(&aclrt_mem.lock);
    aclrt_mem.release_mapped = aclrt_physmem_release_mapped;
    pthread_rwlock_unlock(&aclrt_mem.lock);
}

static void aclrt_pmem_put(struct aclrt_pmem *mem)
{
    if (--mem->refs == 0) {
        close(mem->fd);
        free(mem);
    }
}

static void *aclrt_pmem_handle_value(const struct aclrt_pmem_handle *h)
{
    return (void *)(uintptr_t)((ACLRT_PHYSMEM_HANDLE_TAG << 56) | h->id);
}

/* The live handle named by `handle`, and its index; NULL if there is none. */
static struct aclrt_pmem_handle *aclrt_pmem_handle_find(aclrtDrvMemHandle handle, size_t *at)
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

static aclError aclrt_pmem_bad_handle(aclrtDrvMemHandle handle)
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
 * Reservations and mappings
 * ------------------------------------------------------------------------ */

static struct aclrt_vrange *aclrt_vrange_containing(uintptr_t a, size_t len)
{
    for (size_t i = 0; i < aclrt_physmem.ranges.count; i++) {
        struct aclrt_vrange *r = (struct aclrt_vrange *)aclrt_physmem.ranges.items[i];
        if (a >= r->base && a - r->base <= r->size && len <= r->size - (a - r->base))
            return r;
    }
    return NULL;
}

ACLRT_API aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                          uint64_t flags)
{
    ACLRT_ENTER();
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

static aclError aclrt_physmem_map_locked(uintptr_t a, size_t size, struct aclrt_pmem_handle *h)
{
    struct aclrt_pmem *mem = h->mem;
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
        rc = aclrt_physmem_map_locked((uintptr_t)virPtr, size, h);
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
 * Sharing
 * ------------------------------------------------------------------------ */

/* The live handle of this process exported as, or imported from, `shareable`. */
static struct aclrt_pmem_handle *aclrt_pmem_shared(uint64_t shareable)
{
    for (size_t i = 0; i < aclrt_physmem.handles.count; i++) {
        struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)aclrt_physmem.handles.items[i];
        if (h->shareable != 0 && h->shareable == shareable)
            return h;
    }
    return NULL;
}

/* Export h (the lock held): a segment naming its block's file, and the shareable handle naming the segment. */
static aclError aclrt_pmem_export_locked(struct aclrt_pmem_handle *h, bool check_pids)
{
    struct aclrt_pmem *mem = h->mem;
    struct stat st;
    if (fstat(mem->fd, &st) != 0)
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "cannot export the block's memory file (%s)", strerror(errno));
    struct aclrt_ipc_seg *seg;
    aclError rc = aclrt_ipc_seg_create(ACLRT_IPC_PHYSICAL, &seg);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_ipc_page *page = seg->page;
    int fd = atomic_load_explicit(&seg->fd, memory_order_relaxed); /* this thread's own segment */
    if ((unsigned)fd >= ACLRT_SHARE_FD_LIMIT || (uint32_t)page->owner >= ACLRT_SHARE_PID_LIMIT) {
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR,
                          "descriptor %d or process id %d does not fit a shareable handle (2^20 and 2^22 at most)",
                          fd, (int)page->owner);
    }
    /* A descriptor of the export's own: the block's may close first (a mapping outlives the handle). */
    seg->data_fd = fcntl(mem->fd, F_DUPFD_CLOEXEC, 0);
    if (seg->data_fd < 0) {
        int err = errno;
        aclrt_ipc_seg_unref(seg);
        return aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "cannot export the block's memory file (%s)", strerror(err));
    }
    page->data_fd = seg->data_fd;
    page->data_size = mem->size;
    page->data_dev = (uint64_t)st.st_dev;
    page->data_ino = (uint64_t)st.st_ino;
    page->data_granularity = mem->granularity;
    page->data_host = mem->device == NULL;
    page->nonce[2] &= 0x3f; /* the handle carries 22 random bits: the rest of this byte is 0 for the comparison */
    /* Release: pairs with the importer's acquire (aclrt_ipc_pid_allowed); the header is filled before. */
    atomic_store_explicit(&page->check_pids, check_pids ? 1u : 0u, memory_order_release);
    uint32_t tag = (uint32_t)page->nonce[0] | (uint32_t)page->nonce[1] << 8 | (uint32_t)page->nonce[2] << 16;
    h->share = seg;
    h->shareable = (uint64_t)(uint32_t)page->owner << ACLRT_SHARE_PID_SHIFT | (uint64_t)fd << ACLRT_SHARE_FD_SHIFT | tag;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                   uint64_t flags, uint64_t *shareableHandle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle is NULL");
    if (handleType != ACL_MEM_HANDLE_TYPE_NONE)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handleType %d must be ACL_MEM_HANDLE_TYPE_NONE", (int)handleType);
    if (shareableHandle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "shareableHandle (output) is NULL");
    if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "flags 0x%llx is not ACL_RT_VMM_EXPORT_FLAG_DEFAULT or _DISABLE_PID_VALIDATION",
                          (unsigned long long)flags);
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *h = aclrt_pmem_handle_find(handle, NULL);
    if (h == NULL) {
        rc = aclrt_pmem_bad_handle(handle);
    } else if (h->shareable != 0) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "handle %p is already %s shareable handle %llu: one shareable handle per handle", handle,
                        h->imported ? "imported from" : "exported as", (unsigned long long)h->shareable);
    } else if ((rc = aclrt_pmem_export_locked(h, (flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) == 0)) ==
               ACL_SUCCESS) {
        *shareableHandle = h->shareable;
    }
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return rc;
}

ACLRT_API aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    ACLRT_ENTER();
    if (pid == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pid is NULL");
    if (pidNum == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pidNum is 0");
    aclError rc;
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *h = aclrt_pmem_shared(shareableHandle);
    if (h == NULL || h->imported)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "shareable handle %llu was not exported by this process (or its memory was freed)",
                        (unsigned long long)shareableHandle);
    else
        rc = aclrt_ipc_allow(h->share, pid, pidNum);
    pthread_mutex_unlock(&aclrt_physmem.lock);
    return rc;
}

/* Open the block an exporter's header names; fd, or -1 with the failure recorded. */
static int aclrt_pmem_import_file(const struct aclrt_ipc_seg *seg, uint64_t shareable)
{
    const struct aclrt_ipc_page *page = seg->page;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", (int)seg->peer, (int)page->data_fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_dev == page->data_dev &&
        (uint64_t)st.st_ino == page->data_ino && st.st_size >= 0 && (uint64_t)st.st_size == page->data_size)
        return fd;
    if (fd >= 0)
        close(fd);
    aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "the memory of shareable handle %llu is gone (process %d freed it or exited)",
               (unsigned long long)shareable, (int)seg->peer);
    return -1;
}

ACLRT_API aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                     aclrtDrvMemHandle *handle)
{
    ACLRT_ENTER();
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "handle (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    int32_t exporter = (int32_t)(shareableHandle >> ACLRT_SHARE_PID_SHIFT);
    int fd = (int)((shareableHandle >> ACLRT_SHARE_FD_SHIFT) & (ACLRT_SHARE_FD_LIMIT - 1));
    uint32_t tag = (uint32_t)shareableHandle & ACLRT_SHARE_TAG_MASK;
    if (exporter == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%llu is not a shareable handle (no process in it)",
                          (unsigned long long)shareableHandle);
    pthread_mutex_lock(&aclrt_physmem.lock);
    struct aclrt_pmem_handle *known = aclrt_pmem_shared(shareableHandle);
    bool imported = known != NULL && known->imported;
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (exporter == (int32_t)getpid()) {
        if (known == NULL)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "shareable handle %llu names no exported physical memory of this process",
                              (unsigned long long)shareableHandle);
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "shareable handle %llu was exported by this process: importing is for other processes only",
                          (unsigned long long)shareableHandle);
    }
    if (imported)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "shareable handle %llu is imported in this process already (one handle per shareable handle; "
                          "free that one first)",
                          (unsigned long long)shareableHandle);
    if ((rc = aclrt_runtime_start()) != ACL_SUCCESS)
        return rc;
    uint8_t nonce[3] = {(uint8_t)tag, (uint8_t)(tag >> 8), (uint8_t)(tag >> 16)};
    struct aclrt_ipc_seg *seg;
    if ((rc = aclrt_ipc_seg_attach(exporter, fd, ACLRT_IPC_PHYSICAL, nonce, sizeof nonce, &seg)) != ACL_SUCCESS)
        return rc; /* ACL_ERROR_RT_IPC_ERROR: no such export (any more) */
    struct aclrt_ipc_page *page = seg->page;
    int mine = -1;
    /* Relaxed: a flag only; the file's inode check below is what keeps a late import off another file. */
    if (atomic_load_explicit(&page->closed, memory_order_relaxed))
        rc = aclrt_fail(ACL_ERROR_RT_IPC_ERROR, "the exporter freed the memory of shareable handle %llu",
                        (unsigned long long)shareableHandle);
    else if (!aclrt_ipc_pid_allowed(page))
        rc = aclrt_fail(ACL_ERROR_RT_NO_PERMISSION,
                        "process %d is not on the whitelist of shareable handle %llu (the exporter adds it with "
                        "aclrtMemSetPidToShareableHandle, or exports with ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)",
                        (int)getpid(), (unsigned long long)shareableHandle);
    else if ((mine = aclrt_pmem_import_file(seg, shareableHandle)) < 0)
        rc = ACL_ERROR_RT_IPC_ERROR;
    size_t size = (size_t)page->data_size, granularity = (size_t)page->data_granularity;
    bool host = page->data_host != 0;
    aclrt_ipc_seg_unref(seg); /* the file is all an import needs */
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_pmem *mem = (struct aclrt_pmem *)calloc(1, sizeof *mem);
    struct aclrt_pmem_handle *h = (struct aclrt_pmem_handle *)calloc(1, sizeof *h);
    if (mem == NULL || h == NULL) {
        close(mine);
        free(mem);
        free(h);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory importing shareable handle %llu",
                          (unsigned long long)shareableHandle);
    }
    mem->fd = mine;
    mem->size = size;
    mem->granularity = granularity != 0 ? granularity : aclrt_page_size();
    mem->device = host ? NULL : dev; /* device memory becomes memory of the device asked for (documented) */
    mem->refs = 1;
    h->mem = mem;
    h->shareable = shareableHandle;
    h->imported = true;
    aclrt_physmem_hook();
    pthread_mutex_lock(&aclrt_physmem.lock);
    bool twice = aclrt_pmem_shared(shareableHandle) != NULL; /* another thread imported it meanwhile */
    bool ok = !twice && aclrt_ptr_set_add(&aclrt_physmem.handles, h);
    if (ok)
        h->id = ++aclrt_physmem.next_id;
    pthread_mutex_unlock(&aclrt_physmem.lock);
    if (!ok) {
        close(mine);
        free(mem);
        free(h);
        if (twice)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "shareable handle %llu is imported in this process already",
                              (unsigned long long)shareableHandle);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording a physical memory handle");
    }
    *handle = aclrt_pmem_handle_value(h);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    ACLRT_ENTER();
    if (pid == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "pid (output) is NULL");
    *pid = (int32_t)getpid();
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
