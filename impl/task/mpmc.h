/*
 * impl/task/mpmc.h - a bounded multi-producer, multi-consumer queue of pointers
 * (Dmitry Vyukov's design: one sequence number per cell).
 *
 * Used for the host backend's ready queues. Unlike ck_ring's MPMC mode, a
 * consumer never copies a cell it has not claimed, so there is no benign
 * data race for ThreadSanitizer to report, and every access is a C11 atomic.
 *
 * Cell i is free for the producer of position p when seq == p, and holds a
 * value for the consumer of position p when seq == p + 1; the consumer then
 * sets seq = p + capacity, freeing it for the next lap.
 */
#ifndef ACLRT_IMPL_TASK_MPMC_H
#define ACLRT_IMPL_TASK_MPMC_H

#include "../core/base.h"

struct aclrt_mpmc_cell {
    _Atomic uint64_t seq;
    void *_Atomic value;
};

struct aclrt_mpmc {
    struct aclrt_mpmc_cell *cells;
    uint64_t mask;
    _Atomic uint64_t head ACLRT_ALIGNED(ACLRT_CACHELINE); /* next position to dequeue */
    _Atomic uint64_t tail ACLRT_ALIGNED(ACLRT_CACHELINE); /* next position to enqueue */
};

/* capacity: a power of two. */
ACLRT_INTERNAL bool aclrt_mpmc_init(struct aclrt_mpmc *q, uint64_t capacity)
{
    q->cells = (struct aclrt_mpmc_cell *)calloc(capacity, sizeof *q->cells);
    if (q->cells == NULL)
        return false;
    for (uint64_t i = 0; i < capacity; i++)
        atomic_store_explicit(&q->cells[i].seq, i, memory_order_relaxed);
    q->mask = capacity - 1;
    atomic_store_explicit(&q->head, 0, memory_order_relaxed);
    atomic_store_explicit(&q->tail, 0, memory_order_relaxed);
    return true;
}

ACLRT_INTERNAL void aclrt_mpmc_destroy(struct aclrt_mpmc *q)
{
    free(q->cells);
    q->cells = NULL;
}

/* False only when full. The tail CAS is seq_cst: the producer's side of the sleep hand-off (host.h). */
ACLRT_INLINE bool aclrt_mpmc_push(struct aclrt_mpmc *q, void *value)
{
    uint64_t pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
    for (;;) {
        struct aclrt_mpmc_cell *c = &q->cells[pos & q->mask];
        /* Acquire: pairs with the consumer's release that freed the cell. */
        uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - pos);
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->tail, &pos, pos + 1, memory_order_seq_cst,
                                                      memory_order_relaxed)) {
                atomic_store_explicit(&c->value, value, memory_order_relaxed);
                /* Release: publishes the value to the consumer of this position. */
                atomic_store_explicit(&c->seq, pos + 1, memory_order_release);
                return true;
            }
        } else if (dif < 0) {
            return false;
        } else {
            pos = atomic_load_explicit(&q->tail, memory_order_relaxed);
        }
    }
}

/* NULL when empty (or when the next cell is claimed but not yet written). */
ACLRT_INLINE void *aclrt_mpmc_pop(struct aclrt_mpmc *q)
{
    uint64_t pos = atomic_load_explicit(&q->head, memory_order_relaxed);
    for (;;) {
        struct aclrt_mpmc_cell *c = &q->cells[pos & q->mask];
        /* Acquire: pairs with the producer's release of the value. */
        uint64_t seq = atomic_load_explicit(&c->seq, memory_order_acquire);
        int64_t dif = (int64_t)(seq - (pos + 1));
        if (dif == 0) {
            if (atomic_compare_exchange_weak_explicit(&q->head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                void *value = atomic_load_explicit(&c->value, memory_order_relaxed);
                /* Release: the cell is free for the producer one lap later. */
                atomic_store_explicit(&c->seq, pos + q->mask + 1, memory_order_release);
                return value;
            }
        } else if (dif < 0) {
            return NULL;
        } else {
            pos = atomic_load_explicit(&q->head, memory_order_relaxed);
        }
    }
}

/* Anything claimed by a producer and not yet by a consumer? Seq_cst (sleep hand-off). */
/* How many values are queued (a snapshot; seq_cst like aclrt_mpmc_nonempty). */
ACLRT_INLINE uint64_t aclrt_mpmc_length(struct aclrt_mpmc *q)
{
    uint64_t head = atomic_load_explicit(&q->head, memory_order_seq_cst);
    uint64_t tail = atomic_load_explicit(&q->tail, memory_order_seq_cst);
    return tail > head ? tail - head : 0;
}

ACLRT_INLINE bool aclrt_mpmc_nonempty(struct aclrt_mpmc *q)
{
    return atomic_load_explicit(&q->tail, memory_order_seq_cst) != atomic_load_explicit(&q->head, memory_order_seq_cst);
}

#endif /* ACLRT_IMPL_TASK_MPMC_H */
