/*
 * tests/soak/invariants.c - the mixed workload on device 0, and the
 * invariants it checks while it runs.
 *
 * SOAK_WORKERS threads pick random operations on SOAK_STREAMS streams and
 * SOAK_EVENTS events (aclrtCreateEvent, Ex and legacy SYNC flavours) of one
 * explicit context: host-function and host-kernel launches (some slow, some
 * failing, bursts that fill the ring), records, stream waits, stream /
 * event / device synchronizes (with and without timeouts), queries, aborts,
 * and stop + abort sequences.
 *
 * Every task carries (stream, sequence number); the test keeps, per stream,
 * what was submitted (launches, records and waits are made under a
 * per-stream lock, record and wait also under the event's lock, so the test
 * knows exactly what each record captured and what each wait copied). Checked
 * as the tasks run:
 *   - exactly once: a task (each block of a host kernel) runs once; when its
 *     slot is reused, and at the end, a task that never ran must be covered
 *     by an abort or stop of its stream (the abort is named) - else "lost";
 *   - stream order: a stream's tasks start in sequence order;
 *   - no late run: a task never starts after the abort that discarded it
 *     returned, nor while its stream is stopped;
 *   - no early wait: a task behind a stream wait starts only after the
 *     awaited record's captured task finished (or was discarded);
 *   - no early synchronize or query: after a successful stream / event /
 *     device synchronize, or a COMPLETE query, the covered tasks have run;
 *   - codes: ACL_ERROR_RT_STREAM_ABORT / TASK_ABORT_STOP only when an abort
 *     or stop overlapped the call, the failure code only where failing
 *     kernels were launched, timeout codes only from ...WithTimeout calls and
 *     never before the timeout; every other call succeeds;
 *   - exception callbacks: one per failing kernel that ran.
 * At the end every stream is drained and every task accounted for.
 */
#define _GNU_SOURCE
#include "soak.h"

#include <sched.h>

#define WL_CAP 4096 /* task records per stream; > 4 x the tasks a 64 KiB ring holds */
#define WL_SEQ_BITS 48
#define WL_SEQ_MASK ((1ull << WL_SEQ_BITS) - 1)
#define WL_MAX_BLOCKS 4

enum { EV_PLAIN, EV_EX, EV_LEGACY, EV_FLAVOURS };
static const char *const ev_flavour_names[EV_FLAVOURS] = {"aclrtCreateEvent", "Ex", "legacy SYNC"};

/* One task's record. Every field is atomic: the slot is reused, and the task reads it on a runtime thread. */
struct wl_slot {
    _Atomic uint64_t seq; /* the task owning the slot; 0: none */
    atomic_int launched;  /* the launch call succeeded */
    atomic_int ran;       /* host function: runs; host kernel: blocks started */
    atomic_int blocks_mask;
    atomic_int blocks_done;
    atomic_int nblocks; /* 0: host function */
    atomic_int fail;    /* the kernel fails */
    atomic_int req_stream, req_event; /* the wait in front of this task: -1 none */
    _Atomic uint64_t req_seq;
    atomic_uint spin_ns;
};

struct wl_stream {
    pthread_mutex_t lock; /* submissions, aborts and stops of this stream */
    aclrtStream handle;
    int index;
    uint64_t last_seq;              /* under lock: newest task submitted */
    _Atomic uint64_t last_seq_pub;  /* its copy for readers without the lock */
    _Atomic uint64_t last_started;  /* written by the tasks */
    _Atomic uint64_t completed;     /* newest task finished */
    _Atomic uint64_t discard_upto;  /* set before an abort / stop: tasks <= it may be discarded */
    _Atomic uint64_t discarded_final; /* set after the abort returned: tasks <= it never start again */
    atomic_int stopped;             /* between aclrtStreamStop returning and the abort */
    atomic_long ctl_begin, ctl_end; /* aborts / stops begun, ended */
    atomic_long fail_launched;
    long aborts;                    /* under lock */
    long discarded, ran;            /* accounted at retirement, under lock */
    struct wl_slot slots[WL_CAP];
};

struct wl_event {
    pthread_mutex_t lock; /* records, waits, synchronizes and queries of this event */
    aclrtEvent handle;
    int flavour;
    int cap_stream; /* under lock: -1 not recorded */
    uint64_t cap_seq;
};

static aclrtContext wl_ctx;
static struct wl_stream *wl_streams;
static struct wl_event *wl_events;
static int wl_nstreams, wl_nevents;
static atomic_long wl_exceptions_dev0, wl_fail_ran, wl_sync_failures_seen;
static atomic_long wl_timeouts_stream, wl_timeouts_event, wl_timeouts_device;

/* ------------------------------------------------------------------------
 * What the tasks check
 * ------------------------------------------------------------------------ */

static inline uintptr_t wl_encode(int stream, uint64_t seq)
{
    return ((uintptr_t)stream << WL_SEQ_BITS) | (uintptr_t)seq;
}

static void wl_spin(unsigned ns)
{
    if (ns == 0)
        return;
    uint64_t end = soak_now_ns() + ns;
    while (soak_now_ns() < end)
        ;
}

static bool wl_covered(int stream, uint64_t seq)
{
    struct wl_stream *t = &wl_streams[stream];
    /* acquire: pairs with the release store of completed at a task's end */
    return atomic_load_explicit(&t->completed, memory_order_acquire) >= seq ||
           atomic_load_explicit(&t->discard_upto, memory_order_acquire) >= seq; /* pairs with the abort's release */
}

