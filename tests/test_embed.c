/*
 * tests/test_embed.c - pins embedding (docs/EMBEDDING.md): external
 * progress (aclrt.progress "external": no runtime threads; the program runs
 * the streams with aclrtxDeviceProgress and waits on aclrtxDeviceProgressFd),
 * backends an embedder registers (aclrtxRegisterBackend), the choice of a
 * backend by name, and init / finalize cycles between them.
 *
 * Each case starts and finalizes its own runtime. Nothing here runs in the
 * external-progress test configuration: there, driver threads of the test
 * harness would run the streams that these cases drive by hand.
 */
#define _GNU_SOURCE

#include "check.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void count_fn(void *arg)
{
    atomic_fetch_add((atomic_int *)arg, 1);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Is the fd readable right now? */
static int readable(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

static void start_external(void)
{
    setenv("ACLRT_PROGRESS", "external", 1);
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
}

static void stop_runtime(void)
{
    aclrtResetDevice(0);
    aclFinalize();
    unsetenv("ACLRT_PROGRESS");
    unsetenv("ACLRT_BACKEND");
}

/* Run device 0 until no stream is ready; the tasks that ran. */
static uint32_t progress_all(void)
{
    uint32_t ran = 0;
    aclrtxProgressInfo info;
    do {
        CHECK_OK(aclrtxDeviceProgress(0, 64, &info));
        ran += info.tasksRun;
    } while (info.streamsReady > 0);
    return ran;
}

TEST(with_external_progress_nothing_runs_until_a_progress_call_runs_it)
{
    start_external();
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int ran;
    atomic_store(&ran, 0);
    for (int i = 0; i < 3; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_EQ(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 20));
    CHECK_EQ(0, atomic_load(&ran)); /* no runtime thread ran them */
    CHECK_EQ(3, progress_all());
    CHECK_EQ(3, atomic_load(&ran));
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclrtDestroyStream(s));
    stop_runtime();
}

TEST(a_progress_budget_bounds_the_tasks_of_one_call_and_says_what_is_still_ready)
{
    start_external();
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int ran;
    atomic_store(&ran, 0);
    for (int i = 0; i < 10; i++)
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    aclrtxProgressInfo info;
    CHECK_OK(aclrtxDeviceProgress(0, 3, &info));
    CHECK_EQ(3, info.tasksRun);
    CHECK_EQ(3, atomic_load(&ran));
    CHECK_EQ(1, info.streamsReady);
    CHECK_OK(aclrtxDeviceProgress(0, 0, &info)); /* budget 0: report only */
    CHECK_EQ(0, info.tasksRun);
    CHECK_EQ(1, info.streamsReady);
    CHECK_EQ(7, progress_all());
    CHECK_OK(aclrtxDeviceProgress(0, 64, &info));
    CHECK_EQ(0, info.streamsReady);
    CHECK_OK(aclrtDestroyStream(s));
    stop_runtime();
}

TEST(the_eventfd_becomes_readable_when_work_arrives_and_a_progress_call_consumes_it)
{
    start_external();
    int fd = -1;
    CHECK_OK(aclrtxDeviceProgressFd(0, &fd));
    CHECK(fd >= 0);
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    progress_all();
    CHECK_EQ(0, readable(fd));
    static atomic_int ran;
    atomic_store(&ran, 0);
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK_EQ(1, readable(fd));
    CHECK_EQ(1, progress_all());
    CHECK_EQ(0, readable(fd));
    int again = -1;
    CHECK_OK(aclrtxDeviceProgressFd(0, &again));
    CHECK_EQ(fd, again); /* one eventfd per device */
    CHECK_OK(aclrtDestroyStream(s));
    stop_runtime();
    /* The same fd after a finalize and a new runtime: an event loop registers it once. */
    start_external();
    CHECK_OK(aclrtxDeviceProgressFd(0, &again));
    CHECK_EQ(fd, again);
    stop_runtime();
}

TEST(progress_reports_the_next_timer_and_fires_it_when_it_is_due)
{
    start_external();
    aclrtStream a, b;
    CHECK_OK(aclrtCreateStream(&a));
    CHECK_OK(aclrtCreateStream(&b));
    aclrtEvent e;
    CHECK_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC)); /* never recorded: the wait cannot end but by timing out */
    CHECK_OK(aclrtStreamWaitEventWithTimeout(b, e, 1));
    uint64_t before = now_ns();
    progress_all(); /* b reaches its wait and parks, with a deadline 1 s away */
    aclrtxProgressInfo info;
    CHECK_OK(aclrtxDeviceProgress(0, 64, &info));
    CHECK(info.nextDeadlineNs != UINT64_MAX);
    CHECK(info.nextDeadlineNs >= before + 1000000000ull);
    /* An event loop sleeps on the fd until the deadline, then calls progress. */
    int fd;
    CHECK_OK(aclrtxDeviceProgressFd(0, &fd));
    while (now_ns() < info.nextDeadlineNs) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        poll(&p, 1, (int)((info.nextDeadlineNs - now_ns()) / 1000000 + 1));
    }
    progress_all();
    CHECK_EQ(ACL_ERROR_RT_TASK_TIMEOUT, aclrtSynchronizeStream(b));
    CHECK_OK(aclrtDestroyEvent(e));
    CHECK_OK(aclrtDestroyStream(a));
    CHECK_OK(aclrtDestroyStream(b));
    stop_runtime();
}

