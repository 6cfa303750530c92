/*
 * bench/report.c - the results: kept in one table, printed as a progress
 * line per case and as a final table, written as JSON (the shape
 * bench/check_results.py checks), CSV (every figure, plus how it was
 * measured and the targets) and gnuplot data files.
 */
#include "bench.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef BENCH_CFLAGS
#define BENCH_CFLAGS "?"
#endif
#ifndef BENCH_GIT
#define BENCH_GIT "?"
#endif

struct result bench_results[BENCH_MAX_RESULTS];
int bench_result_count;

/* ------------------------------------------------------------------------
 * Recording
 * ------------------------------------------------------------------------ */

static struct result *new_result(void)
{
    if (bench_result_count >= BENCH_MAX_RESULTS) {
        fprintf(stderr, "bench: too many results (raise BENCH_MAX_RESULTS)\n");
        exit(2);
    }
    struct result *r = &bench_results[bench_result_count++];
    memset(r, 0, sizeof *r);
    return r;
}

struct result *bench_record_copy(const struct result *from, const char *name)
{
    struct result *r = new_result();
    *r = *from;
    snprintf(r->name, sizeof r->name, "%s", name);
    return r;
}

struct result *bench_record(const char *name, const char *unit, enum result_kind kind, struct samples *s,
                            uint64_t ops_per_sample, const char *method)
{
    struct result *r = new_result();
    snprintf(r->name, sizeof r->name, "%s", name);
    snprintf(r->unit, sizeof r->unit, "%s", unit);
    snprintf(r->method, sizeof r->method, "%s", method);
    r->kind = kind;
    r->s = samples_summarize(s);
    r->samples = s->n;
    r->iterations = (uint64_t)s->n * ops_per_sample;
    return r;
}

/* Enough samples for a p50 that holds still: at least 20, and 5 % of the calls. */
static bool enough_of(size_t n, size_t calls)
{
    return n >= 20 && n >= calls / 20;
}

struct result *bench_record_modes(const char *name, const char *unit, enum result_kind kind, struct samples *own,
                                  struct samples *preempted, const char *method)
{
    char pre_name[64], m[160];
    size_t calls = own->n + preempted->n;
    snprintf(pre_name, sizeof pre_name, "%s_preempted", name);
    struct result *r;
    if (enough_of(own->n, calls) || preempted->n == 0) {
        snprintf(m, sizeof m, "%s; calls no other thread preempted", method);
        r = bench_record(name, unit, kind, own, 1, m);
    } else { /* too few left alone for a figure: the row stays, with every call in it */
        struct samples all;
        samples_init(&all, calls);
        for (size_t i = 0; i < own->n; i++)
            samples_add(&all, own->v[i]);
        for (size_t i = 0; i < preempted->n; i++)
            samples_add(&all, preempted->v[i]);
        snprintf(m, sizeof m, "%s; every call, preempted or not", method);
        r = bench_record(name, unit, kind, &all, 1, m);
        samples_free(&all);
    }
    if (enough_of(preempted->n, calls)) {
        snprintf(m, sizeof m, "%s; calls the woken thread preempted (its run counted)", method);
        bench_record(pre_name, unit, kind, preempted, 1, m);
    }
    bench_note(r, "%zu of %zu calls were preempted by another thread", preempted->n, calls);
    return r;
}

struct result *bench_find(const char *name)
{
    for (int i = 0; i < bench_result_count; i++)
        if (strcmp(bench_results[i].name, name) == 0)
            return &bench_results[i];
    return NULL;
}

void bench_note(struct result *r, const char *fmt, ...)
{
    size_t used = strlen(r->note);
    if (used > 0 && used + 2 < sizeof r->note) {
        strcat(r->note, "; ");
        used += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->note + used, sizeof r->note - used, fmt, ap);
    va_end(ap);
}

void bench_link(const char *name, const char *limit, const char *baseline)
{
    struct result *r = bench_find(name);
    if (r == NULL)
        return;
    snprintf(r->limit, sizeof r->limit, "%s", limit != NULL ? limit : "");
    snprintf(r->baseline, sizeof r->baseline, "%s", baseline != NULL ? baseline : "");
}

static double linked_p50(const char *name)
{
    if (name[0] == '\0')
        return NAN;
    const struct result *o = bench_find(name);
    return o != NULL ? o->s.p50 : NAN;
}

