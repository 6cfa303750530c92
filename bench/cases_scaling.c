/*
 * bench/cases_scaling.c - throughput, and how figures move as the numbers of
 * streams and of launching threads grow.
 *
 *   throughput_one_stream          empty host functions launched back to
 *                                  back into one stream, then synchronize:
 *                                  tasks / (first launch -> synchronized)
 *   throughput_streams_N           one launcher, tasks round-robin over N
 *                                  streams, then synchronize them all
 *   launch_host_func_streams_N     the launch calls of that run: batch of 64 / sample
 *   launch_to_complete_streams_N   one task launched to each of N streams in
 *                                  a row (fan-out): each task's launch call
 *                                  -> its start
 *   throughput_threads_T           T threads, each launching into its own
 *                                  stream (the same total of tasks)
 *   launch_host_func_threads_T     the launch calls of that run: batch of 64 / sample
 *   throughput_shared_stream_threads_T   T threads launching into one stream
 *   launch_to_complete_threads_T   T threads, each: launch into its own
 *                                  stream -> the task starts, again and again
 *   shared_stream_launchers_T      T = 1, 2, 3 and 4 x CPUs threads launching
 *                                  empty host functions into one stream,
 *                                  more launchers than CPUs (the same total);
 *                                  one synchronize once all have launched
 *   shared_stream_launchers_2000x100  2,000 threads x 100 launches into one
 *                                  stream: launchers preempted at any point
 *
 * Throughput samples are whole runs (Mtasks/s of one run); their
 * percentiles are of those per-run figures, so max is the best run.
 */
#include "bench.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define TIMEOUT_NS (10ull * 1000000000ull)
enum { LAUNCH_BATCH = 64 };

int bench_stream_counts[16];
int bench_stream_count_n;
int bench_thread_counts[16];
int bench_thread_count_n;

static enum result_kind kind_of(const struct rt *rt)
{
    return rt->is_aclrt ? RESULT_ACLRT : RESULT_BASELINE;
}

static uint64_t total_tasks(void)
{
    return bench_opts.quick ? 20000 : 200000;
}

static double mtasks_per_s(uint64_t tasks, uint64_t t0, uint64_t t1)
{
    return (double)tasks / bench_ns(t1 - t0) * 1e3;
}

static struct result *record_named(const struct rt *rt, const char *fmt, int n, const char *unit, struct samples *s,
                                   uint64_t ops, const char *method)
{
    char name[64];
    snprintf(name, sizeof name, fmt, n);
    return bench_record(bench_name(rt, name), unit, kind_of(rt), s, ops, method);
}

/* ------------------------------------------------------------------------ */

void case_throughput_one_stream(const struct rt *rt)
{
    uint64_t m = total_tasks();
    size_t n = bench_iters(15, 3);
    void *s = rt->stream_create();
    for (int i = 0; i < 2048; i++)
        rt->launch(s, bench_nop, NULL);
    rt->sync(s);
    struct samples smp;
    samples_init(&smp, n);
    struct bench_stamp last;
    unsigned together = 0;
    double start = bench_now_s();
    for (size_t i = 0; i < n; i++) {
        int cpu = sched_getcpu();
        uint64_t t0 = bench_ticks();
        for (uint64_t j = 0; j + 1 < m; j++)
            rt->launch(s, bench_nop, NULL);
        rt->launch(s, bench_stamp_fn, &last); /* the last task says where the stream ran */
        rt->sync(s);
        uint64_t t1 = bench_ticks();
        samples_add(&smp, mtasks_per_s(m, t0, t1));
        together += last.cpu == cpu;
        if (i >= 2 && bench_over_budget(start, 6.0))
            break;
    }
    char method[160];
    snprintf(method, sizeof method, "%llu empty host functions back to back into one stream, then synchronize; per run",
             (unsigned long long)m);
    struct result *r = bench_record(bench_name(rt, "throughput_one_stream"), "Mtasks/s", kind_of(rt), &smp, m, method);
    bench_note(r, "the last task of %u of %zu runs ran on the launcher's CPU", together, smp.n);
    samples_free(&smp);
    rt->stream_destroy(s);
}

