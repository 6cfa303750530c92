/*
 * tests/test_event.c - pins "events" (docs/SEMANTICS.md, Events): the
 * three flavours, record/query/synchronize,
 * cross-stream waits, legacy SYNC stickiness and reset, destroy before
 * completion (what a pending wait keeps), captures of streams that died
 * (their slot reused), timestamps, timeouts, flag validation, ids and the
 * quota, and a soak of records, synchronizes and waits while the captured
 * streams die.
 *
 * Ordering is proven with gates and probes, never with sleeps:
 *   gate   a host function that spins on an atomic the test opens; it sets
 *          `done` when it returns.
 *   probe  a host function that records what it saw in a watched flag (e.g.
 *          a gate's `done`) and that it ran.
 * A probe queued behind a wait must see the producer's gate done. Before the
 * test opens a gate it gives a broken wait a bounded chance to run the probe
 * early (chance()), so a wait that does not block fails the case instead of
 * passing by luck. Gates live in a static pool and are all opened after
 * every case, so a failing case never leaves an executor spinning.
 */
#define _POSIX_C_SOURCE 200809L

#include "check.h"
#include "gate.h"
#include "probe.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

static atomic_long spin_counter;

/* A known amount of work: a fixed number of atomic increments. */
static void spin_fn(void *arg)
{
    long n = (long)(intptr_t)arg;
    for (long i = 0; i < n; i++)
        atomic_fetch_add(&spin_counter, 1);
}

static aclrtEventRecordedStatus status_of(aclrtEvent e)
{
    aclrtEventRecordedStatus st = (aclrtEventRecordedStatus)0x7777;
    CHECK_OK(aclrtQueryEventStatus(e, &st));
    return st;
}

static aclrtEventWaitStatus wait_status_of(aclrtEvent e)
{
    aclrtEventWaitStatus st = (aclrtEventWaitStatus)0x7777;
    CHECK_OK(aclrtQueryEventWaitStatus(e, &st));
    return st;
}

/* The deprecated query, called in one place with the warning silenced. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static aclError query_event(aclrtEvent e, aclrtEventStatus *st)
{
    return aclrtQueryEvent(e, st);
}
#pragma GCC diagnostic pop

enum flavour { PLAIN, LEGACY_SYNC, EX_SYNC };
static const char *const flavour_name[] = {"aclrtCreateEvent", "WithFlag(SYNC)", "ExWithFlag(SYNC)"};

static aclrtEvent new_event(enum flavour f)
{
    aclrtEvent e = NULL;
    switch (f) {
    case PLAIN: CHECK_OK(aclrtCreateEvent(&e)); break;
    case LEGACY_SYNC: CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC)); break;
    case EX_SYNC: CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC)); break;
    }
    CHECK(e != NULL);
    return e;
}

static aclrtContext main_context;

/* The executor pool size this suite runs with (ACLRT_EXECUTORS, set in main). */
#define POOL_EXECUTORS 2

/* ------------------------------------------------------------------------
 * Status polarity and the state before the first record
 * ------------------------------------------------------------------------ */

TEST(recorded_status_not_ready_is_0_and_a_finished_record_reports_complete_1)
{
    CHECK_EQ(0, ACL_EVENT_RECORDED_STATUS_NOT_READY);
    CHECK_EQ(1, ACL_EVENT_RECORDED_STATUS_COMPLETE);
    aclrtStream s = new_stream();
    aclrtEvent e = new_event(PLAIN);
    CHECK_OK(aclrtLaunchHostFunc(s, spin_fn, (void *)(intptr_t)1000));
    CHECK_OK(aclrtRecordEvent(e, s));
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(1, status_of(e));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(never_recorded_query_status_not_ready_except_ex_complete)
{
    aclrtEvent plain = new_event(PLAIN), legacy = new_event(LEGACY_SYNC), ex = new_event(EX_SYNC);
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(plain));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(legacy));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(ex));
    CHECK_OK(aclrtDestroyEvent(plain));
    CHECK_OK(aclrtDestroyEvent(legacy));
    CHECK_OK(aclrtDestroyEvent(ex));
}

TEST(never_recorded_deprecated_query_event_is_complete_and_rejects_ex)
{
    aclrtEvent plain = new_event(PLAIN), legacy = new_event(LEGACY_SYNC), ex = new_event(EX_SYNC);
    aclrtEventStatus st = ACL_EVENT_STATUS_RESERVED;
    CHECK_OK(query_event(plain, &st));
    CHECK_EQ(ACL_EVENT_STATUS_COMPLETE, st);
    st = ACL_EVENT_STATUS_RESERVED;
    CHECK_OK(query_event(legacy, &st));
    CHECK_EQ(ACL_EVENT_STATUS_COMPLETE, st);
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, query_event(ex, &st));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, query_event(plain, NULL));
    CHECK_OK(aclrtDestroyEvent(plain));
    CHECK_OK(aclrtDestroyEvent(legacy));
    CHECK_OK(aclrtDestroyEvent(ex));
}

TEST(never_recorded_synchronize_event_succeeds_for_every_flavour)
{
    for (int f = PLAIN; f <= EX_SYNC; f++) {
        aclrtEvent e = new_event((enum flavour)f);
        CHECK_OK(aclrtSynchronizeEvent(e));
        CHECK_OK(aclrtSynchronizeEventWithTimeout(e, 1000));
        CHECK_OK(aclrtDestroyEvent(e));
    }
}

TEST(never_recorded_ex_wait_passes_without_blocking_and_plain_wait_is_param_invalid)
{
    static struct probe p;
    aclrtStream s = new_stream();
    aclrtEvent ex = new_event(EX_SYNC), plain = new_event(PLAIN);
    probe_init(&p, NULL);
    CHECK_OK(aclrtStreamWaitEvent(s, ex));
    CHECK_OK(aclrtLaunchHostFunc(s, probe_fn, &p));
    /* A blocked stream would time out here instead of draining. */
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, 5000));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(s, plain));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(s, plain, 1));
    CHECK_OK(aclrtDestroyEvent(ex));
    CHECK_OK(aclrtDestroyEvent(plain));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Record, query, cross-stream waits
 * ------------------------------------------------------------------------ */

