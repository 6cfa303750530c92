/*
 * tests/impl_external.c - the implementation unit of the external-progress
 * configuration: the same test files as tests/impl.c, with no runtime
 * threads. A pool of driver threads (this file's) runs every device the way
 * an embedding event loop would: wait on the devices' eventfds (and on the
 * earliest timer), then call aclrtxDeviceProgress until no stream is ready.
 *
 * The drivers start before main (a constructor of this test harness, not of
 * the library) and never stop; they hold no lock the tests could need, and
 * the runtime keeps progress calls off a device while it stops.
 */
#define _GNU_SOURCE
#define ACLRT_IMPLEMENTATION
#include "aclrt.h"

#include <poll.h>

#define DRIVER_THREADS 4  /* host functions may block; several drivers keep other streams going */
#define DRIVER_DEVICES 8  /* the suite configures at most this many devices */
#define DRIVER_BUDGET 256 /* tasks per progress call */

static int driver_timeout_ms(uint64_t deadline_ns)
{
    if (deadline_ns == UINT64_MAX)
        return -1;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    uint64_t now_ns = (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
    if (deadline_ns <= now_ns)
        return 0;
    uint64_t ms = (deadline_ns - now_ns + 999999) / 1000000;
    return ms > 1000 ? 1000 : (int)ms;
}

static void *driver_main(void *arg)
{
    (void)arg;
    struct pollfd fds[DRIVER_DEVICES];
    for (int d = 0; d < DRIVER_DEVICES; d++) {
        fds[d].fd = -1;
        fds[d].events = POLLIN;
        if (aclrtxDeviceProgressFd(d, &fds[d].fd) != ACL_SUCCESS)
            abort();
    }
    uint64_t next = UINT64_MAX;
    for (;;) {
        poll(fds, DRIVER_DEVICES, driver_timeout_ms(next));
        next = UINT64_MAX;
        for (int d = 0; d < DRIVER_DEVICES; d++) {
            aclrtxProgressInfo info;
            do {
                if (aclrtxDeviceProgress(d, DRIVER_BUDGET, &info) != ACL_SUCCESS)
                    break; /* a device id the runtime does not have */
            } while (info.streamsReady > 0);
            if (info.nextDeadlineNs < next)
                next = info.nextDeadlineNs;
        }
        aclGetRecentErrMsg(); /* the driver's own failed calls (ids past the device count) */
    }
    return NULL;
}

__attribute__((constructor)) static void driver_start(void)
{
    setenv("ACLRT_PROGRESS", "external", 1);
    for (int i = 0; i < DRIVER_THREADS; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, driver_main, NULL) != 0)
            abort();
        pthread_detach(t);
    }
}
