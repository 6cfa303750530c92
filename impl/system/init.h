/*
 * impl/system/init.h - aclInit / aclFinalize, the runtime's start and stop, and the
 * error-reporting entry points.
 *
 *   - The runtime starts lazily (first aclInit or first call that needs a
 *     device), so nothing runs before main and embedding programs pay for
 *     nothing they do not use. aclInit before any other call makes its
 *     configuration file apply; later, only err_msg_mode and the default
 *     device can still change, and a file that asks for other sizes or
 *     another backend makes aclInit return ACL_ERROR_REPEAT_INITIALIZE with
 *     a message naming them (the runtime was initialised already).
 *   - aclInit counts references: a repeat returns ACL_ERROR_REPEAT_INITIALIZE
 *     with a message (callers may ignore it) and must name the same
 *     configuration (different content: ACL_ERROR_INVALID_PARAM).
 *   - aclFinalize tears everything down in one call (events, then contexts
 *     and their streams: the work that can finish is waited for, what is
 *     parked for good is discarded, context.h; then devices); a second finalize
 *     is ACL_ERROR_REPEAT_FINALIZE; init -> finalize -> init cycles work.
 *     aclFinalizeReference drops one reference and tears down at zero.
 *   - In a forked child whose inherited runtime had started a device
 *     (runtime_start.h), aclFinalize abandons instead of stopping: nothing
 *     is waited for or joined (no thread of the parent exists here); every
 *     object is freed as it stands, the devices through the backend's
 *     device_abandon hook, and the runtime can start again.
 */
#ifndef ACLRT_IMPL_SYSTEM_INIT_H
#define ACLRT_IMPL_SYSTEM_INIT_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/sanitize_hook.h"
#include "../core/handle.h"
#include "../core/registry.h"
#include "../core/thread.h"
#include "../task/park.h"
#include "../task/ring.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/backend_registry.h"
#include "../runtime/hooks.h"
#include "../runtime/progress.h"
#include "../runtime/runtime.h"
#include "../stream/callback_thread.h"
#include "../stream/stream.h"
#include "../stream/stream_wake.h"
#include "../context/context.h"
#include "../shm/allow_list.h"
#include "../shm/ipc_watch.h"
#include "../shm/shared_record.h"
#include "../shm/side_table.h"
#include "../memory/allocator.h"
#include "../memory/host_register.h"
#include "../memory/mem_pool.h"
#include "../memory/memory.h"
#include "../memory/physmem.h"
#include "../sync/cnt_notify.h"
#include "../sync/event.h"
#include "../sync/hcom.h"
#include "../sync/notify.h"
#include "../sync/value.h"
#include "../exec/callback.h"
#include "../exec/exception.h"
#include "../exec/exec.h"
#include "../kernel/binary.h"
#include "../kernel/dump.h"
#include "../ipc/ipc_mem.h"
#include "init_callbacks.h"

/* FNV-1a of the configuration text, to tell a repeated aclInit with other content. */
static uint64_t aclrt_init_config_digest;

/*
 * A forked child (runtime_start.h): locks that a thread of the parent held
 * at the fork stay held, and the locks of the later layers were out of the
 * fork handlers' reach. The child's aclFinalize makes them usable again
 * before it uses them: it must run while no other thread of the child uses
 * the runtime (it is the child's first call that does anything, and nothing
 * that needs a device works before it).
 */
