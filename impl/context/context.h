/*
 * impl/context/context.h - devices and contexts: aclrtSetDevice and friends.
 *
 *   - aclrtSetDevice counts references per device. The first one starts the
 *     device (its executors) and creates its default context, shared by
 *     every thread that sets the device; each call makes that context the
 *     thread's current one.
 *   - aclrtResetDevice drops one reference; at zero it releases the default
 *     context: tears down every stream created in it (waits for the work
 *     that can finish, discards what is parked for good: see "Teardown"
 *     below). After that, resetting again fails until the device is set
 *     again. aclrtResetDeviceForce releases at once, whatever the count.
 *   - aclrtCreateContext makes an explicit context (with its own default
 *     stream) and makes it current; aclrtDestroyContext releases it.
 *   - A thread's current context is a handle checked at every use, so a
 *     context released by another thread reads as "no context"
 *     (ACL_ERROR_RT_CONTEXT_NULL), never as a dangling pointer.
 *   - With `defaultDevice.default_device` configured, a thread that never
 *     set a device uses that device's default context.
 *   - In a forked child whose inherited runtime had started a device
 *     (runtime_start.h), everything that needs a device or a context fails
 *     with ACL_ERROR_RT_DEV_SETUP_ERROR until aclFinalize.
 */
#ifndef ACLRT_IMPL_CONTEXT_CONTEXT_H
#define ACLRT_IMPL_CONTEXT_CONTEXT_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/thread.h"
#include "../task/ring.h"
#include "../../backends/backend.h"
#include "../runtime/hooks.h"
#include "../runtime/progress.h"
#include "../runtime/runtime.h"
#include "../runtime/runtime_start.h"
#include "../stream/stream.h"
#include "../stream/stream_life.h"
#include "../stream/stream_sync.h"

ACLRT_INLINE void *aclrt_context_handle(const struct aclrt_context *ctx)
{
    return aclrt_slot_handle(&aclrt_contexts, &ctx->hdr);
}

/* Valid device id, or ACL_ERROR_RT_INVALID_DEVICEID. Starts the runtime. */
ACLRT_INTERNAL aclError aclrt_device_check(int32_t id, struct aclrt_device **out)
{
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    if (id < 0 || (uint32_t)id >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %u)", (int)id,
                          aclrt_rt.device_count);
    *out = &aclrt_rt.devices[id];
    return ACL_SUCCESS;
}

static aclError aclrt_device_start_locked(struct aclrt_device *dev)
{
    if (dev->started)
        return ACL_SUCCESS;
    aclError rc = aclrt_rt.backend->device_start(dev);
    if (rc == ACL_SUCCESS) {
        dev->started = true;
        aclrt_progress_open(dev);
    }
    return rc;
}

