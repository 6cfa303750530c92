/*
 * impl/core/clock.h - time: the monotonic clock in nanoseconds and deadlines.
 *
 * Every timestamp and deadline in aclrt is CLOCK_MONOTONIC nanoseconds
 * (time since boot), so event timestamps are comparable across streams and
 * threads, and aclrtEventGetTimestamp can report microseconds since boot.
 */
#ifndef ACLRT_IMPL_CORE_CLOCK_H
#define ACLRT_IMPL_CORE_CLOCK_H

#include "base.h"

#define ACLRT_NS_PER_US 1000ull
#define ACLRT_NS_PER_MS 1000000ull
#define ACLRT_NS_PER_S 1000000000ull
#define ACLRT_NO_DEADLINE UINT64_MAX

ACLRT_INLINE uint64_t aclrt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * ACLRT_NS_PER_S + (uint64_t)ts.tv_nsec;
}

/*
 * Ticks: a timestamp for a hint between threads that compares two of them
 * taken on one CPU (how long since a wake call made there), cheaper than
 * aclrt_now_ns where that matters. On x86 the TSC, one instruction: a
 * clock_gettime on a virtual machine cost 30 - 80 ns, and 180 - 400 ns as
 * the first call on a CPU that had been idle for a millisecond (measured on
 * a 2-vCPU Xeon VM), which is where a launch wakes a sleeping executor.
 * Elsewhere the monotonic clock. Never a deadline: the rate is only
 * measured roughly (backends/host/host_executor.h).
 */
ACLRT_INLINE uint64_t aclrt_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#else
    return aclrt_now_ns();
#endif
}

ACLRT_INLINE struct timespec aclrt_timespec_from_ns(uint64_t ns)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ns / ACLRT_NS_PER_S);
    ts.tv_nsec = (long)(ns % ACLRT_NS_PER_S);
    return ts;
}

/*
 * Absolute deadline `delta_ns` from now; ACLRT_NO_DEADLINE stays infinite,
 * and a delta too large to add saturates to it instead of wrapping around
 * into the past (which would time out at once).
 */
ACLRT_INLINE uint64_t aclrt_deadline_after(uint64_t delta_ns)
{
    if (delta_ns == ACLRT_NO_DEADLINE)
        return ACLRT_NO_DEADLINE;
    uint64_t now = aclrt_now_ns();
    if (delta_ns >= ACLRT_NO_DEADLINE - now)
        return ACLRT_NO_DEADLINE;
    return now + delta_ns;
}

/*
 * The deadline of a wait that may take `timeout_ms` from now (a synchronize's
 * timeout; negative: no deadline).
 */
ACLRT_INLINE uint64_t aclrt_deadline_after_ms(int32_t timeout_ms)
{
    return timeout_ms < 0 ? ACLRT_NO_DEADLINE : aclrt_deadline_after((uint64_t)timeout_ms * ACLRT_NS_PER_MS);
}

#endif /* ACLRT_IMPL_CORE_CLOCK_H */