static void aclrt_orphan_reset_locks(void)
{
    pthread_mutex_init(&aclrt_report_registry.lock, NULL);
    pthread_mutex_init(&aclrt_allocator_descs.lock, NULL);
    pthread_mutex_init(&aclrt_allocator_regs.lock, NULL);
    pthread_mutex_init(&aclrt_hcom_groups.lock, NULL);
    pthread_mutex_init(&aclrt_exception_hooks.lock, NULL);
    pthread_mutex_init(&aclrt_stream_state_hooks.lock, NULL);
    pthread_mutex_init(&aclrt_device_state_hooks.lock, NULL);
    pthread_mutex_init(&aclrt_task_abort_hooks.lock, NULL);
    pthread_mutex_init(&aclrt_physmem.lock, NULL);
    pthread_rwlock_init(&aclrt_mem.lock, NULL);
    /*
     * A change of the registry cut short by the fork left its count odd: the
     * next even count (the lookups would wait), never the one before, which
     * this thread's last lookup may hold for the registry as it was (memory.h).
     */
    atomic_store_explicit(&aclrt_mem.seq,
                          (atomic_load_explicit(&aclrt_mem.seq, memory_order_relaxed) + 1) & ~(uint64_t)1,
                          memory_order_relaxed);
    pthread_mutex_init(&aclrt_mem_deferred.lock, NULL);
    pthread_mutex_init(&aclrt_kernels_lock, NULL);
    if (aclrt_rt.backend->module_abandon != NULL)
        aclrt_rt.backend->module_abandon(); /* its module loader's locks */
    pthread_mutex_init(&aclrt_ipc_mem.lock, NULL);
    pthread_mutex_init(&aclrt_ipc_allow_lock, NULL);
    pthread_mutex_init(&aclrt_ipc_watch.lock, NULL);
}

/*
 * A forked child's stream: whichever thread held it, or would have run it,
 * is gone. Its tasks are dropped (their bookkeeping undone) and its slot
 * freed here; nothing is woken or scheduled.
 */
static void aclrt_orphan_stream_free(struct aclrt_stream *s)
{
    aclrt_report_stream_gone(s);
    aclrt_table_retire(&s->hdr);
    if (s->has_current) {
        aclrt_task_drop(&s->current);
        s->has_current = false;
    }
    struct aclrt_task t;
    while (aclrt_ring_pop(&s->ring, &t))
        aclrt_task_drop(&t);
    aclrt_park_notes_free(aclrt_park_list_take(&s->waiters));
    if (aclrt_rt.backend->stream_destroy != NULL)
        aclrt_rt.backend->stream_destroy(s);
    aclrt_ring_forget(&s->ring);
    aclrt_table_free(&aclrt_streams, &s->hdr);
}

/* A forked child: every stream and context is freed as it stands (the lifecycle lock is held). */
static void aclrt_orphan_free_contexts_locked(void)
{
    ACLRT_TABLE_FOREACH(&aclrt_streams, struct aclrt_stream, s)
    {
        /* A thread of the parent may have been folding a device word into it at the fork: it never ends here. */
        atomic_store_explicit(&s->folding, false, memory_order_relaxed);
        if (atomic_load_explicit(&s->hdr.generation, memory_order_relaxed) & 1u)
            aclrt_orphan_stream_free(s);
    }
    ACLRT_TABLE_FOREACH(&aclrt_contexts, struct aclrt_context, c)
    {
        if (atomic_load_explicit(&c->hdr.generation, memory_order_relaxed) & 1u) {
            aclrt_table_retire(&c->hdr);
            aclrt_table_free(&aclrt_contexts, &c->hdr);
        }
    }
    for (uint32_t i = 0; i < aclrt_rt.device_count; i++) {
        aclrt_rt.devices[i].default_ctx = NULL;
        aclrt_rt.devices[i].default_ctx_handle = NULL;
    }
}

