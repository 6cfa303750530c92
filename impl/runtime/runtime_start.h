/*
 * impl/runtime/runtime_start.h - starting the runtime: on aclInit's first use of a
 * device, or on the first call that needs one (lazily: nothing runs before
 * main, and an embedding program pays for nothing it does not use).
 *
 * The configuration is aclInit's file plus the environment (or the
 * environment alone, without aclInit); the backend is chosen by name
 * (backend_registry.h) and opened, which says how many devices there are;
 * the devices' core state is set up. Backends start a device only when it
 * is first used (context.h).
 *
 * fork(): the first start also registers, once per process, handlers that
 * pthread_atfork runs around every fork (the project has no global
 * constructors, so this is the earliest point). A child has only the
 * thread that forked: the runtime's threads (executors, monitors) and every
 * other thread's progress are gone, and locks they held stay held. The
 * handlers:
 *   - prepare: take the lifecycle lock, so that the child sees no lifecycle
 *     change half done; a call that holds it for long (a teardown waiting
 *     for work, perhaps for the forking thread's own) is not waited for
 *     beyond ACLRT_FORK_LIFECYCLE_WAIT_NS: the child then gets a fresh lock
 *     and its aclFinalize frees what it finds alive. Then liburcu-bp's own
 *     fork preparation (the registries' RCU).
 *   - parent: the reverse.
 *   - child: the locks of this file's layer that another thread may have
 *     held are made usable again (and the stream-ordering sanitizer's, which
 *     forgets the parent's streams), the forking thread's cached thread id and
 *     current context are forgotten, the devices' eventfds are replaced by
 *     fresh ones under the same numbers (the inherited ones are shared with
 *     the parent), and a runtime that had started a device is marked
 *     orphaned (runtime.h): every call that needs a device returns
 *     ACL_ERROR_RT_DEV_SETUP_ERROR until aclFinalize, which frees what it
 *     can without joining the threads that do not exist (init.h), after
 *     which aclInit starts a runtime of the child's own.
 */
#ifndef ACLRT_IMPL_RUNTIME_RUNTIME_START_H
#define ACLRT_IMPL_RUNTIME_RUNTIME_START_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../core/thread.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "backend_registry.h"
#include "hooks.h"
#include "progress.h"
#include "runtime.h"

#include <fcntl.h>
#include <urcu/urcu-bp.h>

/* How long fork() waits for a lifecycle call in flight (see above). */
#define ACLRT_FORK_LIFECYCLE_WAIT_NS (20 * ACLRT_NS_PER_MS)

static pthread_once_t aclrt_fork_once = PTHREAD_ONCE_INIT;
/*
 * Prepare took the lifecycle lock: the forking thread's own (several threads
 * may fork at once; each parent and child handler runs on the thread whose
 * prepare ran, and the child's only thread is that one).
 */
static _Thread_local bool aclrt_fork_took_lifecycle;

static void aclrt_fork_prepare(void)
{
    aclrt_fork_took_lifecycle = false;
    uint64_t end = aclrt_now_ns() + ACLRT_FORK_LIFECYCLE_WAIT_NS;
    for (;;) {
        if (pthread_mutex_trylock(&aclrt_rt.lifecycle_lock) == 0) {
            aclrt_fork_took_lifecycle = true;
            break;
        }
        if (aclrt_now_ns() >= end)
            break;
        sched_yield();
    }
    urcu_bp_before_fork();
}

static void aclrt_fork_parent(void)
{
    urcu_bp_after_fork_parent();
    if (aclrt_fork_took_lifecycle)
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
}

