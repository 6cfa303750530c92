/*
 * tests/test_overflow.c - pins "Overflow detection" (docs/SEMANTICS.md):
 * the device's floating-point mode (Inf/NaN only), the streams' overflow
 * switch, and the process-wide overflow status that watched host kernels
 * set and that status and reset tasks read and clear in stream order: the
 * flow of the overflow-detection sample.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <string.h>

#define STATUS_BYTES 64

static aclrtStream s;
static unsigned char *status_buf; /* device memory: STATUS_BYTES per slot, 4 slots */

/* What a kernel computes: each op reads volatile operands, so it runs when the kernel does. */
enum op { FINITE, OVERFLOW, DIVIDE_BY_ZERO, INVALID };
static volatile float big = FLT_MAX, zero = 0.0f, one = 1.0f;
static volatile float sink[8]; /* one per block: blocks may run on several threads at once */

struct compute {
    enum op op;
    uint32_t only_block; /* the block that computes `op`; the others compute FINITE */
};

static aclError compute_block(uint32_t block, uint32_t blocks, void *arg)
{
    (void)blocks;
    const struct compute *c = (const struct compute *)arg;
    enum op op = block == c->only_block ? c->op : FINITE;
    volatile float *out = &sink[block % 8];
    switch (op) {
    case FINITE: *out = one + one; break;
    case OVERFLOW: *out = big * 2.0f; break;
    case DIVIDE_BY_ZERO: *out = one / zero; break;
    case INVALID: *out = zero / zero; break;
    }
    return ACL_SUCCESS;
}

