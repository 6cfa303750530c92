/*
 * bench/cases_callback.c - report callbacks (aclrt only: the naive baseline
 * has no callback threads).
 *
 *   callback_round_trip        launch call -> the callback starts in the
 *                              subscribed thread (NO_BLOCK). The thread
 *                              loops on aclrtProcessReport, spinning
 *                              (spin_ns) before it would sleep; the
 *                              executors are awake; the launcher sleeps on
 *                              a futex until the callback wakes it (as in
 *                              cross_stream_*: on two CPUs a spinning
 *                              launcher would hold one of the two CPUs the
 *                              executor and the thread need). Two
 *                              hand-offs: the launcher's ring to an
 *                              executor, the executor's wait-free queue to
 *                              the thread.
 *   callback_block_round_trip  launch a BLOCK callback and a host function
 *                              behind it -> the host function starts: the
 *                              stream parked on the callback, the thread ran
 *                              it, and the stream came back to an executor.
 */
#include "bench.h"

#include <pthread.h>
#include <sched.h>

#define TIMEOUT_NS (5ull * 1000000000ull)

struct report_server {
    pthread_t thread;
    const struct rt *rt;
    atomic_int stop;
};

static void *report_server_main(void *arg)
{
    struct report_server *sv = arg;
    bench_set_thread_name("bench-report");
    sv->rt->thread_enter();
    while (!atomic_load_explicit(&sv->stop, memory_order_relaxed))
        aclrtProcessReport(100);
    return NULL;
}

/* When the callback (or the task behind it) started; then it wakes the launcher. */
struct cb_stamp {
    _Atomic uint64_t t BENCH_ALIGNED;
    _Atomic uint32_t done; /* futex word */
};

static void callback_stamp(void *arg)
{
    struct cb_stamp *st = arg;
    atomic_store_explicit(&st->t, bench_ticks(), memory_order_release);
    atomic_store_explicit(&st->done, 1, memory_order_release);
    bench_futex_wake(&st->done, 1);
}

static double signed_ns(uint64_t from, uint64_t to)
{
    return (double)(int64_t)(to - from) * bench_ns_per_tick;
}

static void measure(const struct rt *rt, aclrtStream s, bool block, struct samples *smp, unsigned *timeouts)
{
    size_t n = smp->cap;
    size_t warm = n / 10;
    static struct cb_stamp st;
    double start = bench_now_s();
    for (size_t i = 0; i < n + warm; i++) {
        atomic_store_explicit(&st.t, 0, memory_order_relaxed);
        atomic_store_explicit(&st.done, 0, memory_order_relaxed);
        uint64_t t0 = bench_ticks();
        if (block) {
            aclrtLaunchCallback(bench_nop, NULL, ACL_CALLBACK_BLOCK, s);
            rt->launch(s, callback_stamp, &st);
        } else {
            aclrtLaunchCallback(callback_stamp, &st, ACL_CALLBACK_NO_BLOCK, s);
        }
        /* The launcher sleeps meanwhile (as in cross_stream_*): the executor and the report thread have the CPUs. */
        uint64_t end = bench_ticks() + bench_ticks_of_ns((double)TIMEOUT_NS);
        while (atomic_load_explicit(&st.done, memory_order_acquire) == 0 && bench_ticks() < end)
            bench_futex_wait_ns(&st.done, 0, 10000000);
        if (atomic_load_explicit(&st.done, memory_order_acquire) == 0) {
            (*timeouts)++;
            continue;
        }
        if (i >= warm)
            samples_add(smp, signed_ns(t0, atomic_load_explicit(&st.t, memory_order_acquire)));
        bench_spin_ns(2000); /* the executor and the report thread go back to polling */
        if (i > warm + 100 && bench_over_budget(start, 3.0))
            break;
    }
    rt->sync(s);
}

void case_callback_round_trip(const struct rt *rt)
{
    if (!rt->is_aclrt)
        return;
    struct report_server sv = {.rt = rt};
    atomic_init(&sv.stop, 0);
    if (pthread_create(&sv.thread, NULL, report_server_main, &sv) != 0)
        return;
    aclrtStream s = rt->stream_create();
    if (aclrtSubscribeReport((uint64_t)sv.thread, s) != ACL_SUCCESS) {
        fprintf(stderr, "bench: aclrtSubscribeReport failed: %s\n", aclGetRecentErrMsg());
        return;
    }
    size_t n = bench_iters(20000, 2000);
    struct samples nb, b;
    samples_init(&nb, n);
    samples_init(&b, n);
    unsigned timeouts = 0;
    measure(rt, s, false, &nb, &timeouts);
    measure(rt, s, true, &b, &timeouts);
    struct result *r = bench_record("callback_round_trip", "ns", RESULT_ACLRT, &nb, 1,
                                    "TSC before aclrtLaunchCallback(NO_BLOCK) -> TSC at the start of the callback in "
                                    "the subscribed thread (looping on aclrtProcessReport); executors awake, "
                                    "launcher asleep on a futex");
    struct result *rb = bench_record("callback_block_round_trip", "ns", RESULT_ACLRT, &b, 1,
                                     "TSC before aclrtLaunchCallback(BLOCK) + a host function behind it -> TSC at "
                                     "the start of that host function (callback ran and returned, stream resumed)");
    if (timeouts > 0)
        bench_note(r, "%u callbacks did not run within 5 s", timeouts);
    (void)rb;
    samples_free(&nb);
    samples_free(&b);
    aclrtUnSubscribeReport((uint64_t)sv.thread, s);
    rt->stream_destroy(s);
    atomic_store_explicit(&sv.stop, 1, memory_order_relaxed);
    pthread_join(sv.thread, NULL);
}
