/*
 * impl/shm/side_table.h - side tables: the segment (segment.h) an object of
 * a handle table uses, by the object's slot index (an IPC event's), and
 * the entries that hold one (an IPC notify's own).
 *
 * An entry holds a reference of the segment. Entries are read inside an
 * RCU read section (registry.h) and cleared before a grace period, so a
 * racing reader of a stale handle never touches an unmapped header.
 */
#ifndef ACLRT_IMPL_SHM_SIDE_TABLE_H
#define ACLRT_IMPL_SHM_SIDE_TABLE_H

#include "../core/base.h"
#include "../core/handle.h"
#include "../core/registry.h"
#include "segment.h"

struct aclrt_ipc_side {
    _Atomic(_Atomic(struct aclrt_ipc_seg *) *) chunks[ACLRT_TABLE_MAX_CHUNKS];
};

/* The segments of IPC events, by the event's slot (event.h). */
static struct aclrt_ipc_side aclrt_ipc_events;

/* The entry of slot `index` (made on first use); NULL: out of memory. */
static _Atomic(struct aclrt_ipc_seg *) *aclrt_ipc_side_entry(struct aclrt_ipc_side *side, uint32_t index, bool make)
{
    uint32_t c = index >> ACLRT_TABLE_CHUNK_SHIFT;
    if (c >= ACLRT_TABLE_MAX_CHUNKS)
        return NULL;
    /* Acquire: pairs with the release CAS that installed the chunk (zeroed). */
    _Atomic(struct aclrt_ipc_seg *) *chunk = atomic_load_explicit(&side->chunks[c], memory_order_acquire);
    if (chunk == NULL) {
        if (!make)
            return NULL;
        _Atomic(struct aclrt_ipc_seg *) *fresh =
            (_Atomic(struct aclrt_ipc_seg *) *)calloc(ACLRT_TABLE_CHUNK, sizeof *fresh);
        if (fresh == NULL)
            return NULL;
        /* Release: pairs with the acquire load above. */
        if (atomic_compare_exchange_strong_explicit(&side->chunks[c], &chunk, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            chunk = fresh;
        else
            free(fresh);
    }
    return &chunk[index & (ACLRT_TABLE_CHUNK - 1)];
}

/* Attach seg to slot `index` (its reference moves to the entry). False: out of memory. */
ACLRT_INTERNAL bool aclrt_ipc_side_set(struct aclrt_ipc_side *side, uint32_t index, struct aclrt_ipc_seg *seg)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, true);
    if (e == NULL)
        return false;
    /* Release: pairs with aclrt_ipc_side_get's acquire; the segment is set up before it is seen. */
    atomic_store_explicit(e, seg, memory_order_release);
    return true;
}

/*
 * The segment an entry holds, with a reference of the caller's, or NULL.
 * The caller checks afterwards that the object is still the life it meant
 * (a stale handle may find a later life's segment) and drops the reference.
 */
ACLRT_INTERNAL struct aclrt_ipc_seg *aclrt_ipc_entry_get(_Atomic(struct aclrt_ipc_seg *) *e)
{
    aclrt_rcu_read_lock();
    /* Acquire: pairs with the release store of aclrt_ipc_side_set. */
    struct aclrt_ipc_seg *seg = atomic_load_explicit(e, memory_order_acquire);
    if (seg != NULL)
        aclrt_ipc_seg_ref(seg); /* the entry's reference is held until a grace period after it is cleared */
    aclrt_rcu_read_unlock();
    return seg;
}

/* Detach an entry's segment and drop its reference: after a grace period (no reader is still taking one), or at once. */
ACLRT_INTERNAL void aclrt_ipc_entry_clear(_Atomic(struct aclrt_ipc_seg *) *e, bool grace)
{
    /* Acq_rel: acquires the setter's release (the segment's fields), and no reader takes it after this. */
    struct aclrt_ipc_seg *seg = atomic_exchange_explicit(e, NULL, memory_order_acq_rel);
    if (seg == NULL)
        return;
    aclrt_ipc_seg_close_key(seg); /* the object is gone: its key opens nothing, even while tasks hold the segment */
    if (grace) {
        urcu_bp_synchronize_rcu();
        ACLRT_TSAN_ACQUIRE(&aclrt_rcu_tsan_token); /* pairs with aclrt_rcu_read_unlock's release (registry.h) */
    }
    aclrt_ipc_seg_unref(seg);
}

/* The segment of slot `index` (see aclrt_ipc_entry_get). */
ACLRT_INTERNAL struct aclrt_ipc_seg *aclrt_ipc_side_get(struct aclrt_ipc_side *side, uint32_t index)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, false);
    return e != NULL ? aclrt_ipc_entry_get(e) : NULL;
}

/* Detach slot `index`'s segment and drop the entry's reference at once (aclFinalize: no reader is left). */
ACLRT_INTERNAL void aclrt_ipc_side_drop(struct aclrt_ipc_side *side, uint32_t index)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, false);
    if (e != NULL)
        aclrt_ipc_entry_clear(e, false);
}

/* Detach slot `index`'s segment and drop the entry's reference once no reader can still be taking one. */
ACLRT_INTERNAL void aclrt_ipc_side_clear(struct aclrt_ipc_side *side, uint32_t index)
{
    _Atomic(struct aclrt_ipc_seg *) *e = aclrt_ipc_side_entry(side, index, false);
    if (e != NULL)
        aclrt_ipc_entry_clear(e, true);
}

#endif /* ACLRT_IMPL_SHM_SIDE_TABLE_H */
