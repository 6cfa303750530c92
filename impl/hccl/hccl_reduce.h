/*
 * impl/hccl/hccl_reduce.h - the element types of HCCL and the reduction of
 * one buffer into another: dst[i] = op(dst[i], src[i]).
 *
 * Shared by the in-process engine (hccl_local.h) and the MPI engine
 * (hccl_mpi.h, which hands it to MPI as a user-defined operation for the
 * types MPI cannot reduce). Integer sums and products wrap around; fp16 and
 * bf16 are computed in double and rounded once per step (half.h); MAX and MIN
 * of floating-point elements propagate a NaN operand, as the device does.
 * Types without a reduction (int128, the 8-bit float formats) have a size
 * but no operation: a reducing collective on them is HCCL_E_NOT_SUPPORT.
 */
#ifndef ACLRT_IMPL_HCCL_HCCL_REDUCE_H
#define ACLRT_IMPL_HCCL_HCCL_REDUCE_H

#include "../../hccl/hccl_types.h"
#include "../core/base.h"
#include "../core/half.h"

#include <math.h>
#include <string.h>

/* Bytes of one element; 0 for a value that names no type. */
ACLRT_INTERNAL size_t aclrt_hccl_type_size(HcclDataType type)
{
    switch (type) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_HIF8:
    case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2:
    case HCCL_DATA_TYPE_FP8E8M0: return 1;
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP64: return 8;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 0;
    }
}

ACLRT_INTERNAL const char *aclrt_hccl_type_name(HcclDataType type)
{
    switch (type) {
    case HCCL_DATA_TYPE_INT8: return "int8";
    case HCCL_DATA_TYPE_UINT8: return "uint8";
    case HCCL_DATA_TYPE_HIF8: return "hif8";
    case HCCL_DATA_TYPE_FP8E4M3: return "fp8e4m3";
    case HCCL_DATA_TYPE_FP8E5M2: return "fp8e5m2";
    case HCCL_DATA_TYPE_FP8E8M0: return "fp8e8m0";
    case HCCL_DATA_TYPE_INT16: return "int16";
    case HCCL_DATA_TYPE_UINT16: return "uint16";
    case HCCL_DATA_TYPE_FP16: return "fp16";
    case HCCL_DATA_TYPE_BFP16: return "bf16";
    case HCCL_DATA_TYPE_INT32: return "int32";
    case HCCL_DATA_TYPE_UINT32: return "uint32";
    case HCCL_DATA_TYPE_FP32: return "fp32";
    case HCCL_DATA_TYPE_INT64: return "int64";
    case HCCL_DATA_TYPE_UINT64: return "uint64";
    case HCCL_DATA_TYPE_FP64: return "fp64";
    case HCCL_DATA_TYPE_INT128: return "int128";
    default: return "unknown";
    }
}

ACLRT_INTERNAL bool aclrt_hccl_op_valid(HcclReduceOp op)
{
    return op == HCCL_REDUCE_SUM || op == HCCL_REDUCE_PROD || op == HCCL_REDUCE_MAX || op == HCCL_REDUCE_MIN;
}

ACLRT_INTERNAL bool aclrt_hccl_type_reducible(HcclDataType type)
{
    switch (type) {
    case HCCL_DATA_TYPE_INT8:
    case HCCL_DATA_TYPE_UINT8:
    case HCCL_DATA_TYPE_INT16:
    case HCCL_DATA_TYPE_UINT16:
    case HCCL_DATA_TYPE_INT32:
    case HCCL_DATA_TYPE_UINT32:
    case HCCL_DATA_TYPE_INT64:
    case HCCL_DATA_TYPE_UINT64:
    case HCCL_DATA_TYPE_FP16:
    case HCCL_DATA_TYPE_BFP16:
    case HCCL_DATA_TYPE_FP32:
    case HCCL_DATA_TYPE_FP64: return true;
    default: return false;
    }
}

/* Integers: sums and products through the unsigned type of the same width (wrap around, no UB). */
#define ACLRT_HCCL_REDUCE_INT(T, U, d_, s_, n_, op_)                                                   \
    do {                                                                                             \
        T *d = (T *)(d_);                                                                            \
        const T *s = (const T *)(s_);                                                                \
        size_t n = (n_);                                                                             \
        switch (op_) {                                                                               \
        case HCCL_REDUCE_SUM:                                                                        \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] = (T)((U)d[i] + (U)s[i]);                                                       \
            break;                                                                                   \
        case HCCL_REDUCE_PROD:                                                                       \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] = (T)((U)d[i] * (U)s[i]);                                                       \
            break;                                                                                   \
        case HCCL_REDUCE_MAX:                                                                        \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] = s[i] > d[i] ? s[i] : d[i];                                                    \
            break;                                                                                   \
        default:                                                                                     \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] = s[i] < d[i] ? s[i] : d[i];                                                    \
            break;                                                                                   \
        }                                                                                            \
    } while (0)