TEST(record_on_busy_stream_is_not_ready_until_the_stream_drains)
{
    aclrtStream a = new_stream();
    for (int f = PLAIN; f <= EX_SYNC; f++) {
        aclrtEvent e = new_event((enum flavour)f);
        struct gate *g = busy(a);
        CHECK_OK(aclrtRecordEvent(e, a));
        for (int i = 0; i < 100; i++)
            CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
        if (f != EX_SYNC) {
            aclrtEventStatus st = ACL_EVENT_STATUS_RESERVED;
            CHECK_OK(query_event(e, &st));
            CHECK_EQ(ACL_EVENT_STATUS_NOT_READY, st);
        }
        CHECK_EQ(0, atomic_load(&g->done));
        gate_open(g);
        CHECK_OK(aclrtSynchronizeStream(a));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
        if (f != EX_SYNC) {
            aclrtEventStatus st = ACL_EVENT_STATUS_RESERVED;
            CHECK_OK(query_event(e, &st));
            CHECK_EQ(ACL_EVENT_STATUS_COMPLETE, st);
        }
        CHECK_OK(aclrtDestroyEvent(e));
    }
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(synchronize_event_waits_for_the_captured_work)
{
    static struct probe later;
    aclrtStream a = new_stream();
    aclrtEvent e = new_event(PLAIN);
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    /* Work submitted after the record is not part of the capture. */
    struct gate *g2 = new_gate();
    CHECK_OK(aclrtLaunchHostFunc(a, gate_fn, g2));
    probe_init(&later, NULL);
    CHECK_OK(aclrtLaunchHostFunc(a, probe_fn, &later));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(1, atomic_load(&g->done));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_EQ(0, atomic_load(&later.ran)); /* still behind g2 */
    gate_open(g2);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(1, atomic_load(&later.ran));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(cross_stream_wait_runs_consumer_after_the_gated_producer)
{
    static struct probe p[3];
    aclrtStream a = new_stream(), b = new_stream();
    for (int f = PLAIN; f <= EX_SYNC; f++) {
        aclrtEvent e = new_event((enum flavour)f);
        struct gate *g = busy(a);
        CHECK_OK(aclrtRecordEvent(e, a));
        CHECK_OK(aclrtStreamWaitEvent(b, e));
        probe_init(&p[f], &g->done);
        CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p[f]));
        chance(&p[f].ran);
        if (atomic_load(&p[f].ran))
            fprintf(stderr, "  (%s)\n", flavour_name[f]);
        CHECK_EQ(0, atomic_load(&p[f].ran));
        CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
        gate_open(g);
        CHECK_OK(aclrtSynchronizeStream(b));
        CHECK_EQ(1, atomic_load(&p[f].ran));
        CHECK_EQ(1, atomic_load(&p[f].saw)); /* the producer's gated task had finished */
        CHECK_OK(aclrtSynchronizeStream(a));
        CHECK_OK(aclrtDestroyEvent(e));
    }
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(re_record_does_not_change_a_pending_wait)
{
    static struct probe p[3];
    aclrtStream a = new_stream(), b = new_stream(), c = new_stream();
    for (int f = PLAIN; f <= EX_SYNC; f++) {
        aclrtEvent e = new_event((enum flavour)f);
        struct gate *g = busy(a);
        /* b reaches its wait only after the re-record: the wait must use the copy it took. */
        struct gate *gb = busy(b);
        CHECK_OK(aclrtRecordEvent(e, a)); /* record #1: behind the gate */
        CHECK_OK(aclrtStreamWaitEvent(b, e));
        probe_init(&p[f], &g->done);
        CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p[f]));
        CHECK_OK(aclrtRecordEvent(e, c)); /* record #2: idle stream, complete */
        CHECK_OK(aclrtSynchronizeStream(c));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
        gate_open(gb);
        chance(&p[f].ran);
        if (atomic_load(&p[f].ran))
            fprintf(stderr, "  (%s)\n", flavour_name[f]);
        CHECK_EQ(0, atomic_load(&p[f].ran));
        gate_open(g);
        CHECK_OK(aclrtSynchronizeStream(b));
        CHECK_EQ(1, atomic_load(&p[f].saw));
        CHECK_OK(aclrtSynchronizeStream(a));
        CHECK_OK(aclrtDestroyEvent(e));
    }
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
}

TEST(ex_event_recaptures_on_every_record)
{
    aclrtStream a = new_stream(), c = new_stream();
    aclrtEvent e = new_event(EX_SYNC);
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
    CHECK_OK(aclrtRecordEvent(e, c));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtSynchronizeEvent(e)); /* returns at once: the capture is the idle stream's */
    CHECK_EQ(0, atomic_load(&g->done));
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(1, atomic_load(&g->done));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(c));
}

/* ------------------------------------------------------------------------
 * Legacy SYNC events: sticky until reset
 * ------------------------------------------------------------------------ */

TEST(legacy_sync_event_is_sticky_until_reset_and_then_waits_for_the_next_record)
{
    static struct probe sticky[3], after_reset;
    static atomic_int recorded_again;
    aclrtStream a = new_stream(), w[3];
    for (int i = 0; i < 3; i++)
        w[i] = new_stream();
    aclrtEvent e = new_event(LEGACY_SYNC);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    /* One record releases any number of waits, one after another. */
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 3; i++) {
            probe_init(&sticky[i], NULL);
            CHECK_OK(aclrtStreamWaitEvent(w[i], e));
            CHECK_OK(aclrtLaunchHostFunc(w[i], probe_fn, &sticky[i]));
            CHECK_OK(aclrtSynchronizeStreamWithTimeout(w[i], 5000));
            CHECK_EQ(1, atomic_load(&sticky[i].ran));
        }
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));

    CHECK_OK(aclrtResetEvent(e, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));

    atomic_store(&recorded_again, 0);
    probe_init(&after_reset, &recorded_again);
    CHECK_OK(aclrtStreamWaitEvent(w[0], e));
    CHECK_OK(aclrtLaunchHostFunc(w[0], probe_fn, &after_reset));
    chance(&after_reset.ran);
    CHECK_EQ(0, atomic_load(&after_reset.ran));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, wait_status_of(e));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(w[0]));
    atomic_store(&recorded_again, 1);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtSynchronizeStream(w[0]));
    CHECK_EQ(1, atomic_load(&after_reset.ran));
    CHECK_EQ(1, atomic_load(&after_reset.saw));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    for (int i = 0; i < 3; i++)
        CHECK_OK(aclrtDestroyStream(w[i]));
}

TEST(legacy_wait_issued_before_any_record_waits_for_the_next_record)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtEvent e = new_event(LEGACY_SYNC);
    struct gate *g = new_gate();
    probe_init(&p, &g->done);
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, wait_status_of(e));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
    /* The record it binds to captures gated work: still blocked until the gate opens. */
    CHECK_OK(aclrtLaunchHostFunc(a, gate_fn, g));
    CHECK(gate_wait_entered(g));
    CHECK_OK(aclrtRecordEvent(e, a));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, wait_status_of(e));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.saw));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(reset_is_applied_in_stream_order_and_a_later_record_survives_it)
{
    aclrtStream a = new_stream(), c = new_stream();
    aclrtEvent e = new_event(LEGACY_SYNC);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    /* Reset queued behind a gate: the event stays recorded until c reaches it. */
    struct gate *g = busy(c);
    CHECK_OK(aclrtResetEvent(e, c));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(c));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
    /* A record made after the reset call survives the reset. */
    g = busy(c);
    CHECK_OK(aclrtResetEvent(e, c));
    CHECK_OK(aclrtRecordEvent(e, a));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(c));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(c));
}

TEST(reset_of_a_create_event_event_works_like_a_legacy_sync_reset)
{
    aclrtStream a = new_stream();
    aclrtEvent e = new_event(PLAIN);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtResetEvent(e, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(reset_and_wait_reject_ex_events_and_events_without_sync)
{
    aclrtStream s = new_stream();
    aclrtEvent ex = NULL, ex_tl = NULL, legacy_tl = NULL;
    CHECK_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
    CHECK_OK(aclrtCreateEventExWithFlag(&ex_tl, ACL_EVENT_TIME_LINE));
    CHECK_OK(aclrtCreateEventWithFlag(&legacy_tl, ACL_EVENT_TIME_LINE));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ex, s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(legacy_tl, s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(s, legacy_tl));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(s, ex_tl));
    /* Still rejected once recorded. */
    CHECK_OK(aclrtRecordEvent(ex, s));
    CHECK_OK(aclrtRecordEvent(ex_tl, s));
    CHECK_OK(aclrtRecordEvent(legacy_tl, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ex, s));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(s, legacy_tl));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(s, ex_tl));
    CHECK_OK(aclrtDestroyEvent(ex));
    CHECK_OK(aclrtDestroyEvent(ex_tl));
    CHECK_OK(aclrtDestroyEvent(legacy_tl));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(device_use_only_and_external_events_are_limited_as_documented)
{
    aclrtStream s = new_stream();
    aclrtEvent dev = NULL, ext = NULL;
    CHECK_OK(aclrtCreateEventWithFlag(&dev, ACL_EVENT_DEVICE_USE_ONLY));
    CHECK_OK(aclrtCreateEventWithFlag(&ext, ACL_EVENT_EXTERNAL));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(s, dev));
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtRecordEvent(ext, s));
    aclrtEventWaitStatus ws;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(ext, &ws));
    uint64_t ts;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventGetTimestamp(ext, &ts));
    CHECK_OK(aclrtDestroyEvent(dev));
    CHECK_OK(aclrtDestroyEvent(ext));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(null_and_garbage_event_handles_are_rejected)
{
    aclrtStream s = new_stream();
    aclrtEventRecordedStatus st;
    aclrtEvent garbage = (aclrtEvent)(uintptr_t)0x5a5a5a5a5a5aull;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(NULL, s));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(NULL, &st));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEvent(s, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(garbage, s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(garbage, &st));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(garbage));
    aclrtEvent e = new_event(PLAIN);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(e, NULL));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Flag validation
 * ------------------------------------------------------------------------ */

