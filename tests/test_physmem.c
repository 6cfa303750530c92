/*
 * tests/test_physmem.c - physical memory, reserved address ranges, mappings,
 * access rights and the in-process side of sharing (docs/SEMANTICS.md,
 * "Physical memory and virtual addresses"; imports in another process are
 * in tests/test_ipc.c).
 *
 * Two devices (ACLRT_DEVICES=2, set before the first call).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "check.h"
#include "gate.h"

#include <pthread.h>
#include <unistd.h>

#define MIB ((size_t)1 << 20)

static aclrtPhysicalMemProp prop_of(aclrtMemLocationType where, uint32_t id, aclrtMemAttr attr)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = where;
    prop.location.id = id;
    prop.memAttr = attr;
    return prop;
}

static size_t granularity_of(aclrtPhysicalMemProp prop)
{
    size_t g = 0;
    CHECK_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    return g;
}

static aclrtDrvMemHandle physical_on(uint32_t dev, size_t size)
{
    aclrtPhysicalMemProp prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, dev, ACL_HBM_MEM_NORMAL);
    aclrtDrvMemHandle h = NULL;
    CHECK_OK(aclrtMallocPhysical(&h, size, &prop, 0));
    CHECK(h != NULL);
    return h;
}

static void *reserve(size_t size)
{
    void *p = NULL;
    CHECK_OK(aclrtReserveMemAddress(&p, size, 0, NULL, 0));
    CHECK(p != NULL);
    return p;
}

TEST(granularity_follows_the_memory_attribute)
{
    CHECK_EQ(2 * MIB, granularity_of(prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_HBM_MEM_NORMAL)));
    CHECK_EQ(2 * MIB, granularity_of(prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 1, ACL_MEM_HUGE)));
    CHECK_EQ(1024 * MIB, granularity_of(prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_HUGE1G)));
    CHECK_EQ(sysconf(_SC_PAGESIZE), granularity_of(prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_NORMAL)));
    CHECK_EQ(sysconf(_SC_PAGESIZE), granularity_of(prop_of(ACL_MEM_LOCATION_TYPE_HOST, 0, ACL_DDR_MEM_NORMAL)));
    aclrtPhysicalMemProp prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_HBM_MEM_HUGE);
    size_t g = 0;
    CHECK_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
    CHECK_EQ(2 * MIB, g);
}

TEST(granularity_refuses_bad_properties_options_and_outputs)
{
    aclrtPhysicalMemProp prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_HBM_MEM_NORMAL);
    size_t g = 123;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemGetAllocationGranularity(&prop, (aclrtMemGranularityOptions)5, &g));
    prop.memAttr = ACL_DDR_MEM_NORMAL; /* host memory on a device */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    prop.memAttr = ACL_HBM_MEM; /* not a physical memory attribute */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 2, ACL_HBM_MEM_NORMAL);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID,
             aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    prop = prop_of(ACL_MEM_LOCATION_TYPE_HOST, 0, ACL_MEM_HUGE1G);
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    CHECK_EQ(123, g);
}

TEST(malloc_physical_refuses_bad_arguments_and_allocates_nothing)
{
    aclrtPhysicalMemProp prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_HBM_MEM_NORMAL);
    aclrtDrvMemHandle h = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(NULL, 2 * MIB, &prop, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MIB, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 0, &prop, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MIB, &prop, 1));
    prop.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MIB, &prop, 0));
    prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_HBM_MEM_NORMAL);
    prop.allocationType = (aclrtMemAllocationType)1;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MIB, &prop, 0));
    prop = prop_of(ACL_MEM_LOCATION_TYPE_MANAGED, 0, ACL_HBM_MEM_NORMAL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 2 * MIB, &prop, 0));
    prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 5, ACL_HBM_MEM_NORMAL);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMallocPhysical(&h, 2 * MIB, &prop, 0));
    prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_HBM_MEM_NORMAL);
    CHECK_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocPhysical(&h, SIZE_MAX - 4096, &prop, 0));
    CHECK(h == NULL);
}

