/*
 * tests/soak/lifetime.c - destroys racing the uses the API allows, while the
 * workload runs on the same device.
 *
 * Using a handle while another thread destroys it is a race in the program
 * (ACL, CUDA), so only legal races are run: a destroy while work that refers
 * to the object is still queued, a reset while other contexts work. One
 * thread picks a scenario at random (SOAK_SKIP=<name> leaves one out):
 *
 *   event_destroy       record an event behind slow work W, enqueue a wait
 *                       on it, destroy the event at once (all three
 *                       flavours, the legacy wait also before the record):
 *                       the waiting stream's next task starts after W.
 *   stream_destroy      destroy (or force-destroy) a stream whose event
 *                       another stream waits for: the waiter's next task
 *                       starts after W (or W was discarded); a plain
 *                       destroy returns after W.
 *   waiter_destroy      force-destroy the stream that waits: it returns,
 *                       and a task behind the wait that ran, ran after W.
 *                       (A task seen starting after a force destroy
 *                       returned is counted in the summary, not judged: a
 *                       force destroy does not wait, and launched work that
 *                       can run still runs.)
 *   notify_destroy      destroy a notify / counting notify with a wait
 *                       pending: the wait is released, the task behind it
 *                       runs.
 *   callback_abort      abort a stream with BLOCK callbacks pending for a
 *                       report thread: the abort returns, each callback runs
 *                       at most once, a callback launched afterwards runs.
 *   reset_device        aclrtSetDevice(0), work on the default context,
 *                       aclrtResetDevice(Force)(0) while the workload's
 *                       context keeps running: the work ran, the workload
 *                       is not disturbed.
 *   context_destroy     a context with queued work and events is destroyed:
 *                       its work ran first.
 *   stale_capture       (device 2) an event completes on a stream that is
 *                       then destroyed; a stop-on-failure context reuses
 *                       the stream's slot and fails: the event still
 *                       synchronizes successfully.
 *   stop_on_failure     (device 2) after a failing task in a stop-on-failure
 *                       context: its synchronizers return the failure, new
 *                       submissions are refused, destroying the context
 *                       ends. A task whose executor passed the failure
 *                       check just before the failure can still enter its
 *                       function after a synchronize reported it (it was
 *                       preempted in between): counted, not judged.
 *   reset_parked,       teardown while a stream waits for a legacy event
 *   context_parked      nobody records (reset / context destroy): ends.
 */
#define _GNU_SOURCE
#include "soak.h"

#include <sched.h>

static aclrtContext lt_ctx;         /* device 0 */
static aclrtStream lt_a, lt_b;      /* streams of lt_ctx */
static aclrtContext lt_fail_home;   /* device 2: where completed events live */
static atomic_long lt_runs[16], lt_violations[16];
static atomic_long lt_started_after_force; /* tasks seen starting just after a force destroy returned */
static atomic_long lt_started_after_failure; /* tasks seen starting just after a stop on failure was reported */
static const char *const lt_names[] = {
    "event_destroy", "stream_destroy", "waiter_destroy", "notify_destroy", "callback_abort", "reset_device",
    "context_destroy", "stale_capture", "stop_on_failure", "reset_parked", "context_parked",
};
#define LT_SCENARIOS ((int)(sizeof lt_names / sizeof lt_names[0]))

/* W: slow work that records when it started and finished. */
struct lt_work {
    atomic_int started, done;
    unsigned spin_us;
};

static void lt_work_fn(void *arg)
{
    struct lt_work *w = (struct lt_work *)arg;
    atomic_store(&w->started, 1);
    uint64_t end = soak_now_ns() + (uint64_t)w->spin_us * 1000u;
    while (soak_now_ns() < end)
        sched_yield();
    atomic_store(&w->done, 1);
}

/* A probe: what W looked like when it ran. */
struct lt_probe {
    struct lt_work *watch;
    atomic_int ran, saw_done, saw_started;
};

static void lt_probe_fn(void *arg)
{
    struct lt_probe *p = (struct lt_probe *)arg;
    if (p->watch != NULL) {
        atomic_store(&p->saw_done, atomic_load(&p->watch->done));
        atomic_store(&p->saw_started, atomic_load(&p->watch->started));
    }
    atomic_fetch_add(&p->ran, 1);
}

