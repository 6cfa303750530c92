/*
 * tests/test_mem_pool.c - pins stream-ordered memory pools (docs/SEMANTICS.md,
 * Stream-ordered memory pools): allocation and use in stream order, reuse
 * on the freeing stream at once, reuse on another stream only after the
 * free's point has run (and not with opportunistic reuse off), best fit,
 * maxSize, trimming, the attributes and their high-water marks, destroy
 * with allocations in use, and bad input.
 *
 * Ordering is proven with gates, never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <stdint.h>
#include <string.h>

static aclrtMemPool make_pool(size_t max_size)
{
    aclrtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    props.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    props.maxSize = max_size;
    aclrtMemPool pool = NULL;
    CHECK_OK(aclrtMemPoolCreate(&pool, &props));
    return pool;
}

static uint64_t attr64(aclrtMemPool pool, aclrtMemPoolAttr attr)
{
    uint64_t v = 12345;
    CHECK_OK(aclrtMemPoolGetAttr(pool, attr, &v));
    return v;
}

TEST(pool_memory_is_device_memory_used_in_stream_order)
{
    aclrtMemPool pool = make_pool(0);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    void *p = NULL;
    CHECK_OK(aclrtMemPoolMallocAsync(&p, 1000, pool, s));
    CHECK(p != NULL);
    aclrtPtrAttributes a;
    CHECK_OK(aclrtPointerGetAttributes(p, &a));
    CHECK_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, a.location.type);
    CHECK_OK(aclrtMemsetAsync(p, 1000, 0x42, 1000, s));
    unsigned char host[1000];
    CHECK_OK(aclrtMemcpyAsync(host, sizeof host, p, 1000, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK_OK(aclrtMemPoolFreeAsync(p, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0x42, host[999]);
    /* aclrtFree refuses pool memory; a second free is refused too. */
    void *q;
    CHECK_OK(aclrtMemPoolMallocAsync(&q, 1000, pool, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(q));
    CHECK_OK(aclrtMemPoolFreeAsync(q, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync(q, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "already freed");
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtMemPoolDestroy(pool));
}

TEST(a_free_is_reused_on_its_stream_at_once_elsewhere_after_its_point)
{
    aclrtMemPool pool = make_pool(0);
    aclrtStream s1, s2;
    CHECK_OK(aclrtCreateStream(&s1));
    CHECK_OK(aclrtCreateStream(&s2));
    void *p, *q, *r;
    CHECK_OK(aclrtMemPoolMallocAsync(&p, 4096, pool, s1));
    /* Hold s1: its free's point cannot run yet. */
    struct gate *g = launch_gate(s1);
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclrtMemPoolFreeAsync(p, s1));
    /* Another stream gets other memory... */
    CHECK_OK(aclrtMemPoolMallocAsync(&q, 4096, pool, s2));
    CHECK(q != p);
    /* ...the same stream the freed block, at once. */
    CHECK_OK(aclrtMemPoolMallocAsync(&r, 4096, pool, s1));
    CHECK(r == p);
    CHECK_OK(aclrtMemPoolFreeAsync(r, s1));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s1));
    /* The free's point has run: s2 may reuse it now. */
    void *t;
    CHECK_OK(aclrtMemPoolMallocAsync(&t, 4096, pool, s2));
    CHECK(t == p);
    CHECK_OK(aclrtMemPoolFreeAsync(t, s2));
    CHECK_OK(aclrtMemPoolFreeAsync(q, s2));
    CHECK_OK(aclrtSynchronizeStream(s2));
    /* Opportunistic reuse off: a block freed on s2 is not taken on s1, even after its point. */
    uint32_t off = 0;
    CHECK_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &off));
    uint32_t flag = 7;
    CHECK_OK(aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_REUSE_ALLOW_OPPORTUNISTIC, &flag));
    CHECK_EQ(0u, flag);
    uint64_t keep_all = UINT64_MAX; /* growing keeps the free blocks */
    CHECK_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &keep_all));
    uint64_t before = attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT);
    void *u;
    CHECK_OK(aclrtMemPoolMallocAsync(&u, 4096, pool, s1));
    CHECK(u != p && u != q);
    CHECK_EQ(before + 4096, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT));
    CHECK_OK(aclrtMemPoolFreeAsync(u, s1));
    CHECK_OK(aclrtSynchronizeStream(s1));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtDestroyStream(s2));
    CHECK_OK(aclrtMemPoolDestroy(pool));
}

