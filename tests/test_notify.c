/*
 * tests/test_notify.c - pins "notifies" and "counting notifies"
 * (docs/SEMANTICS.md, Notifies, Counting notifies): one record releases
 * exactly one wait, waits enqueued before their record, records kept until a
 * wait or a reset takes them, destroy with pending waits, every counting-notify
 * record and wait mode by its truth table, isClear, reset in stream order,
 * producer/consumer pipelines of host kernels, timeouts, waits that hold no
 * executor, bad input with its exact codes, ids and the quota.
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
#define MAX_NOTIFIES 24  /* ACLRT_MAX_NOTIFIES for this suite */

static aclrtContext main_context;

static aclrtNotify new_notify(void)
{
    aclrtNotify n = NULL;
    CHECK_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    CHECK(n != NULL);
    return n;
}

static aclrtCntNotify new_cnt(void)
{
    aclrtCntNotify c = NULL;
    CHECK_OK(aclrtCntNotifyCreate(&c, 0));
    CHECK(c != NULL);
    return c;
}

static aclError cnt_record(aclrtCntNotify c, aclrtStream s, aclrtCntNotifyRecordMode mode, uint32_t value)
{
    aclrtCntNotifyRecordInfo info = {mode, value};
    return aclrtCntNotifyRecord(c, s, &info);
}

static aclError cnt_wait(aclrtCntNotify c, aclrtStream s, aclrtCntNotifyWaitMode mode, uint32_t value, uint32_t timeout,
                         int clear)
{
    aclrtCntNotifyWaitInfo info;
    memset(&info, 0, sizeof info);
    info.mode = mode;
    info.value = value;
    info.timeout = timeout;
    info.isClear = (uint8_t)clear;
    return aclrtCntNotifyWaitWithTimeout(c, s, &info);
}

/* The counter holds `value`: an EQUAL wait on an idle stream passes (a blocked one would time out here). */
static void check_counter(aclrtCntNotify c, aclrtStream s, uint32_t value)
{
    CHECK_OK(cnt_wait(c, s, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, value, 0, 0));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, 10000));
}

/* ------------------------------------------------------------------------
 * Notifies
 * ------------------------------------------------------------------------ */

TEST(wait_enqueued_before_its_record_runs_after_the_gated_producer)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtNotify n = new_notify();
    CHECK_OK(aclrtWaitAndResetNotify(n, b, 0)); /* first: nothing recorded yet */
    struct gate *g = busy(a);
    launch_probe(b, &p, &g->done);
    CHECK_OK(aclrtRecordNotify(n, a)); /* behind the gate */
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(1, atomic_load(&p.saw)); /* the producer's gated task had finished */
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(one_record_releases_exactly_one_of_two_waits)
{
    static struct probe p1, p2;
    aclrtStream a = new_stream(), b1 = new_stream(), b2 = new_stream();
    aclrtNotify n = new_notify();
    CHECK_OK(aclrtWaitAndResetNotify(n, b1, 0));
    launch_probe(b1, &p1, NULL);
    CHECK_OK(aclrtWaitAndResetNotify(n, b2, 0));
    launch_probe(b2, &p2, NULL);
    chance(&p1.ran);
    CHECK_EQ(0, atomic_load(&p1.ran) + atomic_load(&p2.ran));
    CHECK_OK(aclrtRecordNotify(n, a));
    /* One of them runs... */
    for (long i = 0; i < 20000000L && atomic_load(&p1.ran) + atomic_load(&p2.ran) == 0; i++)
        sched_yield();
    struct probe *released = atomic_load(&p1.ran) ? &p1 : &p2;
    struct probe *other = released == &p1 ? &p2 : &p1;
    aclrtStream other_stream = released == &p1 ? b2 : b1;
    CHECK_EQ(1, atomic_load(&released->ran));
    /* ...and the other stays blocked until a second record. */
    chance(&other->ran);
    CHECK_EQ(0, atomic_load(&other->ran));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(other_stream));
    CHECK_OK(aclrtRecordNotify(n, a));
    CHECK_OK(aclrtSynchronizeStream(b1));
    CHECK_OK(aclrtSynchronizeStream(b2));
    CHECK_EQ(1, atomic_load(&p1.ran));
    CHECK_EQ(1, atomic_load(&p2.ran));
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b1));
    CHECK_OK(aclrtDestroyStream(b2));
}

