/*
 * impl/runtime_start.h - starting the runtime: on aclInit's first use of a
 * device, or on the first call that needs one (lazily: nothing runs before
 * main, and an embedding program pays for nothing it does not use).
 *
 * The configuration is aclInit's file plus the environment (or the
 * environment alone, without aclInit); the backend is chosen by name
 * (backend_registry.h) and opened, which says how many devices there are;
 * the devices' core state is set up. Backends start a device only when it
 * is first used (context.h).
 */
#ifndef ACLRT_IMPL_RUNTIME_START_H
#define ACLRT_IMPL_RUNTIME_START_H

#include "backend_registry.h"
#include "base.h"
#include "config.h"
#include "error.h"
#include "park.h"
#include "runtime.h"
#include "seq.h"

static aclError aclrt_runtime_start_locked(void)
{
    if (aclrt_runtime_started())
        return ACL_SUCCESS;
    if (!aclrt_rt.config_loaded) {
        aclrt_config_defaults(&aclrt_rt.config);
        aclrt_config_load_env(&aclrt_rt.config);
    }
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
    /* Release: pairs with aclrt_runtime_started(); everything above is visible. */
    atomic_store_explicit(&aclrt_rt.started, true, memory_order_release);
    return ACL_SUCCESS;
}

static aclError aclrt_runtime_start(void)
{
    if (ACLRT_LIKELY(aclrt_runtime_started()))
        return ACL_SUCCESS;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    aclError rc = aclrt_runtime_start_locked();
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return rc;
}

#endif /* ACLRT_IMPL_RUNTIME_START_H */
