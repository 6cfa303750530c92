/*
 * tests/test_init.c - init & errors: aclInit reference counting, the JSON
 * configuration file, environment overrides, aclFinalize, the recent-error
 * text (aclGetRecentErrMsg) and the per-thread last error.
 *
 * The runtime reads its configuration (file, environment) only when it
 * starts, and it starts lazily. Every case but the first begins with
 * fresh(): no aclInit reference, runtime stopped, no ACLRT_* variables, no
 * leftover error text, so that the case decides when the runtime starts.
 * The first case needs a process in which aclInit was never called.
 */
#define _GNU_SOURCE 1

#include "check.h"
#include "threads.h"

#include <dirent.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------ */

#define MAX_TEMP_FILES 16
static char temp_files[MAX_TEMP_FILES][64];
static int temp_file_count;

/* A configuration file under /tmp holding `len` bytes of `content`; its path. */
static const char *temp_config_n(const char *content, size_t len)
{
    CHECK(temp_file_count < MAX_TEMP_FILES);
    char *path = temp_files[temp_file_count];
    snprintf(path, sizeof temp_files[0], "/tmp/aclrt_test_init_XXXXXX");
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    temp_file_count++;
    size_t done = 0;
    while (done < len) {
        ssize_t w = write(fd, content + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    close(fd);
    CHECK_EQ(len, done);
    return path;
}

static const char *temp_config(const char *content)
{
    return temp_config_n(content, strlen(content));
}

static void remove_temp_files(void)
{
    for (int i = 0; i < temp_file_count; i++)
        unlink(temp_files[i]);
    temp_file_count = 0;
}

static void clear_env(void)
{
    unsetenv("ACLRT_DEVICES");
    unsetenv("ACLRT_DEFAULT_DEVICE");
    unsetenv("ACLRT_PROFILE");
}

/*
 * Start each case from scratch: no aclInit reference, runtime stopped with
 * its configuration forgotten, per-thread message scope, nothing recorded.
 * (Twice: a runtime left started with err_msg_mode "1" is restarted with
 * the defaults before the final stop.)
 */
static void fresh(void)
{
    clear_env();
    for (int i = 0; i < 2; i++) {
        (void)aclInit(NULL); /* success, or a repeat: either way at least one reference */
        uint32_t n;
        (void)aclrtGetDeviceCount(&n); /* started: the stop below forgets the configuration */
        (void)aclFinalize();
    }
    remove_temp_files();
    (void)aclGetRecentErrMsg();
    (void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
}

static uint32_t device_count(void)
{
    uint32_t n = 0;
    CHECK_OK(aclrtGetDeviceCount(&n));
    return n;
}

static void set_flag(void *p)
{
    atomic_store((atomic_int *)p, 1);
}

static void add_one(void *p)
{
    atomic_fetch_add((atomic_int *)p, 1);
}

static aclError fail_with_aicore_exception(uint32_t blockIdx, uint32_t numBlocks, void *args)
{
    (void)blockIdx;
    (void)numBlocks;
    (void)args;
    return ACL_ERROR_RT_AICORE_EXCEPTION;
}

static void run_in_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    CHECK_EQ(0, pthread_create(&t, NULL, fn, arg));
    CHECK_EQ(0, pthread_join(t, NULL));
}

/* ------------------------------------------------------------------------
 * aclInit / aclFinalize
 * ------------------------------------------------------------------------ */

/* Must run first: this process has never called aclInit. */
TEST(finalize_without_init_succeeds_and_tears_down_lazy_runtime)
{
    atomic_int ran = 0;
    aclrtStream s = NULL;
    CHECK_OK(aclrtSetDevice(0)); /* the runtime starts lazily, without aclInit */
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtLaunchHostFunc(s, set_flag, &ran));
    CHECK_OK(aclFinalize());
    CHECK_EQ(1, atomic_load(&ran)); /* the stream's work ran before the teardown */
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
}

TEST(repeat_init_returns_repeat_initialize)
{
    fresh();
    CHECK_OK(aclInit(NULL));
    CHECK(aclGetRecentErrMsg() == NULL);
    CHECK_EQ(100002, aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_OK(aclFinalize());
}

/* A repeated aclInit says so in aclGetRecentErrMsg too, not only in its code. */
TEST(repeat_init_explains_itself)
{
    fresh();
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    const char *msg = aclGetRecentErrMsg();
    CHECK_STR_CONTAINS(msg, "[aclInit] aclInit was already called: the runtime keeps its configuration "
                            "and counts 2 references (aclFinalizeReference drops one, aclFinalize all) "
                            "(error 100002)");
    CHECK_OK(aclFinalize());
}

TEST(repeat_init_counts_references)
{
    fresh();
    uint64_t n = 99;
    aclrtStream s = NULL;
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclFinalizeReference(&n));
    CHECK_EQ(2, n);
    CHECK_OK(aclrtSynchronizeStream(s)); /* still up */
    CHECK_OK(aclFinalizeReference(&n));
    CHECK_EQ(1, n);
    CHECK_OK(aclrtSynchronizeStream(s));
    CHECK_OK(aclFinalizeReference(&n));
    CHECK_EQ(0, n);
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s)); /* torn down at zero */
}

TEST(finalize_reference_accepts_null_count)
{
    fresh();
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_OK(aclFinalizeReference(NULL));
    CHECK_OK(aclFinalizeReference(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
}

TEST(finalize_reference_at_zero_is_repeat_finalize)
{
    fresh();
    uint64_t n = 99;
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclFinalizeReference(&n));
    CHECK_EQ(0, n);
    CHECK_EQ(100037, aclFinalizeReference(&n));
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(&n));
}