static void wl_task_begin(struct wl_stream *st, struct wl_slot *sl, uint64_t seq)
{
    if (atomic_load_explicit(&sl->seq, memory_order_relaxed) != seq)
        soak_violation(SV_ORDER, "stream %d: task %llu ran after its record was reused (%llu tasks later)", st->index,
                       (unsigned long long)seq, (unsigned long long)WL_CAP);
    /* acquire: pairs with the release store after the abort returned */
    uint64_t final = atomic_load_explicit(&st->discarded_final, memory_order_acquire);
    if (seq <= final)
        soak_violation(SV_LATE, "stream %d: task %llu started after the abort that covered tasks up to %llu returned",
                       st->index, (unsigned long long)seq, (unsigned long long)final);
    if (atomic_load_explicit(&st->stopped, memory_order_acquire)) /* pairs with the release after Stop returned */
        soak_violation(SV_LATE, "stream %d: task %llu started on a stopped stream", st->index, (unsigned long long)seq);
    uint64_t prev = atomic_exchange_explicit(&st->last_started, seq, memory_order_relaxed);
    if (prev >= seq)
        soak_violation(SV_ORDER, "stream %d: task %llu started after task %llu", st->index, (unsigned long long)seq,
                       (unsigned long long)prev);
    int rs = atomic_load_explicit(&sl->req_stream, memory_order_relaxed);
    if (rs >= 0) {
        uint64_t rq = atomic_load_explicit(&sl->req_seq, memory_order_relaxed);
        if (!wl_covered(rs, rq))
            soak_violation(SV_EARLY_WAIT,
                           "stream %d: task %llu, behind a wait on event %d, started before stream %d's task %llu "
                           "(the record's capture) finished (that stream has finished up to %llu)",
                           st->index, (unsigned long long)seq, atomic_load(&sl->req_event), rs,
                           (unsigned long long)rq, (unsigned long long)atomic_load(&wl_streams[rs].completed));
    }
}

static void wl_task_end(struct wl_stream *st, uint64_t seq)
{
    uint64_t c = atomic_load_explicit(&st->completed, memory_order_relaxed);
    /* release: pairs with the acquire in wl_covered; publishes that this task's effects are done */
    while (c < seq && !atomic_compare_exchange_weak_explicit(&st->completed, &c, seq, memory_order_release,
                                                             memory_order_relaxed))
        ;
    atomic_fetch_add_explicit(&soak_tasks_ran, 1, memory_order_relaxed);
}

static void wl_host_fn(void *arg)
{
    uintptr_t a = (uintptr_t)arg;
    struct wl_stream *st = &wl_streams[a >> WL_SEQ_BITS];
    uint64_t seq = a & WL_SEQ_MASK;
    struct wl_slot *sl = &st->slots[seq % WL_CAP];
    wl_task_begin(st, sl, seq);
    if (atomic_fetch_add_explicit(&sl->ran, 1, memory_order_relaxed) != 0)
        soak_violation(SV_TWICE, "stream %d: task %llu ran twice", st->index, (unsigned long long)seq);
    wl_spin(atomic_load_explicit(&sl->spin_ns, memory_order_relaxed));
    wl_task_end(st, seq);
}

static aclError wl_kernel(uint32_t block, uint32_t nblocks, void *arg)
{
    uintptr_t a = (uintptr_t)arg;
    struct wl_stream *st = &wl_streams[a >> WL_SEQ_BITS];
    uint64_t seq = a & WL_SEQ_MASK;
    struct wl_slot *sl = &st->slots[seq % WL_CAP];
    if (atomic_fetch_add_explicit(&sl->ran, 1, memory_order_relaxed) == 0)
        wl_task_begin(st, sl, seq);
    int want = atomic_load_explicit(&sl->nblocks, memory_order_relaxed);
    if ((int)nblocks != want || block >= nblocks)
        soak_violation(SV_ORDER, "stream %d: host kernel %llu called with block %u of %u (launched with %d)", st->index,
                       (unsigned long long)seq, block, nblocks, want);
    int bit = 1 << (block % 31);
    if (atomic_fetch_or_explicit(&sl->blocks_mask, bit, memory_order_relaxed) & bit)
        soak_violation(SV_TWICE, "stream %d: block %u of host kernel %llu ran twice", st->index, block,
                       (unsigned long long)seq);
    wl_spin(atomic_load_explicit(&sl->spin_ns, memory_order_relaxed));
    aclError rc = ACL_SUCCESS;
    if (atomic_load_explicit(&sl->fail, memory_order_relaxed)) {
        rc = SOAK_FAIL_CODE;
        atomic_fetch_add(&wl_fail_ran, 1);
    }
    if (atomic_fetch_add_explicit(&sl->blocks_done, 1, memory_order_relaxed) == want - 1)
        wl_task_end(st, seq);
    return rc;
}

static void wl_exception_cb(aclrtExceptionInfo *info)
{
    if (aclrtGetDeviceIdFromExceptionInfo(info) == SOAK_DEV_WORK &&
        aclrtGetErrorCodeFromExceptionInfo(info) == (uint32_t)SOAK_FAIL_CODE)
        atomic_fetch_add(&wl_exceptions_dev0, 1);
}

/* ------------------------------------------------------------------------
 * Submissions (under the stream's lock)
 * ------------------------------------------------------------------------ */

