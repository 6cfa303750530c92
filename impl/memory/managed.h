/*
 * impl/memory/managed.h - managed (unified) memory: allocation, advice, attributes and prefetches.
 *
 * aclrtMemAllocManaged gives memory that the host and the devices both
 * read and write at one address, rounded up to 2 MiB as in CANN. It is the
 * backend's pinned host memory (host_alloc: on the cuda backend mapped for
 * every GPU, which reaches it at the same address through unified
 * addressing), recorded as ACLRT_MEM_MANAGED of the current device: device
 * memory of that device for every call that asks, freed by aclrtFree.
 * Nothing migrates (there is one copy of the bytes), so advice and
 * prefetches change no placement: they are recorded per 2 MiB page and
 * read back by aclrtMemManagedGetAttr(s); a prefetch is also a task of its
 * stream (a no-op when it runs), so it takes its place in the stream's
 * order. The records live in a table of their own, keyed by the
 * allocation's address and checked against the allocation registry at
 * each use, so a record left by a freed allocation is never taken for a
 * later one's.
 */
#ifndef ACLRT_IMPL_MEMORY_MANAGED_H
#define ACLRT_IMPL_MEMORY_MANAGED_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "memory.h"

#define ACLRT_MANAGED_PAGE ((uint64_t)2 << 20)
#define ACLRT_MANAGED_HOST_ID (-1)   /* a location's id for the host, in the location attributes */
#define ACLRT_MANAGED_NO_ID (-2)     /* no location, or pages that disagree */
#define ACLRT_MANAGED_HOST_BIT 63u   /* the host's bit in accessed_by */

/* What one 2 MiB page was advised and where it was last prefetched to. */
struct aclrt_managed_page {
    uint8_t read_mostly;
    uint8_t preferred_type; /* aclrtMemManagedLocationType; INVALID: none */
    uint8_t prefetch_type;
    int32_t preferred_id;
    int32_t prefetch_id;
    uint64_t accessed_by; /* bit d: device d; bit 63: the host */
};

struct aclrt_managed {
    uintptr_t base;
    size_t pages;
    struct aclrt_managed_page *page;
};

static struct {
    pthread_mutex_t lock;
    struct aclrt_managed *items; /* unordered */
    size_t count, capacity;
} aclrt_managed = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* Is the record of `m` still its allocation's (not a freed one's)? Under the lock. */
static bool aclrt_managed_live(const struct aclrt_managed *m)
{
    struct aclrt_allocation a;
    return aclrt_mem_find((const void *)m->base, &a) && a.kind == ACLRT_MEM_MANAGED && a.base == m->base &&
           (a.size + ACLRT_MANAGED_PAGE - 1) / ACLRT_MANAGED_PAGE == m->pages;
}

/* Drop the records of freed allocations (under the lock). */
static void aclrt_managed_prune_locked(void)
{
    for (size_t i = 0; i < aclrt_managed.count;) {
        if (aclrt_managed_live(&aclrt_managed.items[i])) {
            i++;
            continue;
        }
        free(aclrt_managed.items[i].page);
        aclrt_managed.items[i] = aclrt_managed.items[--aclrt_managed.count];
    }
}

