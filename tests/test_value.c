/*
 * tests/test_value.c - pins "stream memory operations" (docs/SEMANTICS.md,
 * Stream memory operations): aclrtValueWrite / aclrtValueWait on a 64-bit
 * word, every wait condition by its truth table (GEQ as a wrap-safe signed
 * difference), waits released by the runtime's writes and by stores it
 * does not see (copies from a host thread, from a host kernel), across
 * streams and devices, a producer/consumer pipeline of host kernels, waits
 * that hold no executor, bad input with its exact codes, and aclFinalize
 * releasing waits that nothing will satisfy. The host reaches the word (device
 * memory) only through copies.
 *
 * Ordering is proven with gates and probes (tests/gate.h, tests/probe.h),
 * never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"
#include "probe.h"

#include <pthread.h>

#define POOL_EXECUTORS 2 /* ACLRT_EXECUTORS for this suite (set in main) */

static aclrtContext main_context;

/*
 * A zeroed 64-bit word of device memory (aclrtMalloc). The host never
 * dereferences it (a GPU's memory is not the CPU's): it reads and stores the
 * word with synchronous copies, which the runtime does not see as value
 * writes.
 */
static void *new_word(void)
{
    void *w = NULL;
    CHECK_OK(aclrtMalloc(&w, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(w, 64, 0, 64));
    return w;
}

static void free_word(void *w)
{
    CHECK_OK(aclrtFree(w));
}

/*
 * The word's value now: a copy to the host on a stream of its own, which
 * waits for nothing else (a synchronous copy would wait for the device's
 * running tasks, such as a closed gate).
 */
static uint64_t word_get(const void *w)
{
    uint64_t v = 0;
    aclrtStream r = new_stream();
    CHECK_OK(aclrtMemcpyAsync(&v, sizeof v, w, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST, r));
    CHECK_OK(aclrtSynchronizeStream(r));
    CHECK_OK(aclrtDestroyStream(r));
    return v;
}

/*
 * A store the runtime does not see as a value write: a copy from the host.
 * On the host backend, whose device memory is the host's, the store is an
 * atomic one instead: a waiting executor polls the word with atomic loads,
 * and a copy (memmove) under them is a data race there.
 */
static aclError word_store(void *w, uint64_t v)
{
    const char *backend = aclrtxGetBackendName();
    if (backend != NULL && strcmp(backend, "host") == 0) {
        atomic_store_explicit((_Atomic uint64_t *)w, v, memory_order_release);
        return ACL_SUCCESS;
    }
    return aclrtMemcpy(w, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE);
}

static void word_set(void *w, uint64_t v)
{
    CHECK_OK(word_store(w, v));
}

/* ------------------------------------------------------------------------ */

struct store_arg {
    void *word;
    uint64_t value;
    _Atomic aclError rc; /* the store's result */
};

static void *store_main(void *arg)
{
    struct store_arg *a = (struct store_arg *)arg;
    atomic_store(&a->rc, word_store(a->word, a->value));
    return NULL;
}

TEST(value_wait_is_released_by_a_plain_host_thread_store)
{
    static struct probe p;
    aclrtStream b = new_stream();
    void *w = new_word();
    CHECK_OK(aclrtValueWait(w, 42, ACL_STREAM_WAIT_VALUE_EQ, b));
    launch_probe(b, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
    /* The runtime never hears of this write (a copy, not a value write): the parked wait finds it by polling. */
    struct store_arg arg = {w, 42, -1};
    pthread_t th;
    CHECK_EQ(0, pthread_create(&th, NULL, store_main, &arg));
    CHECK_EQ(0, pthread_join(th, NULL));
    CHECK_OK(atomic_load(&arg.rc));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_EQ(1, atomic_load(&p.ran));
    free_word(w);
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(value_write_on_one_stream_releases_value_wait_on_another_after_the_gated_producer)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    void *w = new_word();
    CHECK_OK(aclrtValueWait(w, 1, ACL_STREAM_WAIT_VALUE_GEQ, b));
    struct gate *g = busy(a);
    launch_probe(b, &p, &g->done);
    CHECK_OK(aclrtValueWrite(w, 1, 0, a));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_EQ(0, (long long)word_get(w)); /* the write is a task behind the gate */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.saw));
    CHECK_EQ(1, (long long)word_get(w));
    CHECK_OK(aclrtSynchronizeStream(a));
    free_word(w);
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

static const struct {
    uint32_t flag;
    uint64_t word, value;
    int passes;
    uint64_t release; /* a word that makes a failing row pass */
} wait_table[] = {
    {ACL_STREAM_WAIT_VALUE_GEQ, 5, 3, 1, 0},
    {ACL_STREAM_WAIT_VALUE_GEQ, 5, 5, 1, 0},
    {ACL_STREAM_WAIT_VALUE_GEQ, 3, 5, 0, 5},
    {ACL_STREAM_WAIT_VALUE_GEQ, 0, UINT64_MAX, 1, 0},                 /* 0 - (2^64-1) = 1: wrapped, still ahead */
    {ACL_STREAM_WAIT_VALUE_GEQ, UINT64_MAX, 0, 0, 1},                 /* (int64_t)(2^64-1) = -1 */
    {ACL_STREAM_WAIT_VALUE_GEQ, 0x8000000000000000ull, 0, 0, 7},      /* difference 2^63: negative */
    {ACL_STREAM_WAIT_VALUE_GEQ, 0x7FFFFFFFFFFFFFFFull, 0, 1, 0},      /* difference 2^63-1: positive */
    {ACL_STREAM_WAIT_VALUE_EQ, 7, 7, 1, 0},
    {ACL_STREAM_WAIT_VALUE_EQ, 7, 8, 0, 8},
    {ACL_STREAM_WAIT_VALUE_AND, 0x0F, 0x01, 1, 0},
    {ACL_STREAM_WAIT_VALUE_AND, 0x0F, 0x10, 0, 0x30},
    {ACL_STREAM_WAIT_VALUE_NOR, 0, 0, 1, 0},
    {ACL_STREAM_WAIT_VALUE_NOR, UINT64_MAX, 0, 0, 0},
    {ACL_STREAM_WAIT_VALUE_NOR, 0xF0F0F0F0F0F0F0F0ull, 0x0F0F0F0F0F0F0F0Full, 0, 0},
    {ACL_STREAM_WAIT_VALUE_NOR, 0xF0F0F0F0F0F0F0F0ull, 0x0F0F0F0F0F0F0F0Eull, 1, 0},
};

TEST(value_wait_conditions_follow_their_truth_table)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    void *w = new_word();
    for (size_t i = 0; i < sizeof wait_table / sizeof wait_table[0]; i++) {
        word_set(w, wait_table[i].word);
        /* Behind a gate, so that the wait is a task that the executor evaluates. */
        struct gate *g = busy(b);
        CHECK_OK(aclrtValueWait(w, wait_table[i].value, wait_table[i].flag, b));
        launch_probe(b, &p, NULL);
        gate_open(g);
        if (!wait_table[i].passes) {
            chance(&p.ran);
            if (atomic_load(&p.ran))
                fprintf(stderr, "  (row %zu)\n", i);
            CHECK_EQ(0, atomic_load(&p.ran));
            CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
            CHECK_OK(aclrtValueWrite(w, wait_table[i].release, 0, a));
        }
        CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
        CHECK_EQ(1, atomic_load(&p.ran));
    }
    free_word(w);
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* Pipeline: the producer fills chunk i and writes ready = i + 1; the consumer waits ready >= i + 1, sums the
 * chunk and writes done = i + 1; the producer waits done >= i - 1 before reusing a buffer (two buffers). */
#define PIPE_ITERS 48
#define PIPE_WORDS 256

static int pipe_buf[2][PIPE_WORDS];
static _Atomic long pipe_sum[PIPE_ITERS];
static int pipe_iter[PIPE_ITERS];

static aclError pipe_produce(uint32_t block, uint32_t blocks, void *args)
{
    int i = *(const int *)args;
    int per = PIPE_WORDS / (int)blocks;
    for (int k = (int)block * per; k < ((int)block + 1) * per; k++)
        pipe_buf[i % 2][k] = i * 3 + k;
    return ACL_SUCCESS;
}

static aclError pipe_consume(uint32_t block, uint32_t blocks, void *args)
{
    int i = *(const int *)args;
    int per = PIPE_WORDS / (int)blocks;
    long sum = 0;
    for (int k = (int)block * per; k < ((int)block + 1) * per; k++)
        sum += pipe_buf[i % 2][k];
    atomic_fetch_add(&pipe_sum[i], sum);
    return ACL_SUCCESS;
}

TEST(producer_consumer_pipeline_of_host_kernels_with_value_write_and_wait)
{
    aclrtStream prod = new_stream(), cons = new_stream();
    void *ready = new_word(), *done = new_word();
    for (int i = 0; i < PIPE_ITERS; i++) {
        atomic_store(&pipe_sum[i], 0);
        pipe_iter[i] = i;
    }
    for (int i = 0; i < PIPE_ITERS; i++) {
        if (i >= 2)
            CHECK_OK(aclrtValueWait(done, (uint64_t)i - 1, ACL_STREAM_WAIT_VALUE_GEQ, prod));
        CHECK_OK(aclrtxLaunchHostKernel(prod, 4, pipe_produce, &pipe_iter[i]));
        CHECK_OK(aclrtValueWrite(ready, (uint64_t)i + 1, 0, prod));
        CHECK_OK(aclrtValueWait(ready, (uint64_t)i + 1, ACL_STREAM_WAIT_VALUE_GEQ, cons));
        CHECK_OK(aclrtxLaunchHostKernel(cons, 4, pipe_consume, &pipe_iter[i]));
        CHECK_OK(aclrtValueWrite(done, (uint64_t)i + 1, 0, cons));
    }
    CHECK_OK(aclrtSynchronizeStream(cons));
    CHECK_OK(aclrtSynchronizeStream(prod));
    for (int i = 0; i < PIPE_ITERS; i++) {
        long want = 0;
        for (int k = 0; k < PIPE_WORDS; k++)
            want += i * 3 + k;
        CHECK_EQ(want, atomic_load(&pipe_sum[i]));
    }
    CHECK_EQ(PIPE_ITERS, (long long)word_get(ready));
    CHECK_EQ(PIPE_ITERS, (long long)word_get(done));
    free_word(ready);
    free_word(done);
    CHECK_OK(aclrtDestroyStream(prod));
    CHECK_OK(aclrtDestroyStream(cons));
}

/* A host kernel's store: a copy to the device, which the runtime does not see as a value write. */
static aclError store_kernel(uint32_t block, uint32_t blocks, void *args)
{
    (void)blocks;
    struct store_arg *a = (struct store_arg *)args;
    return block == 0 ? word_store(a->word, a->value) : ACL_SUCCESS;
}

TEST(a_host_kernel_store_releases_a_value_wait)
{
    static struct probe p;
    static struct store_arg arg;
    aclrtStream b = new_stream(), c = new_stream();
    void *w = new_word();
    CHECK_OK(aclrtValueWait(w, 0x100, ACL_STREAM_WAIT_VALUE_AND, b));
    launch_probe(b, &p, NULL);
    struct gate *g = busy(c);
    arg.word = w;
    arg.value = 0x300;
    CHECK_OK(aclrtxLaunchHostKernel(c, 2, store_kernel, &arg));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_OK(aclrtSynchronizeStream(c)); /* the kernel's store succeeded */
    CHECK_EQ(0x300, (long long)word_get(w));
    free_word(w);
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
}

TEST(value_waits_hold_no_executor)
{
    enum { WAITERS = 3 * POOL_EXECUTORS };
    static struct probe after[WAITERS], other;
    aclrtStream s[WAITERS], free_stream = new_stream();
    void *w[WAITERS];
    for (int i = 0; i < WAITERS; i++) {
        s[i] = new_stream();
        w[i] = new_word();
        CHECK_OK(aclrtValueWait(w[i], 1, ACL_STREAM_WAIT_VALUE_EQ, s[i]));
        launch_probe(s[i], &after[i], NULL);
    }
    launch_probe(free_stream, &other, NULL);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(free_stream, 10000));
    CHECK_EQ(1, atomic_load(&other.ran));
    for (int i = 0; i < WAITERS; i++)
        CHECK_EQ(0, atomic_load(&after[i].ran));
    /* Half released by runtime writes, half by stores from the host (copies). */
    for (int i = 0; i < WAITERS; i++) {
        if (i % 2 == 0)
            CHECK_OK(aclrtValueWrite(w[i], 1, 0, free_stream));
        else
            word_set(w[i], 1);
    }
    for (int i = 0; i < WAITERS; i++) {
        CHECK_OK(aclrtSynchronizeStreamWithTimeout(s[i], 10000));
        CHECK_EQ(1, atomic_load(&after[i].ran));
        CHECK_OK(aclrtDestroyStream(s[i]));
        free_word(w[i]);
    }
    CHECK_OK(aclrtDestroyStream(free_stream));
}

