/*
 * tests/test_managed.c - pins managed memory (docs/SEMANTICS.md, Host
 * registration, managed memory, cache maintenance): allocation rounded to
 * 2 MiB pages, the host and stream tasks reading and writing it, aclrtFree,
 * the pointer's attributes, advice and prefetches read back per page
 * (pages that disagree give the invalid value), a prefetch's place in its
 * stream's order, and bad input.
 *
 * Ordering is proven with gates, never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <stdint.h>
#include <string.h>

#define MIB2 ((size_t)2 << 20)

static int32_t get_i32(aclrtMemManagedRangeAttribute attr, const void *p, size_t size)
{
    int32_t v = 12345;
    CHECK_OK(aclrtMemManagedGetAttr(attr, p, size, &v, sizeof v));
    return v;
}

TEST(managed_memory_is_read_and_written_by_host_and_tasks)
{
    char *p = NULL;
    CHECK_OK(aclrtMemAllocManaged((void **)&p, 100, ACL_RT_MEM_ATTACH_GLOBAL));
    CHECK(p != NULL);
    /* Rounded up to 2 MiB. */
    void *base;
    size_t size;
    CHECK_OK(aclrtMemGetAddressRange(p + 5, &base, &size));
    CHECK(base == p);
    CHECK_EQ(MIB2, size);
    aclrtPtrAttributes a;
    CHECK_OK(aclrtPointerGetAttributes(p, &a));
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_MANAGED, a.location.type);
    CHECK_EQ(0u, a.location.id);
    /* The host writes, a task copies within the memory, the host reads. */
    memset(p, 7, 64);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtMemcpyAsync(p + MIB2 - 64, 64, p, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtMemsetAsync(p + 64, 64, 9, 64, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(7, p[MIB2 - 1]);
    CHECK_EQ(9, p[127]);
    CHECK_OK(aclrtDestroyStream(s));
    /* Freed by aclrtFree (not aclrtFreeHost), once. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(p));
    CHECK_OK(aclrtFree(p));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(p));
}

TEST(advice_is_recorded_per_page_and_read_back)
{
    char *p = NULL;
    CHECK_OK(aclrtMemAllocManaged((void **)&p, 3 * MIB2, ACL_RT_MEM_ATTACH_GLOBAL));
    aclrtMemManagedLocation dev0 = {ACL_MEM_LOCATIONTYPE_DEVICE, 0};
    aclrtMemManagedLocation host = {ACL_MEM_LOCATIONTYPE_HOST, 0};
    /* Nothing advised yet. */
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 3 * MIB2));
    CHECK_EQ(-2, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 3 * MIB2));
    CHECK_EQ(ACL_MEM_LOCATIONTYPE_INVALID, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, 1));
    /* Read-mostly on the first two pages: the whole range disagrees, the two pages agree. */
    CHECK_OK(aclrtMemManagedAdvise(p, 2 * MIB2, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    CHECK_EQ(1, get_i32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 2 * MIB2));
    CHECK_EQ(1, get_i32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p + MIB2 + 7, 10));
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 3 * MIB2));
    CHECK_OK(aclrtMemManagedAdvise(p + MIB2, MIB2, ACL_MEM_ADVISE_UNSET_READ_MOSTLY, dev0));
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 2 * MIB2));
    CHECK_EQ(1, get_i32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, MIB2));
    /* Preferred location: device 0 on page 0, the host on page 2. */
    CHECK_OK(aclrtMemManagedAdvise(p, MIB2, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0));
    CHECK_OK(aclrtMemManagedAdvise(p + 2 * MIB2, MIB2, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, MIB2));
    CHECK_EQ(ACL_MEM_LOCATIONTYPE_DEVICE, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p, MIB2));
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p, MIB2));
    CHECK_EQ(-1, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p + 2 * MIB2, MIB2));
    CHECK_EQ(ACL_MEM_LOCATIONTYPE_HOST, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, p + 2 * MIB2, 1));
    CHECK_EQ(-2, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, 3 * MIB2));
    CHECK_EQ(-2, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, p, 3 * MIB2));
    CHECK_OK(aclrtMemManagedAdvise(p, MIB2, ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION, dev0));
    CHECK_EQ(-2, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, p, MIB2));
    /* Accessed-by: a list of int32_t, the rest filled with -2. */
    CHECK_OK(aclrtMemManagedAdvise(p, 3 * MIB2, ACL_MEM_ADVISE_SET_ACCESSED_BY, dev0));
    CHECK_OK(aclrtMemManagedAdvise(p, MIB2, ACL_MEM_ADVISE_SET_ACCESSED_BY, host));
    int32_t list[3] = {7, 7, 7};
    CHECK_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, MIB2, list, sizeof list));
    CHECK_EQ(0, list[0]);
    CHECK_EQ(-1, list[1]);
    CHECK_EQ(-2, list[2]);
    CHECK_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, 3 * MIB2, list, sizeof list));
    CHECK_EQ(0, list[0]);
    CHECK_EQ(-2, list[1]);
    CHECK_OK(aclrtMemManagedAdvise(p, 3 * MIB2, ACL_MEM_ADVISE_UNSET_ACCESSED_BY, dev0));
    CHECK_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p + 2 * MIB2, MIB2, list, sizeof list));
    CHECK_EQ(-2, list[0]);
    /* Several at once. */
    aclrtMemManagedRangeAttribute attrs[2] = {ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                              ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE};
    int32_t rm = 5, type = 5;
    void *data[2] = {&rm, &type};
    size_t sizes[2] = {4, 4};
    CHECK_OK(aclrtMemManagedGetAttrs(attrs, 2, p + 2 * MIB2, MIB2, data, sizes));
    CHECK_EQ(0, rm);
    CHECK_EQ(ACL_MEM_LOCATIONTYPE_HOST, type);
    CHECK_OK(aclrtFree(p));
    /* A new allocation at the same address starts with no advice. */
    char *q = NULL;
    CHECK_OK(aclrtMemAllocManaged((void **)&q, 3 * MIB2, ACL_RT_MEM_ATTACH_GLOBAL));
    CHECK_EQ(-2, get_i32(ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, q + 2 * MIB2, MIB2));
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, q, MIB2));
    CHECK_OK(aclrtFree(q));
}