TEST(create_event_with_flag_validates_flags_like_the_runtime)
{
    static const uint32_t bad[] = {0x0, 0x40, 0x3F, 0x10 | 0x1, 0x20 | 0x1, 0x80, 0x41};
    static const uint32_t good[] = {0x10, 0x20, 0x1 | 0x2 | 0x8, 0x1, 0x2, 0x8, 0xF};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        aclrtEvent e = NULL;
        aclError rc = aclrtCreateEventWithFlag(&e, bad[i]);
        if (rc != ACL_ERROR_RT_PARAM_INVALID)
            fprintf(stderr, "  (flag 0x%x)\n", bad[i]);
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, rc);
    }
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        aclrtEvent e = NULL;
        aclError rc = aclrtCreateEventWithFlag(&e, good[i]);
        if (rc != ACL_SUCCESS)
            fprintf(stderr, "  (flag 0x%x)\n", good[i]);
        CHECK_OK(rc);
        CHECK(e != NULL);
        CHECK_OK(aclrtDestroyEvent(e));
    }
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateEvent(NULL));
}

TEST(create_event_ex_with_flag_validates_flags_and_takes_ipc_alone)
{
    static const uint32_t bad[] = {0x0, 0x20, 0x10, 0x41, 0x80, 0x49};
    static const uint32_t good[] = {0x9, 0x1, 0x2, 0x8, 0xF};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        aclrtEvent e = NULL;
        aclError rc = aclrtCreateEventExWithFlag(&e, bad[i]);
        if (rc != ACL_ERROR_RT_PARAM_INVALID)
            fprintf(stderr, "  (flag 0x%x)\n", bad[i]);
        CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, rc);
    }
    aclrtEvent ipc = NULL;
    CHECK_OK(aclrtCreateEventExWithFlag(&ipc, ACL_EVENT_IPC));
    CHECK(ipc != NULL);
    CHECK_OK(aclrtDestroyEvent(ipc));
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        aclrtEvent e = NULL;
        aclError rc = aclrtCreateEventExWithFlag(&e, good[i]);
        if (rc != ACL_SUCCESS)
            fprintf(stderr, "  (flag 0x%x)\n", good[i]);
        CHECK_OK(rc);
        CHECK(e != NULL);
        CHECK_OK(aclrtDestroyEvent(e));
    }
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC));
}

/* ------------------------------------------------------------------------
 * Destroy
 * ------------------------------------------------------------------------ */

TEST(destroy_before_completion_is_safe_and_an_earlier_wait_still_waits)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtEvent e = new_event(PLAIN);
    struct gate *g = busy(a);
    struct gate *gb = busy(b); /* b reaches the wait after the destroy */
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    probe_init(&p, &g->done);
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    CHECK_OK(aclrtDestroyEvent(e));
    gate_open(gb);
    aclrtEventRecordedStatus st;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(e, &st));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(e, a));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEvent(e));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(b, e));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(e));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(1, atomic_load(&p.saw));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(destroy_of_a_timed_event_recorded_on_a_busy_stream_is_safe)
{
    /* The stamp task queued behind the gate must not touch the dead event's next life. */
    aclrtStream a = new_stream();
    aclrtEvent e = new_event(PLAIN);
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtDestroyEvent(e));
    aclrtEvent e2 = new_event(PLAIN); /* may reuse the slot */
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e2));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e2));
    uint64_t ts = 0;
    CHECK_EQ(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventGetTimestamp(e2, &ts));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtEventGetTimestamp(e, &ts));
    CHECK_OK(aclrtDestroyEvent(e2));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(a_status_query_through_a_dead_handle_fails_though_its_slot_holds_a_complete_event)
{
    /* The query's common case reads the slot directly: the handle's life must still be checked there. */
    aclrtStream a = new_stream();
    aclrtEvent e = new_event(EX_SYNC);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtDestroyEvent(e));
    aclrtEvent e2 = new_event(EX_SYNC); /* takes the slot: last freed, first reused */
    CHECK_OK(aclrtRecordEvent(e2, a));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e2));
    aclrtEventRecordedStatus st = (aclrtEventRecordedStatus)7;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(e, &st));
    CHECK_EQ(7, (int)st); /* nothing written on failure */
    CHECK(strstr(aclGetRecentErrMsg(), "event") != NULL);
    /* A capture of a stream that died since is complete (its count goes on across lives). */
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e2, a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e2));
    gate_open(g);
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e2));
    CHECK_OK(aclrtDestroyEvent(e2));
}

TEST(destroying_a_legacy_event_releases_a_stream_waiting_for_its_next_record)
{
    static struct probe p;
    aclrtStream b = new_stream();
    aclrtEvent e = new_event(LEGACY_SYNC);
    probe_init(&p, NULL);
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    CHECK_EQ(ACL_STREAM_STATUS_NOT_READY, stream_status_of(b));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 5000)); /* a stream left parked would time out */
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_OK(aclrtDestroyStream(b));
}

/*
 * How a wait on `b` gets its capture: a plain or legacy event recorded
 * first and then waited for (the wait copies the record), or a legacy event
 * waited for before any record (the wait binds to the next record).
 */
enum wait_mode { RECORD_THEN_WAIT_PLAIN, RECORD_THEN_WAIT_LEGACY, WAIT_THEN_RECORD_LEGACY };
static const char *const wait_mode_name[] = {"plain, record then wait", "legacy, record then wait",
                                             "legacy, wait then record"};

TEST(a_wait_keeps_the_record_made_before_the_destroy_when_a_new_event_takes_the_slot)
{
    static struct probe p[3];
    aclrtStream a = new_stream(), b = new_stream(), c = new_stream();
    for (int m = RECORD_THEN_WAIT_PLAIN; m <= WAIT_THEN_RECORD_LEGACY; m++) {
        if (getenv("CHECK_VERBOSE"))
            fprintf(stderr, "  %s\n", wait_mode_name[m]);
        aclrtEvent e = new_event(m == RECORD_THEN_WAIT_PLAIN ? PLAIN : LEGACY_SYNC);
        struct gate *gb = busy(b); /* b reaches the wait only after the destroy */
        struct gate *ga = launch_gate(a); /* the work the record captures */
        if (m == WAIT_THEN_RECORD_LEGACY)
            CHECK_OK(aclrtStreamWaitEvent(b, e));
        CHECK_OK(aclrtRecordEvent(e, a));
        if (m != WAIT_THEN_RECORD_LEGACY)
            CHECK_OK(aclrtStreamWaitEvent(b, e));
        launch_probe(b, &p[m], &ga->done);
        CHECK_OK(aclrtDestroyEvent(e));
        /* A new event, likely in the freed slot, recorded on an idle stream: complete at once. */
        aclrtEvent e2 = new_event(LEGACY_SYNC);
        CHECK_OK(aclrtRecordEvent(e2, c));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e2));
        gate_open(gb);
        chance(&p[m].ran);
        CHECK_EQ(0, atomic_load(&p[m].ran));
        gate_open(ga);
        CHECK_OK(aclrtSynchronizeStream(b));
        CHECK_EQ(1, atomic_load(&p[m].ran));
        CHECK_EQ(1, atomic_load(&p[m].saw));
        CHECK_OK(aclrtDestroyEvent(e2));
    }
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
}