static bool is_throughput(const struct result *r)
{
    return strcmp(r->unit, "Mtasks/s") == 0;
}

/* p50 / limit p50: how many times the floor (latency) or which fraction of the ceiling (throughput). */
static double ratio_limit(const struct result *r)
{
    return r->s.p50 / linked_p50(r->limit);
}

/* How many times better than the baseline: > 1 means aclrt is faster. */
static double speedup(const struct result *r)
{
    double b = linked_p50(r->baseline);
    return is_throughput(r) ? r->s.p50 / b : b / r->s.p50;
}

/* ------------------------------------------------------------------------
 * Text output
 * ------------------------------------------------------------------------ */

static const char *fmt_num(char *buf, size_t n, double v)
{
    if (isnan(v))
        snprintf(buf, n, "-");
    else if (fabs(v) >= 1e6)
        snprintf(buf, n, "%.3g", v);
    else if (fabs(v) >= 100)
        snprintf(buf, n, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, n, "%.1f", v);
    else
        snprintf(buf, n, "%.2f", v);
    return buf;
}

static const char *fmt_ratio(char *buf, size_t n, double v)
{
    if (isnan(v) || isinf(v))
        snprintf(buf, n, "-");
    else if (v >= 100)
        snprintf(buf, n, "%.0fx", v);
    else
        snprintf(buf, n, "%.2fx", v);
    return buf;
}

void bench_progress_line(const struct result *r)
{
    char a[32], b[32], c[32], d[32], e[32];
    printf("  %-38s p50 %8s  p99 %8s %-8s (%llu)", r->name, fmt_num(a, sizeof a, r->s.p50),
           fmt_num(b, sizeof b, r->s.p99), r->unit, (unsigned long long)r->iterations);
    if (r->baseline[0] != '\0')
        printf("  | baseline p50 %s (%s)", fmt_num(c, sizeof c, linked_p50(r->baseline)),
               fmt_ratio(d, sizeof d, speedup(r)));
    if (r->limit[0] != '\0')
        printf("  | limit p50 %s (%s)", fmt_num(e, sizeof e, linked_p50(r->limit)), fmt_ratio(d, sizeof d, ratio_limit(r)));
    printf("\n");
    if (r->note[0] != '\0')
        printf("  %-38s   %s\n", "", r->note);
    fflush(stdout);
}

static void table_row(FILE *f, const struct result *r)
{
    char p50[32], p90[32], p99[32], mx[32], lim[32], rl[32], base[32], sp[32];
    fprintf(f, "%-38s %-8s %10llu %8s %8s %8s %8s | %8s %7s | %8s %7s | %s%s%s\n", r->name, r->unit,
            (unsigned long long)r->iterations, fmt_num(p50, sizeof p50, r->s.p50), fmt_num(p90, sizeof p90, r->s.p90),
            fmt_num(p99, sizeof p99, r->s.p99), fmt_num(mx, sizeof mx, r->s.max),
            fmt_num(lim, sizeof lim, linked_p50(r->limit)), fmt_ratio(rl, sizeof rl, ratio_limit(r)),
            fmt_num(base, sizeof base, linked_p50(r->baseline)), fmt_ratio(sp, sizeof sp, speedup(r)), r->target,
            r->target[0] ? ": " : "", r->target_met);
}

void bench_print_table(FILE *f)
{
    fprintf(f, "\nmachine: %s\n", bench_machine_line());
    fprintf(f, "clock:   %s; clock read %.1f ns\n", bench_clock_desc, bench_clock_cost_ns);
    fprintf(f, "x limit = p50 / limit p50 (latency: times the floor; throughput: fraction of the ceiling)\n");
    fprintf(f, "speedup = how many times better than the naive baseline at p50 (> 1: aclrt is better)\n\n");
    fprintf(f, "%-38s %-8s %10s %8s %8s %8s %8s | %8s %7s | %8s %7s | %s\n", "case", "unit", "iterations", "p50", "p90",
            "p99", "max", "limit", "x limit", "baseline", "speedup", "target");
    const enum result_kind order[] = {RESULT_ACLRT, RESULT_LIMIT, RESULT_CLOCK, RESULT_BASELINE};
    const char *titles[] = {"-- aclrt", "-- physical limits", "-- clock", "-- naive baseline (mutex + condvar + thread per stream)"};
    for (size_t k = 0; k < sizeof order / sizeof order[0]; k++) {
        fprintf(f, "%s\n", titles[k]);
        for (int i = 0; i < bench_result_count; i++)
            if (bench_results[i].kind == order[k])
                table_row(f, &bench_results[i]);
    }
}

