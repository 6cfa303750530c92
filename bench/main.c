/*
 * bench/main.c - the benchmark harness of aclrt.
 *
 *   aclrt-bench [--quick] [--out DIR] [--data DIR] [--only SUBSTRING[,SUBSTRING...]] [--list]
 *
 * Runs the case table below in order: the clock and the physical limits
 * first, then every aclrt case immediately followed by the same case on the
 * naive baseline, so that each figure and its counterparts come from the
 * same run, minutes apart at most. Writes DIR/latest.json and
 * DIR/latest.csv, and the gnuplot data (--data, default DIR).
 *
 * Adding a case: write `void case_x(const struct rt *rt)` (it records its
 * results with bench_record), add a row to `cases`, a rule to `limit_rules`
 * if a physical limit applies, and a row to `targets` if the case has a
 * performance target (docs/PERFORMANCE.md, "Gap to each performance target").
 */
#include "bench.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

struct bench_opts bench_opts;

/* ------------------------------------------------------------------------
 * The cases, in running order. A row has either `limit` (runs once) or
 * `run` (runs on aclrt, then on the baseline).
 * ------------------------------------------------------------------------ */

struct bench_case {
    const char *name;
    void (*limit)(void);
    void (*run)(const struct rt *rt);
};

static const struct bench_case cases[] = {
    {"clock_read", limit_clock, NULL},
    {"limit_atomic_inc", limit_atomic_inc, NULL},
    {"limit_ring_op", limit_ring_op, NULL},
    {"limit_handoff_oneway", limit_handoff, NULL},
    {"limit_futex", limit_futex, NULL},
    {"limit_futex_wake_cold", limit_futex_wake_cold, NULL},
    {"limit_ring_stream", limit_ring_stream, NULL},
    {"query_event_status", NULL, case_query_event_status},
    {"record_event", NULL, case_record_event},
    {"sync_finished_stream", NULL, case_sync_finished_stream},
    {"launch_host_func", NULL, case_launch_host_func},
    {"launch_host_kernel", NULL, case_launch_host_kernel},
    {"launch_kernel", NULL, case_launch_kernel},
    {"launch_kernel_args", NULL, case_launch_kernel_args},
    {"launch_to_complete", NULL, case_launch_to_complete},
    {"first_launch_sleeping", NULL, case_first_launch_sleeping},
    {"cross_stream_hot", NULL, case_cross_stream_hot},
    {"cross_stream_asleep", NULL, case_cross_stream_asleep},
    {"throughput_one_stream", NULL, case_throughput_one_stream},
    {"scaling_streams", NULL, case_scaling_streams},
    {"scaling_threads", NULL, case_scaling_threads},
    {"shared_stream_launchers", NULL, case_shared_stream_launchers},
    {"callback_round_trip", NULL, case_callback_round_trip},
    {"notify_release_hot", NULL, case_notify_release_hot},
    {"value_release_hot", NULL, case_value_release_hot},
    {"value_foreign_poll", NULL, case_value_foreign_poll},
    {"ipc_event_release", NULL, case_ipc_event_release},
    {"model_replay_100", NULL, case_model_replay},
};

/* Which physical limit an aclrt result is compared with: first matching prefix. */
static const struct {
    const char *prefix;
    const char *limit;
} limit_rules[] = {
    {"query_event_status", "limit_atomic_inc"},
    {"record_event", "limit_atomic_inc"},
    {"launch_host_func", "limit_ring_op"},
    {"launch_host_kernel", "limit_ring_op"},
    {"launch_kernel", "limit_ring_op"},
    {"launch_to_complete_asleep", "limit_futex_wakeup"},
    {"launch_to_complete", "limit_handoff_oneway"},
    {"first_launch_sleeping", "limit_futex_wake_cold"},
    {"cross_stream_hot", "limit_handoff_oneway"},
    {"cross_stream_asleep", "limit_futex_roundtrip"},
    {"callback", "limit_handoff_oneway"},
    {"notify_release_hot", "limit_handoff_oneway"},
    {"value_release_hot", "limit_handoff_oneway"},
    {"ipc_event_release_hot", "limit_handoff_oneway"},
    {"ipc_event_release_local_hot", "limit_handoff_oneway"},
    {"ipc_event_release_asleep", "limit_futex_wakeup"},
    {"ipc_event_release_local_asleep", "limit_futex_wakeup"},
    {"throughput", "limit_ring_stream"},
};