/*
 * W and its probe for the scenarios whose tasks may run after the scenario
 * returned (a force destroy does not wait, and launched work that can run
 * still runs, at any time): never on the scenario's stack, but from a ring
 * reused only LT_LATE scenarios later (the lifetime thread alone takes them).
 */
#define LT_LATE 1024
struct lt_late {
    struct lt_work w;
    struct lt_probe p;
};
static struct lt_late lt_late_pool[LT_LATE];
static unsigned lt_late_next;

static struct lt_late *lt_late_new(unsigned spin_us)
{
    struct lt_late *l = &lt_late_pool[lt_late_next++ % LT_LATE];
    atomic_store(&l->w.started, 0);
    atomic_store(&l->w.done, 0);
    l->w.spin_us = spin_us;
    l->p.watch = &l->w;
    atomic_store(&l->p.ran, 0);
    atomic_store(&l->p.saw_done, 0);
    atomic_store(&l->p.saw_started, 0);
    return l;
}

static void lt_count_fn(void *arg)
{
    atomic_fetch_add((atomic_long *)arg, 1);
}

/*
 * Calls that may discard device-0 work (force destroys, resets and context
 * destroys discard what is parked for good) make synchronizers of that
 * work, device synchronizes included, return ACL_ERROR_RT_STREAM_ABORT: the
 * workload's checks accept that code while one of these is in progress.
 */
#define LT_DISCARDING(what, call)                                                                           \
    do {                                                                                                    \
        atomic_fetch_add(&soak_dev0_ctl_begin, 1);                                                          \
        aclError lt_drc_ = SOAK_BLOCKING(what, -1, (call));                                                 \
        atomic_fetch_add(&soak_dev0_ctl_end, 1);                                                            \
        if (lt_drc_ != ACL_SUCCESS) {                                                                       \
            soak_violation(SV_CODE, "lifetime %s: %s returned %d: %s", scenario, what, lt_drc_,             \
                           soak_error_line());                                                              \
            return;                                                                                         \
        }                                                                                                   \
    } while (0)

#define LT_OK(what, call)                                                                                   \
    do {                                                                                                    \
        aclError lt_rc_ = SOAK_BLOCKING(what, -1, (call));                                                  \
        if (lt_rc_ != ACL_SUCCESS) {                                                                        \
            soak_violation(SV_CODE, "lifetime %s: %s returned %d: %s", scenario, what, lt_rc_,              \
                           soak_error_line());                                                           \
            return;                                                                                         \
        }                                                                                                   \
    } while (0)

int lifetime_setup(void)
{
    aclError rc = aclrtCreateContext(&lt_ctx, SOAK_DEV_WORK);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&lt_a);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&lt_b);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateContext(&lt_fail_home, SOAK_DEV_FAIL);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "lifetime setup: %d %s\n", rc, soak_error_line());
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Scenarios
 * ------------------------------------------------------------------------ */

static void sc_event_destroy(uint64_t *rng)
{
    const char *scenario = "event_destroy";
    int flavour = (int)soak_pick(rng, 4); /* 0 plain, 1 Ex, 2 legacy record first, 3 legacy wait first */
    static const char *const fl[] = {"aclrtCreateEvent", "Ex", "legacy SYNC, wait after the record",
                                     "legacy SYNC, wait before the record"};
    aclrtEvent e = NULL;
    struct lt_work w = {0, 0, 300 + (unsigned)soak_pick(rng, 700)};
    struct lt_probe p = {&w, 0, 0, 0};
    switch (flavour) {
    case 0: LT_OK("aclrtCreateEvent", aclrtCreateEvent(&e)); break;
    case 1: LT_OK("aclrtCreateEventExWithFlag", aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC)); break;
    default: LT_OK("aclrtCreateEventWithFlag", aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC)); break;
    }
    if (flavour == 3)
        LT_OK("aclrtStreamWaitEvent", aclrtStreamWaitEvent(lt_b, e));
    LT_OK("aclrtLaunchHostFunc (W)", aclrtLaunchHostFunc(lt_a, lt_work_fn, &w));
    LT_OK("aclrtRecordEvent", aclrtRecordEvent(e, lt_a));
    if (flavour != 3)
        LT_OK("aclrtStreamWaitEvent", aclrtStreamWaitEvent(lt_b, e));
    LT_OK("aclrtDestroyEvent", aclrtDestroyEvent(e));
    LT_OK("aclrtLaunchHostFunc (probe)", aclrtLaunchHostFunc(lt_b, lt_probe_fn, &p));
    LT_OK("aclrtSynchronizeStream (waiter)", aclrtSynchronizeStream(lt_b));
    LT_OK("aclrtSynchronizeStream (W)", aclrtSynchronizeStream(lt_a));
    if (atomic_load(&p.ran) != 1)
        soak_violation(SV_LIFETIME, "event_destroy (%s): the task behind the wait ran %d times", fl[flavour],
                       atomic_load(&p.ran));
    else if (!atomic_load(&p.saw_done))
        soak_violation(SV_LIFETIME,
                       "event_destroy (%s): the event was destroyed right after its record; the waiting stream's "
                       "next task ran before the recorded work W had finished (W %s)",
                       fl[flavour], atomic_load(&p.saw_started) ? "was running" : "had not started");
}

