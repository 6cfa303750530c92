/*
 * tests/soak/timeouts.c - timeout accuracy, on device 3.
 *
 * Work that never finishes: a stream parked on a legacy SYNC event nobody
 * records (it holds no runtime thread), an Ex event recorded behind that
 * wait, and a thread subscribed for callbacks and host functions on a quiet
 * stream. Then, over and over, with timeouts of 1..20 ms:
 *
 *   aclrtSynchronizeStreamWithTimeout   -> ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
 *   aclrtSynchronizeEventWithTimeout    -> ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
 *   aclrtSynchronizeDeviceWithTimeout   -> ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
 *   aclrtProcessReport                  -> ACL_ERROR_RT_REPORT_TIMEOUT
 *   aclrtProcessHostFunc                -> ACL_ERROR_RT_REPORT_TIMEOUT
 *
 * Checked: the code, and that no call returns before its timeout (the
 * signal sender targets this thread too: an interrupted wait must not end
 * early). Measured: the overshoot (time taken minus the timeout), once on
 * an idle runtime before the other concerns start and then under the soak's
 * load; the summary gives median, p99 and max per call. Overshoot is a
 * figure, not a violation (the machine is shared); a call that never
 * returns is caught by the watchdog.
 */
#define _GNU_SOURCE
#include "soak.h"

enum { TO_STREAM, TO_EVENT, TO_DEVICE, TO_REPORT, TO_HOSTFUNC, TO_KINDS };
static const char *const to_names[TO_KINDS] = {
    "aclrtSynchronizeStreamWithTimeout", "aclrtSynchronizeEventWithTimeout", "aclrtSynchronizeDeviceWithTimeout",
    "aclrtProcessReport", "aclrtProcessHostFunc",
};
static const int to_codes[TO_KINDS] = {ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                                       ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, ACL_ERROR_RT_REPORT_TIMEOUT,
                                       ACL_ERROR_RT_REPORT_TIMEOUT};

#define TO_SAMPLES 20000
struct to_samples {
    uint32_t n;
    uint32_t us[TO_SAMPLES]; /* overshoot in microseconds */
};
static struct to_samples to_idle[TO_KINDS], to_loaded[TO_KINDS];

static aclrtContext to_ctx;
static aclrtStream to_parked, to_quiet_report, to_quiet_host;
static aclrtEvent to_never, to_behind;
static int to_ready;

int timeouts_setup(void)
{
    aclError rc = aclrtCreateContext(&to_ctx, SOAK_DEV_TIME);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&to_parked);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&to_quiet_report);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateStream(&to_quiet_host);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventWithFlag(&to_never, ACL_EVENT_SYNC);
    if (rc == ACL_SUCCESS)
        rc = aclrtCreateEventExWithFlag(&to_behind, ACL_EVENT_SYNC);
    if (rc == ACL_SUCCESS)
        rc = aclrtStreamWaitEvent(to_parked, to_never); /* waits for the next record: none until the end */
    if (rc == ACL_SUCCESS)
        rc = aclrtRecordEvent(to_behind, to_parked);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "timeouts setup: %d %s\n", rc, soak_error_line());
        return 1;
    }
    to_ready = 1;
    return 0;
}

static void to_subscribe(bool on)
{
    uint64_t me = (uint64_t)pthread_self();
    aclError r1 = on ? aclrtSubscribeReport(me, to_quiet_report) : aclrtUnSubscribeReport(me, to_quiet_report);
    aclError r2 = on ? aclrtSubscribeHostFunc(me, to_quiet_host) : aclrtUnSubscribeHostFunc(me, to_quiet_host);
    if (r1 != ACL_SUCCESS || r2 != ACL_SUCCESS)
        soak_violation(SV_CODE, "timeouts: (un)subscribing returned %d / %d: %s", r1, r2, soak_error_line());
}

