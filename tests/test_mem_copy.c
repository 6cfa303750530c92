/*
 * tests/test_mem_copy.c - pins the copies beyond aclrtMemcpy (docs/SEMANTICS.md,
 * Tasks and memory; Memory attributes and batch copies): 2-D copies (rows,
 * pitches, limits, kinds, stream order, capture and replay), 32-bit memsets
 * (values, sizes, host memory filled at once), batch copies (entries,
 * attributes, failIndex), copy descriptors and copies at offsets (addresses
 * read when the task runs), and the deprecated aclrtMemcpyAsyncWithCondition.
 *
 * Ordering is proven with gates, never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"

#include <stdint.h>

static aclrtContext main_context;

/*
 * Device memory, seen from the host: a copy of its n bytes (one of four
 * buffers, reused in turn), and a pattern written through a copy. The host
 * never dereferences device memory.
 */
#define SNAP_MAX 1024
static const unsigned char *snap(const void *p, size_t n)
{
    static unsigned char bufs[4][SNAP_MAX];
    static unsigned next;
    unsigned char *b = bufs[next++ % 4];
    CHECK(n <= SNAP_MAX);
    dev_read(b, p, n);
    return b;
}

/* Did rows of `width` at `dpitch` in dst receive the rows at `spitch` in src, and the gaps keep `gap`? */
static int rows_copied(const unsigned char *dst, size_t dpitch, const unsigned char *src, size_t spitch, size_t width,
                       size_t height, unsigned char gap)
{
    for (size_t r = 0; r < height; r++) {
        if (memcmp(dst + r * dpitch, src + r * spitch, width) != 0)
            return 0;
        for (size_t c = width; c < dpitch && r + 1 < height; c++)
            if (dst[r * dpitch + c] != gap)
                return 0;
    }
    return 1;
}