static aclError aclrt_context_create_locked(struct aclrt_device *dev, bool is_default, struct aclrt_context **out,
                                            void **handle)
{
    aclError rc = aclrt_device_start_locked(dev);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_context *ctx = (struct aclrt_context *)aclrt_table_alloc(&aclrt_contexts);
    if (ctx == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a context");
    ctx->device = dev;
    ctx->is_default = is_default;
    atomic_store_explicit(&ctx->stop_on_failure, false, memory_order_relaxed);
    atomic_store_explicit(&ctx->failure, 0, memory_order_relaxed);
    rc = aclrt_stream_create_in(ctx, ACLRT_STREAM_PRIORITY_GREATEST, 0, true, &ctx->default_stream,
                                &ctx->default_stream_handle);
    if (rc != ACL_SUCCESS) {
        aclrt_table_free(&aclrt_contexts, &ctx->hdr);
        return rc;
    }
    *handle = aclrt_table_publish(&aclrt_contexts, &ctx->hdr);
    *out = ctx;
    return ACL_SUCCESS;
}

/*
 * Teardown (aclrtResetDevice, aclrtResetDeviceForce, aclrtDestroyContext,
 * aclFinalize): the streams of a context are waited for while their work
 * can still finish, and what is parked for good is discarded.
 *
 *   - While a stream of the set runs a task, is ready to run, or has just
 *     been given one, its work can finish: wait.
 *   - Once every unfinished stream of the set is parked (on another
 *     stream, an event's record, a notify, a callback, a value, a timer, or
 *     stopped), it waits for something outside the set. It is discarded
 *     when nothing the runtime runs can bring that any more: no stream of
 *     the whole runtime running or ready, and no task completed anywhere,
 *     throughout ACLRT_TEARDOWN_QUIET_NS (what is left could only come from
 *     a call of another thread, or never); or when the set has made no
 *     progress for ACLRT_TEARDOWN_PATIENCE_NS while the rest of the runtime
 *     stays busy with work that does not release it. Nothing looks at what
 *     a stream waits for: the rule is the same for every kind of wait.
 *   - Discarding is aclrtStreamAbort's and aclrtDestroyStreamForce's: the
 *     parked task and everything after it are dropped and counted as done,
 *     so events captured behind them complete, and a thread synchronizing
 *     such a stream returns ACL_ERROR_RT_STREAM_ABORT. Work already handed
 *     off (an external task in flight) finishes first.
 *
 * A walk of the stream table reads only atomics (generation, schedule word,
 * counts), so it races with nothing; the set itself was listed under the
 * streams lock.
 */
#define ACLRT_TEARDOWN_QUIET_NS (2 * ACLRT_NS_PER_MS)
#define ACLRT_TEARDOWN_PATIENCE_NS (1000 * ACLRT_NS_PER_MS)
#define ACLRT_TEARDOWN_POLL_NS (500 * ACLRT_NS_PER_US) /* between looks, unless the awaited stream moves first */

enum aclrt_activity { ACLRT_STREAM_FINISHED, ACLRT_STREAM_PARKED, ACLRT_STREAM_ACTIVE };

/* Where a stream's work stands (atomics only); *done: its completed count. */
static enum aclrt_activity aclrt_stream_activity(const struct aclrt_stream *s, uint64_t *done)
{
    /* Acquire: pairs with the CASes that hand the stream over (stream.h); a hint, looked at again. */
    uint64_t w = atomic_load_explicit(&s->sched, memory_order_acquire);
    *done = aclrt_stream_done(s);
    switch (aclrt_stream_state(w)) {
    case ACLRT_SCHED_PARKED: /* behind work on the device, which finishes by itself: as a running task */
        return aclrt_rt.backend->stream_device_busy != NULL && aclrt_rt.backend->stream_device_busy(s)
                   ? ACLRT_STREAM_ACTIVE
                   : ACLRT_STREAM_PARKED;
    case ACLRT_SCHED_IDLE: /* work reserved and not scheduled yet is a launch about to kick it */
        return aclrt_ring_extend(*done, aclrt_ring_reserved(&s->ring)) == *done ? ACLRT_STREAM_FINISHED
                                                                                  : ACLRT_STREAM_ACTIVE;
    default: return ACLRT_STREAM_ACTIVE;
    }
}

/* One look at the set and at the whole runtime. */
struct aclrt_teardown_look {
    size_t unfinished;         /* streams of the set with work not done */
    bool settled;              /* every unfinished one is parked */
    uint64_t set_done;         /* the set's completed counts, summed */
    bool busy;                 /* a stream of the runtime runs, is ready, or was just given work */
    uint64_t all_done;         /* every live stream's completed count, summed */
    struct aclrt_stream *wait; /* an unfinished stream of the set to sleep on */
};

static void aclrt_teardown_look(const struct aclrt_stream_ref *set, size_t n, struct aclrt_teardown_look *l)
{
    memset(l, 0, sizeof *l);
    l->settled = true;
    for (size_t i = 0; i < n; i++) {
        uint64_t done;
        enum aclrt_activity a = aclrt_stream_activity(set[i].s, &done);
        l->set_done += done;
        if (a == ACLRT_STREAM_FINISHED)
            continue;
        l->unfinished++;
        if (l->wait == NULL || a == ACLRT_STREAM_ACTIVE)
            l->wait = set[i].s;
        if (a == ACLRT_STREAM_ACTIVE)
            l->settled = false;
    }
    ACLRT_TABLE_FOREACH(&aclrt_streams, struct aclrt_stream, s)
    {
        /* Acquire: pairs with aclrt_table_publish; a slot alive now may die meanwhile: only atomics are read. */
        if (!(atomic_load_explicit(&s->hdr.generation, memory_order_acquire) & 1u))
            continue;
        uint64_t done;
        if (aclrt_stream_activity(s, &done) == ACLRT_STREAM_ACTIVE)
            l->busy = true;
        l->all_done += done;
    }
}

/* Wait until no stream of the set can still make progress by itself (see above); false if all finished. */
static bool aclrt_teardown_settle(const struct aclrt_stream_ref *set, size_t n)
{
    uint64_t progress_at = aclrt_now_ns(), set_done = UINT64_MAX;
    uint64_t quiet_since = 0, quiet_done = 0;
    for (;;) {
        struct aclrt_teardown_look l;
        aclrt_teardown_look(set, n, &l);
        if (l.unfinished == 0)
            return false;
        uint64_t now = aclrt_now_ns();
        if (!l.settled || l.set_done != set_done) {
            progress_at = now;
            set_done = l.set_done;
        }
        if (!l.settled || l.busy || l.all_done != quiet_done)
            quiet_since = 0;
        if (l.settled && !l.busy) {
            if (quiet_since == 0) {
                quiet_since = now;
                quiet_done = l.all_done;
            } else if (now - quiet_since >= ACLRT_TEARDOWN_QUIET_NS) {
                return true; /* nothing the runtime runs can release them */
            }
        }
        if (l.settled && now - progress_at >= ACLRT_TEARDOWN_PATIENCE_NS)
            return true; /* the rest of the runtime stays busy without releasing them */
        uint64_t seen = aclrt_stream_done(l.wait);
        aclrt_stream_wait_done(l.wait, seen + 1, now + ACLRT_TEARDOWN_POLL_NS, 0, NULL, NULL);
    }
}

/*
 * Discard what is left of the set's work, all of it together, and wait
 * until it is gone (an executor drops it; work handed off finishes first).
 * Every stream is flagged before any is woken: a wait that the discard of
 * another stream of the set would satisfy is discarded too, whatever the
 * order of the streams (as on a device, where the discarded record never
 * happens). The abort epoch moves around it, so that a synchronizer of
 * these streams returns ACL_ERROR_RT_STREAM_ABORT (stream_sync.h).
 */
static void aclrt_teardown_discard(const struct aclrt_stream_ref *set, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct aclrt_stream *s = set[i].s;
        /* Acq_rel: pairs with the synchronizers' acquire loads of the epoch (aclrt_stream_aborted_since). */
        atomic_fetch_add_explicit(&s->aborts, 1, memory_order_acq_rel);
        /* Release: the executor that sees DISCARD (acquire on the schedule word) sees the bound too. */
        atomic_store_explicit(&s->discard_until, UINT64_MAX, memory_order_release);
        aclrt_stream_change_flags(s, ACLRT_SCHED_DISCARD, 0, false);
    }
    for (size_t i = 0; i < n; i++)
        aclrt_stream_change_flags(set[i].s, 0, 0, true); /* parked: wake it to discard */
    for (size_t i = 0; i < n; i++) {
        struct aclrt_stream *s = set[i].s;
        aclrt_stream_wait_done(s, aclrt_stream_submitted(s), ACLRT_NO_DEADLINE, aclrt_rt.config.spin_ns, NULL, NULL);
        /* Even again. Release: pairs with the acquire in aclrt_stream_aborted_since. */
        atomic_fetch_add_explicit(&s->aborts, 1, memory_order_release);
    }
}

