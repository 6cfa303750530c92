/*
 * tests/soak/main.c - the driver: configuration, the violation log, the
 * thread registry and the watchdog, resident-memory sampling, child
 * processes, and the run itself:
 *
 *   1. set up every concern (each on its own device, see soak.h);
 *   2. measure timeout accuracy on an otherwise idle runtime (two seconds);
 *   3. start the concerns' threads, the signal sender, the fork thread and
 *      the watchdog; run for SOAK_SECONDS;
 *   4. stop, drain (every blocking call of the drain is bounded too), check
 *      the end-of-run invariants, aclFinalize;
 *   5. print the summary: operations, tasks, violations by kind, RSS at the
 *      start and end, timeout overshoot; exit 1 on any violation.
 *
 * What the watchdog checks: no blocking call (stamped with soak_block_begin)
 * runs past its bound (SOAK_BOUND_MS, default 20 s, 4 x under a sanitizer).
 * One that does is reported with every thread's current call, the summary is
 * printed, and the process exits with status 2 instead of hanging.
 * What the RSS sampler checks: resident memory, sampled every 250 ms from
 * /proc/self/statm, does not grow between the end of the first quarter of
 * the run and the end (release builds; sanitizer allocators hold freed
 * memory in quarantine, so there it is reported only).
 *
 * Environment: SOAK_SECONDS (60), SOAK_SEED, SOAK_WORKERS (6), SOAK_STREAMS
 * (16), SOAK_EVENTS (24), SOAK_BOUND_MS, SOAK_NOISE (0: CPU-burning
 * threads that make preemption at unlucky points likely),
 * SOAK_SKIP=<scenario,...>,
 * SOAK_ONLY=<concern,...> (workload, fuzz, lifetime, exhaustion, signals,
 * fork, timeouts, children), SOAK_VERBOSE=1, SOAK_GDB=1 (a hang prints
 * every thread's stack, by gdb, before the run aborts or a hung child is
 * killed).
 */
#define _GNU_SOURCE
#include "soak.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
/* The fork concern's children start runtime threads after a multi-threaded fork: let them. */
const char *__tsan_default_options(void);
const char *__tsan_default_options(void)
{
    return "die_after_fork=0";
}
#endif

struct soak_config soak_cfg;
atomic_int soak_stopping;
atomic_long soak_ops[SO_COUNT];
atomic_long soak_tasks_launched, soak_tasks_ran, soak_tasks_discarded;
atomic_long soak_dev0_ctl_begin, soak_dev0_ctl_end, soak_dev0_fail_launched;
struct soak_thread soak_threads[SOAK_MAX_THREADS];
atomic_int soak_nthreads;

const char *const soak_violation_names[SV_COUNT] = {
    "lost task", "ran twice", "out of order", "ran after its discard", "wait released early",
    "synchronize/query early", "undocumented code", "blocked past bound", "timeout returned early",
    "fork child", "child process", "rss growth", "lifetime race", "exhaustion", "fuzz",
};
const char *const soak_op_names[SO_COUNT] = {
    "launch", "host kernel", "record", "stream wait", "stream sync", "event sync", "device sync", "query",
    "abort", "stop", "fuzz call", "lifetime scenario", "exhaustion scenario", "timeout call", "signal", "fork",
    "callback",
};

static atomic_long violations[SV_COUNT];
static uint64_t run_start_ns;
static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;
static char self_path[4096];

uint64_t soak_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void soak_sleep_us(unsigned us)
{
    struct timespec ts = {us / 1000000u, (long)(us % 1000000u) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static bool list_has(const char *list, const char *name)
{
    if (list == NULL || *list == '\0')
        return false;
    size_t n = strlen(name);
    for (const char *p = list; *p != '\0';) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && strncmp(p, name, n) == 0)
            return true;
        if (end == NULL)
            break;
        p = end + 1;
    }
    return false;
}

bool soak_skipped(const char *name)
{
    return list_has(soak_cfg.skip, name);
}

bool soak_concern_on(const char *name)
{
    return soak_cfg.only == NULL || *soak_cfg.only == '\0' || list_has(soak_cfg.only, name);
}