/* fp32 and fp64: MAX and MIN keep a NaN of either operand. */
#define ACLRT_HCCL_REDUCE_FLOAT(T, d_, s_, n_, op_)                                                   \
    do {                                                                                             \
        T *d = (T *)(d_);                                                                            \
        const T *s = (const T *)(s_);                                                                \
        size_t n = (n_);                                                                             \
        switch (op_) {                                                                               \
        case HCCL_REDUCE_SUM:                                                                        \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] += s[i];                                                                        \
            break;                                                                                   \
        case HCCL_REDUCE_PROD:                                                                       \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] *= s[i];                                                                        \
            break;                                                                                   \
        case HCCL_REDUCE_MAX:                                                                        \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] = isnan(d[i]) ? d[i] : (isnan(s[i]) || s[i] > d[i]) ? s[i] : d[i];              \
            break;                                                                                   \
        default:                                                                                     \
            for (size_t i = 0; i < n; i++)                                                           \
                d[i] = isnan(d[i]) ? d[i] : (isnan(s[i]) || s[i] < d[i]) ? s[i] : d[i];              \
            break;                                                                                   \
        }                                                                                            \
    } while (0)

static void aclrt_hccl_reduce_half(uint16_t *d, const uint16_t *s, size_t n, HcclReduceOp op, bool bf16)
{
    for (size_t i = 0; i < n; i++) {
        uint16_t ea, eb;
        memcpy(&ea, d + i, 2);
        memcpy(&eb, s + i, 2);
        double a = bf16 ? aclrt_bf16_to_double(ea) : aclrt_f16_to_double(ea);
        double b = bf16 ? aclrt_bf16_to_double(eb) : aclrt_f16_to_double(eb);
        uint16_t r;
        if (op == HCCL_REDUCE_SUM || op == HCCL_REDUCE_PROD) {
            double v = op == HCCL_REDUCE_SUM ? a + b : a * b;
            r = bf16 ? aclrt_bf16_from_double(v) : aclrt_f16_from_double(v);
        } else if (isnan(a)) {
            r = ea;
        } else if (isnan(b)) {
            r = eb;
        } else {
            r = (op == HCCL_REDUCE_MAX ? b > a : b < a) ? eb : ea;
        }
        memcpy(d + i, &r, 2);
    }
}

/* Whether two byte ranges share a byte (in-place calls, in both engines). */
ACLRT_INLINE bool aclrt_hccl_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    const char *x = (const char *)a, *y = (const char *)b;
    return alen > 0 && blen > 0 && x < y + blen && y < x + alen;
}

/* dst[i] = op(dst[i], src[i]) for `count` elements; the type must be reducible. */
ACLRT_INTERNAL void aclrt_hccl_reduce(void *dst, const void *src, size_t count, HcclDataType type, HcclReduceOp op)
{
    switch (type) {
    case HCCL_DATA_TYPE_INT8: ACLRT_HCCL_REDUCE_INT(int8_t, unsigned, dst, src, count, op); break;
    case HCCL_DATA_TYPE_UINT8: ACLRT_HCCL_REDUCE_INT(uint8_t, unsigned, dst, src, count, op); break;
    case HCCL_DATA_TYPE_INT16: ACLRT_HCCL_REDUCE_INT(int16_t, unsigned, dst, src, count, op); break;
    case HCCL_DATA_TYPE_UINT16: ACLRT_HCCL_REDUCE_INT(uint16_t, unsigned, dst, src, count, op); break;
    case HCCL_DATA_TYPE_INT32: ACLRT_HCCL_REDUCE_INT(int32_t, uint32_t, dst, src, count, op); break;
    case HCCL_DATA_TYPE_UINT32: ACLRT_HCCL_REDUCE_INT(uint32_t, uint32_t, dst, src, count, op); break;
    case HCCL_DATA_TYPE_INT64: ACLRT_HCCL_REDUCE_INT(int64_t, uint64_t, dst, src, count, op); break;
    case HCCL_DATA_TYPE_UINT64: ACLRT_HCCL_REDUCE_INT(uint64_t, uint64_t, dst, src, count, op); break;
    case HCCL_DATA_TYPE_FP32: ACLRT_HCCL_REDUCE_FLOAT(float, dst, src, count, op); break;
    case HCCL_DATA_TYPE_FP64: ACLRT_HCCL_REDUCE_FLOAT(double, dst, src, count, op); break;
    case HCCL_DATA_TYPE_FP16: aclrt_hccl_reduce_half((uint16_t *)dst, (const uint16_t *)src, count, op, false); break;
    case HCCL_DATA_TYPE_BFP16: aclrt_hccl_reduce_half((uint16_t *)dst, (const uint16_t *)src, count, op, true); break;
    default: break;
    }
}

#endif /* ACLRT_IMPL_HCCL_HCCL_REDUCE_H */
