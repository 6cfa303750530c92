/*
 * bench/cases_latency.c - latencies across threads. Both ends are TSC
 * timestamps (one clock, calibrated once; limits.c estimates the skew
 * between cores), so no clock cost is subtracted from them.
 *
 *   launch_to_complete         launch call -> the host function starts, on
 *                              an idle stream while the executors are awake
 *                              (the launcher spins; the previous task ended
 *                              2 us earlier, far less than spin_ns)
 *   launch_idle_stream_awake   the launch calls of that loop (an idle stream
 *                              is handed to the executors: more than a
 *                              launch into a running stream)
 *   first_launch_sleeping      duration of the launch call onto an idle
 *                              stream while every executor sleeps (checked
 *                              in /proc before each launch; iterations that
 *                              find one awake are discarded)
 *   launch_to_complete_asleep  same launches: launch call -> function starts
 *   cross_stream_hot           task on A ends (its last timestamp) -> the
 *                              task after "wait for A's event" on B starts;
 *                              B's executor is spinning in the wait
 *   cross_stream_asleep        the same, every executor but A's asleep when
 *                              A's task ends (checked in /proc)
 *
 * Cross-stream layout, per iteration:
 *   A: [gate]  record(ev, A)
 *   B: [marker] wait(ev) [stamp]
 * The gate spins until the marker has run (B's executor is on B), then lets
 * B's executor reach the wait (hot: 5 us of spinning, far less than
 * spin_ns) or go to sleep (asleep: it sleeps asleep_wait_ns, >= 50 x
 * spin_ns), then takes t_a and returns. The stamp takes t_b, then wakes the
 * main thread, which sleeps on a futex meanwhile so that the executors have
 * the CPUs. Hot iterations are kept only if the thread that ran the marker
 * also ran the stamp without sleeping in between (getrusage: no voluntary
 * context switch), i.e. B's executor really waited spinning (aclrt only:
 * the baseline's worker sleeps in every wait, by design).
 */
#include "bench.h"

#include <sched.h>
#include <string.h>

#define TIMEOUT_NS (5ull * 1000000000ull)

static enum result_kind kind_of(const struct rt *rt)
{
    return rt->is_aclrt ? RESULT_ACLRT : RESULT_BASELINE;
}

static double signed_ns(uint64_t from, uint64_t to)
{
    return (double)(int64_t)(to - from) * bench_ns_per_tick;
}

/* ------------------------------------------------------------------------
 * Launch -> complete, executors awake
 * ------------------------------------------------------------------------ */

struct l2c_stamp {
    _Atomic uint64_t t BENCH_ALIGNED;
    int cpu;
    bool slept; /* the thread running it slept since the previous task it ran here */
};

static _Thread_local uint64_t l2c_last_nvcsw = UINT64_MAX;

static void l2c_stamp_fn(void *arg)
{
    struct l2c_stamp *s = arg;
    uint64_t now = bench_ticks();
    uint64_t nvcsw = bench_thread_nvcsw();
    s->slept = l2c_last_nvcsw != UINT64_MAX && nvcsw != l2c_last_nvcsw;
    s->cpu = sched_getcpu();
    atomic_store_explicit(&s->t, now, memory_order_release);
    l2c_last_nvcsw = bench_thread_nvcsw(); /* after the store: the harness's own wake-ups do not count */
}

