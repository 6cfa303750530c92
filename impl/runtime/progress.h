/*
 * impl/runtime/progress.h - aclrtxDeviceProgress and aclrtxDeviceProgressFd: the
 * embedder's threads run a device's streams (external progress). The work
 * itself is the backend's (its progress hooks, backends/backend.h).
 *
 * An event loop may call these at any time, also before the runtime starts
 * and while aclFinalize tears it down: a device that is not running has no
 * work (a progress call returns at once, reporting none). A gate per device
 * makes that safe: a progress call counts itself in `users` (seq_cst) and
 * then checks `open`; the device's stop closes the gate (seq_cst) and then
 * waits for `users` to drain before the backend frees the device, so no
 * progress call runs on a device being stopped. The gates sit outside
 * struct aclrt_device, which the runtime's start rewrites.
 */
#ifndef ACLRT_IMPL_RUNTIME_PROGRESS_H
#define ACLRT_IMPL_RUNTIME_PROGRESS_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/thread.h"
#include "../../backends/backend.h"
#include "runtime.h"

#include <sys/eventfd.h>

struct aclrt_progress_gate {
    _Atomic uint32_t users;
    _Atomic bool open;
    _Atomic uint64_t last_call_ns; /* when a progress call last left the device (or it started); for messages */
};

static struct aclrt_progress_gate aclrt_progress_gates[ACLRT_MAX_DEVICES];

/* The device started: progress calls may run it (lifecycle lock held). */
ACLRT_INTERNAL void aclrt_progress_open(struct aclrt_device *dev)
{
    /* Relaxed: read only to word a timeout's message (aclrt_progress_idle_ns). */
    atomic_store_explicit(&aclrt_progress_gates[dev->id].last_call_ns, aclrt_now_ns(), memory_order_relaxed);
    /* Release: a progress call that sees the gate open sees the started device. */
    atomic_store_explicit(&aclrt_progress_gates[dev->id].open, true, memory_order_release);
}

/* The device stops: close the gate and wait for the progress calls inside it (lifecycle lock held). */
ACLRT_INTERNAL void aclrt_progress_close(struct aclrt_device *dev)
{
    struct aclrt_progress_gate *g = &aclrt_progress_gates[dev->id];
    /* Seq_cst store, then the look at `users`: pairs with the call's increment, then its look at `open`. */
    atomic_store_explicit(&g->open, false, memory_order_seq_cst);
    while (atomic_load_explicit(&g->users, memory_order_acquire) != 0)
        sched_yield(); /* a call finishes the task it runs; the streams are gone, so it returns soon */
}

/*
 * With external progress (ACLRT_PROGRESS=external): for how long no progress
 * call has run device `id`, in ns since the last one returned (or since the
 * device started); 0 while one runs, and when the runtime's own threads run
 * the devices. A hint for the message of a wait that timed out: relaxed
 * loads, looked at after the wait.
 */
ACLRT_INTERNAL uint64_t aclrt_progress_idle_ns(uint32_t id)
{
    if (!aclrt_rt.config.external_progress || id >= ACLRT_MAX_DEVICES)
        return 0;
    struct aclrt_progress_gate *g = &aclrt_progress_gates[id];
    if (atomic_load_explicit(&g->users, memory_order_relaxed) != 0 ||
        !atomic_load_explicit(&g->open, memory_order_relaxed))
        return 0;
    uint64_t last = atomic_load_explicit(&g->last_call_ns, memory_order_relaxed);
    uint64_t now = aclrt_now_ns();
    return now > last ? now - last : 0;
}

/* A device id an event loop may watch: any the runtime could have (it may not have started yet). */
static aclError aclrt_progress_check_id(int32_t deviceId)
{
    if (deviceId < 0 || deviceId >= ACLRT_MAX_DEVICES)
        return aclrt_fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %d)", (int)deviceId,
                          ACLRT_MAX_DEVICES);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtxDeviceProgress(int32_t deviceId, uint32_t budget, aclrtxProgressInfo *info)
{
    ACLRT_ENTER();
    aclError rc = aclrt_progress_check_id(deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    if (aclrt_running_stream() != NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot drive progress (it runs inside a progress call)");
    if (info != NULL) {
        info->tasksRun = 0;
        info->streamsReady = 0;
        info->nextDeadlineNs = UINT64_MAX;
    }
    struct aclrt_progress_gate *g = &aclrt_progress_gates[deviceId];
    atomic_fetch_add_explicit(&g->users, 1, memory_order_seq_cst);
    /* Seq_cst: see the pairing in the comment at the top. */
    if (atomic_load_explicit(&g->open, memory_order_seq_cst)) {
        const struct aclrt_backend *b = aclrt_rt.backend;
        if (b->progress == NULL)
            rc = aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "the %s backend does not take progress calls", b->name);
        else
            rc = b->progress(&aclrt_rt.devices[deviceId], budget, info);
        atomic_store_explicit(&g->last_call_ns, aclrt_now_ns(), memory_order_relaxed); /* as in aclrt_progress_open */
    }
    /* Release: the device's stop, which waits for this, sees everything the call did. */
    atomic_fetch_sub_explicit(&g->users, 1, memory_order_release);
    return rc;
}

/*
 * The eventfd of a device: one per device id for the life of the process,
 * the same before the runtime starts and after aclFinalize, so an event
 * loop registers it once. Made here on first use.
 */
static pthread_mutex_t aclrt_progress_fd_lock = PTHREAD_MUTEX_INITIALIZER;
static int aclrt_progress_fds[ACLRT_MAX_DEVICES]; /* fd + 1; 0: not made yet */

ACLRT_INTERNAL int aclrt_progress_event_fd(uint32_t id)
{
    pthread_mutex_lock(&aclrt_progress_fd_lock);
    if (aclrt_progress_fds[id] == 0) {
        int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fd >= 0)
            aclrt_progress_fds[id] = fd + 1;
    }
    int fd = aclrt_progress_fds[id] - 1;
    pthread_mutex_unlock(&aclrt_progress_fd_lock);
    return fd;
}

ACLRT_API aclError aclrtxDeviceProgressFd(int32_t deviceId, int *fd)
{
    ACLRT_ENTER();
    if (fd == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "fd (output) is NULL");
    aclError rc = aclrt_progress_check_id(deviceId);
    if (rc != ACL_SUCCESS)
        return rc;
    int got = aclrt_progress_event_fd((uint32_t)deviceId);
    if (got < 0)
        return aclrt_fail(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "no eventfd for device %d: %s", (int)deviceId,
                          strerror(errno));
    *fd = got;
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_RUNTIME_PROGRESS_H */
