/*
 * tests/test_hcom.c - pins "HCOM group record/wait tasks (aclrtx)"
 * (docs/SEMANTICS.md): descriptors by group name (default
 * "group"), the serialized format byte for byte, a record on one stream
 * releasing the wait on another, the k-th wait released by the k-th record
 * over many iterations of a pipeline of host kernels, a serialized list
 * launched again and again, groups independent of each other, waits that
 * hold no executor, every malformed list rejected with nothing run, a wait
 * whose launch is refused taking no ticket, and aclFinalize releasing waits
 * that nothing will record for.
 *
 * Ordering is proven with gates and probes (tests/gate.h, tests/probe.h),
 * never with sleeps.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"
#include "probe.h"

#define POOL_EXECUTORS 2 /* ACLRT_EXECUTORS for this suite (set in main) */
#define LIST_MAX 4096

static aclrtContext main_context;

static int32_t stream_id(aclrtStream s)
{
    int32_t id = -1;
    CHECK_OK(aclrtStreamGetId(s, &id));
    return id;
}

/* A serialized task list being built. */
struct list {
    unsigned char bytes[LIST_MAX];
    size_t size;
};

/* Append one task: kind 'r' (record) or 'w' (wait) on a group, for a stream. */
static void list_add(struct list *l, char kind, const char *group, aclrtStream s)
{
    aclrtxHcomTask *t = NULL;
    if (kind == 'r')
        CHECK_OK(aclrtxCreateHcomRecordTask(&t, group));
    else
        CHECK_OK(aclrtxCreateHcomWaitTask(&t, group));
    CHECK_OK(aclrtxHcomTaskSetStreamId(t, stream_id(s)));
    size_t need = 0;
    CHECK_OK(aclrtxHcomTaskSerialize(t, NULL, 0, &need));
    CHECK(l->size + need <= LIST_MAX);
    CHECK_OK(aclrtxHcomTaskSerialize(t, l->bytes + l->size, LIST_MAX - l->size, &need));
    l->size += need;
    CHECK_OK(aclrtxDestroyHcomTask(t));
}

static aclError launch_one(char kind, const char *group, aclrtStream s)
{
    static struct list l;
    l.size = 0;
    list_add(&l, kind, group, s);
    return aclrtxLaunchHcomTaskList(l.bytes, l.size);
}

/* ------------------------------------------------------------------------ */

TEST(serialized_task_has_the_documented_format)
{
    aclrtxHcomTask *t = NULL;
    CHECK_OK(aclrtxCreateHcomRecordTask(&t, "grp"));
    CHECK_OK(aclrtxHcomTaskSetStreamId(t, 0x01020304));
    size_t need = 0;
    CHECK_OK(aclrtxHcomTaskSerialize(t, NULL, 0, &need));
    CHECK_EQ(14 + 3, need);
    unsigned char buf[32];
    memset(buf, 0xEE, sizeof buf);
    CHECK_OK(aclrtxHcomTaskSerialize(t, buf, sizeof buf, &need));
    static const unsigned char want[17] = {'A', 'X', 'H', 'T', 1, 0, 1, 0, 0x04, 0x03, 0x02, 0x01, 3, 0, 'g', 'r', 'p'};
    CHECK_EQ(0, memcmp(buf, want, sizeof want));
    CHECK_EQ(0xEE, buf[17]); /* nothing written past it */
    /* Too small a buffer: an error, the size still reported, nothing written. */
    memset(buf, 0xEE, sizeof buf);
    need = 0;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxHcomTaskSerialize(t, buf, 16, &need));
    CHECK_EQ(17, need);
    CHECK_EQ(0xEE, buf[0]);
    CHECK_OK(aclrtxDestroyHcomTask(t));
    /* A wait task, the default group, an unset stream id (-1). */
    CHECK_OK(aclrtxCreateHcomWaitTask(&t, NULL));
    CHECK_OK(aclrtxHcomTaskSerialize(t, buf, sizeof buf, &need));
    static const unsigned char want_wait[19] = {'A', 'X', 'H', 'T', 1, 0, 2, 0, 0xFF, 0xFF, 0xFF, 0xFF, 5, 0,
                                                'g', 'r', 'o', 'u', 'p'};
    CHECK_EQ(sizeof want_wait, need);
    CHECK_EQ(0, memcmp(buf, want_wait, sizeof want_wait));
    CHECK_OK(aclrtxDestroyHcomTask(t));
    CHECK_OK(aclrtxCreateHcomRecordTask(&t, "")); /* "" is the default group too */
    CHECK_OK(aclrtxHcomTaskSerialize(t, buf, sizeof buf, &need));
    CHECK_EQ(0, memcmp(buf + 14, "group", 5));
    CHECK_OK(aclrtxDestroyHcomTask(t));
}

