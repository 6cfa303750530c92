/*
 * impl/stream/stream_life.h - a stream's life: creation in a context, destroy (the
 * handle dies at once; the slot is freed by whoever holds the stream last),
 * and the free that returns the slot to the table.
 *
 * Counts are never reset: a new life of a slot continues from the previous
 * life's completed count, so every event captured on a dead stream stays
 * complete, and task numbers name one task of one life.
 */
#ifndef ACLRT_IMPL_STREAM_STREAM_LIFE_H
#define ACLRT_IMPL_STREAM_STREAM_LIFE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/futex.h"
#include "../core/handle.h"
#include "../core/sanitize_hook.h"
#include "../core/seq.h"
#include "../task/ring.h"
#include "../../backends/backend.h"
#include "../runtime/hooks.h"
#include "../runtime/runtime.h"
#include "callback_thread.h"
#include "stream.h"
#include "stream_capture.h"
#include "stream_complete.h"
#include "stream_sync.h"
#include "stream_wake.h"

ACLRT_INTERNAL aclError aclrt_stream_create_in(struct aclrt_context *ctx, uint32_t priority, uint32_t flags,
                                               bool is_default, struct aclrt_stream **out, void **out_handle)
{
    struct aclrt_device *dev = ctx->device;
    uint32_t in_use = atomic_fetch_add_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
    if (in_use >= aclrt_rt.config.max_streams) {
        atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_NO_STREAM_RESOURCE, "device %u has no stream left (limit %u, default streams included)",
                          dev->id, aclrt_rt.config.max_streams);
    }
    struct aclrt_stream *s = (struct aclrt_stream *)aclrt_table_alloc(&aclrt_streams);
    if (s == NULL) {
        atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a stream");
    }
    uint64_t done = aclrt_seq_read(&s->completed); /* continues from the slot's previous life */
    if (!aclrt_ring_init(&s->ring, aclrt_rt.config.ring_bytes, done)) {
        aclrt_table_free(&aclrt_streams, &s->hdr);
        atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a stream's task ring (%u bytes)",
                          aclrt_rt.config.ring_bytes);
    }
    s->ctx = ctx;
    s->ctx_handle = is_default ? NULL : aclrt_slot_handle(&aclrt_contexts, &ctx->hdr);
    s->device = dev;
    s->flags = flags;
    s->priority = priority > ACLRT_STREAM_PRIORITY_LEAST ? ACLRT_STREAM_PRIORITY_LEAST : priority;
    s->is_default = is_default;
    s->life_base = done;
    s->has_current = false;
    s->issued = done;
    atomic_store_explicit(&s->external_pending, 0, memory_order_relaxed);
    uint64_t seq = aclrt_stream_park_seq(atomic_load_explicit(&s->sched, memory_order_relaxed));
    atomic_store_explicit(&s->sched, ((seq + 1) << ACLRT_SCHED_SEQ_SHIFT) | ACLRT_SCHED_IDLE, memory_order_relaxed);
    /* Reset the list (a fresh slot is zeroed); notes left from a previous life are stale: wake and free them. */
    aclrt_park_list_wake(&s->waiters, UINT64_MAX);
    atomic_store_explicit(&s->error, 0, memory_order_relaxed);
    atomic_store_explicit(&s->failure_mode, ACL_CONTINUE_ON_FAILURE, memory_order_relaxed);
    atomic_store_explicit(&s->overflow_switch, 0, memory_order_relaxed);
    s->saturation = atomic_load_explicit(&dev->saturation, memory_order_relaxed);
    atomic_store_explicit(&s->user_custom_tag, 0, memory_order_relaxed);
    for (int t = 0; t < 2; t++)
        atomic_store_explicit(&s->res_limit[t], ACLRT_RES_UNSET, memory_order_relaxed);
    atomic_store_explicit(&s->cache_op_info, 0, memory_order_relaxed);
    atomic_store_explicit(&s->aborts, 0, memory_order_relaxed);
    atomic_store_explicit(&s->discard_until, 0, memory_order_relaxed);
    atomic_store_explicit(&s->report_threads[0], NULL, memory_order_relaxed);
    atomic_store_explicit(&s->report_threads[1], NULL, memory_order_relaxed);
    s->backend_state = NULL;
    atomic_store_explicit(&s->device_done, NULL, memory_order_relaxed); /* the backend's stream_create may set it */
    if (aclrt_rt.backend->stream_create != NULL) {
        aclError rc = aclrt_rt.backend->stream_create(s);
        if (rc != ACL_SUCCESS) {
            aclrt_table_free(&aclrt_streams, &s->hdr);
            atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
            return aclrt_fail(rc, "the %s backend could not create a stream", aclrt_rt.backend->name);
        }
    }
    /*
     * Published under the streams lock: a context's release retires the
     * context, then lists its streams under this lock, so a stream published
     * into it is either listed there or sees it retired here and fails
     * (its default stream is created before the context is published).
     */
    pthread_mutex_lock(&aclrt_rt.streams_lock);
    bool open = is_default || (atomic_load_explicit(&ctx->hdr.generation, memory_order_relaxed) & 1u);
    if (open)
        *out_handle = aclrt_table_publish(&aclrt_streams, &s->hdr); /* release: the fields above */
    pthread_mutex_unlock(&aclrt_rt.streams_lock);
    if (!open) {
        if (aclrt_rt.backend->stream_destroy != NULL)
            aclrt_rt.backend->stream_destroy(s);
        aclrt_table_free(&aclrt_streams, &s->hdr);
        atomic_fetch_sub_explicit(&dev->streams_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_CONTEXT_NULL, "the context was released while the stream was being created");
    }
    *out = s;
    aclrt_fire_stream_state(*out_handle, ACL_RT_STREAM_STATE_CREATE_POST);
    return ACL_SUCCESS;
}

