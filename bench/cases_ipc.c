/*
 * bench/cases_ipc.c - IPC events: how long after the work before a record
 * completes in one process aclrtSynchronizeEvent returns in another.
 *
 *   ipc_event_release_hot          the other process is spinning in
 *                                  aclrtSynchronizeEvent (5 us after it
 *                                  said it would call it)
 *   ipc_event_release_asleep       the other process has slept in it for
 *                                  asleep_ns (>= 1 ms): a shared futex wake
 *   ipc_event_release_local_hot    the same two on a thread of this process,
 *   ipc_event_release_local_asleep synchronizing on the same IPC event: the
 *                                  process boundary is the only difference
 *
 * One iteration: stream A runs a gate (a host function), then the record
 * (aclrtRecordEvent on A made the record before the gate runs); the main
 * thread tells the waiter to go; the waiter says it is about to call
 * aclrtSynchronizeEvent and calls it; the gate sees that, spins 5 us (hot)
 * or sleeps asleep_ns (asleep), takes t_a and returns; the record task
 * marks the shared page; the waiter takes t_b when the call returns. TSC on
 * both sides (one machine, invariant TSC: the same clock in every process).
 * A sample where the waiter's call returned before t_a (it came too late to
 * wait: the record was complete already) is discarded and counted, and so
 * is one in the wrong regime: the waiter slept in a hot iteration (a
 * voluntary context switch of its thread during the call: descheduled on a
 * loaded machine), or did not sleep in an asleep one.
 *
 * The other process is this binary again (fork, then exec of /proc/self/exe
 * with "--ipc-peer FD"): a fresh process with a runtime of its own (a
 * forked child of a process with a started runtime must finalize before it
 * starts one). Parent and peer share one page, a memory file the peer
 * inherits across the exec. If the peer cannot be started (fork or exec
 * fails, it reports no readiness within 10 s), the remote results are
 * recorded empty with a note; the local ones are measured all the same.
 * aclrt only: the naive baseline has no IPC events.
 */
#include "bench.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define IPC_TIMEOUT_S 10.0
#define IPC_END UINT64_MAX

/* The page parent and waiter share (a memory file for the peer, plain memory for the local thread). */
struct ipc_shared {
    _Atomic uint64_t go BENCH_ALIGNED;       /* main: record i is made (i + 1); IPC_END: finish */
    _Atomic uint64_t entering BENCH_ALIGNED; /* waiter: about to synchronize for iteration i (i + 1) */
    _Atomic uint64_t t_b BENCH_ALIGNED;      /* waiter: the synchronize returned (ticks) */
    _Atomic uint64_t slept;                  /* waiter: it slept in that synchronize (a voluntary switch) */
    _Atomic uint64_t done BENCH_ALIGNED;     /* waiter: iteration i finished (i + 1) */
    _Atomic uint64_t ready BENCH_ALIGNED;    /* waiter: opened the event (1), or failed (2) */
    _Atomic int32_t rc;                      /* the waiter's first failure */
    char handle[ACL_IPC_EVENT_HANDLE_SIZE];
};

/* Wait until *w == v; spins (poll_ns 0) or sleeps between looks. False after timeout_s. */
static bool wait_eq(_Atomic uint64_t *w, uint64_t v, double timeout_s, uint64_t poll_ns)
{
    double end = bench_now_s() + timeout_s;
    for (unsigned i = 1;; i++) {
        uint64_t now = atomic_load_explicit(w, memory_order_acquire);
        if (now == v || now == IPC_END)
            return now == v;
        if (poll_ns > 0)
            bench_sleep_ns(poll_ns);
        else
            bench_relax();
        if ((poll_ns > 0 || (i & 1023) == 0) && bench_now_s() > end)
            return false;
    }
}