/* A task whose slot is about to be reused (or the run ended): it ran exactly once, or an abort covered it. */
static void wl_retire(struct wl_stream *st, struct wl_slot *sl)
{
    uint64_t old = atomic_load_explicit(&sl->seq, memory_order_relaxed);
    if (old == 0 || !atomic_load_explicit(&sl->launched, memory_order_relaxed))
        return;
    int nb = atomic_load_explicit(&sl->nblocks, memory_order_relaxed);
    int want = nb ? nb : 1;
    int ran = atomic_load_explicit(&sl->ran, memory_order_relaxed);
    uint64_t final = atomic_load_explicit(&st->discarded_final, memory_order_relaxed);
    if (ran == want) {
        st->ran++;
    } else if (ran == 0 && old <= final) {
        st->discarded++;
        atomic_fetch_add_explicit(&soak_tasks_discarded, 1, memory_order_relaxed);
    } else if (ran == 0) {
        soak_violation(SV_LOST,
                       "stream %d: task %llu (%s) never ran, and no abort or stop covers it (the last one covered up "
                       "to %llu; the stream finished up to %llu)",
                       st->index, (unsigned long long)old, nb ? "host kernel" : "host function",
                       (unsigned long long)final, (unsigned long long)atomic_load(&st->completed));
    } else {
        soak_violation(SV_LOST, "stream %d: host kernel %llu ran %d of its %d blocks", st->index,
                       (unsigned long long)old, ran, want);
    }
    atomic_store_explicit(&sl->seq, 0, memory_order_relaxed);
}

struct wl_task_spec {
    int nblocks; /* 0: host function */
    int fail;
    unsigned spin_ns;
    int req_stream, req_event;
    uint64_t req_seq;
};

/* Launch one task on st (lock held); 1 if it was accepted. */
static int wl_submit(struct wl_stream *st, const struct wl_task_spec *spec)
{
    uint64_t seq = st->last_seq + 1;
    struct wl_slot *sl = &st->slots[seq % WL_CAP];
    wl_retire(st, sl);
    atomic_store_explicit(&sl->launched, 0, memory_order_relaxed);
    atomic_store_explicit(&sl->ran, 0, memory_order_relaxed);
    atomic_store_explicit(&sl->blocks_mask, 0, memory_order_relaxed);
    atomic_store_explicit(&sl->blocks_done, 0, memory_order_relaxed);
    atomic_store_explicit(&sl->nblocks, spec->nblocks, memory_order_relaxed);
    atomic_store_explicit(&sl->fail, spec->fail, memory_order_relaxed);
    atomic_store_explicit(&sl->req_stream, spec->req_stream, memory_order_relaxed);
    atomic_store_explicit(&sl->req_event, spec->req_event, memory_order_relaxed);
    atomic_store_explicit(&sl->req_seq, spec->req_seq, memory_order_relaxed);
    atomic_store_explicit(&sl->spin_ns, spec->spin_ns, memory_order_relaxed);
    atomic_store_explicit(&sl->seq, seq, memory_order_relaxed);
    void *arg = (void *)wl_encode(st->index, seq);
    aclError rc;
    if (spec->fail) {
        atomic_fetch_add(&st->fail_launched, 1);
        atomic_fetch_add(&soak_dev0_fail_launched, 1);
    }
    if (spec->nblocks == 0) {
        rc = SOAK_BLOCKING("aclrtLaunchHostFunc", st->index, aclrtLaunchHostFunc(st->handle, wl_host_fn, arg));
        soak_count(SO_LAUNCH);
    } else {
        rc = SOAK_BLOCKING("aclrtxLaunchHostKernel", st->index,
                           aclrtxLaunchHostKernel(st->handle, (uint32_t)spec->nblocks, wl_kernel, arg));
        soak_count(SO_KERNEL);
    }
    if (rc != ACL_SUCCESS) {
        soak_violation(SV_CODE, "stream %d: launch of task %llu returned %d: %s", st->index, (unsigned long long)seq, rc,
                       soak_error_line());
        atomic_store_explicit(&sl->seq, 0, memory_order_relaxed);
        return 0;
    }
    atomic_store_explicit(&sl->launched, 1, memory_order_relaxed);
    st->last_seq = seq;
    atomic_store_explicit(&st->last_seq_pub, seq, memory_order_relaxed);
    atomic_fetch_add_explicit(&soak_tasks_launched, 1, memory_order_relaxed);
    return 1;
}

static struct wl_task_spec wl_random_spec(uint64_t *rng)
{
    struct wl_task_spec spec = {0, 0, 0, -1, -1, 0};
    unsigned r = (unsigned)soak_pick(rng, 1000);
    if (r < 100)
        spec.nblocks = 1 + (int)soak_pick(rng, WL_MAX_BLOCKS);
    else if (r < 106) {
        spec.nblocks = 1;
        spec.fail = 1;
    }
    if (soak_pick(rng, 10) == 0)
        spec.spin_ns = (unsigned)soak_pick(rng, 200000); /* a slow task: up to 200 us */
    return spec;
}

/* ------------------------------------------------------------------------
 * Operations
 * ------------------------------------------------------------------------ */

static void op_launch(uint64_t *rng, struct wl_stream *st, int burst)
{
    pthread_mutex_lock(&st->lock);
    for (int i = 0; i < burst; i++) {
        struct wl_task_spec spec = burst > 1 ? (struct wl_task_spec){0, 0, 0, -1, -1, 0} : wl_random_spec(rng);
        wl_submit(st, &spec);
    }
    pthread_mutex_unlock(&st->lock);
}

