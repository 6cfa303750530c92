/*
 * impl/ring.h - a stream's task ring: a bounded multi-producer,
 * single-consumer ring of 64-byte task records (Concurrency Kit's ck_ring,
 * typed with CK_RING_PROTOTYPE, used in its MPSC mode).
 *
 * Positions are ck_ring's 32-bit counters, aligned with the stream's 64-bit
 * task numbers: ring position p holds task number n with (uint32_t)n == p + 1
 * (task numbers start at 1). The ring is created at the stream's current
 * completed count, so the alignment holds for a slot's every life.
 *
 * Ordering (ck_ring's own): a producer's commit is a release store of p_tail
 * after the record is written; the consumer's load of p_tail is followed by
 * an acquire fence before it copies the record. Producers commit in ticket
 * order, so the ring's order is the order of reservation, and each thread's
 * tasks appear in its program order.
 */
#ifndef ACLRT_IMPL_RING_H
#define ACLRT_IMPL_RING_H

#include "base.h"
#include "task.h"

#include <ck_pr.h>
#include <ck_ring.h>

CK_RING_PROTOTYPE(aclrt_task, aclrt_task)

struct aclrt_ring {
    struct ck_ring ring;
    struct aclrt_task *slots;
    uint32_t capacity_bytes;
};

/* (Re)initialise an empty ring whose next task is number `completed` + 1. */
ACLRT_INTERNAL bool aclrt_ring_init(struct aclrt_ring *r, uint32_t bytes, uint64_t completed)
{
    if (r->slots == NULL || r->capacity_bytes != bytes) {
        free(r->slots);
        r->slots = (struct aclrt_task *)aligned_alloc(ACLRT_CACHELINE, bytes);
        if (r->slots == NULL) {
            r->capacity_bytes = 0;
            return false;
        }
        r->capacity_bytes = bytes;
    }
    ck_ring_init(&r->ring, bytes / (uint32_t)sizeof(struct aclrt_task));
    r->ring.c_head = r->ring.p_head = r->ring.p_tail = (unsigned int)completed;
    return true;
}

/* How many tasks fit (ck_ring keeps one slot free). */
ACLRT_INLINE uint32_t aclrt_ring_capacity(const struct aclrt_ring *r)
{
    return ck_ring_capacity(&r->ring) - 1;
}

/*
 * Reserve the next slot; NULL when the ring is full. The CAS on p_head is a
 * locked RMW: on x86 it orders the caller's later loads after it (the
 * executor's idle hand-off relies on this, see aclrt_stream_kick); the
 * fence says so for other architectures.
 */
ACLRT_INLINE struct aclrt_task *aclrt_ring_reserve(struct aclrt_ring *r, unsigned int *ticket)
{
    struct aclrt_task *slot = ck_ring_enqueue_reserve_mpsc_aclrt_task(&r->ring, r->slots, ticket);
    ck_pr_fence_atomic_load();
    if (slot != NULL)
        ACLRT_TSAN_ACQUIRE(slot); /* pairs with the release after the consumer read it */
    return slot;
}

/*
 * Publish the record written into a reserved slot. Commits go in ticket
 * order, so this waits for the launchers holding earlier tickets. ck_ring
 * waits by spinning; with more launchers than CPUs the one we wait for may
 * be preempted, so after a short spin we yield the CPU to it.
 */
ACLRT_INLINE void aclrt_ring_commit(struct aclrt_ring *r, struct aclrt_task *slot, unsigned int ticket)
{
    ACLRT_TSAN_RELEASE(slot); /* pairs with the acquire in aclrt_ring_pop */
    for (unsigned spins = 0; ck_pr_load_uint(&r->ring.p_tail) != ticket; spins++) {
        if (spins < 128)
            ck_pr_stall();
        else
            sched_yield();
    }
    ck_ring_enqueue_commit_mpsc(&r->ring, ticket);
}

/* Single consumer: copy out the oldest committed record. */
ACLRT_INLINE bool aclrt_ring_pop(struct aclrt_ring *r, struct aclrt_task *out)
{
    unsigned int pos = ck_pr_load_uint(&r->ring.c_head);
    if (pos == ck_pr_load_uint(&r->ring.p_tail))
        return false;
    struct aclrt_task *slot = &r->slots[pos & r->ring.mask];
    ACLRT_TSAN_ACQUIRE(slot);
    bool ok = ck_ring_dequeue_mpsc_aclrt_task(&r->ring, r->slots, out);
    ACLRT_TSAN_RELEASE(slot); /* the slot may be reused by the next reservation */
    return ok;
}

/* Positions, as loads (32-bit, wrap-around arithmetic). */
ACLRT_INLINE unsigned int aclrt_ring_committed(const struct aclrt_ring *r)
{
    return ck_pr_load_uint(&r->ring.p_tail);
}

ACLRT_INLINE unsigned int aclrt_ring_reserved(const struct aclrt_ring *r)
{
    return ck_pr_load_uint(&r->ring.p_head);
}

ACLRT_INLINE unsigned int aclrt_ring_consumed(const struct aclrt_ring *r)
{
    return ck_pr_load_uint(&r->ring.c_head);
}

/*
 * After the caller's own seq_cst atomic (the executor's CAS to IDLE): has
 * any task been reserved that is not consumed yet? The fence orders this
 * load after that atomic (a no-op on x86, where locked RMWs are full
 * barriers). Reserved, not committed: the launcher is about to commit.
 */
ACLRT_INLINE bool aclrt_ring_reserved_since_atomic(const struct aclrt_ring *r)
{
    ck_pr_fence_atomic_load();
    return ck_pr_load_uint(&r->ring.p_head) != ck_pr_load_uint(&r->ring.c_head);
}

/*
 * The 64-bit task number of a 32-bit position, given any count `base` that
 * is at most 2^31 behind it (the stream's completed count qualifies: the ring
 * holds far fewer than 2^31 tasks).
 */
ACLRT_INLINE uint64_t aclrt_ring_extend(uint64_t base, unsigned int position)
{
    return base + (uint32_t)(position - (uint32_t)base);
}

ACLRT_INTERNAL void aclrt_ring_release(struct aclrt_ring *r)
{
    free(r->slots);
    r->slots = NULL;
    r->capacity_bytes = 0;
}

#endif /* ACLRT_IMPL_RING_H */
