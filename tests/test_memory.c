/*
 * tests/test_memory.c - pins "tasks and memory" (docs/SEMANTICS.md, Tasks
 * and memory): host functions and their
 * arguments, host kernels (every block exactly once, failures), device and
 * pinned host memory (checks, alignment, foreign and double frees), copies
 * and memsets (size checks, kinds, overlap, the low byte), the async forms
 * (stream order with runtime memory, done-on-return with pageable memory),
 * memory shared by streams, and aclFinalize freeing what is left.
 *
 * Ordering is proven with gates (host functions spinning on an atomic the
 * test opens), never with sleeps. Everything a task touches lives in static
 * storage; after every case all gates are opened and the device drained.
 * The ASan build runs with detect_leaks=1: the finalize case leaves
 * allocations behind on purpose, and only aclFinalize frees them.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static void count_fn(void *arg)
{
    (*(int *)arg)++;
}

static int all_bytes_are(const void *p, size_t n, unsigned char v)
{
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v)
            return 0;
    return 1;
}

/* ------------------------------------------------------------------------
 * Host functions and host kernels
 * ------------------------------------------------------------------------ */

TEST(launch_host_func_with_null_fn_is_invalid_param)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static int x;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchHostFunc(NULL, NULL, &x));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchHostFunc(s, NULL, &x));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtLaunchHostFunc(s, NULL, NULL));
    /* Nothing was enqueued. */
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_OK(aclrtDestroyStream(s));
}

struct arg_probe {
    int id;
    int calls;
    void *seen;
};
static struct arg_probe probes[8];
static void *null_arg_seen;
static int null_arg_calls;

static void probe_fn(void *arg)
{
    struct arg_probe *p = (struct arg_probe *)arg;
    p->calls++;
    p->seen = arg;
}

static void null_arg_fn(void *arg)
{
    null_arg_seen = arg;
    null_arg_calls++;
}

TEST(host_func_receives_its_args_unchanged)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    for (int i = 0; i < 8; i++)
        probes[i] = (struct arg_probe){i, 0, NULL};
    for (int i = 0; i < 8; i++)
        CHECK_OK(aclrtLaunchHostFunc(i % 2 ? s : NULL, probe_fn, &probes[i]));
    null_arg_seen = &null_arg_seen;
    null_arg_calls = 0;
    CHECK_OK(aclrtLaunchHostFunc(s, null_arg_fn, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    for (int i = 0; i < 8; i++) {
        CHECK_EQ(i, probes[i].id);
        CHECK_EQ(1, probes[i].calls);
        CHECK(probes[i].seen == &probes[i]);
    }
    CHECK_EQ(1, null_arg_calls);
    CHECK(null_arg_seen == NULL);
    CHECK_OK(aclrtDestroyStream(s));
}

#define MAX_BLOCKS 1000
static atomic_int block_runs[MAX_BLOCKS];
static atomic_int block_bad; /* calls with a wrong block index, block count or argument */

static aclError counting_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    uint32_t expected = (uint32_t)(uintptr_t)(*(void **)arg);
    if (blocks != expected || block >= blocks || block >= MAX_BLOCKS)
        atomic_fetch_add(&block_bad, 1);
    else
        atomic_fetch_add(&block_runs[block], 1);
    return ACL_SUCCESS;
}

TEST(host_kernel_runs_every_block_index_exactly_once)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static void *expected_blocks;
    for (uint32_t n = 1; n <= MAX_BLOCKS; n++) {
        for (uint32_t b = 0; b < n; b++)
            atomic_store(&block_runs[b], 0);
        atomic_store(&block_bad, 0);
        expected_blocks = (void *)(uintptr_t)n;
        CHECK_OK(aclrtxLaunchHostKernel(s, n, counting_kernel, &expected_blocks));
        CHECK_OK(aclrtSynchronizeStream(s));
        CHECK_EQ(0, atomic_load(&block_bad));
        for (uint32_t b = 0; b < n; b++)
            CHECK_EQ(1, atomic_load(&block_runs[b]));
    }
    CHECK_OK(aclrtDestroyStream(s));
}

static int sum_seen;

/* Reads the block counts with relaxed loads: only the stream order makes the blocks' work visible. */
static void sum_blocks_fn(void *arg)
{
    (void)arg;
    int sum = 0;
    for (uint32_t b = 0; b < 512; b++)
        sum += atomic_load_explicit(&block_runs[b], memory_order_relaxed) == 1;
    sum_seen = sum;
}

/* Every block works in its stream's context, whichever thread runs it. */
#define CTX_BLOCKS 256
static aclrtContext ctx_expected;
static atomic_int ctx_wrong, ctx_blocks_ran;

static aclError ctx_block(uint32_t block, uint32_t blocks, void *args)
{
    (void)block, (void)blocks, (void)args;
    aclrtContext c = NULL;
    if (aclrtGetCurrentContext(&c) != ACL_SUCCESS || c != ctx_expected)
        atomic_fetch_add(&ctx_wrong, 1);
    for (volatile int i = 0; i < 20000; i++) /* work enough for idle executors to take blocks too */
        ;
    atomic_fetch_add(&ctx_blocks_ran, 1);
    return ACL_SUCCESS;
}