/* The waiter's loop (the peer's main thread, or a thread of this process): open, then synchronize on each go. */
static void waiter_loop(struct ipc_shared *sh)
{
    aclrtEvent ev = NULL;
    aclrtIpcEventHandle h;
    memcpy(&h, sh->handle, sizeof h);
    aclError rc = aclrtIpcOpenEventHandle(h, &ev);
    if (rc != ACL_SUCCESS) {
        atomic_store(&sh->rc, rc);
        atomic_store_explicit(&sh->ready, 2, memory_order_release);
        return;
    }
    atomic_store_explicit(&sh->ready, 1, memory_order_release);
    for (uint64_t i = 1;; i++) {
        if (!wait_eq(&sh->go, i, 600, 0)) /* IPC_END, or a parent gone for ten minutes */
            break;
        uint64_t switches = bench_thread_nvcsw();
        atomic_store_explicit(&sh->entering, i, memory_order_release);
        rc = aclrtSynchronizeEvent(ev);
        atomic_store_explicit(&sh->t_b, bench_ticks(), memory_order_relaxed);
        atomic_store_explicit(&sh->slept, bench_thread_nvcsw() != switches, memory_order_relaxed);
        if (rc != ACL_SUCCESS && atomic_load(&sh->rc) == 0)
            atomic_store(&sh->rc, rc);
        atomic_store_explicit(&sh->done, i, memory_order_release); /* publishes t_b */
    }
    aclrtDestroyEvent(ev);
}

/* "--ipc-peer FD": the other process. */
int bench_ipc_peer_main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int fd = atoi(argv[2]);
    struct ipc_shared *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (sh == MAP_FAILED)
        return 2;
    close(fd);
    aclError rc = aclInit(NULL);
    if (rc == ACL_SUCCESS)
        rc = aclrtSetDevice(0);
    if (rc != ACL_SUCCESS) {
        atomic_store(&sh->rc, rc);
        atomic_store_explicit(&sh->ready, 2, memory_order_release);
        return 1;
    }
    waiter_loop(sh);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}

static void *local_waiter_main(void *arg)
{
    rt_aclrt.thread_enter();
    waiter_loop(arg);
    return NULL;
}

/* The gate on stream A: the waiter is (about to be) in its synchronize; hot: 5 us more; asleep: asleep_ns. */
struct ipc_gate {
    struct ipc_shared *sh;
    uint64_t iteration;
    bool asleep;
    _Atomic uint64_t t_a;
    bool timed_out;
};

static void ipc_gate_fn(void *arg)
{
    struct ipc_gate *g = arg;
    if (!wait_eq(&g->sh->entering, g->iteration, IPC_TIMEOUT_S, 0))
        g->timed_out = true;
    if (g->asleep)
        bench_sleep_ns(bench_opts.asleep_ns);
    else
        bench_spin_ns(5000);
    atomic_store_explicit(&g->t_a, bench_ticks(), memory_order_release);
}

static void ipc_check(aclError rc, const char *what)
{
    if (rc != ACL_SUCCESS) {
        const char *msg = aclGetRecentErrMsg();
        fprintf(stderr, "bench: %s failed: %d\n%s\n", what, rc, msg != NULL ? msg : "");
        exit(2);
    }
}