static void sc_stream_destroy(uint64_t *rng)
{
    const char *scenario = "stream_destroy";
    bool force = soak_pick(rng, 2);
    aclrtStream a = NULL;
    aclrtEvent e = NULL;
    struct lt_late *late = lt_late_new(500 + (unsigned)soak_pick(rng, 1500)); /* its tasks may run after this returns */
    struct lt_work *w = &late->w;
    struct lt_probe *p = &late->p;
    LT_OK("aclrtCreateStream", aclrtCreateStream(&a));
    LT_OK("aclrtCreateEventExWithFlag", aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    LT_OK("aclrtLaunchHostFunc (W)", aclrtLaunchHostFunc(a, lt_work_fn, w));
    LT_OK("aclrtRecordEvent", aclrtRecordEvent(e, a));
    LT_OK("aclrtStreamWaitEvent", aclrtStreamWaitEvent(lt_b, e));
    LT_OK("aclrtLaunchHostFunc (probe)", aclrtLaunchHostFunc(lt_b, lt_probe_fn, p));
    if (force)
        LT_DISCARDING("aclrtDestroyStreamForce", aclrtDestroyStreamForce(a));
    else
        LT_OK("aclrtDestroyStream", aclrtDestroyStream(a));
    int started_at_destroy = atomic_load(&w->started);
    if (!force && !atomic_load(&w->done))
        soak_violation(SV_LIFETIME, "stream_destroy: aclrtDestroyStream returned before the stream's work finished");
    LT_OK("aclrtSynchronizeStream (waiter)", aclrtSynchronizeStream(lt_b));
    LT_OK("aclrtDestroyEvent", aclrtDestroyEvent(e));
    if (atomic_load(&p->ran) != 1)
        soak_violation(SV_LIFETIME, "stream_destroy: the task behind the wait ran %d times", atomic_load(&p->ran));
    else if (atomic_load(&p->saw_started) && !atomic_load(&p->saw_done))
        soak_violation(SV_LIFETIME, "stream_destroy%s: the waiting stream's task ran while the awaited work W ran",
                       force ? " (force)" : "");
    else if (!force && !atomic_load(&p->saw_done))
        soak_violation(SV_LIFETIME, "stream_destroy: the waiting stream's task ran before the awaited work W");
    if (force && !started_at_destroy) {
        /*
         * Not started when the destroy returned: a force destroy does not
         * wait, and launched work that can run still runs (the first wait
         * that blocks discards the rest). Counted, not judged: the summary
         * says how often it ran after the call returned.
         */
        for (int i = 0; i < 2000 && !atomic_load(&w->started); i++)
            sched_yield();
        if (atomic_load(&w->started))
            atomic_fetch_add(&lt_started_after_force, 1);
    }
    if (force && started_at_destroy) {
        /* It was running: it finishes (host code cannot be interrupted). Wait for that (bounded), not longer. */
        for (long i = 0; i < 100000000L && !atomic_load(&w->done); i++)
            sched_yield();
    }
}

static void sc_waiter_destroy(uint64_t *rng)
{
    const char *scenario = "waiter_destroy";
    aclrtStream b = NULL;
    aclrtEvent e = NULL;
    struct lt_late *late = lt_late_new(2000 + (unsigned)soak_pick(rng, 3000)); /* its tasks may run after this returns */
    struct lt_work *w = &late->w;
    struct lt_probe *p = &late->p;
    LT_OK("aclrtCreateStream", aclrtCreateStream(&b));
    LT_OK("aclrtCreateEvent", aclrtCreateEvent(&e));
    LT_OK("aclrtLaunchHostFunc (W)", aclrtLaunchHostFunc(lt_a, lt_work_fn, w));
    LT_OK("aclrtRecordEvent", aclrtRecordEvent(e, lt_a));
    LT_OK("aclrtStreamWaitEvent", aclrtStreamWaitEvent(b, e));
    LT_OK("aclrtLaunchHostFunc (probe)", aclrtLaunchHostFunc(b, lt_probe_fn, p));
    LT_DISCARDING("aclrtDestroyStreamForce (the waiter)", aclrtDestroyStreamForce(b));
    int ran_at_destroy = atomic_load(&p->ran);
    LT_OK("aclrtSynchronizeStream (W)", aclrtSynchronizeStream(lt_a));
    LT_OK("aclrtDestroyEvent", aclrtDestroyEvent(e));
    if (ran_at_destroy && !atomic_load(&p->saw_done))
        soak_violation(SV_LIFETIME, "waiter_destroy: the task behind the wait ran before the awaited work W");
    for (int i = 0; i < 2000 && atomic_load(&p->ran) == ran_at_destroy; i++)
        sched_yield();
    if (atomic_load(&p->ran) != ran_at_destroy) /* see sc_stream_destroy */
        atomic_fetch_add(&lt_started_after_force, 1);
}

static void sc_notify_destroy(uint64_t *rng)
{
    const char *scenario = "notify_destroy";
    struct lt_probe p = {NULL, 0, 0, 0};
    if (soak_pick(rng, 2)) {
        aclrtNotify n = NULL;
        LT_OK("aclrtCreateNotify", aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
        LT_OK("aclrtWaitAndResetNotify", aclrtWaitAndResetNotify(n, lt_b, 0));
        LT_OK("aclrtLaunchHostFunc (probe)", aclrtLaunchHostFunc(lt_b, lt_probe_fn, &p));
        LT_OK("aclrtDestroyNotify", aclrtDestroyNotify(n));
    } else {
        aclrtCntNotify n = NULL;
        aclrtCntNotifyWaitInfo info = {ACL_RT_CNT_NOTIFY_WAIT_EQUAL_MODE, 7, 0, 0, {0, 0, 0}};
        LT_OK("aclrtCntNotifyCreate", aclrtCntNotifyCreate(&n, 0));
        LT_OK("aclrtCntNotifyWaitWithTimeout", aclrtCntNotifyWaitWithTimeout(n, lt_b, &info));
        LT_OK("aclrtLaunchHostFunc (probe)", aclrtLaunchHostFunc(lt_b, lt_probe_fn, &p));
        LT_OK("aclrtCntNotifyDestroy", aclrtCntNotifyDestroy(n));
    }
    LT_OK("aclrtSynchronizeStream (released by the destroy)", aclrtSynchronizeStream(lt_b));
    if (atomic_load(&p.ran) != 1)
        soak_violation(SV_LIFETIME, "notify_destroy: the task behind the released wait ran %d times", atomic_load(&p.ran));
}

/* A report thread that serves one stream until told to stop. */
struct lt_reporter {
    pthread_t thread;
    atomic_int quit;
    atomic_int ready;
    aclrtContext ctx;
};

static void *lt_reporter_main(void *arg)
{
    struct lt_reporter *r = (struct lt_reporter *)arg;
    (void)aclrtSetCurrentContext(r->ctx);
    atomic_store(&r->ready, 1);
    while (!atomic_load(&r->quit)) {
        aclError rc = aclrtProcessReport(5);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT && rc != ACL_ERROR_RT_THREAD_SUBSCRIBE)
            soak_violation(SV_CODE, "callback_abort: aclrtProcessReport returned %d", rc);
    }
    return NULL;
}

#define LT_CALLBACKS 6
static atomic_int lt_cb_runs[LT_CALLBACKS + 1];

static void lt_callback(void *arg)
{
    atomic_fetch_add(&lt_cb_runs[(intptr_t)arg], 1);
    soak_count(SO_CALLBACK);
}

static void sc_callback_abort(uint64_t *rng)
{
    const char *scenario = "callback_abort";
    struct lt_reporter r;
    memset(&r, 0, sizeof r);
    r.ctx = lt_ctx;
    aclrtStream c = NULL;
    for (int i = 0; i <= LT_CALLBACKS; i++)
        atomic_store(&lt_cb_runs[i], 0);
    LT_OK("aclrtCreateStream", aclrtCreateStream(&c));
    if (pthread_create(&r.thread, NULL, lt_reporter_main, &r) != 0)
        return;
    while (!atomic_load(&r.ready))
        sched_yield();
    aclError rc = aclrtSubscribeReport((uint64_t)r.thread, c);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "callback_abort: aclrtSubscribeReport returned %d: %s", rc, soak_error_line());
    struct lt_work w = {0, 0, (unsigned)soak_pick(rng, 500)};
    (void)aclrtLaunchHostFunc(c, lt_work_fn, &w);
    for (intptr_t i = 0; i < LT_CALLBACKS && rc == ACL_SUCCESS; i++) {
        rc = aclrtLaunchCallback(lt_callback, (void *)i, soak_pick(rng, 2) ? ACL_CALLBACK_BLOCK : ACL_CALLBACK_NO_BLOCK, c);
        if (rc != ACL_SUCCESS)
            soak_violation(SV_CODE, "callback_abort: aclrtLaunchCallback returned %d: %s", rc, soak_error_line());
    }
    atomic_fetch_add(&soak_dev0_ctl_begin, 1);
    rc = SOAK_BLOCKING("aclrtStreamAbort (callbacks pending)", -1, aclrtStreamAbort(c));
    atomic_fetch_add(&soak_dev0_ctl_end, 1);
    soak_count(SO_ABORT);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "callback_abort: aclrtStreamAbort returned %d: %s", rc, soak_error_line());
    rc = aclrtLaunchCallback(lt_callback, (void *)(intptr_t)LT_CALLBACKS, ACL_CALLBACK_BLOCK, c);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "callback_abort: aclrtLaunchCallback after the abort returned %d", rc);
    rc = SOAK_BLOCKING("aclrtSynchronizeStream (callback after abort)", -1, aclrtSynchronizeStream(c));
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "callback_abort: synchronize after the abort returned %d: %s", rc, soak_error_line());
    if (atomic_load(&lt_cb_runs[LT_CALLBACKS]) != 1)
        soak_violation(SV_LIFETIME, "callback_abort: a BLOCK callback launched after the abort ran %d times by the "
                                    "time its stream synchronized",
                       atomic_load(&lt_cb_runs[LT_CALLBACKS]));
    rc = SOAK_BLOCKING("aclrtDestroyStream (callbacks)", -1, aclrtDestroyStream(c));
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "callback_abort: destroy returned %d", rc);
    atomic_store(&r.quit, 1);
    soak_block_begin("joining the report thread", -1, soak_bound_ms());
    pthread_join(r.thread, NULL);
    soak_block_end();
    for (int i = 0; i < LT_CALLBACKS; i++)
        if (atomic_load(&lt_cb_runs[i]) > 1)
            soak_violation(SV_TWICE, "callback_abort: callback %d ran %d times", i, atomic_load(&lt_cb_runs[i]));
}

