/*
 * tests/test_reliability.c - what an unlucky program (many threads, bad
 * timing, forks, teardown with work still parked) may rely on:
 *
 *   - a stream wait keeps the capture it copied, whatever happens to the
 *     event afterwards (destroyed at once after its record), in every flavour;
 *   - teardown (aclFinalize, aclrtResetDevice, aclrtResetDeviceForce,
 *     aclrtDestroyContext) ends while streams are parked for good (on a
 *     stopped stream, on a legacy SYNC event nobody records), frees what it
 *     owns, and a later aclInit gives a working runtime;
 *   - a complete event stays complete and successful when its stream's slot
 *     goes to a stream of another context, which then fails in
 *     stop-on-failure mode;
 *   - a failing call made from a thread-exit destructor reports its error
 *     without touching freed thread state;
 *   - stream creation against a concurrent aclrtSynchronizeDevice (for the
 *     sanitizers);
 *   - host functions that fill each other's streams never deadlock: a launch
 *     from a runtime thread into a full stream progresses or returns
 *     ACL_ERROR_RT_STREAM_TASK_FULL;
 *   - 2,000 threads x 100 launches into one stream all run;
 *   - the child of a fork gets an error code and message instead of a hang,
 *     and aclFinalize + aclInit give it a working runtime (that last part
 *     not under ThreadSanitizer, which cannot start threads in the child of
 *     a multi-threaded fork);
 *   - absurd allocation sizes fail with the documented code and leave the
 *     pointer as it was.
 *
 * Every case runs in a child process of its own, forked from a parent that
 * never starts the runtime (a single-threaded fork, safe under the
 * sanitizers). The parent kills a child that has not ended within its bound
 * (RELIABILITY_BOUND_S seconds, default 10, three times that under a
 * sanitizer) and reports the case as hung, naming the step it was at, so a
 * hang is a failure, never a hung suite. A child that dies of a signal or a
 * sanitizer report fails its case; the other cases still run.
 * RELIABILITY_CASE=<substring> runs only the cases whose names contain it.
 */
#define _GNU_SOURCE /* pthread_timedjoin_np */
#include "check.h"
#include "gate.h"
#include "probe.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#else
#define SANITIZED 0
#endif

#if defined(__SANITIZE_THREAD__)
/* The fork case's child starts runtime threads after a multi-threaded fork: let it (TSan kills it by default). */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "die_after_fork=0";
}
#endif

#define FAIL_CODE ACL_ERROR_RT_AICORE_EXCEPTION

/* ------------------------------------------------------------------------
 * Isolation: one child process per case, killed past its bound.
 * ------------------------------------------------------------------------ */

/* Written by the case (child), read by the parent once the child is gone. */
struct rel_shared {
    char step[256];
};
static struct rel_shared *rel_shared;

static void step(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void step(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rel_shared->step, sizeof rel_shared->step, fmt, ap);
    va_end(ap);
}

static double mono_s(void)
{
    return (double)probe_mono_ns() / 1e9;
}

static double bound_s(void)
{
    const char *env = getenv("RELIABILITY_BOUND_S");
    double b = env != NULL && *env != '\0' ? strtod(env, NULL) : 10.0;
    if (b <= 0)
        b = 10.0;
    return SANITIZED ? 3 * b : b;
}

/* Wait for `pid` until `deadline` (mono_s); 1 and its status if it ended, 0 if it was killed. */
static int wait_or_kill(pid_t pid, double deadline, int *status)
{
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 1;
        if (r < 0 && errno != EINTR) {
            *status = -1;
            return 1;
        }
        if (mono_s() > deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, status, 0) < 0 && errno == EINTR)
                ;
            return 0;
        }
        struct timespec ts = {0, 2000000}; /* a watchdog's poll, not synchronization */
        nanosleep(&ts, NULL);
    }
}

static void run_isolated(const char *name, void (*fn)(void), double bound_factor)
{
    const char *only = getenv("RELIABILITY_CASE"); /* a substring of the case names to run */
    if (only != NULL && strstr(name, only) == NULL)
        return;
    check_cases++;
    memset(rel_shared, 0, sizeof *rel_shared);
    snprintf(rel_shared->step, sizeof rel_shared->step, "(start)");
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "FAIL [%s]\n  fork: %s\n", name, strerror(errno));
        check_failures++;
        return;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a case never outlives the suite */
        check_failures = 0; /* the child counts its own */
        unsetenv("CHECK_VERBOSE"); /* the parent says "ok", with the time taken */
        check_run(name, fn);
        fflush(stdout);
        fflush(stderr);
        if (check_failures != 0)
            _exit(1);
        exit(0); /* exit, not _exit: LeakSanitizer checks at exit */
    }
    double bound = bound_s() * bound_factor;
    int status = 0;
    double t0 = mono_s();
    if (!wait_or_kill(pid, t0 + bound, &status)) {
        fprintf(stderr, "FAIL [%s]\n  did not end within %.0f s (killed); it was at: %s\n", name, bound,
                rel_shared->step);
        check_failures++;
    } else if (status == -1 || WIFSIGNALED(status)) {
        fprintf(stderr, "FAIL [%s]\n  the case's process died of signal %d (%s); it was at: %s\n", name,
                status == -1 ? 0 : WTERMSIG(status), status == -1 ? "?" : strsignal(WTERMSIG(status)),
                rel_shared->step);
        check_failures++;
    } else if (WEXITSTATUS(status) != 0) {
        /* 1: a CHECK failed (and said so above) or a sanitizer report; 66: a ThreadSanitizer report */
        fprintf(stderr, "  [%s] exited with status %d; it was at: %s\n", name, WEXITSTATUS(status), rel_shared->step);
        check_failures++;
    } else if (getenv("CHECK_VERBOSE")) {
        fprintf(stderr, "ok   %s (%.2f s)\n", name, mono_s() - t0);
    }
}

