/*
 * impl/memory/allocator.h - ACL's custom memory allocator API (acl_rt_allocator.h):
 * descriptors that carry a user allocator object and its four callbacks, and
 * per-stream registrations that aclrtAllocatorGetByStream hands back.
 *
 * aclrt runs no task that allocates memory, so nothing inside the runtime
 * calls a registered allocator: the registration is kept for the program and
 * for embedders (what CANN's operator layer does with it for workspaces).
 *
 * Descriptors. aclrtAllocatorCreateDesc hands out an id, not a pointer:
 * (ACLRT_ALLOCATOR_DESC_MAGIC << 56) | n, n counting from 1 and never reused.
 * The live descriptors are a registry keyed by that id, and every call that
 * takes a descriptor looks it up first, so a destroyed, twice-destroyed or
 * made-up descriptor is ACL_ERROR_INVALID_PARAM, never a wild write.
 * Descriptor calls are rare: they all run under the descriptor registry's
 * lock, which also makes a setter racing a destroy safe.
 *
 * Registrations. A registry keyed by the stream's handle value, which
 * carries the slot's life count (handle.h): an entry left behind by a
 * destroyed stream never matches the stream that reuses its slot, and is
 * dropped by aclrtAllocatorUnregister of the dead handle, by
 * aclrt_allocator_stream_gone (for the stream-destroy path) or by the sweep
 * at the next registration. Each entry points to an immutable record (a
 * copy of the descriptor's contents taken at registration, as the runtime
 * does); a new registration on the same stream swaps the record pointer, so
 * a concurrent aclrtAllocatorGetByStream sees the old record or the new one,
 * whole, and never "not registered". Lookups are lock-free (an RCU read
 * section); registering, unregistering and the sweep serialize on the
 * registry's lock and free a replaced record or removed entry only after an
 * RCU grace period.
 */
#ifndef ACLRT_IMPL_MEMORY_ALLOCATOR_H
#define ACLRT_IMPL_MEMORY_ALLOCATOR_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/registry.h"
#include "../core/thread.h"
#include "../stream/stream.h"

#define ACLRT_ALLOCATOR_DESC_MAGIC 0xADull
#define ACLRT_ALLOCATOR_DESC_ID_MASK ((1ull << 56) - 1)

/* What a descriptor carries and a registration copies. */
struct aclrt_allocator_fns {
    aclrtAllocator obj;
    aclrtAllocatorAllocFunc alloc;
    aclrtAllocatorFreeFunc free;
    aclrtAllocatorAllocAdviseFunc alloc_advise; /* optional */
    aclrtAllocatorGetAddrFromBlockFunc get_addr_from_block;
};

/* A live descriptor; every field is read and written under aclrt_allocator_descs' lock. */
struct aclrt_allocator_desc {
    struct aclrt_registry_node node; /* key: id */
    uint64_t id;
    struct aclrt_allocator_fns fns;
};

/* What a stream is registered with: written once, before it is published, then only read. */
struct aclrt_allocator_record {
    aclrtAllocatorDesc desc; /* the descriptor value passed to aclrtAllocatorRegister */
    struct aclrt_allocator_fns fns;
};

struct aclrt_allocator_reg {
    struct aclrt_registry_node node; /* key: stream */
    uint64_t stream;                 /* the stream's handle value, life count included */
    struct aclrt_allocator_record *_Atomic record;
    struct aclrt_allocator_reg *stale_next; /* the sweep's list (registry lock) */
};

static struct aclrt_registry aclrt_allocator_descs = ACLRT_REGISTRY_INIT;
static uint64_t aclrt_allocator_desc_count; /* ids handed out (descriptor registry lock) */
static struct aclrt_registry aclrt_allocator_regs = ACLRT_REGISTRY_INIT;

static bool aclrt_allocator_id_match(const struct aclrt_registry_node *node, const void *key)
{
    const struct aclrt_allocator_desc *d = caa_container_of(node, struct aclrt_allocator_desc, node);
    return d->id == *(const uint64_t *)key;
}

static bool aclrt_allocator_stream_match(const struct aclrt_registry_node *node, const void *key)
{
    const struct aclrt_allocator_reg *r = caa_container_of(node, struct aclrt_allocator_reg, node);
    return r->stream == *(const uint64_t *)key;
}

ACLRT_INLINE uint64_t aclrt_allocator_hash(uint64_t key)
{
    return aclrt_hash_bytes(&key, sizeof key);
}