static void op_record(struct wl_stream *st, struct wl_event *ev, int ei)
{
    pthread_mutex_lock(&st->lock);
    pthread_mutex_lock(&ev->lock);
    aclError rc = SOAK_BLOCKING("aclrtRecordEvent", st->index, aclrtRecordEvent(ev->handle, st->handle));
    soak_count(SO_RECORD);
    if (rc == ACL_SUCCESS) {
        ev->cap_stream = st->index;
        ev->cap_seq = st->last_seq;
    } else {
        soak_violation(SV_CODE, "event %d (%s): record on stream %d returned %d: %s", ei, ev_flavour_names[ev->flavour],
                       st->index, rc, soak_error_line());
    }
    pthread_mutex_unlock(&ev->lock);
    pthread_mutex_unlock(&st->lock);
}

static void op_wait(uint64_t *rng, struct wl_stream *st, struct wl_event *ev, int ei)
{
    pthread_mutex_lock(&st->lock);
    pthread_mutex_lock(&ev->lock);
    if (ev->cap_stream >= 0) {
        aclError rc;
        switch (soak_pick(rng, 3)) {
        case 0: rc = SOAK_BLOCKING("aclrtStreamWaitEvent", st->index, aclrtStreamWaitEvent(st->handle, ev->handle)); break;
        case 1:
            rc = SOAK_BLOCKING("aclrtStreamWaitEventWithTimeout", st->index,
                               aclrtStreamWaitEventWithTimeout(st->handle, ev->handle, 3600));
            break;
        default:
            rc = SOAK_BLOCKING("aclrtStreamWaitEventWithFlag", st->index,
                               aclrtStreamWaitEventWithFlag(st->handle, ev->handle, 0, ACL_EVENT_WAIT_DEFAULT));
            break;
        }
        soak_count(SO_WAIT);
        if (rc != ACL_SUCCESS) {
            soak_violation(SV_CODE, "event %d (%s): wait on stream %d returned %d: %s", ei,
                           ev_flavour_names[ev->flavour], st->index, rc, soak_error_line());
        } else {
            struct wl_task_spec spec = wl_random_spec(rng);
            spec.fail = 0;
            spec.nblocks = 0;
            spec.req_stream = ev->cap_stream;
            spec.req_event = ei;
            spec.req_seq = ev->cap_seq;
            wl_submit(st, &spec);
        }
    }
    pthread_mutex_unlock(&ev->lock);
    pthread_mutex_unlock(&st->lock);
}

/* Was an abort or stop of stream `k` (or of any device-0 stream, k < 0) in progress at some point of a call? */
struct wl_ctl_window {
    long begin, end;
};

static struct wl_ctl_window wl_ctl_now(int k)
{
    struct wl_ctl_window w;
    if (k < 0) {
        w.begin = atomic_load(&soak_dev0_ctl_begin);
        w.end = atomic_load(&soak_dev0_ctl_end);
    } else {
        w.begin = atomic_load(&wl_streams[k].ctl_begin);
        w.end = atomic_load(&wl_streams[k].ctl_end);
    }
    return w;
}

static bool wl_ctl_overlapped(int k, struct wl_ctl_window before)
{
    struct wl_ctl_window after = wl_ctl_now(k);
    return before.begin != before.end || after.begin != before.begin;
}

static const int *wl_control_codes = SOAK_CODES(ACL_ERROR_RT_STREAM_ABORT, ACL_ERROR_RT_TASK_ABORT_STOP);

static void op_sync_stream(uint64_t *rng, struct wl_stream *st)
{
    uint64_t snap = atomic_load_explicit(&st->last_seq_pub, memory_order_relaxed);
    struct wl_ctl_window w = wl_ctl_now(st->index);
    int32_t timeout = 0;
    aclError rc;
    uint64_t t0 = soak_now_ns();
    switch (soak_pick(rng, 4)) {
    case 0:
        timeout = 1 + (int32_t)soak_pick(rng, 50);
        rc = SOAK_BLOCKING("aclrtSynchronizeStreamWithTimeout", st->index,
                           aclrtSynchronizeStreamWithTimeout(st->handle, timeout));
        break;
    case 1: rc = SOAK_BLOCKING("aclrtSynchronizeStreamWithTimeout(-1)", st->index, aclrtSynchronizeStreamWithTimeout(st->handle, -1)); break;
    default: rc = SOAK_BLOCKING("aclrtSynchronizeStream", st->index, aclrtSynchronizeStream(st->handle)); break;
    }
    uint64_t elapsed = soak_now_ns() - t0;
    soak_count(SO_SYNC_STREAM);
    if (rc == ACL_SUCCESS) {
        if (!wl_covered(st->index, snap))
            soak_violation(SV_EARLY_SYNC,
                           "stream %d: aclrtSynchronizeStream returned success before task %llu (submitted before "
                           "the call) finished (finished up to %llu)",
                           st->index, (unsigned long long)snap, (unsigned long long)atomic_load(&st->completed));
    } else if (rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT && timeout > 0) {
        atomic_fetch_add(&wl_timeouts_stream, 1);
        if (elapsed < (uint64_t)timeout * 1000000u)
            soak_violation(SV_TIMEOUT_EARLY, "stream %d: aclrtSynchronizeStreamWithTimeout(%d ms) timed out after %.3f ms",
                           st->index, timeout, elapsed / 1e6);
    } else if (rc == SOAK_FAIL_CODE && atomic_load(&st->fail_launched) > 0) {
        atomic_fetch_add(&wl_sync_failures_seen, 1);
    } else if (soak_code_in(rc, wl_control_codes) && wl_ctl_overlapped(st->index, w)) {
        /* an abort or stop of this stream overlapped the call */
    } else {
        soak_violation(SV_CODE, "stream %d: synchronize returned %d (no abort, stop%s overlapped it): %s", st->index, rc,
                       atomic_load(&st->fail_launched) ? "" : " or failing kernel", soak_error_line());
    }
}

