/*
 * bench/limits.c - the physical limits aclrt's figures are compared with,
 * measured in the same run on the same machine:
 *
 *   clock_read              two back-to-back bench_ticks(): the clock's cost
 *   limit_atomic_inc        one uncontended atomic increment (lock xadd)
 *   limit_ring_op           one bare ck_ring enqueue + dequeue of a 64-byte
 *                           record, one thread (the data path of a launch
 *                           and of its execution, minus everything else)
 *   limit_ring_stream       a bare ck_ring stream of 64-byte records from one
 *                           thread to another (Mtasks/s): the ceiling of
 *                           tasks through one stream
 *   limit_handoff_oneway    spin ping-pong on one cache line between two
 *                           threads, round trip / 2
 *   limit_futex_roundtrip   futex ping-pong between two sleeping threads:
 *                           wake, sleep, get woken (round trip)
 *   limit_futex_wakeup      one way of it: wake call -> the sleeper runs
 *                           (timestamps on both threads)
 *   limit_futex_wake        the FUTEX_WAKE syscall that wakes one sleeper
 *                           (what a launch to a sleeping executor must pay)
 *
 * Pinning: the two threads of each two-thread limit are pinned to CPUs 0
 * and 1 (when there are two), so that they really run on two cores at once
 * and the figure is the hardware's, not the scheduler's. Spin loops use
 * `pause`, as aclrt's do. The ring uses aclrt's modes (MPSC reserve/commit,
 * single-consumer dequeue) and its capacity (1024 slots).
 */
#include "bench.h"

#include <ck_pr.h>
#include <ck_ring.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

double bench_tsc_skew_ns;

/* ------------------------------------------------------------------------ */

void limit_clock(void)
{
    size_t n = bench_iters(20000, 2000);
    struct samples s;
    samples_init(&s, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t a = bench_ticks();
        uint64_t b = bench_ticks();
        samples_add(&s, bench_ns(b - a));
    }
    struct result *r = bench_record("clock_read", "ns", RESULT_CLOCK, &s, 1, "two back-to-back reads");
    bench_note(r, "%s; subtracted from single-operation intervals", bench_clock_desc);
    samples_free(&s);
}

/* ------------------------------------------------------------------------ */

void limit_atomic_inc(void)
{
    enum { K = 1000 };
    static _Atomic uint64_t counter BENCH_ALIGNED;
    size_t n = bench_iters(5000, 500);
    struct samples s;
    samples_init(&s, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t t0 = bench_ticks();
        for (int k = 0; k < K; k++)
            atomic_fetch_add_explicit(&counter, 1, memory_order_relaxed);
        uint64_t t1 = bench_ticks();
        samples_add(&s, bench_op_ns(t0, t1) / K);
    }
    bench_record("limit_atomic_inc", "ns", RESULT_LIMIT, &s, K, "batch of 1000 lock-xadd / sample");
    samples_free(&s);
}

/* ------------------------------------------------------------------------ */

struct bench_rec {
    uint64_t w[8];
} BENCH_ALIGNED;
_Static_assert(sizeof(struct bench_rec) == 64, "a record is 64 bytes, like aclrt's task");

CK_RING_PROTOTYPE(bench_rec, bench_rec)

#define RING_SLOTS 1024

struct ring {
    struct ck_ring ring BENCH_ALIGNED;
    struct bench_rec *slots;
};

static void ring_init(struct ring *r)
{
    r->slots = aligned_alloc(BENCH_CACHELINE, RING_SLOTS * sizeof *r->slots);
    if (r->slots == NULL)
        abort();
    memset(r->slots, 0, RING_SLOTS * sizeof *r->slots);
    ck_ring_init(&r->ring, RING_SLOTS);
}

static inline bool ring_put(struct ring *r, const struct bench_rec *rec)
{
    unsigned int ticket;
    struct bench_rec *slot = ck_ring_enqueue_reserve_mpsc_bench_rec(&r->ring, r->slots, &ticket);
    if (slot == NULL)
        return false;
    *slot = *rec;
    ck_ring_enqueue_commit_mpsc(&r->ring, ticket);
    return true;
}

static inline bool ring_get(struct ring *r, struct bench_rec *out)
{
    return ck_ring_dequeue_mpsc_bench_rec(&r->ring, r->slots, out);
}