/* The slot goes back to the table; the caller held the stream last. */
ACLRT_INTERNAL void aclrt_stream_free(struct aclrt_stream *s)
{
    /*
     * Everything submitted is done or discarded, so every note on us is due.
     * A device's word is folded in first: the next life counts on from here.
     */
    aclrt_stream_fold(s);
    aclrt_park_list_wake(&s->waiters, aclrt_seq_read(&s->completed));
    aclrt_stream_capture_discard(s);
    if (aclrt_rt.backend->stream_destroy != NULL)
        aclrt_rt.backend->stream_destroy(s);
    aclrt_ring_forget(&s->ring);
    struct aclrt_device *dev = s->device;
    bool drained = atomic_exchange_explicit(&s->draining, false, memory_order_relaxed);
    aclrt_table_free(&aclrt_streams, &s->hdr);
    /* Release: pairs with the acquire load in aclrt_device_wait_drained (the work is done before). */
    if (drained && atomic_fetch_sub_explicit(&dev->draining, 1, memory_order_release) == 1)
        aclrt_futex_wake(&dev->draining, INT_MAX);
}

/* No stream of the device drains any more: the condition of a driven wait (seq.h). */
static bool aclrt_device_drained(const void *arg)
{
    const struct aclrt_device *dev = (const struct aclrt_device *)arg;
    /* Acquire: pairs with the release decrement in aclrt_stream_free. */
    return atomic_load_explicit(&dev->draining, memory_order_acquire) == 0;
}

/*
 * Wait until no stream of dev drains its work after a destroy that did not
 * wait for it (ACL_SUCCESS), or until the deadline (timeout_code).
 */