TEST(a_prefetch_is_a_task_in_its_streams_order)
{
    char *p = NULL;
    CHECK_OK(aclrtMemAllocManaged((void **)&p, 2 * MIB2, ACL_RT_MEM_ATTACH_GLOBAL));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    aclrtEvent e;
    CHECK_OK(aclrtCreateEvent(&e));
    struct gate *g = launch_gate(s);
    CHECK(gate_wait_entered(g));
    aclrtMemManagedLocation dev0 = {ACL_MEM_LOCATIONTYPE_DEVICE, 0};
    CHECK_OK(aclrtMemManagedPrefetchAsync(p, MIB2, dev0, 0, s));
    CHECK_OK(aclrtRecordEvent(e, s));
    /* Behind the gate: the event after the prefetch is not complete. */
    aclrtEventRecordedStatus st;
    CHECK_OK(aclrtQueryEventStatus(e, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, st);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, MIB2));
    CHECK_EQ(ACL_MEM_LOCATIONTYPE_DEVICE, get_i32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, p, MIB2));
    CHECK_EQ(-2, get_i32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, 2 * MIB2));
    /* A batch: the first range to the host, the second to device 0. */
    const void *ptrs[2] = {p, p + MIB2};
    size_t sizes[2] = {MIB2, MIB2};
    aclrtMemManagedLocation locs[2] = {{ACL_MEM_LOCATIONTYPE_HOST, 0}, {ACL_MEM_LOCATIONTYPE_DEVICE, 0}};
    size_t idx[2] = {0, 1};
    CHECK_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, idx, 2, 0, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(-1, get_i32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, MIB2));
    CHECK_EQ(0, get_i32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, p + MIB2, MIB2));
    /* A bad entry anywhere: nothing is recorded. */
    size_t bad_sizes[2] = {MIB2, 100};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, bad_sizes, 2, locs, idx, 1, 0, s));
    CHECK_EQ(-1, get_i32(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, p, MIB2));
    size_t bad_idx[2] = {0, 0};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, bad_idx, 2, 0, s));
    size_t late_idx[1] = {1};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 2, locs, late_idx, 1, 0, s));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtFree(p));
}