void limit_ring_op(void)
{
    enum { K = 100 };
    struct ring r;
    ring_init(&r);
    struct bench_rec rec = {{1, 2, 3, 4, 5, 6, 7, 8}}, out;
    uint64_t sink = 0;
    size_t n = bench_iters(20000, 2000);
    struct samples s;
    samples_init(&s, n);
    for (size_t i = 0; i < n + n / 10; i++) {
        uint64_t t0 = bench_ticks();
        for (int k = 0; k < K; k++) {
            rec.w[0] = (uint64_t)k;
            ring_put(&r, &rec);
            ring_get(&r, &out);
            sink += out.w[0];
        }
        uint64_t t1 = bench_ticks();
        if (i >= n / 10) /* the first tenth warms up */
            samples_add(&s, bench_op_ns(t0, t1) / K);
    }
    __asm__ __volatile__("" : : "r"(sink));
    bench_record("limit_ring_op", "ns", RESULT_LIMIT, &s, K,
                 "batch of 100 ck_ring MPSC reserve+commit+dequeue (64 B) / sample, one thread");
    samples_free(&s);
    free(r.slots);
}

/* ------------------------------------------------------------------------ */

/*
 * Two consumer policies, both bare ck_ring: `spin` polls the ring without
 * pause between records (it chases the producer: every record crosses the
 * cores on its own), `batched` sleeps 10 us when the ring is empty (the
 * producer fills a batch, the consumer drains it). The ceiling,
 * limit_ring_stream, is the better of the two p50s.
 */
struct ring_stream {
    struct ring r;
    uint64_t count;
    bool batched;
    pthread_barrier_t start;
    uint64_t t_start BENCH_ALIGNED;
    uint64_t t_end BENCH_ALIGNED;
    uint64_t sum;
};

static void *ring_producer(void *arg)
{
    struct ring_stream *rs = arg;
    bench_pin_self(0);
    pthread_barrier_wait(&rs->start);
    rs->t_start = bench_ticks();
    struct bench_rec rec = {{0}};
    for (uint64_t i = 0; i < rs->count; i++) {
        rec.w[0] = i;
        while (!ring_put(&rs->r, &rec))
            bench_relax();
    }
    return NULL;
}

static void *ring_consumer(void *arg)
{
    struct ring_stream *rs = arg;
    bench_pin_self(1);
    pthread_barrier_wait(&rs->start);
    struct bench_rec out;
    uint64_t sum = 0;
    for (uint64_t i = 0; i < rs->count; i++) {
        while (!ring_get(&rs->r, &out)) {
            if (rs->batched)
                bench_sleep_ns(10000);
            else
                bench_relax();
        }
        sum += out.w[0];
    }
    rs->t_end = bench_ticks();
    rs->sum = sum;
    return NULL;
}

static struct result *ring_stream_policy(bool batched, const char *name)
{
    if (bench_opts.cpus < 2 && !batched) { /* a spinning consumer on the producer's only CPU measures the scheduler */
        struct samples none;
        samples_init(&none, 1);
        struct result *r = bench_record(name, "Mtasks/s", RESULT_LIMIT, &none, 1, "needs two CPUs");
        bench_note(r, "skipped: one CPU");
        samples_free(&none);
        return r;
    }
    struct ring_stream rs;
    memset(&rs, 0, sizeof rs);
    ring_init(&rs.r);
    rs.batched = batched;
    rs.count = bench_opts.quick ? 200000 : 1000000;
    size_t n = bench_iters(11, 3);
    struct samples s;
    samples_init(&s, n);
    double start = bench_now_s();
    for (size_t i = 0; i < n + 1; i++) {
        ck_ring_init(&rs.r.ring, RING_SLOTS);
        pthread_barrier_init(&rs.start, NULL, 2);
        pthread_t p, c;
        pthread_create(&c, NULL, ring_consumer, &rs);
        pthread_create(&p, NULL, ring_producer, &rs);
        pthread_join(p, NULL);
        pthread_join(c, NULL);
        pthread_barrier_destroy(&rs.start);
        if (i > 0) /* the first run warms up */
            samples_add(&s, (double)rs.count / bench_ns(rs.t_end - rs.t_start) * 1e3);
        if (i > 1 && bench_over_budget(start, 3.0))
            break;
    }
    char method[160];
    snprintf(method, sizeof method,
             "%llu records of 64 B per run, producer -> consumer (CPUs 0, 1), ring of 1024, consumer %s",
             (unsigned long long)rs.count, batched ? "sleeps 10 us when empty" : "spins when empty");
    struct result *r = bench_record(name, "Mtasks/s", RESULT_LIMIT, &s, rs.count, method);
    samples_free(&s);
    free(rs.r.slots);
    return r;
}