TEST(two_mappings_of_one_block_are_the_same_memory)
{
    size_t g = 2 * MIB;
    aclrtDrvMemHandle h = physical_on(0, g);
    /* volatile: the compiler may not know that two addresses are one memory */
    volatile unsigned char *va = (volatile unsigned char *)reserve(2 * g);
    CHECK_OK(aclrtMapMem((void *)va, g, 0, h, 0));
    CHECK_OK(aclrtMapMem((void *)(va + g), g, 0, h, 0));
    va[17] = 0x5C;
    va[g - 1] = 0x7E;
    CHECK_EQ(0x5C, va[g + 17]);
    CHECK_EQ(0x7E, va[2 * g - 1]);
    CHECK_OK(aclrtUnmapMem((void *)(va + g)));
    CHECK_OK(aclrtUnmapMem((void *)va));
    CHECK_OK(aclrtReleaseMemAddress((void *)va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(an_unaligned_size_is_rounded_up_to_the_granularity_and_maps_whole)
{
    aclrtDrvMemHandle h = physical_on(0, 1000);
    unsigned char *va = (unsigned char *)reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, 1000, 0, h, 0)); /* the size given to aclrtMallocPhysical */
    va[2 * MIB - 1] = 1;                       /* the whole 2 MiB block is there */
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h, 0)); /* or the rounded size */
    CHECK_EQ(1, va[2 * MIB - 1]);
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(mapped_device_memory_is_device_memory_for_copies_and_value_operations)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB);
    unsigned char *va = (unsigned char *)reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    /* A value write takes it (it refuses host memory). */
    CHECK_OK(aclrtValueWrite(va + 64, 42, 0, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    uint64_t word;
    memcpy(&word, va + 64, sizeof word);
    CHECK_EQ(42, word);
    /* An async copy with pinned host memory returns at once (behind a busy stream). */
    void *pinned = NULL;
    CHECK_OK(aclrtMallocHost(&pinned, 4096));
    memset(pinned, 0x3D, 4096);
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtMemcpyAsync(va + 4096, 4096, pinned, 4096, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK_EQ(0, va[4096]);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0x3D, va[4096]);
    CHECK_EQ(0x3D, va[8191]);
    /* It is not aclrtMalloc memory. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(va));
    CHECK_OK(aclrtUnmapMem(va));
    /* Unmapped, it is no device memory any more. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(va + 64, 1, 0, s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtFreeHost(pinned));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(mapped_host_memory_is_pinned_but_not_device_memory)
{
    aclrtPhysicalMemProp prop = prop_of(ACL_MEM_LOCATION_TYPE_HOST, 0, ACL_DDR_MEM_NORMAL);
    size_t g = granularity_of(prop);
    aclrtDrvMemHandle h = NULL;
    CHECK_OK(aclrtMallocPhysical(&h, g, &prop, 0));
    unsigned char *va = (unsigned char *)reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, g, 0, h, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(va, 1, 0, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(va));
    va[0] = 9;
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(map_refuses_a_wrong_size_place_offset_or_handle)
{
    size_t g = 2 * MIB;
    aclrtDrvMemHandle h = physical_on(0, g);
    unsigned char *va = (unsigned char *)reserve(2 * g);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(NULL, g, 0, h, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, g, 0, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 0, 0, h, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, g, 0, h, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, 2 * g, 0, h, 0));  /* not the block's size */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, g, 4096, h, 0));   /* offset must be 0 */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + 4096, g, 0, h, 0)); /* not aligned */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + 2 * g, g, 0, h, 0)); /* outside the range */
    unsigned char local[64];
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(local, g, 0, h, 0)); /* not reserved */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMapMem(va, g, 0, (aclrtDrvMemHandle)local, 0));
    CHECK_OK(aclrtMapMem(va, g, 0, h, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, g, 0, h, 0)); /* already mapped there */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(va + g));        /* nothing mapped there */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(NULL));
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(a_reserved_range_holds_memory_of_one_device_only)
{
    aclrtDrvMemHandle h0 = physical_on(0, 2 * MIB), h1 = physical_on(1, 2 * MIB);
    unsigned char *va = (unsigned char *)reserve(4 * MIB);
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h0, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + 2 * MIB, 2 * MIB, 0, h1, 0));
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtMapMem(va + 2 * MIB, 2 * MIB, 0, h1, 0)); /* once empty, another device's */
    CHECK_OK(aclrtUnmapMem(va + 2 * MIB));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h0));
    CHECK_OK(aclrtFreePhysical(h1));
}