TEST(finalize_drops_every_reference_at_once)
{
    fresh();
    aclrtStream s = NULL;
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclFinalize());
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
}

TEST(double_finalize_is_repeat_finalize)
{
    fresh();
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclFinalize());
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

TEST(repeat_init_with_different_config_is_invalid_param_and_not_counted)
{
    fresh();
    uint64_t n = 99;
    const char *a = temp_config("{\"aclrt\":{\"devices\":2}}");
    const char *b = temp_config("{\"aclrt\":{\"devices\":3}}");
    CHECK_OK(aclInit(a));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclInit(b));
    CHECK_EQ(2, device_count()); /* the first configuration stays */
    CHECK_OK(aclFinalizeReference(&n));
    CHECK_EQ(0, n); /* the rejected call took no reference */
}

TEST(repeat_init_with_same_content_elsewhere_is_repeat_initialize)
{
    fresh();
    const char *a = temp_config("{\"aclrt\":{\"devices\":2}}");
    const char *a2 = temp_config("{\"aclrt\":{\"devices\":2}}");
    CHECK_OK(aclInit(a));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(a));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(a2));
    CHECK_EQ(2, device_count());
    uint64_t n = 0;
    CHECK_OK(aclFinalizeReference(&n));
    CHECK_EQ(2, n);
    CHECK_OK(aclFinalize());
}

TEST(init_finalize_init_cycles_work)
{
    fresh();
    atomic_int counter = 0;
    for (int cycle = 0; cycle < 3; cycle++) {
        aclrtStream s = NULL;
        CHECK_OK(aclInit(NULL)); /* success every time: each finalize starts over */
        CHECK_OK(aclrtSetDevice(0));
        CHECK_OK(aclrtCreateStream(&s));
        CHECK_OK(aclrtLaunchHostFunc(s, add_one, &counter));
        CHECK_OK(aclrtSynchronizeStream(s));
        CHECK_EQ(cycle + 1, atomic_load(&counter));
        CHECK_OK(aclrtDestroyStream(s));
        CHECK_OK(aclrtResetDevice(0));
        CHECK_OK(aclFinalize());
    }
}

TEST(finalize_invalidates_old_handles)
{
    fresh();
    aclrtStream s = NULL, def = NULL;
    aclrtEvent e = NULL;
    aclrtContext ctx = NULL, dctx = NULL;
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtGetCurrentContext(&dctx));
    CHECK_OK(aclrtCtxGetCurrentDefaultStream(&def));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtCreateEvent(&e));
    CHECK_OK(aclrtCreateContext(&ctx, 0));
    CHECK_OK(aclFinalize());

    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(def));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(e));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(ctx));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyContext(ctx));
    CHECK_EQ(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetCurrentContext(dctx));

    /* New objects work. */
    atomic_int ran = 0;
    aclrtStream s2 = NULL;
    CHECK_OK(aclrtCreateStream(&s2));
    CHECK_OK(aclrtLaunchHostFunc(s2, set_flag, &ran));
    CHECK_OK(aclrtSynchronizeStream(s2));
    CHECK_EQ(1, atomic_load(&ran));
    CHECK_OK(aclrtDestroyStream(s2));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

TEST(finalize_waits_for_pending_work)
{
    fresh();
    atomic_int counter = 0;
    aclrtStream s = NULL;
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s));
    for (int i = 0; i < 100; i++) {
        CHECK_OK(aclrtLaunchHostFunc(s, add_one, &counter));
        CHECK_OK(aclrtLaunchHostFunc(NULL, add_one, &counter));
    }
    CHECK_OK(aclFinalize());
    CHECK_EQ(200, atomic_load(&counter));
}

struct pair_arg {
    atomic_int *counter;
    aclError init, set, launch, sync, reset, fin;
};

static void *init_work_finalize(void *p)
{
    struct pair_arg *a = (struct pair_arg *)p;
    a->init = aclInit(NULL);
    a->set = aclrtSetDevice(0);
    a->launch = aclrtLaunchHostFunc(NULL, add_one, a->counter);
    a->sync = aclrtSynchronizeStream(NULL);
    a->reset = aclrtResetDevice(0);
    a->fin = aclFinalizeReference(NULL);
    return NULL;
}

TEST(concurrent_init_finalize_reference_pairs)
{
    fresh();
    enum { N = 8 };
    atomic_int counter = 0;
    struct pair_arg args[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        memset(&args[i], 0, sizeof args[i]);
        args[i].counter = &counter;
        CHECK_EQ(0, pthread_create(&t[i], NULL, init_work_finalize, &args[i]));
    }
    for (int i = 0; i < N; i++)
        CHECK_EQ(0, pthread_join(t[i], NULL));
    for (int i = 0; i < N; i++) {
        CHECK(args[i].init == ACL_SUCCESS || args[i].init == ACL_ERROR_REPEAT_INITIALIZE);
        CHECK_OK(args[i].set);
        CHECK_OK(args[i].launch);
        CHECK_OK(args[i].sync);
        CHECK_OK(args[i].reset);
        CHECK_OK(args[i].fin);
    }
    CHECK_EQ(N, atomic_load(&counter));
    /* Every reference was returned: nothing is left to finalize. */
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL));
}

/* ------------------------------------------------------------------------
 * The configuration file
 * ------------------------------------------------------------------------ */

TEST(config_devices_sets_device_count)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"devices\":3}}")));
    CHECK_EQ(3, device_count());
    CHECK_OK(aclrtSetDevice(2));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(3));
    CHECK_OK(aclrtResetDevice(2));
    CHECK_OK(aclFinalize());
}