void limit_ring_stream(void)
{
    struct result *spin = ring_stream_policy(false, "limit_ring_stream_spin");
    struct result *batched = ring_stream_policy(true, "limit_ring_stream_batched");
    /* The ceiling: the better policy, with its figures. */
    struct result *best = !(spin->s.p50 < batched->s.p50) && spin->samples > 0 ? spin : batched;
    struct result *r = bench_record_copy(best, "limit_ring_stream");
    bench_note(r, "the better of limit_ring_stream_spin (p50 %.2f) and limit_ring_stream_batched (p50 %.2f)",
               spin->s.p50, batched->s.p50);
}

/* ------------------------------------------------------------------------
 * Spin ping-pong: the one-way cache-line hand-off.
 * ------------------------------------------------------------------------ */

struct pingpong {
    _Atomic uint64_t line BENCH_ALIGNED;
    size_t n;
    bool stamps;          /* second pass: timestamps on both sides (skew estimate) */
    uint64_t *ping_t0;    /* ping: before its store */
    uint64_t *ping_t1;    /* ping: after it saw the answer */
    uint64_t *pong_seen;  /* pong: when it saw the ping */
    uint64_t *pong_sent;  /* pong: before its store */
    pthread_barrier_t start;
};

static void *pong_main(void *arg)
{
    struct pingpong *pp = arg;
    bench_pin_self(1);
    pthread_barrier_wait(&pp->start);
    for (size_t i = 0; i < pp->n; i++) {
        uint64_t want = 2 * i + 1;
        while (atomic_load_explicit(&pp->line, memory_order_acquire) != want)
            bench_relax();
        if (pp->stamps) {
            pp->pong_seen[i] = bench_ticks();
            pp->pong_sent[i] = bench_ticks();
        }
        atomic_store_explicit(&pp->line, want + 1, memory_order_release);
    }
    return NULL;
}

static void pingpong_run(struct pingpong *pp)
{
    atomic_store(&pp->line, 0);
    pthread_barrier_init(&pp->start, NULL, 2);
    pthread_t pong;
    pthread_create(&pong, NULL, pong_main, pp);
    bench_pin_self(0);
    pthread_barrier_wait(&pp->start);
    for (size_t i = 0; i < pp->n; i++) {
        uint64_t t0 = bench_ticks();
        atomic_store_explicit(&pp->line, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&pp->line, memory_order_acquire) != 2 * i + 2)
            bench_relax();
        uint64_t t1 = bench_ticks();
        pp->ping_t0[i] = t0;
        pp->ping_t1[i] = t1;
    }
    pthread_join(pong, NULL);
    pthread_barrier_destroy(&pp->start);
}

static void *pingpong_thread(void *arg)
{
    pingpong_run(arg);
    return NULL;
}