TEST(records_nobody_waited_for_are_kept_and_each_releases_one_later_wait)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtNotify n = new_notify();
    CHECK_OK(aclrtRecordNotify(n, a));
    CHECK_OK(aclrtRecordNotify(n, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtWaitAndResetNotify(n, b, 0));
    CHECK_OK(aclrtWaitAndResetNotify(n, b, 0));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000)); /* two records, two waits */
    CHECK_OK(aclrtWaitAndResetNotify(n, b, 0));           /* a third needs a third record */
    launch_probe(b, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(aclrtRecordNotify(n, a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* Pipeline: a producer kernel fills one of two buffers, a consumer kernel sums it; notifies hand them over. */
#define PIPE_ITERS 48
#define PIPE_BLOCKS 4
#define PIPE_WORDS 512 /* per buffer; PIPE_WORDS / PIPE_BLOCKS per block */

static int pipe_buf[2][PIPE_WORDS];
static _Atomic long pipe_sum[PIPE_ITERS];
static int pipe_iter[PIPE_ITERS];

static long pipe_value(int iter, int word)
{
    return (long)iter * 1000 + word;
}

static aclError pipe_produce(uint32_t block, uint32_t blocks, void *args)
{
    int iter = *(const int *)args;
    int per = PIPE_WORDS / (int)blocks;
    for (int w = (int)block * per; w < ((int)block + 1) * per; w++)
        pipe_buf[iter % 2][w] = (int)pipe_value(iter, w);
    return ACL_SUCCESS;
}

static aclError pipe_consume(uint32_t block, uint32_t blocks, void *args)
{
    int iter = *(const int *)args;
    int per = PIPE_WORDS / (int)blocks;
    long sum = 0;
    for (int w = (int)block * per; w < ((int)block + 1) * per; w++)
        sum += pipe_buf[iter % 2][w];
    atomic_fetch_add(&pipe_sum[iter], sum);
    return ACL_SUCCESS;
}

static void pipe_reset(void)
{
    memset(pipe_buf, 0, sizeof pipe_buf);
    for (int i = 0; i < PIPE_ITERS; i++) {
        atomic_store(&pipe_sum[i], 0);
        pipe_iter[i] = i;
    }
}

static void pipe_check(void)
{
    for (int i = 0; i < PIPE_ITERS; i++) {
        long want = 0;
        for (int w = 0; w < PIPE_WORDS; w++)
            want += pipe_value(i, w);
        CHECK_EQ(want, atomic_load(&pipe_sum[i]));
    }
}

TEST(producer_consumer_pipeline_of_host_kernels_with_notifies)
{
    aclrtStream prod = new_stream(), cons = new_stream();
    aclrtNotify full[2] = {new_notify(), new_notify()}, empty[2] = {new_notify(), new_notify()};
    pipe_reset();
    for (int i = 0; i < PIPE_ITERS; i++) {
        int b = i % 2;
        if (i >= 2)
            CHECK_OK(aclrtWaitAndResetNotify(empty[b], prod, 0)); /* the consumer is done with buffer b */
        CHECK_OK(aclrtxLaunchHostKernel(prod, PIPE_BLOCKS, pipe_produce, &pipe_iter[i]));
        CHECK_OK(aclrtRecordNotify(full[b], prod));
        CHECK_OK(aclrtWaitAndResetNotify(full[b], cons, 0));
        CHECK_OK(aclrtxLaunchHostKernel(cons, PIPE_BLOCKS, pipe_consume, &pipe_iter[i]));
        CHECK_OK(aclrtRecordNotify(empty[b], cons));
    }
    CHECK_OK(aclrtSynchronizeStream(cons));
    CHECK_OK(aclrtSynchronizeStream(prod));
    pipe_check();
    /* Every record was consumed except the last two "empty" ones: each releases one more wait at once. */
    for (int b = 0; b < 2; b++) {
        CHECK_OK(aclrtWaitAndResetNotify(empty[b], prod, 0));
        CHECK_OK(aclrtDestroyNotify(full[b]));
    }
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(prod, 10000));
    for (int b = 0; b < 2; b++)
        CHECK_OK(aclrtDestroyNotify(empty[b]));
    CHECK_OK(aclrtDestroyStream(prod));
    CHECK_OK(aclrtDestroyStream(cons));
}

TEST(batch_reset_drops_the_records_nobody_consumed_at_the_call)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtNotify n[2] = {new_notify(), new_notify()};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(aclrtRecordNotify(n[0], a));
        CHECK_OK(aclrtRecordNotify(n[1], a));
    }
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtNotifyBatchReset(n, 2));
    for (int i = 0; i < 2; i++) {
        CHECK_OK(aclrtWaitAndResetNotify(n[i], b, 0));
        launch_probe(b, &p, NULL);
        chance(&p.ran);
        CHECK_EQ(0, atomic_load(&p.ran));
        CHECK_OK(aclrtRecordNotify(n[i], a)); /* a record after the reset counts */
        CHECK_OK(aclrtSynchronizeStream(b));
        CHECK_EQ(1, atomic_load(&p.ran));
    }
    /* A pending wait is not affected by a reset: it still waits for the next record. */
    CHECK_OK(aclrtWaitAndResetNotify(n[0], b, 0));
    launch_probe(b, &p, NULL);
    CHECK_OK(aclrtNotifyBatchReset(n, 1));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(aclrtRecordNotify(n[0], a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtDestroyNotify(n[0]));
    CHECK_OK(aclrtDestroyNotify(n[1]));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(batch_reset_with_a_bad_handle_resets_nothing)
{
    aclrtStream b = new_stream();
    aclrtNotify n[3] = {new_notify(), new_notify(), new_notify()};
    CHECK_OK(aclrtRecordNotify(n[0], b));
    CHECK_OK(aclrtRecordNotify(n[1], b));
    aclrtNotify dead = n[2];
    CHECK_OK(aclrtDestroyNotify(dead));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtNotifyBatchReset(n, 3));
    aclrtNotify with_null[2] = {n[0], NULL};
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyBatchReset(with_null, 2));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtNotifyBatchReset(NULL, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyBatchReset(n, 0));
    /* Both records are still there. */
    CHECK_OK(aclrtWaitAndResetNotify(n[0], b, 0));
    CHECK_OK(aclrtWaitAndResetNotify(n[1], b, 0));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_OK(aclrtDestroyNotify(n[0]));
    CHECK_OK(aclrtDestroyNotify(n[1]));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(destroy_with_a_pending_wait_releases_it_and_a_queued_record_does_not_reach_a_new_notify)
{
    static struct probe p, q;
    aclrtStream a = new_stream(), b = new_stream(), c = new_stream();
    aclrtNotify n = new_notify();
    CHECK_OK(aclrtWaitAndResetNotify(n, b, 0));
    launch_probe(b, &p, NULL);
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordNotify(n, a)); /* queued behind the gate */
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000)); /* the wait was released */
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(n, a));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyNotify(n));
    /* A new notify (the slot is reused) must not see the old notify's queued record. */
    aclrtNotify m = new_notify();
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtWaitAndResetNotify(m, c, 0));
    launch_probe(c, &q, NULL);
    chance(&q.ran);
    CHECK_EQ(0, atomic_load(&q.ran));
    CHECK_OK(aclrtRecordNotify(m, a));
    CHECK_OK(aclrtSynchronizeStream(c));
    CHECK_OK(aclrtDestroyNotify(m));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
}