#define RUN_ISOLATED(name, factor) run_isolated(#name, name, factor)

/* ------------------------------------------------------------------------
 * Common pieces
 * ------------------------------------------------------------------------ */

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static void noop_fn(void *arg)
{
    (void)arg;
}

static aclError fail_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    (void)arg;
    return FAIL_CODE;
}

/* The runtime of this process works: a device, a stream, a task, an event, synchronizes. */
static void check_runtime_works(const char *when)
{
    step("checking the runtime works (%s)", when);
    atomic_int ran = 0;
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtRecordEvent(e, s));
    CHECK_OK(aclrtSynchronizeEvent(e));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&ran));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(s));
}

static uint32_t streams_available(void)
{
    uint32_t n = 0;
    CHECK_OK(aclrtGetStreamAvailableNum(&n));
    return n;
}

static uint32_t events_available(void)
{
    uint32_t n = 0;
    CHECK_OK(aclrtGetEventAvailNum(&n));
    return n;
}

/* ------------------------------------------------------------------------
 * A wait keeps its capture when the event is destroyed.
 * ------------------------------------------------------------------------ */

enum { FLAV_LEGACY_WAIT_FIRST, FLAV_LEGACY_RECORD_FIRST, FLAV_EX, FLAV_PLAIN, FLAV_COUNT };
static const char *const flavour_names[FLAV_COUNT] = {
    "legacy SYNC event, wait issued before the record",
    "legacy SYNC event, wait issued after the record",
    "Ex event (aclrtCreateEventExWithFlag(SYNC))",
    "aclrtCreateEvent event",
};

static void create_flavour(aclrtEvent *e, int flavour)
{
    switch (flavour) {
    case FLAV_LEGACY_WAIT_FIRST:
    case FLAV_LEGACY_RECORD_FIRST: CHECK_OK(aclrtCreateEventWithFlag(e, ACL_EVENT_SYNC)); break;
    case FLAV_EX: CHECK_OK(aclrtCreateEventExWithFlag(e, ACL_EVENT_SYNC)); break;
    default: CHECK_OK(aclrtCreateEvent(e)); break;
    }
}

#define CAPTURE_ROUNDS 24

TEST(a_wait_keeps_its_capture_when_the_event_is_destroyed)
{
    CHECK_OK(aclrtSetDevice(0));
    aclrtStream a = new_stream(), b = new_stream();
    int early[FLAV_COUNT] = {0};
    for (int f = 0; f < FLAV_COUNT; f++) {
        for (int i = 0; i < CAPTURE_ROUNDS; i++) {
            step("%s, round %d", flavour_names[f], i);
            aclrtEvent e = NULL;
            struct probe p;
            create_flavour(&e, f);
            if (f == FLAV_LEGACY_WAIT_FIRST)
                CHECK_OK(aclrtStreamWaitEvent(b, e)); /* waits for the next record */
            struct gate *w = launch_gate(a);           /* the work W the record captures */
            CHECK_OK(aclrtRecordEvent(e, a));
            if (f != FLAV_LEGACY_WAIT_FIRST)
                CHECK_OK(aclrtStreamWaitEvent(b, e));
            CHECK_OK(aclrtDestroyEvent(e)); /* at once: the wait must keep what it copied */
            launch_probe(b, &p, &w->done);
            chance(&p.ran); /* b's task gets a chance to run before W: it must not take it */
            gate_open(w);
            CHECK_OK(aclrtSynchronizeStreamWithTimeout(b, 10000));
            CHECK_OK(aclrtSynchronizeStreamWithTimeout(a, 10000));
            CHECK_EQ(1, atomic_load(&p.ran));
            if (atomic_load(&p.saw) != 1)
                early[f]++;
        }
    }
    int total = 0;
    for (int f = 0; f < FLAV_COUNT; f++) {
        if (early[f] != 0)
            fprintf(stderr, "  %s: the waiting stream's next task ran before W in %d of %d rounds\n",
                    flavour_names[f], early[f], CAPTURE_ROUNDS);
        total += early[f];
    }
    CHECK_EQ(0, total);
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
}