TEST(best_fit_max_size_trim_and_counters)
{
    aclrtMemPool pool = make_pool(16384);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    void *big, *small;
    CHECK_OK(aclrtMemPoolMallocAsync(&big, 8192, pool, s));
    CHECK_OK(aclrtMemPoolMallocAsync(&small, 1024, pool, s));
    CHECK_EQ(9216u, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT));
    CHECK_EQ(9216u, attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT));
    CHECK_OK(aclrtMemPoolFreeAsync(big, s));
    CHECK_OK(aclrtMemPoolFreeAsync(small, s));
    CHECK_EQ(0u, attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT));
    CHECK_EQ(9216u, attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH));
    /* 1000 bytes: the 1024-byte block fits closest. */
    void *x;
    CHECK_OK(aclrtMemPoolMallocAsync(&x, 1000, pool, s));
    CHECK(x == small);
    /* Past maxSize: refused. */
    void *y;
    CHECK_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMemPoolMallocAsync(&y, 16384, pool, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "maxSize");
    CHECK_OK(aclrtMemPoolFreeAsync(x, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    /* Trim keeps what it is told to: the largest free block goes first. */
    CHECK_OK(aclrtMemPoolTrimTo(pool, 2000));
    CHECK_EQ(1024u, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT));
    CHECK_EQ(9216u, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH));
    uint64_t zero = 0;
    CHECK_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH, &zero));
    CHECK_EQ(1024u, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_HIGH));
    CHECK_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &zero));
    CHECK_EQ(0u, attr64(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH));
    CHECK_OK(aclrtMemPoolTrimTo(pool, 0));
    CHECK_EQ(0u, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT));
    /* The release threshold: growing lets go of the free memory beyond it first. */
    uint64_t threshold = 0;
    CHECK_OK(aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, &threshold));
    CHECK_EQ(0u, attr64(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD));
    CHECK_OK(aclrtMemPoolMallocAsync(&x, 12288, pool, s));
    CHECK_OK(aclrtMemPoolFreeAsync(x, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtMemPoolMallocAsync(&y, 16384, pool, s)); /* only fits once the free 12288 went back */
    CHECK_EQ(16384u, attr64(pool, ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT));
    /* Destroy waits for the allocations to be freed. */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolDestroy(pool));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "in use");
    CHECK_OK(aclrtMemPoolFreeAsync(y, s));
    CHECK_OK(aclrtMemPoolDestroy(pool));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(bad_input_gets_the_documented_codes)
{
    aclrtMemPoolProps props;
    memset(&props, 0, sizeof props);
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    aclrtMemPool pool;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolCreate(NULL, &props));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolCreate(&pool, NULL));
    props.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemPoolCreate(&pool, &props));
    props.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    props.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolCreate(&pool, &props));
    props.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 999;
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemPoolCreate(&pool, &props));
    props.location.id = 0;
    props.allocType = (aclrtMemAllocationType)3;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolCreate(&pool, &props));
    pool = make_pool(0);
    void *p;
    uint64_t v = 0;
    int not_a_pool;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolMallocAsync(NULL, 64, pool, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolMallocAsync(&p, 0, pool, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolMallocAsync(&p, 64, NULL, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolMallocAsync(&p, 64, &not_a_pool, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemPoolMallocAsync(&p, 64, pool, (aclrtStream)(uintptr_t)0x1234));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolFreeAsync(NULL, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolFreeAsync(&not_a_pool, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolGetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolGetAttr(pool, (aclrtMemPoolAttr)0, &v));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolGetAttr(&not_a_pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT, &v));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "read-only");
    v = 5;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_USED_MEM_HIGH, &v));
    uint32_t two = 2;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_REUSE_FOLLOW_EVENT_DEPENDENCIES, &two));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolSetAttr(pool, ACL_RT_MEM_POOL_ATTR_RELEASE_THRESHOLD, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolTrimTo(NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolTrimTo(&not_a_pool, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemPoolDestroy(NULL));
    CHECK_OK(aclrtMemPoolDestroy(pool));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolDestroy(pool));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolMallocAsync(&p, 64, pool, NULL));
}

TEST(pools_end_with_the_runtime)
{
    aclrtMemPool pool = make_pool(0);
    void *p;
    CHECK_OK(aclrtMemPoolMallocAsync(&p, 64, pool, NULL));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemPoolMallocAsync(&p, 64, pool, NULL));
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(pool_memory_is_device_memory_used_in_stream_order);
    RUN(a_free_is_reused_on_its_stream_at_once_elsewhere_after_its_point);
    RUN(best_fit_max_size_trim_and_counters);
    RUN(bad_input_gets_the_documented_codes);
    RUN(pools_end_with_the_runtime);
    gates_open_all();
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("mem_pool");
}