/* Several threads record on their streams while waits on other streams consume: every wait released once. */
#define MANY_THREADS 3
#define MANY_RECORDS 300

struct recorder_arg {
    aclrtNotify n;
    aclrtStream s;
    atomic_int errors;
};

static aclError count_kernel(uint32_t block, uint32_t blocks, void *args)
{
    (void)block;
    (void)blocks;
    atomic_fetch_add((_Atomic long *)args, 1);
    return ACL_SUCCESS;
}

static void nop_fn(void *arg)
{
    (void)arg;
}

static void *recorder_main(void *arg)
{
    struct recorder_arg *r = (struct recorder_arg *)arg;
    if (aclrtSetCurrentContext(main_context) != ACL_SUCCESS)
        atomic_fetch_add(&r->errors, 1);
    for (int i = 0; i < MANY_RECORDS; i++) {
        if (aclrtLaunchHostFunc(r->s, nop_fn, NULL) != ACL_SUCCESS) /* usually busy: the record is a task */
            atomic_fetch_add(&r->errors, 1);
        if (aclrtRecordNotify(r->n, r->s) != ACL_SUCCESS)
            atomic_fetch_add(&r->errors, 1);
    }
    return NULL;
}

TEST(records_from_several_threads_release_exactly_as_many_waits)
{
    static struct recorder_arg args[MANY_THREADS];
    static _Atomic long passed[MANY_THREADS];
    static struct probe p;
    aclrtNotify n = new_notify();
    aclrtStream waiters[MANY_THREADS];
    pthread_t th[MANY_THREADS];
    for (int i = 0; i < MANY_THREADS; i++) {
        waiters[i] = new_stream();
        atomic_store(&passed[i], 0);
        for (int k = 0; k < MANY_RECORDS; k++) {
            CHECK_OK(aclrtWaitAndResetNotify(n, waiters[i], 0));
            CHECK_OK(aclrtxLaunchHostKernel(waiters[i], 1, count_kernel, &passed[i]));
        }
    }
    for (int i = 0; i < MANY_THREADS; i++) {
        args[i].n = n;
        args[i].s = new_stream();
        atomic_store(&args[i].errors, 0);
        CHECK_EQ(0, pthread_create(&th[i], NULL, recorder_main, &args[i]));
    }
    for (int i = 0; i < MANY_THREADS; i++)
        CHECK_EQ(0, pthread_join(th[i], NULL));
    for (int i = 0; i < MANY_THREADS; i++) {
        CHECK_EQ(0, atomic_load(&args[i].errors));
        CHECK_OK(aclrtSynchronizeStream(waiters[i]));
        CHECK_EQ(MANY_RECORDS, atomic_load(&passed[i]));
        CHECK_OK(aclrtSynchronizeStream(args[i].s));
    }
    /* All records consumed: one more wait blocks. */
    CHECK_OK(aclrtWaitAndResetNotify(n, waiters[0], 0));
    launch_probe(waiters[0], &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(aclrtRecordNotify(n, args[0].s));
    CHECK_OK(aclrtSynchronizeStream(waiters[0]));
    CHECK_OK(aclrtDestroyNotify(n));
    for (int i = 0; i < MANY_THREADS; i++) {
        CHECK_OK(aclrtDestroyStream(waiters[i]));
        CHECK_OK(aclrtDestroyStream(args[i].s));
    }
}

TEST(notify_bad_input_gets_the_documented_codes_and_changes_nothing)
{
    aclrtStream b = new_stream();
    aclrtNotify n = new_notify(), dev_only = NULL;
    aclrtEvent e = NULL;
    CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    void *garbage = (void *)(uintptr_t)0x12345678u;
    uint32_t id = 0;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateNotify(NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateNotify(&dev_only, 2));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateNotify(&dev_only, 0x100000000ull));
    CHECK_OK(aclrtCreateNotify(&dev_only, ACL_NOTIFY_DEVICE_USE_ONLY));
    CHECK_OK(aclrtDestroyNotify(dev_only));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(NULL, b));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtWaitAndResetNotify(NULL, b, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyNotify(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(NULL, &id));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(n, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(garbage, b));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtWaitAndResetNotify(garbage, b, 0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetNotifyId(garbage, &id));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyNotify(garbage));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(e, b)); /* an event is not a notify */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(n, garbage)); /* garbage stream */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtWaitAndResetNotify(n, garbage, 0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(n, e));
    CHECK(strstr(aclGetRecentErrMsg(), "aclrtRecordNotify") != NULL);
    /* Nothing was recorded by the rejected calls: a wait still waits for a real record. */
    static struct probe p;
    CHECK_OK(aclrtWaitAndResetNotify(n, b, 0));
    launch_probe(b, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(aclrtRecordNotify(n, NULL)); /* NULL: the default stream */
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(notify_on_a_stream_of_another_context_is_stream_context)
{
    aclrtContext other = NULL;
    aclrtStream theirs = NULL;
    CHECK_OK(aclrtCreateContext(&other, 0)); /* now current */
    CHECK_OK(aclrtCreateStream(&theirs));
    CHECK_OK(aclrtSetCurrentContext(main_context));
    aclrtNotify n = new_notify();
    aclrtCntNotify c = new_cnt();
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordNotify(n, theirs));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtWaitAndResetNotify(n, theirs, 0));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, cnt_record(c, theirs, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, cnt_wait(c, theirs, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 0, 0, 0));
    CHECK_EQ(ACL_ERROR_RT_STREAM_CONTEXT, aclrtCntNotifyReset(c, theirs));
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtSetCurrentContext(other));
    CHECK_OK(aclrtDestroyStream(theirs));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtSetCurrentContext(main_context));
}

