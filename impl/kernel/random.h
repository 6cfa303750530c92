/*
 * impl/kernel/random.h - aclrtRandomNumAsync, a built-in task that runs on
 * the stream like a copy.
 *
 * Philox4x32-10, key = the 64-bit seed (low word first), counter = the
 * 128 bits at randomCounterAddr (little endian). Block j of the task is
 * Philox(counter + j), four 32-bit words w[4j..4j+3]; when the task is
 * done, counter + (blocks used) is written back, so the next task goes on
 * where this one stopped. How words become values (docs/SEMANTICS.md):
 *   draw k          d_k = w[2k] | w[2k+1] << 32
 *   uniform, float  min + (max - min) * (d_k >> 11) * 2^-53, rounded to the
 *                   type; a value rounded up to max becomes the largest one
 *                   below it ([min, max)); max <= min gives min
 *   uniform, int    min + ((d_k * (max - min)) >> 64)  ([min, max))
 *   normal          Box-Muller on draw pairs: u1 = ((d_2p >> 11) + 1) 2^-53,
 *                   u2 = (d_2p+1 >> 11) 2^-53, z = sqrt(-2 ln u1) (cos, sin)
 *                   (2 pi u2), both used in order; mean + stddev * z
 *   truncated       the same normals, skipping those with |z| > 2
 *   dropout bitmask bit i (byte i / 8, low bit first) is 1, kept, when
 *                   (w[i] >> 8) 2^-24 >= ratio; unused high bits of the last
 *                   byte are 0
 * Parameters given by address (isAddr = 1) are read when the task runs.
 * The 16-bit formats are half.h's.
 */
#ifndef ACLRT_IMPL_KERNEL_RANDOM_H
#define ACLRT_IMPL_KERNEL_RANDOM_H

#include "../core/base.h"
#include "../core/error.h"
#include "../core/half.h"
#include "../core/thread.h"
#include "../task/task.h"
#include "../../backends/backend.h"
#include "../runtime/runtime.h"
#include "../stream/stream.h"
#include "../stream/stream_submit.h"
#include "../context/stream_api.h"
#include "../memory/memory.h"

#include <math.h>

/* Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3"). */
static void aclrt_philox4x32_10(const uint32_t ctr_in[4], const uint32_t key_in[2], uint32_t out[4])
{
    uint32_t c[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
    uint32_t k0 = key_in[0], k1 = key_in[1];
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = (uint32_t)p1;
        c[2] = n2;
        c[3] = (uint32_t)p0;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    memcpy(out, c, sizeof c);
}

__extension__ typedef unsigned __int128 aclrt_u128;

struct aclrt_random_stream {
    uint32_t ctr[4], key[2];
    uint32_t words[4];
    unsigned used; /* words of `words` handed out; 4: the next word starts a block */
    uint64_t blocks;
};

static uint32_t aclrt_random_word(struct aclrt_random_stream *r)
{
    if (r->used == 4) {
        aclrt_philox4x32_10(r->ctr, r->key, r->words);
        r->blocks++;
        for (int i = 0; i < 4 && ++r->ctr[i] == 0; i++) /* 128-bit increment */
            ;
        r->used = 0;
    }
    return r->words[r->used++];
}

static uint64_t aclrt_random_draw(struct aclrt_random_stream *r)
{
    uint64_t lo = aclrt_random_word(r);
    return lo | (uint64_t)aclrt_random_word(r) << 32;
}

static double aclrt_random_unit(uint64_t d) /* [0, 1) */
{
    return (double)(d >> 11) * 0x1p-53;
}

/* What aclrtRandomNumAsync copied from the task info; freed by the task. */
struct aclrt_random_job {
    uint32_t func;
    aclDataType type;
    size_t elem;               /* bytes of a value (dropout: of the ratio; the results are bits) */
    aclrtRandomParaInfo p[2];  /* ratio | min, max | mean, stddev */
    aclrtRandomParaInfo seed, num;
    void *result, *counter;
    size_t result_room;        /* bytes of device memory from result to the end of its allocation */
};

static uint64_t aclrt_random_param_bits(const aclrtRandomParaInfo *p, size_t value_size)
{
    uint64_t v = 0;
    if (p->isAddr) {
        const void *addr;
        memcpy(&addr, p->valueOrAddr, sizeof addr);
        memcpy(&v, addr, value_size); /* read when the task runs */
    } else
        memcpy(&v, p->valueOrAddr, p->size);
    return v;
}

/* A parameter of the job's floating-point type as a double. */
static double aclrt_random_param_real(const struct aclrt_random_job *j, const aclrtRandomParaInfo *p)
{
    uint64_t bits = aclrt_random_param_bits(p, j->elem);
    if (j->type == ACL_FLOAT16)
        return aclrt_f16_to_double((uint16_t)bits);
    if (j->type == ACL_BF16)
        return aclrt_bf16_to_double((uint16_t)bits);
    float f;
    uint32_t b32 = (uint32_t)bits;
    memcpy(&f, &b32, sizeof f);
    return f;
}

static void aclrt_random_store_real(const struct aclrt_random_job *j, size_t i, double v)
{
    unsigned char *out = (unsigned char *)j->result + i * j->elem;
    if (j->type == ACL_FLOAT) {
        float f = (float)v;
        memcpy(out, &f, 4);
    } else {
        uint16_t h = j->type == ACL_FLOAT16 ? aclrt_f16_from_double(v) : aclrt_bf16_from_double(v);
        memcpy(out, &h, 2);
    }
}

/* The value of the job's float type just below `max` (same format), as a double. */
static double aclrt_random_below(const struct aclrt_random_job *j, double max)
{
    if (j->type == ACL_FLOAT)
        return nextafterf((float)max, -INFINITY);
    uint16_t bits = j->type == ACL_FLOAT16 ? aclrt_f16_from_double(max) : aclrt_bf16_from_double(max);
    bits = (bits & 0x8000) ? (uint16_t)(bits + 1) : (uint16_t)(bits == 0 ? 0x8001 : bits - 1);
    return j->type == ACL_FLOAT16 ? aclrt_f16_to_double(bits) : aclrt_bf16_to_double(bits);
}

static void aclrt_random_uniform_real(const struct aclrt_random_job *j, struct aclrt_random_stream *r, uint64_t n)
{
    double min = aclrt_random_param_real(j, &j->p[0]), max = aclrt_random_param_real(j, &j->p[1]);
    for (uint64_t i = 0; i < n; i++) {
        double x = aclrt_random_unit(aclrt_random_draw(r));
        double v = min;
        if (max > min) {
            v = min + (max - min) * x;
            /* Round as the store will, and keep the result below max. */
            double stored = j->type == ACL_FLOAT      ? (double)(float)v
                            : j->type == ACL_FLOAT16 ? aclrt_f16_to_double(aclrt_f16_from_double(v))
                                                     : aclrt_bf16_to_double(aclrt_bf16_from_double(v));
            if (stored >= max)
                v = aclrt_random_below(j, max);
        }
        aclrt_random_store_real(j, (size_t)i, v);
    }
}

static void aclrt_random_uniform_int(const struct aclrt_random_job *j, struct aclrt_random_stream *r, uint64_t n)
{
    uint64_t lo = aclrt_random_param_bits(&j->p[0], j->elem), hi = aclrt_random_param_bits(&j->p[1], j->elem);
    bool is_signed = j->type == ACL_INT32 || j->type == ACL_INT64;
    if (j->elem == 4) { /* widen 32-bit values, with their sign */
        lo = is_signed ? (uint64_t)(int64_t)(int32_t)lo : (uint32_t)lo;
        hi = is_signed ? (uint64_t)(int64_t)(int32_t)hi : (uint32_t)hi;
    }
    bool empty = is_signed ? (int64_t)hi <= (int64_t)lo : hi <= lo;
    uint64_t range = empty ? 0 : hi - lo;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t d = aclrt_random_draw(r);
        uint64_t v = lo + (uint64_t)(((aclrt_u128)d * range) >> 64);
        memcpy((unsigned char *)j->result + i * j->elem, &v, j->elem); /* little endian: the low bytes */
    }
}

static void aclrt_random_normal(const struct aclrt_random_job *j, struct aclrt_random_stream *r, uint64_t n,
                                bool truncated)
{
    double mean = aclrt_random_param_real(j, &j->p[0]), stddev = aclrt_random_param_real(j, &j->p[1]);
    uint64_t i = 0;
    while (i < n) {
        double u1 = (double)((aclrt_random_draw(r) >> 11) + 1) * 0x1p-53; /* (0, 1] */
        double u2 = aclrt_random_unit(aclrt_random_draw(r));
        double radius = sqrt(-2.0 * log(u1)), angle = 2.0 * M_PI * u2;
        double z[2] = {radius * cos(angle), radius * sin(angle)};
        for (int k = 0; k < 2 && i < n; k++)
            if (!truncated || fabs(z[k]) <= 2.0)
                aclrt_random_store_real(j, (size_t)i++, mean + stddev * z[k]);
    }
}

static void aclrt_random_dropout(const struct aclrt_random_job *j, struct aclrt_random_stream *r, uint64_t n)
{
    double ratio = aclrt_random_param_real(j, &j->p[0]);
    unsigned char *out = (unsigned char *)j->result;
    memset(out, 0, (size_t)((n + 7) / 8));
    for (uint64_t i = 0; i < n; i++)
        if ((double)(aclrt_random_word(r) >> 8) * 0x1p-24 >= ratio)
            out[i / 8] |= (unsigned char)(1u << (i % 8));
}

