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
 * With small copies the step time is also the executors': a slower
 * submitter lets them fall asleep and must wake them, so the sanitizer's own
 * cost is measured apart too: an aclrtRecordEvent on an idle stream (no task,
 * no executor), 100,000 times, off and on.
 *
 * Each figure is the median over rounds of the time per step (ns): the wall
 * time, and the CPU time of the submitting thread (what the sanitizer's own
 * work adds, whatever the executors do meanwhile); a round starts the
 * runtime (with the sanitizer off or on, alternately), runs the steps and
 * finalizes it.
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

static uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One round: wall ns per step (and the submitting thread's CPU ns per step in *cpu). */
static double round_ns(bool sanitize, int steps, size_t bytes, double *cpu)
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
    uint64_t t0 = now_ns(), c0 = thread_cpu_ns();
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
    uint64_t t1 = now_ns(), c1 = thread_cpu_ns();
    *cpu = (double)(c1 - c0) / steps;
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

/* ns per aclrtRecordEvent on an idle stream. */
static double record_ns(bool sanitize)
{
    setenv("ACLRT_SANITIZE", sanitize ? "streams" : "none", 1);
    OK(aclInit(NULL));
    OK(aclrtSetDevice(0));
    aclrtStream s;
    aclrtEvent e;
    OK(aclrtCreateStream(&s));
    OK(aclrtCreateEvent(&e));
    const int n = 100000;
    uint64_t t0 = now_ns();
    for (int i = 0; i < n; i++)
        OK(aclrtRecordEvent(e, s));
    uint64_t t1 = now_ns();
    OK(aclrtDestroyEvent(e));
    OK(aclrtDestroyStream(s));
    OK(aclrtResetDevice(0));
    OK(aclFinalize());
    return (double)(t1 - t0) / n;
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
    double cpu;
    round_ns(false, steps / 10, sizes[0], &cpu); /* warm-up */
    printf("copy pipeline, 2 streams, %d steps x %d rounds (median ns per step: 2 copies, 2 records, 2 waits)\n",
           steps, ROUNDS);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double off[ROUNDS], on[ROUNDS], off_cpu[ROUNDS], on_cpu[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            off[r] = round_ns(false, steps, sizes[k], &off_cpu[r]);
            on[r] = round_ns(true, steps, sizes[k], &on_cpu[r]);
        }
        qsort(off, ROUNDS, sizeof off[0], by_value);
        qsort(on, ROUNDS, sizeof on[0], by_value);
        qsort(off_cpu, ROUNDS, sizeof off_cpu[0], by_value);
        qsort(on_cpu, ROUNDS, sizeof on_cpu[0], by_value);
        printf("  %2zu KiB copies: wall off %6.0f ns, on %6.0f ns (%.2f x); submitting thread's CPU off %6.0f ns, "
               "on %6.0f ns (%.2f x)\n",
               sizes[k] / 1024, off[ROUNDS / 2], on[ROUNDS / 2], on[ROUNDS / 2] / off[ROUNDS / 2],
               off_cpu[ROUNDS / 2], on_cpu[ROUNDS / 2], on_cpu[ROUNDS / 2] / off_cpu[ROUNDS / 2]);
    }
    double rec_off[ROUNDS], rec_on[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        rec_off[r] = record_ns(false);
        rec_on[r] = record_ns(true);
    }
    qsort(rec_off, ROUNDS, sizeof rec_off[0], by_value);
    qsort(rec_on, ROUNDS, sizeof rec_on[0], by_value);
    printf("  aclrtRecordEvent on an idle stream: off %.1f ns, on %.1f ns (the sanitizer's own work: %.0f ns a call)\n",
           rec_off[ROUNDS / 2], rec_on[ROUNDS / 2], rec_on[ROUNDS / 2] - rec_off[ROUNDS / 2]);
    return 0;
}