/* ------------------------------------------------------------------------
 * Descriptors
 * ------------------------------------------------------------------------ */

/* The live descriptor `handle` names, or NULL. Caller holds the descriptor registry lock. */
static struct aclrt_allocator_desc *aclrt_allocator_desc_find_locked(aclrtAllocatorDesc handle)
{
    uint64_t h = (uint64_t)(uintptr_t)handle;
    if ((h >> 56) != ACLRT_ALLOCATOR_DESC_MAGIC)
        return NULL;
    uint64_t id = h & ACLRT_ALLOCATOR_DESC_ID_MASK;
    aclrt_rcu_read_lock();
    struct aclrt_registry_node *n =
        aclrt_registry_find(&aclrt_allocator_descs, aclrt_allocator_hash(id), aclrt_allocator_id_match, &id);
    aclrt_rcu_read_unlock();
    /* Still valid after the read section: only a holder of the lock removes descriptors. */
    return n != NULL ? caa_container_of(n, struct aclrt_allocator_desc, node) : NULL;
}

enum aclrt_allocator_field {
    ACLRT_ALLOCATOR_OBJ,
    ACLRT_ALLOCATOR_ALLOC,
    ACLRT_ALLOCATOR_FREE,
    ACLRT_ALLOCATOR_ALLOC_ADVISE,
    ACLRT_ALLOCATOR_GET_ADDR_FROM_BLOCK,
};

static const char *const aclrt_allocator_field_names[] = {
    "allocator", "alloc function", "free function", "alloc-advise function", "get-address-from-block function",
};

/*
 * The setters: NULL descriptor or value is ACL_ERROR_INVALID_PARAM (the
 * runtime's order: descriptor first), and so is a descriptor that is not live.
 */