static void op_query_stream(struct wl_stream *st)
{
    uint64_t snap = atomic_load_explicit(&st->last_seq_pub, memory_order_relaxed);
    aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
    aclError rc = SOAK_BLOCKING("aclrtStreamQuery", st->index, aclrtStreamQuery(st->handle, &status));
    soak_count(SO_QUERY);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "stream %d: aclrtStreamQuery returned %d", st->index, rc);
    else if (status == ACL_STREAM_STATUS_COMPLETE && !wl_covered(st->index, snap))
        soak_violation(SV_EARLY_SYNC, "stream %d: aclrtStreamQuery said COMPLETE before task %llu finished", st->index,
                       (unsigned long long)snap);
    else if (status != ACL_STREAM_STATUS_COMPLETE && status != ACL_STREAM_STATUS_NOT_READY)
        soak_violation(SV_CODE, "stream %d: aclrtStreamQuery status %d", st->index, (int)status);
}

static void op_sync_event(uint64_t *rng, struct wl_event *ev, int ei)
{
    pthread_mutex_lock(&ev->lock); /* held: the capture cannot change under the call */
    int cs = ev->cap_stream;
    uint64_t cq = ev->cap_seq;
    struct wl_ctl_window w = wl_ctl_now(cs);
    int32_t timeout = 0;
    uint64_t t0 = soak_now_ns();
    aclError rc;
    if (soak_pick(rng, 3) == 0) {
        timeout = 1 + (int32_t)soak_pick(rng, 50);
        rc = SOAK_BLOCKING("aclrtSynchronizeEventWithTimeout", cs, aclrtSynchronizeEventWithTimeout(ev->handle, timeout));
    } else {
        rc = SOAK_BLOCKING("aclrtSynchronizeEvent", cs, aclrtSynchronizeEvent(ev->handle));
    }
    uint64_t elapsed = soak_now_ns() - t0;
    soak_count(SO_SYNC_EVENT);
    if (rc == ACL_SUCCESS) {
        if (cs >= 0 && !wl_covered(cs, cq))
            soak_violation(SV_EARLY_SYNC,
                           "event %d (%s): aclrtSynchronizeEvent returned success before stream %d's task %llu (its "
                           "capture) finished (finished up to %llu)",
                           ei, ev_flavour_names[ev->flavour], cs, (unsigned long long)cq,
                           (unsigned long long)atomic_load(&wl_streams[cs].completed));
    } else if (rc == ACL_ERROR_RT_EVENT_SYNC_TIMEOUT && timeout > 0 && cs >= 0) {
        atomic_fetch_add(&wl_timeouts_event, 1);
        if (elapsed < (uint64_t)timeout * 1000000u)
            soak_violation(SV_TIMEOUT_EARLY, "event %d: aclrtSynchronizeEventWithTimeout(%d ms) timed out after %.3f ms",
                           ei, timeout, elapsed / 1e6);
    } else if (rc == SOAK_FAIL_CODE && cs >= 0 && atomic_load(&wl_streams[cs].fail_launched) > 0) {
        atomic_fetch_add(&wl_sync_failures_seen, 1);
    } else if (cs >= 0 && soak_code_in(rc, wl_control_codes) && wl_ctl_overlapped(cs, w)) {
    } else {
        soak_violation(SV_CODE, "event %d (%s, captured on stream %d): synchronize returned %d: %s", ei,
                       ev_flavour_names[ev->flavour], cs, rc, soak_error_line());
    }
    pthread_mutex_unlock(&ev->lock);
}

static void op_query_event(uint64_t *rng, struct wl_event *ev, int ei)
{
    pthread_mutex_lock(&ev->lock);
    int cs = ev->cap_stream;
    uint64_t cq = ev->cap_seq;
    bool complete = false;
    aclError rc;
    int which = (int)soak_pick(rng, 3);
    if (which == 0 && ev->flavour != EV_EX) {
        aclrtEventStatus s = ACL_EVENT_STATUS_RESERVED;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
        rc = SOAK_BLOCKING("aclrtQueryEvent", cs, aclrtQueryEvent(ev->handle, &s));
#pragma GCC diagnostic pop
        complete = s == ACL_EVENT_STATUS_COMPLETE;
        if (rc == ACL_SUCCESS && s != ACL_EVENT_STATUS_COMPLETE && s != ACL_EVENT_STATUS_NOT_READY)
            soak_violation(SV_CODE, "event %d: aclrtQueryEvent status %d", ei, (int)s);
        if (rc == ACL_SUCCESS && cs < 0 && !complete) /* not recorded: COMPLETE (SEMANTICS.md) */
            soak_violation(SV_CODE, "event %d (%s, never recorded): aclrtQueryEvent said NOT_READY", ei,
                           ev_flavour_names[ev->flavour]);
    } else if (which == 1) {
        aclrtEventWaitStatus s = ACL_EVENT_WAIT_STATUS_RESERVED;
        rc = SOAK_BLOCKING("aclrtQueryEventWaitStatus", cs, aclrtQueryEventWaitStatus(ev->handle, &s));
        if (ev->flavour == EV_EX && rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
            rc = ACL_SUCCESS; /* documented for Ex events */
        cs = -1;              /* nothing to compare: waits are not tracked per event */
    } else {
        aclrtEventRecordedStatus s = (aclrtEventRecordedStatus)7;
        rc = SOAK_BLOCKING("aclrtQueryEventStatus", cs, aclrtQueryEventStatus(ev->handle, &s));
        complete = s == ACL_EVENT_RECORDED_STATUS_COMPLETE;
        if (rc == ACL_SUCCESS && cs < 0 && complete != (ev->flavour == EV_EX))
            soak_violation(SV_CODE, "event %d (%s, never recorded): aclrtQueryEventStatus said %s", ei,
                           ev_flavour_names[ev->flavour], complete ? "COMPLETE" : "NOT_READY");
    }
    soak_count(SO_QUERY);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "event %d (%s): query returned %d: %s", ei, ev_flavour_names[ev->flavour], rc,
                       soak_error_line());
    else if (complete && cs >= 0 && !wl_covered(cs, cq))
        soak_violation(SV_EARLY_SYNC, "event %d (%s): query said COMPLETE before stream %d's task %llu finished", ei,
                       ev_flavour_names[ev->flavour], cs, (unsigned long long)cq);
    pthread_mutex_unlock(&ev->lock);
}