/* ------------------------------------------------------------------------
 * Counting notifies
 * ------------------------------------------------------------------------ */

static const struct {
    aclrtCntNotifyRecordMode mode;
    uint32_t before, value, after;
} record_table[] = {
    {ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 7, 3, 3},
    {ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 7, 0, 0},
    {ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 7, 3, 10},
    {ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 0xFFFFFFFFu, 2, 1}, /* modulo 2^32 */
    {ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE, 0x0Cu, 0x03u, 0x0Fu},
    {ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE, 0x0Cu, 0x04u, 0x0Cu},
    {ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE, 0x0Eu, 0x0Bu, 0x0Au},
    {ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE, 0x0Eu, 0x01u, 0x00u},
};

TEST(cnt_record_modes_follow_their_truth_table_at_once_and_in_stream_order)
{
    aclrtStream a = new_stream(), b = new_stream();
    aclrtCntNotify c = new_cnt();
    check_counter(c, b, 0); /* a new counting notify counts 0 */
    for (size_t i = 0; i < sizeof record_table / sizeof record_table[0]; i++) {
        /* On an idle stream the record applies at once... */
        CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, record_table[i].before));
        CHECK_OK(cnt_record(c, a, record_table[i].mode, record_table[i].value));
        check_counter(c, b, record_table[i].after);
        /* ...on a busy one it is a task, applied when the stream reaches it. */
        CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, record_table[i].before));
        struct gate *g = busy(a);
        CHECK_OK(cnt_record(c, a, record_table[i].mode, record_table[i].value));
        if (record_table[i].after != record_table[i].before)
            check_counter(c, b, record_table[i].before);
        gate_open(g);
        CHECK_OK(aclrtSynchronizeStream(a));
        check_counter(c, b, record_table[i].after);
    }
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