TEST(config_numbers_may_be_strings)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"devices\":\"4\"}}")));
    CHECK_EQ(4, device_count());
    CHECK_OK(aclFinalize());
}

TEST(missing_config_file_is_invalid_file)
{
    fresh();
    CHECK_EQ(100003, aclInit("/tmp/aclrt_test_init_no_such_file.json"));
    CHECK_EQ(ACL_ERROR_INVALID_FILE, aclInit("/nonexistent-dir/acl.json"));
    CHECK_EQ(ACL_ERROR_REPEAT_FINALIZE, aclFinalizeReference(NULL)); /* stayed uninitialised */
    CHECK_OK(aclInit(NULL)); /* a first init, not a repeat */
    CHECK_OK(aclFinalize());
}

TEST(malformed_json_is_parse_file)
{
    fresh();
    CHECK_EQ(100006, aclInit(temp_config("{\"aclrt\": {\"devices\": 3")));
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("}")));
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("{\"aclrt\":{\"devices\":3}}}")));
    CHECK_OK(aclInit(NULL)); /* the failures left it uninitialised */
    CHECK_OK(aclFinalize());
}

/* Text that a lenient tokenizer would take, but that is not JSON. */
TEST(non_json_syntax_is_parse_file)
{
    fresh();
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("{\"aclrt\" \"devices\"}")));        /* no colon */
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("{aclrt: {devices: 3}}")));         /* bare keys */
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("{\"a\":1 \"b\":2}")));             /* no comma */
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("{\"aclrt\":{\"devices\":3}} x"))); /* trailing text */
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclFinalize());
}

TEST(config_that_is_not_an_object_is_parse_file)
{
    fresh();
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("[1, 2, 3]")));
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("\"aclrt\"")));
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclFinalize());
}

/* {"a":{"a":...{}...}} with `levels` objects in all. */
static void nested_objects(char *buf, size_t cap, int levels)
{
    size_t n = 0;
    for (int i = 0; i < levels - 1; i++)
        n += (size_t)snprintf(buf + n, cap - n, "{\"a\":");
    n += (size_t)snprintf(buf + n, cap - n, "{}");
    for (int i = 0; i < levels - 1; i++)
        n += (size_t)snprintf(buf + n, cap - n, "}");
}

TEST(nesting_ten_levels_is_accepted)
{
    fresh();
    char buf[256];
    nested_objects(buf, sizeof buf, 10);
    CHECK_OK(aclInit(temp_config(buf)));
    CHECK_OK(aclFinalize());
}

TEST(nesting_deeper_than_ten_levels_is_parse_file)
{
    fresh();
    char buf[256];
    nested_objects(buf, sizeof buf, 11);
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config(buf)));
    /* Eleven arrays inside the root object: too deep however the levels are counted. */
    CHECK_EQ(ACL_ERROR_PARSE_FILE, aclInit(temp_config("{\"x\":[[[[[[[[[[[1]]]]]]]]]]]}")));
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclFinalize());
}

TEST(known_key_with_bad_value_is_file_attr_invalid)
{
    fresh();
    CHECK_EQ(100008, aclInit(temp_config("{\"aclrt\":{\"devices\":0}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"devices\":\"many\"}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"devices\":-1}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"err_msg_mode\":\"2\"}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"defaultDevice\":{\"default_device\":-1}}")));
    CHECK_OK(aclInit(NULL)); /* still uninitialised */
    CHECK_OK(aclFinalize());
}

/* Keys of CANN's own aclInit (and any other outside "aclrt") are accepted and ignored. */
TEST(unknown_keys_outside_aclrt_are_ignored)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"dump\":{\"dump_path\":\"/tmp\",\"x\":[1,{\"y\":2}]},"
                                 "\"profiler\":{\"switch\":\"off\"},\"err_msg_mode\":\"0\","
                                 "\"defaultDevice\":{\"default_device\":\"0\",\"other\":1},"
                                 "\"no_such_key\":7,\"aclrt\":{\"devices\":2}}")));
    CHECK(aclGetRecentErrMsg() == NULL);
    CHECK_EQ(2, device_count());
    CHECK_OK(aclFinalize());
}

/* The sanitizer's and the schedule's keys take only their documented values. */
TEST(sanitize_and_schedule_keys_take_their_documented_values)
{
    fresh();
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"sanitize\":\"memory\"}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(),
                       "aclrt.sanitize must be \"none\", or \"streams\" followed by any of \",uninit\" and \",free\"");
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"sanitize\":1}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"sanitize\":\"uninit\"}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"sanitize\":\"streams,\"}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"sanitize\":\"streams,memory\"}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"schedule\":\"deterministic:x\"}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrt.schedule must be \"threads\" or \"deterministic:SEED\"");
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"schedule\":\"deterministic:\"}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"sanitize_exitcode\":256}}")));
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"sanitize\":\"streams,free,uninit\",\"schedule\":\"threads\","
                                 "\"sanitize_exitcode\":3}}")));
    CHECK_EQ(0, (long long)aclrtxSanitizerReportCount());
    CHECK_OK(aclFinalize());
}

/*
 * Does the runtime start threads of its own on device 0 (executors, a
 * monitor)? Not with external progress (the program's threads drive the
 * devices) nor on the cuda backend (the work runs on the driver's streams).
 */
static bool runtime_starts_threads(void)
{
    const char *backend = getenv("ACLRT_BACKEND");
    const char *progress = getenv("ACLRT_PROGRESS");
    return !(backend != NULL && strcmp(backend, "cuda") == 0) && !(progress != NULL && strcmp(progress, "external") == 0);
}