static aclError aclrt_allocator_set(aclrtAllocatorDesc handle, enum aclrt_allocator_field field, const void *value,
                                    void (*store)(struct aclrt_allocator_fns *fns, const void *value))
{
    if (handle == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc is NULL");
    if (value == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "the %s is NULL", aclrt_allocator_field_names[field]);
    aclrt_registry_lock(&aclrt_allocator_descs);
    struct aclrt_allocator_desc *d = aclrt_allocator_desc_find_locked(handle);
    if (d != NULL)
        store(&d->fns, value);
    aclrt_registry_unlock(&aclrt_allocator_descs);
    if (d == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "allocatorDesc %p is not a descriptor from aclrtAllocatorCreateDesc (or was destroyed)",
                          handle);
    return ACL_SUCCESS;
}

/*
 * Function pointers travel through `const void *` as the address of the
 * caller's variable (a function pointer does not convert to void *).
 */
static void aclrt_allocator_store_obj(struct aclrt_allocator_fns *fns, const void *value)
{
    fns->obj = (aclrtAllocator)(uintptr_t)value;
}

static void aclrt_allocator_store_alloc(struct aclrt_allocator_fns *fns, const void *value)
{
    fns->alloc = *(const aclrtAllocatorAllocFunc *)value;
}

static void aclrt_allocator_store_free(struct aclrt_allocator_fns *fns, const void *value)
{
    fns->free = *(const aclrtAllocatorFreeFunc *)value;
}

static void aclrt_allocator_store_alloc_advise(struct aclrt_allocator_fns *fns, const void *value)
{
    fns->alloc_advise = *(const aclrtAllocatorAllocAdviseFunc *)value;
}

static void aclrt_allocator_store_get_addr(struct aclrt_allocator_fns *fns, const void *value)
{
    fns->get_addr_from_block = *(const aclrtAllocatorGetAddrFromBlockFunc *)value;
}

/* ------------------------------------------------------------------------
 * Registrations
 * ------------------------------------------------------------------------ */

/* Inside a read section: the registration of the stream handle value `key`, or NULL. */
ACLRT_INLINE struct aclrt_allocator_reg *aclrt_allocator_reg_find(uint64_t key)
{
    struct aclrt_registry_node *n =
        aclrt_registry_find(&aclrt_allocator_regs, aclrt_allocator_hash(key), aclrt_allocator_stream_match, &key);
    return n != NULL ? caa_container_of(n, struct aclrt_allocator_reg, node) : NULL;
}

/* Take a registration out and free it (caller holds the registry lock, outside any read section). */
static void aclrt_allocator_reg_drop_locked(struct aclrt_allocator_reg *r)
{
    aclrt_registry_remove_locked(&aclrt_allocator_regs, &r->node); /* waits until no reader holds it */
    free(atomic_load_explicit(&r->record, memory_order_relaxed)); /* ours: the lock, and no reader left */
    free(r);
}

static void aclrt_allocator_collect_stale(struct aclrt_registry_node *node, void *data)
{
    struct aclrt_allocator_reg *r = caa_container_of(node, struct aclrt_allocator_reg, node);
    struct aclrt_allocator_reg **stale = (struct aclrt_allocator_reg **)data;
    if (aclrt_stream_lookup((const void *)(uintptr_t)r->stream) == NULL) {
        r->stale_next = *stale;
        *stale = r;
    }
}

/*
 * Drop the registrations of streams that are gone (destroyed without an
 * unregister, or before an aclFinalize). Caller holds the registry lock.
 * Registrations are few, and a stale one costs one grace period, once.
 */
static void aclrt_allocator_sweep_locked(void)
{
    struct aclrt_allocator_reg *stale = NULL;
    aclrt_registry_foreach_locked(&aclrt_allocator_regs, aclrt_allocator_collect_stale, &stale);
    while (stale != NULL) {
        struct aclrt_allocator_reg *next = stale->stale_next;
        aclrt_allocator_reg_drop_locked(stale);
        stale = next;
    }
}

/*
 * For the stream-destroy path: forget the registration of the stream whose
 * handle this was (nothing when there is none; the common case takes no
 * lock). Registrations of dead handles never match a live stream, so this
 * only returns memory early.
 */
static void aclrt_allocator_stream_gone(const void *stream_handle)
{
    uint64_t key = (uint64_t)(uintptr_t)stream_handle;
    aclrt_rcu_read_lock();
    bool registered = aclrt_allocator_reg_find(key) != NULL;
    aclrt_rcu_read_unlock();
    if (ACLRT_LIKELY(!registered))
        return;
    aclrt_registry_lock(&aclrt_allocator_regs);
    aclrt_rcu_read_lock();
    struct aclrt_allocator_reg *r = aclrt_allocator_reg_find(key);
    aclrt_rcu_read_unlock();
    if (r != NULL)
        aclrt_allocator_reg_drop_locked(r);
    aclrt_registry_unlock(&aclrt_allocator_regs);
}

static void aclrt_allocator_reg_free(struct aclrt_registry_node *node)
{
    struct aclrt_allocator_reg *r = caa_container_of(node, struct aclrt_allocator_reg, node);
    free(atomic_load_explicit(&r->record, memory_order_relaxed)); /* no reader: finalize */
    free(r);
}

/* For aclFinalize, after every stream is gone: forget every registration (descriptors stay the program's). */
ACLRT_INTERNAL void aclrt_allocator_clear(void)
{
    aclrt_registry_lock(&aclrt_allocator_regs);
    aclrt_registry_clear_locked(&aclrt_allocator_regs, aclrt_allocator_reg_free);
    aclrt_registry_unlock(&aclrt_allocator_regs);
}

/* ------------------------------------------------------------------------
 * API
 * ------------------------------------------------------------------------ */

ACLRT_API aclrtAllocatorDesc aclrtAllocatorCreateDesc(void)
{
    ACLRT_ENTER();
    struct aclrt_allocator_desc *d = (struct aclrt_allocator_desc *)calloc(1, sizeof *d);
    if (d == NULL) {
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for an allocator descriptor");
        return NULL;
    }
    aclrt_registry_lock(&aclrt_allocator_descs);
    d->id = ++aclrt_allocator_desc_count; /* 2^56 creations before it could wrap */
    d->node.hash = aclrt_allocator_hash(d->id);
    struct aclrt_registry_node *got =
        aclrt_registry_add_locked(&aclrt_allocator_descs, &d->node, aclrt_allocator_id_match, &d->id);
    aclrt_registry_unlock(&aclrt_allocator_descs);
    if (got != &d->node) { /* the table could not be made (ids are unique, so no other node matched) */
        free(d);
        aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for the allocator descriptor table");
        return NULL;
    }
    return (aclrtAllocatorDesc)(uintptr_t)((ACLRT_ALLOCATOR_DESC_MAGIC << 56) | d->id);
}

ACLRT_API aclError aclrtAllocatorDestroyDesc(aclrtAllocatorDesc allocatorDesc)
{
    ACLRT_ENTER();
    if (allocatorDesc == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc is NULL");
    aclrt_registry_lock(&aclrt_allocator_descs);
    struct aclrt_allocator_desc *d = aclrt_allocator_desc_find_locked(allocatorDesc);
    if (d != NULL)
        aclrt_registry_remove_locked(&aclrt_allocator_descs, &d->node);
    aclrt_registry_unlock(&aclrt_allocator_descs);
    if (d == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "allocatorDesc %p is not a descriptor from aclrtAllocatorCreateDesc (or was destroyed)",
                          allocatorDesc);
    free(d); /* registrations made from it keep their own copy */
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtAllocatorSetObjToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocator allocator)
{
    ACLRT_ENTER();
    return aclrt_allocator_set(allocatorDesc, ACLRT_ALLOCATOR_OBJ, allocator, aclrt_allocator_store_obj);
}

ACLRT_API aclError aclrtAllocatorSetAllocFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorAllocFunc func)
{
    ACLRT_ENTER();
    return aclrt_allocator_set(allocatorDesc, ACLRT_ALLOCATOR_ALLOC, func != NULL ? (const void *)&func : NULL,
                               aclrt_allocator_store_alloc);
}

ACLRT_API aclError aclrtAllocatorSetFreeFuncToDesc(aclrtAllocatorDesc allocatorDesc, aclrtAllocatorFreeFunc func)
{
    ACLRT_ENTER();
    return aclrt_allocator_set(allocatorDesc, ACLRT_ALLOCATOR_FREE, func != NULL ? (const void *)&func : NULL,
                               aclrt_allocator_store_free);
}

ACLRT_API aclError aclrtAllocatorSetAllocAdviseFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                          aclrtAllocatorAllocAdviseFunc func)
{
    ACLRT_ENTER();
    return aclrt_allocator_set(allocatorDesc, ACLRT_ALLOCATOR_ALLOC_ADVISE,
                               func != NULL ? (const void *)&func : NULL, aclrt_allocator_store_alloc_advise);
}