ACLRT_API aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr (output) is NULL");
    if (flag != ACL_RT_MEM_ATTACH_GLOBAL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flag %u is not ACL_RT_MEM_ATTACH_GLOBAL (the only one)", flag);
    if (size == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "size is 0");
    if (size > SIZE_MAX - ACLRT_MANAGED_PAGE)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %llu bytes of managed memory",
                          (unsigned long long)size);
    size_t bytes = (size_t)((size + ACLRT_MANAGED_PAGE - 1) & ~(ACLRT_MANAGED_PAGE - 1));
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_mem_size_check(bytes, "managed memory")) != ACL_SUCCESS)
        return rc;
    size_t pages = bytes / ACLRT_MANAGED_PAGE;
    struct aclrt_managed m = {0, pages, (struct aclrt_managed_page *)calloc(pages, sizeof(struct aclrt_managed_page))};
    void *p = NULL;
    if (m.page == NULL || aclrt_host_alloc(bytes, &p) != ACL_SUCCESS) {
        free(m.page);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes of managed memory", bytes);
    }
    m.base = (uintptr_t)p;
    /*
     * Registered before its record goes in: a prune (of another thread's
     * allocation) keeps only the records of live allocations, ours included
     * once it is registered. Nobody looks ours up before this call returns.
     */
    if (!aclrt_mem_register((uintptr_t)p, bytes, ACLRT_MEM_MANAGED, ctx->device)) {
        free(m.page);
        aclrt_host_free(p);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an allocation");
    }
    pthread_mutex_lock(&aclrt_managed.lock);
    aclrt_managed_prune_locked();
    for (size_t i = 0; i < aclrt_managed.count; i++) {
        if (aclrt_managed.items[i].base == m.base) { /* a freed allocation's, at the same address and size */
            free(aclrt_managed.items[i].page);
            aclrt_managed.items[i] = aclrt_managed.items[--aclrt_managed.count];
            break;
        }
    }
    bool ok = true;
    if (aclrt_managed.count == aclrt_managed.capacity) {
        size_t cap = aclrt_managed.capacity ? aclrt_managed.capacity * 2 : 8;
        struct aclrt_managed *items = (struct aclrt_managed *)realloc(aclrt_managed.items, cap * sizeof *items);
        if (items == NULL)
            ok = false;
        else {
            aclrt_managed.items = items;
            aclrt_managed.capacity = cap;
        }
    }
    if (ok)
        aclrt_managed.items[aclrt_managed.count++] = m;
    pthread_mutex_unlock(&aclrt_managed.lock);
    if (!ok) {
        struct aclrt_allocation gone;
        aclrt_mem_unregister((uintptr_t)p, ACLRT_MEM_MANAGED, &gone);
        free(m.page);
        aclrt_host_free(p);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording an allocation");
    }
    *ptr = p;
    return ACL_SUCCESS;
}

/* Check a location for advice or a prefetch. */
static aclError aclrt_managed_location_check(aclrtMemManagedLocation loc, bool for_prefetch)
{
    switch (loc.type) {
    case ACL_MEM_LOCATIONTYPE_DEVICE:
        if (loc.id < 0 || (uint32_t)loc.id >= aclrt_rt.device_count)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "location: device %d is out of range [0, %u)", (int)loc.id,
                              aclrt_rt.device_count);
        return ACL_SUCCESS;
    case ACL_MEM_LOCATIONTYPE_HOST: return ACL_SUCCESS;
    case ACL_MEM_LOCATIONTYPE_HOST_NUMA:
    case ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT:
        if (loc.type == ACL_MEM_LOCATIONTYPE_HOST_NUMA && loc.id != 0)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "location: host NUMA node %d does not exist (there is node 0)",
                              (int)loc.id);
        return ACL_SUCCESS;
    default:
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "location type %d is not a %s location (aclrtMemManagedLocationType)",
                          (int)loc.type, for_prefetch ? "prefetch" : "managed memory");
    }
}

/*
 * The pages [*first, *first + *n) of the managed allocation that holds
 * [ptr, ptr + size), under the lock (held on success); `aligned`: the range
 * must start and end on 2 MiB boundaries of the allocation.
 */
static aclError aclrt_managed_range_locked(const void *ptr, uint64_t size, bool aligned, struct aclrt_managed **out,
                                           size_t *first, size_t *n)
{
    struct aclrt_allocation a;
    if (!aclrt_mem_find(ptr, &a) || a.kind != ACLRT_MEM_MANAGED)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not managed memory (aclrtMemAllocManaged)", ptr);
    uintptr_t off = (uintptr_t)ptr - a.base;
    if (size > a.size - off)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "%llu bytes at %p go past the end of its managed allocation (%zu bytes at %p)",
                          (unsigned long long)size, ptr, a.size, (void *)a.base);
    if (aligned && (off % ACLRT_MANAGED_PAGE != 0 || size % ACLRT_MANAGED_PAGE != 0))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "the range (offset %zu, %llu bytes) is not aligned to 2 MiB pages of the managed allocation",
                          (size_t)off, (unsigned long long)size);
    pthread_mutex_lock(&aclrt_managed.lock);
    for (size_t i = 0; i < aclrt_managed.count; i++) {
        struct aclrt_managed *m = &aclrt_managed.items[i];
        if (m->base == a.base && aclrt_managed_live(m)) {
            *out = m;
            *first = off / ACLRT_MANAGED_PAGE;
            *n = (size_t)((off + size + ACLRT_MANAGED_PAGE - 1) / ACLRT_MANAGED_PAGE) - *first;
            return ACL_SUCCESS;
        }
    }
    pthread_mutex_unlock(&aclrt_managed.lock);
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%p is not managed memory (aclrtMemAllocManaged)", ptr);
}

