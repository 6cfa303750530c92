/*
 * bench/sys.c - threads and the OS: pinning, sleeping, futexes, starting
 * threads, and reading from /proc whether a runtime's threads are asleep.
 */
#include "bench.h"

#include <dirent.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

void bench_pin_self(int cpu)
{
    if (cpu < 0 || cpu >= bench_opts.cpus)
        return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set); /* best effort (cgroups may refuse) */
}

static cpu_set_t harness_set, runtime_set;
static bool placed; /* a placement other than "free" */

/* A CPU set as text: "0", "1-3,6". */
static void cpu_list(const cpu_set_t *set, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE && len < cap; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int end = c;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, set))
            end++;
        len += (size_t)(end > c ? snprintf(out + len, cap - len, "%s%d-%d", len ? "," : "", c, end)
                                : snprintf(out + len, cap - len, "%s%d", len ? "," : "", c));
        c = end;
    }
}

/* Placement `one`: the harness's threads and the runtime's share one CPU (set once, before any thread starts). */
static bool bench_one_cpu;

bool bench_placement_init(const char *name)
{
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        return false;
    int first = 0;
    while (first < CPU_SETSIZE && !CPU_ISSET(first, &allowed))
        first++;
    harness_set = allowed;
    runtime_set = allowed;
    if (strcmp(name, "one") == 0 || strcmp(name, "two") == 0) {
        CPU_ZERO(&harness_set);
        CPU_SET(first, &harness_set);
        if (strcmp(name, "one") == 0) {
            runtime_set = harness_set;
            bench_one_cpu = true;
        } else {
            CPU_CLR(first, &runtime_set);
            if (CPU_COUNT(&runtime_set) == 0)
                return false; /* one CPU: no second one for the runtime */
        }
        placed = true;
    } else if (strcmp(name, "free") != 0) {
        return false;
    }
    snprintf(bench_opts.placement, sizeof bench_opts.placement, "%s", name);
    if (placed) {
        cpu_list(&harness_set, bench_opts.harness_cpus, sizeof bench_opts.harness_cpus);
        cpu_list(&runtime_set, bench_opts.runtime_cpus, sizeof bench_opts.runtime_cpus);
        setenv("ACLRT_CPUS", bench_opts.runtime_cpus, 1);
    }
    bench_place_harness();
    return true;
}

void bench_place_harness(void)
{
    /* "free" puts the caller back on every CPU too: a limit may have pinned it. */
    pthread_setaffinity_np(pthread_self(), sizeof harness_set, &harness_set); /* best effort */
}

void bench_place_runtime_attr(void *pthread_attr)
{
    if (placed)
        pthread_attr_setaffinity_np((pthread_attr_t *)pthread_attr, sizeof runtime_set, &runtime_set);
}

void bench_sleep_ns(uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

void bench_spin_ns(uint64_t ns)
{
    uint64_t end = bench_ticks() + bench_ticks_of_ns((double)ns);
    while (bench_ticks() < end)
        bench_relax();
}

int bench_gettid(void)
{
    return (int)syscall(SYS_gettid);
}

void bench_set_thread_name(const char *name)
{
    char buf[16];
    snprintf(buf, sizeof buf, "%s", name);
    pthread_setname_np(pthread_self(), buf);
}

/* The state letter of /proc/self/task/<tid>/stat: after the last ')'. */
static char thread_state(const char *tid)
{
    char path[300], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%s/stat", tid);
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    return (p != NULL && p[1] == ' ') ? p[2] : '?';
}

void bench_threads_asleep(const char *prefix, int *total, int *asleep)
{
    *total = *asleep = 0;
    DIR *d = opendir("/proc/self/task");
    if (d == NULL)
        return;
    char self[32];
    snprintf(self, sizeof self, "%d", bench_gettid());
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, self) == 0)
            continue;
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f == NULL)
            continue;
        if (fgets(comm, sizeof comm, f) == NULL)
            comm[0] = '\0';
        fclose(f);
        if (strncmp(comm, prefix, plen) != 0)
            continue;
        (*total)++;
        char st = thread_state(e->d_name);
        if (st == 'S' || st == 'D')
            (*asleep)++;
    }
    closedir(d);
}

long bench_futex_wait(_Atomic uint32_t *word, uint32_t expected)
{
    return syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, expected, NULL, NULL, 0);
}