TEST(host_kernel_blocks_work_in_their_streams_context_on_every_thread)
{
    CHECK_OK(aclrtCreateContext(&ctx_expected, 0)); /* not the device's default context */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    atomic_store(&ctx_wrong, 0);
    atomic_store(&ctx_blocks_ran, 0);
    for (int round = 0; round < 4; round++)
        CHECK_OK(aclrtxLaunchHostKernel(s, CTX_BLOCKS, ctx_block, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(4 * CTX_BLOCKS, atomic_load(&ctx_blocks_ran));
    CHECK_EQ(0, atomic_load(&ctx_wrong));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyContext(ctx_expected));
}

TEST(host_kernel_is_done_when_its_task_completes)
{
    /* The task after a kernel sees every block's work: blocks of a task complete with it. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static void *expected_blocks;
    for (uint32_t b = 0; b < 512; b++)
        atomic_store(&block_runs[b], 0);
    atomic_store(&block_bad, 0);
    expected_blocks = (void *)(uintptr_t)512;
    sum_seen = -1;
    CHECK_OK(aclrtxLaunchHostKernel(s, 512, counting_kernel, &expected_blocks));
    CHECK_OK(aclrtLaunchHostFunc(s, sum_blocks_fn, NULL));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(512, sum_seen);
    CHECK_EQ(0, atomic_load(&block_bad));
    CHECK_OK(aclrtDestroyStream(s));
}

static aclError noop_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    (void)arg;
    return ACL_SUCCESS;
}

TEST(host_kernel_with_zero_blocks_or_null_fn_is_rejected)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxLaunchHostKernel(s, 0, noop_kernel, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxLaunchHostKernel(NULL, 0, noop_kernel, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxLaunchHostKernel(s, 4, NULL, NULL));
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    CHECK_OK(aclrtStreamQuery(s, &st));
    CHECK_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    CHECK_OK(aclrtSynchronizeStream(s)); /* a refused launch is no failed task */
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * aclrtMalloc / aclrtFree, aclrtMallocHost / aclrtFreeHost
 * ------------------------------------------------------------------------ */

TEST(malloc_rejects_null_output_and_size_zero)
{
    void *p = (void *)&p;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(NULL, 64));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(&p, 0));
}

static const size_t alloc_sizes[] = {1, 2, 31, 32, 33, 63, 64, 65, 100, 1000, 4096, 4097, 65536 + 7, 1u << 20,
                                     (3u << 20) + 1};
#define N_SIZES (sizeof alloc_sizes / sizeof alloc_sizes[0])

TEST(malloc_returns_64_byte_aligned_memory_writable_across_its_size)
{
    const aclrtMemMallocPolicy policies[] = {ACL_MEM_MALLOC_HUGE_FIRST,      ACL_MEM_MALLOC_HUGE_ONLY,
                                             ACL_MEM_MALLOC_NORMAL_ONLY,     ACL_MEM_MALLOC_HUGE_FIRST_P2P,
                                             ACL_MEM_MALLOC_HUGE_ONLY_P2P,   ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
                                             ACL_MEM_MALLOC_HUGE1G_ONLY,     ACL_MEM_MALLOC_HUGE1G_ONLY_P2P,
                                             ACL_MEM_TYPE_LOW_BAND_WIDTH,    ACL_MEM_TYPE_HIGH_BAND_WIDTH};
    /* (ACL_MEM_ACCESS_USER_SPACE_READONLY is left out: this case writes the memory.) */
    void *p[N_SIZES];
    for (size_t i = 0; i < N_SIZES; i++) {
        p[i] = NULL;
        CHECK_OK(aclrtMalloc(&p[i], alloc_sizes[i], policies[i % (sizeof policies / sizeof policies[0])]));
        CHECK(p[i] != NULL);
        CHECK_EQ(0, (uintptr_t)p[i] % 64);
        dev_fill_pattern(p[i], alloc_sizes[i], (unsigned)i);
    }
    /* Distinct allocations do not overlap: each kept its own pattern. */
    for (size_t i = 0; i < N_SIZES; i++)
        CHECK(dev_has_pattern(p[i], alloc_sizes[i], (unsigned)i));
    for (size_t i = 0; i < N_SIZES; i++)
        CHECK_OK(aclrtFree(p[i]));
}

TEST(malloc_host_returns_64_byte_aligned_memory_writable_across_its_size)
{
    void *p[N_SIZES];
    for (size_t i = 0; i < N_SIZES; i++) {
        p[i] = NULL;
        CHECK_OK(aclrtMallocHost(&p[i], alloc_sizes[i]));
        CHECK(p[i] != NULL);
        CHECK_EQ(0, (uintptr_t)p[i] % 64);
        fill_pattern(p[i], alloc_sizes[i], (unsigned)i + 7);
    }
    for (size_t i = 0; i < N_SIZES; i++)
        CHECK(has_pattern(p[i], alloc_sizes[i], (unsigned)i + 7));
    for (size_t i = 0; i < N_SIZES; i++)
        CHECK_OK(aclrtFreeHost(p[i]));
}

/*
 * Sizes no machine has: refused before anything rounds them (rounding near
 * SIZE_MAX wraps around to a tiny size that an allocator would grant), the
 * output left as it was. aclrtMalloc refuses a size whose rounding to 32
 * plus 32 bytes overflows as the ACL layer does (ACL_ERROR_INVALID_PARAM);
 * every other impossible size is ACL_ERROR_RT_MEMORY_ALLOCATION.
 */
TEST(malloc_and_malloc_host_of_impossible_sizes_fail_and_leave_the_output_alone)
{
    static const struct {
        size_t size;
        aclError malloc_code;
    } cases[] = {
        {(size_t)1 << 50, ACL_ERROR_RT_MEMORY_ALLOCATION}, /* 1 PiB */
        {SIZE_MAX / 2, ACL_ERROR_RT_MEMORY_ALLOCATION},
        {SIZE_MAX - 64, ACL_ERROR_RT_MEMORY_ALLOCATION}, /* the largest size the ACL layer passes on */
        {SIZE_MAX - 63, ACL_ERROR_INVALID_PARAM},
        {SIZE_MAX - 31, ACL_ERROR_INVALID_PARAM},
        {SIZE_MAX, ACL_ERROR_INVALID_PARAM},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        void *p = (void *)&p;
        CHECK_EQ(cases[i].malloc_code, aclrtMalloc(&p, cases[i].size, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(p == (void *)&p);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtMalloc]");
        CHECK_EQ(cases[i].malloc_code, aclrtGetLastError(ACL_RT_THREAD_LEVEL));

        CHECK_EQ(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocHost(&p, cases[i].size));
        CHECK(p == (void *)&p);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtMallocHost] cannot allocate");
    }
    /* Nothing was left behind: ordinary sizes work as before. */
    void *dev = NULL, *host = NULL;
    CHECK_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost(&host, 4096));
    CHECK(dev != NULL && host != NULL);
    CHECK_OK(aclrtMemset(dev, 4096, 0x5a, 4096));
    CHECK_OK(aclrtMemcpy(host, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK(all_bytes_are(host, 4096, 0x5a));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtFreeHost(host));
}