static aclError failing_block(uint32_t block, uint32_t blocks, void *arg)
{
    (void)blocks, (void)arg;
    sink[block % 8] = big * 2.0f;
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

/* The status word the last status task of slot `i` wrote; checks the other 60 bytes are zero. */
static uint32_t status_word(int i)
{
    unsigned char host[STATUS_BYTES];
    CHECK_OK(aclrtMemcpy(host, sizeof host, status_buf + i * STATUS_BYTES, STATUS_BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int b = 4; b < STATUS_BYTES; b++)
        CHECK_EQ(0, host[b]);
    uint32_t w;
    memcpy(&w, host, sizeof w);
    return w;
}

/* Fill the status slots with a pattern no status has, so a check sees what a task wrote. */
static void scribble(void)
{
    CHECK_OK(aclrtMemset(status_buf, 4 * STATUS_BYTES, 0xAB, 4 * STATUS_BYTES));
}

/* Start a case from a clean status, with the switch of s as given. */
static void fresh(uint32_t watched)
{
    CHECK_OK(aclrtSetStreamOverflowSwitch(s, watched));
    CHECK_OK(aclrtResetOverflowStatus(s));
    CHECK_OK(aclrtSynchronizeStream(s));
    scribble();
}

static uint32_t status_after(enum op op, uint32_t blocks, uint32_t only_block)
{
    static struct compute c;
    c.op = op;
    c.only_block = only_block;
    CHECK_OK(aclrtxLaunchHostKernel(s, blocks, compute_block, &c));
    CHECK_OK(aclrtGetOverflowStatus(status_buf, STATUS_BYTES, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    return status_word(0);
}

TEST(the_device_mode_is_inf_nan_until_saturation_is_set)
{
    aclrtFloatOverflowMode mode = ACL_RT_OVERFLOW_MODE_UNDEF;
    CHECK_OK(aclrtGetDeviceSatMode(&mode));
    CHECK_EQ(ACL_RT_OVERFLOW_MODE_INFNAN, mode);
    CHECK_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
    CHECK_OK(aclrtGetDeviceSatMode(&mode));
    CHECK_EQ(ACL_RT_OVERFLOW_MODE_SATURATION, mode);
    CHECK_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
    CHECK_OK(aclrtGetDeviceSatMode(&mode));
    CHECK_EQ(ACL_RT_OVERFLOW_MODE_INFNAN, mode);
}

/* What one block of a kernel on `stream` computes as FLT_MAX * 2 (the blocks of `sat_probe` store it). */
static volatile float sat_result;

static aclError sat_probe(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block, (void)blocks, (void)arg;
    sat_result = big * 2.0f;
    return ACL_SUCCESS;
}

static float overflowed_on(aclrtStream stream)
{
    sat_result = 0.0f;
    CHECK_OK(aclrtxLaunchHostKernel(stream, 1, sat_probe, NULL));
    CHECK_OK(aclrtSynchronizeStream(stream));
    return sat_result;
}

TEST(streams_made_in_saturation_mode_saturate_an_overflow_and_older_ones_do_not)
{
    aclrtStream before, after;
    CHECK_OK(aclrtCreateStream(&before));
    CHECK_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
    CHECK_OK(aclrtCreateStream(&after));
    CHECK_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
    /* The mode is the stream's from its creation: changing the device's later changes nothing. */
    CHECK(overflowed_on(after) == FLT_MAX);
    CHECK(overflowed_on(before) == INFINITY);
    CHECK(overflowed_on(s) == INFINITY);
    /* The rounding is the kernel's only: the thread that synchronized rounds to nearest still. */
    CHECK(big * 2.0f == INFINITY);
    CHECK_OK(aclrtDestroyStream(before));
    CHECK_OK(aclrtDestroyStream(after));
}

TEST(a_saturated_overflow_still_sets_the_status_of_a_watched_stream)
{
    CHECK_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_SATURATION));
    aclrtStream sat;
    CHECK_OK(aclrtCreateStream(&sat));
    CHECK_OK(aclrtSetDeviceSatMode(ACL_RT_OVERFLOW_MODE_INFNAN));
    CHECK_OK(aclrtSetStreamOverflowSwitch(sat, 1));
    CHECK_OK(aclrtResetFloatOverflowStatus(sat));
    scribble();
    CHECK(overflowed_on(sat) == FLT_MAX);
    CHECK_OK(aclrtGetFloatOverflowStatus(status_buf, STATUS_BYTES, sat));
    CHECK_OK(aclrtSynchronizeStream(sat));
    CHECK_EQ(1, status_word(0));
    /* Switch off: saturated all the same, the status untouched. */
    CHECK_OK(aclrtSetStreamOverflowSwitch(sat, 0));
    CHECK_OK(aclrtResetFloatOverflowStatus(sat));
    CHECK(overflowed_on(sat) == FLT_MAX);
    CHECK_OK(aclrtGetFloatOverflowStatus(status_buf, STATUS_BYTES, sat));
    CHECK_OK(aclrtSynchronizeStream(sat));
    CHECK_EQ(0, status_word(0));
    CHECK_OK(aclrtDestroyStream(sat));
}

TEST(the_float_and_npu_names_read_and_clear_the_same_status_in_stream_order)
{
    fresh(1);
    static struct compute c = {OVERFLOW, 0};
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, compute_block, &c));
    CHECK_OK(aclrtNpuGetFloatOverFlowStatus(status_buf, STATUS_BYTES, 0, s));
    CHECK_OK(aclrtGetFloatOverflowStatus(status_buf + STATUS_BYTES, STATUS_BYTES, s));
    CHECK_OK(aclrtNpuClearFloatOverFlowStatus(0, s));
    CHECK_OK(aclrtGetOverflowStatus(status_buf + 2 * STATUS_BYTES, STATUS_BYTES, s));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, compute_block, &c));
    CHECK_OK(aclrtResetFloatOverflowStatus(s));
    CHECK_OK(aclrtNpuGetFloatOverFlowStatus(status_buf + 3 * STATUS_BYTES, STATUS_BYTES, 1, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, status_word(0));
    CHECK_EQ(1, status_word(1));
    CHECK_EQ(0, status_word(2));
    CHECK_EQ(0, status_word(3));
    /* NULL: the default stream. */
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, compute_block, &c));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtGetFloatOverflowStatus(status_buf, STATUS_BYTES, NULL));
    CHECK_OK(aclrtNpuClearFloatOverFlowStatus(0, NULL));
    CHECK_OK(aclrtNpuGetFloatOverFlowStatus(status_buf + STATUS_BYTES, STATUS_BYTES, 0, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, status_word(0));
    CHECK_EQ(0, status_word(1));
    fresh(0);
}