/* ------------------------------------------------------------------------
 * Teardown ends with streams parked for good.
 * ------------------------------------------------------------------------ */

TEST(finalize_ends_while_a_stream_waits_on_a_stopped_stream)
{
    uint32_t streams0 = 0, events0 = 0;
    /* Both creation orders: teardown meets the waiting stream before the stopped one, and after. */
    for (int waiter_first = 1; waiter_first >= 0; waiter_first--) {
        step("setup (the waiting stream created %s the stopped one)", waiter_first ? "before" : "after");
        CHECK_OK(aclInit(NULL));
        CHECK_OK(aclrtSetDevice(0));
        if (streams0 == 0) {
            streams0 = streams_available();
            events0 = events_available();
        }
        aclrtStream stopped, waiter;
        if (waiter_first) {
            waiter = new_stream();
            stopped = new_stream();
        } else {
            stopped = new_stream();
            waiter = new_stream();
        }
        aclrtEvent e = NULL;
        atomic_int never = 0, behind = 0;
        CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
        CHECK_OK(aclrtStreamStop(stopped));
        CHECK_OK(aclrtLaunchHostFunc(stopped, count_fn, &never)); /* queued on a stopped stream: never runs */
        CHECK_OK(aclrtRecordEvent(e, stopped));
        CHECK_OK(aclrtStreamWaitEvent(waiter, e));
        CHECK_OK(aclrtLaunchHostFunc(waiter, count_fn, &behind));
        step("aclFinalize with a stream waiting on a stopped stream (the waiting one created %s)",
             waiter_first ? "first" : "second");
        CHECK_OK(aclFinalize());
        CHECK_EQ(0, atomic_load(&never));
        step("aclInit after the finalize");
        CHECK_OK(aclInit(NULL));
        check_runtime_works("after aclFinalize + aclInit");
        CHECK_EQ(streams0, streams_available()); /* everything of the first life was given back */
        CHECK_EQ(events0, events_available());
        step("the second aclFinalize");
        CHECK_OK(aclFinalize());
    }
}

/* A stream of the current context parked on a legacy SYNC event nobody will record. */
static aclrtStream park_on_unrecorded_event(atomic_int *behind)
{
    aclrtStream s = new_stream();
    aclrtEvent e = NULL;
    CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtStreamWaitEvent(s, e)); /* waits for the next record, which never comes */
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, behind));
    return s;
}

static void reset_ends_while_a_stream_waits_for_a_record_that_never_comes(bool force)
{
    step("setup");
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    uint32_t streams0 = streams_available();
    atomic_int behind = 0;
    (void)park_on_unrecorded_event(&behind);
    step("%s with a stream parked on an unrecorded legacy SYNC event", force ? "aclrtResetDeviceForce" : "aclrtResetDevice");
    CHECK_OK(force ? aclrtResetDeviceForce(0) : aclrtResetDevice(0));
    check_runtime_works("after the reset");
    CHECK_EQ(streams0, streams_available()); /* the parked stream was freed */
    step("aclFinalize after the reset");
    CHECK_OK(aclFinalize());
    step("aclInit after the finalize");
    CHECK_OK(aclInit(NULL));
    check_runtime_works("after aclFinalize + aclInit");
    CHECK_OK(aclFinalize());
}

TEST(reset_device_ends_while_a_stream_waits_for_a_record_that_never_comes)
{
    reset_ends_while_a_stream_waits_for_a_record_that_never_comes(false);
}

TEST(reset_device_force_ends_while_a_stream_waits_for_a_record_that_never_comes)
{
    reset_ends_while_a_stream_waits_for_a_record_that_never_comes(true);
}

TEST(destroy_context_ends_while_a_stream_waits_for_a_record_that_never_comes)
{
    step("setup");
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    aclrtContext main_ctx = NULL, ctx = NULL;
    CHECK_OK(aclrtGetCurrentContext(&main_ctx));
    uint32_t streams0 = streams_available();
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    atomic_int behind = 0;
    (void)park_on_unrecorded_event(&behind);
    step("aclrtDestroyContext with a stream parked on an unrecorded legacy SYNC event");
    CHECK_OK(aclrtDestroyContext(ctx));
    CHECK_OK(aclrtSetCurrentContext(main_ctx));
    check_runtime_works("after the context destroy");
    CHECK_EQ(streams0, streams_available()); /* the context's streams, its default one included, were freed */
    step("aclFinalize after the context destroy");
    CHECK_OK(aclFinalize());
    step("aclInit after the finalize");
    CHECK_OK(aclInit(NULL));
    check_runtime_works("after aclFinalize + aclInit");
    CHECK_OK(aclFinalize());
}

/* ------------------------------------------------------------------------
 * A complete event is not touched by a failing context that reuses its stream's slot.
 * ------------------------------------------------------------------------ */