TEST(a_legacy_wait_parked_on_the_event_binds_to_a_record_followed_at_once_by_the_destroy)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    for (int i = 0; i < 20; i++) {
        aclrtEvent e = new_event(LEGACY_SYNC);
        struct gate *ga = launch_gate(a); /* the work the record captures */
        CHECK_OK(aclrtStreamWaitEvent(b, e)); /* not recorded yet: b parks on the event */
        launch_probe(b, &p, &ga->done);
        chance(&p.ran);
        CHECK_EQ(0, atomic_load(&p.ran));
        CHECK_OK(aclrtRecordEvent(e, a)); /* wakes b ... */
        CHECK_OK(aclrtDestroyEvent(e));   /* ... which may look at the event only after this */
        chance(&p.ran);
        CHECK_EQ(0, atomic_load(&p.ran));
        gate_open(ga);
        CHECK_OK(aclrtSynchronizeStream(b));
        CHECK_EQ(1, atomic_load(&p.saw));
    }
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(an_event_destroyed_with_pending_waits_gives_its_quota_back_at_once_and_its_slot_after_them)
{
    aclrtStream a = new_stream(), b = new_stream();
    uint32_t before = 0, now = 0;
    CHECK_OK(aclrtGetEventAvailNum(&before));
    aclrtEvent e = new_event(LEGACY_SYNC);
    CHECK_OK(aclrtGetEventAvailNum(&now));
    CHECK_EQ(before - 1, now);
    struct gate *gb = busy(b);
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, wait_status_of(e));
    CHECK_OK(aclrtRecordEvent(e, a));
    uint32_t id = 0, other = 0;
    CHECK_OK(aclrtGetEventId(e, &id));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtGetEventAvailNum(&now)); /* the waits are still pending */
    CHECK_EQ(before, now);
    aclrtEventWaitStatus ws;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventWaitStatus(e, &ws));
    /* The slot stays with the pending waits: a new event gets another one. */
    aclrtEvent e2 = new_event(LEGACY_SYNC);
    CHECK_OK(aclrtGetEventId(e2, &other));
    CHECK(other != id);
    gate_open(gb);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtGetEventAvailNum(&now));
    CHECK_EQ(before - 1, now);
    /* Once they ran, the slot is free again: the next event takes it (the last slot freed). */
    aclrtEvent e3 = new_event(LEGACY_SYNC);
    CHECK_OK(aclrtGetEventId(e3, &other));
    CHECK_EQ(id, other);
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e3));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e3));
    CHECK_OK(aclrtDestroyEvent(e2));
    CHECK_OK(aclrtDestroyEvent(e3));
    CHECK_OK(aclrtGetEventAvailNum(&now));
    CHECK_EQ(before, now);
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* ------------------------------------------------------------------------
 * A capture belongs to one life of its stream
 * ------------------------------------------------------------------------ */

static aclError fail_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    return (aclError)(intptr_t)arg;
}

/*
 * Create streams in the current context until one takes the slot (stream
 * id) `id` (the destroyed stream's slot may still be held by its executor
 * for a moment). Free slots are reused last-freed first, so every stream
 * that took another slot is held (in `extra`, destroyed by the caller), or
 * it would go back on top of `id` and be handed out again and again; when
 * `extra` is full, all of it goes back and the search starts over.
 */
static aclrtStream stream_in_slot(int32_t id, aclrtStream *extra, int *n_extra, int max_extra)
{
    for (long tries = 0; tries < 20000000L; tries++) {
        aclrtStream s = new_stream();
        int32_t got = -1;
        CHECK_OK(aclrtStreamGetId(s, &got));
        if (got == id)
            return s;
        if (*n_extra == max_extra) {
            for (int i = 0; i < max_extra; i++)
                CHECK_OK(aclrtDestroyStream(extra[i]));
            *n_extra = 0;
            sched_yield();
        }
        extra[(*n_extra)++] = s;
    }
    return NULL;
}

TEST(an_event_on_a_dead_stream_ignores_the_failure_of_a_stream_that_reuses_its_slot)
{
    aclrtContext other;
    CHECK_OK(aclrtCreateContext(&other, 0)); /* first: its default stream must not take the slot */
    CHECK_OK(aclrtSetCurrentContext(main_context));
    aclrtStream s = new_stream();
    int32_t id = -1;
    CHECK_OK(aclrtStreamGetId(s, &id));
    aclrtEvent e = new_event(PLAIN), on_failing = new_event(PLAIN);
    CHECK_OK(aclrtLaunchHostFunc(s, spin_fn, (void *)(intptr_t)100));
    CHECK_OK(aclrtRecordEvent(e, s));
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_OK(aclrtDestroyStream(s));

    /* A stream of the other context takes the slot and stops that context with a failure. */
    CHECK_OK(aclrtSetCurrentContext(other));
    aclrtStream extra[64];
    int n_extra = 0;
    aclrtStream t = stream_in_slot(id, extra, &n_extra, 64);
    CHECK(t != NULL);
    CHECK_OK(aclrtSetStreamFailureMode(t, ACL_STOP_ON_FAILURE));
    CHECK_OK(aclrtRecordEvent(on_failing, t));
    CHECK_OK(aclrtxLaunchHostKernel(t, 1, fail_kernel, (void *)(intptr_t)ACL_ERROR_RT_AICORE_EXCEPTION));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(t));

    /* The old capture is complete and carries no error; one of the failing life does. */
    CHECK_OK(aclrtSetCurrentContext(main_context));
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_OK(aclrtSynchronizeEventWithTimeout(e, 5000));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeEvent(on_failing));
    aclrtStream w = new_stream();
    CHECK_OK(aclrtStreamWaitEvent(w, e));
    CHECK_OK(aclrtSynchronizeStream(w));
    CHECK_OK(aclrtDestroyStream(w));

    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyEvent(on_failing));
    CHECK_OK(aclrtSetCurrentContext(other));
    CHECK_OK(aclrtDestroyStream(t));
    for (int i = 0; i < n_extra; i++)
        CHECK_OK(aclrtDestroyStream(extra[i]));
    CHECK_OK(aclrtDestroyContext(other));
    CHECK_OK(aclrtSetCurrentContext(main_context));
}

/* ------------------------------------------------------------------------
 * Timestamps
 * ------------------------------------------------------------------------ */

