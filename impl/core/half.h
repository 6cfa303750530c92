/*
 * impl/core/half.h - the 16-bit floating-point formats, fp16 (IEEE 754
 * binary16) and bf16 (the top half of a binary32), to and from double.
 *
 * Rounding is to nearest, ties to even, done on the value's bits: the
 * result does not depend on the thread's rounding mode, and a conversion
 * raises none of the flags overflow detection watches (fp_status.h). Two
 * readings of fp16:
 *   - IEEE (the built-in tasks, reduce.h and random.h): the all-ones
 *     exponent is Inf and NaN; a value beyond the range rounds to Inf.
 *   - the runtime's conversions (aclFloatToFloat16 / aclFloat16ToFloat,
 *     sysinfo.h), which saturate: a value beyond the range, Inf and NaN
 *     become +-65504 (0x7BFF / 0xFBFF), and a half with the all-ones
 *     exponent reads as a number like the others ((1 + m / 1024) 2^16:
 *     +-Inf 65536, NaN 98304...).
 */
#ifndef ACLRT_IMPL_CORE_HALF_H
#define ACLRT_IMPL_CORE_HALF_H

#include "base.h"

#include <math.h>

#define ACLRT_F16_MAX_BITS 0x7BFFu /* 65504, the largest finite fp16 */

/* fp16 -> double; `ieee`: the all-ones exponent is Inf and NaN, else a number like the others. */
ACLRT_INTERNAL double aclrt_f16_decode(uint16_t h, bool ieee)
{
    int sign = h >> 15, e = (h >> 10) & 0x1F, m = h & 0x3FF;
    double v = e == 0 ? ldexp(m, -24) : e == 31 && ieee ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
    return sign ? -v : v;
}

ACLRT_INLINE double aclrt_f16_to_double(uint16_t h)
{
    return aclrt_f16_decode(h, true);
}

ACLRT_INTERNAL double aclrt_bf16_to_double(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/*
 * Round a double to a binary format of p significand bits, exponents
 * [emin, emax] and bias `bias`, to nearest even; the result is encoded in
 * 1 + (bits - p) + (p - 1) bits with the sign on top. `nan` is the quiet NaN.
 */
static uint16_t aclrt_round_to_format(double d, int p, int emin, int emax, int bias, uint16_t nan)
{
    int ebits_shift = p - 1;
    uint16_t sign = signbit(d) ? 0x8000 : 0;
    if (isnan(d))
        return nan;
    uint16_t inf = (uint16_t)(sign | ((uint32_t)(2 * bias + 1) << ebits_shift));
    if (isinf(d))
        return inf;
    double a = fabs(d);
    if (a == 0)
        return sign;
    int e;
    (void)frexp(a, &e);
    int E = e - 1 < emin ? emin : e - 1;
    int qt = E - (p - 1);
    double x = ldexp(a, -qt); /* exact scaling: below 2^p units of the result's last place */
    uint64_t r = (uint64_t)x;
    double rest = x - (double)r; /* exact */
    if (rest > 0.5 || (rest == 0.5 && (r & 1) != 0)) /* to nearest, ties to even */
        r++;
    if (r >> p) { /* carried into a new binade */
        r >>= 1;
        qt++;
    }
    if (r == 0)
        return sign;
    if (r < (1ull << (p - 1))) /* subnormal */
        return (uint16_t)(sign | r);
    if (qt + p - 1 > emax)
        return inf;
    return (uint16_t)(sign | ((uint32_t)(qt + p - 1 + bias) << ebits_shift) | (r & ((1ull << (p - 1)) - 1)));
}

/* double -> fp16 (IEEE): beyond the range, Inf. */
ACLRT_INTERNAL uint16_t aclrt_f16_from_double(double d)
{
    return aclrt_round_to_format(d, 11, -14, 15, 15, 0x7E00);
}

ACLRT_INTERNAL uint16_t aclrt_bf16_from_double(double d)
{
    return aclrt_round_to_format(d, 8, -126, 127, 127, 0x7FC0);
}

/* float -> fp16, saturating: beyond the range, Inf and NaN give +-65504 (the float's sign). */
ACLRT_INTERNAL uint16_t aclrt_f16_from_float_saturating(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    uint16_t sign = (uint16_t)((bits >> 31) << 15);
    if (((bits >> 23) & 0xFFu) == 0xFFu) /* Inf, NaN: by the bits (converting a signaling NaN raises a flag) */
        return (uint16_t)(sign | ACLRT_F16_MAX_BITS);
    uint16_t h = aclrt_f16_from_double(f);
    return (h & 0x7C00u) == 0x7C00u ? (uint16_t)(sign | ACLRT_F16_MAX_BITS) : h;
}

#endif /* ACLRT_IMPL_CORE_HALF_H */