/* A new context (current now) and a stream of it. */
static aclrtStream new_stream_in_new_context(aclrtContext *ctx)
{
    CHECK_OK(aclrtCreateContext(ctx, 0));
    return new_stream();
}

TEST(a_complete_event_stays_successful_when_a_failing_context_reuses_its_stream_slot)
{
    aclrtContext ctx_a = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&ctx_a));
    for (int f = FLAV_LEGACY_RECORD_FIRST; f < FLAV_COUNT; f++) {
        step("%s", flavour_names[f]);
        CHECK_OK(aclrtSetCurrentContext(ctx_a));
        aclrtStream s = new_stream();
        aclrtEvent e = NULL;
        int32_t id = -1;
        CHECK_OK(aclrtStreamGetId(s, &id));
        create_flavour(&e, f);
        CHECK_OK(aclrtLaunchHostFunc(s, noop_fn, NULL));
        CHECK_OK(aclrtRecordEvent(e, s));
        CHECK_OK(aclrtSynchronizeStream(s));
        aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
        CHECK_OK(aclrtQueryEventStatus(e, &st));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
        CHECK_OK(aclrtDestroyStream(s));

        /*
         * Another context takes the slot (its default stream, made with the
         * context, or one of its streams) and fails in stop-on-failure mode,
         * which stops every stream of that context.
         */
        aclrtContext ctx_b = NULL;
        aclrtStream b_default = NULL, failing = new_stream_in_new_context(&ctx_b);
        int32_t tid = -2;
        CHECK_OK(aclrtCtxGetCurrentDefaultStream(&b_default));
        CHECK_OK(aclrtStreamGetId(b_default, &tid));
        bool reused = tid == id;
        for (int i = 0; i < 64 && !reused; i++) {
            CHECK_OK(aclrtStreamGetId(new_stream(), &tid)); /* they stay until the context goes */
            reused = tid == id;
        }
        if (!reused)
            fprintf(stderr, "  note: no stream of the second context took slot %d\n", id);
        CHECK_OK(aclrtSetStreamFailureMode(failing, ACL_STOP_ON_FAILURE));
        CHECK_OK(aclrtxLaunchHostKernel(failing, 1, fail_kernel, NULL));
        CHECK_EQ(FAIL_CODE, aclrtSynchronizeStreamWithTimeout(failing, 10000));

        step("%s: synchronizing the complete event", flavour_names[f]);
        CHECK_OK(aclrtSynchronizeEvent(e));
        CHECK_OK(aclrtSynchronizeEventWithTimeout(e, 10000));
        CHECK_OK(aclrtQueryEventStatus(e, &st));
        CHECK_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, st);
        CHECK_OK(aclrtDestroyContext(ctx_b));
        CHECK_OK(aclrtSetCurrentContext(ctx_a));
        CHECK_OK(aclrtDestroyEvent(e));
    }
}

/* ------------------------------------------------------------------------
 * Failing calls from thread-exit destructors.
 * ------------------------------------------------------------------------ */

#define DTOR_THREADS 8
static pthread_key_t dtor_key;
struct dtor_result {
    aclError rc;
    int named; /* the recent-error text named the failing call */
};
static struct dtor_result dtor_results[DTOR_THREADS];

/* Runs at thread exit, after the runtime's own per-thread destructor (its key was created first). */
static void user_destructor(void *arg)
{
    struct dtor_result *r = (struct dtor_result *)arg;
    r->rc = aclrtDestroyEvent(NULL);
    const char *msg = aclGetRecentErrMsg();
    r->named = msg != NULL && strstr(msg, "[aclrtDestroyEvent]") != NULL;
}

static void *dtor_thread(void *arg)
{
    intptr_t i = (intptr_t)arg;
    if (i % 2 == 0)
        (void)aclrtDestroyStream(NULL); /* half of them have failed before: they hold recent-error text */
    pthread_setspecific(dtor_key, &dtor_results[i]);
    return NULL;
}

TEST(a_failing_call_in_a_thread_exit_destructor_reports_its_error)
{
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(NULL)); /* the runtime's thread-exit key exists now */
    (void)aclGetRecentErrMsg();
    CHECK_EQ(0, pthread_key_create(&dtor_key, user_destructor));
    for (int i = 0; i < DTOR_THREADS; i++)
        dtor_results[i] = (struct dtor_result){-1, 0};
    for (intptr_t i = 0; i < DTOR_THREADS; i++) {
        step("thread %d", (int)i);
        pthread_t t;
        CHECK_EQ(0, pthread_create(&t, NULL, dtor_thread, (void *)i));
        CHECK_EQ(0, pthread_join(t, NULL));
    }
    for (int i = 0; i < DTOR_THREADS; i++) {
        CHECK_EQ(ACL_ERROR_INVALID_PARAM, dtor_results[i].rc);
        CHECK_EQ(1, dtor_results[i].named);
    }
}