TEST(a_freed_block_lives_until_its_last_mapping_goes)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB);
    unsigned char *va = (unsigned char *)reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
    va[100] = 0x42;
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_EQ(0x42, va[100]); /* still mapped, still the same memory */
    va[101] = 0x43;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMapMem(va, 2 * MIB, 0, h, 0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(h));
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(NULL));
}

TEST(reserve_checks_arguments_and_honours_an_expected_address)
{
    void *p = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(NULL, MIB, 0, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&p, 0, 0, NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&p, MIB, 0, NULL, 2));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&p, MIB, 4096, NULL, 0));
    CHECK(p == NULL);
    void *first = reserve(4 * MIB);
    CHECK_EQ(0, (uintptr_t)first % (2 * MIB));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&p, MIB, 0, first, 0)); /* in use */
    CHECK_OK(aclrtReleaseMemAddress(first));
    CHECK_OK(aclrtReserveMemAddress(&p, 2 * MIB, 0, first, 0)); /* free again: reserved there */
    CHECK(p == first);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress((char *)p + 4096)); /* not a range's start */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(NULL));
    CHECK_OK(aclrtReleaseMemAddress(p));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(p)); /* twice */
}

TEST(release_refuses_a_range_that_still_has_memory_mapped)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB);
    void *va = reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

static aclrtMemAccessDesc access_for(uint32_t dev, aclrtMemAccessFlags flags)
{
    aclrtMemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.flags = flags;
    d.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = dev;
    return d;
}

static uint64_t access_of(void *va, uint32_t dev)
{
    aclrtMemLocation loc = {dev, ACL_MEM_LOCATION_TYPE_DEVICE};
    uint64_t flags = 99;
    CHECK_OK(aclrtMemGetAccess(va, &loc, &flags));
    return flags;
}

TEST(access_rights_start_with_the_owning_device_and_follow_set_access)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB);
    unsigned char *va = (unsigned char *)reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
    CHECK_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, access_of(va, 0));
    CHECK_EQ(ACL_RT_MEM_ACCESS_FLAGS_NONE, access_of(va + 4096, 1));
    aclrtMemAccessDesc both[2] = {access_for(0, ACL_RT_MEM_ACCESS_FLAGS_READ),
                                  access_for(1, ACL_RT_MEM_ACCESS_FLAGS_READWRITE)};
    CHECK_OK(aclrtMemSetAccess(va, 2 * MIB, both, 2));
    CHECK_EQ(ACL_RT_MEM_ACCESS_FLAGS_READ, access_of(va, 0));
    CHECK_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, access_of(va, 1));
    va[0] = 1; /* one device may write: the shared address space stays writable */
    aclrtMemAccessDesc rw = access_for(0, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
    CHECK_OK(aclrtMemSetAccess(va, 2 * MIB, &rw, 1));
    CHECK_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, access_of(va, 0));
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(set_and_get_access_refuse_bad_arguments)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB);
    unsigned char *va = (unsigned char *)reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
    aclrtMemAccessDesc d = access_for(0, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(NULL, 2 * MIB, &d, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, 2 * MIB, NULL, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, 2 * MIB, &d, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, 4 * MIB, &d, 1));      /* not the mapping's size */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va + 4096, 2 * MIB, &d, 1)); /* not its start */
    d.flags = (aclrtMemAccessFlags)2;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, 2 * MIB, &d, 1));
    d = access_for(0, ACL_RT_MEM_ACCESS_FLAGS_READ);
    d.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, 2 * MIB, &d, 1));
    d = access_for(7, ACL_RT_MEM_ACCESS_FLAGS_READ);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemSetAccess(va, 2 * MIB, &d, 1));
    CHECK_EQ(ACL_RT_MEM_ACCESS_FLAGS_READWRITE, access_of(va, 0)); /* nothing changed */
    aclrtMemLocation loc = {0, ACL_MEM_LOCATION_TYPE_DEVICE};
    uint64_t flags;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, NULL, &flags));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemGetAccess(va, &loc, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAccess(&flags, &loc, &flags)); /* not mapped memory */
    CHECK_OK(aclrtUnmapMem(va));
    CHECK_OK(aclrtReleaseMemAddress(va));
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(export_gives_a_block_one_shareable_handle_with_a_whitelist)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB);
    uint64_t shareable = 0, again = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(NULL, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, &shareable));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 2, &shareable));
    CHECK_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &shareable));
    CHECK(shareable != 0);
    CHECK_EQ((uint64_t)getpid(), shareable >> 42); /* the exporter's pid leads the handle */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &again));
    int32_t pids[2] = {1234, 5678};
    CHECK_OK(aclrtMemSetPidToShareableHandle(shareable, pids, 2));
    CHECK_OK(aclrtMemSetPidToShareableHandle(shareable, pids, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(shareable, NULL, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(shareable, pids, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(shareable + 1, pids, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(shareable, pids, (size_t)1 << 40));
    int32_t not_a_pid = 0;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(shareable, &not_a_pid, 1));
    CHECK_OK(aclrtFreePhysical(h));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(shareable, pids, 1)); /* gone with it */
}

/* Imports across processes are pinned in tests/test_ipc.c (they need a second process). */
TEST(import_refuses_the_exporting_process_and_handles_that_name_no_export)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB), imported = NULL;
    uint64_t shareable = 0;
    CHECK_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE,
                                             ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION, &shareable));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemImportFromShareableHandle(shareable, 0, &imported));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "exported by this process");
    /* Another process's pid, a descriptor it does not export: nothing to import. */
    uint64_t other = ((uint64_t)getppid() << 42) | ((uint64_t)2 << 22) | 1;
    CHECK_EQ(ACL_ERROR_RT_IPC_ERROR, aclrtMemImportFromShareableHandle(other, 1, &imported));
    uint64_t stale = shareable ^ 1; /* this process's, naming nothing */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(stale, 0, &imported));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(0, 0, &imported));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(shareable, 0, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(shareable, 2, &imported));
    CHECK(imported == NULL);
    CHECK_OK(aclrtFreePhysical(h));
}

