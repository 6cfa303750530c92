/*
 * tests/test_builtin_task.c - the built-in tasks aclrtReduceAsync and
 * aclrtRandomNumAsync (docs/SEMANTICS.md, "Built-in tasks").
 *
 * Two devices (ACLRT_DEVICES=2, set before the first call).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "check.h"
#include "gate.h"

#include <math.h>

static aclrtStream g_stream;

static void *dev_alloc(size_t size)
{
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

/* Reduce `n` bytes of src into dst on the test stream and wait; dst/src are host buffers copied through. */
static void reduce_bytes(void *dst, const void *src, size_t n, aclrtReduceKind kind, aclDataType type)
{
    void *d = dev_alloc(n), *s = dev_alloc(n);
    CHECK_OK(aclrtMemcpy(d, n, dst, n, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy(s, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtReduceAsync(d, s, n, kind, type, g_stream, NULL));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    CHECK_OK(aclrtMemcpy(dst, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_OK(aclrtFree(d));
    CHECK_OK(aclrtFree(s));
}

/* The flow of CANN's reduce sample. */
TEST(reduce_sum_of_floats_adds_src_into_dst)
{
    float input[4] = {1.0f, 2.0f, 3.0f, 4.0f}, output[4] = {0, 0, 0, 0};
    size_t size = sizeof input;
    void *devInput = dev_alloc(size), *devOutput = dev_alloc(size);
    CHECK_OK(aclrtMemcpy(devInput, size, input, size, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtMemcpy(devOutput, size, input, size, ACL_MEMCPY_HOST_TO_DEVICE));
    CHECK_OK(aclrtReduceAsync(devOutput, devInput, size, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    CHECK_OK(aclrtMemcpy(output, size, devOutput, size, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 4; i++)
        CHECK(output[i] == 2.0f * (float)(i + 1));
    CHECK_OK(aclrtFree(devInput));
    CHECK_OK(aclrtFree(devOutput));
}

TEST(reduce_sums_round_to_nearest_even_in_each_float_format)
{
    /* fp16: 1 + 2^-11 is halfway: to 1 (even); (1 + 2^-10) + 2^-11 to 1 + 2^-9; 65504 + 65504 overflows. */
    uint16_t h_dst[3] = {0x3C00, 0x3C01, 0x7BFF}, h_src[3] = {0x1000, 0x1000, 0x7BFF};
    reduce_bytes(h_dst, h_src, sizeof h_dst, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16);
    CHECK_EQ(0x3C00, h_dst[0]);
    CHECK_EQ(0x3C02, h_dst[1]);
    CHECK_EQ(0x7C00, h_dst[2]);
    /* bf16: 1 + 2^-8 is halfway; 0.5 + -0.5 is +0; a subnormal sum stays exact. */
    uint16_t b_dst[4] = {0x3F80, 0x3F81, 0x3F00, 0x0001}, b_src[4] = {0x3B80, 0x3B80, 0xBF00, 0x0001};
    reduce_bytes(b_dst, b_src, sizeof b_dst, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_BF16);
    CHECK_EQ(0x3F80, b_dst[0]);
    CHECK_EQ(0x3F82, b_dst[1]);
    CHECK_EQ(0x0000, b_dst[2]);
    CHECK_EQ(0x0002, b_dst[3]);
    /* fp32. */
    float f_dst[2] = {1.0f, 1.0f + 0x1p-23f}, f_src[2] = {0x1p-24f, 0x1p-24f};
    reduce_bytes(f_dst, f_src, sizeof f_dst, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT);
    CHECK(f_dst[0] == 1.0f);
    CHECK(f_dst[1] == 1.0f + 0x1p-22f);
}

TEST(reduce_max_and_min_pick_the_operand_for_every_type)
{
    int8_t i8d[3] = {-5, 7, 0}, i8s[3] = {-6, 9, 0};
    reduce_bytes(i8d, i8s, sizeof i8d, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_INT8);
    CHECK(i8d[0] == -5 && i8d[1] == 9 && i8d[2] == 0);
    uint16_t u16d[2] = {1, 60000}, u16s[2] = {2, 59999};
    reduce_bytes(u16d, u16s, sizeof u16d, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_UINT16);
    CHECK(u16d[0] == 1 && u16d[1] == 59999);
    int32_t i32d[2] = {-100000, 3}, i32s[2] = {-99999, 4};
    reduce_bytes(i32d, i32s, sizeof i32d, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_INT32);
    CHECK(i32d[0] == -100000 && i32d[1] == 3);
    uint16_t h_dst[3] = {0xC000 /* -2 */, 0x3C00, 0x7E00 /* NaN */}, h_src[3] = {0xBC00 /* -1 */, 0x4000, 0x3C00};
    reduce_bytes(h_dst, h_src, sizeof h_dst, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT16);
    CHECK_EQ(0xBC00, h_dst[0]);
    CHECK_EQ(0x4000, h_dst[1]);
    CHECK_EQ(0x7E00, h_dst[2]); /* a NaN operand wins */
    float f_dst[2] = {-1.5f, 2.0f}, f_src[2] = {-2.5f, NAN};
    reduce_bytes(f_dst, f_src, sizeof f_dst, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_FLOAT);
    CHECK(f_dst[0] == -2.5f);
    CHECK(isnan(f_dst[1]));
}

TEST(reduce_integer_sums_wrap_around)
{
    int8_t i8d[2] = {127, -128}, i8s[2] = {1, -1};
    reduce_bytes(i8d, i8s, sizeof i8d, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT8);
    CHECK(i8d[0] == -128 && i8d[1] == 127);
    uint32_t u32d[2] = {0xFFFFFFFFu, 5}, u32s[2] = {2, 6};
    reduce_bytes(u32d, u32s, sizeof u32d, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_UINT32);
    CHECK(u32d[0] == 1 && u32d[1] == 11);
    int16_t i16d[1] = {-32768}, i16s[1] = {-1};
    reduce_bytes(i16d, i16s, sizeof i16d, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT16);
    CHECK(i16d[0] == 32767);
}

TEST(reduce_int4_treats_each_nibble_as_a_signed_element)
{
    /* low nibble 7 + 1 wraps to -8; high nibble -1 + -1 is -2. */
    uint8_t dst[2] = {0xF7, 0x2A}, src[2] = {0xF1, 0x1B};
    reduce_bytes(dst, src, sizeof dst, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT4);
    CHECK_EQ(0xE8, dst[0]);
    CHECK_EQ(0x35, dst[1]); /* 0xA + 0xB = -6 + -5 = -11, wraps to 5; 2 + 1 = 3 */
    uint8_t mdst[1] = {0x9F}, msrc[1] = {0x71};
    reduce_bytes(mdst, msrc, sizeof mdst, ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_INT4);
    CHECK_EQ(0x71, mdst[0]); /* max(-1, 1) = 1, max(-7, 7) = 7 */
}

TEST(reduce_runs_in_stream_order_between_copies)
{
    int32_t *pinned = NULL;
    CHECK_OK(aclrtMallocHost((void **)&pinned, 64 * sizeof(int32_t)));
    for (int i = 0; i < 64; i++)
        pinned[i] = i;
    int32_t *d = (int32_t *)dev_alloc(32 * sizeof(int32_t)), *s = (int32_t *)dev_alloc(32 * sizeof(int32_t));
    CHECK_OK(aclrtMemset(d, 32 * sizeof(int32_t), 0, 32 * sizeof(int32_t)));
    struct gate *g = launch_gate(g_stream);
    CHECK_OK(aclrtMemcpyAsync(s, 128, pinned, 128, ACL_MEMCPY_HOST_TO_DEVICE, g_stream));
    CHECK_OK(aclrtMemcpyAsync(d, 128, pinned + 32, 128, ACL_MEMCPY_HOST_TO_DEVICE, g_stream));
    CHECK_OK(aclrtReduceAsync(d, s, 128, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32, g_stream, NULL));
    CHECK_OK(aclrtMemcpyAsync(pinned, 128, d, 128, ACL_MEMCPY_DEVICE_TO_HOST, g_stream));
    int32_t d5 = -1;
    dev_peek(&d5, &d[5], sizeof d5);
    CHECK_EQ(0, d5); /* nothing has run: the gate holds the stream */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    for (int i = 0; i < 32; i++)
        CHECK_EQ(i + (32 + i), pinned[i]);
    CHECK_OK(aclrtFree(d));
    CHECK_OK(aclrtFree(s));
    CHECK_OK(aclrtFreeHost(pinned));
}

TEST(reduce_refuses_bad_arguments_with_the_runtime_s_codes)
{
    float *d = (float *)dev_alloc(64), *s = (float *)dev_alloc(64);
    static float host[16];
    int dummy;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(NULL, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(d, NULL, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, &dummy));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT64, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_DOUBLE, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, s, 0, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, s, 64, (aclrtReduceKind)9, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, s, 64, (aclrtReduceKind)14, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
             aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_ADDR_UNALIGNED,
             aclrtReduceAsync((char *)d + 2, s, 60, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, s, 62, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, s, 128, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(host, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE,
             aclrtReduceAsync(d, s, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, (aclrtStream)host, NULL));
    CHECK_OK(aclrtSetDevice(1));
    float *other = (float *)dev_alloc(64);
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtReduceAsync(d, other, 64, ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, g_stream, NULL));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "device 1");
    CHECK_OK(aclrtFree(other));
    CHECK_OK(aclrtFree(d));
    CHECK_OK(aclrtFree(s));
}

/* ------------------------------------------------------------------------ */

static aclrtRandomParaInfo value_param(const void *value, uint8_t size)
{
    aclrtRandomParaInfo p;
    memset(&p, 0, sizeof p);
    memcpy(p.valueOrAddr, value, size);
    p.size = size;
    return p;
}

static aclrtRandomParaInfo addr_param(const void *addr)
{
    aclrtRandomParaInfo p;
    memset(&p, 0, sizeof p);
    p.isAddr = 1;
    memcpy(p.valueOrAddr, &addr, sizeof addr);
    p.size = sizeof addr;
    return p;
}

static aclrtRandomNumTaskInfo task_info(aclDataType type, aclrtRandomNumFuncType func, uint64_t seed, uint64_t num,
                                        void *counter, void *result)
{
    aclrtRandomNumTaskInfo t;
    memset(&t, 0, sizeof t);
    t.dataType = type;
    t.randomNumFuncParaInfo.funcType = func;
    t.randomCounterAddr = counter;
    t.randomResultAddr = result;
    t.randomSeed = value_param(&seed, sizeof seed);
    t.randomNum = value_param(&num, sizeof num);
    return t;
}

static void set_pair(aclrtRandomNumTaskInfo *t, const void *a, const void *b, uint8_t size)
{
    t->randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = value_param(a, size);
    t->randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = value_param(b, size);
}

static void *zeroed_counter(void)
{
    void *c = dev_alloc(16);
    CHECK_OK(aclrtMemset(c, 16, 0, 16));
    return c;
}

static void run_random(const aclrtRandomNumTaskInfo *t)
{
    CHECK_OK(aclrtRandomNumAsync(t, g_stream, NULL));
    CHECK_OK(aclrtSynchronizeStream(g_stream));
}

TEST(random_words_are_philox4x32_10_matching_the_published_answers)
{
    uint64_t *dout = (uint64_t *)dev_alloc(2 * sizeof(uint64_t)), out[2]; /* device memory, its copy */
    uint32_t *dcounter = (uint32_t *)zeroed_counter(), counter[4];
    uint64_t lo = 0, hi = UINT64_MAX; /* value = d - 1 for a draw d > 0: (d * (2^64 - 1)) >> 64 */
    aclrtRandomNumTaskInfo t = task_info(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 2, dcounter, dout);
    set_pair(&t, &lo, &hi, 8);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    dev_read(counter, dcounter, sizeof counter);
    CHECK_EQ(0xe169c58d6627e8d4ull, out[0]); /* key 0, counter 0: 6627e8d5 e169c58d bc57ac4c 9b00dbd8 */
    CHECK_EQ(0x9b00dbd8bc57ac4bull, out[1]);
    CHECK(counter[0] == 1 && counter[1] == 0 && counter[2] == 0 && counter[3] == 0); /* one block used */
    CHECK_OK(aclrtMemset(dcounter, 16, 0xFF, 16));
    t = task_info(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, UINT64_MAX, 2, dcounter, dout);
    set_pair(&t, &lo, &hi, 8);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    dev_read(counter, dcounter, sizeof counter);
    CHECK_EQ(0x41c83b0e408f276cull, out[0]); /* all ones: 408f276d 41c83b0e a20bc7c6 6d5451fd */
    CHECK_EQ(0x6d5451fda20bc7c5ull, out[1]);
    CHECK(counter[0] == 0 && counter[1] == 0 && counter[2] == 0 && counter[3] == 0); /* wrapped around */
    CHECK_OK(aclrtFree(dout));
    CHECK_OK(aclrtFree(dcounter));
}

TEST(random_counter_advances_so_the_next_task_continues_the_sequence)
{
    uint32_t *whole = (uint32_t *)dev_alloc(10 * 4), *parts = (uint32_t *)dev_alloc(10 * 4);
    void *c1 = zeroed_counter(), *c2 = zeroed_counter();
    uint32_t lo = 0, hi = 0xFFFFFFFFu;
    aclrtRandomNumTaskInfo t = task_info(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 77, 10, c1, whole);
    set_pair(&t, &lo, &hi, 4);
    run_random(&t);
    /* Four values take two blocks (a draw is 64 bits): the second task starts at block 2, value 4. */
    t = task_info(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 77, 4, c2, parts);
    set_pair(&t, &lo, &hi, 4);
    run_random(&t);
    t = task_info(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 77, 6, c2, parts + 4);
    set_pair(&t, &lo, &hi, 4);
    run_random(&t);
    uint32_t w[10], pt[10], n1 = 0, n2 = 0; /* copies of the device memory */
    dev_read(w, whole, sizeof w);
    dev_read(pt, parts, sizeof pt);
    dev_read(&n1, c1, sizeof n1);
    dev_read(&n2, c2, sizeof n2);
    for (int i = 0; i < 10; i++)
        CHECK_EQ(w[i], pt[i]);
    CHECK_EQ(5, n1);
    CHECK_EQ(5, n2);
    CHECK(w[0] != w[1]);
    CHECK_OK(aclrtFree(whole));
    CHECK_OK(aclrtFree(parts));
    CHECK_OK(aclrtFree(c1));
    CHECK_OK(aclrtFree(c2));
}

TEST(random_uniform_values_lie_in_min_max_for_every_type)
{
    enum { N = 4096 };
    void *dout = dev_alloc(N * 8), *c = zeroed_counter();
    static uint64_t out[N]; /* the results, copied from the device */
    int32_t i_lo = 1, i_hi = 100;
    aclrtRandomNumTaskInfo t = task_info(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 1, N, c, dout);
    set_pair(&t, &i_lo, &i_hi, 4);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    int seen_low = 0, seen_high = 0;
    for (int i = 0; i < N; i++) {
        int32_t v = ((int32_t *)out)[i];
        CHECK(v >= 1 && v < 100);
        seen_low |= v == 1;
        seen_high |= v == 99;
    }
    CHECK(seen_low && seen_high);
    int64_t l_lo = -5000000000LL, l_hi = -4999999990LL;
    t = task_info(ACL_INT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 2, N, c, dout);
    set_pair(&t, &l_lo, &l_hi, 8);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    for (int i = 0; i < N; i++)
        CHECK(((int64_t *)out)[i] >= l_lo && ((int64_t *)out)[i] < l_hi);
    float f_lo = 3.0f, f_hi = 5.0f;
    t = task_info(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 3, N, c, dout);
    set_pair(&t, &f_lo, &f_hi, 4);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        float v = ((float *)out)[i];
        CHECK(v >= 3.0f && v < 5.0f);
        sum += v;
    }
    CHECK(fabs(sum / N - 4.0) < 0.05);
    uint16_t h_lo = 0x3C00, h_hi = 0x4000; /* fp16 [1, 2): 1024 representable values */
    t = task_info(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 4, N, c, dout);
    set_pair(&t, &h_lo, &h_hi, 2);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    for (int i = 0; i < N; i++)
        CHECK(((uint16_t *)out)[i] >= 0x3C00 && ((uint16_t *)out)[i] <= 0x3FFF);
    uint16_t b_lo = 0xC000 /* -2 */, b_hi = 0xBF80 /* -1 */;
    t = task_info(ACL_BF16, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 5, N, c, dout);
    set_pair(&t, &b_lo, &b_hi, 2);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    for (int i = 0; i < N; i++) {
        uint16_t v = ((uint16_t *)out)[i]; /* negative: -2 <= v < -1 means 0xBF80 < v <= 0xC000 */
        CHECK(v > 0xBF80 && v <= 0xC000);
    }
    uint32_t u_lo = 7, u_hi = 7; /* an empty range gives min */
    t = task_info(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 6, 16, c, dout);
    set_pair(&t, &u_lo, &u_hi, 4);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    for (int i = 0; i < 16; i++)
        CHECK_EQ(7, ((uint32_t *)out)[i]);
    CHECK_OK(aclrtFree(dout));
    CHECK_OK(aclrtFree(c));
}

TEST(random_normal_values_have_the_asked_mean_and_spread)
{
    enum { N = 20001 };
    float *dout = (float *)dev_alloc(N * sizeof(float));
    static float out[N]; /* the results, copied from the device */
    void *c = zeroed_counter();
    float mean = 3.0f, stddev = 2.0f;
    aclrtRandomNumTaskInfo t = task_info(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, 0, N, c, dout);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = value_param(&mean, 4);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = value_param(&stddev, 4);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    double sum = 0, sq = 0, far = 0;
    for (int i = 0; i < N; i++) {
        sum += out[i];
        sq += (out[i] - 3.0) * (out[i] - 3.0);
        far = fmax(far, fabs(out[i] - 3.0));
    }
    CHECK(fabs(sum / N - 3.0) < 0.05);
    CHECK(fabs(sqrt(sq / N) - 2.0) < 0.05);
    CHECK(far > 4.0); /* an untruncated normal reaches beyond two stddev */
    CHECK_OK(aclrtFree(dout));
    CHECK_OK(aclrtFree(c));
}

TEST(random_truncated_normal_stays_within_two_stddev)
{
    enum { N = 5000 };
    uint16_t *dout = (uint16_t *)dev_alloc(N * 2);
    static uint16_t out[N]; /* the results, copied from the device */
    void *c = zeroed_counter();
    uint16_t mean = 0x3F80 /* 1 */, stddev = 0x4000 /* 2 */;
    aclrtRandomNumTaskInfo t = task_info(ACL_BF16, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, 0, N, c, dout);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean = value_param(&mean, 2);
    t.randomNumFuncParaInfo.paramInfo.normalDisInfo.stddev = value_param(&stddev, 2);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    double sum = 0;
    for (int i = 0; i < N; i++) {
        uint32_t bits = (uint32_t)out[i] << 16;
        float v;
        memcpy(&v, &bits, 4);
        CHECK(v >= -3.0f && v <= 5.0f);
        sum += v;
    }
    CHECK(fabs(sum / N - 1.0) < 0.1);
    CHECK_OK(aclrtFree(dout));
    CHECK_OK(aclrtFree(c));
}

static int popcount_bytes(const uint8_t *p, size_t n)
{
    int bits = 0;
    for (size_t i = 0; i < n; i++)
        bits += __builtin_popcount(p[i]);
    return bits;
}

TEST(random_dropout_bitmask_keeps_about_one_minus_the_ratio)
{
    enum { N = 8000 };
    uint8_t *dout = (uint8_t *)dev_alloc(N / 8 + 8);
    static uint8_t out[N / 8 + 8]; /* the results, copied from the device */
    void *c = zeroed_counter();
    float ratio = 0.4f;
    aclrtRandomNumTaskInfo t = task_info(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, 0, N, c, dout);
    t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = value_param(&ratio, 4);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    int kept = popcount_bytes(out, N / 8);
    CHECK(kept > 4650 && kept < 4950);
    CHECK_OK(aclrtMemset(dout, N / 8 + 8, 0xFF, N / 8 + 8));
    t = task_info(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, 0, 13, c, dout);
    ratio = 0.0f; /* everything kept; 13 bits: bits 13..15 of the second byte stay 0, the third is untouched */
    t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = value_param(&ratio, 4);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    CHECK_EQ(0xFF, out[0]);
    CHECK_EQ(0x1F, out[1]);
    CHECK_EQ(0xFF, out[2]);
    uint16_t one = 0x3C00; /* fp16 1.0: nothing kept */
    t = task_info(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK, 0, 16, c, dout);
    t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation = value_param(&one, 2);
    run_random(&t);
    dev_read(out, dout, sizeof out);
    CHECK_EQ(0, out[0]);
    CHECK_EQ(0, out[1]);
    CHECK_OK(aclrtFree(dout));
    CHECK_OK(aclrtFree(c));
}

TEST(random_parameters_given_by_address_are_read_when_the_task_runs)
{
    uint32_t *by_addr = (uint32_t *)dev_alloc(64), *by_value = (uint32_t *)dev_alloc(64);
    uint64_t *params = (uint64_t *)dev_alloc(4 * sizeof(uint64_t));
    void *c1 = zeroed_counter(), *c2 = zeroed_counter();
    CHECK_OK(aclrtMemset(params, 4 * sizeof(uint64_t), 0, 4 * sizeof(uint64_t)));
    struct gate *g = launch_gate(g_stream);
    aclrtRandomNumTaskInfo t = task_info(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 0, c1, by_addr);
    t.randomSeed = addr_param(&params[0]);
    t.randomNum = addr_param(&params[1]);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min = addr_param(&params[2]);
    t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max = addr_param(&params[3]);
    CHECK_OK(aclrtRandomNumAsync(&t, g_stream, NULL));
    /* Written after the call, before the task runs (copied in: the stream waits for nothing else). */
    uint64_t now[4] = {99, 16, 0, 0};
    uint32_t lo_hi[2] = {10, 20};
    memcpy(&now[2], &lo_hi[0], 4);
    memcpy(&now[3], &lo_hi[1], 4);
    dev_write(params, now, sizeof now);
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(g_stream));
    uint32_t lo = 10, hi = 20;
    t = task_info(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 99, 16, c2, by_value);
    set_pair(&t, &lo, &hi, 4);
    run_random(&t);
    uint32_t got_addr[16], got_value[16];
    dev_read(got_addr, by_addr, sizeof got_addr);
    dev_read(got_value, by_value, sizeof got_value);
    for (int i = 0; i < 16; i++) {
        CHECK_EQ(got_value[i], got_addr[i]);
        CHECK(got_addr[i] >= 10 && got_addr[i] < 20);
    }
    CHECK_OK(aclrtFree(by_addr));
    CHECK_OK(aclrtFree(by_value));
    CHECK_OK(aclrtFree(params));
    CHECK_OK(aclrtFree(c1));
    CHECK_OK(aclrtFree(c2));
}

TEST(random_writes_the_parameters_to_a_given_parameter_address)
{
    uint64_t *para = (uint64_t *)dev_alloc(16);
    float *out = (float *)dev_alloc(16);
    void *c = zeroed_counter();
    float lo = -1.0f, hi = 1.0f;
    aclrtRandomNumTaskInfo t = task_info(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 4, c, out);
    set_pair(&t, &lo, &hi, 4);
    t.randomParaAddr = para;
    run_random(&t);
    uint64_t words[2];
    dev_read(words, para, sizeof words);
    float got[2];
    memcpy(&got[0], &words[0], 4);
    memcpy(&got[1], &words[1], 4);
    CHECK(got[0] == -1.0f && got[1] == 1.0f);
    CHECK_OK(aclrtFree(para));
    CHECK_OK(aclrtFree(out));
    CHECK_OK(aclrtFree(c));
}

TEST(random_refuses_bad_task_info_with_the_runtime_s_codes)
{
    float *out = (float *)dev_alloc(64);
    void *c = zeroed_counter();
    static uint8_t host[64];
    float lo = 0, hi = 1;
    int dummy;
    aclrtRandomNumTaskInfo t = task_info(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 16, c, out), bad;
    set_pair(&t, &lo, &hi, 4);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(NULL, g_stream, NULL));
    bad = t, bad.dataType = ACL_INT8;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRandomNumAsync(&bad, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&t, g_stream, &dummy));
    bad = t, bad.dataType = ACL_INT32, bad.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)4;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomCounterAddr = NULL;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomResultAddr = NULL;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomSeed.isAddr = 2;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomNum.size = 0;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 8; /* more than a float */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomCounterAddr = host;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomResultAddr = host;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    uint64_t too_many = 17; /* 68 bytes do not fit in 64 */
    bad = t, bad.randomNum = value_param(&too_many, 8);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    bad = t, bad.randomSeed = addr_param(host);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtRandomNumAsync(&bad, g_stream, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRandomNumAsync(&t, (aclrtStream)host, NULL));
    uint32_t blocks = 1;
    dev_read(&blocks, c, sizeof blocks);
    CHECK_EQ(0, blocks); /* nothing ran */
    CHECK_OK(aclrtFree(out));
    CHECK_OK(aclrtFree(c));
}

TEST(random_count_read_by_address_that_overflows_the_result_fails_the_task)
{
    float *out = (float *)dev_alloc(64);
    uint64_t *num = (uint64_t *)dev_alloc(8);
    void *c = zeroed_counter();
    uint64_t thousand = 1000;
    dev_write(num, &thousand, sizeof thousand);
    float lo = 0, hi = 1;
    aclrtRandomNumTaskInfo t = task_info(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, 0, 0, c, out);
    set_pair(&t, &lo, &hi, 4);
    t.randomNum = addr_param(num);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtRandomNumAsync(&t, s, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStream(s));
    uint32_t blocks = 1;
    dev_read(&blocks, c, sizeof blocks);
    CHECK_EQ(0, blocks);
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtFree(out));
    CHECK_OK(aclrtFree(num));
    CHECK_OK(aclrtFree(c));
}

/* The shapes CANN's random number sample uses: uninitialised task infos, parameters set field by field. */
TEST(the_random_sample_flow_fills_each_distribution)
{
    uint64_t num = 128;
    void *out = dev_alloc(num * sizeof(uint64_t)), *counter = dev_alloc(16);
    CHECK_OK(aclrtMemset(counter, 16, 0, 16));
    aclrtRandomNumTaskInfo info;
    memset(&info, 0xA5, sizeof info); /* the sample leaves reserved bytes uninitialised */
    info.dataType = ACL_INT32;
    info.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS;
    info.randomParaAddr = NULL;
    info.randomCounterAddr = counter;
    info.randomResultAddr = out;
    int32_t min = 1, max = 100;
    uint64_t seed = 0;
    /* The sample stores through casts of valueOrAddr (misaligned); memcpy writes the same bytes. */
    memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.valueOrAddr, &min, sizeof min);
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.size = sizeof(int32_t);
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min.isAddr = 0;
    memcpy(info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.valueOrAddr, &max, sizeof max);
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = sizeof(int32_t);
    info.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.isAddr = 0;
    memcpy(info.randomSeed.valueOrAddr, &seed, 8);
    info.randomSeed.size = sizeof(uint64_t);
    info.randomSeed.isAddr = 0;
    memcpy(info.randomNum.valueOrAddr, &num, 8);
    info.randomNum.size = sizeof(uint64_t);
    info.randomNum.isAddr = 0;
    run_random(&info);
    int32_t got[128]; /* the results, copied from the device */
    dev_read(got, out, sizeof got);
    for (uint64_t i = 0; i < num; i++)
        CHECK(got[i] >= 1 && got[i] < 100);
    /* Dropout as the sample writes it: the ratio's size set through the normal-distribution member. */
    aclrtRandomNumTaskInfo drop;
    memset(&drop, 0, sizeof drop);
    drop.dataType = ACL_FLOAT;
    drop.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK;
    drop.randomCounterAddr = counter;
    drop.randomResultAddr = out;
    float ratio = 0.4f;
    memcpy(drop.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation.valueOrAddr, &ratio, 4);
    drop.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean.size = sizeof(float);
    drop.randomNumFuncParaInfo.paramInfo.normalDisInfo.mean.isAddr = 0;
    memcpy(drop.randomSeed.valueOrAddr, &seed, 8);
    drop.randomSeed.size = 8;
    memcpy(drop.randomNum.valueOrAddr, &num, 8);
    drop.randomNum.size = 8;
    run_random(&drop);
    uint8_t mask[128 / 8];
    dev_read(mask, out, sizeof mask);
    int kept = popcount_bytes(mask, num / 8);
    CHECK(kept > 40 && kept < 110);
    CHECK_OK(aclrtFree(out));
    CHECK_OK(aclrtFree(counter));
}