/* The bit of a location in accessed_by. */
static uint64_t aclrt_managed_bit(aclrtMemManagedLocation loc)
{
    return loc.type == ACL_MEM_LOCATIONTYPE_DEVICE ? (uint64_t)1 << (uint32_t)loc.id
                                                    : (uint64_t)1 << ACLRT_MANAGED_HOST_BIT;
}

ACLRT_API aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size, aclrtMemManagedAdviseType advise,
                                         aclrtMemManagedLocation location)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if ((int)advise < (int)ACL_MEM_ADVISE_SET_READ_MOSTLY || (int)advise > (int)ACL_MEM_ADVISE_UNSET_ACCESSED_BY)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not an advice (aclrtMemManagedAdviseType)", (int)advise);
    bool needs_location = advise == ACL_MEM_ADVISE_SET_PREFERRED_LOCATION || advise == ACL_MEM_ADVISE_SET_ACCESSED_BY ||
                          advise == ACL_MEM_ADVISE_UNSET_ACCESSED_BY;
    aclError rc;
    if (needs_location && (rc = aclrt_managed_location_check(location, false)) != ACL_SUCCESS)
        return rc;
    struct aclrt_managed *m;
    size_t first, n;
    if ((rc = aclrt_managed_range_locked(ptr, size, true, &m, &first, &n)) != ACL_SUCCESS)
        return rc;
    for (size_t i = first; i < first + n; i++) {
        struct aclrt_managed_page *p = &m->page[i];
        switch (advise) {
        case ACL_MEM_ADVISE_SET_READ_MOSTLY: p->read_mostly = 1; break;
        case ACL_MEM_ADVISE_UNSET_READ_MOSTLY: p->read_mostly = 0; break;
        case ACL_MEM_ADVISE_SET_PREFERRED_LOCATION:
            p->preferred_type = (uint8_t)location.type;
            p->preferred_id = location.id;
            break;
        case ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
            p->preferred_type = ACL_MEM_LOCATIONTYPE_INVALID;
            p->preferred_id = 0;
            break;
        case ACL_MEM_ADVISE_SET_ACCESSED_BY: p->accessed_by |= aclrt_managed_bit(location); break;
        case ACL_MEM_ADVISE_UNSET_ACCESSED_BY: p->accessed_by &= ~aclrt_managed_bit(location); break;
        }
    }
    pthread_mutex_unlock(&aclrt_managed.lock);
    return ACL_SUCCESS;
}

/* The id a location attribute reports: the device's, -1 for the host, -2 for none. */
static int32_t aclrt_managed_location_value(uint8_t type, int32_t id)
{
    if (type == ACL_MEM_LOCATIONTYPE_DEVICE)
        return id;
    return type == ACL_MEM_LOCATIONTYPE_INVALID ? ACLRT_MANAGED_NO_ID : ACLRT_MANAGED_HOST_ID;
}

