/*
 * timing.c - timing work with events, and what a record, a query and a
 * cross-stream wait cost.
 *
 * Part 1: aclrtEventElapsedTime around a host kernel, the usual way to time
 * device work (create -> record both on one stream -> synchronize -> read).
 * Part 2: a quick timing loop of the event hot paths on this machine (the
 * full comparison is `make bench`).
 *
 * Build and run, from the root of the repository (nothing to install first; the
 * -DACLRT_IMPLEMENTATION puts the implementation in this file):
 *
 *   cc -std=c11 -I. -DACLRT_IMPLEMENTATION examples/timing.c -o timing -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./timing
 *
 * `make run-examples` builds and runs every example under build/examples/.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime under -std=c11 */
#include "acl/acl.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHECK(call)                                                                         \
    do {                                                                                    \
        aclError ret_ = (call);                                                             \
        if (ret_ != ACL_SUCCESS) {                                                          \
            fprintf(stderr, "%s:%d %s failed: %d\n%s\n", __FILE__, __LINE__, #call, ret_,   \
                    aclGetRecentErrMsg());                                                  \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static volatile double sink[64]; /* one slot per block: blocks run in parallel */

static aclError busy(uint32_t block, uint32_t blocks, void *arg)
{
    (void)blocks;
    double x = block;
    for (int i = 0; i < *(int *)arg; i++)
        x = x * 1.0000001 + 1.0;
    sink[block % 64] = x;
    return ACL_SUCCESS;
}

static void nothing(void *arg)
{
    (void)arg;
}

int main(void)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtStream a, b;
    CHECK(aclrtCreateStream(&a));
    CHECK(aclrtCreateStream(&b));

    /* Part 1: elapsed time of a host kernel. */
    aclrtEvent start, stop;
    CHECK(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE));
    CHECK(aclrtCreateEventWithFlag(&stop, ACL_EVENT_TIME_LINE));
    int iterations = 2000000;
    CHECK(aclrtRecordEvent(start, a));
    CHECK(aclrtxLaunchHostKernel(a, 4, busy, &iterations));
    CHECK(aclrtRecordEvent(stop, a));
    CHECK(aclrtSynchronizeEvent(stop));
    float ms;
    CHECK(aclrtEventElapsedTime(&ms, start, stop));
    printf("host kernel, 4 blocks x %d iterations: %.3f ms\n", iterations, ms);

    /* Part 2: the hot paths, averaged over many calls. */
    enum { N = 1000000 };
    aclrtEvent ev;
    CHECK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    CHECK(aclrtSynchronizeStream(a));

    double t0 = now_ns();
    for (int i = 0; i < N; i++)
        aclrtRecordEvent(ev, a);
    double record = (now_ns() - t0) / N;

    aclrtEventRecordedStatus status;
    t0 = now_ns();
    for (int i = 0; i < N; i++)
        aclrtQueryEventStatus(ev, &status);
    double query = (now_ns() - t0) / N;

    t0 = now_ns();
    for (int i = 0; i < N; i++)
        aclrtSynchronizeStream(a);
    double sync = (now_ns() - t0) / N;

    /* Cross-stream round trip: a task on a, a wait on b, a task on b, synchronize. */
    enum { R = 20000 };
    t0 = now_ns();
    for (int i = 0; i < R; i++) {
        CHECK(aclrtLaunchHostFunc(a, nothing, NULL));
        CHECK(aclrtRecordEvent(ev, a));
        CHECK(aclrtStreamWaitEvent(b, ev));
        CHECK(aclrtLaunchHostFunc(b, nothing, NULL));
        CHECK(aclrtSynchronizeStream(b));
    }
    double round_trip = (now_ns() - t0) / R;

    printf("record on an idle stream:      %8.1f ns\n", record);
    printf("query of a recorded event:     %8.1f ns\n", query);
    printf("synchronize a finished stream: %8.1f ns\n", sync);
    printf("launch a -> record -> wait b -> launch b -> sync b: %8.1f ns\n", round_trip);

    CHECK(aclrtDestroyEvent(ev));
    CHECK(aclrtDestroyEvent(start));
    CHECK(aclrtDestroyEvent(stop));
    CHECK(aclrtDestroyStream(a));
    CHECK(aclrtDestroyStream(b));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return 0;
}