/* ------------------------------------------------------------------------
 * The performance targets (informational: nothing fails on them): absolute
 * p50s for the calls that stay on one thread (and a floor for thousands of
 * launching threads), multiples of a physical limit of the same run
 * (hand-off, futex, bare ring) for the others, and 10x the naive baseline.
 * ------------------------------------------------------------------------ */

enum target_kind { P50_AT_MOST, P50_AT_LEAST, X_LIMIT_AT_MOST, X_LIMIT_AT_LEAST, SPEEDUP_AT_LEAST };

static const struct {
    const char *name;
    enum target_kind kind;
    double value;
    const char *text;
} targets[] = {
    {"query_event_status", P50_AT_MOST, 5, "p50 <= 5 ns"},
    {"query_event_status", X_LIMIT_AT_MOST, 2, "p50 <= 2 x one atomic increment"},
    {"record_event", P50_AT_MOST, 25, "p50 <= 25 ns"},
    {"launch_host_func", P50_AT_MOST, 30, "p50 <= 30 ns"},
    {"first_launch_sleeping", X_LIMIT_AT_MOST, 1.5, "<= 1 futex wake (p50 <= 1.5 x FUTEX_WAKE of a cold sleeper)"},
    {"cross_stream_hot", X_LIMIT_AT_MOST, 3, "p50 <= 3 x one-way hand-off"},
    {"cross_stream_asleep", X_LIMIT_AT_MOST, 1.5, "p50 <= 1.5 x futex round trip"},
    {"notify_release_hot", X_LIMIT_AT_MOST, 3, "p50 <= 3 x one-way hand-off (as cross_stream_hot)"},
    {"value_release_hot", X_LIMIT_AT_MOST, 3, "p50 <= 3 x one-way hand-off (as cross_stream_hot)"},
    {"sync_finished_stream", P50_AT_MOST, 10, "p50 <= 10 ns"},
    {"throughput_one_stream", X_LIMIT_AT_LEAST, 0.7, ">= 0.7 x bare ck_ring stream"},
    {"shared_stream_launchers_2000x100", P50_AT_LEAST, 1, "p50 >= 1 Mtasks/s"},
    {"query_event_status", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"record_event", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"launch_host_func", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"launch_host_kernel", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"sync_finished_stream", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"launch_to_complete", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"first_launch_sleeping", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"cross_stream_hot", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
    {"cross_stream_asleep", SPEEDUP_AT_LEAST, 10, ">= 10 x baseline"},
};

static void link_result(struct result *r)
{
    if (r->kind != RESULT_ACLRT)
        return;
    char base[96];
    snprintf(base, sizeof base, "baseline_%s", r->name);
    const char *limit = NULL;
    for (size_t i = 0; i < sizeof limit_rules / sizeof limit_rules[0] && limit == NULL; i++)
        if (strncmp(r->name, limit_rules[i].prefix, strlen(limit_rules[i].prefix)) == 0)
            limit = limit_rules[i].limit;
    bench_link(r->name, limit, bench_find(base) != NULL ? base : NULL);
}

/* --targets: the table above, one per line (name, kind, value, text), for bench/repeat.py. */
static void print_targets(void)
{
    static const char *kinds[] = {"p50_at_most", "p50_at_least", "x_limit_at_most", "x_limit_at_least",
                                  "speedup_at_least"};
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        printf("%s\t%s\t%g\t%s\n", targets[i].name, kinds[targets[i].kind], targets[i].value, targets[i].text);
}

static void evaluate_targets(FILE *out)
{
    fprintf(out, "\nPerformance targets (informational; the harness never fails on timing):\n");
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
        struct result *r = bench_find(targets[i].name);
        if (r == NULL)
            continue;
        double lim = NAN, base = NAN, v = NAN;
        const struct result *o;
        if (r->limit[0] != '\0' && (o = bench_find(r->limit)) != NULL)
            lim = o->s.p50;
        if (r->baseline[0] != '\0' && (o = bench_find(r->baseline)) != NULL)
            base = o->s.p50;
        bool met = false;
        switch (targets[i].kind) {
        case P50_AT_MOST: v = r->s.p50; met = v <= targets[i].value; break;
        case P50_AT_LEAST: v = r->s.p50; met = v >= targets[i].value; break;
        case X_LIMIT_AT_MOST: v = r->s.p50 / lim; met = v <= targets[i].value; break;
        case X_LIMIT_AT_LEAST: v = r->s.p50 / lim; met = v >= targets[i].value; break;
        case SPEEDUP_AT_LEAST:
            v = strcmp(r->unit, "Mtasks/s") == 0 ? r->s.p50 / base : base / r->s.p50;
            met = v >= targets[i].value;
            break;
        }
        const char *verdict = isnan(v) ? "n/a" : met ? "met" : "NOT met";
        char value[48];
        if (targets[i].kind == P50_AT_MOST || targets[i].kind == P50_AT_LEAST)
            snprintf(value, sizeof value, "%.2f %s", v, r->unit);
        else
            snprintf(value, sizeof value, "%.2fx", v);
        fprintf(out, "  %-24s %-44s %12s  %s\n", targets[i].name, targets[i].text, value, verdict);
        size_t used = strlen(r->target);
        snprintf(r->target + used, sizeof r->target - used, "%s%s", used ? "; " : "", targets[i].text);
        used = strlen(r->target_met);
        snprintf(r->target_met + used, sizeof r->target_met - used, "%s%s", used ? "; " : "", verdict);
    }
}