static void op_sync_device(uint64_t *rng)
{
    uint64_t snap[64];
    for (int k = 0; k < wl_nstreams; k++)
        snap[k] = atomic_load_explicit(&wl_streams[k].last_seq_pub, memory_order_relaxed);
    struct wl_ctl_window w = wl_ctl_now(-1);
    int32_t timeout = 0;
    uint64_t t0 = soak_now_ns();
    aclError rc;
    if (soak_pick(rng, 3) == 0) {
        timeout = 1 + (int32_t)soak_pick(rng, 50);
        rc = SOAK_BLOCKING("aclrtSynchronizeDeviceWithTimeout", -1, aclrtSynchronizeDeviceWithTimeout(timeout));
    } else {
        rc = SOAK_BLOCKING("aclrtSynchronizeDevice", -1, aclrtSynchronizeDevice());
    }
    uint64_t elapsed = soak_now_ns() - t0;
    soak_count(SO_SYNC_DEVICE);
    if (rc == ACL_SUCCESS) {
        for (int k = 0; k < wl_nstreams; k++)
            if (!wl_covered(k, snap[k])) {
                soak_violation(SV_EARLY_SYNC,
                               "aclrtSynchronizeDevice returned success before stream %d's task %llu finished "
                               "(finished up to %llu)",
                               k, (unsigned long long)snap[k], (unsigned long long)atomic_load(&wl_streams[k].completed));
                break;
            }
    } else if (rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT && timeout > 0) {
        atomic_fetch_add(&wl_timeouts_device, 1);
        if (elapsed < (uint64_t)timeout * 1000000u)
            soak_violation(SV_TIMEOUT_EARLY, "aclrtSynchronizeDeviceWithTimeout(%d ms) timed out after %.3f ms", timeout,
                           elapsed / 1e6);
    } else if (rc == SOAK_FAIL_CODE && atomic_load(&soak_dev0_fail_launched) > 0) {
        atomic_fetch_add(&wl_sync_failures_seen, 1);
    } else if (soak_code_in(rc, wl_control_codes) && wl_ctl_overlapped(-1, w)) {
    } else {
        soak_violation(SV_CODE, "aclrtSynchronizeDevice returned %d: %s", rc, soak_error_line());
    }
}

static void wl_ctl_begin(struct wl_stream *st)
{
    /* release: pairs with the acquire in wl_covered; set before the abort can discard anything */
    atomic_store_explicit(&st->discard_upto, st->last_seq, memory_order_release);
    atomic_fetch_add(&st->ctl_begin, 1);
    atomic_fetch_add(&soak_dev0_ctl_begin, 1);
}

static void wl_ctl_end(struct wl_stream *st)
{
    /* release: pairs with the acquire in wl_task_begin; nothing covered may start from now on */
    atomic_store_explicit(&st->discarded_final, st->last_seq, memory_order_release);
    atomic_fetch_add(&st->ctl_end, 1);
    atomic_fetch_add(&soak_dev0_ctl_end, 1);
    st->aborts++;
}

static void op_abort(struct wl_stream *st)
{
    pthread_mutex_lock(&st->lock);
    wl_ctl_begin(st);
    aclError rc = SOAK_BLOCKING("aclrtStreamAbort", st->index, aclrtStreamAbort(st->handle));
    soak_count(SO_ABORT);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "stream %d: aclrtStreamAbort returned %d: %s", st->index, rc, soak_error_line());
    wl_ctl_end(st);
    pthread_mutex_unlock(&st->lock);
}

