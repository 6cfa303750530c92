/*
 * tests/soak/fork_signals.c - signals and fork in the middle of the soak.
 *
 * Signals: a handler for SIGUSR1 (installed without SA_RESTART, so that an
 * interrupted system call sees EINTR), and a thread that sends it every
 * 0.5..2 ms to a random soak thread that is in or near a blocking call
 * (workers, the timeouts thread). Nothing is checked here directly: the
 * workload's and the timeout concern's checks catch a call that an
 * interruption ends early, with a wrong code, or never.
 *
 * Fork: every few seconds a thread forks the whole busy process. The child
 * (async-signal-safe reporting only: snprintf into shared memory, write(2))
 * uses handles of the parent's runtime: launch + synchronize, record +
 * synchronize, aclrtSynchronizeDevice, aclrtDestroyStream. Each must give
 * an error code, not a hang and not success: the runtime the handles belong
 * to has no threads in the child. Then aclFinalize + aclInit must give the
 * child a working runtime (launch + synchronize; not under ThreadSanitizer,
 * which cannot start threads in the child of a multi-threaded fork). The
 * parent kills a child
 * that has not ended within 10 s; hangs, crashes and wrong answers are
 * SV_FORK violations, reported with the step the child was at.
 */
#define _GNU_SOURCE
#include "soak.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static atomic_long sig_sent, sig_caught;
static atomic_long fork_count, fork_ok;

static void on_sigusr1(int sig)
{
    (void)sig;
    atomic_fetch_add_explicit(&sig_caught, 1, memory_order_relaxed);
    struct soak_thread *t = soak_self();
    if (t != NULL)
        atomic_fetch_add_explicit(&t->signals_caught, 1, memory_order_relaxed);
}

void signals_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigusr1;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0; /* no SA_RESTART: interrupted system calls fail with EINTR */
    sigaction(SIGUSR1, &sa, NULL);
}

void *signal_thread(void *arg)
{
    (void)arg;
    soak_thread_register("signals");
    uint64_t rng = soak_cfg.seed ^ 0x5167u;
    if (soak_skipped("signals"))
        return NULL;
    while (soak_running()) {
        soak_sleep_us(500 + (unsigned)soak_pick(&rng, 1500));
        int n = atomic_load(&soak_nthreads);
        if (n <= 0)
            continue;
        struct soak_thread *t = &soak_threads[soak_pick(&rng, (uint64_t)(n < SOAK_MAX_THREADS ? n : SOAK_MAX_THREADS))];
        if (!atomic_load(&t->signalable))
            continue;
        if (pthread_kill(t->self, SIGUSR1) == 0) {
            atomic_fetch_add(&sig_sent, 1);
            soak_count(SO_SIGNAL);
        }
    }
    return NULL;
}

/* ------------------------------------------------------------------------
 * Fork
 * ------------------------------------------------------------------------ */

struct fork_shared {
    char step[128];
    char failure[512];
};
static struct fork_shared *fork_shared;

static aclrtContext fk_ctx;
static aclrtStream fk_stream;
static aclrtEvent fk_event;

static void fk_step(const char *s)
{
    snprintf(fork_shared->step, sizeof fork_shared->step, "%s", s);
}

static void fk_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
static void fk_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(fork_shared->failure, sizeof fork_shared->failure, fmt, ap);
    va_end(ap);
    _exit(code);
}