TEST(the_float_and_npu_names_reject_what_get_overflow_status_rejects)
{
    unsigned char stack[STATUS_BYTES];
    scribble();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetFloatOverflowStatus(NULL, STATUS_BYTES, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNpuGetFloatOverFlowStatus(NULL, STATUS_BYTES, 0, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetFloatOverflowStatus(status_buf, 63, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNpuGetFloatOverFlowStatus(status_buf, (uint64_t)1 << 32 | 64, 0, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNpuGetFloatOverFlowStatus(stack, STATUS_BYTES, 0, s));
    aclrtStream dead;
    CHECK_OK(aclrtCreateStream(&dead));
    CHECK_OK(aclrtDestroyStream(dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetFloatOverflowStatus(status_buf, STATUS_BYTES, dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetFloatOverflowStatus(dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtNpuGetFloatOverFlowStatus(status_buf, STATUS_BYTES, 0, dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtNpuClearFloatOverFlowStatus(0, dead));
    CHECK_OK(aclrtSynchronizeStream(s));
    unsigned char host[1];
    CHECK_OK(aclrtMemcpy(host, 1, status_buf, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(0xAB, host[0]); /* nothing was written */
}

TEST(sat_mode_calls_reject_undefined_modes_and_null)
{
    aclrtFloatOverflowMode wild[] = {ACL_RT_OVERFLOW_MODE_UNDEF, (aclrtFloatOverflowMode)3,
                                     (aclrtFloatOverflowMode)-1};
    for (int i = 0; i < 3; i++)
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetDeviceSatMode(wild[i]));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceSatMode(NULL));
}

TEST(the_switch_is_off_on_a_new_stream_and_reads_back_what_was_set)
{
    aclrtStream t;
    CHECK_OK(aclrtCreateStream(&t));
    uint32_t flag = 7;
    CHECK_OK(aclrtGetStreamOverflowSwitch(t, &flag));
    CHECK_EQ(0, flag);
    CHECK_OK(aclrtSetStreamOverflowSwitch(t, 1));
    CHECK_OK(aclrtGetStreamOverflowSwitch(t, &flag));
    CHECK_EQ(1, flag);
    aclrtStreamAttrValue v;
    CHECK_OK(aclrtGetStreamAttribute(t, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    CHECK_EQ(1, v.overflowSwitch);
    v.overflowSwitch = 0;
    CHECK_OK(aclrtSetStreamAttribute(t, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    CHECK_OK(aclrtGetStreamOverflowSwitch(t, &flag));
    CHECK_EQ(0, flag);
    CHECK_OK(aclrtDestroyStream(t));
}

TEST(the_switch_takes_zero_or_one_only)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamOverflowSwitch(s, 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSetStreamOverflowSwitch(s, UINT32_MAX));
    aclrtStreamAttrValue v;
    memset(&v, 0, sizeof v);
    v.overflowSwitch = 2;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v));
    uint32_t flag = 7;
    CHECK_OK(aclrtGetStreamOverflowSwitch(s, &flag));
    CHECK_EQ(0, flag);
}

TEST(switch_calls_resolve_null_as_the_default_stream_and_reject_bad_ones)
{
    aclrtStream dflt;
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&dflt));
    CHECK_OK(aclrtSetStreamOverflowSwitch(NULL, 1));
    uint32_t flag = 0;
    CHECK_OK(aclrtGetStreamOverflowSwitch(dflt, &flag));
    CHECK_EQ(1, flag);
    CHECK_OK(aclrtSetStreamOverflowSwitch(dflt, 0));
    CHECK_OK(aclrtGetStreamOverflowSwitch(NULL, &flag));
    CHECK_EQ(0, flag);
    aclrtStream dead;
    CHECK_OK(aclrtCreateStream(&dead));
    CHECK_OK(aclrtDestroyStream(dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamOverflowSwitch(dead, 1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetStreamOverflowSwitch(dead, &flag));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetStreamOverflowSwitch(s, NULL));
}

TEST(the_status_is_zero_when_watched_kernels_compute_finite_values)
{
    fresh(1);
    CHECK_EQ(0, status_after(FINITE, 1, 0));
}

TEST(a_watched_kernel_that_overflows_sets_the_status)
{
    fresh(1);
    CHECK_EQ(1, status_after(OVERFLOW, 1, 0));
}

TEST(a_division_by_zero_sets_the_status)
{
    fresh(1);
    CHECK_EQ(1, status_after(DIVIDE_BY_ZERO, 1, 0));
}

TEST(an_invalid_operation_sets_the_status)
{
    fresh(1);
    CHECK_EQ(1, status_after(INVALID, 1, 0));
}

TEST(every_block_of_a_watched_kernel_is_watched)
{
    fresh(1);
    CHECK_EQ(1, status_after(OVERFLOW, 8, 7));
}

TEST(a_kernel_on_a_stream_with_the_switch_off_sets_nothing)
{
    fresh(0);
    CHECK_EQ(0, status_after(OVERFLOW, 4, 2));
}

TEST(status_and_reset_tasks_act_in_stream_order)
{
    fresh(1);
    static struct compute c = {OVERFLOW, 0};
    CHECK_OK(aclrtGetOverflowStatus(status_buf, STATUS_BYTES, s));                  /* before: 0 */
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, compute_block, &c));
    CHECK_OK(aclrtGetOverflowStatus(status_buf + STATUS_BYTES, STATUS_BYTES, s));   /* after the kernel: 1 */
    CHECK_OK(aclrtResetOverflowStatus(s));
    CHECK_OK(aclrtGetOverflowStatus(status_buf + 2 * STATUS_BYTES, STATUS_BYTES, s)); /* after the reset: 0 */
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, status_word(0));
    CHECK_EQ(1, status_word(1));
    CHECK_EQ(0, status_word(2));
}

TEST(the_status_is_the_processes_not_the_streams)
{
    fresh(1);
    aclrtStream other;
    CHECK_OK(aclrtCreateStream(&other));
    static struct compute c = {OVERFLOW, 0};
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, compute_block, &c));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtGetOverflowStatus(status_buf, STATUS_BYTES, other)); /* another stream, no switch */
    CHECK_OK(aclrtSynchronizeStream(other));
    CHECK_EQ(1, status_word(0));
    CHECK_OK(aclrtResetOverflowStatus(other));
    CHECK_OK(aclrtSynchronizeStream(other));
    CHECK_OK(aclrtGetOverflowStatus(status_buf, STATUS_BYTES, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(0, status_word(0));
    CHECK_OK(aclrtDestroyStream(other));
}

TEST(a_watched_kernel_that_fails_still_fails_its_task)
{
    fresh(1);
    CHECK_OK(aclrtxLaunchHostKernel(s, 2, failing_block, NULL));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
    CHECK_OK(aclrtGetOverflowStatus(status_buf, STATUS_BYTES, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, status_word(0));
}

/* Host functions run unwatched on the thread that runs the stream: they set and read its own flags. */
static void overflow_fn(void *arg)
{
    (void)arg;
    sink[0] = big * 2.0f;
}

static void read_flags_fn(void *arg)
{
    *(int *)arg = fetestexcept(FE_OVERFLOW) != 0;
}

/* Hold s with a gate, queue `fns` around a watched finite kernel, release: one thread runs them in a row. */
static void run_in_a_row(void (*before)(void *), void (*after)(void *), void *after_arg)
{
    static struct compute c = {FINITE, 0};
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtLaunchHostFunc(s, before, NULL));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, compute_block, &c));
    if (after != NULL)
        CHECK_OK(aclrtLaunchHostFunc(s, after, after_arg));
    CHECK_OK(aclrtGetOverflowStatus(status_buf, STATUS_BYTES, s));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
}

TEST(the_watch_ignores_flags_the_thread_raised_before_the_kernel)
{
    fresh(1);
    for (int i = 0; i < 8; i++) {
        run_in_a_row(overflow_fn, NULL, NULL);
        CHECK_EQ(0, status_word(0));
    }
}

TEST(the_watch_gives_the_thread_its_own_flags_back)
{
    fresh(1);
    for (int i = 0; i < 8; i++) {
        int still_set = -1;
        run_in_a_row(overflow_fn, read_flags_fn, &still_set);
        CHECK_EQ(1, still_set);
        CHECK_EQ(0, status_word(0));
    }
}

TEST(get_status_rejects_bad_addresses_sizes_and_streams)
{
    unsigned char stack[STATUS_BYTES];
    scribble();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetOverflowStatus(NULL, STATUS_BYTES, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(status_buf, 32, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(status_buf, 128, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(stack, STATUS_BYTES, s));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtGetOverflowStatus(status_buf + 4 * STATUS_BYTES - 8, STATUS_BYTES, s));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrtMalloc");
    aclrtStream dead;
    CHECK_OK(aclrtCreateStream(&dead));
    CHECK_OK(aclrtDestroyStream(dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetOverflowStatus(status_buf, STATUS_BYTES, dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetOverflowStatus(dead));
    CHECK_OK(aclrtSynchronizeStream(s));
    unsigned char host[1];
    CHECK_OK(aclrtMemcpy(host, 1, status_buf, 1, ACL_MEMCPY_DEVICE_TO_HOST));
    CHECK_EQ(0xAB, host[0]); /* nothing was written */
}

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS ||
        aclrtMalloc((void **)&status_buf, 4 * STATUS_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(the_device_mode_is_inf_nan_until_saturation_is_set);
    RUN(streams_made_in_saturation_mode_saturate_an_overflow_and_older_ones_do_not);
    RUN(a_saturated_overflow_still_sets_the_status_of_a_watched_stream);
    RUN(the_float_and_npu_names_read_and_clear_the_same_status_in_stream_order);
    RUN(the_float_and_npu_names_reject_what_get_overflow_status_rejects);
    RUN(sat_mode_calls_reject_undefined_modes_and_null);
    RUN(the_switch_is_off_on_a_new_stream_and_reads_back_what_was_set);
    RUN(the_switch_takes_zero_or_one_only);
    RUN(switch_calls_resolve_null_as_the_default_stream_and_reject_bad_ones);
    RUN(the_status_is_zero_when_watched_kernels_compute_finite_values);
    RUN(a_watched_kernel_that_overflows_sets_the_status);
    RUN(a_division_by_zero_sets_the_status);
    RUN(an_invalid_operation_sets_the_status);
    RUN(every_block_of_a_watched_kernel_is_watched);
    RUN(a_kernel_on_a_stream_with_the_switch_off_sets_nothing);
    RUN(status_and_reset_tasks_act_in_stream_order);
    RUN(the_status_is_the_processes_not_the_streams);
    RUN(a_watched_kernel_that_fails_still_fails_its_task);
    RUN(the_watch_ignores_flags_the_thread_raised_before_the_kernel);
    RUN(the_watch_gives_the_thread_its_own_flags_back);
    RUN(get_status_rejects_bad_addresses_sizes_and_streams);
    gates_open_all();
    aclrtFree(status_buf);
    aclrtDestroyStream(s);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("overflow");
}