TEST(descriptor_bad_input_gets_the_documented_codes)
{
    char name[ACLRTX_HCOM_GROUP_NAME_MAX + 2];
    memset(name, 'x', sizeof name);
    name[ACLRTX_HCOM_GROUP_NAME_MAX] = '\0';
    aclrtxHcomTask *t = NULL;
    CHECK_OK(aclrtxCreateHcomWaitTask(&t, name)); /* 127 bytes: the longest */
    size_t need = 0;
    CHECK_OK(aclrtxHcomTaskSerialize(t, NULL, 0, &need));
    CHECK_EQ(14 + ACLRTX_HCOM_GROUP_NAME_MAX, need);
    CHECK_OK(aclrtxDestroyHcomTask(t));
    name[ACLRTX_HCOM_GROUP_NAME_MAX] = 'x';
    name[ACLRTX_HCOM_GROUP_NAME_MAX + 1] = '\0';
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCreateHcomRecordTask(&t, name));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxCreateHcomWaitTask(&t, name));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxCreateHcomRecordTask(NULL, "g"));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxCreateHcomWaitTask(NULL, "g"));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxHcomTaskSetStreamId(NULL, 0));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxHcomTaskSerialize(NULL, NULL, 0, &need));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxDestroyHcomTask(NULL));
    CHECK_OK(aclrtxCreateHcomRecordTask(&t, "g"));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxHcomTaskSetStreamId(t, -1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxHcomTaskSerialize(t, NULL, 0, NULL));
    CHECK_OK(aclrtxDestroyHcomTask(t));
}

TEST(record_on_one_stream_releases_the_wait_enqueued_before_it_on_another)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    CHECK_OK(launch_one('w', "first", b));
    struct gate *g = busy(a);
    launch_probe(b, &p, &g->done);
    CHECK_OK(launch_one('r', "first", a)); /* behind the gate */
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.saw));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(groups_are_independent_and_the_default_group_is_named_group)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    CHECK_OK(launch_one('w', "x", b));
    launch_probe(b, &p, NULL);
    CHECK_OK(launch_one('r', "y", a));
    CHECK_OK(launch_one('r', NULL, a)); /* "group" */
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(launch_one('r', "x", a));
    CHECK_OK(aclrtSynchronizeStream(b));
    /* A wait in the default group, named either way, was released by the record above. */
    CHECK_OK(launch_one('w', "group", b));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    /* And the y record released its group's first wait in advance. */
    CHECK_OK(launch_one('w', "y", b));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* Pipeline: the producer kernel fills chunk i, then records; the consumer waits, then sums chunk i. */
#define PIPE_ITERS 64
#define PIPE_WORDS 128

static int pipe_buf[PIPE_ITERS][PIPE_WORDS];
static _Atomic long pipe_sum[PIPE_ITERS];
static int pipe_iter[PIPE_ITERS];