/* Runtime threads ("aclrt-d0-..."), and how many of them run on exactly `want`. */
static int runtime_threads_on(const cpu_set_t *want, int *total)
{
    int on = 0;
    *total = 0;
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    for (const char *tid; (tid = next_thread_named(d, "aclrt-d0-")) != NULL;) {
        cpu_set_t got;
        CHECK_EQ(0, sched_getaffinity((pid_t)atoi(tid), sizeof got, &got));
        (*total)++;
        on += CPU_EQUAL(&got, want);
    }
    closedir(d);
    return on;
}

/*
 * Two executors on one CPU, idle, with a 10 s spin: one spins, the other
 * sleeps at once (two spinners would take turns at the CPU for nothing).
 */
TEST(idle_executors_spin_no_more_than_the_runtime_has_cpus)
{
    fresh();
    if (!runtime_starts_threads())
        return;
    cpu_set_t allowed;
    CHECK_EQ(0, sched_getaffinity(0, sizeof allowed, &allowed));
    int first = 0;
    while (!CPU_ISSET(first, &allowed))
        first++;
    char text[128];
    snprintf(text, sizeof text, "{\"aclrt\":{\"cpus\":\"%d\",\"executors\":2,\"spin_ns\":10000000000}}", first);
    CHECK_OK(aclInit(temp_config(text)));
    CHECK_OK(aclrtSetDevice(0));
    int total = 0, asleep = 0;
    for (time_t end = time(NULL) + 5; (asleep = executors_asleep(0, &total), total < 2 || asleep < 1) && time(NULL) < end;)
        sched_yield();
    CHECK_EQ(2, total);
    CHECK_EQ(1, asleep); /* the other spins its 10 s */
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
}

/* aclrt.cpus puts the runtime's threads on the CPUs listed, and takes only lists of CPUs this process has. */
TEST(cpus_key_places_the_runtime_threads)
{
    fresh();
    cpu_set_t allowed, one;
    CHECK_EQ(0, sched_getaffinity(0, sizeof allowed, &allowed));
    int first = 0;
    while (!CPU_ISSET(first, &allowed))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    char text[128];
    snprintf(text, sizeof text, "{\"aclrt\":{\"cpus\":\"%d\",\"executors\":2}}", first);
    CHECK_OK(aclInit(temp_config(text)));
    CHECK_OK(aclrtSetDevice(0));
    /* The threads name themselves once running: look until the three are there (or 10 s went by). */
    int total = 0, on = 0;
    bool threads = runtime_starts_threads();
    for (time_t end = time(NULL) + 10; threads && (on = runtime_threads_on(&one, &total), total < 3) && time(NULL) < end;)
        sched_yield();
    if (threads) {
        CHECK(total >= 3); /* two executors and the monitor */
        CHECK_EQ(total, on);
    }
    /* The program's own thread is not moved. */
    cpu_set_t mine;
    CHECK_EQ(0, sched_getaffinity(0, sizeof mine, &mine));
    CHECK(CPU_EQUAL(&mine, &allowed));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    /* Without the key the threads may run anywhere the process may. */
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"cpus\":\"\",\"executors\":2}}")));
    CHECK_OK(aclrtSetDevice(0));
    for (time_t end = time(NULL) + 10; threads && (on = runtime_threads_on(&allowed, &total), total < 3) && time(NULL) < end;)
        sched_yield();
    CHECK_EQ(total, on);
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    static const char *const bad[] = {"{\"aclrt\":{\"cpus\":0}}",          "{\"aclrt\":{\"cpus\":\"x\"}}",
                                      "{\"aclrt\":{\"cpus\":\"3-1\"}}",    "{\"aclrt\":{\"cpus\":\"0,\"}}",
                                      "{\"aclrt\":{\"cpus\":\"-1\"}}",     "{\"aclrt\":{\"cpus\":\"100000\"}}",
                                      "{\"aclrt\":{\"cpus\":\"1023\"}}"};
    long machine_cpus = sysconf(_SC_NPROCESSORS_CONF);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (i == 6 && machine_cpus > 1023)
            continue; /* a machine that has CPU 1023 */
        CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config(bad[i])));
        CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrt.cpus must be \"\" or a list of CPUs and ranges");
    }
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclFinalize());
}

/* "aclrt" is this runtime's object: a key it does not know is a mistake, reported with its name. */
TEST(unknown_key_in_aclrt_is_file_attr_invalid)
{
    fresh();
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"devices\":2,\"exectors\":4}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(),
                       "[aclInit] unknown key \"aclrt.exectors\" in the configuration: did you mean \"executors\"? "
                       "(the keys of \"aclrt\": backend, progress, profile, sanitize, schedule, cpus, devices, executors, "
                       "ring_bytes, spin_ns, max_streams, max_events, max_notifies, sanitize_exitcode) (error 100008)");
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"no_such_key\":7}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(),
                       "[aclInit] unknown key \"aclrt.no_such_key\" in the configuration (the keys of \"aclrt\": "
                       "backend, progress, profile, sanitize, schedule, cpus, devices, executors, ring_bytes, spin_ns, "
                       "max_streams, max_events, max_notifies, sanitize_exitcode) (error 100008)");
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"Backend\":\"host\"}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "unknown key \"aclrt.Backend\" in the configuration: did you mean "
                                             "\"backend\"?");
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":\"cuda\"}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(),
                       "[aclInit] \"aclrt\" must be an object, e.g. \"aclrt\": {\"devices\": 2} (error 100008)");
    CHECK_OK(aclInit(NULL)); /* none of them initialised anything */
    CHECK_EQ(1, device_count());
    CHECK_OK(aclFinalize());
}