static void op_stop_then_abort(uint64_t *rng, struct wl_stream *st)
{
    pthread_mutex_lock(&st->lock);
    wl_ctl_begin(st);
    aclError rc = SOAK_BLOCKING("aclrtStreamStop", st->index, aclrtStreamStop(st->handle));
    soak_count(SO_STOP);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "stream %d: aclrtStreamStop returned %d: %s", st->index, rc, soak_error_line());
    atomic_store_explicit(&st->stopped, 1, memory_order_release); /* pairs with the acquire in wl_task_begin */
    /*
     * Submissions to a stopped stream are queued, not run; the abort below
     * discards them. Only with room in the ring: a launch into a full
     * stopped stream waits for room that only the abort would make.
     */
    int extra = st->last_seq - atomic_load(&st->completed) < 256 ? (int)soak_pick(rng, 3) : 0;
    for (int i = 0; i < extra; i++) {
        struct wl_task_spec spec = {0, 0, 0, -1, -1, 0};
        if (wl_submit(st, &spec))
            atomic_store_explicit(&st->discard_upto, st->last_seq, memory_order_release); /* pairs with wl_covered */
    }
    uint64_t t0 = soak_now_ns();
    rc = SOAK_BLOCKING("aclrtSynchronizeStreamWithTimeout (stopped)", st->index,
                       aclrtSynchronizeStreamWithTimeout(st->handle, 5000));
    /* With work queued (the tasks just launched), a synchronize of a stopped stream says so at once. */
    if (extra > 0 && rc != ACL_ERROR_RT_TASK_ABORT_STOP &&
        !(rc == SOAK_FAIL_CODE && atomic_load(&st->fail_launched) > 0))
        soak_violation(SV_CODE,
                       "stream %d (stopped, %d tasks queued): synchronize returned %d after %.1f ms, not "
                       "TASK_ABORT_STOP",
                       st->index, extra, rc, (soak_now_ns() - t0) / 1e6);
    rc = SOAK_BLOCKING("aclrtStreamAbort (after a stop)", st->index, aclrtStreamAbort(st->handle));
    soak_count(SO_ABORT);
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "stream %d: aclrtStreamAbort after a stop returned %d: %s", st->index, rc,
                       soak_error_line());
    atomic_store_explicit(&st->stopped, 0, memory_order_relaxed);
    wl_ctl_end(st);
    pthread_mutex_unlock(&st->lock);
}

/* ------------------------------------------------------------------------
 * Setup, the worker loop, the drain
 * ------------------------------------------------------------------------ */

int workload_setup(void)
{
    wl_nstreams = soak_cfg.streams;
    wl_nevents = soak_cfg.events;
    wl_streams = calloc((size_t)wl_nstreams, sizeof *wl_streams);
    wl_events = calloc((size_t)wl_nevents, sizeof *wl_events);
    if (wl_streams == NULL || wl_events == NULL)
        return 1;
    aclError rc = aclrtCreateContext(&wl_ctx, SOAK_DEV_WORK);
    for (int k = 0; k < wl_nstreams && rc == ACL_SUCCESS; k++) {
        pthread_mutex_init(&wl_streams[k].lock, NULL);
        wl_streams[k].index = k;
        rc = aclrtCreateStream(&wl_streams[k].handle);
    }
    for (int e = 0; e < wl_nevents && rc == ACL_SUCCESS; e++) {
        struct wl_event *ev = &wl_events[e];
        pthread_mutex_init(&ev->lock, NULL);
        ev->flavour = e % EV_FLAVOURS;
        ev->cap_stream = -1;
        switch (ev->flavour) {
        case EV_PLAIN: rc = aclrtCreateEvent(&ev->handle); break;
        case EV_EX: rc = aclrtCreateEventExWithFlag(&ev->handle, ACL_EVENT_SYNC); break;
        default: rc = aclrtCreateEventWithFlag(&ev->handle, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE); break;
        }
    }
    if (rc == ACL_SUCCESS)
        rc = aclrtExceptionInfoCallbackRegister(wl_exception_cb);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "workload setup: %d %s\n", rc, soak_error_line());
        return 1;
    }
    return 0;
}

void *workload_thread(void *arg)
{
    intptr_t id = (intptr_t)arg;
    struct soak_thread *me = soak_thread_register("worker %d", (int)id);
    atomic_store(&me->signalable, 1);
    uint64_t rng = soak_cfg.seed ^ (0x1000u + (uint64_t)id);
    aclError rc = aclrtSetCurrentContext(wl_ctx);
    if (rc != ACL_SUCCESS) {
        soak_violation(SV_CODE, "worker %d: aclrtSetCurrentContext returned %d", (int)id, rc);
        return NULL;
    }
    while (soak_running()) {
        struct wl_stream *st = &wl_streams[soak_pick(&rng, (uint64_t)wl_nstreams)];
        int ei = (int)soak_pick(&rng, (uint64_t)wl_nevents);
        struct wl_event *ev = &wl_events[ei];
        unsigned r = (unsigned)soak_pick(&rng, 1000);
        (void)aclGetRecentErrMsg(); /* what the previous operation's expected failures left */
        if (r < 400)
            op_launch(&rng, st, 1);
        else if (r < 405)
            op_launch(&rng, st, 200 + (int)soak_pick(&rng, 1300)); /* a burst: the ring fills, launches wait */
        else if (r < 520)
            op_record(st, ev, ei);
        else if (r < 640)
            op_wait(&rng, st, ev, ei);
        else if (r < 700)
            op_sync_stream(&rng, st);
        else if (r < 760)
            op_sync_event(&rng, ev, ei);
        else if (r < 830)
            op_query_stream(st);
        else if (r < 900)
            op_query_event(&rng, ev, ei);
        else if (r < 915)
            op_sync_device(&rng);
        else if (r < 925 && !soak_skipped("abort"))
            op_abort(st);
        else if (r < 930 && !soak_skipped("stop"))
            op_stop_then_abort(&rng, st);
        else
            op_launch(&rng, st, 1);
    }
    return NULL;
}

