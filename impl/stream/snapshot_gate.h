/*
 * impl/stream/snapshot_gate.h - the process's snapshot state (RUNNING,
 * LOCKED, BACKED_UP; impl/context/snapshot.h moves it) and the gate that
 * holds a user thread's launches, device allocations, frees and
 * synchronous copies while it is not RUNNING.
 *
 * The gate costs a submission one relaxed load of the state word in an
 * unlikely branch: no lock, no counter. A thread that passed the gate just
 * before a Lock may still land its work: Lock (and Backup again) drains
 * every device after setting the state, so such work has run before memory
 * is read, unless it was published after that drain began (a launch racing
 * the Lock call itself, as any two unordered threads).
 */
#ifndef ACLRT_IMPL_STREAM_SNAPSHOT_GATE_H
#define ACLRT_IMPL_STREAM_SNAPSHOT_GATE_H

#include "../core/base.h"
#include "../core/clock.h"
#include "../core/futex.h"
#include "../core/thread.h"

enum {
    ACLRT_SNAP_RUNNING = 0,
    ACLRT_SNAP_LOCKED = 1,
    ACLRT_SNAP_BACKED_UP = 2,
};

/* The state word; a futex word too: held threads sleep on it until it reads RUNNING again. */
static _Atomic uint32_t aclrt_snap_state;

/*
 * Slow path of the gate: wait until the process runs again. A runtime
 * thread (a task of some stream running: a host function, a host kernel, an
 * embedder's progress call) passes: its work is part of what Lock drains,
 * and holding it would make the drain wait for itself.
 */
static ACLRT_NOINLINE void aclrt_snapshot_hold(void)
{
    if (aclrt_running_stream() != NULL)
        return;
    uint32_t st;
    /* Acquire: pairs with Unlock's release store; what the snapshot calls did is visible after the hold. */
    while ((st = atomic_load_explicit(&aclrt_snap_state, memory_order_acquire)) != ACLRT_SNAP_RUNNING)
        aclrt_futex_wait(&aclrt_snap_state, st, ACLRT_NO_DEADLINE);
}

/* The gate: one relaxed load when the process runs (the submission hot path). */
ACLRT_INLINE void aclrt_snapshot_gate(void)
{
    if (ACLRT_UNLIKELY(atomic_load_explicit(&aclrt_snap_state, memory_order_relaxed) != ACLRT_SNAP_RUNNING))
        aclrt_snapshot_hold();
}

#endif /* ACLRT_IMPL_STREAM_SNAPSHOT_GATE_H */