static void aclrt_runtime_stop_locked(void)
{
    /* What aclInit configured ends here, whether or not the runtime started. */
    aclrt_rt.config_loaded = false;
    atomic_store_explicit(&aclrt_errmsg_process_scope, false, memory_order_relaxed);
    if (!aclrt_runtime_started()) {
        aclrt_binary_release_all();
        return;
    }
    bool orphaned = aclrt_runtime_orphaned();
    if (orphaned)
        aclrt_orphan_reset_locks();
    /* Events first: waits for a record that will never come are released. */
    ACLRT_TABLE_FOREACH(&aclrt_events, struct aclrt_event, e)
    {
        if (!(atomic_load_explicit(&e->hdr.generation, memory_order_acquire) & 1u))
            continue;
        if (orphaned) /* a writer of the parent may have been inside at the fork: it never leaves */
            atomic_fetch_and_explicit(&e->seq, ~1u, memory_order_relaxed);
        uint32_t odd = aclrt_event_write_begin(e);
        aclrt_table_retire(&e->hdr);
        aclrt_event_write_end(e, odd);
        if (orphaned)
            aclrt_park_notes_free(aclrt_park_stack_take(&e->waiters));
        else
            aclrt_park_stack_wake_all(&e->waiters);
        if (ACLRT_EVENT_INFO_FLAGS(atomic_load_explicit(&e->info, memory_order_relaxed)) & ACL_EVENT_IPC)
            aclrt_ipc_side_drop(&aclrt_ipc_events, aclrt_slot_index(&e->hdr)); /* nobody else uses the runtime now */
        aclrt_table_free(&aclrt_events, &e->hdr);
    }
    /* Likewise notifies, counting notifies, value waits, HCOM waits and callbacks nobody will process. */
    aclrt_report_close();
    aclrt_notify_release_all();
    aclrt_cnt_notify_release_all();
    aclrt_value_release_waits(true);
    aclrt_hcom_release_waits();
    /* Contexts, explicit then default: each tears its streams down (context.h: Teardown). */
    if (orphaned)
        aclrt_orphan_free_contexts_locked();
    ACLRT_TABLE_FOREACH(&aclrt_contexts, struct aclrt_context, c)
    {
        if ((atomic_load_explicit(&c->hdr.generation, memory_order_acquire) & 1u) && !c->is_default)
            aclrt_context_release_locked(c);
    }
    for (uint32_t i = 0; i < aclrt_rt.device_count; i++) {
        struct aclrt_device *dev = &aclrt_rt.devices[i];
        if (dev->default_ctx != NULL)
            aclrt_context_release_locked(dev->default_ctx);
    }
    /*
     * The streams are gone: the IPC watcher stops before the devices do, as
     * a wake-up of it hands a stream to its device's queues, which the
     * device stop frees.
     */
    aclrt_ipc_watch_stop(orphaned);
    aclrt_park_notes_free(aclrt_park_list_take(&aclrt_ipc_mark_waiters)); /* IPC waits whose streams are gone */
    for (uint32_t i = 0; i < aclrt_rt.device_count; i++) {
        struct aclrt_device *dev = &aclrt_rt.devices[i];
        if (dev->started && !orphaned) {
            aclrt_progress_close(dev);
            aclrt_rt.backend->device_stop(dev);
        } else if (dev->started && aclrt_rt.backend->device_abandon != NULL) {
            aclrt_rt.backend->device_abandon(dev); /* the fork closed its progress gate */
        }
        aclrt_park_notes_free(aclrt_park_list_take(&dev->timers));
        aclrt_park_notes_free(aclrt_park_list_take(&dev->value_waiters));
        dev->started = false;
        dev->set_count = 0;
    }
    aclrt_value_release_waits(false);
    aclrt_hcom_clear();
    aclrt_allocator_clear();
    aclrt_host_register_clear();
    aclrt_mem_pool_release_all();
    aclrt_mem_release_all();
    aclrt_ipc_mem_release_all(); /* imports and exports of memory (the allocations went just before) */
    aclrt_binary_release_all(); /* after the streams: no launch holds a binary any more */
    aclrt_report_finalize();
    aclrt_hook_clear(&aclrt_exception_hooks);
    aclrt_hook_clear(&aclrt_stream_state_hooks);
    aclrt_hook_clear(&aclrt_device_state_hooks);
    aclrt_hook_clear(&aclrt_task_abort_hooks);
    atomic_store_explicit(&aclrt_exception_slot, NULL, memory_order_relaxed);
    aclrt_rt.backend->close();
    aclrt_rt.embedder = NULL;
    atomic_store_explicit(&aclrt_rt.op_wait_timeout_s, 0, memory_order_relaxed);
    atomic_store_explicit(&aclrt_rt.op_execute_timeout_ms, 0, memory_order_relaxed);
    atomic_store_explicit(&aclrt_rt.orphaned, false, memory_order_relaxed);
    atomic_store_explicit(&aclrt_rt.started, false, memory_order_release);
}

