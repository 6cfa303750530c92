/*
 * tests/hccl_ref.h - element values of every HCCL data type for the HCCL
 * tests, and the reference results they are checked against. Values are
 * small integers (1..4 per rank), exact in every type, so a sum or a product
 * of 4 ranks is exact in bf16 too; integers wrap as the type does.
 * Include after check.h.
 */
#ifndef ACLRT_TESTS_HCCL_REF_H
#define ACLRT_TESTS_HCCL_REF_H

#include "hccl/hccl_types.h"

#include <stdint.h>
#include <string.h>

static const HcclDataType all_types[] = {
    HCCL_DATA_TYPE_INT8,   HCCL_DATA_TYPE_INT16,  HCCL_DATA_TYPE_INT32,   HCCL_DATA_TYPE_FP16,    HCCL_DATA_TYPE_FP32,
    HCCL_DATA_TYPE_INT64,  HCCL_DATA_TYPE_UINT64, HCCL_DATA_TYPE_UINT8,   HCCL_DATA_TYPE_UINT16,  HCCL_DATA_TYPE_UINT32,
    HCCL_DATA_TYPE_FP64,   HCCL_DATA_TYPE_BFP16,  HCCL_DATA_TYPE_INT128,  HCCL_DATA_TYPE_HIF8,    HCCL_DATA_TYPE_FP8E4M3,
    HCCL_DATA_TYPE_FP8E5M2, HCCL_DATA_TYPE_FP8E8M0};
#define NTYPES (sizeof all_types / sizeof all_types[0])

static size_t type_size(HcclDataType t)
{
    switch (t) {
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
    default: return 1;
    }
}

static int reducible(HcclDataType t)
{
    return t != HCCL_DATA_TYPE_INT128 && t != HCCL_DATA_TYPE_HIF8 && t != HCCL_DATA_TYPE_FP8E4M3 &&
           t != HCCL_DATA_TYPE_FP8E5M2 && t != HCCL_DATA_TYPE_FP8E8M0;
}

/* fp16 of a small non-negative integer (exact below 2048). */
static uint16_t f16_of(long v)
{
    if (v == 0)
        return 0;
    int e = 0;
    while ((1L << (e + 1)) <= v)
        e++;
    uint16_t mant = (uint16_t)(((v << 10) >> e) & 0x3FF);
    return (uint16_t)(((e + 15) << 10) | mant);
}

static long f16_val(uint16_t h)
{
    int e = (h >> 10) & 0x1F;
    long m = (h & 0x3FF) | 0x400;
    return e == 0 ? 0 : e >= 25 ? m << (e - 25) : m >> (25 - e);
}

static void put(HcclDataType t, void *base, size_t i, long v)
{
    unsigned char *p = (unsigned char *)base + i * type_size(t);
    switch (t) {
    case HCCL_DATA_TYPE_FP16: {
        uint16_t h = f16_of(v);
        memcpy(p, &h, 2);
        break;
    }
    case HCCL_DATA_TYPE_BFP16: {
        float f = (float)v;
        uint32_t b;
        memcpy(&b, &f, 4);
        uint16_t h = (uint16_t)(b >> 16);
        memcpy(p, &h, 2);
        break;
    }
    case HCCL_DATA_TYPE_FP32: {
        float f = (float)v;
        memcpy(p, &f, 4);
        break;
    }
    case HCCL_DATA_TYPE_FP64: {
        double d = (double)v;
        memcpy(p, &d, 8);
        break;
    }
    default: { /* integers: the low bytes of a 64-bit value (wrap around), int128 sign-extended */
        int64_t x = v;
        size_t n = type_size(t) < 8 ? type_size(t) : 8;
        memcpy(p, &x, n);
        if (type_size(t) == 16)
            memset(p + 8, v < 0 ? 0xFF : 0, 8);
        break;
    }
    }
}

static long get(HcclDataType t, const void *base, size_t i)
{
    const unsigned char *p = (const unsigned char *)base + i * type_size(t);
    switch (t) {
    case HCCL_DATA_TYPE_FP16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return f16_val(h);
    }
    case HCCL_DATA_TYPE_BFP16: {
        uint16_t h;
        memcpy(&h, p, 2);
        uint32_t b = (uint32_t)h << 16;
        float f;
        memcpy(&f, &b, 4);
        return (long)f;
    }
    case HCCL_DATA_TYPE_FP32: {
        float f;
        memcpy(&f, p, 4);
        return (long)f;
    }
    case HCCL_DATA_TYPE_FP64: {
        double d;
        memcpy(&d, p, 8);
        return (long)d;
    }
    default: {
        uint64_t x = 0;
        memcpy(&x, p, type_size(t) < 8 ? type_size(t) : 8);
        return (long)x;
    }
    }
}

/* What `v` reads back as in type t (integers wrap to the type's width). */
static long as_type(HcclDataType t, long v)
{
    unsigned char tmp[16];
    put(t, tmp, 0, v);
    return get(t, tmp, 0);
}

/* The value rank r holds at element i: 1..4, so products of 4 ranks stay exact in bf16. */
static long val(int r, size_t i)
{
    return 1 + (long)((r * 7 + i * 3) % 4);
}

static long ref_reduce(HcclReduceOp op, size_t i, int nranks)
{
    long acc = val(0, i);
    for (int r = 1; r < nranks; r++) {
        long v = val(r, i);
        acc = op == HCCL_REDUCE_SUM ? acc + v : op == HCCL_REDUCE_PROD ? acc * v : op == HCCL_REDUCE_MAX ? (v > acc ? v : acc)
                                                                                                          : (v < acc ? v : acc);
    }
    return acc;
}

#endif /* ACLRT_TESTS_HCCL_REF_H */