static void to_measure_one(uint64_t *rng, struct to_samples *into)
{
    static const int32_t timeouts[] = {1, 2, 3, 5, 10, 20};
    int kind = (int)soak_pick(rng, TO_KINDS);
    int32_t t = timeouts[soak_pick(rng, sizeof timeouts / sizeof timeouts[0])];
    uint64_t t0 = soak_now_ns();
    soak_block_begin(to_names[kind], -1, soak_bound_ms());
    aclError rc;
    switch (kind) {
    case TO_STREAM: rc = aclrtSynchronizeStreamWithTimeout(to_parked, t); break;
    case TO_EVENT: rc = aclrtSynchronizeEventWithTimeout(to_behind, t); break;
    case TO_DEVICE: rc = aclrtSynchronizeDeviceWithTimeout(t); break;
    case TO_REPORT: rc = aclrtProcessReport(t); break;
    default: rc = aclrtProcessHostFunc(t); break;
    }
    soak_block_end();
    uint64_t took = soak_now_ns() - t0;
    soak_count(SO_TIMEOUT_CALL);
    if (rc != to_codes[kind])
        soak_violation(SV_CODE, "timeouts: %s(%d ms) on work that never finishes returned %d after %.3f ms: %s",
                       to_names[kind], t, rc, took / 1e6, soak_error_line());
    uint64_t want = (uint64_t)t * 1000000u;
    if (took < want) {
        soak_violation(SV_TIMEOUT_EARLY, "timeouts: %s(%d ms) returned %d after %.3f ms", to_names[kind], t, rc,
                       took / 1e6);
        return;
    }
    struct to_samples *s = &into[kind];
    if (s->n < TO_SAMPLES) {
        uint64_t us = (took - want) / 1000;
        s->us[s->n++] = us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
    }
}

void timeouts_measure_idle(double seconds)
{
    if (!to_ready)
        return;
    uint64_t rng = soak_cfg.seed ^ 0x7117u;
    (void)aclrtSetCurrentContext(to_ctx);
    to_subscribe(true);
    uint64_t end = soak_now_ns() + (uint64_t)(seconds * 1e9);
    while (soak_now_ns() < end)
        to_measure_one(&rng, to_idle);
    to_subscribe(false);
}

void *timeouts_thread(void *arg)
{
    (void)arg;
    struct soak_thread *me = soak_thread_register("timeouts");
    atomic_store(&me->signalable, 1);
    if (!to_ready)
        return NULL;
    uint64_t rng = soak_cfg.seed ^ 0x7118u;
    (void)aclrtSetCurrentContext(to_ctx);
    to_subscribe(true);
    while (soak_running())
        to_measure_one(&rng, to_loaded);
    to_subscribe(false);
    return NULL;
}

void timeouts_finish(void)
{
    if (!to_ready)
        return;
    /* Release the parked stream: record the event it waits for, then everything drains. */
    (void)aclrtSetCurrentContext(to_ctx);
    aclError rc = aclrtRecordEvent(to_never, to_quiet_report);
    if (rc == ACL_SUCCESS)
        rc = SOAK_BLOCKING("aclrtSynchronizeStream (timeouts drain)", -1, aclrtSynchronizeStream(to_parked));
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "timeouts: releasing the parked stream: %d %s", rc, soak_error_line());
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void print_set(const char *label, struct to_samples *set)
{
    uint32_t all_n = 0, all_worst = 0;
    printf("timeout overshoot (%s), us: ", label);
    static uint32_t all[TO_SAMPLES * TO_KINDS];
    for (int k = 0; k < TO_KINDS; k++) {
        struct to_samples *s = &set[k];
        if (s->n == 0)
            continue;
        qsort(s->us, s->n, sizeof s->us[0], cmp_u32);
        memcpy(all + all_n, s->us, s->n * sizeof s->us[0]);
        all_n += s->n;
        if (s->us[s->n - 1] > all_worst)
            all_worst = s->us[s->n - 1];
        printf("%s n=%u p50 %u p99 %u max %u; ", to_names[k] + 4, s->n, s->us[s->n / 2], s->us[(s->n * 99) / 100],
               s->us[s->n - 1]);
    }
    if (all_n > 0) {
        qsort(all, all_n, sizeof all[0], cmp_u32);
        printf("all n=%u p50 %u p99 %u max %u", all_n, all[all_n / 2], all[(all_n * 99) / 100], all[all_n - 1]);
    }
    printf("\n");
}

void timeouts_summary(void)
{
    if (!to_ready)
        return;
    print_set("idle runtime", to_idle);
    print_set("under the soak", to_loaded);
}