/* ------------------------------------------------------------------------
 * Machine
 * ------------------------------------------------------------------------ */

static struct {
    char cpu[128];
    int cpus;
    char kernel[400];
    char compiler[64];
    char date[32];
    double load_start[3], load_end[3];
    double duration_s;
    char line[600];
} machine;

const char *bench_machine_line(void)
{
    return machine.line;
}

void bench_machine_info(void)
{
    snprintf(machine.cpu, sizeof machine.cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f != NULL) {
        char line[512];
        while (fgets(line, sizeof line, f) != NULL) {
            if (strncmp(line, "model name", 10) == 0 && strchr(line, ':') != NULL) {
                char *v = strchr(line, ':') + 1;
                while (*v == ' ' || *v == '\t')
                    v++;
                v[strcspn(v, "\n")] = '\0';
                snprintf(machine.cpu, sizeof machine.cpu, "%s", v);
                break;
            }
        }
        fclose(f);
    }
    machine.cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(machine.kernel, sizeof machine.kernel, "%s %s %s (%s)", u.sysname, u.release, u.machine, u.version);
#if defined(__clang__)
    snprintf(machine.compiler, sizeof machine.compiler, "clang %d.%d.%d", __clang_major__, __clang_minor__,
             __clang_patchlevel__);
#elif defined(__GNUC__)
    snprintf(machine.compiler, sizeof machine.compiler, "gcc %d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
    snprintf(machine.compiler, sizeof machine.compiler, "unknown C compiler");
#endif
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(machine.date, sizeof machine.date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    if (getloadavg(machine.load_start, 3) != 3)
        machine.load_start[0] = machine.load_start[1] = machine.load_start[2] = NAN;
    char release[200] = "";
    if (uname(&u) == 0)
        snprintf(release, sizeof release, "%s %s", u.sysname, u.release);
    snprintf(machine.line, sizeof machine.line, "%s, %d CPUs, %s, %s, -O2", machine.cpu, machine.cpus, release,
             machine.compiler);
}

void bench_machine_finish(void)
{
    if (getloadavg(machine.load_end, 3) != 3)
        machine.load_end[0] = machine.load_end[1] = machine.load_end[2] = NAN;
    machine.duration_s = bench_now_s() - bench_opts.started_s;
}

/* ------------------------------------------------------------------------
 * JSON
 * ------------------------------------------------------------------------ */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fprintf(f, "null");
    else
        fprintf(f, "%.6g", v);
}

bool bench_write_json(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        return false;
    }
    fprintf(f, "{\n  \"machine\": {\n    \"line\": ");
    json_str(f, machine.line);
    fprintf(f, ",\n    \"cpu\": ");
    json_str(f, machine.cpu);
    fprintf(f, ",\n    \"cores\": %d,\n    \"kernel\": ", machine.cpus);
    json_str(f, machine.kernel);
    fprintf(f, ",\n    \"compiler\": ");
    json_str(f, machine.compiler);
    fprintf(f, ",\n    \"cflags\": ");
    json_str(f, BENCH_CFLAGS);
    fprintf(f, ",\n    \"git_commit\": ");
    const char *git = getenv("BENCH_GIT"); /* set by bench.mk at run time */
    json_str(f, git != NULL && git[0] != '\0' ? git : BENCH_GIT);
    fprintf(f, ",\n    \"date_utc\": ");
    json_str(f, machine.date);
    fprintf(f, ",\n    \"clock\": ");
    json_str(f, bench_clock_desc);
    fprintf(f, ",\n    \"tsc_ghz\": ");
    json_num(f, 1.0 / bench_ns_per_tick);
    fprintf(f, ",\n    \"clock_cost_ns\": ");
    json_num(f, bench_clock_cost_ns);
    fprintf(f, ",\n    \"tsc_skew_ns_estimate\": ");
    json_num(f, bench_tsc_skew_ns);
    fprintf(f, ",\n    \"pinning\": ");
    json_str(f, bench_opts.harness_cpus[0] != '\0'
                    ? "limit threads pinned to CPUs 0 and 1; the harness's threads on harness_cpus, aclrt's "
                      "threads and the baseline's workers on runtime_cpus"
                    : "limit threads pinned to CPUs 0 and 1; nothing else pinned");
    fprintf(f, ",\n    \"placement\": ");
    json_str(f, bench_opts.placement);
    fprintf(f, ",\n    \"harness_cpus\": ");
    json_str(f, bench_opts.harness_cpus);
    fprintf(f, ",\n    \"runtime_cpus\": ");
    json_str(f, bench_opts.runtime_cpus);
    fprintf(f, ",\n    \"aclrt_executors\": %d,\n    \"aclrt_spin_ns\": %llu,\n    \"asleep_wait_ns\": %llu",
            bench_opts.executors, (unsigned long long)bench_opts.spin_ns, (unsigned long long)bench_opts.asleep_ns);
    fprintf(f, ",\n    \"loadavg_start\": [");
    for (int i = 0; i < 3; i++) {
        json_num(f, machine.load_start[i]);
        fprintf(f, i < 2 ? ", " : "]");
    }
    fprintf(f, ",\n    \"loadavg_end\": [");
    for (int i = 0; i < 3; i++) {
        json_num(f, machine.load_end[i]);
        fprintf(f, i < 2 ? ", " : "]");
    }
    fprintf(f, ",\n    \"duration_s\": ");
    json_num(f, machine.duration_s);
    fprintf(f, "\n  },\n  \"quick\": %s,\n  \"cases\": [\n", bench_opts.quick ? "true" : "false");
    for (int i = 0; i < bench_result_count; i++) {
        const struct result *r = &bench_results[i];
        fprintf(f, "    {\"name\": ");
        json_str(f, r->name);
        fprintf(f, ", \"unit\": ");
        json_str(f, r->unit);
        fprintf(f, ", \"iterations\": %llu, \"p50\": ", (unsigned long long)r->iterations);
        json_num(f, r->s.p50);
        fprintf(f, ", \"p90\": ");
        json_num(f, r->s.p90);
        fprintf(f, ", \"p99\": ");
        json_num(f, r->s.p99);
        fprintf(f, ", \"max\": ");
        json_num(f, r->s.max);
        fprintf(f, ", \"limit_p50\": ");
        json_num(f, linked_p50(r->limit));
        fprintf(f, ", \"baseline_p50\": ");
        json_num(f, linked_p50(r->baseline));
        fprintf(f, "}%s\n", i + 1 < bench_result_count ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return fclose(f) == 0;
}

/* ------------------------------------------------------------------------
 * CSV: one row per result, every figure, plus how it was measured.
 * ------------------------------------------------------------------------ */

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double v)
{
    if (!isnan(v) && !isinf(v))
        fprintf(f, "%.6g", v);
}

bool bench_write_csv(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        return false;
    }
    static const char *kinds[] = {"aclrt", "baseline", "limit", "clock"};
    fprintf(f, "name,kind,unit,iterations,samples,p50,p90,p99,max,min,mean,limit,limit_p50,x_limit,baseline,"
               "baseline_p50,speedup_vs_baseline,target,target_met,method,note,quick,machine\n");
    for (int i = 0; i < bench_result_count; i++) {
        const struct result *r = &bench_results[i];
        csv_str(f, r->name);
        fprintf(f, ",%s,", kinds[r->kind]);
        csv_str(f, r->unit);
        fprintf(f, ",%llu,%llu,", (unsigned long long)r->iterations, (unsigned long long)r->samples);
        const double v[] = {r->s.p50, r->s.p90, r->s.p99, r->s.max, r->s.min, r->s.mean};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
            csv_num(f, v[k]);
            fputc(',', f);
        }
        csv_str(f, r->limit);
        fputc(',', f);
        csv_num(f, linked_p50(r->limit));
        fputc(',', f);
        csv_num(f, ratio_limit(r));
        fputc(',', f);
        csv_str(f, r->baseline);
        fputc(',', f);
        csv_num(f, linked_p50(r->baseline));
        fputc(',', f);
        csv_num(f, speedup(r));
        fputc(',', f);
        csv_str(f, r->target);
        fputc(',', f);
        csv_str(f, r->target_met);
        fputc(',', f);
        csv_str(f, r->method);
        fputc(',', f);
        csv_str(f, r->note);
        fprintf(f, ",%s,", bench_opts.quick ? "true" : "false");
        csv_str(f, machine.line);
        fputc('\n', f);
    }
    return fclose(f) == 0;
}