/* Bytes the result of `n` values takes. */
static uint64_t aclrt_random_result_bytes(const struct aclrt_random_job *j, uint64_t n)
{
    if (j->func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK)
        return n / 8 + (n % 8 != 0);
    return n > UINT64_MAX / j->elem ? UINT64_MAX : n * j->elem;
}

static int aclrt_random_run(struct aclrt_stream *s, struct aclrt_task *t, struct aclrt_block *blk)
{
    (void)s, (void)blk;
    struct aclrt_random_job *j = t->u.random.job;
    t->u.random.job = NULL;
    uint64_t n = aclrt_random_param_bits(&j->num, sizeof(uint64_t));
    if (aclrt_random_result_bytes(j, n) > j->result_room) {
        free(j);
        return ACL_ERROR_RT_PARAM_INVALID; /* a count read from device memory that the result cannot hold */
    }
    uint64_t seed = aclrt_random_param_bits(&j->seed, sizeof(uint64_t));
    struct aclrt_random_stream r = {.key = {(uint32_t)seed, (uint32_t)(seed >> 32)}, .used = 4};
    memcpy(r.ctr, j->counter, sizeof r.ctr);
    switch (j->func) {
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK: aclrt_random_dropout(j, &r, n); break;
    case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
        if (j->type == ACL_FLOAT || j->type == ACL_FLOAT16 || j->type == ACL_BF16)
            aclrt_random_uniform_real(j, &r, n);
        else
            aclrt_random_uniform_int(j, &r, n);
        break;
    default: aclrt_random_normal(j, &r, n, j->func == ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS); break;
    }
    memcpy(j->counter, r.ctr, sizeof r.ctr); /* the counter after the blocks used */
    free(j);
    return ACL_SUCCESS;
}

static void aclrt_random_drop(struct aclrt_task *t)
{
    free(t->u.random.job);
    t->u.random.job = NULL;
}

static const struct aclrt_task_kind aclrt_kind_random = {ACLRT_TASK_RANDOM, "random numbers", aclrt_random_run,
                                                         aclrt_random_drop};

/* Bytes of device memory of `dev` from p to the end of its allocation; 0 if p is not such memory. */
static size_t aclrt_random_room(const void *p, struct aclrt_device *dev)
{
    struct aclrt_allocation e;
    if (!aclrt_mem_find(p, &e) || e.kind == ACLRT_MEM_HOST || e.device != dev)
        return 0;
    return e.size - ((uintptr_t)p - e.base);
}

/* Validate one parameter (the runtime's rules), and an address one points to. */
static aclError aclrt_random_param_check(const aclrtRandomParaInfo *p, size_t value_size, const char *name,
                                         struct aclrt_device *dev)
{
    if (p->isAddr != 0 && p->isAddr != 1)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s.isAddr %u must be 0 (a value) or 1 (an address)", name,
                          p->isAddr);
    size_t most = p->isAddr ? sizeof(uint64_t) : value_size;
    if (p->size == 0 || p->size > most)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s.size %u must be in [1, %zu]", name, p->size, most);
    if (p->isAddr) {
        void *addr;
        memcpy(&addr, p->valueOrAddr, sizeof addr);
        if (aclrt_mem_device_of(addr, value_size) != dev)
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "%s is given by address %p, which is not %zu bytes of the stream's device memory", name,
                              addr, value_size);
    }
    return ACL_SUCCESS;
}

static size_t aclrt_random_type_size(aclDataType type)
{
    switch (type) {
    case ACL_INT32:
    case ACL_UINT32:
    case ACL_FLOAT: return 4;
    case ACL_INT64:
    case ACL_UINT64: return 8;
    case ACL_BF16:
    case ACL_FLOAT16: return 2;
    default: return 0;
    }
}

