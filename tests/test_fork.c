/*
 * tests/test_fork.c - pins "fork()" (docs/SEMANTICS.md): a child forked
 * from a process whose runtime had started a device gets
 * ACL_ERROR_RT_DEV_SETUP_ERROR and a message from every call that needs a
 * device, never a hang; its aclFinalize frees the inherited runtime, and
 * aclInit then gives it a runtime of its own.
 *
 * Each child runs its checks and exits with 0, or with the number of the
 * first check that failed (after printing it). The parent waits for it with
 * a generous limit and kills it past that, so a hang fails the case instead
 * of hanging the suite. With external progress (the suite's variant whose
 * devices are driven by driver threads of the test harness) the child has
 * no driver threads either: it starts one of its own once it has a runtime
 * of its own. ThreadSanitizer does not support a child that creates threads
 * after a multi-threaded fork, so under it the child's own runtime uses
 * external progress driven by the child's only thread; so it does under
 * AddressSanitizer (see CHILD_THREADLESS).
 */
#define _GNU_SOURCE

#include "check.h"
#include "gate.h"
#include "probe.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
/*
 * The child may not start threads. ThreadSanitizer does not support it;
 * under GCC 12's AddressSanitizer a fork while the parent's runtime starts a
 * thread (an executor added beside one held by a gate) can leave the
 * sanitizer's allocator lock held in the child, where the next thread start
 * waits for it for ever (seen about once in 100 runs on a loaded machine).
 */
#define CHILD_THREADLESS 1
#else
#define CHILD_THREADLESS 0
#endif

#ifndef CHILD_LIMIT_S
#define CHILD_LIMIT_S 120
#endif

/* ------------------------------------------------------------------------
 * The child's side
 * ------------------------------------------------------------------------ */

static int child_check_no;

/* In a child: a failed check prints itself and ends the child with its number. */
#define CHILD_CHECK_EQ(expected, actual)                                                                  \
    do {                                                                                                  \
        child_check_no++;                                                                                 \
        long long child_e_ = (long long)(expected), child_a_ = (long long)(actual);                       \
        if (child_e_ != child_a_) {                                                                       \
            const char *child_msg_ = aclGetRecentErrMsg();                                                \
            fprintf(stderr, "FAIL %s:%d [%s, in the child]\n  check: %s == %s\n  expected %lld, saw %lld\n" \
                            "  runtime said: %s\n",                                                       \
                    __FILE__, __LINE__, check_case_name, #actual, #expected, child_e_, child_a_,          \
                    child_msg_ != NULL ? child_msg_ : "(nothing)");                                       \
            fflush(stderr);                                                                               \
            _exit(child_check_no);                                                                        \
        }                                                                                                 \
    } while (0)

#define CHILD_CHECK(cond) CHILD_CHECK_EQ(1, (cond) ? 1 : 0)

/* The call failed with the fork code, and said why. */
#define CHILD_CHECK_FORKED(call)                                                                          \
    do {                                                                                                  \
        aclGetRecentErrMsg();                                                                             \
        CHILD_CHECK_EQ(ACL_ERROR_RT_DEV_SETUP_ERROR, (call));                                             \
        const char *child_text_ = aclGetRecentErrMsg();                                                   \
        CHILD_CHECK(child_text_ != NULL && strstr(child_text_, "forked") != NULL);                        \
    } while (0)

static int external_progress(void)
{
    const char *p = getenv("ACLRT_PROGRESS");
    return p != NULL && strcmp(p, "external") == 0;
}

/* External progress in a child: one driver thread of its own for device 0. */
static atomic_int child_driver_stop;

static void *child_driver_main(void *arg)
{
    (void)arg;
    struct pollfd fd = {-1, POLLIN, 0};
    if (aclrtxDeviceProgressFd(0, &fd.fd) != ACL_SUCCESS)
        return NULL;
    while (!atomic_load(&child_driver_stop)) {
        poll(&fd, 1, 1);
        aclrtxProgressInfo info;
        do {
            if (aclrtxDeviceProgress(0, 256, &info) != ACL_SUCCESS)
                break;
        } while (info.streamsReady > 0);
    }
    return NULL;
}

static pthread_t child_driver;

static void child_driver_start(void)
{
    if (!external_progress() || CHILD_THREADLESS)
        return;
    atomic_store(&child_driver_stop, 0);
    CHILD_CHECK_EQ(0, pthread_create(&child_driver, NULL, child_driver_main, NULL));
}