TEST(bare_tgid_is_the_process_id)
{
    int32_t pid = 0;
    CHECK_OK(aclrtDeviceGetBareTgid(&pid));
    CHECK_EQ(getpid(), pid);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetBareTgid(NULL));
}

static aclError write_value_kernel(uint32_t block, uint32_t blocks, void *args)
{
    (void)blocks;
    ((int *)args)[block] = 123;
    return ACL_SUCCESS;
}

/* Process A of CANN's physical memory sharing samples, as far as one process goes. */
TEST(the_physical_memory_sample_flow_writes_through_a_kernel_and_reads_back)
{
    aclrtStream stream;
    CHECK_OK(aclrtCreateStream(&stream));
    aclrtPhysicalMemProp prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_HBM_MEM_NORMAL);
    size_t granularity = 0;
    CHECK_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity));
    size_t aligned = (1024 * sizeof(float) + granularity - 1) / granularity * granularity;
    aclrtDrvMemHandle handle = NULL;
    CHECK_OK(aclrtMallocPhysical(&handle, aligned, &prop, 0));
    void *virPtr = NULL;
    CHECK_OK(aclrtReserveMemAddress(&virPtr, granularity, 0, NULL, 0));
    CHECK_OK(aclrtMapMem(virPtr, granularity, 0, handle, 0));
    aclrtMemAccessDesc desc = access_for(0, ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
    CHECK_OK(aclrtMemSetAccess(virPtr, granularity, &desc, 1));
    CHECK_OK(aclrtxLaunchHostKernel(stream, 1, write_value_kernel, virPtr));
    uint64_t shareable = 0;
    CHECK_OK(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, 0, &shareable));
    int32_t pid = 0;
    CHECK_OK(aclrtDeviceGetBareTgid(&pid));
    CHECK_OK(aclrtMemSetPidToShareableHandle(shareable, &pid, 1));
    int *host = NULL;
    CHECK_OK(aclrtMallocHost((void **)&host, granularity));
    CHECK_OK(aclrtSynchronizeStream(stream));
    CHECK_OK(aclrtMemcpy(host, granularity, virPtr, granularity, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(123, host[0]);
    CHECK_OK(aclrtUnmapMem(virPtr));
    CHECK_OK(aclrtReleaseMemAddress(virPtr));
    CHECK_OK(aclrtFreePhysical(handle));
    CHECK_OK(aclrtFreeHost(host));
    CHECK_OK(aclrtDestroyStream(stream));
}

#define MAPPERS 4
#define MAPPER_ROUNDS 20

static void *mapper_main(void *arg)
{
    long id = (long)arg;
    aclrtPhysicalMemProp prop = prop_of(ACL_MEM_LOCATION_TYPE_DEVICE, (uint32_t)(id % 2), ACL_MEM_NORMAL);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (int r = 0; r < MAPPER_ROUNDS; r++) {
        aclrtDrvMemHandle h = NULL;
        void *va = NULL;
        if (aclrtMallocPhysical(&h, page, &prop, 0) != ACL_SUCCESS ||
            aclrtReserveMemAddress(&va, 2 * page, 0, NULL, 0) != ACL_SUCCESS ||
            aclrtMapMem((char *)va + page, page, 0, h, 0) != ACL_SUCCESS)
            return (void *)1;
        ((volatile long *)((char *)va + page))[0] = id;
        if (((volatile long *)((char *)va + page))[0] != id || aclrtUnmapMem((char *)va + page) != ACL_SUCCESS ||
            aclrtReleaseMemAddress(va) != ACL_SUCCESS || aclrtFreePhysical(h) != ACL_SUCCESS)
            return (void *)1;
    }
    return NULL;
}

TEST(threads_allocate_map_and_release_at_the_same_time)
{
    pthread_t t[MAPPERS];
    for (long i = 0; i < MAPPERS; i++)
        CHECK_EQ(0, pthread_create(&t[i], NULL, mapper_main, (void *)i));
    int failed = 0;
    for (int i = 0; i < MAPPERS; i++) {
        void *ret;
        pthread_join(t[i], &ret);
        failed += ret != NULL;
    }
    CHECK_EQ(0, failed);
}

TEST(finalize_releases_physical_memory_reservations_and_mappings)
{
    aclrtDrvMemHandle h = physical_on(0, 2 * MIB);
    unsigned char *va = (unsigned char *)reserve(2 * MIB);
    CHECK_OK(aclrtMapMem(va, 2 * MIB, 0, h, 0));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtFreePhysical(h));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(va));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(va));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(va, 1, 0, NULL));
}