/* ------------------------------------------------------------------------
 * gnuplot data (read by bench/plot.gp)
 * ------------------------------------------------------------------------ */

static void dat_num(FILE *f, double v)
{
    if (isnan(v) || isinf(v))
        fprintf(f, " NaN");
    else
        fprintf(f, " %.6g", v);
}

static double p_of(const char *name, int which)
{
    const struct result *r = bench_find(name);
    if (r == NULL)
        return NAN;
    switch (which) {
    case 50: return r->s.p50;
    case 90: return r->s.p90;
    case 99: return r->s.p99;
    default: return r->s.max;
    }
}

static void dat_pair(FILE *f, const char *name, int which)
{
    char b[96];
    snprintf(b, sizeof b, "baseline_%s", name);
    dat_num(f, p_of(name, which));
    dat_num(f, p_of(b, which));
}

bool bench_write_plot_data(const char *dir)
{
    static const char *latency_cases[] = {
        "query_event_status", "record_event",       "sync_finished_stream",      "launch_host_func",
        "launch_host_kernel", "launch_to_complete", "first_launch_sleeping",     "launch_to_complete_asleep",
        "cross_stream_hot",   "cross_stream_asleep",
    };
    char path[512];
    snprintf(path, sizeof path, "%s/latency.dat", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        perror(path);
        return false;
    }
    fprintf(f, "# i name aclrt_p50 aclrt_p90 aclrt_p99 aclrt_max base_p50 base_p90 base_p99 base_max limit_p50\n");
    for (size_t i = 0; i < sizeof latency_cases / sizeof latency_cases[0]; i++) {
        const char *n = latency_cases[i];
        const struct result *r = bench_find(n);
        char b[96];
        snprintf(b, sizeof b, "baseline_%s", n);
        fprintf(f, "%zu %s", i, n);
        const int w[] = {50, 90, 99, 0};
        for (int k = 0; k < 4; k++)
            dat_num(f, p_of(n, w[k]));
        for (int k = 0; k < 4; k++)
            dat_num(f, p_of(b, w[k]));
        dat_num(f, r != NULL ? linked_p50(r->limit) : NAN);
        fputc('\n', f);
    }
    fclose(f);

    snprintf(path, sizeof path, "%s/streams.dat", dir);
    if ((f = fopen(path, "w")) == NULL) {
        perror(path);
        return false;
    }
    fprintf(f, "# streams tput(aclrt base) launch_p50(aclrt base) l2c_p50(aclrt base) l2c_p99(aclrt base)\n");
    for (int i = 0; i < bench_stream_count_n; i++) {
        char a[96], l[96], c[96];
        int n = bench_stream_counts[i];
        snprintf(a, sizeof a, "throughput_streams_%d", n);
        snprintf(l, sizeof l, "launch_host_func_streams_%d", n);
        snprintf(c, sizeof c, "launch_to_complete_streams_%d", n);
        fprintf(f, "%d", n);
        dat_pair(f, a, 50);
        dat_pair(f, l, 50);
        dat_pair(f, c, 50);
        dat_pair(f, c, 99);
        fputc('\n', f);
    }
    fclose(f);

    snprintf(path, sizeof path, "%s/threads.dat", dir);
    if ((f = fopen(path, "w")) == NULL) {
        perror(path);
        return false;
    }
    fprintf(f, "# threads tput_own(aclrt base) tput_shared(aclrt base) launch_p50(aclrt base) l2c_p50(aclrt base) "
               "l2c_p99(aclrt base)\n");
    for (int i = 0; i < bench_thread_count_n; i++) {
        char a[96], s[96], l[96], c[96];
        int n = bench_thread_counts[i];
        snprintf(a, sizeof a, "throughput_threads_%d", n);
        snprintf(s, sizeof s, "throughput_shared_stream_threads_%d", n);
        snprintf(l, sizeof l, "launch_host_func_threads_%d", n);
        snprintf(c, sizeof c, "launch_to_complete_threads_%d", n);
        fprintf(f, "%d", n);
        dat_pair(f, a, 50);
        dat_pair(f, s, 50);
        dat_pair(f, l, 50);
        dat_pair(f, c, 50);
        dat_pair(f, c, 99);
        fputc('\n', f);
    }
    fclose(f);
    return true;
}