ACLRT_API aclError aclrtAllocatorSetGetAddrFromBlockFuncToDesc(aclrtAllocatorDesc allocatorDesc,
                                                               aclrtAllocatorGetAddrFromBlockFunc func)
{
    ACLRT_ENTER();
    return aclrt_allocator_set(allocatorDesc, ACLRT_ALLOCATOR_GET_ADDR_FROM_BLOCK,
                               func != NULL ? (const void *)&func : NULL, aclrt_allocator_store_get_addr);
}

ACLRT_API aclError aclrtAllocatorRegister(aclrtStream stream, aclrtAllocatorDesc allocatorDesc)
{
    ACLRT_ENTER();
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (an allocator is registered on an explicit stream)");
    if (allocatorDesc == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc is NULL");

    struct aclrt_allocator_record *rec = (struct aclrt_allocator_record *)malloc(sizeof *rec);
    if (rec == NULL)
        return aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for an allocator registration");
    rec->desc = allocatorDesc;
    aclrt_registry_lock(&aclrt_allocator_descs);
    struct aclrt_allocator_desc *d = aclrt_allocator_desc_find_locked(allocatorDesc);
    if (d != NULL)
        rec->fns = d->fns; /* a copy: later changes to the descriptor, or its destroy, do not reach it */
    aclrt_registry_unlock(&aclrt_allocator_descs);
    if (d == NULL) {
        free(rec);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM,
                          "allocatorDesc %p is not a descriptor from aclrtAllocatorCreateDesc (or was destroyed)",
                          allocatorDesc);
    }
    /* The runtime's checks, in its order; the alloc-advise function is optional. */
    const char *missing = rec->fns.obj == NULL                   ? "allocator (aclrtAllocatorSetObjToDesc)"
                          : rec->fns.alloc == NULL               ? "alloc function (aclrtAllocatorSetAllocFuncToDesc)"
                          : rec->fns.free == NULL                ? "free function (aclrtAllocatorSetFreeFuncToDesc)"
                          : rec->fns.get_addr_from_block == NULL ? "get-address-from-block function "
                                                                   "(aclrtAllocatorSetGetAddrFromBlockFuncToDesc)"
                                                                 : NULL;
    if (missing != NULL) {
        free(rec);
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc %p has no %s", allocatorDesc, missing);
    }
    if (aclrt_stream_lookup(stream) == NULL) {
        free(rec);
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "stream %p is not a live stream (destroyed, stale or garbage)",
                          stream);
    }

    uint64_t key = (uint64_t)(uintptr_t)stream;
    aclError rc = ACL_SUCCESS;
    aclrt_registry_lock(&aclrt_allocator_regs);
    aclrt_allocator_sweep_locked();
    aclrt_rcu_read_lock();
    struct aclrt_allocator_reg *r = aclrt_allocator_reg_find(key);
    aclrt_rcu_read_unlock();
    if (r != NULL) {
        /* Release: pairs with the acquire in aclrtAllocatorGetByStream; publishes the record's contents. */
        struct aclrt_allocator_record *old = atomic_exchange_explicit(&r->record, rec, memory_order_release);
        urcu_bp_synchronize_rcu(); /* no reader still copies the old record */
        ACLRT_TSAN_ACQUIRE(&aclrt_rcu_tsan_token); /* pairs with aclrt_rcu_read_unlock's release (registry.h) */
        free(old);
    } else {
        r = (struct aclrt_allocator_reg *)calloc(1, sizeof *r);
        if (r == NULL) {
            free(rec);
            rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for an allocator registration");
        } else {
            r->stream = key;
            r->node.hash = aclrt_allocator_hash(key);
            atomic_init(&r->record, rec); /* published with the node (registry.h) */
            if (aclrt_registry_add_locked(&aclrt_allocator_regs, &r->node, aclrt_allocator_stream_match, &key) !=
                &r->node) { /* the table could not be made (under the lock, nobody else adds this key) */
                free(rec);
                free(r);
                rc = aclrt_fail(ACL_ERROR_BAD_ALLOC, "out of memory for the allocator registration table");
            }
        }
    }
    aclrt_registry_unlock(&aclrt_allocator_regs);
    return rc;
}

