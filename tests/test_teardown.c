/*
 * tests/test_teardown.c - pins "Teardown" (docs/SEMANTICS.md): aclFinalize,
 * aclrtResetDevice, aclrtResetDeviceForce and aclrtDestroyContext wait for
 * work that can still finish, discard work parked for good (a wait on a
 * stopped stream, on an event that is never recorded, on a callback nobody
 * processes), return, and leave a runtime that starts again.
 *
 * A teardown that hangs would hang the suite: each one runs in a helper
 * thread that the case waits for with a generous limit (not a timing
 * assertion: a correct teardown of these streams takes milliseconds; past
 * the limit the process reports the case and exits).
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "probe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#ifndef TEARDOWN_LIMIT_S
#define TEARDOWN_LIMIT_S 120
#endif

enum teardown_call { CALL_FINALIZE, CALL_RESET, CALL_RESET_FORCE, CALL_DESTROY_CONTEXT };

struct teardown {
    enum teardown_call call;
    int32_t device;
    aclrtContext context;
    aclError rc;
};

static void *teardown_main(void *arg)
{
    struct teardown *t = (struct teardown *)arg;
    switch (t->call) {
    case CALL_FINALIZE: t->rc = aclFinalize(); break;
    case CALL_RESET: t->rc = aclrtResetDevice(t->device); break;
    case CALL_RESET_FORCE: t->rc = aclrtResetDeviceForce(t->device); break;
    case CALL_DESTROY_CONTEXT: t->rc = aclrtDestroyContext(t->context); break;
    }
    return NULL;
}

/* Run the teardown call in a helper thread; a call that does not return within the limit ends the process. */
static aclError teardown_bounded(enum teardown_call call, int32_t device, aclrtContext context)
{
    struct teardown t = {call, device, context, -1};
    pthread_t thread;
    CHECK_EQ(0, pthread_create(&thread, NULL, teardown_main, &t));
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += TEARDOWN_LIMIT_S;
    if (pthread_timedjoin_np(thread, NULL, &limit) != 0) {
        fprintf(stderr, "FAIL [%s]\n  the teardown call did not return within %d s (it hangs)\n", check_case_name,
                TEARDOWN_LIMIT_S);
        fflush(stderr);
        _exit(1);
    }
    return t.rc;
}

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* Each case starts from a stopped runtime (whatever a failed case left behind), initialised, device 0 set. */
static void start(void)
{
    gates_open_all();
    aclFinalize();
    aclGetRecentErrMsg();
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
}

/* The runtime works after the teardown: a fresh device, stream and host function, synchronized. */
static void check_runtime_works(void)
{
    CHECK_OK(aclrtSetDevice(0));
    aclrtStream s = new_stream();
    atomic_int ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(0));
}

/* Stream `b` waits (aclrtStreamWaitEvent) for an event recorded on stopped stream `a` behind a queued probe. */
static void wait_behind_stopped_stream(aclrtStream a, aclrtStream b, struct probe *pa, struct probe *pb,
                                       aclrtEvent *e)
{
    CHECK_OK(aclrtStreamStop(a));
    launch_probe(a, pa, NULL); /* queued: a runs nothing more */
    CHECK_OK(aclrtCreateEventWithFlag(e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(*e, a));
    CHECK_OK(aclrtStreamWaitEvent(b, *e));
    launch_probe(b, pb, NULL);
}

/* ------------------------------------------------------------------------ */

TEST(finalize_discards_a_wait_on_a_stopped_stream_and_init_works_again)
{
    start();
    aclrtStream a = new_stream(), b = new_stream();
    struct probe pa, pb;
    aclrtEvent e;
    wait_behind_stopped_stream(a, b, &pa, &pb, &e);
    CHECK_OK(teardown_bounded(CALL_FINALIZE, 0, NULL));
    CHECK_EQ(0, atomic_load(&pa.ran));
    CHECK_EQ(0, atomic_load(&pb.ran));
    CHECK_OK(aclInit(NULL));
    check_runtime_works();
    CHECK_OK(aclFinalize());
}

/* Stream b of the current context waits for a legacy SYNC event nobody records, then a probe. */
static void wait_for_unrecorded_event(aclrtStream *b, struct probe *pb, aclrtEvent *e)
{
    *b = new_stream();
    CHECK_OK(aclrtCreateEventWithFlag(e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtStreamWaitEvent(*b, *e));
    launch_probe(*b, pb, NULL);
}

static void reset_discards_a_wait_for_an_unrecorded_event(enum teardown_call call)
{
    start();
    aclrtStream b;
    struct probe pb;
    aclrtEvent e;
    wait_for_unrecorded_event(&b, &pb, &e);
    CHECK_OK(teardown_bounded(call, 0, NULL));
    CHECK_EQ(0, atomic_load(&pb.ran));
    aclrtStreamStatus st;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(b, &st)); /* the stream is gone */
    CHECK_OK(aclrtDestroyEvent(e));                                 /* events outlive the reset */
    check_runtime_works();
    CHECK_OK(aclFinalize());
}

TEST(reset_device_discards_a_wait_for_an_event_never_recorded)
{
    reset_discards_a_wait_for_an_unrecorded_event(CALL_RESET);
}

TEST(reset_device_force_discards_a_wait_for_an_event_never_recorded)
{
    reset_discards_a_wait_for_an_unrecorded_event(CALL_RESET_FORCE);
}

TEST(destroy_context_discards_a_wait_for_an_event_never_recorded)
{
    start();
    aclrtContext ctx;
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream b;
    struct probe pb;
    aclrtEvent e;
    wait_for_unrecorded_event(&b, &pb, &e);
    CHECK_OK(teardown_bounded(CALL_DESTROY_CONTEXT, 0, ctx));
    CHECK_EQ(0, atomic_load(&pb.ran));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtResetDevice(0));
    check_runtime_works();
    CHECK_OK(aclFinalize());
}