TEST(progress_and_its_fd_validate_their_arguments_and_need_no_running_runtime)
{
    aclrtxProgressInfo info;
    int fd;
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtxDeviceProgress(-1, 1, &info));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtxDeviceProgress(64, 1, &info));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxDeviceProgressFd(0, NULL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtxDeviceProgressFd(64, &fd));
    /* Before the runtime starts: no work, no error; the fd exists already. */
    info.tasksRun = 99;
    CHECK_OK(aclrtxDeviceProgress(3, 8, &info));
    CHECK_EQ(0, info.tasksRun);
    CHECK_EQ(0, info.streamsReady);
    CHECK_EQ(UINT64_MAX, info.nextDeadlineNs);
    CHECK_OK(aclrtxDeviceProgress(3, 8, NULL));
    CHECK_OK(aclrtxDeviceProgressFd(3, &fd));
    CHECK(fd >= 0);
}

static void progress_from_a_task(void *arg)
{
    *(aclError *)arg = aclrtxDeviceProgress(0, 1, NULL);
}

TEST(a_task_cannot_drive_progress)
{
    start_external();
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static aclError rc;
    rc = -1;
    CHECK_OK(aclrtLaunchHostFunc(s, progress_from_a_task, &rc));
    progress_all();
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, rc);
    CHECK_OK(aclrtDestroyStream(s));
    stop_runtime();
}

/* ------------------------------------------------------------------------
 * Registered backends
 * ------------------------------------------------------------------------ */

struct fake {
    uint32_t devices;
    aclError open_rc;
    atomic_int opens, closes, starts, stops, wakes, allocs, frees;
    uint64_t clock;
};

static aclError fake_open(void *user, uint32_t *count)
{
    struct fake *f = (struct fake *)user;
    atomic_fetch_add(&f->opens, 1);
    *count = f->devices;
    return f->open_rc;
}

static void fake_close(void *user)
{
    atomic_fetch_add(&((struct fake *)user)->closes, 1);
}

static aclError fake_device_start(void *user, int32_t id)
{
    (void)id;
    atomic_fetch_add(&((struct fake *)user)->starts, 1);
    return ACL_SUCCESS;
}

static void fake_device_stop(void *user, int32_t id)
{
    (void)id;
    atomic_fetch_add(&((struct fake *)user)->stops, 1);
}

static void fake_work_arrived(void *user, int32_t id)
{
    (void)id;
    atomic_fetch_add(&((struct fake *)user)->wakes, 1);
}

static aclError fake_alloc(void *user, int32_t id, size_t size, void **ptr)
{
    (void)id;
    atomic_fetch_add(&((struct fake *)user)->allocs, 1);
    *ptr = malloc(size);
    return *ptr != NULL ? ACL_SUCCESS : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

static void fake_free(void *user, int32_t id, void *ptr)
{
    (void)id;
    atomic_fetch_add(&((struct fake *)user)->frees, 1);
    free(ptr);
}

static uint64_t fake_clock(void *user, int32_t id)
{
    (void)id;
    return ((struct fake *)user)->clock += 1000000; /* every stamp 1 ms after the previous one */
}

static aclrtxBackend fake_desc(struct fake *f, const char *name)
{
    aclrtxBackend b;
    memset(&b, 0, sizeof b);
    b.version = ACLRTX_BACKEND_VERSION;
    b.size = sizeof b;
    b.name = name;
    b.user = f;
    b.open = fake_open;
    b.close = fake_close;
    b.deviceStart = fake_device_start;
    b.deviceStop = fake_device_stop;
    b.workArrived = fake_work_arrived;
    b.memAlloc = fake_alloc;
    b.memFree = fake_free;
    b.timestampNs = fake_clock;
    return b;
}

TEST(register_validates_the_descriptor)
{
    static struct fake f;
    aclrtxBackend b = fake_desc(&f, "checked");
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxRegisterBackend(NULL));
    b.version = 99;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxRegisterBackend(&b));
    b = fake_desc(&f, "checked");
    b.size = 8;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxRegisterBackend(&b));
    b = fake_desc(&f, NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxRegisterBackend(&b));
    b = fake_desc(&f, "checked");
    b.open = NULL;
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxRegisterBackend(&b));
    b = fake_desc(&f, "");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxRegisterBackend(&b));
    b = fake_desc(&f, "a-name-that-is-longer-than-thirty-one-bytes");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxRegisterBackend(&b));
    b = fake_desc(&f, "checked");
    b.memFree = NULL;
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxRegisterBackend(&b));
    b = fake_desc(&f, "host");
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxRegisterBackend(&b)); /* a built-in name */
    b = fake_desc(&f, "checked");
    CHECK_OK(aclrtxRegisterBackend(&b));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxRegisterBackend(&b)); /* twice */
    CHECK_OK(aclrtxUnregisterBackend("checked"));
    CHECK_EQ(ACL_ERROR_RT_PARAM_INVALID, aclrtxUnregisterBackend("checked"));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtxUnregisterBackend(NULL));
}