ACLRT_INTERNAL aclError aclrt_device_wait_drained(struct aclrt_device *dev, uint64_t deadline, aclError timeout_code)
{
    const struct aclrt_seq_driver *d = aclrt_seq_driven();
    if (ACLRT_UNLIKELY(d != NULL))
        return d->wait(aclrt_device_drained, dev, deadline, NULL, NULL, false) == 0 ? ACL_SUCCESS : timeout_code;
    for (;;) {
        /* Acquire: pairs with the release decrement in aclrt_stream_free. */
        uint32_t n = atomic_load_explicit(&dev->draining, memory_order_acquire);
        if (n == 0)
            return ACL_SUCCESS;
        if (deadline != ACLRT_NO_DEADLINE && aclrt_now_ns() >= deadline)
            return timeout_code;
        aclrt_futex_wait(&dev->draining, n, deadline);
    }
}

/*
 * Destroy: the handle dies at once; the slot is freed by whoever holds the
 * stream last (this thread if it is idle, else the thread that runs it when
 * it lets go). What becomes of the stream's work:
 *   ACLRT_DESTROY_WAIT     (aclrtDestroyStream) waited for first;
 *   ACLRT_DESTROY_DRAIN    (aclrtDestroyStreamForce) not waited for: the work
 *                          that can run runs, as launched work on a device
 *                          does; from the first wait that blocks, the rest is
 *                          discarded (counted as done, so nothing waiting on
 *                          it hangs);
 *   ACLRT_DESTROY_DISCARD  (teardown of streams parked for good, a stopped
 *                          stream) the tasks that have not started are
 *                          discarded; a task that runs finishes.
 */
enum aclrt_destroy_mode { ACLRT_DESTROY_WAIT, ACLRT_DESTROY_DRAIN, ACLRT_DESTROY_DISCARD };

/* aclrt_stream_destroy after its stream state callback (DESTROY_PRE) has run. */
ACLRT_INTERNAL void aclrt_stream_destroy_announced(struct aclrt_stream *s, uint32_t life, enum aclrt_destroy_mode mode)
{
    /* A stopped stream would never finish its work: its tasks are discarded. */
    if (atomic_load_explicit(&s->sched, memory_order_acquire) & ACLRT_SCHED_STOPPED)
        mode = ACLRT_DESTROY_DISCARD;
    uint64_t submitted = aclrt_stream_submitted(s);
    if (mode == ACLRT_DESTROY_WAIT)
        aclrt_stream_wait_count(s, submitted, -1, ACL_SUCCESS);
    /* What follows is after the stream's work: waited for, or discarded (the stream-ordering sanitizer). */
    ACLRT_SAN(edge, NULL, s, submitted);
    aclrt_report_stream_gone(s);
    /* Retired under the streams lock (see struct aclrt_runtime); once only, by one of racing destroyers. */
    pthread_mutex_lock(&aclrt_rt.streams_lock);
    bool mine = (life & 1u) && atomic_load_explicit(&s->hdr.generation, memory_order_relaxed) == life;
    if (mine)
        aclrt_table_retire(&s->hdr);
    pthread_mutex_unlock(&aclrt_rt.streams_lock);
    if (!mine)
        return;
    /*
     * The quota counts live handles, so a create right after a destroy
     * succeeds even while an executor still holds the dying stream (the
     * table itself grows past the quota for such slots).
     */
    atomic_fetch_sub_explicit(&s->device->streams_in_use, 1, memory_order_relaxed);
    /*
     * DYING on an idle stream makes it ours to free (it is never scheduled
     * again); otherwise its executor, or the next one, sees DYING and frees
     * it. A parked stream is woken to act on DISCARD or DRAIN (its wait is
     * looked at again: a drained one that still blocks is discarded); after a
     * wait the park it is in ends as any other.
     */
    uint64_t dying = ACLRT_SCHED_DYING;
    if (mode != ACLRT_DESTROY_WAIT) {
        /* Counted until freed; the flag change below publishes the mark to the thread that frees. */
        atomic_store_explicit(&s->draining, true, memory_order_relaxed);
        atomic_fetch_add_explicit(&s->device->draining, 1, memory_order_relaxed);
    }
    if (mode == ACLRT_DESTROY_DISCARD) {
        /* Release: the executor that sees DISCARD (acquire on the schedule word) sees the bound too. */
        atomic_store_explicit(&s->discard_until, UINT64_MAX, memory_order_release);
        dying |= ACLRT_SCHED_DISCARD;
    } else if (mode == ACLRT_DESTROY_DRAIN) {
        dying |= ACLRT_SCHED_DRAIN;
    }
    if (aclrt_stream_change_flags(s, dying, 0, mode != ACLRT_DESTROY_WAIT) != ACLRT_SCHED_IDLE)
        return;
    /*
     * Tasks not yet run (a drain, or a launch racing the destroy) go the way
     * of a busy stream's: the backend runs them (or discards them, each
     * dropped by its kind) and frees the stream when it lets go.
     */
    if (!aclrt_stream_idle(s) && aclrt_stream_schedule_dying(s))
        return;
    aclrt_stream_free(s);
}