/* ------------------------------------------------------------------------
 * Stream creation against a device synchronize (the sanitizers judge).
 * ------------------------------------------------------------------------ */

static aclrtContext race_ctx;
static atomic_int race_done;
static atomic_int race_sync_failures;

static void *device_syncer(void *arg)
{
    (void)arg;
    if (aclrtSetCurrentContext(race_ctx) != ACL_SUCCESS)
        atomic_fetch_add(&race_sync_failures, 1);
    while (!atomic_load(&race_done))
        if (aclrtSynchronizeDevice() != ACL_SUCCESS)
            atomic_fetch_add(&race_sync_failures, 1);
    return NULL;
}

TEST(streams_can_be_created_while_another_thread_synchronizes_the_device)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&race_ctx));
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, device_syncer, NULL));
    int n = SANITIZED ? 300 : 2000;
    atomic_int ran = 0;
    for (int i = 0; i < n; i++) {
        aclrtStream s = NULL;
        CHECK_OK(aclrtCreateStream(&s));
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
        CHECK_OK(aclrtDestroyStream(s));
    }
    atomic_store(&race_done, 1);
    CHECK_EQ(0, pthread_join(t, NULL));
    CHECK_EQ(0, atomic_load(&race_sync_failures));
    CHECK_EQ(n, atomic_load(&ran));
}

/* ------------------------------------------------------------------------
 * Host functions that fill each other's streams.
 * ------------------------------------------------------------------------ */

#define MUTUAL_LAUNCHES 2000

struct mutual {
    aclrtStream target;
    atomic_int entered;
    struct mutual *other;
    atomic_int ran; /* tasks launched into `target` that ran */
    int ok, full, other_code, finished;
};

static void mutual_fn(void *arg)
{
    struct mutual *m = (struct mutual *)arg;
    atomic_store(&m->entered, 1);
    /* Both run at once (bounded: a runtime that serializes them still makes progress). */
    for (long i = 0; i < 20000000L && !atomic_load(&m->other->entered); i++)
        sched_yield();
    for (int i = 0; i < MUTUAL_LAUNCHES; i++) {
        aclError rc = aclrtLaunchHostFunc(m->target, count_fn, &m->ran);
        if (rc == ACL_SUCCESS)
            m->ok++;
        else if (rc == ACL_ERROR_RT_STREAM_TASK_FULL)
            m->full++;
        else
            m->other_code = rc;
    }
    m->finished = 1;
}

TEST(host_functions_filling_each_others_streams_do_not_deadlock)
{
    CHECK_OK(aclrtSetDevice(0));
    aclrtStream a = new_stream(), b = new_stream();
    static struct mutual ma, mb;
    ma.target = b; /* runs on a, launches into b */
    mb.target = a;
    ma.other = &mb;
    mb.other = &ma;
    CHECK_OK(aclrtLaunchHostFunc(a, mutual_fn, &ma));
    CHECK_OK(aclrtLaunchHostFunc(b, mutual_fn, &mb));
    step("synchronizing the two streams (each has a host function launching %d tasks into the other)", MUTUAL_LAUNCHES);
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    step("synchronizing the two streams again (the tasks launched late)");
    CHECK_OK(aclrtSynchronizeStream(a));
    CHECK_OK(aclrtSynchronizeStream(b));
    CHECK_EQ(1, ma.finished);
    CHECK_EQ(1, mb.finished);
    CHECK_EQ(0, ma.other_code);
    CHECK_EQ(0, mb.other_code);
    CHECK_EQ(MUTUAL_LAUNCHES, ma.ok + ma.full);
    CHECK_EQ(MUTUAL_LAUNCHES, mb.ok + mb.full);
    CHECK_EQ(ma.ok, atomic_load(&ma.ran));
    CHECK_EQ(mb.ok, atomic_load(&mb.ran));
    if (getenv("RELIABILITY_VERBOSE"))
        fprintf(stderr, "  mutual launches: %d + %d accepted, %d + %d refused as full\n", ma.ok, mb.ok, ma.full,
                mb.full);
}

/* ------------------------------------------------------------------------
 * 2,000 threads x 100 launches into one stream.
 * ------------------------------------------------------------------------ */

#define MANY_THREADS 2000
#define MANY_LAUNCHES 100

static aclrtContext many_ctx;
static aclrtStream many_stream;
static atomic_int many_ran, many_launched, many_bad_code, many_done;

static void *many_launcher(void *arg)
{
    (void)arg;
    if (aclrtSetCurrentContext(many_ctx) != ACL_SUCCESS) {
        atomic_store(&many_bad_code, -1);
        return NULL;
    }
    for (int i = 0; i < MANY_LAUNCHES; i++) {
        aclError rc = aclrtLaunchHostFunc(many_stream, count_fn, &many_ran);
        if (rc != ACL_SUCCESS)
            atomic_store(&many_bad_code, rc);
        else
            atomic_fetch_add(&many_launched, 1);
    }
    atomic_fetch_add(&many_done, 1);
    return NULL;
}