TEST(at_most_eight_backends_are_registered_at_once)
{
    static struct fake f;
    char names[9][16];
    for (int i = 0; i < 8; i++) {
        snprintf(names[i], sizeof names[i], "b%d", i);
        aclrtxBackend b = fake_desc(&f, names[i]);
        CHECK_OK(aclrtxRegisterBackend(&b));
    }
    aclrtxBackend ninth = fake_desc(&f, "b8");
    CHECK_EQ(ACL_ERROR_RT_OVER_LIMIT, aclrtxRegisterBackend(&ninth));
    for (int i = 0; i < 8; i++)
        CHECK_OK(aclrtxUnregisterBackend(names[i]));
    CHECK_OK(aclrtxRegisterBackend(&ninth));
    CHECK_OK(aclrtxUnregisterBackend("b8"));
}

TEST(an_unknown_backend_name_fails_at_aclinit_and_at_the_first_call_that_starts_the_runtime)
{
    setenv("ACLRT_BACKEND", "nosuch", 1);
    CHECK_EQ(ACL_ERROR_RT_NO_DEVICE, aclInit(NULL));
    const char *msg = aclGetRecentErrMsg();
    CHECK_STR_CONTAINS(msg, "\"nosuch\" is not available");
    CHECK_STR_CONTAINS(msg, "host");
    CHECK_EQ(ACL_ERROR_RT_NO_DEVICE, aclrtSetDevice(0)); /* no aclInit: the environment alone */
    uint32_t count;
    CHECK_EQ(ACL_ERROR_RT_NO_DEVICE, aclrtGetDeviceCount(&count));
    unsetenv("ACLRT_BACKEND");
    CHECK_OK(aclInit(NULL)); /* and the runtime still starts once the name is right */
    CHECK_OK(aclrtSetDevice(0));
    CHECK_STR_CONTAINS(aclrtxGetBackendName(), "host");
    stop_runtime();
}

static float elapsed_ms(aclrtStream s)
{
    aclrtEvent a, b;
    CHECK_OK(aclrtCreateEvent(&a));
    CHECK_OK(aclrtCreateEvent(&b));
    CHECK_OK(aclrtRecordEvent(a, s));
    CHECK_OK(aclrtRecordEvent(b, s));
    float ms = -1;
    CHECK_OK(aclrtEventElapsedTime(&ms, a, b));
    CHECK_OK(aclrtDestroyEvent(a));
    CHECK_OK(aclrtDestroyEvent(b));
    return ms;
}

TEST(a_registered_backend_runs_the_runtime_with_its_devices_memory_clock_and_wake_ups)
{
    static struct fake f;
    memset(&f, 0, sizeof f);
    f.devices = 3;
    aclrtxBackend b = fake_desc(&f, "mine");
    CHECK_OK(aclrtxRegisterBackend(&b));
    setenv("ACLRT_BACKEND", "mine", 1);
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(1));
    CHECK_EQ(1, atomic_load(&f.opens));
    CHECK_EQ(1, atomic_load(&f.starts));
    uint32_t count = 0;
    CHECK_OK(aclrtGetDeviceCount(&count));
    CHECK_EQ(3, count);
    CHECK(strcmp(aclrtxGetBackendName(), "mine") == 0);
    /* Its threads run the streams: nothing runs until it calls progress, and a launch wakes it. */
    aclrtStream s;
    CHECK_OK(aclrtCreateStream(&s));
    static atomic_int ran;
    atomic_store(&ran, 0);
    int wakes = atomic_load(&f.wakes);
    CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
    CHECK(atomic_load(&f.wakes) > wakes);
    CHECK_EQ(0, atomic_load(&ran));
    aclrtxProgressInfo info;
    do
        CHECK_OK(aclrtxDeviceProgress(1, 64, &info));
    while (info.streamsReady > 0);
    CHECK_EQ(1, atomic_load(&ran));
    /* Its memory and its clock. */
    void *p = NULL;
    CHECK_OK(aclrtMalloc(&p, 256, ACL_MEM_MALLOC_HUGE_FIRST));
    CHECK_EQ(1, atomic_load(&f.allocs));
    CHECK_OK(aclrtFree(p));
    CHECK_EQ(1, atomic_load(&f.frees));
    float ms = elapsed_ms(s); /* two records on an idle stream: two stamps of its clock, 1 ms apart */
    CHECK(ms > 0.99f && ms < 1.01f);
    /* It cannot be unregistered while it runs the runtime. */
    CHECK_EQ(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, aclrtxUnregisterBackend("mine"));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(1));
    CHECK_OK(aclFinalize());
    CHECK_EQ(1, atomic_load(&f.stops));
    CHECK_EQ(1, atomic_load(&f.closes));
    unsetenv("ACLRT_BACKEND");
    CHECK_OK(aclrtxUnregisterBackend("mine"));
}