const char *soak_error_line(void)
{
    static _Thread_local char line[512];
    const char *m = aclGetRecentErrMsg();
    if (m == NULL)
        return "(none)";
    size_t n = strcspn(m, "\n");
    if (n >= sizeof line)
        n = sizeof line - 1;
    memcpy(line, m, n);
    line[n] = '\0';
    return line;
}

bool soak_code_in(aclError rc, const int *codes)
{
    if (rc == ACL_SUCCESS)
        return true;
    for (; *codes != SOAK_CODES_END; codes++)
        if (rc == *codes)
            return true;
    return false;
}

void soak_violation(enum soak_violation_kind kind, const char *fmt, ...)
{
    long n = atomic_fetch_add(&violations[kind], 1);
    if (n >= 5) /* the first five of each kind are printed */
        return;
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    struct soak_thread *me = soak_self();
    pthread_mutex_lock(&print_lock);
    fprintf(stderr, "VIOLATION [%s] (%s, at %.3f s): %s\n", soak_violation_names[kind],
            me ? me->name : "runtime thread", (double)(soak_now_ns() - run_start_ns) / 1e9, text);
    pthread_mutex_unlock(&print_lock);
}

long soak_violations_total(void)
{
    long t = 0;
    for (int k = 0; k < SV_COUNT; k++)
        t += atomic_load(&violations[k]);
    return t;
}

/* ------------------------------------------------------------------------
 * Threads and the watchdog
 * ------------------------------------------------------------------------ */

static _Thread_local struct soak_thread *soak_me;

struct soak_thread *soak_thread_register(const char *fmt, ...)
{
    int i = atomic_fetch_add(&soak_nthreads, 1);
    if (i >= SOAK_MAX_THREADS) {
        fprintf(stderr, "soak: more than %d threads registered\n", SOAK_MAX_THREADS);
        abort();
    }
    struct soak_thread *t = &soak_threads[i];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->name, sizeof t->name, fmt, ap);
    va_end(ap);
    t->self = pthread_self();
    atomic_store(&t->stream, -1);
    atomic_store(&t->op, NULL);
    soak_me = t;
    return t;
}

void soak_thread_adopt(struct soak_thread *t)
{
    t->self = pthread_self();
    atomic_store(&t->op, NULL);
    soak_me = t;
}

struct soak_thread *soak_self(void)
{
    return soak_me;
}

uint64_t soak_bound_ms(void)
{
    return soak_cfg.bound_ms;
}

void soak_block_begin(const char *op, int stream, uint64_t bound_ms)
{
    struct soak_thread *t = soak_me;
    if (t == NULL)
        return;
    atomic_store_explicit(&t->stream, stream, memory_order_relaxed);
    atomic_store_explicit(&t->bound_ns, bound_ms * 1000000ull, memory_order_relaxed);
    atomic_store_explicit(&t->since_ns, soak_now_ns(), memory_order_relaxed);
    /* release: pairs with the watchdog's acquire of op; publishes stream, bound and start */
    atomic_store_explicit(&t->op, op, memory_order_release);
}

void soak_block_end(void)
{
    struct soak_thread *t = soak_me;
    if (t != NULL)
        atomic_store_explicit(&t->op, NULL, memory_order_relaxed);
}

static atomic_int watchdog_quit;

static void print_summary(void);

void soak_gdb_stacks(int pid)
{
    if (getenv("SOAK_GDB") == NULL)
        return;
    char cmd[160];
    snprintf(cmd, sizeof cmd, "gdb -p %d -batch -ex 'thread apply all bt' </dev/null >&2 2>/dev/null", pid);
    fflush(stderr);
    if (system(cmd) != 0)
        fprintf(stderr, "soak: gdb could not print the stacks of process %d\n", pid);
}