static void sc_reset_device(uint64_t *rng)
{
    const char *scenario = "reset_device";
    bool force = soak_pick(rng, 2);
    atomic_long ran = 0;
    long launched = 0;
    aclrtStream s[2] = {NULL, NULL};
    aclrtEvent e = NULL;
    LT_OK("aclrtSetDevice", aclrtSetDevice(SOAK_DEV_WORK));
    for (int i = 0; i < 2; i++)
        LT_OK("aclrtCreateStream (default context)", aclrtCreateStream(&s[i]));
    LT_OK("aclrtCreateEvent", aclrtCreateEvent(&e));
    for (int i = 0; i < 40; i++) {
        LT_OK("aclrtLaunchHostFunc", aclrtLaunchHostFunc(s[i % 2], lt_count_fn, &ran));
        launched++;
        if (i == 20) {
            LT_OK("aclrtRecordEvent", aclrtRecordEvent(e, s[0]));
            LT_OK("aclrtStreamWaitEvent", aclrtStreamWaitEvent(s[1], e));
        }
    }
    LT_OK("aclrtLaunchHostFunc (NULL: the default stream)", aclrtLaunchHostFunc(NULL, lt_count_fn, &ran));
    launched++;
    if (force)
        LT_DISCARDING("aclrtResetDeviceForce", aclrtResetDeviceForce(SOAK_DEV_WORK));
    else
        LT_DISCARDING("aclrtResetDevice", aclrtResetDevice(SOAK_DEV_WORK));
    if (atomic_load(&ran) != launched)
        soak_violation(SV_LIFETIME, "reset_device%s: %ld of the %ld tasks of the default context ran before the "
                                    "reset returned",
                       force ? " (force)" : "", atomic_load(&ran), launched);
    LT_OK("aclrtSetCurrentContext", aclrtSetCurrentContext(lt_ctx));
}

