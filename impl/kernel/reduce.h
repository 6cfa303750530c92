/*
 * impl/kernel/reduce.h - aclrtReduceAsync, a built-in task that runs on the
 * stream like a copy.
 *
 * dst[i] = op(dst[i], src[i]) over `count` bytes of elements of one data
 * type. Sums are computed in double and rounded once to the element type
 * (round to nearest even), which is the correctly rounded IEEE sum for
 * fp32, fp16 and bf16 (double has more than 2p + 2 significand bits for each
 * of them); integer sums wrap around; MAX and MIN pick one operand (a NaN
 * operand wins; equal operands keep dst). int4 packs two signed elements per
 * byte, low nibble first. The 16-bit formats are half.h's.
 */
#ifndef ACLRT_IMPL_KERNEL_REDUCE_H
#define ACLRT_IMPL_KERNEL_REDUCE_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/half.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/stream_api.h"
#include "../memory/memory.h"

#include <math.h>

/* Element size in bytes of the types aclrtReduceAsync takes (int4: 1, two per byte); 0 for the others. */
static size_t aclrt_reduce_type_size(aclDataType type)
{
    switch (type) {
    case ACL_FLOAT:
    case ACL_INT32:
    case ACL_UINT32: return 4;
    case ACL_FLOAT16:
    case ACL_BF16:
    case ACL_INT16:
    case ACL_UINT16: return 2;
    case ACL_INT8:
    case ACL_UINT8:
    case ACL_INT4: return 1;
    default: return 0;
    }
}

#define ACLRT_REDUCE_INT(T, dst_, src_, n_, kind_)                                                   \
    do {                                                                                             \
        T *d_ = (T *)(dst_);                                                                         \
        const T *s_ = (const T *)(src_);                                                             \
        for (size_t i_ = 0; i_ < (n_); i_++) {                                                       \
            T a_ = d_[i_], b_ = s_[i_];                                                              \
            if ((kind_) == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM)                                         \
                d_[i_] = (T)((uint64_t)a_ + (uint64_t)b_); /* modular */                            \
            else if ((kind_) == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX)                                    \
                d_[i_] = b_ > a_ ? b_ : a_;                                                          \
            else                                                                                     \
                d_[i_] = b_ < a_ ? b_ : a_;                                                          \
        }                                                                                            \
    } while (0)

/* One floating-point element: `a` and `b` decoded, their encodings `ea`, `eb`; returns the result's encoding. */
static uint32_t aclrt_reduce_float(uint32_t kind, double a, double b, uint32_t ea, uint32_t eb, aclDataType type)
{
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM) {
        double s = a + b; /* exact for fp16, and a single correct rounding for the others' p <= 24 */
        if (type == ACL_FLOAT16)
            return aclrt_f16_from_double(s);
        if (type == ACL_BF16)
            return aclrt_bf16_from_double(s);
        float f = (float)s;
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        return bits;
    }
    if (isnan(a))
        return ea;
    if (isnan(b))
        return eb;
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX)
        return b > a ? eb : ea;
    return b < a ? eb : ea;
}

