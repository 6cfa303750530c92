/*
 * tests/test_timeouts.c - pins the timed waits of the host side
 * (docs/SEMANTICS.md, Timed waits): aclrtSynchronizeStreamWithTimeout,
 * aclrtSynchronizeEventWithTimeout, aclrtSynchronizeDeviceWithTimeout,
 * aclrtProcessReport and aclrtProcessHostFunc return their documented
 * timeout code with a message once the work (or the callback) did not come
 * within the timeout, never before the timeout has passed, and succeed when
 * it does come.
 *
 * How late they return is a wake-up latency on a shared machine: that is
 * measured (tests/timeout_accuracy.c), not asserted here. "Not before" is
 * safe to assert: the clock the test reads is the runtime's deadline clock.
 * The work that never finishes is a gate (tests/gate.h), opened at the end.
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Timeouts that straddle the steps of a backoff (1, 2, 16, 128 ms) and a plain one. */
static const int32_t timeouts_ms[] = {1, 3, 17, 40};
#define N_TIMEOUTS (sizeof timeouts_ms / sizeof timeouts_ms[0])
#define GENEROUS_MS 20000 /* a limit that finished work always meets */

static aclrtContext main_context;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Elapsed ms of a call is at least its timeout: elapsed_ns >= timeout_ms * 1e6. */
#define CHECK_NOT_EARLY(t0, timeout_ms) CHECK(now_ns() - (t0) >= (uint64_t)(timeout_ms) * 1000000u)

/* ------------------------------------------------------------------------
 * Synchronize with a timeout
 * ------------------------------------------------------------------------ */

TEST(synchronize_stream_with_timeout_returns_507046_no_earlier_than_its_timeout)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    struct gate *g = launch_gate(s);
    for (size_t i = 0; i < N_TIMEOUTS; i++) {
        uint64_t t0 = now_ns();
        CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, timeouts_ms[i]));
        CHECK_NOT_EARLY(t0, timeouts_ms[i]);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtSynchronizeStreamWithTimeout]");
    }
    gate_open(g);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, GENEROUS_MS));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(synchronize_event_with_timeout_returns_507047_no_earlier_than_its_timeout)
{
    aclrtStream s;
    aclrtEvent e;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateEvent(&e));
    struct gate *g = launch_gate(s);
    CHECK_OK(aclrtRecordEvent(e, s));
    for (size_t i = 0; i < N_TIMEOUTS; i++) {
        uint64_t t0 = now_ns();
        CHECK_EQ(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, timeouts_ms[i]));
        CHECK_NOT_EARLY(t0, timeouts_ms[i]);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtSynchronizeEventWithTimeout]");
    }
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEventWithTimeout(e, GENEROUS_MS));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(synchronize_device_with_timeout_returns_507046_no_earlier_than_its_timeout)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    struct gate *g = launch_gate(s);
    for (size_t i = 0; i < N_TIMEOUTS; i++) {
        uint64_t t0 = now_ns();
        CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(timeouts_ms[i]));
        CHECK_NOT_EARLY(t0, timeouts_ms[i]);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtSynchronizeDeviceWithTimeout]");
    }
    gate_open(g);
    CHECK_OK(aclrtSynchronizeDeviceWithTimeout(GENEROUS_MS));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Processing callbacks and host functions with a timeout
 * ------------------------------------------------------------------------ */

static atomic_int ran;
static void note_ran(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
}

TEST(process_report_returns_507012_no_earlier_than_its_timeout)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtSubscribeReport((uint64_t)pthread_self(), s));
    for (size_t i = 0; i < N_TIMEOUTS; i++) {
        uint64_t t0 = now_ns();
        CHECK_EQ(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessReport(timeouts_ms[i]));
        CHECK_NOT_EARLY(t0, timeouts_ms[i]);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtProcessReport]");
    }
    atomic_store(&ran, 0);
    CHECK_OK(aclrtLaunchCallback(note_ran, NULL, ACL_CALLBACK_NO_BLOCK, s));
    CHECK_OK(aclrtProcessReport(GENEROUS_MS));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtUnSubscribeReport((uint64_t)pthread_self(), s));
    CHECK_OK(aclrtDestroyStream(s));
}

TEST(process_host_func_returns_507012_no_earlier_than_its_timeout)
{
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtSubscribeHostFunc((uint64_t)pthread_self(), s));
    for (size_t i = 0; i < N_TIMEOUTS; i++) {
        uint64_t t0 = now_ns();
        CHECK_EQ(ACL_ERROR_RT_REPORT_TIMEOUT, aclrtProcessHostFunc(timeouts_ms[i]));
        CHECK_NOT_EARLY(t0, timeouts_ms[i]);
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtProcessHostFunc]");
    }
    atomic_store(&ran, 0);
    CHECK_OK(aclrtLaunchHostFunc(s, note_ran, NULL));
    CHECK_OK(aclrtProcessHostFunc(GENEROUS_MS));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtUnSubscribeHostFunc((uint64_t)pthread_self(), s));
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(s, GENEROUS_MS));
    CHECK_OK(aclrtDestroyStream(s));
}

/* ------------------------------------------------------------------------
 * Runner
 * ------------------------------------------------------------------------ */

static void case_cleanup(void)
{
    gates_open_all();
    aclrtSetCurrentContext(main_context);
    aclrtSynchronizeDeviceWithTimeout(GENEROUS_MS); /* a limit: a stuck task must not hang the suite */
    aclGetRecentErrMsg();
}

#define RUN_CASE(name)  \
    do {                \
        RUN(name);      \
        case_cleanup(); \
    } while (0)

int main(void)
{
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
        aclrtGetCurrentContext(&main_context) != ACL_SUCCESS) {
        fprintf(stderr, "FAIL: cannot start the runtime: %s\n", aclGetRecentErrMsg());
        return 1;
    }

    RUN_CASE(synchronize_stream_with_timeout_returns_507046_no_earlier_than_its_timeout);
    RUN_CASE(synchronize_event_with_timeout_returns_507047_no_earlier_than_its_timeout);
    RUN_CASE(synchronize_device_with_timeout_returns_507046_no_earlier_than_its_timeout);
    RUN_CASE(process_report_returns_507012_no_earlier_than_its_timeout);
    RUN_CASE(process_host_func_returns_507012_no_earlier_than_its_timeout);

    aclrtResetDevice(0);
    aclFinalize();
    return check_report("timeouts");
}