TEST(free_rejects_null_foreign_interior_and_double_frees)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    /* A pointer aclrtMalloc did not return: refused, and not freed (we free it; ASan would catch a double free). */
    char *foreign = (char *)malloc(256);
    CHECK(foreign != NULL);
    memset(foreign, 0x5A, 256);
    aclError rc = aclrtFree(foreign);
    int intact = all_bytes_are(foreign, 256, 0x5A);
    free(foreign);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, rc);
    CHECK(intact);
    static char not_heap[128];
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(not_heap));
    /* Interior pointers are not allocations; the allocation survives them. */
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, 1024, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(p, 1024, 0x11, 1024));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree((char *)p + 64));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree((char *)p + 1));
    CHECK(dev_all_bytes_are(p, 1024, 0x11));
    CHECK_OK(aclrtFree(p));
    /* Twice: the second is refused (and nothing is freed again). */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(p));
    void *q = NULL;
    CHECK_OK(aclrtMalloc(&q, 64, ACL_MEM_MALLOC_NORMAL_ONLY));
    CHECK_OK(aclrtFree(q));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(q));
}

TEST(free_host_rejects_null_foreign_and_double_frees)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(NULL));
    char *foreign = (char *)malloc(256);
    CHECK(foreign != NULL);
    memset(foreign, 0x5A, 256);
    aclError rc = aclrtFreeHost(foreign);
    int intact = all_bytes_are(foreign, 256, 0x5A);
    free(foreign);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, rc);
    CHECK(intact);
    void *p = NULL;
    CHECK_OK(aclrtMallocHost(&p, 512));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost((char *)p + 64));
    CHECK_OK(aclrtFreeHost(p));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(p));
}

TEST(free_and_free_host_do_not_accept_each_others_pointers)
{
    void *dev = NULL, *host = NULL;
    CHECK_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost(&host, 256));
    CHECK_OK(aclrtMemset(dev, 256, 0x22, 256));
    memset(host, 0x33, 256);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(dev));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(host));
    /* Both are still allocated and intact; each frees with its own call. */
    CHECK(dev_all_bytes_are(dev, 256, 0x22));
    CHECK(all_bytes_are(host, 256, 0x33));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtFreeHost(host));
}

/* ------------------------------------------------------------------------
 * aclrtMemcpy / aclrtMemset
 * ------------------------------------------------------------------------ */

TEST(memcpy_of_zero_bytes_succeeds_and_copies_nothing)
{
    static unsigned char dst[64], src[64];
    memset(dst, 0xEE, sizeof dst);
    memset(src, 0x01, sizeof src);
    CHECK_OK(aclrtMemcpy(dst, sizeof dst, src, 0, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_OK(aclrtMemcpy(dst, 1, src, 0, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK(all_bytes_are(dst, sizeof dst, 0xEE));
}

TEST(memcpy_rejects_count_over_dest_max_and_dest_max_zero)
{
    static unsigned char dst[64], src[64];
    memset(dst, 0xEE, sizeof dst);
    memset(src, 0x01, sizeof src);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dst, 32, src, 33, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(dst, 0, src, 1, ACL_MEMCPY_HOST_TO_HOST));
    CHECK(all_bytes_are(dst, sizeof dst, 0xEE)); /* a refused copy writes nothing */
    CHECK_OK(aclrtMemcpy(dst, 32, src, 32, ACL_MEMCPY_HOST_TO_HOST)); /* count == destMax is fine */
    CHECK(all_bytes_are(dst, 32, 0x01));
    CHECK(all_bytes_are(dst + 32, 32, 0xEE));
}

TEST(memcpy_rejects_null_pointers_and_unknown_kinds_and_accepts_every_kind_it_takes)
{
    static unsigned char dst[64], src[64];
    memset(dst, 0xEE, sizeof dst);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(NULL, 64, src, 64, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dst, 64, NULL, 64, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dst, 64, src, 64, (aclrtMemcpyKind)99));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dst, 64, src, 64, (aclrtMemcpyKind)8));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dst, 64, src, 64, (aclrtMemcpyKind)-1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dst, 64, src, 64, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(dst, 64, src, 64, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE));
    CHECK(all_bytes_are(dst, sizeof dst, 0xEE));
    void *dev = NULL, *pinned = NULL;
    CHECK_OK(aclrtMalloc(&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost(&pinned, 64));
    for (int kind = ACL_MEMCPY_HOST_TO_HOST; kind <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE; kind++) {
        /* Through device memory; a host-to-host copy through pinned host memory (device memory is not the host's). */
        void *mid = kind == ACL_MEMCPY_HOST_TO_HOST ? pinned : dev;
        fill_pattern(src, sizeof src, (unsigned)kind);
        CHECK_OK(aclrtMemset(mid, 64, 0, 64));
        memset(dst, 0, sizeof dst);
        CHECK_OK(aclrtMemcpy(mid, 64, src, 64, (aclrtMemcpyKind)kind));
        CHECK_OK(aclrtMemcpy(dst, sizeof dst, mid, 64, (aclrtMemcpyKind)kind));
        CHECK(has_pattern(dst, sizeof dst, (unsigned)kind));
    }
    CHECK_OK(aclrtFreeHost(pinned));
    CHECK_OK(aclrtFree(dev));
}