static void child_driver_stop_now(void)
{
    if (!external_progress() || CHILD_THREADLESS)
        return;
    atomic_store(&child_driver_stop, 1);
    CHILD_CHECK_EQ(0, pthread_join(child_driver, NULL));
}

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

/* Without threads of its own (CHILD_THREADLESS): run device 0's work on this thread until s is idle. */
static void child_drive(aclrtStream s)
{
    if (!CHILD_THREADLESS)
        return;
    for (long i = 0; i < 100000000L; i++) {
        aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
        CHILD_CHECK_EQ(ACL_SUCCESS, aclrtStreamQuery(s, &st));
        if (st == ACL_STREAM_STATUS_COMPLETE)
            return;
        aclrtxProgressInfo info;
        CHILD_CHECK_EQ(ACL_SUCCESS, aclrtxDeviceProgress(0, 256, &info));
    }
    CHILD_CHECK(0); /* the stream never finished */
}

/* In a child: the runtime works (device, stream, host function, event, synchronize, reset). */
static void child_works(void)
{
    child_driver_start();
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtSetDevice(0));
    aclrtStream s = NULL;
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
    atomic_int ran = 0;
    for (int i = 0; i < 10; i++)
        CHILD_CHECK_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(s, count_fn, &ran));
    aclrtEvent e = NULL;
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtRecordEvent(e, s));
    child_drive(s);
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(e));
    CHILD_CHECK_EQ(10, atomic_load(&ran));
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtLaunchHostFunc(s, count_fn, &ran));
    child_drive(s);
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtSynchronizeStream(s));
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtSynchronizeDevice());
    CHILD_CHECK_EQ(11, atomic_load(&ran));
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtDestroyEvent(e));
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtResetDevice(0));
    child_driver_stop_now();
}

/* The cuda backend (tests/impl_cuda.c sets ACLRT_BACKEND before main)? */
static bool on_cuda_backend(void)
{
    const char *b = getenv("ACLRT_BACKEND");
    return b != NULL && strcmp(b, "cuda") == 0;
}

/*
 * In a child whose inherited runtime is finalized: aclInit gives a runtime of
 * its own that works. On the cuda backend aclInit may instead refuse, with
 * ACL_ERROR_RT_NO_DEVICE and a message: CUDA cannot start again in a child
 * forked after the parent used it. Then there is no runtime to check.
 * Did the child start a runtime?
 */
static bool child_uses_a_runtime_of_its_own(void)
{
    if (CHILD_THREADLESS)
        setenv("ACLRT_PROGRESS", "external", 1); /* read by aclInit */
    aclError rc = aclInit(NULL);
    if (rc != ACL_SUCCESS && on_cuda_backend()) {
        CHILD_CHECK_EQ(ACL_ERROR_RT_NO_DEVICE, rc);
        const char *msg = aclGetRecentErrMsg();
        CHILD_CHECK(msg != NULL && msg[0] != '\0');
        return false;
    }
    CHILD_CHECK_EQ(ACL_SUCCESS, rc);
    child_works();
    CHILD_CHECK_EQ(ACL_SUCCESS, aclFinalize());
    return true;
}

/* ------------------------------------------------------------------------
 * The parent's side
 * ------------------------------------------------------------------------ */

/* Fork; the child runs fn and exits 0. The parent returns the child's pid. */
static pid_t fork_child(void (*fn)(void *), void *arg)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        fn(arg);
        _exit(0);
    }
    return pid;
}

