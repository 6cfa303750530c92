/*
 * impl/runtime/runtime.h - the process-wide runtime: configuration, handle tables,
 * devices and contexts, and each thread's current context.
 *
 * Nothing here runs before the first API call (no global constructors): the
 * runtime starts lazily, on aclInit or on the first call that needs a
 * device, and aclFinalize stops it. Lifecycle changes (init, finalize, set
 * and reset device, create and destroy context) are rare and serialize on
 * `lifecycle_lock`; nothing on the record / wait / query / launch paths
 * takes it. Stream lives begin and end under `streams_lock` (taken after
 * `lifecycle_lock` when both are held), so that a thread walking the stream
 * table can read a live stream's constant fields.
 *
 * A process forked from one whose runtime had started a device inherits a
 * runtime without its threads: the child marks it `orphaned`
 * (runtime_start.h), calls that need a device fail with
 * ACL_ERROR_RT_DEV_SETUP_ERROR, and aclFinalize frees what it can without
 * joining threads that do not exist (init.h).
 */
#ifndef ACLRT_IMPL_RUNTIME_RUNTIME_H
#define ACLRT_IMPL_RUNTIME_RUNTIME_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../task/park.h"
#include "../task/task.h"
#include "../../backends/backend.h"

struct aclrt_stream;
struct aclrt_event;

/* A device: an execution resource of the backend (host: a pool of executors). */
struct aclrt_device {
    uint32_t id;
    bool started;             /* backend resources are up (lifecycle_lock) */
    int32_t set_count;        /* aclrtSetDevice references (lifecycle_lock) */
    bool reset_done;          /* released by reset; further resets fail until the next set */
    struct aclrt_context *default_ctx;
    void *default_ctx_handle;
    _Atomic uint32_t streams_in_use; /* quota: config.max_streams, default streams included */
    _Atomic uint32_t events_in_use;  /* quota: config.max_events */
    _Atomic uint32_t notifies_in_use; /* quota: config.max_notifies (notifies and counting notifies) */
    _Atomic uint32_t saturation;     /* aclrtSetDeviceSatMode: 1 saturation, 0 Inf/NaN (overflow.h) */
    /*
     * Streams destroyed without waiting (aclrtDestroyStreamForce, discards)
     * whose work is not done yet: aclrtSynchronizeDevice waits for them too,
     * as a device's synchronize waits for the work of a destroyed stream. A
     * futex word; the free that takes it to zero wakes the sleepers.
     */
    _Atomic uint32_t draining;
    struct aclrt_park_list timers;   /* parked streams with deadlines (key: deadline ns) */
    /* aclrtValueWrite tasks run on words of this device's memory; value waits park here (value.h). */
    struct aclrt_seq value_writes;
    struct aclrt_park_list value_waiters;
    void *backend_state;
};

/*
 * A context: a device plus a default stream. The default context of a device
 * is shared by every thread that sets the device; explicit ones come from
 * aclrtCreateContext. `failure` is the context-wide stop-on-failure state:
 * once a stream of a stop-on-failure context fails, later tasks of every
 * stream of the context are discarded and submissions return the failure.
 */
struct aclrt_context {
    struct aclrt_slot hdr;
    struct aclrt_device *device;
    bool is_default;
    struct aclrt_stream *default_stream;
    void *default_stream_handle;
    _Atomic bool stop_on_failure;
    _Atomic int failure; /* 0, or the code of the task that stopped the context */
    /* aclrtCtxSetSysParamOpt: bit i set once sys_param[i] holds a value (sys_param.h). */
    _Atomic uint32_t sys_param_set;
    _Atomic int64_t sys_param[3];
};