static aclError pipe_produce(uint32_t block, uint32_t blocks, void *args)
{
    int i = *(const int *)args;
    int per = PIPE_WORDS / (int)blocks;
    for (int k = (int)block * per; k < ((int)block + 1) * per; k++)
        pipe_buf[i][k] = i * 11 + k;
    return ACL_SUCCESS;
}

static aclError pipe_consume(uint32_t block, uint32_t blocks, void *args)
{
    int i = *(const int *)args;
    int per = PIPE_WORDS / (int)blocks;
    long sum = 0;
    for (int k = (int)block * per; k < ((int)block + 1) * per; k++)
        sum += pipe_buf[i][k];
    atomic_fetch_add(&pipe_sum[i], sum);
    return ACL_SUCCESS;
}

static void pipe_check(void)
{
    for (int i = 0; i < PIPE_ITERS; i++) {
        long want = 0;
        for (int k = 0; k < PIPE_WORDS; k++)
            want += i * 11 + k;
        CHECK_EQ(want, atomic_load(&pipe_sum[i]));
    }
}

static void pipe_reset(void)
{
    memset(pipe_buf, 0, sizeof pipe_buf);
    for (int i = 0; i < PIPE_ITERS; i++) {
        atomic_store(&pipe_sum[i], 0);
        pipe_iter[i] = i;
    }
}

TEST(kth_wait_is_released_by_kth_record_through_a_pipeline_of_host_kernels)
{
    aclrtStream prod = new_stream(), cons = new_stream();
    pipe_reset();
    /* Every wait is launched first (tickets 1..N), then the producer: wait i needs record i. */
    for (int i = 0; i < PIPE_ITERS; i++) {
        CHECK_OK(launch_one('w', "pipe", cons));
        CHECK_OK(aclrtxLaunchHostKernel(cons, 2, pipe_consume, &pipe_iter[i]));
    }
    for (int i = 0; i < PIPE_ITERS; i++) {
        CHECK_OK(aclrtxLaunchHostKernel(prod, 2, pipe_produce, &pipe_iter[i]));
        CHECK_OK(launch_one('r', "pipe", prod));
    }
    CHECK_OK(aclrtSynchronizeStream(cons));
    CHECK_OK(aclrtSynchronizeStream(prod));
    pipe_check();
    CHECK_OK(aclrtDestroyStream(prod));
    CHECK_OK(aclrtDestroyStream(cons));
}

TEST(one_serialized_list_round_trips_and_runs_again_and_again_without_resets)
{
    static struct probe p;
    aclrtStream prod = new_stream(), cons = new_stream();
    static struct list l;
    l.size = 0;
    list_add(&l, 'r', "again", prod);
    list_add(&l, 'w', "again", cons);
    pipe_reset();
    for (int i = 0; i < PIPE_ITERS; i++) {
        CHECK_OK(aclrtxLaunchHostKernel(prod, 2, pipe_produce, &pipe_iter[i]));
        CHECK_OK(aclrtxLaunchHcomTaskList(l.bytes, l.size)); /* the same bytes every time */
        CHECK_OK(aclrtxLaunchHostKernel(cons, 2, pipe_consume, &pipe_iter[i]));
    }
    CHECK_OK(aclrtSynchronizeStream(cons));
    CHECK_OK(aclrtSynchronizeStream(prod));
    pipe_check();
    /* Pairs stay matched: one more wait needs one more record. */
    CHECK_OK(launch_one('w', "again", cons));
    launch_probe(cons, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(launch_one('r', "again", prod));
    CHECK_OK(aclrtSynchronizeStream(cons));
    CHECK_OK(aclrtDestroyStream(prod));
    CHECK_OK(aclrtDestroyStream(cons));
}

TEST(hcom_waits_hold_no_executor)
{
    enum { WAITERS = 3 * POOL_EXECUTORS };
    static struct probe after[WAITERS], other;
    aclrtStream w[WAITERS], free_stream = new_stream();
    for (int i = 0; i < WAITERS; i++) {
        w[i] = new_stream();
        CHECK_OK(launch_one('w', "idle", w[i]));
        launch_probe(w[i], &after[i], NULL);
    }
    launch_probe(free_stream, &other, NULL);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(free_stream, 10000));
    CHECK_EQ(1, atomic_load(&other.ran));
    for (int i = 0; i < WAITERS; i++) {
        CHECK_EQ(0, atomic_load(&after[i].ran));
        CHECK_OK(launch_one('r', "idle", free_stream));
    }
    for (int i = 0; i < WAITERS; i++) {
        CHECK_OK(aclrtSynchronizeStream(w[i]));
        CHECK_EQ(1, atomic_load(&after[i].ran));
        CHECK_OK(aclrtDestroyStream(w[i]));
    }
    CHECK_OK(aclrtDestroyStream(free_stream));
}