#define RUN_CASE(name)    \
    do {                  \
        RUN(name);        \
        gates_open_all(); \
    } while (0)

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "physmem: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(granularity_follows_the_memory_attribute);
    RUN_CASE(granularity_refuses_bad_properties_options_and_outputs);
    RUN_CASE(malloc_physical_refuses_bad_arguments_and_allocates_nothing);
    RUN_CASE(two_mappings_of_one_block_are_the_same_memory);
    RUN_CASE(an_unaligned_size_is_rounded_up_to_the_granularity_and_maps_whole);
    RUN_CASE(mapped_device_memory_is_device_memory_for_copies_and_value_operations);
    RUN_CASE(mapped_host_memory_is_pinned_but_not_device_memory);
    RUN_CASE(map_refuses_a_wrong_size_place_offset_or_handle);
    RUN_CASE(a_reserved_range_holds_memory_of_one_device_only);
    RUN_CASE(a_freed_block_lives_until_its_last_mapping_goes);
    RUN_CASE(reserve_checks_arguments_and_honours_an_expected_address);
    RUN_CASE(release_refuses_a_range_that_still_has_memory_mapped);
    RUN_CASE(access_rights_start_with_the_owning_device_and_follow_set_access);
    RUN_CASE(set_and_get_access_refuse_bad_arguments);
    RUN_CASE(export_gives_a_block_one_shareable_handle_with_a_whitelist);
    RUN_CASE(import_refuses_the_exporting_process_and_handles_that_name_no_export);
    RUN_CASE(bare_tgid_is_the_process_id);
    RUN_CASE(the_physical_memory_sample_flow_writes_through_a_kernel_and_reads_back);
    RUN_CASE(threads_allocate_map_and_release_at_the_same_time);
    RUN_CASE(finalize_releases_physical_memory_reservations_and_mappings);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("physmem");
}