TEST(reset_device_discards_a_wait_on_a_stopped_stream)
{
    start();
    aclrtStream a = new_stream(), b = new_stream();
    struct probe pa, pb;
    aclrtEvent e;
    wait_behind_stopped_stream(a, b, &pa, &pb, &e);
    CHECK_OK(teardown_bounded(CALL_RESET, 0, NULL));
    CHECK_EQ(0, atomic_load(&pa.ran));
    CHECK_EQ(0, atomic_load(&pb.ran));
    /* The event captured the discarded work: it counts as done. */
    aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    CHECK_OK(aclrtQueryEventStatus(e, &st));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
    CHECK_OK(aclrtDestroyEvent(e));
    check_runtime_works();
    CHECK_OK(aclFinalize());
}

TEST(reset_device_discards_a_block_callback_nobody_processes)
{
    start();
    aclrtStream b = new_stream();
    atomic_int called = 0;
    struct probe pb;
    CHECK_OK(aclrtSubscribeReport((uint64_t)pthread_self(), b)); /* this thread never processes reports */
    CHECK_OK(aclrtLaunchCallback(count_fn, &called, ACL_CALLBACK_BLOCK, b));
    launch_probe(b, &pb, NULL);
    CHECK_OK(teardown_bounded(CALL_RESET, 0, NULL));
    CHECK_EQ(0, atomic_load(&pb.ran));
    check_runtime_works();
    CHECK_OK(aclFinalize());
    CHECK_EQ(0, atomic_load(&called)); /* finalize dropped it: nobody processed */
}

struct event_sync {
    aclrtEvent event;
    atomic_int started;
    aclError rc;
};

static void *event_sync_main(void *arg)
{
    struct event_sync *w = (struct event_sync *)arg;
    atomic_store(&w->started, 1);
    w->rc = aclrtSynchronizeEvent(w->event);
    return NULL;
}

TEST(a_synchronize_on_discarded_work_returns_instead_of_waiting)
{
    start();
    aclrtStream b;
    struct probe pb;
    aclrtEvent e;
    wait_for_unrecorded_event(&b, &pb, &e);
    struct event_sync w = {NULL, 0, -1};
    CHECK_OK(aclrtCreateEventWithFlag(&w.event, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(w.event, b)); /* captures b's parked work */
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, event_sync_main, &w));
    CHECK(eventually(&w.started));
    chance(&pb.ran); /* not a synchronization: the waiter most likely sleeps by now */
    CHECK_OK(teardown_bounded(CALL_RESET, 0, NULL));
    CHECK_EQ(0, pthread_join(t, NULL));
    /* Discarded under the wait: STREAM_ABORT; if the waiter only looked afterwards, the work counts as done. */
    CHECK(w.rc == ACL_ERROR_RT_STREAM_ABORT || w.rc == ACL_SUCCESS);
    CHECK_EQ(0, atomic_load(&pb.ran));
    CHECK_OK(aclrtDestroyEvent(w.event));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclFinalize());
}

/*
 * Opens the gate soon after the teardown call has begun. The runtime gives a
 * parked stream 1 s without progress (while others stay busy) before it
 * discards it, and on a loaded machine the 2000 yields of gate_opener_main
 * can take longer than that: this opener yields a few times only.
 */
static atomic_int teardown_called;

static void *prompt_opener_main(void *arg)
{
    struct gate *g = (struct gate *)arg;
    gate_wait_entered(g);
    while (!atomic_load(&teardown_called))
        sched_yield();
    for (int i = 0; i < 20; i++)
        sched_yield(); /* not synchronization: a window for the teardown to begin waiting */
    gate_open(g);
    return NULL;
}

