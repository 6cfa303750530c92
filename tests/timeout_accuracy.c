/*
 * tests/timeout_accuracy.c - how late the timed waits return: a measuring
 * program, not a test (no pass/fail on timing; `make` neither builds nor
 * runs it). For each call that takes a timeout and times out here
 * (aclrtSynchronizeStreamWithTimeout, aclrtSynchronizeEventWithTimeout,
 * aclrtSynchronizeDeviceWithTimeout, aclrtProcessReport,
 * aclrtProcessHostFunc) it makes N waits with timeouts spread over
 * 5..50 ms and prints the overshoot (return time - deadline): median, p90,
 * p99, max, and how many returned early (there must be none).
 *
 *   cc -std=c11 -O2 -I. tests/timeout_accuracy.c -o build/timeout_accuracy \
 *      -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm
 *   ./build/timeout_accuracy [N per call, default 200]
 *
 * Measure on an idle machine: the figures are wake-up latencies.
 */
#define _GNU_SOURCE
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static sem_t release_task;
static void blocked_task(void *arg)
{
    (void)arg;
    while (sem_wait(&release_task) != 0) /* asleep, not spinning: the machine stays idle */
        ;
}

enum which { STREAM, EVENT, DEVICE, REPORT, HOST_FUNC };
static const char *const names[] = {"aclrtSynchronizeStreamWithTimeout", "aclrtSynchronizeEventWithTimeout",
                                    "aclrtSynchronizeDeviceWithTimeout", "aclrtProcessReport",
                                    "aclrtProcessHostFunc"};
static const aclError expected[] = {ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                                    ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_REPORT_TIMEOUT,
                                    ACL_ERROR_RT_REPORT_TIMEOUT};

static aclrtStream stream;
static aclrtEvent event;

static void measure(enum which w, int n)
{
    double *over = calloc((size_t)n, sizeof *over);
    int early = 0, wrong = 0;
    unsigned seed = 12345;
    for (int i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        int32_t timeout = 5 + (int32_t)((seed >> 16) % 46); /* 5..50 ms */
        double t0 = now_ms();
        aclError rc;
        switch (w) {
        case STREAM: rc = aclrtSynchronizeStreamWithTimeout(stream, timeout); break;
        case EVENT: rc = aclrtSynchronizeEventWithTimeout(event, timeout); break;
        case DEVICE: rc = aclrtSynchronizeDeviceWithTimeout(timeout); break;
        case REPORT: rc = aclrtProcessReport(timeout); break;
        default: rc = aclrtProcessHostFunc(timeout); break;
        }
        double late = now_ms() - t0 - timeout;
        if (rc != expected[w])
            wrong++;
        if (late < 0)
            early++;
        over[i] = late;
        aclGetRecentErrMsg();
    }
    qsort(over, (size_t)n, sizeof *over, cmp_double);
    printf("%-36s n=%d  overshoot ms: median %.3f  p90 %.3f  p99 %.3f  max %.3f  early %d  wrong code %d\n",
           names[w], n, over[n / 2], over[n * 90 / 100], over[n * 99 / 100], over[n - 1], early, wrong);
    free(over);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    if (n < 1)
        n = 1;
    sem_init(&release_task, 0, 0);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS ||
        aclrtCreateEvent(&event) != ACL_SUCCESS) {
        fprintf(stderr, "cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    /* A stream that never finishes while we measure; an event captured behind its task. */
    aclrtLaunchHostFunc(stream, blocked_task, NULL);
    aclrtRecordEvent(event, stream);
    measure(STREAM, n);
    measure(EVENT, n);
    measure(DEVICE, n);

    /* This thread serves callbacks and host functions of a stream that has none queued. */
    aclrtStream served;
    aclrtCreateStream(&served);
    aclrtSubscribeReport((uint64_t)pthread_self(), served);
    aclrtSubscribeHostFunc((uint64_t)pthread_self(), served);
    measure(REPORT, n);
    measure(HOST_FUNC, n);
    aclrtUnSubscribeReport((uint64_t)pthread_self(), served);
    aclrtUnSubscribeHostFunc((uint64_t)pthread_self(), served);

    sem_post(&release_task);
    aclrtSynchronizeStream(stream);
    aclrtDestroyEvent(event);
    aclrtDestroyStream(served);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    return aclFinalize() == ACL_SUCCESS ? 0 : 1;
}