/*
 * Tear down a list of streams (see above). Their stream state callbacks
 * (DESTROY_PRE) run first, all of them, before anything is waited for: as
 * for a destroy, before the stream's work is waited for.
 */
static void aclrt_teardown_streams(const struct aclrt_stream_ref *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        aclrt_fire_stream_state(aclrt_handle_encode(ACLRT_KIND_STREAM, aclrt_slot_index(&set[i].s->hdr),
                                                    set[i].life >> 1),
                                ACL_RT_STREAM_STATE_DESTROY_PRE);
    if (aclrt_teardown_settle(set, n))
        aclrt_teardown_discard(set, n);
    /* Nothing is left to wait for: whatever a racing launch added now is discarded with the stream. */
    for (size_t i = 0; i < n; i++)
        if (aclrt_slot_alive(&set[i].s->hdr, set[i].life))
            aclrt_stream_destroy_announced(set[i].s, set[i].life, ACLRT_DESTROY_DISCARD);
}

/* Tear down every stream of the context (see above), then the context itself. */
ACLRT_INTERNAL void aclrt_context_release_locked(struct aclrt_context *ctx)
{
    aclrt_table_retire(&ctx->hdr);
    struct aclrt_stream_ref buf[32], *set;
    size_t n = aclrt_streams_snapshot(NULL, ctx, buf, sizeof buf / sizeof buf[0], &set);
    if (n != SIZE_MAX) {
        aclrt_teardown_streams(set, n);
        if (set != buf)
            free(set);
    } else { /* no memory for the whole list: a few streams at a time */
        while ((n = aclrt_streams_snapshot(NULL, ctx, buf, sizeof buf / sizeof buf[0], NULL)) > 0)
            aclrt_teardown_streams(buf, n);
    }
    if (ctx->is_default && ctx->device->default_ctx == ctx) {
        ctx->device->default_ctx = NULL;
        ctx->device->default_ctx_handle = NULL;
    }
    aclrt_table_free(&aclrt_contexts, &ctx->hdr);
}