/* Wait for the child (bounded: past the limit it is killed and the case fails); its exit status. */
static int child_status(pid_t pid)
{
    struct timespec pause = {0, 1000000};
    for (long waited_ms = 0; waited_ms < CHILD_LIMIT_S * 1000L; waited_ms++) {
        int status;
        pid_t got = waitpid(pid, &status, WNOHANG);
        CHECK(got >= 0);
        if (got == pid) {
            if (WIFSIGNALED(status))
                fprintf(stderr, "  the child died of signal %d\n", WTERMSIG(status));
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        }
        nanosleep(&pause, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fprintf(stderr, "FAIL [%s]\n  the child did not finish within %d s (it hangs)\n", check_case_name, CHILD_LIMIT_S);
    CHECK(0);
    return -1;
}

/* Each case starts with a stopped runtime. */
static void start(void)
{
    gates_open_all();
    aclFinalize();
    aclGetRecentErrMsg();
}

/* ------------------------------------------------------------------------ */

struct inherited {
    aclrtStream idle, blocked; /* blocked: a gate holds it (the parent opens it after the child is done) */
    aclrtEvent done, pending;  /* pending: recorded behind the gate */
    aclrtContext ctx;
};

static void child_with_inherited_runtime(void *arg)
{
    struct inherited *in = (struct inherited *)arg;
    atomic_int ran = 0;
    /* The calls the inherited runtime would hang in, or could not serve. */
    CHILD_CHECK_FORKED(aclrtSynchronizeStream(in->blocked));
    CHILD_CHECK_FORKED(aclrtSynchronizeStreamWithTimeout(in->blocked, -1));
    CHILD_CHECK_FORKED(aclrtSynchronizeEvent(in->pending));
    CHILD_CHECK_FORKED(aclrtSynchronizeDevice());
    CHILD_CHECK_FORKED(aclrtLaunchHostFunc(in->idle, count_fn, &ran));
    CHILD_CHECK_FORKED(aclrtLaunchHostFunc(NULL, count_fn, &ran));
    CHILD_CHECK_FORKED(aclrtRecordEvent(in->done, in->idle));
    CHILD_CHECK_FORKED(aclrtDestroyStream(in->blocked));
    aclrtStream s = NULL;
    CHILD_CHECK_FORKED(aclrtCreateStream(&s));
    aclrtEvent e = NULL;
    CHILD_CHECK_FORKED(aclrtCreateEvent(&e));
    void *mem = NULL;
    CHILD_CHECK_FORKED(aclrtMalloc(&mem, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CHILD_CHECK_FORKED(aclrtSetDevice(0));
    CHILD_CHECK_FORKED(aclrtSetCurrentContext(in->ctx));
    CHILD_CHECK_FORKED(aclrtResetDevice(0));
    CHILD_CHECK_FORKED(aclrtDestroyContext(in->ctx));
    CHILD_CHECK_FORKED(aclrtProcessReport(-1));
    int32_t dev = -1;
    CHILD_CHECK_FORKED(aclrtGetDevice(&dev));
    /* Work that had finished before the fork is still done. */
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtSynchronizeEvent(in->done));
    CHILD_CHECK_EQ(0, atomic_load(&ran));
    /* aclFinalize frees the inherited runtime; aclInit starts one of the child's own. */
    CHILD_CHECK_EQ(ACL_SUCCESS, aclFinalize());
    if (child_uses_a_runtime_of_its_own()) /* handles of the inherited runtime are gone */
        CHILD_CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(in->blocked));
}

TEST(a_forked_child_gets_dev_setup_error_and_starts_over_after_finalize)
{
    start();
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    struct inherited in;
    CHECK_OK(aclrtGetCurrentContext(&in.ctx));
    in.idle = new_stream();
    in.blocked = new_stream();
    CHECK_OK(aclrtCreateEventWithFlag(&in.done, ACL_EVENT_SYNC));
    CHECK_OK(aclrtCreateEventWithFlag(&in.pending, ACL_EVENT_SYNC));
    atomic_int ran = 0;
    CHECK_OK(aclrtLaunchHostFunc(in.idle, count_fn, &ran));
    CHECK_OK(aclrtRecordEvent(in.done, in.idle));
    CHECK_OK(aclrtSynchronizeEvent(in.done));
    struct gate *g = busy(in.blocked);
    CHECK_OK(aclrtLaunchHostFunc(in.blocked, count_fn, &ran));
    CHECK_OK(aclrtRecordEvent(in.pending, in.blocked));
    pid_t pid = fork_child(child_with_inherited_runtime, &in);
    CHECK_EQ(0, child_status(pid));
    /* The parent's runtime is untouched. */
    gate_open(g);
    CHECK_OK(aclrtSynchronizeEvent(in.pending));
    CHECK_EQ(2, atomic_load(&ran));
    CHECK_OK(aclrtDestroyEvent(in.done));
    CHECK_OK(aclrtDestroyEvent(in.pending));
    CHECK_OK(aclrtDestroyStream(in.idle));
    CHECK_OK(aclrtDestroyStream(in.blocked));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

static void child_without_device(void *arg)
{
    (void)arg;
    /* The inherited runtime had no thread: it works here as it is. */
    uint32_t count = 0;
    CHILD_CHECK_EQ(ACL_SUCCESS, aclrtGetDeviceCount(&count));
    CHILD_CHECK(count >= 1);
    if (on_cuda_backend()) {
        /* aclInit's probe started CUDA in the parent: no device of the child's can start. */
        CHILD_CHECK_EQ(ACL_ERROR_RT_NO_DEVICE, aclrtSetDevice(0));
        const char *msg = aclGetRecentErrMsg();
        CHILD_CHECK(msg != NULL && msg[0] != '\0');
    } else if (!CHILD_THREADLESS) {
        child_works(); /* its first device starts here, with threads of the child's */
    }
    CHILD_CHECK_EQ(ACL_SUCCESS, aclFinalize());
    (void)child_uses_a_runtime_of_its_own();
}

TEST(a_child_forked_before_any_device_started_uses_the_runtime_as_it_is)
{
    start();
    CHECK_OK(aclInit(NULL));
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count)); /* the runtime has started, no device has */
    CHECK(count >= 1);
    pid_t pid = fork_child(child_without_device, NULL);
    CHECK_EQ(0, child_status(pid));
    CHECK_OK(aclFinalize());
}

/* Threads that keep the parent's runtime busy while it forks: launches, synchronizes, streams come and go. */
struct busy_thread {
    pthread_t thread;
    aclrtContext ctx;
    atomic_int *stop;
    atomic_int ran;
    int failures;
};

static void *busy_thread_main(void *arg)
{
    struct busy_thread *b = (struct busy_thread *)arg;
    if (aclrtSetCurrentContext(b->ctx) != ACL_SUCCESS)
        b->failures++;
    while (!atomic_load(b->stop)) {
        aclrtStream s = NULL;
        if (aclrtCreateStream(&s) != ACL_SUCCESS) {
            b->failures++;
            continue;
        }
        for (int i = 0; i < 4; i++)
            if (aclrtLaunchHostFunc(s, count_fn, &b->ran) != ACL_SUCCESS)
                b->failures++;
        if (aclrtSynchronizeStream(s) != ACL_SUCCESS || aclrtDestroyStream(s) != ACL_SUCCESS)
            b->failures++;
        aclGetRecentErrMsg();
    }
    return NULL;
}

static void child_of_a_busy_runtime(void *arg)
{
    (void)arg;
    CHILD_CHECK_FORKED(aclrtSynchronizeDevice());
    CHILD_CHECK_FORKED(aclrtSetDevice(0));
    CHILD_CHECK_EQ(ACL_SUCCESS, aclFinalize());
    (void)child_uses_a_runtime_of_its_own();
}

TEST(children_forked_while_other_threads_use_the_runtime_finalize_and_start_over)
{
    enum { THREADS = 2, CHILDREN = 4 };
    start();
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    aclrtContext ctx;
    CHECK_OK(aclrtGetCurrentContext(&ctx));
    atomic_int stop = 0;
    struct busy_thread b[THREADS];
    for (int i = 0; i < THREADS; i++) {
        b[i].ctx = ctx;
        b[i].stop = &stop;
        atomic_init(&b[i].ran, 0);
        b[i].failures = 0;
        CHECK_EQ(0, pthread_create(&b[i].thread, NULL, busy_thread_main, &b[i]));
    }
    int statuses[CHILDREN];
    for (int c = 0; c < CHILDREN; c++) {
        for (int k = 0; k < 200; k++)
            sched_yield(); /* not synchronization: let the busy threads get under way between forks */
        statuses[c] = child_status(fork_child(child_of_a_busy_runtime, NULL));
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(0, pthread_join(b[i].thread, NULL));
    for (int c = 0; c < CHILDREN; c++)
        CHECK_EQ(0, statuses[c]);
    for (int i = 0; i < THREADS; i++)
        CHECK_EQ(0, b[i].failures);
    CHECK_OK(aclrtSynchronizeDevice());
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

int main(void)
{
    RUN(a_forked_child_gets_dev_setup_error_and_starts_over_after_finalize);
    RUN(a_child_forked_before_any_device_started_uses_the_runtime_as_it_is);
#if !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
    /*
     * Not in sanitizer builds: a fork while other threads allocate can leave
     * the sanitizer runtime's own allocator lock held in the child, which then
     * waits for ever at its next allocation (seen with GCC 12's ASan in a
     * thread the child started). The release build runs it.
     */
    RUN(children_forked_while_other_threads_use_the_runtime_finalize_and_start_over);
#endif
    start();
    return check_report("fork");
}