/* ------------------------------------------------------------------------
 * Options, budgets, watchdog
 * ------------------------------------------------------------------------ */

size_t bench_iters(size_t full, size_t min)
{
    if (!bench_opts.quick)
        return full;
    size_t q = full / 10;
    return q < min ? min : q;
}

bool bench_over_budget(double start_s, double seconds)
{
    return bench_now_s() - start_s > (bench_opts.quick ? seconds / 5 : seconds);
}

const char *bench_name(const struct rt *rt, const char *name)
{
    static _Thread_local char buf[96];
    snprintf(buf, sizeof buf, "%s%s", rt->prefix, name);
    return buf;
}

static struct {
    pthread_mutex_t mu;
    char name[96];
    double since;
} watch = {PTHREAD_MUTEX_INITIALIZER, "", 0};

void bench_watchdog_case(const char *name)
{
    pthread_mutex_lock(&watch.mu);
    snprintf(watch.name, sizeof watch.name, "%s", name);
    watch.since = bench_now_s();
    pthread_mutex_unlock(&watch.mu);
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    bench_set_thread_name("bench-watchdog");
    const double limit = 180; /* no variant comes close: a case this long has hung */
    for (;;) {
        bench_sleep_ns(200000000ull);
        pthread_mutex_lock(&watch.mu);
        bool hung = watch.since > 0 && bench_now_s() - watch.since > limit;
        pthread_mutex_unlock(&watch.mu);
        if (hung) {
            fprintf(stderr, "\nbench: case '%s' has run for more than %.0f s: it hangs. Giving up.\n", watch.name, limit);
            fflush(NULL);
            _exit(3);
        }
    }
    return NULL;
}

void bench_watchdog_start(void)
{
    pthread_t t;
    pthread_create(&t, NULL, watchdog_main, NULL);
    pthread_detach(t);
}

static void scaling_points(void)
{
    static const int streams_full[] = {1, 4, 16, 64, 256, 1000};
    static const int streams_quick[] = {1, 16, 1000};
    const int *sp = bench_opts.quick ? streams_quick : streams_full;
    int sn = bench_opts.quick ? 3 : 6;
    for (int i = 0; i < sn; i++)
        bench_stream_counts[bench_stream_count_n++] = sp[i];
    /* Launching threads: 1 .. 2 x CPUs: powers of two, and CPUs, CPUs + 1, 2 x CPUs (where it bends). */
    int max = 2 * bench_opts.cpus;
    if (bench_opts.quick) {
        bench_thread_counts[bench_thread_count_n++] = 1;
        if (max > 1)
            bench_thread_counts[bench_thread_count_n++] = max;
        return;
    }
    for (int t = 1; t <= max && bench_thread_count_n < 16; t++) {
        bool pow2 = (t & (t - 1)) == 0;
        if (pow2 || t == bench_opts.cpus || t == bench_opts.cpus + 1 || t == max)
            bench_thread_counts[bench_thread_count_n++] = t;
    }
}

static void usage(void)
{
    fprintf(stderr, "usage: aclrt-bench [--quick] [--placement free|one|two] [--out DIR] [--data DIR] "
                    "[--only SUBSTRING[,SUBSTRING...]] [--list] [--targets]\n");
    exit(2);
}

