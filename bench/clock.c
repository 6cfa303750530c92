/*
 * bench/clock.c - the harness's clock.
 *
 * x86: the time-stamp counter (rdtsc between lfences), calibrated against
 * CLOCK_MONOTONIC over 50 ms. The TSC should be invariant (constant_tsc and
 * nonstop_tsc in /proc/cpuinfo; a warning says so otherwise): then it ticks
 * at one rate on every core and timestamps taken on two threads can be
 * subtracted (limits.c also estimates the skew between two cores). Other
 * architectures: CLOCK_MONOTONIC itself (vDSO, ~20 ns a read).
 *
 * The clock's own cost (two back-to-back reads) is measured here and taken
 * off every single-operation interval (bench_op_ns); it is also reported as
 * the result `clock_read`. Sub-25 ns operations are not timed one by one but
 * in batches (time K calls, divide by K), where this cost is negligible.
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>

double bench_ns_per_tick = 1.0;
double bench_clock_cost_ns;
uint64_t bench_clock_cost_ticks;
char bench_clock_desc[160];

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

double bench_now_s(void)
{
    return (double)mono_ns() / 1e9;
}

#if defined(__x86_64__) || defined(__i386__)
static bool cpu_flag(const char *flag)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL)
        return false;
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        for (char *tok = strtok(strchr(line, ':') + 1, " \t\n"); tok != NULL; tok = strtok(NULL, " \t\n"))
            if (strcmp(tok, flag) == 0)
                found = true;
        break;
    }
    fclose(f);
    return found;
}

/* A (tsc, monotonic) pair taken as close together as we can: the tightest of 20 tries. */
static void tsc_mono_pair(uint64_t *tsc, uint64_t *mono)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 20; i++) {
        uint64_t a = bench_ticks();
        uint64_t m = mono_ns();
        uint64_t b = bench_ticks();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *mono = m;
        }
    }
}
#endif

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

void bench_clock_init(void)
{
#if defined(__x86_64__) || defined(__i386__)
    bool invariant = cpu_flag("constant_tsc") && cpu_flag("nonstop_tsc");
    if (!invariant)
        fprintf(stderr, "bench: warning: the TSC is not flagged invariant (constant_tsc, nonstop_tsc); "
                        "figures that subtract timestamps of two threads may be off\n");
    uint64_t t0, m0, t1, m1;
    tsc_mono_pair(&t0, &m0);
    uint64_t end = m0 + 50000000ull; /* 50 ms */
    while (mono_ns() < end)
        bench_relax();
    tsc_mono_pair(&t1, &m1);
    bench_ns_per_tick = (double)(m1 - m0) / (double)(t1 - t0);
    snprintf(bench_clock_desc, sizeof bench_clock_desc,
             "rdtsc between lfences, %s TSC at %.4f GHz calibrated against CLOCK_MONOTONIC over 50 ms",
             invariant ? "invariant" : "NOT invariant", 1.0 / bench_ns_per_tick);
#else
    bench_ns_per_tick = 1.0;
    snprintf(bench_clock_desc, sizeof bench_clock_desc, "clock_gettime(CLOCK_MONOTONIC)");
#endif
    /* The clock's own cost: median of back-to-back pairs. */
    enum { N = 20001 };
    uint64_t *d = malloc(N * sizeof *d);
    if (d == NULL)
        abort();
    for (int i = 0; i < N; i++) {
        uint64_t a = bench_ticks();
        uint64_t b = bench_ticks();
        d[i] = b - a;
    }
    qsort(d, N, sizeof *d, cmp_u64);
    bench_clock_cost_ticks = d[N / 2];
    bench_clock_cost_ns = bench_ns(bench_clock_cost_ticks);
    free(d);
}