static void fk_count(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* One operation of the parent's runtime in the child: at least one of its calls fails. */
static void fk_expect_error(int code, const char *what, aclError a, aclError b)
{
    if (a == ACL_SUCCESS && b == ACL_SUCCESS)
        fk_fail(code, "%s succeeded in the child of a fork (expected an error code)", what);
    if (aclGetRecentErrMsg() == NULL)
        fk_fail(code, "%s failed in the child (%d / %d) without a recent-error message", what, a, b);
}

static void fk_child(void)
{
    atomic_int ran = 0;
    (void)aclGetRecentErrMsg();
    fk_step("aclrtLaunchHostFunc + aclrtSynchronizeStream");
    aclError a = aclrtLaunchHostFunc(fk_stream, fk_count, &ran);
    aclError b = aclrtSynchronizeStream(fk_stream);
    fk_expect_error(10, "launch + synchronize", a, b);
    fk_step("aclrtRecordEvent + aclrtSynchronizeEvent");
    a = aclrtRecordEvent(fk_event, fk_stream);
    b = aclrtSynchronizeEvent(fk_event);
    fk_expect_error(11, "record + synchronize", a, b);
    fk_step("aclrtSynchronizeDevice");
    a = aclrtSynchronizeDevice();
    fk_expect_error(12, "aclrtSynchronizeDevice", a, a);
    fk_step("aclrtDestroyStream");
    a = aclrtDestroyStream(fk_stream);
    fk_expect_error(13, "aclrtDestroyStream", a, a);
    fk_step("aclFinalize");
    if ((a = aclFinalize()) != ACL_SUCCESS)
        fk_fail(14, "aclFinalize in the child returned %d", a);
#if defined(__SANITIZE_THREAD__)
    /* ThreadSanitizer cannot start threads in the child of a multi-threaded fork ("dup thread with used id"). */
    _exit(0);
#endif
    fk_step("aclInit");
    if ((a = aclInit(NULL)) != ACL_SUCCESS)
        fk_fail(15, "aclInit in the child returned %d", a);
    fk_step("the new runtime: launch + synchronize");
    aclrtStream s = NULL;
    atomic_store(&ran, 0);
    if ((a = aclrtSetDevice(0)) != ACL_SUCCESS || (a = aclrtCreateStream(&s)) != ACL_SUCCESS ||
        (a = aclrtLaunchHostFunc(s, fk_count, &ran)) != ACL_SUCCESS || (a = aclrtSynchronizeStream(s)) != ACL_SUCCESS)
        fk_fail(16, "the child's new runtime failed with %d", a);
    if (atomic_load(&ran) != 1)
        fk_fail(17, "the child's new runtime ran %d tasks, not 1", atomic_load(&ran));
    fk_step("the last aclFinalize");
    if ((a = aclFinalize()) != ACL_SUCCESS)
        fk_fail(18, "the child's last aclFinalize returned %d", a);
    _exit(0);
}

void *fork_thread(void *arg)
{
    (void)arg;
    soak_thread_register("fork");
    uint64_t rng = soak_cfg.seed ^ 0xF04Cu;
    /*
     * Not in sanitizer builds: their runtimes keep locks of their own (TSan's
     * behind some atomic operations, ASan's allocator's) that a fork of a busy
     * multi-threaded process can leave held in the child, which then waits
     * for ever (seen in aclFinalize under TSan, in a new thread under ASan).
     * The release run forks; tests/test_fork.c forks under the sanitizers
     * from a quiet parent.
     */
    if (soak_skipped("fork") || SOAK_SANITIZED)
        return NULL;
    fork_shared = mmap(NULL, sizeof *fork_shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (fork_shared == MAP_FAILED)
        return NULL;
    /* Handles of the parent's runtime on device 0, busy with their own work. */
    if (aclrtCreateContext(&fk_ctx, SOAK_DEV_WORK) != ACL_SUCCESS || aclrtCreateStream(&fk_stream) != ACL_SUCCESS ||
        aclrtCreateEventExWithFlag(&fk_event, ACL_EVENT_SYNC) != ACL_SUCCESS) {
        soak_violation(SV_CODE, "fork: setup failed: %s", soak_error_line());
        return NULL;
    }
    atomic_int ran = 0;
    while (soak_running()) {
        for (int i = 0; i < 5 && soak_running(); i++)
            soak_sleep_us(400000 + (unsigned)soak_pick(&rng, 400000));
        if (!soak_running())
            break;
        if (aclrtLaunchHostFunc(fk_stream, fk_count, &ran) != ACL_SUCCESS)
            soak_violation(SV_CODE, "fork: launch in the parent failed: %s", soak_error_line());
        memset(fork_shared, 0, sizeof *fork_shared);
        snprintf(fork_shared->step, sizeof fork_shared->step, "(before its first step)");
        fflush(stdout);
        fflush(stderr);
        pid_t pid = fork();
        if (pid < 0)
            continue;
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* a hung child never outlives the run (the watchdog's exit included) */
            fk_child();
        }
        soak_count(SO_FORK);
        atomic_fetch_add(&fork_count, 1);
        uint64_t deadline = soak_now_ns() + 10000000000ull;
        int status = 0, ended = 0;
        for (;;) {
            pid_t r = waitpid(pid, &status, WNOHANG);
            if (r == pid) {
                ended = 1;
                break;
            }
            if (r < 0 && errno != EINTR)
                break;
            if (soak_now_ns() > deadline) {
                soak_gdb_stacks((int)pid);
                kill(pid, SIGKILL);
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                    ;
                break;
            }
            soak_sleep_us(5000);
        }
        if (!ended)
            soak_violation(SV_FORK, "the child of a fork hung for 10 s (killed) at: %s", fork_shared->step);
        else if (WIFSIGNALED(status))
            soak_violation(SV_FORK, "the child of a fork died of signal %d (%s) at: %s", WTERMSIG(status),
                           strsignal(WTERMSIG(status)), fork_shared->step);
        else if (WEXITSTATUS(status) != 0)
            soak_violation(SV_FORK, "the child of a fork exited with status %d at %s: %s", WEXITSTATUS(status),
                           fork_shared->step,
                           fork_shared->failure[0] ? fork_shared->failure : "(no failure of its own: a sanitizer report?)");
        else
            atomic_fetch_add(&fork_ok, 1);
    }
    (void)SOAK_BLOCKING("aclrtSynchronizeStream (fork)", -1, aclrtSynchronizeStream(fk_stream));
    (void)aclrtDestroyEvent(fk_event);
    (void)aclrtDestroyContext(fk_ctx);
    return NULL;
}

void fork_signals_summary(void)
{
    printf("signals: %ld sent, %ld caught; forks: %ld, children that behaved: %ld\n", atomic_load(&sig_sent),
           atomic_load(&sig_caught), atomic_load(&fork_count), atomic_load(&fork_ok));
}