static uint64_t aclrt_file_digest(const char *path)
{
    uint64_t h = 1469598103934665603ull;
    if (path == NULL || path[0] == '\0')
        return h;
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return h ^ 1;
    int c;
    while ((c = fgetc(f)) != EOF)
        h = (h ^ (uint64_t)(unsigned char)c) * 1099511628211ull;
    fclose(f);
    return h;
}

static aclError aclrt_finalize(bool by_reference, uint64_t *refCount);

ACLRT_API aclError aclInit(const char *configPath)
{
    ACLRT_ENTER();
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    aclError rc = ACL_SUCCESS;
    uint64_t digest = aclrt_file_digest(configPath);
    if (aclrt_rt.init_count > 0) {
        if (digest != aclrt_init_config_digest)
            rc = aclrt_fail(ACL_ERROR_INVALID_PARAM, "aclInit was already called with a different configuration");
        else {
            aclrt_rt.init_count++; /* harmless: the first configuration stays */
            rc = aclrt_fail(ACL_ERROR_REPEAT_INITIALIZE,
                            "aclInit was already called: the runtime keeps its configuration and counts %d "
                            "references (aclFinalizeReference drops one, aclFinalize all)",
                            aclrt_rt.init_count);
        }
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return rc;
    }
    bool fresh = false; /* this call initialised the runtime */
    struct aclrt_config config;
    aclrt_config_defaults(&config);
    rc = aclrt_config_load_file(&config, configPath);
    if (rc == ACL_SUCCESS) {
        aclrt_config_load_env(&config);
        const struct aclrt_backend *backend;
        const aclrtxBackend *embedder;
        if (!aclrt_runtime_started()) {
            rc = aclrt_backend_select(config.backend, &backend, &embedder); /* an unknown name fails here */
            /* A backend that cannot run here (no driver, no device) fails here too, with its reason. */
            if (rc == ACL_SUCCESS && embedder == NULL && backend->probe != NULL)
                rc = backend->probe(&config);
        }
    }
    if (rc == ACL_SUCCESS) /* last of the checks: nothing else can fail this aclInit after it */
        rc = aclrt_dump_from_init_file(configPath); /* the file's "dump" object, if any (dump.h) */
    if (rc == ACL_SUCCESS) {
        atomic_store_explicit(&aclrt_errmsg_process_scope, config.err_msg_mode == 1, memory_order_relaxed);
        if (aclrt_runtime_started()) {
            /*
             * Too late for sizes and backend; what can still change, changes.
             * A file that asked for others is not dropped silently: this
             * init counts (aclFinalize pairs with it) and says what it could
             * not apply, as a repeated aclInit does.
             */
            struct aclrt_config running = aclrt_rt.config;
            running.devices = aclrt_rt.device_count; /* without aclrt.devices, a GPU backend counts its GPUs */
            char unapplied[256];
            if (aclrt_config_unapplied(&running, &config, unapplied, sizeof unapplied) > 0)
                rc = aclrt_fail(ACL_ERROR_REPEAT_INITIALIZE,
                                "configuration file '%.160s' not applied: the runtime already started (a call "
                                "before aclInit needed a device), so %s cannot change; defaultDevice and "
                                "err_msg_mode did. Call aclInit before any other call, or aclFinalize first",
                                configPath, unapplied);
            aclrt_rt.config.default_device = config.default_device;
            aclrt_rt.config.err_msg_mode = config.err_msg_mode;
        } else {
            aclrt_rt.config = config;
            aclrt_rt.config_loaded = true;
        }
        aclrt_init_config_digest = digest;
        aclrt_rt.init_count = 1;
        aclrt_rt.finalized = false;
        aclrt_init_cb_config(configPath);
        fresh = true;
    }
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (fresh) {
        /* The components' init callbacks, with no lock held; one that fails undoes this aclInit. */
        aclError cb = aclrt_init_cb_run_init(configPath != NULL && configPath[0] != '\0');
        if (cb != ACL_SUCCESS) {
            (void)aclrt_finalize(false, NULL);
            return cb;
        }
        aclrt_init_cb_initialised(true);
    }
    return rc;
}