TEST(empty_config_file_means_defaults)
{
    fresh();
    CHECK_OK(aclInit(temp_config("")));
    CHECK_EQ(1, device_count());
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(temp_config(" \n\t\n")));
    CHECK_EQ(1, device_count());
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(temp_config("{}")));
    CHECK_EQ(1, device_count());
    CHECK_OK(aclFinalize());
}

TEST(config_larger_than_one_mib_is_invalid_file_size)
{
    fresh();
    size_t len = (1u << 20) + 16;
    char *big = (char *)malloc(len);
    CHECK(big != NULL);
    memset(big, ' ', len);
    big[0] = '{';
    big[len - 1] = '}';
    const char *path = temp_config_n(big, len);
    free(big);
    CHECK_EQ(100005, aclInit(path));
    CHECK_OK(aclInit(NULL));
    CHECK_OK(aclFinalize());
}

TEST(config_file_does_not_outlive_finalize)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"devices\":3}}")));
    CHECK_OK(aclFinalize()); /* before the runtime ever started */
    /* A lazy start after the finalize uses the defaults, not the finalized file. */
    CHECK_EQ(1, device_count());
}

/* ------------------------------------------------------------------------
 * defaultDevice.default_device
 * ------------------------------------------------------------------------ */

struct implicit_arg {
    atomic_int ran;
    int32_t device;
    aclError get_device, create, launch, sync, destroy;
};

static void *use_without_set_device(void *p)
{
    struct implicit_arg *a = (struct implicit_arg *)p;
    aclrtStream s = NULL;
    a->device = -1;
    a->get_device = aclrtGetDevice(&a->device);
    a->create = aclrtCreateStream(&s);
    a->launch = aclrtLaunchHostFunc(s, set_flag, &a->ran);
    a->sync = aclrtSynchronizeStream(s);
    a->destroy = aclrtDestroyStream(s);
    return NULL;
}

TEST(default_device_serves_thread_that_never_set_a_device)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"devices\":2},\"defaultDevice\":{\"default_device\":1}}")));
    struct implicit_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(use_without_set_device, &a);
    CHECK_OK(a.get_device);
    CHECK_EQ(1, a.device);
    CHECK_OK(a.create);
    CHECK_OK(a.launch);
    CHECK_OK(a.sync);
    CHECK_OK(a.destroy);
    CHECK_EQ(1, atomic_load(&a.ran));
    int32_t dev = -1;
    CHECK_OK(aclrtGetDevice(&dev)); /* this thread never set one either */
    CHECK_EQ(1, dev);
    CHECK_OK(aclFinalize());
}

struct explicit_arg {
    int32_t device;
    aclError set, get, reset;
};

static void *set_device_zero(void *p)
{
    struct explicit_arg *a = (struct explicit_arg *)p;
    a->device = -1;
    a->set = aclrtSetDevice(0);
    a->get = aclrtGetDevice(&a->device);
    a->reset = aclrtResetDevice(0);
    return NULL;
}

TEST(explicit_set_device_wins_over_default_device)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"devices\":2},\"defaultDevice\":{\"default_device\":1}}")));
    struct explicit_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(set_device_zero, &a);
    CHECK_OK(a.set);
    CHECK_OK(a.get);
    CHECK_EQ(0, a.device);
    CHECK_OK(a.reset);
    CHECK_OK(aclFinalize());
}

TEST(aclinit_after_lazy_start_applies_default_device_but_keeps_sizes)
{
    fresh();
    uint64_t n = 99;
    setenv("ACLRT_DEVICES", "2", 1);
    CHECK_EQ(2, device_count()); /* started lazily, from the environment */
    unsetenv("ACLRT_DEVICES");
    const char *path = temp_config("{\"aclrt\":{\"devices\":5,\"max_streams\":64,\"backend\":\"host\"},"
                                   "\"defaultDevice\":{\"default_device\":1}}");
    /* Not dropped silently: the keys that cannot change are named (the backend can: it is the same). */
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(path));
    char want[512];
    snprintf(want, sizeof want,
             "[aclInit] configuration file '%s' not applied: the runtime already started (a call before aclInit "
             "needed a device), so aclrt.devices 5 (the runtime has 2), aclrt.max_streams 64 (the runtime has "
             "1984) cannot change; defaultDevice and err_msg_mode did. Call aclInit before any other call, or "
             "aclFinalize first (error 100002)",
             path);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), want);
    CHECK_EQ(2, device_count()); /* sizes were fixed at the start */
    struct implicit_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(use_without_set_device, &a);
    CHECK_OK(a.get_device);
    CHECK_EQ(1, a.device); /* the default device still applies */
    CHECK_OK(a.create);
    CHECK_OK(a.sync);
    CHECK_OK(a.destroy);
    CHECK_EQ(1, atomic_load(&a.ran));
    CHECK_OK(aclFinalizeReference(&n)); /* that aclInit took the one reference */
    CHECK_EQ(0, n);
}

/* A file that asks for nothing the started runtime lacks applies as before: no error. */
TEST(aclinit_after_lazy_start_with_a_file_it_agrees_with_succeeds)
{
    fresh();
    setenv("ACLRT_DEVICES", "2", 1);
    CHECK_EQ(2, device_count());
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"devices\":2,\"backend\":\"host\"},\"err_msg_mode\":\"0\"}")));
    clear_env();
    CHECK(aclGetRecentErrMsg() == NULL);
    CHECK_OK(aclFinalize());
    CHECK_EQ(1, device_count()); /* started again lazily, without the file */
    CHECK_OK(aclInit(temp_config("{\"defaultDevice\":{\"default_device\":0}}")));
    CHECK(aclGetRecentErrMsg() == NULL);
    CHECK_OK(aclFinalize());
}

