/*
 * impl/core/fp_status.h - the calling CPU's floating-point exception flags.
 *
 * IEEE 754 arithmetic records, per thread, sticky flags for the operations
 * that produced an infinity or a NaN: overflow, division by zero, invalid
 * operation. Overflow detection (overflow.h) watches them around a host
 * kernel's blocks. They are read and written with the instructions of the
 * architecture (SSE's MXCSR, AArch64's FPSR) rather than <fenv.h>, whose
 * functions live in libm, which a program linking aclrt need not link.
 * Elsewhere ACLRT_FP_STATUS is 0 and overflow detection is not available.
 *
 * Saturation (ACL_RT_OVERFLOW_MODE_SATURATION, overflow.h) is rounding
 * toward zero: under it an operation that overflows gives the largest
 * finite value of its sign instead of an infinity (IEEE 754, 7.4). The
 * rounding mode is a control bit of the same thread: MXCSR's RC field,
 * AArch64's FPCR.RMode.
 */
#ifndef ACLRT_IMPL_CORE_FP_STATUS_H
#define ACLRT_IMPL_CORE_FP_STATUS_H

#include "base.h"

#if defined(__x86_64__) || (defined(__i386__) && defined(__SSE__))
#define ACLRT_FP_STATUS 1
/* MXCSR: invalid operation (IE), division by zero (ZE), overflow (OE). */
#define ACLRT_FP_INF_NAN_FLAGS 0x0Du
#define ACLRT_FP_ROUND_MASK 0x6000u /* MXCSR.RC */
#define ACLRT_FP_ROUND_ZERO 0x6000u

ACLRT_INLINE uint32_t aclrt_fp_status_read(void)
{
    return __builtin_ia32_stmxcsr();
}

ACLRT_INLINE void aclrt_fp_status_write(uint32_t v)
{
    __builtin_ia32_ldmxcsr(v);
}

ACLRT_INLINE uint32_t aclrt_fp_control_read(void)
{
    return __builtin_ia32_stmxcsr();
}

ACLRT_INLINE void aclrt_fp_control_write(uint32_t v)
{
    __builtin_ia32_ldmxcsr(v);
}
#elif defined(__aarch64__)
#define ACLRT_FP_STATUS 1
/* FPSR: invalid operation (IOC), division by zero (DZC), overflow (OFC). */
#define ACLRT_FP_INF_NAN_FLAGS 0x07u
#define ACLRT_FP_ROUND_MASK 0xC00000u /* FPCR.RMode */
#define ACLRT_FP_ROUND_ZERO 0xC00000u

ACLRT_INLINE uint32_t aclrt_fp_status_read(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpsr" : "=r"(v));
    return (uint32_t)v;
}

ACLRT_INLINE void aclrt_fp_status_write(uint32_t v)
{
    uint64_t w = v;
    __asm__ __volatile__("msr fpsr, %0" : : "r"(w));
}

ACLRT_INLINE uint32_t aclrt_fp_control_read(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return (uint32_t)v;
}

ACLRT_INLINE void aclrt_fp_control_write(uint32_t v)
{
    uint64_t w = v;
    __asm__ __volatile__("msr fpcr, %0" : : "r"(w));
}
#else
#define ACLRT_FP_STATUS 0
#define ACLRT_FP_INF_NAN_FLAGS 0u
#define ACLRT_FP_ROUND_MASK 0u
#define ACLRT_FP_ROUND_ZERO 0u

ACLRT_INLINE uint32_t aclrt_fp_status_read(void)
{
    return 0;
}

ACLRT_INLINE void aclrt_fp_status_write(uint32_t v)
{
    (void)v;
}

ACLRT_INLINE uint32_t aclrt_fp_control_read(void)
{
    return 0;
}

ACLRT_INLINE void aclrt_fp_control_write(uint32_t v)
{
    (void)v;
}
#endif

/*
 * Run fn(block, blocks, args) with the Inf/NaN flags cleared, and say which
 * of them it raised; with `saturate`, rounding toward zero meanwhile. The
 * flags the thread had before are put back (plus the ones raised), and its
 * rounding mode, so a program thread that helps run blocks (external
 * progress) keeps its own.
 */
ACLRT_INLINE aclError aclrt_fp_watch(aclrtxHostKernel fn, uint32_t block, uint32_t blocks, void *args, bool saturate,
                                     uint32_t *raised)
{
    uint32_t before = aclrt_fp_status_read();
    aclrt_fp_status_write(before & ~ACLRT_FP_INF_NAN_FLAGS);
    uint32_t round = 0;
    if (saturate) { /* after the flags' write: on x86 the rounding bits are in the same register */
        uint32_t ctl = aclrt_fp_control_read();
        round = ctl & ACLRT_FP_ROUND_MASK;
        aclrt_fp_control_write((ctl & ~ACLRT_FP_ROUND_MASK) | ACLRT_FP_ROUND_ZERO);
    }
    aclError rc = fn(block, blocks, args);
    if (saturate)
        aclrt_fp_control_write((aclrt_fp_control_read() & ~ACLRT_FP_ROUND_MASK) | round);
    uint32_t after = aclrt_fp_status_read();
    *raised = after & ACLRT_FP_INF_NAN_FLAGS;
    aclrt_fp_status_write(after | (before & ACLRT_FP_INF_NAN_FLAGS));
    return rc;
}

#endif /* ACLRT_IMPL_CORE_FP_STATUS_H */