/* A list that must be rejected whole: returns the code, and proves that its valid record did not run. */
static void check_rejected(const unsigned char *bytes, size_t size, aclError want, const char *group,
                           aclrtStream a, aclrtStream b)
{
    static struct probe p;
    CHECK_EQ(want, aclrtxLaunchHcomTaskList(bytes, size));
    /* A wait launched now would be released at once if the rejected list's record had run. */
    CHECK_OK(launch_one('w', group, b));
    launch_probe(b, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(launch_one('r', group, a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtSynchronizeStream(a));
}

TEST(a_malformed_list_is_rejected_whole_and_runs_nothing)
{
    aclrtStream a = new_stream(), b = new_stream(), dead = new_stream();
    int32_t dead_id = stream_id(dead);
    CHECK_OK(aclrtDestroyStream(dead));
    static struct list l, bad;
    l.size = 0;
    list_add(&l, 'r', "bad", a); /* a valid record first: it must not run */
    size_t head = l.size;
    list_add(&l, 'w', "bad", b);
    size_t second = head; /* offset of the task the cases damage */

#define DAMAGED(stmt)                                   \
    do {                                                \
        bad = l;                                        \
        stmt;                                           \
        check_rejected(bad.bytes, bad.size, ACL_ERROR_RT_PARAM_INVALID, "bad", a, b); \
    } while (0)

    DAMAGED(bad.bytes[second + 0] = 'B');                           /* magic */
    DAMAGED(bad.bytes[second + 4] = 2);                             /* format version */
    DAMAGED(bad.bytes[second + 6] = 3);                             /* kind */
    DAMAGED(bad.bytes[second + 6] = 0);
    DAMAGED(bad.bytes[second + 7] = 1);                             /* reserved byte */
    DAMAGED(bad.bytes[second + 12] = 0);                            /* name length 0 */
    DAMAGED((bad.bytes[second + 12] = 128, bad.bytes[second + 13] = 0)); /* name too long */
    DAMAGED(bad.bytes[second + 12] = 20);                           /* name runs past the end */
    DAMAGED(bad.bytes[second + 14] = '\0');                         /* NUL in the name */
    DAMAGED(bad.size -= 1);                                         /* truncated name */
    DAMAGED(bad.size = second + 10);                                /* truncated header */
    DAMAGED((bad.bytes[bad.size] = 'A', bad.size += 1));           /* trailing garbage */
    DAMAGED(memcpy(bad.bytes + second + 8, &dead_id, 4));           /* a destroyed stream */
    DAMAGED(memset(bad.bytes + second + 8, 0x7F, 4));               /* an id that was never a stream */
    DAMAGED(memset(bad.bytes + second + 8, 0xFF, 4));               /* -1: never set */
#undef DAMAGED
    /* A stream of another context. */
    aclrtContext other = NULL;
    aclrtStream theirs = NULL;
    CHECK_OK(aclrtCreateContext(&other, 0));
    CHECK_OK(aclrtCreateStream(&theirs));
    CHECK_OK(aclrtSetCurrentContext(main_context));
    bad = l;
    int32_t their_id = stream_id(theirs);
    memcpy(bad.bytes + second + 8, &their_id, 4);
    check_rejected(bad.bytes, bad.size, ACL_ERROR_RT_PARAM_INVALID, "bad", a, b);
    CHECK_OK(aclrtSetCurrentContext(other));
    CHECK_OK(aclrtDestroyStream(theirs));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtSetCurrentContext(main_context));
    /* NULL and empty lists. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxLaunchHcomTaskList(NULL, 10));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxLaunchHcomTaskList(l.bytes, 0));
    CHECK(aclGetRecentErrMsg() != NULL);
    /* The undamaged list still works: its record releases its wait. */
    CHECK_OK(aclrtxLaunchHcomTaskList(l.bytes, l.size));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* A host function that fills its own stream's ring, then launches an HCOM wait onto it: refused. */
struct fill_then_wait {
    aclrtStream self;
    int launched;      /* host functions accepted before the ring was full */
    aclError filled;   /* what the launch that found the ring full returned */
    aclError hcom;     /* what the HCOM wait launch returned */
};

static void nothing(void *arg)
{
    (void)arg;
}

static void fill_then_wait_fn(void *arg)
{
    struct fill_then_wait *f = (struct fill_then_wait *)arg;
    f->filled = ACL_SUCCESS;
    for (f->launched = 0; f->launched < 1000000; f->launched++) {
        f->filled = aclrtLaunchHostFunc(f->self, nothing, NULL);
        if (f->filled != ACL_SUCCESS)
            break;
    }
    f->hcom = launch_one('w', "refused", f->self);
}

TEST(a_wait_whose_launch_is_refused_takes_no_ticket)
{
    static struct fill_then_wait f;
    aclrtStream a = new_stream(), b = new_stream();
    f.self = b;
    CHECK_OK(aclrtLaunchHostFunc(b, fill_then_wait_fn, &f));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(ACL_ERROR_RT_STREAM_TASK_FULL, f.filled);
    CHECK(f.launched > 0);
    CHECK_EQ(ACL_ERROR_RT_STREAM_TASK_FULL, f.hcom);
    /* No wait of "refused" was launched, so the next one is the group's first: its record is the first. */
    static struct probe p;
    CHECK_OK(launch_one('w', "refused", b));
    launch_probe(b, &p, NULL);
    CHECK_OK(launch_one('r', "refused", a));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* Last: aclFinalize does not hang on an HCOM wait that no record will come for. */
TEST(finalize_releases_hcom_waits_nothing_will_record_for)
{
    static struct probe p;
    aclrtStream b = new_stream();
    CHECK_OK(launch_one('w', "never", b));
    launch_probe(b, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(aclFinalize());
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&main_context));
    /* Groups start over: a wait on "never" is the group's first again and needs a record. */
    b = new_stream();
    aclrtStream a = new_stream();
    CHECK_OK(launch_one('w', "never", b));
    launch_probe(b, &p, NULL);
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_OK(launch_one('r', "never", a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
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
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "hcom: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(serialized_task_has_the_documented_format);
    RUN_CASE(descriptor_bad_input_gets_the_documented_codes);
    RUN_CASE(record_on_one_stream_releases_the_wait_enqueued_before_it_on_another);
    RUN_CASE(groups_are_independent_and_the_default_group_is_named_group);
    RUN_CASE(kth_wait_is_released_by_kth_record_through_a_pipeline_of_host_kernels);
    RUN_CASE(one_serialized_list_round_trips_and_runs_again_and_again_without_resets);
    RUN_CASE(hcom_waits_hold_no_executor);
    RUN_CASE(a_malformed_list_is_rejected_whole_and_runs_nothing);
    RUN_CASE(a_wait_whose_launch_is_refused_takes_no_ticket);
    RUN_CASE(finalize_releases_hcom_waits_nothing_will_record_for);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("hcom");
}
