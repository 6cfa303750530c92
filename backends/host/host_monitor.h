/*
 * backends/host/host_monitor.h - executors stuck in user code.
 *
 * User code (host functions, host kernels) may block for seconds. A monitor
 * thread per device adds an executor when ready work has waited through two
 * periods of ACLRT_HOST_STUCK_NS with no executor free and no stream
 * dequeued; extra executors retire once idle (host_executor.h). So the
 * number of executors free to run ready streams recovers its configured
 * size, like an OS scheduler handing the CPU to another thread.
 *
 * The monitor sleeps unless work is queued while no executor sleeps: the
 * push that finds nobody asleep wakes it (host_pool.h), so an idle process
 * has no polling thread. It also sleeps only until the earliest parked
 * deadline and fires it, so wait timeouts expire even while every executor
 * is in user code.
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_MONITOR_H
#define ACLRT_BACKENDS_HOST_HOST_MONITOR_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/futex.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/stream/wait_task.h"
#include "host_executor.h"
#include "host_pool.h"

#define ACLRT_HOST_STUCK_NS (2 * ACLRT_NS_PER_MS) /* user code this long counts as stuck */
#define ACLRT_HOST_MAX_EXTRA 256

/* Work is queued and no executor is asleep to take it. */
ACLRT_INLINE bool aclrt_host_backlogged(struct aclrt_host_device *hd)
{
    return atomic_load_explicit(&hd->sleepers, memory_order_seq_cst) == 0 && aclrt_host_has_work(hd);
}

static void aclrt_host_add_extra(struct aclrt_host_device *hd, uint32_t index)
{
    struct aclrt_host_executor *ex = (struct aclrt_host_executor *)calloc(1, sizeof *ex);
    if (ex == NULL)
        return;
    ex->hd = hd;
    ex->index = index;
    ex->extra = true;
    atomic_fetch_add_explicit(&hd->extra_running, 1, memory_order_relaxed);
    if (!aclrt_host_start_executor(ex)) {
        atomic_fetch_sub_explicit(&hd->extra_running, 1, memory_order_relaxed);
        free(ex);
    }
}

ACLRT_INTERNAL void *aclrt_host_monitor_main(void *arg)
{
    struct aclrt_host_device *hd = (struct aclrt_host_device *)arg;
    char name[16];
    snprintf(name, sizeof name, "aclrt-d%u-mon", hd->dev->id);
    pthread_setname_np(pthread_self(), name);
    uint32_t index = hd->executor_count;
    unsigned stuck_periods = 0;
    while (!atomic_load_explicit(&hd->stopping, memory_order_acquire)) {
        uint32_t word = atomic_load_explicit(&hd->monitor_word, memory_order_acquire);
        aclrt_device_fire_timers(hd->dev);
        if (!aclrt_host_backlogged(hd)) {
            /*
             * Sleep until a push finds nobody asleep (seq_cst flag, then
             * re-check: pairs with the push), or until the earliest parked
             * deadline, which it fires itself if no executor is free to.
             */
            atomic_store_explicit(&hd->monitor_sleeping, true, memory_order_seq_cst);
            if (!aclrt_host_backlogged(hd) && !atomic_load_explicit(&hd->stopping, memory_order_seq_cst)) {
                uint64_t deadline = aclrt_device_next_deadline(hd->dev);
                aclrt_futex_wait(&hd->monitor_word, word, deadline == UINT64_MAX ? ACLRT_NO_DEADLINE : deadline);
            }
            atomic_store_explicit(&hd->monitor_sleeping, false, memory_order_relaxed);
            stuck_periods = 0;
            continue;
        }
        uint64_t before = atomic_load_explicit(&hd->dequeues, memory_order_relaxed);
        aclrt_futex_wait(&hd->monitor_word, word, aclrt_deadline_after(ACLRT_HOST_STUCK_NS));
        bool progressed = atomic_load_explicit(&hd->dequeues, memory_order_relaxed) != before;
        if (progressed || !aclrt_host_backlogged(hd)) {
            stuck_periods = 0;
            continue;
        }
        if (++stuck_periods >= 2 && atomic_load_explicit(&hd->extra_running, memory_order_relaxed) < ACLRT_HOST_MAX_EXTRA) {
            aclrt_host_add_extra(hd, index++);
            stuck_periods = 0;
        }
    }
    return NULL;
}

#endif /* ACLRT_BACKENDS_HOST_HOST_MONITOR_H */