/* ------------------------------------------------------------------------
 * Environment variables (read when the runtime starts)
 * ------------------------------------------------------------------------ */

/* The cube cores device 0 reports: the profile's figure. */
static int64_t cube_cores(void)
{
    int64_t v = -1;
    CHECK_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
    return v;
}

TEST(config_profile_chooses_what_the_devices_report)
{
    fresh();
    CHECK_EQ(0, strcmp(aclrtGetSocName(), "Ascend910B1")); /* the default, before anything starts */
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"profile\":\"Ascend910B4\"}}")));
    CHECK_EQ(0, strcmp(aclrtGetSocName(), "Ascend910B4")); /* from aclInit on, before a device starts */
    CHECK_EQ(20, cube_cores());
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(NULL)); /* the file does not outlive aclFinalize */
    CHECK_EQ(0, strcmp(aclrtGetSocName(), "Ascend910B1"));
    CHECK_EQ(24, cube_cores());
    CHECK_OK(aclFinalize());
}

TEST(config_profile_must_be_a_known_name)
{
    fresh();
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"profile\":\"Ascend910C\"}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrt.profile must be one of Ascend910B1, Ascend910B2, Ascend910B3, "
                                             "Ascend910B4, Ascend910_9391, Ascend910_9392, host");
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"profile\":7}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"profile\":\"ascend910b1\"}}")));
    CHECK_EQ(ACL_ERROR_FILE_ATTR_INVALID, aclInit(temp_config("{\"aclrt\":{\"profil\":\"host\"}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "did you mean \"profile\"?");
    CHECK_OK(aclInit(NULL)); /* none of them initialised anything */
    CHECK_OK(aclFinalize());
}

TEST(env_profile_overrides_the_file_and_a_bad_one_is_ignored)
{
    fresh();
    setenv("ACLRT_PROFILE", "host", 1);
    CHECK_EQ(0, strncmp(aclrtGetSocName(), "aclrt-", 6)); /* before anything starts */
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"profile\":\"Ascend910B3\"}}")));
    CHECK_EQ(0, strncmp(aclrtGetSocName(), "aclrt-", 6)); /* aclrt-<backend>: host, cuda */
    int64_t cpus = sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(cube_cores() >= 1 && cube_cores() <= cpus); /* the CPUs this process may run on */
    CHECK_OK(aclFinalize());
    setenv("ACLRT_PROFILE", "Ascend999", 1); /* ignored, with a warning on standard error */
    CHECK_EQ(0, strcmp(aclrtGetSocName(), "Ascend910B1"));
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"profile\":\"Ascend910B3\"}}")));
    CHECK_EQ(0, strcmp(aclrtGetSocName(), "Ascend910B3"));
    CHECK_EQ(20, cube_cores());
    clear_env();
    CHECK_OK(aclFinalize());
}

TEST(aclinit_after_lazy_start_names_a_profile_it_could_not_apply)
{
    fresh();
    CHECK_EQ(24, cube_cores()); /* starts the runtime with the default profile */
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(temp_config("{\"aclrt\":{\"profile\":\"Ascend910B4\"}}")));
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "aclrt.profile \"Ascend910B4\" (the runtime has \"Ascend910B1\")");
    CHECK_EQ(0, strcmp(aclrtGetSocName(), "Ascend910B1"));
    CHECK_EQ(24, cube_cores());
    CHECK_OK(aclFinalize());
}

TEST(env_devices_applies_at_lazy_start)
{
    fresh();
    setenv("ACLRT_DEVICES", "4", 1);
    CHECK_EQ(4, device_count());
    CHECK_OK(aclrtSetDevice(3));
    CHECK_OK(aclrtResetDevice(3));
    clear_env();
}

TEST(env_overrides_config_file)
{
    fresh();
    setenv("ACLRT_DEVICES", "2", 1);
    CHECK_OK(aclInit(temp_config("{\"aclrt\":{\"devices\":3}}")));
    CHECK_EQ(2, device_count());
    clear_env();
    CHECK_OK(aclFinalize());
}

TEST(env_is_read_only_when_runtime_starts)
{
    fresh();
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(1, device_count());
    setenv("ACLRT_DEVICES", "3", 1);
    CHECK_EQ(1, device_count()); /* already started */
    CHECK_OK(aclFinalize());
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(3, device_count()); /* the new start reads it */
    clear_env();
    CHECK_OK(aclFinalize());
}

TEST(env_default_device_serves_thread_without_set_device)
{
    fresh();
    setenv("ACLRT_DEVICES", "2", 1);
    setenv("ACLRT_DEFAULT_DEVICE", "1", 1);
    CHECK_OK(aclInit(NULL));
    clear_env();
    struct implicit_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(use_without_set_device, &a);
    CHECK_OK(a.get_device);
    CHECK_EQ(1, a.device);
    CHECK_OK(a.sync);
    CHECK_EQ(1, atomic_load(&a.ran));
    CHECK_OK(aclFinalize());
}

/* ------------------------------------------------------------------------
 * aclGetRecentErrMsg
 * ------------------------------------------------------------------------ */

TEST(recent_err_msg_names_the_failing_function_and_code)
{
    fresh();
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    const char *msg = aclGetRecentErrMsg();
    CHECK_STR_CONTAINS(msg, "[aclrtSetDevice]");
    CHECK_STR_CONTAINS(msg, "107001");
}