TEST(memcpy_with_overlapping_ranges_behaves_like_memmove)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    unsigned char *b = (unsigned char *)p; /* device memory: written and read through copies */
    unsigned char expect[256], got[256];
    /* Forward overlap: dst after src. */
    for (int i = 0; i < 256; i++)
        expect[i] = (unsigned char)i;
    dev_write(b, expect, 256);
    memmove(expect + 16, expect, 200);
    CHECK_OK(aclrtMemcpy(b + 16, 240, b, 200, ACL_MEMCPY_DEVICE_TO_DEVICE));
    dev_read(got, b, 256);
    CHECK_EQ(0, memcmp(expect, got, 256));
    /* Backward overlap: dst before src. */
    for (int i = 0; i < 256; i++)
        expect[i] = (unsigned char)(255 - i);
    dev_write(b, expect, 256);
    memmove(expect, expect + 3, 250);
    CHECK_OK(aclrtMemcpy(b, 256, b + 3, 250, ACL_MEMCPY_DEVICE_TO_DEVICE));
    dev_read(got, b, 256);
    CHECK_EQ(0, memcmp(expect, got, 256));
    /* The async form too. */
    for (int i = 0; i < 256; i++)
        expect[i] = (unsigned char)(i * 7);
    dev_write(b, expect, 256);
    memmove(expect + 1, expect, 255);
    CHECK_OK(aclrtMemcpyAsync(b + 1, 255, b, 255, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    dev_read(got, b, 256);
    CHECK_EQ(0, memcmp(expect, got, 256));
    CHECK_OK(aclrtFree(p));
}

TEST(memset_uses_the_low_byte_of_value)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    const int32_t values[] = {0, 0xAB, 0x1234ABCD, -1, 0x100, 0x7FFFFF01, INT32_MIN};
    const unsigned char bytes[] = {0x00, 0xAB, 0xCD, 0xFF, 0x00, 0x01, 0x00};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        CHECK_OK(aclrtMemset(p, 128, 0x77, 128));
        CHECK_OK(aclrtMemset(p, 128, values[i], 100));
        CHECK(dev_all_bytes_are(p, 100, bytes[i]));
        CHECK(dev_all_bytes_are((char *)p + 100, 28, 0x77)); /* exactly count bytes */
    }
    CHECK_OK(aclrtFree(p));
}