static void sc_context_destroy(uint64_t *rng)
{
    const char *scenario = "context_destroy";
    aclrtContext c = NULL;
    atomic_long ran = 0;
    long launched = 0;
    aclrtStream s[3];
    aclrtEvent e[2];
    LT_OK("aclrtCreateContext", aclrtCreateContext(&c, SOAK_DEV_WORK));
    for (int i = 0; i < 3; i++)
        LT_OK("aclrtCreateStream", aclrtCreateStream(&s[i]));
    LT_OK("aclrtCreateEvent", aclrtCreateEvent(&e[0]));
    LT_OK("aclrtCreateEventWithFlag", aclrtCreateEventWithFlag(&e[1], ACL_EVENT_SYNC));
    int n = 10 + (int)soak_pick(rng, 200);
    for (int i = 0; i < n; i++) {
        LT_OK("aclrtLaunchHostFunc", aclrtLaunchHostFunc(s[i % 3], lt_count_fn, &ran));
        launched++;
        if (i % 17 == 5) {
            LT_OK("aclrtRecordEvent", aclrtRecordEvent(e[i % 2], s[i % 3]));
            LT_OK("aclrtStreamWaitEvent", aclrtStreamWaitEvent(s[(i + 1) % 3], e[i % 2]));
        }
    }
    LT_DISCARDING("aclrtDestroyContext", aclrtDestroyContext(c));
    if (atomic_load(&ran) != launched)
        soak_violation(SV_LIFETIME, "context_destroy: %ld of %ld tasks ran before aclrtDestroyContext returned",
                       atomic_load(&ran), launched);
    LT_OK("aclrtSetCurrentContext", aclrtSetCurrentContext(lt_ctx));
}

