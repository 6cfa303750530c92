/*
 * tests/test_cuda_graph.c - pins model replays of GPU work (docs/CUDA.md,
 * "Model replays"), with assertions on what any backend shows: the data a
 * replay leaves, and its order with the stream's other work.
 *
 *   - a body of copies, sets and kernels replayed many times leaves the
 *     right data each time, in order with the stream's work before and
 *     after it, and a kernel runs with the arguments copied at the capture;
 *   - one model replays on two streams at once, each replay whole;
 *   - a destroy (and an unload of the kernels' binary) while replays are
 *     pending lets them finish;
 *   - a body with a host step (a host function; a kernel reading its
 *     arguments from device memory, read at each replay) replays right;
 *   - a body copying pageable host memory (not capturable) replays right;
 *   - a task group's update gives later replays the new steps;
 *   - a graph the driver fails to build: the replays are right anyway.
 *
 * On the cuda backend over the driver test double (tests/cuda_fake/), the
 * double's counters say which way a replay went: one graph launch per
 * replay when the body is GPU work only, none otherwise, none after a
 * failed build (not tried again); its knob makes an instantiation fail.
 * Elsewhere (the host backend, a GPU) those checks are skipped.
 */
#define _GNU_SOURCE

#include "check.h"
#include "fake_cuda_hooks.h"
#include "kernels/test_kernels.h"
#include "gate.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The test double's counters and knob, when the cuda backend runs on it (else NULL). */
static uint64_t (*fake_launches)(void);
static void (*fake_fail)(int n);
static int (*fake_execs)(void);

static void fake_lookup(void)
{
    *(void **)&fake_launches = fake_cuda_symbol("fakecuda_graph_launches");
    *(void **)&fake_fail = fake_cuda_symbol("fakecuda_graph_fail");
    *(void **)&fake_execs = fake_cuda_symbol("fakecuda_graph_execs");
}

static uint64_t launches(void)
{
    return fake_launches != NULL ? fake_launches() : 0;
}

/* Graph launches since `before` are `want` (on the test double only). */
#define CHECK_LAUNCHES(before, want)                                 \
    do {                                                             \
        if (fake_launches != NULL)                                   \
            CHECK_EQ((uint64_t)(want), launches() - (before));       \
    } while (0)

/* The kernels of tests/kernels/test_kernels.c (NULL where the backend loads no host shared object: a GPU). */
static aclrtBinHandle load_kernels(void)
{
    aclrtBinHandle bin = NULL;
    aclError rc = aclrtBinaryLoadFromFile(ACLRT_TEST_KERNEL_DIR "/libtest_kernels.so", NULL, &bin);
    if (rc != ACL_SUCCESS && strcmp(aclrtxGetBackendName(), "cuda") == 0)
        return NULL;
    CHECK_OK(rc);
    return bin;
}

static aclrtFuncHandle function(aclrtBinHandle bin, const char *name)
{
    aclrtFuncHandle f = NULL;
    CHECK_OK(aclrtBinaryGetFunction(bin, name, &f));
    return f;
}

static aclrtStream new_stream(void)
{
    aclrtStream s = NULL;
    CHECK_OK(aclrtCreateStream(&s));
    return s;
}

static void *dev_alloc(size_t n)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static void to_host(void *dst, const void *src, size_t n)
{
    CHECK_OK(aclrtMemcpy(dst, n, src, n, ACL_MEMCPY_DEVICE_TO_HOST));
}

#define REPLAYS 40
#define BYTES 64

