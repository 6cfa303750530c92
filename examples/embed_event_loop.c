/*
 * examples/embed_event_loop.c - aclrt inside a program's own event loop.
 *
 * The runtime starts no threads (external progress): one epoll loop on the
 * main thread drives device 0 with aclrtxDeviceProgress whenever the
 * device's eventfd says work arrived, or a timer is due. An external task
 * puts the program's own asynchronous work into a stream: here a timerfd
 * stands in for a network transfer that the task starts and whose
 * completion the loop reports with aclrtxCompleteExternalTask. A second
 * stream waits on an event recorded after the transfer, and then "consumes"
 * the data. Nothing blocks: every wait is the loop's epoll_wait.
 *
 *   stream in:   [external: transfer 20 ms] -> record(ready)
 *   stream work: wait(ready) -> consume
 *
 * Build and run, from the root of the repository (nothing to install first; the
 * -DACLRT_IMPLEMENTATION puts the implementation in this file):
 *
 *   cc -std=c11 -I. -DACLRT_IMPLEMENTATION examples/embed_event_loop.c -o embed_event_loop -lck -lurcu-cds -lurcu-bp -lurcu-common -lpthread -lm -ldl && ./embed_event_loop
 *
 * `make run-examples` builds and runs every example under build/examples/.
 */
#define _GNU_SOURCE
#include "acl/acl.h" /* one C file of the program defines ACLRT_IMPLEMENTATION (the build links it) */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        aclError rc_ = (call);                                                        \
        if (rc_ != ACL_SUCCESS) {                                                     \
            fprintf(stderr, "%s failed: %d %s\n", #call, rc_, aclGetRecentErrMsg());  \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

/* The "network": a timerfd, and the token of the task waiting for it. */
struct transfer {
    int timer_fd;
    aclrtxExternalToken token;
    int in_flight;
    char buffer[64];
};

/* Called by aclrtxDeviceProgress when stream `in` reaches the task: start the transfer, return at once. */
static void transfer_start(aclrtxExternalToken token, void *arg)
{
    struct transfer *t = (struct transfer *)arg;
    t->token = token;
    t->in_flight = 1;
    struct itimerspec in20ms = {.it_value = {.tv_sec = 0, .tv_nsec = 20 * 1000 * 1000}};
    timerfd_settime(t->timer_fd, 0, &in20ms, NULL);
    printf("transfer started\n");
}

static int consumed;

static void consume(void *arg)
{
    printf("consumed: %s\n", (const char *)arg);
    consumed = 1;
}

static int ms_until(uint64_t deadline_ns)
{
    if (deadline_ns == UINT64_MAX)
        return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    return deadline_ns <= now_ns ? 0 : (int)((deadline_ns - now_ns + 999999) / 1000000);
}

int main(void)
{
    /* Or {"aclrt": {"progress": "external"}} in the file given to aclInit. */
    setenv("ACLRT_PROGRESS", "external", 1);
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));

    struct transfer t = {.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC)};
    int progress_fd;
    CHECK(aclrtxDeviceProgressFd(0, &progress_fd));
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = progress_fd};
    epoll_ctl(ep, EPOLL_CTL_ADD, progress_fd, &ev);
    ev.data.fd = t.timer_fd;
    epoll_ctl(ep, EPOLL_CTL_ADD, t.timer_fd, &ev);

    aclrtStream in, work;
    aclrtEvent ready;
    CHECK(aclrtCreateStream(&in));
    CHECK(aclrtCreateStream(&work));
    CHECK(aclrtCreateEventExWithFlag(&ready, ACL_EVENT_SYNC));
    CHECK(aclrtxLaunchExternalTask(in, transfer_start, &t));
    CHECK(aclrtRecordEvent(ready, in));
    CHECK(aclrtStreamWaitEvent(work, ready));
    CHECK(aclrtLaunchHostFunc(work, consume, t.buffer));

    uint64_t next_timer = UINT64_MAX;
    while (!consumed) {
        struct epoll_event got[2];
        int n = epoll_wait(ep, got, 2, ms_until(next_timer));
        for (int i = 0; i < n; i++) {
            if (got[i].data.fd == t.timer_fd && t.in_flight) { /* the transfer finished */
                uint64_t expirations;
                if (read(t.timer_fd, &expirations, sizeof expirations) > 0) {
                    snprintf(t.buffer, sizeof t.buffer, "payload of the transfer");
                    t.in_flight = 0;
                    CHECK(aclrtxCompleteExternalTask(t.token, ACL_SUCCESS));
                }
            }
        }
        /* Run what is ready (and fire due timers) until nothing is. */
        aclrtxProgressInfo info;
        do
            CHECK(aclrtxDeviceProgress(0, 64, &info));
        while (info.streamsReady > 0);
        next_timer = info.nextDeadlineNs;
    }

    CHECK(aclrtSynchronizeStream(work)); /* already complete: returns at once */
    CHECK(aclrtDestroyEvent(ready));
    CHECK(aclrtDestroyStream(in));
    CHECK(aclrtDestroyStream(work));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    close(ep);
    close(t.timer_fd);
    printf("event loop done\n");
    return 0;
}