/* In the child, which has one thread: this one. */
static void aclrt_fork_child(void)
{
    urcu_bp_after_fork_child();
    if (aclrt_fork_took_lifecycle)
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    else
        pthread_mutex_init(&aclrt_rt.lifecycle_lock, NULL);
    /* Short sections another thread may have been inside: nobody is left to leave them. */
    pthread_mutex_init(&aclrt_rt.streams_lock, NULL);
    pthread_mutex_init(&aclrt_process_msg_lock, NULL);
    pthread_mutex_init(&aclrt_progress_fd_lock, NULL);
    pthread_mutex_init(&aclrt_stream_state_hooks.lock, NULL);
    pthread_mutex_init(&aclrt_device_state_hooks.lock, NULL);
    pthread_mutex_init(&aclrt_task_abort_hooks.lock, NULL);
    if (aclrt_san_table != NULL)
        aclrt_san_table->fork_child();
    aclrt_tls.tid = 0;
    aclrt_tls.ctx_handle = NULL;
    /* An eventfd inherited across fork is the parent's too: each would consume the other's signals. */
    for (int i = 0; i < ACLRT_MAX_DEVICES; i++) {
        int fd = aclrt_progress_fds[i] - 1;
        if (fd < 0)
            continue;
        int fresh = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fresh >= 0) {
            dup3(fresh, fd, O_CLOEXEC);
            close(fresh);
        }
    }
    bool devices = false;
    if (aclrt_runtime_started())
        for (uint32_t i = 0; i < aclrt_rt.device_count; i++)
            devices |= aclrt_rt.devices[i].started;
    if (!devices)
        return; /* nothing ran threads: the inherited runtime works here as it is */
    atomic_store_explicit(&aclrt_rt.orphaned, true, memory_order_relaxed);
    /* No progress call is under way here, whatever the counts say; none may start on an orphaned device. */
    for (int i = 0; i < ACLRT_MAX_DEVICES; i++) {
        atomic_store_explicit(&aclrt_progress_gates[i].open, false, memory_order_relaxed);
        atomic_store_explicit(&aclrt_progress_gates[i].users, 0, memory_order_relaxed);
    }
}

static void aclrt_fork_register(void)
{
    pthread_atfork(aclrt_fork_prepare, aclrt_fork_parent, aclrt_fork_child);
}

static aclError aclrt_runtime_start_locked(void)
{
    if (aclrt_runtime_started())
        return ACL_SUCCESS;
    pthread_once(&aclrt_fork_once, aclrt_fork_register);
    if (!aclrt_rt.config_loaded) {
        aclrt_config_defaults(&aclrt_rt.config);
        aclrt_config_load_env(&aclrt_rt.config);
    }
    aclrt_rt.only_cpu = aclrt_config_only_cpu(&aclrt_rt.config);
    const struct aclrt_backend *backend;
    const aclrtxBackend *embedder;
    aclError rc = aclrt_backend_select(aclrt_rt.config.backend, &backend, &embedder);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_rt.embedder = embedder; /* before open: the host backend serving it asks */
    uint32_t count = 0;
    rc = backend->open(&aclrt_rt.config, &count);
    if (rc == ACL_SUCCESS && count == 0) {
        backend->close();
        rc = aclrt_fail(ACL_ERROR_RT_NO_DEVICE, "the %s backend found no device", aclrt_rt.config.backend);
    }
    if (rc != ACL_SUCCESS) {
        aclrt_rt.embedder = NULL;
        return rc;
    }
    aclrt_rt.backend = backend;
    for (int k = 0; k < ACLRT_TASK_KIND_COUNT; k++)
        aclrt_rt.overrides[k] = backend->kinds != NULL ? backend->kinds[k] : NULL;
    aclrt_rt.device_count = count > ACLRT_MAX_DEVICES ? ACLRT_MAX_DEVICES : count;
    for (uint32_t i = 0; i < aclrt_rt.device_count; i++) {
        struct aclrt_device *dev = &aclrt_rt.devices[i];
        memset(dev, 0, sizeof *dev);
        dev->id = i;
        aclrt_park_list_init(&dev->timers);
        aclrt_seq_init(&dev->value_writes, 0);
        aclrt_park_list_init(&dev->value_waiters);
    }
    atomic_store_explicit(&aclrt_errmsg_process_scope, aclrt_rt.config.err_msg_mode == 1, memory_order_relaxed);
    aclrt_san_switch(aclrt_rt.config.sanitize); /* before any stream exists */
    /* Release: pairs with aclrt_runtime_started(); everything above is visible. */
    atomic_store_explicit(&aclrt_rt.started, true, memory_order_release);
    return ACL_SUCCESS;
}

ACLRT_INTERNAL aclError aclrt_runtime_start(void)
{
    if (ACLRT_LIKELY(aclrt_runtime_started()))
        return ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    aclError rc = aclrt_runtime_start_locked();
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return rc;
}

#endif /* ACLRT_IMPL_RUNTIME_RUNTIME_START_H */