TEST(memset_rejects_count_over_max_count_and_null)
{
    static unsigned char buf[64];
    memset(buf, 0x77, sizeof buf);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(buf, 32, 1, 33));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(buf, 0, 1, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemset(NULL, 64, 1, 64));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(buf, 32, 1, 33, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemsetAsync(NULL, 64, 1, 64, NULL));
    CHECK(all_bytes_are(buf, sizeof buf, 0x77));
    CHECK_OK(aclrtMemset(buf, 64, 1, 0)); /* count 0: nothing */
    CHECK_OK(aclrtMemsetAsync(buf, 64, 1, 0, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK(all_bytes_are(buf, sizeof buf, 0x77));
    CHECK_OK(aclrtMemset(buf, 32, 1, 32));
    CHECK(all_bytes_are(buf, 32, 0x01));
    CHECK(all_bytes_are(buf + 32, 32, 0x77));
}

/* ------------------------------------------------------------------------
 * The async forms
 * ------------------------------------------------------------------------ */

#define ASYNC_BYTES 4096
static void *async_src, *async_dst;

/* Pinned host memory holding seed's pattern (a task's source: it writes device memory by copying). */
static void *pattern_source(unsigned seed)
{
    void *p = NULL;
    CHECK_OK(aclrtMallocHost(&p, ASYNC_BYTES));
    fill_pattern(p, ASYNC_BYTES, seed);
    return p;
}

TEST(memcpy_async_with_runtime_memory_runs_in_stream_order)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    for (int variant = 0; variant < 3; variant++) {
        /* device -> device, pinned host -> device, device -> pinned host */
        if (variant == 1)
            CHECK_OK(aclrtMallocHost(&async_src, ASYNC_BYTES));
        else
            CHECK_OK(aclrtMalloc(&async_src, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
        if (variant == 2)
            CHECK_OK(aclrtMallocHost(&async_dst, ASYNC_BYTES));
        else
            CHECK_OK(aclrtMalloc(&async_dst, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemset(async_src, ASYNC_BYTES, 0, ASYNC_BYTES));
        CHECK_OK(aclrtMemset(async_dst, ASYNC_BYTES, 0xEE, ASYNC_BYTES));
        unsigned seed = 40u + (unsigned)variant;
        /* A writer task (a copy from host memory) before the copy, a reader task (a copy to host memory) after. */
        void *pattern = pattern_source(seed), *seen = NULL;
        CHECK_OK(aclrtMallocHost(&seen, ASYNC_BYTES));
        memset(seen, 0, ASYNC_BYTES);
        struct gate *g = launch_gate(s);
        CHECK_OK(aclrtMemcpyAsync(async_src, ASYNC_BYTES, pattern, ASYNC_BYTES, ACL_MEMCPY_DEFAULT, s));
        CHECK_OK(aclrtMemcpyAsync(async_dst, ASYNC_BYTES, async_src, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
        CHECK_OK(aclrtMemcpyAsync(seen, ASYNC_BYTES, async_dst, ASYNC_BYTES, ACL_MEMCPY_DEFAULT, s));
        /* Returned at once: the gate holds everything, nothing was copied yet. */
        CHECK_EQ(0, atomic_load(&g->done));
        aclrtxSanitizerIgnoreBegin(); /* a look behind the gate: a race on purpose (check.h, dev_peek) */
        CHECK(dev_all_bytes_are(async_dst, ASYNC_BYTES, 0xEE));
        aclrtxSanitizerIgnoreEnd();
        gate_open(g);
        CHECK_OK(aclrtSynchronizeStream(s));
        CHECK(has_pattern(seen, ASYNC_BYTES, seed)); /* the copy ran after the writer and before the reader */
        CHECK(dev_has_pattern(async_dst, ASYNC_BYTES, seed));
        CHECK_OK(aclrtFreeHost(pattern));
        CHECK_OK(aclrtFreeHost(seen));
        if (variant == 1)
            CHECK_OK(aclrtFreeHost(async_src));
        else
            CHECK_OK(aclrtFree(async_src));
        if (variant == 2)
            CHECK_OK(aclrtFreeHost(async_dst));
        else
            CHECK_OK(aclrtFree(async_dst));
    }
    CHECK_OK(aclrtDestroyStream(s));
}

/*
 * A task launched before a free still sees the memory (the free returns at
 * once): a copy of the device memory to host memory, then a host function
 * that reads the host memory and that copy.
 */
static void *late_dev, *late_host, *late_seen;
static atomic_int late_dev_ok, late_host_ok;

static void read_late_fn(void *arg)
{
    atomic_store(&late_dev_ok, has_pattern(late_seen, ASYNC_BYTES, (unsigned)(uintptr_t)arg));
    atomic_store(&late_host_ok, has_pattern(late_host, ASYNC_BYTES, (unsigned)(uintptr_t)arg + 1u));
}

TEST(free_and_free_host_keep_memory_for_work_launched_before_them)
{
    /* Variant 1: the stream is destroyed with aclrtDestroyStreamForce before the frees (CANN's samples do). */
    for (int variant = 0; variant < 2; variant++) {
        aclrtStream s;
        CHECK_OK(aclrtCreateStream(&s));
        CHECK_OK(aclrtMalloc(&late_dev, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMallocHost(&late_host, ASYNC_BYTES));
        unsigned seed = 60u + 2u * (unsigned)variant;
        CHECK_OK(aclrtMallocHost(&late_seen, ASYNC_BYTES));
        memset(late_seen, 0, ASYNC_BYTES);
        dev_fill_pattern(late_dev, ASYNC_BYTES, seed);
        fill_pattern(late_host, ASYNC_BYTES, seed + 1u);
        atomic_store(&late_dev_ok, -1);
        atomic_store(&late_host_ok, -1);
        struct gate *g = launch_gate(s);
        CHECK_OK(aclrtMemcpyAsync(late_seen, ASYNC_BYTES, late_dev, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s));
        CHECK_OK(aclrtLaunchHostFunc(s, read_late_fn, (void *)(uintptr_t)seed));
        if (variant == 1)
            CHECK_OK(aclrtDestroyStreamForce(s));
        /* Freed while the reader waits behind the gate: both calls return at once... */
        CHECK_OK(aclrtFree(late_dev));
        CHECK_OK(aclrtFreeHost(late_host));
        CHECK_EQ(0, atomic_load(&g->done));
        /* ...and the pointers are no longer allocations: a second free is an error. */
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(late_dev));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(late_host));
        /* Allocating meanwhile returns nothing of the memory still in use. */
        void *other;
        CHECK_OK(aclrtMalloc(&other, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(other != late_dev);
        gate_open(g);
        if (variant == 0) {
            CHECK_OK(aclrtSynchronizeStream(s));
            CHECK_OK(aclrtDestroyStream(s));
        } else {
            while (atomic_load(&late_host_ok) == -1) /* the reader's own result: the destroyed stream has no handle */
                sched_yield();
        }
        CHECK_EQ(1, atomic_load(&late_dev_ok)); /* the reader saw the contents of before the free */
        CHECK_EQ(1, atomic_load(&late_host_ok));
        CHECK_OK(aclrtFree(other));
        CHECK_OK(aclrtFreeHost(late_seen));
    }
}

TEST(memcpy_async_with_pageable_memory_has_completed_when_it_returns)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static unsigned char pageable_src[ASYNC_BYTES], pageable_dst[ASYNC_BYTES];
    void *dev = NULL;
    CHECK_OK(aclrtMalloc(&dev, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Idle stream: pageable -> pageable, pageable -> device, device -> pageable. */
    fill_pattern(pageable_src, ASYNC_BYTES, 3);
    memset(pageable_dst, 0, ASYNC_BYTES);
    CHECK_OK(aclrtMemcpyAsync(pageable_dst, ASYNC_BYTES, pageable_src, ASYNC_BYTES, ACL_MEMCPY_HOST_TO_HOST, s));
    CHECK(has_pattern(pageable_dst, ASYNC_BYTES, 3));
    fill_pattern(pageable_src, ASYNC_BYTES, 4);
    CHECK_OK(aclrtMemcpyAsync(dev, ASYNC_BYTES, pageable_src, ASYNC_BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK(dev_has_pattern(dev, ASYNC_BYTES, 4));
    memset(pageable_dst, 0, ASYNC_BYTES);
    CHECK_OK(aclrtMemcpyAsync(pageable_dst, ASYNC_BYTES, dev, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(has_pattern(pageable_dst, ASYNC_BYTES, 4));
    /* Busy stream: the call waits for the earlier work, then for the copy. */
    struct gate *g = launch_gate(s);
    fill_pattern(pageable_src, ASYNC_BYTES, 5);
    memset(pageable_dst, 0, ASYNC_BYTES);
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    aclError rc = aclrtMemcpyAsync(pageable_dst, ASYNC_BYTES, pageable_src, ASYNC_BYTES, ACL_MEMCPY_HOST_TO_HOST, s);
    int gate_done = atomic_load(&g->done);
    int copied = has_pattern(pageable_dst, ASYNC_BYTES, 5);
    pthread_join(opener, NULL);
    CHECK_OK(rc);
    CHECK_EQ(1, gate_done);
    CHECK(copied);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtDestroyStream(s));
}

/* Synchronous copies and memsets of device memory come after the device's runnable work (here: copies into it). */
static void *settle_dev;

static void launch_settle_writer(aclrtStream s, void *pattern)
{
    CHECK_OK(aclrtMemcpyAsync(settle_dev, ASYNC_BYTES, pattern, ASYNC_BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s));
}

/*
 * What this runtime does for programs that copy a result without
 * synchronizing (which the stream-ordering sanitizer reports, as it
 * should: nothing orders a synchronous copy with streams).
 */
TEST(sync_memcpy_and_memset_of_device_memory_see_work_launched_before_them)
{
    aclrtxSanitizerIgnoreBegin();
    /* Under external progress a synchronous copy does not wait (the caller may be the embedder's driver). */
    const char *progress = getenv("ACLRT_PROGRESS");
    bool settles = progress == NULL || strcmp(progress, "external") != 0;
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtMalloc(&settle_dev, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    static unsigned char host_copy[ASYNC_BYTES];
    void *p70 = pattern_source(70u), *p71 = pattern_source(71u), *p72 = pattern_source(72u);
    /* A writer behind a gate, then a synchronous device -> host copy: the copy sees what it wrote. */
    CHECK_OK(aclrtMemset(settle_dev, ASYNC_BYTES, 0, ASYNC_BYTES));
    struct gate *g = launch_gate(s);
    launch_settle_writer(s, p70);
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    CHECK_OK(aclrtMemcpy(host_copy, ASYNC_BYTES, settle_dev, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    int gate_done = atomic_load(&g->done);
    int copied = has_pattern(host_copy, ASYNC_BYTES, 70u);
    pthread_join(opener, NULL);
    if (settles) {
        CHECK_EQ(1, gate_done);
        CHECK(copied);
    }
    /* The same for a memset: it lands after the writer, not under it. */
    g = launch_gate(s);
    launch_settle_writer(s, p71);
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    CHECK_OK(aclrtMemset(settle_dev, ASYNC_BYTES, 0x5A, ASYNC_BYTES));
    pthread_join(opener, NULL);
    CHECK_OK(aclrtSynchronizeStream(s));
    aclrtxSanitizerIgnoreEnd();
    if (settles)
        CHECK(dev_all_bytes_are(settle_dev, ASYNC_BYTES, 0x5A));
    /* A stream parked on a wait that nothing satisfies yet is not waited for. */
    aclrtNotify notify;
    CHECK_OK(aclrtCreateNotify(&notify, 0));
    CHECK_OK(aclrtWaitAndResetNotify(notify, s, 0));
    launch_settle_writer(s, p72);
    CHECK_OK(aclrtMemset(settle_dev, ASYNC_BYTES, 0x33, ASYNC_BYTES)); /* returns: the writer waits for the notify */
    CHECK(dev_all_bytes_are(settle_dev, ASYNC_BYTES, 0x33));
    aclrtStream other;
    CHECK_OK(aclrtCreateStream(&other));
    CHECK_OK(aclrtRecordNotify(notify, other));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(dev_has_pattern(settle_dev, ASYNC_BYTES, 72u));
    CHECK_OK(aclrtSynchronizeStream(other));
    CHECK_OK(aclrtDestroyNotify(notify));
    CHECK_OK(aclrtDestroyStream(other));
    CHECK_OK(aclrtFree(settle_dev));
    CHECK_OK(aclrtFreeHost(p70));
    CHECK_OK(aclrtFreeHost(p71));
    CHECK_OK(aclrtFreeHost(p72));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(memcpy_async_checks_its_arguments)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    void *a = NULL, *b = NULL;
    CHECK_OK(aclrtMalloc(&a, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&b, 128, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(a, 128, 0xEE, 128));
    CHECK_OK(aclrtMemset(b, 128, 0x01, 128));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(a, 64, b, 65, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(a, 0, b, 1, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(a, 128, b, 128, (aclrtMemcpyKind)99, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(NULL, 128, b, 128, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(a, 128, NULL, 128, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtMemcpyAsync(a, 128, b, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(dev_all_bytes_are(a, 128, 0xEE));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtDestroyStream(s));
}

static void *memset_buf;

/*
 * Lookups of an address (aclrtMemGetAddressRange, as launches and copies
 * make them) take no lock: while another thread allocates and frees
 * hundreds of blocks (the registry grows into larger tables, its entries
 * move), every lookup of a block that stays finds that block.
 */
static void *fixed_block;
static atomic_int churn_done;

static void *address_lookups(void *arg)
{
    (void)arg;
    long bad = 0, n = 0;
    do {
        for (int i = 0; i < 1000; i++, n++) {
            void *base = NULL;
            size_t size = 0;
            if (aclrtMemGetAddressRange((char *)fixed_block + 100, &base, &size) != ACL_SUCCESS ||
                base != fixed_block || size != 4096)
                bad++;
        }
    } while (!atomic_load(&churn_done) || n < 20000);
    return (void *)(intptr_t)bad;
}

TEST(address_lookups_stay_right_while_allocations_come_and_go)
{
    CHECK_OK(aclrtMalloc(&fixed_block, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    atomic_store(&churn_done, 0);
    pthread_t readers[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&readers[i], NULL, address_lookups, NULL) == 0);
    enum { BLOCKS = 600 };
    static void *blocks[BLOCKS];
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < BLOCKS; i++)
            CHECK_OK(aclrtMalloc(&blocks[i], 64 + (size_t)(i % 7) * 64, ACL_MEM_MALLOC_HUGE_FIRST));
        for (int i = 0; i < BLOCKS; i += 2) /* every other one first: entries on both sides of the fixed block move */
            CHECK_OK(aclrtFree(blocks[i]));
        for (int i = 1; i < BLOCKS; i += 2)
            CHECK_OK(aclrtFree(blocks[i]));
    }
    atomic_store(&churn_done, 1);
    for (int i = 0; i < 2; i++) {
        void *bad = NULL;
        CHECK(pthread_join(readers[i], &bad) == 0);
        CHECK_EQ(0, (long)(intptr_t)bad);
    }
    void *base = NULL;
    size_t size = 0;
    CHECK_OK(aclrtMemGetAddressRange((char *)fixed_block + 4095, &base, &size));
    CHECK(base == fixed_block);
    CHECK_OK(aclrtFree(fixed_block));
    CHECK(aclrtMemGetAddressRange(fixed_block, &base, &size) != ACL_SUCCESS); /* gone: no longer found */
}

TEST(memset_async_runs_in_stream_order_and_uses_the_low_byte)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtMalloc(&memset_buf, ASYNC_BYTES + 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(memset_buf, ASYNC_BYTES + 64, 0x77, ASYNC_BYTES + 64));
    void *seen = NULL; /* what a task after the memset finds (a copy to host memory) */
    CHECK_OK(aclrtMallocHost(&seen, ASYNC_BYTES));
    memset(seen, 0, ASYNC_BYTES);
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtMemsetAsync(memset_buf, ASYNC_BYTES + 64, 0x5A3C, ASYNC_BYTES, s));
    CHECK_OK(aclrtMemcpyAsync(seen, ASYNC_BYTES, memset_buf, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclrtxSanitizerIgnoreBegin(); /* a look behind the gate: a race on purpose (check.h, dev_peek) */
    CHECK(dev_all_bytes_are(memset_buf, ASYNC_BYTES, 0x77)); /* not yet: the gate holds it */
    aclrtxSanitizerIgnoreEnd();
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(all_bytes_are(seen, ASYNC_BYTES, 0x3C));
    CHECK_OK(aclrtFreeHost(seen));
    CHECK(dev_all_bytes_are(memset_buf, ASYNC_BYTES, 0x3C));
    CHECK(dev_all_bytes_are((char *)memset_buf + ASYNC_BYTES, 64, 0x77));
    CHECK_OK(aclrtFree(memset_buf));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(memset_async_with_pageable_memory_has_completed_when_it_returns)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static unsigned char pageable[ASYNC_BYTES];
    memset(pageable, 0x77, sizeof pageable);
    CHECK_OK(aclrtMemsetAsync(pageable, sizeof pageable, -2, sizeof pageable, s));
    CHECK(all_bytes_are(pageable, sizeof pageable, 0xFE));
    struct gate *g = launch_gate(s);
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    aclError rc = aclrtMemsetAsync(pageable, sizeof pageable, 0x101, 100, s);
    int gate_done = atomic_load(&g->done);
    int set = all_bytes_are(pageable, 100, 0x01) && all_bytes_are(pageable + 100, sizeof pageable - 100, 0xFE);
    pthread_join(opener, NULL);
    CHECK_OK(rc);
    CHECK_EQ(1, gate_done);
    CHECK(set);
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Memory shared by streams; aclFinalize
 * ------------------------------------------------------------------------ */

static void *shared_buf;

TEST(memory_written_on_one_stream_is_read_on_another)
{
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    void *copy = NULL;
    CHECK_OK(aclrtMalloc(&shared_buf, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&copy, ASYNC_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
    /* Ordered by a synchronize. */
    CHECK_OK(aclrtMemsetAsync(shared_buf, ASYNC_BYTES, 0x42, ASYNC_BYTES, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtMemset(copy, ASYNC_BYTES, 0, ASYNC_BYTES));
    CHECK_OK(aclrtMemcpyAsync(copy, ASYNC_BYTES, shared_buf, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK(dev_all_bytes_are(copy, ASYNC_BYTES, 0x42));
    /* Ordered by an event: a writes behind a gate, b waits for it and reads (into host memory, then device memory). */
    void *seen = NULL;
    CHECK_OK(aclrtMallocHost(&seen, ASYNC_BYTES));
    memset(seen, 0, ASYNC_BYTES);
    aclrtEvent ev;
    CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    struct gate *g = launch_gate(a);
    CHECK_OK(aclrtMemsetAsync(shared_buf, ASYNC_BYTES, 0x24, ASYNC_BYTES, a));
    CHECK_OK(aclrtRecordEvent(ev, a));
    CHECK_OK(aclrtStreamWaitEvent(b, ev));
    CHECK_OK(aclrtMemcpyAsync(seen, ASYNC_BYTES, shared_buf, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_HOST, b));
    CHECK_OK(aclrtMemcpyAsync(copy, ASYNC_BYTES, shared_buf, ASYNC_BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, b));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK(all_bytes_are(seen, ASYNC_BYTES, 0x24));
    CHECK_OK(aclrtFreeHost(seen));
    CHECK(dev_all_bytes_are(copy, ASYNC_BYTES, 0x24));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtFree(shared_buf));
    CHECK_OK(aclrtFree(copy));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

static aclrtContext main_context;

#define LEFTOVERS 8
#define HIDE_MASK ((uintptr_t)0x5A5A5A5A5A5A5A5Aull) /* leftovers are kept hidden from the leak checker */
static int finalize_seen_ok, finalize_ran;
static uintptr_t finalize_probe_hidden;

/* Reads leftover host memory, which a copy from the leftover device buffer filled before it. */
static void finalize_probe_fn(void *arg)
{
    (void)arg;
    finalize_seen_ok = all_bytes_are((void *)(finalize_probe_hidden ^ HIDE_MASK), 256, 0x6B);
    finalize_ran = 1;
}

TEST(finalize_frees_leftover_memory_after_pending_work)
{
    uintptr_t dev[LEFTOVERS], host[LEFTOVERS];
    for (int i = 0; i < LEFTOVERS; i++) {
        void *p = NULL;
        CHECK_OK(aclrtMalloc(&p, 1000u * (unsigned)(i + 1), ACL_MEM_MALLOC_HUGE_FIRST));
        dev[i] = (uintptr_t)p ^ HIDE_MASK;
        p = NULL;
        CHECK_OK(aclrtMallocHost(&p, 500u * (unsigned)(i + 1)));
        host[i] = (uintptr_t)p ^ HIDE_MASK;
        p = NULL;
    }
    /* Work still pending on a leftover stream uses a leftover buffer: finalize runs it before freeing. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    finalize_seen_ok = -1;
    finalize_ran = 0;
    finalize_probe_hidden = host[0];
    memset((void *)(host[0] ^ HIDE_MASK), 0, 500);
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtMemsetAsync((void *)(dev[0] ^ HIDE_MASK), 1000, 0x6B, 256, s));
    CHECK_OK(aclrtMemcpyAsync((void *)(host[0] ^ HIDE_MASK), 500, (void *)(dev[0] ^ HIDE_MASK), 256,
                              ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK_OK(aclrtLaunchHostFunc(s, finalize_probe_fn, NULL));
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    aclError rc = aclFinalize();
    pthread_join(opener, NULL);
    CHECK_OK(rc);
    CHECK_EQ(1, finalize_ran);
    CHECK_EQ(1, finalize_seen_ok);
    /* The allocations are gone from the runtime's books (and, per the leak check at exit, freed). */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree((void *)(dev[1] ^ HIDE_MASK)));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost((void *)(host[1] ^ HIDE_MASK)));
    /* And the runtime starts again. */
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&main_context));
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtFree(p));
    memset(dev, 0, sizeof dev);
    memset(host, 0, sizeof host);
}

/* ------------------------------------------------------------------------
 * Host kernel failures (last: see below)
 * ------------------------------------------------------------------------ */

struct fail_at {
    uint32_t block; /* the failing block */
    aclError code;
};

static aclError failing_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)blocks;
    const struct fail_at *f = (const struct fail_at *)arg;
    return block == f->block ? f->code : ACL_SUCCESS;
}

/*
 * A kernel whose blocks never finish would hang every later synchronize, so
 * this case synchronizes with a limit (a hang reads as ACL_ERROR_RT_STREAM_SYNC_TIMEOUT),
 * runs last, and main skips aclFinalize (which would wait forever) after a failure.
 */
#define KERNEL_SYNC_MS 5000

TEST(host_kernel_failure_reports_the_failing_blocks_code_once)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static struct fail_at one, mid, last;
    static int after;
    static struct fail_at first;
    one = (struct fail_at){0, ACL_ERROR_RT_AICORE_EXCEPTION};
    first = (struct fail_at){0, ACL_ERROR_RT_AICPU_EXCEPTION};
    mid = (struct fail_at){499, ACL_ERROR_RT_AICORE_TRAP_EXCEPTION};
    last = (struct fail_at){999, ACL_ERROR_RT_VECTOR_CORE_EXCEPTION};
    after = 0;

    CHECK_OK(aclrtxLaunchHostKernel(s, 1, failing_kernel, &one));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &after));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));
    CHECK_EQ(1, after); /* continue mode: the next task ran */
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));

    /* A failing block among many: the blocks not issued after it do not hold the task. */
    CHECK_OK(aclrtxLaunchHostKernel(s, 1000, failing_kernel, &first));
    CHECK_EQ(ACL_ERROR_RT_AICPU_EXCEPTION, aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));

    CHECK_OK(aclrtxLaunchHostKernel(s, 1000, failing_kernel, &mid));
    CHECK_EQ(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));

    CHECK_OK(aclrtxLaunchHostKernel(s, 1000, failing_kernel, &last));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &after));
    CHECK_EQ(ACL_ERROR_RT_VECTOR_CORE_EXCEPTION, aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));
    CHECK_EQ(2, after);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));

    /* Two failing kernels: the first task's code is the one reported. */
    CHECK_OK(aclrtxLaunchHostKernel(s, 1000, failing_kernel, &mid));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1000, failing_kernel, &last));
    CHECK_EQ(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, KERNEL_SYNC_MS));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Runner
 * ------------------------------------------------------------------------ */

static void case_cleanup(void)
{
    gates_open_all();
    aclrtSetCurrentContext(main_context);
    aclrtSynchronizeDeviceWithTimeout(2000); /* a limit: a stuck task must not hang the suite */
    aclGetRecentErrMsg();
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }

    RUN_CASE(launch_host_func_with_null_fn_is_invalid_param);
    RUN_CASE(host_func_receives_its_args_unchanged);
    RUN_CASE(host_kernel_runs_every_block_index_exactly_once);
    RUN_CASE(host_kernel_is_done_when_its_task_completes);
    RUN_CASE(host_kernel_blocks_work_in_their_streams_context_on_every_thread);
    RUN_CASE(host_kernel_with_zero_blocks_or_null_fn_is_rejected);

    RUN_CASE(malloc_rejects_null_output_and_size_zero);
    RUN_CASE(malloc_returns_64_byte_aligned_memory_writable_across_its_size);
    RUN_CASE(malloc_host_returns_64_byte_aligned_memory_writable_across_its_size);
    RUN_CASE(malloc_and_malloc_host_of_impossible_sizes_fail_and_leave_the_output_alone);
    RUN_CASE(free_rejects_null_foreign_interior_and_double_frees);
    RUN_CASE(free_host_rejects_null_foreign_and_double_frees);
    RUN_CASE(free_and_free_host_do_not_accept_each_others_pointers);
    RUN_CASE(free_and_free_host_keep_memory_for_work_launched_before_them);

    RUN_CASE(memcpy_of_zero_bytes_succeeds_and_copies_nothing);
    RUN_CASE(memcpy_rejects_count_over_dest_max_and_dest_max_zero);
    RUN_CASE(memcpy_rejects_null_pointers_and_unknown_kinds_and_accepts_every_kind_it_takes);
    RUN_CASE(memcpy_with_overlapping_ranges_behaves_like_memmove);
    RUN_CASE(memset_uses_the_low_byte_of_value);
    RUN_CASE(memset_rejects_count_over_max_count_and_null);

    RUN_CASE(memcpy_async_with_runtime_memory_runs_in_stream_order);
    RUN_CASE(memcpy_async_with_pageable_memory_has_completed_when_it_returns);
    RUN_CASE(sync_memcpy_and_memset_of_device_memory_see_work_launched_before_them);
    RUN_CASE(memcpy_async_checks_its_arguments);
    RUN_CASE(address_lookups_stay_right_while_allocations_come_and_go);
    RUN_CASE(memset_async_runs_in_stream_order_and_uses_the_low_byte);
    RUN_CASE(memset_async_with_pageable_memory_has_completed_when_it_returns);

    RUN_CASE(memory_written_on_one_stream_is_read_on_another);
    RUN_CASE(finalize_frees_leftover_memory_after_pending_work);
    RUN_CASE(host_kernel_failure_reports_the_failing_blocks_code_once);

    if (check_failures == 0) { /* after a failure, a stuck task would make aclFinalize wait forever */
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("memory");
}