void limit_handoff(void)
{
    if (bench_opts.cpus < 2) { /* two spinning threads on one CPU measure the scheduler */
        struct samples none;
        samples_init(&none, 1);
        struct result *r = bench_record("limit_handoff_oneway", "ns", RESULT_LIMIT, &none, 1, "needs two CPUs");
        bench_note(r, "skipped: one CPU");
        samples_free(&none);
        return;
    }
    struct pingpong pp;
    memset(&pp, 0, sizeof pp);
    size_t n = bench_iters(200000, 20000);
    size_t warm = n / 10;
    pp.n = n + warm;
    pp.ping_t0 = calloc(pp.n, sizeof(uint64_t));
    pp.ping_t1 = calloc(pp.n, sizeof(uint64_t));
    pp.pong_seen = calloc(pp.n, sizeof(uint64_t));
    pp.pong_sent = calloc(pp.n, sizeof(uint64_t));
    if (!pp.ping_t0 || !pp.ping_t1 || !pp.pong_seen || !pp.pong_sent)
        abort();

    /* Pass 1: round trips, nothing else on the path. The ping side runs on a
       helper thread so that the main thread keeps its own affinity. */
    pthread_t ping;
    pthread_create(&ping, NULL, pingpong_thread, &pp);
    pthread_join(ping, NULL);
    struct samples s;
    samples_init(&s, n);
    for (size_t i = warm; i < pp.n; i++)
        samples_add(&s, bench_op_ns(pp.ping_t0[i], pp.ping_t1[i]) / 2);
    struct result *r = bench_record("limit_handoff_oneway", "ns", RESULT_LIMIT, &s, 1,
                                    "spin ping-pong on one cache line (CPUs 0, 1): round trip / 2");

    /* Pass 2: timestamps on both sides, to estimate how far apart the two
       cores' TSCs are (timestamps of two threads are subtracted elsewhere). */
    pp.stamps = true;
    pthread_create(&ping, NULL, pingpong_thread, &pp);
    pthread_join(ping, NULL);
    struct samples ab, ba;
    samples_init(&ab, n);
    samples_init(&ba, n);
    for (size_t i = warm; i < pp.n; i++) {
        samples_add(&ab, (double)(int64_t)(pp.pong_seen[i] - pp.ping_t0[i]) * bench_ns_per_tick);
        samples_add(&ba, (double)(int64_t)(pp.ping_t1[i] - pp.pong_sent[i]) * bench_ns_per_tick);
    }
    struct summary sab = samples_summarize(&ab), sba = samples_summarize(&ba);
    bench_tsc_skew_ns = (sab.p50 - sba.p50) / 2;
    bench_note(r, "one way by TSC: CPU0->CPU1 %.1f ns, CPU1->CPU0 %.1f ns: TSC skew estimate %.1f ns", sab.p50,
               sba.p50, bench_tsc_skew_ns);
    samples_free(&ab);
    samples_free(&ba);
    samples_free(&s);
    free(pp.ping_t0);
    free(pp.ping_t1);
    free(pp.pong_seen);
    free(pp.pong_sent);
}

/* ------------------------------------------------------------------------
 * Futex ping-pong: both threads sleep while they wait.
 * ------------------------------------------------------------------------ */

struct futex_pp {
    _Atomic uint32_t word BENCH_ALIGNED;
    _Atomic uint64_t wake_start BENCH_ALIGNED; /* ping: just before its FUTEX_WAKE */
    size_t n;
    pthread_barrier_t start;
    struct samples rtt, wakeup, wake_call;
    size_t warm;
    size_t pong_slept;
};

static void futex_wait_for(_Atomic uint32_t *w, uint32_t want, bool *slept)
{
    uint32_t v;
    *slept = false;
    while ((v = atomic_load_explicit(w, memory_order_acquire)) != want)
        if (bench_futex_wait(w, v) == 0)
            *slept = true;
}

static void *futex_pong(void *arg)
{
    struct futex_pp *fp = arg;
    bench_pin_self(1);
    pthread_barrier_wait(&fp->start);
    for (size_t i = 0; i < fp->n; i++) {
        bool slept;
        futex_wait_for(&fp->word, (uint32_t)(2 * i + 1), &slept);
        uint64_t now = bench_ticks();
        if (i >= fp->warm && slept) {
            fp->pong_slept++;
            samples_add(&fp->wakeup, bench_ns(now - atomic_load_explicit(&fp->wake_start, memory_order_relaxed)));
        }
        atomic_store_explicit(&fp->word, (uint32_t)(2 * i + 2), memory_order_release);
        bench_futex_wake(&fp->word, 1);
    }
    return NULL;
}

static void *futex_ping(void *arg)
{
    struct futex_pp *fp = arg;
    bench_pin_self(0);
    pthread_barrier_wait(&fp->start);
    for (size_t i = 0; i < fp->n; i++) {
        uint64_t t0 = bench_ticks();
        atomic_store_explicit(&fp->word, (uint32_t)(2 * i + 1), memory_order_release);
        uint64_t w0 = bench_ticks();
        atomic_store_explicit(&fp->wake_start, w0, memory_order_relaxed);
        long woke = bench_futex_wake(&fp->word, 1);
        uint64_t w1 = bench_ticks();
        bool slept;
        futex_wait_for(&fp->word, (uint32_t)(2 * i + 2), &slept);
        uint64_t t1 = bench_ticks();
        if (i >= fp->warm) {
            samples_add(&fp->rtt, bench_op_ns(t0, t1));
            if (woke == 1)
                samples_add(&fp->wake_call, bench_op_ns(w0, w1));
        }
    }
    return NULL;
}

