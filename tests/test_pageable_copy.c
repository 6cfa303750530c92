/*
 * tests/test_pageable_copy.c - pins asynchronous copies of pageable host
 * memory (malloc'd, not the runtime's): they keep stream order, the
 * stream's later tasks see them done (on the device and on the host), and
 * one held behind work still on the device holds no executor: another
 * stream's work goes on meanwhile on the one executor the suite has.
 *
 * On the cuda backend such a copy is synchronous with respect to the host
 * for the driver (the test double makes it so, as a GPU may): issued by an
 * executor, it would hold the executor until the stream's earlier work and
 * the copy are done, and a stream that only another stream's task releases
 * would get its executor back only once the runtime added one. The backend
 * makes such copies on a copy thread of its own (docs/CUDA.md); on the
 * test double, which counts the calls a pageable copy held
 * (fakecuda_pageable_held), the first case sees that none was.
 *
 * Ordering is proven with stream order and value operations, never with
 * sleeps.
 */
#define _GNU_SOURCE

#include "check.h"
#include "fake_cuda_hooks.h"
#include "gate.h"
#include "probe.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BIG (4u << 20) /* a large copy */

static aclrtContext main_context;

/* The test double's count of driver calls a pageable copy held (NULL: not on the double). */
static uint64_t (*fake_held)(void);

static void fake_lookup(void)
{
    *(void **)&fake_held = fake_cuda_symbol("fakecuda_pageable_held");
}

static uint64_t held(void)
{
    return fake_held != NULL ? fake_held() : 0;
}

/* Does [p, p + n) hold byte v everywhere? */
static int all_bytes(const unsigned char *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != v)
            return 0;
    return 1;
}

static void *device_fill(size_t n, unsigned char v)
{
    void *d = NULL;
    CHECK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(d, n, v, n));
    return d;
}

/* A host function: whether it ran. */
static void mark(void *arg)
{
    atomic_store((atomic_int *)arg, 1);
}

/* A host function after the copy: what it saw of the buffer (first and last byte, or -1 if mixed). */
struct seen {
    const unsigned char *buf;
    size_t n;
    int value;
};

static void look(void *arg)
{
    struct seen *s = (struct seen *)arg;
    s->value = all_bytes(s->buf, s->n, s->buf[0]) ? s->buf[0] : -1;
}

/*
 * Stream b waits (on the device) for a word that a's first task writes;
 * then b's host function, then b's write of the word a's copy waits behind.
 * a: that first write, a wait for b's word, a set, the copy into pageable
 * memory (aclrtMemcpyAsync returns once it is done), and a host function
 * after it. b's host function becomes ready only once a's work up to its
 * copy was issued: an executor held by the copy (until b's write) could not
 * run it (the runtime would add one). On the double: no driver call was
 * held by the copy.
 */
TEST(a_pageable_copy_behind_device_work_holds_no_executor)
{
    static atomic_int b_ran;
    static struct seen seen;
    atomic_store(&b_ran, 0);
    uint64_t held_before = held();
    void *w_ab = device_fill(64, 0), *w_ba = device_fill(64, 0);
    void *d = device_fill(BIG, 0x11);
    unsigned char *page = (unsigned char *)calloc(1, BIG);
    CHECK(page != NULL);
    aclrtStream a = new_stream(), b = new_stream();
    CHECK_OK(aclrtValueWait(w_ab, 1, ACL_STREAM_WAIT_VALUE_GEQ, b));
    CHECK_OK(aclrtLaunchHostFunc(b, mark, &b_ran));
    CHECK_OK(aclrtValueWrite(w_ba, 1, 0, b));
    CHECK_OK(aclrtValueWrite(w_ab, 1, 0, a));
    CHECK_OK(aclrtValueWait(w_ba, 1, ACL_STREAM_WAIT_VALUE_GEQ, a));
    CHECK_OK(aclrtMemsetAsync(d, BIG, 0x22, BIG, a));
    CHECK_OK(aclrtMemcpyAsync(page, BIG, d, BIG, ACL_MEMCPY_DEVICE_TO_HOST, a)); /* returns once done */
    CHECK_EQ(1, all_bytes(page, BIG, 0x22)); /* after the set: stream order */
    seen = (struct seen){page, BIG, 0};
    CHECK_OK(aclrtLaunchHostFunc(a, look, &seen));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(a, 30000));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 30000));
    CHECK_EQ(0x22, seen.value);
    CHECK_EQ(1, atomic_load(&b_ran));
    CHECK_EQ(held_before, held()); /* no cuMemcpyAsync was held by the copy (the copy thread made it) */
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtFree(d));
    CHECK_OK(aclrtFree(w_ab));
    CHECK_OK(aclrtFree(w_ba));
    free(page);
}

TEST(later_tasks_see_a_pageable_copy_done_on_the_device_and_on_the_host)
{
    enum { N = 1 << 16, W = 100, H = 50, PITCH = 128 };
    static struct seen seen, seen2d;
    unsigned char *in = (unsigned char *)malloc(N), *out = (unsigned char *)calloc(1, N);
    unsigned char *out2d = (unsigned char *)calloc(1, PITCH * H);
    CHECK(in != NULL && out != NULL && out2d != NULL);
    memset(in, 0x5c, N);
    void *d1 = device_fill(N, 0), *d2 = device_fill(N, 0);
    aclrtStream a = new_stream();
    CHECK_OK(aclrtMemcpyAsync(d1, N, in, N, ACL_MEMCPY_HOST_TO_DEVICE, a));  /* pageable source */
    CHECK_OK(aclrtMemcpyAsync(d2, N, d1, N, ACL_MEMCPY_DEVICE_TO_DEVICE, a)); /* on the device, after it */
    CHECK_OK(aclrtMemcpyAsync(out, N, d2, N, ACL_MEMCPY_DEVICE_TO_HOST, a)); /* pageable destination */
    seen = (struct seen){out, N, 0};
    CHECK_OK(aclrtLaunchHostFunc(a, look, &seen));
    CHECK_OK(aclrtMemcpy2dAsync(out2d, PITCH, d2, W, W, H, ACL_MEMCPY_DEVICE_TO_HOST, a)); /* rows */
    seen2d = (struct seen){out2d + (H - 1) * PITCH, W, 0};
    CHECK_OK(aclrtLaunchHostFunc(a, look, &seen2d));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(a, 30000));
    CHECK_EQ(1, all_bytes(out, N, 0x5c));
    CHECK_EQ(0x5c, seen.value);
    CHECK_EQ(0x5c, seen2d.value);
    for (int r = 0; r < H; r++) {
        CHECK_EQ(1, all_bytes(out2d + r * PITCH, W, 0x5c));
        CHECK_EQ(1, all_bytes(out2d + r * PITCH + W, PITCH - W, 0));
    }
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtFree(d1));
    CHECK_OK(aclrtFree(d2));
    free(in);
    free(out);
    free(out2d);
}

int main(void)
{
    setenv("ACLRT_EXECUTORS", "1", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "pageable_copy: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    fake_lookup();
    RUN(a_pageable_copy_behind_device_work_holds_no_executor);
    RUN(later_tasks_see_a_pageable_copy_done_on_the_device_and_on_the_host);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("pageable_copy");
}
