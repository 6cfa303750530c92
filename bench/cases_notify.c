/*
 * bench/cases_notify.c - notifies and stream memory operations: how long a
 * wait on one stream takes to release after the matching record or write
 * on another. aclrt only: the naive baseline has neither notifies nor value
 * ops, so these cases record nothing for it (no baseline column).
 *
 *   notify_release_hot   task on A ends (its last timestamp) -> the task
 *                        after aclrtWaitAndResetNotify on B starts; A:
 *                        [gate] aclrtRecordNotify, B: [marker] wait [stamp]
 *   value_release_hot    the same with aclrtValueWrite(w, i) on A and
 *                        aclrtValueWait(w >= i) on B
 *   value_foreign_poll   a plain atomic store of the word by the main
 *                        thread (the runtime never hears of it) -> the task
 *                        after the value wait starts, the wait having
 *                        waited asleep_ns (>= 1 ms) first: the poll latency
 *                        once the backoff has reached its cap
 *
 * Hot cases follow cases_latency.c's cross_stream_hot: the gate spins until
 * B's marker has run and the main thread has submitted B's wait and stamp
 * (so that the record cannot come before B has a wait to release: on a
 * loaded two-CPU machine the main thread is often late), then 5 us more (B's
 * executor reaches the wait and spins in it), then takes t_a and returns;
 * the stamp takes t_b. Iterations
 * where B's executor slept in between (the marker and the stamp ran on
 * different threads, or the thread had a voluntary context switch) are
 * discarded: that is the asleep regime, not the one measured.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

#define TIMEOUT_NS (5ull * 1000000000ull)

enum release_kind { RELEASE_NOTIFY, RELEASE_VALUE, RELEASE_FOREIGN };

struct release {
    struct bench_waiter w;                   /* B: marker, wait, stamp */
    _Atomic uint64_t launched BENCH_ALIGNED; /* the main thread has submitted B's wait and stamp */
    _Atomic uint64_t t_a BENCH_ALIGNED;      /* A's task ends / the store */
    bool timed_out;
};

static void release_gate(void *arg)
{
    struct release *x = arg;
    if (!bench_wait_flag(&x->w.b_ready, TIMEOUT_NS, 0) || !bench_wait_flag(&x->launched, TIMEOUT_NS, 0))
        x->timed_out = true;
    bench_spin_ns(5000);
    atomic_store_explicit(&x->t_a, bench_ticks(), memory_order_release);
}

static void check(aclError rc, const char *what)
{
    if (rc != ACL_SUCCESS) {
        const char *msg = aclGetRecentErrMsg();
        fprintf(stderr, "bench: %s failed: %d\n%s\n", what, rc, msg != NULL ? msg : "");
        exit(2);
    }
}

static void release_case(const struct rt *rt, enum release_kind kind)
{
    bool foreign = kind == RELEASE_FOREIGN;
    size_t n = foreign ? bench_iters(300, 20) : bench_iters(5000, 500);
    size_t warm = foreign ? 2 : n / 10;
    void *a = rt->stream_create();
    void *b = rt->stream_create();
    aclrtNotify notify = NULL;
    void *word = NULL;
    if (kind == RELEASE_NOTIFY)
        check(aclrtCreateNotify(&notify, ACL_NOTIFY_DEFAULT), "aclrtCreateNotify");
    else
        check(aclrtMalloc(&word, 64, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
    _Atomic uint64_t *w = (_Atomic uint64_t *)word;
    if (w != NULL)
        atomic_store(w, 0);
    static struct release x;
    struct samples smp;
    samples_init(&smp, n);
    unsigned timeouts = 0, discarded = 0;
    double start = bench_now_s();
    for (size_t i = 0; smp.n < n && i < 3 * (n + warm); i++) {
        bench_waiter_reset(&x.w);
        atomic_store_explicit(&x.launched, 0, memory_order_relaxed);
        atomic_store_explicit(&x.t_a, 0, memory_order_relaxed);
        x.timed_out = false;
        uint64_t target = (uint64_t)i + 1;
        if (!foreign)
            rt->launch(a, release_gate, &x);
        if (kind == RELEASE_NOTIFY)
            check(aclrtRecordNotify(notify, a), "aclrtRecordNotify");
        else if (kind == RELEASE_VALUE)
            check(aclrtValueWrite(word, target, 0, a), "aclrtValueWrite");
        rt->launch(b, bench_waiter_marker, &x.w);
        if (kind == RELEASE_NOTIFY)
            check(aclrtWaitAndResetNotify(notify, b, 0), "aclrtWaitAndResetNotify");
        else
            check(aclrtValueWait(word, target, ACL_STREAM_WAIT_VALUE_GEQ, b), "aclrtValueWait");
        rt->launch(b, bench_waiter_stamp, &x.w);
        atomic_store_explicit(&x.launched, 1, memory_order_release);
        if (foreign) {
            if (!bench_wait_flag(&x.w.b_ready, TIMEOUT_NS, 0))
                x.timed_out = true;
            bench_sleep_ns(bench_opts.asleep_ns); /* the wait parks and its polls back off to the cap */
            atomic_store_explicit(&x.t_a, bench_ticks(), memory_order_relaxed);
            atomic_store_explicit(w, target, memory_order_release);
        }
        bool ok = bench_waiter_await(&x.w, 2 * TIMEOUT_NS);
        rt->sync(b);
        rt->sync(a);
        if (!ok || x.timed_out) {
            timeouts++;
            continue;
        }
        bool premise = foreign || bench_waiter_stayed_on_thread(&x.w);
        if (!premise) {
            discarded++;
            continue;
        }
        if (i >= warm)
            samples_add(&smp, (double)(int64_t)(atomic_load(&x.w.t_b) - atomic_load(&x.t_a)) * bench_ns_per_tick);
        if (smp.n > 20 && bench_over_budget(start, foreign ? 5.0 : 4.0))
            break;
    }
    static const char *const names[] = {"notify_release_hot", "value_release_hot", "value_foreign_poll"};
    static const char *const methods[] = {
        "TSC at the end of A's task -> start of B's task after aclrtWaitAndResetNotify (record on A); B's executor "
        "in the wait",
        "TSC at the end of A's task -> start of B's task after aclrtValueWait (aclrtValueWrite on A); B's executor "
        "in the wait",
        "TSC at a plain atomic store of the word by the main thread -> start of B's task after aclrtValueWait, the "
        "wait parked >= asleep_ns before (poll at its backoff cap)",
    };
    struct result *r = bench_record(names[kind], "ns", RESULT_ACLRT, &smp, 1, methods[kind]);
    if (timeouts > 0 || discarded > 0)
        bench_note(r, "%u iterations timed out, %u discarded (B's executor slept in the wait)", timeouts, discarded);
    samples_free(&smp);
    if (notify != NULL)
        check(aclrtDestroyNotify(notify), "aclrtDestroyNotify");
    if (word != NULL)
        check(aclrtFree(word), "aclrtFree");
    rt->stream_destroy(b);
    rt->stream_destroy(a);
}

void case_notify_release_hot(const struct rt *rt)
{
    if (rt->is_aclrt) /* no baseline equivalent */
        release_case(rt, RELEASE_NOTIFY);
}

void case_value_release_hot(const struct rt *rt)
{
    if (rt->is_aclrt)
        release_case(rt, RELEASE_VALUE);
}

void case_value_foreign_poll(const struct rt *rt)
{
    if (rt->is_aclrt)
        release_case(rt, RELEASE_FOREIGN);
}