TEST(elapsed_time_and_timestamps_around_known_work)
{
    aclrtStream s = new_stream();
    aclrtEvent start = new_event(PLAIN), end = new_event(PLAIN);
    atomic_store(&spin_counter, 0);
    CHECK_OK(aclrtRecordEvent(start, s));
    CHECK_OK(aclrtLaunchHostFunc(s, spin_fn, (void *)(intptr_t)200000));
    CHECK_OK(aclrtRecordEvent(end, s));
    CHECK_OK(aclrtSynchronizeEvent(end));
    CHECK_EQ(200000, atomic_load(&spin_counter));
    float ms = -1.0f;
    CHECK_OK(aclrtEventElapsedTime(&ms, start, end));
    CHECK(ms >= 0.0f);
    uint64_t t0 = 0, t1 = 0;
    CHECK_OK(aclrtEventGetTimestamp(start, &t0));
    CHECK_OK(aclrtEventGetTimestamp(end, &t1));
    CHECK(t0 > 0);
    CHECK(t1 >= t0);
    /* Microseconds on CLOCK_MONOTONIC ("since boot"): not after now. */
    CHECK(t1 <= probe_mono_ns() / 1000u);
    /* Legacy and Ex events with ACL_EVENT_TIME_LINE take timestamps too. */
    aclrtEvent lt = NULL, xt = NULL;
    CHECK_OK(aclrtCreateEventWithFlag(&lt, ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC));
    CHECK_OK(aclrtCreateEventExWithFlag(&xt, ACL_EVENT_TIME_LINE));
    CHECK_OK(aclrtRecordEvent(lt, s));
    CHECK_OK(aclrtRecordEvent(xt, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtEventElapsedTime(&ms, start, lt));
    CHECK_OK(aclrtEventElapsedTime(&ms, lt, xt));
    CHECK(ms >= 0.0f);
    CHECK_OK(aclrtDestroyEvent(lt));
    CHECK_OK(aclrtDestroyEvent(xt));
    CHECK_OK(aclrtDestroyEvent(start));
    CHECK_OK(aclrtDestroyEvent(end));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(elapsed_time_works_across_two_streams)
{
    aclrtStream a = new_stream(), b = new_stream();
    aclrtEvent start = new_event(PLAIN), end = new_event(PLAIN);
    CHECK_OK(aclrtRecordEvent(start, a));
    CHECK_OK(aclrtStreamWaitEvent(b, start));
    CHECK_OK(aclrtLaunchHostFunc(b, spin_fn, (void *)(intptr_t)10000));
    CHECK_OK(aclrtRecordEvent(end, b));
    CHECK_OK(aclrtSynchronizeEvent(end));
    CHECK_OK(aclrtSynchronizeEvent(start));
    float ms = -1.0f;
    CHECK_OK(aclrtEventElapsedTime(&ms, start, end));
    CHECK(ms >= 0.0f);
    CHECK_OK(aclrtDestroyEvent(start));
    CHECK_OK(aclrtDestroyEvent(end));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(elapsed_time_and_timestamp_error_codes)
{
    aclrtStream s = new_stream();
    aclrtEvent never = new_event(PLAIN), done = new_event(PLAIN), pending = new_event(PLAIN);
    float ms = 0.0f;
    uint64_t ts = 0;
    CHECK_OK(aclrtRecordEvent(done, s));
    CHECK_OK(aclrtSynchronizeStream(s));

    /* Never recorded. */
    CHECK_EQ(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, never, done));
    CHECK_EQ(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, done, never));
    CHECK_EQ(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventGetTimestamp(never, &ts));

    /* Recorded, not complete. */
    struct gate *g = busy(s);
    CHECK_OK(aclrtRecordEvent(pending, s));
    CHECK_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, done, pending));
    CHECK_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(pending, &ts));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtEventElapsedTime(&ms, done, pending));
    CHECK(ms >= 0.0f);

    /* No ACL_EVENT_TIME_LINE: recorded and complete, still no timestamp. */
    aclrtEvent ex = new_event(EX_SYNC), legacy = new_event(LEGACY_SYNC);
    CHECK_OK(aclrtRecordEvent(ex, s));
    CHECK_OK(aclrtRecordEvent(legacy, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, done, ex));
    CHECK_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, ex, done));
    CHECK_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, legacy, done));
    CHECK_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(ex, &ts));

    /* NULL arguments. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(NULL, done, pending));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, NULL, pending));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(&ms, done, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(done, NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(NULL, &ts));

    CHECK_OK(aclrtDestroyEvent(ex));
    CHECK_OK(aclrtDestroyEvent(legacy));
    CHECK_OK(aclrtDestroyEvent(never));
    CHECK_OK(aclrtDestroyEvent(done));
    CHECK_OK(aclrtDestroyEvent(pending));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(elapsed_time_of_end_completed_before_start_is_timestamp_reversal)
{
    aclrtStream s = new_stream();
    aclrtEvent start = new_event(PLAIN), end = new_event(PLAIN);
    CHECK_OK(aclrtRecordEvent(end, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    /* Let the clock move on (a read of the clock, not a sleep). */
    uint64_t t = probe_mono_ns();
    while (probe_mono_ns() < t + 2000)
        ;
    CHECK_OK(aclrtRecordEvent(start, s));
    CHECK_OK(aclrtSynchronizeStream(s));
    float ms = 0.0f;
    CHECK_EQ(ACL_ERROR_RT_EVENT_TIMESTAMP_REVERSAL, aclrtEventElapsedTime(&ms, start, end));
    CHECK_OK(aclrtEventElapsedTime(&ms, end, start));
    CHECK(ms >= 0.0f);
    CHECK_OK(aclrtDestroyEvent(start));
    CHECK_OK(aclrtDestroyEvent(end));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Wait status, timeouts
 * ------------------------------------------------------------------------ */

TEST(query_event_wait_status_tracks_pending_waits)
{
    aclrtStream a = new_stream(), b = new_stream(), c = new_stream();
    aclrtEvent e = new_event(PLAIN);
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e));
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e));
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    CHECK_OK(aclrtStreamWaitEvent(c, e));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, wait_status_of(e));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtSynchronizeStream(c));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e));

    aclrtEvent ex = new_event(EX_SYNC);
    aclrtEventWaitStatus ws;
    CHECK_EQ(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(ex, &ws));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(e, NULL));
    CHECK_OK(aclrtDestroyEvent(ex));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    CHECK_OK(aclrtDestroyStream(c));
}

TEST(synchronize_event_with_timeout_validates_and_times_out_on_gated_work)
{
    aclrtStream a = new_stream();
    aclrtEvent e = new_event(EX_SYNC);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, 0));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, -2));
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 5));
    CHECK_EQ(0, atomic_load(&g->done));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEventWithTimeout(e, -1));
    CHECK_EQ(1, atomic_load(&g->done));
    CHECK_OK(aclrtSynchronizeEventWithTimeout(e, 1));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(stream_wait_timeout_fails_the_wait_and_the_stream_goes_on)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtEvent e = new_event(EX_SYNC);
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(b, e, -1));
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEventWithTimeout(b, e, 1));
    probe_init(&p, &g->done);
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    /* The gate stays closed until the consumer's synchronize has returned. */
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_EQ(1, atomic_load(&p.ran)); /* continue mode: later tasks ran */
    CHECK_EQ(0, atomic_load(&p.saw));
    CHECK_OK(aclrtSynchronizeStream(b)); /* reported once */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

TEST(op_wait_timeout_makes_a_plain_stream_wait_time_out)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtEvent e = new_event(PLAIN);
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtSetOpWaitTimeout(1));
    aclError wrc = aclrtStreamWaitEvent(b, e);
    CHECK_OK(aclrtSetOpWaitTimeout(0));
    CHECK_OK(wrc);
    probe_init(&p, &g->done);
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStreamWithTimeout(b, 10000));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(0, atomic_load(&p.saw));
    CHECK_OK(aclrtSynchronizeStream(b));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e)); /* a timed-out wait is no longer pending */
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/*
 * Every executor of the configured pool (ACLRT_EXECUTORS=2, set in main) is
 * busy in a host function: the pool adds an executor for the consumer (its
 * ready work waits), and the consumer's wait must still time out after 1 s
 * ("Expiry fails the wait task"; "an executor blocked in user code does not
 * starve other streams").
 */