struct aclrt_runtime {
    pthread_mutex_t lifecycle_lock;
    /*
     * A stream slot is published (stream_life.h: aclrt_stream_create_in) and
     * retired (aclrt_stream_destroy) under this lock. A thread holding it
     * that sees a slot alive may read the slot's constant fields (device,
     * context, flags): its life cannot end, nor the slot be re-initialised,
     * meanwhile. Short sections, never held while waiting.
     */
    pthread_mutex_t streams_lock;
    /* A forked child's inherited runtime (set in the child, cleared by its aclFinalize). */
    _Atomic bool orphaned;
    int init_count;        /* aclInit references */
    bool finalized;        /* aclFinalize ran and no aclInit since: a second finalize fails */
    bool config_loaded;    /* aclInit read its file (the first init's file wins) */
    _Atomic bool started;  /* backend opened, devices counted */
    struct aclrt_config config;
    int32_t only_cpu; /* the one CPU the runtime's threads may run on (set at start); -1: more than one */
    const struct aclrt_backend *backend;
    const aclrtxBackend *embedder; /* the registered backend the host backend serves (backend_registry.h), or NULL */
    /* The backend's own descriptors of the task kinds it runs natively (NULL: the core's). */
    const struct aclrt_task_kind *overrides[ACLRT_TASK_KIND_COUNT];
    uint32_t device_count;
    struct aclrt_device devices[ACLRT_MAX_DEVICES];
    _Atomic uint32_t op_wait_timeout_s; /* aclrtSetOpWaitTimeout; 0 = none */
    /* aclrtSetOpExecuteTimeOut*: a kernel's limit in ms (op_timeout.h); 0 = never set, the default. */
    _Atomic uint32_t op_execute_timeout_ms;
};

static struct aclrt_runtime aclrt_rt = {.lifecycle_lock = PTHREAD_MUTEX_INITIALIZER,
                                       .streams_lock = PTHREAD_MUTEX_INITIALIZER};

/* Contexts live in this table; each other kind of object has its own, defined with its struct. */
static struct aclrt_table aclrt_contexts = ACLRT_TABLE_INIT(ACLRT_KIND_CONTEXT, struct aclrt_context, "context");

ACLRT_INLINE bool aclrt_runtime_started(void)
{
    return atomic_load_explicit(&aclrt_rt.started, memory_order_acquire);
}

/*
 * Is this a forked child's inherited runtime (calls that need a device
 * fail)? Relaxed: written only while the child has one thread, and by its
 * aclFinalize under the lifecycle lock.
 */
ACLRT_INLINE bool aclrt_runtime_orphaned(void)
{
    return atomic_load_explicit(&aclrt_rt.orphaned, memory_order_relaxed);
}

/* The failure of a call that needs a device, in a forked child (ACL_ERROR_RT_DEV_SETUP_ERROR). */
ACLRT_INTERNAL ACLRT_NOINLINE aclError aclrt_fail_orphaned(void)
{
    return aclrt_fail(ACL_ERROR_RT_DEV_SETUP_ERROR,
                      "this process was forked from one whose runtime had started a device: the devices, streams "
                      "and runtime threads it inherited do not exist here (call aclFinalize, then aclInit, to start "
                      "a runtime of its own)");
}

ACLRT_INLINE struct aclrt_context *aclrt_context_lookup(const void *handle)
{
    return (struct aclrt_context *)aclrt_table_lookup(&aclrt_contexts, handle);
}

/* Does the core run this kind (no backend override)? Calls that act at once on an idle stream ask. */
ACLRT_INLINE bool aclrt_kind_is_core(enum aclrt_task_kind_id id)
{
    return aclrt_rt.overrides[id] == NULL;
}

/* The device's clock for event timestamps (the backend's, or CLOCK_MONOTONIC), ns. */
ACLRT_INLINE uint64_t aclrt_device_now(struct aclrt_device *dev)
{
    return aclrt_rt.backend->timestamp_ns != NULL ? aclrt_rt.backend->timestamp_ns(dev) : aclrt_now_ns();
}

#endif /* ACLRT_IMPL_RUNTIME_RUNTIME_H */