ACLRT_API aclError aclrtAllocatorGetByStream(aclrtStream stream, aclrtAllocatorDesc *allocatorDesc,
                                             aclrtAllocator *allocator, aclrtAllocatorAllocFunc *allocFunc,
                                             aclrtAllocatorFreeFunc *freeFunc,
                                             aclrtAllocatorAllocAdviseFunc *allocAdviseFunc,
                                             aclrtAllocatorGetAddrFromBlockFunc *getAddrFromBlockFunc)
{
    ACLRT_ENTER();
    /* The runtime's order: the descriptor output first; the other outputs are optional. */
    if (allocatorDesc == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "allocatorDesc (output) is NULL");
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (an allocator is registered on an explicit stream)");
    if (aclrt_stream_lookup(stream) == NULL)
        return aclrt_fail(ACL_ERROR_RT_INVALID_HANDLE, "stream %p is not a live stream (destroyed, stale or garbage)",
                          stream);
    struct aclrt_allocator_record copy;
    aclrt_rcu_read_lock();
    struct aclrt_allocator_reg *r = aclrt_allocator_reg_find((uint64_t)(uintptr_t)stream);
    if (r != NULL)
        /* Acquire: pairs with the release exchange in aclrtAllocatorRegister (or the node's publication). */
        copy = *atomic_load_explicit(&r->record, memory_order_acquire);
    aclrt_rcu_read_unlock();
    if (r == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream %p is not registered with any allocator", stream);
    *allocatorDesc = copy.desc;
    if (allocator != NULL)
        *allocator = copy.fns.obj;
    if (allocFunc != NULL)
        *allocFunc = copy.fns.alloc;
    if (freeFunc != NULL)
        *freeFunc = copy.fns.free;
    if (allocAdviseFunc != NULL)
        *allocAdviseFunc = copy.fns.alloc_advise;
    if (getAddrFromBlockFunc != NULL)
        *getAddrFromBlockFunc = copy.fns.get_addr_from_block;
    return ACL_SUCCESS;
}

ACLRT_API aclError aclrtAllocatorUnregister(aclrtStream stream)
{
    ACLRT_ENTER();
    if (stream == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "stream is NULL (an allocator is registered on an explicit stream)");
    /* Documented: a stream with no registration, or one that does not exist, is a success that does nothing. */
    aclrt_allocator_stream_gone(stream);
    return ACL_SUCCESS;
}

#endif /* ACLRT_IMPL_MEMORY_ALLOCATOR_H */