long bench_futex_wait_ns(_Atomic uint32_t *word, uint32_t expected, uint64_t ns)
{
    struct timespec ts = {(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
    return syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, expected, &ts, NULL, 0);
}

long bench_futex_wake(_Atomic uint32_t *word, int count)
{
    return syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, count, NULL, NULL, 0);
}

bool bench_wait_flag(_Atomic uint64_t *flag, uint64_t timeout_ns, uint64_t poll_ns)
{
    uint64_t end = bench_ticks() + bench_ticks_of_ns((double)timeout_ns);
    for (unsigned i = 0;; i++) {
        if (atomic_load_explicit(flag, memory_order_acquire) != 0)
            return true;
        if (poll_ns > 0)
            bench_sleep_ns(poll_ns);
        else if (bench_one_cpu && (i & 63) == 63)
            sched_yield();
        else
            bench_relax();
        if ((poll_ns > 0 || (i & 255) == 0) && bench_ticks() > end)
            return atomic_load_explicit(flag, memory_order_acquire) != 0;
    }
}

uint64_t bench_thread_nvcsw(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (uint64_t)ru.ru_nvcsw;
}

uint64_t bench_thread_nivcsw(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return (uint64_t)ru.ru_nivcsw;
}

void bench_threads_start(struct bench_threads *t, int n, void *(*fn)(void *), void *base, size_t stride)
{
    pthread_t *th = calloc((size_t)n, sizeof *th);
    if (th == NULL)
        abort();
    for (int i = 0; i < n; i++) {
        if (pthread_create(&th[i], NULL, fn, (char *)base + (size_t)i * stride) != 0) {
            fprintf(stderr, "bench: cannot start a thread\n");
            exit(2);
        }
    }
    t->n = n;
    t->threads = th;
}

void bench_threads_join(struct bench_threads *t)
{
    pthread_t *th = t->threads;
    for (int i = 0; i < t->n; i++)
        pthread_join(th[i], NULL);
    free(th);
    t->threads = NULL;
    t->n = 0;
}

/* Tasks shared by the cases. */
void bench_nop(void *arg)
{
    (void)arg;
}

aclError bench_nop_kernel(uint32_t block, uint32_t blocks, void *arg)
{
    (void)block;
    (void)blocks;
    (void)arg;
    return ACL_SUCCESS;
}

void bench_stamp_fn(void *arg)
{
    struct bench_stamp *s = arg;
    uint64_t now = bench_ticks();
    s->cpu = sched_getcpu();
    atomic_store_explicit(&s->t, now, memory_order_release);
}

/* ------------------------------------------------------------------------
 * The waiting side of the cross-stream cases (bench.h, struct bench_waiter)
 * ------------------------------------------------------------------------ */

void bench_waiter_reset(struct bench_waiter *w)
{
    atomic_store_explicit(&w->b_ready, 0, memory_order_relaxed);
    atomic_store_explicit(&w->t_b, 0, memory_order_relaxed);
    atomic_store_explicit(&w->done, 0, memory_order_relaxed);
    w->marker_tid = w->stamp_tid = -1;
}

void bench_waiter_marker(void *arg)
{
    struct bench_waiter *w = arg;
    w->marker_tid = bench_gettid();
    w->marker_nvcsw = bench_thread_nvcsw();
    atomic_store_explicit(&w->b_ready, 1, memory_order_release);
}

void bench_waiter_stamp(void *arg)
{
    struct bench_waiter *w = arg;
    uint64_t now = bench_ticks();
    w->stamp_tid = bench_gettid();
    w->stamp_nvcsw = bench_thread_nvcsw();
    atomic_store_explicit(&w->t_b, now, memory_order_release);
    atomic_store_explicit(&w->done, 1, memory_order_release);
    bench_futex_wake(&w->done, 1);
}

bool bench_waiter_await(struct bench_waiter *w, uint64_t timeout_ns)
{
    uint64_t end = bench_ticks() + bench_ticks_of_ns((double)timeout_ns);
    while (atomic_load_explicit(&w->done, memory_order_acquire) == 0 && bench_ticks() < end)
        bench_futex_wait_ns(&w->done, 0, 10000000);
    return atomic_load_explicit(&w->done, memory_order_acquire) != 0;
}

bool bench_waiter_stayed_on_thread(const struct bench_waiter *w)
{
    return w->marker_tid == w->stamp_tid && w->marker_nvcsw == w->stamp_nvcsw;
}