/* ------------------------------------------------------------------------
 * Streams
 * ------------------------------------------------------------------------ */

static void streams_point(const struct rt *rt, int count)
{
    void **streams = calloc((size_t)count, sizeof *streams);
    struct bench_stamp *stamps = aligned_alloc(BENCH_CACHELINE, (size_t)count * sizeof *stamps);
    uint64_t *t_launch = calloc((size_t)count, sizeof *t_launch);
    if (streams == NULL || stamps == NULL || t_launch == NULL)
        abort();
    for (int i = 0; i < count; i++)
        streams[i] = rt->stream_create();
    for (int i = 0; i < count; i++)
        rt->launch(streams[i], bench_nop, NULL);
    for (int i = 0; i < count; i++)
        rt->sync(streams[i]);

    /* Throughput, and the cost of each launch along the way. */
    uint64_t m = total_tasks();
    size_t runs = bench_iters(5, 2);
    struct samples tput, launch;
    samples_init(&tput, runs);
    samples_init(&launch, runs * (m / LAUNCH_BATCH));
    double start = bench_now_s();
    for (size_t r = 0; r < runs; r++) {
        uint64_t t0 = bench_ticks(), tb = t0;
        for (uint64_t j = 0; j < m; j++) {
            rt->launch(streams[j % (uint64_t)count], bench_nop, NULL);
            if ((j + 1) % LAUNCH_BATCH == 0) {
                uint64_t now = bench_ticks();
                samples_add(&launch, bench_op_ns(tb, now) / LAUNCH_BATCH);
                tb = now;
            }
        }
        for (int i = 0; i < count; i++)
            rt->sync(streams[i]);
        samples_add(&tput, mtasks_per_s(m, t0, bench_ticks()));
        if (r >= 1 && bench_over_budget(start, 3.0))
            break;
    }
    char method[160];
    snprintf(method, sizeof method, "%llu empty host functions round-robin over %d streams, one launcher; per run",
             (unsigned long long)m, count);
    record_named(rt, "throughput_streams_%d", count, "Mtasks/s", &tput, m, method);
    snprintf(method, sizeof method, "launch calls of throughput_streams_%d: batch of 64 / sample", count);
    record_named(rt, "launch_host_func_streams_%d", count, "ns", &launch, LAUNCH_BATCH, method);
    samples_free(&tput);
    samples_free(&launch);

    /* Fan-out: one task to each stream, launch -> start. */
    size_t rounds = bench_iters(20000, 2000) / (size_t)count;
    if (rounds < 3)
        rounds = 3;
    struct samples l2c;
    samples_init(&l2c, rounds * (size_t)count);
    unsigned timeouts = 0;
    start = bench_now_s();
    for (size_t r = 0; r < rounds + 1; r++) {
        for (int i = 0; i < count; i++)
            atomic_store_explicit(&stamps[i].t, 0, memory_order_relaxed);
        for (int i = 0; i < count; i++) {
            t_launch[i] = bench_ticks();
            rt->launch(streams[i], bench_stamp_fn, &stamps[i]);
        }
        bool ok = true;
        for (int i = 0; i < count; i++)
            ok &= bench_wait_flag(&stamps[i].t, TIMEOUT_NS, 0);
        if (!ok) {
            timeouts++;
            continue;
        }
        if (r > 0) /* round 0 warms up */
            for (int i = 0; i < count; i++)
                samples_add(&l2c, (double)(int64_t)(atomic_load(&stamps[i].t) - t_launch[i]) * bench_ns_per_tick);
        bench_spin_ns(2000);
        if (r >= 2 && bench_over_budget(start, 3.0))
            break;
    }
    snprintf(method, sizeof method, "one task to each of %d streams in a row: launch call -> task start", count);
    struct result *res = record_named(rt, "launch_to_complete_streams_%d", count, "ns", &l2c, 1, method);
    if (timeouts > 0)
        bench_note(res, "%u rounds timed out", timeouts);
    samples_free(&l2c);

    for (int i = 0; i < count; i++)
        rt->sync(streams[i]);
    for (int i = 0; i < count; i++)
        rt->stream_destroy(streams[i]);
    free(streams);
    free(stamps);
    free(t_launch);
}