void limit_futex(void)
{
    struct futex_pp fp;
    memset(&fp, 0, sizeof fp);
    size_t n = bench_iters(20000, 2000);
    fp.warm = n / 10;
    fp.n = n + fp.warm;
    samples_init(&fp.rtt, n);
    samples_init(&fp.wakeup, n);
    samples_init(&fp.wake_call, n);
    pthread_barrier_init(&fp.start, NULL, 2);
    pthread_t a, b;
    pthread_create(&b, NULL, futex_pong, &fp);
    pthread_create(&a, NULL, futex_ping, &fp);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    pthread_barrier_destroy(&fp.start);
    bench_record("limit_futex_roundtrip", "ns", RESULT_LIMIT, &fp.rtt, 1,
                 "futex ping-pong (CPUs 0, 1), both sleep while waiting: round trip");
    struct result *r = bench_record("limit_futex_wakeup", "ns", RESULT_LIMIT, &fp.wakeup, 1,
                                    "one way of the futex ping-pong: before FUTEX_WAKE -> the sleeper runs (TSC on both)");
    bench_note(r, "%zu of %zu wake-ups found the sleeper asleep", fp.pong_slept, n);
    bench_record("limit_futex_wake", "ns", RESULT_LIMIT, &fp.wake_call, 1,
                 "the FUTEX_WAKE syscall that woke one sleeper (returned 1)");
    samples_free(&fp.rtt);
    samples_free(&fp.wakeup);
    samples_free(&fp.wake_call);
}

/*
 * limit_futex_wake_cold: the FUTEX_WAKE call that wakes a thread which has
 * slept for asleep_ns on the runtimes' CPUs (placement), from the harness's
 * CPU: what a launch onto a stream whose executors all sleep pays at least.
 * limit_futex_wake wakes a thread that slept for microseconds, whose CPU
 * may still be polling; after a millisecond the CPU of a sleeper is idle
 * (on a virtual machine, its vCPU halted), and waking it costs more.
 */
struct futex_cold {
    _Atomic uint32_t word, ack;
    size_t n;
};

static void *futex_cold_sleeper(void *arg)
{
    struct futex_cold *fc = arg;
    for (size_t i = 1; i <= fc->n; i++) {
        uint32_t v;
        while ((v = atomic_load_explicit(&fc->word, memory_order_acquire)) != (uint32_t)i)
            bench_futex_wait(&fc->word, v);
        atomic_store_explicit(&fc->ack, (uint32_t)i, memory_order_release);
        bench_futex_wake(&fc->ack, 1);
    }
    return NULL;
}

void limit_futex_wake_cold(void)
{
    struct futex_cold fc;
    memset(&fc, 0, sizeof fc);
    size_t n = bench_iters(400, 40);
    fc.n = n;
    struct samples wake, preempted;
    samples_init(&wake, n);
    samples_init(&preempted, n);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    bench_place_runtime_attr(&attr);
    pthread_t t;
    pthread_create(&t, &attr, futex_cold_sleeper, &fc);
    pthread_attr_destroy(&attr);
    double start = bench_now_s();
    for (size_t i = 1; i <= n; i++) {
        bench_sleep_ns(bench_opts.asleep_ns); /* the sleeper is long asleep */
        atomic_store_explicit(&fc.word, (uint32_t)i, memory_order_release);
        uint64_t switches = bench_thread_nivcsw();
        uint64_t w0 = bench_ticks();
        long woke = bench_futex_wake(&fc.word, 1);
        uint64_t w1 = bench_ticks();
        if (woke == 1 && !bench_over_budget(start, 10.0))
            samples_add(bench_thread_nivcsw() != switches ? &preempted : &wake, bench_op_ns(w0, w1));
        uint32_t v;
        while ((v = atomic_load_explicit(&fc.ack, memory_order_acquire)) != (uint32_t)i)
            bench_futex_wait(&fc.ack, v);
    }
    pthread_join(t, NULL);
    /* The woken thread may preempt the caller where they share a CPU: as first_launch_sleeping, two modes. */
    bench_record_modes("limit_futex_wake_cold", "ns", RESULT_LIMIT, &wake, &preempted,
                       "the FUTEX_WAKE syscall that woke a thread asleep for asleep_ns on the runtimes' CPUs");
    samples_free(&wake);
    samples_free(&preempted);
}
