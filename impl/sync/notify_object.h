/*
 * impl/sync/notify_object.h - what notifies (notify.h) and counting notifies
 * (cnt_notify.h) share: a slot of a handle table whose state word carries
 * the slot's life, a counter that waits park on, and a unit of the device's
 * notify quota; create, destroy, and the release of every one at aclFinalize.
 *
 * Invariants of struct aclrt_notify_object:
 *   - `state` is (generation << 32) | value, the value in the life that
 *     `generation` names (a notify: its records nobody has consumed; a
 *     counting notify: its counter). Every change is a CAS that checks the
 *     generation, so a task queued for a destroyed object never touches the
 *     next life of its slot (slots are reused). A dead life's generation has
 *     bit 0 clear, which no live one has.
 *   - `changes` only grows, over every life of the slot. It advances after
 *     every change of `state` a wait may be waiting for, and once more when
 *     a life ends; waits park on it (key: the count they read + 1), reading
 *     it before they look at `state`.
 *   - a live object holds one unit of its device's notify quota
 *     (config.max_notifies, shared by both kinds); its destroy gives it back.
 *   - `ipc` is set only during a life (an exported or imported notify) and
 *     cleared when the life ends, before the slot can be reused; it is
 *     read through aclrt_ipc_entry_get (RCU, side_table.h).
 */
#ifndef ACLRT_IMPL_SYNC_NOTIFY_OBJECT_H
#define ACLRT_IMPL_SYNC_NOTIFY_OBJECT_H

#include "../core/base.h"
#include "../core/config.h"
#include "../core/error.h"
#include "../core/handle.h"
#include "../core/seq.h"
#include "../task/park.h"
#include "../runtime/runtime.h"
#include "../stream/stream_wake.h"
#include "../context/context.h"
#include "../context/stream_api.h"
#include "../shm/side_table.h"

struct aclrt_notify_object {
    struct aclrt_slot hdr;
    uint32_t device;        /* whose quota it counts against */
    _Atomic uint64_t state; /* (generation << 32) | value */
    _Atomic(struct aclrt_ipc_seg *) ipc; /* a notify shared with other processes (ipc_notify.h); NULL: not */
    struct aclrt_seq changes ACLRT_ALIGNED(ACLRT_CACHELINE);
    struct aclrt_park_list waiters; /* waits parked until `changes` moves */
};

/* Which of the two kinds, as the API names it in its messages. */
struct aclrt_notify_kind {
    struct aclrt_table *table;
    const char *param;  /* the handle's parameter name: "notify", "cntNotify" */
    const char *noun;   /* "notify", "counting notify" */
    aclError null_code; /* what a NULL handle gets (docs/SEMANTICS.md) */
};

ACLRT_INLINE uint64_t aclrt_notify_pack(uint32_t generation, uint32_t value)
{
    return ((uint64_t)generation << 32) | value;
}

ACLRT_INLINE uint32_t aclrt_notify_generation_of(uint64_t state)
{
    return (uint32_t)(state >> 32);
}

/* The live object a handle names, and its generation; false for a dead or garbage handle. */
ACLRT_INLINE bool aclrt_notify_object_lookup(const struct aclrt_notify_kind *k, const void *handle,
                                             struct aclrt_notify_object **out, uint32_t *generation)
{
    struct aclrt_notify_object *o = (struct aclrt_notify_object *)aclrt_table_lookup(k->table, handle);
    *out = NULL;
    *generation = 0;
    if (ACLRT_UNLIKELY(o == NULL))
        return false;
    /* Acquire: pairs with the publish (the object's fields); a racing destroy shows as a dead generation. */
    uint32_t gen = atomic_load_explicit(&o->hdr.generation, memory_order_acquire);
    *out = o;
    *generation = gen;
    return (gen & 1u) != 0;
}

/* Resolve a handle argument: NULL gets the kind's code, a dead or garbage one ACL_ERROR_RT_INVALID_HANDLE. */
ACLRT_INLINE aclError aclrt_notify_object_resolve(const struct aclrt_notify_kind *k, const void *handle,
                                                  struct aclrt_notify_object **out, uint32_t *generation)
{
    *out = NULL;
    *generation = 0;
    if (ACLRT_UNLIKELY(handle == NULL))
        return aclrt_fail(k->null_code, "%s is NULL", k->param);
    if (ACLRT_UNLIKELY(!aclrt_notify_object_lookup(k, handle, out, generation)))
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "%s %p is not a live %s (destroyed, stale or garbage)",
                          k->param, handle, k->noun);
    return ACL_SUCCESS;
}

/* Resolve a handle argument, then the stream a task of it is for (aclrt_stream_resolve_for_submit). */
ACLRT_INLINE aclError aclrt_notify_object_resolve_for_submit(const struct aclrt_notify_kind *k, const void *handle,
                                                             aclrtStream stream, struct aclrt_notify_object **out,
                                                             uint32_t *generation, struct aclrt_stream **s)
{
    aclError rc = aclrt_notify_object_resolve(k, handle, out, generation);
    if (ACLRT_UNLIKELY(rc != ACL_SUCCESS))
        return rc;
    return aclrt_stream_resolve_for_submit(stream, s);
}