TEST(memcpy2d_copies_rows_between_pitches)
{
    enum { W = 24, H = 7, SP = 40, DP = 32 };
    unsigned char *host, *dev;
    CHECK_OK(aclrtMallocHost((void **)&host, SP * H));
    CHECK_OK(aclrtMalloc((void **)&dev, DP * H, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(host, SP * H, 3);
    CHECK_OK(aclrtMemset(dev, DP * H, 0xEE, DP * H));
    CHECK_OK(aclrtMemcpy2d(dev, DP, host, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK(rows_copied(snap(dev, DP * H), DP, host, SP, W, H, 0xEE));
    static unsigned char back[SP * H];
    memset(back, 0x77, sizeof back);
    CHECK_OK(aclrtMemcpy2d(back, SP, dev, DP, W, H, ACL_MEMCPY_DEVICE_TO_HOST)); /* pageable host memory too */
    CHECK(rows_copied(back, SP, snap(dev, DP * H), DP, W, H, 0x77));
    CHECK_OK(aclrtMemcpy2d(dev, DP, host, SP, 0, H, ACL_MEMCPY_HOST_TO_DEVICE)); /* nothing to copy */
    /* Bad input. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(NULL, DP, host, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, DP, NULL, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, W - 1, host, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "destination pitch");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, DP, host, W - 1, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, DP, host, SP, W, H, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, DP, host, SP, W, H, ACL_MEMCPY_HOST_TO_HOST));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpy2d(dev, 6000000, host, 6000000, 5000001, 1, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2d(dev, DP, host, SP, W, 5242881, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpy2d(dev, SIZE_MAX / 2, host, SP, W, 5, ACL_MEMCPY_HOST_TO_DEVICE)); /* spans too much */
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtFreeHost(host));
}

TEST(memcpy2d_async_is_one_task_in_stream_order)
{
    enum { W = 32, H = 5, P = 64 };
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    unsigned char *a, *b;
    CHECK_OK(aclrtMalloc((void **)&a, P * H, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&b, P * H, ACL_MEM_MALLOC_HUGE_FIRST));
    dev_fill_pattern(a, P * H, 3);
    CHECK_OK(aclrtMemset(b, P * H, 0, P * H));
    unsigned char *seen = NULL; /* what the task after the copy finds in b */
    CHECK_OK(aclrtMallocHost((void **)&seen, P * H));
    memset(seen, 0xEE, P * H);
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtMemcpy2dAsync(b, P, a, P, W, H, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtMemcpyAsync(seen, P * H, b, P * H, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclrtxSanitizerIgnoreBegin(); /* a look behind the gate: a race on purpose (check.h, dev_peek) */
    CHECK(snap(b, 1)[0] == 0);    /* held by the gate */
    aclrtxSanitizerIgnoreEnd();
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(seen[0] == 3 && seen[64] == (unsigned char)(64 * 31u + 3));
    CHECK_OK(aclrtFreeHost(seen));
    CHECK(rows_copied(snap(b, P * H), P, snap(a, P * H), P, W, H, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(b, P, a, P, W, H, ACL_MEMCPY_DEFAULT, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpy2dAsync(b, P, a, P, P + 1, H, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    /* Pageable memory: done on return. */
    static unsigned char pageable[P * H];
    CHECK_OK(aclrtMemcpy2dAsync(pageable, P, a, P, W, H, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CHECK(rows_copied(pageable, P, snap(a, P * H), P, W, H, 0));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(memcpy2d_async_and_memset_d32_async_are_captured_and_replayed)
{
    enum { W = 16, H = 4, P = 32 };
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    unsigned char *a, *b;
    uint32_t *w;
    CHECK_OK(aclrtMalloc((void **)&a, P * H, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&b, P * H, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&w, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(b, P * H, 0, P * H));
    CHECK_OK(aclrtMemset(w, 64, 0, 64));
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtMemcpy2dAsync(b, P, a, P, W, H, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtMemsetD32Async(w, 64, 0xCAFEF00Du, 16, s));
    aclmdlRI model;
    CHECK_OK(aclmdlRICaptureEnd(s, &model));
    CHECK(snap(b, 1)[0] == 0 && dev_all_bytes_are(w, 64, 0)); /* captured, not run */
    for (int round = 0; round < 2; round++) {
        dev_fill_pattern(a, P * H, (unsigned)round + 9);
        CHECK_OK(aclmdlRIExecuteAsync(model, s));
        CHECK_OK(aclrtSynchronizeStream(s));
        CHECK(rows_copied(snap(b, P * H), P, snap(a, P * H), P, W, H, 0));
        uint32_t w15 = 0;
        dev_read(&w15, &w[15], sizeof w15);
        CHECK_EQ(0xCAFEF00Du, w15);
        CHECK_OK(aclrtMemset(w, 64, 0, 64));
    }
    CHECK_OK(aclmdlRIDestroy(model));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtFree(w));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(memset_d32_writes_n_values)
{
    uint32_t *dev, *host;
    CHECK_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost((void **)&host, 64));
    CHECK_OK(aclrtMemset(dev, 64, 0, 64));
    CHECK_OK(aclrtMemsetD32(dev, 64, 0x12345678u, 15));
    uint32_t got[16];
    dev_read(got, dev, sizeof got);
    for (int i = 0; i < 15; i++)
        CHECK_EQ(0x12345678u, got[i]);
    CHECK_EQ(0u, got[15]);
    CHECK_OK(aclrtMemsetD32(host, 64, 7u, 16));
    CHECK_EQ(7u, host[15]);
    CHECK_OK(aclrtMemsetD32(dev, 64, 1u, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetD32(dev, 63, 1u, 16));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "do not fit");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemsetD32(NULL, 64, 1u, 1));
    static uint32_t foreign[4];
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetD32(foreign, 16, 1u, 4));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetD32(dev, 128, 1u, 32)); /* past the allocation */
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtFreeHost(host));
}

TEST(memset_d32_async_runs_in_stream_order_and_fills_host_memory_at_once)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    uint32_t *dev, *host;
    CHECK_OK(aclrtMalloc((void **)&dev, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMallocHost((void **)&host, 64));
    CHECK_OK(aclrtMemset(dev, 64, 0, 64));
    memset(host, 0, 64);
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtMemsetD32Async(dev, 64, 0xABCDu, 16, s));
    CHECK_OK(aclrtMemsetD32Async(host, 64, 0x99u, 16, s));
    uint32_t d = 1;
    dev_peek(&d, &dev[0], sizeof d);
    CHECK_EQ(0u, d);           /* device memory: a task behind the gate */
    CHECK_EQ(0x99u, host[15]); /* host memory: filled now, as documented */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    dev_read(&d, &dev[15], sizeof d);
    CHECK_EQ(0xABCDu, d);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetD32Async(dev, 8, 1u, 3, s));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtFreeHost(host));
    CHECK_OK(aclrtDestroyStream(s));
}

static aclrtMemcpyBatchAttr h2d_attr(void)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.srcLoc.type = ACL_MEM_LOCATION_TYPE_HOST;
    a.dstLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    a.dstLoc.id = 0;
    return a;
}

TEST(memcpy_batch_copies_every_entry_and_names_the_failing_one)
{
    static unsigned char src[3][100];
    unsigned char *dev;
    CHECK_OK(aclrtMalloc((void **)&dev, 300, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(dev, 300, 0, 300));
    for (int i = 0; i < 3; i++)
        fill_pattern(src[i], 100, (unsigned)i);
    void *dsts[3] = {dev, dev + 100, dev + 200}, *srcs[3] = {src[0], src[1], src[2]};
    size_t maxs[3] = {100, 100, 100}, sizes[3] = {100, 50, 0};
    aclrtMemcpyBatchAttr attrs[2] = {h2d_attr(), h2d_attr()};
    size_t idx[2] = {0, 2}, fail = 0;
    CHECK_OK(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail));
    CHECK_EQ(SIZE_MAX, fail);
    const unsigned char *got = snap(dev, 300);
    CHECK(memcmp(got, src[0], 100) == 0 && memcmp(got + 100, src[1], 50) == 0 && got[150] == 0 && got[200] == 0);
    /* A failing entry: its index; nothing copied. */
    CHECK_OK(aclrtMemset(dev, 300, 0, 300));
    sizes[2] = 101;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail));
    CHECK_EQ((size_t)2, fail);
    CHECK_EQ(0, snap(dev, 1)[0]);
    sizes[2] = 10;
    attrs[1].srcLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE; /* device to device: not a batch direction */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatchV2(dsts, maxs, srcs, sizes, 3, attrs, idx, 2));
    attrs[1].dstLoc.type = ACL_MEM_LOCATION_TYPE_HOST; /* device to host after host to device: mixed */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 2, &fail));
    CHECK_EQ((size_t)2, fail);
    attrs[1] = h2d_attr();
    attrs[1].srcLoc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    attrs[1].dstLoc.type = ACL_MEM_LOCATION_TYPE_HOST; /* says the device memory is host memory */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs + 1, idx, 1, &fail));
    CHECK_EQ((size_t)0, fail);
    /* Errors that are no entry's. */
    size_t bad_idx[2] = {1, 2};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, bad_idx, 2, &fail));
    CHECK_EQ(SIZE_MAX, fail);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 0, attrs, idx, 1, &fail));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(NULL, maxs, srcs, sizes, 3, attrs, idx, 1, &fail));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 3, attrs, idx, 1, NULL));
    CHECK_OK(aclrtFree(dev));
}

