/*
 * bench/bench.h - the benchmark harness of aclrt: what every file of bench/
 * shares.
 *
 *   clock.c      the clock: rdtsc calibrated against CLOCK_MONOTONIC, its cost
 *   stats.c      sample buffers and percentiles
 *   report.c     the results: progress lines, the table, JSON, CSV, plot data
 *   sys.c        threads: pinning, sleeping, barriers, "is that thread asleep?"
 *   limits.c     the physical limits (hand-off, futex, ck_ring, atomic)
 *   naive.c      the naive baseline runtime (mutex + condvar + worker per stream)
 *   rt_aclrt.c   aclrt behind the runtime interface below
 *   rt_naive.c   the naive runtime behind the same interface
 *   cases_*.c    what is measured, each case once per runtime (cases_ipc.c
 *                also runs this binary as a second process: --ipc-peer)
 *   main.c       the case table, targets, options
 *
 * Units: every latency is in nanoseconds, every throughput in Mtasks/s.
 * Times are taken in "ticks" of bench_ticks() and converted with
 * bench_ns(); the clock's own cost is measured at start (clock_read).
 */
#ifndef BENCH_H
#define BENCH_H

/* Every file of bench/ includes this first: Linux extras (affinity, futex, /proc, prctl). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE 1
#endif

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "aclrt.h" /* aclrtxHostKernel, aclError: the API types (no implementation here) */

#define BENCH_CACHELINE 64
#define BENCH_ALIGNED __attribute__((aligned(BENCH_CACHELINE)))

/* ------------------------------------------------------------------------
 * Clock (clock.c)
 * ------------------------------------------------------------------------ */

/*
 * A timestamp. x86: rdtsc between two lfences (nothing before it is still
 * running, nothing after it has started), invariant TSC required (checked in
 * clock.c). Elsewhere: CLOCK_MONOTONIC in ns.
 */
static inline uint64_t bench_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
#endif
}

static inline void bench_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield" ::: "memory");
#endif
}

extern double bench_ns_per_tick;     /* calibrated */
extern double bench_tsc_skew_ns;     /* estimated by limit_handoff (CPU1 - CPU0) */
extern double bench_clock_cost_ns;   /* median cost of one bench_ticks() pair, back to back */
extern uint64_t bench_clock_cost_ticks;
extern char bench_clock_desc[160];

void bench_clock_init(void);                 /* calibrate (~50 ms) */
static inline double bench_ns(uint64_t ticks) { return (double)ticks * bench_ns_per_tick; }
static inline uint64_t bench_ticks_of_ns(double ns) { return (uint64_t)(ns / bench_ns_per_tick); }
/* Interval of one timed operation, the clock's own cost taken off (never below 0). */
static inline double bench_op_ns(uint64_t t0, uint64_t t1)
{
    uint64_t d = t1 - t0;
    return d > bench_clock_cost_ticks ? bench_ns(d - bench_clock_cost_ticks) : 0.0;
}
double bench_now_s(void); /* CLOCK_MONOTONIC seconds (budgets) */

/* ------------------------------------------------------------------------
 * Samples and percentiles (stats.c)
 * ------------------------------------------------------------------------ */

struct samples {
    double *v;
    size_t n, cap;
};

struct summary {
    size_t n;
    double p50, p90, p99, max, min, mean;
};

void samples_init(struct samples *s, size_t cap);
void samples_free(struct samples *s);
static inline void samples_add(struct samples *s, double x)
{
    if (s->n < s->cap)
        s->v[s->n++] = x;
}
static inline bool samples_full(const struct samples *s) { return s->n >= s->cap; }
struct summary samples_summarize(struct samples *s); /* sorts s; nearest-rank percentiles */

/* ------------------------------------------------------------------------
 * Results (report.c)
 * ------------------------------------------------------------------------ */

enum result_kind { RESULT_ACLRT, RESULT_BASELINE, RESULT_LIMIT, RESULT_CLOCK };