TEST(copies_sets_and_kernels_replay_right_each_time_in_order_with_the_stream_and_capture_time_arguments)
{
    aclrtBinHandle bin = load_kernels();
    aclrtFuncHandle fill = bin != NULL ? function(bin, "fill") : NULL;
    aclrtStream s = new_stream();
    unsigned char *a = dev_alloc(BYTES), *b = dev_alloc(BYTES), *snap = dev_alloc((size_t)REPLAYS * BYTES);
    int32_t *k = dev_alloc(4 * sizeof(int32_t)), *ksnap = dev_alloc((size_t)REPLAYS * 4 * sizeof(int32_t));
    CHECK_OK(aclrtMemset(a, BYTES, 0, BYTES));
    CHECK_OK(aclrtMemset(b, BYTES, 0, BYTES));
    CHECK_OK(aclrtMemset(k, 4 * sizeof(int32_t), 0, 4 * sizeof(int32_t)));

    /* a = 0x11; b = a; a = 0x22; k[i] = 100 + i: b ends 0x11 only if the steps run in order. */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x11, BYTES, s));
    CHECK_OK(aclrtMemcpyAsync(b, BYTES, a, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x22, BYTES, s));
    struct fill_args fa = {k, 100};
    if (fill != NULL)
        CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 4, s, NULL, &fa, sizeof fa, NULL, 0));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    fa.value = -1; /* the capture copied the arguments */
    CHECK_OK(aclrtSynchronizeStream(s));
    unsigned char hb[BYTES];
    to_host(hb, b, BYTES);
    CHECK_EQ(0, hb[0]); /* nothing ran at the capture */

    uint64_t before = launches();
    for (int r = 0; r < REPLAYS; r++) {
        /* Before: clear what the replay writes; after: keep what it wrote. */
        CHECK_OK(aclrtMemsetAsync(b, BYTES, 0, BYTES, s));
        CHECK_OK(aclrtMemsetAsync(k, 4 * sizeof(int32_t), 0, 4 * sizeof(int32_t), s));
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
        CHECK_OK(aclrtMemcpyAsync(snap + (size_t)r * BYTES, BYTES, b, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
        CHECK_OK(aclrtMemcpyAsync(ksnap + (size_t)r * 4, 4 * sizeof(int32_t), k, 4 * sizeof(int32_t),
                                  ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    }
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_LAUNCHES(before, REPLAYS);
    unsigned char *hs = malloc((size_t)REPLAYS * BYTES);
    int32_t *hk = malloc((size_t)REPLAYS * 4 * sizeof(int32_t));
    CHECK(hs != NULL && hk != NULL);
    to_host(hs, snap, (size_t)REPLAYS * BYTES);
    to_host(hk, ksnap, (size_t)REPLAYS * 4 * sizeof(int32_t));
    unsigned char ha[BYTES];
    to_host(ha, a, BYTES);
    CHECK_EQ(0x22, ha[BYTES - 1]);
    for (int r = 0; r < REPLAYS; r++) {
        CHECK_EQ(0x11, hs[(size_t)r * BYTES]);
        CHECK_EQ(0x11, hs[(size_t)r * BYTES + BYTES - 1]);
        for (int i = 0; i < 4; i++)
            CHECK_EQ(fill != NULL ? 100 + i : 0, hk[r * 4 + i]);
    }
    free(hs);
    free(hk);
    CHECK_OK(aclmdlRIDestroy(m));
    if (bin != NULL)
        CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtFree(snap));
    CHECK_OK(aclrtFree(k));
    CHECK_OK(aclrtFree(ksnap));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(one_model_replays_on_two_streams_at_once_each_replay_whole)
{
    aclrtBinHandle bin = load_kernels();
    if (bin == NULL)
        return;
    aclrtFuncHandle count = function(bin, "count_runs");
    aclrtStream s1 = new_stream(), s2 = new_stream();
    atomic_int n = 0;
    struct count_args ca = {&n};
    int32_t *k = dev_alloc(4 * sizeof(int32_t));
    struct fill_args fa = {k, 7};
    CHECK_OK(aclmdlRICaptureBegin(s1, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(count, 3, s1, NULL, &ca, sizeof ca, NULL, 0));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(function(bin, "fill"), 4, s1, NULL, &fa, sizeof fa, NULL, 0));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(count, 2, s1, NULL, &ca, sizeof ca, NULL, 0));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s1, &m));
    uint64_t before = launches();
    /*
     * Both streams' first replays may build the graph at once: one is kept.
     * The replays write the same values to the same memory at once: a race
     * on purpose, which the stream-ordering sanitizer is told to let be.
     */
    aclrtxSanitizerIgnoreBegin();
    for (int r = 0; r < REPLAYS; r++) {
        CHECK_OK(aclmdlRIExecuteAsync(m, s1));
        CHECK_OK(aclmdlRIExecuteAsync(m, s2));
    }
    aclrtxSanitizerIgnoreEnd();
    CHECK_OK(aclrtSynchronizeStream(s1));
    CHECK_OK(aclrtSynchronizeStream(s2));
    CHECK_EQ(2 * REPLAYS * 5, atomic_load(&n));
    CHECK_LAUNCHES(before, 2 * REPLAYS);
    int32_t hk[4];
    to_host(hk, k, sizeof hk);
    CHECK_EQ(10, hk[3]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtFree(k));
    CHECK_OK(aclrtDestroyStream(s1));
    CHECK_OK(aclrtDestroyStream(s2));
}