TEST(recent_err_msg_is_null_without_failures)
{
    fresh();
    CHECK(aclGetRecentErrMsg() == NULL);
    CHECK_EQ(1, device_count());
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtResetDevice(0));
    CHECK(aclGetRecentErrMsg() == NULL);
}

TEST(recent_err_msg_accumulates_newest_first)
{
    fresh();
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetRunMode(NULL));
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL);
    const char *run = strstr(msg, "[aclrtGetRunMode]");
    const char *get = strstr(msg, "[aclrtGetDevice]");
    const char *set = strstr(msg, "[aclrtSetDevice]");
    CHECK(run != NULL && get != NULL && set != NULL);
    CHECK(run == msg); /* the newest is first */
    CHECK(run < get);
    CHECK(get < set);
}

TEST(recent_err_msg_clears_after_returning)
{
    fresh();
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    CHECK(aclGetRecentErrMsg() != NULL);
    CHECK(aclGetRecentErrMsg() == NULL);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    const char *msg = aclGetRecentErrMsg();
    CHECK_STR_CONTAINS(msg, "[aclrtGetDevice]");
    CHECK(strstr(msg, "[aclrtSetDevice]") == NULL); /* the first text was cleared */
}

TEST(recent_err_msg_drops_oldest_whole_lines_beyond_4k)
{
    fresh();
    for (int i = 0; i < 200; i++)
        CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    const char *msg = aclGetRecentErrMsg();
    CHECK(msg != NULL);
    size_t len = strlen(msg);
    CHECK(len <= 4096);
    CHECK(strncmp(msg, "[aclrtGetDevice]", 16) == 0); /* the newest line was kept */
    /* Every line that is left is a whole line: "[api] ... (error N)". */
    int lines = 0;
    for (const char *line = msg; *line != '\0';) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        CHECK(n > 0 && line[0] == '[');
        CHECK(line[n - 1] == ')');
        lines++;
        line += n + (nl ? 1 : 0);
    }
    CHECK(lines > 10);
}

struct fail_arg {
    aclError code;
    const char *own_msg_had_it; /* non-NULL when the thread's own text named the call */
    char own_msg[512];
};

static void *fail_set_device(void *p)
{
    struct fail_arg *a = (struct fail_arg *)p;
    a->code = aclrtSetDevice(-1);
    const char *m = aclGetRecentErrMsg();
    if (m != NULL) {
        snprintf(a->own_msg, sizeof a->own_msg, "%s", m);
        a->own_msg_had_it = a->own_msg;
    }
    return NULL;
}

static void *fail_set_device_keep_msg(void *p)
{
    struct fail_arg *a = (struct fail_arg *)p;
    a->code = aclrtSetDevice(-1);
    return NULL;
}

static void *fail_get_device_null(void *p)
{
    struct fail_arg *a = (struct fail_arg *)p;
    a->code = aclrtGetDevice(NULL);
    return NULL;
}

TEST(recent_err_msg_is_per_thread_by_default)
{
    fresh();
    CHECK_EQ(1, device_count());
    struct fail_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(fail_set_device, &a);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, a.code);
    CHECK_STR_CONTAINS(a.own_msg_had_it, "[aclrtSetDevice]"); /* the failing thread sees it */
    CHECK(aclGetRecentErrMsg() == NULL);                       /* this one does not */
}

TEST(err_msg_mode_1_makes_messages_process_wide)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"err_msg_mode\":\"1\"}")));
    CHECK_EQ(1, device_count());
    struct fail_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(fail_set_device_keep_msg, &a);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, a.code);
    const char *msg = aclGetRecentErrMsg();
    CHECK_STR_CONTAINS(msg, "[aclrtSetDevice]"); /* raised in the other thread, read here */
    CHECK(aclGetRecentErrMsg() == NULL);          /* and cleared for everyone */
    CHECK_OK(aclFinalize());
}

TEST(err_msg_mode_1_applies_from_aclinit)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"err_msg_mode\":1}")));
    /* The first failure, before anything started the runtime. */
    struct fail_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(fail_get_device_null, &a);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, a.code);
    CHECK_STR_CONTAINS(aclGetRecentErrMsg(), "[aclrtGetDevice]");
    CHECK_OK(aclFinalize());
}

TEST(err_msg_mode_does_not_outlive_finalize)
{
    fresh();
    CHECK_OK(aclInit(temp_config("{\"err_msg_mode\":\"1\"}")));
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_OK(aclFinalize());
    /* Finalized: back to per-thread text (the default). */
    struct fail_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(fail_get_device_null, &a);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, a.code);
    CHECK(aclGetRecentErrMsg() == NULL);
}

/* ------------------------------------------------------------------------
 * Last error
 * ------------------------------------------------------------------------ */

TEST(get_last_error_returns_and_clears)
{
    fresh();
    CHECK_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_SUCCESS, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
}

TEST(peek_at_last_error_does_not_clear)
{
    fresh();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
}

TEST(last_error_is_the_most_recent_failure)
{
    fresh();
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(7));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
}

TEST(success_does_not_clear_last_error)
{
    fresh();
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1));
    CHECK_EQ(1, device_count());
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtResetDevice(0));
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL));
}

TEST(last_error_level_other_than_thread_is_invalid_param)
{
    fresh();
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError((aclrtLastErrLevel)1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError((aclrtLastErrLevel)1));
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtPeekAtLastError((aclrtLastErrLevel)-1));
}

