/*
 * impl/core/futex.h - sleeping and waking on a 32-bit word (Linux futex).
 *
 * Process-private futexes with absolute CLOCK_MONOTONIC deadlines
 * (FUTEX_WAIT_BITSET), so a sleeper that is woken early for any reason can
 * sleep again until the same deadline without recomputing it. Words in
 * memory shared between processes (shm/) use the shared variants, which
 * the kernel keys by the memory's page rather than by this process.
 */
#ifndef ACLRT_IMPL_CORE_FUTEX_H
#define ACLRT_IMPL_CORE_FUTEX_H

#include "base.h"
#include "clock.h"

#include <linux/futex.h>
#include <sys/syscall.h>

/*
 * Sleep while *word == expected, until woken or until deadline_ns passes.
 * True if it slept and a wake call woke it (the kernel may rarely say so of
 * a spurious wake-up); false if *word differed, the deadline passed or a
 * signal came.
 */
ACLRT_INLINE bool aclrt_futex_wait(const void *word, uint32_t expected, uint64_t deadline_ns)
{
    struct timespec ts, *tsp = NULL;
    if (deadline_ns != ACLRT_NO_DEADLINE) {
        ts = aclrt_timespec_from_ns(deadline_ns);
        tsp = &ts;
    }
    return syscall(SYS_futex, word, FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG, expected, tsp, NULL,
                   FUTEX_BITSET_MATCH_ANY) == 0;
}

/* Wake up to `count` threads sleeping on word; returns how many woke. */
ACLRT_INLINE int aclrt_futex_wake(const void *word, int count)
{
    return (int)syscall(SYS_futex, word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL, NULL, 0);
}

/* aclrt_futex_wait for a word in memory shared with other processes. */
ACLRT_INLINE void aclrt_futex_wait_shared(const void *word, uint32_t expected, uint64_t deadline_ns)
{
    struct timespec ts, *tsp = NULL;
    if (deadline_ns != ACLRT_NO_DEADLINE) {
        ts = aclrt_timespec_from_ns(deadline_ns);
        tsp = &ts;
    }
    syscall(SYS_futex, word, FUTEX_WAIT_BITSET, expected, tsp, NULL, FUTEX_BITSET_MATCH_ANY);
}

/* aclrt_futex_wake for a word in memory shared with other processes: wakes sleepers in any of them. */
ACLRT_INLINE int aclrt_futex_wake_shared(const void *word, int count)
{
    return (int)syscall(SYS_futex, word, FUTEX_WAKE, count, NULL, NULL, 0);
}

#endif /* ACLRT_IMPL_CORE_FUTEX_H */