static aclError lt_fail_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    (void)arg;
    return SOAK_FAIL_CODE;
}

static void sc_stale_capture(uint64_t *rng)
{
    const char *scenario = "stale_capture";
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    aclrtContext other = NULL;
    int32_t id = -1;
    LT_OK("aclrtSetCurrentContext", aclrtSetCurrentContext(lt_fail_home));
    LT_OK("aclrtCreateStream", aclrtCreateStream(&s));
    LT_OK("aclrtStreamGetId", aclrtStreamGetId(s, &id));
    if (soak_pick(rng, 2))
        LT_OK("aclrtCreateEvent", aclrtCreateEvent(&e));
    else
        LT_OK("aclrtCreateEventExWithFlag", aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    atomic_long ran = 0;
    LT_OK("aclrtLaunchHostFunc", aclrtLaunchHostFunc(s, lt_count_fn, &ran));
    LT_OK("aclrtRecordEvent", aclrtRecordEvent(e, s));
    LT_OK("aclrtSynchronizeEvent", aclrtSynchronizeEvent(e));
    LT_OK("aclrtDestroyStream", aclrtDestroyStream(s));
    /* Another context (its default stream, or one of its streams, takes the slot) fails in stop-on-failure mode. */
    LT_OK("aclrtCreateContext", aclrtCreateContext(&other, SOAK_DEV_FAIL));
    aclrtStream failing = NULL, t = NULL;
    int32_t tid = -2;
    LT_OK("aclrtCreateStream", aclrtCreateStream(&failing));
    LT_OK("aclrtCtxGetCurrentDefaultStream", aclrtCtxGetCurrentDefaultStream(&t));
    LT_OK("aclrtStreamGetId", aclrtStreamGetId(t, &tid));
    for (int i = 0; i < 16 && tid != id; i++) {
        LT_OK("aclrtCreateStream (slot reuse)", aclrtCreateStream(&t));
        LT_OK("aclrtStreamGetId", aclrtStreamGetId(t, &tid));
    }
    LT_OK("aclrtSetStreamFailureMode", aclrtSetStreamFailureMode(failing, ACL_STOP_ON_FAILURE));
    LT_OK("aclrtxLaunchHostKernel (failing)", aclrtxLaunchHostKernel(failing, 1, lt_fail_kernel, NULL));
    aclError rc = SOAK_BLOCKING("aclrtSynchronizeStream (failing)", -1, aclrtSynchronizeStream(failing));
    if (rc != SOAK_FAIL_CODE)
        soak_violation(SV_CODE, "stale_capture: the failing stream's synchronize returned %d", rc);
    rc = SOAK_BLOCKING("aclrtSynchronizeEvent (complete)", -1, aclrtSynchronizeEvent(e));
    if (rc != ACL_SUCCESS)
        soak_violation(SV_LIFETIME,
                       "stale_capture: an event that completed on a since-destroyed stream synchronizes with %d after "
                       "a stop-on-failure context (slot %s) failed",
                       rc, tid == id ? "reused by it" : "not reused");
    LT_OK("aclrtDestroyContext (failed)", aclrtDestroyContext(other));
    LT_OK("aclrtSetCurrentContext", aclrtSetCurrentContext(lt_fail_home));
    LT_OK("aclrtDestroyEvent", aclrtDestroyEvent(e));
    LT_OK("aclrtSetCurrentContext", aclrtSetCurrentContext(lt_ctx));
}

struct lt_after_failure {
    atomic_int failure_reported; /* set once a synchronize returned the failure */
    atomic_int started_after;
};
static struct lt_after_failure lt_af;

static void lt_after_fn(void *arg)
{
    (void)arg;
    if (atomic_load(&lt_af.failure_reported))
        atomic_fetch_add(&lt_af.started_after, 1);
}

static void sc_stop_on_failure(uint64_t *rng)
{
    const char *scenario = "stop_on_failure";
    aclrtContext c = NULL;
    aclrtStream s[2];
    atomic_store(&lt_af.failure_reported, 0);
    atomic_store(&lt_af.started_after, 0);
    LT_OK("aclrtCreateContext", aclrtCreateContext(&c, SOAK_DEV_FAIL));
    for (int i = 0; i < 2; i++)
        LT_OK("aclrtCreateStream", aclrtCreateStream(&s[i]));
    LT_OK("aclrtSetStreamFailureMode", aclrtSetStreamFailureMode(s[0], ACL_STOP_ON_FAILURE));
    int before = (int)soak_pick(rng, 50);
    for (int i = 0; i < before; i++)
        LT_OK("aclrtLaunchHostFunc", aclrtLaunchHostFunc(s[i % 2], lt_after_fn, NULL));
    LT_OK("aclrtxLaunchHostKernel (failing)", aclrtxLaunchHostKernel(s[0], 1, lt_fail_kernel, NULL));
    for (int i = 0; i < 100; i++) {
        aclError rc = aclrtLaunchHostFunc(s[i % 2], lt_after_fn, NULL);
        if (rc != ACL_SUCCESS && rc != SOAK_FAIL_CODE)
            soak_violation(SV_CODE, "stop_on_failure: a launch after the failing task returned %d", rc);
    }
    aclError rc = SOAK_BLOCKING("aclrtSynchronizeStream (failed)", -1, aclrtSynchronizeStream(s[0]));
    if (rc != SOAK_FAIL_CODE)
        soak_violation(SV_CODE, "stop_on_failure: synchronizing the failed stream returned %d", rc);
    atomic_store(&lt_af.failure_reported, 1);
    rc = aclrtLaunchHostFunc(s[1], lt_after_fn, NULL);
    if (rc != SOAK_FAIL_CODE)
        soak_violation(SV_CODE, "stop_on_failure: a launch after the failure was reported returned %d", rc);
    rc = SOAK_BLOCKING("aclrtSynchronizeStream (other stream)", -1, aclrtSynchronizeStream(s[1]));
    if (rc != SOAK_FAIL_CODE)
        soak_violation(SV_CODE, "stop_on_failure: synchronizing another stream of the context returned %d", rc);
    rc = SOAK_BLOCKING("aclrtSynchronizeDevice (failed context)", -1, aclrtSynchronizeDevice());
    if (rc != SOAK_FAIL_CODE)
        soak_violation(SV_CODE, "stop_on_failure: aclrtSynchronizeDevice in the context returned %d", rc);
    LT_OK("aclrtDestroyContext (failed)", aclrtDestroyContext(c));
    atomic_fetch_add(&lt_started_after_failure, atomic_load(&lt_af.started_after));
    LT_OK("aclrtSetCurrentContext", aclrtSetCurrentContext(lt_ctx));
}

static void sc_teardown_parked(uint64_t *rng, bool context)
{
    const char *scenario = context ? "context_parked" : "reset_parked";
    aclrtContext c = NULL;
    aclrtStream s = NULL;
    aclrtEvent e = NULL;
    atomic_long ran = 0;
    if (context)
        LT_OK("aclrtCreateContext", aclrtCreateContext(&c, SOAK_DEV_WORK));
    else
        LT_OK("aclrtSetDevice", aclrtSetDevice(SOAK_DEV_WORK));
    LT_OK("aclrtCreateStream", aclrtCreateStream(&s));
    LT_OK("aclrtCreateEventWithFlag", aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    LT_OK("aclrtStreamWaitEvent (never recorded)", aclrtStreamWaitEvent(s, e));
    LT_OK("aclrtLaunchHostFunc", aclrtLaunchHostFunc(s, lt_count_fn, &ran));
    if (context)
        LT_DISCARDING("aclrtDestroyContext (a stream parked for good)", aclrtDestroyContext(c));
    else if (soak_pick(rng, 2))
        LT_DISCARDING("aclrtResetDevice (a stream parked for good)", aclrtResetDevice(SOAK_DEV_WORK));
    else
        LT_DISCARDING("aclrtResetDeviceForce (a stream parked for good)", aclrtResetDeviceForce(SOAK_DEV_WORK));
    LT_OK("aclrtSetCurrentContext", aclrtSetCurrentContext(lt_ctx));
}

void *lifetime_thread(void *arg)
{
    (void)arg;
    struct soak_thread *me = soak_thread_register("lifetime");
    atomic_store(&me->signalable, 1);
    uint64_t rng = soak_cfg.seed ^ 0x11FEu;
    if (aclrtSetCurrentContext(lt_ctx) != ACL_SUCCESS)
        return NULL;
    while (soak_running()) {
        int k = (int)soak_pick(&rng, LT_SCENARIOS);
        if (soak_skipped(lt_names[k]))
            continue;
        long before = soak_violations_total();
        switch (k) {
        case 0: sc_event_destroy(&rng); break;
        case 1: sc_stream_destroy(&rng); break;
        case 2: sc_waiter_destroy(&rng); break;
        case 3: sc_notify_destroy(&rng); break;
        case 4: sc_callback_abort(&rng); break;
        case 5: sc_reset_device(&rng); break;
        case 6: sc_context_destroy(&rng); break;
        case 7: sc_stale_capture(&rng); break;
        case 8: sc_stop_on_failure(&rng); break;
        case 9: sc_teardown_parked(&rng, false); break;
        default: sc_teardown_parked(&rng, true); break;
        }
        atomic_fetch_add(&lt_runs[k], 1);
        atomic_fetch_add(&lt_violations[k], soak_violations_total() - before); /* roughly: other concerns run too */
        soak_count(SO_LIFETIME);
        (void)aclrtSetCurrentContext(lt_ctx);
    }
    return NULL;
}

void lifetime_summary(void)
{
    long total = 0;
    for (int k = 0; k < LT_SCENARIOS; k++)
        total += atomic_load(&lt_runs[k]);
    if (total == 0)
        return;
    printf("lifetime scenarios:");
    for (int k = 0; k < LT_SCENARIOS; k++)
        if (atomic_load(&lt_violations[k]) != 0)
            printf(" %s %ld (violations %ld),", lt_names[k], atomic_load(&lt_runs[k]), atomic_load(&lt_violations[k]));
        else
            printf(" %s %ld,", lt_names[k], atomic_load(&lt_runs[k]));
    printf(" (tasks that started after a force destroy of their stream returned: %ld, after their context's stop "
           "on failure was reported: %ld)\n",
           atomic_load(&lt_started_after_force), atomic_load(&lt_started_after_failure));
}