TEST(repeat_initialize_counts_as_last_error)
{
    fresh();
    CHECK_OK(aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    CHECK_EQ(ACL_ERROR_REPEAT_INITIALIZE, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_OK(aclFinalize());
}

TEST(failed_task_code_becomes_last_error)
{
    fresh();
    aclrtStream s = NULL;
    CHECK_OK(aclrtSetDevice(0));
    CHECK_OK(aclrtCreateStream(&s));
    CHECK_OK(aclrtxLaunchHostKernel(s, 1, fail_with_aicore_exception, NULL));
    CHECK_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)); /* submission succeeded */
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(s));
    CHECK_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
    CHECK_OK(aclrtDestroyStream(s));
    CHECK_OK(aclrtResetDevice(0));
}

struct last_error_arg {
    aclError failed, peek_own;
};

static void *fail_and_peek(void *p)
{
    struct last_error_arg *a = (struct last_error_arg *)p;
    a->failed = aclrtSetDevice(-1);
    a->peek_own = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    return NULL;
}

static void *peek_only(void *p)
{
    struct last_error_arg *a = (struct last_error_arg *)p;
    a->peek_own = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
    return NULL;
}

TEST(last_error_is_per_thread)
{
    fresh();
    struct last_error_arg a;
    memset(&a, 0, sizeof a);
    run_in_thread(fail_and_peek, &a);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, a.failed);
    CHECK_EQ(ACL_ERROR_RT_INVALID_DEVICEID, a.peek_own);
    CHECK_EQ(ACL_SUCCESS, aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL)); /* not here */

    /* And the other way round: this thread's error is not a new thread's. */
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    struct last_error_arg b;
    memset(&b, 0, sizeof b);
    b.peek_own = -1;
    run_in_thread(peek_only, &b);
    CHECK_EQ(ACL_SUCCESS, b.peek_own);
    CHECK_EQ(ACL_ERROR_INVALID_PARAM, aclrtGetLastError(ACL_RT_THREAD_LEVEL));
}

int main(void)
{
    clear_env();
    RUN(finalize_without_init_succeeds_and_tears_down_lazy_runtime); /* first: no aclInit yet */
    RUN(repeat_init_returns_repeat_initialize);
    RUN(repeat_init_explains_itself);
    RUN(repeat_init_counts_references);
    RUN(finalize_reference_accepts_null_count);
    RUN(finalize_reference_at_zero_is_repeat_finalize);
    RUN(finalize_drops_every_reference_at_once);
    RUN(double_finalize_is_repeat_finalize);
    RUN(repeat_init_with_different_config_is_invalid_param_and_not_counted);
    RUN(repeat_init_with_same_content_elsewhere_is_repeat_initialize);
    RUN(init_finalize_init_cycles_work);
    RUN(finalize_invalidates_old_handles);
    RUN(finalize_waits_for_pending_work);
    RUN(concurrent_init_finalize_reference_pairs);

    RUN(config_devices_sets_device_count);
    RUN(config_numbers_may_be_strings);
    RUN(missing_config_file_is_invalid_file);
    RUN(malformed_json_is_parse_file);
    RUN(non_json_syntax_is_parse_file);
    RUN(config_that_is_not_an_object_is_parse_file);
    RUN(nesting_ten_levels_is_accepted);
    RUN(nesting_deeper_than_ten_levels_is_parse_file);
    RUN(known_key_with_bad_value_is_file_attr_invalid);
    RUN(unknown_keys_outside_aclrt_are_ignored);
    RUN(unknown_key_in_aclrt_is_file_attr_invalid);
    RUN(sanitize_and_schedule_keys_take_their_documented_values);
    RUN(cpus_key_places_the_runtime_threads);
    RUN(idle_executors_spin_no_more_than_the_runtime_has_cpus);
    RUN(empty_config_file_means_defaults);
    RUN(config_larger_than_one_mib_is_invalid_file_size);
    RUN(config_file_does_not_outlive_finalize);

    RUN(default_device_serves_thread_that_never_set_a_device);
    RUN(explicit_set_device_wins_over_default_device);
    RUN(aclinit_after_lazy_start_applies_default_device_but_keeps_sizes);
    RUN(aclinit_after_lazy_start_with_a_file_it_agrees_with_succeeds);

    RUN(config_profile_chooses_what_the_devices_report);
    RUN(config_profile_must_be_a_known_name);
    RUN(env_profile_overrides_the_file_and_a_bad_one_is_ignored);
    RUN(aclinit_after_lazy_start_names_a_profile_it_could_not_apply);
    RUN(env_devices_applies_at_lazy_start);
    RUN(env_overrides_config_file);
    RUN(env_is_read_only_when_runtime_starts);
    RUN(env_default_device_serves_thread_without_set_device);

    RUN(recent_err_msg_names_the_failing_function_and_code);
    RUN(recent_err_msg_is_null_without_failures);
    RUN(recent_err_msg_accumulates_newest_first);
    RUN(recent_err_msg_clears_after_returning);
    RUN(recent_err_msg_drops_oldest_whole_lines_beyond_4k);
    RUN(recent_err_msg_is_per_thread_by_default);
    RUN(err_msg_mode_1_makes_messages_process_wide);
    RUN(err_msg_mode_1_applies_from_aclinit);
    RUN(err_msg_mode_does_not_outlive_finalize);

    RUN(get_last_error_returns_and_clears);
    RUN(peek_at_last_error_does_not_clear);
    RUN(last_error_is_the_most_recent_failure);
    RUN(success_does_not_clear_last_error);
    RUN(last_error_level_other_than_thread_is_invalid_param);
    RUN(repeat_initialize_counts_as_last_error);
    RUN(failed_task_code_becomes_last_error);
    RUN(last_error_is_per_thread);

    fresh();
    return check_report("init");
}