/* Does `name` contain one of the comma-separated substrings of `list`? */
static bool names_match(const char *name, const char *list)
{
    for (const char *p = list; *p != '\0'; p += *p == ',') {
        size_t n = strcspn(p, ",");
        char item[64];
        snprintf(item, sizeof item, "%.*s", (int)n, p);
        if (n > 0 && strstr(name, item) != NULL)
            return true;
        p += n;
    }
    return false;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--ipc-peer") == 0) /* the second process of cases_ipc.c */
        return bench_ipc_peer_main(argc, argv);
    const char *out = "bench/results", *data = NULL, *only = NULL, *placement = "free";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0)
            bench_opts.quick = true;
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
            out = argv[++i];
        else if (strcmp(argv[i], "--data") == 0 && i + 1 < argc)
            data = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
        else if (strcmp(argv[i], "--placement") == 0 && i + 1 < argc)
            placement = argv[++i];
        else if (strcmp(argv[i], "--targets") == 0) {
            print_targets();
            return 0;
        }
        else if (strcmp(argv[i], "--list") == 0) {
            for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
                printf("%s\n", cases[c].name);
            return 0;
        } else
            usage();
    }
    if (data == NULL)
        data = out;
    mkdir(out, 0777);
    mkdir(data, 0777);

    bench_opts.started_s = bench_now_s();
    bench_opts.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (!bench_placement_init(placement)) {
        fprintf(stderr, "aclrt-bench: placement \"%s\": expected free, one or two (two needs 2 CPUs)\n", placement);
        return 2;
    }
    const char *spin = getenv("ACLRT_SPIN_NS");
    bench_opts.spin_ns = spin != NULL && spin[0] != '\0' ? strtoull(spin, NULL, 10) : 20000;
    bench_opts.asleep_ns = 50 * bench_opts.spin_ns > 1000000 ? 50 * bench_opts.spin_ns : 1000000;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* short sleeps sleep short */
    bench_set_thread_name("bench-main");
    scaling_points();
    bench_clock_init();
    bench_machine_info();
    bench_watchdog_start();

    rt_aclrt.start();
    int total = 0, asleep = 0;
    bench_sleep_ns(bench_opts.asleep_ns);
    bench_threads_asleep(rt_aclrt.thread_prefix, &total, &asleep);
    bench_opts.executors = total;

    printf("aclrt benchmark%s: %s\n", bench_opts.quick ? " (QUICK: a short smoke run, not for figures)" : "",
           bench_machine_line());
    printf("clock: %s; one read costs %.1f ns\n", bench_clock_desc, bench_clock_cost_ns);
    printf("aclrt: %d executors, spin_ns %llu; asleep cases wait %.1f ms\n", bench_opts.executors,
           (unsigned long long)bench_opts.spin_ns, (double)bench_opts.asleep_ns / 1e6);
    if (bench_opts.harness_cpus[0] != '\0')
        printf("placement: %s (harness on CPU %s, runtimes on CPU %s)\n\n", bench_opts.placement,
               bench_opts.harness_cpus, bench_opts.runtime_cpus);
    else
        printf("placement: free (the scheduler places every thread)\n\n");
    fflush(stdout);

    size_t ncases = sizeof cases / sizeof cases[0];
    for (size_t c = 0; c < ncases; c++) {
        if (only != NULL && !names_match(cases[c].name, only) && strncmp(cases[c].name, "limit", 5) != 0 &&
            strcmp(cases[c].name, "clock_read") != 0)
            continue;
        double t0 = bench_now_s();
        int first = bench_result_count;
        printf("[%2zu/%zu] %s\n", c + 1, ncases, cases[c].name);
        fflush(stdout);
        if (cases[c].limit != NULL) {
            bench_watchdog_case(cases[c].name);
            cases[c].limit();
        } else {
            bench_watchdog_case(cases[c].name);
            cases[c].run(&rt_aclrt);
            bench_watchdog_case(cases[c].name);
            cases[c].run(&rt_naive);
        }
        bench_place_harness(); /* a limit pins the main thread to a CPU of its own */
        for (int i = first; i < bench_result_count; i++)
            link_result(&bench_results[i]);
        for (int i = first; i < bench_result_count; i++)
            if (bench_results[i].kind != RESULT_BASELINE)
                bench_progress_line(&bench_results[i]);
        printf("         (%.1f s)\n", bench_now_s() - t0);
        fflush(stdout);
    }
    bench_watchdog_case("finishing");
    rt_aclrt.stop();
    bench_machine_finish();

    evaluate_targets(stdout);
    bench_print_table(stdout);

    char path[1024];
    bool ok = true;
    snprintf(path, sizeof path, "%s/latest.json", out);
    ok &= bench_write_json(path);
    printf("\nwrote %s", path);
    snprintf(path, sizeof path, "%s/latest.csv", out);
    ok &= bench_write_csv(path);
    printf(", %s", path);
    ok &= bench_write_plot_data(data);
    printf(" and plot data in %s/ (%.0f s in all)\n", data, bench_now_s() - bench_opts.started_s);
    return ok ? 0 : 1;
}