TEST(a_destroy_and_an_unload_while_replays_are_pending_let_them_finish)
{
    aclrtBinHandle bin = load_kernels();
    if (bin == NULL)
        return;
    aclrtStream s = new_stream();
    atomic_int n = 0, open = 0, ran = 0;
    struct count_args ca = {&n};
    struct gate_args ga = {&open, &ran};
    unsigned char *a = dev_alloc(BYTES);
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x5A, BYTES, s));
    CHECK_OK(aclrtLaunchKernelWithHostArgs(function(bin, "count_runs"), 4, s, NULL, &ca, sizeof ca, NULL, 0));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    /* A kernel holds the stream (on a GPU queue: the replays are issued behind it). */
    CHECK_OK(aclrtLaunchKernelWithHostArgs(function(bin, "wait_gate"), 1, s, NULL, &ga, sizeof ga, NULL, 0));
    uint64_t before = launches();
    for (int r = 0; r < 3; r++)
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtBinaryUnLoad(bin)); /* the replays keep the kernels' code */
    CHECK_EQ(0, atomic_load(&n));
    atomic_store(&open, 1);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_EQ(12, atomic_load(&n));
    CHECK_LAUNCHES(before, 3);
    unsigned char ha[BYTES];
    to_host(ha, a, BYTES);
    CHECK_EQ(0x5A, ha[BYTES - 1]);
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtDestroyStream(s));
}

/* A log of host functions, in the order they ran. */
static atomic_int log_len;
static int log_val[64];

static void log_fn(void *arg)
{
    int i = atomic_fetch_add(&log_len, 1);
    if (i < 64)
        log_val[i] = (int)(intptr_t)arg;
}

TEST(a_body_with_host_steps_replays_step_by_step_right)
{
    aclrtBinHandle bin = load_kernels();
    aclrtFuncHandle fill = bin != NULL ? function(bin, "fill") : NULL;
    atomic_store(&log_len, 0);
    aclrtStream s = new_stream();
    unsigned char *a = dev_alloc(BYTES), *b = dev_alloc(BYTES);
    int32_t *k = dev_alloc(4 * sizeof(int32_t)), *k2 = dev_alloc(4 * sizeof(int32_t));
    struct fill_args *dargs = dev_alloc(sizeof *dargs), args = {k2, 10};
    CHECK_OK(aclrtMemcpy(dargs, sizeof *dargs, &args, sizeof args, ACL_MEMCPY_HOST_TO_DEVICE));
    struct fill_args fa = {k, 100};
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x33, BYTES, s));
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, (void *)(intptr_t)1));
    CHECK_OK(aclrtMemcpyAsync(b, BYTES, a, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x44, BYTES, s));
    if (fill != NULL) {
        CHECK_OK(aclrtLaunchKernelWithHostArgs(fill, 4, s, NULL, &fa, sizeof fa, NULL, 0));
        CHECK_OK(aclrtLaunchKernel(fill, 4, dargs, sizeof *dargs, s)); /* arguments read at each replay */
    }
    CHECK_OK(aclrtLaunchHostFunc(s, log_fn, (void *)(intptr_t)2));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    uint64_t before = launches();
    for (int r = 0; r < 3; r++) {
        CHECK_OK(aclrtMemsetAsync(b, BYTES, 0, BYTES, s));
        args.value = 10 * (r + 1);
        CHECK_OK(aclrtMemcpy(dargs, sizeof *dargs, &args, sizeof args, ACL_MEMCPY_HOST_TO_DEVICE));
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
        CHECK_OK(aclrtSynchronizeStream(s));
        unsigned char ha[BYTES], hb[BYTES];
        to_host(ha, a, BYTES);
        to_host(hb, b, BYTES);
        CHECK_EQ(0x44, ha[0]);
        CHECK_EQ(0x33, hb[BYTES - 1]);
        if (fill != NULL) {
            int32_t hk[4], hk2[4];
            to_host(hk, k, sizeof hk);
            to_host(hk2, k2, sizeof hk2);
            CHECK_EQ(103, hk[3]);
            CHECK_EQ(10 * (r + 1) + 3, hk2[3]);
        }
        CHECK_EQ(2 * (r + 1), atomic_load(&log_len));
        CHECK_EQ(1, log_val[2 * r]);
        CHECK_EQ(2, log_val[2 * r + 1]);
    }
    CHECK_LAUNCHES(before, 0);
    CHECK_OK(aclmdlRIDestroy(m));
    if (bin != NULL)
        CHECK_OK(aclrtBinaryUnLoad(bin));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtFree(k));
    CHECK_OK(aclrtFree(k2));
    CHECK_OK(aclrtFree(dargs));
    CHECK_OK(aclrtDestroyStream(s));
}

/*
 * A body copying from and into pageable host memory: the driver does not
 * capture such a copy, so the body replays step by step (no graph launch),
 * right, in order with the stream's work.
 */