void case_scaling_streams(const struct rt *rt)
{
    for (int i = 0; i < bench_stream_count_n; i++) {
        bench_watchdog_case(rt->is_aclrt ? "scaling_streams (aclrt)" : "scaling_streams (baseline)");
        streams_point(rt, bench_stream_counts[i]);
    }
}

/* ------------------------------------------------------------------------
 * Launching threads
 * ------------------------------------------------------------------------ */

enum thread_mode { LAUNCH_OWN, LAUNCH_SHARED, LAUNCH_TO_COMPLETE };

struct launcher {
    const struct rt *rt;
    enum thread_mode mode;
    void *stream;
    uint64_t count;             /* tasks (throughput) or iterations (latency) */
    uint64_t done;              /* how many it launched before the time budget ran out */
    double deadline_s;
    uint64_t deadline_every;    /* launches between looks at the deadline (0: once per batch of 64) */
    bool no_sync;               /* leave the synchronize to the thread that started the run */
    pthread_barrier_t *start;
    uint64_t t_begin;           /* its first tick after the start barrier */
    uint64_t t_end;
    struct samples lat;
    unsigned timeouts;
    struct bench_stamp stamp;
} BENCH_ALIGNED;

static void *launcher_main(void *arg)
{
    struct launcher *l = arg;
    const struct rt *rt = l->rt;
    rt->thread_enter();
    pthread_barrier_wait(l->start);
    l->t_begin = bench_ticks();
    if (l->mode == LAUNCH_TO_COMPLETE) {
        for (uint64_t i = 0; i < l->count; i++) {
            atomic_store_explicit(&l->stamp.t, 0, memory_order_relaxed);
            uint64_t t0 = bench_ticks();
            rt->launch(l->stream, bench_stamp_fn, &l->stamp);
            if (!bench_wait_flag(&l->stamp.t, TIMEOUT_NS, 0)) {
                l->timeouts++;
                continue;
            }
            if (i >= l->count / 10)
                samples_add(&l->lat, (double)(int64_t)(atomic_load(&l->stamp.t) - t0) * bench_ns_per_tick);
            bench_spin_ns(2000);
            if (bench_now_s() > l->deadline_s)
                break;
        }
        l->done = l->count;
    } else {
        uint64_t tb = bench_ticks();
        uint64_t j = 0;
        for (; j < l->count; j++) {
            rt->launch(l->stream, bench_nop, NULL);
            if ((j + 1) % LAUNCH_BATCH == 0) {
                uint64_t now = bench_ticks();
                samples_add(&l->lat, bench_op_ns(tb, now) / LAUNCH_BATCH);
                tb = now;
                /* A run that crawls (see the note it gets) stops at its deadline instead of hanging. */
                if (bench_now_s() > l->deadline_s) {
                    j++;
                    break;
                }
            } else if (l->deadline_every != 0 && (j + 1) % l->deadline_every == 0 && bench_now_s() > l->deadline_s) {
                j++;
                break;
            }
        }
        l->done = j;
        if (!l->no_sync)
            rt->sync(l->stream);
    }
    l->t_end = bench_ticks();
    return NULL;
}

/*
 * One run of `threads` launchers; returns Mtasks/s and appends their samples
 * to `lat`. Launchers stop 5 s (QUICK: 1 s) after the run started, whether
 * or not they are done (a throughput run counts the tasks it launched;
 * *short_runs counts the runs that stopped early, *launched adds them up).
 */