void case_launch_to_complete(const struct rt *rt)
{
    size_t n = bench_iters(20000, 2000);
    size_t warm = n / 10;
    void *s = rt->stream_create();
    struct l2c_stamp st;
    struct samples smp, call;
    samples_init(&smp, n);
    samples_init(&call, n);
    unsigned timeouts = 0, slept = 0, same_cpu = 0;
    double start = bench_now_s();
    for (size_t i = 0; i < n + warm; i++) {
        atomic_store_explicit(&st.t, 0, memory_order_relaxed);
        int cpu = sched_getcpu();
        uint64_t t0 = bench_ticks();
        rt->launch(s, l2c_stamp_fn, &st);
        uint64_t t1 = bench_ticks();
        if (!bench_wait_flag(&st.t, TIMEOUT_NS, 0)) {
            timeouts++;
            continue;
        }
        if (i >= warm) {
            samples_add(&smp, signed_ns(t0, atomic_load_explicit(&st.t, memory_order_acquire)));
            samples_add(&call, bench_op_ns(t0, t1));
            slept += st.slept;
            same_cpu += st.cpu == cpu;
        }
        bench_spin_ns(2000); /* the executor lets go of the stream and idles (spinning) */
        if (i > warm + 100 && bench_over_budget(start, 4.0))
            break;
    }
    rt->sync(s);
    struct result *r = bench_record(bench_name(rt, "launch_to_complete"), "ns", kind_of(rt), &smp, 1,
                                    "TSC before the launch call -> TSC at the start of the host function; idle stream, "
                                    "executors awake (2 us after the previous task)");
    struct result *c = bench_record(bench_name(rt, "launch_idle_stream_awake"), "ns", kind_of(rt), &call, 1,
                                    "duration of those launch calls (onto an idle stream, executors awake)");
    bench_note(r, "%.0f%% of the tasks ran on a thread that had slept since its previous task, %.0f%% on the "
                  "launcher's CPU",
               smp.n ? 100.0 * slept / (double)smp.n : 0.0, smp.n ? 100.0 * same_cpu / (double)smp.n : 0.0);
    if (timeouts > 0)
        bench_note(r, "%u launches did not run within 5 s", timeouts);
    (void)c;
    samples_free(&smp);
    samples_free(&call);
    rt->stream_destroy(s);
}

/* ------------------------------------------------------------------------
 * First launch onto sleeping executors
 * ------------------------------------------------------------------------ */

void case_first_launch_sleeping(const struct rt *rt)
{
    size_t n = bench_iters(1000, 40);
    void *s = rt->stream_create();
    struct bench_stamp st;
    struct samples call, preempted, run;
    samples_init(&call, n);
    samples_init(&preempted, n);
    samples_init(&run, n);
    unsigned awake = 0, timeouts = 0, tries = 0, same_cpu = 0;
    double start = bench_now_s();
    rt->launch(s, bench_nop, NULL);
    rt->sync(s);
    while (run.n < n && tries < 3 * n) { /* run: one sample of every launch kept, preempted or not */
        tries++;
        bench_sleep_ns(bench_opts.asleep_ns);
        int total, asleep;
        bench_threads_asleep(rt->thread_prefix, &total, &asleep);
        int cpu = sched_getcpu();
        atomic_store_explicit(&st.t, 0, memory_order_relaxed);
        uint64_t switches = bench_thread_nivcsw();
        uint64_t t0 = bench_ticks();
        rt->launch(s, bench_stamp_fn, &st);
        uint64_t t1 = bench_ticks();
        bool was_preempted = bench_thread_nivcsw() != switches;
        if (!bench_wait_flag(&st.t, TIMEOUT_NS, 0)) {
            timeouts++;
            continue;
        }
        if (total == 0 || asleep != total) {
            awake++; /* not the case we measure: discard */
            continue;
        }
        samples_add(was_preempted ? &preempted : &call, bench_op_ns(t0, t1));
        samples_add(&run, signed_ns(t0, atomic_load_explicit(&st.t, memory_order_acquire)));
        same_cpu += st.cpu == cpu;
        if (run.n > 20 && bench_over_budget(start, 5.0))
            break;
    }
    rt->sync(s);
    bench_record_modes(bench_name(rt, "first_launch_sleeping"), "ns", kind_of(rt), &call, &preempted,
                       "the launch call onto an idle stream, every executor asleep (checked in /proc)");
    struct result *q = bench_record(bench_name(rt, "launch_to_complete_asleep"), "ns", kind_of(rt), &run, 1,
                                    "TSC before the launch call -> start of the host function, every executor asleep");
    bench_note(q, "the woken thread ran the task on the launcher's CPU in %u of %zu launches", same_cpu, run.n);
    if (awake > 0 || timeouts > 0)
        bench_note(q, "%u iterations discarded (an executor was awake), %u timed out", awake, timeouts);
    samples_free(&call);
    samples_free(&preempted);
    samples_free(&run);
    rt->stream_destroy(s);
}