static const struct {
    aclrtCntNotifyWaitMode mode;
    uint32_t counter, value;
    int passes;
} wait_table[] = {
    {ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 2, 3, 1},
    {ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 3, 3, 0},
    {ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 4, 3, 0},
    {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 3, 3, 1},
    {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 4, 3, 0},
    {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 4, 3, 1},
    {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 3, 3, 0},
    {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 0xFFFFFFFFu, 0xFFFFFFFEu, 1}, /* unsigned */
    {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 3, 3, 1},
    {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 4, 3, 1},
    {ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 2, 3, 0},
    {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 0x0Bu, 0x03u, 1},
    {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 0x0Bu, 0x06u, 0},
    {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 0x0Bu, 0x00u, 1},
    {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_WITH_BITMASK_MODE, 0x00u, 0x01u, 0},
};

TEST(cnt_wait_modes_follow_their_truth_table)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    for (size_t i = 0; i < sizeof wait_table / sizeof wait_table[0]; i++) {
        aclrtCntNotify c = new_cnt();
        CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, wait_table[i].counter));
        /* Behind a gate, so that the wait is a task that the executor evaluates. */
        struct gate *g = busy(b);
        CHECK_OK(cnt_wait(c, b, wait_table[i].mode, wait_table[i].value, 0, 0));
        launch_probe(b, &p, NULL);
        gate_open(g);
        if (wait_table[i].passes) {
            CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
        } else {
            chance(&p.ran);
            if (atomic_load(&p.ran))
                fprintf(stderr, "  (row %zu)\n", i);
            CHECK_EQ(0, atomic_load(&p.ran));
            CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
            CHECK_OK(aclrtCntNotifyDestroy(c)); /* releases the wait */
            CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
            continue;
        }
        CHECK_EQ(1, atomic_load(&p.ran));
        CHECK_OK(aclrtCntNotifyDestroy(c));
    }
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(cnt_wait_with_is_clear_sets_the_counter_to_0_when_it_passes_and_without_keeps_it)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtCntNotify c = new_cnt();
    CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 7));
    CHECK_OK(cnt_wait(c, b, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 7, 0, 0));
    CHECK_OK(cnt_wait(c, b, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 7, 0, 0)); /* kept */
    CHECK_OK(cnt_wait(c, b, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 5, 0, 1));
    check_counter(c, b, 0);
    /* A clearing wait that passes later (after a record) clears too; a LESS wait then passes. */
    CHECK_OK(cnt_wait(c, b, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_MODE, 2, 0, 1));
    launch_probe(b, &p, NULL);
    CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 2));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran)); /* 2 > 2 is false */
    CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 2));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.ran));
    check_counter(c, b, 0);
    CHECK_OK(cnt_wait(c, b, ACL_RT_CNT_NOTIFY_WAIT_LESS_MODE, 1, 0, 1));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(cnt_reset_is_a_task_in_stream_order)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtCntNotify c = new_cnt();
    CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 9));
    struct gate *g = busy(a);
    CHECK_OK(aclrtCntNotifyReset(c, a));
    CHECK_OK(cnt_wait(c, b, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 0, 0, 0));
    launch_probe(b, &p, &g->done);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.saw));
    CHECK_OK(aclrtCntNotifyReset(c, NULL)); /* idle default stream: at once */
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* Pipeline: the producer adds 1 per filled chunk; the consumer waits for "at least i+1" before chunk i. */
static int cnt_chunks[PIPE_ITERS][PIPE_WORDS / 8];
static _Atomic long cnt_sums[PIPE_ITERS];

