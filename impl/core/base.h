/*
 * impl/core/base.h - compiler and platform glue shared by every impl/ file.
 *
 * Internal names carry the prefix `aclrt_` (functions, types) or `ACLRT_`
 * (macros) so that a program embedding the implementation never collides
 * with them; everything here is `static`, so only the public ACL entry points
 * leave the translation unit.
 */
#ifndef ACLRT_IMPL_CORE_BASE_H
#define ACLRT_IMPL_CORE_BASE_H

/*
 * The implementation uses GNU and POSIX extensions of the C library
 * (pthread_setname_np, memfd_create, ...). aclrt.h defines _GNU_SOURCE for a
 * translation unit that defines ACLRT_IMPLEMENTATION; one that starts with an
 * impl/ header (a check, an editor) gets it here, before any system header.
 */
#if !defined(_GNU_SOURCE) && !defined(__cplusplus)
#define _GNU_SOURCE
#endif

#include "../../aclrt.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ACLRT_LIKELY(x) __builtin_expect(!!(x), 1)
#define ACLRT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define ACLRT_CACHELINE 64
#define ACLRT_ALIGNED(n) __attribute__((aligned(n)))
#define ACLRT_NOINLINE __attribute__((noinline))
#define ACLRT_UNUSED __attribute__((unused))
#define ACLRT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define ACLRT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A function's first word says who calls it (make check-layering checks it):
 *   ACLRT_API       an entry point of the API, declared in aclrt.h;
 *   ACLRT_INTERNAL  a function other files call: the file's interface;
 *   static          a function only its own file calls (and every object);
 *   ACLRT_INLINE    a short function meant to be inlined (fast paths,
 *                   accessors), whoever calls it.
 * Everything is internal to the one translation unit; the two macros are
 * also quiet when a build (a header compiled on its own) does not call one.
 */
#define ACLRT_INTERNAL static ACLRT_UNUSED
#define ACLRT_INLINE static inline ACLRT_UNUSED

/*
 * ThreadSanitizer sees C11 atomics, but not Concurrency Kit's inline-assembly
 * atomics (ck_pr). Where a hand-off goes through ck (a counter value
 * published by ck_ec), the code states the happens-before edge explicitly
 * with these two annotations.
 */
#if defined(__SANITIZE_THREAD__)
#define ACLRT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define ACLRT_TSAN 1
#endif
#endif

#ifdef ACLRT_TSAN
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
#define ACLRT_TSAN_ACQUIRE(p) __tsan_acquire((void *)(p))
#define ACLRT_TSAN_RELEASE(p) __tsan_release((void *)(p))
#else
#define ACLRT_TSAN_ACQUIRE(p) ((void)(p))
#define ACLRT_TSAN_RELEASE(p) ((void)(p))
#endif

/* One iteration of a busy-wait loop: tell the core we are spinning. */
ACLRT_INLINE void aclrt_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

ACLRT_INLINE uint64_t aclrt_min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

#endif /* ACLRT_IMPL_CORE_BASE_H */