TEST(a_write_through_a_stream_of_another_device_releases_a_wait_on_the_memory_s_device)
{
    static struct probe p;
    aclrtStream b = new_stream();
    void *w = new_word(); /* device 0 memory */
    CHECK_OK(aclrtValueWait(w, 5, ACL_STREAM_WAIT_VALUE_GEQ, b));
    launch_probe(b, &p, NULL);
    CHECK_OK(aclrtSetDevice(1));
    aclrtStream d1 = new_stream(); /* a stream of device 1 */
    struct gate *g = busy(d1);
    CHECK_OK(aclrtValueWrite(w, 9, 0, d1));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(d1));
    CHECK_OK(aclrtDestroyStream(d1));
    CHECK_OK(aclrtResetDevice(1));
    CHECK_OK(aclrtSetCurrentContext(main_context));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(9, (long long)word_get(w));
    free_word(w);
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(value_ops_bad_input_gets_the_documented_codes_and_writes_nothing)
{
    aclrtStream b = new_stream();
    void *w = new_word();
    word_set(w, 77);
    void *host = NULL;
    CHECK_OK(aclrtMallocHost(&host, 64));
    static _Atomic uint64_t not_ours;
    void *garbage = (void *)(uintptr_t)0x12345678u;
    char *misaligned = (char *)w + 4;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(NULL, 1, 0, b));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtValueWait(NULL, 1, 0, b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(w, 1, 1, b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait(w, 1, 4, b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(misaligned, 1, 0, b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait(misaligned, 1, 0, b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite((void *)&not_ours, 1, 0, b)); /* not device memory */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait((void *)&not_ours, 1, 0, b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(host, 1, 0, b)); /* pinned host memory */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite((char *)w + 64, 1, 0, b)); /* past the allocation */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtValueWrite(w, 1, 0, garbage));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtValueWait(w, 1, 0, garbage));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(77, (long long)word_get(w)); /* no rejected write wrote */
    CHECK_EQ(0, (long long)atomic_load(&not_ours));
    /* NULL stream: the default stream. */
    CHECK_OK(aclrtValueWrite(w, 78, 0, NULL));
    CHECK_OK(aclrtValueWait(w, 78, ACL_STREAM_WAIT_VALUE_EQ, NULL));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(78, (long long)word_get(w));
    CHECK_OK(aclrtFreeHost(host));
    free_word(w);
    CHECK_OK(aclrtDestroyStream(b));
}