static aclError cnt_produce(uint32_t block, uint32_t blocks, void *args)
{
    int i = *(const int *)args;
    int per = (PIPE_WORDS / 8) / (int)blocks;
    for (int w = (int)block * per; w < ((int)block + 1) * per; w++)
        cnt_chunks[i][w] = i * 7 + w;
    return ACL_SUCCESS;
}

static aclError cnt_consume(uint32_t block, uint32_t blocks, void *args)
{
    int i = *(const int *)args;
    int per = (PIPE_WORDS / 8) / (int)blocks;
    long sum = 0;
    for (int w = (int)block * per; w < ((int)block + 1) * per; w++)
        sum += cnt_chunks[i][w];
    atomic_fetch_add(&cnt_sums[i], sum);
    return ACL_SUCCESS;
}

TEST(producer_consumer_pipeline_of_host_kernels_with_a_counting_notify)
{
    aclrtStream prod = new_stream(), cons = new_stream();
    aclrtCntNotify c = new_cnt();
    memset(cnt_chunks, 0, sizeof cnt_chunks);
    for (int i = 0; i < PIPE_ITERS; i++) {
        atomic_store(&cnt_sums[i], 0);
        pipe_iter[i] = i;
    }
    /* The consumer is launched first: every wait is enqueued before its record. */
    for (int i = 0; i < PIPE_ITERS; i++) {
        CHECK_OK(cnt_wait(c, cons, ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, (uint32_t)i + 1, 0, 0));
        CHECK_OK(aclrtxLaunchHostKernel(cons, 2, cnt_consume, &pipe_iter[i]));
    }
    for (int i = 0; i < PIPE_ITERS; i++) {
        CHECK_OK(aclrtxLaunchHostKernel(prod, 2, cnt_produce, &pipe_iter[i]));
        CHECK_OK(cnt_record(c, prod, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1));
    }
    CHECK_OK(aclrtSynchronizeStream(cons));
    CHECK_OK(aclrtSynchronizeStream(prod));
    for (int i = 0; i < PIPE_ITERS; i++) {
        long want = 0;
        for (int w = 0; w < PIPE_WORDS / 8; w++)
            want += i * 7 + w;
        CHECK_EQ(want, atomic_load(&cnt_sums[i]));
    }
    check_counter(c, cons, PIPE_ITERS);
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtDestroyStream(prod));
    CHECK_OK(aclrtDestroyStream(cons));
}

