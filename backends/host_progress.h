/*
 * backends/host_progress.h - external progress: a host device without
 * threads of its own, driven by the embedder's threads.
 *
 * Selected by aclrt.progress "external" (ACLRT_PROGRESS=external), and for
 * every backend an embedder registers (aclrtxRegisterBackend). The device
 * then starts no executor and no monitor. The embedder calls
 * aclrtxDeviceProgress(device, budget, &info) from its own threads (any
 * number, concurrently): each call fires the timers that are due, then
 * takes ready streams and runs up to `budget` of their tasks on the calling
 * thread, and says how many streams are still ready (call again at once if
 * any) and when the next timer is due. Between calls the device's eventfd
 * (aclrtxDeviceProgressFd) becomes readable when work arrives or the next
 * deadline moves earlier, so an epoll loop can sleep on it.
 *
 * A progress call that finds no ready work arms the device (seq_cst store,
 * then a last look at the queues); the next push disarms it and signals
 * (host_pool.h). So an idle device costs a launch one exchange, and a busy
 * one none of the eventfd's syscalls.
 *
 * The eventfds live for the process: one per device id, made on the first
 * start of that device with external progress, the same number across
 * aclFinalize / aclInit, so an event loop registers it once.
 */
#ifndef ACLRT_BACKENDS_HOST_PROGRESS_H
#define ACLRT_BACKENDS_HOST_PROGRESS_H

#include "host_executor.h"
#include "host_kernel.h"
#include "host_pool.h"

static pthread_mutex_t aclrt_host_event_fd_lock = PTHREAD_MUTEX_INITIALIZER;
static int aclrt_host_event_fds[ACLRT_MAX_DEVICES]; /* fd + 1; 0: not made yet */

/* The process-wide eventfd of device `id`, made on first use; -1 if the system has none left. */
static int aclrt_host_event_fd(uint32_t id)
{
    pthread_mutex_lock(&aclrt_host_event_fd_lock);
    if (aclrt_host_event_fds[id] == 0) {
        int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd >= 0)
            aclrt_host_event_fds[id] = fd + 1;
    }
    int fd = aclrt_host_event_fds[id] - 1;
    pthread_mutex_unlock(&aclrt_host_event_fd_lock);
    return fd;
}

/* How many streams wait in the ready queues. */
static uint32_t aclrt_host_ready_count(struct aclrt_host_device *hd)
{
    uint64_t n = 0;
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++)
        n += aclrt_mpmc_length(&hd->ready[p]);
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/*
 * Run a stream taken from the ready queues until it is let go, within what
 * is left of the budget (a stream that must act on a flag, or run late
 * tasks before it is freed, may take a little more). Returns the tasks run.
 */
static uint32_t aclrt_host_progress_stream(struct aclrt_stream *s, uint32_t left)
{
    uint32_t total = 0;
    aclrt_stream_take(s);
    for (;;) {
        uint32_t ran = 0;
        enum aclrt_hold hold = aclrt_stream_run(s, left > total ? left - total : ACLRT_HOST_RUN_BUDGET, &ran);
        total += ran;
        if (hold == ACLRT_HOLD_NONE)
            return total;
        if (hold == ACLRT_HOLD_BUDGET ? aclrt_stream_yield(s) : aclrt_stream_release(s))
            return total;
    }
}

/* The backend's progress hook: aclrtxDeviceProgress. */
static aclError aclrt_host_progress(struct aclrt_device *dev, uint32_t budget, aclrtxProgressInfo *info)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    if (hd->event_fd >= 0) {
        uint64_t count;
        ssize_t n = read(hd->event_fd, &count, sizeof count); /* consume the signal: this call looks now */
        (void)n;
    }
    aclrt_device_fire_timers(dev);
    uint32_t ran = 0;
    while (ran < budget) {
        struct aclrt_stream *s = aclrt_host_next(hd);
        if (s == NULL) {
            if (aclrt_host_kernel_help(hd))
                continue;
            break;
        }
        atomic_fetch_add_explicit(&hd->dequeues, 1, memory_order_relaxed);
        ran += aclrt_host_progress_stream(s, budget - ran);
    }
    uint32_t ready = aclrt_host_ready_count(hd);
    if (ready == 0) {
        /* Seq_cst, then the look: pairs with the push-then-exchange in aclrt_host_find_taker. */
        atomic_store_explicit(&hd->armed, true, memory_order_seq_cst);
        ready = aclrt_host_ready_count(hd);
    }
    if (info != NULL) {
        info->tasksRun = ran;
        info->streamsReady = ready;
        info->nextDeadlineNs = aclrt_device_next_deadline(dev);
    }
    return ACL_SUCCESS;
}

/* The backend's progress_fd hook: aclrtxDeviceProgressFd. */
static aclError aclrt_host_progress_fd(struct aclrt_device *dev, int *fd)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    if (!hd->external)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "device %u runs its streams on executor threads; an eventfd exists only with external "
                          "progress (aclrt.progress \"external\")",
                          dev->id);
    if (hd->event_fd < 0)
        return aclrt_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "device %u has no eventfd (the system refused one)",
                          dev->id);
    *fd = hd->event_fd;
    return ACL_SUCCESS;
}

#endif /* ACLRT_BACKENDS_HOST_PROGRESS_H */