static double launchers_run_every(const struct rt *rt, enum thread_mode mode, int threads, void **streams,
                                  uint64_t per_thread, uint64_t deadline_every, bool sync_once, struct samples *lat,
                                  unsigned *timeouts, unsigned *short_runs, uint64_t *launched)
{
    double deadline = bench_now_s() + (bench_opts.quick ? 1.0 : 5.0);
    struct launcher *ls = aligned_alloc(BENCH_CACHELINE, (size_t)threads * sizeof *ls);
    if (ls == NULL)
        abort();
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads + 1);
    for (int i = 0; i < threads; i++) {
        memset(&ls[i], 0, sizeof ls[i]);
        ls[i].rt = rt;
        ls[i].mode = mode;
        ls[i].stream = mode == LAUNCH_SHARED ? streams[0] : streams[i];
        ls[i].count = per_thread;
        ls[i].start = &start;
        ls[i].deadline_s = deadline;
        ls[i].deadline_every = deadline_every;
        ls[i].no_sync = sync_once;
        samples_init(&ls[i].lat, mode == LAUNCH_TO_COMPLETE ? per_thread : per_thread / LAUNCH_BATCH + 1);
    }
    struct bench_threads th;
    bench_threads_start(&th, threads, launcher_main, ls, sizeof *ls);
    pthread_barrier_wait(&start);
    /*
     * The run starts at the first launcher's first tick, not at this
     * thread's return from the barrier: on a busy CPU the launchers may run
     * (even finish) before this thread is scheduled again.
     */
    uint64_t t0 = bench_ticks();
    bench_threads_join(&th);
    for (int i = 0; i < threads; i++)
        if (ls[i].t_begin < t0)
            t0 = ls[i].t_begin;
    uint64_t t_end = t0, done = 0;
    if (sync_once) {
        rt->sync(streams[0]);
        t_end = bench_ticks();
    }
    for (int i = 0; i < threads; i++) {
        if (ls[i].t_end > t_end)
            t_end = ls[i].t_end;
        done += ls[i].done;
        for (size_t k = 0; k < ls[i].lat.n; k++)
            samples_add(lat, ls[i].lat.v[k]);
        *timeouts += ls[i].timeouts;
        samples_free(&ls[i].lat);
    }
    pthread_barrier_destroy(&start);
    free(ls);
    if (done < per_thread * (uint64_t)threads)
        (*short_runs)++;
    *launched += done;
    return mtasks_per_s(done, t0, t_end);
}

static double launchers_run(const struct rt *rt, enum thread_mode mode, int threads, void **streams,
                            uint64_t per_thread, struct samples *lat, unsigned *timeouts, unsigned *short_runs,
                            uint64_t *launched)
{
    return launchers_run_every(rt, mode, threads, streams, per_thread, 0, false, lat, timeouts, short_runs, launched);
}

static void threads_point(const struct rt *rt, int threads)
{
    void **streams = calloc((size_t)threads, sizeof *streams);
    if (streams == NULL)
        abort();
    for (int i = 0; i < threads; i++)
        streams[i] = rt->stream_create();
    uint64_t per_thread = total_tasks() / (uint64_t)threads;
    size_t runs = bench_iters(5, 2);
    char method[160];
    unsigned timeouts = 0, short_runs = 0;

    for (int shared = 0; shared < 2; shared++) {
        enum thread_mode mode = shared ? LAUNCH_SHARED : LAUNCH_OWN;
        struct samples tput, lat;
        samples_init(&tput, runs);
        samples_init(&lat, runs * (total_tasks() / LAUNCH_BATCH + (uint64_t)threads));
        double start = bench_now_s();
        short_runs = 0;
        uint64_t launched = 0;
        for (size_t r = 0; r < runs; r++) {
            samples_add(&tput,
                        launchers_run(rt, mode, threads, streams, per_thread, &lat, &timeouts, &short_runs, &launched));
            if (r >= 1 && bench_over_budget(start, 3.0))
                break;
        }
        snprintf(method, sizeof method, "%d threads x %llu empty host functions into %s, then synchronize; per run",
                 threads, (unsigned long long)per_thread, shared ? "one shared stream" : "a stream each");
        struct result *t = record_named(rt, shared ? "throughput_shared_stream_threads_%d" : "throughput_threads_%d",
                                        threads, "Mtasks/s", &tput, per_thread * (uint64_t)threads, method);
        t->iterations = launched; /* what was launched, when a run stopped at its time limit */
        if (short_runs > 0)
            bench_note(t, "%u of %zu runs hit the %s s time limit before launching every task (figures count what "
                          "was launched)",
                       short_runs, tput.n, bench_opts.quick ? "1" : "5");
        if (!shared) {
            snprintf(method, sizeof method, "launch calls of throughput_threads_%d: batch of 64 / sample", threads);
            record_named(rt, "launch_host_func_threads_%d", threads, "ns", &lat, LAUNCH_BATCH, method);
        }
        samples_free(&tput);
        samples_free(&lat);
    }

    /* Launch -> start, every thread on its own stream at once. */
    uint64_t iters = bench_iters(5000, 500) / (uint64_t)threads + 10;
    struct samples lat;
    samples_init(&lat, iters * (uint64_t)threads);
    uint64_t launched = 0;
    launchers_run(rt, LAUNCH_TO_COMPLETE, threads, streams, iters, &lat, &timeouts, &short_runs, &launched);
    snprintf(method, sizeof method, "%d threads, each: launch into its own stream -> the task starts; repeat", threads);
    struct result *res = record_named(rt, "launch_to_complete_threads_%d", threads, "ns", &lat, 1, method);
    if (timeouts > 0)
        bench_note(res, "%u launches timed out", timeouts);
    samples_free(&lat);

    for (int i = 0; i < threads; i++)
        rt->stream_destroy(streams[i]);
    free(streams);
}