TEST(two_thousand_threads_launching_into_one_stream_all_run)
{
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&many_ctx));
    many_stream = new_stream();
    static pthread_t threads[MANY_THREADS];
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SANITIZED ? 1u << 20 : 128u << 10);
    int started = 0;
    /* Bounded: a stuck launch is reported with the counts, not waited for. */
    double deadline = mono_s() + bound_s() * 2.0;
    struct timespec abs;
    clock_gettime(CLOCK_REALTIME, &abs);
    abs.tv_sec += (time_t)(bound_s() * 2.0);
    for (int i = 0; i < MANY_THREADS; i++) {
        if (i % 100 == 0)
            step("starting launcher threads: %d started, %d done, %d tasks launched, %d ran", i,
                 atomic_load(&many_done), atomic_load(&many_launched), atomic_load(&many_ran));
        if (mono_s() > deadline || pthread_create(&threads[i], &attr, many_launcher, NULL) != 0)
            break;
        started++;
    }
    pthread_attr_destroy(&attr);
    if (started != MANY_THREADS)
        fprintf(stderr, "  after %.0f s: %d of %d threads started, %d done, %d tasks launched, %d ran\n",
                bound_s() * 2.0, started, MANY_THREADS, atomic_load(&many_done), atomic_load(&many_launched),
                atomic_load(&many_ran));
    CHECK_EQ(MANY_THREADS, started);
    int joined = 0;
    for (int i = 0; i < started; i++) {
        step("joining launcher threads: %d done, %d tasks launched, %d ran", atomic_load(&many_done),
             atomic_load(&many_launched), atomic_load(&many_ran));
        if (pthread_timedjoin_np(threads[i], NULL, &abs) != 0)
            break;
        joined++;
    }
    if (joined != started)
        fprintf(stderr, "  after %.0f s: %d of %d threads done, %d of %d tasks launched, %d ran\n", bound_s() * 2.0,
                atomic_load(&many_done), started, atomic_load(&many_launched), MANY_THREADS * MANY_LAUNCHES, atomic_load(&many_ran));
    CHECK_EQ(started, joined);
    CHECK_EQ(0, atomic_load(&many_bad_code));
    double left = deadline - mono_s();
    step("synchronizing the stream: %d of %d ran", atomic_load(&many_ran), MANY_THREADS * MANY_LAUNCHES);
    CHECK_OK(aclrtSynchronizeStreamWithTimeout(many_stream, left > 1 ? (int32_t)(left * 1000) : 1000));
    CHECK_EQ(MANY_THREADS * MANY_LAUNCHES, atomic_load(&many_ran));
}

/* The cuda backend (tests/impl_cuda.c sets ACLRT_BACKEND before main)? */
static bool on_cuda_backend(void)
{
    const char *b = getenv("ACLRT_BACKEND");
    return b != NULL && strcmp(b, "cuda") == 0;
}

/* ------------------------------------------------------------------------
 * fork(): the child gets errors, not hangs, and can start over.
 * ------------------------------------------------------------------------ */

/* The child of the fork reports here; the case (its parent) reads it after the child is gone. */
struct fork_report {
    char step[256];
    char failure[512];
};
static struct fork_report *fork_report;

static void fork_step(const char *what)
{
    snprintf(fork_report->step, sizeof fork_report->step, "%s", what);
}

static void fork_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fork_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fork_report->failure, sizeof fork_report->failure, fmt, ap);
    va_end(ap);
    _exit(code);
}

/* Two calls of one operation: at least one fails, and each failure names its call in the recent-error text. */
static void fork_expect_error(int code, const char *what, const char *names[2], aclError rc[2])
{
    if (rc[0] == ACL_SUCCESS && rc[1] == ACL_SUCCESS)
        fork_fail(code, "%s: both calls succeeded in the child (expected an error)", what);
    const char *msg = aclGetRecentErrMsg();
    for (int i = 0; i < 2; i++) {
        if (rc[i] == ACL_SUCCESS || names[i] == NULL)
            continue;
        char bracketed[96];
        snprintf(bracketed, sizeof bracketed, "[%s]", names[i]);
        if (msg == NULL || strstr(msg, bracketed) == NULL)
            fork_fail(code, "%s: %s returned %d but the recent-error text does not name it: %s", what, names[i],
                      rc[i], msg ? msg : "(none)");
    }
}