static void dump_threads(FILE *f)
{
    uint64_t now = soak_now_ns();
    int n = atomic_load(&soak_nthreads);
    for (int i = 0; i < n && i < SOAK_MAX_THREADS; i++) {
        struct soak_thread *t = &soak_threads[i];
        /* acquire: pairs with the release in soak_block_begin */
        const char *op = atomic_load_explicit(&t->op, memory_order_acquire);
        if (op != NULL)
            fprintf(f, "  %-24s in %s (stream %d) for %.3f s\n", t->name, op, atomic_load(&t->stream),
                    (double)(now - atomic_load(&t->since_ns)) / 1e9);
    }
}

static void *watchdog_main(void *arg)
{
    (void)arg;
    while (!atomic_load(&watchdog_quit)) {
        soak_sleep_us(50000);
        uint64_t now = soak_now_ns();
        int n = atomic_load(&soak_nthreads);
        for (int i = 0; i < n && i < SOAK_MAX_THREADS; i++) {
            struct soak_thread *t = &soak_threads[i];
            /* acquire: pairs with the release in soak_block_begin */
            const char *op = atomic_load_explicit(&t->op, memory_order_acquire);
            if (op == NULL)
                continue;
            uint64_t since = atomic_load_explicit(&t->since_ns, memory_order_relaxed);
            uint64_t bound = atomic_load_explicit(&t->bound_ns, memory_order_relaxed);
            if (now > since && now - since > bound) {
                soak_violation(SV_BLOCKED, "%s: %s (stream %d) has not returned after %.1f s (bound %.1f s)", t->name,
                               op, atomic_load(&t->stream), (double)(now - since) / 1e9, (double)bound / 1e9);
                pthread_mutex_lock(&print_lock);
                fprintf(stderr, "soak: aborting the run at %.1f s; blocking calls in progress:\n",
                        (double)(now - run_start_ns) / 1e9);
                dump_threads(stderr);
                fprintf(stderr, "the workload's streams:\n");
                workload_dump_state(stderr);
                soak_gdb_stacks((int)getpid());
                pthread_mutex_unlock(&print_lock);
                print_summary();
                fflush(stdout);
                fflush(stderr);
                _exit(2);
            }
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * Resident memory
 * ------------------------------------------------------------------------ */

static long rss_start, rss_end, rss_peak, rss_quarter;
static atomic_int rss_quit;

static long rss_now(void)
{
    long pages = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return 0;
    if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * sysconf(_SC_PAGESIZE);
}

static void *rss_main(void *arg)
{
    (void)arg;
    uint64_t quarter = run_start_ns + (uint64_t)(soak_cfg.seconds * 0.25e9);
    while (!atomic_load(&rss_quit)) {
        long r = rss_now();
        if (r > rss_peak)
            rss_peak = r;
        if (rss_quarter == 0 && soak_now_ns() >= quarter)
            rss_quarter = r;
        soak_sleep_us(250000);
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * Child processes: this program again, in a mode (a fresh process).
 * ------------------------------------------------------------------------ */

int soak_run_child(const char *mode, uint64_t seed, double bound_s, char *why, size_t why_len)
{
    char seed_text[32];
    snprintf(seed_text, sizeof seed_text, "%llu", (unsigned long long)seed);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork(); /* immediately followed by exec: nothing of this process is used in the child */
    if (pid < 0) {
        snprintf(why, why_len, "fork: %s", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives the run */
        char *argv[] = {self_path, (char *)"--child", (char *)mode, seed_text, NULL};
        execv(self_path, argv);
        _exit(127);
    }
    uint64_t deadline = soak_now_ns() + (uint64_t)(bound_s * 1e9);
    int status = 0;
    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            break;
        if (r < 0 && errno != EINTR) {
            snprintf(why, why_len, "waitpid: %s", strerror(errno));
            return -1;
        }
        if (soak_now_ns() > deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            snprintf(why, why_len, "did not end within %.0f s (killed)", bound_s);
            return -1;
        }
        soak_sleep_us(5000);
    }
    if (WIFSIGNALED(status)) {
        snprintf(why, why_len, "died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
        return -1;
    }
    if (WEXITSTATUS(status) != 0) {
        snprintf(why, why_len, "exited with status %d", WEXITSTATUS(status));
        return -1;
    }
    why[0] = '\0';
    return 0;
}

/* ------------------------------------------------------------------------
 * Summary
 * ------------------------------------------------------------------------ */

static atomic_int summary_printed;

static void print_summary(void)
{
    if (atomic_exchange(&summary_printed, 1))
        return;
    pthread_mutex_lock(&print_lock);
    double ran_s = (double)(soak_now_ns() - run_start_ns) / 1e9;
    printf("\n== soak summary (%s, seed 0x%llx, %.1f s) ==\n",
#if defined(__SANITIZE_THREAD__)
           "tsan",
#elif defined(__SANITIZE_ADDRESS__)
           "asan",
#else
           "release",
#endif
           (unsigned long long)soak_cfg.seed, ran_s);
    long total_ops = 0;
    printf("operations:");
    for (int i = 0; i < SO_COUNT; i++) {
        long n = atomic_load(&soak_ops[i]);
        total_ops += n;
        if (n != 0)
            printf(" %s %ld,", soak_op_names[i], n);
    }
    printf(" total %ld\n", total_ops);
    printf("tasks: %ld launched, %ld ran, %ld discarded by aborts, stops or failures\n",
           atomic_load(&soak_tasks_launched), atomic_load(&soak_tasks_ran), atomic_load(&soak_tasks_discarded));
    pthread_mutex_unlock(&print_lock);
    workload_summary();
    fuzz_summary();
    lifetime_summary();
    exhaustion_summary();
    fork_signals_summary();
    timeouts_summary();
    pthread_mutex_lock(&print_lock);
    long end = rss_end != 0 ? rss_end : rss_now();
    printf("rss: start %.1f MiB, after the first quarter %.1f MiB, end %.1f MiB, peak %.1f MiB (growth after the first "
           "quarter %+.1f MiB)\n",
           rss_start / 1048576.0, rss_quarter / 1048576.0, end / 1048576.0, rss_peak / 1048576.0,
           rss_quarter ? (end - rss_quarter) / 1048576.0 : 0.0);
    long total = soak_violations_total();
    printf("violations: %ld", total);
    for (int k = 0; k < SV_COUNT; k++)
        if (atomic_load(&violations[k]) != 0)
            printf(", %s %ld", soak_violation_names[k], atomic_load(&violations[k]));
    printf("\n%s\n", total == 0 ? "soak: passed" : "soak: FAILED");
    fflush(stdout);
    pthread_mutex_unlock(&print_lock);
}

/* ------------------------------------------------------------------------
 * main
 * ------------------------------------------------------------------------ */

static double env_double(const char *name, double dflt)
{
    const char *v = getenv(name);
    return v != NULL && *v != '\0' ? strtod(v, NULL) : dflt;
}

static void configure(void)
{
    soak_cfg.seconds = env_double("SOAK_SECONDS", 60);
    const char *seed = getenv("SOAK_SEED");
    soak_cfg.seed = seed != NULL && *seed != '\0' ? strtoull(seed, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
    soak_cfg.workers = (int)env_double("SOAK_WORKERS", 6);
    soak_cfg.noise = (int)env_double("SOAK_NOISE", 0);
    if (soak_cfg.noise < 0)
        soak_cfg.noise = 0;
    if (soak_cfg.noise > 32)
        soak_cfg.noise = 32;
    soak_cfg.streams = (int)env_double("SOAK_STREAMS", 16);
    soak_cfg.events = (int)env_double("SOAK_EVENTS", 24);
    soak_cfg.bound_ms = (uint64_t)env_double("SOAK_BOUND_MS", SOAK_SANITIZED ? 80000 : 20000);
    soak_cfg.skip = getenv("SOAK_SKIP");
    soak_cfg.only = getenv("SOAK_ONLY");
    soak_cfg.verbose = getenv("SOAK_VERBOSE") != NULL;
    if (soak_cfg.workers < 1)
        soak_cfg.workers = 1;
    if (soak_cfg.workers > 32)
        soak_cfg.workers = 32;
    if (soak_cfg.streams < 2)
        soak_cfg.streams = 2;
    if (soak_cfg.streams > 64)
        soak_cfg.streams = 64;
    if (soak_cfg.events < 1)
        soak_cfg.events = 1;
    if (soak_cfg.events > 256)
        soak_cfg.events = 256;
}

/*
 * Noise (SOAK_NOISE threads): CPU burners in bursts of 0.1..5 ms, so that
 * runtime and soak threads are preempted at unlucky points, as on a
 * machine loaded by other programs (where the runtime's stalls showed up
 * first).
 */
static void *noise_main(void *arg)
{
    uint64_t rng = soak_cfg.seed ^ (0x4015Eu + (uint64_t)(intptr_t)arg);
    while (soak_running()) {
        uint64_t end = soak_now_ns() + 100000 + soak_pick(&rng, 4900000);
        while (soak_now_ns() < end)
            ;
        if (soak_pick(&rng, 2))
            sched_yield();
        else
            soak_sleep_us((unsigned)soak_pick(&rng, 2000));
    }
    return NULL;
}

static int child_main(const char *mode, uint64_t seed)
{
    if (strcmp(mode, "rlimit") == 0)
        return exhaustion_rlimit_child();
    if (strcmp(mode, "lifecycle") == 0)
        return fuzz_lifecycle_child(seed);
    fprintf(stderr, "soak: unknown child mode %s\n", mode);
    return 2;
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        snprintf(self_path, sizeof self_path, "%s", argv[0]);
    else
        self_path[n] = '\0';
    setenv("ACLRT_DEVICES", "4", 1);
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], strtoull(argv[3], NULL, 0));

    configure();
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("soak: %.0f s, seed 0x%llx (SOAK_SEED to replay the choices), %d workers, %d streams, %d events, bound %llu "
           "ms per blocking call%s%s\n",
           soak_cfg.seconds, (unsigned long long)soak_cfg.seed, soak_cfg.workers, soak_cfg.streams, soak_cfg.events,
           (unsigned long long)soak_cfg.bound_ms, soak_cfg.skip ? ", skipping " : "",
           soak_cfg.skip ? soak_cfg.skip : "");
    soak_thread_register("main");
    run_start_ns = soak_now_ns();

    pthread_t watchdog;
    pthread_create(&watchdog, NULL, watchdog_main, NULL);

    soak_block_begin("aclInit + setup", -1, soak_bound_ms());
    aclError rc = aclInit(NULL);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "soak: aclInit failed: %d %s\n", rc, aclGetRecentErrMsg());
        return 1;
    }
    signals_install();
    int failed = 0;
    if (soak_concern_on("workload"))
        failed |= workload_setup();
    if (soak_concern_on("fuzz"))
        failed |= fuzz_setup();
    if (soak_concern_on("lifetime"))
        failed |= lifetime_setup();
    if (soak_concern_on("exhaustion"))
        failed |= exhaustion_setup();
    if (soak_concern_on("timeouts"))
        failed |= timeouts_setup();
    soak_block_end();
    if (failed) {
        fprintf(stderr, "soak: setup failed\n");
        return 1;
    }
    rss_start = rss_now();
    rss_peak = rss_start;

    if (soak_concern_on("timeouts"))
        timeouts_measure_idle(2.0); /* before anything else runs */

    pthread_t threads[128];
    int nt = 0;
    run_start_ns = soak_now_ns();
    pthread_t rss_thread;
    pthread_create(&rss_thread, NULL, rss_main, NULL);
    if (soak_concern_on("workload"))
        for (intptr_t i = 0; i < soak_cfg.workers; i++)
            pthread_create(&threads[nt++], NULL, workload_thread, (void *)i);
    if (soak_concern_on("fuzz"))
        for (intptr_t i = 0; i < 2; i++)
            pthread_create(&threads[nt++], NULL, fuzz_thread, (void *)i);
    if (soak_concern_on("lifetime"))
        pthread_create(&threads[nt++], NULL, lifetime_thread, NULL);
    if (soak_concern_on("exhaustion"))
        pthread_create(&threads[nt++], NULL, exhaustion_thread, NULL);
    if (soak_concern_on("timeouts"))
        pthread_create(&threads[nt++], NULL, timeouts_thread, NULL);
    pthread_t signaller;
    bool signals = soak_concern_on("signals");
    if (signals)
        pthread_create(&signaller, NULL, signal_thread, NULL);
    if (soak_concern_on("fork"))
        pthread_create(&threads[nt++], NULL, fork_thread, NULL);
    for (intptr_t i = 0; i < soak_cfg.noise; i++)
        pthread_create(&threads[nt++], NULL, noise_main, (void *)i);

    /* The random phase; the children (rlimit, lifecycle order) run from here meanwhile. */
    uint64_t end = run_start_ns + (uint64_t)(soak_cfg.seconds * 1e9);
    int children_done = 0;
    while (soak_now_ns() < end) {
        if (!children_done && soak_concern_on("children") && soak_now_ns() > run_start_ns + (end - run_start_ns) / 3) {
            char why[256];
            children_done = 1;
            if (!soak_skipped("rlimit") && !SOAK_SANITIZED) { /* sanitizers reserve terabytes of address space */
                if (soak_run_child("rlimit", soak_cfg.seed, soak_bound_ms() / 1000.0, why, sizeof why) != 0)
                    soak_violation(SV_CHILD, "the RLIMIT_AS child %s (run it alone: %s --child rlimit 0)", why,
                                   self_path);
            }
            if (!soak_skipped("lifecycle")) {
                for (int i = 0; i < 4; i++) {
                    uint64_t seed = soak_cfg.seed + (uint64_t)i;
                    if (soak_run_child("lifecycle", seed, soak_bound_ms() / 1000.0, why, sizeof why) != 0)
                        soak_violation(SV_CHILD, "the lifecycle-order fuzz child %s (replay: %s --child lifecycle %llu)",
                                       why, self_path, (unsigned long long)seed);
                }
                fuzz_note_lifecycle_ran();
            }
        }
        soak_sleep_us(100000);
        if (soak_cfg.verbose) {
            static uint64_t last;
            uint64_t now = soak_now_ns();
            if (now - last > 5000000000ull) {
                last = now;
                fprintf(stderr, "soak: %.0f s, %ld tasks ran, %ld violations\n", (now - run_start_ns) / 1e9,
                        atomic_load(&soak_tasks_ran), soak_violations_total());
            }
        }
    }
    atomic_store(&soak_stopping, 1);
    /*
     * The signal thread first: it sends to the threads by their pthread_t,
     * which names nothing once the thread is joined (pthread_kill may then
     * read a stack that was unmapped: a SIGSEGV at the end of a run).
     */
    if (signals)
        pthread_join(signaller, NULL);
    for (int i = 0; i < nt; i++)
        pthread_join(threads[i], NULL);
    if (soak_concern_on("timeouts"))
        timeouts_finish(); /* releases what its parked streams wait for (its calls all have timeouts) */
    atomic_store(&rss_quit, 1);
    pthread_join(rss_thread, NULL);
    rss_end = rss_now();

    if (soak_concern_on("workload"))
        workload_drain_and_check();
    if (soak_concern_on("fuzz"))
        fuzz_finish();
    if (!SOAK_SANITIZED && rss_quarter != 0 && rss_end - rss_quarter > 64l * 1048576 &&
        rss_end - rss_quarter > rss_quarter / 4)
        soak_violation(SV_RSS, "resident memory grew from %.1f MiB (after the first quarter) to %.1f MiB",
                       rss_quarter / 1048576.0, rss_end / 1048576.0);

    soak_block_begin("aclFinalize", -1, soak_bound_ms());
    rc = aclFinalize();
    soak_block_end();
    if (rc != ACL_SUCCESS)
        soak_violation(SV_CODE, "aclFinalize at the end returned %d", rc);
    atomic_store(&watchdog_quit, 1);
    pthread_join(watchdog, NULL);
    print_summary();
    return soak_violations_total() == 0 ? 0 : 1;
}