/* One attribute over pages [first, first + n) of m into data (dataSize bytes); under the lock. */
static aclError aclrt_managed_attr_locked(const struct aclrt_managed *m, size_t first, size_t n,
                                          aclrtMemManagedRangeAttribute attr, void *data, size_t dataSize)
{
    if (attr == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
        if (dataSize == 0 || dataSize % sizeof(int32_t) != 0)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "dataSize %zu: the accessed-by list is a non-empty array of int32_t", dataSize);
        uint64_t all = ~(uint64_t)0;
        for (size_t i = first; i < first + n; i++)
            all &= m->page[i].accessed_by;
        int32_t *out = (int32_t *)data;
        size_t k = 0, cap = dataSize / sizeof(int32_t);
        for (uint32_t d = 0; d < aclrt_rt.device_count && d < 63 && k < cap; d++)
            if (all & ((uint64_t)1 << d))
                out[k++] = (int32_t)d;
        if (k < cap && (all & ((uint64_t)1 << ACLRT_MANAGED_HOST_BIT)))
            out[k++] = ACLRT_MANAGED_HOST_ID;
        while (k < cap)
            out[k++] = ACLRT_MANAGED_NO_ID;
        return ACL_SUCCESS;
    }
    if (dataSize != sizeof(int32_t))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "dataSize %zu: attribute %d is one int32_t (4 bytes)", dataSize,
                          (int)attr);
    /* Every page must agree; otherwise the invalid value. */
    const struct aclrt_managed_page *p0 = &m->page[first];
    bool rm = true, pref_same = true, last_same = true;
    for (size_t i = first; i < first + n; i++) {
        const struct aclrt_managed_page *p = &m->page[i];
        rm = rm && p->read_mostly;
        pref_same = pref_same && p->preferred_type == p0->preferred_type && p->preferred_id == p0->preferred_id;
        last_same = last_same && p->prefetch_type == p0->prefetch_type && p->prefetch_id == p0->prefetch_id;
    }
    uint8_t pt = pref_same ? p0->preferred_type : (uint8_t)ACL_MEM_LOCATIONTYPE_INVALID;
    uint8_t lt = last_same ? p0->prefetch_type : (uint8_t)ACL_MEM_LOCATIONTYPE_INVALID;
    int32_t v;
    switch (attr) {
    case ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY: v = rm ? 1 : 0; break;
    case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION: v = aclrt_managed_location_value(pt, p0->preferred_id); break;
    case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE: v = pt; break;
    case ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID:
        v = pt == ACL_MEM_LOCATIONTYPE_INVALID ? ACLRT_MANAGED_NO_ID : p0->preferred_id;
        break;
    case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION: v = aclrt_managed_location_value(lt, p0->prefetch_id); break;
    case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE: v = lt; break;
    case ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID:
        v = lt == ACL_MEM_LOCATIONTYPE_INVALID ? ACLRT_MANAGED_NO_ID : p0->prefetch_id;
        break;
    default:
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not a range attribute (aclrtMemManagedRangeAttribute)",
                          (int)attr);
    }
    memcpy(data, &v, sizeof v);
    return ACL_SUCCESS;
}

static bool aclrt_managed_attr_known(aclrtMemManagedRangeAttribute attr)
{
    return (int)attr >= (int)ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
           (int)attr <= (int)ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID;
}

ACLRT_API aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr, size_t size,
                                          void *data, size_t dataSize)
{
    ACLRT_ENTER();
    if (data == NULL || ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", data == NULL ? "data (output)" : "ptr");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (!aclrt_managed_attr_known(attribute))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%d is not a range attribute (aclrtMemManagedRangeAttribute)",
                          (int)attribute);
    struct aclrt_managed *m;
    size_t first, n;
    aclError rc = aclrt_managed_range_locked(ptr, size, false, &m, &first, &n);
    if (rc != ACL_SUCCESS)
        return rc;
    rc = aclrt_managed_attr_locked(m, first, n, attribute, data, dataSize);
    pthread_mutex_unlock(&aclrt_managed.lock);
    return rc;
}

ACLRT_API aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes, size_t numAttributes,
                                           const void *ptr, size_t size, void **data, size_t *dataSizes)
{
    ACLRT_ENTER();
    if (data == NULL || dataSizes == NULL || attributes == NULL || ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                          data == NULL ? "data" : dataSizes == NULL ? "dataSizes" : attributes == NULL ? "attributes" : "ptr");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    for (size_t i = 0; i < numAttributes; i++) {
        if (!aclrt_managed_attr_known(attributes[i]))
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "attributes[%zu]: %d is not a range attribute (aclrtMemManagedRangeAttribute)", i,
                              (int)attributes[i]);
        if (data[i] == NULL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "data[%zu] is NULL", i);
    }
    struct aclrt_managed *m;
    size_t first, n;
    aclError rc = aclrt_managed_range_locked(ptr, size, false, &m, &first, &n);
    if (rc != ACL_SUCCESS)
        return rc;
    for (size_t i = 0; i < numAttributes && rc == ACL_SUCCESS; i++)
        rc = aclrt_managed_attr_locked(m, first, n, attributes[i], data[i], dataSizes[i]);
    pthread_mutex_unlock(&aclrt_managed.lock);
    return rc;
}