#define RUN_CASE(name)    \
    do {                  \
        RUN(name);        \
        gates_open_all(); \
    } while (0)

int main(void)
{
    setenv("ACLRT_DEVICES", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS) {
        fprintf(stderr, "builtin_task: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(reduce_sum_of_floats_adds_src_into_dst);
    RUN_CASE(reduce_sums_round_to_nearest_even_in_each_float_format);
    RUN_CASE(reduce_max_and_min_pick_the_operand_for_every_type);
    RUN_CASE(reduce_integer_sums_wrap_around);
    RUN_CASE(reduce_int4_treats_each_nibble_as_a_signed_element);
    RUN_CASE(reduce_runs_in_stream_order_between_copies);
    RUN_CASE(reduce_refuses_bad_arguments_with_the_runtime_s_codes);
    RUN_CASE(random_words_are_philox4x32_10_matching_the_published_answers);
    RUN_CASE(random_counter_advances_so_the_next_task_continues_the_sequence);
    RUN_CASE(random_uniform_values_lie_in_min_max_for_every_type);
    RUN_CASE(random_normal_values_have_the_asked_mean_and_spread);
    RUN_CASE(random_truncated_normal_stays_within_two_stddev);
    RUN_CASE(random_dropout_bitmask_keeps_about_one_minus_the_ratio);
    RUN_CASE(random_parameters_given_by_address_are_read_when_the_task_runs);
    RUN_CASE(random_writes_the_parameters_to_a_given_parameter_address);
    RUN_CASE(random_refuses_bad_task_info_with_the_runtime_s_codes);
    RUN_CASE(random_count_read_by_address_that_overflows_the_result_fails_the_task);
    RUN_CASE(the_random_sample_flow_fills_each_distribution);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("builtin_task");
}