ACLRT_INTERNAL void aclrt_stream_destroy(struct aclrt_stream *s, enum aclrt_destroy_mode mode)
{
    uint32_t life = atomic_load_explicit(&s->hdr.generation, memory_order_acquire); /* the caller's */
    aclrt_fire_stream_state(aclrt_stream_handle(s), ACL_RT_STREAM_STATE_DESTROY_PRE);
    aclrt_stream_destroy_announced(s, life, mode);
}

/* A live stream as a walk of the stream table saw it (aclrt_streams_snapshot). */
struct aclrt_stream_ref {
    struct aclrt_stream *s;
    struct aclrt_context *ctx;
    uint32_t life;      /* the slot's generation then: the life this entry names */
    bool fast_sync;     /* ACL_STREAM_FAST_SYNC */
    uint64_t submitted; /* tasks submitted then */
};

/*
 * The live streams of a context (ctx not NULL) or of a device, with what a
 * waiter needs of them, read under the streams lock: a slot seen alive
 * there cannot be destroyed and re-initialised by another thread while its
 * fields are read, so nothing here races with a create or a destroy. The
 * list is `buf` when `cap` entries suffice, else a malloc'ed array (*out;
 * the caller frees it when it differs from `buf`). Returns the count, or
 * SIZE_MAX when memory runs out. With `out` NULL: the first `cap` only.
 */
ACLRT_INTERNAL size_t aclrt_streams_snapshot(const struct aclrt_device *dev, const struct aclrt_context *ctx,
                                             struct aclrt_stream_ref *buf, size_t cap, struct aclrt_stream_ref **out)
{
    /* Acquire: pairs with the release that grew the table; slots past it were made after this call began. */
    uint32_t n = atomic_load_explicit(&aclrt_streams.high_water, memory_order_acquire);
    struct aclrt_stream_ref *list = buf;
    if (out != NULL && n > cap) {
        list = (struct aclrt_stream_ref *)malloc((size_t)n * sizeof *list);
        if (list == NULL) {
            *out = buf;
            return SIZE_MAX;
        }
        cap = n;
    }
    if (out != NULL)
        *out = list;
    size_t count = 0;
    pthread_mutex_lock(&aclrt_rt.streams_lock);
    for (uint32_t i = 0; i < n && count < cap; i++) {
        struct aclrt_stream *s = (struct aclrt_stream *)(void *)aclrt_table_slot(&aclrt_streams, i);
        /* Acquire: pairs with the release in aclrt_table_publish (the fields of the life we see). */
        uint32_t life = atomic_load_explicit(&s->hdr.generation, memory_order_acquire);
        if (!(life & 1u) || (ctx != NULL ? s->ctx != ctx : s->device != dev))
            continue;
        struct aclrt_stream_ref *r = &list[count++];
        r->s = s;
        r->ctx = s->ctx;
        r->life = life;
        r->fast_sync = (s->flags & ACL_STREAM_FAST_SYNC) != 0;
        r->submitted = aclrt_stream_submitted(s);
    }
    pthread_mutex_unlock(&aclrt_rt.streams_lock);
    return count;
}

#endif /* ACLRT_IMPL_STREAM_STREAM_LIFE_H */