TEST(a_registered_backend_that_refuses_to_open_fails_the_start_with_its_code)
{
    static struct fake f;
    memset(&f, 0, sizeof f);
    f.devices = 1;
    f.open_rc = ACL_ERROR_RT_NO_PERMISSION;
    aclrtxBackend b = fake_desc(&f, "refuses");
    CHECK_OK(aclrtxRegisterBackend(&b));
    setenv("ACLRT_BACKEND", "refuses", 1);
    CHECK_OK(aclInit(NULL)); /* the name exists: the open is at the runtime's start */
    CHECK_EQ(ACL_ERROR_RT_NO_PERMISSION, aclrtSetDevice(0));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "refuses");
    CHECK_OK(aclFinalize());
    f.open_rc = ACL_SUCCESS;
    f.devices = 0; /* no device */
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(ACL_ERROR_RT_NO_DEVICE, aclrtSetDevice(0));
    CHECK_OK(aclFinalize());
    unsetenv("ACLRT_BACKEND");
    CHECK_OK(aclrtxUnregisterBackend("refuses"));
}

TEST(init_finalize_cycles_move_between_the_host_backend_and_a_registered_one)
{
    static struct fake f;
    memset(&f, 0, sizeof f);
    f.devices = 1;
    aclrtxBackend b = fake_desc(&f, "cycled");
    CHECK_OK(aclrtxRegisterBackend(&b));
    for (int cycle = 0; cycle < 4; cycle++) {
        int registered = cycle % 2;
        if (registered)
            setenv("ACLRT_BACKEND", "cycled", 1);
        CHECK_OK(aclInit(NULL));
        CHECK_OK(aclrtSetDevice(0));
        CHECK(strcmp(aclrtxGetBackendName(), registered ? "cycled" : "host") == 0);
        aclrtStream s;
        CHECK_OK(aclrtCreateStream(&s));
        static atomic_int ran;
        atomic_store(&ran, 0);
        CHECK_OK(aclrtLaunchHostFunc(s, count_fn, &ran));
        if (registered)
            progress_all();
        CHECK_OK(aclrtSynchronizeStream(s));
        CHECK_EQ(1, atomic_load(&ran));
        CHECK_OK(aclrtDestroyStream(s));
        stop_runtime();
    }
    CHECK_EQ(2, atomic_load(&f.opens));
    CHECK_EQ(2, atomic_load(&f.closes));
    CHECK_OK(aclrtxUnregisterBackend("cycled"));
}

int main(void)
{
    unsetenv("ACLRT_PROGRESS");
    unsetenv("ACLRT_BACKEND");
    RUN(with_external_progress_nothing_runs_until_a_progress_call_runs_it);
    RUN(a_progress_budget_bounds_the_tasks_of_one_call_and_says_what_is_still_ready);
    RUN(the_eventfd_becomes_readable_when_work_arrives_and_a_progress_call_consumes_it);
    RUN(progress_reports_the_next_timer_and_fires_it_when_it_is_due);
    RUN(progress_and_its_fd_validate_their_arguments_and_need_no_running_runtime);
    RUN(a_task_cannot_drive_progress);
    RUN(register_validates_the_descriptor);
    RUN(at_most_eight_backends_are_registered_at_once);
    RUN(an_unknown_backend_name_fails_at_aclinit_and_at_the_first_call_that_starts_the_runtime);
    RUN(a_registered_backend_runs_the_runtime_with_its_devices_memory_clock_and_wake_ups);
    RUN(a_registered_backend_that_refuses_to_open_fails_the_start_with_its_code);
    RUN(init_finalize_cycles_move_between_the_host_backend_and_a_registered_one);
    return check_report("embed");
}
