/*
 * impl/core/spin_share.h - spinning without holding off the thread the spin
 * waits for.
 *
 * A spinning thread keeps its CPU. Where more of the runtime's threads are
 * awake than there are CPUs for them (aclrt.cpus, the process's affinity),
 * the thread that would end a spin is often queued on that very CPU behind
 * the spinner: the executor running the task a stream wait is for, the
 * executor another one lingers beside. The scheduler takes the CPU from a
 * spinner only when its slice ends (milliseconds), so the spin runs out its
 * spin_ns, sleeps, and has to be woken: a hand-off of a fraction of a
 * microsecond becomes a futex wake-up, and the thread that was kept off the
 * CPU is late by the whole spin.
 *
 * So a spin that knows its CPUs are crowded gives its CPU away
 * (sched_yield) at once, then about every ACLRT_SPIN_SHARE_NS. A thread
 * queued on the same CPU runs; with none, the call returns in a fraction of
 * a microsecond and the spin goes on. Whether the CPUs are crowded is the
 * backend's to say (the host pool counts its executors awake); spins that
 * are not crowded make no system call.
 */
#ifndef ACLRT_IMPL_CORE_SPIN_SHARE_H
#define ACLRT_IMPL_CORE_SPIN_SHARE_H

#include "base.h"
#include "clock.h"

#include <sched.h>

#define ACLRT_SPIN_SHARE_NS ACLRT_NS_PER_US

/*
 * A spin on crowded CPUs, each time it reads the clock (`now`); *next: 0 at
 * the spin's start, then when it yields next.
 */
ACLRT_INLINE void aclrt_spin_share(uint64_t now, uint64_t *next)
{
    if (now >= *next) {
        sched_yield();
        *next = aclrt_now_ns() + ACLRT_SPIN_SHARE_NS;
    }
}

#endif /* ACLRT_IMPL_CORE_SPIN_SHARE_H */