TEST(stream_wait_timeout_fires_while_every_executor_runs_user_code)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream(), busy_stream[POOL_EXECUTORS];
    struct gate *hold[POOL_EXECUTORS];
    aclrtEvent e = new_event(EX_SYNC);
    struct gate *g = busy(a); /* the producer takes one executor */
    for (int i = 0; i < POOL_EXECUTORS - 1; i++) {
        busy_stream[i] = new_stream();
        hold[i] = busy(busy_stream[i]);
    }
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEventWithTimeout(b, e, 1));
    probe_init(&p, &g->done);
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStreamWithTimeout(b, 3000));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(0, atomic_load(&p.saw));
    gate_open(g);
    for (int i = 0; i < POOL_EXECUTORS - 1; i++) {
        gate_open(hold[i]);
        CHECK_OK(aclrtDestroyStream(busy_stream[i]));
    }
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* The same when the executors become busy only after the consumer parked on its wait. */
TEST(stream_wait_timeout_fires_when_every_executor_gets_busy_after_the_wait_parked)
{
    static struct probe p;
    static atomic_int never;
    aclrtStream a = new_stream(), b = new_stream(), busy_stream[POOL_EXECUTORS];
    struct gate *hold[POOL_EXECUTORS];
    aclrtEvent e = new_event(EX_SYNC);
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEventWithTimeout(b, e, 1));
    probe_init(&p, &g->done);
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    chance(&never); /* a free executor reaches the wait and parks b (not needed for correctness) */
    for (int i = 0; i < POOL_EXECUTORS - 1; i++) {
        busy_stream[i] = new_stream();
        hold[i] = busy(busy_stream[i]);
    }
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStreamWithTimeout(b, 3000));
    CHECK_EQ(1, atomic_load(&p.ran));
    CHECK_EQ(0, atomic_load(&p.saw));
    gate_open(g);
    for (int i = 0; i < POOL_EXECUTORS - 1; i++) {
        gate_open(hold[i]);
        CHECK_OK(aclrtDestroyStream(busy_stream[i]));
    }
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* ------------------------------------------------------------------------
 * Record and wait flags
 * ------------------------------------------------------------------------ */

TEST(record_event_with_flag_default_records_and_other_flags_fail)
{
    aclrtStream a = new_stream();
    aclrtEvent e = new_event(EX_SYNC);
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_DEFAULT));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtRecordEventWithFlag(e, a, ACL_EVENT_RECORD_EXTERNAL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtRecordEventWithFlag(e, a, 7));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
}

TEST(stream_wait_event_with_flag_validates_flag_and_external_timeout)
{
    static struct probe p;
    aclrtStream a = new_stream(), b = new_stream();
    aclrtEvent e = new_event(EX_SYNC);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(b, e, 0, 7));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtStreamWaitEventWithFlag(b, e, 1, ACL_EVENT_WAIT_EXTERNAL));
    CHECK_EQ(ACL_ERROR_RT_STREAM_NOT_CAPTURED, aclrtStreamWaitEventWithFlag(b, e, 0, ACL_EVENT_WAIT_EXTERNAL));
    /* WAIT_DEFAULT is an ordinary wait. */
    struct gate *g = busy(a);
    CHECK_OK(aclrtRecordEvent(e, a));
    CHECK_OK(aclrtStreamWaitEventWithFlag(b, e, 0, ACL_EVENT_WAIT_DEFAULT));
    probe_init(&p, &g->done);
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.saw));
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* ------------------------------------------------------------------------
 * Ids, availability, quota
 * ------------------------------------------------------------------------ */

TEST(event_ids_are_distinct_and_avail_num_tracks_creation)
{
    enum { N = 12 };
    aclrtEvent ev[N];
    uint32_t id[N];
    uint32_t avail0 = 0, avail = 0;
    CHECK_OK(aclrtGetEventAvailNum(&avail0));
    CHECK(avail0 >= N);
    for (int i = 0; i < N; i++) {
        ev[i] = new_event((enum flavour)(i % 3));
        CHECK_OK(aclrtGetEventAvailNum(&avail));
        CHECK_EQ(avail0 - (uint32_t)i - 1, avail);
        CHECK_OK(aclrtGetEventId(ev[i], &id[i]));
        for (int j = 0; j < i; j++)
            CHECK(id[i] != id[j]);
    }
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetEventId(ev[0], NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetEventAvailNum(NULL));
    for (int i = 0; i < N; i++) {
        CHECK_OK(aclrtDestroyEvent(ev[i]));
        CHECK_OK(aclrtGetEventAvailNum(&avail));
        CHECK_EQ(avail0 - (uint32_t)N + (uint32_t)i + 1, avail);
    }
    uint32_t stale = 0;
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetEventId(ev[0], &stale));
}

#define MAX_EVENTS 200 /* ACLRT_MAX_EVENTS for this suite (set in main) */

TEST(event_quota_exhaustion_is_no_event_resource)
{
    static aclrtEvent ev[MAX_EVENTS + 1];
    uint32_t avail = 0;
    CHECK_OK(aclrtGetEventAvailNum(&avail));
    CHECK(avail > 0 && avail <= MAX_EVENTS);
    uint32_t made = 0;
    for (; made < avail; made++) {
        aclError rc;
        switch (made % 3) {
        case 0: rc = aclrtCreateEvent(&ev[made]); break;
        case 1: rc = aclrtCreateEventWithFlag(&ev[made], ACL_EVENT_TIME_LINE); break;
        default: rc = aclrtCreateEventExWithFlag(&ev[made], ACL_EVENT_SYNC); break;
        }
        CHECK_OK(rc);
    }
    uint32_t left = 99;
    CHECK_OK(aclrtGetEventAvailNum(&left));
    CHECK_EQ(0, left);
    aclrtEvent extra = NULL;
    CHECK_EQ(ACL_ERROR_RT_NO_EVENT_RESOURCE, aclrtCreateEvent(&extra));
    CHECK_EQ(ACL_ERROR_RT_NO_EVENT_RESOURCE, aclrtCreateEventWithFlag(&extra, ACL_EVENT_SYNC));
    CHECK_EQ(ACL_ERROR_RT_NO_EVENT_RESOURCE, aclrtCreateEventExWithFlag(&extra, ACL_EVENT_SYNC));
    CHECK_OK(aclrtDestroyEvent(ev[0]));
    CHECK_OK(aclrtCreateEventExWithFlag(&ev[0], ACL_EVENT_SYNC));
    for (uint32_t i = 0; i < made; i++)
        CHECK_OK(aclrtDestroyEvent(ev[i]));
    CHECK_OK(aclrtGetEventAvailNum(&left));
    CHECK_EQ(avail, left);
}

/* ------------------------------------------------------------------------
 * The default stream
 * ------------------------------------------------------------------------ */

TEST(events_work_on_the_default_stream)
{
    static struct probe p;
    aclrtStream b = new_stream();
    aclrtEvent e = new_event(PLAIN), start = new_event(PLAIN);
    CHECK_OK(aclrtRecordEvent(start, NULL));
    struct gate *g = busy(NULL);
    CHECK_OK(aclrtRecordEvent(e, NULL));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
    CHECK_OK(aclrtStreamWaitEvent(b, e));
    probe_init(&p, &g->done);
    CHECK_OK(aclrtLaunchHostFunc(b, probe_fn, &p));
    chance(&p.ran);
    CHECK_EQ(0, atomic_load(&p.ran));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    float ms = -1.0f;
    CHECK_OK(aclrtEventElapsedTime(&ms, start, e));
    CHECK(ms >= 0.0f);
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, atomic_load(&p.saw));
    /* The default stream waits too. */
    static struct probe q;
    struct gate *g2 = busy(b);
    CHECK_OK(aclrtRecordEvent(e, b));
    CHECK_OK(aclrtStreamWaitEvent(NULL, e));
    probe_init(&q, &g2->done);
    CHECK_OK(aclrtLaunchHostFunc(NULL, probe_fn, &q));
    chance(&q.ran);
    CHECK_EQ(0, atomic_load(&q.ran));
    gate_open(g2);
    CHECK_OK(aclrtSynchronizeStream(NULL));
    CHECK_EQ(1, atomic_load(&q.saw));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyEvent(start));
    CHECK_OK(aclrtDestroyStream(b));
}

/* ------------------------------------------------------------------------
 * Concurrency
 * ------------------------------------------------------------------------ */

#define REC_THREADS 4
#define REC_ROUNDS 150