ACLRT_API aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream,
                                       void *reserve)
{
    ACLRT_ENTER();
    if (taskInfo == NULL)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "taskInfo is NULL");
    size_t elem = aclrt_random_type_size(taskInfo->dataType);
    if (elem == 0)
        return aclrt_fail(ACL_ERROR_INVALID_PARAM, "taskInfo->dataType %d is not one random numbers can have",
                          (int)taskInfo->dataType);
    if (reserve != NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "reserve is a reserved parameter and must be NULL");
    struct aclrt_stream *s;
    aclError rc = aclrt_stream_resolve(stream, true, &s);
    if (rc != ACL_SUCCESS)
        return rc;
    struct aclrt_device *dev = s->ctx->device;
    uint32_t func = (uint32_t)taskInfo->randomNumFuncParaInfo.funcType;
    bool real = elem != 8 && taskInfo->dataType != ACL_INT32 && taskInfo->dataType != ACL_UINT32;
    if (func > ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "funcType %u is not an aclrtRandomNumFuncType", func);
    if (func != ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS && !real)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "funcType %u takes bf16, fp16 or fp32, not data type %d", func,
                          (int)taskInfo->dataType);
    if (taskInfo->randomCounterAddr == NULL || taskInfo->randomResultAddr == NULL)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID, "%s is NULL",
                          taskInfo->randomCounterAddr == NULL ? "randomCounterAddr" : "randomResultAddr");
    aclrtRandomParaInfo p[2];
    memset(p, 0, sizeof p);
    if (func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
        p[0] = taskInfo->randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation;
    } else if (func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
        p[0] = taskInfo->randomNumFuncParaInfo.paramInfo.uniformDisInfo.min;
        p[1] = taskInfo->randomNumFuncParaInfo.paramInfo.uniformDisInfo.max;
    } else {
        p[0] = taskInfo->randomNumFuncParaInfo.paramInfo.normalDisInfo.mean;
        p[1] = taskInfo->randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev;
    }
    static const char *const names[4][2] = {
        {"dropoutRation", ""}, {"min", "max"}, {"mean", "stddev"}, {"mean", "stddev"}};
    if ((rc = aclrt_random_param_check(&taskInfo->randomSeed, sizeof(uint64_t), "randomSeed", dev)) != ACL_SUCCESS ||
        (rc = aclrt_random_param_check(&taskInfo->randomNum, sizeof(uint64_t), "randomNum", dev)) != ACL_SUCCESS ||
        (rc = aclrt_random_param_check(&p[0], elem, names[func][0], dev)) != ACL_SUCCESS)
        return rc;
    if (func != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK &&
        (rc = aclrt_random_param_check(&p[1], elem, names[func][1], dev)) != ACL_SUCCESS)
        return rc;
    if (aclrt_random_room(taskInfo->randomCounterAddr, dev) < 16)
        return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                          "randomCounterAddr %p is not 16 bytes of the stream's device memory",
                          taskInfo->randomCounterAddr);
    struct aclrt_random_job *j = (struct aclrt_random_job *)calloc(1, sizeof *j);
    if (j == NULL)
        return aclrt_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory for a random number task");
    j->func = func;
    j->type = taskInfo->dataType;
    j->elem = elem;
    j->p[0] = p[0];
    j->p[1] = p[1];
    j->seed = taskInfo->randomSeed;
    j->num = taskInfo->randomNum;
    j->result = taskInfo->randomResultAddr;
    j->counter = taskInfo->randomCounterAddr;
    j->result_room = aclrt_random_room(j->result, dev);
    if (!j->num.isAddr) {
        uint64_t n = aclrt_random_param_bits(&j->num, sizeof(uint64_t));
        if (aclrt_random_result_bytes(j, n) > j->result_room) {
            free(j);
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "randomResultAddr %p does not start %llu values' worth of the stream's device memory",
                              taskInfo->randomResultAddr, (unsigned long long)n);
        }
    }
    if (taskInfo->randomParaAddr != NULL) {
        /* The runtime writes the two distribution parameters (8 bytes each, as given) there at the call. */
        if (aclrt_random_room(taskInfo->randomParaAddr, dev) < 16) {
            free(j);
            return aclrt_fail(ACL_ERROR_RT_PARAM_INVALID,
                              "randomParaAddr %p is not 16 bytes of the stream's device memory",
                              taskInfo->randomParaAddr);
        }
        uint64_t params[2] = {0, 0};
        memcpy(&params[0], p[0].valueOrAddr, p[0].size);
        memcpy(&params[1], p[1].valueOrAddr, p[1].size);
        /* Device memory: through the backend's copy where the host may not address it. */
        aclError crc = aclrt_rt.backend->mem_copy != NULL
                           ? aclrt_rt.backend->mem_copy(taskInfo->randomParaAddr, params, sizeof params,
                                                        ACL_MEMCPY_HOST_TO_DEVICE)
                           : (memcpy(taskInfo->randomParaAddr, params, sizeof params), ACL_SUCCESS);
        if (crc != ACL_SUCCESS) {
            free(j);
            return crc;
        }
    }
    struct aclrt_task t = {.kind = &aclrt_kind_random, .u.random.job = j};
    rc = aclrt_stream_submit(s, &t, NULL);
    if (rc != ACL_SUCCESS)
        free(j);
    return rc;
}

#endif /* ACLRT_IMPL_KERNEL_RANDOM_H */