void workload_drain_and_check(void)
{
    if (wl_streams == NULL)
        return;
    (void)aclrtSetCurrentContext(wl_ctx);
    long lost_before = 0;
    (void)lost_before;
    for (int k = 0; k < wl_nstreams; k++) {
        struct wl_stream *st = &wl_streams[k];
        pthread_mutex_lock(&st->lock);
        aclError rc = SOAK_BLOCKING("aclrtSynchronizeStream (drain)", k, aclrtSynchronizeStream(st->handle));
        if (rc != ACL_SUCCESS && !(rc == SOAK_FAIL_CODE && atomic_load(&st->fail_launched) > 0))
            soak_violation(SV_CODE, "drain: stream %d: synchronize returned %d: %s", k, rc, soak_error_line());
        rc = SOAK_BLOCKING("aclrtSynchronizeStream (drain, again)", k, aclrtSynchronizeStream(st->handle));
        if (rc != ACL_SUCCESS)
            soak_violation(SV_CODE, "drain: stream %d: a second synchronize returned %d (a failure is reported once): %s",
                           k, rc, soak_error_line());
        if (!wl_covered(k, st->last_seq))
            soak_violation(SV_EARLY_SYNC, "drain: stream %d synchronized but finished only up to %llu of %llu", k,
                           (unsigned long long)atomic_load(&st->completed), (unsigned long long)st->last_seq);
        for (int i = 0; i < WL_CAP; i++)
            wl_retire(st, &st->slots[i]);
        pthread_mutex_unlock(&st->lock);
    }
    aclError rc = SOAK_BLOCKING("aclrtSynchronizeDevice (drain)", -1, aclrtSynchronizeDevice());
    if (rc != ACL_SUCCESS && rc != SOAK_FAIL_CODE)
        soak_violation(SV_CODE, "drain: aclrtSynchronizeDevice returned %d: %s", rc, soak_error_line());
    long exceptions = atomic_load(&wl_exceptions_dev0), failed = atomic_load(&wl_fail_ran);
    if (exceptions != failed)
        soak_violation(SV_CODE, "%ld failing host kernels ran on device 0, but the exception callback heard of %ld",
                       failed, exceptions);
    for (int e = 0; e < wl_nevents; e++) {
        rc = aclrtDestroyEvent(wl_events[e].handle);
        if (rc != ACL_SUCCESS)
            soak_violation(SV_CODE, "drain: destroying event %d returned %d", e, rc);
    }
    for (int k = 0; k < wl_nstreams; k++) {
        rc = SOAK_BLOCKING("aclrtDestroyStream (drain)", k, aclrtDestroyStream(wl_streams[k].handle));
        if (rc != ACL_SUCCESS)
            soak_violation(SV_CODE, "drain: destroying stream %d returned %d", k, rc);
    }
    (void)aclrtExceptionInfoCallbackUnregister(wl_exception_cb);
}

/* For the watchdog: where each stream stands (read without the locks: a blocked run is being reported). */
void workload_dump_state(FILE *f)
{
    if (wl_streams == NULL)
        return;
    for (int k = 0; k < wl_nstreams; k++) {
        struct wl_stream *st = &wl_streams[k];
        uint64_t done = atomic_load(&st->completed), sub = atomic_load(&st->last_seq_pub);
        aclrtStreamStatus status = ACL_STREAM_STATUS_RESERVED;
        aclError rc = aclrtStreamQuery(st->handle, &status);
        fprintf(f, "  stream %2d: submitted up to %llu, started %llu, finished %llu, aborts covered up to %llu%s; query %d/%s",
                k, (unsigned long long)sub, (unsigned long long)atomic_load(&st->last_started),
                (unsigned long long)done, (unsigned long long)atomic_load(&st->discard_upto),
                atomic_load(&st->stopped) ? ", STOPPED" : "", rc,
                status == ACL_STREAM_STATUS_COMPLETE ? "complete" : "not ready");
        if (sub > done) {
            struct wl_slot *sl = &st->slots[(done + 1) % WL_CAP];
            int rs = atomic_load(&sl->req_stream);
            if (atomic_load(&sl->seq) == done + 1 && rs >= 0)
                fprintf(f, "; task %llu waits (event %d) for stream %d's task %llu (that stream finished %llu)",
                        (unsigned long long)(done + 1), atomic_load(&sl->req_event), rs,
                        (unsigned long long)atomic_load(&sl->req_seq),
                        (unsigned long long)atomic_load(&wl_streams[rs].completed));
        }
        fprintf(f, "\n");
    }
}

void workload_summary(void)
{
    if (wl_streams == NULL)
        return;
    long ran = 0, discarded = 0, aborts = 0;
    for (int k = 0; k < wl_nstreams; k++) {
        ran += wl_streams[k].ran;
        discarded += wl_streams[k].discarded;
        aborts += wl_streams[k].aborts;
    }
    printf("workload: %d streams, %d events; tasks accounted: %ld ran, %ld discarded by %ld aborts/stops; failing "
           "kernels ran %ld (exceptions heard %ld, synchronizes that returned the failure %ld); timeouts: stream %ld, "
           "event %ld, device %ld\n",
           wl_nstreams, wl_nevents, ran, discarded, aborts, atomic_load(&wl_fail_ran), atomic_load(&wl_exceptions_dev0),
           atomic_load(&wl_sync_failures_seen), atomic_load(&wl_timeouts_stream), atomic_load(&wl_timeouts_event),
           atomic_load(&wl_timeouts_device));
}
