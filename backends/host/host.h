/*
 * backends/host/host.h - the host backend: each device runs its streams on the
 * CPU, with executor threads of its own (host_executor.h, with the monitor
 * of host_monitor.h) or, with external progress, on the threads of an
 * embedding program (host_progress.h). With the deterministic schedule the
 * program's own threads run them while they wait, in an order drawn from a
 * seed (host_det.h). Its ready queues and wake-ups are in host_pool.h, its
 * shared host-kernel blocks in host_blocks.h, its kernel binaries (shared
 * objects) in host_module.h.
 *
 * A backend an embedder registers (aclrtxRegisterBackend) runs on this
 * machinery with external progress: the embedder's struct supplies the
 * device count, device start and stop, memory, timestamps and a wake-up
 * hook, and aclrt_rt.embedder points at it while it is selected.
 *
 * It uses the core only through backends/backend.h.
 */
#ifndef ACLRT_BACKENDS_HOST_HOST_H
#define ACLRT_BACKENDS_HOST_HOST_H

#include "../../impl/core/base.h"
#include "../../impl/core/clock.h"
#include "../../impl/core/config.h"
#include "../../impl/core/error.h"
#include "../../impl/core/futex.h"
#include "../../impl/task/mpmc.h"
#include "../backend.h"
#include "../../impl/runtime/progress.h"
#include "../../impl/runtime/runtime.h"
#include "../../impl/ipc/ipc_mem.h"
#include "host_blocks.h"
#include "host_det.h"
#include "host_executor.h"
#include "host_module.h"
#include "host_monitor.h"
#include "host_pool.h"
#include "host_progress.h"

static aclError aclrt_host_open(const struct aclrt_config *config, uint32_t *device_count)
{
    const aclrtxBackend *embedder = aclrt_rt.embedder;
    if (embedder == NULL) {
        *device_count = config->devices;
        if (config->deterministic)
            aclrt_det_open(config->schedule_seed);
        return ACL_SUCCESS;
    }
    if (config->deterministic)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "aclrt.schedule \"deterministic\" is a mode of the host backend's own devices; backend \"%s\" "
                          "is an embedder's, whose threads run its streams",
                          embedder->name);
    uint32_t count = 0;
    aclError rc = embedder->open(embedder->user, &count);
    if (rc != ACL_SUCCESS)
        return aclrt_fail(rc, "backend \"%s\" refused to open (its open returned %d)", embedder->name, (int)rc);
    *device_count = count;
    return ACL_SUCCESS;
}

static void aclrt_host_close(void)
{
    if (aclrt_det_on())
        aclrt_det_close();
    const aclrtxBackend *embedder = aclrt_rt.embedder;
    if (embedder != NULL && embedder->close != NULL)
        embedder->close(embedder->user);
}

static void aclrt_host_device_free(struct aclrt_host_device *hd)
{
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++)
        aclrt_mpmc_destroy(&hd->ready[p]);
    free(hd->executors);
    free(hd);
}

/* Stop the threads that started (all of them, or those before a failure) and wait for them. */
static void aclrt_host_stop_threads(struct aclrt_host_device *hd, uint32_t started, bool monitor)
{
    atomic_store_explicit(&hd->stopping, true, memory_order_seq_cst);
    atomic_fetch_add_explicit(&hd->wake_seq, 1, memory_order_release);
    aclrt_futex_wake(&hd->wake_seq, INT_MAX);
    if (monitor) {
        aclrt_host_wake_monitor(hd);
        pthread_join(hd->monitor, NULL);
    }
    for (uint32_t i = 0; i < started; i++)
        pthread_join(hd->executors[i].thread, NULL);
    /* Extra executors are detached: wait for the last one to leave (acquire: its release). */
    while (atomic_load_explicit(&hd->extra_running, memory_order_acquire) != 0) {
        atomic_fetch_add_explicit(&hd->wake_seq, 1, memory_order_release);
        aclrt_futex_wake(&hd->wake_seq, INT_MAX);
        usleep(100);
    }
}

static aclError aclrt_host_start_threads(struct aclrt_host_device *hd)
{
    hd->executor_count = aclrt_rt.config.executors;
    hd->spin_max = aclrt_config_cpu_count(&aclrt_rt.config);
    hd->executors = (struct aclrt_host_executor *)calloc(hd->executor_count, sizeof *hd->executors);
    if (hd->executors == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory starting device %u", hd->dev->id);
    uint32_t started = 0;
    for (; started < hd->executor_count; started++) {
        hd->executors[started].hd = hd;
        hd->executors[started].index = started;
        if (!aclrt_host_start_executor(&hd->executors[started]))
            break;
    }
    if (started == hd->executor_count &&
        aclrt_config_thread_create(&aclrt_rt.config, &hd->monitor, NULL, aclrt_host_monitor_main, hd) == 0)
        return ACL_SUCCESS;
    aclrt_host_stop_threads(hd, started, false);
    return aclrt_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "cannot start executor threads for device %u", hd->dev->id);
}