/* Record a prefetch of [ptr, ptr + size) to loc (checked before: ptr is managed, the range aligned). */
static aclError aclrt_managed_record_prefetch(const void *ptr, uint64_t size, aclrtMemManagedLocation loc)
{
    struct aclrt_managed *m;
    size_t first, n;
    aclError rc = aclrt_managed_range_locked(ptr, size, true, &m, &first, &n);
    if (rc != ACL_SUCCESS)
        return rc;
    for (size_t i = first; i < first + n; i++) {
        m->page[i].prefetch_type = (uint8_t)loc.type;
        m->page[i].prefetch_id = loc.id;
    }
    pthread_mutex_unlock(&aclrt_managed.lock);
    return ACL_SUCCESS;
}

/* Check one prefetch (its range, its location) without recording it. */
static aclError aclrt_managed_prefetch_check(const void *ptr, uint64_t size, aclrtMemManagedLocation loc)
{
    aclError rc = aclrt_managed_location_check(loc, true);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_managed *m;
    size_t first, n;
    if ((rc = aclrt_managed_range_locked(ptr, size, true, &m, &first, &n)) != ACL_SUCCESS)
        return rc;
    pthread_mutex_unlock(&aclrt_managed.lock);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size, aclrtMemManagedLocation location,
                                                uint32_t flags, aclrtStream stream)
{
    ACLRT_ENTER();
    if (ptr == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptr is NULL");
    if (size == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "size is 0");
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags %u is reserved and must be 0", flags);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS || (rc = aclrt_managed_prefetch_check(ptr, size, location)) != ACL_SUCCESS)
        return rc;
    /* The data is where every device reaches it already: the task only keeps the stream's order. */
    struct aclrt_task t = {.kind = &aclrt_kind_nop};
    if ((rc = aclrt_stream_submit(s, &t, NULL)) != ACL_SUCCESS)
        return rc;
    return aclrt_managed_record_prefetch(ptr, size, location);
}

ACLRT_API aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
                                                     aclrtMemManagedLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                     size_t numPrefetchLocs, uint64_t flags, aclrtStream stream)
{
    ACLRT_ENTER();
    if (ptrs == NULL || sizes == NULL || prefetchLocs == NULL || prefetchLocIdxs == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL",
                          ptrs == NULL ? "ptrs" : sizes == NULL ? "sizes" : prefetchLocs == NULL ? "prefetchLocs"
                                                                                                 : "prefetchLocIdxs");
    if (count == 0 || numPrefetchLocs == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is 0", count == 0 ? "count" : "numPrefetchLocs");
    if (flags != 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "flags %llu is reserved and must be 0", (unsigned long long)flags);
    if (numPrefetchLocs > count)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "numPrefetchLocs %zu exceeds count %zu", numPrefetchLocs, count);
    if (prefetchLocIdxs[0] != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "prefetchLocIdxs[0] is %zu, not 0", prefetchLocIdxs[0]);
    for (size_t k = 1; k < numPrefetchLocs; k++)
        if (prefetchLocIdxs[k] >= count || prefetchLocIdxs[k] <= prefetchLocIdxs[k - 1])
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "prefetchLocIdxs[%zu] is %zu: each index must exceed the one before and be below count %zu",
                              k, prefetchLocIdxs[k], count);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    /* Everything is checked before anything is recorded or submitted. */
    for (size_t i = 0, k = 0; i < count; i++) {
        while (k + 1 < numPrefetchLocs && prefetchLocIdxs[k + 1] <= i)
            k++;
        if (ptrs[i] == NULL)
            return aclrt_fail(ACL_ERROR_INVALID_PARAM, "ptrs[%zu] is NULL", i);
        if (sizes[i] == 0)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "sizes[%zu] is 0", i);
        if ((rc = aclrt_managed_prefetch_check(ptrs[i], sizes[i], prefetchLocs[k])) != ACL_SUCCESS)
            return rc;
    }
    struct aclrt_task t = {.kind = &aclrt_kind_nop}; /* one task for the batch */
    if ((rc = aclrt_stream_submit(s, &t, NULL)) != ACL_SUCCESS)
        return rc;
    for (size_t i = 0, k = 0; i < count && rc == ACL_SUCCESS; i++) {
        while (k + 1 < numPrefetchLocs && prefetchLocIdxs[k + 1] <= i)
            k++;
        rc = aclrt_managed_record_prefetch(ptrs[i], sizes[i], prefetchLocs[k]);
    }
    return rc;
}

#endif /* ACLRT_IMPL_MEMORY_MANAGED_H */