/* One more aclrtSetDevice reference (creating the default context if needed). */
static aclError aclrt_device_set_locked(struct aclrt_device *dev)
{
    if (dev->default_ctx == NULL) {
        aclError rc = aclrt_context_create_locked(dev, true, &dev->default_ctx, &dev->default_ctx_handle);
        if (rc != ACL_SUCCESS)
            return rc;
    }
    dev->set_count++;
    dev->reset_done = false;
    return ACL_SUCCESS;
}

static aclError aclrt_current_context_slow(struct aclrt_context **out)
{
    /* A forked child forgot the forking thread's context (runtime_start.h): every thread comes here. */
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    /*
     * A task (host function, host kernel) works in its stream's context,
     * which outlives the task (destroying a context waits for its streams),
     * unless it sets one itself (aclrt_task_scope_enter, thread.h).
     */
    if (aclrt_tls.running != NULL && aclrt_tls.ctx_handle == NULL) {
        *out = aclrt_tls.running->ctx;
        return ACL_SUCCESS;
    }
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    int32_t id = aclrt_rt.config.default_device;
    if (id < 0 || (uint32_t)id >= aclrt_rt.device_count)
        return aclrt_fail(ACL_ERROR_RT_CONTEXT_NULL,
                          "the calling thread has no current context: call aclrtSetDevice or aclrtCreateContext first");
    struct aclrt_device *dev = &aclrt_rt.devices[id];
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    if (dev->default_ctx == NULL)
        rc = aclrt_device_set_locked(dev); /* the configured default device, set implicitly once */
    void *handle = dev->default_ctx_handle;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_context *ctx = aclrt_context_lookup(handle);
    if (ctx == NULL)
        return aclrt_fail(ACL_ERROR_RT_CONTEXT_NULL, "the default device's context was just released");
    aclrt_tls.ctx_handle = handle;
    *out = ctx;
    return ACL_SUCCESS;
}

/*
 * The thread's current context, or ACL_ERROR_RT_CONTEXT_NULL. Fast path: the
 * stored handle is still alive. The slow path applies the configured
 * default device, if any.
 */
