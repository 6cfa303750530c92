/*
 * bench/sanitize/sanitize_cost.c - what the stream-ordering sanitizer (ACLRT_SANITIZE)
 * costs a copy-heavy program: the same work with the sanitizer off and on,
 * in turn, in one run (make bench-sanitize).
 *
 * The work: two streams hand buffers back and forth, as a pipeline does. Per
 * step, stream 1 copies 4 KiB (then 64 KiB) of pinned host memory into one of 8 device
 * buffers and records an event; stream 2 waits for it, copies the buffer
 * back to the host and records an event that stream 1 waits for before it
 * reuses the buffer; every 64 steps the host synchronizes the device. That
 * is 4 copies or waits and 2 records a step, each checked by the sanitizer.
 *
 * Each figure is the median over rounds of the time per step (ns); a round
 * starts the runtime (with the sanitizer off or on, alternately), runs the
 * steps and finalizes it.
 *
 *   aclrt-sanitize-cost [--quick]
 */
#define _GNU_SOURCE
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BUFFERS 8
#define ROUNDS 5

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define OK(call)                                                                                                 \
    do {                                                                                                       \
        aclError rc_ = (call);                                                                                 \
        if (rc_ != ACL_SUCCESS) {                                                                              \
            fprintf(stderr, "sanitize_cost: %s failed with %d: %s\n", #call, rc_, aclGetRecentErrMsg());       \
            exit(1);                                                                                           \
        }                                                                                                      \
    } while (0)

/* One round: ns per step. */
static double round_ns(bool sanitize, int steps, size_t bytes)
{
    setenv("ACLRT_SANITIZE", sanitize ? "streams" : "none", 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream s1, s2;
    OK(aclrtCreateStream(&s1));
    OK(aclrtCreateStream(&s2));
    void *dev[BUFFERS], *in, *out;
    aclrtEvent written[BUFFERS], read[BUFFERS];
    for (int i = 0; i < BUFFERS; i++) {
        OK(aclrtMalloc(&dev[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        OK(aclrtCreateEvent(&written[i]));
        OK(aclrtCreateEvent(&read[i]));
    }
    OK(aclrtMallocHost(&in, bytes));
    OK(aclrtMallocHost(&out, BUFFERS * bytes));
    memset(in, 1, bytes);
    bool used[BUFFERS] = {false};
    uint64_t t0 = now_ns();
    for (int i = 0; i < steps; i++) {
        int b = i % BUFFERS;
        if (used[b])
            OK(aclrtStreamWaitEvent(s1, read[b]));
        OK(aclrtMemcpyAsync(dev[b], bytes, in, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s1));
        OK(aclrtRecordEvent(written[b], s1));
        OK(aclrtStreamWaitEvent(s2, written[b]));
        OK(aclrtMemcpyAsync((char *)out + b * bytes, bytes, dev[b], bytes, ACL_MEMCPY_DEVICE_TO_HOST, s2));
        OK(aclrtRecordEvent(read[b], s2));
        used[b] = true;
        if (i % 64 == 63)
            OK(aclrtSynchronizeDevice());
    }
    OK(aclrtSynchronizeDevice());
    uint64_t t1 = now_ns();
    for (int i = 0; i < BUFFERS; i++) {
        OK(aclrtFree(dev[i]));
        OK(aclrtDestroyEvent(written[i]));
        OK(aclrtDestroyEvent(read[i]));
    }
    OK(aclrtFreeHost(in));
    OK(aclrtFreeHost(out));
    uint64_t reports = aclrtxSanitizerReportCount();
    OK(aclrtDestroyStream(s1));
    OK(aclrtDestroyStream(s2));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    if (reports != 0) {
        fprintf(stderr, "sanitize_cost: the work is ordered, yet the sanitizer made %llu reports\n",
                (unsigned long long)reports);
        exit(1);
    }
    return (double)(t1 - t0) / steps;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int steps = quick ? 2000 : 20000;
    const size_t sizes[] = {4096, 64 * 1024};
    round_ns(false, steps / 10, sizes[0]); /* warm-up */
    printf("copy pipeline, 2 streams, %d steps x %d rounds (median ns per step: 2 copies, 2 records, 2 waits)\n",
           steps, ROUNDS);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double off[ROUNDS], on[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            off[r] = round_ns(false, steps, sizes[k]);
            on[r] = round_ns(true, steps, sizes[k]);
        }
        qsort(off, ROUNDS, sizeof off[0], by_value);
        qsort(on, ROUNDS, sizeof on[0], by_value);
        printf("  %2zu KiB copies: off %7.0f ns (%.0f .. %.0f), on %7.0f ns (%.0f .. %.0f), on / off %.2f x\n",
               sizes[k] / 1024, off[ROUNDS / 2], off[0], off[ROUNDS - 1], on[ROUNDS / 2], on[0], on[ROUNDS - 1],
               on[ROUNDS / 2] / off[ROUNDS / 2]);
    }
    return 0;
}