/* Start the peer process on the memory file fd; its pid, or -1. */
static pid_t spawn_peer(int fd)
{
    char arg[16];
    snprintf(arg, sizeof arg, "%d", fd);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/proc/self/exe", "aclrt-bench", "--ipc-peer", arg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* Measure both regimes with the waiter already running; records name + "_hot" and name + "_asleep". */
static void measure(const char *name, struct ipc_shared *sh, aclrtEvent ev, aclrtStream a, const char *skip)
{
    static const char *const regimes[] = {"hot", "asleep"};
    uint64_t iteration = atomic_load(&sh->done);
    for (int asleep = 0; asleep < 2; asleep++) {
        size_t n = asleep ? bench_iters(300, 20) : bench_iters(3000, 200);
        size_t warm = asleep ? 2 : n / 10;
        struct samples smp;
        samples_init(&smp, n);
        unsigned timeouts = 0, early = 0, regime = 0;
        double start = bench_now_s();
        for (size_t i = 0; skip == NULL && smp.n < n && i < 3 * (n + warm); i++) {
            static struct ipc_gate g;
            uint64_t it = ++iteration;
            g.sh = sh;
            g.iteration = it;
            g.asleep = asleep;
            atomic_store_explicit(&g.t_a, 0, memory_order_relaxed);
            g.timed_out = false;
            ipc_check(aclrtLaunchHostFunc(a, ipc_gate_fn, &g), "aclrtLaunchHostFunc");
            ipc_check(aclrtRecordEvent(ev, a), "aclrtRecordEvent");
            atomic_store_explicit(&sh->go, it, memory_order_release);
            bool ok = wait_eq(&sh->done, it, IPC_TIMEOUT_S, 20000);
            ipc_check(aclrtSynchronizeStream(a), "aclrtSynchronizeStream");
            if (!ok || g.timed_out) {
                timeouts++;
                if (!ok) {
                    skip = "the waiter stopped answering";
                    break;
                }
                continue;
            }
            int64_t d = (int64_t)(atomic_load_explicit(&sh->t_b, memory_order_relaxed) - atomic_load(&g.t_a));
            if (d < 0) {
                early++;
                continue;
            }
            if ((atomic_load_explicit(&sh->slept, memory_order_relaxed) != 0) != (asleep != 0)) {
                regime++; /* hot: the waiter slept anyway (descheduled); asleep: it never slept */
                continue;
            }
            if (i >= warm)
                samples_add(&smp, (double)d * bench_ns_per_tick);
            if (smp.n > 20 && bench_over_budget(start, asleep ? 5.0 : 3.0))
                break;
        }
        char full[64];
        snprintf(full, sizeof full, "%s_%s", name, regimes[asleep]);
        char method[160];
        snprintf(method, sizeof method,
                 "TSC at the end of A's task before aclrtRecordEvent -> aclrtSynchronizeEvent returns (%s, %s)",
                 strstr(name, "local") != NULL ? "a thread of this process" : "another process",
                 asleep ? "asleep in it" : "spinning in it");
        struct result *r = bench_record(full, "ns", RESULT_ACLRT, &smp, 1, method);
        if (skip != NULL)
            bench_note(r, "skipped: %s", skip);
        else if (timeouts > 0 || early > 0 || regime > 0)
            bench_note(r, "%u iterations timed out; discarded: %u (the waiter called after the record completed), %u "
                       "(the waiter %s)", timeouts, early, regime, asleep ? "did not sleep" : "slept in the call");
        samples_free(&smp);
    }
}

void case_ipc_event_release(const struct rt *rt)
{
    if (!rt->is_aclrt) /* no baseline equivalent */
        return;
    int fd = memfd_create("aclrt-bench-ipc", 0); /* not close-on-exec: the peer inherits it */
    struct ipc_shared *sh = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, sizeof *sh) == 0)
        sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (sh == MAP_FAILED) {
        fprintf(stderr, "bench: ipc_event_release: no shared memory\n");
        exit(2);
    }
    aclrtEvent ev;
    ipc_check(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC), "aclrtCreateEventExWithFlag(ACL_EVENT_IPC)");
    aclrtIpcEventHandle h;
    ipc_check(aclrtIpcGetEventHandle(ev, &h), "aclrtIpcGetEventHandle");
    aclrtStream a;
    ipc_check(aclrtCreateStream(&a), "aclrtCreateStream");

    /* Another process. */
    memset(sh, 0, sizeof *sh);
    memcpy(sh->handle, &h, sizeof h);
    const char *skip = NULL;
    pid_t pid = spawn_peer(fd);
    char why[96];
    if (pid < 0) {
        skip = "fork failed";
    } else if (!wait_eq(&sh->ready, 1, IPC_TIMEOUT_S, 100000)) {
        snprintf(why, sizeof why, "the peer process did not start (ready %llu, code %d)",
                 (unsigned long long)atomic_load(&sh->ready), (int)atomic_load(&sh->rc));
        skip = why;
    }
    measure("ipc_event_release", sh, ev, a, skip);
    if (pid > 0) {
        atomic_store_explicit(&sh->go, IPC_END, memory_order_release);
        if (skip != NULL)
            kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }

    /* A thread of this process, on the same event. */
    memset(sh, 0, sizeof *sh);
    memcpy(sh->handle, &h, sizeof h);
    pthread_t t;
    pthread_create(&t, NULL, local_waiter_main, sh);
    skip = wait_eq(&sh->ready, 1, IPC_TIMEOUT_S, 100000) ? NULL : "the waiting thread could not open the event";
    measure("ipc_event_release_local", sh, ev, a, skip);
    atomic_store_explicit(&sh->go, IPC_END, memory_order_release);
    pthread_join(t, NULL);

    ipc_check(aclrtDestroyStream(a), "aclrtDestroyStream");
    ipc_check(aclrtDestroyEvent(ev), "aclrtDestroyEvent");
    munmap(sh, sizeof *sh);
    close(fd);
}