ACLRT_INLINE aclError aclrt_current_context(struct aclrt_context **out)
{
    struct aclrt_context *ctx = aclrt_context_lookup(aclrt_tls.ctx_handle);
    if (ACLRT_LIKELY(ctx != NULL)) {
        *out = ctx;
        return ACL_SUCCESS;
    }
    return aclrt_current_context_slow(out);
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclError aclrtSetDevice(int32_t deviceId)
{
    ACLRT_ENTER();
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_SET_PRE);
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    rc = aclrt_device_set_locked(dev);
    void *handle = dev->default_ctx_handle;
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc == ACL_SUCCESS) {
        aclrt_tls.ctx_handle = handle;
        aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_SET_POST);
    }
    return rc;
}

static aclError aclrt_device_reset(int32_t deviceId, bool force)
{
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_RESET_PRE);
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    if (dev->default_ctx == NULL || dev->set_count == 0) {
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return aclrt_fail(ACL_ERROR_RT_CONTEXT_NULL, "device %d is not set (never set, or already reset)",
                          (int)deviceId);
    }
    if ((force || dev->set_count == 1) && aclrt_running_stream() != NULL &&
        aclrt_running_stream()->ctx == dev->default_ctx) {
        pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot release the default context of device %d, "
                                                      "in which it runs (it would wait for itself)",
                          (int)deviceId);
    }
    if (force || --dev->set_count == 0) {
        aclrt_context_release_locked(dev->default_ctx);
        dev->set_count = 0;
        dev->reset_done = true;
    }
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    aclrt_fire_device_state(deviceId, ACL_RT_DEVICE_STATE_RESET_POST);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtResetDevice(int32_t deviceId)
{
    ACLRT_ENTER();
    return aclrt_device_reset(deviceId, false);
}

ACLRT_API aclError aclrtResetDeviceForce(int32_t deviceId)
{
    ACLRT_ENTER();
    return aclrt_device_reset(deviceId, true);
}