/* A call found the life its handle named ended by another thread meanwhile. */
ACLRT_INTERNAL aclError aclrt_notify_object_gone(const struct aclrt_notify_kind *k, const void *handle)
{
    return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "%s %p was destroyed by another thread", k->param, handle);
}

/* ------------------------------------------------------------------------
 * Create and destroy
 * ------------------------------------------------------------------------ */

static void aclrt_notify_quota_release(uint32_t device)
{
    atomic_fetch_sub_explicit(&aclrt_rt.devices[device].notifies_in_use, 1, memory_order_relaxed);
}

/* Take one unit of the device's notify quota (relaxed: a count, it orders nothing). */
static aclError aclrt_notify_quota_take(struct aclrt_device *dev)
{
    uint32_t in_use = atomic_fetch_add_explicit(&dev->notifies_in_use, 1, memory_order_relaxed);
    if (in_use >= aclrt_rt.config.max_notifies) {
        atomic_fetch_sub_explicit(&dev->notifies_in_use, 1, memory_order_relaxed);
        return aclrt_fail(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "device %u has no notify left (limit %u)", dev->id,
                          aclrt_rt.config.max_notifies);
    }
    return ACL_SUCCESS;
}

/* A new object on the caller's current device, value 0; *handle: its handle. */
ACLRT_INTERNAL aclError aclrt_notify_object_create(const struct aclrt_notify_kind *k, void **handle)
{
    struct aclrt_context *ctx;
    aclError rc = aclrt_current_context(&ctx);
    if (rc != ACL_SUCCESS)
        return rc;
    if ((rc = aclrt_notify_quota_take(ctx->device)) != ACL_SUCCESS)
        return rc;
    struct aclrt_notify_object *o = (struct aclrt_notify_object *)aclrt_table_alloc(k->table);
    if (o == NULL) {
        aclrt_notify_quota_release(ctx->device->id);
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a %s", k->noun);
    }
    o->device = ctx->device->id;
    uint32_t alive = atomic_load_explicit(&o->hdr.generation, memory_order_relaxed) | 1u; /* what publish sets */
    atomic_store_explicit(&o->state, aclrt_notify_pack(alive, 0), memory_order_relaxed);
    /* `changes` goes on from the previous life. Reset the list; notes of that life are stale or due. */
    aclrt_park_list_wake(&o->waiters, UINT64_MAX);
    *handle = aclrt_table_publish(k->table, &o->hdr); /* release: the fields above */
    return ACL_SUCCESS;
}

/*
 * End the life `generation`: its value is dropped, its parked waits run
 * again and see it gone, its queued changes do nothing. False if another
 * thread ended it first.
 */
static bool aclrt_notify_object_end_life(const struct aclrt_notify_kind *k, struct aclrt_notify_object *o,
                                         uint32_t generation, bool grace)
{
    uint64_t w = atomic_load_explicit(&o->state, memory_order_relaxed);
    uint64_t dead = aclrt_notify_pack(generation & ~1u, 0);
    do {
        if (aclrt_notify_generation_of(w) != generation)
            return false;
        /* Acq_rel: ends the life after every change that came before it, for every task that sees it dead. */
    } while (!atomic_compare_exchange_weak_explicit(&o->state, &w, dead, memory_order_acq_rel, memory_order_relaxed));
    aclrt_table_retire(&o->hdr);
    aclrt_counter_advance(&o->changes, &o->waiters, 1); /* every parked wait of this life is due now */
    aclrt_ipc_entry_clear(&o->ipc, grace); /* before the slot can have a new life (a grace period only if set) */
    aclrt_notify_quota_release(o->device);
    aclrt_table_free(k->table, &o->hdr);
    return true;
}

/* The destroy call: the handle's life ends at once, whatever is pending. */
ACLRT_INTERNAL aclError aclrt_notify_object_destroy(const struct aclrt_notify_kind *k, const void *handle)
{
    struct aclrt_notify_object *o;
    uint32_t generation;
    aclError rc = aclrt_notify_object_resolve(k, handle, &o, &generation);
    if (rc != ACL_SUCCESS)
        return rc;
    if (!aclrt_notify_object_end_life(k, o, generation, true))
        return aclrt_notify_object_gone(k, handle);
    return ACL_SUCCESS;
}

/* aclFinalize: end every live object of the kind, releasing the waits that nothing can change it for anymore. */
ACLRT_INTERNAL void aclrt_notify_object_release_all(const struct aclrt_notify_kind *k)
{
    ACLRT_TABLE_FOREACH(k->table, struct aclrt_notify_object, o)
    {
        /* Acquire: pairs with the publish, as in aclrt_notify_object_lookup. */
        uint32_t gen = atomic_load_explicit(&o->hdr.generation, memory_order_acquire);
        if (gen & 1u)
            aclrt_notify_object_end_life(k, o, gen, false); /* aclFinalize: nobody else uses the runtime */
    }
}

#endif /* ACLRT_IMPL_SYNC_NOTIFY_OBJECT_H */