void case_scaling_threads(const struct rt *rt)
{
    for (int i = 0; i < bench_thread_count_n; i++) {
        bench_watchdog_case(rt->is_aclrt ? "scaling_threads (aclrt)" : "scaling_threads (baseline)");
        threads_point(rt, bench_thread_counts[i]);
    }
}

/* ------------------------------------------------------------------------
 * Many more launchers than CPUs into one stream
 * ------------------------------------------------------------------------ */

#define MANY_LAUNCHERS 2000
#define MANY_LAUNCHES 100

static void shared_point(const struct rt *rt, void *stream, int threads, uint64_t per_thread, size_t runs,
                         const char *name, int n)
{
    struct samples tput, lat;
    samples_init(&tput, runs);
    samples_init(&lat, runs * (per_thread / LAUNCH_BATCH + 1) * (uint64_t)threads);
    unsigned timeouts = 0, short_runs = 0;
    uint64_t launched = 0;
    double start = bench_now_s();
    void **streams = &stream;
    for (size_t r = 0; r < runs; r++) {
        /*
         * Every few launches a look at the deadline: a launcher may crawl
         * (each launch waiting for others). One synchronize once all have
         * launched: thousands of threads synchronizing one stream measure
         * the synchronize, not the launches.
         */
        samples_add(&tput, launchers_run_every(rt, LAUNCH_SHARED, threads, streams, per_thread, 8, true, &lat,
                                               &timeouts, &short_runs, &launched));
        if (r >= 1 && bench_over_budget(start, 4.0))
            break;
    }
    char method[160];
    snprintf(method, sizeof method,
             "%d threads x %llu empty host functions into one stream; all launched, one synchronize; per run", threads,
             (unsigned long long)per_thread);
    struct result *t = record_named(rt, name, n, "Mtasks/s", &tput, per_thread * (uint64_t)threads, method);
    t->iterations = launched;
    if (short_runs > 0)
        bench_note(t, "%u of %zu runs hit the %s s time limit before launching every task (figures count what was "
                      "launched)",
                   short_runs, tput.n, bench_opts.quick ? "1" : "5");
    samples_free(&tput);
    samples_free(&lat);
}

void case_shared_stream_launchers(const struct rt *rt)
{
    void *stream = rt->stream_create();
    int cpus = bench_opts.cpus;
    int last = 0;
    for (int k = 1; k <= 4; k++) {
        int threads = k * cpus;
        if (threads == last)
            continue;
        last = threads;
        bench_watchdog_case(rt->is_aclrt ? "shared_stream_launchers (aclrt)" : "shared_stream_launchers (baseline)");
        shared_point(rt, stream, threads, total_tasks() / (uint64_t)threads, bench_iters(5, 2),
                     "shared_stream_launchers_%d", threads);
    }
    bench_watchdog_case(rt->is_aclrt ? "shared_stream_launchers (aclrt)" : "shared_stream_launchers (baseline)");
    shared_point(rt, stream, MANY_LAUNCHERS, MANY_LAUNCHES, bench_iters(3, 1), "shared_stream_launchers_%dx100",
                 MANY_LAUNCHERS);
    rt->sync(stream);
    rt->stream_destroy(stream);
}