static int aclrt_reduce_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    uint32_t kind = t->u.reduce.kind;
    aclDataType type = (aclDataType)t->u.reduce.type;
    unsigned char *dst = (unsigned char *)t->u.reduce.dst;
    const unsigned char *src = (const unsigned char *)t->u.reduce.src;
    size_t bytes = t->u.reduce.count;
    switch (type) {
    case ACL_INT8: ACLRT_REDUCE_INT(int8_t, dst, src, bytes, kind); break;
    case ACL_UINT8: ACLRT_REDUCE_INT(uint8_t, dst, src, bytes, kind); break;
    case ACL_INT16: ACLRT_REDUCE_INT(int16_t, dst, src, bytes / 2, kind); break;
    case ACL_UINT16: ACLRT_REDUCE_INT(uint16_t, dst, src, bytes / 2, kind); break;
    case ACL_INT32: ACLRT_REDUCE_INT(int32_t, dst, src, bytes / 4, kind); break;
    case ACL_UINT32: ACLRT_REDUCE_INT(uint32_t, dst, src, bytes / 4, kind); break;
    case ACL_INT4:
        for (size_t i = 0; i < bytes; i++) {
            uint8_t out = 0;
            for (int half = 0; half < 2; half++) {
                int a = (int8_t)(uint8_t)(dst[i] << (4 - 4 * half)) >> 4; /* sign-extended nibble */
                int b = (int8_t)(uint8_t)(src[i] << (4 - 4 * half)) >> 4;
                int r = kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM ? a + b
                        : kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX ? (b > a ? b : a)
                                                                   : (b < a ? b : a);
                out |= (uint8_t)((r & 0xF) << (4 * half));
            }
            dst[i] = out;
        }
        break;
    case ACL_FLOAT16:
    case ACL_BF16:
        for (size_t i = 0; i < bytes / 2; i++) {
            uint16_t ea, eb;
            memcpy(&ea, dst + 2 * i, 2);
            memcpy(&eb, src + 2 * i, 2);
            double a = type == ACL_FLOAT16 ? aclrt_f16_to_double(ea) : aclrt_bf16_to_double(ea);
            double b = type == ACL_FLOAT16 ? aclrt_f16_to_double(eb) : aclrt_bf16_to_double(eb);
            uint16_t r = (uint16_t)aclrt_reduce_float(kind, a, b, ea, eb, type);
            memcpy(dst + 2 * i, &r, 2);
        }
        break;
    default: /* ACL_FLOAT */
        for (size_t i = 0; i < bytes / 4; i++) {
            float a, b;
            uint32_t ea, eb;
            memcpy(&a, dst + 4 * i, 4);
            memcpy(&b, src + 4 * i, 4);
            memcpy(&ea, &a, 4);
            memcpy(&eb, &b, 4);
            uint32_t r = aclrt_reduce_float(kind, a, b, ea, eb, type);
            memcpy(dst + 4 * i, &r, 4);
        }
        break;
    }
    return ACL_SUCCESS;
}

static const struct aclrt_task_kind aclrt_kind_reduce = {ACLRT_TASK_REDUCE, "reduce", aclrt_reduce_run, NULL};

/* Is [p, p + len) device memory of `dev`? Else fail with a message naming `what`. */
static aclError aclrt_reduce_device_memory(const void *p, size_t len, struct aclrt_device *dev, const char *what)
{
    struct aclrt_device *owner = aclrt_mem_device_of(p, len);
    if (owner == dev)
        return ACL_SUCCESS;
    if (owner == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s [%p, +%zu) is not device memory (aclrtMalloc or mapped)",
                          what, p, len);
    return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s %p is memory of device %u, not of the stream's device %u", what,
                      p, owner->id, dev->id);
}

ACLRT_API aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind, aclDataType type,
                                    aclrtStream stream, void *reserve)
{
    ACLRT_ENTER();
    if (dst == NULL || src == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "%s is NULL", dst == NULL ? "dst" : "src");
    if (reserve != NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "reserve is a reserved parameter and must be NULL");
    size_t elem = aclrt_reduce_type_size(type);
    if (elem == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "data type %d is not one aclrtReduceAsync supports", (int)type);
    if (count == 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count is 0");
    if (kind < ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || kind > ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "kind %d is not an aclrtReduceKind [10, 13]", (int)kind);
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && count > ((uint64_t)4 << 30))
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count %llu exceeds 4 GiB, the most a SUM reduce takes",
                          (unsigned long long)count);
    if (count > SIZE_MAX)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count %llu is larger than the address space",
                          (unsigned long long)count);
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL)
        return aclrt_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                          "ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL has no documented result; aclrt does not run it");
    if (((uintptr_t)dst | (uintptr_t)src) % elem != 0)
        return aclrt_fail(ACL_ERROR_RT_ADDR_UNALIGNED, "dst %p and src %p must be aligned to the %zu-byte element",
                          dst, src, elem);
    if (count % elem != 0)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "count %llu is not a whole number of %zu-byte elements",
                          (unsigned long long)count, elem);
    if ((rc = aclrt_reduce_device_memory(dst, (size_t)count, s->ctx->device, "dst")) != ACL_SUCCESS ||
        (rc = aclrt_reduce_device_memory(src, (size_t)count, s->ctx->device, "src")) != ACL_SUCCESS)
        return rc;
    struct aclrt_task t = {.kind = &aclrt_kind_reduce,
                           .u.reduce.dst = dst,
                           .u.reduce.src = src,
                           .u.reduce.count = (size_t)count,
                           .u.reduce.kind = (uint32_t)kind,
                           .u.reduce.type = (int32_t)type};
    return aclrt_stream_submit(s, &t, NULL);
}

#endif /* ACLRT_IMPL_KERNEL_REDUCE_H */