struct result {
    char name[64];
    char unit[16];          /* "ns" or "Mtasks/s" */
    enum result_kind kind;
    uint64_t iterations;    /* operations measured (samples x ops per sample) */
    uint64_t samples;
    struct summary s;
    char limit[64];         /* name of the physical limit it is compared with ("" none) */
    char baseline[64];      /* name of the baseline counterpart ("" none) */
    char method[160];       /* how it was measured */
    char note[200];         /* what happened (discarded samples, verification) */
    char target[96];        /* the performance target(s) of the case, filled by main.c */
    char target_met[48];
};

#define BENCH_MAX_RESULTS 256
extern struct result bench_results[BENCH_MAX_RESULTS];
extern int bench_result_count;

/*
 * Record a result from samples (summarized here). Names: aclrt results as
 * given; the baseline's carry the prefix "baseline_", limits "limit_".
 */
struct result *bench_record(const char *name, const char *unit, enum result_kind kind, struct samples *s,
                            uint64_t ops_per_sample, const char *method);
struct result *bench_record_copy(const struct result *from, const char *name); /* same figures, new name */
/*
 * A call timed on a thread that the thread it wakes may preempt (they share
 * a CPU; the kernel decides per call): the calls nobody preempted as `name`,
 * the others as `name`_preempted, each with at least 20 samples and 5 % of
 * the calls (`name` is always there: with too few, every call is in it, as
 * its method says); a note on `name` says how the calls split. Samples are
 * sorted. ops_per_sample is 1.
 */
struct result *bench_record_modes(const char *name, const char *unit, enum result_kind kind, struct samples *own,
                                  struct samples *preempted, const char *method);