struct rec_arg {
    aclrtEvent event;
    aclrtStream stream;
    int waiter; /* issue waits instead of records */
    atomic_int *go;
    atomic_int errors;
};

static atomic_int stop_query;
static atomic_int query_errors;
static atomic_long queries;

static void *recorder(void *p)
{
    struct rec_arg *a = (struct rec_arg *)p;
    if (aclrtSetCurrentContext(main_context) != ACL_SUCCESS) {
        atomic_fetch_add(&a->errors, 1);
        return NULL;
    }
    while (!atomic_load(a->go))
        sched_yield();
    for (int i = 0; i < REC_ROUNDS; i++) {
        if (aclrtLaunchHostFunc(a->stream, spin_fn, (void *)(intptr_t)50) != ACL_SUCCESS)
            atomic_fetch_add(&a->errors, 1);
        aclError rc = a->waiter ? aclrtStreamWaitEvent(a->stream, a->event) : aclrtRecordEvent(a->event, a->stream);
        if (rc != ACL_SUCCESS)
            atomic_fetch_add(&a->errors, 1);
    }
    return NULL;
}

static void *querier(void *p)
{
    aclrtEvent e = (aclrtEvent)p;
    while (!atomic_load(&stop_query)) {
        aclrtEventRecordedStatus st = (aclrtEventRecordedStatus)0x7777;
        aclError rc = aclrtQueryEventStatus(e, &st);
        if (rc != ACL_SUCCESS ||
            (st != ACL_EVENT_RECORDED_STATUS_COMPLETE && st != ACL_EVENT_RECORDED_STATUS_NOT_READY))
            atomic_fetch_add(&query_errors, 1);
        atomic_fetch_add(&queries, 1);
        sched_yield();
    }
    return NULL;
}

TEST(records_from_many_threads_on_one_event_with_concurrent_queries_stay_consistent)
{
    static struct rec_arg args[REC_THREADS + 1];
    static atomic_int go;
    pthread_t th[REC_THREADS + 1], qt;
    aclrtStream streams[REC_THREADS + 1];
    aclrtEvent e = new_event(PLAIN);
    for (int i = 0; i <= REC_THREADS; i++)
        streams[i] = new_stream();
    /* Record once first so the waiter thread's plain waits are valid. */
    CHECK_OK(aclrtRecordEvent(e, streams[0]));
    atomic_store(&go, 0);
    atomic_store(&stop_query, 0);
    atomic_store(&query_errors, 0);
    atomic_store(&queries, 0);
    for (int i = 0; i <= REC_THREADS; i++) {
        args[i].event = e;
        args[i].stream = streams[i];
        args[i].waiter = i == REC_THREADS;
        args[i].go = &go;
        atomic_store(&args[i].errors, 0);
        CHECK_EQ(0, pthread_create(&th[i], NULL, recorder, &args[i]));
    }
    CHECK_EQ(0, pthread_create(&qt, NULL, querier, e));
    /* Start the recorders once the querier is querying. */
    for (long i = 0; i < 20000000L && atomic_load(&queries) == 0; i++)
        sched_yield();
    atomic_store(&go, 1);
    for (int i = 0; i <= REC_THREADS; i++)
        CHECK_EQ(0, pthread_join(th[i], NULL));
    atomic_store(&stop_query, 1);
    CHECK_EQ(0, pthread_join(qt, NULL));
    for (int i = 0; i <= REC_THREADS; i++)
        CHECK_EQ(0, atomic_load(&args[i].errors));
    CHECK_EQ(0, atomic_load(&query_errors));
    for (int i = 0; i <= REC_THREADS; i++)
        CHECK_OK(aclrtSynchronizeStream(streams[i]));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(e));
    float ms = -1.0f;
    CHECK_OK(aclrtEventElapsedTime(&ms, e, e));
    CHECK(ms == 0.0f);
    /* Still an ordinary event afterwards. */
    struct gate *g = busy(streams[1]);
    CHECK_OK(aclrtRecordEvent(e, streams[1]));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status_of(e));
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(e));
    CHECK_OK(aclrtDestroyEvent(e));
    for (int i = 0; i <= REC_THREADS; i++)
        CHECK_OK(aclrtDestroyStream(streams[i]));
}

/*
 * Soak: threads that only read events (synchronize, query) while other
 * threads record those events on streams they create and destroy, so the
 * slot of a captured stream is reused under the readers all the time, and
 * a thread that waits on the events from a stream of its own. Bounded by
 * a number of stream lives per churner.
 */
#define SOAK_EVENTS 6
#define SOAK_CHURNERS 2
#define SOAK_READERS 2
#define SOAK_LIVES 150

static aclrtEvent soak_events[SOAK_EVENTS];
static atomic_int soak_churners_left;
static atomic_int soak_errors;
static atomic_long soak_reads;
static atomic_long soak_lives;

static void soak_error(const char *what, aclError rc)
{
    if (atomic_fetch_add(&soak_errors, 1) < 5)
        fprintf(stderr, "  soak: %s returned %d\n", what, (int)rc);
}

static void *soak_churner(void *p)
{
    unsigned seed = (unsigned)(intptr_t)p;
    aclError rc;
    if ((rc = aclrtSetCurrentContext(main_context)) != ACL_SUCCESS)
        soak_error("aclrtSetCurrentContext", rc);
    for (int life = 0; life < SOAK_LIVES && rc == ACL_SUCCESS; life++) {
        aclrtStream s;
        if ((rc = aclrtCreateStream(&s)) != ACL_SUCCESS) {
            soak_error("aclrtCreateStream", rc);
            break;
        }
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            if ((rc = aclrtLaunchHostFunc(s, spin_fn, (void *)(intptr_t)20)) != ACL_SUCCESS)
                soak_error("aclrtLaunchHostFunc", rc);
            if ((rc = aclrtRecordEvent(soak_events[(seed >> 16) % SOAK_EVENTS], s)) != ACL_SUCCESS)
                soak_error("aclrtRecordEvent", rc);
        }
        rc = (life & 1) ? aclrtDestroyStreamForce(s) : aclrtDestroyStream(s);
        if (rc != ACL_SUCCESS)
            soak_error("aclrtDestroyStream(Force)", rc);
        atomic_fetch_add(&soak_lives, 1);
    }
    atomic_fetch_sub(&soak_churners_left, 1);
    return NULL;
}

/* Synchronizes and queries only: no call of it orders it before a churner's next stream. */
static void *soak_reader(void *p)
{
    unsigned seed = (unsigned)(intptr_t)p;
    for (long i = 0; atomic_load(&soak_churners_left) > 0 || i < 100; i++) {
        seed = seed * 1103515245u + 12345u;
        aclrtEvent e = soak_events[(seed >> 16) % SOAK_EVENTS];
        aclError rc = (i & 1) ? aclrtSynchronizeEvent(e) : aclrtSynchronizeEventWithTimeout(e, 60000);
        if (rc != ACL_SUCCESS)
            soak_error("aclrtSynchronizeEvent", rc);
        aclrtEventRecordedStatus st;
        if ((rc = aclrtQueryEventStatus(e, &st)) != ACL_SUCCESS)
            soak_error("aclrtQueryEventStatus", rc);
        atomic_fetch_add(&soak_reads, 1);
    }
    return NULL;
}