/* Last: aclFinalize does not hang on a value wait that nothing will ever satisfy ((x & 0) != 0 never holds). */
TEST(finalize_releases_value_waits_that_nothing_will_satisfy)
{
    static struct probe p;
    aclrtStream b = new_stream();
    void *w = new_word();
    CHECK_OK(aclrtValueWait(w, 0, ACL_STREAM_WAIT_VALUE_AND, b));
    launch_probe(b, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(aclFinalize());
    CHECK_EQ(1, atomic_load(&p.ran)); /* released, then the stream's last task ran */
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&main_context));
}

/* ------------------------------------------------------------------------ */

#define RUN_CASE(name)    \
    do {                  \
        RUN(name);        \
        gates_open_all(); \
    } while (0)

int main(void)
{
    char v[16];
    snprintf(v, sizeof v, "%d", POOL_EXECUTORS);
    setenv("ACLRT_EXECUTORS", v, 1);
    setenv("ACLRT_DEVICES", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "value: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(value_wait_is_released_by_a_plain_host_thread_store);
    RUN_CASE(value_write_on_one_stream_releases_value_wait_on_another_after_the_gated_producer);
    RUN_CASE(value_wait_conditions_follow_their_truth_table);
    RUN_CASE(producer_consumer_pipeline_of_host_kernels_with_value_write_and_wait);
    RUN_CASE(a_host_kernel_store_releases_a_value_wait);
    RUN_CASE(value_waits_hold_no_executor);
    RUN_CASE(a_write_through_a_stream_of_another_device_releases_a_wait_on_the_memory_s_device);
    RUN_CASE(value_ops_bad_input_gets_the_documented_codes_and_writes_nothing);
    RUN_CASE(finalize_releases_value_waits_that_nothing_will_satisfy);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("value");
}
