/*
 * impl/model/spin_lock.h - the small lock in the slot of a model, a label
 * or a label list (model.h, label.h).
 *
 * A call takes it after its lookup and checks the handle again, so that
 * it and a destroy never cross. It is held briefly: a waiter spins a
 * while, then yields.
 */
#ifndef ACLRT_IMPL_MODEL_SPIN_LOCK_H
#define ACLRT_IMPL_MODEL_SPIN_LOCK_H

#include "../core/base.h"

/* Acquire: pairs with the release in aclrt_spin_unlock. */
ACLRT_INLINE void aclrt_spin_lock(_Atomic bool *lock)
{
    unsigned spins = 0;
    while (atomic_exchange_explicit(lock, true, memory_order_acquire)) {
        if (++spins < 64)
            aclrt_cpu_relax();
        else
            sched_yield();
    }
}

/* Release: pairs with the acquire in aclrt_spin_lock (the next holder sees our writes). */
ACLRT_INLINE void aclrt_spin_unlock(_Atomic bool *lock)
{
    atomic_store_explicit(lock, false, memory_order_release);
}

#endif /* ACLRT_IMPL_MODEL_SPIN_LOCK_H */
