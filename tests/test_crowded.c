/*
 * tests/test_crowded.c - two executors on one CPU: stream waits released by
 * a busy task of the other executor, of every kind (event, notify, value),
 * and a burst onto one stream while the other executor spins in a wait.
 *
 * With more executors awake than CPUs, every executor spin gives its CPU
 * away now and then (impl/core/spin_share.h): the spinner must still see
 * the release, in stream order, with nothing lost. The gate tasks never
 * sleep, so the waiting executor and the releasing one share the CPU for
 * the whole hand-off. What this costs is measured by the
 * benchmark (cross_stream_hot, value_release_hot in placement `two`).
 */
#define _GNU_SOURCE
#include "check.h"

#include "acl/acl.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>

#define ROUNDS 300

enum release_kind { RELEASE_EVENT, RELEASE_NOTIFY, RELEASE_VALUE };

struct hand_off {
    _Atomic uint64_t marker; /* B's task before the wait ran (round number) */
    _Atomic uint64_t gate;   /* A's gate returned (round number) */
    _Atomic uint64_t after;  /* B's task after the wait ran (round number) */
    _Atomic uint64_t order_errors;
    uint64_t round;
};

static void on_marker(void *arg)
{
    struct hand_off *h = arg;
    atomic_store_explicit(&h->marker, h->round, memory_order_release);
}

/*
 * A's gate: until B's marker of this round ran (B's executor is at its
 * wait), yield the CPU to it, as a friendly task would; then return, and
 * A's executor records while B's spins in the wait on the same CPU.
 */
static void on_gate(void *arg)
{
    struct hand_off *h = arg;
    while (atomic_load_explicit(&h->marker, memory_order_acquire) != h->round)
        sched_yield();
    atomic_store_explicit(&h->gate, h->round, memory_order_release);
}

static void on_after(void *arg)
{
    struct hand_off *h = arg;
    /* The wait was released by A's record or write, which comes after the gate. */
    if (atomic_load_explicit(&h->gate, memory_order_acquire) != h->round)
        atomic_fetch_add_explicit(&h->order_errors, 1, memory_order_relaxed);
    atomic_store_explicit(&h->after, h->round, memory_order_release);
}

static void hand_offs(enum release_kind kind)
{
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    aclrtEvent ev = NULL;
    aclrtNotify notify = NULL;
    void *word = NULL;
    if (kind == RELEASE_EVENT)
        CHECK_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
    else if (kind == RELEASE_NOTIFY)
        CHECK_OK(aclrtCreateNotify(&notify, ACL_NOTIFY_DEFAULT));
    else {
        CHECK_OK(aclrtMalloc(&word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK_OK(aclrtMemset(word, 64, 0, 64));
    }
    static struct hand_off h;
    atomic_store(&h.marker, 0);
    atomic_store(&h.gate, 0);
    atomic_store(&h.after, 0);
    atomic_store(&h.order_errors, 0);
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        h.round = r; /* read by this round's tasks only: the launches below publish it (release) */
        CHECK_OK(aclrtLaunchHostFunc(a, on_gate, &h));
        if (kind == RELEASE_EVENT)
            CHECK_OK(aclrtRecordEvent(ev, a));
        else if (kind == RELEASE_NOTIFY)
            CHECK_OK(aclrtRecordNotify(notify, a));
        else
            CHECK_OK(aclrtValueWrite(word, r, 0, a));
        CHECK_OK(aclrtLaunchHostFunc(b, on_marker, &h));
        if (kind == RELEASE_EVENT)
            CHECK_OK(aclrtStreamWaitEvent(b, ev));
        else if (kind == RELEASE_NOTIFY)
            CHECK_OK(aclrtWaitAndResetNotify(notify, b, 0));
        else
            CHECK_OK(aclrtValueWait(word, r, ACL_STREAM_WAIT_VALUE_GEQ, b));
        CHECK_OK(aclrtLaunchHostFunc(b, on_after, &h));
        CHECK_OK(aclrtSynchronizeStream(b));
        CHECK_OK(aclrtSynchronizeStream(a));
        CHECK_EQ(r, atomic_load(&h.after));
    }
    CHECK_EQ(0, atomic_load(&h.order_errors));
    if (ev != NULL)
        CHECK_OK(aclrtDestroyEvent(ev));
    if (notify != NULL)
        CHECK_OK(aclrtDestroyNotify(notify));
    if (word != NULL)
        CHECK_OK(aclrtFree(word));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(an_event_wait_is_released_by_a_busy_task_on_the_same_cpu)
{
    hand_offs(RELEASE_EVENT);
}

TEST(a_notify_wait_is_released_by_a_busy_task_on_the_same_cpu)
{
    hand_offs(RELEASE_NOTIFY);
}

TEST(a_value_wait_is_released_by_a_busy_task_on_the_same_cpu)
{
    hand_offs(RELEASE_VALUE);
}

struct counter {
    _Atomic uint64_t n;
    _Atomic uint64_t out_of_order;
};

static void count_one(void *arg)
{
    struct counter *c = arg;
    atomic_fetch_add_explicit(&c->n, 1, memory_order_relaxed);
}

static void expect_count(void *arg)
{
    struct counter *c = arg;
    if (atomic_load_explicit(&c->n, memory_order_relaxed) != 4096)
        atomic_fetch_add_explicit(&c->out_of_order, 1, memory_order_relaxed);
}

/* B's executor spins in a value wait that A's burst ends with a write: every task of the burst runs, in order. */
TEST(a_burst_runs_whole_beside_an_executor_spinning_in_a_wait)
{
    aclrtStream a, b;
    void *word;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtMalloc(&word, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_OK(aclrtMemset(word, 64, 0, 64));
    static struct counter c;
    atomic_store(&c.n, 0);
    atomic_store(&c.out_of_order, 0);
    CHECK_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, b));
    for (int i = 0; i < 4096; i++)
        CHECK_OK(aclrtLaunchHostFunc(a, count_one, &c));
    CHECK_OK(aclrtLaunchHostFunc(a, expect_count, &c));
    CHECK_OK(aclrtValueWrite(word, 1, 0, a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(4096, atomic_load(&c.n));
    CHECK_EQ(0, atomic_load(&c.out_of_order));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtFree(word));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(a));
}

int main(void)
{
    /* Two executors on the CPU this process starts on: more executors awake than CPUs. */
    int here = sched_getcpu();
    char cpu[16];
    snprintf(cpu, sizeof cpu, "%d", here < 0 ? 0 : here);
    setenv("ACLRT_CPUS", cpu, 1);
    setenv("ACLRT_EXECUTORS", "2", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(an_event_wait_is_released_by_a_busy_task_on_the_same_cpu);
    RUN(a_notify_wait_is_released_by_a_busy_task_on_the_same_cpu);
    RUN(a_value_wait_is_released_by_a_busy_task_on_the_same_cpu);
    RUN(a_burst_runs_whole_beside_an_executor_spinning_in_a_wait);
    aclrtResetDevice(0);
    aclFinalize();
    return check_report("crowded");
}