TEST(bad_input_gets_the_documented_codes)
{
    void *p = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(NULL, 64, ACL_RT_MEM_ATTACH_GLOBAL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemAllocManaged(&p, 64, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemAllocManaged(&p, 0, ACL_RT_MEM_ATTACH_GLOBAL));
    CHECK_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMemAllocManaged(&p, UINT64_MAX, ACL_RT_MEM_ATTACH_GLOBAL));
    CHECK_OK(aclrtMemAllocManaged(&p, MIB2, ACL_RT_MEM_ATTACH_GLOBAL));
    aclrtMemManagedLocation dev0 = {ACL_MEM_LOCATIONTYPE_DEVICE, 0};
    aclrtMemManagedLocation dev99 = {ACL_MEM_LOCATIONTYPE_DEVICE, 99};
    aclrtMemManagedLocation bad = {(aclrtMemManagedLocationType)17, 0};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(NULL, MIB2, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedAdvise(p, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(p, MIB2, (aclrtMemManagedAdviseType)6, dev0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(p, 4096, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "2 MiB");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(p, 2 * MIB2, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(p, MIB2, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, dev99));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(p, MIB2, ACL_MEM_ADVISE_SET_ACCESSED_BY, bad));
    /* Not managed memory. */
    void *dev;
    CHECK_OK(aclrtMalloc(&dev, MIB2, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(dev, MIB2, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "not managed memory");
    int32_t v;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, dev, 4, &v, 4));
    CHECK_OK(aclrtFree(dev));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4, NULL, 4));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 0, &v, 4));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)0, p, 4, &v, 4));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)9, p, 4, &v, 4));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 4, &v, 2));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, 4, &v, 3));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, MIB2 + 1, &v, 4));
    aclrtMemManagedRangeAttribute attrs[1] = {(aclrtMemManagedRangeAttribute)42};
    void *data[1] = {&v};
    size_t sizes[1] = {4};
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedGetAttrs(attrs, 1, p, 4, data, sizes));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(NULL, 1, p, 4, data, sizes));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedGetAttrs(attrs, 1, p, 4, NULL, sizes));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(NULL, MIB2, dev0, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(p, 0, dev0, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchAsync(p, MIB2, dev0, 1, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchAsync(p, MIB2, dev99, 0, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchAsync(p, 4096, dev0, 0, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemManagedPrefetchAsync(p, MIB2, dev0, 0, (aclrtStream)(uintptr_t)0x1234));
    const void *ptrs[1] = {p};
    size_t psz[1] = {MIB2};
    size_t idx[1] = {0};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, psz, 0, &dev0, idx, 1, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, psz, 1, NULL, idx, 1, 0, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemManagedPrefetchBatchAsync(ptrs, psz, 1, &dev0, idx, 1, 2, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedPrefetchBatchAsync(ptrs, psz, 1, &dev0, idx, 2, 0, NULL));
    CHECK_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, psz, 1, &dev0, idx, 1, 0, NULL));
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtFree(p));
    /* Freed: no longer managed memory. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemManagedAdvise(p, MIB2, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(managed_memory_is_read_and_written_by_host_and_tasks);
    RUN(advice_is_recorded_per_page_and_read_back);
    RUN(a_prefetch_is_a_task_in_its_streams_order);
    RUN(bad_input_gets_the_documented_codes);
    gates_open_all();
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("managed");
}