/* ------------------------------------------------------------------------
 * Cross-stream record -> wait -> run
 * ------------------------------------------------------------------------ */

struct cross {
    struct bench_waiter w;                  /* B: marker, wait, stamp */
    _Atomic uint64_t t_a BENCH_ALIGNED;     /* A's task ends */
    bool asleep;
    const char *thread_prefix;
    bool timed_out;
    bool all_asleep;
};

static void cross_gate(void *arg)
{
    struct cross *x = arg;
    if (!bench_wait_flag(&x->w.b_ready, TIMEOUT_NS, 0))
        x->timed_out = true;
    if (!x->asleep) {
        bench_spin_ns(5000);
    } else {
        bench_sleep_ns(bench_opts.asleep_ns);
        int total, asleep;
        bench_threads_asleep(x->thread_prefix, &total, &asleep);
        x->all_asleep = total > 0 && asleep == total;
    }
    atomic_store_explicit(&x->t_a, bench_ticks(), memory_order_release);
}

static void cross_stream(const struct rt *rt, bool asleep)
{
    size_t n = asleep ? bench_iters(1000, 40) : bench_iters(5000, 500);
    size_t warm = asleep ? 2 : n / 10;
    void *a = rt->stream_create();
    void *b = rt->stream_create();
    void *ev = rt->event_create();
    static struct cross x;
    struct samples smp;
    samples_init(&smp, n);
    unsigned timeouts = 0, discarded = 0, other_thread = 0;
    double start = bench_now_s();
    for (size_t i = 0; smp.n < n && i < 3 * (n + warm); i++) {
        bench_waiter_reset(&x.w);
        atomic_store_explicit(&x.t_a, 0, memory_order_relaxed);
        x.asleep = asleep;
        x.thread_prefix = rt->thread_prefix;
        x.timed_out = false;
        x.all_asleep = false;
        rt->launch(a, cross_gate, &x);
        rt->record(ev, a);
        rt->launch(b, bench_waiter_marker, &x.w);
        rt->stream_wait(b, ev);
        rt->launch(b, bench_waiter_stamp, &x.w);
        bool ok = bench_waiter_await(&x.w, 2 * TIMEOUT_NS);
        rt->sync(b);
        rt->sync(a);
        if (!ok || x.timed_out) {
            timeouts++;
            continue;
        }
        /* The baseline's worker always sleeps in a wait (its design): only aclrt's hot premise is checked. */
        bool premise = asleep ? x.all_asleep
                              : !rt->is_aclrt || bench_waiter_stayed_on_thread(&x.w);
        if (!premise) {
            discarded++;
            other_thread += x.w.marker_tid != x.w.stamp_tid;
            continue;
        }
        if (i >= warm)
            samples_add(&smp, signed_ns(atomic_load(&x.t_a), atomic_load(&x.w.t_b)));
        if (smp.n > 20 && bench_over_budget(start, asleep ? 5.0 : 4.0))
            break;
    }
    struct result *r = bench_record(
        bench_name(rt, asleep ? "cross_stream_asleep" : "cross_stream_hot"), "ns", kind_of(rt), &smp, 1,
        asleep ? "TSC at the end of A's task -> start of B's task after wait(event on A); every other executor asleep"
               : "TSC at the end of A's task -> start of B's task after wait(event on A); B's executor in the wait");
    if (timeouts > 0 || discarded > 0) {
        if (asleep)
            bench_note(r, "%u iterations timed out, %u discarded (an executor was awake)", timeouts, discarded);
        else
            bench_note(r, "%u iterations timed out, %u discarded: B's executor slept in the wait (%u of them: B "
                          "went on on another executor)",
                       timeouts, discarded, other_thread);
    }
    samples_free(&smp);
    rt->event_destroy(ev);
    rt->stream_destroy(b);
    rt->stream_destroy(a);
}

void case_cross_stream_hot(const struct rt *rt)
{
    cross_stream(rt, false);
}

void case_cross_stream_asleep(const struct rt *rt)
{
    cross_stream(rt, true);
}