TEST(cnt_destroy_with_a_pending_wait_releases_it)
{
    aclrtStream a = new_stream(), b = new_stream();
    aclrtCntNotify c = new_cnt();
    CHECK_OK(cnt_wait(c, b, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 5, 0, 0));
    struct gate *g = busy(a);
    CHECK_OK(cnt_record(c, a, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 5)); /* queued */
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    /* The queued record of the dead counting notify does not reach a new one in the same slot. */
    aclrtCntNotify d = new_cnt();
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    check_counter(d, b, 0);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtCntNotifyDestroy(d));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(cnt_bad_input_gets_the_documented_codes_and_changes_nothing)
{
    aclrtStream b = new_stream();
    aclrtCntNotify c = new_cnt(), tmp = NULL;
    void *garbage = (void *)(uintptr_t)0x12345678u;
    uint32_t id = 0;
    CHECK_OK(cnt_record(c, b, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 6));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyCreate(NULL, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyCreate(&tmp, 1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyRecord(c, b, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCntNotifyWaitWithTimeout(c, b, NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, cnt_record(c, b, (aclrtCntNotifyRecordMode)3, 1)); /* no mode 3 */
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, cnt_record(c, b, (aclrtCntNotifyRecordMode)5, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, cnt_record(c, b, (aclrtCntNotifyRecordMode)-1, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, cnt_wait(c, b, (aclrtCntNotifyWaitMode)5, 1, 0, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, cnt_record(NULL, b, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, cnt_wait(NULL, b, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 1, 0, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyReset(NULL, b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyDestroy(NULL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyGetId(NULL, &id));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtCntNotifyGetId(c, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, cnt_record(garbage, b, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, cnt_wait(garbage, b, ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 1, 0, 0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtCntNotifyReset(garbage, b));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtCntNotifyGetId(garbage, &id));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtCntNotifyDestroy(garbage));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, cnt_record(c, garbage, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1));
    aclrtNotify n = new_notify(); /* a notify is not a counting notify, and the other way round */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, cnt_record(n, b, ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE, 1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(c, b));
    CHECK_OK(aclrtDestroyNotify(n));
    check_counter(c, b, 6); /* no rejected record changed it */
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtDestroyStream(b));
}

/* ------------------------------------------------------------------------
 * Both
 * ------------------------------------------------------------------------ */

TEST(waits_with_a_timeout_fail_with_task_timeout_after_that_many_seconds)
{
    static struct probe p[4];
    aclrtStream s[4] = {new_stream(), new_stream(), new_stream(), new_stream()};
    aclrtNotify n = new_notify();
    aclrtCntNotify c = new_cnt();
    CHECK_OK(aclrtWaitAndResetNotify(n, s[0], 1));
    launch_probe(s[0], &p[0], NULL);
    CHECK_OK(cnt_wait(c, s[1], ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 1, 1, 0));
    launch_probe(s[1], &p[1], NULL);
    /* UINT32_MAX: no limit of its own, the aclrtSetOpWaitTimeout value applies [src]; 0: never. */
    CHECK_OK(aclrtSetOpWaitTimeout(1));
    CHECK_OK(aclrtWaitAndResetNotify(n, s[2], UINT32_MAX));
    launch_probe(s[2], &p[2], NULL);
    CHECK_OK(aclrtWaitAndResetNotify(n, s[3], 0));
    launch_probe(s[3], &p[3], NULL);
    CHECK_OK(aclrtSetOpWaitTimeout(0));
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s[i], 20000));
        CHECK_EQ(1, atomic_load(&p[i].ran)); /* continue mode: the stream went on */
        CHECK_OK(aclrtSynchronizeStream(s[i]));  /* reported once */
    }
    CHECK_EQ(0, atomic_load(&p[3].ran));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(s[3]));
    /* The timed-out waits consumed nothing: one record releases the wait that has no limit. */
    CHECK_OK(aclrtRecordNotify(n, s[0]));
    CHECK_OK(aclrtSynchronizeStream(s[3]));
    CHECK_EQ(1, atomic_load(&p[3].ran));
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtCntNotifyDestroy(c));
    for (int i = 0; i < 4; i++)
        CHECK_OK(aclrtDestroyStream(s[i]));
}

TEST(waiting_streams_hold_no_executor)
{
    enum { WAITERS = 3 * POOL_EXECUTORS };
    static struct probe after[WAITERS], other;
    aclrtStream w[WAITERS], free_stream = new_stream();
    aclrtNotify n = new_notify();
    aclrtCntNotify c = new_cnt();
    for (int i = 0; i < WAITERS; i++) {
        w[i] = new_stream();
        if (i % 2 == 0)
            CHECK_OK(aclrtWaitAndResetNotify(n, w[i], 0));
        else
            CHECK_OK(cnt_wait(c, w[i], ACL_RT_CNT_NOTIFY_WAIT_BIGGER_OR_EQUAL_MODE, 1, 0, 0));
        launch_probe(w[i], &after[i], NULL);
    }
    /* More waiting streams than executors, and other work still runs. */
    launch_probe(free_stream, &other, NULL);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(free_stream, 10000));
    CHECK_EQ(1, atomic_load(&other.ran));
    for (int i = 0; i < WAITERS; i++)
        CHECK_EQ(0, atomic_load(&after[i].ran));
    for (int i = 0; i < WAITERS; i += 2)
        CHECK_OK(aclrtRecordNotify(n, free_stream));
    CHECK_OK(cnt_record(c, free_stream, ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE, 1));
    for (int i = 0; i < WAITERS; i++) {
        CHECK_OK(aclrtSynchronizeStream(w[i]));
        CHECK_EQ(1, atomic_load(&after[i].ran));
        CHECK_OK(aclrtDestroyStream(w[i]));
    }
    CHECK_OK(aclrtDestroyNotify(n));
    CHECK_OK(aclrtCntNotifyDestroy(c));
    CHECK_OK(aclrtDestroyStream(free_stream));
}

TEST(ids_are_distinct_and_the_shared_quota_is_no_notify_resource)
{
    static aclrtNotify ns[MAX_NOTIFIES + 1];
    static aclrtCntNotify cs[MAX_NOTIFIES + 1];
    int made_n = 0, made_c = 0;
    aclError rc = ACL_SUCCESS;
    for (int i = 0; i <= MAX_NOTIFIES; i++) {
        if (i % 2 == 0) {
            rc = aclrtCreateNotify(&ns[made_n], 0);
            if (rc != ACL_SUCCESS)
                break;
            made_n++;
        } else {
            rc = aclrtCntNotifyCreate(&cs[made_c], 0);
            if (rc != ACL_SUCCESS)
                break;
            made_c++;
        }
    }
    CHECK_EQ(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, rc);
    CHECK_EQ(MAX_NOTIFIES, made_n + made_c);
    for (int i = 0; i < made_n; i++)
        for (int j = 0; j < i; j++) {
            uint32_t a = 0, b = 1;
            CHECK_OK(aclrtGetNotifyId(ns[i], &a));
            CHECK_OK(aclrtGetNotifyId(ns[j], &b));
            CHECK(a != b);
        }
    for (int i = 0; i < made_c; i++)
        for (int j = 0; j < i; j++) {
            uint32_t a = 0, b = 1;
            CHECK_OK(aclrtCntNotifyGetId(cs[i], &a));
            CHECK_OK(aclrtCntNotifyGetId(cs[j], &b));
            CHECK(a != b);
        }
    /* Destroying gives the quota back at once. */
    CHECK_OK(aclrtDestroyNotify(ns[--made_n]));
    CHECK_OK(aclrtCntNotifyCreate(&cs[made_c++], 0));
    for (int i = 0; i < made_n; i++)
        CHECK_OK(aclrtDestroyNotify(ns[i]));
    for (int i = 0; i < made_c; i++)
        CHECK_OK(aclrtCntNotifyDestroy(cs[i]));
}

/* ------------------------------------------------------------------------ */

#define RUN_CASE(name)              \
    do {                            \
        RUN(name);                  \
        gates_open_all();           \
        aclrtSetOpWaitTimeout(0);   \
    } while (0)

int main(void)
{
    char v[16];
    snprintf(v, sizeof v, "%d", POOL_EXECUTORS);
    setenv("ACLRT_EXECUTORS", v, 1);
    snprintf(v, sizeof v, "%d", MAX_NOTIFIES);
    setenv("ACLRT_MAX_NOTIFIES", v, 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "notify: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(wait_enqueued_before_its_record_runs_after_the_gated_producer);
    RUN_CASE(one_record_releases_exactly_one_of_two_waits);
    RUN_CASE(records_nobody_waited_for_are_kept_and_each_releases_one_later_wait);
    RUN_CASE(producer_consumer_pipeline_of_host_kernels_with_notifies);
    RUN_CASE(batch_reset_drops_the_records_nobody_consumed_at_the_call);
    RUN_CASE(batch_reset_with_a_bad_handle_resets_nothing);
    RUN_CASE(destroy_with_a_pending_wait_releases_it_and_a_queued_record_does_not_reach_a_new_notify);
    RUN_CASE(records_from_several_threads_release_exactly_as_many_waits);
    RUN_CASE(notify_bad_input_gets_the_documented_codes_and_changes_nothing);
    RUN_CASE(notify_on_a_stream_of_another_context_is_stream_context);
    RUN_CASE(cnt_record_modes_follow_their_truth_table_at_once_and_in_stream_order);
    RUN_CASE(cnt_wait_modes_follow_their_truth_table);
    RUN_CASE(cnt_wait_with_is_clear_sets_the_counter_to_0_when_it_passes_and_without_keeps_it);
    RUN_CASE(cnt_reset_is_a_task_in_stream_order);
    RUN_CASE(producer_consumer_pipeline_of_host_kernels_with_a_counting_notify);
    RUN_CASE(cnt_destroy_with_a_pending_wait_releases_it);
    RUN_CASE(cnt_bad_input_gets_the_documented_codes_and_changes_nothing);
    RUN_CASE(waits_with_a_timeout_fail_with_task_timeout_after_that_many_seconds);
    RUN_CASE(waiting_streams_hold_no_executor);
    RUN_CASE(ids_are_distinct_and_the_shared_quota_is_no_notify_resource);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("notify");
}