TEST(reset_device_waits_for_a_wait_whose_work_can_finish)
{
    start();
    aclrtStream a = new_stream(), b = new_stream();
    struct gate *g = busy(a); /* a runs a task that will end */
    struct probe pa, pb;
    launch_probe(a, &pa, NULL);
    aclrtEvent e;
    CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    launch_probe(b, &pb, &pa.ran);
    pthread_t opener;
    atomic_store(&teardown_called, 0);
    CHECK_EQ(0, pthread_create(&opener, NULL, prompt_opener_main, g));
    atomic_store(&teardown_called, 1);
    CHECK_OK(teardown_bounded(CALL_RESET, 0, NULL));
    CHECK_EQ(0, pthread_join(opener, NULL));
    CHECK_EQ(1, atomic_load(&pa.ran));
    CHECK_EQ(1, atomic_load(&pb.ran));
    CHECK_EQ(1, atomic_load(&pb.saw)); /* in order: b's wait held until a's work was done */
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclFinalize());
}

TEST(destroy_context_waits_for_a_wait_on_another_context_whose_work_can_finish)
{
    start();
    aclrtContext other, ctx;
    CHECK_OK(aclrtCreateContext(&other, 0));
    aclrtStream a = new_stream();
    struct gate *g = busy(a);
    struct probe pa, pb;
    launch_probe(a, &pa, NULL);
    aclrtEvent e;
    CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    aclrtStream b = new_stream();
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    launch_probe(b, &pb, &pa.ran);
    pthread_t opener;
    atomic_store(&teardown_called, 0);
    CHECK_EQ(0, pthread_create(&opener, NULL, prompt_opener_main, g));
    atomic_store(&teardown_called, 1);
    CHECK_OK(teardown_bounded(CALL_DESTROY_CONTEXT, 0, ctx));
    CHECK_EQ(0, pthread_join(opener, NULL));
    CHECK_EQ(1, atomic_load(&pb.ran));
    CHECK_EQ(1, atomic_load(&pb.saw));
    CHECK_OK(aclrtSetCurrentContext(other));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclFinalize());
}

TEST(finalize_runs_queued_work_before_discarding_what_is_parked_for_good)
{
    start();
    aclrtStream a = new_stream(), b = new_stream(), c = new_stream();
    struct probe pa, pb;
    aclrtEvent e;
    wait_behind_stopped_stream(a, b, &pa, &pb, &e);
    struct gate *g = busy(c); /* c's work ends once the opener opens the gate */
    atomic_int ran = 0;
    for (int i = 0; i < 100; i++)
        CHECK_OK(aclrtLaunchHostFunc(c, count_fn, &ran));
    pthread_t opener;
    CHECK_EQ(0, pthread_create(&opener, NULL, gate_opener_main, g));
    CHECK_OK(teardown_bounded(CALL_FINALIZE, 0, NULL));
    CHECK_EQ(0, pthread_join(opener, NULL));
    CHECK_EQ(100, atomic_load(&ran));
    CHECK_EQ(0, atomic_load(&pb.ran));
}

struct self_teardown {
    enum teardown_call call;
    aclError rc;
    atomic_int done;
};

/* A host function that tries to tear down what it runs in. */
static void self_teardown_fn(void *arg)
{
    struct self_teardown *t = (struct self_teardown *)arg;
    t->rc = t->call == CALL_FINALIZE ? aclFinalize() : aclrtResetDevice(0);
    atomic_store(&t->done, 1);
}

TEST(a_task_cannot_tear_down_the_device_or_runtime_it_runs_on)
{
    start();
    enum teardown_call calls[] = {CALL_RESET, CALL_FINALIZE};
    for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
        struct self_teardown t = {calls[i], -1, 0};
        CHECK_OK(aclrtLaunchHostFunc(NULL, self_teardown_fn, &t));
        /* A teardown that waited for its own task would never return: the limit turns that into a failure. */
        CHECK_OK(aclrtSynchronizeStreamWithTimeout(NULL, TEARDOWN_LIMIT_S * 1000));
        CHECK_EQ(1, atomic_load(&t.done));
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, t.rc);
    }
    check_runtime_works(); /* the reset was refused: the device is still set once, as start() set it */
    CHECK_OK(teardown_bounded(CALL_RESET, 0, NULL));
    CHECK_OK(aclFinalize());
}

int main(void)
{
    RUN(finalize_discards_a_wait_on_a_stopped_stream_and_init_works_again);
    RUN(reset_device_discards_a_wait_for_an_event_never_recorded);
    RUN(reset_device_force_discards_a_wait_for_an_event_never_recorded);
    RUN(destroy_context_discards_a_wait_for_an_event_never_recorded);
    RUN(reset_device_discards_a_wait_on_a_stopped_stream);
    RUN(reset_device_discards_a_block_callback_nobody_processes);
    RUN(a_synchronize_on_discarded_work_returns_instead_of_waiting);
    RUN(reset_device_waits_for_a_wait_whose_work_can_finish);
    RUN(destroy_context_waits_for_a_wait_on_another_context_whose_work_can_finish);
    RUN(finalize_runs_queued_work_before_discarding_what_is_parked_for_good);
    RUN(a_task_cannot_tear_down_the_device_or_runtime_it_runs_on);
    gates_open_all();
    aclFinalize();
    return check_report("teardown");
}