static void fork_child(aclrtStream s, aclrtEvent e)
{
    atomic_int ran = 0;
    (void)aclGetRecentErrMsg();

    fork_step("aclrtLaunchHostFunc + aclrtSynchronizeStream");
    aclError rc[2];
    rc[0] = aclrtLaunchHostFunc(s, count_fn, &ran);
    rc[1] = aclrtSynchronizeStream(s);
    fork_expect_error(10, "launch + synchronize", (const char *[2]){"aclrtLaunchHostFunc", "aclrtSynchronizeStream"},
                      rc);

    fork_step("aclrtRecordEvent + aclrtSynchronizeEvent");
    rc[0] = aclrtRecordEvent(e, s);
    rc[1] = aclrtSynchronizeEvent(e);
    fork_expect_error(11, "record + synchronize", (const char *[2]){"aclrtRecordEvent", "aclrtSynchronizeEvent"}, rc);

    fork_step("aclrtSynchronizeDevice");
    rc[0] = aclrtSynchronizeDevice();
    rc[1] = rc[0];
    fork_expect_error(12, "aclrtSynchronizeDevice", (const char *[2]){"aclrtSynchronizeDevice", NULL}, rc);

    fork_step("aclrtDestroyStream");
    rc[0] = aclrtDestroyStream(s);
    rc[1] = rc[0];
    fork_expect_error(13, "aclrtDestroyStream", (const char *[2]){"aclrtDestroyStream", NULL}, rc);

    fork_step("aclFinalize in the child");
    aclError f = aclFinalize();
    if (f != ACL_SUCCESS)
        fork_fail(14, "aclFinalize in the child returned %d: %s", f, aclGetRecentErrMsg());
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer cannot start threads in the child of a multi-threaded fork ("dup thread with used id"). */
    _exit(0);
#endif
#if defined(__SANITIZE_ADDRESS__)
    /*
     * GCC 12's AddressSanitizer may leave its allocator lock held in the child
     * of a fork that raced a thread start in the parent, and the child's next
     * thread start then waits for ever: the child's runtime runs without
     * threads (external progress, driven below by this thread).
     */
    setenv("ACLRT_PROGRESS", "external", 1); /* read by aclInit */
#endif
    fork_step("aclInit in the child");
    f = aclInit(NULL);
    if (f != ACL_SUCCESS && on_cuda_backend()) {
        /*
         * CUDA cannot start again in a child forked after the parent used it:
         * the cuda backend refuses with ACL_ERROR_RT_NO_DEVICE and says why.
         * There is no runtime in the child to check further.
         */
        const char *msg = aclGetRecentErrMsg();
        if (f != ACL_ERROR_RT_NO_DEVICE)
            fork_fail(15, "aclInit in the child (cuda backend) returned %d, not %d: %s", f, ACL_ERROR_RT_NO_DEVICE,
                      msg != NULL ? msg : "(nothing)");
        if (msg == NULL || msg[0] == '\0')
            fork_fail(15, "aclInit in the child (cuda backend) returned %d with no message", f);
        _exit(0);
    }
    if (f != ACL_SUCCESS)
        fork_fail(15, "aclInit in the child returned %d: %s", f, aclGetRecentErrMsg());

    fork_step("the child's new runtime: launch + synchronize");
    aclrtStream t = NULL;
    atomic_store(&ran, 0);
    if ((f = aclrtSetDevice(0)) != ACL_SUCCESS || (f = aclrtCreateStream(&t)) != ACL_SUCCESS ||
        (f = aclrtLaunchHostFunc(t, count_fn, &ran)) != ACL_SUCCESS)
        fork_fail(16, "the child's new runtime failed with %d: %s", f, aclGetRecentErrMsg());
#if defined(__SANITIZE_ADDRESS__)
    for (long i = 0; i < 100000000L && atomic_load(&ran) == 0; i++) {
        aclrtxProgressInfo info;
        if ((f = aclrtxDeviceProgress(0, 256, &info)) != ACL_SUCCESS)
            fork_fail(16, "aclrtxDeviceProgress in the child failed with %d: %s", f, aclGetRecentErrMsg());
    }
#endif
    if ((f = aclrtSynchronizeStream(t)) != ACL_SUCCESS)
        fork_fail(16, "the child's new runtime failed with %d: %s", f, aclGetRecentErrMsg());
    if (atomic_load(&ran) != 1)
        fork_fail(17, "the child's new runtime ran %d tasks, not 1", atomic_load(&ran));
    fork_step("aclFinalize of the child's new runtime");
    if ((f = aclFinalize()) != ACL_SUCCESS)
        fork_fail(18, "the child's last aclFinalize returned %d", f);
    _exit(0);
}