ACLRT_INTERNAL aclError aclrt_host_device_start(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = (struct aclrt_host_device *)calloc(1, sizeof *hd);
    if (hd == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory starting device %u", dev->id);
    hd->dev = dev;
    hd->event_fd = -1;
    atomic_init(&hd->waker_cpu, -1);
    hd->start_ns = aclrt_now_ns();
    hd->start_ticks = aclrt_ticks();
    uint64_t capacity = 2;
    while (capacity < (uint64_t)aclrt_rt.config.max_streams + 1)
        capacity <<= 1;
    for (int p = 0; p < ACLRT_HOST_PRIORITIES; p++) {
        if (!aclrt_mpmc_init(&hd->ready[p], capacity)) {
            aclrt_host_device_free(hd);
            return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory starting device %u", dev->id);
        }
    }
    const aclrtxBackend *embedder = aclrt_rt.embedder;
    hd->det = aclrt_det_on(); /* no thread of its own either, and it wins over external progress */
    hd->external = embedder != NULL || aclrt_rt.config.external_progress || hd->det;
    aclError rc = ACL_SUCCESS;
    if (embedder != NULL && embedder->deviceStart != NULL) {
        rc = embedder->deviceStart(embedder->user, (int32_t)dev->id);
        if (rc != ACL_SUCCESS)
            rc = aclrt_fail(rc, "backend \"%s\" could not start device %u", embedder->name, dev->id);
    }
    if (rc == ACL_SUCCESS && hd->det) {
        aclrt_det_device_start(hd);
    } else if (rc == ACL_SUCCESS && hd->external) {
        hd->event_fd = aclrt_progress_event_fd(dev->id);
        if (embedder != NULL) {
            hd->wake_hook = embedder->workArrived;
            hd->wake_user = embedder->user;
        }
        atomic_store_explicit(&hd->armed, true, memory_order_relaxed); /* the first push signals */
    }
    dev->backend_state = hd;
    if (rc == ACL_SUCCESS && !hd->external)
        rc = aclrt_host_start_threads(hd);
    if (rc != ACL_SUCCESS) {
        dev->backend_state = NULL;
        aclrt_host_device_free(hd);
    }
    return rc;
}

ACLRT_INTERNAL void aclrt_host_device_stop(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    if (hd == NULL)
        return;
    if (hd->det)
        aclrt_det_device_stop(hd);
    else if (!hd->external)
        aclrt_host_stop_threads(hd, hd->executor_count, true);
    const aclrtxBackend *embedder = aclrt_rt.embedder;
    if (embedder != NULL && embedder->deviceStop != NULL)
        embedder->deviceStop(embedder->user, (int32_t)dev->id);
    dev->backend_state = NULL;
    aclrt_host_device_free(hd);
}

/*
 * A forked child's inherited device: its executors and monitor do not exist
 * here (the child has only the thread that forked), so nothing is joined or
 * woken; the queues and the executor table go. An extra executor's own
 * record, which that thread would have freed, stays behind, as does an
 * embedder's device state (its backend decides what a child may do).
 */
ACLRT_INTERNAL void aclrt_host_device_abandon(struct aclrt_device *dev)
{
    struct aclrt_host_device *hd = aclrt_host_of(dev);
    if (hd == NULL)
        return;
    if (hd->det)
        aclrt_det_device_abandon(hd);
    dev->backend_state = NULL;
    aclrt_host_device_free(hd);
}

static aclError aclrt_host_mem_alloc(struct aclrt_device *dev, size_t size, void **out)
{
    const aclrtxBackend *embedder = aclrt_rt.embedder;
    if (embedder != NULL && embedder->memAlloc != NULL)
        return embedder->memAlloc(embedder->user, (int32_t)dev->id, size, out);
    /* Device allocations round up to 32 bytes plus 32 more, 64-byte aligned, like the runtime's. */
    if (size > SIZE_MAX - 128)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    size_t bytes = ((size + 31) & ~(size_t)31) + 32;
    bytes = (bytes + 63) & ~(size_t)63;
    /* Allocations are in memory files, which other processes can map (impl/ipc/ipc_mem.h). */
    if (aclrt_ipc_shm_alloc(bytes, out))
        return ACL_SUCCESS;
    *out = aligned_alloc(64, bytes);
    return *out != NULL ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

static void aclrt_host_mem_free(struct aclrt_device *dev, void *ptr)
{
    const aclrtxBackend *embedder = aclrt_rt.embedder;
    if (embedder != NULL && embedder->memFree != NULL) {
        embedder->memFree(embedder->user, (int32_t)dev->id, ptr);
        return;
    }
    if (!aclrt_ipc_shm_free(ptr))
        free(ptr);
}

static uint64_t aclrt_host_timestamp_ns(struct aclrt_device *dev)
{
    const aclrtxBackend *embedder = aclrt_rt.embedder;
    if (embedder != NULL && embedder->timestampNs != NULL)
        return embedder->timestampNs(embedder->user, (int32_t)dev->id);
    return aclrt_now_ns();
}

static const struct aclrt_backend aclrt_backend_host = {
    .name = "host",
    .open = aclrt_host_open,
    .close = aclrt_host_close,
    .device_start = aclrt_host_device_start,
    .device_stop = aclrt_host_device_stop,
    .device_abandon = aclrt_host_device_abandon,
    .schedule = aclrt_host_schedule,
    .has_other_work = aclrt_host_has_other_work,
    .crowded = aclrt_host_crowded,
    .timers_changed = aclrt_host_timers_changed,
    .progress = aclrt_host_progress,
    .run_kernel = aclrt_host_run_kernel,
    .mem_alloc = aclrt_host_mem_alloc,
    .mem_free = aclrt_host_mem_free,
    .timestamp_ns = aclrt_host_timestamp_ns,
    .module_load = aclrt_host_module_load,
    .module_unload = aclrt_host_module_unload,
    .module_function = aclrt_host_module_function,
    .module_global = aclrt_host_module_global,
    .module_address = aclrt_host_module_address,
    .module_abandon = aclrt_host_module_abandon,
};

#endif /* ACLRT_BACKENDS_HOST_HOST_H */
