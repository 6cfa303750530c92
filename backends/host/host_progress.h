/*
 * backends/host/host_progress.h - external progress: a host device without
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
 * `armed` says that no progress call is sure to look at the ready queues
 * again before it runs user code: the next push disarms it and signals
 * (host_pool.h). A call arms the device when it goes idle, and also before
 * it runs the stream it took (a task may block for long), each time with a
 * seq_cst store followed by a last look at the queues: a stream pushed
 * before the store is seen there (and signalled), one pushed after finds the
 * device armed. So a push costs one exchange, and a syscall only when no
 * progress call will see its stream otherwise.
 *
 * The eventfd is the core's (impl/runtime/progress.h): one per device id for the
 * life of the process, so an event loop registers it once.
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_PROGRESS_H
#define ACLRT_BACKENDS_HOST_HOST_PROGRESS_H

#include "../../impl/core/base.h"
#include "../../impl/core/error.h"
#include "../../impl/task/mpmc.h"
#include "../backend.h"
#include "../../impl/stream/wait_task.h"
#include "../../impl/exec/exec.h"
#include "host_blocks.h"
#include "host_executor.h"
#include "host_pool.h"

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

/*
 * About to run a stream (perhaps user code that blocks): arm the device, so
 * that later pushes signal; what was pushed before the arming and is still
 * queued is signalled now, for another progress call to take. A call that
 * consumed the eventfd's signal may have taken the news of a new earliest
 * deadline from the other waiters: while a timer is pending, it passes the
 * signal on before it disappears into user code.
 */
static void aclrt_host_progress_arm(struct aclrt_host_device *hd, bool *consumed)
{
    /* Seq_cst, then the look: pairs with the push-then-exchange in aclrt_host_find_taker. */
    atomic_store_explicit(&hd->armed, true, memory_order_seq_cst);
    bool signal = aclrt_host_has_work(hd) && atomic_exchange_explicit(&hd->armed, false, memory_order_seq_cst);
    if (*consumed && aclrt_device_next_deadline(hd->dev) != UINT64_MAX)
        signal = true;
    *consumed = false;
    if (signal)
        aclrt_host_signal_external(hd);
}

/* The backend's progress hook: aclrtxDeviceProgress. */
ACLRT_INTERNAL aclError aclrt_host_progress(struct aclrt_device *dev, uint32_t budget, aclrtxProgressInfo *info)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    if (ACLRT_UNLIKELY(hd->det))
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "device %u runs the deterministic schedule (aclrt.schedule): the program's waits run its "
                          "streams, not progress calls",
                          dev->id);
    bool consumed = false;
    if (hd->event_fd >= 0) {
        uint64_t count;
        consumed = read(hd->event_fd, &count, sizeof count) > 0; /* consume the signal: this call looks now */
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
        aclrt_host_progress_arm(hd, &consumed);
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

#endif /* ACLRT_BACKENDS_HOST_HOST_PROGRESS_H */