ACLRT_API aclError aclrtGetDevice(int32_t *deviceId)
{
    ACLRT_ENTER();
    if (deviceId == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "deviceId (output) is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *deviceId = (int32_t)ctx->device->id;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetDeviceCount(uint32_t *count)
{
    ACLRT_ENTER();
    if (count == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "count (output) is NULL");
    aclError rc = aclrt_runtime_start();
    if (rc != ACL_SUCCESS)
        return rc;
    *count = aclrt_rt.device_count;
    return ACL_SUCCESS;
}

/*
 * Wait for every stream of the current context's device: the streams alive
 * at the call (a list taken under the streams lock, so the walk reads no
 * stream another thread is creating or destroying), each up to what had
 * been submitted then, and the streams destroyed without waiting whose work
 * is not done, all against one absolute deadline.
 */
static aclError aclrt_device_synchronize(int32_t timeout_ms)
{
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_device *dev = ctx->device;
    uint64_t deadline = timeout_ms < 0 ? ACLRT_NO_DEADLINE
                                       : aclrt_deadline_after((uint64_t)timeout_ms * ACLRT_NS_PER_MS);
    struct aclrt_stream_ref buf[32], *refs;
    size_t n = aclrt_streams_snapshot(dev, NULL, buf, sizeof buf / sizeof buf[0], &refs);
    if (n == SIZE_MAX)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory listing the streams of device %u", dev->id);
    struct aclrt_stream *running = aclrt_running_stream();
    bool self = running != NULL && running->device == dev &&
                atomic_load_explicit(&running->draining, memory_order_relaxed);
    for (size_t i = 0; i < n && !self; i++)
        self = running == refs[i].s;
    if (self) {
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot synchronize the device it runs on");
        goto out;
    }
    aclError first = ACL_SUCCESS;
    for (size_t i = 0; i < n; i++) {
        struct aclrt_stream_ref *r = &refs[i];
        struct aclrt_stream_life life = {r->s, r->life};
        rc = aclrt_stream_wait_until(&life, r->submitted, deadline, r->fast_sync, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
        if (rc != ACL_SUCCESS) {
            rc = aclrt_stream_wait_fail(r->s, rc, "the device", timeout_ms);
            goto out;
        }
        /* The error state belongs to the life we saw; a stream destroyed meanwhile has none left to report. */
        /* Acquire (both): pairs with the release CASes of the failing task (exec.h, aclrt_stream_fail). */
        aclError err = atomic_load_explicit(&r->ctx->failure, memory_order_acquire);
        if (err == 0 && aclrt_slot_alive(&r->s->hdr, r->life) &&
            atomic_load_explicit(&r->s->error, memory_order_relaxed) != 0)
            err = atomic_exchange_explicit(&r->s->error, 0, memory_order_acq_rel);
        if (first == ACL_SUCCESS)
            first = err;
    }
    rc = aclrt_device_wait_drained(dev, deadline, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
    if (rc != ACL_SUCCESS) {
        rc = aclrt_fail(rc, "the device: the work of destroyed streams did not finish within %d ms", (int)timeout_ms);
        goto out;
    }
    rc = first != ACL_SUCCESS ? aclrt_fail(first, "a task on device %u failed", dev->id) : ACL_SUCCESS;
out:
    if (refs != buf)
        free(refs);
    return rc;
}

ACLRT_API aclError aclrtSynchronizeDevice(void)
{
    ACLRT_ENTER();
    return aclrt_device_synchronize(-1);
}

ACLRT_API aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    ACLRT_ENTER();
    if (timeout == 0 || timeout < -1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "timeout %d ms is invalid (-1 waits forever, > 0 is a limit)",
                          (int)timeout);
    return aclrt_device_synchronize(timeout);
}

ACLRT_API aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    ACLRT_ENTER();
    if (context == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "context (output) is NULL");
    struct aclrt_device *dev;
    aclError rc = aclrt_device_check(deviceId, &dev);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_context *ctx;
    void *handle;
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    rc = aclrt_context_create_locked(dev, false, &ctx, &handle);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc != ACL_SUCCESS)
        return rc;
    aclrt_tls.ctx_handle = handle;
    *context = handle;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtDestroyContext(aclrtContext context)
{
    ACLRT_ENTER();
    if (context == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
    pthread_mutex_lock(&aclrt_rt.lifecycle_lock);
    struct aclrt_context *ctx = aclrt_context_lookup(context);
    aclError rc = ACL_SUCCESS;
    if (aclrt_runtime_orphaned())
        rc = aclrt_fail_orphaned();
    else if (ctx == NULL)
        rc = aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "context %p is not a live context", context);
    else if (ctx->is_default)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                        "context %p is a device's default context; aclrtResetDevice releases it", context);
    else if (aclrt_running_stream() != NULL && aclrt_running_stream()->ctx == ctx)
        rc = aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "a task cannot destroy the context it runs in");
    else
        aclrt_context_release_locked(ctx);
    pthread_mutex_unlock(&aclrt_rt.lifecycle_lock);
    if (rc == ACL_SUCCESS && aclrt_tls.ctx_handle == context)
        aclrt_tls.ctx_handle = NULL;
    return rc;
}

ACLRT_API aclError aclrtSetCurrentContext(aclrtContext context)
{
    ACLRT_ENTER();
    if (context == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "context is NULL");
    if (ACLRT_UNLIKELY(aclrt_runtime_orphaned()))
        return aclrt_fail_orphaned();
    if (aclrt_context_lookup(context) == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "context %p is not a live context", context);
    aclrt_tls.ctx_handle = context;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetCurrentContext(aclrtContext *context)
{
    ACLRT_ENTER();
    if (context == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "context (output) is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *context = aclrt_context_handle(ctx);
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream)
{
    ACLRT_ENTER();
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream (output) is NULL");
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    *stream = ctx->default_stream_handle;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtGetRunMode(aclrtRunMode *runMode)
{
    ACLRT_ENTER();
    if (runMode == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "runMode (output) is NULL");
    *runMode = ACL_HOST; /* the program runs on the host CPU */
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_CONTEXT_CONTEXT_H */