struct result *bench_find(const char *name);
void bench_note(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void bench_link(const char *name, const char *limit, const char *baseline);

void bench_progress_line(const struct result *r);  /* one line per case, as it completes */
void bench_print_table(FILE *f);
bool bench_write_json(const char *path);
bool bench_write_csv(const char *path);
bool bench_write_plot_data(const char *dir);      /* latency.dat, streams.dat, threads.dat */
void bench_machine_info(void);                    /* collect once, at start */
void bench_machine_finish(void);                  /* load at the end, duration */
const char *bench_machine_line(void);

/* ------------------------------------------------------------------------
 * Options and budgets (main.c)
 * ------------------------------------------------------------------------ */

struct bench_opts {
    bool quick;
    int cpus;              /* online CPUs */
    double case_budget_s;  /* soft cap per measured variant */
    uint64_t spin_ns;      /* aclrt's idle spin (ACLRT_SPIN_NS or the default 20000) */
    uint64_t asleep_ns;    /* how long to wait so that executors sleep: >= 50 x spin_ns, >= 1 ms */
    int executors;         /* aclrt executor threads found (for the record) */
    double started_s;
    /*
     * Where the threads run (--placement): "free" (the scheduler's choice),
     * "one" (the harness's threads and the runtime's on one CPU) or "two"
     * (the harness's on one CPU, the runtime's on the others). The sets as
     * text ("0", "1-3"; "" for any CPU) for the record.
     */
    char placement[8];
    char harness_cpus[64];
    char runtime_cpus[64];
};
extern struct bench_opts bench_opts;

/* Iterations: `full` in a full run, `full / 10` (at least `min`) in QUICK. */
size_t bench_iters(size_t full, size_t min);

/* A variant's time budget: true once `seconds` (scaled in QUICK) have passed since start_s. */
bool bench_over_budget(double start_s, double seconds);

/* The watchdog: a case that runs for minutes has hung; say which and exit 3. */
void bench_watchdog_start(void);
void bench_watchdog_case(const char *name);

/* ------------------------------------------------------------------------
 * Threads and the OS (sys.c)
 * ------------------------------------------------------------------------ */

void bench_pin_self(int cpu);                   /* no-op when cpu >= online CPUs */

/*
 * Placement (--placement): bench_placement_init picks the CPU sets, puts the
 * calling (main) thread on the harness's set, and tells aclrt its set through
 * ACLRT_CPUS (before aclInit); false for a name it does not know or a
 * placement the machine cannot give. Threads the harness starts inherit its
 * set; bench_place_harness puts the caller back on it (after a limit that
 * pinned it); bench_place_runtime_attr puts a baseline worker on the
 * runtime's set.
 */
bool bench_placement_init(const char *name);
void bench_place_harness(void);
void bench_place_runtime_attr(void *pthread_attr);
void bench_sleep_ns(uint64_t ns);
void bench_spin_ns(uint64_t ns);                /* busy-wait */
int bench_gettid(void);
void bench_set_thread_name(const char *name);

/*
 * Threads of this process whose name starts with `prefix`, other than the
 * caller: how many there are, and how many are asleep (state S or D in
 * /proc). Used to check that "executors asleep" cases really have them asleep.
 */
void bench_threads_asleep(const char *prefix, int *total, int *asleep);

/* Futex on a 32-bit word (process-private). */
long bench_futex_wait(_Atomic uint32_t *word, uint32_t expected);
long bench_futex_wait_ns(_Atomic uint32_t *word, uint32_t expected, uint64_t ns); /* relative timeout */
long bench_futex_wake(_Atomic uint32_t *word, int count);

/* Voluntary context switches of the calling thread so far (it slept if this grew). */
uint64_t bench_thread_nvcsw(void);
/* Involuntary ones (another thread preempted it if this grew). */
uint64_t bench_thread_nivcsw(void);

/*
 * Spin until *flag != 0 or `timeout_ns` passed; passive (nanosleep) polling
 * if `poll_ns` > 0. In placement `one` a spin yields its CPU every 64 turns:
 * the thread it waits for needs that CPU, and a spinner that never yields
 * holds it until its time slice ends (milliseconds), a figure of the
 * scheduler, not of either runtime.
 */
bool bench_wait_flag(_Atomic uint64_t *flag, uint64_t timeout_ns, uint64_t poll_ns);

/* Start n threads running fn(arg_i) where arg_i = base + i * stride. */
struct bench_threads {
    int n;
    void *threads; /* pthread_t[n] */
};
void bench_threads_start(struct bench_threads *t, int n, void *(*fn)(void *), void *base, size_t stride);
void bench_threads_join(struct bench_threads *t);

/* ------------------------------------------------------------------------
 * The runtime interface: the cases run the same code on aclrt and on the
 * naive baseline through it. Sub-25 ns operations are timed with direct calls
 * instead (cases_micro.c), so that an indirect call does not count.
 * ------------------------------------------------------------------------ */

typedef void (*bench_fn)(void *arg);

struct rt {
    const char *name;          /* "aclrt" / "naive" */
    const char *prefix;        /* result name prefix: "" / "baseline_" */
    const char *thread_prefix; /* names of its execution threads */
    bool is_aclrt;
    void (*start)(void);
    void (*stop)(void);
    void (*thread_enter)(void); /* a launching thread other than main: make it able to launch */
    void *(*stream_create)(void);
    void (*stream_destroy)(void *s);
    void *(*event_create)(void); /* reusable, no timing (aclrtCreateEventExWithFlag(ACL_EVENT_SYNC)) */
    void (*event_destroy)(void *e);
    void (*record)(void *e, void *s);
    bool (*query)(void *e); /* complete? */
    void (*stream_wait)(void *s, void *e);
    void (*launch)(void *s, bench_fn fn, void *arg);
    void (*launch_kernel)(void *s, uint32_t blocks, aclrtxHostKernel fn, void *arg);
    void (*sync)(void *s);
};

extern const struct rt rt_aclrt;
extern const struct rt rt_naive;

/* "prefix" + name: the result name of a case for a runtime. */
const char *bench_name(const struct rt *rt, const char *name);

/* Tasks used by several cases. */
void bench_nop(void *arg);
aclError bench_nop_kernel(uint32_t block, uint32_t blocks, void *arg);

/*
 * The waiting side of a cross-stream case (cases_latency.c, cases_notify.c):
 * stream B runs a marker (B is now held by an executor), then its wait,
 * then a stamp (B's next task started: t_b), which wakes the main thread
 * sleeping on `done` (sys.c). Hot iterations count only when the marker and
 * the stamp ran on one thread that did not sleep in between.
 */
struct bench_waiter {
    _Atomic uint64_t b_ready BENCH_ALIGNED; /* the marker ran */
    _Atomic uint64_t t_b BENCH_ALIGNED;     /* B's next task starts */
    _Atomic uint32_t done BENCH_ALIGNED;    /* futex word: the stamp ran */
    int marker_tid, stamp_tid;
    uint64_t marker_nvcsw, stamp_nvcsw;
};
void bench_waiter_reset(struct bench_waiter *w);
void bench_waiter_marker(void *arg); /* arg: struct bench_waiter * */
void bench_waiter_stamp(void *arg);
bool bench_waiter_await(struct bench_waiter *w, uint64_t timeout_ns); /* sleeps on `done`; false on timeout */
bool bench_waiter_stayed_on_thread(const struct bench_waiter *w);

/* A stamp: a task writes the time it ran (non-zero) and the CPU it ran on into it. */
struct bench_stamp {
    _Atomic uint64_t t BENCH_ALIGNED;
    int cpu;
};
void bench_stamp_fn(void *arg);

/* ------------------------------------------------------------------------
 * Cases. Each measures one thing for one runtime (rt NULL: limits) and
 * records its results; main.c runs the table.
 * ------------------------------------------------------------------------ */

/* limits.c */
void limit_clock(void);
void limit_atomic_inc(void);
void limit_ring_op(void);
void limit_ring_stream(void);
void limit_handoff(void);
void limit_futex(void);
void limit_futex_wake_cold(void);

/* cases_micro.c: direct calls, batch timing */
void case_query_event_status(const struct rt *rt);
void case_record_event(const struct rt *rt);
void case_sync_finished_stream(const struct rt *rt);
void case_launch_host_func(const struct rt *rt);
void case_launch_kernel(const struct rt *rt);
void case_launch_kernel_args(const struct rt *rt);
void case_launch_host_kernel(const struct rt *rt);

/* cases_latency.c: across threads */
void case_launch_to_complete(const struct rt *rt);
void case_first_launch_sleeping(const struct rt *rt);
void case_cross_stream_hot(const struct rt *rt);
void case_cross_stream_asleep(const struct rt *rt);

/* cases_callback.c: report callbacks (aclrt only) */
void case_callback_round_trip(const struct rt *rt);
/* cases_notify.c: notify and value-op release latency (aclrt only) */
void case_notify_release_hot(const struct rt *rt);
void case_value_release_hot(const struct rt *rt);
void case_value_foreign_poll(const struct rt *rt);

/* cases_ipc.c: IPC event release across processes (aclrt only); the peer process's entry */
void case_ipc_event_release(const struct rt *rt);
int bench_ipc_peer_main(int argc, char **argv);

/* cases_model.c: capture and replay (aclrt only) */
void case_model_replay(const struct rt *rt);

/* cases_scaling.c: throughput, streams, threads */
void case_throughput_one_stream(const struct rt *rt);
void case_scaling_streams(const struct rt *rt);
void case_scaling_threads(const struct rt *rt);
void case_shared_stream_launchers(const struct rt *rt);

/* Scaling points (main.c fills them from the machine). */
extern int bench_stream_counts[16];
extern int bench_stream_count_n;
extern int bench_thread_counts[16];
extern int bench_thread_count_n;

#endif /* BENCH_H */