TEST(memcpy_batch_async_runs_in_stream_order)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    unsigned char *host, *dev;
    CHECK_OK(aclrtMallocHost((void **)&host, 200));
    CHECK_OK(aclrtMalloc((void **)&dev, 200, ACL_MEM_MALLOC_HUGE_FIRST));
    fill_pattern(host, 200, 5);
    CHECK_OK(aclrtMemset(dev, 200, 0, 200));
    void *dsts[2] = {dev, dev + 100}, *srcs[2] = {host, host + 100};
    size_t maxs[2] = {100, 100}, sizes[2] = {100, 100}, idx[1] = {0}, fail = 0;
    aclrtMemcpyBatchAttr attr = h2d_attr();
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 2, &attr, idx, 1, &fail, s));
    CHECK_EQ(SIZE_MAX, fail);
    aclrtxSanitizerIgnoreBegin(); /* a look behind the gate: a race on purpose (check.h, dev_peek) */
    CHECK_EQ(0, snap(dev, 1)[0]); /* behind the gate */
    aclrtxSanitizerIgnoreEnd();
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(memcmp(snap(dev, 200), host, 200) == 0);
    CHECK_OK(aclrtMemset(dev, 200, 0, 200));
    CHECK_OK(aclrtMemcpyBatchAsyncV2(dsts, maxs, srcs, sizes, 2, &attr, idx, 1, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(memcmp(snap(dev, 200), host, 200) == 0);
    /* Pageable memory: done on return. */
    static unsigned char pageable[100];
    fill_pattern(pageable, 100, 77);
    void *psrc[1] = {pageable};
    CHECK_OK(aclrtMemcpyBatchAsyncV2(dsts, maxs, psrc, sizes, 1, &attr, idx, 1, s));
    CHECK(memcmp(snap(dev, 100), pageable, 100) == 0);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatchAsync(dsts, maxs, srcs, sizes, 2, &attr, idx, 1, NULL, s));
    CHECK_OK(aclrtFreeHost(host));
    CHECK_OK(aclrtFree(dev));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(copies_with_descriptors_and_offsets_read_their_addresses_when_they_run)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    size_t dsz = 0;
    CHECK_OK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &dsz));
    CHECK(dsz > 0);
    unsigned char *a, *b, *c;
    void *desc, **slots;
    CHECK_OK(aclrtMalloc((void **)&a, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&b, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&c, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc(&desc, dsz, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&slots, 2 * sizeof(void *), ACL_MEM_MALLOC_HUGE_FIRST));
    dev_fill_pattern(a, 256, 1);
    CHECK_OK(aclrtMemset(b, 256, 0, 256));
    CHECK_OK(aclrtMemset(c, 256, 0, 256));
    CHECK_OK(aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, 128, NULL));
    CHECK_OK(aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    const unsigned char *sa = snap(a, 256), *sb = snap(b, 256);
    CHECK(memcmp(sa, sb, 128) == 0 && sb[128] == 0);
    /* Offsets: the destination's base is written (copied in) by a task that runs before the copy. */
    void *bases[2] = {b, a}, **moved = NULL;
    dev_write(slots, bases, sizeof bases);
    CHECK_OK(aclrtMallocHost((void **)&moved, sizeof *moved));
    *moved = c;
    CHECK_OK(aclrtMemcpyAsync(&slots[0], sizeof *moved, moved, sizeof *moved, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK_OK(aclrtMemcpyAsyncWithOffset(&slots[0], 256, 16, (const void **)&slots[1], 32, 8, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtFreeHost(moved));
    const unsigned char *sc = snap(c, 256);
    sa = snap(a, 256);
    CHECK(memcmp(sc + 16, sa + 8, 32) == 0 && sc[15] == 0 && sc[48] == 0);
    /* Addresses read when the task runs: a base whose range ends past its allocation faults the task. */
    bases[0] = b + 240;
    dev_write(&slots[0], &bases[0], sizeof bases[0]);
    CHECK_OK(aclrtMemcpyAsyncWithOffset(&slots[0], 256, 0, (const void **)&slots[1], 32, 0,
                                        ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_RT_DEVICE_MEM_ERROR, aclrtSynchronizeStream(s));
    CHECK(snap(b, 256)[239] == 0); /* nothing was written */
    bases[0] = b;
    dev_write(&slots[0], &bases[0], sizeof bases[0]);
    /* Bad input. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemcpyDescSize(ACL_MEMCPY_DEVICE_TO_DEVICE, &dsz));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetMemcpyDesc(desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, 1, desc));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "config");
    static unsigned char foreign[64];
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetMemcpyDesc(foreign, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, a, b, 1, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithDesc(foreign, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithDesc(NULL, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsyncWithDesc(desc, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID,
             aclrtMemcpyAsyncWithOffset(&slots[0], 32, 1, (const void **)&slots[1], 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpyAsyncWithOffset(NULL, 32, 0, (const void **)&slots[1], 32, 0, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM,
             aclrtMemcpyAsyncWithOffset(&slots[0], 32, 0, (const void **)&slots[1], 32, 0, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtFree(c));
    CHECK_OK(aclrtFree(desc));
    CHECK_OK(aclrtFree(slots));
    CHECK_OK(aclrtDestroyStream(s));
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST(memcpy_async_with_condition_is_memcpy_async)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    unsigned char *a, *b;
    CHECK_OK(aclrtMalloc((void **)&a, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMalloc((void **)&b, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    dev_fill_pattern(a, 64, 2);
    CHECK_OK(aclrtMemcpyAsyncWithCondition(b, 64, a, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK(memcmp(snap(a, 64), snap(b, 64), 64) == 0);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsyncWithCondition(b, 32, a, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtDestroyStream(s));
}
#pragma GCC diagnostic pop

static void case_cleanup(void)
{
    gates_open_all();
    aclrtSetCurrentContext(main_context);
    aclrtSynchronizeDeviceWithTimeout(2000);
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
    RUN_CASE(memcpy2d_copies_rows_between_pitches);
    RUN_CASE(memcpy2d_async_is_one_task_in_stream_order);
    RUN_CASE(memcpy2d_async_and_memset_d32_async_are_captured_and_replayed);
    RUN_CASE(memset_d32_writes_n_values);
    RUN_CASE(memset_d32_async_runs_in_stream_order_and_fills_host_memory_at_once);
    RUN_CASE(memcpy_batch_copies_every_entry_and_names_the_failing_one);
    RUN_CASE(memcpy_batch_async_runs_in_stream_order);
    RUN_CASE(copies_with_descriptors_and_offsets_read_their_addresses_when_they_run);
    RUN_CASE(memcpy_async_with_condition_is_memcpy_async);
    if (check_failures == 0) {
        aclrtResetDevice(0);
        aclFinalize();
    }
    return check_report("mem_copy");
}