TEST(a_forked_child_gets_errors_instead_of_hangs_and_can_start_over)
{
    fork_report = (struct fork_report *)mmap(NULL, sizeof *fork_report, PROT_READ | PROT_WRITE,
                                             MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(fork_report != MAP_FAILED);
    step("setup");
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    aclrtStream s = new_stream();
    aclrtEvent e = NULL;
    atomic_int ran = 0;
    CHECK_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtRecordEvent(e, s));
    CHECK_OK(aclrtSynchronizeEvent(e)); /* the executors are running: the fork copies a live runtime */
    CHECK_EQ(1, atomic_load(&ran));
    fflush(stdout);
    fflush(stderr);
    step("waiting for the forked child");
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the case */
        fork_child(s, e);
    }
    int status = 0;
    int ended = wait_or_kill(pid, mono_s() + bound_s() / 2, &status);
    if (!ended)
        fprintf(stderr, "  the forked child hung for %.0f s (killed) at: %s\n", bound_s() / 2, fork_report->step);
    else if (status == -1 || WIFSIGNALED(status))
        fprintf(stderr, "  the forked child died of signal %d at: %s\n", status == -1 ? 0 : WTERMSIG(status),
                fork_report->step);
    else if (WEXITSTATUS(status) != 0)
        fprintf(stderr, "  the forked child failed (status %d) at: %s\n  %s\n", WEXITSTATUS(status), fork_report->step,
                fork_report->failure);
    CHECK(ended);
    CHECK(status != -1 && !WIFSIGNALED(status));
    CHECK_EQ(0, WEXITSTATUS(status));
    step("the parent's runtime after the fork");
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_EQ(2, atomic_load(&ran));
    CHECK_OK(aclFinalize());
}

/* ------------------------------------------------------------------------
 * Absurd allocations.
 * ------------------------------------------------------------------------ */

/*
 * docs/SEMANTICS.md (Tasks and memory): a size whose rounding overflows is
 * refused by aclrtMalloc with ACL_ERROR_INVALID_PARAM (the ACL layer's own
 * check); every other impossible size, and every one of aclrtMallocHost, is
 * ACL_ERROR_RT_MEMORY_ALLOCATION. The pointer is left as it was.
 */
TEST(absurd_allocations_fail_with_the_allocation_error_and_no_pointer)
{
    CHECK_OK(aclrtSetDevice(0));
    const size_t sizes[] = {(size_t)1 << 50, SIZE_MAX / 2, SIZE_MAX - 100, SIZE_MAX - 40, SIZE_MAX};
    const char *names[] = {"1 PiB", "SIZE_MAX / 2", "SIZE_MAX - 100", "SIZE_MAX - 40", "SIZE_MAX"};
    int sentinel = 0;
    for (int i = 0; i < 5; i++) {
        for (int host = 0; host < 2; host++) {
            const char *fn = host ? "aclrtMallocHost" : "aclrtMalloc";
            step("%s(%s)", fn, names[i]);
            void *p = &sentinel;
            (void)aclGetRecentErrMsg();
            aclError rc = host ? aclrtMallocHost(&p, sizes[i]) : aclrtMalloc(&p, sizes[i], ACL_MEM_MALLOC_HUGE_FIRST);
            aclError want = !host && sizes[i] > SIZE_MAX - 64 ? ACL_ERROR_INVALID_PARAM : ACL_ERROR_RT_MEMORY_ALLOCATION;
            if (rc != want || p != &sentinel)
                fprintf(stderr, "  %s(%s): returned %d, pointer %p\n", fn, names[i], rc, p == &sentinel ? NULL : p);
            CHECK_EQ(want, rc);
            CHECK(p == &sentinel);
            CHECK_STR_CONTAINS(aclGetRecentErrMsg(), host ? "[aclrtMallocHost]" : "[aclrtMalloc]");
        }
    }
    /* Ordinary allocations still work, and memory checks still tell ours from others. */
    void *p = NULL;
    int local = 0;
    CHECK_OK(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(&local));
    CHECK_OK(aclrtFree(p));
}

int main(void)
{
    rel_shared = (struct rel_shared *)mmap(NULL, sizeof *rel_shared, PROT_READ | PROT_WRITE,
                                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (rel_shared == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    RUN_ISOLATED(a_wait_keeps_its_capture_when_the_event_is_destroyed, 1);
    RUN_ISOLATED(finalize_ends_while_a_stream_waits_on_a_stopped_stream, 1);
    RUN_ISOLATED(reset_device_ends_while_a_stream_waits_for_a_record_that_never_comes, 1);
    RUN_ISOLATED(reset_device_force_ends_while_a_stream_waits_for_a_record_that_never_comes, 1);
    RUN_ISOLATED(destroy_context_ends_while_a_stream_waits_for_a_record_that_never_comes, 1);
    RUN_ISOLATED(a_complete_event_stays_successful_when_a_failing_context_reuses_its_stream_slot, 1);
    RUN_ISOLATED(a_failing_call_in_a_thread_exit_destructor_reports_its_error, 1);
    RUN_ISOLATED(streams_can_be_created_while_another_thread_synchronizes_the_device, 1);
    RUN_ISOLATED(host_functions_filling_each_others_streams_do_not_deadlock, 1);
    RUN_ISOLATED(two_thousand_threads_launching_into_one_stream_all_run, 3);
    RUN_ISOLATED(a_forked_child_gets_errors_instead_of_hangs_and_can_start_over, 1);
    RUN_ISOLATED(absurd_allocations_fail_with_the_allocation_error_and_no_pointer, 1);
    return check_report("reliability");
}