static aclError aclrt_finalize(bool by_reference, uint64_t *refCount)
{
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    aclError rc = ACL_SUCCESS;
    bool stopped = false;
    bool tears_down = !by_reference || aclrt_rt.init_count == 1;
    if (tears_down && aclrt_running_stream() != NULL) {
        /* Its thread is one that the teardown waits for, or stops. */
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot finalize the runtime it runs on");
    } else if (aclrt_rt.init_count == 0) {
        if (aclrt_rt.finalized || by_reference)
            rc = aclrt_fail(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize was already called (or aclInit never was)");
        if (!by_reference)
            aclrt_runtime_stop_locked(); /* tear down what calls without aclInit started */
    } else {
        aclrt_rt.init_count = by_reference ? aclrt_rt.init_count - 1 : 0;
        if (aclrt_rt.init_count == 0) {
            aclrt_runtime_stop_locked();
            aclrt_rt.finalized = true;
            stopped = true;
            aclrt_dump_reset();
        }
    }
    if (refCount != NULL)
        *refCount = (uint64_t)aclrt_rt.init_count;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (aclrt_tls.ctx_handle != NULL && aclrt_context_lookup(aclrt_tls.ctx_handle) == NULL)
        aclrt_tls.ctx_handle = NULL;
    /* The stream-ordering sanitizer's summary; a program it reported on leaves with its exit status. */
    const struct aclrt_san_ops *san = atomic_load_explicit(&aclrt_san, memory_order_acquire);
    if (stopped && san != NULL) {
        aclrt_san_switch(0);
        int status = san->finalize();
        if (status >= 0)
            exit(status);
    }
    return rc;
}

/* Whether finalizing now tears the runtime down (then the finalize callbacks run first). */
static bool aclrt_finalize_tears_down(bool by_reference)
{
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    bool last = aclrt_rt.init_count == 1 || (!by_reference && aclrt_rt.init_count > 1);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    return last;
}

ACLRT_API aclError aclFinalize()
{
    ACLRT_ENTER();
    if (aclrt_finalize_tears_down(false)) {
        aclError cb = aclrt_init_cb_run_finalize();
        if (cb != ACL_SUCCESS)
            return cb;
        aclrt_init_cb_initialised(false);
    }
    return aclrt_finalize(false, NULL);
}

ACLRT_API aclError aclFinalizeReference(uint64_t *refCount)
{
    ACLRT_ENTER();
    if (aclrt_finalize_tears_down(true)) {
        aclError cb = aclrt_init_cb_run_finalize();
        if (cb != ACL_SUCCESS)
            return cb;
        aclrt_init_cb_initialised(false);
    }
    return aclrt_finalize(true, refCount);
}

ACLRT_API const char *aclGetRecentErrMsg()
{
    return aclrt_errmsg_take();
}

ACLRT_API aclError aclrtPeekAtLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL) {
        ACLRT_ENTER();
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "level %d is not ACL_RT_THREAD_LEVEL", (int)level);
    }
    return aclrt_tls.last_error;
}

ACLRT_API aclError aclrtGetLastError(aclrtLastErrLevel level)
{
    if (level != ACL_RT_THREAD_LEVEL) {
        ACLRT_ENTER();
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "level %d is not ACL_RT_THREAD_LEVEL", (int)level);
    }
    aclError e = aclrt_tls.last_error;
    aclrt_tls.last_error = ACL_RT_SUCCESS;
    return e;
}

ACLRT_API const char *aclrtxGetBackendName(void)
{
    if (!aclrt_runtime_started())
        return NULL;
    return aclrt_rt.embedder != NULL ? aclrt_rt.embedder->name : aclrt_rt.backend->name;
}

#endif /* ACLRT_IMPL_SYSTEM_INIT_H */