/* Waits on the events from a stream of its own, and synchronizes that stream now and then. */
static void *soak_waiter(void *p)
{
    unsigned seed = (unsigned)(intptr_t)p;
    aclError rc;
    aclrtStream w = NULL;
    if ((rc = aclrtSetCurrentContext(main_context)) != ACL_SUCCESS || (rc = aclrtCreateStream(&w)) != ACL_SUCCESS) {
        soak_error("aclrtCreateStream (waiter)", rc);
        return NULL;
    }
    for (long i = 0; atomic_load(&soak_churners_left) > 0 || i < 100; i++) {
        seed = seed * 1103515245u + 12345u;
        if ((rc = aclrtStreamWaitEvent(w, soak_events[(seed >> 16) % SOAK_EVENTS])) != ACL_SUCCESS)
            soak_error("aclrtStreamWaitEvent", rc);
        if ((i & 7) == 7 && (rc = aclrtSynchronizeStream(w)) != ACL_SUCCESS)
            soak_error("aclrtSynchronizeStream (waiter)", rc);
    }
    if ((rc = aclrtDestroyStream(w)) != ACL_SUCCESS)
        soak_error("aclrtDestroyStream (waiter)", rc);
    return NULL;
}

TEST(events_stay_correct_while_the_streams_they_captured_die_and_their_slots_are_reused)
{
    pthread_t churners[SOAK_CHURNERS], readers[SOAK_READERS], waiter;
    aclrtStream first = new_stream();
    for (int i = 0; i < SOAK_EVENTS; i++) {
        soak_events[i] = new_event(i % 2 ? LEGACY_SYNC : PLAIN);
        CHECK_OK(aclrtRecordEvent(soak_events[i], first)); /* so that plain events may be waited for */
    }
    CHECK_OK(aclrtDestroyStream(first));
    atomic_store(&soak_churners_left, SOAK_CHURNERS);
    atomic_store(&soak_errors, 0);
    atomic_store(&soak_reads, 0);
    atomic_store(&soak_lives, 0);
    for (int i = 0; i < SOAK_CHURNERS; i++)
        CHECK_EQ(0, pthread_create(&churners[i], NULL, soak_churner, (void *)(intptr_t)(i + 1)));
    for (int i = 0; i < SOAK_READERS; i++)
        CHECK_EQ(0, pthread_create(&readers[i], NULL, soak_reader, (void *)(intptr_t)(i + 11)));
    CHECK_EQ(0, pthread_create(&waiter, NULL, soak_waiter, (void *)(intptr_t)21));
    for (int i = 0; i < SOAK_CHURNERS; i++)
        CHECK_EQ(0, pthread_join(churners[i], NULL));
    for (int i = 0; i < SOAK_READERS; i++)
        CHECK_EQ(0, pthread_join(readers[i], NULL));
    CHECK_EQ(0, pthread_join(waiter, NULL));
    CHECK_EQ(0, atomic_load(&soak_errors));
    CHECK_EQ(SOAK_CHURNERS * SOAK_LIVES, atomic_load(&soak_lives));
    CHECK(atomic_load(&soak_reads) >= 2 * 100);
    for (int i = 0; i < SOAK_EVENTS; i++) {
        CHECK_OK(aclrtSynchronizeEvent(soak_events[i]));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status_of(soak_events[i]));
        CHECK_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status_of(soak_events[i]));
        CHECK_OK(aclrtDestroyEvent(soak_events[i]));
    }
}

/* ------------------------------------------------------------------------ */

#define RUN_CASE(name)                                                                              \
    do {                                                                                            \
        RUN(name);                                                                                  \
        gates_open_all();                                                                           \
        aclrtSetOpWaitTimeout(0);                                                                   \
    } while (0)

int main(void)
{
    /* Before the runtime starts: a quota the quota case can exhaust quickly. */
    char quota[16];
    snprintf(quota, sizeof quota, "%d", MAX_EVENTS);
    setenv("ACLRT_MAX_EVENTS", quota, 1);
    /* A known pool size, so a case can occupy every executor (the default is the CPU count). */
    snprintf(quota, sizeof quota, "%d", POOL_EXECUTORS);
    setenv("ACLRT_EXECUTORS", quota, 1);
    if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "event: aclrtSetDevice(0) failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    RUN_CASE(recorded_status_not_ready_is_0_and_a_finished_record_reports_complete_1);
    RUN_CASE(never_recorded_query_status_not_ready_except_ex_complete);
    RUN_CASE(never_recorded_deprecated_query_event_is_complete_and_rejects_ex);
    RUN_CASE(never_recorded_synchronize_event_succeeds_for_every_flavour);
    RUN_CASE(never_recorded_ex_wait_passes_without_blocking_and_plain_wait_is_param_invalid);
    RUN_CASE(record_on_busy_stream_is_not_ready_until_the_stream_drains);
    RUN_CASE(synchronize_event_waits_for_the_captured_work);
    RUN_CASE(cross_stream_wait_runs_consumer_after_the_gated_producer);
    RUN_CASE(re_record_does_not_change_a_pending_wait);
    RUN_CASE(ex_event_recaptures_on_every_record);
    RUN_CASE(legacy_sync_event_is_sticky_until_reset_and_then_waits_for_the_next_record);
    RUN_CASE(legacy_wait_issued_before_any_record_waits_for_the_next_record);
    RUN_CASE(reset_is_applied_in_stream_order_and_a_later_record_survives_it);
    RUN_CASE(reset_of_a_create_event_event_works_like_a_legacy_sync_reset);
    RUN_CASE(reset_and_wait_reject_ex_events_and_events_without_sync);
    RUN_CASE(device_use_only_and_external_events_are_limited_as_documented);
    RUN_CASE(null_and_garbage_event_handles_are_rejected);
    RUN_CASE(create_event_with_flag_validates_flags_like_the_runtime);
    RUN_CASE(create_event_ex_with_flag_validates_flags_and_takes_ipc_alone);
    RUN_CASE(destroy_before_completion_is_safe_and_an_earlier_wait_still_waits);
    RUN_CASE(destroy_of_a_timed_event_recorded_on_a_busy_stream_is_safe);
    RUN_CASE(a_status_query_through_a_dead_handle_fails_though_its_slot_holds_a_complete_event);
    RUN_CASE(destroying_a_legacy_event_releases_a_stream_waiting_for_its_next_record);
    RUN_CASE(a_wait_keeps_the_record_made_before_the_destroy_when_a_new_event_takes_the_slot);
    RUN_CASE(a_legacy_wait_parked_on_the_event_binds_to_a_record_followed_at_once_by_the_destroy);
    RUN_CASE(an_event_destroyed_with_pending_waits_gives_its_quota_back_at_once_and_its_slot_after_them);
    RUN_CASE(an_event_on_a_dead_stream_ignores_the_failure_of_a_stream_that_reuses_its_slot);
    RUN_CASE(elapsed_time_and_timestamps_around_known_work);
    RUN_CASE(elapsed_time_works_across_two_streams);
    RUN_CASE(elapsed_time_and_timestamp_error_codes);
    RUN_CASE(elapsed_time_of_end_completed_before_start_is_timestamp_reversal);
    RUN_CASE(query_event_wait_status_tracks_pending_waits);
    RUN_CASE(synchronize_event_with_timeout_validates_and_times_out_on_gated_work);
    RUN_CASE(stream_wait_timeout_fails_the_wait_and_the_stream_goes_on);
    RUN_CASE(op_wait_timeout_makes_a_plain_stream_wait_time_out);
    RUN_CASE(stream_wait_timeout_fires_while_every_executor_runs_user_code);
    RUN_CASE(stream_wait_timeout_fires_when_every_executor_gets_busy_after_the_wait_parked);
    RUN_CASE(record_event_with_flag_default_records_and_other_flags_fail);
    RUN_CASE(stream_wait_event_with_flag_validates_flag_and_external_timeout);
    RUN_CASE(event_ids_are_distinct_and_avail_num_tracks_creation);
    RUN_CASE(event_quota_exhaustion_is_no_event_resource);
    RUN_CASE(events_work_on_the_default_stream);
    RUN_CASE(records_from_many_threads_on_one_event_with_concurrent_queries_stay_consistent);
    RUN_CASE(events_stay_correct_while_the_streams_they_captured_die_and_their_slots_are_reused);
    return check_report("event");
}