TEST(a_body_with_pageable_copies_replays_step_by_step_right)
{
    static unsigned char in[BYTES], out[BYTES];
    aclrtStream s = new_stream();
    unsigned char *a = dev_alloc(BYTES);
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtMemcpyAsync(a, BYTES, in, BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CHECK_OK(aclrtMemsetAsync(a, 16, 0x5a, 16, s));
    CHECK_OK(aclrtMemcpyAsync(out, BYTES, a, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    uint64_t before = launches();
    for (int r = 0; r < 3; r++) {
        memset(in, 0x10 + r, BYTES);
        memset(out, 0, BYTES);
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
        CHECK_OK(aclrtSynchronizeStream(s));
        CHECK_EQ(0x5a, out[15]);
        CHECK_EQ(0x10 + r, out[16]);
        CHECK_EQ(0x10 + r, out[BYTES - 1]);
    }
    CHECK_LAUNCHES(before, 0);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(a_task_group_update_gives_later_replays_the_new_steps)
{
    aclrtStream s = new_stream(), u = new_stream();
    unsigned char *a = dev_alloc(BYTES), *b = dev_alloc(BYTES);
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclmdlRICaptureTaskGrpBegin(s));
    CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x11, BYTES, s));
    aclrtTaskGrp grp = NULL;
    CHECK_OK(aclmdlRICaptureTaskGrpEnd(s, &grp));
    CHECK_OK(aclrtMemcpyAsync(b, BYTES, a, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    uint64_t before = launches();
    unsigned char hb[BYTES];
    for (int v = 1; v <= 3; v++) {
        if (v > 1) {
            CHECK_OK(aclmdlRICaptureTaskUpdateBegin(u, grp));
            CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x11 * v, BYTES, u));
            CHECK_OK(aclmdlRICaptureTaskUpdateEnd(u));
        }
        for (int r = 0; r < 2; r++) {
            CHECK_OK(aclrtMemsetAsync(b, BYTES, 0, BYTES, s));
            CHECK_OK(aclmdlRIExecuteAsync(m, s));
            CHECK_OK(aclrtSynchronizeStream(s));
            to_host(hb, b, BYTES);
            CHECK_EQ(0x11 * v, hb[BYTES - 1]);
        }
    }
    CHECK_LAUNCHES(before, 6); /* each body's graph, built at its first replay */
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtDestroyStream(u));
}

TEST(a_graph_the_driver_fails_to_build_falls_back_for_good_and_replays_right)
{
    aclrtStream s = new_stream();
    unsigned char *a = dev_alloc(BYTES), *b = dev_alloc(BYTES);
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtMemsetAsync(a, BYTES, 0x66, BYTES, s));
    CHECK_OK(aclrtMemcpyAsync(b, BYTES, a, BYTES, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    aclmdlRI m = NULL;
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    if (fake_fail != NULL)
        fake_fail(1); /* the next instantiation fails, not the one after */
    uint64_t before = launches();
    unsigned char hb[BYTES];
    for (int r = 0; r < 3; r++) {
        CHECK_OK(aclrtMemsetAsync(b, BYTES, 0, BYTES, s));
        CHECK_OK(aclmdlRIExecuteAsync(m, s));
        CHECK_OK(aclrtSynchronizeStream(s));
        to_host(hb, b, BYTES);
        CHECK_EQ(0x66, hb[0]);
    }
    CHECK_LAUNCHES(before, 0); /* the build was not tried again */
    CHECK_OK(aclmdlRIDestroy(m));
    /* Another model builds its own graph. */
    CHECK_OK(aclmdlRICaptureBegin(s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
    CHECK_OK(aclrtMemsetAsync(b, BYTES, 0x77, BYTES, s));
    CHECK_OK(aclmdlRICaptureEnd(s, &m));
    before = launches();
    CHECK_OK(aclmdlRIExecuteAsync(m, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_LAUNCHES(before, 1);
    to_host(hb, b, BYTES);
    CHECK_EQ(0x77, hb[0]);
    CHECK_OK(aclmdlRIDestroy(m));
    CHECK_OK(aclrtFree(a));
    CHECK_OK(aclrtFree(b));
    CHECK_OK(aclrtDestroyStream(s));
}

/*
 * Run last. The models above are destroyed and their streams synchronized;
 * a graph let go of on a driver callback thread was destroyed when the last
 * case built its graph.
 */
TEST(every_executable_graph_went_with_its_model)
{
    if (fake_execs != NULL)
        CHECK_EQ(0, fake_execs());
}

int main(void)
{
    if (aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "cuda_graph: aclrtSetDevice(0) failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    fake_lookup();
    RUN(copies_sets_and_kernels_replay_right_each_time_in_order_with_the_stream_and_capture_time_arguments);
    RUN(one_model_replays_on_two_streams_at_once_each_replay_whole);
    RUN(a_destroy_and_an_unload_while_replays_are_pending_let_them_finish);
    RUN(a_body_with_host_steps_replays_step_by_step_right);
    RUN(a_body_with_pageable_copies_replays_step_by_step_right);
    RUN(a_task_group_update_gives_later_replays_the_new_steps);
    RUN(a_graph_the_driver_fails_to_build_falls_back_for_good_and_replays_right);
    RUN(every_executable_graph_went_with_its_model);
    int rc = check_report("cuda_graph");
    aclrtResetDevice(0);
    aclFinalize();
    return rc;
}
