/*
 * tests/test_wake_handoff.c - a stream woken by another stream's completion
 * on the same device: the executor that counted the completion takes it
 * itself when its own stream has nothing more, and wakes a sleeping
 * executor for it when its stream goes on with another task.
 *
 * Two executors that never spin (spin_ns 0): an idle one sleeps at once,
 * so which thread runs what is decided by the wake-ups alone.
 *   A: [gate] record(ev) [then]
 *   B: [marker] wait(ev) [after]
 * The gate returns once B's marker ran and every other executor sleeps.
 * And a fan-out onto sleeping executors, round after round: no stream is
 * left without a thread to run it.
 */
#define _GNU_SOURCE
#include "check.h"
#include "fan_out.h"
#include "threads.h"

#include "acl/acl.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_NS (10ull * 1000000000ull)

struct round {
    _Atomic int marker_ran;
    _Atomic int after_ran;
    _Atomic int others_asleep; /* the gate saw every other executor asleep */
    _Atomic int then_saw_after; /* A's next task saw B's task run meanwhile */
    _Atomic long gate_tid;
    _Atomic long after_tid;
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static long this_tid(void)
{
    return (long)syscall(SYS_gettid);
}

/* Is every executor thread of device 0 but `self` asleep? */
static int other_executors_asleep(long self)
{
    int total;
    int asleep = executors_asleep(self, &total);
    return total > 0 && asleep == total;
}

static void on_marker(void *arg)
{
    struct round *r = arg;
    atomic_store_explicit(&r->marker_ran, 1, memory_order_release);
}

/* A's gate: B is at its wait and every other executor asleep, then return. */
static void on_gate(void *arg)
{
    struct round *r = arg;
    long self = this_tid();
    atomic_store(&r->gate_tid, self);
    uint64_t end = now_ns() + WAIT_NS;
    while (!atomic_load_explicit(&r->marker_ran, memory_order_acquire) && now_ns() < end)
        sched_yield();
    while (!other_executors_asleep(self) && now_ns() < end)
        sched_yield();
    atomic_store(&r->others_asleep, other_executors_asleep(self));
}

static void on_after(void *arg)
{
    struct round *r = arg;
    atomic_store(&r->after_tid, this_tid());
    atomic_store_explicit(&r->after_ran, 1, memory_order_release);
}

/* A's task after its record: runs until B's task after the wait has run (or gives up). */
static void on_then(void *arg)
{
    struct round *r = arg;
    uint64_t end = now_ns() + WAIT_NS;
    while (!atomic_load_explicit(&r->after_ran, memory_order_acquire) && now_ns() < end)
        sched_yield();
    atomic_store(&r->then_saw_after, atomic_load_explicit(&r->after_ran, memory_order_acquire));
}

static void one_round(struct round *r, int a_goes_on)
{
    memset(r, 0, sizeof *r);
    aclrtStream a, b;
    aclrtEvent ev;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    CHECK_OK(aclrtCreateEvent(&ev));
    CHECK_OK(aclrtLaunchHostFunc(a, on_gate, r));
    CHECK_OK(aclrtRecordEvent(ev, a));
    if (a_goes_on)
        CHECK_OK(aclrtLaunchHostFunc(a, on_then, r));
    CHECK_OK(aclrtLaunchHostFunc(b, on_marker, r));
    CHECK_OK(aclrtStreamWaitEvent(b, ev));
    CHECK_OK(aclrtLaunchHostFunc(b, on_after, r));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(ev));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK(atomic_load(&r->after_ran));
}

/* A has nothing after its record: its executor runs B's next task itself, nobody is woken. */
TEST(the_completing_executor_takes_the_woken_stream)
{
    static struct round r;
    for (int i = 0; i < 20; i++) {
        one_round(&r, 0);
        CHECK(atomic_load(&r.others_asleep));
        CHECK_EQ(atomic_load(&r.gate_tid), atomic_load(&r.after_tid));
    }
}

/*
 * A goes on with a task that runs until B's has run: the other executor is
 * woken for B before A's task starts (were it left asleep, A's task would
 * wait for nothing, and give up after 10 s).
 */
TEST(a_stream_woken_while_its_waker_goes_on_is_run_by_another)
{
    static struct round r;
    for (int i = 0; i < 20; i++) {
        one_round(&r, 1);
        CHECK(atomic_load(&r.others_asleep));
        CHECK(atomic_load(&r.then_saw_after));
        CHECK(atomic_load(&r.gate_tid) != atomic_load(&r.after_tid));
    }
}

/* One task onto each of many idle streams while the executors sleep: every stream runs, round after round. */
TEST(a_fan_out_onto_sleeping_executors_runs_every_stream)
{
    fan_out_rounds(200, 30, NULL);
}

int main(void)
{
    setenv("ACLRT_EXECUTORS", "2", 1);
    setenv("ACLRT_SPIN_NS", "0", 1);
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "wake_handoff: setup failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN(the_completing_executor_takes_the_woken_stream);
    RUN(a_stream_woken_while_its_waker_goes_on_is_run_by_another);
    RUN(a_fan_out_onto_sleeping_executors_runs_every_stream);
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    return check_report("wake_handoff");
}
